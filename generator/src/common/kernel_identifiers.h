// A kernel's identifiers, spelled in one place: what its header defines (the function, the include guard, the
// size, count and return-code macros) and the names of its source's own helpers. The run-wide name rule, the
// printer and the templates, and import's name allocation all take them from here.
#pragma once

#include <string>
#include <vector>

#include "kernelgen/spec.h"

namespace kernelgen {

// The identifiers of the kernel called `kernel`; which of them its header defines depends on its spec.
struct KernelIdentifiers {
    std::string function;     // the kernel itself
    std::string guard;        // <NAME>_H
    std::string max_count;    // <NAME>_MAX_COUNT (a run-time count)
    std::string ok;           // <NAME>_OK
    std::string error_index;  // <NAME>_ERROR_INDEX_OUT_OF_RANGE
    std::string error_count;  // <NAME>_ERROR_COUNT_OUT_OF_RANGE (a run-time count)
    std::string max_data_count;    // <NAME>_MAX_DATA_COUNT (a run-time data count)
    std::string error_data_count;  // <NAME>_ERROR_DATA_COUNT_OUT_OF_RANGE (a run-time data count)
    // <NAME>_<TENSOR>_SIZE, for tensor DATA, INDICES, UPDATES (a scatter's) or OUTPUT.
    std::string size(const std::string& tensor) const;
};
KernelIdentifiers identifiers_of(const std::string& kernel);

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
