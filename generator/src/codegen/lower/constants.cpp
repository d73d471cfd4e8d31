// Constant tensors, lowered: constant indices folded into runs (or, beside a size passed at run time, held and
// checked by the kernel); constant data and a scatter's constant updates held as tables in flash, or not held at
// all where no copy reads them; how a scatter's output first takes data.
#include <algorithm>
#include <tuple>

#include "codegen/lower/lowered.h"

namespace kernelgen {

namespace {

// Constant indices: resolves every point of the loops that walk the indices into a run of the block, merging
// a run into the one before when both sides continue it, so an identity gather becomes one copy.
void fold_constant_indices(IndexedCopy& copy, const std::vector<int64_t>& values) {
    size_t outer = 0;  // leading loops that do not walk the indices stay loops
    // (The sequence loop of a circular write is resolved too: the positions it writes depend on it.)
    while (outer < copy.loops.size() && copy.loops[outer].indices_stride == 0 && !copy.loops[outer].sequence) ++outer;
    std::vector<Run> runs;
    if (copy.point_count() > 0 && copy.block > 0) {
        const std::vector<Loop> walked(copy.loops.begin() + static_cast<std::ptrdiff_t>(outer), copy.loops.end());
        std::vector<uint64_t> counter(walked.size(), 0);
        for (bool more = true; more;) {
            uint64_t tuple = 0, source = 0, destination = 0;
            for (size_t level = 0; level < walked.size(); ++level) {
                tuple += counter[level] * walked[level].indices_stride;
                source += counter[level] * walked[level].source_stride;
                destination += counter[level] * walked[level].destination_stride;
            }
            uint64_t& indexed = copy.indexed == IndexedCopy::Indexed::Source ? source : destination;
            uint64_t step = 0;  // the sequence loop's position (a circular write)
            for (size_t level = 0; level < walked.size(); ++level) {
                if (walked[level].sequence) step = counter[level];
            }
            for (const auto& component : copy.components) {
                const int64_t value = values[tuple + component.offset];  // in its range, checked when read
                uint64_t position = value < 0 ? component.bound - static_cast<uint64_t>(-value) : static_cast<uint64_t>(value);
                if (component.kind == IndexComponent::Kind::Circular) position = (position % component.bound + step) % component.bound;
                indexed += position * component.stride;
            }
            if (!runs.empty() && runs.back().source + runs.back().length == source &&
                runs.back().destination + runs.back().length == destination) {
                runs.back().length += copy.block;
            } else {
                runs.push_back(Run{source, destination, copy.block});
            }
            // The next point, innermost level fastest.
            more = false;
            for (size_t level = walked.size(); level-- > 0;) {
                if (++counter[level] < walked[level].extent) {
                    more = true;
                    break;
                }
                counter[level] = 0;
            }
        }
        copy.loops.resize(outer);
        // One run that the innermost loop left repeats contiguously on both sides folds into it (unless that
        // loop is the count's, whose extent is not known until run time).
        while (runs.size() == 1 && !copy.loops.empty() && copy.loops.back().runtime_scale == 0 &&
               copy.loops.back().source_stride == runs[0].length && copy.loops.back().destination_stride == runs[0].length) {
            runs[0].length *= copy.loops.back().extent;
            copy.loops.pop_back();
        }
    } else {
        copy.loops.clear();
    }
    copy.components.clear();
    copy.tuple_count = 0;
    copy.runs = std::move(runs);
}

// A table's element: the unsigned integer of a part's width (a complex element is two parts, a pair).
unsigned part_bits(DType dtype) {
    const DTypeInfo& type = info(dtype);
    return type.category == Category::Complex ? type.bits / 2 : type.bits;
}

// "float32 [2, 3] from u.npy, row-major, as the bit patterns of its elements (each a uint32_t)", in the two lines
// of the data file's banner (broken before "patterns").
std::pair<std::string, std::string> described(const KernelSpec& spec, const KernelSpec::ConstantData& table,
                                              const Shape& shape) {
    const std::string storage = "uint" + std::to_string(part_bits(spec.dtype)) + "_t";
    const bool pairs = info(spec.dtype).category == Category::Complex;
    return {std::string(info(spec.dtype).name) + " " + format_shape(shape) +
                (table.file.empty() ? " (given in the spec)" : " from " + shown_file_name(table.file)) + ", row-major, as the bit",
            "patterns of its elements (" + (pairs ? "each a pair of " + storage + ": real, imaginary" : "each a " + storage) +
                ")"};
}

// What the header says of a constant tensor after its shape: held by the kernel, or (a scatter's data of zero bytes
// only) written by a memset.
std::string constant_note(const KernelSpec::ConstantData& table, bool zeros) {
    return ", constant (" + (table.file.empty() ? std::string("given in the spec") : shown_file_name(table.file)) + "): " +
           (zeros ? "all zero bytes, which the kernel writes itself" : "held by the kernel, in flash");
}

// Constant indices: folded into the copy's runs, or held by the kernel where a size passed at run time decides
// the rows they select (and whether they are in range).
void lower_constant_indices(const KernelSpec& spec, Lowered& lowered) {
    IndexedCopy& copy = lowered.copy;
    TemplateValues& contract = lowered.face.contract;
    const bool held = spec.constant_indices && copy.runtime_bounded() && copy.indices_size > 0;
    if (held) {
        lowered.held_indices = *spec.constant_indices;
        lowered.held_indices_comment = "The constant indices (given in the spec): those along axis 0 are checked against " +
                                       copy.components.front().bound_parameter + ".";
    } else if (spec.constant_indices) {
        fold_constant_indices(copy, *spec.constant_indices);
    }
    contract.flags["constant"] = spec.constant_indices && !held;
    contract.flags["constant_checked"] = held;
    contract.flags["checked"] = (!spec.constant_indices || held) && spec.index_check == IndexCheck::Checked;
    contract.flags["unchecked"] = !spec.constant_indices && spec.index_check == IndexCheck::None;
}

// The data file: its tables (data, a scatter's updates), or why it holds none.
void lower_tables(const KernelSpec& spec, Lowered& lowered) {
    const IndexedCopy& copy = lowered.copy;
    DataFile& file = lowered.data_file;
    file.written = spec.constant_data || spec.constant_updates;
    const bool pairs = info(spec.dtype).category == Category::Complex;
    if (lowered.data_table) {
        file.tables.push_back(TableData{"data", part_bits(spec.dtype), pairs, &spec.constant_data->bytes, {}, ""});
        std::tie(file.line1, file.line2) = described(spec, *spec.constant_data, spec.data_shape);
        file.what = "data";
    }
    if (lowered.updates_table) {
        const auto [line1, line2] = described(spec, *spec.constant_updates, spec.updates_shape);
        file.tables.push_back(TableData{"updates", part_bits(spec.dtype), pairs, &spec.constant_updates->bytes, {},
                                            file.tables.empty() ? "" : "The updates: " + line1 + " " + line2 + "."});
        if (file.what.empty()) {
            file.what = "updates";
            file.line1 = line1;
            file.line2 = line2;
        }
    }
    if (file.written && file.tables.empty()) {  // a scatter's constant tensors that need no table: the file says why
        std::vector<std::string> reasons;
        if (spec.constant_data) {
            reasons.push_back(copy.data_size == 0 ? "its constant data has no elements"
                                                  : "its constant data is all zero bytes (output starts as a memset)");
        }
        if (spec.constant_updates) reasons.push_back("it copies no updates (its indices select nothing)");
        file.no_table = reasons.front() + (reasons.size() == 2 ? ", and " + reasons.back() : "");
    }
    file.tables_what = lowered.data_table && lowered.updates_table ? "data and updates"
                       : lowered.data_table                        ? "data"
                                                                   : "updates";
}

}  // namespace

uint64_t DataFile::declared_bytes() const {
    uint64_t declared = 0;
    for (const TableData& table : tables) declared = std::max<uint64_t>(declared, (table.data().size() + 1) / 2 * 2);
    return declared;
}

bool DataFile::avr_guard() const { return declared_bytes() > 32767; }

void lower_constants(const KernelSpec& spec, Lowered& lowered) {
    lower_constant_indices(spec, lowered);
    const IndexedCopy& copy = lowered.copy;
    const bool data_copy = copy.copy_data_first && copy.data_size > 0;
    // Data is held as a table by a gather, or by a scatter that copies it and whose bytes are not all 0 (output then
    // starts as a memset); updates when any is copied.
    const bool zeros = spec.constant_data && is_scatter(spec.op) && spec.constant_data->all_zero_bytes();
    lowered.data_table = spec.constant_data && (!is_scatter(spec.op) || (data_copy && !zeros));
    lowered.updates_table = spec.constant_updates && copy.copy_count() > 0;
    if (data_copy) {
        lowered.first_copy.from = !spec.constant_data   ? FirstCopy::From::Data
                                  : lowered.data_table ? FirstCopy::From::Table
                                                       : FirstCopy::From::Zeros;
    }
    lowered.first_copy.element_loop_allowed = !copy.in_place_as_a_rule;
    lower_tables(spec, lowered);
    TemplateValues& contract = lowered.face.contract;
    contract.text["data_note"] = spec.constant_data ? constant_note(*spec.constant_data, zeros) : "";
    contract.text["updates_note"] = spec.constant_updates ? constant_note(*spec.constant_updates, false) : "";
    contract.flags["in_place"] = !spec.constant_data;
}

}  // namespace kernelgen
