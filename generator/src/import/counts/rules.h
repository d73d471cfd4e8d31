// The count rules of import/operators/onnx_operators.cpp's table: for one node, the counted dimension (and bound)
// of each output, from its inputs' counts (counts/passing.cpp) or made by the node itself (counts/producers.cpp).
#pragma once

#include <vector>

#include "import/counts/node_view.h"

namespace kernelgen::counts {

using CountRule = std::vector<Counted> (*)(const NodeView&);
// A rule for the counts among the elements of a node's (one) integer output.
using ValueRule = std::optional<CountedValue> (*)(const NodeView&);

// A rule for a node of one output.
template <Counted (*Rule)(const NodeView&)>
std::vector<Counted> one_output(const NodeView& v) {
    return {Rule(v)};
}

// A rule for a node of one output whose count comes from its first input's (nothing when that has none).
template <Counted (*Rule)(const NodeView&, const CountedDim&)>
std::vector<Counted> from_first(const NodeView& v) {
    const CountedDim* in = v.counted(0);
    if (!in) return {};
    return {Rule(v, *in)};
}

// counts/producers.cpp
Counted nonzero(const NodeView& v);
Counted non_max_suppression(const NodeView& v);
Counted compress(const NodeView& v);
std::vector<Counted> top_k(const NodeView& v);
std::vector<Counted> unique(const NodeView& v);

// counts/passing.cpp
Counted broadcast(const NodeView& v);
Counted same_axis(const NodeView& v, const CountedDim& in);
Counted batch(const NodeView& v);  // Conv, ConvTranspose, pooling: a count of the batch, axis 0
Counted pad(const NodeView& v, const CountedDim& in);
Counted resize(const NodeView& v, const CountedDim& in);  // Resize, Upsample: scales of 1.0 on the count's axis
Counted transpose(const NodeView& v, const CountedDim& in);
Counted squeeze(const NodeView& v, const CountedDim& in);
Counted unsqueeze(const NodeView& v, const CountedDim& in);
Counted reshape(const NodeView& v, const CountedDim& in);
Counted flatten(const NodeView& v, const CountedDim& in);
Counted slice(const NodeView& v, const CountedDim& in);
Counted expand(const NodeView& v, const CountedDim& in);
std::vector<Counted> slice_outputs(const NodeView& v);
// A Slice's starts, ends, axes and steps where known (attributes before opset 10, inputs from it on); nothing when
// it names axes or steps not known at import time.
struct SliceArguments {
    std::optional<Dims> starts, ends, axes, steps;
};
std::optional<SliceArguments> slice_arguments(const NodeView& v);
// The axes a Slice of opset 10 on slices: its axes input when known, else the first len(starts); nothing otherwise.
std::optional<Dims> slice_axes(const GraphScope& scope, const onnx::NodeProto& node);  // a count through it, or made by run-time starts or ends
Counted roi_align(const NodeView& v);
Counted gemm(const NodeView& v);
Counted concat(const NodeView& v);
Counted matmul(const NodeView& v);
Counted gather(const NodeView& v);
Counted gather_nd(const NodeView& v);
std::vector<Counted> elements(const NodeView& v);
std::vector<Counted> split(const NodeView& v);

// counts/shape_values.cpp: counts in shape values, and back into counted dimensions
std::optional<CountedValue> shape_value(const NodeView& v);
std::optional<CountedValue> gather_value(const NodeView& v);
std::optional<CountedValue> same_value(const NodeView& v);  // Identity, Cast, Unsqueeze, Squeeze, Reshape
std::optional<CountedValue> concat_value(const NodeView& v);
std::optional<CountedValue> slice_value(const NodeView& v);
std::optional<CountedValue> equal_value(const NodeView& v);  // known where a count cannot be the number
std::optional<CountedValue> where_value(const NodeView& v);
Counted constant_of_shape(const NodeView& v);
Counted reshape_to(const NodeView& v);  // by a known shape, or one with a counted element
Counted expand_to(const NodeView& v);
Counted range(const NodeView& v);

}  // namespace kernelgen::counts
