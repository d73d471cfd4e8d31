// kernelgen import as a whole: a model read and analysed, every indexing node of every graph walked (a spec, a
// folded value, a skipped node or one that never runs), the options checked against the nodes they name, the
// report made; and the outputs and summary line of a result.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/npy.h"
#include "import/analysis/count_bounds.h"
#include "import/index_put.h"
#include "import/analysis/model_analysis.h"
#include "import/names.h"
#include "import/node/quantized_tables.h"
#include "import/node/spec.h"
#include "import/node/view.h"
#include "import/model/resource_guard.h"
#include "import/report.h"
#include "kernelgen/generate.h"
#include "kernelgen/import.h"
#include "kernelgen/operators.h"

namespace kernelgen {

namespace {

// "a Gather, ... or ScatterElements": the ONNX operators whose kernels take a run-time count (--max-count's nodes),
// from the operator table.
std::string counted_operators() {
    std::vector<std::string> names;
    for (const auto& row : operators()) {
        if (!row.counts) continue;
        for (const auto& onnx : row.onnx) {
            if (onnx.until == 0) names.emplace_back(onnx.op_type);
        }
    }
    std::string text = "a";
    for (size_t i = 0; i < names.size(); ++i) {
        text += std::string(i == 0 ? " " : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    return text;
}

using Json = nlohmann::ordered_json;

std::string strip_file_prefix(const std::string& message, const std::string& file) {
    return message.rfind(file + ": ", 0) == 0 ? message.substr(file.size() + 2) : message;
}

// The walk over every graph: each indexing node becomes a report entry and one of a spec, a folded value, a
// skipped node or a node that never runs.
class Importer {
public:
    Importer(const ModelAnalysis& analysis, const CountBounds& counts, const ImportOptions& options, ResourceGuard& guard,
             int64_t opset, const std::string& file, ImportResult& result)
        : analysis_(analysis), counts_(counts), options_(options), guard_(guard), opset_(opset), file_(file),
          names_(options.prefix), npy_names_(std::filesystem::path(file).stem().string()), result_(result) {}

    // Every indexing node of `scope`, each followed by those of its bodies (graph order). `not_run` says why the
    // scope never runs (a branch its If does not take), or is empty.
    void walk(const GraphScope& scope, const std::string& not_run) {
        for (int n = 0; n < scope.graph->node_size(); ++n) {
            const onnx::NodeProto& node = scope.graph->node(n);
            const auto position = static_cast<size_t>(n);
            if (const auto rule = find_rule(node)) visit(scope, node, position, *rule, not_run);
            const auto taken = taken_branch(scope, node, n);
            const auto keys = scope.body_keys.find(n);
            if (keys == scope.body_keys.end()) continue;
            for (const auto& key : keys->second) {
                std::string reason = not_run;
                if (reason.empty() && taken && key != *taken) {
                    reason = "not run: it is in the " + branch_name(key) + " branch of " +
                             NodeRef{node.name(), node.op_type(), position, scope.path}.str() +
                             ", whose condition is always " + (*taken == "then_branch" ? "true" : "false") +
                             " with these shapes";
                }
                walk(*scope.children.at({n, key}), reason);
            }
        }
    }

    // Options that named no node they apply to: usage errors.
    void option_errors() const {
        for (const auto& [node, bound] : options_.max_counts) {
            if (max_counts_used_.count(node)) continue;
            result_.usage_errors.push_back("--max-count " + node + "=" + std::to_string(bound) +
                                           ": the model has no indexing node " + in_quotes(node) +
                                           " (name " + counted_operators() + " node by its name, or by its path in a body)");
        }
        for (const auto& [node, bound] : options_.max_extents) {
            if (max_extents_used_.count(node)) continue;
            result_.usage_errors.push_back("--max-extent " + node + "=" + std::to_string(bound) + ": the model has no Gather node " +
                                           in_quotes(node) + " (name a Gather node by its name, or by its path in a body)");
        }
        for (const auto& node : options_.plain_indices) {
            if (plain_seen_.count(node)) continue;
            result_.usage_errors.push_back("--plain-indices " + node + ": the model has no indexing node " + in_quotes(node) +
                                           " (name an indexing node by its name, or by its path in a body)");
        }
        for (const auto& node : options_.accumulate) {
            const auto seen = accumulate_seen_.find(node);
            if (seen != accumulate_seen_.end() && seen->second.empty()) continue;
            result_.usage_errors.push_back("--accumulate " + node + ": " +
                                           (seen == accumulate_seen_.end()
                                                ? "the model has no indexing node " + in_quotes(node) +
                                                      " (name the ScatterND node of an index_put_(accumulate=True) by "
                                                      "its name, or by its path in a body)"
                                                : seen->second));
        }
    }

    const std::vector<KernelSpec>& parsed() const { return parsed_; }
    Json take_entries() { return std::move(entries_); }

private:
    // One node: its entry, and the record of what it is.
    void visit(const GraphScope& scope, const onnx::NodeProto& node, size_t position, const OpRule& rule,
               const std::string& not_run) {
        guard_.check();
        const NodeRef ref{node.name(), node.op_type(), position, scope.path};
        Json entry = node_entry(ref);
        const bool plain_indices = plain_indices_for(ref, node);
        // --accumulate and --max-count name the node by its path (its name, for a node of the main graph).
        const std::string accumulate_key = option_key(ref, node, [&](const std::string& key) {
            return options_.accumulate.count(key) > 0;
        });
        if (!not_run.empty()) {
            refuse_accumulate(accumulate_key, ref, "is " + not_run);  // "is not run: it is in the else branch of ..."
            entry["not_run"] = not_run;
            result_.not_run.push_back({ref, not_run});
        } else if (const TensorValue* value = node.output_size() > 0 ? scope.value(node.output(0)) : nullptr;
                   value && check_opset(rule, opset_)) {
            // Folded: its value is known, no kernel needed (the opset rule still applies: an invalid node is not).
            refuse_accumulate(accumulate_key, ref, "is folded (its value is known at import time): it has no kernel");
            record_folded(ref, *value, entry);
        } else {
            record_spec(scope, node, ref, rule, accumulate_key, plain_indices, entry);
        }
        entries_.push_back(std::move(entry));
    }

    // Whether a --plain-indices names the node (by its path, or its name); each NODE that does is marked used.
    bool plain_indices_for(const NodeRef& ref, const onnx::NodeProto& node) {
        bool named = false;
        for (const auto& key : {ref.path(), node.name()}) {
            if (!options_.plain_indices.count(key)) continue;
            plain_seen_.insert(key);
            named = true;
        }
        return named;
    }

    // The key by which an option names the node (its path, or its name), or "" when `named` finds neither.
    template <typename Named>
    static std::string option_key(const NodeRef& ref, const onnx::NodeProto& node, Named named) {
        for (const auto& key : {ref.path(), node.name()}) {
            if (named(key)) return key;
        }
        return "";
    }

    void refuse_accumulate(const std::string& key, const NodeRef& ref, const std::string& why) {
        if (!key.empty()) accumulate_seen_[key] = ref.str() + " " + why;
    }

    void record_folded(const NodeRef& ref, const TensorValue& value, Json& entry) {
        FoldedNode folded{ref, element_type_name(value.type), value.dims, nullptr, "", ""};
        if (value.count() <= kMaxReportedElements) {
            folded.value = value_json(value);
        } else {
            folded.file = npy_names_.allocate(ref.path());
            folded.npy = npy_file(value);
        }
        report_folded(entry, folded);
        result_.folded.push_back(std::move(folded));
    }

    // The NODE=N option (`option`: "--max-count", "--max-extent"; given as `given`) that names the node, if one does;
    // its NODE joins `used`.
    static std::optional<MaxCount> bound_for(const NodeRef& ref, const onnx::NodeProto& node, const std::string& option,
                                             const std::map<std::string, uint64_t>& given, std::set<std::string>& used) {
        const std::string key = option_key(ref, node, [&](const std::string& k) { return given.count(k) > 0; });
        if (key.empty()) return std::nullopt;
        used.insert(key);
        const uint64_t bound = given.at(key);
        return MaxCount{option + " " + key + "=" + std::to_string(bound), bound};
    }
    std::optional<MaxCount> max_count_for(const NodeRef& ref, const onnx::NodeProto& node) {
        return bound_for(ref, node, "--max-count", options_.max_counts, max_counts_used_);
    }
    std::optional<MaxCount> max_extent_for(const NodeRef& ref, const onnx::NodeProto& node) {
        return bound_for(ref, node, "--max-extent", options_.max_extents, max_extents_used_);
    }

    // PyTorch's index_put_(accumulate=True): a note, or with --accumulate the reduction PyTorch computes. Whether
    // the spec takes reduction "add".
    bool index_put(const GraphScope& scope, const onnx::NodeProto& node, const NodeRef& ref,
                   const std::string& accumulate_key, Json& entry) {
        const std::optional<NodeRef> adder = index_put_accumulate(scope, node);
        if (!adder) {
            refuse_accumulate(accumulate_key, ref,
                              "is not a ScatterND without a reduction that writes into zeros and whose result an Add adds "
                              "(the form of PyTorch's index_put_(accumulate=True))");
            return false;
        }
        const bool accumulate = !accumulate_key.empty();
        if (accumulate) accumulate_seen_[accumulate_key] = "";
        entry["accumulate"] = {{"add", adder->path()}, {"applied", accumulate}};
        if (!accumulate) {
            result_.notes.push_back(ref.str() + " writes into zeros without a reduction and " + adder->str() +
                                    " adds the result, as PyTorch exports index_put_(accumulate=True): at duplicate "
                                    "indices the model keeps one update where PyTorch adds them all. The spec does "
                                    "as the model does; --accumulate " + ref.path() +
                                    " gives it reduction \"add\", as PyTorch computes");
        }
        return accumulate;
    }

    // One try at a node's spec: what node_spec() made of it, and the kernel kernelgen's own reader made of that
    // (empty where it refused it: `diagnostics` say why), under the name it would take; nothing is taken yet.
    struct SpecAttempt {
        Result<Json> spec = Result<Json>(Json());
        std::optional<BoundedCount> bounded;
        HeldTables held;
        ImportedKernel kernel;
        SpecFiles files;
        std::vector<std::string> file_names;
        std::vector<KernelSpec> kernels;
        std::vector<Diagnostic> diagnostics;
    };
    SpecAttempt attempt_spec(const NodeContext& context, const NodeRef& ref, bool accumulate) {
        SpecAttempt a;
        a.spec = node_spec(context, a.bounded, a.held, a.kernel.tensors);
        if (!a.spec) return a;
        Json& spec = *a.spec;
        if (accumulate) spec["reduction"] = "add";
        a.kernel.node = ref;
        a.kernel.name = names_.next(context.scope.name_prefix, context.node, ref.position);
        spec["name"] = a.kernel.name;
        for (const HeldFile& held_file : a.held.files) {
            const std::string file = npy_names_.next_part(a.kernel.name, held_file.part);
            Json* at = &spec;
            for (const auto& key : held_file.key) at = &(*at)[key];
            *at = file;
            a.files[file] = held_file.npy;
            a.file_names.push_back(file);
            a.kernel.table_files.push_back({file, held_file.npy});
        }
        a.kernel.spec_text = spec_text(spec);
        a.kernels = parse_spec_text(a.kernel.spec_text, a.kernel.name + ".json", a.diagnostics, a.files);
        return a;
    }

    // A spec for the node, made by kernelgen's own reader from its text and the files it names (in memory, not yet
    // written), under the name it would take: the name and the files' names are taken only when the reader
    // accepts it (a refused node takes no name); or the node skipped with the reason. The reader is the one judge
    // of indices derived from a smaller tensor: where it refuses them (a constant component of a tuple out of
    // range, on which ONNX Runtime fails whatever the input), the kernel takes the node's own indices instead.
    void record_spec(const GraphScope& scope, const onnx::NodeProto& node, const NodeRef& ref, const OpRule& rule,
                     const std::string& accumulate_key, bool plain_indices, Json& entry) {
        const bool accumulate = index_put(scope, node, ref, accumulate_key, entry);
        // --max-extent applies to Gather nodes alone (ONNX's Gather: GatherBlockQuantized's data is a table).
        const bool gather = rule.op == Op::Gather && !is_gather_block_quantized(node);
        NodeContext context{node,       rule, opset_, scope, analysis_, counts_, max_count_for(ref, node),
                            gather ? max_extent_for(ref, node) : std::nullopt, ref.path(), options_.weights_in_kernel, plain_indices};
        SpecAttempt a = attempt_spec(context, ref, accumulate);
        const KernelTensors& taken = a.kernel.tensors;
        if (a.spec && a.kernels.size() != 1 && !plain_indices && (!taken.indices_through.empty() || !taken.updates_through.empty())) {
            const std::string refused = strip_file_prefix(a.diagnostics.front().str(), a.kernel.name + ".json");
            const std::string what = taken.updates_through.empty() ? "indices" : "indices and updates";
            context.plain_indices = true;
            a = attempt_spec(context, ref, accumulate);
            if (a.spec && a.kernels.size() == 1) {
                result_.notes.push_back(ref.str() + ": the kernel takes the node's own " + what + ": kernelgen refuses "
                                        "those it would derive them from (" + refused + ")");
            }
        }
        if (!a.held.note.empty()) result_.notes.push_back(ref.str() + ": " + a.held.note);
        if (context.max_count && a.spec) max_count_notes(*context.max_count, ref, a.bounded);
        if (context.max_extent && a.spec) max_extent_notes(*context.max_extent, ref, a.kernel.tensors.extents);
        if (!a.spec) {
            if (auto view = gather_view(scope, node, ref); view && check_opset(rule, opset_)) {
                entry["view_of"] = view->of;
                entry["view"] = view->how;
                result_.views.push_back(std::move(*view));
                return;
            }
            skip(ref, a.spec.problem(), entry);
            return;
        }
        if (a.kernels.size() != 1) {
            skip(ref, "kernelgen refuses it: " + strip_file_prefix(a.diagnostics.front().str(), a.kernel.name + ".json"), entry);
            return;
        }
        ImportedKernel& kernel = a.kernel;
        names_.take(kernel.name);
        for (const auto& file : a.file_names) npy_names_.take(file);
        kernel.spec = std::move(a.kernels.front());
        if (kernel.spec.constant_data) kernel.data_file = kernel.spec.constant_data->file;
        if (kernel.spec.constant_updates) kernel.updates_file = kernel.spec.constant_updates->file;
        parsed_.push_back(kernel.spec);
        kernel.bounded = std::move(a.bounded);
        report_spec(entry, kernel, a.held);
        result_.kernels.push_back(std::move(kernel));
    }

    void skip(const NodeRef& ref, const std::string& problem, Json& entry) {
        entry["skipped"] = problem;
        result_.skipped.push_back({ref, problem});
    }

    // A --max-count that cannot apply: the node's counts are fixed, or derived lower already.
    void max_count_notes(const MaxCount& max_count, const NodeRef& ref, const std::optional<BoundedCount>& bounded) {
        if (!bounded) {
            result_.notes.push_back(max_count.option + ": " + ref.str() + " has a fixed count; the option is not used");
            return;
        }
        const auto& count = bounded->bounded_by_option();
        if (max_count.bound > count.bound) {
            result_.notes.push_back(max_count.option + ": the count of " + ref.str() + " is at most " +
                                    std::to_string(count.bound) + " already (" + count.through.front() +
                                    "), which stays its bound");
        }
    }

    // A --max-extent that cannot apply: the node's data has no extent made at run time, or each is bounded lower
    // by its values already.
    void max_extent_notes(const MaxCount& max_extent, const NodeRef& ref, const std::vector<BoundedCount::Count>& extents) {
        if (extents.empty()) {
            result_.notes.push_back(max_extent.option + ": " + ref.str() +
                                    " has no data extent made at run time; the option is not used");
            return;
        }
        const bool used = std::any_of(extents.begin(), extents.end(),
                                      [&](const BoundedCount::Count& e) { return e.through.front() == max_extent.option; });
        if (!used) {
            uint64_t largest = 0;
            for (const auto& e : extents) largest = std::max(largest, e.bound);
            result_.notes.push_back(max_extent.option + ": " + ref.str() + " has data extents of at most " + std::to_string(largest) +
                                    " already (" + extents.front().through.front() + "), which stay their bounds");
        }
    }

    const ModelAnalysis& analysis_;
    const CountBounds& counts_;
    const ImportOptions& options_;
    ResourceGuard& guard_;
    int64_t opset_;
    const std::string& file_;
    NameAllocator names_;
    FileNames npy_names_;  // the .npy files of large folded values
    ImportResult& result_;
    std::set<std::string> max_counts_used_;   // the NODE of each --max-count that names an indexing node
    std::set<std::string> max_extents_used_;  // the NODE of each --max-extent that names a Gather node
    std::set<std::string> plain_seen_;       // the NODE of each --plain-indices that names an indexing node
    // The NODE of each --accumulate that names an indexing node: "" when it is index_put_'s ScatterND, else why not.
    std::map<std::string, std::string> accumulate_seen_;
    std::vector<KernelSpec> parsed_;
    Json entries_ = Json::array();
};

// The import of a parsed model, into `result` (see import_model).
void import_parsed(onnx::ModelProto model, int64_t opset, const std::string& file, const ImportOptions& options,
                   ResourceGuard& guard, ImportResult& result) {
    const ModelAnalysis analysis = analyze_model(std::move(model), opset, options, guard, result.usage_errors);
    if (!result.usage_errors.empty()) return;
    result.inference_ran = analysis.inference_ran;
    result.inference_note = analysis.inference_note;
    result.fold_rounds = analysis.rounds;

    const CountBounds counts(*analysis.main, opset, guard);
    Importer importer(analysis, counts, options, guard, opset, file, result);
    importer.walk(*analysis.main, "");
    importer.option_errors();
    if (!result.usage_errors.empty()) {
        result.kernels.clear();
        result.folded.clear();
        result.views.clear();
        result.skipped.clear();
        result.not_run.clear();
        return;
    }
    std::vector<Diagnostic> clashes;
    check_unique_names(importer.parsed(), clashes);
    for (const auto& clash : clashes) result.diagnostics.push_back({file, "", "internal error: " + clash.str()});
    if (!result.diagnostics.empty()) {
        result.kernels.clear();
        return;
    }
    result.report = make_report(result, analysis, options, file, importer.take_entries());
}

}  // namespace

std::string NodeRef::str() const {
    return "node " + in_quotes(name) + " (" + op_type + ", #" + std::to_string(position) + (graph.empty() ? "" : " in " + graph) + ")";
}

std::string NodeRef::path() const {
    const std::string label = name.empty() ? op_type + "#" + std::to_string(position) : name;
    return graph.empty() ? label : graph + "/" + label;
}


size_t ImportResult::bounded_kernels() const {
    return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(),
                                             [](const ImportedKernel& kernel) { return kernel.bounded.has_value(); }));
}

size_t ImportResult::kernels_in_subgraphs() const {
    return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(),
                                             [](const ImportedKernel& kernel) { return !kernel.node.graph.empty(); }));
}


ImportResult import_model(const std::string& bytes, const std::string& file, const ImportOptions& options) {
    ImportResult result;
    auto fatal = [&](const std::string& message) {
        result.diagnostics.push_back({file, "", message});
        return result;
    };
    if (auto prefix = check_prefix(options.prefix); !prefix) return fatal(prefix.problem());
    if (bytes.empty()) return fatal("the file is empty (expected an ONNX model)");
    onnx::ModelProto model;
    if (!model.ParseFromString(bytes)) {
        return fatal("not an ONNX model: the file does not parse as an ONNX ModelProto (protobuf)");
    }
    if (model.ir_version() <= 0 || !model.has_graph()) {
        return fatal(std::string("not an ONNX model: ") + (model.ir_version() <= 0 ? "no ir_version" : "no graph") +
                     " (the file parses as protobuf, but is not an ONNX ModelProto)");
    }
    bool has_opset = false;
    const int64_t opset = default_opset(model, has_opset);
    if (!has_opset) return fatal("not a valid ONNX model: it imports no opset of the ai.onnx domain");

    ResourceGuard guard(options.limits);
    std::optional<ProcessMemoryLimit> memory;
    if (options.limits.limit_process) memory.emplace(options.limits.memory_bytes);
    try {
        import_parsed(std::move(model), opset, file, options, guard, result);
    } catch (const LimitExceeded& exceeded) {
        result = ImportResult();
        return fatal(exceeded.what());
    } catch (const std::bad_alloc&) {
        // Refused by the memory limit, or by another (a ulimit -v closer to what the process held, the machine).
        result = ImportResult();
        return fatal(memory && memory->binding() ? guard.over_memory_limit() : ResourceGuard::allocation_failed());
    }
    return result;
}


ImportResult import_model_file(const std::string& path, const ImportOptions& options) {
    namespace fs = std::filesystem;
    ImportResult result;
    auto fatal = [&](const std::string& message) {
        result.diagnostics.push_back({path, "", message});
        return result;
    };
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status)) return fatal("no such file (expected an ONNX model)");
    if (fs::is_directory(status)) return fatal("is a folder, not a file (expected an ONNX model)");
    if (!fs::is_regular_file(status)) return fatal("is not a regular file (expected an ONNX model)");
    const uint64_t size = fs::file_size(path, error);
    if (error) return fatal("cannot read the file: " + error.message());
    if (size > kMaxModelBytes) return fatal("the file is larger than 2 GiB (protobuf's limit for an ONNX model)");
    std::ifstream in(path, std::ios::binary);
    if (!in) return fatal("cannot read the file: " + std::string(std::strerror(errno)));
    std::string bytes(static_cast<size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (static_cast<uint64_t>(in.gcount()) != size) return fatal("cannot read the file (it changed while being read?)");
    return import_model(bytes, path, options);
}

std::vector<OutputFile> spec_files(const ImportResult& result) {
    std::vector<OutputFile> files;
    for (const auto& kernel : result.kernels) files.push_back({kernel.name + ".json", kernel.spec_text});
    return files;
}

std::string report_file_name(const std::string& model_path) {
    return std::filesystem::path(model_path).stem().string() + ".import.json";
}

std::vector<OutputFile> import_outputs(const ImportResult& result, const std::string& model_path) {
    if (result.indexing_nodes() == 0) return {};
    std::vector<OutputFile> files = spec_files(result);
    for (const auto& folded : result.folded) {
        if (!folded.file.empty()) files.push_back({folded.file, folded.npy});
    }
    for (const auto& kernel : result.kernels) {
        for (const auto& [name, content] : kernel.table_files) files.push_back({name, content});
    }
    files.push_back({report_file_name(model_path), result.report});
    return files;
}

std::string import_summary(const ImportResult& result, const std::string& model_path) {
    if (result.indexing_nodes() == 0) return model_path + ": no indexing nodes; nothing was written";
    const size_t bounded = result.bounded_kernels();
    return model_path + ": " + std::to_string(result.kernels.size()) + (result.kernels.size() == 1 ? " spec" : " specs") +
           " (" + std::to_string(result.kernels_in_subgraphs()) + " in subgraphs" +
           (bounded ? ", " + std::to_string(bounded) + " bounded" : std::string()) + "), " +
           std::to_string(result.folded.size()) + " folded, " +
           (result.views.empty() ? std::string() : std::to_string(result.views.size()) +
                                                       (result.views.size() == 1 ? " view, " : " views, ")) +
           std::to_string(result.skipped.size()) + " skipped" +
           (result.not_run.empty() ? std::string() : ", " + std::to_string(result.not_run.size()) + " not run");
}
}  // namespace kernelgen
