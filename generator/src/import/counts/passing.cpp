// The operators a run-time count goes through: where the counted dimension lands in their output, and its bound
// there.
#include "import/counts/rules.h"

#include <limits>
#include <set>

namespace kernelgen::counts {

// The output's size there is the largest of the inputs' (a count of 1 broadcasts against any other; sizes that
// differ otherwise fail at run time): at most the largest bound.
Counted broadcast(const NodeView& v) {
    const auto rank = v.output_rank(0);
    if (!rank) return std::nullopt;
    std::optional<size_t> axis;
    const CountedDim* highest = nullptr;
    for (int i = 0; i < v.node.input_size(); ++i) {
        if (!v.has(i)) continue;
        const auto r = v.input_rank(i);
        if (!r || *r > *rank) return std::nullopt;
        if (const CountedDim* c = v.counted(i)) {
            const size_t at = c->axis + (*rank - *r);
            if (axis && *axis != at) return std::nullopt;
            axis = at;
            if (!highest || c->bound > highest->bound) highest = c;
        }
    }
    if (!axis) return std::nullopt;
    Counted out = v.moved(*highest, *axis);
    for (int i = 0; i < v.node.input_size(); ++i) {
        const CountedDim* c = v.counted(i);
        if (c && c->identity != highest->identity) out->identity = v.self();  // the larger of two counts
    }
    // Every input without the count has 1 there, or no such axis (broadcast); another size would fix the count.
    for (int i = 0; i < v.node.input_size(); ++i) {
        if (!v.has(i) || v.counted(i)) continue;
        const size_t r = *v.input_rank(i);
        if (*axis + r < *rank) continue;
        if (v.static_dim(i, *axis + r - *rank) != std::optional<int64_t>(1)) return std::nullopt;
    }
    return out;
}

Counted transpose(const NodeView& v, const CountedDim& in) {
    const auto rank = v.input_rank(0);
    if (!rank) return std::nullopt;
    Dims perm;
    if (const auto given = ints_attribute(v.node, "perm")) perm = *given;
    else for (size_t i = *rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    for (size_t i = 0; i < perm.size(); ++i) {
        if (perm[i] == static_cast<int64_t>(in.axis)) return v.moved(in, i);
    }
    return std::nullopt;
}

Counted squeeze(const NodeView& v, const CountedDim& in) {
    const auto rank = v.input_rank(0);
    const auto axes = v.axes(13);
    if (!rank || !axes || axes->empty()) return std::nullopt;  // without axes, a count of 1 would be squeezed too
    size_t before = 0;
    for (int64_t a : *axes) {
        const auto axis = normalized_axis(a, *rank);
        if (!axis || *axis == in.axis) return std::nullopt;
        if (*axis < in.axis) ++before;
    }
    return v.moved(in, in.axis - before);
}

Counted unsqueeze(const NodeView& v, const CountedDim& in) {
    const auto rank = v.input_rank(0);
    const auto axes = v.axes(13);
    if (!rank || !axes) return std::nullopt;
    const size_t out_rank = *rank + axes->size();
    std::set<size_t> inserted;
    for (int64_t a : *axes) {
        const auto axis = normalized_axis(a, out_rank);
        if (!axis || !inserted.insert(*axis).second) return std::nullopt;
    }
    size_t kept = 0;
    for (size_t i = 0; i < out_rank; ++i) {
        if (inserted.count(i)) continue;
        if (kept++ == in.axis) return v.moved(in, i);
    }
    return std::nullopt;
}

// Reshape to a known shape: a 0 that copies the counted dimension keeps the count; otherwise the one -1 takes
// count x (the other input dims) / (the other output dims), at most bound x P / Q.
Counted reshape(const NodeView& v, const CountedDim& in) {
    const auto target = v.ints(1);
    const auto shape = v.bounded_shape(0);
    const auto allow_zero = int_attribute(v.node, "allowzero", 0);
    if (!target || !shape || !allow_zero) return std::nullopt;
    uint64_t others_in = 1, others_out = 1;
    for (size_t i = 0; i < shape->size(); ++i) {
        if (i != in.axis) others_in = times(others_in, (*shape)[i]);
    }
    std::optional<size_t> copied, inferred;
    for (size_t j = 0; j < target->size(); ++j) {
        const int64_t t = (*target)[j];
        if (t == -1) {
            if (inferred) return std::nullopt;
            inferred = j;
        } else if (t == 0 && !*allow_zero) {
            if (j >= shape->size()) return std::nullopt;
            if (j == in.axis) copied = j;
            else others_out = times(others_out, (*shape)[j]);
        } else if (t < 0) {
            return std::nullopt;
        } else {
            others_out = times(others_out, static_cast<uint64_t>(t));
        }
    }
    if (copied) return v.moved(in, *copied);
    if (!inferred || others_out == 0) return std::nullopt;
    if (others_in == others_out) return v.moved(in, *inferred);  // the count itself, moved
    return v.resized(in, *inferred, times(in.bound, others_in) / others_out);
}

Counted flatten(const NodeView& v, const CountedDim& in) {
    const auto shape = v.bounded_shape(0);
    const auto axis_attribute = int_attribute(v.node, "axis", 1);
    if (!shape || !axis_attribute) return std::nullopt;
    const auto rank = static_cast<int64_t>(shape->size());
    if (*axis_attribute < -rank || *axis_attribute > rank) return std::nullopt;
    const auto split = static_cast<size_t>(*axis_attribute < 0 ? *axis_attribute + rank : *axis_attribute);
    const bool first = in.axis < split;
    uint64_t others = 1;  // the merged dimensions but the count
    for (size_t i = first ? 0 : split; i < (first ? split : shape->size()); ++i) {
        if (i != in.axis) others = times(others, (*shape)[i]);
    }
    if (others == 1) return v.moved(in, first ? 0 : 1);  // the count itself, moved
    return v.resized(in, first ? 0 : 1, times(in.bound, others));
}

// Slice never lengthens an axis: the count stays where it is, at most its bound, and at most end - start for a
// known slice from a non-negative start to a non-negative end.
std::optional<SliceArguments> slice_arguments(const NodeView& v) {
    SliceArguments out;
    if (v.opset < 10) {
        out.starts = ints_attribute(v.node, "starts");
        out.ends = ints_attribute(v.node, "ends");
        out.axes = ints_attribute(v.node, "axes");
        return out;
    }
    out.starts = v.ints(1);
    out.ends = v.ints(2);
    out.axes = v.has(3) ? v.ints(3) : std::nullopt;
    out.steps = v.has(4) ? v.ints(4) : std::nullopt;
    if ((v.has(3) && !out.axes) || (v.has(4) && !out.steps)) return std::nullopt;
    return out;
}

Counted slice(const NodeView& v, const CountedDim& in) {
    // Sliced along its axis (or along axes not known), what is left of the count is a count of its own.
    CountedDim own = in;
    own.identity = v.self();
    const auto given = slice_arguments(v);
    if (!given) return v.moved(own, in.axis);
    const auto& [starts, ends, axes, steps] = *given;
    const auto rank = v.input_rank(0);
    if (!starts || !ends || !rank || starts->size() != ends->size()) return v.moved(own, in.axis);
    for (size_t k = 0; k < starts->size(); ++k) {
        const int64_t a = axes && k < axes->size() ? (*axes)[k] : static_cast<int64_t>(k);
        const int64_t step = steps && k < steps->size() ? (*steps)[k] : 1;
        const auto axis = normalized_axis(a, *rank);
        if (!axis) return v.moved(own, in.axis);
        if (*axis != in.axis) continue;
        const int64_t b = (*starts)[k], e = (*ends)[k];
        if (step > 0 && b >= 0 && e >= 0) {
            const uint64_t length = e > b ? static_cast<uint64_t>((e - b - 1) / step + 1) : 0;
            return v.moved(own, in.axis, length);
        }
        return v.moved(own, in.axis);
    }
    return v.moved(in, in.axis);  // sliced along other axes only: the count itself
}

std::optional<Dims> slice_axes(const GraphScope& scope, const onnx::NodeProto& node) {
    if (node.input_size() > 3 && !node.input(3).empty()) {
        const TensorValue* given = scope.value(node.input(3));
        if (!given || given->dims.size() != 1 || given->is_real()) return std::nullopt;
        return given->ints;
    }
    if (node.input_size() < 2) return std::nullopt;
    const auto starts = static_shape(scope.type(node.input(1)));
    // As many axes as starts has elements, which the model declares: never more than a rank import reads (a
    // declared int64[2^40] once listed 2^40 axes, 16 GB).
    if (!starts || starts->size() != 1 || static_cast<uint64_t>((*starts)[0]) > kMaxFoldRank) return std::nullopt;
    Dims axes;
    for (int64_t a = 0; a < (*starts)[0]; ++a) axes.push_back(a);
    return axes;
}

// Slice: a count goes through (see slice above); by run-time starts or ends (opset 10 on) along one axis, it makes
// a new count there, at most that axis's size.
std::vector<Counted> slice_outputs(const NodeView& v) {
    if (const CountedDim* in = v.counted(0)) return {slice(v, *in)};
    if (v.opset < 10 || (v.value(1) && v.value(2))) return {};
    const auto rank = v.input_rank(0);
    const auto axes = slice_axes(v.scope, v.node);
    if (!rank || !axes || axes->size() != 1) return {};
    const auto axis = normalized_axis(axes->front(), *rank);
    if (!axis) return {};
    const auto size = v.static_dim(0, *axis);
    if (!size) return {};
    return {v.source(*axis, static_cast<uint64_t>(*size),
                     "the size of axis " + std::to_string(*axis) + " of its input (starts or ends are known only at run time)")};
}

// RoiAlign: one output row per region of interest (rois' and batch_indices' leading dimension).
Counted roi_align(const NodeView& v) {
    const CountedDim* rois = v.counted(1) ? v.counted(1) : v.counted(2);
    if (!rois || rois->axis != 0 || v.counted(0)) return std::nullopt;
    return v.moved(*rois, 0);
}

// Gemm: A's rows (its columns with transA) are the output's rows.
Counted gemm(const NodeView& v) {
    const CountedDim* a = v.counted(0);
    const auto trans_a = int_attribute(v.node, "transA", 0);
    if (!a || v.counted(1) || v.counted(2) || !trans_a || v.input_rank(0) != std::optional<size_t>(2)) return std::nullopt;
    if (a->axis != (*trans_a ? 1u : 0u)) return std::nullopt;
    return v.moved(*a, 0);
}

Counted expand(const NodeView& v, const CountedDim& in) {
    const auto shape = v.ints(1);
    const auto rank = v.input_rank(0);
    if (!shape || !rank || shape->size() < *rank) return std::nullopt;
    const size_t axis = in.axis + (shape->size() - *rank);
    if ((*shape)[axis] != 1) return std::nullopt;  // another size broadcasts a count of 1 to a fixed size
    return v.moved(in, axis);
}

Counted concat(const NodeView& v) {
    const auto rank = v.input_rank(0);
    const auto axis_attribute = int_attribute(v.node, "axis", std::numeric_limits<int64_t>::min());
    if (!rank || !axis_attribute) return std::nullopt;
    const auto axis = normalized_axis(*axis_attribute, *rank);
    if (!axis) return std::nullopt;
    const CountedDim* first = nullptr;
    uint64_t total = 0, lowest = kSaturated, added = 0;  // added: what inputs without the count add to it
    size_t counted = 0;
    for (int i = 0; i < v.node.input_size(); ++i) {
        const CountedDim* c = v.counted(i);
        if (c) {
            if (first && c->axis != first->axis) return std::nullopt;
            if (!first) first = c;
            total = plus(total, c->bound);
            lowest = std::min(lowest, c->bound);
            ++counted;
        } else if (const auto d = v.static_dim(i, *axis)) {
            total = plus(total, static_cast<uint64_t>(*d));
            added = plus(added, static_cast<uint64_t>(*d));
        } else {
            return std::nullopt;
        }
    }
    if (!first) return std::nullopt;
    CountedDim out = *first;
    out.bound = first->axis == *axis ? total : lowest;
    if (first->axis == *axis && (counted > 1 || added > 0)) out.identity = v.self();  // a sum of counts
    out.through.push_back(v.label + (out.bound == first->bound ? "" : ": at most " + std::to_string(out.bound)));
    return out;
}

Counted matmul(const NodeView& v) {
    const CountedDim* a = v.counted(0);
    const auto rank_a = v.input_rank(0), rank_b = v.input_rank(1);
    if (!a || v.counted(1) || !rank_a || !rank_b || *rank_a < 2 || *rank_b > *rank_a || a->axis != *rank_a - 2) {
        return std::nullopt;
    }
    return v.moved(*a, a->axis);
}

// The indexing operators: where their output's dimensions come from.
Counted gather(const NodeView& v) {
    const CountedDim* data = v.counted(0);
    const CountedDim* indices = v.counted(1);
    const auto rank = v.input_rank(0), index_rank = v.input_rank(1);
    const auto axis_attribute = int_attribute(v.node, "axis", 0);
    if (!rank || !index_rank || !axis_attribute) return std::nullopt;
    const auto axis = normalized_axis(*axis_attribute, *rank);
    if (!axis) return std::nullopt;
    // The output is data[:axis] + indices + data[axis+1:]: a count of data along the gathered axis is gone.
    if (indices) {
        if (data && data->axis != *axis) return std::nullopt;  // two counts in the output
        return v.moved(*indices, *axis + indices->axis);
    }
    if (!data || data->axis == *axis) return std::nullopt;  // the gathered axis: the output takes indices' shape
    return v.moved(*data, data->axis < *axis ? data->axis : data->axis + *index_rank - 1);
}

Counted gather_nd(const NodeView& v) {
    const CountedDim* data = v.counted(0);
    const CountedDim* indices = v.counted(1);
    const auto rank = v.input_rank(0), index_rank = v.input_rank(1);
    const auto k = v.static_dim(1, index_rank.value_or(1) - 1);
    const auto batch_dims = int_attribute(v.node, "batch_dims", 0);
    if (!rank || !index_rank || !k || !batch_dims || *index_rank == 0) return std::nullopt;
    const auto b = static_cast<size_t>(*batch_dims);
    if (indices && !data && indices->axis + 1 < *index_rank && indices->axis >= b) return v.moved(*indices, indices->axis);
    if (data && !indices && data->axis >= b + static_cast<size_t>(*k)) {
        return v.moved(*data, *index_rank - 1 + data->axis - b - static_cast<size_t>(*k));
    }
    return std::nullopt;
}

// An element-wise operator of one input: the count stays on its axis.
Counted same_axis(const NodeView& v, const CountedDim& in) { return v.moved(in, in.axis); }

// Convolutions and pooling keep the batch, axis 0 (Mask R-CNN's mask head over its regions); the weights, bias and
// the other axes have no count.
Counted batch(const NodeView& v) {
    const CountedDim* in = v.counted(0);
    if (!in || in->axis != 0) return std::nullopt;
    for (int i = 1; i < v.node.input_size(); ++i) {
        if (v.counted(i)) return std::nullopt;
    }
    return v.moved(*in, 0);
}

// Resize and Upsample keep a count whose axis their known scales leave at 1.0 (Keypoint R-CNN's heatmaps, scaled
// by [1, 1, 2, 2]); by sizes, or other scales, the count is lost.
Counted resize(const NodeView& v, const CountedDim& in) {
    const bool upsample = v.node.op_type() == "Upsample" || v.opset < 11;  // X, scales; from opset 11 X, roi, scales
    const int scales = upsample ? 1 : 2;
    if (!upsample && v.node.input_size() > 3 && !v.node.input(3).empty()) return std::nullopt;  // sizes
    if (find_attribute(v.node, "axes")) return std::nullopt;  // opset 18: the scales of the axes listed
    const TensorValue* given = v.value(scales);
    if (!given || given->dims.size() != 1 || in.axis >= given->reals.size() || given->reals[in.axis] != 1.0) return std::nullopt;
    for (int i = 1; i < v.node.input_size(); ++i) {
        if (v.counted(i)) return std::nullopt;
    }
    return v.moved(in, in.axis);
}

// Pad keeps a count where its axis is padded by nothing (pads known, the axes input absent).
Counted pad(const NodeView& v, const CountedDim& in) {
    const auto rank = v.input_rank(0);
    const auto pads = v.node.input_size() > 1 ? v.ints(1) : ints_attribute(v.node, "pads");
    const bool axes = v.node.input_size() > 3 && !v.node.input(3).empty();
    if (axes || !rank || !pads || pads->size() != 2 * *rank || v.counted(1)) return std::nullopt;
    if ((*pads)[in.axis] != 0 || (*pads)[in.axis + *rank] != 0) return std::nullopt;
    return v.moved(in, in.axis);
}

// GatherElements' output has the shape of indices; a scatter's that of data.
std::vector<Counted> elements(const NodeView& v) {
    const CountedDim* from = v.node.op_type() == "GatherElements" ? v.counted(1) : v.counted(0);
    return {from ? v.moved(*from, from->axis) : Counted()};
}

// Every output of a Split has the count, unless it splits along the counted axis.
std::vector<Counted> split(const NodeView& v) {
    const CountedDim* in = v.counted(0);
    if (!in) return {};
    const auto axis = int_attribute(v.node, "axis", 0);
    const auto rank = v.input_rank(0);
    if (!axis || !rank || normalized_axis(*axis, *rank) == in->axis) return {};
    return std::vector<Counted>(static_cast<size_t>(v.node.output_size()), v.moved(*in, in->axis));
}

}  // namespace kernelgen::counts
