// kernelgen::lower() on hand-worked cases. Every expectation below is derived by hand from the ONNX
// definition of the operator and the IndexedCopy contract (codegen/ir/indexed_copy.h): for each loop point,
// one index tuple at sum(loop * indices_stride) + component.offset selects the block that is copied
// between sum(loop * source_stride) and sum(loop * destination_stride), the indexed side adding
// sum(value * component.stride). Unit loops disappear and loops that walk every tensor contiguously merge.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/lower/lowered.h"
#include "kernelgen/spec.h"

namespace {

using kernelgen::IndexedCopy;

// Resolves one kernel object (which must be valid) and lowers it.
IndexedCopy lower_json(const std::string& text) {
    std::vector<kernelgen::Diagnostic> diagnostics;
    auto kernels = kernelgen::parse_spec_text(text, "lowering.json", diagnostics);
    for (const auto& diagnostic : diagnostics) ADD_FAILURE() << diagnostic.str();
    if (kernels.size() != 1) {
        ADD_FAILURE() << "expected exactly one kernel";
        return IndexedCopy{};
    }
    return kernelgen::lower(kernels.front()).copy;
}

// Loops and components as text, "{extent, indices_stride, source_stride, destination_stride}" and
// "{offset, bound, stride}", so that a mismatch prints readably.
std::string loops_of(const IndexedCopy& copy) {
    std::string out;
    for (const auto& loop : copy.loops) {
        out += "{" + std::to_string(loop.extent) + ", " + std::to_string(loop.indices_stride) + ", " +
               std::to_string(loop.source_stride) + ", " + std::to_string(loop.destination_stride) + "}";
    }
    return out;
}

std::string components_of(const IndexedCopy& copy) {
    std::string out;
    for (const auto& component : copy.components) {
        out += "{" + std::to_string(component.offset) + ", " + std::to_string(component.bound) + ", " +
               std::to_string(component.stride) + "}";
    }
    return out;
}

struct Sizes {
    uint64_t data, indices, updates, output;
};

void expect_sizes(const IndexedCopy& copy, Sizes sizes) {
    EXPECT_EQ(copy.data_size, sizes.data);
    EXPECT_EQ(copy.indices_size, sizes.indices);
    EXPECT_EQ(copy.updates_size, sizes.updates);
    EXPECT_EQ(copy.output_size, sizes.output);
}

}  // namespace

// --- Gather ---------------------------------------------------------------------------------------------

TEST(Lowering, GatherDocExampleAxis0) {
    // data [3, 2], indices [2, 2], axis 0: output[i0, i1, :] = data[indices[i0, i1], :].
    // Nothing precedes the axis, so one loop over the 4 index values: each reads one index (indices
    // stride 1), its row is found by the index alone (source stride 0), and rows of 2 land one after
    // another in output (destination stride 2). The index selects a row: bound 3, stride 2.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32",
                                          "data_shape": [3, 2], "indices_shape": [2, 2], "axis": 0})json");
    EXPECT_EQ(copy.indexed, IndexedCopy::Indexed::Source);
    EXPECT_EQ(loops_of(copy), "{4, 1, 0, 2}");
    EXPECT_EQ(components_of(copy), "{0, 3, 2}");
    EXPECT_EQ(copy.block, 2u);
    EXPECT_EQ(copy.tuple_count, 4u);
    EXPECT_EQ(copy.copy_count(), 4u);
    EXPECT_EQ(copy.reduction, kernelgen::Reduction::None);
    EXPECT_FALSE(copy.copy_data_first);
    expect_sizes(copy, {6, 4, 0, 8});
}

TEST(Lowering, GatherInnerAxisOfRank4) {
    // data [5, 4, 3, 2], indices [3], axis 1: output[a0, i0, :, :] = data[a0, indices[i0], :, :].
    // The block is a [3, 2] slab of 6 elements. The outer loop over a0 (5) reuses the same 3 indices
    // (indices stride 0), steps one whole [4, 3, 2] slice of data (24) and one [3, 3, 2] slice of output
    // (18). The inner loop over i0 (3) reads the next index and writes the next slab (6).
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "int16",
                                          "data_shape": [5, 4, 3, 2], "indices_shape": [3], "axis": 1})json");
    EXPECT_EQ(loops_of(copy), "{5, 0, 24, 18}{3, 1, 0, 6}");
    EXPECT_EQ(components_of(copy), "{0, 4, 6}");
    EXPECT_EQ(copy.block, 6u);
    EXPECT_EQ(copy.tuple_count, 3u);
    EXPECT_EQ(copy.copy_count(), 15u);
    expect_sizes(copy, {120, 3, 0, 90});
}

TEST(Lowering, GatherLastAxisCopiesSingleElements) {
    // ONNX Gather example 2: data [3, 3], indices [1, 2], axis 1: output[a0, i0, i1] = data[a0, indices[i0, i1]].
    // Block of one element; per row a0, 2 elements out of a row of 3.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32",
                                          "data_shape": [3, 3], "indices_shape": [1, 2], "axis": -1})json");
    EXPECT_EQ(loops_of(copy), "{3, 0, 3, 2}{2, 1, 0, 1}");
    EXPECT_EQ(components_of(copy), "{0, 3, 1}");
    EXPECT_EQ(copy.block, 1u);
    EXPECT_EQ(copy.tuple_count, 2u);
    EXPECT_EQ(copy.copy_count(), 6u);
    expect_sizes(copy, {9, 2, 0, 6});
}

TEST(Lowering, GatherByAScalarIndexIsOneBlock) {
    // data [5, 4], rank-0 indices, axis 0: output[:] = data[indices[], :]: one row, no loop at all.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "uint8",
                                          "data_shape": [5, 4], "indices_shape": []})json");
    EXPECT_EQ(loops_of(copy), "");
    EXPECT_EQ(components_of(copy), "{0, 5, 4}");
    EXPECT_EQ(copy.block, 4u);
    EXPECT_EQ(copy.tuple_count, 1u);
    EXPECT_EQ(copy.copy_count(), 1u);
    expect_sizes(copy, {20, 1, 0, 4});
}

TEST(Lowering, GatherAlongAnAxisOfOneFoldsIntoOneBlock) {
    // data [3, 1, 2], indices [1], axis 1: the only valid index (0 or -1) selects all of data, so the
    // outer loop (3 steps of 2 contiguous elements in both tensors, one index) folds into a block of 6.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32",
                                          "data_shape": [3, 1, 2], "indices_shape": [1], "axis": 1})json");
    EXPECT_EQ(loops_of(copy), "");
    EXPECT_EQ(components_of(copy), "{0, 1, 2}");
    EXPECT_EQ(copy.block, 6u);
    EXPECT_EQ(copy.tuple_count, 1u);
    EXPECT_EQ(copy.copy_count(), 1u);
    expect_sizes(copy, {6, 1, 0, 6});
}

// --- GatherElements -------------------------------------------------------------------------------------

TEST(Lowering, GatherElementsDocExample2) {
    // data [3, 3], indices [2, 3], axis 0: output[i, j] = data[indices[i, j], j].
    // One element per copy. Along i: indices and output step a row of 3, data does not move (the index
    // picks the row). Along j: every tensor steps one element. The rows of indices (3) and data (3)
    // differ in step from each other, so the loops stay apart. The index selects a data row: stride 3.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherElements", "dtype": "int32",
                                          "data_shape": [3, 3], "indices_shape": [2, 3], "axis": 0})json");
    EXPECT_EQ(copy.indexed, IndexedCopy::Indexed::Source);
    EXPECT_EQ(loops_of(copy), "{2, 3, 0, 3}{3, 1, 1, 1}");
    EXPECT_EQ(components_of(copy), "{0, 3, 3}");
    EXPECT_EQ(copy.block, 1u);
    EXPECT_EQ(copy.tuple_count, 6u);
    EXPECT_EQ(copy.copy_count(), 6u);
    expect_sizes(copy, {9, 6, 0, 6});
}

TEST(Lowering, GatherElementsLastAxisWithNarrowerIndices) {
    // data [3, 4], indices [2, 2], axis 1: output[i, j] = data[i, indices[i, j]].
    // Along i: indices and output step 2, data steps its row of 4; along j only indices and output move.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherElements", "dtype": "int32",
                                          "data_shape": [3, 4], "indices_shape": [2, 2], "axis": 1})json");
    EXPECT_EQ(loops_of(copy), "{2, 2, 4, 2}{2, 1, 0, 1}");
    EXPECT_EQ(components_of(copy), "{0, 4, 1}");
    EXPECT_EQ(copy.tuple_count, 4u);
    expect_sizes(copy, {12, 4, 0, 4});
}

TEST(Lowering, GatherElementsMergesContiguousTrailingDims) {
    // data [4, 3, 5], indices [2, 3, 5], axis 0: out[i][j][k] = data[index[i][j][k]][j][k].
    // Off the axis indices and data have the same extents, so the j and k loops walk indices, data and
    // output contiguously (strides 5 and 1 everywhere) and merge into one loop of 15 elements.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherElements", "dtype": "float64",
                                          "data_shape": [4, 3, 5], "indices_shape": [2, 3, 5]})json");
    EXPECT_EQ(loops_of(copy), "{2, 15, 0, 15}{15, 1, 1, 1}");
    EXPECT_EQ(components_of(copy), "{0, 4, 15}");
    EXPECT_EQ(copy.block, 1u);
    EXPECT_EQ(copy.tuple_count, 30u);
    EXPECT_EQ(copy.copy_count(), 30u);
    expect_sizes(copy, {60, 30, 0, 30});
}

// --- GatherND -------------------------------------------------------------------------------------------

TEST(Lowering, GatherNDFullTuplesSelectElements) {
    // ONNX GatherND example 1: data [2, 2], indices [2, 2]: output[i] = data[indices[i, 0], indices[i, 1]].
    // Tuples of 2 values (indices stride 2), each selecting one element: components at offsets 0 and 1
    // with data's strides 2 and 1.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherND", "dtype": "int32",
                                          "data_shape": [2, 2], "indices_shape": [2, 2]})json");
    EXPECT_EQ(copy.indexed, IndexedCopy::Indexed::Source);
    EXPECT_EQ(loops_of(copy), "{2, 2, 0, 1}");
    EXPECT_EQ(components_of(copy), "{0, 2, 2}{1, 2, 1}");
    EXPECT_EQ(copy.block, 1u);
    EXPECT_EQ(copy.tuple_count, 2u);
    expect_sizes(copy, {4, 4, 0, 2});
}

TEST(Lowering, GatherNDDocExample5BatchDims1) {
    // data [2, 2, 2], indices [2, 1], batch_dims 1: output[b, :] = data[b, indices[b, 0], :].
    // Per batch b: one index (stride 1), data moves a batch of 4, output a row of 2; block 2.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherND", "dtype": "int32",
                                          "data_shape": [2, 2, 2], "indices_shape": [2, 1], "batch_dims": 1})json");
    EXPECT_EQ(loops_of(copy), "{2, 1, 4, 2}");
    EXPECT_EQ(components_of(copy), "{0, 2, 2}");
    EXPECT_EQ(copy.block, 2u);
    EXPECT_EQ(copy.tuple_count, 2u);
    expect_sizes(copy, {8, 2, 0, 4});
}

TEST(Lowering, GatherNDBatchDims1WithSeveralTuplesPerBatch) {
    // data [2, 3, 4], indices [2, 5, 1], batch_dims 1: output [2, 5, 4],
    // output[b, i, :] = data[b, indices[b, i, 0], :].
    // Batch loop: indices step 5 tuples, data a [3, 4] batch (12), output a [5, 4] batch (20).
    // Tuple loop: next index, same data batch (0), next row of output (4).
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherND", "dtype": "float32",
                                          "data_shape": [2, 3, 4], "indices_shape": [2, 5, 1], "batch_dims": 1})json");
    EXPECT_EQ(loops_of(copy), "{2, 5, 12, 20}{5, 1, 0, 4}");
    EXPECT_EQ(components_of(copy), "{0, 3, 4}");
    EXPECT_EQ(copy.block, 4u);
    EXPECT_EQ(copy.tuple_count, 10u);
    EXPECT_EQ(copy.copy_count(), 10u);
    expect_sizes(copy, {24, 10, 0, 40});
}

TEST(Lowering, GatherNDMergesTupleDims) {
    // data [5, 4], indices [2, 3, 1]: output [2, 3, 4], output[i, j, :] = data[indices[i, j, 0], :].
    // The i and j loops walk indices (3, 1) and output (12, 4) contiguously, and data not at all:
    // they merge into one loop of 6 tuples.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherND", "dtype": "float32",
                                          "data_shape": [5, 4], "indices_shape": [2, 3, 1]})json");
    EXPECT_EQ(loops_of(copy), "{6, 1, 0, 4}");
    EXPECT_EQ(components_of(copy), "{0, 5, 4}");
    EXPECT_EQ(copy.block, 4u);
    EXPECT_EQ(copy.tuple_count, 6u);
    expect_sizes(copy, {20, 6, 0, 24});
}

TEST(Lowering, GatherNDPartialTupleAfterABatchOfOne) {
    // data [1, 3, 4, 2], indices [1, 5, 2], batch_dims 1: output [1, 5, 2],
    // output[0, i, :] = data[0, indices[0, i, 0], indices[0, i, 1], :].
    // The batch loop runs once and disappears; tuples of 2 select along data axes 1 (bound 3, stride 8)
    // and 2 (bound 4, stride 2); each copies a block of 2.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherND", "dtype": "float32",
                                          "data_shape": [1, 3, 4, 2], "indices_shape": [1, 5, 2], "batch_dims": 1})json");
    EXPECT_EQ(loops_of(copy), "{5, 2, 0, 2}");
    EXPECT_EQ(components_of(copy), "{0, 3, 8}{1, 4, 2}");
    EXPECT_EQ(copy.block, 2u);
    EXPECT_EQ(copy.tuple_count, 5u);
    expect_sizes(copy, {24, 10, 0, 10});
}

// --- ScatterND ------------------------------------------------------------------------------------------

TEST(Lowering, ScatterNDDocExample2SlicesOfAPartialIndex) {
    // data [4, 4, 4], indices [2, 1] (k = 1 < r = 3): output[indices[i, 0], :, :] = updates[i, :, :].
    // Each tuple writes a [4, 4] slab of 16 into output; updates advance 16 per tuple and the output
    // position comes from the index alone (destination stride 0, component stride 16).
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "ScatterND", "dtype": "float32",
                                          "data_shape": [4, 4, 4], "indices_shape": [2, 1]})json");
    EXPECT_EQ(copy.indexed, IndexedCopy::Indexed::Destination);
    EXPECT_TRUE(copy.copy_data_first);
    EXPECT_EQ(copy.reduction, kernelgen::Reduction::None);
    EXPECT_EQ(loops_of(copy), "{2, 1, 16, 0}");
    EXPECT_EQ(components_of(copy), "{0, 4, 16}");
    EXPECT_EQ(copy.block, 16u);
    EXPECT_EQ(copy.tuple_count, 2u);
    EXPECT_EQ(copy.copy_count(), 2u);
    expect_sizes(copy, {64, 2, 32, 64});
}

TEST(Lowering, ScatterNDMergesTupleDimsAndKeepsReduction) {
    // data [3, 4, 5], indices [2, 3, 2] (k = 2), reduction add: updates [2, 3, 5],
    // output[indices[i, j, 0], indices[i, j, 1], :] += updates[i, j, :].
    // The i and j loops walk indices (6, 2) and updates (15, 5) contiguously and output not at all:
    // one loop of 6 tuples. Components select along axis 0 (bound 3, stride 20) and 1 (bound 4, stride 5).
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "ScatterND", "dtype": "int64", "reduction": "add",
                                          "data_shape": [3, 4, 5], "indices_shape": [2, 3, 2]})json");
    EXPECT_EQ(loops_of(copy), "{6, 2, 5, 0}");
    EXPECT_EQ(components_of(copy), "{0, 3, 20}{1, 4, 5}");
    EXPECT_EQ(copy.block, 5u);
    EXPECT_EQ(copy.reduction, kernelgen::Reduction::Add);
    EXPECT_EQ(copy.tuple_count, 6u);
    expect_sizes(copy, {60, 12, 30, 60});
}

TEST(Lowering, ScatterNDDocExample1SingleElements) {
    // data [8], indices [4, 1]: output[indices[i, 0]] = updates[i]; k = r, blocks of one element.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "reduction": "mul",
                                          "data_shape": [8], "indices_shape": [4, 1]})json");
    EXPECT_EQ(loops_of(copy), "{4, 1, 1, 0}");
    EXPECT_EQ(components_of(copy), "{0, 8, 1}");
    EXPECT_EQ(copy.block, 1u);
    EXPECT_EQ(copy.reduction, kernelgen::Reduction::Mul);
    expect_sizes(copy, {8, 4, 4, 8});
}

TEST(Lowering, ScatterNDOfOneTupleReplacingAllOfARow) {
    // data [2, 3], indices [1] (rank 1: a single tuple of one value): output[indices[0], :] = updates[:].
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "ScatterND", "dtype": "float32",
                                          "data_shape": [2, 3], "indices_shape": [1]})json");
    EXPECT_EQ(loops_of(copy), "");
    EXPECT_EQ(components_of(copy), "{0, 2, 3}");
    EXPECT_EQ(copy.block, 3u);
    EXPECT_EQ(copy.tuple_count, 1u);
    EXPECT_EQ(copy.copy_count(), 1u);
    expect_sizes(copy, {6, 1, 3, 6});
}

// --- empty tensors --------------------------------------------------------------------------------------

TEST(Lowering, GatherOfEmptyDataCopiesNothing) {
    // data [0, 3], indices [2], axis 1: output [0, 2] is empty.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32",
                                          "data_shape": [0, 3], "indices_shape": [2], "axis": 1})json");
    EXPECT_EQ(copy.copy_count(), 0u);
    EXPECT_EQ(components_of(copy), "{0, 3, 1}");
    expect_sizes(copy, {0, 2, 0, 0});
}

TEST(Lowering, GatherByNoIndicesCopiesNothing) {
    // data [3, 2], indices [0]: output [0, 2], nothing to check or copy.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32",
                                          "data_shape": [3, 2], "indices_shape": [0]})json");
    EXPECT_EQ(copy.copy_count(), 0u);
    EXPECT_EQ(copy.tuple_count, 0u);
    expect_sizes(copy, {6, 0, 0, 0});
}

TEST(Lowering, GatherAlongAnEmptyAxisCopiesNothing) {
    // data [4, 0, 2], indices [3], axis 1: an axis of size 0 admits no index, so no copy can run even
    // though output [4, 3, 2] is not empty; each of the 3 indices is still a tuple to check.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32",
                                          "data_shape": [4, 0, 2], "indices_shape": [3], "axis": 1})json");
    EXPECT_EQ(copy.copy_count(), 0u);
    EXPECT_EQ(copy.tuple_count, 3u);
    expect_sizes(copy, {0, 3, 0, 24});
}

TEST(Lowering, GatherElementsOfEmptyIndicesCopiesNothing) {
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherElements", "dtype": "float32",
                                          "data_shape": [3, 2], "indices_shape": [3, 0]})json");
    EXPECT_EQ(copy.copy_count(), 0u);
    EXPECT_EQ(copy.tuple_count, 0u);
    expect_sizes(copy, {6, 0, 0, 0});
}

TEST(Lowering, GatherNDWithEmptySlicesCopiesNothing) {
    // data [4, 0], indices [3, 1]: output [3, 0]; every tuple selects an empty row.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "GatherND", "dtype": "float32",
                                          "data_shape": [4, 0], "indices_shape": [3, 1]})json");
    EXPECT_EQ(copy.copy_count(), 0u);
    EXPECT_EQ(copy.tuple_count, 3u);
    expect_sizes(copy, {0, 3, 0, 0});
}

TEST(Lowering, ScatterNDWithNoTuplesCopiesNothing) {
    // data [4, 2], indices [0, 1]: updates [0, 2]; output is just a copy of data.
    IndexedCopy copy = lower_json(R"json({"name": "k", "op": "ScatterND", "dtype": "float32",
                                          "data_shape": [4, 2], "indices_shape": [0, 1]})json");
    EXPECT_EQ(copy.copy_count(), 0u);
    EXPECT_EQ(copy.tuple_count, 0u);
    EXPECT_TRUE(copy.copy_data_first);
    expect_sizes(copy, {8, 0, 0, 8});
}

// --- constant indices: every tuple resolved into runs (source, destination, length) ----------------------

std::string runs_of(const IndexedCopy& copy) {
    std::string out;
    if (!copy.runs) return "no runs";
    for (const auto& run : *copy.runs) {
        out += "{" + std::to_string(run.source) + ", " + std::to_string(run.destination) + ", " + std::to_string(run.length) + "}";
    }
    return out;
}

// Gather of [4, 8] by [0, 1, -2, 3] (axis 0): rows 0, 1, 2, 3 in order, so the four row copies of 8
// continue one another on both sides and merge into one copy of all 32 elements.
TEST(LoweringConstant, IdentityGatherIsOneCopy) {
    auto copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [4, 8],
        "indices_shape": [4], "indices": [0, 1, -2, 3]})json");
    EXPECT_EQ(loops_of(copy), "");
    EXPECT_EQ(components_of(copy), "");
    EXPECT_EQ(runs_of(copy), "{0, 0, 32}");
    EXPECT_EQ(copy.copy_count(), 1u);
}

// Gather of [2, 5, 3] along axis 1 by [[4, 0], [1, 2]]: for each a0 (source stride 15, destination stride 12)
// rows 4, 0, 1, 2 of 3 elements: source offsets 12, 0, 3, 6 go to 0, 3, 6, 9; rows 0, 1, 2 merge.
TEST(LoweringConstant, OuterLoopsStayLoops) {
    auto copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "int8", "data_shape": [2, 5, 3],
        "indices_shape": [2, 2], "axis": 1, "indices": [[4, 0], [1, 2]]})json");
    EXPECT_EQ(loops_of(copy), "{2, 0, 15, 12}");
    EXPECT_EQ(runs_of(copy), "{12, 0, 3}{0, 3, 9}");
}

// The same gather selecting every row in order is an identity: the run of 15 continues across a0, so the
// outer loop folds into it too.
TEST(LoweringConstant, IdentityAlongAnInnerAxisFoldsTheOuterLoop) {
    auto copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "int8", "data_shape": [2, 5, 3],
        "indices_shape": [5], "axis": 1, "indices": [0, 1, 2, 3, 4]})json");
    EXPECT_EQ(loops_of(copy), "");
    EXPECT_EQ(runs_of(copy), "{0, 0, 30}");
}

// ScatterND add into [6, 2] by tuples 1, 2, -5 (= 1 again), 5: runs keep the order of indices, so the
// duplicate row 1 is combined again after rows 1 and 2 (which merge: updates 0..3 to output 2..5).
TEST(LoweringConstant, ScatterKeepsIndexOrderAndDuplicates) {
    auto copy = lower_json(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [6, 2],
        "indices_shape": [4, 1], "reduction": "add", "indices": [[1], [2], [-5], [5]]})json");
    EXPECT_EQ(copy.indexed, IndexedCopy::Indexed::Destination);
    EXPECT_EQ(runs_of(copy), "{0, 2, 4}{4, 2, 2}{6, 10, 2}");
    EXPECT_TRUE(copy.copy_data_first);
}

// GatherElements of [2, 3] by [[2, 0], [1, 1]] along axis 1: output (0,0) <- data 2, (0,1) <- 0,
// (1,0) <- 3 + 1 = 4, (1,1) <- 4.
TEST(LoweringConstant, GatherElementsElementByElement) {
    auto copy = lower_json(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [2, 3],
        "indices_shape": [2, 2], "axis": 1, "indices": [[2, 0], [1, 1]]})json");
    EXPECT_EQ(runs_of(copy), "{2, 0, 1}{0, 1, 1}{4, 2, 1}{4, 3, 1}");
}

// GatherND with batch_dims 1 over [2, 3, 4] (batch stride 12): batch 0 row 1 (source 4) and batch 1 row 0
// (source 12), 4 elements each, to 0 and 4: two runs. Rows 2 and 0 instead (sources 8 and 12) continue one
// another, and merge.
TEST(LoweringConstant, GatherNDWithBatchDims) {
    const std::string spec = R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3, 4],
        "indices_shape": [2, 1, 1], "batch_dims": 1, "indices": )json";
    EXPECT_EQ(runs_of(lower_json(spec + "[[[1]], [[0]]]}")), "{4, 0, 4}{12, 4, 4}");
    EXPECT_EQ(runs_of(lower_json(spec + "[[[2]], [[0]]]}")), "{8, 0, 8}");
}

TEST(LoweringConstant, NoIndicesNoRuns) {
    auto copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
        "indices_shape": [0], "indices": []})json");
    EXPECT_EQ(runs_of(copy), "");
    EXPECT_EQ(copy.copy_count(), 0u);
}

// --- ScatterElements ------------------------------------------------------------------------------------------

// ScatterElements of updates [2, 3] into data [3, 4] along axis 0: for each (i0, i1) of indices the update at
// i0 * 3 + i1 goes to output row indices[i0, i1] (stride 4), column i1: loops {2, 3, 3, 0}, {3, 1, 1, 1}.
TEST(Lowering, ScatterElementsAxis0) {
    auto copy = lower_json(R"json({"name": "k", "op": "ScatterElements", "dtype": "float32", "data_shape": [3, 4],
        "indices_shape": [2, 3], "reduction": "mul"})json");
    EXPECT_EQ(copy.indexed, IndexedCopy::Indexed::Destination);
    EXPECT_EQ(loops_of(copy), "{2, 3, 3, 0}{3, 1, 1, 1}");
    EXPECT_EQ(components_of(copy), "{0, 3, 4}");
    EXPECT_EQ(copy.block, 1u);
    EXPECT_TRUE(copy.copy_data_first);
    EXPECT_EQ(copy.reduction, kernelgen::Reduction::Mul);
    expect_sizes(copy, {12, 6, 6, 12});
}

// Along the last axis of [2, 5] with indices [2, 2]: rows of data (stride 5), the index selects the column.
TEST(Lowering, ScatterElementsLastAxis) {
    auto copy = lower_json(R"json({"name": "k", "op": "ScatterElements", "dtype": "int8", "data_shape": [2, 5],
        "indices_shape": [2, 2], "axis": -1})json");
    EXPECT_EQ(loops_of(copy), "{2, 2, 2, 5}{2, 1, 1, 0}");
    EXPECT_EQ(components_of(copy), "{0, 5, 1}");
}

// Constant indices: [[2, 0, 1]] into [3, 3] along axis 0 -> updates 0, 1, 2 land on 6, 1, 5.
TEST(LoweringConstant, ScatterElements) {
    auto copy = lower_json(R"json({"name": "k", "op": "ScatterElements", "dtype": "float32", "data_shape": [3, 3],
        "indices_shape": [1, 3], "indices": [[2, 0, -2]]})json");
    EXPECT_EQ(runs_of(copy), "{0, 6, 1}{1, 1, 1}{2, 5, 1}");
}

// --- run-time counts ---------------------------------------------------------------------------------------

// The loops' run-time scales, "[s0, s1, ...]" (0: a fixed extent).
std::string scales_of(const IndexedCopy& copy) {
    std::string out;
    for (const auto& loop : copy.loops) out += (out.empty() ? "" : ", ") + std::to_string(loop.runtime_scale);
    return "[" + out + "]";
}

// A count of index rows: Gather of rows of [10, 4] by indices [6, 2]: the one loop over the 12 index values runs
// count * 2 times (2 values a row of indices), and the checks cover count * 2 tuples.
TEST(LoweringCount, IndexRowsScaleTheLoopThatWalksTheIndices) {
    auto copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [10, 4],
        "indices_shape": [6, 2], "count": "runtime"})json");
    EXPECT_EQ(loops_of(copy), "{12, 1, 0, 4}");
    EXPECT_EQ(scales_of(copy), "[2]");
    EXPECT_FALSE(copy.count_leads_data);
    EXPECT_EQ(copy.count_bound, 6u);
    EXPECT_EQ(copy.tuples_per_count, 2u);
    EXPECT_TRUE(copy.counts_index_rows());
}

// A data count: the component that selects along data's axis 0 has a run-time bound (at most data_shape[0]); no
// loop depends on it. Gather and GatherElements: their one component; GatherND: the tuple's first entry only.
TEST(LoweringCount, DataCountBoundsTheComponentAlongAxis0) {
    auto gather = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [10, 4],
        "indices_shape": [6], "count": "runtime", "data_count": "runtime"})json");
    EXPECT_TRUE(gather.runtime_bounded());
    EXPECT_EQ(gather.count_bound, 6u);
    ASSERT_EQ(gather.components.size(), 1u);
    EXPECT_EQ(gather.components[0].bound_parameter, "data_count");
    EXPECT_EQ(gather.components[0].bound, 10u);
    EXPECT_EQ(scales_of(gather), "[1]");
    auto nd = lower_json(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [5, 3, 2],
        "indices_shape": [4, 2], "data_count": "runtime"})json");
    EXPECT_TRUE(nd.runtime_bounded());
    EXPECT_EQ(nd.count_bound, 0u);
    ASSERT_EQ(nd.components.size(), 2u);
    EXPECT_EQ(nd.components[0].bound_parameter, "data_count");
    EXPECT_EQ(nd.components[0].bound, 5u);
    EXPECT_EQ(nd.components[1].bound_parameter, "");
    auto fixed = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [10, 4],
        "indices_shape": [6]})json");
    EXPECT_FALSE(fixed.runtime_bounded());
    EXPECT_EQ(fixed.components[0].bound_parameter, "");
}

// A count of data rows: Gather of [5, 2, 7] along axis 2 by indices [3, 2]. Output is [5, 2, 3, 2]; the
// outer loop over data[:2] (10 points: data stride 7, output stride 6) runs count * 2 times, its first count * 2
// points being the first count rows of data and of output. The loop over the 6 index values is fixed, and so
// are the checks: all 6 tuples, whatever the count.
TEST(LoweringCount, DataRowsScaleGathersOuterLoop) {
    auto copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "int8", "data_shape": [5, 2, 7],
        "indices_shape": [3, 2], "axis": 2, "count": "runtime", "count_leads": "data"})json");
    EXPECT_EQ(loops_of(copy), "{10, 0, 7, 6}{6, 1, 0, 1}");
    EXPECT_EQ(scales_of(copy), "[2, 0]");
    EXPECT_EQ(components_of(copy), "{0, 7, 1}");
    EXPECT_TRUE(copy.count_leads_data);
    EXPECT_EQ(copy.count_bound, 5u);
    EXPECT_EQ(copy.tuple_count, 6u);
    EXPECT_EQ(copy.tuples_per_count, 0u);
    EXPECT_FALSE(copy.counts_index_rows());
    expect_sizes(copy, {70, 6, 0, 60});
}

// Gather of [5, 1] along axis 1 by one run-time index: the only valid index selects every element, so a fixed
// kernel folds the loop over the 5 rows (1 element apart on both sides) into one block of 5. The count's loop
// must stay: only its first count rows may be read and written.
TEST(LoweringCount, TheCountsLoopNeverFoldsIntoTheBlock) {
    const std::string spec = R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [5, 1],
        "indices_shape": [], "axis": 1)json";
    auto fixed = lower_json(spec + "}");
    EXPECT_EQ(loops_of(fixed), "");
    EXPECT_EQ(fixed.block, 5u);
    auto counted = lower_json(spec + R"(, "count": "runtime", "count_leads": "data"})");
    EXPECT_EQ(loops_of(counted), "{5, 0, 1, 1}");
    EXPECT_EQ(scales_of(counted), "[1]");
    EXPECT_EQ(counted.block, 1u);
    EXPECT_EQ(counted.count_bound, 5u);
}

// Constant indices with a count of data rows: the NMS column, Gather of [4, 3] along axis 1 by the constant 2.
// One run of one element (source 2, destination 0) at each of the count's points (data stride 3, output 1).
TEST(LoweringCount, ConstantIndicesResolveInsideTheCountsLoop) {
    auto copy = lower_json(R"json({"name": "k", "op": "Gather", "dtype": "int64", "data_shape": [4, 3],
        "indices_shape": [], "indices": 2, "axis": 1, "count": "runtime", "count_leads": "data"})json");
    EXPECT_EQ(loops_of(copy), "{4, 0, 3, 1}");
    EXPECT_EQ(scales_of(copy), "[1]");
    EXPECT_EQ(runs_of(copy), "{2, 0, 1}");
    EXPECT_EQ(copy.tuple_count, 0u);
    EXPECT_EQ(copy.count_bound, 4u);
}

// Every column of [4, 3] in order is one run of 3 a row; without a count the row loop folds into one run of 12,
// with one it stays the count's loop.
TEST(LoweringCount, AConstantRunNeverFoldsTheCountsLoop) {
    const std::string spec = R"json({"name": "k", "op": "Gather", "dtype": "int64", "data_shape": [4, 3],
        "indices_shape": [3], "indices": [0, 1, -1], "axis": 1)json";
    auto fixed = lower_json(spec + "}");
    EXPECT_EQ(loops_of(fixed), "");
    EXPECT_EQ(runs_of(fixed), "{0, 0, 12}");
    auto counted = lower_json(spec + R"(, "count": "runtime", "count_leads": "data"})");
    EXPECT_EQ(loops_of(counted), "{4, 0, 3, 3}");
    EXPECT_EQ(scales_of(counted), "[1]");
    EXPECT_EQ(runs_of(counted), "{0, 0, 3}");
}
