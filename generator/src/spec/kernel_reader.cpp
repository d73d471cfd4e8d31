#include "spec/kernel_reader.h"

#include <algorithm>
#include <map>

#include "common/c_names.h"
#include "common/hints.h"
#include "common/shape_math.h"

namespace kernelgen {

using nlohmann::json;

// A key as one JSON pointer reference token (RFC 6901: '~' is "~0", '/' is "~1").
std::string pointer_token(const std::string& key) {
    std::string out;
    for (char ch : key) {
        if (ch == '~') out += "~0";
        else if (ch == '/') out += "~1";
        else out += ch;
    }
    return out;
}

std::string json_type(const json& value) {
    if (value.is_number_integer()) return "integer";
    if (value.is_number_float()) return "number";
    return value.type_name();
}

std::optional<KernelSpec> KernelReader::read() {
    if (!object_.is_object()) {
        fail("", "expected a kernel object, got " + json_type(object_) + " (an object with \"name\", \"op\", ...)");
        return std::nullopt;
    }
    KernelSpec spec;
    spec.spec_file = file_;
    spec.pointer = base_;
    auto op = read_op();
    op_ = op;
    check_keys();
    read_name(spec);
    read_dtype(spec);
    read_index_dtype(spec);
    read_unroll(spec);
    read_prefetch(spec);
    read_index_check(spec);
    auto data = read_shape("data_shape");
    auto indices = read_shape("indices_shape");
    if (!op || !data || !indices) return std::nullopt;
    spec.op = *op;
    spec.data_shape = *data;
    spec.indices_shape = *indices;
    const size_t before_rules = problems_;
    apply_operator_rules(*this, spec);
    if (clean_since(before_rules) && !bounded_count(spec.output_shape)) {
        fail("", "output shape " + format_shape(spec.output_shape) + " has too many elements (at most 2^40)");
    }
    if (clean_since(before_rules) && is_scatter(spec.op) && !bounded_count(spec.updates_shape)) {
        fail("", "updates shape " + format_shape(spec.updates_shape) + " has too many elements (at most 2^40)");
    }
    // (An operator that takes no counts has had them refused as keys it does not take.)
    if (clean_since(before_rules) && info(spec.op).counts) read_counts(*this, spec);
    if (clean_since(before_rules)) read_tuple_constants(*this, spec);
    if (clean_since(before_rules)) read_indices_broadcast(*this, spec);
    if (clean_since(before_rules)) read_indices_add(*this, spec);
    if (clean_since(before_rules)) read_updates_broadcast(*this, spec);
    if (clean_since(before_rules)) read_constant_indices(*this, spec);
    if (clean_since(before_rules)) read_constant_tensors(*this, spec);
    if (!ok_) return std::nullopt;
    apply_run_options(spec, RunOptions{});
    return spec;
}

void KernelReader::fail(const std::string& key, const std::string& message) {
    diagnostics_.push_back({file_, base_ + (key.empty() ? "" : "/" + key), message});
    ok_ = false;
    ++problems_;
}

const json* KernelReader::find(const std::string& key) const {
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
}

// The keys the operator takes (operators.h); until "op" is known, those every operator takes.
std::vector<SpecKey> KernelReader::taken_keys() const { return op_ ? spec_keys(*op_) : common_keys(); }

// The value of `key`, or nothing: a problem when the operator requires the key.
const json* KernelReader::value_of(const std::string& key, const std::string& allowed) {
    const json* value = find(key);
    if (value) return value;
    for (const auto& entry : taken_keys()) {
        if (entry.name == key && entry.required) {
            fail(key, "required key " + in_quotes(key) + " is missing (" + allowed + ")");
        }
    }
    return nullptr;
}

std::optional<std::string> KernelReader::read_string(const std::string& key, const std::string& allowed) {
    const json* value = value_of(key, allowed);
    if (!value) return std::nullopt;
    if (!value->is_string()) {
        fail(key, "expected a string, got " + json_type(*value) + " (" + allowed + ")");
        return std::nullopt;
    }
    return value->get<std::string>();
}

std::optional<int64_t> KernelReader::read_integer(const std::string& key, const std::string& allowed) {
    const json* value = value_of(key, allowed);
    if (!value) return std::nullopt;
    if (!value->is_number_integer()) {
        fail(key, "expected an integer, got " + json_type(*value) + " " + value->dump() + " (" + allowed + ")");
        return std::nullopt;
    }
    // Above INT64_MAX: saturate; every rule's range check then refuses it, quoting the spec's own text.
    if (value->is_number_unsigned() && value->get<uint64_t>() > uint64_t{INT64_MAX}) return INT64_MAX;
    return value->get<int64_t>();
}

std::optional<Op> KernelReader::read_op() {
    std::vector<std::string> names;
    for (const auto& row : operators()) names.emplace_back(row.name);
    const std::string allowed = "one of " + join(names);
    auto text = read_string("op", allowed);
    if (!text) return std::nullopt;
    for (const auto& row : operators()) {
        if (*text == row.name) return row.id;
    }
    fail("op", "unknown operator " + in_quotes(*text) + " (" + allowed + ")" + did_you_mean(*text, names));
    return std::nullopt;
}

// Every key must be one the operator takes; when "op" is missing or wrong, one some operator takes.
void KernelReader::check_keys() {
    const std::optional<Op>& op = op_;
    const std::vector<std::string> every = every_spec_key();
    std::vector<std::string> allowed;
    for (const auto& key : taken_keys()) allowed.emplace_back(key.name);
    for (const auto& item : object_.items()) {
        const std::string& key = item.key();
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        const std::string token = pointer_token(key);
        if (std::find(every.begin(), every.end(), key) != every.end()) {
            if (op) fail(token, "key " + in_quotes(key) + " does not apply to " + std::string(name(*op)) + " (" +
                                    std::string(name(*op)) + " takes " + join(allowed) + ")");
        } else {
            const auto& candidates = op ? allowed : every;
            fail(token, "unknown key " + in_quotes(key) + " (allowed: " + join(candidates) + ")" +
                            did_you_mean(key, candidates));
        }
    }
}

void KernelReader::read_name(KernelSpec& spec) {
    auto text = read_string("name", kNameRules);
    if (!text) return;
    if (auto checked = check_name(*text); !checked) fail("name", checked.problem());
    else spec.name = *text;
}

void KernelReader::read_dtype(KernelSpec& spec) {
    const std::string allowed = "one of " + dtype_spellings();
    auto text = read_string("dtype", allowed);
    if (!text) return;
    if (auto type = parse_dtype(*text)) {
        spec.dtype = *type;
        dtype_known_ = true;
    } else {
        // ONNX's TensorProto names (FLOAT, DOUBLE, ...) differ from its type strings only in case, but
        // for these; then the usual short forms of other tools.
        static const std::map<std::string, std::string, std::less<>> aliases{
            {"fp32", "float32"}, {"f32", "float32"},     {"single", "float32"},   {"fp64", "float64"},
            {"f64", "float64"},  {"fp16", "float16"},    {"f16", "float16"},      {"half", "float16"},
            {"bf16", "bfloat16"}, {"i8", "int8"},        {"i16", "int16"},        {"i32", "int32"},
            {"int", "int32"},    {"i64", "int64"},       {"long", "int64"},       {"u8", "uint8"},
            {"u16", "uint16"},   {"u32", "uint32"},      {"u64", "uint64"},       {"boolean", "bool"},
            {"str", "string"},   {"c64", "complex64"},   {"c128", "complex128"}, {"int8_t", "int8"},
            {"int16_t", "int16"}, {"int32_t", "int32"},  {"int64_t", "int64"},    {"uint8_t", "uint8"},
            {"uint16_t", "uint16"}, {"uint32_t", "uint32"}, {"uint64_t", "uint64"}};
        fail("dtype", "unknown element type " + in_quotes(*text) + " (" + allowed + ")" +
                          did_you_mean_value(*text, dtype_spelling_list(), aliases));
    }
}

void KernelReader::read_index_dtype(KernelSpec& spec) {
    const std::string allowed = "int32 or int64; default int64";
    auto text = read_string("index_dtype", allowed);
    if (!text) return;
    if (auto type = parse_index_type(*text)) {
        spec.index_dtype = *type;
    } else {
        static const std::map<std::string, std::string, std::less<>> aliases{
            {"int", "int32"}, {"i32", "int32"}, {"int32_t", "int32"}, {"long", "int64"}, {"i64", "int64"},
            {"int64_t", "int64"}, {"uint32", "int32"}, {"uint64", "int64"}};
        fail("index_dtype", "unknown index type " + in_quotes(*text) + " (" + allowed + ")" +
                                did_you_mean_value(*text, {"int32", "int64"}, aliases));
    }
}

std::optional<KernelReader::WordOrCount> KernelReader::read_word_or_count(const std::string& key, const std::vector<std::string>& words,
                                              const std::map<std::string, std::string, std::less<>>& aliases,
                                              const std::string& count_name, uint64_t most, const std::string& allowed) {
    const json* value = find(key);
    if (!value) return std::nullopt;
    if (value->is_string()) {
        auto text = value->get<std::string>();
        if (std::find(words.begin(), words.end(), text) != words.end()) return WordOrCount{text, 0};
        fail(key, "unknown " + key + " setting " + in_quotes(text) + " (" + allowed + ")" +
                      did_you_mean_value(text, words, aliases));
        return std::nullopt;
    }
    auto count = read_integer(key, allowed);
    if (!count) return std::nullopt;
    if (*count < 1 || *count > static_cast<int64_t>(most)) {
        fail(key, count_name + " " + value->dump() + " is out of range (" + allowed + ")");
        return std::nullopt;
    }
    return WordOrCount{"", static_cast<unsigned>(*count)};
}

void KernelReader::read_unroll(KernelSpec& spec) {
    const std::string allowed = "\"auto\", \"full\", \"none\" or an integer factor from 1 to 64; default \"auto\"";
    auto setting = read_word_or_count("unroll", {"auto", "full", "none"}, {}, "unroll factor", kMaxUnrollFactor, allowed);
    if (!setting) return;
    // A word means what it means on the command line.
    spec.unroll_in_spec =
        setting->word.empty() ? Unroll{Unroll::Kind::Factor, setting->count} : *parse_unroll(setting->word);
}

void KernelReader::read_prefetch(KernelSpec& spec) {
    const std::string allowed = "\"auto\", \"none\" or a distance in index tuples from 1 to " +
                                std::to_string(kMaxPrefetchDistance) + "; default \"auto\"";
    auto setting = read_word_or_count("prefetch", {"auto", "none"}, {{"off", "none"}, {"false", "none"}},
                                      "prefetch distance", kMaxPrefetchDistance, allowed);
    if (!setting) return;
    spec.prefetch_in_spec =
        setting->word.empty() ? Prefetch{Prefetch::Kind::Distance, setting->count} : *parse_prefetch(setting->word);
}

void KernelReader::read_index_check(KernelSpec& spec) {
    const std::string allowed = "\"checked\" or \"none\"; default \"checked\"";
    auto text = read_string("index_check", allowed);
    if (!text) return;
    if (*text == "checked") spec.index_check = IndexCheck::Checked;
    else if (*text == "none") spec.index_check = IndexCheck::None;
    else fail("index_check", "unknown index_check setting " + in_quotes(*text) + " (" + allowed + ")" +
                                 did_you_mean_value(*text, {"checked", "none"}, {{"on", "checked"}, {"off", "none"}}));
}

std::optional<Shape> KernelReader::read_shape(const std::string& key) {
    const std::string allowed = "an array of integers >= 0";
    const json* value = value_of(key, allowed);
    if (!value) return std::nullopt;
    if (!value->is_array()) {
        fail(key, "expected an array, got " + json_type(*value) + " (" + allowed + ")");
        return std::nullopt;
    }
    if (value->size() > kMaxRank) {
        fail(key, "rank " + std::to_string(value->size()) + " is too large (at most " + std::to_string(kMaxRank) + " dimensions)");
        return std::nullopt;
    }
    Shape shape;
    bool good = true;
    for (size_t i = 0; i < value->size(); ++i) {
        const json& dim = (*value)[i];
        const std::string where = key + "/" + std::to_string(i);
        if (!dim.is_number_integer()) {
            fail(where, "expected an integer, got " + json_type(dim) + " " + dim.dump() + " (" + allowed + ")");
            good = false;
        } else if (dim.is_number_unsigned() ? dim.get<uint64_t>() > kMaxElements : dim.get<int64_t>() < 0) {
            fail(where, "dimension " + dim.dump() + (dim.is_number_unsigned() ? " is too large (at most 2^40)" : " is negative (" + allowed + ")"));
            good = false;
        } else {
            shape.push_back(dim.get<uint64_t>());
        }
    }
    if (!good) return std::nullopt;
    // Check the product without overflow: a zero dimension makes any size fine.
    if (std::find(shape.begin(), shape.end(), 0) == shape.end()) {
        uint64_t count = 1;
        for (uint64_t dim : shape) {
            if (count > kMaxElements / dim) {
                fail(key, "shape " + format_shape(shape) + " has too many elements (at most 2^40)");
                return std::nullopt;
            }
            count *= dim;
        }
    }
    return shape;
}

bool KernelReader::no_prefetch_with(const KernelSpec& spec, const std::string& what, const std::string& why) {
    if (!spec.prefetch_in_spec || spec.prefetch_in_spec->kind == Prefetch::Kind::None) return true;
    fail("prefetch", "\"prefetch\" does not combine with " + what + ": " + why +
                         " (remove \"prefetch\", or set it to \"none\")");
    return false;
}

std::optional<KernelReader::Located> KernelReader::nested_values(const json& value, const std::string& key,
                                                                const Shape& shape, bool (*leaf)(const json&),
                                                                const std::string& layout) {
    const uint64_t count = element_count(shape);
    Located values;
    const bool flat = value.is_array() && value.size() == count &&
                      std::all_of(value.begin(), value.end(), leaf);
    if (flat) {
        for (size_t i = 0; i < value.size(); ++i) values.emplace_back(&value[i], key + "/" + std::to_string(i));
        return values;
    }
    // Breadth-first through the nesting: level d holds the arrays of dimension d.
    Located level{{&value, key}};
    for (uint64_t dim : shape) {
        Located next;
        for (const auto& [array, where] : level) {
            if (!array->is_array() || array->size() != dim) {
                fail(where, "expected an array of " + std::to_string(dim) + ", got " +
                                (array->is_array() ? "an array of " + std::to_string(array->size()) : json_type(*array)) +
                                " (" + layout + ")");
                return std::nullopt;
            }
            for (size_t i = 0; i < array->size(); ++i) next.emplace_back(&(*array)[i], where + "/" + std::to_string(i));
        }
        level = std::move(next);
    }
    return level;
}

}  // namespace kernelgen
