// kernelgen import: ONNX models to specs.
//   - ImportNodeTests: every ONNX backend node test of the indexing operators (Debian libonnx-testdata) imports to
//     one spec, which must equal the hand-written entry of specs/onnx_node_tests.json, and whose kernel,
//     generated, compiled and run on the test's input_*.pb, must give output_0.pb bit for bit.
//   - ImportModel: a model built here with named and unnamed nodes, names to sanitize, initializer and Constant
//     indices, an initializer that is also an input, a dynamic shape, refused nodes, subgraphs, other domains.
//   - ImportFiles: not a model, truncated, empty, a folder; mutated models never crash the importer.
//   - ImportCli: the command line's output, exit codes and files.
//   - ImportCounts: run-time counts bounded by their producers (NonZero, NonMaxSuppression, Compress, TopK, Unique)
//     through the operators between, the refusals, and --max-count.
//   - ImportOrt: a model with several indexing nodes (opset 18: ScatterND max, ScatterElements) imported, its
//     kernels generated and run, and the same model run by ONNX Runtime: the outputs must agree.
#include <gtest/gtest.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <cctype>
#include <limits>
#include <cmath>
#include <map>
#include <set>
#include <chrono>
#include <iostream>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "c_program.h"
#include "half_reference.h"
#include "common/c_names.h"
#include "import/analysis/child_process.h"
#include "import/model/resource_guard.h"
#include "import/names.h"
#include "import/node/quantized_tables.h"
#include "import/operators/onnx_operators.h"
#include "kernelgen/generate.h"
#include "kernelgen/import.h"
#include "text_files.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kNodeDir = KERNELGEN_ONNX_NODE_DIR;
const fs::path kSourceDir = KERNELGEN_SOURCE_DIR;
const fs::path kWorkDir = KERNELGEN_IMPORT_WORK_DIR;

using testfiles::read_text;
using testfiles::write_text;

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = kWorkDir / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// --- tensors and C programs ---------------------------------------------------------------------------------

// A tensor's elements as little-endian bytes: raw_data, or the typed field.
std::vector<uint8_t> tensor_bytes(const onnx::TensorProto& tensor) {
    if (!tensor.raw_data().empty()) return {tensor.raw_data().begin(), tensor.raw_data().end()};
    switch (tensor.data_type()) {
        case onnx::TensorProto::FLOAT: return cprogram::bytes_of(std::vector<float>(tensor.float_data().begin(), tensor.float_data().end()));
        case onnx::TensorProto::INT32: return cprogram::bytes_of(std::vector<int32_t>(tensor.int32_data().begin(), tensor.int32_data().end()));
        case onnx::TensorProto::INT64: return cprogram::bytes_of(std::vector<int64_t>(tensor.int64_data().begin(), tensor.int64_data().end()));
        default: ADD_FAILURE() << "tensor " << tensor.name() << ": data_type " << tensor.data_type() << " not handled here";
    }
    return {};
}

// The unit the driver compares in: an element's bytes (a complex element's parts, one by one).
size_t element_size(const kernelgen::KernelSpec& spec) {
    const kernelgen::DTypeInfo& type = kernelgen::info(spec.dtype);
    return type.category == kernelgen::Category::Complex ? type.bits / 16 : type.bits / 8;
}

// Generates `kernels`, compiles them with the strict flags and sanitizers together with a driver that runs
// `cases`, and expects every case to pass.
void run_cases(const fs::path& dir, const std::vector<kernelgen::KernelSpec>& kernels, const std::vector<cprogram::Case>& cases) {
    kernelgen::GenerateResult generated = kernelgen::generate(kernels);
    ASSERT_TRUE(generated.diagnostics.empty()) << generated.diagnostics.front().str();
    // The kernels as one translation unit (an exported detector's hundreds of kernels at once); the cases' larger
    // tensors in cases.bin.
    std::vector<std::string> names;
    for (const auto& file : generated.files) names.push_back(file.name);
    const std::string unity = cprogram::unity_source(names);
    std::vector<uint8_t> blob;
    generated.files.push_back({"driver.c", cprogram::program(cases, &blob)});
    generated.files.push_back({"kernels.c", unity});
    generated.files.push_back({"cases.bin", std::string(blob.begin(), blob.end())});
    ASSERT_TRUE(kernelgen::write_outputs(dir, generated.files).error.empty());
    const std::string sanitize = " -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all";
    int status = 0;
    std::string log = cprogram::run_command("cd " + dir.string() + " && " KERNELGEN_C_COMPILER " " KERNELGEN_STRICT_C_FLAGS +
                                                sanitize + " -I. -c kernels.c",
                                            status);
    ASSERT_EQ(status, 0) << log;
    EXPECT_EQ(log, "") << "warnings";
    log = cprogram::run_command("cd " + dir.string() + " && " KERNELGEN_C_COMPILER " -std=c99" + sanitize +
                                    " -I. driver.c kernels.o -o driver && ASAN_OPTIONS=detect_leaks=0 ./driver",
                                status);
    EXPECT_EQ(status, 0) << log;
    EXPECT_NE(log.find(std::to_string(cases.size()) + " cases, 0 failed"), std::string::npos) << log;
}

// A call of an imported kernel: inputs as bytes, and the output expected bit for bit.
cprogram::Case make_case(const kernelgen::KernelSpec& spec, const std::string& label, std::vector<uint8_t> data,
                         std::vector<uint8_t> indices, std::vector<uint8_t> updates, std::vector<uint8_t> expected,
                         bool in_place = false) {
    cprogram::Case c;
    c.kernel = spec.name;
    c.label = label;
    c.has_updates = kernelgen::is_scatter(spec.op);
    c.in_place = in_place;
    c.constant_indices = spec.constant_indices.has_value();
    c.constant_data = spec.constant_data.has_value();
    c.constant_updates = spec.constant_updates.has_value();
    c.element_size = element_size(spec);
    c.data = std::move(data);
    c.indices = std::move(indices);
    c.updates = std::move(updates);
    c.expected_output = std::move(expected);
    return c;
}

// --- NodeTests --------------------------------------------------------------------------------------------

// The hand-written spec kernel of a node test: "node_" + the test's name; the deprecated Scatter's tests
// have ScatterElements' entries (the same data, the same result).
std::string spec_entry_name(const std::string& test) {
    std::string name = test.substr(std::string("test_").size());
    if (name.rfind("scatter_with", 0) == 0 || name.rfind("scatter_without", 0) == 0) {
        name = "scatter_elements_" + name.substr(std::string("scatter_").size());
    }
    return "node_" + name;
}

std::vector<std::string> node_tests() {
    std::vector<std::string> tests;
    for (const char* pattern : {"test_gather", "test_scatter"}) {
        for (const auto& entry : fs::directory_iterator(kNodeDir)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind(pattern, 0) == 0) tests.push_back(name);
        }
    }
    std::sort(tests.begin(), tests.end());
    return tests;
}

class ImportNodeTests : public testing::TestWithParam<std::string> {};

TEST_P(ImportNodeTests, ImportsToTheHandWrittenSpecAndPasses) {
    const std::string test = GetParam();
    const fs::path dir = kNodeDir / test;
    const kernelgen::ImportResult result = kernelgen::import_model_file((dir / "model.onnx").string());
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    ASSERT_EQ(result.kernels.size(), 1u);
    const kernelgen::KernelSpec& imported = result.kernels[0].spec;

    // The hand-written entry, read by kernelgen's reader too (defaults filled, axis normalized).
    std::vector<kernelgen::Diagnostic> diagnostics;
    const auto hand = kernelgen::parse_spec_file((kSourceDir / "specs" / "onnx_node_tests.json").string(), diagnostics);
    ASSERT_TRUE(diagnostics.empty());
    const std::string entry = spec_entry_name(test);
    auto it = std::find_if(hand.begin(), hand.end(), [&](const kernelgen::KernelSpec& k) { return k.name == entry; });
    ASSERT_NE(it, hand.end()) << entry << " is not in specs/onnx_node_tests.json";
    EXPECT_EQ(kernelgen::name(imported.op), kernelgen::name(it->op));
    EXPECT_EQ(imported.dtype, it->dtype);
    EXPECT_EQ(imported.index_dtype, it->index_dtype);
    EXPECT_EQ(imported.data_shape, it->data_shape);
    EXPECT_EQ(imported.indices_shape, it->indices_shape);
    EXPECT_EQ(imported.updates_shape, it->updates_shape);
    EXPECT_EQ(imported.output_shape, it->output_shape);
    EXPECT_EQ(imported.axis, it->axis);
    EXPECT_EQ(imported.batch_dims, it->batch_dims);
    EXPECT_EQ(imported.reduction, it->reduction);
    EXPECT_FALSE(imported.constant_indices.has_value());

    // The imported kernel on the test's data.
    std::vector<onnx::TensorProto> inputs;
    for (int i = 0; fs::exists(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")); ++i) {
        ASSERT_TRUE(inputs.emplace_back().ParseFromString(read_text(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"))));
    }
    onnx::TensorProto output;
    ASSERT_TRUE(output.ParseFromString(read_text(dir / "test_data_set_0" / "output_0.pb")));
    ASSERT_EQ(inputs.size(), kernelgen::is_scatter(imported.op) ? 3u : 2u);
    const std::vector<uint8_t> updates = inputs.size() == 3 ? tensor_bytes(inputs[2]) : std::vector<uint8_t>{};
    std::vector<cprogram::Case> cases{
        make_case(imported, test, tensor_bytes(inputs[0]), tensor_bytes(inputs[1]), updates, tensor_bytes(output))};
    if (kernelgen::is_scatter(imported.op)) {
        cases.push_back(make_case(imported, test + " in place", tensor_bytes(inputs[0]), tensor_bytes(inputs[1]), updates,
                                  tensor_bytes(output), true));
    }
    run_cases(fresh_dir("node/" + test), {imported}, cases);
}

INSTANTIATE_TEST_SUITE_P(Onnx, ImportNodeTests, testing::ValuesIn(node_tests()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param.substr(5); });

TEST(ImportNodeTestsFound, EveryIndexingNodeTest) {
    // 4 Gather, 3 GatherElements, 3 GatherND, 3 ScatterND, 4 ScatterElements, 2 Scatter (libonnx-testdata 1.12).
    EXPECT_EQ(node_tests().size(), 19u);
}

// The unit tier's filter of this program (tests/CMakeLists.txt) names only tests that exist: a test renamed or split
// would leave it naming nothing, and drop out of the edit loop without a word (as Folding.HandWorkedValues once did,
// split into four tests that then ran only in the kernels tier).
TEST(ImportTiers, TheUnitFilterNamesTestsThatExist) {
    const ::testing::UnitTest& tests = *::testing::UnitTest::GetInstance();
    auto exists = [&](const std::string& suite, const std::string& name) {
        for (int i = 0; i < tests.total_test_suite_count(); ++i) {
            const ::testing::TestSuite& s = *tests.GetTestSuite(i);
            if (s.name() != suite) continue;
            for (int j = 0; j < s.total_test_count(); ++j) {
                if (name == "*" || s.GetTestInfo(j)->name() == name) return true;
            }
        }
        return false;
    };
    std::istringstream filter(KERNELGEN_IMPORT_UNIT_FILTER);
    size_t named = 0;
    for (std::string pattern; std::getline(filter, pattern, ':'); ++named) {
        const size_t dot = pattern.find('.');
        ASSERT_NE(dot, std::string::npos) << pattern;
        EXPECT_TRUE(exists(pattern.substr(0, dot), pattern.substr(dot + 1))) << "the unit filter names " << pattern
                                                                            << ", which is no test of import_test";
    }
    EXPECT_GE(named, 10u);
}

// --- building models --------------------------------------------------------------------------------------

constexpr int64_t kDynamic = -1;  // a dimension given as dim_param "N"

class Model {
public:
    explicit Model(int64_t opset) {
        model_.set_ir_version(8);
        auto* entry = model_.add_opset_import();
        entry->set_domain("");
        entry->set_version(opset);
        model_.mutable_graph()->set_name("graph");
    }

    static void set_type(onnx::ValueInfoProto* info, const std::string& name, int32_t type, const std::vector<int64_t>& dims) {
        info->set_name(name);
        auto* tensor = info->mutable_type()->mutable_tensor_type();
        tensor->set_elem_type(type);
        auto* shape = tensor->mutable_shape();
        for (int64_t dim : dims) {
            if (dim == kDynamic) shape->add_dim()->set_dim_param("N");
            else shape->add_dim()->set_dim_value(dim);
        }
    }
    void input(const std::string& name, int32_t type, const std::vector<int64_t>& dims) {
        set_type(model_.mutable_graph()->add_input(), name, type, dims);
    }
    void output(const std::string& name, int32_t type, const std::vector<int64_t>& dims) {
        set_type(model_.mutable_graph()->add_output(), name, type, dims);
    }
    // int64 values in int64_data; int32 ones in raw_data (both ways ONNX stores them).
    static void fill(onnx::TensorProto* tensor, const std::string& name, int32_t type, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& values) {
        tensor->set_name(name);
        tensor->set_data_type(type);
        for (int64_t dim : dims) tensor->add_dims(dim);
        if (type == onnx::TensorProto::INT64) {
            for (int64_t value : values) tensor->add_int64_data(value);
        } else if (type == onnx::TensorProto::BOOL) {
            for (int64_t value : values) tensor->mutable_raw_data()->push_back(value != 0 ? '\1' : '\0');
        } else {
            std::vector<int32_t> narrow(values.begin(), values.end());
            const auto bytes = cprogram::bytes_of(narrow);
            tensor->set_raw_data(std::string(bytes.begin(), bytes.end()));
        }
    }
    void initializer(const std::string& name, int32_t type, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
        fill(model_.mutable_graph()->add_initializer(), name, type, dims, values);
    }
    // A float32 initializer of these values (initializer() takes float32 values as their bit patterns).
    void float_initializer(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values) {
        onnx::TensorProto* tensor = model_.mutable_graph()->add_initializer();
        tensor->set_name(name);
        tensor->set_data_type(onnx::TensorProto::FLOAT);
        for (int64_t dim : dims) tensor->add_dims(dim);
        for (float value : values) tensor->add_float_data(value);
    }
    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output,
                          const std::string& name = "") {
        return add_node(model_.mutable_graph(), op, inputs, output, name);
    }
    static onnx::NodeProto& add_node(onnx::GraphProto* graph, const std::string& op, const std::vector<std::string>& inputs,
                                     const std::string& output, const std::string& name) {
        onnx::NodeProto& node = *graph->add_node();
        node.set_op_type(op);
        node.set_name(name);
        for (const auto& input : inputs) node.add_input(input);
        node.add_output(output);
        return node;
    }
    static void attribute(onnx::NodeProto& node, const std::string& name, int64_t value) {
        auto* a = node.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(value);
    }
    static void attribute(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
        auto* a = node.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (int64_t value : values) a->add_ints(value);
    }
    static void attribute(onnx::NodeProto& node, const std::string& name, const std::string& value) {
        auto* a = node.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s(value);
    }
    onnx::ModelProto& proto() { return model_; }
    std::string bytes() const { return model_.SerializeAsString(); }

private:
    onnx::ModelProto model_;
};

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kInt32 = onnx::TensorProto::INT32;
constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

// A graph attribute `attribute` of `node` (an If's then_branch, a Loop's body), its graph called `name`.
onnx::GraphProto* add_body(onnx::NodeProto& node, const std::string& attribute, const std::string& name) {
    auto* a = node.add_attribute();
    a->set_name(attribute);
    a->set_type(onnx::AttributeProto::GRAPH);
    a->mutable_g()->set_name(name);
    return a->mutable_g();
}

// The model of the MultiNode tests, opset 18.
Model multi_node_model() {
    Model m(18);
    m.input("data", kFloat, {4, 3});
    m.input("idx", kInt64, {2});
    m.input("upd", kFloat, {2, 3});
    m.input("sidx", kInt64, {2, 1});
    m.input("dyn", kFloat, {kDynamic, 3});
    m.input("over", kInt64, {2});  // also an initializer: a default the caller may override
    m.input("fidx", kFloat, {1, 1});
    m.initializer("init_idx", kInt32, {2}, {3, -1});
    m.initializer("over", kInt64, {2}, {0, 1});
    m.initializer("far", kInt64, {1}, {7});
    m.node("Relu", {"data"}, "relu");                                        // #0: not an indexing node
    Model::attribute(m.node("Gather", {"relu", "idx"}, "o1", "embed/lookup:0"), "axis", 0);  // #1
    m.node("Gather", {"data", "init_idx"}, "o2");                            // #2: unnamed, constant indices
    onnx::NodeProto& constant = m.node("Constant", {}, "cidx");              // #3
    auto* value = constant.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    Model::fill(value->mutable_t(), "", kInt64, {2, 3}, {0, 1, 2, 3, -4, 0});
    Model::attribute(m.node("GatherElements", {"data", "cidx"}, "o4", "embed.lookup-0"), "axis", 0);  // #4
    m.node("Gather", {"dyn", "idx"}, "o5", "dynamic");                       // #5
    m.node("Gather", {"data", "over"}, "o6", "free");                        // #6: a C library name
    Model::attribute(m.node("ScatterND", {"data", "sidx", "upd"}, "o7", "Scatter max"), "reduction", "max");  // #7
    m.node("GatherND", {"data", "fidx"}, "o8", "float_indices");             // #8
    Model::attribute(m.node("Gather", {"data", "idx"}, "o9", "bad_axis"), "axis", 5);  // #9
    m.node("Gather", {"data", "far"}, "o10", "far");                         // #10
    m.node("Gather", {"data", "idx"}, "o11", "custom").set_domain("com.example");  // #11: another domain
    onnx::NodeProto& branch = m.node("If", {"cond"}, "o12", "branch");       // #12
    for (const std::string key : {"then_branch", "else_branch"}) {
        Model::add_node(add_body(branch, key, key), "Gather", {"data", "idx"}, key + "_out", key + "_gather");
    }
    m.input("cond", onnx::TensorProto::BOOL, {});
    m.node("ScatterElements", {"data", "idx2d", "upd"}, "o13");               // #13: unnamed, runtime indices
    m.input("idx2d", kInt64, {2, 3});
    m.output("o1", kFloat, {2, 3});  // the other outputs' shapes are left to shape inference
    return m;
}

std::vector<std::string> skipped_lines(const kernelgen::ImportResult& result) {
    std::vector<std::string> lines;
    for (const auto& s : result.skipped) lines.push_back(s.node.str() + ": " + s.reason);
    return lines;
}

TEST(ImportModel, ImportsAsDocumented) {
    const kernelgen::ImportResult result = kernelgen::import_model(multi_node_model().bytes(), "multi.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    EXPECT_TRUE(result.inference_ran) << result.inference_note;
    std::vector<std::string> names;
    for (const auto& kernel : result.kernels) names.push_back(kernel.name + " <- " + kernel.node.str());
    EXPECT_EQ(names, (std::vector<std::string>{
                         "embed_lookup_0 <- node \"embed/lookup:0\" (Gather, #1)",
                         "gather_2 <- node \"\" (Gather, #2)",
                         "embed_lookup_0_2 <- node \"embed.lookup-0\" (GatherElements, #4)",
                         "free_node <- node \"free\" (Gather, #6)",
                         "scatter_max <- node \"Scatter max\" (ScatterND, #7)",
                         // The bodies of an If, after it: the holding node and the branch lead the name.
                         "branch_then_then_branch_gather <- node \"then_branch_gather\" (Gather, #0 in branch/then)",
                         "branch_else_else_branch_gather <- node \"else_branch_gather\" (Gather, #0 in branch/else)",
                         "scatter_elements_13 <- node \"\" (ScatterElements, #13)",
                     }));
    EXPECT_EQ(skipped_lines(result),
              (std::vector<std::string>{
                  "node \"dynamic\" (Gather, #5): dynamic shape: data \"dyn\" dimension 0 is \"N\"; fix it with --dim N=<value>",
                  "node \"float_indices\" (GatherND, #8): unsupported index type: indices \"fidx\" is FLOAT (INT32 or INT64)",
                  "node \"bad_axis\" (Gather, #9): kernelgen refuses it: /axis: axis 5 is out of range for data of rank 2 (allowed -2..1)",
                  "node \"far\" (Gather, #10): kernelgen refuses it: /indices/0: index 7 is out of range for data axis 0 of size 4 (allowed -4..3)",
              }));
    ASSERT_EQ(result.kernels.size(), 8u);
    // Shapes through shape inference (Relu's output), int32 initializer values as constant indices.
    EXPECT_EQ(result.kernels[0].spec_text,
              "{\n  \"name\": \"embed_lookup_0\",\n  \"op\": \"Gather\",\n  \"dtype\": \"float32\",\n"
              "  \"index_dtype\": \"int64\",\n  \"data_shape\": [4, 3],\n  \"indices_shape\": [2],\n  \"axis\": 0\n}\n");
    EXPECT_EQ(result.kernels[1].spec_text,
              "{\n  \"name\": \"gather_2\",\n  \"op\": \"Gather\",\n  \"dtype\": \"float32\",\n"
              "  \"index_dtype\": \"int32\",\n  \"data_shape\": [4, 3],\n  \"indices_shape\": [2],\n  \"axis\": 0,\n"
              "  \"indices\": [3, -1]\n}\n");
    // A Constant node's tensor, nested one row per line.
    EXPECT_EQ(result.kernels[2].spec_text,
              "{\n  \"name\": \"embed_lookup_0_2\",\n  \"op\": \"GatherElements\",\n  \"dtype\": \"float32\",\n"
              "  \"index_dtype\": \"int64\",\n  \"data_shape\": [4, 3],\n  \"indices_shape\": [2, 3],\n  \"axis\": 0,\n"
              "  \"indices\": [\n    [0, 1, 2],\n    [3, -4, 0]\n  ]\n}\n");
    // An initializer that is also a graph input is not constant.
    EXPECT_FALSE(result.kernels[3].spec.constant_indices.has_value());
    EXPECT_EQ(result.kernels[4].spec_text,
              "{\n  \"name\": \"scatter_max\",\n  \"op\": \"ScatterND\",\n  \"dtype\": \"float32\",\n"
              "  \"index_dtype\": \"int64\",\n  \"data_shape\": [4, 3],\n  \"indices_shape\": [2, 1],\n"
              "  \"reduction\": \"max\",\n  \"updates_shape\": [2, 3]\n}\n");
    EXPECT_EQ(result.kernels[7].spec.op, kernelgen::Op::ScatterElements);
    EXPECT_EQ(result.kernels[7].spec.reduction, kernelgen::Reduction::None);

    const auto files = kernelgen::spec_files(result);
    ASSERT_EQ(files.size(), 8u);
    EXPECT_EQ(files[0].name, "embed_lookup_0.json");
    EXPECT_EQ(files[0].content, result.kernels[0].spec_text);
}

TEST(ImportModel, PrefixGoesInFrontOfEveryName) {
    const auto result = kernelgen::import_model(multi_node_model().bytes(), "multi.onnx", {"net_"});
    std::vector<std::string> names;
    for (const auto& kernel : result.kernels) names.push_back(kernel.name);
    EXPECT_EQ(names, (std::vector<std::string>{"net_embed_lookup_0", "net_gather_2", "net_embed_lookup_0_2", "net_free",
                                               "net_scatter_max", "net_branch_then_then_branch_gather",
                                               "net_branch_else_else_branch_gather", "net_scatter_elements_13"}));
}

TEST(ImportModel, PrefixesThatMakeInvalidNames) {
    EXPECT_TRUE(kernelgen::check_prefix(""));
    EXPECT_TRUE(kernelgen::check_prefix("net_"));
    EXPECT_EQ(kernelgen::check_prefix("9net").problem(),
              "prefix \"9net\" is not the start of a C identifier (a letter, then letters, digits and '_')");
    EXPECT_EQ(kernelgen::check_prefix("_net").problem(),
              "prefix \"_net\" is not the start of a C identifier (a letter, then letters, digits and '_')");
    EXPECT_EQ(kernelgen::check_prefix("a__b").problem(), "prefix \"a__b\" contains \"__\"");
    EXPECT_EQ(kernelgen::check_prefix("str").problem().rfind("prefix \"str\" makes invalid names: \"strx\" begins with \"str\"", 0), 0u);
    EXPECT_EQ(kernelgen::check_prefix("KernelGen").problem().rfind("prefix \"KernelGen\" makes invalid names: ", 0), 0u);
    EXPECT_FALSE(kernelgen::check_prefix(std::string(33, 'a')));
    const auto result = kernelgen::import_model(multi_node_model().bytes(), "multi.onnx", {"a-b"});
    ASSERT_EQ(result.diagnostics.size(), 1u);
    EXPECT_TRUE(result.kernels.empty());
}

// Names the spec rules refuse become valid, unique names; clashes count upper-cased and against macros ("x" has
// X_OK).
TEST(ImportModel, NamesAreSanitizedAndUnique) {
    Model m(13);
    m.input("data", kFloat, {3});
    m.input("idx", kInt64, {1});
    const std::vector<std::string> node_names{"int", "9lives", "memory", "size_t", "__x__", "Foo", "foo", "x_OK",
                                              "x", "kernelgen_gather", "über", std::string(80, 'n'), std::string(80, 'n'), ""};
    for (const auto& name : node_names) m.node("Gather", {"data", "idx"}, name + "_out", name);
    const auto result = kernelgen::import_model(m.bytes(), "names.onnx");
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    std::vector<std::string> names;
    for (const auto& kernel : result.kernels) names.push_back(kernel.name);
    EXPECT_EQ(names, (std::vector<std::string>{"int_node", "node_9lives", "node_memory", "size_t_node", "x", "foo",
                                               "foo_2", "x_ok_2", "x_2", "node_kernelgen_gather", "ber",
                                               std::string(63, 'n'), std::string(61, 'n') + "_2", "gather_13"}));
    for (const auto& name : names) EXPECT_TRUE(kernelgen::check_name(name)) << name;
}

// A node's name in words: runs of ASCII letters and digits, split where a capital starts a word, lower-cased.
TEST(ImportModel, SnakeCaseNameSplitsWordsAndLowerCases) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"/decoder/attn/ScatterND", "decoder_attn_scatter_nd"},
        {"GatherElements", "gather_elements"},
        {"NonMaxSuppression", "non_max_suppression"},
        {"Gather_3", "gather_3"},
        {"layers.0", "layers_0"},
        {"x_OK", "x_ok"},
        {"TopK", "top_k"},
        // A run of capitals is one word, and ends before a capital that starts a lower-case one.
        {"NMS", "nms"},
        {"ROIAlign", "roi_align"},
        {"HTTPServer", "http_server"},
        {"RoiAlign", "roi_align"},
        // ... but a lone plural 's' stays with its run.
        {"IDs", "ids"},
        {"input_IDs", "input_ids"},
        {"ROIsPool", "rois_pool"},
        // Digits end no word; after them a capital starts one only before a lower-case letter.
        {"GatherV2", "gather_v2"},
        {"Conv2D", "conv2d"},
        {"Conv2DTranspose", "conv2d_transpose"},
        {"Block2Attn", "block2_attn"},
        {"h.11.mlp", "h_11_mlp"},
        {"ABC123Def", "abc123_def"},
        // Every other character separates, a run of them once, none kept at either end.
        {"__x__", "x"},
        {"a--b..c", "a_b_c"},
        {" Scatter max ", "scatter_max"},
        {"\xc3\xbc" "ber", "ber"},
        {"already_snake_case", "already_snake_case"},
        {"", ""},
        {"/:/", ""},
    };
    for (const auto& [name, expected] : cases) EXPECT_EQ(kernelgen::snake_case_name(name), expected) << name;
}

// Kernel names from the model's node names, as docs/import.md describes them: the node's path in lower-case
// words, unique in the run.
TEST(ImportModel, KernelNamesFollowTheNodesPath) {
    Model m(13);
    m.input("data", kFloat, {3});
    m.input("idx", kInt64, {1});
    m.input("sidx", kInt64, {1, 1});
    m.input("upd", kFloat, {1});
    m.input("cond", kBool, {});
    m.node("ScatterND", {"data", "sidx", "upd"}, "o0", "/decoder/attn/ScatterND");  // #0: a PyTorch module path
    m.node("Gather", {"data", "idx"}, "o1", "/model/layers.0/self_attn/Gather_3");
    m.node("GatherElements", {"data", "idx"}, "o2");                                  // #2: no name
    m.node("Gather", {"data", "idx"}, "o3", "StatefulPartitionedCall/model/ROIAlign/GatherV2:0");  // TensorFlow's
    m.node("Gather", {"data", "idx"}, "o4", "/Attn/Gather");  // three names equal once lower-cased
    m.node("Gather", {"data", "idx"}, "o5", "/attn/gather");
    m.node("Gather", {"data", "idx"}, "o6", "/ATTN/GATHER");
    m.node("Gather", {"data", "idx"}, "o7", "/Int");           // a C keyword
    m.node("Gather", {"data", "idx"}, "o8", "Memcpy");         // a C library name, and "mem..."
    const std::string long_name = "/Transformer/EncoderLayers.11/MultiHeadSelfAttention/OutputProjection/GatherElements";
    m.node("Gather", {"data", "idx"}, "o9", long_name);
    m.node("Gather", {"data", "idx"}, "o10", long_name);
    onnx::NodeProto& branch = m.node("If", {"cond"}, "o11", "/Router/If");  // #11
    Model::add_node(add_body(branch, "then_branch", "then"), "Gather", {"data", "idx"}, "then_out", "/Pick");
    Model::add_node(add_body(branch, "else_branch", "else"), "Gather", {"data", "idx"}, "else_out", "");  // no name
    const auto result = kernelgen::import_model(m.bytes(), "paths.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    std::vector<std::string> names;
    for (const auto& kernel : result.kernels) names.push_back(kernel.name);
    // "transformer_encoder_layers_11_multi_head_self_attention_output_projection_gather_elements" (89 characters) cut
    // to 63, and its '_' at the end dropped; the second one's cut to 61 for its "_2".
    const std::string cut = "transformer_encoder_layers_11_multi_head_self_attention_output";
    EXPECT_EQ(names, (std::vector<std::string>{"decoder_attn_scatter_nd", "model_layers_0_self_attn_gather_3",
                                               "gather_elements_2", "stateful_partitioned_call_model_roi_align_gather_v2_0",
                                               "attn_gather", "attn_gather_2", "attn_gather_3", "int_node", "node_memcpy",
                                               cut, cut.substr(0, 61) + "_2",
                                               // A body's node: the holding node's name and the branch first.
                                               "router_if_then_pick", "router_if_else_gather_0"}));
    for (const auto& name : names) EXPECT_TRUE(kernelgen::check_name(name)) << name;
    // The prefix goes in front as given.
    const auto prefixed = kernelgen::import_model(m.bytes(), "paths.onnx", {"Dec_"});
    ASSERT_EQ(prefixed.kernels.size(), names.size());
    EXPECT_EQ(prefixed.kernels[0].name, "Dec_decoder_attn_scatter_nd");
    EXPECT_EQ(prefixed.kernels[5].name, "Dec_attn_gather_2");
}

TEST(ImportModel, OpsetRulesAndMalformedNodes) {
    Model m(16);
    m.input("data", kFloat, {4, 3});
    m.input("sidx", kInt64, {2, 1});
    m.input("upd", kFloat, {2, 3});
    m.input("idx", kInt64, {2});
    m.input("ints", kInt32, {4, 3});
    Model::attribute(m.node("ScatterND", {"data", "sidx", "upd"}, "a", "max16"), "reduction", "max");
    Model::attribute(m.node("ScatterND", {"data", "sidx", "upd"}, "b", "add16"), "reduction", "add");
    Model::attribute(m.node("ScatterND", {"data", "sidx", "upd"}, "c", "sum"), "reduction", "sum");
    Model::attribute(m.node("Gather", {"data", "idx"}, "d", "keepdims"), "keepdims", 1);
    m.node("Gather", {"data"}, "e", "one_input");
    m.node("ScatterND", {"ints", "sidx", "upd"}, "f", "mixed");
    m.node("Gather", {"data", "missing"}, "g", "unknown");
    const auto result = kernelgen::import_model(m.bytes(), "opset16.onnx");
    ASSERT_EQ(result.kernels.size(), 1u);
    EXPECT_EQ(result.kernels[0].name, "add16");
    EXPECT_EQ(skipped_lines(result),
              (std::vector<std::string>{
                  "node \"max16\" (ScatterND, #0): reduction \"max\" needs opset 18 (the model imports opset 16)",
                  "node \"sum\" (ScatterND, #2): unknown reduction \"sum\" (none, add, mul, max, min)",
                  "node \"keepdims\" (Gather, #3): unknown attribute \"keepdims\" (Gather takes axis)",
                  "node \"one_input\" (Gather, #4): has 1 inputs (Gather takes 2: data, indices)",
                  "node \"mixed\" (ScatterND, #5): updates \"upd\" is FLOAT but data is INT32",
                  "node \"unknown\" (Gather, #6): the type and shape of indices \"missing\" are unknown (shape inference gave "
                  "none and the model declares none)",
              }));
}

// Nodes with fewer inputs or outputs than their operator takes are valid protobuf: a TopK without its k (opset 10
// on), with one output or none at all, once aborted the import (protobuf's CHECK on the k input it read, found by
// graph_fuzzer). They make no count, and the Gather beside them imports.
TEST(ImportModel, NodesOfTheWrongArityEndCleanly) {
    Model m(17);
    m.input("x", kFloat, {4, 6});
    m.input("ids", kInt64, {2});
    m.node("TopK", {"x"}, "v", "one_input_one_output");
    m.node("TopK", {"x"}, "v2", "one_input").add_output("i2");
    m.node("TopK", {}, "v3", "no_input");
    m.node("Gather", {"x", "ids"}, "y", "g");
    m.node("Gather", {"x", "i2"}, "z", "by_indices_of_a_topk_without_k");
    const auto result = kernelgen::import_model(m.bytes(), "arity.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_EQ(result.kernels.size(), 1u);
    EXPECT_EQ(result.kernels[0].name, "g");
    EXPECT_EQ(result.kernels[0].spec.data_shape, (kernelgen::Shape{4, 6}));
    EXPECT_EQ(result.kernels[0].spec.indices_shape, (kernelgen::Shape{2}));
    ASSERT_EQ(result.skipped.size(), 1u);
    EXPECT_EQ(result.skipped[0].node.name, "by_indices_of_a_topk_without_k");
    EXPECT_FALSE(result.inference_ran);  // ONNX's inference refuses these TopK nodes too
}

// Where ONNX's inference fails (here it dies on a Split without outputs), each round starts again from the model's
// own declarations, and the shape import declares for a Compress output (declared without one) was declared anew in
// every round: all 64 rounds, each running inference again (51 of the 1,195 graphs of a ten-minute graph_fuzzer run
// took 64). The same declaration made again is no news: the second round is the last.
TEST(ImportModel, TheSameDeclarationAgainEndsTheRounds) {
    Model m(13);
    m.input("x", kFloat, {4, 3});
    m.input("cond", kBool, {4});
    m.input("i", kInt64, {2});
    onnx::NodeProto* split = m.proto().mutable_graph()->add_node();
    split->set_op_type("Split");
    split->add_input("x");
    Model::attribute(m.node("Compress", {"x", "cond"}, "c", "compress"), "axis", int64_t{0});
    m.node("Gather", {"c", "i"}, "y", "g");
    onnx::ValueInfoProto* c = m.proto().mutable_graph()->add_value_info();
    c->set_name("c");
    c->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);  // no shape
    const auto result = kernelgen::import_model(m.bytes(), "rounds.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    EXPECT_FALSE(result.inference_ran);
    EXPECT_EQ(result.fold_rounds, 2);
    ASSERT_EQ(result.kernels.size(), 1u);
    EXPECT_EQ(result.kernels[0].spec.data_shape, (kernelgen::Shape{4, 3}));  // the Compress's rows, at most 4
    EXPECT_EQ(result.bounded_kernels(), 1u);
}

// Each operator only at the opsets that have it, as ONNX's checker and ONNX Runtime accept it: GatherElements,
// GatherND, ScatterND and ScatterElements from opset 11, the deprecated Scatter in opsets 9 and 10 only.
TEST(ImportModel, OperatorsOnlyAtTheOpsetsThatHaveThem) {
    for (const int64_t opset : {9, 10, 11, 13}) {
        SCOPED_TRACE("opset " + std::to_string(opset));
        Model m(opset);
        m.input("data", kFloat, {4, 3});
        m.input("idx", kInt64, {2});
        m.input("eidx", kInt64, {2, 3});
        m.input("sidx", kInt64, {2, 1});
        m.input("upd", kFloat, {2, 3});
        m.node("Gather", {"data", "idx"}, "a", "gather");
        m.node("GatherElements", {"data", "eidx"}, "b", "gather_elements");
        m.node("GatherND", {"data", "sidx"}, "c", "gather_nd");
        m.node("ScatterND", {"data", "sidx", "upd"}, "d", "scatter_nd");
        m.node("ScatterElements", {"data", "eidx", "upd"}, "e", "scatter_elements");
        m.node("Scatter", {"data", "eidx", "upd"}, "f", "scatter");
        const auto result = kernelgen::import_model(m.bytes(), "m.onnx");
        std::vector<std::string> names;
        for (const auto& kernel : result.kernels) names.push_back(kernel.name);
        const std::string imports = " (the model imports opset " + std::to_string(opset) + ")";
        if (opset < 11) {
            EXPECT_EQ(names, (std::vector<std::string>{"gather", "scatter"}));
            EXPECT_EQ(skipped_lines(result), (std::vector<std::string>{
                                                 "node \"gather_elements\" (GatherElements, #1): GatherElements needs opset 11" + imports,
                                                 "node \"gather_nd\" (GatherND, #2): GatherND needs opset 11" + imports,
                                                 "node \"scatter_nd\" (ScatterND, #3): ScatterND needs opset 11" + imports,
                                                 "node \"scatter_elements\" (ScatterElements, #4): ScatterElements needs opset 11" + imports,
                                             }));
        } else {
            EXPECT_EQ(names, (std::vector<std::string>{"gather", "gather_elements", "gather_nd", "scatter_nd",
                                                       "scatter_elements"}));
            EXPECT_EQ(skipped_lines(result),
                      (std::vector<std::string>{"node \"scatter\" (Scatter, #5): Scatter is deprecated after opset 10 (use "
                                                "ScatterElements; the model imports opset " + std::to_string(opset) + ")"}));
        }
    }
}

// TensorScatter nodes as ONNX defines them (opset 24): its inputs past_cache, update and an optional write_indices,
// its attributes axis and mode; a node that breaks ONNX's rules is skipped with the reason, named by ONNX's input
// names; before opset 24 there is no TensorScatter.
TEST(ImportModel, TensorScatterNodesByOnnxRules) {
    Model m(24);
    m.proto().set_ir_version(10);
    m.input("past", kFloat, {2, 3, 8, 4});
    m.input("upd", kFloat, {2, 3, 2, 4});
    m.input("wi", kInt64, {2});
    m.input("ints", kInt32, {2, 3, 2, 4});
    m.input("heads4", kFloat, {2, 4, 2, 4});
    m.input("mask", kBool, {6});
    m.node("TensorScatter", {"past", "upd", "wi"}, "a", "kv");                     // #0: imports
    m.node("TensorScatter", {"past", "upd", ""}, "b", "no_write_indices");        // #1: imports, zeros
    m.node("TensorScatter", {"past"}, "c", "one_input");                          // #2
    m.node("TensorScatter", {"past", "upd", "wi", "wi"}, "d", "four_inputs");     // #3
    Model::attribute(m.node("TensorScatter", {"past", "upd", "wi"}, "e", "ring"), "mode", "ring");  // #4
    Model::attribute(m.node("TensorScatter", {"past", "upd", "wi"}, "f", "mode_int"), "mode", int64_t{1});  // #5
    m.node("TensorScatter", {"past", "ints", "wi"}, "g", "mixed");                // #6
    m.node("TensorScatter", {"past", "heads4", "wi"}, "h", "heads");              // #7
    Model::attribute(m.node("TensorScatter", {"past", "upd", "wi"}, "i", "batch_axis"), "axis", int64_t{0});  // #8
    m.node("NonZero", {"mask"}, "nz", "nonzero");                                 // #9
    m.initializer("axis0", kInt64, {1}, {0});
    m.node("Squeeze", {"nz", "axis0"}, "rows", "squeeze");                        // #10
    m.node("TensorScatter", {"past", "upd", "rows"}, "j", "counted");             // #11
    m.input("wi32", kInt32, {2});
    m.node("TensorScatter", {"past", "upd", "wi32"}, "k", "int32_write_indices");  // #12: ONNX takes int64 only
    const auto result = kernelgen::import_model(m.bytes(), "kv.onnx");
    std::vector<std::string> names;
    for (const auto& kernel : result.kernels) names.push_back(kernel.name);
    EXPECT_EQ(names, (std::vector<std::string>{"kv", "no_write_indices"}));
    const std::string inputs = " (TensorScatter takes 2 to 3: past_cache, update, write_indices (optional))";
    EXPECT_EQ(skipped_lines(result),
              (std::vector<std::string>{
                  "node \"one_input\" (TensorScatter, #2): has 1 inputs" + inputs,
                  "node \"four_inputs\" (TensorScatter, #3): has 4 inputs" + inputs,
                  "node \"ring\" (TensorScatter, #4): unknown mode \"ring\" (linear, circular)",
                  "node \"mode_int\" (TensorScatter, #5): attribute \"mode\" is not a string",
                  "node \"mixed\" (TensorScatter, #6): update \"ints\" is INT32 but past_cache is FLOAT",
                  "node \"heads\" (TensorScatter, #7): kernelgen refuses it: /updates_shape/1: dimension 4 differs from the "
                  "past cache's 3 (only the sequence axis 2 may differ)",
                  "node \"batch_axis\" (TensorScatter, #8): kernelgen refuses it: /axis: axis 0 is out of range for "
                  "TensorScatter's past cache of rank 4 (allowed 1..3 or -3..-1; default -2; axis 0 is the batch)",
                  "node \"counted\" (TensorScatter, #11): data-dependent shape: write_indices \"rows\" dimension 0 is a "
                  "run-time count (through NonZero \"nonzero\": at most 6, the elements of its input [6]), and "
                  "TensorScatter's shapes are static (every batch row of its cache is written)",
                  "node \"int32_write_indices\" (TensorScatter, #12): unsupported index type: write_indices \"wi32\" is "
                  "INT32 (TensorScatter takes INT64 write indices)",
              }));
    // The spec of a node without write_indices holds them: zeros, one per batch row.
    EXPECT_EQ(result.kernels[1].spec.constant_indices, (std::vector<int64_t>{0, 0}));
    // Before opset 24 there is no TensorScatter.
    Model old(23);
    old.proto().set_ir_version(10);
    old.input("past", kFloat, {2, 3, 8, 4});
    old.input("upd", kFloat, {2, 3, 2, 4});
    old.node("TensorScatter", {"past", "upd"}, "a", "kv");
    EXPECT_EQ(skipped_lines(kernelgen::import_model(old.bytes(), "old.onnx")),
              std::vector<std::string>{"node \"kv\" (TensorScatter, #0): TensorScatter needs opset 24 (the model imports opset 23)"});
}

// Where ONNX's shape inference cannot run (here: a declared shape contradicts the inferred one), the shapes
// the model declares are used, and the result says why.
TEST(ImportModel, DeclaredShapesWhenInferenceFails) {
    Model m(18);
    m.input("data", kFloat, {4, 3});
    m.input("idx", kInt64, {2});
    m.node("Relu", {"data"}, "relu");
    m.node("Gather", {"relu", "idx"}, "out", "after_relu");
    Model::set_type(m.proto().mutable_graph()->add_value_info(), "relu", kFloat, {5, 3});
    const auto result = kernelgen::import_model(m.bytes(), "declared.onnx");
    EXPECT_FALSE(result.inference_ran);
    EXPECT_EQ(result.inference_note.rfind("ONNX shape inference failed on this model ([ShapeInferenceError] ", 0), 0u)
        << result.inference_note;
    ASSERT_EQ(result.kernels.size(), 1u);
    EXPECT_EQ(result.kernels[0].spec.data_shape, (kernelgen::Shape{5, 3}));
}

// Large initializers (weights, and indices of more than 1 MiB) are left out of shape inference's copy of the
// model, and the indices are still read from the model itself.
TEST(ImportModel, LargeInitializers) {
    Model m(13);
    onnx::TensorProto* weights = m.proto().mutable_graph()->add_initializer();
    weights->set_name("weights");
    weights->set_data_type(kFloat);
    weights->add_dims(600);
    weights->add_dims(512);
    weights->set_raw_data(std::string(600 * 512 * sizeof(float), '\0'));
    std::vector<int64_t> picks(140000);
    for (size_t i = 0; i < picks.size(); ++i) picks[i] = static_cast<int64_t>(i % 600) - 300;
    onnx::TensorProto* indices = m.proto().mutable_graph()->add_initializer();
    indices->set_name("picks");
    indices->set_data_type(kInt64);
    indices->add_dims(static_cast<int64_t>(picks.size()));
    const auto bytes = cprogram::bytes_of(picks);
    indices->set_raw_data(std::string(bytes.begin(), bytes.end()));
    m.node("Gather", {"weights", "picks"}, "rows", "rows");
    const auto result = kernelgen::import_model(m.bytes(), "large.onnx");
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    ASSERT_EQ(result.kernels.size(), 1u);
    EXPECT_TRUE(result.inference_ran);
    EXPECT_EQ(result.kernels[0].spec.data_shape, (kernelgen::Shape{600, 512}));
    EXPECT_EQ(result.kernels[0].spec.constant_indices, picks);
}

// --- files that are not models ---------------------------------------------------------------------------

std::string only_diagnostic(const kernelgen::ImportResult& result) {
    EXPECT_TRUE(result.kernels.empty());
    EXPECT_TRUE(result.skipped.empty());
    return result.diagnostics.size() == 1 ? result.diagnostics[0].str() : "(" + std::to_string(result.diagnostics.size()) + " diagnostics)";
}

TEST(ImportFiles, NotAModel) {
    const fs::path dir = fresh_dir("files");
    write_text(dir / "spec.json", read_text(kSourceDir / "specs" / "token_embedding.json"));
    write_text(dir / "empty.onnx", "");
    const std::string bytes = multi_node_model().bytes();
    write_text(dir / "truncated.onnx", bytes.substr(0, bytes.size() / 2));
    onnx::ModelProto not_model;  // valid protobuf, but no ir_version and no graph
    not_model.set_producer_name("a text");
    write_text(dir / "tensor.pb", not_model.SerializeAsString());
    const std::string d = dir.string() + "/";
    EXPECT_EQ(only_diagnostic(kernelgen::import_model_file(d + "spec.json")),
              d + "spec.json: /: not an ONNX model: the file does not parse as an ONNX ModelProto (protobuf)");
    EXPECT_EQ(only_diagnostic(kernelgen::import_model_file(d + "empty.onnx")),
              d + "empty.onnx: /: the file is empty (expected an ONNX model)");
    EXPECT_EQ(only_diagnostic(kernelgen::import_model_file(d + "truncated.onnx")),
              d + "truncated.onnx: /: not an ONNX model: the file does not parse as an ONNX ModelProto (protobuf)");
    EXPECT_EQ(only_diagnostic(kernelgen::import_model_file(d + "tensor.pb")),
              d + "tensor.pb: /: not an ONNX model: no ir_version (the file parses as protobuf, but is not an ONNX ModelProto)");
    EXPECT_EQ(only_diagnostic(kernelgen::import_model_file(d + "missing.onnx")),
              d + "missing.onnx: /: no such file (expected an ONNX model)");
    EXPECT_EQ(only_diagnostic(kernelgen::import_model_file(dir.string())),
              dir.string() + ": /: is a folder, not a file (expected an ONNX model)");
    EXPECT_EQ(only_diagnostic(kernelgen::import_model_file("/dev/zero")),
              "/dev/zero: /: is not a regular file (expected an ONNX model)");
    Model no_opset(18);
    no_opset.proto().clear_opset_import();
    EXPECT_EQ(only_diagnostic(kernelgen::import_model(no_opset.bytes(), "m.onnx")),
              "m.onnx: /: not a valid ONNX model: it imports no opset of the ai.onnx domain");
}

// Huge, negative and too many dimensions, too many constant values: reasons, not crashes.
TEST(ImportFiles, HostileShapes) {
    Model m(13);
    m.input("huge", kFloat, {int64_t{1} << 41});
    m.input("negative", kFloat, {-3});
    m.input("deep", kFloat, std::vector<int64_t>(33, 1));
    m.input("many", kFloat, {int64_t{1} << 30, int64_t{1} << 30});
    m.input("idx", kInt64, {1});
    m.initializer("lots", kInt64, {int64_t{1} << 21}, {});
    m.input("data", kFloat, {3});
    for (const char* data : {"huge", "negative", "deep", "many"}) m.node("Gather", {data, "idx"}, std::string(data) + "_o", data);
    m.node("Gather", {"data", "lots"}, "lots_o", "lots");
    m.input("float8", 17, {2});  // FLOAT8E4M3FN in ONNX 1.14, unknown to ONNX 1.12 and to kernelgen
    m.node("Gather", {"float8", "idx"}, "float8_o", "float8");
    const auto result = kernelgen::import_model(m.bytes(), "hostile.onnx");
    EXPECT_TRUE(result.kernels.empty());
    EXPECT_EQ(skipped_lines(result),
              (std::vector<std::string>{
                  "node \"huge\" (Gather, #0): data \"huge\" dimension 0 is 2199023255552 (at most 2^40)",
                  "node \"negative\" (Gather, #1): invalid shape: data \"negative\" dimension 0 is -3",
                  "node \"deep\" (Gather, #2): data \"deep\" has rank 33 (at most 32)",
                  "node \"many\" (Gather, #3): kernelgen refuses it: /data_shape: shape [1073741824, 1073741824] has too many "
                  "elements (at most 2^40)",
                  "node \"lots\" (Gather, #4): constant indices \"lots\" cannot be read: it holds more than 1048576 values",
                  "node \"float8\" (Gather, #5): unsupported element type: data \"float8\" is element type 17",
              }));
}

// A declaration that contradicts a constant's own dims or type: the constant is the truth, and the node is
// skipped rather than its values reshaped (or, with a product that wraps in 64 bits, read past their end) or
// read as integers they are not.
TEST(ImportFiles, DeclaredShapesThatContradictConstantIndices) {
    Model m(13);
    m.input("data", kFloat, {4, 3});
    m.initializer("empty", kInt64, {0}, {});
    Model::set_type(m.proto().mutable_graph()->add_value_info(), "empty", kInt64,
                    {int64_t{1} << 32, int64_t{1} << 32});
    m.initializer("turned", kInt64, {3, 2}, {0, 1, 2, 3, 0, 1});
    Model::set_type(m.proto().mutable_graph()->add_value_info(), "turned", kInt64, {2, 3});
    m.node("Gather", {"data", "empty"}, "o1", "wrapping");
    m.node("Gather", {"data", "turned"}, "o2", "turned");
    onnx::NodeProto& constant = m.node("Constant", {}, "wrong_type");
    auto* value = constant.add_attribute();
    value->set_name("value_int");
    value->set_type(onnx::AttributeProto::INTS);  // value_int must be INT: not a constant kernelgen reads
    value->add_ints(1);
    m.node("Gather", {"data", "wrong_type"}, "o3", "wrong_type");
    m.initializer("floating", kFloat, {2}, {0, 1});  // float32 values the model declares int64
    Model::set_type(m.proto().mutable_graph()->add_value_info(), "floating", kInt64, {2});
    m.node("Gather", {"data", "floating"}, "o4", "floating");
    const auto result = kernelgen::import_model(m.bytes(), "contradict.onnx");
    const auto lines = skipped_lines(result);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0], "node \"wrapping\" (Gather, #0): constant indices \"empty\" have dims [0], but the model "
                        "declares [4294967296, 4294967296]");
    EXPECT_EQ(lines[1], "node \"turned\" (Gather, #1): constant indices \"turned\" have dims [3, 2], but the model "
                        "declares [2, 3]");
    EXPECT_EQ(lines.back(), "node \"floating\" (Gather, #4): constant indices \"floating\" cannot be read: it holds "
                            "FLOAT values");
    for (const auto& kernel : result.kernels) EXPECT_FALSE(kernel.spec.constant_indices) << kernel.spec.name;
}

// Mutated models (bytes flipped, cut, inserted): the importer returns, with a diagnostic or a result.
TEST(ImportFiles, MutatedModelsNeverCrash) {
    const std::string bytes = multi_node_model().bytes();
    std::mt19937 random(8);
    for (int round = 0; round < 400; ++round) {
        std::string mutated = bytes;
        for (int edits = 1 + static_cast<int>(random() % 4); edits > 0 && !mutated.empty(); --edits) {
            const size_t at = random() % mutated.size();
            switch (random() % 3) {
                case 0: mutated[at] = static_cast<char>(random()); break;
                case 1: mutated.erase(at, 1 + random() % 8); break;
                default: mutated.insert(at, 1, static_cast<char>(random())); break;
            }
        }
        const auto result = kernelgen::import_model(mutated, "mutated.onnx");
        for (const auto& kernel : result.kernels) EXPECT_FALSE(kernel.spec_text.empty());
    }
}

// --- containment: ONNX's shape inference runs in a child process under limits --------------------------------

// The child process itself: a result, an exception, a crash, a runaway allocation, an endless loop, a sleep.
TEST(ContainedChild, ReportsHowTheWorkEnded) {
    kernelgen::ChildLimits limits;
    limits.memory_bytes = uint64_t{256} << 20;
    limits.cpu_seconds = 1;
    limits.wall_seconds = 3;
    auto ok = kernelgen::run_contained([] { return std::string("result\0with a nul", 18); }, limits);
    EXPECT_TRUE(ok.ok);
    EXPECT_EQ(ok.output, std::string("result\0with a nul", 18));
    auto threw = kernelgen::run_contained([]() -> std::string { throw std::runtime_error("no shapes here"); }, limits);
    EXPECT_FALSE(threw.ok);
    EXPECT_EQ(threw.failure, "no shapes here");
    auto crashed = kernelgen::run_contained([]() -> std::string { std::raise(SIGSEGV); return ""; }, limits);
    EXPECT_EQ(crashed.failure, "signal 11, Segmentation fault");
    auto divided = kernelgen::run_contained([]() -> std::string { std::raise(SIGFPE); return ""; }, limits);
    EXPECT_EQ(divided.failure, "signal 8, Floating point exception");
    // The memory limit counts from the address space the process holds (heap it freed but kept included), so
    // this case has time to reach it.
    kernelgen::ChildLimits roomy = limits;
    roomy.cpu_seconds = 20;
    roomy.wall_seconds = 30;
    auto greedy = kernelgen::run_contained(
        []() {
            std::vector<std::string> hoard;
            for (;;) hoard.emplace_back(size_t{64} << 20, 'x');  // 64 MiB at a time, touched
            return std::string();
        },
        roomy);
    EXPECT_EQ(greedy.failure, "it needed more than 256 MiB of memory");
    // The wall-clock limit roomy here: on cores other work shares, 1 s of CPU time can take more than 3 s.
    kernelgen::ChildLimits spinner = limits;
    spinner.wall_seconds = 30;
    auto spinning = kernelgen::run_contained(
        []() {
            volatile uint64_t n = 0;
            for (;;) n = n + 1;
            return std::string();
        },
        spinner);
    EXPECT_EQ(spinning.failure, "it used more than 1 s of CPU time");
    const auto started = std::chrono::steady_clock::now();
    auto sleeping = kernelgen::run_contained(
        []() {
            ::sleep(30);
            return std::string();
        },
        limits);
    EXPECT_EQ(sleeping.failure, "it took more than 3 s");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

// The crafted models of tests/import/hostile/ (see make_hostile_models.py), through the command line under a
// 4 GiB address-space limit: each ends in bounded time with exit 0 and the lines shown, never with a signal.
TEST(ImportHostile, CraftedModelsEndCleanly) {
    const fs::path dir = fresh_dir("hostile");
    const std::string one_spec = " 1 spec (0 in subgraphs), 0 folded, 0 skipped\n";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"split_no_outputs", "split_no_outputs.onnx: note: ONNX shape inference failed on this model (signal 8, Floating "
                             "point exception); the shapes and types the model declares are used\n"
                             "split_no_outputs.onnx:" + one_spec},
        {"gather_nd_negative_dim",
         "gather_nd_negative_dim.onnx: node \"g\" (GatherND, #0): invalid shape: indices \"j\" dimension 1 is -2\n"
         "gather_nd_negative_dim.onnx: 0 specs (0 in subgraphs), 0 folded, 1 skipped\n"},
        {"constant_of_shape_huge_rank", "constant_of_shape_huge_rank.onnx:" + one_spec},
        // ONNX's inference dies on it or passes the memory limit, depending on what it is shown first.
        {"range_rank_bomb", "range_rank_bomb.onnx: note: ONNX shape inference failed on this model (*); the shapes and "
                            "types the model declares are used\nrange_rank_bomb.onnx:" + one_spec},
        {"reshape_huge_rank", "reshape_huge_rank.onnx:" + one_spec},
    };
    for (const auto& [model, expected] : cases) {
        const auto started = std::chrono::steady_clock::now();
        int status = 0;
        const std::string out = cprogram::run_command(
            "cd " + (kSourceDir / "tests" / "import" / "hostile").string() + " && ulimit -v 4194304 && timeout 120 " +
                KERNELGEN_EXECUTABLE_PATH + " import " + model + ".onnx --out-dir " + (dir / model).string() +
                " 2>&1; echo \"exit $?\"",
            status);
        const size_t star = expected.find("(*)");
        if (star == std::string::npos) {
            EXPECT_EQ(out, expected + "exit 0\n") << model;
        } else {
            EXPECT_EQ(out.substr(0, star + 1), expected.substr(0, star + 1)) << out;
            EXPECT_NE(out.find(expected.substr(star + 2) + "exit 0\n"), std::string::npos) << out;
        }
        EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60)) << model;
        // The Gather beside the hostile part still imports.
        if (model != "gather_nd_negative_dim") EXPECT_TRUE(fs::exists(dir / model / "g.json")) << model;
    }
}

// The crafted TensorScatter nodes of tests/import/hostile/tensor_scatter_nodes.onnx (opset 24, see
// make_hostile_models.py), under the same 4 GiB limit: a batch of 2^40 rows without write_indices is refused
// before 2^40 constant zeros are built (it ended the import with std::bad_alloc), every malformed node is skipped
// with its reason, and the Gather reading a valid TensorScatter's output gets that output's shape.
TEST(ImportHostile, TensorScatterNodesEndCleanly) {
    const fs::path dir = fresh_dir("hostile_tensor_scatter");
    int status = 0;
    const std::string out = cprogram::run_command(
        "cd " + (kSourceDir / "tests" / "import" / "hostile").string() + " && ulimit -v 4194304 && timeout 120 " +
            KERNELGEN_EXECUTABLE_PATH + " import tensor_scatter_nodes.onnx --out-dir " + dir.string() + " 2>&1; echo \"exit $?\"",
        status);
    const std::string m = "tensor_scatter_nodes.onnx: node ";
    const std::string inputs = " (TensorScatter takes 2 to 3: past_cache, update, write_indices (optional))";
    EXPECT_EQ(out, m + "\"huge_batch\" (TensorScatter, #0): it leaves out write_indices, which would be 1099511627776 "
                       "constant zeros, one per batch row of past_cache \"big\" (at most 1048576 constant indices)\n" +
                   m + "\"no_past_cache\" (TensorScatter, #1): leaves out its input past_cache" + inputs + "\n" +
                   m + "\"huge_axis\" (TensorScatter, #2): kernelgen refuses it: /axis: axis 4611686018427387904 is out of "
                       "range for TensorScatter's past cache of rank 4 (allowed 1..3 or -3..-1; default -2; axis 0 is the batch)\n" +
                   m + "\"fractional_axis\" (TensorScatter, #3): attribute \"axis\" is not an integer\n" +
                   m + "\"negative_dim\" (TensorScatter, #4): invalid shape: past_cache \"negative\" dimension 1 is -3\n" +
                   m + "\"scalars\" (TensorScatter, #5): kernelgen refuses it: /data_shape: TensorScatter's past cache needs "
                       "rank >= 2 (a batch axis and a sequence axis), got []\n" +
                   m + "\"rank3_write_indices\" (TensorScatter, #6): kernelgen refuses it: /indices_shape: write indices of "
                       "shape [2, 1, 1]: TensorScatter takes one per batch row, [2]\n" +
                   m + "\"mode_twice\" (TensorScatter, #7): attribute \"mode\" is given more than once\n"
                       "tensor_scatter_nodes.onnx: 3 specs (0 in subgraphs), 0 folded, 8 skipped\nexit 0\n");
    const json gather = json::parse(read_text(dir / "g.json"));
    EXPECT_EQ(gather.at("data_shape"), json({2, 4, 8, 16}));
}

// --- the command line -----------------------------------------------------------------------------------------

struct CliRun {
    int status;
    std::string out;
};

// Runs kernelgen with `arguments` (in `folder` when one is given).
CliRun kernelgen_run(const std::string& arguments, const fs::path& folder = {}) {
    int status = 0;
    const std::string in_folder = folder.empty() ? "" : "cd '" + folder.string() + "' && ";
    std::string out = cprogram::run_command(in_folder + KERNELGEN_EXECUTABLE_PATH + " " + arguments, status);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// A gather whose data is a constant of the model holds it: the initializer's bytes exactly (-0, a NaN with its
// payload, a subnormal), from raw_data or from the typed field, in "<kernel>.data.npy" beside the spec, named by its
// "data_file" and the report; the kernel takes no data parameter and returns the rows a hand computation picks.
// --weights caller keeps today's kernel; an initializer stored outside the model file stays a parameter, noted.
TEST(ImportModel, WeightsTravelWithTheKernel) {
    const std::vector<uint32_t> bits{0x80000000u, 0x7FC01234u, 0x00000001u, 0x3F800000u, 0xFF800000u, 0x40490FDBu};
    Model m(13);
    m.input("ids", kInt64, {4});
    onnx::TensorProto* raw = m.proto().mutable_graph()->add_initializer();
    raw->set_name("table");
    raw->set_data_type(kFloat);
    raw->add_dims(3);
    raw->add_dims(2);
    raw->set_raw_data(std::string(reinterpret_cast<const char*>(bits.data()), bits.size() * 4));
    onnx::TensorProto* typed = m.proto().mutable_graph()->add_initializer();  // int32_data, as some exporters write
    typed->set_name("codes");
    typed->set_data_type(onnx::TensorProto::INT16);
    typed->add_dims(4);
    for (int32_t value : {-32768, -1, 7, 32767}) typed->add_int32_data(value);
    onnx::TensorProto* outside = m.proto().mutable_graph()->add_initializer();
    outside->set_name("outside");
    outside->set_data_type(kFloat);
    outside->add_dims(3);
    outside->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* location = outside->add_external_data();
    location->set_key("location");
    location->set_value("weights.bin");
    m.node("Gather", {"table", "ids"}, "rows", "rows");
    m.node("Gather", {"codes", "ids"}, "coded", "coded");
    m.node("Gather", {"outside", "ids"}, "far", "far");
    m.output("rows", kFloat, {4, 2});
    m.output("coded", onnx::TensorProto::INT16, {4});
    m.output("far", kFloat, {4});
    const auto result = kernelgen::import_model(m.bytes(), "weights.onnx");
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    ASSERT_EQ(result.kernels.size(), 3u);
    const auto& rows = result.kernels[0];
    ASSERT_TRUE(rows.spec.constant_data.has_value());
    EXPECT_EQ(rows.data_file, "rows.data.npy");
    EXPECT_EQ(rows.spec.constant_data->bytes, cprogram::bytes_of(bits));
    EXPECT_NE(rows.spec_text.find("\"data_file\": \"rows.data.npy\""), std::string::npos) << rows.spec_text;
    // The .npy file: NumPy's header for float32 [3, 2], then the very bytes.
    const std::string header_start = std::string("\x93NUMPY\x01\x00", 8);
    ASSERT_FALSE(rows.table_files.empty());
    const std::string& data_npy = rows.table_files.front().second;
    EXPECT_EQ(rows.table_files.front().first, "rows.data.npy");
    EXPECT_EQ(data_npy.substr(0, 8), header_start);
    EXPECT_NE(data_npy.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }"), std::string::npos);
    EXPECT_EQ(data_npy.size() % 64, 24u);  // a header padded to 64 bytes, then 6 floats
    EXPECT_EQ(data_npy.substr(data_npy.size() - 24), std::string(reinterpret_cast<const char*>(bits.data()), 24));
    const auto& coded = result.kernels[1];
    ASSERT_TRUE(coded.spec.constant_data.has_value());
    EXPECT_EQ(coded.spec.constant_data->bytes, cprogram::bytes_of(std::vector<int16_t>{-32768, -1, 7, 32767}));
    EXPECT_FALSE(result.kernels[2].spec.constant_data.has_value());
    ASSERT_EQ(result.notes.size(), 1u);
    EXPECT_EQ(result.notes[0], "node \"far\" (Gather, #2): its data \"outside\" is constant, but stays a parameter: its values "
                               "are stored in an external file");
    const json report = json::parse(result.report);
    EXPECT_EQ(report.at("nodes").at(0).at("weights"), (json{{"tensor", "table"}, {"data_file", "rows.data.npy"}}));
    EXPECT_FALSE(report.at("nodes").at(2).contains("weights"));
    std::set<std::string> written;
    for (const auto& file : kernelgen::import_outputs(result, "weights.onnx")) written.insert(file.name);
    EXPECT_EQ(written, (std::set<std::string>{"rows.json", "rows.data.npy", "coded.json", "coded.data.npy", "far.json",
                                             "weights.import.json"}));

    // The kernels: rows 2, 0, -1 (wrapped to 2) and 1, picked by hand; an index out of range leaves output alone.
    auto pick = [&](std::initializer_list<size_t> ids) {
        std::vector<uint32_t> out;
        for (size_t id : ids) out.insert(out.end(), {bits[2 * id], bits[2 * id + 1]});
        return cprogram::bytes_of(out);
    };
    const std::vector<int64_t> ids{2, 0, -1, 1};
    std::vector<cprogram::Case> cases{
        make_case(rows.spec, "rows", {}, cprogram::bytes_of(ids), {}, pick({2, 0, 2, 1})),
        make_case(coded.spec, "coded", {}, cprogram::bytes_of(ids), {}, cprogram::bytes_of(std::vector<int16_t>{7, -32768, 32767, -1})),
        make_case(rows.spec, "rows, an index out of range", {}, cprogram::bytes_of(std::vector<int64_t>{0, 3, 0, 0}), {},
                  std::vector<uint8_t>(32, cprogram::kSentinel))};
    cases.back().expected_status = -1;
    for (auto& c : cases) EXPECT_TRUE(c.constant_data);
    run_cases(fresh_dir("weights"), {rows.spec, coded.spec}, cases);

    // --weights caller: the kernels take data, as before tables travelled.
    kernelgen::ImportOptions caller;
    caller.weights_in_kernel = false;
    const auto kept = kernelgen::import_model(m.bytes(), "weights.onnx", caller);
    ASSERT_EQ(kept.kernels.size(), 3u);
    for (const auto& kernel : kept.kernels) {
        EXPECT_FALSE(kernel.spec.constant_data.has_value()) << kernel.name;
        EXPECT_EQ(kernel.spec_text.find("data_file"), std::string::npos);
    }
    EXPECT_TRUE(kept.notes.empty());

    // The command line: the files written, and --weights' own message.
    const fs::path dir = fresh_dir("weights_cli");
    write_text(dir / "weights.onnx", m.bytes());
    CliRun run = kernelgen_run("import " + (dir / "weights.onnx").string() + " --out-dir " + (dir / "out").string() + " 2>&1");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_TRUE(fs::exists(dir / "out" / "rows.data.npy"));
    EXPECT_EQ(read_text(dir / "out" / "rows.data.npy"), data_npy);
    run = kernelgen_run("import " + (dir / "weights.onnx").string() + " --out-dir " + (dir / "caller").string() +
                        " --weights caller 2>&1");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_FALSE(fs::exists(dir / "caller" / "rows.data.npy"));
    run = kernelgen_run("import " + (dir / "weights.onnx").string() + " --out-dir " + (dir / "x").string() +
                        " --weights flash 2>&1");
    EXPECT_EQ(run.status, 2);
    EXPECT_EQ(run.out, "kernelgen: unknown --weights mode 'flash' (kernel: the kernel holds a gather's constant data; caller: "
                       "the caller passes it)\nTry 'kernelgen help import'.\n");
}

// A constant whose stored type differs from what the model declares for it stays a parameter (its bytes would not
// fill the declared table); a table's file and a large folded value's never share a name.
TEST(ImportModel, WeightsOnlyAsDeclaredAndFileNamesUnique) {
    Model m(13);
    m.input("ids", kInt64, {2});
    onnx::TensorProto* half = m.proto().mutable_graph()->add_initializer();
    half->set_name("W");
    half->set_data_type(onnx::TensorProto::FLOAT16);
    half->add_dims(10);
    half->add_dims(4);
    half->set_raw_data(std::string(80, '\0'));
    auto* declared = m.proto().mutable_graph()->add_value_info();
    declared->set_name("W");
    declared->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
    for (int64_t dim : {10, 4}) declared->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(dim);
    m.node("Gather", {"W", "ids"}, "picked", "picked");
    // "emb" gathers from a table (emb.data.npy); "data" folds to 2,000 values, which go to <model stem>.data.npy
    // (emb.data.npy too, by the names alone).
    m.initializer("table", kInt64, {3, 2}, {1, 2, 3, 4, 5, 6});
    m.node("Gather", {"table", "ids"}, "rows", "emb");
    std::vector<int64_t> many(2000);
    for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>(i);
    m.initializer("many", kInt64, {2000}, many);
    m.initializer("picks", kInt64, {2000}, many);
    m.node("Gather", {"many", "picks"}, "unused", "data");
    const auto result = kernelgen::import_model(m.bytes(), "emb.onnx");
    ASSERT_EQ(result.kernels.size(), 2u) << (result.skipped.empty() ? "" : result.skipped.front().reason);
    EXPECT_FALSE(result.kernels[0].spec.constant_data.has_value());
    ASSERT_FALSE(result.notes.empty());
    EXPECT_EQ(result.notes[0], "node \"picked\" (Gather, #0): its data \"W\" is constant, but stays a parameter: it holds "
                               "float16 [10, 4] where the model declares float32 [10, 4]");
    std::set<std::string> names;
    size_t npy = 0;
    for (const auto& file : kernelgen::import_outputs(result, "emb.onnx")) {
        EXPECT_TRUE(names.insert(file.name).second) << file.name << " twice";
        npy += file.name.size() > 4 && file.name.compare(file.name.size() - 4, 4, ".npy") == 0;
    }
    EXPECT_EQ(npy, 2u);
    EXPECT_TRUE(names.count("emb.data.npy"));
    EXPECT_TRUE(names.count("emb.data_2.npy"));
}

// An import never replaces its own model: a model named like the spec it would write, imported into its own
// folder, is refused before anything is written.
TEST(ImportCli, NeverReplacesItsModel) {
    const fs::path dir = fresh_dir("own_model");
    Model m(17);
    m.input("data", kFloat, {4, 2});
    m.input("idx", kInt64, {3});
    m.node("Gather", {"data", "idx"}, "out", "lookup");
    const std::string bytes = m.bytes();
    write_text(dir / "lookup.json", bytes);  // the spec's name: <node name>.json
    CliRun run = kernelgen_run("import lookup.json --out-dir . 2>&1", dir);
    EXPECT_EQ(run.status, 2) << run.out;
    EXPECT_NE(run.out.find("kernelgen: ./lookup.json: would replace lookup.json, which this run reads (write the output "
                           "elsewhere); nothing was written\n"),
              std::string::npos)
        << run.out;
    EXPECT_EQ(read_text(dir / "lookup.json"), bytes);
    EXPECT_FALSE(fs::exists(dir / "lookup.import.json"));
}

TEST(ImportCli, ImportsListsSkippedNodesAndWritesSpecs) {
    const fs::path dir = fresh_dir("cli");
    write_text(dir / "multi.onnx", multi_node_model().bytes());
    const std::string model = (dir / "multi.onnx").string();
    CliRun strict = kernelgen_run("import " + model + " --out-dir " + (dir / "strict").string() + " --strict");
    EXPECT_EQ(strict.status, 1);
    EXPECT_FALSE(fs::exists(dir / "strict"));
    EXPECT_NE(strict.out.find("kernelgen: 4 nodes not imported (--strict); nothing was written\n"), std::string::npos) << strict.out;

    CliRun run = kernelgen_run("import " + model + " --out-dir " + (dir / "specs").string() + " 2>&1");
    EXPECT_EQ(run.status, 0);
    EXPECT_EQ(run.out.rfind(model + ": node \"dynamic\" (Gather, #5): dynamic shape: data \"dyn\" dimension 0 is \"N\"; fix it "
                                    "with --dim N=<value>\n", 0), 0u)
        << run.out;
    size_t lines = 0;
    for (char ch : run.out) lines += ch == '\n';
    EXPECT_EQ(lines, 5u) << run.out;
    EXPECT_NE(run.out.find(model + ": 8 specs (2 in subgraphs), 0 folded, 4 skipped\n"), std::string::npos) << run.out;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir / "specs")) files.push_back(entry.path().filename().string());
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, (std::vector<std::string>{"branch_else_else_branch_gather.json", "branch_then_then_branch_gather.json",
                                               "embed_lookup_0.json", "embed_lookup_0_2.json", "free_node.json",
                                               "gather_2.json", "multi.import.json", "scatter_elements_13.json",
                                               "scatter_max.json"}));
    // The written specs generate kernels.
    CliRun generate = kernelgen_run("--out-dir " + (dir / "kernels").string() + " " + (dir / "specs").string() + "/*.json");
    EXPECT_EQ(generate.status, 0) << generate.out;
    EXPECT_TRUE(fs::exists(dir / "kernels" / "gather_2.c"));

    CliRun not_model = kernelgen_run("import " + (kSourceDir / "specs" / "token_embedding.json").string() + " -o " +
                                  (dir / "x").string());
    EXPECT_EQ(not_model.status, 1);
    EXPECT_NE(not_model.out.find("not an ONNX model"), std::string::npos);
    EXPECT_FALSE(fs::exists(dir / "x"));

    CliRun bad_prefix = kernelgen_run("import " + model + " -o " + (dir / "x").string() + " --prefix 1x");
    EXPECT_EQ(bad_prefix.status, 2);
    EXPECT_EQ(bad_prefix.out, "kernelgen: prefix \"1x\" is not the start of a C identifier (a letter, then letters, digits and "
                              "'_')\nTry 'kernelgen help import'.\n");
    EXPECT_EQ(kernelgen_run("import " + model).status, 2);
    EXPECT_EQ(kernelgen_run("import -o " + (dir / "x").string()).status, 2);
    EXPECT_EQ(kernelgen_run("import " + model + " " + model + " -o " + (dir / "x").string()).status, 2);
    EXPECT_EQ(kernelgen_run("import --help").out.rfind("Usage: kernelgen import MODEL.onnx", 0), 0u);
}

// --- hostile models, round two: ranks, memory, time, bounds, the report's size, the terminal ---------------------

// Checks import reports against schema/kernelgen-import-report.schema.json (tests/import/check_report.py): its exit
// status and output, or nothing when python3-jsonschema is missing.
std::optional<CliRun> check_reports(const std::vector<fs::path>& reports) {
    int status = 0;
    const std::string python = KERNELGEN_SYSTEM_PYTHON;
    if (!python.empty()) cprogram::run_command(python + " -c 'import jsonschema' 2>&1", status);
    if (python.empty() || status != 0) return std::nullopt;
    std::string command = python + " " + (kSourceDir / "tests" / "import" / "check_report.py").string() + " " +
                          (kSourceDir / "schema" / "kernelgen-import-report.schema.json").string();
    for (const auto& report : reports) command += " " + report.string();
    const std::string log = cprogram::run_command(command + " 2>&1", status);
    return CliRun{WIFEXITED(status) ? WEXITSTATUS(status) : -1, log};
}

// Runs `kernelgen import` on a model of tests/import/hostile/ (from that folder) under a 4 GiB address-space
// limit and a 120 s timeout; returns what it printed (stdout and stderr) and "exit N" last.
std::string import_hostile(const std::string& model, const fs::path& out, const std::string& options = "",
                           const std::string& limit = "ulimit -v 4194304") {
    int status = 0;
    return cprogram::run_command("cd " + (kSourceDir / "tests" / "import" / "hostile").string() + " && " + limit +
                                     " && timeout 120 " + KERNELGEN_EXECUTABLE_PATH + " import " + model + ".onnx --out-dir " +
                                     out.string() + " " + options + " 2>&1; echo \"exit $?\"",
                                 status);
}

// Each once crashed import, took gigabytes or minutes, or misled it (see make_hostile_models.py): each ends now,
// within the time and memory shown, with exit 0 and these lines.
TEST(ImportHostile, RoundTwoModelsEndCleanly) {
    const fs::path dir = fresh_dir("hostile2");
    struct Case {
        std::string model, expected;
        int seconds;  // far above what each takes (under a second, or a few for wasted_folds), far below before
    };
    const std::vector<Case> cases{
        // A value of rank 60,000: SIGSEGV while its report nested once per dimension.
        {"nested_constant_of_shape",
         "nested_constant_of_shape.onnx: node \"g\" (Gather, #2): data \"big\" has a rank of at least 60000, the length of "
         "its producer's shape input (at most 32)\n"
         "nested_constant_of_shape.onnx: 0 specs (0 in subgraphs), 0 folded, 1 skipped\n", 30},
        // 100 values of rank 2^20: more than 5 GB, then std::bad_alloc (SIGABRT).
        {"many_rank_bombs", "", 30},
        // 100 folds past the budget, each redone in every one of 25 rounds: minutes.
        {"wasted_folds", "wasted_folds.onnx: 1 spec (0 in subgraphs), 0 folded, 0 skipped\n", 60},
        {"negative_dim_initializer",
         "negative_dim_initializer.onnx: node \"g\" (Gather, #0): invalid shape: data \"w\" is an initializer whose "
         "dimension 0 is -1 (the model is invalid)\n"
         "negative_dim_initializer.onnx: 0 specs (0 in subgraphs), 0 folded, 1 skipped\n", 30},
    };
    for (const auto& c : cases) {
        const auto started = std::chrono::steady_clock::now();
        const std::string out = import_hostile(c.model, dir / c.model);
        EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(c.seconds)) << c.model;
        if (!c.expected.empty()) EXPECT_EQ(out, c.expected + "exit 0\n") << c.model;
        EXPECT_NE(out.find(c.model + ".onnx:"), std::string::npos) << out;
        EXPECT_EQ(out.substr(out.size() - 7), "exit 0\n") << out;
    }
    // Every one of the 100 is skipped for its rank, and the report stays small.
    const std::string bombs = read_text(dir / "many_rank_bombs" / "many_rank_bombs.import.json");
    EXPECT_LT(bombs.size(), 100'000u);
    const json report = json::parse(bombs);
    EXPECT_EQ(report["summary"]["skipped"], 100);
    for (const auto& node : report["nodes"]) {
        const std::string data = "big" + node["name"].get<std::string>().substr(1);  // g7 gathers big7
        EXPECT_EQ(node["skipped"], "data \"" + data + "\" has a rank of at least 1048576, the length of its producer's shape "
                                   "input (at most 32)");
    }
    EXPECT_LT(fs::file_size(dir / "nested_constant_of_shape" / "nested_constant_of_shape.import.json"), 10'000u);
    // The chain of wasted_folds takes a round per link (24 links: 25 rounds), each fold past the budget once.
    EXPECT_EQ(json::parse(read_text(dir / "wasted_folds" / "wasted_folds.import.json"))["rounds"], 25);
}

// Round three (make_hostile_models.py): a Slice by run-time starts declared int64[2^40] once made import list 2^40
// axes (16 GB and two minutes before it ran out of memory, under a 4 GiB --memory-limit). Now: a second at most,
// exit 0, the Gather beside it imported.
TEST(ImportHostile, RoundThreeModelsEndCleanly) {
    const fs::path dir = fresh_dir("hostile3");
    const auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(import_hostile("slice_huge_starts", dir),
              "slice_huge_starts.onnx: 1 spec (0 in subgraphs), 0 folded, 0 skipped\nexit 0\n");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
    EXPECT_TRUE(fs::exists(dir / "g.json"));
}

// ONNX Runtime takes a NonZero of a scalar as NonZero of a vector of one: [1, n] (ONNX's inference says [0, n]).
TEST(ImportHostile, NonZeroOfAScalarHasOneRow) {
    const fs::path dir = fresh_dir("nonzero_scalar");
    EXPECT_EQ(import_hostile("nonzero_of_scalar", dir),
              "nonzero_of_scalar.onnx: 1 spec (0 in subgraphs, 1 bounded), 0 folded, 0 skipped\nexit 0\n");
    const json spec = json::parse(read_text(dir / "g.json"));
    EXPECT_EQ(spec["indices_shape"], json::parse("[1, 1]"));
    EXPECT_EQ(spec["count"], "runtime");
}

// Add(NonZero(x[4]), NonZero(y[100])): a count of 1 broadcasts against the other, so the output has up to 100 rows
// (ONNX Runtime gives 100 for one nonzero x and all of y): the bound is the larger of the two, not the smaller.
TEST(ImportHostile, BroadcastCountsAreBoundedByTheLarger) {
    const fs::path dir = fresh_dir("broadcast_counts");
    EXPECT_EQ(import_hostile("broadcast_counts", dir),
              "broadcast_counts.onnx: 1 spec (0 in subgraphs, 1 bounded), 0 folded, 0 skipped\nexit 0\n");
    const json report = json::parse(read_text(dir / "broadcast_counts.import.json"));
    EXPECT_EQ(report["nodes"][0]["bounded"]["bound"], 100);
    const json spec = json::parse(read_text(dir / "g.json"));
    EXPECT_EQ(spec["indices_shape"], json::parse("[100]"));
}

// A folded value of more than kMaxReportedElements elements goes into a NumPy file beside the report, which names it;
// the report stays small, and the generator, given the folder's *.json, skips the report by its first key.
TEST(ImportHostile, LargeFoldedValuesGoBesideTheReport) {
    const fs::path dir = fresh_dir("position_table");
    EXPECT_EQ(import_hostile("position_table", dir / "specs", "--dim seq=1024"),
              "position_table.onnx: 1 spec (0 in subgraphs), 2 folded, 0 skipped\nexit 0\n");
    const std::string report_text = read_text(dir / "specs" / "position_table.import.json");
    EXPECT_LT(report_text.size(), 4096u);
    const json report = json::parse(report_text);
    json positions;
    for (const auto& node : report["nodes"]) {
        if (node["name"] == "positions") positions = node;
    }
    EXPECT_EQ(positions["folded_file"], "position_table.positions.npy");
    EXPECT_EQ(positions["dtype"], "float32");
    EXPECT_EQ(positions["shape"], json::parse("[1024, 16]"));
    EXPECT_FALSE(positions.contains("folded"));
    // NumPy's format 1.0: the magic, the version, a header padded to 64 bytes, then the rows: row i holds
    // 16 i .. 16 i + 15, as the model computes its table (Range, Cast, Reshape) and the positions 0 .. 1023 pick.
    const std::string npy = read_text(dir / "specs" / "position_table.positions.npy");
    ASSERT_GT(npy.size(), 128u);
    EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const size_t header = 10 + static_cast<unsigned char>(npy[8]) + 256 * static_cast<unsigned char>(npy[9]);
    EXPECT_EQ(header % 64, 0u);
    EXPECT_EQ(npy.substr(10, header - 10).rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (1024, 16), }", 0), 0u);
    EXPECT_EQ(npy[header - 1], '\n');
    ASSERT_EQ(npy.size(), header + 1024 * 16 * 4);
    bool exact = true;
    for (size_t i = 0; i < 1024 * 16; ++i) {
        float value;
        std::memcpy(&value, npy.data() + header + 4 * i, 4);
        exact = exact && value == static_cast<float>(i);
    }
    EXPECT_TRUE(exact);
    // The documented next step: generate the kernels of the folder.
    CliRun generate = kernelgen_run("--out-dir " + (dir / "kernels").string() + " " + (dir / "specs").string() + "/*.json 2>&1");
    EXPECT_EQ(generate.status, 0) << generate.out;
    EXPECT_TRUE(fs::exists(dir / "kernels" / "tokens.c"));
    // A report recognised by its first key even past the size and nesting limits of a spec file.
    write_text(dir / "specs" / "huge.import.json", "{\n  \"kernelgen_import_report\": 1,\n  \"nodes\": [" +
                                                       std::string(100, '[') + std::string(17 << 20, ' ') + "]}\n");
    CliRun huge = kernelgen_run("--out-dir " + (dir / "kernels").string() + " " + (dir / "specs").string() + "/*.json 2>&1");
    EXPECT_EQ(huge.status, 0) << huge.out;
    // The report with its folded_file entry matches the report schema.
    const auto checked = check_reports({dir / "specs" / "position_table.import.json"});
    if (!checked) GTEST_SKIP() << "python3-jsonschema missing: the report is not checked against the schema";
    EXPECT_EQ(checked->status, 0) << checked->out;
}

// Names, dimension names and paths from a model reach the terminal escaped: one line each, no escape sequences.
TEST(ImportHostile, ModelTextIsEscapedOnTheTerminal) {
    const fs::path dir = fresh_dir("control_characters");
    const std::string odd = (dir / "odd\nname\x1b[1m.onnx").string();
    fs::copy_file(kSourceDir / "tests" / "import" / "hostile" / "control_characters.onnx", odd);
    int status = 0;
    const std::string out = cprogram::run_command(std::string(KERNELGEN_EXECUTABLE_PATH) + " import '" + odd +
                                                      "' --out-dir " + (dir / "out").string() + " 2>&1",
                                                  status);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
    const std::string shown = dir.string() + "/odd\\x0aname\\x1b[1m.onnx";
    EXPECT_EQ(out, shown + ": node \"evil\\nname \\u001b[31mred\\u001b[0m\" (Gather, #0): dynamic shape: data \"x\" dimension 0 "
                           "is \"rows\\u001b[2J\"; fix it with --dim rows\\x1b[2J=<value>\n" +
                       shown + ": node \"fine\" (Gather, #1): dynamic shape: data \"x\" dimension 0 is \"rows\\u001b[2J\"; fix "
                               "it with --dim rows\\x1b[2J=<value>\n" +
                       shown + ": 0 specs (0 in subgraphs), 0 folded, 2 skipped\n");
    // A file that is not a model: its path escaped, and no "/: " (a model has no JSON pointer).
    EXPECT_EQ(kernelgen_run("import " + dir.string() + " --out-dir " + (dir / "x").string() + " 2>&1").out,
              dir.string() + ": is a folder, not a file (expected an ONNX model)\nkernelgen: nothing was written\n");
    EXPECT_EQ(kernelgen_run("import /dev/zero --out-dir " + (dir / "x").string() + " 2>&1").out,
              "/dev/zero: is not a regular file (expected an ONNX model)\nkernelgen: nothing was written\n");
}

// The import's own limits: past its time or memory, an import stops with exit 1 and says which limit and how to
// raise it; an allocation the system refuses ends it the same way, never with a signal.
TEST(ImportLimits, TimeAndMemoryStopAnImportCleanly) {
    // The library: no time at all.
    kernelgen::ImportOptions none;
    none.limits.seconds = 0;
    const auto stopped = kernelgen::import_model(multi_node_model().bytes(), "m.onnx", none);
    ASSERT_EQ(stopped.diagnostics.size(), 1u);
    EXPECT_EQ(stopped.diagnostics[0].message, "import stopped: it took more than 0 s (--time-limit SECONDS raises the limit)");
    EXPECT_TRUE(stopped.kernels.empty());
    EXPECT_TRUE(stopped.report.empty());

    // The command line: 16 MiB is far less than the folding of wasted_folds holds (about 128 MiB).
    const fs::path dir = fresh_dir("limits");
    EXPECT_EQ(import_hostile("wasted_folds", dir / "memory", "--memory-limit 16"),
              "wasted_folds.onnx: import stopped: it needed more than 16 MiB of memory (--memory-limit MIB raises the "
              "limit)\nkernelgen: nothing was written\nexit 1\n");
    EXPECT_FALSE(fs::exists(dir / "memory"));
    // An address space too small for that folding: the allocation fails, and the import ends all the same.
    EXPECT_EQ(import_hostile("wasted_folds", dir / "ulimit", "", "ulimit -v 100000"),
              "wasted_folds.onnx: import stopped: it ran out of memory (the system refused an allocation; a limit such "
              "as ulimit -v, or too little memory)\nkernelgen: nothing was written\nexit 1\n");
    EXPECT_FALSE(fs::exists(dir / "ulimit"));

    // A model that takes 64 rounds of inference over 20,000 nodes (many seconds), stopped after 1.
    Model slow(17);
    slow.input("x", kFloat, {6});
    slow.node("Identity", {"x"}, "t0");
    for (int k = 1; k <= 64; ++k) {
        const std::string n = std::to_string(k);
        slow.node("Shape", {"t" + std::to_string(k - 1)}, "s" + n);
        Model::attribute(slow.node("ReduceMax", {"s" + n}, "m" + n), "keepdims", 1);
        slow.node("Reshape", {"x", "m" + n}, "t" + n);
    }
    for (int k = 0; k < 20000; ++k) slow.node("Identity", {k ? "pad" + std::to_string(k - 1) : "x"}, "pad" + std::to_string(k));
    slow.initializer("i", kInt64, {1}, {0});
    slow.node("Gather", {"t64", "i"}, "y", "g");
    write_text(dir / "slow.onnx", slow.bytes());
    const auto started = std::chrono::steady_clock::now();
    CliRun timed = kernelgen_run("import " + (dir / "slow.onnx").string() + " --out-dir " + (dir / "slow").string() +
                                 " --time-limit 1 2>&1");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
    EXPECT_EQ(timed.status, 1);
    EXPECT_EQ(timed.out, (dir / "slow.onnx").string() + ": import stopped: it took more than 1 s (--time-limit SECONDS raises "
                                                         "the limit)\nkernelgen: nothing was written\n");
    EXPECT_FALSE(fs::exists(dir / "slow"));

    // The options themselves.
    CliRun zero = kernelgen_run("import m.onnx --out-dir x --time-limit 0 2>&1");
    EXPECT_EQ(zero.status, 2);
    EXPECT_EQ(zero.out, "kernelgen: --time-limit 0: the limit must be a whole number of seconds from 1 to 86400\n"
                        "Try 'kernelgen help import'.\n");
    CliRun words = kernelgen_run("import m.onnx --out-dir x --memory-limit=lots 2>&1");
    EXPECT_EQ(words.status, 2);
    EXPECT_EQ(words.out, "kernelgen: --memory-limit lots: the limit must be a whole number of MiB from 1 to 1048576\n"
                         "Try 'kernelgen help import'.\n");
}

// Allocates `bytes` and writes every page (so that no compiler leaves the allocation out); true, or false when the
// allocation is refused.
bool allocate_and_touch(size_t bytes) {
    try {
        std::vector<char> block(bytes);
        for (size_t at = 0; at < bytes; at += 4096) block[at] = static_cast<char>(at >> 12);
        volatile char seen = block[bytes / 2];
        (void)seen;
        return true;
    } catch (const std::bad_alloc&) {
        return false;
    }
}

// The memory limit is the process's own while an import runs (RLIMIT_DATA above what it holds, restored after): an
// allocation past it fails at once, whatever the guard's polling of resident memory has seen, and the import ends
// with the limit's message, exit 1, never a signal.
TEST(ImportLimits, AllocationsPastTheMemoryLimitAreRefused) {
    rlimit before{};
    ASSERT_EQ(::getrlimit(RLIMIT_DATA, &before), 0);
    ASSERT_TRUE(allocate_and_touch(size_t{256} << 20));
    {
        kernelgen::ProcessMemoryLimit limit(uint64_t{64} << 20);
        EXPECT_FALSE(allocate_and_touch(size_t{256} << 20));
        EXPECT_TRUE(allocate_and_touch(size_t{8} << 20));
        rlimit during{};
        ASSERT_EQ(::getrlimit(RLIMIT_DATA, &during), 0);
        EXPECT_LE(during.rlim_cur, kernelgen::status_bytes("VmData") + (uint64_t{64} << 20));
        EXPECT_EQ(during.rlim_max, before.rlim_max);
        {
            kernelgen::ProcessMemoryLimit inner(uint64_t{1} << 40);  // another import meanwhile: the first limit holds
            EXPECT_FALSE(allocate_and_touch(size_t{256} << 20));
        }
        EXPECT_FALSE(allocate_and_touch(size_t{256} << 20));
    }
    rlimit after{};
    ASSERT_EQ(::getrlimit(RLIMIT_DATA, &after), 0);
    EXPECT_EQ(after.rlim_cur, before.rlim_cur);
    EXPECT_TRUE(allocate_and_touch(size_t{256} << 20));

    // An import that folds one value of 8 MB (a million int64 sevens) in a few steps: under a 4 MiB limit the
    // allocation itself is refused. Without the process's limit, the guard's polling (every 64th check) does not
    // see it in so short an import, and the import runs on.
    Model m(17);
    m.initializer("shape", kInt64, {2}, {1000, 1000});
    m.node("ConstantOfShape", {"shape"}, "sevens");
    m.input("x", kFloat, {4, 3});
    m.input("i", kInt64, {2});
    m.node("Gather", {"x", "i"}, "y", "g");
    m.output("sevens", kFloat, {1000, 1000});
    kernelgen::ImportOptions small;
    small.limits.memory_bytes = uint64_t{4} << 20;
    const auto refused = kernelgen::import_model(m.bytes(), "sevens.onnx", small);
    ASSERT_EQ(refused.diagnostics.size(), 1u);
    EXPECT_EQ(refused.diagnostics[0].message, "import stopped: it needed more than 4 MiB of memory (--memory-limit MIB "
                                              "raises the limit)");
    EXPECT_TRUE(refused.kernels.empty());
    small.limits.limit_process = false;
    const auto polled = kernelgen::import_model(m.bytes(), "sevens.onnx", small);
    EXPECT_TRUE(polled.diagnostics.empty());
    EXPECT_EQ(polled.kernels.size(), 1u);
    ASSERT_EQ(::getrlimit(RLIMIT_DATA, &after), 0);
    EXPECT_EQ(after.rlim_cur, before.rlim_cur);

    // The command line, its message and exit status.
    const fs::path dir = fresh_dir("limits_real");
    write_text(dir / "sevens.onnx", m.bytes());
    const CliRun run = kernelgen_run("import " + (dir / "sevens.onnx").string() + " --out-dir " + (dir / "out").string() +
                                     " --memory-limit 4 2>&1");
    EXPECT_EQ(run.status, 1);
    EXPECT_EQ(run.out, (dir / "sevens.onnx").string() + ": import stopped: it needed more than 4 MiB of memory "
                                                        "(--memory-limit MIB raises the limit)\nkernelgen: nothing was written\n");
    EXPECT_FALSE(fs::exists(dir / "out"));
}

// Two imports into one folder at once: each run writes its files while it holds the folder (an exclusive flock on
// it), so the report left there always describes the specs beside it. First the lock itself: a run waits while
// another holds the folder. Then two models at once, ten times: both have nodes "g0".."g59", so the specs of one
// would replace the other's, and imports take turns for the check and the write (ImportTurn): one run writes, the
// other refuses (exit 2, nothing written), and the one report left names 60 specs, all its own (their shapes tell
// which run wrote what).
TEST(ImportCli, ConcurrentRunsIntoOneFolderDoNotInterleave) {
    const fs::path dir = fresh_dir("concurrent");
    write_text(dir / "m.onnx", multi_node_model().bytes());
    fs::create_directories(dir / "held");
    const int held = ::open((dir / "held").c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX), 0);
    int status = 0;
    cprogram::run_command("(" + std::string(KERNELGEN_EXECUTABLE_PATH) + " import " + (dir / "m.onnx").string() + " -o " +
                              (dir / "held").string() + "; touch " + (dir / "finished").string() + ") > /dev/null 2>&1 &",
                          status);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    EXPECT_FALSE(fs::exists(dir / "finished"));
    EXPECT_FALSE(fs::exists(dir / "held" / "m.import.json"));
    ::flock(held, LOCK_UN);
    ::close(held);
    for (int wait = 0; wait < 300 && !fs::exists(dir / "finished"); ++wait) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(fs::exists(dir / "held" / "m.import.json"));

    for (int64_t rows : {3, 5}) {
        Model m(17);
        m.input("data", kFloat, {rows, 2});
        m.input("idx", kInt64, {4});
        for (int k = 0; k < 60; ++k) m.node("Gather", {"data", "idx"}, "o" + std::to_string(k), "g" + std::to_string(k));
        write_text(dir / ("m" + std::to_string(rows) + ".onnx"), m.bytes());
    }
    for (int round = 0; round < 10; ++round) {
        const fs::path out = dir / ("out" + std::to_string(round));
        int status = 0;
        auto run = [&](const std::string& stem) {
            return "(" + std::string(KERNELGEN_EXECUTABLE_PATH) + " import " + stem + ".onnx -o " + out.string() + " > " +
                   stem + ".log 2>&1; echo $? > " + stem + ".status)";
        };
        cprogram::run_command("cd " + dir.string() + " && (" + run("m3") + " & " + run("m5") + " & wait)", status);
        int reports = 0, refused = 0;
        for (const std::string stem : {"m3", "m5"}) {
            const std::string exit_status = read_text(dir / (stem + ".status"));
            if (exit_status == "2\n") {
                ++refused;
                EXPECT_NE(read_text(dir / (stem + ".log")).find("would replace"), std::string::npos) << stem;
                EXPECT_FALSE(fs::exists(out / (stem + ".import.json"))) << stem << " round " << round;
                continue;
            }
            EXPECT_EQ(exit_status, "0\n") << stem << ": " << read_text(dir / (stem + ".log"));
            ++reports;
            const json report = json::parse(read_text(out / (stem + ".import.json")));
            const int64_t rows = stem == "m3" ? 3 : 5;
            size_t matching = 0;
            for (const auto& node : report["nodes"]) {
                const json spec = json::parse(read_text(out / node["spec"].get<std::string>()));
                matching += spec["data_shape"][0] == rows;
            }
            EXPECT_EQ(matching, 60u) << stem << " round " << round << ": " << matching << " of 60 specs its own";
        }
        EXPECT_EQ(reports, 1) << "round " << round;
        EXPECT_EQ(refused, 1) << "round " << round;
    }
}

// Two models whose indexing nodes have the same names, imported into one folder one after the other: the second
// would replace the first's specs and table, which the first's report names. It is refused, exit 2, with the
// file, the report and what to do, and leaves the folder as it was; so is it with one --prefix for both. With a
// prefix each, both are written and each report names its own files; the first model imported again, or the second
// once the first's report is deleted, is written.
TEST(ImportCli, SecondModelIntoOneFolderIsRefused) {
    const fs::path dir = fresh_dir("two_models");
    for (int64_t rows : {3, 5}) {
        Model m(13);
        m.input("data", kFloat, {rows, 2});
        m.input("idx", kInt64, {4});
        m.initializer("table", kFloat, {rows, 2}, std::vector<int64_t>(static_cast<size_t>(rows * 2), rows));
        m.node("Gather", {"data", "idx"}, "o0", "g0");
        m.node("Gather", {"data", "idx"}, "o1", "g1");
        m.node("Gather", {"table", "idx"}, "o2", "lookup");
        write_text(dir / ("m" + std::to_string(rows) + ".onnx"), m.bytes());
    }
    auto import = [&](const std::string& stem, const fs::path& out, const std::string& more = "") {
        return kernelgen_run("import " + (dir / (stem + ".onnx")).string() + " -o " + out.string() + more + " 2>&1");
    };
    auto contents = [](const fs::path& folder) {
        std::map<std::string, std::string> files;
        for (const auto& entry : fs::directory_iterator(folder)) files[entry.path().filename().string()] = read_text(entry.path());
        return files;
    };
    const fs::path out = dir / "specs";
    ASSERT_EQ(import("m3", out).status, 0);
    const auto first = contents(out);
    EXPECT_EQ(first.size(), 5u);  // g0.json, g1.json, lookup.json, lookup.data.npy, m3.import.json
    const CliRun second = import("m5", out);
    EXPECT_EQ(second.status, 2);
    const std::string m5 = (dir / "m5.onnx").string();
    EXPECT_EQ(second.out, "kernelgen: importing " + m5 + " into " + out.string() + " would replace " + (out / "g0.json").string() +
                              " and 3 more files of m3.onnx's import (" + (out / "m3.import.json").string() +
                              " names them); nothing was written: import it into another folder or with another --prefix, "
                              "or delete " + (out / "m3.import.json").string() + " first if m3.onnx's import is no longer "
                              "wanted\n");
    EXPECT_EQ(contents(out), first);

    const fs::path prefixed = dir / "prefixed";
    ASSERT_EQ(import("m3", prefixed, " --prefix p_").status, 0);
    const auto prefixed_first = contents(prefixed);
    const CliRun same_prefix = import("m5", prefixed, " --prefix p_");
    EXPECT_EQ(same_prefix.status, 2);
    EXPECT_NE(same_prefix.out.find(" would replace " + (prefixed / "p_g0.json").string() + " and 3 more files of m3.onnx's"),
              std::string::npos) << same_prefix.out;
    EXPECT_EQ(contents(prefixed), prefixed_first);

    const fs::path both = dir / "both";
    ASSERT_EQ(import("m3", both, " --prefix a_").status, 0);
    ASSERT_EQ(import("m5", both, " --prefix b_").status, 0);
    for (const auto& [stem, prefix, rows] : std::vector<std::tuple<std::string, std::string, int64_t>>{{"m3", "a_", 3}, {"m5", "b_", 5}}) {
        const json report = json::parse(read_text(both / (stem + ".import.json")));
        ASSERT_EQ(report["nodes"].size(), 3u);
        for (const auto& node : report["nodes"]) {
            const std::string spec_name = node["spec"].get<std::string>();
            EXPECT_EQ(spec_name.rfind(prefix, 0), 0u) << spec_name;
            EXPECT_EQ(json::parse(read_text(both / spec_name))["data_shape"][0], rows) << spec_name;
        }
    }

    EXPECT_EQ(import("m3", out).status, 0);  // its own report names the files: an import again replaces them
    fs::remove(out / "m3.import.json");
    const CliRun after = import("m5", out);
    EXPECT_EQ(after.status, 0) << after.out;
    EXPECT_EQ(json::parse(read_text(out / "g0.json"))["data_shape"][0], 5);
}

// Many --dim options cost time in proportion to their number (the report's "dims" once took quadratic time): here
// 100,000 dimensions a value_info of the model names (a rank no kernel takes, which inference never sees), then as
// many that the model does not name, each a usage error.
TEST(ImportOptions, ManyDimsAndTheInputAsGiven) {
    kernelgen::ImportOptions options;
    for (int k = 0; k < 100000; ++k) options.dims.emplace("d" + std::to_string(k), 1);
    Model named = multi_node_model();
    auto* many = named.proto().mutable_graph()->add_value_info();
    Model::set_type(many, "many", kFloat, {});
    for (int k = 0; k < 100000; ++k) {
        many->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("d" + std::to_string(k));
    }
    auto started = std::chrono::steady_clock::now();
    const auto result = kernelgen::import_model(named.bytes(), "m.onnx", options);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
    ASSERT_TRUE(result.usage_errors.empty()) << result.usage_errors.front();
    EXPECT_EQ(json::parse(result.report)["dims"].size(), 100000u);
    started = std::chrono::steady_clock::now();
    const auto unknown = kernelgen::import_model(multi_node_model().bytes(), "m.onnx", options);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
    EXPECT_EQ(unknown.usage_errors.size(), 100000u);
    // An --input is shown as given: "scalar" stays "scalar".
    Model m(17);
    m.input("x", kFloat, {2});
    kernelgen::ImportOptions scalar;
    scalar.inputs = {*kernelgen::parse_input_option("x=scalar")};
    EXPECT_EQ(kernelgen::import_model(m.bytes(), "m.onnx", scalar).usage_errors,
              std::vector<std::string>{"--input x=scalar: input \"x\" has rank 1 in the model ([2]), not 0"});
}

// --- ONNX Runtime -------------------------------------------------------------------------------------------

struct OrtInput {
    std::string name;
    int32_t type;
    std::vector<int64_t> dims;
    std::vector<uint8_t> bytes;
};

TEST(ImportOrt, KernelsAgreeWithOnnxRuntime) {
    const std::string node = KERNELGEN_NODE;
    const fs::path ort_dir = KERNELGEN_ORT_DIR;
    if (node.empty() || !fs::exists(ort_dir / "node_modules" / "onnxruntime-node" / "package.json")) {
        GTEST_SKIP() << "node or onnxruntime-node in " << ort_dir << " missing (see tests/ort_crosscheck/README.md)";
    }
    // Several indexing nodes, each reading graph inputs (or constant indices), each output a graph output.
    Model m(18);
    std::vector<OrtInput> inputs;
    std::mt19937 random(2026);
    auto floats = [&](const std::string& name, const std::vector<int64_t>& dims) {
        size_t n = 1;
        for (int64_t d : dims) n *= static_cast<size_t>(d);
        std::vector<float> values(n);
        for (auto& v : values) v = static_cast<float>(static_cast<int>(random() % 41) - 20) / 4.0f;  // ties for max
        m.input(name, kFloat, dims);
        inputs.push_back({name, kFloat, dims, cprogram::bytes_of(values)});
    };
    auto ints = [&](const std::string& name, int32_t type, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
        m.input(name, type, dims);
        if (type == kInt64) inputs.push_back({name, type, dims, cprogram::bytes_of(values)});
        else inputs.push_back({name, type, dims, cprogram::bytes_of(std::vector<int32_t>(values.begin(), values.end()))});
    };
    floats("table", {6, 4});
    ints("tokens", kInt64, {3}, {5, -6, 2});
    m.node("Gather", {"table", "tokens"}, "rows", "embedding");
    m.initializer("picked", kInt64, {2, 2}, {3, 0, -1, 2});
    Model::attribute(m.node("Gather", {"table", "picked"}, "cols"), "axis", 1);  // constant indices, axis 1, of 4
    ints("grid", kInt32, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    ints("order", kInt64, {3, 2}, {3, 0, -1, 1, 2, 2});
    Model::attribute(m.node("GatherElements", {"grid", "order"}, "picked_grid", "ge"), "axis", -1);
    floats("batch", {2, 3, 4});
    ints("which", kInt64, {2, 1}, {2, -3});
    Model::attribute(m.node("GatherND", {"batch", "which"}, "gathered", "gnd"), "batch_dims", 1);
    floats("state", {5, 3});
    ints("slots", kInt64, {4, 1}, {1, -1, 1, 0});  // a duplicate: max applies both
    floats("news", {4, 3});
    Model::attribute(m.node("ScatterND", {"state", "slots", "news"}, "state_max", "running max"), "reduction", "max");
    floats("acc", {4, 4});
    ints("rowsel", kInt64, {2, 4}, {0, 3, -1, 0, 0, 1, 2, 0});
    floats("adds", {2, 4});
    auto& se = m.node("ScatterElements", {"acc", "rowsel", "adds"}, "acc_sum", "accumulate");
    Model::attribute(se, "axis", 0);
    Model::attribute(se, "reduction", "add");
    onnx::NodeProto& constant = m.node("Constant", {}, "fixed_slot");
    auto* value = constant.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    Model::fill(value->mutable_t(), "", kInt64, {1, 1}, {-2});
    floats("row", {1, 3});
    m.node("ScatterND", {"state", "fixed_slot", "row"}, "state_set", "set row");
    ints("mins", kInt32, {1, 3}, {2, 0, -3});  // int32 indices
    floats("low", {1, 3});
    auto& se_min = m.node("ScatterElements", {"state", "mins", "low"}, "state_min", "min_update");
    Model::attribute(se_min, "axis", 0);
    Model::attribute(se_min, "reduction", "min");
    const std::vector<std::pair<std::string, std::vector<int64_t>>> outputs{
        {"rows", {3, 4}}, {"cols", {6, 2, 2}}, {"picked_grid", {3, 2}}, {"gathered", {2, 4}},
        {"state_max", {5, 3}}, {"acc_sum", {4, 4}}, {"state_set", {5, 3}}, {"state_min", {5, 3}}};
    for (const auto& [name, dims] : outputs) m.output(name, name == "picked_grid" ? kInt32 : kFloat, dims);

    const fs::path dir = fresh_dir("ort");
    write_text(dir / "model.onnx", m.bytes());
    json feeds = json::object();
    for (const auto& input : inputs) {
        feeds[input.name] = {{"type", input.type == kFloat ? "float32" : input.type == kInt32 ? "int32" : "int64"},
                             {"dims", input.dims},
                             {"hex", cprogram::hex(input.bytes)}};
    }
    write_text(dir / "inputs.json", feeds.dump(1));
    int status = 0;
    const std::string log = cprogram::run_command(node + " " + (kSourceDir / "tests" / "import" / "run_model_ort.js").string() +
                                                      " " + (dir / "model.onnx").string() + " " + (dir / "inputs.json").string() +
                                                      " " + (dir / "outputs.json").string() + " " + ort_dir.string(),
                                                  status);
    ASSERT_EQ(status, 0) << log;
    const json ort_outputs = json::parse(read_text(dir / "outputs.json"));

    const auto result = kernelgen::import_model(m.bytes(), "model.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    ASSERT_EQ(result.kernels.size(), outputs.size());
    auto bytes_of_input = [&](const std::string& name) {
        for (const auto& input : inputs) {
            if (input.name == name) return input.bytes;
        }
        return std::vector<uint8_t>{};  // constant indices
    };
    std::vector<kernelgen::KernelSpec> kernels;
    std::vector<cprogram::Case> cases;
    const onnx::GraphProto& graph = m.proto().graph();
    for (const auto& kernel : result.kernels) {
        const onnx::NodeProto& n = graph.node(static_cast<int>(kernel.node.position));
        const json& expected = ort_outputs.at(n.output(0));
        const std::vector<uint8_t> updates = n.input_size() == 3 ? bytes_of_input(n.input(2)) : std::vector<uint8_t>{};
        kernels.push_back(kernel.spec);
        cases.push_back(make_case(kernel.spec, kernel.name, bytes_of_input(n.input(0)), bytes_of_input(n.input(1)), updates,
                                  cprogram::unhex(expected.at("hex").get<std::string>())));
        EXPECT_EQ(expected.at("dims").get<kernelgen::Shape>(), kernel.spec.output_shape) << kernel.name;
    }
    EXPECT_TRUE(result.kernels[1].spec.constant_indices.has_value());
    EXPECT_TRUE(result.kernels[6].spec.constant_indices.has_value());
    run_cases(dir / "c", kernels, cases);
}

// --- real PyTorch exports ---------------------------------------------------------------------------------------

// Runs a model with ONNX Runtime (tests/import/run_model_ort.js); empty when node or onnxruntime-node is missing.
json run_ort(const fs::path& model, const fs::path& inputs, const fs::path& outputs, std::string& log) {
    int status = 0;
    log = cprogram::run_command(std::string(KERNELGEN_NODE) + " " + (kSourceDir / "tests" / "import" / "run_model_ort.js").string() +
                                    " " + model.string() + " " + inputs.string() + " " + outputs.string() + " " +
                                    std::string(KERNELGEN_ORT_DIR),
                                status);
    if (status != 0) return json();
    return json::parse(read_text(outputs));
}

// The body of a Loop, run by ONNX Runtime iteration by iteration (tests/import/run_loop_ort.js): for each
// iteration, the body's inputs and every output of the body model (capture.py's), by name; null when it fails.
json run_loop_ort(const fs::path& body, const json& loop, const fs::path& work, std::string& log) {
    write_text(work.string() + ".loop.json", loop.dump());
    int status = 0;
    log = cprogram::run_command(std::string(KERNELGEN_NODE) + " " + (kSourceDir / "tests" / "import" / "run_loop_ort.js").string() +
                                    " " + body.string() + " " + work.string() + ".loop.json " + work.string() +
                                    ".iterations.json " + std::string(KERNELGEN_ORT_DIR) + " 2>&1",
                                status);
    if (status != 0) return json();
    return json::parse(read_text(work.string() + ".iterations.json"));
}

bool have_ort() {
    return !std::string(KERNELGEN_NODE).empty() &&
           fs::exists(fs::path(KERNELGEN_ORT_DIR) / "node_modules" / "onnxruntime-node" / "package.json");
}

// Quantized tables that cannot be fused: a GatherBlockQuantized node is skipped with its reason (a block size ONNX
// Runtime refuses, scales of the wrong shape, 2 bits, a gather along axis 1); a DequantizeLinear's table stays a float
// parameter, with a note, when its scale is not constant, its scale fits no quantization, or the Gather is along
// axis 1; with --weights caller nothing is fused and GatherBlockQuantized is skipped (it has no float data to pass).
TEST(ImportModel, QuantizedTablesNotFusedSayWhy) {
    auto bytes = [](size_t n) { return std::string(n, '\x11'); };
    auto add = [](Model& m, const std::string& name, int32_t type, const std::vector<int64_t>& dims, const std::string& raw) {
        onnx::TensorProto* t = m.proto().mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(type);
        for (int64_t d : dims) t->add_dims(d);
        t->set_raw_data(raw);
    };
    const int32_t kUInt8 = onnx::TensorProto::UINT8, kInt8 = onnx::TensorProto::INT8;
    Model m(17);
    auto* microsoft = m.proto().add_opset_import();
    microsoft->set_domain("com.microsoft");
    microsoft->set_version(1);
    m.input("ids", kInt64, {2});
    m.input("live_scale", kFloat, {});
    add(m, "q", kUInt8, {4, 16}, bytes(64));
    add(m, "s", kFloat, {4, 4}, bytes(64));
    add(m, "s2", kFloat, {4, 2}, bytes(32));
    auto gbq = [&](const std::string& out, const std::string& scales, int64_t bits, int64_t block, int64_t gather_axis) {
        auto& node = m.node("GatherBlockQuantized", {"q", "ids", scales}, out, out);
        node.set_domain("com.microsoft");
        Model::attribute(node, "bits", bits);
        Model::attribute(node, "block_size", block);
        Model::attribute(node, "gather_axis", gather_axis);
        m.output(out, kFloat, {2, 32});
    };
    gbq("block8", "s", 4, 8, 0);
    gbq("wrong_scales", "s", 4, 16, 0);
    gbq("two_bits", "s2", 2, 16, 0);
    gbq("axis1", "s2", 4, 16, 1);
    gbq("fine", "s2", 4, 16, 0);
    add(m, "x", kInt8, {4, 6}, bytes(24));
    add(m, "xs", kFloat, {6}, bytes(24));
    add(m, "xs5", kFloat, {5}, bytes(20));
    m.node("DequantizeLinear", {"x", "live_scale"}, "t_live", "dq_live");
    m.node("Gather", {"t_live", "ids"}, "live", "live");
    auto& dq5 = m.node("DequantizeLinear", {"x", "xs5"}, "t5", "dq5");
    Model::attribute(dq5, "axis", 1);
    m.node("Gather", {"t5", "ids"}, "five", "five");
    auto& dq = m.node("DequantizeLinear", {"x", "xs"}, "t", "dq");
    Model::attribute(dq, "axis", 1);
    auto& columns = m.node("Gather", {"t", "ids"}, "columns", "columns");
    Model::attribute(columns, "axis", 1);
    m.output("live", kFloat, {2, 6});
    m.output("five", kFloat, {2, 6});
    m.output("columns", kFloat, {4, 2});
    // Constant indices: the rows could be folded, and a quantized table's kernel takes its indices at run time.
    m.initializer("rows", kInt64, {2}, {0, 3});
    auto& constant_rows = m.node("GatherBlockQuantized", {"q", "rows", "s2"}, "constant_rows", "constant_rows");
    constant_rows.set_domain("com.microsoft");
    Model::attribute(constant_rows, "block_size", int64_t{16});
    m.output("constant_rows", kFloat, {2, 32});
    const auto result = kernelgen::import_model(m.bytes(), "quantized.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    std::map<std::string, std::string> skipped;
    for (const auto& s : result.skipped) skipped[s.node.name] = s.reason;
    EXPECT_EQ(skipped["block8"], "block_size is 8 (ONNX Runtime takes a power of 2, at least 16)");
    EXPECT_EQ(skipped["wrong_scales"], "its scales are [4, 4] where data [4, 16] in blocks of 16 takes [4, 2]");
    EXPECT_EQ(skipped["two_bits"], "bits is 2 (4 and 8 are imported)");
    EXPECT_EQ(skipped["axis1"], "uint8 data gathers along axis 0 and is quantized along its last axis (ONNX Runtime's rule); "
                                "data is [4, 16], gather_axis 1, quantize_axis 1");
    EXPECT_EQ(skipped["constant_rows"], "its indices are constant: the rows they select could be folded (a quantized "
                                        "table takes indices at run time)");
    EXPECT_EQ(skipped.size(), 5u);
    std::map<std::string, const kernelgen::ImportedKernel*> kernels;
    for (const auto& k : result.kernels) kernels[k.node.name] = &k;
    ASSERT_EQ(kernels.size(), 4u);
    EXPECT_TRUE(kernels.at("fine")->spec.quantization.has_value());
    for (const char* name : {"live", "five", "columns"}) {
        EXPECT_FALSE(kernels.at(name)->spec.constant_data.has_value()) << name;
    }
    const std::vector<std::string> notes{
        "node \"live\" (Gather, #6): its data comes from DequantizeLinear \"dq_live\", which stays outside the kernel "
        "(float data, a parameter): its scale or zero point is not a constant",
        "node \"five\" (Gather, #8): its data comes from DequantizeLinear \"dq5\", which stays outside the kernel (float "
        "data, a parameter): its scale of shape [5] fits no quantization of [4, 6]",
        "node \"columns\" (Gather, #10): its data comes from DequantizeLinear \"dq\", which stays outside the kernel (float "
        "data, a parameter): the Gather is along axis 1 (a quantized table is gathered along axis 0)"};
    EXPECT_EQ(result.notes, notes);

    kernelgen::ImportOptions caller;
    caller.weights_in_kernel = false;
    const auto kept = kernelgen::import_model(m.bytes(), "quantized.onnx", caller);
    EXPECT_EQ(kept.skipped.size(), 6u);
    EXPECT_EQ(kept.kernels.size(), 3u);
    EXPECT_TRUE(kept.notes.empty());
}

// A quantized-table model (input "ids", output "rows") written into `dir` and run by ONNX Runtime on `id_bytes`
// (int64, or int32 with `int32_ids`): its output, bit for bit (`expected`); and the model imported (`result`), which
// must make one kernel that holds its table quantized as `type`.
void import_quantized(const fs::path& dir, Model& m, const std::vector<int64_t>& indices_dims, const std::vector<uint8_t>& id_bytes,
                      bool int32_ids, const std::string& type, std::vector<uint8_t>& expected, kernelgen::ImportResult& result) {
    write_text(dir / "model.onnx", m.bytes());
    json feeds{{"ids", {{"type", int32_ids ? "int32" : "int64"}, {"dims", indices_dims}, {"hex", cprogram::hex(id_bytes)}}}};
    write_text(dir / "inputs.json", feeds.dump());
    std::string log;
    const json outputs = run_ort(dir / "model.onnx", dir / "inputs.json", dir / "outputs.json", log);
    ASSERT_FALSE(outputs.is_null()) << log;
    expected = cprogram::unhex(outputs.at("rows").at("hex").get<std::string>());
    result = kernelgen::import_model(m.bytes(), "model.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    ASSERT_EQ(result.kernels.size(), 1u);
    const auto& kernel = result.kernels.front();
    ASSERT_TRUE(kernel.spec.quantization.has_value()) << kernel.spec_text;
    EXPECT_EQ(kernelgen::quantized_type_name(kernel.spec.quantization->type), type);
}

// The files the import of `dir`'s model writes read back to its kernel's very table; that kernel, from the spec file
// as read (named `name`), gets two cases: `id_bytes`, giving `expected`, and `bad_bytes` (an index out of range),
// refused with the output untouched.
void add_quantized_cases(const fs::path& dir, const kernelgen::ImportResult& result, const std::string& name,
                         const std::string& label, const std::vector<uint8_t>& id_bytes, const std::vector<uint8_t>& bad_bytes,
                         const std::vector<uint8_t>& expected, std::vector<kernelgen::KernelSpec>& kernels,
                         std::vector<cprogram::Case>& runs) {
    const auto& kernel = result.kernels.front();
    ASSERT_TRUE(kernelgen::write_outputs(dir / "specs", kernelgen::import_outputs(result, "model.onnx")).error.empty());
    std::vector<kernelgen::Diagnostic> diagnostics;
    const auto read = kernelgen::parse_spec_file((dir / "specs" / (kernel.name + ".json")).string(), diagnostics);
    ASSERT_EQ(read.size(), 1u) << (diagnostics.empty() ? "" : diagnostics.front().str());
    EXPECT_EQ(read[0].constant_data->bytes, kernel.spec.constant_data->bytes);
    EXPECT_EQ(read[0].quantization->scales, kernel.spec.quantization->scales);
    EXPECT_EQ(read[0].quantization->zero_points, kernel.spec.quantization->zero_points);
    EXPECT_EQ(read[0].quantization->axis, kernel.spec.quantization->axis);
    EXPECT_EQ(read[0].quantization->block_size, kernel.spec.quantization->block_size);
    EXPECT_EQ(read[0].dtype, kernel.spec.dtype);
    kernelgen::KernelSpec spec = read[0];
    spec.name = name;
    runs.push_back(make_case(spec, label, {}, id_bytes, {}, expected));
    runs.push_back(make_case(spec, label + ", an index out of range", {}, bad_bytes, {},
                             std::vector<uint8_t>(expected.size(), cprogram::kSentinel)));
    runs.back().expected_status = -1;
    kernels.push_back(spec);
}

// Quantized tables, fused and bit-exact with ONNX Runtime: DequantizeLinear -> Gather (opset 13: int8 with one scale
// and zero point, uint8 with a scale and zero point per column, int8 per row without zero points; opset 21: int8 in
// blocks of 4 along the columns with float16 scales and a partial last block, uint8 in blocks of 3 along the rows,
// one block of 8 over 6 columns, int4 per column and uint4 in blocks along the rows, rows of odd length) and com.microsoft.GatherBlockQuantized (4 bits with packed zero points and float16
// scales, 8 bits with ONNX Runtime's default zero point 128, 4 bits with the default 8, 4 bits with 3 blocks a row
// whose packed zero points pad each row, 8 bits in a block longer than the row), int64 and int32 indices, negative
// ones included. Each
// model runs in ONNX Runtime; its import makes one kernel holding the table quantized, whose spec files read back to
// the same table; the kernel, compiled with the sanitizers, gives ONNX Runtime's output bit for bit, and an index out
// of range leaves the output untouched (ONNX Runtime fails the run).
TEST(ImportOrt, QuantizedTablesAgreeWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    std::mt19937_64 rng(20261126);
    auto uniform = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    auto raw = [](Model& m, const std::string& name, int32_t type, const std::vector<int64_t>& dims, const std::vector<uint8_t>& bytes) {
        onnx::TensorProto* t = m.proto().mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(type);
        for (int64_t d : dims) t->add_dims(d);
        t->set_raw_data(std::string(bytes.begin(), bytes.end()));
    };
    auto count = [](const std::vector<int64_t>& dims) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        return static_cast<size_t>(n);
    };
    auto random_bytes = [&](size_t n) {
        std::vector<uint8_t> out(n);
        for (auto& b : out) b = static_cast<uint8_t>(uniform(0, 255));
        return out;
    };
    // Scales: float32 of 24 random bits (products round), or float16 normals (m * 2^e, 11 bits).
    auto scales = [&](size_t n, int32_t type) {
        std::vector<uint8_t> out;
        for (size_t i = 0; i < n; ++i) {
            if (type == kFloat) {
                const auto value = static_cast<float>(std::ldexp(static_cast<double>(uniform(1 << 23, (1 << 24) - 1)), static_cast<int>(uniform(-40, -20))) *
                                                      (uniform(0, 3) == 0 ? -1 : 1));
                const auto bytes = cprogram::bytes_of(std::vector<float>{value});
                out.insert(out.end(), bytes.begin(), bytes.end());
            } else {
                const auto bits = static_cast<uint16_t>(uniform(0x0400, 0x5BFF) | (uniform(0, 3) == 0 ? 0x8000 : 0));
                out.push_back(static_cast<uint8_t>(bits & 0xFF));
                out.push_back(static_cast<uint8_t>(bits >> 8));
            }
        }
        return out;
    };
    struct Case {
        std::string label;
        int64_t opset;
        bool block_quantized;  // GatherBlockQuantized, else DequantizeLinear -> Gather
        int32_t values_type;   // INT8, UINT8, or (DequantizeLinear) INT4, UINT4
        std::vector<int64_t> data;  // the values' dims (GatherBlockQuantized's 4-bit: as packed)
        int32_t scale_type;
        std::vector<int64_t> scales;  // the scales' dims
        std::vector<int64_t> zeros;   // the zero points' dims; {-1}: none
        std::vector<std::pair<std::string, int64_t>> attributes;
        int32_t index_type;
        std::string type;  // the spec's quantization type
    };
    const int32_t kInt8 = onnx::TensorProto::INT8, kUInt8 = onnx::TensorProto::UINT8, kHalf = onnx::TensorProto::FLOAT16;
    const int32_t kUInt4 = 21, kInt4 = 22;  // ONNX 1.16's UINT4 and INT4
    const std::vector<Case> cases{
        {"int8, one scale and zero point", 13, false, kInt8, {10, 6}, kFloat, {}, {}, {}, kInt64, "int8"},
        {"uint8, a scale per column", 13, false, kUInt8, {10, 6}, kFloat, {6}, {6}, {{"axis", 1}}, kInt32, "uint8"},
        {"int8, a scale per row", 13, false, kInt8, {10, 6}, kFloat, {10}, {-1}, {{"axis", 0}}, kInt64, "int8"},
        {"int8, blocks of 4 along the columns", 21, false, kInt8, {10, 10}, kHalf, {10, 3}, {10, 3}, {{"axis", 1}, {"block_size", 4}}, kInt64, "int8"},
        {"uint8, blocks of 3 along the rows", 21, false, kUInt8, {10, 5}, kFloat, {4, 5}, {4, 5}, {{"axis", 0}, {"block_size", 3}}, kInt32, "uint8"},
        {"GatherBlockQuantized, 4 bits", 17, true, kUInt8, {10, 16}, kHalf, {10, 2}, {10, 1}, {{"bits", 4}, {"block_size", 16}}, kInt64, "uint4"},
        {"GatherBlockQuantized, 8 bits", 17, true, kUInt8, {10, 32}, kFloat, {10, 2}, {-1}, {{"bits", 8}, {"block_size", 16}}, kInt32, "uint8"},
        {"GatherBlockQuantized, 4 bits, default zero point", 17, true, kUInt8, {10, 48}, kFloat, {10, 3}, {-1}, {{"bits", 4}, {"block_size", 32}}, kInt64, "uint4"},
        {"GatherBlockQuantized, 4 bits, 3 blocks a row and their zero points", 17, true, kUInt8, {10, 24}, kHalf, {10, 3}, {10, 2}, {{"bits", 4}, {"block_size", 16}}, kInt32, "uint4"},
        {"GatherBlockQuantized, 8 bits, a block longer than the row", 17, true, kUInt8, {10, 16}, kFloat, {10, 1}, {10, 1}, {{"bits", 8}, {"block_size", 32}}, kInt64, "uint8"},
        {"int8, one block longer than the columns", 21, false, kInt8, {10, 6}, kFloat, {10, 1}, {-1}, {{"axis", 1}, {"block_size", 8}}, kInt32, "int8"},
        // One scale: the axis, 1 by default, is not used (ONNX and ONNX Runtime), even where the table has no axis 1.
        {"int8, rank 1, one scale", 13, false, kInt8, {10}, kFloat, {}, {}, {}, kInt64, "int8"},
        {"uint8, rank 1, a scale of one element", 19, false, kUInt8, {10}, kHalf, {1}, {1}, {}, kInt32, "uint8"},
        // 4-bit values as ONNX packs them (flat, two a byte; opset 21), rows of odd length.
        {"int4, a scale per column", 21, false, kInt4, {10, 5}, kFloat, {5}, {5}, {{"axis", 1}}, kInt64, "int4"},
        {"uint4, blocks of 2 along the rows", 21, false, kUInt4, {10, 3}, kHalf, {5, 3}, {5, 3}, {{"axis", 0}, {"block_size", 2}}, kInt32, "uint4"},
    };
    size_t n = 0;
    std::vector<kernelgen::KernelSpec> kernels;  // compiled and run together at the end
    std::vector<cprogram::Case> runs;
    for (const Case& test : cases) {
        SCOPED_TRACE(test.label);
        Model m(test.opset);
        if (test.block_quantized) {
            auto* microsoft = m.proto().add_opset_import();
            microsoft->set_domain("com.microsoft");
            microsoft->set_version(1);
        }
        const std::vector<int64_t> indices_dims{5};
        m.input("ids", test.index_type, indices_dims);
        const bool four = test.values_type == kInt4 || test.values_type == kUInt4;  // ONNX's INT4/UINT4: two a byte
        auto stored = [&](size_t elements) { return four ? (elements + 1) / 2 : elements; };
        raw(m, "q", test.values_type, test.data, random_bytes(stored(count(test.data))));
        raw(m, "s", test.scale_type, test.scales, scales(count(test.scales), test.scale_type));
        std::vector<std::string> inputs = test.block_quantized ? std::vector<std::string>{"q", "ids", "s"} : std::vector<std::string>{"q", "s"};
        if (test.zeros != std::vector<int64_t>{-1}) {
            raw(m, "z", test.values_type, test.zeros, random_bytes(stored(count(test.zeros))));
            inputs.push_back("z");
        }
        std::vector<int64_t> out_dims{5};
        out_dims.insert(out_dims.end(), test.data.begin() + 1, test.data.end());
        if (test.block_quantized && test.type == "uint4") out_dims.back() *= 2;
        if (test.block_quantized) {
            auto& gbq = m.node("GatherBlockQuantized", inputs, "rows", "lookup");
            gbq.set_domain("com.microsoft");
            for (const auto& [name, value] : test.attributes) Model::attribute(gbq, name, value);
        } else {
            auto& dq = m.node("DequantizeLinear", inputs, "table", "dequantize");
            for (const auto& [name, value] : test.attributes) Model::attribute(dq, name, value);
            m.node("Gather", {"table", "ids"}, "rows", "lookup");
        }
        m.output("rows", test.scale_type, out_dims);
        const fs::path dir = fresh_dir("quantized_ort_" + std::to_string(n++));
        std::vector<int64_t> ids;
        for (int k = 0; k < 5; ++k) ids.push_back(uniform(-test.data[0], test.data[0] - 1));
        ids[0] = -test.data[0];
        ids[1] = test.data[0] - 1;
        auto bytes = [&](const std::vector<int64_t>& values) {
            return test.index_type == kInt32 ? cprogram::bytes_of(std::vector<int32_t>(values.begin(), values.end()))
                                             : cprogram::bytes_of(values);
        };
        std::vector<uint8_t> expected;
        kernelgen::ImportResult result;
        ASSERT_NO_FATAL_FAILURE(import_quantized(dir, m, indices_dims, bytes(ids), test.index_type == kInt32, test.type, expected, result));
        EXPECT_EQ(result.kernels.front().spec.output_shape, kernelgen::Shape(out_dims.begin(), out_dims.end()));
        const json report = json::parse(result.report);
        EXPECT_EQ(report.at("nodes").at(0).at("weights").at("quantized").at("type"), test.type) << result.report;
        std::vector<int64_t> bad = ids;
        bad[3] = test.data[0];
        add_quantized_cases(dir, result, "quantized_" + std::to_string(n), test.label, bytes(ids), bytes(bad), expected, kernels, runs);
    }
    run_cases(fresh_dir("quantized_ort_kernels"), kernels, runs);
}

// Fake quantization's arithmetic, on values worked by hand: ONNX Runtime's QuantizeLinear divides in float, rounds the
// quotient half to even, adds the zero point and saturates to the type's range.
TEST(FakeQuantization, QuantizeRoundsTiesToEvenAndSaturates) {
    using kernelgen::quantize_linear;
    using Q = kernelgen::KernelSpec::QuantizedType;
    // Ties go to the even neighbour, on both sides of zero.
    EXPECT_EQ(quantize_linear(0.5f, 1.0f, 0, Q::Int8), 0);
    EXPECT_EQ(quantize_linear(1.5f, 1.0f, 0, Q::Int8), 2);
    EXPECT_EQ(quantize_linear(2.5f, 1.0f, 0, Q::Int8), 2);
    EXPECT_EQ(quantize_linear(-2.5f, 1.0f, 0, Q::Int8), -2);
    EXPECT_EQ(quantize_linear(-3.5f, 1.0f, 0, Q::Int8), -4);
    EXPECT_EQ(quantize_linear(2.4999998f, 1.0f, 0, Q::Int8), 2);
    EXPECT_EQ(quantize_linear(2.5000002f, 1.0f, 0, Q::Int8), 3);
    // 1.25 / 0.5 = 2.5 -> 2; then the zero point: 2 + (-3) = -1, 2 + 7 = 9.
    EXPECT_EQ(quantize_linear(1.25f, 0.5f, 0, Q::Int8), 2);
    EXPECT_EQ(quantize_linear(1.25f, 0.5f, -3, Q::Int8), -1);
    EXPECT_EQ(quantize_linear(1.25f, 0.5f, 7, Q::UInt8), 9);
    // A negative scale: -1.5 / 0.5... 1.5 / -0.5 = -3 -> -3 + 5 = 2.
    EXPECT_EQ(quantize_linear(1.5f, -0.5f, 5, Q::Int8), 2);
    // The quotient is a float: 0.35f = 11744051 * 2^-25 and 0.1f = 13421773 * 2^-27 make 3.49999988..., which rounds
    // to the float 3.5 (its neighbours are 2^-22 apart), a tie: 4 (exact arithmetic would give 3). 0.75f / 0.1f =
    // 7.49999989... -> 7.5 -> 8; 0.25f / 0.1f = 2.49999996... -> 2.5 -> 2.
    EXPECT_EQ(quantize_linear(0.35f, 0.1f, 0, Q::Int8), 4);
    EXPECT_EQ(quantize_linear(0.75f, 0.1f, 0, Q::Int8), 8);
    EXPECT_EQ(quantize_linear(0.25f, 0.1f, 0, Q::Int8), 2);
    // Divided, not multiplied by the reciprocal: 1.55f = 13002342 * 2^-23 over 0.1f is 15.4999993..., whose nearest
    // float is 15.4999990 (floats are 2^-20 apart there): 15, where 1.55f * (1 / 0.1f) gives 15.5 -> 16. The float after
    // 0.75, 0.75 + 2^-24, over 0.3f (10066330 * 2^-25) is 2.5000001..., which rounds to the float 2.5: a tie, 2.
    EXPECT_EQ(quantize_linear(1.55f, 0.1f, 0, Q::Int8), 15);
    EXPECT_EQ(quantize_linear(std::nextafter(0.75f, 1.0f), 0.3f, 0, Q::Int8), 2);
    // Saturation at both ends, after the zero point: 100 + 50 = 150 -> 127; -100 - 50 -> -128; uint8 0..255.
    EXPECT_EQ(quantize_linear(1000.0f, 1.0f, 0, Q::Int8), 127);
    EXPECT_EQ(quantize_linear(-1000.0f, 1.0f, 0, Q::Int8), -128);
    EXPECT_EQ(quantize_linear(100.0f, 1.0f, 50, Q::Int8), 127);
    EXPECT_EQ(quantize_linear(-100.0f, 1.0f, -50, Q::Int8), -128);
    EXPECT_EQ(quantize_linear(77.0f, 1.0f, 50, Q::Int8), 127);
    EXPECT_EQ(quantize_linear(76.0f, 1.0f, 50, Q::Int8), 126);
    EXPECT_EQ(quantize_linear(-78.0f, 1.0f, -50, Q::Int8), -128);
    EXPECT_EQ(quantize_linear(-1.0f, 1.0f, 0, Q::UInt8), 0);
    EXPECT_EQ(quantize_linear(-0.5f, 1.0f, 0, Q::UInt8), 0);  // -0.5 -> -0 -> 0
    EXPECT_EQ(quantize_linear(300.0f, 1.0f, 0, Q::UInt8), 255);
    EXPECT_EQ(quantize_linear(127.5f, 1.0f, 128, Q::UInt8), 255);  // 128 + 128 = 256 -> 255
    EXPECT_EQ(quantize_linear(-128.5f, 1.0f, 128, Q::UInt8), 0);   // -128 + 128
    // 4 bits: int4 -8..7, uint4 0..15.
    EXPECT_EQ(quantize_linear(6.5f, 1.0f, 0, Q::Int4), 6);
    EXPECT_EQ(quantize_linear(7.5f, 1.0f, 0, Q::Int4), 7);   // 8 -> 7
    EXPECT_EQ(quantize_linear(-8.5f, 1.0f, 0, Q::Int4), -8);  // a tie to -8
    EXPECT_EQ(quantize_linear(-9.5f, 1.0f, 0, Q::Int4), -8);  // -10 -> -8
    EXPECT_EQ(quantize_linear(-2.0f, 1.0f, -7, Q::Int4), -8);  // -9 -> -8
    EXPECT_EQ(quantize_linear(3.0f, 1.0f, -7, Q::Int4), -4);
    EXPECT_EQ(quantize_linear(-3.4f, 1.0f, 4, Q::UInt4), 1);
    EXPECT_EQ(quantize_linear(14.5f, 1.0f, 0, Q::UInt4), 14);
    EXPECT_EQ(quantize_linear(15.5f, 1.0f, 0, Q::UInt4), 15);
    EXPECT_EQ(quantize_linear(-0.6f, 1.0f, 0, Q::UInt4), 0);
    // Quotients that are not a number or beyond 2^31 (a zero scale among them): no value, where ONNX Runtime's
    // kernels disagree. 2147483520 is the largest float below 2^31: it saturates.
    EXPECT_EQ(quantize_linear(1.0f, 0.0f, 0, Q::Int8), std::nullopt);
    EXPECT_EQ(quantize_linear(0.0f, 0.0f, 0, Q::Int8), std::nullopt);
    EXPECT_EQ(quantize_linear(std::numeric_limits<float>::quiet_NaN(), 1.0f, 0, Q::Int8), std::nullopt);
    EXPECT_EQ(quantize_linear(-std::numeric_limits<float>::infinity(), 1.0f, 0, Q::Int8), std::nullopt);
    EXPECT_EQ(quantize_linear(2147483648.0f, 1.0f, 0, Q::Int8), std::nullopt);
    EXPECT_EQ(quantize_linear(-2147483648.0f, 1.0f, 0, Q::Int8), std::nullopt);
    EXPECT_EQ(quantize_linear(2147483520.0f, 1.0f, 0, Q::Int8), 127);
    EXPECT_EQ(quantize_linear(-2147483520.0f, 1.0f, 0, Q::UInt4), 0);
}

// Packing worked by hand: 4-bit values two a byte, element 2k of a row in the low nibble of byte k, each row padded
// (the table's file); ONNX's flat packing read back.
TEST(FakeQuantization, FourBitValuesPackTwoAByte) {
    using kernelgen::pack_rows;
    using Q = kernelgen::KernelSpec::QuantizedType;
    // int4 1, -2 (0xE), 3, -8 (0x8), 7: bytes 0xE1, 0x83, 0x07.
    EXPECT_EQ(pack_rows({1, -2, 3, -8, 7}, {5}, Q::Int4), std::string("\xE1\x83\x07", 3));
    // Two rows of three uint4 values: each row padded to two bytes.
    EXPECT_EQ(pack_rows({1, 2, 3, 4, 5, 15}, {2, 3}, Q::UInt4), std::string("\x21\x03\x54\x0F", 4));
    EXPECT_EQ(pack_rows({1, 2, 3, 4}, {2, 2}, Q::UInt4), std::string("\x21\x43", 2));
    EXPECT_EQ(pack_rows({-1, 5, -128, 127}, {4}, Q::Int8), std::string("\xFF\x05\x80\x7F", 4));
    EXPECT_EQ(pack_rows({0, 255}, {2}, Q::UInt8), std::string("\x00\xFF", 2));
    // ONNX's INT4 and UINT4 tensors: flat, low nibble first; an odd count leaves the last high nibble unused.
    EXPECT_EQ(kernelgen::unpack_onnx_4bit(std::string("\xE1\x83\x07", 3), 5, true), (std::vector<int32_t>{1, -2, 3, -8, 7}));
    EXPECT_EQ(kernelgen::unpack_onnx_4bit(std::string("\xE1\x83\x07", 3), 5, false), (std::vector<int32_t>{1, 14, 3, 8, 7}));
    EXPECT_EQ(kernelgen::unpack_onnx_4bit(std::string("\xF0", 1), 2, true), (std::vector<int32_t>{0, -1}));
}

// Fake-quantized chains that cannot be fused keep the float data a parameter, each with a note that says why: the
// QuantizeLinear's scale not a constant, a float64 weight, a quotient beyond 2^31 (a zero scale), a Clip whose bound
// is not a constant, a Gather along axis 1, a DequantizeLinear whose scale fits no quantization, a 4-bit zero point
// not in raw_data, 4-bit values whose dims make 2^80. A QuantizeLinear of a graph input (activations quantized at run
// time) is no table: no note. With --weights caller, nothing is fused.
TEST(FakeQuantization, ChainsNotFusedSayWhy) {
    const int32_t kInt8 = onnx::TensorProto::INT8, kDouble = onnx::TensorProto::DOUBLE;
    Model m(13);
    m.input("ids", kInt64, {2});
    m.input("live_scale", kFloat, {});
    m.input("live_bound", kInt8, {});
    m.input("activations", kFloat, {4, 6});
    auto floats = [&](const std::string& name, int32_t type, const std::vector<int64_t>& dims, const std::vector<float>& values) {
        onnx::TensorProto* t = m.proto().mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(type);
        for (int64_t d : dims) t->add_dims(d);
        if (type == kDouble) {
            const std::vector<double> wide(values.begin(), values.end());
            const auto bytes = cprogram::bytes_of(wide);
            t->set_raw_data(std::string(bytes.begin(), bytes.end()));
        } else {
            const auto bytes = cprogram::bytes_of(values);
            t->set_raw_data(std::string(bytes.begin(), bytes.end()));
        }
    };
    floats("w", kFloat, {4, 6}, std::vector<float>(24, 0.25f));
    floats("w64", kDouble, {4, 6}, std::vector<float>(24, 0.25f));
    floats("s", kFloat, {}, {0.5f});
    floats("s0", kFloat, {6}, {0.5f, 0.5f, 0.0f, 0.5f, 0.5f, 0.5f});
    floats("s5", kFloat, {5}, {0.5f, 0.5f, 0.5f, 0.5f, 0.5f});
    floats("s64", kDouble, {}, {0.5f});
    for (const auto& [name, dims] : std::map<std::string, std::vector<int64_t>>{{"z", {}}, {"z6", {6}}}) {
        onnx::TensorProto* t = m.proto().mutable_graph()->add_initializer();  // int8 zeros, one a byte
        t->set_name(name);
        t->set_data_type(kInt8);
        for (int64_t d : dims) t->add_dims(d);
        t->set_raw_data(std::string(dims.empty() ? 1 : 6, '\0'));
    }
    // Each chain: QuantizeLinear(w, scale, zero) [-> Clip] -> DequantizeLinear(., s, z) -> Gather(., ids).
    auto chain = [&](const std::string& name, const std::string& w, const std::string& scale, const std::string& zero,
                     int64_t q_axis, const std::string& dq_scale, int64_t gather_axis, bool clip) {
        auto& q = m.node("QuantizeLinear", {w, scale, zero}, name + "_q", name + "_quantize");
        if (q_axis >= 0) Model::attribute(q, "axis", q_axis);
        std::string quantized = name + "_q";
        if (clip) {
            m.node("Clip", {quantized, "live_bound", ""}, name + "_c", name + "_clip");
            quantized = name + "_c";
        }
        m.node("DequantizeLinear", {quantized, dq_scale, dq_scale == "s" ? "z" : "z6"}, name + "_t", name + "_dequantize");
        auto& gather = m.node("Gather", {name + "_t", "ids"}, name, name);
        Model::attribute(gather, "axis", gather_axis);
        m.output(name, kFloat, gather_axis == 0 ? std::vector<int64_t>{2, 6} : std::vector<int64_t>{4, 2});
    };
    chain("live", "w", "live_scale", "z", -1, "s", 0, false);
    chain("wide", "w64", "s64", "z", -1, "s", 0, false);
    chain("zero_scale", "w", "s0", "z6", 1, "s", 0, false);
    chain("clipped", "w", "s", "z", -1, "s", 0, true);
    chain("columns", "w", "s", "z", -1, "s", 1, false);
    chain("five", "w", "s", "z", -1, "s5", 0, false);
    chain("activations", "activations", "s", "z", -1, "s", 0, false);
    chain("fine", "w", "s", "z", -1, "s", 0, false);
    // 4-bit constants ONNX Runtime would not read as such: a zero point in int32_data, values whose dims make 2^80.
    onnx::TensorProto* typed = m.proto().mutable_graph()->add_initializer();
    typed->set_name("z4");
    typed->set_data_type(22);  // INT4
    typed->add_int32_data(3);
    chain("typed_int4", "w", "s", "z4", -1, "s", 0, false);
    onnx::TensorProto* huge = m.proto().mutable_graph()->add_initializer();
    huge->set_name("huge");
    huge->set_data_type(21);  // UINT4
    huge->add_dims(int64_t{1} << 40);
    huge->add_dims(int64_t{1} << 40);
    m.node("DequantizeLinear", {"huge", "s"}, "huge_t", "huge_dequantize");
    m.node("Gather", {"huge_t", "ids"}, "huge", "huge");
    m.output("huge", kFloat, {2, int64_t{1} << 40});
    const auto result = kernelgen::import_model(m.bytes(), "fake.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    std::map<std::string, const kernelgen::ImportedKernel*> kernels;
    for (const auto& k : result.kernels) kernels[k.node.name] = &k;
    ASSERT_EQ(kernels.size(), 9u);
    EXPECT_TRUE(kernels.at("fine")->spec.quantization.has_value());
    for (const char* name : {"live", "wide", "zero_scale", "clipped", "columns", "five", "activations"}) {
        EXPECT_FALSE(kernels.at(name)->spec.constant_data.has_value()) << name;
    }
    auto note = [](const std::string& node, int position, const std::string& why) {
        return "node \"" + node + "\" (Gather, #" + std::to_string(position) + "): its data comes from DequantizeLinear \"" +
               node + "_dequantize\", which stays outside the kernel (float data, a parameter): " + why;
    };
    const std::vector<std::string> notes{
        note("live", 2, "QuantizeLinear \"live_quantize\" of constant \"w\" is not quantized at import: its scale or zero "
                        "point is not a constant"),
        note("wide", 5, "QuantizeLinear \"wide_quantize\" of constant \"w64\" is not quantized at import: it quantizes "
                        "DOUBLE values (FLOAT and FLOAT16 are quantized at import)"),
        note("zero_scale", 8, "QuantizeLinear \"zero_scale_quantize\" of constant \"w\" is not quantized at import: "
                              "element 2 of its input divided by its scale is inf (ONNX Runtime's kernels quantize a "
                              "quotient that is not a number or beyond 2^31 in magnitude differently)"),
        note("clipped", 12, "its values pass through Clip \"clipped_clip\", whose bounds are not constant inputs"),
        note("columns", 15, "the Gather is along axis 1 (a quantized table is gathered along axis 0)"),
        note("five", 18, "its scale of shape [5] fits no quantization of [4, 6]"),
        note("typed_int4", 27, "QuantizeLinear \"typed_int4_quantize\" of constant \"w\" is not quantized at import: its "
                               "zero point \"z4\" cannot be read: its 4-bit values are not in raw_data, two a byte (1 "
                               "bytes), in the model file"),
        note("huge", 29, "its values \"huge\" cannot be read: its dims make more than 33554432 4-bit values")};
    EXPECT_EQ(result.notes, notes);
    // Those values' Gather is skipped too (its float data would be beyond any kernel's).
    ASSERT_EQ(result.skipped.size(), 1u);
    EXPECT_EQ(result.skipped.front().node.name, "huge") << result.skipped.front().reason;

    kernelgen::ImportOptions caller;
    caller.weights_in_kernel = false;
    const auto kept = kernelgen::import_model(m.bytes(), "fake.onnx", caller);
    EXPECT_EQ(kept.kernels.size(), 9u);
    EXPECT_TRUE(kept.notes.empty());
    for (const auto& k : kept.kernels) EXPECT_FALSE(k.spec.quantization.has_value()) << k.name;
}

// Fake-quantized tables, fused and bit-exact with ONNX Runtime: QuantizeLinear of a constant float weight, then
// DequantizeLinear, then Gather. Weights in steps of their scale with halves (ties: power-of-2 scales make the
// quotients exact) and beyond the type's range at both ends (saturation); per tensor (int8 with a negative zero point,
// uint8, uint8 by default without a zero point), per axis (int8 per column, uint8 per row), blocked (opset 21: int8
// in blocks of 3 along the columns, uint8 in blocks of 4 along the rows), 4 bits (opset 21: int4 per tensor, uint4
// per column, int4 in blocks along an odd row, uint4 by output_dtype), float16 weights and scales (opset 19), a Clip
// to 0..127 between (as PyTorch exports quant_max 127), and a DequantizeLinear with scales of its own. Each model runs
// in ONNX Runtime, gathering every row; its import makes one kernel holding the quantized table, whose spec files
// read back to it; the kernel, compiled with the sanitizers, gives ONNX Runtime's output of the Gather bit for bit, and
// an index out of range leaves the output untouched (ONNX Runtime fails the run).
TEST(ImportOrt, FakeQuantizedTablesAgreeWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    std::mt19937_64 rng(20261128);
    auto uniform = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    auto count = [](const std::vector<int64_t>& dims) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        return static_cast<size_t>(n);
    };
    const int32_t kInt8 = onnx::TensorProto::INT8, kUInt8 = onnx::TensorProto::UINT8, kHalf = onnx::TensorProto::FLOAT16;
    const int32_t kUInt4 = 21, kInt4 = 22;  // ONNX 1.16's UINT4 and INT4
    auto raw = [](Model& m, const std::string& name, int32_t type, const std::vector<int64_t>& dims, const std::vector<uint8_t>& bytes) {
        onnx::TensorProto* t = m.proto().mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(type);
        for (int64_t d : dims) t->add_dims(d);
        t->set_raw_data(std::string(bytes.begin(), bytes.end()));
    };
    // Float values as the weight's type stores them (float16: every value here is exact in it).
    auto reals = [](const std::vector<double>& values, int32_t type) {
        std::vector<uint8_t> out;
        for (double v : values) {
            if (type == kFloat) {
                const auto bytes = cprogram::bytes_of(std::vector<float>{static_cast<float>(v)});
                out.insert(out.end(), bytes.begin(), bytes.end());
                continue;
            }
            const uint16_t bits = halfref::from_double(v, halfref::kFloat16);
            out.push_back(static_cast<uint8_t>(bits & 0xFF));
            out.push_back(static_cast<uint8_t>(bits >> 8));
        }
        return out;
    };
    struct Case {
        std::string label;
        int64_t opset;
        int32_t x_type;  // FLOAT or FLOAT16: the weight's and the scales' type
        int32_t q_type;  // the quantized type: INT8, UINT8, INT4, UINT4
        std::vector<int64_t> data, scales;
        bool zeros;  // zero points given (else the type comes from output_dtype, or uint8)
        std::vector<std::pair<std::string, int64_t>> attributes;  // on QuantizeLinear and DequantizeLinear
        bool pow2;          // scales powers of 2 (ties exact), else random
        bool clip = false;  // a Clip to 0..127 between
        bool own_dq_scales = false;
        std::string type;
    };
    const std::vector<Case> cases{
        {"int8 per tensor, a negative zero point", 13, kFloat, kInt8, {10, 8}, {}, true, {}, true, false, false, "int8"},
        {"uint8 per tensor, a random scale", 13, kFloat, kUInt8, {10, 8}, {}, true, {}, false, false, false, "uint8"},
        {"uint8 per tensor by default, no zero point", 13, kFloat, kUInt8, {10, 8}, {}, false, {}, true, false, false, "uint8"},
        {"int8 per column", 13, kFloat, kInt8, {10, 8}, {8}, true, {{"axis", 1}}, false, false, false, "int8"},
        {"uint8 per row, powers of 2", 13, kFloat, kUInt8, {10, 8}, {10}, true, {{"axis", 0}}, true, false, false, "uint8"},
        {"int8 in blocks of 3 along the columns", 21, kFloat, kInt8, {10, 8}, {10, 3}, true, {{"axis", 1}, {"block_size", 3}}, true, false, false, "int8"},
        {"uint8 in blocks of 4 along the rows", 21, kFloat, kUInt8, {10, 8}, {3, 8}, true, {{"axis", 0}, {"block_size", 4}}, false, false, false, "uint8"},
        {"int4 per tensor", 21, kFloat, kInt4, {10, 8}, {}, true, {}, true, false, false, "int4"},
        {"uint4 per column", 21, kFloat, kUInt4, {10, 8}, {8}, true, {{"axis", 1}}, false, false, false, "uint4"},
        {"int4 in blocks of 4 along rows of 7", 21, kFloat, kInt4, {10, 7}, {10, 2}, true, {{"axis", 1}, {"block_size", 4}}, true, false, false, "int4"},
        {"uint4 by output_dtype, no zero point", 21, kFloat, kUInt4, {10, 8}, {}, false, {}, true, false, false, "uint4"},
        {"float16 weight, int8 per column", 19, kHalf, kInt8, {10, 8}, {8}, true, {{"axis", 1}}, true, false, false, "int8"},
        {"uint8 clipped to 0..127", 13, kFloat, kUInt8, {10, 8}, {}, true, {}, true, true, false, "uint8"},
        {"int8 per column, DequantizeLinear's own scales", 13, kFloat, kInt8, {10, 8}, {8}, true, {{"axis", 1}}, false, false, true, "int8"},
    };
    size_t n = 0;
    std::vector<kernelgen::KernelSpec> kernels;
    std::vector<cprogram::Case> runs;
    std::vector<fs::path> reports;
    for (const Case& test : cases) {
        SCOPED_TRACE(test.label);
        const bool four = test.q_type == kInt4 || test.q_type == kUInt4;
        const bool is_signed = test.q_type == kInt4 || test.q_type == kInt8;
        Model m(test.opset);
        const std::vector<int64_t> indices_dims{test.data[0]};
        m.input("ids", kInt64, indices_dims);
        // Scales: 2^-k (k 3..6), or random ones near 0.01 (float32, 24 random bits); the weights in steps of one
        // `base`: the scale itself for one scale (halves are ties, or next to ties after float division), else 2^-5.
        auto scale_values = [&](size_t k) {
            std::vector<double> out;
            for (size_t i = 0; i < k; ++i) {
                out.push_back(test.pow2 ? std::ldexp(1.0, -static_cast<int>(uniform(test.x_type == kHalf ? 4 : 3, test.x_type == kHalf ? 4 : 6)))
                                        : static_cast<float>(std::ldexp(static_cast<double>(uniform(1 << 23, (1 << 24) - 1)), -30)));
            }
            return out;
        };
        const std::vector<double> scales = scale_values(count(test.scales));
        const double base = test.x_type == kHalf ? 1.0 / 16 : test.scales.empty() ? scales.front() : 1.0 / 32;
        // Weights: half steps of `base` within the type's range (ties where the scale is base), whole steps, steps far
        // beyond the range on either side, and random ones, a quarter each.
        const int64_t range = four ? 10 : 160;
        std::vector<double> weights;
        for (size_t i = 0; i < count(test.data); ++i) {
            const int64_t kind = uniform(0, 3);
            const double steps = kind == 0 ? static_cast<double>(uniform(-range / 2, range / 2)) + 0.5
                                 : kind == 1 ? static_cast<double>(uniform(0, 1) ? 4 * range : -4 * range)
                                 : kind == 2 ? static_cast<double>(uniform(-range, range))
                                             : static_cast<double>(uniform(-4 * range * 64, 4 * range * 64)) / 64;
            weights.push_back(steps * base);
        }
        raw(m, "w", test.x_type, test.data, reals(weights, test.x_type));
        raw(m, "s", test.x_type, test.scales, reals(scales, test.x_type));
        if (test.own_dq_scales) raw(m, "s2", test.x_type, test.scales, reals(scale_values(count(test.scales)), test.x_type));
        std::vector<std::string> q_inputs{"w", "s"}, dq_inputs{"q", test.own_dq_scales ? "s2" : "s"};
        if (test.zeros) {
            std::vector<int32_t> zeros;
            for (size_t i = 0; i < count(test.scales); ++i) {
                // Near the middle of the range, so that the half steps (ties) stay inside it.
                zeros.push_back(static_cast<int32_t>(four ? (is_signed ? uniform(-2, 2) : uniform(6, 9))
                                                          : (is_signed ? uniform(-20, 20) : uniform(108, 148))));
            }
            if (test.label.find("negative") != std::string::npos) zeros = {-37};
            std::vector<uint8_t> bytes;
            for (size_t i = 0; i < zeros.size(); ++i) {
                const auto byte = static_cast<uint8_t>(zeros[i] & (four ? 15 : 255));
                if (!four || i % 2 == 0) bytes.push_back(byte);
                else bytes.back() = static_cast<uint8_t>(bytes.back() | byte << 4);
            }
            raw(m, "z", test.q_type, test.scales, bytes);
            q_inputs.push_back("z");
            dq_inputs.push_back("z");
        }
        auto& q = m.node("QuantizeLinear", q_inputs, "q", "quantize");
        if (!test.zeros && test.q_type != kUInt8) Model::attribute(q, "output_dtype", int64_t{test.q_type});
        if (test.clip) {
            raw(m, "top", kUInt8, {}, {127});
            q.set_output(0, "q_raw");
            m.node("Clip", {"q_raw", "", "top"}, "q", "clip");
        }
        auto& dq = m.node("DequantizeLinear", dq_inputs, "table", "dequantize");
        for (const auto& [name, value] : test.attributes) {
            Model::attribute(q, name, value);
            Model::attribute(dq, name, value);
        }
        m.node("Gather", {"table", "ids"}, "rows", "lookup");
        const std::vector<int64_t> out_dims{test.data[0], test.data[1]};
        m.output("rows", test.x_type, out_dims);
        const fs::path dir = fresh_dir("fake_quantized_ort_" + std::to_string(n++));
        std::vector<int64_t> ids;  // every row once, every other one counted from the back
        for (int64_t i = 0; i < test.data[0]; ++i) ids.push_back(i % 2 ? i : i - test.data[0]);
        std::vector<uint8_t> expected;
        kernelgen::ImportResult result;
        ASSERT_NO_FATAL_FAILURE(import_quantized(dir, m, indices_dims, cprogram::bytes_of(ids), false, test.type, expected, result));
        EXPECT_TRUE(result.notes.empty()) << result.notes.front();
        const json report = json::parse(result.report);
        const json& held = report.at("nodes").at(0).at("weights");
        EXPECT_EQ(held.at("tensor"), "w") << result.report;
        EXPECT_EQ(held.at("quantized").at("type"), test.type) << result.report;
        EXPECT_EQ(held.at("quantized").at("dequantized_by"), "DequantizeLinear \"dequantize\"") << result.report;
        EXPECT_EQ(held.at("quantized").at("quantized_by"),
                  std::string("QuantizeLinear \"quantize\"") + (test.clip ? " and Clip \"clip\"" : "")) << result.report;
        std::vector<int64_t> bad = ids;
        bad[2] = test.data[0];
        add_quantized_cases(dir, result, "fake_quantized_" + std::to_string(n), test.label, cprogram::bytes_of(ids),
                            cprogram::bytes_of(bad), expected, kernels, runs);
        reports.push_back(dir / "specs" / "model.import.json");
    }
    run_cases(fresh_dir("fake_quantized_ort_kernels"), kernels, runs);
    // The reports, with their "quantized_by", match the report's schema (when python3-jsonschema is there).
    if (const auto checked = check_reports(reports)) EXPECT_EQ(checked->status, 0) << checked->out;
}

// A scatter's data or updates that are constants of the model (initializers, or zeros ConstantOfShape makes of a
// constant shape) travel with its kernel, which takes only what varies: each model run in ONNX Runtime and its
// kernel, from the spec files import writes, giving the same output bit for bit; an index out of range refused.
TEST(ImportOrt, ScatterConstantsAgreeWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    std::mt19937_64 rng(20261127);
    auto uniform = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    auto floats = [&](size_t n) {
        std::vector<float> out;
        for (size_t i = 0; i < n; ++i) out.push_back(static_cast<float>(uniform(-64, 64)) / 8.0f);
        return out;
    };
    auto float_initializer = [](Model& m, const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values) {
        onnx::TensorProto* t = m.proto().mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(kFloat);
        for (int64_t d : dims) t->add_dims(d);
        const auto bytes = cprogram::bytes_of(values);
        t->set_raw_data(std::string(bytes.begin(), bytes.end()));
    };
    struct Case {
        std::string label;
        std::string op;         // ScatterND or ScatterElements
        std::string reduction;  // "" for none
        int64_t axis;
        std::vector<int64_t> data, indices, updates;
        std::string data_from;     // "initializer", "zeros" (ConstantOfShape of a constant shape) or "input"
        bool updates_constant;
        int32_t index_type;
    };
    const std::vector<Case> cases{
        {"ScatterND into a constant table", "ScatterND", "", 0, {6, 4}, {3, 1}, {3, 4}, "initializer", false, kInt64},
        {"ScatterND of constant updates", "ScatterND", "", 0, {6, 4}, {2, 1}, {2, 4}, "input", true, kInt64},
        {"ScatterND, both constant, reduction mul", "ScatterND", "mul", 0, {4, 3, 2}, {5, 2}, {5, 2}, "initializer", true, kInt64},
        {"ScatterElements counting into zeros (a histogram)", "ScatterElements", "add", 0, {8}, {12}, {12}, "zeros", true, kInt64},
        {"ScatterElements along axis 1, both constant, reduction max", "ScatterElements", "max", 1, {3, 5}, {3, 4}, {3, 4}, "initializer", true, kInt32},
        {"ScatterElements into zeros, updates passed", "ScatterElements", "", 1, {2, 6}, {2, 3}, {2, 3}, "zeros", false, kInt32},
    };
    auto count = [](const std::vector<int64_t>& dims) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        return static_cast<size_t>(n);
    };
    size_t n = 0, held_data = 0, held_updates = 0;
    std::vector<kernelgen::KernelSpec> kernels;
    std::vector<cprogram::Case> runs;
    for (const Case& test : cases) {
        SCOPED_TRACE(test.label);
        Model m(18);
        json feeds = json::object();
        std::vector<float> data_values = floats(count(test.data)), update_values = floats(count(test.updates));
        if (test.data_from == "initializer") {
            float_initializer(m, "base", test.data, data_values);
        } else if (test.data_from == "zeros") {
            m.initializer("base_shape", kInt64, {static_cast<int64_t>(test.data.size())}, test.data);
            m.node("ConstantOfShape", {"base_shape"}, "base", "zeros");  // float 0, its default
            data_values.assign(data_values.size(), 0.0f);
        } else {
            m.input("base", kFloat, test.data);
            feeds["base"] = {{"type", "float32"}, {"dims", test.data}, {"hex", cprogram::hex(cprogram::bytes_of(data_values))}};
        }
        if (test.updates_constant) {
            float_initializer(m, "values", test.updates, update_values);
        } else {
            m.input("values", kFloat, test.updates);
            feeds["values"] = {{"type", "float32"}, {"dims", test.updates}, {"hex", cprogram::hex(cprogram::bytes_of(update_values))}};
        }
        m.input("where", test.index_type, test.indices);
        // Indices: ScatterND's rows distinct (a reduction's order is then that of ONNX Runtime too); the others random,
        // duplicates and negative ones included.
        std::vector<int64_t> where;
        if (test.op == "ScatterND") {
            const int64_t k = test.indices.back();
            std::set<std::vector<int64_t>> seen;
            while (where.size() < count(test.indices)) {
                std::vector<int64_t> tuple;
                for (int64_t j = 0; j < k; ++j) tuple.push_back(uniform(0, test.data[static_cast<size_t>(j)] - 1));
                if (!seen.insert(tuple).second) continue;
                for (size_t j = 0; j < tuple.size(); ++j) {
                    where.push_back(uniform(0, 1) ? tuple[j] - test.data[j] : tuple[j]);
                }
            }
        } else {
            const int64_t size = test.data[static_cast<size_t>(test.axis)];
            for (size_t i = 0; i < count(test.indices); ++i) where.push_back(uniform(-size, size - 1));
        }
        auto index_bytes = [&](const std::vector<int64_t>& values) {
            return test.index_type == kInt32 ? cprogram::bytes_of(std::vector<int32_t>(values.begin(), values.end()))
                                             : cprogram::bytes_of(values);
        };
        feeds["where"] = {{"type", test.index_type == kInt32 ? "int32" : "int64"}, {"dims", test.indices},
                          {"hex", cprogram::hex(index_bytes(where))}};
        auto& scatter = m.node(test.op, {"base", "where", "values"}, "out", "scatter");
        if (!test.reduction.empty()) Model::attribute(scatter, "reduction", test.reduction);
        if (test.op == "ScatterElements") Model::attribute(scatter, "axis", test.axis);
        m.output("out", kFloat, test.data);
        const fs::path dir = fresh_dir("scatter_constants_ort_" + std::to_string(n++));
        write_text(dir / "model.onnx", m.bytes());
        write_text(dir / "inputs.json", feeds.dump());
        std::string log;
        const json outputs = run_ort(dir / "model.onnx", dir / "inputs.json", dir / "outputs.json", log);
        ASSERT_FALSE(outputs.is_null()) << log;
        const std::vector<uint8_t> expected = cprogram::unhex(outputs.at("out").at("hex").get<std::string>());

        const auto result = kernelgen::import_model(m.bytes(), "model.onnx");
        ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
        ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
        ASSERT_EQ(result.kernels.size(), 1u);
        const auto& kernel = result.kernels.front();
        const bool data_constant = test.data_from != "input";
        EXPECT_EQ(kernel.spec.constant_data.has_value(), data_constant) << kernel.spec_text;
        EXPECT_EQ(kernel.spec.constant_updates.has_value(), test.updates_constant) << kernel.spec_text;
        const json weights = json::parse(result.report).at("nodes").at(0).value("weights", json());
        EXPECT_EQ(weights.contains("data_file"), data_constant) << result.report;
        EXPECT_EQ(weights.value("updates_tensor", ""), test.updates_constant ? "values" : "") << result.report;
        held_data += data_constant;
        held_updates += test.updates_constant;
        // The files import writes read back to the kernel's very tables; the prototype drops what they hold.
        ASSERT_TRUE(kernelgen::write_outputs(dir / "specs", kernelgen::import_outputs(result, "model.onnx")).error.empty());
        std::vector<kernelgen::Diagnostic> diagnostics;
        const auto read = kernelgen::parse_spec_file((dir / "specs" / (kernel.name + ".json")).string(), diagnostics);
        ASSERT_EQ(read.size(), 1u) << (diagnostics.empty() ? "" : diagnostics.front().str());
        if (data_constant) EXPECT_EQ(read[0].constant_data->bytes, cprogram::bytes_of(data_values));
        if (test.updates_constant) EXPECT_EQ(read[0].constant_updates->bytes, cprogram::bytes_of(update_values));
        kernelgen::KernelSpec spec = read[0];
        spec.name = "scatter_constants_" + std::to_string(n);
        const std::string header = kernelgen::generate({spec}).files.at(0).content;  // <name>.h
        EXPECT_EQ(header.find("*data,") == std::string::npos, data_constant) << header;
        EXPECT_EQ(header.find("*updates,") == std::string::npos, test.updates_constant) << header;
        runs.push_back(make_case(spec, test.label, cprogram::bytes_of(data_values), index_bytes(where),
                                 cprogram::bytes_of(update_values), expected));
        std::vector<int64_t> bad = where;
        bad[1] = test.data[test.op == "ScatterND" ? static_cast<size_t>(1 % test.indices.back()) : static_cast<size_t>(test.axis)];
        runs.push_back(make_case(spec, test.label + ", an index out of range", cprogram::bytes_of(data_values),
                                 index_bytes(bad), cprogram::bytes_of(update_values),
                                 std::vector<uint8_t>(expected.size(), cprogram::kSentinel)));
        runs.back().expected_status = -1;
        kernels.push_back(spec);
    }
    EXPECT_EQ(held_data, 5u);
    EXPECT_EQ(held_updates, 4u);
    run_cases(fresh_dir("scatter_constants_ort_kernels"), kernels, runs);
}

// TensorScatter (opset 24), the KV-cache update: models built with ONNX's input order (past_cache, update, optional
// write_indices) and run by ONNX Runtime 1.30; import gives one spec each, whose kernel, out of place and in place,
// gives ONNX Runtime's present cache bit for bit and refuses what ONNX Runtime refuses (a negative write index; in
// linear mode one past max_sequence_length - sequence_length), leaving the output untouched. The circular cases
// have a batch larger than the cache (onnx/onnx#8353: only the sequence coordinate wraps) and a write index of
// INT64_MAX. A symbolic batch is bound by --dim, and the Gather reading the present cache gets its shape from the
// shape rule import supplies (ONNX 1.12's inference does not know opset 24).
TEST(ImportOrt, TensorScatterAgreesWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    constexpr int32_t kFloat16 = onnx::TensorProto::FLOAT16;
    std::mt19937_64 rng(20261126);
    auto uniform = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    struct Case {
        std::string label;
        std::string mode;  // "" leaves the attribute out (linear)
        std::optional<int64_t> axis;  // nothing leaves it out (-2)
        std::vector<int64_t> cache, update;
        std::optional<std::vector<int64_t>> write_indices;  // nothing: the node leaves the input out
        int32_t type;
        bool symbolic_batch;  // the batch is "N", bound by --dim N=<batch>, and a Gather reads the present cache
    };
    const std::vector<Case> cases{
        {"linear decode step at each row's own position", "", std::nullopt, {2, 3, 8, 4}, {2, 3, 1, 4},
         std::vector<int64_t>{0, 7}, kFloat, false},
        {"linear prefill without write_indices", "linear", std::nullopt, {2, 2, 6, 3}, {2, 2, 4, 3}, std::nullopt, kFloat, false},
        {"circular, batch 5 over a cache of 4 (onnx/onnx#8353)", "circular", 1, {5, 4, 1}, {5, 2, 1},
         std::vector<int64_t>{0, 3, 6, INT64_MAX, 9}, kFloat, false},
        {"circular float16 along the last axis", "circular", -1, {2, 2, 6}, {2, 2, 4}, std::vector<int64_t>{5, 4}, kFloat16, false},
        {"circular without write_indices", "circular", 2, {3, 2, 4, 2}, {3, 2, 3, 2}, std::nullopt, kFloat, false},
        {"symbolic batch bound by --dim, then a Gather", "linear", std::nullopt, {3, 2, 4, 2}, {3, 2, 1, 2},
         std::vector<int64_t>{3, 0, 2}, kFloat, true},
    };
    auto count = [](const std::vector<int64_t>& dims) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        return static_cast<size_t>(n);
    };
    // Random elements as bytes: float32 multiples of 1/8, float16 finite patterns.
    auto elements = [&](int32_t type, size_t n) {
        if (type == kFloat) {
            std::vector<float> values;
            for (size_t i = 0; i < n; ++i) values.push_back(static_cast<float>(uniform(-64, 64)) / 8.0f);
            return cprogram::bytes_of(values);
        }
        std::vector<uint16_t> values;
        for (size_t i = 0; i < n; ++i) values.push_back(static_cast<uint16_t>(uniform(0, 0x7bff) | (uniform(0, 1) << 15)));
        return cprogram::bytes_of(values);
    };
    size_t n = 0;
    std::vector<kernelgen::KernelSpec> kernels;
    std::vector<cprogram::Case> runs;
    for (const Case& test : cases) {
        SCOPED_TRACE(test.label);
        Model m(24);
        m.proto().set_ir_version(10);
        const std::string type_name = test.type == kFloat ? "float32" : "float16";
        auto declared = [&](std::vector<int64_t> dims) {
            if (test.symbolic_batch) dims[0] = kDynamic;
            return dims;
        };
        m.input("past", test.type, declared(test.cache));
        m.input("upd", test.type, declared(test.update));
        const std::vector<uint8_t> past = elements(test.type, count(test.cache)), upd = elements(test.type, count(test.update));
        json feeds{{"past", {{"type", type_name}, {"dims", test.cache}, {"hex", cprogram::hex(past)}}},
                   {"upd", {{"type", type_name}, {"dims", test.update}, {"hex", cprogram::hex(upd)}}}};
        std::vector<std::string> node_inputs{"past", "upd"};
        std::vector<uint8_t> where;
        if (test.write_indices) {
            m.input("wi", kInt64, declared({test.cache[0]}));
            node_inputs.emplace_back("wi");
            where = cprogram::bytes_of(*test.write_indices);
            feeds["wi"] = {{"type", "int64"}, {"dims", {test.cache[0]}}, {"hex", cprogram::hex(where)}};
        }
        auto& scatter = m.node("TensorScatter", node_inputs, "present", "kv_update");
        if (!test.mode.empty()) Model::attribute(scatter, "mode", test.mode);
        if (test.axis) Model::attribute(scatter, "axis", *test.axis);
        m.output("present", test.type, declared(test.cache));
        if (test.symbolic_batch) {
            m.initializer("rows", kInt64, {2}, {0, 2});
            Model::attribute(m.node("Gather", {"present", "rows"}, "picked", "pick"), "axis", 0);
            m.output("picked", test.type, {2, test.cache[1], test.cache[2], test.cache[3]});
        }
        const fs::path dir = fresh_dir("tensor_scatter_ort_" + std::to_string(n++));
        write_text(dir / "model.onnx", m.bytes());
        write_text(dir / "inputs.json", feeds.dump());
        std::string log;
        const json outputs = run_ort(dir / "model.onnx", dir / "inputs.json", dir / "outputs.json", log);
        ASSERT_FALSE(outputs.is_null()) << log;
        const std::vector<uint8_t> expected = cprogram::unhex(outputs.at("present").at("hex").get<std::string>());
        ASSERT_EQ(expected.size(), past.size());

        kernelgen::ImportOptions options;
        if (test.symbolic_batch) options.dims["N"] = test.cache[0];
        const auto result = kernelgen::import_model(m.bytes(), "model.onnx", options);
        ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
        ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
        ASSERT_EQ(result.kernels.size(), test.symbolic_batch ? 2u : 1u);
        const auto& kernel = result.kernels.front();
        EXPECT_EQ(kernel.spec.op, kernelgen::Op::TensorScatter);
        EXPECT_EQ(kernel.spec.data_shape, kernelgen::Shape(test.cache.begin(), test.cache.end()));
        EXPECT_EQ(kernel.spec.mode == kernelgen::KernelSpec::WriteMode::Circular, test.mode == "circular");
        // Without write_indices the kernel holds them: zeros, one per batch row.
        EXPECT_EQ(kernel.spec.constant_indices.has_value(), !test.write_indices) << kernel.spec_text;
        if (test.symbolic_batch) {
            // The Gather after it: its data is the present cache, of the shape import's rule gave it.
            EXPECT_EQ(result.kernels[1].spec.data_shape, kernelgen::Shape(test.cache.begin(), test.cache.end()));
        }
        kernelgen::KernelSpec spec = kernel.spec;
        spec.name = "tensor_scatter_" + std::to_string(n);
        for (bool in_place : {false, true}) {
            runs.push_back(make_case(spec, test.label + (in_place ? ", in place" : ""), past, where, upd, expected, in_place));
        }
        if (test.write_indices) {
            std::vector<int64_t> bad = *test.write_indices;
            const size_t axis = static_cast<size_t>(spec.axis);
            bad[1] = test.mode == "circular" ? -1 : test.cache[axis] - test.update[axis] + 1;
            for (bool in_place : {false, true}) {
                runs.push_back(make_case(spec, test.label + ", write index " + std::to_string(bad[1]) + (in_place ? ", in place" : ""),
                                         past, cprogram::bytes_of(bad), upd,
                                         in_place ? past : std::vector<uint8_t>(expected.size(), cprogram::kSentinel), in_place));
                runs.back().expected_status = -1;
            }
        }
        kernels.push_back(spec);
    }
    run_cases(fresh_dir("tensor_scatter_ort_kernels"), kernels, runs);
}

// Two counts: boxes kept by a mask (NonZero: K rows, at most 20), and the best k of them by score (TopK, k at run
// time): Gather(kept_boxes, top_idx) imports as one spec with both counts, and its kernel, called with ONNX Runtime's
// K rows of kept_boxes as data (data_count K), its top_idx as the first k rows of indices (the rest hostile) and k,
// gives ONNX Runtime's result bit for bit, the output rows beyond k untouched.
TEST(ImportOrt, TwoCountsAgreeWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    Model m(18);
    m.input("scores", kFloat, {20});
    m.input("boxes", kFloat, {20, 4});
    m.input("t", kFloat, {});
    m.input("k", kInt64, {1});
    m.initializer("axes0", kInt64, {1}, {0});
    m.node("Greater", {"scores", "t"}, "mask", "greater");
    m.node("NonZero", {"mask"}, "nz", "nonzero");                          // [1, K]
    m.node("Squeeze", {"nz", "axes0"}, "idx", "squeeze");                  // [K]
    m.node("Gather", {"boxes", "idx"}, "kept_boxes", "kept_boxes");        // [K, 4]
    m.node("Gather", {"scores", "idx"}, "kept_scores", "kept_scores");     // [K]
    m.node("TopK", {"kept_scores", "k"}, "top_values", "topk").add_output("top_idx");  // [k], each in [0, K-1]
    m.node("Gather", {"kept_boxes", "top_idx"}, "best", "best");           // both counted
    for (const std::string name : {"kept_boxes", "top_idx", "best"}) {      // outputs of run-time shapes
        auto* output = m.proto().mutable_graph()->add_output();
        output->set_name(name);
        output->mutable_type()->mutable_tensor_type()->set_elem_type(name == "top_idx" ? kInt64 : kFloat);
    }
    const auto result = kernelgen::import_model(m.bytes(), "two_counts.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    const kernelgen::ImportedKernel* best = nullptr;
    for (const auto& kernel : result.kernels) best = kernel.name == "best" ? &kernel : best;
    ASSERT_NE(best, nullptr);
    EXPECT_TRUE(best->spec.runtime_count && best->spec.runtime_data_count);
    EXPECT_EQ(best->spec.data_shape, (kernelgen::Shape{20, 4}));
    EXPECT_EQ(best->spec.indices_shape, (kernelgen::Shape{20}));
    ASSERT_TRUE(best->bounded && best->bounded->data_count);
    EXPECT_EQ(best->bounded->data_count->bound, 20u);

    const fs::path dir = fresh_dir("two_counts");
    write_text(dir / "model.onnx", m.bytes());
    std::mt19937 random(33);
    std::vector<cprogram::Case> cases;
    // (scores above 0, k): some boxes and a few of them, every box and all of them, no box at all.
    for (const auto& [kept, k] : std::vector<std::pair<int, int64_t>>{{7, 3}, {20, 20}, {5, 0}, {0, 0}}) {
        std::vector<float> scores(20), boxes(80);
        for (int i = 0; i < 20; ++i) scores[static_cast<size_t>(i)] = i < kept ? 1.0f + static_cast<float>(random() % 1000) : -1.0f;
        std::shuffle(scores.begin(), scores.end(), random);
        for (auto& v : boxes) v = static_cast<float>(random() % 4001) / 8.0f;
        json feeds = {{"scores", {{"type", "float32"}, {"dims", {20}}, {"hex", cprogram::hex(cprogram::bytes_of(scores))}}},
                      {"boxes", {{"type", "float32"}, {"dims", {20, 4}}, {"hex", cprogram::hex(cprogram::bytes_of(boxes))}}},
                      {"t", {{"type", "float32"}, {"dims", json::array()}, {"hex", cprogram::hex(cprogram::bytes_of(std::vector<float>{0.0f}))}}},
                      {"k", {{"type", "int64"}, {"dims", {1}}, {"hex", cprogram::hex(cprogram::bytes_of(std::vector<int64_t>{k}))}}}};
        const std::string run = std::to_string(kept) + "_" + std::to_string(k);
        write_text(dir / ("inputs_" + run + ".json"), feeds.dump(1));
        std::string log;
        const json ort = run_ort(dir / "model.onnx", dir / ("inputs_" + run + ".json"), dir / ("outputs_" + run + ".json"), log);
        ASSERT_FALSE(ort.is_null()) << log;
        const uint32_t data_count = static_cast<uint32_t>(ort.at("kept_boxes").at("dims").at(0).get<int64_t>());
        const uint32_t count = static_cast<uint32_t>(ort.at("top_idx").at("dims").at(0).get<int64_t>());
        EXPECT_EQ(data_count, static_cast<uint32_t>(kept));
        EXPECT_EQ(count, static_cast<uint32_t>(k));
        std::vector<uint8_t> indices = cprogram::unhex(ort.at("top_idx").at("hex").get<std::string>());
        std::vector<uint8_t> expected = cprogram::unhex(ort.at("best").at("hex").get<std::string>());
        const std::vector<uint8_t> poison = cprogram::bytes_of(std::vector<int64_t>(20 - count, std::numeric_limits<int64_t>::min()));
        indices.insert(indices.end(), poison.begin(), poison.end());  // the rows beyond the count: never read
        expected.resize(80 * sizeof(float), cprogram::kSentinel);     // the output rows beyond the count: untouched
        cprogram::Case c = make_case(best->spec, "best, " + run, cprogram::unhex(ort.at("kept_boxes").at("hex").get<std::string>()),
                                     indices, {}, expected);
        c.count = count;
        c.data_count = data_count;
        cases.push_back(c);
        if (count > 0) {  // an index of the first row at data_count: out of range for the rows data holds
            cprogram::Case bad = c;
            bad.label += ", index data_count";
            const std::vector<uint8_t> at_count = cprogram::bytes_of(std::vector<int64_t>{static_cast<int64_t>(data_count)});
            std::copy(at_count.begin(), at_count.end(), bad.indices.begin());
            bad.expected_status = -1;
            bad.expected_output.assign(80 * sizeof(float), cprogram::kSentinel);
            cases.push_back(bad);
        }
    }
    run_cases(dir / "c", {best->spec}, cases);
}

// A data count alone: rows kept by a mask (NonZero, at most 12), then fixed numbers of run-time indices into them —
// Gather, GatherND and ScatterND along axis 0 — and kept[-1], a constant index. Each imports with "data_count" and
// no count of index rows, and its kernel, given ONNX Runtime's kept rows as data, agrees with ONNX Runtime bit for
// bit, a scatter's output rows beyond the data count untouched; an index at the data count (inside the bound,
// beyond the rows data holds), or kept[-1] of no rows, is refused and leaves the output untouched.
TEST(ImportOrt, DataCountAloneAgreesWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    Model m(18);
    m.input("scores", kFloat, {12});
    m.input("rows", kFloat, {12, 3});
    m.input("pick", kInt32, {4});
    m.input("pick_nd", kInt64, {2, 1});
    m.input("updates", kFloat, {2, 3});
    m.initializer("zero", kFloat, {}, {0});
    m.initializer("axes0", kInt64, {1}, {0});
    m.node("Greater", {"scores", "zero"}, "mask", "greater");
    m.node("NonZero", {"mask"}, "nz", "nonzero");                      // [1, K]
    m.node("Squeeze", {"nz", "axes0"}, "idx", "squeeze");              // [K]
    m.node("Gather", {"rows", "idx"}, "kept", "kept");                 // [K, 3]
    m.node("Gather", {"kept", "pick"}, "picked", "picked");            // [4, 3], each index in [-K, K-1]
    m.node("GatherND", {"kept", "pick_nd"}, "picked_nd", "picked_nd");  // [2, 3]
    m.node("ScatterND", {"kept", "pick_nd", "updates"}, "written", "written");  // [K, 3]
    m.initializer("last", kInt64, {}, {-1});
    m.node("Gather", {"kept", "last"}, "last_row", "last_row");        // [3]: kept[-1], a constant index
    for (const std::string name : {"kept", "picked", "picked_nd", "written", "last_row"}) {
        auto* output = m.proto().mutable_graph()->add_output();
        output->set_name(name);
        output->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
    }
    const auto result = kernelgen::import_model(m.bytes(), "data_count_alone.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    std::vector<kernelgen::KernelSpec> kernels;
    for (const std::string name : {"picked", "picked_nd", "written", "last_row"}) {
        const auto found = std::find_if(result.kernels.begin(), result.kernels.end(),
                                        [&](const kernelgen::ImportedKernel& kernel) { return kernel.name == name; });
        ASSERT_NE(found, result.kernels.end()) << name;
        ASSERT_TRUE(found->bounded && found->bounded->data_count && !found->bounded->count) << name;
        EXPECT_EQ(found->bounded->data_count->bound, 12u) << name;
        EXPECT_EQ(found->bounded->data_count->through.front(), "NonZero \"nonzero\": at most 12, the elements of its input [12]");
        EXPECT_TRUE(found->spec.runtime_data_count && !found->spec.runtime_count) << name;
        EXPECT_EQ(found->spec.data_shape, (kernelgen::Shape{12, 3})) << name;
        kernels.push_back(found->spec);
    }

    const fs::path dir = fresh_dir("data_count_alone");
    write_text(dir / "model.onnx", m.bytes());
    std::mt19937 random(34);
    std::vector<cprogram::Case> cases;
    for (const int kept : {12, 5, 1}) {
        std::vector<float> scores(12), rows(36), updates(6);
        for (int i = 0; i < 12; ++i) scores[static_cast<size_t>(i)] = i < kept ? 1.0f : -1.0f;
        std::shuffle(scores.begin(), scores.end(), random);
        for (auto& v : rows) v = static_cast<float>(random() % 4001) / 8.0f;
        for (auto& v : updates) v = -static_cast<float>(random() % 100);
        const std::vector<int32_t> pick{0, kept - 1, -kept, -1};
        const std::vector<int64_t> pick_nd{kept / 2, -1};
        auto tensor = [](const char* type, const json& dims, const std::vector<uint8_t>& bytes) {
            return json{{"type", type}, {"dims", dims}, {"hex", cprogram::hex(bytes)}};
        };
        const json feeds = {{"scores", tensor("float32", {12}, cprogram::bytes_of(scores))},
                            {"rows", tensor("float32", {12, 3}, cprogram::bytes_of(rows))},
                            {"pick", tensor("int32", {4}, cprogram::bytes_of(pick))},
                            {"pick_nd", tensor("int64", {2, 1}, cprogram::bytes_of(pick_nd))},
                            {"updates", tensor("float32", {2, 3}, cprogram::bytes_of(updates))}};
        const std::string run = std::to_string(kept);
        write_text(dir / ("inputs_" + run + ".json"), feeds.dump(1));
        std::string log;
        const json ort = run_ort(dir / "model.onnx", dir / ("inputs_" + run + ".json"), dir / ("outputs_" + run + ".json"), log);
        ASSERT_FALSE(ort.is_null()) << log;
        ASSERT_EQ(ort.at("kept").at("dims").at(0).get<int>(), kept);
        const std::vector<uint8_t> data = cprogram::unhex(ort.at("kept").at("hex").get<std::string>());
        const std::vector<uint8_t> indices[] = {cprogram::bytes_of(pick), cprogram::bytes_of(pick_nd), cprogram::bytes_of(pick_nd), {}};
        for (size_t k = 0; k < kernels.size(); ++k) {
            const bool scatter = kernels[k].op == kernelgen::Op::ScatterND;
            std::vector<uint8_t> expected = cprogram::unhex(ort.at(kernels[k].name).at("hex").get<std::string>());
            expected.resize(kernelgen::element_count(kernels[k].output_shape) * sizeof(float), cprogram::kSentinel);
            cprogram::Case c = make_case(kernels[k], kernels[k].name + ", " + run + " rows", data, indices[k],
                                         scatter ? cprogram::bytes_of(updates) : std::vector<uint8_t>{}, expected);
            c.data_count = static_cast<uint32_t>(kept);
            cases.push_back(c);
            cprogram::Case bad = c;
            bad.expected_status = -1;
            bad.expected_output.assign(bad.expected_output.size(), cprogram::kSentinel);
            if (c.constant_indices) {  // kept[-1] of no rows: the kernel's own index is out of range
                bad.label += ", no rows";
                bad.data.clear();
                bad.data_count = 0;
                cases.push_back(bad);
                continue;
            }
            // Index data_count (the first element of indices): inside the bound, beyond the rows data holds.
            bad.label += ", an index at the data count";
            const std::vector<uint8_t> at_count = k == 0 ? cprogram::bytes_of(std::vector<int32_t>{kept})
                                                         : cprogram::bytes_of(std::vector<int64_t>{kept});
            std::copy(at_count.begin(), at_count.end(), bad.indices.begin());
            cases.push_back(bad);
        }
    }
    run_cases(dir / "c", kernels, cases);
}

// The size of a box given by its corners (`corners`: y1, x1, y2, x2), as torchvision computes it: the corners
// clipped to the image (Max by 0, then Min by `edges`, each corner's side; left out where `clip_high` is false),
// the far ones less the near ones, at least 1. Named `out` ([2]: height and width).
void add_box_size(Model& m, const std::vector<float>& edges, const std::string& out, bool clip_high = true) {
    m.input("corners", kFloat, {4});
    m.float_initializer("zero", {}, {0});
    m.float_initializer("edges", {static_cast<int64_t>(edges.size())}, edges);
    m.float_initializer("at_least", {}, {1});
    m.initializer("near_start", kInt64, {1}, {0});
    m.initializer("far_start", kInt64, {1}, {2});
    m.initializer("far_end", kInt64, {1}, {4});
    m.node("Max", {"corners", "zero"}, "inside_low", "clip_low");
    if (clip_high) m.node("Min", {"inside_low", "edges"}, "inside", "clip_high");
    else m.node("Identity", {"inside_low"}, "inside", "not_clipped");
    m.node("Slice", {"inside", "near_start", "far_start"}, "near", "near");
    m.node("Slice", {"inside", "far_start", "far_end"}, "far", "far");
    m.node("Sub", {"far", "near"}, "size", "size");
    m.node("Clip", {"size", "at_least"}, out, "at_least_one");
}

// A [1, 17, 6, 5] heatmap (`maps`) resized to the box's ceiled size (`box`: [2], height and width), as Keypoint
// R-CNN resizes each detection's: `roi_map`, [17, h, w].
void add_heatmap_resize(Model& m) {
    m.input("maps", kFloat, {1, 17, 6, 5});
    m.initializer("lead", kInt64, {2}, {1, 17});
    m.initializer("axes0", kInt64, {1}, {0});
    m.node("Ceil", {"box"}, "box_ceil", "ceil");
    Model::attribute(m.node("Cast", {"box_ceil"}, "hw", "cast"), "to", int64_t{kInt64});
    Model::attribute(m.node("Concat", {"lead", "hw"}, "sizes", "sizes"), "axis", 0);
    m.node("Resize", {"maps", "", "", "sizes"}, "resized", "resize");  // [1, 17, h, w]
    m.node("Squeeze", {"resized", "axes0"}, "roi_map", "squeeze");      // [17, h, w]
}

// Keypoint R-CNN's keypoint decode in small: a heatmap resized to a box's ceiled size, then picked along its
// run-time axes (`roi_map[:, y_int][..., x_int]`). The Resize's sizes are made at run time from the box's values,
// so the Gathers' data has run-time extents, which each kernel takes as parameters. The box is its height and
// width (`box`, [2]); or, `clipped`, its corners (`corners`: y1, x1, y2, x2) clipped to a 40 x 40 image and its
// size at least 1, as torchvision clips and clamps them, which bounds the extents by 40.
Model keypoint_decode(bool clipped) {
    Model m(18);
    if (clipped) add_box_size(m, {40}, "box");
    else m.input("box", kFloat, {2});  // the box's height and width, in pixels
    add_heatmap_resize(m);
    m.input("y", kInt64, {3});
    m.input("x", kInt64, {3});
    Model::attribute(m.node("Gather", {"roi_map", "y"}, "rows", "rows"), "axis", 1);     // [17, 3, w]
    Model::attribute(m.node("Gather", {"rows", "x"}, "picks", "picks"), "axis", 2);      // [17, 3, 3]
    for (const std::string name : {"roi_map", "rows", "picks"}) {
        auto* output = m.proto().mutable_graph()->add_output();
        output->set_name(name);
        output->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
    }
    return m;
}

// Imports keypoint_decode(clipped) (with `options`), checks its two kernels take the extents at run time within
// `bound`, and calls each with the tensors its "call" names and the extents ONNX Runtime produced, for each box
// (the values of its box input): ONNX Runtime's output bit for bit, and an index at the extent (inside the bound)
// refused with the output untouched.
void check_keypoint_decode(bool clipped, const kernelgen::ImportOptions& options, uint64_t bound,
                           const std::vector<std::vector<float>>& boxes) {
    const Model m = keypoint_decode(clipped);
    const auto result = kernelgen::import_model(m.bytes(), "extents.onnx", options);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    ASSERT_EQ(result.kernels.size(), 2u);
    const kernelgen::KernelSpec& rows = result.kernels[0].spec;
    const kernelgen::KernelSpec& picks = result.kernels[1].spec;
    EXPECT_EQ(rows.data_shape, (kernelgen::Shape{17, bound, bound}));
    EXPECT_EQ(rows.runtime_axes, (std::vector<size_t>{1, 2}));
    EXPECT_EQ(picks.data_shape, (kernelgen::Shape{17, 3, bound}));
    EXPECT_EQ(picks.runtime_axes, (std::vector<size_t>{2}));
    const json report = json::parse(result.report);
    json calls;
    for (const auto& node : report.at("nodes")) {
        if (node.contains("call")) calls[node.at("name").get<std::string>()] = node.at("call");
    }
    EXPECT_EQ(calls.at("rows").dump(), json::parse(R"([{"parameter": "data", "tensor": "roi_map"},
        {"parameter": "data_dim_1", "count_of": "roi_map", "axis": 1}, {"parameter": "data_dim_2", "count_of": "roi_map", "axis": 2},
        {"parameter": "indices", "tensor": "y"}, {"parameter": "output", "tensor": "rows"}])").dump());
    EXPECT_EQ(calls.at("picks").dump(), json::parse(R"([{"parameter": "data", "tensor": "rows"},
        {"parameter": "data_dim_2", "count_of": "rows", "axis": 2}, {"parameter": "indices", "tensor": "x"},
        {"parameter": "output", "tensor": "picks"}])").dump());

    const fs::path dir = fresh_dir(clipped ? "runtime_extents_clipped" : "runtime_extents");
    write_text(dir / "model.onnx", m.bytes());
    std::mt19937 random(56);
    std::vector<float> maps(17 * 6 * 5);
    for (auto& v : maps) v = static_cast<float>(random() % 4001) / 8.0f - 250.0f;
    std::vector<cprogram::Case> cases;
    for (const std::vector<float>& box : boxes) {
        // The box's height and width: as given, or its clipped corners' (computed here, as torchvision does).
        auto inside = [](float v) { return std::min(40.0f, std::max(0.0f, v)); };
        const float height = clipped ? std::max(1.0f, inside(box[2]) - inside(box[0])) : box[0];
        const float width = clipped ? std::max(1.0f, inside(box[3]) - inside(box[1])) : box[1];
        const auto h = static_cast<int64_t>(std::ceil(height)), w = static_cast<int64_t>(std::ceil(width));
        const std::vector<int64_t> y{0, h - 1, -h}, x{-1, w / 2, -w};
        auto tensor = [](const char* type, const json& dims, const std::vector<uint8_t>& bytes) {
            return json{{"type", type}, {"dims", dims}, {"hex", cprogram::hex(bytes)}};
        };
        const json feeds = {{"maps", tensor("float32", {1, 17, 6, 5}, cprogram::bytes_of(maps))},
                            {clipped ? "corners" : "box", tensor("float32", {box.size()}, cprogram::bytes_of(box))},
                            {"y", tensor("int64", {3}, cprogram::bytes_of(y))},
                            {"x", tensor("int64", {3}, cprogram::bytes_of(x))}};
        const std::string run = std::to_string(h) + "x" + std::to_string(w);
        write_text(dir / ("inputs_" + run + ".json"), feeds.dump(1));
        std::string log;
        const json ort = run_ort(dir / "model.onnx", dir / ("inputs_" + run + ".json"), dir / ("outputs_" + run + ".json"), log);
        ASSERT_FALSE(ort.is_null()) << log;
        ASSERT_EQ(ort.at("roi_map").at("dims"), (json{17, h, w}));
        const auto hex = [&](const std::string& name) { return cprogram::unhex(ort.at(name).at("hex").get<std::string>()); };
        const auto extent = [](int64_t e) { return static_cast<uint32_t>(e); };
        cprogram::Case c = make_case(rows, "rows at " + run, hex("roi_map"), cprogram::bytes_of(y), {}, hex("rows"));
        c.data_dims = {extent(h), extent(w)};
        cases.push_back(c);
        cprogram::Case d = make_case(picks, "picks at " + run, hex("rows"), cprogram::bytes_of(x), {}, hex("picks"));
        d.data_dims = {extent(w)};
        cases.push_back(d);
        for (cprogram::Case bad : {c, d}) {  // the first index at the extent: in the bound, beyond the tensor
            bad.label += ", an index at the extent";
            const std::vector<uint8_t> at = cprogram::bytes_of(std::vector<int64_t>{bad.kernel == rows.name ? h : w});
            std::copy(at.begin(), at.end(), bad.indices.begin());
            bad.expected_status = -1;
            bad.expected_output.assign(bad.expected_output.size(), cprogram::kSentinel);
            cases.push_back(bad);
        }
    }
    run_cases(dir / "c", {rows, picks}, cases);
}

// The box's size from a graph input: nothing bounds the extents, and both Gathers are skipped until --max-extent
// bounds them.
TEST(ImportOrt, RunTimeExtentsAgreeWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    const auto plain = kernelgen::import_model(keypoint_decode(false).bytes(), "extents.onnx");
    ASSERT_EQ(plain.skipped.size(), 2u);
    EXPECT_EQ(plain.skipped.front().reason, "dynamic shape: data \"roi_map\" dimensions 1 and 2 could not be inferred; fix it with --dim or --input");
    kernelgen::ImportOptions options;
    options.max_extents = {{"rows", 40}, {"picks", 40}};
    check_keypoint_decode(false, options, 40, {{11.2f, 7.0f}, {40.0f, 39.5f}, {1.0f, 3.0f}, {5.5f, 1.0f}});
}

// The box clipped to the image, as torchvision clips it: the extents are at most the image's size, with no option;
// boxes reaching past the image's edges give extents of exactly the bound.
TEST(ImportOrt, RunTimeExtentsBoundedByClippedBoxesAgreeWithOnnxRuntime) {
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
    check_keypoint_decode(true, {}, 40, {{0.0f, 0.0f, 11.2f, 7.0f}, {-5.0f, -3.0f, 60.0f, 70.0f}, {20.0f, 30.0f, 19.0f, 33.0f},
                                         {2.25f, 39.0f, 7.75f, 40.5f}});
}

// The elements of a folded value, flattened, as the doubles (or int64s) they are.
void flatten_json(const json& value, std::vector<double>& out) {
    if (value.is_array()) {
        for (const auto& item : value) flatten_json(item, out);
    } else if (value.is_string()) {
        const std::string text = value.get<std::string>();
        out.push_back(text == "NaN" ? std::nan("") : text == "Infinity" ? INFINITY : -INFINITY);
    } else {
        out.push_back(value.get<double>());
    }
}

// What ONNX Runtime returned, as doubles, for float32 and int64 tensors.
std::vector<double> ort_values(const json& tensor) {
    const std::vector<uint8_t> bytes = cprogram::unhex(tensor.at("hex").get<std::string>());
    std::vector<double> out;
    const std::string type = tensor.at("type").get<std::string>();
    const size_t width = type == "int64" ? 8 : 4;
    for (size_t at = 0; at + width <= bytes.size(); at += width) {
        if (type == "int64") {
            int64_t v;
            std::memcpy(&v, &bytes[at], 8);
            out.push_back(static_cast<double>(v));
        } else if (type == "int32") {
            int32_t v;
            std::memcpy(&v, &bytes[at], 4);
            out.push_back(v);
        } else {
            float v;
            std::memcpy(&v, &bytes[at], 4);
            out.push_back(v);
        }
    }
    return out;
}

// The exports of one script of tests/import/torch/ into a fresh folder `folder`, once for the suite of tests
// (`Script` names both): skipped without python3-torch or ONNX Runtime, failed when the export fails. ctest runs
// each test of the suite in a process of its own, two at once with -j2: each process exports into a folder of
// its own (named by its process id, removed at its end), or one would remove the exports the other is reading.
template <const char* Script, const char* Folder>
class PyTorchExports : public testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = fresh_dir(std::string(Folder) + "." + std::to_string(getpid()));
        int status = 0;
        const std::string python = KERNELGEN_SYSTEM_PYTHON;
        if (!python.empty()) cprogram::run_command(python + " -c 'import torch, onnx' 2>&1", status);
        if (python.empty() || status != 0) {
            skip_ = "python3-torch (Debian) is missing: tools/install-deps.sh installs it";
            return;
        }
        if (!have_ort()) {
            skip_ = "node or onnxruntime-node missing (see tests/ort_crosscheck/README.md)";
            return;
        }
        const std::string log = cprogram::run_command(
            python + " " + (kSourceDir / "tests" / "import" / "torch" / Script).string() + " " + dir_.string() + " 2>&1",
            status);
        if (status != 0) export_log_ = log.empty() ? "the export failed" : log;
    }
    static void TearDownTestSuite() { fs::remove_all(dir_); }
    void SetUp() override {
        if (!skip_.empty()) GTEST_SKIP() << skip_;
        ASSERT_EQ(export_log_, "");
    }
    static inline fs::path dir_;
    static inline std::string skip_, export_log_;
};

constexpr char kExportModels[] = "export_models.py", kTorchFolder[] = "torch";
constexpr char kExportDetectors[] = "export_detectors.py", kDetectorsFolder[] = "detectors";
using TorchExports = PyTorchExports<kExportModels, kTorchFolder>;
using TorchDetectors = PyTorchExports<kExportDetectors, kDetectorsFolder>;
constexpr char kExportFakeQuant[] = "export_fake_quant.py", kFakeQuantFolder[] = "fake_quant";
using TorchFakeQuant = PyTorchExports<kExportFakeQuant, kFakeQuantFolder>;

// What check_export found, over the exports it checked: the kernels and their cases, to compile and run at once.
struct ExportCheck {
    size_t shape_gathers = 0, folded_checked = 0, bounded_checked = 0;
    size_t in_bodies = 0;         // kernels and folded values whose tensors ONNX Runtime does not show: not checked
    size_t in_branches_run = 0;   // kernels and folded values of an If's branch that ran: checked
    size_t in_loop_bodies = 0;    // kernels and folded values of a main-graph Loop's body: checked in every iteration
    size_t loop_iterations = 0;   // the iterations of those Loops, run by ONNX Runtime one by one
    std::vector<kernelgen::KernelSpec> kernels;
    std::vector<cprogram::Case> cases;
};

// One export of `dir` (as tests/import/torch/capture.py writes it), imported with the --dim values of its manifest
// `entry` and nothing else: every indexing node is a spec or folded (or in a body ONNX Runtime does not show:
// counted in `in_bodies`; a main-graph Loop's body is run iteration by iteration), every folded value equals what ONNX Runtime computes for that node (with
// `shape_gathers_fold`, every Gather of a Shape output is among them), and every kernel gets a case with the
// tensors ONNX Runtime saw at its node (a counted one with the counts ONNX Runtime produced) and its output.
void check_export(const fs::path& dir, const std::string& model_name, const json& entry, bool shape_gathers_fold,
                  ExportCheck& out) {
    SCOPED_TRACE(model_name);
    const fs::path model_path = dir / (model_name + ".onnx");
    kernelgen::ImportOptions options;
    options.prefix = model_name + "_";
    for (const auto& [dim, value] : entry.at("dims").items()) options.dims[dim] = value.get<int64_t>();
    const kernelgen::ImportResult result = kernelgen::import_model_file(model_path.string(), options);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.usage_errors.empty()) << result.usage_errors.front();
    // A note for each ScatterND that index_put_(accumulate=True) became (the export script lists them), and no
    // other; its kernel, without --accumulate, does as the model does, as every kernel here: ONNX Runtime's.
    const json accumulate = entry.value("accumulate", json::array());
    ASSERT_EQ(result.notes.size(), accumulate.size()) << (result.notes.empty() ? "" : result.notes.front());
    for (size_t i = 0; i < accumulate.size(); ++i) {
        EXPECT_NE(result.notes[i].find("--accumulate " + accumulate[i].get<std::string>() + " gives it reduction"),
                  std::string::npos) << result.notes[i];
    }
    EXPECT_TRUE(result.inference_ran) << result.inference_note;
    EXPECT_TRUE(result.skipped.empty()) << result.skipped.front().node.str() << ": " << result.skipped.front().reason;
    EXPECT_TRUE(result.not_run.empty());
    EXPECT_FALSE(result.kernels.empty());

    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromString(read_text(model_path)));
    const onnx::GraphProto& graph = model.graph();
    std::map<std::string, const onnx::NodeProto*> producer;
    for (const auto& node : graph.node()) {
        for (const auto& output : node.output()) producer[output] = &node;
    }
    std::string log;
    const json ort = run_ort(dir / (model_name + ".capture.onnx"), dir / (model_name + ".inputs.json"),
                             dir / (model_name + ".outputs.json"), log);
    ASSERT_FALSE(ort.is_null()) << log;
    const json feeds = json::parse(read_text(dir / (model_name + ".inputs.json")));
    const json* iteration = nullptr;  // checking a Loop's body: the tensors of one of its iterations, looked up first
    auto captured = [&](const std::string& name) -> const json* {
        for (const std::string key : {name + ".captured", name}) {
            if (iteration && iteration->contains(key)) return &iteration->at(key);
            if (ort.contains(key)) return &ort.at(key);
        }
        return feeds.contains(name) ? &feeds.at(name) : nullptr;
    };
    auto bytes_of_value = [&](const std::string& name) {
        if (const json* tensor = captured(name)) return cprogram::unhex(tensor->at("hex").get<std::string>());
        for (const auto& tensor : graph.initializer()) {
            if (tensor.name() == name) return tensor_bytes(tensor);
        }
        ADD_FAILURE() << name << " was neither captured nor an initializer";
        return std::vector<uint8_t>{};
    };

    // The bodies of the main graph's Loops (capture.py writes each as a model of its own): run by ONNX Runtime
    // iteration by iteration, fed the Loop's inputs and the outer-scope values the main run captured. The scan
    // outputs of the iterations, stacked, must be what the Loop itself gave in the main run.
    std::map<std::string, json> loop_iterations;  // by the Loop's node name
    for (const auto& loop : entry.value("loops", json::array())) {
        auto tensor = [&](const std::string& name) { return name.empty() ? json() : *captured(name); };
        json given = {{"trip_count", tensor(loop.at("trip_count"))}, {"cond", tensor(loop.at("cond"))},
                      {"carried", json::array()}, {"body_inputs", loop.at("body_inputs")},
                      {"body_outputs", loop.at("body_outputs")}, {"outer", json::object()}};
        for (const auto& name : loop.at("carried")) given["carried"].push_back(tensor(name));
        for (const auto& name : loop.at("outer")) {
            ASSERT_NE(captured(name), nullptr) << name;
            given["outer"][name.get<std::string>()] = tensor(name);
        }
        const std::string node = loop.at("node");
        json iterations = run_loop_ort(dir / loop.at("model").get<std::string>(), given,
                                       dir / (model_name + "." + loop.at("model").get<std::string>()), log);
        ASSERT_FALSE(iterations.is_null()) << node << ": " << log;
        ASSERT_FALSE(iterations.empty()) << node;
        const auto& outputs = loop.at("outputs");
        const size_t carried = loop.at("carried").size();
        for (size_t k = carried; k < outputs.size(); ++k) {
            const json* whole = captured(outputs[k]);
            ASSERT_NE(whole, nullptr) << outputs[k];
            std::string stacked;
            for (const auto& one : iterations) stacked += one.at(loop.at("body_outputs").at(1 + k).get<std::string>()).at("hex").get<std::string>();
            EXPECT_EQ(stacked, whole->at("hex").get<std::string>()) << node << " output " << outputs[k];
        }
        out.loop_iterations += iterations.size();
        loop_iterations[node] = std::move(iterations);
    }

    // The node a kernel or folded value comes from: in the main graph, in the branch of a main-graph If that ran
    // (capture.py captures those too, and the If's condition), or in a main-graph Loop's body (then `iterations`
    // holds what ONNX Runtime saw in each iteration); nullptr elsewhere (a deeper branch, the branch that did not
    // run), whose tensors ONNX Runtime does not show.
    auto node_of = [&](const kernelgen::NodeRef& ref, const json*& iterations) -> const onnx::NodeProto* {
        iterations = nullptr;
        if (ref.graph.empty()) return &graph.node(static_cast<int>(ref.position));
        for (const auto& node : graph.node()) {
            std::string branch;
            if (node.op_type() == "If") {
                const json* condition = captured(node.input(0));
                if (!condition) continue;
                branch = cprogram::unhex(condition->at("hex").get<std::string>()).at(0) != 0 ? "then" : "else";
            } else if (node.op_type() == "Loop" && loop_iterations.count(node.name())) {
                branch = "body";
                iterations = &loop_iterations.at(node.name());
            }
            if (branch.empty() || ref.graph != node.name() + "/" + branch) continue;
            for (const auto& attribute : node.attribute()) {
                const std::string key = branch == "body" ? "body" : branch + "_branch";
                if (attribute.name() == key && static_cast<int>(ref.position) < attribute.g().node_size()) {
                    return &attribute.g().node(static_cast<int>(ref.position));
                }
            }
        }
        iterations = nullptr;
        return nullptr;
    };

    // Runs `check` on the node `ref` names, once, or once per iteration of its Loop (`iteration` then set, the
    // label's suffix naming it); false, counted in `in_bodies`, where ONNX Runtime shows nothing of the node.
    auto each_run = [&](const kernelgen::NodeRef& ref,
                        const std::function<void(const onnx::NodeProto&, const std::string&)>& check) {
        const json* iterations = nullptr;
        const onnx::NodeProto* found = node_of(ref, iterations);
        if (!found) {
            ++out.in_bodies;
            return false;
        }
        (iterations ? out.in_loop_bodies : out.in_branches_run) += !ref.graph.empty();
        if (!iterations) check(*found, "");
        for (size_t i = 0; iterations && i < iterations->size(); ++i) {
            iteration = &iterations->at(i);
            check(*found, ", iteration " + std::to_string(i));
            iteration = nullptr;
        }
        return true;
    };

    // Folded nodes: what ONNX Runtime computes there (in a Loop's body, the same in each iteration).
    std::set<size_t> folded_positions;
    auto check_folded = [&](const kernelgen::FoldedNode& folded, const onnx::NodeProto& node) {
        const json* expected = captured(node.output(0));
        ASSERT_NE(expected, nullptr) << node.output(0);
        EXPECT_EQ(folded.shape, expected->at("dims").get<std::vector<int64_t>>()) << folded.node.str();
        ++out.folded_checked;
        if (!folded.file.empty()) {
            // A large value, in its .npy file (format 1.0: a 10-byte preamble with the header's length, then the
            // header, then the elements): the very bytes ONNX Runtime gives.
            ASSERT_GE(folded.npy.size(), 10u);
            const size_t header = static_cast<uint8_t>(folded.npy[8]) | static_cast<size_t>(static_cast<uint8_t>(folded.npy[9])) << 8;
            const std::vector<uint8_t> elements(folded.npy.begin() + static_cast<std::ptrdiff_t>(10 + header), folded.npy.end());
            EXPECT_EQ(elements, cprogram::unhex(expected->at("hex").get<std::string>())) << folded.node.str();
            return;
        }
        std::vector<double> values;
        flatten_json(folded.value, values);
        if (folded.dtype == "float32") {
            // The report's shortest decimals read back to the very float32 values.
            for (auto& v : values) v = static_cast<float>(v);
        }
        EXPECT_EQ(values, ort_values(*expected)) << folded.node.str();
    };
    for (const auto& folded : result.folded) {
        each_run(folded.node, [&](const onnx::NodeProto& node, const std::string&) { check_folded(folded, node); });
        if (folded.node.graph.empty()) folded_positions.insert(folded.node.position);
    }
    for (int n = 0; n < graph.node_size(); ++n) {
        const onnx::NodeProto& node = graph.node(n);
        auto from = producer.find(node.input_size() ? node.input(0) : "");
        if (shape_gathers_fold && node.op_type() == "Gather" && from != producer.end() &&
            from->second->op_type() == "Shape") {
            EXPECT_TRUE(folded_positions.count(static_cast<size_t>(n))) << node.name() << " gathers from a Shape";
            ++out.shape_gathers;
        }
    }

    // Kernels: the tensors ONNX Runtime saw at the node. A kernel with a run-time count is called with the count
    // ONNX Runtime produced (the leading dimension of the tensor it saw), its buffers sized at the bound: the rows
    // of indices (or data) beyond the count hold 0x7F bytes, far out of range, which the kernel must not read, and
    // a gather must leave the output rows beyond the count untouched. With a data count, data is exactly its
    // data_count rows (AddressSanitizer catches a read beyond), and a scatter leaves output's rows beyond untouched.
    auto add_case = [&](const kernelgen::ImportedKernel& kernel, const onnx::NodeProto& node, const std::string& label) {
        const json* expected = captured(node.output(0));
        ASSERT_NE(expected, nullptr) << node.output(0);
        const bool constant = kernel.spec.constant_indices.has_value();
        const bool scatter = kernelgen::is_scatter(kernel.spec.op);
        // The tensors the kernel's call names (the report's "call"): the node's, or the tensor its indices are made of.
        const kernelgen::KernelTensors& call = kernel.tensors;
        EXPECT_EQ(call.data, node.input(0)) << label;
        EXPECT_EQ(call.output, node.output(0)) << label;
        if (!constant) EXPECT_EQ(call.indices == node.input(1), call.indices_through.empty()) << label;
        std::vector<uint8_t> data = bytes_of_value(call.data);
        std::vector<uint8_t> indices = constant ? std::vector<uint8_t>{} : bytes_of_value(call.indices);
        std::vector<uint8_t> updates = scatter ? bytes_of_value(call.updates) : std::vector<uint8_t>{};
        std::vector<uint8_t> output = cprogram::unhex(expected->at("hex").get<std::string>());
        auto seen_dims = expected->at("dims").get<kernelgen::Shape>();
        std::optional<uint32_t> count, data_count;
        if (kernel.bounded) {
            const size_t index_size = kernel.spec.index_dtype == kernelgen::IndexType::Int32 ? 4 : 8;
            auto pad = [](std::vector<uint8_t>& bytes, uint64_t elements, size_t size, uint8_t fill) {
                ASSERT_LE(bytes.size(), elements * size);
                bytes.resize(elements * size, fill);
            };
            if (kernel.bounded->count) {
                const bool data_leads = kernel.bounded->leads == "data";
                const json* counted = captured(data_leads ? call.data : call.indices);
                ASSERT_NE(counted, nullptr) << kernel.name;
                count = counted->at("dims").at(0).get<uint32_t>();
                EXPECT_LE(*count, kernel.bounded->count->bound) << kernel.name;
                if (data_leads) pad(data, kernelgen::element_count(kernel.spec.data_shape), element_size(kernel.spec), 0x7F);
                else pad(indices, kernelgen::element_count(kernel.spec.indices_shape), index_size, 0x7F);
                if (scatter) pad(updates, kernelgen::element_count(kernel.spec.updates_shape), element_size(kernel.spec), 0x7F);
            }
            if (kernel.bounded->data_count) {
                data_count = captured(node.input(0))->at("dims").at(0).get<uint32_t>();
                EXPECT_LE(*data_count, kernel.bounded->data_count->bound) << kernel.name;
            }
            if (!scatter || data_count) {
                if (count || scatter) EXPECT_EQ(seen_dims.at(0), scatter ? *data_count : *count) << kernel.name;
                seen_dims[0] = kernel.spec.output_shape.at(0);  // the output buffer at the bound
                pad(output, kernelgen::element_count(kernel.spec.output_shape), element_size(kernel.spec), cprogram::kSentinel);
            }
            ++out.bounded_checked;
        }
        EXPECT_EQ(seen_dims, kernel.spec.output_shape) << label;
        out.cases.push_back(make_case(kernel.spec, label, std::move(data), std::move(indices), std::move(updates),
                                      std::move(output)));
        out.cases.back().count = count;
        out.cases.back().data_count = data_count;
    };
    for (const auto& kernel : result.kernels) {
        const bool run = each_run(kernel.node, [&](const onnx::NodeProto& node, const std::string& suffix) {
            add_case(kernel, node, model_name + ": " + kernel.name + suffix);
        });
        if (run) out.kernels.push_back(kernel.spec);
    }
}

// Each export imports with one --dim per dynamic axis and nothing else (the Gathers of Shape outputs folded; in
// the detection post-process, the nodes after TopK's fixed k are specs, those after NonMaxSuppression and NonZero
// specs with a bounded run-time count), and every kernel, run on the tensors ONNX Runtime shows at its node, gives
// ONNX Runtime's output bit for bit.
TEST_F(TorchExports, ImportWithOneDimPerAxisAndAgreeWithOnnxRuntime) {
    const json manifest = json::parse(read_text(dir_ / "manifest.json"));
    ASSERT_EQ(manifest.size(), 12u);
    ExportCheck checked;
    for (const auto& [model_name, entry] : manifest.items()) check_export(dir_, model_name, entry, true, checked);
    EXPECT_GE(checked.shape_gathers, 7u);
    EXPECT_GE(checked.folded_checked, 8u);
    EXPECT_GE(checked.kernels.size(), 23u);
    EXPECT_GE(checked.bounded_checked, 6u);
    EXPECT_EQ(checked.in_bodies, 0u);
    // The embeddings' tables (nn.Embedding's weight, an initializer) travel with their kernels: no data parameter,
    // the table in flash, and still ONNX Runtime's output bit for bit. So do the zeros that index_put_ and
    // scatter_add_ write into (torch.zeros of a fixed shape, a constant of the export): a memset, no table.
    std::vector<std::string> tables, zeros;
    for (const auto& kernel : checked.kernels) {
        if (kernel.constant_data && !kernelgen::is_scatter(kernel.op)) tables.push_back(kernel.name);
        if (kernel.constant_data && kernelgen::is_scatter(kernel.op) &&
            std::all_of(kernel.constant_data->bytes.begin(), kernel.constant_data->bytes.end(), [](uint8_t b) { return b == 0; })) {
            zeros.push_back(kernel.name);
        }
    }
    EXPECT_EQ(tables, (std::vector<std::string>{"embedding_tables_tables_0_gather", "embedding_tables_tables_1_gather",
                                                "embedding_tables_tables_2_gather", "int32_ids_emb_gather",
                                                "rotary_gather", "rotary_gather_1", "token_embedding_tokens_gather"}));
    EXPECT_EQ(zeros, (std::vector<std::string>{"index_put_accumulate_scatter_nd", "segment_sum_scatter_elements"}));
    // int32 ids (int32_ids): each kernel takes the int32 tensor the graph widens (and flattens) into its indices,
    // int32 itself; the cases above fed it the tensor the call names. A source value out of range is refused, the
    // output untouched.
    std::vector<std::string> int32_kernels;
    for (const auto& kernel : checked.kernels) {
        if (kernel.name.rfind("int32_ids_", 0) != 0) continue;
        EXPECT_EQ(kernel.index_dtype, kernelgen::IndexType::Int32) << kernel.name;
        int32_kernels.push_back(kernel.name);
        const uint64_t n = kernelgen::element_count(kernel.indices_shape);
        std::vector<int32_t> hostile(n, 0);
        hostile.back() = static_cast<int32_t>(kernel.data_shape.at(0));  // one past the last row
        checked.cases.push_back(make_case(kernel, kernel.name + ", a source value out of range",
                                          kernel.constant_data ? std::vector<uint8_t>{} : std::vector<uint8_t>(kernelgen::element_count(kernel.data_shape) * 4, 0),
                                          cprogram::bytes_of(hostile), {},
                                          std::vector<uint8_t>(kernelgen::element_count(kernel.output_shape) * 4, cprogram::kSentinel)));
        checked.cases.back().expected_status = -1;
    }
    EXPECT_EQ(int32_kernels.size(), 2u);
    // index_copy: the kernel takes the positions themselves and broadcasts them (the cases above fed it `pos`, as
    // its call says); a position out of range is refused, the output untouched.
    bool index_copy = false;
    for (const auto& kernel : checked.kernels) {
        if (kernel.name.rfind("index_copy_", 0) != 0) continue;
        index_copy = true;
        ASSERT_TRUE(kernel.indices_broadcast_from.has_value()) << kernel.name;
        EXPECT_EQ(*kernel.indices_broadcast_from, (kernelgen::Shape{1, 2, 1}));
        const auto zeros = [](const kernelgen::Shape& shape) { return std::vector<uint8_t>(kernelgen::element_count(shape) * 4, 0); };
        checked.cases.push_back(make_case(kernel, kernel.name + ", a position out of range", zeros(kernel.data_shape),
                                          cprogram::bytes_of(std::vector<int64_t>{8, 0}), zeros(kernel.updates_shape),
                                          std::vector<uint8_t>(kernelgen::element_count(kernel.output_shape) * 4, cprogram::kSentinel)));
        checked.cases.back().expected_status = -1;
    }
    EXPECT_TRUE(index_copy);
    // rotary: each kernel takes the positions' offset itself (past_len, or past_lens per row) and adds the range
    // (the cases above fed it the offsets ONNX Runtime saw: 3, and 0, 12, -4, whose positions wrap); an offset that
    // puts the last position past the table is refused, the output untouched.
    std::vector<std::string> rotary;
    for (const auto& kernel : checked.kernels) {
        if (kernel.name.rfind("rotary_", 0) != 0) continue;
        rotary.push_back(kernel.name);
        ASSERT_TRUE(kernel.indices_add.has_value()) << kernel.name;
        EXPECT_EQ(kernel.indices_add->start, 0) << kernel.name;
        const bool rows = kernel.indices_shape.size() == 2;
        EXPECT_EQ(kernel.indices_add->steps, rows ? (std::vector<int64_t>{0, 1}) : (std::vector<int64_t>{1})) << kernel.name;
        EXPECT_EQ(*kernel.indices_broadcast_from, rows ? (kernelgen::Shape{3, 1}) : (kernelgen::Shape{1})) << kernel.name;
        const std::vector<int64_t> past = rows ? std::vector<int64_t>{0, 12, 13} : std::vector<int64_t>{13};
        checked.cases.push_back(make_case(kernel, kernel.name + ", an offset past the table", {}, cprogram::bytes_of(past), {},
                                          std::vector<uint8_t>(kernelgen::element_count(kernel.output_shape) * 4, cprogram::kSentinel)));
        checked.cases.back().expected_status = -1;
    }
    EXPECT_EQ(rotary.size(), 2u);
    // cache_setitem: each kernel takes the positions alone (the cases above fed it `pos`, and `x` or `row`, as its call
    // says) and puts the constant 0 of each tuple in itself; the row written at every position is read where it
    // broadcasts; a position out of range is refused, the output untouched.
    std::vector<std::string> setitem;
    for (const auto& kernel : checked.kernels) {
        if (kernel.name.rfind("cache_setitem_", 0) != 0) continue;
        setitem.push_back(kernel.name);
        ASSERT_TRUE(kernel.tuple_constants.has_value()) << kernel.name;
        EXPECT_EQ(*kernel.tuple_constants, (std::vector<std::optional<int64_t>>{0, std::nullopt}));
        const bool row = kernel.updates_broadcast_from.has_value();
        if (row) EXPECT_EQ(*kernel.updates_broadcast_from, (kernelgen::Shape{1, 1, 4}));
        const auto zeros = [](const kernelgen::Shape& shape) { return std::vector<uint8_t>(kernelgen::element_count(shape) * 4, 0); };
        checked.cases.push_back(make_case(kernel, kernel.name + ", a position out of range", zeros(kernel.data_shape),
                                          cprogram::bytes_of(std::vector<int64_t>{2, -9}),
                                          zeros(row ? *kernel.updates_broadcast_from : kernel.updates_shape),
                                          std::vector<uint8_t>(kernelgen::element_count(kernel.output_shape) * 4, cprogram::kSentinel)));
        checked.cases.back().expected_status = -1;
    }
    EXPECT_EQ(setitem.size(), 2u);
    EXPECT_EQ(std::count_if(checked.kernels.begin(), checked.kernels.end(),
                            [](const kernelgen::KernelSpec& k) { return k.updates_broadcast_from.has_value(); }),
              1);
    run_cases(fresh_dir("torch_kernels"), checked.kernels, checked.cases);
}

// Fake-quantized embeddings as PyTorch exports them (torch.fake_quantize_per_tensor_affine: int8 with a negative zero
// point, int8 whose weights are half steps of a power-of-2 scale, uint8, 0..127 through a Clip;
// torch.fake_quantize_per_channel_affine: int8 per row, uint8 per column), imported with one --dim per axis: each
// Gather's kernel holds the quantized table (its report entry names the float weight and the QuantizeLinear), takes
// only the ids, and gives ONNX Runtime's output of the Gather bit for bit, under the sanitizers; an id out of range is
// refused with the output untouched.
TEST_F(TorchFakeQuant, EmbeddingsImportQuantizedAndAgreeWithOnnxRuntime) {
    const json manifest = json::parse(read_text(dir_ / "manifest.json"));
    ASSERT_EQ(manifest.size(), 6u);
    ExportCheck checked;
    for (const auto& [model_name, entry] : manifest.items()) {
        const size_t before = checked.cases.size();
        check_export(dir_, model_name, entry, true, checked);
        ASSERT_EQ(checked.cases.size(), before + 1) << model_name;
        const kernelgen::KernelSpec& spec = checked.kernels.back();
        ASSERT_TRUE(spec.quantization.has_value()) << model_name;
        EXPECT_EQ(kernelgen::quantized_type_name(spec.quantization->type), entry.at("quantized").get<std::string>()) << model_name;
        EXPECT_TRUE(spec.constant_data.has_value()) << model_name;
        kernelgen::ImportOptions options;
        for (const auto& [dim, value] : entry.at("dims").items()) options.dims[dim] = value.get<int64_t>();
        const auto result = kernelgen::import_model_file((dir_ / (model_name + ".onnx")).string(), options);
        const json held = json::parse(result.report).at("nodes").at(0).at("weights");
        EXPECT_EQ(held.at("tensor"), "emb.weight") << model_name;
        EXPECT_EQ(held.at("quantized").at("quantized_by").get<std::string>().rfind("QuantizeLinear ", 0), 0u) << result.report;
        // The same ids but one, out of range: refused, the output untouched.
        cprogram::Case bad = checked.cases.back();
        const auto rows = entry.at("rows").get<int64_t>();
        std::memcpy(bad.indices.data() + 8, &rows, sizeof rows);
        bad.label += ", an id out of range";
        bad.expected_output.assign(bad.expected_output.size(), cprogram::kSentinel);
        bad.expected_status = -1;
        checked.cases.push_back(bad);
    }
    run_cases(fresh_dir("torch_fake_quant_kernels"), checked.kernels, checked.cases);
}

// torchvision's detectors and a DLRM-style model as a user exports them (dynamic axes) and imports them with the
// --dim of their inputs alone (height=320 width=320; batch and nnz_t): every indexing node a spec (bounded where
// its rows are data) or folded, nothing skipped; every folded value ONNX Runtime's, and every kernel of the main
// graph run on the tensors ONNX Runtime saw at its node, with the counts it produced (both, for the two-count
// kernels), gives ONNX Runtime's output bit for bit; and so do the kernels of a batched-NMS If's branch that ran and
// of the EmbeddingBags' Loop bodies, in every iteration.
TEST_F(TorchDetectors, ImportWholeAndAgreeWithOnnxRuntime) {
    const json manifest = json::parse(read_text(dir_ / "manifest.json"));
    ASSERT_EQ(manifest.size(), 3u);
    ExportCheck checked;
    for (const auto& [model_name, entry] : manifest.items()) {
        const auto started = std::chrono::steady_clock::now();
        check_export(dir_, model_name, entry, false, checked);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::cout << model_name << ": imported and checked against ONNX Runtime in " << seconds << " s\n";
    }
    EXPECT_GE(checked.kernels.size(), 450u);
    EXPECT_GE(checked.bounded_checked, 280u);
    EXPECT_GE(checked.folded_checked, 100u);
    // The detectors' kernels in If branches (batched NMS: 1 of SSDlite, 2 of Faster R-CNN) are checked where their
    // branch ran; those of the DLRM's Loop bodies (a Gather of each bag's rows, and of its two offsets, per table)
    // in every iteration, ONNX Runtime running the bodies one iteration at a time (4 bags per table).
    std::cout << checked.in_branches_run << " in If branches that ran, " << checked.in_loop_bodies << " in Loop bodies over "
              << checked.loop_iterations << " iterations, " << checked.in_bodies << " not checked\n";
    EXPECT_GE(checked.in_branches_run, 3u);
    EXPECT_EQ(checked.in_loop_bodies, 9u);
    EXPECT_EQ(checked.loop_iterations, 12u);
    EXPECT_EQ(checked.in_bodies, 0u);
    size_t two_counts = 0, scatters_with_two = 0;
    for (const auto& c : checked.cases) {
        two_counts += c.count && c.data_count;
        scatters_with_two += c.has_updates && c.data_count;
    }
    EXPECT_GE(two_counts, 90u);
    EXPECT_EQ(scatters_with_two, 2u);  // Faster R-CNN's RoI pooling, one ScatterElements per level
    // The DLRM's three embedding tables, read inside its EmbeddingBag Loops, travel with their kernels.
    size_t tables = 0;
    for (const auto& kernel : checked.kernels) {
        if (kernel.constant_data && kernel.name.find("loop_body") != std::string::npos) ++tables;
    }
    EXPECT_EQ(tables, 3u);
    run_cases(fresh_dir("detector_kernels"), checked.kernels, checked.cases);
}

// --- PyTorch's index_put_(accumulate=True) --------------------------------------------------------------------------

// The note import prints for a ScatterND that writes into zeros without a reduction and whose result an Add adds.
std::string accumulate_note(const std::string& scatter, const std::string& add, const std::string& path) {
    return scatter + " writes into zeros without a reduction and " + add + " adds the result, as PyTorch exports "
           "index_put_(accumulate=True): at duplicate indices the model keeps one update where PyTorch adds them all. The "
           "spec does as the model does; --accumulate " + path + " gives it reduction \"add\", as PyTorch computes";
}

// index_put_'s form, x + ScatterND(zeros, idx, v), built by hand beside ScatterNDs that only look like it.
Model index_put_model() {
    Model m(16);
    m.input("x", kFloat, {6, 4});
    m.input("idx", kInt64, {5, 1});
    m.input("v", kFloat, {5, 4});
    m.node("Shape", {"x"}, "shape");                                                     // #0
    m.node("ConstantOfShape", {"shape"}, "zeros");                                       // #1: float 0, its default
    m.node("ScatterND", {"zeros", "idx", "v"}, "put", "put");                            // #2: the form
    m.node("Add", {"x", "put"}, "out", "add");                                           // #3
    m.node("ScatterND", {"x", "idx", "v"}, "set", "set");                                // #4: into x, not zeros
    m.node("Add", {"set", "x"}, "out2", "add2");                                         // #5
    Model::attribute(m.node("ScatterND", {"zeros", "idx", "v"}, "sum", "summed"), "reduction", "add");  // #6
    m.node("Add", {"x", "sum"}, "out3", "add3");                                         // #7
    m.node("ScatterND", {"zeros", "idx", "v"}, "alone", "alone");                       // #8: not added
    m.initializer("zero_init", kInt64, {6, 4}, std::vector<int64_t>(24, 0));
    m.input("n", kInt64, {6, 4});
    m.node("ScatterND", {"zero_init", "idx", "counts"}, "tally", "tally");               // #9: zeros from an initializer
    m.input("counts", kInt64, {5, 4});
    m.node("Add", {"tally", "n"}, "out4", "add4");                                       // #10
    m.node("Gather", {"x", "idx"}, "rows", "rows");                                      // #11
    for (const char* out : {"out", "out2", "out3", "alone"}) m.output(out, kFloat, {6, 4});
    m.output("out4", kInt64, {6, 4});
    m.output("rows", kFloat, {5, 1, 4});
    return m;
}

TEST(ImportModel, IndexPutAccumulateIsNotedAndFixedByOption) {
    const std::string bytes = index_put_model().bytes();
    const auto faithful = kernelgen::import_model(bytes, "put.onnx");
    ASSERT_TRUE(faithful.usage_errors.empty()) << faithful.usage_errors.front();
    ASSERT_TRUE(faithful.skipped.empty()) << faithful.skipped.front().reason;
    EXPECT_EQ(faithful.notes, (std::vector<std::string>{
                                  accumulate_note("node \"put\" (ScatterND, #2)", "node \"add\" (Add, #3)", "put"),
                                  accumulate_note("node \"tally\" (ScatterND, #9)", "node \"add4\" (Add, #10)", "tally")}));
    std::map<std::string, kernelgen::Reduction> reductions;
    for (const auto& kernel : faithful.kernels) reductions[kernel.name] = kernel.spec.reduction;
    EXPECT_EQ(reductions.at("put"), kernelgen::Reduction::None);  // as the model does
    EXPECT_EQ(reductions.at("summed"), kernelgen::Reduction::Add);
    std::map<std::string, json> recorded;
    const json faithful_report = json::parse(faithful.report);
    for (const auto& entry : faithful_report.at("nodes")) {
        if (entry.contains("accumulate")) recorded[entry.at("name")] = entry.at("accumulate");
    }
    EXPECT_EQ(recorded, (std::map<std::string, json>{{"put", json::parse(R"({"add": "add", "applied": false})")},
                                                      {"tally", json::parse(R"({"add": "add4", "applied": false})")}}));

    kernelgen::ImportOptions options;
    options.accumulate = {"put"};
    const auto fixed = kernelgen::import_model(bytes, "put.onnx", options);
    ASSERT_TRUE(fixed.usage_errors.empty()) << fixed.usage_errors.front();
    EXPECT_EQ(fixed.notes, (std::vector<std::string>{
                               accumulate_note("node \"tally\" (ScatterND, #9)", "node \"add4\" (Add, #10)", "tally")}));
    for (const auto& kernel : fixed.kernels) {
        EXPECT_EQ(kernel.spec.reduction, kernel.name == "put" || kernel.name == "summed" ? kernelgen::Reduction::Add
                                                                                          : kernelgen::Reduction::None)
            << kernel.name;
        if (kernel.name == "put") EXPECT_NE(kernel.spec_text.find("\"reduction\": \"add\""), std::string::npos);
    }
    const json fixed_report = json::parse(fixed.report);
    for (const auto& entry : fixed_report.at("nodes")) {
        if (entry.at("name") == "put") EXPECT_EQ(entry.at("accumulate"), json::parse(R"({"add": "add", "applied": true})"));
    }

    // A node that is not of the form, or not in the model, is a usage error, and then nothing is imported.
    const std::string form = "is not a ScatterND without a reduction that writes into zeros and whose result an Add adds "
                             "(the form of PyTorch's index_put_(accumulate=True))";
    for (const auto& [node, message] : std::vector<std::pair<std::string, std::string>>{
             {"set", "--accumulate set: node \"set\" (ScatterND, #4) " + form},
             {"summed", "--accumulate summed: node \"summed\" (ScatterND, #6) " + form},
             {"alone", "--accumulate alone: node \"alone\" (ScatterND, #8) " + form},
             {"rows", "--accumulate rows: node \"rows\" (Gather, #11) " + form},
             {"add", "--accumulate add: the model has no indexing node \"add\" (name the ScatterND node of an "
                     "index_put_(accumulate=True) by its name, or by its path in a body)"}}) {
        options.accumulate = {node};
        const auto refused = kernelgen::import_model(bytes, "put.onnx", options);
        EXPECT_EQ(refused.usage_errors, std::vector<std::string>{message});
        EXPECT_TRUE(refused.kernels.empty());
    }

    // The command line: the option, its usage errors (exit 2, nothing written), the spec file it writes.
    const fs::path dir = fresh_dir("accumulate_cli");
    const std::string model = (dir / "put.onnx").string();
    write_text(model, bytes);
    const std::string out = " -o " + (dir / "out").string();
    for (const auto& [arguments, message] : std::vector<std::pair<std::string, std::string>>{
             {"--accumulate", "kernelgen: --accumulate needs NODE (a ScatterND node's name)\n"},
             {"--accumulate=", "kernelgen: --accumulate needs NODE (a ScatterND node's name)\n"},
             {"--accumulate set", "kernelgen: " + model + ": --accumulate set: node \"set\" (ScatterND, #4) " + form + "\n"}}) {
        CliRun run = kernelgen_run("import " + model + out + " " + arguments + " 2>&1");
        EXPECT_EQ(run.status, 2) << arguments;
        EXPECT_EQ(run.out, message + "Try 'kernelgen help import'.\n") << arguments;
        EXPECT_FALSE(fs::exists(dir / "out")) << arguments;
    }
    CliRun run = kernelgen_run("import " + model + out + " --accumulate put --accumulate tally 2>&1");
    EXPECT_EQ(run.status, 0);
    EXPECT_EQ(run.out, model + ": 6 specs (0 in subgraphs), 0 folded, 0 skipped\n");
    EXPECT_NE(read_text(dir / "out" / "put.json").find("\"reduction\": \"add\""), std::string::npos);
    EXPECT_NE(read_text(dir / "out" / "tally.json").find("\"reduction\": \"add\""), std::string::npos);
}

// The PyTorch export: without --accumulate, the kernel does as the model (and ONNX Runtime) does, which loses updates
// at duplicate indices (the generic test above runs it); with it, the kernel's result added to x is eager PyTorch's.
TEST_F(TorchExports, IndexPutAccumulateWithTheOptionEqualsEagerPyTorch) {
    const std::string name = "index_put_accumulate";
    const json manifest = json::parse(read_text(dir_ / "manifest.json"));
    const json& entry = manifest.at(name);
    ASSERT_EQ(entry.at("accumulate").size(), 1u);
    const std::string scatter = entry.at("accumulate")[0];
    kernelgen::ImportOptions options;
    for (const auto& [dim, value] : entry.at("dims").items()) options.dims[dim] = value.get<int64_t>();
    options.accumulate = {scatter};
    const auto result = kernelgen::import_model_file((dir_ / (name + ".onnx")).string(), options);
    ASSERT_TRUE(result.usage_errors.empty()) << result.usage_errors.front();
    EXPECT_TRUE(result.notes.empty()) << result.notes.front();
    ASSERT_EQ(result.kernels.size(), 1u);
    const auto& kernel = result.kernels.front();
    EXPECT_EQ(kernel.spec.reduction, kernelgen::Reduction::Add);

    std::string log;
    const json ort = run_ort(dir_ / (name + ".capture.onnx"), dir_ / (name + ".inputs.json"), dir_ / (name + ".ort.json"), log);
    ASSERT_FALSE(ort.is_null()) << log;
    const json feeds = json::parse(read_text(dir_ / (name + ".inputs.json")));
    const json eager = json::parse(read_text(dir_ / (name + ".eager.json")));
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromString(read_text(dir_ / (name + ".onnx"))));
    const onnx::NodeProto& node = model.graph().node(static_cast<int>(kernel.node.position));
    auto floats = [](const json& tensor) {
        const std::vector<uint8_t> bytes = cprogram::unhex(tensor.at("hex").get<std::string>());
        std::vector<float> values(bytes.size() / 4);
        std::memcpy(values.data(), bytes.data(), bytes.size());
        return values;
    };
    const std::vector<float> x = floats(feeds.at("x")), want = floats(eager.at("out")), model_out = floats(ort.at("out"));
    ASSERT_EQ(x.size(), want.size());
    ASSERT_EQ(model_out.size(), want.size());
    // The model itself loses updates: ONNX Runtime's output differs from eager PyTorch's.
    size_t lost = 0;
    for (size_t i = 0; i < want.size(); ++i) lost += model_out[i] != want[i];
    EXPECT_GT(lost, 0u) << "the export's duplicate indices no longer lose updates in the model";
    // The kernel, on the tensors ONNX Runtime shows at the node: its output plus x is eager PyTorch's, bit for bit (the
    // values are quarters, whose sums are exact in any order). The expected output is eager's minus x (exact too).
    std::vector<float> expected(want.size());
    for (size_t i = 0; i < want.size(); ++i) expected[i] = want[i] - x[i];
    auto captured = [&](const std::string& value) {  // a graph input from the inputs file
        const json& tensor = ort.contains(value + ".captured") ? ort.at(value + ".captured") : feeds.at(value);
        return cprogram::unhex(tensor.at("hex").get<std::string>());
    };
    const std::vector<uint8_t> zeros = captured(node.input(0));
    EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](uint8_t b) { return b == 0; }));
    std::vector<cprogram::Case> cases{make_case(kernel.spec, name, zeros, captured(kernel.tensors.indices), captured(node.input(2)),
                                                cprogram::bytes_of(expected))};
    run_cases(fresh_dir("torch_accumulate"), {kernel.spec}, cases);
}

// --- subgraphs: If, Loop and Scan bodies ---------------------------------------------------------------------------

void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* infos, const std::string& name, int32_t type,
               const std::vector<int64_t>& dims, bool shaped = true) {
    auto* info = infos->Add();
    info->set_name(name);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    if (!shaped) return;
    auto* shape = info->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// A model whose indexing nodes all sit in bodies: an If ("route") holding another If ("inner") in its then branch,
// whose branches gather different numbers of rows; a ScatterND in the outer else branch; a Gather of row i in a
// Loop ("steps") body; a Gather in a Scan ("scan") body; and a Gather by a branch's own Constant.
Model subgraph_model() {
    Model m(16);
    m.input("cond", onnx::TensorProto::BOOL, {});
    m.input("cond2", onnx::TensorProto::BOOL, {});
    m.input("data", kFloat, {6, 4});
    m.input("idx", kInt64, {3});
    m.input("idx_b", kInt64, {5});
    m.input("sidx", kInt64, {2, 1});
    m.input("upd", kFloat, {2, 4});
    m.input("seq", kInt64, {3});
    onnx::NodeProto& route = m.node("If", {"cond"}, "route_out", "route");
    onnx::GraphProto* then_branch = add_body(route, "then_branch", "route_then");
    onnx::NodeProto& inner = Model::add_node(then_branch, "If", {"cond2"}, "inner_out", "inner");
    add_value(then_branch->mutable_output(), "inner_out", kFloat, {}, false);
    onnx::GraphProto* pick3 = add_body(inner, "then_branch", "inner_then");
    Model::add_node(pick3, "Gather", {"data", "idx"}, "picked3", "pick3");
    add_value(pick3->mutable_output(), "picked3", kFloat, {3, 4});
    onnx::GraphProto* pick5 = add_body(inner, "else_branch", "inner_else");
    Model::add_node(pick5, "Gather", {"data", "idx_b"}, "picked5", "pick5");
    add_value(pick5->mutable_output(), "picked5", kFloat, {5, 4});
    onnx::GraphProto* else_branch = add_body(route, "else_branch", "route_else");
    Model::add_node(else_branch, "ScatterND", {"data", "sidx", "upd"}, "updated", "update");
    add_value(else_branch->mutable_output(), "updated", kFloat, {6, 4});

    m.initializer("trips", kInt64, {}, {3});
    onnx::NodeProto& loop = m.node("Loop", {"trips", ""}, "steps_out", "steps");
    onnx::GraphProto* body = add_body(loop, "body", "steps_body");
    add_value(body->mutable_input(), "i", kInt64, {});
    add_value(body->mutable_input(), "go", onnx::TensorProto::BOOL, {});
    Model::add_node(body, "Identity", {"go"}, "go_on", "");
    Model::add_node(body, "Gather", {"data", "i"}, "row_out", "row");
    add_value(body->mutable_output(), "go_on", onnx::TensorProto::BOOL, {});
    add_value(body->mutable_output(), "row_out", kFloat, {4});

    onnx::NodeProto& scan = m.node("Scan", {"seq"}, "scan_out", "scan");
    Model::attribute(scan, "num_scan_inputs", 1);
    onnx::GraphProto* scan_body = add_body(scan, "body", "scan_body");
    add_value(scan_body->mutable_input(), "t", kInt64, {});
    onnx::NodeProto& constant = Model::add_node(scan_body, "Constant", {}, "two", "");
    auto* value = constant.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    Model::fill(value->mutable_t(), "", kInt64, {2}, {5, -6});
    Model::add_node(scan_body, "Gather", {"data", "t"}, "looked", "lookup");
    Model::add_node(scan_body, "Gather", {"data", "two"}, "fixed", "fixed_rows");
    add_value(scan_body->mutable_output(), "looked", kFloat, {4});
    m.output("route_out", kFloat, {});
    m.proto().mutable_graph()->mutable_output()->Mutable(0)->mutable_type()->mutable_tensor_type()->clear_shape();
    m.output("steps_out", kFloat, {3, 4});
    m.output("scan_out", kFloat, {3, 4});
    return m;
}

// A Loop that runs exactly its trip count (known, here x's row count through Shape and Gather; the condition true on
// entry and kept true by the body, as PyTorch's exports make it: a Cast of the outer true) stacks that many rows:
// a Gather of its scan output gets the shape; so does one without a condition input, which ignores the body's
// condition. A Loop whose body may stop early (the condition i < 2) does not: its scan output's rows are not known,
// and the Gather after it is skipped, saying so.
TEST(ImportSubgraphs, LoopScanOutputsTakeTheTripCount) {
    Model m(16);
    m.input("x", kFloat, {5, 4});
    m.input("pick", kInt64, {2});
    m.initializer("zero", kInt64, {}, {0});
    m.initializer("two", kInt64, {}, {2});
    m.initializer("yes", onnx::TensorProto::BOOL, {}, {1});
    m.node("Shape", {"x"}, "x_shape", "shape");
    m.node("Gather", {"x_shape", "zero"}, "rows", "rows");
    for (const std::string loop_name : {"bags", "until", "for"}) {
        onnx::NodeProto& loop = m.node("Loop", {"rows", loop_name == "for" ? "" : "yes"}, loop_name + "_out", loop_name);
        onnx::GraphProto* body = add_body(loop, "body", loop_name + "_body");
        add_value(body->mutable_input(), loop_name + "_i", kInt64, {});
        add_value(body->mutable_input(), loop_name + "_c", onnx::TensorProto::BOOL, {});
        if (loop_name == "bags") {
            Model::attribute(Model::add_node(body, "Cast", {"yes"}, "bags_go", ""), "to", int64_t{onnx::TensorProto::BOOL});
        } else {
            Model::add_node(body, "Less", {loop_name + "_i", "two"}, loop_name + "_go", "");
        }
        Model::add_node(body, "Gather", {"x", loop_name + "_i"}, loop_name + "_row", loop_name + "_row");
        Model::add_node(body, "Mul", {loop_name + "_row", loop_name + "_row"}, loop_name + "_square", "");
        add_value(body->mutable_output(), loop_name + "_go", onnx::TensorProto::BOOL, {});
        add_value(body->mutable_output(), loop_name + "_square", kFloat, {4});
        m.node("Gather", {loop_name + "_out", "pick"}, loop_name + "_picked", loop_name + "_picked");
    }
    for (const std::string name : {"bags_picked", "until_picked", "for_picked"}) m.output(name, kFloat, {2, 4});
    const auto result = kernelgen::import_model(m.bytes(), "loops.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    for (const std::string name : {"bags_picked", "for_picked"}) {
        const auto picked = std::find_if(result.kernels.begin(), result.kernels.end(),
                                         [&](const kernelgen::ImportedKernel& kernel) { return kernel.name == name; });
        ASSERT_NE(picked, result.kernels.end()) << name;
        EXPECT_EQ(picked->spec.data_shape, (kernelgen::Shape{5, 4})) << name;
    }
    ASSERT_EQ(result.skipped.size(), 1u);
    EXPECT_EQ(result.skipped[0].node.str(), "node \"until_picked\" (Gather, #5)");
    EXPECT_EQ(result.skipped[0].reason, "dynamic shape: data \"until_out\" dimension 0 could not be inferred; fix it with "
                                        "--dim or --input");
}

TEST(ImportSubgraphs, BodiesImportWithTheirPathsAndAgreeWithOnnxRuntime) {
    kernelgen::ImportOptions options;
    options.prefix = "m_";
    const Model model = subgraph_model();
    const auto result = kernelgen::import_model(model.bytes(), "bodies.onnx", options);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    EXPECT_TRUE(result.skipped.empty()) << result.skipped.front().node.str() << ": " << result.skipped.front().reason;
    std::vector<std::string> names;
    for (const auto& kernel : result.kernels) names.push_back(kernel.name + " <- " + kernel.node.str() + " " + kernel.node.path());
    EXPECT_EQ(names, (std::vector<std::string>{
                         "m_inner_then_pick3 <- node \"pick3\" (Gather, #0 in route/then/inner/then) route/then/inner/then/pick3",
                         "m_inner_else_pick5 <- node \"pick5\" (Gather, #0 in route/then/inner/else) route/then/inner/else/pick5",
                         "m_route_else_update <- node \"update\" (ScatterND, #0 in route/else) route/else/update",
                         "m_steps_body_row <- node \"row\" (Gather, #1 in steps/body) steps/body/row",
                         "m_scan_body_lookup <- node \"lookup\" (Gather, #1 in scan/body) scan/body/lookup",
                         "m_scan_body_fixed_rows <- node \"fixed_rows\" (Gather, #2 in scan/body) scan/body/fixed_rows",
                     }));
    ASSERT_EQ(result.kernels.size(), 6u);
    EXPECT_EQ(result.kernels[4].spec.indices_shape, kernelgen::Shape{});                  // one t per iteration
    EXPECT_TRUE(result.kernels[5].spec.constant_indices.has_value());                    // the body's Constant
    EXPECT_EQ(kernelgen::import_summary(result, "bodies.onnx"), "bodies.onnx: 6 specs (6 in subgraphs), 0 folded, 0 skipped");
    const json report = json::parse(result.report);
    ASSERT_EQ(report.at("nodes").size(), 6u);
    EXPECT_EQ(report.at("nodes")[0].at("path"), "route/then/inner/then/pick3");
    EXPECT_EQ(report.at("nodes")[0].at("spec"), "m_inner_then_pick3.json");
    if (!have_ort()) GTEST_SKIP() << "node or onnxruntime-node missing: the kernels are not compared with ONNX Runtime";

    // ONNX Runtime runs the model three times, once down each branch.
    const std::vector<float> data{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
    const std::vector<int64_t> idx{5, -6, 2}, idx_b{0, -1, 3, 3, 1}, sidx{4, -1}, seq{2, -1, 0};
    const std::vector<float> upd{-1, -2, -3, -4, -5, -6, -7, -8};
    const fs::path dir = fresh_dir("bodies");
    write_text(dir / "model.onnx", model.bytes());
    std::vector<json> outputs;
    for (auto [c1, c2] : {std::pair{1, 1}, std::pair{1, 0}, std::pair{0, 1}}) {
        json feeds;
        auto put = [&](const std::string& name, const std::string& type, std::vector<int64_t> dims, std::vector<uint8_t> bytes) {
            feeds[name] = {{"type", type}, {"dims", dims}, {"hex", cprogram::hex(bytes)}};
        };
        put("cond", "bool", {}, {static_cast<uint8_t>(c1)});
        put("cond2", "bool", {}, {static_cast<uint8_t>(c2)});
        put("data", "float32", {6, 4}, cprogram::bytes_of(data));
        put("idx", "int64", {3}, cprogram::bytes_of(idx));
        put("idx_b", "int64", {5}, cprogram::bytes_of(idx_b));
        put("sidx", "int64", {2, 1}, cprogram::bytes_of(sidx));
        put("upd", "float32", {2, 4}, cprogram::bytes_of(upd));
        put("seq", "int64", {3}, cprogram::bytes_of(seq));
        const std::string tag = std::to_string(c1) + std::to_string(c2);
        write_text(dir / ("inputs" + tag + ".json"), feeds.dump());
        std::string log;
        outputs.push_back(run_ort(dir / "model.onnx", dir / ("inputs" + tag + ".json"), dir / ("outputs" + tag + ".json"), log));
        ASSERT_FALSE(outputs.back().is_null()) << log;
    }
    auto out = [&](size_t run, const std::string& name) { return cprogram::unhex(outputs[run].at(name).at("hex").get<std::string>()); };
    auto row = [&](const std::vector<uint8_t>& rows, size_t r) {
        return std::vector<uint8_t>(rows.begin() + static_cast<std::ptrdiff_t>(r * 16), rows.begin() + static_cast<std::ptrdiff_t>(r * 16 + 16));
    };
    const auto data_bytes = cprogram::bytes_of(data);
    std::vector<kernelgen::KernelSpec> kernels;
    for (const auto& kernel : result.kernels) kernels.push_back(kernel.spec);
    std::vector<cprogram::Case> cases{
        make_case(kernels[0], "then, then", data_bytes, cprogram::bytes_of(idx), {}, out(0, "route_out")),
        make_case(kernels[1], "then, else", data_bytes, cprogram::bytes_of(idx_b), {}, out(1, "route_out")),
        make_case(kernels[2], "else", data_bytes, cprogram::bytes_of(sidx), cprogram::bytes_of(upd), out(2, "route_out")),
    };
    for (int64_t i = 0; i < 3; ++i) {
        cases.push_back(make_case(kernels[3], "iteration " + std::to_string(i), data_bytes, cprogram::bytes_of(std::vector<int64_t>{i}),
                                  {}, row(out(0, "steps_out"), static_cast<size_t>(i))));
        cases.push_back(make_case(kernels[4], "scan step " + std::to_string(i), data_bytes,
                                  cprogram::bytes_of(std::vector<int64_t>{seq[static_cast<size_t>(i)]}), {},
                                  row(out(0, "scan_out"), static_cast<size_t>(i))));
    }
    run_cases(dir / "c", {kernels[0], kernels[1], kernels[2], kernels[3], kernels[4]}, cases);
}

// --- constant folding -------------------------------------------------------------------------------------------

kernelgen::TensorValue ints_value(int32_t type, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
    kernelgen::TensorValue v;
    v.type = type;
    v.dims = dims;
    v.ints = values;
    return v;
}

kernelgen::TensorValue floats_value(const std::vector<int64_t>& dims, const std::vector<double>& values) {
    kernelgen::TensorValue v;
    v.type = kFloat;
    v.dims = dims;
    v.reals = values;
    return v;
}

// Folds one node of `op` (attributes given as a small JSON object: ints, lists of ints, strings) on `inputs`
// (nullptr: an input left out), at `opset`; returns the first output as "dims: values" JSON, or "not folded".
std::string fold(const std::string& op, const json& attributes, const std::vector<const kernelgen::TensorValue*>& inputs,
                 int64_t opset = 17) {
    onnx::NodeProto node;
    node.set_op_type(op);
    std::vector<kernelgen::FoldInput> in;
    for (size_t i = 0; i < inputs.size(); ++i) {
        node.add_input(inputs[i] ? "in" + std::to_string(i) : "");
        kernelgen::FoldInput input;
        input.present = inputs[i] != nullptr;
        input.value = inputs[i];
        in.push_back(input);
    }
    node.add_output("out");
    for (const auto& [key, value] : attributes.items()) {
        auto* a = node.add_attribute();
        a->set_name(key);
        if (value.is_string()) {
            a->set_type(onnx::AttributeProto::STRING);
            a->set_s(value.get<std::string>());
        } else if (value.is_array()) {
            a->set_type(onnx::AttributeProto::INTS);
            for (const auto& item : value) a->add_ints(item.get<int64_t>());
        } else {
            a->set_type(onnx::AttributeProto::INT);
            a->set_i(value.get<int64_t>());
        }
    }
    auto out = kernelgen::fold_node(node, opset, in);
    if (!out) return "not folded";
    return json(out->front().dims).dump() + ": " + kernelgen::value_json(out->front()).dump();
}

// The table of ONNX operators import reads: each row names a real ONNX operator (a typo would silently turn a rule
// off), once; what folds needs an operator ONNX defines for the model's opsets; a rank-making input exists.
TEST(OnnxOperators, EveryRowIsAnOnnxOperatorOnce) {
    std::set<std::string> seen;
    for (const auto& row : kernelgen::onnx_operators()) {
        const std::string name(row.op_type);
        EXPECT_TRUE(seen.insert(name).second) << name << " has two rows";
        // Opset 18's bitwise operators and Mish are newer than the ONNX library import links (1.12), and so is
        // opset 24's TensorScatter, whose row gives inference its shape rule (same_type_as_input): such a row is for
        // an operator that library does not know, else inference would not need it.
        static const std::set<std::string> newer{"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "Mish"};
        const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(name, 17, "");
        EXPECT_TRUE(schema || newer.count(name) || row.same_type_as_input >= 0) << name << " is not an ONNX operator";
        if (row.same_type_as_input >= 0) {
            EXPECT_EQ(onnx::OpSchemaRegistry::Schema(name, 1000, ""), nullptr)
                << name << ": ONNX 1.12's inference knows it, and needs no stand-in";
        }
        if (schema && row.rank_input >= 0) {
            EXPECT_LT(row.rank_input, schema->max_input()) << name;
        }
        EXPECT_TRUE(row.fold || row.count) << name << " has a row but no rule";
    }
    // The producers of run-time counts are those the docs name.
    std::set<std::string> producers;
    for (const auto& row : kernelgen::onnx_operators()) {
        if (row.makes_count != kernelgen::MakesCount::no) producers.insert(std::string(row.op_type));
    }
    EXPECT_EQ(producers, (std::set<std::string>{"Compress", "NonMaxSuppression", "NonZero", "Slice", "TopK", "Unique"}));
}

// Hand-worked values of ONNX's rules in the corners exporters reach, one test per family of fold rules
// (generator/src/import/folding/): what is left to run time is "not folded".

// folding/elementwise.cpp: integer division and Mod's two signs, wrapping in the type's width, Cast's truncation,
// float arithmetic rounded to float32 once, comparisons, Where, Not; division by zero and overflow left to run time.
TEST(Folding, Elementwise) {
    using kernelgen::TensorValue;
    const TensorValue a = ints_value(kInt64, {4}, {7, -7, 7, -7}), b2 = ints_value(kInt64, {4}, {2, 2, -2, -2});
    const TensorValue b3 = ints_value(kInt64, {4}, {3, 3, -3, -3});
    EXPECT_EQ(fold("Div", {}, {&a, &b2}), "[4]: [3,-3,-3,3]");  // truncation toward zero, as ONNX Runtime
    EXPECT_EQ(fold("Mod", {}, {&a, &b3}), "[4]: [1,2,-2,-1]");  // the sign of the divisor
    EXPECT_EQ(fold("Mod", {{"fmod", 1}}, {&a, &b3}), "[4]: [1,-1,1,-1]");  // the sign of the dividend
    const TensorValue zero = ints_value(kInt64, {}, {0}), minus_one = ints_value(kInt64, {}, {-1});
    const TensorValue lowest = ints_value(kInt64, {}, {std::numeric_limits<int64_t>::min()});
    EXPECT_EQ(fold("Div", {}, {&a, &zero}), "not folded");
    EXPECT_EQ(fold("Div", {}, {&lowest, &minus_one}), "not folded");
    EXPECT_EQ(fold("Mod", {}, {&lowest, &minus_one}), "[]: 0");
    const TensorValue i32max = ints_value(kInt32, {}, {2147483647}), i32one = ints_value(kInt32, {}, {1});
    EXPECT_EQ(fold("Add", {}, {&i32max, &i32one}), "[]: -2147483648");  // wraps in the type's width
    EXPECT_EQ(fold("Add", {}, {&i32max, &minus_one}), "not folded");  // int32 and int64: not a valid node

    const TensorValue f = floats_value({4}, {2.7, -2.7, 0.5, 1e30});
    EXPECT_EQ(fold("Cast", {{"to", kInt64}}, {&f}), "not folded");  // 1e30 does not fit
    const TensorValue g = floats_value({3}, {2.7, -2.7, 0.5});
    EXPECT_EQ(fold("Cast", {{"to", kInt64}}, {&g}), "[3]: [2,-2,0]");
    // int64 to float32 rounded once, as ONNX Runtime casts: 2^60 + 2^36 + 1 is above the midpoint between 2^60 and
    // 2^60 + 2^37 (through a double it would lose its 1 and tie to 2^60).
    const TensorValue beyond_half = ints_value(kInt64, {}, {(int64_t{1} << 60) + (int64_t{1} << 36) + 1});
    EXPECT_EQ(fold("Cast", {{"to", kFloat}}, {&beyond_half}), "[]: 1.1529216e+18");  // 2^60 + 2^37; 2^60 is 1.1529215e+18
    EXPECT_EQ(fold("Floor", {}, {&g}), "[3]: [2.0,-3.0,0.0]");
    // Round halves to even; Reciprocal and Sqrt rounded once to float32 (1/3 is 0x3EAAAAAB, shown 0.33333334;
    // sqrt(2) is 0x3FB504F3, 1.4142135); the root of a negative is left to run time.
    const TensorValue halves = floats_value({4}, {0.5, 1.5, 2.5, -2.5});
    EXPECT_EQ(fold("Round", {}, {&halves}), "[4]: [0.0,2.0,2.0,-2.0]");
    const TensorValue three_two = floats_value({2}, {3.0, 2.0});
    EXPECT_EQ(fold("Reciprocal", {}, {&three_two}), "[2]: [0.33333334,0.5]");
    EXPECT_EQ(fold("Sqrt", {}, {&three_two}), "[2]: [1.7320508,1.4142135]");
    const TensorValue minus = floats_value({1}, {-4.0});
    EXPECT_EQ(fold("Sqrt", {}, {&minus}), "not folded");
    const TensorValue half = floats_value({}, {0.5});
    EXPECT_EQ(fold("Mul", {}, {&g, &half}), "[3]: [1.35,-1.35,0.25]");  // rounded to float32 once

    const TensorValue x = ints_value(kInt64, {2, 2}, {1, 2, 3, 4}), y = ints_value(kInt64, {2}, {2, 2});
    EXPECT_EQ(fold("Less", {}, {&x, &y}), "[2,2]: [[true,false],[false,false]]");
    EXPECT_EQ(fold("Equal", {}, {&x, &y}), "[2,2]: [[false,true],[false,false]]");
    const TensorValue cond = ints_value(onnx::TensorProto::BOOL, {2}, {1, 0});
    EXPECT_EQ(fold("Where", {}, {&cond, &x, &y}), "[2,2]: [[1,2],[3,2]]");
    EXPECT_EQ(fold("Not", {}, {&cond}), "[2]: [false,true]");
}

// folding/shapes.cpp: Slice's clamping and negative steps, Range's count, Reshape's 0 and -1, Transpose, Expand's
// and Concat's broadcasting, Tile, Unsqueeze and Squeeze (attributes before opset 13), Shape, Size, ConstantOfShape.
TEST(Folding, Shapes) {
    using kernelgen::TensorValue;
    const TensorValue zero = ints_value(kInt64, {}, {0});
    const TensorValue ten = ints_value(kInt64, {10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    const TensorValue s8 = ints_value(kInt64, {1}, {8}), e1 = ints_value(kInt64, {1}, {1}), step3 = ints_value(kInt64, {1}, {-3});
    EXPECT_EQ(fold("Slice", {}, {&ten, &s8, &e1, nullptr, &step3}), "[3]: [8,5,2]");
    const TensorValue big = ints_value(kInt64, {1}, {std::numeric_limits<int64_t>::max()});
    const TensorValue small = ints_value(kInt64, {1}, {std::numeric_limits<int64_t>::min()});
    const TensorValue back = ints_value(kInt64, {1}, {-1});
    EXPECT_EQ(fold("Slice", {}, {&ten, &big, &small, nullptr, &back}), "[10]: [9,8,7,6,5,4,3,2,1,0]");
    const TensorValue m2 = ints_value(kInt64, {1}, {-2});
    EXPECT_EQ(fold("Slice", {}, {&ten, &m2, &big}), "[2]: [8,9]");
    EXPECT_EQ(fold("Slice", {{"starts", {2}}, {"ends", {5}}}, {&ten}, 9), "[3]: [2,3,4]");  // opset 9: attributes

    const TensorValue r1 = ints_value(kInt64, {}, {1}), r10 = ints_value(kInt64, {}, {10}), r3 = ints_value(kInt64, {}, {3});
    const TensorValue m4 = ints_value(kInt64, {}, {-4});
    EXPECT_EQ(fold("Range", {}, {&r1, &r10, &r3}), "[3]: [1,4,7]");
    EXPECT_EQ(fold("Range", {}, {&r10, &r1, &m4}), "[3]: [10,6,2]");
    EXPECT_EQ(fold("Range", {}, {&r10, &r1, &r3}), "[0]: []");
    EXPECT_EQ(fold("Range", {}, {&r1, &r10, &zero}), "not folded");

    const TensorValue six = ints_value(kInt64, {2, 3}, {1, 2, 3, 4, 5, 6});
    const TensorValue keep = ints_value(kInt64, {2}, {0, -1}), flat = ints_value(kInt64, {1}, {-1});
    EXPECT_EQ(fold("Reshape", {}, {&six, &keep}), "[2,3]: [[1,2,3],[4,5,6]]");
    EXPECT_EQ(fold("Reshape", {}, {&six, &flat}), "[6]: [1,2,3,4,5,6]");
    EXPECT_EQ(fold("Transpose", {}, {&six}), "[3,2]: [[1,4],[2,5],[3,6]]");
    const TensorValue to3x1 = ints_value(kInt64, {3}, {2, 1, 3});
    const TensorValue column = ints_value(kInt64, {2, 1}, {10, 20});
    EXPECT_EQ(fold("Expand", {}, {&column, &to3x1}), "[2,2,3]: [[[10,10,10],[20,20,20]],[[10,10,10],[20,20,20]]]");
    const TensorValue reps = ints_value(kInt64, {2}, {1, 2});
    EXPECT_EQ(fold("Tile", {}, {&six, &reps}), "[2,6]: [[1,2,3,1,2,3],[4,5,6,4,5,6]]");
    EXPECT_EQ(fold("Concat", {{"axis", -1}}, {&six, &six}), "[2,6]: [[1,2,3,1,2,3],[4,5,6,4,5,6]]");
    const TensorValue axes = ints_value(kInt64, {2}, {0, -1});
    EXPECT_EQ(fold("Unsqueeze", {}, {&ten, &axes}), "[1,10,1]: [[[0],[1],[2],[3],[4],[5],[6],[7],[8],[9]]]");
    EXPECT_EQ(fold("Unsqueeze", {{"axes", {0}}}, {&r1}, 11), "[1]: [1]");  // opset 11: an attribute
    const TensorValue ones = ints_value(kInt64, {1, 2, 1}, {4, 5});
    EXPECT_EQ(fold("Squeeze", {}, {&ones}), "[2]: [4,5]");
    EXPECT_EQ(fold("Shape", {{"start", -1}}, {&six}), "[1]: [3]");
    // Shape's end counts from the back too, and both ends are clamped to [0, rank]; an end before the start is empty.
    EXPECT_EQ(fold("Shape", {{"end", -1}}, {&ones}), "[2]: [1,2]");
    EXPECT_EQ(fold("Shape", {{"start", -2}, {"end", -1}}, {&ones}), "[1]: [2]");
    EXPECT_EQ(fold("Shape", {{"start", -9}, {"end", 9}}, {&ones}), "[3]: [1,2,1]");
    EXPECT_EQ(fold("Shape", {{"start", 2}, {"end", -2}}, {&ones}), "[0]: []");
    EXPECT_EQ(fold("Size", {}, {&six}), "[]: 6");
    const TensorValue shape = ints_value(kInt64, {2}, {2, 1});
    EXPECT_EQ(fold("ConstantOfShape", {}, {&shape}), "[2,1]: [[0.0],[0.0]]");  // a float 0 by default
}

// folding/reduce.cpp: ReduceSum with axes as an input, ReduceProd over everything, ReduceMax with axes as an
// attribute.
TEST(Folding, Reductions) {
    using kernelgen::TensorValue;
    const TensorValue six = ints_value(kInt64, {2, 3}, {1, 2, 3, 4, 5, 6});
    const TensorValue axis1 = ints_value(kInt64, {1}, {1});
    EXPECT_EQ(fold("ReduceSum", {{"keepdims", 0}}, {&six, &axis1}), "[2]: [6,15]");
    EXPECT_EQ(fold("ReduceProd", {}, {&six}), "[1,1]: [[720]]");
    EXPECT_EQ(fold("ReduceMax", {{"axes", {0}}, {"keepdims", 0}}, {&six}), "[3]: [4,5,6]");
}

// folding/indexing.cpp: a negative index; an index out of range is left to the kernel's check. An operator the
// table has no fold rule for is not folded.
TEST(Folding, Indexing) {
    using kernelgen::TensorValue;
    const TensorValue rows = ints_value(kInt64, {3, 2}, {1, 2, 3, 4, 5, 6}), picks = ints_value(kInt64, {2}, {-1, 0});
    EXPECT_EQ(fold("Gather", {}, {&rows, &picks}), "[2,2]: [[5,6],[1,2]]");
    const TensorValue far = ints_value(kInt64, {1}, {3});
    EXPECT_EQ(fold("Gather", {}, {&rows, &far}), "not folded");  // out of range: left to the kernel's check
    EXPECT_EQ(fold("Pad", {}, {&rows}), "not folded");           // not an operator folding knows
}

// Each indexing operator folded from initializers gives what its kernel gives on the same tensors: the same node
// with its data (and updates) as graph inputs becomes a constant-indices spec, whose kernel runs on them.
TEST(Folding, IndexingNodesEqualTheirKernels) {
    struct Node {
        std::string op;
        std::vector<int64_t> data_dims, indices_dims, updates_dims;
        std::vector<int64_t> indices;
        std::vector<std::pair<std::string, json>> attributes;
    };
    const std::vector<Node> nodes{
        {"Gather", {3, 4}, {2, 2}, {}, {3, -4, 0, 1}, {{"axis", -1}}},
        {"GatherElements", {3, 4}, {2, 4}, {}, {2, -1, 0, 1, -3, 2, 1, 0}, {{"axis", 0}}},
        {"GatherND", {2, 3, 4}, {2, 2, 1}, {}, {2, -1, 0, 1}, {{"batch_dims", 1}}},
        {"ScatterND", {5, 2}, {4, 1}, {4, 2}, {1, -4, 4, 1}, {{"reduction", "add"}}},        // a duplicate row
        {"ScatterElements", {3, 3}, {2, 3}, {2, 3}, {0, 2, -1, 0, 2, -1}, {{"axis", 0}, {"reduction", "max"}}},
    };
    std::mt19937 random(19);
    std::vector<kernelgen::KernelSpec> kernels;
    std::vector<cprogram::Case> cases;
    for (const auto& n : nodes) {
        SCOPED_TRACE(n.op);
        auto count = [](const std::vector<int64_t>& dims) {
            int64_t c = 1;
            for (int64_t d : dims) c *= d;
            return c;
        };
        std::vector<float> data(static_cast<size_t>(count(n.data_dims))), updates(static_cast<size_t>(count(n.updates_dims)));
        for (auto& v : data) v = static_cast<float>(static_cast<int>(random() % 19) - 9) / 2.0f;
        for (auto& v : updates) v = static_cast<float>(static_cast<int>(random() % 19) - 9) / 2.0f;
        auto float_tensor = [](onnx::TensorProto* t, const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<float>& values) {
            t->set_name(name);
            t->set_data_type(kFloat);
            for (int64_t d : dims) t->add_dims(d);
            for (float v : values) t->add_float_data(v);
        };
        const bool scatter = !n.updates_dims.empty();
        std::vector<uint8_t> folded_bytes;
        for (const bool constant_data : {true, false}) {
            Model m(18);
            if (constant_data) {
                float_tensor(m.proto().mutable_graph()->add_initializer(), "data", n.data_dims, data);
                if (scatter) float_tensor(m.proto().mutable_graph()->add_initializer(), "updates", n.updates_dims, updates);
            } else {
                m.input("data", kFloat, n.data_dims);
                if (scatter) m.input("updates", kFloat, n.updates_dims);
            }
            m.initializer("indices", kInt64, n.indices_dims, n.indices);
            std::vector<std::string> inputs{"data", "indices"};
            if (scatter) inputs.push_back("updates");
            onnx::NodeProto& node = m.node(n.op, inputs, "out", "node");
            for (const auto& [key, value] : n.attributes) {
                if (value.is_string()) Model::attribute(node, key, value.get<std::string>());
                else Model::attribute(node, key, value.get<int64_t>());
            }
            m.output("out", kFloat, {});
            m.proto().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
            const auto result = kernelgen::import_model(m.bytes(), n.op + ".onnx");
            ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
            ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
            if (constant_data) {
                ASSERT_EQ(result.folded.size(), 1u);
                std::vector<double> values;
                flatten_json(result.folded[0].value, values);
                folded_bytes = cprogram::bytes_of(std::vector<float>(values.begin(), values.end()));
            } else {
                ASSERT_EQ(result.kernels.size(), 1u);
                kernels.push_back(result.kernels[0].spec);
                ASSERT_TRUE(kernels.back().constant_indices.has_value());
                kernels.back().name = "fold_" + std::to_string(kernels.size());  // one name per kernel of the run
                cases.push_back(make_case(kernels.back(), n.op + ": the folded value", cprogram::bytes_of(data), {},
                                          scatter ? cprogram::bytes_of(updates) : std::vector<uint8_t>{}, folded_bytes));
            }
        }
    }
    ASSERT_EQ(kernels.size(), 5u);
    run_cases(fresh_dir("folding"), kernels, cases);
}

// Shape arithmetic once the dims are bound: Shape -> Gather -> Unsqueeze -> Concat chains are folded, indices
// computed from them become constant indices, and a node with one unknown input is not folded.
TEST(Folding, ShapeChainsOnceDimsAreBound) {
    Model m(17);
    m.input("x", kFloat, {kDynamic, 6});
    m.input("ids", kInt64, {kDynamic});
    m.node("Shape", {"x"}, "shape", "shape");
    m.initializer("zero", kInt64, {}, {0});
    m.initializer("axis0", kInt64, {1}, {0});
    m.node("Gather", {"shape", "zero"}, "n", "batch_of_shape");                // folded: N
    m.node("Unsqueeze", {"n", "axis0"}, "n1", "");
    Model::attribute(m.node("Concat", {"n1", "n1"}, "n2", ""), "axis", 0);
    m.initializer("step", kInt64, {}, {1});
    m.initializer("minus_one", kInt64, {}, {-1});
    m.node("Range", {"zero", "n", "step"}, "iota", "");                      // 0 .. N-1, computed at import
    m.node("Sub", {"minus_one", "iota"}, "reversed", "");                    // -1 .. -N
    m.node("Gather", {"x", "reversed"}, "flipped", "flip");                   // constant indices
    m.node("Gather", {"n2", "zero"}, "n_again", "from_concat");               // folded
    m.node("Gather", {"x", "ids"}, "looked", "lookup");                       // indices unknown: a kernel
    for (const auto& [out, type] : {std::pair{"n", kInt64}, std::pair{"flipped", kFloat}, std::pair{"n_again", kInt64},
                                    std::pair{"looked", kFloat}}) {
        m.output(out, type, {});
        auto* outputs = m.proto().mutable_graph()->mutable_output();
        outputs->Mutable(outputs->size() - 1)->mutable_type()->mutable_tensor_type()->clear_shape();
    }
    kernelgen::ImportOptions options;
    options.dims["N"] = 4;
    const auto result = kernelgen::import_model(m.bytes(), "chain.onnx", options);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.skipped.empty()) << result.skipped.front().reason;
    ASSERT_EQ(result.folded.size(), 2u);
    EXPECT_EQ(result.folded[0].node.name, "batch_of_shape");
    EXPECT_EQ(result.folded[0].value, 4);
    EXPECT_EQ(result.folded[1].node.name, "from_concat");
    EXPECT_EQ(result.folded[1].value, 4);
    ASSERT_EQ(result.kernels.size(), 2u);
    EXPECT_EQ(result.kernels[0].name, "flip");
    EXPECT_NE(result.kernels[0].spec_text.find("\"indices\": [-1, -2, -3, -4]"), std::string::npos) << result.kernels[0].spec_text;
    EXPECT_EQ(result.kernels[1].name, "lookup");
    EXPECT_FALSE(result.kernels[1].spec.constant_indices.has_value());
    EXPECT_EQ(result.kernels[1].spec.data_shape, (kernelgen::Shape{4, 6}));
    // Without the dim, the chain stays dynamic, and the messages say how to fix it.
    const auto unbound = kernelgen::import_model(m.bytes(), "chain.onnx");
    EXPECT_TRUE(unbound.folded.empty());
    EXPECT_EQ(skipped_lines(unbound),
              (std::vector<std::string>{
                  "node \"flip\" (Gather, #6): dynamic shape: data \"x\" dimension 0 is \"N\", indices \"reversed\" dimension 0 "
                  "could not be inferred; fix it with --dim N=<value> and --dim or --input",
                  "node \"lookup\" (Gather, #8): dynamic shape: data \"x\" dimension 0 is \"N\", indices \"ids\" dimension 0 is "
                  "\"N\"; fix it with --dim N=<value>"}));
    ASSERT_EQ(unbound.kernels.size(), 2u);  // the shape itself is a run-time tensor now: tiny kernels
    EXPECT_EQ(unbound.kernels[0].spec.data_shape, kernelgen::Shape{2});
}

// --- run-time counts: bounds derived from the producer, --max-count ---------------------------------------------

// A post-process built by hand (opset 13): the number of rows NonZero, NonMaxSuppression, Compress, TopK with a
// run-time k and Unique select is known only at run time, and bounded by their inputs' static shapes.
Model counted_model() {
    Model m(13);
    m.input("scores", kFloat, {20});
    m.input("boxes", kFloat, {20, 4});
    m.input("classes", kFloat, {1, 3, 20});
    m.input("t", kFloat, {});
    m.input("k", kInt64, {1});
    m.input("ids", kInt64, {12});
    m.input("table", kFloat, {30, 2});
    m.input("dyn_ids", kInt64, {kDynamic});
    m.initializer("max_out", kInt64, {1}, {5});
    m.initializer("axes0", kInt64, {1}, {0});
    m.initializer("axes1", kInt64, {1}, {1});
    m.initializer("two", kInt64, {1}, {2});
    m.initializer("one", kInt64, {}, {1});
    m.initializer("zero", kInt64, {}, {0});
    m.initializer("flat", kInt64, {1}, {-1});
    m.initializer("first", kInt64, {1}, {0});
    m.initializer("eighth", kInt64, {1}, {8});
    m.initializer("pick", kInt64, {2}, {3, 7});
    m.node("Greater", {"scores", "t"}, "mask", "greater");
    m.node("NonZero", {"mask"}, "nz", "nonzero");                                   // [1, K], K <= 20
    m.node("Transpose", {"nz"}, "nzt", "transpose");                                // [K, 1]
    m.node("GatherND", {"boxes", "nzt"}, "confident", "confident");                 // #3
    m.node("Unsqueeze", {"boxes", "axes0"}, "boxes3", "");
    m.node("NonMaxSuppression", {"boxes3", "classes", "max_out"}, "selected", "nms");  // [K, 3], K <= 1 x 3 x 5
    Model::attribute(m.node("Gather", {"selected", "two"}, "column", "column"), "axis", 1);  // #6: data counted
    m.node("Squeeze", {"column", "axes1"}, "keep", "squeeze");
    m.node("Gather", {"boxes", "keep"}, "kept", "kept");                            // #8
    Model::attribute(m.node("Compress", {"boxes", "mask"}, "compressed", "compress"), "axis", 0);
    Model::attribute(m.node("Gather", {"compressed", "one"}, "x1", "compressed_x1"), "axis", 1);  // #10
    m.node("TopK", {"scores", "k"}, "top_values", "topk").add_output("top_indices");
    m.node("Slice", {"top_indices", "first", "eighth"}, "first8", "slice");
    m.node("Gather", {"boxes", "first8"}, "top8", "top8");                          // #13
    m.node("Unique", {"ids"}, "unique_ids", "unique");
    m.node("Gather", {"table", "unique_ids"}, "unique_rows", "unique_rows");        // #15
    m.node("Reshape", {"nz", "flat"}, "flat_nz", "reshape");
    m.node("Gather", {"scores", "flat_nz"}, "flat_scores", "flat");                 // #17
    m.node("ScatterND", {"boxes", "nzt", "confident"}, "rewritten", "rewrite");     // #18: indices and updates
    m.node("Unsqueeze", {"scores", "axes0"}, "scores2", "");
    Model::attribute(m.node("GatherElements", {"scores2", "nz"}, "by_mask", "by_mask"), "axis", 1);  // #20: dim 1
    m.node("CumSum", {"keep", "zero"}, "running", "cumsum");                        // not followed
    m.node("Gather", {"boxes", "running"}, "cumulative", "cumulative");             // #22
    m.node("Gather", {"compressed", "keep"}, "both", "both");                       // #23: two counts
    m.node("Gather", {"compressed", "zero"}, "first_kept", "first_kept");           // #24: a data count alone
    m.node("Gather", {"boxes", "pick"}, "picked", "static_lookup");                 // #25: a fixed count
    m.node("Gather", {"table", "dyn_ids"}, "looked", "dynamic_lookup");             // #26: "N"
    // An If whose branches give the kept indices or none: at most the larger count.
    m.input("choose_kept", onnx::TensorProto::BOOL, {});
    onnx::NodeProto& choose = m.node("If", {"choose_kept"}, "chosen", "choose");    // #27
    onnx::GraphProto* then_branch = add_body(choose, "then_branch", "then");
    Model::add_node(then_branch, "Identity", {"keep"}, "then_keep", "");
    add_value(then_branch->mutable_output(), "then_keep", kInt64, {}, false);
    onnx::GraphProto* else_branch = add_body(choose, "else_branch", "else");
    auto* none = Model::add_node(else_branch, "Constant", {}, "no_rows", "").add_attribute();
    none->set_name("value");
    none->set_type(onnx::AttributeProto::TENSOR);
    Model::fill(none->mutable_t(), "", kInt64, {0}, {});
    add_value(else_branch->mutable_output(), "no_rows", kInt64, {0});
    m.node("Gather", {"boxes", "chosen"}, "chosen_boxes", "after_if");              // #28
    return m;
}

struct Bounded {
    std::string kernel;
    uint64_t bound;
    std::string leads;
    std::vector<std::string> through;
    bool operator==(const Bounded& o) const {
        return kernel == o.kernel && bound == o.bound && leads == o.leads && through == o.through;
    }
};

std::ostream& operator<<(std::ostream& out, const Bounded& b) {
    out << b.kernel << " <= " << b.bound << " (" << b.leads << ")";
    for (const auto& step : b.through) out << " / " << step;
    return out;
}

std::vector<Bounded> bounded_kernels(const kernelgen::ImportResult& result) {
    std::vector<Bounded> out;
    for (const auto& kernel : result.kernels) {
        if (kernel.bounded && kernel.bounded->count) {
            out.push_back({kernel.name, kernel.bounded->count->bound, kernel.bounded->leads, kernel.bounded->count->through});
        } else if (kernel.bounded) {
            out.push_back({kernel.name, kernel.bounded->data_count->bound, "data_count", kernel.bounded->data_count->through});
        }
    }
    return out;
}

const char* const kNonZero = "NonZero \"nonzero\": at most 20, the elements of its input [20]";
const char* const kNms = "NonMaxSuppression \"nms\": at most 15, 1 batch x 3 classes x min(max_output_boxes_per_class 5, 20 boxes)";

// A detector's input transform: Resize's sizes computed from the image's shape with float arithmetic (torchvision's
// GeneralizedRCNNTransform: Cast, Reciprocal, Mul, Floor, Round, Cast back). With the image's dims bound, every
// value folds, ONNX's inference shapes the Resize, and the Gather after it is a kernel of known shape.
TEST(ImportModel, ShapesSurviveAResizeSizedByFloatArithmetic) {
    Model m(13);
    m.input("image", kFloat, {1, 3, kDynamic, kDynamic});
    auto* dims = m.proto().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
    dims->mutable_dim(2)->set_dim_param("height");
    dims->mutable_dim(3)->set_dim_param("width");
    m.input("rows", kInt64, {2});
    m.initializer("two", kInt64, {}, {2});
    m.initializer("three", kInt64, {}, {3});
    m.initializer("target", kInt64, {}, {320});
    m.initializer("axes0", kInt64, {1}, {0});
    m.initializer("batch_channels", kInt64, {2}, {1, 3});
    m.node("Shape", {"image"}, "shape");
    m.node("Gather", {"shape", "two"}, "h");
    m.node("Gather", {"shape", "three"}, "w");
    Model::attribute(m.node("Cast", {"h"}, "hf"), "to", int64_t{kFloat});
    Model::attribute(m.node("Cast", {"w"}, "wf"), "to", int64_t{kFloat});
    Model::attribute(m.node("Cast", {"target"}, "target_f"), "to", int64_t{kFloat});
    m.node("Reciprocal", {"wf"}, "inverse");
    m.node("Mul", {"inverse", "target_f"}, "scale");
    m.node("Mul", {"hf", "scale"}, "h_scaled");
    m.node("Mul", {"wf", "scale"}, "w_scaled");
    m.node("Floor", {"h_scaled"}, "h_floor");
    m.node("Round", {"w_scaled"}, "w_round");
    Model::attribute(m.node("Cast", {"h_floor"}, "h_new"), "to", int64_t{kInt64});
    Model::attribute(m.node("Cast", {"w_round"}, "w_new"), "to", int64_t{kInt64});
    m.node("Unsqueeze", {"h_new", "axes0"}, "h_1");
    m.node("Unsqueeze", {"w_new", "axes0"}, "w_1");
    Model::attribute(m.node("Concat", {"batch_channels", "h_1", "w_1"}, "sizes"), "axis", 0);
    m.node("Resize", {"image", "", "", "sizes"}, "resized", "resize");
    Model::attribute(m.node("Gather", {"resized", "rows"}, "picked", "pick_rows"), "axis", 2);
    m.output("picked", kFloat, {1, 3, 2, kDynamic});
    kernelgen::ImportOptions options;
    options.dims = {{"height", 480}, {"width", 640}};
    const auto result = kernelgen::import_model(m.bytes(), "transform.onnx", options);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_EQ(result.kernels.size(), 1u) << result.report;
    // 480 x 320/640 = 240 rows, 640 x 320/640 = 320 columns.
    EXPECT_EQ(result.kernels[0].spec.data_shape, (kernelgen::Shape{1, 3, 240, 320}));
    EXPECT_EQ(result.kernels[0].spec.indices_shape, (kernelgen::Shape{2}));
}

// A Reshape to a shape of run-time length leaves inference without even a rank: a Gather of its Shape is a lost
// rank (not a run-time count, though a TopK with a run-time k made the shape: no --max-count hint), and a Gather
// of the Reshape itself names the node where inference stopped.
TEST(ImportModel, ALostRankIsNamedWhereInferenceStopped) {
    Model m(13);
    m.input("x", kFloat, {6, 4});
    m.input("scores", kInt64, {6});
    m.input("k", kInt64, {1});
    m.initializer("zero", kInt64, {}, {0});
    m.node("TopK", {"scores", "k"}, "target").add_output("target_indices");  // [k] values, a run-time length
    m.node("Reshape", {"x", "target"}, "part", "cut");
    m.node("Shape", {"part"}, "part_shape", "measure");
    m.node("Gather", {"part_shape", "zero"}, "rows", "rows_of_part");
    m.node("Gather", {"part", "zero"}, "first", "first_of_part");
    m.output("rows", kInt64, {});
    m.output("first", kFloat, {4});
    const auto result = kernelgen::import_model(m.bytes(), "lost.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    EXPECT_EQ(result.report.find("inference failed"), std::string::npos) << result.report;
    EXPECT_EQ(skipped_lines(result),
              (std::vector<std::string>{
                  "node \"rows_of_part\" (Gather, #3): dynamic shape: data \"part_shape\" dimension 0 could not be "
                  "inferred: it comes from Shape \"measure\" of \"part\", whose rank is unknown from Reshape \"cut\" on",
                  "node \"first_of_part\" (Gather, #4): dynamic shape: data \"part\" has an unknown rank (shape inference "
                  "gave none from Reshape \"cut\" on)",
              }));
}

TEST(ImportCounts, BoundsFromTheProducerThroughShapeOperators) {
    const auto result = kernelgen::import_model(counted_model().bytes(), "counted.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_TRUE(result.usage_errors.empty()) << result.usage_errors.front();
    EXPECT_EQ(bounded_kernels(result),
              (std::vector<Bounded>{
                  {"confident", 20, "indices", {kNonZero, "Transpose \"transpose\""}},
                  {"column", 15, "data", {kNms}},
                  {"kept", 15, "indices", {kNms, "Gather \"column\"", "Squeeze \"squeeze\""}},
                  {"compressed_x1", 20, "data", {"Compress \"compress\": at most 20, the length of its condition"}},
                  {"top8", 8, "indices",
                   {"TopK \"topk\": at most 20, the size of axis 0 of its input (k is known only at run time)",
                    "Slice \"slice\": at most 8"}},
                  {"unique_rows", 12, "indices", {"Unique \"unique\": at most 12, the elements of its input [12]"}},
                  {"flat", 20, "indices", {kNonZero, "Reshape \"reshape\""}},
                  {"rewrite", 20, "indices", {kNonZero, "Transpose \"transpose\""}},
                  {"both", 15, "indices", {kNms, "Gather \"column\"", "Squeeze \"squeeze\""}},
                  {"first_kept", 20, "data_count", {"Compress \"compress\": at most 20, the length of its condition"}},
                  {"after_if", 15, "indices",
                   {kNms, "Gather \"column\"", "Squeeze \"squeeze\"", "Identity \"Identity#0\"", "If \"choose\""}},
              }));
    // The call names each count's tensor: the indices' rows, data's rows where they lead, data's valid rows.
    std::map<std::string, json> calls;
    const json report = json::parse(result.report);
    for (const auto& node : report["nodes"]) {
        if (node.contains("call")) calls[node["kernel"].get<std::string>()] = node["call"];
    }
    EXPECT_EQ(calls["kept"], json::parse(R"([{"parameter": "data", "tensor": "boxes"}, {"parameter": "indices", "tensor": "keep"},
        {"parameter": "count", "count_of": "keep", "axis": 0}, {"parameter": "output", "tensor": "kept"}])"));
    EXPECT_EQ(calls["column"], json::parse(R"([{"parameter": "data", "tensor": "selected"},
        {"parameter": "count", "count_of": "selected", "axis": 0}, {"parameter": "output", "tensor": "column"}])"));
    EXPECT_EQ(calls["first_kept"].at(1), json::parse(R"({"parameter": "data_count", "count_of": "compressed", "axis": 0})"))
        << calls["first_kept"];
    // The specs: the bound as the leading dimension, and the count key.
    for (const auto& kernel : result.kernels) {
        if (kernel.name == "kept") {
            EXPECT_EQ(kernel.spec_text, "{\n  \"name\": \"kept\",\n  \"op\": \"Gather\",\n  \"dtype\": \"float32\",\n"
                                        "  \"index_dtype\": \"int64\",\n  \"data_shape\": [20, 4],\n  \"indices_shape\": [15],\n"
                                        "  \"axis\": 0,\n  \"count\": \"runtime\"\n}\n");
        }
        if (kernel.name == "column") {
            EXPECT_EQ(kernel.spec.data_shape, (kernelgen::Shape{15, 3}));
            EXPECT_TRUE(kernel.spec.runtime_count);
            EXPECT_NE(kernel.spec_text.find("\"count_leads\": \"data\""), std::string::npos) << kernel.spec_text;
            EXPECT_NE(kernel.spec_text.find("\"indices\": [2]"), std::string::npos) << kernel.spec_text;
        }
        if (kernel.name == "both") {  // two counts: the rows Compress kept, and NonMaxSuppression's among them
            EXPECT_EQ(kernel.spec_text, "{\n  \"name\": \"both\",\n  \"op\": \"Gather\",\n  \"dtype\": \"float32\",\n"
                                        "  \"index_dtype\": \"int64\",\n  \"data_shape\": [20, 4],\n  \"indices_shape\": [15],\n"
                                        "  \"axis\": 0,\n  \"count\": \"runtime\",\n  \"data_count\": \"runtime\"\n}\n");
            EXPECT_TRUE(kernel.spec.runtime_count && kernel.spec.runtime_data_count);
        }
        if (kernel.name == "first_kept") {  // x[0] of the rows Compress kept: checked against their count at run time
            EXPECT_EQ(kernel.spec_text, "{\n  \"name\": \"first_kept\",\n  \"op\": \"Gather\",\n  \"dtype\": \"float32\",\n"
                                        "  \"index_dtype\": \"int64\",\n  \"data_shape\": [20, 4],\n  \"indices_shape\": [],\n"
                                        "  \"axis\": 0,\n  \"data_count\": \"runtime\",\n  \"indices\": 0\n}\n");
        }
        if (kernel.name == "rewrite") {
            EXPECT_EQ(kernel.spec.indices_shape, (kernelgen::Shape{20, 1}));
            EXPECT_EQ(kernel.spec.updates_shape, (kernelgen::Shape{20, 4}));
        }
    }
    const std::string nms_dependent = "(through NonMaxSuppression node \"nms\")";
    EXPECT_EQ(skipped_lines(result),
              (std::vector<std::string>{
                  "node \"by_mask\" (GatherElements, #20): data-dependent shape: indices \"nz\" dimension 1 is a run-time "
                  "count (through " + std::string(kNonZero) + "), and a kernel can count only a leading dimension",
                  "node \"cumulative\" (Gather, #22): data-dependent shape: indices \"running\" dimension 0 depends on "
                  "run-time values " + nms_dependent + "; give it a bound with --max-count cumulative=N",
                  "node \"dynamic_lookup\" (Gather, #26): dynamic shape: indices \"dyn_ids\" dimension 0 is \"N\"; fix it "
                  "with --dim N=<value>"}));
    EXPECT_EQ(result.bounded_kernels(), 11u);
    EXPECT_EQ(kernelgen::import_summary(result, "counted.onnx"),
              "counted.onnx: 12 specs (0 in subgraphs, 11 bounded), 0 folded, 3 skipped");
    // The report marks each bounded node with its bound and the path that gave it.
    EXPECT_EQ(report.at("summary").at("bounded"), 11);
    for (const auto& entry : report.at("nodes")) {
        if (entry.at("name") == "both") {
            EXPECT_EQ(entry.at("bounded").at("data_count"),
                      json::parse(R"J({"bound": 20, "through": ["Compress \"compress\": at most 20, the length of its condition"]})J"));
        }
        if (entry.at("name") == "first_kept") {  // a data count alone
            EXPECT_EQ(entry.at("bounded"), json::parse(R"J({"data_count": {"bound": 20,
                "through": ["Compress \"compress\": at most 20, the length of its condition"]}})J"));
        }
        if (entry.at("name") != "kept") continue;
        EXPECT_EQ(entry.at("bounded"), json::parse(R"J({"bound": 15, "count_leads": "indices", "through": [
            "NonMaxSuppression \"nms\": at most 15, 1 batch x 3 classes x min(max_output_boxes_per_class 5, 20 boxes)",
            "Gather \"column\"", "Squeeze \"squeeze\""]})J"));
    }
}

// Counts of detection heads and embedding bags: a Slice by run-time starts and ends makes a count (at most the
// sliced axis's size: EmbeddingBag's indices[offsets[i]:offsets[i+1]]); Gemm and RoiAlign carry a count of rows.
TEST(ImportCounts, RuntimeSlicesGemmAndRoiAlign) {
    Model m(13);
    m.input("ids", kInt64, {10});
    m.input("table", kFloat, {30, 2});
    m.input("begin", kInt64, {1});
    m.input("end", kInt64, {1});
    m.input("mask", kFloat, {5});
    m.input("feat", kFloat, {5, 8});
    m.input("weights", kFloat, {8, 3});
    m.input("image", kFloat, {1, 2, 8, 8});
    m.input("boxes", kFloat, {5, 4});
    m.initializer("zeros", kInt64, {5}, {0, 0, 0, 0, 0});
    m.initializer("zero", kInt64, {}, {0});
    m.initializer("axes1", kInt64, {1}, {1});
    m.node("Slice", {"ids", "begin", "end"}, "bag", "bag_ids");          // [<=10]
    m.node("Gather", {"table", "bag"}, "bag_rows", "bag_rows");
    m.node("NonZero", {"mask"}, "nz", "nonzero");                       // [1, <=5]
    m.node("Transpose", {"nz"}, "nzt", "transpose");                     // [<=5, 1]
    m.node("GatherND", {"feat", "nzt"}, "picked", "picked");            // [<=5, 8]
    m.node("Gemm", {"picked", "weights"}, "logits", "fc");               // [<=5, 3]
    Model::attribute(m.node("Gather", {"logits", "zero"}, "first_logit", "first_logit"), "axis", 1);
    m.node("GatherND", {"boxes", "nzt"}, "rois", "rois");               // [<=5, 4]
    m.node("Squeeze", {"nzt", "axes1"}, "nz_rows", "squeeze");           // [<=5]
    m.node("Gather", {"zeros", "nz_rows"}, "batch_index", "batch_index");
    Model::attribute(m.node("RoiAlign", {"image", "rois", "batch_index"}, "pooled", "pool"), "output_height", 2);
    Model::attribute(m.node("Gather", {"pooled", "zero"}, "first_channel", "first_channel"), "axis", 1);
    m.output("bag_rows", kFloat, {kDynamic, 2});
    m.output("first_logit", kFloat, {kDynamic});
    m.output("first_channel", kFloat, {kDynamic, 2, 1});
    const auto result = kernelgen::import_model(m.bytes(), "heads.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    const std::string nonzero = "NonZero \"nonzero\": at most 5, the elements of its input [5]";
    const std::vector<Bounded> bounded = bounded_kernels(result);
    const auto find = [&](const std::string& name) {
        const auto it = std::find_if(bounded.begin(), bounded.end(), [&](const Bounded& b) { return b.kernel == name; });
        return it == bounded.end() ? Bounded{name, 0, "missing", {}} : *it;
    };
    EXPECT_EQ(find("bag_rows"), (Bounded{"bag_rows", 10, "indices",
                                         {"Slice \"bag_ids\": at most 10, the size of axis 0 of its input (starts or "
                                          "ends are known only at run time)"}}));
    EXPECT_EQ(find("first_logit"), (Bounded{"first_logit", 5, "data", {nonzero, "Transpose \"transpose\"",
                                                                         "GatherND \"picked\"", "Gemm \"fc\""}}));
    EXPECT_EQ(find("first_channel"),
              (Bounded{"first_channel", 5, "data",
                       {nonzero, "Transpose \"transpose\"", "GatherND \"rois\"", "RoiAlign \"pool\""}}));
}

// torchvision's x.shape[1] of boxes whose rows are a run-time count: the Shape is not static, but the dimension
// picked is, so the Gather (and a Shape with start) folds; the count itself does not.
TEST(ImportCounts, StaticDimensionsOfACountedShapeFold) {
    Model m(13);
    m.input("mask", kFloat, {5});
    m.initializer("one", kInt64, {}, {1});
    m.initializer("zero", kInt64, {}, {0});
    m.node("NonZero", {"mask"}, "nz", "nonzero");
    m.node("Transpose", {"nz"}, "nzt", "transpose");  // [<=5, 1]
    m.node("Shape", {"nzt"}, "shape", "shape");
    m.node("Gather", {"shape", "one"}, "columns", "columns");
    m.node("Gather", {"shape", "zero"}, "rows", "rows");
    Model::attribute(m.node("Shape", {"nzt"}, "tail", "tail"), "start", 1);
    Model::attribute(m.node("Concat", {"tail", "tail"}, "tails", "concat"), "axis", 0);
    m.node("Gather", {"tails", "zero"}, "first_tail", "first_tail");
    m.output("columns", kInt64, {});
    m.output("rows", kInt64, {});
    m.output("first_tail", kInt64, {});
    const auto result = kernelgen::import_model(m.bytes(), "partial.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    const json report = json::parse(result.report);
    std::map<std::string, json> folded;
    for (const auto& node : report.at("nodes")) {
        if (node.contains("folded")) folded[node.at("name")] = node.at("folded");
    }
    EXPECT_EQ(folded, (std::map<std::string, json>{{"columns", 1}, {"first_tail", 1}})) << result.report;
}

// torchvision's _topk_min: k = min(10, scores.shape[0]) as ReduceMin(Concat([10], shape[0])): the TopK keeps at
// most 10 rows, whatever the run-time count of scores.
TEST(ImportCounts, TopKBoundedByTheConstantItsKIsTheMinimumOf) {
    Model m(13);
    m.input("x", kFloat, {50});
    m.input("mask", kFloat, {50});
    m.input("table", kFloat, {50, 2});
    m.initializer("zero", kInt64, {}, {0});
    m.initializer("axes0", kInt64, {1}, {0});
    m.initializer("ten", kInt64, {1}, {10});
    m.initializer("one_shape", kInt64, {1}, {1});
    m.initializer("half", kFloat, {}, {0});
    m.node("Greater", {"mask", "half"}, "keep");
    Model::attribute(m.node("Compress", {"x", "keep"}, "scores", "compress"), "axis", 0);  // [<=50]
    m.node("Shape", {"scores"}, "shape");
    m.node("Gather", {"shape", "zero"}, "n");
    m.node("Unsqueeze", {"n", "axes0"}, "n1");
    Model::attribute(m.node("Concat", {"ten", "n1"}, "candidates"), "axis", 0);
    Model::attribute(m.node("ReduceMin", {"candidates"}, "k0"), "keepdims", 0);
    m.node("Reshape", {"k0", "one_shape"}, "k");
    m.node("TopK", {"scores", "k"}, "top_values", "topk").add_output("top");
    m.node("Gather", {"table", "top"}, "rows", "rows");
    m.output("rows", kFloat, {kDynamic, 2});
    const auto result = kernelgen::import_model(m.bytes(), "topk_min.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    EXPECT_EQ(bounded_kernels(result),
              (std::vector<Bounded>{{"rows", 10, "indices", {"TopK \"topk\": at most 10, its k, which is at most 10"}}}))
        << result.report;
}

// A count read off a shape and made a dimension again, as torchvision writes full_like(scores, label),
// boxes.reshape(boxes.shape[0], -1, 4) and levels.expand(rois.shape[0], ...): Shape, Gather, Unsqueeze and Concat
// carry the count as an element of a value, and ConstantOfShape, Expand, Range and Reshape make it a counted
// dimension with the same bound. A Reshape's -1 beside the count is static only where that count is the input's
// own (the same run-time value), not another count of the same bound.
TEST(ImportCounts, CountsThroughShapeValues) {
    Model m(13);
    m.input("mask", kFloat, {6});
    m.input("other_mask", kFloat, {6});
    m.input("feat", kFloat, {6, 4});
    m.input("table", kFloat, {40, 2});
    m.initializer("zero", kInt64, {}, {0});
    m.initializer("minus_two", kInt64, {}, {-2});
    m.initializer("one", kInt64, {}, {1});
    m.initializer("two", kInt64, {}, {2});
    m.initializer("axes0", kInt64, {1}, {0});
    m.initializer("axes1", kInt64, {1}, {1});
    m.initializer("axes2", kInt64, {1}, {2});
    m.initializer("three", kInt64, {1}, {3});
    m.initializer("minus_one", kInt64, {1}, {-1});
    m.initializer("ones", kInt64, {1, 1}, {1});
    m.node("NonZero", {"mask"}, "nz", "nonzero");                                   // [1, <=6]
    m.node("Transpose", {"nz"}, "nzt", "transpose");
    m.node("Squeeze", {"nzt", "axes1"}, "rows", "squeeze");                          // [<=6]
    m.node("Gather", {"feat", "rows"}, "x", "picked");                               // [<=6, 4]
    m.node("Shape", {"x"}, "shape", "shape");
    m.node("Gather", {"shape", "zero"}, "n", "n");                                   // the count, a scalar
    m.node("Unsqueeze", {"n", "axes0"}, "n1", "n1");
    Model::attribute(m.node("Concat", {"n1", "three"}, "n_by_3", "n_by_3"), "axis", 0);
    m.node("ConstantOfShape", {"n_by_3"}, "filled", "full_like");                    // [<=6, 3] of 0.0
    Model::attribute(m.node("Cast", {"filled"}, "labels", "labels"), "to", kInt64);
    m.node("Gather", {"table", "labels"}, "label_rows", "label_rows");
    Model::attribute(m.node("Concat", {"n1", "three"}, "expand_to", "expand_to"), "axis", 0);
    m.node("Expand", {"ones", "expand_to"}, "expanded", "expand");                   // [<=6, 3]
    m.node("Gather", {"table", "expanded"}, "expanded_rows", "expanded_rows");
    m.node("Range", {"zero", "n", "one"}, "arange", "arange");                       // [<=6]
    m.node("Gather", {"table", "arange"}, "arange_rows", "arange_rows");
    m.node("Range", {"minus_two", "n", "two"}, "evens", "evens");                    // [<=ceil((6+2)/2) = 4]
    m.node("Gather", {"table", "evens"}, "even_rows", "even_rows");
    m.node("Unsqueeze", {"x", "axes2"}, "x3", "x3");                                 // [<=6, 4, 1]
    Model::attribute(m.node("Concat", {"n1", "minus_one"}, "n_by_rest", "n_by_rest"), "axis", 0);
    m.node("Reshape", {"x3", "n_by_rest"}, "regrouped", "regroup");                  // [<=6, 4]: -1 is 4
    Model::attribute(m.node("Gather", {"regrouped", "one"}, "second_column", "second_column"), "axis", 1);
    // The same bound, another run-time value: the -1 stays unknown.
    m.node("NonZero", {"other_mask"}, "other_nz", "other_nonzero");
    m.node("Shape", {"other_nz"}, "other_shape", "other_shape");
    m.node("Gather", {"other_shape", "one"}, "other_n", "other_n");
    m.node("Unsqueeze", {"other_n", "axes0"}, "other_n1", "other_n1");
    Model::attribute(m.node("Concat", {"other_n1", "minus_one"}, "other_by_rest", "other_by_rest"), "axis", 0);
    m.node("Reshape", {"x3", "other_by_rest"}, "mixed", "mixed");
    Model::attribute(m.node("Gather", {"mixed", "one"}, "mixed_column", "mixed_column"), "axis", 1);
    for (const char* out : {"label_rows", "expanded_rows"}) m.output(out, kFloat, {kDynamic, 3, 2});
    for (const char* out : {"arange_rows", "even_rows"}) m.output(out, kFloat, {kDynamic, 2});
    for (const char* out : {"second_column", "mixed_column"}) m.output(out, kFloat, {kDynamic});
    const auto result = kernelgen::import_model(m.bytes(), "shape_values.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    std::map<std::string, std::pair<uint64_t, std::string>> bounds;
    for (const auto& b : bounded_kernels(result)) bounds[b.kernel] = {b.bound, b.leads};
    EXPECT_EQ(bounds, (std::map<std::string, std::pair<uint64_t, std::string>>{
                          {"picked", {6, "indices"}},
                          {"label_rows", {6, "indices"}},
                          {"expanded_rows", {6, "indices"}},
                          {"arange_rows", {6, "indices"}},
                          {"even_rows", {4, "indices"}},
                          {"second_column", {6, "data"}}}))
        << result.report;
    const std::string nonzero = "NonZero \"nonzero\": at most 6, the elements of its input [6]";
    for (const auto& b : bounded_kernels(result)) {
        if (b.kernel == "label_rows") {
            EXPECT_EQ(b.through, (std::vector<std::string>{nonzero, "Transpose \"transpose\"", "Squeeze \"squeeze\"",
                                                           "Gather \"picked\"", "Shape \"shape\"", "Gather \"n\"",
                                                           "Unsqueeze \"n1\"", "Concat \"n_by_3\"",
                                                           "ConstantOfShape \"full_like\"", "Cast \"labels\""}));
        }
        if (b.kernel == "even_rows") EXPECT_EQ(b.through.back(), "Range \"evens\": at most 4");
    }
    for (const auto& kernel : result.kernels) {
        if (kernel.name == "second_column") EXPECT_EQ(kernel.spec.data_shape, (kernelgen::Shape{6, 4}));
    }
    ASSERT_EQ(skipped_lines(result).size(), 1u);
    EXPECT_EQ(skipped_lines(result)[0].rfind("node \"mixed_column\" (Gather, #", 0), 0u) << skipped_lines(result)[0];
}

// torchvision's multi-scale RoI pooling, as PyTorch exports it: result = zeros(num_rois, C, 2, 2) (ConstantOfShape
// of a shape with the count), then per level result.scatter(0, index.expand(n, C, 2, 2), pooled), where
// index.expand(n, C, 2, 2) is Expand(index, Where(Equal(shape, -1), ones, shape)) of a shape holding the level's
// count n. Equal settles where a count is compared with -1 (never), Where keeps the count, the Expand's static
// dimensions are declared, and the ScatterElements gets both counts: its index rows and its data rows.
TEST(ImportCounts, TwoCountsInAScatterOfRoIPooling) {
    Model m(13);
    m.input("proposals", kFloat, {8});   // a score per proposal: those above 0 are the regions
    m.input("levels", kFloat, {8});      // each region's level: those above 0 are level 1
    m.input("pooled", kFloat, {8, 3, 2, 2});
    m.initializer("zero", kInt64, {}, {0});
    m.initializer("half", kFloat, {}, {0});
    m.initializer("axes0", kInt64, {1}, {0});
    m.initializer("axes1", kInt64, {1}, {1});
    m.initializer("c22", kInt64, {3}, {3, 2, 2});
    m.initializer("minus_ones", kInt64, {4}, {-1, -1, -1, -1});
    m.initializer("ones4", kInt64, {4}, {1, 1, 1, 1});
    m.initializer("shape_n111", kInt64, {4}, {-1, 1, 1, 1});
    m.node("Greater", {"proposals", "half"}, "keep");
    Model::attribute(m.node("Compress", {"proposals", "keep"}, "rois", "rois"), "axis", 0);          // [<=8]
    m.node("Shape", {"rois"}, "rois_shape");
    m.node("Gather", {"rois_shape", "zero"}, "num_rois");
    m.node("Unsqueeze", {"num_rois", "axes0"}, "num_rois1");
    Model::attribute(m.node("Concat", {"num_rois1", "c22"}, "result_shape"), "axis", 0);
    m.node("ConstantOfShape", {"result_shape"}, "result", "zeros");                                   // [<=8, 3, 2, 2]
    Model::attribute(m.node("Compress", {"levels", "keep"}, "roi_levels", "roi_levels"), "axis", 0);  // [<=8]
    m.node("Greater", {"roi_levels", "half"}, "on_level");
    m.node("NonZero", {"on_level"}, "nz", "level_rois");                                            // [1, <=8]
    m.node("Transpose", {"nz"}, "nzt");
    m.node("Squeeze", {"nzt", "axes1"}, "index");                                                   // [<=8]
    m.node("Reshape", {"index", "shape_n111"}, "index4");                                           // [<=8, 1, 1, 1]
    m.node("Shape", {"index"}, "index_shape");
    m.node("Gather", {"index_shape", "zero"}, "n");
    m.node("Unsqueeze", {"n", "axes0"}, "n1");
    Model::attribute(m.node("Concat", {"n1", "c22"}, "sizes"), "axis", 0);                          // [n, 3, 2, 2]
    m.node("Equal", {"sizes", "minus_ones"}, "is_minus_one");
    m.node("Where", {"is_minus_one", "ones4", "sizes"}, "expand_to");
    m.node("Expand", {"index4", "expand_to"}, "expanded", "expand");                                // [<=8, 3, 2, 2]
    m.node("Gather", {"pooled", "index"}, "level_pooled", "level_pooled");                          // [<=8, 3, 2, 2]
    Model::attribute(m.node("ScatterElements", {"result", "expanded", "level_pooled"}, "merged", "merge"), "axis", 0);
    m.output("merged", kFloat, {kDynamic, 3, 2, 2});
    const auto result = kernelgen::import_model(m.bytes(), "roi_pool.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    EXPECT_TRUE(skipped_lines(result).empty()) << skipped_lines(result).front();
    const auto merge = std::find_if(result.kernels.begin(), result.kernels.end(),
                                    [](const auto& k) { return k.name == "merge"; });
    ASSERT_NE(merge, result.kernels.end()) << result.report;
    EXPECT_EQ(merge->spec_text,
              "{\n  \"name\": \"merge\",\n  \"op\": \"ScatterElements\",\n  \"dtype\": \"float32\",\n"
              "  \"index_dtype\": \"int64\",\n  \"data_shape\": [8, 3, 2, 2],\n  \"indices_shape\": [8, 3, 2, 2],\n"
              "  \"axis\": 0,\n  \"reduction\": \"none\",\n  \"updates_shape\": [8, 3, 2, 2],\n"
              "  \"count\": \"runtime\",\n  \"data_count\": \"runtime\"\n}\n");
    ASSERT_TRUE(merge->bounded && merge->bounded->data_count);
    ASSERT_TRUE(merge->bounded->count);
    EXPECT_EQ(merge->bounded->count->bound, 8u);
    EXPECT_EQ(merge->bounded->data_count->through.front(), "Compress \"rois\": at most 8, the length of its condition");
    EXPECT_EQ(merge->bounded->count->through.front(), "NonZero \"level_rois\": at most 8, the elements of its input [8]");
}

// ONNX 1.12 gives a TopK by a run-time k no shape: import declares it (the input's, unknown along the axis), so
// that the static dimensions reach what follows.
TEST(ImportCounts, TopKByARuntimeKKeepsItsStaticDimensions) {
    Model m(13);
    m.input("scores", kFloat, {3, 8});
    m.input("k", kInt64, {1});
    m.input("table", kFloat, {8, 2});
    m.initializer("zeros", kInt64, {2}, {0, 0});
    m.node("TopK", {"scores", "k"}, "values", "topk").add_output("top");     // [3, <=8]
    m.node("Reshape", {"top", "zeros"}, "same", "copy");                      // [3, <=8]: copies both
    m.node("Transpose", {"same"}, "columns", "transpose");                    // [<=8, 3]
    m.node("Gather", {"table", "columns"}, "rows", "rows");
    m.output("rows", kFloat, {kDynamic, 3, 2});
    const auto result = kernelgen::import_model(m.bytes(), "topk_shape.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_EQ(result.kernels.size(), 1u) << result.report;
    EXPECT_EQ(result.kernels[0].spec.indices_shape, (kernelgen::Shape{8, 3}));
    EXPECT_TRUE(result.kernels[0].spec.runtime_count);
}

// Mask and Keypoint R-CNN's heads run convolutions, upsampling, padding and pooling over their regions: a count of
// the batch (axis 0) goes through Conv, Resize by scales of 1 on it, Pad by nothing on it and MaxPool; Resize by
// another scale, or Pad that adds rows, loses it (the node after them is skipped, saying why).
TEST(ImportCounts, ConvolutionsResizePadAndPoolingKeepABatchCount) {
    Model m(13);
    m.input("scores", kFloat, {6});
    m.input("maps", kFloat, {6, 2, 4, 4});
    m.input("pick", kInt64, {2});
    m.input("weights", kFloat, {2, 2, 1, 1});
    m.initializer("zero", kFloat, {}, {0});
    m.initializer("axes0", kInt64, {1}, {0});
    m.initializer("double_hw", kFloat, {4}, {0x3F800000, 0x3F800000, 0x40000000, 0x40000000});  // 1, 1, 2, 2 as floats
    m.initializer("double_n", kFloat, {4}, {0x40000000, 0x3F800000, 0x3F800000, 0x3F800000});   // 2, 1, 1, 1
    m.initializer("pads_hw", kInt64, {8}, {0, 0, 1, 1, 0, 0, 1, 1});
    m.initializer("pads_n", kInt64, {8}, {1, 0, 0, 0, 0, 0, 0, 0});
    m.node("Greater", {"scores", "zero"}, "mask", "greater");
    m.node("NonZero", {"mask"}, "nz", "nonzero");
    m.node("Squeeze", {"nz", "axes0"}, "idx", "squeeze");
    m.node("Gather", {"maps", "idx"}, "kept", "kept");                           // [K, 2, 4, 4]
    m.node("Conv", {"kept", "weights"}, "conv", "conv");                        // [K, 2, 4, 4]
    m.node("Resize", {"conv", "", "double_hw"}, "up", "up");                    // [K, 2, 8, 8]
    m.node("Pad", {"up", "pads_hw"}, "padded", "pad");                          // [K, 2, 10, 10]
    Model::attribute(m.node("MaxPool", {"padded"}, "pooled", "pool"), "kernel_shape", std::vector<int64_t>{2, 2});  // [K, 2, 9, 9]
    m.node("Gather", {"pooled", "pick"}, "picked", "picked");                  // a data count alone
    m.node("Resize", {"conv", "", "double_n"}, "doubled", "double_rows");       // [2K, 2, 4, 4]
    m.node("Gather", {"doubled", "pick"}, "picked_doubled", "picked_doubled");
    m.node("Pad", {"conv", "pads_n"}, "grown", "grow_rows");                    // [K + 1, 2, 4, 4]
    m.node("Gather", {"grown", "pick"}, "picked_grown", "picked_grown");
    for (const std::string name : {"picked", "picked_doubled", "picked_grown"}) m.output(name, kFloat, {2, 2, kDynamic, kDynamic});
    const auto result = kernelgen::import_model(m.bytes(), "heads.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    std::map<std::string, Bounded> by_name;
    for (const auto& b : bounded_kernels(result)) by_name[b.kernel] = b;
    EXPECT_EQ(by_name["picked"], (Bounded{"picked", 6, "data_count",
                                          {"NonZero \"nonzero\": at most 6, the elements of its input [6]", "Squeeze \"squeeze\"",
                                           "Gather \"kept\"", "Conv \"conv\"", "Resize \"up\"", "Pad \"pad\"", "MaxPool \"pool\""}}));
    const auto picked = std::find_if(result.kernels.begin(), result.kernels.end(),
                                     [](const kernelgen::ImportedKernel& kernel) { return kernel.name == "picked"; });
    ASSERT_NE(picked, result.kernels.end());
    EXPECT_EQ(picked->spec.data_shape, (kernelgen::Shape{6, 2, 9, 9}));  // a 2x2 window, stride 1
    std::vector<std::string> skipped;
    for (const auto& s : result.skipped) skipped.push_back(s.node.name + ": " + s.reason.substr(0, s.reason.find(" (through")));
    EXPECT_EQ(skipped, (std::vector<std::string>{
                           "picked_doubled: data-dependent shape: data \"doubled\" dimension 0 depends on run-time values",
                           "picked_grown: data-dependent shape: data \"grown\" dimension 0 depends on run-time values"}));
}

// Mask and Keypoint R-CNN paste each detection's mask, or decode its keypoints, at its box's size: a Resize by
// sizes Concat(Shape(x)[:2], run-time h and w). Its leading dimensions are still known, and a tensor gathered from
// it down to static dimensions ([2, 3, 3] here, flattened) gets a kernel. A constant index that selects all of
// data (index 0 or -1 along an axis of extent 1) or its first row (index 0 with only 1s before the axis) is a view
// of data; each other node on a tensor with a run-time h or w is skipped, naming the Resize and where its sizes
// come from. Where data's shape is static, the same Gather still gets its kernel.
TEST(ImportCounts, ResizeByRunTimeSizesKeepsItsKnownDimensions) {
    Model m(13);
    m.input("scores", kFloat, {6});
    m.input("maps", kFloat, {2, 1, 4, 4});
    m.input("yi", kInt64, {3});
    m.input("xi", kInt64, {3});
    m.input("pick", kInt64, {4});
    m.initializer("zero", kFloat, {}, {0});
    m.initializer("first", kInt64, {}, {0});
    m.initializer("last", kInt32, {1}, {-1});
    m.initializer("second", kInt64, {}, {1});
    m.initializer("starts", kInt64, {1}, {0});
    m.initializer("two", kInt64, {1}, {2});
    m.initializer("one", kInt64, {1}, {1});
    m.initializer("flat", kInt64, {1}, {-1});
    m.node("Greater", {"scores", "zero"}, "mask", "greater");
    m.node("NonZero", {"mask"}, "nz", "nz");                                 // [1, K]
    m.node("Shape", {"nz"}, "nz_shape", "nz_shape");
    m.node("Slice", {"nz_shape", "one", "two"}, "k", "k");                   // [K]
    m.node("Shape", {"maps"}, "maps_shape", "maps_shape");
    m.node("Slice", {"maps_shape", "starts", "two"}, "head", "head");        // [2, 1]
    Model::attribute(m.node("Concat", {"head", "k", "k"}, "sizes", "sizes"), "axis", int64_t{0});  // [2, 1, K, K]
    m.node("Resize", {"maps", "", "", "sizes"}, "up", "up");                 // [2, 1, K, K]
    Model::attribute(m.node("Gather", {"up", "first"}, "a", "a"), "axis", int64_t{1});   // [2, K, K], a view
    Model::attribute(m.node("Gather", {"a", "yi"}, "b", "b"), "axis", int64_t{1});       // [2, 3, K]
    Model::attribute(m.node("Gather", {"b", "xi"}, "c", "c"), "axis", int64_t{2});       // [2, 3, 3]
    m.node("Reshape", {"c", "flat"}, "d", "d");                              // [18]
    m.node("Gather", {"d", "pick"}, "e", "e");
    Model::attribute(m.node("Gather", {"up", "last"}, "f", "f"), "axis", int64_t{1});    // [2, 1, K, K], a view
    m.node("Gather", {"a", "first"}, "g", "g");                              // [K, K]: data's first row, a view
    m.node("Gather", {"a", "second"}, "h", "h");                             // its second row: skipped
    Model::attribute(m.node("Gather", {"a", "first"}, "i", "i"), "axis", int64_t{1});    // a column: skipped
    Model::attribute(m.node("Gather", {"maps", "first"}, "j", "j"), "axis", int64_t{1}); // static: a kernel
    m.output("e", kFloat, {4});
    m.output("f", kFloat, {2, 1, kDynamic, kDynamic});
    for (const std::string name : {"g", "h"}) m.output(name, kFloat, {kDynamic, kDynamic});
    m.output("i", kFloat, {2, kDynamic});
    m.output("j", kFloat, {2, 4, 4});
    const auto result = kernelgen::import_model(m.bytes(), "paste.onnx");
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    ASSERT_EQ(result.kernels.size(), 2u) << result.report;
    EXPECT_EQ(result.kernels[0].name, "e");
    EXPECT_EQ(result.kernels[0].spec.data_shape, (kernelgen::Shape{18}));
    EXPECT_EQ(result.kernels[1].name, "j");
    std::vector<std::string> views;
    for (const auto& v : result.views) views.push_back(v.node.name + ": " + v.of + ": " + v.how);
    EXPECT_EQ(views, (std::vector<std::string>{
                         "a: up: index 0 along axis 1 of extent 1 selects all of data, its elements in their order",
                         "f: up: index -1 along axis 1 of extent 1 selects all of data, its elements in their order",
                         "g: a: index 0 along axis 0, with only dimensions of 1 before it, selects data's first row, "
                         "its leading elements"}));
    std::vector<std::string> skipped;
    for (const auto& s : result.skipped) skipped.push_back(s.node.name + ": " + s.reason);
    const std::string through = " depends on run-time values (through the sizes of Resize \"up\", made at run time from "
                                "NonZero node \"nz\"); give its extents a bound with --max-extent ";
    const std::string takes = "=N, which a Gather's kernel takes at run time";
    EXPECT_EQ(skipped, (std::vector<std::string>{"b: data-dependent shape: data \"a\" dimension 1" + through + "b" + takes,
                                                 "c: data-dependent shape: data \"b\" dimension 2" + through + "c" + takes,
                                                 "h: data-dependent shape: data \"a\" dimension 1" + through + "h" + takes,
                                                 "i: data-dependent shape: data \"a\" dimension 1" + through + "i" + takes}));
    // With --max-extent, b and c take the extents at run time: from the gather axis on, data's run-time axes. h and
    // i, of constant indices, are refused: a kernel of run-time extents takes its indices at run time.
    kernelgen::ImportOptions bounded;
    bounded.max_extents = {{"b", 8}, {"c", 8}, {"h", 6}, {"i", 5}};
    const auto extents = kernelgen::import_model(m.bytes(), "paste.onnx", bounded);
    skipped.clear();
    for (const auto& s : extents.skipped) skipped.push_back(s.node.name + ": " + s.reason);
    const std::string refused = ": data-dependent shape: data \"a\" has extents made at run time, and its indices are constant, which a "
                                "kernel does not take together";
    EXPECT_EQ(skipped, (std::vector<std::string>{"h" + refused, "i" + refused}));
    std::vector<std::string> shapes;
    for (const auto& k : extents.kernels) {
        std::string axes;
        for (size_t a : k.spec.runtime_axes) axes += " " + std::to_string(a);
        shapes.push_back(k.name + " " + kernelgen::format_shape(k.spec.data_shape) + " axis " + std::to_string(k.spec.axis) + ":" + axes);
    }
    EXPECT_EQ(shapes, (std::vector<std::string>{"b [2, 8, 8] axis 1: 1 2", "c [2, 3, 8] axis 2: 2", "e [18] axis 0:",
                                                "j [2, 1, 4, 4] axis 1:"}));
    const auto report = nlohmann::json::parse(result.report);
    EXPECT_EQ(report["summary"]["views"], 3);
    EXPECT_EQ(report["nodes"][0]["view_of"], "up");
    EXPECT_EQ(kernelgen::import_summary(result, "paste.onnx"),
              "paste.onnx: 2 specs (0 in subgraphs), 0 folded, 3 views, 4 skipped");
}

TEST(ImportCounts, MaxCountSetsOrLowersABound) {
    kernelgen::ImportOptions options;
    options.max_counts = {{"cumulative", 10}, {"kept", 4}, {"confident", 100}, {"static_lookup", 3}, {"dynamic_lookup", 16}};
    const auto result = kernelgen::import_model(counted_model().bytes(), "counted.onnx", options);
    ASSERT_TRUE(result.usage_errors.empty()) << result.usage_errors.front();
    std::map<std::string, Bounded> by_name;
    for (const auto& b : bounded_kernels(result)) by_name[b.kernel] = b;
    EXPECT_EQ(by_name["cumulative"], (Bounded{"cumulative", 10, "indices", {"--max-count cumulative=10"}}));
    EXPECT_EQ(by_name["kept"], (Bounded{"kept", 4, "indices", {kNms, "Gather \"column\"", "Squeeze \"squeeze\"",
                                                                "--max-count kept=4"}}));
    EXPECT_EQ(by_name["confident"].bound, 20u);  // a bound above the derived one is not taken
    EXPECT_EQ(by_name["dynamic_lookup"], (Bounded{"dynamic_lookup", 16, "indices", {"--max-count dynamic_lookup=16"}}));
    EXPECT_EQ(result.notes,
              (std::vector<std::string>{
                  "--max-count confident=100: the count of node \"confident\" (GatherND, #3) is at most 20 already (" +
                      std::string(kNonZero) + "), which stays its bound",
                  "--max-count static_lookup=3: node \"static_lookup\" (Gather, #25) has a fixed count; the option is not "
                  "used"}));
    // A node the model does not have is a usage error, and then nothing is imported.
    options.max_counts = {{"nowhere", 3}};
    const auto unknown = kernelgen::import_model(counted_model().bytes(), "counted.onnx", options);
    EXPECT_EQ(unknown.usage_errors,
              (std::vector<std::string>{"--max-count nowhere=3: the model has no indexing node \"nowhere\" (name a Gather, "
                                        "GatherBlockQuantized, GatherElements, GatherND, ScatterND or ScatterElements node by its name, or by its "
                                        "path in a body)"}));
    EXPECT_TRUE(unknown.kernels.empty());
}

// The command line: a usage error names the option, exit 2, nothing written; a note does not stop the import.
// The call: each kernel's parameters with the model's tensor each takes. Indices the graph widens from int32 (a Cast)
// and flattens (a Reshape) are taken as the int32 tensor itself, and an Add of a constant as the tensor before it,
// the constant in the spec; a narrowing Cast, a constant minus the indices, or a constant that is no range along an
// axis the indices are broadcast along, stops the walk; --plain-indices keeps the node's own input, and one that
// names no indexing node is a usage error.
TEST(ImportCall, IndicesMadeOfAnotherTensor) {
    Model m(18);
    m.input("table", kFloat, {10, 4});
    m.input("ids", kInt32, {2, 3});
    m.input("wide_ids", kInt64, {3});
    m.initializer("six", kInt64, {1}, {6});
    m.initializer("one", kInt64, {3}, {1, 1, 1});
    Model::attribute(m.node("Cast", {"ids"}, "widened", "widen"), "to", int64_t{kInt64});
    m.node("Reshape", {"widened", "six"}, "flat", "flatten");
    m.node("Gather", {"table", "flat"}, "rows", "lookup");
    Model::attribute(m.node("Cast", {"wide_ids"}, "narrowed", "narrow"), "to", int64_t{kInt32});
    m.node("Gather", {"table", "narrowed"}, "rows_2", "narrow_lookup");
    m.node("Add", {"wide_ids", "one"}, "shifted");
    m.node("Gather", {"table", "shifted"}, "rows_3", "shifted_lookup");
    m.initializer("ten", kInt64, {}, {10});
    m.node("Sub", {"ten", "wide_ids"}, "reversed");
    m.node("Gather", {"table", "reversed"}, "rows_4", "reversed_lookup");
    m.initializer("uneven", kInt64, {3}, {0, 5, 1});
    m.node("Add", {"wide_ids", "uneven"}, "uneven_ids");
    m.node("Gather", {"table", "uneven_ids"}, "rows_5", "uneven_lookup");
    m.output("rows", kFloat, {6, 4});
    m.output("rows_2", kFloat, {3, 4});
    m.output("rows_3", kFloat, {3, 4});
    m.output("rows_4", kFloat, {3, 4});
    m.output("rows_5", kFloat, {3, 4});
    kernelgen::ImportOptions options;
    options.weights_in_kernel = false;
    const auto result = kernelgen::import_model(m.bytes(), "call.onnx", options);
    ASSERT_TRUE(result.usage_errors.empty()) << result.usage_errors.front();
    ASSERT_EQ(result.kernels.size(), 5u);
    const auto& lookup = result.kernels[0];
    EXPECT_EQ(lookup.tensors.indices, "ids");
    EXPECT_EQ(lookup.tensors.indices_through, (std::vector<std::string>{"Cast widen", "Reshape flatten"}));
    EXPECT_EQ(lookup.spec.index_dtype, kernelgen::IndexType::Int32);
    EXPECT_EQ(lookup.spec.indices_shape, (kernelgen::Shape{6}));  // the node's shape: the same elements in order
    EXPECT_EQ(result.kernels[1].tensors.indices, "narrowed");  // int64 to int32 could change a value
    EXPECT_EQ(result.kernels[1].spec.index_dtype, kernelgen::IndexType::Int32);
    EXPECT_TRUE(result.kernels[1].tensors.indices_through.empty());
    EXPECT_EQ(result.kernels[2].tensors.indices, "wide_ids");  // plus 1, in the kernel
    EXPECT_EQ(result.kernels[2].tensors.indices_through, (std::vector<std::string>{"Add shifted"}));
    ASSERT_TRUE(result.kernels[2].spec.indices_add.has_value());
    EXPECT_EQ(result.kernels[2].spec.indices_add->start, 1);
    EXPECT_EQ(result.kernels[2].spec.indices_add->steps, (std::vector<int64_t>{0}));
    EXPECT_EQ(result.kernels[3].tensors.indices, "reversed");  // 10 - x: not the value plus a constant
    EXPECT_EQ(result.kernels[4].tensors.indices, "uneven_ids");  // 0, 5, 1: no range, and wide_ids is not broadcast
    EXPECT_FALSE(result.kernels[3].spec.indices_add.has_value());
    EXPECT_FALSE(result.kernels[4].spec.indices_add.has_value());
    // The report's call, in prototype order.
    const json report = json::parse(result.report);
    ASSERT_EQ(report["nodes"].size(), 5u);  // the indexing nodes
    EXPECT_EQ(report["nodes"][0]["call"],
              json::parse(R"([{"parameter": "data", "tensor": "table"},
                              {"parameter": "indices", "tensor": "ids", "through": ["Cast widen", "Reshape flatten"]},
                              {"parameter": "output", "tensor": "rows"}])"));
    EXPECT_EQ(report["nodes"][1]["call"][1], json::parse(R"({"parameter": "indices", "tensor": "narrowed"})"));

    // An Expand is passed too (index_copy's positions): the kernel takes them and broadcasts them.
    Model e(18);
    e.input("cache", kFloat, {1, 8, 4});
    e.input("pos", kInt64, {3});
    e.input("x", kFloat, {1, 3, 4});
    e.initializer("axes", kInt64, {2}, {0, 2});
    e.initializer("to", kInt64, {3}, {1, 3, 4});
    e.node("Unsqueeze", {"pos", "axes"}, "pos3", "unsqueeze");
    e.node("Expand", {"pos3", "to"}, "positions", "expand");
    Model::attribute(e.node("ScatterElements", {"cache", "positions", "x"}, "written", "write"), "axis", 1);
    e.output("written", kFloat, {1, 8, 4});
    const auto expanded = kernelgen::import_model(e.bytes(), "expand.onnx");
    ASSERT_EQ(expanded.kernels.size(), 1u) << (expanded.skipped.empty() ? "" : expanded.skipped.front().reason);
    EXPECT_EQ(expanded.kernels[0].tensors.indices, "pos");
    EXPECT_EQ(expanded.kernels[0].tensors.indices_through, (std::vector<std::string>{"Unsqueeze unsqueeze", "Expand expand"}));
    EXPECT_EQ(expanded.kernels[0].spec.indices_broadcast_from, (kernelgen::Shape{1, 3, 1}));
    EXPECT_EQ(expanded.kernels[0].spec.indices_shape, (kernelgen::Shape{1, 3, 4}));

    options.plain_indices = {"lookup"};
    const auto plain = kernelgen::import_model(m.bytes(), "call.onnx", options);
    ASSERT_EQ(plain.kernels.size(), 5u);
    EXPECT_EQ(plain.kernels[0].tensors.indices, "flat");
    EXPECT_TRUE(plain.kernels[0].tensors.indices_through.empty());
    EXPECT_EQ(plain.kernels[0].spec.index_dtype, kernelgen::IndexType::Int64);

    options.plain_indices = {"nowhere"};
    EXPECT_EQ(kernelgen::import_model(m.bytes(), "call.onnx", options).usage_errors,
              (std::vector<std::string>{"--plain-indices nowhere: the model has no indexing node \"nowhere\" (name an "
                                        "indexing node by its name, or by its path in a body)"}));
}

// GatherND's index tuples made by a Concat of constant components (the same in every tuple) and one run-time tensor
// (after an Expand and an Unsqueeze, as `c[:, pos] = x` exports them): the kernel takes the tensor, the constants in
// "tuple_constants". A constant that differs between tuples, two run-time inputs, or a constant out of its axis'
// range keeps the Concat's output.
TEST(ImportCall, TupleConstantsOfAConcat) {
    Model m(18);
    m.input("data", kFloat, {2, 6, 3});
    m.input("pos", kInt64, {4});
    m.input("other", kInt64, {1, 4, 1});
    m.initializer("shape", kInt64, {2}, {1, 4});
    m.initializer("last", kInt64, {1}, {-1});
    m.initializer("ones", kInt64, {1, 4, 1}, {1, 1, 1, 1});
    m.initializer("uneven", kInt64, {1, 4, 1}, {1, 0, 1, 1});
    m.initializer("twos", kInt64, {1, 4, 1}, {2, 2, 2, 2});
    m.node("Expand", {"pos", "shape"}, "expanded", "expand");
    m.node("Unsqueeze", {"expanded", "last"}, "column", "unsqueeze");
    const auto concat = [&](const std::vector<std::string>& inputs, const std::string& out) {
        Model::attribute(m.node("Concat", inputs, out, out), "axis", -1);
        m.node("GatherND", {"data", out}, out + "_rows", out + "_gather");
        m.output(out + "_rows", kFloat, {1, 4, 3});
    };
    concat({"ones", "column"}, "tuples");          // (1, pos[j])
    concat({"uneven", "column"}, "uneven_tuples");  // the first component 1, 0, 1, 1
    concat({"other", "column"}, "two_inputs");
    concat({"twos", "column"}, "out_of_range");    // 2 is past data's axis 0 (2 rows)
    const auto result = kernelgen::import_model(m.bytes(), "tuples.onnx");
    ASSERT_EQ(result.kernels.size(), 4u) << (result.skipped.empty() ? "" : result.skipped.front().reason);
    const auto& taken = result.kernels[0];
    EXPECT_EQ(taken.tensors.indices, "pos");
    EXPECT_EQ(taken.tensors.indices_through,
              (std::vector<std::string>{"Expand expand", "Unsqueeze unsqueeze", "Concat tuples"}));
    EXPECT_EQ(taken.spec.tuple_constants, (std::vector<std::optional<int64_t>>{1, std::nullopt}));
    EXPECT_FALSE(taken.spec.indices_broadcast_from.has_value());  // [4] is [1, 4, 1] up to 1s: no broadcast
    EXPECT_EQ(taken.spec.indices_parameter_shape(), (kernelgen::Shape{1, 4, 1}));
    for (size_t k = 1; k < 4; ++k) {
        EXPECT_EQ(result.kernels[k].tensors.indices, result.kernels[k].node.name.substr(0, result.kernels[k].node.name.size() - 7))
            << result.kernels[k].name;
        EXPECT_FALSE(result.kernels[k].spec.tuple_constants.has_value()) << result.kernels[k].name;
    }
}

// Constants of extreme values added to indices: not a range within the spec's bounds (every value within 2^61, the
// steps' spread within 2^62), so the walk stops at the Add, and its arithmetic never overflows (the steps are
// differences of values checked first). A range wider than the table's: no index could be in range, which kernelgen
// refuses, so the node is skipped with that reason rather than given a kernel.
TEST(ImportCall, ExtremeConstantsStopTheWalk) {
    Model m(18);
    m.input("table", kFloat, {3, 4});
    m.input("at", kInt64, {1});
    m.initializer("extremes", kInt64, {3}, {INT64_MAX, INT64_MIN, 0});
    m.initializer("spread", kInt64, {3}, {int64_t{1} << 61, 0, -(int64_t{1} << 61)});  // steps spanning 3 * 2^61
    m.initializer("too_far", kInt64, {3}, {(int64_t{1} << 61) + 2, (int64_t{1} << 61) + 1, int64_t{1} << 61});
    m.initializer("wide", kInt64, {8}, {0, 1, 2, 3, 4, 5, 6, 7});
    for (const std::string constant : {"extremes", "spread", "too_far", "wide"}) {
        m.node("Add", {"at", constant}, constant + "_ids");
        m.node("Gather", {"table", constant + "_ids"}, constant + "_rows", constant + "_lookup");
        m.output(constant + "_rows", kFloat, {constant == "wide" ? 8 : 3, 4});
    }
    const auto result = kernelgen::import_model(m.bytes(), "extremes.onnx");
    ASSERT_EQ(result.kernels.size(), 4u);
    EXPECT_EQ(result.kernels[0].tensors.indices, "extremes_ids");
    EXPECT_EQ(result.kernels[1].tensors.indices, "spread_ids");
    EXPECT_EQ(result.kernels[2].tensors.indices, "too_far_ids");
    // A range wider than the table: the reader refuses the constants added, and the kernel takes the Add's output,
    // on which it fails as ONNX Runtime does, whatever `at` is; a note says why.
    EXPECT_EQ(result.kernels[3].tensors.indices, "wide_ids");
    EXPECT_TRUE(result.kernels[3].tensors.indices_through.empty());
    EXPECT_FALSE(result.kernels[3].spec.indices_add.has_value());
    EXPECT_TRUE(result.skipped.empty());
    ASSERT_EQ(result.notes.size(), 1u);
    EXPECT_NE(result.notes[0].find("node \"wide_lookup\" (Gather, #7): the kernel takes the node's own indices: "
                                   "kernelgen refuses those it would derive them from (/indices_add: "), std::string::npos)
        << result.notes[0];
    EXPECT_NE(result.notes[0].find("no index could be in range"), std::string::npos) << result.notes[0];
}

// Each import of `model` into `out` with the options given fails with its usage error (exit 2) and writes nothing.
void expect_usage_errors(const std::string& model, const fs::path& out, const std::vector<std::pair<std::string, std::string>>& runs) {
    for (const auto& [options, message] : runs) {
        CliRun run = kernelgen_run("import " + model + " -o " + out.string() + " " + options + " 2>&1");
        EXPECT_EQ(run.status, 2) << options;
        EXPECT_EQ(run.out, message + "Try 'kernelgen help import'.\n") << options;
        EXPECT_FALSE(fs::exists(out)) << options;
    }
}

TEST(ImportCounts, MaxCountOnTheCommandLine) {
    const fs::path dir = fresh_dir("max_count_cli");
    const std::string model = (dir / "counted.onnx").string();
    write_text(model, counted_model().bytes());
    const std::string out = " -o " + (dir / "out").string();
    expect_usage_errors(model, dir / "out",
                        {{"--max-count kept=4 --max-count kept=5", "kernelgen: --max-count kept is given two values, 4 and 5\n"},
                         {"--max-count kept", "kernelgen: --max-count takes NODE=N (an indexing node's name and the most rows its "
                                              "run-time count has), got \"kept\"\n"},
                         {"--max-count nowhere=3", "kernelgen: " + model + ": --max-count nowhere=3: the model has no indexing node "
                                                   "\"nowhere\" (name a Gather, GatherBlockQuantized, GatherElements, GatherND, "
                                                   "ScatterND or ScatterElements node by its name, or by its path in a body)\n"}});
    CliRun run = kernelgen_run("import " + model + out + " --max-count kept=4 --max-count cumulative=6");
    EXPECT_EQ(run.status, 0);
    EXPECT_NE(run.out.find("\n" + model + ": 13 specs (0 in subgraphs, 12 bounded), 0 folded, 2 skipped\n"), std::string::npos)
        << run.out;
    const json report = json::parse(read_text(dir / "out" / "counted.import.json"));
    for (const auto& entry : report.at("nodes")) {
        if (entry.at("name") == "cumulative") EXPECT_EQ(entry.at("bounded").at("through"), json::array({"--max-count cumulative=6"}));
    }
}

// Extents made of values the graph bounds take those bounds with no option: a box's corners clipped to the image
// (Max by 0, Min by its height and width, as torchvision clips them), its size clamped to at least 1, ceiled and
// cast into a Resize's sizes. Each extent takes its own element's bound, followed through the Slices, the Concat and
// the Resize to data's axis (and through a Transpose); inexact float32 arithmetic rounds outward, so that a bound
// holds the exact value too (ONNX Runtime may round once where the graph rounds twice): 40 and 30 scaled by 1.1f
// bound at 45 and 34 (44.000001 and 33.0000007 exactly, 44 and 33 in float32), by 1.5 at 60 and 45; a box not
// clipped on one side has no bound. --max-extent takes the place of a bound it is below, and gets a note where it is above
// every one.
TEST(ImportCounts, ExtentsBoundedByTheValuesThatMakeThem) {
    auto decode = [](const std::string& variant) {
        Model m(18);
        add_box_size(m, {40, 30, 40, 30}, "clamped", variant != "open");  // a 40 x 30 image
        m.float_initializer("scale", {}, {variant == "exact" ? 1.5f : 1.1f});
        if (variant == "scaled" || variant == "exact") m.node("Mul", {"clamped", "scale"}, "box", "scaled");
        else m.node("Identity", {"clamped"}, "box", "box");
        add_heatmap_resize(m);
        m.input("y", kInt64, {3});
        Model::attribute(m.node("Gather", {"roi_map", "y"}, "rows", "rows"), "axis", 1);      // [17, 3, w]
        Model::attribute(m.node("Transpose", {"roi_map"}, "turned", "turn"), "perm", std::vector<int64_t>{0, 2, 1});
        Model::attribute(m.node("Gather", {"turned", "y"}, "columns", "columns"), "axis", 1);  // [17, 3, h]
        for (const std::string name : {"rows", "columns"}) {
            auto* output = m.proto().mutable_graph()->add_output();
            output->set_name(name);
            output->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
        }
        return m;
    };
    // Each kernel's data shape and run-time axes, and each extent's bound and what bounds it, as the report says.
    auto extents = [](const kernelgen::ImportResult& result) {
        std::vector<std::string> out;
        const json report = json::parse(result.report);
        for (const auto& k : result.kernels) {
            std::string line = k.name + " " + kernelgen::format_shape(k.spec.data_shape) + ":";
            for (const auto& node : report.at("nodes")) {
                if (node.at("name") != k.name) continue;
                for (const auto& e : node.at("extents")) {
                    line += " " + e.at("axis").dump() + "<=" + e.at("bound").dump() + " (";
                    for (const auto& t : e.at("through")) line += (line.back() == '(' ? "" : ", ") + t.get<std::string>();
                    line += ")";
                }
            }
            out.push_back(line);
        }
        return out;
    };
    const std::string resize = "the sizes of Resize \"resize\", Max \"clip_low\", Min \"clip_high\", Clip \"at_least_one\"";
    const auto clipped = kernelgen::import_model(decode("clipped").bytes(), "clipped.onnx");
    ASSERT_TRUE(clipped.skipped.empty()) << clipped.skipped.front().reason;
    EXPECT_EQ(extents(clipped), (std::vector<std::string>{"rows [17, 40, 30]: 1<=40 (" + resize + ") 2<=30 (" + resize + ")",
                                                          "columns [17, 30, 40]: 1<=30 (" + resize + ") 2<=40 (" + resize + ")"}));
    EXPECT_TRUE(clipped.notes.empty());
    for (const auto& [variant, height, width] : {std::tuple{"scaled", 45u, 34u}, std::tuple{"exact", 60u, 45u}}) {
        const auto scaled = kernelgen::import_model(decode(variant).bytes(), "scaled.onnx");
        ASSERT_TRUE(scaled.skipped.empty()) << scaled.skipped.front().reason;
        ASSERT_EQ(scaled.kernels.size(), 2u);
        EXPECT_EQ(scaled.kernels[0].spec.data_shape, (kernelgen::Shape{17, height, width})) << variant;
        EXPECT_EQ(scaled.kernels[1].spec.data_shape, (kernelgen::Shape{17, width, height})) << variant;
    }
    const auto open = kernelgen::import_model(decode("open").bytes(), "open.onnx");
    ASSERT_EQ(open.skipped.size(), 2u);
    EXPECT_EQ(open.skipped.front().reason, "dynamic shape: data \"roi_map\" dimensions 1 and 2 could not be inferred; fix it with --dim or --input");

    kernelgen::ImportOptions options;
    options.max_extents = {{"rows", 35}, {"columns", 100}};
    const auto given = kernelgen::import_model(decode("clipped").bytes(), "clipped.onnx", options);
    EXPECT_EQ(extents(given), (std::vector<std::string>{"rows [17, 35, 30]: 1<=35 (--max-extent rows=35) 2<=30 (" + resize + ")",
                                                        "columns [17, 30, 40]: 1<=30 (" + resize + ") 2<=40 (" + resize + ")"}));
    EXPECT_EQ(given.notes, (std::vector<std::string>{
                               "--max-extent columns=100: node \"columns\" (Gather, #14) has data extents of at most 40 already "
                               "(the sizes of Resize \"resize\"), which stay their bounds"}));

    // The reports match their schema, which refuses an extent that does not say how its bound was found.
    const fs::path dir = fresh_dir("extent_reports");
    write_text(dir / "clipped.import.json", clipped.report);
    write_text(dir / "given.import.json", given.report);
    json untold = json::parse(clipped.report);
    for (auto& node : untold.at("nodes")) {
        if (node.contains("extents")) node["extents"][0].erase("through");
    }
    write_text(dir / "untold.import.json", untold.dump());
    const auto checked = check_reports({dir / "clipped.import.json", dir / "given.import.json"});
    if (!checked) GTEST_SKIP() << "python3-jsonschema missing: the reports are not checked against the schema";
    EXPECT_EQ(checked->status, 0) << checked->out;
    EXPECT_NE(check_reports({dir / "untold.import.json"})->status, 0);
}

// An extent's bound holds for every value the model can compute, ONNX Runtime's way: each chain below makes the
// Resize's size k of `up` ([3, k, 4]) from a graph input v, and the bound is the largest k ONNX Runtime gives for
// some v (worked by hand; the value that reaches it in brackets), or none where k may wrap or is unbounded.
TEST(ImportCounts, ExtentBoundsHoldForEveryValue) {
    struct Chain {
        std::string what;
        int32_t input_type;
        std::vector<int64_t> input_dims;
        std::function<void(Model&)> nodes;  // from "v" to "k", int64 [1]
        std::optional<uint64_t> bound;
    };
    auto clip = [](Model& m, const std::string& from, const std::string& to, int64_t low, int64_t high) {
        m.initializer(to + "_low", kInt64, {}, {low});
        m.initializer(to + "_high", kInt64, {}, {high});
        m.node("Clip", {from, to + "_low", to + "_high"}, to, to);
    };
    auto cast = [](Model& m, const std::string& from, const std::string& to, int32_t type) {
        Model::attribute(m.node("Cast", {from}, to, to), "to", int64_t{type});
    };
    // int64(bool(c)) + 4
    auto truth_plus_four = [&](Model& m) {
        cast(m, "c", "truth", onnx::TensorProto::BOOL);
        cast(m, "truth", "one", kInt64);
        m.initializer("four", kInt64, {}, {4});
        m.node("Add", {"one", "four"}, "k", "k");
    };
    // base - int64(<type>(clip(v, low, high))), v float32
    auto narrowed = [&](Model& m, float low, float high, int32_t type, int64_t base) {
        m.float_initializer("low", {}, {low});
        m.float_initializer("high", {}, {high});
        m.node("Clip", {"v", "low", "high"}, "c", "c");
        cast(m, "c", "narrow", type);
        cast(m, "narrow", "wide", kInt64);
        m.initializer("base", kInt64, {}, {base});
        m.node("Sub", {"base", "wide"}, "k", "k");
    };
    // ceil((1 / divisor) * scale), float32
    auto inverse_times = [&](Model& m, const std::string& divisor, const std::string& scale) {
        m.float_initializer("one", {}, {1});
        m.node("Div", {"one", divisor}, "inverse", "inverse");
        m.node("Mul", {"inverse", scale}, "product", "product");
        m.node("Ceil", {"product"}, "ceiled", "ceil");
        cast(m, "ceiled", "k", kInt64);
    };
    const std::vector<Chain> chains{
        {"10 - clip(v, 1, 7) / 2, truncated toward 0 (v = 1)", kInt64, {1}, [&](Model& m) {
             clip(m, "v", "c", 1, 7);
             m.initializer("two", kInt64, {}, {2});
             m.initializer("ten", kInt64, {}, {10});
             m.node("Div", {"c", "two"}, "half", "half");
             m.node("Sub", {"ten", "half"}, "k", "k");
         }, 10},
        {"bool(clip(v, -5, -1)) + 4: a negative value is true (v = -3)", kInt64, {1}, [&](Model& m) {
             clip(m, "v", "c", -5, -1);
             truth_plus_four(m);
         }, 5},
        {"130 - (-int8(clip(v, -128, -120))): -(-128) wraps to -128 in int8", kInt64, {1}, [&](Model& m) {
             clip(m, "v", "c", -128, -120);
             cast(m, "c", "narrow", onnx::TensorProto::INT8);
             m.node("Neg", {"narrow"}, "negated", "negated");
             cast(m, "negated", "wide", kInt64);
             m.initializer("base", kInt64, {}, {130});
             m.node("Sub", {"base", "wide"}, "k", "k");
         }, std::nullopt},
        {"ReduceMin of clip(v, 1, 10) over a run-time number of values: none gives int64's maximum", kInt64, {kDynamic},
         [&](Model& m) {
             clip(m, "v", "c", 1, 10);
             Model::attribute(m.node("ReduceMin", {"c"}, "k", "k"), "keepdims", int64_t{1});
         }, std::nullopt},
        {"30 - uint8(clip(v, 10, 20)): NaN passes Clip, and becomes 0 (v = NaN)", kFloat, {1}, [&](Model& m) {
             narrowed(m, 10, 20, onnx::TensorProto::UINT8, 30);
         }, 30},
        {"ceil((1 / clip(v, 8.063821, 100)) * 911.2118), which ONNX Runtime computes as 911.2118 / 8.063821 (v = 8.063821)",
         kFloat, {1}, [&](Model& m) {
             m.float_initializer("low", {}, {8.063821f});
             m.float_initializer("high", {}, {100});
             m.float_initializer("scale", {}, {911.2118f});
             m.node("Clip", {"v", "low", "high"}, "c", "c");
             inverse_times(m, "c", "scale");
         }, 114},
        {"bool(clip(v, 0, 0)) + 4: NaN passes Clip, and is true (v = NaN)", kFloat, {1}, [&](Model& m) {
             m.float_initializer("zero", {}, {0});
             m.node("Clip", {"v", "zero", "zero"}, "c", "c");
             truth_plus_four(m);
         }, 5},
        {"20 - uint32(clip(v, 5, 10)): NaN becomes 0 (v = NaN)", kFloat, {1}, [&](Model& m) {
             narrowed(m, 5, 10, onnx::TensorProto::UINT32, 20);
         }, 20},
        {"(1 / 2) * clip(v, 0, 100) in int64, 1 / 2 folded to 0, which ONNX Runtime computes as clip(v, 0, 100) / 2 "
         "(v = 100)", kInt64, {1}, [&](Model& m) {
             clip(m, "v", "c", 0, 100);
             m.initializer("one", kInt64, {}, {1});
             m.initializer("two", kInt64, {}, {2});
             m.node("Div", {"one", "two"}, "half", "half");
             m.node("Mul", {"half", "c"}, "k", "k");
         }, 50},
        {"ceil((1 / 27.65533) * clip(v, 0, 12057.725)), 1 / 27.65533 folded (below 1 / 27.65533), which ONNX Runtime "
         "computes as 12057.725 / 27.65533 = 436.00003 (v = 12057.725)", kFloat, {1}, [&](Model& m) {
             m.float_initializer("zero", {}, {0});
             m.float_initializer("high", {}, {12057.724609375f});
             m.float_initializer("divisor", {}, {27.655330657958984f});
             m.node("Clip", {"v", "zero", "high"}, "c", "c");
             inverse_times(m, "divisor", "c");
         }, 437},
        {"(2^53 + 1) - clip(v, 2^53 - 10, 2^53 - 5): a constant past a double's integers is not followed", kInt64, {1},
         [&](Model& m) {
             const int64_t big = int64_t{1} << 53;
             clip(m, "v", "c", big - 10, big - 5);
             m.initializer("base", kInt64, {}, {big + 1});
             m.node("Sub", {"base", "c"}, "k", "k");
         }, std::nullopt},
    };
    for (const Chain& chain : chains) {
        Model m(18);
        m.input("maps", kFloat, {3, 4, 4});
        m.input("yi", kInt64, {1});
        m.input("v", chain.input_type, chain.input_dims);
        chain.nodes(m);
        m.initializer("head", kInt64, {1}, {3});
        m.initializer("tail", kInt64, {1}, {4});
        Model::attribute(m.node("Concat", {"head", "k", "tail"}, "sizes", "sizes"), "axis", int64_t{0});
        m.node("Resize", {"maps", "", "", "sizes"}, "up", "resize");
        Model::attribute(m.node("Gather", {"up", "yi"}, "rows", "rows"), "axis", int64_t{1});
        m.output("rows", kFloat, {3, 1, kDynamic});
        const auto result = kernelgen::import_model(m.bytes(), "chain.onnx");
        ASSERT_TRUE(result.diagnostics.empty()) << chain.what << ": " << result.diagnostics.front().str();
        if (!chain.bound) {
            EXPECT_TRUE(result.kernels.empty()) << chain.what << ": " << result.report;
            continue;
        }
        ASSERT_EQ(result.kernels.size(), 1u) << chain.what << ": " << result.report;
        EXPECT_EQ(result.kernels[0].spec.data_shape, (kernelgen::Shape{3, *chain.bound, 4})) << chain.what;
    }
}

// --max-extent on the command line: a usage error names the option (exit 2, nothing written), a node without a data
// extent made at run time gets a note, and the Gathers it bounds take their extents at run time.
TEST(ImportCounts, MaxExtentOnTheCommandLine) {
    Model m(13);
    m.input("scores", kFloat, {6});
    m.input("maps", kFloat, {3, 4, 4});
    m.input("yi", kInt64, {2});
    m.initializer("zero", kFloat, {}, {0});
    m.initializer("one", kInt64, {1}, {1});
    m.initializer("two", kInt64, {1}, {2});
    m.initializer("head", kInt64, {1}, {3});
    m.node("Greater", {"scores", "zero"}, "mask", "greater");
    m.node("NonZero", {"mask"}, "nz", "nz");
    m.node("Shape", {"nz"}, "nz_shape", "nz_shape");
    m.node("Slice", {"nz_shape", "one", "two"}, "k", "k");
    Model::attribute(m.node("Concat", {"head", "k", "k"}, "sizes", "sizes"), "axis", int64_t{0});
    m.node("Resize", {"maps", "", "", "sizes"}, "up", "up");                          // [3, K, K]
    Model::attribute(m.node("Gather", {"up", "yi"}, "rows", "rows"), "axis", int64_t{1});  // [3, 2, K]
    m.node("Gather", {"maps", "yi"}, "planes", "planes");                              // [2, 4, 4]: static
    m.input("picks", kInt64, {3, 4, 4});
    m.node("GatherElements", {"maps", "picks"}, "picked", "picked");                   // not a Gather
    m.output("rows", kFloat, {3, 2, kDynamic});
    m.output("planes", kFloat, {2, 4, 4});
    m.output("picked", kFloat, {3, 4, 4});
    const fs::path dir = fresh_dir("max_extent_cli");
    const std::string model = (dir / "paste.onnx").string();
    write_text(model, m.bytes());
    const std::string out = " -o " + (dir / "out").string();
    expect_usage_errors(model, dir / "out",
                        {{"--max-extent rows=4 --max-extent rows=5", "kernelgen: --max-extent rows is given two values, 4 and 5\n"},
                         {"--max-extent rows", "kernelgen: --max-extent takes NODE=N (a Gather node's name and the largest extent "
                                               "its data has along each axis made at run time), got \"rows\"\n"},
                         {"--max-extent rows=0", "kernelgen: --max-extent rows=0: the bound must be a whole number from 1 to "
                                                 "4294967295 (a kernel's extent is a uint32_t)\n"},
                         {"--max-extent nowhere=3", "kernelgen: " + model + ": --max-extent nowhere=3: the model has no Gather node "
                                                    "\"nowhere\" (name a Gather node by its name, or by its path in a body)\n"},
                         {"--max-extent picked=3", "kernelgen: " + model + ": --max-extent picked=3: the model has no Gather node "
                                                   "\"picked\" (name a Gather node by its name, or by its path in a body)\n"}});
    CliRun run = kernelgen_run("import " + model + out + " --max-extent rows=6 --max-extent planes=6 2>&1");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find(model + ": note: --max-extent planes=6: node \"planes\" (Gather, #7) has no data extent made at run "
                           "time; the option is not used\n"),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find(model + ": 3 specs (0 in subgraphs), 0 folded, 0 skipped\n"), std::string::npos) << run.out;
    const json spec = json::parse(read_text(dir / "out" / "rows.json"));
    EXPECT_EQ(spec.at("data_shape"), json({3, 6, 6}));
    EXPECT_EQ(spec.at("runtime_axes"), json({1, 2}));
}

TEST(ImportCounts, MaxCountOptionMessages) {
    EXPECT_EQ(*kernelgen::parse_max_count_option("a=b=7"), std::make_pair(std::string("a=b"), uint64_t{7}));
    EXPECT_EQ(kernelgen::parse_max_count_option("/Gather_3=4294967295")->second, 4294967295u);
    for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
             {"kept", "--max-count takes NODE=N (an indexing node's name and the most rows its run-time count has), got \"kept\""},
             {"=4", "--max-count takes NODE=N (an indexing node's name and the most rows its run-time count has), got \"=4\""},
             {"kept=0", "--max-count kept=0: the bound must be a whole number from 1 to 4294967295 (a kernel's count is a uint32_t)"},
             {"kept=4294967296", "--max-count kept=4294967296: the bound must be a whole number from 1 to 4294967295 (a kernel's "
                                 "count is a uint32_t)"},
             {"kept=-1", "--max-count kept=-1: the bound must be a whole number from 1 to 4294967295 (a kernel's count is a "
                         "uint32_t)"}}) {
        const auto parsed = kernelgen::parse_max_count_option(text);
        EXPECT_FALSE(parsed) << text;
        EXPECT_EQ(parsed.problem(), message);
    }
}

// --- the report and the options ------------------------------------------------------------------------------------

// The report: written beside the specs, valid against its schema (schema/kernelgen-import-report.schema.json),
// left alone when unchanged, and skipped when the folder's *.json are given to kernelgen as specs.
TEST(ImportReport, MatchesItsSchemaAndIsLeftAloneWhenUnchanged) {
    const fs::path dir = fresh_dir("report");
    write_text(dir / "multi.onnx", multi_node_model().bytes());
    write_text(dir / "bodies.onnx", subgraph_model().bytes());
    write_text(dir / "counted.onnx", counted_model().bytes());
    for (const char* model : {"multi", "bodies", "counted"}) {
        CliRun run = kernelgen_run("import " + (dir / (std::string(model) + ".onnx")).string() + " -o " + (dir / model).string() +
                                   " 2>/dev/null");
        ASSERT_EQ(run.status, 0) << run.out;
    }
    const fs::path report = dir / "multi" / "multi.import.json";
    const json parsed = json::parse(read_text(report));
    EXPECT_EQ(parsed.at("kernelgen_import_report"), 1);
    EXPECT_EQ(parsed.at("model"), "multi.onnx");
    EXPECT_EQ(parsed.at("summary"),
              json::parse(R"({"specs": 8, "specs_in_subgraphs": 2, "bounded": 0, "folded": 0, "views": 0, "skipped": 4, "not_run": 0})"));
    EXPECT_EQ(parsed.at("nodes").size(), 12u);
    EXPECT_EQ(parsed.at("nodes")[0].at("spec"), "embed_lookup_0.json");
    EXPECT_EQ(parsed.at("nodes")[3].at("skipped"),
              "dynamic shape: data \"dyn\" dimension 0 is \"N\"; fix it with --dim N=<value>");

    // An unchanged report is left alone, timestamp too.
    const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(2);
    fs::last_write_time(report, old_time);
    const auto before = fs::last_write_time(report);
    ASSERT_EQ(kernelgen_run("import " + (dir / "multi.onnx").string() + " -o " + (dir / "multi").string() + " 2>/dev/null").status, 0);
    EXPECT_EQ(fs::last_write_time(report), before);

    // The folder's *.json, report included, generate.
    CliRun generate = kernelgen_run("--out-dir " + (dir / "kernels").string() + " " + (dir / "multi").string() + "/*.json 2>&1");
    EXPECT_EQ(generate.status, 0) << generate.out;

    // TensorScatter's nodes too (a report of every operator the table imports).
    ASSERT_EQ(kernelgen_run("import " + (kSourceDir / "tests" / "import" / "hostile" / "tensor_scatter_nodes.onnx").string() +
                            " -o " + (dir / "tensor_scatter").string() + " >/dev/null 2>&1").status, 0);
    const auto checked = check_reports({report, dir / "bodies" / "bodies.import.json", dir / "counted" / "counted.import.json",
                                        dir / "tensor_scatter" / "tensor_scatter_nodes.import.json"});
    if (!checked) GTEST_SKIP() << "python3-jsonschema missing: the reports are not checked against the schema";
    EXPECT_EQ(checked->status, 0) << checked->out;
    // The schema is not a rubber stamp: a report with an entry that is both a spec and skipped fails it.
    // So is a skipped node with a bound.
    json broken = parsed;
    broken["nodes"][0]["skipped"] = "both";
    json bounded_skip = parsed;
    bounded_skip["nodes"][3]["bounded"] = json::parse(R"({"bound": 4, "count_leads": "indices", "through": ["--max-count x=4"]})");
    for (const auto& [file, wrong] : {std::pair{"broken", broken}, std::pair{"bounded_skip", bounded_skip}}) {
        write_text(dir / (std::string(file) + ".import.json"), wrong.dump());
        EXPECT_NE(check_reports({dir / (std::string(file) + ".import.json")})->status, 0) << file;
    }
}

// --dim and --input: malformed values, values that do not fit the model and names the model lacks are usage errors
// (exit 2) naming them, with the name meant for a near miss.
TEST(ImportOptions, DimAndInputMessages) {
    EXPECT_EQ(kernelgen::parse_dim_option("batch").problem(),
              "--dim takes NAME=N (a dimension's name and its value), got \"batch\"");
    EXPECT_EQ(kernelgen::parse_dim_option("batch=-1").problem(), "--dim batch=-1: the value must be a whole number from 0 to 2^40");
    EXPECT_FALSE(kernelgen::parse_dim_option("batch=1099511627777"));
    EXPECT_EQ(*kernelgen::parse_dim_option("batch=0"), std::make_pair(std::string("batch"), int64_t{0}));
    EXPECT_EQ(kernelgen::parse_input_option("x").problem(),
              "--input takes NAME=SHAPE (an input's name and its shape, as 1x16000, or [] for rank 0), got \"x\"");
    EXPECT_EQ(kernelgen::parse_input_option("x=1xa").problem(),
              "--input x=1xa: SHAPE is dimensions from 0 to 2^40 joined by 'x' (1x16000), at most 32 of them, or [] for rank 0");
    EXPECT_FALSE(kernelgen::parse_input_option("x=1x"));
    EXPECT_EQ(kernelgen::parse_input_option("x=[]")->dims, std::vector<int64_t>{});
    EXPECT_EQ(kernelgen::parse_input_option("x=scalar")->dims, std::vector<int64_t>{});
    EXPECT_EQ(kernelgen::parse_input_option("x=1x16000")->dims, (std::vector<int64_t>{1, 16000}));

    Model m(17);
    m.input("x", kFloat, {kDynamic, 3});                    // dim_param "N"
    auto* y = m.proto().mutable_graph()->add_input();        // [2, "N", <unnamed>]
    Model::set_type(y, "y", kFloat, {2, kDynamic, 1});
    y->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->clear_dim_value();
    m.input("idx", kInt64, {2});
    m.node("Gather", {"x", "idx"}, "gx", "gx");
    m.node("Gather", {"y", "idx"}, "gy", "gy");
    auto import = [&](const std::map<std::string, int64_t>& dims, const std::vector<std::string>& inputs) {
        kernelgen::ImportOptions options;
        options.dims = dims;
        for (const auto& text : inputs) options.inputs.push_back(*kernelgen::parse_input_option(text));
        return kernelgen::import_model(m.bytes(), "m.onnx", options);
    };
    auto errors = [](const kernelgen::ImportResult& r) { return r.usage_errors; };
    EXPECT_EQ(errors(import({}, {"z=1"})),
              std::vector<std::string>{"--input z=1: the model has no input \"z\" (its inputs: \"x\", \"y\", \"idx\")"});
    EXPECT_EQ(errors(import({}, {"Idx=2"})),
              std::vector<std::string>{"--input Idx=2: the model has no input \"Idx\" (its inputs: \"x\", \"y\", \"idx\"); "
                                       "did you mean \"idx\"?"});
    EXPECT_EQ(errors(import({}, {"x=4"})),
              std::vector<std::string>{"--input x=4: input \"x\" has rank 2 in the model ([\"N\", 3]), not 1"});
    EXPECT_EQ(errors(import({}, {"x=4x5"})), std::vector<std::string>{"--input x=4x5: dimension 1 of \"x\" is 3 in the model"});
    EXPECT_EQ(errors(import({{"N", 2}}, {"x=4x3"})),
              std::vector<std::string>{"--input x=4x3 gives dimension \"N\" the value 4, but --dim N=2"});
    EXPECT_EQ(errors(import({}, {"x=4x3", "y=2x5x7"})),
              std::vector<std::string>{"--input y=2x5x7 gives dimension \"N\" the value 5, but --input x=4x3"});
    EXPECT_EQ(errors(import({}, {"x=4x3", "x=4x3"})), std::vector<std::string>{"--input x is given more than once"});

    // A --dim that names no dimension of the model binds nothing: a usage error, which names the model's dimensions
    // and, for a near miss (another letter case, a typo), the one meant; "M" is not "N".
    EXPECT_EQ(errors(import({{"batch", 9}}, {"y=2x4x7"})),
              std::vector<std::string>{"--dim batch=9: no dimension of the model is called \"batch\" (its dimensions: \"N\")"});
    EXPECT_EQ(errors(import({{"n", 4}}, {"y=2x4x7"})),
              std::vector<std::string>{"--dim n=4: no dimension of the model is called \"n\" (its dimensions: \"N\"); did "
                                       "you mean \"N\"?"});
    EXPECT_EQ(errors(import({{"M", 4}, {"N", 4}}, {})),
              std::vector<std::string>{"--dim M=4: no dimension of the model is called \"M\" (its dimensions: \"N\")"});
    // --input binds the dims it names for every tensor, and fixes unnamed ones.
    const auto bound = import({}, {"y=2x4x7"});
    EXPECT_TRUE(bound.usage_errors.empty());
    EXPECT_TRUE(bound.notes.empty());
    ASSERT_EQ(bound.kernels.size(), 2u);
    EXPECT_EQ(bound.kernels[0].spec.data_shape, (kernelgen::Shape{4, 3}));  // x's "N" through y's --input
    EXPECT_EQ(bound.kernels[1].spec.data_shape, (kernelgen::Shape{2, 4, 7}));
    // Unbound, the unnamed dim is called what it is, never by a name inference made up.
    const auto unbound = import({{"N", 4}}, {});
    ASSERT_EQ(unbound.skipped.size(), 1u);
    EXPECT_EQ(unbound.skipped[0].reason, "dynamic shape: data \"y\" dimension 2 could not be inferred; fix it with --dim or --input");

    // The command line: exit 2 and the message, nothing written.
    const fs::path dir = fresh_dir("options");
    write_text(dir / "m.onnx", m.bytes());
    const std::string model = (dir / "m.onnx").string();
    CliRun bad = kernelgen_run("import " + model + " -o " + (dir / "out").string() + " --input y=2x4 2>&1");
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.out, "kernelgen: " + model + ": --input y=2x4: input \"y\" has rank 3 in the model ([2, \"N\", ?]), not 2\n"
                       "Try 'kernelgen help import'.\n");
    EXPECT_FALSE(fs::exists(dir / "out"));
    CliRun malformed = kernelgen_run("import " + model + " -o " + (dir / "out").string() + " --dim N 2>&1");
    EXPECT_EQ(malformed.status, 2);
    EXPECT_EQ(malformed.out, "kernelgen: --dim takes NAME=N (a dimension's name and its value), got \"N\"\nTry 'kernelgen help import'.\n");
    CliRun twice = kernelgen_run("import " + model + " -o " + (dir / "out").string() + " --dim N=2 --dim=N=3 2>&1");
    EXPECT_EQ(twice.out, "kernelgen: --dim N is given two values, 2 and 3\nTry 'kernelgen help import'.\n");
    CliRun unknown = kernelgen_run("import " + model + " -o " + (dir / "out").string() + " --dim N=4 --input y=2x4x7 --dim M=1 2>&1");
    EXPECT_EQ(unknown.status, 2);
    EXPECT_EQ(unknown.out, "kernelgen: " + model + ": --dim M=1: no dimension of the model is called \"M\" (its dimensions: "
                           "\"N\")\nTry 'kernelgen help import'.\n");
    EXPECT_FALSE(fs::exists(dir / "out"));
    CliRun good = kernelgen_run("import " + model + " -o " + (dir / "out").string() + " --dim N=4 --input y=2x4x7");
    EXPECT_EQ(good.status, 0);
    EXPECT_EQ(good.out, model + ": 2 specs (0 in subgraphs), 0 folded, 0 skipped\n");
}

// A --dim with a typo in a dimension's name (a letter missing, another case) is refused with the name meant, as a
// GPT-style export's "seq" given as "sq" or "Seq": exit 2, nothing written. A model that names no dimension says so.
TEST(ImportOptions, DimThatNamesNothingIsAUsageError) {
    Model m(13);
    auto* x = m.proto().mutable_graph()->add_input();
    Model::set_type(x, "ids", kInt64, {1, 1});
    x->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("batch");
    x->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("seq");
    m.input("table", kFloat, {4, 2});
    m.node("Gather", {"table", "ids"}, "rows", "rows");
    const fs::path dir = fresh_dir("dim_names_nothing");
    write_text(dir / "m.onnx", m.bytes());
    const std::string model = (dir / "m.onnx").string();
    const std::string out = (dir / "out").string();
    for (const auto& [option, meant] : std::vector<std::pair<std::string, std::string>>{
             {"sq=4", "seq"}, {"Seq=4", "seq"}, {"seqq=4", "seq"}, {"btach=1", "batch"}, {"BATCH=1", "batch"}}) {
        CliRun run = kernelgen_run("import " + model + " -o " + out + " --dim " + option + " 2>&1");
        EXPECT_EQ(run.status, 2) << option;
        const std::string name = option.substr(0, option.find('='));
        EXPECT_EQ(run.out, "kernelgen: " + model + ": --dim " + option + ": no dimension of the model is called \"" + name +
                               "\" (its dimensions: \"batch\", \"seq\"); did you mean \"" + meant + "\"?\nTry 'kernelgen help import'.\n");
        EXPECT_FALSE(fs::exists(dir / "out")) << option;
    }
    CliRun far = kernelgen_run("import " + model + " -o " + out + " --dim batch=1 --dim time=8 2>&1");
    EXPECT_EQ(far.status, 2);
    EXPECT_EQ(far.out, "kernelgen: " + model + ": --dim time=8: no dimension of the model is called \"time\" (its dimensions: "
                       "\"batch\", \"seq\")\nTry 'kernelgen help import'.\n");
    EXPECT_FALSE(fs::exists(dir / "out"));
    CliRun right = kernelgen_run("import " + model + " -o " + out + " --dim batch=1 --dim seq=4");
    EXPECT_EQ(right.status, 0);
    EXPECT_EQ(right.out, model + ": 1 spec (0 in subgraphs), 0 folded, 0 skipped\n");

    Model fixed(13);
    fixed.input("ids", kInt64, {1, 3});
    fixed.input("table", kFloat, {4, 2});
    fixed.node("Gather", {"table", "ids"}, "rows", "rows");
    write_text(dir / "fixed.onnx", fixed.bytes());
    CliRun none = kernelgen_run("import " + (dir / "fixed.onnx").string() + " -o " + (dir / "out2").string() + " --dim N=1 2>&1");
    EXPECT_EQ(none.status, 2);
    EXPECT_EQ(none.out, "kernelgen: " + (dir / "fixed.onnx").string() + ": --dim N=1: no dimension of the model is called "
                        "\"N\" (it names none: give a whole input's shape with --input)\nTry 'kernelgen help import'.\n");
    EXPECT_FALSE(fs::exists(dir / "out2"));
}

// --value: a graph input a deployment never changes becomes a constant, and what follows from it folds: here the
// index of a Gather (a spec with constant indices) and a Where's choice; values that do not fit the input are usage
// errors naming the option, the input and what it takes.
TEST(ImportOptions, ValueMakesAnInputConstant) {
    EXPECT_EQ(kernelgen::parse_value_option("sr").problem(),
              "--value takes NAME=V[,V...] (a graph input's name and the values it holds at every call, as sr=16000), got \"sr\"");
    EXPECT_EQ(kernelgen::parse_value_option("sr=1,,2").problem(),
              "--value takes NAME=V[,V...] (a graph input's name and the values it holds at every call, as sr=16000), got "
              "\"sr=1,,2\": each value is a number (16000, -1, 0.5)");
    EXPECT_EQ(kernelgen::parse_value_option("w=0.5,-1e3")->values, (std::vector<std::string>{"0.5", "-1e3"}));

    Model m(17);
    m.input("x", kFloat, {4, 3});
    m.input("row", kInt64, {});
    m.input("flags", kBool, {2});
    m.input("scale", kFloat, {});
    m.input("n", kInt32, {kDynamic});                     // "N"
    m.input("fallback", kInt64, {});                      // with a default: an initializer of the same name
    m.initializer("fallback", kInt64, {}, {1});
    m.initializer("idx", kInt64, {2}, {0, 1});
    m.node("Gather", {"x", "row"}, "picked", "picked");    // indices from --value: constant
    m.node("Gather", {"flags", "idx"}, "chosen", "chosen");  // data from --value: folded
    m.node("Mul", {"x", "scale"}, "scaled", "mul");
    m.node("Gather", {"n", "idx"}, "ns", "ns");
    m.node("Gather", {"x", "fallback"}, "defaulted", "defaulted");  // the default is no constant: a caller may feed it
    auto import = [&](const std::vector<std::string>& values, std::map<std::string, int64_t> dims = {}) {
        kernelgen::ImportOptions options;
        options.dims = std::move(dims);
        for (const auto& text : values) options.values.push_back(*kernelgen::parse_value_option(text));
        return kernelgen::import_model(m.bytes(), "m.onnx", options);
    };
    const auto fixed = import({"row=-2", "flags=1,0", "scale=0.5", "fallback=3"}, {{"N", 2}});
    ASSERT_TRUE(fixed.usage_errors.empty()) << fixed.usage_errors.front();
    EXPECT_EQ(kernelgen::import_summary(fixed, "m"), "m: 3 specs (0 in subgraphs), 1 folded, 0 skipped");
    ASSERT_EQ(fixed.kernels.size(), 3u);
    EXPECT_EQ(fixed.kernels[0].name, "picked");
    EXPECT_EQ(fixed.kernels[0].spec.constant_indices, std::vector<int64_t>{-2});
    EXPECT_EQ(fixed.kernels[2].name, "defaulted");
    EXPECT_EQ(fixed.kernels[2].spec.constant_indices, std::vector<int64_t>{3});  // the value given, not the default
    const auto unfixed = import({}, {{"N", 2}});
    ASSERT_EQ(unfixed.kernels.size(), 4u);
    EXPECT_FALSE(unfixed.kernels[3].spec.constant_indices.has_value());
    EXPECT_EQ(json::parse(fixed.report).at("values"), json::parse(R"({"fallback": [3], "flags": [1, 0], "row": [-2], "scale": [0.5]})"));
    auto errors = [&](const std::vector<std::string>& values) { return import(values).usage_errors; };
    EXPECT_EQ(errors({"row=1.5"}), std::vector<std::string>{"--value row=1.5: \"1.5\" is not a value of input \"row\" (int64: an "
                                                           "integer from -2^63 to 2^63-1)"});
    EXPECT_EQ(errors({"flags=1,2"}), std::vector<std::string>{"--value flags=1,2: \"2\" is not a value of input \"flags\" (bool: 0 or 1)"});
    EXPECT_EQ(errors({"flags=1"}), std::vector<std::string>{"--value flags=1: input \"flags\" has 2 elements (shape [2]), not 1"});
    EXPECT_EQ(errors({"scale=1,2"}), std::vector<std::string>{"--value scale=1,2: input \"scale\" has 1 element (shape []), not 2"});
    EXPECT_EQ(errors({"n=1,2"}), std::vector<std::string>{"--value n=1,2: the shape of input \"n\" is not known (give it with "
                                                         "--input n=SHAPE, or bind its dimensions with --dim)"});
    EXPECT_EQ(errors({"z=1"}), std::vector<std::string>{"--value z=1: the model has no input \"z\" (its inputs: \"x\", \"row\", "
                                                       "\"flags\", \"scale\", \"n\", \"fallback\")"});
    EXPECT_EQ(errors({"row=1", "row=2"}), std::vector<std::string>{"--value row is given more than once"});
    EXPECT_EQ(import({"n=1"}, {{"N", int64_t{1} << 40}}).usage_errors,
              std::vector<std::string>{"--value n=1: input \"n\" has more than 65536 elements (shape [1099511627776]), not 1"});
    EXPECT_TRUE(import({"scale=1e-40"}).usage_errors.empty());  // a subnormal float32
    EXPECT_EQ(errors({"scale=1e99"}), std::vector<std::string>{"--value scale=1e99: \"1e99\" is not a value of input \"scale\" "
                                                              "(float32: a decimal number (0.5, -1e3))"});

    const fs::path dir = fresh_dir("values");
    write_text(dir / "m.onnx", m.bytes());
    CliRun bad = kernelgen_run("import " + (dir / "m.onnx").string() + " -o " + (dir / "out").string() + " --value row=x 2>&1");
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.out, "kernelgen: --value takes NAME=V[,V...] (a graph input's name and the values it holds at every call, "
                       "as sr=16000), got \"row=x\": each value is a number (16000, -1, 0.5)\nTry 'kernelgen help import'.\n");
    EXPECT_FALSE(fs::exists(dir / "out"));
}

// A node's every unbound dimension, of each of its tensors, is named at once, with every --dim that binds them, so
// that one rerun binds them all.
TEST(ImportOptions, EveryUnboundDimensionIsNamed) {
    Model m(13);
    auto declare = [&](const std::string& name, int32_t type, const std::vector<std::string>& dims) {
        auto* info = m.proto().mutable_graph()->add_input();
        Model::set_type(info, name, type, {});
        auto* shape = info->mutable_type()->mutable_tensor_type()->mutable_shape();
        for (const auto& dim : dims) {
            if (dim.empty()) shape->add_dim();  // neither a value nor a name
            else if (std::isdigit(static_cast<unsigned char>(dim[0]))) shape->add_dim()->set_dim_value(std::stoll(dim));
            else shape->add_dim()->set_dim_param(dim);
        }
    };
    declare("x", kFloat, {"batch", "seq", "3"});
    declare("idx", kInt64, {"batch", ""});
    declare("x_idx", kInt64, {"2", "seq", "3"});
    m.node("Gather", {"x", "idx"}, "picked", "pick");
    m.node("GatherElements", {"x", "x_idx"}, "picked2", "pick2");
    auto reasons = [&](const std::map<std::string, int64_t>& dims) {
        kernelgen::ImportOptions options;
        options.dims = dims;
        std::vector<std::string> out;
        for (const auto& skipped : kernelgen::import_model(m.bytes(), "m.onnx", options).skipped) out.push_back(skipped.reason);
        return out;
    };
    EXPECT_EQ(reasons({}),
              (std::vector<std::string>{
                  "dynamic shape: data \"x\" dimension 0 is \"batch\" and dimension 1 is \"seq\", indices \"idx\" dimension 0 is "
                  "\"batch\" and dimension 1 could not be inferred; fix it with --dim batch=<value> --dim seq=<value> and --dim "
                  "or --input",
                  "dynamic shape: data \"x\" dimension 0 is \"batch\" and dimension 1 is \"seq\", indices \"x_idx\" dimension 1 is "
                  "\"seq\"; fix it with --dim batch=<value> --dim seq=<value>"}));
    EXPECT_EQ(reasons({{"batch", 2}}),
              (std::vector<std::string>{
                  "dynamic shape: data \"x\" dimension 1 is \"seq\", indices \"idx\" dimension 1 could not be inferred; fix it "
                  "with --dim seq=<value> and --dim or --input",
                  "dynamic shape: data \"x\" dimension 1 is \"seq\", indices \"x_idx\" dimension 1 is \"seq\"; fix it with --dim "
                  "seq=<value>"}));
    EXPECT_EQ(reasons({{"batch", 2}, {"seq", 4}}),
              (std::vector<std::string>{"dynamic shape: indices \"idx\" dimension 1 could not be inferred; fix it with --dim or "
                                        "--input"}));
}

// --- published models ---------------------------------------------------------------------------------------------

// The Silero VAD exports shipped in @ricky0123/vad-web (tools/install-deps.sh puts them in build/models): their
// whole bodies sit in If branches (a sample-rate switch, then shape tests inside). Bound as a 16 kHz deployment
// uses them (512 samples), every indexing node is a spec, folded, or in a branch that never runs with those
// shapes; but in the 8 kHz branch (256 samples expected) the 512 samples leave three shapes unknown (its LSTM
// would get a rank-4 input). --value sr=16000 settles the switch: nothing skipped; and so does sr=8000 with 256
// samples, the 8 kHz deployment.
TEST(PublishedModels, SileroVadImportsAsBound) {
    const fs::path models = KERNELGEN_MODELS_DIR;
    if (!fs::exists(models / "silero_vad_v5.onnx") || !fs::exists(models / "silero_vad_legacy.onnx")) {
        GTEST_SKIP() << "the Silero VAD models are not in " << models << " (tools/install-deps.sh fetches them with npm)";
    }
    kernelgen::ImportOptions legacy_options;
    legacy_options.dims = {{"batch", 1}, {"sequence", 512}};
    const auto legacy = kernelgen::import_model_file((models / "silero_vad_legacy.onnx").string(), legacy_options);
    ASSERT_TRUE(legacy.diagnostics.empty());
    EXPECT_EQ(kernelgen::import_summary(legacy, "legacy"), "legacy: 0 specs (0 in subgraphs), 12 folded, 0 skipped, 2 not run");

    kernelgen::ImportOptions options;
    options.prefix = "vad_";
    options.inputs = {*kernelgen::parse_input_option("input=1x512"), *kernelgen::parse_input_option("state=2x1x128")};
    const auto v5 = kernelgen::import_model_file((models / "silero_vad_v5.onnx").string(), options);
    ASSERT_TRUE(v5.diagnostics.empty());
    EXPECT_EQ(kernelgen::import_summary(v5, "v5"), "v5: 4 specs (4 in subgraphs), 5 folded, 3 skipped, 8 not run");
    for (const auto& skipped : v5.skipped) EXPECT_EQ(skipped.node.graph.rfind("If_0/else", 0), 0u) << skipped.node.str();
    std::vector<kernelgen::ImportedKernel> imported = v5.kernels;
    for (const auto& [samples, rate, branch] : {std::tuple{"512", "16000", "If_0/then"}, std::tuple{"256", "8000", "If_0/else"}}) {
        kernelgen::ImportOptions fixed = options;
        fixed.prefix = std::string("vad") + rate + "_";
        fixed.inputs = {*kernelgen::parse_input_option(std::string("input=1x") + samples),
                        *kernelgen::parse_input_option("state=2x1x128")};
        fixed.values = {*kernelgen::parse_value_option(std::string("sr=") + rate)};
        const auto settled = kernelgen::import_model_file((models / "silero_vad_v5.onnx").string(), fixed);
        ASSERT_TRUE(settled.diagnostics.empty() && settled.usage_errors.empty());
        EXPECT_EQ(kernelgen::import_summary(settled, "v5"), "v5: 2 specs (2 in subgraphs), 3 folded, 0 skipped, 15 not run") << rate;
        for (const auto& kernel : settled.kernels) EXPECT_EQ(kernel.node.graph.rfind(branch, 0), 0u) << rate << " " << kernel.name;
        imported.insert(imported.end(), settled.kernels.begin(), settled.kernels.end());
    }
    // The specs split the recurrent state into its two halves; each kernel, run on a state, gives that half.
    std::vector<kernelgen::KernelSpec> kernels;
    std::vector<cprogram::Case> cases;
    std::vector<float> state(256);
    for (size_t i = 0; i < state.size(); ++i) state[i] = static_cast<float>(i) * 0.25f - 3.0f;
    for (const auto& kernel : imported) {
        ASSERT_EQ(kernel.spec.data_shape, (kernelgen::Shape{2, 1, 128}));
        ASSERT_TRUE(kernel.spec.constant_indices.has_value());
        const auto half = static_cast<size_t>(kernel.spec.constant_indices->front());
        const std::vector<float> expected(state.begin() + static_cast<std::ptrdiff_t>(half * 128),
                                          state.begin() + static_cast<std::ptrdiff_t>(half * 128 + 128));
        kernels.push_back(kernel.spec);
        cases.push_back(make_case(kernel.spec, kernel.name, cprogram::bytes_of(state), {}, {}, cprogram::bytes_of(expected)));
    }
    run_cases(fresh_dir("silero"), kernels, cases);
}

}  // namespace
