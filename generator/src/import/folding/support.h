// What the folding families share: making values, reading integer lists, the folding budget, numpy broadcasting.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "import/model/tensor_value.h"

namespace kernelgen::folding {

using Dims = std::vector<int64_t>;
using Outputs = std::optional<std::vector<TensorValue>>;

// A value of `type` and `dims`, every element zero.
TensorValue make(int32_t type, Dims dims);
// Element `from_at` of `from` copied to element `at` of `to` (of the same type).
void copy_element(TensorValue& to, uint64_t at, const TensorValue& from, uint64_t from_at);
TensorValue scalar_int64(int64_t value);
TensorValue vector_int64(const Dims& values);

// The values of a 1-D (or, where ONNX allows, rank-0) int32/int64 tensor.
std::optional<Dims> int_list(const TensorValue* value, bool allow_scalar = false);

// Whether a value of these dims may be made: a foldable count (see foldable_count) of at most `limit` elements, the
// part of the folding budget left (checked before computing, so that a value over budget costs nothing).
bool fits(const Dims& dims, uint64_t limit);

// numpy's multidirectional broadcast of several shapes, or nothing when they do not broadcast.
std::optional<Dims> broadcast(const std::vector<const Dims*>& shapes);

// Walks every element of `out_dims` in order and gives, for each input, the flat index it broadcasts from.
void for_each_broadcast(const Dims& out_dims, const std::vector<const Dims*>& shapes,
                        const std::function<void(uint64_t out, const std::vector<uint64_t>& from)>& visit);

// a `op` b for Add, Sub, Mul, Div, Mod (with ONNX's fmod), Min, Max: integers in the type's own width, wrapping
// (nothing on a division by zero); reals as float32 or float64.
std::optional<int64_t> integer_binary(const std::string& op, int32_t type, int64_t a, int64_t b, int64_t fmod);
std::optional<double> real_binary(const std::string& op, int32_t type, double a, double b, int64_t fmod);

}  // namespace kernelgen::folding
