// kernelgen import: the indexing nodes of an ONNX model turned into spec files.
//
// Reads a model (with ONNX's own protobuf classes), runs ONNX shape inference on it in a child process under
// limits (falling back to the shapes and types the model declares where inference cannot run: opset 18, which
// Debian's ONNX 1.12 does not know, or a model that crashes it), and makes one spec per Gather, GatherElements, GatherND, ScatterND, ScatterElements (and the
// deprecated Scatter, which is ScatterElements without a reduction) node of the main graph whose shapes and
// types are static. Every spec is checked by kernelgen's own spec reader before it is returned; a node that
// cannot become a valid spec is listed with the reason instead. Nothing here writes files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernelgen/generate.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// Largest model file import reads (protobuf's own limit for one message is 2 GiB).
constexpr uint64_t kMaxModelBytes = (uint64_t{2} << 30) - 1;
// Most constant index values one imported spec may carry (beyond it the spec file would pass kernelgen's
// 16 MiB limit for a spec file).
constexpr uint64_t kMaxConstantIndices = uint64_t{1} << 20;

// How far ONNX's shape inference may go on one model: it runs in a child process under these limits, so that a
// model that crashes it, or makes it allocate or loop without end, ends the child and never kernelgen.
struct InferenceLimits {
    uint64_t memory_bytes = uint64_t{2} << 30;  // beyond what the process holds when inference starts
    unsigned cpu_seconds = 60;
    unsigned wall_seconds = 120;
};

struct ImportOptions {
    std::string prefix;  // put in front of every kernel name
    InferenceLimits inference;
};

// A node of the model, as messages name it: its name (may be empty), operator and position in the graph.
struct NodeRef {
    std::string name;
    std::string op_type;
    size_t position = 0;
    // "node \"name\" (Op, #position)"
    std::string str() const;
};

struct ImportedKernel {
    NodeRef node;
    std::string name;       // the kernel name (prefix + the node's name made a valid, unique C identifier)
    std::string spec_text;  // the spec file's content: pretty-printed JSON, keys in a fixed order
    KernelSpec spec;        // spec_text as kernelgen's spec reader resolved it
};

struct SkippedNode {
    NodeRef node;
    std::string reason;
};

struct ImportResult {
    std::vector<Diagnostic> diagnostics;  // fatal: the file is not a readable ONNX model (then nothing else is set)
    std::vector<ImportedKernel> kernels;  // in the order of the graph's nodes
    std::vector<SkippedNode> skipped;     // indexing nodes that could not become a spec, in graph order
    // Whether ONNX shape inference ran over the whole model; when it could not, `inference_note` says why and
    // only the shapes the model declares were used.
    bool inference_ran = false;
    std::string inference_note;
};

// Why `prefix` cannot begin kernel names, or nothing when it can ("" always can).
std::optional<std::string> prefix_problem(const std::string& prefix);

// Imports a model held in memory; `file` names it in diagnostics. `options.prefix` must be valid.
ImportResult import_model(const std::string& bytes, const std::string& file, const ImportOptions& options = {});

// Reads `path` (a regular file of at most kMaxModelBytes) and imports it; an unreadable file is a diagnostic.
ImportResult import_model_file(const std::string& path, const ImportOptions& options = {});

// One "<kernel name>.json" per imported kernel, ready for write_outputs().
std::vector<OutputFile> spec_files(const ImportResult& result);

}  // namespace kernelgen
