// Run-time counts inside shape values: Shape of a counted tensor is a value with a count among its elements;
// Gather, Slice, Concat, Unsqueeze, Squeeze and Cast carry those elements as they carry numbers; ConstantOfShape,
// Expand, Reshape and Range turn a counted element back into a counted dimension, with the element's bound.
// torchvision writes labels = full_like(scores, label), boxes.reshape(boxes.shape[0], -1, 4) and
// levels.expand(rois.shape[0], ...) this way.
#include "import/counts/rules.h"

#include <limits>

namespace kernelgen::counts {

namespace {

// The count of `element` passed on by this node (its axis set where it lands).
CountedDim passed(const NodeView& v, const CountedDim& count, size_t axis) {
    CountedDim out = count;
    out.axis = axis;
    out.through.push_back(v.label);
    return out;
}

// A value result: kept only when a count is among its elements (otherwise folding has the value).
std::optional<CountedValue> with_count(CountedValue out) {
    if (!out.has_count()) return std::nullopt;
    return out;
}

// The element positions ONNX's Slice picks from a 1-D value of `n` elements.
std::optional<std::vector<size_t>> sliced_positions(int64_t n, int64_t start, int64_t end, int64_t step) {
    if (step == 0) return std::nullopt;
    auto clamp = [](int64_t x, int64_t low, int64_t high) { return std::max(low, std::min(high, x)); };
    if (start < 0) start += n;  // n is small: no overflow even from INT64_MIN
    if (end < 0) end += n;
    step = step > 0 ? std::min(step, n + 1) : std::max(step, -n - 1);  // as far as it goes, without overflow
    start = step > 0 ? clamp(start, 0, n) : clamp(start, 0, n - 1);
    end = step > 0 ? clamp(end, 0, n) : clamp(end, -1, n - 1);
    std::vector<size_t> out;
    for (int64_t i = start; step > 0 ? i < end : i > end; i += step) out.push_back(static_cast<size_t>(i));
    return out;
}

// A shape (input 1 of Reshape or Expand) with one counted element, and where that is.
struct CountedTarget {
    std::vector<ValueElement> elements;
    size_t at = 0;
};

std::optional<CountedTarget> one_counted_element(const NodeView& v) {
    const auto target = v.elements(1);
    if (!target || target->scalar) return std::nullopt;
    const auto at = target->only_count();
    if (!at) return std::nullopt;
    return CountedTarget{target->elements, *at};
}

}  // namespace

std::optional<CountedValue> shape_value(const NodeView& v) {
    const CountedDim* in = v.counted(0);
    const auto rank = v.input_rank(0);
    if (!in || !rank) return std::nullopt;
    const auto r = static_cast<int64_t>(*rank);
    // Shape of opset 15 takes the dimensions [start, end), negative ones counted from the end.
    const auto start_attribute = int_attribute(v.node, "start", 0), end_attribute = int_attribute(v.node, "end", r);
    if (!start_attribute || !end_attribute) return std::nullopt;
    auto position = [r](int64_t p) { return std::max<int64_t>(0, std::min(r, p < 0 ? p + r : p)); };
    CountedValue out;
    for (int64_t d = position(*start_attribute); d < position(*end_attribute); ++d) {
        if (static_cast<size_t>(d) == in->axis) {
            out.elements.push_back(ValueElement{0, passed(v, *in, 0)});
        } else if (const auto size = v.static_dim(0, static_cast<size_t>(d))) {
            out.elements.push_back(ValueElement{*size, std::nullopt});
        } else {
            return std::nullopt;
        }
    }
    return with_count(out);
}

std::optional<CountedValue> gather_value(const NodeView& v) {
    if (!v.counted_value(0)) return std::nullopt;
    const auto data = v.elements(0);
    const auto indices = v.ints(1, true);
    const auto axis = int_attribute(v.node, "axis", 0);
    if (!data || data->scalar || !data->has_count() || !indices || !axis || (*axis != 0 && *axis != -1)) {
        return std::nullopt;
    }
    const auto n = static_cast<int64_t>(data->elements.size());
    CountedValue out;
    out.scalar = v.value(1)->dims.empty();
    for (int64_t i : *indices) {
        if (i < -n || i >= n) return std::nullopt;
        ValueElement e = data->elements[static_cast<size_t>(i < 0 ? i + n : i)];
        if (e.count) e.count = passed(v, *e.count, 0);
        out.elements.push_back(std::move(e));
    }
    return with_count(out);
}

std::optional<CountedValue> same_value(const NodeView& v) {
    if (!v.counted_value(0)) return std::nullopt;
    const auto in = v.elements(0);
    const auto rank = v.output_rank(0);
    if (!in || !in->has_count() || !rank || *rank > 1 || (*rank == 0 && in->elements.size() != 1)) return std::nullopt;
    if (v.node.op_type() == "Cast") {
        // To an integer type that holds every bound: the count's value is unchanged.
        const auto to = int_attribute(v.node, "to", 0);
        if (!to || (*to != onnx::TensorProto::INT64 && *to != onnx::TensorProto::INT32)) return std::nullopt;
        for (const auto& e : in->elements) {
            const uint64_t most = e.count ? e.count->bound : static_cast<uint64_t>(std::abs(e.known));
            if (*to == onnx::TensorProto::INT32 && most > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
                return std::nullopt;
            }
        }
    }
    CountedValue out = *in;
    out.scalar = *rank == 0;
    for (auto& e : out.elements) {
        if (e.count) e.count = passed(v, *e.count, 0);
    }
    return out;
}

std::optional<CountedValue> concat_value(const NodeView& v) {
    bool counted = false;
    for (int i = 0; i < v.node.input_size(); ++i) counted = counted || v.counted_value(i);
    if (!counted) return std::nullopt;
    CountedValue out;
    for (int i = 0; i < v.node.input_size(); ++i) {
        if (!v.has(i)) continue;
        const auto part = v.elements(i);
        if (!part || part->scalar) return std::nullopt;
        for (const auto& e : part->elements) out.elements.push_back(e);
    }
    for (auto& e : out.elements) {
        if (e.count) e.count = passed(v, *e.count, 0);
    }
    return with_count(out);
}

std::optional<CountedValue> slice_value(const NodeView& v) {
    if (!v.counted_value(0)) return std::nullopt;
    const auto data = v.elements(0);
    if (!data || data->scalar || !data->has_count()) return std::nullopt;
    const auto given = slice_arguments(v);
    if (!given) return std::nullopt;
    const auto& [starts, ends, axes, steps] = *given;
    if (!starts || !ends || starts->size() != 1 || ends->size() != 1) return std::nullopt;
    if (axes && (axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1))) return std::nullopt;
    if (steps && steps->size() != 1) return std::nullopt;
    const auto positions = sliced_positions(static_cast<int64_t>(data->elements.size()), (*starts)[0], (*ends)[0],
                                            steps ? (*steps)[0] : 1);
    if (!positions) return std::nullopt;
    CountedValue out;
    for (size_t p : *positions) {
        ValueElement e = data->elements[p];
        if (e.count) e.count = passed(v, *e.count, 0);
        out.elements.push_back(std::move(e));
    }
    return with_count(out);
}

// Equal of shape values: known wherever a count is compared with a number it cannot be (a count is never
// negative nor above its bound) or with itself. PyTorch exports x.expand(n, C, H, W) as
// Expand(x, Where(Equal(shape, -1), ones, shape)), which this settles.
std::optional<CountedValue> equal_value(const NodeView& v) {
    if (!v.counted_value(0) && !v.counted_value(1)) return std::nullopt;
    const auto a = v.elements(0), b = v.elements(1);
    if (!a || !b) return std::nullopt;
    const size_t n = std::max(a->elements.size(), b->elements.size());
    if ((a->elements.size() != n && a->elements.size() != 1) || (b->elements.size() != n && b->elements.size() != 1)) {
        return std::nullopt;
    }
    CountedValue out;
    out.scalar = a->scalar && b->scalar;
    for (size_t i = 0; i < n; ++i) {
        const ValueElement& x = a->elements[a->elements.size() == 1 ? 0 : i];
        const ValueElement& y = b->elements[b->elements.size() == 1 ? 0 : i];
        bool equal = false;
        if (!x.count && !y.count) {
            equal = x.known == y.known;
        } else if (x.count && y.count) {
            if (x.count->identity != y.count->identity) return std::nullopt;  // two counts that may differ
            equal = true;
        } else {
            const CountedDim& count = x.count ? *x.count : *y.count;
            const int64_t number = x.count ? y.known : x.known;
            if (number >= 0 && static_cast<uint64_t>(number) <= count.bound) return std::nullopt;  // it may be
        }
        out.elements.push_back(ValueElement{equal ? 1 : 0, std::nullopt});
    }
    return out;
}

// Where of shape values by a known condition: each element from x or y, counts included.
std::optional<CountedValue> where_value(const NodeView& v) {
    if (!v.counted_value(0) && !v.counted_value(1) && !v.counted_value(2)) return std::nullopt;
    const auto condition = v.elements(0), x = v.elements(1), y = v.elements(2);
    if (!condition || !x || !y || condition->has_count()) return std::nullopt;
    const size_t n = std::max({condition->elements.size(), x->elements.size(), y->elements.size()});
    for (const auto* part : {&*condition, &*x, &*y}) {
        if (part->elements.size() != n && part->elements.size() != 1) return std::nullopt;
    }
    CountedValue out;
    out.scalar = condition->scalar && x->scalar && y->scalar;
    for (size_t i = 0; i < n; ++i) {
        auto at = [i](const CountedValue& part) { return part.elements[part.elements.size() == 1 ? 0 : i]; };
        ValueElement e = at(*condition).known ? at(*x) : at(*y);
        if (e.count) e.count = passed(v, *e.count, 0);
        out.elements.push_back(std::move(e));
    }
    return with_count(out);
}

Counted constant_of_shape(const NodeView& v) {
    if (!v.counted_value(0)) return std::nullopt;
    const auto shape = v.elements(0);
    if (!shape || shape->scalar) return std::nullopt;
    const auto at = shape->only_count();
    if (!at) return std::nullopt;
    return passed(v, *shape->elements[*at].count, *at);
}

Counted reshape_to(const NodeView& v) {
    const CountedDim* in = v.counted(0);
    if (!v.counted_value(1)) return in ? reshape(v, *in) : std::nullopt;
    // The one counted element is the output's dimension there, whatever the input: no -1 beside it (that would
    // divide by a count) unless that count is the input's own (then the -1 is static: see the analysis's
    // declare_counted_reshapes), and no 0 that copies the input's own count.
    const auto target = one_counted_element(v);
    const auto allow_zero = int_attribute(v.node, "allowzero", 0);
    if (!target || !allow_zero) return std::nullopt;
    const auto at = target->at;
    const bool same_count = in && in->identity && in->identity == target->elements[at].count->identity;
    for (size_t j = 0; j < target->elements.size(); ++j) {
        const ValueElement& e = target->elements[j];
        if (e.count || (e.known == -1 && same_count)) continue;
        if (e.known < 0) return std::nullopt;
        if (e.known == 0 && !*allow_zero && (!v.static_dim(0, j) || (in && in->axis == j))) return std::nullopt;
    }
    return passed(v, *target->elements[at].count, at);
}

Counted expand_to(const NodeView& v) {
    const CountedDim* in = v.counted(0);
    if (!v.counted_value(1)) return in ? expand(v, *in) : std::nullopt;
    const auto target = one_counted_element(v);
    const auto rank = v.input_rank(0);
    if (!target || !rank) return std::nullopt;
    const auto at = target->at;
    const size_t length = target->elements.size(), out_rank = std::max(length, *rank);
    const size_t axis = at + (out_rank - length);
    CountedDim out = passed(v, *target->elements[at].count, axis);
    // The input's dimension there: absent or 1 (broadcast to the count), or the input's own count (the larger).
    if (axis >= out_rank - *rank) {
        const size_t d = axis - (out_rank - *rank);
        if (in && in->axis == d) {
            out.bound = std::max(out.bound, in->bound);
            if (in->identity != out.identity) out.identity = v.self();  // the larger of two counts
        }
        else if (v.static_dim(0, d) != std::optional<int64_t>(1)) return std::nullopt;
    }
    // A count of the input elsewhere would be a second count.
    if (in && in->axis + (out_rank - *rank) != axis) return std::nullopt;
    return out;
}

Counted range(const NodeView& v) {
    if (!v.counted_value(1)) return std::nullopt;
    const auto start = v.ints(0, true), delta = v.ints(2, true);
    const auto limit = v.elements(1);
    if (!start || !delta || start->size() != 1 || delta->size() != 1 || !limit || !limit->scalar ||
        limit->elements.size() != 1 || !limit->elements[0].count || (*delta)[0] <= 0) {
        return std::nullopt;
    }
    // ceil((limit - start) / delta) elements, at most the bound's: computed without overflow.
    const uint64_t most = limit->elements[0].count->bound;
    const int64_t first = (*start)[0];
    uint64_t span = 0;
    if (first < 0) span = plus(most, static_cast<uint64_t>(-(first + 1)) + 1);
    else if (most > static_cast<uint64_t>(first)) span = most - static_cast<uint64_t>(first);
    const auto step = static_cast<uint64_t>((*delta)[0]);
    const uint64_t bound = span / step + (span % step != 0);
    CountedDim out = passed(v, *limit->elements[0].count, 0);
    if (bound != out.bound) out.through.back() += ": at most " + std::to_string(bound);
    out.bound = bound;
    if (first != 0 || (*delta)[0] != 1) out.identity = v.self();  // not the count itself
    return out;
}

}  // namespace kernelgen::counts
