#include "codegen/print/templates.h"

#include <kainjow/mustache.hpp>
#include <set>
#include <stdexcept>

namespace kernelgen {

// Defined in the file CMake generates from templates/ (cmake/EmbedTemplates.cmake).
const std::map<std::string, std::string>& embedded_templates();

const std::string& template_text(const std::string& name) {
    const auto& all = embedded_templates();
    auto it = all.find(name);
    if (it == all.end()) throw std::logic_error("kernelgen: no template named " + name);
    return it->second;
}

namespace {

namespace mstch = kainjow::mustache;

// A context that remembers every name the template asked for and did not get.
class StrictContext : public mstch::context<std::string> {
public:
    explicit StrictContext(const mstch::data* data) : mstch::context<std::string>(data) {}
    const mstch::data* get(const std::string& name) const override {
        const mstch::data* found = mstch::context<std::string>::get(name);
        if (!found) missing.insert(name);
        return found;
    }
    mutable std::set<std::string> missing;
};

// Mustache's standalone lines, which this version of kainjow's library gets wrong (a false section's tag line
// stays as a blank line, and a true section that starts with a blank line loses it): a line holding only a
// section or comment tag is joined to the next line, so it leaves no line behind; and every blank line is
// marked, so the library never sees a line that renders empty. unmark() removes the marks after rendering.
// Values are escaped so that no value can hold a mark.
constexpr char kEscape = '\x01';
constexpr char kBlank = '\x02';   // after kEscape: a blank template line's mark
constexpr char kLiteral = '\x03';  // after kEscape: a kEscape of a value

std::string standalone_lines(const std::string& text) {
    std::string out;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        const bool newline = end != std::string::npos;
        if (!newline) end = text.size();
        const std::string line = text.substr(begin, end - begin);
        const size_t first = line.find_first_not_of(" \t");
        const size_t last = line.find_last_not_of(" \t");
        // One tag alone: "{{#", "{{^", "{{/" or "{{!", and its only "}}" at the end.
        const bool tag_only = first != std::string::npos && line.compare(first, 2, "{{") == 0 &&
                              first + 2 < line.size() && std::string("#^/!").find(line[first + 2]) != std::string::npos &&
                              line.find("}}", first) == last - 1;
        if (tag_only) {
            out += line.substr(first, last + 1 - first);
        } else if (first == std::string::npos) {
            out += std::string{kEscape, kBlank} + line + (newline ? "\n" : "");
        } else {
            out += line + (newline ? "\n" : "");
        }
        begin = end + 1;
    }
    return out;
}

std::string escaped(const std::string& value) {
    std::string out;
    for (char ch : value) out += ch == kEscape ? std::string{kEscape, kLiteral} : std::string(1, ch);
    return out;
}

std::string unmark(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != kEscape || i + 1 == text.size()) {
            out += text[i];
            continue;
        }
        if (text[++i] == kLiteral) out += kEscape;  // kBlank: nothing
    }
    return out;
}

mstch::data to_data(const TemplateValues& values) {
    mstch::data data;
    for (const auto& [key, text] : values.text) data.set(key, escaped(text));
    for (const auto& [key, flag] : values.flags) data.set(key, mstch::data(flag));
    for (const auto& [key, items] : values.lists) {
        mstch::data list(mstch::data::type::list);
        for (const auto& item : items) list.push_back(to_data(item));
        data.set(key, list);
    }
    return data;
}

}  // namespace

std::string render_template(const std::string& name, const TemplateValues& values) {
    mstch::mustache tmpl(standalone_lines(template_text(name)));
    if (!tmpl.is_valid()) throw std::logic_error("kernelgen: template " + name + ": " + tmpl.error_message());
    tmpl.set_custom_escape([](const std::string& text) { return text; });  // C, not HTML
    const mstch::data data = to_data(values);
    StrictContext context(&data);
    std::string out = unmark(tmpl.render(context));
    if (!context.missing.empty()) {
        throw std::logic_error("kernelgen: template " + name + " uses {{" + *context.missing.begin() + "}}, which was not given");
    }
    return out;
}

}  // namespace kernelgen
