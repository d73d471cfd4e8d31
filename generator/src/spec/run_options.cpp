// What applies to a whole run of specs: the command line's unroll and prefetch settings, for the specs that leave
// them out. (Names unique across the run are the pipeline's rule, codegen/generate.cpp: it needs each kernel's
// identifiers, which its lowering decides.)
#include "kernelgen/numbers.h"
#include "kernelgen/spec.h"

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
    // A run-time count (of either kind) never prefetches (its hints would look past the count), nor do run-time extents
    // (the spec refuses "prefetch" beside either): a run's --prefetch leaves them out.
    if (spec.counted() || !spec.runtime_axes.empty()) spec.prefetch = Prefetch{Prefetch::Kind::None, 0};
}

}  // namespace kernelgen
