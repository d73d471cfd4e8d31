#include "import/model_analysis.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <functional>

#include "common/hints.h"
#include "import/child_process.h"
#include "import/constant_folding.h"
#include "kernelgen/spec.h"
#include "import/node_attributes.h"

namespace kernelgen {

namespace {

using Dims = std::vector<int64_t>;

// The most elements all folded values of a model may hold together (each value holds at most kMaxFoldElements).
constexpr uint64_t kMaxFoldedTotal = uint64_t{1} << 24;

// --- the subgraphs of a node ----------------------------------------------------------------------------------

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

// --- dimension names --------------------------------------------------------------------------------------------

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

// Gives the dimensions the caller names their values. Returns false when the options do not fit the model.
bool bind_dimensions(onnx::ModelProto& model, const ImportOptions& options, ModelAnalysis& analysis,
                     std::vector<std::string>& usage_errors, std::vector<std::string>& notes) {
    for_each_declared_shape(model.mutable_graph(), [&](onnx::TensorShapeProto* shape) {
        for (const auto& dim : shape->dim()) {
            if (dim.has_dim_param() && !dim.dim_param().empty()) analysis.declared_dim_params.insert(dim.dim_param());
        }
    });
    std::map<std::string, std::string> source;  // dimension name -> the option that bound it
    for (const auto& [name, value] : options.dims) {
        analysis.bindings[name] = value;
        source[name] = "--dim " + name + "=" + std::to_string(value);
    }
    std::set<std::string> seen_inputs;
    for (const auto& given : options.inputs) {
        std::string text = given.text;
        if (text.empty()) {
            text = "--input " + given.name + "=";
            for (size_t i = 0; i < given.dims.size(); ++i) text += (i ? "x" : "") + std::to_string(given.dims[i]);
            if (given.dims.empty()) text += "[]";
        }
        if (!seen_inputs.insert(given.name).second) {
            usage_errors.push_back("--input " + given.name + " is given more than once");
            continue;
        }
        onnx::ValueInfoProto* input = nullptr;
        std::string names;
        for (auto& candidate : *model.mutable_graph()->mutable_input()) {
            names += (names.empty() ? "" : ", ") + in_quotes(candidate.name());
            if (candidate.name() == given.name) input = &candidate;
        }
        if (!input) {
            usage_errors.push_back(text + ": the model has no input " + in_quotes(given.name) + " (its inputs: " + names + ")");
            continue;
        }
        if (input->has_type() && !input->type().has_tensor_type()) {
            usage_errors.push_back(text + ": input " + in_quotes(given.name) + " is not a tensor");
            continue;
        }
        auto* tensor = input->mutable_type()->mutable_tensor_type();
        if (tensor->has_shape()) {
            const auto& declared = tensor->shape();
            if (declared.dim_size() != static_cast<int>(given.dims.size())) {
                std::string shown = "[";
                for (int d = 0; d < declared.dim_size(); ++d) {
                    const auto& dim = declared.dim(d);
                    shown += (d ? ", " : "") + (dim.has_dim_value() ? std::to_string(dim.dim_value())
                                                                     : dim.dim_param().empty() ? std::string("?") : in_quotes(dim.dim_param()));
                }
                usage_errors.push_back(text + ": input " + in_quotes(given.name) + " has rank " +
                                       std::to_string(declared.dim_size()) + " in the model (" + shown + "]), not " +
                                       std::to_string(given.dims.size()));
                continue;
            }
            bool fits = true;
            for (int d = 0; d < declared.dim_size() && fits; ++d) {
                const auto& dim = declared.dim(d);
                const int64_t value = given.dims[static_cast<size_t>(d)];
                if (dim.has_dim_value() && dim.dim_value() != value) {
                    usage_errors.push_back(text + ": dimension " + std::to_string(d) + " of " + in_quotes(given.name) +
                                           " is " + std::to_string(dim.dim_value()) + " in the model");
                    fits = false;
                } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
                    auto bound = analysis.bindings.find(dim.dim_param());
                    if (bound != analysis.bindings.end() && bound->second != value) {
                        usage_errors.push_back(text + " gives dimension " + in_quotes(dim.dim_param()) + " the value " +
                                               std::to_string(value) + ", but " + source[dim.dim_param()]);
                        fits = false;
                    } else {
                        analysis.bindings[dim.dim_param()] = value;
                        source[dim.dim_param()] = text;
                    }
                }
            }
            if (!fits) continue;
        }
        auto* shape = tensor->mutable_shape();
        shape->clear_dim();
        for (int64_t value : given.dims) shape->add_dim()->set_dim_value(value);
    }
    if (!usage_errors.empty()) return false;
    for (const auto& [name, value] : options.dims) {
        if (!analysis.declared_dim_params.count(name)) {
            const std::vector<std::string> names(analysis.declared_dim_params.begin(), analysis.declared_dim_params.end());
            notes.push_back("--dim " + name + "=" + std::to_string(value) + ": no dimension of the model is called " +
                            in_quotes(name) + did_you_mean(name, names, (name.size() - 1) / 2));  // "M" is not "N"
        }
    }
    for_each_declared_shape(model.mutable_graph(), [&](onnx::TensorShapeProto* shape) {
        for (auto& dim : *shape->mutable_dim()) {
            if (!dim.has_dim_param()) continue;
            auto bound = analysis.bindings.find(dim.dim_param());
            if (bound != analysis.bindings.end()) dim.set_dim_value(bound->second);
        }
    });
    return true;
}

// --- the scopes ----------------------------------------------------------------------------------------------------

bool known_domain(const onnx::NodeProto& node, const std::set<std::string>& domains) { return domains.count(node.domain()) > 0; }

}  // namespace

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

namespace {

std::unique_ptr<GraphScope> build_scope(const onnx::GraphProto& graph, const GraphScope* parent, std::string path,
                                        std::string name_prefix) {
    auto scope = std::make_unique<GraphScope>();
    scope->graph = &graph;
    scope->parent = parent;
    scope->path = std::move(path);
    scope->name_prefix = std::move(name_prefix);
    for (const auto& input : graph.input()) {
        scope->defined.insert(input.name());
        scope->graph_inputs.insert(input.name());
    }
    for (const auto& tensor : graph.initializer()) {
        scope->defined.insert(tensor.name());
        // An initializer that is also an input is only a default the caller may override at run time.
        if (!scope->graph_inputs.count(tensor.name())) scope->initializers.emplace(tensor.name(), &tensor);
    }
    for (int n = 0; n < graph.node_size(); ++n) {
        const onnx::NodeProto& node = graph.node(n);
        for (const auto& output : node.output()) {
            if (output.empty()) continue;
            scope->defined.insert(output);
            scope->producers.emplace(output, n);
        }
        for_each_body(node, [&](const std::string& key, const onnx::GraphProto& body) {
            const std::string label = node_label(node, static_cast<size_t>(n));
            const std::string branch = branch_name(key);
            const std::string child_path = (scope->path.empty() ? "" : scope->path + "/") + label + "/" + branch;
            const std::string naming = node.name().empty() ? node.op_type() + "_" + std::to_string(n) : node.name();
            scope->body_keys[n].push_back(key);
            scope->children.emplace(std::make_pair(n, key),
                                    build_scope(body, scope.get(), child_path, naming + "_" + branch + "_"));
        });
    }
    return scope;
}

// --- shape inference, contained ----------------------------------------------------------------------------

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


// What building a round's work model keeps track of.
struct WorkBuild {
    const std::set<std::string>& domains;
    // Names a node takes as the shape of its output (see makes_rank): a known value of more than
    // kMaxInferenceRank elements there is withheld from inference, which would build a shape of that rank.
    const std::set<std::string>& rank_makers;
    std::map<const GraphScope*, std::vector<int>> index;  // each scope's nodes -> nodes of the work graph holding them
    std::set<const GraphScope*> inlined;                  // branches that now live in their parent's work graph
    // The work model's main graph: initializers withheld from inference, of any graph, become its inputs (a body
    // sees them as outer-scope values; a body's own inputs are its signature and cannot grow).
    onnx::GraphProto* main = nullptr;
    std::set<std::string> opaque;  // names shown to inference as inputs of unknown shape (see opaque_name)
};

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

void build_work_graph(const GraphScope& scope, onnx::GraphProto* out, WorkBuild& build);

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

// The names every graph of `scope`, at any depth, takes as the shape of an output (see makes_rank).
void collect_rank_makers(const GraphScope& scope, std::set<std::string>& names) {
    for (const auto& node : scope.graph->node()) {
        for (int i = 0; i < node.input_size(); ++i) {
            if (makes_rank(node, i)) names.insert(node.input(i));
        }
    }
    for (const auto& [key, child] : scope.children) collect_rank_makers(*child, names);
}

// Appends the nodes of `scope` to `out` as inference sees them in a round: folded nodes replaced by Constant
// nodes, nodes of domains the model does not import left out (they stop inference), and an If whose condition is
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

// Runs ONNX's shape inference (with data propagation) on `model` in a child process under `limits`. Returns the
// inferred model, or nothing with `failure` saying why inference gave none.
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

// --- types and folding ---------------------------------------------------------------------------------------------

onnx::TypeProto type_of_tensor(int32_t elem_type, const Dims& dims) {
    onnx::TypeProto type;
    type.mutable_tensor_type()->set_elem_type(elem_type);
    auto* shape = type.mutable_tensor_type()->mutable_shape();
    for (int64_t dim : dims) shape->add_dim()->set_dim_value(dim);
    return type;
}

// The types of a scope: the model's declarations of the main graph's inputs first (the truth, and what messages
// quote), then what inference found (when it ran), then the other declarations, then what folding knows.
void load_types(GraphScope& scope, const onnx::GraphProto* inferred, const std::map<const GraphScope*, std::vector<int>>& index,
                const std::set<const GraphScope*>& inlined) {
    scope.types.clear();
    auto add = [&](const onnx::ValueInfoProto& info) {
        if (info.has_type()) scope.types.emplace(info.name(), info.type());
    };
    auto add_graph = [&](const onnx::GraphProto& graph) {
        for (const auto& info : graph.input()) add(info);
        for (const auto& info : graph.output()) add(info);
        for (const auto& info : graph.value_info()) add(info);
        for (const auto& tensor : graph.initializer()) {
            scope.types.emplace(tensor.name(), type_of_tensor(tensor.data_type(), Dims(tensor.dims().begin(), tensor.dims().end())));
        }
    };
    if (!scope.parent) {
        for (const auto& info : scope.graph->input()) add(info);
    }
    if (inferred) add_graph(*inferred);
    add_graph(*scope.graph);
    for (const auto& [name, value] : scope.values) scope.types.emplace(name, type_of_tensor(value.type, value.dims));
    const auto map = index.find(&scope);
    for (auto& [key, child] : scope.children) {
        const onnx::GraphProto* inferred_child = nullptr;
        if (inlined.count(child.get())) {
            inferred_child = inferred;  // its nodes were inferred as part of this graph
        } else if (inferred && map != index.end()) {
            const int at = map->second[static_cast<size_t>(key.first)];
            if (at >= 0 && at < inferred->node_size()) {
                inferred_child = body_named(inferred->node(at), key.second);
            }
        }
        load_types(*child, inferred_child, index, inlined);
    }
}

// Declares the rank of each Compress output that inference left without a shape (ONNX 1.12 infers only its element
// type), so that the next round's inference carries shapes on through what follows it: the input's shape with the
// compressed axis unknown, or one unknown dimension without an axis. Marks each NonZero of a rank-0 input, which the
// next round shows inference as ONNX Runtime runs it (see GraphScope::nonzero_of_scalar). Returns how many it
// declared or marked.
size_t declare_selected_ranks(GraphScope& scope) {
    size_t added = 0;
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        if (node.op_type() == "NonZero" && default_domain(node.domain()) && node.input_size() == 1 &&
            !scope.nonzero_of_scalar.count(n)) {
            const onnx::TypeProto* input = scope.type(node.input(0));
            if (input && input->has_tensor_type() && input->tensor_type().has_shape() &&
                input->tensor_type().shape().dim_size() == 0) {
                scope.nonzero_of_scalar.insert(n);
                ++added;
            }
            continue;
        }
        if (node.op_type() != "Compress" || !default_domain(node.domain()) || node.input_size() < 2 ||
            node.output_size() < 1 || node.output(0).empty() || scope.declared_ranks.count(node.output(0))) {
            continue;
        }
        const onnx::TypeProto* output = scope.type(node.output(0));
        const onnx::TypeProto* input = scope.type(node.input(0));
        if (!output || !output->has_tensor_type() || output->tensor_type().has_shape() || !input ||
            !input->has_tensor_type() || !input->tensor_type().has_shape()) {
            continue;
        }
        onnx::TypeProto declared = *output;
        auto* shape = declared.mutable_tensor_type()->mutable_shape();
        const auto& dims = input->tensor_type().shape();
        const auto axis = int_attribute(node, "axis", std::numeric_limits<int64_t>::min());
        if (!axis) continue;
        if (*axis == std::numeric_limits<int64_t>::min()) {
            shape->add_dim();
        } else {
            const auto at = normalized_axis(*axis, static_cast<size_t>(dims.dim_size()));
            if (!at) continue;
            for (int d = 0; d < dims.dim_size(); ++d) *shape->add_dim() = dims.dim(d);
            shape->mutable_dim(static_cast<int>(*at))->Clear();
        }
        scope.types[node.output(0)] = declared;
        scope.declared_ranks.emplace(node.output(0), std::move(declared));
        ++added;
    }
    for (auto& [key, child] : scope.children) added += declare_selected_ranks(*child);
    return added;
}

// Folds every node of the scope (and its bodies) whose inputs are known; returns how many values it added.
size_t fold_scope(GraphScope& scope, int64_t opset, const std::set<std::string>& domains, uint64_t& budget,
                  ResourceGuard& guard) {
    static const std::set<std::string> foldable(foldable_operators().begin(), foldable_operators().end());
    size_t added = 0;
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        guard.check();
        for (auto& [key, child] : scope.children) {
            if (key.first == n) added += fold_scope(*child, opset, domains, budget, guard);
        }
        if (!known_domain(node, domains) || node.output_size() == 0 || scope.unfoldable.count(n)) continue;
        bool done = true;
        for (const auto& output : node.output()) done = done && (output.empty() || scope.values.count(output));
        if (done) continue;
        if (auto taken = taken_branch(scope, node, n)) {
            // An If whose condition is known: its outputs are the taken branch's, values included.
            const GraphScope& branch = *scope.children.at({n, *taken});
            for (int k = 0; k < node.output_size() && k < branch.graph->output_size(); ++k) {
                const TensorValue* value = branch.value(branch.graph->output(k).name());
                if (node.output(k).empty() || !value || scope.values.count(node.output(k)) || value->count() > budget) continue;
                budget -= value->count();
                scope.types[node.output(k)] = type_of_tensor(value->type, value->dims);
                scope.values.emplace(node.output(k), *value);
                ++added;
            }
            continue;
        }
        if (!foldable.count(node.op_type())) continue;
        // Every input it names must be known (but a Shape's or a Size's, of which the shape is enough): checked
        // before any initializer is read.
        const bool shape_only = node.op_type() == "Shape" || node.op_type() == "Size";
        bool available = true;
        for (int i = shape_only ? 1 : 0; i < node.input_size(); ++i) {
            available = available && (node.input(i).empty() || scope.may_have_value(node.input(i)));
        }
        if (!available) continue;
        std::vector<FoldInput> inputs;
        bool values_known = true;  // then the outcome is final: values never change once known
        for (const auto& name : node.input()) {
            FoldInput input;
            input.present = !name.empty();
            if (input.present) {
                input.value = scope.value(name);
                input.shape = static_shape(scope.type(name));
                values_known = values_known && input.value;
            }
            inputs.push_back(std::move(input));
        }
        auto outputs = fold_node(node, opset, inputs, budget);
        uint64_t size = 0;
        if (outputs) {
            for (const auto& value : *outputs) size += value.count();
        }
        if (!outputs || outputs->size() < static_cast<size_t>(node.output_size()) || size > budget) {
            if (values_known) scope.unfoldable.insert(n);  // the budget only shrinks: over it now, over it later
            continue;
        }
        budget -= size;
        for (int k = 0; k < node.output_size(); ++k) {
            if (node.output(k).empty()) continue;
            auto& value = (*outputs)[static_cast<size_t>(k)];
            scope.types[node.output(k)] = type_of_tensor(value.type, value.dims);
            scope.values.emplace(node.output(k), std::move(value));
            ++added;
        }
    }
    return added;
}

}  // namespace

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
        std::string problem;
        cached = scope->read.emplace(name, read_tensor(*initializer->second, problem)).first;
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

bool makes_rank(const onnx::NodeProto& node, int input) {
    const std::string& op = node.op_type();
    if (!default_domain(node.domain())) return false;
    return (op == "ConstantOfShape" && input == 0) ||
           ((op == "Reshape" || op == "Expand" || op == "Unsqueeze") && input == 1);
}

std::optional<uint64_t> rank_input_length(const GraphScope& scope, const std::string& name) {
    const GraphScope* owner = scope.owner(name);
    if (!owner) return std::nullopt;
    const auto producer = owner->producers.find(name);
    if (producer == owner->producers.end()) return std::nullopt;
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    for (int i = 0; i < node.input_size(); ++i) {
        if (!makes_rank(node, i) || node.input(i).empty()) continue;
        if (const TensorValue* value = owner->value(node.input(i))) return value->count();
        const auto shape = static_shape(owner->type(node.input(i)));
        if (shape && shape->size() == 1) return static_cast<uint64_t>((*shape)[0]);
    }
    return std::nullopt;
}

std::string branch_name(const std::string& attribute) {
    if (attribute == "then_branch") return "then";
    if (attribute == "else_branch") return "else";
    return attribute;  // "body" for Loop and Scan
}

std::string node_label(const onnx::NodeProto& node, size_t position) {
    return node.name().empty() ? node.op_type() + "#" + std::to_string(position) : node.name();
}

std::optional<std::vector<int64_t>> static_shape(const onnx::TypeProto* type) {
    if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return std::nullopt;
    Dims dims;
    for (const auto& dim : type->tensor_type().shape().dim()) {
        if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
        dims.push_back(dim.dim_value());
    }
    return dims;
}

ModelAnalysis analyze_model(onnx::ModelProto model, int64_t opset, const ImportOptions& options, ResourceGuard& guard,
                            std::vector<std::string>& usage_errors, std::vector<std::string>& notes) {
    ModelAnalysis analysis;
    if (!bind_dimensions(model, options, analysis, usage_errors, notes)) return analysis;
    analysis.bound = std::move(model);
    analysis.main = build_scope(analysis.bound.graph(), nullptr, "", "");
    std::set<std::string> domains{"", "ai.onnx"};
    for (const auto& entry : analysis.bound.opset_import()) domains.insert(entry.domain());
    std::set<std::string> rank_makers;
    collect_rank_makers(*analysis.main, rank_makers);

    uint64_t budget = kMaxFoldedTotal;
    // What the model's own constants and declarations give, folded before the first inference: round 1 then
    // shows inference these values (and withholds those that would make it build huge shapes).
    load_types(*analysis.main, nullptr, {}, {});
    fold_scope(*analysis.main, opset, domains, budget, guard);
    bool ever_inferred = false;
    std::string failure;
    for (analysis.rounds = 1; analysis.rounds <= kMaxFoldRounds; ++analysis.rounds) {
        onnx::ModelProto work;
        work.set_ir_version(analysis.bound.ir_version());
        *work.mutable_opset_import() = analysis.bound.opset_import();
        *work.mutable_functions() = analysis.bound.functions();
        guard.check();
        WorkBuild build{domains, rank_makers, {}, {}, nullptr, {}};
        build_work_graph(*analysis.main, work.mutable_graph(), build);
        const auto& index = build.index;
        const auto& inlined = build.inlined;
        std::string round_failure;
        // Each round's inference gets its own limits, but never more time than the whole import has left.
        InferenceLimits limits = options.inference;
        limits.wall_seconds = std::min(limits.wall_seconds, guard.seconds_left());
        limits.cpu_seconds = std::min(limits.cpu_seconds, guard.seconds_left());
        std::optional<onnx::ModelProto> inferred = infer_shapes(work, limits, round_failure);
        work.Clear();
        guard.check();
        if (inferred) {
            ever_inferred = true;
            load_types(*analysis.main, &inferred->graph(), index, inlined);
        } else {
            failure = round_failure;
            if (!ever_inferred) load_types(*analysis.main, nullptr, index, inlined);  // else the last inferred types stand
        }
        const size_t declared = declare_selected_ranks(*analysis.main);
        if (fold_scope(*analysis.main, opset, domains, budget, guard) == 0 && declared == 0) break;
    }
    analysis.rounds = std::min(analysis.rounds, kMaxFoldRounds);
    analysis.inference_ran = ever_inferred;
    if (!ever_inferred) {
        analysis.inference_note = "ONNX shape inference failed on this model (" + failure +
                                  "); the shapes and types the model declares are used";
    }
    return analysis;
}

}  // namespace kernelgen
