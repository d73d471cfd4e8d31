#include "common/kernel_identifiers.h"

#include "common/c_names.h"

namespace kernelgen {

std::string KernelIdentifiers::size(const std::string& tensor) const { return prefix() + "_" + tensor + "_SIZE"; }
std::string KernelIdentifiers::max(const std::string& parameter) const { return prefix() + "_MAX_" + macro_case(parameter); }
std::string KernelIdentifiers::error(const std::string& what) const {
    return prefix() + "_ERROR_" + macro_case(what) + "_OUT_OF_RANGE";
}
std::string KernelIdentifiers::prefix() const { return guard.substr(0, guard.size() - 2); }

KernelIdentifiers identifiers_of(const std::string& kernel) {
    const std::string macro = macro_case(kernel);
    KernelIdentifiers ids{kernel, macro + "_H", macro + "_OK", ""};
    ids.error_index = ids.error("index");
    return ids;
}

std::string helper_name(const std::string& kernel, const std::string& role) { return "kernelgen_" + kernel + "_" + role; }

}  // namespace kernelgen
