// Values in a spec: inline numbers (each converted to its element type's exact bits, or refused) and NumPy .npy
// files (read through one descriptor, examined before they are read), for constant indices and tensors.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "common/hints.h"
#include "common/npy.h"
#include "common/shape_math.h"
#include "spec/kernel_reader.h"

namespace kernelgen {

using nlohmann::json;

namespace {

// The IEEE binary format with `mantissa_bits` and `exponent_bits` nearest to `value` (ties to even), as bits;
// nothing when a finite value rounds beyond the largest finite one. NaN gives the quiet NaN with its sign.
std::optional<uint64_t> ieee_bits(double value, int mantissa_bits, int exponent_bits) {
    const uint64_t sign = std::signbit(value) ? uint64_t{1} << (mantissa_bits + exponent_bits) : 0;
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const uint64_t all_ones = (uint64_t{1} << exponent_bits) - 1;
    if (std::isnan(value)) return sign | all_ones << mantissa_bits | uint64_t{1} << (mantissa_bits - 1);
    if (std::isinf(value)) return sign | all_ones << mantissa_bits;
    const double magnitude = std::fabs(value);
    if (magnitude == 0) return sign;
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
    int unbiased = std::max(exponent - 1, 1 - bias);  // subnormals share the least normal exponent's scale
    // The significand in units of the last place, rounded to nearest even (exact scaling by a power of two).
    auto units = static_cast<uint64_t>(std::nearbyint(std::ldexp(magnitude, mantissa_bits - unbiased)));
    if (units >> (mantissa_bits + 1)) {  // rounded up to the next power of two
        units >>= 1;
        ++unbiased;
    }
    const bool normal = units >> mantissa_bits;
    const auto field = static_cast<uint64_t>(normal ? unbiased + bias : 0);
    if (field >= all_ones) return std::nullopt;
    return sign | field << mantissa_bits | (units & ((uint64_t{1} << mantissa_bits) - 1));
}

// The widths of a floating-point part: float32, float64, float16, bfloat16; complex parts are float32 or float64.
struct FloatFormat {
    int mantissa_bits, exponent_bits;
    const char* largest;  // its largest finite value, for messages
};
FloatFormat float_format(unsigned part_bits, DType type) {
    if (type == DType::BFloat16) return {7, 8, "3.3895314e+38"};
    if (part_bits == 16) return {10, 5, "65504"};
    if (part_bits == 32) return {23, 8, "3.4028235e+38"};
    return {52, 11, "1.7976931348623157e+308"};
}

void append_le(std::vector<uint8_t>& out, uint64_t bits, unsigned bytes) {
    for (unsigned b = 0; b < bytes; ++b) out.push_back(static_cast<uint8_t>((bits >> (8 * b)) & 0xFF));
}

// One floating-point value of the spec: a number, or "NaN", "Infinity", "-Infinity" (JSON has no literal for them).
Result<uint64_t> float_value(const json& item, unsigned part_bits, DType type) {
    const FloatFormat format = float_format(part_bits, type);
    const std::string allowed = std::string("a number, or \"NaN\", \"Infinity\", \"-Infinity\"");
    double value = 0;
    if (item.is_string()) {
        const auto text = item.get<std::string>();
        if (text == "NaN") value = std::nan("");
        else if (text == "Infinity") value = HUGE_VAL;
        else if (text == "-Infinity") value = -HUGE_VAL;
        else {
            return Problem{"unknown value " + in_quotes(text) + " (" + allowed + ")" +
                           did_you_mean_value(text, {"NaN", "Infinity", "-Infinity"},
                                              {{"nan", "NaN"}, {"inf", "Infinity"}, {"-inf", "-Infinity"},
                                               {"infinity", "Infinity"}, {"-infinity", "-Infinity"}})};
        }
    } else if (item.is_number()) {
        value = item.get<double>();
    } else {
        return Problem{"expected a number, got " + json_type(item) + " " + item.dump() + " (" + allowed + ")"};
    }
    if (part_bits == 64) {
        uint64_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        return bits;
    }
    auto bits = ieee_bits(value, format.mantissa_bits, format.exponent_bits);
    if (!bits) {
        return Problem{"value " + item.dump() + " is out of range for " + std::string(info(type).name) + " (largest " +
                       format.largest + "; \"Infinity\" for infinity)"};
    }
    return *bits;
}

// One integer value of the spec, in the range of `type`.
Result<uint64_t> integer_value(const json& item, DType type) {
    const DTypeInfo& t = info(type);
    const bool is_signed = t.category == Category::SignedInt;
    const unsigned bits = t.bits;
    const int64_t low = !is_signed ? 0 : bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
    const uint64_t high = is_signed ? (uint64_t{1} << (bits - 1)) - 1 : bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    const std::string allowed = "an integer from " + std::to_string(low) + " to " + std::to_string(high);
    if (!item.is_number_integer()) {
        return Problem{"expected an integer, got " + json_type(item) + " " + item.dump() + " (" + allowed + ")"};
    }
    const bool fits = item.is_number_unsigned() ? item.get<uint64_t>() <= high : item.get<int64_t>() >= low;
    if (!fits) {
        return Problem{"value " + item.dump() + " is out of range for " + std::string(t.name) + " (" + allowed + ")"};
    }
    return item.is_number_unsigned() ? item.get<uint64_t>() : static_cast<uint64_t>(item.get<int64_t>());
}

// A value of a complex type: [real, imaginary].
bool complex_leaf(const json& item) { return item.is_array() && item.size() == 2 && !item[0].is_array(); }
bool plain_leaf(const json& item) { return !item.is_array(); }

}  // namespace

uint64_t max_constant_data_bytes(uint64_t element_bytes) {
    return element_bytes >= 4 ? uint64_t{64} << 20 : element_bytes == 2 ? uint64_t{32} << 20 : uint64_t{16} << 20;
}

std::optional<std::string> KernelReader::file_name(const std::string& key, const json& value) {
    if (value.is_string() && !value.get<std::string>().empty()) {
        // A control character (a NUL ends the name the system sees; a newline would end a depfile's line): refused.
        const std::string name = value.get<std::string>();
        const auto control = std::find_if(name.begin(), name.end(), [](char c) {
            return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        });
        if (control == name.end()) return name;
        char code[8];
        std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(*control)));
        fail(key, "the file name holds the control character " + std::string(code) + " at byte " +
                      std::to_string(control - name.begin()) +
                      " (a NumPy .npy file's path, without control characters)");
        return std::nullopt;
    }
    fail(key, "expected the name of a NumPy .npy file, got " + (value.is_string() ? std::string("\"\"") : json_type(value)) +
                  " (a path relative to the spec's folder, or an absolute one)");
    return std::nullopt;
}

bool KernelReader::within_table_limit(const std::string& key, uint64_t bytes, uint64_t width, const std::string& what) {
    if (bytes <= max_constant_data_bytes(width)) return true;
    fail(key, "constant data of " + what + " takes " + std::to_string(bytes) + " bytes (at most " +
                  std::to_string(max_constant_data_bytes(width)) + " bytes of " + std::to_string(width) +
                  "-byte elements in one kernel)");
    return false;
}

std::optional<std::vector<uint8_t>> KernelReader::read_inline_values(const json& value, const std::string& key, DType dtype,
                                                                     const Shape& shape, const std::string& shape_name,
                                                                     const IntegerRange* range) {
    const DTypeInfo& type = info(dtype);
    const bool complex = type.category == Category::Complex;
    const std::string one = complex ? "[real, imaginary] pairs" : type.category == Category::Bool ? "true or false"
                            : type.category == Category::SignedInt || type.category == Category::UnsignedInt
                                ? "integers" : "numbers";
    const std::string layout = shape.empty() ? "one value, as " + shape_name + " is []"
                                             : "arrays nested as " + shape_name + " " + format_shape(shape) + ", or a flat array of " +
                                                   std::to_string(element_count(shape)) + " " + one;
    auto located = nested_values(value, key, shape, complex ? complex_leaf : plain_leaf, layout);
    if (!located) return std::nullopt;
    std::vector<uint8_t> out;
    out.reserve(located->size() * (type.bits / 8));
    size_t bad = 0;
    constexpr size_t kShown = 8;  // problems listed one by one; the rest are counted
    // One value appended to `out` as its bytes; the problem when it is refused.
    auto append = [&](const json& item) -> Result<Ok> {
        if (complex) {
            if (!complex_leaf(item)) {
                return Problem{"expected [real, imaginary], got " + json_type(item) + " " + item.dump() + " (" + layout + ")"};
            }
            const unsigned part = type.bits / 2;
            auto re = float_value(item[0], part, dtype);
            if (!re) return Problem{re.problem()};
            auto im = float_value(item[1], part, dtype);
            if (!im) return Problem{im.problem()};
            append_le(out, *re, part / 8);
            append_le(out, *im, part / 8);
            return ok();
        }
        if (type.category == Category::Bool) {
            if (!item.is_boolean()) return Problem{"expected true or false, got " + json_type(item) + " " + item.dump()};
            out.push_back(item.get<bool>() ? 1 : 0);
            return ok();
        }
        const bool integer = type.category == Category::SignedInt || type.category == Category::UnsignedInt;
        auto bits = integer ? integer_value(item, dtype) : float_value(item, type.bits, dtype);
        if (range && integer && item.is_number_integer()) {
            const std::string allowed = "an integer from " + std::to_string(range->low) + " to " + std::to_string(range->high);
            const bool fits = item.is_number_unsigned() ? item.get<uint64_t>() <= static_cast<uint64_t>(range->high)
                                                        : item.get<int64_t>() >= range->low && item.get<int64_t>() <= range->high;
            if (!fits) return Problem{"value " + item.dump() + " is out of range for " + range->name + " (" + allowed + ")"};
        }
        if (!bits) return Problem{bits.problem()};
        append_le(out, *bits, type.bits / 8);
        return ok();
    };
    for (const auto& [item, where] : *located) {
        const auto appended = append(*item);
        if (!appended && ++bad <= kShown) fail(where, appended.problem());
    }
    if (bad > kShown) fail(key, std::to_string(bad - kShown) + " more constant data values are invalid (" + std::to_string(bad) + " in all)");
    if (bad) return std::nullopt;
    return out;
}

std::optional<std::string> KernelReader::npy_file_bytes(const std::string& key, const std::string& name,
                                                       uint64_t most_bytes, uint64_t most_elements, DType dtype,
                                                       std::string& path) {
    const std::string shown = in_quotes(name);
    auto too_large = [&](uint64_t size) {
        // A header (at most 64 KiB as NumPy writes it) and the data: anything larger cannot be this table.
        if (size <= most_bytes) return false;
        fail(key, "cannot use " + shown + ": it takes " + std::to_string(size) + " bytes, more than a .npy file of " +
                      std::to_string(most_elements) + " " + std::string(info(dtype).name) + " elements can");
        return true;
    };
    if (const auto given = files_.find(name); given != files_.end()) {
        path.clear();
        if (too_large(given->second.size())) return std::nullopt;
        return given->second;
    }
    namespace fs = std::filesystem;
    const fs::path named(name);
    path = (named.is_absolute() ? named : fs::path(file_).parent_path() / named).string();
    // Opened without blocking and examined through the descriptor, so that what is read is what was examined (a
    // FIFO put in the file's place is refused, not waited on).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        fail(key, "cannot read " + shown + ": " + std::string(errno == ENOENT ? "no such file" : std::strerror(errno)) +
                      " (a NumPy .npy file, relative to the spec's folder)");
        return std::nullopt;
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat status {};
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        fail(key, "cannot read " + shown + ": not a regular file (a NumPy .npy file, relative to the spec's folder)");
        return std::nullopt;
    }
    const auto size = static_cast<uint64_t>(status.st_size);
    if (too_large(size)) return std::nullopt;
    // Read to the end (at most one byte past the size examined: a file that grew is caught below).
    std::string bytes(static_cast<size_t>(size) + 1, '\0');
    size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fail(key, "cannot read " + shown + ": " + std::strerror(errno));
            return std::nullopt;
        }
        if (n == 0) break;
        got += static_cast<size_t>(n);
    }
    if (got != size) {
        fail(key, "cannot read " + shown + " (it changed while being read)");
        return std::nullopt;
    }
    bytes.resize(got);
    return bytes;
}

std::optional<KernelReader::NpyValues> KernelReader::read_npy_file(const std::string& key, const std::string& name, DType dtype,
                                                                   const std::string& type_rule, uint64_t most_elements) {
    const std::string shown = in_quotes(name);
    const auto descr = npy_descr(dtype);
    const uint64_t data_bytes = most_elements * (info(dtype).bits / 8);
    std::string path;
    const auto read = npy_file_bytes(key, name, data_bytes + (uint64_t{1} << 16) + 16, most_elements, dtype, path);
    if (!read) return std::nullopt;
    const std::string& bytes = *read;
    const auto array = parse_npy(bytes);
    if (!array) {
        fail(key, "cannot use " + shown + ": " + array.problem());
        return std::nullopt;
    }
    bool big_endian = false;
    if (!npy_descr_matches(array->descr, dtype, big_endian)) {
        fail(key, shown + " holds '" + array->descr + "' elements, and " + type_rule + " (a .npy file of '" + *descr + "'" +
                      (dtype == DType::BFloat16 ? ", the bfloat16 bit patterns as uint16" : "") + ")");
        return std::nullopt;
    }
    NpyValues values{std::vector<uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(array->data_offset), bytes.end()),
                     path, array->shape};
    // Big-endian elements: each part (a complex element has two) reversed into little-endian order.
    const size_t part = info(dtype).category == Category::Complex ? info(dtype).bits / 16 : info(dtype).bits / 8;
    if (big_endian && part > 1) {
        for (size_t at = 0; at < values.bytes.size(); at += part) {
            std::reverse(values.bytes.begin() + static_cast<std::ptrdiff_t>(at),
                         values.bytes.begin() + static_cast<std::ptrdiff_t>(at + part));
        }
    }
    if (dtype == DType::Bool) {
        for (size_t at = 0; at < values.bytes.size(); ++at) {
            if (values.bytes[at] > 1) {
                fail(key, shown + " holds " + std::to_string(values.bytes[at]) + " at element " + std::to_string(at) +
                              ", which is not a bool (0 or 1)");
                return std::nullopt;
            }
        }
    }
    return values;
}

}  // namespace kernelgen
