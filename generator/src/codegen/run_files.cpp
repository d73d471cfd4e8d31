// The files of a successful run: its kernels and support code, written into the output folder, and its depfile.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "kernelgen/generate.h"

namespace kernelgen {

namespace {

namespace fs = std::filesystem;

// The characters make and Ninja both read literally in a rule, and those they read once escaped (space, '#',
// '$', ':'); every other printable ASCII character ends a path or means something else to one of them (measured
// with GNU make 4.3 and Ninja 1.11: ';' starts a recipe, '=' a variable, '|' order-only prerequisites, '%' a
// pattern; Ninja ends a path at a quote, '*', '?', '&', '<', '>', '`' or '^'). Bytes from 0x80 (UTF-8) are read
// literally.
bool literal_in_rule(unsigned char ch) {
    return ch >= 0x80 || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           std::string_view("_./+,-~(){}[]@!").find(static_cast<char>(ch)) != std::string_view::npos;
}
bool escaped_in_rule(char ch) { return ch == ' ' || ch == '#' || ch == '$' || ch == ':'; }

// `path` as make and Ninja read it in a rule ('$' doubled, a space, '#' and ':' after a backslash), or nothing when
// the problem naming a character they cannot carry.
Result<std::string> rule_path(const std::string& path) {
    std::string out;
    for (const char ch : path) {
        if (literal_in_rule(static_cast<unsigned char>(ch))) {
            out += ch;
        } else if (escaped_in_rule(ch)) {
            out += ch == '$' ? "$$" : std::string("\\") + ch;
        } else {
            const auto code = static_cast<unsigned char>(ch);
            static const char kHex[] = "0123456789ABCDEF";
            const std::string shown = code < 0x20 || code == 0x7f
                                          ? std::string("the control character U+00") + kHex[code >> 4] + kHex[code & 15]
                                          : std::string("'") + ch + "'";
            return Problem{"the depfile cannot name \"" + path + "\": make or Ninja cannot read " + shown +
                           " in a rule (a depfile's paths may hold letters, digits, bytes from 0x80, spaces and "
                           "_ . / + , - ~ ( ) { } [ ] @ ! # $ :)"};
        }
    }
    return out;
}

// The path as it would be if it existed, for comparing names: absolute, with "." and ".." and links resolved as
// far as the path exists.
fs::path comparable(const fs::path& path) {
    std::error_code error;
    fs::path out = fs::weakly_canonical(fs::absolute(path, error), error);
    if (error) out = fs::absolute(path).lexically_normal();
    return out.has_filename() ? out : out.parent_path();  // "out/" names the folder "out"
}

}  // namespace

Result<std::string> depfile(const std::string& out_dir, const GenerateResult& result) {
    const fs::path dir(out_dir);
    std::string text;
    for (const auto& file : result.files) {
        const auto path = rule_path((dir / file.name).string());
        if (!path) return path;
        text += (text.empty() ? "" : " \\\n ") + *path;
    }
    text += ":";
    for (const auto& input : result.inputs) {
        const auto path = rule_path(input);
        if (!path) return path;
        text += " \\\n " + *path;
    }
    return text + "\n";
}

std::string file_list(const GenerateResult& result) {
    std::string text = "# kernelgen list, format 1\n";
    for (const auto& kernel : result.kernels) {
        text += "kernel " + kernel.name;
        for (const auto& file : kernel.files) text += " " + file;
        text += "\n";
    }
    for (const auto& input : result.inputs) text += "input " + input + "\n";
    return text;
}

WriteReport write_run(const std::string& out_dir, const GenerateResult& result, const std::string& depfile_path) {
    WriteReport report;
    const std::vector<fs::path> inputs(result.inputs.begin(), result.inputs.end());
    if (depfile_path.empty()) return write_outputs(out_dir, result.files, inputs);

    // The depfile, checked before anything is written.
    const auto text = depfile(out_dir, result);
    if (!text) {
        report.error = "--depfile " + depfile_path + ": " + text.problem() + "; nothing was written";
        return report;
    }
    const fs::path given(depfile_path);
    const fs::path folder = given.has_parent_path() ? given.parent_path() : fs::path(".");
    const fs::path name = given.filename();
    auto refuse = [&](const std::string& why) {
        report.error = "--depfile " + depfile_path + ": " + why + "; nothing was written";
        return report;
    };
    if (name.empty() || name == "." || name == "..") return refuse("not a file name");
    const fs::path where = comparable(given);
    for (const auto& input : inputs) {
        if (comparable(input) == where) return refuse("it is " + input.string() + ", which this run reads");
    }
    std::vector<fs::path> outputs;
    for (const auto& file : result.files) {
        outputs.push_back(fs::path(out_dir) / file.name);
        if (comparable(outputs.back()) == where) return refuse("it is " + outputs.back().string() + ", which this run writes");
    }
    const bool in_out_dir = comparable(folder) == comparable(out_dir);
    struct stat status {};
    if (!in_out_dir && (::stat(folder.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))) {
        return refuse("its folder " + folder.string() + " does not exist (the depfile's folder must exist, or be --out-dir)");
    }
    std::vector<OutputFile> files = result.files;
    if (in_out_dir) {
        files.push_back({name.string(), *text});  // one write: the depfile with the outputs
        return write_outputs(out_dir, files, inputs);
    }
    report = write_outputs(out_dir, files, inputs);
    if (!report.error.empty()) return report;
    // The outputs now exist: the depfile may be none of them either (a second name, a link).
    std::vector<fs::path> protected_files = inputs;
    protected_files.insert(protected_files.end(), outputs.begin(), outputs.end());
    WriteReport dep = write_outputs(folder, {{name.string(), *text}}, protected_files);
    if (!dep.error.empty()) {
        const std::string nothing = "; nothing was written";
        if (dep.error.size() > nothing.size() && dep.error.compare(dep.error.size() - nothing.size(), nothing.size(), nothing) == 0) {
            dep.error.resize(dep.error.size() - nothing.size());
        }
        dep.error = "--depfile: " + dep.error + "; the kernels were written, the depfile was not";
        dep.written.insert(dep.written.begin(), report.written.begin(), report.written.end());
        return dep;
    }
    report.written.insert(report.written.end(), dep.written.begin(), dep.written.end());
    report.unchanged.insert(report.unchanged.end(), dep.unchanged.begin(), dep.unchanged.end());
    return report;
}

}  // namespace kernelgen
