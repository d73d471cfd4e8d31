// NumPy's .npy format (format versions 1.0, 2.0 and 3.0, C order): the files that carry tensors beside a spec —
// a kernel's constant data ("data_file", read by the spec reader) and import's large folded values and weights
// (written by the importer). Each element type has one descr kernelgen writes; the reader also takes its other
// spellings (native or big-endian order, '|' for one byte).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/dtype.h"
#include "kernelgen/result.h"

namespace kernelgen {

// The descr kernelgen writes for a type: "<f4" for float32, "|b1" for bool, "<u2" for bfloat16 (NumPy has no
// bfloat16: its bit patterns as uint16), "<c8" for complex64; nothing for string.
std::optional<std::string> npy_descr(DType type);

// The beginning of a .npy file (format 1.0) of a C-order array of `descr` elements and this shape, padded so that
// the data after it starts at a multiple of 64 bytes.
std::string npy_header(const std::string& descr, const std::vector<uint64_t>& shape);

// A .npy file as read: its element type, shape, and where its data begins.
struct NpyArray {
    std::string descr;
    std::vector<uint64_t> shape;
    bool big_endian = false;  // the elements are stored most significant byte first ('>')
    size_t data_offset = 0;
};

// Reads the header of the .npy file `bytes`; the problem when it is not one, holds Fortran order, or its data does
// not fill the file exactly (element bytes are counted from the descr's size).
Result<NpyArray> parse_npy(const std::string& bytes);

// Whether `descr` (as read: '<', '>', '=' or '|' order) names the elements of `type`; `big_endian` is set from its
// order.
bool npy_descr_matches(const std::string& descr, DType type, bool& big_endian);

}  // namespace kernelgen
