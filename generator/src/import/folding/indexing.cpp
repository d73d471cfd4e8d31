// Folding the indexing operators themselves: Gather, GatherElements, GatherND, ScatterElements (and Scatter),
// ScatterND.
#include "import/folding/rules.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include "common/shape_math.h"
#include "import/folding/support.h"
#include "import/model/node_attributes.h"

namespace kernelgen::folding {

using onnx::TensorProto;

namespace {

// An index along an axis of size `size`, made non-negative, or nothing when out of range.
std::optional<uint64_t> index_along(int64_t index, int64_t size) {
    if (index < -size || index >= size) return std::nullopt;
    return static_cast<uint64_t>(index < 0 ? index + size : index);
}

bool index_tensor(const TensorValue& v) { return v.type == TensorProto::INT64 || v.type == TensorProto::INT32; }

Outputs gather(const onnx::NodeProto& node, const TensorValue& data, const TensorValue& indices, uint64_t limit) {
    const auto axis_attr = int_attribute(node, "axis", 0);
    if (!axis_attr || !index_tensor(indices)) return std::nullopt;
    const auto axis = normalized_axis(*axis_attr, data.dims.size());
    if (!axis) return std::nullopt;
    Dims dims(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(*axis));
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, data.dims.end());
    if (!fits(dims, limit)) return std::nullopt;
    uint64_t outer = 1, inner = 1;
    for (size_t i = 0; i < *axis; ++i) outer *= static_cast<uint64_t>(data.dims[i]);
    for (size_t i = *axis + 1; i < data.dims.size(); ++i) inner *= static_cast<uint64_t>(data.dims[i]);
    const int64_t size = data.dims[*axis];
    TensorValue out = make(data.type, dims);
    uint64_t at = 0;
    for (uint64_t o = 0; o < outer; ++o) {
        for (int64_t index : indices.ints) {
            const auto i = index_along(index, size);
            if (!i) return std::nullopt;
            for (uint64_t j = 0; j < inner; ++j) copy_element(out, at++, data, (o * static_cast<uint64_t>(size) + *i) * inner + j);
        }
    }
    return std::vector<TensorValue>{out};
}

// GatherElements and ScatterElements share the walk over indices: out[..i..] pairs with data[..indices[..i..]..].
Outputs elements(const onnx::NodeProto& node, const TensorValue& data, const TensorValue& indices,
                 const TensorValue* updates) {
    const auto axis_attr = int_attribute(node, "axis", 0);
    if (!axis_attr || !index_tensor(indices) || indices.dims.size() != data.dims.size()) return std::nullopt;
    const auto axis = normalized_axis(*axis_attr, data.dims.size());
    if (!axis) return std::nullopt;
    for (size_t i = 0; i < data.dims.size(); ++i) {
        if (i != *axis && indices.dims[i] > data.dims[i]) return std::nullopt;
    }
    std::string reduction = "none";
    if (updates) {
        if (updates->dims != indices.dims || updates->type != data.type) return std::nullopt;
        if (const auto* attribute = find_attribute(node, "reduction")) reduction = attribute->s();
    }
    const auto kind = *element_kind(data.type);
    if (reduction != "none" && (kind.boolean || (kind.real && !kind.exact))) return std::nullopt;
    const auto data_strides = row_major_strides(data.dims);
    TensorValue out = updates ? data : make(data.type, indices.dims);
    const size_t rank = data.dims.size();
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < indices.count(); ++flat) {
        const auto along = index_along(indices.ints[flat], data.dims[*axis]);
        if (!along) return std::nullopt;
        uint64_t at = 0;
        for (size_t a = 0; a < rank; ++a) at += (a == *axis ? *along : static_cast<uint64_t>(index[a])) * data_strides[a];
        if (!updates) {
            copy_element(out, flat, data, at);
        } else if (reduction == "none") {
            copy_element(out, at, *updates, flat);
        } else {
            const std::string op = reduction == "add" ? "Add" : reduction == "mul" ? "Mul" : reduction == "max" ? "Max" : "Min";
            if (reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min") return std::nullopt;
            if (kind.real) {
                auto r = real_binary(op, data.type, out.reals[at], updates->reals[flat], 1);
                if (!r) return std::nullopt;
                out.reals[at] = *r;
            } else {
                out.ints[at] = *integer_binary(op, data.type, out.ints[at], updates->ints[flat], 0);
            }
        }
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < indices.dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

// GatherND and ScatterND share the tuples: indices[..., :k] pick a block of data.
Outputs nd(const onnx::NodeProto& node, const TensorValue& data, const TensorValue& indices, const TensorValue* updates,
           uint64_t limit) {
    if (!index_tensor(indices) || indices.dims.empty() || data.dims.empty()) return std::nullopt;
    const auto batch_attr = int_attribute(node, "batch_dims", 0);
    if (!batch_attr || *batch_attr < 0 || (updates && *batch_attr != 0)) return std::nullopt;
    const auto b = static_cast<size_t>(*batch_attr);
    const auto k = indices.dims.back();
    const size_t q = indices.dims.size(), r = data.dims.size();
    if (b >= q || b >= r || k < 1 || static_cast<size_t>(k) > r - b) return std::nullopt;
    for (size_t i = 0; i < b; ++i) {
        if (indices.dims[i] != data.dims[i]) return std::nullopt;
    }
    uint64_t batches = 1, block = 1;
    for (size_t i = 0; i < b; ++i) batches *= static_cast<uint64_t>(data.dims[i]);
    for (size_t i = b + static_cast<size_t>(k); i < r; ++i) block *= static_cast<uint64_t>(data.dims[i]);
    const uint64_t tuples_per_batch = batches == 0 ? 0 : indices.count() / static_cast<uint64_t>(k) / batches;
    uint64_t batch_size = 1;  // elements of data per batch
    for (size_t i = b; i < r; ++i) batch_size *= static_cast<uint64_t>(data.dims[i]);
    const auto strides = row_major_strides(data.dims);
    std::string reduction = "none";
    TensorValue out;
    if (updates) {
        Dims expected(indices.dims.begin(), indices.dims.end() - 1);
        expected.insert(expected.end(), data.dims.begin() + k, data.dims.end());
        if (updates->dims != expected || updates->type != data.type) return std::nullopt;
        if (const auto* attribute = find_attribute(node, "reduction")) reduction = attribute->s();
        if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min") return std::nullopt;
        const auto kind = *element_kind(data.type);
        if (reduction != "none" && (kind.boolean || (kind.real && !kind.exact))) return std::nullopt;
        out = data;
    } else {
        Dims dims(indices.dims.begin(), indices.dims.end() - 1);
        dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(b) + k, data.dims.end());
        if (!fits(dims, limit)) return std::nullopt;
        out = make(data.type, dims);
    }
    uint64_t tuple = 0;
    for (uint64_t batch = 0; batch < batches; ++batch) {
        for (uint64_t t = 0; t < tuples_per_batch; ++t, ++tuple) {
            uint64_t at = batch * batch_size;
            for (int64_t c = 0; c < k; ++c) {
                const size_t axis = b + static_cast<size_t>(c);
                const auto i = index_along(indices.ints[tuple * static_cast<uint64_t>(k) + static_cast<uint64_t>(c)], data.dims[axis]);
                if (!i) return std::nullopt;
                at += *i * strides[axis];
            }
            for (uint64_t j = 0; j < block; ++j) {
                if (!updates) {
                    copy_element(out, tuple * block + j, data, at + j);
                } else if (reduction == "none") {
                    copy_element(out, at + j, *updates, tuple * block + j);
                } else {
                    const std::string op = reduction == "add" ? "Add" : reduction == "mul" ? "Mul" : reduction == "max" ? "Max" : "Min";
                    if (out.is_real()) {
                        auto v = real_binary(op, data.type, out.reals[at + j], updates->reals[tuple * block + j], 1);
                        if (!v) return std::nullopt;
                        out.reals[at + j] = *v;
                    } else {
                        out.ints[at + j] = *integer_binary(op, data.type, out.ints[at + j], updates->ints[tuple * block + j], 0);
                    }
                }
            }
        }
    }
    return std::vector<TensorValue>{out};
}

}  // namespace

FoldOutputs fold_gather(const FoldCall& c) { return c.need(2) ? gather(c.node, c.first(), *c.values[1], c.limit) : std::nullopt; }
FoldOutputs fold_gather_elements(const FoldCall& c) { return c.need(2) ? elements(c.node, c.first(), *c.values[1], nullptr) : std::nullopt; }

FoldOutputs fold_scatter_elements(const FoldCall& c) {
    return c.need(3) ? elements(c.node, c.first(), *c.values[1], c.values[2]) : std::nullopt;
}

FoldOutputs fold_gather_nd(const FoldCall& c) { return c.need(2) ? nd(c.node, c.first(), *c.values[1], nullptr, c.limit) : std::nullopt; }

FoldOutputs fold_scatter_nd(const FoldCall& c) {
    return c.need(3) ? nd(c.node, c.first(), *c.values[1], c.values[2], c.limit) : std::nullopt;
}

}  // namespace kernelgen::folding
