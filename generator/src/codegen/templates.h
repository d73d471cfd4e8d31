// The text templates of templates/, compiled into the executable so an installed kernelgen needs no data files.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kernelgen {

// Template text by file name ("kernel.h.mustache"); an unknown name is a programming error (throws).
const std::string& template_text(const std::string& name);

// The values a template is rendered with: text for {{key}}, flags for {{#key}}...{{/key}} (and {{^key}}), and
// lists whose items each render {{#key}}...{{/key}} once with their own values (a list of one item is an
// optional object). Every name a template uses must be given: a missing one throws std::logic_error, so a
// template and the code that fills it cannot drift apart silently.
struct TemplateValues {
    std::map<std::string, std::string> text;
    std::map<std::string, bool> flags;
    std::map<std::string, std::vector<TemplateValues>> lists;
};
std::string render_template(const std::string& name, const TemplateValues& values);

}  // namespace kernelgen
