#include "codegen/print.h"

#include <algorithm>
#include <filesystem>

#include "codegen/code_writer.h"
#include "common/c_names.h"
#include "common/kernel_identifiers.h"
#include "codegen/schedule.h"
#include "codegen/templates.h"
#include "kernelgen/version.h"

namespace kernelgen {
namespace {

using namespace schedule;

std::string literal(uint64_t value) { return std::to_string(value) + "u"; }

// Prints a kernel's schedule as C: every node one way, the text of the header from the spec.
class Printer {
public:
    Printer(const KernelSpec& spec, const IndexedCopy& copy, const Schedule& schedule)
        : spec_(spec), copy_(copy), schedule_(schedule) {
        element_ = std::string(info(spec.dtype).c_type);
        index_ = std::string(c_type(spec.index_dtype));
        offset_ = schedule_.wide_offsets ? "uint64_t" : "uint32_t";
        macro_ = macro_case(spec.name);
    }

    GeneratedKernel run() const {
        TemplateValues values;
        values.text["version"] = KERNELGEN_VERSION_STRING;
        values.text["version_number"] = std::to_string(KERNELGEN_VERSION_NUMBER);
        values.text["spec_file"] = std::filesystem::path(spec_.spec_file).filename().string() +
                                   (spec_.pointer.empty() ? "" : " (" + spec_.pointer + ")");
        values.text["name"] = spec_.name;
        values.text["NAME"] = macro_;
        header_values(values);
        values.text["prototype"] = prototype();
        values.text["definition"] = prototype(true);
        values.text["unroll_note"] = unroll_note();
        values.text["helpers"] = helpers();
        values.text["body"] = body();
        values.flags["memcpy"] = schedule_.uses_memcpy;
        values.flags["double"] = spec_.dtype == DType::Float64 || spec_.dtype == DType::Complex128;
        size_guard(values);
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
        if (spec_.runtime_count) out += "uint32_t count, ";
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

    // The header's values: its includes, the size macros, and the contract comment.
    void header_values(TemplateValues& values) const {
        const DTypeInfo& type = info(spec_.dtype);
        values.flags["bool"] = type.id == DType::Bool;
        values.flags["complex"] = type.category == Category::Complex;
        values.text["element_type"] = std::string(type.c_type);
        auto& sizes = values.lists["sizes"];
        auto add = [&](const std::string& tensor, uint64_t count) {
            TemplateValues size;
            size.text["tensor"] = tensor;
            size.text["count"] = std::to_string(count);
            sizes.push_back(size);
        };
        add("DATA", copy_.data_size);
        add("INDICES", copy_.indices_size);
        if (is_scatter(spec_.op)) add("UPDATES", copy_.updates_size);
        add("OUTPUT", copy_.output_size);

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
        values.text["operator"] = std::string(name(spec_.op)) + attribute;
        values.text["dtype"] = std::string(type.name);
        values.text["index_dtype"] = std::string(name(spec_.index_dtype));
        values.text["data_shape"] = format_shape(spec_.data_shape);
        values.text["indices_shape"] = format_shape(spec_.indices_shape);
        values.text["updates_shape"] = format_shape(spec_.updates_shape);
        values.text["output_shape"] = format_shape(spec_.output_shape);
        values.text["indices_note"] = indices_note();
        values.text["formula"] = copy_.formula;
        values.flags["scatter"] = is_scatter(spec_.op);
        values.text["duplicates"] =
            std::string(spec_.op == Op::ScatterND ? "Duplicate index tuples apply in the order of indices"
                                                  : "Updates that meet at one position apply in the (row-major) order of updates") +
            (copy_.reduction == Reduction::None ? " (the last one wins)." : ".");
        values.flags["constant"] = spec_.constant_indices.has_value();
        values.flags["runtime_count"] = spec_.runtime_count;
        values.text["max_count"] = std::to_string(copy_.count_bound);
        values.flags["data_rows"] = spec_.count_leads == CountLeads::Data;
        values.text["counted"] = spec_.count_leads == CountLeads::Data ? "data and output"
                                 : is_scatter(spec_.op)                  ? "indices and updates"
                                                                         : "indices and output";
        values.flags["checked"] = !spec_.constant_indices && spec_.index_check == IndexCheck::Checked;
        values.flags["unchecked"] = !spec_.constant_indices && spec_.index_check == IndexCheck::None;
    }

    // A kernel whose tensors cannot exist on a target refuses to compile there, rather than truncating sizes
    // silently: wherever they could pass the least SIZE_MAX C99 allows (65535, a 16-bit size_t).
    void size_guard(TemplateValues& values) const {
        const uint64_t element = (spec_.dtype == DType::String ? 8 : info(spec_.dtype).bits / 8);
        const uint64_t index_bytes = spec_.index_dtype == IndexType::Int32 ? 4 : 8;
        const uint64_t bytes = std::max({copy_.data_size * element, copy_.updates_size * element,
                                         copy_.output_size * element, copy_.indices_size * index_bytes});
        values.flags["size_guard"] = bytes > 65535;
        values.text["largest_bytes"] = std::to_string(bytes);
    }

    // What the contract says of the indices after their shape: the values when constant, else each one's range.
    std::string indices_note() const {
        if (spec_.constant_indices) return constant_indices_note();
        std::string bounds;
        bool empty_axis = false;
        for (const auto& component : copy_.components) {
            empty_axis = empty_axis || component.bound == 0;
            bounds += (bounds.empty() ? "" : ", ") + std::string("[-") + std::to_string(component.bound) + ", " +
                      std::to_string(static_cast<int64_t>(component.bound) - 1) + "]";
        }
        if (empty_axis) return ", none in range (an axis of size 0)";
        return copy_.components.size() > 1 ? ", tuples of " + std::to_string(copy_.components.size()) + " in " + bounds
                                           : ", each in " + bounds;
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
        const std::string count_loop = "a loop over the run-time count of " +
                                       std::string(spec_.count_leads == CountLeads::Data ? "data" : "index") +
                                       " rows (at most " + std::to_string(copy_.count_bound) + ")";
        if (copy_.runs) {
            const std::string runs = std::to_string(copy_.runs->size()) + (copy_.runs->size() == 1 ? " run" : " runs");
            return "unroll " + setting + ": constant indices resolved into " + runs + ", " +
                   (schedule_.runs_straight ? "written out" : "copied from a table") +
                   (copy_.loops.empty() || schedule_.straight ? ""
                    : spec_.runtime_count                     ? " inside " + count_loop
                                                              : " inside constant-bound loops");
        }
        std::string checks = ", no index checks";
        if (spec_.index_check == IndexCheck::Checked) {
            checks = schedule_.checks_straight ? ", straight-line index checks" : ", a loop of index checks";
        }
        const std::string prefetch = schedule_.prefetch_distance
                                         ? ", prefetch " + std::to_string(schedule_.prefetch_distance) + " tuples ahead"
                                         : "";
        const std::string copies = spec_.runtime_count ? count_loop
                                   : schedule_.straight ? "straight-line copies"
                                                        : "loops over the index tuples";
        return "unroll " + setting + ": " + copies + checks + prefetch;
    }

    // --- helpers -----------------------------------------------------------------------------------------

    // The kernel's own helpers (helpers.c.mustache): each section present when the schedule has the helper.
    std::string helpers() const {
        const Helpers& helpers = schedule_.helpers;
        TemplateValues values;
        auto& prefetch = values.lists["prefetch"];
        if (helpers.prefetch) prefetch.push_back(prefetch_values(*helpers.prefetch));
        auto& tables = values.lists["tables"];
        for (const RunTable& table : helpers.tables) tables.push_back(table_values(table));
        auto& combine = values.lists["combine"];
        if (helpers.combine) {
            TemplateValues item;
            item.flags["fp_contract_off"] = helpers.combine->fp_contract_off;
            item.text["reduction"] = std::string(name(helpers.combine->reduction));
            item.text["doc"] = reduction_doc();
            item.text["element"] = element_;
            item.text["helper"] = helper("combine");
            for (const auto& statement : reduction_body()) item.lists["statements"].push_back(TemplateValues{{{"statement", statement}}, {}, {}});
            combine.push_back(item);
        }
        return render_template("helpers.c.mustache", values);
    }

    // The hint itself: one __builtin_prefetch per cache line (GCC and Clang; PLD on Arm, PREFETCHT0 on x86),
    // nothing with other compilers. Always inlined: GCC would otherwise find the function free of side effects
    // (a prefetch is none to it) and drop the calls to it. A scatter's block is about to be written (a
    // reduction's, read and written).
    TemplateValues prefetch_values(const PrefetchHelper& prefetch) const {
        TemplateValues values;
        const uint64_t bytes = prefetch.lines * kCacheLineBytes;
        values.text["distance"] = std::to_string(prefetch.distance);
        values.text["access"] = prefetch.write ? "write" : "read";
        values.text["lines"] = prefetch.lines == 1 ? "its first " + std::to_string(kCacheLineBytes) + "-byte line"
                                                   : "each " + std::to_string(kCacheLineBytes) + "-byte line of its first " +
                                                         std::to_string(bytes) + " bytes";
        values.text["helper"] = helper("prefetch");
        values.flags["line_pointer"] = prefetch.lines > 1;
        for (uint64_t l = 0; l < prefetch.lines; ++l) {
            TemplateValues hint;
            hint.text["at"] = prefetch.lines == 1 ? "block" : l == 0 ? "line" : "line + " + std::to_string(l * kCacheLineBytes);
            hint.text["write"] = prefetch.write ? ", 1" : "";
            values.lists["hints"].push_back(hint);
        }
        return values;
    }

    // A table of constant runs, twelve entries a row.
    TemplateValues table_values(const RunTable& table) const {
        TemplateValues values;
        values.text["role"] = table.role;
        values.text["count"] = std::to_string(table.values.size());
        values.text["type"] = "uint" + std::to_string(table.bits) + "_t";
        values.text["helper"] = helper(table.role);
        for (size_t r = 0; r < table.values.size(); r += 12) {
            std::string row;
            for (size_t i = r; i < std::min(table.values.size(), r + 12); ++i) {
                row += (i > r ? " " : "") + literal(table.values[i]) + ",";
            }
            values.lists["rows"].push_back(TemplateValues{{{"row", row}}, {}, {}});
        }
        return values;
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
            case Term::Kind::Count: return schedule_.wide_offsets ? "(uint64_t)count" : "count";
            case Term::Kind::WrappedIndex:
                return "kernelgen_wrap_" + std::string(spec_.index_dtype == IndexType::Int32 ? "i32" : "i64") +
                       (schedule_.wide_offsets ? "_u64(" : "_u32(") + view_name(term.view) + "[" + expression(term.position.front()) + "], " +
                       literal(term.bound) + ")";
            case Term::Kind::TableEntry: return (term.widened ? "(" + offset_ + ")" : "") + table_entry(term);
        }
        return "";
    }

    // Entry r of a table of constant runs, read through kernelgen_support.h's macro (from flash on AVR).
    std::string table_entry(const Term& term) const {
        return "KERNELGEN_TABLE_U" + std::to_string(term.bits) + "(" + helper(term.name) + ", r)";
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

    // The checks (index_checks.c.mustache): written out, or one loop over the tuples.
    void print(CodeWriter& w, const CheckIndices& checks) const {
        TemplateValues values;
        values.text["NAME"] = macro_;
        values.text["offset"] = offset_;
        values.text["index"] = index_;
        values.text["end"] = count(checks.tuple_end);
        values.text["length"] = std::to_string(checks.tuple_length);
        values.flags["single"] = checks.tuple_length == 1;
        values.flags["accumulate"] = checks.accumulate;
        std::vector<TemplateValues> each;
        for (const Check& check : checks.checks) {
            TemplateValues item;
            item.text["value"] = index_value(check.value);
            item.text["bound"] = std::to_string(check.bound);
            item.text["last"] = std::to_string(check.bound - 1);
            each.push_back(item);
        }
        values.lists["written_out"] = checks.loop ? std::vector<TemplateValues>{} : each;
        values.lists["checks"] = each;
        values.lists["loop"] = checks.loop ? std::vector<TemplateValues>{TemplateValues{}} : std::vector<TemplateValues>{};
        w.raw(render_template("index_checks.c.mustache", values));
    }

    void print(CodeWriter& w, const CheckCount&) const {
        const std::string rows = copy_.count_leads == CountLeads::Data ? "data and output" : "indices";
        w.line("/* count rows of " + rows + ", at most " + macro_ + "_MAX_COUNT; nothing is read or written beyond them. */");
        w.open("if (count > " + macro_ + "_MAX_COUNT)");
        w.line("return " + macro_ + "_ERROR_COUNT_OUT_OF_RANGE;");
        w.close();
    }

    // A scatter's output starting as a copy of data (copy_data.c.mustache).
    void print(CodeWriter& w, const CopyData& copy) const {
        TemplateValues values;
        values.flags["element_loop"] = copy.element_loop;
        values.text["offset"] = offset_;
        values.text["count"] = std::to_string(copy.elements);
        values.text["element"] = element_;
        w.raw(render_template("copy_data.c.mustache", values));
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

    // A literal count, or one computed at run time converted to size_t first: the offset type may be wider
    // than size_t (32-bit offsets where size_t has 16 bits), and the size guard keeps every count within it.
    void print(CodeWriter& w, const BlockCopy& copy) const {
        const Expr& length = copy.length;
        const bool one_entry = length.terms.size() == 1 && length.constant == 0 &&
                               length.terms.front().kind == Term::Kind::TableEntry && length.terms.front().coefficient == 1;
        const std::string elements = length.terms.empty() ? literal(length.constant)
                                     : one_entry ? "(size_t)" + table_entry(length.terms.front())
                                                 : "(size_t)" + count(length);
        w.line("memcpy(&" + access(copy.to) + ", &" + access(copy.from) + ", " + elements + " * sizeof(" + element_ + "));");
    }

    void print(CodeWriter& w, const Assign& assign) const {
        const std::string target = access(assign.to), value = access(assign.from);
        w.line(target + " = " + (assign.combine ? helper("combine") + "(" + target + ", " + value + ")" : value) + ";");
    }

    std::string helper(const std::string& role) const { return helper_name(spec_.name, role); }
    // The shared float16/bfloat16 conversions' common beginning: "<prefix>_to_float" and "<prefix>_from_float".
    std::string half_prefix() const { return "kernelgen_" + std::string(info(spec_.dtype).name); }

    const KernelSpec& spec_;
    const IndexedCopy& copy_;
    const Schedule& schedule_;
    std::string element_, index_, offset_, macro_;
};

}  // namespace

GeneratedKernel print_kernel(const KernelSpec& spec, const IndexedCopy& copy, const Schedule& schedule) {
    return Printer(spec, copy, schedule).run();
}

GeneratedKernel print_support() {
    TemplateValues values;
    values.text["version"] = KERNELGEN_VERSION_STRING;
    values.text["version_number"] = std::to_string(KERNELGEN_VERSION_NUMBER);
    // The index wrap for each index type (int32, int64) and offset type (uint32, uint64).
    for (const char* offset : {"32", "64"}) {
        for (const char* index : {"32", "64"}) {
            values.lists["wraps"].push_back(TemplateValues{{{"name", std::string("i") + index + "_u" + offset},
                                                            {"index", std::string("int") + index + "_t"},
                                                            {"offset", std::string("uint") + offset + "_t"}},
                                                           {},
                                                           {}});
        }
    }
    return GeneratedKernel{kSupportHeader, render_template("kernelgen_support.h.mustache", values), kSupportSource,
                           render_template("kernelgen_support.c.mustache", values)};
}

}  // namespace kernelgen
