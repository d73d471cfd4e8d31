// The command line's import options as the library reads them: --dim, --input, --max-count, --time-limit,
// --memory-limit, --prefix.
#include <algorithm>
#include <cctype>

#include "common/c_names.h"
#include "kernelgen/import.h"

namespace kernelgen {

Result<std::pair<std::string, int64_t>> parse_dim_option(const std::string& text) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
        return Problem{"--dim takes NAME=N (a dimension's name and its value), got " + in_quotes(text)};
    }
    const auto value = parse_decimal(text.substr(equals + 1), 0, kMaxElements);
    if (!value) return Problem{"--dim " + text + ": the value must be a whole number from 0 to 2^40"};
    return std::make_pair(text.substr(0, equals), static_cast<int64_t>(*value));
}

Result<InputShape> parse_input_option(const std::string& text) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
        return Problem{"--input takes NAME=SHAPE (an input's name and its shape, as 1x16000, or [] for rank 0), got " +
                       in_quotes(text)};
    }
    InputShape input;
    input.name = text.substr(0, equals);
    input.text = "--input " + text;
    const std::string shape = text.substr(equals + 1);
    if (shape == "[]" || shape == "scalar") return input;
    size_t at = 0;
    while (true) {
        const size_t end = std::min(shape.find('x', at), shape.size());
        const auto dim = parse_decimal(shape.substr(at, end - at), 0, kMaxElements);
        if (!dim || input.dims.size() == kMaxRank) {
            return Problem{"--input " + text + ": SHAPE is dimensions from 0 to 2^40 joined by 'x' (1x16000), at most " +
                           std::to_string(kMaxRank) + " of them, or [] for rank 0"};
        }
        input.dims.push_back(static_cast<int64_t>(*dim));
        if (end == shape.size()) break;
        at = end + 1;
    }
    return input;
}

Result<InputValue> parse_value_option(const std::string& text) {
    const size_t equals = text.find('=');
    const std::string usage = "--value takes NAME=V[,V...] (a graph input's name and the values it holds at every "
                              "call, as sr=16000), got " + in_quotes(text);
    if (equals == std::string::npos || equals == 0) return Problem{usage};
    InputValue input;
    input.name = text.substr(0, equals);
    input.text = "--value " + text;
    const std::string list = text.substr(equals + 1);
    for (size_t at = 0; at <= list.size();) {
        const size_t end = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, end - at);
        const bool number = !item.empty() && item.size() <= 64 &&
                            std::all_of(item.begin(), item.end(), [](char c) {
                                return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.' ||
                                       c == 'e' || c == 'E';
                            });
        if (input.values.size() == kMaxInputValues) {
            return Problem{input.text.substr(0, 64) + "...: at most " + std::to_string(kMaxInputValues) + " values"};
        }
        if (!number) return Problem{usage + ": each value is a number (16000, -1, 0.5)"};
        input.values.push_back(item);
        at = end + 1;
    }
    return input;
}

Result<uint64_t> parse_limit_option(const std::string& option, const std::string& text, const std::string& unit,
                                    uint64_t most) {
    const auto value = parse_decimal(text, 1, most);
    if (!value) return Problem{option + " " + text + ": the limit must be a whole number of " + unit + " from 1 to " + std::to_string(most)};
    return *value;
}

namespace {

// `OPTION NODE=N` of a bound N from 1 to kMaxCountBound (a kernel's `what` is a uint32_t); NODE may hold '='.
Result<std::pair<std::string, uint64_t>> parse_node_bound(const std::string& option, const std::string& text,
                                                          const std::string& takes, const std::string& what) {
    const size_t equals = text.rfind('=');
    if (equals == std::string::npos || equals == 0) return Problem{option + " takes NODE=N (" + takes + "), got " + in_quotes(text)};
    const auto value = parse_decimal(text.substr(equals + 1), 1, kMaxCountBound);
    if (!value) {
        return Problem{option + " " + text + ": the bound must be a whole number from 1 to " + std::to_string(kMaxCountBound) +
                       " (a kernel's " + what + " is a uint32_t)"};
    }
    return std::make_pair(text.substr(0, equals), *value);
}

}  // namespace

Result<std::pair<std::string, uint64_t>> parse_max_count_option(const std::string& text) {
    return parse_node_bound("--max-count", text, "an indexing node's name and the most rows its run-time count has", "count");
}

Result<std::pair<std::string, uint64_t>> parse_max_extent_option(const std::string& text) {
    return parse_node_bound("--max-extent", text, "a Gather node's name and the largest extent its data has along each axis "
                            "made at run time", "extent");
}

Result<Ok> check_prefix(const std::string& prefix) {
    if (prefix.empty()) return ok();
    const bool identifier = std::isalpha(static_cast<unsigned char>(prefix[0])) &&
                            std::all_of(prefix.begin(), prefix.end(), [](char ch) {
                                return (std::isalnum(static_cast<unsigned char>(ch)) && static_cast<unsigned char>(ch) < 0x80) || ch == '_';
                            });
    if (!identifier) {
        return Problem{"prefix " + in_quotes(prefix) + " is not the start of a C identifier (a letter, then letters, digits and '_')"};
    }
    if (prefix.find("__") != std::string::npos) return Problem{"prefix " + in_quotes(prefix) + " contains \"__\""};
    constexpr size_t kMaxPrefix = 32;
    if (prefix.size() > kMaxPrefix) {
        return Problem{"prefix " + in_quotes(prefix) + " is " + std::to_string(prefix.size()) + " characters long (at most " +
                       std::to_string(kMaxPrefix) + ")"};
    }
    // The worst case for the rules on beginnings ("mem" or "str" and a lowercase letter, "kernelgen...").
    if (auto name = check_name(prefix + "x"); !name) {
        return Problem{"prefix " + in_quotes(prefix) + " makes invalid names: " + name.problem()};
    }
    return ok();
}

}  // namespace kernelgen
