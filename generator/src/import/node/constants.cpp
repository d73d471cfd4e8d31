#include "import/node/constants.h"

#include <algorithm>

#include "common/npy.h"
#include "import/model/tensor_value.h"

namespace kernelgen {

using Json = nlohmann::ordered_json;

namespace {

// `values` (row-major) nested as `shape`.
Json nest(const std::vector<int64_t>& values, const Shape& shape, size_t axis, size_t& at) {
    if (axis == shape.size()) return values[at++];
    Json array = Json::array();
    for (uint64_t i = 0; i < shape[axis]; ++i) array.push_back(nest(values, shape, axis + 1, at));
    return array;
}

// Why the constant `name` (an initializer that is not an input, or a Constant node's output) has no value, or ""
// when it is not such a constant.
std::string unreadable_constant(const GraphScope& scope, const std::string& name) {
    const GraphScope* owner = scope.owner(name);
    if (!owner) return "";
    for (const auto& tensor : owner->graph->initializer()) {
        if (tensor.name() == name && !owner->graph_inputs.count(name)) {
            const auto value = read_tensor(tensor);
            return value ? "it is not folded" : value.problem();
        }
    }
    auto producer = owner->producers.find(name);
    if (producer == owner->producers.end()) return "";
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    if (node.op_type() != "Constant" || !default_domain(node.domain())) return "";
    for (const auto& attribute : node.attribute()) {
        if (attribute.name() == "value" && attribute.has_t()) {
            const auto value = read_tensor(attribute.t());
            return value ? "it is not folded" : value.problem();
        }
    }
    return "its attribute is not a tensor of integers";
}

}  // namespace

Result<std::optional<Json>> constant_indices(const NodeContext& c, const std::string& name, const Shape& indices_shape) {
    const TensorValue* values = c.scope.value(name);
    if (!values) {
        const std::string why = unreadable_constant(c.scope, name);
        if (!why.empty()) return Problem{"constant indices " + in_quotes(name) + " cannot be read: " + why};
        return std::optional<Json>();
    }
    // Their own dims are the truth: a declaration (value_info, an output) that says otherwise would reshape the
    // values silently.
    const Shape dims(values->dims.begin(), values->dims.end());
    if (dims != indices_shape) {
        return Problem{"constant indices " + in_quotes(name) + " have dims " + format_shape(dims) +
                       ", but the model declares " + format_shape(indices_shape)};
    }
    // The value's own type too: a declaration may call float values int64 (their `ints` are then empty).
    if (values->type != onnx::TensorProto::INT32 && values->type != onnx::TensorProto::INT64) {
        return Problem{"constant indices " + in_quotes(name) + " cannot be read: it holds " + onnx_type_name(values->type) +
                       " values"};
    }
    // No known value holds more elements than constant indices may have.
    static_assert(kMaxFoldElements <= kMaxConstantIndices);
    // Nested as indices_shape when that adds no more arrays than there are values (no zero dimension); else flat
    // (every dimension then multiplies to the count).
    size_t at = 0;
    const bool nested = std::find(dims.begin(), dims.end(), 0) == dims.end();
    return std::optional<Json>(nested ? nest(values->ints, indices_shape, 0, at) : Json(values->ints));
}

Result<std::optional<ConstantTensor>> constant_tensor(const NodeContext& c, const std::string& name, const std::string& role,
                                                      const StaticTensor& declared) {
    const GraphScope* owner = c.scope.owner(name);
    const auto type = dtype_of_onnx(declared.elem_type);
    if (!type || *type == DType::String) return std::optional<ConstantTensor>();
    onnx::TensorProto folded;
    const onnx::TensorProto* tensor = nullptr;
    if (owner && owner->initializers.count(name)) {
        tensor = owner->initializers.at(name);
    } else if (const TensorValue* value = c.scope.value(name)) {
        write_tensor(*value, &folded);
        tensor = &folded;
    } else {
        return std::optional<ConstantTensor>();
    }
    const std::string stays = "its " + role + " " + in_quotes(name) + " is constant, but stays a parameter: ";
    const Shape dims(tensor->dims().begin(), tensor->dims().end());
    if (tensor->data_type() != declared.elem_type || dims != declared.shape) {
        return Problem{stays + "it holds " + element_type_name(tensor->data_type()) + " " + format_shape(dims) +
                       " where the model declares " + element_type_name(declared.elem_type) + " " +
                       format_shape(declared.shape)};
    }
    // Of the declared type and dims, its bytes fill data's shape exactly (tensor_bytes checks them against the dims).
    auto bytes = tensor_bytes(*tensor, max_constant_data_bytes(info(*type).bits / 8));
    if (!bytes) return Problem{stays + bytes.problem()};
    return std::optional<ConstantTensor>(ConstantTensor{name, bytes.take()});
}

HeldFile held_file(const Json& spec, const char* part, const char* key, const char* shape_key, const ConstantTensor& tensor) {
    const auto descr = npy_descr(*parse_dtype(spec["dtype"].get<std::string>()));
    return {part, {key}, npy_header(*descr, spec[shape_key].get<Shape>()) + tensor.bytes, tensor.tensor};
}

}  // namespace kernelgen
