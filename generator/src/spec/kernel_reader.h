// The reader of one kernel object of a spec file: every rule of a spec and its message. Its JSON access, the
// policy on keys, the settings (name, types, unroll, prefetch, index checks) and the shapes are in
// kernel_reader.cpp; ONNX's rules for each operator, run-time counts and constant indices in onnx_rules.cpp.
// The result is a KernelSpec with defaults filled in and the axis made non-negative, or nothing (with every
// problem found appended to the diagnostics).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/spec.h"

namespace kernelgen {

// A key as one JSON pointer reference token (RFC 6901: '~' is "~0", '/' is "~1").
std::string pointer_token(const std::string& key);

// "integer", "number", "string", ...: how a message names a JSON value's type.
std::string json_type(const nlohmann::json& value);

// Reads one kernel object, collecting every problem before giving up on it.
class KernelReader {
    using json = nlohmann::json;

public:
    KernelReader(const json& object, std::string file, std::string pointer, std::vector<Diagnostic>& diagnostics)
        : object_(object), file_(std::move(file)), base_(std::move(pointer)), diagnostics_(diagnostics) {}

    std::optional<KernelSpec> read();

private:
    // --- JSON access, the key policy, the settings and the shapes (kernel_reader.cpp) ----------------------

    void fail(const std::string& key, const std::string& message);

    // True while no problem was found since `mark` (a value of problems_): independent keys are all checked,
    // and a rule is skipped only when something it builds on is wrong.
    bool clean_since(size_t mark) const;

    const json* find(const std::string& key) const;

    // The keys the operator takes (operators.h); until "op" is known, those every operator takes.
    std::vector<SpecKey> taken_keys() const;

    // The value of `key`, or nothing: a problem when the operator requires the key.
    const json* value_of(const std::string& key, const std::string& allowed);

    std::optional<std::string> read_string(const std::string& key, const std::string& allowed);

    std::optional<int64_t> read_integer(const std::string& key, const std::string& allowed);

    std::optional<Op> read_op();

    // Every key must be one the operator takes; when "op" is missing or wrong, one some operator takes.
    void check_keys();

    void read_name(KernelSpec& spec);

    void read_dtype(KernelSpec& spec);

    void read_index_dtype(KernelSpec& spec);

    // A setting spelled as one of `words` or as a count from 1 to `most` (the unroll factor, the prefetch
    // distance, named `count_name` in messages): the word, or the count. Nothing when the key is absent or
    // its value is refused (then reported).
    struct WordOrCount {
        std::string word;  // empty for a count
        unsigned count = 0;
    };
    std::optional<WordOrCount> read_word_or_count(const std::string& key, const std::vector<std::string>& words,
                                                  const std::map<std::string, std::string, std::less<>>& aliases,
                                                  const std::string& count_name, uint64_t most, const std::string& allowed);

    void read_unroll(KernelSpec& spec);

    void read_prefetch(KernelSpec& spec);

    void read_index_check(KernelSpec& spec);

    std::optional<Shape> read_shape(const std::string& key);

    // --- ONNX's rules for the five operators, run-time counts, constant indices (onnx_rules.cpp) ---------

    // "axis": default 0, negative counts from the back, range [-r, r-1].
    void read_axis(KernelSpec& spec);

    void require_data_rank(const KernelSpec& spec);

    void require_indices_rank(const KernelSpec& spec);

    void resolve_gather(KernelSpec& spec);

    void resolve_gather_elements(KernelSpec& spec);

    // The rules GatherElements and ScatterElements share: the axis, equal ranks, and indices dimensions at most
    // data's off the axis (ONNX Runtime's rule). True when they hold.
    bool read_elements_rules(KernelSpec& spec);

    // "updates_shape" of a scatter: optional, and when given it must be the shape the operator derives.
    void read_updates_shape(KernelSpec& spec, const Shape& derived, const std::string& rule);

    void resolve_scatter_elements(KernelSpec& spec);

    // The leading batch dimensions and the index depth k shared by GatherND's and ScatterND's rules.
    std::optional<uint64_t> read_index_depth(const KernelSpec& spec, int64_t batch_dims);

    void resolve_gather_nd(KernelSpec& spec);

    void read_reduction(KernelSpec& spec);

    void resolve_scatter_nd(KernelSpec& spec);

    void resolve_tensor_scatter(KernelSpec& spec);
    void read_write_mode(KernelSpec& spec);

    // The values an index at flat position `at` of indices may take, what it indexes and the allowed range, for
    // messages.
    struct IndexRange {
        int64_t low, high;
        std::string what, allowed;
    };
    static IndexRange index_range(const KernelSpec& spec, uint64_t at);

    // "count": "runtime": a leading dimension is a count passed at run time, up to its bound: that of indices
    // (up to indices_shape[0]), or with "count_leads": "data" that of data (up to data_shape[0]). The count must
    // lead every tensor it sizes, so that the first `count` rows of each are one dense prefix.
    void read_count(KernelSpec& spec);

    // A count's key ("count", "data_count"), whose one value is "runtime": true when it says so; otherwise reported.
    bool read_runtime_setting(const std::string& key, const std::string& allowed);

    // "count_leads": "indices" (the default) or "data", which only Gather takes; nothing when refused (reported).
    std::optional<CountLeads> read_count_leads(const KernelSpec& spec);

    // A count of index rows: indices of rank 1 or more (2 for the tuples of GatherND and ScatterND), whose
    // leading dimension leads the output (or updates) too. True when it applies; otherwise reported.
    bool index_rows_countable(const KernelSpec& spec);

    // A count of data rows (Gather): along axis 1 or later, data's leading dimension leads the output too
    // (data_shape[:axis] + indices_shape + data_shape[axis + 1:]). True when it applies; otherwise reported.
    bool data_rows_countable(const KernelSpec& spec);

    // "data_count": "runtime": data's leading dimension holds a count of valid rows passed at run time, up to
    // data_shape[0], which the indices along data's axis 0 select among (Gather along axis 0, GatherND with
    // batch_dims 0, GatherElements along axis 0); beside "count" or alone.
    void read_data_count(KernelSpec& spec);

    // Every data axis the indices select along has elements (a count leaves nothing to count otherwise).
    // True when it holds; otherwise reported.
    bool selected_axes_have_elements(const KernelSpec& spec);
    // Whether a run-time count's bound, `shape_key`[0], fits the uint32_t the caller passes (reported when not);
    // `what` names the count ("run-time count", "run-time data count").
    bool bound_fits_uint32(const std::string& shape_key, const std::string& what, uint64_t bound);
    // Refuses a "prefetch" beside a run-time count, for the reason given; false when it refused.
    bool no_prefetch_with(const KernelSpec& spec, const std::string& what, const std::string& why);

    // The data axis the value at flat position `at` of indices selects along.
    static size_t selected_axis(const KernelSpec& spec, uint64_t at);

    // "indices": the index values themselves, when the model fixes them (an initializer): arrays nested as
    // indices_shape (an integer for rank 0), or one flat array of every value in row-major order. Each value
    // is checked against its axis here, so the kernel needs no check at run time.
    void read_constant_indices(KernelSpec& spec);

    // Constant values in the spec ("indices", "data"), as `shape` nests them: arrays nested as the shape (one
    // value for rank 0), or one flat array of every value in row-major order. Each value with its key's path
    // ("data/2/5"), row-major; nothing when the nesting is wrong (reported, with `layout` saying what is allowed).
    // `leaf` tells a value from a level of nesting (a complex value is itself an array) where the array could be
    // flat; the caller checks each value.
    using Located = std::vector<std::pair<const json*, std::string>>;
    std::optional<Located> nested_values(const json& value, const std::string& key, const Shape& shape,
                                         bool (*leaf)(const json&), const std::string& layout);

    // --- constant data (constant_data.cpp) ------------------------------------------------------------------

    // "data" (the values inline) or "data_file" (a NumPy .npy file, relative to the spec's folder): data is
    // constant, held by the kernel, not beside a run-time data count; a scatter's "updates" or "updates_file"
    // likewise (operators.h says which operator takes which key).
    void read_constant_data(KernelSpec& spec);
    // One constant tensor, "data" or "updates", of `shape` (named `shape_name` in messages): nothing when the spec
    // gives none, or when it is refused (reported).
    std::optional<KernelSpec::ConstantData> read_constant_tensor(KernelSpec& spec, const std::string& tensor,
                                                                const Shape& shape, const std::string& shape_name);

    // Constant data beyond the one kernel's limit (max_constant_data_bytes) is refused at `key`; `what` names it.
    bool within_table_limit(const std::string& key, uint64_t bytes, uint64_t width, const std::string& what);

    // Values inline at `key` ("data", "quantization/scales"), nested as `shape` (named `shape_name` in messages)
    // or flat: every value converted to `type`'s bytes; nothing when any is refused.
    // `range`, for integers: narrower than the type's (a 4-bit quantized type's values, read one a byte), named so
    // in messages.
    struct IntegerRange {
        int64_t low, high;
        std::string name;
    };
    std::optional<std::vector<uint8_t>> read_inline_values(const json& value, const std::string& key, DType type,
                                                           const Shape& shape, const std::string& shape_name,
                                                           const IntegerRange* range = nullptr);

    // A NumPy .npy file named at `key`, relative to the spec's folder, of `type` elements (`type_rule` says why,
    // "dtype is float32"), at most `most_elements` of them: its elements little-endian, its shape (the caller
    // checks it), the path as opened.
    struct NpyValues {
        std::vector<uint8_t> bytes;
        std::string path;
        Shape shape;
    };
    std::optional<NpyValues> read_npy_file(const std::string& key, const std::string& name, DType type,
                                           const std::string& type_rule, uint64_t most_elements);

    // A file's name at `key`: a non-empty string, else reported.
    std::optional<std::string> file_name(const std::string& key, const json& value);

    // --- quantized constant data (quantization.cpp) ---------------------------------------------------------

    // "quantization" beside "data" or "data_file": the quantized values, with their scales and zero points.
    // `file`: the "data_file" name, when the values are in a file.
    void read_quantized_data(KernelSpec& spec, const json& object, const json* inline_values,
                             const std::optional<std::string>& file);

    const json& object_;
    std::string file_;
    std::string base_;
    std::vector<Diagnostic>& diagnostics_;
    bool ok_ = true;
    bool dtype_known_ = false;
    std::optional<Op> op_;  // once read: which keys it requires
    size_t problems_ = 0;
};

}  // namespace kernelgen
