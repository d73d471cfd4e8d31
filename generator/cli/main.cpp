// The kernelgen command line: parses arguments and reports; the work is in the kernelgen library.
#include <iostream>
#include <string>
#include <vector>

#include "kernelgen/generate.h"
#include "kernelgen/version.h"

namespace {

constexpr const char* kUsage =
    "Usage: kernelgen [generate] --out-dir DIR [--unroll MODE] SPEC.json...\n"
    "\n"
    "Generates a specialized C99 kernel (DIR/<name>.h and DIR/<name>.c) for every ONNX\n"
    "Gather, GatherElements, GatherND or ScatterND kernel described in the spec files.\n"
    "If any spec is invalid, every problem is printed as FILE: /json/pointer: message,\n"
    "nothing is written, and the exit status is 1. Files whose content is unchanged are\n"
    "left alone.\n"
    "\n"
    "Options:\n"
    "  -o, --out-dir DIR  folder for the generated files (created when missing)\n"
    "      --unroll MODE  unrolling of every kernel whose spec has no \"unroll\":\n"
    "                     auto (the default), full, none or a factor 1..64\n"
    "  -h, --help         show this help and exit\n"
    "      --version      show the version and exit\n"
    "\n"
    "Exit status: 0 on success, 1 for invalid specs, 2 for usage or file-system errors.\n";

int usage_error(const std::string& message) {
    std::cerr << "kernelgen: " << message << "\n" << "Try 'kernelgen --help'.\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string out_dir;
    std::vector<std::string> specs;
    kernelgen::RunOptions options;
    bool options_done = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (!options_done && arg == "--") {
            options_done = true;
        } else if (!options_done && (arg == "-h" || arg == "--help")) {
            std::cout << kUsage;
            return 0;
        } else if (!options_done && arg == "--version") {
            std::cout << "kernelgen " << KERNELGEN_VERSION_STRING << "\n";
            return 0;
        } else if (!options_done && (arg == "-o" || arg == "--out-dir")) {
            if (i + 1 == args.size()) return usage_error(arg + " needs a folder");
            out_dir = args[++i];
        } else if (!options_done && arg.rfind("--out-dir=", 0) == 0) {
            out_dir = arg.substr(10);
        } else if (!options_done && (arg == "--unroll" || arg.rfind("--unroll=", 0) == 0)) {
            if (arg == "--unroll" && i + 1 == args.size()) return usage_error("--unroll needs a mode");
            const std::string mode = arg == "--unroll" ? args[++i] : arg.substr(9);
            options.unroll = kernelgen::parse_unroll(mode);
            if (!options.unroll) return usage_error("unknown --unroll mode '" + mode + "' (auto, full, none or a factor 1..64)");
        } else if (!options_done && arg.size() > 1 && arg[0] == '-') {
            return usage_error("unknown option " + arg);
        } else if (arg == "generate" && specs.empty() && i == 0) {
            continue;  // the optional subcommand word
        } else {
            specs.push_back(arg);
        }
    }
    if (out_dir.empty()) return usage_error("--out-dir DIR is required");
    if (specs.empty()) return usage_error("no spec files given");

    kernelgen::GenerateResult result = kernelgen::generate_files(specs, options);
    if (!result.diagnostics.empty()) {
        for (const auto& diagnostic : result.diagnostics) std::cerr << diagnostic.str() << "\n";
        std::cerr << "kernelgen: " << result.diagnostics.size() << (result.diagnostics.size() == 1 ? " problem" : " problems")
                  << "; nothing was written\n";
        return 1;
    }
    kernelgen::WriteReport report = kernelgen::write_outputs(out_dir, result.files);
    if (!report.error.empty()) {
        std::cerr << "kernelgen: " << report.error << "\n";
        return 2;
    }
    return 0;
}
