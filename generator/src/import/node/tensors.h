// The static types of a node's tensors as a kernel takes them: every dimension known at import time (from shape
// inference, --dim and --input), but for one run-time count, whose bound the count analysis or --max-count gives;
// and where that count stands: the rows of indices, or of data (KernelSpec's count keys).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "import/node/context.h"
#include "kernelgen/import.h"
#include "kernelgen/result.h"

namespace kernelgen {

// A static tensor type; a dimension that is a run-time count has its bound in `shape`, and `count` says which.
struct StaticTensor {
    int32_t elem_type = 0;
    Shape shape;
    std::optional<CountedDim> count;
    // Dimensions made at run time from values, not counts (a Resize to sizes computed from boxes), each bounded by
    // the range of those values or by --max-extent: the kernel takes their extents at run time ("runtime_axes").
    std::vector<size_t> runtime_dims{};
    std::vector<BoundedCount::Count> extent_bounds{};  // for each of runtime_dims, its bound and how it was found
};

// The node's tensors (data, indices, and a scatter's updates: those `inputs` has, in the node's order), each with
// a static shape but for one run-time count; those `tensors` holds already are kept. Every unbound dimension of
// them is named at once (a problem of another kind that comes first is told alone; one that comes after an
// unbound dimension waits for the next import).
Result<Ok> read_tensors(const NodeContext& c, const NodeInputs& inputs, std::optional<StaticTensor> (&tensors)[3]);

// Where a kernel's run-time counts stand (docs/spec-format.md, "Run-time counts" and "Two counts"): on the leading
// dimension of indices (and of a scatter's updates, which follow them), or of data for a Gather along an axis >= 1;
// and a data count, of data's valid rows, where the indices select among them along axis 0 (alone, or beside a
// count of index rows). The tensors with a count are those read_tensors() gave one; `axis` is normalized; `roles`
// name the tensors in messages. Sets the shapes to the bound.
Result<BoundedCount> place_count(Op op, int64_t axis, int64_t batch_dims, StaticTensor& data, StaticTensor& indices,
                                 std::optional<StaticTensor>& updates, const std::vector<std::string>& roles);

}  // namespace kernelgen
