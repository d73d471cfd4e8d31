#include "import/node/index_source.h"

#include <set>

#include "import/model/node_attributes.h"

namespace kernelgen {

namespace {

// The element type of `name` where the scope knows it, else 0.
int32_t elem_type_of(const GraphScope& scope, const std::string& name) {
    const onnx::TypeProto* type = scope.type(name);
    return type && type->has_tensor_type() ? type->tensor_type().elem_type() : 0;
}

bool integer_index_type(int32_t type) { return type == onnx::TensorProto::INT32 || type == onnx::TensorProto::INT64; }

// Whether `node` (of the default domain) passes its first input on with every value and its order kept: a reshape
// of the same elements, or a Cast that widens int32 to int64 (or casts to the type it has).
bool keeps_values(const onnx::NodeProto& node, int32_t from, int32_t to, bool reshapes) {
    static const std::set<std::string> layout{"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"};
    if (node.op_type() == "Cast") return from == to || (from == onnx::TensorProto::INT32 && to == onnx::TensorProto::INT64);
    return reshapes && from == to && layout.count(node.op_type());
}

// The shape an Expand's input (`from`, static) broadcasts from to its output `to`, of `to`'s rank: aligned at the
// back, each dimension `to`'s or 1; nothing where it is not that.
std::optional<std::vector<uint64_t>> broadcast_shape(const GraphScope& scope, const std::string& from, const std::string& to) {
    const auto input = static_shape(scope.type(from));
    const auto output = static_shape(scope.type(to));
    if (!input || !output || input->size() > output->size()) return std::nullopt;
    std::vector<uint64_t> shape(output->size() - input->size(), 1);
    for (size_t i = 0; i < input->size(); ++i) {
        const int64_t dim = (*input)[i], target = (*output)[output->size() - input->size() + i];
        if (dim != target && dim != 1) return std::nullopt;
        shape.push_back(static_cast<uint64_t>(dim));
    }
    return shape;
}

}  // namespace

IndexSource index_source(const GraphScope& scope, const std::string& indices, bool reshapes, bool broadcasts) {
    IndexSource source{indices, elem_type_of(scope, indices), {}, std::nullopt};
    bool shape_kept = true;  // every step so far kept the indices' shape (Casts only)
    // Each step leads to a tensor made before it: at most one step per node of the graph.
    for (int steps = 0; steps < scope.graph->node_size(); ++steps) {
        const auto made = scope.producers.find(source.tensor);
        if (made == scope.producers.end()) break;
        const onnx::NodeProto& node = scope.graph->node(made->second);
        if (!default_domain(node.domain()) || node.input_size() < 1 || node.input(0).empty() ||
            !scope.defined.count(node.input(0))) {
            break;
        }
        const std::string& before = node.input(0);
        const int32_t type = elem_type_of(scope, before);
        if (!integer_index_type(type) || scope.may_have_value(before)) break;
        const bool expand = broadcasts && shape_kept && !source.broadcast_from && type == source.elem_type &&
                            node.op_type() == "Expand";
        if (expand) {
            source.broadcast_from = broadcast_shape(scope, before, source.tensor);
            if (!source.broadcast_from) break;
        } else if (!keeps_values(node, type, source.elem_type, reshapes || source.broadcast_from)) {
            break;
        }
        shape_kept = shape_kept && node.op_type() == "Cast";
        source.through.insert(source.through.begin(), node.op_type() + " " + (node.name().empty() ? node.output(0) : node.name()));
        source.tensor = before;
        source.elem_type = type;
    }
    return source;
}

}  // namespace kernelgen
