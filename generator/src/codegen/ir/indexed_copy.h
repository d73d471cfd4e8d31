// The one representation every operator lowers to: an indexed block copy.
//
// For every point of `loops` (outer to inner), one index tuple of `components.size()` values is read from
// `indices` at offset sum(loop * indices_stride) + component.offset (plus the component's constant addend and
// the loops' addend steps, where the spec adds constants), each value v is checked against its
// bound s (-s <= v < s) and wrapped (v < 0 ? v + s : v) (a write index as its component's Kind says), and the
// block of `block` contiguous elements at
//   source      offset sum(loop * source_stride)      [+ sum(v * component.stride) when indexed == Source]
// goes to
//   destination offset sum(loop * destination_stride) [+ sum(v * component.stride) when indexed == Destination]
// combined by `reduction`. Gathers read data and write output; scatters first copy data to output and then
// read updates and write output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/dtype.h"

namespace kernelgen {

struct Loop {
    uint64_t extent;
    uint64_t indices_stride;
    uint64_t source_stride;
    uint64_t destination_stride;
    // A run-time count of rows: the loop over the counted rows (of indices, or of data when the count leads data)
    // runs count * runtime_scale times, at most its `extent` (the bound times runtime_scale). 0: a fixed extent.
    // Such a loop is never merged into the block or a constant run: it stays a loop.
    uint64_t runtime_scale = 0;
    // A circular write: the loop over the update's sequence positions, whose position the circular write position
    // adds to the write index (IndexComponent::Kind::Circular). Never merged with another loop.
    bool sequence = false;
    // Indices with a constant added ("indices_add"): what one step of this loop adds to every value it reads.
    int64_t addend_step = 0;
    // Run-time extents ("runtime_axes"): the parameter or local (IndexedCopy::RuntimeExtents) each stride is also
    // multiplied by, or "" for a literal stride. Such a loop is never merged with another.
    std::string source_factor{};
    std::string destination_factor{};
};

struct IndexComponent {
    uint64_t offset;  // position within the index tuple
    uint64_t bound;   // size s of the data axis it selects along
    uint64_t stride;  // elements between neighbours along that axis
    // A bound the caller passes at run time: the parameter that holds the axis' size (at most `bound`), against
    // which the value is checked and by which it is wrapped; "" for the literal `bound`.
    std::string bound_parameter;
    // How the value becomes a position: ONNX's indices (checked in [-s, s-1], negative ones wrapped); a write
    // index, linear (checked in [0, `last`], the position itself) or circular (checked >= 0; the position of
    // sequence step j is (value mod s + j) mod s, j the Loop::sequence loop's position).
    enum class Kind { Wrapped, Linear, Circular } kind = Kind::Wrapped;
    uint64_t last = 0;  // Linear: the largest value allowed, s - the sequence length
    // Indices with a constant added ("indices_add"), Wrapped only: the value is the one read plus `addend` plus
    // each loop's addend_step times its position; those sums span [addend_low, addend_high] over the loops, so
    // the value read is checked in [-s - addend_low, s - 1 - addend_high] (clamped to the index type).
    int64_t addend = 0;
    int64_t addend_low = 0, addend_high = 0;
    // Its position in the whole index tuple: `offset`, unless constant components ("tuple_constants") are not read.
    uint64_t tuple_position = 0;
    // Run-time extents: the parameter or local `stride` is also multiplied by, or "".
    std::string stride_factor{};
    bool shifted() const { return addend != 0 || addend_low != 0 || addend_high != 0; }
};

// With constant indices: `length` contiguous elements from source offset `source` to destination offset
// `destination`, both relative to the current point of the loops.
struct Run {
    uint64_t source;
    uint64_t destination;
    uint64_t length;
    bool operator==(const Run& other) const {
        return source == other.source && destination == other.destination && length == other.length;
    }
};

// The range a Wrapped component's value read is checked in, for a literal bound: ONNX's [-s, s-1] shifted by
// the constants added ([-s - addend_low, s - 1 - addend_high]), clamped to the index type; `low_free` and
// `high_free` where that end is the type's own (no compare needed there).
struct CheckedRange {
    int64_t low, high;
    bool low_free, high_free;
};
CheckedRange checked_range(const IndexComponent& component, IndexType index_type);

struct IndexedCopy {
    enum class Indexed { Source, Destination };
    Indexed indexed = Indexed::Source;
    std::vector<Loop> loops;
    std::vector<IndexComponent> components;
    uint64_t block = 1;
    Reduction reduction = Reduction::None;
    bool copy_data_first = false;  // a scatter: output starts as a copy of data
    // output is data as a rule (a cache updated in place): its first copy never walks it element by element.
    bool in_place_as_a_rule = false;
    // Added to the indexed side's offset at every point: the constant components of each index tuple
    // ("tuple_constants"), wrapped, times their strides.
    uint64_t indexed_base = 0;
    // The whole indices tensor is tuple_count tuples of components.size() values, each checked up front.
    uint64_t tuple_count = 0;
    // A run-time count of rows: its bound (0: a fixed count), and whether it counts index rows (then the kernel
    // checks and copies count * tuples_per_count tuples, those of one leading row of indices each) or data rows
    // (a Gather's loop over data[:axis] runs over the first `count` rows of data, and every one of the tuple_count
    // tuples is checked, whatever the count; tuples_per_count is 0).
    uint64_t count_bound = 0;
    bool count_leads_data = false;
    uint64_t tuples_per_count = 0;
    // Element counts of the tensors, for the size macros and the offset type.
    uint64_t data_size = 0, indices_size = 0, updates_size = 0, output_size = 0;
    // Constant indices: every index tuple resolved at generation time. `loops` keeps only the outer levels that
    // do not walk the indices; at each of their points, these runs are copied in order (adjacent copies merged).
    // `components` is then empty and tuple_count 0: nothing is read or checked at run time.
    std::optional<std::vector<Run>> runs;
    // What the copy computes, in the operator's own terms, for the comment above it.
    std::string formula;
    // Run-time extents ("runtime_axes"): strides and the block multiplied by extents passed at run time. A factor is
    // one extent's parameter, or a local holding the product of several (`locals`, defined once their checks have
    // passed). The sizes above are those at the bounds.
    struct RuntimeExtents {
        // name = left * right, two names (parameters, or locals defined before it), at most at_most (the product
        // of their bounds, which the proof's assertion states); in the order defined
        struct Product {
            std::string name, left, right;
            uint64_t at_most = 0;
        };
        std::vector<Product> locals;
        std::string block_factor;  // the block's elements: `block` times this
    };
    std::optional<RuntimeExtents> runtime_extents;

    // Whether the run-time count is one of index rows: the checks then cover count * tuples_per_count tuples.
    bool counts_index_rows() const { return count_bound != 0 && !count_leads_data; }
    // Whether a component's bound is passed at run time.
    bool runtime_bounded() const;
    uint64_t point_count() const;  // the product of the loop extents
    uint64_t copy_count() const;   // number of block copies: the points, times the runs of each with constant indices
};

// The one loop merge of the lowering, for an IndexedCopy's loops and a row function's: each loop is merged into
// the one outside it when `mergeable(outer, inner)` and together they step as one loop (every stride of the outer
// is the inner's times the inner's extent); `joined(outer, inner)` is then the loop that replaces both.
template <typename L, typename Strides, typename Mergeable, typename Joined>
std::vector<L> merged_loops(const std::vector<L>& loops, Strides strides, Mergeable mergeable, Joined joined) {
    std::vector<L> out;
    for (const L& loop : loops) {
        if (!out.empty() && mergeable(out.back(), loop)) {
            const auto outer = strides(out.back()), inner = strides(loop);
            bool as_one = true;
            for (size_t s = 0; s < outer.size(); ++s) as_one = as_one && outer[s] == inner[s] * loop.extent;
            if (as_one) {
                out.back() = joined(out.back(), loop);
                continue;
            }
        }
        out.push_back(loop);
    }
    return out;
}

}  // namespace kernelgen
