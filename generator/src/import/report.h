// What import writes: each spec file's text (pretty-printed JSON, keys in a fixed order) and the report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "import/analysis/model_analysis.h"
#include "kernelgen/import.h"

namespace kernelgen {

// One key per line in the order given; nested constant indices one row per line.
std::string spec_text(const nlohmann::ordered_json& spec);

// The report (docs/import.md): the model, the dimensions bound, the counts, and `entries`, one per indexing node.
std::string make_report(const ImportResult& result, const ModelAnalysis& analysis, const ImportOptions& options,
                        const std::string& file, nlohmann::ordered_json entries);

}  // namespace kernelgen
