// The text templates of templates/, compiled into the executable so an installed kernelgen needs no data files.
#pragma once

#include <map>
#include <string>

namespace kernelgen {

// Template text by file name ("kernel.h.mustache"); an unknown name is a programming error (throws).
const std::string& template_text(const std::string& name);

// Renders a template with Mustache. Every {{key}} must be given: a missing key throws std::logic_error,
// so a template and the code that fills it cannot drift apart silently.
struct TemplateValues {
    std::map<std::string, std::string> text;
};
std::string render_template(const std::string& name, const TemplateValues& values);

}  // namespace kernelgen
