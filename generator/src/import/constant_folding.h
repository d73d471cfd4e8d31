// Constant folding for kernelgen import: the value of a node whose inputs are all known at import time, computed
// with ONNX's semantics, for the operators exporters build shapes and indices with. Anything it cannot do
// exactly as ONNX (Runtime) would (an unknown operator, an invalid attribute, an index out of range, a division
// by zero, a float16 sum, more than kMaxFoldElements elements) is not folded: the node stays a run-time node.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

#include "import/tensor_value.h"

namespace kernelgen {

// One input of a node as folding sees it.
struct FoldInput {
    bool present = false;                       // the node names this input (optional inputs may be "")
    const TensorValue* value = nullptr;         // its value, when known
    std::optional<std::vector<int64_t>> shape;  // its static shape, when known (all Shape and Size need)
};

// Whether `domain` names ONNX's default operator set ("" or "ai.onnx"), the only one import and folding read.
bool default_domain(const std::string& domain);

// The operators fold_node() computes (ai.onnx domain).
const std::vector<std::string>& foldable_operators();

// The outputs of `node` (in the model's `opset`), or nothing when it cannot be folded. An operator whose output
// would have more than `limit` elements (what is left of the folding budget) gives nothing before computing it.
std::optional<std::vector<TensorValue>> fold_node(const onnx::NodeProto& node, int64_t opset,
                                                  const std::vector<FoldInput>& inputs,
                                                  uint64_t limit = kMaxFoldElements);

}  // namespace kernelgen
