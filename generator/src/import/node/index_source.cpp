#include "import/node/index_source.h"

#include <set>

#include "import/model/node_attributes.h"
#include "import/model/tensor_value.h"

namespace kernelgen {

namespace {

// The element type of `name` where the scope knows it, else 0.
int32_t elem_type_of(const GraphScope& scope, const std::string& name) {
    const onnx::TypeProto* type = scope.type(name);
    return type && type->has_tensor_type() ? type->tensor_type().elem_type() : 0;
}

bool integer_index_type(int32_t type) { return type == onnx::TensorProto::INT32 || type == onnx::TensorProto::INT64; }

// Whether `node` (of the default domain) passes its first input on with every value and its order kept: a reshape
// of the same elements, or a Cast that widens int32 to int64 (or casts to the type it has).
bool keeps_values(const onnx::NodeProto& node, int32_t from, int32_t to, bool reshapes) {
    static const std::set<std::string> layout{"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"};
    if (node.op_type() == "Cast") return from == to || (from == onnx::TensorProto::INT32 && to == onnx::TensorProto::INT64);
    return reshapes && from == to && layout.count(node.op_type());
}

// The shape an Expand's input (`from`, static) broadcasts from to its output `to`, of `to`'s rank: aligned at the
// back, each dimension `to`'s or 1; nothing where it is not that.
std::optional<std::vector<uint64_t>> broadcast_shape(const GraphScope& scope, const std::string& from, const std::string& to) {
    const auto input = static_shape(scope.type(from));
    const auto output = static_shape(scope.type(to));
    if (!input || !output || input->size() > output->size()) return std::nullopt;
    std::vector<uint64_t> shape(output->size() - input->size(), 1);
    for (size_t i = 0; i < input->size(); ++i) {
        const int64_t dim = (*input)[i], target = (*output)[output->size() - input->size() + i];
        if (dim != target && dim != 1) return std::nullopt;
        shape.push_back(static_cast<uint64_t>(dim));
    }
    return shape;
}

// The constant `value` broadcast to `shape` (aligned at the back) as start + sum(steps[i] * position_i), each
// within 2^62 either way (2^30 for `int32`); nothing where it is not of that form or too large.
std::optional<IndexSource::Added> affine(const TensorValue& value, const std::vector<uint64_t>& shape, bool int32) {
    if (value.dims.size() > shape.size() || value.ints.size() != value.count()) return std::nullopt;
    const size_t lead = shape.size() - value.dims.size();
    uint64_t count = 1;
    for (size_t i = 0; i < value.dims.size(); ++i) {
        const auto dim = static_cast<uint64_t>(value.dims[i]);
        if (dim != shape[lead + i] && dim != 1) return std::nullopt;
    }
    for (uint64_t dim : shape) count *= dim;
    if (count == 0 || count > (uint64_t{1} << 20)) return std::nullopt;  // none to add, or more than import reads
    const int64_t limit = int32 ? int64_t{1} << 30 : int64_t{1} << 62;
    // The value at each position of `shape`, row-major: the constant's own position where it broadcasts.
    auto at = [&](uint64_t flat) {
        uint64_t own = 0, own_stride = 1;
        for (size_t i = shape.size(); i-- > lead;) {
            const uint64_t coordinate = flat % shape[i];
            flat /= shape[i];
            const auto dim = static_cast<uint64_t>(value.dims[i - lead]);
            own += (dim == 1 ? 0 : coordinate) * own_stride;
            own_stride *= dim;
        }
        return value.ints[own];
    };
    IndexSource::Added added{at(0), std::vector<int64_t>(shape.size(), 0)};
    std::vector<uint64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] > 1) added.steps[i] = at(strides[i]) - added.start;  // each within `limit`: no overflow
    }
    for (uint64_t flat = 0; flat < count; ++flat) {
        const int64_t got = at(flat);
        if (got > limit || got < -limit) return std::nullopt;
        int64_t want = added.start;
        for (size_t i = 0; i < shape.size(); ++i) {
            want += added.steps[i] * static_cast<int64_t>((flat / strides[i]) % shape[i]);
            if (want > limit || want < -limit) return std::nullopt;
        }
        if (got != want) return std::nullopt;
    }
    return added;
}

// An Add of a constant (either side) or a Sub of one (the second) that makes `source` (of `shape`): its run-time
// side, and the constant as start and steps, which move only along the axes the run-time side is broadcast
// along (and the last, for `tuples`). Nothing where the node is not that.
struct AddedSide {
    std::string tensor;
    std::optional<std::vector<uint64_t>> broadcast_from;
    IndexSource::Added added;
};
std::optional<AddedSide> added_side(const GraphScope& scope, const onnx::NodeProto& node, const std::vector<uint64_t>& shape,
                                    int32_t type, bool tuples) {
    const bool sub = node.op_type() == "Sub";
    if ((node.op_type() != "Add" && !sub) || node.input_size() != 2 || node.input(0).empty() || node.input(1).empty()) {
        return std::nullopt;
    }
    // The constant: Add's either input, Sub's second (x - c adds -c; c - x is not the value plus a constant).
    const int constant_at = scope.value(node.input(1)) ? 1 : !sub && scope.value(node.input(0)) ? 0 : -1;
    if (constant_at < 0) return std::nullopt;
    const std::string& runtime = node.input(1 - constant_at);
    if (!scope.defined.count(runtime) || scope.may_have_value(runtime) || elem_type_of(scope, runtime) != type) return std::nullopt;
    TensorValue constant = *scope.value(node.input(constant_at));
    if (sub) {
        for (int64_t& v : constant.ints) {
            if (v == INT64_MIN) return std::nullopt;
            v = -v;
        }
    }
    auto added = affine(constant, shape, type == onnx::TensorProto::INT32);
    auto from = broadcast_shape(scope, runtime, node.output(0));
    if (!added || !from) return std::nullopt;
    for (size_t i = 0; i < shape.size(); ++i) {
        const bool component_axis = tuples && i + 1 == shape.size();
        if (added->steps[i] != 0 && !component_axis && (*from)[i] != 1) return std::nullopt;
    }
    AddedSide side{runtime, std::nullopt, *added};
    if (*from != shape) side.broadcast_from = from;
    return side;
}

}  // namespace

IndexSource index_source(const GraphScope& scope, const std::string& indices, bool reshapes, bool broadcasts, bool tuples) {
    IndexSource source{indices, elem_type_of(scope, indices), {}, std::nullopt, std::nullopt};
    bool shape_kept = true;  // every step so far kept the indices' shape (Casts only)
    // Each step leads to a tensor made before it: at most one step per node of the graph.
    for (int steps = 0; steps < scope.graph->node_size(); ++steps) {
        const auto made = scope.producers.find(source.tensor);
        if (made == scope.producers.end()) break;
        const onnx::NodeProto& node = scope.graph->node(made->second);
        if (!default_domain(node.domain()) || node.input_size() < 1 || node.input(0).empty() ||
            !scope.defined.count(node.input(0))) {
            break;
        }
        // An Add or Sub of a constant, where nothing but Casts lies between it and the node.
        if (broadcasts && shape_kept && !source.broadcast_from && !source.added && integer_index_type(source.elem_type)) {
            const auto shape = static_shape(scope.type(source.tensor));
            std::vector<uint64_t> dims;
            if (shape) dims.assign(shape->begin(), shape->end());
            auto side = shape ? added_side(scope, node, dims, source.elem_type, tuples) : std::nullopt;
            if (side) {
                source.added = side->added;
                source.broadcast_from = side->broadcast_from;
                source.through.insert(source.through.begin(), node.op_type() + " " + (node.name().empty() ? node.output(0) : node.name()));
                source.tensor = side->tensor;
                shape_kept = !source.broadcast_from;
                continue;
            }
        }
        const std::string& before = node.input(0);
        const int32_t type = elem_type_of(scope, before);
        if (!integer_index_type(type) || scope.may_have_value(before)) break;
        const bool expand = broadcasts && shape_kept && !source.broadcast_from && type == source.elem_type &&
                            node.op_type() == "Expand";
        if (expand) {
            source.broadcast_from = broadcast_shape(scope, before, source.tensor);
            if (!source.broadcast_from) break;
        } else if (!keeps_values(node, type, source.elem_type, reshapes || source.broadcast_from)) {
            break;
        }
        shape_kept = shape_kept && node.op_type() == "Cast";
        source.through.insert(source.through.begin(), node.op_type() + " " + (node.name().empty() ? node.output(0) : node.name()));
        source.tensor = before;
        source.elem_type = type;
    }
    return source;
}

}  // namespace kernelgen
