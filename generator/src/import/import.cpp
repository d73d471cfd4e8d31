#include "kernelgen/import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "kernelgen/version.h"
#include "common/c_names.h"
#include "common/kernel_identifiers.h"
#include "import/constant_folding.h"
#include "import/count_bounds.h"
#include "import/model_analysis.h"

namespace kernelgen {

namespace {

using nlohmann::json;
using Json = nlohmann::ordered_json;  // spec files and the report keep their keys in the README's order

// --- the operators import reads ---------------------------------------------------------------------------

// A node import reads: the ONNX operator it is (a row of operators.h) and the kernelgen operator it becomes.
struct OpRule {
    const OnnxOperator& onnx;
    Op op;
};

// Why the model's opset does not have the rule's operator, or "" when it does.
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

// "data, indices, updates": names as a node's message lists them.
template <typename Names>
std::string listed(const Names& names) {
    std::string out;
    for (const auto& item : names) out += (out.empty() ? "" : ", ") + std::string(item);
    return out;
}

std::optional<OpRule> find_rule(const onnx::NodeProto& node) {
    if (!default_domain(node.domain())) return std::nullopt;
    for (const auto& row : operators()) {
        for (const auto& onnx : row.onnx) {
            if (node.op_type() == onnx.op_type) return OpRule{onnx, row.id};
        }
    }
    return std::nullopt;
}

// ONNX element types -> kernelgen dtype names (all 16 that both know).
std::optional<std::string> dtype_name(int32_t type) {
    switch (type) {
        case onnx::TensorProto::FLOAT: return "float32";
        case onnx::TensorProto::DOUBLE: return "float64";
        case onnx::TensorProto::FLOAT16: return "float16";
        case onnx::TensorProto::BFLOAT16: return "bfloat16";
        case onnx::TensorProto::INT8: return "int8";
        case onnx::TensorProto::INT16: return "int16";
        case onnx::TensorProto::INT32: return "int32";
        case onnx::TensorProto::INT64: return "int64";
        case onnx::TensorProto::UINT8: return "uint8";
        case onnx::TensorProto::UINT16: return "uint16";
        case onnx::TensorProto::UINT32: return "uint32";
        case onnx::TensorProto::UINT64: return "uint64";
        case onnx::TensorProto::BOOL: return "bool";
        case onnx::TensorProto::COMPLEX64: return "complex64";
        case onnx::TensorProto::COMPLEX128: return "complex128";
        case onnx::TensorProto::STRING: return "string";
        default: return std::nullopt;
    }
}

std::string type_text(int32_t type) {
    if (onnx::TensorProto_DataType_IsValid(type)) return onnx::TensorProto_DataType_Name(type);
    return "element type " + std::to_string(type);
}

// --- names ----------------------------------------------------------------------------------------------

// "GatherElements" -> "gather_elements", "GatherND" -> "gather_nd".
std::string snake_case(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto ch = static_cast<unsigned char>(text[i]);
        if (std::isupper(ch) && i > 0 && std::islower(static_cast<unsigned char>(text[i - 1]))) out += '_';
        out += static_cast<char>(std::tolower(ch));
    }
    return out;
}

// Letters, digits and single '_' only, no '_' at either end.
std::string identifier_chars(const std::string& text) {
    std::string out;
    for (char ch : text) {
        const bool keep = std::isalnum(static_cast<unsigned char>(ch)) && static_cast<unsigned char>(ch) < 0x80;
        const char next = keep ? ch : '_';
        if (next == '_' && (out.empty() || out.back() == '_')) continue;
        out += next;
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out;
}

// `text` cut to at most `length` characters, without a '_' left at the end.
std::string cut(std::string text, size_t length) {
    if (text.size() > length) text.resize(length);
    while (!text.empty() && text.back() == '_') text.pop_back();
    return text;
}

// `text` cut to its last `length` characters at most, starting with a letter.
std::string cut_front(std::string text, size_t length) {
    if (text.size() > length) text = text.substr(text.size() - length);
    const size_t letter = text.find_first_not_of("_0123456789");
    return letter == std::string::npos ? "" : text.substr(letter);
}

// Gives each kernel a valid name that shares no header identifier with another's, even upper-cased.
class NameAllocator {
public:
    explicit NameAllocator(std::string prefix) : prefix_(std::move(prefix)) {}

    // `scope_prefix` names the graph that holds the node ("" for the main graph, "If_0_then_" ...).
    std::string allocate(const std::string& scope_prefix, const onnx::NodeProto& node, size_t position) {
        std::string own = identifier_chars(scope_prefix + node.name());
        if (identifier_chars(node.name()).empty()) {
            own = identifier_chars(scope_prefix + snake_case(node.op_type()) + "_" + std::to_string(position));
        }
        // A node of a subgraph with a name too long loses the beginning of the holding node's name rather than
        // the end of its own, the more telling part (room is left for "node_" and "_NN").
        constexpr size_t kRoom = kMaxNameLength - 10;
        if (!scope_prefix.empty() && prefix_.size() + own.size() > kRoom) own = cut_front(own, kRoom - prefix_.size());
        std::string base = identifier_chars(prefix_ + own);
        if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "node_" + base;
        // A name C or kernelgen reserves (a keyword, a C library name, "..._t", "mem...", "kernelgen...")
        // gets "node" added behind or in front, whichever makes it valid.
        const std::vector<std::string> variants{base, base + "_node", "node_" + base, "node_" + base + "_node"};
        // Then "_2", "_3", ... while the name clashes with an earlier kernel's identifiers.
        for (uint64_t number = 1;; ++number) {
            const std::string suffix = number == 1 ? "" : "_" + std::to_string(number);
            for (const auto& variant : variants) {
                const std::string candidate = cut(variant, kMaxNameLength - suffix.size()) + suffix;
                if (name_problem(candidate)) continue;
                if (clashes(candidate)) break;
                take(candidate);
                return candidate;
            }
        }
    }

private:
    static std::vector<std::string> identifiers(const std::string& name) {
        KernelSpec probe;
        probe.name = name;
        probe.op = Op::ScatterND;  // the scatters' headers define the most identifiers
        std::vector<std::string> out = header_identifiers(probe);
        for (auto& identifier : out) identifier = macro_case(identifier);
        return out;
    }

    bool clashes(const std::string& name) const {
        const auto ids = identifiers(name);
        return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return used_.count(id) > 0; });
    }

    void take(const std::string& name) {
        for (const auto& id : identifiers(name)) used_.insert(id);
    }

    std::string prefix_;
    std::set<std::string> used_;
};

// The names of the .npy files that hold large folded values: "<model stem>.<node path as letters, digits and
// '_'>.npy", made unique with "_2", "_3", ...
class FileNames {
public:
    explicit FileNames(std::string stem) : stem_(std::move(stem)) {}

    std::string allocate(const std::string& path) {
        const std::string base = stem_ + "." + cut(identifier_chars(path), kMaxNameLength);
        for (uint64_t number = 1;; ++number) {
            std::string name = base + (number == 1 ? "" : "_" + std::to_string(number)) + ".npy";
            if (used_.insert(name).second) return name;
        }
    }

private:
    std::string stem_;
    std::set<std::string> used_;
};

// --- the spec file ------------------------------------------------------------------------------------------

// A JSON value on one line, with a space after each comma as in the specs of specs/.
std::string compact(const Json& value) {
    if (!value.is_array()) return value.dump(-1, ' ', false, json::error_handler_t::replace);
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + compact(value[i]);
    return out + "]";
}

// One key per line in the order given; nested constant indices one row per line.
std::string spec_text(const Json& spec) {
    std::string out = "{\n";
    size_t i = 0;
    for (const auto& item : spec.items()) {
        out += "  " + in_quotes(item.key()) + ": ";
        const Json& value = item.value();
        if (item.key() == "indices" && value.is_array() && !value.empty() && value[0].is_array()) {
            out += "[\n";
            for (size_t row = 0; row < value.size(); ++row) {
                out += "    " + compact(value[row]) + (row + 1 < value.size() ? ",\n" : "\n");
            }
            out += "  ]";
        } else {
            out += compact(value);
        }
        out += ++i < spec.size() ? ",\n" : "\n";
    }
    return out + "}\n";
}

// `values` (row-major) nested as `shape`.
Json nest(const std::vector<int64_t>& values, const Shape& shape, size_t axis, size_t& at) {
    if (axis == shape.size()) return values[at++];
    Json array = Json::array();
    for (uint64_t i = 0; i < shape[axis]; ++i) array.push_back(nest(values, shape, axis + 1, at));
    return array;
}

// --- shapes and types ----------------------------------------------------------------------------------------

// A static tensor type; a dimension that is a run-time count has its bound in `shape`, and `count` says which.
struct StaticTensor {
    int32_t elem_type = 0;
    Shape shape;
    std::optional<CountedDim> count;
};

// The node that makes the number of elements of `name` depend on run-time values (NonZero, NonMaxSuppression,
// Compress, Unique, TopK), found by walking back through the producers, or nothing.
std::optional<std::string> data_dependent_source(const GraphScope& scope, const std::string& name) {
    static const std::set<std::string> data_dependent{"NonZero", "NonMaxSuppression", "Compress", "Unique", "TopK"};
    std::vector<std::pair<const GraphScope*, std::string>> pending{{&scope, name}};
    std::set<std::pair<const GraphScope*, std::string>> seen;
    while (!pending.empty() && seen.size() < 4096) {
        auto [at, current] = pending.back();
        pending.pop_back();
        const GraphScope* owner = at->owner(current);
        if (!owner || !seen.insert({owner, current}).second) continue;
        auto producer = owner->producers.find(current);
        if (producer == owner->producers.end()) continue;
        const onnx::NodeProto& node = owner->graph->node(producer->second);
        if (data_dependent.count(node.op_type()) && !(node.op_type() == "TopK" && node.input_size() > 1 && owner->value(node.input(1)))) {
            return node.op_type() + " node " + in_quotes(node.name());
        }
        if (owner->value(current)) continue;  // a known value has a known size
        for (const auto& input : node.input()) {
            if (!input.empty()) pending.emplace_back(owner, input);
        }
    }
    return std::nullopt;
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
            if (auto source = data_dependent_source(scope, tensor)) {
                problem = "data-dependent shape: " + where + " depends on run-time values (through " + *source + ")" +
                          (d == 0 ? hint : "");
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

// --- one node ----------------------------------------------------------------------------------------------

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

// Whether the leading dimension of `tensor` is not static (a run-time count --max-count may bound).
bool leading_dim_open(const GraphScope& scope, const std::string& tensor) {
    const onnx::TypeProto* type = scope.type(tensor);
    if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return false;
    const auto& shape = type->tensor_type().shape();
    return shape.dim_size() > 0 && !shape.dim(0).has_dim_value();
}

// A --max-count for one node: the option as given ("--max-count NODE=N") and N.
struct MaxCount {
    std::string option;
    uint64_t bound = 0;
};

// Where a kernel's run-time count stands (docs/spec-format.md, "Run-time counts"): on the leading dimension of
// indices (and of a scatter's updates, which follow them), or of data for a Gather along an axis >= 1. The
// tensors with a count are those `static_tensor` gave one; `axis` is normalized. Sets the shapes to the bound.
std::optional<BoundedCount> place_count(Op op, int64_t axis, StaticTensor& data, StaticTensor& indices,
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
    auto made = [](const StaticTensor& from, const std::string& leads) {
        return BoundedCount{from.count->bound, leads, from.count->through};
    };
    const std::string two_counts = "both " + roles[0] + " and " + roles[1] + " have a run-time count (a kernel takes one)";
    if (op == Op::Gather) {
        if (counted_data && counted_indices) return refuse(two_counts);
        if (counted_indices) return made(indices, "indices");
        if (axis == 0) {
            return refuse(roles[0] + " has a run-time count on the gathered axis 0: its indices would be checked against "
                          "the bound, not the count");
        }
        return made(data, "data");
    }
    if (is_scatter(op)) {
        if (counted_data) return refuse(roles[0] + " has a run-time count, and a scatter's output has data's shape");
        if (!counted_indices || !counted_updates) {
            return refuse(roles[counted_indices ? 2 : 1] + " has a fixed leading dimension, but " +
                          roles[counted_indices ? 1 : 2] + " a run-time count");
        }
    } else if (!counted_indices) {
        return refuse(roles[0] + " has a run-time count, and its indices a fixed one");
    } else if (counted_data && (op != Op::GatherElements || axis == 0)) {
        return refuse(two_counts);
    }
    // The count's two tensors share it: the lower bound holds for both (GatherElements' data keeps its own as the
    // size of its buffer).
    const StaticTensor& other = counted_updates ? *updates : data;
    const StaticTensor& lowest = other.count && other.count->bound < indices.count->bound ? other : indices;
    BoundedCount bounded = made(lowest, "indices");
    indices.shape[0] = bounded.bound;
    if (updates) updates->shape[0] = bounded.bound;
    return bounded;
}

// The spec of one node (keys in the README's order), or nothing with `problem` set. A node with a run-time count
// gets its bound in `bounded`.
std::optional<Json> node_spec(const onnx::NodeProto& node, const OpRule& rule, int64_t opset, const GraphScope& scope,
                              const ModelAnalysis& analysis, const CountBounds& counts,
                              const std::optional<MaxCount>& max_count, const std::string& node_key,
                              std::optional<BoundedCount>& bounded, std::string& problem) {
    problem = opset_problem(rule, opset);
    if (!problem.empty()) return std::nullopt;
    const std::vector<std::string> inputs = onnx_inputs(rule.op);
    const auto expected_inputs = static_cast<int>(inputs.size());
    bool inputs_given = node.input_size() == expected_inputs;
    for (int i = 0; inputs_given && i < node.input_size(); ++i) inputs_given = !node.input(i).empty();
    if (!inputs_given) {
        problem = "has " + std::to_string(node.input_size()) + " inputs (" + node.op_type() + " takes " +
                  std::to_string(expected_inputs) + ": " + listed(inputs) + ")";
        return std::nullopt;
    }

    // Attributes, with ONNX's defaults.
    int64_t axis = 0, batch_dims = 0;
    std::string reduction = "none";
    std::set<std::string> seen;
    for (const auto& attribute : node.attribute()) {
        const std::string& key = attribute.name();
        const auto& attributes = rule.onnx.attributes;
        if (std::find(attributes.begin(), attributes.end(), key) == attributes.end()) {
            problem =
                "unknown attribute " + in_quotes(key) + " (" + node.op_type() + " takes " + listed(attributes) + ")";
            return std::nullopt;
        }
        if (!seen.insert(key).second) {
            problem = "attribute " + in_quotes(key) + " is given more than once";
            return std::nullopt;
        }
        const bool is_string = key == "reduction";
        if (attribute.type() != (is_string ? onnx::AttributeProto::STRING : onnx::AttributeProto::INT)) {
            problem = "attribute " + in_quotes(key) + " is not " + (is_string ? "a string" : "an integer");
            return std::nullopt;
        }
        if (key == "axis") axis = attribute.i();
        else if (key == "batch_dims") batch_dims = attribute.i();
        else reduction = attribute.s();
    }
    if (seen.count("batch_dims") && opset < 12) {
        problem = "attribute \"batch_dims\" needs opset 12 (the model imports opset " + std::to_string(opset) + ")";
        return std::nullopt;
    }
    if (seen.count("reduction")) {
        const auto parsed = parse_reduction(reduction);
        if (!parsed) {
            problem = "unknown reduction " + in_quotes(reduction) + " (none, add, mul, max, min)";
            return std::nullopt;
        }
        const int64_t needs = *parsed == Reduction::Max || *parsed == Reduction::Min ? 18 : 16;
        if (*parsed != Reduction::None && opset < needs) {
            problem = "reduction " + in_quotes(reduction) + " needs opset " + std::to_string(needs) +
                      " (the model imports opset " + std::to_string(opset) + ")";
            return std::nullopt;
        }
    }

    // Shapes and element types, which must all be static, but for one run-time count: derived, or given by
    // --max-count for a leading dimension that is not static (lower than derived, or where none is).
    auto count_of = [&](const std::string& tensor) -> std::optional<CountedDim> {
        const CountedDim* derived = counts.find(scope, tensor);
        if (!max_count || (derived && derived->axis != 0) || (!derived && !leading_dim_open(scope, tensor))) {
            return derived ? std::optional<CountedDim>(*derived) : std::nullopt;
        }
        CountedDim given = derived ? *derived : CountedDim{0, max_count->bound, {}};
        if (!derived || max_count->bound < derived->bound) {
            given.bound = max_count->bound;
            given.through.push_back(max_count->option);
        }
        return given;
    };
    const std::string hint = "; give it a bound with --max-count " + node_key + "=N";
    std::vector<std::string> roles;
    for (int i = 0; i < expected_inputs; ++i) roles.push_back(inputs[static_cast<size_t>(i)] + " " + in_quotes(node.input(i)));
    // Every unbound dimension of the three tensors is named at once (a problem of another kind that comes first is
    // told alone; one that comes after an unbound dimension waits for the next import).
    std::vector<UnboundDim> unbound;
    std::optional<StaticTensor> tensors[3];
    for (int i = 0; i < expected_inputs; ++i) {
        std::string why;
        tensors[i] = static_tensor(scope, analysis, node.input(i), inputs[static_cast<size_t>(i)], count_of(node.input(i)),
                                   hint, unbound, why);
        if (!why.empty() && unbound.empty()) {
            problem = why;
            return std::nullopt;
        }
        if (!why.empty()) break;
    }
    if (!unbound.empty()) {
        problem = unbound_message(unbound);
        return std::nullopt;
    }
    auto& data = tensors[0];
    auto& indices = tensors[1];
    std::optional<StaticTensor>& updates = tensors[2];
    if (data->count || indices->count || (updates && updates->count)) {
        const auto rank = static_cast<int64_t>(data->shape.size());
        const int64_t positive_axis = axis < 0 ? axis + rank : axis;
        bounded = place_count(rule.op, positive_axis, *data, *indices, updates, roles, problem);
        if (!bounded) return std::nullopt;
    }
    const auto dtype = dtype_name(data->elem_type);
    if (!dtype) {
        problem = "unsupported element type: data " + in_quotes(node.input(0)) + " is " + type_text(data->elem_type);
        return std::nullopt;
    }
    if (updates && updates->elem_type != data->elem_type) {
        problem = "updates " + in_quotes(node.input(2)) + " is " + type_text(updates->elem_type) + " but data is " +
                  type_text(data->elem_type);
        return std::nullopt;
    }
    if (indices->elem_type != onnx::TensorProto::INT32 && indices->elem_type != onnx::TensorProto::INT64) {
        problem = "unsupported index type: indices " + in_quotes(node.input(1)) + " is " + type_text(indices->elem_type) +
                  " (INT32 or INT64)";
        return std::nullopt;
    }

    Json ordered;  // keys in insertion order
    ordered["name"] = "";  // set by the caller
    ordered["op"] = std::string(name(rule.op));
    ordered["dtype"] = *dtype;
    ordered["index_dtype"] = indices->elem_type == onnx::TensorProto::INT32 ? "int32" : "int64";
    ordered["data_shape"] = data->shape;
    ordered["indices_shape"] = indices->shape;
    // The operator's own keys (operators.h), in its order: its attributes (ONNX's defaults where the node leaves
    // one out, as the deprecated Scatter always does its reduction) and the shape of updates. A key added to the
    // table needs its value here: at() throws on a key it does not know, failing the operator's import tests.
    const Json own{{"axis", axis}, {"batch_dims", batch_dims}, {"reduction", reduction},
                   {"updates_shape", updates ? Json(updates->shape) : Json()}};
    for (const auto& key : info(rule.op).keys) ordered[std::string(key.name)] = own.at(std::string(key.name));
    if (bounded) {
        ordered["count"] = "runtime";
        if (bounded->leads == "data") ordered["count_leads"] = "data";
    }
    if (const TensorValue* values = scope.value(node.input(1))) {
        // Known at import time (an initializer, a Constant, or folded): constant indices. Their own dims are the
        // truth: a declaration (value_info, an output) that says otherwise would reshape the values silently.
        const Shape dims(values->dims.begin(), values->dims.end());
        if (dims != indices->shape) {
            problem = "constant indices " + in_quotes(node.input(1)) + " have dims " + format_shape(dims) +
                      ", but the model declares " + format_shape(indices->shape);
            return std::nullopt;
        }
        // The value's own type too: a declaration may call float values int64 (their `ints` are then empty).
        if (values->type != onnx::TensorProto::INT32 && values->type != onnx::TensorProto::INT64) {
            problem = "constant indices " + in_quotes(node.input(1)) + " cannot be read: it holds " +
                      type_text(values->type) + " values";
            return std::nullopt;
        }
        // No known value holds more elements than constant indices may have.
        static_assert(kMaxFoldElements <= kMaxConstantIndices);
        // Nested as indices_shape when that adds no more arrays than there are values (no zero dimension);
        // else flat (every dimension then multiplies to the count).
        size_t at = 0;
        const bool nested = std::find(dims.begin(), dims.end(), 0) == dims.end();
        ordered["indices"] = nested ? nest(values->ints, indices->shape, 0, at) : Json(values->ints);
    } else {
        const std::string why = unreadable_constant(scope, node.input(1));
        if (!why.empty()) {
            problem = "constant indices " + in_quotes(node.input(1)) + " cannot be read: " + why;
            return std::nullopt;
        }
    }
    return ordered;
}

// --- PyTorch's index_put_(accumulate=True) ------------------------------------------------------------------

// Whether `name` is all zeros: a value known at import time, or (its shape unknown) the output of a ConstantOfShape
// whose value is 0, its default.
bool all_zeros(const GraphScope& scope, const std::string& name) {
    auto zero = [](const TensorValue& value) {
        return std::all_of(value.ints.begin(), value.ints.end(), [](int64_t v) { return v == 0; }) &&
               std::all_of(value.reals.begin(), value.reals.end(), [](double v) { return v == 0.0; });
    };
    if (const TensorValue* value = scope.value(name)) return zero(*value);
    const GraphScope* owner = scope.owner(name);
    if (!owner) return false;
    auto producer = owner->producers.find(name);
    if (producer == owner->producers.end()) return false;
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    if (node.op_type() != "ConstantOfShape" || !default_domain(node.domain())) return false;
    for (const auto& attribute : node.attribute()) {
        if (attribute.name() != "value") continue;
        std::string problem;
        const auto value = attribute.has_t() ? read_tensor(attribute.t(), problem) : std::nullopt;
        return value && value->count() == 1 && zero(*value);
    }
    return true;
}

// PyTorch (1.13) exports `x.index_put_(idx, v, accumulate=True)` as Add(x, ScatterND(ConstantOfShape(Shape(x)),
// idx, v)), a ScatterND without a reduction: at duplicate indices it keeps one update where PyTorch adds them all.
// For a ScatterND node of that form (no reduction, data all zeros, its result an input of an Add of its graph):
// that Add.
std::optional<NodeRef> index_put_accumulate(const GraphScope& scope, const onnx::NodeProto& node) {
    if (node.op_type() != "ScatterND" || node.input_size() != 3 || node.output_size() < 1 || node.output(0).empty()) {
        return std::nullopt;
    }
    for (const auto& attribute : node.attribute()) {
        if (attribute.name() == "reduction" && attribute.s() != "none") return std::nullopt;
    }
    if (!all_zeros(scope, node.input(0))) return std::nullopt;
    for (int n = 0; n < scope.graph->node_size(); ++n) {
        const onnx::NodeProto& add = scope.graph->node(n);
        if (add.op_type() != "Add" || !default_domain(add.domain())) continue;
        for (const auto& input : add.input()) {
            if (input == node.output(0)) return NodeRef{add.name(), add.op_type(), static_cast<size_t>(n), scope.path};
        }
    }
    return std::nullopt;
}

std::string strip_file_prefix(const std::string& message, const std::string& file) {
    return message.rfind(file + ": ", 0) == 0 ? message.substr(file.size() + 2) : message;
}

// --- the walk over every graph ----------------------------------------------------------------------------------

struct Importer {
    const ModelAnalysis& analysis;
    const CountBounds& counts;
    const ImportOptions& options;
    ResourceGuard& guard;
    FileNames npy_names;  // the .npy files of large folded values
    std::set<std::string> max_counts_used;  // the NODE of each --max-count that names an indexing node
    // The NODE of each --accumulate that names an indexing node: "" when it is index_put_'s ScatterND, else why not.
    std::map<std::string, std::string> accumulate_seen;
    int64_t opset;
    const std::string& file;
    NameAllocator names;
    ImportResult& result;
    std::vector<KernelSpec> parsed;
    Json entries = Json::array();

    // Every indexing node of `scope`, each followed by those of its bodies (graph order). `not_run` says why the
    // scope never runs (a branch its If does not take), or is empty.
    void walk(const GraphScope& scope, const std::string& not_run) {
        for (int n = 0; n < scope.graph->node_size(); ++n) {
            const onnx::NodeProto& node = scope.graph->node(n);
            const auto position = static_cast<size_t>(n);
            if (const auto rule = find_rule(node)) visit(scope, node, position, *rule, not_run);
            const auto taken = taken_branch(scope, node, n);
            const auto keys = scope.body_keys.find(n);
            if (keys == scope.body_keys.end()) continue;
            for (const auto& key : keys->second) {
                std::string reason = not_run;
                if (reason.empty() && taken && key != *taken) {
                    reason = "not run: it is in the " + branch_name(key) + " branch of " +
                             NodeRef{node.name(), node.op_type(), position, scope.path}.str() +
                             ", whose condition is always " + (*taken == "then_branch" ? "true" : "false") +
                             " with these shapes";
                }
                walk(*scope.children.at({n, key}), reason);
            }
        }
    }

    void visit(const GraphScope& scope, const onnx::NodeProto& node, size_t position, const OpRule& rule,
               const std::string& not_run) {
        guard.check();
        const NodeRef ref{node.name(), node.op_type(), position, scope.path};
        Json entry;
        entry["path"] = ref.path();
        entry["graph"] = scope.path;
        entry["position"] = position;
        entry["name"] = node.name();
        entry["op"] = node.op_type();
        auto skip = [&](const std::string& why) {
            entry["skipped"] = why;
            result.skipped.push_back({ref, why});
            entries.push_back(std::move(entry));
        };
        // --accumulate names the node by its path (its name, for a node of the main graph).
        std::string accumulate_key;
        for (const auto& key : {ref.path(), node.name()}) {
            if (accumulate_key.empty() && options.accumulate.count(key)) accumulate_key = key;
        }
        auto accumulate_refused = [&](const std::string& why) {
            if (!accumulate_key.empty()) accumulate_seen[accumulate_key] = ref.str() + " " + why;
        };
        const std::string not_the_form = "is not a ScatterND without a reduction that writes into zeros and whose result an "
                                         "Add adds (the form of PyTorch's index_put_(accumulate=True))";
        if (!not_run.empty()) {
            accumulate_refused("is " + not_run);  // "is not run: it is in the else branch of ..."
            entry["not_run"] = not_run;
            result.not_run.push_back({ref, not_run});
            entries.push_back(std::move(entry));
            return;
        }
        // Folded: its value is known, no kernel needed (the opset rule still applies: an invalid node is not).
        const TensorValue* value = node.output_size() > 0 ? scope.value(node.output(0)) : nullptr;
        if (value && opset_problem(rule, opset).empty()) {
            accumulate_refused("is folded (its value is known at import time): it has no kernel");
            FoldedNode folded{ref, dtype_name(value->type).value_or(type_text(value->type)), value->dims, nullptr, "", ""};
            if (value->count() <= kMaxReportedElements) {
                folded.value = value_json(*value);
                entry["folded"] = folded.value;
            } else {
                folded.file = npy_names.allocate(ref.path());
                folded.npy = npy_file(*value);
                entry["folded_file"] = folded.file;
            }
            entry["dtype"] = folded.dtype;
            entry["shape"] = folded.shape;
            result.folded.push_back(std::move(folded));
            entries.push_back(std::move(entry));
            return;
        }
        // --max-count names the node by its path (its name, for a node of the main graph).
        std::optional<MaxCount> max_count;
        for (const auto& key : {ref.path(), node.name()}) {
            auto given = options.max_counts.find(key);
            if (given == options.max_counts.end() || max_count) continue;
            max_counts_used.insert(key);
            max_count = MaxCount{"--max-count " + key + "=" + std::to_string(given->second), given->second};
        }
        // PyTorch's index_put_(accumulate=True): a note, or with --accumulate the reduction PyTorch computes.
        const std::optional<NodeRef> adder = index_put_accumulate(scope, node);
        const bool accumulate = adder && !accumulate_key.empty();
        if (accumulate) accumulate_seen[accumulate_key] = "";
        if (!adder) accumulate_refused(not_the_form);
        if (adder) {
            entry["accumulate"] = {{"add", adder->path()}, {"applied", accumulate}};
            if (!accumulate) {
                result.notes.push_back(ref.str() + " writes into zeros without a reduction and " + adder->str() +
                                       " adds the result, as PyTorch exports index_put_(accumulate=True): at duplicate "
                                       "indices the model keeps one update where PyTorch adds them all. The spec does "
                                       "as the model does; --accumulate " + ref.path() +
                                       " gives it reduction \"add\", as PyTorch computes");
            }
        }
        std::string problem;
        std::optional<BoundedCount> bounded;
        auto spec = node_spec(node, rule, opset, scope, analysis, counts, max_count, ref.path(), bounded, problem);
        if (spec && accumulate) (*spec)["reduction"] = "add";
        if (max_count && spec) {
            if (!bounded) {
                result.notes.push_back(max_count->option + ": " + ref.str() + " has a fixed count; the option is not used");
            } else if (max_count->bound > bounded->bound) {
                result.notes.push_back(max_count->option + ": the count of " + ref.str() + " is at most " +
                                       std::to_string(bounded->bound) + " already (" + bounded->through.front() +
                                       "), which stays its bound");
            }
        }
        if (spec) {
            // Checked by kernelgen's own reader under a scratch name first, so a refused node takes no name.
            std::vector<Diagnostic> diagnostics;
            (*spec)["name"] = "imported_kernel";
            if (parse_spec_text(spec->dump(), file, diagnostics).empty()) {
                problem = "kernelgen refuses it: " + strip_file_prefix(diagnostics.front().str(), file);
                spec.reset();
            }
        }
        if (!spec) return skip(problem);
        ImportedKernel kernel;
        kernel.node = ref;
        kernel.name = names.allocate(scope.name_prefix, node, position);
        (*spec)["name"] = kernel.name;
        kernel.spec_text = spec_text(*spec);
        const std::string spec_file = kernel.name + ".json";
        std::vector<Diagnostic> diagnostics;
        auto kernels = parse_spec_text(kernel.spec_text, spec_file, diagnostics);
        if (kernels.size() != 1) {
            // The name allocator only makes valid names; reaching this is a bug in import.
            return skip("internal error: the imported spec is refused: " +
                        (diagnostics.empty() ? std::string("no kernel") : diagnostics.back().str()));
        }
        kernel.spec = kernels.front();
        parsed.push_back(kernel.spec);
        entry["spec"] = spec_file;
        entry["kernel"] = kernel.name;
        if (bounded) {
            entry["bounded"] = {{"bound", bounded->bound}, {"count_leads", bounded->leads}, {"through", bounded->through}};
            kernel.bounded = std::move(bounded);
        }
        entries.push_back(std::move(entry));
        result.kernels.push_back(std::move(kernel));
    }
};

std::string file_name_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The report (see the README): the model, the dimensions bound, the counts, and one entry per indexing node.
std::string make_report(const ImportResult& result, const ModelAnalysis& analysis, const ImportOptions& options,
                        const std::string& file, Json entries) {
    Json report;
    report[kImportReportKey] = 1;
    report["model"] = file_name_of(file);
    report["generator"] = std::string("kernelgen ") + KERNELGEN_VERSION_STRING;
    // Made from sorted maps in one step: ordered_json finds a key by a linear search, so one insertion per key
    // would take quadratic time for many --dim options.
    report["dims"] = Json(analysis.bindings);
    std::map<std::string, std::vector<int64_t>> inputs;
    for (const auto& input : options.inputs) inputs.emplace(input.name, input.dims);
    report["inputs"] = Json(inputs);
    report["inference"] = analysis.inference_ran ? Json("ran") : Json(analysis.inference_note);
    report["rounds"] = analysis.rounds;
    report["summary"] = {{"specs", result.kernels.size()},
                         {"specs_in_subgraphs", result.kernels_in_subgraphs()},
                         {"bounded", result.bounded_kernels()},
                         {"folded", result.folded.size()},
                         {"skipped", result.skipped.size()},
                         {"not_run", result.not_run.size()}};
    report["nodes"] = std::move(entries);
    return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string NodeRef::str() const {
    return "node " + in_quotes(name) + " (" + op_type + ", #" + std::to_string(position) + (graph.empty() ? "" : " in " + graph) + ")";
}

std::string NodeRef::path() const {
    const std::string label = name.empty() ? op_type + "#" + std::to_string(position) : name;
    return graph.empty() ? label : graph + "/" + label;
}

std::optional<std::pair<std::string, int64_t>> parse_dim_option(const std::string& text, std::string& problem) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
        problem = "--dim takes NAME=N (a dimension's name and its value), got " + in_quotes(text);
        return std::nullopt;
    }
    const auto value = parse_decimal(text.substr(equals + 1), 0, kMaxElements);
    if (!value) {
        problem = "--dim " + text + ": the value must be a whole number from 0 to 2^40";
        return std::nullopt;
    }
    return std::make_pair(text.substr(0, equals), static_cast<int64_t>(*value));
}

std::optional<InputShape> parse_input_option(const std::string& text, std::string& problem) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
        problem = "--input takes NAME=SHAPE (an input's name and its shape, as 1x16000, or [] for rank 0), got " +
                  in_quotes(text);
        return std::nullopt;
    }
    InputShape input;
    input.name = text.substr(0, equals);
    input.text = "--input " + text;
    const std::string shape = text.substr(equals + 1);
    if (shape == "[]" || shape == "scalar") return input;
    size_t at = 0;
    while (true) {
        const size_t end = std::min(shape.find('x', at), shape.size());
        const auto dim = parse_decimal(shape.substr(at, end - at), 0, kMaxElements);
        if (!dim || input.dims.size() == kMaxRank) {
            problem = "--input " + text + ": SHAPE is dimensions from 0 to 2^40 joined by 'x' (1x16000), at most " +
                      std::to_string(kMaxRank) + " of them, or [] for rank 0";
            return std::nullopt;
        }
        input.dims.push_back(static_cast<int64_t>(*dim));
        if (end == shape.size()) break;
        at = end + 1;
    }
    return input;
}

std::optional<uint64_t> parse_limit_option(const std::string& option, const std::string& text, const std::string& unit,
                                           uint64_t most, std::string& problem) {
    const auto value = parse_decimal(text, 1, most);
    if (!value) {
        problem = option + " " + text + ": the limit must be a whole number of " + unit + " from 1 to " + std::to_string(most);
    }
    return value;
}

std::optional<std::pair<std::string, uint64_t>> parse_max_count_option(const std::string& text, std::string& problem) {
    const size_t equals = text.rfind('=');
    if (equals == std::string::npos || equals == 0) {
        problem = "--max-count takes NODE=N (an indexing node's name and the most rows its run-time count has), got " +
                  in_quotes(text);
        return std::nullopt;
    }
    const auto value = parse_decimal(text.substr(equals + 1), 1, kMaxCountBound);
    if (!value) {
        problem = "--max-count " + text + ": the bound must be a whole number from 1 to " + std::to_string(kMaxCountBound) +
                  " (a kernel's count is a uint32_t)";
        return std::nullopt;
    }
    return std::make_pair(text.substr(0, equals), *value);
}

std::optional<std::string> prefix_problem(const std::string& prefix) {
    if (prefix.empty()) return std::nullopt;
    const bool identifier = std::isalpha(static_cast<unsigned char>(prefix[0])) &&
                            std::all_of(prefix.begin(), prefix.end(), [](char ch) {
                                return (std::isalnum(static_cast<unsigned char>(ch)) && static_cast<unsigned char>(ch) < 0x80) || ch == '_';
                            });
    if (!identifier) return "prefix " + in_quotes(prefix) + " is not the start of a C identifier (a letter, then letters, digits and '_')";
    if (prefix.find("__") != std::string::npos) return "prefix " + in_quotes(prefix) + " contains \"__\"";
    constexpr size_t kMaxPrefix = 32;
    if (prefix.size() > kMaxPrefix) {
        return "prefix " + in_quotes(prefix) + " is " + std::to_string(prefix.size()) + " characters long (at most " +
               std::to_string(kMaxPrefix) + ")";
    }
    // The worst case for the rules on beginnings ("mem" or "str" and a lowercase letter, "kernelgen...").
    if (auto problem = name_problem(prefix + "x")) return "prefix " + in_quotes(prefix) + " makes invalid names: " + *problem;
    return std::nullopt;
}

size_t ImportResult::bounded_kernels() const {
    return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(),
                                             [](const ImportedKernel& kernel) { return kernel.bounded.has_value(); }));
}

size_t ImportResult::kernels_in_subgraphs() const {
    return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(),
                                             [](const ImportedKernel& kernel) { return !kernel.node.graph.empty(); }));
}

namespace {

// The import of a parsed model, into `result` (see import_model).
void import_parsed(onnx::ModelProto model, int64_t opset, const std::string& file, const ImportOptions& options,
                   ResourceGuard& guard, ImportResult& result) {
    const ModelAnalysis analysis = analyze_model(std::move(model), opset, options, guard, result.usage_errors, result.notes);
    if (!result.usage_errors.empty()) return;
    result.inference_ran = analysis.inference_ran;
    result.inference_note = analysis.inference_note;
    result.fold_rounds = analysis.rounds;

    const CountBounds counts(*analysis.main, opset, guard);
    Importer importer{analysis, counts, options, guard, FileNames(std::filesystem::path(file).stem().string()), {}, {},
                      opset, file, NameAllocator(options.prefix), result, {}, Json::array()};
    importer.walk(*analysis.main, "");
    for (const auto& [node, bound] : options.max_counts) {
        if (importer.max_counts_used.count(node)) continue;
        result.usage_errors.push_back("--max-count " + node + "=" + std::to_string(bound) + ": the model has no indexing node " +
                                      in_quotes(node) + " (name a Gather, GatherElements, GatherND, ScatterND or "
                                      "ScatterElements node by its name, or by its path in a body)");
    }
    for (const auto& node : options.accumulate) {
        const auto seen = importer.accumulate_seen.find(node);
        if (seen != importer.accumulate_seen.end() && seen->second.empty()) continue;
        result.usage_errors.push_back("--accumulate " + node + ": " +
                                      (seen == importer.accumulate_seen.end()
                                           ? "the model has no indexing node " + in_quotes(node) +
                                                 " (name the ScatterND node of an index_put_(accumulate=True) by its "
                                                 "name, or by its path in a body)"
                                           : seen->second));
    }
    if (!result.usage_errors.empty()) {
        result.kernels.clear();
        result.folded.clear();
        result.skipped.clear();
        result.not_run.clear();
        return;
    }
    std::vector<Diagnostic> clashes;
    check_unique_names(importer.parsed, clashes);
    for (const auto& clash : clashes) result.diagnostics.push_back({file, "", "internal error: " + clash.str()});
    if (!result.diagnostics.empty()) {
        result.kernels.clear();
        return;
    }
    result.report = make_report(result, analysis, options, file, std::move(importer.entries));
}

}  // namespace

ImportResult import_model(const std::string& bytes, const std::string& file, const ImportOptions& options) {
    ImportResult result;
    auto fatal = [&](const std::string& message) {
        result.diagnostics.push_back({file, "", message});
        return result;
    };
    if (auto problem = prefix_problem(options.prefix)) return fatal(*problem);
    if (bytes.empty()) return fatal("the file is empty (expected an ONNX model)");
    onnx::ModelProto model;
    if (!model.ParseFromString(bytes)) {
        return fatal("not an ONNX model: the file does not parse as an ONNX ModelProto (protobuf)");
    }
    if (model.ir_version() <= 0 || !model.has_graph()) {
        return fatal(std::string("not an ONNX model: ") + (model.ir_version() <= 0 ? "no ir_version" : "no graph") +
                     " (the file parses as protobuf, but is not an ONNX ModelProto)");
    }
    bool has_opset = false;
    const int64_t opset = default_opset(model, has_opset);
    if (!has_opset) return fatal("not a valid ONNX model: it imports no opset of the ai.onnx domain");

    ResourceGuard guard(options.limits);
    try {
        import_parsed(std::move(model), opset, file, options, guard, result);
    } catch (const LimitExceeded& exceeded) {
        result = ImportResult();
        return fatal(exceeded.what());
    } catch (const std::bad_alloc&) {
        result = ImportResult();
        return fatal(ResourceGuard::allocation_failed());
    }
    return result;
}


ImportResult import_model_file(const std::string& path, const ImportOptions& options) {
    namespace fs = std::filesystem;
    ImportResult result;
    auto fatal = [&](const std::string& message) {
        result.diagnostics.push_back({path, "", message});
        return result;
    };
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status)) return fatal("no such file (expected an ONNX model)");
    if (fs::is_directory(status)) return fatal("is a folder, not a file (expected an ONNX model)");
    if (!fs::is_regular_file(status)) return fatal("is not a regular file (expected an ONNX model)");
    const uint64_t size = fs::file_size(path, error);
    if (error) return fatal("cannot read the file: " + error.message());
    if (size > kMaxModelBytes) return fatal("the file is larger than 2 GiB (protobuf's limit for an ONNX model)");
    std::ifstream in(path, std::ios::binary);
    if (!in) return fatal("cannot read the file: " + std::string(std::strerror(errno)));
    std::string bytes(static_cast<size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (static_cast<uint64_t>(in.gcount()) != size) return fatal("cannot read the file (it changed while being read?)");
    return import_model(bytes, path, options);
}

std::vector<OutputFile> spec_files(const ImportResult& result) {
    std::vector<OutputFile> files;
    for (const auto& kernel : result.kernels) files.push_back({kernel.name + ".json", kernel.spec_text});
    return files;
}

std::string report_file_name(const std::string& model_path) {
    return std::filesystem::path(model_path).stem().string() + ".import.json";
}

std::vector<OutputFile> import_outputs(const ImportResult& result, const std::string& model_path) {
    if (result.indexing_nodes() == 0) return {};
    std::vector<OutputFile> files = spec_files(result);
    for (const auto& folded : result.folded) {
        if (!folded.file.empty()) files.push_back({folded.file, folded.npy});
    }
    files.push_back({report_file_name(model_path), result.report});
    return files;
}

std::string import_summary(const ImportResult& result, const std::string& model_path) {
    if (result.indexing_nodes() == 0) return model_path + ": no indexing nodes; nothing was written";
    const size_t bounded = result.bounded_kernels();
    return model_path + ": " + std::to_string(result.kernels.size()) + (result.kernels.size() == 1 ? " spec" : " specs") +
           " (" + std::to_string(result.kernels_in_subgraphs()) + " in subgraphs" +
           (bounded ? ", " + std::to_string(bounded) + " bounded" : std::string()) + "), " +
           std::to_string(result.folded.size()) + " folded, " +
           std::to_string(result.skipped.size()) + " skipped" +
           (result.not_run.empty() ? std::string() : ", " + std::to_string(result.not_run.size()) + " not run");
}

}  // namespace kernelgen
