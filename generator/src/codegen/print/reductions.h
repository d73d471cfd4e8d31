// How each element type combines under a reduction, as C: the statements of a kernel's combine helper and the
// comment above it. One entry per element category (dtype.h): IEEE arithmetic, float16/bfloat16 computed in
// float32 and rounded back, complex pairs, integers wrapping in unsigned arithmetic, bool as ONNX Runtime has it.
#pragma once

#include <string>
#include <vector>

#include "kernelgen/dtype.h"

namespace kernelgen {

// The comment's words after "The <reduction> reduction: ".
std::string reduction_doc(DType type, Reduction reduction);

// The body of `static T combine(T current, T update)`, one statement per entry.
std::vector<std::string> reduction_statements(DType type, Reduction reduction);

}  // namespace kernelgen
