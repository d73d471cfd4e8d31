#include "common/kernel_identifiers.h"

#include "common/c_names.h"

namespace kernelgen {

std::string KernelIdentifiers::size(const std::string& tensor) const { return guard.substr(0, guard.size() - 2) + "_" + tensor + "_SIZE"; }

KernelIdentifiers identifiers_of(const std::string& kernel) {
    const std::string macro = macro_case(kernel);
    return KernelIdentifiers{kernel,
                             macro + "_H",
                             macro + "_MAX_COUNT",
                             macro + "_OK",
                             macro + "_ERROR_INDEX_OUT_OF_RANGE",
                             macro + "_ERROR_COUNT_OUT_OF_RANGE",
                             macro + "_MAX_DATA_COUNT",
                             macro + "_ERROR_DATA_COUNT_OUT_OF_RANGE"};
}

std::vector<std::string> header_identifiers(const KernelSpec& spec) {
    const KernelIdentifiers ids = identifiers_of(spec.name);
    std::vector<std::string> out{ids.function, ids.guard, ids.size("DATA"), ids.size("INDICES")};
    if (is_scatter(spec.op)) out.push_back(ids.size("UPDATES"));
    out.push_back(ids.size("OUTPUT"));
    if (spec.runtime_count) out.push_back(ids.max_count);
    if (spec.runtime_data_count) out.push_back(ids.max_data_count);
    out.insert(out.end(), {ids.ok, ids.error_index});
    if (spec.runtime_count) out.push_back(ids.error_count);
    if (spec.runtime_data_count) out.push_back(ids.error_data_count);
    return out;
}

const std::vector<std::string>& helper_roles() {
    static const std::vector<std::string> roles{"combine", "prefetch", "sources",    "destinations", "lengths",
                                                "data",    "scales",   "zero_points", "value",        "dequantize",
                                                "updates"};
    return roles;
}

std::string helper_name(const std::string& kernel, const std::string& role) { return "kernelgen_" + kernel + "_" + role; }

}  // namespace kernelgen
