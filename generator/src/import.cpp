#include "kernelgen/import.h"

#include "child_process.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace kernelgen {

namespace {

using nlohmann::json;
using Json = nlohmann::ordered_json;  // spec files keep their keys in the README's order

std::string in_quotes(const std::string& text) {
    return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

// --- the operators import reads ---------------------------------------------------------------------------

struct OpRule {
    const char* onnx_op;          // the node's op_type
    Op op;                        // the kernelgen operator it becomes
    std::vector<std::string> attributes;  // the attributes the operator takes
    int64_t since;                // the first ai.onnx opset that has the operator
    int64_t until;                // the last one, or 0: every later opset
    const char* replaced_by;      // after `until`: the operator that replaces it
};

// Scatter (opsets 9-10, deprecated since 11) is ScatterElements without a reduction: same inputs, same axis
// attribute, same result, so it imports as ScatterElements. A model whose opset lacks the operator is not a
// valid model: ONNX's checker and ONNX Runtime refuse it, and so does import, node by node.
const std::vector<OpRule>& op_rules() {
    static const std::vector<OpRule> rules{
        {"Gather", Op::Gather, {"axis"}, 1, 0, nullptr},
        {"GatherElements", Op::GatherElements, {"axis"}, 11, 0, nullptr},
        {"GatherND", Op::GatherND, {"batch_dims"}, 11, 0, nullptr},
        {"ScatterND", Op::ScatterND, {"reduction"}, 11, 0, nullptr},
        {"ScatterElements", Op::ScatterElements, {"axis", "reduction"}, 11, 0, nullptr},
        {"Scatter", Op::ScatterElements, {"axis"}, 9, 10, "ScatterElements"},
    };
    return rules;
}

// Why the model's opset does not have the rule's operator, or "" when it does.
std::string opset_problem(const OpRule& rule, int64_t opset) {
    const std::string imports = " (the model imports opset " + std::to_string(opset) + ")";
    if (opset < rule.since) return std::string(rule.onnx_op) + " needs opset " + std::to_string(rule.since) + imports;
    if (rule.until != 0 && opset > rule.until) {
        return std::string(rule.onnx_op) + " is deprecated after opset " + std::to_string(rule.until) +
               " (use " + rule.replaced_by + "; the model imports opset " + std::to_string(opset) + ")";
    }
    return "";
}

const OpRule* find_rule(const onnx::NodeProto& node) {
    if (!node.domain().empty() && node.domain() != "ai.onnx") return nullptr;
    for (const auto& rule : op_rules()) {
        if (node.op_type() == rule.onnx_op) return &rule;
    }
    return nullptr;
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

// Gives each kernel a valid name that shares no header identifier with another's, even upper-cased.
class NameAllocator {
public:
    explicit NameAllocator(std::string prefix) : prefix_(std::move(prefix)) {}

    std::string allocate(const onnx::NodeProto& node, size_t position) {
        std::string base = identifier_chars(prefix_ + node.name());
        if (node.name().empty() || base == identifier_chars(prefix_)) {
            base = identifier_chars(prefix_ + snake_case(node.op_type()) + "_" + std::to_string(position));
        }
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

// A static tensor type, or why it is not one.
struct StaticTensor {
    int32_t elem_type = 0;
    Shape shape;
};

std::string shape_problem_prefix(const std::string& role, const std::string& tensor) {
    return role + " " + in_quotes(tensor);
}

// What is known of each tensor: the model's declarations (graph inputs, outputs, value_info, initializers,
// Constant nodes), or shape inference's results where it ran.
class TensorTypes {
public:
    // The declarations of `graph`, after those added before (the first declaration of a name wins).
    void add_graph(const onnx::GraphProto& graph) {
        for (const auto& info : graph.input()) add(info);
        for (const auto& info : graph.output()) add(info);
        for (const auto& info : graph.value_info()) add(info);
        for (const auto& tensor : graph.initializer()) add_tensor(tensor.name(), tensor);
        for (const auto& node : graph.node()) {
            if (node.op_type() != "Constant" || node.output_size() != 1) continue;
            if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
            for (const auto& attribute : node.attribute()) {
                if (attribute.name() == "value" && attribute.has_t()) add_tensor(node.output(0), attribute.t());
            }
        }
    }

    // The static type of `tensor` (the node's input `role`), or the reason it has none.
    std::optional<StaticTensor> find(const std::string& tensor, const std::string& role, std::string& problem) const {
        const std::string what = shape_problem_prefix(role, tensor);
        auto it = types_.find(tensor);
        if (it == types_.end() || !it->second->has_tensor_type()) {
            problem = "the type and shape of " + what +
                      " are unknown (shape inference gave none and the model declares none)";
            return std::nullopt;
        }
        const auto& type = it->second->tensor_type();
        StaticTensor out;
        out.elem_type = type.elem_type();
        if (!type.has_shape()) {
            problem = "dynamic shape: " + what + " has an unknown rank";
            return std::nullopt;
        }
        if (static_cast<size_t>(type.shape().dim_size()) > kMaxRank) {
            problem = what + " has rank " + std::to_string(type.shape().dim_size()) + " (at most " +
                      std::to_string(kMaxRank) + ")";
            return std::nullopt;
        }
        for (int d = 0; d < type.shape().dim_size(); ++d) {
            const auto& dim = type.shape().dim(d);
            const std::string where = what + " dimension " + std::to_string(d);
            if (dim.has_dim_param()) {
                problem = "dynamic shape: " + where + " is " + in_quotes(dim.dim_param());
                return std::nullopt;
            }
            if (!dim.has_dim_value()) {
                problem = "dynamic shape: " + where + " is unknown";
                return std::nullopt;
            }
            if (dim.dim_value() < 0) {
                problem = "invalid shape: " + where + " is " + std::to_string(dim.dim_value());
                return std::nullopt;
            }
            if (static_cast<uint64_t>(dim.dim_value()) > kMaxElements) {
                problem = what + " dimension " + std::to_string(d) + " is " + std::to_string(dim.dim_value()) +
                          " (at most 2^40)";
                return std::nullopt;
            }
            out.shape.push_back(static_cast<uint64_t>(dim.dim_value()));
        }
        return out;
    }

    void add(const onnx::ValueInfoProto& info) {
        if (info.has_type()) types_.emplace(info.name(), &info.type());
    }

private:
    void add_tensor(const std::string& name, const onnx::TensorProto& tensor) {
        onnx::TypeProto& type = owned_.emplace_back();
        type.mutable_tensor_type()->set_elem_type(tensor.data_type());
        auto* shape = type.mutable_tensor_type()->mutable_shape();
        for (int64_t dim : tensor.dims()) shape->add_dim()->set_dim_value(dim);
        types_.emplace(name, &type);
    }

    std::map<std::string, const onnx::TypeProto*> types_;
    std::deque<onnx::TypeProto> owned_;
};

// --- constant indices ------------------------------------------------------------------------------------------

// The values of an int32 or int64 tensor: raw_data (little-endian) or the typed field. Nothing, with a reason,
// when they cannot be read.
std::optional<std::vector<int64_t>> int_values(const onnx::TensorProto& tensor, std::string& problem) {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
        problem = "its values are stored in an external file";
        return std::nullopt;
    }
    const bool int32 = tensor.data_type() == onnx::TensorProto::INT32;
    if (!int32 && tensor.data_type() != onnx::TensorProto::INT64) {
        problem = "it holds " + type_text(tensor.data_type()) + " values";
        return std::nullopt;
    }
    uint64_t count = 1;
    for (int64_t dim : tensor.dims()) {
        if (dim < 0) {
            problem = "its dimension " + std::to_string(dim) + " is negative";
            return std::nullopt;
        }
        if (dim == 0) count = 0;
        else if (count > 0 && (static_cast<uint64_t>(dim) > kMaxConstantIndices || count * static_cast<uint64_t>(dim) > kMaxConstantIndices)) {
            problem = "it holds more than " + std::to_string(kMaxConstantIndices) + " values";
            return std::nullopt;
        }
        else count *= static_cast<uint64_t>(dim);
    }
    std::vector<int64_t> values;
    const size_t width = int32 ? 4 : 8;
    if (!tensor.raw_data().empty()) {
        const std::string& raw = tensor.raw_data();
        if (raw.size() != count * width) {
            problem = "its raw_data has " + std::to_string(raw.size()) + " bytes for " + std::to_string(count) + " values";
            return std::nullopt;
        }
        for (size_t i = 0; i < count; ++i) {
            uint64_t bits = 0;
            for (size_t b = 0; b < width; ++b) bits |= uint64_t{static_cast<unsigned char>(raw[i * width + b])} << (8 * b);
            values.push_back(int32 ? int64_t{static_cast<int32_t>(static_cast<uint32_t>(bits))} : static_cast<int64_t>(bits));
        }
    } else if (int32) {
        values.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    } else {
        values.assign(tensor.int64_data().begin(), tensor.int64_data().end());
    }
    if (values.size() != count) {
        problem = "it has " + std::to_string(values.size()) + " values for " + std::to_string(count) + " elements";
        return std::nullopt;
    }
    return values;
}

// Tensors whose values the model fixes: initializers that are not graph inputs (an initializer that is also
// an input is only a default, which the caller may override at run time), and Constant nodes' outputs.
class ConstantTensors {
public:
    explicit ConstantTensors(const onnx::GraphProto& graph) {
        std::set<std::string> inputs;
        for (const auto& input : graph.input()) inputs.insert(input.name());
        for (const auto& tensor : graph.initializer()) {
            if (!inputs.count(tensor.name())) tensors_.emplace(tensor.name(), &tensor);
        }
        for (const auto& node : graph.node()) {
            if (node.op_type() != "Constant" || node.output_size() != 1) continue;
            if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
            for (const auto& attribute : node.attribute()) {
                if (attribute.name() == "value" && attribute.has_t()) {
                    tensors_.emplace(node.output(0), &attribute.t());
                } else if ((attribute.name() == "value_int" && attribute.type() == onnx::AttributeProto::INT) ||
                           (attribute.name() == "value_ints" && attribute.type() == onnx::AttributeProto::INTS)) {
                    onnx::TensorProto& tensor = owned_.emplace_back();
                    tensor.set_data_type(onnx::TensorProto::INT64);
                    if (attribute.name() == "value_int") {
                        tensor.add_int64_data(attribute.i());
                    } else {
                        tensor.add_dims(attribute.ints_size());
                        for (int64_t value : attribute.ints()) tensor.add_int64_data(value);
                    }
                    tensors_.emplace(node.output(0), &tensor);
                }
            }
        }
    }

    const onnx::TensorProto* find(const std::string& name) const {
        auto it = tensors_.find(name);
        return it == tensors_.end() ? nullptr : it->second;
    }

private:
    std::map<std::string, const onnx::TensorProto*> tensors_;
    std::deque<onnx::TensorProto> owned_;
};

// --- one node ----------------------------------------------------------------------------------------------

int64_t default_opset(const onnx::ModelProto& model, bool& found) {
    for (const auto& entry : model.opset_import()) {
        if (entry.domain().empty() || entry.domain() == "ai.onnx") {
            found = true;
            return entry.version();
        }
    }
    found = false;
    return 0;
}

// The spec of one node (keys in the README's order), or nothing with `problem` set.
std::optional<Json> node_spec(const onnx::NodeProto& node, const OpRule& rule, int64_t opset, const TensorTypes& types,
                              const ConstantTensors& constants, std::string& problem) {
    problem = opset_problem(rule, opset);
    if (!problem.empty()) return std::nullopt;
    const bool scatter = is_scatter(rule.op);
    const int expected_inputs = scatter ? 3 : 2;
    const char* input_names = scatter ? "data, indices, updates" : "data, indices";
    bool inputs_given = node.input_size() == expected_inputs;
    for (int i = 0; inputs_given && i < node.input_size(); ++i) inputs_given = !node.input(i).empty();
    if (!inputs_given) {
        problem = "has " + std::to_string(node.input_size()) + " inputs (" + node.op_type() + " takes " +
                  std::to_string(expected_inputs) + ": " + input_names + ")";
        return std::nullopt;
    }

    // Attributes, with ONNX's defaults.
    int64_t axis = 0, batch_dims = 0;
    std::string reduction = "none";
    std::set<std::string> seen;
    for (const auto& attribute : node.attribute()) {
        const std::string& key = attribute.name();
        if (std::find(rule.attributes.begin(), rule.attributes.end(), key) == rule.attributes.end()) {
            std::string allowed;
            for (const auto& a : rule.attributes) allowed += (allowed.empty() ? "" : ", ") + a;
            problem = "unknown attribute " + in_quotes(key) + " (" + node.op_type() + " takes " + allowed + ")";
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

    // Shapes and element types, which must all be static.
    auto data = types.find(node.input(0), "data", problem);
    if (!data) return std::nullopt;
    auto indices = types.find(node.input(1), "indices", problem);
    if (!indices) return std::nullopt;
    std::optional<StaticTensor> updates;
    if (scatter) {
        updates = types.find(node.input(2), "updates", problem);
        if (!updates) return std::nullopt;
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
    if (rule.op == Op::GatherND) ordered["batch_dims"] = batch_dims;
    else if (rule.op != Op::ScatterND) ordered["axis"] = axis;
    if (scatter) ordered["reduction"] = reduction;
    if (updates) ordered["updates_shape"] = updates->shape;
    if (const onnx::TensorProto* tensor = constants.find(node.input(1))) {
        std::string why;
        auto values = int_values(*tensor, why);
        if (!values) {
            problem = "constant indices " + in_quotes(node.input(1)) + " cannot be read: " + why;
            return std::nullopt;
        }
        // The constant's own dims are the truth: a declaration (value_info, an output) that says otherwise
        // would reshape the values silently.
        const Shape dims(tensor->dims().begin(), tensor->dims().end());  // int_values refused negative ones
        if (dims != indices->shape) {
            problem = "constant indices " + in_quotes(node.input(1)) + " have dims " + format_shape(dims) +
                      ", but the model declares " + format_shape(indices->shape);
            return std::nullopt;
        }
        // Nested as indices_shape when that adds no more arrays than there are values (no zero dimension);
        // else flat (every dimension then multiplies to values->size(), checked by int_values).
        size_t at = 0;
        const bool nested = std::find(dims.begin(), dims.end(), 0) == dims.end();
        ordered["indices"] = nested ? nest(*values, indices->shape, 0, at) : Json(*values);
    }
    return ordered;
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
    if (type->has_sequence_type()) return sanitize_type(type->mutable_sequence_type()->mutable_elem_type());
    if (type->has_optional_type()) return sanitize_type(type->mutable_optional_type()->mutable_elem_type());
    if (type->has_map_type()) return sanitize_type(type->mutable_map_type()->mutable_value_type());
    if (!type->has_tensor_type() || !type->tensor_type().has_shape()) return;
    auto* shape = type->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() > kMaxInferenceRank) {
        type->mutable_tensor_type()->clear_shape();
        return;
    }
    for (auto& dim : *shape->mutable_dim()) {
        if (dim.has_dim_value() && (dim.dim_value() < 0 || static_cast<uint64_t>(dim.dim_value()) > kMaxElements)) {
            dim.clear_dim_value();
        }
    }
}

// Whether an initializer's dims are ones inference may read its values by: none negative, at most 2^40
// elements, and no more than kMaxInferenceRank of them.
bool plausible_dims(const onnx::TensorProto& tensor) {
    if (tensor.dims_size() > kMaxInferenceRank) return false;
    uint64_t count = 1;
    for (int64_t dim : tensor.dims()) {
        if (dim < 0 || static_cast<uint64_t>(dim) > kMaxElements) return false;
        count = dim == 0 ? 0 : count;
        if (count > 0 && count * static_cast<uint64_t>(dim) > kMaxElements) return false;
        count *= static_cast<uint64_t>(dim);
    }
    return true;
}

// The inputs whose length becomes the rank of a node's output: a declared 1-D tensor longer than
// kMaxInferenceRank there would make inference build a shape of that many dimensions.
bool makes_rank(const onnx::NodeProto& node, int input) {
    const std::string& op = node.op_type();
    if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
    return (op == "ConstantOfShape" && input == 0) ||
           ((op == "Reshape" || op == "Expand" || op == "Unsqueeze") && input == 1);
}

// Makes `graph` (and its subgraphs) safe to show to ONNX's shape inference: declared types sanitized, large or
// implausible initializers turned into inputs of their type, nodes of domains the model does not import left
// out, and a declared length that would become a huge rank made unknown.
// `withheld` names initializers whose bytes were left out of the copy (they count as large).
void prepare_for_inference(onnx::GraphProto* graph, const std::set<std::string>& domains,
                           const std::set<std::string>& withheld = {}) {
    std::set<std::string> inputs;
    for (const auto& input : graph->input()) inputs.insert(input.name());
    google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
    for (auto& tensor : *graph->mutable_initializer()) {
        const bool large = withheld.count(tensor.name()) || tensor.raw_data().size() > kLargeInitializer ||
                           static_cast<size_t>(tensor.int64_data_size() + tensor.int32_data_size() +
                                               tensor.float_data_size() + tensor.double_data_size() +
                                               tensor.uint64_data_size() + tensor.string_data_size()) *
                                   8 > kLargeInitializer;
        if (!large && plausible_dims(tensor)) {
            kept.Add(std::move(tensor));
            continue;
        }
        if (inputs.count(tensor.name())) continue;  // declared as an input already: its declaration stands
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
    graph->mutable_initializer()->Swap(&kept);

    auto* nodes = graph->mutable_node();
    nodes->erase(std::remove_if(nodes->begin(), nodes->end(),
                                [&](const onnx::NodeProto& node) { return !domains.count(node.domain()); }),
                 nodes->end());
    std::set<std::string> rank_makers;
    for (auto& node : *nodes) {
        for (int i = 0; i < node.input_size(); ++i) {
            if (makes_rank(node, i)) rank_makers.insert(node.input(i));
        }
        for (auto& attribute : *node.mutable_attribute()) {
            if (attribute.has_g()) prepare_for_inference(attribute.mutable_g(), domains);
            for (auto& g : *attribute.mutable_graphs()) prepare_for_inference(&g, domains);
        }
    }
    for (auto* infos : {graph->mutable_input(), graph->mutable_output(), graph->mutable_value_info()}) {
        for (auto& info : *infos) {
            if (!info.has_type()) continue;
            sanitize_type(info.mutable_type());
            if (!rank_makers.count(info.name()) || !info.type().has_tensor_type()) continue;
            auto* shape = info.mutable_type()->mutable_tensor_type()->mutable_shape();
            if (shape->dim_size() == 1 && shape->dim(0).dim_value() > kMaxInferenceRank) shape->mutable_dim(0)->clear_dim_value();
        }
    }
}

// Runs ONNX's shape inference (with data propagation) on `model` in a child process under `limits`. Returns the
// inferred model, or nothing with `note` saying why inference gave none.
std::optional<onnx::ModelProto> infer_shapes(const onnx::ModelProto& model, const InferenceLimits& limits,
                                             std::string& note) {
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
            return inferred.SerializeAsString();
        },
        child);
    onnx::ModelProto inferred;
    if (outcome.ok && inferred.ParseFromString(outcome.output)) return inferred;
    note = "ONNX shape inference failed on this model (" + (outcome.ok ? std::string("its result did not parse") : outcome.failure) +
           "); the shapes and types the model declares are used";
    return std::nullopt;
}

std::string strip_file_prefix(const std::string& message, const std::string& file) {
    return message.rfind(file + ": ", 0) == 0 ? message.substr(file.size() + 2) : message;
}

// Indexing nodes inside subgraphs (If, Loop, Scan bodies), which import does not read: listed as skipped,
// with the position of the main-graph node that holds them.
void list_subgraph_nodes(const onnx::NodeProto& holder, size_t position, const onnx::GraphProto& graph,
                         std::vector<SkippedNode>& skipped) {
    for (const auto& node : graph.node()) {
        if (find_rule(node)) {
            skipped.push_back({{node.name(), node.op_type(), position},
                               "inside a subgraph of " + NodeRef{holder.name(), holder.op_type(), position}.str() +
                                   " (import reads the main graph only)"});
        }
        for (const auto& attribute : node.attribute()) {
            if (attribute.has_g()) list_subgraph_nodes(holder, position, attribute.g(), skipped);
            for (const auto& g : attribute.graphs()) list_subgraph_nodes(holder, position, g, skipped);
        }
    }
}

}  // namespace

std::string NodeRef::str() const {
    return "node " + in_quotes(name) + " (" + op_type + ", #" + std::to_string(position) + ")";
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

    // Shape inference on a copy made safe for it, in a child process; where it cannot run, the declared shapes of
    // the original are used. The model's own declarations of its inputs come first (the copy's may be sanitized).
    std::set<std::string> domains{"", "ai.onnx"};
    for (const auto& entry : model.opset_import()) domains.insert(entry.domain());
    // The copy leaves out the bytes of large initializers (weights), which inference does not read.
    std::set<std::string> withheld;
    std::vector<std::pair<int, std::string>> set_aside;
    auto* initializers = model.mutable_graph()->mutable_initializer();
    for (int i = 0; i < initializers->size(); ++i) {
        std::string* raw = initializers->Mutable(i)->mutable_raw_data();
        if (raw->size() <= kLargeInitializer) continue;
        raw->swap(set_aside.emplace_back(i, std::string()).second);
        withheld.insert(initializers->Get(i).name());
    }
    onnx::ModelProto prepared = model;
    for (auto& [i, raw] : set_aside) initializers->Mutable(i)->mutable_raw_data()->swap(raw);
    prepare_for_inference(prepared.mutable_graph(), domains, withheld);
    std::optional<onnx::ModelProto> inferred = infer_shapes(prepared, options.inference, result.inference_note);
    prepared.Clear();
    result.inference_ran = inferred.has_value();
    TensorTypes types;
    for (const auto& input : model.graph().input()) types.add(input);
    if (inferred) types.add_graph(inferred->graph());
    types.add_graph(model.graph());
    const ConstantTensors constants(model.graph());  // values from the model as written

    NameAllocator names(options.prefix);
    std::vector<KernelSpec> parsed;
    for (int n = 0; n < model.graph().node_size(); ++n) {
        const onnx::NodeProto& node = model.graph().node(n);
        const auto position = static_cast<size_t>(n);
        for (const auto& attribute : node.attribute()) {
            if (attribute.has_g()) list_subgraph_nodes(node, position, attribute.g(), result.skipped);
            for (const auto& g : attribute.graphs()) list_subgraph_nodes(node, position, g, result.skipped);
        }
        const OpRule* rule = find_rule(node);
        if (!rule) continue;
        const NodeRef ref{node.name(), node.op_type(), position};
        std::string problem;
        auto spec = node_spec(node, *rule, opset, types, constants, problem);
        if (!spec) {
            result.skipped.push_back({ref, problem});
            continue;
        }
        // Checked by kernelgen's own reader under a scratch name first, so a refused node takes no name.
        std::vector<Diagnostic> diagnostics;
        (*spec)["name"] = "imported_kernel";
        if (parse_spec_text(spec->dump(), file, diagnostics).empty()) {
            result.skipped.push_back({ref, "kernelgen refuses it: " + strip_file_prefix(diagnostics.front().str(), file)});
            continue;
        }
        ImportedKernel kernel;
        kernel.node = ref;
        kernel.name = names.allocate(node, position);
        (*spec)["name"] = kernel.name;
        kernel.spec_text = spec_text(*spec);
        const std::string spec_file = kernel.name + ".json";
        auto kernels = parse_spec_text(kernel.spec_text, spec_file, diagnostics);
        if (kernels.size() != 1) {
            // The name allocator only makes valid names; reaching this is a bug in import.
            result.skipped.push_back({ref, "internal error: the imported spec is refused: " +
                                               (diagnostics.empty() ? std::string("no kernel") : diagnostics.back().str())});
            continue;
        }
        kernel.spec = kernels.front();
        parsed.push_back(kernel.spec);
        result.kernels.push_back(std::move(kernel));
    }
    std::vector<Diagnostic> clashes;
    check_unique_names(parsed, clashes);
    for (const auto& clash : clashes) result.diagnostics.push_back({file, "", "internal error: " + clash.str()});
    if (!result.diagnostics.empty()) result.kernels.clear();
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

}  // namespace kernelgen
