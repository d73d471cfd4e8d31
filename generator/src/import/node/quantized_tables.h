// Quantized tables in a model, fused into the gather that reads them: ONNX's DequantizeLinear of constants feeding a
// Gather along axis 0 (int8/uint8/int4/uint4 values; one scale, a scale per index along an axis, or blocks since
// opset 21), the same of a QuantizeLinear of a constant float tensor (fake quantization, as quantization-aware
// training exports a weight; the values computed here as ONNX Runtime quantizes), and ONNX Runtime's
// com.microsoft.GatherBlockQuantized (uint8 data holding 8-bit values, or 4-bit ones two a byte). The kernel holds the
// table quantized, as a spec's "quantization" says (KernelSpec::Quantization).
#pragma once

#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "import/node/held_tables.h"
#include "import/model/graph_scope.h"
#include "kernelgen/result.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// The most scales (and zero points) a spec gives inline; more go into a NumPy file beside it.
constexpr uint64_t kMaxInlineScales = 64;

// A gather's data that is a quantized table of the model, as its kernel holds it.
struct QuantizedTable {
    std::string tensor;        // the model's tensor of quantized values (fake quantization: of the float values)
    std::string source;        // the node that dequantizes it, as messages name it
    std::string quantized_by;  // fake quantization: the QuantizeLinear that quantizes the float values, else ""
    DType dtype = DType::Float32;  // the dequantized type: the scales'
    Shape data_shape;              // the table's shape, one element a value
    std::string bytes;             // the values as the kernel holds them (KernelSpec::ConstantData)
    KernelSpec::Quantization quantization;
};

// Data that a DequantizeLinear of constants makes (its x, x_scale and x_zero_point initializers, Constants or
// folded values; or x a QuantizeLinear of a constant float tensor, through an optional Clip of constant bounds: fake
// quantization), for a Gather along `gather_axis` (as the node gives it): the table, or nothing where no such
// DequantizeLinear makes it. The problem says why one that is there cannot be fused (the gather then reads the
// float data it makes, a parameter).
Result<std::optional<QuantizedTable>> dequantized_table(const GraphScope& scope, const std::string& data, int64_t gather_axis);

// ONNX Runtime's QuantizeLinear of one value into `type`: x / scale in float arithmetic, rounded half to even, plus
// the zero point, saturated to the type's range. Nothing where x / scale is NaN or at least 2^31 in magnitude
// (infinities included), where ONNX Runtime's kernels (vector and scalar, per tensor and blocked) disagree.
std::optional<int32_t> quantize_linear(float x, float scale, int32_t zero_point, KernelSpec::QuantizedType type);

// Values of `type` (one per element of `shape`, row-major) as a table's file holds them (quantized_held_tables):
// one a byte, or 4-bit ones two a byte along the last axis, element 2k of a row in the low nibble of byte k, each
// row padded to whole bytes.
std::string pack_rows(const std::vector<int32_t>& values, const Shape& shape, KernelSpec::QuantizedType type);

// `count` 4-bit values as ONNX stores an INT4 or UINT4 tensor (flat: element 2k in the low nibble of byte k).
std::vector<int32_t> unpack_onnx_4bit(const std::string& bytes, uint64_t count, bool is_signed);

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
