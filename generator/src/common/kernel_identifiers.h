// A kernel's identifiers, spelled in one place: what its header defines (the function, the include guard, the
// size, count and return-code macros) and the names of its source's own helpers. The run-wide name rule, the
// printer and the templates, and import's name allocation all take them from here.
#pragma once

#include <string>
#include <vector>

#include "kernelgen/spec.h"

namespace kernelgen {

// Every identifier a kernel's header declares or defines: the function, the include guard and the
// <NAME>_... macros (a scatter adds <NAME>_UPDATES_SIZE). Two kernels of a run may share none of them.
std::vector<std::string> header_identifiers(const KernelSpec& spec);

// The file-scope helpers a kernel's source may define (static functions and tables), by role.
const std::vector<std::string>& helper_roles();
// A helper's name: "kernelgen_<kernel>_<role>". No kernel name begins with "kernelgen" (the name rule), and no
// role ends with "_" + another role, so no two kernels' helpers, nor a helper and any kernel's own identifiers,
// can share a name: any set of kernels the run-wide name rule accepts compiles as one translation unit.
std::string helper_name(const std::string& kernel, const std::string& role);

}  // namespace kernelgen
