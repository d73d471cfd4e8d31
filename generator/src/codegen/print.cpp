#include "codegen/print.h"

#include <algorithm>
#include <filesystem>

#include "codegen/code_writer.h"
#include "codegen/header_contract.h"
#include "codegen/reductions.h"
#include "codegen/schedule.h"
#include "codegen/templates.h"
#include "common/c_names.h"
#include "common/kernel_identifiers.h"
#include "kernelgen/version.h"

namespace kernelgen {
namespace {

using namespace schedule;

std::string literal(uint64_t value) { return std::to_string(value) + "u"; }

// Prints a kernel's schedule as C: every node one way; the header's contract (header_contract.h) and the
// reductions' C (reductions.h) come from their own tables.
class Printer {
public:
    Printer(const KernelSpec& spec, const IndexedCopy& copy, const Schedule& schedule)
        : spec_(spec), copy_(copy), schedule_(schedule), ids_(identifiers_of(spec.name)) {
        element_ = std::string(info(spec.dtype).c_type);
        index_ = std::string(c_type(spec.index_dtype));
        offset_ = schedule_.wide_offsets ? "uint64_t" : "uint32_t";
        if (spec.quantization) {
            for (int32_t zero : spec.quantization->zero_points) zero_point_bytes_.push_back(static_cast<uint8_t>(zero & 0xFF));
        }
    }

    GeneratedKernel run() const {
        TemplateValues values = header_contract(spec_, copy_);
        values.text["version"] = KERNELGEN_VERSION_STRING;
        values.text["version_number"] = std::to_string(KERNELGEN_VERSION_NUMBER);
        values.text["spec_file"] = comment_safe(std::filesystem::path(spec_.spec_file).filename().string()) +
                                   (spec_.pointer.empty() ? "" : " (" + spec_.pointer + ")");
        values.text["name"] = spec_.name;
        values.text["definition"] = prototype(spec_, true);
        values.text["unroll_note"] = schedule_.note;
        values.text["helpers"] = helpers();
        values.text["body"] = body();
        values.flags["memcpy"] = schedule_.uses_memcpy;
        values.flags["double"] = info(spec_.dtype).ieee_double;
        values.flags["size_guard"] = schedule_.size_guard_bytes != 0;
        values.text["largest_bytes"] = std::to_string(schedule_.size_guard_bytes);
        // The largest table as declared: an odd number of bytes gets one more (data_table).
        size_t declared = 0;
        for (const Table& table : tables()) declared = std::max(declared, declared_bytes(table));
        values.flags["data_table"] = declared > 0;
        values.text["tables_what"] = schedule_.data_table && schedule_.updates_table ? "data and updates"
                                     : schedule_.data_table                       ? "data"
                                                                                  : "updates";
        values.text["data_name"] = data_include_name(spec_.name);
        values.text["data_bytes"] = std::to_string(declared);
        values.flags["avr_guard"] = declared > kAvrLargestObject;
        GeneratedKernel out;
        out.header_name = spec_.name + ".h";
        out.source_name = spec_.name + ".c";
        out.header = render_template("kernel.h.mustache", values);
        out.source = render_template("kernel.c.mustache", values);
        if (spec_.constant_data || spec_.constant_updates) {  // the file exists whenever the spec gives one (build rules name it)
            out.data_name = data_include_name(spec_.name);
            out.data = data_table(values);
        }
        return out;
    }

private:
    // --- the constant data -------------------------------------------------------------------------------

    // The largest object avr-gcc makes (PTRDIFF_MAX, 16 bits there): a larger table refuses to compile on AVR.
    static constexpr size_t kAvrLargestObject = 32767;

    // The table's element: the unsigned integer of a part's width (a complex element is two parts, a row of 2).
    unsigned part_bits() const {
        const DTypeInfo& type = info(spec_.dtype);
        return type.category == Category::Complex ? type.bits / 2 : type.bits;
    }
    bool pairs() const { return info(spec_.dtype).category == Category::Complex && !spec_.quantization; }

    // One table of the data file: its name's role, element width, bytes, and the line above it (or none).
    struct Table {
        std::string role;
        unsigned bits;
        const std::vector<uint8_t>* bytes;
        std::string note;
    };
    // The tables the kernel holds: its data, quantized (with its scales and zero points) or not, and a scatter's
    // updates; the first is described by the file's banner, the others by their notes.
    std::vector<Table> tables() const {
        std::vector<Table> out;
        if (schedule_.data_table && !spec_.quantization) out.push_back(Table{"data", part_bits(), &spec_.constant_data->bytes, ""});
        if (schedule_.data_table && spec_.quantization) out = quantized_tables();
        if (schedule_.updates_table) {
            out.push_back(Table{"updates", part_bits(), &spec_.constant_updates->bytes,
                                out.empty() ? "" : "The updates: " + described(*spec_.constant_updates, spec_.updates_shape).joined() + "."});
        }
        return out;
    }
    // "float32 [2, 3] from u.npy, row-major, as the bit patterns of its elements (each a uint32_t)", in the two
    // lines of the data file's banner (broken before "patterns").
    struct Description {
        std::string line1, line2;
        std::string joined() const { return line1 + " " + line2; }
    };
    Description described(const KernelSpec::ConstantData& table, const Shape& shape) const {
        const std::string storage = "uint" + std::to_string(part_bits()) + "_t";
        return {std::string(info(spec_.dtype).name) + " " + format_shape(shape) +
                    (table.file.empty() ? " (given in the spec)" : " from " + shown_file(table)) + ", row-major, as the bit",
                "patterns of its elements (" +
                    (pairs() ? "each a pair of " + storage + ": real, imaginary" : "each a " + storage) + ")"};
    }
    std::vector<Table> quantized_tables() const {
        const KernelSpec::Quantization& q = *spec_.quantization;
        const std::string type = quantized_type_name(q.type);
        std::vector<Table> out{Table{"data", 8, &spec_.constant_data->bytes,
                                    quantized_type_bits(q.type) == 8
                                        ? "The " + type + " values, one a byte (their bit patterns)."
                                        : "The " + type + " values, two a byte: element 2k in the low nibble of byte k."},
                               Table{"scales", info(spec_.dtype).bits, &q.scales,
                                     "The scales: " + std::string(info(spec_.dtype).name) + " " + format_shape(q.scales_shape) +
                                         " (" + quantization_mode(q) + "), as bit patterns."}};
        if (schedule_.helpers.dequantize && schedule_.helpers.dequantize->zero_point == DequantizeHelper::ZeroPoint::Table) {
            out.push_back(Table{"zero_points", 8, &zero_point_bytes_,
                                "The zero points, one per scale: " + type + " values, one a byte (their bit patterns)."});
        }
        return out;
    }
    // The bytes a table declares: an odd number gets one more (table_text).
    static size_t declared_bytes(const Table& table) { return (table.bytes->size() + 1) / 2 * 2; }

    // <name>_data.inc: the tables, their parts as hexadecimal literals (the exact bits), a fixed number a line. A
    // table of no elements cannot be declared in C: the file then says so, and the body never names it.
    std::string data_table(const TemplateValues& kernel) const {
        TemplateValues values;
        values.text["version"] = kernel.text.at("version");
        values.text["spec_file"] = kernel.text.at("spec_file");
        values.text["name"] = spec_.name;
        const std::vector<Table> held = tables();
        if (held.empty()) {  // a scatter's constant tensors that need no table: the file says why
            std::vector<std::string> reasons;
            if (spec_.constant_data) {
                reasons.push_back(copy_.data_size == 0 ? "its constant data has no elements"
                                                       : "its constant data is all zero bytes (output starts as a memset)");
            }
            if (spec_.constant_updates) reasons.push_back("it copies no updates (its indices select nothing)");
            values.text["reason"] = reasons.front() + (reasons.size() == 2 ? ", and " + reasons.back() : "");
            return render_template("no_table.inc.mustache", values);
        }
        const bool data = schedule_.data_table;
        values.text["what"] = data ? "data" : "updates";
        if (data && spec_.quantization) {
            const KernelSpec::Quantization& q = *spec_.quantization;
            const std::string from = spec_.constant_data->file.empty() ? " (given in the spec)"
                                                                       : " from " + shown_file(*spec_.constant_data);
            values.text["line1"] = quantized_type_name(q.type) + " " + format_shape(spec_.data_shape) + from +
                                   ", quantized (" + quantization_mode(q) + "), row-major,";
            values.text["line2"] = "its scales " + std::string(info(spec_.dtype).name) + ": each element dequantizes to " +
                                   "(q - zero_point) * scale";
        } else {
            const Description text = data ? described(*spec_.constant_data, spec_.data_shape)
                                          : described(*spec_.constant_updates, spec_.updates_shape);
            values.text["line1"] = text.line1;
            values.text["line2"] = text.line2;
        }
        std::string out;
        bool first = true;
        for (const Table& table : held) {
            values.flags["banner"] = first;
            values.flags["has_note"] = !table.note.empty();
            values.text["note"] = table.note;
            const bool paired = (table.role == "data" || table.role == "updates") && pairs();
            const size_t width = table.bits / 8, elements = table.bytes->size() / width / (paired ? 2 : 1);
            values.text["storage"] = "uint" + std::to_string(table.bits) + "_t";
            values.text["table"] = helper(table.role);
            values.text["count"] = std::to_string(elements + (table.bytes->size() % 2 != 0 ? 1 : 0));
            values.text["pair"] = paired ? "[2]" : "";
            values.flags["empty"] = table.bytes->empty();
            out += render_template("data.inc.mustache", values);
            if (!table.bytes->empty()) out += table_rows(*table.bytes, table.bits, paired) + "};\n";
            first = false;
        }
        return out;
    }

    // A table's initializer rows. An odd number of bytes gets one more element, 0, that no copy reads: on AVR the
    // table lies among the code (a .text section), whose instructions must stay at even addresses.
    static std::string table_rows(const std::vector<uint8_t>& bytes, unsigned bits, bool paired) {
        const size_t width = bits / 8, parts = bytes.size() / width;
        const size_t per_element = paired ? 2 : 1, elements = parts / per_element;
        const bool padded = bytes.size() % 2 != 0;
        const size_t per_line = (bits == 8 ? 16 : bits == 16 ? 12 : bits == 32 ? 8 : 4) / per_element;
        static const char digits[] = "0123456789ABCDEF";
        auto hex = [&](std::string& out, size_t part) {
            out += "0x";
            for (size_t b = width; b-- > 0;) {
                const uint8_t byte = bytes[part * width + b];
                out += digits[byte >> 4];
                out += digits[byte & 15];
            }
            out += 'u';
        };
        std::string rows;
        rows.reserve(parts * (width * 2 + 6) + elements / per_line * 8);
        for (size_t e = 0; e < elements; ++e) {
            rows += e % per_line == 0 ? "    " : " ";
            if (paired) {
                rows += '{';
                hex(rows, 2 * e);
                rows += ", ";
                hex(rows, 2 * e + 1);
                rows += '}';
            } else {
                hex(rows, e);
            }
            rows += ',';
            if (e % per_line == per_line - 1 || e + 1 == elements) rows += '\n';
        }
        if (padded) rows += "    0x00u, /* padding to an even number of bytes, never read */\n";
        return rows;
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
            item.text["doc"] = reduction_doc(spec_.dtype, helpers.combine->reduction);
            item.text["element"] = element_;
            item.text["helper"] = helper("combine");
            for (const auto& statement : reduction_statements(spec_.dtype, helpers.combine->reduction)) {
                item.lists["statements"].push_back(TemplateValues{{{"statement", statement}}, {}, {}});
            }
            combine.push_back(item);
        }
        return render_template("helpers.c.mustache", values) +
               (helpers.dequantize ? dequantize_helper(*helpers.dequantize) : std::string());
    }

    // A quantized table's row function, and the function that reads one of its values. The scale (and a zero
    // point from its table) is read once per block, where the loops that walk the block begin.
    std::string dequantize_helper(const DequantizeHelper& plan) const {
        const KernelSpec::Quantization& q = *spec_.quantization;
        const unsigned bits = quantized_type_bits(q.type);
        const bool is_signed = quantized_type_signed(q.type);
        const std::string type = quantized_type_name(q.type);
        CodeWriter w;
        w.line("/* Value `at` of the quantized table, an " + type + (bits == 8 ? " (one a byte)." : " (two a byte, element 2k in the low nibble of byte k).") + " */");
        w.line("static inline int " + helper("value") + "(" + offset_ + " at)");
        w.open("");
        if (bits == 8) {
            w.line("const unsigned byte = KERNELGEN_DATA_U8(" + helper("data") + ", at);");
            w.line("return " + widened("byte", is_signed, 8) + ";");
        } else {
            w.line("const unsigned byte = KERNELGEN_DATA_U8(" + helper("data") + ", at >> 1);");
            w.line("const unsigned nibble = (at & 1u) != 0u ? byte >> 4 : byte & 15u;");
            w.line("return " + widened("nibble", is_signed, 4) + ";");
        }
        w.close();
        w.line("");
        const std::string& element = element_;
        const std::string dtype(info(spec_.dtype).name);
        w.line("/* Row `row` of the quantized table, dequantized into `to`: each of its " + std::to_string(plan.row_elements) +
               " elements (" + type + " q) becomes");
        w.line(" * (float)(q - zero_point) * scale, one rounding" +
               std::string(spec_.dtype == DType::Float32 ? "" : ", then to " + dtype + " (nearest, ties to even)") +
               "; " + quantization_mode(q) + ". */");
        w.line("static void " + helper("dequantize") + "(" + element + " *to, " + offset_ + " row)");
        w.open("");
        w.line("const " + offset_ + " first = " + product("row", plan.row_elements) + ";");
        const bool scale_row = plan.row_scale_stride != 0;
        if (scale_row) {
            const std::string by_block = plan.row_divisor == 1 ? "row"
                                         : plan.row_scale_stride == 1 ? "row / " + literal(plan.row_divisor)
                                                                      : "(row / " + literal(plan.row_divisor) + ")";
            w.line("const " + offset_ + " scales = " + product(by_block, plan.row_scale_stride) + ";");
        }
        const bool scoped = plan.nests.size() > 1;  // each nest's scale in a scope of its own
        for (const DequantizeNest& nest : plan.nests) {
            if (scoped) w.open("");
            for (size_t depth = 0; depth <= nest.loops.size(); ++depth) {
                if (depth == nest.scale_depth) {
                    std::string at = scale_row ? "scales" : "";
                    for (size_t k = 0; k < depth; ++k) at = sum(at, product("i" + std::to_string(k), nest.loops[k].scale_stride));
                    if (nest.scale_start != 0 || at.empty()) at = sum(at, literal(nest.scale_start));
                    if (spec_.dtype == DType::Float32) {
                        w.line("float scale;");
                        w.line("KERNELGEN_COPY_FROM_TABLE(&scale, " + helper("scales") + ", " + at + ", sizeof scale);");
                    } else {
                        w.line("uint16_t scale_bits;");
                        w.line("float scale;");
                        w.line("KERNELGEN_COPY_FROM_TABLE(&scale_bits, " + helper("scales") + ", " + at + ", sizeof scale_bits);");
                        w.line("scale = kernelgen_" + std::string(spec_.dtype == DType::Float16 ? "float16" : "bfloat16") +
                               "_to_float(scale_bits);");
                    }
                    if (plan.zero_point == DequantizeHelper::ZeroPoint::Table) {
                        w.line("const int zero_point = " +
                               widened("KERNELGEN_DATA_U8(" + helper("zero_points") + ", " + at + ")", is_signed, 8) + ";");
                    }
                }
                if (depth == nest.loops.size()) break;
                const std::string v = "i" + std::to_string(depth);
                w.open("for (" + offset_ + " " + v + " = 0u; " + v + " < " + literal(nest.loops[depth].extent) + "; ++" + v + ")");
            }
            std::string at;
            for (size_t k = 0; k < nest.loops.size(); ++k) at = sum(at, product("i" + std::to_string(k), nest.loops[k].element_stride));
            if (nest.element_start != 0 || at.empty()) at = sum(at, literal(nest.element_start));
            std::string value = helper("value") + "(" + (at == literal(0) ? std::string("first") : "first + " + at) + ")";
            if (plan.zero_point == DequantizeHelper::ZeroPoint::Table) value += " - zero_point";
            if (plan.zero_point == DequantizeHelper::ZeroPoint::Literal) {
                value += plan.zero_point_value < 0 ? " + " + std::to_string(-plan.zero_point_value)
                                                   : " - " + std::to_string(plan.zero_point_value);
            }
            std::string result = "(float)(" + value + ") * scale";
            if (spec_.dtype == DType::Float16) result = "kernelgen_float16_from_float(" + result + ")";
            if (spec_.dtype == DType::BFloat16) result = "kernelgen_bfloat16_from_float(" + result + ")";
            w.line("to[" + at + "] = " + result + ";");
            for (size_t k = 0; k < nest.loops.size(); ++k) w.close();
            if (scoped) w.close();
        }
        w.close();
        w.line("");
        return w.str();
    }
    // An unsigned value of `bits` bits as the int it holds: two's complement when signed, without an
    // implementation-defined conversion ((v ^ 0x80u) - 128 for 8 bits).
    static std::string widened(const std::string& value, bool is_signed, unsigned bits) {
        if (!is_signed) return "(int)" + value;
        const unsigned half = 1u << (bits - 1);
        const std::string mask = bits == 8 ? "0x80u" : std::to_string(half) + "u";
        return "(int)(" + value + " ^ " + mask + ") - " + std::to_string(half);
    }
    // "name * 4u", or the name alone for 1.
    static std::string product(const std::string& name, uint64_t factor) {
        if (factor == 0) return "";
        return factor == 1 ? name : name + " * " + literal(factor);
    }
    static std::string sum(const std::string& a, const std::string& b) {
        if (a.empty()) return b;
        if (b.empty()) return a;
        return a + " + " + b;
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

    // Constant data: the table, read by offsets (on AVR with more than 64 KB of flash, a far address and an
    // element offset; a C pointer could not reach it), its slice an offset too.
    bool is_table(const View& view) const {
        return (view.tensor == Tensor::Data && schedule_.data_table) || (view.tensor == Tensor::Updates && schedule_.updates_table);
    }
    std::string table_offset(const Access& at) const {
        return at.view.slice ? view_name(at.view) + " + " + expression(at.at) : expression(at.at);
    }
    std::string table_name(const View& view) const { return helper(tensor_name(view.tensor)); }

    // The row a block from a quantized table begins: its element offset divided by the row's elements, term by
    // term where each is a multiple of it (a Gather along axis 0 reads whole rows), else at run time.
    std::string quantized_row(const Access& from) const {
        const uint64_t row = schedule_.helpers.dequantize->row_elements;
        Expr divided = from.at;
        bool exact = !from.view.slice && row != 0 && divided.constant % row == 0;
        for (Term& t : divided.terms) {
            exact = exact && t.coefficient % row == 0;
            if (exact) t.coefficient /= row;
        }
        if (exact) {
            divided.constant /= row;
            return expression(divided);
        }
        return "(" + table_offset(from) + ") / " + literal(row);
    }

    std::string term(const Term& term) const {
        switch (term.kind) {
            case Term::Kind::Variable: return term.name;
            case Term::Kind::Count: return schedule_.wide_offsets ? "(uint64_t)count" : "count";
            case Term::Kind::WrappedIndex: {  // an int64 index by its address (kernelgen_support.h reads its low word)
                const bool int32 = spec_.index_dtype == IndexType::Int32;
                return "kernelgen_wrap_" + std::string(int32 ? "i32" : "i64") +
                       (schedule_.wide_offsets ? "_u64(" : "_u32(") + (int32 ? "" : "&") + view_name(term.view) + "[" +
                       expression(term.position.front()) + "], " +
                       (term.runtime_bound ? "data_count" : literal(term.bound)) + ")";
            }
            case Term::Kind::TableEntry: return (term.widened ? "(" + offset_ + ")" : "") + table_entry(term);
            case Term::Kind::CheckedIndex:
                return "(" + offset_ + ")" + view_name(term.view) + "[" + expression(term.position.front()) + "]";
            case Term::Kind::CircularIndex:
                return "kernelgen_circular_" + std::string(spec_.index_dtype == IndexType::Int32 ? "i32" : "i64") +
                       (schedule_.wide_offsets ? "_u64(" : "_u32(") + view_name(term.view) + "[" + expression(term.position.front()) +
                       "], " + expression(term.position.back()) + ", " + literal(term.bound) + ")";
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

    std::string access(const Access& at) const {
        if (is_table(at.view)) return table_name(at.view) + "[" + table_offset(at) + "]";
        return view_name(at.view) + "[" + expression(at.at) + "]";
    }

    std::string error_return() const { return "return " + ids_.error_index + ";"; }

    void print(CodeWriter& w, const Statements& statements) const {
        for (const Statement& statement : statements) std::visit([&](const auto& node) { print(w, node); }, statement.node);
    }

    void print(CodeWriter& w, const Comment& comment) const { w.line("/* " + comment.text + " */"); }

    void print(CodeWriter& w, const ConstantIndices& constant) const {
        w.line("/* The constant indices (given in the spec): those along axis 0 are checked against data_count. */");
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

    std::string index_value(const IndexValue& value) const {
        switch (value.kind) {
            case IndexValue::Kind::Element: return "indices[" + std::to_string(value.position) + "]";
            case IndexValue::Kind::Local: return "index";
            case IndexValue::Kind::TupleElement: return "tuple[" + std::to_string(value.position) + "]";
        }
        return "";
    }

    // The address of an index value: a loop's local `index` is indices[t].
    std::string index_address(const IndexValue& value) const {
        return value.kind == IndexValue::Kind::Local ? "&indices[t]" : "&" + index_value(value);
    }

    // The checks (index_checks.c.mustache): written out, or one loop over the tuples.
    void print(CodeWriter& w, const CheckIndices& checks) const {
        TemplateValues values;
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
            // A run-time data count (at most a uint32_t) compares in int64_t, which holds it and every index. A
            // TensorScatter's write index: from 0, to the cache's size less the sequence's (linear) or without end.
            const IndexComponent& range = check.component;
            const bool onnx = range.kind == IndexComponent::Kind::Wrapped;
            item.text["low"] = !onnx ? "0" : range.runtime_bound ? "-(int64_t)data_count" : "-" + std::to_string(range.bound);
            item.flags["has_last"] = range.kind != IndexComponent::Kind::Circular;
            item.text["last"] = !onnx ? std::to_string(range.last)
                                : range.runtime_bound ? "(int64_t)data_count - 1" : std::to_string(range.bound - 1);
            // The support header's test (Check::by_words, by_count); in a loop that gathers one flag, the branch-free
            // form of the literal size's, which returns the failure as bits.
            const std::string test = checks.accumulate ? "kernelgen_outside_i64_bits(" : "kernelgen_outside_i64(";
            const bool int64 = spec_.index_dtype == IndexType::Int64;
            item.text["outside"] = check.by_words ? test + index_address(check.value) + ", " + literal(range.bound) + ")"
                                   : !check.by_count ? ""
                                   : int64 ? "kernelgen_outside_count_i64(" + index_address(check.value) + ", data_count)"
                                           : "kernelgen_outside_count_i32(" + index_value(check.value) + ", data_count)";
            item.flags["by_function"] = check.by_words || check.by_count;
            item.flags["reads_value"] = !(check.by_words || (check.by_count && int64));
            each.push_back(item);
        }
        // The loop's local `index`, unless every check reads the value through its address.
        values.flags["local"] = std::any_of(each.begin(), each.end(), [](const TemplateValues& item) { return item.flags.at("reads_value"); });
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
        values.lists["ored"] = checks.ored_bound ? std::vector<TemplateValues>{ored} : std::vector<TemplateValues>{};
        w.block(render_template("index_checks.c.mustache", values));
    }

    void print(CodeWriter& w, const CheckCount& check) const {
        if (check.data_count) {
            w.line("/* data_count valid rows of data, at most " + ids_.max_data_count +
                   "; the indices along axis 0 select among them. */");
            w.open("if (data_count > " + ids_.max_data_count + ")");
            w.line("return " + ids_.error_data_count + ";");
            w.close();
            return;
        }
        const std::string rows = copy_.count_leads == CountLeads::Data ? "data and output" : "indices";
        w.line("/* count rows of " + rows + ", at most " + ids_.max_count + "; nothing is read or written beyond them. */");
        w.open("if (count > " + ids_.max_count + ")");
        w.line("return " + ids_.error_count + ";");
        w.close();
    }

    // A scatter's output starting as a copy of data (copy_data.c.mustache).
    void print(CodeWriter& w, const CopyData& copy) const {
        TemplateValues values;
        values.flags["element_loop"] = copy.element_loop;
        values.text["offset"] = offset_;
        // With a run-time data count, its rows (data_count, at most the bound, times a row), converted to `type`:
        // the offset type for the element loop (the count is within it), size_t for the copy's bytes, as a
        // BlockCopy's (the offset type may be wider than size_t: 32-bit offsets where size_t has 16 bits).
        auto count_as = [&](const std::string& type) {
            if (!copy.row_elements) return std::to_string(copy.elements) + "u";
            const std::string rows = "(" + type + ")data_count";
            return copy.row_elements == 1 ? rows : rows + " * " + std::to_string(copy.row_elements) + "u";
        };
        values.text["count"] = count_as(offset_);
        values.flags["data_count"] = copy.row_elements != 0;
        values.text["element"] = element_;
        values.flags["from_data"] = copy.from == CopyData::From::Data;
        values.flags["from_table"] = copy.from == CopyData::From::Table;
        values.flags["zeros"] = copy.from == CopyData::From::Zeros;
        values.text["table"] = helper("data");
        values.text["table_copy"] = table_copy();
        values.text["copy"] = copy_call("output", "data", count_as("size_t") + " * sizeof(" + element_ + ")",
                                        copy.row_elements == 0);
        w.block(render_template("copy_data.c.mustache", values));
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
        if (is_table(View{slice.tensor})) {
            w.line("const " + offset_ + " " + base + "_slice = " + expression(slice.at) + ";");
            return;
        }
        const std::string type = slice.tensor == Tensor::Indices ? "const " + index_ + " *"
                                                                 : pointer_to_element(spec_, slice.tensor != Tensor::Output);
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
        const std::string bytes = (elements == "1u" ? "" : elements + " * ") + "sizeof(" + element_ + ")";
        if (is_table(copy.from.view) && spec_.quantization) {
            w.line(helper("dequantize") + "(&" + access(copy.to) + ", " + quantized_row(copy.from) + ");");
            return;
        }
        if (is_table(copy.from.view)) {
            w.line(table_copy() + "(&" + access(copy.to) + ", " + table_name(copy.from.view) + ", " +
                   table_offset(copy.from) + ", " + bytes + ");");
            return;
        }
        w.line(copy_call("&" + access(copy.to), "&" + access(copy.from), bytes, length.terms.empty()));
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
        w.line(target + " = " + (assign.combine ? helper("combine") + "(" + target + ", " + value + ")" : value) + ";");
        if (from_table || once) w.close();
    }

    std::string helper(const std::string& role) const { return helper_name(spec_.name, role); }

    // A copy of `bytes` (a C expression) between two addresses: the support header's row copy, which each target
    // class does its own fastest way (kernelgen_support.h), when its size is known here and the schedule takes row
    // copies; else a call of memcpy (a size counted at run time, or "unroll": "none": the least code).
    std::string copy_call(const std::string& to, const std::string& from, const std::string& bytes,
                          bool size_known) const {
        if (size_known && schedule_.row_copies) {
            return "kernelgen_copy(" + to + ", " + from + ", " + bytes + ", sizeof(" + element_ + "));";
        }
        return "memcpy(" + to + ", " + from + ", " + bytes + ");";
    }

    // The support header's copy out of a table: inline row copies, or memcpy calls (Schedule::row_copies).
    std::string table_copy() const {
        return schedule_.row_copies ? "KERNELGEN_COPY_FROM_TABLE" : "KERNELGEN_MEMCPY_FROM_TABLE";
    }

    const KernelSpec& spec_;
    const IndexedCopy& copy_;
    const Schedule& schedule_;
    const KernelIdentifiers ids_;
    std::string element_, index_, offset_;
    std::vector<uint8_t> zero_point_bytes_;  // a quantized table's zero points, one a byte
};

}  // namespace

GeneratedKernel print_kernel(const KernelSpec& spec, const IndexedCopy& copy, const Schedule& schedule) {
    return Printer(spec, copy, schedule).run();
}

std::string data_include_name(const std::string& kernel) { return kernel + "_data.inc"; }

GeneratedKernel print_support() {
    TemplateValues values;
    values.text["version"] = KERNELGEN_VERSION_STRING;
    values.text["version_number"] = std::to_string(KERNELGEN_VERSION_NUMBER);
    // The index wrap (and TensorScatter's circular position) for each index type (int32, int64) and offset type
    // (uint32, uint64).
    for (const char* offset : {"32", "64"}) {
        for (const char* index : {"32", "64"}) {
            values.lists["wraps"].push_back(TemplateValues{{{"name", std::string("i") + index + "_u" + offset},
                                                            {"index", std::string("int") + index + "_t"},
                                                            {"offset", std::string("uint") + offset + "_t"}},
                                                           {{"by_address", std::string(index) == "64"}},
                                                           {}});
        }
    }
    return GeneratedKernel{kSupportHeader, render_template("kernelgen_support.h.mustache", values), kSupportSource,
                           render_template("kernelgen_support.c.mustache", values), "", ""};
}

}  // namespace kernelgen
