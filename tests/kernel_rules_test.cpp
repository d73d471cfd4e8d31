// Rules of the generated C that only a computed result shows, held in the unit tier: each test generates a few
// small kernels through the library, compiles them with the strict flags, AddressSanitizer and UBSan, and runs them
// on hand-worked cases, a second or two a test. The random kernels, the on-target runs and the ONNX Runtime
// cross-checks check the same rules at length; these are the edit loop's copy of them, each case chosen so that
// the rule shows (a NaN update meeting a number, a zero point below 0, a write position past the cache's end).
//
// Every expected value is worked out by hand here, and also required of tests/reference.cpp, the plain
// implementation the other tiers check against: a case whose hand-worked value the reference does not give fails
// before any kernel runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "c_program.h"
#include "half_reference.h"
#include "kernelgen/generate.h"
#include "kernelgen/output_files.h"
#include "kernelgen/spec.h"
#include "reference.h"

namespace {

namespace fs = std::filesystem;
using cprogram::Case;
using cprogram::Compare;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// --- element types -------------------------------------------------------------------------------------------

template <typename T>
T element(double value) {
    if constexpr (std::is_same_v<T, reference::Float16>) return T{halfref::from_double(value, halfref::kFloat16)};
    else if constexpr (std::is_same_v<T, reference::BFloat16>) return T{halfref::from_double(value, halfref::kBFloat16)};
    else return static_cast<T>(value);
}

template <typename T>
std::vector<T> elements(const std::vector<double>& values) {
    std::vector<T> out;
    for (double v : values) out.push_back(element<T>(v));
    return out;
}

template <typename T>
Compare compare_of() {
    if constexpr (std::is_same_v<T, float>) return Compare::Float;
    else if constexpr (std::is_same_v<T, double>) return Compare::Double;
    else if constexpr (std::is_same_v<T, reference::Float16>) return Compare::Float16;
    else if constexpr (std::is_same_v<T, reference::BFloat16>) return Compare::BFloat16;
    else return Compare::Bytes;
}

// Two elements the same: NaN as NaN (any payload), everything else bit for bit (so -0 differs from +0).
template <typename T>
bool same(const T& a, const T& b) {
    if constexpr (std::is_same_v<T, reference::Float16>) {
        return (halfref::is_nan(a.bits, halfref::kFloat16) && halfref::is_nan(b.bits, halfref::kFloat16)) || a.bits == b.bits;
    } else if constexpr (std::is_same_v<T, reference::BFloat16>) {
        return (halfref::is_nan(a.bits, halfref::kBFloat16) && halfref::is_nan(b.bits, halfref::kBFloat16)) || a.bits == b.bits;
    } else if constexpr (std::is_floating_point_v<T>) {
        return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
    } else {
        return a == b;
    }
}

std::vector<uint8_t> index_bytes(const std::vector<int64_t>& values, bool int32) {
    if (!int32) return cprogram::bytes_of(values);
    std::vector<int32_t> narrow;
    for (int64_t v : values) narrow.push_back(static_cast<int32_t>(v));
    return cprogram::bytes_of(narrow);
}

// A case of `kernel`: its inputs, and the hand-worked result (status 0) or the error code with the output
// untouched. The reference must agree with the hand-worked result first.
template <typename T>
Case checked_case(const std::string& kernel, const reference::Problem& problem, const std::vector<T>& data,
                  const std::vector<int64_t>& indices, const std::vector<T>& updates, const std::vector<T>& expected,
                  int status, bool in_place = false, bool int32 = false) {
    std::vector<T> output;
    const bool ok = reference::run(problem, data, indices, updates, output);
    EXPECT_EQ(ok, status == 0) << kernel << ": the reference disagrees with the hand-worked status " << status;
    if (ok && status == 0) {
        EXPECT_EQ(output.size(), expected.size()) << kernel;
        for (size_t i = 0; i < output.size() && i < expected.size(); ++i) {
            EXPECT_TRUE(same(output[i], expected[i])) << kernel << ": the reference disagrees with the hand-worked element " << i;
        }
    }
    Case c;
    c.kernel = kernel;
    c.label = kernel + (in_place ? " in place" : "");
    c.has_updates = !updates.empty() || problem.op == "ScatterND" || problem.op == "ScatterElements" ||
                    problem.op == "TensorScatter";
    c.in_place = in_place;
    c.compare = compare_of<T>();
    c.element_size = sizeof(T);
    c.data = cprogram::bytes_of(data);
    c.indices = index_bytes(indices, int32);
    c.updates = cprogram::bytes_of(updates);
    c.expected_status = status;
    if (status == 0) c.expected_output = cprogram::bytes_of(expected);
    else if (in_place) c.expected_output = c.data;
    else c.expected_output.assign(static_cast<size_t>(reference::count(reference::output_shape(problem))) * sizeof(T), cprogram::kSentinel);
    return c;
}

// --- generating, compiling and running -----------------------------------------------------------------------

fs::path work_folder() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    return fs::path(KERNELGEN_RULES_WORK_DIR) / (std::string(test->test_suite_name()) + "." + test->name());
}

// Generates the kernels of `specs` (one JSON object each) and runs `cases` on them: the kernels as one translation
// unit with the strict flags, ASan and UBSan, the driver of tests/c_program.cpp, every case required to pass.
void expect_cases_pass(const std::vector<std::string>& specs, const std::vector<Case>& cases) {
    std::vector<kernelgen::KernelSpec> kernels;
    for (const auto& text : specs) {
        std::vector<kernelgen::Diagnostic> diagnostics;
        auto parsed = kernelgen::parse_spec_text(text, "rules.json", diagnostics);
        ASSERT_TRUE(diagnostics.empty()) << text << "\n" << diagnostics.front().str();
        ASSERT_EQ(parsed.size(), 1u) << text;
        kernels.push_back(parsed.front());
    }
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    std::vector<std::string> names;
    for (const auto& file : result.files) names.push_back(file.name);
    std::vector<kernelgen::OutputFile> files = result.files;
    files.push_back({"kernels.c", cprogram::unity_source(names)});
    files.push_back({"driver.c", cprogram::program(cases)});
    const fs::path dir = work_folder();
    fs::remove_all(dir);
    fs::create_directories(dir);
    ASSERT_TRUE(kernelgen::write_outputs(dir, files).error.empty());
    const std::string sanitize = " -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all";
    const std::string in_dir = "cd '" + dir.string() + "' && ";
    int status = 0;
    std::string log = cprogram::run_command(in_dir + KERNELGEN_C_COMPILER " " KERNELGEN_STRICT_C_FLAGS + sanitize +
                                                " -I. -c kernels.c",
                                            status);
    ASSERT_EQ(status, 0) << log;
    EXPECT_TRUE(log.empty()) << "the kernels compile with warnings:\n" << log;
    log = cprogram::run_command(in_dir + KERNELGEN_C_COMPILER " -std=c99" + sanitize + " -I. driver.c kernels.o -o driver", status);
    ASSERT_EQ(status, 0) << log;
    log = cprogram::run_command(in_dir + "ASAN_OPTIONS=detect_leaks=0 ./driver", status);
    EXPECT_EQ(status, 0) << log;
    EXPECT_NE(log.find(std::to_string(cases.size()) + " cases, 0 failed"), std::string::npos) << log;
}

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// --- NaN in max and min ----------------------------------------------------------------------------------------

// Six elements, each meeting its updates in one way (numpy's maximum/minimum, ONNX's reference):
//   0: 1 meets a NaN update -> NaN      1: a NaN meets 5 -> NaN           2: 2 meets NaN, then 7 -> NaN
//   3: -0 meets +0 -> +0 (a tie takes the update)                        4: 3 meets 8 -> 8 (max), 3 (min)
//   5: 4 meets -inf, then 6 -> 6 (max), -inf (min)
const std::vector<double> kNanData{1, kNaN, 2, -0.0, 3, 4};
const std::vector<int64_t> kNanPositions{0, 1, 2, 2, 3, 4, 5, 5};
const std::vector<double> kNanUpdates{kNaN, 5, kNaN, 7, 0.0, 8, -kInf, 6};
const std::vector<double> kNanMax{kNaN, kNaN, kNaN, 0.0, 8, 6};
const std::vector<double> kNanMin{kNaN, kNaN, kNaN, 0.0, 3, -kInf};

template <typename T>
void add_nan_cases(const std::string& op, const std::string& dtype, std::vector<std::string>& specs, std::vector<Case>& cases) {
    const bool nd = op == "ScatterND";
    for (const std::string reduction : {"max", "min"}) {
        const std::string name = "nan_" + std::string(nd ? "nd_" : "el_") + dtype + "_" + reduction;
        // ScatterElements with int32 indices, ScatterND with int64 ones.
        specs.push_back(R"({"name": )" + quoted(name) + R"(, "op": )" + quoted(op) + R"(, "dtype": )" + quoted(dtype) +
                        R"(, "data_shape": [6], "indices_shape": )" + (nd ? "[8, 1]" : "[8]") +
                        R"(, "reduction": )" + quoted(reduction) + (nd ? "" : R"(, "index_dtype": "int32")") + "}");
        reference::Problem p;
        p.op = op;
        p.data_shape = {6};
        p.indices_shape = nd ? reference::Shape{8, 1} : reference::Shape{8};
        p.reduction = reduction;
        const auto expected = elements<T>(reduction == "max" ? kNanMax : kNanMin);
        for (bool in_place : {false, true}) {
            cases.push_back(checked_case(name, p, elements<T>(kNanData), kNanPositions, elements<T>(kNanUpdates), expected, 0,
                                         in_place, !nd));
        }
    }
}

void expect_nan_rules(const std::string& op) {
    std::vector<std::string> specs;
    std::vector<Case> cases;
    add_nan_cases<float>(op, "float32", specs, cases);
    add_nan_cases<double>(op, "float64", specs, cases);
    add_nan_cases<reference::Float16>(op, "float16", specs, cases);
    add_nan_cases<reference::BFloat16>(op, "bfloat16", specs, cases);
    expect_cases_pass(specs, cases);
}

// A NaN update wins against a number, a NaN in the output stays whatever comes after it, and a tie between -0 and
// +0 takes the update: every float type, max and min, into a new output and in place.
TEST(NanReductions, ScatterElements) { expect_nan_rules("ScatterElements"); }
TEST(NanReductions, ScatterND) { expect_nan_rules("ScatterND"); }

// --- integer reductions ---------------------------------------------------------------------------------------

template <typename T>
void add_integer_cases(const std::string& dtype, const std::vector<T>& data, const std::vector<int64_t>& positions,
                       const std::vector<T>& updates, const std::vector<std::vector<T>>& expected_by_reduction,
                       std::vector<std::string>& specs, std::vector<Case>& cases) {
    const std::vector<std::string> reductions{"max", "min", "add", "mul"};
    for (size_t r = 0; r < reductions.size(); ++r) {
        const std::string name = "int_" + dtype + "_" + reductions[r];
        const auto size = std::to_string(data.size()), count = std::to_string(positions.size());
        specs.push_back(R"({"name": )" + quoted(name) + R"(, "op": "ScatterElements", "dtype": )" + quoted(dtype) +
                        R"(, "data_shape": [)" + size + R"(], "indices_shape": [)" + count + R"(], "reduction": )" +
                        quoted(reductions[r]) + "}");
        reference::Problem p;
        p.op = "ScatterElements";
        p.data_shape = {static_cast<int64_t>(data.size())};
        p.indices_shape = {static_cast<int64_t>(positions.size())};
        p.reduction = reductions[r];
        cases.push_back(checked_case(name, p, data, positions, updates, expected_by_reduction[r], 0));
    }
}

// max and min compare as the type does (signed or unsigned, whatever the width); add and mul wrap in the type.
// --- indices broadcast from a smaller shape ---------------------------------------------------------------
// Indices the kernel takes smaller than indices_shape ("indices_broadcast_from"), broadcast as ONNX's Expand does:
// the result is the operator's on the expanded indices (the reference is fed them expanded here, by a plain
// expansion of its own), and one value out of range is refused with the output untouched.

// `from` (row-major, of shape `from_shape`, of the rank of `to`, each dimension `to`'s or 1) expanded to `to`.
std::vector<int64_t> expanded(const std::vector<int64_t>& from, const reference::Shape& from_shape, const reference::Shape& to) {
    std::vector<int64_t> out;
    for (int64_t flat = 0; flat < reference::count(to); ++flat) {
        int64_t rest = flat, at = 0, stride = 1;
        for (size_t i = to.size(); i-- > 0;) {
            const int64_t coordinate = rest % to[i];
            rest /= to[i];
            at += (from_shape[i] == 1 ? 0 : coordinate) * stride;
            stride *= from_shape[i];
        }
        out.push_back(from[static_cast<size_t>(at)]);
    }
    return out;
}

// A case of a broadcast kernel: checked_case on the expanded indices, then given the smaller ones.
Case broadcast_case(const std::string& kernel, const reference::Problem& problem, const reference::Shape& from_shape,
                    const std::vector<int64_t>& from, const std::vector<float>& data, const std::vector<float>& updates,
                    const std::vector<float>& expected, int status) {
    Case c = checked_case<float>(kernel, problem, data, expanded(from, from_shape, problem.indices_shape), updates,
                                 expected, status);
    c.indices = cprogram::bytes_of(from);
    return c;
}

std::vector<float> iota(size_t n, float first) {
    std::vector<float> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = first + static_cast<float>(i);
    return out;
}

TEST(BroadcastIndices, EachOperatorReadsTheSmallerIndicesWhereTheyBroadcast) {
    const std::vector<std::string> specs{
        // PyTorch's cache.index_copy(1, pos, x): the positions expanded along the other axes.
        R"({"name": "copy_at", "op": "ScatterElements", "dtype": "float32", "data_shape": [1, 8, 3], "indices_shape": [1, 2, 3], "indices_broadcast_from": [2, 1], "axis": 1})",
        R"({"name": "rows_at", "op": "Gather", "dtype": "float32", "data_shape": [5, 2], "indices_shape": [3, 2], "indices_broadcast_from": [3, 1]})",
        R"({"name": "nd_at", "op": "ScatterND", "dtype": "float32", "data_shape": [1, 6, 2], "indices_shape": [1, 3, 2], "indices_broadcast_from": [1, 1, 2]})",
        R"({"name": "ge_at", "op": "GatherElements", "dtype": "float32", "data_shape": [2, 4], "indices_shape": [2, 3], "indices_broadcast_from": [3], "axis": 1})"};
    const reference::Problem copy_at{"ScatterElements", {1, 8, 3}, {1, 2, 3}, 1};
    const reference::Problem rows_at{"Gather", {5, 2}, {3, 2}, 0};
    const reference::Problem nd_at{"ScatterND", {1, 6, 2}, {1, 3, 2}};
    const reference::Problem ge_at{"GatherElements", {2, 4}, {2, 3}, 1};
    // copy_at: rows 5 and -1 (7) of the cache take the two rows of updates.
    std::vector<float> copied = iota(24, 0);
    for (size_t j = 0; j < 3; ++j) copied[15 + j] = 100.0f + static_cast<float>(j), copied[21 + j] = 103.0f + static_cast<float>(j);
    // nd_at: all three tuples are (0, 4): the last update wins, no reduction.
    std::vector<float> nd(12, 0.0f);
    nd[8] = 5, nd[9] = 6;
    const std::vector<Case> cases{
        broadcast_case("copy_at", copy_at, {1, 2, 1}, {5, -1}, iota(24, 0), iota(6, 100), copied, 0),
        broadcast_case("copy_at", copy_at, {1, 2, 1}, {8, 0}, iota(24, 0), iota(6, 100), {}, -1),
        // rows_at: rows 4, 0 and -5 (0), each twice.
        broadcast_case("rows_at", rows_at, {3, 1}, {4, 0, -5}, iota(10, 0), {}, {8, 9, 8, 9, 0, 1, 0, 1, 0, 1, 0, 1}, 0),
        broadcast_case("rows_at", rows_at, {3, 1}, {4, 0, -6}, iota(10, 0), {}, {}, -1),
        broadcast_case("nd_at", nd_at, {1, 1, 2}, {0, 4}, std::vector<float>(12, 0.0f), iota(6, 1), nd, 0),
        broadcast_case("nd_at", nd_at, {1, 1, 2}, {0, 6}, std::vector<float>(12, 0.0f), iota(6, 1), {}, -1),
        // ge_at: columns 3, 0 and -1 (3) of each row.
        broadcast_case("ge_at", ge_at, {1, 3}, {3, 0, -1}, iota(8, 0), {}, {3, 0, 3, 7, 4, 7}, 0),
        broadcast_case("ge_at", ge_at, {1, 3}, {3, -5, 0}, iota(8, 0), {}, {}, -1)};
    expect_cases_pass(specs, cases);
}

// --- indices with a constant added ------------------------------------------------------------------------
// "indices_add": each index is the value the kernel takes (broadcast as above) plus start + sum(steps[i] * i_i).
// The reference is fed the indices expanded and added here, by plain loops of its own; each kernel is run on hand-
// worked cases and on every value of its source around the ends of the range, its status and output the reference's.

struct Added {
    int64_t start;
    std::vector<int64_t> steps;
};

// Constant components of each index tuple ("tuple_constants"): one item per component, nothing where read.
using TupleConstants = std::vector<std::optional<int64_t>>;

// The indices of `shape` made of `taken` (the components read, in order, of each tuple): each tuple's constant
// components inserted, and start + sum(steps[i] * position_i) added to the others (position_i along the last axis
// the component's place in the whole tuple).
std::vector<int64_t> plus(const std::vector<int64_t>& taken, const reference::Shape& shape, const Added& add,
                          const TupleConstants& constants = {}) {
    std::vector<int64_t> indices;
    size_t next = 0;
    for (int64_t flat = 0; flat < reference::count(shape); ++flat) {
        int64_t rest = flat, sum = add.start;
        for (size_t i = shape.size(); i-- > 0;) {
            sum += (rest % shape[i]) * add.steps[i];
            rest /= shape[i];
        }
        const auto constant = constants.empty() ? std::nullopt : constants[static_cast<size_t>(flat % shape.back())];
        indices.push_back(constant ? *constant : taken[next++] + sum);
    }
    return indices;
}

// A case of an added kernel: the reference's result on the indices expanded and added (and the tuples' constants
// inserted), then given the smaller ones.
Case added_case(const std::string& kernel, const reference::Problem& problem, const reference::Shape& from_shape,
                const std::vector<int64_t>& from, const Added& add, const std::vector<float>& data,
                const std::vector<float>& updates, bool int32 = false, const TupleConstants& constants = {}) {
    std::vector<float> expected;
    reference::Shape taken_shape = problem.indices_shape;
    if (!constants.empty()) taken_shape.back() = std::count(constants.begin(), constants.end(), std::nullopt);
    const auto indices = plus(expanded(from, from_shape, taken_shape), problem.indices_shape, add, constants);
    const bool ok = reference::run(problem, data, indices, updates, expected);
    Case c = checked_case<float>(kernel, problem, data, indices, updates, expected, ok ? 0 : -1, false, int32);
    c.indices = index_bytes(from, int32);
    c.label = kernel + " from";
    for (int64_t v : from) c.label += " " + std::to_string(v);
    return c;
}

TEST(AddedIndices, EachValueIsTheOneTakenPlusTheConstants) {
    const std::vector<std::string> specs{
        // Rotary positions: cos[arange(4) + past_len], past_len one value.
        R"({"name": "rotary", "op": "Gather", "dtype": "float32", "data_shape": [8, 2], "indices_shape": [4], "indices_broadcast_from": [1], "indices_add": {"start": 0, "steps": [1]}})",
        // The same as loops, two offsets each of 5 positions from -1.
        R"({"name": "rotary_loop", "op": "Gather", "dtype": "float32", "data_shape": [12, 2], "indices_shape": [2, 5], "indices_broadcast_from": [2, 1], "indices_add": {"start": -1, "steps": [0, 1]}, "unroll": "none"})",
        R"({"name": "rotary_by_4", "op": "Gather", "dtype": "float32", "data_shape": [12, 2], "indices_shape": [2, 8], "indices_broadcast_from": [2, 1], "indices_add": {"start": 3, "steps": [0, -1]}, "unroll": 4})",
        // ids - 1: one constant, no broadcast.
        R"({"name": "ids_minus_one", "op": "Gather", "dtype": "float32", "data_shape": [5, 3], "indices_shape": [3], "indices_add": -1})",
        // Tuples (row + i, col + 1 + i) from one (row, col), int32.
        R"({"name": "nd_add", "op": "ScatterND", "dtype": "float32", "index_dtype": "int32", "data_shape": [4, 6, 2], "indices_shape": [1, 3, 2], "indices_broadcast_from": [1, 1, 2], "indices_add": {"start": 0, "steps": [0, 1, 1]}})",
        R"({"name": "ge_add", "op": "GatherElements", "dtype": "float32", "data_shape": [2, 6], "indices_shape": [2, 3], "indices_broadcast_from": [2, 1], "indices_add": {"start": 2, "steps": [0, 2]}, "axis": 1})",
        R"({"name": "se_add", "op": "ScatterElements", "dtype": "float32", "data_shape": [1, 8, 3], "indices_shape": [1, 2, 3], "indices_broadcast_from": [2, 1], "indices_add": 2, "axis": 1, "reduction": "add"})"};
    const reference::Problem rotary{"Gather", {8, 2}, {4}, 0};
    const reference::Problem rotary_loop{"Gather", {12, 2}, {2, 5}, 0};
    const reference::Problem rotary_by_4{"Gather", {12, 2}, {2, 8}, 0};
    const reference::Problem ids{"Gather", {5, 3}, {3}, 0};
    const reference::Problem nd_add{"ScatterND", {4, 6, 2}, {1, 3, 2}};
    const reference::Problem ge_add{"GatherElements", {2, 6}, {2, 3}, 1};
    const reference::Problem se_add{"ScatterElements", {1, 8, 3}, {1, 2, 3}, 1, 0, "add"};
    std::vector<Case> cases{
        // Hand-worked: past_len 2 reads rows 2..5; -2 reads rows 6, 7, 0, 1 (each index wrapped on its own); 5
        // would read row 8: refused, output untouched.
        checked_case<float>("rotary", rotary, iota(16, 0), {2, 3, 4, 5}, {}, {4, 5, 6, 7, 8, 9, 10, 11}, 0),
        checked_case<float>("rotary", rotary, iota(16, 0), {-2, -1, 0, 1}, {}, {12, 13, 14, 15, 0, 1, 2, 3}, 0),
        checked_case<float>("rotary", rotary, iota(16, 0), {5, 6, 7, 8}, {}, {}, -1),
        // ids 1, 5, 0 minus one: rows 0, 4, -1 (4).
        checked_case<float>("ids_minus_one", ids, iota(15, 0), {0, 4, -1}, {}, {0, 1, 2, 12, 13, 14, 12, 13, 14}, 0)};
    cases[0].indices = cprogram::bytes_of(std::vector<int64_t>{2});
    cases[1].indices = cprogram::bytes_of(std::vector<int64_t>{-2});
    cases[2].indices = cprogram::bytes_of(std::vector<int64_t>{5});
    cases[3].indices = cprogram::bytes_of(std::vector<int64_t>{1, 5, 0});
    // Every value around the ends of each range, the others in range.
    for (int64_t v = -12; v <= 12; ++v) {
        cases.push_back(added_case("rotary", rotary, {1}, {v}, {0, {1}}, iota(16, 0), {}));
        cases.push_back(added_case("rotary_loop", rotary_loop, {2, 1}, {v, 3}, {-1, {0, 1}}, iota(24, 0), {}));
        cases.push_back(added_case("rotary_loop", rotary_loop, {2, 1}, {-3, v}, {-1, {0, 1}}, iota(24, 0), {}));
        cases.push_back(added_case("rotary_by_4", rotary_by_4, {2, 1}, {v, 1}, {3, {0, -1}}, iota(24, 0), {}));
        cases.push_back(added_case("ids_minus_one", ids, {3}, {v, 1, 0}, {-1, {0}}, iota(15, 0), {}));
        cases.push_back(added_case("nd_add", nd_add, {1, 1, 2}, {v, 0}, {0, {0, 1, 1}}, iota(48, 0), iota(6, 100), true));
        cases.push_back(added_case("nd_add", nd_add, {1, 1, 2}, {1, v}, {0, {0, 1, 1}}, iota(48, 0), iota(6, 100), true));
        cases.push_back(added_case("ge_add", ge_add, {2, 1}, {v, -2}, {2, {0, 2}}, iota(12, 0), {}));
        cases.push_back(added_case("se_add", se_add, {1, 2, 1}, {v, -1}, {2, {0, 0, 0}}, iota(24, 0), iota(6, 100)));
    }
    expect_cases_pass(specs, cases);
}

// --- index tuples with constant components ---------------------------------------------------------------------
// "tuple_constants": PyTorch's `c[:, pos] = x` is a ScatterND whose tuples are (0, pos[j]): the kernel takes pos and
// puts the 0 in itself. Hand-worked cases, then every value around the ends of the range against the reference.
TEST(TupleConstants, EachTupleIsTheConstantsAndTheValuesRead) {
    const std::vector<std::string> specs{
        R"({"name": "kv_at", "op": "ScatterND", "dtype": "float32", "data_shape": [1, 8, 2], "indices_shape": [1, 2, 2], "tuple_constants": [0, null]})",
        // The last batch row (-1), the positions broadcast over two rows of updates, as loops.
        R"({"name": "kv_last", "op": "ScatterND", "dtype": "float32", "data_shape": [2, 8, 2], "indices_shape": [2, 1, 2], "tuple_constants": [-1, null], "indices_broadcast_from": [1, 1, 1], "unroll": "none", "reduction": "add"})",
        // A constant in the middle of the tuple, the last component read plus 2, int32.
        R"({"name": "gnd_mid", "op": "GatherND", "dtype": "float32", "index_dtype": "int32", "data_shape": [3, 4, 5], "indices_shape": [2, 3], "tuple_constants": [null, 2, null], "indices_add": {"start": 0, "steps": [0, 1]}})",
        // batch_dims 1: the constant selects along data's axis 1.
        R"({"name": "gnd_batch", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3, 4], "indices_shape": [2, 2, 2], "batch_dims": 1, "tuple_constants": [1, null], "unroll": "full"})"};
    const reference::Problem kv_at{"ScatterND", {1, 8, 2}, {1, 2, 2}};
    const reference::Problem kv_last{"ScatterND", {2, 8, 2}, {2, 1, 2}, 0, 0, "add"};
    const reference::Problem gnd_mid{"GatherND", {3, 4, 5}, {2, 3}};
    const reference::Problem gnd_batch{"GatherND", {2, 3, 4}, {2, 2, 2}, 0, 1};
    // kv_at: rows 5 and -1 (7) of batch row 0 take the two rows of updates.
    std::vector<float> written = iota(16, 0);
    written[10] = 100, written[11] = 101, written[14] = 102, written[15] = 103;
    std::vector<Case> cases{checked_case<float>("kv_at", kv_at, iota(16, 0), {0, 5, 0, -1}, iota(4, 100), written, 0),
                            checked_case<float>("kv_at", kv_at, iota(16, 0), {0, 5, 0, 8}, iota(4, 100), {}, -1)};
    cases[0].indices = cprogram::bytes_of(std::vector<int64_t>{5, -1});
    cases[1].indices = cprogram::bytes_of(std::vector<int64_t>{5, 8});
    const Added none{0, {0, 0, 0}};
    for (int64_t v = -10; v <= 10; ++v) {
        cases.push_back(added_case("kv_at", kv_at, {1, 2, 1}, {v, 3}, none, iota(16, 0), iota(4, 100), false, {0, std::nullopt}));
        cases.push_back(added_case("kv_last", kv_last, {1, 1, 1}, {v}, none, iota(32, 0), iota(4, 100), false, {-1, std::nullopt}));
        cases.push_back(added_case("gnd_mid", gnd_mid, {2, 2}, {v, 1, -3, v}, {0, {0, 1}}, iota(60, 0), {}, true,
                                   {std::nullopt, 2, std::nullopt}));
        cases.push_back(added_case("gnd_batch", gnd_batch, {2, 2, 1}, {v, 0, 3, -v}, {0, {0, 0, 0}}, iota(24, 0), {}, false,
                                   {1, std::nullopt}));
    }
    expect_cases_pass(specs, cases);
}

// --- updates broadcast from a smaller shape -----------------------------------------------------------------
// "updates_broadcast_from": a scatter's updates the kernel takes smaller, read where they broadcast to (the decoder's
// one new key row written at every position). The reference is fed the updates expanded by the test's own expansion.
Case updates_case(const std::string& kernel, const reference::Problem& problem, const std::vector<int64_t>& indices,
                  const reference::Shape& from_shape, const std::vector<float>& from, const std::vector<float>& data) {
    std::vector<int64_t> index_of(from.size());
    for (size_t i = 0; i < from.size(); ++i) index_of[i] = static_cast<int64_t>(i);
    std::vector<float> updates;
    for (int64_t at : expanded(index_of, from_shape, reference::updates_shape(problem))) updates.push_back(from[static_cast<size_t>(at)]);
    std::vector<float> expected;
    const bool ok = reference::run(problem, data, indices, updates, expected);
    Case c = checked_case<float>(kernel, problem, data, indices, updates, expected, ok ? 0 : -1);
    c.updates = cprogram::bytes_of(from);
    c.label = kernel + " updates from " + std::to_string(from.size());
    return c;
}

TEST(UpdatesBroadcast, EachUpdateIsReadWhereItBroadcasts) {
    const std::vector<std::string> specs{
        // One row written at three positions of the cache's batch row 0 (the tuples' 0 a constant).
        R"({"name": "kv_row", "op": "ScatterND", "dtype": "float32", "data_shape": [1, 8, 4], "indices_shape": [1, 3, 2], "tuple_constants": [0, null], "updates_broadcast_from": [1, 1, 4]})",
        R"({"name": "nd_rows_add", "op": "ScatterND", "dtype": "float32", "data_shape": [6, 2], "indices_shape": [2, 2, 1], "updates_broadcast_from": [2, 1, 2], "reduction": "add", "unroll": "none"})",
        R"({"name": "se_row", "op": "ScatterElements", "dtype": "float32", "data_shape": [2, 8], "indices_shape": [2, 3], "axis": 1, "updates_broadcast_from": [2, 1], "unroll": "none"})",
        R"({"name": "se_col_max", "op": "ScatterElements", "dtype": "float32", "data_shape": [4, 3], "indices_shape": [2, 3], "axis": 0, "updates_broadcast_from": [3], "reduction": "max"})"};
    const reference::Problem kv_row{"ScatterND", {1, 8, 4}, {1, 3, 2}};
    const reference::Problem nd_rows_add{"ScatterND", {6, 2}, {2, 2, 1}, 0, 0, "add"};
    const reference::Problem se_row{"ScatterElements", {2, 8}, {2, 3}, 1};
    const reference::Problem se_col_max{"ScatterElements", {4, 3}, {2, 3}, 0, 0, "max"};
    // kv_row, hand-worked: positions 1, 6 and -1 (7) of batch row 0 each take the row 100..103.
    std::vector<float> written = iota(32, 0);
    for (size_t row : {1u, 6u, 7u}) {
        for (size_t j = 0; j < 4; ++j) written[row * 4 + j] = 100.0f + static_cast<float>(j);
    }
    std::vector<float> row_thrice = iota(4, 100);
    for (int k = 0; k < 2; ++k) row_thrice.insert(row_thrice.end(), row_thrice.begin(), row_thrice.begin() + 4);
    std::vector<Case> cases{checked_case<float>("kv_row", kv_row, iota(32, 0), {0, 1, 0, 6, 0, -1}, row_thrice, written, 0)};
    cases[0].updates = cprogram::bytes_of(iota(4, 100));
    cases[0].indices = cprogram::bytes_of(std::vector<int64_t>{1, 6, -1});
    cases.push_back(cases[0]);
    cases[1].indices = cprogram::bytes_of(std::vector<int64_t>{1, 6, 8});
    cases[1].expected_status = -1;
    cases[1].expected_output.assign(32 * 4, cprogram::kSentinel);
    for (int64_t v = -9; v <= 8; ++v) {
        Case c = updates_case("kv_row", kv_row, {0, v, 0, 2, 0, -v}, {1, 1, 4}, iota(4, 100), iota(32, 0));
        c.indices = cprogram::bytes_of(std::vector<int64_t>{v, 2, -v});
        cases.push_back(c);
        cases.push_back(updates_case("nd_rows_add", nd_rows_add, {v, 1, 1, -v}, {2, 1, 2}, iota(4, 50), iota(12, 0)));
        cases.push_back(updates_case("se_row", se_row, {v, 0, 7, 3, -v, 3}, {2, 1}, {-1, -2}, iota(16, 0)));
        cases.push_back(updates_case("se_col_max", se_col_max, {v, 0, 3, -1, -v, 2}, {1, 3}, {5, -5, 20}, iota(12, 0)));
    }
    expect_cases_pass(specs, cases);
}

TEST(IntegerReductions, MaxMinAddMulInTheType) {
    std::vector<std::string> specs;
    std::vector<Case> cases;
    // int8: element 0 meets -7 then 3; 1 meets 100; 2 meets -1; 3 meets 7.
    add_integer_cases<int8_t>("int8", {-5, 100, -128, 7}, {0, 0, 1, 2, 3}, {-7, 3, 100, -1, 7},
                              {{3, 100, -1, 7},          // max
                               {-7, 100, -128, 7},       // min
                               {-9, -56, 127, 14},       // add: 200 wraps to -56, -129 to 127
                               {105, 16, -128, 49}},     // mul: 10000 wraps to 16, 128 to -128
                              specs, cases);
    // uint16: 65535 meets 1; 0 meets 65535; 3 meets 2 then 5.
    add_integer_cases<uint16_t>("uint16", {65535, 0, 3}, {0, 1, 2, 2}, {1, 65535, 2, 5},
                                {{65535, 65535, 5}, {1, 0, 2}, {0, 65535, 10}, {65535, 0, 30}}, specs, cases);
    // 64 bits at the ends of their ranges: 2^63 is above 1 unsigned, INT64_MIN below 1 signed; 3 * INT64_MAX wraps
    // to INT64_MAX - 2 and 3 + INT64_MAX to INT64_MIN + 2.
    const uint64_t top = uint64_t{1} << 63;
    add_integer_cases<uint64_t>("uint64", {1, top}, {0, 1}, {top, 1}, {{top, top}, {1, 1}, {top + 1, top + 1}, {top, top}},
                                specs, cases);
    const int64_t lowest = std::numeric_limits<int64_t>::min(), highest = std::numeric_limits<int64_t>::max();
    add_integer_cases<int64_t>("int64", {1, lowest, 3}, {0, 1, 2}, {lowest, 1, highest},
                               {{1, 1, highest},
                                {lowest, lowest, 3},
                                {lowest + 1, lowest + 1, lowest + 2},
                                {lowest, lowest, highest - 2}},
                               specs, cases);
    expect_cases_pass(specs, cases);
}

// --- quantized tables: zero points below 0 --------------------------------------------------------------------

// A Gather of a quantized table, float32 out: each element (q - zero_point) * scale.
Case quantized_case(const std::string& kernel, const std::vector<int64_t>& indices, const std::vector<float>& expected) {
    Case c;
    c.kernel = kernel;
    c.label = kernel;
    c.constant_data = true;
    c.compare = Compare::Float;
    c.element_size = 4;
    c.indices = cprogram::bytes_of(indices);
    c.expected_output = cprogram::bytes_of(expected);
    return c;
}

// One zero point for the table (a literal in the code) and one per row (a table of bytes, read back with their
// sign), int8 and int4, each below 0: the difference q - zero_point adds its size.
TEST(QuantizedZeroPoints, NegativeOnesAreSubtracted) {
    const std::vector<int32_t> q8{-128, -3, 0, 127, 1, 2, 3, 4, -1, -2, -3, -4};  // 3 rows of 4
    // Zero point -3, scale 0.5: (q + 3) / 2.
    const std::vector<float> literal{/* row 2 */ 1, 0.5, 0, -0.5, /* row 0 */ -62.5, 0, 1.5, 65};
    // Zero points -3, 5, -128 and scales 0.5, 1, 0.25 per row.
    const std::vector<float> per_row{/* row 2 */ 31.75, 31.5, 31.25, 31, /* row 1 */ -4, -3, -2, -1, /* row 0 */ -62.5, 0, 1.5, 65};
    // int4 values, zero point -8 (one), scale 1: q + 8.
    const std::vector<int32_t> q4{-8, 7, 0, -1, 3, -3};  // 3 rows of 2
    const std::vector<float> int4{/* row 1 */ 8, 7, /* row 2 */ 11, 5, /* row 0 */ 0, 15};
    // The hand-worked values are ONNX's formula on every element (reference::dequantize), gathered.
    auto check = [](const std::vector<double>& table, const std::vector<int64_t>& rows, size_t row, const std::vector<float>& want) {
        std::vector<float> gathered;
        for (int64_t r : rows) {
            for (size_t i = 0; i < row; ++i) gathered.push_back(static_cast<float>(table[static_cast<size_t>(r) * row + i]));
        }
        EXPECT_EQ(gathered, want);
    };
    auto to_float = [](double v) { return static_cast<double>(static_cast<float>(v)); };
    check(reference::dequantize({3, 4}, q8, -1, 0, {0.5}, {-3}, to_float), {2, 0}, 4, literal);
    check(reference::dequantize({3, 4}, q8, 0, 0, {0.5, 1, 0.25}, {-3, 5, -128}, to_float), {2, 1, 0}, 4, per_row);
    check(reference::dequantize({3, 2}, q4, -1, 0, {1}, {-8}, to_float), {1, 2, 0}, 2, int4);
    const std::string table8 = R"("data": [[-128, -3, 0, 127], [1, 2, 3, 4], [-1, -2, -3, -4]])";
    expect_cases_pass(
        {R"({"name": "q_literal", "op": "Gather", "dtype": "float32", "data_shape": [3, 4], "indices_shape": [2], )" + table8 +
             R"(, "quantization": {"type": "int8", "scales": 0.5, "zero_points": -3}})",
         R"({"name": "q_per_row", "op": "Gather", "dtype": "float32", "data_shape": [3, 4], "indices_shape": [3], )" + table8 +
             R"(, "quantization": {"type": "int8", "axis": 0, "scales": [0.5, 1, 0.25], "zero_points": [-3, 5, -128]}})",
         R"({"name": "q_int4", "op": "Gather", "dtype": "float32", "data_shape": [3, 2], "indices_shape": [3],
             "data": [[-8, 7], [0, -1], [3, -3]], "quantization": {"type": "int4", "scales": 1, "zero_points": -8}})"},
        {quantized_case("q_literal", {2, 0}, literal), quantized_case("q_per_row", {2, 1, -3}, per_row),
         quantized_case("q_int4", {1, -1, 0}, int4)});
}

// --- constant data of zero bytes ------------------------------------------------------------------------------

// A scatter whose constant data is all zero bytes starts its output as zeros (a memset, no table): every element
// the updates leave alone must be 0, whatever the output buffer held. -0.0 is not zero bytes: it stays -0.0.
TEST(ZeroConstantData, TheOutputStartsAsZeros) {
    auto scatter = [](const std::string& kernel, const std::vector<int64_t>& indices, const std::vector<uint8_t>& updates,
                      const std::vector<uint8_t>& expected, size_t element_size, Compare compare) {
        Case c;
        c.kernel = kernel;
        c.label = kernel;
        c.has_updates = true;
        c.constant_data = true;
        c.compare = compare;
        c.element_size = element_size;
        c.indices = cprogram::bytes_of(indices);
        c.updates = updates;
        c.expected_output = expected;
        return c;
    };
    const std::vector<int32_t> ints_expected{9, 0, 0, 7};
    const std::vector<float> floats_expected{0.0f, 2.5f, 0.0f, 0.0f, 1.5f, 0.0f};  // add: 0 + 2.5, 0 + 1.5
    const std::vector<float> negative_zero_expected{-0.0f, 4.0f, -0.0f};
    expect_cases_pass(
        {R"({"name": "zeros_nd", "op": "ScatterND", "dtype": "int32", "data_shape": [4], "indices_shape": [2, 1],
             "data": [0, 0, 0, 0]})",
         R"({"name": "zeros_add", "op": "ScatterElements", "dtype": "float32", "data_shape": [2, 3], "indices_shape": [2, 1],
             "axis": 1, "reduction": "add", "data": [[0, 0, 0], [0, 0, 0]]})",
         R"({"name": "negative_zeros", "op": "ScatterND", "dtype": "float32", "data_shape": [3], "indices_shape": [1, 1],
             "data": [-0.0, -0.0, -0.0]})"},
        {scatter("zeros_nd", {3, 0}, cprogram::bytes_of(std::vector<int32_t>{7, 9}), cprogram::bytes_of(ints_expected), 4,
                 Compare::Bytes),
         scatter("zeros_add", {1, -2}, cprogram::bytes_of(std::vector<float>{2.5f, 1.5f}), cprogram::bytes_of(floats_expected), 4,
                 Compare::Float),
         scatter("negative_zeros", {1}, cprogram::bytes_of(std::vector<float>{4.0f}),
                 cprogram::bytes_of(negative_zero_expected), 4, Compare::Float)});
}

// --- TensorScatter's write positions -----------------------------------------------------------------------------

// Circular: row j of a batch's update goes to (w mod max + j) mod max, past the cache's end to its start, for any
// write index w >= 0 up to INT64_MAX; a negative one is refused. Linear: w + j, w at most max - length. A cache of 5
// (a modulo) and of 4 (a mask), into a new output and in place.
TEST(CircularWrites, PositionsWrapAtTheCachesEnd) {
    auto problem = [](const reference::Shape& cache, const reference::Shape& update, const std::string& mode) {
        reference::Problem p;
        p.op = "TensorScatter";
        p.data_shape = cache;
        p.indices_shape = {cache[0]};
        p.update_shape = update;
        p.axis = 1;
        p.mode = mode;
        return p;
    };
    // Cache [2, 5, 2] of int16: batch b, position s, element e holds 100 b + 10 s + e; updates [2, 3, 2] hold
    // -(100 b + 10 j + e) - 1.
    std::vector<int16_t> cache, updates;
    for (int b = 0; b < 2; ++b) {
        for (int s = 0; s < 5; ++s) {
            for (int e = 0; e < 2; ++e) cache.push_back(static_cast<int16_t>(100 * b + 10 * s + e));
        }
        for (int j = 0; j < 3; ++j) {
            for (int e = 0; e < 2; ++e) updates.push_back(static_cast<int16_t>(-(100 * b + 10 * j + e) - 1));
        }
    }
    // The cache with batch b's positions `at` (in update order) written.
    auto written = [&](const std::vector<int>& at0, const std::vector<int>& at1) {
        std::vector<int16_t> out = cache;
        const std::vector<int> at[2] = {at0, at1};
        for (int b = 0; b < 2; ++b) {
            for (int j = 0; j < static_cast<int>(at[b].size()); ++j) {
                for (int e = 0; e < 2; ++e) out[static_cast<size_t>(b * 10 + at[b][static_cast<size_t>(j)] * 2 + e)] = updates[static_cast<size_t>(b * 6 + j * 2 + e)];
            }
        }
        return out;
    };
    const auto circular = problem({2, 5, 2}, {2, 3, 2}, "circular");
    const int64_t top = std::numeric_limits<int64_t>::max();  // 2^63 - 1 = 5 * 1844674407370955161 + 2
    std::vector<Case> cases{
        checked_case("ring5", circular, cache, {3, 7}, updates, written({3, 4, 0}, {2, 3, 4}), 0),
        checked_case("ring5", circular, cache, {3, 7}, updates, written({3, 4, 0}, {2, 3, 4}), 0, true),
        checked_case("ring5", circular, cache, {top, 4}, updates, written({2, 3, 4}, {4, 0, 1}), 0),
        checked_case("ring5", circular, cache, {0, -1}, updates, {}, -1),
        checked_case("ring5", circular, cache, {0, -1}, updates, {}, -1, true)};
    // A cache of 4, one batch row: write index 6 is position 2, then 3 and 0.
    const auto ring4 = problem({1, 4, 1}, {1, 3, 1}, "circular");
    const std::vector<int16_t> cache4{10, 11, 12, 13}, updates4{-1, -2, -3};
    cases.push_back(checked_case("ring4", ring4, cache4, {6}, updates4, std::vector<int16_t>{-3, 11, -1, -2}, 0));
    // Linear: positions 3 and 4 of 5 for write index 3; 4 is past 5 - 2.
    const auto linear = problem({1, 5, 1}, {1, 2, 1}, "linear");
    const std::vector<int16_t> cache5{10, 11, 12, 13, 14}, updates2{-1, -2};
    cases.push_back(checked_case("line5", linear, cache5, {3}, updates2, std::vector<int16_t>{10, 11, 12, -1, -2}, 0, true));
    cases.push_back(checked_case("line5", linear, cache5, {4}, updates2, {}, -1, true));
    expect_cases_pass({R"({"name": "ring5", "op": "TensorScatter", "dtype": "int16", "data_shape": [2, 5, 2], "indices_shape": [2],
                          "updates_shape": [2, 3, 2], "mode": "circular"})",
                       R"({"name": "ring4", "op": "TensorScatter", "dtype": "int16", "data_shape": [1, 4, 1], "indices_shape": [1],
                          "updates_shape": [1, 3, 1], "mode": "circular"})",
                       R"({"name": "line5", "op": "TensorScatter", "dtype": "int16", "data_shape": [1, 5, 1], "indices_shape": [1],
                          "updates_shape": [1, 2, 1]})"},
                      cases);
}

// --- index checks and the negative wrap -------------------------------------------------------------------------

// A Gather of one row from 5: the index at each edge of [-5, 4] and just past it, and the ends of its type. A
// negative index counts from the back; one out of range returns -1 with the output untouched. int32 and int64
// indices; the checks written out (auto) and in a loop (none), two indices a call.
TEST(IndexChecks, EdgesAndNegativeIndices) {
    std::vector<std::string> specs;
    std::vector<Case> cases;
    const std::vector<int16_t> data{0, 1, 10, 11, 20, 21, 30, 31, 40, 41};  // [5, 2]
    reference::Problem p;
    p.op = "Gather";
    p.data_shape = {5, 2};
    p.indices_shape = {2};
    auto rows = [&](int64_t a, int64_t b) {
        return std::vector<int16_t>{data[static_cast<size_t>(2 * a)], data[static_cast<size_t>(2 * a + 1)],
                                    data[static_cast<size_t>(2 * b)], data[static_cast<size_t>(2 * b + 1)]};
    };
    for (const std::string index_dtype : {"int32", "int64"}) {
        const bool int32 = index_dtype == "int32";
        const int64_t low = int32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
        const int64_t high = int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
        for (const std::string unroll : {"auto", "none"}) {
            const std::string name = "edges_" + index_dtype + "_" + unroll;
            specs.push_back(R"({"name": )" + quoted(name) + R"(, "op": "Gather", "dtype": "int16", "data_shape": [5, 2],
                               "indices_shape": [2], "index_dtype": )" + quoted(index_dtype) + R"(, "unroll": )" + quoted(unroll) + "}");
            cases.push_back(checked_case<int16_t>(name, p, data, {-5, 4}, {}, rows(0, 4), 0, false, int32));
            cases.push_back(checked_case<int16_t>(name, p, data, {-1, 0}, {}, rows(4, 0), 0, false, int32));
            cases.push_back(checked_case<int16_t>(name, p, data, {-2, 3}, {}, rows(3, 3), 0, false, int32));
            for (int64_t outside : {int64_t{5}, int64_t{-6}, low, high, low + 1, int64_t{6}}) {
                cases.push_back(checked_case<int16_t>(name, p, data, {0, outside}, {}, {}, -1, false, int32));
                cases.push_back(checked_case<int16_t>(name, p, data, {outside, 1}, {}, {}, -1, false, int32));
            }
        }
    }
    expect_cases_pass(specs, cases);
}

// --- run-time counts -------------------------------------------------------------------------------------------

// A Gather whose count of index rows is passed at run time, bound 3: rows up to the count are gathered, the output
// beyond them left alone, the index rows beyond it never read (they hold INT64_MIN); a count above the bound
// returns -2 with the output untouched.
TEST(RunTimeCounts, TheCountIsBoundedAndBoundsTheRows) {
    const std::vector<int16_t> data{0, 1, 10, 11, 20, 21, 30, 31};  // [4, 2]
    auto counted = [&](uint32_t count, const std::vector<int64_t>& indices, const std::vector<int16_t>& expected, int status) {
        Case c;
        c.kernel = "counted";
        c.label = "counted, count " + std::to_string(count);
        c.count = count;
        c.compare = Compare::Bytes;
        c.element_size = 2;
        c.data = cprogram::bytes_of(data);
        c.indices = cprogram::bytes_of(indices);
        std::vector<uint8_t> out = cprogram::bytes_of(expected);
        out.resize(3 * 2 * sizeof(int16_t), cprogram::kSentinel);  // the rows beyond the count: untouched
        c.expected_status = status;
        c.expected_output = out;
        return c;
    };
    const int64_t never = std::numeric_limits<int64_t>::min();
    expect_cases_pass({R"({"name": "counted", "op": "Gather", "dtype": "int16", "data_shape": [4, 2], "indices_shape": [3],
                          "count": "runtime"})"},
                      {counted(3, {3, -4, 1}, {30, 31, 0, 1, 10, 11}, 0), counted(2, {-1, 2, never}, {30, 31, 20, 21}, 0),
                       counted(0, {never, never, never}, {}, 0), counted(4, {0, 1, 2}, {}, -2),
                       counted(UINT32_MAX, {0, 1, 2}, {}, -2), counted(2, {0, 4, never}, {}, -1)});
}

}  // namespace

// --- run-time extents -------------------------------------------------------------------------------------------

namespace extents {

struct Kernel {
    std::string name;
    reference::Shape bound;    // data_shape: the bounds
    reference::Shape indices;  // indices_shape
    int64_t axis;
    std::vector<int64_t> runtime;  // "runtime_axes", as the spec gives them
    bool int32;
    std::string unroll;
};

// `bound` with each run-time axis' extent replaced by `extents` (in the order of the axes, normalized, ascending).
reference::Shape passed(const Kernel& k, const std::vector<uint32_t>& extents) {
    reference::Shape shape = k.bound;
    std::vector<size_t> axes;
    for (int64_t a : k.runtime) axes.push_back(static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(k.bound.size()) : a));
    std::sort(axes.begin(), axes.end());
    for (size_t i = 0; i < axes.size(); ++i) shape[axes[i]] = extents[i];
    return shape;
}

// A case of `k` at `extents`: data of those extents (distinct values), the indices given, and the reference's
// Gather of them (status 0), or the error: -1 for an index out of range, -4, -5 for the first extent, the second
// above its bound; the output buffer, of the extents passed, untouched then.
Case at(const Kernel& k, const std::vector<uint32_t>& extents, const std::vector<int64_t>& indices) {
    reference::Problem p;
    p.op = "Gather";
    p.data_shape = passed(k, extents);
    p.indices_shape = k.indices;
    p.axis = k.axis;
    std::vector<float> data(static_cast<size_t>(reference::count(p.data_shape)));
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i) + 0.5f;
    std::vector<float> output;
    int status = 0;
    std::vector<size_t> axes;
    for (int64_t a : k.runtime) axes.push_back(static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(k.bound.size()) : a));
    std::sort(axes.begin(), axes.end());
    for (size_t i = 0; i < axes.size() && status == 0; ++i) {
        if (extents[i] > k.bound[axes[i]]) status = -4 - static_cast<int>(i);
    }
    if (status == 0 && !reference::run(p, data, indices, {}, output)) status = -1;
    Case c;
    c.kernel = k.name;
    c.label = k.name + " at extents";
    for (uint32_t e : extents) c.label += " " + std::to_string(e);
    c.data_dims = extents;
    c.compare = Compare::Float;
    c.element_size = sizeof(float);
    c.data = cprogram::bytes_of(data);
    c.indices = index_bytes(indices, k.int32);
    c.expected_status = status;
    if (status == 0) c.expected_output = cprogram::bytes_of(output);
    else c.expected_output.assign(static_cast<size_t>(reference::count(reference::output_shape(p))) * sizeof(float), cprogram::kSentinel);
    return c;
}

}  // namespace extents

// Gathers whose data has axes of extents passed at run time ("runtime_axes"), data and output dense at those
// extents: first a hand-worked one (a [2, h, w] heatmap's rows picked along the run-time axis 1), then each form at
// extents from 0 to the bound and one above it, indices at both ends of the axis passed and just outside it. Each
// tensor is its own exactly-sized block at the extents passed, so a read or write beyond them fails under ASan.
TEST(RunTimeExtents, StridesAndChecksFollowTheExtentsPassed) {
    using extents::Kernel;
    // Hand-worked: data [2, 3, 2] (of bounds [2, 4, 5]) = {0.5 .. 11.5}; rows {2, -3} of each of the 2 planes.
    const Kernel rows{"extent_rows", {2, 4, 5}, {2}, 1, {1, 2}, false, "auto"};
    const Case worked = extents::at(rows, {3, 2}, {2, -3});
    const std::vector<float> by_hand{4.5f, 5.5f, 0.5f, 1.5f, 10.5f, 11.5f, 6.5f, 7.5f};
    EXPECT_EQ(worked.expected_output, cprogram::bytes_of(by_hand)) << "the reference disagrees with the hand-worked rows";
    const std::vector<Kernel> kernels{
        rows,
        {"extent_columns", {3, 4, 7}, {5}, 2, {2}, false, "auto"},        // along a run-time last axis
        {"extent_inner", {2, 5, 3, 4}, {2, 2}, 1, {2, 3}, true, "auto"},  // a literal axis, two run-time ones after it
        {"extent_first", {6, 3}, {3}, 0, {0, 1}, true, "none"},           // along axis 0, every axis run-time
        {"extent_back", {2, 3, 4}, {2}, -1, {-1}, false, "full"},         // negative axis and run-time axis
        {"extent_three", {2, 3, 2, 3}, {2}, 1, {1, 2, 3}, false, "4"},    // three run-time axes: a product of products
    };
    std::vector<std::string> specs;
    std::vector<Case> cases{worked};
    for (const Kernel& k : kernels) {
        std::string axes;
        for (int64_t a : k.runtime) axes += (axes.empty() ? "" : ", ") + std::to_string(a);
        std::string data_shape, indices_shape;
        for (int64_t d : k.bound) data_shape += (data_shape.empty() ? "" : ", ") + std::to_string(d);
        for (int64_t d : k.indices) indices_shape += (indices_shape.empty() ? "" : ", ") + std::to_string(d);
        specs.push_back(R"({"name": )" + quoted(k.name) + R"(, "op": "Gather", "dtype": "float32", "data_shape": [)" + data_shape +
                        R"(], "indices_shape": [)" + indices_shape + R"(], "axis": )" + std::to_string(k.axis) +
                        R"(, "runtime_axes": [)" + axes + R"(], "index_dtype": )" + quoted(k.int32 ? "int32" : "int64") +
                        R"(, "unroll": )" + (std::isdigit(static_cast<unsigned char>(k.unroll[0])) ? k.unroll : quoted(k.unroll)) + "}");
        const auto rank = static_cast<int64_t>(k.bound.size());
        const auto axis = static_cast<size_t>(k.axis < 0 ? k.axis + rank : k.axis);
        const size_t n = static_cast<size_t>(reference::count(k.indices));
        std::vector<std::vector<uint32_t>> sets;
        std::vector<uint32_t> bounds, ones, mixed, zero, above;
        std::vector<size_t> listed;
        for (int64_t a : k.runtime) listed.push_back(static_cast<size_t>(a < 0 ? a + rank : a));
        std::sort(listed.begin(), listed.end());
        for (size_t i = 0; i < listed.size(); ++i) {
            const auto b = static_cast<uint32_t>(k.bound[listed[i]]);
            bounds.push_back(b);
            ones.push_back(1);
            mixed.push_back(i % 2 ? b : (b + 1) / 2);
            zero.push_back(i + 1 == listed.size() ? 0 : b);  // the last extent 0: nothing to copy
            above.push_back(i + 1 == listed.size() ? b + 1 : b);
        }
        for (const auto& set : {bounds, ones, mixed}) {
            const int64_t s = extents::passed(k, set)[axis];
            std::vector<int64_t> ends(n), outside(n);
            for (size_t i = 0; i < n; ++i) ends[i] = i % 2 ? s - 1 : -s;
            cases.push_back(extents::at(k, set, ends));
            for (size_t i = 0; i < n; ++i) outside[i] = i + 1 == n ? (n % 2 ? s : -s - 1) : 0;
            cases.push_back(extents::at(k, set, outside));
        }
        const int64_t s0 = extents::passed(k, zero)[axis];
        cases.push_back(extents::at(k, zero, std::vector<int64_t>(n, s0 == 0 ? 0 : s0 - 1)));  // 0 wherever the axis is
        cases.push_back(extents::at(k, above, std::vector<int64_t>(n, 0)));
    }
    expect_cases_pass(specs, cases);
}
