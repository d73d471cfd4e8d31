// The emitter's promises that the randomized tests cannot see: unrolling follows the "unroll" setting and
// its documented budget, generated size stays bounded for any tensor size, guards appear where needed, and
// output is deterministic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "kernelgen/generate.h"
#include "codegen/plan/weights.h"
#include "codegen/print/print.h"
#include "codegen/print/templates.h"
#include "common/c_names.h"
#include "common/kernel_identifiers.h"

namespace {

using namespace kernelgen;

KernelSpec parse_one(const std::string& json, const std::string& file = "spec.json") {
    std::vector<Diagnostic> diagnostics;
    auto kernels = parse_spec_text(json, file, diagnostics);
    EXPECT_TRUE(diagnostics.empty()) << (diagnostics.empty() ? "" : diagnostics.front().str());
    EXPECT_EQ(kernels.size(), 1u);
    return kernels.empty() ? KernelSpec{} : kernels.front();
}

// A kernel through the stages of the pipeline: lowered, planned, printed.
GeneratedKernel emit(const KernelSpec& spec) {
    return print_kernel(schedule::plan(lower(spec)));
}

GeneratedKernel emit_json(const std::string& json) { return emit(parse_one(json)); }

// The source without its ACSL annotations (the loops' contracts for Frama-C), for tests of the code's shape.
std::string without_acsl(std::string text) {
    for (size_t at = text.find("/*@"); at != std::string::npos; at = text.find("/*@")) {
        const size_t line = text.rfind('\n', at) + 1;
        const size_t end = text.find("*/", at) + 2;
        text.erase(line, end + 1 - line);  // the indentation before, the newline after
    }
    return text;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

size_t lines(const std::string& text) { return count(text, "\n"); }

std::string gather(uint64_t rows, uint64_t count_of_indices, const std::string& unroll) {
    return R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [)" + std::to_string(rows) +
           R"(, 8], "indices_shape": [)" + std::to_string(count_of_indices) + "]" +
           (unroll.empty() ? "" : R"(, "unroll": )" + unroll) + "}";
}

TEST(Emit, SmallKernelsAreStraightLine) {
    // ONNX's ScatterND example 2: 2 tuples of 16-element rows, 2 row copies (kernelgen_copy); its 2 indices are checked
    // straight-line.
    auto kernel = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 4, 4],
                                 "indices_shape": [2, 1]})");
    EXPECT_EQ(count(kernel.source, "for ("), 0u) << kernel.source;
    EXPECT_EQ(count(kernel.source, "kernelgen_copy(&output["), 2u);
    // With add, 32 combines weigh 256, over the budget of 12: loops, and no combine written out twice.
    auto reduction = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 4, 4],
                                    "indices_shape": [2, 1], "reduction": "add"})");
    EXPECT_GT(count(reduction.source, "for ("), 0u) << reduction.source;
    EXPECT_EQ(count(reduction.source, "kernelgen_s_combine(to["), 1u);
}

TEST(Emit, ShortBlocksGoThroughAPointerToTheirRow) {
    // ONNX's Gather example (rows of 2 floats): each row's address once, its elements read through it.
    const std::string gather = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                                             "indices_shape": [2, 2]})").source;
    EXPECT_NE(gather.find("        const float *from = &data[kernelgen_wrap_i64_u32(&indices[0u], 3u) * 2u];\n"
                          "        output[0u] = from[0u];\n"
                          "        output[1u] = from[1u];\n"),
              std::string::npos)
        << gather;
    EXPECT_EQ(count(gather, "const float *from = &data["), 4u);
    // A reduction's row in output, read and written through it.
    const std::string scatter = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "int32", "data_shape": [4, 3],
                                              "indices_shape": [2, 1], "reduction": "add"})").source;
    EXPECT_NE(scatter.find("int32_t *to = &output[kernelgen_wrap_i64_u32(&indices[i0], 4u) * 3u];\n"
                           "            to[0u] = kernelgen_s_combine(to[0u], updates[i0 * 3u]);\n"),
              std::string::npos)
        << scatter;
    // Not a row of constant data (an offset into its table, in flash on AVR), nor a row copy (4 floats: one
    // kernelgen_copy).
    const std::string table = emit_json(R"({"name": "t", "op": "Gather", "dtype": "int16", "data_shape": [3, 2],
                                            "indices_shape": [2], "data": [[1, 2], [3, 4], [5, 6]]})").source;
    EXPECT_EQ(table.find(" *from = "), std::string::npos) << table;
    const std::string rows = emit_json(R"({"name": "r", "op": "Gather", "dtype": "float32", "data_shape": [3, 4],
                                           "indices_shape": [2]})").source;
    EXPECT_EQ(rows.find(" *from = "), std::string::npos) << rows;
    EXPECT_EQ(count(rows, "kernelgen_copy(&output["), 2u);
}

TEST(Emit, AutoUsesLoopsBeyondTheStraightLineBudget) {
    // 25 row copies of 32 bytes (one kernelgen_copy each, 2 statements) exceed the 12-statement budget: 6 fit a
    // loop body, and 5, which divides 25 and is at least half of 6, is the factor.
    auto kernel = emit_json(gather(100, 25, ""));
    EXPECT_NE(kernel.source.find("i0 += 5u"), std::string::npos) << kernel.source;
    EXPECT_EQ(count(kernel.source, "kernelgen_copy(&output["), 5u);
    EXPECT_GT(count(kernel.source.substr(kernel.source.find("/* output[")), "for ("), 0u);
    auto small = emit_json(gather(100, 6, ""));
    const std::string copies = small.source.substr(small.source.find("/* output["));
    EXPECT_EQ(count(copies, "for ("), 0u);  // only the 6 index checks (over 2) before it are one loop
    EXPECT_EQ(count(small.source, "kernelgen_copy(&output["), 6u);
    // 13 take 26 statements: a loop of 6 that runs twice, then one more copy (7 would be a loop that runs once,
    // written out instead).
    auto thirteen = emit_json(gather(100, 13, ""));
    EXPECT_NE(thirteen.source.find("i0 += 6u"), std::string::npos) << thirteen.source;
    EXPECT_EQ(count(thirteen.source, "kernelgen_copy(&output["), 7u);
}

TEST(Emit, NoneKeepsOneCopyInALoop) {
    auto kernel = emit_json(gather(100, 5, R"("none")"));
    // One call of memcpy, the least code, not the inline row copy.
    EXPECT_EQ(count(kernel.source, "memcpy(&output["), 1u) << kernel.source;
    EXPECT_EQ(count(kernel.source, "kernelgen_copy("), 0u) << kernel.source;
    EXPECT_EQ(count(kernel.source, "for ("), 2u);  // the checks and the copies
}

// TensorScatter's copy of the cache into output (never an element loop) follows the same rule as every copy:
// the row copy under "auto", a call of memcpy under "none".
TEST(Emit, NoneCopiesTheCacheWithMemcpyToo) {
    const std::string spec = R"({"name": "t", "op": "TensorScatter", "dtype": "float32", "data_shape": [1, 4, 32, 16],
        "indices_shape": [1], "updates_shape": [1, 4, 1, 16], "unroll": )";
    const std::string none = emit_json(spec + R"("none"})").source;
    EXPECT_NE(none.find("    memcpy(output, data, 2048u * sizeof(float));"), std::string::npos) << none;
    EXPECT_EQ(none.find("kernelgen_copy("), std::string::npos) << none;
    const std::string automatic = emit_json(spec + R"("auto"})").source;
    EXPECT_NE(automatic.find("    kernelgen_copy(output, data, 2048u * sizeof(float), sizeof(float));"), std::string::npos)
        << automatic;
}

TEST(Emit, FactorUnrollsTheInnermostLoopWithARemainder) {
    // 10 copies by 4: a loop of two iterations of 4 copies, then 2 written out.
    auto kernel = emit_json(gather(100, 10, "4"));
    EXPECT_NE(kernel.source.find("i0 += 4u"), std::string::npos) << kernel.source;
    EXPECT_NE(kernel.source.find("i0 < 8u"), std::string::npos);
    EXPECT_EQ(count(kernel.source, "kernelgen_copy(&output["), 6u);
}

TEST(Emit, FullIsStraightLineAndCapped) {
    auto kernel = emit_json(gather(100, 200, R"("full")"));
    EXPECT_EQ(count(kernel.source, "for ("), 0u);
    EXPECT_EQ(count(kernel.source, "kernelgen_copy(&output["), 200u);

    KernelSpec spec = parse_one(gather(100, 3000, R"("full")"));
    GenerateResult result = generate({spec});
    ASSERT_EQ(result.diagnostics.size(), 1u);
    EXPECT_EQ(result.diagnostics[0].str(),
              "spec.json: /unroll: \"full\" unrolling would take 6000 statements (at most 4096; use \"auto\", "
              "\"none\" or a factor)");
    EXPECT_TRUE(result.files.empty());
}

// The cap counts the statements the kernel would have: int32 indices against an axis of 2^31 or more are
// never compared, and an axis of size 0 rejects every tuple without looking at it.
TEST(Emit, FullCapCountsOnlyEmittedChecks) {
    KernelSpec unchecked = parse_one(R"({"name": "u", "op": "Gather", "dtype": "int8", "index_dtype": "int32",
                                          "data_shape": [3000000000], "indices_shape": [4000], "unroll": "full"})");
    EXPECT_EQ(schedule::full_unroll_statements(lower(unchecked)), 4000u);
    EXPECT_TRUE(generate({unchecked}).diagnostics.empty());
    KernelSpec checked = parse_one(R"({"name": "c", "op": "Gather", "dtype": "int8", "index_dtype": "int64",
                                        "data_shape": [3000000000], "indices_shape": [4000], "unroll": "full"})");
    EXPECT_EQ(schedule::full_unroll_statements(lower(checked)), 8000u);
    KernelSpec empty_axis = parse_one(R"({"name": "e", "op": "GatherElements", "dtype": "int8",
                                           "data_shape": [0, 5000], "indices_shape": [5000, 1], "axis": 0, "unroll": "full"})");
    // No copy can happen either: the kernel only reports the error (or succeeds when there are no indices).
    EXPECT_EQ(schedule::full_unroll_statements(lower(empty_axis)), 0u);
}

TEST(Emit, AutoCodeSizeIsBoundedWhateverTheTensorSize) {
    size_t most = 0;
    for (uint64_t n : {1u, 10u, 64u, 65u, 100u, 1000u, 100000u, 1000000u}) {
        for (const char* op : {"Gather", "GatherElements"}) {
            std::string json = std::string(R"({"name": "k", "op": ")") + op + R"(", "dtype": "int8", "data_shape": [)" +
                               std::to_string(n) + ", 3], \"indices_shape\": [" + std::to_string(n) + ", 3]}";
            if (std::string(op) == "Gather") json = gather(n, n, "");
            most = std::max(most, lines(emit_json(json).source));
        }
    }
    // At most 64 straight-line copies, 16 straight-line checks of 3 lines each, and some 40 fixed lines.
    EXPECT_LT(most, 160u);
}

TEST(Emit, Int32IndicesNeedNoCheckAgainstAnAxisOf2To31OrMore) {
    auto kernel = emit_json(R"({"name": "h", "op": "Gather", "dtype": "int8", "index_dtype": "int32",
                                 "data_shape": [3000000000], "indices_shape": [2]})");
    EXPECT_EQ(kernel.source.find("Every index is checked"), std::string::npos) << kernel.source;
    auto narrower = emit_json(R"({"name": "h", "op": "Gather", "dtype": "int8", "index_dtype": "int32",
                                   "data_shape": [2147483647], "indices_shape": [2]})");
    EXPECT_NE(narrower.source.find("indices[0] < -2147483647 || indices[0] > 2147483646"), std::string::npos);
}

// A size passed at run time wraps an index by the low word's sign (kernelgen_wrap_count_*) only while its bound is at
// most 2^31; above, a low word of 2^31 or more may be an index in range: the general wrap, by the size's full width.
TEST(Emit, SizesPassedAtRunTimeBeyond2To31WrapByTheirFullWidth) {
    for (const char* key : {R"("data_count": "runtime")", R"("runtime_axes": [0])"}) {
        auto wide = emit_json(std::string(R"({"name": "w", "op": "Gather", "dtype": "uint8", "data_shape": [3000000000],
                                               "indices_shape": [1], )") + key + "}");
        EXPECT_EQ(wide.source.find("kernelgen_wrap_count_"), std::string::npos) << wide.source;
        EXPECT_NE(wide.source.find("kernelgen_wrap_i64_u32(&indices[0u], data_"), std::string::npos) << wide.source;
        auto narrow = emit_json(std::string(R"({"name": "n", "op": "Gather", "dtype": "uint8", "data_shape": [2147483648],
                                                 "indices_shape": [1], )") + key + "}");
        EXPECT_NE(narrow.source.find("kernelgen_wrap_count_i64_u32(&indices[0u], data_"), std::string::npos) << narrow.source;
    }
}

// Products of run-time extents are locals the copies read: a kernel with nothing to copy defines none (an unused
// local fails the strict flags).
TEST(Emit, ExtentProductsOnlyWhereTheCopiesReadThem) {
    auto empty = emit_json(R"({"name": "e", "op": "Gather", "dtype": "float32", "data_shape": [2, 3, 3], "indices_shape": [0],
                                "axis": 1, "runtime_axes": [1, 2]})");
    EXPECT_EQ(empty.source.find("data_dims_1_2"), std::string::npos) << empty.source;
    auto rows = emit_json(R"({"name": "r", "op": "Gather", "dtype": "float32", "data_shape": [2, 3, 3], "indices_shape": [2],
                               "axis": 1, "runtime_axes": [1, 2]})");
    EXPECT_NE(rows.source.find("const uint32_t data_dims_1_2 = data_dim_1 * data_dim_2;"), std::string::npos) << rows.source;
}

TEST(Emit, TensorsBeyond32BitsGetAGuardAndWideOffsets) {
    auto kernel = emit_json(R"({"name": "w", "op": "ScatterND", "dtype": "uint16", "data_shape": [100000, 50000],
                                 "indices_shape": [3, 1]})");
    EXPECT_NE(kernel.source.find("#if SIZE_MAX < 10000000000u\n#error"), std::string::npos) << kernel.source;
    EXPECT_NE(kernel.source.find("kernelgen_wrap_i64_u64("), std::string::npos) << kernel.source;
    auto small = emit_json(gather(100, 5, ""));
    EXPECT_EQ(small.source.find("#if SIZE_MAX"), std::string::npos);
    EXPECT_EQ(small.source.find("uint64_t"), std::string::npos);
}

// Where int and size_t have 16 bits (AVR, MSP430): a kernel whose tensors pass the least SIZE_MAX C99 allows
// (65535) refuses such a target with its own #error; one that fits has no guard.
TEST(Emit, TensorsBeyond64KiBGetAGuardForSixteenBitTargets) {
    // int8 data [256, 256]: 65,536 bytes, one more than a 16-bit size_t counts.
    auto large = emit_json(R"({"name": "l", "op": "Gather", "dtype": "int8", "data_shape": [256, 256], "indices_shape": [2]})");
    EXPECT_NE(large.source.find("#if SIZE_MAX < 65536u\n#error \"l: its tensors take up to 65536 bytes"), std::string::npos)
        << large.source;
    auto fits = emit_json(R"({"name": "f", "op": "Gather", "dtype": "int8", "data_shape": [255, 257], "indices_shape": [2]})");
    EXPECT_EQ(fits.source.find("SIZE_MAX"), std::string::npos) << fits.source;  // 65,535 bytes
}

// float64 (and complex128) need a 64-bit IEEE double: avr-gcc's is 32-bit, and would compute wrong values.
TEST(Emit, Float64KernelsRefuseATargetWithoutA64BitDouble) {
    for (const char* dtype : {"float64", "complex128"}) {
        auto kernel = emit_json(std::string(R"({"name": "d", "op": "Gather", "dtype": ")") + dtype +
                                R"(", "data_shape": [4], "indices_shape": [2]})");
        EXPECT_NE(kernel.source.find("#include <float.h>\n#if DBL_MANT_DIG != 53 || DBL_MAX_EXP != 1024\n#error \"d: its "
                                     "elements are 64-bit IEEE doubles"),
                  std::string::npos)
            << kernel.source;
    }
    EXPECT_EQ(emit_json(gather(4, 2, "")).source.find("DBL_MANT_DIG"), std::string::npos);
}

// A length read at run time (a table of constant runs) is converted to size_t before it is multiplied: the
// offset type (uint32_t) is wider than size_t on a 16-bit target.
TEST(Emit, RunTimeLengthsAreConvertedToSizeT) {
    auto kernel = emit_json(R"({"name": "c", "op": "Gather", "dtype": "int8", "data_shape": [40], "indices_shape": [9],
        "unroll": "none", "indices": [0, 1, 5, 9, 10, 11, 12, 30, 2]})");
    EXPECT_NE(kernel.source.find("(size_t)KERNELGEN_TABLE_U8(kernelgen_c_lengths, r) * sizeof(int8_t)"), std::string::npos) << kernel.source;
}

TEST(Emit, OutputIsDeterministicAndNamesOnlyTheSpecFile) {
    const std::string json = gather(10, 3, "");
    KernelSpec a = parse_one(json, "/some/absolute/path/specs/lookup.json");
    KernelSpec b = parse_one(json, "specs/lookup.json");
    GeneratedKernel first = emit(a), second = emit(b);
    EXPECT_EQ(first.source, second.source);
    EXPECT_EQ(first.header, second.header);
    EXPECT_NE(first.header.find("from lookup.json."), std::string::npos);
    EXPECT_EQ(first.header.find("/some/"), std::string::npos);
}

TEST(Emit, HeaderDeclaresTheExactInterface) {
    auto kernel = emit_json(R"({"name": "kv", "op": "ScatterND", "dtype": "bool", "index_dtype": "int32",
                                 "data_shape": [4, 2], "indices_shape": [3, 1]})");
    const std::string& h = kernel.header;
    EXPECT_NE(h.find("#ifndef KV_H\n#define KV_H"), std::string::npos);
    EXPECT_NE(h.find("#include <stdbool.h>"), std::string::npos);
    EXPECT_NE(h.find("#ifdef __cplusplus\nextern \"C\" {"), std::string::npos);
    EXPECT_NE(h.find("#define KV_DATA_SIZE 8\n#define KV_INDICES_SIZE 3\n#define KV_UPDATES_SIZE 6\n#define KV_OUTPUT_SIZE 8\n"),
              std::string::npos) << h;
    EXPECT_NE(h.find("#define KV_OK 0\n#define KV_ERROR_INDEX_OUT_OF_RANGE (-1)"), std::string::npos);
    EXPECT_NE(h.find("int kv(const bool *data, const int32_t *indices, const bool *updates, bool *output);"), std::string::npos);
    EXPECT_EQ(h.rfind("Auto-generated file. Do not edit!", 10), 3u);
}

TEST(Emit, AWrittenOutGatherStatesTheValuesItWrites) {
    // ONNX's Gather example (data [3, 2], indices [2, 2], axis 0): output row i (of the 4, flattened) is data row
    // indices[i], wrapped: output[2i + e] = data[2 * (indices[i] < 0 ? indices[i] + 3 : indices[i]) + e].
    const std::string gather = R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                                   "indices_shape": [2, 2]})";
    auto kernel = emit_json(gather);
    EXPECT_NE(kernel.header.find(
                  "  ensures values: \\forall integer p0, e; 0 <= p0 < 4 && 0 <= e < 2 ==> output[p0 * 2 + e] == "
                  "data[e + (indices[p0] < 0 ? indices[p0] + 3 : indices[p0]) * 2];\n"),
              std::string::npos) << kernel.header;
    // GatherElements along axis 1 of [2, 3] by [2, 2]: output[i][j] = data[i][wrap(indices[i][j])].
    auto elements = emit_json(R"({"name": "g", "op": "GatherElements", "dtype": "int16", "data_shape": [2, 3],
                                   "indices_shape": [2, 2], "axis": 1, "index_dtype": "int32"})");
    EXPECT_NE(elements.header.find(
                  "ensures values: \\forall integer p0, p1; 0 <= p0 < 2 && 0 <= p1 < 2 ==> output[p0 * 2 + p1] == "
                  "data[p0 * 3 + (indices[p0 * 2 + p1] < 0 ? indices[p0 * 2 + p1] + 3 : indices[p0 * 2 + p1])];"),
              std::string::npos) << elements.header;
    // Unchecked, the values are the contract's only ensures beside the result.
    auto trusted = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                                  "indices_shape": [2, 2], "index_check": "none"})");
    EXPECT_NE(trusted.header.find("    ensures values: \\forall integer p0, e;"), std::string::npos) << trusted.header;
    // Not stated: copies in loops (WP would need them in the loops' invariants), a scatter.
    auto looped = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                                 "indices_shape": [2, 2], "unroll": "none"})");
    EXPECT_EQ(looped.header.find("ensures values"), std::string::npos) << looped.header;
    EXPECT_NE(looped.header.find("behavior success:"), std::string::npos);
    auto scatter = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 4, 4],
                                  "indices_shape": [2, 1]})");
    EXPECT_EQ(scatter.header.find("ensures values"), std::string::npos) << scatter.header;
    // Nor rows moved by a row copy (the proof's copy would have to carry the values), nor more than 16 elements.
    auto rows = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [4, 16],
                               "indices_shape": [2]})");
    EXPECT_NE(rows.source.find("kernelgen_copy(&output["), std::string::npos) << rows.source;
    EXPECT_EQ(rows.header.find("ensures values"), std::string::npos) << rows.header;
    auto many = emit_json(R"({"name": "g", "op": "GatherElements", "dtype": "int16", "data_shape": [2, 9],
                               "indices_shape": [2, 9], "axis": 1, "index_dtype": "int32", "unroll": "full"})");
    EXPECT_EQ(many.header.find("ensures values"), std::string::npos) << many.header;
}

TEST(Emit, CopiesRestateChecksAnAnalysisCannotCarry) {
    // A loop of checks up to a run-time count: the copy loop reads indices[i0] again, for an i0 below the same
    // count; it first asserts what the checks established (ONNX's [-s, s-1] of each value it reads).
    auto counted = emit_json(R"({"name": "m", "op": "ScatterND", "dtype": "uint8", "data_shape": [20, 20],
                                  "indices_shape": [64, 2], "count": "runtime"})");
    EXPECT_NE(counted.source.find("/*@ assert checked: -20 <= indices[i0 * 2u] <= 19 && "
                                  "-20 <= indices[i0 * 2u + 1u] <= 19; */\n        output["),
              std::string::npos) << counted.source;
    // Checks gathered into one flag (an unroll factor), each value restated before the copy that reads it.
    auto flagged = emit_json(R"({"name": "a", "op": "ScatterND", "dtype": "uint64", "data_shape": [40],
                                  "indices_shape": [100, 1], "reduction": "add", "unroll": 8})");
    EXPECT_NE(flagged.source.find("out_of_range |="), std::string::npos) << flagged.source;
    EXPECT_NE(flagged.source.find("/*@ assert checked: -40 <= indices[i0 + 7u] <= 39; */"), std::string::npos)
        << flagged.source;
    // A size passed at run time, whatever the count: the range against it.
    for (const char* count : {R"("count": "runtime", )", ""}) {
        auto sized = emit_json(std::string(R"({"name": "t", "op": "Gather", "dtype": "float32", "data_shape": [100, 4],
                                               "indices_shape": [10], )") + count + R"("data_count": "runtime"})");
        EXPECT_NE(sized.source.find("/*@ assert checked: -(integer)data_count <= indices[i0] <= data_count - 1; */"),
                  std::string::npos) << sized.source;
    }
    // Checks each returning at once, written out or in a loop over a constant count: nothing restated.
    for (const char* unroll : {"auto", "none"}) {
        auto plain = emit_json(std::string(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [5, 4],
                                                 "indices_shape": [6], "unroll": ")") + unroll + "\"}");
        EXPECT_EQ(plain.source.find("assert checked"), std::string::npos) << plain.source;
    }
}

TEST(Emit, IndexCheckNoneDropsTheChecksAndSaysSo) {
    const std::string spec = R"({"name": "t", "op": "ScatterND", "dtype": "int8", "data_shape": [8, 2],
                                 "indices_shape": [3, 1], "index_check": "none"})";
    auto trusted = emit_json(spec);
    EXPECT_EQ(trusted.source.find("Every index is checked"), std::string::npos) << trusted.source;
    EXPECT_EQ(trusted.source.find("T_ERROR_INDEX_OUT_OF_RANGE"), std::string::npos);
    EXPECT_NE(trusted.source.find("unroll auto: straight-line copies, no index checks."), std::string::npos);
    EXPECT_NE(trusted.header.find("the indices are NOT checked"), std::string::npos);
    EXPECT_NE(trusted.header.find("#define T_ERROR_INDEX_OUT_OF_RANGE (-1)"), std::string::npos)
        << "the interface stays the same";
    auto checked = emit_json(R"({"name": "t", "op": "ScatterND", "dtype": "int8", "data_shape": [8, 2],
                                  "indices_shape": [3, 1]})");
    EXPECT_NE(checked.source.find("/* Every index is checked before anything is written. */"), std::string::npos);
    EXPECT_NE(checked.source.find("return T_ERROR_INDEX_OUT_OF_RANGE;"), std::string::npos);
    EXPECT_EQ(checked.header.find("NOT checked"), std::string::npos);
}

// header_identifiers(), which the run-wide name check relies on, lists exactly what a header defines.
TEST(Emit, HeaderIdentifiersAreExactlyWhatTheHeaderDefines) {
    for (const std::string op : {"Gather", "ScatterND", "Gather\", \"count\": \"runtime", "ScatterND\", \"count\": \"runtime",
                                 "Gather\", \"axis\": 1, \"count\": \"runtime\", \"count_leads\": \"data"}) {
        KernelSpec spec = parse_one(R"({"name": "kv", "op": ")" + op +
                                    R"(", "dtype": "float32", "data_shape": [4, 2], "indices_shape": [3, 1]})");
        const std::string header = emit(spec).header;
        std::vector<std::string> defined;
        for (size_t at = header.find("#define "); at != std::string::npos; at = header.find("#define ", at + 1)) {
            const size_t begin = at + 8;
            defined.push_back(header.substr(begin, header.find_first_of(" \n", begin) - begin));
        }
        defined.insert(defined.begin() + 0, "kv");
        EXPECT_NE(header.find("int kv("), std::string::npos);
        EXPECT_EQ(kernelgen::header_identifiers(spec), defined) << op;
    }
}

// A kernel's file-scope helpers are "kernelgen_<kernel>_<role>": no kernel name begins with "kernelgen", and no
// role ends with "_" + another, so helpers of different kernels never share a name (the unity_build tests compile
// every kernel of specs/ with kernels named k, k_wrap, k_combine, ... as one translation unit).
TEST(Emit, HelperNamesCannotClashAcrossKernels) {
    const auto& roles = schedule::helper_roles();
    for (const auto& a : roles) {
        for (const auto& b : roles) {
            if (a == b) continue;
            EXPECT_FALSE(a.size() > b.size() && a.compare(a.size() - b.size() - 1, b.size() + 1, "_" + b) == 0) << a << " / " << b;
        }
    }
    EXPECT_FALSE(check_name("kernelgen_k"));
    // Every static definition of every kernel in generated/ is one of its helpers.
    size_t helpers = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(KERNELGEN_SOURCE_DIR) + "/generated")) {
        if (entry.path().extension() != ".c") continue;
        std::ifstream in(entry.path());
        const std::string kernel = entry.path().stem().string();
        for (std::string line; std::getline(in, line);) {
            const size_t at = line.find("static ");
            if (at == std::string::npos) continue;
            const size_t end = line.find_first_of("([", at);
            if (end == std::string::npos) continue;
            const size_t begin = line.find_last_of(' ', end) + 1;
            const std::string defined = line.substr(begin, end - begin);
            const auto& numbered = schedule::numbered_helper_roles();
            const bool known = std::any_of(roles.begin(), roles.end(), [&](const std::string& role) {
                return defined == helper_name(kernel, role);
            }) || std::any_of(numbered.begin(), numbered.end(), [&](const std::string& role) {
                const std::string head = helper_name(kernel, role) + "_";
                return defined.size() > head.size() && defined.compare(0, head.size(), head) == 0 &&
                       defined.find_first_not_of("0123456789", head.size()) == std::string::npos;
            });
            EXPECT_TRUE(known) << entry.path() << ": " << line;
            ++helpers;
        }
    }
    EXPECT_GT(helpers, 20u);
}

// --- constant indices ---------------------------------------------------------------------------------------

TEST(EmitConstant, PrototypeDropsIndicesAndNothingIsChecked) {
    auto kernel = emit_json(R"({"name": "c", "op": "ScatterND", "dtype": "int16", "data_shape": [6, 2],
                                 "indices_shape": [2, 1], "reduction": "mul", "indices": [[4], [-6]]})");
    EXPECT_NE(kernel.header.find("int c(const int16_t *data, const int16_t *updates, int16_t *output);"), std::string::npos)
        << kernel.header;
    EXPECT_NE(kernel.header.find("indices  int64 [2, 1], constant: 4, -6\n"), std::string::npos) << kernel.header;
    EXPECT_NE(kernel.header.find("were checked when this kernel was generated"), std::string::npos);
    EXPECT_EQ(count(kernel.source, "indices["), 1u) << kernel.source;  // only in the comment of the formula
    EXPECT_EQ(count(kernel.source, "_wrap"), 0u);
    // The 4 combines weigh 32, over the budget: a loop over the 2 runs, whose 2 elements are written out (each
    // destination read from the table of runs once, through a pointer).
    EXPECT_EQ(count(kernel.source, "*slot = kernelgen_c_combine(*slot, "), 2u) << kernel.source;
}

TEST(EmitConstant, IdentityGatherIsOneMemcpy) {
    for (const char* unroll : {"\"auto\"", "\"none\"", "\"full\"", "3"}) {
        auto kernel = emit_json(std::string(R"({"name": "id", "op": "Gather", "dtype": "float32", "data_shape": [64, 32],
            "indices_shape": [64], "unroll": )") + unroll + R"(, "indices": [)" + [] {
            std::string list;
            for (int i = 0; i < 64; ++i) list += (i ? ", " : "") + std::to_string(i < 32 ? i : i - 64);
            return list;
        }() + "]}");
        const std::string body = kernel.source.substr(kernel.source.find("\nint id("));
        const std::string copy = std::string(unroll) == "\"none\""
                                     ? "memcpy(&output[0u], &data[0u], 2048u * sizeof(float));"
                                     : "kernelgen_copy(&output[0u], &data[0u], 2048u * sizeof(float), sizeof(float));";
        EXPECT_EQ(count(body, copy), 1u) << unroll << body;
        EXPECT_EQ(count(body, "for ("), 0u) << unroll;
    }
}

// Many runs (80 copies, over the 64-statement budget): "auto" writes them out while they fit its budget, then reads them from tables in the narrowest
// type; "none" always uses the tables (unless there is one run).
TEST(EmitConstant, RunsFromTables) {
    const std::string head = R"({"name": "t", "op": "Gather", "dtype": "float32", "data_shape": [300, 8], "indices_shape": [80],
                                 "indices": [)";
    std::string list;  // rows 0, 37, 74, ..., 296, 33, ...: neither adjacent nor evenly spaced
    for (int i = 0; i < 80; ++i) list += (i ? ", " : "") + std::to_string(i * 37 % 300);
    auto kernel = emit_json(head + list + "]}");
    EXPECT_NE(kernel.source.find("static const uint16_t kernelgen_t_sources[80] KERNELGEN_FLASH = {"), std::string::npos) << kernel.source;
    EXPECT_EQ(count(kernel.source, "kernelgen_t_destinations"), 0u);  // 0, 4, 8, ...: an even step needs no table
    EXPECT_NE(kernel.source.find("kernelgen_copy(&output[r * 8u], &data[(uint32_t)KERNELGEN_TABLE_U16(kernelgen_t_sources, r)], 8u * sizeof(float), sizeof(float));"),
              std::string::npos) << kernel.source;
    auto few = emit_json(R"({"name": "t", "op": "Gather", "dtype": "float32", "data_shape": [300, 8], "indices_shape": [3],
                              "indices": [5, 9, 1]})");
    EXPECT_EQ(count(few.source, "static const"), 0u);
    EXPECT_EQ(count(few.source, "kernelgen_copy(&output["), 3u);
    auto none = emit_json(R"({"name": "t", "op": "Gather", "dtype": "float32", "data_shape": [300, 8], "indices_shape": [3],
                              "unroll": "none", "indices": [5, 9, 1]})");
    EXPECT_NE(none.source.find("static const uint8_t kernelgen_t_sources[3] KERNELGEN_FLASH = {"), std::string::npos) << none.source;
}

TEST(Templates, AMissingKeyIsAnError) {
    TemplateValues values;
    values.text["name"] = "x";
    EXPECT_THROW(render_template("kernel.h.mustache", values), std::logic_error);
    EXPECT_THROW(template_text("no-such-template"), std::logic_error);
}

}  // namespace

namespace {

TEST(Emit, LoopChecksGatherOneFlagOnlyWithAFactor) {
    // 65 index values: more than the 2 checked straight-line, so one loop of checks, which returns at the first
    // bad index; with an unroll factor (the setting for hosts with vector units) it gathers one flag.
    // An int64 index against a literal size goes through kernelgen_outside_i64 (its address: the test by words),
    // in the flag's loop its branch-free form kernelgen_outside_i64_bits.
    auto fast = emit_json(gather(100, 65, "4"));
    EXPECT_EQ(count(fast.source, "unsigned out_of_range = 0u;"), 1u) << fast.source;
    EXPECT_EQ(count(fast.source, "out_of_range |= kernelgen_outside_i64_bits(&indices[t], 100u);"), 1u) << fast.source;
    EXPECT_EQ(count(fast.source, "if (out_of_range != 0u)"), 1u);
    EXPECT_EQ(count(fast.source, "const int64_t index"), 0u);  // no local left unused
    for (const char* unroll : {"", "\"none\""}) {
        auto small = emit_json(gather(100, 65, unroll));
        EXPECT_EQ(count(small.source, "out_of_range"), 0u) << small.source;
        EXPECT_EQ(count(small.source, "if (kernelgen_outside_i64(&indices[t], 100u))"), 1u);
    }
    // int32 indices keep the plain compare, through the loop's local.
    auto int32 = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "index_dtype": "int32",
                               "data_shape": [100], "indices_shape": [65]})");
    EXPECT_EQ(count(int32.source, "const int32_t index = indices[t];"), 1u) << int32.source;
    EXPECT_EQ(count(int32.source, "if (index < -100 || index > 99)"), 1u);
    auto int32_fast = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "index_dtype": "int32",
                                    "data_shape": [100], "indices_shape": [65], "unroll": 4})");
    EXPECT_EQ(count(int32_fast.source, "out_of_range |= (unsigned)((index < -100) | (index > 99));"), 1u)
        << int32_fast.source;
    // A size an int32 does not hold: the plain compare.
    auto wide = emit_json(R"({"name": "g", "op": "Gather", "dtype": "uint8", "data_shape": [2147483649],
                              "indices_shape": [5]})");
    EXPECT_EQ(count(wide.source, "kernelgen_outside_i64"), 0u) << wide.source;
    EXPECT_EQ(count(wide.source, "if (index < -2147483649 || index > 2147483648)"), 1u) << wide.source;
}

TEST(Emit, Int32IndicesOfAPowerOfTwoRangeOrTheirOffsets) {
    // 64 int32 values against [-32, 31]: their offsets from -32 ORed, 4 a turn (KERNELGEN_ORED_CHECKS), one test
    // after the loop against 63. 10 values: one a turn (a count 4 does not divide). Under none: the compares.
    const auto gather32 = [](const char* indices, const char* unroll) {
        return std::string(R"({"name": "g", "op": "Gather", "dtype": "float32", "index_dtype": "int32",
                               "data_shape": [32, 2], "indices_shape": )") + indices + unroll + "}";
    };
    const std::string four = emit_json(gather32("[64]", "")).source;
    const std::string expected_four =
        "    uint32_t outside = 0u;\n"
        "    /*@ loop invariant 0 <= t <= 64u && t % KERNELGEN_ORED_CHECKS == 0;\n"
        "        loop invariant outside <= 63u <==> (\\forall integer k; 0 <= k < t ==> -32 <= indices[k] <= 31);\n"
        "        loop assigns t, outside;\n"
        "        loop variant 64u - t; */\n"
        "    for (uint32_t t = 0u; t < 64u; t += KERNELGEN_ORED_CHECKS) {\n"
        "        outside = kernelgen_ored_offsets_i32(outside, &indices[t], 32u);\n"
        "    }\n"
        "    if (outside > 63u) {\n"
        "        return G_ERROR_INDEX_OUT_OF_RANGE;\n"
        "    }\n";
    EXPECT_EQ(count(four, expected_four), 1u) << four;
    const std::string one = emit_json(gather32("[10]", "")).source;
    EXPECT_EQ(count(one, "    for (uint32_t t = 0u; t < 10u; ++t) {\n"
                         "        outside = kernelgen_ored_offset_i32(outside, indices[t], 32u);\n"), 1u) << one;
    EXPECT_EQ(count(one, "if (outside > 63u)"), 1u) << one;
    const std::string none = emit_json(gather32("[64]", R"(, "unroll": "none")")).source;
    EXPECT_EQ(count(none, "outside"), 0u) << none;
    EXPECT_EQ(count(none, "if (index < -32 || index > 31)"), 1u) << none;
}

// The index wrap is shared (kernelgen_support.h): one function per index and offset type, whose power-of-two test
// folds away because every call passes the axis size as a literal.
TEST(Emit, IndexWrapIsTheSharedFunctionWithALiteralSize) {
    auto int64 = emit_json(gather(64, 3, ""));
    EXPECT_NE(int64.source.find("kernelgen_wrap_i64_u32(&indices[0u], 64u)"), std::string::npos) << int64.source;
    auto int32 = emit_json(R"({"name": "n", "op": "GatherND", "dtype": "int8", "index_dtype": "int32",
                               "data_shape": [4, 3], "indices_shape": [2, 2]})");
    EXPECT_NE(int32.source.find("kernelgen_wrap_i32_u32(indices[1u], 3u)"), std::string::npos) << int32.source;
    EXPECT_EQ(count(int32.source, "static "), 0u) << int32.source;  // no helper of its own
    const GeneratedKernel support = print_support();
    for (const char* wrap : {"i32_u32", "i64_u32", "i32_u64", "i64_u64"}) {
        EXPECT_EQ(count(support.header, std::string("static inline uint") + (wrap[5] == '3' ? "32" : "64") +
                                            "_t kernelgen_wrap_" + wrap + "("),
                  1u)
            << wrap;
    }
    // A power-of-two size takes the AND: once in the wrap of a low word (sizes up to 2^31), which every wrap calls
    // (the int64 ones with the word read alone), in each wrap for the whole value, and in each of the four
    // circular write positions (TensorScatter), always inlined like the wraps (the wrap of an index plus a constant,
    // "indices_add", calls the int64 wrap for a sum above 2^31).
    EXPECT_EQ(count(support.header, "if ((size & (size - 1u)) == 0u)"), 9u);
    EXPECT_EQ(count(support.header, "KERNELGEN_WRAP_INLINE static inline uint32_t kernelgen_circular_"), 2u);
    EXPECT_EQ(count(support.header, "KERNELGEN_WRAP_INLINE static inline uint64_t kernelgen_circular_"), 2u);
    EXPECT_EQ(count(support.header, "kernelgen_wrap_low(kernelgen_low_word(at), (uint32_t)size)"), 2u);
    EXPECT_EQ(count(support.header, "kernelgen_wrap_low((uint32_t)index, (uint32_t)size)"), 2u);
}

TEST(Emit, TheEnclosingLoopNamesEachTensorsSliceOnce) {
    // GatherElements along the last axis: the outer loop points each tensor at its row, and the inner loop's
    // offsets leave i0 out.
    auto rows = emit_json(R"({"name": "e", "op": "GatherElements", "dtype": "float32", "data_shape": [6, 10],
                               "indices_shape": [6, 5], "axis": 1, "unroll": "none"})");
    const std::string expected = "    for (uint32_t i0 = 0u; i0 < 6u; ++i0) {\n"
                                 "        const float *data_slice = &data[i0 * 10u];\n"
                                 "        const int64_t *indices_slice = &indices[i0 * 5u];\n"
                                 "        float *output_slice = &output[i0 * 5u];\n"
                                 "        for (uint32_t i1 = 0u; i1 < 5u; ++i1) {\n"
                                 "            KERNELGEN_MOVE_F32(output_slice[i1], data_slice[kernelgen_wrap_i64_u32(&indices_slice[i1], 10u)]);\n";
    EXPECT_NE(without_acsl(rows.source).find(expected), std::string::npos) << rows.source;
    EXPECT_EQ(count(rows.source, "i0 *"), 3u) << rows.source;  // in the three slices only
    // A tensor whose offset does not move with the outer loop keeps its name: Gather's indices.
    auto gather_axis1 = emit_json(R"({"name": "g", "op": "Gather", "dtype": "int8", "data_shape": [3, 7, 2],
                                       "indices_shape": [40], "axis": 1, "unroll": "none"})");
    EXPECT_NE(gather_axis1.source.find("const int8_t *data_slice = &data[i0 * 14u];"), std::string::npos)
        << gather_axis1.source;
    EXPECT_NE(gather_axis1.source.find("        int8_t *output_slice = &output[i0 * 80u];"), std::string::npos);
    EXPECT_EQ(count(gather_axis1.source, "indices_slice"), 0u);
    // The remainder of a partly unrolled inner loop runs inside the outer loop, through the slices too.
    auto remainder = emit_json(R"({"name": "r", "op": "GatherElements", "dtype": "float32", "data_shape": [4, 10],
                                    "indices_shape": [4, 7], "axis": 1, "unroll": 3})");
    EXPECT_NE(remainder.source.find("        KERNELGEN_MOVE_F32(output_slice[6u], data_slice[kernelgen_wrap_i64_u32(&indices_slice[6u], 10u)]);\n    }\n"),
              std::string::npos)
        << remainder.source;
    EXPECT_EQ(count(remainder.source, "i0 *"), 3u);
    // A deeper nest (ScatterElements along a middle axis): the slices hold every outer variable, the innermost
    // loop's offsets only its own. Strides: updates and indices [10, 5, 1], output [24, 6, 1], and output's
    // offset along axis 1 comes from the index, not from i1.
    auto deep = emit_json(R"({"name": "d", "op": "ScatterElements", "dtype": "int16", "data_shape": [3, 4, 6],
                               "indices_shape": [3, 2, 5], "axis": 1, "reduction": "max", "unroll": "none"})");
    EXPECT_NE(without_acsl(deep.source).find("            const int16_t *updates_slice = &updates[i0 * 10u + i1 * 5u];\n"
                               "            const int64_t *indices_slice = &indices[i0 * 10u + i1 * 5u];\n"
                               "            int16_t *output_slice = &output[i0 * 24u];\n"
                               "            for (uint32_t i2 = 0u; i2 < 5u; ++i2) {\n"
                               "                {\n"
                               "                    int16_t *to = &output_slice[i2 + kernelgen_wrap_i64_u32(&indices_slice[i2], 4u) * 6u];\n"
                               "                    to[0u] = kernelgen_d_combine(to[0u], updates_slice[i2]);\n"),
              std::string::npos)
        << deep.source;
    // A loop that no other encloses opens the slices in its own body where the levels inside it are written out
    // and the index values move with it (each turn reads its own row of indices).
    auto element_rows = emit_json(R"({"name": "w", "op": "GatherElements", "dtype": "float32", "data_shape": [16, 32],
                                       "indices_shape": [16, 8], "axis": 1})");
    EXPECT_NE(without_acsl(element_rows.source).find("    for (uint32_t i0 = 0u; i0 < 16u; ++i0) {\n"
                                                     "        const float *data_slice = &data[i0 * 32u];\n"
                                                     "        const int64_t *indices_slice = &indices[i0 * 8u];\n"
                                                     "        float *output_slice = &output[i0 * 8u];\n"
                                                     "        KERNELGEN_MOVE_F32(output_slice[0u], data_slice[kernelgen_wrap_i64_u32(&indices_slice[0u], 32u)]);\n"),
              std::string::npos)
        << element_rows.source;
    EXPECT_EQ(count(element_rows.source, "i0 *"), 3u) << element_rows.source;
    // Not where the index values stay the same every turn (a Gather along the last axis of a [2, 10, 6] tensor
    // by 3 indices: its loop walks the 20 rows), nor around a single level.
    auto same_indices = emit_json(R"({"name": "l", "op": "Gather", "dtype": "int16", "index_dtype": "int32",
                                       "data_shape": [2, 10, 6], "indices_shape": [3], "axis": -1})");
    EXPECT_NE(same_indices.source.find("for (uint32_t i0 = 0u;"), std::string::npos) << same_indices.source;
    EXPECT_EQ(count(same_indices.source, "_slice"), 0u) << same_indices.source;
    // A nest written out straight-line, or a single loop level: no slices.
    auto straight = emit_json(R"({"name": "e", "op": "GatherElements", "dtype": "float32", "data_shape": [6, 10],
                                   "indices_shape": [6, 5], "axis": 1, "unroll": "full"})");
    EXPECT_EQ(count(straight.source, "_slice"), 0u) << straight.source;
    EXPECT_EQ(count(emit_json(gather(100, 65, R"("none")")).source, "_slice"), 0u);
}

TEST(Emit, AFloatAtAnOffsetOfItsOwnIndexValueMovesAsAWord) {
    // GatherElements: each element's offset holds an index value no other copy reads.
    auto elements = emit_json(R"({"name": "e", "op": "GatherElements", "dtype": "float32", "data_shape": [16, 32],
                                   "indices_shape": [16, 8], "axis": 1})");
    EXPECT_EQ(count(elements.source, "KERNELGEN_MOVE_F32(output_slice["), 8u) << elements.source;
    EXPECT_EQ(count(elements.source, "] = data_slice["), 0u) << elements.source;
    // A scatter's store at an index value.
    auto scatter = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "data_shape": [8],
                                  "indices_shape": [4, 1]})");
    EXPECT_NE(scatter.source.find("KERNELGEN_MOVE_F32(output[kernelgen_wrap_i64_u32(&indices[3u], 8u)], updates[3u]);"),
              std::string::npos)
        << scatter.source;
    // Index values that several copies read (a Gather along axis 1 of [3, 3] by [1, 2]: each value for 3 rows):
    // gcc forms each address once for all of them, and the copies stay assignments.
    auto shared = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [3, 3],
                                 "indices_shape": [1, 2], "axis": 1})");
    EXPECT_NE(shared.source.find("    output[2u] = data[kernelgen_wrap_i64_u32(&indices[0u], 3u) + 3u];\n"), std::string::npos)
        << shared.source;
    EXPECT_EQ(count(shared.source, "KERNELGEN_MOVE_F32("), 0u) << shared.source;
    // Through a row pointer (no index value in the copy's own offsets), of another type, or combined: assignments.
    auto rows = emit_json(R"({"name": "r", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2, 2], "axis": 0})");
    EXPECT_NE(rows.source.find("output[1u] = from[1u];"), std::string::npos) << rows.source;
    auto ints = emit_json(R"({"name": "i", "op": "GatherElements", "dtype": "int32", "data_shape": [16, 32],
                               "indices_shape": [16, 8], "axis": 1})");
    auto sums = emit_json(R"({"name": "a", "op": "ScatterND", "dtype": "float32", "data_shape": [8],
                               "indices_shape": [4, 1], "reduction": "add"})");
    for (const auto* kernel : {&rows, &ints, &sums}) EXPECT_EQ(count(kernel->source, "KERNELGEN_MOVE_F32("), 0u) << kernel->source;
    // The support header moves the word on GCC's Arm cores with a floating-point unit only.
    const GeneratedKernel support = print_support();
    EXPECT_NE(support.header.find("#if !defined(KERNELGEN_MOVE_BY_VALUE) && defined(__GNUC__) && defined(__arm__) && defined(__ARM_FP)\n"
                                  "#define KERNELGEN_MOVE_F32(to, from) KERNELGEN_MEMCPY(&(to), &(from), sizeof(to))\n"
                                  "#else\n"
                                  "#define KERNELGEN_MOVE_F32(to, from) ((to) = (from))\n"),
              std::string::npos);
    // Which is the compiler's builtin, loads and stores also under -ffreestanding (strict_c99_* compile it so).
    EXPECT_NE(support.header.find("#if defined(__GNUC__) && !defined(__FRAMAC__)\n"
                                  "#define KERNELGEN_MEMCPY(to, from, bytes) __builtin_memcpy((to), (from), (bytes))\n"),
              std::string::npos);
}

TEST(Emit, IndicesAndUpdatesAreRestrictInTheDefinitionOnly) {
    auto scatter = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 4],
                                  "indices_shape": [2, 1], "reduction": "add"})");
    EXPECT_NE(scatter.source.find("int s(const float *data, const int64_t *restrict indices, "
                                  "const float *restrict updates, float *output)\n{"),
              std::string::npos)
        << scatter.source;
    EXPECT_EQ(count(scatter.header, "restrict"), 0u) << scatter.header;
    EXPECT_NE(scatter.header.find("int s(const float *data, const int64_t *indices, const float *updates, float *output);"),
              std::string::npos);
}

// Prefetching, hand-worked. Gather float32 [4096, 16] (64-byte rows, 256 KiB) by [100]: "auto" prefetches
// 4096 / 64 = 64 tuples ahead. The loop is unrolled by 10 (divides 100); i0 takes 0, 10, ..., 90, and the
// copy i0 + j has a tuple 64 on while i0 + j + 64 < 100: for j = 0..5 while i0 < 40, for j = 6..9 while i0 < 30.
std::string table(uint64_t rows, uint64_t width, const std::string& more) {
    return R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [)" + std::to_string(rows) + ", " +
           std::to_string(width) + R"(], "indices_shape": [100])" + more + "}";
}

TEST(Emit, AutoPrefetchesLargeTablesOfWholeLines) {
    const std::string source = emit_json(table(4096, 16, "")).source;
    EXPECT_NE(source.find(" * unroll auto: loops over the index tuples, a loop of index checks, prefetch 64 tuples ahead.\n"),
              std::string::npos) << source;
    EXPECT_NE(source.find("#if defined(__GNUC__) && (defined(__i386__) || defined(__x86_64__) || defined(__arm__) || "
                          "defined(__aarch64__))\n__attribute__((always_inline)) static inline void kernelgen_g_prefetch(const float *block)\n"
                          "{\n    __builtin_prefetch(block);\n}\n#else\nstatic void kernelgen_g_prefetch(const float *block)\n{\n"
                          "    (void)block;\n}\n#endif\n"),
              std::string::npos) << source;
    // 64-byte rows (2 statements each): the budget allows 6 copies a loop body (5 dividing 100), the flash limit 3
    // (the loop form's estimate: 6 + a check loop 9 + one copy 4 + its index 5 + a loop 3 = 27 instructions, 3x that
    // 81; written out: 31 besides the bodies (its check loop ORs the offsets of 4 int64 values a turn, 6 + 4 x 4),
    // each a row copy of 2 blocks 8 + its index 5: (81 - 31) / 13 = 3, whose remainder of 1 makes it 2).
    // Each copy after the hint for the row 64 tuples on, guarded while that row exists: i0 + 64 + k < 100 for i0
    // a multiple of 2, i0 < 36 for every k.
    EXPECT_EQ(count(source, "kernelgen_g_prefetch(&data["), 2u);
    EXPECT_EQ(count(source, "if (i0 < 36u) {\n            kernelgen_g_prefetch(&data["), 2u);
    EXPECT_NE(source.find("for (uint32_t i0 = 0u; i0 < 100u; i0 += 2u) {"), std::string::npos);
    EXPECT_NE(source.find("kernelgen_g_prefetch(&data[kernelgen_wrap_i64_u32(&indices[i0 + 64u], 4096u) * 16u]);"), std::string::npos);
    EXPECT_NE(source.find("kernelgen_g_prefetch(&data[kernelgen_wrap_i64_u32(&indices[i0 + 65u], 4096u) * 16u]);"), std::string::npos);
    // Each hint comes before its copy.
    EXPECT_LT(source.find("kernelgen_g_prefetch(&data[kernelgen_wrap_i64_u32(&indices[i0 + 64u]"), source.find("kernelgen_copy(&output[i0 * 16u], "));
}

TEST(Emit, AutoKeepsTheCodeWithinThreeTimesTheLoopForm) {
    // ONNX's test_gather_1: 15 rows of 24 bytes, which the budget alone would write out (5 levels of 3 copies, 15
    // statements: a factor of 4 that would run once). The loop form's estimate: 6 + a check loop 9 + a memcpy 4 + its
    // index 5 + two loops 6 = 30 instructions, 3x that 90; written out, 18 besides the bodies, each a 24-byte row
    // copy (16 + 8 bytes) 4 + its index 5: (90 - 18) / 9 = 8 bodies. The inner level (3) is written out; the outer
    // one by 2 would take 2 bodies and a remainder of 1 (9 > 8), so it stays a loop.
    const std::string source = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32",
                                              "data_shape": [5, 4, 3, 2], "indices_shape": [3], "axis": 1})").source;
    EXPECT_NE(source.find("    for (uint32_t i0 = 0u; i0 < 5u; ++i0) {\n"
                          "        kernelgen_copy(&output[i0 * 18u], &data[i0 * 24u + kernelgen_wrap_i64_u32(&indices[0u], 4u) * 6u]"),
              std::string::npos)
        << source;
    EXPECT_EQ(count(source, "kernelgen_copy("), 3u) << source;
    // Two rows of data instead of 5: 6 bodies, 18 + 6 * 9 = 72 <= 90, all written out.
    const std::string two = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [2, 4, 3, 2],
                                           "indices_shape": [3], "axis": 1})").source;
    EXPECT_EQ(count(two, "for (uint32_t i0"), 0u) << two;
    EXPECT_EQ(count(two, "kernelgen_copy("), 6u) << two;
}

TEST(Emit, AutoLeavesOutWhatPrefetchingCannotHelp) {
    auto has_prefetch = [](const std::string& json) { return emit_json(json).source.find("_prefetch") != std::string::npos; };
    EXPECT_FALSE(has_prefetch(table(1000, 16, "")));                      // 62.5 KiB: below 64 KiB
    EXPECT_FALSE(has_prefetch(table(8192, 8, "")));                       // 32-byte rows: less than a line
    EXPECT_FALSE(has_prefetch(table(4096, 16, R"(, "unroll": "none")"))); // the least code
    EXPECT_FALSE(has_prefetch(table(4096, 16, R"(, "prefetch": "none")")));
    EXPECT_FALSE(has_prefetch(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [4096, 16],
                                  "indices_shape": [60]})"));           // straight-line: 60 copies
    EXPECT_FALSE(has_prefetch(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [4096, 16],
                                  "indices_shape": [100], "indices": [)" + [] {
        std::string values;
        for (int i = 0; i < 100; ++i) values += (i ? ", " : "") + std::to_string(i * 7);
        return values;
    }() + "]}"));  // constant indices
    EXPECT_TRUE(has_prefetch(table(4096, 16, "")));
}

TEST(Emit, AGivenDistancePrefetchesAnyKernel) {
    // unroll none: one copy in a loop of 100; the tuple 2 on exists while i0 < 98.
    const std::string looped = emit_json(table(10, 2, R"(, "unroll": "none", "prefetch": 2)")).source;
    EXPECT_NE(looped.find("        if (i0 < 98u) {\n            kernelgen_g_prefetch(&data[kernelgen_wrap_i64_u32(&indices[i0 + 2u], 10u) * 2u]);\n"
                          "        }\n"),
              std::string::npos) << looped;
    EXPECT_NE(looped.find("unroll none: loops over the index tuples, a loop of index checks, prefetch 2 tuples ahead."),
              std::string::npos);
    // Straight-line: 5 copies, 4 tuples ahead: only the first copy has one.
    const std::string straight = emit_json(R"({"name": "g", "op": "Gather", "dtype": "uint8", "data_shape": [10, 2],
                                               "indices_shape": [5], "prefetch": 4})").source;
    EXPECT_EQ(count(straight, "kernelgen_g_prefetch(&data["), 1u) << straight;
    EXPECT_NE(straight.find("    kernelgen_g_prefetch(&data[kernelgen_wrap_i64_u32(&indices[4u], 10u) * 2u]);\n    {\n"), std::string::npos);
    // No tuple has one 5 ahead: no hint, and no helper left unused.
    EXPECT_EQ(emit_json(R"({"name": "g", "op": "Gather", "dtype": "uint8", "data_shape": [10, 2],
                            "indices_shape": [5], "prefetch": 5})").source.find("prefetch"),
              std::string::npos);
}

TEST(Emit, AScatterPrefetchesTheRowsItWrites) {
    // ScatterND add [4096, 256] by [1024, 1]: 1 KiB rows of output, 4 tuples ahead, 16 lines (the cap).
    const std::string source = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "index_dtype": "int32",
        "data_shape": [4096, 256], "indices_shape": [1024, 1], "reduction": "add"})").source;
    EXPECT_NE(source.find("prefetch 4 tuples ahead"), std::string::npos) << source;
    EXPECT_EQ(count(source, "__builtin_prefetch(line"), 16u);
    EXPECT_NE(source.find("    __builtin_prefetch(line + 960, 1);\n}\n#else"), std::string::npos);
    EXPECT_NE(source.find("kernelgen_s_prefetch(&output[kernelgen_wrap_i32_u32(indices[i0 + 4u], 4096u) * 256u]);"), std::string::npos);
}

// --- "count": "runtime" ---------------------------------------------------------------------------------

TEST(EmitCount, TheCountFollowsTheIndicesAndBoundsTheRowLoops) {
    auto scatter = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "int8", "data_shape": [8, 3],
                                  "indices_shape": [5, 1], "count": "runtime"})");
    EXPECT_NE(scatter.header.find("int s(const int8_t *data, const int64_t *indices, uint32_t count, const int8_t *updates, int8_t *output);"),
              std::string::npos) << scatter.header;
    EXPECT_NE(scatter.header.find("#define S_MAX_COUNT 5\n"), std::string::npos);
    EXPECT_NE(scatter.header.find("#define S_ERROR_COUNT_OUT_OF_RANGE (-2)\n"), std::string::npos);
    EXPECT_NE(scatter.header.find("#define S_INDICES_SIZE 5\n#define S_UPDATES_SIZE 15\n"), std::string::npos)
        << "sizes at the bound";
    // The count is checked first, before any index; checks and copies loop over it.
    const size_t count_check = scatter.source.find("if (count > S_MAX_COUNT) {\n        return S_ERROR_COUNT_OUT_OF_RANGE;");
    ASSERT_NE(count_check, std::string::npos) << scatter.source;
    EXPECT_LT(count_check, scatter.source.find("indices["));
    EXPECT_NE(scatter.source.find("for (uint32_t t = 0u; t < count; ++t)"), std::string::npos) << scatter.source;
    EXPECT_NE(scatter.source.find("i0 < count; ++i0)"), std::string::npos);
    EXPECT_EQ(count(scatter.source, "prefetch"), 0u);
}

TEST(EmitCount, UnrollingAppliesInsideTheCountLoopOnly) {
    // GatherElements of 6 per row: with "full", each row's 6 copies are written out, and the loop over the
    // count stays; "none" loops inside the row too.
    const std::string spec = R"({"name": "g", "op": "GatherElements", "dtype": "float32", "data_shape": [10, 8],
                                 "indices_shape": [10, 6], "axis": 1, "count": "runtime", "unroll": )";
    auto full = emit_json(spec + R"("full"})");
    EXPECT_NE(full.source.find("for (uint32_t i0 = 0u; i0 < count; ++i0)"), std::string::npos) << full.source;
    EXPECT_NE(full.source.find("a loop over the run-time count of index rows (at most 10)"), std::string::npos);
    auto none = emit_json(spec + R"("none"})");
    EXPECT_NE(none.source.find("i0 < count; ++i0)"), std::string::npos) << none.source;
    EXPECT_GT(count(none.source, "for ("), count(full.source, "for (")) << none.source;
    // A bound of 1 still loops over the count (0 or 1 rows).
    auto one = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [6, 4],
                             "indices_shape": [1], "count": "runtime"})");
    EXPECT_NE(one.source.find("i0 < count; ++i0)"), std::string::npos) << one.source;
}

TEST(EmitCount, ARunsPrefetchLeavesACountedKernelAlone) {
    KernelSpec spec = parse_one(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [65536, 64],
                                    "indices_shape": [64], "count": "runtime"})");
    RunOptions run;
    run.prefetch = Prefetch{Prefetch::Kind::Distance, 4};
    apply_run_options(spec, run);
    EXPECT_EQ(spec.prefetch.kind, Prefetch::Kind::None);
    EXPECT_EQ(count(emit(spec).source, "prefetch"), 0u);
}

TEST(EmitCount, WideOffsetsWidenTheCount) {
    auto wide = emit_json(R"({"name": "g", "op": "Gather", "dtype": "uint8", "data_shape": [5000000000],
                              "indices_shape": [3], "count": "runtime"})");
    EXPECT_NE(wide.source.find("i0 < (uint64_t)count; ++i0)"), std::string::npos) << wide.source;
}

// --- "count_leads": "data" --------------------------------------------------------------------------------

// The NMS column: Gather of [4, 3] int64 along axis 1 by the constant 2. The kernel takes data, the count and
// output; after the count check, one element of each of the first count rows of data (at 3 * row + 2) goes to
// output[row]. Worked out by hand from the spec.
TEST(EmitCountData, ConstantIndicesCopyTheFirstCountRows) {
    auto column = emit_json(R"({"name": "c", "op": "Gather", "dtype": "int64", "data_shape": [4, 3],
                                 "indices_shape": [], "indices": 2, "axis": 1, "count": "runtime", "count_leads": "data"})");
    EXPECT_NE(column.header.find("int c(const int64_t *data, uint32_t count, int64_t *output);"), std::string::npos)
        << column.header;
    EXPECT_NE(column.header.find("#define C_DATA_SIZE 12\n#define C_INDICES_SIZE 1\n#define C_OUTPUT_SIZE 4\n"),
              std::string::npos) << "sizes at the bound";
    EXPECT_NE(column.header.find("/* The largest count a call may pass: the leading dimension of data and output at most. */\n"
                                 "#define C_MAX_COUNT 4\n"),
              std::string::npos);
    EXPECT_NE(column.header.find(" * count: the leading dimension of data and output in this call, 0..C_MAX_COUNT"),
              std::string::npos);
    EXPECT_NE(column.header.find("Only the first count rows of data are read and\n"
                                 " * only the first count rows of output written: the rest is left untouched.\n"
                                 " * A count above C_MAX_COUNT returns\n"),
              std::string::npos) << column.header;
    EXPECT_EQ(column.header.find("Every\n * index is read"), std::string::npos) << "no indices to read";
    const std::string body =
        "int c(const int64_t *data, uint32_t count, int64_t *output)\n"
        "{\n"
        "    /* count rows of data and output, at most C_MAX_COUNT; nothing is read or written beyond them. */\n"
        "    if (count > C_MAX_COUNT) {\n"
        "        return C_ERROR_COUNT_OUT_OF_RANGE;\n"
        "    }\n"
        "    /* output[a0] = data[a0, indices] */\n"
        "    /*@ loop invariant 0 <= i0 <= count;\n"
        "        loop assigns i0, output[0 .. C_OUTPUT_SIZE - 1];\n"
        "        loop variant count - i0; */\n"
        "    for (uint32_t i0 = 0u; i0 < count; ++i0) {\n"
        "        output[i0] = data[i0 * 3u + 2u];\n"
        "    }\n"
        "    return C_OK;\n"
        "}\n";
    EXPECT_NE(column.source.find(body), std::string::npos) << column.source;
    EXPECT_NE(column.source.find("unroll auto: constant indices resolved into 1 run, written out inside a loop over the "
                                 "run-time count of data rows (at most 4)"),
              std::string::npos);
}

// Every column in order is one run of a row: still one row per step of the count's loop, never a copy of all
// 12 elements.
TEST(EmitCountData, AnIdentityStaysInsideTheCountsLoop) {
    auto rows = emit_json(R"({"name": "r", "op": "Gather", "dtype": "int64", "data_shape": [4, 3],
                               "indices_shape": [3], "indices": [0, 1, 2], "axis": 1, "count": "runtime",
                               "count_leads": "data"})");
    EXPECT_NE(rows.source.find("    for (uint32_t i0 = 0u; i0 < count; ++i0) {\n"
                               "        output[i0 * 3u] = data[i0 * 3u];\n"
                               "        output[i0 * 3u + 1u] = data[i0 * 3u + 1u];\n"
                               "        output[i0 * 3u + 2u] = data[i0 * 3u + 2u];\n"
                               "    }\n"),
              std::string::npos) << rows.source;
}

// Run-time indices (two, int32, along axis -1 of [6, 5]): every index is checked whatever the count, before the
// loop over the first count rows.
TEST(EmitCountData, RunTimeIndicesAreAllCheckedWhateverTheCount) {
    auto fields = emit_json(R"({"name": "f", "op": "Gather", "dtype": "float32", "index_dtype": "int32",
                                 "data_shape": [6, 5], "indices_shape": [2], "axis": -1, "count": "runtime",
                                 "count_leads": "data"})");
    EXPECT_NE(fields.header.find("int f(const float *data, const int32_t *indices, uint32_t count, float *output);"),
              std::string::npos) << fields.header;
    EXPECT_NE(fields.header.find("#define F_MAX_COUNT 6\n"), std::string::npos);
    EXPECT_NE(fields.header.find(" * Every index is read and checked, whatever the count.\n"), std::string::npos);
    const std::string body =
        "    /* count rows of data and output, at most F_MAX_COUNT; nothing is read or written beyond them. */\n"
        "    if (count > F_MAX_COUNT) {\n"
        "        return F_ERROR_COUNT_OUT_OF_RANGE;\n"
        "    }\n"
        "    /* Every index is checked before anything is written. */\n"
        "    if (indices[0] < -5 || indices[0] > 4) {\n"
        "        return F_ERROR_INDEX_OUT_OF_RANGE;\n"
        "    }\n"
        "    if (indices[1] < -5 || indices[1] > 4) {\n"
        "        return F_ERROR_INDEX_OUT_OF_RANGE;\n"
        "    }\n"
        "    /* output[a0, i0] = data[a0, indices[i0]] */\n"
        "    /*@ loop invariant 0 <= i0 <= count;\n"
        "        loop assigns i0, output[0 .. F_OUTPUT_SIZE - 1];\n"
        "        loop variant count - i0; */\n"
        "    for (uint32_t i0 = 0u; i0 < count; ++i0) {\n"
        "        KERNELGEN_MOVE_F32(output[i0 * 2u], data[i0 * 5u + kernelgen_wrap_i32_u32(indices[0u], 5u)]);\n"
        "        KERNELGEN_MOVE_F32(output[i0 * 2u + 1u], data[i0 * 5u + kernelgen_wrap_i32_u32(indices[1u], 5u)]);\n"
        "    }\n"
        "    return F_OK;\n";
    EXPECT_NE(fields.source.find(body), std::string::npos) << fields.source;
    // With more indices than the straight-line budget: one loop to the constant 5, not to a multiple of count.
    auto five = emit_json(R"({"name": "f", "op": "Gather", "dtype": "float32", "data_shape": [6, 5],
                               "indices_shape": [5], "axis": 1, "count": "runtime", "count_leads": "data"})");
    EXPECT_NE(five.source.find("for (uint32_t t = 0u; t < 5u; ++t) {"), std::string::npos) << five.source;
    // "index_check": "none": the header says the indices are read, not checked.
    auto trusted = emit_json(R"({"name": "f", "op": "Gather", "dtype": "float32", "data_shape": [6, 5],
                                  "indices_shape": [2], "axis": 1, "count": "runtime", "count_leads": "data",
                                  "index_check": "none"})");
    EXPECT_NE(trusted.header.find(" * Every index is read, whatever the count.\n"), std::string::npos) << trusted.header;
}

// A data count: the second uint32_t right after data, its macros, its check before the count's, and every index
// along axis 0 tested against it (kernelgen_outside_count_i32) and wrapped by it; the other entries of a GatherND
// tuple keep their literal bounds. In every unroll mode.
TEST(Emit, DataCountIsCheckedFirstAndBoundsTheIndicesAlongAxis0) {
    for (const std::string unroll : {"\"auto\"", "\"none\"", "\"full\"", "4"}) {
        SCOPED_TRACE(unroll);
        auto kernel = emit_json(R"({"name": "g", "op": "GatherND", "dtype": "float32", "index_dtype": "int32",
                                     "data_shape": [5, 3, 2], "indices_shape": [4, 2], "count": "runtime",
                                     "data_count": "runtime", "unroll": )" + unroll + "}");
        EXPECT_NE(kernel.header.find("int g(const float *data, uint32_t data_count, const int32_t *indices, uint32_t count, "
                                     "float *output);"),
                  std::string::npos) << kernel.header;
        EXPECT_NE(kernel.header.find("#define G_MAX_DATA_COUNT 5\n"), std::string::npos);
        EXPECT_NE(kernel.header.find("#define G_ERROR_DATA_COUNT_OUT_OF_RANGE (-3)\n"), std::string::npos);
        const size_t data_check = kernel.source.find("if (data_count > G_MAX_DATA_COUNT)");
        ASSERT_NE(data_check, std::string::npos) << kernel.source;
        EXPECT_LT(data_check, kernel.source.find("if (count > G_MAX_COUNT)"));
        EXPECT_GT(count(kernel.source, "kernelgen_outside_count_i32(index, data_count)") +
                      count(kernel.source, "kernelgen_outside_count_i32(tuple[0], data_count)") +
                      count(kernel.source, "kernelgen_outside_count_i32(indices[0], data_count)"),
                  0u) << kernel.source;
        EXPECT_EQ(count(kernel.source, "(int64_t)data_count"), 0u) << kernel.source;
        EXPECT_GT(count(kernel.source, "< -3"), 0u) << kernel.source;
        EXPECT_GT(count(kernel.source, "kernelgen_wrap_i32_u32(indices["), 0u);
        EXPECT_GT(count(kernel.source, ", data_count) * 6u"), 0u) << kernel.source;
    }
}

// A scatter's copy of data's data_count rows by one row copy (more than 32 elements): its bytes counted in size_t,
// which has 16 bits on AVR, where a uint32_t count times sizeof failed -Wconversion.
TEST(Emit, ADataCountScattersCopyCountsItsBytesInSizeT) {
    for (const std::string data_shape : {"[10, 4]", "[40]"}) {
        SCOPED_TRACE(data_shape);
        const auto kernel = emit_json(R"({"name": "s", "op": "ScatterND", "dtype": "uint8", "data_shape": )" +
                                      data_shape + R"(, "indices_shape": [2, 1], "data_count": "runtime"})");
        const std::string rows = data_shape == "[40]" ? "(size_t)data_count * sizeof(uint8_t)"
                                                      : "(size_t)data_count * 4u * sizeof(uint8_t)";
        EXPECT_NE(kernel.source.find("memcpy(output, data, " + rows + ");"), std::string::npos) << kernel.source;
    }
}

// A reduction whose destinations come from a table of constant runs reads each entry once, through a pointer:
// on AVR every read of the table is a program-memory load, which the compiler does not merge with a second one.
TEST(Emit, AReductionThroughATableOfDestinationsReadsEachEntryOnce) {
    const auto kernel = emit_json(R"({"name": "h", "op": "ScatterND", "dtype": "int32", "data_shape": [10],
                                     "indices_shape": [6, 1], "reduction": "add", "unroll": "none",
                                     "indices": [[1], [1], [4], [9], [4], [0]]})");
    EXPECT_NE(kernel.source.find("int32_t *const slot = &output[(uint32_t)KERNELGEN_TABLE_U8(kernelgen_h_destinations, r)];"),
              std::string::npos) << kernel.source;
    EXPECT_NE(kernel.source.find("*slot = kernelgen_h_combine(*slot, updates[r]);"), std::string::npos) << kernel.source;
    // Without a reduction the destination is named once anyway.
    const auto plain = emit_json(R"({"name": "h", "op": "ScatterND", "dtype": "int32", "data_shape": [10],
                                    "indices_shape": [6, 1], "unroll": "none", "indices": [[1], [1], [4], [9], [4], [0]]})");
    EXPECT_EQ(plain.source.find("slot"), std::string::npos) << plain.source;
}

// int64 indices against a data count: the support header's test at the value's address; a bound of 2^31 or more
// (where the test's 2 * count would not fit a uint32_t) keeps the compare in int64_t.
TEST(Emit, Int64IndicesAgainstADataCountAreTestedAtTheirAddress) {
    const auto kernel = emit_json(R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [100, 4],
                                     "indices_shape": [10], "count": "runtime", "data_count": "runtime"})");
    EXPECT_NE(kernel.source.find("if (kernelgen_outside_count_i64(&indices[t], data_count)) {"), std::string::npos)
        << kernel.source;
    EXPECT_EQ(kernel.source.find("const int64_t index"), std::string::npos) << kernel.source;
    const auto huge = emit_json(R"({"name": "g", "op": "Gather", "dtype": "uint8", "data_shape": [2147483648],
                                   "indices_shape": [3], "data_count": "runtime", "unroll": "none"})");
    EXPECT_NE(huge.source.find("index < -(int64_t)data_count || index > (int64_t)data_count - 1"), std::string::npos)
        << huge.source;
    EXPECT_EQ(huge.source.find("kernelgen_outside_count"), std::string::npos);
}

}  // namespace

namespace {

// The bytes of inline constant data, as a spec's "data" holds `values` (a JSON array) for `dtype`.
std::vector<uint8_t> inline_bytes(const std::string& dtype, const std::string& values, size_t n) {
    const KernelSpec spec = parse_one(R"({"name": "k", "op": "Gather", "dtype": ")" + dtype + R"(", "data_shape": [)" +
                                      std::to_string(n) + R"(], "indices_shape": [1], "data": )" + values + "}");
    return spec.constant_data ? spec.constant_data->bytes : std::vector<uint8_t>{};
}

template <typename T>
std::vector<uint8_t> le_bytes(std::initializer_list<T> values) {
    std::vector<uint8_t> out;
    for (T value : values) {
        for (size_t b = 0; b < sizeof(T); ++b) out.push_back(static_cast<uint8_t>((static_cast<uint64_t>(value) >> (8 * b)) & 0xFF));
    }
    return out;
}

}  // namespace

// Inline values become the element type's exact bits: int64's extremes; float16 and bfloat16 rounded to nearest,
// ties to even (worked by hand: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10, whose last bit is odd), subnormals,
// the largest finite value and the sign of zero.
TEST(ConstantDataValues, ExactBitsAndRounding) {
    EXPECT_EQ(inline_bytes("int64", "[-9223372036854775808, 9223372036854775807, -1]", 3),
              le_bytes<uint64_t>({0x8000000000000000u, 0x7FFFFFFFFFFFFFFFu, 0xFFFFFFFFFFFFFFFFu}));
    EXPECT_EQ(inline_bytes("uint64", "[18446744073709551615, 0]", 2), le_bytes<uint64_t>({0xFFFFFFFFFFFFFFFFu, 0}));
    EXPECT_EQ(inline_bytes("float16", "[1.00048828125, 1.00146484375, 65504, 65519.99, 5.960464477539063e-08, -0.0]", 6),
              le_bytes<uint16_t>({0x3C00, 0x3C02, 0x7BFF, 0x7BFF, 0x0001, 0x8000}));
    EXPECT_EQ(inline_bytes("float16", R"(["NaN", "Infinity", "-Infinity", 2.9802322387695312e-08])", 4),
              le_bytes<uint16_t>({0x7E00, 0x7C00, 0xFC00, 0x0000}));
    // bfloat16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (odd): rounds to 1; 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
    EXPECT_EQ(inline_bytes("bfloat16", "[1.00390625, 1.01171875, -2]", 3), le_bytes<uint16_t>({0x3F80, 0x3F82, 0xC000}));
    EXPECT_EQ(inline_bytes("float32", "[1e-45, -0.0, 3.4028234663852886e+38]", 3),
              le_bytes<uint32_t>({0x00000001u, 0x80000000u, 0x7F7FFFFFu}));
    EXPECT_EQ(inline_bytes("complex64", "[[1, -2]]", 1), le_bytes<uint32_t>({0x3F800000u, 0xC0000000u}));
    EXPECT_EQ(inline_bytes("bool", "[true, false]", 2), (std::vector<uint8_t>{1, 0}));
}

// A constant table's rows come out through the row copy (KERNELGEN_COPY_FROM_TABLE), but under "none", which keeps
// the least code, through a call of memcpy (KERNELGEN_MEMCPY_FROM_TABLE); a scatter's copy of its constant data too.
TEST(ConstantDataValues, TableCopiesFollowTheUnrollMode) {
    for (const char* unroll : {"\"auto\"", "\"none\""}) {
        const bool none = std::string(unroll) == "\"none\"";
        const std::string wanted = none ? "KERNELGEN_MEMCPY_FROM_TABLE(" : "KERNELGEN_COPY_FROM_TABLE(";
        const std::string other = none ? "KERNELGEN_COPY_FROM_TABLE(" : "KERNELGEN_MEMCPY_FROM_TABLE(";
        const GeneratedKernel gather = emit_json(std::string(R"({"name": "g", "op": "Gather", "dtype": "float32",
            "data_shape": [4, 8], "indices_shape": [3], "data": [[0,1,2,3,4,5,6,7],[0,1,2,3,4,5,6,7],[0,1,2,3,4,5,6,7],
            [0,1,2,3,4,5,6,7]], "unroll": )") + unroll + "}");
        EXPECT_NE(gather.source.find(wanted + "&output["), std::string::npos) << unroll << gather.source;
        EXPECT_EQ(gather.source.find(other), std::string::npos) << unroll << gather.source;
        const GeneratedKernel scatter = emit_json(std::string(R"({"name": "s", "op": "ScatterND", "dtype": "float32",
            "data_shape": [4, 8], "indices_shape": [1, 1], "updates_shape": [1, 8], "data": [[0,1,2,3,4,5,6,7],
            [0,1,2,3,4,5,6,7],[0,1,2,3,4,5,6,7],[0,1,2,3,4,5,6,8]], "unroll": )") + unroll + "}");
        EXPECT_NE(scatter.source.find(wanted + "output, "), std::string::npos) << unroll << scatter.source;
        EXPECT_EQ(scatter.source.find(other), std::string::npos) << unroll << scatter.source;
    }
}

// A data_file's name reaches the kernel's comments as its file name alone, with every character that could end a
// comment (or begin a trigraph or a line splice) made '_': the header still compiles as the contract says.
TEST(ConstantDataValues, DataFileNameIsSafeInComments) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("kernelgen-emit-npy-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "a*");
    const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    std::string npy = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() + 1) + '\0' + header + "\n";
    npy += std::string(8, '\0');
    std::ofstream(dir / "a*" / "b*??.npy", std::ios::binary) << npy;
    const std::string spec_path = (dir / "spec.json").string();
    const KernelSpec spec = parse_one(R"({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [2],
                                          "indices_shape": [1], "data_file": "a*/b*??.npy"})", spec_path);
    ASSERT_TRUE(spec.constant_data.has_value());
    const GeneratedKernel kernel = emit(spec);
    EXPECT_NE(kernel.header.find("constant (b___.npy): held by the kernel"), std::string::npos) << kernel.header;
    EXPECT_NE(kernel.data.find(" from b___.npy, row-major"), std::string::npos) << kernel.data;
    EXPECT_EQ(kernel.header.find("*/b"), std::string::npos);
    fs::remove_all(dir);
}

// A table refuses AVR with its own #error beyond the 32,767 bytes of one avr-gcc object, counting the pad byte an
// odd-sized table gets (data_table): 32,766 bytes pass, 32,767 (declared as 32,768) do not.
TEST(ConstantDataValues, AvrRefusesATableBeyondOneObject) {
    auto source = [](size_t n) {
        std::string values = "[";
        for (size_t i = 0; i < n; ++i) values += (i ? ",1" : "1");
        return emit_json(R"({"name": "k", "op": "Gather", "dtype": "uint8", "data_shape": [)" + std::to_string(n) +
                         R"(], "indices_shape": [1], "data": )" + values + "]}");
    };
    const GeneratedKernel fits = source(32766), padded = source(32767);
    EXPECT_EQ(fits.source.find("#error"), fits.source.find("#error \"k.c and kernelgen_support.h"));
    EXPECT_NE(padded.source.find("#if defined(__AVR__)\n#error \"k: its constant data takes 32768 bytes"), std::string::npos)
        << padded.source;
    EXPECT_NE(padded.data.find("kernelgen_k_data[32768]"), std::string::npos);
    EXPECT_NE(padded.data.find("0x00u, /* padding to an even number of bytes, never read */"), std::string::npos);
}
