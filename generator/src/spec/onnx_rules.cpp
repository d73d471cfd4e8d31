// ONNX's rules for each operator as the spec reader applies them: the axis, ranks and shapes of Gather,
// GatherElements, GatherND, ScatterND, ScatterElements and TensorScatter (with ONNX Runtime's rule where ONNX is
// silent), the shapes they derive, reductions per element type; and constant indices, each checked against the
// axis it selects along.
#include <algorithm>
#include <map>

#include "common/hints.h"
#include "common/shape_math.h"
#include "spec/kernel_reader.h"

namespace kernelgen {

using nlohmann::json;

namespace {

// "axis": default 0, negative counts from the back, range [-r, r-1].
void read_axis(KernelReader& r, KernelSpec& spec) {
    const auto rank = static_cast<int64_t>(spec.data_shape.size());
    const std::string allowed = "allowed " + std::to_string(-rank) + ".." + std::to_string(rank - 1);
    auto axis = r.read_integer("axis", allowed);
    if (!axis) return;
    if (*axis < -rank || *axis >= rank) {
        r.fail("axis", "axis " + r.find("axis")->dump() + " is out of range for data of rank " + std::to_string(rank) + " (" + allowed + ")");
        return;
    }
    spec.axis = *axis < 0 ? *axis + rank : *axis;
}

void require_data_rank(KernelReader& r, const KernelSpec& spec) {
    if (spec.data_shape.empty()) r.fail("data_shape", "data must have rank >= 1 (a non-empty array of dimensions)");
}

void require_indices_rank(KernelReader& r, const KernelSpec& spec) {
    if (spec.indices_shape.empty()) {
        r.fail("indices_shape", std::string(name(spec.op)) + " needs indices of rank >= 1 (a non-empty array of dimensions)");
    }
}

void resolve_gather(KernelReader& r, KernelSpec& spec) {
    const size_t mark = r.problems();
    require_data_rank(r, spec);
    if (!r.clean_since(mark)) return;
    read_axis(r, spec);
    if (!r.clean_since(mark)) return;
    const auto axis = static_cast<size_t>(spec.axis);
    spec.output_shape.assign(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis));
    spec.output_shape.insert(spec.output_shape.end(), spec.indices_shape.begin(), spec.indices_shape.end());
    spec.output_shape.insert(spec.output_shape.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, spec.data_shape.end());
}

// The rules GatherElements and ScatterElements share: the axis, equal ranks, and indices dimensions at most
// data's off the axis (ONNX Runtime's rule). True when they hold.
bool read_elements_rules(KernelReader& r, KernelSpec& spec) {
    const size_t mark = r.problems();
    require_data_rank(r, spec);
    if (!r.clean_since(mark)) return false;
    read_axis(r, spec);
    if (!r.clean_since(mark)) return false;
    if (spec.indices_shape.size() != spec.data_shape.size()) {
        r.fail("indices_shape", "indices have rank " + std::to_string(spec.indices_shape.size()) + " but data " +
                                  format_shape(spec.data_shape) + " has rank " + std::to_string(spec.data_shape.size()) +
                                  " (" + std::string(name(spec.op)) + " needs equal ranks)");
        return false;
    }
    for (size_t i = 0; i < spec.data_shape.size(); ++i) {
        if (static_cast<int64_t>(i) != spec.axis && spec.indices_shape[i] > spec.data_shape[i]) {
            r.fail("indices_shape/" + std::to_string(i),
                 "dimension " + std::to_string(spec.indices_shape[i]) + " exceeds data dimension " +
                     std::to_string(spec.data_shape[i]) + " (off the axis, allowed 0.." + std::to_string(spec.data_shape[i]) + ")");
        }
    }
    return r.clean_since(mark);
}

void resolve_gather_elements(KernelReader& r, KernelSpec& spec) {
    if (!read_elements_rules(r, spec)) return;
    spec.output_shape = spec.indices_shape;
}


// "updates_shape" of a scatter: optional, and when given it must be the shape the operator derives.
void read_updates_shape(KernelReader& r, KernelSpec& spec, const Shape& derived, const std::string& rule) {
    auto given = r.read_shape("updates_shape");
    if (given && *given != derived) {
        r.fail("updates_shape", "updates shape " + format_shape(*given) + " does not match " + format_shape(derived) + " (" + rule + ")");
        return;
    }
    spec.updates_shape = derived;
    spec.output_shape = spec.data_shape;
}

void read_reduction(KernelReader& r, KernelSpec& spec) {
    const std::string allowed = "none, add, mul, max or min; default none";
    auto text = r.read_string("reduction", allowed);
    if (!text) return;
    if (auto reduction = parse_reduction(*text)) {
        spec.reduction = *reduction;
        if (r.dtype_known() && !reduction_allowed(spec.dtype, *reduction)) {
            const std::string type(info(spec.dtype).name);
            const std::string why = info(spec.dtype).category == Category::String
                                        ? ": a kernel copies string pointers and never combines strings"
                                        : ": complex numbers have no order";
            r.fail("reduction", "reduction " + in_quotes(*text) + " is not defined for " + type + " (" + type +
                                  " allows " + allowed_reductions(spec.dtype) + why + ")");
        }
    } else {
        static const std::map<std::string, std::string, std::less<>> aliases{
            {"sum", "add"}, {"plus", "add"}, {"prod", "mul"}, {"product", "mul"}, {"multiply", "mul"},
            {"maximum", "max"}, {"minimum", "min"}, {"replace", "none"}, {"assign", "none"}};
        r.fail("reduction", "unknown reduction " + in_quotes(*text) + " (" + allowed + ")" +
                              did_you_mean_value(*text, {"none", "add", "mul", "max", "min"}, aliases));
    }
}

void resolve_scatter_elements(KernelReader& r, KernelSpec& spec) {
    read_reduction(r, spec);
    const size_t mark = r.problems();
    if (!read_elements_rules(r, spec)) {
        r.read_shape("updates_shape");  // its own problems are still reported
        return;
    }
    if (r.clean_since(mark)) read_updates_shape(r, spec, spec.indices_shape, "updates have the shape of indices");
}

// The leading batch dimensions and the index depth k shared by GatherND's and ScatterND's rules.
std::optional<uint64_t> read_index_depth(KernelReader& r, const KernelSpec& spec, int64_t batch_dims) {
    const uint64_t k = spec.indices_shape.back();
    const uint64_t most = spec.data_shape.size() - static_cast<uint64_t>(batch_dims);
    if (k < 1 || k > most) {
        const std::string what = batch_dims ? "data rank - batch_dims = " + std::to_string(most)
                                            : "data rank " + std::to_string(most);
        r.fail("indices_shape/" + std::to_string(spec.indices_shape.size() - 1),
             "index tuple length " + std::to_string(k) + " is out of range (indices_shape[-1] must be 1.." +
                 std::to_string(most) + ", the " + what + ")");
        return std::nullopt;
    }
    return k;
}

void resolve_gather_nd(KernelReader& r, KernelSpec& spec) {
    const size_t mark = r.problems();
    require_data_rank(r, spec);
    require_indices_rank(r, spec);
    if (!r.clean_since(mark)) return;
    const auto rank = static_cast<int64_t>(spec.data_shape.size());
    const auto q = static_cast<int64_t>(spec.indices_shape.size());
    const std::string allowed = "allowed 0.." + std::to_string(std::min(q, rank) - 1) + ", below min(indices rank, data rank)";
    if (auto b = r.read_integer("batch_dims", allowed)) {
        if (*b < 0 || *b >= std::min(q, rank)) {
            r.fail("batch_dims", "batch_dims " + r.find("batch_dims")->dump() + " is out of range (" + allowed + ")");
            return;
        }
        spec.batch_dims = *b;
    }
    const auto b = static_cast<size_t>(spec.batch_dims);
    for (size_t i = 0; i < b; ++i) {
        if (spec.indices_shape[i] != spec.data_shape[i]) {
            r.fail("indices_shape/" + std::to_string(i),
                 "batch dimension " + std::to_string(i) + " is " + std::to_string(spec.indices_shape[i]) +
                     " but data's is " + std::to_string(spec.data_shape[i]) + " (the first batch_dims dimensions must be equal)");
        }
    }
    if (!r.clean_since(mark)) return;
    auto k = read_index_depth(r, spec, spec.batch_dims);
    if (!k) return;
    spec.output_shape.assign(spec.indices_shape.begin(), spec.indices_shape.end() - 1);
    spec.output_shape.insert(spec.output_shape.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(b + *k), spec.data_shape.end());
}


void resolve_scatter_nd(KernelReader& r, KernelSpec& spec) {
    const size_t mark = r.problems();
    require_data_rank(r, spec);
    require_indices_rank(r, spec);
    read_reduction(r, spec);
    if (!r.clean_since(mark)) {
        r.read_shape("updates_shape");
        return;
    }
    auto k = read_index_depth(r, spec, 0);
    if (!k) {
        r.read_shape("updates_shape");
        return;
    }
    Shape updates(spec.indices_shape.begin(), spec.indices_shape.end() - 1);
    updates.insert(updates.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(*k), spec.data_shape.end());
    read_updates_shape(r, spec, updates, "indices_shape[:-1] + data_shape[k:], with k = indices_shape[-1] = " + std::to_string(*k));
}

// TensorScatter's "mode": "linear" (default) or "circular".
void read_write_mode(KernelReader& r, KernelSpec& spec) {
    const std::string allowed = "linear or circular; default linear";
    auto text = r.read_string("mode", allowed);
    if (!text) return;
    if (*text == "linear") spec.mode = KernelSpec::WriteMode::Linear;
    else if (*text == "circular") spec.mode = KernelSpec::WriteMode::Circular;
    else {
        r.fail("mode", "unknown mode " + in_quotes(*text) + " (" + allowed + ")" +
                         did_you_mean_value(*text, {"linear", "circular"}, {{"ring", "circular"}, {"wrap", "circular"}}));
    }
}

// TensorScatter: data is past_cache (batch, ..., max_sequence_length, ...), updates_shape update's shape (the same
// but for the sequence axis, at most max long), indices write_indices, one per batch row; "axis" (default -2) is
// the sequence axis, never 0 (the batch); "mode" linear or circular.
void resolve_tensor_scatter(KernelReader& r, KernelSpec& spec) {
    const size_t mark = r.problems();
    read_write_mode(r, spec);
    if (spec.data_shape.size() < 2) {
        r.fail("data_shape", "TensorScatter's past cache needs rank >= 2 (a batch axis and a sequence axis), got " +
                               format_shape(spec.data_shape));
    }
    auto updates = r.read_shape("updates_shape");
    if (!r.clean_since(mark) || !updates) return;
    const auto rank = static_cast<int64_t>(spec.data_shape.size());
    const std::string allowed = "allowed 1.." + std::to_string(rank - 1) + " or " + std::to_string(-rank + 1) + "..-1; default -2";
    spec.axis = rank - 2;
    if (auto axis = r.read_integer("axis", allowed)) {
        if (*axis < -rank || *axis >= rank || *axis == 0 || *axis == -rank) {
            r.fail("axis", "axis " + r.find("axis")->dump() + " is out of range for TensorScatter's past cache of rank " +
                             std::to_string(rank) + " (" + allowed + "; axis 0 is the batch)");
            return;
        }
        spec.axis = *axis < 0 ? *axis + rank : *axis;
    }
    if (!r.clean_since(mark)) return;
    const auto axis = static_cast<size_t>(spec.axis);
    if (updates->size() != spec.data_shape.size()) {
        r.fail("updates_shape", "update has rank " + std::to_string(updates->size()) + " but the past cache " +
                                  format_shape(spec.data_shape) + " has rank " + std::to_string(rank) + " (they must be equal)");
        return;
    }
    for (size_t i = 0; i < updates->size(); ++i) {
        const uint64_t given = (*updates)[i], cache = spec.data_shape[i];
        if (i != axis && given != cache) {
            r.fail("updates_shape/" + std::to_string(i), "dimension " + std::to_string(given) + " differs from the past cache's " +
                                                           std::to_string(cache) + " (only the sequence axis " +
                                                           std::to_string(axis) + " may differ)");
        } else if (i == axis && given > cache) {
            r.fail("updates_shape/" + std::to_string(i), "sequence length " + std::to_string(given) +
                                                           " exceeds the past cache's " + std::to_string(cache) +
                                                           " (max_sequence_length: allowed 0.." + std::to_string(cache) + ")");
        }
    }
    if (spec.indices_shape != Shape{spec.data_shape[0]}) {
        r.fail("indices_shape", "write indices of shape " + format_shape(spec.indices_shape) + ": TensorScatter takes one per " +
                                  "batch row, [" + std::to_string(spec.data_shape[0]) + "]");
    }
    if (!r.clean_since(mark)) return;
    spec.updates_shape = *updates;
    spec.output_shape = spec.data_shape;
}

}  // namespace

void apply_operator_rules(KernelReader& r, KernelSpec& spec) {
    switch (spec.op) {
        case Op::Gather: resolve_gather(r, spec); break;
        case Op::GatherElements: resolve_gather_elements(r, spec); break;
        case Op::GatherND: resolve_gather_nd(r, spec); break;
        case Op::ScatterND: resolve_scatter_nd(r, spec); break;
        case Op::ScatterElements: resolve_scatter_elements(r, spec); break;
        case Op::TensorScatter: resolve_tensor_scatter(r, spec); break;
    }
}

// The data axis the value at flat position `at` of indices selects along.
size_t selected_axis(const KernelSpec& spec, uint64_t at) {
    switch (spec.op) {
        case Op::Gather:
        case Op::GatherElements:
        case Op::ScatterElements: return static_cast<size_t>(spec.axis);
        case Op::GatherND: return static_cast<size_t>(spec.batch_dims) + static_cast<size_t>(at % spec.indices_shape.back());
        case Op::ScatterND: return static_cast<size_t>(at % spec.indices_shape.back());
        case Op::TensorScatter: return static_cast<size_t>(spec.axis);
    }
    return 0;
}

// The values an index at flat position `at` of indices may take: [-s, s-1] for the size s of its data axis; a
// TensorScatter's write index 0..max - sequence length (linear) or any value from 0 (circular).
IndexRange index_range(const KernelSpec& spec, uint64_t at) {
    const int64_t type_low = spec.index_dtype == IndexType::Int32 ? INT32_MIN : INT64_MIN;
    const int64_t type_high = spec.index_dtype == IndexType::Int32 ? INT32_MAX : INT64_MAX;
    if (spec.op == Op::TensorScatter) {
        const auto axis = static_cast<size_t>(spec.axis);
        const uint64_t max = spec.data_shape[axis], length = spec.updates_shape[axis];
        const int64_t high = spec.mode == KernelSpec::WriteMode::Circular ? type_high
                                                                          : static_cast<int64_t>(max - length);
        const std::string what = spec.mode == KernelSpec::WriteMode::Circular
                                     ? "a circular write into a cache of " + std::to_string(max)
                                     : "a linear write of " + std::to_string(length) + " positions into a cache of " +
                                           std::to_string(max);
        return {0, high, what, "allowed 0.." + std::to_string(high)};
    }
    const size_t axis = selected_axis(spec, at);
    const uint64_t size = spec.data_shape[axis];
    const int64_t low = std::max(-static_cast<int64_t>(size), type_low);
    const int64_t high = std::min(static_cast<int64_t>(size) - 1, type_high);
    const std::string what = "data axis " + std::to_string(axis) + " of size " + std::to_string(size) +
                             (high < static_cast<int64_t>(size) - 1 ? " with int32 indices" : "");
    return {low, high, what,
            size == 0 ? "data axis " + std::to_string(axis) + " has size 0, so no index is valid"
                      : "allowed " + std::to_string(low) + ".." + std::to_string(high)};
}

void read_constant_indices(KernelReader& r, KernelSpec& spec) {
    const json* value = r.find("indices");
    if (!value) return;
    if (r.find("index_check")) {
        r.fail("index_check", "\"index_check\" does not apply to constant indices: they are checked when the kernel is "
                            "generated (remove \"index_check\" or \"indices\")");
        return;
    }
    if (r.find("prefetch")) {
        r.fail("prefetch", "\"prefetch\" does not apply to constant indices: the kernel reads no index at run time "
                         "(remove \"prefetch\" or \"indices\")");
        return;
    }
    const Shape& shape = spec.indices_shape;
    const std::string layout = shape.empty() ? "an integer, as indices_shape is []"
                                             : "arrays nested as indices_shape " + format_shape(shape) +
                                                   ", or a flat array of " + std::to_string(element_count(shape)) +
                                                   " integers";
    auto located = r.nested_values(*value, "indices", shape, [](const json& item) { return !item.is_array(); }, layout);
    if (!located) return;
    const KernelReader::Located& values = *located;
    std::vector<int64_t> resolved;
    size_t bad = 0;
    constexpr size_t kShown = 8;  // problems listed one by one; the rest are counted
    for (size_t at = 0; at < values.size(); ++at) {
        const auto& [item, where] = values[at];
        const IndexRange range = index_range(spec, at);
        const int64_t low = range.low, high = range.high;
        std::string problem;
        if (item->is_array() && shape.empty()) {
            problem = "expected an integer, got array (" + layout + ")";
        } else if (!item->is_number_integer()) {
            problem = "expected an integer, got " + json_type(*item) + " " + item->dump() + " (" + layout + ")";
        } else if ((item->is_number_unsigned() && item->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) ||
                   item->get<int64_t>() < low || item->get<int64_t>() > high) {
            problem = "index " + item->dump() + " is out of range for " + range.what + " (" + range.allowed + ")";
        } else {
            resolved.push_back(item->get<int64_t>());
            continue;
        }
        if (++bad <= kShown) r.fail(where, problem);
    }
    if (bad > kShown) r.fail("indices", std::to_string(bad - kShown) + " more constant indices are invalid (" + std::to_string(bad) + " in all)");
    if (bad == 0) spec.constant_indices = std::move(resolved);
}

}  // namespace kernelgen
