#include "common/hints.h"

#include <algorithm>
#include <cctype>

#include "kernelgen/diagnostics.h"

namespace kernelgen {

namespace {

// Edits that turn `a` into `b`, letter case not counted; with `swaps`, a swap of two neighbouring characters counts
// as one edit (optimal string alignment), not two.
size_t edits_between(std::string_view a, std::string_view b, bool swaps) {
    auto same = [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    };
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
            if (swaps && i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

}  // namespace

// Levenshtein distance, for "did you mean" hints on misspelt keys and values.
size_t edit_distance(std::string_view a, std::string_view b) { return edits_between(a, b, false); }

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates, size_t most_edits) {
    std::string best;
    size_t best_distance = most_edits + 1;  // suggest only close matches
    for (const auto& candidate : candidates) {
        size_t distance = edit_distance(given, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best.empty() ? "" : "; did you mean " + in_quotes(best) + "?";
}

std::string did_you_mean_name(std::string_view given, const std::vector<std::string>& candidates) {
    if (given.empty()) return "";
    std::string best;
    size_t best_distance = 0;
    for (const auto& candidate : candidates) {
        const size_t distance = edit_distance(given, candidate);
        const size_t most_edits = (std::max(given.size(), candidate.size()) - 1) / 2;
        if (distance <= most_edits && (best.empty() || distance < best_distance)) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best.empty() ? "" : "; did you mean " + in_quotes(best) + "?";
}

// A hint for a misspelt value of a closed set, where plain edit distance would mislead ("int61" is not "int16"):
// the value differing only in case, the value another tool's spelling means ("fp16"), or a slip of the letters.
std::string did_you_mean_value(std::string_view given, const std::vector<std::string>& values,
                               const std::map<std::string, std::string, std::less<>>& aliases) {
    std::string lower(given);
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const auto& value : values) {
        if (value == lower) return "; did you mean " + in_quotes(value) + "?";
    }
    auto alias = aliases.find(lower);
    if (alias != aliases.end()) return "; did you mean " + in_quotes(alias->second) + "?";
    // A slip of the letters ("flaot32", "unit8", "bol"): among the values with the same digits in the same order
    // (so that "int61" is not taken for "int16", nor "float8" for "float16"), the one closest by edits that count
    // a swap of two neighbours as one, at most 2 away; none where two are as close.
    auto digits = [](std::string_view text) {
        std::string out;
        for (char ch : text) {
            if (std::isdigit(static_cast<unsigned char>(ch))) out += ch;
        }
        return out;
    };
    std::string best;
    size_t best_distance = 3;
    bool tied = false;
    for (const auto& value : values) {
        if (digits(value) != digits(lower)) continue;
        const size_t edits = edits_between(lower, value, true);
        if (edits < best_distance) {
            best = value;
            best_distance = edits;
            tied = false;
        } else if (edits == best_distance) {
            tied = true;
        }
    }
    return best.empty() || tied ? "" : "; did you mean " + in_quotes(best) + "?";
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

}  // namespace kernelgen
