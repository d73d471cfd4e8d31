#include "common/npy.h"

#include <cctype>
#include <set>
#include <utility>

#include "common/shape_math.h"

namespace kernelgen {

namespace {

// A small reader of the header's Python literal: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
class HeaderReader {
public:
    explicit HeaderReader(std::string text) : text_(std::move(text)) {}

    Result<Ok> read(NpyArray& array, bool& fortran) {
        bool have_descr = false, have_order = false, have_shape = false;
        std::set<std::string> seen;
        if (!expect('{')) return fail("its header is not a Python dict");
        while (true) {
            skip();
            if (at_('}')) break;
            std::string key;
            if (!string(key) || !expect(':')) return fail("its header is not a Python dict");
            if (!seen.insert(key).second) return fail("its header gives '" + key + "' twice");
            if (key == "descr") {
                if (!string(array.descr)) return fail("its header's 'descr' is not a string");
                have_descr = true;
            } else if (key == "fortran_order") {
                skip();
                if (word("True")) fortran = true;
                else if (word("False")) fortran = false;
                else return fail("its header's 'fortran_order' is not True or False");
                have_order = true;
            } else if (key == "shape") {
                if (!shape(array.shape)) return fail("its header's 'shape' is not a tuple of integers");
                have_shape = true;
            } else {
                return fail("its header has the unknown key '" + key + "' (NumPy writes descr, fortran_order, shape)");
            }
            skip();
            if (at_(',')) continue;
            skip();
            if (at_('}')) break;
            return fail("its header is not a Python dict");
        }
        if (!have_descr || !have_order || !have_shape) {
            return fail("its header lacks " + std::string(!have_descr ? "'descr'" : !have_order ? "'fortran_order'" : "'shape'"));
        }
        return ok();
    }

private:
    static Problem fail(const std::string& message) { return Problem{message}; }
    void skip() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
    }
    bool at_(char ch) {
        skip();
        if (pos_ < text_.size() && text_[pos_] == ch) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool expect(char ch) { return at_(ch); }
    bool word(const std::string& w) {
        if (text_.compare(pos_, w.size(), w) != 0) return false;
        pos_ += w.size();
        return true;
    }
    bool string(std::string& out) {
        skip();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
        const char quote = text_[pos_++];
        const size_t end = text_.find(quote, pos_);
        if (end == std::string::npos || end - pos_ > 64) return false;
        out = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return true;
    }
    bool shape(std::vector<uint64_t>& out) {
        if (!at_('(')) return false;
        while (true) {
            skip();
            if (at_(')')) return true;
            size_t digits = 0;
            uint64_t value = 0;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                if (++digits > 13) return false;  // beyond 2^40 in any case
                value = value * 10 + static_cast<uint64_t>(text_[pos_++] - '0');
            }
            if (digits == 0 || out.size() >= kMaxRank) return false;
            skip();
            if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2's long
            out.push_back(value);
            if (at_(',')) continue;
            return at_(')');
        }
    }

    const std::string text_;
    size_t pos_ = 0;
};

// Bytes of one element of a descr ("<f4": 4, "<c16": 16), or 0 when it names no fixed-size numeric type.
size_t element_bytes(const std::string& descr) {
    if (descr.size() < 3 || descr.size() > 4 || std::string("<>=|").find(descr[0]) == std::string::npos) return 0;
    if (std::string("fiucb").find(descr[1]) == std::string::npos) return 0;
    size_t bytes = 0;
    for (size_t i = 2; i < descr.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(descr[i]))) return 0;
        bytes = bytes * 10 + static_cast<size_t>(descr[i] - '0');
    }
    return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16 ? bytes : 0;
}

}  // namespace

std::optional<std::string> npy_descr(DType type) {
    switch (type) {
        case DType::Bool: return "|b1";
        case DType::Int8: return "|i1";
        case DType::UInt8: return "|u1";
        case DType::Int16: return "<i2";
        case DType::UInt16: case DType::BFloat16: return "<u2";
        case DType::Float16: return "<f2";
        case DType::Int32: return "<i4";
        case DType::UInt32: return "<u4";
        case DType::Float32: return "<f4";
        case DType::Int64: return "<i8";
        case DType::UInt64: return "<u8";
        case DType::Float64: return "<f8";
        case DType::Complex64: return "<c8";
        case DType::Complex128: return "<c16";
        case DType::String: return std::nullopt;
    }
    return std::nullopt;
}

bool npy_descr_matches(const std::string& descr, DType type, bool& big_endian) {
    const auto ours = npy_descr(type);
    if (!ours || descr.size() != ours->size() || descr.substr(1) != ours->substr(1)) return false;
    // One byte: any order mark; wider: '<', '=' (taken as little-endian, the order of every target) or '>'.
    big_endian = descr[0] == '>' && element_bytes(descr) > 1;
    return (*ours)[0] == '|' ? true : descr[0] != '|';
}

std::string npy_header(const std::string& descr, const std::vector<uint64_t>& shape) {
    std::string dims = "(";
    for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
    dims += shape.size() == 1 ? ",)" : ")";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + dims + ", }";
    // The magic, version and length take 10 bytes; the header ends in '\n' and pads the whole to 64 bytes.
    const size_t length = (10 + header.size() + 1 + 63) / 64 * 64 - 10;
    header.append(length - header.size() - 1, ' ');
    header += '\n';
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(length & 0xFF);
    out += static_cast<char>(length >> 8);
    return out + header;
}

Result<NpyArray> parse_npy(const std::string& bytes) {
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
        return Problem{"it is not a NumPy .npy file (no \\x93NUMPY magic)"};
    }
    const auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])); };
    const uint64_t major = byte(6);
    if (major < 1 || major > 3) {
        return Problem{"its format version " + std::to_string(major) + "." + std::to_string(byte(7)) +
                  " is not one NumPy writes (1.0, 2.0 or 3.0)"};
    }
    const size_t length_bytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + length_bytes) {
        return Problem{"it ends inside its header"};
    }
    uint64_t length = 0;
    for (size_t i = 0; i < length_bytes; ++i) length |= byte(8 + i) << (8 * i);
    const uint64_t offset = 8 + length_bytes + length;
    if (offset > bytes.size()) {
        return Problem{"it ends inside its header"};
    }
    NpyArray array;
    bool fortran = false;
    HeaderReader reader(bytes.substr(8 + length_bytes, length));
    if (auto header = reader.read(array, fortran); !header) return Problem{header.problem()};
    if (fortran) return Problem{"it holds its array in Fortran (column-major) order; save it in C order (numpy.ascontiguousarray)"};
    const size_t width = element_bytes(array.descr);
    if (width == 0) {
        return Problem{"its element type '" + array.descr + "' is not a fixed-size number or bool"};
    }
    array.big_endian = array.descr[0] == '>' && width > 1;
    const auto count = bounded_count(array.shape);
    if (!count) {
        return Problem{"its shape " + format_shape(array.shape) + " has too many elements (at most 2^40)"};
    }
    const uint64_t data_bytes = *count * width;
    if (bytes.size() - offset != data_bytes) {
        return Problem{"it holds " + std::to_string(bytes.size() - offset) + " bytes of data where its header's shape " +
                  format_shape(array.shape) + " of '" + array.descr + "' takes " + std::to_string(data_bytes)};
    }
    array.data_offset = static_cast<size_t>(offset);
    return array;
}

}  // namespace kernelgen
