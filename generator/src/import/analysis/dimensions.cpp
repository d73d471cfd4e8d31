#include "import/analysis/dimensions.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "common/hints.h"
#include "import/model/bodies.h"
#include "kernelgen/result.h"
#include "kernelgen/spec.h"

namespace kernelgen {

namespace {

// `text` as an element of ONNX type `elem_type` into `tensor`; false when it is not one.
bool add_element(onnx::TensorProto& tensor, int32_t elem_type, const std::string& text) {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    auto integer = [&](long long low, long long high, long long& out) {
        out = std::strtoll(begin, &end, 10);
        return errno == 0 && end != begin && *end == '\0' && out >= low && out <= high;
    };
    long long value = 0;
    switch (elem_type) {
        case onnx::TensorProto::FLOAT: {
            const float f = std::strtof(begin, &end);  // ERANGE for a subnormal too: only an overflow is refused
            if (end == begin || *end != '\0' || (errno == ERANGE && std::isinf(f))) return false;
            tensor.add_float_data(f);
            return true;
        }
        case onnx::TensorProto::DOUBLE: {
            const double d = std::strtod(begin, &end);
            if (end == begin || *end != '\0' || (errno == ERANGE && std::isinf(d))) return false;
            tensor.add_double_data(d);
            return true;
        }
        case onnx::TensorProto::INT64:
            if (!integer(INT64_MIN, INT64_MAX, value)) return false;
            tensor.add_int64_data(value);
            return true;
        case onnx::TensorProto::UINT32:
        case onnx::TensorProto::UINT64: {
            if (text.empty() || text[0] == '-') return false;
            const unsigned long long u = std::strtoull(begin, &end, 10);
            const bool fits = elem_type == onnx::TensorProto::UINT64 || u <= UINT32_MAX;
            if (errno != 0 || end == begin || *end != '\0' || !fits) return false;
            tensor.add_uint64_data(u);
            return true;
        }
        case onnx::TensorProto::INT32: if (!integer(INT32_MIN, INT32_MAX, value)) return false; break;
        case onnx::TensorProto::INT16: if (!integer(INT16_MIN, INT16_MAX, value)) return false; break;
        case onnx::TensorProto::INT8: if (!integer(INT8_MIN, INT8_MAX, value)) return false; break;
        case onnx::TensorProto::UINT16: if (!integer(0, UINT16_MAX, value)) return false; break;
        case onnx::TensorProto::UINT8: if (!integer(0, UINT8_MAX, value)) return false; break;
        case onnx::TensorProto::BOOL: if (!integer(0, 1, value)) return false; break;
        default: return false;
    }
    tensor.add_int32_data(static_cast<int32_t>(value));
    return true;
}

// What an element of ONNX type `elem_type` may be written as, for messages; "" for a type --value does not take.
std::string allowed_values(int32_t elem_type) {
    switch (elem_type) {
        case onnx::TensorProto::FLOAT:
        case onnx::TensorProto::DOUBLE: return "a decimal number (0.5, -1e3)";
        case onnx::TensorProto::INT64: return "an integer from -2^63 to 2^63-1";
        case onnx::TensorProto::UINT64: return "an integer from 0 to 2^64-1";
        case onnx::TensorProto::UINT32: return "an integer from 0 to 4294967295";
        case onnx::TensorProto::INT32: return "an integer from -2147483648 to 2147483647";
        case onnx::TensorProto::INT16: return "an integer from -32768 to 32767";
        case onnx::TensorProto::INT8: return "an integer from -128 to 127";
        case onnx::TensorProto::UINT16: return "an integer from 0 to 65535";
        case onnx::TensorProto::UINT8: return "an integer from 0 to 255";
        case onnx::TensorProto::BOOL: return "0 or 1";
        default: return "";
    }
}

}  // namespace

// Makes each graph input --value names a constant of those values (an initializer that is no longer an input), in
// the shape the model (or --input) declares for it.
bool bind_values(onnx::ModelProto& model, const ImportOptions& options, std::vector<std::string>& usage_errors) {
    std::set<std::string> seen;
    auto* inputs = model.mutable_graph()->mutable_input();
    for (const auto& given : options.values) {
        if (!seen.insert(given.name).second) {
            usage_errors.push_back("--value " + given.name + " is given more than once");
            continue;
        }
        int position = -1;
        std::string names;
        std::vector<std::string> input_names;
        for (int i = 0; i < inputs->size(); ++i) {
            names += (names.empty() ? "" : ", ") + in_quotes(inputs->Get(i).name());
            input_names.push_back(inputs->Get(i).name());
            if (inputs->Get(i).name() == given.name) position = i;
        }
        if (position < 0) {
            usage_errors.push_back(given.text + ": the model has no input " + in_quotes(given.name) + " (its inputs: " +
                                   names + ")" + did_you_mean_name(given.name, input_names));
            continue;
        }
        const onnx::ValueInfoProto& input = inputs->Get(position);
        const int32_t elem_type = input.type().tensor_type().elem_type();
        if (!input.type().has_tensor_type() || allowed_values(elem_type).empty()) {
            const std::string what =
                input.type().has_tensor_type() ? "of element type " + element_type_name(elem_type) : "not a tensor";
            usage_errors.push_back(given.text + ": input " + in_quotes(given.name) + " is " + what +
                                   " (--value takes integer, bool, float and double tensors)");
            continue;
        }
        const auto shape = static_shape(&input.type());
        if (!shape) {
            usage_errors.push_back(given.text + ": the shape of input " + in_quotes(given.name) +
                                   " is not known (give it with --input " + given.name +
                                   "=SHAPE, or bind its dimensions with --dim)");
            continue;
        }
        uint64_t elements = 1;  // capped past the most values an option gives, so that it cannot wrap
        for (int64_t dim : *shape) {
            elements = std::min<uint64_t>(elements * static_cast<uint64_t>(dim), kMaxInputValues + 1);
        }
        if (elements != given.values.size()) {
            const std::string count =
                elements > kMaxInputValues ? "more than " + std::to_string(kMaxInputValues) : std::to_string(elements);
            const std::string dims = format_shape(Shape(shape->begin(), shape->end()));
            usage_errors.push_back(given.text + ": input " + in_quotes(given.name) + " has " + count +
                                   (elements == 1 ? " element" : " elements") + " (shape " + dims + "), not " +
                                   std::to_string(given.values.size()));
            continue;
        }
        onnx::TensorProto tensor;
        tensor.set_name(given.name);
        tensor.set_data_type(elem_type);
        for (int64_t dim : *shape) tensor.add_dims(dim);
        bool fits = true;
        for (const auto& text : given.values) {
            if (add_element(tensor, elem_type, text)) continue;
            const std::string allowed = element_type_name(elem_type) + ": " + allowed_values(elem_type);
            usage_errors.push_back(given.text + ": " + in_quotes(text) + " is not a value of input " +
                                   in_quotes(given.name) + " (" + allowed + ")");
            fits = false;
            break;
        }
        if (!fits) continue;
        // An initializer of the same name (the input's default) gives way to the values given.
        auto* initializers = model.mutable_graph()->mutable_initializer();
        for (int i = initializers->size(); i-- > 0;) {
            if (initializers->Get(i).name() == given.name) initializers->DeleteSubrange(i, 1);
        }
        *initializers->Add() = std::move(tensor);
        inputs->DeleteSubrange(position, 1);
    }
    return usage_errors.empty();
}

namespace {

// The declared shape of an input as the messages show it: "[1, \"seq\", ?]".
std::string shown_shape(const onnx::TensorShapeProto& declared) {
    std::string shown = "[";
    for (int d = 0; d < declared.dim_size(); ++d) {
        const auto& dim = declared.dim(d);
        shown += (d ? ", " : "") + (dim.has_dim_value() ? std::to_string(dim.dim_value())
                                                         : dim.dim_param().empty() ? std::string("?") : in_quotes(dim.dim_param()));
    }
    return shown + "]";
}

// One --input's shape (`text`, the option as the user gave it) given to the model's input: its dimensions bound in
// `analysis` (`source`: the option that bound each), its declared shape replaced; or the problem.
Result<Ok> bind_input_shape(onnx::ModelProto& model, const InputShape& given, const std::string& text,
                            ModelAnalysis& analysis, std::map<std::string, std::string>& source) {
    onnx::ValueInfoProto* input = nullptr;
    std::string names;
    std::vector<std::string> input_names;
    for (auto& candidate : *model.mutable_graph()->mutable_input()) {
        names += (names.empty() ? "" : ", ") + in_quotes(candidate.name());
        input_names.push_back(candidate.name());
        if (candidate.name() == given.name) input = &candidate;
    }
    if (!input) {
        return Problem{text + ": the model has no input " + in_quotes(given.name) + " (its inputs: " + names + ")" +
                       did_you_mean_name(given.name, input_names)};
    }
    if (input->has_type() && !input->type().has_tensor_type()) {
        return Problem{text + ": input " + in_quotes(given.name) + " is not a tensor"};
    }
    auto* tensor = input->mutable_type()->mutable_tensor_type();
    if (tensor->has_shape()) {
        const auto& declared = tensor->shape();
        if (declared.dim_size() != static_cast<int>(given.dims.size())) {
            return Problem{text + ": input " + in_quotes(given.name) + " has rank " + std::to_string(declared.dim_size()) +
                           " in the model (" + shown_shape(declared) + "), not " + std::to_string(given.dims.size())};
        }
        for (int d = 0; d < declared.dim_size(); ++d) {
            const auto& dim = declared.dim(d);
            const int64_t value = given.dims[static_cast<size_t>(d)];
            if (dim.has_dim_value() && dim.dim_value() != value) {
                return Problem{text + ": dimension " + std::to_string(d) + " of " + in_quotes(given.name) + " is " +
                               std::to_string(dim.dim_value()) + " in the model"};
            }
            if (!dim.has_dim_param() || dim.dim_param().empty()) continue;
            auto bound = analysis.bindings.find(dim.dim_param());
            if (bound != analysis.bindings.end() && bound->second != value) {
                return Problem{text + " gives dimension " + in_quotes(dim.dim_param()) + " the value " +
                               std::to_string(value) + ", but " + source[dim.dim_param()]};
            }
            analysis.bindings[dim.dim_param()] = value;
            source[dim.dim_param()] = text;
        }
    }
    auto* shape = tensor->mutable_shape();
    shape->clear_dim();
    for (int64_t value : given.dims) shape->add_dim()->set_dim_value(value);
    return ok();
}

// A --dim that names no dimension binds nothing: a typo, which would leave nodes skipped and the run a success.
void check_dim_names(const ImportOptions& options, const ModelAnalysis& analysis, std::vector<std::string>& usage_errors) {
    const std::vector<std::string> dim_names(analysis.declared_dim_params.begin(), analysis.declared_dim_params.end());
    for (const auto& [name, value] : options.dims) {
        if (analysis.declared_dim_params.count(name)) continue;
        std::string known;
        for (size_t i = 0; i < dim_names.size() && i < 20; ++i) known += (i ? ", " : "") + in_quotes(dim_names[i]);
        if (dim_names.size() > 20) known += ", ... (" + std::to_string(dim_names.size()) + " in all)";
        usage_errors.push_back("--dim " + name + "=" + std::to_string(value) + ": no dimension of the model is called " +
                               in_quotes(name) +
                               (dim_names.empty() ? " (it names none: give a whole input's shape with --input)"
                                                  : " (its dimensions: " + known + ")") +
                               did_you_mean_name(name, dim_names));
    }
}

}  // namespace

// Gives the dimensions the caller names their values. Returns false when the options do not fit the model.
bool bind_dimensions(onnx::ModelProto& model, const ImportOptions& options, ModelAnalysis& analysis,
                     std::vector<std::string>& usage_errors) {
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
        if (auto bound = bind_input_shape(model, given, text, analysis, source); !bound) usage_errors.push_back(bound.problem());
    }
    check_dim_names(options, analysis, usage_errors);
    if (!usage_errors.empty()) return false;
    for_each_declared_shape(model.mutable_graph(), [&](onnx::TensorShapeProto* shape) {
        for (auto& dim : *shape->mutable_dim()) {
            if (!dim.has_dim_param()) continue;
            auto bound = analysis.bindings.find(dim.dim_param());
            if (bound != analysis.bindings.end()) dim.set_dim_value(bound->second);
        }
    });
    return bind_values(model, options, usage_errors);
}

}  // namespace kernelgen
