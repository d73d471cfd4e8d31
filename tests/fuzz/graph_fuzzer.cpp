// libFuzzer target: ONNX graphs built from the fuzzer's bytes, through kernelgen import exactly as import_fuzzer
// feeds a model (import_check.h). import_fuzzer mutates a model's protobuf bytes, and seldom gets past the parser
// to a graph the importer's analysis has not seen; this one decodes the bytes (FuzzedDataProvider) into a valid
// protobuf ModelProto whose content is hostile: nodes of every operator import reads (its table of ONNX operators,
// the indexing operators, the quantizing ones, If, Loop and Scan, unknown ones) with 0 to 4 inputs and outputs
// (empty names, names of earlier outputs, of graph inputs and initializers, of nothing), attributes of every kind
// (ranks and axes up to 2^31 and beyond, negative, huge; floats, strings, tensors, subgraphs), initializers (small,
// of many element types, dimensions huge or negative with little data), graph inputs of symbolic and static
// dimensions, value_info, and opset imports.
//
// KERNELGEN_GRAPH_FUZZER_MODEL=<path>: also writes each model built to <path> (run one input to get its model, e.g.
// to keep a crash as a regression of import_fuzzer: tests/fuzz/import_regressions/).
#include <fuzzer/FuzzedDataProvider.h>
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "import/operators/onnx_operators.h"
#include "import_check.h"

namespace {

using onnx::AttributeProto;
using onnx::TensorProto;

// Operators import treats with care, picked more often than the rest of its table: those that make a run-time count,
// the indexing and quantizing ones, and what carries shapes and holds bodies.
const std::vector<std::vector<std::string>>& favourite_operators() {
    static const std::vector<std::vector<std::string>> families{
        {"TopK", "NonZero", "Compress", "Unique", "NonMaxSuppression", "Slice"},
        {"Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements", "Scatter", "TensorScatter",
         "GatherBlockQuantized", "DequantizeLinear", "QuantizeLinear"},
        {"Shape", "Reshape", "ConstantOfShape", "Expand", "Range", "Concat", "Unsqueeze", "Squeeze", "Constant", "Split",
         "If", "Loop", "Scan", "Cast", "Transpose", "Tile", "Where", "Size"}};
    return families;
}

// Operators import does not know, or knows only by name in another domain.
const std::vector<std::string>& other_operators() {
    static const std::vector<std::string> ops{"Frobnicate", "", "MatMulInteger", "gather", "Gather ", "LSTM", "Einsum"};
    return ops;
}

const std::vector<std::string>& attribute_names() {
    static const std::vector<std::string> names{
        "axis", "axes", "perm", "batch_dims", "reduction", "mode", "starts", "ends", "steps", "keepdims", "allowzero",
        "k", "largest", "sorted", "to", "value", "value_int", "value_ints", "value_float", "value_floats",
        "then_branch", "else_branch", "body", "block_size", "bits", "gather_axis", "quantize_axis", "output_dtype",
        "saturate", "center_point_box", "split", "num_outputs", "noop_with_empty_axes", "pads", "scales", "sizes",
        "start", "end", "dtype", "num_scan_inputs", "scan_input_axes", "scan_output_axes", "scan_input_directions",
        "scan_output_directions", "transA", "transB", "alpha", "coordinate_transformation_mode", "detect_negative",
        "value_string", "value_strings", "precision", "x"};
    return names;
}

const std::vector<int32_t>& element_types() {
    static const std::vector<int32_t> types{
        TensorProto::FLOAT,   TensorProto::INT64,  TensorProto::INT32,   TensorProto::BOOL,    TensorProto::UINT8,
        TensorProto::INT8,    TensorProto::FLOAT16, TensorProto::BFLOAT16, TensorProto::DOUBLE, TensorProto::STRING,
        TensorProto::INT16,   TensorProto::UINT16, TensorProto::UINT32,  TensorProto::UINT64,  TensorProto::COMPLEX64,
        TensorProto::COMPLEX128, 0, 17, 21, 22, 99, -1};
    return types;
}

// The bytes of one element of `type` in raw_data (strings have none; 4-bit types take one here).
size_t element_bytes(int32_t type) {
    switch (type) {
        case TensorProto::DOUBLE: case TensorProto::INT64: case TensorProto::UINT64: case TensorProto::COMPLEX64: return 8;
        case TensorProto::COMPLEX128: return 16;
        case TensorProto::FLOAT: case TensorProto::INT32: case TensorProto::UINT32: return 4;
        case TensorProto::FLOAT16: case TensorProto::BFLOAT16: case TensorProto::INT16: case TensorProto::UINT16: return 2;
        default: return 1;
    }
}

class GraphMaker {
public:
    explicit GraphMaker(FuzzedDataProvider& in) : in_(in) {}

    onnx::ModelProto model() {
        onnx::ModelProto model;
        model.set_ir_version(pick<int64_t>({8, 8, 8, 7, 9, 10, 3, 4, 11, 0, -1}));
        if (in_.ConsumeIntegralInRange(0, 31) != 0) {
            // Mostly the opsets exporters write, at times an old one, now and then one that does not exist.
            int64_t opset = in_.ConsumeIntegralInRange<int64_t>(11, 24);
            const int age = in_.ConsumeIntegralInRange(0, 15);
            if (age < 3) opset = in_.ConsumeIntegralInRange<int64_t>(1, 10);
            if (age == 3) opset = pick<int64_t>({0, -1, 25, 26, 1000, int64_t{1} << 40});
            auto* entry = model.add_opset_import();
            entry->set_domain(in_.ConsumeBool() ? "" : "ai.onnx");
            entry->set_version(opset);
            if (in_.ConsumeIntegralInRange(0, 7) == 0) *model.add_opset_import() = *entry;  // twice
        }
        if (in_.ConsumeIntegralInRange(0, 3) == 0) {
            auto* entry = model.add_opset_import();
            entry->set_domain("com.microsoft");
            entry->set_version(1);
        }
        if (in_.ConsumeIntegralInRange(0, 15) == 0) {
            auto* entry = model.add_opset_import();
            entry->set_domain("com.example");
            entry->set_version(in_.ConsumeIntegral<int64_t>());
        }
        std::vector<std::string> outer;
        graph(model.mutable_graph(), outer, 0, GraphKind::main);
        return model;
    }

private:
    enum class GraphKind { main, branch, loop_body, scan_body };

    template <typename T>
    T pick(std::initializer_list<T> choices) {
        const size_t at = in_.ConsumeIntegralInRange<size_t>(0, choices.size() - 1);
        return *(choices.begin() + static_cast<std::ptrdiff_t>(at));
    }
    template <typename T>
    const T& pick_from(const std::vector<T>& choices) {
        return choices[in_.ConsumeIntegralInRange<size_t>(0, choices.size() - 1)];
    }

    // An integer as attributes and constants hold them: mostly small, then the ends of int32 and int64, 2^31, 2^40.
    int64_t integer() {
        switch (in_.ConsumeIntegralInRange(0, 9)) {
            case 0: return pick<int64_t>({std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                                          std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                                          int64_t{1} << 31, -(int64_t{1} << 31) - 1, int64_t{1} << 32, int64_t{1} << 40,
                                          -(int64_t{1} << 40), int64_t{1} << 62});
            case 1: return in_.ConsumeIntegral<int64_t>();
            case 2: return in_.ConsumeIntegralInRange<int64_t>(-70000, 70000);
            default: return in_.ConsumeIntegralInRange<int64_t>(-4, 8);
        }
    }

    // A dimension: mostly small, at times 0, huge, or negative.
    int64_t dimension() {
        switch (in_.ConsumeIntegralInRange(0, 15)) {
            case 0: return pick<int64_t>({int64_t{1} << 40, int64_t{1} << 31, std::numeric_limits<int64_t>::max(),
                                          int64_t{1} << 20, 65536, 4097});
            case 1: return pick<int64_t>({-1, -2, std::numeric_limits<int64_t>::min()});
            default: return in_.ConsumeIntegralInRange<int64_t>(0, 6);
        }
    }

    std::string short_string() {
        switch (in_.ConsumeIntegralInRange(0, 9)) {
            case 0: return in_.ConsumeRandomLengthString(12);
            case 1: return "";
            default:
                return pick<std::string>({"add", "mul", "max", "min", "none", "linear", "circular", "ring", "NOTSET",
                                          "half_pixel", "x"});
        }
    }

    // A name a node or a graph output reads: an earlier one (mostly a recent one), none, or one nothing defines.
    std::string name_from(const std::vector<std::string>& names) {
        const int choice = in_.ConsumeIntegralInRange(0, 19);
        if (choice == 0 || names.empty()) return "";
        if (choice == 1) return pick<std::string>({"undefined", "x", "n0_0", " "});
        if (choice < 10) {
            const size_t back = in_.ConsumeIntegralInRange<size_t>(0, std::min<size_t>(3, names.size() - 1));
            return names[names.size() - 1 - back];
        }
        return pick_from(names);
    }

    void tensor_type(onnx::TypeProto* type) {
        if (in_.ConsumeIntegralInRange(0, 31) == 0) {
            // A sequence of tensors, where a tensor is expected.
            type->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
            return;
        }
        auto* tensor = type->mutable_tensor_type();
        tensor->set_elem_type(pick_from(element_types()));
        if (in_.ConsumeIntegralInRange(0, 9) == 0) return;  // rank unknown
        auto* shape = tensor->mutable_shape();
        const int rank = in_.ConsumeIntegralInRange(0, 15) == 0 ? in_.ConsumeIntegralInRange(5, 40)
                                                                 : pick<int>({0, 1, 1, 1, 2, 2, 2, 3, 3, 4});
        for (int d = 0; d < rank; ++d) {
            auto* dim = shape->add_dim();
            switch (in_.ConsumeIntegralInRange(0, 9)) {
                case 0: dim->set_dim_param(pick<std::string>({"N", "batch", "seq", ""})); break;
                case 1: dim->set_dim_param("N"); break;
                case 2: break;  // neither
                default: dim->set_dim_value(dimension());
            }
        }
    }

    void value_info(onnx::ValueInfoProto* info, const std::string& name) {
        info->set_name(name);
        if (in_.ConsumeIntegralInRange(0, 15) != 0) tensor_type(info->mutable_type());
    }

    // A tensor (an initializer, or a Constant's value): small, of any element type, its data in raw_data or a
    // typed field, at times less (or more) than its dimensions say, or stored outside the model.
    void tensor(TensorProto* t, const std::string& name) {
        t->set_name(name);
        const int32_t type = pick_from(element_types());
        t->set_data_type(type);
        const int rank = in_.ConsumeIntegralInRange(0, 3);
        uint64_t count = 1;
        for (int d = 0; d < rank; ++d) {
            const int64_t dim = in_.ConsumeIntegralInRange(0, 11) == 0 ? dimension() : in_.ConsumeIntegralInRange<int64_t>(0, 5);
            t->add_dims(dim);
            count = dim < 0 || count > (uint64_t{1} << 40) / (static_cast<uint64_t>(dim) + 1) ? (uint64_t{1} << 41)
                                                                                              : count * static_cast<uint64_t>(dim);
        }
        // How many elements the data holds: what the dimensions say (when small), or a few.
        uint64_t stored = count <= 64 ? count : in_.ConsumeIntegralInRange<uint64_t>(0, 8);
        const int layout = in_.ConsumeIntegralInRange(0, 15);
        if (layout == 0 && stored > 0) --stored;
        if (layout == 1) ++stored;
        if (layout == 2) {
            t->set_data_location(TensorProto::EXTERNAL);
            auto* entry = t->add_external_data();
            entry->set_key("location");
            entry->set_value(pick<std::string>({"weights.bin", "../../etc/passwd", ""}));
            return;
        }
        const bool raw = in_.ConsumeBool();
        for (uint64_t i = 0; i < stored; ++i) {
            const int64_t v = integer();
            if (raw || type == TensorProto::FLOAT16 || type == TensorProto::BFLOAT16) {
                const size_t bytes = element_bytes(type);
                for (size_t b = 0; b < bytes; ++b) t->mutable_raw_data()->push_back(static_cast<char>(v >> (8 * (b % 8))));
                continue;
            }
            switch (type) {
                case TensorProto::INT64: t->add_int64_data(v); break;
                case TensorProto::UINT64: case TensorProto::UINT32: t->add_uint64_data(static_cast<uint64_t>(v)); break;
                case TensorProto::FLOAT: case TensorProto::COMPLEX64: t->add_float_data(static_cast<float>(v) / 2); break;
                case TensorProto::DOUBLE: case TensorProto::COMPLEX128: t->add_double_data(static_cast<double>(v) / 2); break;
                case TensorProto::STRING: t->add_string_data(short_string()); break;
                default: t->add_int32_data(static_cast<int32_t>(v));
            }
        }
    }

    void attribute(onnx::NodeProto& node, const std::vector<std::string>& names, int depth, const std::string& wanted = "") {
        AttributeProto* a = node.add_attribute();
        a->set_name(wanted.empty() ? pick_from(attribute_names()) : wanted);
        int kind = in_.ConsumeIntegralInRange(0, 19);
        const std::string& n = a->name();
        if (n == "then_branch" || n == "else_branch" || n == "body") kind = in_.ConsumeIntegralInRange(0, 7) ? 17 : kind;
        else if (n == "value") kind = in_.ConsumeIntegralInRange(0, 3) ? 15 : kind;
        switch (kind) {
            case 0: case 1: case 2: case 3: case 4: case 5:
                a->set_type(AttributeProto::INT);
                a->set_i(integer());
                break;
            case 6: case 7: case 8: case 9: {
                a->set_type(AttributeProto::INTS);
                const int length = in_.ConsumeIntegralInRange(0, 15) == 0 ? in_.ConsumeIntegralInRange(0, 40)
                                                                           : in_.ConsumeIntegralInRange(0, 5);
                for (int i = 0; i < length; ++i) a->add_ints(integer());
                break;
            }
            case 10:
                a->set_type(AttributeProto::FLOAT);
                a->set_f(pick<float>({0.5f, 1.0f, -1.0f, 0.0f, 1e30f, std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::infinity()}));
                break;
            case 11:
                a->set_type(AttributeProto::FLOATS);
                for (int i = in_.ConsumeIntegralInRange(0, 4); i > 0; --i) a->add_floats(static_cast<float>(integer()));
                break;
            case 12: case 13:
                a->set_type(AttributeProto::STRING);
                a->set_s(short_string());
                break;
            case 14:  // a type that does not say what the attribute holds
                a->set_type(pick<AttributeProto::AttributeType>({AttributeProto::UNDEFINED, AttributeProto::STRINGS,
                                                                 AttributeProto::TENSORS, AttributeProto::GRAPHS}));
                a->set_i(integer());
                break;
            case 15: case 16:
                a->set_type(AttributeProto::TENSOR);
                tensor(a->mutable_t(), "");
                break;
            default:
                a->set_type(AttributeProto::GRAPH);
                if (depth < 2) {
                    const GraphKind kind_of_body = n == "body" ? (node.op_type() == "Scan" ? GraphKind::scan_body
                                                                                            : GraphKind::loop_body)
                                                               : GraphKind::branch;
                    graph(a->mutable_g(), names, depth + 1, kind_of_body);
                } else {
                    a->mutable_g()->set_name("empty");
                }
        }
    }

    // The operator of a node, and its domain.
    void operator_of(onnx::NodeProto& node) {
        const int choice = in_.ConsumeIntegralInRange(0, 19);
        if (choice < 14) {
            node.set_op_type(pick_from(favourite_operators()[static_cast<size_t>(choice) % 3]));
        } else if (choice < 19) {
            const auto& table = kernelgen::onnx_operators();
            node.set_op_type(std::string(table[in_.ConsumeIntegralInRange<size_t>(0, table.size() - 1)].op_type));
        } else {
            node.set_op_type(pick_from(other_operators()));
        }
        if (node.op_type() == "GatherBlockQuantized" && in_.ConsumeIntegralInRange(0, 7) != 0) node.set_domain("com.microsoft");
        switch (in_.ConsumeIntegralInRange(0, 31)) {
            case 0: node.set_domain("ai.onnx"); break;
            case 1: node.set_domain("com.microsoft"); break;
            case 2: node.set_domain("com.example"); break;
            default: break;
        }
    }

    // Graph inputs, initializers, nodes, outputs and value_info. `outer` holds the names the enclosing graphs define
    // before this one's node (a body may read them).
    void graph(onnx::GraphProto* g, const std::vector<std::string>& outer, int depth, GraphKind kind) {
        const std::string prefix = depth == 0 ? "" : "b" + std::to_string(bodies_++) + "_";
        g->set_name(prefix + "graph");
        std::vector<std::string> names = outer;
        // A Loop body takes the iteration number and the condition first; an If branch takes none half the time (ONNX's
        // take none); a Scan body up to 2, its states and elements.
        int inputs = in_.ConsumeIntegralInRange(0, depth == 0 ? 4 : 2);
        if (kind == GraphKind::loop_body) {
            value_info(g->add_input(), prefix + "iter");
            value_info(g->add_input(), prefix + "cond");
            names.push_back(prefix + "iter");
            names.push_back(prefix + "cond");
        }
        if (kind == GraphKind::branch && in_.ConsumeBool()) inputs = 0;
        for (int i = 0; i < inputs; ++i) {
            const std::string name = in_.ConsumeIntegralInRange(0, 15) == 0 ? "" : prefix + "in" + std::to_string(i);
            value_info(g->add_input(), name);
            names.push_back(name);
        }
        const int initializers = in_.ConsumeIntegralInRange(0, depth == 0 ? 4 : 2);
        for (int i = 0; i < initializers; ++i) {
            // At times an input's name: a default the caller may override.
            std::string name = prefix + "w" + std::to_string(i);
            if (inputs > 0 && in_.ConsumeIntegralInRange(0, 7) == 0) name = g->input(in_.ConsumeIntegralInRange(0, inputs - 1)).name();
            tensor(g->add_initializer(), name);
            names.push_back(name);
        }
        const int nodes = in_.ConsumeIntegralInRange(0, depth == 0 ? 16 : 4);
        for (int n = 0; n < nodes && in_.remaining_bytes() > 0; ++n) {
            onnx::NodeProto& node = *g->add_node();
            operator_of(node);
            if (in_.ConsumeIntegralInRange(0, 3) != 0) node.set_name(in_.ConsumeIntegralInRange(0, 15) == 0 ? "same" : prefix + "node" + std::to_string(n));
            const int node_inputs = pick<int>({0, 1, 1, 1, 2, 2, 2, 3, 3, 4});
            for (int i = 0; i < node_inputs; ++i) node.add_input(name_from(names));
            const int attributes = pick<int>({0, 0, 1, 1, 2, 3});
            const std::string& op = node.op_type();
            if (op == "If") {
                if (in_.ConsumeIntegralInRange(0, 7) != 0) attribute(node, names, depth, "then_branch");
                if (in_.ConsumeIntegralInRange(0, 7) != 0) attribute(node, names, depth, "else_branch");
            } else if (op == "Loop" || op == "Scan") {
                if (in_.ConsumeIntegralInRange(0, 7) != 0) attribute(node, names, depth, "body");
                if (op == "Scan" && in_.ConsumeBool()) attribute(node, names, depth, "num_scan_inputs");
            } else if (op == "Constant" && in_.ConsumeIntegralInRange(0, 3) != 0) {
                attribute(node, names, depth, pick<std::string>({"value", "value", "value_int", "value_ints",
                                                                 "value_float", "value_floats"}));
            }
            for (int a = 0; a < attributes; ++a) attribute(node, names, depth);
            const int outputs = pick<int>({0, 1, 1, 1, 1, 1, 2, 2, 3, 4});
            for (int k = 0; k < outputs; ++k) {
                std::string name = prefix + "n" + std::to_string(n) + "_" + std::to_string(k);
                const int how = in_.ConsumeIntegralInRange(0, 31);
                if (how == 0) name = "";
                if (how == 1 && !names.empty()) name = pick_from(names);  // defined twice
                node.add_output(name);
                if (!name.empty()) names.push_back(name);
                if (!name.empty() && in_.ConsumeIntegralInRange(0, 7) == 0) value_info(g->add_value_info(), name);
            }
        }
        int outputs = in_.ConsumeIntegralInRange(0, 3);
        if (kind == GraphKind::loop_body) outputs += 1;  // the condition
        for (int k = 0; k < outputs; ++k) {
            const std::string name = in_.ConsumeIntegralInRange(0, 3) == 0 || names.empty() ? name_from(names) : names.back();
            auto* info = g->add_output();
            if (in_.ConsumeBool()) value_info(info, name);
            else info->set_name(name);
        }
    }

    FuzzedDataProvider& in_;
    int bodies_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    FuzzedDataProvider in(bytes, size);
    std::string model;
    if (!GraphMaker(in).model().SerializeToString(&model)) return 0;
    if (const char* path = std::getenv("KERNELGEN_GRAPH_FUZZER_MODEL")) std::ofstream(path, std::ios::binary) << model;
    kernelgen_fuzz::import_and_check(model);
    return 0;
}
