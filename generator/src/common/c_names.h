// The C-name policy: which names a kernel may take (a C identifier that clashes with nothing C, C++ or kernelgen
// reserves), and the upper-cased spelling its macros use.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kernelgen/result.h"

namespace kernelgen {

constexpr size_t kMaxNameLength = 63;

// What a kernel name may be, as messages say it.
constexpr const char* kNameRules = "a C identifier of at most 63 characters, not a C or C++ keyword";

// Whether `name` can name a kernel; the problem when it cannot (not a C identifier, too long, a keyword, reserved, a
// C library or standard header name, ...), as the spec checker says it.
Result<Ok> check_name(const std::string& name);

// The upper-cased kernel name its macros use.
std::string macro_case(std::string name);

// A file name as a comment of the generated C may show it: letters, digits, spaces and ". _ - + , ( ) [ ] = @ %"
// kept, every other byte (one that could end the comment, begin a trigraph or a line splice, a control character,
// a byte of a non-ASCII character) shown as '_'.
std::string comment_safe(const std::string& text);

}  // namespace kernelgen
