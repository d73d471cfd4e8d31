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
#include "import/held_tables.h"
#include "kernelgen/import.h"
#include "kernelgen/result.h"

namespace kernelgen {

// A node import reads: the ONNX operator it is (a row of operators.h) and the kernelgen operator it becomes.
struct OpRule {
    const OnnxOperator& onnx;
    Op op;
};

// The rule of a node of the default domain that is an indexing operator, or nothing.
std::optional<OpRule> find_rule(const onnx::NodeProto& node);

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

// The spec of one node (keys in the README's order, "name" empty for the caller to set), or why there is none. A
// node with a run-time count gets its bound in `bounded`. The tensors its kernel holds are `held`'s files, each named
// by a key of the spec set to "" for the caller to name (HeldFile::key); `held`'s note says why a constant one stays
// a parameter, whether or not there is a spec.
Result<nlohmann::ordered_json> node_spec(const NodeContext& context, std::optional<BoundedCount>& bounded, HeldTables& held);

}  // namespace kernelgen
