// What import knows when it makes one node's spec: the node, the rule that reads it (a row of the operator table),
// the model around it, and which of its inputs are the kernel's tensors. Shared by the rooms of node/: spec.cpp
// (the spec's keys), tensors.cpp (static shapes and run-time counts) and constants.cpp (the tensors a kernel holds).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>

#include "kernelgen/diagnostics.h"
#include "import/analysis/count_bounds.h"
#include "import/analysis/model_analysis.h"
#include "import/model/node_attributes.h"
#include "kernelgen/operators.h"

namespace kernelgen {

// Most constant index values one imported spec may carry (beyond it the spec file would pass kernelgen's
// 16 MiB limit for a spec file).
constexpr uint64_t kMaxConstantIndices = uint64_t{1} << 20;

// A node import reads: the ONNX operator it is (a row of operators.h) and the kernelgen operator it becomes.
struct OpRule {
    const OnnxOperator& onnx;
    Op op;
};

// A --max-count for one node: the option as given ("--max-count NODE=N") and N.
struct MaxCount {
    std::string option;
    uint64_t bound = 0;
};

struct NodeContext {
    const onnx::NodeProto& node;
    const OpRule& rule;
    int64_t opset;
    const GraphScope& scope;
    const ModelAnalysis& analysis;
    const CountBounds& counts;
    std::optional<MaxCount> max_count;
    std::optional<MaxCount> max_extent;  // --max-extent NODE=N: the bound of data's dimensions made at run time
    std::string path;  // the node's path, as --max-count names it in hints
    bool weights_in_kernel = true;  // a gather's constant data becomes the kernel's table (--weights kernel)
    bool plain_indices = false;     // the kernel takes the node's own indices input (--plain-indices)
};

// The node's inputs as the kernel's tensors (data, indices, updates, in that order): for each, the node's input
// that is it (-1 where the operator has no such tensor, or the node leaves out an optional input) and ONNX's name
// of that input ("past_cache"), which messages use.
struct NodeInputs {
    int position[3] = {-1, -1, -1};
    std::string onnx_name[3];

    const std::string& name(const onnx::NodeProto& node, KernelInput tensor) const {
        return input_or_none(node, position[static_cast<int>(tensor)]);
    }
    // "updates \"u\"": the input as messages name it.
    std::string role(const onnx::NodeProto& node, KernelInput tensor) const {
        return onnx_name[static_cast<int>(tensor)] + " " + in_quotes(name(node, tensor));
    }
};

}  // namespace kernelgen
