#include "import/node/tensors.h"

#include <algorithm>
#include <set>

#include "import/counts/value_ranges.h"
#include "import/operators/onnx_operators.h"

namespace kernelgen {

namespace {

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
            return terminal_safe(node.op_type()) + " " + in_quotes(node_label(node, static_cast<size_t>(producer->second)));
        }
        name = *unranked;
    }
    return std::nullopt;
}

// What makes the number of elements of `name` unknown at import time, found by walking back through the
// producers: a node that makes it depend on run-time values (NonZero, NonMaxSuppression, Compress, Unique, TopK
// with a run-time k; `run_time` is then true), or a Shape or Size of a tensor whose rank inference lost (the
// length of a shape is a rank, never a run-time count). Nothing when neither is found. A Resize by run-time sizes
// on the way is named with a cause found among its sizes.
std::optional<std::string> unknown_size_cause(const GraphScope& scope, const std::string& name, bool& run_time) {
    struct Pending {
        const GraphScope* at;
        std::string name;
        std::string resized;  // "the sizes of Resize ...", when reached through them
    };
    std::vector<Pending> pending{{&scope, name, ""}};
    std::set<std::pair<const GraphScope*, std::string>> seen;
    std::optional<std::string> lost_rank;
    while (!pending.empty() && seen.size() < 4096) {
        const Pending current = pending.back();
        pending.pop_back();
        const GraphScope* owner = current.at->owner(current.name);
        if (!owner || !seen.insert({owner, current.name}).second) continue;
        auto producer = owner->producers.find(current.name);
        if (producer == owner->producers.end()) continue;
        const onnx::NodeProto& node = owner->graph->node(producer->second);
        if (makes_count(*owner, node)) {
            run_time = true;
            const std::string cause = node.op_type() + " node " + in_quotes(node.name());
            return current.resized.empty() ? cause : current.resized + ", made at run time from " + cause;
        }
        if (owner->value(current.name)) continue;  // a known value has a known size
        // A Resize by sizes computed at run time: its output's dimensions are those values (Mask R-CNN's paste of
        // each mask at its box's size), so only they are followed.
        if (node.op_type() == "Resize" && default_domain(node.domain()) && node.input_size() > 3 && !node.input(3).empty() &&
            !owner->value(node.input(3))) {
            pending.push_back({owner, node.input(3), current.resized.empty() ? "the sizes of Resize " +
                               in_quotes(node_label(node, static_cast<size_t>(producer->second))) : current.resized});
            continue;
        }
        const OnnxOperatorRule* rule = find_operator(node);
        if (rule && rule->needs == FoldNeeds::first_shape && node.input_size() > 0 && !has_rank(owner->type(node.input(0)))) {
            if (!lost_rank) {
                lost_rank = terminal_safe(node.op_type()) + " " + in_quotes(node_label(node, static_cast<size_t>(producer->second))) +
                            " of " + in_quotes(node.input(0)) + ", whose rank is unknown";
                if (const auto stopped = rank_lost_at(*owner, node.input(0))) lost_rank = *lost_rank + " from " + *stopped + " on";
            }
            continue;  // its values may still be counts, but its length is a rank
        }
        for (const auto& input : node.input()) {
            if (!input.empty()) pending.push_back({owner, input, current.resized});
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

// The bound of dimension `d` of `tensor`, made at run time: the most its values allow (counts::extent_at_most), or
// --max-extent's where that is lower or none is found.
std::optional<BoundedCount::Count> extent_bound(const GraphScope& scope, const std::string& tensor, size_t d,
                                                const std::optional<MaxCount>& max_extent) {
    const auto derived = counts::extent_at_most(scope, tensor, d);
    if (max_extent && (!derived || max_extent->bound < derived->bound)) return BoundedCount::Count{max_extent->bound, {max_extent->option}};
    if (derived) return BoundedCount::Count{derived->bound, derived->through};
    return std::nullopt;
}

// The static type of `tensor` (the node's input `role`) in `scope`, or the problem that it has none. A dimension
// that is `count` takes its bound; `hint` is added to the message of a data-dependent leading dimension without
// one. A dimension left unbound (a --dim or --input fixes it) is added to `unbound`, and the others are still looked
// at: nothing is returned then; another problem ends the look. A dimension beyond the leading one made at run time
// from values (through a Resize's sizes), or that inference could not follow and the model does not name, is an
// extent the kernel takes at run time (StaticTensor::runtime_dims) where `extents` allows it and a bound is found
// (extent_bound); else a run-time one's problem ends with `extent_hint`.
Result<std::optional<StaticTensor>> static_tensor(const GraphScope& scope, const ModelAnalysis& analysis,
                                                  const std::string& tensor, const std::string& role,
                                                  const std::optional<CountedDim>& count, const std::string& hint,
                                                  std::vector<UnboundDim>& unbound, bool extents,
                                                  const std::optional<MaxCount>& max_extent, const std::string& extent_hint) {
    const std::string what = role + " " + in_quotes(tensor);
    const onnx::TypeProto* type = scope.type(tensor);
    if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) {
        // A shape input longer than kMaxRank makes a rank no kernel takes (and that import never infers).
        if (const auto length = rank_input_length(scope, tensor); length && *length > kMaxRank) {
            return Problem{what + " has a rank of at least " + std::to_string(*length) + ", the length of its producer's shape input "
                           "(at most " + std::to_string(kMaxRank) + ")"};
        }
    }
    if (!type || !type->has_tensor_type()) {
        return Problem{"the type and shape of " + what + " are unknown (shape inference gave none and the model declares none)"};
    }
    const auto& tensor_type = type->tensor_type();
    // An initializer's dims are the model's own: one below 0 makes the model invalid, whatever --dim says.
    if (const GraphScope* owner = scope.owner(tensor)) {
        for (const auto& initializer : owner->graph->initializer()) {
            if (initializer.name() != tensor) continue;
            for (int d = 0; d < initializer.dims_size(); ++d) {
                if (initializer.dims(d) < 0) {
                    return Problem{"invalid shape: " + what + " is an initializer whose dimension " + std::to_string(d) +
                                   " is " + std::to_string(initializer.dims(d)) + " (the model is invalid)"};
                }
            }
        }
    }
    StaticTensor out;
    out.elem_type = tensor_type.elem_type();
    if (!tensor_type.has_shape()) {
        std::string problem = "dynamic shape: " + what + " has an unknown rank";
        if (const auto stopped = rank_lost_at(scope, tensor)) problem += " (shape inference gave none from " + *stopped + " on)";
        return Problem{problem};
    }
    if (static_cast<size_t>(tensor_type.shape().dim_size()) > kMaxRank) {
        return Problem{what + " has rank " + std::to_string(tensor_type.shape().dim_size()) + " (at most " +
                       std::to_string(kMaxRank) + ")"};
    }
    const size_t unbound_before = unbound.size();
    // A dimension beyond the leading one the kernel takes at run time (StaticTensor::runtime_dims), where a bound is
    // found for it: false where none is.
    auto take_extent = [&](int d) {
        if (!extents || d == 0) return false;
        const auto bound = extent_bound(scope, tensor, static_cast<size_t>(d), max_extent);
        if (!bound) return false;
        out.shape.push_back(bound->bound);
        out.runtime_dims.push_back(static_cast<size_t>(d));
        out.extent_bounds.push_back(*bound);
        return true;
    };
    for (int d = 0; d < tensor_type.shape().dim_size(); ++d) {
        const auto& dim = tensor_type.shape().dim(d);
        const std::string where = what + " dimension " + std::to_string(d);
        if (!dim.has_dim_value() && count && count->axis == static_cast<size_t>(d)) {
            if (count->bound > kMaxElements) {
                return Problem{"data-dependent shape: " + where + " is a run-time count of at most " + std::to_string(count->bound) +
                               " (through " + count->through.front() + "), more than a dimension may have (at most 2^40)"};
            }
            out.shape.push_back(count->bound);
            out.count = count;
            continue;
        }
        if (!dim.has_dim_value()) {
            bool run_time = false;
            if (auto cause = unknown_size_cause(scope, tensor, run_time)) {
                if (!run_time) return Problem{"dynamic shape: " + where + " could not be inferred: it comes from " + *cause};
                if (take_extent(d)) continue;
                return Problem{"data-dependent shape: " + where + " depends on run-time values (through " + *cause + ")" +
                               (d == 0 ? hint : extent_hint)};
            }
            // A name ONNX's inference made up (unk__8) is nowhere in the model: the dimension has no name.
            const bool named = dim.has_dim_param() && analysis.declared_dim_params.count(dim.dim_param());
            if (!named && take_extent(d)) continue;  // made of values inference could not follow
            unbound.push_back({what, d, named ? dim.dim_param() : ""});
            continue;
        }
        if (dim.dim_value() < 0) return Problem{"invalid shape: " + where + " is " + std::to_string(dim.dim_value())};
        if (static_cast<uint64_t>(dim.dim_value()) > kMaxElements) {
            return Problem{where + " is " + std::to_string(dim.dim_value()) + " (at most 2^40)"};
        }
        out.shape.push_back(static_cast<uint64_t>(dim.dim_value()));
    }
    if (unbound.size() > unbound_before) return std::optional<StaticTensor>();
    return std::optional<StaticTensor>(out);
}

// Whether the leading dimension of `tensor` is not static (a run-time count --max-count may bound).
bool leading_dim_open(const GraphScope& scope, const std::string& tensor) {
    const onnx::TypeProto* type = scope.type(tensor);
    if (!has_rank(type)) return false;
    const auto& shape = type->tensor_type().shape();
    return shape.dim_size() > 0 && !shape.dim(0).has_dim_value();
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

}  // namespace

Result<Ok> read_tensors(const NodeContext& c, const NodeInputs& inputs, std::optional<StaticTensor> (&tensors)[3]) {
    const std::string hint = "; give it a bound with --max-count " + c.path + "=N";
    const std::string extent_hint = "; give its extents a bound with --max-extent " + c.path + "=N, which a Gather's kernel takes at run time";
    const std::string no_extent = "; a kernel takes a run-time size only as a count of rows import can bound, or as a Gather's data extent";
    std::vector<UnboundDim> unbound;
    for (int position = 0; position < c.node.input_size(); ++position) {
        const int* const end = inputs.position + 3;
        const int* const found = std::find(inputs.position, end, position);
        if (found == end) continue;  // an input no tensor is (an empty optional one)
        const auto i = static_cast<size_t>(found - inputs.position);
        if (tensors[i]) continue;  // given by the caller
        const std::string& name = c.node.input(position);
        // A Gather's data may have extents made at run time beyond its leading dimension (--max-extent bounds them).
        const bool extents = i == 0 && c.rule.op == Op::Gather;
        auto tensor = static_tensor(c.scope, c.analysis, name, inputs.onnx_name[i], count_of(c, name), hint, unbound,
                                    extents, c.max_extent, extents ? extent_hint : no_extent);
        if (!tensor && unbound.empty()) return Problem{tensor.problem()};
        if (!tensor) break;
        tensors[i] = tensor.take();
    }
    if (!unbound.empty()) return Problem{unbound_message(unbound)};
    return ok();
}

Result<BoundedCount> place_count(Op op, int64_t axis, int64_t batch_dims, StaticTensor& data, StaticTensor& indices,
                                 std::optional<StaticTensor>& updates, const std::vector<std::string>& roles) {
    StaticTensor* const tensors[] = {&data, &indices, updates ? &*updates : nullptr};
    for (size_t i = 0; i < 3; ++i) {
        if (tensors[i] && tensors[i]->count && tensors[i]->count->axis != 0) {
            return Problem{"data-dependent shape: " + roles[i] + " dimension " + std::to_string(tensors[i]->count->axis) +
                           " is a run-time count (through " + tensors[i]->count->through.front() +
                           "), and a kernel can count only a leading dimension"};
        }
    }
    const bool counted_data = data.count.has_value(), counted_indices = indices.count.has_value();
    const bool counted_updates = updates && updates->count;
    auto refuse = [](const std::string& why) { return Problem{"data-dependent shape: " + why}; };
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

}  // namespace kernelgen
