// A tensor's value known at import time (an initializer, a Constant, or what constant folding computed): its
// ONNX element type, dims and elements, read from and written to ONNX's TensorProto, and shown as nested JSON.
#pragma once

#include <onnx/onnx_pb.h>
#include "kernelgen/result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kernelgen {

// The most elements a value import reads, folds or writes (documented in the README): beyond it a tensor is
// left to run time.
constexpr uint64_t kMaxFoldElements = uint64_t{1} << 20;
// The highest rank of a value import reads, folds or writes: kernelgen's own limit for a spec's tensors (kMaxRank),
// so that no walk over a value's dimensions goes deeper than that.
constexpr size_t kMaxFoldRank = 32;

// What an ONNX element type is, for folding: integers (signed or not, of `bits` bits), bool, or floating point.
struct ElementKind {
    bool integer = false;  // INT*, UINT*, BOOL
    bool is_signed = false;
    bool boolean = false;
    bool real = false;    // FLOAT, DOUBLE, FLOAT16, BFLOAT16
    bool exact = false;   // FLOAT and DOUBLE: arithmetic is folded; FLOAT16/BFLOAT16 values are only moved
    int bits = 0;
};

// ONNX's own name of an element type ("FLOAT8E4M3FN"; "element type 99" for one ONNX does not define).
std::string onnx_type_name(int32_t type);

// kernelgen's name of an ONNX element type ("float32"), or ONNX's own for a type kernelgen does not have.
std::string element_type_name(int32_t type);

// A float16's value (its bits), exactly.
double half_to_double(uint16_t bits);

// The kind of a folding element type, or nothing (strings, complex numbers and unknown types are not folded).
std::optional<ElementKind> element_kind(int32_t type);

struct TensorValue {
    int32_t type = 0;           // onnx::TensorProto::DataType
    std::vector<int64_t> dims;  // each >= 0
    // Integer types and bool: the value (UINT64: its bit pattern; bool: 0 or 1). Floating types: in `reals`,
    // exactly (FLOAT16 and BFLOAT16 widened).
    std::vector<int64_t> ints;
    std::vector<double> reals;

    uint64_t count() const;  // number of elements (the product of dims)
    bool is_real() const;
};

// The element count of `dims`, or nothing when a dim is negative or the count passes `limit`.
std::optional<uint64_t> checked_count(const std::vector<int64_t>& dims, uint64_t limit = kMaxFoldElements);

// The element count of a value import may hold with these dims: at most kMaxFoldRank of them, none negative, at
// most kMaxFoldElements elements; nothing otherwise.
std::optional<uint64_t> foldable_count(const std::vector<int64_t>& dims);

// `value` made an element of `type`: integers wrapped to its width (two's complement), bool to 0 or 1.
int64_t wrap_integer(int32_t type, uint64_t value);

// Reads a TensorProto's value (raw_data or the typed field), or the problem: a type that is not folded, data stored
// outside the file, a count that does not match the dims, more than kMaxFoldElements elements or kMaxFoldRank
// dimensions.
Result<TensorValue> read_tensor(const onnx::TensorProto& tensor);

// The elements of a tensor of any size (a weight: an embedding table) as the bytes a kernel's constant data holds:
// each element little-endian (complex: real, then imaginary part), from raw_data or the typed field ONNX keeps them
// in. The problem for a string or unknown type, data stored outside the model file, a count that does not match
// the dims, or more than `max_bytes` bytes.
Result<std::string> tensor_bytes(const onnx::TensorProto& tensor, uint64_t max_bytes);

// Writes `value` into `tensor` (raw_data, little-endian), replacing its type, dims and data.
void write_tensor(const TensorValue& value, onnx::TensorProto* tensor);

// The elements nested as the dims (a rank-0 value is the element itself). Integers as JSON integers (UINT64
// unsigned), bool as true/false, floating values as the shortest decimal that reads back to the same value of
// their type, and NaN, infinities as the strings "NaN", "Infinity", "-Infinity" (JSON has no such numbers).
nlohmann::ordered_json value_json(const TensorValue& value);

// The value as a NumPy .npy file (format 1.0, C order, little-endian): the bit patterns of its elements exactly as
// ONNX stores them; bfloat16, which NumPy lacks, as its uint16 bits.
std::string npy_file(const TensorValue& value);

}  // namespace kernelgen
