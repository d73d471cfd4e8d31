// Folding the reductions: ReduceSum, ReduceProd, ReduceMax, ReduceMin.
#include "import/folding/rules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include "common/shape_math.h"
#include "import/folding/support.h"
#include "import/model/node_attributes.h"

namespace kernelgen::folding {

using onnx::TensorProto;

namespace {

// ReduceSum and ReduceProd on integer tensors (wrapping), ReduceMax and ReduceMin on integers and float32/float64
// (not folded with a NaN, or over an empty set), with ONNX's axes, keepdims and noop_with_empty_axes.
Outputs reduce(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs) {
    const TensorValue& data = *inputs[0].value;
    const std::string& op = node.op_type();
    const bool order = op == "ReduceMax" || op == "ReduceMin";
    const auto kind = element_kind(data.type);
    if (!kind || kind->boolean || (kind->real && (!order || !kind->exact))) return std::nullopt;
    const bool axes_from_input = op == "ReduceSum" ? opset >= 13 : opset >= 18;
    std::optional<Dims> axes;
    if (axes_from_input) {
        if (inputs.size() > 1 && inputs[1].present && !(axes = int_list(inputs[1].value))) return std::nullopt;
    } else {
        axes = ints_attribute(node, "axes");
    }
    const auto keepdims = int_attribute(node, "keepdims", 1);
    const auto noop = int_attribute(node, "noop_with_empty_axes", 0);
    if (!keepdims || !noop) return std::nullopt;
    const size_t rank = data.dims.size();
    std::set<size_t> reduced;
    if (!axes || axes->empty()) {
        if (*noop && axes_from_input) return std::vector<TensorValue>{data};
        for (size_t i = 0; i < rank; ++i) reduced.insert(i);
    } else {
        for (int64_t axis : *axes) {
            const auto a = normalized_axis(axis, rank);
            if (!a) return std::nullopt;
            reduced.insert(*a);
        }
    }
    Dims kept_dims;
    for (size_t i = 0; i < rank; ++i) {
        if (!reduced.count(i)) kept_dims.push_back(data.dims[i]);
        else if (*keepdims) kept_dims.push_back(1);
    }
    Dims full(rank);
    for (size_t i = 0; i < rank; ++i) full[i] = reduced.count(i) ? 1 : data.dims[i];
    TensorValue out = make(data.type, kept_dims);
    std::vector<uint64_t> acc(out.count(), op == "ReduceProd" ? 1 : 0);
    std::vector<bool> seen(out.count(), false);
    const auto out_strides = row_major_strides(full);
    const std::string combine = op == "ReduceMax" ? "Max" : "Min";
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < data.count(); ++flat) {
        uint64_t to = 0;
        for (size_t a = 0; a < rank; ++a) to += reduced.count(a) ? 0 : static_cast<uint64_t>(index[a]) * out_strides[a];
        if (!order) {
            const auto v = static_cast<uint64_t>(data.ints[flat]);
            acc[to] = op == "ReduceSum" ? acc[to] + v : acc[to] * v;
        } else if (kind->real) {
            const double v = data.reals[flat];
            if (std::isnan(v)) return std::nullopt;
            out.reals[to] = seen[to] ? *real_binary(combine, data.type, out.reals[to], v, 1) : v;
        } else {
            out.ints[to] = seen[to] ? *integer_binary(combine, data.type, out.ints[to], data.ints[flat], 0) : data.ints[flat];
        }
        seen[to] = true;
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < data.dims[a]) break;
            index[a] = 0;
        }
    }
    if (order) {
        if (std::find(seen.begin(), seen.end(), false) != seen.end()) return std::nullopt;  // the max of nothing
    } else {
        for (uint64_t i = 0; i < out.count(); ++i) out.ints[i] = wrap_integer(data.type, acc[i]);
    }
    return std::vector<TensorValue>{out};
}

}  // namespace

FoldOutputs fold_reduce(const FoldCall& c) { return reduce(c.node, c.opset, c.inputs); }

}  // namespace kernelgen::folding
