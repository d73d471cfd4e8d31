#include "kernelgen/numbers.h"

#include <algorithm>

namespace kernelgen {

std::optional<uint64_t> parse_decimal(const std::string& text, uint64_t least, uint64_t most) {
    // At most as many digits as `most` has (leading zeros included): std::stoull never sees an overflow.
    if (text.empty() || text.size() > std::to_string(most).size() ||
        !std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        return std::nullopt;
    }
    const uint64_t value = std::stoull(text);
    if (value < least || value > most) return std::nullopt;
    return value;
}

}  // namespace kernelgen
