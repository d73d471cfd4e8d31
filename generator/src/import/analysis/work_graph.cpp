#include "import/analysis/work_graph.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>

#include "import/analysis/child_process.h"
#include "import/model/bodies.h"
#include "import/operators/onnx_operators.h"
#include "kernelgen/spec.h"

namespace kernelgen {

namespace {

using Dims = std::vector<int64_t>;

// The most dimensions a declared shape may have to be shown to inference: well beyond kernelgen's rank limit,
// far below what would make inference allocate without end.
constexpr int kMaxInferenceRank = 2 * static_cast<int>(kMaxRank);
// Initializers above this size are shown to inference as inputs of their type: their values are weights, which
// inference does not need, and copying them into the child would only cost memory.
constexpr size_t kLargeInitializer = size_t{1} << 20;

// A declared type as inference may safely see it: a dimension that is negative or beyond 2^40 becomes unknown,
// and a rank beyond kMaxInferenceRank an unknown rank.
void sanitize_type(onnx::TypeProto* type) {
    for_each_shaped_tensor(type, [](onnx::TypeProto_Tensor* tensor) {
        if (tensor->shape().dim_size() > kMaxInferenceRank) {
            tensor->clear_shape();
            return;
        }
        for (auto& dim : *tensor->mutable_shape()->mutable_dim()) {
            if (dim.has_dim_value() && (dim.dim_value() < 0 || static_cast<uint64_t>(dim.dim_value()) > kMaxElements)) {
                dim.clear_dim_value();
            }
        }
    });
}

// Whether an initializer's dims are ones inference may read its values by: none negative, at most 2^40
// elements, and no more than kMaxInferenceRank of them.
bool plausible_dims(const onnx::TensorProto& tensor) {
    if (tensor.dims_size() > kMaxInferenceRank) return false;
    return checked_count(Dims(tensor.dims().begin(), tensor.dims().end()), kMaxElements).has_value();
}

// Shapes are computed from integers (a Reshape's shape, a Slice's starts): other values matter to inference only
// when small (a Resize's scales), so larger ones are withheld too.
constexpr size_t kLargeNonInteger = size_t{4} << 10;

bool shape_data_type(int32_t type) {
    return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 || type == onnx::TensorProto::BOOL;
}

bool large(const onnx::TensorProto& tensor) {
    const size_t typed = static_cast<size_t>(tensor.int64_data_size()) + static_cast<size_t>(tensor.int32_data_size()) +
                         static_cast<size_t>(tensor.float_data_size()) + static_cast<size_t>(tensor.double_data_size()) +
                         static_cast<size_t>(tensor.uint64_data_size()) + static_cast<size_t>(tensor.string_data_size());
    const size_t bytes = std::max(tensor.raw_data().size(), typed * 8);
    return bytes > (shape_data_type(tensor.data_type()) ? kLargeInitializer : kLargeNonInteger);
}

// An initializer shown to inference as an input of its type (its values withheld).
void add_as_input(const onnx::TensorProto& tensor, onnx::GraphProto* graph) {
    auto* input = graph->add_input();
    input->set_name(tensor.name());
    auto* type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(tensor.data_type());
    if (tensor.dims_size() <= kMaxInferenceRank) {
        auto* shape = type->mutable_shape();
        for (int64_t dim : tensor.dims()) shape->add_dim()->set_dim_value(dim);
    }
    sanitize_type(input->mutable_type());
}

// A rank-making input whose length is known to pass kMaxInferenceRank (its value, or its type, as known so far):
// inference is shown it as an input of unknown shape instead, so that it never builds a shape of that rank.
// Returns the name to show (the name itself when it is not such an input).
std::string opaque_name(const GraphScope& scope, const std::string& name, WorkBuild& build) {
    uint64_t length = 0;
    if (const TensorValue* value = scope.value(name)) {
        length = value->count();
    } else if (const auto shape = static_shape(scope.type(name)); shape && shape->size() == 1) {
        length = static_cast<uint64_t>((*shape)[0]);
    }
    if (length <= static_cast<uint64_t>(kMaxInferenceRank)) return name;
    const std::string opaque = "kernelgen:opaque:" + name;
    if (build.opaque.insert(opaque).second) {
        auto* input = build.main->add_input();
        input->set_name(opaque);
        input->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    }
    return opaque;
}

// A Constant node in `out` that makes `name` the value given.
void add_constant(onnx::GraphProto* out, const std::string& name, const TensorValue& value) {
    auto* constant = out->add_node();
    constant->set_op_type("Constant");
    constant->add_output(name);
    auto* attribute = constant->add_attribute();
    attribute->set_name("value");
    attribute->set_type(onnx::AttributeProto::TENSOR);
    write_tensor(value, attribute->mutable_t());
}

// An initializer that a node takes as the shape of its output and that holds more than kMaxInferenceRank values.
bool long_rank_maker(const onnx::TensorProto& tensor, const WorkBuild& build) {
    if (!build.rank_makers.count(tensor.name())) return false;
    const auto count = checked_count(Dims(tensor.dims().begin(), tensor.dims().end()), kMaxElements);
    return !count || *count > static_cast<uint64_t>(kMaxInferenceRank);
}

// Appends the nodes of `scope` to `out` as inference sees them in a round: folded nodes replaced by Constant
// nodes, an operator newer than inference by an Identity of the input whose type it has, nodes of domains the model does not import left out (they stop inference), and an If whose condition is
// known replaced by the nodes of the branch it takes (so that what follows it gets that branch's shapes).
void append_nodes(const GraphScope& scope, onnx::GraphProto* out, WorkBuild& build) {
    const onnx::GraphProto& graph = *scope.graph;
    std::vector<int>& map = build.index[&scope];
    map.assign(static_cast<size_t>(graph.node_size()), -1);
    for (int n = 0; n < graph.node_size(); ++n) {
        const onnx::NodeProto& node = graph.node(n);
        if (!known_domain(node, build.domains)) continue;
        // A folded node becomes Constants when its values may matter to shapes; a large tensor of floats is left to
        // inference, which gets its shape from the node as well.
        bool folded = node.output_size() > 0;
        for (const auto& output : node.output()) {
            if (output.empty()) continue;
            auto value = scope.values.find(output);
            folded = folded && value != scope.values.end() &&
                     (shape_data_type(value->second.type) ? value->second.count() * 8 <= kLargeInitializer
                                                           : value->second.count() * 8 <= kLargeNonInteger) &&
                     !(build.rank_makers.count(output) && value->second.count() > static_cast<uint64_t>(kMaxInferenceRank));
        }
        if (folded) {
            for (const auto& output : node.output()) {
                if (!output.empty()) add_constant(out, output, scope.values.at(output));
            }
            continue;
        }
        if (auto taken = taken_branch(scope, node, n)) {
            const GraphScope& branch = *scope.children.at({n, *taken});
            build.inlined.insert(&branch);
            for (const auto& tensor : branch.graph->initializer()) {
                if (!large(tensor) && plausible_dims(tensor) && !long_rank_maker(tensor, build)) *out->add_initializer() = tensor;
                else add_as_input(tensor, build.main);
            }
            append_nodes(branch, out, build);
            for (int k = 0; k < node.output_size() && k < branch.graph->output_size(); ++k) {
                if (node.output(k).empty()) continue;
                auto* identity = out->add_node();
                identity->set_op_type("Identity");
                identity->add_input(branch.graph->output(k).name());
                identity->add_output(node.output(k));
            }
            continue;
        }
        std::string vector_input;
        if (scope.nonzero_of_scalar.count(n) && node.input_size() == 1) {
            // NonZero of a scalar as ONNX Runtime runs it: of the scalar reshaped to a vector of one.
            const std::string shape = "kernelgen:vector_shape:" + std::to_string(n) + ":" + node.input(0);
            vector_input = "kernelgen:vector:" + std::to_string(n) + ":" + node.input(0);
            TensorValue one;
            one.type = onnx::TensorProto::INT64;
            one.dims = {1};
            one.ints = {1};
            add_constant(out, shape, one);
            auto* reshape = out->add_node();
            reshape->set_op_type("Reshape");
            reshape->add_input(node.input(0));
            reshape->add_input(shape);
            reshape->add_output(vector_input);
        }
        map[static_cast<size_t>(n)] = out->node_size();
        onnx::NodeProto* copy = out->add_node();
        *copy = node;
        // An operator newer than inference knows (of opset 24): an Identity of the input whose type it has.
        if (const int same = same_type_as_input(node); same >= 0 && same < node.input_size() && node.output_size() > 0) {
            copy->Clear();
            copy->set_op_type("Identity");
            copy->add_input(node.input(same));
            copy->add_output(node.output(0));
        }
        if (!vector_input.empty()) copy->set_input(0, vector_input);
        for (int i = 0; i < copy->input_size(); ++i) {
            if (makes_rank(*copy, i)) copy->set_input(i, opaque_name(scope, copy->input(i), build));
        }
        for_each_mutable_body(*copy, [&](const std::string& key, onnx::GraphProto* body) {
            auto child = scope.children.find({n, key});
            if (child != scope.children.end()) build_work_graph(*child->second, body, build);
        });
    }
}

// Drops the values of initializers and Constant nodes, at any depth, keeping their types and dims.
void strip_values(onnx::GraphProto* graph) {
    for (auto& tensor : *graph->mutable_initializer()) {
        const auto type = tensor.data_type();
        const Dims dims(tensor.dims().begin(), tensor.dims().end());
        tensor.Clear();
        tensor.set_data_type(type);
        for (int64_t dim : dims) tensor.add_dims(dim);
    }
    for (auto& node : *graph->mutable_node()) {
        for (auto& attribute : *node.mutable_attribute()) {
            if (attribute.has_t()) {
                attribute.mutable_t()->clear_raw_data();
                attribute.mutable_t()->clear_float_data();
                attribute.mutable_t()->clear_int64_data();
                attribute.mutable_t()->clear_int32_data();
                attribute.mutable_t()->clear_double_data();
            }
        }
        for_each_mutable_body(node, [](const std::string&, onnx::GraphProto* body) { strip_values(body); });
    }
}

// Makes every type of `graph` (its inputs, outputs and value_info, at any depth) one import may safely hold: see
// sanitize_type. Inference can give a type as many dimensions as a known value has elements.
void sanitize_types(onnx::GraphProto* graph) {
    for (auto* infos : {graph->mutable_input(), graph->mutable_output(), graph->mutable_value_info()}) {
        for (auto& info : *infos) {
            if (info.has_type()) sanitize_type(info.mutable_type());
        }
    }
    for (auto& node : *graph->mutable_node()) {
        for_each_mutable_body(node, [](const std::string&, onnx::GraphProto* body) { sanitize_types(body); });
    }
}

}  // namespace

// The names every graph of `scope`, at any depth, takes as the shape of an output (see makes_rank).
void collect_rank_makers(const GraphScope& scope, std::set<std::string>& names) {
    for (const auto& node : scope.graph->node()) {
        for (int i = 0; i < node.input_size(); ++i) {
            if (makes_rank(node, i)) names.insert(node.input(i));
        }
    }
    for (const auto& [key, child] : scope.children) collect_rank_makers(*child, names);
}

// The graph inference sees for `scope` in a round (see append_nodes), with large or implausible initializers
// turned into inputs, declared types sanitized, and a declared length that would become a huge rank made unknown.
void build_work_graph(const GraphScope& scope, onnx::GraphProto* out, WorkBuild& build) {
    const onnx::GraphProto& graph = *scope.graph;
    if (!build.main) build.main = out;
    out->Clear();
    out->set_name(graph.name());
    *out->mutable_input() = graph.input();
    *out->mutable_output() = graph.output();
    *out->mutable_value_info() = graph.value_info();
    for (const auto& [name, type] : scope.declared_ranks) {
        auto* info = out->add_value_info();
        info->set_name(name);
        *info->mutable_type() = type;
    }
    for (const auto& tensor : graph.initializer()) {
        if (!large(tensor) && plausible_dims(tensor) && !long_rank_maker(tensor, build)) {
            *out->add_initializer() = tensor;
        } else if (!scope.graph_inputs.count(tensor.name())) {
            add_as_input(tensor, build.main);  // an input already declares its type
        }
    }
    append_nodes(scope, out, build);
    std::set<std::string> rank_makers;
    for (const auto& node : out->node()) {
        for (int i = 0; i < node.input_size(); ++i) {
            if (makes_rank(node, i)) rank_makers.insert(node.input(i));
        }
    }
    for (auto* infos : {out->mutable_input(), out->mutable_output(), out->mutable_value_info()}) {
        for (auto& info : *infos) {
            if (!info.has_type()) continue;
            sanitize_type(info.mutable_type());
            if (!rank_makers.count(info.name()) || !info.type().has_tensor_type()) continue;
            auto* shape = info.mutable_type()->mutable_tensor_type()->mutable_shape();
            if (shape->dim_size() == 1 && shape->dim(0).dim_value() > kMaxInferenceRank) shape->mutable_dim(0)->clear_dim_value();
        }
    }
}

std::optional<onnx::ModelProto> infer_shapes(const onnx::ModelProto& model, const InferenceLimits& limits,
                                             std::string& failure) {
    // ONNX builds its registry of operator schemas on first use, which takes a while: built here, once per
    // process, every child inherits it instead of building its own.
    const onnx::ISchemaRegistry* registry = onnx::OpSchemaRegistry::Instance();
    onnx::OpSchemaRegistry::Schema("Gather", 13, "");
    ChildLimits child;
    child.memory_bytes = limits.memory_bytes;
    child.cpu_seconds = limits.cpu_seconds;
    child.wall_seconds = limits.wall_seconds;
    const ChildOutcome outcome = run_contained(
        [&]() {
            onnx::ModelProto inferred = model;
            onnx::shape_inference::InferShapes(inferred, registry, onnx::ShapeInferenceOptions(false, 0, true));
            strip_values(inferred.mutable_graph());  // only the types are read back
            sanitize_types(inferred.mutable_graph());
            return inferred.SerializeAsString();
        },
        child);
    onnx::ModelProto inferred;
    if (outcome.ok && inferred.ParseFromString(outcome.output)) return inferred;
    failure = outcome.ok ? std::string("its result did not parse") : outcome.failure;
    return std::nullopt;
}

}  // namespace kernelgen
