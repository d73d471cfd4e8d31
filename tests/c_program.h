// Builds a self-checking C program around generated kernels: inputs and expected results (computed on the
// host by the reference implementation) are embedded as bytes, every tensor lives in its own exactly-sized
// heap block (so AddressSanitizer sees any access outside it), and the program prints each mismatch with
// its case and element index and exits non-zero. Plain C99 and stdio only, so the same program can run on
// a target through semihosting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cprogram {

enum class Compare { Bytes, Float, Double };  // floats: NaN equals NaN, otherwise bit for bit

struct Case {
    std::string kernel;  // function name; its header is "<kernel>.h"
    std::string label;   // printed with failures (e.g. the spec)
    bool has_updates = false;
    bool in_place = false;  // ScatterND: output is a copy of data, passed as both
    Compare compare = Compare::Bytes;
    size_t element_size = 0;
    std::vector<uint8_t> data, indices, updates;
    int expected_status = 0;
    std::vector<uint8_t> expected_output;  // on error: the untouched output buffer
};

// Output buffers start filled with this byte, so an error must leave exactly these bytes behind.
constexpr uint8_t kSentinel = 0xA5;

std::string program(const std::vector<Case>& cases);

}  // namespace cprogram
