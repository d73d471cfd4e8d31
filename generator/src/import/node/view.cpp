#include "import/node/view.h"

#include <cstdint>
#include <vector>

#include "import/model/node_attributes.h"

namespace kernelgen {

std::optional<ViewNode> gather_view(const GraphScope& scope, const onnx::NodeProto& node, const NodeRef& ref) {
    if (node.op_type() != "Gather" || !default_domain(node.domain()) || node.input_size() != 2 || node.output_size() != 1) {
        return std::nullopt;
    }
    const onnx::TypeProto* type = scope.type(node.input(0));
    if (!has_rank(type) || static_shape(type)) return std::nullopt;
    const TensorValue* index = scope.value(node.input(1));
    if (!index || index->count() != 1 || index->ints.size() != 1) return std::nullopt;
    if (index->type != onnx::TensorProto::INT32 && index->type != onnx::TensorProto::INT64) return std::nullopt;
    const auto& shape = type->tensor_type().shape();
    const auto attribute = int_attribute(node, "axis", 0);
    if (!attribute) return std::nullopt;
    const auto axis = normalized_axis(*attribute, static_cast<size_t>(shape.dim_size()));
    if (!axis) return std::nullopt;
    // A known extent, or -1.
    auto extent = [&](size_t d) {
        const auto& dim = shape.dim(static_cast<int>(d));
        return dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : int64_t{-1};
    };
    const int64_t value = index->ints.front();
    const int64_t n = extent(*axis);
    // The index selects row 0: it is 0 (the axis then has a row, or the node fails: known only for a known extent),
    // or -n.
    if (n < 1 || (value != 0 && value != -n)) return std::nullopt;
    bool ones_before = true;
    for (size_t d = 0; d < *axis; ++d) ones_before = ones_before && extent(d) == 1;
    const std::string along = "index " + std::to_string(value) + " along axis " + std::to_string(*axis);
    if (n == 1) {
        return ViewNode{ref, node.input(0), along + " of extent 1 selects all of data, its elements in their order"};
    }
    if (ones_before) {
        return ViewNode{ref, node.input(0), along + ", with only dimensions of 1 before it, selects data's first row, "
                                               "its leading elements"};
    }
    return std::nullopt;
}

}  // namespace kernelgen
