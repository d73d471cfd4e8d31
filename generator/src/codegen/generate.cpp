#include "kernelgen/generate.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "codegen/plan/schedule.h"
#include "codegen/plan/weights.h"
#include "codegen/print/print.h"
#include "common/c_names.h"

namespace kernelgen {

namespace {

// The limit that needs the lowering: "unroll": "full" (the spec's, or the run's --unroll) may take at most
// kMaxFullUnroll statements. Checked before planning, so that planning and printing never fail.
void check_full_unroll(const KernelSpec& kernel, const Lowered& lowered, std::vector<Diagnostic>& diagnostics) {
    if (kernel.unroll.kind != Unroll::Kind::Full) return;
    const uint64_t statements = schedule::full_unroll_statements(lowered);
    if (statements <= kMaxFullUnroll) return;
    // The setting is the spec's own, or the run's --unroll for a spec without one.
    const bool own = kernel.unroll_in_spec.has_value();
    diagnostics.push_back({kernel.spec_file, kernel.pointer + (own ? "/unroll" : ""),
                           "\"full\" unrolling" + std::string(own ? "" : " (--unroll full)") + " would take " +
                               std::to_string(statements) + " statements (at most " + std::to_string(kMaxFullUnroll) +
                               "; use \"auto\", \"none\" or a factor)"});
}

// The run-wide name rule, on each kernel's identifiers (`identifiers(k)`: those of kernels[k]).
template <typename Identifiers>
void check_names(const std::vector<KernelSpec>& kernels, Identifiers identifiers, std::vector<Diagnostic>& diagnostics) {
    std::map<std::string, const KernelSpec*> owners;  // identifier -> the first kernel defining it
    auto where = [](const KernelSpec& kernel) {
        return kernel.spec_file + ": " + (kernel.pointer.empty() ? "/" : kernel.pointer);
    };
    for (size_t k = 0; k < kernels.size(); ++k) {
        const KernelSpec& kernel = kernels[k];
        for (const auto& identifier : identifiers(k)) {
            auto [it, inserted] = owners.emplace(identifier, &kernel);
            if (inserted || it->second == &kernel) continue;
            const KernelSpec& first = *it->second;
            std::string message;
            if (first.name == kernel.name) {
                message = "kernel name " + in_quotes(kernel.name) + " is already used by " + where(first) +
                          " (names must be unique in a run)";
            } else if (macro_case(first.name) == macro_case(kernel.name)) {
                message = "kernel name " + in_quotes(kernel.name) + " equals " + in_quotes(first.name) + " of " +
                          where(first) + " once upper-cased, as the macros are (names must differ even when upper-cased)";
            } else {
                message = "kernel name " + in_quotes(kernel.name) + " clashes with kernel " + in_quotes(first.name) +
                          " of " + where(first) + ": both headers would define " + identifier +
                          " (names whose headers share no identifier)";
            }
            diagnostics.push_back({kernel.spec_file, kernel.pointer + "/name", message});
            break;  // one problem per kernel is enough
        }
    }
}

}  // namespace

void check_unique_names(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic>& diagnostics) {
    check_names(kernels, [&](size_t k) { return header_identifiers(kernels[k]); }, diagnostics);
}

// The pipeline, one stage after the other: the specs arrive read and resolved (spec/); the run-wide rules
// check them together; each is lowered once (lower/), and its "full" unrolling checked; then each is planned
// (plan/: its Schedule) and printed (print/), and nothing after the checks can fail but the size of the run.
GenerateResult generate(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic> diagnostics,
                        uint64_t max_output_bytes) {
    GenerateResult result;
    std::vector<Lowered> lowered;
    lowered.reserve(kernels.size());
    for (const auto& spec : kernels) lowered.push_back(lower(spec));                         // lower
    check_names(kernels, [&](size_t k) { return lowered[k].face.identifiers(); }, diagnostics);  // check
    for (size_t k = 0; k < kernels.size(); ++k) {
        check_full_unroll(kernels[k], lowered[k], diagnostics);
    }
    if (!diagnostics.empty()) {
        result.diagnostics = std::move(diagnostics);
        return result;
    }
    uint64_t total = 0;
    for (size_t k = 0; k < kernels.size(); ++k) {
        const KernelSpec& spec = kernels[k];
        const schedule::Schedule schedule = schedule::plan(std::move(lowered[k]));  // plan
        GeneratedKernel kernel = print_kernel(schedule);                              // print
        total += kernel.header.size() + kernel.source.size() + kernel.data.size();
        if (total > max_output_bytes) {
            result.files.clear();
            result.diagnostics.push_back({spec.spec_file, spec.pointer,
                                          "the run's generated files pass " + std::to_string(max_output_bytes) +
                                              " bytes at this kernel (at most " + std::to_string(max_output_bytes) +
                                              " bytes per run; split the specs over several runs)"});
            return result;
        }
        result.files.push_back({kernel.header_name, kernel.header});
        result.files.push_back({kernel.source_name, kernel.source});
        result.kernels.push_back({spec.name, {kernel.header_name, kernel.source_name}});
        if (!kernel.data_name.empty()) {
            result.files.push_back({kernel.data_name, std::move(kernel.data)});
            result.kernels.back().files.push_back(kernel.data_name);
        }
    }
    if (!kernels.empty()) {
        for (auto& file : support_files()) result.files.push_back(std::move(file));
    }
    return result;
}

std::vector<OutputFile> support_files() {
    const GeneratedKernel support = print_support();
    return {{support.header_name, support.header}, {support.source_name, support.source}};
}

GenerateResult generate_files(const std::vector<std::string>& spec_paths, const RunOptions& options) {
    std::vector<Diagnostic> diagnostics;
    std::vector<KernelSpec> kernels;
    for (const auto& path : spec_paths) {
        auto parsed = parse_spec_file(path, diagnostics);
        kernels.insert(kernels.end(), parsed.begin(), parsed.end());
    }
    for (auto& kernel : kernels) apply_run_options(kernel, options);
    GenerateResult result = generate(kernels, std::move(diagnostics));
    // The files the run read: the specs, then the files their constant tensors come from, each once.
    result.inputs = spec_paths;
    for (const auto& kernel : kernels) {
        for (const auto& path : kernel.files_read()) {
            if (std::find(result.inputs.begin(), result.inputs.end(), path) == result.inputs.end()) result.inputs.push_back(path);
        }
    }
    if (!options.support_files) {
        auto support = [](const OutputFile& file) { return file.name == kSupportHeader || file.name == kSupportSource; };
        result.files.erase(std::remove_if(result.files.begin(), result.files.end(), support), result.files.end());
    }
    return result;
}

}  // namespace kernelgen
