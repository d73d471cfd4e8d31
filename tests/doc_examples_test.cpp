// The kernels of specs/onnx_doc_examples.json against the examples of the ONNX operator documentation
// (/work/shared/onnx-op-docs: Gather, GatherElements, GatherND, ScatterND). Inputs and expected outputs are
// typed in by hand from the docs; the extra cases (negative indices, out-of-range indices, in-place and
// duplicate updates) are worked out by hand as well. Nothing here is computed by the code under test.
//
// Every call writes into a buffer whose elements start as the sentinel byte 0xA5 and which has guard
// elements on both sides, so unwritten output elements and writes outside the output are both caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "c_program.h"
#include "half_reference.h"
#include "kv_decode_step.h"
#include "kv_broadcast_fill.h"
#include "kv_index_copy.h"
#include "kv_setitem.h"
#include "mark_seen.h"
#include "onnx_tensorscatter.h"
#include "onnx_tensorscatter_3d.h"
#include "onnx_tensorscatter_circular.h"
#include "palette_rows.h"
#include "ring_of_five.h"
#include "rotary_cos.h"
#include "token_counts.h"
#include "tokens_q4.h"
#include "vocab_f32.h"
#include "vocab_q4.h"
#include "vocab_q8.h"
#include "words_q8.h"
#include "doc_gather_axis0.h"
#include "doc_gather_axis1.h"
#include "doc_gather_elements_1.h"
#include "doc_gather_elements_2.h"
#include "doc_gather_nd_1.h"
#include "doc_gather_nd_2.h"
#include "doc_gather_nd_3.h"
#include "doc_gather_nd_4.h"
#include "doc_gather_nd_5.h"
#include "doc_scatter_elements_1.h"
#include "doc_scatter_elements_2.h"
#include "doc_scatter_elements_add.h"
#include "doc_scatter_elements_max.h"
#include "doc_scatter_nd_1.h"
#include "doc_scatter_nd_2.h"
#include "doc_scatter_nd_add.h"
#include "doc_scatter_nd_max.h"
#include "doc_scatter_nd_min.h"
#include "doc_scatter_nd_mul.h"
#include "detection_fields.h"
#include "event_histogram.h"
#include "kept_boxes.h"
#include "mark_detections.h"
#include "nms_box_indices.h"
#include "column_picks.h"
#include "roi_merge.h"
#include "pair_rows.h"
#include "top_boxes.h"
#include "glyph_rows.h"
#include "token_table.h"

namespace {

using Shape = std::vector<size_t>;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// --- buffers and comparisons ------------------------------------------------------------------------------

constexpr unsigned char kSentinelByte = 0xA5;
constexpr size_t kGuardElements = 8;

// An output buffer with guard elements on both sides; everything starts as the sentinel byte.
template <typename T>
class GuardedBuffer {
public:
    explicit GuardedBuffer(size_t size) : size_(size), storage_(size + 2 * kGuardElements) {
        std::memset(static_cast<void*>(storage_.data()), kSentinelByte, storage_.size() * sizeof(T));
    }
    explicit GuardedBuffer(const std::vector<T>& contents) : GuardedBuffer(contents.size()) {
        std::copy(contents.begin(), contents.end(), data());
    }

    T* data() { return storage_.data() + kGuardElements; }
    std::vector<T> contents() const {
        const auto begin = storage_.begin() + static_cast<std::ptrdiff_t>(kGuardElements);
        return std::vector<T>(begin, begin + static_cast<std::ptrdiff_t>(size_));
    }

    testing::AssertionResult guards_intact() const {
        const auto* bytes = reinterpret_cast<const unsigned char*>(storage_.data());
        const size_t guard_bytes = kGuardElements * sizeof(T);
        const size_t tail_start = (kGuardElements + size_) * sizeof(T);
        for (size_t b = 0; b < guard_bytes; ++b) {
            if (bytes[b] != kSentinelByte) {
                return testing::AssertionFailure() << "write before the output, at byte " << b << " of the guard";
            }
            if (bytes[tail_start + b] != kSentinelByte) {
                return testing::AssertionFailure() << "write after the output, at byte " << b << " past its end";
            }
        }
        return testing::AssertionSuccess();
    }

private:
    size_t size_;
    std::vector<T> storage_;
};

template <typename T>
std::vector<T> sentinel_filled(size_t size) {
    return GuardedBuffer<T>(size).contents();
}

template <typename T>
bool same_bits(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
std::string show(const T& value) {
    std::ostringstream text;
    text << std::setprecision(9) << +value;
    return text.str();
}

// "[1, 0, 1]": the coordinates of a flat row-major element index.
std::string coordinates(size_t flat, const Shape& shape) {
    std::vector<size_t> coords(shape.size());
    for (size_t axis = shape.size(); axis-- > 0;) {
        coords[axis] = flat % shape[axis];
        flat /= shape[axis];
    }
    std::ostringstream text;
    text << '[';
    for (size_t axis = 0; axis < coords.size(); ++axis) text << (axis ? ", " : "") << coords[axis];
    text << ']';
    return text.str();
}

size_t element_count(const Shape& shape) {
    size_t count = 1;
    for (size_t extent : shape) count *= extent;
    return count;
}

std::string show_indices(const std::vector<int64_t>& indices) {
    std::ostringstream text;
    text << "indices {";
    for (size_t i = 0; i < indices.size(); ++i) text << (i ? ", " : "") << indices[i];
    text << '}';
    return text.str();
}

// Bit-for-bit comparison, each mismatch reported with its coordinates and flat element index.
template <typename T>
void expect_same_tensor(const std::string& label, const std::vector<T>& actual, const std::vector<T>& expected,
                        const Shape& shape) {
    ASSERT_EQ(actual.size(), expected.size()) << label;
    ASSERT_EQ(actual.size(), element_count(shape)) << label << ": shape and element count disagree";
    for (size_t i = 0; i < actual.size(); ++i) {
        EXPECT_TRUE(same_bits(actual[i], expected[i]))
            << label << coordinates(i, shape) << " (element " << i << "): got " << show(actual[i])
            << ", expected " << show(expected[i]);
    }
}

// indices with indices[position] replaced by value.
std::vector<int64_t> with_index(std::vector<int64_t> indices, size_t position, int64_t value) {
    indices.at(position) = value;
    return indices;
}

// Hands a checked call to the Cortex-M test (cprogram::export_case, active with KERNELGEN_EXPORT_CASES):
// the same inputs and the same hand-worked expectation, an error leaving the sentinel-filled output as is.
template <typename T>
void export_call(const char* kernel, const std::vector<T>& data, const std::vector<int64_t>& indices,
                 const std::vector<T>* updates, bool in_place, int status, const std::vector<T>& expected) {
    static_assert(cprogram::kSentinel == kSentinelByte, "one sentinel for host and target checks");
    const std::string label = std::string(kernel) + " " + show_indices(indices) + (in_place ? " in place" : "");
    cprogram::export_case(cprogram::typed_case<T>(kernel, label, data, indices, updates, in_place, status, expected));
}

// --- Gather, GatherElements and GatherND kernels: int NAME(const T*, const int64_t*, T*) --------------------

template <typename T>
struct GatherKernel {
    const char* name;
    int (*run)(const T*, const int64_t*, T*);
    size_t data_size, indices_size, output_size;
    int ok, error;
    Shape output_shape;
};

template <typename T>
GatherKernel<T> make_gather_kernel(const char* name, int (*run)(const T*, const int64_t*, T*), size_t data_size,
                                   size_t indices_size, size_t output_size, int ok, int error, Shape output_shape) {
    return {name, run, data_size, indices_size, output_size, ok, error, std::move(output_shape)};
}

// The kernel, its size macros and return codes, and the documented output shape.
#define GATHER_KERNEL(kernel, PREFIX, ...)                                                                  \
    make_gather_kernel(#kernel, kernel, PREFIX##_DATA_SIZE, PREFIX##_INDICES_SIZE, PREFIX##_OUTPUT_SIZE,    \
                       PREFIX##_OK, PREFIX##_ERROR_INDEX_OUT_OF_RANGE, Shape{__VA_ARGS__})

template <typename T>
void expect_gather(const GatherKernel<T>& kernel, const std::vector<T>& data, const std::vector<int64_t>& indices,
                   const std::vector<T>& expected) {
    SCOPED_TRACE(std::string(kernel.name) + " with " + show_indices(indices));
    ASSERT_EQ(data.size(), kernel.data_size);
    ASSERT_EQ(indices.size(), kernel.indices_size);
    ASSERT_EQ(expected.size(), kernel.output_size);
    GuardedBuffer<T> output(kernel.output_size);
    ASSERT_EQ(kernel.run(data.data(), indices.data(), output.data()), kernel.ok);
    expect_same_tensor("output", output.contents(), expected, kernel.output_shape);
    EXPECT_TRUE(output.guards_intact());
    export_call<T>(kernel.name, data, indices, nullptr, false, kernel.ok, expected);
}

// The kernel must return the error code and leave the pre-filled output bit-for-bit unchanged.
template <typename T>
void expect_gather_rejects(const GatherKernel<T>& kernel, const std::vector<T>& data,
                           const std::vector<int64_t>& indices) {
    SCOPED_TRACE(std::string(kernel.name) + " with " + show_indices(indices));
    ASSERT_EQ(data.size(), kernel.data_size);
    ASSERT_EQ(indices.size(), kernel.indices_size);
    GuardedBuffer<T> output(kernel.output_size);
    EXPECT_EQ(kernel.run(data.data(), indices.data(), output.data()), kernel.error);
    expect_same_tensor("pre-filled output", output.contents(), sentinel_filled<T>(kernel.output_size),
                       kernel.output_shape);
    EXPECT_TRUE(output.guards_intact());
    export_call<T>(kernel.name, data, indices, nullptr, false, kernel.error, sentinel_filled<T>(kernel.output_size));
}

// Each bad value, placed first and placed last in otherwise valid indices, is rejected.
template <typename T>
void expect_gather_rejects_each(const GatherKernel<T>& kernel, const std::vector<T>& data,
                                const std::vector<int64_t>& valid_indices, const std::vector<int64_t>& bad_values) {
    for (int64_t bad : bad_values) {
        expect_gather_rejects(kernel, data, with_index(valid_indices, 0, bad));
        expect_gather_rejects(kernel, data, with_index(valid_indices, valid_indices.size() - 1, bad));
    }
}

// --- ScatterND kernels: int NAME(const T*, const int64_t*, const T*, T*) -------------------------------------

template <typename T>
struct ScatterKernel {
    const char* name;
    int (*run)(const T*, const int64_t*, const T*, T*);
    size_t data_size, indices_size, updates_size, output_size;
    int ok, error;
    Shape data_shape;
};

template <typename T>
ScatterKernel<T> make_scatter_kernel(const char* name, int (*run)(const T*, const int64_t*, const T*, T*),
                                     size_t data_size, size_t indices_size, size_t updates_size,
                                     size_t output_size, int ok, int error, Shape data_shape) {
    return {name, run, data_size, indices_size, updates_size, output_size, ok, error, std::move(data_shape)};
}

#define SCATTER_KERNEL(kernel, PREFIX, ...)                                                                \
    make_scatter_kernel(#kernel, kernel, PREFIX##_DATA_SIZE, PREFIX##_INDICES_SIZE, PREFIX##_UPDATES_SIZE, \
                        PREFIX##_OUTPUT_SIZE, PREFIX##_OK, PREFIX##_ERROR_INDEX_OUT_OF_RANGE, Shape{__VA_ARGS__})

// Out of place (data must stay unchanged) and in place (output == data): both must give expected.
template <typename T>
void expect_scatter(const ScatterKernel<T>& kernel, const std::vector<T>& data, const std::vector<int64_t>& indices,
                    const std::vector<T>& updates, const std::vector<T>& expected) {
    SCOPED_TRACE(std::string(kernel.name) + " with " + show_indices(indices));
    ASSERT_EQ(data.size(), kernel.data_size);
    ASSERT_EQ(indices.size(), kernel.indices_size);
    ASSERT_EQ(updates.size(), kernel.updates_size);
    ASSERT_EQ(expected.size(), kernel.output_size);

    const std::vector<T> data_copy = data;
    GuardedBuffer<T> output(kernel.output_size);
    ASSERT_EQ(kernel.run(data_copy.data(), indices.data(), updates.data(), output.data()), kernel.ok);
    expect_same_tensor("output", output.contents(), expected, kernel.data_shape);
    EXPECT_TRUE(output.guards_intact());
    expect_same_tensor("data after an out-of-place call", data_copy, data, kernel.data_shape);

    GuardedBuffer<T> in_place(data);
    ASSERT_EQ(kernel.run(in_place.data(), indices.data(), updates.data(), in_place.data()), kernel.ok);
    expect_same_tensor("in-place output", in_place.contents(), expected, kernel.data_shape);
    EXPECT_TRUE(in_place.guards_intact());
    export_call(kernel.name, data, indices, &updates, false, kernel.ok, expected);
    export_call(kernel.name, data, indices, &updates, true, kernel.ok, expected);
}

// Out of place the pre-filled output, in place the data, must come back bit-for-bit unchanged.
template <typename T>
void expect_scatter_rejects(const ScatterKernel<T>& kernel, const std::vector<T>& data,
                            const std::vector<int64_t>& indices, const std::vector<T>& updates) {
    SCOPED_TRACE(std::string(kernel.name) + " with " + show_indices(indices));
    ASSERT_EQ(data.size(), kernel.data_size);
    ASSERT_EQ(indices.size(), kernel.indices_size);
    ASSERT_EQ(updates.size(), kernel.updates_size);

    GuardedBuffer<T> output(kernel.output_size);
    EXPECT_EQ(kernel.run(data.data(), indices.data(), updates.data(), output.data()), kernel.error);
    expect_same_tensor("pre-filled output", output.contents(), sentinel_filled<T>(kernel.output_size),
                       kernel.data_shape);
    EXPECT_TRUE(output.guards_intact());

    GuardedBuffer<T> in_place(data);
    EXPECT_EQ(kernel.run(in_place.data(), indices.data(), updates.data(), in_place.data()), kernel.error);
    expect_same_tensor("in-place data", in_place.contents(), data, kernel.data_shape);
    EXPECT_TRUE(in_place.guards_intact());
    export_call(kernel.name, data, indices, &updates, false, kernel.error, sentinel_filled<T>(kernel.output_size));
    export_call(kernel.name, data, indices, &updates, true, kernel.error, data);
}

template <typename T>
void expect_scatter_rejects_each(const ScatterKernel<T>& kernel, const std::vector<T>& data,
                                 const std::vector<int64_t>& valid_indices, const std::vector<T>& updates,
                                 const std::vector<int64_t>& bad_values) {
    for (int64_t bad : bad_values) {
        expect_scatter_rejects(kernel, data, with_index(valid_indices, 0, bad), updates);
        expect_scatter_rejects(kernel, data, with_index(valid_indices, valid_indices.size() - 1, bad), updates);
    }
}

// ==========================================================================================================
// Gather (Gather.txt: the axis = 0 and axis = 1 examples)
// ==========================================================================================================

const std::vector<float> kGatherAxis0Data{1.0f, 1.2f,  //
                                          2.3f, 3.4f,  //
                                          4.5f, 5.7f};
const std::vector<float> kGatherAxis1Data{1.0f, 1.2f, 1.9f,  //
                                          2.3f, 3.4f, 3.9f,  //
                                          4.5f, 5.7f, 5.9f};

TEST(DocGather, Axis0Example) {
    expect_gather(GATHER_KERNEL(doc_gather_axis0, DOC_GATHER_AXIS0, 2, 2, 2), kGatherAxis0Data, {0, 1, 1, 2},
                  {1.0f, 1.2f, 2.3f, 3.4f,  //
                   2.3f, 3.4f, 4.5f, 5.7f});
}

TEST(DocGather, Axis1Example) {
    expect_gather(GATHER_KERNEL(doc_gather_axis1, DOC_GATHER_AXIS1, 3, 1, 2), kGatherAxis1Data, {0, 2},
                  {1.0f, 1.9f,  //
                   2.3f, 3.9f,  //
                   4.5f, 5.9f});
}

TEST(DocGather, NegativeIndicesCountFromTheBack) {
    // Rows -3, -1, -2, 0 are rows 0, 2, 1, 0.
    expect_gather(GATHER_KERNEL(doc_gather_axis0, DOC_GATHER_AXIS0, 2, 2, 2), kGatherAxis0Data, {-3, -1, -2, 0},
                  {1.0f, 1.2f, 4.5f, 5.7f,  //
                   2.3f, 3.4f, 1.0f, 1.2f});
    // Columns -1, -3 are columns 2, 0.
    expect_gather(GATHER_KERNEL(doc_gather_axis1, DOC_GATHER_AXIS1, 3, 1, 2), kGatherAxis1Data, {-1, -3},
                  {1.9f, 1.0f,  //
                   3.9f, 2.3f,  //
                   5.9f, 4.5f});
}

TEST(DocGather, OutOfRangeIndexLeavesOutputUntouched) {
    // The gathered axis has size 3 in both kernels: 3 and -4 are the first values outside [-3, 2].
    const std::vector<int64_t> bad{3, -4, kInt64Max, kInt64Min};
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_axis0, DOC_GATHER_AXIS0, 2, 2, 2), kGatherAxis0Data,
                               {0, 1, 1, 2}, bad);
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_axis1, DOC_GATHER_AXIS1, 3, 1, 2), kGatherAxis1Data,
                               {0, 2}, bad);
}

// ==========================================================================================================
// GatherElements (GatherElements.txt: Examples 1 and 2, and _gather_elements_negative_indices)
// ==========================================================================================================

const std::vector<int32_t> kGatherElements1Data{1, 2,  //
                                                3, 4};
const std::vector<int32_t> kGatherElements2Data{1, 2, 3,  //
                                                4, 5, 6,  //
                                                7, 8, 9};

TEST(DocGatherElements, Example1) {
    expect_gather(GATHER_KERNEL(doc_gather_elements_1, DOC_GATHER_ELEMENTS_1, 2, 2), kGatherElements1Data,
                  {0, 0, 1, 0}, {1, 1, 4, 3});
}

TEST(DocGatherElements, Example2) {
    expect_gather(GATHER_KERNEL(doc_gather_elements_2, DOC_GATHER_ELEMENTS_2, 2, 3), kGatherElements2Data,
                  {1, 2, 0, 2, 0, 0}, {4, 8, 3, 7, 2, 3});
}

TEST(DocGatherElements, NegativeIndicesExample) {
    // _gather_elements_negative_indices: same data, axis 0, indices [[-1, -2, 0], [-2, 0, 0]].
    expect_gather(GATHER_KERNEL(doc_gather_elements_2, DOC_GATHER_ELEMENTS_2, 2, 3), kGatherElements2Data,
                  {-1, -2, 0, -2, 0, 0}, {7, 5, 3, 4, 2, 3});
}

TEST(DocGatherElements, NegativeIndicesAlongAxis1) {
    // Row 0 takes columns -2, -1 (0, 1); row 1 takes columns -1, -2 (1, 0).
    expect_gather(GATHER_KERNEL(doc_gather_elements_1, DOC_GATHER_ELEMENTS_1, 2, 2), kGatherElements1Data,
                  {-2, -1, -1, -2}, {1, 2, 4, 3});
}

TEST(DocGatherElements, OutOfRangeIndexLeavesOutputUntouched) {
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_elements_1, DOC_GATHER_ELEMENTS_1, 2, 2),
                               kGatherElements1Data, {0, 0, 1, 0}, {2, -3, kInt64Max, kInt64Min});
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_elements_2, DOC_GATHER_ELEMENTS_2, 2, 3),
                               kGatherElements2Data, {1, 2, 0, 2, 0, 0}, {3, -4, kInt64Max, kInt64Min});
}

// ==========================================================================================================
// GatherND (GatherND.rst: Examples 1 to 5)
// ==========================================================================================================

const std::vector<int32_t> kGatherND2x2Data{0, 1, 2, 3};              // [[0,1],[2,3]]
const std::vector<int32_t> kGatherND2x2x2Data{0, 1, 2, 3, 4, 5, 6, 7};  // [[[0,1],[2,3]],[[4,5],[6,7]]]
// Every indexed axis has size 2: 2 and -3 are the first values outside [-2, 1].
const std::vector<int64_t> kGatherNDBadValues{2, -3, kInt64Max, kInt64Min};

TEST(DocGatherND, Example1) {
    expect_gather(GATHER_KERNEL(doc_gather_nd_1, DOC_GATHER_ND_1, 2), kGatherND2x2Data, {0, 0, 1, 1}, {0, 3});
}

TEST(DocGatherND, Example2) {
    expect_gather(GATHER_KERNEL(doc_gather_nd_2, DOC_GATHER_ND_2, 2, 2), kGatherND2x2Data, {1, 0},
                  {2, 3, 0, 1});
}

TEST(DocGatherND, Example3) {
    expect_gather(GATHER_KERNEL(doc_gather_nd_3, DOC_GATHER_ND_3, 2, 2), kGatherND2x2x2Data, {0, 1, 1, 0},
                  {2, 3, 4, 5});
}

TEST(DocGatherND, Example4) {
    expect_gather(GATHER_KERNEL(doc_gather_nd_4, DOC_GATHER_ND_4, 2, 1, 2), kGatherND2x2x2Data, {0, 1, 1, 0},
                  {2, 3, 4, 5});
}

TEST(DocGatherND, Example5BatchDims1) {
    expect_gather(GATHER_KERNEL(doc_gather_nd_5, DOC_GATHER_ND_5, 2, 2), kGatherND2x2x2Data, {1, 0},
                  {2, 3, 4, 5});
}

TEST(DocGatherND, NegativeIndicesCountFromTheBack) {
    // Tuples (-2, -1), (-1, -2) are (0, 1), (1, 0).
    expect_gather(GATHER_KERNEL(doc_gather_nd_1, DOC_GATHER_ND_1, 2), kGatherND2x2Data, {-2, -1, -1, -2}, {1, 2});
    // Row -1 and row -2 of [[0,1],[2,3]].
    expect_gather(GATHER_KERNEL(doc_gather_nd_2, DOC_GATHER_ND_2, 2, 2), kGatherND2x2Data, {-1, -2},
                  {2, 3, 0, 1});
    // Tuples (-1, -1), (0, -2) select data[1][1] = [6,7] and data[0][0] = [0,1].
    expect_gather(GATHER_KERNEL(doc_gather_nd_3, DOC_GATHER_ND_3, 2, 2), kGatherND2x2x2Data, {-1, -1, 0, -2},
                  {6, 7, 0, 1});
    // Batch 0 takes row -2 of [[0,1],[2,3]], batch 1 takes row -1 of [[4,5],[6,7]].
    expect_gather(GATHER_KERNEL(doc_gather_nd_5, DOC_GATHER_ND_5, 2, 2), kGatherND2x2x2Data, {-2, -1},
                  {0, 1, 6, 7});
}

TEST(DocGatherND, OutOfRangeIndexLeavesOutputUntouched) {
    // With tuples, "last" is the last component of the last tuple.
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_nd_1, DOC_GATHER_ND_1, 2), kGatherND2x2Data,
                               {0, 0, 1, 1}, kGatherNDBadValues);
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_nd_2, DOC_GATHER_ND_2, 2, 2), kGatherND2x2Data, {1, 0},
                               kGatherNDBadValues);
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_nd_3, DOC_GATHER_ND_3, 2, 2), kGatherND2x2x2Data,
                               {0, 1, 1, 0}, kGatherNDBadValues);
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_nd_4, DOC_GATHER_ND_4, 2, 1, 2), kGatherND2x2x2Data,
                               {0, 1, 1, 0}, kGatherNDBadValues);
    expect_gather_rejects_each(GATHER_KERNEL(doc_gather_nd_5, DOC_GATHER_ND_5, 2, 2), kGatherND2x2x2Data,
                               {1, 0}, kGatherNDBadValues);
}

TEST(DocGatherND, OutOfRangeInTheMiddleOfATuple) {
    // The first component of the second tuple, then the second component of the first tuple.
    const auto kernel = GATHER_KERNEL(doc_gather_nd_3, DOC_GATHER_ND_3, 2, 2);
    expect_gather_rejects(kernel, kGatherND2x2x2Data, {0, 1, 2, 0});
    expect_gather_rejects(kernel, kGatherND2x2x2Data, {0, -3, 1, 0});
}

// ==========================================================================================================
// ScatterND (ScatterND.txt: Examples 1 and 2, _scatternd_add, _multiply, _max and _min)
// ==========================================================================================================

const std::vector<float> kScatter1Data{1, 2, 3, 4, 5, 6, 7, 8};
const std::vector<float> kScatter1Updates{9, 10, 11, 12};

// data and updates of Example 2, which the reduction examples share.
const std::vector<float> kScatterData{1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                      1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                      8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8,  //
                                      8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
const std::vector<float> kScatterUpdates{5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8,  //
                                         1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};

// The "Expecting output" comments of _scatternd_add, _multiply, _max and _min all give block 2 as
// [[1,1,1,1],[2,2,2,2],[3,3,3,3],[4,4,4,4]], copied from _scatternd (indices [[0],[2]]). With indices
// [[0],[0]] block 2 is never written, so it keeps data's block 2 [[8,7,6,5],[4,3,2,1],[1,2,3,4],[5,6,7,8]]
// (as in ONNX's node test data, test_scatternd_add/test_data_set_0/output_0.pb). The documented outputs below
// are typed in as printed; only that block is replaced by data's.
std::vector<float> with_data_block2(std::vector<float> documented) {
    constexpr size_t kBlock = 16;
    std::copy(kScatterData.begin() + 2 * kBlock, kScatterData.begin() + 3 * kBlock, documented.begin() + 2 * kBlock);
    return documented;
}

const auto kScatter1 = SCATTER_KERNEL(doc_scatter_nd_1, DOC_SCATTER_ND_1, 8);
const auto kScatter2 = SCATTER_KERNEL(doc_scatter_nd_2, DOC_SCATTER_ND_2, 4, 4, 4);
const auto kScatterAdd = SCATTER_KERNEL(doc_scatter_nd_add, DOC_SCATTER_ND_ADD, 4, 4, 4);
const auto kScatterMul = SCATTER_KERNEL(doc_scatter_nd_mul, DOC_SCATTER_ND_MUL, 4, 4, 4);
const auto kScatterMax = SCATTER_KERNEL(doc_scatter_nd_max, DOC_SCATTER_ND_MAX, 4, 4, 4);
const auto kScatterMin = SCATTER_KERNEL(doc_scatter_nd_min, DOC_SCATTER_ND_MIN, 4, 4, 4);

const std::vector<float> kScatter1Output{1, 11, 3, 10, 9, 6, 7, 12};
const std::vector<float> kScatter2Output{5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8,  //
                                         1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                         1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,  //
                                         8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
const std::vector<float> kScatterAddOutput = with_data_block2(
    {7, 8, 9, 10, 13, 14, 15, 16, 18, 17, 16, 15, 16, 15, 14, 13,  //
     1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,               //
     1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,               //
     8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8});
const std::vector<float> kScatterMulOutput = with_data_block2(
    {5, 10, 15, 20, 60, 72, 84, 96, 168, 147, 126, 105, 128, 96, 64, 32,  //
     1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,                      //
     1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,                      //
     8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8});
const std::vector<float> kScatterMaxOutput = with_data_block2(
    {5, 5, 5, 5, 6, 6, 7, 8, 8, 7, 7, 7, 8, 8, 8, 8,  //
     1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
     1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,  //
     8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8});
const std::vector<float> kScatterMinOutput = with_data_block2(
    {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 3, 2, 1,  //
     1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
     1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,  //
     8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8});

TEST(DocScatterND, Example1) {
    expect_scatter(kScatter1, kScatter1Data, {4, 3, 1, 7}, kScatter1Updates, kScatter1Output);
}

TEST(DocScatterND, Example2) {
    expect_scatter(kScatter2, kScatterData, {0, 2}, kScatterUpdates, kScatter2Output);
}

TEST(DocScatterND, AddExample) {
    expect_scatter(kScatterAdd, kScatterData, {0, 0}, kScatterUpdates, kScatterAddOutput);
}

TEST(DocScatterND, MulExample) {
    expect_scatter(kScatterMul, kScatterData, {0, 0}, kScatterUpdates, kScatterMulOutput);
}

TEST(DocScatterND, MaxExample) {
    expect_scatter(kScatterMax, kScatterData, {0, 0}, kScatterUpdates, kScatterMaxOutput);
}

TEST(DocScatterND, MinExample) {
    expect_scatter(kScatterMin, kScatterData, {0, 0}, kScatterUpdates, kScatterMinOutput);
}

TEST(DocScatterND, NegativeIndicesCountFromTheBack) {
    // -4, -5, -7, -1 are 4, 3, 1, 7 in a length-8 axis: Example 1's output.
    expect_scatter(kScatter1, kScatter1Data, {-4, -5, -7, -1}, kScatter1Updates, kScatter1Output);
    // -4, -2 are 0, 2 in a size-4 axis: Example 2's output.
    expect_scatter(kScatter2, kScatterData, {-4, -2}, kScatterUpdates, kScatter2Output);
    // -4 and 0 are the same block, so the reductions combine both updates into it as in the examples.
    expect_scatter(kScatterAdd, kScatterData, {-4, 0}, kScatterUpdates, kScatterAddOutput);
    expect_scatter(kScatterMul, kScatterData, {0, -4}, kScatterUpdates, kScatterMulOutput);
    expect_scatter(kScatterMax, kScatterData, {-4, -4}, kScatterUpdates, kScatterMaxOutput);
    expect_scatter(kScatterMin, kScatterData, {0, -4}, kScatterUpdates, kScatterMinOutput);
}

TEST(DocScatterND, DuplicatesWithoutReductionLastWins) {
    // Element 4 gets 9, then 11; element 3 gets 10, element 7 gets 12.
    const std::vector<float> expected{1, 2, 3, 10, 11, 6, 7, 12};
    expect_scatter(kScatter1, kScatter1Data, {4, 3, 4, 7}, kScatter1Updates, expected);
    // The same through negative aliases of 4.
    expect_scatter(kScatter1, kScatter1Data, {-4, 3, 4, 7}, kScatter1Updates, expected);
    expect_scatter(kScatter1, kScatter1Data, {4, 3, -4, 7}, kScatter1Updates, expected);
    // 7 is written first by 9, then by 12; 1 and 0 once each.
    expect_scatter(kScatter1, kScatter1Data, {7, 1, 0, -1}, kScatter1Updates, {11, 10, 3, 4, 5, 6, 7, 12});
}

TEST(DocScatterND, DuplicateSlicesWithoutReductionLastWins) {
    // Blocks 2 and -2 are the same: the second update [[1..],[2..],[3..],[4..]] wins; block 0 keeps data.
    const std::vector<float> expected{1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                      1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                      1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,  //
                                      8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
    expect_scatter(kScatter2, kScatterData, {2, -2}, kScatterUpdates, expected);
}

TEST(DocScatterND, OutOfRangeIndexLeavesOutputUntouched) {
    // Length-8 axis: 8 and -9 are the first values outside [-8, 7].
    expect_scatter_rejects_each(kScatter1, kScatter1Data, {4, 3, 1, 7}, kScatter1Updates,
                                {8, -9, kInt64Max, kInt64Min});
    // Size-4 axis: 4 and -5 are the first values outside [-4, 3].
    const std::vector<int64_t> bad{4, -5, kInt64Max, kInt64Min};
    for (const auto* kernel : {&kScatter2, &kScatterAdd, &kScatterMul, &kScatterMax, &kScatterMin}) {
        expect_scatter_rejects_each(*kernel, kScatterData, {0, 2}, kScatterUpdates, bad);
    }
}

// ==========================================================================================================
// ScatterElements: the two examples of ONNX's documentation (typed in as printed), and hand-worked cases for
// the reductions, negative axes and indices, duplicates and out-of-range values.
// ==========================================================================================================

const auto kScatterElements1 = SCATTER_KERNEL(doc_scatter_elements_1, DOC_SCATTER_ELEMENTS_1, 3, 3);
const auto kScatterElements2 = SCATTER_KERNEL(doc_scatter_elements_2, DOC_SCATTER_ELEMENTS_2, 1, 5);
const auto kScatterElementsAdd = SCATTER_KERNEL(doc_scatter_elements_add, DOC_SCATTER_ELEMENTS_ADD, 2, 4);
const auto kScatterElementsMax = SCATTER_KERNEL(doc_scatter_elements_max, DOC_SCATTER_ELEMENTS_MAX, 3, 2);

TEST(DocScatterElements, Example1) {
    // output[indices[i][j]][j] = updates[i][j] (axis 0).
    expect_scatter(kScatterElements1, std::vector<float>(9, 0.0f), {1, 0, 2, 0, 2, 1},
                   std::vector<float>{1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f},
                   std::vector<float>{2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f});
}

TEST(DocScatterElements, Example2) {
    // output[i][indices[i][j]] = updates[i][j] (axis 1).
    expect_scatter(kScatterElements2, std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f}, {1, 3},
                   std::vector<float>{1.1f, 2.1f}, std::vector<float>{1.0f, 1.1f, 3.0f, 2.1f, 5.0f});
}

TEST(DocScatterElements, NegativeIndicesCountFromTheBack) {
    // Example 2 again: -4 and -2 are 1 and 3 in a length-5 axis.
    expect_scatter(kScatterElements2, std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f}, {-4, -2},
                   std::vector<float>{1.1f, 2.1f}, std::vector<float>{1.0f, 1.1f, 3.0f, 2.1f, 5.0f});
}

TEST(DocScatterElements, DuplicatesWithoutReductionLastWins) {
    // Axis 0 of [3, 3]: column 0 is written at row 1 by 1.0 and again by 2.0 (the later update); column 1 at
    // rows 0 and 2; column 2 at row 2 by 1.2, then at row -2 = 1 by 2.2.
    expect_scatter(kScatterElements1, std::vector<float>(9, 0.0f), {1, 0, 2, 1, 2, -2},
                   std::vector<float>{1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f},
                   std::vector<float>{0.0f, 1.1f, 0.0f, 2.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f});
}

TEST(DocScatterElements, AddAlongTheLastAxisWithDuplicates) {
    // data [[1, 2, 3, 4], [5, 6, 7, 8]], axis -1: row 0 adds 10 at 0, 20 at 0 again, 30 at -1 = 3;
    // row 1 adds 40 at 2, 50 at -3 = 1, 60 at 2 again.
    expect_scatter(kScatterElementsAdd, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}, {0, 0, -1, 2, -3, 2},
                   std::vector<int32_t>{10, 20, 30, 40, 50, 60}, std::vector<int32_t>{31, 2, 3, 34, 5, 56, 107, 8});
}

TEST(DocScatterElements, MaxAlongAxis0) {
    // data [[5, -1], [0, 7], [3, 3]]: column 0 takes updates 4 (at row 2: max(3, 4) = 4), 9 (row 0:
    // max(5, 9) = 9), -8 (row -1 = 2: max(4, -8) = 4); column 1 takes 6 (row 0: max(-1, 6) = 6), -2
    // (row 1: max(7, -2) = 7), 10 (row 1 again: 10).
    expect_scatter(kScatterElementsMax, std::vector<int16_t>{5, -1, 0, 7, 3, 3}, {2, 0, 0, 1, -1, 1},
                   std::vector<int16_t>{4, 6, 9, -2, -8, 10}, std::vector<int16_t>{9, 6, 0, 10, 4, 3});
}

TEST(DocScatterElements, OutOfRangeIndexLeavesOutputUntouched) {
    // Size-3 axis: 3 and -4 are the first values outside [-3, 2]; size-5 axis: 5 and -6.
    expect_scatter_rejects_each(kScatterElements1, std::vector<float>(9, 0.0f), {1, 0, 2, 0, 2, 1},
                                std::vector<float>{1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f}, {3, -4, kInt64Max, kInt64Min});
    expect_scatter_rejects_each(kScatterElements2, std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f}, {1, 3},
                                std::vector<float>{1.1f, 2.1f}, {5, -6, kInt64Max, kInt64Min});
    expect_scatter_rejects_each(kScatterElementsAdd, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}, {0, 0, -1, 2, -3, 2},
                                std::vector<int32_t>{10, 20, 30, 40, 50, 60}, {4, -5, kInt64Max, kInt64Min});
}

// ==========================================================================================================
// Run-time counts (specs/runtime_counts.json, "count": "runtime"): hand-worked. The rows of indices (and
// updates) beyond the count hold values far out of range: a kernel that read them would return an error.
// ==========================================================================================================

template <typename T, typename I>
void export_counted(const char* kernel, const std::vector<T>& data, const std::vector<I>& indices, uint32_t count,
                    const std::vector<T>* updates, bool in_place, int status, const std::vector<T>& expected) {
    const std::string label = std::string(kernel) + " with count " + std::to_string(count) + (in_place ? " in place" : "");
    cprogram::Case c = cprogram::typed_case<T>(kernel, label, data, {}, updates, in_place, status, expected);
    c.indices = cprogram::bytes_of(indices);
    c.count = count;
    cprogram::export_case(c);
}

// `first` followed by `poison` up to `size` values.
template <typename I>
std::vector<I> padded(std::vector<I> first, size_t size, I poison) {
    first.resize(size, poison);
    return first;
}

// kept_boxes: Gather of rows of [100, 4] float32; row r of the data is {r, r + 0.25, r + 0.5, r + 0.75}.
std::vector<float> box_table() {
    std::vector<float> boxes;
    for (int r = 0; r < 100; ++r) {
        for (float part : {0.0f, 0.25f, 0.5f, 0.75f}) boxes.push_back(static_cast<float>(r) + part);
    }
    return boxes;
}

// Calls a counted gather through `call`, which writes to the output it is given; `status` must come back, and
// the output of `shape` must hold `rows` followed by the untouched sentinel. Returns that expected output.
template <typename T, typename Call>
std::vector<T> expect_counted_gather(Call call, const Shape& shape, int status, const std::vector<T>& rows) {
    std::vector<T> expected = sentinel_filled<T>(element_count(shape));
    std::copy(rows.begin(), rows.end(), expected.begin());
    GuardedBuffer<T> output(element_count(shape));
    EXPECT_EQ(call(output.data()), status);
    expect_same_tensor("output", output.contents(), expected, shape);
    EXPECT_TRUE(output.guards_intact());
    return expected;
}

// Calls kept_boxes with the given first rows of indices (the rest poison) and count; the output must be
// `rows` followed by the untouched sentinel, or all sentinel unless the status is OK.
void expect_kept_boxes(const std::vector<int64_t>& first, uint32_t count, int status, const std::vector<float>& rows) {
    SCOPED_TRACE("kept_boxes with " + show_indices(first) + " and count " + std::to_string(count));
    const std::vector<float> data = box_table();
    const std::vector<int64_t> indices = padded(first, KEPT_BOXES_INDICES_SIZE, kInt64Min);
    const std::vector<float> expected = expect_counted_gather<float>(
        [&](float* output) { return kept_boxes(data.data(), indices.data(), count, output); }, Shape{100, 4}, status, rows);
    export_counted<float, int64_t>("kept_boxes", data, indices, count, nullptr, false, status, expected);
}

TEST(RuntimeCount, GatherWritesTheFirstCountRows) {
    EXPECT_EQ(KEPT_BOXES_MAX_COUNT, 100);
    EXPECT_EQ(KEPT_BOXES_INDICES_SIZE, 100);
    EXPECT_EQ(KEPT_BOXES_OUTPUT_SIZE, 400);
    // Rows 7, -1 = 99 and 42.
    expect_kept_boxes({7, -1, 42}, 3, KEPT_BOXES_OK,
                      {7.0f, 7.25f, 7.5f, 7.75f, 99.0f, 99.25f, 99.5f, 99.75f, 42.0f, 42.25f, 42.5f, 42.75f});
    // The same indices with a count of 1: row 7 only.
    expect_kept_boxes({7, -1, 42}, 1, KEPT_BOXES_OK, {7.0f, 7.25f, 7.5f, 7.75f});
}

TEST(RuntimeCount, GatherAtTheBound) {
    // Indices -1, -2, ..., -100: rows 99 down to 0.
    std::vector<int64_t> reversed;
    std::vector<float> rows;
    for (int64_t t = 0; t < 100; ++t) {
        reversed.push_back(-1 - t);
        for (float part : {0.0f, 0.25f, 0.5f, 0.75f}) rows.push_back(static_cast<float>(99 - t) + part);
    }
    expect_kept_boxes(reversed, 100, KEPT_BOXES_OK, rows);
}

TEST(RuntimeCount, CountZeroWritesNothing) {
    expect_kept_boxes({}, 0, KEPT_BOXES_OK, {});
}

TEST(RuntimeCount, CountAboveTheBoundIsRefusedBeforeAnyRead) {
    // Valid indices in every row: only the count is wrong.
    const std::vector<int64_t> zeros(100, 0);
    for (uint32_t count : {101u, 0x80000000u, 0xFFFFFFFFu}) {
        expect_kept_boxes(zeros, count, KEPT_BOXES_ERROR_COUNT_OUT_OF_RANGE, {});
    }
    EXPECT_EQ(KEPT_BOXES_ERROR_COUNT_OUT_OF_RANGE, -2);
}

TEST(RuntimeCount, OnlyTheFirstCountRowsAreChecked) {
    // 100 is out of range for the 100 rows: refused in the second row with a count of 2, never read with 1.
    expect_kept_boxes({7, 100}, 2, KEPT_BOXES_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_kept_boxes({7, 100}, 1, KEPT_BOXES_OK, {7.0f, 7.25f, 7.5f, 7.75f});
}

// A counted scatter, out of place (data unchanged) and in place; the output must be `expected`, or on an
// error the sentinel out of place and data in place.
template <typename T, typename I, typename Run>
void expect_counted_scatter(const char* kernel, Run run, const std::vector<T>& data, const std::vector<I>& indices,
                            uint32_t count, const std::vector<T>& updates, int status, const std::vector<T>& expected,
                            const Shape& shape) {
    SCOPED_TRACE(std::string(kernel) + " with count " + std::to_string(count));
    const bool ok = status == 0;
    const std::vector<T> data_copy = data;
    GuardedBuffer<T> output(data.size());
    EXPECT_EQ(run(data_copy.data(), indices.data(), count, updates.data(), output.data()), status);
    const std::vector<T> untouched = sentinel_filled<T>(data.size());
    expect_same_tensor("output", output.contents(), ok ? expected : untouched, shape);
    EXPECT_TRUE(output.guards_intact());
    expect_same_tensor("data after an out-of-place call", data_copy, data, shape);
    GuardedBuffer<T> in_place(data);
    EXPECT_EQ(run(in_place.data(), indices.data(), count, updates.data(), in_place.data()), status);
    expect_same_tensor("in-place output", in_place.contents(), ok ? expected : data, shape);
    EXPECT_TRUE(in_place.guards_intact());
    export_counted<T, I>(kernel, data, indices, count, &updates, false, status, ok ? expected : untouched);
    export_counted<T, I>(kernel, data, indices, count, &updates, true, status, ok ? expected : data);
}

TEST(RuntimeCount, ScatterElementsAddsTheFirstCountUpdates) {
    // event_histogram: data [16] = 0, 100, ..., 1500; int32 indices [256], reduction add.
    std::vector<int32_t> data;
    for (int32_t i = 0; i < 16; ++i) data.push_back(100 * i);
    const std::vector<int32_t> indices = padded<int32_t>({3, 3, -1, 0}, 256, std::numeric_limits<int32_t>::min());
    const std::vector<int32_t> updates = padded<int32_t>({1, 2, 3, 4}, 256, 1000000);
    // Bin 3 gets 1 + 2, bin -1 = 15 gets 3, bin 0 gets 4.
    std::vector<int32_t> expected = data;
    expected[0] = 4;
    expected[3] = 303;
    expected[15] = 1503;
    expect_counted_scatter("event_histogram", event_histogram, data, indices, 4, updates, EVENT_HISTOGRAM_OK, expected,
                           Shape{16});
    // Two updates: bin 3 gets 1 + 2 only.
    expected = data;
    expected[3] = 303;
    expect_counted_scatter("event_histogram", event_histogram, data, indices, 2, updates, EVENT_HISTOGRAM_OK, expected,
                           Shape{16});
    // None: output is data.
    expect_counted_scatter("event_histogram", event_histogram, data, indices, 0, updates, EVENT_HISTOGRAM_OK, data,
                           Shape{16});
    expect_counted_scatter("event_histogram", event_histogram, data, indices, 257, updates,
                           EVENT_HISTOGRAM_ERROR_COUNT_OUT_OF_RANGE, data, Shape{16});
}

TEST(RuntimeCount, ScatterNDWritesTheFirstCountTuples) {
    // mark_detections: data [20, 20] uint8 = 1 everywhere; index pairs (0, 0) and (19, -1) = (19, 19).
    const std::vector<uint8_t> data(400, 1);
    const std::vector<int64_t> indices = padded<int64_t>({0, 0, 19, -1}, 128, kInt64Max);
    const std::vector<uint8_t> updates = padded<uint8_t>({200, 201}, 64, 7);
    std::vector<uint8_t> expected = data;
    expected[0] = 200;
    expected[399] = 201;
    expect_counted_scatter("mark_detections", mark_detections, data, indices, 2, updates, MARK_DETECTIONS_OK, expected,
                           Shape{20, 20});
    expect_counted_scatter("mark_detections", mark_detections, data, indices, 3, updates,
                           MARK_DETECTIONS_ERROR_INDEX_OUT_OF_RANGE, data, Shape{20, 20});
    expect_counted_scatter("mark_detections", mark_detections, data, indices, 65, updates,
                           MARK_DETECTIONS_ERROR_COUNT_OUT_OF_RANGE, data, Shape{20, 20});
}

// ==========================================================================================================
// Run-time counts of data rows ("count_leads": "data"), hand-worked: the count is data's leading dimension and
// output's. data's rows beyond the count hold values that would show in output if the kernel copied them.
// ==========================================================================================================

// nms_box_indices: Gather(selected, 2, axis=1) of NonMaxSuppression's selected [K, 3] (batch, class, box), at
// most 4 rows: the box index of each of the first `count` selected rows. `boxes` are output's first elements,
// the rest must stay the sentinel.
void expect_nms_box_indices(uint32_t count, int status, const std::vector<int64_t>& boxes) {
    SCOPED_TRACE("nms_box_indices with count " + std::to_string(count));
    // Three selections of boxes 5, 2 and 7, and a fourth row of box 9.
    const std::vector<int64_t> selected{0, 0, 5, 0, 0, 2, 0, 0, 7, 1, 3, 9};
    const std::vector<int64_t> expected = expect_counted_gather<int64_t>(
        [&](int64_t* output) { return nms_box_indices(selected.data(), count, output); }, Shape{4}, status, boxes);
    cprogram::Case c = cprogram::typed_case<int64_t>("nms_box_indices", "nms_box_indices with count " + std::to_string(count),
                                                     selected, {}, nullptr, false, status, expected);
    c.constant_indices = true;
    c.count = count;
    cprogram::export_case(c);
}

TEST(RuntimeCountOfDataRows, TheNmsColumnOfTheFirstCountRows) {
    EXPECT_EQ(NMS_BOX_INDICES_MAX_COUNT, 4);  // data_shape[0]
    EXPECT_EQ(NMS_BOX_INDICES_DATA_SIZE, 12);
    EXPECT_EQ(NMS_BOX_INDICES_INDICES_SIZE, 1);
    EXPECT_EQ(NMS_BOX_INDICES_OUTPUT_SIZE, 4);
    expect_nms_box_indices(3, NMS_BOX_INDICES_OK, {5, 2, 7});
    expect_nms_box_indices(2, NMS_BOX_INDICES_OK, {5, 2});
    expect_nms_box_indices(1, NMS_BOX_INDICES_OK, {5});
    expect_nms_box_indices(0, NMS_BOX_INDICES_OK, {});
    expect_nms_box_indices(4, NMS_BOX_INDICES_OK, {5, 2, 7, 9});  // the bound
}

TEST(RuntimeCountOfDataRows, ACountAboveTheBoundIsRefused) {
    for (uint32_t count : {5u, 0x80000000u, 0xFFFFFFFFu}) {
        expect_nms_box_indices(count, NMS_BOX_INDICES_ERROR_COUNT_OUT_OF_RANGE, {});
    }
}

// detection_fields: Gather of columns of [6, 5] float32 detections along axis -1, by 2 run-time int32 indices;
// row r of data is {10r, 10r + 1, ..., 10r + 4}. `rows` are output's first elements, the rest the sentinel.
void expect_detection_fields(const std::vector<int32_t>& indices, uint32_t count, int status,
                             const std::vector<float>& rows) {
    SCOPED_TRACE("detection_fields with indices {" + std::to_string(indices[0]) + ", " + std::to_string(indices[1]) +
                 "} and count " + std::to_string(count));
    std::vector<float> data;
    for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 5; ++c) data.push_back(static_cast<float>(10 * r + c));
    }
    const std::vector<float> expected = expect_counted_gather<float>(
        [&](float* output) { return detection_fields(data.data(), indices.data(), count, output); }, Shape{6, 2}, status,
        rows);
    export_counted<float, int32_t>("detection_fields", data, indices, count, nullptr, false, status, expected);
}

TEST(RuntimeCountOfDataRows, RunTimeIndicesSelectColumnsOfTheFirstCountRows) {
    EXPECT_EQ(DETECTION_FIELDS_MAX_COUNT, 6);
    EXPECT_EQ(DETECTION_FIELDS_INDICES_SIZE, 2);
    EXPECT_EQ(DETECTION_FIELDS_OUTPUT_SIZE, 12);
    // Columns 4 and -5 = 0 of rows 0, 1 and 2.
    expect_detection_fields({4, -5}, 3, DETECTION_FIELDS_OK, {4.0f, 0.0f, 14.0f, 10.0f, 24.0f, 20.0f});
    // Columns 1 and -1 = 4 of every row.
    expect_detection_fields({1, -1}, 6, DETECTION_FIELDS_OK,
                            {1.0f, 4.0f, 11.0f, 14.0f, 21.0f, 24.0f, 31.0f, 34.0f, 41.0f, 44.0f, 51.0f, 54.0f});
    expect_detection_fields({1, -1}, 0, DETECTION_FIELDS_OK, {});
}

// The indices are not counted: each is checked whatever the count, 0 included; the count comes first.
TEST(RuntimeCountOfDataRows, EveryIndexIsCheckedWhateverTheCount) {
    expect_detection_fields({5, 0}, 0, DETECTION_FIELDS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_detection_fields({0, -6}, 2, DETECTION_FIELDS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_detection_fields({std::numeric_limits<int32_t>::min(), 0}, 6, DETECTION_FIELDS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_detection_fields({5, 0}, 7, DETECTION_FIELDS_ERROR_COUNT_OUT_OF_RANGE, {});
    expect_detection_fields({0, 1}, 0xFFFFFFFFu, DETECTION_FIELDS_ERROR_COUNT_OUT_OF_RANGE, {});
}

// ==========================================================================================================
// Two counts (specs/runtime_counts.json, "data_count": "runtime"): hand-worked. Data is a buffer of exactly
// its first data_count rows (a read beyond them is caught by AddressSanitizer); the rows of indices beyond the
// count hold values far out of range.
// ==========================================================================================================

// `rows` rows of `width` values, value (r, c) = 10 * r + c, as T.
template <typename T>
std::vector<T> numbered_rows(uint32_t rows, int width) {
    std::vector<T> out;
    for (uint32_t r = 0; r < rows; ++r) {
        for (int c = 0; c < width; ++c) out.push_back(static_cast<T>(10 * static_cast<int>(r) + c));
    }
    return out;
}

template <typename T, typename I>
void export_two_counts(const char* kernel, const std::vector<T>& data, uint32_t data_count, const std::vector<I>& indices,
                       std::optional<uint32_t> count, int status, const std::vector<T>& expected) {
    const std::string label = std::string(kernel) + " with data_count " + std::to_string(data_count) +
                              (count ? " and count " + std::to_string(*count) : "");
    cprogram::Case c = cprogram::typed_case<T>(kernel, label, data, {}, nullptr, false, status, expected);
    c.indices = cprogram::bytes_of(indices);
    c.count = count;
    c.data_count = data_count;
    cprogram::export_case(c);
}

// top_boxes: Gather along axis 0 of [100, 4] float32 with both counts; row r of data is box_table()'s row r.
void expect_top_boxes(const std::vector<int64_t>& first, uint32_t data_count, uint32_t count, int status,
                      const std::vector<float>& rows) {
    SCOPED_TRACE("top_boxes with " + show_indices(first) + ", data_count " + std::to_string(data_count) + " and count " +
                 std::to_string(count));
    const std::vector<float> table = box_table();
    const std::vector<float> data(table.begin(), table.begin() + 4 * std::min<uint32_t>(data_count, 100));
    const std::vector<int64_t> indices = padded(first, TOP_BOXES_INDICES_SIZE, kInt64Min);
    const std::vector<float> expected = expect_counted_gather<float>(
        [&](float* output) { return top_boxes(data.data(), data_count, indices.data(), count, output); }, Shape{10, 4},
        status, rows);
    export_two_counts<float, int64_t>("top_boxes", data, data_count, indices, count, status, expected);
}

TEST(TwoCounts, GatherSelectsAmongTheFirstDataCountRows) {
    EXPECT_EQ(TOP_BOXES_MAX_COUNT, 10);
    EXPECT_EQ(TOP_BOXES_MAX_DATA_COUNT, 100);
    EXPECT_EQ(TOP_BOXES_DATA_SIZE, 400);
    EXPECT_EQ(TOP_BOXES_ERROR_DATA_COUNT_OUT_OF_RANGE, -3);
    // Five valid rows: 4, -1 = 5 - 1 = 4 (not 99: negative indices count back from data_count) and -5 = 0.
    expect_top_boxes({4, -1, -5}, 5, 3, TOP_BOXES_OK,
                     {4.0f, 4.25f, 4.5f, 4.75f, 4.0f, 4.25f, 4.5f, 4.75f, 0.0f, 0.25f, 0.5f, 0.75f});
    // At the bounds: -1 is row 99.
    expect_top_boxes({-1, 0}, 100, 2, TOP_BOXES_OK, {99.0f, 99.25f, 99.5f, 99.75f, 0.0f, 0.25f, 0.5f, 0.75f});
    // No index rows: nothing read or written, whatever data_count (0 included).
    expect_top_boxes({}, 0, 0, TOP_BOXES_OK, {});
    expect_top_boxes({}, 7, 0, TOP_BOXES_OK, {});
}

TEST(TwoCounts, GatherIndicesOutsideTheDataCountAreRefused) {
    // With 5 rows, 5 and -6 are the first values out of range, though the bound holds 100 rows.
    for (int64_t bad : {int64_t{5}, int64_t{-6}, int64_t{99}, int64_t{-100}, int64_t{100}, kInt64Max, kInt64Min}) {
        expect_top_boxes({0, bad}, 5, 2, TOP_BOXES_ERROR_INDEX_OUT_OF_RANGE, {});
    }
    // data_count 0: no index is valid.
    expect_top_boxes({0}, 0, 1, TOP_BOXES_ERROR_INDEX_OUT_OF_RANGE, {});
    // Beyond the count of index rows, a bad value is never read.
    expect_top_boxes({1, 5}, 5, 1, TOP_BOXES_OK, {1.0f, 1.25f, 1.5f, 1.75f});
}

TEST(TwoCounts, EachCountAboveItsBoundHasItsOwnError) {
    for (uint32_t data_count : {101u, 0x80000000u, 0xFFFFFFFFu}) {
        expect_top_boxes({0}, data_count, 1, TOP_BOXES_ERROR_DATA_COUNT_OUT_OF_RANGE, {});
        expect_top_boxes({0}, data_count, 11, TOP_BOXES_ERROR_DATA_COUNT_OUT_OF_RANGE, {});  // data_count first
    }
    for (uint32_t count : {11u, 0xFFFFFFFFu}) expect_top_boxes({0}, 100, count, TOP_BOXES_ERROR_COUNT_OUT_OF_RANGE, {});
}

// pair_rows: GatherND of [6, 3, 2] int16 by int32 tuples of 2, both counts; value (a, b, c) = 100a + 10b + c.
void expect_pair_rows(const std::vector<int32_t>& first, uint32_t data_count, uint32_t count, int status,
                      const std::vector<int16_t>& rows) {
    SCOPED_TRACE("pair_rows with " + show_indices(std::vector<int64_t>(first.begin(), first.end())) + ", data_count " + std::to_string(data_count) + " and count " +
                 std::to_string(count));
    std::vector<int16_t> data;
    for (uint32_t a = 0; a < std::min<uint32_t>(data_count, 6); ++a) {
        for (int b = 0; b < 3; ++b) {
            for (int c = 0; c < 2; ++c) data.push_back(static_cast<int16_t>(100 * static_cast<int>(a) + 10 * b + c));
        }
    }
    const std::vector<int32_t> indices = padded<int32_t>(first, PAIR_ROWS_INDICES_SIZE, std::numeric_limits<int32_t>::max());
    const std::vector<int16_t> expected = expect_counted_gather<int16_t>(
        [&](int16_t* output) { return pair_rows(data.data(), data_count, indices.data(), count, output); }, Shape{4, 2},
        status, rows);
    export_two_counts<int16_t, int32_t>("pair_rows", data, data_count, indices, count, status, expected);
}

TEST(TwoCounts, GatherNDChecksTheFirstTupleEntryAgainstTheDataCount) {
    EXPECT_EQ(PAIR_ROWS_MAX_COUNT, 4);
    EXPECT_EQ(PAIR_ROWS_MAX_DATA_COUNT, 6);
    // Two valid rows: (1, 2) and (-2, -1) = (0, 2).
    expect_pair_rows({1, 2, -2, -1}, 2, 2, PAIR_ROWS_OK, {120, 121, 20, 21});
    // All six: (-6, 0) = (0, 0), (5, -3) = (5, 0).
    expect_pair_rows({-6, 0, 5, -3}, 6, 2, PAIR_ROWS_OK, {0, 1, 500, 501});
    // The first entry against data_count 2, the second against its fixed axis of 3.
    expect_pair_rows({1, 0, 2, 0}, 2, 2, PAIR_ROWS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_pair_rows({1, 0, -3, 0}, 2, 2, PAIR_ROWS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_pair_rows({1, 3, 0, 0}, 2, 2, PAIR_ROWS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_pair_rows({1, 0, 2, 0}, 2, 1, PAIR_ROWS_OK, {100, 101});
    expect_pair_rows({0, 0}, 7, 1, PAIR_ROWS_ERROR_DATA_COUNT_OUT_OF_RANGE, {});
    expect_pair_rows({0, 0}, 6, 5, PAIR_ROWS_ERROR_COUNT_OUT_OF_RANGE, {});
}

// column_picks: GatherElements along axis 0 of [5, 3] uint8 by [2, 3] indices, data_count alone: no count argument.
void expect_column_picks(const std::vector<int64_t>& indices, uint32_t data_count, int status,
                         const std::vector<uint8_t>& values) {
    SCOPED_TRACE("column_picks with " + show_indices(indices) + " and data_count " + std::to_string(data_count));
    const std::vector<uint8_t> data = numbered_rows<uint8_t>(std::min<uint32_t>(data_count, 5), 3);
    const std::vector<uint8_t> expected = expect_counted_gather<uint8_t>(
        [&](uint8_t* output) { return column_picks(data.data(), data_count, indices.data(), output); }, Shape{2, 3},
        status, values);
    export_two_counts<uint8_t, int64_t>("column_picks", data, data_count, indices, std::nullopt, status, expected);
}

TEST(TwoCounts, GatherElementsAlongAxis0WithADataCountAlone) {
    EXPECT_EQ(COLUMN_PICKS_MAX_DATA_COUNT, 5);
    // Three valid rows: output[i][j] = data[indices[i][j]][j], -1 = row 2 and -3 = row 0.
    expect_column_picks({0, 2, -1, -3, 1, 2}, 3, COLUMN_PICKS_OK, {0, 21, 22, 0, 11, 22});
    expect_column_picks({4, -1, -5, 0, 0, 0}, 5, COLUMN_PICKS_OK, {40, 41, 2, 0, 1, 2});
    expect_column_picks({0, 2, 3, 0, 0, 0}, 3, COLUMN_PICKS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_column_picks({0, 0, 0, 0, 0, -4}, 3, COLUMN_PICKS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_column_picks({0, 0, 0, 0, 0, 0}, 0, COLUMN_PICKS_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_column_picks({0, 0, 0, 0, 0, 0}, 6, COLUMN_PICKS_ERROR_DATA_COUNT_OUT_OF_RANGE, {});
}

// roi_merge: ScatterElements along axis 0 of [6, 2] float32 with both counts, as torchvision merges the pooled
// regions of one level into zeros(num_rois, ...): data holds data_count rows (all regions), indices and updates
// count rows (this level's). Output's first data_count rows are data's, then updated; the rows beyond stay
// untouched (the sentinel bytes). In place, output is data's own buffer of data_count rows. updates[r][c] is
// 100 + 10r + c; data's value (r, c) is 10r + c.
void expect_roi_merge(const std::vector<int64_t>& first, uint32_t data_count, uint32_t count, int status,
                      const std::vector<float>& rows) {
    SCOPED_TRACE("roi_merge with " + show_indices(first) + ", data_count " + std::to_string(data_count) + " and count " +
                 std::to_string(count));
    const std::vector<float> data = numbered_rows<float>(std::min<uint32_t>(data_count, 6), 2);
    const std::vector<int64_t> indices = padded(first, ROI_MERGE_INDICES_SIZE, kInt64Min);
    std::vector<float> updates = numbered_rows<float>(4, 2);
    for (float& u : updates) u += 100.0f;
    std::vector<float> output(ROI_MERGE_OUTPUT_SIZE), expected(ROI_MERGE_OUTPUT_SIZE);
    std::memset(output.data(), cprogram::kSentinel, output.size() * sizeof(float));
    std::memset(expected.data(), cprogram::kSentinel, expected.size() * sizeof(float));
    if (status == ROI_MERGE_OK) std::copy(rows.begin(), rows.end(), expected.begin());
    EXPECT_EQ(roi_merge(data.data(), data_count, indices.data(), count, updates.data(), output.data()), status);
    EXPECT_EQ(std::memcmp(output.data(), expected.data(), output.size() * sizeof(float)), 0);
    cprogram::Case c = cprogram::typed_case<float>("roi_merge", "roi_merge with data_count " + std::to_string(data_count) +
                                                   " and count " + std::to_string(count), data, {}, &updates, false,
                                                   status, expected);
    c.indices = cprogram::bytes_of(indices);
    c.count = count;
    c.data_count = data_count;
    cprogram::export_case(c);
    if (data_count > 6) return;
    std::vector<float> in_place = data;  // output == data: nothing copied, only data_count rows there
    EXPECT_EQ(roi_merge(in_place.data(), data_count, indices.data(), count, updates.data(), in_place.data()), status);
    EXPECT_EQ(in_place, status == ROI_MERGE_OK ? rows : data);
}

TEST(TwoCounts, ScatterWritesAmongTheFirstDataCountRows) {
    EXPECT_EQ(ROI_MERGE_MAX_COUNT, 4);
    EXPECT_EQ(ROI_MERGE_MAX_DATA_COUNT, 6);
    // Four rows, element by element: output[indices[i][j]][j] = updates[i][j]. Update row 0 goes to row 3; update
    // row 1 to rows -4 = 0 (column 0) and 1 (column 1); row 2 keeps data's values.
    expect_roi_merge({3, 3, -4, 1}, 4, 2, ROI_MERGE_OK, {110, 1, 10, 111, 20, 21, 100, 101});
    // All six: -1 is row 5, not a row beyond; -6 is row 0, where 111 comes after 101 and stays.
    expect_roi_merge({-1, 0, 2, -6}, 6, 2, ROI_MERGE_OK, {0, 111, 10, 11, 110, 21, 30, 31, 40, 41, 100, 51});
    // No update rows: output is data's first rows, whatever their number (0 included).
    expect_roi_merge({}, 3, 0, ROI_MERGE_OK, {0, 1, 10, 11, 20, 21});
    expect_roi_merge({}, 0, 0, ROI_MERGE_OK, {});
}

TEST(TwoCounts, ScatterIndicesOutsideTheDataCountAreRefused) {
    for (int64_t bad : {int64_t{4}, int64_t{-5}, int64_t{5}, int64_t{-6}, kInt64Max, kInt64Min}) {
        expect_roi_merge({0, bad}, 4, 1, ROI_MERGE_ERROR_INDEX_OUT_OF_RANGE, {});
    }
    expect_roi_merge({0, 0}, 0, 1, ROI_MERGE_ERROR_INDEX_OUT_OF_RANGE, {});
    expect_roi_merge({1, 1, 9, 9}, 2, 1, ROI_MERGE_OK, {0, 1, 100, 101});  // row 1 of indices beyond the count
    expect_roi_merge({0, 0}, 7, 1, ROI_MERGE_ERROR_DATA_COUNT_OUT_OF_RANGE, {});
    expect_roi_merge({0, 0}, 6, 5, ROI_MERGE_ERROR_COUNT_OUT_OF_RANGE, {});
}

// ==========================================================================================================
// Constant data (specs/embedding_tables.json): the kernels hold their tables. token_table's file holds
// row + column / 16 at [row, column] (specs/token_table.npy, written so), but -0 at [0, 0], the smallest subnormal
// at [5, 3] and a NaN with the payload 0xBEEF at [127, 15]: the rows come out bit for bit.
// ==========================================================================================================

// The bits token_table's file holds at [row, column].
uint32_t token_bits(size_t row, size_t column) {
    if (row == 0 && column == 0) return 0x80000000u;
    if (row == 5 && column == 3) return 0x00000001u;
    if (row == 127 && column == 15) return 0x7FC0BEEFu;
    const float value = static_cast<float>(row) + static_cast<float>(column) / 16.0f;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// Calls token_table with `indices`, expecting `rows` (nothing written when empty: the call is refused), and hands
// the call to the target tests.
void expect_token_rows(const std::vector<int64_t>& indices, const std::vector<size_t>& rows) {
    SCOPED_TRACE("token_table with " + show_indices(indices));
    GuardedBuffer<uint32_t> output(TOKEN_TABLE_OUTPUT_SIZE);
    const int status = token_table(indices.data(), reinterpret_cast<float*>(output.data()));
    std::vector<uint32_t> expected(TOKEN_TABLE_OUTPUT_SIZE, 0xA5A5A5A5u);
    for (size_t r = 0; r < rows.size(); ++r) {
        for (size_t c = 0; c < 16; ++c) expected[r * 16 + c] = token_bits(rows[r], c);
    }
    EXPECT_EQ(status, rows.empty() ? TOKEN_TABLE_ERROR_INDEX_OUT_OF_RANGE : TOKEN_TABLE_OK);
    EXPECT_EQ(output.contents(), expected);
    EXPECT_TRUE(output.guards_intact());
    cprogram::Case c = cprogram::typed_case<uint32_t>("token_table", "token_table " + show_indices(indices), {}, indices,
                                                      nullptr, false, status, expected);
    c.constant_data = true;
    cprogram::export_case(c);
}

TEST(ConstantData, TokenTableRowsBitForBit) {
    EXPECT_EQ(TOKEN_TABLE_DATA_SIZE, 128 * 16);
    expect_token_rows({0, 5, 127, 64}, {0, 5, 127, 64});
    expect_token_rows({-128, -1, -123, 3}, {0, 127, 5, 3});
}

TEST(ConstantData, TokenTableRefusesIndicesOutOfRange) {
    for (int64_t bad : {int64_t{128}, int64_t{-129}, kInt64Max, kInt64Min}) expect_token_rows({0, 1, bad, 2}, {});
}

TEST(ConstantData, GlyphRowsFromInlineData) {
    // data [[1, -2, 3], [4, 5, -6], [-128, 0, 127], [9, 10, 11]], given in the spec; int32 index tuples of one.
    auto call = [](std::vector<int32_t> indices, int status, std::vector<int8_t> expected) {
        GuardedBuffer<int8_t> output(GLYPH_ROWS_OUTPUT_SIZE);
        EXPECT_EQ(glyph_rows(indices.data(), output.data()), status);
        EXPECT_EQ(output.contents(), expected);
        EXPECT_TRUE(output.guards_intact());
        cprogram::Case c = cprogram::typed_case<int8_t>("glyph_rows", "glyph_rows", {}, {}, nullptr, false, status, expected);
        c.indices = cprogram::bytes_of(indices);
        c.constant_data = true;
        cprogram::export_case(c);
    };
    const auto untouched = static_cast<int8_t>(0xA5);
    call({2, -1}, GLYPH_ROWS_OK, {-128, 0, 127, 9, 10, 11});
    call({-4, 1}, GLYPH_ROWS_OK, {1, -2, 3, 4, 5, -6});
    call({0, 4}, GLYPH_ROWS_ERROR_INDEX_OUT_OF_RANGE, std::vector<int8_t>(6, untouched));
    call({-5, 0}, GLYPH_ROWS_ERROR_INDEX_OUT_OF_RANGE, std::vector<int8_t>(6, untouched));
}

// A call's output and status: `expected` with status 0, or when `expected` is empty, the error (-1) with the output
// untouched (every byte the sentinel), the guards intact either way. Returns what the output must hold.
template <typename T>
std::vector<T> expect_output(GuardedBuffer<T>& output, int status, const std::vector<T>& expected) {
    std::vector<T> want = expected;
    if (expected.empty()) {
        want.assign(output.contents().size(), T{});
        std::memset(static_cast<void*>(want.data()), kSentinelByte, want.size() * sizeof(T));
    }
    EXPECT_EQ(status, expected.empty() ? -1 : 0);
    EXPECT_EQ(output.contents(), want);
    EXPECT_TRUE(output.guards_intact());
    return want;
}

// ==========================================================================================================
// TensorScatter (TensorScatter.md: the three node tests of onnx/backend/test/case/node/tensorscatter.py, and the
// reproduction of onnx/onnx#8353, whose corrected circular mode wraps only the sequence coordinate)
// ==========================================================================================================

const std::vector<float> kPastCache{1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 4, 3, 2, 1, 0,   // batch 0, head 0
                                    1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 4, 3, 2, 1, 0};  // batch 1, head 0

TEST(DocTensorScatter, LinearExample) {
    const auto kernel = SCATTER_KERNEL(onnx_tensorscatter, ONNX_TENSORSCATTER, 2, 1, 4, 5);
    const std::vector<float> update{5, 5, 5, 5, 5, 1, 1, 1, 1, 1};
    expect_scatter<float>(kernel, kPastCache, {1, 2}, update,
                          {1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 8, 7, 6, 5, 4, 4, 3, 2, 1, 0,
                           1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 1, 1, 1, 1, 1, 4, 3, 2, 1, 0});
    // The sequence of 1 fits from 0 to 3 of 4: 4 and beyond, and every negative index, are refused.
    expect_scatter<float>(kernel, kPastCache, {3, 0}, update,
                          {1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 5, 5, 5, 5, 5,
                           1, 1, 1, 1, 1, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 4, 3, 2, 1, 0});
    expect_scatter_rejects_each<float>(kernel, kPastCache, {1, 2}, update, {4, -1, INT64_MAX, INT64_MIN});
}

TEST(DocTensorScatter, CircularExample) {
    const auto kernel = SCATTER_KERNEL(onnx_tensorscatter_circular, ONNX_TENSORSCATTER_CIRCULAR, 2, 1, 4, 5);
    const std::vector<float> update{5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2};
    const std::vector<float> expected{1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 4, 3, 2, 1, 0,
                                      2, 2, 2, 2, 2, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 1, 1, 1, 1, 1};
    expect_scatter<float>(kernel, kPastCache, {1, 3}, update, expected);
    // Write indices wrap modulo 4, however large: 4k + 1 and 4k + 3 write where 1 and 3 do.
    expect_scatter<float>(kernel, kPastCache, {INT64_MAX - 2, 7}, update, expected);  // INT64_MAX - 2 = 4k + 1
    expect_scatter_rejects_each<float>(kernel, kPastCache, {1, 3}, update, {-1, INT64_MIN, -4});
}

TEST(DocTensorScatter, ThreeDimensionalExample) {
    const auto kernel = SCATTER_KERNEL(onnx_tensorscatter_3d, ONNX_TENSORSCATTER_3D, 3, 4, 5);
    const std::vector<float> row{1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 5, 4, 3, 2, 1};
    std::vector<float> past;
    for (int b = 0; b < 3; ++b) past.insert(past.end(), row.begin(), row.end());
    expect_scatter<float>(kernel, past, {1, 2, 0}, {4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3},
                          {1, 2, 3, 4, 5, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 4, 3, 2, 1,
                           1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7,
                           2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 8, 7, 6, 5, 4, 5, 4, 3, 2, 1});
    // A sequence of 2 in 4 positions: write indices 0..2.
    expect_scatter_rejects_each<float>(kernel, past, {1, 2, 0}, std::vector<float>(30, 9), {3, -1});
}

// onnx/onnx#8353's reproduction: five batch rows, a sequence axis of 4, write indices all 0, circular. The corrected
// mode writes every row's update at its own position 0 ([1, 2, 3, 4, 5]); the old reference wrapped the batch
// coordinate too, writing batch 4 onto batch 0 ([5, 2, 3, 4, -1]).
TEST(DocTensorScatter, CircularWrapsOnlyTheSequenceCoordinate) {
    const auto kernel = SCATTER_KERNEL(ring_of_five, RING_OF_FIVE, 5, 4, 1);
    const std::vector<int32_t> past(20, -1), update{1, 2, 3, 4, 5};
    auto cache = [](const std::vector<std::vector<int32_t>>& rows) {
        std::vector<int32_t> out;
        for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
        return out;
    };
    expect_scatter<int32_t>(kernel, past, {0, 0, 0, 0, 0}, update,
                            cache({{1, -1, -1, -1}, {2, -1, -1, -1}, {3, -1, -1, -1}, {4, -1, -1, -1}, {5, -1, -1, -1}}));
    expect_scatter<int32_t>(kernel, past, {4, 5, 6, 7, 8}, update,
                            cache({{1, -1, -1, -1}, {-1, 2, -1, -1}, {-1, -1, 3, -1}, {-1, -1, -1, 4}, {5, -1, -1, -1}}));
}

// A decode step into a float16 KV cache [1, 4, 32, 16]: one new position per head, written in place.
TEST(DocTensorScatter, DecodeStepInPlace) {
    const auto kernel = SCATTER_KERNEL(kv_decode_step, KV_DECODE_STEP, 1, 4, 32, 16);
    std::vector<uint16_t> past(KV_DECODE_STEP_DATA_SIZE), update(KV_DECODE_STEP_UPDATES_SIZE);
    for (size_t i = 0; i < past.size(); ++i) past[i] = static_cast<uint16_t>(0x3C00u + i);  // distinct patterns
    for (size_t i = 0; i < update.size(); ++i) update[i] = static_cast<uint16_t>(0xC000u + i);
    for (int64_t position : {0, 17, 31}) {
        std::vector<uint16_t> expected = past;
        for (size_t h = 0; h < 4; ++h) {
            for (size_t d = 0; d < 16; ++d) expected[(h * 32 + static_cast<size_t>(position)) * 16 + d] = update[h * 16 + d];
        }
        expect_scatter<uint16_t>(kernel, past, {position}, update, expected);
    }
    expect_scatter_rejects_each<uint16_t>(kernel, past, {31}, update, {32, -1});
}

// --- a scatter's constant data and updates (specs/scatter_constants.json) -----------------------------------------

// Calls a scatter kernel that holds its data, its updates or both, with the arguments it takes (`call`); checks its
// output against `expected`, or when that is empty, the error with the output untouched; hands the call to the
// target tests.
template <typename T, typename Call>
void expect_scatter(const char* name, Call call, size_t output_size, const std::vector<T>& data,
                    const std::vector<int64_t>& indices, const std::vector<T>& updates, bool constant_data,
                    bool constant_updates, const std::vector<T>& expected) {
    SCOPED_TRACE(std::string(name) + " with " + show_indices(indices));
    GuardedBuffer<T> output(output_size);
    const int status = call(output.data());
    const std::vector<T> want = expect_output(output, status, expected);
    cprogram::Case c = cprogram::typed_case<T>(name, std::string(name) + " " + show_indices(indices), data, indices,
                                               &updates, false, status, want);
    c.constant_data = constant_data;
    c.constant_updates = constant_updates;
    cprogram::export_case(c);
}

// token_counts: ScatterElements add of the constant ones into the constant zeros, a count of each of 8 token ids.
TEST(ScatterConstants, CountsTokens) {
    auto counts = [](const std::vector<int64_t>& tokens, const std::vector<int32_t>& expected) {
        expect_scatter<int32_t>("token_counts", [&](int32_t* out) { return token_counts(tokens.data(), out); },
                                TOKEN_COUNTS_OUTPUT_SIZE, std::vector<int32_t>(8, 0), tokens, std::vector<int32_t>(6, 1),
                                true, true, expected);
    };
    counts({1, 3, 3, -1, 0, 1}, {1, 2, 0, 2, 0, 0, 0, 1});
    counts({7, 7, 7, 7, 7, -8}, {1, 0, 0, 0, 0, 0, 0, 5});
    counts({0, 1, 2, 8, 3, 4}, {});
}

// palette_rows: ScatterND of two rows passed in into a constant palette of 4 RGB rows.
TEST(ScatterConstants, OverwritesRowsOfAConstantPalette) {
    const std::vector<uint8_t> palette{0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255};
    auto put = [&](const std::vector<int64_t>& rows, const std::vector<uint8_t>& colours, const std::vector<uint8_t>& expected) {
        expect_scatter<uint8_t>("palette_rows", [&](uint8_t* out) { return palette_rows(rows.data(), colours.data(), out); },
                                PALETTE_ROWS_OUTPUT_SIZE, palette, rows, colours, true, false, expected);
    };
    put({1, -1}, {9, 8, 7, 6, 5, 4}, {0, 0, 0, 9, 8, 7, 0, 255, 0, 6, 5, 4});
    put({0, 0}, {1, 2, 3, 4, 5, 6}, {4, 5, 6, 255, 0, 0, 0, 255, 0, 0, 0, 255});  // the last of duplicates, as ONNX Runtime
    put({2, -5}, {1, 2, 3, 4, 5, 6}, {});
}

// mark_seen: ScatterND of the constant updates [true, true] into flags passed in.
TEST(ScatterConstants, MarksFlagsWithConstantUpdates) {
    auto mark = [](const std::vector<bool>& flags, const std::vector<int64_t>& at, const std::vector<bool>& expected) {
        const std::vector<uint8_t> data(flags.begin(), flags.end()), want(expected.begin(), expected.end());
        expect_scatter<uint8_t>("mark_seen", [&](uint8_t* out) {
                                    return mark_seen(reinterpret_cast<const bool*>(data.data()), at.data(), reinterpret_cast<bool*>(out));
                                },
                                MARK_SEEN_OUTPUT_SIZE, data, at, {1, 1}, false, true, want);
    };
    mark({false, false, false, false, false, false}, {2, -1}, {false, false, true, false, false, true});
    mark({true, false, true, false, true, false}, {1, 1}, {true, true, true, false, true, false});
    mark({false, false, false, false, false, false}, {6, 0}, {});
}

// --- indices as a small decoder makes them (specs/decoder_positions.json) ----------------------------------------

// The decoder's cache, float32 [1, 32, 16]: element i is i + 0.5.
std::vector<float> decoder_cache() {
    std::vector<float> cache(32 * 16);
    for (size_t i = 0; i < cache.size(); ++i) cache[i] = static_cast<float>(i) + 0.5f;
    return cache;
}

// `n` values written into it: element i is -(i + 1), none of the cache's.
std::vector<float> new_rows(size_t n) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = -static_cast<float>(i) - 1.0f;
    return x;
}

// The cache with row rows[p] replaced by row p of `x` (by its only row when it holds one, 16 values), in the order
// of p: a row written twice keeps the last.
std::vector<float> cache_with_rows(std::vector<float> cache, const std::vector<size_t>& rows, const std::vector<float>& x) {
    for (size_t p = 0; p < rows.size(); ++p) {
        const size_t from = x.size() == 16 ? 0 : p * 16;
        for (size_t d = 0; d < 16; ++d) cache[rows[p] * 16 + d] = x[from + d];
    }
    return cache;
}

// A call writing `x` at `positions` of the decoder's cache, in place and not: the rows of `x` (its only row, when
// it holds 16 values) land on `rows`, the rows the positions name, worked out by hand.
void expect_rows_written(const ScatterKernel<float>& kernel, const std::vector<float>& x,
                         const std::vector<int64_t>& positions, const std::vector<size_t>& rows) {
    const std::vector<float> cache = decoder_cache();
    expect_scatter<float>(kernel, cache, positions, x, cache_with_rows(cache, rows, x));
}

// kv_index_copy: PyTorch's cache.index_copy(1, pos, x) into a float32 cache [1, 32, 16], a ScatterElements whose
// indices [1, 4, 16] are pos expanded; the kernel takes the 4 positions themselves (broadcast from [4, 1]).
TEST(DecoderPositions, IndexCopyWritesTheRowOfEachPosition) {
    const auto kernel = SCATTER_KERNEL(kv_index_copy, KV_INDEX_COPY, 1, 32, 16);
    ASSERT_EQ(KV_INDEX_COPY_INDICES_SIZE, 4u);
    const std::vector<float> x = new_rows(KV_INDEX_COPY_UPDATES_SIZE);
    expect_rows_written(kernel, x, {7, 8, 9, 10}, {7, 8, 9, 10});
    expect_rows_written(kernel, x, {28, 29, 30, 31}, {28, 29, 30, 31});
    expect_rows_written(kernel, x, {-1, 0, -32, 5}, {31, 0, 0, 5});
    expect_scatter_rejects_each<float>(kernel, decoder_cache(), {0, 1, 2, 3}, x, {32, -33});
}

// kv_setitem: PyTorch's cache[:, pos] = x into the same cache, a ScatterND whose index tuples [1, 4, 2] are a Concat
// of the constant 0 and pos; the kernel takes the 4 positions alone and puts the 0 in itself (tuple_constants).
TEST(DecoderPositions, SetitemWritesTheRowOfEachPosition) {
    const auto kernel = SCATTER_KERNEL(kv_setitem, KV_SETITEM, 1, 32, 16);
    ASSERT_EQ(KV_SETITEM_INDICES_SIZE, 4u);
    ASSERT_EQ(KV_SETITEM_UPDATES_SIZE, 64u);
    const std::vector<float> x = new_rows(64);
    expect_rows_written(kernel, x, {12, 13, 14, 15}, {12, 13, 14, 15});
    expect_rows_written(kernel, x, {-32, 31, -2, 1}, {0, 31, 30, 1});
    expect_rows_written(kernel, x, {31, -1, 3, -29}, {31, 31, 3, 3});  // a row written twice keeps the last
    expect_scatter_rejects_each<float>(kernel, decoder_cache(), {0, 1, 2, 3}, x, {32, -33, kInt64Max, kInt64Min});
}

// kv_broadcast_fill: cache[:, pos] = row.expand(1, 4, 16), one row of 16 written at each of the 4 positions: the
// ScatterND of kv_setitem whose updates are an Expand of the row; the kernel takes the row (updates_broadcast_from).
TEST(DecoderPositions, BroadcastFillWritesOneRowAtEachPosition) {
    const auto kernel = SCATTER_KERNEL(kv_broadcast_fill, KV_BROADCAST_FILL, 1, 32, 16);
    ASSERT_EQ(KV_BROADCAST_FILL_INDICES_SIZE, 4u);
    ASSERT_EQ(KV_BROADCAST_FILL_UPDATES_SIZE, 16u);
    const std::vector<float> row = new_rows(16);
    expect_rows_written(kernel, row, {0, 5, 10, 15}, {0, 5, 10, 15});
    expect_rows_written(kernel, row, {-1, -32, 16, 16}, {31, 0, 16, 16});
    expect_scatter_rejects_each<float>(kernel, decoder_cache(), {4, 5, 6, 7}, row, {32, -33, kInt64Max, kInt64Min});
}

// rotary_cos: cos[arange(4) + past_len] of a [64, 16] table, a Gather whose 4 indices are past_len plus 0..3; the
// kernel takes past_len alone (broadcast from [1], each plus its position), which must lie in [-64, 60].
TEST(DecoderPositions, RotaryRowsFollowPastLen) {
    const auto kernel = GATHER_KERNEL(rotary_cos, ROTARY_COS, 4, 16);
    ASSERT_EQ(ROTARY_COS_INDICES_SIZE, 1u);
    std::vector<float> table(ROTARY_COS_DATA_SIZE);
    for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i) * 0.25f;
    auto rows = [&](const std::vector<size_t>& which) {
        std::vector<float> expected;
        for (size_t row : which) expected.insert(expected.end(), table.begin() + row * 16, table.begin() + row * 16 + 16);
        return expected;
    };
    expect_gather(kernel, table, {0}, rows({0, 1, 2, 3}));
    expect_gather(kernel, table, {60}, rows({60, 61, 62, 63}));
    expect_gather(kernel, table, {-2}, rows({62, 63, 0, 1}));  // each index on its own: -2, -1 from the back
    expect_gather(kernel, table, {-64}, rows({0, 1, 2, 3}));
    for (int64_t past_len : std::vector<int64_t>{61, -65, 64, kInt64Max, kInt64Min}) {
        expect_gather_rejects(kernel, table, {past_len});
    }
}

// --- quantized tables (specs/quantized_tables.json) ------------------------------------------------------------

// Calls a quantized kernel with `indices`, expecting `expected` (bit patterns, as the output type stores them) or,
// when it is empty, the error with the output untouched; hands the call to the target tests.
template <typename Out, typename Index, typename Kernel>
void expect_quantized(const char* name, Kernel kernel, size_t output_size, const std::vector<Index>& indices,
                      const std::vector<Out>& expected) {
    SCOPED_TRACE(std::string(name) + " with " + show_indices(std::vector<int64_t>(indices.begin(), indices.end())));
    GuardedBuffer<Out> output(output_size);
    const int status = kernel(indices.data(), output.data());
    const std::vector<Out> want = expect_output(output, status, expected);
    cprogram::Case c = cprogram::typed_case<Out>(name, std::string(name) + " " +
                                                     show_indices(std::vector<int64_t>(indices.begin(), indices.end())),
                                                 {}, {}, nullptr, false, status, want);
    c.indices = cprogram::bytes_of(indices);
    c.constant_data = true;
    cprogram::export_case(c);
}

uint32_t float_bits(double exact) {
    const auto value = static_cast<float>(exact);
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// The spec format's example: uint4 [[0, 1, 2, 3], [15, 14, 8, 8], [7, 7, 9, 9]], zero point 8, blocks of 2 along
// axis 1 with scales [[0.5, 0.25], [1, 2], [0.125, 4]], to float16: rows 1 and -1 are [7, 6, 0, 0] and
// [-0.125, -0.125, 4, 4] (float16 0x4700, 0x4600, 0, 0, 0xB000, 0xB000, 0x4400, 0x4400).
TEST(QuantizedTables, SpecFormatExample) {
    auto call = [](const std::vector<int64_t>& indices, const std::vector<uint16_t>& expected) {
        expect_quantized<uint16_t>("tokens_q4", tokens_q4, TOKENS_Q4_OUTPUT_SIZE, indices, expected);
    };
    call({1, -1}, {0x4700, 0x4600, 0x0000, 0x0000, 0xB000, 0xB000, 0x4400, 0x4400});
    call({0, -3}, {0xC400, 0xC300, 0xBE00, 0xBD00, 0xC400, 0xC300, 0xBE00, 0xBD00});  // [-8, -7, -6, -5] * [0.5, 0.5, 0.25, 0.25]
    call({2, 3}, {});
    call({-4, 0}, {});
}

// int8 with a scale per row: [[1, -1, 2, -2] * 0.5, [127, -128, 0, 1] * 0.25, ..., [100, -100, 50, -50] * 4].
TEST(QuantizedTables, ScalePerRow) {
    auto call = [](const std::vector<int32_t>& indices, const std::vector<double>& values) {
        std::vector<uint32_t> expected;
        for (double v : values) expected.push_back(float_bits(v));
        expect_quantized<uint32_t>("words_q8", [](const int32_t* i, uint32_t* o) { return words_q8(i, reinterpret_cast<float*>(o)); },
                                   WORDS_Q8_OUTPUT_SIZE, indices, expected);
    };
    call({0, -1, 1}, {0.5, -0.5, 1, -1, 400, -400, 200, -200, 31.75, -32, 0, 0.25});
    call({2, -3, 4}, {20, 40, 60, 80, -5, 5, -5, 5, 0.375, 0.75, 1.125, 1.5});
    call({0, 6, 1}, {});
}

// The tables of files: vocab_q4 holds uint4 (7r + 3c) mod 16 with zero points (r + b) mod 16 and float16 scales
// (64 + r) / 64 * 2^-(b + 1) for block b (16 columns) of row r; vocab_q8 uint8 (5r + 11c) mod 256, zero point 128,
// float32 scales (128 + r) / 128 * 2^-(b + 3); vocab_f32 is vocab_q8's table dequantized, in float32.
TEST(QuantizedTables, TablesFromFiles) {
    const std::vector<int64_t> rows{0, 63, -1, -64};
    std::vector<uint16_t> q4;
    std::vector<uint32_t> q8;
    for (int64_t index : rows) {
        const int64_t r = index < 0 ? index + 64 : index;
        for (int64_t c = 0; c < 32; ++c) {
            const int64_t b = c / 16;
            const double s4 = (64.0 + static_cast<double>(r)) / 64.0 * std::ldexp(1.0, static_cast<int>(-(b + 1)));
            q4.push_back(halfref::from_double(static_cast<double>((7 * r + 3 * c) % 16 - (r + b) % 16) * s4, halfref::kFloat16));
            const double s8 = (128.0 + static_cast<double>(r)) / 128.0 * std::ldexp(1.0, static_cast<int>(-(b + 3)));
            q8.push_back(float_bits(static_cast<double>((5 * r + 11 * c) % 256 - 128) * s8));
        }
    }
    expect_quantized<uint16_t>("vocab_q4", vocab_q4, VOCAB_Q4_OUTPUT_SIZE, rows, q4);
    expect_quantized<uint32_t>("vocab_q8", [](const int64_t* i, uint32_t* o) { return vocab_q8(i, reinterpret_cast<float*>(o)); },
                               VOCAB_Q8_OUTPUT_SIZE, rows, q8);
    expect_quantized<uint32_t>("vocab_f32", [](const int64_t* i, uint32_t* o) { return vocab_f32(i, reinterpret_cast<float*>(o)); },
                               VOCAB_F32_OUTPUT_SIZE, rows, q8);
    expect_quantized<uint16_t, int64_t>("vocab_q4", vocab_q4, VOCAB_Q4_OUTPUT_SIZE, {0, 64, 1, 2}, {});
}

}  // namespace
