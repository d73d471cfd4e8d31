// The fold rules of import/onnx_operators.cpp's table, one per operator family (folding/elementwise.cpp,
// shapes.cpp, reduce.cpp, indexing.cpp). fold_node() calls a rule only with what its row asks for: the first
// input's static shape (Shape, Size), or every named input's value.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <vector>

#include "import/model/tensor_value.h"

namespace kernelgen {

// One input of a node as folding sees it.
struct FoldInput {
    bool present = false;                       // the node names this input (optional inputs may be "")
    const TensorValue* value = nullptr;         // its value, when known
    std::optional<std::vector<int64_t>> shape;  // its static shape, when known (all Shape and Size need)
};

namespace folding {

// A node to fold, as its rule sees it.
struct FoldCall {
    const onnx::NodeProto& node;
    int64_t opset;
    const std::vector<FoldInput>& inputs;
    std::vector<const TensorValue*> values;      // each input's value; nullptr for an optional input left out
    const std::vector<int64_t>* shape = nullptr;  // the first input's static shape (rules that need only it)
    uint64_t limit;                               // the elements left of the folding budget

    const TensorValue& first() const { return *values[0]; }
    // Whether the first n inputs are all given.
    bool need(size_t n) const {
        if (values.size() < n) return false;
        for (size_t i = 0; i < n; ++i) {
            if (!values[i]) return false;
        }
        return true;
    }
};

using FoldOutputs = std::optional<std::vector<TensorValue>>;
using FoldRule = FoldOutputs (*)(const FoldCall&);

// folding/elementwise.cpp
FoldOutputs fold_arithmetic(const FoldCall& c);  // Add, Sub, Mul, Div, Mod, Min, Max
FoldOutputs fold_unary(const FoldCall& c);       // Neg, Abs, Not, Floor, Ceil, Round, Reciprocal, Sqrt
FoldOutputs fold_comparison(const FoldCall& c);  // Equal, Less, Greater, LessOrEqual, GreaterOrEqual
FoldOutputs fold_logical(const FoldCall& c);     // And, Or, Xor
FoldOutputs fold_where(const FoldCall& c);
FoldOutputs fold_cast(const FoldCall& c);
// folding/shapes.cpp
FoldOutputs fold_constant(const FoldCall& c);
FoldOutputs fold_shape(const FoldCall& c);
FoldOutputs fold_size(const FoldCall& c);
FoldOutputs fold_identity(const FoldCall& c);
FoldOutputs fold_reshape(const FoldCall& c);
FoldOutputs fold_flatten(const FoldCall& c);
FoldOutputs fold_squeeze(const FoldCall& c);
FoldOutputs fold_unsqueeze(const FoldCall& c);
FoldOutputs fold_concat(const FoldCall& c);
FoldOutputs fold_slice(const FoldCall& c);
FoldOutputs fold_transpose(const FoldCall& c);
FoldOutputs fold_expand(const FoldCall& c);
FoldOutputs fold_tile(const FoldCall& c);
FoldOutputs fold_constant_of_shape(const FoldCall& c);
FoldOutputs fold_range(const FoldCall& c);
// folding/reduce.cpp
FoldOutputs fold_reduce(const FoldCall& c);  // ReduceSum, ReduceProd, ReduceMax, ReduceMin
// folding/indexing.cpp
FoldOutputs fold_gather(const FoldCall& c);
FoldOutputs fold_gather_elements(const FoldCall& c);
FoldOutputs fold_scatter_elements(const FoldCall& c);  // ScatterElements and Scatter
FoldOutputs fold_gather_nd(const FoldCall& c);
FoldOutputs fold_scatter_nd(const FoldCall& c);

}  // namespace folding

}  // namespace kernelgen
