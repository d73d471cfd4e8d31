// The plan of a quantized table's row function: which loops walk a row, and where each reads its scale.
//
// A Gather along axis 0 copies whole rows: row r of data [d0, d1, ...] is its I = d1 * d2 * ... elements from
// r * I. With the quantization axis a >= 1, a row is [P, da, Q] (P the sizes between axis 0 and a, Q those after
// a), and the element (p, c, q) of row r takes the scale at
//   per axis:    c
//   blocked (B): ((r * P + p) * nb + c / B) * Q + q, with nb = ceil(da / B)
// along axis 0 (a = 0) element j of row r takes scale r (per axis) or (r / B) * I + j (blocked); with no axis,
// scale 0. The loops split c into whole blocks and the elements of a block, so that no element divides.
#include <algorithm>

#include "codegen/schedule.h"
#include "common/shape_math.h"

namespace kernelgen {
namespace schedule {
namespace {

// Drops loops of extent 1 and folds a loop into the next inner one when together they step as one loop.
DequantizeNest tidy(DequantizeNest nest) {
    std::vector<DequantizeLoop> loops;
    for (const DequantizeLoop& loop : nest.loops) {
        if (loop.extent == 1) continue;
        loops.push_back(loop);
    }
    std::vector<DequantizeLoop> merged;
    for (const DequantizeLoop& loop : loops) {
        if (!merged.empty()) {
            DequantizeLoop& outer = merged.back();
            if (outer.element_stride == loop.extent * loop.element_stride && outer.scale_stride == loop.extent * loop.scale_stride) {
                outer = DequantizeLoop{outer.extent * loop.extent, loop.element_stride, loop.scale_stride};
                continue;
            }
        }
        merged.push_back(loop);
    }
    nest.loops = merged;
    // The scale is read inside the outer loops that move it, before those that do not.
    nest.scale_depth = nest.loops.size();
    while (nest.scale_depth > 0 && nest.loops[nest.scale_depth - 1].scale_stride == 0) --nest.scale_depth;
    return nest;
}

}  // namespace

DequantizeHelper plan_dequantize(const KernelSpec& spec) {
    const KernelSpec::Quantization& q = *spec.quantization;
    const Shape& d = spec.data_shape;
    DequantizeHelper out;
    out.row_elements = element_count(Shape(d.begin() + 1, d.end()));
    const uint64_t row = out.row_elements;
    if (q.axis < 0) {
        out.nests.push_back(DequantizeNest{{{row, 1, 0}}, 0, 0, 0});
    } else if (q.axis == 0) {
        out.row_divisor = q.block_size == 0 ? 1 : q.block_size;
        out.row_scale_stride = q.block_size == 0 ? 1 : row;
        out.nests.push_back(DequantizeNest{{{row, 1, q.block_size == 0 ? 0u : 1u}}, 0, 0, 0});
    } else {
        const auto a = static_cast<size_t>(q.axis);
        const uint64_t p = element_count(Shape(d.begin() + 1, d.begin() + static_cast<std::ptrdiff_t>(a)));
        const uint64_t da = d[a];
        const uint64_t qn = element_count(Shape(d.begin() + static_cast<std::ptrdiff_t>(a) + 1, d.end()));
        if (q.block_size == 0) {
            out.nests.push_back(DequantizeNest{{{p, da * qn, 0}, {da, qn, 1}, {qn, 1, 0}}, 0, 0, 0});
        } else {
            const uint64_t b = q.block_size, blocks = (da + b - 1) / b, whole = da / b, tail = da % b;
            out.row_scale_stride = p * blocks * qn;
            if (whole > 0) {
                out.nests.push_back(DequantizeNest{{{p, da * qn, blocks * qn}, {whole, b * qn, qn}, {b, qn, 0}, {qn, 1, 1}}, 0, 0, 0});
            }
            if (tail > 0) {
                out.nests.push_back(DequantizeNest{{{p, da * qn, blocks * qn}, {tail, qn, 0}, {qn, 1, 1}}, whole * b * qn, whole * qn, 0});
            }
        }
    }
    // A nest with a loop of no elements (data of a zero-size axis) writes nothing.
    std::vector<DequantizeNest> nests;
    for (const DequantizeNest& nest : out.nests) {
        const bool empty = std::any_of(nest.loops.begin(), nest.loops.end(), [](const DequantizeLoop& l) { return l.extent == 0; });
        if (!empty) nests.push_back(tidy(nest));
    }
    out.nests = nests;
    // Zero points: none or all equal need no table.
    const std::vector<int32_t>& zeros = q.zero_points;
    const bool all_equal = std::all_of(zeros.begin(), zeros.end(), [&](int32_t z) { return z == zeros.front(); });
    if (zeros.empty() || (all_equal && zeros.front() == 0)) {
        out.zero_point = DequantizeHelper::ZeroPoint::None;
    } else if (all_equal) {
        out.zero_point = DequantizeHelper::ZeroPoint::Literal;
        out.zero_point_value = zeros.front();
    } else {
        out.zero_point = DequantizeHelper::ZeroPoint::Table;
    }
    return out;
}

}  // namespace schedule
}  // namespace kernelgen
