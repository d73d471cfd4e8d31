#include "import/report.h"

#include <filesystem>
#include <map>

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
        } else if (item.key() == "quantization" && value.is_object()) {
            // A quantized table's object: one key a line.
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
                         {"skipped", result.skipped.size()},
                         {"not_run", result.not_run.size()}};
    report["nodes"] = std::move(entries);
    return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace kernelgen
