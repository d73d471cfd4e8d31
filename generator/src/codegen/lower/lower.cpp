// Each operator as an IndexedCopy (its row of the operator table, its spec rules in spec/onnx_rules.cpp and this
// lowering are all an operator's own code), and lower(): the operator's copy, then each feature's part.
#include <algorithm>

#include "codegen/lower/lowered.h"
#include "common/shape_math.h"

namespace kernelgen {

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
    std::vector<Loop> kept;
    for (const auto& loop : copy.loops) {
        if (loop.extent != 1 || loop.runtime_scale != 0) kept.push_back(loop);  // the count's loop stays, even for a bound of 1
    }
    std::vector<Loop> merged = merged_loops(
        kept,
        [](const Loop& l) {
            return std::vector<uint64_t>{l.indices_stride, l.source_stride, l.destination_stride, static_cast<uint64_t>(l.addend_step)};
        },
        [](const Loop& outer, const Loop& inner) {
            const bool literal = outer.source_factor.empty() && outer.destination_factor.empty() && inner.source_factor.empty() &&
                                 inner.destination_factor.empty();
            return literal && inner.runtime_scale == 0 && !inner.sequence && !outer.sequence;
        },
        [](const Loop& outer, const Loop& inner) {
            Loop joined{outer.extent * inner.extent, inner.indices_stride, inner.source_stride, inner.destination_stride,
                        outer.runtime_scale * inner.extent};
            joined.addend_step = inner.addend_step;
            return joined;
        });
    while (!merged.empty()) {
        const Loop& inner = merged.back();
        if (inner.runtime_scale != 0) break;  // the count's loop: its extent is not known until run time
        const std::string block_factor = copy.runtime_extents ? copy.runtime_extents->block_factor : "";
        if (inner.indices_stride != 0 || inner.addend_step != 0 || inner.source_stride != copy.block ||
            inner.destination_stride != copy.block || inner.source_factor != block_factor ||
            inner.destination_factor != block_factor) {
            break;
        }
        copy.block *= inner.extent;
        merged.pop_back();
    }
    copy.loops = merged;
    // The products of run-time extents that a loop dropped here no longer needs (each local needs its factors).
    if (copy.runtime_extents) {
        auto& locals = copy.runtime_extents->locals;
        std::vector<std::string> used{copy.runtime_extents->block_factor};
        for (const Loop& loop : copy.loops) used.insert(used.end(), {loop.source_factor, loop.destination_factor});
        for (const IndexComponent& component : copy.components) used.push_back(component.stride_factor);
        for (size_t i = locals.size(); i-- > 0;) {
            if (std::find(used.begin(), used.end(), locals[i].name) == used.end()) {
                locals.erase(locals.begin() + static_cast<std::ptrdiff_t>(i));
                continue;
            }
            used.insert(used.end(), {locals[i].left, locals[i].right});
        }
    }
}

// An index component of ONNX's indices with a literal bound.
IndexComponent component(uint64_t offset, uint64_t bound, uint64_t stride) {
    IndexComponent out;
    out.offset = offset;
    out.bound = bound;
    out.stride = stride;
    out.tuple_position = offset;
    return out;
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

// Where each position of a tensor of shape `to` is read: row-major, or in the smaller shape `from` it broadcasts from
// (aligned and padded to `to`'s rank), 0 along every axis it is broadcast along.
std::vector<uint64_t> broadcast_read_strides(const std::optional<Shape>& from, const Shape& to) {
    if (!from) return row_major_strides(to);
    std::vector<uint64_t> strides = row_major_strides(*from);
    for (size_t i = 0; i < from->size(); ++i) {
        if ((*from)[i] != to[i]) strides[i] = 0;
    }
    return strides;
}

// Where each position of indices_shape reads its index value ("indices_broadcast_from"; the components the kernel
// reads, where some are constants).
std::vector<uint64_t> indices_read_strides(const KernelSpec& spec) {
    return broadcast_read_strides(spec.indices_broadcast_from, spec.taken_shape());
}

// What a step along axis `i` of indices_shape adds to the index values ("indices_add"), 0 without it.
int64_t addend_step(const KernelSpec& spec, size_t i) { return spec.indices_add ? spec.indices_add->steps[i] : 0; }

// A loop over axis `i` of indices_shape, reading indices as `reads` says, with its addend step.
Loop indices_loop(const KernelSpec& spec, size_t i, uint64_t read, uint64_t source_stride, uint64_t destination_stride) {
    Loop loop{spec.indices_shape[i], read, source_stride, destination_stride};
    loop.addend_step = addend_step(spec, i);
    return loop;
}

// Where each position of updates_shape reads its update ("updates_broadcast_from").
std::vector<uint64_t> updates_read_strides(const KernelSpec& spec) {
    return broadcast_read_strides(spec.updates_broadcast_from, spec.updates_shape);
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
    if (spec.indices_broadcast_from || spec.indices_add) {  // a loop per axis of indices, each reading as the broadcast says
        const auto reads = indices_read_strides(spec);
        const Shape& indices = spec.indices_shape;
        copy.loops.pop_back();
        for (size_t i = 0; i < indices.size(); ++i) {
            copy.loops.push_back(indices_loop(spec, i, reads[i], 0, product(indices, i + 1, indices.size()) * inner));
        }
    }
    copy.components = {component(0, size, inner)};
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
    // output's, or a scatter's updates' (read where they broadcast from)
    const auto dense_strides = indexed == IndexedCopy::Indexed::Source ? row_major_strides(spec.indices_shape) : updates_read_strides(spec);
    const auto reads = indices_read_strides(spec);
    IndexedCopy copy;
    copy.indexed = indexed;
    for (size_t i = 0; i < spec.indices_shape.size(); ++i) {
        const uint64_t data_stride = i == axis ? 0 : data_strides[i];
        if (indexed == IndexedCopy::Indexed::Source) copy.loops.push_back(indices_loop(spec, i, reads[i], data_stride, dense_strides[i]));
        else copy.loops.push_back(indices_loop(spec, i, reads[i], dense_strides[i], data_stride));
    }
    copy.components = {component(0, spec.data_shape[axis], data_strides[axis])};
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
    uint64_t base = 0;  // the constant components' part of the indexed offset
};

TupleLayout tuple_layout(const KernelSpec& spec, size_t batch_dims, bool gather) {
    const Shape& data = spec.data_shape;
    const Shape& indices = spec.indices_shape;
    const size_t k = static_cast<size_t>(indices.back());
    const auto data_strides = row_major_strides(data);
    const auto index_strides = indices_read_strides(spec);
    const uint64_t block = product(data, batch_dims + k, data.size());
    // The dense side (output of a gather, updates of a scatter) is laid out as indices[:-1] + data[b+k:].
    TupleLayout layout{{}, {}, block};
    const auto updates_strides = gather ? std::vector<uint64_t>{} : updates_read_strides(spec);
    for (size_t i = 0; i + 1 < indices.size(); ++i) {
        const uint64_t dense_stride = gather ? product(indices, i + 1, indices.size() - 1) * block : updates_strides[i];
        const uint64_t data_stride = i < batch_dims ? data_strides[i] : 0;
        if (gather) layout.loops.push_back(indices_loop(spec, i, index_strides[i], data_stride, dense_stride));
        else layout.loops.push_back(indices_loop(spec, i, index_strides[i], dense_stride, data_stride));
    }
    // A constant component ("tuple_constants", checked when read) moves the indexed block by its wrapped value; the
    // others are read in order, each the next of the tuple the kernel takes.
    uint64_t read = 0;
    for (size_t j = 0; j < k; ++j) {
        const uint64_t size = data[batch_dims + j], stride = data_strides[batch_dims + j];
        const auto constant = spec.tuple_constants ? (*spec.tuple_constants)[j] : std::nullopt;
        if (!constant) {
            layout.components.push_back(component(read++, size, stride));
            layout.components.back().tuple_position = j;
        } else {
            layout.base += static_cast<uint64_t>(*constant < 0 ? *constant + static_cast<int64_t>(size) : *constant) * stride;
        }
    }
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
    copy.indexed_base = layout.base;
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
    copy.indexed_base = layout.base;
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
    copy.in_place_as_a_rule = true;  // the cache, the largest buffer of its model
    copy.loops = {Loop{cache[0], 1, middle * length * inner, middle * max * inner}, Loop{middle, 0, length * inner, max * inner}};
    IndexComponent write = component(0, max, inner);
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

// "indices_add": each component's constant (the start, plus the tuple axis' step times its position in the tuple)
// and the range of the sums over the loops, which the value read is checked against.
void lower_indices_add(const KernelSpec& spec, IndexedCopy& copy) {
    if (!spec.indices_add) return;
    const auto& add = *spec.indices_add;
    int64_t low = 0, high = 0;  // the loops' part (the reader keeps every sum within 2^62)
    for (const Loop& loop : copy.loops) {
        const int64_t reach = loop.addend_step * static_cast<int64_t>(loop.extent == 0 ? 0 : loop.extent - 1);
        low += std::min<int64_t>(0, reach);
        high += std::max<int64_t>(0, reach);
    }
    const bool tuples = spec.op == Op::GatherND || spec.op == Op::ScatterND;
    for (size_t j = 0; j < copy.components.size(); ++j) {
        IndexComponent& component = copy.components[j];
        component.addend = add.start + (tuples ? add.steps.back() * static_cast<int64_t>(component.tuple_position) : 0);
        component.addend_low = component.addend + low;
        component.addend_high = component.addend + high;
    }
}

// What a scatter does where updates meet at one position.
std::string duplicates_wording(const KernelSpec& spec) {
    return std::string(spec.op == Op::ScatterND ? "Duplicate index tuples apply in the order of indices"
                                                : "Updates that meet at one position apply in the (row-major) order of updates") +
           (spec.reduction == Reduction::None ? " (the last one wins)." : ".");
}

}  // namespace

IndexedCopy lower_operator(const KernelSpec& spec, TemplateValues& contract) {
    IndexedCopy copy;
    std::string attribute;  // how the contract names the operator with its attributes: "Gather along axis 1"
    std::string& duplicates = contract.text["duplicates"];
    std::string& write_range = contract.text["write_range"];
    write_range = "";
    switch (spec.op) {
        case Op::Gather:
            copy = lower_gather(spec);
            attribute = " along axis " + std::to_string(spec.axis);
            break;
        case Op::GatherElements:
            copy = lower_gather_elements(spec);
            attribute = " along axis " + std::to_string(spec.axis);
            break;
        case Op::GatherND:
            copy = lower_gather_nd(spec);
            attribute = spec.batch_dims ? " with batch_dims " + std::to_string(spec.batch_dims) : "";
            break;
        case Op::ScatterND:
            copy = lower_scatter_nd(spec);
            attribute = " with reduction " + std::string(name(spec.reduction));
            duplicates = duplicates_wording(spec);
            break;
        case Op::ScatterElements:
            copy = lower_scatter_elements(spec);
            attribute = " along axis " + std::to_string(spec.axis) + " with reduction " + std::string(name(spec.reduction));
            duplicates = duplicates_wording(spec);
            break;
        case Op::TensorScatter: {
            copy = lower_tensor_scatter(spec);
            const bool circular = spec.mode == KernelSpec::WriteMode::Circular;
            attribute = std::string(circular ? ", circular," : ", linear,") + " along sequence axis " +
                        std::to_string(spec.axis) + " (data is past_cache, indices write_indices, updates update)";
            duplicates = circular ? "Each batch row's sequence is written from its write index on, wrapping to 0 at the end."
                                  : "Each batch row's sequence is written from its write index on.";
            const auto axis = static_cast<size_t>(spec.axis);
            write_range = circular ? "[0, " + std::string(spec.index_dtype == IndexType::Int32 ? "INT32_MAX" : "INT64_MAX") + "]"
                                   : "[0, " + std::to_string(spec.data_shape[axis] - spec.updates_shape[axis]) +
                                         "] (max_sequence_length - sequence_length)";
            break;
        }
    }
    lower_indices_add(spec, copy);
    contract.text["operator"] = std::string(name(spec.op)) + attribute;
    contract.flags["write_indices"] = !write_range.empty();
    copy.data_size = element_count(spec.data_shape);
    copy.indices_size = element_count(spec.indices_parameter_shape());
    copy.updates_size = !is_scatter(spec.op) ? 0 : element_count(spec.updates_broadcast_from ? *spec.updates_broadcast_from : spec.updates_shape);
    copy.output_size = element_count(spec.output_shape);
    copy.tuple_count = copy.components.empty() ? 0 : copy.indices_size / copy.components.size();
    return copy;
}

Lowered lower(const KernelSpec& spec) {
    Lowered out;
    out.unroll = spec.unroll;
    out.prefetch = spec.prefetch;
    out.checked = spec.index_check == IndexCheck::Checked;
    out.index_type = spec.index_dtype;
    out.element = spec.dtype;
    out.copy = lower_operator(spec, out.face.contract);
    lower_counts(spec, out);
    simplify(out.copy);
    const uint64_t element = spec.dtype == DType::String ? 8 : info(spec.dtype).bits / 8;  // a pointer at most 8 bytes
    out.data_bytes = out.copy.data_size * element;
    out.indices_bytes = out.copy.indices_size * (spec.index_dtype == IndexType::Int32 ? 4 : 8);
    out.updates_bytes = out.copy.updates_size * element;
    out.output_bytes = out.copy.output_size * element;
    lower_constants(spec, out);
    lower_table_rows(spec, out);
    lower_interface(spec, out);
    return out;
}

}  // namespace kernelgen
