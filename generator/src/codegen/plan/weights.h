// What "auto" weighs (weights.cpp), for the planner (schedule.cpp): the budgets, measured on every target class,
// which index values need a check, the statements a copy takes written out, and an estimate of a kernel's flash.
#pragma once

#include <cstdint>

#include "codegen/lower/lowered.h"

namespace kernelgen {
namespace schedule {

// The "auto" unroll setting, chosen from instructions and flash measured on Cortex-M4F (docs/generated-code.md,
// "How auto is chosen"). Its budget counts weighted statements: a block copy (or one element assignment) weighs
// 1, a reduction's combine of one element kReductionWeight (it takes several times a copy's code, and every
// combine written out is inlined code: helpers.c.mustache forces it inline). Loop levels are written out, innermost
// first, while a loop body stays within kUnrollBudget (a kernel whose copies all fit has no loop at all), then
// the next level is unrolled by the largest factor that fits.
constexpr uint64_t kUnrollBudget = 12;
constexpr uint64_t kReductionWeight = 8;
// A row copy of more than 4 elements is inline code (kernelgen_support.h's kernelgen_copy) that grows with its
// size: "auto" counts one of kRowCopyBlockBytes or more (one ldm/stm block or more) as kRowCopyStatements, and
// one more per kRowCopyBytesPerStatement bytes (a 1 KB row: 10, so such rows stay in a loop of one copy).
constexpr uint64_t kRowCopyBlockBytes = 32;
constexpr uint64_t kRowCopyStatements = 2;
constexpr uint64_t kRowCopyBytesPerStatement = 128;
// Index values checked without a loop under "auto" (docs/generated-code.md, "How auto is chosen": 4 measured
// against 2 and 6 on every target class).
constexpr uint64_t kCheckStraightLineBudget = 4;
// The most element copies a gather's body may write out and its header still state the values written
// (`ensures values:`, docs/generated-code.md "Contracts"): WP proves that goal by a case per copy, each carrying the
// copies before it: 12 copies took topk_values' goal 9 s of cvc4, the 30 of gather_elements_3d some eight minutes.
constexpr uint64_t kValuesStatedCopies = 16;
// Written-out copies of more statements than "auto" ever writes out (kUnrollBudget: "unroll": "full" over long
// indices; a factor's body, written out or not, keeps its code) are functions of their own of at most this many statements each (schedule::CopyHelper): WP's
// cost grows faster than the square of a straight line's length, as every goal carries the statements before it
// (the 30 copies of gather_elements_3d: 80 s of WP's own goal building in one function, 9 s in helpers of 10). A
// check helper's checks are parts of at most this many too.
constexpr uint64_t kHelperStatements = 8;
// "auto"'s flash limit: whatever the budget above allows, a kernel's code stays within kFlashRatio times the code
// of its loop form ("unroll": "none"), by an estimate of both in Thumb-2 instructions (weights.cpp's
// FlashEstimate): fewer copies are written out where the estimate would pass it.
constexpr uint64_t kFlashRatio = 3;
// A scatter's copy of data into output: under "none" an element loop; otherwise the in-place test and one row
// copy (kernelgen_copy, which moves words, by ldm/stm of 8 registers on Cortex-M4F), but for two kinds of copy
// measured faster as an element loop (bench/target_costs.py): at most
// kElementLoopCopyLimit elements of kElementLoopCopyWordBytes or more before a loop over a run-time count
// (event_histogram, 16 int32: the copy's 8 registers pushed the count to the stack, read back every turn, 4,196 ->
// 4,382 instructions on Cortex-M4F), and more than kElementLoopCopyLimit elements of 8 bytes or more
// (accumulate_u64 under auto, 40 uint64: 2,863 against none's 2,776). Elsewhere the row copy took 12 kernels of
// specs/ 2 to 33% fewer instructions on Cortex-M4F (complex64_accumulate 175 -> 117, doc_scatter_elements_1
// 147 -> 123), 7 to 29% on Cortex-M0 (scatter_weights_f64 834 -> 637), up to 14% fewer cycles on the ATmega2560
// (one 2% more there), for up to 62 bytes of .text more each (docs/generated-code.md, "Unrolling").
constexpr uint64_t kElementLoopCopyLimit = 32;
constexpr uint64_t kElementLoopCopyWordBytes = 4;
// A block of a plain copy (no reduction) of more than kWrittenOutBlock elements is a row copy (kernelgen_copy);
// up to it, element copies written out, but a block of exactly kWrittenOutBlock elements of kRowCopyElementBytes
// or more (16 bytes or more) is a row copy too: one ldm/stm pair of 4 registers on Cortex-M, where gcc wrote the
// element copies as 4 loads, 4 stores and their addresses. Measured (bench/target_costs.py; Cortex-M4F and M0
// instructions, ATmega2560 cycles): kept_boxes (100 rows of 4 floats) 2,818 -> 2,121, 3,169 -> 2,868 and 18,275 ->
// 19,250 (its copy loop of 8 pairs, 4.5 cycles a byte); top_boxes 302 -> 235, 363 -> 313, 2,173 -> 2,432;
// batched_gather_nd_b2 340 -> 253, 368 -> 315, 1,938 -> 2,045; .text up to 16 bytes less, 8 more on the ATmega2560.
constexpr uint64_t kWrittenOutBlock = 4;
constexpr uint64_t kRowCopyElementBytes = 4;

// Prefetching: the "auto" setting's rule, and the hint's shape. "auto" prefetches a kernel that copies blocks
// of at least a cache line, from (gathers) or to (scatters) a tensor of at least kPrefetchTensorBytes, in
// loops; it fetches about kPrefetchAheadBytes ahead. A hint covers at most kPrefetchLines lines of a block:
// the CPU's own prefetcher follows a contiguous block once it has begun.
constexpr uint64_t kCacheLineBytes = 64;
constexpr uint64_t kPrefetchTensorBytes = uint64_t{64} << 10;
constexpr uint64_t kPrefetchAheadBytes = 4096;
constexpr uint64_t kPrefetchLines = 16;

// Straight-line statements "full" unrolling of this kernel would take: the pipeline (generate.cpp) checks it
// against kMaxFullUnroll after lowering, so that planning and printing never fail.
uint64_t full_unroll_statements(const Lowered& lowered);

// Whether the index type can leave [-s, s-1] for the component's size s (a write index, or a size passed at run
// time, always can).
bool needs_check(const IndexComponent& component, IndexType index_type);
// The s of ONNX's range [-s, s-1] when every component of a tuple checks its value against that one literal
// range; else 0.
uint64_t shared_bound(const Lowered& lowered);
// The s of the checks' loop that ORs the values' offsets from -s (schedule::CheckIndices::ored_bound), where the
// kernel has one: under the faster settings, a constant count of values of one power-of-two range up to 2^30, int32
// values, or int64 values read 4 a turn (a count of 12 or more that 4 divides); else 0.
uint64_t ored_bound(const Lowered& lowered);
// Whether such a loop reads KERNELGEN_ORED_CHECKS values a turn (a count of 12 or more that 4 divides).
bool ored_by_turns(const Lowered& lowered);
// The checks a loop of index checks makes per turn under the unroll setting `kind`.
uint64_t checks_per_turn(const Lowered& lowered, Unroll::Kind kind);
// Index values the kernel compares with their bounds.
uint64_t checked_values(const Lowered& lowered);
// "auto"'s statements of the copies at one point of the loops, elements of `element_bytes`.
uint64_t auto_statements_per_point(const IndexedCopy& copy, uint64_t element_bytes);
// The most bodies (the copies at one point of the loops) "auto" may write out within kFlashRatio times the loop
// form's code: with the checks written out or not (`checks_straight`), against the loop form's own checks.
uint64_t most_bodies_in_flash(const Lowered& lowered, uint64_t element_bytes, bool checks_straight,
                              bool loop_form_checks_straight);

}  // namespace schedule
}  // namespace kernelgen
