// The single emitter: prints any IndexedCopy as a C99 header and source through the templates.
#pragma once

#include <string>

#include "kernelgen/indexed_copy.h"
#include "kernelgen/spec.h"

namespace kernelgen {

struct GeneratedKernel {
    std::string header_name;  // "<name>.h"
    std::string header;
    std::string source_name;  // "<name>.c"
    std::string source;
};

// Budgets of the "auto" unroll setting (documented in the README).
constexpr uint64_t kStraightLineBudget = 64;  // statements: below this the kernel has no loop at all
constexpr uint64_t kLoopBodyBudget = 16;      // copies per loop iteration when unrolling inner loops
constexpr uint64_t kCheckStraightLineBudget = 16;  // index values checked without a loop

// Straight-line statements "full" unrolling of this kernel would take: checked against kMaxFullUnroll
// while resolving, so that emitting never fails.
uint64_t full_unroll_statements(const IndexedCopy& copy, const KernelSpec& spec);

GeneratedKernel emit(const KernelSpec& spec, const IndexedCopy& copy);

}  // namespace kernelgen
