// A quantized table (KernelSpec::quantization), lowered: its tables (the values, the scales, the zero points),
// the function that dequantizes one row of it into the output (a RowFunction: its loops over the row and where
// each reads its scale), and its words in the header and the data file.
//
// A Gather along axis 0 copies whole rows: row r of data [d0, d1, ...] is its I = d1 * d2 * ... elements from
// r * I. With the quantization axis a >= 1, a row is [P, da, Q] (P the sizes between axis 0 and a, Q those after
// a), and the element (p, c, q) of row r takes the scale at
//   per axis:    c
//   blocked (B): ((r * P + p) * nb + c / B) * Q + q, with nb = ceil(da / B)
// along axis 0 (a = 0) element j of row r takes scale r (per axis) or (r / B) * I + j (blocked); with no axis,
// scale 0. The loops split c into whole blocks and the elements of a block, so that no element divides.
#include <algorithm>

#include "codegen/lower/lowered.h"
#include "common/shape_math.h"

namespace kernelgen {

const std::vector<std::string>& row_function_roles() {
    static const std::vector<std::string> roles{"scales", "zero_points", "value", "dequantize"};
    return roles;
}

namespace {

using schedule::Expr;
using schedule::Statements;
using schedule::variable;
using schedule::wrap;

// One loop over a row's elements, stepping through them and the scales by its strides.
struct RowLoop {
    uint64_t extent = 1;
    uint64_t element_stride = 0;
    uint64_t scale_stride = 0;
};
// The loops that walk one part of a row (the full blocks, or a partial last one), from its first element and scale.
struct RowNest {
    std::vector<RowLoop> loops;  // outer to inner, none of extent 0 or 1 once tidied
    uint64_t element_start = 0;
    uint64_t scale_start = 0;
    // How many outer loops pick the scale: it is read inside them, before the loops whose scale stride is 0.
    size_t scale_depth = 0;
};
// The row's first scale is (row / row_divisor) * row_scale_stride.
struct RowPlan {
    uint64_t row_elements = 0;
    uint64_t row_divisor = 1;
    uint64_t row_scale_stride = 0;
    std::vector<RowNest> nests;
    enum class ZeroPoint { None, Literal, Table } zero_point = ZeroPoint::None;
    int32_t zero_point_value = 0;
};

// Drops loops of extent 1 and merges those that step as one (the lowering's one merge, merged_loops).
RowNest tidy(RowNest nest) {
    std::vector<RowLoop> kept;
    for (const RowLoop& loop : nest.loops) {
        if (loop.extent != 1) kept.push_back(loop);
    }
    nest.loops = merged_loops(
        kept, [](const RowLoop& l) { return std::vector<uint64_t>{l.element_stride, l.scale_stride}; },
        [](const RowLoop&, const RowLoop&) { return true; },
        [](const RowLoop& outer, const RowLoop& inner) {
            return RowLoop{outer.extent * inner.extent, inner.element_stride, inner.scale_stride};
        });
    // The scale is read inside the outer loops that move it, before those that do not.
    nest.scale_depth = nest.loops.size();
    while (nest.scale_depth > 0 && nest.loops[nest.scale_depth - 1].scale_stride == 0) --nest.scale_depth;
    return nest;
}

RowPlan plan_rows(const KernelSpec& spec) {
    const KernelSpec::Quantization& q = *spec.quantization;
    const Shape& d = spec.data_shape;
    RowPlan out;
    out.row_elements = element_count(Shape(d.begin() + 1, d.end()));
    const uint64_t row = out.row_elements;
    std::vector<RowNest> nests;
    if (q.axis < 0) {
        nests.push_back(RowNest{{{row, 1, 0}}, 0, 0, 0});
    } else if (q.axis == 0) {
        out.row_divisor = q.block_size == 0 ? 1 : std::min(q.block_size, std::max<uint64_t>(d[0], 1));
        out.row_scale_stride = q.block_size == 0 ? 1 : row;
        nests.push_back(RowNest{{{row, 1, q.block_size == 0 ? 0u : 1u}}, 0, 0, 0});
    } else {
        const auto a = static_cast<size_t>(q.axis);
        const uint64_t p = element_count(Shape(d.begin() + 1, d.begin() + static_cast<std::ptrdiff_t>(a)));
        const uint64_t da = d[a];
        const uint64_t qn = element_count(Shape(d.begin() + static_cast<std::ptrdiff_t>(a) + 1, d.end()));
        if (q.block_size == 0) {
            nests.push_back(RowNest{{{p, da * qn, 0}, {da, qn, 1}, {qn, 1, 0}}, 0, 0, 0});
        } else {
            // A block longer than the axis is one block of the axis' size (so that no product below overflows).
            const uint64_t b = std::min(q.block_size, std::max<uint64_t>(da, 1));
            const uint64_t blocks = da / b + (da % b != 0 ? 1 : 0), whole = da / b, tail = da % b;
            out.row_scale_stride = p * blocks * qn;
            if (whole > 0) {
                nests.push_back(RowNest{{{p, da * qn, blocks * qn}, {whole, b * qn, qn}, {b, qn, 0}, {qn, 1, 1}}, 0, 0, 0});
            }
            if (tail > 0) {
                nests.push_back(RowNest{{{p, da * qn, blocks * qn}, {tail, qn, 0}, {qn, 1, 1}}, whole * b * qn, whole * qn, 0});
            }
        }
    }
    // A nest with a loop of no elements (data of a zero-size axis) writes nothing.
    for (const RowNest& nest : nests) {
        const bool empty = std::any_of(nest.loops.begin(), nest.loops.end(), [](const RowLoop& l) { return l.extent == 0; });
        if (!empty) out.nests.push_back(tidy(nest));
    }
    // Zero points: none or all equal need no table.
    const std::vector<int32_t>& zeros = q.zero_points;
    const bool all_equal = std::all_of(zeros.begin(), zeros.end(), [&](int32_t z) { return z == zeros.front(); });
    if (zeros.empty() || (all_equal && zeros.front() == 0)) {
        out.zero_point = RowPlan::ZeroPoint::None;
    } else if (all_equal) {
        out.zero_point = RowPlan::ZeroPoint::Literal;
        out.zero_point_value = zeros.front();
    } else {
        out.zero_point = RowPlan::ZeroPoint::Table;
    }
    return out;
}

// How the scales are laid: "one scale", "a scale per index along axis 1", "a scale per block of 32 along axis 1".
std::string quantization_mode(const KernelSpec::Quantization& q) {
    if (q.axis < 0) return "one scale";
    if (q.block_size == 0) return "a scale per index along axis " + std::to_string(q.axis);
    return "a scale per block of " + std::to_string(q.block_size) + " along axis " + std::to_string(q.axis);
}

// The row function's body: the row's first element (and scale), then each nest's loops, the scale read where the
// loops that move it begin, and each element dequantized.
Statements row_body(const KernelSpec& spec, const RowPlan& plan, const std::string& kernel) {
    const bool is_signed = quantized_type_signed(spec.quantization->type);
    Statements body;
    body.push_back(wrap(schedule::Let{"first", variable("row", plan.row_elements)}));
    const bool scale_row = plan.row_scale_stride != 0;
    if (scale_row) {
        const Expr scales = plan.row_divisor == 1 ? variable("row", plan.row_scale_stride)
                                                  : schedule::quotient("row", plan.row_divisor, plan.row_scale_stride);
        body.push_back(wrap(schedule::Let{"scales", scales}));
    }
    const std::string from_bits = spec.dtype == DType::Float32 ? ""
                                  : spec.dtype == DType::Float16 ? "kernelgen_float16_to_float"
                                                                 : "kernelgen_bfloat16_to_float";
    const std::string convert = spec.dtype == DType::Float16    ? "kernelgen_float16_from_float"
                                : spec.dtype == DType::BFloat16 ? "kernelgen_bfloat16_from_float"
                                                                : "";
    for (const RowNest& nest : plan.nests) {
        Statements nest_body;
        Statements* at_depth = &nest_body;
        for (size_t depth = 0; depth <= nest.loops.size(); ++depth) {
            if (depth == nest.scale_depth) {
                Expr at = scale_row ? variable("scales") : Expr{};
                for (size_t k = 0; k < depth; ++k) at = at.plus(variable("i" + std::to_string(k), nest.loops[k].scale_stride));
                at.constant = nest.scale_start;
                const bool table = plan.zero_point == RowPlan::ZeroPoint::Table;
                at_depth->push_back(wrap(schedule::ScaleRead{at, helper_name(kernel, "scales"),
                                                             table ? helper_name(kernel, "zero_points") : "", from_bits,
                                                             is_signed}));
            }
            if (depth == nest.loops.size()) break;
            at_depth->push_back(wrap(schedule::For{"i" + std::to_string(depth), Expr{{}, nest.loops[depth].extent}, 1, {}}));
            at_depth = &std::get<schedule::For>(at_depth->back().node).body;
        }
        Expr at;
        for (size_t k = 0; k < nest.loops.size(); ++k) at = at.plus(variable("i" + std::to_string(k), nest.loops[k].element_stride));
        at.constant = nest.element_start;
        schedule::ScaledStore store{at, variable("first").plus(at), helper_name(kernel, "value"),
                                    schedule::ScaledStore::ZeroPoint::None, plan.zero_point_value, convert};
        if (plan.zero_point == RowPlan::ZeroPoint::Table) store.zero_point = schedule::ScaledStore::ZeroPoint::Read;
        if (plan.zero_point == RowPlan::ZeroPoint::Literal) store.zero_point = schedule::ScaledStore::ZeroPoint::Literal;
        at_depth->push_back(wrap(std::move(store)));
        if (plan.nests.size() > 1) {
            body.push_back(wrap(schedule::Block{std::move(nest_body)}));  // each nest's scale in a scope of its own
        } else {
            body.insert(body.end(), nest_body.begin(), nest_body.end());
        }
    }
    return body;
}

// The row function's comment and value reader (row_function.c.mustache).
TemplateValues row_head(const KernelSpec& spec, const RowPlan& plan) {
    const KernelSpec::Quantization& q = *spec.quantization;
    const unsigned bits = quantized_type_bits(q.type);
    const std::string type = quantized_type_name(q.type);
    const std::string dtype(info(spec.dtype).name);
    TemplateValues values;
    values.text["value_comment"] = "Value `at` of the quantized table, an " + type +
                                   (bits == 8 ? " (one a byte)." : " (two a byte, element 2k in the low nibble of byte k).");
    values.text["value"] = helper_name(spec.name, "value");
    values.text["data"] = helper_name(spec.name, "data");
    values.flags["bytes"] = bits == 8;
    values.flags["nibbles"] = bits == 4;
    values.flags["signed"] = quantized_type_signed(q.type);
    values.text["comment1"] = "Row `row` of the quantized table, dequantized into `to`: each of its " +
                              std::to_string(plan.row_elements) + " elements (" + type + " q) becomes";
    values.text["comment2"] = "(float)(q - zero_point) * scale, one rounding" +
                              std::string(spec.dtype == DType::Float32 ? "" : ", then to " + dtype + " (nearest, ties to even)") +
                              "; " + quantization_mode(q) + ".";
    values.text["function"] = helper_name(spec.name, "dequantize");
    // The contracts' bounds (row_function.c.mustache): the table's values, its rows, a row's elements.
    const uint64_t total = element_count(spec.data_shape);
    values.text["values"] = std::to_string(total) + "u";
    values.text["rows"] = std::to_string(plan.row_elements == 0 ? 0 : total / plan.row_elements) + "u";
    values.text["row_elements"] = std::to_string(plan.row_elements) + "u";
    const bool is_signed = quantized_type_signed(q.type);
    const int64_t levels = int64_t{1} << bits;
    values.text["value_low"] = std::to_string(is_signed ? -levels / 2 : 0);
    values.text["value_high"] = std::to_string(is_signed ? levels / 2 - 1 : levels - 1);
    values.text["element"] = std::string(info(spec.dtype).c_type);
    return values;
}

}  // namespace

void lower_table_rows(const KernelSpec& spec, Lowered& lowered) {
    if (!spec.quantization) return;
    const KernelSpec::Quantization& q = *spec.quantization;
    const std::string type = quantized_type_name(q.type);
    const RowPlan plan = plan_rows(spec);
    const bool copies = lowered.copy.copy_count() > 0;
    if (copies) lowered.row_function = RowFunction{"dequantize", plan.row_elements, row_head(spec, plan), row_body(spec, plan, spec.name)};
    // The tables: the values (never addressed as elements of dtype: their bytes count for the size guard), the
    // scales and, one per scale where they differ, the zero points (one a byte).
    lowered.data_bytes = spec.constant_data->bytes.size();
    DataFile& file = lowered.data_file;
    file.tables.clear();
    file.tables.push_back(TableData{"data", 8, false, &spec.constant_data->bytes, {},
                                        quantized_type_bits(q.type) == 8
                                            ? "The " + type + " values, one a byte (their bit patterns)."
                                            : "The " + type + " values, two a byte: element 2k in the low nibble of byte k."});
    file.tables.push_back(TableData{"scales", info(spec.dtype).bits, false, &q.scales, {},
                                        "The scales: " + std::string(info(spec.dtype).name) + " " + format_shape(q.scales_shape) +
                                            " (" + quantization_mode(q) + "), as bit patterns."});
    if (copies && plan.zero_point == RowPlan::ZeroPoint::Table) {
        TableData zero_points{"zero_points", 8, false, nullptr, {},
                                  "The zero points, one per scale: " + type + " values, one a byte (their bit patterns)."};
        for (int32_t zero : q.zero_points) zero_points.owned.push_back(static_cast<uint8_t>(zero & 0xFF));
        file.tables.push_back(std::move(zero_points));
    }
    const std::string from = spec.constant_data->file.empty()
                                 ? " (given in the spec)"
                                 : " from " + shown_file_name(spec.constant_data->file);
    file.line1 = type + " " + format_shape(spec.data_shape) + from + ", quantized (" + quantization_mode(q) + "), row-major,";
    file.line2 = "its scales " + std::string(info(spec.dtype).name) + ": each element dequantizes to (q - zero_point) * scale";
    lowered.face.contract.text["data_note"] += ", as " + type + " values (" + quantization_mode(q) +
                                               "), each gathered one dequantized: (q - zero_point) * scale";
}

}  // namespace kernelgen
