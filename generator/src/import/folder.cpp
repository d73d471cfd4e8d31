#include "kernelgen/import_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "kernelgen/import.h"
#include "kernelgen/spec.h"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Largest report, or spec, read for the names it holds (a report of 10,000 nodes is a few MB).
constexpr std::uintmax_t kMaxReadBytes = std::uintmax_t{256} << 20;

// The nearest existing folder above `dir` (its parent when that exists).
fs::path anchor_of(const fs::path& dir) {
    std::error_code error;
    fs::path path = fs::absolute(dir, error).lexically_normal();
    if (error) return {};
    if (!path.has_filename()) path = path.parent_path();  // "out/" is "out"
    path = path.parent_path();
    while (!path.empty() && !fs::is_directory(path, error)) {
        if (path == path.root_path()) return {};
        path = path.parent_path();
    }
    return path;
}

// The text of `path` when it is a regular file (not through a link) of at most kMaxReadBytes.
std::optional<std::string> read_regular(const fs::path& path) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(path, error);
    if (error || !fs::is_regular_file(status)) return std::nullopt;
    const std::uintmax_t size = fs::file_size(path, error);
    if (error || size > kMaxReadBytes) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return std::nullopt;
    return text;
}

void add_name(std::set<std::string>& names, const Json& object, const char* key) {
    if (!object.is_object()) return;
    auto at = object.find(key);
    if (at != object.end() && at->is_string()) {
        const std::string name = at->get<std::string>();
        if (!name.empty() && name.find('/') == std::string::npos) names.insert(name);
    }
}

// Every file a spec's kernel object names: the value of each key "..._file", at any depth (a table's parts too).
void add_file_names(std::set<std::string>& names, const Json& value) {
    if (!value.is_object()) return;
    for (const auto& item : value.items()) {
        const std::string& key = item.key();
        if (key.size() > 5 && key.compare(key.size() - 5, 5, "_file") == 0) add_name(names, value, key.c_str());
        add_file_names(names, item.value());
    }
}

// The files of the import a report describes: what it names (specs, data files, folded values), and the files
// those specs name.
std::set<std::string> files_of_report(const fs::path& dir, const Json& report) {
    std::set<std::string> names;
    auto nodes = report.find("nodes");
    if (nodes == report.end() || !nodes->is_array()) return names;
    for (const auto& node : *nodes) {
        add_name(names, node, "spec");
        add_name(names, node, "folded_file");
        if (node.is_object() && node.contains("weights")) {
            add_name(names, node["weights"], "data_file");
            add_name(names, node["weights"], "updates_file");
        }
        if (!node.is_object() || !node.contains("spec") || !node["spec"].is_string()) continue;
        const std::string spec_name = node["spec"].get<std::string>();
        if (spec_name.find('/') != std::string::npos) continue;
        const auto text = read_regular(dir / spec_name);
        if (!text) continue;
        const Json spec = Json::parse(*text, nullptr, false);
        const Json kernels = spec.is_object() && spec.contains("kernels") ? spec["kernels"] : Json::array({spec});
        if (!kernels.is_array()) continue;
        for (const auto& kernel : kernels) add_file_names(names, kernel);
    }
    return names;
}

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

ImportTurn::ImportTurn(const fs::path& dir) {
    // The anchor can change while this waits (another import created the folders below it): then the lock is
    // taken again on the new anchor, which every later import also locks.
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path anchor = anchor_of(dir);
        if (anchor.empty()) return;
        const int fd = ::open(anchor.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) return;
        int locked;
        while ((locked = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
        }
        if (locked != 0 || anchor_of(dir) == anchor) {
            fd_ = fd;
            return;
        }
        ::close(fd);
    }
}

ImportTurn::~ImportTurn() {
    if (fd_ >= 0) ::close(fd_);
}

// Whether `files`, an import of `model_path` into `dir` (import_outputs()), may be written: the problem names a
// file that another model's report in `dir` names, that report and its model, and what to do instead; none when
// no other report names any of them. Reports are the files *.import.json that start as one
// (starts_as_import_report()); this model's own report, and files that are not regular files, are not read.
Result<Ok> check_other_imports(const fs::path& dir, const std::vector<OutputFile>& files, const std::string& model_path) {
    const std::string own_report = report_file_name(model_path);
    std::set<std::string> ours;
    for (const auto& file : files) {
        if (file.name != own_report) ours.insert(file.name);
    }
    std::error_code error;
    if (ours.empty() || !fs::is_directory(dir, error)) return ok();
    std::map<std::string, fs::path> reports;  // by name, so that the message does not depend on the listing's order
    for (fs::directory_iterator entry(dir, error), end; !error && entry != end; entry.increment(error)) {
        const std::string name = entry->path().filename().string();
        const std::string suffix = ".import.json";
        if (name != own_report && name.size() > suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            reports.emplace(name, entry->path());
        }
    }
    for (const auto& [name, path] : reports) {
        const auto text = read_regular(path);
        if (!text || !starts_as_import_report(*text)) continue;
        const Json report = Json::parse(*text, nullptr, false);
        if (!report.is_object()) continue;
        std::vector<std::string> clashes;
        for (const auto& file : files_of_report(dir, report)) {
            if (ours.count(file)) clashes.push_back(file);
        }
        if (clashes.empty()) continue;
        const std::string other_model = report.contains("model") && report["model"].is_string()
                                            ? report["model"].get<std::string>()
                                            : name;
        const std::string more = clashes.size() == 1 ? std::string()
                                                     : " and " + std::to_string(clashes.size() - 1) +
                                                           (clashes.size() == 2 ? " more file" : " more files");
        const std::string other_report = (dir / name).string();
        return Problem{"importing " + model_path + " into " + dir.string() + " would replace " +
                       (dir / clashes.front()).string() + more + " of " + other_model + "'s import (" + other_report +
                       " names " + (clashes.size() == 1 ? "it" : "them") + "); nothing was written: import it into " +
                       "another folder or with another --prefix, or delete " + other_report + " first if " + other_model +
                       "'s import is no longer wanted"};
    }
    return ok();
}

}  // namespace

WriteReport write_import(const fs::path& dir, const ImportResult& result, const std::string& model_path) {
    const auto files = import_outputs(result, model_path);
    if (files.empty()) return {};
    const ImportTurn turn(dir);  // no other import checks or writes until this one has written
    if (auto alone = check_other_imports(dir, files, model_path); !alone) {
        WriteReport refused;
        refused.error = alone.problem();
        return refused;
    }
    return write_outputs(dir, files, {model_path});
}

}  // namespace kernelgen
