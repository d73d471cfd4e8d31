// A spec file as a JSON document: read with limits (size, nesting), keys given twice refused, an import report
// skipped, "$schema" allowed, and one kernel object or {"kernels": [...]} handed to the KernelReader.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "spec/kernel_reader.h"

namespace kernelgen {

using nlohmann::json;

namespace {

// Where a JSON text first nests deeper than `limit` arrays and objects, as "line L, column C"; nullopt when
// it never does. A scan of the text, before any parsing, so that nothing deep is ever built.
std::optional<std::string> too_deep(const std::string& text, size_t limit) {
    size_t depth = 0, line = 1, column = 0;
    bool in_string = false, escaped = false;
    for (char ch : text) {
        ++column;
        if (ch == '\n') {
            ++line;
            column = 0;
        }
        if (in_string) {
            if (escaped) escaped = false;
            else if (ch == '\\') escaped = true;
            else if (ch == '"') in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > limit) return "line " + std::to_string(line) + ", column " + std::to_string(column);
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

// Finds keys given twice in one object, while nlohmann parses: JSON leaves their meaning open (nlohmann
// keeps the last, other readers the first), so a spec must not depend on it. Tracks the JSON pointer of
// every open array and object.
class DuplicateKeyFinder {
public:
    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start: {
                std::string pointer = child_pointer();
                frames_.push_back({event == json::parse_event_t::array_start, 0, {}, "", std::move(pointer)});
                break;
            }
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                if (!frames_.empty()) frames_.pop_back();
                break;
            case json::parse_event_t::key:
                if (!frames_.empty() && parsed.is_string()) {
                    Frame& frame = frames_.back();
                    frame.key = parsed.get<std::string>();
                    if (!frame.keys.insert(frame.key).second) {
                        duplicates_.push_back({frame.pointer + "/" + pointer_token(frame.key), frame.key});
                    }
                }
                break;
            case json::parse_event_t::value:
                child_pointer();  // a scalar takes its place in an array too
                break;
        }
        return true;
    }

    // (pointer, key) of every repeated key, in document order.
    const std::vector<std::pair<std::string, std::string>>& duplicates() const { return duplicates_; }

private:
    struct Frame {
        bool array;
        size_t next_index;
        std::set<std::string> keys;
        std::string key;  // the key whose value comes next (objects)
        std::string pointer;
    };

    // The pointer of the value that starts now, inside the innermost open array or object.
    std::string child_pointer() {
        if (frames_.empty()) return "";
        Frame& frame = frames_.back();
        if (frame.array) return frame.pointer + "/" + std::to_string(frame.next_index++);
        return frame.pointer + "/" + pointer_token(frame.key);
    }

    std::vector<Frame> frames_;
    std::vector<std::pair<std::string, std::string>> duplicates_;
};

// What a top-level "$schema" may be.
const std::string kSchemaKeyRule = "the file's JSON Schema for editors, a URI or path; kernelgen ignores it";

}  // namespace

bool starts_as_import_report(std::string_view text) {
    auto skip_space = [&](size_t at) {
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
        return at;
    };
    size_t at = skip_space(0);
    if (at >= text.size() || text[at] != '{') return false;
    at = skip_space(at + 1);
    const std::string key = std::string("\"") + kImportReportKey + "\"";
    return text.substr(at, key.size()) == key;
}

std::vector<KernelSpec> parse_spec_text(const std::string& text, const std::string& file,
                                        std::vector<Diagnostic>& diagnostics, const SpecFiles& files) {
    if (starts_as_import_report(text)) return {};
    if (auto where = too_deep(text, kMaxJsonDepth)) {
        diagnostics.push_back({file, "", "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep at " +
                                             *where + " (a spec nests 4 levels: {\"kernels\": [{\"data_shape\": [...]}]})"});
        return {};
    }
    json document;
    DuplicateKeyFinder finder;
    try {
        document = json::parse(text, [&finder](int depth, json::parse_event_t event, json& parsed) {
            return finder(depth, event, parsed);
        });
    } catch (const json::exception& error) {
        // nlohmann's message carries the line and column of the problem; drop its "[json.exception...]" tag.
        std::string message = error.what();
        const size_t tag_end = message.find("] ");
        if (message.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos) message = message.substr(tag_end + 2);
        const std::string parse_error = "parse error";
        if (message.rfind(parse_error, 0) == 0) message = "malformed JSON:" + message.substr(parse_error.size());
        else message = "malformed JSON: " + message;  // e.g. a number too large for a double
        // A model given where a spec belongs: named .onnx, or starting as an ONNX model does (its ir_version, protobuf
        // field 1, is byte 0x08).
        std::string extension = std::filesystem::path(file).extension().string();
        for (auto& ch : extension) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (extension == ".onnx" || text.rfind('\x08', 0) == 0) {
            message += "; an ONNX model? did you mean 'kernelgen import " + file + " --out-dir DIR'?";
        }
        diagnostics.push_back({file, "", message});
        return {};
    }
    if (!finder.duplicates().empty()) {
        for (const auto& [pointer, key] : finder.duplicates()) {
            diagnostics.push_back({file, pointer, "key " + in_quotes(key) + " is given more than once (each key once)"});
        }
        return {};
    }
    // An import report (kernelgen import writes it beside the specs) holds no kernels: skipped, so that
    // `kernelgen --out-dir kernels specs/*.json` works on import's folder.
    if (document.is_object() && document.contains(kImportReportKey)) return {};
    // "$schema" at the top names the file's JSON Schema for editors; kernelgen checks it is a string and ignores it.
    if (document.is_object()) {
        const auto schema = document.find("$schema");
        if (schema != document.end()) {
            if (!schema->is_string()) {
                diagnostics.push_back({file, "/$schema", "expected a string, got " + json_type(*schema) + " (" +
                                                             kSchemaKeyRule + ")"});
            }
            document.erase(schema);
        }
    }
    std::vector<KernelSpec> kernels;
    auto read_one = [&](const json& object, const std::string& pointer) {
        if (auto spec = KernelReader(object, file, pointer, diagnostics, files).read()) kernels.push_back(std::move(*spec));
    };
    if (document.is_object() && document.contains("kernels")) {
        const json& list = document["kernels"];
        for (const auto& item : document.items()) {
            if (item.key() != "kernels") {
                diagnostics.push_back({file, "/" + pointer_token(item.key()), "unknown key " + in_quotes(item.key()) +
                                                                   " beside \"kernels\" (a file holds one kernel object, or {\"kernels\": [...]} with at most \"$schema\" beside it)"});
            }
        }
        if (!list.is_array() || list.empty()) {
            diagnostics.push_back({file, "/kernels", "expected a non-empty array of kernel objects, got " +
                                                         (list.is_array() ? std::string("an empty array") : json_type(list))});
            return kernels;
        }
        for (size_t i = 0; i < list.size(); ++i) read_one(list[i], "/kernels/" + std::to_string(i));
    } else {
        read_one(document, "");
    }
    return kernels;
}

std::vector<KernelSpec> parse_spec_file(const std::string& path, std::vector<Diagnostic>& diagnostics) {
    namespace fs = std::filesystem;
    const std::string allowed = " (a readable JSON spec file of at most " + std::to_string(kMaxSpecFileBytes >> 20) + " MiB)";
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status)) {
        diagnostics.push_back({path, "", "no such file" + allowed});
        return {};
    }
    if (fs::is_directory(status)) {
        diagnostics.push_back({path, "", "is a folder, not a file" + allowed});
        return {};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diagnostics.push_back({path, "", "cannot read the file: " + std::string(std::strerror(errno)) + allowed});
        return {};
    }
    // Read at most one byte past the limit: a huge file, or an endless one such as /dev/zero, stops there.
    std::string text;
    char buffer[65536];
    while (text.size() <= kMaxSpecFileBytes && in.read(buffer, sizeof buffer).gcount() > 0) {
        text.append(buffer, static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) {
        diagnostics.push_back({path, "", "cannot read the file" + allowed});
        return {};
    }
    if (starts_as_import_report(text)) return {};  // whatever its size: kernelgen import's report holds no kernels
    if (text.size() > kMaxSpecFileBytes) {
        diagnostics.push_back({path, "", "the file is larger than " + std::to_string(kMaxSpecFileBytes >> 20) + " MiB" + allowed});
        return {};
    }
    return parse_spec_text(text, path, diagnostics);
}

}  // namespace kernelgen
