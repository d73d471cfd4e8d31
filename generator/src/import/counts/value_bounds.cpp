#include "import/counts/value_bounds.h"

#include <algorithm>

#include "import/model/node_attributes.h"

namespace kernelgen::counts {

namespace {

// How deep the walk back through producers goes: such chains are a few nodes long.
constexpr int kMaxDepth = 16;

std::optional<int64_t> at_most(const GraphScope& scope, const std::string& name, int depth);

// A bound of the smallest element of `name` (at most any element's bound).
std::optional<int64_t> smallest_at_most(const GraphScope& scope, const std::string& name, int depth);

const onnx::NodeProto* producer_of(const GraphScope& scope, const std::string& name, const GraphScope*& owner) {
    owner = scope.owner(name);
    if (!owner) return nullptr;
    const auto it = owner->producers.find(name);
    if (it == owner->producers.end()) return nullptr;
    const onnx::NodeProto& node = owner->graph->node(it->second);
    return default_domain(node.domain()) && node.input_size() > 0 ? &node : nullptr;
}

bool signed_index_type(int32_t type) { return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32; }

const TensorValue* integer_value(const GraphScope& scope, const std::string& name) {
    const TensorValue* value = scope.value(name);
    if (!value || value->ints.empty() || !signed_index_type(value->type)) return nullptr;
    return value;
}

// Operators that keep every element's value, a Cast only where it cannot wrap: from int32 or int64 to int64.
bool keeps_values(const GraphScope& scope, const onnx::NodeProto& node) {
    const std::string& op = node.op_type();
    if (op == "Identity" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Flatten") return true;
    if (op == "Cast") {
        const onnx::TypeProto* from = scope.type(node.input(0));
        return int_attribute(node, "to", 0) == std::optional<int64_t>(onnx::TensorProto::INT64) && from &&
               from->has_tensor_type() && signed_index_type(from->tensor_type().elem_type());
    }
    return false;
}

std::optional<int64_t> at_most(const GraphScope& scope, const std::string& name, int depth) {
    if (const TensorValue* value = integer_value(scope, name)) return *std::max_element(value->ints.begin(), value->ints.end());
    const GraphScope* owner = nullptr;
    const onnx::NodeProto* node = depth < kMaxDepth ? producer_of(scope, name, owner) : nullptr;
    if (!node) return std::nullopt;
    const std::string& op = node->op_type();
    if (keeps_values(*owner, *node)) return at_most(*owner, node->input(0), depth + 1);
    if (op == "Min") {  // at most any input's bound
        std::optional<int64_t> best;
        for (const auto& input : node->input()) {
            if (const auto b = at_most(*owner, input, depth + 1)) best = best ? std::min(*best, *b) : *b;
        }
        return best;
    }
    if (op == "Max" || op == "Concat") {  // every input's bound is needed
        std::optional<int64_t> worst;
        for (const auto& input : node->input()) {
            const auto b = at_most(*owner, input, depth + 1);
            if (!b) return std::nullopt;
            worst = worst ? std::max(*worst, *b) : *b;
        }
        return worst;
    }
    if (op == "ReduceMin") {
        // Over every axis (no axes given, keepdims either way): the smallest element of its input.
        const bool all_axes = node->input_size() == 1 && !find_attribute(*node, "axes") &&
                              int_attribute(*node, "noop_with_empty_axes", 0) == std::optional<int64_t>(0);
        return all_axes ? smallest_at_most(*owner, node->input(0), depth + 1) : at_most(*owner, node->input(0), depth + 1);
    }
    return std::nullopt;
}

std::optional<int64_t> smallest_at_most(const GraphScope& scope, const std::string& name, int depth) {
    if (const TensorValue* value = integer_value(scope, name)) return *std::min_element(value->ints.begin(), value->ints.end());
    const GraphScope* owner = nullptr;
    const onnx::NodeProto* node = depth < kMaxDepth ? producer_of(scope, name, owner) : nullptr;
    if (node && keeps_values(*owner, *node)) return smallest_at_most(*owner, node->input(0), depth + 1);
    if (node && node->op_type() == "Concat") {  // the smallest element is at most any part's smallest
        std::optional<int64_t> best;
        for (const auto& input : node->input()) {
            if (const auto b = smallest_at_most(*owner, input, depth + 1)) best = best ? std::min(*best, *b) : *b;
        }
        if (best) return best;
    }
    return at_most(scope, name, depth);
}

}  // namespace

std::optional<int64_t> value_at_most(const GraphScope& scope, const std::string& name) { return at_most(scope, name, 0); }

}  // namespace kernelgen::counts
