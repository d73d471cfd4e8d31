#include "import/names.h"

#include <algorithm>
#include <cctype>

#include "common/c_names.h"
#include "codegen/lower/lowered.h"
#include "common/kernel_identifiers.h"

namespace kernelgen {

namespace {

// `text` cut to at most `length` characters, without a '_' left at the end.
std::string cut(std::string text, size_t length) {
    if (text.size() > length) text.resize(length);
    while (!text.empty() && text.back() == '_') text.pop_back();
    return text;
}

// `text` cut to its last `length` characters at most, starting with a letter.
std::string cut_front(std::string text, size_t length) {
    if (text.size() > length) text = text.substr(text.size() - length);
    const size_t letter = text.find_first_not_of("_0123456789");
    return letter == std::string::npos ? "" : text.substr(letter);
}

}  // namespace

// Letters, digits and single '_' only, no '_' at either end.
std::string identifier_chars(const std::string& text) {
    std::string out;
    for (char ch : text) {
        const bool keep = std::isalnum(static_cast<unsigned char>(ch)) && static_cast<unsigned char>(ch) < 0x80;
        const char next = keep ? ch : '_';
        if (next == '_' && (out.empty() || out.back() == '_')) continue;
        out += next;
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out;
}

// The words of `text`, lower-cased and joined by single '_' (see names.h).
std::string snake_case_name(const std::string& text) {
    const auto at = [&](size_t i) { return i < text.size() ? text[i] : '\0'; };
    const auto upper = [](char ch) { return ch >= 'A' && ch <= 'Z'; };
    const auto lower = [](char ch) { return ch >= 'a' && ch <= 'z'; };
    const auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    std::string out;
    const auto new_word = [&] {
        if (!out.empty() && out.back() != '_') out += '_';
    };
    for (size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (!upper(ch) && !lower(ch) && !digit(ch)) {
            new_word();
            continue;
        }
        if (upper(ch) && i > 0) {
            const char before = at(i - 1);
            const bool plural_s = at(i + 1) == 's' && !lower(at(i + 2));
            // "GatherElements", "ROIAlign", "Block2Attn"; not "IDs", "Conv2D".
            if (lower(before) || ((upper(before) || digit(before)) && lower(at(i + 1)) && !plural_s)) new_word();
        }
        out += upper(ch) ? static_cast<char>(ch - 'A' + 'a') : ch;
    }
    if (!out.empty() && out.back() == '_') out.pop_back();
    return out;
}

std::string NameAllocator::next(const std::string& scope_prefix, const onnx::NodeProto& node, size_t position) const {
    // An unnamed node (or one whose name has no ASCII letter or digit) is named for its operator and position.
    const bool named = !snake_case_name(node.name()).empty();
    const std::string name = named ? node.name() : node.op_type() + "_" + std::to_string(position);
    std::string own = snake_case_name(scope_prefix + name);
    // A node of a subgraph with a name too long loses the beginning of the holding node's name rather than
    // the end of its own, the more telling part (room is left for "node_" and "_NN").
    constexpr size_t kRoom = kMaxNameLength - 10;
    if (!scope_prefix.empty() && prefix_.size() + own.size() > kRoom) own = cut_front(own, kRoom - prefix_.size());
    std::string base = identifier_chars(prefix_ + own);
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "node_" + base;
    // A name C or kernelgen reserves (a keyword, a C library name, "..._t", "mem...", "kernelgen...")
    // gets "node" added behind or in front, whichever makes it valid.
    const std::vector<std::string> variants{base, base + "_node", "node_" + base, "node_" + base + "_node"};
    // Then "_2", "_3", ... while the name clashes with an earlier kernel's identifiers.
    for (uint64_t number = 1;; ++number) {
        const std::string suffix = number == 1 ? "" : "_" + std::to_string(number);
        for (const auto& variant : variants) {
            const std::string candidate = cut(variant, kMaxNameLength - suffix.size()) + suffix;
            if (!check_name(candidate)) continue;
            if (clashes(candidate)) break;
            return candidate;
        }
    }
}

std::vector<std::string> NameAllocator::identifiers(const std::string& name) {
    std::vector<std::string> out = possible_identifiers(name);
    for (auto& identifier : out) identifier = macro_case(identifier);
    return out;
}

bool NameAllocator::clashes(const std::string& name) const {
    const auto ids = identifiers(name);
    return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return used_.count(id) > 0; });
}

void NameAllocator::take(const std::string& name) {
    for (const auto& id : identifiers(name)) used_.insert(id);
}

std::string FileNames::allocate(const std::string& path) {
    std::string name = unique(stem_ + "." + cut(identifier_chars(path), kMaxNameLength));
    take(name);
    return name;
}

std::string FileNames::next_part(const std::string& kernel, const std::string& part) const { return unique(kernel + "." + part); }

std::string FileNames::unique(const std::string& base) const {
    for (uint64_t number = 1;; ++number) {
        std::string name = base + (number == 1 ? "" : "_" + std::to_string(number)) + ".npy";
        if (!used_.count(name)) return name;
    }
}

}  // namespace kernelgen
