// "Did you mean ...?": the hints a message gives for a misspelt key, value or name.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kernelgen {

// Levenshtein distance, letter case not counted.
size_t edit_distance(std::string_view a, std::string_view b);

// "; did you mean \"candidate\"?" for the candidate closest to `given` (at most `most_edits` edits, letter case
// not counted), or "" when none is that close.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates, size_t most_edits = 2);

// The same for a name the user typed for one of a model's (a dimension, an input): the closest candidate at most
// (the longer name's length - 1) / 2 edits away, so that "Batch" finds "batch" and "sq" finds "seq", but "M" is
// not taken for "N".
std::string did_you_mean_name(std::string_view given, const std::vector<std::string>& candidates);

// A hint for a misspelt value of a closed set, where plain edit distance would mislead ("int61" is not "int16"):
// the value differing only in case, the value another tool's spelling means ("fp16", ONNX's "FLOAT"), or a slip
// of the letters with the digits kept ("flaot32", "unit8").
std::string did_you_mean_value(std::string_view given, const std::vector<std::string>& values,
                               const std::map<std::string, std::string, std::less<>>& aliases);

// "a, b, c"
std::string join(const std::vector<std::string>& items);

}  // namespace kernelgen
