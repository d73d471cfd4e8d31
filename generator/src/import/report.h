// What import writes: each spec file's text (pretty-printed JSON, keys in a fixed order) and the report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "import/analysis/model_analysis.h"
#include "import/node/held_tables.h"
#include "kernelgen/import.h"

namespace kernelgen {

// One key per line in the order given; nested constant indices one row per line.
std::string spec_text(const nlohmann::ordered_json& spec);

// A node's entry in the report: where it is (its path, graph, position, name and operator).
nlohmann::ordered_json node_entry(const NodeRef& node);
// What the entry of a folded node adds: its value, or the file that holds it, its type and shape.
void report_folded(nlohmann::ordered_json& entry, const FoldedNode& folded);
// What the entry of a node that became a kernel adds: its spec and kernel, the tensors the kernel holds ("weights":
// their tensors and files, and `held`'s words on their form), its run-time counts ("bounded").
void report_spec(nlohmann::ordered_json& entry, const ImportedKernel& kernel, const HeldTables& held);

// The report (docs/import.md): the model, the dimensions bound, the counts, and `entries`, one per indexing node.
std::string make_report(const ImportResult& result, const ModelAnalysis& analysis, const ImportOptions& options,
                        const std::string& file, nlohmann::ordered_json entries);

}  // namespace kernelgen
