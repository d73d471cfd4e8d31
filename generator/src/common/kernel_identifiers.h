// A kernel's identifiers, spelled in one place: what its header defines (the function, the include guard, the
// size, count and return-code macros) and the names of its source's own helpers. The lowering (which decides which
// of them a header defines), the printer and the templates, and import's name allocation all take them from here.
#pragma once

#include <string>

namespace kernelgen {

// The identifiers of the kernel called `kernel`.
struct KernelIdentifiers {
    std::string function;     // the kernel itself
    std::string guard;        // <NAME>_H
    std::string ok;           // <NAME>_OK
    std::string error_index;  // <NAME>_ERROR_INDEX_OUT_OF_RANGE
    // <NAME>_<TENSOR>_SIZE, for tensor DATA, INDICES, UPDATES (a scatter's) or OUTPUT.
    std::string size(const std::string& tensor) const;
    // <NAME>_MAX_<PARAMETER>: the largest value of a count parameter ("count" -> <NAME>_MAX_COUNT).
    std::string max(const std::string& parameter) const;
    // <NAME>_ERROR_<WHAT>_OUT_OF_RANGE: the return code when `what` ("index", a count parameter) is out of range.
    std::string error(const std::string& what) const;

private:
    std::string prefix() const;  // <NAME>
};
KernelIdentifiers identifiers_of(const std::string& kernel);

// A helper's name: "kernelgen_<kernel>_<role>". No kernel name begins with "kernelgen" (the name rule), and no
// role ends with "_" + another role, so no two kernels' helpers, nor a helper and any kernel's own identifiers,
// can share a name: any set of kernels the run-wide name rule accepts compiles as one translation unit.
std::string helper_name(const std::string& kernel, const std::string& role);

}  // namespace kernelgen
