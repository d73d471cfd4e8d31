// Indices a model derives from a smaller tensor, which the kernel takes instead and derives them from itself:
// "indices_broadcast_from", a smaller shape broadcast to indices_shape as ONNX's Expand broadcasts (PyTorch's
// index_copy expands its positions along every other axis), and "indices_add", a constant added to each value
// (positions `arange(n) + past_len`); and "tuple_constants", components of each index tuple that are constants
// (`c[:, pos] = x` concatenates 0 before each position). The kernel reads each value where it broadcasts to, and
// checks each once.
#include <algorithm>
#include <limits>

#include "spec/kernel_reader.h"

namespace kernelgen {

namespace {

// An integer within 2^62 either way (the sums of such, read_indices_add checks, stay within int64_t).
bool within_2_62(const nlohmann::json& number) {
    if (!number.is_number_integer()) return false;
    if (number.is_number_unsigned()) return number.get<uint64_t>() <= uint64_t{1} << 62;
    return number.get<int64_t>() >= -(int64_t{1} << 62);
}

// The shape at `key` aligned at the back of `to` (`to_name` in messages), as ONNX's Expand aligns shapes: each
// dimension `to`'s or 1, padded with 1s in front; nothing where it is not that (reported). `where_to(target, must)`
// says what a dimension that does not broadcast should have been.
template <typename WhereTo>
std::optional<Shape> read_broadcast(KernelReader& r, const std::string& key, const Shape& from, const Shape& to,
                                    const std::string& to_name, WhereTo where_to) {
    if (from.size() > to.size()) {
        r.fail(key, "rank " + std::to_string(from.size()) + " is more than " + to_name + "'s " + std::to_string(to.size()) +
                        " (the shape broadcasts to " + to_name + " " + format_shape(to) + ")");
        return std::nullopt;
    }
    const size_t lead = to.size() - from.size();
    for (size_t i = 0; i < from.size(); ++i) {
        const uint64_t dim = from[i], target = to[lead + i];
        if (dim != target && dim != 1) {
            const std::string must = "it must be " + (target == 1 ? std::string("1") : std::to_string(target) + " or 1");
            r.fail(key + "/" + std::to_string(i), "dimension " + std::to_string(dim) + " does not broadcast to " + where_to(target, must));
            return std::nullopt;
        }
    }
    Shape padded(lead, 1);
    padded.insert(padded.end(), from.begin(), from.end());
    return padded;
}

}  // namespace

bool addend_step_allowed(const Shape& indices_shape, const Shape& taken, size_t axis, bool tuples) {
    return indices_shape[axis] <= 1 || taken[axis] == 1 || (tuples && axis + 1 == indices_shape.size());
}

void read_tuple_constants(KernelReader& r, KernelSpec& spec) {
    const std::string key = "tuple_constants";
    const nlohmann::json* value = r.find(key);
    if (!value) return;
    const uint64_t k = spec.indices_shape.empty() ? 0 : spec.indices_shape.back();
    const std::string allowed = "one item per component of an index tuple (indices_shape's last dimension, " + std::to_string(k) +
                                "): an integer, the component in every tuple, or null, a component the kernel reads";
    if (!value->is_array() || value->size() != k) {
        r.fail(key, "expected an array of " + std::to_string(k) + " items, got " + value->dump() + " (" + allowed + ")");
        return;
    }
    if (r.find("indices")) {
        r.fail(key, "constant indices (\"indices\") are given whole, every component (remove one of the two)");
        return;
    }
    if (spec.counted()) {
        r.fail(key, "not with a run-time count (\"count\", \"data_count\"): give the indices whole there");
        return;
    }
    std::vector<std::optional<int64_t>> constants;
    for (size_t j = 0; j < value->size(); ++j) {
        const nlohmann::json& item = (*value)[j];
        const std::string where = key + "/" + std::to_string(j);
        if (item.is_null()) {
            constants.push_back(std::nullopt);
            continue;
        }
        if (!within_2_62(item)) {
            r.fail(where, "expected an integer or null, got " + item.dump() + " (" + allowed + ")");
            return;
        }
        // Checked now, as constant indices are: the data axis this component selects along.
        const int64_t v = item.get<int64_t>();
        const IndexRange range = index_range(spec, j);
        if (v < range.low || v > range.high) {
            r.fail(where, "component " + std::to_string(v) + " is out of range for an axis of size " +
                              std::to_string(spec.data_shape[selected_axis(spec, j)]) + " (" + range.allowed + ")");
            return;
        }
        constants.push_back(v);
    }
    if (std::find(constants.begin(), constants.end(), std::nullopt) == constants.end()) {
        r.fail(key, "every component is a constant: give the indices whole as constant \"indices\" instead (null marks a "
                    "component the kernel reads)");
        return;
    }
    spec.tuple_constants = std::move(constants);
}

void read_indices_broadcast(KernelReader& r, KernelSpec& spec) {
    if (!r.find("indices_broadcast_from")) return;
    const std::string key = "indices_broadcast_from";
    auto from = r.read_shape(key);
    if (!from) return;
    if (r.find("indices")) {
        r.fail(key, "constant indices (\"indices\") are given whole, of indices_shape (remove one of the two)");
        return;
    }
    if (spec.counted()) return;  // refused with the counts (counts.cpp)
    const Shape to = spec.taken_shape();
    const auto padded = read_broadcast(r, key, *from, to, "indices_shape", [&](uint64_t target, const std::string& must) {
        return spec.tuple_constants ? std::to_string(target) + " in the indices read, " + format_shape(to) +
                                          " (indices_shape less its constant components; " + must + ")"
                                    : "indices_shape " + format_shape(to) + "'s " + std::to_string(target) + " (" + must + ")";
    });
    if (!padded) return;
    const bool tuples = spec.op == Op::GatherND || spec.op == Op::ScatterND;
    if (tuples && (from->size() != to.size() || from->back() != to.back())) {
        r.fail(key, "the last dimension holds each index tuple whole: it must be indices_shape's last, " +
                        std::to_string(to.back()) + (spec.tuple_constants ? " less the constant components" : "") +
                        ", and the ranks equal");
        return;
    }
    if (*padded != to) spec.indices_broadcast_from = padded;  // the same shape: the indices themselves
}

void read_updates_broadcast(KernelReader& r, KernelSpec& spec) {
    const std::string key = "updates_broadcast_from";
    if (!r.find(key)) return;
    auto from = r.read_shape(key);
    if (!from) return;
    if (r.find("updates") || r.find("updates_file")) {
        r.fail(key, "constant updates (\"updates\", \"updates_file\") are given whole, of updates_shape (remove one of the two)");
        return;
    }
    if (spec.counted()) {
        r.fail(key, "not with a run-time count (\"count\", \"data_count\"): give the updates whole there");
        return;
    }
    const Shape& to = spec.updates_shape;
    const auto padded = read_broadcast(r, key, *from, to, "updates_shape", [&](uint64_t target, const std::string& must) {
        return "updates_shape " + format_shape(to) + "'s " + std::to_string(target) + " (" + must + ")";
    });
    if (!padded) return;
    // A ScatterND's update rows (updates_shape's axes from indices' rank - 1 on, the rows of data each tuple
    // selects) are read whole.
    const size_t lead = to.size() - from->size();
    const size_t rows = spec.op == Op::ScatterND ? spec.indices_shape.size() - 1 : to.size();
    for (size_t axis = rows; axis < to.size(); ++axis) {
        if ((*padded)[axis] == to[axis]) continue;
        // An axis the shape leaves out (padded in front) is broadcast too: the shape itself is at fault.
        r.fail(axis < lead ? key : key + "/" + std::to_string(axis - lead), "dimension " + std::to_string(axis) + " of updates_shape " + format_shape(to) +
                                                           " is in the rows of data each index tuple writes, which are read whole (a "
                                                           "broadcast is allowed along the first " + std::to_string(rows) + ")");
        return;
    }
    if (*padded != to) spec.updates_broadcast_from = padded;
}

namespace {

__extension__ typedef __int128 Wide;  // the sums of constants up to 2^62 each, times extents up to 2^40

std::string text(Wide value) {
    if (value >= std::numeric_limits<int64_t>::min() && value <= std::numeric_limits<int64_t>::max()) {
        return std::to_string(static_cast<int64_t>(value));
    }
    return value < 0 ? "below -2^63" : "above 2^63";
}

}  // namespace

void read_indices_add(KernelReader& r, KernelSpec& spec) {
    const std::string key = "indices_add";
    const nlohmann::json* value = r.find(key);
    if (!value) return;
    const size_t rank = spec.indices_shape.size();
    const std::string allowed = "an integer added to every index, or {\"start\": integer, \"steps\": [one integer per axis of "
                                "indices_shape]}";
    KernelSpec::IndicesAdd add;
    add.steps.assign(rank, 0);
    if (value->is_number_integer()) {
        if (!within_2_62(*value)) {
            r.fail(key, "the constant " + value->dump() + " is too large (at most 2^62 either way)");
            return;
        }
        add.start = value->get<int64_t>();
    } else if (value->is_object()) {
        for (const auto& item : value->items()) {
            if (item.key() != "start" && item.key() != "steps") {
                r.fail(key + "/" + item.key(), "unknown key \"" + item.key() + "\" (" + allowed + ")");
                return;
            }
        }
        const auto start = value->find("start"), steps = value->find("steps");
        if (start == value->end() || !within_2_62(*start)) {
            r.fail(key + "/start", start == value->end() ? "required key \"start\" is missing (" + allowed + ")"
                                                         : "expected an integer of at most 2^62 either way, got " + start->dump());
            return;
        }
        add.start = start->get<int64_t>();
        if (steps == value->end() || !steps->is_array() || steps->size() != rank) {
            r.fail(key + "/steps", "expected an array of one integer per axis of indices_shape " + format_shape(spec.indices_shape) +
                                       (steps == value->end() ? ", which is missing" : ", got " + steps->dump()));
            return;
        }
        for (size_t i = 0; i < rank; ++i) {
            const nlohmann::json& step = (*steps)[i];
            if (!within_2_62(step)) {
                r.fail(key + "/steps/" + std::to_string(i), "expected an integer of at most 2^62 either way, got " + step.dump());
                return;
            }
            add.steps[i] = step.get<int64_t>();
        }
    } else {
        r.fail(key, "expected an integer or an object, got " + json_type(*value) + " (" + allowed + ")");
        return;
    }
    if (r.find("indices")) {
        r.fail(key, "constant indices (\"indices\") are given as they are (add the constant to them instead)");
        return;
    }
    if (spec.counted()) {
        r.fail(key, "not with a run-time count (\"count\", \"data_count\"): the indices are read as they are there");
        return;
    }
    // A step moves the value only where each value the kernel takes is read at every position along it: an axis
    // the indices are broadcast along, or a tuple's components (each checked against its own axis).
    const bool tuples = spec.op == Op::GatherND || spec.op == Op::ScatterND;
    const Shape& from = spec.indices_broadcast_from ? *spec.indices_broadcast_from : spec.indices_shape;
    Wide spread = add.start < 0 ? -Wide{add.start} : Wide{add.start};
    for (size_t i = 0; i < rank; ++i) {
        const uint64_t extent = spec.indices_shape[i];
        if (add.steps[i] == 0 || extent <= 1) continue;
        if (!addend_step_allowed(spec.indices_shape, from, i, tuples)) {
            r.fail(key + "/steps/" + std::to_string(i),
                   "step " + std::to_string(add.steps[i]) + " along axis " + std::to_string(i) +
                       ", which the indices are not broadcast along: each value the kernel takes must have one range (a "
                       "step is allowed along an axis where indices_broadcast_from is 1" +
                       (tuples ? ", and along the last, each tuple's components)" : ")"));
            return;
        }
        spread += (add.steps[i] < 0 ? -Wide{add.steps[i]} : Wide{add.steps[i]}) * Wide{extent - 1};
    }
    if (spread > Wide{1} << 62) {
        r.fail(key, "the constants added reach " + text(spread) + " either way (at most 2^62)");
        return;
    }
    // Each component's values must leave some index in range: [-s - lowest, s - 1 - highest] not empty.
    const size_t components = tuples ? static_cast<size_t>(spec.indices_shape.back()) : 1;
    for (size_t j = 0; j < components; ++j) {
        if (spec.tuple_constants && (*spec.tuple_constants)[j]) continue;  // a constant: nothing is added to it
        Wide low = add.start, high = add.start;
        for (size_t i = 0; i < rank; ++i) {
            if (spec.indices_shape[i] == 0) return;  // no index at all
            const bool component_axis = tuples && i + 1 == rank;
            const Wide reach = Wide{add.steps[i]} * Wide{component_axis ? j : spec.indices_shape[i] - 1};
            if (component_axis) low += reach, high += reach;
            else low += std::min<Wide>(0, reach), high += std::max<Wide>(0, reach);
        }
        const uint64_t size = spec.data_shape[selected_axis(spec, j)];
        if (size != 0 && high - low > Wide{2} * Wide{size} - 1) {
            r.fail(key, "the constants added" + std::string(tuples ? " to component " + std::to_string(j) : "") + " span " +
                            text(low) + " to " + text(high) + ", more than the " + std::to_string(2 * size) +
                            " values of [-" + std::to_string(size) + ", " + std::to_string(size - 1) +
                            "]: no index could be in range");
            return;
        }
    }
    if (add.start != 0 || std::any_of(add.steps.begin(), add.steps.end(), [](int64_t step) { return step != 0; })) {
        spec.indices_add = add;
    }
}

}  // namespace kernelgen
