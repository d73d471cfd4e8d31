// The values a template of templates/ is rendered with (print/templates.h renders them): made by the stage that
// knows them, the lowering for a header's contract and a row function's comment, the printer for the rest.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kernelgen {

// Text for {{key}}, flags for {{#key}}...{{/key}} (and {{^key}}), and lists whose items each render
// {{#key}}...{{/key}} once with their own values (a list of one item is an optional object). Every name a template
// uses must be given: a missing one throws std::logic_error, so a template and the code that fills it cannot drift
// apart silently.
struct TemplateValues {
    std::map<std::string, std::string> text;
    std::map<std::string, bool> flags;
    std::map<std::string, std::vector<TemplateValues>> lists;
};

}  // namespace kernelgen
