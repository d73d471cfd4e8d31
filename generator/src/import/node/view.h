// A Gather whose output is its data's own leading elements: where a dimension known only at run time leaves no
// kernel possible, such a node imports as a view of its data (the firmware passes data's buffer on).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

#include "import/model/graph_scope.h"
#include "kernelgen/import.h"

namespace kernelgen {

// The view a Gather node (at `ref`) is, or nothing: its indices a constant of one element whose wrapped value is
// 0, along an axis whose extent is 1 or before which every dimension is 1 (both known), of data with a dimension
// import does not know. Any other node, and a Gather whose data's shape is static, is nothing.
std::optional<ViewNode> gather_view(const GraphScope& scope, const onnx::NodeProto& node, const NodeRef& ref);

}  // namespace kernelgen
