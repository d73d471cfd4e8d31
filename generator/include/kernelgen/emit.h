// The single emitter: prints any IndexedCopy as a C99 header and source through the templates.
#pragma once

#include <string>
#include <vector>

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

// Prefetching: the "auto" setting's rule, and the hint's shape (documented in the README). "auto" prefetches
// a kernel that copies blocks of at least a cache line, from (gathers) or to (scatters) a tensor of at least
// kPrefetchTensorBytes, in loops; it fetches about kPrefetchAheadBytes ahead. A hint covers at most
// kPrefetchLines lines of a block: the CPU's own prefetcher follows a contiguous block once it has begun.
constexpr uint64_t kCacheLineBytes = 64;
constexpr uint64_t kPrefetchTensorBytes = uint64_t{64} << 10;
constexpr uint64_t kPrefetchAheadBytes = 4096;
constexpr uint64_t kPrefetchLines = 16;

// Straight-line statements "full" unrolling of this kernel would take: checked against kMaxFullUnroll
// while resolving, so that emitting never fails.
uint64_t full_unroll_statements(const IndexedCopy& copy, const KernelSpec& spec);

// The file-scope helpers a kernel's source may define (static functions and tables), by role.
const std::vector<std::string>& helper_roles();
// A helper's name: "kernelgen_<kernel>_<role>". No kernel name begins with "kernelgen" (the name rule), and no
// role ends with "_" + another role, so no two kernels' helpers, nor a helper and any kernel's own identifiers,
// can share a name: any set of kernels the run-wide name rule accepts compiles as one translation unit.
std::string helper_name(const std::string& kernel, const std::string& role);

GeneratedKernel emit(const KernelSpec& spec, const IndexedCopy& copy);

}  // namespace kernelgen
