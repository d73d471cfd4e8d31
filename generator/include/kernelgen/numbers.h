// Numbers as the command line and the spec reader take them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kernelgen {

// A command-line number: decimal digits only (no sign, no spaces), from `least` to `most`; nothing otherwise.
std::optional<uint64_t> parse_decimal(const std::string& text, uint64_t least, uint64_t most);

}  // namespace kernelgen
