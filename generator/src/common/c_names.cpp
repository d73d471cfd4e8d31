#include "common/c_names.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/c_library_names.h"
#include "kernelgen/diagnostics.h"
#include "kernelgen/shape.h"

namespace kernelgen {

namespace {

// C99/C11 keywords, and C++ keywords too: the header is included from C++.
const std::set<std::string, std::less<>>& reserved_words() {
    static const std::set<std::string, std::less<>> words{
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
        "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
        "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
        "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic",
        "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas", "alignof", "and",
        "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char16_t", "char32_t", "char8_t", "class",
        "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return",
        "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
        "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
        "private", "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast",
        "template", "this", "thread_local", "throw", "true", "try", "typeid", "typename", "using",
        "virtual", "wchar_t", "xor", "xor_eq"};
    return words;
}

// User text in a message, quoted and escaped as a JSON string, so a message stays on one line.
// Why a name would clash with the standard headers a kernel includes (<stdint.h>, <stdbool.h>, <string.h>)
// or with names C reserves for them, if it would.
std::optional<std::string> standard_name_clash(const std::string& n) {
    auto starts = [&](std::string_view prefix) { return n.rfind(prefix, 0) == 0; };
    auto ends = [&](std::string_view suffix) {
        return n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (n == "main") return "is the program's entry point";
    if (macro_case(n).rfind("KERNELGEN", 0) == 0) {
        return "begins with \"kernelgen\", which kernelgen keeps for the names it shares between kernels";
    }
    if (is_c_library_name(n)) return "is a name of the C standard library";
    if (ends("_t")) return "ends in \"_t\", which <stdint.h> and POSIX reserve for type names";
    if ((starts("mem") || starts("str")) && n.size() > 3 && std::islower(static_cast<unsigned char>(n[3]))) {
        return "begins with \"" + n.substr(0, 3) + "\" and a lowercase letter, which C reserves for <string.h>";
    }
    if ((starts("INT") || starts("UINT")) && (ends("_MAX") || ends("_MIN") || ends("_C") || ends("_WIDTH"))) {
        return "has the form of a <stdint.h> macro name (INT.../UINT... ending in _MAX, _MIN, _C or _WIDTH)";
    }
    static const std::set<std::string, std::less<>> macros{"NULL", "SIZE_MAX", "SIZE_WIDTH", "PTRDIFF_MIN", "PTRDIFF_MAX",
                                                           "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN",
                                                           "WCHAR_MAX", "WINT_MIN", "WINT_MAX"};
    if (macros.count(n)) return "is a macro of the standard headers";
    return std::nullopt;
}

}  // namespace

std::string comment_safe(const std::string& text) {
    static const std::string kept = " ._-+,()[]=@%";
    std::string out = text;
    for (char& ch : out) {
        const bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && kept.find(ch) == std::string::npos) ch = '_';
    }
    return out;
}

std::string macro_case(std::string name) {
    for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return name;
}

Result<Ok> check_name(const std::string& n) {
    const std::string allowed = kNameRules;
    const bool identifier = !n.empty() && (std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_') &&
                            std::all_of(n.begin(), n.end(), [](char ch) {
                                return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                            });
    if (!identifier) {
        return Problem{in_quotes(n) + " is not a C identifier (" + allowed + ": letters, digits and '_', not starting with a digit)"};
    }
    if (n.size() > kMaxNameLength) return Problem{"name is " + std::to_string(n.size()) + " characters long (" + allowed + ")"};
    if (reserved_words().count(n)) return Problem{in_quotes(n) + " is a C or C++ keyword (" + allowed + ")"};
    if (n[0] == '_') return Problem{in_quotes(n) + " starts with '_', which C reserves for the implementation (" + allowed + ")"};
    if (n.find("__") != std::string::npos) {
        return Problem{in_quotes(n) + " contains \"__\", which C++ reserves for the implementation (" + allowed + ")"};
    }
    if (auto clash = standard_name_clash(n)) return Problem{in_quotes(n) + " " + *clash + " (" + allowed + ")"};
    return ok();
}

}  // namespace kernelgen
