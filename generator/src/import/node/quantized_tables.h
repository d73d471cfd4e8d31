// Quantized tables in a model, fused into the gather that reads them: ONNX's DequantizeLinear of constants feeding a
// Gather along axis 0 (int8/uint8 values; one scale, a scale per index along an axis, or blocks since opset 21), and
// ONNX Runtime's com.microsoft.GatherBlockQuantized (uint8 data holding 8-bit values, or 4-bit ones two a byte). The
// kernel holds the table quantized, as a spec's "quantization" says (KernelSpec::Quantization).
#pragma once

#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "import/node/held_tables.h"
#include "import/model/graph_scope.h"
#include "kernelgen/result.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// The most scales (and zero points) a spec gives inline; more go into a NumPy file beside it.
constexpr uint64_t kMaxInlineScales = 64;

// A gather's data that is a quantized table of the model, as its kernel holds it.
struct QuantizedTable {
    std::string tensor;  // the model's tensor of quantized values
    std::string source;  // the node that dequantizes it, as messages name it
    DType dtype = DType::Float32;  // the dequantized type: the scales'
    Shape data_shape;              // the table's shape, one element a value
    std::string bytes;             // the values as the kernel holds them (KernelSpec::ConstantData)
    KernelSpec::Quantization quantization;
};

// Data that a DequantizeLinear of constants makes (its x, x_scale and x_zero_point initializers, Constants or
// folded values), for a Gather along `gather_axis` (as the node gives it): the table, or nothing where no such
// DequantizeLinear makes it. The problem says why one that is there cannot be fused (the gather then reads the
// float data it makes, a parameter).
Result<std::optional<QuantizedTable>> dequantized_table(const GraphScope& scope, const std::string& data, int64_t gather_axis);

// Whether `node` is ONNX Runtime's com.microsoft.GatherBlockQuantized.
bool is_gather_block_quantized(const onnx::NodeProto& node);

// A GatherBlockQuantized node's table (its data, scales and zero points, constants), or why it cannot be one.
Result<QuantizedTable> block_quantized_table(const GraphScope& scope, const onnx::NodeProto& node);

// The spec's "quantization" object for `table`: scales and zero points inline when at most kMaxInlineScales, else
// "scales_file" / "zero_points_file" as "" for the caller to name.
nlohmann::ordered_json quantization_json(const QuantizedTable& table);

// What the kernel of `table` holds, as files its spec names: the values as the model stores them ("data_file": one a
// byte, or 4-bit values two a byte along the last axis, as the spec reads them), and the scales and zero points
// where quantization_json() leaves them to files; the report's words on its form (its type, and what dequantized it).
HeldTables quantized_held_tables(const QuantizedTable& table);

}  // namespace kernelgen
