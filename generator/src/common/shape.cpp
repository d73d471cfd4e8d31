#include "kernelgen/shape.h"

#include <algorithm>

#include "common/shape_math.h"

namespace kernelgen {

uint64_t element_count(const Shape& shape) {
    uint64_t count = 1;
    for (uint64_t dim : shape) count *= dim;
    return count;
}

std::string format_shape(const Shape& shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

// The element count of a shape, or nothing when it exceeds kMaxElements (computed without overflow).
std::optional<uint64_t> bounded_count(const Shape& shape) {
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
    uint64_t count = 1;
    for (uint64_t dim : shape) {
        if (dim > kMaxElements || count > kMaxElements / dim) return std::nullopt;
        count *= dim;
    }
    return count;
}

}  // namespace kernelgen
