#include "codegen/ir/indexed_copy.h"

#include <algorithm>

namespace kernelgen {

bool IndexedCopy::runtime_bounded() const {
    return std::any_of(components.begin(), components.end(),
                       [](const IndexComponent& component) { return !component.bound_parameter.empty(); });
}

uint64_t IndexedCopy::point_count() const {
    uint64_t count = 1;
    for (const auto& loop : loops) count *= loop.extent;
    return count;
}

uint64_t IndexedCopy::copy_count() const { return point_count() * (runs ? runs->size() : 1); }

}  // namespace kernelgen
