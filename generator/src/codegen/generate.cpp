#include "kernelgen/generate.h"

#include <algorithm>

#include "codegen/emit.h"
#include "codegen/indexed_copy.h"

namespace kernelgen {

GenerateResult generate(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic> diagnostics,
                        uint64_t max_output_bytes) {
    GenerateResult result;
    check_unique_names(kernels, diagnostics);
    check_full_unroll(kernels, diagnostics);
    if (!diagnostics.empty()) {
        result.diagnostics = std::move(diagnostics);
        return result;
    }
    uint64_t total = 0;
    for (const auto& spec : kernels) {
        GeneratedKernel kernel = emit(spec, lower(spec));
        total += kernel.header.size() + kernel.source.size();
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
    }
    if (!kernels.empty()) {
        for (auto& file : support_files()) result.files.push_back(std::move(file));
    }
    return result;
}

std::vector<OutputFile> support_files() {
    const GeneratedKernel support = emit_support();
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
    if (!options.support_files) {
        auto support = [](const OutputFile& file) { return file.name == kSupportHeader || file.name == kSupportSource; };
        result.files.erase(std::remove_if(result.files.begin(), result.files.end(), support), result.files.end());
    }
    return result;
}

}  // namespace kernelgen
