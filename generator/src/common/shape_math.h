// Arithmetic on shapes that both wings need: element counts checked against a limit, and row-major strides.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernelgen/shape.h"

namespace kernelgen {

// The element count of a shape, or nothing when it exceeds kMaxElements (computed without overflow).
std::optional<uint64_t> bounded_count(const Shape& shape);

// Row-major strides of `dims` in elements: the last dimension's is 1. Dims are the spec's (uint64_t) or ONNX's
// (int64_t, none negative).
template <typename Dim>
std::vector<uint64_t> row_major_strides(const std::vector<Dim>& dims) {
    std::vector<uint64_t> strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * static_cast<uint64_t>(dims[i]);
    return strides;
}

}  // namespace kernelgen
