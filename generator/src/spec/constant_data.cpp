// Constant tensors in a spec: "data" (the values inline) or "data_file" (a NumPy .npy file), a scatter's "updates"
// or "updates_file", resolved into the exact bytes the kernel holds; and a quantized table: "quantization" beside
// "data" or "data_file" (a Gather along axis 0), its values, scales and zero points.
#include <algorithm>

#include "common/hints.h"
#include "common/shape_math.h"
#include "spec/kernel_reader.h"

namespace kernelgen {

using nlohmann::json;

std::vector<std::string> KernelSpec::files_read() const {
    std::vector<std::string> out;
    auto add = [&](const std::string& path) {
        if (!path.empty()) out.push_back(path);
    };
    if (constant_data) add(constant_data->path);
    if (constant_updates) add(constant_updates->path);
    if (quantization) {
        add(quantization->scales_path);
        add(quantization->zero_points_path);
    }
    return out;
}

bool KernelSpec::ConstantData::all_zero_bytes() const {
    return std::all_of(bytes.begin(), bytes.end(), [](uint8_t byte) { return byte == 0; });
}

namespace {

using Quantization = KernelSpec::Quantization;
using QuantizedType = KernelSpec::QuantizedType;

struct QuantizedTypeInfo {
    QuantizedType id;
    const char* name;
    unsigned bits;
    bool is_signed;
};

const std::vector<QuantizedTypeInfo>& quantized_types() {
    static const std::vector<QuantizedTypeInfo> table{{QuantizedType::Int8, "int8", 8, true},
                                                      {QuantizedType::UInt8, "uint8", 8, false},
                                                      {QuantizedType::Int4, "int4", 4, true},
                                                      {QuantizedType::UInt4, "uint4", 4, false}};
    return table;
}

const QuantizedTypeInfo& info_of(QuantizedType type) {
    for (const auto& row : quantized_types()) {
        if (row.id == type) return row;
    }
    return quantized_types().front();
}

// The byte type that holds one value when the spec or a file gives them one a byte.
DType byte_type(const QuantizedTypeInfo& type) { return type.is_signed ? DType::Int8 : DType::UInt8; }

int64_t lowest(const QuantizedTypeInfo& type) { return type.is_signed ? -(int64_t{1} << (type.bits - 1)) : 0; }
int64_t highest(const QuantizedTypeInfo& type) {
    return type.is_signed ? (int64_t{1} << (type.bits - 1)) - 1 : (int64_t{1} << type.bits) - 1;
}

int32_t byte_value(uint8_t byte, bool is_signed) { return is_signed ? static_cast<int8_t>(byte) : byte; }

const char* const kKeys[] = {"type", "axis", "block_size", "scales", "scales_file", "zero_points", "zero_points_file"};

}  // namespace

std::string quantized_type_name(KernelSpec::QuantizedType type) { return info_of(type).name; }
unsigned quantized_type_bits(KernelSpec::QuantizedType type) { return info_of(type).bits; }
bool quantized_type_signed(KernelSpec::QuantizedType type) { return info_of(type).is_signed; }

namespace {

// A quantized table's "quantization" object: its keys, and what the kernel around it must be (a float Gather along
// axis 0 whose indices come at run time, without prefetching).
void check_table_context(KernelReader& r, const KernelSpec& spec, const json& object) {
    const std::vector<std::string> keys(std::begin(kKeys), std::end(kKeys));
    for (const auto& item : object.items()) {
        if (std::find(keys.begin(), keys.end(), item.key()) == keys.end()) {
            r.fail("quantization/" + pointer_token(item.key()), "unknown key " + in_quotes(item.key()) + " (allowed: " +
                                                                  join(keys) + ")" + did_you_mean(item.key(), keys));
        }
    }
    const std::string dequantized = "float32, float16 or bfloat16";
    if (spec.dtype != DType::Float32 && spec.dtype != DType::Float16 && spec.dtype != DType::BFloat16) {
        r.fail("dtype", "a quantized table dequantizes to " + dequantized + " (dtype is the scales' type), not " +
                          std::string(info(spec.dtype).name));
    }
    if (spec.axis != 0) {
        r.fail("axis", "a quantized table is gathered along axis 0, its rows (axis is " + std::to_string(spec.axis) +
                         "); gather along another axis from a float table");
    }
    if (spec.constant_indices) {
        r.fail("indices", "constant indices of a quantized table select constant rows: dequantize them beforehand "
                        "(a float \"data\"), or pass the indices at run time");
    }
    r.no_prefetch_with(spec, "a quantized table", "its rows are read a byte at a time as they are dequantized");
}

// The member `key` of the "quantization" object, or nothing.
const json* member(const json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

// "type": the quantized type, or nothing (reported).
const QuantizedTypeInfo* read_quantized_type(KernelReader& r, const json& object) {
    std::vector<std::string> type_names;
    for (const auto& row : quantized_types()) type_names.emplace_back(row.name);
    const std::string types = join(type_names);
    const json* value = member(object, "type");
    if (!value) {
        r.fail("quantization/type", "required key \"type\" is missing (one of " + types + ")");
        return nullptr;
    }
    if (!value->is_string()) {
        r.fail("quantization/type", "expected a string, got " + json_type(*value) + " (one of " + types + ")");
        return nullptr;
    }
    const auto text = value->get<std::string>();
    for (const auto& row : quantized_types()) {
        if (text == row.name) return &row;
    }
    r.fail("quantization/type", "unknown quantized type " + in_quotes(text) + " (one of " + types + ")" +
                                  did_you_mean_value(text, type_names, {{"uint4x2", "uint4"}, {"int4x2", "int4"},
                                                                        {"INT8", "int8"}, {"UINT8", "uint8"}}));
    return nullptr;
}

// "axis" and "block_size": where the scales lie (q.axis, q.block_size).
void read_scale_layout(KernelReader& r, const KernelSpec& spec, const json& object, Quantization& q) {
    const auto rank = static_cast<int64_t>(spec.data_shape.size());
    if (const json* value = member(object, "axis")) {
        const std::string range = "an integer from " + std::to_string(-rank) + " to " + std::to_string(rank - 1) +
                                  ", data's axis whose scales differ; leave it out for one scale";
        if (!value->is_number_integer()) {
            r.fail("quantization/axis", "expected an integer, got " + json_type(*value) + " (" + range + ")");
        } else if (value->is_number_unsigned() ? value->get<uint64_t>() >= static_cast<uint64_t>(rank)
                                               : value->get<int64_t>() < -rank) {
            r.fail("quantization/axis", "axis " + value->dump() + " is out of range for data of rank " + std::to_string(rank) +
                                          " (" + range + ")");
        } else {
            const int64_t axis = value->get<int64_t>();
            q.axis = axis < 0 ? axis + rank : axis;
        }
    }
    if (const json* value = member(object, "block_size")) {
        const std::string rule = "a count of elements along the quantization axis that share a scale, at least 1; 0 or "
                                 "none: one scale per index along the axis";
        if (!value->is_number_integer() || (!value->is_number_unsigned() && value->get<int64_t>() < 0)) {
            r.fail("quantization/block_size", "expected a non-negative integer, got " + json_type(*value) + " " + value->dump() +
                                                " (" + rule + ")");
        } else if (value->get<uint64_t>() > 0 && !member(object, "axis")) {
            r.fail("quantization/block_size", "blocks lie along the quantization axis: give \"axis\" too (" + rule + ")");
        } else {
            q.block_size = value->get<uint64_t>();
        }
    }
}

// The scales' shape (q.scales_shape), from data's and the layout; the words a message gives of the layout.
std::string settle_scales_shape(const KernelSpec& spec, Quantization& q) {
    if (q.axis < 0) {
        q.scales_shape = {};
    } else if (q.block_size == 0) {
        q.scales_shape = {spec.data_shape[static_cast<size_t>(q.axis)]};
    } else {
        // ceil(size / block_size) without overflow (block_size may be up to 2^64 - 1: a block longer than the axis
        // is one block).
        q.scales_shape = spec.data_shape;
        auto& size = q.scales_shape[static_cast<size_t>(q.axis)];
        size = size / q.block_size + (size % q.block_size != 0 ? 1 : 0);
    }
    return q.axis < 0           ? "one scale (no axis)"
           : q.block_size == 0 ? "one per index along axis " + std::to_string(q.axis)
                               : "blocks of " + std::to_string(q.block_size) + " along axis " + std::to_string(q.axis);
}

// "scales" or "scales_file": the scales, of dtype.
void read_scales(KernelReader& r, const KernelSpec& spec, const json& object, Quantization& q, const std::string& mode) {
    const json* scales_inline = member(object, "scales");
    const json* scales_file = member(object, "scales_file");
    const uint64_t scale_count = element_count(q.scales_shape);
    const unsigned scale_width = info(spec.dtype).bits / 8;
    if (scales_inline && scales_file) {
        r.fail("quantization/scales_file", "the scales are given twice: keep \"scales\" (inline) or \"scales_file\" (a NumPy .npy file), not both");
    } else if (!scales_inline && !scales_file) {
        r.fail("quantization", "required key \"scales\" (inline) or \"scales_file\" (a NumPy .npy file) is missing: " +
                                 format_shape(q.scales_shape) + " " + std::string(info(spec.dtype).name) + " values, " + mode);
    } else if (r.within_table_limit(scales_inline ? "quantization/scales" : "quantization/scales_file", scale_count * scale_width,
                                  scale_width, "scales " + format_shape(q.scales_shape))) {
        if (scales_inline) {
            auto values = r.read_inline_values(*scales_inline, "quantization/scales", spec.dtype, q.scales_shape,
                                             "the scales' shape");
            if (values) q.scales = std::move(*values);
        } else if (auto name = r.file_name("quantization/scales_file", *scales_file)) {
            auto array = r.read_npy_file("quantization/scales_file", *name, spec.dtype,
                                       "dtype is " + std::string(info(spec.dtype).name), scale_count);
            if (array) {
                if (array->shape != q.scales_shape && !(q.axis < 0 && element_count(array->shape) == 1)) {
                    r.fail("quantization/scales_file", in_quotes(*name) + " holds an array of shape " + format_shape(array->shape) +
                                                         ", and the scales' shape is " + format_shape(q.scales_shape) + " (" + mode + ")");
                } else {
                    q.scales = std::move(array->bytes);
                    q.scales_file = *name;
                    q.scales_path = array->path;
                }
            }
        }
    }
}

// "zero_points" or "zero_points_file": one, or one per scale; values of the quantized type, one a byte.
void read_zero_points(KernelReader& r, const json& object, Quantization& q, const QuantizedTypeInfo& quantized) {
    const QuantizedTypeInfo* type = &quantized;
    const uint64_t scale_count = element_count(q.scales_shape);
    const json* zeros_inline = member(object, "zero_points");
    const json* zeros_file = member(object, "zero_points_file");
    const std::string zero_range = "integers from " + std::to_string(lowest(*type)) + " to " + std::to_string(highest(*type)) +
                                   ", one for every element or one per scale, " + format_shape(q.scales_shape);
    auto check_zero_points = [&](const std::vector<uint8_t>& bytes, const std::string& key) {
        for (size_t i = 0; i < bytes.size(); ++i) {
            const int32_t value = byte_value(bytes[i], type->is_signed);
            if (value < lowest(*type) || value > highest(*type)) {
                r.fail(key, "zero point " + std::to_string(value) + " at element " + std::to_string(i) + " is out of range for " +
                              type->name + " (" + zero_range + ")");
                return;
            }
            q.zero_points.push_back(value);
        }
    };
    if (zeros_inline && zeros_file) {
        r.fail("quantization/zero_points_file", "the zero points are given twice: keep \"zero_points\" (inline) or "
                                              "\"zero_points_file\" (a NumPy .npy file), not both");
    } else if (zeros_inline) {
        const bool one = !zeros_inline->is_array();
        const KernelReader::IntegerRange range{lowest(*type), highest(*type), type->name};
        auto values = r.read_inline_values(*zeros_inline, "quantization/zero_points", byte_type(*type), one ? Shape{} : q.scales_shape,
                                         "the scales' shape", &range);
        if (values) check_zero_points(*values, "quantization/zero_points");
    } else if (zeros_file) {
        if (auto name = r.file_name("quantization/zero_points_file", *zeros_file)) {
            auto array = r.read_npy_file("quantization/zero_points_file", *name, byte_type(*type),
                                       "the zero points are " + std::string(type->name) + " values, one a byte", std::max<uint64_t>(scale_count, 1));
            if (array) {
                if (array->shape != q.scales_shape && element_count(array->shape) != 1) {
                    r.fail("quantization/zero_points_file", in_quotes(*name) + " holds an array of shape " + format_shape(array->shape) +
                                                              ", and the scales' shape is " + format_shape(q.scales_shape) +
                                                              " (one zero point, or one per scale)");
                } else {
                    check_zero_points(array->bytes, "quantization/zero_points_file");
                    q.zero_points_file = *name;
                    q.zero_points_path = array->path;
                }
            }
        }
    }
}

// The quantized values, inline ("data") or in a file ("data_file", 4-bit values packed two a byte): the kernel's
// table (one a byte, or two: element 2k in the low nibble of byte k of the flat order), or nothing (reported).
std::optional<KernelSpec::ConstantData> read_quantized_values(KernelReader& r, const KernelSpec& spec,
                                                             const QuantizedTypeInfo& quantized, const json* inline_values,
                                                             const std::optional<std::string>& file) {
    const QuantizedTypeInfo* type = &quantized;
    const uint64_t count = element_count(spec.data_shape);
    const uint64_t table_bytes = type->bits == 8 ? count : (count + 1) / 2;
    const std::string data_key = inline_values ? "data" : "data_file";
    if (!r.within_table_limit(data_key, table_bytes, 1, format_shape(spec.data_shape) + " " + type->name)) return std::nullopt;
    std::vector<uint8_t> values;  // one a byte
    std::string name, path;
    if (inline_values) {
        const KernelReader::IntegerRange range{lowest(*type), highest(*type), type->name};
        auto read = r.read_inline_values(*inline_values, "data", byte_type(*type), spec.data_shape, "data_shape", &range);
        if (!read) return std::nullopt;
        values = std::move(*read);
    } else {
        name = *file;
        // 4-bit values come packed as ONNX Runtime stores them: two a byte along the last axis (element 2k in the
        // low nibble of byte k), each row of the last axis padded to whole bytes.
        Shape stored = spec.data_shape;
        if (type->bits == 4) stored.back() = (stored.back() + 1) / 2;
        const DType file_type = type->bits == 4 ? DType::UInt8 : byte_type(*type);
        const std::string type_rule = type->bits == 4 ? "the quantization type is " + std::string(type->name) +
                                                            " (its values packed two a byte, as uint8)"
                                                      : "the quantization type is " + std::string(type->name);
        auto array = r.read_npy_file("data_file", name, file_type, type_rule, element_count(stored));
        if (!array) return std::nullopt;
        if (array->shape != stored) {
            r.fail("data_file", in_quotes(name) + " holds an array of shape " + format_shape(array->shape) + ", and " +
                                  (type->bits == 4 ? "data_shape " + format_shape(spec.data_shape) + " packs into " +
                                                         format_shape(stored) + " (two " + type->name + " values a byte along the last axis)"
                                                   : "data_shape is " + format_shape(spec.data_shape) + " (they must be equal)"));
            return std::nullopt;
        }
        path = array->path;
        if (type->bits == 8) {
            values = std::move(array->bytes);
        } else {
            const uint64_t last = spec.data_shape.back(), packed = stored.back();
            values.reserve(count);
            for (uint64_t e = 0; e < count; ++e) {
                const uint8_t byte = array->bytes[(e / last) * packed + (e % last) / 2];
                const auto nibble = static_cast<uint8_t>((e % last) % 2 ? byte >> 4 : byte & 15);
                values.push_back(type->is_signed && nibble >= 8 ? static_cast<uint8_t>(nibble | 0xF0) : nibble);
            }
        }
    }
    // The kernel's table: one a byte, or two (element 2k in the low nibble of byte k of the flat order).
    std::vector<uint8_t> table;
    if (type->bits == 8) {
        table = std::move(values);
    } else {
        table.assign(table_bytes, 0);
        for (size_t e = 0; e < values.size(); ++e) {
            table[e / 2] = static_cast<uint8_t>(table[e / 2] | (values[e] & 15) << (e % 2 ? 4 : 0));
        }
    }
    return KernelSpec::ConstantData{std::move(table), name, path};
}

// "quantization" beside "data" or "data_file": the quantized values, with their scales and zero points.
// `file`: the "data_file" name, when the values are in a file.
void read_quantized_data(KernelReader& r, KernelSpec& spec, const json& object, const json* inline_values,
                         const std::optional<std::string>& file) {
    const std::string allowed_keys = "type, and axis, block_size, scales or scales_file, zero_points or zero_points_file";
    if (!object.is_object()) {
        r.fail("quantization", "expected an object, got " + json_type(object) + " (with " + allowed_keys + ")");
        return;
    }
    const size_t mark = r.problems();
    check_table_context(r, spec, object);
    Quantization q;
    const QuantizedTypeInfo* type = read_quantized_type(r, object);
    read_scale_layout(r, spec, object, q);
    if (!r.clean_since(mark) || !type) return;
    q.type = type->id;
    const std::string mode = settle_scales_shape(spec, q);
    read_scales(r, spec, object, q, mode);
    read_zero_points(r, object, q, *type);
    auto table = read_quantized_values(r, spec, *type, inline_values, file);
    if (!table || !r.clean_since(mark)) return;
    spec.constant_data = std::move(*table);
    spec.quantization = std::move(q);
}

std::optional<KernelSpec::ConstantData> read_constant_tensor(KernelReader& r, KernelSpec& spec, const std::string& tensor,
                                                                          const Shape& shape, const std::string& shape_name) {
    const std::string file_key = tensor + "_file";
    const json* inline_values = r.find(tensor);
    const json* file = r.find(file_key);
    if (!inline_values && !file) return std::nullopt;
    const std::string key = inline_values ? tensor : file_key;
    if (inline_values && file) {
        r.fail(file_key, "the constant " + tensor + (tensor == "data" ? " is" : " are") + " given twice: keep " + in_quotes(tensor) + " (the values inline) or " +
                           in_quotes(file_key) + " (a NumPy .npy file), not both");
        return std::nullopt;
    }
    if (spec.dtype == DType::String) {
        r.fail(key, "string " + tensor + " cannot be constant (its elements are pointers to characters); remove " + in_quotes(key));
        return std::nullopt;
    }
    std::optional<std::string> name;
    if (file && !(name = r.file_name(file_key, *file))) return std::nullopt;
    if (const json* quantization = r.find("quantization"); quantization && tensor == "data") {
        read_quantized_data(r, spec, *quantization, inline_values, name);
        return std::move(spec.constant_data);
    }
    const uint64_t width = info(spec.dtype).bits / 8;
    if (!r.within_table_limit(key, element_count(shape) * width, width,
                            format_shape(shape) + " " + std::string(info(spec.dtype).name))) {
        return std::nullopt;
    }
    if (inline_values) {
        auto values = r.read_inline_values(*inline_values, tensor, spec.dtype, shape, shape_name);
        if (!values) return std::nullopt;
        return KernelSpec::ConstantData{std::move(*values), "", ""};
    }
    auto array = r.read_npy_file(file_key, *name, spec.dtype, "dtype is " + std::string(info(spec.dtype).name), element_count(shape));
    if (!array) return std::nullopt;
    if (array->shape != shape) {
        r.fail(file_key, in_quotes(*name) + " holds an array of shape " + format_shape(array->shape) + ", and " + shape_name +
                           " is " + format_shape(shape) + " (they must be equal)");
        return std::nullopt;
    }
    return KernelSpec::ConstantData{std::move(array->bytes), *name, array->path};
}

}  // namespace

void read_constant_tensors(KernelReader& r, KernelSpec& spec) {
    const json* quantization = r.find("quantization");
    if (!r.find("data") && !r.find("data_file") && quantization) {
        r.fail("quantization", "a quantized table needs its values: give \"data\" (inline) or \"data_file\" (a NumPy .npy file)");
    }
    spec.constant_data = read_constant_tensor(r, spec, "data", spec.data_shape, "data_shape");
    if (is_scatter(spec.op)) spec.constant_updates = read_constant_tensor(r, spec, "updates", spec.updates_shape, "updates_shape");
}

}  // namespace kernelgen
