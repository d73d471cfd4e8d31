// The nodes that make a run-time count: NonZero, NonMaxSuppression, Compress, TopK with a run-time k, Unique.
#include "import/counts/rules.h"
#include "import/counts/value_bounds.h"

#include <limits>

namespace kernelgen::counts {

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
Counted top_k_output(const NodeView& v) {
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
    if (!v.has(1)) return std::nullopt;  // no k: not a valid TopK from opset 10 on
    const auto shape = v.bounded_shape(0);
    if (!shape) return std::nullopt;
    // k may be the minimum of a constant and the run-time size (torchvision's min(300, boxes.shape[0])).
    if (const auto k = value_at_most(v.scope, v.node.input(1)); k && static_cast<uint64_t>(std::max<int64_t>(*k, 0)) < (*shape)[*axis]) {
        return v.source(*axis, static_cast<uint64_t>(std::max<int64_t>(*k, 0)), "its k, which is at most " + std::to_string(*k));
    }
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
    out[1] = out[3] = CountedDim{0, slices->bound, slices->through, slices->identity};
    return out;
}

// Both outputs of TopK (values and indices) have the count.
std::vector<Counted> top_k(const NodeView& v) {
    const Counted out = top_k_output(v);
    return {out, out};
}

}  // namespace kernelgen::counts
