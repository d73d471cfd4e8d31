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
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/output_files.h"

namespace kernelgen {

// The turn of an import that writes into `dir`: an exclusive lock (flock) on the nearest existing folder above
// `dir`, held until destroyed, so that imports into one folder (and into folders beside it) check and write one
// at a time. A folder that cannot be opened or locked (some network file systems) is used without the lock.
class ImportTurn {
public:
    explicit ImportTurn(const std::filesystem::path& dir);
    ~ImportTurn();
    ImportTurn(const ImportTurn&) = delete;
    ImportTurn& operator=(const ImportTurn&) = delete;

private:
    int fd_ = -1;
};

// Why `files`, an import of `model_path` into `dir` (import_outputs()), must not be written: a message naming a
// file that another model's report in `dir` names, that report and its model, and what to do instead; or nothing
// when no other report names any of them. Reports are the files *.import.json that start as one
// (starts_as_import_report()); this model's own report, and files that are not regular files, are not read.
std::optional<std::string> other_import_clash(const std::filesystem::path& dir, const std::vector<OutputFile>& files,
                                              const std::string& model_path);

struct ImportResult;

// Writes the files of a successful import of `model_path` into `dir` (import_outputs()): in the import's turn, after
// the check above, through write_outputs() with the model protected. The report's error says what failed.
WriteReport write_import(const std::filesystem::path& dir, const ImportResult& result, const std::string& model_path);

}  // namespace kernelgen
