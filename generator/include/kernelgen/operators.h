// The operators: the one table every other part of kernelgen reads for what an operator is called, which spec
// keys it takes and which ONNX operators import as it. A new operator adds an Op, a row, and its rules
// (spec/onnx_rules.cpp, codegen/lower/lower.cpp); tests/operator_table_test.cpp holds the JSON Schema to the table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kernelgen {

enum class Op { Gather, GatherElements, GatherND, ScatterND, ScatterElements, TensorScatter };

// A key of a kernel object in a spec, and whether every spec of the operator must give it.
struct SpecKey {
    std::string_view name;
    bool required;
};

// The kernel's tensors that a node's inputs become.
enum class KernelInput { Data, Indices, Updates };

// One input of an ONNX operator, in ONNX's order: its name in ONNX's documentation (and in import's messages), the
// kernel's tensor it becomes, and whether a node may leave it out (a cache's write_indices: zeros then).
struct OnnxInput {
    std::string_view name;
    KernelInput tensor;
    bool optional = false;
};

// An ONNX operator that import reads as a kernelgen operator: of the default domain (ai.onnx), its opsets, or of
// another (ONNX Runtime's com.microsoft, whose opsets the model's default one does not number).
struct OnnxOperator {
    std::string_view op_type;
    std::vector<std::string_view> attributes;  // the attributes it takes
    int64_t since;                             // the first opset that has it
    int64_t until;                             // the last one, or 0: every later opset
    std::string_view replaced_by;              // after `until`: the operator that replaces it
    std::vector<OnnxInput> inputs;             // its inputs, in ONNX's order (those the kernel's tensors take)
    std::string_view domain = "";              // "" for ai.onnx
    int64_t default_axis = 0;                  // "axis" where a node leaves it out
    bool int64_indices = false;                // ONNX allows only int64 indices (the kernel would take int32 too)
};

struct OperatorInfo {
    Op id;
    std::string_view name;  // ONNX's name of the operator, and the spec's "op"
    // A scatter reads updates (a third input, its shape the key "updates_shape") and writes a copy of data, or
    // data itself in place; a gather reads data and indices only.
    bool scatter;
    // Whether it takes run-time counts (the common keys of counts): not a cache's write, whose every batch row is
    // written and whose cache keeps all its rows.
    bool counts;
    std::vector<SpecKey> keys;       // the keys it takes beside the common ones, in the order messages list them
    std::vector<OnnxOperator> onnx;  // the ONNX operators that import as it
};

// Every operator, in the order messages list them.
const std::vector<OperatorInfo>& operators();
const OperatorInfo& info(Op op);
std::string_view name(Op op);
bool is_scatter(Op op);

// The keys every operator takes, in the order messages list them.
const std::vector<SpecKey>& common_keys();
// The keys `op` takes: the common ones (but the counts' where it takes none), then its own.
std::vector<SpecKey> spec_keys(Op op);
// Every key some operator takes: the common ones, then each operator's own in table order, each once.
std::vector<std::string> every_spec_key();


}  // namespace kernelgen
