#include "import/count_bounds.h"

#include <algorithm>
#include <limits>
#include <set>

#include "import/constant_folding.h"
#include "kernelgen/spec.h"
#include "import/node_attributes.h"

namespace kernelgen {

namespace {

using Dims = std::vector<int64_t>;
using Counted = std::optional<CountedDim>;

// Bounds saturate here: far above any count a kernel can take (kernelgen refuses a bound above 2^32 - 1).
constexpr uint64_t kSaturated = uint64_t{1} << 62;

uint64_t times(uint64_t a, uint64_t b) {
    if (a == 0 || b == 0) return 0;
    return a > kSaturated / b ? kSaturated : a * b;
}

uint64_t plus(uint64_t a, uint64_t b) { return std::min(kSaturated, a + b); }

// The elements of a shape, saturating.
uint64_t elements_of(const std::vector<uint64_t>& dims) {
    uint64_t elements = 1;
    for (uint64_t d : dims) elements = times(elements, d);
    return elements;
}

std::string shape_text(const std::vector<uint64_t>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

// The operators a count goes through unchanged, on the same axis of their first input and first output.
const std::set<std::string>& unary_operators() {
    static const std::set<std::string> names{
        "Identity", "Cast",      "CastLike",    "Neg",     "Abs",         "Relu",     "Sigmoid",  "Tanh",  "Exp",
        "Log",      "Sqrt",      "Floor",       "Ceil",    "Round",       "Not",      "Sign",     "Reciprocal",
        "Softplus", "Softsign",  "Erf",         "IsNaN",   "IsInf",       "Clip",     "LeakyRelu", "Elu",  "Selu",
        "Celu",     "HardSigmoid", "HardSwish", "Softmax", "LogSoftmax",  "Dropout",  "Sin",      "Cos",   "Mish",
        "BitwiseNot", "Shrink",  "ThresholdedRelu"};
    return names;
}

// Element-wise operators with numpy broadcasting: the count keeps its place counted from the last axis.
const std::set<std::string>& broadcasting_operators() {
    static const std::set<std::string> names{
        "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
        "Or",  "Xor", "Where", "Min", "Max", "Sum", "Mean", "BitShift", "PRelu", "BitwiseAnd", "BitwiseOr",
        "BitwiseXor"};
    return names;
}

// What one node's computation sees: its inputs' counts, ranks, static shapes and known values.
struct NodeView {
    const GraphScope& scope;
    const onnx::NodeProto& node;
    const std::string label;  // Op "name" (or Op "Op#position" for an unnamed node)
    int64_t opset;
    const CountBounds& bounds;

    bool has(int i) const { return node.input_size() > i && !node.input(i).empty(); }
    const CountedDim* counted(int i) const { return has(i) ? bounds.find(scope, node.input(i)) : nullptr; }
    const TensorValue* value(int i) const { return has(i) ? scope.value(node.input(i)) : nullptr; }

    std::optional<size_t> rank(const std::string& name) const {
        const onnx::TypeProto* type = scope.type(name);
        if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return std::nullopt;
        return static_cast<size_t>(type->tensor_type().shape().dim_size());
    }
    std::optional<size_t> input_rank(int i) const { return has(i) ? rank(node.input(i)) : std::nullopt; }
    std::optional<size_t> output_rank(int i) const {
        return node.output_size() > i && !node.output(i).empty() ? rank(node.output(i)) : std::nullopt;
    }

    // The shape of input i with its counted dimension (if any) at its bound: every other dimension static.
    std::optional<std::vector<uint64_t>> bounded_shape(int i) const {
        if (!has(i)) return std::nullopt;
        const onnx::TypeProto* type = scope.type(node.input(i));
        if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return std::nullopt;
        const CountedDim* count = counted(i);
        std::vector<uint64_t> dims;
        const auto& shape = type->tensor_type().shape();
        for (int d = 0; d < shape.dim_size(); ++d) {
            const auto& dim = shape.dim(d);
            if (count && count->axis == static_cast<size_t>(d)) dims.push_back(count->bound);
            else if (dim.has_dim_value() && dim.dim_value() >= 0) dims.push_back(static_cast<uint64_t>(dim.dim_value()));
            else return std::nullopt;
        }
        return dims;
    }

    // The static size of dimension d of input i (nothing when it is not static).
    std::optional<int64_t> static_dim(int i, size_t d) const {
        if (!has(i)) return std::nullopt;
        const onnx::TypeProto* type = scope.type(node.input(i));
        if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return std::nullopt;
        const auto& shape = type->tensor_type().shape();
        if (d >= static_cast<size_t>(shape.dim_size())) return std::nullopt;
        const auto& dim = shape.dim(static_cast<int>(d));
        if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
        return dim.dim_value();
    }

    // A known integer list: input i's value (1-D, or a scalar when allowed).
    std::optional<Dims> ints(int i, bool allow_scalar = false) const {
        const TensorValue* v = value(i);
        if (!v || (v->type != onnx::TensorProto::INT64 && v->type != onnx::TensorProto::INT32)) return std::nullopt;
        if (v->dims.size() > 1 || (v->dims.empty() && !allow_scalar)) return std::nullopt;
        return v->ints;
    }

    // Axes given by an attribute (before opset `since`) or by input 1 from it on.
    std::optional<Dims> axes(int64_t since) const {
        if (opset < since) return ints_attribute(node, "axes");
        return ints(1, true);
    }

    // A count produced here: at most `bound`, on `axis`, for the reason given.
    Counted source(size_t axis, uint64_t bound, const std::string& why) const {
        return CountedDim{axis, bound, {label + ": at most " + std::to_string(bound) + ", " + why}};
    }

    // The count of `from` made a count of `bound` on `axis` by this node (which merges it with other dimensions,
    // or splits it): the bound may grow as well as shrink.
    Counted resized(const CountedDim& from, size_t axis, uint64_t bound) const {
        CountedDim out = from;
        out.axis = axis;
        out.through.push_back(label + (bound == from.bound ? "" : ": at most " + std::to_string(bound)));
        out.bound = bound;
        return out;
    }

    // The count of `from` moved to `axis` (and lowered to `bound`, when given) by this node.
    Counted moved(const CountedDim& from, size_t axis, std::optional<uint64_t> bound = std::nullopt) const {
        CountedDim out = from;
        out.axis = axis;
        if (bound && *bound < out.bound) {
            out.bound = *bound;
            out.through.push_back(label + ": at most " + std::to_string(*bound));
        } else {
            out.through.push_back(label);
        }
        return out;
    }
};

// --- the producers ---------------------------------------------------------------------------------------------

Counted nonzero(const NodeView& v) {
    const auto shape = v.bounded_shape(0);
    if (!shape) return std::nullopt;
    return v.source(1, elements_of(*shape), "the elements of its input " + shape_text(*shape));
}

Counted non_max_suppression(const NodeView& v) {
    const auto boxes = v.bounded_shape(0), scores = v.bounded_shape(1);
    if (!boxes || !scores || boxes->size() != 3 || scores->size() != 3) return std::nullopt;
    const uint64_t batches = (*boxes)[0], classes = (*scores)[1], spatial = (*boxes)[1];
    // ONNX: max_output_boxes_per_class defaults to 0 (no output); a value known only at run time is at most the
    // number of boxes.
    std::string limit;
    uint64_t per_class = spatial;
    if (!v.has(2)) {
        per_class = 0;
        limit = "max_output_boxes_per_class absent (0)";
    } else if (const auto given = v.ints(2, true); given && given->size() == 1) {
        const int64_t m = std::max<int64_t>((*given)[0], 0);
        per_class = std::min<uint64_t>(static_cast<uint64_t>(m), spatial);
        limit = "min(max_output_boxes_per_class " + std::to_string((*given)[0]) + ", " + std::to_string(spatial) + " boxes)";
    } else {
        limit = std::to_string(spatial) + " boxes (max_output_boxes_per_class is known only at run time)";
    }
    const uint64_t bound = times(times(batches, classes), per_class);
    return v.source(0, bound, std::to_string(batches) + (batches == 1 ? " batch x " : " batches x ") +
                                  std::to_string(classes) + (classes == 1 ? " class x " : " classes x ") + limit);
}

Counted compress(const NodeView& v) {
    const auto condition = v.bounded_shape(1);
    if (!condition || condition->size() != 1) return std::nullopt;
    const uint64_t length = (*condition)[0];
    const std::string why = "the length of its condition";
    const auto axis_attribute = int_attribute(v.node, "axis", std::numeric_limits<int64_t>::min());
    if (!axis_attribute) return std::nullopt;
    const CountedDim* input = v.counted(0);
    if (*axis_attribute == std::numeric_limits<int64_t>::min()) {  // flattened
        if (const auto shape = v.bounded_shape(0)) {
            const uint64_t elements = elements_of(*shape);
            if (elements < length) return v.source(0, elements, "the elements of its input " + shape_text(*shape));
        }
        return v.source(0, length, why);
    }
    const auto rank = v.input_rank(0);
    if (!rank) return std::nullopt;
    const auto axis = normalized_axis(*axis_attribute, *rank);
    if (!axis || (input && input->axis != *axis)) return std::nullopt;  // a second count on another axis
    std::optional<uint64_t> size;
    if (input) size = input->bound;
    else if (const auto d = v.static_dim(0, *axis)) size = static_cast<uint64_t>(*d);
    if (size && *size < length) return v.source(*axis, *size, "the size of axis " + std::to_string(*axis) + " of its input");
    return v.source(*axis, length, why);
}

// TopK: with a run-time k, its outputs have at most the input's size along the axis; with a known k, a count on
// another axis goes through.
Counted top_k(const NodeView& v) {
    const auto rank = v.input_rank(0);
    const auto axis_attribute = int_attribute(v.node, "axis", -1);
    if (!rank || !axis_attribute) return std::nullopt;
    const auto axis = normalized_axis(*axis_attribute, *rank);
    if (!axis) return std::nullopt;
    const CountedDim* input = v.counted(0);
    const bool known_k = v.opset < 10 || v.value(1) != nullptr;
    if (known_k) {
        if (input && input->axis != *axis) return v.moved(*input, input->axis);
        return std::nullopt;
    }
    if (input && input->axis != *axis) return std::nullopt;  // two counts
    const auto shape = v.bounded_shape(0);
    if (!shape) return std::nullopt;
    return v.source(*axis, (*shape)[*axis],
                    "the size of axis " + std::to_string(*axis) + " of its input (k is known only at run time)");
}

// Unique: output 0 (the unique values) and outputs 1 and 3 (their first positions and counts).
std::vector<Counted> unique(const NodeView& v) {
    std::vector<Counted> out(4);
    const auto shape = v.bounded_shape(0);
    if (!shape) return out;
    const auto axis_attribute = int_attribute(v.node, "axis", std::numeric_limits<int64_t>::min());
    if (!axis_attribute) return out;
    if (*axis_attribute == std::numeric_limits<int64_t>::min()) {
        out[0] = out[1] = out[3] = v.source(0, elements_of(*shape), "the elements of its input " + shape_text(*shape));
        return out;
    }
    const auto axis = normalized_axis(*axis_attribute, shape->size());
    if (!axis) return out;
    const CountedDim* input = v.counted(0);
    const Counted slices = v.source(*axis, (*shape)[*axis], "the size of axis " + std::to_string(*axis) + " of its input");
    if (!input || input->axis == *axis) out[0] = slices;
    out[1] = out[3] = CountedDim{0, slices->bound, slices->through};
    return out;
}

// --- the operators a count goes through ---------------------------------------------------------------------

// The output's size there is the largest of the inputs' (a count of 1 broadcasts against any other; sizes that
// differ otherwise fail at run time): at most the largest bound.
Counted broadcast(const NodeView& v) {
    const auto rank = v.output_rank(0);
    if (!rank) return std::nullopt;
    std::optional<size_t> axis;
    const CountedDim* highest = nullptr;
    for (int i = 0; i < v.node.input_size(); ++i) {
        if (!v.has(i)) continue;
        const auto r = v.input_rank(i);
        if (!r || *r > *rank) return std::nullopt;
        if (const CountedDim* c = v.counted(i)) {
            const size_t at = c->axis + (*rank - *r);
            if (axis && *axis != at) return std::nullopt;
            axis = at;
            if (!highest || c->bound > highest->bound) highest = c;
        }
    }
    if (!axis) return std::nullopt;
    // Every input without the count has 1 there, or no such axis (broadcast); another size would fix the count.
    for (int i = 0; i < v.node.input_size(); ++i) {
        if (!v.has(i) || v.counted(i)) continue;
        const size_t r = *v.input_rank(i);
        if (*axis + r < *rank) continue;
        if (v.static_dim(i, *axis + r - *rank) != std::optional<int64_t>(1)) return std::nullopt;
    }
    return v.moved(*highest, *axis);
}

Counted transpose(const NodeView& v, const CountedDim& in) {
    const auto rank = v.input_rank(0);
    if (!rank) return std::nullopt;
    Dims perm;
    if (const auto given = ints_attribute(v.node, "perm")) perm = *given;
    else for (size_t i = *rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    for (size_t i = 0; i < perm.size(); ++i) {
        if (perm[i] == static_cast<int64_t>(in.axis)) return v.moved(in, i);
    }
    return std::nullopt;
}

Counted squeeze(const NodeView& v, const CountedDim& in) {
    const auto rank = v.input_rank(0);
    const auto axes = v.axes(13);
    if (!rank || !axes || axes->empty()) return std::nullopt;  // without axes, a count of 1 would be squeezed too
    size_t before = 0;
    for (int64_t a : *axes) {
        const auto axis = normalized_axis(a, *rank);
        if (!axis || *axis == in.axis) return std::nullopt;
        if (*axis < in.axis) ++before;
    }
    return v.moved(in, in.axis - before);
}

Counted unsqueeze(const NodeView& v, const CountedDim& in) {
    const auto rank = v.input_rank(0);
    const auto axes = v.axes(13);
    if (!rank || !axes) return std::nullopt;
    const size_t out_rank = *rank + axes->size();
    std::set<size_t> inserted;
    for (int64_t a : *axes) {
        const auto axis = normalized_axis(a, out_rank);
        if (!axis || !inserted.insert(*axis).second) return std::nullopt;
    }
    size_t kept = 0;
    for (size_t i = 0; i < out_rank; ++i) {
        if (inserted.count(i)) continue;
        if (kept++ == in.axis) return v.moved(in, i);
    }
    return std::nullopt;
}

// Reshape to a known shape: a 0 that copies the counted dimension keeps the count; otherwise the one -1 takes
// count x (the other input dims) / (the other output dims), at most bound x P / Q.
Counted reshape(const NodeView& v, const CountedDim& in) {
    const auto target = v.ints(1);
    const auto shape = v.bounded_shape(0);
    const auto allow_zero = int_attribute(v.node, "allowzero", 0);
    if (!target || !shape || !allow_zero) return std::nullopt;
    uint64_t others_in = 1, others_out = 1;
    for (size_t i = 0; i < shape->size(); ++i) {
        if (i != in.axis) others_in = times(others_in, (*shape)[i]);
    }
    std::optional<size_t> copied, inferred;
    for (size_t j = 0; j < target->size(); ++j) {
        const int64_t t = (*target)[j];
        if (t == -1) {
            if (inferred) return std::nullopt;
            inferred = j;
        } else if (t == 0 && !*allow_zero) {
            if (j >= shape->size()) return std::nullopt;
            if (j == in.axis) copied = j;
            else others_out = times(others_out, (*shape)[j]);
        } else if (t < 0) {
            return std::nullopt;
        } else {
            others_out = times(others_out, static_cast<uint64_t>(t));
        }
    }
    if (copied) return v.moved(in, *copied);
    if (!inferred || others_out == 0) return std::nullopt;
    return v.resized(in, *inferred, times(in.bound, others_in) / others_out);
}

Counted flatten(const NodeView& v, const CountedDim& in) {
    const auto shape = v.bounded_shape(0);
    const auto axis_attribute = int_attribute(v.node, "axis", 1);
    if (!shape || !axis_attribute) return std::nullopt;
    const auto rank = static_cast<int64_t>(shape->size());
    if (*axis_attribute < -rank || *axis_attribute > rank) return std::nullopt;
    const auto split = static_cast<size_t>(*axis_attribute < 0 ? *axis_attribute + rank : *axis_attribute);
    const bool first = in.axis < split;
    uint64_t bound = 1;
    for (size_t i = first ? 0 : split; i < (first ? split : shape->size()); ++i) bound = times(bound, (*shape)[i]);
    return v.resized(in, first ? 0 : 1, bound);
}

// Slice never lengthens an axis: the count stays where it is, at most its bound, and at most end - start for a
// known slice from a non-negative start to a non-negative end.
Counted slice(const NodeView& v, const CountedDim& in) {
    std::optional<Dims> starts, ends, axes, steps;
    if (v.opset < 10) {
        starts = ints_attribute(v.node, "starts");
        ends = ints_attribute(v.node, "ends");
        axes = ints_attribute(v.node, "axes");
    } else {
        starts = v.ints(1);
        ends = v.ints(2);
        axes = v.has(3) ? v.ints(3) : std::nullopt;
        steps = v.has(4) ? v.ints(4) : std::nullopt;
        if ((v.has(3) && !axes) || (v.has(4) && !steps)) return v.moved(in, in.axis);
    }
    const auto rank = v.input_rank(0);
    if (!starts || !ends || !rank || starts->size() != ends->size()) return v.moved(in, in.axis);
    for (size_t k = 0; k < starts->size(); ++k) {
        const int64_t a = axes && k < axes->size() ? (*axes)[k] : static_cast<int64_t>(k);
        const int64_t step = steps && k < steps->size() ? (*steps)[k] : 1;
        if (normalized_axis(a, *rank) != in.axis) continue;
        const int64_t b = (*starts)[k], e = (*ends)[k];
        if (step > 0 && b >= 0 && e >= 0) {
            const uint64_t length = e > b ? static_cast<uint64_t>((e - b - 1) / step + 1) : 0;
            return v.moved(in, in.axis, length);
        }
    }
    return v.moved(in, in.axis);
}

Counted expand(const NodeView& v, const CountedDim& in) {
    const auto shape = v.ints(1);
    const auto rank = v.input_rank(0);
    if (!shape || !rank || shape->size() < *rank) return std::nullopt;
    const size_t axis = in.axis + (shape->size() - *rank);
    if ((*shape)[axis] != 1) return std::nullopt;  // another size broadcasts a count of 1 to a fixed size
    return v.moved(in, axis);
}

Counted concat(const NodeView& v) {
    const auto rank = v.input_rank(0);
    const auto axis_attribute = int_attribute(v.node, "axis", std::numeric_limits<int64_t>::min());
    if (!rank || !axis_attribute) return std::nullopt;
    const auto axis = normalized_axis(*axis_attribute, *rank);
    if (!axis) return std::nullopt;
    const CountedDim* first = nullptr;
    uint64_t total = 0, lowest = kSaturated;
    for (int i = 0; i < v.node.input_size(); ++i) {
        const CountedDim* c = v.counted(i);
        if (c) {
            if (first && c->axis != first->axis) return std::nullopt;
            if (!first) first = c;
            total = plus(total, c->bound);
            lowest = std::min(lowest, c->bound);
        } else if (const auto d = v.static_dim(i, *axis)) {
            total = plus(total, static_cast<uint64_t>(*d));
        } else {
            return std::nullopt;
        }
    }
    if (!first) return std::nullopt;
    CountedDim out = *first;
    out.bound = first->axis == *axis ? total : lowest;
    out.through.push_back(v.label + (out.bound == first->bound ? "" : ": at most " + std::to_string(out.bound)));
    return out;
}

Counted matmul(const NodeView& v) {
    const CountedDim* a = v.counted(0);
    const auto rank_a = v.input_rank(0), rank_b = v.input_rank(1);
    if (!a || v.counted(1) || !rank_a || !rank_b || *rank_a < 2 || *rank_b > *rank_a || a->axis != *rank_a - 2) {
        return std::nullopt;
    }
    return v.moved(*a, a->axis);
}

// The indexing operators: where their output's dimensions come from.
Counted gather(const NodeView& v) {
    const CountedDim* data = v.counted(0);
    const CountedDim* indices = v.counted(1);
    const auto rank = v.input_rank(0), index_rank = v.input_rank(1);
    const auto axis_attribute = int_attribute(v.node, "axis", 0);
    if (!rank || !index_rank || !axis_attribute) return std::nullopt;
    const auto axis = normalized_axis(*axis_attribute, *rank);
    if (!axis) return std::nullopt;
    // The output is data[:axis] + indices + data[axis+1:]: a count of data along the gathered axis is gone.
    if (indices) {
        if (data && data->axis != *axis) return std::nullopt;  // two counts in the output
        return v.moved(*indices, *axis + indices->axis);
    }
    if (!data || data->axis == *axis) return std::nullopt;  // the gathered axis: the output takes indices' shape
    return v.moved(*data, data->axis < *axis ? data->axis : data->axis + *index_rank - 1);
}

Counted gather_nd(const NodeView& v) {
    const CountedDim* data = v.counted(0);
    const CountedDim* indices = v.counted(1);
    const auto rank = v.input_rank(0), index_rank = v.input_rank(1);
    const auto k = v.static_dim(1, index_rank.value_or(1) - 1);
    const auto batch_dims = int_attribute(v.node, "batch_dims", 0);
    if (!rank || !index_rank || !k || !batch_dims || *index_rank == 0) return std::nullopt;
    const auto b = static_cast<size_t>(*batch_dims);
    if (indices && !data && indices->axis + 1 < *index_rank && indices->axis >= b) return v.moved(*indices, indices->axis);
    if (data && !indices && data->axis >= b + static_cast<size_t>(*k)) {
        return v.moved(*data, *index_rank - 1 + data->axis - b - static_cast<size_t>(*k));
    }
    return std::nullopt;
}

}  // namespace

CountBounds::CountBounds(const GraphScope& main, int64_t opset, ResourceGuard& guard) : opset_(opset) { walk(main, guard); }

const CountedDim* CountBounds::find(const GraphScope& scope, const std::string& name) const {
    const GraphScope* owner = scope.owner(name);
    if (!owner) return nullptr;
    auto it = counted_.find({owner, name});
    return it == counted_.end() ? nullptr : &it->second;
}

void CountBounds::walk(const GraphScope& scope, ResourceGuard& guard) {
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        guard.check();
        // The bodies first (they see only values defined before the node): an If's outputs are its branches'.
        const auto keys = scope.body_keys.find(n);
        if (keys != scope.body_keys.end()) {
            for (const auto& key : keys->second) walk(*scope.children.at({n, key}), guard);
        }
        const auto outputs = node.op_type() == "If" ? if_outputs(scope, node, n) : visit(scope, node, static_cast<size_t>(n));
        for (size_t i = 0; i < outputs.size() && i < static_cast<size_t>(node.output_size()); ++i) {
            const std::string& name = node.output(static_cast<int>(i));
            if (!outputs[i] || name.empty()) continue;
            // A known value, or a static declared dimension, has no count (a later binding fixed it).
            if (scope.value(name)) continue;
            if (const auto* type = scope.type(name); type && type->has_tensor_type() && type->tensor_type().has_shape()) {
                const auto& shape = type->tensor_type().shape();
                if (outputs[i]->axis >= static_cast<size_t>(shape.dim_size()) ||
                    shape.dim(static_cast<int>(outputs[i]->axis)).has_dim_value()) {
                    continue;
                }
            }
            counted_.emplace(std::make_pair(&scope, name), *outputs[i]);
        }
    }
}

// An If's output k is counted where each branch's output k is counted on the same axis, or has a static size
// there: at most the larger of the two.
std::vector<Counted> CountBounds::if_outputs(const GraphScope& scope, const onnx::NodeProto& node, int position) const {
    std::vector<Counted> out(static_cast<size_t>(node.output_size()));
    const auto then_branch = scope.children.find({position, "then_branch"});
    const auto else_branch = scope.children.find({position, "else_branch"});
    if (!default_domain(node.domain()) || then_branch == scope.children.end() || else_branch == scope.children.end()) return out;
    const std::string label = "If " + in_quotes(node_label(node, static_cast<size_t>(position)));
    for (int k = 0; k < node.output_size(); ++k) {
        const GraphScope* branches[] = {then_branch->second.get(), else_branch->second.get()};
        const CountedDim* counts[2] = {nullptr, nullptr};
        std::optional<int64_t> sizes[2];
        for (size_t b = 0; b < 2; ++b) {
            if (branches[b]->graph->output_size() <= k) return out;
            const std::string& name = branches[b]->graph->output(k).name();
            counts[b] = find(*branches[b], name);
            if (!counts[b]) {
                const auto shape = static_shape(branches[b]->type(name));
                if (shape && !shape->empty()) sizes[b] = (*shape)[0];
            }
        }
        const CountedDim* count = counts[0] ? counts[0] : counts[1];
        if (!count) continue;
        const CountedDim* other = counts[0] ? counts[1] : nullptr;
        const std::optional<int64_t> other_size = counts[0] ? sizes[1] : sizes[0];
        if (other && other->axis != count->axis) continue;
        if (!other && (!other_size || count->axis != 0)) continue;
        CountedDim merged = other && other->bound > count->bound ? *other : *count;
        if (!other) merged.bound = std::max<uint64_t>(merged.bound, static_cast<uint64_t>(*other_size));
        merged.through.push_back(label);
        out[static_cast<size_t>(k)] = merged;
    }
    return out;
}

std::vector<Counted> CountBounds::visit(const GraphScope& scope, const onnx::NodeProto& node, size_t position) const {
    if (!default_domain(node.domain()) || node.output_size() == 0) return {};
    const NodeView v{scope, node, node.op_type() + " " + in_quotes(node_label(node, position)), opset_, *this};
    const std::string& op = node.op_type();
    if (op == "NonZero") return {nonzero(v)};
    if (op == "NonMaxSuppression") return {non_max_suppression(v)};
    if (op == "Compress") return {compress(v)};
    if (op == "TopK") {
        const Counted out = top_k(v);
        return {out, out};
    }
    if (op == "Unique") return unique(v);
    if (broadcasting_operators().count(op)) return {broadcast(v)};
    if (op == "Concat") return {concat(v)};
    if (op == "MatMul") return {matmul(v)};
    if (op == "Gather") return {gather(v)};
    if (op == "GatherND") return {gather_nd(v)};
    const CountedDim* in = v.counted(0);
    if (op == "GatherElements" || op == "ScatterElements" || op == "Scatter") {
        // GatherElements' output has the shape of indices; a scatter's that of data.
        const CountedDim* from = op == "GatherElements" ? v.counted(1) : in;
        return {from ? v.moved(*from, from->axis) : Counted()};
    }
    if (!in) return {};
    if (unary_operators().count(op)) return {v.moved(*in, in->axis)};
    if (op == "ScatterND") return {v.moved(*in, in->axis)};
    if (op == "Transpose") return {transpose(v, *in)};
    if (op == "Squeeze") return {squeeze(v, *in)};
    if (op == "Unsqueeze") return {unsqueeze(v, *in)};
    if (op == "Reshape") return {reshape(v, *in)};
    if (op == "Flatten") return {flatten(v, *in)};
    if (op == "Slice") return {slice(v, *in)};
    if (op == "Expand") return {expand(v, *in)};
    if (op == "Split") {
        const auto axis = int_attribute(node, "axis", 0);
        const auto rank = v.input_rank(0);
        if (!axis || !rank || normalized_axis(*axis, *rank) == in->axis) return {};
        return std::vector<Counted>(static_cast<size_t>(node.output_size()), v.moved(*in, in->axis));
    }
    return {};
}

}  // namespace kernelgen
