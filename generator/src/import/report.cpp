#include "import/report.h"

#include <filesystem>
#include <map>

#include "codegen/lower/lowered.h"
#include "kernelgen/version.h"

namespace kernelgen {

using nlohmann::json;
using Json = nlohmann::ordered_json;

namespace {


// A JSON value on one line, with a space after each comma as in the specs of specs/.
std::string compact(const Json& value) {
    if (!value.is_array()) return value.dump(-1, ' ', false, json::error_handler_t::replace);
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + compact(value[i]);
    return out + "]";
}

}  // namespace

std::string spec_text(const Json& spec) {
    std::string out = "{\n";
    size_t i = 0;
    for (const auto& item : spec.items()) {
        out += "  " + in_quotes(item.key()) + ": ";
        const Json& value = item.value();
        if (item.key() == "indices" && value.is_array() && !value.empty() && value[0].is_array()) {
            out += "[\n";
            for (size_t row = 0; row < value.size(); ++row) {
                out += "    " + compact(value[row]) + (row + 1 < value.size() ? ",\n" : "\n");
            }
            out += "  ]";
        } else if (value.is_object()) {
            // An object (a table's form): one key a line.
            out += "{\n";
            size_t k = 0;
            for (const auto& part : value.items()) {
                out += "    " + in_quotes(part.key()) + ": " + compact(part.value()) + (++k < value.size() ? ",\n" : "\n");
            }
            out += "  }";
        } else {
            out += compact(value);
        }
        out += ++i < spec.size() ? ",\n" : "\n";
    }
    return out + "}\n";
}

Json node_entry(const NodeRef& node) {
    Json entry;
    entry["path"] = node.path();
    entry["graph"] = node.graph;
    entry["position"] = node.position;
    entry["name"] = node.name;
    entry["op"] = node.op_type;
    return entry;
}

void report_folded(Json& entry, const FoldedNode& folded) {
    if (folded.file.empty()) entry["folded"] = folded.value;
    else entry["folded_file"] = folded.file;
    entry["dtype"] = folded.dtype;
    entry["shape"] = folded.shape;
}

namespace {

// The kernel's parameters in prototype order, each with the model's tensor it takes: a tensor's name, or for a
// run-time count the tensor whose leading dimension it is.
Json call_plan(const ImportedKernel& kernel) {
    const KernelTensors& tensors = kernel.tensors;
    Json call = Json::array();
    for (const Parameter& parameter : lower(kernel.spec).face.parameters) {
        Json argument{{"parameter", parameter.name}};
        if (!parameter.tensor && parameter.name.rfind("data_dim_", 0) == 0) {  // an extent of data ("runtime_axes")
            argument["count_of"] = tensors.data;
            argument["axis"] = std::stoul(parameter.name.substr(std::string("data_dim_").size()));
        } else if (!parameter.tensor) {
            const bool rows_of_data = parameter.name == "data_count" || (kernel.bounded && kernel.bounded->leads == "data");
            argument["count_of"] = rows_of_data ? tensors.data : tensors.indices;
            argument["axis"] = 0;
        } else {
            using schedule::Tensor;
            const Tensor which = parameter.which;
            argument["tensor"] = which == Tensor::Data      ? tensors.data
                                 : which == Tensor::Indices ? tensors.indices
                                 : which == Tensor::Updates ? tensors.updates
                                                            : tensors.output;
            if (which == Tensor::Indices && !tensors.indices_through.empty()) argument["through"] = tensors.indices_through;
            if (which == Tensor::Updates && !tensors.updates_through.empty()) argument["through"] = tensors.updates_through;
        }
        call.push_back(std::move(argument));
    }
    return call;
}

}  // namespace

void report_spec(Json& entry, const ImportedKernel& kernel, const HeldTables& held) {
    entry["spec"] = kernel.spec.spec_file;
    entry["kernel"] = kernel.name;
    entry["call"] = call_plan(kernel);
    for (size_t i = 0; i < held.files.size(); ++i) {
        const HeldFile& file = held.files[i];
        const std::string& name = kernel.table_files[i].first;
        if (file.part == "data") entry["weights"] = {{"tensor", file.tensor}, {"data_file", name}};
        if (file.part == "updates") {
            entry["weights"]["updates_tensor"] = file.tensor;
            entry["weights"]["updates_file"] = name;
        }
    }
    for (const auto& item : held.form.items()) entry["weights"][item.key()] = item.value();
    if (!kernel.tensors.extents.empty()) {  // "runtime_axes": each extent's bound and how it was found
        entry["extents"] = Json::array();
        for (size_t i = 0; i < kernel.tensors.extents.size(); ++i) {
            const BoundedCount::Count& extent = kernel.tensors.extents[i];
            entry["extents"].push_back({{"axis", kernel.spec.runtime_axes.at(i)}, {"bound", extent.bound}, {"through", extent.through}});
        }
    }
    if (kernel.bounded) {
        const BoundedCount& bounded = *kernel.bounded;
        entry["bounded"] = Json::object();
        if (bounded.count) {
            entry["bounded"] = {{"bound", bounded.count->bound}, {"count_leads", bounded.leads}, {"through", bounded.count->through}};
        }
        if (bounded.data_count) {
            entry["bounded"]["data_count"] = {{"bound", bounded.data_count->bound}, {"through", bounded.data_count->through}};
        }
    }
}

std::string make_report(const ImportResult& result, const ModelAnalysis& analysis, const ImportOptions& options,
                        const std::string& file, Json entries) {
    Json report;
    report[kImportReportKey] = 1;
    report["model"] = std::filesystem::path(file).filename().string();
    report["generator"] = std::string("kernelgen ") + KERNELGEN_VERSION_STRING;
    // Made from sorted maps in one step: ordered_json finds a key by a linear search, so one insertion per key
    // would take quadratic time for many --dim options.
    report["dims"] = Json(analysis.bindings);
    std::map<std::string, std::vector<int64_t>> inputs;
    for (const auto& input : options.inputs) inputs.emplace(input.name, input.dims);
    report["inputs"] = Json(inputs);
    std::map<std::string, Json> values;  // as numbers where JSON reads them as such (not "+5" or ".5")
    for (const auto& input : options.values) {
        Json& list = values[input.name] = Json::array();
        for (const auto& text : input.values) {
            Json number = Json::parse(text, nullptr, false);
            list.push_back(number.is_number() ? number : Json(text));
        }
    }
    report["values"] = Json(values);
    report["inference"] = analysis.inference_ran ? Json("ran") : Json(analysis.inference_note);
    report["rounds"] = analysis.rounds;
    report["summary"] = {{"specs", result.kernels.size()},
                         {"specs_in_subgraphs", result.kernels_in_subgraphs()},
                         {"bounded", result.bounded_kernels()},
                         {"folded", result.folded.size()},
                         {"views", result.views.size()},
                         {"skipped", result.skipped.size()},
                         {"not_run", result.not_run.size()}};
    report["nodes"] = std::move(entries);
    return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace kernelgen
