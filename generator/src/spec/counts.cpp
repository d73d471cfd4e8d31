// Counts passed at run time, as the spec reader applies their rules: "count" (of index rows, or with
// "count_leads": "data" of data's rows) and "data_count" (data's valid rows), where each applies, its bound, and
// what it does not combine with.
#include <algorithm>

#include "common/hints.h"
#include "common/shape_math.h"
#include "spec/kernel_reader.h"

namespace kernelgen {

using nlohmann::json;

bool KernelSpec::runtime_axis(size_t data_axis) const {
    return std::find(runtime_axes.begin(), runtime_axes.end(), data_axis) != runtime_axes.end();
}

namespace {

// A count's key, whose one value is "runtime": true when it says so; otherwise reported.
bool read_runtime_setting(KernelReader& r, const std::string& key, const std::string& allowed) {
    auto text = r.read_string(key, allowed);
    if (!text) return false;
    if (*text == "runtime") return true;
    r.fail(key, "unknown " + key + " setting " + in_quotes(*text) + " (" + allowed + ")" +
                  did_you_mean_value(*text, {"runtime"}, {{"dynamic", "runtime"}, {"variable", "runtime"}}));
    return false;
}

// The count is a uint32_t: a larger bound could never be reached, and its check would never fail.
bool bound_fits_uint32(KernelReader& r, const std::string& shape_key, const std::string& what, uint64_t bound) {
    if (bound <= UINT32_MAX) return true;
    r.fail(shape_key + "/0", "the bound of a " + what + ", " + shape_key + "[0], is " + std::to_string(bound) +
                               ", more than its uint32_t count can reach (at most " + std::to_string(UINT32_MAX) + ")");
    return false;
}


bool selected_axes_have_elements(KernelReader& r, const KernelSpec& spec) {
    const uint64_t tuple = spec.op == Op::GatherND || spec.op == Op::ScatterND ? spec.indices_shape.back() : 1;
    for (uint64_t at = 0; at < tuple; ++at) {
        const size_t selected = selected_axis(spec, at);
        if (spec.data_shape[selected] == 0) {
            r.fail("data_shape/" + std::to_string(selected),
                 "a run-time count needs every data axis the indices select along to have elements (axis " +
                     std::to_string(selected) + " has size 0, where no index is valid)");
            return false;
        }
    }
    return true;
}

// "count_leads": "indices" (the default) or "data", which only Gather takes; nothing when refused (reported).
std::optional<CountLeads> read_count_leads(KernelReader& r, const KernelSpec& spec) {
    const std::string allowed = "\"indices\" (default): the count is the leading dimension of indices; \"data\": of "
                                "data, for Gather along axis 1 or later";
    if (!r.find("count_leads")) return CountLeads::Indices;
    auto text = r.read_string("count_leads", allowed);
    if (!text) return std::nullopt;
    if (*text == "indices") return CountLeads::Indices;
    if (*text != "data") {
        r.fail("count_leads", "unknown count_leads setting " + in_quotes(*text) + " (" + allowed + ")" +
                                did_you_mean_value(*text, {"indices", "data"},
                                                   {{"index", "indices"}, {"idx", "indices"}, {"input", "data"}}));
        return std::nullopt;
    }
    std::string why;
    if (spec.op == Op::Gather) return CountLeads::Data;
    if (spec.op == Op::GatherElements) {
        why = "GatherElements' output has the shape of indices";
    } else if (spec.op == Op::GatherND) {
        why = "GatherND's output is indices_shape[:-1] + data_shape[batch_dims + k:]";
    } else {  // a scatter (of those that take counts)
        r.fail("count_leads", "\"count_leads\": \"data\" applies to Gather only: " + std::string(name(spec.op)) +
                                (spec.op == Op::ScatterElements ? "'" : "'s") + " output is all of data, with updates written wherever the indices point, so "
                                "its rows do not follow data's (count the rows of indices and updates with "
                                "\"count_leads\": \"indices\")");
        return std::nullopt;
    }
    r.fail("count_leads", "\"count_leads\": \"data\" applies to Gather only: " + why +
                            ", so its rows follow the rows of indices, not of data (count those with \"count_leads\": "
                            "\"indices\")");
    return std::nullopt;
}

// A count of index rows: indices of rank 1 or more (2 for the tuples of GatherND and ScatterND), whose
// leading dimension leads the output (or updates) too. True when it applies; otherwise reported.
bool index_rows_countable(KernelReader& r, const KernelSpec& spec) {
    const Shape& indices = spec.indices_shape;
    const size_t needed = spec.op == Op::GatherND || spec.op == Op::ScatterND ? 2 : 1;
    if (indices.size() < needed) {
        r.fail("indices_shape", "a run-time count needs indices of rank " + std::to_string(needed) + " or more, whose " +
                                  "leading dimension is the count (here " + format_shape(indices) + ")");
        return false;
    }
    if (indices[0] == 0) {
        r.fail("indices_shape/0", "the bound of a run-time count, indices_shape[0], must be at least 1");
        return false;
    }
    const auto axis = static_cast<size_t>(spec.axis);
    if (spec.op == Op::Gather && std::any_of(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis),
                                             [](uint64_t dim) { return dim != 1; })) {
        r.fail("axis", "with a run-time count, the count must lead the output: data's dimensions before axis " +
                         std::to_string(axis) + " must all be 1, not " +
                         format_shape(Shape(spec.data_shape.begin(), spec.data_shape.begin() + static_cast<std::ptrdiff_t>(axis))) +
                         " (gather along axis 0, or count data's rows with \"count_leads\": \"data\")");
        return false;
    }
    if (spec.op == Op::GatherND && spec.batch_dims != 0) {
        r.fail("batch_dims", "a run-time count needs batch_dims 0: the leading dimension of indices is then the count, "
                           "not a batch dimension");
        return false;
    }
    return true;
}

// A count of data rows (Gather): along axis 1 or later, data's leading dimension leads the output too
// (data_shape[:axis] + indices_shape + data_shape[axis + 1:]). True when it applies; otherwise reported.
bool data_rows_countable(KernelReader& r, const KernelSpec& spec) {
    if (spec.axis == 0) {
        const json* given = r.find("axis");
        const std::string axis = !given ? "0, the default" : given->dump() == "0" ? "0" : given->dump() + ", that is 0";
        r.fail("axis", "with \"count_leads\": \"data\" the count is data's leading dimension, which must lead the output "
                     "too: gather along axis 1 or later (here axis " + axis + "), or count the rows of indices with "
                     "\"count_leads\": \"indices\"");
        return false;
    }
    if (spec.data_shape[0] == 0) {
        r.fail("data_shape/0", "the bound of a run-time count of data rows, data_shape[0], must be at least 1");
        return false;
    }
    return true;
}

// "count": "runtime": a leading dimension is a count passed at run time, up to its bound: that of indices
// (up to indices_shape[0]), or with "count_leads": "data" that of data (up to data_shape[0]). The count must
// lead every tensor it sizes, so that the first `count` rows of each are one dense prefix.
void read_count(KernelReader& r, KernelSpec& spec) {
    if (!r.find("count")) {
        if (r.find("count_leads")) {
            r.fail("count_leads", "\"count_leads\" says what a run-time count counts, and applies only with \"count\": "
                                "\"runtime\" (add \"count\": \"runtime\", or remove \"count_leads\")");
        }
        return;
    }
    if (!read_runtime_setting(r, "count", "\"runtime\": indices_shape[0] bounds a count the caller passes; leave "
                                       "\"count\" out for a fixed count")) {
        return;
    }
    const auto leads = read_count_leads(r, spec);
    if (!leads) return;
    if (*leads == CountLeads::Indices && r.find("indices")) {
        r.fail("count", "a run-time count does not apply to constant indices, whose count is fixed (remove \"count\" or "
                      "\"indices\")");
        return;
    }
    if (!r.no_prefetch_with(spec, "a run-time count", "the hints would look ahead past the count")) return;
    if (!(*leads == CountLeads::Data ? data_rows_countable(r, spec) : index_rows_countable(r, spec))) return;
    const std::string bound_of = *leads == CountLeads::Data ? "data_shape" : "indices_shape";
    if (!bound_fits_uint32(r, bound_of, "run-time count", (*leads == CountLeads::Data ? spec.data_shape : spec.indices_shape)[0])) {
        return;
    }
    if (!selected_axes_have_elements(r, spec)) return;
    spec.runtime_count = true;
    spec.count_leads = *leads;
}

// "data_count": "runtime": data holds data_count valid rows (0..data_shape[0]), and the kernel is ONNX's operator on
// data of shape [data_count, ...]. It applies where the indices select among data's rows (along axis 0) and data's
// rows do not lead the output: Gather along axis 0, GatherND with batch_dims 0, GatherElements along axis 0; and
// where a scatter writes among them: ScatterElements along axis 0, ScatterND (whose output is then data_count
// rows too).
void read_data_count(KernelReader& r, KernelSpec& spec) {
    if (!r.find("data_count")) return;
    if (!read_runtime_setting(r, "data_count", "\"runtime\": data_shape[0] bounds a count of data's valid rows the "
                                            "caller passes; leave \"data_count\" out for a fixed one")) {
        return;
    }
    if (r.find("data") || r.find("data_file")) {
        r.fail(r.find("data") ? "data" : "data_file",
               "constant data has all its rows: \"data_count\": \"runtime\" does not apply (remove one of them)");
        return;
    }
    if (spec.runtime_count && spec.count_leads == CountLeads::Data) {
        r.fail("data_count", "\"data_count\" does not combine with \"count_leads\": \"data\", whose count already is "
                           "data's leading dimension (along axis 1 or later); \"data_count\" bounds the indices along "
                           "axis 0 (remove one of them)");
        return;
    }
    if (!r.no_prefetch_with(spec, "a run-time data count", "the hints could look at rows beyond it")) return;
    if (spec.op == Op::Gather && spec.axis != 0) {
        r.fail("axis", "a run-time data count bounds the indices along data's axis 0: gather along axis 0 (here axis " +
                         std::to_string(spec.axis) + "), or, as data's rows then lead the output, count them with "
                         "\"count\": \"runtime\", \"count_leads\": \"data\"");
        return;
    }
    if (spec.op == Op::ScatterElements && spec.axis != 0) {
        r.fail("axis", "a run-time data count bounds the indices along data's axis 0 (here axis " +
                         std::to_string(spec.axis) + "): a scatter along another axis writes every row of data it "
                         "reaches, whose count is then the count of index rows (\"count\": \"runtime\" alone)");
        return;
    }
    if (spec.op == Op::GatherElements && spec.axis != 0) {
        r.fail("axis", "a run-time data count bounds the indices along data's axis 0 (here axis " +
                         std::to_string(spec.axis) + "): along another axis each row of output reads the same row of "
                         "data, so one count of index rows covers both (\"count\": \"runtime\" alone)");
        return;
    }
    if (spec.op == Op::GatherND && spec.batch_dims != 0) {
        r.fail("batch_dims", "a run-time data count needs batch_dims 0: data's leading dimension is then the range of "
                           "each tuple's first index, not a batch dimension");
        return;
    }
    const uint64_t bound = spec.data_shape[0];
    if (bound == 0) {
        r.fail("data_shape/0", "the bound of a run-time data count, data_shape[0], must be at least 1");
        return;
    }
    if (!bound_fits_uint32(r, "data_shape", "run-time data count", bound)) return;
    if (!selected_axes_have_elements(r, spec)) return;
    spec.runtime_data_count = true;
}

// "runtime_axes" (Gather): data axes, from the gather axis on, whose extents the caller passes at run time, each a
// uint32_t bounded by data_shape's: a model's tensor whose inner dimensions are values known only at run time (a
// heatmap resized to each detection's box). data and output are dense at the extents passed: their strides are
// products of them. Not with the other counts, constant tensors or derived indices (each assumes literal strides).
void read_runtime_axes(KernelReader& r, KernelSpec& spec) {
    const json* value = r.find("runtime_axes");
    if (!value) return;
    const std::string allowed = "an array of data axes from the gather axis on (negative counts from the back), "
                                "whose extents the caller passes at run time, data_shape giving each one's bound";
    if (!value->is_array() || value->empty()) {
        r.fail("runtime_axes", "expected " + allowed + ", got " + (value->is_array() ? "an empty array" : json_type(*value)));
        return;
    }
    for (const char* key : {"data", "data_file", "indices", "indices_broadcast_from", "indices_add", "count", "data_count"}) {
        if (r.find(key)) {
            r.fail(key, std::string("\"") + key + "\" does not combine with \"runtime_axes\" (remove one of them)");
            return;
        }
    }
    if (!r.no_prefetch_with(spec, "run-time extents", "the distance is planned for rows of a literal size")) return;
    const auto rank = static_cast<int64_t>(spec.data_shape.size());
    std::vector<size_t> axes;
    for (size_t i = 0; i < value->size(); ++i) {
        const std::string key = "runtime_axes/" + std::to_string(i);
        const json& item = (*value)[i];
        if (!item.is_number_integer()) {
            r.fail(key, "expected an integer axis, got " + json_type(item));
            return;
        }
        const int64_t given = item.get<int64_t>();
        if (given < -rank || given >= rank) {
            r.fail(key, "axis " + std::to_string(given) + " is out of range for data of rank " + std::to_string(rank) +
                            " (" + std::to_string(-rank) + ".." + std::to_string(rank - 1) + ")");
            return;
        }
        const auto axis = static_cast<size_t>(given < 0 ? given + rank : given);
        if (std::find(axes.begin(), axes.end(), axis) != axes.end()) {
            r.fail(key, given < 0 ? "axis " + std::to_string(given) + " is axis " + std::to_string(axis) + ", listed already"
                                  : "axis " + std::to_string(axis) + " is listed twice");
            return;
        }
        if (axis < static_cast<size_t>(spec.axis)) {
            r.fail(key, "axis " + std::to_string(axis) + " lies before the gather axis (" + std::to_string(spec.axis) +
                            "): only the gather axis and those after it may have run-time extents");
            return;
        }
        const uint64_t bound = spec.data_shape[axis];
        if (bound == 0 || bound > UINT32_MAX) {
            r.fail("data_shape/" + std::to_string(axis),
                   "the bound of a run-time extent, data_shape[" + std::to_string(axis) + "], is " + std::to_string(bound) +
                       ": it must be 1 to " + std::to_string(UINT32_MAX) + " (the largest extent a uint32_t passes)");
            return;
        }
        axes.push_back(axis);
    }
    if (element_count(spec.data_shape) > UINT32_MAX || element_count(spec.output_shape) > UINT32_MAX) {
        r.fail("data_shape", "run-time extents need data and output of at most " + std::to_string(UINT32_MAX) +
                                 " elements at their bounds (their offsets are uint32_t products of the extents)");
        return;
    }
    std::sort(axes.begin(), axes.end());
    spec.runtime_axes = axes;
}

}  // namespace

void read_counts(KernelReader& r, KernelSpec& spec) {
    const size_t mark = r.problems();
    read_count(r, spec);
    if (r.clean_since(mark)) read_data_count(r, spec);
    if (r.clean_since(mark)) read_runtime_axes(r, spec);
    if (spec.counted() && r.find("indices_broadcast_from")) {
        r.fail("indices_broadcast_from", "broadcast indices are not read with a run-time count (remove \"count\" and "
                                         "\"data_count\", or give the indices whole)");
    }
}

}  // namespace kernelgen
