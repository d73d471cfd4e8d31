// The text templates of templates/, compiled into the executable so an installed kernelgen needs no data files.
#pragma once

#include <map>
#include <string>

#include "codegen/ir/template_values.h"

namespace kernelgen {

// Template text by file name ("kernel.h.mustache"); an unknown name is a programming error (throws).
const std::string& template_text(const std::string& name);

std::string render_template(const std::string& name, const TemplateValues& values);

}  // namespace kernelgen
