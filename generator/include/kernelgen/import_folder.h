// One output folder, several models: what an import may write where other models' imports already are.
//
// An import's report (DIR/<model file stem>.import.json) names the files of that import: its specs, their data
// files and the large folded values. Two models whose indexing nodes have the same names (two exports of one
// network, say), imported into one folder with the same prefix, would write files of the same names: the second
// would replace the first's specs, and the first's report would then name specs the second wrote. So an import
// refuses to write a file that another model's report names, before writing anything. Imports into one folder take
// turns for the check and the write, so two at once behave as one after the other.
#pragma once

#include <filesystem>
#include <string>

#include "kernelgen/output_files.h"

namespace kernelgen {

struct ImportResult;

// Writes the files of a successful import of `model_path` into `dir` (import_outputs()): in the import's turn (an
// exclusive lock on the nearest existing folder above `dir`), after checking that no other model's report there
// names any of them (the rule above), through write_outputs() with the model protected. The report's error says
// what failed.
WriteReport write_import(const std::filesystem::path& dir, const ImportResult& result, const std::string& model_path);

}  // namespace kernelgen
