// One indexing node of a model as a spec: its operator (a row of the operator table, kernelgen/operators.h), its
// attributes with ONNX's defaults and the opsets that have them, its tensors' static shapes and element types
// (one leading dimension may be a run-time count), its constant indices, or the reason it cannot be a spec.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "import/analysis/count_bounds.h"
#include "import/analysis/model_analysis.h"
#include "import/quantized_tables.h"
#include "kernelgen/import.h"

namespace kernelgen {

// A node import reads: the ONNX operator it is (a row of operators.h) and the kernelgen operator it becomes.
struct OpRule {
    const OnnxOperator& onnx;
    Op op;
};

// The rule of a node of the default domain that is an indexing operator, or nothing.
std::optional<OpRule> find_rule(const onnx::NodeProto& node);

// The rule of ONNX's Gather: what a com.microsoft.GatherBlockQuantized node imports as.
OpRule gather_rule();

// Why the model's opset does not have the rule's operator, or "" when it does.
std::string opset_problem(const OpRule& rule, int64_t opset);

// The version of the default domain (ai.onnx) the model imports; `found` false when it imports none.
int64_t default_opset(const onnx::ModelProto& model, bool& found);

// A --max-count for one node: the option as given ("--max-count NODE=N") and N.
struct MaxCount {
    std::string option;
    uint64_t bound = 0;
};

// What import knows when it makes one node's spec.
struct NodeContext {
    const onnx::NodeProto& node;
    const OpRule& rule;
    int64_t opset;
    const GraphScope& scope;
    const ModelAnalysis& analysis;
    const CountBounds& counts;
    std::optional<MaxCount> max_count;
    std::string path;  // the node's path, as --max-count names it in hints
    bool weights_in_kernel = true;  // a gather's constant data becomes the kernel's table (--weights kernel)
};

// A gather's data known at import time (a weight: an embedding table), which the kernel holds: its elements'
// bytes (KernelSpec::ConstantData), and the tensor's name. `note` says why a constant data stays a parameter.
struct ConstantTable {
    std::string tensor;
    std::string bytes;
    std::string note;
    // A quantized table (quantized_tables.h): its values, scales and zero points; `bytes` then holds the values.
    std::optional<QuantizedTable> quantized;
    // A scatter's constant updates, which the kernel holds too ("updates_file"): the tensor's name and its bytes.
    std::string updates_tensor;
    std::string updates_bytes;
};

// The spec of one node (keys in the README's order, "name" empty for the caller to set), or nothing with
// `problem` set. A node with a run-time count gets its bound in `bounded`. A gather whose data is a constant the
// kernel holds gets "data_file": "" (in its place among the keys, for the caller to name) and the values in `table`
// (a scatter's constant data likewise, and its constant updates "updates_file": "");
// a quantized table (a DequantizeLinear's, or a com.microsoft.GatherBlockQuantized node's) gets "quantization" too,
// with "scales_file" and "zero_points_file" "" where they are too many to give inline.
std::optional<nlohmann::ordered_json> node_spec(const NodeContext& context, std::optional<BoundedCount>& bounded,
                                                ConstantTable& table, std::string& problem);

}  // namespace kernelgen
