#include "import/node/index_source.h"

#include <set>

#include "import/model/node_attributes.h"
#include "import/model/tensor_value.h"
#include "kernelgen/spec.h"

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
    const int64_t limit = int32 ? int64_t{1} << 30 : int64_t{1} << 61;
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
    // Every value within `limit` (half the spec's 2^62 for int64, so that each step, a difference, is within it).
    for (uint64_t flat = 0; flat < count; ++flat) {
        if (at(flat) > limit || at(flat) < -limit) return std::nullopt;
    }
    IndexSource::Added added{at(0), std::vector<int64_t>(shape.size(), 0)};
    std::vector<uint64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] > 1) added.steps[i] = at(strides[i]) - added.start;
    }
    __extension__ typedef __int128 Wide;  // a step (up to 2^62) times a position (below 2^20), summed
    Wide spread = added.start < 0 ? -Wide{added.start} : Wide{added.start};  // as the spec reader bounds it
    for (size_t i = 0; i < shape.size(); ++i) {
        spread += (added.steps[i] < 0 ? -Wide{added.steps[i]} : Wide{added.steps[i]}) * Wide(shape[i] - 1);
    }
    if (spread > (Wide{1} << 62)) return std::nullopt;
    for (uint64_t flat = 0; flat < count; ++flat) {
        Wide want = added.start;
        for (size_t i = 0; i < shape.size(); ++i) want += Wide{added.steps[i]} * Wide((flat / strides[i]) % shape[i]);
        if (want != Wide{at(flat)}) return std::nullopt;
    }
    return added;
}

// The static shape of `name`, or nothing.
std::optional<std::vector<uint64_t>> dims_of(const GraphScope& scope, const std::string& name) {
    const auto shape = static_shape(scope.type(name));
    if (!shape) return std::nullopt;
    return std::vector<uint64_t>(shape->begin(), shape->end());
}

// Where `shape` is `target` up to dimensions of 1 (the same elements in the same order, as every step passed keeps
// them): for each axis of `target`, the axis of `shape` it is, nothing for a dimension of 1; nothing at all where
// their other dimensions differ.
using UnitMap = std::vector<std::optional<size_t>>;
std::optional<UnitMap> unit_map(const std::vector<uint64_t>& shape, const std::vector<uint64_t>& target) {
    UnitMap map;
    size_t at = 0;
    const auto skip_units = [&] {
        while (at < shape.size() && shape[at] == 1) ++at;
    };
    for (uint64_t dim : target) {
        if (dim == 1) {
            map.push_back(std::nullopt);
            continue;
        }
        skip_units();
        if (at == shape.size() || shape[at] != dim) return std::nullopt;
        map.push_back(at++);
    }
    skip_units();
    if (at != shape.size()) return std::nullopt;
    return map;
}

// `values` (one per axis of the shape `map` maps from) along the axes of the target, `unit` on its dimensions of 1.
template <typename T>
std::vector<T> mapped(const std::vector<T>& values, const UnitMap& map, T unit) {
    std::vector<T> out;
    for (const auto& axis : map) out.push_back(axis ? values[*axis] : unit);
    return out;
}

// An Add of a constant (either side) or a Sub of one (the second) that makes a tensor of `shape`: its run-time
// side, the shape that side broadcasts from, and the constant as start and steps, along the axes of `shape`.
// Nothing where the node is not that.
struct AddedSide {
    std::string tensor;
    std::vector<uint64_t> broadcast_from;
    IndexSource::Added added;
};
std::optional<AddedSide> added_side(const GraphScope& scope, const onnx::NodeProto& node, const std::vector<uint64_t>& shape,
                                    int32_t type) {
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
    return AddedSide{runtime, *from, *added};
}

// Whether each step of `added` is one the spec allows (addend_step_allowed): each value taken then has one range.
bool steps_allowed(const IndexSource::Added& added, const std::optional<std::vector<uint64_t>>& from,
                   const std::vector<uint64_t>& target, bool tuples) {
    for (size_t i = 0; i < target.size(); ++i) {
        if (added.steps[i] != 0 && !addend_step_allowed(target, from ? *from : target, i, tuples)) return false;
    }
    return true;
}

// The node of this graph's default domain that makes `tensor` from a first input of this graph, which a walk back
// may pass; nothing where there is none.
const onnx::NodeProto* step_before(const GraphScope& scope, const std::string& tensor) {
    const auto made = scope.producers.find(tensor);
    if (made == scope.producers.end()) return nullptr;
    const onnx::NodeProto& node = scope.graph->node(made->second);
    if (!default_domain(node.domain()) || node.input_size() < 1 || node.input(0).empty() || !scope.defined.count(node.input(0))) {
        return nullptr;
    }
    return &node;
}

std::string step_name(const onnx::NodeProto& node) { return node.op_type() + " " + (node.name().empty() ? node.output(0) : node.name()); }

// GatherND's and ScatterND's indices made by a Concat along their last axis of constant components (the same in
// every tuple) and one run-time tensor, itself followed back as index_source() follows indices: `c[:, pos] = x`
// concatenates 0 before each position.
std::optional<IndexSource> concat_source(const GraphScope& scope, const std::string& indices, const std::vector<uint64_t>& target,
                                         bool reshapes) {
    const auto made = scope.producers.find(indices);
    if (made == scope.producers.end() || target.empty()) return std::nullopt;
    const onnx::NodeProto& node = scope.graph->node(made->second);
    if (!default_domain(node.domain()) || node.op_type() != "Concat") return std::nullopt;
    const auto axis = int_attribute(node, "axis", INT64_MIN);  // required by Concat
    const auto rank = static_cast<int64_t>(target.size());
    if (!axis || (*axis != -1 && *axis != rank - 1)) return std::nullopt;
    std::vector<std::optional<int64_t>> constants;
    std::string runtime;
    for (const auto& input : node.input()) {
        const auto dims = dims_of(scope, input);
        if (input.empty() || !scope.defined.count(input) || !dims || dims->size() != target.size()) return std::nullopt;
        const uint64_t length = dims->back();
        if (const TensorValue* value = scope.value(input)) {
            // Each component the same in every tuple.
            if (value->ints.size() != value->count() || value->count() == 0 || length == 0) return std::nullopt;
            for (uint64_t j = 0; j < length; ++j) {
                for (uint64_t at = j; at < value->ints.size(); at += length) {
                    if (value->ints[at] != value->ints[j]) return std::nullopt;
                }
                constants.push_back(value->ints[j]);
            }
        } else {
            if (!runtime.empty() || scope.may_have_value(input)) return std::nullopt;  // one run-time input
            runtime = input;
            constants.insert(constants.end(), length, std::nullopt);
        }
    }
    if (runtime.empty() || constants.size() != target.back()) return std::nullopt;
    IndexSource source = index_source(scope, runtime, reshapes, true, false);
    if (!integer_index_type(source.elem_type) || elem_type_of(scope, runtime) != elem_type_of(scope, indices)) return std::nullopt;
    source.through.push_back(step_name(node));
    source.tuple_constants = std::move(constants);
    return source;
}

}  // namespace

IndexSource index_source(const GraphScope& scope, const std::string& indices, bool reshapes, bool broadcasts, bool tuples) {
    IndexSource source{indices, elem_type_of(scope, indices), {}, std::nullopt, std::nullopt, std::nullopt};
    const auto target = dims_of(scope, indices);
    if (tuples && broadcasts && target) {
        if (auto concat = concat_source(scope, indices, *target, reshapes)) return *concat;
    }
    // Each step leads to a tensor made before it: at most one step per node of the graph.
    for (int steps = 0; steps < scope.graph->node_size(); ++steps) {
        const onnx::NodeProto* step = step_before(scope, source.tensor);
        if (!step) break;
        const onnx::NodeProto& node = *step;
        // Before any broadcast, the tensor holds the indices' elements in order, its shape theirs up to 1s: an Add
        // (or Sub) of a constant, or an Expand, may be passed, their shapes mapped to the indices'.
        const auto shape = broadcasts && target && !source.broadcast_from ? dims_of(scope, source.tensor) : std::nullopt;
        const auto map = shape ? unit_map(*shape, *target) : std::nullopt;
        if (map && !source.added && integer_index_type(source.elem_type)) {
            if (auto side = added_side(scope, node, *shape, source.elem_type)) {
                IndexSource::Added added{side->added.start, mapped(side->added.steps, *map, int64_t{0})};
                std::optional<std::vector<uint64_t>> from = mapped(side->broadcast_from, *map, uint64_t{1});
                if (*from == *target) from.reset();
                if (steps_allowed(added, from, *target, tuples)) {
                    source.added = added;
                    source.broadcast_from = from;
                    source.through.insert(source.through.begin(), step_name(node));
                    source.tensor = side->tensor;
                    continue;
                }
            }
        }
        const std::string& before = node.input(0);
        const int32_t type = elem_type_of(scope, before);
        if (!integer_index_type(type) || scope.may_have_value(before)) break;
        if (map && type == source.elem_type && node.op_type() == "Expand") {
            const auto from_shape = broadcast_shape(scope, before, source.tensor);
            if (!from_shape) break;
            std::optional<std::vector<uint64_t>> from = mapped(*from_shape, *map, uint64_t{1});
            if (*from == *target) from.reset();
            if (source.added && !steps_allowed(*source.added, from, *target, tuples)) break;
            source.broadcast_from = from;
        } else if (!keeps_values(node, type, source.elem_type, reshapes || source.broadcast_from || source.added)) {
            break;
        }
        source.through.insert(source.through.begin(), step_name(node));
        source.tensor = before;
        source.elem_type = type;
    }
    return source;
}

IndexSource updates_source(const GraphScope& scope, const std::string& name, size_t rows) {
    IndexSource source{name, elem_type_of(scope, name), {}, std::nullopt, std::nullopt, std::nullopt};
    const auto target = dims_of(scope, name);
    for (int steps = 0; steps < scope.graph->node_size(); ++steps) {
        const onnx::NodeProto* step = step_before(scope, source.tensor);
        if (!step || step->op_type() == "Cast") break;
        const onnx::NodeProto& node = *step;
        const std::string& before = node.input(0);
        const int32_t type = elem_type_of(scope, before);
        if (type == 0 || type != source.elem_type || scope.may_have_value(before)) break;
        const auto shape = target && !source.broadcast_from ? dims_of(scope, source.tensor) : std::nullopt;
        const auto map = shape ? unit_map(*shape, *target) : std::nullopt;
        if (map && node.op_type() == "Expand") {
            const auto from_shape = broadcast_shape(scope, before, source.tensor);
            if (!from_shape) break;
            std::vector<uint64_t> from = mapped(*from_shape, *map, uint64_t{1});
            bool whole_rows = true;  // no broadcast along the axes from `rows` on
            for (size_t i = rows; i < from.size(); ++i) whole_rows = whole_rows && from[i] == (*target)[i];
            if (!whole_rows) break;
            if (from != *target) source.broadcast_from = std::move(from);
        } else if (!keeps_values(node, type, source.elem_type, true)) {
            break;
        }
        source.through.insert(source.through.begin(), step_name(node));
        source.tensor = before;
    }
    return source;
}

}  // namespace kernelgen
