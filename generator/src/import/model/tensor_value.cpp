#include "import/model/tensor_value.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/npy.h"
#include "kernelgen/dtype.h"

namespace kernelgen {

std::string onnx_type_name(int32_t type) {
    if (onnx::TensorProto_DataType_IsValid(type)) return onnx::TensorProto_DataType_Name(type);
    return "element type " + std::to_string(type);
}

std::string element_type_name(int32_t type) {
    const auto dtype = dtype_of_onnx(type);
    return dtype ? std::string(info(*dtype).name) : onnx_type_name(type);
}

double half_to_double(uint16_t bits) {
    const int sign = bits >> 15, exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
    double magnitude;
    if (exponent == 0) magnitude = std::ldexp(mantissa, -24);
    else if (exponent == 31) magnitude = mantissa ? std::nan("") : INFINITY;
    else magnitude = std::ldexp(mantissa + 1024, exponent - 25);
    return sign ? -magnitude : magnitude;
}

namespace {

using onnx::TensorProto;

// The bits of a float16 that holds `value` exactly (values only ever come from float16 tensors).
uint16_t double_to_half(double value) {
    if (std::isnan(value)) return 0x7E00;
    const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    const double magnitude = std::fabs(value);
    if (std::isinf(magnitude)) return sign | 0x7C00;
    if (magnitude == 0) return sign;
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
    if (exponent - 1 < -14) return sign | static_cast<uint16_t>(std::ldexp(magnitude, 24));  // subnormal
    const auto mantissa = static_cast<uint16_t>(std::ldexp(magnitude, 11 - exponent) - 1024);
    return sign | static_cast<uint16_t>((exponent + 14) << 10) | mantissa;
}

double bfloat16_to_double(uint16_t bits) {
    const uint32_t wide = uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &wide, sizeof f);
    return f;
}

uint16_t double_to_bfloat16(double value) {
    const float f = static_cast<float>(value);
    uint32_t wide;
    std::memcpy(&wide, &f, sizeof wide);
    return static_cast<uint16_t>(wide >> 16);
}

size_t byte_width(int32_t type) {
    switch (type) {
        case TensorProto::BOOL: case TensorProto::INT8: case TensorProto::UINT8: return 1;
        case TensorProto::INT16: case TensorProto::UINT16: case TensorProto::FLOAT16: case TensorProto::BFLOAT16: return 2;
        case TensorProto::INT32: case TensorProto::UINT32: case TensorProto::FLOAT: return 4;
        default: return 8;
    }
}

// One element from `width` little-endian bytes, as the value's storage holds it.
void append_raw(TensorValue& value, uint64_t bits) {
    switch (value.type) {
        case TensorProto::FLOAT: {
            const auto narrow = static_cast<uint32_t>(bits);
            float f;
            std::memcpy(&f, &narrow, sizeof f);
            value.reals.push_back(f);
            return;
        }
        case TensorProto::DOUBLE: {
            double d;
            std::memcpy(&d, &bits, sizeof d);
            value.reals.push_back(d);
            return;
        }
        case TensorProto::FLOAT16: value.reals.push_back(half_to_double(static_cast<uint16_t>(bits))); return;
        case TensorProto::BFLOAT16: value.reals.push_back(bfloat16_to_double(static_cast<uint16_t>(bits))); return;
        default: value.ints.push_back(wrap_integer(value.type, bits)); return;
    }
}

// A tensor's values kept in its typed field rather than raw_data, in the field ONNX keeps each type in: how many
// there are (a complex element has two: real, imaginary), and each one's bit pattern through `visit` (a float's 32
// bits, a double's 64, an int32_data entry's low 32, where the narrow integers, bool, float16 and bfloat16 live).
uint64_t typed_value_count(const TensorProto& tensor) {
    switch (tensor.data_type()) {
        case TensorProto::FLOAT: case TensorProto::COMPLEX64: return static_cast<uint64_t>(tensor.float_data_size());
        case TensorProto::DOUBLE: case TensorProto::COMPLEX128: return static_cast<uint64_t>(tensor.double_data_size());
        case TensorProto::INT64: return static_cast<uint64_t>(tensor.int64_data_size());
        case TensorProto::UINT32: case TensorProto::UINT64: return static_cast<uint64_t>(tensor.uint64_data_size());
        default: return static_cast<uint64_t>(tensor.int32_data_size());
    }
}

template <typename Visit>
void for_each_typed_value(const TensorProto& tensor, Visit&& visit) {
    switch (tensor.data_type()) {
        case TensorProto::FLOAT:
        case TensorProto::COMPLEX64:
            for (float value : tensor.float_data()) {
                uint32_t bits;
                std::memcpy(&bits, &value, sizeof bits);
                visit(uint64_t{bits});
            }
            return;
        case TensorProto::DOUBLE:
        case TensorProto::COMPLEX128:
            for (double value : tensor.double_data()) {
                uint64_t bits;
                std::memcpy(&bits, &value, sizeof bits);
                visit(bits);
            }
            return;
        case TensorProto::INT64:
            for (int64_t value : tensor.int64_data()) visit(static_cast<uint64_t>(value));
            return;
        case TensorProto::UINT32:
        case TensorProto::UINT64:
            for (uint64_t value : tensor.uint64_data()) visit(value);
            return;
        default:
            for (int32_t value : tensor.int32_data()) visit(uint64_t{static_cast<uint32_t>(value)});
            return;
    }
}

uint64_t raw_bits(const TensorValue& value, size_t i) {
    switch (value.type) {
        case TensorProto::FLOAT: {
            const float f = static_cast<float>(value.reals[i]);
            uint32_t bits;
            std::memcpy(&bits, &f, sizeof bits);
            return bits;
        }
        case TensorProto::DOUBLE: {
            uint64_t bits;
            std::memcpy(&bits, &value.reals[i], sizeof bits);
            return bits;
        }
        case TensorProto::FLOAT16: return double_to_half(value.reals[i]);
        case TensorProto::BFLOAT16: return double_to_bfloat16(value.reals[i]);
        default: return static_cast<uint64_t>(value.ints[i]);
    }
}

// The shortest decimal that reads back as `value` in its type (float32 values as floats).
nlohmann::ordered_json real_json(double value, int32_t type) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    char text[64];
    std::to_chars_result end;
    if (type == TensorProto::DOUBLE) end = std::to_chars(text, text + sizeof text, value);
    else end = std::to_chars(text, text + sizeof text, static_cast<float>(value));
    double shortest = 0;
    std::from_chars(text, end.ptr, shortest);
    return shortest;
}

nlohmann::ordered_json nest(const TensorValue& value, size_t axis, size_t& at) {
    if (axis == value.dims.size()) {
        const size_t i = at++;
        if (value.is_real()) return real_json(value.reals[i], value.type);
        if (value.type == TensorProto::BOOL) return value.ints[i] != 0;
        if (value.type == TensorProto::UINT64) return static_cast<uint64_t>(value.ints[i]);
        return value.ints[i];
    }
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (int64_t i = 0; i < value.dims[axis]; ++i) array.push_back(nest(value, axis + 1, at));
    return array;
}

}  // namespace

std::optional<ElementKind> element_kind(int32_t type) {
    ElementKind kind;
    switch (type) {
        case TensorProto::INT8: kind = {true, true, false, false, false, 8}; break;
        case TensorProto::INT16: kind = {true, true, false, false, false, 16}; break;
        case TensorProto::INT32: kind = {true, true, false, false, false, 32}; break;
        case TensorProto::INT64: kind = {true, true, false, false, false, 64}; break;
        case TensorProto::UINT8: kind = {true, false, false, false, false, 8}; break;
        case TensorProto::UINT16: kind = {true, false, false, false, false, 16}; break;
        case TensorProto::UINT32: kind = {true, false, false, false, false, 32}; break;
        case TensorProto::UINT64: kind = {true, false, false, false, false, 64}; break;
        case TensorProto::BOOL: kind = {true, false, true, false, false, 1}; break;
        case TensorProto::FLOAT: kind = {false, true, false, true, true, 32}; break;
        case TensorProto::DOUBLE: kind = {false, true, false, true, true, 64}; break;
        case TensorProto::FLOAT16: kind = {false, true, false, true, false, 16}; break;
        case TensorProto::BFLOAT16: kind = {false, true, false, true, false, 16}; break;
        default: return std::nullopt;
    }
    return kind;
}

uint64_t TensorValue::count() const { return is_real() ? reals.size() : ints.size(); }

bool TensorValue::is_real() const {
    const auto kind = element_kind(type);
    return kind && kind->real;
}

std::optional<uint64_t> checked_count(const std::vector<int64_t>& dims, uint64_t limit) {
    uint64_t count = 1;
    bool empty = false;
    for (int64_t dim : dims) {
        if (dim < 0) return std::nullopt;
        if (dim == 0) empty = true;
        if (empty) continue;
        if (static_cast<uint64_t>(dim) > limit || count > limit / static_cast<uint64_t>(dim)) return std::nullopt;
        count *= static_cast<uint64_t>(dim);
    }
    return empty ? 0 : count;
}

std::optional<uint64_t> foldable_count(const std::vector<int64_t>& dims) {
    if (dims.size() > kMaxFoldRank) return std::nullopt;
    return checked_count(dims);
}

int64_t wrap_integer(int32_t type, uint64_t value) {
    if (type == TensorProto::INT64 || type == TensorProto::UINT64) return static_cast<int64_t>(value);  // the common case
    const auto kind = element_kind(type);
    if (!kind || kind->bits >= 64) return static_cast<int64_t>(value);
    if (kind->boolean) return value != 0;
    const uint64_t mask = (uint64_t{1} << kind->bits) - 1;
    uint64_t narrow = value & mask;
    if (kind->is_signed && (narrow >> (kind->bits - 1)) != 0) narrow |= ~mask;
    return static_cast<int64_t>(narrow);
}

Result<std::string> tensor_bytes(const TensorProto& tensor, uint64_t max_bytes) {
    const auto type = dtype_of_onnx(tensor.data_type());
    if (!type || *type == DType::String) {
        return Problem{"its element type " + onnx_type_name(tensor.data_type()) + " cannot be a kernel's table"};
    }
    if (tensor.data_location() == TensorProto::EXTERNAL) return Problem{"its values are stored in an external file"};
    const std::vector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
    const uint64_t width = info(*type).bits / 8;
    const auto count = checked_count(dims, max_bytes / width);
    if (!count) return Problem{"it takes more than " + std::to_string(max_bytes) + " bytes"};
    std::string out;
    // The typed fields: the parts of each element (a complex one has two), each `part` bytes wide.
    const uint64_t parts = info(*type).category == Category::Complex ? 2 : 1, part = width / parts;
    auto append = [&](uint64_t bits) {
        for (uint64_t b = 0; b < part; ++b) out += static_cast<char>((bits >> (8 * b)) & 0xFF);
    };
    uint64_t given = 0;
    if (!tensor.raw_data().empty()) {
        out = tensor.raw_data();
        given = out.size() / width;
        if (out.size() % width != 0) given = ~uint64_t{0};
    } else {
        given = typed_value_count(tensor) / parts;
        if (given == *count) for_each_typed_value(tensor, append);
    }
    if (given != *count || out.size() != *count * width) {
        return Problem{"it holds data for " + std::to_string(out.size() / width) + " elements, and its dims make " + std::to_string(*count)};
    }
    if (*type == DType::Bool) {
        for (char& byte : out) byte = byte != 0 ? 1 : 0;  // ONNX's bool: any nonzero byte is true
    }
    return out;
}

Result<TensorValue> read_tensor(const TensorProto& tensor) {
    if (!element_kind(tensor.data_type())) return Problem{"its element type is not folded"};
    if (tensor.data_location() == TensorProto::EXTERNAL) return Problem{"its values are stored in an external file"};
    if (static_cast<size_t>(tensor.dims_size()) > kMaxFoldRank) {
        return Problem{"its rank " + std::to_string(tensor.dims_size()) + " is above " + std::to_string(kMaxFoldRank)};
    }
    TensorValue value;
    value.type = tensor.data_type();
    value.dims.assign(tensor.dims().begin(), tensor.dims().end());
    for (int64_t dim : value.dims) {
        if (dim < 0) return Problem{"its dimension " + std::to_string(dim) + " is negative"};
    }
    const auto count = checked_count(value.dims);
    if (!count) return Problem{"it holds more than " + std::to_string(kMaxFoldElements) + " values"};
    const size_t width = byte_width(value.type);
    const std::string& raw = tensor.raw_data();
    uint64_t given = 0;
    if (!raw.empty()) {
        given = raw.size() / width;
        if (raw.size() % width == 0 && given == *count) {
            for (uint64_t i = 0; i < given; ++i) {
                uint64_t bits = 0;
                for (size_t b = 0; b < width; ++b) bits |= uint64_t{static_cast<unsigned char>(raw[i * width + b])} << (8 * b);
                append_raw(value, bits);
            }
        }
    } else {
        given = typed_value_count(tensor);
        if (given == *count) for_each_typed_value(tensor, [&](uint64_t bits) { append_raw(value, bits); });
    }
    if (given != *count || value.count() != *count) {
        return Problem{"it has " + std::to_string(given) + " values for " + std::to_string(*count) + " elements"};
    }
    return value;
}

void write_tensor(const TensorValue& value, TensorProto* tensor) {
    tensor->Clear();
    tensor->set_data_type(value.type);
    for (int64_t dim : value.dims) tensor->add_dims(dim);
    const size_t width = byte_width(value.type);
    std::string raw(value.count() * width, '\0');
    for (size_t i = 0; i < value.count(); ++i) {
        const uint64_t bits = raw_bits(value, i);
        for (size_t b = 0; b < width; ++b) raw[i * width + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
    }
    tensor->set_raw_data(raw);
}

std::string npy_file(const TensorValue& value) {
    // bfloat16 as its uint16 bit patterns (NumPy has no bfloat16); every other type kernelgen has by its own descr.
    const auto type = dtype_of_onnx(value.type);
    const std::string descr = type ? *npy_descr(*type) : "<f8";  // DOUBLE, the last type a value holds
    std::vector<uint64_t> shape(value.dims.begin(), value.dims.end());
    onnx::TensorProto tensor;
    write_tensor(value, &tensor);
    return npy_header(descr, shape) + tensor.raw_data();
}

nlohmann::ordered_json value_json(const TensorValue& value) {
    size_t at = 0;
    return nest(value, 0, at);
}

}  // namespace kernelgen
