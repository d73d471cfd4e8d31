// The benchmark cases (bench/specs/): each one callable three ways on the same tensors — kernelgen's generated
// kernel, the runtime-shaped kernel of runtime_shaped.c, and memcpy of the bytes the kernel must move — and,
// to show what a copy made of row-sized pieces can reach, memcpy of those bytes in 256-byte calls. Shared by
// the Google Benchmark program (kernels_bench.cpp) and the callgrind driver (count_calls.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace bench {

struct Case {
    std::string name;  // the kernel's name in bench/specs/ (the report scripts hold each case's target)
    size_t bytes;  // what the kernel must write (output, or data copy plus updates), which memcpy moves
    std::function<void()> kernelgen, runtime_shaped, memcpy, memcpy_pieces;
    // Runs kernelgen's and the runtime-shaped kernel on the case's indices and on an out-of-range variant;
    // returns "" when they agree (outputs bit for bit, return codes), else what differs.
    std::function<std::string()> agree;
};

// Every case, with its tensors filled: data and updates with distinct values, indices pseudo-random over
// [-s, s-1] (negative ones too) from a fixed seed.
std::vector<Case> make_cases();

// Checks every case's agreement; prints what differs and returns false if any does not agree.
bool all_agree(const std::vector<Case>& cases);

}  // namespace bench
