// kernelgen import: the indexing nodes of an ONNX model turned into spec files.
//
// Reads a model (with ONNX's own protobuf classes), gives its symbolic dimensions the values the caller binds
// (--dim, --input), then alternates ONNX's shape inference (with data propagation, in a child process under
// limits) with kernelgen's own constant folding until nothing new is known: every value that does not depend on
// a graph input at run time (initializers, Constant, Shape, and the operators exporters compute shapes and
// indices with) is computed at import time. Then every Gather, GatherElements, GatherND, ScatterND,
// ScatterElements (and deprecated Scatter) node of the main graph and of every If, Loop and Scan body, at any
// depth, is one of: folded (its value known: no kernel), a spec (its shapes static; constant indices when they
// are known), or skipped with the reason. Every spec is checked by kernelgen's own spec reader before it is
// returned. Nothing here writes files.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernelgen/output_files.h"
#include "kernelgen/result.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// Largest model file import reads (protobuf's own limit for one message is 2 GiB).
constexpr uint64_t kMaxModelBytes = (uint64_t{2} << 30) - 1;

// How far ONNX's shape inference may go on one model: it runs in a child process under these limits, so that a
// model that crashes it, or makes it allocate or loop without end, ends the child and never kernelgen.
struct InferenceLimits {
    uint64_t memory_bytes = uint64_t{2} << 30;  // beyond what the process holds when inference starts
    unsigned cpu_seconds = 60;
    unsigned wall_seconds = 120;
};

// How long and how much memory one import may take as a whole, across every round of inference and folding: past
// either, import stops with a diagnostic and nothing is written (--time-limit, --memory-limit).
struct ImportLimits {
    unsigned seconds = 300;
    // Memory import may add to what the process holds once the model is read: its resident memory, checked as the
    // work goes, and its data segment, which the system holds to it (an allocation beyond it fails and ends the
    // import the same way).
    uint64_t memory_bytes = uint64_t{4} << 30;
    // Whether memory_bytes is also the process's own limit while the import runs (RLIMIT_DATA, set above what the
    // process holds then and restored after), so that no allocation passes it between two checks. false leaves the
    // process's limits alone (a program that imports in several threads at once, or sets its own).
    bool limit_process = true;
};
// The largest limits the command line takes: a day, and 1 TiB.
constexpr unsigned kMaxTimeLimit = 86400;
constexpr uint64_t kMaxMemoryLimitMiB = uint64_t{1} << 20;

// A shape given on the command line: `--input NAME=1x16000`, `NAME=[]` or `NAME=scalar` for rank 0.
struct InputShape {
    std::string name;
    std::vector<int64_t> dims;
    std::string text;  // the option as given ("--input x=scalar"), for messages; made from name and dims when empty
};

// Values given on the command line: `--value NAME=V[,V...]`, the values a graph input holds at every call (a
// sample rate, a mode flag), in row-major order; import then treats the input as a constant.
struct InputValue {
    std::string name;
    std::vector<std::string> values;  // as written: integers, or decimal numbers for a float input
    std::string text;                 // the option as given, for messages
};

// The most values one --value gives.
constexpr size_t kMaxInputValues = 65536;

struct ImportOptions {
    std::string prefix;  // put in front of every kernel name
    InferenceLimits inference;
    ImportLimits limits;
    std::map<std::string, int64_t> dims;  // --dim NAME=N: every symbolic dimension NAME is N
    std::vector<InputShape> inputs;       // --input NAME=SHAPE: the whole shape of a graph input
    std::vector<InputValue> values;       // --value NAME=V[,V...]: the values of a graph input, fixed
    // --max-count NODE=N: the run-time count of indexing node NODE (its name, or its path in a body) is at most N:
    // a bound where none can be derived, or a lower one than derived.
    std::map<std::string, uint64_t> max_counts;
    // --max-extent NODE=N: each dimension of Gather node NODE's data beyond the leading one that the model makes at
    // run time from values (a Resize to sizes computed from boxes) is at most N: the kernel takes those extents at
    // run time ("runtime_axes").
    std::map<std::string, uint64_t> max_extents;
    // --accumulate NODE: ScatterND node NODE (its name, or its path in a body), which writes into zeros without a
    // reduction and whose result an Add adds (how PyTorch exports index_put_(accumulate=True)), gets reduction
    // "add": what PyTorch computes, where the model keeps only one update at duplicate indices.
    std::set<std::string> accumulate;
    // --plain-indices NODE: the kernel of indexing node NODE takes the node's own indices input, as the graph
    // makes it, instead of the run-time tensor it is made of (see KernelTensors).
    std::set<std::string> plain_indices;
    // --weights: a gather's data that is a constant of the model (an initializer: an embedding table) becomes the
    // kernel's table, in a .npy file beside its spec (true, "kernel", the default), or stays a parameter the caller
    // passes (false, "caller").
    bool weights_in_kernel = true;
};

// The largest bound --max-count takes: a kernel's run-time count is a uint32_t.
constexpr uint64_t kMaxCountBound = 0xFFFFFFFFu;

// Parses the text of `--dim NAME=N` (N from 0 to 2^40), `--input NAME=SHAPE` or `--value NAME=V[,V...]`; the
// problem when it is malformed.
Result<std::pair<std::string, int64_t>> parse_dim_option(const std::string& text);
Result<InputShape> parse_input_option(const std::string& text);
Result<InputValue> parse_value_option(const std::string& text);
// `--time-limit SECONDS` or `--memory-limit MIB` (`option`): a whole number of `unit` from 1 to `most`.
Result<uint64_t> parse_limit_option(const std::string& option, const std::string& text, const std::string& unit, uint64_t most);
// `--max-count NODE=N` (N from 1 to kMaxCountBound; NODE may itself hold '=': the last one splits).
Result<std::pair<std::string, uint64_t>> parse_max_count_option(const std::string& text);
// `--max-extent NODE=N`, likewise (a kernel's extent is a uint32_t).
Result<std::pair<std::string, uint64_t>> parse_max_extent_option(const std::string& text);

// A node of the model, as messages name it: its name (may be empty), operator, position in its graph, and the
// graph: "" for the main graph, else the path of the node and branch that hold it ("If_0/then", "loop/body").
struct NodeRef {
    std::string name;
    std::string op_type;
    size_t position = 0;
    std::string graph;
    // "node \"name\" (Op, #position)", with " in If_0/then" after the position for a node of a subgraph
    std::string str() const;
    // "If_0/then/name" (the graph's path and the node's name, or Op#position for an unnamed node)
    std::string path() const;
};

// An indexing node whose shapes hold counts known only at run time: its kernel takes them, each up to a bound
// derived from the producer (NonZero, NonMaxSuppression, Compress, TopK with a run-time k, Unique, a Slice by
// run-time ends, ...) or given by --max-count.
struct BoundedCount {
    struct Count {
        uint64_t bound = 0;                // the tensor's leading dimension in the spec
        std::vector<std::string> through;  // how the bound was found: the producer first, then each operator after it
    };
    // "count": "runtime", the rows of `leads`: "indices" (and output, and a scatter's updates), or "data" for a
    // Gather along an axis >= 1. Absent when the kernel has a data count alone.
    std::optional<Count> count;
    std::string leads;
    // "data_count": "runtime": the valid rows of data, among which the indices select along axis 0; alone, or
    // beside a count of index rows.
    std::optional<Count> data_count;
    // The count a --max-count bounds: that of rows where there is one, else that of data's valid rows.
    const Count& bounded_by_option() const { return count ? *count : *data_count; }
};

// The model's tensors a kernel's parameters take (docs/import.md, "The call"): the node's data and updates, the
// tensor its indices are made of, and its output; "" for one it has not. The graph often makes a node's indices
// of a tensor the firmware holds by steps that keep the values and their order (Reshape, Squeeze, Unsqueeze,
// Flatten, Identity) or widen them (a Cast of int32 to int64): the kernel takes that tensor, of its own type, and
// `indices_through` names the steps passed, from that tensor to the node. A scatter's updates reshaped so
// (`c[:, pos] = x` reshapes x) are the tensor before, `updates_through` naming the steps.
struct KernelTensors {
    std::string data, indices, updates, output;
    std::vector<std::string> indices_through, updates_through;
    // A Gather's data extents taken at run time ("runtime_axes"), in axis order: each one's bound and how it was
    // found (the Resize whose sizes make it, then the nodes that bound those values; or --max-extent).
    std::vector<BoundedCount::Count> extents;
};

struct ImportedKernel {
    NodeRef node;
    KernelTensors tensors;
    std::optional<BoundedCount> bounded;  // set for a kernel with a run-time count
    std::string name;       // the kernel name (prefix + the node's path made a valid, unique C identifier)
    std::string spec_text;  // the spec file's content: pretty-printed JSON, keys in a fixed order
    KernelSpec spec;        // spec_text as kernelgen's spec reader resolved it
    // A kernel whose data is a constant of the model (a weight, a scatter's starting tensor) holds it: the spec's
    // "data_file", written beside it ("<kernel name>.data.npy", or "<kernel name>.data_2.npy" where a folded
    // value's file has that name). Empty with --weights caller, or data not constant.
    std::string data_file;
    // A scatter's constant updates: the spec's "updates_file" ("<kernel name>.updates.npy").
    std::string updates_file;
    // The files of the tensors the kernel holds, as its spec names them (its data's first, then the other parts of
    // its table, a scatter's updates): each file's name and content.
    std::vector<std::pair<std::string, std::string>> table_files;
};

// The most elements of a folded value the report shows as nested JSON; a larger value goes into a NumPy file of
// its own beside the report (`<model stem>.<node>.npy`), which the report names.
constexpr uint64_t kMaxReportedElements = 1024;

// An indexing node whose value is known at import time: no kernel is made for it.
struct FoldedNode {
    NodeRef node;
    std::string dtype;             // kernelgen's name of its element type ("int64", "float32", ...)
    std::vector<int64_t> shape;
    // The elements nested as the shape (see docs/import.md for NaN and infinities), for a value of at most
    // kMaxReportedElements elements; null for a larger one, which is in `file` instead.
    nlohmann::ordered_json value;
    std::string file;  // for a larger value: the name of its .npy file beside the report, else ""
    std::string npy;   // that file's content (NumPy format 1.0, little-endian; bfloat16 as its uint16 bits)
};

struct SkippedNode {
    NodeRef node;
    std::string reason;
};

// A Gather whose output is its data's own leading elements (a constant index 0 along an axis of extent 1, or with
// only dimensions of 1 before it), where a dimension known only at run time leaves no kernel possible: no kernel
// is needed, the firmware passes data's buffer on.
struct ViewNode {
    NodeRef node;
    std::string of;   // the data tensor
    std::string how;  // why the output is data's leading elements
};

struct ImportResult {
    std::vector<Diagnostic> diagnostics;  // fatal: the file is not a readable ONNX model (then nothing else is set)
    // --dim and --input that do not fit the model (an input it lacks, a contradiction): usage errors, and then
    // nothing else is set.
    std::vector<std::string> usage_errors;
    std::vector<ImportedKernel> kernels;  // in graph order (a node, then the nodes of its subgraphs)
    std::vector<FoldedNode> folded;       // likewise
    std::vector<ViewNode> views;          // likewise
    std::vector<SkippedNode> skipped;     // indexing nodes that could not become a spec, in graph order
    // Indexing nodes in the branch of an If whose condition is known at import time (from the bound shapes)
    // and that the If does not take: they never run, and need no kernel (`--strict` does not count them).
    std::vector<SkippedNode> not_run;
    std::vector<std::string> notes;       // remarks that change nothing (a --dim that names no dimension)
    // Whether ONNX shape inference ran over the whole model; when it could not, `inference_note` says why and
    // only the shapes the model declares were used.
    bool inference_ran = false;
    std::string inference_note;
    int fold_rounds = 0;                  // rounds of inference and folding run
    std::string report;                   // the import report (JSON), also for a model without indexing nodes
    size_t indexing_nodes() const {
        return kernels.size() + folded.size() + views.size() + skipped.size() + not_run.size();
    }
    size_t kernels_in_subgraphs() const;  // the kernels of nodes in a subgraph (an If branch, a Loop body)
    size_t bounded_kernels() const;       // the kernels with a run-time count
};

// Whether `prefix` can begin kernel names ("" always can): the problem when it cannot.
Result<Ok> check_prefix(const std::string& prefix);

// Imports a model held in memory; `file` names it in diagnostics and the report. `options.prefix` must be valid.
ImportResult import_model(const std::string& bytes, const std::string& file, const ImportOptions& options = {});

// Reads `path` (a regular file of at most kMaxModelBytes) and imports it; an unreadable file is a diagnostic.
ImportResult import_model_file(const std::string& path, const ImportOptions& options = {});

// One "<kernel name>.json" per imported kernel, ready for write_outputs().
std::vector<OutputFile> spec_files(const ImportResult& result);

// The report's file name for a model: "<model file stem>.import.json".
std::string report_file_name(const std::string& model_path);

// The spec files, the report, the .npy files of large folded values and of the kernels' tables, ready for write_outputs(); nothing when
// the model has no indexing node.
std::vector<OutputFile> import_outputs(const ImportResult& result, const std::string& model_path);

// The summary line: "MODEL: 12 specs (5 in subgraphs), 19 folded, 2 skipped" (", 4 bounded" inside the parentheses
// and ", 3 not run" at the end when some are), or "MODEL: no indexing nodes; nothing was written".
std::string import_summary(const ImportResult& result, const std::string& model_path);

}  // namespace kernelgen
