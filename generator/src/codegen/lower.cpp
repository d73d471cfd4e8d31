#include <algorithm>

#include "codegen/indexed_copy.h"
#include "common/shape_math.h"

namespace kernelgen {

uint64_t IndexedCopy::point_count() const {
    uint64_t count = 1;
    for (const auto& loop : loops) count *= loop.extent;
    return count;
}

uint64_t IndexedCopy::copy_count() const { return point_count() * (runs ? runs->size() : 1); }

namespace {

uint64_t product(const Shape& shape, size_t begin, size_t end) {
    uint64_t count = 1;
    for (size_t i = begin; i < end; ++i) count *= shape[i];
    return count;
}

// Drops unit loops, merges neighbours that walk every tensor contiguously, and folds an innermost loop
// that copies adjacent blocks with one index tuple into the block itself.
void simplify(IndexedCopy& copy) {
    // An axis of size 0 admits no index at all: any tuple fails its check, so no copy can ever run.
    const bool empty = copy.block == 0 ||
                       std::any_of(copy.loops.begin(), copy.loops.end(), [](const Loop& loop) { return loop.extent == 0; }) ||
                       std::any_of(copy.components.begin(), copy.components.end(),
                                   [](const IndexComponent& component) { return component.bound == 0; });
    if (empty) {  // nothing to copy at all
        copy.loops = {Loop{0, 0, 0, 0}};
        copy.block = 0;
        return;
    }
    std::vector<Loop> merged;
    for (const auto& loop : copy.loops) {
        if (loop.extent == 1 && loop.runtime_scale == 0) continue;  // the count's loop stays, even for a bound of 1
        if (!merged.empty() && loop.runtime_scale == 0 && !loop.sequence && !merged.back().sequence) {
            Loop& outer = merged.back();
            if (outer.indices_stride == loop.indices_stride * loop.extent &&
                outer.source_stride == loop.source_stride * loop.extent &&
                outer.destination_stride == loop.destination_stride * loop.extent) {
                outer = Loop{outer.extent * loop.extent, loop.indices_stride, loop.source_stride, loop.destination_stride,
                             outer.runtime_scale * loop.extent};
                continue;
            }
        }
        merged.push_back(loop);
    }
    while (!merged.empty()) {
        const Loop& inner = merged.back();
        if (inner.runtime_scale != 0) break;  // the count's loop: its extent is not known until run time
        if (inner.indices_stride != 0 || inner.source_stride != copy.block || inner.destination_stride != copy.block) break;
        copy.block *= inner.extent;
        merged.pop_back();
    }
    copy.loops = merged;
}

// Constant indices: resolves every point of the loops that walk the indices into a run of the block, merging
// a run into the one before when both sides continue it, so an identity gather becomes one copy.
void fold_constant_indices(IndexedCopy& copy, const std::vector<int64_t>& values) {
    size_t outer = 0;  // leading loops that do not walk the indices stay loops
    // (The sequence loop of a circular TensorScatter is resolved too: the positions it writes depend on it.)
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
            uint64_t step = 0;  // the sequence loop's position (TensorScatter, circular)
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

std::string dims(const char* prefix, size_t count) {
    std::string out;
    for (size_t i = 0; i < count; ++i) out += std::string(out.empty() ? "" : ", ") + prefix + std::to_string(i);
    return out;
}

std::string with(std::string_view a, std::string_view b) {
    if (a.empty()) return std::string(b);
    if (b.empty()) return std::string(a);
    return std::string(a) + ", " + std::string(b);
}

// What a scatter computes at one update, for the comment above the copies.
std::string scatter_formula(const std::string& target, const std::string& update, Reduction reduction) {
    switch (reduction) {
        case Reduction::None: return target + " = " + update;
        case Reduction::Add: return target + " += " + update;
        case Reduction::Mul: return target + " *= " + update;
        case Reduction::Max: return target + " = max(" + target + ", " + update + ")";
        case Reduction::Min: return target + " = min(" + target + ", " + update + ")";
    }
    return "";
}

IndexedCopy lower_gather(const KernelSpec& spec) {
    const auto axis = static_cast<size_t>(spec.axis);
    const Shape& data = spec.data_shape;
    const uint64_t outer = product(data, 0, axis);
    const uint64_t size = data[axis];
    const uint64_t inner = product(data, axis + 1, data.size());
    const uint64_t count = element_count(spec.indices_shape);
    IndexedCopy copy;
    copy.indexed = IndexedCopy::Indexed::Source;
    copy.loops = {Loop{outer, 0, size * inner, count * inner}, Loop{count, 1, 0, inner}};
    copy.components = {IndexComponent{0, size, inner}};
    copy.block = inner;
    const std::string before = dims("a", axis), after = axis + 1 < data.size() ? ":" : "";
    const std::string positions = dims("i", spec.indices_shape.size());
    copy.formula = "output[" + with(with(before, positions), after) + "] = data[" +
                   with(with(before, positions.empty() ? "indices" : "indices[" + positions + "]"), after) + "]";
    return copy;
}

// The element-wise pair: for every position i of indices, GatherElements reads data at i with its axis
// coordinate replaced by indices[i]; ScatterElements writes updates[i] to output there.
IndexedCopy lower_elements(const KernelSpec& spec, IndexedCopy::Indexed indexed) {
    const auto axis = static_cast<size_t>(spec.axis);
    const auto data_strides = row_major_strides(spec.data_shape);
    const auto index_strides = row_major_strides(spec.indices_shape);
    IndexedCopy copy;
    copy.indexed = indexed;
    for (size_t i = 0; i < spec.indices_shape.size(); ++i) {
        const uint64_t data_stride = i == axis ? 0 : data_strides[i];
        if (indexed == IndexedCopy::Indexed::Source) copy.loops.push_back(Loop{spec.indices_shape[i], index_strides[i], data_stride, index_strides[i]});
        else copy.loops.push_back(Loop{spec.indices_shape[i], index_strides[i], index_strides[i], data_stride});
    }
    copy.components = {IndexComponent{0, spec.data_shape[axis], data_strides[axis]}};
    return copy;
}

// The data (or output) position of an elements operator: the axis coordinate taken from indices.
std::string elements_position(const KernelSpec& spec, const std::string& positions) {
    std::string out;
    for (size_t i = 0; i < spec.indices_shape.size(); ++i) {
        out = with(out, i == static_cast<size_t>(spec.axis) ? "indices[" + positions + "]" : "i" + std::to_string(i));
    }
    return out;
}

IndexedCopy lower_gather_elements(const KernelSpec& spec) {
    IndexedCopy copy = lower_elements(spec, IndexedCopy::Indexed::Source);
    const std::string positions = dims("i", spec.indices_shape.size());
    copy.formula = "output[" + positions + "] = data[" + elements_position(spec, positions) + "]";
    return copy;
}

IndexedCopy lower_scatter_elements(const KernelSpec& spec) {
    IndexedCopy copy = lower_elements(spec, IndexedCopy::Indexed::Destination);
    copy.reduction = spec.reduction;
    copy.copy_data_first = true;
    const std::string positions = dims("i", spec.indices_shape.size());
    copy.formula = scatter_formula("output[" + elements_position(spec, positions) + "]", "updates[" + positions + "]", spec.reduction);
    return copy;
}

// GatherND and ScatterND share the tuple layout: indices[batch..., m..., k] selects data[batch..., tuple, rest...].
struct TupleLayout {
    std::vector<Loop> loops;
    std::vector<IndexComponent> components;
    uint64_t block;
};

TupleLayout tuple_layout(const KernelSpec& spec, size_t batch_dims, bool gather) {
    const Shape& data = spec.data_shape;
    const Shape& indices = spec.indices_shape;
    const size_t k = static_cast<size_t>(indices.back());
    const auto data_strides = row_major_strides(data);
    const auto index_strides = row_major_strides(indices);
    const uint64_t block = product(data, batch_dims + k, data.size());
    // The dense side (output of a gather, updates of a scatter) is laid out as indices[:-1] + data[b+k:].
    TupleLayout layout{{}, {}, block};
    for (size_t i = 0; i + 1 < indices.size(); ++i) {
        const uint64_t dense_stride = product(indices, i + 1, indices.size() - 1) * block;
        const uint64_t data_stride = i < batch_dims ? data_strides[i] : 0;
        if (gather) layout.loops.push_back(Loop{indices[i], index_strides[i], data_stride, dense_stride});
        else layout.loops.push_back(Loop{indices[i], index_strides[i], dense_stride, data_stride});
    }
    for (size_t j = 0; j < k; ++j) layout.components.push_back(IndexComponent{j, data[batch_dims + j], data_strides[batch_dims + j]});
    return layout;
}

IndexedCopy lower_gather_nd(const KernelSpec& spec) {
    const auto b = static_cast<size_t>(spec.batch_dims);
    auto layout = tuple_layout(spec, b, true);
    IndexedCopy copy;
    copy.indexed = IndexedCopy::Indexed::Source;
    copy.loops = layout.loops;
    copy.components = layout.components;
    copy.block = layout.block;
    const std::string batch = dims("b", b), positions = dims("i", spec.indices_shape.size() - 1 - b);
    const std::string rest = b + spec.indices_shape.back() < spec.data_shape.size() ? ":" : "";
    copy.formula = "output[" + with(with(batch, positions), rest) + "] = data[" +
                   with(with(batch, "indices[" + with(with(batch, positions), ":") + "]"), rest) + "]";
    return copy;
}

IndexedCopy lower_scatter_nd(const KernelSpec& spec) {
    auto layout = tuple_layout(spec, 0, false);
    IndexedCopy copy;
    copy.indexed = IndexedCopy::Indexed::Destination;
    copy.loops = layout.loops;
    copy.components = layout.components;
    copy.block = layout.block;
    copy.reduction = spec.reduction;
    copy.copy_data_first = true;
    const std::string positions = dims("i", spec.indices_shape.size() - 1);
    const std::string rest = spec.indices_shape.back() < spec.data_shape.size() ? ":" : "";
    const std::string target = "output[" + with("indices[" + with(positions, ":") + "]", rest) + "]";
    copy.formula = scatter_formula(target, "updates[" + with(positions, rest) + "]", spec.reduction);
    return copy;
}

// TensorScatter: for each batch row b (write index w = indices[b]) and each point of the axes between batch and
// sequence, the update's rows of the sequence go to the cache from position w along the sequence axis. Linear: one
// block of every row at once (w in 0..max - length); circular: row j at (w mod max + j) mod max, a block each.
IndexedCopy lower_tensor_scatter(const KernelSpec& spec) {
    const auto axis = static_cast<size_t>(spec.axis);
    const Shape& cache = spec.data_shape;
    const Shape& update = spec.updates_shape;
    const uint64_t max = cache[axis], length = update[axis];
    const uint64_t inner = product(cache, axis + 1, cache.size());
    const uint64_t middle = product(cache, 1, axis);
    IndexedCopy copy;
    copy.indexed = IndexedCopy::Indexed::Destination;
    copy.copy_data_first = true;
    copy.loops = {Loop{cache[0], 1, middle * length * inner, middle * max * inner}, Loop{middle, 0, length * inner, max * inner}};
    IndexComponent write{0, max, inner};
    const std::string prefix = axis > 1 ? "b, " + dims("a", axis - 1) : "b";
    const std::string rest = axis + 1 < cache.size() ? ", :" : "";
    if (spec.mode == KernelSpec::WriteMode::Circular) {
        Loop sequence{length, 0, inner, 0};
        sequence.sequence = true;
        copy.loops.push_back(sequence);
        copy.block = inner;
        write.kind = IndexComponent::Kind::Circular;
        copy.formula = "output[" + prefix + ", (indices[b] mod " + std::to_string(max) + " + j) mod " + std::to_string(max) +
                       rest + "] = updates[" + prefix + ", j" + rest + "]";
    } else {
        copy.block = length * inner;
        write.kind = IndexComponent::Kind::Linear;
        write.last = max - length;
        copy.formula = "output[" + prefix + ", indices[b] + j" + rest + "] = updates[" + prefix + ", j" + rest + "]";
    }
    copy.components = {write};
    return copy;
}

}  // namespace

IndexedCopy lower(const KernelSpec& spec) {
    IndexedCopy copy;
    switch (spec.op) {
        case Op::Gather: copy = lower_gather(spec); break;
        case Op::GatherElements: copy = lower_gather_elements(spec); break;
        case Op::GatherND: copy = lower_gather_nd(spec); break;
        case Op::ScatterND: copy = lower_scatter_nd(spec); break;
        case Op::ScatterElements: copy = lower_scatter_elements(spec); break;
        case Op::TensorScatter: copy = lower_tensor_scatter(spec); break;
    }
    copy.data_size = element_count(spec.data_shape);
    copy.indices_size = element_count(spec.indices_shape);
    copy.updates_size = is_scatter(spec.op) ? element_count(spec.updates_shape) : 0;
    copy.output_size = element_count(spec.output_shape);
    copy.tuple_count = copy.components.empty() ? 0 : copy.indices_size / copy.components.size();
    if (spec.runtime_count && spec.count_leads == CountLeads::Data) {
        // Gather's outer loop, over data's dimensions before the axis, the first of which is the count.
        copy.count_leads = CountLeads::Data;
        copy.count_bound = spec.data_shape[0];
        Loop& outer = copy.loops.front();
        outer.runtime_scale = outer.extent / copy.count_bound;
    } else if (spec.runtime_count) {
        // The loop over the leading dimension of indices: the first that walks them (Gather's outer loop, over
        // data's dimensions before the axis, has extent 1 then).
        const uint64_t bound = spec.indices_shape[0];
        copy.count_bound = bound;
        copy.tuples_per_count = copy.tuple_count / bound;
        for (Loop& loop : copy.loops) {
            if (loop.indices_stride == 0) continue;
            loop.runtime_scale = loop.extent / bound;
            break;
        }
    }
    if (spec.runtime_data_count) {
        // The index along data's axis 0: Gather's and GatherElements' (axis 0), GatherND's first tuple entry
        // (batch_dims 0).
        copy.data_count_bound = spec.data_shape[0];
        copy.components.front().runtime_bound = true;
    }
    simplify(copy);
    // Constant indices beside a run-time data count stay indices, which the kernel holds: the rows they select,
    // and whether they are in range, depend on the count.
    if (spec.constant_indices && !(spec.runtime_data_count && copy.indices_size > 0)) {
        fold_constant_indices(copy, *spec.constant_indices);
    }
    return copy;
}

}  // namespace kernelgen
