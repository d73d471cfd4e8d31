// The header's contract in ACSL (the ANSI/ISO C Specification Language that Frama-C reads), from the kernel's face
// and lowering: the buffers each parameter must hold (their sizes at the largest counts) and which may not overlap
// output; what the kernel may write (output, nothing on an error); and one behavior per return code, decided as the
// body decides it, in the same order: each run-time count above its bound, then any index value outside its
// range, else success. The ranges are the operator's own (ONNX's [-s, s-1] along the axis a value selects, shifted
// by constants added; a write index's [0, last] or [0, ...]); docs/generated-code.md shows one.
#include <algorithm>

#include "codegen/lower/lowered.h"

namespace kernelgen {

namespace {

// The last position of a buffer of `size` elements (-1 for none).
std::string last(uint64_t size) { return size == 0 ? std::string("-1") : std::to_string(size - 1); }

std::string elements(const std::string& pointer, uint64_t size) { return pointer + " + (0 .. " + last(size) + ")"; }

// The size of the buffer a parameter points to (at the largest counts).
uint64_t size_of(const IndexedCopy& copy, schedule::Tensor tensor) {
    using schedule::Tensor;
    switch (tensor) {
        case Tensor::Data: return copy.data_size;
        case Tensor::Indices: return copy.indices_size;
        case Tensor::Updates: return copy.updates_size;
        case Tensor::Output: return copy.output_size;
    }
    return 0;
}

// `value` in the range of `component`: "" where every value of the index type is.
std::string in_range(const IndexComponent& component, IndexType index_type, const std::string& value) {
    switch (component.kind) {
        case IndexComponent::Kind::Linear: return "0 <= " + value + " <= " + std::to_string(component.last);
        case IndexComponent::Kind::Circular: return "0 <= " + value;
        case IndexComponent::Kind::Wrapped: break;
    }
    if (!component.bound_parameter.empty()) {
        const std::string& size = component.bound_parameter;
        return "-(integer)" + size + " <= " + value + " <= " + size + " - 1";
    }
    const CheckedRange range = checked_range(component, index_type);
    if (range.low > range.high) return "\\false";
    if (range.low_free && range.high_free) return "";
    if (range.low_free) return value + " <= " + std::to_string(range.high);
    if (range.high_free) return std::to_string(range.low) + " <= " + value;
    return std::to_string(range.low) + " <= " + value + " <= " + std::to_string(range.high);
}

}  // namespace

std::string acsl_values_in_range(const std::vector<TupleValue>& values, uint64_t length, IndexType index_type) {
    std::vector<std::string> ranges;
    for (const TupleValue& value : values) ranges.push_back(in_range(*value.component, index_type, "indices[k]"));
    if (ranges.empty()) return "";
    if (std::all_of(ranges.begin(), ranges.end(), [&](const std::string& range) { return range == ranges.front(); })) {
        return ranges.front();
    }
    std::string each;
    for (size_t c = 0; c < ranges.size(); ++c) {
        if (ranges[c].empty()) continue;
        each += (each.empty() ? "" : " && ") + std::string("(k % ") + std::to_string(length) + " == " +
                std::to_string(values[c].place) + " ==> " + ranges[c] + ")";
    }
    return each;
}

std::string acsl_all_in_range(const std::vector<IndexComponent>& components, const std::string& count, IndexType index_type,
                              const std::string& first) {
    std::vector<TupleValue> values;
    for (const IndexComponent& component : components) values.push_back({component.offset, &component});
    const std::string each = acsl_values_in_range(values, components.size(), index_type);
    if (each.empty()) return "";
    return "\\forall integer k; " + first + " <= k < " + count + " ==> " + each;
}

namespace {

// Every index value the kernel reads lies in its component's range: "" where that holds of any indices.
std::string indices_in_range(const Lowered& lowered) {
    const IndexedCopy& copy = lowered.copy;
    if (lowered.held_indices || copy.components.empty() || copy.indices_size == 0) return "";
    const uint64_t length = copy.components.size();
    const std::string count = copy.counts_index_rows()
                                  ? "count" + (copy.tuples_per_count * length == 1 ? "" : " * " + std::to_string(copy.tuples_per_count * length))
                                  : std::to_string(copy.indices_size);
    return acsl_all_in_range(copy.components, count, lowered.index_type);
}

// The constant indices a kernel holds, checked along axis 0 against the data count: the data count they need.
std::string held_in_range(const Lowered& lowered) {
    const IndexedCopy& copy = lowered.copy;
    if (!lowered.held_indices || copy.components.empty()) return "";
    const uint64_t length = copy.components.size();
    uint64_t need = 0;
    for (size_t i = 0; i < lowered.held_indices->size(); ++i) {
        const IndexComponent& component = copy.components[(i % length)];
        if (component.bound_parameter.empty()) continue;
        const int64_t value = (*lowered.held_indices)[i];
        need = std::max(need, value >= 0 ? static_cast<uint64_t>(value) + 1 : 0 - static_cast<uint64_t>(value));
    }
    if (need == 0) return "";
    return copy.components.front().bound_parameter + " >= " + std::to_string(need);
}

// "a * b" of a term and a literal factor: the term alone for 1, "" for 0.
std::string times(const std::string& term, uint64_t factor) {
    if (factor == 0) return "";
    return factor == 1 ? term : term + " * " + std::to_string(factor);
}

// The parts that are not empty, `separator` between them.
std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (const std::string& part : parts) {
        if (!part.empty()) out += (out.empty() ? "" : separator) + part;
    }
    return out;
}

std::string sum(const std::vector<std::string>& terms) {
    const std::string out = joined(terms, " + ");
    return out.empty() ? "0" : out;
}

// The values a gather writes, for a kernel whose every copy is written out element by element (the planner's
// call): each output element equal to the data element its wrapped index values select, over every point of the
// copy's loops and every element of its block, in ACSL; "" for the forms this does not state (scatters,
// reductions, run-time counts, bounds and extents, constant indices or data, indices with constants added, a table
// converted row by row, complex elements).
std::string values_written(const Lowered& lowered) {
    const IndexedCopy& copy = lowered.copy;
    const bool gather = copy.indexed == IndexedCopy::Indexed::Source && copy.reduction == Reduction::None &&
                        !copy.copy_data_first && !copy.runs && copy.count_bound == 0 && !copy.components.empty();
    if (!gather || copy.runtime_extents || lowered.data_table || lowered.row_function || lowered.held_indices ||
        info(lowered.element).category == Category::Complex || copy.output_size == 0) {
        return "";
    }
    for (const IndexComponent& component : copy.components) {
        if (component.kind != IndexComponent::Kind::Wrapped || !component.bound_parameter.empty() || component.shifted()) return "";
    }
    std::vector<std::string> names, ranges, destination, source, at;
    for (size_t n = 0; n < copy.loops.size(); ++n) {
        const Loop& loop = copy.loops[n];
        if (loop.runtime_scale != 0 || loop.sequence || loop.addend_step != 0) return "";
        if (loop.extent == 1) continue;
        const std::string p = "p" + std::to_string(n);
        names.push_back(p);
        ranges.push_back("0 <= " + p + " < " + std::to_string(loop.extent));
        destination.push_back(times(p, loop.destination_stride));
        source.push_back(times(p, loop.source_stride));
        at.push_back(times(p, loop.indices_stride));
    }
    if (copy.block > 1) {
        names.push_back("e");
        ranges.push_back("0 <= e < " + std::to_string(copy.block));
        destination.push_back("e");
        source.push_back("e");
    }
    for (const IndexComponent& component : copy.components) {
        std::vector<std::string> place = at;
        place.push_back(component.offset ? std::to_string(component.offset) : "");
        const std::string value = "indices[" + sum(place) + "]";
        const std::string wrapped = "(" + value + " < 0 ? " + value + " + " + std::to_string(component.bound) + " : " + value + ")";
        source.push_back(times(wrapped, component.stride));
    }
    source.push_back(copy.indexed_base ? std::to_string(copy.indexed_base) : "");
    const std::string equal = "output[" + sum(destination) + "] == data[" + sum(source) + "]";
    if (names.empty()) return equal;
    return "\\forall integer " + joined(names, ", ") + "; " + joined(ranges, " && ") + " ==> " + equal;
}

}  // namespace

std::string acsl_restated_checks(const std::vector<std::pair<IndexComponent, std::string>>& values, IndexType index_type) {
    std::vector<std::string> ranges;
    for (const auto& [component, value] : values) {
        const std::string range = in_range(component, index_type, value);
        if (std::find(ranges.begin(), ranges.end(), range) == ranges.end()) ranges.push_back(range);
    }
    const std::string all = joined(ranges, " && ");
    return all.empty() ? "" : "/*@ assert checked: " + all + "; */";
}

namespace {

// What every contract of the kernel's code states: the buffers each parameter must hold and which may not overlap
// output (`requires`), what it may write (`assigns`), and the behaviors that return an error, each with what it
// assumes, in the order the body returns; `admitted` is what success assumes.
struct ContractParts {
    std::vector<std::string> requires_, assigns;
    struct Behavior {
        std::string name, assumes, result;
    };
    std::vector<Behavior> errors;
    std::vector<std::string> admitted;
};

ContractParts contract_parts(const Lowered& lowered) {
    using schedule::Tensor;
    const Interface& face = lowered.face;
    const IndexedCopy& copy = lowered.copy;
    ContractParts parts;
    std::vector<std::string>& lines = parts.requires_;
    const Parameter* output = nullptr;
    for (const Parameter& parameter : face.parameters) {
        if (!parameter.tensor) continue;
        const std::string buffer = elements(parameter.name, size_of(copy, parameter.which));
        if (parameter.which == Tensor::Output) {
            output = &parameter;
            lines.push_back("requires \\valid(" + buffer + ");");
        } else {
            lines.push_back("requires \\valid_read(" + buffer + ");");
        }
    }
    const std::string written = elements("output", copy.output_size);
    for (const Parameter& parameter : face.parameters) {
        if (!parameter.tensor || parameter.which == Tensor::Output) continue;
        const std::string apart = "\\separated(" + written + ", " + elements(parameter.name, size_of(copy, parameter.which)) + ")";
        // A scatter's data may be output itself: the update is then made in place.
        const bool in_place = parameter.which == Tensor::Data && copy.copy_data_first;
        lines.push_back("requires " + (in_place ? "output == data || " + apart : apart) + ";");
    }
    // What output's values come from: the tensors and counts passed in (and the kernel's own constants).
    std::string from;
    for (const Parameter& parameter : face.parameters) {
        if (parameter.which == Tensor::Output) continue;
        from += (from.empty() ? " \\from " : ", ") +
                (parameter.tensor ? parameter.name + "[0 .. " + last(size_of(copy, parameter.which)) + "]" : parameter.name);
    }
    // Without checks ("index_check": "none"), the ranges are the caller's to keep: a precondition.
    if (!lowered.checked) {
        const std::string required = indices_in_range(lowered);
        if (!required.empty()) lines.push_back("requires " + required + ";");
    }
    if (output) parts.assigns.push_back("assigns output[0 .. " + last(copy.output_size) + "]" + from + ";");

    // The behaviors, in the order the body returns: each count above its bound, then the indices. Each assumes
    // what the ones before it leave (`admitted`) and its own failure.
    std::vector<std::string>& admitted = parts.admitted;
    auto fails = [&](const std::string& name, const std::string& failure, const std::string& result) {
        std::vector<std::string> assumed = admitted;
        assumed.push_back(failure);
        parts.errors.push_back({name, joined(assumed, " && "), result});
    };
    for (const RuntimeCount& count : face.counts) {
        fails(count.parameter + "_above_its_bound", count.parameter + " > " + count.max_macro, count.error_macro);
        admitted.push_back(count.parameter + " <= " + count.max_macro);
    }
    const std::string indices = lowered.checked ? indices_in_range(lowered) : "";
    const std::string in_range_condition = !indices.empty() ? indices : held_in_range(lowered);
    if (!in_range_condition.empty()) {
        fails("index_out_of_range", "!(" + in_range_condition + ")", face.ids.error_index);
        admitted.push_back(in_range_condition);
    }
    return parts;
}

std::string annotation(const std::vector<std::string>& lines) {
    std::string out = "/*@ ";
    for (size_t i = 0; i < lines.size(); ++i) out += (i ? "    " : "") + lines[i] + "\n";
    return out + "*/";
}

}  // namespace

std::string acsl_copies_contract(const Lowered& lowered) {
    const ContractParts parts = contract_parts(lowered);
    std::vector<std::string> lines = parts.requires_;
    if (!parts.admitted.empty()) lines.push_back("requires " + joined(parts.admitted, " && ") + ";");
    lines.insert(lines.end(), parts.assigns.begin(), parts.assigns.end());
    return annotation(lines);
}

std::string acsl_contract(const Lowered& lowered, bool values_proven) {
    const Interface& face = lowered.face;
    const ContractParts parts = contract_parts(lowered);
    std::vector<std::string> lines = parts.requires_;
    lines.insert(lines.end(), parts.assigns.begin(), parts.assigns.end());
    const auto& behaviors = parts.errors;
    const auto& admitted = parts.admitted;
    const std::string values = values_proven ? values_written(lowered) : "";
    if (behaviors.empty()) {
        lines.push_back("ensures \\result == " + face.ids.ok + ";");
        if (!values.empty()) lines.push_back("ensures values: " + values + ";");
    } else {
        for (const ContractParts::Behavior& behavior : behaviors) {
            lines.push_back("behavior " + behavior.name + ":");
            lines.push_back("  assumes " + behavior.assumes + ";");
            lines.push_back("  assigns \\nothing;");
            lines.push_back("  ensures \\result == " + behavior.result + ";");
        }
        lines.push_back("behavior success:");
        lines.push_back("  assumes " + joined(admitted, " && ") + ";");
        lines.push_back("  ensures \\result == " + face.ids.ok + ";");
        if (!values.empty()) lines.push_back("  ensures values: " + values + ";");
        lines.push_back("complete behaviors;");
        lines.push_back("disjoint behaviors;");
    }
    return annotation(lines);
}

}  // namespace kernelgen
