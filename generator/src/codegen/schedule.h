// How a kernel runs: a small loop IR between the IndexedCopy and C.
//
// plan() makes every decision about a kernel's code in one pass over its IndexedCopy and its options: what is
// unrolled and by how much, whether the index checks are written out or looped, which loop opens slices of the
// tensors, whether a block is one memcpy or element copies, where prefetch hints go, which constant runs come
// from tables, which helpers the source defines, what the banner says of it and whether the source guards its
// sizes. The printer (print.cpp) walks the result and decides nothing: each node prints one way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "codegen/indexed_copy.h"
#include "kernelgen/spec.h"

namespace kernelgen {

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
// "auto"'s flash limit: whatever the budget above allows, a kernel's code stays within kFlashRatio times the code
// of its loop form ("unroll": "none"), by an estimate of both in Thumb-2 instructions (schedule.cpp's
// FlashEstimate): fewer copies are written out where the estimate would pass it.
constexpr uint64_t kFlashRatio = 3;
// ScatterND's copy of data into output, in every mode but "none" (always an element loop): an element loop
// for at most kElementLoopCopyLimit elements of kElementLoopCopyWordBytes or more, or for elements of 8 bytes or
// more (whose element loop moves as many bytes per instruction as memcpy does on a 32-bit core, without the
// call), else the in-place test and one row copy (kernelgen_copy, which moves words: elements of 1 or 2 bytes
// one at a time took up to twice its instructions, docs/generated-code.md).
constexpr uint64_t kElementLoopCopyLimit = 32;
constexpr uint64_t kElementLoopCopyWordBytes = 4;

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
uint64_t full_unroll_statements(const IndexedCopy& copy, const KernelSpec& spec);

namespace schedule {

// The tensors a body names. The copy's source is Data (gathers) or Updates (scatters).
enum class Tensor { Data, Indices, Updates, Output };

// Where a body reads or writes: a tensor, or its slice (a pointer into it that a Slice statement opened).
struct View {
    Tensor tensor = Tensor::Data;
    bool slice = false;
};

struct Expr;

// One term of an offset, times its coefficient.
struct Term {
    enum class Kind {
        Variable,      // a loop variable or a local: `name`
        Count,         // the run-time count parameter (KernelSpec::runtime_count), in the offset type
        WrappedIndex,  // the index value at view[position[0]], as an offset along an axis of size `bound`
                       // (kernelgen_support.h's wrap)
        CheckedIndex,  // a write index at view[position[0]], checked non-negative: the offset itself
        CircularIndex,  // (view[position[0]] mod bound + position[1]) mod bound (kernelgen_support.h's circular)
        TableEntry,    // entry r of the table of constant runs called `name` (a helper role)
    };
    Kind kind = Kind::Variable;
    std::string name;
    uint64_t coefficient = 1;
    View view{Tensor::Indices};
    std::vector<Expr> position;  // WrappedIndex, CheckedIndex: exactly one; CircularIndex: the index, the step
    uint64_t bound = 0;
    bool runtime_bound = false;  // WrappedIndex: the axis' size is the run-time data count, at most `bound`
    bool widened = false;  // TableEntry: a table narrower than the offset type, converted explicitly
    unsigned bits = 0;     // TableEntry: the table's element width (8, 16, 32 or 64)
};

// sum(term * coefficient) + constant; a coefficient of 0 contributes nothing.
struct Expr {
    std::vector<Term> terms;
    uint64_t constant = 0;
    Expr plus(uint64_t value) const;
    Expr plus(const Expr& other) const;
};

Expr variable(const std::string& name, uint64_t coefficient = 1);

// view[at]
struct Access {
    View view;
    Expr at;
};

struct Statement;
using Statements = std::vector<Statement>;

// /* text */
struct Comment {
    std::string text;
};

// Constant indices the kernel holds (beside a run-time data count): static const indices[] = { values }.
struct ConstantIndices {
    std::vector<int64_t> values;
};

// Parameters the body does not use, cast to void.
struct Unused {
    std::vector<Tensor> tensors;
};

// One index value compared with its bound s: out of [-s, s-1] it fails. Straight-line checks return the error
// at once; checks in a loop that `accumulate` gather every failure into one flag tested after the loop.
struct IndexValue {
    enum class Kind { Element, Local, TupleElement };  // indices[position], `index`, tuple[position]
    Kind kind = Kind::Element;
    uint64_t position = 0;
};
struct Check {
    IndexValue value;
    // Its range: ONNX's [-bound, bound-1] (the bound the run-time data count where runtime_bound says so); a
    // TensorScatter write index [0, last] (linear) or [0, ...] (circular).
    IndexComponent component;
    // An int64 value against a literal size up to 2^31 (every value in range then an int32): kernelgen_support.h's
    // test of the value at its address, kernelgen_outside_i64 (by words on 8- and 16-bit cores and Cortex-M0).
    bool by_words = false;
    // ONNX's range against the run-time data count, whose bound is below 2^31: kernelgen_support.h's
    // kernelgen_outside_count_i32 of the value, or kernelgen_outside_count_i64 at its address (by words but on
    // 64-bit hosts). Neither flag: the compare in C (a bound of 2^31 or more compares the count in int64_t).
    bool by_count = false;
};
struct CheckIndices {
    bool loop = false;           // false: `checks` written out, each returning the error
    Expr tuple_end;              // loop: the tuples, of tuple_length values (a constant, or count * a constant)
    uint64_t tuple_length = 0;
    bool accumulate = false;     // loop: one flag, tested once after the loop
    // loop over a constant count of int32 values (tuple_length 1) sharing ONNX's range [-s, s-1] for a power-of-two
    // s up to 2^30: each value's offset from -s (index + s, a uint32_t) ORed into one word, out of range when above
    // 2s - 1. One add and one OR a value, no branch (int64 values and run-time counts measured slower on
    // Cortex-M0 and the ATmega2560); 0: the compares.
    uint64_t ored_bound = 0;
    // ORed: a count of 12 or more values that 4 divides, read KERNELGEN_ORED_CHECKS a turn (4, or 1 on 8- and
    // 16-bit cores; kernelgen_ored_offsets_i32). Fewer: one a turn, as gcc writes out a loop of two turns of 4,
    // which measured slower on Cortex-M0 (emb_scatter_nd_add: the registers its reduction loop then needs).
    bool ored_by_turns = false;
    std::vector<Check> checks;   // written out: every value; loop: the values of tuple t
};

// A run-time count above its bound fails before anything is read or written: the count of index (or, with
// CountLeads::Data, data) rows, or the data count.
struct CheckCount {
    uint64_t bound = 0;
    bool data_count = false;
};

// A scatter's output starting as a copy of data (its first data_count rows, with a run-time data count): an
// element loop (an in-place update runs it too), or one memcpy skipped when output == data. Constant data: one
// copy out of its table, or a memset when every byte of it is 0.
struct CopyData {
    bool element_loop = false;
    uint64_t elements = 0;
    uint64_t row_elements = 0;  // a run-time data count: only data_count rows of this many elements; 0: all
    enum class From { Data, Table, Zeros } from = From::Data;
};

// for (offset variable = 0; variable < end; variable += step) { body }
struct For {
    std::string variable;
    Expr end;
    uint64_t step = 1;
    Statements body;
};

// A pointer to `tensor`'s part at `at`, which the statements after it (in the same body) use as its slice.
struct Slice {
    Tensor tensor = Tensor::Data;
    Expr at;
};

// { const offset name = value; body }
struct Local {
    std::string name;
    Expr value;
    Statements body;
};

// A prefetch hint for the block at `block`; with a guard, only while `guard_variable` < guard_limit.
struct PrefetchHint {
    Access block;
    std::string guard_variable;
    uint64_t guard_limit = 0;
};

// memcpy of `length` elements from `from` to `to`.
struct BlockCopy {
    Access to, from;
    Expr length;
};

// to = from, or to = combine(to, from).
struct Assign {
    Access to, from;
    bool combine = false;
};

struct Return {
    bool error = false;
};

struct Statement {
    std::variant<Comment, ConstantIndices, Unused, CheckCount, CheckIndices, CopyData, For, Slice, Local, PrefetchHint,
                 BlockCopy, Assign, Return>
        node;
};

// The file-scope helpers the source defines, in the order it defines them (the index wrap and the float16
// conversions are shared by every kernel: kernelgen_support.h).
struct PrefetchHelper {
    bool write = false;  // a scatter's block, about to be written
    uint64_t lines = 1;  // cache lines per hint
    uint64_t distance = 0;
};
struct RunTable {
    std::string role;  // "sources", "destinations" or "lengths"
    unsigned bits = 32;  // element width: 8, 16, 32 or 64
    std::vector<uint64_t> values;
};
struct CombineHelper {
    Reduction reduction = Reduction::None;
    bool fp_contract_off = false;  // complex multiplication: no fused multiply-add
};
// A quantized table (KernelSpec::quantization): the function that dequantizes one row of it into the output. Its
// loop nests walk the row (the full blocks, then a partial last one); each loop steps through the row's elements
// and the scales by its strides. The row's first scale is (row / row_divisor) * row_scale_stride.
struct DequantizeLoop {
    uint64_t extent = 1;
    uint64_t element_stride = 0;
    uint64_t scale_stride = 0;
};
struct DequantizeNest {
    std::vector<DequantizeLoop> loops;  // outer to inner, none of extent 0 or 1
    uint64_t element_start = 0;
    uint64_t scale_start = 0;
    // How many outer loops pick the scale: it is read inside them, before the loops whose scale stride is 0.
    size_t scale_depth = 0;
};
struct DequantizeHelper {
    uint64_t row_elements = 0;
    uint64_t row_divisor = 1;
    uint64_t row_scale_stride = 0;
    std::vector<DequantizeNest> nests;
    // The zero point: none (0), one literal for every element, or read from its table beside each scale.
    enum class ZeroPoint { None, Literal, Table } zero_point = ZeroPoint::None;
    int32_t zero_point_value = 0;
};
struct Helpers {
    std::optional<PrefetchHelper> prefetch;
    std::optional<DequantizeHelper> dequantize;
    std::vector<RunTable> tables;
    std::optional<CombineHelper> combine;
};

// A kernel's plan: its helpers, its body, and the facts its banner states.
struct Schedule {
    bool wide_offsets = false;  // uint64_t offsets (a tensor above 2^32 - 1 elements), else uint32_t
    bool uses_memcpy = false;   // the body calls memcpy, memset or a row copy: the source includes <string.h>
    // Copies of a size known here go through kernelgen_support.h's row copy (kernelgen_copy, inline, each target's
    // fastest; from a table KERNELGEN_COPY_FROM_TABLE), else through a call of memcpy (KERNELGEN_MEMCPY_FROM_TABLE):
    // "unroll": "none" keeps the least code (docs/generated-code.md, "Row copies").
    bool row_copies = true;
    // The kernel holds data (KernelSpec::constant_data) or a scatter's updates (constant_updates) as a table: every
    // copy from it reads flash (kernelgen_support.h's KERNELGEN_COPY_FROM_TABLE), and the body's views of that
    // tensor name the table. A scatter's constant data whose bytes are all 0 has no table (output starts as a
    // memset), nor a constant tensor the body never reads.
    bool data_table = false;
    bool updates_table = false;
    Helpers helpers;
    Statements body;
    // For the banner: the copies are straight-line; the checks (when checked) are written out; the constant
    // runs are written out; the prefetch distance (0: none).
    bool straight = false;
    bool checks_straight = false;
    bool runs_straight = false;
    uint64_t prefetch_distance = 0;
    // The banner's line on how the kernel runs ("unroll auto: straight-line copies, straight-line index checks").
    std::string note;
    // The bytes of the largest tensor, when they could pass a 16-bit size_t: the source refuses such a target
    // (#error) rather than truncate sizes; 0 when every tensor fits.
    uint64_t size_guard_bytes = 0;
};

Schedule plan(const KernelSpec& spec, const IndexedCopy& copy);

// How a quantized table's rows are dequantized (dequantize.cpp): a spec with KernelSpec::quantization.
DequantizeHelper plan_dequantize(const KernelSpec& spec);

}  // namespace schedule
}  // namespace kernelgen
