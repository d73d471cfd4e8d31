#include "kernelgen/spec.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/c_library_names.h"
#include "codegen/indexed_copy.h"
#include "codegen/schedule.h"

namespace kernelgen {

using nlohmann::json;

std::string terminal_safe(std::string_view text) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto ch = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (ch < 0x20 || ch == 0x7F) {
            out += "\\x";
            out += digits[ch >> 4];
            out += digits[ch & 15];
        } else if (ch == 0xC2 && next >= 0x80 && next <= 0x9F) {  // U+0080..U+009F, the C1 controls
            out += "\\u00";
            out += digits[next >> 4];
            out += digits[next & 15];
            ++i;
        } else {
            out += static_cast<char>(ch);
        }
    }
    return out;
}

std::string Diagnostic::str() const {
    // One problem per line: control characters from the user's text are shown escaped.
    return terminal_safe(file + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + message);
}

std::string in_quotes(std::string_view text) {
    return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

uint64_t element_count(const Shape& shape) {
    uint64_t count = 1;
    for (uint64_t dim : shape) count *= dim;
    return count;
}

std::string format_shape(const Shape& shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

std::string macro_case(std::string name) {
    for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return name;
}

std::vector<std::string> header_identifiers(const KernelSpec& spec) {
    const std::string macro = macro_case(spec.name);
    std::vector<std::string> out{spec.name, macro + "_H", macro + "_DATA_SIZE", macro + "_INDICES_SIZE"};
    if (is_scatter(spec.op)) out.push_back(macro + "_UPDATES_SIZE");
    out.push_back(macro + "_OUTPUT_SIZE");
    if (spec.runtime_count) out.push_back(macro + "_MAX_COUNT");
    out.insert(out.end(), {macro + "_OK", macro + "_ERROR_INDEX_OUT_OF_RANGE"});
    if (spec.runtime_count) out.push_back(macro + "_ERROR_COUNT_OUT_OF_RANGE");
    return out;
}

namespace {

constexpr const char* kNameRules = "a C identifier of at most 63 characters, not a C or C++ keyword";

// C99/C11 keywords, and C++ keywords too: the header is included from C++.
const std::set<std::string, std::less<>>& reserved_words() {
    static const std::set<std::string, std::less<>> words{
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
        "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
        "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
        "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic",
        "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas", "alignof", "and",
        "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char16_t", "char32_t", "char8_t", "class",
        "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return",
        "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
        "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
        "private", "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast",
        "template", "this", "thread_local", "throw", "true", "try", "typeid", "typename", "using",
        "virtual", "wchar_t", "xor", "xor_eq"};
    return words;
}

// User text in a message, quoted and escaped as a JSON string, so a message stays on one line.
// Why a name would clash with the standard headers a kernel includes (<stdint.h>, <stdbool.h>, <string.h>)
// or with names C reserves for them, if it would.
std::optional<std::string> standard_name_clash(const std::string& n) {
    auto starts = [&](std::string_view prefix) { return n.rfind(prefix, 0) == 0; };
    auto ends = [&](std::string_view suffix) {
        return n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (n == "main") return "is the program's entry point";
    if (macro_case(n).rfind("KERNELGEN", 0) == 0) {
        return "begins with \"kernelgen\", which kernelgen keeps for the names it shares between kernels";
    }
    if (is_c_library_name(n)) return "is a name of the C standard library";
    if (ends("_t")) return "ends in \"_t\", which <stdint.h> and POSIX reserve for type names";
    if ((starts("mem") || starts("str")) && n.size() > 3 && std::islower(static_cast<unsigned char>(n[3]))) {
        return "begins with \"" + n.substr(0, 3) + "\" and a lowercase letter, which C reserves for <string.h>";
    }
    if ((starts("INT") || starts("UINT")) && (ends("_MAX") || ends("_MIN") || ends("_C") || ends("_WIDTH"))) {
        return "has the form of a <stdint.h> macro name (INT.../UINT... ending in _MAX, _MIN, _C or _WIDTH)";
    }
    static const std::set<std::string, std::less<>> macros{"NULL", "SIZE_MAX", "SIZE_WIDTH", "PTRDIFF_MIN", "PTRDIFF_MAX",
                                                           "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN",
                                                           "WCHAR_MAX", "WINT_MIN", "WINT_MAX"};
    if (macros.count(n)) return "is a macro of the standard headers";
    return std::nullopt;
}

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

// Levenshtein distance, for "did you mean" hints on misspelt keys and values.
size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t above = row[j];
            size_t cost = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                  std::tolower(static_cast<unsigned char>(b[j - 1]))
                              ? 0
                              : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates, size_t most_edits) {
    std::string best;
    size_t best_distance = most_edits + 1;  // suggest only close matches
    for (const auto& candidate : candidates) {
        size_t distance = edit_distance(given, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best.empty() ? "" : "; did you mean " + in_quotes(best) + "?";
}

namespace {

// A hint for a misspelt value of a closed set, where edit distance would mislead ("int61" is not "int16"):
// the value differing only in case, or the value another tool's spelling means ("fp16", ONNX's "FLOAT").
std::string did_you_mean_value(std::string_view given, const std::vector<std::string>& values,
                               const std::map<std::string, std::string, std::less<>>& aliases) {
    std::string lower(given);
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const auto& value : values) {
        if (value == lower) return "; did you mean " + in_quotes(value) + "?";
    }
    auto alias = aliases.find(lower);
    return alias == aliases.end() ? "" : "; did you mean " + in_quotes(alias->second) + "?";
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

// The element count of a shape, or nothing when it exceeds kMaxElements (computed without overflow).
std::optional<uint64_t> bounded_count(const Shape& shape) {
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
    uint64_t count = 1;
    for (uint64_t dim : shape) {
        if (dim > kMaxElements || count > kMaxElements / dim) return std::nullopt;
        count *= dim;
    }
    return count;
}

std::string json_type(const json& value) {
    if (value.is_number_integer()) return "integer";
    if (value.is_number_float()) return "number";
    return value.type_name();
}

// Reads one kernel object, collecting every problem before giving up on it.
class KernelReader {
public:
    KernelReader(const json& object, std::string file, std::string pointer, std::vector<Diagnostic>& diagnostics)
        : object_(object), file_(std::move(file)), base_(std::move(pointer)), diagnostics_(diagnostics) {}

    std::optional<KernelSpec> read() {
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
        switch (spec.op) {
            case Op::Gather: resolve_gather(spec); break;
            case Op::GatherElements: resolve_gather_elements(spec); break;
            case Op::GatherND: resolve_gather_nd(spec); break;
            case Op::ScatterND: resolve_scatter_nd(spec); break;
            case Op::ScatterElements: resolve_scatter_elements(spec); break;
        }
        if (clean_since(before_rules) && !bounded_count(spec.output_shape)) {
            fail("", "output shape " + format_shape(spec.output_shape) + " has too many elements (at most 2^40)");
        }
        if (clean_since(before_rules) && is_scatter(spec.op) && !bounded_count(spec.updates_shape)) {
            fail("", "updates shape " + format_shape(spec.updates_shape) + " has too many elements (at most 2^40)");
        }
        if (clean_since(before_rules)) read_count(spec);
        if (clean_since(before_rules)) read_constant_indices(spec);
        if (!ok_) return std::nullopt;
        apply_run_options(spec, RunOptions{});
        return spec;
    }

private:
    void fail(const std::string& key, const std::string& message) {
        diagnostics_.push_back({file_, base_ + (key.empty() ? "" : "/" + key), message});
        ok_ = false;
        ++problems_;
    }

    // True while no problem was found since `mark` (a value of problems_): independent keys are all checked,
    // and a rule is skipped only when something it builds on is wrong.
    bool clean_since(size_t mark) const { return problems_ == mark; }

    const json* find(const std::string& key) const {
        auto it = object_.find(key);
        return it == object_.end() ? nullptr : &*it;
    }

    // The keys the operator takes (operators.h); until "op" is known, those every operator takes.
    std::vector<SpecKey> taken_keys() const { return op_ ? spec_keys(*op_) : common_keys(); }

    // The value of `key`, or nothing: a problem when the operator requires the key.
    const json* value_of(const std::string& key, const std::string& allowed) {
        const json* value = find(key);
        if (value) return value;
        for (const auto& entry : taken_keys()) {
            if (entry.name == key && entry.required) {
                fail(key, "required key " + in_quotes(key) + " is missing (" + allowed + ")");
            }
        }
        return nullptr;
    }

    std::optional<std::string> read_string(const std::string& key, const std::string& allowed) {
        const json* value = value_of(key, allowed);
        if (!value) return std::nullopt;
        if (!value->is_string()) {
            fail(key, "expected a string, got " + json_type(*value) + " (" + allowed + ")");
            return std::nullopt;
        }
        return value->get<std::string>();
    }

    std::optional<int64_t> read_integer(const std::string& key, const std::string& allowed) {
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

    std::optional<Op> read_op() {
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
    void check_keys() {
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

    void read_name(KernelSpec& spec) {
        auto text = read_string("name", kNameRules);
        if (!text) return;
        if (auto problem = name_problem(*text)) fail("name", *problem);
        else spec.name = *text;
    }

    void read_dtype(KernelSpec& spec) {
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

    void read_index_dtype(KernelSpec& spec) {
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

    // A setting spelled as one of `words` or as a count from 1 to `most` (the unroll factor, the prefetch
    // distance, named `count_name` in messages): the word, or the count. Nothing when the key is absent or
    // its value is refused (then reported).
    struct WordOrCount {
        std::string word;  // empty for a count
        unsigned count = 0;
    };
    std::optional<WordOrCount> read_word_or_count(const std::string& key, const std::vector<std::string>& words,
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

    void read_unroll(KernelSpec& spec) {
        const std::string allowed = "\"auto\", \"full\", \"none\" or an integer factor from 1 to 64; default \"auto\"";
        auto setting = read_word_or_count("unroll", {"auto", "full", "none"}, {}, "unroll factor", kMaxUnrollFactor, allowed);
        if (!setting) return;
        // A word means what it means on the command line.
        spec.unroll_in_spec =
            setting->word.empty() ? Unroll{Unroll::Kind::Factor, setting->count} : *parse_unroll(setting->word);
    }

    void read_prefetch(KernelSpec& spec) {
        const std::string allowed = "\"auto\", \"none\" or a distance in index tuples from 1 to " +
                                    std::to_string(kMaxPrefetchDistance) + "; default \"auto\"";
        auto setting = read_word_or_count("prefetch", {"auto", "none"}, {{"off", "none"}, {"false", "none"}},
                                          "prefetch distance", kMaxPrefetchDistance, allowed);
        if (!setting) return;
        spec.prefetch_in_spec =
            setting->word.empty() ? Prefetch{Prefetch::Kind::Distance, setting->count} : *parse_prefetch(setting->word);
    }

    void read_index_check(KernelSpec& spec) {
        const std::string allowed = "\"checked\" or \"none\"; default \"checked\"";
        auto text = read_string("index_check", allowed);
        if (!text) return;
        if (*text == "checked") spec.index_check = IndexCheck::Checked;
        else if (*text == "none") spec.index_check = IndexCheck::None;
        else fail("index_check", "unknown index_check setting " + in_quotes(*text) + " (" + allowed + ")" +
                                     did_you_mean_value(*text, {"checked", "none"}, {{"on", "checked"}, {"off", "none"}}));
    }

    std::optional<Shape> read_shape(const std::string& key) {
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

    // "axis": default 0, negative counts from the back, range [-r, r-1].
    void read_axis(KernelSpec& spec) {
        const auto rank = static_cast<int64_t>(spec.data_shape.size());
        const std::string allowed = "allowed " + std::to_string(-rank) + ".." + std::to_string(rank - 1);
        auto axis = read_integer("axis", allowed);
        if (!axis) return;
        if (*axis < -rank || *axis >= rank) {
            fail("axis", "axis " + find("axis")->dump() + " is out of range for data of rank " + std::to_string(rank) + " (" + allowed + ")");
            return;
        }
        spec.axis = *axis < 0 ? *axis + rank : *axis;
    }

    void require_data_rank(const KernelSpec& spec) {
        if (spec.data_shape.empty()) fail("data_shape", "data must have rank >= 1 (a non-empty array of dimensions)");
    }

    void require_indices_rank(const KernelSpec& spec) {
        if (spec.indices_shape.empty()) {
            fail("indices_shape", std::string(name(spec.op)) + " needs indices of rank >= 1 (a non-empty array of dimensions)");
        }
    }

    void resolve_gather(KernelSpec& spec) {
        const size_t mark = problems_;
        require_data_rank(spec);
        if (!clean_since(mark)) return;
        read_axis(spec);
        if (!clean_since(mark)) return;
        const auto axis = static_cast<size_t>(spec.axis);
        spec.output_shape.assign(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis));
        spec.output_shape.insert(spec.output_shape.end(), spec.indices_shape.begin(), spec.indices_shape.end());
        spec.output_shape.insert(spec.output_shape.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, spec.data_shape.end());
    }

    void resolve_gather_elements(KernelSpec& spec) {
        if (!read_elements_rules(spec)) return;
        spec.output_shape = spec.indices_shape;
    }

    // The rules GatherElements and ScatterElements share: the axis, equal ranks, and indices dimensions at most
    // data's off the axis (ONNX Runtime's rule). True when they hold.
    bool read_elements_rules(KernelSpec& spec) {
        const size_t mark = problems_;
        require_data_rank(spec);
        if (!clean_since(mark)) return false;
        read_axis(spec);
        if (!clean_since(mark)) return false;
        if (spec.indices_shape.size() != spec.data_shape.size()) {
            fail("indices_shape", "indices have rank " + std::to_string(spec.indices_shape.size()) + " but data " +
                                      format_shape(spec.data_shape) + " has rank " + std::to_string(spec.data_shape.size()) +
                                      " (" + std::string(name(spec.op)) + " needs equal ranks)");
            return false;
        }
        for (size_t i = 0; i < spec.data_shape.size(); ++i) {
            if (static_cast<int64_t>(i) != spec.axis && spec.indices_shape[i] > spec.data_shape[i]) {
                fail("indices_shape/" + std::to_string(i),
                     "dimension " + std::to_string(spec.indices_shape[i]) + " exceeds data dimension " +
                         std::to_string(spec.data_shape[i]) + " (off the axis, allowed 0.." + std::to_string(spec.data_shape[i]) + ")");
            }
        }
        return clean_since(mark);
    }

    // "updates_shape" of a scatter: optional, and when given it must be the shape the operator derives.
    void read_updates_shape(KernelSpec& spec, const Shape& derived, const std::string& rule) {
        auto given = read_shape("updates_shape");
        if (given && *given != derived) {
            fail("updates_shape", "updates shape " + format_shape(*given) + " does not match " + format_shape(derived) + " (" + rule + ")");
            return;
        }
        spec.updates_shape = derived;
        spec.output_shape = spec.data_shape;
    }

    void resolve_scatter_elements(KernelSpec& spec) {
        read_reduction(spec);
        const size_t mark = problems_;
        if (!read_elements_rules(spec)) {
            read_shape("updates_shape");  // its own problems are still reported
            return;
        }
        if (clean_since(mark)) read_updates_shape(spec, spec.indices_shape, "updates have the shape of indices");
    }

    // The leading batch dimensions and the index depth k shared by GatherND's and ScatterND's rules.
    std::optional<uint64_t> read_index_depth(const KernelSpec& spec, int64_t batch_dims) {
        const uint64_t k = spec.indices_shape.back();
        const uint64_t most = spec.data_shape.size() - static_cast<uint64_t>(batch_dims);
        if (k < 1 || k > most) {
            const std::string what = batch_dims ? "data rank - batch_dims = " + std::to_string(most)
                                                : "data rank " + std::to_string(most);
            fail("indices_shape/" + std::to_string(spec.indices_shape.size() - 1),
                 "index tuple length " + std::to_string(k) + " is out of range (indices_shape[-1] must be 1.." +
                     std::to_string(most) + ", the " + what + ")");
            return std::nullopt;
        }
        return k;
    }

    void resolve_gather_nd(KernelSpec& spec) {
        const size_t mark = problems_;
        require_data_rank(spec);
        require_indices_rank(spec);
        if (!clean_since(mark)) return;
        const auto r = static_cast<int64_t>(spec.data_shape.size());
        const auto q = static_cast<int64_t>(spec.indices_shape.size());
        const std::string allowed = "allowed 0.." + std::to_string(std::min(q, r) - 1) + ", below min(indices rank, data rank)";
        if (auto b = read_integer("batch_dims", allowed)) {
            if (*b < 0 || *b >= std::min(q, r)) {
                fail("batch_dims", "batch_dims " + find("batch_dims")->dump() + " is out of range (" + allowed + ")");
                return;
            }
            spec.batch_dims = *b;
        }
        const auto b = static_cast<size_t>(spec.batch_dims);
        for (size_t i = 0; i < b; ++i) {
            if (spec.indices_shape[i] != spec.data_shape[i]) {
                fail("indices_shape/" + std::to_string(i),
                     "batch dimension " + std::to_string(i) + " is " + std::to_string(spec.indices_shape[i]) +
                         " but data's is " + std::to_string(spec.data_shape[i]) + " (the first batch_dims dimensions must be equal)");
            }
        }
        if (!clean_since(mark)) return;
        auto k = read_index_depth(spec, spec.batch_dims);
        if (!k) return;
        spec.output_shape.assign(spec.indices_shape.begin(), spec.indices_shape.end() - 1);
        spec.output_shape.insert(spec.output_shape.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(b + *k), spec.data_shape.end());
    }

    void read_reduction(KernelSpec& spec) {
        const std::string allowed = "none, add, mul, max or min; default none";
        auto text = read_string("reduction", allowed);
        if (!text) return;
        if (auto reduction = parse_reduction(*text)) {
            spec.reduction = *reduction;
            if (dtype_known_ && !reduction_allowed(spec.dtype, *reduction)) {
                const std::string type(info(spec.dtype).name);
                const std::string why = info(spec.dtype).category == Category::String
                                            ? ": a kernel copies string pointers and never combines strings"
                                            : ": complex numbers have no order";
                fail("reduction", "reduction " + in_quotes(*text) + " is not defined for " + type + " (" + type +
                                      " allows " + allowed_reductions(spec.dtype) + why + ")");
            }
        } else {
            static const std::map<std::string, std::string, std::less<>> aliases{
                {"sum", "add"}, {"plus", "add"}, {"prod", "mul"}, {"product", "mul"}, {"multiply", "mul"},
                {"maximum", "max"}, {"minimum", "min"}, {"replace", "none"}, {"assign", "none"}};
            fail("reduction", "unknown reduction " + in_quotes(*text) + " (" + allowed + ")" +
                                  did_you_mean_value(*text, {"none", "add", "mul", "max", "min"}, aliases));
        }
    }

    void resolve_scatter_nd(KernelSpec& spec) {
        const size_t mark = problems_;
        require_data_rank(spec);
        require_indices_rank(spec);
        read_reduction(spec);
        if (!clean_since(mark)) {
            read_shape("updates_shape");
            return;
        }
        auto k = read_index_depth(spec, 0);
        if (!k) {
            read_shape("updates_shape");
            return;
        }
        Shape updates(spec.indices_shape.begin(), spec.indices_shape.end() - 1);
        updates.insert(updates.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(*k), spec.data_shape.end());
        read_updates_shape(spec, updates, "indices_shape[:-1] + data_shape[k:], with k = indices_shape[-1] = " + std::to_string(*k));
    }

    // "count": "runtime": a leading dimension is a count passed at run time, up to its bound: that of indices
    // (up to indices_shape[0]), or with "count_leads": "data" that of data (up to data_shape[0]). The count must
    // lead every tensor it sizes, so that the first `count` rows of each are one dense prefix.
    void read_count(KernelSpec& spec) {
        if (!find("count")) {
            if (find("count_leads")) {
                fail("count_leads", "\"count_leads\" says what a run-time count counts, and applies only with \"count\": "
                                    "\"runtime\" (add \"count\": \"runtime\", or remove \"count_leads\")");
            }
            return;
        }
        const std::string allowed = "\"runtime\": indices_shape[0] bounds a count the caller passes; leave \"count\" out "
                                    "for a fixed count";
        auto text = read_string("count", allowed);
        if (!text) return;
        if (*text != "runtime") {
            fail("count", "unknown count setting " + in_quotes(*text) + " (" + allowed + ")" +
                              did_you_mean_value(*text, {"runtime"}, {{"dynamic", "runtime"}, {"variable", "runtime"}}));
            return;
        }
        const auto leads = read_count_leads(spec);
        if (!leads) return;
        if (*leads == CountLeads::Indices && find("indices")) {
            fail("count", "a run-time count does not apply to constant indices, whose count is fixed (remove \"count\" or "
                          "\"indices\")");
            return;
        }
        if (spec.prefetch_in_spec && spec.prefetch_in_spec->kind != Prefetch::Kind::None) {
            fail("prefetch", "\"prefetch\" does not combine with a run-time count: the hints would look ahead past the "
                             "count (remove \"prefetch\", or set it to \"none\")");
            return;
        }
        if (!(*leads == CountLeads::Data ? data_rows_countable(spec) : index_rows_countable(spec))) return;
        // The count is a uint32_t: a larger bound could never be reached, and its check would never fail.
        const std::string bound_of = *leads == CountLeads::Data ? "data_shape" : "indices_shape";
        const uint64_t bound = (*leads == CountLeads::Data ? spec.data_shape : spec.indices_shape)[0];
        if (bound > UINT32_MAX) {
            fail(bound_of + "/0", "the bound of a run-time count, " + bound_of + "[0], is " + std::to_string(bound) +
                                      ", more than its uint32_t count can reach (at most " + std::to_string(UINT32_MAX) + ")");
            return;
        }
        const uint64_t tuple = spec.op == Op::GatherND || spec.op == Op::ScatterND ? spec.indices_shape.back() : 1;
        for (uint64_t at = 0; at < tuple; ++at) {
            const size_t selected = selected_axis(spec, at);
            if (spec.data_shape[selected] == 0) {
                fail("data_shape/" + std::to_string(selected),
                     "a run-time count needs every data axis the indices select along to have elements (axis " +
                         std::to_string(selected) + " has size 0, where no index is valid)");
                return;
            }
        }
        spec.runtime_count = true;
        spec.count_leads = *leads;
    }

    // "count_leads": "indices" (the default) or "data", which only Gather takes; nothing when refused (reported).
    std::optional<CountLeads> read_count_leads(const KernelSpec& spec) {
        const std::string allowed = "\"indices\" (default): the count is the leading dimension of indices; \"data\": of "
                                    "data, for Gather along axis 1 or later";
        if (!find("count_leads")) return CountLeads::Indices;
        auto text = read_string("count_leads", allowed);
        if (!text) return std::nullopt;
        if (*text == "indices") return CountLeads::Indices;
        if (*text != "data") {
            fail("count_leads", "unknown count_leads setting " + in_quotes(*text) + " (" + allowed + ")" +
                                    did_you_mean_value(*text, {"indices", "data"},
                                                       {{"index", "indices"}, {"idx", "indices"}, {"input", "data"}}));
            return std::nullopt;
        }
        std::string why;
        switch (spec.op) {
            case Op::Gather: return CountLeads::Data;
            case Op::GatherElements: why = "GatherElements' output has the shape of indices"; break;
            case Op::GatherND: why = "GatherND's output is indices_shape[:-1] + data_shape[batch_dims + k:]"; break;
            case Op::ScatterND:
            case Op::ScatterElements:
                fail("count_leads", "\"count_leads\": \"data\" applies to Gather only: " + std::string(name(spec.op)) +
                                        (spec.op == Op::ScatterElements ? "'" : "'s") + " output is all of data, with updates written wherever the indices point, so "
                                        "its rows do not follow data's (count the rows of indices and updates with "
                                        "\"count_leads\": \"indices\")");
                return std::nullopt;
        }
        fail("count_leads", "\"count_leads\": \"data\" applies to Gather only: " + why +
                                ", so its rows follow the rows of indices, not of data (count those with \"count_leads\": "
                                "\"indices\")");
        return std::nullopt;
    }

    // A count of index rows: indices of rank 1 or more (2 for the tuples of GatherND and ScatterND), whose
    // leading dimension leads the output (or updates) too. True when it applies; otherwise reported.
    bool index_rows_countable(const KernelSpec& spec) {
        const Shape& indices = spec.indices_shape;
        const size_t needed = spec.op == Op::GatherND || spec.op == Op::ScatterND ? 2 : 1;
        if (indices.size() < needed) {
            fail("indices_shape", "a run-time count needs indices of rank " + std::to_string(needed) + " or more, whose " +
                                      "leading dimension is the count (here " + format_shape(indices) + ")");
            return false;
        }
        if (indices[0] == 0) {
            fail("indices_shape/0", "the bound of a run-time count, indices_shape[0], must be at least 1");
            return false;
        }
        const auto axis = static_cast<size_t>(spec.axis);
        if (spec.op == Op::Gather && std::any_of(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis),
                                                 [](uint64_t dim) { return dim != 1; })) {
            fail("axis", "with a run-time count, the count must lead the output: data's dimensions before axis " +
                             std::to_string(axis) + " must all be 1, not " +
                             format_shape(Shape(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis))) +
                             " (gather along axis 0, or count data's rows with \"count_leads\": \"data\")");
            return false;
        }
        if (spec.op == Op::GatherND && spec.batch_dims != 0) {
            fail("batch_dims", "a run-time count needs batch_dims 0: the leading dimension of indices is then the count, "
                               "not a batch dimension");
            return false;
        }
        return true;
    }

    // A count of data rows (Gather): along axis 1 or later, data's leading dimension leads the output too
    // (data_shape[:axis] + indices_shape + data_shape[axis + 1:]). True when it applies; otherwise reported.
    bool data_rows_countable(const KernelSpec& spec) {
        if (spec.axis == 0) {
            const json* given = find("axis");
            const std::string axis = !given ? "0, the default" : given->dump() == "0" ? "0" : given->dump() + ", that is 0";
            fail("axis", "with \"count_leads\": \"data\" the count is data's leading dimension, which must lead the output "
                         "too: gather along axis 1 or later (here axis " + axis + "), or count the rows of indices with "
                         "\"count_leads\": \"indices\"");
            return false;
        }
        if (spec.data_shape[0] == 0) {
            fail("data_shape/0", "the bound of a run-time count of data rows, data_shape[0], must be at least 1");
            return false;
        }
        return true;
    }

    // The data axis the value at flat position `at` of indices selects along.
    static size_t selected_axis(const KernelSpec& spec, uint64_t at) {
        switch (spec.op) {
            case Op::Gather:
            case Op::GatherElements:
            case Op::ScatterElements: return static_cast<size_t>(spec.axis);
            case Op::GatherND: return static_cast<size_t>(spec.batch_dims) + static_cast<size_t>(at % spec.indices_shape.back());
            case Op::ScatterND: return static_cast<size_t>(at % spec.indices_shape.back());
        }
        return 0;
    }

    // "indices": the index values themselves, when the model fixes them (an initializer): arrays nested as
    // indices_shape (an integer for rank 0), or one flat array of every value in row-major order. Each value
    // is checked against its axis here, so the kernel needs no check at run time.
    void read_constant_indices(KernelSpec& spec) {
        const json* value = find("indices");
        if (!value) return;
        if (find("index_check")) {
            fail("index_check", "\"index_check\" does not apply to constant indices: they are checked when the kernel is "
                                "generated (remove \"index_check\" or \"indices\")");
            return;
        }
        if (find("prefetch")) {
            fail("prefetch", "\"prefetch\" does not apply to constant indices: the kernel reads no index at run time "
                             "(remove \"prefetch\" or \"indices\")");
            return;
        }
        const Shape& shape = spec.indices_shape;
        const uint64_t count = element_count(shape);
        const std::string layout = shape.empty() ? "an integer, as indices_shape is []"
                                                 : "arrays nested as indices_shape " + format_shape(shape) +
                                                       ", or a flat array of " + std::to_string(count) + " integers";
        // The values with their pointers, in row-major order.
        std::vector<std::pair<const json*, std::string>> values;
        const bool flat = value->is_array() && value->size() == count &&
                          std::none_of(value->begin(), value->end(), [](const json& item) { return item.is_array(); });
        if (flat) {
            for (size_t i = 0; i < value->size(); ++i) values.emplace_back(&(*value)[i], "indices/" + std::to_string(i));
        } else {
            // Breadth-first through the nesting: level d holds the arrays of dimension d.
            std::vector<std::pair<const json*, std::string>> level{{value, "indices"}};
            for (uint64_t dim : shape) {
                std::vector<std::pair<const json*, std::string>> next;
                for (const auto& [array, where] : level) {
                    if (!array->is_array() || array->size() != dim) {
                        fail(where, "expected an array of " + std::to_string(dim) + ", got " +
                                        (array->is_array() ? "an array of " + std::to_string(array->size())
                                                           : json_type(*array)) + " (" + layout + ")");
                        return;
                    }
                    for (size_t i = 0; i < array->size(); ++i) next.emplace_back(&(*array)[i], where + "/" + std::to_string(i));
                }
                level = std::move(next);
            }
            values = std::move(level);
        }
        const int64_t type_low = spec.index_dtype == IndexType::Int32 ? INT32_MIN : INT64_MIN;
        const int64_t type_high = spec.index_dtype == IndexType::Int32 ? INT32_MAX : INT64_MAX;
        std::vector<int64_t> resolved;
        size_t bad = 0;
        constexpr size_t kShown = 8;  // problems listed one by one; the rest are counted
        for (size_t at = 0; at < values.size(); ++at) {
            const auto& [item, where] = values[at];
            const size_t axis = selected_axis(spec, at);
            const uint64_t size = spec.data_shape[axis];
            const int64_t low = std::max(-static_cast<int64_t>(size), type_low);
            const int64_t high = std::min(static_cast<int64_t>(size) - 1, type_high);
            const std::string allowed = size == 0 ? "data axis " + std::to_string(axis) + " has size 0, so no index is valid"
                                                  : "allowed " + std::to_string(low) + ".." + std::to_string(high);
            std::string problem;
            if (item->is_array() && shape.empty()) {
                problem = "expected an integer, got array (" + layout + ")";
            } else if (!item->is_number_integer()) {
                problem = "expected an integer, got " + json_type(*item) + " " + item->dump() + " (" + layout + ")";
            } else if ((item->is_number_unsigned() && item->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) ||
                       item->get<int64_t>() < low || item->get<int64_t>() > high) {
                problem = "index " + item->dump() + " is out of range for data axis " + std::to_string(axis) + " of size " +
                          std::to_string(size) + (high < static_cast<int64_t>(size) - 1 ? " with int32 indices" : "") +
                          " (" + allowed + ")";
            } else {
                resolved.push_back(item->get<int64_t>());
                continue;
            }
            if (++bad <= kShown) fail(where, problem);
        }
        if (bad > kShown) fail("indices", std::to_string(bad - kShown) + " more constant indices are invalid (" + std::to_string(bad) + " in all)");
        if (bad == 0) spec.constant_indices = std::move(resolved);
    }

    const json& object_;
    std::string file_;
    std::string base_;
    std::vector<Diagnostic>& diagnostics_;
    bool ok_ = true;
    bool dtype_known_ = false;
    std::optional<Op> op_;  // once read: which keys it requires
    size_t problems_ = 0;
};

// Where a JSON text first nests deeper than `limit` arrays and objects, as "line L, column C"; nullopt when
// it never does. A scan of the text, before any parsing, so that nothing deep is ever built.
std::optional<std::string> too_deep(const std::string& text, size_t limit) {
    size_t depth = 0, line = 1, column = 0;
    bool in_string = false, escaped = false;
    for (char ch : text) {
        ++column;
        if (ch == '\n') {
            ++line;
            column = 0;
        }
        if (in_string) {
            if (escaped) escaped = false;
            else if (ch == '\\') escaped = true;
            else if (ch == '"') in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > limit) return "line " + std::to_string(line) + ", column " + std::to_string(column);
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

// Finds keys given twice in one object, while nlohmann parses: JSON leaves their meaning open (nlohmann
// keeps the last, other readers the first), so a spec must not depend on it. Tracks the JSON pointer of
// every open array and object.
class DuplicateKeyFinder {
public:
    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start: {
                std::string pointer = child_pointer();
                frames_.push_back({event == json::parse_event_t::array_start, 0, {}, "", std::move(pointer)});
                break;
            }
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                if (!frames_.empty()) frames_.pop_back();
                break;
            case json::parse_event_t::key:
                if (!frames_.empty() && parsed.is_string()) {
                    Frame& frame = frames_.back();
                    frame.key = parsed.get<std::string>();
                    if (!frame.keys.insert(frame.key).second) {
                        duplicates_.push_back({frame.pointer + "/" + pointer_token(frame.key), frame.key});
                    }
                }
                break;
            case json::parse_event_t::value:
                child_pointer();  // a scalar takes its place in an array too
                break;
        }
        return true;
    }

    // (pointer, key) of every repeated key, in document order.
    const std::vector<std::pair<std::string, std::string>>& duplicates() const { return duplicates_; }

private:
    struct Frame {
        bool array;
        size_t next_index;
        std::set<std::string> keys;
        std::string key;  // the key whose value comes next (objects)
        std::string pointer;
    };

    // The pointer of the value that starts now, inside the innermost open array or object.
    std::string child_pointer() {
        if (frames_.empty()) return "";
        Frame& frame = frames_.back();
        if (frame.array) return frame.pointer + "/" + std::to_string(frame.next_index++);
        return frame.pointer + "/" + pointer_token(frame.key);
    }

    std::vector<Frame> frames_;
    std::vector<std::pair<std::string, std::string>> duplicates_;
};

// What a top-level "$schema" may be.
const std::string kSchemaKeyRule = "the file's JSON Schema for editors, a URI or path; kernelgen ignores it";

// A command-line count, from 1 to `most` (a limit that fits an unsigned).
std::optional<unsigned> parse_count(const std::string& text, uint64_t most) {
    const auto value = parse_decimal(text, 1, most);
    if (!value) return std::nullopt;
    return static_cast<unsigned>(*value);
}

}  // namespace

std::optional<uint64_t> parse_decimal(const std::string& text, uint64_t least, uint64_t most) {
    // At most as many digits as `most` has (leading zeros included): std::stoull never sees an overflow.
    if (text.empty() || text.size() > std::to_string(most).size() ||
        !std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        return std::nullopt;
    }
    const uint64_t value = std::stoull(text);
    if (value < least || value > most) return std::nullopt;
    return value;
}

std::optional<Unroll> parse_unroll(const std::string& text) {
    if (text == "auto") return Unroll{Unroll::Kind::Auto, 1};
    if (text == "full") return Unroll{Unroll::Kind::Full, 1};
    if (text == "none") return Unroll{Unroll::Kind::None, 1};
    const auto factor = parse_count(text, kMaxUnrollFactor);
    if (!factor) return std::nullopt;
    return Unroll{Unroll::Kind::Factor, *factor};
}

std::optional<Prefetch> parse_prefetch(const std::string& text) {
    if (text == "auto") return Prefetch{Prefetch::Kind::Auto, 0};
    if (text == "none") return Prefetch{Prefetch::Kind::None, 0};
    const auto distance = parse_count(text, kMaxPrefetchDistance);
    if (!distance) return std::nullopt;
    return Prefetch{Prefetch::Kind::Distance, *distance};
}

std::optional<std::string> name_problem(const std::string& n) {
    const std::string allowed = kNameRules;
    const bool identifier = !n.empty() && (std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_') &&
                            std::all_of(n.begin(), n.end(), [](char ch) {
                                return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                            });
    if (!identifier) {
        return in_quotes(n) + " is not a C identifier (" + allowed + ": letters, digits and '_', not starting with a digit)";
    }
    if (n.size() > kMaxNameLength) return "name is " + std::to_string(n.size()) + " characters long (" + allowed + ")";
    if (reserved_words().count(n)) return in_quotes(n) + " is a C or C++ keyword (" + allowed + ")";
    if (n[0] == '_') return in_quotes(n) + " starts with '_', which C reserves for the implementation (" + allowed + ")";
    if (n.find("__") != std::string::npos) {
        return in_quotes(n) + " contains \"__\", which C++ reserves for the implementation (" + allowed + ")";
    }
    if (auto clash = standard_name_clash(n)) return in_quotes(n) + " " + *clash + " (" + allowed + ")";
    return std::nullopt;
}

void apply_run_options(KernelSpec& spec, const RunOptions& run) {
    spec.unroll = spec.unroll_in_spec.value_or(run.unroll.value_or(Unroll{}));
    spec.prefetch = spec.prefetch_in_spec.value_or(run.prefetch.value_or(Prefetch{}));
    // A run-time count never prefetches (its hints would look past the count): a run's --prefetch leaves it out.
    if (spec.runtime_count) spec.prefetch = Prefetch{Prefetch::Kind::None, 0};
}

bool starts_as_import_report(std::string_view text) {
    auto skip_space = [&](size_t at) {
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
        return at;
    };
    size_t at = skip_space(0);
    if (at >= text.size() || text[at] != '{') return false;
    at = skip_space(at + 1);
    const std::string key = std::string("\"") + kImportReportKey + "\"";
    return text.substr(at, key.size()) == key;
}

std::vector<KernelSpec> parse_spec_text(const std::string& text, const std::string& file,
                                        std::vector<Diagnostic>& diagnostics) {
    if (starts_as_import_report(text)) return {};
    if (auto where = too_deep(text, kMaxJsonDepth)) {
        diagnostics.push_back({file, "", "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep at " +
                                             *where + " (a spec nests 4 levels: {\"kernels\": [{\"data_shape\": [...]}]})"});
        return {};
    }
    json document;
    DuplicateKeyFinder finder;
    try {
        document = json::parse(text, [&finder](int depth, json::parse_event_t event, json& parsed) {
            return finder(depth, event, parsed);
        });
    } catch (const json::exception& error) {
        // nlohmann's message carries the line and column of the problem; drop its "[json.exception...]" tag.
        std::string message = error.what();
        const size_t tag_end = message.find("] ");
        if (message.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos) message = message.substr(tag_end + 2);
        const std::string parse_error = "parse error";
        if (message.rfind(parse_error, 0) == 0) message = "malformed JSON:" + message.substr(parse_error.size());
        else message = "malformed JSON: " + message;  // e.g. a number too large for a double
        // A model given where a spec belongs: named .onnx, or starting as an ONNX model does (its ir_version, protobuf
        // field 1, is byte 0x08).
        std::string extension = std::filesystem::path(file).extension().string();
        for (auto& ch : extension) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (extension == ".onnx" || text.rfind('\x08', 0) == 0) {
            message += "; an ONNX model? did you mean 'kernelgen import " + file + " --out-dir DIR'?";
        }
        diagnostics.push_back({file, "", message});
        return {};
    }
    if (!finder.duplicates().empty()) {
        for (const auto& [pointer, key] : finder.duplicates()) {
            diagnostics.push_back({file, pointer, "key " + in_quotes(key) + " is given more than once (each key once)"});
        }
        return {};
    }
    // An import report (kernelgen import writes it beside the specs) holds no kernels: skipped, so that
    // `kernelgen --out-dir kernels specs/*.json` works on import's folder.
    if (document.is_object() && document.contains(kImportReportKey)) return {};
    // "$schema" at the top names the file's JSON Schema for editors; kernelgen checks it is a string and ignores it.
    if (document.is_object()) {
        const auto schema = document.find("$schema");
        if (schema != document.end()) {
            if (!schema->is_string()) {
                diagnostics.push_back({file, "/$schema", "expected a string, got " + json_type(*schema) + " (" +
                                                             kSchemaKeyRule + ")"});
            }
            document.erase(schema);
        }
    }
    std::vector<KernelSpec> kernels;
    auto read_one = [&](const json& object, const std::string& pointer) {
        if (auto spec = KernelReader(object, file, pointer, diagnostics).read()) kernels.push_back(std::move(*spec));
    };
    if (document.is_object() && document.contains("kernels")) {
        const json& list = document["kernels"];
        for (const auto& item : document.items()) {
            if (item.key() != "kernels") {
                diagnostics.push_back({file, "/" + pointer_token(item.key()), "unknown key " + in_quotes(item.key()) +
                                                                   " beside \"kernels\" (a file holds one kernel object, or {\"kernels\": [...]} with at most \"$schema\" beside it)"});
            }
        }
        if (!list.is_array() || list.empty()) {
            diagnostics.push_back({file, "/kernels", "expected a non-empty array of kernel objects, got " +
                                                         (list.is_array() ? std::string("an empty array") : json_type(list))});
            return kernels;
        }
        for (size_t i = 0; i < list.size(); ++i) read_one(list[i], "/kernels/" + std::to_string(i));
    } else {
        read_one(document, "");
    }
    return kernels;
}

std::vector<KernelSpec> parse_spec_file(const std::string& path, std::vector<Diagnostic>& diagnostics) {
    namespace fs = std::filesystem;
    const std::string allowed = " (a readable JSON spec file of at most " + std::to_string(kMaxSpecFileBytes >> 20) + " MiB)";
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status)) {
        diagnostics.push_back({path, "", "no such file" + allowed});
        return {};
    }
    if (fs::is_directory(status)) {
        diagnostics.push_back({path, "", "is a folder, not a file" + allowed});
        return {};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diagnostics.push_back({path, "", "cannot read the file: " + std::string(std::strerror(errno)) + allowed});
        return {};
    }
    // Read at most one byte past the limit: a huge file, or an endless one such as /dev/zero, stops there.
    std::string text;
    char buffer[65536];
    while (text.size() <= kMaxSpecFileBytes && in.read(buffer, sizeof buffer).gcount() > 0) {
        text.append(buffer, static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) {
        diagnostics.push_back({path, "", "cannot read the file" + allowed});
        return {};
    }
    if (starts_as_import_report(text)) return {};  // whatever its size: kernelgen import's report holds no kernels
    if (text.size() > kMaxSpecFileBytes) {
        diagnostics.push_back({path, "", "the file is larger than " + std::to_string(kMaxSpecFileBytes >> 20) + " MiB" + allowed});
        return {};
    }
    return parse_spec_text(text, path, diagnostics);
}

void check_unique_names(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic>& diagnostics) {
    std::map<std::string, const KernelSpec*> owners;  // identifier -> the first kernel defining it
    auto where = [](const KernelSpec& kernel) {
        return kernel.spec_file + ": " + (kernel.pointer.empty() ? "/" : kernel.pointer);
    };
    for (const auto& kernel : kernels) {
        for (const auto& identifier : header_identifiers(kernel)) {
            auto [it, inserted] = owners.emplace(identifier, &kernel);
            if (inserted || it->second == &kernel) continue;
            const KernelSpec& first = *it->second;
            std::string message;
            if (first.name == kernel.name) {
                message = "kernel name " + in_quotes(kernel.name) + " is already used by " + where(first) +
                          " (names must be unique in a run)";
            } else if (macro_case(first.name) == macro_case(kernel.name)) {
                message = "kernel name " + in_quotes(kernel.name) + " equals " + in_quotes(first.name) + " of " +
                          where(first) + " once upper-cased, as the macros are (names must differ even when upper-cased)";
            } else {
                message = "kernel name " + in_quotes(kernel.name) + " clashes with kernel " + in_quotes(first.name) +
                          " of " + where(first) + ": both headers would define " + identifier +
                          " (names whose headers share no identifier)";
            }
            diagnostics.push_back({kernel.spec_file, kernel.pointer + "/name", message});
            break;  // one problem per kernel is enough
        }
    }
}

void check_full_unroll(const std::vector<KernelSpec>& kernels, std::vector<Diagnostic>& diagnostics) {
    for (const auto& kernel : kernels) {
        if (kernel.unroll.kind != Unroll::Kind::Full) continue;
        const uint64_t statements = full_unroll_statements(lower(kernel), kernel);
        if (statements <= kMaxFullUnroll) continue;
        // The setting is the spec's own, or the run's --unroll for a spec without one.
        const bool own = kernel.unroll_in_spec.has_value();
        diagnostics.push_back({kernel.spec_file, kernel.pointer + (own ? "/unroll" : ""),
                               "\"full\" unrolling" + std::string(own ? "" : " (--unroll full)") + " would take " +
                                   std::to_string(statements) + " statements (at most " +
                                   std::to_string(kMaxFullUnroll) + "; use \"auto\", \"none\" or a factor)"});
    }
}

}  // namespace kernelgen
