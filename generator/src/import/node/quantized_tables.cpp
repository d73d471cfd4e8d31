#include "import/node/quantized_tables.h"

#include <algorithm>

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
    return node.op_type() + " " + in_quotes(node_label(node, static_cast<size_t>(producer->second)));
}

}  // namespace

namespace {

// The DequantizeLinear (of the default domain, with at least x and x_scale) that makes `data`, or nullptr.
const onnx::NodeProto* dequantizer(const GraphScope& scope, const std::string& data) {
    const GraphScope* owner = scope.owner(data);
    if (!owner) return nullptr;
    const auto producer = owner->producers.find(data);
    if (producer == owner->producers.end()) return nullptr;
    const onnx::NodeProto& dq = owner->graph->node(producer->second);
    if (dq.op_type() != "DequantizeLinear" || !default_domain(dq.domain()) || dq.input_size() < 2) return nullptr;
    return &dq;
}

// How a DequantizeLinear's attributes and scale's shape quantize its values of `shape` (int8 or uint8, `is_signed`):
// one scale, a scale per index along an axis, or blocks along it (opset 21); or why they fit none of these.
Result<KernelSpec::Quantization> dequantize_layout(const onnx::NodeProto& dq, const onnx::TensorProto& scale, const Shape& shape,
                                                   bool is_signed) {
    const Shape scales = dims_of(scale);
    const auto rank = static_cast<int64_t>(shape.size());
    const auto axis_attribute = int_attribute(dq, "axis", 1);
    const auto block_attribute = int_attribute(dq, "block_size", 0);
    const auto output_type = int_attribute(dq, "output_dtype", 0);
    if (!axis_attribute || !block_attribute || !output_type) return Problem{"an attribute is not an integer"};
    if (*output_type != 0 && *output_type != scale.data_type()) return Problem{"its output_dtype is not its scale's type"};
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
    q.type = is_signed ? QuantizedType::Int8 : QuantizedType::UInt8;
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

// A DequantizeLinear's table, from its constant inputs, for a Gather along `gather_axis`; or why it stays outside.
Result<QuantizedTable> dequantized_constants(const onnx::NodeProto& dq, const ConstantInputs& inputs, int64_t gather_axis) {
    const onnx::TensorProto* x = inputs.values;
    const onnx::TensorProto* scale = inputs.scale;
    const onnx::TensorProto* zero = inputs.zero;
    if (!inputs.quantization_constant()) return Problem{"its scale or zero point is not a constant"};
    const auto x_rank = static_cast<int64_t>(x->dims_size());
    if (gather_axis != 0 && gather_axis != -x_rank) {
        return Problem{"the Gather is along axis " + std::to_string(gather_axis) + " (a quantized table is gathered along axis 0)"};
    }
    if (x->data_type() != onnx::TensorProto::INT8 && x->data_type() != onnx::TensorProto::UINT8) {
        return Problem{"its values are " + onnx_type_name(x->data_type()) + " (int8 and uint8 tables are fused)"};
    }
    const auto dtype = scale_type(scale->data_type());
    if (!dtype) return Problem{"its scale is " + onnx_type_name(scale->data_type()) + " (FLOAT, FLOAT16 or BFLOAT16)"};
    if (zero && zero->data_type() != x->data_type()) {
        return Problem{"its zero point is " + onnx_type_name(zero->data_type()) + " and its values " + onnx_type_name(x->data_type())};
    }
    const bool is_signed = x->data_type() == onnx::TensorProto::INT8;
    const Shape shape = dims_of(*x);
    if (shape.empty()) return Problem{"its values are a scalar"};
    auto layout = dequantize_layout(dq, *scale, shape, is_signed);
    if (!layout) return Problem{layout.problem()};
    if (zero && dims_of(*zero) != dims_of(*scale)) return Problem{"its zero point's shape is not its scale's"};
    static const char* const what[3] = {"its values", "its scale", "its zero point"};
    auto bytes = table_bytes(inputs, *dtype, element_count(dims_of(*scale)), what);
    if (!bytes) return Problem{bytes.problem()};
    QuantizedTable table;
    table.quantization = layout.take();
    if (zero) table.quantization.zero_points = byte_values(bytes->zeros, is_signed);
    table.quantization.scales.assign(bytes->scales.begin(), bytes->scales.end());
    table.tensor = dq.input(0);
    table.dtype = *dtype;
    table.data_shape = shape;
    table.bytes = std::move(bytes->values);
    return table;
}

}  // namespace

Result<std::optional<QuantizedTable>> dequantized_table(const GraphScope& scope, const std::string& data, int64_t gather_axis) {
    const onnx::NodeProto* dq = dequantizer(scope, data);
    if (!dq) return std::optional<QuantizedTable>();
    ConstantInputs inputs;
    read_inputs(scope, *dq, 0, 1, 2, inputs);
    if (!inputs.values) return std::optional<QuantizedTable>();  // activations quantized at run time: nothing to hold
    const std::string source = label(scope, data);
    auto table = dequantized_constants(*dq, inputs, gather_axis);
    if (!table) {
        return Problem{"its data comes from " + source + ", which stays outside the kernel (float data, a parameter): " +
                       table.problem()};
    }
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
    return held;
}

}  // namespace kernelgen
