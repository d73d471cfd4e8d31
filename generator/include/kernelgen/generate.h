// A whole run: read every spec file, resolve, emit, and write the outputs atomically.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/output_files.h"
#include "kernelgen/result.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// The most C one run may generate, all files together: a run holds its output in memory until every
// kernel is emitted, so this bounds its memory whatever the input.
constexpr uint64_t kMaxRunOutputBytes = uint64_t{256} << 20;

// A kernel of a run and the names of the files it writes (its header, source and, with constant data, table).
struct KernelFiles {
    std::string name;
    std::vector<std::string> files;
};

struct GenerateResult {
    std::vector<Diagnostic> diagnostics;  // empty when every spec is valid
    std::vector<OutputFile> files;        // empty unless every spec is valid
    std::vector<KernelFiles> kernels;     // each kernel's files among `files`, in the order of the specs
    // The files the run read (generate_files()): the spec files, then the data files they name ("data_file"),
    // each once, as the run named them. What the generated files depend on.
    std::vector<std::string> inputs;
};

// A depfile (a Makefile rule, as compilers' -MD and protoc's --dependency_out write): every file of `result` in
// `out_dir` depends on every one of its inputs. Spaces, '#', '$' and ':' are escaped as make and Ninja read
// them; a path with a character that one of them cannot read (a control character, a quote, a backslash,
// ; = | % * ? and the shell's < > & ` ^) gives the problem, which names the path and the character.
Result<std::string> depfile(const std::string& out_dir, const GenerateResult& result);

// What `kernelgen list` prints of a successful run, for build systems: the line "# kernelgen list, format 1", then
// a line "kernel NAME FILE..." per kernel
// (its files' names, in the output folder) and a line "input PATH" per input, in the order of `result`.
std::string file_list(const GenerateResult& result);

// Writes the files of a successful run into `out_dir` (write_outputs(), with the run's inputs protected), and
// then, when `depfile_path` is not empty, its depfile, through the same writer into the depfile's folder. Every
// check comes before anything is written: the depfile's text (depfile()), its folder (existing, or `out_dir`),
// and its name, which may be neither an input nor an output of the run. The report's error says what failed.
WriteReport write_run(const std::string& out_dir, const GenerateResult& result, const std::string& depfile_path = "");

// Checks that belong to a whole run: no identifier defined by two kernels' headers (the same name, names
// equal once upper-cased as the macros are, or a name such as "foo_OK" against the macros of "foo").
void check_unique_names(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic>& diagnostics);

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
