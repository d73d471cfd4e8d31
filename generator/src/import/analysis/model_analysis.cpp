#include "import/analysis/model_analysis.h"

#include <algorithm>
#include <functional>

#include "common/hints.h"
#include "import/analysis/count_bounds.h"
#include "import/analysis/dimensions.h"
#include "import/analysis/work_graph.h"
#include "import/model/bodies.h"
#include "import/operators/onnx_operators.h"
#include "kernelgen/spec.h"
#include "import/model/node_attributes.h"

namespace kernelgen {

// Most rounds of shape inference and folding (each round folds what the last inference made known).
constexpr int kMaxFoldRounds = 64;

namespace {

using Dims = std::vector<int64_t>;

// The most elements all folded values of a model may hold together (each value holds at most kMaxFoldElements).
constexpr uint64_t kMaxFoldedTotal = uint64_t{1} << 24;

// --- the scopes ----------------------------------------------------------------------------------------------------


}  // namespace


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

// The shape of a Compress, Slice or TopK output that inference left without one, from its input's `dims`: the
// input's rank, with the selected axes unknown (Compress along an axis, Slice along the axes it names, TopK along
// its axis), or one unknown dimension (Compress without an axis). Nothing when the axes are not known.
std::optional<onnx::TensorShapeProto> selected_shape(const GraphScope& scope, const onnx::NodeProto& node,
                                                     const onnx::TensorShapeProto& dims) {
    const auto rank = static_cast<size_t>(dims.dim_size());
    std::vector<size_t> selected;
    if (node.op_type() == "Compress") {
        const auto axis = int_attribute(node, "axis", std::numeric_limits<int64_t>::min());
        if (!axis) return std::nullopt;
        if (*axis == std::numeric_limits<int64_t>::min()) {
            onnx::TensorShapeProto flat;
            flat.add_dim();
            return flat;
        }
        const auto at = normalized_axis(*axis, rank);
        if (!at) return std::nullopt;
        selected.push_back(*at);
    } else if (node.op_type() == "TopK") {
        const auto at = normalized_axis(int_attribute(node, "axis", -1).value_or(rank), rank);
        if (!at) return std::nullopt;
        selected.push_back(*at);
    } else {
        const auto axes = counts::slice_axes(scope, node);
        if (!axes) return std::nullopt;
        for (int64_t a : *axes) {
            const auto at = normalized_axis(a, rank);
            if (!at) return std::nullopt;
            selected.push_back(*at);
        }
    }
    onnx::TensorShapeProto shape = dims;
    for (size_t at : selected) shape.mutable_dim(static_cast<int>(at))->Clear();
    return shape;
}

// Whether `shape` says more than `type` does: a rank where it has none, or a static dimension where it has none.
bool adds_dims(const onnx::TensorShapeProto& shape, const onnx::TypeProto& type) {
    if (!has_rank(&type)) return true;
    const auto& known = type.tensor_type().shape();
    if (known.dim_size() != shape.dim_size()) return false;
    for (int d = 0; d < shape.dim_size(); ++d) {
        if (shape.dim(d).has_dim_value() && !known.dim(d).has_dim_value()) return true;
    }
    return false;
}

// Gives `name` (of type `type` so far) the shape `shape`, for this round and, as value_info, the next rounds'
// inference. Whether that is new: the same declaration made again (where inference failed, each round starts from
// the model's declarations) tells the next round nothing, and another round for it would be one more of 64.
bool declare_shape(GraphScope& scope, const std::string& name, const onnx::TypeProto& type,
                   const onnx::TensorShapeProto& shape) {
    onnx::TypeProto declared = type;
    *declared.mutable_tensor_type()->mutable_shape() = shape;
    scope.types[name] = declared;
    const auto before = scope.declared_ranks.find(name);
    if (before != scope.declared_ranks.end() && before->second.SerializeAsString() == declared.SerializeAsString()) {
        return false;
    }
    scope.declared_ranks[name] = std::move(declared);
    return true;
}

// Declares the shape of each Compress output, each Slice output by run-time starts or ends, and each TopK output by
// a run-time k, where inference left it without one (ONNX 1.12 infers only its element type) or without static
// dimensions the slice keeps, so that the next round's inference carries shapes
// on through what follows it (see selected_shape). Marks each NonZero of a rank-0 input, which the
// next round shows inference as ONNX Runtime runs it (see GraphScope::nonzero_of_scalar). Returns how many it
// declared or marked.
size_t declare_selected_ranks(GraphScope& scope) {
    size_t added = 0;
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        if (node.op_type() == "NonZero" && default_domain(node.domain()) && node.input_size() == 1 &&
            !scope.nonzero_of_scalar.count(n)) {
            const onnx::TypeProto* input = scope.type(node.input(0));
            if (has_rank(input) && input->tensor_type().shape().dim_size() == 0) {
                scope.nonzero_of_scalar.insert(n);
                ++added;
            }
            continue;
        }
        const bool top_k = node.op_type() == "TopK";
        if ((node.op_type() != "Compress" && node.op_type() != "Slice" && !top_k) || !default_domain(node.domain()) ||
            node.input_size() < 2 || node.output_size() < 1 || (top_k && scope.value(node.input(1)))) {
            continue;
        }
        const onnx::TypeProto* input = scope.type(node.input(0));
        if (!has_rank(input)) continue;
        const auto shape = selected_shape(scope, node, input->tensor_type().shape());
        for (int k = 0; k < (top_k ? node.output_size() : 1) && shape; ++k) {  // TopK's values and indices
            if (node.output(k).empty()) continue;
            const onnx::TypeProto* output = scope.type(node.output(k));
            if (!output || !output->has_tensor_type() || !adds_dims(*shape, *output)) continue;
            if (declare_shape(scope, node.output(k), *output, *shape)) ++added;
        }
    }
    for (auto& [key, child] : scope.children) added += declare_selected_ranks(*child);
    return added;
}

// Whether `name`, a Loop's condition, is true: absent, or a known nonzero value.
bool known_true(const GraphScope& scope, const std::string& name) {
    if (name.empty()) return true;
    const TensorValue* value = scope.value(name);
    return value && value->count() == 1 && !value->ints.empty() && value->ints[0] != 0;
}

// Declares the leading dimension of each scan output of a Loop that runs exactly its trip count: the trip count a
// known value, the condition true on entry and after every iteration (the body's condition output the body's
// condition input, or a value known true, as PyTorch's exports make it), or no condition input at all. ONNX 1.12's
// inference leaves that dimension unknown, and everything after the Loop loses its shapes (an EmbeddingBag's bags,
// stacked). Returns how many it declared.
size_t declare_loop_scans(GraphScope& scope) {
    size_t added = 0;
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        if (node.op_type() != "Loop" || !default_domain(node.domain()) || node.input_size() < 2) continue;
        auto body = scope.children.find({n, "body"});
        if (body == scope.children.end()) continue;
        const GraphScope& inner = *body->second;
        const onnx::GraphProto& graph = *inner.graph;
        const TensorValue* trip_count = node.input(0).empty() ? nullptr : scope.value(node.input(0));
        if (!trip_count || trip_count->count() != 1 || trip_count->ints.empty() || trip_count->ints[0] < 0 ||
            static_cast<uint64_t>(trip_count->ints[0]) > kMaxElements || graph.input_size() < 2 ||
            graph.output_size() < 1) {
            continue;
        }
        // Without a condition input the Loop ignores the body's condition output and runs its trip count.
        const bool keeps_going = node.input(1).empty() || graph.output(0).name() == graph.input(1).name() ||
                                 known_true(inner, graph.output(0).name());
        if (!known_true(scope, node.input(1)) || !keeps_going) continue;
        const int carried = node.input_size() - 2;
        for (int k = carried; k < node.output_size() && 1 + k < graph.output_size(); ++k) {
            const onnx::TypeProto* output = scope.type(node.output(k));
            const onnx::TypeProto* each = inner.type(graph.output(1 + k).name());
            if (node.output(k).empty() || !output || !output->has_tensor_type() || !has_rank(each)) continue;
            onnx::TensorShapeProto shape;
            shape.add_dim()->set_dim_value(trip_count->ints[0]);
            for (const auto& dim : each->tensor_type().shape().dim()) *shape.add_dim() = dim;
            if (!adds_dims(shape, *output)) continue;
            if (declare_shape(scope, node.output(k), *output, shape)) ++added;
        }
    }
    for (auto& [key, child] : scope.children) added += declare_loop_scans(*child);
    return added;
}

// The static dimensions of a Reshape's, Expand's or ConstantOfShape's output whose shape input is a value with a
// run-time count among its elements (counts/shape_values.cpp), which inference leaves unknown: each known element
// (Reshape's 0 copying the input's static dimension; Expand's 1 the input's), and a Reshape's -1 beside a count
// that is the input's own (x.reshape(x.shape[0], -1), where both come from the same proposals): the input's other
// dimensions over the target's. nullopt marks a dimension left unknown; nothing when the rank is not known either.
std::optional<std::vector<std::optional<int64_t>>> counted_target_dims(const counts::NodeView& v) {
    const std::string& op = v.node.op_type();
    const int shape_input = op == "ConstantOfShape" ? 0 : 1;
    if (!v.counted_value(shape_input)) return std::nullopt;
    const auto target = v.elements(shape_input);
    if (!target || target->scalar) return std::nullopt;
    std::vector<std::optional<int64_t>> dims;
    const auto input = v.input_rank(0);
    const size_t length = target->elements.size();
    if (op == "Expand") {
        if (!input) return std::nullopt;
        const size_t rank = std::max(length, *input);
        for (size_t j = 0; j < rank; ++j) {
            const bool in_target = j >= rank - length, in_input = j >= rank - *input;
            const auto from_input = in_input ? v.static_dim(0, j - (rank - *input)) : std::optional<int64_t>(1);
            if (in_input && v.counted(0) && v.counted(0)->axis == j - (rank - *input)) {
                dims.push_back(std::nullopt);  // the input's count there
                continue;
            }
            const ValueElement* e = in_target ? &target->elements[j - (rank - length)] : nullptr;
            if (e && e->count) dims.push_back(from_input && *from_input > 1 ? from_input : std::nullopt);
            else if (!e || e->known == 1) dims.push_back(from_input);
            else dims.push_back(e->known);
        }
        return dims;
    }
    if (op == "ConstantOfShape") {
        for (const auto& e : target->elements) dims.push_back(e.count ? std::nullopt : std::optional<int64_t>(e.known));
        return dims;
    }
    // Reshape
    const auto allow_zero = int_attribute(v.node, "allowzero", 0);
    if (!allow_zero) return std::nullopt;
    std::optional<size_t> inferred;
    for (size_t j = 0; j < length; ++j) {
        const ValueElement& e = target->elements[j];
        if (e.count) dims.push_back(std::nullopt);
        else if (e.known == -1) { inferred = j; dims.push_back(std::nullopt); }
        else if (e.known == 0 && !*allow_zero) dims.push_back(j < input.value_or(0) ? v.static_dim(0, j) : std::nullopt);
        else dims.push_back(e.known);
    }
    // A -1 beside the input's own count: the input's other dimensions over the target's other ones.
    const CountedDim* in = v.counted(0);
    const auto at = target->only_count();
    const auto shape = v.bounded_shape(0);  // the counted axis at its bound, every other static
    if (inferred && in && at && shape && target->elements[*at].count->identity == in->identity) {
        uint64_t rest = 1, others = 1;
        for (size_t d = 0; d < shape->size(); ++d) {
            if (d != in->axis) rest *= (*shape)[d];
        }
        for (size_t j = 0; j < length; ++j) {
            if (j == *at || j == *inferred) continue;
            if (!dims[j] || (target->elements[j].known == 0 && in->axis == j)) return dims;
            others *= static_cast<uint64_t>(*dims[j]);
        }
        if (others != 0 && rest % others == 0) dims[*inferred] = static_cast<int64_t>(rest / others);
    }
    return dims;
}

// Declares what counted_target_dims finds where inference knows less. Returns how many outputs it declared.
size_t declare_counted_shapes(GraphScope& scope, const CountBounds& bounds, int64_t opset) {
    size_t added = 0;
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        const std::string& op = node.op_type();
        if ((op != "Reshape" && op != "Expand" && op != "ConstantOfShape") || !default_domain(node.domain()) ||
            node.input_size() < 1 || node.output_size() < 1 || node.output(0).empty()) {
            continue;
        }
        const counts::NodeView v{scope, node, op, opset, bounds};
        const auto dims = counted_target_dims(v);
        const onnx::TypeProto* output = scope.type(node.output(0));
        if (!dims || !output || !output->has_tensor_type()) continue;
        onnx::TensorShapeProto shape;
        for (const auto& d : *dims) {
            auto* dim = shape.add_dim();
            if (d) dim->set_dim_value(*d);
        }
        if (!adds_dims(shape, *output)) continue;
        if (declare_shape(scope, node.output(0), *output, shape)) ++added;
    }
    for (auto& [key, child] : scope.children) added += declare_counted_shapes(*child, bounds, opset);
    return added;
}

// The elements of the 1-D integer value `name` that are known at import time, nullopt for the others: all of a
// known value; a Concat's parts in order; through Cast and Identity; each element unknown for any other value of a
// static length. Nothing when its length is not known.
std::optional<std::vector<std::optional<int64_t>>> known_elements(const GraphScope& scope, const std::string& name, int depth) {
    if (const TensorValue* value = scope.value(name)) {
        if (value->dims.size() != 1 || value->ints.size() != value->count()) return std::nullopt;
        return std::vector<std::optional<int64_t>>(value->ints.begin(), value->ints.end());
    }
    const GraphScope* owner = depth < 16 ? scope.owner(name) : nullptr;
    const auto producer = owner ? owner->producers.find(name) : scope.producers.end();
    if (owner && producer != owner->producers.end()) {
        const onnx::NodeProto& node = owner->graph->node(producer->second);
        const std::string& op = node.op_type();
        if (default_domain(node.domain()) && node.input_size() > 0 && (op == "Cast" || op == "Identity")) {
            return known_elements(*owner, node.input(0), depth + 1);
        }
        if (default_domain(node.domain()) && op == "Concat") {
            std::vector<std::optional<int64_t>> out;
            for (const auto& part : node.input()) {
                const auto elements = part.empty() ? std::nullopt : known_elements(*owner, part, depth + 1);
                if (!elements) return std::nullopt;
                out.insert(out.end(), elements->begin(), elements->end());
            }
            return out;
        }
    }
    const auto shape = static_shape(scope.type(name));
    if (!shape || shape->size() != 1 || (*shape)[0] < 0 || static_cast<uint64_t>((*shape)[0]) > kMaxRank) return std::nullopt;
    return std::vector<std::optional<int64_t>>(static_cast<size_t>((*shape)[0]));
}

// Declares the dimensions of a Resize output that its sizes input fixes where inference leaves them unknown: a
// sizes value made at run time in part (Mask R-CNN's paste of each mask, `Concat(Shape(mask)[:2], Cast(h, w))`)
// still gives its known elements. Only where the sizes are the output's dimensions as they are: from opset 11 to
// 17, or at 18 and later without "axes" and with the "stretch" policy. Returns how many outputs it declared.
size_t declare_resize_sizes(GraphScope& scope, int64_t opset) {
    size_t added = 0;
    for (int n = 0; n < scope.graph->node_size() && opset >= 11; ++n) {
        const onnx::NodeProto& node = scope.graph->node(n);
        if (node.op_type() != "Resize" || !default_domain(node.domain()) || node.input_size() < 4 || node.input(3).empty() ||
            node.output_size() < 1 || node.output(0).empty() || find_attribute(node, "axes")) {
            continue;
        }
        if (const auto* policy = find_attribute(node, "keep_aspect_ratio_policy"); policy && policy->s() != "stretch") continue;
        const onnx::TypeProto* output = scope.type(node.output(0));
        const auto sizes = known_elements(scope, node.input(3), 0);
        if (!output || !output->has_tensor_type() || !sizes) continue;
        onnx::TensorShapeProto shape;
        for (const auto& size : *sizes) {
            auto* dim = shape.add_dim();
            if (size && *size >= 0) dim->set_dim_value(*size);
        }
        if (!adds_dims(shape, *output)) continue;
        if (declare_shape(scope, node.output(0), *output, shape)) ++added;
    }
    for (auto& [key, child] : scope.children) added += declare_resize_sizes(*child, opset);
    return added;
}

// Marks, in a partial shape, a dimension that is not static (no dimension is negative).
constexpr int64_t kUnknownDim = std::numeric_limits<int64_t>::min();

// The dimensions of a tensor whose rank is known, kUnknownDim where a dimension is not static; nothing when the
// rank is unknown.
std::optional<Dims> partial_dims(const onnx::TypeProto* type) {
    if (!has_rank(type)) return std::nullopt;
    Dims dims;
    for (const auto& dim : type->tensor_type().shape().dim()) {
        dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : kUnknownDim);
    }
    return dims;
}

// The value of `name` when a Shape node makes it from a tensor of known rank whose dimensions are not all static:
// the static ones, kUnknownDim for the others. Nothing otherwise.
std::optional<TensorValue> partial_shape(const GraphScope& scope, const std::string& name, int64_t opset) {
    const GraphScope* owner = scope.owner(name);
    if (!owner || owner->value(name)) return std::nullopt;
    const auto producer = owner->producers.find(name);
    if (producer == owner->producers.end()) return std::nullopt;
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    if (node.op_type() != "Shape" || !default_domain(node.domain()) || node.input_size() != 1) return std::nullopt;
    FoldInput input;
    input.present = true;
    input.shape = partial_dims(owner->type(node.input(0)));
    if (!input.shape) return std::nullopt;
    auto outputs = fold_node(node, opset, {input});
    if (!outputs || outputs->size() != 1) return std::nullopt;
    return std::move(outputs->front());
}

bool holds_unknown_dim(const std::vector<TensorValue>& values) {
    return std::any_of(values.begin(), values.end(), [](const TensorValue& v) {
        return std::find(v.ints.begin(), v.ints.end(), kUnknownDim) != v.ints.end();
    });
}

// Folds every node of the scope (and its bodies) whose inputs are known; returns how many values it added.
size_t fold_scope(GraphScope& scope, int64_t opset, const std::set<std::string>& domains, uint64_t& budget,
                  ResourceGuard& guard) {
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
        const OnnxOperatorRule* rule = find_operator(node);
        if (!rule || !rule->fold) continue;
        // Every input it names must be known (but a Shape's or a Size's, of which the shape is enough): checked
        // before any initializer is read.
        const bool shape_only = rule->needs == FoldNeeds::first_shape;
        bool available = true;
        for (int i = shape_only ? 1 : 0; i < node.input_size(); ++i) {
            available = available && (node.input(i).empty() || scope.may_have_value(node.input(i)));
        }
        // A Gather or Slice of a Shape whose input has dimensions that are not static may still pick only static
        // ones (torchvision's x.shape[1] of a tensor of [count, 1]): folded from the partial shape, and kept
        // only when no unknown dimension reached the result. A Shape with start and end likewise.
        std::optional<TensorValue> partial;
        const bool picks_from_shape = (node.op_type() == "Gather" || node.op_type() == "Slice") && node.input_size() > 1;
        if (picks_from_shape && !scope.value(node.input(0))) partial = partial_shape(scope, node.input(0), opset);
        if (!available && !partial) continue;
        std::vector<FoldInput> inputs;
        bool values_known = !partial;  // then the outcome is final: values never change once known
        for (int i = 0; i < node.input_size(); ++i) {
            const std::string& name = node.input(i);
            FoldInput input;
            input.present = !name.empty();
            if (input.present) {
                input.value = i == 0 && partial ? &*partial : scope.value(name);
                input.shape = static_shape(scope.type(name));
                if (shape_only && !input.shape) input.shape = partial_dims(scope.type(name));
                values_known = values_known && input.value;
            }
            inputs.push_back(std::move(input));
        }
        if (!shape_only && std::any_of(inputs.begin(), inputs.end(), [](const FoldInput& in) { return in.present && !in.value; })) {
            continue;
        }
        auto outputs = fold_node(node, opset, inputs, budget);
        if (outputs && holds_unknown_dim(*outputs)) continue;
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

ModelAnalysis analyze_model(onnx::ModelProto model, int64_t opset, const ImportOptions& options, ResourceGuard& guard,
                            std::vector<std::string>& usage_errors) {
    ModelAnalysis analysis;
    if (!bind_dimensions(model, options, analysis, usage_errors)) return analysis;
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
        size_t declared = declare_selected_ranks(*analysis.main);
        declared += declare_counted_shapes(*analysis.main, CountBounds(*analysis.main, opset, guard), opset);
        declared += declare_loop_scans(*analysis.main);
        declared += declare_resize_sizes(*analysis.main, opset);
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
