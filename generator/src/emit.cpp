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

// Statements one block copy takes when written out: a reduction combines element by element; a plain copy
// assigns up to 4 elements one by one and uses one memcpy beyond.
uint64_t statements_per_copy(const IndexedCopy& copy) {
    return copy.reduction != Reduction::None ? copy.block : (copy.block <= 4 ? copy.block : 1);
}

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
        plan_copies();
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
            spec_.index_check == IndexCheck::Checked
                ? " * Returns " + macro_ + "_OK, or " + macro_ + "_ERROR_INDEX_OUT_OF_RANGE when any index lies outside\n"
                  " * [-s, s-1] for the size s of its axis; output is then left untouched."
                : " * Generated with \"index_check\": \"none\": the indices are NOT checked. Every index must lie in\n"
                  " * [-s, s-1] for the size s of its axis; any other value is undefined behaviour (memory outside\n"
                  " * the tensors may be read or written). Returns " + macro_ + "_OK.";
        values.text["prototype"] = prototype();
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
    uint64_t straight_cost() const { return statements_per_copy(copy_); }
    uint64_t loop_cost() const { return copy_.block <= 4 ? copy_.block : 1; }
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
            (unroll.kind == Unroll::Kind::Auto && copy_.copy_count() * straight_cost() <= kStraightLineBudget)) {
            for (auto& level : levels_) level.mode = LevelPlan::Mode::Full;
            straight_ = true;
            return;
        }
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

    void set_partial(size_t level, uint64_t factor) {
        const uint64_t extent = copy_.loops[level].extent;
        // A loop that would run once is written out instead.
        if (factor * 2 > extent) levels_[level].mode = LevelPlan::Mode::Full;
        else if (factor >= 2) levels_[level] = LevelPlan{LevelPlan::Mode::Partial, factor};
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

    std::string parameter_list() const {
        std::string out = pointer_to_element(true) + "data, const " + index_ + " *indices, ";
        if (spec_.op == Op::ScatterND) out += pointer_to_element(true) + "updates, ";
        return out + pointer_to_element(false) + "output";
    }

    // "const T *" or "T *"; for a pointer element type (string) "const char *const *" or "const char **".
    std::string pointer_to_element(bool read_only) const {
        if (element_.back() == '*') return element_ + (read_only ? "const *" : "*");
        return (read_only ? "const " : "") + element_ + " *";
    }

    std::string prototype() const { return "int " + spec_.name + "(" + parameter_list() + ")"; }

    std::string size_macros() const {
        std::string out;
        auto add = [&](const std::string& what, uint64_t value) {
            out += "#define " + macro_ + "_" + what + "_SIZE " + std::to_string(value) + "\n";
        };
        add("DATA", copy_.data_size);
        add("INDICES", copy_.indices_size);
        if (spec_.op == Op::ScatterND) add("UPDATES", copy_.updates_size);
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
        const uint64_t element_bytes = spec_.dtype == DType::String ? 8 : info(spec_.dtype).bits / 8;  // pointers: at most 8
        const uint64_t index_bytes = spec_.index_dtype == IndexType::Int32 ? 4 : 8;
        const uint64_t bytes = std::max({copy_.data_size * element_bytes, copy_.updates_size * element_bytes,
                                         copy_.output_size * element_bytes, copy_.indices_size * index_bytes});
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
               (empty_axis ? std::string(", none in range (an axis of size 0)")
                : copy_.components.size() > 1 ? ", tuples of " + std::to_string(copy_.components.size()) + " in " + bounds
                                              : ", each in " + bounds) + "\n";
        if (spec_.op == Op::ScatterND) out += " *   updates  " + dtype + " " + format_shape(spec_.updates_shape) + "\n";
        out += " *   output   " + dtype + " " + format_shape(spec_.output_shape) + "\n";
        out += " * " + copy_.formula + "\n";
        out += " * Negative indices count from the back of their axis.";
        if (spec_.op == Op::ScatterND) {
            out += "\n * Duplicate index tuples apply in the order of indices";
            out += copy_.reduction == Reduction::None ? " (the last one wins)." : ".";
            out += "\n * output may be the same pointer as data: the update is then made in place.";
        }
        return out;
    }

    std::string unroll_note() const {
        std::string setting;
        switch (spec_.unroll.kind) {
            case Unroll::Kind::Auto: setting = "auto"; break;
            case Unroll::Kind::Full: setting = "full"; break;
            case Unroll::Kind::None: setting = "none"; break;
            case Unroll::Kind::Factor: setting = std::to_string(spec_.unroll.factor); break;
        }
        std::string checks = ", no index checks";
        if (spec_.index_check == IndexCheck::Checked) {
            checks = check_straight() ? ", straight-line index checks" : ", a loop of index checks";
        }
        return "unroll " + setting + ": " + (straight_ ? "straight-line copies" : "loops over the index tuples") + checks;
    }

    // Static helpers the body calls: index wrapping, the range check, the reduction.
    std::string helpers() {
        CodeWriter w;
        if (copy_.copy_count() > 0) {
            w.line(spec_.index_check == IndexCheck::Checked
                       ? "/* An index already checked to lie in [-size, size-1], as an offset along its axis. */"
                       : "/* An index the caller guarantees to lie in [-size, size-1] (\"index_check\": \"none\"), as an offset along its axis. */");
            w.line("static " + offset_ + " " + spec_.name + "_wrap(" + index_ + " index, " + offset_ + " size)");
            w.open("");
            w.line("return index < 0 ? (" + offset_ + ")index + size : (" + offset_ + ")index;");
            w.close();
            w.blank();
        }
        if (any_condition()) {
            w.line("/* 1 when every index lies in [-s, s-1] for the size s of the axis it selects along, else 0. */");
            w.line("static int " + spec_.name + "_indices_in_range(const " + index_ + " *indices)");
            w.open("");
            check_body(w);
            w.close();
            w.blank();
        }
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
            w.line("static " + element_ + " " + spec_.name + "_combine(" + element_ + " current, " + element_ + " update)");
            w.open("");
            for (const auto& statement : reduction_body()) w.line(statement);
            w.close();
            w.blank();
        }
        return conversions + w.str();
    }

    void check_body(CodeWriter& w) const {
        const size_t k = copy_.components.size();
        for (const auto& component : copy_.components) {
            if (component.bound == 0) {
                w.line("/* Axis size 0: no index value is in range, and there are indices to check. */");
                w.line("(void)indices;");
                w.line("return 0;");
                return;
            }
        }
        auto emit_tuple = [&](const std::function<std::string(uint64_t)>& element) {
            for (size_t j = 0; j < k; ++j) {
                auto conditions = check_conditions(copy_.components[j], element(j));
                if (conditions.empty()) continue;
                std::string test;
                for (const auto& condition : conditions) test += (test.empty() ? "" : " || ") + condition;
                w.open("if (" + test + ")");
                w.line("return 0;");
                w.close();
            }
        };
        if (check_straight()) {
            for (uint64_t t = 0; t < copy_.tuple_count; ++t) {
                emit_tuple([&](uint64_t j) { return "indices[" + std::to_string(t * k + j) + "]"; });
            }
        } else {
            w.open("for (" + offset_ + " t = 0u; t < " + literal(copy_.tuple_count) + "; ++t)");
            if (k == 1) {
                w.line("const " + index_ + " index = indices[t];");
                emit_tuple([](uint64_t) { return std::string("index"); });
            } else {
                w.line("const " + index_ + " *tuple = &indices[t * " + literal(k) + "];");
                emit_tuple([](uint64_t j) { return "tuple[" + std::to_string(j) + "]"; });
            }
            w.close();
        }
        w.line("return 1;");
    }

    std::string half_prefix() const { return spec_.name + "_" + std::string(info(spec_.dtype).name); }

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
        const bool uses_indices_check = any_condition();
        const bool copies = copy_.copy_count() > 0;
        const bool data_copy = copy_.copy_data_first && copy_.data_size > 0;
        std::vector<std::string> unused;
        if (!(copies && copy_.indexed == IndexedCopy::Indexed::Source) && !data_copy) unused.push_back("data");
        if (!copies && !uses_indices_check) unused.push_back("indices");
        if (spec_.op == Op::ScatterND && !copies) unused.push_back("updates");
        if (!copies && !data_copy) unused.push_back("output");
        for (const auto& parameter : unused) w.line("(void)" + parameter + ";");
        if (uses_indices_check) {
            w.open("if (!" + spec_.name + "_indices_in_range(indices))");
            w.line("return " + macro_ + "_ERROR_INDEX_OUT_OF_RANGE;");
            w.close();
        }
        if (data_copy) {
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
            emit_level(w, level + 1, positions);
            w.close();
            return;
        }
        const uint64_t main = extent - extent % plan.factor;
        w.open("for (" + offset_ + " " + variable + " = 0u; " + variable + " < " + literal(main) + "; " + variable + " += " + literal(plan.factor) + ")");
        for (uint64_t j = 0; j < plan.factor; ++j) {
            positions[level] = Position{variable, j};
            emit_level(w, level + 1, positions);
        }
        w.close();
        for (uint64_t i = main; i < extent; ++i) {
            positions[level] = Position{"", i};
            emit_level(w, level + 1, positions);
        }
    }

    Affine offset(const std::vector<Position>& positions, uint64_t Loop::*stride) const {
        Affine out;
        for (size_t level = 0; level < positions.size(); ++level) {
            const uint64_t step = copy_.loops[level].*stride;
            if (!positions[level].variable.empty()) out.terms.emplace_back(positions[level].variable, step);
            out.constant += positions[level].offset * step;
        }
        return out;
    }

    void emit_copy(CodeWriter& w, const std::vector<Position>& positions) {
        const Affine tuple = offset(positions, &Loop::indices_stride);
        Affine source = offset(positions, &Loop::source_stride);
        Affine destination = offset(positions, &Loop::destination_stride);
        Affine& indexed = copy_.indexed == IndexedCopy::Indexed::Source ? source : destination;
        for (const auto& component : copy_.components) {
            indexed.terms.emplace_back(spec_.name + "_wrap(indices[" + tuple.plus(component.offset).str() + "], " +
                                           literal(component.bound) + ")",
                                       component.stride);
        }
        const uint64_t block = copy_.block;
        if (!reduce_ && block > 4) {
            w.line("memcpy(&output[" + destination.str() + "], &" + source_ + "[" + source.str() + "], " + literal(block) +
                   " * sizeof(" + element_ + "));");
            uses_memcpy_ = true;
            return;
        }
        const bool element_loop = reduce_ && block > 4 && !straight_;
        const bool scoped = block > 1 || reduce_;  // a reduction reads and writes the same place
        if (scoped) {
            // Name the indexed offset once for the elements of the block.
            w.open("");
            const std::string local = copy_.indexed == IndexedCopy::Indexed::Source ? "from" : "to";
            w.line("const " + offset_ + " " + local + " = " + indexed.str() + ";");
            indexed = Affine{{{local, 1}}, 0};
        }
        auto element = [&](const Affine& to, const Affine& from) {
            const std::string target = "output[" + to.str() + "]";
            const std::string value = source_ + "[" + from.str() + "]";
            w.line(target + " = " + (reduce_ ? spec_.name + "_combine(" + target + ", " + value + ")" : value) + ";");
        };
        if (element_loop) {
            w.open("for (" + offset_ + " e = 0u; e < " + literal(block) + "; ++e)");
            Affine to = destination, from = source;
            to.terms.emplace_back("e", 1);
            from.terms.emplace_back("e", 1);
            element(to, from);
            w.close();
        } else {
            for (uint64_t e = 0; e < block; ++e) element(destination.plus(e), source.plus(e));
        }
        if (scoped) w.close();
    }

    const KernelSpec& spec_;
    const IndexedCopy& copy_;
    std::string element_, index_, offset_, macro_, source_;
    bool reduce_ = false;
    bool straight_ = false;
    bool uses_memcpy_ = false;
    std::vector<LevelPlan> levels_;
};

}  // namespace

uint64_t full_unroll_statements(const IndexedCopy& copy, const KernelSpec& spec) {
    return copy.copy_count() * statements_per_copy(copy) + checked_values(copy, spec);
}

GeneratedKernel emit(const KernelSpec& spec, const IndexedCopy& copy) { return KernelEmitter(spec, copy).run(); }

}  // namespace kernelgen
