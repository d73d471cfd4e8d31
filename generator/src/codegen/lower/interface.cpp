// The face of a kernel, decided once from its spec and its lowering: its parameters in prototype order, the macros
// its header defines (the sizes, the counts' bounds, the return codes) and the header's contract (kernel.h.mustache:
// the operator with its attributes, the shapes, each index's range or the constant values). The prototype, the
// definition, the run-wide name rule and import's names all take them from here.
#include <algorithm>
#include <filesystem>

#include "codegen/lower/lowered.h"
#include "common/c_names.h"

namespace kernelgen {

namespace {

// The constant index values, when few enough to read in a comment.
std::string constant_indices_note(const std::vector<int64_t>& values) {
    if (values.size() > 16) return ", constant (" + std::to_string(values.size()) + " values given in the spec)";
    std::string list;
    for (int64_t value : values) list += (list.empty() ? "" : ", ") + std::to_string(value);
    return ", constant: " + (list.empty() ? "none" : list);
}

// "indices_add": what is added to the value read at position (i0, i1, ...) of indices_shape, ", plus 2 + i1".
std::string addend_text(const KernelSpec& spec) {
    if (!spec.indices_add) return "";
    std::string out = std::to_string(spec.indices_add->start);
    for (size_t i = 0; i < spec.indices_add->steps.size(); ++i) {
        const int64_t step = spec.indices_add->steps[i];
        if (step == 0) continue;
        const std::string size = std::to_string(step < 0 ? -step : step);
        out += (step < 0 ? " - " : " + ") + (size == "1" ? "" : size + " * ") + "i" + std::to_string(i);
    }
    return ", each plus " + out + " at indices_shape's (i0, i1, ...)";
}

// "tuple_constants": each index tuple of indices_shape, its constants and the values read (v0, v1, ...).
std::string tuple_text(const KernelSpec& spec) {
    if (!spec.tuple_constants) return "";
    std::string out;
    size_t read = 0;
    for (const auto& constant : *spec.tuple_constants) {
        out += (out.empty() ? "" : ", ") + (constant ? std::to_string(*constant) : "v" + std::to_string(read++));
    }
    return ", the tuples of " + format_shape(spec.indices_shape) + " (" + out + ") of the values v read";
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
        const CheckedRange shifted = checked_range(component, spec.index_dtype);
        bounds += (bounds.empty() ? "" : ", ") +
                  (component.shifted() ? "[" + std::to_string(shifted.low) + ", " + std::to_string(shifted.high) + "]"
                   : !component.bound_parameter.empty()
                       ? "[-" + component.bound_parameter + ", " + component.bound_parameter + "-1]"
                       : "[-" + std::to_string(component.bound) + ", " + std::to_string(static_cast<int64_t>(component.bound) - 1) + "]");
    }
    if (empty_axis) return ", none in range (an axis of size 0)";
    return copy.components.size() > 1 ? ", tuples of " + std::to_string(copy.components.size()) + " in " + bounds
                                      : ", each in " + bounds;
}

// The parameters, with the counts after the tensor each follows. In the definition, indices and updates are
// `restrict`: the contract keeps them apart from output, so compilers need not assume a store to output changes
// them, and a reduction's element loop vectorizes without run-time overlap tests. (C99 ignores such qualifiers when
// it compares the definition with the prototype, and the header stays valid C++.) data and output are left
// unqualified: a scatter's may be one buffer, and for the gathers the qualifier buys nothing (GCC then vectorizes
// GatherElements' address arithmetic, which is slower than the scalar code).
std::vector<Parameter> parameters(const KernelSpec& spec, const Lowered& lowered) {
    using schedule::Tensor;
    const Interface& face = lowered.face;
    std::vector<Parameter> out;
    auto counts_after = [&](Tensor tensor) {
        for (const RuntimeCount& count : face.counts) {
            if (count.after == tensor) out.push_back(Parameter{count.parameter, "uint32_t ", false, false, tensor});
        }
    };
    if (!spec.constant_data) out.push_back(Parameter{"data", face.pointer_to_element(true), false, true, Tensor::Data});
    counts_after(Tensor::Data);
    if (!spec.constant_indices) out.push_back(Parameter{"indices", "const " + face.index + " *", true, true, Tensor::Indices});
    counts_after(Tensor::Indices);
    if (is_scatter(spec.op) && !spec.constant_updates) {
        out.push_back(Parameter{"updates", face.pointer_to_element(true), true, true, Tensor::Updates});
    }
    out.push_back(Parameter{"output", face.pointer_to_element(false), false, true, Tensor::Output});
    return out;
}

// The counts in the order of their return codes (-2, -3, ...), as the header lists their macros.
std::vector<const RuntimeCount*> by_error_code(const std::vector<RuntimeCount>& counts) {
    std::vector<const RuntimeCount*> out;
    for (const RuntimeCount& count : counts) out.push_back(&count);
    std::sort(out.begin(), out.end(), [](const RuntimeCount* a, const RuntimeCount* b) { return a->error_value > b->error_value; });
    return out;
}

}  // namespace

std::string shown_file_name(const std::string& file) { return comment_safe(std::filesystem::path(file).filename().string()); }

std::string Interface::pointer_to_element(bool read_only) const {
    if (element.back() == '*') return element + (read_only ? "const *" : "*");
    return (read_only ? "const " : "") + element + " *";
}

std::string Interface::parameter_list(bool definition) const {
    std::string list;
    for (const Parameter& parameter : parameters) {
        list += (list.empty() ? "" : ", ") + parameter.type + (definition && parameter.restricted ? "restrict " : "") + parameter.name;
    }
    return list;
}

std::string Interface::argument_list() const {
    std::string list;
    for (const Parameter& parameter : parameters) list += (list.empty() ? "" : ", ") + parameter.name;
    return list;
}

std::string Interface::prototype(bool definition) const { return "int " + ids.function + "(" + parameter_list(definition) + ")"; }

std::vector<std::string> Interface::identifiers() const {
    std::vector<std::string> out{ids.function, ids.guard};
    for (const auto& size : sizes) out.push_back(size.first);
    const auto counts_in_order = by_error_code(counts);
    for (const RuntimeCount* count : counts_in_order) out.push_back(count->max_macro);
    out.insert(out.end(), {ids.ok, ids.error_index});
    for (const RuntimeCount* count : counts_in_order) out.push_back(count->error_macro);
    return out;
}

std::vector<std::string> header_identifiers(const KernelSpec& spec) { return lower(spec).face.identifiers(); }

void lower_interface(const KernelSpec& spec, Lowered& lowered) {
    Interface& face = lowered.face;
    const IndexedCopy& copy = lowered.copy;
    const DTypeInfo& type = info(spec.dtype);
    face.element = std::string(type.c_type);
    face.index = std::string(c_type(spec.index_dtype));
    face.element_is_double = type.ieee_double;
    face.banner_source = comment_safe(std::filesystem::path(spec.spec_file).filename().string()) +
                         (spec.pointer.empty() ? "" : " (" + spec.pointer + ")");
    face.sizes = {{face.ids.size("DATA"), copy.data_size}, {face.ids.size("INDICES"), copy.indices_size}};
    if (is_scatter(spec.op)) face.sizes.push_back({face.ids.size("UPDATES"), copy.updates_size});
    face.sizes.push_back({face.ids.size("OUTPUT"), copy.output_size});
    face.parameters = parameters(spec, lowered);

    TemplateValues& values = face.contract;
    values.text["guard"] = face.ids.guard;
    values.text["ok"] = face.ids.ok;
    values.text["error_index"] = face.ids.error_index;
    values.flags["bool"] = type.id == DType::Bool;
    values.flags["complex"] = type.category == Category::Complex;
    values.text["element_type"] = face.element;
    auto& sizes = values.lists["sizes"];
    for (const auto& [macro, count] : face.sizes) sizes.push_back(TemplateValues{{{"macro", macro}, {"count", std::to_string(count)}}, {}, {}});
    values.text["dtype"] = std::string(type.name);
    values.text["index_dtype"] = std::string(name(spec.index_dtype));
    values.text["data_shape"] = format_shape(spec.data_shape);
    values.text["indices_shape"] = spec.indices_broadcast_from ? format_shape(*spec.indices_broadcast_from) + " broadcast to " +
                                                                     format_shape(spec.taken_shape())
                                                               : format_shape(spec.taken_shape());
    values.text["indices_shape"] += tuple_text(spec) + addend_text(spec);
    values.text["updates_shape"] = spec.updates_broadcast_from ? format_shape(*spec.updates_broadcast_from) + " broadcast to " +
                                                                     format_shape(spec.updates_shape)
                                                               : format_shape(spec.updates_shape);
    values.text["output_shape"] = format_shape(spec.output_shape);
    values.text["indices_note"] = indices_note(spec, copy);
    values.text["formula"] = copy.formula;
    values.flags["scatter"] = is_scatter(spec.op);
    values.text["prototype"] = face.prototype(false);
}

}  // namespace kernelgen
