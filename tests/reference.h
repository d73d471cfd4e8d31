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
    std::string op;  // "Gather", "GatherElements", "GatherND", "ScatterND" or "ScatterElements"
    Shape data_shape;
    Shape indices_shape;
    int64_t axis = 0;        // may be negative
    int64_t batch_dims = 0;
    std::string reduction = "none";
};

Shape output_shape(const Problem& problem);
Shape updates_shape(const Problem& problem);  // the scatters
int64_t count(const Shape& shape);

// Runs the operator on elements of type T. Returns false, leaving `output` as it was, when an index is
// outside [-s, s-1] for its axis; otherwise fills `output` and returns true.
template <typename T>
bool run(const Problem& problem, const std::vector<T>& data, const std::vector<int64_t>& indices,
         const std::vector<T>& updates, std::vector<T>& output);

}  // namespace reference
