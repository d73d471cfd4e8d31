// ONNX's rules for each operator as the spec reader applies them: the axis, ranks and shapes of Gather,
// GatherElements, GatherND, ScatterND and ScatterElements (with ONNX Runtime's rule where ONNX is silent), the
// shapes they derive, reductions per element type, run-time counts and constant indices.
#include <algorithm>
#include <map>

#include "common/hints.h"
#include "common/shape_math.h"
#include "spec/kernel_reader.h"

namespace kernelgen {

using nlohmann::json;

// "axis": default 0, negative counts from the back, range [-r, r-1].
void KernelReader::read_axis(KernelSpec& spec) {
    const auto rank = static_cast<int64_t>(spec.data_shape.size());
    const std::string allowed = "allowed " + std::to_string(-rank) + ".." + std::to_string(rank - 1);
    auto axis = read_integer("axis", allowed);
    if (!axis) return;
    if (*axis < -rank || *axis >= rank) {
        fail("axis", "axis " + find("axis")->dump() + " is out of range for data of rank " + std::to_string(rank) + " (" + allowed + ")");
        return;
    }
    spec.axis = *axis < 0 ? *axis + rank : *axis;
}

void KernelReader::require_data_rank(const KernelSpec& spec) {
    if (spec.data_shape.empty()) fail("data_shape", "data must have rank >= 1 (a non-empty array of dimensions)");
}

void KernelReader::require_indices_rank(const KernelSpec& spec) {
    if (spec.indices_shape.empty()) {
        fail("indices_shape", std::string(name(spec.op)) + " needs indices of rank >= 1 (a non-empty array of dimensions)");
    }
}

void KernelReader::resolve_gather(KernelSpec& spec) {
    const size_t mark = problems_;
    require_data_rank(spec);
    if (!clean_since(mark)) return;
    read_axis(spec);
    if (!clean_since(mark)) return;
    const auto axis = static_cast<size_t>(spec.axis);
    spec.output_shape.assign(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis));
    spec.output_shape.insert(spec.output_shape.end(), spec.indices_shape.begin(), spec.indices_shape.end());
    spec.output_shape.insert(spec.output_shape.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, spec.data_shape.end());
}

void KernelReader::resolve_gather_elements(KernelSpec& spec) {
    if (!read_elements_rules(spec)) return;
    spec.output_shape = spec.indices_shape;
}

// The rules GatherElements and ScatterElements share: the axis, equal ranks, and indices dimensions at most
// data's off the axis (ONNX Runtime's rule). True when they hold.
bool KernelReader::read_elements_rules(KernelSpec& spec) {
    const size_t mark = problems_;
    require_data_rank(spec);
    if (!clean_since(mark)) return false;
    read_axis(spec);
    if (!clean_since(mark)) return false;
    if (spec.indices_shape.size() != spec.data_shape.size()) {
        fail("indices_shape", "indices have rank " + std::to_string(spec.indices_shape.size()) + " but data " +
                                  format_shape(spec.data_shape) + " has rank " + std::to_string(spec.data_shape.size()) +
                                  " (" + std::string(name(spec.op)) + " needs equal ranks)");
        return false;
    }
    for (size_t i = 0; i < spec.data_shape.size(); ++i) {
        if (static_cast<int64_t>(i) != spec.axis && spec.indices_shape[i] > spec.data_shape[i]) {
            fail("indices_shape/" + std::to_string(i),
                 "dimension " + std::to_string(spec.indices_shape[i]) + " exceeds data dimension " +
                     std::to_string(spec.data_shape[i]) + " (off the axis, allowed 0.." + std::to_string(spec.data_shape[i]) + ")");
        }
    }
    return clean_since(mark);
}

// "updates_shape" of a scatter: optional, and when given it must be the shape the operator derives.
void KernelReader::read_updates_shape(KernelSpec& spec, const Shape& derived, const std::string& rule) {
    auto given = read_shape("updates_shape");
    if (given && *given != derived) {
        fail("updates_shape", "updates shape " + format_shape(*given) + " does not match " + format_shape(derived) + " (" + rule + ")");
        return;
    }
    spec.updates_shape = derived;
    spec.output_shape = spec.data_shape;
}

void KernelReader::resolve_scatter_elements(KernelSpec& spec) {
    read_reduction(spec);
    const size_t mark = problems_;
    if (!read_elements_rules(spec)) {
        read_shape("updates_shape");  // its own problems are still reported
        return;
    }
    if (clean_since(mark)) read_updates_shape(spec, spec.indices_shape, "updates have the shape of indices");
}

// The leading batch dimensions and the index depth k shared by GatherND's and ScatterND's rules.
std::optional<uint64_t> KernelReader::read_index_depth(const KernelSpec& spec, int64_t batch_dims) {
    const uint64_t k = spec.indices_shape.back();
    const uint64_t most = spec.data_shape.size() - static_cast<uint64_t>(batch_dims);
    if (k < 1 || k > most) {
        const std::string what = batch_dims ? "data rank - batch_dims = " + std::to_string(most)
                                            : "data rank " + std::to_string(most);
        fail("indices_shape/" + std::to_string(spec.indices_shape.size() - 1),
             "index tuple length " + std::to_string(k) + " is out of range (indices_shape[-1] must be 1.." +
                 std::to_string(most) + ", the " + what + ")");
        return std::nullopt;
    }
    return k;
}

void KernelReader::resolve_gather_nd(KernelSpec& spec) {
    const size_t mark = problems_;
    require_data_rank(spec);
    require_indices_rank(spec);
    if (!clean_since(mark)) return;
    const auto r = static_cast<int64_t>(spec.data_shape.size());
    const auto q = static_cast<int64_t>(spec.indices_shape.size());
    const std::string allowed = "allowed 0.." + std::to_string(std::min(q, r) - 1) + ", below min(indices rank, data rank)";
    if (auto b = read_integer("batch_dims", allowed)) {
        if (*b < 0 || *b >= std::min(q, r)) {
            fail("batch_dims", "batch_dims " + find("batch_dims")->dump() + " is out of range (" + allowed + ")");
            return;
        }
        spec.batch_dims = *b;
    }
    const auto b = static_cast<size_t>(spec.batch_dims);
    for (size_t i = 0; i < b; ++i) {
        if (spec.indices_shape[i] != spec.data_shape[i]) {
            fail("indices_shape/" + std::to_string(i),
                 "batch dimension " + std::to_string(i) + " is " + std::to_string(spec.indices_shape[i]) +
                     " but data's is " + std::to_string(spec.data_shape[i]) + " (the first batch_dims dimensions must be equal)");
        }
    }
    if (!clean_since(mark)) return;
    auto k = read_index_depth(spec, spec.batch_dims);
    if (!k) return;
    spec.output_shape.assign(spec.indices_shape.begin(), spec.indices_shape.end() - 1);
    spec.output_shape.insert(spec.output_shape.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(b + *k), spec.data_shape.end());
}

void KernelReader::read_reduction(KernelSpec& spec) {
    const std::string allowed = "none, add, mul, max or min; default none";
    auto text = read_string("reduction", allowed);
    if (!text) return;
    if (auto reduction = parse_reduction(*text)) {
        spec.reduction = *reduction;
        if (dtype_known_ && !reduction_allowed(spec.dtype, *reduction)) {
            const std::string type(info(spec.dtype).name);
            const std::string why = info(spec.dtype).category == Category::String
                                        ? ": a kernel copies string pointers and never combines strings"
                                        : ": complex numbers have no order";
            fail("reduction", "reduction " + in_quotes(*text) + " is not defined for " + type + " (" + type +
                                  " allows " + allowed_reductions(spec.dtype) + why + ")");
        }
    } else {
        static const std::map<std::string, std::string, std::less<>> aliases{
            {"sum", "add"}, {"plus", "add"}, {"prod", "mul"}, {"product", "mul"}, {"multiply", "mul"},
            {"maximum", "max"}, {"minimum", "min"}, {"replace", "none"}, {"assign", "none"}};
        fail("reduction", "unknown reduction " + in_quotes(*text) + " (" + allowed + ")" +
                              did_you_mean_value(*text, {"none", "add", "mul", "max", "min"}, aliases));
    }
}

void KernelReader::resolve_scatter_nd(KernelSpec& spec) {
    const size_t mark = problems_;
    require_data_rank(spec);
    require_indices_rank(spec);
    read_reduction(spec);
    if (!clean_since(mark)) {
        read_shape("updates_shape");
        return;
    }
    auto k = read_index_depth(spec, 0);
    if (!k) {
        read_shape("updates_shape");
        return;
    }
    Shape updates(spec.indices_shape.begin(), spec.indices_shape.end() - 1);
    updates.insert(updates.end(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(*k), spec.data_shape.end());
    read_updates_shape(spec, updates, "indices_shape[:-1] + data_shape[k:], with k = indices_shape[-1] = " + std::to_string(*k));
}

// TensorScatter: data is past_cache (batch, ..., max_sequence_length, ...), updates_shape update's shape (the same
// but for the sequence axis, at most max long), indices write_indices, one per batch row; "axis" (default -2) is
// the sequence axis, never 0 (the batch); "mode" linear or circular.
void KernelReader::resolve_tensor_scatter(KernelSpec& spec) {
    const size_t mark = problems_;
    read_write_mode(spec);
    if (spec.data_shape.size() < 2) {
        fail("data_shape", "TensorScatter's past cache needs rank >= 2 (a batch axis and a sequence axis), got " +
                               format_shape(spec.data_shape));
    }
    auto updates = read_shape("updates_shape");
    if (!clean_since(mark) || !updates) return;
    const auto rank = static_cast<int64_t>(spec.data_shape.size());
    const std::string allowed = "allowed 1.." + std::to_string(rank - 1) + " or " + std::to_string(-rank + 1) + "..-1; default -2";
    spec.axis = rank - 2;
    if (auto axis = read_integer("axis", allowed)) {
        if (*axis < -rank || *axis >= rank || *axis == 0 || *axis == -rank) {
            fail("axis", "axis " + find("axis")->dump() + " is out of range for TensorScatter's past cache of rank " +
                             std::to_string(rank) + " (" + allowed + "; axis 0 is the batch)");
            return;
        }
        spec.axis = *axis < 0 ? *axis + rank : *axis;
    }
    if (!clean_since(mark)) return;
    const auto axis = static_cast<size_t>(spec.axis);
    if (updates->size() != spec.data_shape.size()) {
        fail("updates_shape", "update has rank " + std::to_string(updates->size()) + " but the past cache " +
                                  format_shape(spec.data_shape) + " has rank " + std::to_string(rank) + " (they must be equal)");
        return;
    }
    for (size_t i = 0; i < updates->size(); ++i) {
        const uint64_t given = (*updates)[i], cache = spec.data_shape[i];
        if (i != axis && given != cache) {
            fail("updates_shape/" + std::to_string(i), "dimension " + std::to_string(given) + " differs from the past cache's " +
                                                           std::to_string(cache) + " (only the sequence axis " +
                                                           std::to_string(axis) + " may differ)");
        } else if (i == axis && given > cache) {
            fail("updates_shape/" + std::to_string(i), "sequence length " + std::to_string(given) +
                                                           " exceeds the past cache's " + std::to_string(cache) +
                                                           " (max_sequence_length: allowed 0.." + std::to_string(cache) + ")");
        }
    }
    if (spec.indices_shape != Shape{spec.data_shape[0]}) {
        fail("indices_shape", "write indices of shape " + format_shape(spec.indices_shape) + ": TensorScatter takes one per " +
                                  "batch row, [" + std::to_string(spec.data_shape[0]) + "]");
    }
    if (!clean_since(mark)) return;
    spec.updates_shape = *updates;
    spec.output_shape = spec.data_shape;
}

// TensorScatter's "mode": "linear" (default) or "circular".
void KernelReader::read_write_mode(KernelSpec& spec) {
    const std::string allowed = "linear or circular; default linear";
    auto text = read_string("mode", allowed);
    if (!text) return;
    if (*text == "linear") spec.mode = KernelSpec::WriteMode::Linear;
    else if (*text == "circular") spec.mode = KernelSpec::WriteMode::Circular;
    else {
        fail("mode", "unknown mode " + in_quotes(*text) + " (" + allowed + ")" +
                         did_you_mean_value(*text, {"linear", "circular"}, {{"ring", "circular"}, {"wrap", "circular"}}));
    }
}

// The values an index at flat position `at` of indices may take: [-s, s-1] for the size s of its data axis; a
// TensorScatter's write index 0..max - sequence length (linear) or any value from 0 (circular).
KernelReader::IndexRange KernelReader::index_range(const KernelSpec& spec, uint64_t at) {
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

// A count's key, whose one value is "runtime": true when it says so; otherwise reported.
bool KernelReader::read_runtime_setting(const std::string& key, const std::string& allowed) {
    auto text = read_string(key, allowed);
    if (!text) return false;
    if (*text == "runtime") return true;
    fail(key, "unknown " + key + " setting " + in_quotes(*text) + " (" + allowed + ")" +
                  did_you_mean_value(*text, {"runtime"}, {{"dynamic", "runtime"}, {"variable", "runtime"}}));
    return false;
}

// "count": "runtime": a leading dimension is a count passed at run time, up to its bound: that of indices
// (up to indices_shape[0]), or with "count_leads": "data" that of data (up to data_shape[0]). The count must
// lead every tensor it sizes, so that the first `count` rows of each are one dense prefix.
void KernelReader::read_count(KernelSpec& spec) {
    if (!find("count")) {
        if (find("count_leads")) {
            fail("count_leads", "\"count_leads\" says what a run-time count counts, and applies only with \"count\": "
                                "\"runtime\" (add \"count\": \"runtime\", or remove \"count_leads\")");
        }
        return;
    }
    if (!read_runtime_setting("count", "\"runtime\": indices_shape[0] bounds a count the caller passes; leave "
                                       "\"count\" out for a fixed count")) {
        return;
    }
    const auto leads = read_count_leads(spec);
    if (!leads) return;
    if (*leads == CountLeads::Indices && find("indices")) {
        fail("count", "a run-time count does not apply to constant indices, whose count is fixed (remove \"count\" or "
                      "\"indices\")");
        return;
    }
    if (!no_prefetch_with(spec, "a run-time count", "the hints would look ahead past the count")) return;
    if (!(*leads == CountLeads::Data ? data_rows_countable(spec) : index_rows_countable(spec))) return;
    const std::string bound_of = *leads == CountLeads::Data ? "data_shape" : "indices_shape";
    if (!bound_fits_uint32(bound_of, "run-time count", (*leads == CountLeads::Data ? spec.data_shape : spec.indices_shape)[0])) {
        return;
    }
    if (!selected_axes_have_elements(spec)) return;
    spec.runtime_count = true;
    spec.count_leads = *leads;
}

// The count is a uint32_t: a larger bound could never be reached, and its check would never fail.
bool KernelReader::bound_fits_uint32(const std::string& shape_key, const std::string& what, uint64_t bound) {
    if (bound <= UINT32_MAX) return true;
    fail(shape_key + "/0", "the bound of a " + what + ", " + shape_key + "[0], is " + std::to_string(bound) +
                               ", more than its uint32_t count can reach (at most " + std::to_string(UINT32_MAX) + ")");
    return false;
}

bool KernelReader::no_prefetch_with(const KernelSpec& spec, const std::string& what, const std::string& why) {
    if (!spec.prefetch_in_spec || spec.prefetch_in_spec->kind == Prefetch::Kind::None) return true;
    fail("prefetch", "\"prefetch\" does not combine with " + what + ": " + why +
                         " (remove \"prefetch\", or set it to \"none\")");
    return false;
}

bool KernelReader::selected_axes_have_elements(const KernelSpec& spec) {
    const uint64_t tuple = spec.op == Op::GatherND || spec.op == Op::ScatterND ? spec.indices_shape.back() : 1;
    for (uint64_t at = 0; at < tuple; ++at) {
        const size_t selected = selected_axis(spec, at);
        if (spec.data_shape[selected] == 0) {
            fail("data_shape/" + std::to_string(selected),
                 "a run-time count needs every data axis the indices select along to have elements (axis " +
                     std::to_string(selected) + " has size 0, where no index is valid)");
            return false;
        }
    }
    return true;
}

// "data_count": "runtime": data holds data_count valid rows (0..data_shape[0]), and the kernel is ONNX's operator on
// data of shape [data_count, ...]. It applies where the indices select among data's rows (along axis 0) and data's
// rows do not lead the output: Gather along axis 0, GatherND with batch_dims 0, GatherElements along axis 0; and
// where a scatter writes among them: ScatterElements along axis 0, ScatterND (whose output is then data_count
// rows too).
void KernelReader::read_data_count(KernelSpec& spec) {
    if (!find("data_count")) return;
    if (!read_runtime_setting("data_count", "\"runtime\": data_shape[0] bounds a count of data's valid rows the "
                                            "caller passes; leave \"data_count\" out for a fixed one")) {
        return;
    }
    if (spec.runtime_count && spec.count_leads == CountLeads::Data) {
        fail("data_count", "\"data_count\" does not combine with \"count_leads\": \"data\", whose count already is "
                           "data's leading dimension (along axis 1 or later); \"data_count\" bounds the indices along "
                           "axis 0 (remove one of them)");
        return;
    }
    if (!no_prefetch_with(spec, "a run-time data count", "the hints could look at rows beyond it")) return;
    if (spec.op == Op::Gather && spec.axis != 0) {
        fail("axis", "a run-time data count bounds the indices along data's axis 0: gather along axis 0 (here axis " +
                         std::to_string(spec.axis) + "), or, as data's rows then lead the output, count them with "
                         "\"count\": \"runtime\", \"count_leads\": \"data\"");
        return;
    }
    if (spec.op == Op::ScatterElements && spec.axis != 0) {
        fail("axis", "a run-time data count bounds the indices along data's axis 0 (here axis " +
                         std::to_string(spec.axis) + "): a scatter along another axis writes every row of data it "
                         "reaches, whose count is then the count of index rows (\"count\": \"runtime\" alone)");
        return;
    }
    if (spec.op == Op::GatherElements && spec.axis != 0) {
        fail("axis", "a run-time data count bounds the indices along data's axis 0 (here axis " +
                         std::to_string(spec.axis) + "): along another axis each row of output reads the same row of "
                         "data, so one count of index rows covers both (\"count\": \"runtime\" alone)");
        return;
    }
    if (spec.op == Op::GatherND && spec.batch_dims != 0) {
        fail("batch_dims", "a run-time data count needs batch_dims 0: data's leading dimension is then the range of "
                           "each tuple's first index, not a batch dimension");
        return;
    }
    const uint64_t bound = spec.data_shape[0];
    if (bound == 0) {
        fail("data_shape/0", "the bound of a run-time data count, data_shape[0], must be at least 1");
        return;
    }
    if (!bound_fits_uint32("data_shape", "run-time data count", bound)) return;
    if (!selected_axes_have_elements(spec)) return;
    spec.runtime_data_count = true;
}

// "count_leads": "indices" (the default) or "data", which only Gather takes; nothing when refused (reported).
std::optional<CountLeads> KernelReader::read_count_leads(const KernelSpec& spec) {
    const std::string allowed = "\"indices\" (default): the count is the leading dimension of indices; \"data\": of "
                                "data, for Gather along axis 1 or later";
    if (!find("count_leads")) return CountLeads::Indices;
    auto text = read_string("count_leads", allowed);
    if (!text) return std::nullopt;
    if (*text == "indices") return CountLeads::Indices;
    if (*text != "data") {
        fail("count_leads", "unknown count_leads setting " + in_quotes(*text) + " (" + allowed + ")" +
                                did_you_mean_value(*text, {"indices", "data"},
                                                   {{"index", "indices"}, {"idx", "indices"}, {"input", "data"}}));
        return std::nullopt;
    }
    std::string why;
    switch (spec.op) {
        case Op::Gather: return CountLeads::Data;
        case Op::GatherElements: why = "GatherElements' output has the shape of indices"; break;
        case Op::GatherND: why = "GatherND's output is indices_shape[:-1] + data_shape[batch_dims + k:]"; break;
        case Op::ScatterND:
        case Op::ScatterElements:
        case Op::TensorScatter:  // unreachable: it takes no count keys
            fail("count_leads", "\"count_leads\": \"data\" applies to Gather only: " + std::string(name(spec.op)) +
                                    (spec.op == Op::ScatterElements ? "'" : "'s") + " output is all of data, with updates written wherever the indices point, so "
                                    "its rows do not follow data's (count the rows of indices and updates with "
                                    "\"count_leads\": \"indices\")");
            return std::nullopt;
    }
    fail("count_leads", "\"count_leads\": \"data\" applies to Gather only: " + why +
                            ", so its rows follow the rows of indices, not of data (count those with \"count_leads\": "
                            "\"indices\")");
    return std::nullopt;
}

// A count of index rows: indices of rank 1 or more (2 for the tuples of GatherND and ScatterND), whose
// leading dimension leads the output (or updates) too. True when it applies; otherwise reported.
bool KernelReader::index_rows_countable(const KernelSpec& spec) {
    const Shape& indices = spec.indices_shape;
    const size_t needed = spec.op == Op::GatherND || spec.op == Op::ScatterND ? 2 : 1;
    if (indices.size() < needed) {
        fail("indices_shape", "a run-time count needs indices of rank " + std::to_string(needed) + " or more, whose " +
                                  "leading dimension is the count (here " + format_shape(indices) + ")");
        return false;
    }
    if (indices[0] == 0) {
        fail("indices_shape/0", "the bound of a run-time count, indices_shape[0], must be at least 1");
        return false;
    }
    const auto axis = static_cast<size_t>(spec.axis);
    if (spec.op == Op::Gather && std::any_of(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis),
                                             [](uint64_t dim) { return dim != 1; })) {
        fail("axis", "with a run-time count, the count must lead the output: data's dimensions before axis " +
                         std::to_string(axis) + " must all be 1, not " +
                         format_shape(Shape(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis))) +
                         " (gather along axis 0, or count data's rows with \"count_leads\": \"data\")");
        return false;
    }
    if (spec.op == Op::GatherND && spec.batch_dims != 0) {
        fail("batch_dims", "a run-time count needs batch_dims 0: the leading dimension of indices is then the count, "
                           "not a batch dimension");
        return false;
    }
    return true;
}

// A count of data rows (Gather): along axis 1 or later, data's leading dimension leads the output too
// (data_shape[:axis] + indices_shape + data_shape[axis + 1:]). True when it applies; otherwise reported.
bool KernelReader::data_rows_countable(const KernelSpec& spec) {
    if (spec.axis == 0) {
        const json* given = find("axis");
        const std::string axis = !given ? "0, the default" : given->dump() == "0" ? "0" : given->dump() + ", that is 0";
        fail("axis", "with \"count_leads\": \"data\" the count is data's leading dimension, which must lead the output "
                     "too: gather along axis 1 or later (here axis " + axis + "), or count the rows of indices with "
                     "\"count_leads\": \"indices\"");
        return false;
    }
    if (spec.data_shape[0] == 0) {
        fail("data_shape/0", "the bound of a run-time count of data rows, data_shape[0], must be at least 1");
        return false;
    }
    return true;
}

// The data axis the value at flat position `at` of indices selects along.
size_t KernelReader::selected_axis(const KernelSpec& spec, uint64_t at) {
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

// "indices": the index values themselves, when the model fixes them (an initializer): arrays nested as
// indices_shape (an integer for rank 0), or one flat array of every value in row-major order. Each value
// is checked against its axis here, so the kernel needs no check at run time (beside a run-time data count, the
// kernel holds them and checks those along axis 0 against the count too).
std::optional<KernelReader::Located> KernelReader::nested_values(const json& value, const std::string& key,
                                                                const Shape& shape, bool (*leaf)(const json&),
                                                                const std::string& layout) {
    const uint64_t count = element_count(shape);
    Located values;
    const bool flat = value.is_array() && value.size() == count &&
                      std::all_of(value.begin(), value.end(), leaf);
    if (flat) {
        for (size_t i = 0; i < value.size(); ++i) values.emplace_back(&value[i], key + "/" + std::to_string(i));
        return values;
    }
    // Breadth-first through the nesting: level d holds the arrays of dimension d.
    Located level{{&value, key}};
    for (uint64_t dim : shape) {
        Located next;
        for (const auto& [array, where] : level) {
            if (!array->is_array() || array->size() != dim) {
                fail(where, "expected an array of " + std::to_string(dim) + ", got " +
                                (array->is_array() ? "an array of " + std::to_string(array->size()) : json_type(*array)) +
                                " (" + layout + ")");
                return std::nullopt;
            }
            for (size_t i = 0; i < array->size(); ++i) next.emplace_back(&(*array)[i], where + "/" + std::to_string(i));
        }
        level = std::move(next);
    }
    return level;
}

void KernelReader::read_constant_indices(KernelSpec& spec) {
    const json* value = find("indices");
    if (!value) return;
    if (find("index_check")) {
        fail("index_check", "\"index_check\" does not apply to constant indices: they are checked when the kernel is "
                            "generated (remove \"index_check\" or \"indices\")");
        return;
    }
    if (find("prefetch")) {
        fail("prefetch", "\"prefetch\" does not apply to constant indices: the kernel reads no index at run time "
                         "(remove \"prefetch\" or \"indices\")");
        return;
    }
    const Shape& shape = spec.indices_shape;
    const std::string layout = shape.empty() ? "an integer, as indices_shape is []"
                                             : "arrays nested as indices_shape " + format_shape(shape) +
                                                   ", or a flat array of " + std::to_string(element_count(shape)) +
                                                   " integers";
    auto located = nested_values(*value, "indices", shape, [](const json& item) { return !item.is_array(); }, layout);
    if (!located) return;
    const Located& values = *located;
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
        if (++bad <= kShown) fail(where, problem);
    }
    if (bad > kShown) fail("indices", std::to_string(bad - kShown) + " more constant indices are invalid (" + std::to_string(bad) + " in all)");
    if (bad == 0) spec.constant_indices = std::move(resolved);
}

}  // namespace kernelgen
