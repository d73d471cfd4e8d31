#include "kernelgen/generate.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "codegen/print.h"
#include "codegen/indexed_copy.h"

namespace kernelgen {

namespace {

// The limit that needs the lowering: "unroll": "full" (the spec's, or the run's --unroll) may take at most
// kMaxFullUnroll statements. Checked before planning, so that planning and printing never fail.
std::optional<Diagnostic> full_unroll_problem(const KernelSpec& kernel, const IndexedCopy& copy) {
    if (kernel.unroll.kind != Unroll::Kind::Full) return std::nullopt;
    const uint64_t statements = full_unroll_statements(copy, kernel);
    if (statements <= kMaxFullUnroll) return std::nullopt;
    // The setting is the spec's own, or the run's --unroll for a spec without one.
    const bool own = kernel.unroll_in_spec.has_value();
    return Diagnostic{kernel.spec_file, kernel.pointer + (own ? "/unroll" : ""),
                      "\"full\" unrolling" + std::string(own ? "" : " (--unroll full)") + " would take " +
                          std::to_string(statements) + " statements (at most " + std::to_string(kMaxFullUnroll) +
                          "; use \"auto\", \"none\" or a factor)"};
}

}  // namespace

// The pipeline, one stage after the other: the specs arrive read and resolved (spec/); the run-wide rules
// check them together; each is lowered once to its IndexedCopy, whose "full" unrolling is checked; then each is
// planned (its Schedule) and printed, and nothing after the checks can fail but the size of the run.
GenerateResult generate(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic> diagnostics,
                        uint64_t max_output_bytes) {
    GenerateResult result;
    check_unique_names(kernels, diagnostics);                                   // check
    std::vector<IndexedCopy> copies;
    copies.reserve(kernels.size());
    for (const auto& spec : kernels) {
        copies.push_back(lower(spec));                                          // lower
        if (auto problem = full_unroll_problem(spec, copies.back())) diagnostics.push_back(*problem);
    }
    if (!diagnostics.empty()) {
        result.diagnostics = std::move(diagnostics);
        return result;
    }
    uint64_t total = 0;
    for (size_t k = 0; k < kernels.size(); ++k) {
        const KernelSpec& spec = kernels[k];
        const schedule::Schedule schedule = schedule::plan(spec, copies[k]);   // plan
        GeneratedKernel kernel = print_kernel(spec, copies[k], schedule);      // print
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
    result.inputs = spec_paths;
    // The files a kernel's constant tensors come from: data's values (a quantized table's scales and zero points
    // too), and a scatter's updates.
    auto input = [&](const std::string& path) {
        if (!path.empty() && std::find(result.inputs.begin(), result.inputs.end(), path) == result.inputs.end()) {
            result.inputs.push_back(path);
        }
    };
    for (const auto& kernel : kernels) {
        if (kernel.constant_data) input(kernel.constant_data->path);
        if (kernel.constant_updates) input(kernel.constant_updates->path);
        if (kernel.quantization) {
            input(kernel.quantization->scales_path);
            input(kernel.quantization->zero_points_path);
        }
    }
    if (!options.support_files) {
        auto support = [](const OutputFile& file) { return file.name == kSupportHeader || file.name == kSupportSource; };
        result.files.erase(std::remove_if(result.files.begin(), result.files.end(), support), result.files.end());
    }
    return result;
}

}  // namespace kernelgen
