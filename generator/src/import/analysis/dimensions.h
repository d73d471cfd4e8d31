// The dimensions a caller binds: --dim names a model's dimension, --input gives an input's whole shape; and the
// inputs --value fixes.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "import/analysis/model_analysis.h"

namespace kernelgen {

// Gives the dimensions the caller names their values in `model`, recording them and the model's own dimension
// names in `analysis`. Returns false when the options do not fit the model (`usage_errors` say why: a --dim or
// --input that names nothing in the model among them).
bool bind_dimensions(onnx::ModelProto& model, const ImportOptions& options, ModelAnalysis& analysis,
                     std::vector<std::string>& usage_errors);

// Makes each graph input that --value names a constant of those values (after bind_dimensions, in the shape the
// model or --input declares). Returns false when a value does not fit its input.
bool bind_values(onnx::ModelProto& model, const ImportOptions& options, std::vector<std::string>& usage_errors);

}  // namespace kernelgen
