#include "kernelgen/emit.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>

#include "kernelgen/code_writer.h"
#include "kernelgen/templates.h"
#include "kernelgen/version.h"

namespace kernelgen {
namespace {

std::string literal(uint64_t value) { return std::to_string(value) + "u"; }

// Conditions under which a value fails its bound; comparisons the index type cannot fail are left out.
std::vector<std::string> check_conditions(const IndexComponent& component, IndexType index_dtype,
                                          const std::string& value) {
    // An int32 index can never leave [-s, s-1] when s >= 2^31 (and an int64 one never meets such an s).
    const uint64_t limit = index_dtype == IndexType::Int32 ? uint64_t{1} << 31 : uint64_t{1} << 63;
    if (component.bound == 0 || component.bound >= limit) return {};
    return {value + " < -" + std::to_string(component.bound), value + " > " + std::to_string(component.bound - 1)};
}

// Statements one copy of `length` elements takes when written out: a reduction combines element by element;
// a plain copy assigns up to 4 elements one by one and uses one memcpy beyond.
uint64_t statements_per_copy(const IndexedCopy& copy, uint64_t length) {
    return copy.reduction != Reduction::None ? length : (length <= 4 ? length : 1);
}

// Statements of the copies at one point of the loops, written out: one block, or every constant run.
uint64_t statements_per_point(const IndexedCopy& copy) {
    if (!copy.runs) return statements_per_copy(copy, copy.block);
    uint64_t statements = 0;
    for (const Run& run : *copy.runs) statements += statements_per_copy(copy, run.length);
    return statements;
}

// Statements of every copy written out.
uint64_t copy_statements(const IndexedCopy& copy) { return copy.point_count() * statements_per_point(copy); }

// Index values the kernel compares with their bounds: none when an axis of size 0 makes every tuple fail
// (the check is then a plain "return 0"), and none for components whose type cannot leave the bound.
uint64_t checked_values(const IndexedCopy& copy, const KernelSpec& spec) {
    if (spec.index_check == IndexCheck::None) return 0;
    uint64_t per_tuple = 0;
    for (const auto& component : copy.components) {
        if (component.bound == 0) return 0;
        if (!check_conditions(component, spec.index_dtype, "index").empty()) ++per_tuple;
    }
    return copy.tuple_count * per_tuple;
}

// sum(term * coefficient) + constant, printed with literal coefficients.
struct Affine {
    std::vector<std::pair<std::string, uint64_t>> terms;
    uint64_t constant = 0;

    Affine plus(uint64_t value) const {
        Affine out = *this;
        out.constant += value;
        return out;
    }

    std::string str() const {
        std::string out;
        for (const auto& [term, coefficient] : terms) {
            if (coefficient == 0) continue;
            out += (out.empty() ? "" : " + ") + term + (coefficient == 1 ? "" : " * " + literal(coefficient));
        }
        if (constant != 0 || out.empty()) out += (out.empty() ? "" : " + ") + literal(constant);
        return out;
    }
};

// What one loop level contributes at the current point: a loop variable plus a constant, or a constant.
struct Position {
    std::string variable;  // empty when the level is unrolled here
    uint64_t offset = 0;
};

struct LevelPlan {
    enum class Mode { Loop, Partial, Full } mode = Mode::Loop;
    uint64_t factor = 1;
};

class KernelEmitter {
public:
    KernelEmitter(const KernelSpec& spec, const IndexedCopy& copy) : spec_(spec), copy_(copy) {
        element_ = std::string(info(spec.dtype).c_type);
        index_ = std::string(c_type(spec.index_dtype));
        const uint64_t largest = std::max({copy.data_size, copy.indices_size, copy.updates_size, copy.output_size});
        offset_ = largest <= UINT32_MAX ? "uint32_t" : "uint64_t";
        macro_ = macro_case(spec.name);
        reduce_ = copy.reduction != Reduction::None;
        source_ = copy.indexed == IndexedCopy::Indexed::Source ? "data" : "updates";
        source_base_ = source_;
        plan_copies();
        plan_slices();
        plan_prefetch();
    }

    GeneratedKernel run() {
        TemplateValues values;
        values.text["version"] = KERNELGEN_VERSION_STRING;
        values.text["spec_file"] = std::filesystem::path(spec_.spec_file).filename().string() +
                                   (spec_.pointer.empty() ? "" : " (" + spec_.pointer + ")");
        values.text["name"] = spec_.name;
        values.text["NAME"] = macro_;
        values.text["guard"] = macro_ + "_H";
        values.text["sizes"] = size_macros();
        values.text["description"] = description();
        values.text["returns"] =
            spec_.constant_indices
                ? " * The indices are constant (given in the spec) and were checked when this kernel was generated.\n"
                  " * Returns " + macro_ + "_OK."
            : spec_.index_check == IndexCheck::Checked
                ? " * Returns " + macro_ + "_OK, or " + macro_ + "_ERROR_INDEX_OUT_OF_RANGE when any index lies outside\n"
                  " * [-s, s-1] for the size s of its axis; output is then left untouched."
                : " * Generated with \"index_check\": \"none\": the indices are NOT checked. Every index must lie in\n"
                  " * [-s, s-1] for the size s of its axis; any other value is undefined behaviour (memory outside\n"
                  " * the tensors may be read or written). Returns " + macro_ + "_OK.";
        values.text["prototype"] = prototype();
        values.text["definition"] = prototype(true);
        values.text["unroll_note"] = unroll_note();
        values.text["helpers"] = helpers();
        values.text["body"] = body();
        values.text["header_includes"] = header_includes();
        values.text["size_guard"] = size_guard();
        values.text["source_includes"] = uses_memcpy_ ? "\n#include <string.h>\n" : "";
        GeneratedKernel out;
        out.header_name = spec_.name + ".h";
        out.source_name = spec_.name + ".c";
        out.header = render_template("kernel.h.mustache", values);
        out.source = render_template("kernel.c.mustache", values);
        return out;
    }

private:
    // Statements one block copy takes when written out, and inside a loop body.
    // Statements of one point's copies inside a loop body: written out, or a loop over the table of runs.
    uint64_t loop_cost() const {
        if (copy_.runs) return runs_straight_ ? statements_per_point(copy_) : 1;
        return copy_.block <= 4 ? copy_.block : 1;
    }
    uint64_t check_statements() const { return checked_values(copy_, spec_); }

    bool any_condition() const {
        if (copy_.tuple_count == 0 || spec_.index_check == IndexCheck::None) return false;
        for (const auto& component : copy_.components) {
            if (component.bound == 0 || !check_conditions(component, "index").empty()) return true;
        }
        return false;
    }

    void plan_copies() {
        const size_t depth = copy_.loops.size();
        levels_.assign(depth, LevelPlan{});
        straight_ = false;
        const Unroll& unroll = spec_.unroll;
        if (unroll.kind == Unroll::Kind::Full ||
            (unroll.kind == Unroll::Kind::Auto && copy_statements(copy_) <= kStraightLineBudget)) {
            for (auto& level : levels_) level.mode = LevelPlan::Mode::Full;
            straight_ = true;
            runs_straight_ = true;
            return;
        }
        // Constant runs are written out when there is one, or (auto) while they fit a loop body; otherwise
        // a loop walks a table of them.
        runs_straight_ = copy_.runs && (copy_.runs->size() <= 1 || (unroll.kind == Unroll::Kind::Auto &&
                                                                     statements_per_point(copy_) <= kLoopBodyBudget));
        if (depth == 0 || unroll.kind == Unroll::Kind::None) return;
        if (unroll.kind == Unroll::Kind::Factor) {
            set_partial(depth - 1, unroll.factor);
            return;
        }
        // auto: unroll inner levels whole while the loop body stays within budget, then the next one in part.
        uint64_t per_iteration = loop_cost();
        for (size_t level = depth; level-- > 0;) {
            const uint64_t extent = copy_.loops[level].extent;
            if (per_iteration * extent <= kLoopBodyBudget) {
                levels_[level].mode = LevelPlan::Mode::Full;
                per_iteration *= extent;
                continue;
            }
            // Prefer a factor that divides the extent (no remainder), if one is at least half the budget.
            const uint64_t most = kLoopBodyBudget / per_iteration;
            uint64_t factor = most;
            for (uint64_t f = most; f * 2 >= most && f >= 2; --f) {
                if (extent % f == 0) {
                    factor = f;
                    break;
                }
            }
            set_partial(level, factor);
            break;
        }
    }

    // The loop that encloses the innermost one names, at each of its points, the part of each tensor its inner
    // loop reaches (a pointer per tensor). The inner loop's offsets then leave out the outer loop variables:
    // with 32-bit offsets on a 64-bit machine, a compiler cannot fold `i0 * 1024u + index` into an address (the
    // sum might wrap), and computes it again for every element.
    void plan_slices() {
        std::optional<size_t> innermost;
        for (size_t level = 0; level < levels_.size(); ++level) {
            if (levels_[level].mode == LevelPlan::Mode::Full) continue;
            slice_level_ = innermost;
            innermost = level;
        }
    }

    void set_partial(size_t level, uint64_t factor) {
        const uint64_t extent = copy_.loops[level].extent;
        // A loop that would run once is written out instead.
        if (factor * 2 > extent) levels_[level].mode = LevelPlan::Mode::Full;
        else if (factor >= 2) levels_[level] = LevelPlan{LevelPlan::Mode::Partial, factor};
    }

    // Bytes of one element; a string's pointer counts as `pointer_bytes` (4 is the least on any target, 8 the
    // most).
    uint64_t element_bytes(uint64_t pointer_bytes) const {
        return spec_.dtype == DType::String ? pointer_bytes : info(spec_.dtype).bits / 8;
    }

    // Prefetching: ahead of each block copy, a hint for the block of the index tuple `prefetch_distance_`
    // steps further along the innermost loop level that walks the tuples. The hint's address comes from index
    // values already checked (or trusted, with "index_check": "none") and lies inside the tensor.
    void plan_prefetch() {
        if (copy_.runs || copy_.copy_count() == 0 || always_out_of_range()) return;
        std::optional<size_t> level;
        for (size_t l = 0; l < copy_.loops.size(); ++l) {
            if (copy_.loops[l].indices_stride != 0) level = l;
        }
        if (!level) return;
        const uint64_t block_bytes = copy_.block * element_bytes(4);
        uint64_t distance = 0;
        switch (spec_.prefetch.kind) {
            case Prefetch::Kind::None: return;
            case Prefetch::Kind::Distance: distance = spec_.prefetch.distance; break;
            case Prefetch::Kind::Auto: {
                const uint64_t indexed_elements =
                    copy_.indexed == IndexedCopy::Indexed::Source ? copy_.data_size : copy_.output_size;
                if (straight_ || spec_.unroll.kind == Unroll::Kind::None || block_bytes < kCacheLineBytes ||
                    indexed_elements * element_bytes(4) < kPrefetchTensorBytes) {
                    return;
                }
                distance = (kPrefetchAheadBytes + block_bytes - 1) / block_bytes;
                break;
            }
        }
        if (distance >= copy_.loops[*level].extent) return;  // no tuple has one that far ahead
        prefetch_level_ = level;
        prefetch_distance_ = distance;
        prefetch_lines_ = std::min(kPrefetchLines, (std::max<uint64_t>(block_bytes, 1) + kCacheLineBytes - 1) / kCacheLineBytes);
    }

    bool check_straight() const {
        if (copy_.tuple_count <= 1) return true;  // a loop that would run once is written out instead
        switch (spec_.unroll.kind) {
            case Unroll::Kind::Full: return true;
            case Unroll::Kind::Auto: return check_statements() <= kCheckStraightLineBudget;
            default: return false;
        }
    }

    std::vector<std::string> check_conditions(const IndexComponent& component, const std::string& value) const {
        return kernelgen::check_conditions(component, spec_.index_dtype, value);
    }

    std::vector<std::string> parameter_names() const {
        std::vector<std::string> names{"data"};
        if (!spec_.constant_indices) names.push_back("indices");
        if (is_scatter(spec_.op)) names.push_back("updates");
        names.push_back("output");
        return names;
    }

    // The parameters; in the definition (`restrict_qualified`), indices and updates are `restrict`: the
    // contract keeps them apart from output, so compilers need not assume a store to output changes them, and
    // a reduction's element loop vectorizes without run-time overlap tests. (C99 ignores such qualifiers when
    // it compares the definition with the prototype, and the header stays valid C++.) data and output are
    // left unqualified: a scatter's may be one buffer, and for the gathers the qualifier buys nothing (GCC
    // then vectorizes GatherElements' address arithmetic, which is slower than the scalar code).
    std::string parameter_list(bool restrict_qualified = false) const {
        const std::string apart = restrict_qualified ? "restrict " : "";
        std::string out = pointer_to_element(true) + "data, ";
        if (!spec_.constant_indices) out += "const " + index_ + " *" + apart + "indices, ";
        if (is_scatter(spec_.op)) out += pointer_to_element(true) + apart + "updates, ";
        return out + pointer_to_element(false) + "output";
    }

    // "const T *" or "T *"; for a pointer element type (string) "const char *const *" or "const char **".
    std::string pointer_to_element(bool read_only) const {
        if (element_.back() == '*') return element_ + (read_only ? "const *" : "*");
        return (read_only ? "const " : "") + element_ + " *";
    }

    std::string prototype(bool definition = false) const {
        return "int " + spec_.name + "(" + parameter_list(definition) + ")";
    }

    std::string size_macros() const {
        std::string out;
        auto add = [&](const std::string& what, uint64_t value) {
            out += "#define " + macro_ + "_" + what + "_SIZE " + std::to_string(value) + "\n";
        };
        add("DATA", copy_.data_size);
        add("INDICES", copy_.indices_size);
        if (is_scatter(spec_.op)) add("UPDATES", copy_.updates_size);
        add("OUTPUT", copy_.output_size);
        return out;
    }

    std::string header_includes() const {
        const DTypeInfo& type = info(spec_.dtype);
        if (type.id == DType::Bool) return "#include <stdbool.h>\n#include <stdint.h>\n";
        if (type.category != Category::Complex) return "#include <stdint.h>\n";
        const std::string part = type.bits == 64 ? "float" : "double";
        const std::string guard = macro_case(std::string(type.c_type)) + "_DEFINED";
        return "#include <stdint.h>\n\n#ifndef " + guard + "\n#define " + guard + "\n/* " + std::string(type.name) +
               " as ONNX lays it out: the real part, then the imaginary part. */\ntypedef struct {\n    " + part +
               " re;\n    " + part + " im;\n} " + std::string(type.c_type) + ";\n#endif\n";
    }

    // A kernel whose tensors cannot exist on a 32-bit target refuses to compile there, rather than
    // truncating sizes silently.
    std::string size_guard() const {
        const uint64_t element = element_bytes(8);
        const uint64_t index_bytes = spec_.index_dtype == IndexType::Int32 ? 4 : 8;
        const uint64_t bytes = std::max({copy_.data_size * element, copy_.updates_size * element,
                                         copy_.output_size * element, copy_.indices_size * index_bytes});
        if (bytes <= UINT32_MAX) return "";
        return "\n#if SIZE_MAX < " + literal(bytes) + "\n#error \"" + spec_.name + ": its tensors take up to " +
               std::to_string(bytes) + " bytes, more than size_t can count on this target\"\n#endif\n";
    }

    std::string description() const {
        const std::string dtype(info(spec_.dtype).name);
        std::string attribute;
        switch (spec_.op) {
            case Op::Gather:
            case Op::GatherElements: attribute = " along axis " + std::to_string(spec_.axis); break;
            case Op::GatherND: attribute = spec_.batch_dims ? " with batch_dims " + std::to_string(spec_.batch_dims) : ""; break;
            case Op::ScatterND: attribute = " with reduction " + std::string(name(spec_.reduction)); break;
            case Op::ScatterElements:
                attribute = " along axis " + std::to_string(spec_.axis) + " with reduction " + std::string(name(spec_.reduction));
                break;
        }
        std::string bounds;
        bool empty_axis = false;
        for (const auto& component : copy_.components) {
            empty_axis = empty_axis || component.bound == 0;
            bounds += (bounds.empty() ? "" : ", ") + std::string("[-") + std::to_string(component.bound) + ", " +
                      std::to_string(static_cast<int64_t>(component.bound) - 1) + "]";
        }
        std::string out = " * " + std::string(name(spec_.op)) + attribute + ".\n";
        out += " *   data     " + dtype + " " + format_shape(spec_.data_shape) + "\n";
        out += " *   indices  " + std::string(name(spec_.index_dtype)) + " " + format_shape(spec_.indices_shape) +
               (spec_.constant_indices ? constant_indices_note()
                : empty_axis ? std::string(", none in range (an axis of size 0)")
                : copy_.components.size() > 1 ? ", tuples of " + std::to_string(copy_.components.size()) + " in " + bounds
                                              : ", each in " + bounds) + "\n";
        if (is_scatter(spec_.op)) out += " *   updates  " + dtype + " " + format_shape(spec_.updates_shape) + "\n";
        out += " *   output   " + dtype + " " + format_shape(spec_.output_shape) + "\n";
        out += " * " + copy_.formula + "\n";
        out += " * Negative indices count from the back of their axis.";
        if (is_scatter(spec_.op)) {
            out += spec_.op == Op::ScatterND ? "\n * Duplicate index tuples apply in the order of indices"
                                             : "\n * Updates that meet at one position apply in the (row-major) order of updates";
            out += copy_.reduction == Reduction::None ? " (the last one wins)." : ".";
            out += "\n * output may be the same pointer as data: the update is then made in place.";
        }
        return out;
    }

    // The constant index values, when few enough to read in a comment.
    std::string constant_indices_note() const {
        const std::vector<int64_t>& values = *spec_.constant_indices;
        if (values.size() > 16) return ", constant (" + std::to_string(values.size()) + " values given in the spec)";
        std::string list;
        for (int64_t value : values) list += (list.empty() ? "" : ", ") + std::to_string(value);
        return ", constant: " + (list.empty() ? "none" : list);
    }

    std::string unroll_note() const {
        std::string setting;
        switch (spec_.unroll.kind) {
            case Unroll::Kind::Auto: setting = "auto"; break;
            case Unroll::Kind::Full: setting = "full"; break;
            case Unroll::Kind::None: setting = "none"; break;
            case Unroll::Kind::Factor: setting = std::to_string(spec_.unroll.factor); break;
        }
        if (copy_.runs) {
            const std::string runs = std::to_string(copy_.runs->size()) + (copy_.runs->size() == 1 ? " run" : " runs");
            return "unroll " + setting + ": constant indices resolved into " + runs + ", " +
                   (runs_straight_ ? "written out" : "copied from a table") +
                   (copy_.loops.empty() || straight_ ? "" : " inside constant-bound loops");
        }
        std::string checks = ", no index checks";
        if (spec_.index_check == IndexCheck::Checked) {
            checks = check_straight() ? ", straight-line index checks" : ", a loop of index checks";
        }
        const std::string prefetch =
            prefetch_level_ ? ", prefetch " + std::to_string(prefetch_distance_) + " tuples ahead" : "";
        return "unroll " + setting + ": " + (straight_ ? "straight-line copies" : "loops over the index tuples") + checks + prefetch;
    }

    // Static helpers the body calls: index wrapping, the range check, the reduction.
    std::string helpers() {
        CodeWriter w;
        if (copy_.copy_count() > 0 && !copy_.runs) {
            // For a power-of-two size s, an index in [-s, s-1] converted to unsigned has its offset in its low
            // bits: one AND instead of a test and an add. Only the forms the kernel's sizes need are written.
            auto power_of_two = [](const IndexComponent& c) { return c.bound != 0 && (c.bound & (c.bound - 1)) == 0; };
            const auto& components = copy_.components;
            const bool all = std::all_of(components.begin(), components.end(), power_of_two);
            const bool any = std::any_of(components.begin(), components.end(), power_of_two);
            const std::string low_bits = any ? " (for a power-of-two size, its low bits)" : "";
            w.line(std::string("/* An index ") +
                   (spec_.index_check == IndexCheck::Checked
                        ? "already checked to lie in [-size, size-1]"
                        : "the caller guarantees to lie in [-size, size-1] (\"index_check\": \"none\")") +
                   ", as an offset along its axis" + low_bits + ". */");
            const std::string masked = "return (" + offset_ + ")index & (size - 1u);";
            w.line("static " + offset_ + " " + helper("wrap") + "(" + index_ + " index, " + offset_ + " size)");
            w.open("");
            if (any && !all) {
                w.open("if ((size & (size - 1u)) == 0u)");
                w.line(masked);
                w.close();
            }
            w.line(all ? masked : "return index < 0 ? (" + offset_ + ")index + size : (" + offset_ + ")index;");
            w.close();
            w.blank();
        }
        if (prefetch_level_) prefetch_helper(w);
        if (copy_.runs && !runs_straight_ && copy_.copy_count() > 0) run_tables(w);
        std::string conversions;
        if (reduce_ && copy_.copy_count() > 0) {
            if (info(spec_.dtype).category == Category::HalfFloat) {
                // Both directions for arithmetic; max and min only compare, so they need no rounding.
                TemplateValues values;
                values.text["name"] = half_prefix();
                const std::string format(info(spec_.dtype).name);
                conversions = render_template(format + "_to_float.c.mustache", values);
                if (copy_.reduction == Reduction::Add || copy_.reduction == Reduction::Mul) {
                    conversions += render_template(format + "_from_float.c.mustache", values);
                }
                uses_memcpy_ = true;
            }
            if (info(spec_.dtype).category == Category::Complex && copy_.reduction == Reduction::Mul) {
                // C lets a compiler fuse a * b - c * d into one fused multiply-add, which rounds differently.
                w.line("/* Two rounded products per part, as ONNX's reference computes them: no fused multiply-add.");
                w.line(" * GCC ignores this pragma; it contracts only outside ISO modes (-std=gnu99 or");
                w.line(" * -ffp-contract=fast on a target with FMA), so build this file with -std=c99 there. */");
                w.line("#if !defined(__GNUC__) || defined(__clang__)");
                w.line("#pragma STDC FP_CONTRACT OFF");
                w.line("#endif");
            }
            w.line("/* The " + std::string(name(copy_.reduction)) + " reduction: " + reduction_doc() + " */");
            w.line("static " + element_ + " " + helper("combine") + "(" + element_ + " current, " + element_ + " update)");
            w.open("");
            for (const auto& statement : reduction_body()) w.line(statement);
            w.close();
            w.blank();
        }
        return conversions + w.str();
    }

    // The hint itself: one __builtin_prefetch per cache line (GCC and Clang; PLD on Arm, PREFETCHT0 on x86),
    // nothing with other compilers. A scatter's block is about to be written (a reduction's, read and written).
    void prefetch_helper(CodeWriter& w) const {
        const bool write = copy_.indexed == IndexedCopy::Indexed::Destination;
        const uint64_t bytes = prefetch_lines_ * kCacheLineBytes;
        const std::string lines = prefetch_lines_ == 1 ? "its first " + std::to_string(kCacheLineBytes) + "-byte line"
                                                       : "each " + std::to_string(kCacheLineBytes) + "-byte line of its first " +
                                                             std::to_string(bytes) + " bytes";
        w.line("/* Asks the cache for the block at `block`, which the copy " + std::to_string(prefetch_distance_) +
               " tuples on will " + (write ? "write" : "read") + ": a hint for " + lines + ",");
        w.line(" * where the compiler has one (GCC, Clang); nothing elsewhere. The address lies inside the tensor. */");
        // Always inlined: GCC would otherwise find the function free of side effects (a prefetch is none to
        // it) and drop the calls to it.
        w.directive("#if defined(__GNUC__)");
        w.line("__attribute__((always_inline)) static inline void " + helper("prefetch") + "(const void *block)");
        w.open("");
        if (prefetch_lines_ > 1) w.line("const char *line = (const char *)block;");
        for (uint64_t l = 0; l < prefetch_lines_; ++l) {
            const std::string at = prefetch_lines_ == 1 ? "block" : l == 0 ? "line" : "line + " + std::to_string(l * kCacheLineBytes);
            w.line("__builtin_prefetch(" + at + (write ? ", 1" : "") + ");");
        }
        w.close();
        w.directive("#else");
        w.line("static void " + helper("prefetch") + "(const void *block)");
        w.open("");
        w.line("(void)block;");
        w.close();
        w.directive("#endif");
        w.blank();
    }

    // Whether an axis of size 0 makes every index tuple fail its check (and there are tuples).
    bool always_out_of_range() const {
        return any_condition() && std::any_of(copy_.components.begin(), copy_.components.end(),
                                              [](const IndexComponent& component) { return component.bound == 0; });
    }

    // The checks of every index value, in the kernel's body before anything is written. Written out, each
    // returns the error code at the first value out of range. A loop of checks has no branch but the loop's:
    // it gathers the comparisons of every value into one flag (which compilers vectorize) and tests it once;
    // except with "unroll": "none", where the fewest bytes count and the loop returns at the first failure.
    void check_indices(CodeWriter& w) const {
        const size_t k = copy_.components.size();
        const std::string fail = "return " + macro_ + "_ERROR_INDEX_OUT_OF_RANGE;";
        w.line("/* Every index is checked before anything is written. */");
        auto emit_tuple = [&](const std::function<std::string(uint64_t)>& element, bool gather) {
            for (size_t j = 0; j < k; ++j) {
                auto conditions = check_conditions(copy_.components[j], element(j));
                if (conditions.empty()) continue;
                std::string test;
                for (const auto& condition : conditions) {
                    test += gather ? (test.empty() ? "(" : " | (") + condition + ")"
                                   : (test.empty() ? "" : " || ") + condition;
                }
                if (gather) {
                    w.line("out_of_range |= " + test + ";");
                } else {
                    w.open("if (" + test + ")");
                    w.line(fail);
                    w.close();
                }
            }
        };
        if (check_straight()) {
            for (uint64_t t = 0; t < copy_.tuple_count; ++t) {
                emit_tuple([&](uint64_t j) { return "indices[" + std::to_string(t * k + j) + "]"; }, false);
            }
            return;
        }
        const bool gather = spec_.unroll.kind != Unroll::Kind::None;
        if (gather) w.line("int out_of_range = 0;");
        w.open("for (" + offset_ + " t = 0u; t < " + literal(copy_.tuple_count) + "; ++t)");
        if (k == 1) {
            w.line("const " + index_ + " index = indices[t];");
            emit_tuple([](uint64_t) { return std::string("index"); }, gather);
        } else {
            w.line("const " + index_ + " *tuple = &indices[t * " + literal(k) + "];");
            emit_tuple([](uint64_t j) { return "tuple[" + std::to_string(j) + "]"; }, gather);
        }
        w.close();
        if (gather) {
            w.open("if (out_of_range)");
            w.line(fail);
            w.close();
        }
    }

    std::string helper(const std::string& role) const { return helper_name(spec_.name, role); }
    // The float16/bfloat16 conversions' common beginning: "<helper>_to_float" and "<helper>_from_float".
    std::string half_prefix() const { return helper(std::string(info(spec_.dtype).name)); }

    std::string reduction_doc() const {
        const bool order = copy_.reduction == Reduction::Max || copy_.reduction == Reduction::Min;
        switch (info(spec_.dtype).category) {
            case Category::HalfFloat:
                return order ? "compared as float32; a NaN operand gives NaN and a tie (-0, +0) takes the update."
                             : "computed in float32 and rounded to the nearest " + std::string(info(spec_.dtype).name) +
                                   ", ties to even, as a tensor of that type would.";
            case Category::Complex:
                return copy_.reduction == Reduction::Add ? "complex addition." : "complex multiplication (no special cases for infinities).";
            case Category::String:
                return "";
            case Category::Float:
                return copy_.reduction == Reduction::Max || copy_.reduction == Reduction::Min
                           ? "a NaN operand gives NaN and a tie (-0, +0) takes the update, as numpy's maximum and minimum do."
                           : "IEEE arithmetic in the element type.";
            case Category::SignedInt:
            case Category::UnsignedInt:
                return copy_.reduction == Reduction::Add || copy_.reduction == Reduction::Mul
                           ? "wraps modulo 2^" + std::to_string(info(spec_.dtype).bits) + ", computed in unsigned arithmetic (no overflow)."
                           : "the larger or smaller value.";
            case Category::Bool:
                return copy_.reduction == Reduction::Add || copy_.reduction == Reduction::Max ? "logical or, as ONNX Runtime."
                                                                                              : "logical and, as ONNX Runtime.";
        }
        return "";
    }

    // The statements of the combine function, which takes `current` and `update`.
    std::vector<std::string> reduction_body() const {
        const DTypeInfo& type = info(spec_.dtype);
        switch (type.category) {
            case Category::HalfFloat: {
                const std::string convert = half_prefix() + "_to_float";
                const std::string as_floats = "const float a = " + convert + "(current), b = " + convert + "(update);";
                switch (copy_.reduction) {
                    case Reduction::Add: return {as_floats, "return " + half_prefix() + "_from_float(a + b);"};
                    case Reduction::Mul: return {as_floats, "return " + half_prefix() + "_from_float(a * b);"};
                    case Reduction::Max: return {as_floats, "return (b >= a || b != b) ? update : current;"};
                    default: return {as_floats, "return (b <= a || b != b) ? update : current;"};
                }
            }
            case Category::Complex:
                if (copy_.reduction == Reduction::Add) {
                    return {element_ + " result;", "result.re = current.re + update.re;", "result.im = current.im + update.im;",
                            "return result;"};
                }
                return {element_ + " result;", "result.re = current.re * update.re - current.im * update.im;",
                        "result.im = current.re * update.im + current.im * update.re;", "return result;"};
            default:
                return {"return " + reduction_expression() + ";"};
        }
    }

    std::string reduction_expression() const {
        const DTypeInfo& type = info(spec_.dtype);
        const std::string wide = type.bits <= 32 ? "uint32_t" : "uint64_t";
        switch (type.category) {
            case Category::HalfFloat:
            case Category::Complex:
            case Category::String:
                return "update";  // reduction_body() handles these; a string reduction is refused when read
            case Category::Bool:
                return copy_.reduction == Reduction::Add || copy_.reduction == Reduction::Max ? "(bool)(current || update)"
                                                                                              : "(bool)(current && update)";
            case Category::Float:
                switch (copy_.reduction) {
                    case Reduction::Add: return "current + update";
                    case Reduction::Mul: return "current * update";
                    // Ties go to the update, as numpy's maximum/minimum (ONNX's reference) do: max(-0, +0) is
                    // the later value.
                    case Reduction::Max: return "(update >= current || update != update) ? update : current";
                    default: return "(update <= current || update != update) ? update : current";
                }
            case Category::SignedInt:
            case Category::UnsignedInt:
                if (type.category == Category::UnsignedInt && (type.bits == 32 || type.bits == 64)) {
                    // Unsigned arithmetic of full width wraps by definition and is never promoted to int.
                    if (copy_.reduction == Reduction::Add) return "current + update";
                    if (copy_.reduction == Reduction::Mul) return "current * update";
                }
                switch (copy_.reduction) {
                    case Reduction::Add: return "(" + element_ + ")((" + wide + ")current + (" + wide + ")update)";
                    case Reduction::Mul: return "(" + element_ + ")((" + wide + ")current * (" + wide + ")update)";
                    case Reduction::Max: return "update > current ? update : current";
                    default: return "update < current ? update : current";
                }
        }
        return "update";
    }

    std::string body() {
        CodeWriter w(1);
        if (always_out_of_range()) {
            for (const auto& parameter : parameter_names()) w.line("(void)" + parameter + ";");
            w.line("/* An axis of size 0: no index value is in range, and there are indices. */");
            w.line("return " + macro_ + "_ERROR_INDEX_OUT_OF_RANGE;");
            return w.str();
        }
        const bool uses_indices_check = any_condition();
        const bool copies = copy_.copy_count() > 0;
        const bool data_copy = copy_.copy_data_first && copy_.data_size > 0;
        std::vector<std::string> unused;
        if (!(copies && copy_.indexed == IndexedCopy::Indexed::Source) && !data_copy) unused.push_back("data");
        if (!copies && !uses_indices_check && !spec_.constant_indices) unused.push_back("indices");
        if (is_scatter(spec_.op) && !copies) unused.push_back("updates");
        if (!copies && !data_copy) unused.push_back("output");
        for (const auto& parameter : unused) w.line("(void)" + parameter + ";");
        if (uses_indices_check) check_indices(w);
        if (data_copy && spec_.unroll.kind == Unroll::Kind::None) {
            // The least code: one element loop, which an in-place update (output == data) may run too.
            w.line("/* output starts as a copy of data (element by element, so output == data is fine too). */");
            w.open("for (" + offset_ + " e = 0u; e < " + literal(copy_.data_size) + "; ++e)");
            w.line("output[e] = data[e];");
            w.close();
        } else if (data_copy) {
            w.line("/* output starts as a copy of data; an in-place update (output == data) skips it. */");
            w.open("if (output != data)");
            w.line("memcpy(output, data, " + literal(copy_.data_size) + " * sizeof(" + element_ + "));");
            uses_memcpy_ = true;
            w.close();
        }
        if (copies) {
            w.line("/* " + copy_.formula + " */");
            std::vector<Position> positions(copy_.loops.size());
            emit_level(w, 0, positions);
        }
        w.line("return " + macro_ + "_OK;");
        return w.str();
    }

    void emit_level(CodeWriter& w, size_t level, std::vector<Position>& positions) {
        if (level == copy_.loops.size()) {
            emit_copy(w, positions);
            return;
        }
        const uint64_t extent = copy_.loops[level].extent;
        const std::string variable = "i" + std::to_string(level);
        const LevelPlan& plan = levels_[level];
        if (plan.mode == LevelPlan::Mode::Full) {
            for (uint64_t i = 0; i < extent; ++i) {
                positions[level] = Position{"", i};
                emit_level(w, level + 1, positions);
            }
            return;
        }
        if (plan.mode == LevelPlan::Mode::Loop) {
            w.open("for (" + offset_ + " " + variable + " = 0u; " + variable + " < " + literal(extent) + "; ++" + variable + ")");
            positions[level] = Position{variable, 0};
            open_slices(w, level, positions);
            emit_level(w, level + 1, positions);
            close_slices(level);
            w.close();
            return;
        }
        const uint64_t main = extent - extent % plan.factor;
        w.open("for (" + offset_ + " " + variable + " = 0u; " + variable + " < " + literal(main) + "; " + variable + " += " + literal(plan.factor) + ")");
        positions[level] = Position{variable, 0};
        open_slices(w, level, positions);
        for (uint64_t j = 0; j < plan.factor; ++j) {
            positions[level] = Position{variable, j};
            emit_level(w, level + 1, positions);
        }
        close_slices(level);
        w.close();
        for (uint64_t i = main; i < extent; ++i) {
            positions[level] = Position{"", i};
            emit_level(w, level + 1, positions);
        }
    }

    // The offset at the current point, relative to the open slices (whose loop variables it leaves out).
    Affine offset(const std::vector<Position>& positions, uint64_t Loop::*stride) const {
        Affine out;
        for (size_t level = 0; level < positions.size(); ++level) {
            const uint64_t step = copy_.loops[level].*stride;
            if (!positions[level].variable.empty() && level >= sliced_levels_) out.terms.emplace_back(positions[level].variable, step);
            out.constant += positions[level].offset * step;
        }
        return out;
    }

    // At the top of the body of the slice loop (plan_slices): a pointer to each tensor's part at the point of
    // the loop variables up to `level`, for the tensors whose offsets move with them.
    void open_slices(CodeWriter& w, size_t level, const std::vector<Position>& positions) {
        if (slice_level_ != level) return;
        auto slice = [&](std::string& base, const std::string& pointer_type, uint64_t Loop::*stride) {
            Affine at;
            for (size_t outer = 0; outer <= level; ++outer) {
                const uint64_t step = copy_.loops[outer].*stride;
                if (!positions[outer].variable.empty() && step != 0) at.terms.emplace_back(positions[outer].variable, step);
            }
            if (at.terms.empty()) return;
            w.line(pointer_type + base + "_slice = &" + base + "[" + at.str() + "];");
            base += "_slice";
        };
        slice(source_base_, pointer_to_element(true), &Loop::source_stride);
        if (!copy_.runs) slice(indices_base_, "const " + index_ + " *", &Loop::indices_stride);
        slice(output_base_, pointer_to_element(false), &Loop::destination_stride);
        sliced_levels_ = level + 1;
    }

    // At the end of the body of the slice loop: the copies name the tensors again.
    void close_slices(size_t level) {
        if (slice_level_ != level) return;
        source_base_ = source_;
        indices_base_ = "indices";
        output_base_ = "output";
        sliced_levels_ = 0;
    }

    void emit_copy(CodeWriter& w, const std::vector<Position>& positions) {
        Affine source = offset(positions, &Loop::source_stride);
        Affine destination = offset(positions, &Loop::destination_stride);
        if (copy_.runs) {
            emit_runs(w, destination, source);
            return;
        }
        emit_prefetch(w, positions);
        Affine& indexed = copy_.indexed == IndexedCopy::Indexed::Source ? source : destination;
        indexed = indexed_offset(positions);
        const bool scoped = (reduce_ || copy_.block > 1) && (reduce_ || copy_.block <= 4);
        if (scoped) {
            // Name the indexed offset once for the elements of the block (a reduction reads and writes it).
            w.open("");
            const std::string local = copy_.indexed == IndexedCopy::Indexed::Source ? "from" : "to";
            w.line("const " + offset_ + " " + local + " = " + indexed.str() + ";");
            indexed = Affine{{{local, 1}}, 0};
        }
        emit_block(w, destination, source, copy_.block, "");
        if (scoped) w.close();
    }

    // The offset of the indexed side's block at `positions`: its loops' part plus every index value, wrapped,
    // times its stride.
    Affine indexed_offset(const std::vector<Position>& positions) const {
        const bool source = copy_.indexed == IndexedCopy::Indexed::Source;
        Affine out = offset(positions, source ? &Loop::source_stride : &Loop::destination_stride);
        const Affine tuple = offset(positions, &Loop::indices_stride);
        for (const auto& component : copy_.components) {
            out.terms.emplace_back(helper("wrap") + "(" + indices_base_ + "[" + tuple.plus(component.offset).str() + "], " +
                                       literal(component.bound) + ")",
                                   component.stride);
        }
        return out;
    }

    // The hint for the block prefetch_distance_ steps further along the prefetch level, when that tuple exists:
    // known here for a level written out; for a loop variable, a test unless every value it takes has one.
    void emit_prefetch(CodeWriter& w, const std::vector<Position>& positions) const {
        if (!prefetch_level_) return;
        const size_t level = *prefetch_level_;
        const uint64_t extent = copy_.loops[level].extent;
        std::vector<Position> ahead = positions;
        ahead[level].offset += prefetch_distance_;
        if (ahead[level].offset >= extent) return;
        const bool source = copy_.indexed == IndexedCopy::Indexed::Source;
        const std::string call = helper("prefetch") + "(&" + (source ? source_base_ : output_base_) + "[" +
                                 indexed_offset(ahead).str() + "]);";
        const std::string& variable = positions[level].variable;
        // The tuple exists while variable < limit. An unrolled loop's variable steps by its factor: the limit
        // rounded up to a multiple of it tests the same, and reads the same for every copy of the body.
        const LevelPlan& plan = levels_[level];
        const uint64_t step = plan.mode == LevelPlan::Mode::Partial ? plan.factor : 1;
        const uint64_t limit = (extent - ahead[level].offset + step - 1) / step * step;
        const uint64_t last = extent - extent % step - step;  // the variable's last value
        if (variable.empty() || last < limit) {
            w.line(call);
            return;
        }
        w.open("if (" + variable + " < " + literal(limit) + ")");
        w.line(call);
        w.close();
    }

    // One contiguous block from source_[from] to output[to]: `length` elements, or as many as the expression
    // `variable_length` gives when it is not empty.
    void emit_block(CodeWriter& w, const Affine& to, const Affine& from, uint64_t length, const std::string& variable_length) {
        if (!reduce_ && (!variable_length.empty() || length > 4)) {
            w.line("memcpy(&" + output_base_ + "[" + to.str() + "], &" + source_base_ + "[" + from.str() + "], " +
                   (variable_length.empty() ? literal(length) : variable_length) + " * sizeof(" + element_ + "));");
            uses_memcpy_ = true;
            return;
        }
        auto element = [&](const Affine& target_offset, const Affine& value_offset) {
            const std::string target = output_base_ + "[" + target_offset.str() + "]";
            const std::string value = source_base_ + "[" + value_offset.str() + "]";
            w.line(target + " = " + (reduce_ ? helper("combine") + "(" + target + ", " + value + ")" : value) + ";");
        };
        if (!variable_length.empty() || (length > 4 && !straight_)) {  // a reduction of a long block: an element loop
            w.open("for (" + offset_ + " e = 0u; e < " + (variable_length.empty() ? literal(length) : variable_length) + "; ++e)");
            Affine target_offset = to, value_offset = from;
            target_offset.terms.emplace_back("e", 1);
            value_offset.terms.emplace_back("e", 1);
            element(target_offset, value_offset);
            w.close();
        } else {
            for (uint64_t e = 0; e < length; ++e) element(to.plus(e), from.plus(e));
        }
    }

    // Constant indices: every run written out, or a loop over the tables run_tables() defined.
    void emit_runs(CodeWriter& w, const Affine& destination, const Affine& source) {
        if (runs_straight_) {
            for (const Run& run : *copy_.runs) emit_block(w, destination.plus(run.destination), source.plus(run.source), run.length, "");
            return;
        }
        w.open("for (" + offset_ + " r = 0u; r < " + literal(copy_.runs->size()) + "; ++r)");
        auto shifted = [](Affine base, const Affine& by) {
            base.terms.insert(base.terms.end(), by.terms.begin(), by.terms.end());
            base.constant += by.constant;
            return base;
        };
        emit_block(w, shifted(destination, run_destination_), shifted(source, run_source_), run_length_, run_length_expression_);
        w.close();
    }

    // The static tables a loop over the constant runs reads, in the narrowest unsigned type that holds them;
    // a side whose offsets step evenly (or lengths that are all equal) needs none.
    void run_tables(CodeWriter& w) {
        const std::vector<Run>& runs = *copy_.runs;
        auto table = [&](const std::string& what, uint64_t Run::*field) {
            std::vector<uint64_t> values;
            for (const Run& run : runs) values.push_back(run.*field);
            // An even step r * step + first: no table.
            const uint64_t first = values.front();
            const uint64_t step = values.size() > 1 && values[1] >= first ? values[1] - first : 0;
            bool even = true;
            for (size_t r = 0; r < values.size() && even; ++r) even = values[r] == first + r * step;
            if (even) return Affine{{{"r", step}}, first};
            const uint64_t largest = *std::max_element(values.begin(), values.end());
            const std::string type = largest <= UINT8_MAX ? "uint8_t" : largest <= UINT16_MAX ? "uint16_t"
                                     : largest <= UINT32_MAX ? "uint32_t" : "uint64_t";
            const std::string table_name = helper(what);
            w.line("/* The " + what + " of the " + std::to_string(runs.size()) + " copies, resolved from the constant indices. */");
            w.line("static const " + type + " " + table_name + "[" + std::to_string(values.size()) + "] = {");
            for (size_t r = 0; r < values.size(); r += 12) {
                std::string line;
                for (size_t i = r; i < std::min(values.size(), r + 12); ++i) line += (i > r ? " " : "") + literal(values[i]) + ",";
                w.line("    " + line);
            }
            w.line("};");
            w.blank();
            const bool narrow = type != "uint32_t" && type != "uint64_t";  // promoted to int: convert explicitly
            return Affine{{{(narrow ? "(" + offset_ + ")" : "") + table_name + "[r]", 1}}, 0};
        };
        run_source_ = table("sources", &Run::source);
        run_destination_ = table("destinations", &Run::destination);
        const Affine lengths = table("lengths", &Run::length);
        if (lengths.terms.front().first == "r" && lengths.terms.front().second == 0) run_length_ = lengths.constant;
        else run_length_expression_ = lengths.terms.front().first == "r" ? "(" + lengths.str() + ")" : lengths.str();
    }

    const KernelSpec& spec_;
    const IndexedCopy& copy_;
    std::string element_, index_, offset_, macro_, source_;
    bool reduce_ = false;
    bool straight_ = false;
    bool runs_straight_ = false;  // constant runs written out rather than read from tables
    bool uses_memcpy_ = false;
    std::vector<LevelPlan> levels_;
    // Prefetching (plan_prefetch): the loop level it looks ahead along, how far, and the lines of a hint.
    std::optional<size_t> prefetch_level_;
    uint64_t prefetch_distance_ = 0, prefetch_lines_ = 0;
    // The loop whose body opens the slices (plan_slices), the loop levels whose variables they hold while
    // open, and the names the copies read and write through: a tensor, or its slice.
    std::optional<size_t> slice_level_;
    size_t sliced_levels_ = 0;
    std::string source_base_, indices_base_ = "indices", output_base_ = "output";
    // The current run inside the loop over the tables of constant runs.
    Affine run_source_, run_destination_;
    uint64_t run_length_ = 0;
    std::string run_length_expression_;
};

}  // namespace

const std::vector<std::string>& helper_roles() {
    static const std::vector<std::string> roles{
        "wrap",    "combine", "prefetch", "sources", "destinations", "lengths", "float16_to_float", "float16_from_float",
        "bfloat16_to_float", "bfloat16_from_float"};
    return roles;
}

std::string helper_name(const std::string& kernel, const std::string& role) { return "kernelgen_" + kernel + "_" + role; }

uint64_t full_unroll_statements(const IndexedCopy& copy, const KernelSpec& spec) {
    return copy_statements(copy) + checked_values(copy, spec);
}

GeneratedKernel emit(const KernelSpec& spec, const IndexedCopy& copy) { return KernelEmitter(spec, copy).run(); }

}  // namespace kernelgen
