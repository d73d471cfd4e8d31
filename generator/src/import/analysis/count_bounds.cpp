#include "import/analysis/count_bounds.h"

#include "import/operators/onnx_operators.h"

namespace kernelgen {

using counts::Counted;

CountBounds::CountBounds(const GraphScope& main, int64_t opset, ResourceGuard& guard) : opset_(opset) { walk(main, guard); }

const CountedDim* CountBounds::find(const GraphScope& scope, const std::string& name) const {
    const GraphScope* owner = scope.owner(name);
    if (!owner) return nullptr;
    auto it = counted_.find({owner, name});
    return it == counted_.end() ? nullptr : &it->second;
}

const CountedValue* CountBounds::find_value(const GraphScope& scope, const std::string& name) const {
    const GraphScope* owner = scope.owner(name);
    if (!owner) return nullptr;
    auto it = values_.find({owner, name});
    return it == values_.end() ? nullptr : &it->second;
}

void CountBounds::walk(const GraphScope& scope, ResourceGuard& guard) {
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        guard.check();
        // The bodies first (they see only values defined before the node): an If's outputs are its branches'.
        const auto keys = scope.body_keys.find(n);
        if (keys != scope.body_keys.end()) {
            for (const auto& key : keys->second) walk(*scope.children.at({n, key}), guard);
        }
        const auto outputs = node.op_type() == "If" ? if_outputs(scope, node, n) : visit(scope, node, static_cast<size_t>(n));
        if (auto value = counted_value(scope, node, static_cast<size_t>(n)); value && !scope.value(node.output(0))) {
            values_.emplace(std::make_pair(&scope, node.output(0)), std::move(*value));
        }
        for (size_t i = 0; i < outputs.size() && i < static_cast<size_t>(node.output_size()); ++i) {
            const std::string& name = node.output(static_cast<int>(i));
            if (!outputs[i] || name.empty()) continue;
            // A known value, or a static declared dimension, has no count (a later binding fixed it).
            if (scope.value(name)) continue;
            if (const auto* type = scope.type(name); type && type->has_tensor_type() && type->tensor_type().has_shape()) {
                const auto& shape = type->tensor_type().shape();
                if (outputs[i]->axis >= static_cast<size_t>(shape.dim_size()) ||
                    shape.dim(static_cast<int>(outputs[i]->axis)).has_dim_value()) {
                    continue;
                }
            }
            counted_.emplace(std::make_pair(&scope, name), *outputs[i]);
        }
    }
}

// An If's output k is counted where each branch's output k is counted on the same axis, or has a static size
// there: at most the larger of the two.
std::vector<Counted> CountBounds::if_outputs(const GraphScope& scope, const onnx::NodeProto& node, int position) const {
    std::vector<Counted> out(static_cast<size_t>(node.output_size()));
    const auto then_branch = scope.children.find({position, "then_branch"});
    const auto else_branch = scope.children.find({position, "else_branch"});
    if (!default_domain(node.domain()) || then_branch == scope.children.end() || else_branch == scope.children.end()) return out;
    const std::string label = "If " + in_quotes(node_label(node, static_cast<size_t>(position)));
    for (int k = 0; k < node.output_size(); ++k) {
        const GraphScope* branches[] = {then_branch->second.get(), else_branch->second.get()};
        const CountedDim* counts[2] = {nullptr, nullptr};
        std::optional<int64_t> sizes[2];
        for (size_t b = 0; b < 2; ++b) {
            if (branches[b]->graph->output_size() <= k) return out;
            const std::string& name = branches[b]->graph->output(k).name();
            counts[b] = find(*branches[b], name);
            if (!counts[b]) {
                const auto shape = static_shape(branches[b]->type(name));
                if (shape && !shape->empty()) sizes[b] = (*shape)[0];
            }
        }
        const CountedDim* count = counts[0] ? counts[0] : counts[1];
        if (!count) continue;
        const CountedDim* other = counts[0] ? counts[1] : nullptr;
        const std::optional<int64_t> other_size = counts[0] ? sizes[1] : sizes[0];
        if (other && other->axis != count->axis) continue;
        if (!other && (!other_size || count->axis != 0)) continue;
        CountedDim merged = other && other->bound > count->bound ? *other : *count;
        if (!other) merged.bound = std::max<uint64_t>(merged.bound, static_cast<uint64_t>(*other_size));
        if (!other || other->identity != count->identity) merged.identity = &node.output(k);  // either branch's count
        merged.through.push_back(label);
        out[static_cast<size_t>(k)] = merged;
    }
    return out;
}

std::optional<CountedValue> CountBounds::counted_value(const GraphScope& scope, const onnx::NodeProto& node,
                                                      size_t position) const {
    if (node.output_size() == 0 || node.output(0).empty()) return std::nullopt;
    const OnnxOperatorRule* rule = find_operator(node);
    if (!rule || !rule->value_count) return std::nullopt;
    return rule->value_count(view(scope, node, position));
}

counts::NodeView CountBounds::view(const GraphScope& scope, const onnx::NodeProto& node, size_t position) const {
    return counts::NodeView{scope, node, terminal_safe(node.op_type()) + " " + in_quotes(node_label(node, position)), opset_, *this};
}

std::vector<Counted> CountBounds::visit(const GraphScope& scope, const onnx::NodeProto& node, size_t position) const {
    if (node.output_size() == 0) return {};
    const OnnxOperatorRule* rule = find_operator(node);
    if (!rule || !rule->count) return {};
    return rule->count(view(scope, node, position));
}

}  // namespace kernelgen
