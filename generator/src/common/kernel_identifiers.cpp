#include "common/kernel_identifiers.h"

#include "common/c_names.h"

namespace kernelgen {

std::vector<std::string> header_identifiers(const KernelSpec& spec) {
    const std::string macro = macro_case(spec.name);
    std::vector<std::string> out{spec.name, macro + "_H", macro + "_DATA_SIZE", macro + "_INDICES_SIZE"};
    if (is_scatter(spec.op)) out.push_back(macro + "_UPDATES_SIZE");
    out.push_back(macro + "_OUTPUT_SIZE");
    if (spec.runtime_count) out.push_back(macro + "_MAX_COUNT");
    out.insert(out.end(), {macro + "_OK", macro + "_ERROR_INDEX_OUT_OF_RANGE"});
    if (spec.runtime_count) out.push_back(macro + "_ERROR_COUNT_OUT_OF_RANGE");
    return out;
}

const std::vector<std::string>& helper_roles() {
    static const std::vector<std::string> roles{"combine", "prefetch", "sources", "destinations", "lengths"};
    return roles;
}

std::string helper_name(const std::string& kernel, const std::string& role) { return "kernelgen_" + kernel + "_" + role; }

}  // namespace kernelgen
