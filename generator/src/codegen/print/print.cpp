#include "codegen/print/print.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "codegen/plan/weights.h"
#include "codegen/print/code_writer.h"
#include "codegen/print/reductions.h"
#include "codegen/print/templates.h"
#include "common/kernel_identifiers.h"
#include "kernelgen/version.h"

namespace kernelgen {
namespace {

using namespace schedule;

std::string literal(uint64_t value) { return std::to_string(value) + "u"; }

// Prints a kernel's schedule as C: every node one way; the header's contract comes with the kernel's face, and
// the reductions' C (reductions.h) from its own table.
class Printer {
public:
    explicit Printer(const Schedule& schedule)
        : schedule_(schedule), face_(schedule.face), ids_(schedule.face.ids), name_(schedule.face.ids.function) {
        element_ = face_.element;
        index_ = face_.index;
        offset_ = schedule_.wide_offsets ? "uint64_t" : "uint32_t";
    }

    GeneratedKernel run() const {
        TemplateValues values = face_.contract;
        values.text["version"] = KERNELGEN_VERSION_STRING;
        values.text["version_number"] = std::to_string(KERNELGEN_VERSION_NUMBER);
        values.text["spec_file"] = face_.banner_source;
        values.text["name"] = name_;
        values.text["definition"] = face_.prototype(true);
        values.text["unroll_note"] = schedule_.note;
        values.text["helpers"] = helpers();
        values.text["body"] = body();
        values.flags["memcpy"] = schedule_.uses_memcpy;
        values.flags["double"] = face_.element_is_double;
        values.flags["size_guard"] = schedule_.size_guard_bytes != 0;
        values.text["largest_bytes"] = std::to_string(schedule_.size_guard_bytes);
        const DataFile& file = schedule_.data_file;
        values.flags["data_table"] = file.declared_bytes() > 0;
        values.text["tables_what"] = file.tables_what;
        values.text["data_name"] = data_include_name(name_);
        values.text["data_bytes"] = std::to_string(file.declared_bytes());
        values.flags["avr_guard"] = file.avr_guard();
        GeneratedKernel out;
        out.header_name = name_ + ".h";
        out.source_name = name_ + ".c";
        out.header = render_template("kernel.h.mustache", values);
        out.source = render_template("kernel.c.mustache", values);
        if (file.written) {  // whenever the spec gives a constant tensor (build rules name the file)
            out.data_name = data_include_name(name_);
            out.data = print_data_file(file, values);
        }
        return out;
    }

private:
    // --- helpers -----------------------------------------------------------------------------------------

    // The kernel's own helpers (helpers.c.mustache): each section present when the schedule has the helper.
    std::string helpers() const {
        const Helpers& helpers = schedule_.helpers;
        TemplateValues values;
        auto& prefetch = values.lists["prefetch"];
        if (helpers.prefetch) prefetch.push_back(prefetch_values(*helpers.prefetch));
        auto& tables = values.lists["tables"];
        for (const RunTable& table : helpers.tables) tables.push_back(table_values(table));
        auto& checks = values.lists["checks"];
        if (helpers.checks) {
            for (size_t p = 0; p < helpers.checks->parts.size(); ++p) {
                checks.push_back(check_helper_values(helpers.checks->parts[p], *helpers.checks, p));
            }
            checks.push_back(check_helper_values(*helpers.checks, *helpers.checks, std::nullopt));
        }
        auto& combine = values.lists["combine"];
        if (helpers.combine) {
            TemplateValues item;
            item.flags["fp_contract_off"] = helpers.combine->fp_contract_off;
            item.text["reduction"] = std::string(name(helpers.combine->reduction));
            item.text["doc"] = reduction_doc(schedule_.element, helpers.combine->reduction);
            item.text["element"] = element_;
            item.text["helper"] = helper("combine");
            for (const auto& statement : reduction_statements(schedule_.element, helpers.combine->reduction)) {
                item.lists["statements"].push_back(TemplateValues{{{"statement", statement}}, {}, {}});
            }
            combine.push_back(item);
        }
        return render_template("helpers.c.mustache", values) + (helpers.row_function ? row_function(*helpers.row_function) : "") +
               (helpers.copies.empty() ? "" : copy_helpers());
    }

    // The copy helpers (schedule::CopyHelper): each takes the kernel's parameters, those its copies do not read
    // cast to void.
    std::string copy_helpers() const {
        const std::vector<CopyHelper>& copies = schedule_.helpers.copies;
        TemplateValues values;
        for (size_t h = 0; h < copies.size(); ++h) {
            CodeWriter w(1);
            print(w, copies[h].body);
            const std::string body = w.str();
            std::string unused;
            for (const Parameter& parameter : face_.parameters) {
                if (!std::regex_search(body, std::regex("\\b" + parameter.name + "\\b"))) unused += "    (void)" + parameter.name + ";\n";
            }
            TemplateValues item;
            item.flags["first"] = h == 0;
            item.text["count"] = std::to_string(copies.size());
            item.text["each"] = std::to_string(kHelperStatements);
            item.text["contract"] = schedule_.helpers.copies_contract;
            item.text["helper"] = copy_helper_name(h);
            item.text["parameters"] = face_.parameter_list(true);
            item.text["body"] = unused + body;
            values.lists["helpers"].push_back(std::move(item));
        }
        return render_template("copy_helpers.c.mustache", values);
    }

    std::string copy_helper_name(size_t helper) const { return helper_name(name_, "copies_" + std::to_string(helper)); }

    // The check helper (schedule::CheckHelper): its contract, what the body's call relies on, and the checks.
    TemplateValues check_helper_values(const CheckHelper& helper, const CheckHelper& whole, std::optional<size_t> part) const {
        TemplateValues values;
        values.flags["whole"] = !part;
        values.flags["first_part"] = part && *part == 0;
        values.text["helper"] = check_helper_name(part);
        values.text["index"] = index_;
        values.text["count"] = std::to_string(helper.checks.checks.size());
        values.text["parts"] = std::to_string(whole.parts.size());
        values.text["each"] = std::to_string(kHelperStatements);
        values.text["last"] = std::to_string(whole.values - 1);
        values.text["ok"] = ids_.ok;
        values.text["error_index"] = ids_.error_index;
        values.text["in_range"] = acsl_all_in_range(helper.components, std::to_string(helper.values), schedule_.index_type,
                                                    std::to_string(helper.first));
        CodeWriter w(1);
        if (!part && !helper.parts.empty()) {
            for (size_t p = 0; p < helper.parts.size(); ++p) {
                w.open("if (" + check_helper_name(p) + "(indices) != " + ids_.ok + ")");
                w.line("return " + ids_.error_index + ";");
                w.close();
            }
        } else {
            in_check_helper_ = true;
            print(w, helper.checks);
            in_check_helper_ = false;
        }
        values.text["body"] = w.str();
        return values;
    }

    // The check helper, or its part `part`.
    std::string check_helper_name(std::optional<size_t> part) const {
        return helper_name(name_, part ? "checks_" + std::to_string(*part) : "checks");
    }

    // A row function (row_function.c.mustache): its comment and value reader from the lowering, its body printed.
    std::string row_function(const RowFunction& function) const {
        TemplateValues values = function.head;
        values.text["offset"] = offset_;
        CodeWriter w(1);
        row_function_ = &function;
        print(w, function.body);
        row_function_ = nullptr;
        values.text["body"] = w.str();
        return render_template("row_function.c.mustache", values);
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
        // The block as the tensor's own elements (a pointer to strings converted to `const void *` is a cast WP
        // cannot follow); in a table the kernel holds, whose elements are bit patterns, any bytes.
        values.text["block_type"] = is_table(View{Tensor::Data}) ? "const void *" : face_.pointer_to_element(true);
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

    static std::string view_name(const View& view) {
        if (view.row) return row_name(view.tensor);
        return tensor_name(view.tensor) + (view.slice ? "_slice" : "");
    }

    // Constant data: the table, read by offsets (on AVR with more than 64 KB of flash, a far address and an
    // element offset; a C pointer could not reach it), its slice an offset too.
    bool is_table(const View& view) const {
        return (view.tensor == Tensor::Data && schedule_.data_table) || (view.tensor == Tensor::Updates && schedule_.updates_table);
    }
    std::string table_offset(const Access& at) const {
        return at.view.slice ? view_name(at.view) + " + " + expression(at.at) : expression(at.at);
    }
    std::string table_name(const View& view) const { return helper(tensor_name(view.tensor)); }

    std::string term(const Term& term) const {
        switch (term.kind) {
            case Term::Kind::Variable: return term.name;
            case Term::Kind::Quotient:  // parenthesized before its coefficient
                return (term.coefficient == 1 ? "" : "(") + term.name + " / " + literal(term.divisor) +
                       (term.coefficient == 1 ? "" : ")");
            case Term::Kind::Count: return schedule_.wide_offsets ? "(uint64_t)count" : "count";
            case Term::Kind::WrappedIndex: {  // an int64 index by its address (kernelgen_support.h reads its low word)
                const bool int32 = schedule_.index_type == IndexType::Int32;
                // A size passed at run time takes kernelgen_wrap_count_*, by the low word, up to a bound of 2^31; above,
                // the general wrap, which the size's full width decides.
                const bool by_count = !term.bound_parameter.empty() && term.bound <= (uint64_t{1} << 31);
                const std::string kind = term.addend ? "plus_" : by_count ? "count_" : "";
                return "kernelgen_wrap_" + kind + (int32 ? "i32" : "i64") +
                       (schedule_.wide_offsets ? "_u64(" : "_u32(") + (int32 ? "" : "&") + view_name(term.view) + "[" +
                       expression(term.position.front()) + "], " + (term.addend ? signed_sum(*term.addend) + ", " : "") +
                       (term.bound_parameter.empty() ? literal(term.bound) : term.bound_parameter) + ")";
            }
            case Term::Kind::TableEntry: return (term.widened ? "(" + offset_ + ")" : "") + table_entry(term);
            case Term::Kind::CheckedIndex:
                return "(" + offset_ + ")" + view_name(term.view) + "[" + expression(term.position.front()) + "]";
            case Term::Kind::CircularIndex:
                return "kernelgen_circular_" + std::string(schedule_.index_type == IndexType::Int32 ? "i32" : "i64") +
                       (schedule_.wide_offsets ? "_u64(" : "_u32(") + view_name(term.view) + "[" + expression(term.position.front()) +
                       "], " + expression(term.position.back()) + ", " + literal(term.bound) + ")";
        }
        return "";
    }

    // An int64_t value: the constant added to an index, `(int64_t)i1 * 3 - 5`.
    static std::string signed_sum(const SignedSum& sum) {
        std::string out;
        for (const auto& [name, coefficient] : sum.terms) {
            const uint64_t size = coefficient < 0 ? 0 - static_cast<uint64_t>(coefficient) : static_cast<uint64_t>(coefficient);
            out += (out.empty() ? (coefficient < 0 ? "-" : "") : (coefficient < 0 ? " - " : " + ")) + std::string("(int64_t)") +
                   name + (size == 1 ? "" : " * " + std::to_string(size));
        }
        if (sum.constant != 0 || out.empty()) {
            const uint64_t size = sum.constant < 0 ? 0 - static_cast<uint64_t>(sum.constant) : static_cast<uint64_t>(sum.constant);
            out += (out.empty() ? (sum.constant < 0 ? "-" : "") : (sum.constant < 0 ? " - " : " + ")) + std::to_string(size);
        }
        return out;
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
            out += (out.empty() ? "" : " + ") + term(t) + (t.factor.empty() ? "" : " * " + t.factor) +
                   (t.coefficient == 1 ? "" : " * " + literal(t.coefficient));
        }
        if (expr.constant != 0 || out.empty()) out += (out.empty() ? "" : " + ") + literal(expr.constant);
        return out;
    }

    // An element count: a literal, or an expression in parentheses unless it is one table entry.
    std::string count(const Expr& expr) const {
        if (expr.terms.empty()) return literal(expr.constant);
        return expr.terms.front().kind == Term::Kind::Variable ? "(" + expression(expr) + ")" : expression(expr);
    }

    std::string access(const Access& at) const {
        if (is_table(at.view)) return table_name(at.view) + "[" + table_offset(at) + "]";
        return view_name(at.view) + "[" + expression(at.at) + "]";
    }

    std::string error_return() const { return "return " + ids_.error_index + ";"; }

    void print(CodeWriter& w, const Statements& statements) const {
        const std::set<std::string> outer = shared_index_values_;
        shared_index_values_ = shared_index_values(statements);
        for (const Statement& statement : statements) std::visit([&](const auto& node) { print(w, node); }, statement.node);
        shared_index_values_ = outer;
    }

    // The index values (as printed) of an element assignment: its offsets' wrapped and checked index terms.
    std::vector<std::string> index_values(const Assign& assign) const {
        std::vector<std::string> values;
        for (const Access* access : {&assign.to, &assign.from}) {
            for (const Term& term : access->at.terms) {
                if (term.kind != Term::Kind::WrappedIndex && term.kind != Term::Kind::CheckedIndex) continue;
                Term alone = term;
                alone.coefficient = 1;
                values.push_back(expression(Expr{{alone}, 0}));
            }
        }
        return values;
    }

    // The index values that more than one element assignment of `statements` reads.
    std::set<std::string> shared_index_values(const Statements& statements) const {
        std::map<std::string, int> uses;
        for (const Statement& statement : statements) {
            if (const auto* assign = std::get_if<Assign>(&statement.node)) {
                for (const std::string& value : index_values(*assign)) ++uses[value];
            }
        }
        std::set<std::string> shared;
        for (const auto& [value, count] : uses) {
            if (count > 1) shared.insert(value);
        }
        return shared;
    }

    // A float element copied as a word (KERNELGEN_MOVE_F32): where its offset holds an index value that no other
    // assignment beside it reads. Where one does, gcc computes the address once for all of them, and the word's
    // register-offset load would only add to it (doc_gather_axis1: 4 bytes more on Cortex-M4F).
    bool moved_as_word(const Assign& assign) const {
        if (assign.combine || element_ != "float") return false;
        const std::vector<std::string> values = index_values(assign);
        return !values.empty() && std::none_of(values.begin(), values.end(), [&](const std::string& value) {
            return shared_index_values_.count(value) != 0;
        });
    }

    void print(CodeWriter& w, const Comment& comment) const { w.line("/* " + comment.text + " */"); }

    void print(CodeWriter& w, const ConstantIndices& constant) const {
        w.line("/* " + constant.comment + " */");
        w.open("static const " + index_ + " indices[" + std::to_string(constant.values.size()) + "] =");
        for (size_t r = 0; r < constant.values.size(); r += 12) {
            std::string row;
            for (size_t i = r; i < std::min(constant.values.size(), r + 12); ++i) {
                row += (i > r ? " " : "") + std::to_string(constant.values[i]) + ",";
            }
            w.line(row);
        }
        w.close(";");
    }

    void print(CodeWriter& w, const Unused& unused) const {
        for (Tensor tensor : unused.tensors) w.line("(void)" + tensor_name(tensor) + ";");
    }

    void print(CodeWriter& w, const Return& ret) const { w.line(ret.error ? error_return() : "return " + ids_.ok + ";"); }

    void print(CodeWriter& w, const CopyCall& call) const { w.line(copy_helper_name(call.helper) + "(" + face_.argument_list() + ");"); }

    std::string index_value(const IndexValue& value) const {
        switch (value.kind) {
            case IndexValue::Kind::Element: return "indices[" + std::to_string(value.position) + "]";
            case IndexValue::Kind::Local: return "index";
            case IndexValue::Kind::TupleElement: return "tuple[" + std::to_string(value.position) + "]";
        }
        return "";
    }

    // An int64_t literal in C: INT64_MIN has none of its own.
    static std::string int64_literal(int64_t value) {
        return value == INT64_MIN ? "INT64_MIN" : std::to_string(value);
    }

    // The address of an index value: a loop's local `index` is indices[t].
    std::string index_address(const IndexValue& value) const {
        return value.kind == IndexValue::Kind::Local ? "&indices[t]" : "&" + index_value(value);
    }

    // The checks (index_checks.c.mustache): written out, or one loop over the tuples.
    void print(CodeWriter& w, const CheckIndices& checks) const {
        if (checks.by_helper) {
            w.line("/* Every index is checked before anything is written. */");
            w.open("if (" + check_helper_name(std::nullopt) + "(indices) != " + ids_.ok + ")");
            w.line("return " + ids_.error_index + ";");
            w.close();
            return;
        }
        TemplateValues values;
        values.flags["comment"] = !in_check_helper_;
        values.text["error_index"] = ids_.error_index;
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
            // A size passed at run time (at most a uint32_t) compares in int64_t, which holds it and every index. A
            // write index: from 0, to the buffer's size less the sequence's (linear) or without end.
            const IndexComponent& range = check.component;
            const bool onnx = range.kind == IndexComponent::Kind::Wrapped;
            const std::string& size = range.bound_parameter;
            item.text["low"] = !onnx ? "0" : !size.empty() ? "-(int64_t)" + size : "-" + std::to_string(range.bound);
            item.flags["has_low"] = true;
            item.flags["has_last"] = range.kind != IndexComponent::Kind::Circular;
            item.text["last"] = !onnx ? std::to_string(range.last)
                                : !size.empty() ? "(int64_t)" + size + " - 1" : std::to_string(range.bound - 1);
            // Constants added: the range shifted, an end the type's own not compared.
            const bool is_shifted = onnx && range.shifted();
            const CheckedRange shifted = is_shifted ? checked_range(range, schedule_.index_type) : CheckedRange{};
            if (is_shifted) {
                item.text["low"] = int64_literal(shifted.low);
                item.text["last"] = int64_literal(shifted.high);
                item.flags["has_low"] = !shifted.low_free;
                item.flags["has_last"] = !shifted.high_free;
            }
            // The support header's test (Check::by_words, by_count); in a loop that gathers one flag, the branch-free
            // form of the literal size's, which returns the failure as bits.
            const std::string test = checks.accumulate ? "kernelgen_outside_i64_bits(" : "kernelgen_outside_i64(";
            const bool int64 = schedule_.index_type == IndexType::Int64;
            auto by_range = [&]() {  // the shifted range's low end and its span
                return std::string(checks.accumulate ? "kernelgen_outside_range_i64_bits(" : "kernelgen_outside_range_i64(") +
                       index_address(check.value) + ", " + int64_literal(shifted.low) + ", " +
                       literal(static_cast<uint64_t>(shifted.high - shifted.low)) + ")";
            };
            item.text["outside"] =
                check.by_words   ? test + index_address(check.value) + ", " + literal(range.bound) + ")"
                : check.by_range && is_shifted ? by_range()
                : !check.by_count ? ""
                : int64 ? "kernelgen_outside_count_i64(" + index_address(check.value) + ", " + size + ")"
                        : "kernelgen_outside_count_i32(" + index_value(check.value) + ", " + size + ")";
            item.flags["by_function"] = check.by_words || check.by_count || check.by_range;
            item.flags["reads_value"] = !(check.by_words || check.by_range || (check.by_count && int64));
            each.push_back(item);
        }
        // The loop's local `index`, unless every check reads the value through its address.
        values.flags["local"] = std::any_of(each.begin(), each.end(), [](const TemplateValues& item) { return item.flags.at("reads_value"); });
        // The check loop's invariant for Frama-C: every value of the tuples before t in its range (index
        // values k of the tuples, k % length the value's place in its tuple).
        std::vector<TupleValue> tuple;
        for (const Check& check : checks.checks) {
            tuple.push_back({check.value.kind == IndexValue::Kind::TupleElement ? check.value.position : 0, &check.component});
        }
        const std::string in_range = acsl_values_in_range(tuple, checks.tuple_length, schedule_.index_type);
        const std::string values_before = checks.tuple_length <= 1 ? "t" : "t * " + std::to_string(checks.tuple_length);
        const std::string all_before = "\\forall integer k; 0 <= k < " + values_before + " ==> " + (in_range.empty() ? "\\true" : in_range);
        values.text["invariant"] = checks.accumulate ? "out_of_range == 0 <==> (" + all_before + ")" : all_before;
        values.text["loop_assigns"] = checks.accumulate ? "t, out_of_range" : "t";
        values.lists["written_out"] = checks.loop ? std::vector<TemplateValues>{} : each;
        values.lists["checks"] = each;
        values.lists["loop"] = checks.loop && !checks.ored_bound ? std::vector<TemplateValues>{TemplateValues{}}
                                                                 : std::vector<TemplateValues>{};
        TemplateValues ored;
        ored.text["bound"] = std::to_string(checks.ored_bound);
        ored.text["last"] = std::to_string(2 * checks.ored_bound - 1);
        ored.text["last_index"] = std::to_string(checks.ored_bound - 1);
        ored.text["twice"] = std::to_string(2 * checks.ored_bound);
        ored.flags["by_turns"] = checks.ored_by_turns;
        const bool ored_int64 = schedule_.index_type == IndexType::Int64;  // by turns only (CheckIndices::ored_bound)
        ored.text["word"] = ored_int64 ? "kernelgen_ored_i64_t" : "uint32_t";
        ored.text["name"] = ored_int64 ? "i64" : "i32";
        ored.text["offset_type"] = ored_int64 ? "uint64_t" : "uint32_t";
        values.lists["ored"] = checks.ored_bound ? std::vector<TemplateValues>{ored} : std::vector<TemplateValues>{};
        w.block(render_template("index_checks.c.mustache", values));
    }

    void print(CodeWriter& w, const CheckCount& check) const {
        w.line("/* " + check.comment + " */");
        w.open("if (" + check.parameter + " > " + check.max_macro + ")");
        w.line("return " + check.error_macro + ";");
        w.close();
    }

    // A scatter's output starting as a copy of data (copy_data.c.mustache).
    void print(CodeWriter& w, const CopyData& copy) const {
        TemplateValues values;
        values.flags["element_loop"] = copy.element_loop;
        values.text["offset"] = offset_;
        // With a count of data's valid rows (a parameter, at most its bound), those rows times a row, converted to `type`:
        // the offset type for the element loop (the count is within it), size_t for the copy's bytes, as a
        // BlockCopy's (the offset type may be wider than size_t: 32-bit offsets where size_t has 16 bits).
        auto count_as = [&](const std::string& type) {
            if (copy.rows_parameter.empty()) return std::to_string(copy.elements) + "u";
            const std::string rows = "(" + type + ")" + copy.rows_parameter;
            return copy.row_elements == 1 ? rows : rows + " * " + std::to_string(copy.row_elements) + "u";
        };
        values.text["count"] = count_as(offset_);
        values.flags["counted_rows"] = !copy.rows_parameter.empty();
        values.text["rows"] = copy.rows_parameter;
        values.text["element"] = element_;
        values.flags["from_data"] = copy.from == CopyData::From::Data;
        values.flags["from_table"] = copy.from == CopyData::From::Table;
        values.flags["zeros"] = copy.from == CopyData::From::Zeros;
        values.text["table"] = helper("data");
        // output compared as data's type: a comparison of pointers to differently qualified types is one of
        // char pointers to Frama-C (CIL), which its typed memory model cannot follow.
        values.text["output_as_data"] = "(" + face_.pointer_to_element(true) + ")output";
        values.text["table_copy"] = table_copy();
        values.text["copy"] = copy_call("output", "data", count_as("size_t") + " * sizeof(" + element_ + ")",
                                        copy.rows_parameter.empty(),
                                        copy.before_loops ? "kernelgen_copy_once" : "kernelgen_copy");
        w.block(render_template("copy_data.c.mustache", values));
    }

    void print(CodeWriter& w, const For& loop) const {
        const std::string& v = loop.variable;
        // The loop's contract for Frama-C: it writes the output (a row function's loops: the row it writes).
        const std::string end = count(loop.end);
        const std::string written = row_function_ ? "to[0 .. " + literal(row_function_->row_elements) + " - 1]"
                                                  : "output[0 .. " + ids_.size("OUTPUT") + " - 1]";
        w.line("/*@ loop invariant 0 <= " + v + " <= " + end +
               (loop.step == 1 ? "" : " && " + v + " % " + literal(loop.step) + " == 0") + ";");
        w.line("    loop assigns " + v + ", " + written + ";");
        w.line("    loop variant " + end + " - " + v + "; */");
        w.open("for (" + offset_ + " " + v + " = 0u; " + v + " < " + count(loop.end) + "; " +
               (loop.step == 1 ? "++" + v : v + " += " + literal(loop.step)) + ")");
        print(w, loop.body);
        w.close();
    }

    void print(CodeWriter& w, const Slice& slice) const {
        const std::string base = tensor_name(slice.tensor);
        if (is_table(View{slice.tensor})) {
            w.line("const " + offset_ + " " + base + "_slice = " + expression(slice.at) + ";");
            return;
        }
        const std::string type = slice.tensor == Tensor::Indices ? "const " + index_ + " *"
                                                                 : face_.pointer_to_element(slice.tensor != Tensor::Output);
        w.line(type + base + "_slice = &" + base + "[" + expression(slice.at) + "];");
    }

    // Schedule::restates_checks: before a statement that reads index values, the assertion that each is in the
    // range its check admitted (`-40 <= indices[i0 + 1u] <= 39`; against a size passed at run time,
    // `-(integer)data_count <= ...`). Not a value with constants added, whose checks EVA follows.
    void restate_checks(CodeWriter& w, std::initializer_list<const Expr*> expressions) const {
        if (!schedule_.restates_checks) return;
        std::vector<std::pair<IndexComponent, std::string>> values;
        for (const Expr* expr : expressions) {
            for (const Term& term : expr->terms) {
                if (term.kind != Term::Kind::WrappedIndex || term.addend) continue;
                values.push_back({IndexComponent{0, term.bound, 0, term.bound_parameter},
                                  view_name(term.view) + "[" + expression(term.position.front()) + "]"});
            }
        }
        const std::string assertion = acsl_restated_checks(values, schedule_.index_type);
        if (!assertion.empty()) w.line(assertion);
    }

    void print(CodeWriter& w, const Local& local) const {
        restate_checks(w, {&local.value});
        w.open("");
        if (local.row) {
            w.line(face_.pointer_to_element(local.row->tensor != Tensor::Output) + local.name + " = &" +
                   view_name(*local.row) + "[" + expression(local.value) + "];");
        } else {
            w.line("const " + offset_ + " " + local.name + " = " + expression(local.value) + ";");
        }
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
        const std::string bytes = (elements == "1u" ? "" : elements + " * ") + "sizeof(" + element_ + ")";
        restate_checks(w, {&copy.to.at, &copy.from.at});
        if (is_table(copy.from.view)) {
            w.line(table_copy() + "(&" + access(copy.to) + ", " + table_name(copy.from.view) + ", " +
                   table_offset(copy.from) + ", " + bytes + ");");
            return;
        }
        w.line(copy_call("&" + access(copy.to), "&" + access(copy.from), bytes, length.terms.empty()));
    }

    // The row function's call: the row, divided exactly, or the block's offset divided at run time.
    void print(CodeWriter& w, const RowCall& call) const {
        const std::string row = call.row ? expression(*call.row) : "(" + table_offset(call.from) + ") / " + literal(call.row_elements);
        restate_checks(w, {&call.to.at, &call.from.at, call.row ? &*call.row : &call.from.at});
        w.line(helper(call.role) + "(&" + access(call.to) + ", " + row + ");");
    }

    void print(CodeWriter& w, const Let& let) const {
        restate_checks(w, {&let.value});
        w.line("const " + offset_ + " " + let.name + " = " + expression(let.value) + ";");
        if (let.at_most != 0) w.line("/*@ assert " + let.name + " <= " + literal(let.at_most) + "; */");
    }

    void print(CodeWriter& w, const Block& block) const {
        w.open("");
        print(w, block.body);
        w.close();
    }

    // A row function's scale, and zero point, where a loop nest begins (row_read.c.mustache).
    void print(CodeWriter& w, const ScaleRead& read) const {
        TemplateValues values;
        values.text["at"] = expression(read.at);
        values.text["scales"] = read.scales;
        values.flags["bits"] = !read.from_bits.empty();
        values.text["from_bits"] = read.from_bits;
        if (!read.zero_points.empty()) {
            values.lists["zero_points"].push_back(TemplateValues{{{"table", read.zero_points}, {"at", expression(read.at)}},
                                                                 {{"signed", read.signed_zero_points}}, {}});
        } else {
            values.lists["zero_points"] = {};
        }
        w.block(render_template("row_read.c.mustache", values));
    }

    // A row function's element: its value less the zero point, times the scale, in the element type.
    void print(CodeWriter& w, const ScaledStore& store) const {
        std::string value = store.value + "(" + expression(store.value_at) + ")";
        if (store.zero_point == ScaledStore::ZeroPoint::Read) value += " - zero_point";
        if (store.zero_point == ScaledStore::ZeroPoint::Literal) {
            value += store.zero_point_value < 0 ? " + " + std::to_string(-store.zero_point_value)
                                                : " - " + std::to_string(store.zero_point_value);
        }
        std::string result = "(float)(" + value + ") * scale";
        if (!store.convert.empty()) result = store.convert + "(" + result + ")";
        w.line("to[" + expression(store.at) + "] = " + result + ";");
    }

    // An element read from a table (a reduction's constant updates) is copied out of flash first. A reduction
    // whose destination comes from a table of constant runs names it once, through a pointer: on AVR each table
    // read is a program-memory load the compiler may not merge with the other.
    void print(CodeWriter& w, const Assign& assign) const {
        std::string target = access(assign.to);
        std::string value = access(assign.from);
        const bool from_table = is_table(assign.from.view);
        const bool once = assign.combine && std::any_of(assign.to.at.terms.begin(), assign.to.at.terms.end(),
                                                        [](const Term& t) { return t.kind == Term::Kind::TableEntry; });
        restate_checks(w, {&assign.to.at, &assign.from.at});
        if (from_table || once) w.open("");
        if (once) {
            w.line(element_ + " *const slot = &" + target + ";");
            target = "*slot";
        }
        if (from_table) {
            w.line(element_ + " update;");
            w.line(table_copy() + "(&update, " + table_name(assign.from.view) + ", " + table_offset(assign.from) +
                   ", sizeof update);");
            value = "update";
        }
        if (assign.combine) {
            w.line(target + " = " + helper("combine") + "(" + target + ", " + value + ");");
        } else if (!from_table && moved_as_word(assign)) {
            w.line("KERNELGEN_MOVE_F32(" + target + ", " + value + ");");
        } else {
            w.line(target + " = " + value + ";");
        }
        if (from_table || once) w.close();
    }

    std::string helper(const std::string& role) const { return helper_name(name_, role); }

    // A copy of `bytes` (a C expression) between two addresses: the support header's row copy, which each target
    // class does its own fastest way (kernelgen_support.h), when its size is known here and the schedule takes row
    // copies; else a call of memcpy (a size counted at run time, or "unroll": "none": the least code).
    std::string copy_call(const std::string& to, const std::string& from, const std::string& bytes,
                          bool size_known, const std::string& copy = "kernelgen_copy") const {
        if (size_known && schedule_.row_copies) {
            return copy + "(" + to + ", " + from + ", " + bytes + ", sizeof(" + element_ + "));";
        }
        return "memcpy(" + to + ", " + from + ", " + bytes + ");";
    }

    // The support header's copy out of a table: inline row copies, or memcpy calls (Schedule::row_copies).
    std::string table_copy() const {
        return schedule_.row_copies ? "KERNELGEN_COPY_FROM_TABLE" : "KERNELGEN_MEMCPY_FROM_TABLE";
    }

    const Schedule& schedule_;
    mutable const RowFunction* row_function_ = nullptr;  // the row function whose body is printing, if any
    mutable bool in_check_helper_ = false;                // the check helper's body is printing
    mutable std::set<std::string> shared_index_values_;   // of the statements printing (shared_index_values)
    const Interface& face_;
    const KernelIdentifiers& ids_;
    const std::string& name_;
    std::string element_, index_, offset_;
};

}  // namespace

GeneratedKernel print_kernel(const Schedule& schedule) { return Printer(schedule).run(); }

std::string data_include_name(const std::string& kernel) { return kernel + "_data.inc"; }

GeneratedKernel print_support() {
    TemplateValues values;
    values.text["version"] = KERNELGEN_VERSION_STRING;
    values.text["version_number"] = std::to_string(KERNELGEN_VERSION_NUMBER);
    // The index wrap (and the circular write position) for each index type (int32, int64) and offset type
    // (uint32, uint64).
    for (const char* offset : {"32", "64"}) {
        for (const char* index : {"32", "64"}) {
            values.lists["wraps"].push_back(TemplateValues{{{"name", std::string("i") + index + "_u" + offset},
                                                            {"index", std::string("int") + index + "_t"},
                                                            {"offset", std::string("uint") + offset + "_t"},
                                                            {"wide", std::string("kernelgen_wrap_i64_u") + offset}},
                                                           {{"by_address", std::string(index) == "64"}},
                                                           {}});
        }
    }
    return GeneratedKernel{kSupportHeader, render_template("kernelgen_support.h.mustache", values), kSupportSource,
                           render_template("kernelgen_support.c.mustache", values), "", ""};
}

}  // namespace kernelgen
