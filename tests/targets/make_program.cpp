// Writes what the on-target tests build: the kernels every exported case calls, and the self-checking drivers
// of tests/c_program.cpp that run those cases, split into as many programs as a target's memory needs.
//
//   target_make_program kernels --out DIR --specs SPEC.json... --cases CASES.json...
//     Generates the kernels the cases call (with the support files) into DIR, once for every target. A case
//     names its kernel; the kernel's spec comes from the spec files, or from the case itself ("spec", as the
//     random test dumps it).
//
//   target_make_program programs --out DIR --cases CASES.json... --sizes SIZES --flash BYTES --ram BYTES
//                       [--progmem BYTES] [--case-code BYTES] [--refused KERNEL...]
//     Writes DIR/program<N>.c, each a driver over a batch of cases, and DIR/programs.cmake (program_count, the
//     cases of each program, and the counts of cases run, refused and skipped). SIZES is `size -A` of the kernels compiled for the target
//     with -ffunction-sections -fdata-sections: a kernel weighs the sections named after it, and the rest (the
//     support functions) weighs on every program. A batch stays within --flash bytes of kernels, case data and
//     --case-code bytes of driver code a case; with --progmem (AVR, whose case data lives in program memory and
//     is read with 16-bit addresses), its case data and kernel tables also stay within that many bytes. A case
//     whose heap blocks exceed --ram bytes is skipped, and a case of a --refused kernel (one that refuses the
//     target with its own #error) is counted as refused; both are listed.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "c_program.h"
#include "kernelgen/generate.h"

namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "target_make_program: %s\n", message.c_str());
    return 1;
}

struct Options {
    std::string mode, out, sizes;
    std::vector<std::string> spec_files, case_files, refused;
    size_t flash = 0, ram = 0, progmem = 0, case_code = 0;
};

bool parse(int argc, char** argv, Options& options, std::string& error) {
    if (argc < 2) {
        error = "usage: target_make_program kernels|programs --out DIR ... (see tests/targets/make_program.cpp)";
        return false;
    }
    options.mode = argv[1];
    const std::map<std::string, size_t*> numbers{{"--flash", &options.flash}, {"--ram", &options.ram},
                                                 {"--progmem", &options.progmem}, {"--case-code", &options.case_code}};
    const std::map<std::string, std::vector<std::string>*> lists{
        {"--specs", &options.spec_files}, {"--cases", &options.case_files}, {"--refused", &options.refused}};
    std::vector<std::string>* list = nullptr;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (lists.count(arg)) {
            list = lists.at(arg);
        } else if ((arg == "--out" || arg == "--sizes") && has_value) {
            (arg == "--out" ? options.out : options.sizes) = argv[++i];
            list = nullptr;
        } else if (numbers.count(arg) && has_value) {
            *numbers.at(arg) = std::stoul(argv[++i]);
            list = nullptr;
        } else if (list) {
            list->push_back(arg);
        } else {
            error = "unexpected argument " + arg;
            return false;
        }
    }
    if (options.out.empty() || options.case_files.empty()) error = "--out and --cases are required";
    if (options.mode == "programs" && (options.sizes.empty() || !options.flash || !options.ram)) {
        error = "programs needs --sizes, --flash and --ram";
    }
    if (options.mode != "kernels" && options.mode != "programs") error = "unknown mode " + options.mode;
    return error.empty();
}

// Every case of the files, and the specs some of them carry.
bool read_cases(const std::vector<std::string>& files, std::vector<cprogram::Case>& cases,
                std::map<std::string, kernelgen::KernelSpec>& specs, std::vector<kernelgen::Diagnostic>& diagnostics,
                std::string& error) {
    for (const auto& file : files) {
        std::ifstream in(file);
        if (!in) {
            error = "cannot read " + file;
            return false;
        }
        for (const auto& item : nlohmann::json::parse(in)) {
            cases.push_back(cprogram::case_from_json(item));
            if (item.contains("spec")) {
                for (auto& spec : kernelgen::parse_spec_text(item["spec"].dump(), file, diagnostics)) specs[spec.name] = spec;
            }
        }
    }
    return true;
}

int write_kernels(const Options& options, const std::vector<cprogram::Case>& cases,
                  std::map<std::string, kernelgen::KernelSpec>& specs, std::vector<kernelgen::Diagnostic>& diagnostics) {
    for (const auto& file : options.spec_files) {
        for (auto& spec : kernelgen::parse_spec_file(file, diagnostics)) specs.emplace(spec.name, spec);
    }
    if (!diagnostics.empty()) return fail(diagnostics.front().str());
    std::vector<kernelgen::KernelSpec> kernels;
    std::set<std::string> wanted;
    for (const auto& c : cases) {
        if (!wanted.insert(c.kernel).second) continue;
        auto it = specs.find(c.kernel);
        if (it == specs.end()) return fail("no spec for kernel " + c.kernel);
        kernels.push_back(it->second);
    }
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    if (!result.diagnostics.empty()) return fail(result.diagnostics.front().str());
    const auto report = kernelgen::write_outputs(options.out, result.files);
    if (!report.error.empty()) return fail(report.error);
    std::printf("target_make_program: %zu kernels for %zu cases in %s\n", kernels.size(), cases.size(), options.out.c_str());
    return 0;
}

struct Weight {
    size_t flash = 0, progmem = 0;
};

// The flash (and program memory read as data) of each kernel, from `size -A` of the kernels' object; the
// sections named after no kernel under "".
std::map<std::string, Weight> kernel_weights(const std::string& file, const std::set<std::string>& kernels) {
    std::map<std::string, Weight> weights;
    std::ifstream in(file);
    const std::regex row(R"(^\.(text|rodata|progmem\.data|data)\.?(\S*)\s+(\d+))");
    std::string line;
    while (std::getline(in, line)) {
        std::smatch match;
        if (!std::regex_search(line, match, row)) continue;
        std::string symbol = match[2];
        if (symbol.rfind("kernelgen_", 0) == 0) symbol = symbol.substr(10);  // a kernel's own table: kernelgen_<kernel>_data
        std::string owner;  // the longest kernel name the symbol is, or begins with before an underscore
        for (const auto& kernel : kernels) {
            const bool named = symbol.compare(0, kernel.size(), kernel) == 0 &&
                               (symbol.size() == kernel.size() || symbol[kernel.size()] == '_');
            if (named && kernel.size() > owner.size()) owner = kernel;
        }
        const size_t bytes = std::stoul(match[3]);
        weights[owner].flash += bytes;
        if (match[1] != "text") weights[owner].progmem += bytes;
    }
    return weights;
}

// Bytes of the case's constants in the driver: its tensors, label and expected output.
size_t data_bytes(const cprogram::Case& c) {
    size_t bytes = c.label.size() + 1 + (c.constant_data ? 0 : c.data.size()) + c.indices.size() +
                   (c.constant_updates ? 0 : c.updates.size()) +
                   c.expected_output.size();
    for (const auto* strings : {&c.data_strings, &c.updates_strings, &c.expected_strings}) {
        for (const auto& text : *strings) bytes += text.size() + 1;
    }
    return bytes;
}

// Bytes of heap the case takes at once (each block with 8 bytes of allocator overhead, pointers of 4 bytes).
size_t heap_bytes(const cprogram::Case& c) {
    const auto block = [](size_t size) { return std::max<size_t>(size, 1) + 8; };
    const auto strings = [&](const std::vector<std::string>& tensor) {
        size_t chars = 0;
        for (const auto& text : tensor) chars += text.size() + 1;
        return block(chars) + block(tensor.size() * 4);
    };
    size_t bytes = block(c.indices.size());
    if (c.compare == cprogram::Compare::String) {
        bytes += strings(c.data_strings) + (c.has_updates ? strings(c.updates_strings) : 0);
        return bytes + (c.in_place ? 0 : block(c.expected_strings.size() * 4)) + strings(c.expected_strings);
    }
    const size_t data = c.constant_data ? 0 : c.data.size();  // a kernel that holds its data is given none
    bytes += c.in_place ? block(data) : block(data) + block(c.expected_output.size());
    return bytes + (c.has_updates && !c.constant_updates ? block(c.updates.size()) : 0);
}

struct Batch {
    std::vector<cprogram::Case> cases;
    std::set<std::string> kernels;
    Weight weight;
};

int write_programs(const Options& options, const std::vector<cprogram::Case>& cases) {
    std::set<std::string> kernels;
    for (const auto& c : cases) kernels.insert(c.kernel);
    std::map<std::string, Weight> weights = kernel_weights(options.sizes, kernels);
    const std::set<std::string> refused(options.refused.begin(), options.refused.end());
    std::vector<Batch> batches(1);
    batches.back().weight = weights[""];
    size_t refused_cases = 0, skipped = 0;
    for (const auto& c : cases) {
        if (refused.count(c.kernel)) {
            ++refused_cases;
            continue;
        }
        if (heap_bytes(c) > options.ram) {
            std::printf("skipped: %s [%s] needs %zu bytes of heap, the target has %zu\n", c.kernel.c_str(),
                        c.label.c_str(), heap_bytes(c), options.ram);
            ++skipped;
            continue;
        }
        // What the case adds to a batch: its constants and code, and its kernel unless the batch has it.
        const auto added = [&](const Batch& batch) {
            Weight add{data_bytes(c) + options.case_code, data_bytes(c)};
            if (!batch.kernels.count(c.kernel)) {
                add.flash += weights[c.kernel].flash + c.kernel.size() + 1;
                add.progmem += weights[c.kernel].progmem + c.kernel.size() + 1;
            }
            return add;
        };
        const auto fits = [&](const Batch& batch) {
            const Weight add = added(batch);
            return batch.weight.flash + add.flash <= options.flash &&
                   (!options.progmem || batch.weight.progmem + add.progmem <= options.progmem);
        };
        if (!fits(batches.back())) {
            batches.emplace_back();
            batches.back().weight = weights[""];
            if (!fits(batches.back())) {
                return fail("kernel " + c.kernel + " with its case [" + c.label + "] alone exceeds the flash budget");
            }
        }
        Batch& batch = batches.back();
        const Weight add = added(batch);
        batch.weight.flash += add.flash;
        batch.weight.progmem += add.progmem;
        batch.kernels.insert(c.kernel);
        batch.cases.push_back(c);
    }
    if (batches.back().cases.empty()) batches.pop_back();
    std::vector<kernelgen::OutputFile> files;
    std::string counts;  // programs.cmake
    size_t run = 0;
    for (size_t n = 0; n < batches.size(); ++n) {
        const Batch& batch = batches[n];
        files.push_back({"program" + std::to_string(n) + ".c", cprogram::program(batch.cases)});
        run += batch.cases.size();
        counts += "set(program" + std::to_string(n) + "_cases " + std::to_string(batch.cases.size()) + ")\n";
        std::printf("program %zu: %zu cases of %zu kernels, about %zu bytes of flash%s\n", n, batch.cases.size(),
                    batch.kernels.size(), batch.weight.flash,
                    options.progmem ? (", " + std::to_string(batch.weight.progmem) + " of them read as data").c_str() : "");
    }
    if (!refused.empty()) {
        std::string names;
        for (const auto& kernel : refused) names += " " + kernel;
        std::printf("refused by the target: %zu cases of %zu kernels:%s\n", refused_cases, refused.size(), names.c_str());
    }
    counts += "set(program_count " + std::to_string(batches.size()) + ")\nset(cases_run " + std::to_string(run) +
              ")\nset(cases_refused " + std::to_string(refused_cases) + ")\nset(cases_skipped " + std::to_string(skipped) + ")\n";
    files.push_back({"programs.cmake", counts});
    const auto report = kernelgen::write_outputs(options.out, files);
    if (!report.error.empty()) return fail(report.error);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    std::string error;
    if (!parse(argc, argv, options, error)) return fail(error);
    std::vector<cprogram::Case> cases;
    std::map<std::string, kernelgen::KernelSpec> specs;
    std::vector<kernelgen::Diagnostic> diagnostics;
    if (!read_cases(options.case_files, cases, specs, diagnostics, error)) return fail(error);
    if (!diagnostics.empty()) return fail(diagnostics.front().str());
    return options.mode == "kernels" ? write_kernels(options, cases, specs, diagnostics) : write_programs(options, cases);
}
