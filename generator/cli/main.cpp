// The kernelgen command line: parses arguments and reports; the work is in the kernelgen library.
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/generate.h"
#include "kernelgen/operators.h"
#include "kernelgen/result.h"
#if KERNELGEN_HAVE_IMPORT
#include "kernelgen/import.h"
#include "kernelgen/import_folder.h"
#endif
#include "kernelgen/version.h"

namespace {

// The forms of the command line; a help page covers one of them, or all.
enum Form : unsigned { Generate = 1, Support = 2, List = 4, Import = 8, AllForms = 15 };

// Each form's synopsis, its lines aligned after "Usage: ".
constexpr std::pair<unsigned, const char*> kSynopsis[] = {
    {Generate, "kernelgen [generate] --out-dir DIR [--unroll MODE] [--prefetch MODE]\n"
               "                           [--no-support] [--depfile FILE] SPEC.json...\n"},
    {Support, "kernelgen support --out-dir DIR\n"},
    {List, "kernelgen list SPEC.json...\n"},
    {Import, "kernelgen import MODEL.onnx --out-dir DIR [--prefix P] [--strict]\n"
             "                        [--dim NAME=N]... [--input NAME=SHAPE]... [--value NAME=V,...]...\n"
             "                        [--max-count NODE=N]... [--max-extent NODE=N]...\n"
             "                        [--accumulate NODE]... [--plain-indices NODE]... [--weights MODE]\n"
             "                        [--time-limit SECONDS] [--memory-limit MIB]\n"},
};

// What the forms do, a paragraph each; {operators} and {imported} stand for the operator table's lists.
constexpr std::pair<unsigned, const char*> kDescription[] = {
    {Generate | Support | List,
     "Generates a specialized C99 kernel (DIR/<name>.h and DIR/<name>.c) for every ONNX {operators} kernel described "
     "in the spec files; a kernel whose spec gives constant data holds it in flash, in DIR/<name>_data.inc, which its "
     ".c includes. If any spec is invalid, every problem is printed as FILE: /json/pointer: message, nothing is "
     "written, and the exit status is 1. Files whose content is unchanged are left alone. Beside the kernels, every "
     "run writes the support code they share, DIR/kernelgen_support.h and DIR/kernelgen_support.c: compile "
     "kernelgen_support.c once per program. support writes only those two files. list writes nothing: it prints, for "
     "build systems, a line \"kernel NAME FILE...\" for every kernel (the files a run would write) and a line "
     "\"input PATH\" for every file the run reads."},
    {Import,
     "import writes one spec file, DIR/<kernel name>.json, for every {imported} node of the model, in its main graph "
     "and in every If, Loop and Scan body, whose shapes are static once the dimensions are bound and every value "
     "computable at import time is folded; a node whose value is known is folded (no kernel), and indices known at "
     "import time become constant indices. A node whose number of index rows is known only at run time (after "
     "NonZero, NonMaxSuppression, Compress, TopK, Unique) gets a run-time count, bounded by what its producer can "
     "select. DIR/<model>.import.json reports every indexing node. Every node it cannot import is printed as MODEL: "
     "node \"name\" (Op, #position): reason."},
};

// Each option's help, with the forms that take it.
constexpr std::pair<unsigned, const char*> kOptions[] = {
    {Generate | Support | Import, "  -o, --out-dir DIR  folder for the generated files (created when missing)\n"},
    {Generate | List, "      --unroll MODE  unrolling of every kernel whose spec has no \"unroll\":\n"
                      "                     auto (the default), full, none or a factor 1..64\n"},
    {Generate | List, "      --prefetch MODE\n"
                      "                     prefetching of every kernel whose spec has no \"prefetch\":\n"
                      "                     auto (the default), none or a distance 1..1024 (index tuples)\n"},
    {Generate | List, "      --no-support   leave out kernelgen_support.h and .c (another run writes them)\n"},
    {Generate, "      --depfile FILE write FILE, a Makefile rule: the generated files depend on the\n"
               "                     spec files and the data files they name (for make, Ninja, CMake)\n"},
    {Import, "      --prefix P     (import) put P in front of every kernel name\n"},
    {Import, "      --strict       (import) a node that cannot be imported is an error: exit 1,\n"
             "                     nothing written\n"},
    {Import, "      --dim NAME=N   (import) every symbolic dimension called NAME is N\n"},
    {Import, "      --input NAME=SHAPE\n"
             "                     (import) graph input NAME has the shape SHAPE: 1x16000, or []\n"
             "                     for rank 0\n"},
    {Import, "      --value NAME=V[,V...]\n"
             "                     (import) graph input NAME holds these values at every call\n"
             "                     (row-major; a sample rate, a mode): folded as a constant\n"},
    {Import, "      --max-count NODE=N\n"
             "                     (import) the run-time count of indexing node NODE is at most N\n"
             "                     (1..4294967295): a bound where none is derived, or a lower one\n"},
    {Import, "      --max-extent NODE=N\n"
             "                     (import) each dimension of Gather node NODE's data (but the\n"
             "                     leading one) that the model makes at run time from values, such\n"
             "                     as a Resize to sizes computed from boxes, is at most N\n"
             "                     (1..4294967295): the kernel takes those extents at run time;\n"
             "                     a bound where the values give none, or a lower one\n"},
    {Import, "      --accumulate NODE\n"
             "                     (import) ScatterND node NODE, which writes into zeros without a\n"
             "                     reduction and whose result an Add adds (PyTorch's export of\n"
             "                     index_put_(accumulate=True)), gets reduction add: duplicate\n"
             "                     indices then add up, as in PyTorch\n"},
    {Import, "      --plain-indices NODE\n"
             "                     (import) the kernel of indexing node NODE takes the node's own\n"
             "                     indices, not the run-time tensor the graph makes them of by\n"
             "                     reshapes, a widening Cast (int32 ids), an Expand, an Add or\n"
             "                     Sub of constants (positions) and a Concat of constant tuple\n"
             "                     components\n"},
    {Import, "      --weights MODE (import) kernel (the default): a gather whose data is a constant\n"
             "                     of the model (an embedding table) holds it, DIR/<kernel>.data.npy;\n"
             "                     caller: the caller passes it, as any other input\n"},
    {Import, "      --time-limit SECONDS\n"
             "                     (import) stop an import that takes longer (default 300)\n"},
    {Import, "      --memory-limit MIB\n"
             "                     (import) stop an import that needs more memory (default 4096)\n"},
    {AllForms, "  -h, --help         show this help and exit\n"},
    {AllForms, "      --version      show the version and exit\n"},
};

constexpr const char* kExitStatus =
    "Exit status: 0 on success, 1 for invalid specs (import: a file that is not an ONNX\n"
    "model, or --strict with nodes not imported), 2 for usage or file-system errors.\n";

// `words` joined by ", " with `last` before the last one ("A, B or C").
std::string joined(const std::vector<std::string>& words, const std::string& last) {
    std::string out;
    for (size_t i = 0; i < words.size(); ++i) out += (i == 0 ? "" : i + 1 == words.size() ? last : ", ") + words[i];
    return out;
}

// `text` broken into lines of at most `width` characters at spaces.
std::string wrapped(const std::string& text, size_t width) {
    std::string out, line;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        start = end + 1;
    }
    return out + line + "\n";
}

// The help of `form` (or of every form): the synopsis, what the form does with the operators of the operator
// table, the options it takes.
std::string usage(unsigned form = AllForms) {
    std::vector<std::string> kernels, imported, deprecated;
    for (const auto& row : kernelgen::operators()) {
        kernels.emplace_back(row.name);
        for (const auto& onnx : row.onnx) {
            const std::string qualified = (onnx.domain.empty() ? "" : std::string(onnx.domain) + ".") + std::string(onnx.op_type);
            (onnx.until == 0 ? imported : deprecated).push_back(qualified);
        }
    }
    std::string text;
    for (const auto& [forms, synopsis] : kSynopsis) {
        if (forms & form) text += (text.empty() ? "Usage: " : "       ") + std::string(synopsis);
    }
    text += "\n";
    for (const auto& [forms, description] : kDescription) {
        if (!(forms & form)) continue;
        std::string paragraph = description;
        const std::string imports = joined(imported, ", ") + (deprecated.empty() ? "" : " (and deprecated " + joined(deprecated, " and ") + ")");
        for (const auto& [key, value] : {std::pair<std::string, std::string>{"{operators}", joined(kernels, " or ")},
                                         std::pair<std::string, std::string>{"{imported}", imports}}) {
            for (size_t at = paragraph.find(key); at != std::string::npos; at = paragraph.find(key)) paragraph.replace(at, key.size(), value);
        }
        text += wrapped(paragraph, 88) + "\n";
    }
    text += "Options:\n";
    for (const auto& [forms, option] : kOptions) {
        if (forms & form) text += option;
    }
    text += "\n";
    if (form == AllForms) text += "kernelgen help COMMAND (or kernelgen COMMAND --help) shows one command's options alone.\n\n";
    return text + kExitStatus;
}

// The form a command word names (generate, support, list, import), or none.
std::optional<unsigned> form_named(const std::string& word) {
    if (word == "generate") return Generate;
    if (word == "support") return Support;
    if (word == "list") return List;
    if (word == "import") return Import;
    return std::nullopt;
}

// Where a usage error sends the user: the whole help, or one command's.
constexpr const char* kHelpHint = "Try 'kernelgen --help'.\n";
constexpr const char* kImportHelpHint = "Try 'kernelgen help import'.\n";
constexpr const char* kSupportHelpHint = "Try 'kernelgen help support'.\n";

int usage_error(const std::string& message, const char* hint = kHelpHint) {
    std::cerr << "kernelgen: " << message << "\n" << hint;
    return 2;
}

// The value of option `name` at args[i], given as "NAME VALUE", "NAME=VALUE" or "SHORT VALUE" (i then moves
// past it); nothing when args[i] is another argument. A missing value sets `missing`.
std::optional<std::string> option_value(const std::vector<std::string>& args, size_t& i, const std::string& name,
                                        const std::string& short_name, bool& missing) {
    const std::string& arg = args[i];
    if (arg.rfind(name + "=", 0) == 0) return arg.substr(name.size() + 1);
    if (arg != name && (short_name.empty() || arg != short_name)) return std::nullopt;
    if (i + 1 == args.size()) {
        missing = true;
        return std::string();
    }
    return args[++i];
}

// The options both forms share: "--" (the arguments after it are files), --help, --version and --out-dir.
// Returns whether args[i] is one of them (i then moves past its value); `exit` is then set when it ends the run.
bool shared_option(const std::vector<std::string>& args, size_t& i, bool& options_done, std::string& out_dir,
                   std::optional<int>& exit, unsigned form) {
    if (options_done) return false;
    const std::string& arg = args[i];
    bool missing = false;
    if (arg == "--") {
        options_done = true;
    } else if (arg == "-h" || arg == "--help") {
        std::cout << usage(form);
        exit = 0;
    } else if (arg == "--version") {
        std::cout << "kernelgen " << KERNELGEN_VERSION_STRING << "\n";
        exit = 0;
    } else if (auto dir = option_value(args, i, "--out-dir", "-o", missing)) {
        if (missing) exit = usage_error(arg + " needs a folder", form == Import ? kImportHelpHint : form == Support ? kSupportHelpHint : kHelpHint);
        out_dir = *dir;
    } else {
        return false;
    }
    return true;
}

// Exit status 0 when the run's files were written, or 2 with the file-system error.
int report_written(const kernelgen::WriteReport& report) {
    if (report.error.empty()) return 0;
    std::cerr << "kernelgen: " << kernelgen::terminal_safe(report.error) << "\n";
    return 2;
}

// Adds NAME=N from a repeatable option to `values`; the problem when NAME already has another value.
template <typename Value>
kernelgen::Result<kernelgen::Ok> add_once(std::map<std::string, Value>& values, const std::pair<std::string, Value>& given,
                                          const std::string& option) {
    auto [at, inserted] = values.emplace(given);
    if (inserted || at->second == given.second) return kernelgen::ok();
    return kernelgen::Problem{option + " " + given.first + " is given two values, " + std::to_string(at->second) + " and " +
                              std::to_string(given.second)};
}

#if KERNELGEN_HAVE_IMPORT
// What `kernelgen import` was asked.
struct ImportCommand {
    std::string out_dir, model;
    kernelgen::ImportOptions options;
    bool strict = false;
};

// Reads the arguments of `kernelgen import` (without the word "import") into `command`: nothing, or the exit
// status when they end the run (--help, --version, a usage error).
std::optional<int> read_import_arguments(const std::vector<std::string>& args, ImportCommand& command) {
    auto import_error = [](const std::string& message) { return usage_error(message, kImportHelpHint); };
    std::string& out_dir = command.out_dir;
    std::string& model = command.model;
    kernelgen::ImportOptions& options = command.options;
    bool& strict = command.strict;
    bool options_done = false, missing = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        std::optional<int> exit;
        if (shared_option(args, i, options_done, out_dir, exit, Import)) {
            if (exit) return exit;
        } else if (auto prefix = options_done ? std::nullopt : option_value(args, i, "--prefix", "", missing)) {
            if (missing) return import_error("--prefix needs a text");
            options.prefix = *prefix;
            if (auto prefix_ok = kernelgen::check_prefix(options.prefix); !prefix_ok) return import_error(prefix_ok.problem());
        } else if (auto dim = options_done ? std::nullopt : option_value(args, i, "--dim", "", missing)) {
            if (missing) return import_error("--dim needs NAME=N");
            auto parsed = kernelgen::parse_dim_option(*dim);
            if (!parsed) return import_error(parsed.problem());
            if (auto once = add_once(options.dims, *parsed, "--dim"); !once) return import_error(once.problem());
        } else if (auto input = options_done ? std::nullopt : option_value(args, i, "--input", "", missing)) {
            if (missing) return import_error("--input needs NAME=SHAPE");
            auto parsed = kernelgen::parse_input_option(*input);
            if (!parsed) return import_error(parsed.problem());
            options.inputs.push_back(*parsed);
        } else if (auto value = options_done ? std::nullopt : option_value(args, i, "--value", "", missing)) {
            if (missing) return import_error("--value needs NAME=V[,V...]");
            auto parsed = kernelgen::parse_value_option(*value);
            if (!parsed) return import_error(parsed.problem());
            options.values.push_back(*parsed);
        } else if (auto max_count = options_done ? std::nullopt : option_value(args, i, "--max-count", "", missing)) {
            if (missing) return import_error("--max-count needs NODE=N");
            auto parsed = kernelgen::parse_max_count_option(*max_count);
            if (!parsed) return import_error(parsed.problem());
            if (auto once = add_once(options.max_counts, *parsed, "--max-count"); !once) return import_error(once.problem());
        } else if (auto max_extent = options_done ? std::nullopt : option_value(args, i, "--max-extent", "", missing)) {
            if (missing) return import_error("--max-extent needs NODE=N");
            auto parsed = kernelgen::parse_max_extent_option(*max_extent);
            if (!parsed) return import_error(parsed.problem());
            if (auto once = add_once(options.max_extents, *parsed, "--max-extent"); !once) return import_error(once.problem());
        } else if (auto node = options_done ? std::nullopt : option_value(args, i, "--accumulate", "", missing)) {
            if (missing || node->empty()) return import_error("--accumulate needs NODE (a ScatterND node's name)");
            options.accumulate.insert(*node);
        } else if (auto plain = options_done ? std::nullopt : option_value(args, i, "--plain-indices", "", missing)) {
            if (missing || plain->empty()) return import_error("--plain-indices needs NODE (an indexing node's name)");
            options.plain_indices.insert(*plain);
        } else if (auto seconds = options_done ? std::nullopt : option_value(args, i, "--time-limit", "", missing)) {
            if (missing) return import_error("--time-limit needs a number of seconds");
            const auto value = kernelgen::parse_limit_option("--time-limit", *seconds, "seconds", kernelgen::kMaxTimeLimit);
            if (!value) return import_error(value.problem());
            options.limits.seconds = static_cast<unsigned>(*value);
        } else if (auto mib = options_done ? std::nullopt : option_value(args, i, "--memory-limit", "", missing)) {
            if (missing) return import_error("--memory-limit needs a number of MiB");
            const auto value = kernelgen::parse_limit_option("--memory-limit", *mib, "MiB", kernelgen::kMaxMemoryLimitMiB);
            if (!value) return import_error(value.problem());
            options.limits.memory_bytes = *value << 20;
        } else if (auto mode = options_done ? std::nullopt : option_value(args, i, "--weights", "", missing)) {
            if (missing) return import_error("--weights needs a mode (kernel or caller)");
            if (*mode != "kernel" && *mode != "caller") {
                return import_error("unknown --weights mode '" + *mode + "' (kernel: the kernel holds a gather's constant data; "
                                   "caller: the caller passes it)");
            }
            options.weights_in_kernel = *mode == "kernel";
        } else if (!options_done && arg == "--strict") {
            strict = true;
        } else if (!options_done && arg.size() > 1 && arg[0] == '-') {
            return import_error("unknown option " + arg + " for import");
        } else if (model.empty()) {
            model = arg;
        } else {
            return import_error("import takes one model, got " + model + " and " + arg);
        }
    }
    if (out_dir.empty()) return import_error("--out-dir DIR is required");
    if (model.empty()) return import_error("no model given (kernelgen import MODEL.onnx --out-dir DIR)");
    return std::nullopt;
}

// Prints what an import found and writes its files: the exit status.
int finish_import(const kernelgen::ImportResult& result, const ImportCommand& command) {
    const std::string& model = command.model;
    // Every line shows the model's own text (its path, names, ONNX's messages) escaped: one line each, no
    // escape sequences reach the terminal.
    auto line = [](const std::string& text) { std::cerr << kernelgen::terminal_safe(text) << "\n"; };
    if (!result.diagnostics.empty()) {
        for (const auto& diagnostic : result.diagnostics) line(diagnostic.file + ": " + diagnostic.message);
        std::cerr << "kernelgen: nothing was written\n";
        return 1;
    }
    if (!result.usage_errors.empty()) {
        for (const auto& error : result.usage_errors) line("kernelgen: " + model + ": " + error);
        std::cerr << kImportHelpHint;
        return 2;
    }
    for (const auto& note : result.notes) line(model + ": note: " + note);
    if (!result.inference_note.empty()) line(model + ": note: " + result.inference_note);
    for (const auto& view : result.views) {
        line(model + ": " + view.node.str() + ": a view of " + kernelgen::in_quotes(view.of) + ": " + view.how +
             "; no kernel, the firmware passes that buffer on");
    }
    for (const auto& skipped : result.skipped) line(model + ": " + skipped.node.str() + ": " + skipped.reason);
    if (command.strict && !result.skipped.empty()) {
        std::cerr << "kernelgen: " << result.skipped.size() << (result.skipped.size() == 1 ? " node" : " nodes")
                  << " not imported (--strict); nothing was written\n";
        return 1;
    }
    if (int status = report_written(kernelgen::write_import(command.out_dir, result, model))) return status;
    std::cout << kernelgen::terminal_safe(kernelgen::import_summary(result, model)) << "\n";
    return 0;
}
#endif

// kernelgen import MODEL.onnx --out-dir DIR [--prefix P] [--strict] [--dim NAME=N]... [--input NAME=SHAPE]...
// [--value NAME=V,...]... [--max-count NODE=N]... [--accumulate NODE]... [--plain-indices NODE]... [--weights MODE];
// `args` without the word "import".
int run_import(const std::vector<std::string>& args) {
#if !KERNELGEN_HAVE_IMPORT
    (void)args;
    std::cerr << "kernelgen: this kernelgen was built without the importer (KERNELGEN_IMPORT=OFF, or no libonnx-dev), "
                 "so it cannot import models\n";
    return 2;
#else
    ImportCommand command;
    if (auto exit = read_import_arguments(args, command)) return *exit;
    return finish_import(kernelgen::import_model_file(command.model, command.options), command);
#endif
}

// kernelgen support --out-dir DIR; `args` without the word "support".
int run_support(const std::vector<std::string>& args) {
    std::string out_dir;
    bool options_done = false;
    for (size_t i = 0; i < args.size(); ++i) {
        std::optional<int> exit;
        if (shared_option(args, i, options_done, out_dir, exit, Support)) {
            if (exit) return *exit;
        } else {
            return usage_error("support takes no " + std::string(args[i].rfind('-', 0) == 0 ? "option " : "argument ") +
                                   args[i] + " (kernelgen support --out-dir DIR)",
                               kSupportHelpHint);
        }
    }
    if (out_dir.empty()) return usage_error("--out-dir DIR is required", kSupportHelpHint);
    return report_written(kernelgen::write_outputs(out_dir, kernelgen::support_files()));
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    // kernelgen help [COMMAND]: the help of every form, or of one.
    if (!args.empty() && args[0] == "help") {
        const std::optional<unsigned> form = args.size() == 2 ? form_named(args[1]) : std::optional<unsigned>(AllForms);
        if (args.size() > 2 || !form) {
            return usage_error("help takes at most one command: generate, support, list or import" +
                               (args.size() == 2 ? " (not " + kernelgen::terminal_safe(args[1]) + ")" : std::string()));
        }
        std::cout << usage(*form);
        return 0;
    }
    if (!args.empty() && args[0] == "import") return run_import({args.begin() + 1, args.end()});
    if (!args.empty() && args[0] == "support") return run_support({args.begin() + 1, args.end()});
    // kernelgen list SPEC.json...: the generate run's kernels, files and inputs, printed instead of written.
    const bool listing = !args.empty() && args[0] == "list";
    if (listing) args.erase(args.begin());
    const unsigned form = listing ? List : !args.empty() && args[0] == "generate" ? Generate : AllForms;
    std::string out_dir, depfile;
    std::vector<std::string> specs;
    kernelgen::RunOptions options;
    bool options_done = false, missing = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        std::optional<int> exit;
        if (shared_option(args, i, options_done, out_dir, exit, form)) {
            if (exit) return *exit;
        } else if (auto mode = options_done ? std::nullopt : option_value(args, i, "--unroll", "", missing)) {
            if (missing) return usage_error("--unroll needs a mode");
            options.unroll = kernelgen::parse_unroll(*mode);
            if (!options.unroll) return usage_error("unknown --unroll mode '" + *mode + "' (auto, full, none or a factor 1..64)");
        } else if (auto mode = options_done ? std::nullopt : option_value(args, i, "--prefetch", "", missing)) {
            if (missing) return usage_error("--prefetch needs a mode");
            options.prefetch = kernelgen::parse_prefetch(*mode);
            if (!options.prefetch) return usage_error("unknown --prefetch mode '" + *mode + "' (auto, none or a distance 1..1024)");
        } else if (!options_done && arg == "--no-support") {
            options.support_files = false;
        } else if (auto file = options_done ? std::nullopt : option_value(args, i, "--depfile", "", missing)) {
            if (missing || file->empty()) return usage_error("--depfile needs a file name");
            depfile = *file;
        } else if (!options_done && arg.size() > 1 && arg[0] == '-') {
            return usage_error("unknown option " + arg);
        } else if (arg == "generate" && specs.empty() && i == 0 && !listing) {
            continue;  // the optional subcommand word
        } else {
            specs.push_back(arg);
        }
    }
    if (listing && !depfile.empty()) return usage_error("list writes nothing: it takes no --depfile");
    if (out_dir.empty() && !listing) return usage_error("--out-dir DIR is required");
    if (specs.empty()) return usage_error("no spec files given");

    kernelgen::GenerateResult result = kernelgen::generate_files(specs, options);
    if (!result.diagnostics.empty()) {
        for (const auto& diagnostic : result.diagnostics) std::cerr << diagnostic.str() << "\n";
        std::cerr << "kernelgen: " << result.diagnostics.size() << (result.diagnostics.size() == 1 ? " problem" : " problems")
                  << (listing ? "\n" : "; nothing was written\n");
        return 1;
    }
    if (!listing) return report_written(kernelgen::write_run(out_dir, result, depfile));
    // One line per kernel and per input: a path with a control character could not be told from the next line.
    for (const auto& spec : specs) {
        if (kernelgen::terminal_safe(spec) != spec) {
            return usage_error("list cannot print the path " + kernelgen::terminal_safe(spec) + " (it holds a control character)");
        }
    }
    std::cout << kernelgen::file_list(result);
    return 0;
}
