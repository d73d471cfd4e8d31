#include "import/node/quantized_tables.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "common/c_names.h"
#include "common/npy.h"
#include "common/shape_math.h"
#include "import/model/node_attributes.h"
#include "import/model/tensor_value.h"

namespace kernelgen {

using Json = nlohmann::ordered_json;

namespace {

using QuantizedType = KernelSpec::QuantizedType;

// A constant of the model visible from `scope` (an initializer, or a value a Constant or folding gives), or nullptr;
// `storage` holds a value written out as a tensor.
const onnx::TensorProto* constant_tensor(const GraphScope& scope, const std::string& name, onnx::TensorProto& storage) {
    if (name.empty()) return nullptr;
    const GraphScope* owner = scope.owner(name);
    if (owner && owner->initializers.count(name)) return owner->initializers.at(name);
    if (const TensorValue* value = scope.value(name)) {
        write_tensor(*value, &storage);
        return &storage;
    }
    return nullptr;
}

Shape dims_of(const onnx::TensorProto& tensor) {
    Shape dims;
    for (int64_t d : tensor.dims()) dims.push_back(d < 0 ? 0 : static_cast<uint64_t>(d));
    return dims;
}

std::optional<DType> scale_type(int32_t type) {
    if (type == onnx::TensorProto::FLOAT) return DType::Float32;
    if (type == onnx::TensorProto::FLOAT16) return DType::Float16;
    if (type == onnx::TensorProto::BFLOAT16) return DType::BFloat16;
    return std::nullopt;
}

// The zero points' values from one-a-byte storage.
std::vector<int32_t> byte_values(const std::string& bytes, bool is_signed) {
    std::vector<int32_t> out;
    for (char c : bytes) {
        const auto byte = static_cast<uint8_t>(c);
        out.push_back(is_signed ? static_cast<int8_t>(byte) : byte);
    }
    return out;
}

// A quantizing node's constant inputs: its values, scale and optional zero point (inputs `values`, `values` + 1... as
// the node lays them), each nullptr when not a constant.
struct ConstantInputs {
    onnx::TensorProto storage[3];
    const onnx::TensorProto* values = nullptr;
    const onnx::TensorProto* scale = nullptr;
    const onnx::TensorProto* zero = nullptr;
    bool zero_given = false;
    // Whether the scale and, when given, the zero point are constants.
    bool quantization_constant() const { return scale && (!zero_given || zero); }
};
void read_inputs(const GraphScope& scope, const onnx::NodeProto& node, int values, int scale, int zero, ConstantInputs& out) {
    auto input = [&](int i) { return i < node.input_size() ? node.input(i) : std::string(); };
    out.values = constant_tensor(scope, input(values), out.storage[0]);
    out.scale = constant_tensor(scope, input(scale), out.storage[1]);
    out.zero_given = !input(zero).empty();
    out.zero = constant_tensor(scope, input(zero), out.storage[2]);
}

// A tensor's elements as bytes (at most `limit`), or the problem, naming the tensor as `what` ("its scale").
Result<std::string> bytes_of(const onnx::TensorProto& tensor, uint64_t limit, const std::string& what) {
    auto bytes = tensor_bytes(tensor, limit);
    if (!bytes) return Problem{what + " " + in_quotes(tensor.name()) + " cannot be read: " + bytes.problem()};
    return bytes;
}

// The bytes of a table's values, scales and zero points (where given), or the first problem reading them.
struct TableBytes {
    std::string values, scales, zeros;
};
Result<TableBytes> table_bytes(const ConstantInputs& inputs, DType dtype, uint64_t zero_count, const char* const what[3]) {
    auto values = bytes_of(*inputs.values, max_constant_data_bytes(1), what[0]);
    if (!values) return Problem{values.problem()};
    auto scales = bytes_of(*inputs.scale, max_constant_data_bytes(info(dtype).bits / 8), what[1]);
    if (!scales) return Problem{scales.problem()};
    TableBytes out{values.take(), scales.take(), ""};
    if (inputs.zero) {
        auto zeros = bytes_of(*inputs.zero, zero_count, what[2]);
        if (!zeros) return Problem{zeros.problem()};
        out.zeros = zeros.take();
    }
    return out;
}

std::string label(const GraphScope& scope, const std::string& output) {
    const GraphScope* owner = scope.owner(output);
    auto producer = owner ? owner->producers.find(output) : std::map<std::string, int>::const_iterator{};
    if (!owner || producer == owner->producers.end()) return in_quotes(output);
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    return terminal_safe(node.op_type()) + " " + in_quotes(node_label(node, static_cast<size_t>(producer->second)));
}

}  // namespace

namespace {

// The node of the default domain of type `op_type` that makes `name`, or nullptr.
const onnx::NodeProto* producer_of(const GraphScope& scope, const std::string& name, const char* op_type) {
    const GraphScope* owner = scope.owner(name);
    if (!owner) return nullptr;
    const auto producer = owner->producers.find(name);
    if (producer == owner->producers.end()) return nullptr;
    const onnx::NodeProto& node = owner->graph->node(producer->second);
    return node.op_type() == op_type && default_domain(node.domain()) ? &node : nullptr;
}

// How a DequantizeLinear's (or QuantizeLinear's) attributes and scale's shape quantize its values of `shape` into
// `type`: one scale, a scale per index along an axis, or blocks along it (opset 21); or why they fit none of these.
Result<KernelSpec::Quantization> scale_layout(const onnx::NodeProto& node, const onnx::TensorProto& scale, const Shape& shape,
                                              QuantizedType type) {
    const Shape scales = dims_of(scale);
    const auto rank = static_cast<int64_t>(shape.size());
    const auto axis_attribute = int_attribute(node, "axis", 1);
    const auto block_attribute = int_attribute(node, "block_size", 0);
    if (!axis_attribute || !block_attribute) return Problem{"an attribute is not an integer"};
    if (*block_attribute < 0) return Problem{"its block_size is negative"};
    const uint64_t block = static_cast<uint64_t>(*block_attribute);
    // One scale (ONNX Runtime takes a 1-element vector so too) is for the whole table: the axis is not used, and may
    // be one the table lacks (the default 1 of a rank-1 table).
    const bool one_scale = block == 0 && element_count(scales) == 1 && scales.size() <= 1;
    if (!one_scale && (*axis_attribute < -rank || *axis_attribute >= rank)) {
        return Problem{"its axis " + std::to_string(*axis_attribute) + " is out of range"};
    }
    const int64_t axis = one_scale ? 0 : *axis_attribute < 0 ? *axis_attribute + rank : *axis_attribute;
    KernelSpec::Quantization q;
    q.type = type;
    const auto a = static_cast<size_t>(axis);
    if (one_scale) {
        q.axis = -1;
    } else if (block == 0 && scales.size() == 1 && scales[0] == shape[a]) {
        q.axis = axis;
    } else if (block > 0 && scales.size() == shape.size()) {
        Shape blocked = shape;
        blocked[a] = (shape[a] + block - 1) / block;
        if (blocked != scales) {
            return Problem{"its scale of shape " + format_shape(scales) + " does not block " + format_shape(shape) + " by " +
                           std::to_string(block) + " along axis " + std::to_string(axis)};
        }
        q.axis = axis;
        q.block_size = block;
    } else {
        return Problem{"its scale of shape " + format_shape(scales) + " fits no quantization of " + format_shape(shape)};
    }
    q.scales_shape = q.axis < 0 ? Shape{} : q.block_size == 0 ? Shape{shape[a]} : scales;
    return q;
}

// ONNX's INT4 and UINT4 (ONNX 1.16), which the ONNX this builds with may not name.
constexpr int32_t kOnnxUInt4 = 21, kOnnxInt4 = 22;

std::optional<QuantizedType> quantized_type_of(int32_t onnx_type) {
    if (onnx_type == onnx::TensorProto::INT8) return QuantizedType::Int8;
    if (onnx_type == onnx::TensorProto::UINT8) return QuantizedType::UInt8;
    if (onnx_type == kOnnxInt4) return QuantizedType::Int4;
    if (onnx_type == kOnnxUInt4) return QuantizedType::UInt4;
    return std::nullopt;
}

std::string type_name(int32_t onnx_type) {
    return onnx_type == kOnnxInt4 ? "INT4" : onnx_type == kOnnxUInt4 ? "UINT4" : onnx_type_name(onnx_type);
}

// Quantized values of a table: their type and shape, one int each, row-major.
struct QuantizedValues {
    QuantizedType type = QuantizedType::Int8;
    Shape shape;
    std::vector<int32_t> values;
};

// The elements of a constant of a quantized type (INT8, UINT8, or INT4, UINT4 as ONNX packs them), one int each.
Result<std::vector<int32_t>> quantized_elements(const onnx::TensorProto& tensor, QuantizedType type, const std::string& what) {
    const bool is_signed = quantized_type_signed(type);
    if (quantized_type_bits(type) == 8) {
        auto bytes = bytes_of(tensor, max_constant_data_bytes(1), what);
        if (!bytes) return Problem{bytes.problem()};
        return byte_values(*bytes, is_signed);
    }
    const uint64_t most = 2 * max_constant_data_bytes(1);
    const auto count = checked_count(std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end()), most);
    const std::string cannot = what + " " + in_quotes(tensor.name()) + " cannot be read: ";
    if (!count) return Problem{cannot + "its dims make more than " + std::to_string(most) + " 4-bit values"};
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL || tensor.raw_data().size() != (*count + 1) / 2) {
        return Problem{cannot + "its 4-bit values are not in raw_data, two a byte (" + std::to_string((*count + 1) / 2) +
                       " bytes), in the model file"};
    }
    return unpack_onnx_4bit(tensor.raw_data(), *count, is_signed);
}

// A DequantizeLinear's table, from its constant scale and zero point (`inputs`) and its values (`x`, constants or
// computed), for a Gather along `gather_axis`; or why it stays outside.
Result<QuantizedTable> dequantized_constants(const onnx::NodeProto& dq, const ConstantInputs& inputs, const QuantizedValues& x,
                                             int64_t gather_axis) {
    const onnx::TensorProto* scale = inputs.scale;
    const onnx::TensorProto* zero = inputs.zero;
    if (!inputs.quantization_constant()) return Problem{"its scale or zero point is not a constant"};
    const auto x_rank = static_cast<int64_t>(x.shape.size());
    if (gather_axis != 0 && gather_axis != -x_rank) {
        return Problem{"the Gather is along axis " + std::to_string(gather_axis) + " (a quantized table is gathered along axis 0)"};
    }
    const auto dtype = scale_type(scale->data_type());
    if (!dtype) return Problem{"its scale is " + onnx_type_name(scale->data_type()) + " (FLOAT, FLOAT16 or BFLOAT16)"};
    const auto output_type = int_attribute(dq, "output_dtype", 0);
    if (!output_type) return Problem{"an attribute is not an integer"};
    if (*output_type != 0 && *output_type != scale->data_type()) return Problem{"its output_dtype is not its scale's type"};
    if (zero && quantized_type_of(zero->data_type()) != x.type) {
        return Problem{"its zero point is " + type_name(zero->data_type()) + " and its values " +
                       quantized_type_name(x.type)};
    }
    if (x.shape.empty()) return Problem{"its values are a scalar"};
    auto layout = scale_layout(dq, *scale, x.shape, x.type);
    if (!layout) return Problem{layout.problem()};
    if (zero && dims_of(*zero) != dims_of(*scale)) return Problem{"its zero point's shape is not its scale's"};
    auto scales = bytes_of(*scale, max_constant_data_bytes(info(*dtype).bits / 8), "its scale");
    if (!scales) return Problem{scales.problem()};
    QuantizedTable table;
    table.quantization = layout.take();
    if (zero) {
        auto zeros = quantized_elements(*zero, x.type, "its zero point");
        if (!zeros) return Problem{zeros.problem()};
        table.quantization.zero_points = zeros.take();
    }
    table.quantization.scales.assign(scales->begin(), scales->end());
    table.tensor = dq.input(0);
    table.dtype = *dtype;
    table.data_shape = x.shape;
    table.bytes = pack_rows(x.values, x.shape, x.type);
    return table;
}

// The values of a DequantizeLinear's constant x: its type, shape and elements; or why they are not a table's.
Result<QuantizedValues> constant_values(const onnx::TensorProto& x) {
    const auto type = quantized_type_of(x.data_type());
    if (!type) return Problem{"its values are " + type_name(x.data_type()) + " (int8, uint8, int4 and uint4 tables are fused)"};
    auto values = quantized_elements(x, *type, "its values");
    if (!values) return Problem{values.problem()};
    return QuantizedValues{*type, dims_of(x), values.take()};
}

}  // namespace

// --- fake quantization: QuantizeLinear of a constant float tensor, then DequantizeLinear ---------------------------

std::optional<int32_t> quantize_linear(float x, float scale, int32_t zero_point, KernelSpec::QuantizedType type) {
    const float quotient = x / scale;
    if (!(std::fabs(quotient) < 2147483648.0f)) return std::nullopt;
    const bool is_signed = quantized_type_signed(type);
    const int32_t bits = static_cast<int32_t>(quantized_type_bits(type));
    const int32_t low = is_signed ? -(1 << (bits - 1)) : 0, high = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
    // nearbyint rounds in the current rounding mode, to nearest with ties to even unless a program changed it.
    const int64_t value = static_cast<int64_t>(std::nearbyint(quotient)) + zero_point;
    return static_cast<int32_t>(std::clamp<int64_t>(value, low, high));
}

std::string pack_rows(const std::vector<int32_t>& values, const Shape& shape, KernelSpec::QuantizedType type) {
    std::string out;
    if (quantized_type_bits(type) == 8) {
        for (int32_t v : values) out += static_cast<char>(static_cast<uint8_t>(v & 0xFF));
        return out;
    }
    const uint64_t row = shape.empty() ? 1 : shape.back();
    for (uint64_t e = 0; e < values.size(); ++e) {
        const auto nibble = static_cast<uint8_t>(values[e] & 15);
        if (row == 0 || e % row % 2 == 0) out += static_cast<char>(nibble);
        else out.back() = static_cast<char>(static_cast<uint8_t>(out.back()) | nibble << 4);
    }
    return out;
}

std::vector<int32_t> unpack_onnx_4bit(const std::string& bytes, uint64_t count, bool is_signed) {
    std::vector<int32_t> out;
    for (uint64_t e = 0; e < count && e / 2 < bytes.size(); ++e) {
        const auto byte = static_cast<uint8_t>(bytes[e / 2]);
        const int32_t nibble = e % 2 ? byte >> 4 : byte & 15;
        out.push_back(is_signed && nibble >= 8 ? nibble - 16 : nibble);
    }
    return out;
}

namespace {

// The index of the scale of element `e` (row-major in `shape`) under `layout`.
uint64_t scale_index(const KernelSpec::Quantization& layout, const Shape& shape, uint64_t e) {
    if (layout.axis < 0) return 0;
    const auto a = static_cast<size_t>(layout.axis);
    uint64_t inner = 1;
    for (size_t d = a + 1; d < shape.size(); ++d) inner *= shape[d];
    const uint64_t i = e / inner % shape[a];
    if (layout.block_size == 0) return i;
    const uint64_t outer = e / inner / shape[a];
    return (outer * layout.scales_shape[a] + i / layout.block_size) * inner + e % inner;
}

// A float32 or float16 constant's elements as floats (exactly), at most `limit` of them.
Result<std::vector<float>> float_elements(const onnx::TensorProto& tensor, uint64_t limit, const std::string& what) {
    const bool half = tensor.data_type() == onnx::TensorProto::FLOAT16;
    auto bytes = bytes_of(tensor, limit * (half ? 2 : 4), what);
    if (!bytes) return Problem{bytes.problem()};
    std::vector<float> out;
    for (size_t at = 0; at + (half ? 2 : 4) <= bytes->size(); at += half ? 2 : 4) {
        uint32_t bits = 0;
        for (size_t b = 0; b < (half ? 2u : 4u); ++b) bits |= static_cast<uint32_t>(static_cast<uint8_t>((*bytes)[at + b])) << (8 * b);
        float value = 0;
        if (half) value = static_cast<float>(half_to_double(static_cast<uint16_t>(bits)));
        else std::memcpy(&value, &bits, sizeof value);
        out.push_back(value);
    }
    return out;
}

// A QuantizeLinear's output type: its zero point's, else its output_dtype (opset 21), else uint8 (ONNX's default).
Result<QuantizedType> quantize_output_type(const onnx::NodeProto& q, const ConstantInputs& inputs) {
    const auto output_type = int_attribute(q, "output_dtype", 0);
    if (!output_type) return Problem{"an attribute is not an integer"};
    const int32_t type = inputs.zero ? inputs.zero->data_type() : *output_type != 0 ? static_cast<int32_t>(*output_type)
                                                                                   : onnx::TensorProto::UINT8;
    if (inputs.zero && *output_type != 0 && *output_type != type) return Problem{"its output_dtype is not its zero point's type"};
    const auto quantized = quantized_type_of(type);
    if (!quantized) return Problem{"it quantizes to " + type_name(type) + " (int8, uint8, int4 and uint4 tables are fused)"};
    return *quantized;
}

// The values a QuantizeLinear makes of its constant float x, scale and zero point, as ONNX Runtime computes them.
Result<QuantizedValues> quantized_constants(const onnx::NodeProto& q, const ConstantInputs& inputs) {
    const onnx::TensorProto* x = inputs.values;
    const onnx::TensorProto* scale = inputs.scale;
    if (!inputs.quantization_constant()) return Problem{"its scale or zero point is not a constant"};
    if (x->data_type() != onnx::TensorProto::FLOAT && x->data_type() != onnx::TensorProto::FLOAT16) {
        return Problem{"it quantizes " + onnx_type_name(x->data_type()) + " values (FLOAT and FLOAT16 are quantized at import)"};
    }
    if (scale->data_type() != x->data_type()) {
        return Problem{"its scale is " + onnx_type_name(scale->data_type()) + " and its input " + onnx_type_name(x->data_type())};
    }
    auto type = quantize_output_type(q, inputs);
    if (!type) return Problem{type.problem()};
    QuantizedValues out{*type, dims_of(*x), {}};
    auto layout = scale_layout(q, *scale, out.shape, out.type);
    if (!layout) return Problem{layout.problem()};
    if (inputs.zero && dims_of(*inputs.zero) != dims_of(*scale)) return Problem{"its zero point's shape is not its scale's"};
    const uint64_t most = max_constant_data_bytes(1) * (quantized_type_bits(out.type) == 4 ? 2 : 1);
    auto values = float_elements(*x, most, "its input");
    auto scales = float_elements(*scale, most, "its scale");
    if (!values || !scales) return Problem{values ? scales.problem() : values.problem()};
    std::vector<int32_t> zeros;
    if (inputs.zero) {
        auto read = quantized_elements(*inputs.zero, out.type, "its zero point");
        if (!read) return Problem{read.problem()};
        zeros = read.take();
    }
    for (uint64_t e = 0; e < values->size(); ++e) {
        const uint64_t k = scale_index(*layout, out.shape, e);
        const auto value = quantize_linear((*values)[e], (*scales)[k], zeros.empty() ? 0 : zeros[k], out.type);
        if (!value) {
            return Problem{"element " + std::to_string(e) + " of its input divided by its scale is " +
                           std::to_string((*values)[e] / (*scales)[k]) + " (ONNX Runtime's kernels quantize a quotient "
                           "that is not a number or beyond 2^31 in magnitude differently)"};
        }
        out.values.push_back(*value);
    }
    return out;
}

// A Clip (opset 11 on: bounds as inputs) of the quantized values between QuantizeLinear and DequantizeLinear, as
// PyTorch exports a fake quantization to 0..127: the values clamped to its constant bounds.
Result<Ok> clip_values(const GraphScope& scope, const onnx::NodeProto& clip, QuantizedValues& x) {
    ConstantInputs bounds;
    read_inputs(scope, clip, 0, 1, 2, bounds);
    const bool low_given = clip.input_size() > 1 && !clip.input(1).empty();
    if ((low_given && !bounds.scale) || (bounds.zero_given && !bounds.zero) || clip.attribute_size() > 0) {
        return Problem{"its values pass through Clip " + in_quotes(clip.name()) + ", whose bounds are not constant inputs"};
    }
    int32_t low = INT32_MIN, high = INT32_MAX;
    for (const onnx::TensorProto* bound : {bounds.scale, bounds.zero}) {
        if (!bound) continue;
        auto value = quantized_type_of(bound->data_type()) == x.type
                         ? quantized_elements(*bound, x.type, "a bound of Clip " + in_quotes(clip.name()))
                         : Result<std::vector<int32_t>>(Problem{""});
        if (!value || value->size() != 1) {
            return Problem{"Clip " + in_quotes(clip.name()) + " has a bound that is not one " + quantized_type_name(x.type) + " value"};
        }
        (bound == bounds.scale ? low : high) = value->front();
    }
    for (int32_t& v : x.values) v = std::min(std::max(v, low), high);  // ONNX Runtime's order: the lower bound first
    return Ok{};
}

// The table a DequantizeLinear `dq` makes of a QuantizeLinear of a constant float tensor (through a Clip, maybe);
// nothing where its x is not made so (values quantized at run time).
Result<std::optional<QuantizedTable>> fake_quantized_table(const GraphScope& scope, const onnx::NodeProto& dq,
                                                           const ConstantInputs& inputs, int64_t gather_axis) {
    const onnx::NodeProto* clip = producer_of(scope, dq.input(0), "Clip");
    const std::string& quantized = clip && clip->input_size() > 0 ? clip->input(0) : dq.input(0);
    const onnx::NodeProto* q = producer_of(scope, quantized, "QuantizeLinear");
    if (!q || q->input_size() < 2) return std::optional<QuantizedTable>();
    ConstantInputs q_inputs;
    read_inputs(scope, *q, 0, 1, 2, q_inputs);
    if (!q_inputs.values) return std::optional<QuantizedTable>();  // activations quantized at run time: nothing to hold
    const std::string by = label(scope, quantized);
    auto values = quantized_constants(*q, q_inputs);
    if (!values) return Problem{by + " of constant " + in_quotes(q->input(0)) + " is not quantized at import: " + values.problem()};
    if (clip) {
        if (auto clipped = clip_values(scope, *clip, *values); !clipped) return Problem{clipped.problem()};
    }
    auto table = dequantized_constants(dq, inputs, *values, gather_axis);
    if (!table) return Problem{table.problem()};
    table->tensor = q->input(0);
    table->quantized_by = by + (clip ? " and " + label(scope, dq.input(0)) : "");
    return std::optional<QuantizedTable>(table.take());
}

}  // namespace

Result<std::optional<QuantizedTable>> dequantized_table(const GraphScope& scope, const std::string& data, int64_t gather_axis) {
    const onnx::NodeProto* dq = producer_of(scope, data, "DequantizeLinear");
    if (!dq || dq->input_size() < 2) return std::optional<QuantizedTable>();
    ConstantInputs inputs;
    read_inputs(scope, *dq, 0, 1, 2, inputs);
    const std::string source = label(scope, data);
    const std::string outside = "its data comes from " + source + ", which stays outside the kernel (float data, a parameter): ";
    if (!inputs.values) {
        auto fake = fake_quantized_table(scope, *dq, inputs, gather_axis);
        if (!fake) return Problem{outside + fake.problem()};
        if (*fake) (*fake)->source = source;
        return fake;
    }
    auto values = constant_values(*inputs.values);
    auto table = values ? dequantized_constants(*dq, inputs, *values, gather_axis) : Result<QuantizedTable>(Problem{values.problem()});
    if (!table) return Problem{outside + table.problem()};
    table->source = source;
    return std::optional<QuantizedTable>(table.take());
}

bool is_gather_block_quantized(const onnx::NodeProto& node) {
    return node.domain() == "com.microsoft" && node.op_type() == "GatherBlockQuantized";
}

namespace {

// A GatherBlockQuantized node's bits and block_size (ONNX Runtime's defaults 4 and 128).
struct BlockAttributes {
    int64_t bits = 4, block = 128;
};

// The node's constant inputs and attributes as ONNX Runtime takes them (uint8 data of 8-bit or 4-bit values, gathered
// along axis 0 and quantized in blocks along the last; float or float16 scales), or why they are not.
Result<BlockAttributes> block_attributes(const onnx::NodeProto& node, const ConstantInputs& inputs) {
    const auto bits = int_attribute(node, "bits", 4);
    const auto block = int_attribute(node, "block_size", 128);
    const auto gather_axis = int_attribute(node, "gather_axis", 0);
    const auto quantize_axis = int_attribute(node, "quantize_axis", 1);
    if (!bits || !block || !gather_axis || !quantize_axis) {
        return Problem{"an attribute (bits, block_size, gather_axis, quantize_axis) is not an integer"};
    }
    const onnx::TensorProto* data = inputs.values;
    const onnx::TensorProto* scale = inputs.scale;
    if (!data || !inputs.quantization_constant()) {
        return Problem{"its data, scales and zero points must be constants of the model (a table it holds)"};
    }
    if (data->data_type() != onnx::TensorProto::UINT8) {
        return Problem{"its data is " + onnx_type_name(data->data_type()) + " (uint8, holding 8-bit or 4-bit values, is imported)"};
    }
    if (*bits != 4 && *bits != 8) return Problem{"bits is " + std::to_string(*bits) + " (4 and 8 are imported)"};
    if (*block < 16 || (*block & (*block - 1)) != 0) {
        return Problem{"block_size is " + std::to_string(*block) + " (ONNX Runtime takes a power of 2, at least 16)"};
    }
    const Shape shape = dims_of(*data);
    const auto rank = static_cast<int64_t>(shape.size());
    auto normal = [&](int64_t axis) { return axis < 0 ? axis + rank : axis; };
    if (rank < 2 || normal(*gather_axis) != 0 || normal(*quantize_axis) != rank - 1) {
        return Problem{"uint8 data gathers along axis 0 and is quantized along its last axis (ONNX Runtime's rule); data is " +
                       format_shape(shape) + ", gather_axis " + std::to_string(*gather_axis) + ", quantize_axis " +
                       std::to_string(*quantize_axis)};
    }
    const auto dtype = scale_type(scale->data_type());
    if (!dtype || *dtype == DType::BFloat16) {
        return Problem{"its scales are " + onnx_type_name(scale->data_type()) + " (FLOAT or FLOAT16)"};
    }
    return BlockAttributes{*bits, *block};
}

}  // namespace

Result<QuantizedTable> block_quantized_table(const GraphScope& scope, const onnx::NodeProto& node) {
    if (node.input_size() < 3 || node.input(0).empty() || node.input(1).empty() || node.input(2).empty()) {
        return Problem{"has " + std::to_string(node.input_size()) + " inputs (GatherBlockQuantized takes data, indices, "
                       "scales and optional zero_points)"};
    }
    ConstantInputs inputs;
    read_inputs(scope, node, 0, 2, 3, inputs);
    const auto attributes = block_attributes(node, inputs);
    if (!attributes) return Problem{attributes.problem()};
    const onnx::TensorProto* scale = inputs.scale;
    const onnx::TensorProto* zero = inputs.zero;
    const DType dtype = *scale_type(scale->data_type());
    Shape shape = dims_of(*inputs.values);
    const uint64_t per_byte = 8 / static_cast<uint64_t>(attributes->bits);
    const uint64_t last = shape.back() * per_byte, b = static_cast<uint64_t>(attributes->block);
    Shape scales = shape;
    scales.back() = (last + b - 1) / b;
    if (dims_of(*scale) != scales) {
        return Problem{"its scales are " + format_shape(dims_of(*scale)) + " where data " + format_shape(shape) +
                       " in blocks of " + std::to_string(b) + " takes " + format_shape(scales)};
    }
    Shape zeros_stored = scales;
    zeros_stored.back() = (scales.back() + per_byte - 1) / per_byte;
    if (zero && (zero->data_type() != onnx::TensorProto::UINT8 || dims_of(*zero) != zeros_stored)) {
        return Problem{"its zero points are " + onnx_type_name(zero->data_type()) + " " + format_shape(dims_of(*zero)) +
                       " (UINT8 " + format_shape(zeros_stored) + ")"};
    }
    static const char* const what[3] = {"its data", "its scales", "its zero points"};
    auto bytes = table_bytes(inputs, dtype, element_count(zeros_stored), what);
    if (!bytes) return Problem{bytes.problem()};
    QuantizedTable table;
    table.source = "GatherBlockQuantized " + in_quotes(node.name());
    KernelSpec::Quantization& q = table.quantization;
    q.type = attributes->bits == 4 ? QuantizedType::UInt4 : QuantizedType::UInt8;
    q.axis = static_cast<int64_t>(shape.size()) - 1;
    q.block_size = b;
    q.scales_shape = scales;
    q.scales.assign(bytes->scales.begin(), bytes->scales.end());
    if (!zero) {
        q.zero_points = {int32_t{1} << (attributes->bits - 1)};  // ONNX Runtime's default for uint8 data
    } else {
        // Two 4-bit zero points a byte along the last axis (each row padded), as the data.
        const uint64_t row = scales.back(), stored = zeros_stored.back();
        for (uint64_t i = 0; i < element_count(scales); ++i) {
            const auto byte = static_cast<uint8_t>(bytes->zeros[(i / row) * stored + (i % row) / per_byte]);
            q.zero_points.push_back(per_byte == 1 ? byte : (i % row) % 2 ? byte >> 4 : byte & 15);
        }
    }
    shape.back() = last;
    table.tensor = node.input(0);
    table.dtype = dtype;
    table.data_shape = shape;
    // 4-bit values: each row of the last axis holds an even count (two a byte), so the rows' packing is the flat
    // packing the kernel holds.
    table.bytes = std::move(bytes->values);
    return table;
}

Json quantization_json(const QuantizedTable& table) {
    const KernelSpec::Quantization& q = table.quantization;
    Json out;
    out["type"] = quantized_type_name(q.type);
    if (q.axis >= 0) out["axis"] = q.axis;
    if (q.block_size > 0) out["block_size"] = q.block_size;
    const uint64_t count = element_count(q.scales_shape);
    if (count <= kMaxInlineScales) {
        // As import's report shows values (value_json): the shortest decimal that reads back to the same value of
        // the scales' type, nested as their shape.
        onnx::TensorProto tensor;
        tensor.set_data_type(info(table.dtype).onnx_type);
        for (uint64_t d : q.scales_shape) tensor.add_dims(static_cast<int64_t>(d));
        tensor.set_raw_data(std::string(q.scales.begin(), q.scales.end()));
        const auto value = read_tensor(tensor);  // at most kMaxInlineScales elements: always readable
        out["scales"] = value ? value_json(*value) : Json();
    } else {
        out["scales_file"] = "";
    }
    const auto& zeros = q.zero_points;
    if (zeros.size() == 1) out["zero_points"] = zeros.front();
    else if (!zeros.empty() && zeros.size() <= kMaxInlineScales) out["zero_points"] = zeros;
    else if (!zeros.empty()) out["zero_points_file"] = "";
    return out;
}

HeldTables quantized_held_tables(const QuantizedTable& table) {
    const KernelSpec::Quantization& q = table.quantization;
    const bool four = quantized_type_bits(q.type) == 4, is_signed = quantized_type_signed(q.type);
    Shape stored = table.data_shape;
    if (four) stored.back() = (stored.back() + 1) / 2;
    HeldTables held;
    held.files.push_back({"data", {"data_file"}, npy_header(is_signed && !four ? "|i1" : "|u1", stored) + table.bytes, table.tensor});
    const Json quantization = quantization_json(table);
    if (quantization.contains("scales_file")) {
        held.files.push_back({"scales", {"quantization", "scales_file"},
                              npy_header(*npy_descr(table.dtype), q.scales_shape) + std::string(q.scales.begin(), q.scales.end()),
                              ""});
    }
    if (quantization.contains("zero_points_file")) {
        std::string bytes;
        for (int32_t zero : q.zero_points) bytes += static_cast<char>(static_cast<uint8_t>(zero & 0xFF));
        held.files.push_back({"zero_points", {"quantization", "zero_points_file"},
                              npy_header(is_signed ? "|i1" : "|u1", q.scales_shape) + bytes, ""});
    }
    held.form["quantized"] = {{"type", quantized_type_name(q.type)}, {"dequantized_by", table.source}};
    if (!table.quantized_by.empty()) held.form["quantized"]["quantized_by"] = table.quantized_by;
    return held;
}

}  // namespace kernelgen
