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

// How output elements compare: floats (and complex parts) and half patterns NaN-aware, otherwise bit for bit;
// strings by their characters.
enum class Compare { Bytes, Float, Double, Float16, BFloat16, String };

struct Case {
    std::string kernel;  // function name; its header is "<kernel>.h"
    std::string label;   // printed with failures (e.g. the spec)
    bool has_updates = false;
    bool in_place = false;  // ScatterND: output is a copy of data, passed as both
    Compare compare = Compare::Bytes;
    size_t element_size = 0;  // the unit of comparison (a complex number compares as two parts)
    std::vector<uint8_t> data, indices, updates;
    int expected_status = 0;
    std::vector<uint8_t> expected_output;  // on error: the untouched output buffer
    // Compare::String: the tensors as strings instead of bytes (on error, every output element is kSentinelString).
    std::vector<std::string> data_strings, updates_strings, expected_strings;
};

constexpr const char* kSentinelString = "<untouched>";

// Output buffers start filled with this byte, so an error must leave exactly these bytes behind.
constexpr uint8_t kSentinel = 0xA5;

std::string program(const std::vector<Case>& cases);

}  // namespace cprogram
