// A kernel lowered: everything planning and printing need, decided once from its spec. Operators lower to one
// IndexedCopy (lower.cpp); the features each add their part (counts.cpp: run-time counts; constants.cpp: constant
// indices, data and updates; a table kept in another form, whose rows a row function converts, in a file of its
// own; interface.cpp: the signature and the header's contract). Nothing after this stage reads a spec.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ir/indexed_copy.h"
#include "codegen/ir/statements.h"
#include "codegen/ir/template_values.h"
#include "common/kernel_identifiers.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// A parameter of the kernel's function, in prototype order.
struct Parameter {
    std::string name;
    std::string type;         // as the prototype declares it: "const float *", "uint32_t "
    bool restricted = false;  // `restrict` in the definition (kept apart from output by the contract)
    bool tensor = true;       // a tensor's pointer (else a count)
    schedule::Tensor which = schedule::Tensor::Data;
};

// A count the caller passes at run time, checked against its bound before anything is read or written.
struct RuntimeCount {
    std::string parameter;   // its C parameter
    schedule::Tensor after;  // the tensor parameter it follows in the prototype
    std::string max_macro, error_macro;
    uint64_t bound = 0;
    int error_value = 0;        // what the kernel returns for a count above its bound
    std::string check_comment;  // the comment above its check in the body
};

// The face of a kernel: its identifiers, types, parameters and header.
struct Interface {
    KernelIdentifiers ids;
    std::string element;          // C type of an element
    std::string index;            // C type of an index value
    bool element_is_double = false;  // elements are 64-bit IEEE doubles: the source checks the target's double
    std::vector<Parameter> parameters;
    std::vector<std::pair<std::string, uint64_t>> sizes;  // <NAME>_<TENSOR>_SIZE and its element count
    std::vector<RuntimeCount> counts;                      // in the order the body checks them
    TemplateValues contract;  // kernel.h.mustache's values: the comment, the macros and the prototype
    std::string banner_source;  // the spec file (no path) and the kernel's pointer in it

    // "const T *" or "T *" for the element type; for a pointer element type (string) "const char *const *" or
    // "const char **".
    std::string pointer_to_element(bool read_only) const;
    // "int NAME(...)": in the definition, the restricted parameters are `restrict`.
    std::string prototype(bool definition) const;
    // The parameters as the prototype lists them, "const float *data, ..." (parameter_list), or their names alone,
    // as a call passes them on (argument_list).
    std::string parameter_list(bool definition) const;
    std::string argument_list() const;
    // Every identifier the header declares or defines, in the header's order: the function, the include guard,
    // the size macros, the counts' bounds, the return codes. Two kernels of a run may share none.
    std::vector<std::string> identifiers() const;
};

// One table of a kernel's data file: its role (its name is the helper kernelgen_<kernel>_<role>), element width, bytes
// (a complex element's two parts as a pair) and the line above it (or none).
struct TableData {
    std::string role;
    unsigned bits = 8;
    bool pairs = false;
    const std::vector<uint8_t>* bytes = nullptr;  // the spec's, or `owned`
    std::vector<uint8_t> owned;
    std::string note;
    const std::vector<uint8_t>& data() const { return bytes ? *bytes : owned; }
};

// <name>_data.inc, written whenever the spec gives a constant tensor (build rules name it): its tables, described
// by the file's banner, or the reason it holds none.
struct DataFile {
    bool written = false;
    std::string what;          // "data" or "updates": the banner's subject
    std::string line1, line2;  // the banner's description of it
    std::vector<TableData> tables;
    std::string no_table;      // why there is no table (then `tables` is empty)
    std::string tables_what;   // the source's comment above its #include: "data", "updates", "data and updates"
    // The largest table as declared (an odd number of bytes gets one more element), and whether it is larger than
    // one object in AVR program memory can be (PTRDIFF_MAX there, 32767): the source then refuses AVR.
    uint64_t declared_bytes() const;
    bool avr_guard() const;
};

// A helper that writes a block of the output from a row of the source table, converting it, instead of a copy.
// Blocks are whole rows.
struct RowFunction {
    std::string role;             // the helper's role, called by the body's RowCall
    uint64_t row_elements = 0;    // elements of one row: a block's source offset divided by it is its row
    TemplateValues head;          // row_function.c.mustache's values: its comment and the value reader
    schedule::Statements body;    // the function's body: a loop nest per part of the row
};

// How a scatter's output starts as a copy of data.
struct FirstCopy {
    enum class From { None, Data, Table, Zeros } from = From::None;
    bool element_loop_allowed = true;  // false: an in-place buffer (a cache) never walks all of itself
    std::string rows_parameter;        // a count of data's valid rows: only those are copied
    uint64_t row_elements = 0;
};

struct Lowered {
    IndexedCopy copy;
    Interface face;
    DataFile data_file;
    std::optional<RowFunction> row_function;
    FirstCopy first_copy;
    // The body reads data, or a scatter's updates, out of a table the kernel holds.
    bool data_table = false, updates_table = false;
    // Constant indices the kernel holds and checks at run time (beside a run-time data count), and the comment
    // above them; else they were folded into runs (copy.runs), or there are none.
    std::optional<std::vector<int64_t>> held_indices;
    std::string held_indices_comment;
    // The settings in effect, and the types the planner weighs.
    Unroll unroll;
    Prefetch prefetch;
    bool checked = true;  // false: "index_check": "none"
    IndexType index_type = IndexType::Int64;
    DType element = DType::Float32;
    // Bytes of each tensor as the kernel addresses it (a table in another form: its own bytes), for the size guard.
    uint64_t data_bytes = 0, indices_bytes = 0, updates_bytes = 0, output_bytes = 0;
    // The banner's words for the run-time count's loop, and for checks against a size passed at run time.
    std::string count_loop_note, runtime_bound_note;
};

// Lowers a resolved spec. Never fails: every rule was checked when the spec was read.
Lowered lower(const KernelSpec& spec);

// The header's contract in ACSL, for Frama-C (acsl.cpp): `/*@ ... */` above the prototype. With `values_proven`
// (the planner's call, for a body whose every copy is written out element by element), a gather's success also
// states the values it writes (`ensures values:`), where the form is one the contract states.
std::string acsl_contract(const Lowered& lowered, bool values_proven);
// The contract of a copy helper (schedule::CopyHelper): the kernel's buffers and what it may write, with what its
// success assumes (every count within its bound, every index value in range) as a precondition.
std::string acsl_copies_contract(const Lowered& lowered);
// The copies' restated checks (schedule::Schedule::restates_checks): one ACSL assertion named `checked` that each
// value (a C lvalue) lies in the range the kernel checks it against as its component, each range once; "" where
// every value of the index type does.
std::string acsl_restated_checks(const std::vector<std::pair<IndexComponent, std::string>>& values, IndexType index_type);
// A value of an index tuple: its place in the tuple and the component it is checked as.
struct TupleValue {
    uint64_t place = 0;
    const IndexComponent* component = nullptr;
};
// Each value indices[k] of tuples of `length` values in the range the kernel checks it against, in ACSL (k % length
// its place where the values' ranges differ): "" where any value of the index type is. The contract's, and the loop
// invariants' of the checks.
std::string acsl_values_in_range(const std::vector<TupleValue>& values, uint64_t length, IndexType index_type);
// Every value indices[k], k below `count` (a C expression), in the range of its component (the (k % size())th of
// `components`, placed by their offsets), quantified over the values themselves, which the provers instantiate at
// each value a body reads: "" where any value of the index type is. The header's behaviors and the check helper's
// contract (from `first`: a part of it).
std::string acsl_all_in_range(const std::vector<IndexComponent>& components, const std::string& count, IndexType index_type,
                              const std::string& first = "0");

// Every identifier the header of `spec`'s kernel declares or defines (Interface::identifiers()).
std::vector<std::string> header_identifiers(const KernelSpec& spec);
// Every identifier the header of any kernel called `kernel` may define (a scatter's, with every run-time count).
std::vector<std::string> possible_identifiers(const std::string& kernel);

// A constant tensor's file ("data_file", "updates_file") as the header and the data file show it in comments: its
// name alone, comment-safe.
std::string shown_file_name(const std::string& file);

// The roles of a row function's helpers (the value reader, the function, its tables), for the name rule's test.
const std::vector<std::string>& row_function_roles();

// The operator's part (lower.cpp): its IndexedCopy, with its sizes and formula, and its words in the header's
// contract (operator, indices, duplicates).
IndexedCopy lower_operator(const KernelSpec& spec, TemplateValues& contract);

// The features' parts, in the order lower() applies them.
void lower_counts(const KernelSpec& spec, Lowered& lowered);     // counts.cpp
void lower_constants(const KernelSpec& spec, Lowered& lowered);  // constants.cpp
void lower_table_rows(const KernelSpec& spec, Lowered& lowered);  // a table converted row by row
void lower_interface(const KernelSpec& spec, Lowered& lowered);  // interface.cpp

}  // namespace kernelgen
