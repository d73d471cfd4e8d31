// What applies to a whole run of specs: the command line's unroll and prefetch settings (for the specs that
// leave them out), and names unique across the run.
#include <map>

#include "common/c_names.h"
#include "common/kernel_identifiers.h"
#include "kernelgen/numbers.h"

namespace kernelgen {

namespace {

// A command-line count, from 1 to `most` (a limit that fits an unsigned).
std::optional<unsigned> parse_count(const std::string& text, uint64_t most) {
    const auto value = parse_decimal(text, 1, most);
    if (!value) return std::nullopt;
    return static_cast<unsigned>(*value);
}

}  // namespace

std::optional<Unroll> parse_unroll(const std::string& text) {
    if (text == "auto") return Unroll{Unroll::Kind::Auto, 1};
    if (text == "full") return Unroll{Unroll::Kind::Full, 1};
    if (text == "none") return Unroll{Unroll::Kind::None, 1};
    const auto factor = parse_count(text, kMaxUnrollFactor);
    if (!factor) return std::nullopt;
    return Unroll{Unroll::Kind::Factor, *factor};
}

std::optional<Prefetch> parse_prefetch(const std::string& text) {
    if (text == "auto") return Prefetch{Prefetch::Kind::Auto, 0};
    if (text == "none") return Prefetch{Prefetch::Kind::None, 0};
    const auto distance = parse_count(text, kMaxPrefetchDistance);
    if (!distance) return std::nullopt;
    return Prefetch{Prefetch::Kind::Distance, *distance};
}

void apply_run_options(KernelSpec& spec, const RunOptions& run) {
    spec.unroll = spec.unroll_in_spec.value_or(run.unroll.value_or(Unroll{}));
    spec.prefetch = spec.prefetch_in_spec.value_or(run.prefetch.value_or(Prefetch{}));
    // A run-time count (of either kind) never prefetches (its hints would look past the count): a run's --prefetch leaves it out.
    if (spec.runtime_count || spec.runtime_data_count) spec.prefetch = Prefetch{Prefetch::Kind::None, 0};
}

void check_unique_names(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic>& diagnostics) {
    std::map<std::string, const KernelSpec*> owners;  // identifier -> the first kernel defining it
    auto where = [](const KernelSpec& kernel) {
        return kernel.spec_file + ": " + (kernel.pointer.empty() ? "/" : kernel.pointer);
    };
    for (const auto& kernel : kernels) {
        for (const auto& identifier : header_identifiers(kernel)) {
            auto [it, inserted] = owners.emplace(identifier, &kernel);
            if (inserted || it->second == &kernel) continue;
            const KernelSpec& first = *it->second;
            std::string message;
            if (first.name == kernel.name) {
                message = "kernel name " + in_quotes(kernel.name) + " is already used by " + where(first) +
                          " (names must be unique in a run)";
            } else if (macro_case(first.name) == macro_case(kernel.name)) {
                message = "kernel name " + in_quotes(kernel.name) + " equals " + in_quotes(first.name) + " of " +
                          where(first) + " once upper-cased, as the macros are (names must differ even when upper-cased)";
            } else {
                message = "kernel name " + in_quotes(kernel.name) + " clashes with kernel " + in_quotes(first.name) +
                          " of " + where(first) + ": both headers would define " + identifier +
                          " (names whose headers share no identifier)";
            }
            diagnostics.push_back({kernel.spec_file, kernel.pointer + "/name", message});
            break;  // one problem per kernel is enough
        }
    }
}

}  // namespace kernelgen
