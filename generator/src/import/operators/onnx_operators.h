// Every ONNX operator import reads beyond the indexing operators it imports (kernelgen/operators.h), in one
// table (onnx_operators.cpp): how constant folding computes its value (folding/), how a run-time count goes through
// it or is made by it (counts/), which input's length becomes its output's rank, and the shape rule of an
// operator newer than ONNX 1.12's inference.
// Folding, the count analysis, inference's work graph and the import's messages all ask this table; nothing else
// lists operators.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string_view>
#include <vector>

#include "import/counts/rules.h"
#include "import/folding/rules.h"

namespace kernelgen {

// What folding needs of a node's inputs before its rule may run.
enum class FoldNeeds {
    nothing,      // Constant: no inputs
    first_shape,  // Shape and Size: the first input's static shape (its value is not needed)
    values,       // the value of every input the node names
};

// Whether a node makes a number of rows known only at run time.
enum class MakesCount {
    no,
    always,              // NonZero, NonMaxSuppression, Compress, Unique
    unless_input_1_known,  // TopK: only when k is a run-time value
    unless_inputs_1_2_known,  // Slice: only when its starts or ends are run-time values
};

struct OnnxOperatorRule {
    std::string_view op_type;
    folding::FoldRule fold = nullptr;  // its value at import time; nullptr: never folded
    FoldNeeds needs = FoldNeeds::values;
    counts::CountRule count = nullptr;  // its outputs' counts; nullptr: a count stops here
    MakesCount makes_count = MakesCount::no;
    int rank_input = -1;  // the input whose length is the output's rank (ConstantOfShape, Reshape, Expand, Unsqueeze)
    counts::ValueRule value_count = nullptr;  // counts among the elements of its integer output; nullptr: none
    // An operator of an opset newer than ONNX 1.12's shape inference knows: the input whose type and shape its
    // output has (inference's work graph shows it an Identity of that input), or -1.
    int same_type_as_input = -1;
};

// Every row of the table.
const std::vector<OnnxOperatorRule>& onnx_operators();

// The table's row for `node` (ONNX's default domain only), or nullptr.
const OnnxOperatorRule* find_operator(const onnx::NodeProto& node);

// The outputs of `node` (in the model's `opset`), or nothing when it cannot be folded: an operator without a fold
// rule, or one that cannot compute it exactly as ONNX (Runtime) would (an invalid attribute, an index out of
// range, a division by zero, a float16 sum). An output of more than `limit` elements (what is left of the folding
// budget) gives nothing before it is computed, and no value passes kMaxFoldElements or kMaxFoldRank.
std::optional<std::vector<TensorValue>> fold_node(const onnx::NodeProto& node, int64_t opset,
                                                  const std::vector<FoldInput>& inputs,
                                                  uint64_t limit = kMaxFoldElements);

// Whether input `input` of `node` is a shape whose length becomes the rank of the node's output (ConstantOfShape's
// shape, Reshape's and Expand's shape, Unsqueeze's axes).
bool makes_rank(const onnx::NodeProto& node, int input);

// The input whose type and shape `node`'s output has, where ONNX 1.12's inference does not know its operator, or -1.
int same_type_as_input(const onnx::NodeProto& node);

// Whether `node` makes a run-time count in `scope` (TopK only when its k is not known there).
bool makes_count(const GraphScope& scope, const onnx::NodeProto& node);

}  // namespace kernelgen
