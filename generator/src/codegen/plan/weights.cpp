// What "auto" weighs, for the planner: which index values need a check, the statements a copy takes written out,
// and an estimate of a kernel's flash in its loop form and written out (kFlashRatio). Decisions are the planner's
// (schedule.cpp); these only count.
#include "codegen/plan/weights.h"

#include <algorithm>

namespace kernelgen {
namespace schedule {


// Whether the index type can leave [-s, s-1] for the size s: an int32 index never can when s >= 2^31 (and
// an int64 one never meets such an s). A size of 0 is handled apart: no value is in range.
// A run-time bound always needs one: the count may be below any value of the type.
bool needs_check(const IndexComponent& component, IndexType index_dtype) {
    if (component.kind != IndexComponent::Kind::Wrapped) return true;  // a write index: negative ones are refused
    if (component.shifted() && component.bound != 0) {  // constants added: the shifted range, within the type's?
        const CheckedRange range = checked_range(component, index_dtype);
        return !(range.low_free && range.high_free);
    }
    const uint64_t limit = index_dtype == IndexType::Int32 ? uint64_t{1} << 31 : uint64_t{1} << 63;
    return !component.bound_parameter.empty() || (component.bound != 0 && component.bound < limit);
}

// The s of ONNX's range [-s, s-1] when every component of a tuple checks its value against that one literal
// range; else 0.
uint64_t shared_bound(const Lowered& lowered) {
    const auto& components = lowered.copy.components;
    const auto same_range = [&](const IndexComponent& c) {
        return needs_check(c, lowered.index_type) && c.kind == IndexComponent::Kind::Wrapped && c.bound_parameter.empty() &&
               c.bound == components.front().bound && c.addend_low == components.front().addend_low &&
               c.addend_high == components.front().addend_high;
    };
    if (components.empty() || !std::all_of(components.begin(), components.end(), same_range)) return 0;
    return components.front().bound;
}

bool ored_by_turns(const Lowered& lowered) {
    const uint64_t values = lowered.copy.tuple_count * lowered.copy.components.size();
    return values % 4 == 0 && values >= 12;
}

uint64_t ored_bound(const Lowered& lowered) {
    const uint64_t bound = shared_bound(lowered);
    const bool ored = lowered.unroll.kind != Unroll::Kind::None &&
                      (lowered.index_type == IndexType::Int32 || ored_by_turns(lowered)) &&
                      !lowered.copy.counts_index_rows() && bound != 0 && bound <= (uint64_t{1} << 30) &&
                      (bound & (bound - 1)) == 0 && !lowered.copy.components.front().shifted();
    return ored ? bound : 0;
}

// The checks a loop of index checks makes per turn: one when every component of a tuple of several has the same
// range (ONNX's [-s, s-1] for one literal s: under "none" the loop then runs over the values, not the tuples),
// else one per component that needs it.
uint64_t checks_per_turn(const Lowered& lowered, Unroll::Kind kind) {
    const auto& components = lowered.copy.components;
    if (kind == Unroll::Kind::None && shared_bound(lowered) != 0) return 1;
    return static_cast<uint64_t>(std::count_if(components.begin(), components.end(), [&](const IndexComponent& c) {
        return needs_check(c, lowered.index_type);
    }));
}

namespace {

// Statements one copy of `length` elements takes when written out: a reduction combines element by element;
// a plain copy assigns up to 4 elements one by one and uses one memcpy beyond.
uint64_t statements_per_copy(const IndexedCopy& copy, uint64_t length) {
    return copy.reduction != Reduction::None ? length : (length <= 4 ? length : 1);
}

// Statements of the copies at one point of the loops, written out: one block, or every constant run, each
// counted by `per_copy(length)`.
template <typename PerCopy>
uint64_t statements_at_point(const IndexedCopy& copy, PerCopy per_copy) {
    if (!copy.runs) return per_copy(copy.block);
    uint64_t statements = 0;
    for (const Run& run : *copy.runs) statements += per_copy(run.length);
    return statements;
}

uint64_t statements_per_point(const IndexedCopy& copy) {
    return statements_at_point(copy, [&](uint64_t length) { return statements_per_copy(copy, length); });
}

// Statements of every copy written out.
uint64_t copy_statements(const IndexedCopy& copy) { return copy.point_count() * statements_per_point(copy); }

// "auto"'s count of the same: a plain copy of more than 4 elements is an inline row copy (kernelgen_copy), whose
// code grows with its size: under kRowCopyBlockBytes a few loads and stores, one statement; else
// kRowCopyStatements and one more per kRowCopyBytesPerStatement bytes.
uint64_t auto_statements_per_copy(const IndexedCopy& copy, uint64_t length, uint64_t element_bytes) {
    const uint64_t bytes = length * element_bytes;
    if (copy.reduction != Reduction::None || length <= 4 || bytes < kRowCopyBlockBytes) {
        return statements_per_copy(copy, length);
    }
    return kRowCopyStatements + bytes / kRowCopyBytesPerStatement;
}

}  // namespace

uint64_t auto_statements_per_point(const IndexedCopy& copy, uint64_t element_bytes) {
    return statements_at_point(copy, [&](uint64_t length) { return auto_statements_per_copy(copy, length, element_bytes); });
}

// Index values the kernel compares with their bounds: none when an axis of size 0 makes every tuple fail
// (the check is then a plain "return"), and none for components whose type cannot leave the bound.
uint64_t checked_values(const Lowered& lowered) {
    if (!lowered.checked) return 0;
    uint64_t per_tuple = 0;
    for (const auto& component : lowered.copy.components) {
        if (component.bound == 0) return 0;
        if (needs_check(component, lowered.index_type)) ++per_tuple;
    }
    return lowered.copy.tuple_count * per_tuple;
}

namespace {

// "auto"'s flash limit (kFlashRatio): estimated Thumb-2 instructions of a kernel's pieces at -Os, measured on
// Cortex-M4F code. Not a size model: it compares two forms of one kernel, written out and in loops, whose shared
// parts (prologue, checks) stay alike, and only needs the ratio roughly right.
class FlashEstimate {
public:
    FlashEstimate(const Lowered& lowered, uint64_t element_bytes)
        : lowered_(lowered), copy_(lowered.copy), element_bytes_(element_bytes) {}

    // The loop form's code: every level a loop, copies beyond 4 elements memcpy calls.
    uint64_t loop_form(bool checks_straight_loop_form) const {
        const bool table_walk = copy_.runs && copy_.runs->size() > 1;
        const uint64_t body = table_walk ? kLoopInstructions + kTableEntryInstructions + kCallInstructions : body_instructions(false);
        return fixed(checks_straight_loop_form, false) + body + copy_.loops.size() * kLoopInstructions;
    }

    // The most bodies (the copies at one point of the loops) "auto" may write out within kFlashRatio times the
    // loop form, with its own checks (straight or looped), row copies and one loop left.
    uint64_t most_bodies(bool checks_straight, uint64_t loop_form_instructions) const {
        const uint64_t limit = kFlashRatio * loop_form_instructions;
        const uint64_t other = fixed(checks_straight, true) + kLoopInstructions;
        const uint64_t body = std::max<uint64_t>(body_instructions(true), 1);
        return limit > other ? std::max<uint64_t>((limit - other) / body, 1) : 1;
    }

private:
    static constexpr uint64_t kFunctionInstructions = 6;  // saving registers, the returns
    static constexpr uint64_t kLoopInstructions = 3;      // a counter's start, step and test
    static constexpr uint64_t kCallInstructions = 4;      // a memcpy call with its arguments
    static constexpr uint64_t kTableEntryInstructions = 3;

    // One index value read and compared or wrapped (a 64-bit one as two words).
    uint64_t index_read_instructions() const { return lowered_.index_type == IndexType::Int64 ? 4 : 3; }
    // ... and scaled by its stride.
    uint64_t index_instructions(const IndexComponent& component) const {
        return index_read_instructions() + (component.stride != 1 ? 1 : 0);
    }
    uint64_t index_instructions() const {
        uint64_t out = 0;
        for (const auto& component : copy_.components) out += index_instructions(component);
        return out;
    }

    uint64_t fixed(bool checks_straight, bool row_copies) const {
        const Unroll::Kind form = row_copies ? lowered_.unroll.kind : Unroll::Kind::None;  // auto's own form, or none's
        uint64_t out = kFunctionInstructions;
        const uint64_t checked = checked_values(lowered_);
        if (checked > 0) {
            // A loop of ORed int64 offsets reads 4 values of two words a turn (an add, an add with carry and two
            // ORs each).
            const bool ored_int64 = row_copies && lowered_.index_type == IndexType::Int64 && ored_bound(lowered_) != 0;
            out += checks_straight ? checked * index_read_instructions()
                   : ored_int64    ? 2 * kLoopInstructions + 4 * index_read_instructions()
                                   : 2 * kLoopInstructions + checks_per_turn(lowered_, form) * kLoopInstructions;
        }
        if (copy_.copy_data_first && copy_.data_size > 0) {
            const bool from_data = lowered_.first_copy.from == FirstCopy::From::Data;
            out += row_copies && from_data ? copy_instructions(copy_.data_size, true) : kCallInstructions;
        }
        return out;
    }

    // The copies at one point of the loops and the index values they read.
    uint64_t body_instructions(bool row_copies) const {
        uint64_t out = statements_at_point(copy_, [&](uint64_t length) { return copy_instructions(length, row_copies); });
        if (!copy_.runs) out += index_instructions();
        return out;
    }

    // One copy of `length` elements: element by element (a reduction, or up to 4 elements), a memcpy call, or
    // kernelgen_copy's inline code (32-byte blocks, a loop from three, then pieces; for elements narrower than 4
    // bytes, a run-time alignment test and the memcpy beside it).
    uint64_t copy_instructions(uint64_t length, bool row_copies) const {
        if (copy_.reduction != Reduction::None) return 4 * length;
        if (length <= 4) return 2 * length;
        if (!row_copies) return kCallInstructions;
        const uint64_t bytes = length * element_bytes_;
        const bool narrow = element_bytes_ < 4;
        if (narrow && bytes < kRowCopyBlockBytes) return std::min<uint64_t>(2 * ((bytes + 3) / 4), 2 * kCallInstructions);
        const uint64_t blocks = bytes / kRowCopyBlockBytes;
        uint64_t out = blocks > 2 ? 2 * kCallInstructions : 4 * blocks;
        for (uint64_t piece = kRowCopyBlockBytes / 2; piece > 0; piece /= 2) {
            if (bytes & piece) out += 2;
        }
        return narrow ? out + 2 * kCallInstructions : out;
    }

    const Lowered& lowered_;
    const IndexedCopy& copy_;
    uint64_t element_bytes_;
};

}  // namespace

uint64_t most_bodies_in_flash(const Lowered& lowered, uint64_t element_bytes, bool checks_straight,
                              bool loop_form_checks_straight) {
    const FlashEstimate estimate(lowered, element_bytes);
    return estimate.most_bodies(checks_straight, estimate.loop_form(loop_form_checks_straight));
}

uint64_t full_unroll_statements(const Lowered& lowered) {
    return copy_statements(lowered.copy) + checked_values(lowered);
}

}  // namespace schedule
}  // namespace kernelgen
