// Element types, index types and reductions: the one table every other part of kernelgen reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernelgen {

enum class DType { Float32, Float64, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Bool };

// How values of a type combine under a reduction; new ONNX types add a category, not a special case.
enum class Category { Float, SignedInt, UnsignedInt, Bool };

struct DTypeInfo {
    DType id;
    std::string_view name;     // canonical spec spelling (ONNX's numpy-style name)
    std::string_view alias;    // ONNX's other spelling ("float", "double"), or empty
    std::string_view c_type;   // C type of one element in the generated code
    Category category;
    unsigned bits;
};

const DTypeInfo& info(DType type);
std::optional<DType> parse_dtype(std::string_view spelling);
// Every accepted spelling, for "allowed" lists in messages.
std::string dtype_spellings();

enum class IndexType { Int32, Int64 };
std::string_view c_type(IndexType type);
std::string_view name(IndexType type);
std::optional<IndexType> parse_index_type(std::string_view spelling);

enum class Reduction { None, Add, Mul, Max, Min };
std::string_view name(Reduction reduction);
std::optional<Reduction> parse_reduction(std::string_view spelling);

}  // namespace kernelgen
