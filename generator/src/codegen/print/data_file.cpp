// A kernel's data file, <name>_data.inc: its tables as hexadecimal literals (the exact bits), a fixed number a
// line, or the reason it holds none.
#include "codegen/print/print.h"
#include "codegen/print/templates.h"
#include "common/kernel_identifiers.h"

namespace kernelgen {

namespace {

// A table's initializer rows. An odd number of bytes gets one more element, 0, that no copy reads: on AVR the
// table lies among the code (a .text section), whose instructions must stay at even addresses.
std::string table_rows(const std::vector<uint8_t>& bytes, unsigned bits, bool paired) {
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

}  // namespace

std::string print_data_file(const DataFile& file, const TemplateValues& kernel) {
    TemplateValues values;
    values.text["version"] = kernel.text.at("version");
    values.text["spec_file"] = kernel.text.at("spec_file");
    values.text["name"] = kernel.text.at("name");
    if (file.tables.empty()) {  // constant tensors that need no table: the file says why
        values.text["reason"] = file.no_table;
        return render_template("no_table.inc.mustache", values);
    }
    values.text["what"] = file.what;
    values.text["line1"] = file.line1;
    values.text["line2"] = file.line2;
    std::string out;
    bool first = true;
    for (const TableData& table : file.tables) {
        const std::vector<uint8_t>& bytes = table.data();
        values.flags["banner"] = first;
        values.flags["has_note"] = !table.note.empty();
        values.text["note"] = table.note;
        const size_t width = table.bits / 8, elements = bytes.size() / width / (table.pairs ? 2 : 1);
        values.text["storage"] = "uint" + std::to_string(table.bits) + "_t";
        values.text["table"] = helper_name(kernel.text.at("name"), table.role);
        values.text["count"] = std::to_string(elements + (bytes.size() % 2 != 0 ? 1 : 0));
        values.text["pair"] = table.pairs ? "[2]" : "";
        values.flags["empty"] = bytes.empty();
        out += render_template("data.inc.mustache", values);
        if (!bytes.empty()) out += table_rows(bytes, table.bits, table.pairs) + "};\n";
        first = false;
    }
    return out;
}

}  // namespace kernelgen
