// Reading an ONNX node's attributes, as constant folding and the count analysis of kernelgen import do: a missing
// attribute takes ONNX's default, an attribute of another type is nothing (the node is then left alone).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kernelgen {

// Whether `domain` names ONNX's default operator set ("" or "ai.onnx"), the only one import and folding read.
inline bool default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// Whether `node` is of one of the operator sets `domains` (those the model imports).
inline bool known_domain(const onnx::NodeProto& node, const std::set<std::string>& domains) {
    return domains.count(node.domain()) > 0;
}

// Input `i` of `node`, or "" (ONNX's name for an input left out) where the node has no input i. A node with fewer
// inputs or outputs than its operator takes is valid protobuf, and protobuf's own accessors abort the process out
// of range: import reads a position by input(i) or output(i) only where it has checked the count.
inline const std::string& input_or_none(const onnx::NodeProto& node, int i) {
    static const std::string none;
    return i >= 0 && i < node.input_size() ? node.input(i) : none;
}

inline const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
    for (const auto& attribute : node.attribute()) {
        if (attribute.name() == name) return &attribute;
    }
    return nullptr;
}

// An INT attribute, `fallback` when absent; nothing when present with another type.
inline std::optional<int64_t> int_attribute(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
    const auto* attribute = find_attribute(node, name);
    if (!attribute) return fallback;
    if (attribute->type() != onnx::AttributeProto::INT) return std::nullopt;
    return attribute->i();
}

// An INTS attribute, or nothing when absent or of another type.
inline std::optional<std::vector<int64_t>> ints_attribute(const onnx::NodeProto& node, const std::string& name) {
    const auto* attribute = find_attribute(node, name);
    if (!attribute || attribute->type() != onnx::AttributeProto::INTS) return std::nullopt;
    return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

// `axis` in [-rank, rank-1] made non-negative, or nothing.
inline std::optional<size_t> normalized_axis(int64_t axis, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) return std::nullopt;
    return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

}  // namespace kernelgen
