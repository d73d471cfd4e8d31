// The single emitter: plans any IndexedCopy (schedule.h) and prints the plan as a C99 header and source
// through the templates.
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
};

// The file-scope helpers a kernel's source may define (static functions and tables), by role.
const std::vector<std::string>& helper_roles();
// A helper's name: "kernelgen_<kernel>_<role>". No kernel name begins with "kernelgen" (the name rule), and no
// role ends with "_" + another role, so no two kernels' helpers, nor a helper and any kernel's own identifiers,
// can share a name: any set of kernels the run-wide name rule accepts compiles as one translation unit.
std::string helper_name(const std::string& kernel, const std::string& role);

GeneratedKernel emit(const KernelSpec& spec, const IndexedCopy& copy);

// The support code every kernel's source includes: the index wrap, the complex types, the float16/bfloat16
// conversions (kernelgen_support.h), and the functions defined once for a whole program (kernelgen_support.c).
// Every run writes both beside its kernels; each file refuses to compile beside another release's.
constexpr const char* kSupportHeader = "kernelgen_support.h";
constexpr const char* kSupportSource = "kernelgen_support.c";
GeneratedKernel emit_support();

}  // namespace kernelgen
