// The C printer: a kernel's finished Schedule (plan/schedule.h), its whole input, printed as a C99 header and
// source (and its data file) through the templates, each node one way; the printer decides nothing.
#pragma once

#include <string>
#include <vector>

#include "codegen/plan/schedule.h"

namespace kernelgen {

struct GeneratedKernel {
    std::string header_name;  // "<name>.h"
    std::string header;
    std::string source_name;  // "<name>.c"
    std::string source;
    // A kernel's constant tensors (DataFile): its tables, in a file of its own that the source includes.
    std::string data_name;  // "<name>_data.inc", or "" for a kernel that holds none
    std::string data;
};

// The file that holds a kernel's constant data table, which its source includes.
std::string data_include_name(const std::string& kernel);

GeneratedKernel print_kernel(const schedule::Schedule& schedule);

// <name>_data.inc of a kernel (data_file.cpp): `kernel` the values its source renders with (its version, name,
// spec file).
std::string print_data_file(const DataFile& file, const TemplateValues& kernel);

// The support code every kernel's source includes: the index wrap, the complex types, the float16/bfloat16
// conversions (kernelgen_support.h), and the functions defined once for a whole program (kernelgen_support.c).
// Every run writes both beside its kernels; each file refuses to compile beside another release's.
constexpr const char* kSupportHeader = "kernelgen_support.h";
constexpr const char* kSupportSource = "kernelgen_support.c";
GeneratedKernel print_support();

}  // namespace kernelgen
