// The kernels of specs/onnx_node_tests.json against ONNX's backend node tests (Debian libonnx-testdata,
// KERNELGEN_ONNX_NODE_DIR). For each test directory:
//   - model.onnx's single node must agree with the kernel's spec entry: op_type, and axis / batch_dims /
//     reduction (with ONNX's defaults when absent), so a spec that drifts from the test is caught;
//   - test_data_set_0/input_*.pb must have the spec's dtypes and shapes and the kernel's element counts;
//   - the kernel's output must equal output_0.pb bit for bit (the scatters also in place, output == data).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "c_program.h"
#include "node_gather_0.h"
#include "node_gather_1.h"
#include "node_gather_2d_indices.h"
#include "node_gather_elements_0.h"
#include "node_gather_elements_1.h"
#include "node_gather_elements_negative_indices.h"
#include "node_scatter_elements_with_axis.h"
#include "node_scatter_elements_with_duplicate_indices.h"
#include "node_scatter_elements_with_negative_indices.h"
#include "node_scatter_elements_without_axis.h"
#include "node_gather_negative_indices.h"
#include "node_gathernd_example_float32.h"
#include "node_gathernd_example_int32.h"
#include "node_gathernd_example_int32_batch_dim1.h"
#include "node_scatternd.h"
#include "node_scatternd_add.h"
#include "node_scatternd_multiply.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kNodeDir = KERNELGEN_ONNX_NODE_DIR;
const fs::path kSpecPath = fs::path(KERNELGEN_SOURCE_DIR) / "specs" / "onnx_node_tests.json";

// --- reading .pb files and the spec -----------------------------------------------------------------------

template <typename Message>
testing::AssertionResult read_proto(const fs::path& path, Message& message) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return testing::AssertionFailure() << "cannot open " << path;
    if (!message.ParseFromIstream(&in)) {
        return testing::AssertionFailure() << "cannot parse " << path << " as " << message.GetTypeName();
    }
    return testing::AssertionSuccess();
}

// The kernels of specs/onnx_node_tests.json by name (read once).
const json* find_spec_kernel(const std::string& name) {
    static const json spec = [] {
        std::ifstream in(kSpecPath);
        return in ? json::parse(in, nullptr, false) : json();
    }();
    if (!spec.is_object() || !spec.contains("kernels")) return nullptr;
    for (const json& kernel : spec["kernels"]) {
        if (kernel.value("name", "") == name) return &kernel;
    }
    return nullptr;
}

// The ONNX element type that stores T.
template <typename T>
constexpr int onnx_type_of() {
    if constexpr (std::is_same_v<T, float>) return onnx::TensorProto::FLOAT;
    else if constexpr (std::is_same_v<T, int32_t>) return onnx::TensorProto::INT32;
    else {
        static_assert(std::is_same_v<T, int64_t>, "only float, int32 and int64 tensors occur here");
        return onnx::TensorProto::INT64;
    }
}

int onnx_type_of_dtype(const std::string& dtype) {
    if (dtype == "float32") return onnx::TensorProto::FLOAT;
    if (dtype == "int32") return onnx::TensorProto::INT32;
    if (dtype == "int64") return onnx::TensorProto::INT64;
    return onnx::TensorProto::UNDEFINED;
}

// raw_data is little-endian whatever the host is.
template <typename T>
T from_little_endian(const unsigned char* bytes) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    Bits bits = 0;
    for (size_t b = 0; b < sizeof(T); ++b) bits |= static_cast<Bits>(bytes[b]) << (8 * b);
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}

// The values of a tensor: raw_data when present, else the typed repeated field.
template <typename T>
testing::AssertionResult decode_tensor(const onnx::TensorProto& tensor, std::vector<T>& values) {
    if (tensor.data_type() != onnx_type_of<T>()) {
        return testing::AssertionFailure() << "tensor '" << tensor.name() << "' has data_type "
                                           << tensor.data_type() << ", expected " << onnx_type_of<T>();
    }
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
        return testing::AssertionFailure() << "tensor '" << tensor.name() << "' stores its data externally";
    }
    size_t count = 1;
    for (int64_t extent : tensor.dims()) count *= static_cast<size_t>(extent);

    values.clear();
    if (!tensor.raw_data().empty()) {
        const std::string& raw = tensor.raw_data();
        if (raw.size() != count * sizeof(T)) {
            return testing::AssertionFailure() << "tensor '" << tensor.name() << "': raw_data has " << raw.size()
                                               << " bytes for " << count << " elements";
        }
        const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
        for (size_t i = 0; i < count; ++i) values.push_back(from_little_endian<T>(bytes + i * sizeof(T)));
    } else if constexpr (std::is_same_v<T, float>) {
        values.assign(tensor.float_data().begin(), tensor.float_data().end());
    } else if constexpr (std::is_same_v<T, int32_t>) {
        values.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    } else {
        values.assign(tensor.int64_data().begin(), tensor.int64_data().end());
    }
    if (values.size() != count) {
        return testing::AssertionFailure() << "tensor '" << tensor.name() << "' has " << values.size()
                                           << " values for " << count << " elements";
    }
    return testing::AssertionSuccess();
}

std::vector<int64_t> dims_of(const onnx::TensorProto& tensor) {
    return std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end());
}

// "[1, 0, 1]": the coordinates of a flat row-major element index.
std::string coordinates(size_t flat, const std::vector<int64_t>& dims) {
    std::vector<size_t> coords(dims.size());
    for (size_t axis = dims.size(); axis-- > 0;) {
        const auto extent = static_cast<size_t>(dims[axis]);
        coords[axis] = flat % extent;
        flat /= extent;
    }
    std::ostringstream text;
    text << '[';
    for (size_t axis = 0; axis < coords.size(); ++axis) text << (axis ? ", " : "") << coords[axis];
    text << ']';
    return text.str();
}

// Bit-for-bit comparison, each mismatch reported with its coordinates and flat element index.
template <typename T>
void expect_same_tensor(const std::string& label, const std::vector<T>& actual, const std::vector<T>& expected,
                        const std::vector<int64_t>& dims) {
    ASSERT_EQ(actual.size(), expected.size()) << label;
    for (size_t i = 0; i < actual.size(); ++i) {
        const bool same_bits = std::memcmp(&actual[i], &expected[i], sizeof(T)) == 0;
        EXPECT_TRUE(same_bits) << label << coordinates(i, dims) << " (element " << i << "): got " << std::setprecision(9)
            << actual[i] << ", expected " << expected[i];
    }
}

// Output buffers start as this byte, so an element the kernel does not write cannot match by chance.
template <typename T>
std::vector<T> sentinel_filled(size_t size) {
    std::vector<T> values(size);
    std::memset(static_cast<void*>(values.data()), 0xA5, size * sizeof(T));
    return values;
}

// --- the test data of one node test -------------------------------------------------------------------------

struct NodeTestData {
    std::vector<onnx::TensorProto> inputs;  // input_0.pb, input_1.pb, ...
    onnx::TensorProto output;               // output_0.pb
};

void load_test_data(const fs::path& test_dir, NodeTestData& data) {
    const fs::path set_dir = test_dir / "test_data_set_0";
    for (int i = 0; fs::exists(set_dir / ("input_" + std::to_string(i) + ".pb")); ++i) {
        data.inputs.emplace_back();
        ASSERT_TRUE(read_proto(set_dir / ("input_" + std::to_string(i) + ".pb"), data.inputs.back()));
    }
    ASSERT_TRUE(read_proto(set_dir / "output_0.pb", data.output));
    ASSERT_FALSE(fs::exists(set_dir / "output_1.pb")) << "the kernels have a single output";
}

// input_0 is data and input_1 indices: their dtypes and shapes must be the spec's.
void expect_inputs_match_spec(const NodeTestData& data, const json& spec) {
    ASSERT_GE(data.inputs.size(), 2u);
    const onnx::TensorProto& data_tensor = data.inputs[0];
    const onnx::TensorProto& indices_tensor = data.inputs[1];
    EXPECT_EQ(data_tensor.data_type(), onnx_type_of_dtype(spec.value("dtype", "")))
        << "data: dtype " << spec.value("dtype", "");
    EXPECT_EQ(indices_tensor.data_type(), onnx_type_of_dtype(spec.value("index_dtype", "int64")))
        << "indices: index_dtype " << spec.value("index_dtype", "int64");
    EXPECT_EQ(dims_of(data_tensor), spec.value("data_shape", std::vector<int64_t>{})) << "data shape";
    EXPECT_EQ(dims_of(indices_tensor), spec.value("indices_shape", std::vector<int64_t>{})) << "indices shape";
    EXPECT_EQ(data.output.data_type(), data_tensor.data_type()) << "output dtype";
}

// --- running the kernels ------------------------------------------------------------------------------------

// What the parameterized test needs of a kernel, whatever its signature.
struct NodeKernel {
    std::string test_name;    // "test_gather_0"
    std::string kernel_name;  // "node_gather_0"
    size_t input_count;       // 2, or 3 for ScatterND
    std::function<void(const NodeTestData&)> check_output;
};

// Hands a checked call to the Cortex-M test (cprogram::export_case, active with KERNELGEN_EXPORT_CASES).
template <typename T>
void export_call(const std::string& kernel, const std::vector<T>& data, const std::vector<int64_t>& indices,
                 const std::vector<T>* updates, bool in_place, int status, const std::vector<T>& expected) {
    const std::string label = kernel + " (ONNX node test)" + (in_place ? " in place" : "");
    cprogram::export_case(cprogram::typed_case<T>(kernel, label, data, indices, updates, in_place, status, expected));
}

template <typename T>
void check_gather_output(const NodeTestData& test, const std::string& name, int (*kernel)(const T*, const int64_t*, T*),
                         size_t data_size, size_t indices_size, size_t output_size, int ok) {
    std::vector<T> data, expected;
    std::vector<int64_t> indices;
    ASSERT_TRUE(decode_tensor(test.inputs.at(0), data));
    ASSERT_TRUE(decode_tensor(test.inputs.at(1), indices));
    ASSERT_TRUE(decode_tensor(test.output, expected));
    ASSERT_EQ(data.size(), data_size) << "data";
    ASSERT_EQ(indices.size(), indices_size) << "indices";
    ASSERT_EQ(expected.size(), output_size) << "output";

    std::vector<T> output = sentinel_filled<T>(output_size);
    ASSERT_EQ(kernel(data.data(), indices.data(), output.data()), ok);
    expect_same_tensor("output", output, expected, dims_of(test.output));
    export_call<T>(name, data, indices, nullptr, false, ok, expected);
}

template <typename T>
void check_scatter_output(const NodeTestData& test, const std::string& name,
                          int (*kernel)(const T*, const int64_t*, const T*, T*),
                          size_t data_size, size_t indices_size, size_t updates_size, size_t output_size, int ok) {
    std::vector<T> data, updates, expected;
    std::vector<int64_t> indices;
    ASSERT_TRUE(decode_tensor(test.inputs.at(0), data));
    ASSERT_TRUE(decode_tensor(test.inputs.at(1), indices));
    ASSERT_TRUE(decode_tensor(test.inputs.at(2), updates));
    ASSERT_TRUE(decode_tensor(test.output, expected));
    ASSERT_EQ(data.size(), data_size) << "data";
    ASSERT_EQ(indices.size(), indices_size) << "indices";
    ASSERT_EQ(updates.size(), updates_size) << "updates";
    ASSERT_EQ(expected.size(), output_size) << "output";
    ASSERT_EQ(dims_of(test.output), dims_of(test.inputs.at(0))) << "a scatter's output has data's shape";

    std::vector<T> output = sentinel_filled<T>(output_size);
    ASSERT_EQ(kernel(data.data(), indices.data(), updates.data(), output.data()), ok);
    expect_same_tensor("output", output, expected, dims_of(test.output));

    std::vector<T> in_place = data;
    ASSERT_EQ(kernel(in_place.data(), indices.data(), updates.data(), in_place.data()), ok);
    expect_same_tensor("in-place output", in_place, expected, dims_of(test.output));
    export_call(name, data, indices, &updates, false, ok, expected);
    export_call(name, data, indices, &updates, true, ok, expected);
}

template <typename T>
NodeKernel gather_kernel(const char* test_name, const char* kernel_name, int (*kernel)(const T*, const int64_t*, T*),
                         size_t data_size, size_t indices_size, size_t output_size, int ok) {
    return {test_name, kernel_name, 2, [=](const NodeTestData& test) {
                check_gather_output(test, kernel_name, kernel, data_size, indices_size, output_size, ok);
            }};
}

template <typename T>
NodeKernel scatter_kernel(const char* test_name, const char* kernel_name,
                          int (*kernel)(const T*, const int64_t*, const T*, T*), size_t data_size,
                          size_t indices_size, size_t updates_size, size_t output_size, int ok) {
    return {test_name, kernel_name, 3, [=](const NodeTestData& test) {
                check_scatter_output(test, kernel_name, kernel, data_size, indices_size, updates_size, output_size, ok);
            }};
}

// Test names print as the kernel name.
void PrintTo(const NodeKernel& kernel, std::ostream* out) { *out << kernel.kernel_name; }

#define GATHER_NODE(test, kernel, PREFIX)                                                                     \
    gather_kernel(test, #kernel, kernel, PREFIX##_DATA_SIZE, PREFIX##_INDICES_SIZE, PREFIX##_OUTPUT_SIZE, \
                  PREFIX##_OK)
#define SCATTER_NODE(test, kernel, PREFIX)                                                                     \
    scatter_kernel(test, #kernel, kernel, PREFIX##_DATA_SIZE, PREFIX##_INDICES_SIZE, PREFIX##_UPDATES_SIZE, \
                   PREFIX##_OUTPUT_SIZE, PREFIX##_OK)

const std::vector<NodeKernel>& node_kernels() {
    static const std::vector<NodeKernel> kernels{
        GATHER_NODE("test_gather_0", node_gather_0, NODE_GATHER_0),
        GATHER_NODE("test_gather_1", node_gather_1, NODE_GATHER_1),
        GATHER_NODE("test_gather_2d_indices", node_gather_2d_indices, NODE_GATHER_2D_INDICES),
        GATHER_NODE("test_gather_negative_indices", node_gather_negative_indices, NODE_GATHER_NEGATIVE_INDICES),
        GATHER_NODE("test_gather_elements_0", node_gather_elements_0, NODE_GATHER_ELEMENTS_0),
        GATHER_NODE("test_gather_elements_1", node_gather_elements_1, NODE_GATHER_ELEMENTS_1),
        GATHER_NODE("test_gather_elements_negative_indices", node_gather_elements_negative_indices,
                    NODE_GATHER_ELEMENTS_NEGATIVE_INDICES),
        GATHER_NODE("test_gathernd_example_float32", node_gathernd_example_float32, NODE_GATHERND_EXAMPLE_FLOAT32),
        GATHER_NODE("test_gathernd_example_int32", node_gathernd_example_int32, NODE_GATHERND_EXAMPLE_INT32),
        GATHER_NODE("test_gathernd_example_int32_batch_dim1", node_gathernd_example_int32_batch_dim1,
                    NODE_GATHERND_EXAMPLE_INT32_BATCH_DIM1),
        SCATTER_NODE("test_scatternd", node_scatternd, NODE_SCATTERND),
        SCATTER_NODE("test_scatternd_add", node_scatternd_add, NODE_SCATTERND_ADD),
        SCATTER_NODE("test_scatternd_multiply", node_scatternd_multiply, NODE_SCATTERND_MULTIPLY),
        SCATTER_NODE("test_scatter_elements_with_axis", node_scatter_elements_with_axis, NODE_SCATTER_ELEMENTS_WITH_AXIS),
        SCATTER_NODE("test_scatter_elements_with_duplicate_indices", node_scatter_elements_with_duplicate_indices,
                     NODE_SCATTER_ELEMENTS_WITH_DUPLICATE_INDICES),
        SCATTER_NODE("test_scatter_elements_with_negative_indices", node_scatter_elements_with_negative_indices,
                     NODE_SCATTER_ELEMENTS_WITH_NEGATIVE_INDICES),
        SCATTER_NODE("test_scatter_elements_without_axis", node_scatter_elements_without_axis,
                     NODE_SCATTER_ELEMENTS_WITHOUT_AXIS),
    };
    return kernels;
}

// --- the tests ----------------------------------------------------------------------------------------------

class OnnxNodeTest : public testing::TestWithParam<NodeKernel> {
protected:
    fs::path test_dir() const { return kNodeDir / GetParam().test_name; }
};

TEST_P(OnnxNodeTest, ModelNodeAgreesWithSpec) {
    const NodeKernel& kernel = GetParam();
    const json* spec = find_spec_kernel(kernel.kernel_name);
    ASSERT_NE(spec, nullptr) << kernel.kernel_name << " not found in " << kSpecPath;

    onnx::ModelProto model;
    ASSERT_TRUE(read_proto(test_dir() / "model.onnx", model));
    ASSERT_EQ(model.graph().node_size(), 1);
    const onnx::NodeProto& node = model.graph().node(0);
    const std::string op = spec->value("op", "");
    ASSERT_EQ(node.op_type(), op);
    EXPECT_EQ(static_cast<size_t>(node.input_size()), kernel.input_count);
    EXPECT_EQ(node.output_size(), 1);

    // Every attribute of the node must be one the spec models, with the spec's value; absent ones take
    // ONNX's defaults (axis 0, batch_dims 0, reduction "none"), which must also be the spec's.
    const std::string int_attribute = op == "GatherND" ? "batch_dims" : op == "ScatterND" ? "" : "axis";
    const bool scatter = op == "ScatterND" || op == "ScatterElements";
    const auto rank = static_cast<int64_t>(spec->value("data_shape", std::vector<int64_t>{}).size());
    const auto normalized = [&](int64_t value) {
        return int_attribute == "axis" && value < 0 ? value + rank : value;  // a negative axis counts from the back
    };
    int64_t model_int = 0;
    std::string model_reduction = "none";
    for (const onnx::AttributeProto& attribute : node.attribute()) {
        if (!int_attribute.empty() && attribute.name() == int_attribute) {
            ASSERT_EQ(attribute.type(), onnx::AttributeProto::INT) << attribute.name();
            model_int = attribute.i();
        } else if (scatter && attribute.name() == "reduction") {
            ASSERT_EQ(attribute.type(), onnx::AttributeProto::STRING) << attribute.name();
            model_reduction = attribute.s();
        } else {
            ADD_FAILURE() << "model attribute '" << attribute.name() << "' is not modelled by the spec";
        }
    }
    if (!int_attribute.empty()) {
        EXPECT_EQ(normalized(model_int), normalized(spec->value(int_attribute, int64_t{0})))
            << int_attribute << " of the model vs the spec";
    }
    if (scatter) {
        EXPECT_EQ(model_reduction, spec->value("reduction", std::string("none")))
            << "reduction of the model vs the spec";
    }
    for (const char* key : {"axis", "batch_dims", "reduction"}) {
        if (key != int_attribute && !(scatter && std::string(key) == "reduction")) {
            EXPECT_FALSE(spec->contains(key)) << "spec of " << op << " sets '" << key << "'";
        }
    }
}

TEST_P(OnnxNodeTest, OutputMatchesReference) {
    const NodeKernel& kernel = GetParam();
    const json* spec = find_spec_kernel(kernel.kernel_name);
    ASSERT_NE(spec, nullptr) << kernel.kernel_name << " not found in " << kSpecPath;

    NodeTestData data;
    ASSERT_NO_FATAL_FAILURE(load_test_data(test_dir(), data));
    ASSERT_EQ(data.inputs.size(), kernel.input_count);
    ASSERT_NO_FATAL_FAILURE(expect_inputs_match_spec(data, *spec));
    kernel.check_output(data);
}

INSTANTIATE_TEST_SUITE_P(Node, OnnxNodeTest, testing::ValuesIn(node_kernels()),
                         [](const testing::TestParamInfo<NodeKernel>& info) {
                             return info.param.kernel_name.substr(std::string("node_").size());
                         });

// Every kernel of specs/onnx_node_tests.json is checked above, and nothing else.
TEST(OnnxNodeSpec, EveryKernelHasANodeTest) {
    std::ifstream in(kSpecPath);
    ASSERT_TRUE(in) << "cannot open " << kSpecPath;
    const json spec = json::parse(in, nullptr, false);
    ASSERT_TRUE(spec.is_object() && spec.contains("kernels")) << kSpecPath << " is not a kernel list";
    std::vector<std::string> spec_names, tested_names;
    for (const json& kernel : spec["kernels"]) spec_names.push_back(kernel.value("name", ""));
    for (const NodeKernel& kernel : node_kernels()) {
        tested_names.push_back(kernel.kernel_name);
        EXPECT_EQ(kernel.kernel_name, "node_" + kernel.test_name.substr(std::string("test_").size()));
    }
    std::sort(spec_names.begin(), spec_names.end());
    std::sort(tested_names.begin(), tested_names.end());
    EXPECT_EQ(spec_names, tested_names);
}

}  // namespace
