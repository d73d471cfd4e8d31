// The C printer: a kernel's finished Schedule (schedule.h) printed as a C99 header and source through the
// templates, each node one way; the printer decides nothing.
#pragma once

#include <string>
#include <vector>

#include "codegen/indexed_copy.h"
#include "codegen/schedule.h"
#include "kernelgen/spec.h"

namespace kernelgen {

struct GeneratedKernel {
    std::string header_name;  // "<name>.h"
    std::string header;
    std::string source_name;  // "<name>.c"
    std::string source;
    // Constant data (KernelSpec::constant_data): its table, in a file of its own that the source includes.
    std::string data_name;  // "<name>_data.inc", or "" for a kernel without constant data
    std::string data;
};

// The file that holds a kernel's constant data table, which its source includes.
std::string data_include_name(const std::string& kernel);

GeneratedKernel print_kernel(const KernelSpec& spec, const IndexedCopy& copy, const schedule::Schedule& schedule);

// The support code every kernel's source includes: the index wrap, the complex types, the float16/bfloat16
// conversions (kernelgen_support.h), and the functions defined once for a whole program (kernelgen_support.c).
// Every run writes both beside its kernels; each file refuses to compile beside another release's.
constexpr const char* kSupportHeader = "kernelgen_support.h";
constexpr const char* kSupportSource = "kernelgen_support.c";
GeneratedKernel print_support();

}  // namespace kernelgen
