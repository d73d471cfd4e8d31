// The reader of one kernel object of a spec file: every rule of a spec and its message. KernelReader is the reading
// toolkit (kernel_reader.cpp: JSON access, the policy on keys, the settings, shapes; values.cpp: values inline and in
// .npy files) and read() the order of the rules, each in its own file: each operator's rules and constant indices
// (onnx_rules.cpp), run-time counts (counts.cpp), constant tensors (constant_data.cpp). The result is a KernelSpec
// with defaults filled in and the axis made non-negative, or nothing (with every problem found appended to the
// diagnostics).
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
public:
    using json = nlohmann::json;

    KernelReader(const json& object, std::string file, std::string pointer, std::vector<Diagnostic>& diagnostics,
                 const SpecFiles& files)
        : object_(object), file_(std::move(file)), base_(std::move(pointer)), diagnostics_(diagnostics), files_(files) {}

    std::optional<KernelSpec> read();

    // --- the toolkit the rules read with -------------------------------------------------------------------

    // A problem at `key` (a path below the kernel object, "" for the object itself).
    void fail(const std::string& key, const std::string& message);
    // The problems found so far; true while none was found since `mark`: independent keys are all checked, and a
    // rule is skipped only when something it builds on is wrong.
    size_t problems() const { return problems_; }
    bool clean_since(size_t mark) const { return problems_ == mark; }
    // Whether "dtype" was read (a rule on element types applies only then).
    bool dtype_known() const { return dtype_known_; }

    const json* find(const std::string& key) const;
    // The value of `key`, or nothing: a problem when the operator requires the key.
    const json* value_of(const std::string& key, const std::string& allowed);
    std::optional<std::string> read_string(const std::string& key, const std::string& allowed);
    std::optional<int64_t> read_integer(const std::string& key, const std::string& allowed);
    std::optional<Shape> read_shape(const std::string& key);

    // Constant values in the spec ("indices", "data"), as `shape` nests them: arrays nested as the shape (one
    // value for rank 0), or one flat array of every value in row-major order. Each value with its key's path
    // ("data/2/5"), row-major; nothing when the nesting is wrong (reported, with `layout` saying what is allowed).
    // `leaf` tells a value from a level of nesting (a complex value is itself an array) where the array could be
    // flat; the caller checks each value.
    using Located = std::vector<std::pair<const json*, std::string>>;
    std::optional<Located> nested_values(const json& value, const std::string& key, const Shape& shape,
                                         bool (*leaf)(const json&), const std::string& layout);

    // Values inline at `key`, nested as `shape` (named `shape_name` in messages) or flat: every value converted to
    // `type`'s bytes; nothing when any is refused (values.cpp). `range`, for integers: narrower than the type's (a
    // 4-bit value read one a byte), named so in messages.
    struct IntegerRange {
        int64_t low, high;
        std::string name;
    };
    std::optional<std::vector<uint8_t>> read_inline_values(const json& value, const std::string& key, DType type,
                                                           const Shape& shape, const std::string& shape_name,
                                                           const IntegerRange* range = nullptr);

    // A NumPy .npy file named at `key`, relative to the spec's folder (or given in memory), of `type` elements
    // (`type_rule` says why, "dtype is float32"), at most `most_elements` of them: its elements little-endian, its
    // shape (the caller checks it), the path as opened ("" from memory) (values.cpp).
    struct NpyValues {
        std::vector<uint8_t> bytes;
        std::string path;
        Shape shape;
    };
    std::optional<NpyValues> read_npy_file(const std::string& key, const std::string& name, DType type,
                                           const std::string& type_rule, uint64_t most_elements);

    // A file's name at `key`: a non-empty string without control characters, else reported (values.cpp).
    std::optional<std::string> file_name(const std::string& key, const json& value);

    // Refuses a "prefetch" beside `what` (a run-time count, a table read row by row), for the reason given; false
    // when it refused.
    bool no_prefetch_with(const KernelSpec& spec, const std::string& what, const std::string& why);

    // Constant data beyond the one kernel's limit (max_constant_data_bytes) is refused at `key`; `what` names it.
    bool within_table_limit(const std::string& key, uint64_t bytes, uint64_t width, const std::string& what);

private:
    // The keys the operator takes (operators.h); until "op" is known, those every operator takes.
    std::vector<SpecKey> taken_keys() const;
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
    // The bytes of the .npy file `name` (at `key`), at most `most_bytes` of them, from memory or disk (`path` set
    // to the path opened); nothing when it cannot be read (reported).
    std::optional<std::string> npy_file_bytes(const std::string& key, const std::string& name, uint64_t most_bytes,
                                              uint64_t most_elements, DType type, std::string& path);

    const json& object_;
    std::string file_;
    std::string base_;
    std::vector<Diagnostic>& diagnostics_;
    const SpecFiles& files_;
    bool ok_ = true;
    bool dtype_known_ = false;
    std::optional<Op> op_;  // once read: which keys it requires
    size_t problems_ = 0;
};

// --- the rules, in the order read() applies them once the shapes are read --------------------------------------

// Each operator's rules (onnx_rules.cpp): its attributes, ranks and shapes against ONNX's rules, and the shapes it
// derives.
void apply_operator_rules(KernelReader& reader, KernelSpec& spec);
// Counts passed at run time, of index rows, data rows or data's valid rows (counts.cpp).
void read_counts(KernelReader& reader, KernelSpec& spec);
// "tuple_constants": components of each index tuple that are constants, before the broadcast (derived_indices.cpp).
void read_tuple_constants(KernelReader& reader, KernelSpec& spec);
// "indices_broadcast_from": indices smaller than indices_shape, broadcast to it (derived_indices.cpp).
void read_indices_broadcast(KernelReader& reader, KernelSpec& spec);
// "updates_broadcast_from": a scatter's updates smaller than updates_shape, broadcast to it (derived_indices.cpp).
void read_updates_broadcast(KernelReader& reader, KernelSpec& spec);
// "indices_add": a constant added to each index value, after the broadcast (derived_indices.cpp).
void read_indices_add(KernelReader& reader, KernelSpec& spec);
// "indices": constant indices, each checked against its axis (onnx_rules.cpp).
void read_constant_indices(KernelReader& reader, KernelSpec& spec);
// "data", "data_file", a scatter's "updates" and "updates_file", and what else a constant table takes: constant
// tensors the kernel holds (constant_data.cpp).
void read_constant_tensors(KernelReader& reader, KernelSpec& spec);

// The data axis the value at flat position `at` of indices selects along (onnx_rules.cpp).
size_t selected_axis(const KernelSpec& spec, uint64_t at);

// The values an index may take, what it indexes and the allowed range, for messages.
struct IndexRange {
    int64_t low, high;
    std::string what, allowed;
};
// The values the index at flat position `at` of indices may take: [-s, s-1] for the size s of its data axis (within
// the index type); a TensorScatter's write index 0..max - sequence length (linear) or any value from 0 (circular)
// (onnx_rules.cpp).
IndexRange index_range(const KernelSpec& spec, uint64_t at);

}  // namespace kernelgen
