#include "kernelgen/templates.h"

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

}  // namespace

std::string render_template(const std::string& name, const TemplateValues& values) {
    mstch::mustache tmpl(template_text(name));
    if (!tmpl.is_valid()) throw std::logic_error("kernelgen: template " + name + ": " + tmpl.error_message());
    tmpl.set_custom_escape([](const std::string& text) { return text; });  // C, not HTML
    mstch::data data;
    for (const auto& [key, text] : values.text) data.set(key, text);
    StrictContext context(&data);
    std::string out = tmpl.render(context);
    if (!context.missing.empty()) {
        throw std::logic_error("kernelgen: template " + name + " uses {{" + *context.missing.begin() + "}}, which was not given");
    }
    return out;
}

}  // namespace kernelgen
