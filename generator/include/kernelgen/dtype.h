// Element types, index types and reductions: the one table every other part of kernelgen reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernelgen {

enum class DType {
    Float32, Float64, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Bool,
    Float16, BFloat16, Complex64, Complex128, String
};

// How values of a type combine under a reduction; a new ONNX type adds a row, and at most a category.
enum class Category {
    Float,        // float, double: C arithmetic
    HalfFloat,    // float16, bfloat16: bit patterns in uint16_t, arithmetic in float32, rounded back
    Complex,      // complex64, complex128: a struct of (real, imaginary)
    SignedInt,
    UnsignedInt,
    Bool,
    String        // const char *: pointers are copied, never the characters
};

struct DTypeInfo {
    DType id;
    std::string_view name;     // canonical spec spelling (ONNX's numpy-style name)
    std::string_view alias;    // ONNX's other spelling ("float", "double"), or empty
    std::string_view c_type;   // C type of one element in the generated code
    Category category;
    unsigned bits;             // of one element (of the pointer's target for string: 0)
    int32_t onnx_type;         // ONNX's element type (TensorProto.DataType: FLOAT is 1, ...)
    bool ieee_double;          // its values are 64-bit IEEE doubles (float64, complex128's parts)
};

const DTypeInfo& info(DType type);
// The type of an ONNX element type (TensorProto.DataType), when kernelgen has it.
std::optional<DType> dtype_of_onnx(int32_t onnx_type);
std::optional<DType> parse_dtype(std::string_view spelling);
// Every accepted spelling: as one text for "allowed" lists in messages, and one by one.
std::string dtype_spellings();
std::vector<std::string> dtype_spelling_list();

enum class IndexType { Int32, Int64 };
std::string_view c_type(IndexType type);
std::string_view name(IndexType type);
std::optional<IndexType> parse_index_type(std::string_view spelling);

enum class Reduction { None, Add, Mul, Max, Min };
std::string_view name(Reduction reduction);
std::optional<Reduction> parse_reduction(std::string_view spelling);

// Whether ScatterND's reduction is defined for a type: complex has no order (no max/min), and a string
// reduction has no meaning; every other pair is.
bool reduction_allowed(DType type, Reduction reduction);
std::string allowed_reductions(DType type);  // "none, add, mul" ...

}  // namespace kernelgen
