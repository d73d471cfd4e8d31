// Run-time counts, lowered: a count of index rows ("count": "runtime"), or of data rows ("count_leads": "data"),
// bounds the loop that walks them; a count of data's valid rows ("data_count": "runtime") is the size the index along
// data's axis 0 is checked against and wrapped by. Each is a parameter checked against its bound first, with its
// macros and its part of the header's contract.
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

}  // namespace

void lower_counts(const KernelSpec& spec, Lowered& lowered) {
    lowered.face.ids = identifiers_of(spec.name);
    // Checked in this order: the data count, then the count of rows.
    if (spec.runtime_data_count) lower_data_count(spec, lowered);
    if (spec.runtime_count) lower_row_count(spec, lowered);
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
