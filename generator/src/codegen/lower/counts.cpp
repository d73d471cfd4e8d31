// Run-time counts, lowered: a count of index rows ("count": "runtime"), or of data rows ("count_leads": "data"),
// bounds the loop that walks them; a count of data's valid rows ("data_count": "runtime") is the size the index along
// data's axis 0 is checked against and wrapped by. Each is a parameter checked against its bound first, with its
// macros and its part of the header's contract.
#include <algorithm>

#include "codegen/lower/lowered.h"

namespace kernelgen {

namespace {

// The run-time count of rows: the loop it bounds, its parameter, macros and check.
void lower_row_count(const KernelSpec& spec, Lowered& lowered) {
    IndexedCopy& copy = lowered.copy;
    const KernelIdentifiers& ids = lowered.face.ids;
    const bool data_rows = spec.count_leads == CountLeads::Data;
    if (data_rows) {
        // Gather's outer loop, over data's dimensions before the axis, the first of which is the count.
        copy.count_leads_data = true;
        copy.count_bound = spec.data_shape[0];
        Loop& outer = copy.loops.front();
        outer.runtime_scale = outer.extent / copy.count_bound;
    } else {
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
    const std::string rows = data_rows ? "data and output" : "indices";
    lowered.face.counts.push_back(RuntimeCount{"count", schedule::Tensor::Indices, ids.max("count"), ids.error("count"),
                                               copy.count_bound, -2,
                                               "count rows of " + rows + ", at most " + ids.max("count") +
                                                   "; nothing is read or written beyond them."});
    lowered.count_loop_note = "a loop over the run-time count of " + std::string(data_rows ? "data" : "index") +
                              " rows (at most " + std::to_string(copy.count_bound) + ")";
}

// The run-time count of data's valid rows: the bound of the component that selects along data's axis 0 (Gather's
// and GatherElements' along axis 0, GatherND's first tuple entry with batch_dims 0), and of a scatter's first copy.
void lower_data_count(const KernelSpec& spec, Lowered& lowered) {
    IndexedCopy& copy = lowered.copy;
    const KernelIdentifiers& ids = lowered.face.ids;
    const uint64_t bound = spec.data_shape[0];
    copy.components.front().bound_parameter = "data_count";
    if (copy.copy_data_first) {
        lowered.first_copy.rows_parameter = "data_count";
        lowered.first_copy.row_elements = bound == 0 ? 0 : copy.data_size / bound;
    }
    lowered.face.counts.push_back(RuntimeCount{"data_count", schedule::Tensor::Data, ids.max("data_count"),
                                               ids.error("data_count"), bound, -3,
                                               "data_count valid rows of data, at most " + ids.max("data_count") +
                                                   "; the indices along axis 0 select among them."});
    lowered.runtime_bound_note = " (along axis 0 against the run-time data count, at most " + std::to_string(bound) + ")";
}

// Run-time extents ("runtime_axes", Gather): each axis' extent a parameter data_dim_<axis>, checked against its
// bound; the strides, the block and the tensors' sizes that span those axes take the extents as factors (a product
// of several a local), and the gather axis' indices, where its extent is one, are checked and wrapped by it.
void lower_runtime_axes(const KernelSpec& spec, Lowered& lowered) {
    IndexedCopy& copy = lowered.copy;
    const KernelIdentifiers& ids = lowered.face.ids;
    const Shape& data = spec.data_shape;
    const auto axis = static_cast<size_t>(spec.axis);
    IndexedCopy::RuntimeExtents extents;
    auto parameter = [](size_t a) { return "data_dim_" + std::to_string(a); };
    // The product of data's literal extents over [begin, end), and the factor of its run-time ones ("" for none).
    auto literal = [&](size_t begin, size_t end) {
        uint64_t product = 1;
        for (size_t a = begin; a < end; ++a) product *= spec.runtime_axis(a) ? 1 : data[a];
        return product;
    };
    // A product of several is a local, each the product of two names: data_dims_1_2 = data_dim_1 * data_dim_2,
    // data_dims_1_2_3 = data_dims_1_2 * data_dim_3.
    auto factor = [&](size_t begin, size_t end) {
        std::string name, local = "data_dims";
        uint64_t at_most = 1;  // the product of the bounds so far
        for (size_t a = begin; a < end; ++a) {
            if (!spec.runtime_axis(a)) continue;
            local += "_" + std::to_string(a);
            at_most *= data[a];
            if (name.empty()) {
                name = parameter(a);
                continue;
            }
            const bool defined = std::any_of(extents.locals.begin(), extents.locals.end(),
                                             [&](const auto& l) { return l.name == local; });
            if (!defined) extents.locals.push_back({local, name, parameter(a), at_most});
            name = local;
        }
        return name;
    };
    const uint64_t count = copy.loops.back().extent;
    const uint64_t inner = literal(axis + 1, data.size());
    const std::string inner_factor = factor(axis + 1, data.size());
    Loop& outer = copy.loops.front();
    outer.source_stride = literal(axis, axis + 1) * inner;
    outer.source_factor = factor(axis, data.size());
    outer.destination_stride = count * inner;
    outer.destination_factor = inner_factor;
    Loop& rows = copy.loops.back();
    rows.destination_stride = inner;
    rows.destination_factor = inner_factor;
    IndexComponent& component = copy.components.front();
    component.stride = inner;
    component.stride_factor = inner_factor;
    if (spec.runtime_axis(axis)) component.bound_parameter = parameter(axis);
    copy.block = inner;
    extents.block_factor = inner_factor;
    copy.runtime_extents = std::move(extents);
    // Each extent's parameter, checked in axis order, and its words in the header (kernel.h.mustache).
    auto& dims = lowered.face.contract.lists["runtime_dims"];
    int error = -4;
    for (size_t a : spec.runtime_axes) {
        const std::string name = parameter(a);
        const RuntimeCount extent_count{name, schedule::Tensor::Data, ids.max(name), ids.error(name), data[a], error--,
                                        "the extent of data's axis " + std::to_string(a) + ", at most " + ids.max(name) +
                                            "; data and output are dense at the extents passed."};
        dims.push_back(TemplateValues{{{"parameter", name}, {"axis", std::to_string(a)}, {"max_macro", extent_count.max_macro},
                                       {"bound", std::to_string(extent_count.bound)}, {"error_macro", extent_count.error_macro},
                                       {"error_value", std::to_string(extent_count.error_value)}},
                                      {}, {}});
        lowered.face.counts.push_back(extent_count);
    }
}

}  // namespace

void lower_counts(const KernelSpec& spec, Lowered& lowered) {
    lowered.face.ids = identifiers_of(spec.name);
    // Checked in this order: the data count, then the count of rows.
    if (spec.runtime_data_count) lower_data_count(spec, lowered);
    if (spec.runtime_count) lower_row_count(spec, lowered);
    if (!spec.runtime_axes.empty()) lower_runtime_axes(spec, lowered);
    // The header's words on them (kernel.h.mustache).
    const KernelIdentifiers& ids = lowered.face.ids;
    TemplateValues& contract = lowered.face.contract;
    contract.flags["runtime_count"] = spec.runtime_count;
    contract.flags["runtime_data_count"] = spec.runtime_data_count;
    contract.text["max_count_macro"] = ids.max("count");
    contract.text["error_count"] = ids.error("count");
    contract.text["max_count"] = std::to_string(lowered.copy.count_bound);
    contract.text["max_data_count_macro"] = ids.max("data_count");
    contract.text["error_data_count"] = ids.error("data_count");
    contract.text["max_data_count"] = std::to_string(spec.runtime_data_count ? spec.data_shape[0] : 0);
    contract.text["sizes_note"] = spec.runtime_count && spec.runtime_data_count ? ", at the largest counts"
                                  : spec.runtime_count                          ? ", at the largest count"
                                  : spec.runtime_data_count                     ? ", at the largest data count"
                                                                                : "";
    if (!lowered.face.contract.lists["runtime_dims"].empty()) contract.text["sizes_note"] = ", at the largest extents";
    contract.flags["data_rows"] = spec.count_leads == CountLeads::Data;
    contract.text["counted"] = spec.count_leads == CountLeads::Data ? "data and output"
                               : is_scatter(spec.op)                 ? "indices and updates"
                                                                     : "indices and output";
}

std::vector<std::string> possible_identifiers(const std::string& kernel) {
    KernelSpec probe;  // the scatters' headers define the most identifiers, and each count adds its own
    probe.name = kernel;
    probe.op = Op::ScatterND;
    probe.data_shape = probe.updates_shape = probe.output_shape = {1};
    probe.indices_shape = {1, 1};
    probe.runtime_count = probe.runtime_data_count = true;
    return header_identifiers(probe);
}

}  // namespace kernelgen
