// Ranges of values known only at run time, from the operators that clip them, and the extents made of such values.
// torchvision's boxes are clipped to the image (Min(Max(x, 0), width)), so a box's size (Ceil(Clip(x2 - x1, 1)))
// is at most the image's width, and a heatmap resized to that size (a Resize by run-time sizes: Keypoint R-CNN's
// decode, Mask R-CNN's paste) has extents of at most that: a Gather of it becomes a kernel of run-time extents
// ("runtime_axes") with no --max-extent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "import/model/graph_scope.h"

namespace kernelgen::counts {

// A bound of a dimension made at run time, and how it was found: the Resize whose sizes make it first, then the
// nodes that bound those values (a Min by the image's width, a Max by 0, a Clip).
struct ExtentBound {
    uint64_t bound = 0;
    std::vector<std::string> through;
};

// A bound of dimension `axis` of `name` (in `scope`) where it is made at run time from values: followed back through
// the operators that keep it (Gather, Squeeze, Unsqueeze, Transpose, Identity, element-wise operators of one input)
// to the sizes of a Resize (one whose output is its sizes: no axes or keep_aspect_ratio_policy attribute), and
// bounded by the range of that element of the sizes (from 1 to 2^32 - 1, the bounds a kernel's extent may have).
// Nothing when the dimension is not reached so, or its values have no such bound.
std::optional<ExtentBound> extent_at_most(const GraphScope& scope, const std::string& name, size_t axis);

}  // namespace kernelgen::counts
