#include "import/analysis/dimensions.h"

#include <algorithm>

#include "common/hints.h"
#include "import/model/bodies.h"
#include "kernelgen/spec.h"

namespace kernelgen {

// Gives the dimensions the caller names their values. Returns false when the options do not fit the model.
bool bind_dimensions(onnx::ModelProto& model, const ImportOptions& options, ModelAnalysis& analysis,
                     std::vector<std::string>& usage_errors, std::vector<std::string>& notes) {
    for_each_declared_shape(model.mutable_graph(), [&](onnx::TensorShapeProto* shape) {
        for (const auto& dim : shape->dim()) {
            if (dim.has_dim_param() && !dim.dim_param().empty()) analysis.declared_dim_params.insert(dim.dim_param());
        }
    });
    std::map<std::string, std::string> source;  // dimension name -> the option that bound it
    for (const auto& [name, value] : options.dims) {
        analysis.bindings[name] = value;
        source[name] = "--dim " + name + "=" + std::to_string(value);
    }
    std::set<std::string> seen_inputs;
    for (const auto& given : options.inputs) {
        std::string text = given.text;
        if (text.empty()) {
            text = "--input " + given.name + "=";
            for (size_t i = 0; i < given.dims.size(); ++i) text += (i ? "x" : "") + std::to_string(given.dims[i]);
            if (given.dims.empty()) text += "[]";
        }
        if (!seen_inputs.insert(given.name).second) {
            usage_errors.push_back("--input " + given.name + " is given more than once");
            continue;
        }
        onnx::ValueInfoProto* input = nullptr;
        std::string names;
        for (auto& candidate : *model.mutable_graph()->mutable_input()) {
            names += (names.empty() ? "" : ", ") + in_quotes(candidate.name());
            if (candidate.name() == given.name) input = &candidate;
        }
        if (!input) {
            usage_errors.push_back(text + ": the model has no input " + in_quotes(given.name) + " (its inputs: " + names + ")");
            continue;
        }
        if (input->has_type() && !input->type().has_tensor_type()) {
            usage_errors.push_back(text + ": input " + in_quotes(given.name) + " is not a tensor");
            continue;
        }
        auto* tensor = input->mutable_type()->mutable_tensor_type();
        if (tensor->has_shape()) {
            const auto& declared = tensor->shape();
            if (declared.dim_size() != static_cast<int>(given.dims.size())) {
                std::string shown = "[";
                for (int d = 0; d < declared.dim_size(); ++d) {
                    const auto& dim = declared.dim(d);
                    shown += (d ? ", " : "") + (dim.has_dim_value() ? std::to_string(dim.dim_value())
                                                                     : dim.dim_param().empty() ? std::string("?") : in_quotes(dim.dim_param()));
                }
                usage_errors.push_back(text + ": input " + in_quotes(given.name) + " has rank " +
                                       std::to_string(declared.dim_size()) + " in the model (" + shown + "]), not " +
                                       std::to_string(given.dims.size()));
                continue;
            }
            bool fits = true;
            for (int d = 0; d < declared.dim_size() && fits; ++d) {
                const auto& dim = declared.dim(d);
                const int64_t value = given.dims[static_cast<size_t>(d)];
                if (dim.has_dim_value() && dim.dim_value() != value) {
                    usage_errors.push_back(text + ": dimension " + std::to_string(d) + " of " + in_quotes(given.name) +
                                           " is " + std::to_string(dim.dim_value()) + " in the model");
                    fits = false;
                } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
                    auto bound = analysis.bindings.find(dim.dim_param());
                    if (bound != analysis.bindings.end() && bound->second != value) {
                        usage_errors.push_back(text + " gives dimension " + in_quotes(dim.dim_param()) + " the value " +
                                               std::to_string(value) + ", but " + source[dim.dim_param()]);
                        fits = false;
                    } else {
                        analysis.bindings[dim.dim_param()] = value;
                        source[dim.dim_param()] = text;
                    }
                }
            }
            if (!fits) continue;
        }
        auto* shape = tensor->mutable_shape();
        shape->clear_dim();
        for (int64_t value : given.dims) shape->add_dim()->set_dim_value(value);
    }
    if (!usage_errors.empty()) return false;
    for (const auto& [name, value] : options.dims) {
        if (!analysis.declared_dim_params.count(name)) {
            const std::vector<std::string> names(analysis.declared_dim_params.begin(), analysis.declared_dim_params.end());
            notes.push_back("--dim " + name + "=" + std::to_string(value) + ": no dimension of the model is called " +
                            in_quotes(name) + did_you_mean(name, names, (name.size() - 1) / 2));  // "M" is not "N"
        }
    }
    for_each_declared_shape(model.mutable_graph(), [&](onnx::TensorShapeProto* shape) {
        for (auto& dim : *shape->mutable_dim()) {
            if (!dim.has_dim_param()) continue;
            auto bound = analysis.bindings.find(dim.dim_param());
            if (bound != analysis.bindings.end()) dim.set_dim_value(bound->second);
        }
    });
    return true;
}

}  // namespace kernelgen
