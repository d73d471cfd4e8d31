// A whole run: read every spec file, resolve, emit, and write the outputs atomically.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kernelgen/output_files.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// The most C one run may generate, all files together: a run holds its output in memory until every
// kernel is emitted, so this bounds its memory whatever the input.
constexpr uint64_t kMaxRunOutputBytes = uint64_t{256} << 20;

struct GenerateResult {
    std::vector<Diagnostic> diagnostics;  // empty when every spec is valid
    std::vector<OutputFile> files;        // empty unless every spec is valid
    // The files the run read (generate_files()): the spec files, then the data files they name ("data_file"),
    // each once, as the run named them. What the generated files depend on.
    std::vector<std::string> inputs;
};

// A depfile (a Makefile rule, as compilers' -MD and protoc's --dependency_out write): every file of `result` in
// `out_dir` depends on every one of its inputs. Spaces, '#' and '$' are escaped as make and Ninja read them.
std::string depfile(const std::string& out_dir, const GenerateResult& result);

// Resolves specs that were already parsed, with their run's options applied: the spec reader's run-wide checks
// (check_unique_names, check_full_unroll), then emits every kernel, at most `max_output_bytes` in all, and the support files
// they share (kernelgen_support.h and .c, after the kernels) when there is any kernel.
// Emits nothing if any problem is found.
GenerateResult generate(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic> diagnostics = {},
                        uint64_t max_output_bytes = kMaxRunOutputBytes);

// kernelgen_support.h and kernelgen_support.c, as every run writes them beside its kernels (emit_support()).
std::vector<OutputFile> support_files();

// Parses every file, applies `options` (apply_run_options), then generate().
GenerateResult generate_files(const std::vector<std::string>& spec_paths, const RunOptions& options = {});

}  // namespace kernelgen
