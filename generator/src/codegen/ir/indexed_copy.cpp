#include "codegen/ir/indexed_copy.h"

#include <algorithm>
#include <cstdint>

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

CheckedRange checked_range(const IndexComponent& component, IndexType index_type) {
    __extension__ typedef __int128 Wide;  // s up to 2^40 and sums up to 2^62 either way
    const bool int32 = index_type == IndexType::Int32;
    const Wide type_low = int32 ? INT32_MIN : INT64_MIN, type_high = int32 ? INT32_MAX : INT64_MAX;
    const Wide s = component.bound;
    const Wide low = std::max(type_low, -s - component.addend_low), high = std::min(type_high, s - 1 - component.addend_high);
    return CheckedRange{static_cast<int64_t>(low), static_cast<int64_t>(high), low == type_low, high == type_high};
}

uint64_t IndexedCopy::copy_count() const { return point_count() * (runs ? runs->size() : 1); }

}  // namespace kernelgen
