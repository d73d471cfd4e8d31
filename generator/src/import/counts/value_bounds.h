// Upper bounds of integer values known only at run time, from the constants they are the minimum of: torchvision's
// k = min(300, boxes.shape[0]) (ReduceMin(Concat([300], ...))) is at most 300 whatever the boxes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "import/model/graph_scope.h"

namespace kernelgen::counts {

// A bound no element of the integer tensor `name` exceeds, or nothing when none is found.
std::optional<int64_t> value_at_most(const GraphScope& scope, const std::string& name);

}  // namespace kernelgen::counts
