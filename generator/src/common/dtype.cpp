#include "kernelgen/dtype.h"

#include <array>

namespace kernelgen {
namespace {

// The columns: the type, its spec spelling and ONNX's other one, its C type, its category, its bits, its ONNX
// element type (TensorProto.DataType), and whether its values are 64-bit IEEE doubles (a target whose double is
// narrower refuses its kernels).
constexpr std::array<DTypeInfo, 16> kTypes{{
    {DType::Float32, "float32", "float", "float", Category::Float, 32, 1, false},
    {DType::Float64, "float64", "double", "double", Category::Float, 64, 11, true},
    {DType::Int8, "int8", "", "int8_t", Category::SignedInt, 8, 3, false},
    {DType::Int16, "int16", "", "int16_t", Category::SignedInt, 16, 5, false},
    {DType::Int32, "int32", "", "int32_t", Category::SignedInt, 32, 6, false},
    {DType::Int64, "int64", "", "int64_t", Category::SignedInt, 64, 7, false},
    {DType::UInt8, "uint8", "", "uint8_t", Category::UnsignedInt, 8, 2, false},
    {DType::UInt16, "uint16", "", "uint16_t", Category::UnsignedInt, 16, 4, false},
    {DType::UInt32, "uint32", "", "uint32_t", Category::UnsignedInt, 32, 12, false},
    {DType::UInt64, "uint64", "", "uint64_t", Category::UnsignedInt, 64, 13, false},
    {DType::Bool, "bool", "", "bool", Category::Bool, 8, 9, false},
    {DType::Float16, "float16", "", "uint16_t", Category::HalfFloat, 16, 10, false},
    {DType::BFloat16, "bfloat16", "", "uint16_t", Category::HalfFloat, 16, 16, false},
    {DType::Complex64, "complex64", "", "kernelgen_complex64", Category::Complex, 64, 14, false},
    {DType::Complex128, "complex128", "", "kernelgen_complex128", Category::Complex, 128, 15, true},
    {DType::String, "string", "", "const char *", Category::String, 0, 8, false},
}};

constexpr std::array<std::string_view, 5> kReductions{"none", "add", "mul", "max", "min"};

}  // namespace

const DTypeInfo& info(DType type) {
    for (const auto& entry : kTypes) {
        if (entry.id == type) return entry;
    }
    return kTypes.front();  // unreachable: every enumerator has a row
}

std::optional<DType> dtype_of_onnx(int32_t onnx_type) {
    for (const auto& entry : kTypes) {
        if (entry.onnx_type == onnx_type) return entry.id;
    }
    return std::nullopt;
}

std::optional<DType> parse_dtype(std::string_view spelling) {
    for (const auto& entry : kTypes) {
        if (spelling == entry.name || (!entry.alias.empty() && spelling == entry.alias)) return entry.id;
    }
    return std::nullopt;
}

std::vector<std::string> dtype_spelling_list() {
    std::vector<std::string> out;
    for (const auto& entry : kTypes) {
        out.emplace_back(entry.name);
        if (!entry.alias.empty()) out.emplace_back(entry.alias);
    }
    return out;
}

std::string dtype_spellings() {
    std::string out;
    for (const auto& entry : kTypes) {
        if (!out.empty()) out += ", ";
        out += entry.name;
        if (!entry.alias.empty()) out += std::string(" or ") + std::string(entry.alias);
    }
    return out;
}

std::string_view c_type(IndexType type) { return type == IndexType::Int32 ? "int32_t" : "int64_t"; }
std::string_view name(IndexType type) { return type == IndexType::Int32 ? "int32" : "int64"; }

std::optional<IndexType> parse_index_type(std::string_view spelling) {
    if (spelling == "int32") return IndexType::Int32;
    if (spelling == "int64") return IndexType::Int64;
    return std::nullopt;
}

std::string_view name(Reduction reduction) { return kReductions[static_cast<size_t>(reduction)]; }

std::optional<Reduction> parse_reduction(std::string_view spelling) {
    for (size_t i = 0; i < kReductions.size(); ++i) {
        if (spelling == kReductions[i]) return static_cast<Reduction>(i);
    }
    return std::nullopt;
}

bool reduction_allowed(DType type, Reduction reduction) {
    switch (info(type).category) {
        case Category::String: return reduction == Reduction::None;
        case Category::Complex: return reduction != Reduction::Max && reduction != Reduction::Min;
        default: return true;
    }
}

std::string allowed_reductions(DType type) {
    std::string out;
    for (size_t i = 0; i < kReductions.size(); ++i) {
        if (reduction_allowed(type, static_cast<Reduction>(i))) out += (out.empty() ? "" : ", ") + std::string(kReductions[i]);
    }
    return out;
}

}  // namespace kernelgen
