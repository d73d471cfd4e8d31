#include "kernelgen/diagnostics.h"

#include <nlohmann/json.hpp>

namespace kernelgen {

using nlohmann::json;

std::string terminal_safe(std::string_view text) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto ch = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (ch < 0x20 || ch == 0x7F) {
            out += "\\x";
            out += digits[ch >> 4];
            out += digits[ch & 15];
        } else if (ch == 0xC2 && next >= 0x80 && next <= 0x9F) {  // U+0080..U+009F, the C1 controls
            out += "\\u00";
            out += digits[next >> 4];
            out += digits[next & 15];
            ++i;
        } else {
            out += static_cast<char>(ch);
        }
    }
    return out;
}

std::string Diagnostic::str() const {
    // One problem per line: control characters from the user's text are shown escaped.
    return terminal_safe(file + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + message);
}

std::string in_quotes(std::string_view text) {
    return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace kernelgen
