// Folding what exporters build shapes with: Constant, Shape, Size, Identity, Reshape, Flatten, Squeeze, Unsqueeze,
// Concat, Slice, Transpose, Expand, Tile, ConstantOfShape, Range.
#include "import/folding/rules.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>

#include "common/shape_math.h"
#include "import/folding/support.h"
#include "import/model/node_attributes.h"

namespace kernelgen::folding {

using onnx::TensorProto;

namespace {

Outputs shape_of(const onnx::NodeProto& node, const Dims& dims) {
    const auto rank = static_cast<int64_t>(dims.size());
    const auto start_attr = int_attribute(node, "start", 0);
    const auto end_attr = int_attribute(node, "end", rank);
    if (!start_attr || !end_attr) return std::nullopt;
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
    const int64_t start = clamp(*start_attr), end = clamp(*end_attr);
    Dims out;
    for (int64_t i = start; i < end; ++i) out.push_back(dims[static_cast<size_t>(i)]);
    return std::vector<TensorValue>{vector_int64(out)};
}

Outputs reshape(const onnx::NodeProto& node, const TensorValue& data, const TensorValue* shape_value) {
    const auto shape = int_list(shape_value);
    const auto allow_zero = int_attribute(node, "allowzero", 0);
    if (!shape || !allow_zero) return std::nullopt;
    Dims dims = *shape;
    int inferred = -1;
    uint64_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0 && *allow_zero == 0) {
            if (i >= data.dims.size()) return std::nullopt;
            dims[i] = data.dims[i];
        }
        if (dims[i] == -1) {
            if (inferred >= 0) return std::nullopt;
            inferred = static_cast<int>(i);
            continue;
        }
        if (dims[i] < 0 || static_cast<uint64_t>(dims[i]) > kMaxFoldElements) return std::nullopt;
        known *= static_cast<uint64_t>(dims[i]);
        if (known > kMaxFoldElements) return std::nullopt;
    }
    if (inferred >= 0) {
        if (known == 0 || data.count() % known != 0) return std::nullopt;
        dims[static_cast<size_t>(inferred)] = static_cast<int64_t>(data.count() / known);
    }
    const auto count = foldable_count(dims);
    if (!count || *count != data.count()) return std::nullopt;
    TensorValue out = data;
    out.dims = dims;
    return std::vector<TensorValue>{out};
}

Outputs flatten(const onnx::NodeProto& node, const TensorValue& data) {
    const auto axis_attr = int_attribute(node, "axis", 1);
    if (!axis_attr) return std::nullopt;
    const auto rank = static_cast<int64_t>(data.dims.size());
    int64_t axis = *axis_attr < 0 ? *axis_attr + rank : *axis_attr;
    if (axis < 0 || axis > rank) return std::nullopt;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= data.dims[static_cast<size_t>(i)];
    TensorValue out = data;
    out.dims = {outer, inner};
    return std::vector<TensorValue>{out};
}

// Unsqueeze and Squeeze: axes from the attribute (before opset 13) or the second input.
std::optional<Dims> axes_of(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs, bool& given) {
    given = false;
    if (opset < 13) {
        auto axes = ints_attribute(node, "axes");
        given = axes.has_value();
        return axes ? axes : Dims{};
    }
    if (inputs.size() < 2 || !inputs[1].present) return Dims{};
    given = true;
    return int_list(inputs[1].value);
}

Outputs unsqueeze(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs) {
    bool given = false;
    const auto axes = axes_of(node, opset, inputs, given);
    if (!axes || !given) return std::nullopt;
    const TensorValue& data = *inputs[0].value;
    const size_t rank = data.dims.size() + axes->size();
    if (rank > kMaxFoldRank) return std::nullopt;
    std::set<size_t> at;
    for (int64_t axis : *axes) {
        const auto a = normalized_axis(axis, rank);
        if (!a || !at.insert(*a).second) return std::nullopt;
    }
    TensorValue out = data;
    out.dims.clear();
    size_t next = 0;
    for (size_t i = 0; i < rank; ++i) out.dims.push_back(at.count(i) ? 1 : data.dims[next++]);
    return std::vector<TensorValue>{out};
}

Outputs squeeze(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs) {
    bool given = false;
    const auto axes = axes_of(node, opset, inputs, given);
    if (!axes) return std::nullopt;
    const TensorValue& data = *inputs[0].value;
    std::set<size_t> at;
    for (int64_t axis : *axes) {
        const auto a = normalized_axis(axis, data.dims.size());
        if (!a || data.dims[*a] != 1) return std::nullopt;
        at.insert(*a);
    }
    TensorValue out = data;
    out.dims.clear();
    for (size_t i = 0; i < data.dims.size(); ++i) {
        const bool drop = given ? at.count(i) > 0 : data.dims[i] == 1;
        if (!drop) out.dims.push_back(data.dims[i]);
    }
    return std::vector<TensorValue>{out};
}

Outputs concat(const onnx::NodeProto& node, const std::vector<const TensorValue*>& in, uint64_t limit) {
    const auto axis_attr = int_attribute(node, "axis", std::numeric_limits<int64_t>::min());
    if (!axis_attr || in.empty()) return std::nullopt;
    const TensorValue& first = *in[0];
    const auto axis = normalized_axis(*axis_attr, first.dims.size());
    if (!axis) return std::nullopt;
    Dims dims = first.dims;
    dims[*axis] = 0;
    for (const TensorValue* v : in) {
        if (v->type != first.type || v->dims.size() != first.dims.size()) return std::nullopt;
        for (size_t i = 0; i < dims.size(); ++i) {
            if (i != *axis && v->dims[i] != first.dims[i]) return std::nullopt;
        }
        dims[*axis] += v->dims[*axis];
    }
    if (!fits(dims, limit)) return std::nullopt;
    TensorValue out = make(first.type, dims);
    uint64_t outer = 1;
    for (size_t i = 0; i < *axis; ++i) outer *= static_cast<uint64_t>(dims[i]);
    uint64_t at = 0;
    for (uint64_t o = 0; o < outer; ++o) {
        for (const TensorValue* v : in) {
            const uint64_t block = outer == 0 ? 0 : v->count() / outer;
            for (uint64_t j = 0; j < block; ++j) copy_element(out, at++, *v, o * block + j);
        }
    }
    return std::vector<TensorValue>{out};
}

// Slice: attributes before opset 10, inputs from it on; ONNX's clamping for positive and negative steps.
Outputs slice(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs, uint64_t limit) {
    const TensorValue& data = *inputs[0].value;
    const size_t rank = data.dims.size();
    std::optional<Dims> starts, ends, axes, steps;
    if (opset < 10) {
        starts = ints_attribute(node, "starts");
        ends = ints_attribute(node, "ends");
        axes = ints_attribute(node, "axes");
    } else {
        auto input = [&](size_t i) -> std::optional<Dims> {
            if (inputs.size() <= i || !inputs[i].present) return std::nullopt;
            return int_list(inputs[i].value);
        };
        if (inputs.size() < 3) return std::nullopt;
        starts = input(1);
        ends = input(2);
        if (!starts || !ends) return std::nullopt;
        if (inputs.size() > 3 && inputs[3].present && !(axes = input(3))) return std::nullopt;
        if (inputs.size() > 4 && inputs[4].present && !(steps = input(4))) return std::nullopt;
    }
    if (!starts || !ends || starts->size() != ends->size()) return std::nullopt;
    if (!axes) {
        axes = Dims();
        for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
    }
    if (!steps) steps = Dims(starts->size(), 1);
    if (axes->size() != starts->size() || steps->size() != starts->size()) return std::nullopt;
    Dims first(rank, 0), step(rank, 1), dims = data.dims;
    std::set<size_t> seen;
    for (size_t k = 0; k < starts->size(); ++k) {
        const auto axis = normalized_axis((*axes)[k], rank);
        if (!axis || !seen.insert(*axis).second || (*steps)[k] == 0) return std::nullopt;
        const int64_t dim = data.dims[*axis], s = (*steps)[k];
        auto adjust = [&](int64_t v, int64_t low, int64_t high) { return std::clamp(v < 0 ? v + dim : v, low, high); };
        const int64_t b = s > 0 ? adjust((*starts)[k], 0, dim) : adjust((*starts)[k], 0, dim - 1);
        const int64_t e = s > 0 ? adjust((*ends)[k], 0, dim) : adjust((*ends)[k], -1, dim - 1);
        // Steps of any size: the count is ceil((e - b) / s) when positive.
        int64_t count = 0;
        if (s > 0 && e > b) count = (e - b - 1) / s + 1;
        if (s < 0 && e < b) count = (b - e - 1) / (-s) + 1;
        first[*axis] = b;
        step[*axis] = s;
        dims[*axis] = count;
    }
    if (!fits(dims, limit)) return std::nullopt;
    TensorValue out = make(data.type, dims);
    const auto strides = row_major_strides(data.dims);
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < out.count(); ++flat) {
        uint64_t from = 0;
        for (size_t a = 0; a < rank; ++a) from += static_cast<uint64_t>(first[a] + index[a] * step[a]) * strides[a];
        copy_element(out, flat, data, from);
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

Outputs transpose(const onnx::NodeProto& node, const TensorValue& data) {
    const size_t rank = data.dims.size();
    Dims perm;
    if (auto given = ints_attribute(node, "perm")) {
        perm = *given;
    } else {
        for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    }
    if (perm.size() != rank) return std::nullopt;
    std::set<int64_t> seen(perm.begin(), perm.end());
    if (seen.size() != rank || (rank && (*seen.begin() < 0 || *seen.rbegin() >= static_cast<int64_t>(rank)))) return std::nullopt;
    Dims dims(rank);
    for (size_t i = 0; i < rank; ++i) dims[i] = data.dims[static_cast<size_t>(perm[i])];
    TensorValue out = make(data.type, dims);
    const auto strides = row_major_strides(data.dims);
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < out.count(); ++flat) {
        uint64_t from = 0;
        for (size_t i = 0; i < rank; ++i) from += static_cast<uint64_t>(index[i]) * strides[static_cast<size_t>(perm[i])];
        copy_element(out, flat, data, from);
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

Outputs expand(const TensorValue& data, const TensorValue* shape_value, uint64_t limit) {
    const auto shape = int_list(shape_value);
    if (!shape) return std::nullopt;
    for (int64_t d : *shape) {
        if (d < 0) return std::nullopt;
    }
    const auto dims = broadcast({&data.dims, &*shape});
    if (!dims || !fits(*dims, limit)) return std::nullopt;
    TensorValue out = make(data.type, *dims);
    for_each_broadcast(*dims, {&data.dims}, [&](uint64_t flat, const std::vector<uint64_t>& at) { copy_element(out, flat, data, at[0]); });
    return std::vector<TensorValue>{out};
}

Outputs tile(const TensorValue& data, const TensorValue* repeats_value, uint64_t limit) {
    const auto repeats = int_list(repeats_value);
    if (!repeats || repeats->size() != data.dims.size()) return std::nullopt;
    Dims dims = data.dims;
    for (size_t i = 0; i < dims.size(); ++i) {
        if ((*repeats)[i] < 0) return std::nullopt;
        if ((*repeats)[i] > 0 && dims[i] > static_cast<int64_t>(kMaxFoldElements) / (*repeats)[i]) return std::nullopt;
        dims[i] *= (*repeats)[i];
    }
    if (!fits(dims, limit)) return std::nullopt;
    TensorValue out = make(data.type, dims);
    const auto strides = row_major_strides(data.dims);
    Dims index(dims.size(), 0);
    for (uint64_t flat = 0; flat < out.count(); ++flat) {
        uint64_t from = 0;
        for (size_t a = 0; a < dims.size(); ++a) from += static_cast<uint64_t>(index[a] % data.dims[a]) * strides[a];
        copy_element(out, flat, data, from);
        for (size_t a = dims.size(); a-- > 0;) {
            if (++index[a] < dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

Outputs constant_of_shape(const onnx::NodeProto& node, const TensorValue* shape_value, uint64_t limit) {
    if (shape_value && shape_value->ints.size() > kMaxFoldRank) return std::nullopt;  // a rank never folded: no copy
    const auto shape = int_list(shape_value);
    if (!shape || !fits(*shape, limit)) return std::nullopt;
    TensorValue fill = make(TensorProto::FLOAT, {1});  // ONNX's default: a float 0
    if (const auto* attribute = find_attribute(node, "value")) {
        if (attribute->type() != onnx::AttributeProto::TENSOR) return std::nullopt;
        auto given = read_tensor(attribute->t());
        if (!given || given->count() != 1) return std::nullopt;
        fill = *given;
    }
    TensorValue out = make(fill.type, *shape);
    for (uint64_t i = 0; i < out.count(); ++i) copy_element(out, i, fill, 0);
    return std::vector<TensorValue>{out};
}

Outputs range(const TensorValue& start, const TensorValue& end, const TensorValue& delta, uint64_t limit) {
    if (start.type != end.type || start.type != delta.type || start.count() != 1 || end.count() != 1 ||
        delta.count() != 1 || !start.dims.empty() || !end.dims.empty() || !delta.dims.empty()) {
        return std::nullopt;
    }
    const auto kind = element_kind(start.type);
    if (!kind || kind->boolean || (kind->real && !kind->exact) || (!kind->real && !kind->is_signed)) return std::nullopt;
    TensorValue out;
    out.type = start.type;
    if (kind->real) {
        const double s = start.reals[0], l = end.reals[0], d = delta.reals[0];
        if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) return std::nullopt;
        const double n = std::max(std::ceil((l - s) / d), 0.0);
        if (n > static_cast<double>(std::min(limit, kMaxFoldElements))) return std::nullopt;
        out.reals.reserve(static_cast<size_t>(n));
        for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
            const double v = s + static_cast<double>(i) * d;
            out.reals.push_back(start.type == TensorProto::FLOAT ? static_cast<float>(v) : v);
        }
    } else {
        const int64_t s = start.ints[0], l = end.ints[0], d = delta.ints[0];
        if (d == 0) return std::nullopt;
        // max(ceil((l - s) / d), 0) in unsigned arithmetic: the difference of two int64 may not fit in an int64.
        uint64_t n = 0;
        if ((d > 0 && l > s) || (d < 0 && l < s)) {
            const uint64_t span = d > 0 ? static_cast<uint64_t>(l) - static_cast<uint64_t>(s)
                                        : static_cast<uint64_t>(s) - static_cast<uint64_t>(l);
            const uint64_t step = d > 0 ? static_cast<uint64_t>(d) : 0 - static_cast<uint64_t>(d);
            n = span / step + (span % step != 0 ? 1 : 0);
        }
        if (n > std::min(limit, kMaxFoldElements)) return std::nullopt;
        out.ints.reserve(n);
        for (uint64_t i = 0; i < n; ++i) {
            out.ints.push_back(wrap_integer(start.type, static_cast<uint64_t>(s) + i * static_cast<uint64_t>(d)));
        }
    }
    out.dims = {static_cast<int64_t>(out.count())};
    return std::vector<TensorValue>{out};
}

Outputs constant(const onnx::NodeProto& node) {
    if (node.attribute_size() != 1) return std::nullopt;
    const auto& attribute = node.attribute(0);
    if (attribute.name() == "value" && attribute.type() == onnx::AttributeProto::TENSOR) {
        auto value = read_tensor(attribute.t());
        if (!value) return std::nullopt;
        return std::vector<TensorValue>{value.take()};
    }
    if (attribute.name() == "value_int" && attribute.type() == onnx::AttributeProto::INT) {
        return std::vector<TensorValue>{scalar_int64(attribute.i())};
    }
    if (attribute.name() == "value_ints" && attribute.type() == onnx::AttributeProto::INTS) {
        if (static_cast<uint64_t>(attribute.ints_size()) > kMaxFoldElements) return std::nullopt;
        return std::vector<TensorValue>{vector_int64(Dims(attribute.ints().begin(), attribute.ints().end()))};
    }
    if (attribute.name() == "value_float" && attribute.type() == onnx::AttributeProto::FLOAT) {
        TensorValue out = make(TensorProto::FLOAT, {});
        out.reals[0] = attribute.f();
        return std::vector<TensorValue>{out};
    }
    if (attribute.name() == "value_floats" && attribute.type() == onnx::AttributeProto::FLOATS) {
        if (static_cast<uint64_t>(attribute.floats_size()) > kMaxFoldElements) return std::nullopt;
        TensorValue out = make(TensorProto::FLOAT, {attribute.floats_size()});
        for (int i = 0; i < attribute.floats_size(); ++i) out.reals[static_cast<size_t>(i)] = attribute.floats(i);
        return std::vector<TensorValue>{out};
    }
    return std::nullopt;
}

}  // namespace

FoldOutputs fold_constant(const FoldCall& c) { return c.node.input_size() == 0 ? constant(c.node) : std::nullopt; }

FoldOutputs fold_shape(const FoldCall& c) { return shape_of(c.node, *c.shape); }

FoldOutputs fold_size(const FoldCall& c) {
    const auto count = checked_count(*c.shape, std::numeric_limits<int64_t>::max());
    if (!count) return std::nullopt;
    return std::vector<TensorValue>{scalar_int64(static_cast<int64_t>(*count))};
}

FoldOutputs fold_identity(const FoldCall& c) { return std::vector<TensorValue>{c.first()}; }
FoldOutputs fold_reshape(const FoldCall& c) { return c.need(2) ? reshape(c.node, c.first(), c.values[1]) : std::nullopt; }
FoldOutputs fold_flatten(const FoldCall& c) { return flatten(c.node, c.first()); }
FoldOutputs fold_squeeze(const FoldCall& c) { return squeeze(c.node, c.opset, c.inputs); }
FoldOutputs fold_unsqueeze(const FoldCall& c) { return unsqueeze(c.node, c.opset, c.inputs); }
FoldOutputs fold_concat(const FoldCall& c) { return c.need(c.values.size()) ? concat(c.node, c.values, c.limit) : std::nullopt; }
FoldOutputs fold_slice(const FoldCall& c) { return slice(c.node, c.opset, c.inputs, c.limit); }
FoldOutputs fold_transpose(const FoldCall& c) { return transpose(c.node, c.first()); }
FoldOutputs fold_expand(const FoldCall& c) { return c.need(2) ? expand(c.first(), c.values[1], c.limit) : std::nullopt; }
FoldOutputs fold_tile(const FoldCall& c) { return c.need(2) ? tile(c.first(), c.values[1], c.limit) : std::nullopt; }
FoldOutputs fold_constant_of_shape(const FoldCall& c) { return constant_of_shape(c.node, &c.first(), c.limit); }

FoldOutputs fold_range(const FoldCall& c) {
    return c.need(3) ? range(c.first(), *c.values[1], *c.values[2], c.limit) : std::nullopt;
}

}  // namespace kernelgen::folding
