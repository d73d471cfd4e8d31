// How a kernel runs: the plan of its code, between its lowering and C.
//
// plan() makes every decision about a kernel's code in one pass over its lowering (lowered.h) and its options:
// what is unrolled and by how much, whether the index checks are written out or looped, which loop opens slices
// of the tensors, whether a block is one memcpy or element copies, where prefetch hints go, which constant runs
// come from tables, which helpers the source defines, what the banner says of it and whether the source guards
// its sizes. The result, with the kernel's face and data file from its lowering, is the printer's whole input: the
// printer (print/print.cpp) walks it and decides nothing; each node prints one way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/ir/statements.h"
#include "codegen/lower/lowered.h"

namespace kernelgen {
namespace schedule {

// The file-scope helpers the source defines, in the order it defines them (the index wrap and the float16
// conversions are shared by every kernel: kernelgen_support.h).
struct PrefetchHelper {
    bool write = false;  // a scatter's block, about to be written
    uint64_t lines = 1;  // cache lines per hint
    uint64_t distance = 0;
};
struct RunTable {
    std::string role;  // "sources", "destinations" or "lengths"
    unsigned bits = 32;  // element width: 8, 16, 32 or 64
    std::vector<uint64_t> values;
};
struct CombineHelper {
    Reduction reduction = Reduction::None;
    bool fp_contract_off = false;  // complex multiplication: no fused multiply-add
};
// Written-out checks of more values than "auto" ever writes out, in a function of their own (role "checks") that
// the body calls once: its contract states what they establish, so that a proof of the kernel takes that one call
// in place of a branch per value, each of which every later goal carried (WP took some twenty minutes over the 30
// checks and 30 copies of gather_elements_3d). gcc inlines it, called once, while it is small (the same
// instructions there); a long one (1,024 checks) stays a function, 2.3 KB smaller.
// More than kHelperStatements checks are parts of at most that many, each a function of its own (role
// "checks_<n>", stating the range of its own values) that the helper calls in turn: WP's goals of one function of
// 30 checks took 18 s to build, of four parts of 8, 2 s. Each part is forced inline (gcc, clang): the helper's
// code is the same, one function that gcc inlines into the kernel while it is short.
struct CheckHelper {
    CheckIndices checks;                     // written out, each returning the error
    uint64_t first = 0;                      // the index values read: indices[first .. values - 1]
    uint64_t values = 0;
    std::vector<IndexComponent> components;  // of each tuple, value k's the (k % size())th
    std::vector<CheckHelper> parts;          // the checks in parts, in order, or none
};
// Written-out copies of more statements than "auto" ever writes out, in functions of their own of at most
// kHelperStatements each (role "copies_<n>"), which the body calls in turn once every check passed: each takes the
// kernel's parameters, and its contract (`contract`, the same for each) the kernel's buffers and what it may write,
// with what success assumes as a precondition. A proof of the kernel then takes one call in place of each run of
// copies, and of each helper a short straight line. Each is forced inline (gcc, clang): the same instructions as
// the copies in the body (left to gcc, the 128 of big_embedding under "full" stayed functions).
struct CopyHelper {
    Statements body;
};
struct Helpers {
    std::optional<CheckHelper> checks;
    std::vector<CopyHelper> copies;
    std::string copies_contract;  // ACSL, the copy helpers' contract
    std::optional<PrefetchHelper> prefetch;
    std::vector<RunTable> tables;
    std::optional<CombineHelper> combine;
    std::optional<RowFunction> row_function;  // from the lowering, when a copy calls it
};

// A kernel's plan: its face and data file, its helpers, its body, and the facts its banner states.
struct Schedule {
    Interface face;
    DataFile data_file;
    DType element = DType::Float32;
    IndexType index_type = IndexType::Int64;
    bool wide_offsets = false;  // uint64_t offsets (a tensor above 2^32 - 1 elements), else uint32_t
    bool uses_memcpy = false;   // the body calls memcpy, memset or a row copy: the source includes <string.h>
    // Copies of a size known here go through kernelgen_support.h's row copy (kernelgen_copy, inline, each target's
    // fastest; from a table KERNELGEN_COPY_FROM_TABLE), else through a call of memcpy (KERNELGEN_MEMCPY_FROM_TABLE):
    // "unroll": "none" keeps the least code (docs/generated-code.md, "Row copies").
    bool row_copies = true;
    // The kernel holds data or a scatter's updates as a table (Lowered::data_table, updates_table): every copy from
    // it reads flash (kernelgen_support.h's KERNELGEN_COPY_FROM_TABLE), and the body's views of that tensor name
    // the table.
    bool data_table = false;
    bool updates_table = false;
    Helpers helpers;
    Statements body;
    // For the banner: the copies are straight-line; the checks (when checked) are written out; the constant
    // runs are written out; the prefetch distance (0: none).
    bool straight = false;
    bool checks_straight = false;
    bool runs_straight = false;
    // The copies restate, as ACSL assertions, the range of each index value they read (Planner::restates_checks).
    bool restates_checks = false;
    uint64_t prefetch_distance = 0;
    // The banner's line on how the kernel runs ("unroll auto: straight-line copies, straight-line index checks").
    std::string note;
    // The bytes of the largest tensor, when they could pass a 16-bit size_t: the source refuses such a target
    // (#error) rather than truncate sizes; 0 when every tensor fits.
    uint64_t size_guard_bytes = 0;
};

Schedule plan(Lowered lowered);

// Every role of the file-scope helpers a kernel's source may define (static functions and tables, each named
// helper_name(kernel, role)): the planner's, the constant tables', a row function's.
const std::vector<std::string>& helper_roles();
// The roles of numbered helpers, "<role>_<n>" for n = 0, 1, ...: a check helper's parts, the copy helpers.
const std::vector<std::string>& numbered_helper_roles();

}  // namespace schedule
}  // namespace kernelgen
