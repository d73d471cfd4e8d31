// Walks over the graphs an ONNX node holds (If's branches, Loop's and Scan's bodies) and over the shapes a graph
// declares, at any depth.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <string>

namespace kernelgen {

// Calls `visit(key, graph)` for each graph a node's attributes hold; the key is the attribute's name (name#i for
// the graphs of a GRAPHS attribute).
void for_each_body(const onnx::NodeProto& node, const std::function<void(const std::string&, const onnx::GraphProto&)>& visit);
void for_each_mutable_body(onnx::NodeProto& node, const std::function<void(const std::string&, onnx::GraphProto*)>& visit);

// The graph of `node` under `key` (as for_each_body names it), or nullptr.
const onnx::GraphProto* body_named(const onnx::NodeProto& node, const std::string& key);

// Calls `visit` on the tensor type with a shape that `type` is or holds (in a sequence, an optional, a map's values).
void for_each_shaped_tensor(onnx::TypeProto* type, const std::function<void(onnx::TypeProto_Tensor*)>& visit);

// Calls `visit` on the shape of every declaration of every graph (inputs, outputs, value_info), at any depth.
void for_each_declared_shape(onnx::GraphProto* graph, const std::function<void(onnx::TensorShapeProto*)>& visit);

}  // namespace kernelgen
