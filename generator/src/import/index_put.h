// PyTorch's index_put_(accumulate=True) as PyTorch 1.13 exports it: Add(x, ScatterND(ConstantOfShape(Shape(x)),
// idx, v)), a ScatterND without a reduction, which at duplicate indices keeps one update where PyTorch adds them.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>

#include "import/analysis/model_analysis.h"

namespace kernelgen {

// For a ScatterND node of that form (no reduction, data all zeros, its result an input of an Add of its graph):
// that Add.
std::optional<NodeRef> index_put_accumulate(const GraphScope& scope, const onnx::NodeProto& node);

}  // namespace kernelgen
