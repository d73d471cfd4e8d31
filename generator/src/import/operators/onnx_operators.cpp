#include "import/operators/onnx_operators.h"

#include <algorithm>

#include "import/model/node_attributes.h"

namespace kernelgen {

namespace {

using namespace folding;
using namespace counts;

constexpr FoldNeeds kValues = FoldNeeds::values;
constexpr MakesCount kNo = MakesCount::no;

// One row per operator, in ONNX's default domain. Columns: the operator; its fold rule (folding/) and what it needs
// of the inputs; its count rule (counts/); whether it makes a run-time count; the input whose length is its
// output's rank; the rule for run-time counts among the elements of its integer output (counts/shape_values.cpp);
// for an operator ONNX 1.12's inference does not know, the input whose type and shape its output has.
const std::vector<OnnxOperatorRule>& rows() {
    static const std::vector<OnnxOperatorRule> table{
        // --- values and shapes
        {"Constant", fold_constant, FoldNeeds::nothing, nullptr, kNo, -1},
        {"Shape", fold_shape, FoldNeeds::first_shape, nullptr, kNo, -1, shape_value},
        {"Size", fold_size, FoldNeeds::first_shape, nullptr, kNo, -1},
        {"Identity", fold_identity, kValues, from_first<same_axis>, kNo, -1, same_value},
        {"Cast", fold_cast, kValues, from_first<same_axis>, kNo, -1, same_value},
        {"Reshape", fold_reshape, kValues, one_output<reshape_to>, kNo, 1, same_value},
        {"Flatten", fold_flatten, kValues, from_first<counts::flatten>, kNo, -1},
        {"Squeeze", fold_squeeze, kValues, from_first<counts::squeeze>, kNo, -1, same_value},
        {"Unsqueeze", fold_unsqueeze, kValues, from_first<counts::unsqueeze>, kNo, 1, same_value},
        {"Concat", fold_concat, kValues, one_output<counts::concat>, kNo, -1, concat_value},
        {"Split", nullptr, kValues, counts::split, kNo, -1},
        {"Slice", fold_slice, kValues, slice_outputs, MakesCount::unless_inputs_1_2_known, -1, slice_value},
        {"Transpose", fold_transpose, kValues, from_first<counts::transpose>, kNo, -1},
        {"Expand", fold_expand, kValues, one_output<expand_to>, kNo, 1},
        {"Tile", fold_tile, kValues, nullptr, kNo, -1},
        {"ConstantOfShape", fold_constant_of_shape, kValues, one_output<constant_of_shape>, kNo, 0},
        {"Range", fold_range, kValues, one_output<counts::range>, kNo, -1},
        // --- element-wise, with numpy broadcasting
        {"Add", fold_arithmetic, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Sub", fold_arithmetic, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Mul", fold_arithmetic, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Div", fold_arithmetic, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Mod", fold_arithmetic, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Min", fold_arithmetic, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Max", fold_arithmetic, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Equal", fold_comparison, kValues, one_output<counts::broadcast>, kNo, -1, equal_value},
        {"Less", fold_comparison, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Greater", fold_comparison, kValues, one_output<counts::broadcast>, kNo, -1},
        {"LessOrEqual", fold_comparison, kValues, one_output<counts::broadcast>, kNo, -1},
        {"GreaterOrEqual", fold_comparison, kValues, one_output<counts::broadcast>, kNo, -1},
        {"And", fold_logical, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Or", fold_logical, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Xor", fold_logical, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Where", fold_where, kValues, one_output<counts::broadcast>, kNo, -1, where_value},
        {"Pow", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Sum", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"Mean", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"BitShift", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"PRelu", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"BitwiseAnd", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"BitwiseOr", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"BitwiseXor", nullptr, kValues, one_output<counts::broadcast>, kNo, -1},
        {"MatMul", nullptr, kValues, one_output<counts::matmul>, kNo, -1},
        {"Gemm", nullptr, kValues, one_output<gemm>, kNo, -1},
        {"RoiAlign", nullptr, kValues, one_output<roi_align>, kNo, -1},
        {"Conv", nullptr, kValues, one_output<batch>, kNo, -1},
        {"ConvTranspose", nullptr, kValues, one_output<batch>, kNo, -1},
        {"MaxPool", nullptr, kValues, one_output<batch>, kNo, -1},
        {"AveragePool", nullptr, kValues, one_output<batch>, kNo, -1},
        {"LpPool", nullptr, kValues, one_output<batch>, kNo, -1},
        {"GlobalAveragePool", nullptr, kValues, one_output<batch>, kNo, -1},
        {"GlobalMaxPool", nullptr, kValues, one_output<batch>, kNo, -1},
        {"BatchNormalization", nullptr, kValues, one_output<batch>, kNo, -1},
        {"InstanceNormalization", nullptr, kValues, one_output<batch>, kNo, -1},
        {"Pad", nullptr, kValues, from_first<counts::pad>, kNo, -1},
        {"Resize", nullptr, kValues, from_first<counts::resize>, kNo, -1},
        {"Upsample", nullptr, kValues, from_first<counts::resize>, kNo, -1},
        // --- element-wise, one input: a count stays on its axis
        {"Neg", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"Abs", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"Not", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"Floor", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"Ceil", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"Round", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"Reciprocal", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"Sqrt", fold_unary, kValues, from_first<same_axis>, kNo, -1},
        {"CastLike", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Relu", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Sigmoid", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Tanh", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Exp", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Log", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Sign", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Softplus", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Softsign", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Erf", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"IsNaN", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"IsInf", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Clip", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"LeakyRelu", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Elu", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Selu", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Celu", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"HardSigmoid", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"HardSwish", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Softmax", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"LogSoftmax", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Dropout", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Sin", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Cos", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Mish", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"BitwiseNot", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"Shrink", nullptr, kValues, from_first<same_axis>, kNo, -1},
        {"ThresholdedRelu", nullptr, kValues, from_first<same_axis>, kNo, -1},
        // --- reductions
        {"ReduceSum", fold_reduce, kValues, nullptr, kNo, -1},
        {"ReduceProd", fold_reduce, kValues, nullptr, kNo, -1},
        {"ReduceMax", fold_reduce, kValues, nullptr, kNo, -1},
        {"ReduceMin", fold_reduce, kValues, nullptr, kNo, -1},
        // --- the producers of run-time counts
        {"NonZero", nullptr, kValues, one_output<nonzero>, MakesCount::always, -1},
        {"NonMaxSuppression", nullptr, kValues, one_output<non_max_suppression>, MakesCount::always, -1},
        {"Compress", nullptr, kValues, one_output<compress>, MakesCount::always, -1},
        {"Unique", nullptr, kValues, unique, MakesCount::always, -1},
        {"TopK", nullptr, kValues, top_k, MakesCount::unless_input_1_known, -1},
        // --- the indexing operators themselves
        {"Gather", fold_gather, kValues, one_output<counts::gather>, kNo, -1, gather_value},
        {"GatherElements", fold_gather_elements, kValues, elements, kNo, -1},
        {"GatherND", fold_gather_nd, kValues, one_output<gather_nd>, kNo, -1},
        {"ScatterElements", fold_scatter_elements, kValues, elements, kNo, -1},
        {"Scatter", fold_scatter_elements, kValues, elements, kNo, -1},
        {"ScatterND", fold_scatter_nd, kValues, from_first<same_axis>, kNo, -1},
        // --- newer than ONNX 1.12's shape inference (opset 17): the output is its first input's type and shape
        {"TensorScatter", nullptr, kValues, from_first<same_axis>, kNo, -1, nullptr, 0},  // opset 24: past_cache
    };
    return table;
}

}  // namespace

const std::vector<OnnxOperatorRule>& onnx_operators() { return rows(); }

const OnnxOperatorRule* find_operator(const onnx::NodeProto& node) {
    if (!default_domain(node.domain())) return nullptr;
    const auto& table = rows();
    const auto row = std::find_if(table.begin(), table.end(),
                                  [&](const OnnxOperatorRule& r) { return r.op_type == node.op_type(); });
    return row == table.end() ? nullptr : &*row;
}

std::optional<std::vector<TensorValue>> fold_node(const onnx::NodeProto& node, int64_t opset,
                                                  const std::vector<FoldInput>& inputs, uint64_t limit) {
    const OnnxOperatorRule* rule = find_operator(node);
    if (!rule || !rule->fold) return std::nullopt;
    FoldCall call{node, opset, inputs, {}, nullptr, limit};
    if (rule->needs != FoldNeeds::nothing) {
        if (inputs.empty() || !inputs[0].present) return std::nullopt;
        if (rule->needs == FoldNeeds::first_shape) {
            // Only the shape is needed, and only when it is static.
            call.shape = inputs[0].value ? &inputs[0].value->dims : inputs[0].shape ? &*inputs[0].shape : nullptr;
            if (!call.shape) return std::nullopt;
        } else {
            // The value of each input the node names; those it may leave out are optional.
            for (const auto& input : inputs) {
                if (input.present && !input.value) return std::nullopt;
                call.values.push_back(input.value);
            }
        }
    }
    auto outputs = rule->fold(call);
    // Whatever an operator computed, no value passes the limits of what import holds.
    if (outputs) {
        for (const auto& value : *outputs) {
            if (!foldable_count(value.dims) || value.count() != *foldable_count(value.dims)) return std::nullopt;
        }
    }
    return outputs;
}

bool makes_rank(const onnx::NodeProto& node, int input) {
    const OnnxOperatorRule* rule = find_operator(node);
    return rule && rule->rank_input >= 0 && rule->rank_input == input;
}

int same_type_as_input(const onnx::NodeProto& node) {
    const OnnxOperatorRule* rule = find_operator(node);
    return rule ? rule->same_type_as_input : -1;
}

bool makes_count(const GraphScope& scope, const onnx::NodeProto& node) {
    const OnnxOperatorRule* rule = find_operator(node);
    if (!rule) return false;
    switch (rule->makes_count) {
        case MakesCount::no: return false;
        case MakesCount::always: return true;
        case MakesCount::unless_input_1_known: return !(node.input_size() > 1 && scope.value(node.input(1)));
        case MakesCount::unless_inputs_1_2_known:
            return node.input_size() > 2 && !(scope.value(node.input(1)) && scope.value(node.input(2)));
    }
    return false;
}

}  // namespace kernelgen
