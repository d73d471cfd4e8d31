#include "import/model/graph_scope.h"

#include "import/model/node_attributes.h"

namespace kernelgen {

using Dims = std::vector<int64_t>;

const GraphScope* GraphScope::owner(const std::string& name) const {
    for (const GraphScope* scope = this; scope; scope = scope->parent) {
        if (scope->defined.count(name)) return scope;
    }
    return nullptr;
}

const TensorValue* GraphScope::value(const std::string& name) const {
    const GraphScope* scope = owner(name);
    if (!scope) return nullptr;
    auto it = scope->values.find(name);
    if (it != scope->values.end()) return &it->second;
    auto initializer = scope->initializers.find(name);
    if (initializer == scope->initializers.end()) return nullptr;
    auto cached = scope->read.find(name);
    if (cached == scope->read.end()) {
        auto value = read_tensor(*initializer->second);
        cached = scope->read.emplace(name, value ? std::optional<TensorValue>(value.take()) : std::nullopt).first;
    }
    return cached->second ? &*cached->second : nullptr;
}

bool GraphScope::may_have_value(const std::string& name) const {
    const GraphScope* scope = owner(name);
    return scope && (scope->values.count(name) || scope->initializers.count(name));
}

const onnx::TypeProto* GraphScope::type(const std::string& name) const {
    // The innermost scope that knows a type for the name: inference records outer names' types in bodies too.
    for (const GraphScope* scope = this; scope; scope = scope->parent) {
        auto it = scope->types.find(name);
        if (it != scope->types.end()) return &it->second;
        if (scope->defined.count(name)) return nullptr;
    }
    return nullptr;
}

std::string branch_name(const std::string& attribute) {
    if (attribute == "then_branch") return "then";
    if (attribute == "else_branch") return "else";
    return attribute;  // "body" for Loop and Scan
}

std::string node_label(const onnx::NodeProto& node, size_t position) {
    return node.name().empty() ? node.op_type() + "#" + std::to_string(position) : node.name();
}

bool has_rank(const onnx::TypeProto* type) {
    return type && type->has_tensor_type() && type->tensor_type().has_shape();
}

std::optional<std::vector<int64_t>> static_shape(const onnx::TypeProto* type) {
    if (!has_rank(type)) return std::nullopt;
    Dims dims;
    for (const auto& dim : type->tensor_type().shape().dim()) {
        if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
        dims.push_back(dim.dim_value());
    }
    return dims;
}

std::optional<std::string> taken_branch(const GraphScope& scope, const onnx::NodeProto& node, int position) {
    if (node.op_type() != "If" || !default_domain(node.domain()) || node.input_size() != 1) {
        return std::nullopt;
    }
    const TensorValue* condition = scope.value(node.input(0));
    if (!condition || condition->count() != 1 || condition->type != onnx::TensorProto::BOOL) return std::nullopt;
    const std::string key = condition->ints[0] ? "then_branch" : "else_branch";
    if (!scope.children.count({position, key})) return std::nullopt;
    return key;
}

}  // namespace kernelgen
