// Names of the C99 standard library (ISO/IEC 9899:1999, clause 7). A kernel is a function with external
// linkage, and C reserves every library name with external linkage (7.1.3), so a kernel may not take one:
// `exp`, `round` or `free` would clash at link time or with a macro of the library's headers.
#pragma once

#include <string_view>

namespace kernelgen {

// True when `name` is a function, macro or type name of the C99 standard library (math functions with
// their `f` and `l` variants).
bool is_c_library_name(std::string_view name);

}  // namespace kernelgen
