#include "import/model/bodies.h"

namespace kernelgen {

// Calls `visit(key, graph)` for each graph a node's attributes hold; the key is the attribute's name (name#i for
// the graphs of a GRAPHS attribute).
void for_each_body(const onnx::NodeProto& node, const std::function<void(const std::string&, const onnx::GraphProto&)>& visit) {
    for (const auto& attribute : node.attribute()) {
        if (attribute.has_g()) visit(attribute.name(), attribute.g());
        for (int i = 0; i < attribute.graphs_size(); ++i) visit(attribute.name() + "#" + std::to_string(i), attribute.graphs(i));
    }
}

void for_each_mutable_body(onnx::NodeProto& node, const std::function<void(const std::string&, onnx::GraphProto*)>& visit) {
    for (auto& attribute : *node.mutable_attribute()) {
        if (attribute.has_g()) visit(attribute.name(), attribute.mutable_g());
        for (int i = 0; i < attribute.graphs_size(); ++i) {
            visit(attribute.name() + "#" + std::to_string(i), attribute.mutable_graphs(i));
        }
    }
}

const onnx::GraphProto* body_named(const onnx::NodeProto& node, const std::string& key) {
    const onnx::GraphProto* found = nullptr;
    for_each_body(node, [&](const std::string& name, const onnx::GraphProto& graph) {
        if (name == key) found = &graph;
    });
    return found;
}

// Calls `visit` on the tensor type with a shape that `type` is or holds (in a sequence, an optional, a map's values).
void for_each_shaped_tensor(onnx::TypeProto* type, const std::function<void(onnx::TypeProto_Tensor*)>& visit) {
    if (type->has_sequence_type()) return for_each_shaped_tensor(type->mutable_sequence_type()->mutable_elem_type(), visit);
    if (type->has_optional_type()) return for_each_shaped_tensor(type->mutable_optional_type()->mutable_elem_type(), visit);
    if (type->has_map_type()) return for_each_shaped_tensor(type->mutable_map_type()->mutable_value_type(), visit);
    if (type->has_tensor_type() && type->tensor_type().has_shape()) visit(type->mutable_tensor_type());
}

// Calls `visit` on the shape of every declaration of every graph (inputs, outputs, value_info), at any depth.
void for_each_declared_shape(onnx::GraphProto* graph, const std::function<void(onnx::TensorShapeProto*)>& visit) {
    for (auto* infos : {graph->mutable_input(), graph->mutable_output(), graph->mutable_value_info()}) {
        for (auto& info : *infos) {
            if (!info.has_type()) continue;
            for_each_shaped_tensor(info.mutable_type(), [&](onnx::TypeProto_Tensor* tensor) { visit(tensor->mutable_shape()); });
        }
    }
    for (auto& node : *graph->mutable_node()) {
        for_each_mutable_body(node, [&](const std::string&, onnx::GraphProto* g) { for_each_declared_shape(g, visit); });
    }
}

}  // namespace kernelgen
