// kernelgen import's run-time counts: which dimension of a value is a number of rows known only at run time, and
// the bound it cannot exceed.
//
// NonZero, NonMaxSuppression, Compress, TopK with a run-time k and Unique select a number of rows that depends on
// the data, but never more than their inputs' static shapes allow: NonZero no more than its input's elements,
// NonMaxSuppression no more than batches x classes x min(max_output_boxes_per_class, boxes), and so on. That
// bound is followed, as one counted dimension, through the operators between the producer and an indexing node
// (Transpose, Squeeze, Unsqueeze, Reshape, Flatten, Slice, Expand, a Gather of a column, Concat, element-wise
// operators, and the indexing operators themselves), so that an indexing node whose indices (or data) have one
// such dimension can become a kernel with a bounded run-time count ("count": "runtime").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "import/counts/node_view.h"
#include "import/model/resource_guard.h"

namespace kernelgen {

class CountBounds : public CountLookup {
public:
    // Follows the counts of every graph of the analysis (the main graph and every body, at any depth), checking
    // `guard` at every node.
    CountBounds(const GraphScope& main, int64_t opset, ResourceGuard& guard);

    // The counted dimension of `name` as `scope` sees it, or nullptr when it has none (its shape is static, or
    // unknown for another reason, or the count could not be followed).
    const CountedDim* find(const GraphScope& scope, const std::string& name) const override;
    // The counted value of `name` (the shape of a counted tensor, and what is computed from it), or nullptr.
    const CountedValue* find_value(const GraphScope& scope, const std::string& name) const override;

private:
    void walk(const GraphScope& scope, ResourceGuard& guard);
    std::vector<std::optional<CountedDim>> visit(const GraphScope& scope, const onnx::NodeProto& node, size_t position) const;
    std::optional<CountedValue> counted_value(const GraphScope& scope, const onnx::NodeProto& node, size_t position) const;
    counts::NodeView view(const GraphScope& scope, const onnx::NodeProto& node, size_t position) const;
    std::vector<std::optional<CountedDim>> if_outputs(const GraphScope& scope, const onnx::NodeProto& node, int position) const;

    int64_t opset_;
    std::map<std::pair<const GraphScope*, std::string>, CountedDim> counted_;
    std::map<std::pair<const GraphScope*, std::string>, CountedValue> values_;
};

}  // namespace kernelgen
