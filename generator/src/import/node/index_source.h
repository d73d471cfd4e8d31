// Where a kernel's indices come from: the graph often makes a node's indices of another run-time tensor the
// firmware already holds, by steps that change neither the values nor their order (a Reshape, Squeeze, Unsqueeze,
// Flatten or Identity), that only widen them (a Cast of int32 ids to int64), or that broadcast them (an Expand:
// index_copy's positions along the other axes), or that add a constant (rotary positions `arange(n) + past_len`).
// The kernel then takes that tensor itself, of its own type, reads each value where it broadcasts to and adds the
// constant: no second buffer, int32 ids kept int32.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "import/model/graph_scope.h"

namespace kernelgen {

struct IndexSource {
    std::string tensor;                // the tensor the kernel's indices parameter takes
    int32_t elem_type = 0;             // its ONNX element type: INT32 or INT64
    std::vector<std::string> through;  // the steps passed, from the source to the node: "Cast /emb/Cast", ...
    // Through an Expand: the shape its input broadcasts from, of the indices' rank (aligned at the back, 1 where
    // broadcast): the spec's "indices_broadcast_from".
    std::optional<std::vector<uint64_t>> broadcast_from;
    // Through an Add (or Sub) of a constant: the constant, broadcast to the indices' shape, as start +
    // sum(steps[i] * position_i): the spec's "indices_add".
    struct Added {
        int64_t start = 0;
        std::vector<int64_t> steps;
    };
    std::optional<Added> added;
    // Through a Concat of GatherND's or ScatterND's index tuples: per component, the constant every tuple holds, or
    // nothing for the components of the tensor taken: the spec's "tuple_constants".
    std::optional<std::vector<std::optional<int64_t>>> tuple_constants;
};

// The source of the indices `indices` (of the node's graph `scope`): walks back through the steps above while the
// tensor before each is of this graph, of type int32 or int64, and not known at import time. `reshapes` false
// (the indices' rows are counted at run time) passes only Casts, which keep the shape. Where `broadcasts`, and only
// Casts lie between it and the node (its output is the indices' shape), one Expand, whose input has a static shape;
// and before it one Add of a constant (either side) or Sub of one (the second), which may broadcast its run-time
// side too: an affine constant (positions `arange(n) + past_len`) whose steps move only along the axes the run-time
// side is broadcast along, or along the last where the node's indices are `tuples` (GatherND, ScatterND). An int32
// Add or Sub only with constants within 2^30 either way (an int32 sum the model wraps is then out of range too).
// GatherND's and ScatterND's (`tuples`) index tuples may be a Concat along their last axis of constant components and
// one run-time tensor, itself followed back so (`c[:, pos] = x`: 0 before each position). Expand and Add are
// passed where the steps between them and the node only insert or remove dimensions of 1, which are mapped.
// The indices themselves, with nothing passed, where no step leads back.
IndexSource index_source(const GraphScope& scope, const std::string& indices, bool reshapes, bool broadcasts, bool tuples);

// The tensor a scatter's updates `name` are made of (through Reshape, Squeeze, Unsqueeze, Flatten and Identity
// steps, its elements in their order, of this graph and not known at import time), and the steps passed; one Expand
// too (where the steps between it and the node only insert or remove dimensions of 1), broadcasting along the
// updates' axes before `rows` only (ScatterND's update rows are read whole): `broadcast_from` is then the shape the
// updates broadcast from, of their rank.
IndexSource updates_source(const GraphScope& scope, const std::string& name, size_t rows);

}  // namespace kernelgen
