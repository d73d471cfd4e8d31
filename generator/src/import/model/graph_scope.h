// One graph of a model (the main graph, or an If, Loop or Scan body at any depth) and what import knows of its
// names: where each is defined and made, its type, and its value when known at import time.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "import/model/tensor_value.h"

namespace kernelgen {

// One graph of the model and what is known of its names. Lookups walk out through the enclosing graphs, and
// stop at the innermost graph that defines the name (a body's input hides an outer value of the same name).
struct GraphScope {
    const onnx::GraphProto* graph = nullptr;  // in ModelAnalysis::bound
    const GraphScope* parent = nullptr;
    std::string path;         // "" for the main graph, "If_0/then", "If_0/then/loop/body", ...
    std::string name_prefix;  // for kernel names: "" for the main graph, else the holding node and branch: "If_0_then_"
    std::set<std::string> defined;                   // inputs, initializers and node outputs of this graph
    std::set<std::string> graph_inputs;              // this graph's own inputs
    std::map<std::string, TensorValue> values;       // values folding computed
    // Nodes whose folding failed with every input's value known (or whose value did not fit the folding budget):
    // values never change once known, so such a node is never tried again.
    std::set<int> unfoldable;
    // Initializers that are not inputs: constants, read when first asked for (most are weights nobody folds).
    std::map<std::string, const onnx::TensorProto*> initializers;
    mutable std::map<std::string, std::optional<TensorValue>> read;
    std::map<std::string, onnx::TypeProto> types;    // declared or inferred types
    // Shapes kernelgen declares where ONNX's inference gives none: a Compress output has its input's rank (with the
    // compressed axis unknown), or rank 1 without an axis; a Reshape's -1 that the count analysis shows static.
    // Shown to the next rounds' inference as value_info.
    std::map<std::string, onnx::TypeProto> declared_ranks;
    // NonZero nodes of a rank-0 input: ONNX's inference gives their output the shape [0, n], ONNX Runtime returns
    // [1, n] (the scalar taken as a vector of one). Inference is shown them as NonZero of that vector.
    std::set<int> nonzero_of_scalar;
    std::map<std::string, int> producers;            // node output -> index of the node that makes it
    std::map<std::pair<int, std::string>, std::unique_ptr<GraphScope>> children;  // (node, attribute) -> body
    std::map<int, std::vector<std::string>> body_keys;  // node -> the attributes of its bodies, in the node's order

    const GraphScope* owner(const std::string& name) const;  // the scope that defines `name`, or nullptr
    const TensorValue* value(const std::string& name) const;  // nullptr when not known (or not readable)
    bool may_have_value(const std::string& name) const;        // known, or an initializer not read yet
    const onnx::TypeProto* type(const std::string& name) const;
};

// The path segment a subgraph attribute adds: "then", "else", "body", or the attribute's name.
std::string branch_name(const std::string& attribute);
// How a node is named in paths: its name, or "<Op>#<position>" when it has none.
std::string node_label(const onnx::NodeProto& node, size_t position);

// The static shape of a type (a tensor type whose every dim has a value >= 0), or nothing.
std::optional<std::vector<int64_t>> static_shape(const onnx::TypeProto* type);

// Whether a type is a tensor type with a shape (of known rank; its dimensions may be unknown).
bool has_rank(const onnx::TypeProto* type);

// For an If node (at `position` in the scope's graph) whose condition is known: the attribute of the branch it
// takes ("then_branch" or "else_branch"). Nothing for any other node.
std::optional<std::string> taken_branch(const GraphScope& scope, const onnx::NodeProto& node, int position);

}  // namespace kernelgen
