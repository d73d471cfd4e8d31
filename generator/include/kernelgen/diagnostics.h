// How kernelgen reports a problem with its input: a diagnostic names the file, the place in it and what is wrong,
// and shows the user's text so that it stays on one line.
#pragma once

#include <string>
#include <string_view>

namespace kernelgen {

// One problem with the input, printed compiler-style: "FILE: /json/pointer: message (allowed)".
struct Diagnostic {
    std::string file;
    std::string pointer;
    std::string message;
    std::string str() const;
};

// `text` quoted as a JSON string ("name", with escapes; invalid UTF-8 replaced), as diagnostics show names.
std::string in_quotes(std::string_view text);

// `text` as a line may show it on a terminal: control characters (C0, DEL, and C1 in UTF-8) written as \xNN or
// \u00NN, so that a name or path from a file can neither split a line nor send escape sequences.
std::string terminal_safe(std::string_view text);

}  // namespace kernelgen
