// One indexing node of a model as a spec: its operator (a row of the operator table, kernelgen/operators.h), its
// attributes with ONNX's defaults and the opsets that have them, its tensors' static shapes and element types
// (one leading dimension may be a run-time count: tensors.h), its constant indices and the tensors its kernel
// holds (constants.h), or the reason it cannot be a spec.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "import/node/context.h"
#include "import/node/held_tables.h"
#include "kernelgen/import.h"
#include "kernelgen/result.h"

namespace kernelgen {

// The rule of a node that is an indexing operator of the table (ONNX's, or ONNX Runtime's com.microsoft one), or
// nothing.
std::optional<OpRule> find_rule(const onnx::NodeProto& node);

// Whether the model's opset has the rule's operator: the problem when it does not.
Result<Ok> check_opset(const OpRule& rule, int64_t opset);

// The version of the default domain (ai.onnx) the model imports; `found` false when it imports none.
int64_t default_opset(const onnx::ModelProto& model, bool& found);

// The spec of one node (keys in the README's order, "name" empty for the caller to set), or why there is none. A
// node with a run-time count gets its bound in `bounded`. The tensors its kernel holds are `held`'s files, each named
// by a key of the spec set to "" for the caller to name (HeldFile::key); `held`'s note says why a constant one stays
// a parameter, whether or not there is a spec. `tensors`: the model's tensors its parameters take.
Result<nlohmann::ordered_json> node_spec(const NodeContext& context, std::optional<BoundedCount>& bounded, HeldTables& held,
                                         KernelTensors& tensors);

}  // namespace kernelgen
