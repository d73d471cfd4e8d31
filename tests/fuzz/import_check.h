// What the import fuzzers (import_fuzzer, graph_fuzzer) require of one import of a model's bytes: kernelgen import
// (parsing, ONNX's shape inference in its contained child process, the importer's own reading of shapes, constants
// and attributes) never crashes, hangs, throws or grows without bound; a bad model is a diagnostic, a bad node a
// skipped one with a one-line reason, and every spec it returns reads back to the same kernel and generates.
// A requirement broken is __builtin_trap(), which libFuzzer reports with the input.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernelgen/generate.h"
#include "kernelgen/import.h"

namespace kernelgen_fuzz {

inline void import_and_check(const std::string& model) {
    kernelgen::ImportOptions options;
    options.inference.memory_bytes = uint64_t{512} << 20;  // well inside libFuzzer's limits (-timeout, -rss_limit_mb)
    options.inference.cpu_seconds = 4;
    options.inference.wall_seconds = 6;
    const kernelgen::ImportResult result = kernelgen::import_model(model, "fuzz.onnx", options);
    if (!result.diagnostics.empty() && !result.kernels.empty()) __builtin_trap();  // all or nothing
    std::vector<kernelgen::KernelSpec> kernels;
    for (const auto& kernel : result.kernels) {
        // Each spec file reads back to exactly the kernel import returned. A kernel that holds its data (or a
        // scatter's updates) names the .npy file import writes beside the spec (not written here): its spec reads
        // back without it (and without a quantized table's "quantization", whose files are not written either), and
        // the table is the one import returned.
        std::vector<kernelgen::Diagnostic> diagnostics;
        auto text = nlohmann::ordered_json::parse(kernel.spec_text);
        if (kernel.spec.constant_data != std::nullopt) {
            if (text.value("data_file", "") != kernel.data_file || kernel.data_file.empty()) __builtin_trap();
            text.erase("data_file");
        }
        if (kernel.spec.constant_updates != std::nullopt) {
            if (text.value("updates_file", "") != kernel.updates_file || kernel.updates_file.empty()) __builtin_trap();
            text.erase("updates_file");
        }
        if (text.contains("quantization") != kernel.spec.quantization.has_value()) __builtin_trap();
        text.erase("quantization");
        auto parsed = kernelgen::parse_spec_text(text.dump(), kernel.name + ".json", diagnostics);
        if (parsed.size() != 1 || !diagnostics.empty() || parsed[0].name != kernel.name) __builtin_trap();
        parsed[0].constant_data = kernel.spec.constant_data;
        parsed[0].constant_updates = kernel.spec.constant_updates;
        parsed[0].quantization = kernel.spec.quantization;
        kernels.push_back(parsed[0]);
    }
    for (const auto& skipped : result.skipped) {
        if (skipped.reason.empty() || skipped.reason.find('\n') != std::string::npos) __builtin_trap();
    }
    // The specs generate: every imported kernel is one kernelgen accepts as a run.
    if (!kernels.empty() && !kernelgen::generate(kernels).diagnostics.empty()) __builtin_trap();
}

}  // namespace kernelgen_fuzz
