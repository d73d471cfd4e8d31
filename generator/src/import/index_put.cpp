#include "import/index_put.h"

#include <algorithm>

#include "import/operators/onnx_operators.h"

namespace kernelgen {

namespace {

// Whether `name` is all zeros: a value known at import time, or (its shape unknown) the output of a ConstantOfShape
// whose value is 0, its default.
bool all_zeros(const GraphScope& scope, const std::string& name) {
    auto zero = [](const TensorValue& value) {
        return std::all_of(value.ints.begin(), value.ints.end(), [](int64_t v) { return v == 0; }) &&
               std::all_of(value.reals.begin(), value.reals.end(), [](double v) { return v == 0.0; });
    };
    if (const TensorValue* value = scope.value(name)) return zero(*value);
    const GraphScope* owner = scope.owner(name);
    if (!owner) return false;
    auto producer = owner->producers.find(name);
    if (producer == owner->producers.end()) return false;
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    if (node.op_type() != "ConstantOfShape" || !default_domain(node.domain())) return false;
    for (const auto& attribute : node.attribute()) {
        if (attribute.name() != "value") continue;
        if (!attribute.has_t()) return false;
        const auto value = read_tensor(attribute.t());
        return value && value->count() == 1 && zero(*value);
    }
    return true;
}

}  // namespace

std::optional<NodeRef> index_put_accumulate(const GraphScope& scope, const onnx::NodeProto& node) {
    if (node.op_type() != "ScatterND" || node.input_size() != 3 || node.output_size() < 1 || node.output(0).empty()) {
        return std::nullopt;
    }
    for (const auto& attribute : node.attribute()) {
        if (attribute.name() == "reduction" && attribute.s() != "none") return std::nullopt;
    }
    if (!all_zeros(scope, node.input(0))) return std::nullopt;
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& add = scope.graph->node(n);
        if (add.op_type() != "Add" || !default_domain(add.domain())) continue;
        for (const auto& input : add.input()) {
            if (input == node.output(0)) return NodeRef{add.name(), add.op_type(), static_cast<size_t>(n), scope.path};
        }
    }
    return std::nullopt;
}

}  // namespace kernelgen
