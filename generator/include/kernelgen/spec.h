// The spec format: JSON op specs read, checked against ONNX's rules and resolved into KernelSpec values.
// Every check on user input happens here; later stages never fail on a resolved spec.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernelgen/diagnostics.h"
#include "kernelgen/dtype.h"
#include "kernelgen/numbers.h"
#include "kernelgen/operators.h"
#include "kernelgen/shape.h"

namespace kernelgen {

// Largest number of copies "unroll": "full" may emit as straight-line code.
constexpr uint64_t kMaxFullUnroll = 4096;
constexpr uint64_t kMaxUnrollFactor = 64;
// Farthest a kernel may prefetch ahead, in index tuples ("prefetch": N).
constexpr uint64_t kMaxPrefetchDistance = 1024;
// Input bounds that keep any run finite and small: a spec file's size, and how deep its JSON may nest (a
// spec needs 4 levels: {"kernels": [{"data_shape": [...]}]}).
constexpr uint64_t kMaxSpecFileBytes = uint64_t{16} << 20;
constexpr size_t kMaxJsonDepth = 64;
// The largest constant data one kernel may hold ("data" or "data_file"), by the bytes of its elements: 64 MiB of
// 4- and 8-byte elements, 32 MiB of 2-byte ones, 16 MiB of 1-byte ones. Its C text (a hexadecimal literal per
// element: 3.25 characters per byte for 4-byte elements, 7 for 1-byte ones) stays within a run's output limit.
uint64_t max_constant_data_bytes(uint64_t element_bytes);

// The first key of an import report (kernelgen import's <model>.import.json), whose value is the report format's
// version. A file whose top-level object has this key holds no kernels: the spec reader returns none, and no
// diagnostic.
constexpr const char* kImportReportKey = "kernelgen_import_report";

// Whether `text` begins as an import report does: '{' and this key first (whitespace aside). A report is known
// by its beginning, before any limit on a spec file's size or nesting applies to it.
bool starts_as_import_report(std::string_view text);

struct Unroll {
    enum class Kind { Auto, Full, None, Factor } kind = Kind::Auto;
    unsigned factor = 1;  // with Kind::Factor
};

// Software prefetching of the blocks a kernel's indices select (a hint where the compiler has one, see codegen/print/print.cpp):
// Auto decides by the tensor and block sizes, None never prefetches, Distance prefetches the block of the
// index tuple `distance` tuples ahead.
struct Prefetch {
    enum class Kind { Auto, None, Distance } kind = Kind::Auto;
    unsigned distance = 0;  // with Kind::Distance
};

// Whether a kernel checks its index values before it writes (the default), or trusts them: with None an
// out-of-range index is undefined behaviour, for indices proven in range elsewhere.
enum class IndexCheck { Checked, None };

// What a run-time count counts ("count_leads"): the rows of indices (the default; output's or a scatter's
// updates' rows follow them), or the rows of data (Gather along axis 1 or later, whose output's rows follow them).
enum class CountLeads { Indices, Data };

struct KernelSpec {
    std::string name;
    Op op = Op::Gather;
    DType dtype = DType::Float32;
    IndexType index_dtype = IndexType::Int64;
    Shape data_shape;
    Shape indices_shape;
    Shape updates_shape;  // scatters only; derived when the spec omits it
    Shape output_shape;   // derived
    int64_t axis = 0;     // normalized to 0..r-1
    int64_t batch_dims = 0;
    Reduction reduction = Reduction::None;
    // "mode" of a write into a cache: linear (each batch row's write index in 0..max - sequence length) or circular
    // (the write position wraps modulo the sequence axis' size, max; only that coordinate wraps).
    enum class WriteMode { Linear, Circular } mode = WriteMode::Linear;
    // Unrolling and prefetching as the spec says them: nothing where it leaves the key out to the run.
    std::optional<Unroll> unroll_in_spec;
    std::optional<Prefetch> prefetch_in_spec;
    // The settings in effect, which planning and emitting read: the spec's own, else the run's (RunOptions), else
    // "auto". Only apply_run_options() sets them, so they cannot disagree with the spec; they stay plain values
    // rather than accessors because the emitter reads them as spec.unroll.kind, spec.prefetch.distance, ...
    Unroll unroll;
    Prefetch prefetch;
    IndexCheck index_check = IndexCheck::Checked;
    // "count": "runtime": the leading dimension of indices (and of output, or a scatter's updates) is a count the
    // caller passes at run time, from 0 to indices_shape[0], its bound. The shapes above are those at the bound.
    // With "count_leads": "data" (CountLeads::Data), the count is data's leading dimension instead, and output's,
    // bounded by data_shape[0]; the indices (run-time or constant) are then all read and checked.
    bool runtime_count = false;
    CountLeads count_leads = CountLeads::Indices;
    // "data_count": "runtime" (Gather along axis 0, GatherND with batch_dims 0, GatherElements along axis 0): only
    // the first data_count rows of data are valid, 0..data_shape[0] (its bound), passed at run time. The indices
    // along data's axis 0 select among those rows: each lies in [-data_count, data_count - 1], negative ones
    // wrapped by data_count. Beside "count" or alone; the shapes above are those at the bound.
    bool runtime_data_count = false;
    // "runtime_axes" (Gather): the data axes, from the gather axis on and ascending, whose extents the caller passes
    // at run time (a uint32_t each, parameter data_dim_<axis>, at most data_shape[axis], its bound). data and output
    // are dense at the extents passed; the shapes above are those at the bounds. The gather axis among them: its
    // indices are checked against, and wrapped by, the extent passed.
    std::vector<size_t> runtime_axes;
    // "indices_broadcast_from": the shape of the indices the kernel takes, which broadcast to indices_shape as
    // ONNX's Expand broadcasts (aligned at the back; each dimension indices_shape's or 1): a model's indices made
    // of a smaller tensor (the positions of an index_copy). Nothing where the kernel takes indices_shape itself.
    std::optional<Shape> indices_broadcast_from;
    // "indices_add": a constant added to every index value the kernel reads, start + sum(steps[i] * position_i)
    // over indices_shape's positions (a model's positions `arange(n) + past_len`, or `ids - 1`). A step is not 0
    // only along an axis the indices are broadcast along, or GatherND's and ScatterND's last (each index tuple's
    // components): each value the kernel takes then has one range, [-s - lowest sum, s - 1 - highest sum], checked
    // once. Nothing where the kernel reads the index values as they are.
    struct IndicesAdd {
        int64_t start = 0;
        std::vector<int64_t> steps;  // one per axis of indices_shape
    };
    std::optional<IndicesAdd> indices_add;
    // "tuple_constants" (GatherND, ScatterND): per component of each index tuple, a constant (the same in every
    // tuple: a model's `c[:, pos] = x` concatenates 0 before each position) or nothing, a component the kernel reads.
    // The indices the kernel takes then hold only the components it reads: their last dimension is their count.
    std::optional<std::vector<std::optional<int64_t>>> tuple_constants;
    // "updates_broadcast_from" (ScatterND, ScatterElements): the shape of smaller updates the kernel takes, which
    // broadcast to updates_shape as ONNX's Expand broadcasts (a model's one row written at every position); never
    // along the rows of data a ScatterND's update writes whole. Nothing where the kernel takes updates_shape.
    std::optional<Shape> updates_broadcast_from;
    // indices_shape, its last dimension the components the kernel reads where some are constants.
    Shape taken_shape() const {
        Shape shape = indices_shape;
        if (tuple_constants && !shape.empty()) {
            shape.back() = static_cast<uint64_t>(std::count(tuple_constants->begin(), tuple_constants->end(), std::nullopt));
        }
        return shape;
    }
    // The shape of the indices the kernel takes: the one they broadcast from, or taken_shape().
    Shape indices_parameter_shape() const { return indices_broadcast_from ? *indices_broadcast_from : taken_shape(); }
    // Constant indices ("indices" in the spec): the index values, row-major, known when the kernel is
    // generated (an initializer of the model). Each was checked against its bound when read; the kernel then
    // takes no indices parameter and its copies are resolved at generation time.
    std::optional<std::vector<int64_t>> constant_indices;
    // Constant data ("data" inline, or "data_file", a NumPy .npy file): the values of data, known when the kernel
    // is generated (a weight of the model, an embedding table; a scatter's starting tensor). The kernel holds them
    // in flash and takes no data parameter. Never beside a run-time data count.
    struct ConstantData {
        // The elements row-major, each element's bytes little-endian (complex: the real part, then the imaginary
        // part): the exact bit patterns the kernel holds.
        std::vector<uint8_t> bytes;
        std::string file;  // "data_file" as the spec gives it, or "" for inline "data"
        std::string path;  // that file as the run opened it (relative to the spec's folder): a dependency
        // Whether every byte is 0 (+0.0, not -0.0): a scatter's data the kernel writes with a memset, no table.
        bool all_zero_bytes() const;
    };
    std::optional<ConstantData> constant_data;
    // A scatter's constant updates ("updates" inline, or "updates_file"): as constant_data, of updates_shape (at
    // the bound of a run-time count, whose first count rows the kernel reads). The kernel takes no updates parameter.
    std::optional<ConstantData> constant_updates;
    // Quantized constant data ("quantization" beside "data" or "data_file"; Gather along axis 0): constant_data
    // holds the quantized values (int8/uint8 one a byte; int4/uint4 two a byte, element 2k in the low nibble of
    // byte k of the flat row-major order), and each gathered element is (float)(q - zero_point) * scale, rounded
    // once to dtype (float32, float16 or bfloat16, the scales' type): ONNX's DequantizeLinear followed by Gather,
    // or ONNX Runtime's com.microsoft.GatherBlockQuantized, with the table kept quantized in flash.
    enum class QuantizedType { Int8, UInt8, Int4, UInt4 };
    struct Quantization {
        QuantizedType type = QuantizedType::Int8;
        // The quantization axis (0..r-1), or -1: one scale for the whole tensor.
        int64_t axis = -1;
        // Blocks of block_size elements along the axis share a scale; 0: one scale per index along the axis.
        uint64_t block_size = 0;
        // The scales' shape: [] (per tensor), [data_shape[axis]] (per axis), or data_shape with the axis'
        // size ceil(data_shape[axis] / block_size) (blocked).
        Shape scales_shape;
        std::vector<uint8_t> scales;  // dtype's bit patterns, little-endian, row-major
        // The zero points: none (0), one for every element, or one per scale (row-major, as the scales).
        std::vector<int32_t> zero_points;
        // Files as the spec gives them, and as the run opened them (dependencies); "" when inline or absent.
        std::string scales_file, scales_path, zero_points_file, zero_points_path;
    };
    std::optional<Quantization> quantization;
    // The files its constant tensors were read from, as the run opened them (a run's dependencies): data's, a
    // quantized table's scales and zero points, a scatter's updates; none when inline.
    std::vector<std::string> files_read() const;
    // Whether a count is passed at run time (of rows, or of data's valid rows).
    bool counted() const { return runtime_count || runtime_data_count; }
    // Whether data's axis `axis` has an extent passed at run time ("runtime_axes").
    bool runtime_axis(size_t axis) const;
    std::string spec_file;  // the file as named on the command line
    std::string pointer;    // JSON pointer of the kernel object in its file ("" or "/kernels/N")
};

// A quantized type's spelling ("int4"), bits (8 or 4) and signedness.
std::string quantized_type_name(KernelSpec::QuantizedType type);
unsigned quantized_type_bits(KernelSpec::QuantizedType type);
bool quantized_type_signed(KernelSpec::QuantizedType type);

// An unroll setting as the command line spells it: auto, full, none or a factor 1..64.
std::optional<Unroll> parse_unroll(const std::string& text);

// A prefetch setting as the command line spells it: auto, none or a distance 1..1024.
std::optional<Prefetch> parse_prefetch(const std::string& text);

// Settings of a whole run (the command line's options): each applies to the kernels whose spec leaves it out.
struct RunOptions {
    std::optional<Unroll> unroll;
    std::optional<Prefetch> prefetch;
    // Whether the run writes kernelgen_support.h and .c beside its kernels (--no-support leaves them to another
    // run, as kernelgen_add_kernels() does: one command per folder writes them).
    bool support_files = true;
};

// Sets the settings in effect of `spec` from its own and the run's. The reader applies no options (RunOptions{}),
// so a parsed spec can be emitted as it is; generate_files() applies the run's.
void apply_run_options(KernelSpec& spec, const RunOptions& run);

// Whether "indices_add" may step along `axis` of `indices_shape`, the indices taken being `taken` (their
// "indices_broadcast_from", aligned and padded, or indices_shape itself): where each value the kernel takes is read
// at every position along it, an axis the indices are broadcast along (`taken` 1 there), or a tuple's components
// (GatherND's and ScatterND's last axis, `tuples`); along an axis of one element or none a step moves nothing.
// Each value taken then has one range, checked once (derived_indices.cpp; import's walk of a model asks it too).
bool addend_step_allowed(const Shape& indices_shape, const Shape& taken, size_t axis, bool tuples);

// Files a spec names given in memory rather than on disk, by the name the spec gives them: an import's tables,
// read as the spec that names them is checked, before they are written.
using SpecFiles = std::map<std::string, std::string>;

// Parses and checks one spec document. `file` names it in diagnostics and banners; the files it names are read
// from `files` where given there (their path then ""), else from disk, relative to `file`'s folder.
// Problems are appended to `diagnostics`; only kernels without problems are returned.
std::vector<KernelSpec> parse_spec_text(const std::string& text, const std::string& file,
                                        std::vector<Diagnostic>& diagnostics, const SpecFiles& files = {});

// Reads `path` and parses it; an unreadable file is a diagnostic.
std::vector<KernelSpec> parse_spec_file(const std::string& path, std::vector<Diagnostic>& diagnostics);

}  // namespace kernelgen
