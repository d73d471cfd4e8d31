// Shapes of tensors, and the limits that keep every offset and product exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kernelgen {

using Shape = std::vector<uint64_t>;

// Largest element count of any tensor: keeps every offset and product exact in 64 bits.
constexpr uint64_t kMaxElements = uint64_t{1} << 40;
constexpr size_t kMaxRank = 32;

uint64_t element_count(const Shape& shape);
std::string format_shape(const Shape& shape);  // "[3, 2]"

}  // namespace kernelgen
