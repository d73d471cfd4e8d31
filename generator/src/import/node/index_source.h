// Where a kernel's indices come from: the graph often makes a node's indices of another run-time tensor the
// firmware already holds, by steps that change neither the values nor their order (a Reshape, Squeeze, Unsqueeze,
// Flatten or Identity), that only widen them (a Cast of int32 ids to int64), or that broadcast them (an Expand:
// index_copy's positions along the other axes). The kernel then takes that tensor itself, of its own type, and
// reads each value where it broadcasts to: no second buffer, int32 ids kept int32.
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
};

// The source of the indices `indices` (of the node's graph `scope`): walks back through the steps above while the
// tensor before each is of this graph, of type int32 or int64, and not known at import time. `reshapes` false
// (the indices' rows are counted at run time) passes only Casts, which keep the shape. One Expand is passed where
// `broadcasts` and only Casts lie between it and the node (its output is the indices' shape), its input of a static
// shape. The indices themselves, with nothing passed, where no step leads back.
IndexSource index_source(const GraphScope& scope, const std::string& indices, bool reshapes, bool broadcasts);

}  // namespace kernelgen
