// A plain, runtime-shaped implementation of the five operators, written for clarity and nothing else:
// the independent computation the generated kernels are checked against. It shares no code with the
// generator: it normalizes the axis and derives every output shape itself, from ONNX's text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace reference {

// Element types the C++ language does not have: bit patterns and (re, im) pairs, as the kernels store them.
struct Float16 {
    uint16_t bits;
};
struct BFloat16 {
    uint16_t bits;
};
template <typename Part>
struct Complex {
    Part re;
    Part im;
};

using Shape = std::vector<int64_t>;

struct Problem {
    std::string op;  // "Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements" or "TensorScatter"
    Shape data_shape;
    Shape indices_shape;
    int64_t axis = 0;        // may be negative
    int64_t batch_dims = 0;
    std::string reduction = "none";
    // TensorScatter: data is past_cache, indices write_indices (one per batch row), updates update, of this shape;
    // mode "linear" or "circular" (as corrected by onnx/onnx#8353: only the sequence coordinate wraps).
    Shape update_shape;
    std::string mode = "linear";
};

Shape output_shape(const Problem& problem);
Shape updates_shape(const Problem& problem);  // the scatters
int64_t count(const Shape& shape);

// Runs the operator on elements of type T. Returns false, leaving `output` as it was, when an index is
// outside [-s, s-1] for its axis (TensorScatter: a write index below 0, or in linear mode above max - sequence
// length); otherwise fills `output` and returns true.
template <typename T>
bool run(const Problem& problem, const std::vector<T>& data, const std::vector<int64_t>& indices,
         const std::vector<T>& updates, std::vector<T>& output);

// A quantized table dequantized whole, as ONNX's DequantizeLinear defines it (and ONNX Runtime's
// GatherBlockQuantized): element x of data (its coordinates c) takes the scale and zero point at c, with c[axis]
// divided by block_size (blocked), c[axis] alone (per axis, block_size 0), or the one scale (axis < 0); its value
// is (q - zero_point) * scale computed exactly, then rounded once to the output type. `scales` are the values
// (of float32, float16 or bfloat16, exactly); `zero_points` are empty (0), one, or one per scale. The result
// is each element's value in double, already rounded to the output type (`round` does that rounding).
std::vector<double> dequantize(const Shape& data_shape, const std::vector<int32_t>& values, int64_t axis, int64_t block_size,
                               const std::vector<double>& scales, const std::vector<int32_t>& zero_points,
                               double (*round)(double));

}  // namespace reference
