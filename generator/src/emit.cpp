#include "kernelgen/emit.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "kernelgen/code_writer.h"
#include "kernelgen/schedule.h"
#include "kernelgen/templates.h"
#include "kernelgen/version.h"

namespace kernelgen {
namespace {

using namespace schedule;

std::string literal(uint64_t value) { return std::to_string(value) + "u"; }

// Prints a kernel's schedule as C: every node one way, the text of the header from the spec.
class Printer {
public:
    Printer(const KernelSpec& spec, const IndexedCopy& copy) : spec_(spec), copy_(copy), schedule_(plan(spec, copy)) {
        element_ = std::string(info(spec.dtype).c_type);
        index_ = std::string(c_type(spec.index_dtype));
        offset_ = schedule_.wide_offsets ? "uint64_t" : "uint32_t";
        macro_ = macro_case(spec.name);
    }

    GeneratedKernel run() const {
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
        values.text["source_includes"] = schedule_.uses_memcpy ? "\n#include <string.h>\n" : "";
        GeneratedKernel out;
        out.header_name = spec_.name + ".h";
        out.source_name = spec_.name + ".c";
        out.header = render_template("kernel.h.mustache", values);
        out.source = render_template("kernel.c.mustache", values);
        return out;
    }

private:
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
        const uint64_t element = (spec_.dtype == DType::String ? 8 : info(spec_.dtype).bits / 8);
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
                   (schedule_.runs_straight ? "written out" : "copied from a table") +
                   (copy_.loops.empty() || schedule_.straight ? "" : " inside constant-bound loops");
        }
        std::string checks = ", no index checks";
        if (spec_.index_check == IndexCheck::Checked) {
            checks = schedule_.checks_straight ? ", straight-line index checks" : ", a loop of index checks";
        }
        const std::string prefetch = schedule_.prefetch_distance
                                         ? ", prefetch " + std::to_string(schedule_.prefetch_distance) + " tuples ahead"
                                         : "";
        return "unroll " + setting + ": " + (schedule_.straight ? "straight-line copies" : "loops over the index tuples") +
               checks + prefetch;
    }

    // --- helpers -----------------------------------------------------------------------------------------

    std::string helpers() const {
        const Helpers& helpers = schedule_.helpers;
        std::string conversions;
        if (helpers.half_to_float) {
            TemplateValues values;
            values.text["name"] = half_prefix();
            const std::string format(info(spec_.dtype).name);
            conversions = render_template(format + "_to_float.c.mustache", values);
            if (helpers.half_from_float) conversions += render_template(format + "_from_float.c.mustache", values);
        }
        CodeWriter w;
        if (helpers.wrap) wrap_helper(w, *helpers.wrap);
        if (helpers.prefetch) prefetch_helper(w, *helpers.prefetch);
        for (const RunTable& table : helpers.tables) run_table(w, table);
        if (helpers.combine) combine_helper(w, *helpers.combine);
        return conversions + w.str();
    }

    // For a power-of-two size s, an index in [-s, s-1] converted to unsigned has its offset in its low bits:
    // one AND instead of a test and an add. Only the forms the kernel's sizes need are written.
    void wrap_helper(CodeWriter& w, const WrapHelper& wrap) const {
        const std::string low_bits = wrap.any_power_of_two ? " (for a power-of-two size, its low bits)" : "";
        w.line(std::string("/* An index ") +
               (wrap.checked ? "already checked to lie in [-size, size-1]"
                             : "the caller guarantees to lie in [-size, size-1] (\"index_check\": \"none\")") +
               ", as an offset along its axis" + low_bits + ". */");
        const std::string masked = "return (" + offset_ + ")index & (size - 1u);";
        w.line("static " + offset_ + " " + helper("wrap") + "(" + index_ + " index, " + offset_ + " size)");
        w.open("");
        if (wrap.any_power_of_two && !wrap.all_power_of_two) {
            w.open("if ((size & (size - 1u)) == 0u)");
            w.line(masked);
            w.close();
        }
        w.line(wrap.all_power_of_two ? masked : "return index < 0 ? (" + offset_ + ")index + size : (" + offset_ + ")index;");
        w.close();
        w.blank();
    }

    void run_table(CodeWriter& w, const RunTable& table) const {
        const std::string type = "uint" + std::to_string(table.bits) + "_t";
        w.line("/* The " + table.role + " of the " + std::to_string(table.values.size()) +
               " copies, resolved from the constant indices. */");
        w.line("static const " + type + " " + helper(table.role) + "[" + std::to_string(table.values.size()) + "] = {");
        for (size_t r = 0; r < table.values.size(); r += 12) {
            std::string line;
            for (size_t i = r; i < std::min(table.values.size(), r + 12); ++i) {
                line += (i > r ? " " : "") + literal(table.values[i]) + ",";
            }
            w.line("    " + line);
        }
        w.line("};");
        w.blank();
    }

    void combine_helper(CodeWriter& w, const CombineHelper& combine) const {
        if (combine.fp_contract_off) {
            // C lets a compiler fuse a * b - c * d into one fused multiply-add, which rounds differently.
            w.line("/* Two rounded products per part, as ONNX's reference computes them: no fused multiply-add.");
            w.line(" * GCC ignores this pragma; it contracts only outside ISO modes (-std=gnu99 or");
            w.line(" * -ffp-contract=fast on a target with FMA), so build this file with -std=c99 there. */");
            w.line("#if !defined(__GNUC__) || defined(__clang__)");
            w.line("#pragma STDC FP_CONTRACT OFF");
            w.line("#endif");
        }
        w.line("/* The " + std::string(name(combine.reduction)) + " reduction: " + reduction_doc() + " */");
        w.line("static " + element_ + " " + helper("combine") + "(" + element_ + " current, " + element_ + " update)");
        w.open("");
        for (const auto& statement : reduction_body()) w.line(statement);
        w.close();
        w.blank();
    }

    // The hint itself: one __builtin_prefetch per cache line (GCC and Clang; PLD on Arm, PREFETCHT0 on x86),
    // nothing with other compilers. A scatter's block is about to be written (a reduction's, read and written).
    void prefetch_helper(CodeWriter& w, const PrefetchHelper& prefetch) const {
        const bool write = prefetch.write;
        const uint64_t lines_per_hint = prefetch.lines;
        const uint64_t bytes = lines_per_hint * kCacheLineBytes;
        const std::string lines = lines_per_hint == 1 ? "its first " + std::to_string(kCacheLineBytes) + "-byte line"
                                                       : "each " + std::to_string(kCacheLineBytes) + "-byte line of its first " +
                                                             std::to_string(bytes) + " bytes";
        w.line("/* Asks the cache for the block at `block`, which the copy " + std::to_string(prefetch.distance) +
               " tuples on will " + (write ? "write" : "read") + ": a hint for " + lines + ",");
        w.line(" * where the compiler has one (GCC, Clang); nothing elsewhere. The address lies inside the tensor. */");
        // Always inlined: GCC would otherwise find the function free of side effects (a prefetch is none to
        // it) and drop the calls to it.
        w.directive("#if defined(__GNUC__)");
        w.line("__attribute__((always_inline)) static inline void " + helper("prefetch") + "(const void *block)");
        w.open("");
        if (lines_per_hint > 1) w.line("const char *line = (const char *)block;");
        for (uint64_t l = 0; l < lines_per_hint; ++l) {
            const std::string at = lines_per_hint == 1 ? "block" : l == 0 ? "line" : "line + " + std::to_string(l * kCacheLineBytes);
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

    // --- the body ----------------------------------------------------------------------------------------

    std::string body() const {
        CodeWriter w(1);
        print(w, schedule_.body);
        return w.str();
    }

    static std::string tensor_name(Tensor tensor) {
        switch (tensor) {
            case Tensor::Data: return "data";
            case Tensor::Indices: return "indices";
            case Tensor::Updates: return "updates";
            case Tensor::Output: return "output";
        }
        return "";
    }

    static std::string view_name(const View& view) { return tensor_name(view.tensor) + (view.slice ? "_slice" : ""); }

    std::string term(const Term& term) const {
        switch (term.kind) {
            case Term::Kind::Variable: return term.name;
            case Term::Kind::WrappedIndex:
                return helper("wrap") + "(" + view_name(term.view) + "[" + expression(term.position.front()) + "], " +
                       literal(term.bound) + ")";
            case Term::Kind::TableEntry: return (term.widened ? "(" + offset_ + ")" : "") + helper(term.name) + "[r]";
        }
        return "";
    }

    // sum(term * coefficient) + constant, with literal coefficients.
    std::string expression(const Expr& expr) const {
        std::string out;
        for (const Term& t : expr.terms) {
            if (t.coefficient == 0) continue;
            out += (out.empty() ? "" : " + ") + term(t) + (t.coefficient == 1 ? "" : " * " + literal(t.coefficient));
        }
        if (expr.constant != 0 || out.empty()) out += (out.empty() ? "" : " + ") + literal(expr.constant);
        return out;
    }

    // An element count: a literal, or an expression in parentheses unless it is one table entry.
    std::string count(const Expr& expr) const {
        if (expr.terms.empty()) return literal(expr.constant);
        return expr.terms.front().kind == Term::Kind::Variable ? "(" + expression(expr) + ")" : expression(expr);
    }

    std::string access(const Access& at) const { return view_name(at.view) + "[" + expression(at.at) + "]"; }

    std::string error_return() const { return "return " + macro_ + "_ERROR_INDEX_OUT_OF_RANGE;"; }

    void print(CodeWriter& w, const Statements& statements) const {
        for (const Statement& statement : statements) std::visit([&](const auto& node) { print(w, node); }, statement.node);
    }

    void print(CodeWriter& w, const Comment& comment) const { w.line("/* " + comment.text + " */"); }

    void print(CodeWriter& w, const Unused& unused) const {
        for (Tensor tensor : unused.tensors) w.line("(void)" + tensor_name(tensor) + ";");
    }

    void print(CodeWriter& w, const Return& ret) const { w.line(ret.error ? error_return() : "return " + macro_ + "_OK;"); }

    std::string index_value(const IndexValue& value) const {
        switch (value.kind) {
            case IndexValue::Kind::Element: return "indices[" + std::to_string(value.position) + "]";
            case IndexValue::Kind::Local: return "index";
            case IndexValue::Kind::TupleElement: return "tuple[" + std::to_string(value.position) + "]";
        }
        return "";
    }

    void print(CodeWriter& w, const CheckIndices& checks) const {
        w.line("/* Every index is checked before anything is written. */");
        auto print_checks = [&](bool accumulate) {
            for (const Check& check : checks.checks) {
                const std::string value = index_value(check.value);
                const std::string below = value + " < -" + std::to_string(check.bound);
                const std::string above = value + " > " + std::to_string(check.bound - 1);
                if (accumulate) {
                    w.line("out_of_range |= (" + below + ") | (" + above + ");");
                } else {
                    w.open("if (" + below + " || " + above + ")");
                    w.line(error_return());
                    w.close();
                }
            }
        };
        if (!checks.loop) {
            print_checks(false);
            return;
        }
        if (checks.accumulate) w.line("int out_of_range = 0;");
        w.open("for (" + offset_ + " t = 0u; t < " + literal(checks.tuple_count) + "; ++t)");
        if (checks.tuple_length == 1) w.line("const " + index_ + " index = indices[t];");
        else w.line("const " + index_ + " *tuple = &indices[t * " + literal(checks.tuple_length) + "];");
        print_checks(checks.accumulate);
        w.close();
        if (checks.accumulate) {
            w.open("if (out_of_range)");
            w.line(error_return());
            w.close();
        }
    }

    void print(CodeWriter& w, const CopyData& copy) const {
        if (copy.element_loop) {
            w.line("/* output starts as a copy of data (element by element, so output == data is fine too). */");
            w.open("for (" + offset_ + " e = 0u; e < " + literal(copy.elements) + "; ++e)");
            w.line("output[e] = data[e];");
            w.close();
            return;
        }
        w.line("/* output starts as a copy of data; an in-place update (output == data) skips it. */");
        w.open("if (output != data)");
        w.line("memcpy(output, data, " + literal(copy.elements) + " * sizeof(" + element_ + "));");
        w.close();
    }

    void print(CodeWriter& w, const For& loop) const {
        const std::string& v = loop.variable;
        w.open("for (" + offset_ + " " + v + " = 0u; " + v + " < " + count(loop.end) + "; " +
               (loop.step == 1 ? "++" + v : v + " += " + literal(loop.step)) + ")");
        print(w, loop.body);
        w.close();
    }

    void print(CodeWriter& w, const Slice& slice) const {
        const std::string base = tensor_name(slice.tensor);
        const std::string type = slice.tensor == Tensor::Indices ? "const " + index_ + " *"
                                                                 : pointer_to_element(slice.tensor != Tensor::Output);
        w.line(type + base + "_slice = &" + base + "[" + expression(slice.at) + "];");
    }

    void print(CodeWriter& w, const Local& local) const {
        w.open("");
        w.line("const " + offset_ + " " + local.name + " = " + expression(local.value) + ";");
        print(w, local.body);
        w.close();
    }

    void print(CodeWriter& w, const PrefetchHint& hint) const {
        const std::string call = helper("prefetch") + "(&" + access(hint.block) + ");";
        if (hint.guard_variable.empty()) {
            w.line(call);
            return;
        }
        w.open("if (" + hint.guard_variable + " < " + literal(hint.guard_limit) + ")");
        w.line(call);
        w.close();
    }

    void print(CodeWriter& w, const BlockCopy& copy) const {
        w.line("memcpy(&" + access(copy.to) + ", &" + access(copy.from) + ", " + count(copy.length) + " * sizeof(" +
               element_ + "));");
    }

    void print(CodeWriter& w, const Assign& assign) const {
        const std::string target = access(assign.to), value = access(assign.from);
        w.line(target + " = " + (assign.combine ? helper("combine") + "(" + target + ", " + value + ")" : value) + ";");
    }

    std::string helper(const std::string& role) const { return helper_name(spec_.name, role); }
    // The float16/bfloat16 conversions' common beginning: "<helper>_to_float" and "<helper>_from_float".
    std::string half_prefix() const { return helper(std::string(info(spec_.dtype).name)); }

    const KernelSpec& spec_;
    const IndexedCopy& copy_;
    const Schedule schedule_;
    std::string element_, index_, offset_, macro_;
};

}  // namespace

const std::vector<std::string>& helper_roles() {
    static const std::vector<std::string> roles{
        "wrap",    "combine", "prefetch", "sources", "destinations", "lengths", "float16_to_float", "float16_from_float",
        "bfloat16_to_float", "bfloat16_from_float"};
    return roles;
}

std::string helper_name(const std::string& kernel, const std::string& role) { return "kernelgen_" + kernel + "_" + role; }

GeneratedKernel emit(const KernelSpec& spec, const IndexedCopy& copy) { return Printer(spec, copy).run(); }

}  // namespace kernelgen
