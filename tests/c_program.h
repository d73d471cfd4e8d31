// Builds a self-checking C program around generated kernels: inputs and expected results (computed on the
// host by the reference implementation) are embedded as bytes, every tensor lives in its own exactly-sized
// heap block (so AddressSanitizer sees any access outside it), and the program prints each mismatch with
// its case and element index and exits non-zero. Plain C99 and stdio only, so the same program can run on
// a target through semihosting.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <nlohmann/json.hpp>
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
    bool constant_indices = false;  // the kernel was generated with these indices and takes no indices argument
    bool constant_data = false;     // the kernel holds this data (its spec's "data") and takes no data argument
    bool constant_updates = false;  // the kernel holds these updates (its spec's "updates"): no updates argument
    // A kernel with a run-time count ("count": "runtime") takes this count after its indices; the tensors hold
    // every row up to the bound.
    std::optional<uint32_t> count;
    // A kernel with a run-time data count ("data_count": "runtime") takes this count right after data; `data` then
    // holds only those rows (in its own exactly-sized block, so that a read beyond them is caught).
    std::optional<uint32_t> data_count;
    // A kernel with run-time extents ("runtime_axes") takes these extents after data, one per axis listed; data and
    // the output buffer then hold the tensors at those extents (each its own exactly-sized block).
    std::vector<uint32_t> data_dims;
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

// The C program that runs `cases` and prints "N cases, M failed". With `blob`, the bytes of its larger arrays
// go there instead of into the source, and the program reads them from cases.bin in its working folder (write
// `*blob` there).
std::string program(const std::vector<Case>& cases, std::vector<uint8_t>* blob = nullptr);

// One translation unit of the named files' C sources (those ending in .c), as a unity build makes: generated kernels
// build so (the unity_build tests say it), and hundreds of them compile several times faster than one by one.
std::string unity_source(const std::vector<std::string>& file_names);

// A tensor's elements as bytes, as the program embeds them.
template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    for (size_t i = 0; i < values.size(); ++i) {
        const T value = values[i];  // a copy: std::vector<bool> has no addressable elements
        std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
    }
    return bytes;
}

// A case from typed tensors, compared bit for bit: what a host test exports after checking a call.
template <typename T>
Case typed_case(const std::string& kernel, const std::string& label, const std::vector<T>& data,
                const std::vector<int64_t>& indices, const std::vector<T>* updates, bool in_place, int status,
                const std::vector<T>& expected) {
    Case c;
    c.kernel = kernel;
    c.label = label;
    c.has_updates = updates != nullptr;
    c.in_place = in_place;
    c.element_size = sizeof(T);
    c.data = bytes_of(data);
    c.indices = bytes_of(indices);
    if (updates) c.updates = bytes_of(*updates);
    c.expected_status = status;
    c.expected_output = bytes_of(expected);
    return c;
}

// Cases as JSON, bytes as hex strings: what KERNELGEN_DUMP_CASES and KERNELGEN_EXPORT_CASES write and the
// Cortex-M test reads back.
nlohmann::json to_json(const Case& c);
Case case_from_json(const nlohmann::json& item);

// Collects a case a host test has just checked (its inputs and the expected result the test compared
// with); at exit, when KERNELGEN_EXPORT_CASES names a file, every collected case is written there as a JSON
// array. This is how the Cortex-M test runs the very checks of the host tests on the target.
void export_case(Case c);

// Bytes as a hex string ("0aff..."), and back.
std::string hex(const std::vector<uint8_t>& bytes);
std::vector<uint8_t> unhex(const std::string& text);

// Runs a shell command and returns what it printed (stdout and stderr); `status` is pclose()'s.
std::string run_command(const std::string& command, int& status);

}  // namespace cprogram
