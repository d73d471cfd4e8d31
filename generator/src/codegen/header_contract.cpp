#include "codegen/header_contract.h"

#include <algorithm>
#include <filesystem>

#include "common/c_names.h"
#include "common/kernel_identifiers.h"

namespace kernelgen {

namespace {

// How the contract names the operator with its attributes: "Gather along axis 1", "ScatterND with reduction add".
std::string operator_wording(const KernelSpec& spec) {
    std::string attribute;
    switch (spec.op) {
        case Op::Gather:
        case Op::GatherElements: attribute = " along axis " + std::to_string(spec.axis); break;
        case Op::GatherND: attribute = spec.batch_dims ? " with batch_dims " + std::to_string(spec.batch_dims) : ""; break;
        case Op::ScatterND: attribute = " with reduction " + std::string(name(spec.reduction)); break;
        case Op::ScatterElements:
            attribute = " along axis " + std::to_string(spec.axis) + " with reduction " + std::string(name(spec.reduction));
            break;
        case Op::TensorScatter:
            attribute = std::string(spec.mode == KernelSpec::WriteMode::Circular ? ", circular," : ", linear,") +
                        " along sequence axis " + std::to_string(spec.axis) + " (data is past_cache, indices write_indices, "
                        "updates update)";
            break;
    }
    return std::string(name(spec.op)) + attribute;
}

// What a scatter does where updates meet at one position.
std::string duplicates_wording(const KernelSpec& spec, const IndexedCopy& copy) {
    if (spec.op == Op::TensorScatter) {
        return spec.mode == KernelSpec::WriteMode::Circular
                   ? "Each batch row's sequence is written from its write index on, wrapping to 0 at the end."
                   : "Each batch row's sequence is written from its write index on.";
    }
    return std::string(spec.op == Op::ScatterND ? "Duplicate index tuples apply in the order of indices"
                                                : "Updates that meet at one position apply in the (row-major) order of updates") +
           (copy.reduction == Reduction::None ? " (the last one wins)." : ".");
}

// The constant index values, when few enough to read in a comment.
std::string constant_indices_note(const std::vector<int64_t>& values) {
    if (values.size() > 16) return ", constant (" + std::to_string(values.size()) + " values given in the spec)";
    std::string list;
    for (int64_t value : values) list += (list.empty() ? "" : ", ") + std::to_string(value);
    return ", constant: " + (list.empty() ? "none" : list);
}

// What the contract says of the indices after their shape: the values when constant, else each one's range.
std::string indices_note(const KernelSpec& spec, const IndexedCopy& copy) {
    if (spec.constant_indices) return constant_indices_note(*spec.constant_indices);
    std::string bounds;
    bool empty_axis = false;
    for (const auto& component : copy.components) {
        if (component.kind == IndexComponent::Kind::Linear) return ", one per batch row, each in [0, " + std::to_string(component.last) + "]";
        if (component.kind == IndexComponent::Kind::Circular) return ", one per batch row, each >= 0";
        empty_axis = empty_axis || component.bound == 0;
        bounds += (bounds.empty() ? "" : ", ") +
                  (component.runtime_bound ? std::string("[-data_count, data_count-1]")
                                           : "[-" + std::to_string(component.bound) + ", " +
                                                 std::to_string(static_cast<int64_t>(component.bound) - 1) + "]");
    }
    if (empty_axis) return ", none in range (an axis of size 0)";
    return copy.components.size() > 1 ? ", tuples of " + std::to_string(copy.components.size()) + " in " + bounds
                                      : ", each in " + bounds;
}

// The parameters; in the definition (`restrict_qualified`), indices and updates are `restrict`: the contract
// keeps them apart from output, so compilers need not assume a store to output changes them, and a reduction's
// element loop vectorizes without run-time overlap tests. (C99 ignores such qualifiers when it compares the
// definition with the prototype, and the header stays valid C++.) data and output are left unqualified: a
// scatter's may be one buffer, and for the gathers the qualifier buys nothing (GCC then vectorizes
// GatherElements' address arithmetic, which is slower than the scalar code).
std::string parameter_list(const KernelSpec& spec, bool restrict_qualified) {
    const std::string apart = restrict_qualified ? "restrict " : "";
    std::string out = spec.constant_data ? "" : pointer_to_element(spec, true) + "data, ";
    if (spec.runtime_data_count) out += "uint32_t data_count, ";
    if (!spec.constant_indices) out += "const " + std::string(c_type(spec.index_dtype)) + " *" + apart + "indices, ";
    if (spec.runtime_count) out += "uint32_t count, ";
    if (is_scatter(spec.op) && !spec.constant_updates) out += pointer_to_element(spec, true) + apart + "updates, ";
    return out + pointer_to_element(spec, false) + "output";
}

}  // namespace

std::string pointer_to_element(const KernelSpec& spec, bool read_only) {
    const std::string element(info(spec.dtype).c_type);
    if (element.back() == '*') return element + (read_only ? "const *" : "*");
    return (read_only ? "const " : "") + element + " *";
}

std::string shown_file(const KernelSpec::ConstantData& table) {
    return comment_safe(std::filesystem::path(table.file).filename().string());
}

// A scatter's constant data of zero bytes only is written by a memset: no table.
static std::string constant_note(const KernelSpec& spec, const KernelSpec::ConstantData& table) {
    const bool zeros = is_scatter(spec.op) && &table == &*spec.constant_data && table.all_zero_bytes();
    return ", constant (" + (table.file.empty() ? std::string("given in the spec") : shown_file(table)) + "): " +
           (zeros ? "all zero bytes, which the kernel writes itself" : "held by the kernel, in flash");
}

std::string quantization_mode(const KernelSpec::Quantization& q) {
    if (q.axis < 0) return "one scale";
    if (q.block_size == 0) return "a scale per index along axis " + std::to_string(q.axis);
    return "a scale per block of " + std::to_string(q.block_size) + " along axis " + std::to_string(q.axis);
}

std::string prototype(const KernelSpec& spec, bool definition) {
    return "int " + spec.name + "(" + parameter_list(spec, definition) + ")";
}

TemplateValues header_contract(const KernelSpec& spec, const IndexedCopy& copy) {
    TemplateValues values;
    const DTypeInfo& type = info(spec.dtype);
    const KernelIdentifiers ids = identifiers_of(spec.name);
    values.text["guard"] = ids.guard;
    values.text["ok"] = ids.ok;
    values.text["error_index"] = ids.error_index;
    values.text["error_count"] = ids.error_count;
    values.text["max_count_macro"] = ids.max_count;
    values.text["error_data_count"] = ids.error_data_count;
    values.text["max_data_count_macro"] = ids.max_data_count;
    values.flags["runtime_data_count"] = spec.runtime_data_count;
    values.text["max_data_count"] = std::to_string(copy.data_count_bound);
    values.flags["bool"] = type.id == DType::Bool;
    values.flags["complex"] = type.category == Category::Complex;
    values.text["element_type"] = std::string(type.c_type);
    auto& sizes = values.lists["sizes"];
    auto add = [&](const std::string& tensor, uint64_t count) {
        TemplateValues size;
        size.text["macro"] = ids.size(tensor);
        size.text["count"] = std::to_string(count);
        sizes.push_back(size);
    };
    add("DATA", copy.data_size);
    add("INDICES", copy.indices_size);
    if (is_scatter(spec.op)) add("UPDATES", copy.updates_size);
    add("OUTPUT", copy.output_size);
    values.text["operator"] = operator_wording(spec);
    values.text["dtype"] = std::string(type.name);
    values.text["index_dtype"] = std::string(name(spec.index_dtype));
    values.text["data_shape"] = format_shape(spec.data_shape);
    values.text["data_note"] = !spec.constant_data ? ""
                               : constant_note(spec, *spec.constant_data) +
                                     (spec.quantization ? ", as " + quantized_type_name(spec.quantization->type) + " values (" +
                                                              quantization_mode(*spec.quantization) +
                                                              "), each gathered one dequantized: (q - zero_point) * scale"
                                                        : std::string());
    values.text["indices_shape"] = format_shape(spec.indices_shape);
    values.text["updates_shape"] = format_shape(spec.updates_shape);
    values.text["updates_note"] = spec.constant_updates ? constant_note(spec, *spec.constant_updates) : "";
    values.flags["in_place"] = !spec.constant_data;
    values.text["output_shape"] = format_shape(spec.output_shape);
    values.text["indices_note"] = indices_note(spec, copy);
    values.text["formula"] = copy.formula;
    values.flags["scatter"] = is_scatter(spec.op);
    values.flags["write_indices"] = spec.op == Op::TensorScatter;
    values.text["write_range"] = "";
    if (spec.op == Op::TensorScatter) {
        const auto axis = static_cast<size_t>(spec.axis);
        values.text["write_range"] = spec.mode == KernelSpec::WriteMode::Circular
                                         ? "[0, " + std::string(spec.index_dtype == IndexType::Int32 ? "INT32_MAX" : "INT64_MAX") + "]"
                                         : "[0, " + std::to_string(spec.data_shape[axis] - spec.updates_shape[axis]) +
                                               "] (max_sequence_length - sequence_length)";
    }
    values.text["duplicates"] = duplicates_wording(spec, copy);
    // Constant indices beside a run-time data count are checked at run time, as indices passed in are.
    const bool constant_checked =
        spec.constant_indices && spec.runtime_data_count && element_count(spec.indices_shape) > 0;
    values.flags["constant"] = spec.constant_indices && !constant_checked;
    values.flags["constant_checked"] = constant_checked;
    values.flags["runtime_count"] = spec.runtime_count;
    values.text["sizes_note"] = spec.runtime_count && spec.runtime_data_count ? ", at the largest counts"
                                : spec.runtime_count                          ? ", at the largest count"
                                : spec.runtime_data_count                     ? ", at the largest data count"
                                                                              : "";
    values.text["max_count"] = std::to_string(copy.count_bound);
    values.flags["data_rows"] = spec.count_leads == CountLeads::Data;
    values.text["counted"] = spec.count_leads == CountLeads::Data ? "data and output"
                             : is_scatter(spec.op)                 ? "indices and updates"
                                                                   : "indices and output";
    values.flags["checked"] = (!spec.constant_indices || constant_checked) && spec.index_check == IndexCheck::Checked;
    values.flags["unchecked"] = !spec.constant_indices && spec.index_check == IndexCheck::None;
    values.text["prototype"] = prototype(spec, false);
    return values;
}

}  // namespace kernelgen
