// The small loop IR between an IndexedCopy and C: statements whose offsets are affine expressions of loop
// variables, wrapped index values, table entries and the run-time count. The planner (plan/) writes a kernel's
// body in it, the lowering (lower/) a row function's, and the printer (print/) prints each node one way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "codegen/ir/indexed_copy.h"

namespace kernelgen {
namespace schedule {

// The tensors a body names. The copy's source is Data (gathers) or Updates (scatters).
enum class Tensor { Data, Indices, Updates, Output };

// Where a body reads or writes: a tensor, its slice (a pointer into it that a Slice statement opened), or the row
// of its short block that a Local points to (`from` into the source, `to` into output).
struct View {
    Tensor tensor = Tensor::Data;
    bool slice = false;
    bool row = false;
};

// The name of a short block's offset or row pointer (Local), which a row View prints: `to` in output, `from` in the
// source.
inline std::string row_name(Tensor tensor) { return tensor == Tensor::Output ? "to" : "from"; }

struct Expr;

// A signed sum of loop variables times their coefficients, plus a constant: a constant added to an index value
// ("indices_add"), int64_t arithmetic within 2^62.
struct SignedSum {
    std::vector<std::pair<std::string, int64_t>> terms;
    int64_t constant = 0;
};

// One term of an offset, times its coefficient.
struct Term {
    enum class Kind {
        Variable,      // a loop variable or a local: `name`
        Quotient,      // `name` / divisor (whole numbers)
        Count,         // the run-time count parameter, in the offset type
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
    std::string bound_parameter;  // WrappedIndex: the parameter holding the axis' size (at most `bound`), or ""
    bool widened = false;  // TableEntry: a table narrower than the offset type, converted explicitly
    unsigned bits = 0;     // TableEntry: the table's element width (8, 16, 32 or 64)
    uint64_t divisor = 1;  // Quotient
    std::optional<SignedSum> addend;  // WrappedIndex: a constant added to the value read (checked in range with it)
    // Run-time extents: the parameter or local the term is also multiplied by ("" for none): a stride that is a
    // product of extents passed at run time.
    std::string factor;
};

// sum(term * coefficient) + constant; a coefficient of 0 contributes nothing.
struct Expr {
    std::vector<Term> terms;
    uint64_t constant = 0;
    Expr plus(uint64_t value) const;
    Expr plus(const Expr& other) const;
};

Expr variable(const std::string& name, uint64_t coefficient = 1);
// `name` * factor * coefficient (name alone where factor is ""); `factor` * coefficient for no name.
Expr scaled(const std::string& name, const std::string& factor, uint64_t coefficient);
Expr count_times(uint64_t coefficient);  // the run-time count times `coefficient`
Expr quotient(const std::string& name, uint64_t divisor, uint64_t coefficient = 1);

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

// Constant indices the kernel holds and checks at run time: static const indices[] = { values }, below `comment`.
struct ConstantIndices {
    std::vector<int64_t> values;
    std::string comment;
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
    // Its range: ONNX's [-bound, bound-1] (the bound a parameter's where bound_parameter names one); a write
    // index [0, last] (linear) or [0, ...] (circular).
    IndexComponent component;
    // An int64 value against a literal size up to 2^31 (every value in range then an int32): kernelgen_support.h's
    // test of the value at its address, kernelgen_outside_i64 (by words on 8- and 16-bit cores and Cortex-M0).
    bool by_words = false;
    // ONNX's range against a size passed at run time, whose bound is below 2^31: kernelgen_support.h's
    // kernelgen_outside_count_i32 of the value, or kernelgen_outside_count_i64 at its address (by words but on
    // 64-bit hosts). Neither flag: the compare in C (a bound of 2^31 or more compares the size in int64_t).
    bool by_count = false;
    // An int64 value against ONNX's range shifted by constants added ("indices_add") whose both ends are int32
    // values: kernelgen_support.h's kernelgen_outside_range_i64 (by words on the Thumb-1 M profile).
    bool by_range = false;
};
struct CheckIndices {
    bool by_helper = false;      // a call of the kernel's check helper (schedule::CheckHelper), which has them
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

// A count passed at run time above its bound fails before anything is read or written.
struct CheckCount {
    std::string parameter;    // the count
    std::string max_macro;    // its bound, as the header's macro
    std::string error_macro;  // what the kernel returns
    std::string comment;
};

// A scatter's output starting as a copy of data (its first `rows_parameter` rows of row_elements elements, where a
// parameter gives how many): an element loop (an in-place update runs it too), or one memcpy skipped when
// output == data. Constant data: one copy out of its table, or a memset when every byte of it is 0.
struct CopyData {
    bool element_loop = false;
    uint64_t elements = 0;
    std::string rows_parameter;
    uint64_t row_elements = 0;
    enum class From { Data, Table, Zeros } from = From::Data;
    // The row copy before loops of updates: kernelgen_support.h's kernelgen_copy_once, which Thumb-2 makes out of
    // line, leaving the loops the registers its ldm/stm would take.
    bool before_loops = false;
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

// { const offset name = value; body }, or where `row` names a tensor (or its slice), a pointer to its element at
// value: { const T *name = &tensor[value]; body } (T *name for output), which the body reads through View::row.
struct Local {
    std::string name;
    Expr value;
    Statements body;
    std::optional<View> row;
};

// const offset name = value; (in the enclosing scope), and for the proof, where at_most is not 0, an assertion
// that name <= at_most (a product of run-time extents: the provers do not find the product of two bounds).
struct Let {
    std::string name;
    Expr value;
    uint64_t at_most = 0;
};

// { body }
struct Block {
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

// The row function (a helper of role `role`) writing a source row to the block at `to`, instead of a copy of the
// block at `from`: the row `row`, or, where the offset does not divide term by term, `from`'s offset divided by
// row_elements at run time.
struct RowCall {
    std::string role;
    Access to;
    std::optional<Expr> row;
    Access from;
    uint64_t row_elements = 0;
};

// In a row function: the scale at `at` of the table of role `scales`, as a float (from the element type's bits),
// and, when `zero_points` names a table, the zero point beside it (row_read.c.mustache).
struct ScaleRead {
    Expr at;
    std::string scales, zero_points;
    std::string from_bits;  // the conversion of a 16-bit scale to float, or "" for a float scale
    bool signed_zero_points = false;
};

// In a row function: to[at] = the value of table entry `value_at` (read by the helper of role `value`), less
// the zero point, times the scale, converted to the element type (`convert`: a function, or "" for float).
struct ScaledStore {
    Expr at, value_at;
    std::string value;
    enum class ZeroPoint { None, Read, Literal } zero_point = ZeroPoint::None;
    int32_t zero_point_value = 0;
    std::string convert;
};

struct Return {
    bool error = false;
};

// A call of the kernel's copy helper `helper` (schedule::CopyHelper), passing its parameters on.
struct CopyCall {
    size_t helper = 0;
};

struct Statement {
    std::variant<Comment, ConstantIndices, Unused, CheckCount, CheckIndices, CopyData, For, Slice, Local, Let, Block,
                 PrefetchHint, BlockCopy, Assign, RowCall, ScaleRead, ScaledStore, Return, CopyCall>
        node;
};

template <typename Node>
Statement wrap(Node node) {
    return Statement{std::move(node)};
}

}  // namespace schedule
}  // namespace kernelgen
