#include "import/node_spec.h"

#include "common/npy.h"
#include "import/quantized_tables.h"

#include <algorithm>
#include <set>

#include "import/operators/onnx_operators.h"

namespace kernelgen {

using Json = nlohmann::ordered_json;

namespace {

// A node's tensors known at import time, as node_spec() finds them: a gather's data (a weight: an embedding table),
// which the kernel holds (its bytes, KernelSpec::ConstantData's, and the tensor's name), or a quantized table; a
// scatter's constant updates. `note` says why a constant tensor stays a parameter.
struct ConstantTable {
    std::string tensor;
    std::string bytes;
    std::string note;
    std::optional<QuantizedTable> quantized;
    std::string updates_tensor;
    std::string updates_bytes;
};

// "data, indices, updates": names as a node's message lists them.
template <typename Names>
std::string listed(const Names& names) {
    std::string out;
    for (const auto& item : names) out += (out.empty() ? "" : ", ") + std::string(item);
    return out;
}

// `values` (row-major) nested as `shape`.
Json nest(const std::vector<int64_t>& values, const Shape& shape, size_t axis, size_t& at) {
    if (axis == shape.size()) return values[at++];
    Json array = Json::array();
    for (uint64_t i = 0; i < shape[axis]; ++i) array.push_back(nest(values, shape, axis + 1, at));
    return array;
}


// A static tensor type; a dimension that is a run-time count has its bound in `shape`, and `count` says which.
struct StaticTensor {
    int32_t elem_type = 0;
    Shape shape;
    std::optional<CountedDim> count;
};

// The node where shape inference lost the rank of `name`: walking back through producers whose outputs have no
// shape, the first whose inputs all have one (or nothing when that is not found).
std::optional<std::string> rank_lost_at(const GraphScope& scope, std::string name) {
    for (int steps = 0; steps < 4096; ++steps) {
        const GraphScope* owner = scope.owner(name);
        if (!owner) return std::nullopt;
        const auto producer = owner->producers.find(name);
        if (producer == owner->producers.end()) return std::nullopt;
        const onnx::NodeProto& node = owner->graph->node(producer->second);
        const auto unranked = std::find_if(node.input().begin(), node.input().end(), [&](const std::string& input) {
            return !input.empty() && !owner->value(input) && !has_rank(owner->type(input));
        });
        if (unranked == node.input().end()) {
            return node.op_type() + " " + in_quotes(node_label(node, static_cast<size_t>(producer->second)));
        }
        name = *unranked;
    }
    return std::nullopt;
}

// What makes the number of elements of `name` unknown at import time, found by walking back through the
// producers: a node that makes it depend on run-time values (NonZero, NonMaxSuppression, Compress, Unique, TopK
// with a run-time k; `run_time` is then true), or a Shape or Size of a tensor whose rank inference lost (the
// length of a shape is a rank, never a run-time count). Nothing when neither is found.
std::optional<std::string> unknown_size_cause(const GraphScope& scope, const std::string& name, bool& run_time) {
    std::vector<std::pair<const GraphScope*, std::string>> pending{{&scope, name}};
    std::set<std::pair<const GraphScope*, std::string>> seen;
    std::optional<std::string> lost_rank;
    while (!pending.empty() && seen.size() < 4096) {
        auto [at, current] = pending.back();
        pending.pop_back();
        const GraphScope* owner = at->owner(current);
        if (!owner || !seen.insert({owner, current}).second) continue;
        auto producer = owner->producers.find(current);
        if (producer == owner->producers.end()) continue;
        const onnx::NodeProto& node = owner->graph->node(producer->second);
        if (makes_count(*owner, node)) {
            run_time = true;
            return node.op_type() + " node " + in_quotes(node.name());
        }
        if (owner->value(current)) continue;  // a known value has a known size
        const OnnxOperatorRule* rule = find_operator(node);
        if (rule && rule->needs == FoldNeeds::first_shape && node.input_size() > 0 && !has_rank(owner->type(node.input(0)))) {
            if (!lost_rank) {
                lost_rank = node.op_type() + " " + in_quotes(node_label(node, static_cast<size_t>(producer->second))) +
                            " of " + in_quotes(node.input(0)) + ", whose rank is unknown";
                if (const auto stopped = rank_lost_at(*owner, node.input(0))) lost_rank = *lost_rank + " from " + *stopped + " on";
            }
            continue;  // its values may still be counts, but its length is a rank
        }
        for (const auto& input : node.input()) {
            if (!input.empty()) pending.emplace_back(owner, input);
        }
    }
    run_time = false;
    return lost_rank;
}

// A dimension left unbound: `what` ("data \"x\"") dimension `index`, whose name is `name` (a dim_param of the model),
// or "" when it has none (or only one ONNX's inference made up, unk__8).
struct UnboundDim {
    std::string what;
    int index = 0;
    std::string name;
};

// "a, b and c"
std::string and_list(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return out;
}

// "dynamic shape: indices "ids" dimension 0 is "batch" and dimension 1 is "seq"; fix it with --dim batch=<value>
// --dim seq=<value>": every unbound dimension of a node's tensors (in order, by tensor), and every --dim that binds
// them; "dimensions 0 and 1 could not be inferred" for those without a name.
std::string unbound_message(const std::vector<UnboundDim>& dims) {
    std::vector<std::string> tensors, fixes;
    bool unnamed = false;
    for (size_t first = 0; first < dims.size();) {
        size_t end = first;
        std::vector<std::string> parts, nameless;
        for (; end < dims.size() && dims[end].what == dims[first].what; ++end) {
            const UnboundDim& dim = dims[end];
            if (dim.name.empty()) {
                nameless.push_back(std::to_string(dim.index));
                continue;
            }
            parts.push_back("dimension " + std::to_string(dim.index) + " is " + in_quotes(dim.name));
            const std::string fix = "--dim " + terminal_safe(dim.name) + "=<value>";
            if (std::find(fixes.begin(), fixes.end(), fix) == fixes.end()) fixes.push_back(fix);
        }
        if (!nameless.empty()) {
            parts.push_back((nameless.size() == 1 ? "dimension " : "dimensions ") + and_list(nameless) + " could not be inferred");
            unnamed = true;
        }
        tensors.push_back(dims[first].what + " " + and_list(parts));
        first = end;
    }
    std::string fix_text;
    for (const auto& fix : fixes) fix_text += (fix_text.empty() ? "" : " ") + fix;
    if (unnamed) fix_text += (fix_text.empty() ? "" : " and ") + std::string("--dim or --input");
    std::string what;
    for (const auto& tensor : tensors) what += (what.empty() ? "" : ", ") + tensor;
    return "dynamic shape: " + what + "; fix it with " + fix_text;
}

// The static type of `tensor` (the node's input `role`) in `scope`, or the reason it has none. A dimension that is
// `count` takes its bound; `hint` is added to the message of a data-dependent leading dimension without one. A
// dimension left unbound (a --dim or --input fixes it) is added to `unbound`, and the others are still looked at:
// nothing is returned then, and `problem` is set only by another problem, which ends the look.
std::optional<StaticTensor> static_tensor(const GraphScope& scope, const ModelAnalysis& analysis, const std::string& tensor,
                                          const std::string& role, const std::optional<CountedDim>& count,
                                          const std::string& hint, std::vector<UnboundDim>& unbound, std::string& problem) {
    const std::string what = role + " " + in_quotes(tensor);
    const onnx::TypeProto* type = scope.type(tensor);
    if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) {
        // A shape input longer than kMaxRank makes a rank no kernel takes (and that import never infers).
        if (const auto length = rank_input_length(scope, tensor); length && *length > kMaxRank) {
            problem = what + " has a rank of at least " + std::to_string(*length) + ", the length of its producer's shape input "
                      "(at most " + std::to_string(kMaxRank) + ")";
            return std::nullopt;
        }
    }
    if (!type || !type->has_tensor_type()) {
        problem = "the type and shape of " + what + " are unknown (shape inference gave none and the model declares none)";
        return std::nullopt;
    }
    const auto& tensor_type = type->tensor_type();
    // An initializer's dims are the model's own: one below 0 makes the model invalid, whatever --dim says.
    if (const GraphScope* owner = scope.owner(tensor)) {
        for (const auto& initializer : owner->graph->initializer()) {
            if (initializer.name() != tensor) continue;
            for (int d = 0; d < initializer.dims_size(); ++d) {
                if (initializer.dims(d) < 0) {
                    problem = "invalid shape: " + what + " is an initializer whose dimension " + std::to_string(d) +
                              " is " + std::to_string(initializer.dims(d)) + " (the model is invalid)";
                    return std::nullopt;
                }
            }
        }
    }
    StaticTensor out;
    out.elem_type = tensor_type.elem_type();
    if (!tensor_type.has_shape()) {
        problem = "dynamic shape: " + what + " has an unknown rank";
        if (const auto stopped = rank_lost_at(scope, tensor)) problem += " (shape inference gave none from " + *stopped + " on)";
        return std::nullopt;
    }
    if (static_cast<size_t>(tensor_type.shape().dim_size()) > kMaxRank) {
        problem = what + " has rank " + std::to_string(tensor_type.shape().dim_size()) + " (at most " + std::to_string(kMaxRank) + ")";
        return std::nullopt;
    }
    const size_t unbound_before = unbound.size();
    for (int d = 0; d < tensor_type.shape().dim_size(); ++d) {
        const auto& dim = tensor_type.shape().dim(d);
        const std::string where = what + " dimension " + std::to_string(d);
        if (!dim.has_dim_value() && count && count->axis == static_cast<size_t>(d)) {
            if (count->bound > kMaxElements) {
                problem = "data-dependent shape: " + where + " is a run-time count of at most " + std::to_string(count->bound) +
                          " (through " + count->through.front() + "), more than a dimension may have (at most 2^40)";
                return std::nullopt;
            }
            out.shape.push_back(count->bound);
            out.count = count;
            continue;
        }
        if (!dim.has_dim_value()) {
            bool run_time = false;
            if (auto cause = unknown_size_cause(scope, tensor, run_time)) {
                problem = run_time ? "data-dependent shape: " + where + " depends on run-time values (through " + *cause +
                                         ")" + (d == 0 ? hint : "")
                                   : "dynamic shape: " + where + " could not be inferred: it comes from " + *cause;
                return std::nullopt;
            }
            // A name ONNX's inference made up (unk__8) is nowhere in the model: the dimension has no name.
            const bool named = dim.has_dim_param() && analysis.declared_dim_params.count(dim.dim_param());
            unbound.push_back({what, d, named ? dim.dim_param() : ""});
            continue;
        }
        if (dim.dim_value() < 0) {
            problem = "invalid shape: " + where + " is " + std::to_string(dim.dim_value());
            return std::nullopt;
        }
        if (static_cast<uint64_t>(dim.dim_value()) > kMaxElements) {
            problem = where + " is " + std::to_string(dim.dim_value()) + " (at most 2^40)";
            return std::nullopt;
        }
        out.shape.push_back(static_cast<uint64_t>(dim.dim_value()));
    }
    if (unbound.size() > unbound_before) return std::nullopt;
    return out;
}

// Why the constant `name` (an initializer that is not an input, or a Constant node's output) has no value, or ""
// when it is not such a constant.
std::string unreadable_constant(const GraphScope& scope, const std::string& name) {
    const GraphScope* owner = scope.owner(name);
    if (!owner) return "";
    std::string problem;
    for (const auto& tensor : owner->graph->initializer()) {
        if (tensor.name() == name && !owner->graph_inputs.count(name)) {
            read_tensor(tensor, problem);
            return problem.empty() ? "it is not folded" : problem;
        }
    }
    auto producer = owner->producers.find(name);
    if (producer == owner->producers.end()) return "";
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    if (node.op_type() != "Constant" || !default_domain(node.domain())) return "";
    for (const auto& attribute : node.attribute()) {
        if (attribute.name() == "value" && attribute.has_t()) {
            read_tensor(attribute.t(), problem);
            return problem.empty() ? "it is not folded" : problem;
        }
    }
    return "its attribute is not a tensor of integers";
}


// Whether the leading dimension of `tensor` is not static (a run-time count --max-count may bound).
bool leading_dim_open(const GraphScope& scope, const std::string& tensor) {
    const onnx::TypeProto* type = scope.type(tensor);
    if (!has_rank(type)) return false;
    const auto& shape = type->tensor_type().shape();
    return shape.dim_size() > 0 && !shape.dim(0).has_dim_value();
}

// Where a kernel's run-time counts stand (docs/spec-format.md, "Run-time counts" and "Two counts"): on the leading
// dimension of indices (and of a scatter's updates, which follow them), or of data for a Gather along an axis >= 1;
// and a data count, of data's valid rows, where the indices select among them along axis 0 (alone, or beside a
// count of index rows). The tensors with a count are those `static_tensor` gave one; `axis` is normalized. Sets
// the shapes to the bound.
std::optional<BoundedCount> place_count(Op op, int64_t axis, int64_t batch_dims, StaticTensor& data, StaticTensor& indices,
                                        std::optional<StaticTensor>& updates, const std::vector<std::string>& roles,
                                        std::string& problem) {
    StaticTensor* const tensors[] = {&data, &indices, updates ? &*updates : nullptr};
    for (size_t i = 0; i < 3; ++i) {
        if (tensors[i] && tensors[i]->count && tensors[i]->count->axis != 0) {
            problem = "data-dependent shape: " + roles[i] + " dimension " + std::to_string(tensors[i]->count->axis) +
                      " is a run-time count (through " + tensors[i]->count->through.front() +
                      "), and a kernel can count only a leading dimension";
            return std::nullopt;
        }
    }
    const bool counted_data = data.count.has_value(), counted_indices = indices.count.has_value();
    const bool counted_updates = updates && updates->count;
    auto refuse = [&](const std::string& why) {
        problem = "data-dependent shape: " + why;
        return std::nullopt;
    };
    auto count_of = [](const StaticTensor& from) { return BoundedCount::Count{from.count->bound, from.count->through}; };
    BoundedCount bounded;
    // The indices select among data's rows along axis 0: a data count, checked against at run time.
    const bool selects_rows = op == Op::ScatterND || (op == Op::GatherND && batch_dims == 0) ||
                              ((op == Op::Gather || op == Op::GatherElements || op == Op::ScatterElements) && axis == 0);
    if (counted_data && selects_rows) bounded.data_count = count_of(data);
    if (op == Op::Gather && counted_data && !selects_rows) {
        if (counted_indices) {
            return refuse("both " + roles[0] + " and " + roles[1] + " have a run-time count, and along axis " +
                          std::to_string(axis) + " data's rows lead the output, with the rows of indices inside it");
        }
        bounded.count = count_of(data);
        bounded.leads = "data";
        return bounded;
    }
    // GatherElements along another axis reads data's row i for output row i: data's rows may share the count of
    // the indices' rows (ONNX requires at least as many), but cannot be counted alone.
    const bool rows_follow = op == Op::GatherElements && counted_indices;
    if (counted_data && !selects_rows && !rows_follow) {
        return refuse(roles[0] + " has a run-time count, and " +
                      (op == Op::GatherND ? "with batch_dims " + std::to_string(batch_dims) + " its rows are batches"
                                          : "along axis " + std::to_string(axis) + " output row i takes " +
                                                roles[op == Op::ScatterElements ? 2 : 1] + " row i") +
                      ": the rows of data and of indices would differ");
    }
    if (is_scatter(op) && counted_indices != counted_updates) {
        return refuse(roles[counted_indices ? 2 : 1] + " has a fixed leading dimension, but " +
                      roles[counted_indices ? 1 : 2] + " a run-time count");
    }
    if (!counted_indices) return bounded;  // a data count alone
    // The count's two tensors share it: the lower bound holds for both (GatherElements' data keeps its own as the
    // size of its buffer).
    const StaticTensor* other = counted_updates ? &*updates : (rows_follow && !bounded.data_count ? &data : nullptr);
    const StaticTensor& lowest = other && other->count && other->count->bound < indices.count->bound ? *other : indices;
    bounded.count = count_of(lowest);
    bounded.leads = "indices";
    indices.shape[0] = bounded.count->bound;
    if (updates) updates->shape[0] = bounded.count->bound;
    return bounded;
}


}  // namespace

std::optional<OpRule> find_rule(const onnx::NodeProto& node) {
    for (const auto& row : operators()) {
        for (const auto& onnx : row.onnx) {
            const bool domain = onnx.domain.empty() ? default_domain(node.domain()) : node.domain() == onnx.domain;
            if (domain && node.op_type() == onnx.op_type) return OpRule{onnx, row.id};
        }
    }
    return std::nullopt;
}

std::string opset_problem(const OpRule& rule, int64_t opset) {
    const OnnxOperator& onnx = rule.onnx;
    const std::string imports = " (the model imports opset " + std::to_string(opset) + ")";
    if (opset < onnx.since) return std::string(onnx.op_type) + " needs opset " + std::to_string(onnx.since) + imports;
    if (onnx.until != 0 && opset > onnx.until) {
        return std::string(onnx.op_type) + " is deprecated after opset " + std::to_string(onnx.until) + " (use " +
               std::string(onnx.replaced_by) + "; the model imports opset " + std::to_string(opset) + ")";
    }
    return "";
}


int64_t default_opset(const onnx::ModelProto& model, bool& found) {
    for (const auto& entry : model.opset_import()) {
        if (default_domain(entry.domain())) {
            found = true;
            return entry.version();
        }
    }
    found = false;
    return 0;
}



namespace {

// An indexing node's attributes, with ONNX's defaults where it leaves one out.
struct NodeAttributes {
    int64_t axis = 0;
    int64_t batch_dims = 0;
    std::string reduction = "none";
    std::string mode = "linear";
};

// The node's inputs as the kernel's tensors (data, indices, updates, in that order): for each, the node's input
// that is it (-1 where the operator has no such tensor, or the node leaves out an optional input) and ONNX's name
// of that input ("past_cache"), which messages use.
struct NodeInputs {
    int position[3] = {-1, -1, -1};
    std::string onnx_name[3];

    const std::string& name(const onnx::NodeProto& node, KernelInput tensor) const {
        return input_or_none(node, position[static_cast<int>(tensor)]);
    }
    // "updates \"u\"": the input as messages name it.
    std::string role(const onnx::NodeProto& node, KernelInput tensor) const {
        return onnx_name[static_cast<int>(tensor)] + " " + in_quotes(name(node, tensor));
    }
};

// The operator's inputs in `node`, or nothing with `problem` set where a required one is missing (or there are
// more than the operator takes).
std::optional<NodeInputs> node_inputs(const onnx::NodeProto& node, const OnnxOperator& onnx, std::string& problem) {
    NodeInputs out;
    bool given = node.input_size() <= static_cast<int>(onnx.inputs.size());
    size_t required = 0;
    std::vector<std::string> names;
    std::string left_out;  // the first required input the node names "" (ONNX's way to leave an input out)
    for (size_t i = 0; i < onnx.inputs.size(); ++i) {
        const OnnxInput& input = onnx.inputs[i];
        const bool present = static_cast<int>(i) < node.input_size() && !node.input(static_cast<int>(i)).empty();
        if (!input.optional) ++required;
        if (!present && !input.optional && static_cast<int>(i) < node.input_size() && left_out.empty()) {
            left_out = input.name;
        }
        given = given && (present || input.optional);
        names.push_back(std::string(input.name) + (input.optional ? " (optional)" : ""));
        const auto k = static_cast<size_t>(input.tensor);
        out.onnx_name[k] = input.name;
        if (present) out.position[k] = static_cast<int>(i);
    }
    if (!given) {
        const std::string takes = required == onnx.inputs.size() ? std::to_string(required)
                                                                 : std::to_string(required) + " to " + std::to_string(onnx.inputs.size());
        const std::string what = left_out.empty() ? "has " + std::to_string(node.input_size()) + " inputs"
                                                   : "leaves out its input " + left_out;
        problem = what + " (" + node.op_type() + " takes " + takes + ": " + listed(names) + ")";
        return std::nullopt;
    }
    return out;
}

// The attributes of `node`, checked against those its operator takes and the opsets that have each; nothing with
// `problem` set.
std::optional<NodeAttributes> read_attributes(const onnx::NodeProto& node, const OpRule& rule, int64_t opset,
                                              std::string& problem) {
    NodeAttributes out;
    out.axis = rule.onnx.default_axis;  // ONNX's default where the node leaves it out
    std::set<std::string> seen;
    for (const auto& attribute : node.attribute()) {
        const std::string& key = attribute.name();
        const auto& attributes = rule.onnx.attributes;
        if (std::find(attributes.begin(), attributes.end(), key) == attributes.end()) {
            problem = "unknown attribute " + in_quotes(key) + " (" + node.op_type() + " takes " + listed(attributes) + ")";
            return std::nullopt;
        }
        if (!seen.insert(key).second) {
            problem = "attribute " + in_quotes(key) + " is given more than once";
            return std::nullopt;
        }
        const bool is_string = key == "reduction" || key == "mode";
        if (attribute.type() != (is_string ? onnx::AttributeProto::STRING : onnx::AttributeProto::INT)) {
            problem = "attribute " + in_quotes(key) + " is not " + (is_string ? "a string" : "an integer");
            return std::nullopt;
        }
        if (key == "axis") out.axis = attribute.i();
        else if (key == "batch_dims") out.batch_dims = attribute.i();
        else if (key == "mode") out.mode = attribute.s();
        else out.reduction = attribute.s();
    }
    if (out.mode != "linear" && out.mode != "circular") {
        problem = "unknown mode " + in_quotes(out.mode) + " (linear, circular)";
        return std::nullopt;
    }
    if (seen.count("batch_dims") && opset < 12) {
        problem = "attribute \"batch_dims\" needs opset 12 (the model imports opset " + std::to_string(opset) + ")";
        return std::nullopt;
    }
    if (seen.count("reduction")) {
        const auto parsed = parse_reduction(out.reduction);
        if (!parsed) {
            problem = "unknown reduction " + in_quotes(out.reduction) + " (none, add, mul, max, min)";
            return std::nullopt;
        }
        const int64_t needs = *parsed == Reduction::Max || *parsed == Reduction::Min ? 18 : 16;
        if (*parsed != Reduction::None && opset < needs) {
            problem = "reduction " + in_quotes(out.reduction) + " needs opset " + std::to_string(needs) +
                      " (the model imports opset " + std::to_string(opset) + ")";
            return std::nullopt;
        }
    }
    return out;
}

// The run-time count of `tensor`'s leading dimension: derived by the count analysis, or given by --max-count for a
// leading dimension that is not static (lower than derived, or where none is).
std::optional<CountedDim> count_of(const NodeContext& c, const std::string& tensor) {
    const CountedDim* derived = c.counts.find(c.scope, tensor);
    if (!c.max_count || (derived && derived->axis != 0) || (!derived && !leading_dim_open(c.scope, tensor))) {
        return derived ? std::optional<CountedDim>(*derived) : std::nullopt;
    }
    CountedDim given = derived ? *derived : CountedDim{0, c.max_count->bound, {}};
    if (!derived || c.max_count->bound < derived->bound) {
        given.bound = c.max_count->bound;
        given.through.push_back(c.max_count->option);
    }
    return given;
}

// The node's tensors (data, indices, and a scatter's updates: those `inputs` has, in the node's order), each with
// a static shape but for one run-time count; those `tensors` holds already are kept. Every unbound dimension of
// them is named at once (a problem of another kind that comes first is told alone; one that comes after an
// unbound dimension waits for the next import).
bool read_tensors(const NodeContext& c, const NodeInputs& inputs, std::optional<StaticTensor> (&tensors)[3],
                  std::string& problem) {
    const std::string hint = "; give it a bound with --max-count " + c.path + "=N";
    std::vector<UnboundDim> unbound;
    for (int position = 0; position < c.node.input_size(); ++position) {
        const int* const end = inputs.position + 3;
        const int* const found = std::find(inputs.position, end, position);
        if (found == end) continue;  // an input no tensor is (an empty optional one)
        const auto i = static_cast<size_t>(found - inputs.position);
        if (tensors[i]) continue;  // given by the caller
        const std::string& name = c.node.input(position);
        std::string why;
        tensors[i] = static_tensor(c.scope, c.analysis, name, inputs.onnx_name[i], count_of(c, name), hint, unbound, why);
        if (!why.empty() && unbound.empty()) {
            problem = why;
            return false;
        }
        if (!why.empty()) break;
    }
    if (!unbound.empty()) {
        problem = unbound_message(unbound);
        return false;
    }
    return true;
}

// Why the node's element types are not a kernel's (data of a type kernelgen has, updates of data's type, int32 or
// int64 indices), or "".
std::string element_type_problem(const onnx::NodeProto& node, const NodeInputs& inputs, const StaticTensor& data,
                                 const StaticTensor& indices, const std::optional<StaticTensor>& updates) {
    if (!dtype_of_onnx(data.elem_type)) {
        return "unsupported element type: " + inputs.role(node, KernelInput::Data) + " is " + onnx_type_name(data.elem_type);
    }
    if (updates && updates->elem_type != data.elem_type) {
        return inputs.role(node, KernelInput::Updates) + " is " + onnx_type_name(updates->elem_type) + " but " +
               inputs.onnx_name[0] + " is " + onnx_type_name(data.elem_type);
    }
    if (indices.elem_type != onnx::TensorProto::INT32 && indices.elem_type != onnx::TensorProto::INT64) {
        return "unsupported index type: " + inputs.role(node, KernelInput::Indices) + " is " +
               onnx_type_name(indices.elem_type) + " (INT32 or INT64)";
    }
    return "";
}

// Indices known at import time (an initializer, a Constant, or folded) become the spec's constant "indices";
// false with `problem` set when they are constant but cannot be read.
bool add_constant_indices(const NodeContext& c, const std::string& name, const Shape& indices_shape, Json& spec,
                          std::string& problem) {
    const TensorValue* values = c.scope.value(name);
    if (!values) {
        const std::string why = unreadable_constant(c.scope, name);
        if (!why.empty()) problem = "constant indices " + in_quotes(name) + " cannot be read: " + why;
        return why.empty();
    }
    // Their own dims are the truth: a declaration (value_info, an output) that says otherwise would reshape the
    // values silently.
    const Shape dims(values->dims.begin(), values->dims.end());
    if (dims != indices_shape) {
        problem = "constant indices " + in_quotes(name) + " have dims " + format_shape(dims) + ", but the model declares " +
                  format_shape(indices_shape);
        return false;
    }
    // The value's own type too: a declaration may call float values int64 (their `ints` are then empty).
    if (values->type != onnx::TensorProto::INT32 && values->type != onnx::TensorProto::INT64) {
        problem = "constant indices " + in_quotes(name) + " cannot be read: it holds " + onnx_type_name(values->type) +
                  " values";
        return false;
    }
    // No known value holds more elements than constant indices may have.
    static_assert(kMaxFoldElements <= kMaxConstantIndices);
    // Nested as indices_shape when that adds no more arrays than there are values (no zero dimension); else flat
    // (every dimension then multiplies to the count).
    size_t at = 0;
    const bool nested = std::find(dims.begin(), dims.end(), 0) == dims.end();
    spec["indices"] = nested ? nest(values->ints, indices_shape, 0, at) : Json(values->ints);
    return true;
}

// A node's input `input` (its `role`: "data", a scatter's "updates") known at import time, as the table its kernel
// holds: an initializer of any size (read from the model's TensorProto), or a value folding knows (a Constant), of
// the type and shape the spec gives it (`declared`): its name and bytes. False, with `note` set where the tensor is
// constant but stays a parameter (stored outside the model file, too large, or not of the type and shape the model
// declares for it).
bool constant_tensor(const NodeContext& c, const std::string& name, const std::string& role, const StaticTensor& declared,
                     std::string& tensor_name, std::string& bytes_out, std::string& note) {
    const GraphScope* owner = c.scope.owner(name);
    const auto type = dtype_of_onnx(declared.elem_type);
    if (!type || *type == DType::String) return false;
    std::string problem;
    onnx::TensorProto folded;
    const onnx::TensorProto* tensor = nullptr;
    if (owner && owner->initializers.count(name)) {
        tensor = owner->initializers.at(name);
    } else if (const TensorValue* value = c.scope.value(name)) {
        write_tensor(*value, &folded);
        tensor = &folded;
    } else {
        return false;
    }
    const Shape dims(tensor->dims().begin(), tensor->dims().end());
    if (tensor->data_type() != declared.elem_type || dims != declared.shape) {
        note = "its " + role + " " + in_quotes(name) + " is constant, but stays a parameter: it holds " +
               element_type_name(tensor->data_type()) + " " + format_shape(dims) + " where the model declares " +
               element_type_name(declared.elem_type) + " " + format_shape(declared.shape);
        return false;
    }
    // Of the declared type and dims, its bytes fill data's shape exactly (tensor_bytes checks them against the dims).
    auto bytes = tensor_bytes(*tensor, max_constant_data_bytes(info(*type).bits / 8), problem);
    if (!bytes) {
        note = "its " + role + " " + in_quotes(name) + " is constant, but stays a parameter: " + problem;
        return false;
    }
    tensor_name = name;
    bytes_out = std::move(*bytes);
    return true;
}

// A gather's (or scatter's) data as its kernel's table: constant_tensor() of its data.
bool constant_table(const NodeContext& c, const NodeInputs& inputs, const StaticTensor& data, ConstantTable& table) {
    return constant_tensor(c, inputs.name(c.node, KernelInput::Data), inputs.onnx_name[0], data, table.tensor, table.bytes,
                           table.note);
}

// A com.microsoft.GatherBlockQuantized node: a Gather along axis 0 from the quantized table it holds (its data,
// scales and zero points, constants), its indices passed at run time (with a count, as a Gather's).
std::optional<Json> block_quantized_spec(const NodeContext& c, std::optional<BoundedCount>& bounded, ConstantTable& table,
                                         std::string& problem) {
    auto quantized = block_quantized_table(c.scope, c.node, problem);
    if (!quantized) return std::nullopt;
    if (!c.weights_in_kernel) {
        problem = "its table is quantized, which only a kernel that holds it dequantizes (--weights caller passes data as "
                  "a parameter: use --weights kernel)";
        return std::nullopt;
    }
    NodeInputs inputs;
    inputs.position[0] = 0;
    inputs.position[1] = 1;
    inputs.onnx_name[0] = "data";
    inputs.onnx_name[1] = "indices";
    const std::vector<std::string> roles{inputs.role(c.node, KernelInput::Data), inputs.role(c.node, KernelInput::Indices)};
    std::optional<StaticTensor> tensors[3];
    if (!read_tensors(c, inputs, tensors, problem)) return std::nullopt;
    StaticTensor& data = *tensors[0];
    StaticTensor& indices = *tensors[1];
    std::optional<StaticTensor> no_updates;
    if (data.count || indices.count) {
        bounded = place_count(Op::Gather, 0, 0, data, indices, no_updates, roles, problem);
        if (!bounded) return std::nullopt;
        if (bounded->data_count) {
            problem = "its data is a constant table: it has all its rows, and no run-time count of them";
            return std::nullopt;
        }
    }
    problem = element_type_problem(c.node, inputs, data, indices, no_updates);
    if (!problem.empty()) return std::nullopt;
    Json spec;
    spec["name"] = "";
    spec["op"] = "Gather";
    spec["dtype"] = std::string(info(quantized->dtype).name);
    spec["index_dtype"] = indices.elem_type == onnx::TensorProto::INT32 ? "int32" : "int64";
    spec["data_shape"] = quantized->data_shape;
    spec["indices_shape"] = indices.shape;
    spec["axis"] = 0;
    spec["data_file"] = "";
    spec["quantization"] = quantization_json(*quantized);
    if (bounded && bounded->count) spec["count"] = "runtime";
    if (!add_constant_indices(c, c.node.input(1), indices.shape, spec, problem)) return std::nullopt;
    if (spec.contains("indices")) {
        problem = "its indices are constant: the rows they select could be folded (a quantized table takes indices at run time)";
        return std::nullopt;
    }
    table.tensor = quantized->tensor;
    table.bytes = quantized->bytes;
    table.quantized = std::move(quantized);
    return spec;
}

std::optional<Json> node_spec_json(const NodeContext& c, std::optional<BoundedCount>& bounded, ConstantTable& table,
                                   std::string& problem) {
    problem = opset_problem(c.rule, c.opset);
    if (!problem.empty()) return std::nullopt;
    const onnx::NodeProto& node = c.node;
    if (is_gather_block_quantized(c.node)) return block_quantized_spec(c, bounded, table, problem);
    const auto inputs = node_inputs(node, c.rule.onnx, problem);
    if (!inputs) return std::nullopt;
    const auto attributes = read_attributes(node, c.rule, c.opset, problem);
    if (!attributes) return std::nullopt;
    // Data a DequantizeLinear makes of a constant table: the kernel may hold the table quantized. (ONNX 1.12's shape
    // inference does not know opset 21's DequantizeLinear: the table gives data's type and shape then.)
    std::optional<QuantizedTable> quantized;
    std::string quantized_note;
    if (c.rule.op == Op::Gather && c.weights_in_kernel) {
        quantized = dequantized_table(c.scope, c.node.input(0), attributes->axis, quantized_note);
    }
    std::optional<StaticTensor> tensors[3];
    if (!read_tensors(c, *inputs, tensors, problem)) {
        if (!quantized || tensors[0]) return std::nullopt;
        tensors[0] = StaticTensor{info(quantized->dtype).onnx_type, quantized->data_shape, std::nullopt};
        problem.clear();
        if (!read_tensors(c, *inputs, tensors, problem)) return std::nullopt;
    }
    StaticTensor& data = *tensors[0];
    // Indices a node may leave out (a cache's write_indices): 0 in every batch row, constant int64 zeros, one per row.
    const bool zero_indices = inputs->position[1] < 0;
    if (zero_indices) {
        const uint64_t batch = data.shape.empty() ? 0 : data.shape[0];
        if (batch > kMaxConstantIndices) {
            problem = "it leaves out write_indices, which would be " + std::to_string(batch) + " constant zeros, one per batch "
                      "row of " + inputs->role(node, KernelInput::Data) + " (at most " + std::to_string(kMaxConstantIndices) +
                      " constant indices)";
            return std::nullopt;
        }
        tensors[1] = StaticTensor{onnx::TensorProto::INT64, {batch}, std::nullopt};
    }
    StaticTensor& indices = *tensors[1];
    std::optional<StaticTensor>& updates = tensors[2];
    if (!info(c.rule.op).counts) {  // an operator that takes no run-time count (a cache's write)
        for (size_t k = 0; k < 3; ++k) {
            if (!tensors[k] || !tensors[k]->count) continue;
            problem = "data-dependent shape: " + inputs->role(node, static_cast<KernelInput>(k)) + " dimension " +
                      std::to_string(tensors[k]->count->axis) + " is a run-time count (through " +
                      tensors[k]->count->through.front() + "), and " + std::string(name(c.rule.op)) +
                      "'s shapes are static (every batch row of its cache is written)";
            return std::nullopt;
        }
    }
    if (data.count || indices.count || (updates && updates->count)) {
        std::vector<std::string> roles;
        for (size_t k = 0; k < 3; ++k) roles.push_back(tensors[k] ? inputs->role(node, static_cast<KernelInput>(k)) : "");
        const auto rank = static_cast<int64_t>(data.shape.size());
        const int64_t axis = attributes->axis < 0 ? attributes->axis + rank : attributes->axis;
        bounded = place_count(c.rule.op, axis, attributes->batch_dims, data, indices, updates, roles, problem);
        if (!bounded) return std::nullopt;
    }
    problem = element_type_problem(node, *inputs, data, indices, updates);
    // An operator ONNX gives int64 indices only (ONNX Runtime refuses int32 ones), though its kernel would take
    // either.
    if (problem.empty() && c.rule.onnx.int64_indices && indices.elem_type != onnx::TensorProto::INT64) {
        std::string input;  // ONNX's name of the indices input, in words ("write indices")
        for (const OnnxInput& given : c.rule.onnx.inputs) {
            if (given.tensor == KernelInput::Indices) input = std::string(given.name);
        }
        std::replace(input.begin(), input.end(), '_', ' ');
        problem = "unsupported index type: " + inputs->role(node, KernelInput::Indices) + " is " +
                  onnx_type_name(indices.elem_type) + " (" + std::string(name(c.rule.op)) + " takes INT64 " + input + ")";
    }
    if (!problem.empty()) return std::nullopt;

    Json spec;  // keys in insertion order
    spec["name"] = "";  // set by the caller
    spec["op"] = std::string(name(c.rule.op));
    spec["dtype"] = element_type_name(data.elem_type);
    spec["index_dtype"] = indices.elem_type == onnx::TensorProto::INT32 ? "int32" : "int64";
    spec["data_shape"] = data.shape;
    spec["indices_shape"] = indices.shape;
    // The operator's own keys (operators.h), in its order: its attributes (ONNX's defaults where the node leaves
    // one out, as the deprecated Scatter always does its reduction) and the shape of updates. A key added to the
    // table needs its value here: at() throws on a key it does not know, failing the operator's import tests.
    // The constant data's keys: "data_file" when the kernel holds data (named by the caller), never "data".
    const bool may_hold = c.weights_in_kernel && !(bounded && bounded->data_count);
    bool holds_data = may_hold && constant_table(c, *inputs, data, table);
    // A scatter's constant updates: the kernel holds them as well (not beside a run-time count of them, whose
    // rows a constant's fixed shape would not follow).
    std::string updates_note;
    const bool holds_updates = c.weights_in_kernel && updates && !updates->count &&
                               constant_tensor(c, inputs->name(node, KernelInput::Updates), inputs->onnx_name[2], *updates,
                                               table.updates_tensor, table.updates_bytes, updates_note);
    if (!updates_note.empty()) table.note += (table.note.empty() ? "" : "; ") + updates_note;
    // Data a DequantizeLinear makes of a constant table: the kernel holds the table quantized.
    if (may_hold && !holds_data && c.rule.op == Op::Gather) {
        table.quantized = std::move(quantized);
        if (!quantized_note.empty()) table.note = quantized_note;
        if (table.quantized && (table.quantized->data_shape != data.shape || table.quantized->dtype != dtype_of_onnx(data.elem_type))) {
            table.note = "its data comes from " + table.quantized->source + ", which stays outside the kernel: the model "
                         "declares its output " + element_type_name(data.elem_type) + " " + format_shape(data.shape);
            table.quantized.reset();
        }
        if (table.quantized) {
            if (add_constant_indices(c, node.input(1), indices.shape, spec, problem) && spec.contains("indices")) {
                table.note = "its data comes from " + table.quantized->source + ", which stays outside the kernel: its "
                             "indices are constant (the rows they select could be folded)";
                table.quantized.reset();
            }
            spec.erase("indices");
            problem.clear();
        }
        if (table.quantized) {
            table.tensor = table.quantized->tensor;
            table.bytes = table.quantized->bytes;
            holds_data = true;
        }
    }
    const Json own{{"axis", attributes->axis}, {"batch_dims", attributes->batch_dims}, {"reduction", attributes->reduction},
                   {"mode", attributes->mode}, {"updates_shape", updates ? Json(updates->shape) : Json()}, {"data", Json()},
                   {"data_file", holds_data ? Json("") : Json()}, {"updates", Json()},
                   {"updates_file", holds_updates ? Json("") : Json()},
                   {"quantization", table.quantized ? quantization_json(*table.quantized) : Json()}};
    for (const auto& key : info(c.rule.op).keys) {
        const Json& value = own.at(std::string(key.name));
        if (!value.is_null()) spec[std::string(key.name)] = value;
    }
    if (bounded && bounded->count) spec["count"] = "runtime";
    if (bounded && bounded->leads == "data") spec["count_leads"] = "data";
    if (bounded && bounded->data_count) spec["data_count"] = "runtime";
    if (zero_indices) {
        spec["indices"] = Json(std::vector<int64_t>(indices.shape[0], 0));
    } else if (!add_constant_indices(c, inputs->name(node, KernelInput::Indices), indices.shape, spec, problem)) {
        return std::nullopt;
    }
    return spec;
}

// The tensors the kernel of `spec` holds, as files the spec names.
HeldTables held_tables(const Json& spec, ConstantTable& table) {
    HeldTables held;
    if (table.quantized) {
        held = quantized_held_tables(*table.quantized);
    } else if (spec.contains("data_file")) {
        const auto descr = npy_descr(*parse_dtype(spec["dtype"].get<std::string>()));
        held.files.push_back({"data", {"data_file"}, npy_header(*descr, spec["data_shape"].get<Shape>()) + table.bytes, table.tensor});
    }
    if (spec.contains("updates_file")) {
        const auto descr = npy_descr(*parse_dtype(spec["dtype"].get<std::string>()));
        held.files.push_back({"updates", {"updates_file"},
                              npy_header(*descr, spec["updates_shape"].get<Shape>()) + table.updates_bytes, table.updates_tensor});
    }
    return held;
}

}  // namespace

Result<Json> node_spec(const NodeContext& c, std::optional<BoundedCount>& bounded, HeldTables& held) {
    ConstantTable table;
    std::string problem;
    auto spec = node_spec_json(c, bounded, table, problem);
    if (spec) held = held_tables(*spec, table);
    held.note = table.note;
    if (!spec) return Problem{problem};
    return std::move(*spec);
}

}  // namespace kernelgen
