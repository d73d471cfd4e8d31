// The planner's decisions, checked on the schedule itself rather than on printed C: what is unrolled and by how
// much, where the checks go, which loop opens slices, memcpy or element copies, prefetch hints and their
// guards, tables of constant runs; and that "full" unrolling takes exactly the statements full_unroll_statements
// counts (the number the spec reader caps).
#include <gtest/gtest.h>

#include <functional>
#include <variant>

#include "codegen/plan/schedule.h"
#include "codegen/plan/weights.h"
#include "kernelgen/spec.h"

namespace {

using namespace kernelgen;
using namespace kernelgen::schedule;

KernelSpec parse_one(const std::string& json) {
    std::vector<Diagnostic> diagnostics;
    auto kernels = parse_spec_text(json, "spec.json", diagnostics);
    EXPECT_TRUE(diagnostics.empty()) << (diagnostics.empty() ? "" : diagnostics.front().str());
    EXPECT_EQ(kernels.size(), 1u);
    return kernels.empty() ? KernelSpec{} : kernels.front();
}

Schedule plan_json(const std::string& json) {
    const KernelSpec spec = parse_one(json);
    return plan(lower(spec));
}

std::string gather(uint64_t rows, uint64_t count, const std::string& extra) {
    return R"({"name": "g", "op": "Gather", "dtype": "float32", "data_shape": [)" + std::to_string(rows) +
           R"(, 8], "indices_shape": [)" + std::to_string(count) + "]" + extra + "}";
}

// Calls `visit` on every statement of `statements`, depth first, with the loops around it.
void walk(const Statements& statements, const std::function<void(const Statement&, const std::vector<const For*>&)>& visit,
          std::vector<const For*> loops = {}) {
    for (const Statement& statement : statements) {
        visit(statement, loops);
        if (const auto* loop = std::get_if<For>(&statement.node)) {
            loops.push_back(loop);
            walk(loop->body, visit, loops);
            loops.pop_back();
        } else if (const auto* local = std::get_if<Local>(&statement.node)) {
            walk(local->body, visit, loops);
        }
    }
}

// Every statement of the kind in the body and the copy helpers it calls (whose copies are the body's, moved).
template <typename Node>
std::vector<const Node*> all(const Schedule& schedule) {
    std::vector<const Node*> out;
    auto take = [&](const Statement& statement, const std::vector<const For*>&) {
        if (const auto* node = std::get_if<Node>(&statement.node)) out.push_back(node);
    };
    walk(schedule.body, take);
    for (const CopyHelper& helper : schedule.helpers.copies) walk(helper.body, take);
    return out;
}

template <typename Node>
const Node* first(const Schedule& schedule) {
    const auto nodes = all<Node>(schedule);
    return nodes.empty() ? nullptr : nodes.front();
}

TEST(Schedule, SmallKernelsHaveNoLoop) {
    const Schedule schedule = plan_json(gather(10, 5, ""));
    EXPECT_TRUE(schedule.straight);
    EXPECT_TRUE(all<For>(schedule).empty());
    EXPECT_EQ(all<BlockCopy>(schedule).size(), 5u);  // 8 floats a row: one row copy each
    const auto* checks = first<CheckIndices>(schedule);
    ASSERT_NE(checks, nullptr);
    EXPECT_TRUE(checks->loop);  // 5 index values: more than the 2 checked straight-line
    EXPECT_FALSE(checks->accumulate);  // returns at the first bad index
    EXPECT_TRUE(schedule.uses_memcpy);
    const Schedule two = plan_json(gather(10, 2, ""));
    ASSERT_NE(first<CheckIndices>(two), nullptr);
    EXPECT_FALSE(first<CheckIndices>(two)->loop);
    EXPECT_EQ(first<CheckIndices>(two)->checks.size(), 2u);
}

TEST(Schedule, AutoUnrollsByAFactorThatDividesTheExtent) {
    // 100 rows of 32 bytes, one row copy each (2 statements): the budget allows 6 a loop; 5 divides 100 and is at
    // least half of 6.
    const Schedule schedule = plan_json(gather(100, 100, ""));
    const auto loops = all<For>(schedule);
    ASSERT_EQ(loops.size(), 1u);  // the loop of checks is a CheckIndices node
    const For* copies = loops.front();
    EXPECT_EQ(copies->variable, "i0");
    EXPECT_EQ(copies->step, 5u);
    EXPECT_EQ(copies->end.constant, 100u);
    EXPECT_EQ(copies->body.size(), 5u);
    const auto* checks = first<CheckIndices>(schedule);
    ASSERT_NE(checks, nullptr);
    EXPECT_TRUE(checks->loop);
    EXPECT_FALSE(checks->accumulate);
    // An unroll factor gathers the checks into one flag, tested once.
    const auto* factor_checks = first<CheckIndices>(plan_json(gather(100, 100, R"(, "unroll": 4)")));
    ASSERT_NE(factor_checks, nullptr);
    EXPECT_TRUE(factor_checks->accumulate);
}

TEST(Schedule, AutoWeighsAReductionsElementAsEightCopies) {
    // ScatterND add of 3 rows of 2 floats: 6 combines weigh 48, over the budget of 12, and one row's 2 combines
    // weigh 16, over it too: the rows stay a loop.
    const Schedule reduction = plan_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "data_shape": [8, 2],
                                           "indices_shape": [3, 1], "reduction": "add"})");
    EXPECT_FALSE(reduction.straight);
    ASSERT_EQ(all<For>(reduction).size(), 1u);
    EXPECT_EQ(all<For>(reduction).front()->step, 1u);
    // The same copies without a reduction: 3 statements, written out.
    const Schedule copies = plan_json(R"({"name": "s", "op": "ScatterND", "dtype": "float32", "data_shape": [8, 2],
                                        "indices_shape": [3, 1]})");
    EXPECT_TRUE(copies.straight);
}

// Up to 32 elements of 4 bytes or more, or elements of 8 bytes or more; narrower elements take the row copy, which
// moves words (an element loop moved one or two bytes a turn).
TEST(Schedule, DataIsCopiedByARowCopyButWhereAnElementLoopWasMeasuredFaster) {
    // Under auto (and an unroll factor): the row copy (kernelgen_copy), but an element loop for at most 32
    // elements of 4 bytes or more before a loop over a run-time count, and for more than 32 elements of 8 bytes or
    // more; under none, always an element loop.
    auto copy_of = [](const std::string& dtype, int rows, const std::string& more = "") {
        const Schedule schedule = plan_json(R"({"name": "s", "op": "ScatterND", "dtype": ")" + dtype +
                                            R"(", "data_shape": [)" + std::to_string(rows) + R"(, 4], "indices_shape": [2, 1])" + more + "}");
        const auto* copy = first<CopyData>(schedule);
        EXPECT_NE(copy, nullptr);
        return copy ? copy->element_loop : false;
    };
    EXPECT_FALSE(copy_of("float32", 8));                            // 32 elements: the row copy
    EXPECT_TRUE(copy_of("float32", 8, R"(, "count": "runtime")"));  // before a loop of run-time length
    EXPECT_FALSE(copy_of("float32", 9, R"(, "count": "runtime")")); // 36: the row copy
    EXPECT_FALSE(copy_of("int16", 1, R"(, "count": "runtime")"));   // 2-byte elements: the row copy
    EXPECT_FALSE(copy_of("float64", 8));                            // 32 elements of 8 bytes: the row copy
    EXPECT_TRUE(copy_of("float64", 9));                             // 36 of them: the element loop
    EXPECT_FALSE(copy_of("int8", 100));
    EXPECT_FALSE(copy_of("bool", 1));
    EXPECT_TRUE(copy_of("int8", 100, R"(, "unroll": "none")"));
    EXPECT_FALSE(copy_of("int8", 100, R"(, "unroll": 4)"));            // a factor: as auto
    EXPECT_FALSE(copy_of("float32", 8, R"(, "unroll": 4)"));
    EXPECT_TRUE(copy_of("uint64", 10, R"(, "unroll": 8)"));            // 40 of 8 bytes (accumulate_u64)
}

TEST(Schedule, ADataCopyBeforeLoopsOfUpdatesIsMadeOnce) {
    // The row copy of data is kernelgen_copy_once (out of line on Thumb-2) where loops of updates follow it;
    // where every update is written out, kernelgen_copy, inline.
    auto before_loops = [](const std::string& shape, const std::string& more = "") {
        const Schedule schedule = plan_json(R"({"name": "s", "op": "ScatterElements", "dtype": "int32", "data_shape": [32], )"
                                            R"("indices_shape": [)" + shape + "]" + more + "}");
        const auto* copy = first<CopyData>(schedule);
        EXPECT_NE(copy, nullptr);
        EXPECT_FALSE(copy && copy->element_loop);
        return copy ? copy->before_loops : false;
    };
    EXPECT_TRUE(before_loops("20", R"(, "reduction": "add")"));  // token_histogram's loop of adds
    EXPECT_TRUE(before_loops("2", R"(, "reduction": "add")"));   // two adds: a loop (each weighs as 8 copies)
    EXPECT_FALSE(before_loops("2"));                              // two copies, written out
    EXPECT_TRUE(before_loops("20", R"(, "unroll": 4)"));         // a factor's loop
    EXPECT_FALSE(before_loops("20", R"(, "unroll": "full")"));   // every update written out
}

TEST(Schedule, NoneKeepsOneCopyPerIterationAndReturnsAtTheFirstBadIndex) {
    const Schedule schedule = plan_json(gather(100, 100, R"(, "unroll": "none")"));
    const auto loops = all<For>(schedule);
    ASSERT_EQ(loops.size(), 1u);
    EXPECT_EQ(loops.front()->step, 1u);
    EXPECT_EQ(loops.front()->body.size(), 1u);
    const auto* checks = first<CheckIndices>(schedule);
    ASSERT_NE(checks, nullptr);
    EXPECT_TRUE(checks->loop);
    EXPECT_FALSE(checks->accumulate);
}

TEST(Schedule, ATupleOfOneRangeIsCheckedAsOneLoopOverItsValues) {
    // GatherND [5, 5, 3] by tuples of 2: both components select along an axis of 5, so the 8 x 2 values are one
    // run of 16 checked against [-5, 4]; by [5, 6, 3] the two ranges differ, one check each per tuple.
    const char* same = R"({"name": "n", "op": "GatherND", "dtype": "float32", "data_shape": [5, 5, 3],
        "indices_shape": [8, 2], "unroll": "none"})";
    const Schedule one_range = plan_json(same);
    const auto* checks = first<CheckIndices>(one_range);
    ASSERT_NE(checks, nullptr);
    ASSERT_TRUE(checks->loop);
    EXPECT_EQ(checks->tuple_end.constant, 16u);
    EXPECT_EQ(checks->tuple_length, 1u);
    ASSERT_EQ(checks->checks.size(), 1u);
    EXPECT_EQ(checks->checks[0].value.kind, IndexValue::Kind::Local);
    EXPECT_EQ(checks->checks[0].component.bound, 5u);
    EXPECT_TRUE(checks->checks[0].by_words);  // int64 values against a literal size: kernelgen_outside_i64

    const char* different = R"({"name": "n", "op": "GatherND", "dtype": "float32", "data_shape": [5, 6, 3],
        "indices_shape": [8, 2], "unroll": "none"})";
    const Schedule two_ranges = plan_json(different);
    checks = first<CheckIndices>(two_ranges);
    ASSERT_NE(checks, nullptr);
    EXPECT_EQ(checks->tuple_end.constant, 8u);
    EXPECT_EQ(checks->tuple_length, 2u);
    ASSERT_EQ(checks->checks.size(), 2u);
    EXPECT_EQ(checks->checks[1].component.bound, 6u);
}

TEST(Schedule, ValuesAgainstADataCountBelow2To31AreTestedByTheSupportHeader) {
    // Along axis 0 the bound is the run-time data count: by_count (kernelgen_outside_count_*) while its bound is
    // below 2^31, as the test's 2 * count must fit a uint32_t; the compare from 2^31 on. The other tuple entry
    // keeps its literal size, by words.
    const auto checks_of = [](const std::string& rows) {
        return plan_json(R"({"name": "n", "op": "GatherND", "dtype": "uint8", "data_shape": [)" + rows +
                         R"(, 3], "indices_shape": [4, 2], "data_count": "runtime", "unroll": "none"})");
    };
    const Schedule small = checks_of("100");
    const auto* checks = first<CheckIndices>(small);
    ASSERT_NE(checks, nullptr);
    ASSERT_EQ(checks->checks.size(), 2u);
    EXPECT_EQ(checks->checks[0].component.bound_parameter, "data_count");
    EXPECT_TRUE(checks->checks[0].by_count);
    EXPECT_FALSE(checks->checks[0].by_words);
    EXPECT_FALSE(checks->checks[1].by_count);
    EXPECT_TRUE(checks->checks[1].by_words);
    const Schedule last = checks_of("2147483647");
    checks = first<CheckIndices>(last);
    ASSERT_NE(checks, nullptr);
    EXPECT_TRUE(checks->checks[0].by_count);
    const Schedule huge = checks_of("2147483648");
    checks = first<CheckIndices>(huge);
    ASSERT_NE(checks, nullptr);
    EXPECT_FALSE(checks->checks[0].by_count);
    EXPECT_FALSE(checks->checks[0].by_words);
}

TEST(Schedule, ValuesOfOnePowerOfTwoRangeAreCheckedByOredOffsets) {
    // GatherND [8, 8, 3] by 6 tuples of 2 int32 values: one range [-8, 7], a power of two: under auto the 12
    // values' offsets ORed, one loop over them; int64 values too, 4 a turn. Not under none (the compares that
    // return at once), nor for 8 int64 values (one a turn), a range of 6, a run-time count or a range of 2^31
    // (where an int32 needs no check).
    const auto spec = [](const char* data, const char* extra) {
        return std::string(R"({"name": "n", "op": "GatherND", "dtype": "float32", "data_shape": )") + data +
               R"(, "indices_shape": [6, 2])" + extra + "}";
    };
    const Schedule ored = plan_json(spec("[8, 8, 3]", R"(, "index_dtype": "int32")"));
    const auto* checks = first<CheckIndices>(ored);
    ASSERT_NE(checks, nullptr);
    ASSERT_TRUE(checks->loop);
    EXPECT_EQ(checks->ored_bound, 8u);
    EXPECT_FALSE(checks->accumulate);
    EXPECT_EQ(checks->tuple_end.constant, 12u);
    EXPECT_EQ(checks->tuple_length, 1u);
    EXPECT_TRUE(checks->ored_by_turns);  // 12 values: KERNELGEN_ORED_CHECKS a turn
    ASSERT_EQ(checks->checks.size(), 1u);
    EXPECT_FALSE(checks->checks[0].by_words);
    const auto* factor = first<CheckIndices>(plan_json(spec("[8, 8, 3]", R"(, "index_dtype": "int32", "unroll": 4)")));
    ASSERT_NE(factor, nullptr);
    EXPECT_EQ(factor->ored_bound, 8u);
    EXPECT_FALSE(factor->accumulate);
    const auto* eight = first<CheckIndices>(plan_json(
        R"({"name": "n", "op": "GatherND", "dtype": "float32", "index_dtype": "int32", "data_shape": [8, 8, 3],
            "indices_shape": [4, 2]})"));
    ASSERT_NE(eight, nullptr);
    EXPECT_EQ(eight->ored_bound, 8u);
    EXPECT_FALSE(eight->ored_by_turns);  // 8 values: one a turn
    const auto* int64 = first<CheckIndices>(plan_json(spec("[8, 8, 3]", R"(, "index_dtype": "int64")")));
    ASSERT_NE(int64, nullptr);
    EXPECT_EQ(int64->ored_bound, 8u);
    EXPECT_TRUE(int64->ored_by_turns);
    EXPECT_EQ(int64->tuple_end.constant, 12u);
    for (const std::string& other : {spec("[8, 8, 3]", R"(, "index_dtype": "int32", "unroll": "none")"),
                                     std::string(R"({"name": "n", "op": "GatherND", "dtype": "float32", "index_dtype": "int64",
                                         "data_shape": [8, 8, 3], "indices_shape": [4, 2]})"),
                                     spec("[8, 8, 3]", R"(, "index_dtype": "int64", "unroll": "none")"),
                                     spec("[6, 6, 3]", R"(, "index_dtype": "int32")"),
                                     spec("[8, 4, 3]", R"(, "index_dtype": "int32")"),
                                     spec("[8, 8, 3]", R"(, "index_dtype": "int32", "count": "runtime")")}) {
        const auto* compares = first<CheckIndices>(plan_json(other));
        ASSERT_NE(compares, nullptr) << other;
        EXPECT_EQ(compares->ored_bound, 0u) << other;
    }
}

TEST(Schedule, AFactorLeavesTheRemainderWrittenOutAfterTheLoop) {
    const Schedule schedule = plan_json(gather(100, 10, R"(, "unroll": 3)"));
    ASSERT_EQ(all<For>(schedule).size(), 1u);
    const For* loop = all<For>(schedule).front();
    EXPECT_EQ(loop->end.constant, 9u);
    EXPECT_EQ(loop->step, 3u);
    // The body's three copies, and the tenth copy after the loop.
    EXPECT_EQ(loop->body.size(), 3u);
    EXPECT_EQ(all<BlockCopy>(schedule).size(), 4u);
}

TEST(Schedule, TheLoopAroundTheInnermostOpensTheSlices) {
    // GatherElements [6, 10] along axis 1 with "none": i0 over rows, i1 over elements; i0's body names each
    // tensor's row once, and the inner offsets leave i0 out.
    const Schedule schedule = plan_json(R"({"name": "e", "op": "GatherElements", "dtype": "float32", "axis": 1,
        "data_shape": [6, 10], "indices_shape": [6, 10], "unroll": "none"})");
    const auto loops = all<For>(schedule);
    ASSERT_EQ(loops.size(), 2u);
    const For& outer = *loops[0];
    ASSERT_GE(outer.body.size(), 4u);
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(std::holds_alternative<Slice>(outer.body[i].node)) << i;
    EXPECT_TRUE(std::holds_alternative<For>(outer.body[3].node));
    const auto assigns = all<Assign>(schedule);
    ASSERT_EQ(assigns.size(), 1u);
    EXPECT_TRUE(assigns.front()->to.view.slice);
    EXPECT_TRUE(assigns.front()->from.view.slice);
    for (const Term& term : assigns.front()->to.at.terms) EXPECT_NE(term.name, "i0");
}

TEST(Schedule, ShortBlocksAreElementCopiesWithoutMemcpy) {
    // Rows of 2 int8: two assignments through one named offset, no memcpy anywhere.
    const Schedule schedule = plan_json(R"({"name": "s", "op": "Gather", "dtype": "int8", "data_shape": [50, 2],
        "indices_shape": [3]})");
    EXPECT_FALSE(schedule.uses_memcpy);
    EXPECT_TRUE(all<BlockCopy>(schedule).empty());
    EXPECT_EQ(all<Local>(schedule).size(), 3u);
    EXPECT_EQ(all<Assign>(schedule).size(), 6u);
    // Up to 4 elements stay written out, but 4 of 4 bytes or more are one row copy (kept_boxes' rows of 4 floats).
    auto row_copies = [](const std::string& dtype, int row) {
        const Schedule s = plan_json(R"({"name": "s", "op": "Gather", "dtype": ")" + dtype + R"(", "data_shape": [50, )" +
                                     std::to_string(row) + R"(], "indices_shape": [3]})");
        return all<BlockCopy>(s).size();
    };
    EXPECT_EQ(row_copies("float32", 4), 3u);
    EXPECT_EQ(row_copies("float64", 4), 3u);
    EXPECT_EQ(row_copies("float32", 3), 0u);
    EXPECT_EQ(row_copies("int16", 4), 0u);
    EXPECT_EQ(row_copies("int16", 5), 3u);
}

TEST(Schedule, AGivenDistancePrefetchesWithAGuardWhereTheTupleMayNotExist) {
    const Schedule schedule = plan_json(gather(10, 100, R"(, "unroll": "none", "prefetch": 2)"));
    EXPECT_EQ(schedule.prefetch_distance, 2u);
    ASSERT_TRUE(schedule.helpers.prefetch.has_value());
    const auto hints = all<PrefetchHint>(schedule);
    ASSERT_EQ(hints.size(), 1u);
    EXPECT_EQ(hints.front()->guard_variable, "i0");
    EXPECT_EQ(hints.front()->guard_limit, 98u);
    // Written out, every hint is known to exist or left out: no guard.
    const Schedule straight = plan_json(gather(10, 5, R"(, "prefetch": 2)"));
    const auto straight_hints = all<PrefetchHint>(straight);
    EXPECT_EQ(straight_hints.size(), 3u);
    for (const auto* hint : straight_hints) EXPECT_TRUE(hint->guard_variable.empty());
}

TEST(Schedule, ConstantRunsComeFromTablesInALoopWhenTheyDoNotFit) {
    const Schedule schedule = plan_json(R"({"name": "c", "op": "Gather", "dtype": "int8", "data_shape": [40],
        "indices_shape": [20], "unroll": "none",
        "indices": [3, 9, 1, 30, 7, 2, 11, 25, 0, 19, 5, 13, 38, 21, 4, 33, 16, 8, 27, 12]})");
    EXPECT_FALSE(schedule.runs_straight);
    // Only the sources vary: the destinations step by one and every length is 1.
    ASSERT_EQ(schedule.helpers.tables.size(), 1u);
    EXPECT_EQ(schedule.helpers.tables[0].role, "sources");
    EXPECT_EQ(schedule.helpers.tables[0].bits, 8u);
    EXPECT_EQ(schedule.helpers.tables[0].values.size(), 20u);
    EXPECT_EQ(first<CheckIndices>(schedule), nullptr);  // checked when the spec was read
    const auto loops = all<For>(schedule);
    ASSERT_EQ(loops.size(), 1u);
    EXPECT_EQ(loops.front()->variable, "r");
    EXPECT_EQ(loops.front()->end.constant, 20u);
}

// "full" writes out exactly the statements the cap counts: every copy and every index check.
TEST(Schedule, FullUnrollTakesTheStatementsTheCapCounts) {
    const std::vector<std::string> specs{
        gather(100, 30, R"(, "unroll": "full")"),
        R"({"name": "n", "op": "GatherND", "dtype": "int16", "index_dtype": "int32", "data_shape": [5, 6, 3],
            "indices_shape": [4, 2], "unroll": "full"})",
        R"({"name": "r", "op": "ScatterElements", "dtype": "float32", "axis": 0, "data_shape": [7, 9],
            "indices_shape": [3, 9], "reduction": "add", "unroll": "full"})",
        R"({"name": "u", "op": "ScatterND", "dtype": "uint8", "data_shape": [6, 12], "indices_shape": [2, 1],
            "reduction": "max", "unroll": "full"})"};
    for (const auto& json : specs) {
        const KernelSpec spec = parse_one(json);
        const Lowered lowered = lower(spec);
        const Schedule schedule = plan(lowered);
        EXPECT_TRUE(all<For>(schedule).empty()) << json;
        // More checks than "auto" writes out are the check helper's.
        const auto* checks = schedule.helpers.checks ? &schedule.helpers.checks->checks : first<CheckIndices>(schedule);
        const uint64_t written = all<BlockCopy>(schedule).size() + all<Assign>(schedule).size() +
                                 (checks ? checks->checks.size() : 0);
        EXPECT_EQ(written, full_unroll_statements(lowered)) << json;
    }
}

// Written-out checks of more values than "auto" writes out go to a helper the body calls once (its contract is
// what a proof of the kernel takes); up to that many stay in the body.
TEST(Schedule, LongWrittenOutChecksAreAHelperTheBodyCalls) {
    const Schedule schedule = plan_json(R"({"name": "e", "op": "GatherElements", "dtype": "uint16", "axis": 1,
        "data_shape": [3, 4, 5], "indices_shape": [3, 2, 5], "unroll": "full"})");
    ASSERT_TRUE(schedule.helpers.checks.has_value());
    const CheckHelper& helper = *schedule.helpers.checks;
    EXPECT_EQ(helper.values, 30u);
    ASSERT_EQ(helper.checks.checks.size(), 30u);
    EXPECT_FALSE(helper.checks.loop);
    EXPECT_EQ(helper.checks.checks[29].value.position, 29u);
    ASSERT_EQ(helper.components.size(), 1u);
    EXPECT_EQ(helper.components[0].bound, 4u);
    const auto* call = first<CheckIndices>(schedule);
    ASSERT_NE(call, nullptr);
    EXPECT_TRUE(call->by_helper);
    EXPECT_TRUE(call->checks.empty());

    for (const char* few : {R"(, "unroll": "full")", ""}) {  // 4 values: written out in the body
        const Schedule inline_checks = plan_json(gather(10, 4, few));
        EXPECT_FALSE(inline_checks.helpers.checks.has_value()) << few;
        const auto* checks = first<CheckIndices>(inline_checks);
        ASSERT_NE(checks, nullptr);
        EXPECT_FALSE(checks->by_helper);
        EXPECT_EQ(checks->checks.size(), 4u);
    }
    // Checks against a data count passed at run time stay in the body, and a loop of checks is no helper's.
    EXPECT_FALSE(plan_json(gather(10, 30, R"(, "unroll": "full", "data_count": "runtime")")).helpers.checks);
    EXPECT_FALSE(plan_json(gather(10, 30, "")).helpers.checks);
}

// Written-out checks of more than kHelperStatements values are parts of whole tuples, each stating its own values'
// range, that the check helper calls in turn; written-out copies of more statements than "auto" writes out are
// helpers of at most kHelperStatements each, which the body calls in turn after the checks.
TEST(Schedule, LongWrittenOutCodeIsShortHelpers) {
    const Schedule schedule = plan_json(R"({"name": "e", "op": "GatherElements", "dtype": "uint16", "axis": 1,
        "data_shape": [3, 4, 5], "indices_shape": [3, 2, 5], "unroll": "full"})");
    ASSERT_TRUE(schedule.helpers.checks.has_value());
    const std::vector<CheckHelper>& parts = schedule.helpers.checks->parts;
    ASSERT_EQ(parts.size(), 4u);  // 30 values: 8, 8, 8, 6
    const uint64_t ends[] = {8, 16, 24, 30};
    for (size_t p = 0; p < parts.size(); ++p) {
        EXPECT_EQ(parts[p].first, p * 8) << p;
        EXPECT_EQ(parts[p].values, ends[p]) << p;
        ASSERT_EQ(parts[p].checks.checks.size(), ends[p] - p * 8) << p;
        EXPECT_EQ(parts[p].checks.checks.front().value.position, p * 8) << p;
    }
    ASSERT_EQ(schedule.helpers.copies.size(), 4u);
    size_t copies = 0;
    for (const CopyHelper& helper : schedule.helpers.copies) {
        EXPECT_LE(helper.body.size(), 8u);
        copies += helper.body.size();
    }
    EXPECT_EQ(copies, 30u);
    std::vector<size_t> called;
    for (const Statement& statement : schedule.body) {
        EXPECT_FALSE(std::holds_alternative<Assign>(statement.node));  // every copy is a helper's
        if (const auto* call = std::get_if<CopyCall>(&statement.node)) called.push_back(call->helper);
    }
    EXPECT_EQ(called, (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_NE(schedule.helpers.copies_contract.find("requires \\forall integer k; 0 <= k < 30 ==> -4 <= indices[k] <= 3;"),
              std::string::npos)
        << schedule.helpers.copies_contract;

    // Tuples of 2 values: a part holds whole tuples, 8 checks, the values of 4 tuples.
    const Schedule tuples = plan_json(R"({"name": "n", "op": "GatherND", "dtype": "int16", "data_shape": [2, 6, 5, 4],
        "indices_shape": [2, 9, 2], "batch_dims": 1, "unroll": "full"})");
    ASSERT_TRUE(tuples.helpers.checks.has_value());
    const CheckHelper& whole = *tuples.helpers.checks;
    ASSERT_GE(whole.parts.size(), 2u);
    uint64_t next = 0;
    for (const CheckHelper& part : whole.parts) {
        EXPECT_EQ(part.first, next);
        EXPECT_EQ(part.first % whole.components.size(), 0u);
        EXPECT_LE(part.checks.checks.size(), 8u);
        next = part.values;
    }
    EXPECT_EQ(next, whole.values);
    // Tuples of 3 values: whole tuples packed to 8 checks at most (6, 6, ...), never 9; 9 checks in all are two
    // parts, 6 and 3.
    const Schedule threes = plan_json(R"({"name": "t", "op": "GatherND", "dtype": "float32", "data_shape": [4, 4, 4],
        "indices_shape": [3, 3], "unroll": "full"})");
    ASSERT_TRUE(threes.helpers.checks.has_value());
    ASSERT_EQ(threes.helpers.checks->parts.size(), 2u);
    EXPECT_EQ(threes.helpers.checks->parts[0].checks.checks.size(), 6u);
    EXPECT_EQ(threes.helpers.checks->parts[1].first, 6u);
    EXPECT_EQ(threes.helpers.checks->parts[1].values, 9u);

    // No helpers: 12 copies or fewer (all "auto" writes out), or few enough element copies that the header states
    // the values they write (kValuesStatedCopies), or 8 checks or fewer.
    EXPECT_TRUE(plan_json(gather(10, 12, R"(, "unroll": "full")")).helpers.copies.empty());
    const Schedule stated = plan_json(R"({"name": "s", "op": "GatherElements", "dtype": "uint16", "axis": 0,
        "data_shape": [4, 4], "indices_shape": [4, 4], "unroll": "full"})");
    EXPECT_TRUE(stated.helpers.copies.empty());
    ASSERT_TRUE(stated.helpers.checks.has_value());
    EXPECT_EQ(stated.helpers.checks->parts.size(), 2u);
    EXPECT_TRUE(plan_json(gather(10, 8, R"(, "unroll": "full")")).helpers.checks->parts.empty());
}

// --- run-time counts --------------------------------------------------------------------------------------------

// Gather of [6, 5] along axis 1 by `indices` run-time indices, counting data's rows.
std::string data_rows(uint64_t indices, const std::string& extra) {
    return R"({"name": "d", "op": "Gather", "dtype": "float32", "data_shape": [6, 5], "indices_shape": [)" +
           std::to_string(indices) + R"(], "axis": 1, "count": "runtime", "count_leads": "data")" + extra + "}";
}

// The count is checked first; then every index, whatever the count (written out for 2 values, a loop to the
// constant 5 for 5), and the copies loop over the first count rows of data.
TEST(ScheduleCount, DataRowsCheckEveryIndexAndLoopOverTheCount) {
    const Schedule two = plan_json(data_rows(2, ""));
    ASSERT_FALSE(two.body.empty());
    const auto* count_check = std::get_if<CheckCount>(&two.body.front().node);
    ASSERT_NE(count_check, nullptr);
    EXPECT_EQ(count_check->parameter, "count");
    EXPECT_EQ(count_check->max_macro, "D_MAX_COUNT");
    const auto* checks = first<CheckIndices>(two);
    ASSERT_NE(checks, nullptr);
    EXPECT_FALSE(checks->loop);
    EXPECT_EQ(checks->checks.size(), 2u);
    const auto loops = all<For>(two);
    ASSERT_EQ(loops.size(), 1u);
    ASSERT_EQ(loops.front()->end.terms.size(), 1u);
    EXPECT_EQ(loops.front()->end.terms.front().kind, Term::Kind::Count);
    EXPECT_EQ(loops.front()->end.terms.front().coefficient, 1u);
    EXPECT_EQ(loops.front()->body.size(), 2u);  // the two copies of a row, written out
    EXPECT_FALSE(two.straight);

    const Schedule five_values = plan_json(data_rows(5, ""));
    const auto* five = first<CheckIndices>(five_values);
    ASSERT_NE(five, nullptr);
    EXPECT_TRUE(five->loop);
    EXPECT_TRUE(five->tuple_end.terms.empty()) << "not a multiple of the count";
    EXPECT_EQ(five->tuple_end.constant, 5u);
    // A count of index rows checks only those: count * 1 tuples.
    const Schedule counted_indices = plan_json(gather(10, 5, R"(, "count": "runtime")"));
    const auto* index_rows = first<CheckIndices>(counted_indices);
    ASSERT_NE(index_rows, nullptr);
    ASSERT_EQ(index_rows->tuple_end.terms.size(), 1u);
    EXPECT_EQ(index_rows->tuple_end.terms.front().kind, Term::Kind::Count);
}

// "full" writes out the points inside a row, the count's loop stays; a factor never applies to it.
TEST(ScheduleCount, TheCountsLoopStaysALoopInEveryMode) {
    for (const std::string unroll : {R"("full")", R"("none")", "3", R"("auto")"}) {
        const Schedule schedule = plan_json(data_rows(4, R"(, "unroll": )" + unroll));
        const auto loops = all<For>(schedule);
        ASSERT_FALSE(loops.empty()) << unroll;
        ASSERT_EQ(loops.front()->end.terms.size(), 1u) << unroll;
        EXPECT_EQ(loops.front()->end.terms.front().kind, Term::Kind::Count) << unroll;
        EXPECT_EQ(loops.front()->step, 1u) << unroll;
    }
    // The NMS column, constant index 2: one element a row, in a loop of count steps whatever the unroll.
    const Schedule column = plan_json(R"({"name": "c", "op": "Gather", "dtype": "int64", "data_shape": [4, 3],
        "indices_shape": [], "indices": 2, "axis": 1, "count": "runtime", "count_leads": "data", "unroll": "full"})");
    const auto loops = all<For>(column);
    ASSERT_EQ(loops.size(), 1u);
    EXPECT_EQ(loops.front()->end.terms.front().kind, Term::Kind::Count);
    EXPECT_EQ(all<Assign>(column).size(), 1u);
    EXPECT_EQ(first<CheckIndices>(column), nullptr);
}

}  // namespace
