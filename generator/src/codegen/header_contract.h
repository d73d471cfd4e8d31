// The header's contract: what a kernel's .h promises, from its spec and its lowering. The includes its element
// type needs, the size macros and return codes (their names from common/kernel_identifiers.h), the comment that
// states the operator and its attributes, the shapes, each index's range or the constant values, what duplicates
// and a run-time count do, and the prototype.
#pragma once

#include <string>

#include "codegen/indexed_copy.h"
#include "codegen/templates.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// The values kernel.h.mustache renders the contract with.
TemplateValues header_contract(const KernelSpec& spec, const IndexedCopy& copy);

// "int NAME(const float *data, const int64_t *indices, float *output)": in the definition (`definition`), indices
// and updates are `restrict` (the contract keeps them apart from output).
std::string prototype(const KernelSpec& spec, bool definition);

// "const T *" or "T *" for the kernel's element type; for a pointer element type (string) "const char *const *" or
// "const char **".
std::string pointer_to_element(const KernelSpec& spec, bool read_only);

// A constant tensor's file ("data_file", "updates_file") as the header and the table's file show it in their
// comments: its name alone, comment-safe.
std::string shown_file(const KernelSpec::ConstantData& table);

// How a quantized table's scales are laid: "one scale", "a scale per index along axis 1", "blocks of 32 along
// axis 1", for the comments.
std::string quantization_mode(const KernelSpec::Quantization& quantization);

}  // namespace kernelgen
