// docs/errors.md is the catalogue of spec errors: every example there, run through the generator, must
// print exactly the lines the catalogue shows. The catalogue is thereby the test's data, written by hand
// as the messages' specification, and cannot drift from what kernelgen says.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kernelgen/generate.h"
#include "kernelgen/spec.h"

namespace {

struct SpecFile {
    std::string name;
    std::string text;
    bool npy = false;  // a ```npy block: a NumPy file described as JSON (see npy_bytes)
};

struct Example {
    std::string title;
    size_t line = 0;  // of the "### " heading, for failure messages
    std::vector<SpecFile> files;
    std::vector<std::string> expected;
    bool has_expected = false;
};

// Every "### " entry: its ```json FILE blocks and its one ```text block.
std::vector<Example> read_catalogue(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot open " << path;
    std::vector<Example> examples;
    std::string line;
    size_t number = 0;
    enum class Block { None, Json, Npy, Text, Other } block = Block::None;
    while (std::getline(in, line)) {
        ++number;
        if (block != Block::None) {
            if (line == "```") {
                block = Block::None;
            } else if (block == Block::Json || block == Block::Npy) {
                SpecFile& file = examples.back().files.back();
                file.text += (file.text.empty() ? "" : "\n") + line;
            } else if (block == Block::Text) {
                examples.back().expected.push_back(line);
            }
            continue;
        }
        if (line.rfind("### ", 0) == 0) {
            examples.push_back({line.substr(4), number, {}, {}, false});
        } else if (line.rfind("```json", 0) == 0 && !examples.empty()) {
            const std::string name = line.size() > 8 ? line.substr(8) : "spec.json";
            examples.back().files.push_back({name, ""});
            block = Block::Json;
        } else if (line.rfind("```npy ", 0) == 0 && !examples.empty()) {
            examples.back().files.push_back({line.substr(7), "", true});
            block = Block::Npy;
        } else if (line == "```text" && !examples.empty()) {
            EXPECT_FALSE(examples.back().has_expected) << "line " << number << ": a second text block";
            examples.back().has_expected = true;
            block = Block::Text;
        } else if (line.rfind("```", 0) == 0) {
            block = Block::Other;
        }
    }
    return examples;
}

// The bytes of a NumPy file an ```npy block describes, written here without the generator's code: a JSON object
// with "descr", "fortran_order" and "shape" for the header (or "header": its text as is), then "values" (numbers
// packed as the descr says: "<f4", "<f8", "|u1", "<i8") or "data_bytes" (that many zero bytes); "magic" replaces the
// first 8 bytes.
std::string npy_bytes(const std::string& text) {
    const auto description = nlohmann::json::parse(text);
    std::string header;
    if (description.contains("header")) {
        header = description["header"].get<std::string>();
    } else {
        std::string shape = "(";
        for (const auto& dim : description["shape"]) shape += std::to_string(dim.get<uint64_t>()) + ", ";
        if (description["shape"].size() > 1) shape.resize(shape.size() - 2);
        shape += ")";
        header = "{'descr': '" + description["descr"].get<std::string>() + "', 'fortran_order': " +
                 (description["fortran_order"].get<bool>() ? "True" : "False") + ", 'shape': " + shape + ", }\n";
    }
    std::string out = description.value("magic", std::string("\x93NUMPY\x01\x00", 8));
    out += static_cast<char>(header.size() & 0xFF);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    const std::string descr = description.value("descr", std::string("|u1"));
    for (const auto& value : description.value("values", nlohmann::json::array())) {
        auto put = [&](const auto number) { out.append(reinterpret_cast<const char*>(&number), sizeof number); };
        if (descr == "<f4") put(value.get<float>());
        else if (descr == "<f8") put(value.get<double>());
        else if (descr == "<i8") put(value.get<int64_t>());
        else put(value.get<uint8_t>());
    }
    out.append(description.value("data_bytes", size_t{0}), '\0');
    return out;
}

// Runs the example's spec files, with its NumPy files in the working folder (a fresh one) that the specs name
// them from.
std::vector<std::string> run(const std::vector<SpecFile>& files) {
    namespace fs = std::filesystem;
    const fs::path folder = fs::temp_directory_path() / ("kernelgen-catalogue-" + std::to_string(::getpid()));
    fs::remove_all(folder);
    fs::create_directories(folder);
    const fs::path before = fs::current_path();
    fs::current_path(folder);
    for (const auto& file : files) {
        if (file.npy) std::ofstream(file.name, std::ios::binary) << npy_bytes(file.text);
    }
    std::vector<kernelgen::Diagnostic> diagnostics;
    std::vector<kernelgen::KernelSpec> kernels;
    for (const auto& file : files) {
        if (file.npy) continue;
        auto parsed = kernelgen::parse_spec_text(file.text, file.name, diagnostics);
        kernels.insert(kernels.end(), parsed.begin(), parsed.end());
    }
    fs::current_path(before);
    fs::remove_all(folder);
    kernelgen::GenerateResult result = kernelgen::generate(kernels, diagnostics);
    EXPECT_TRUE(result.files.empty()) << "a rejected run emits nothing";
    std::vector<std::string> lines;
    for (const auto& diagnostic : result.diagnostics) lines.push_back(diagnostic.str());
    return lines;
}

}  // namespace

TEST(ErrorCatalogue, EveryExamplePrintsExactlyItsLines) {
    const auto examples = read_catalogue(KERNELGEN_SOURCE_DIR "/docs/errors.md");
    ASSERT_GE(examples.size(), 50u) << "the catalogue lost entries";
    for (const auto& example : examples) {
        SCOPED_TRACE("docs/errors.md:" + std::to_string(example.line) + ": " + example.title);
        ASSERT_FALSE(example.files.empty()) << "an entry without a json block";
        ASSERT_TRUE(example.has_expected && !example.expected.empty()) << "an entry without its expected lines";
        EXPECT_EQ(run(example.files), example.expected);
    }
}

// The reverse direction, as far as it can be automated: every kind of message the spec reader has is in
// the catalogue (one pattern per message form of generator/src/spec/ and codegen/generate.cpp).
TEST(ErrorCatalogue, CoversEveryMessageForm) {
    const auto examples = read_catalogue(KERNELGEN_SOURCE_DIR "/docs/errors.md");
    std::string all;
    for (const auto& example : examples) {
        for (const auto& line : example.expected) all += line + "\n";
    }
    for (const char* form :
         {"malformed JSON: at line", "number overflow", "JSON nested more than", "is given more than once",
          "expected a kernel object", "beside \"kernels\"", "JSON Schema for editors", "expected a non-empty array of kernel objects",
          "required key", "unknown key", "does not apply to", "expected an integer, got string",
          "expected an integer, got number", "expected a string", "expected an array", "is not a C identifier",
          "characters long", "is a C or C++ keyword", "starts with '_'", "contains \"__\"",
          "is a name of the C standard library", "ends in \"_t\"", "which C reserves for <string.h>",
          "<stdint.h> macro name", "entry point", "begins with \"kernelgen\"", "unknown operator",
          "unknown element type", "unknown index type", "unknown reduction", "is not defined for complex64",
          "is not defined for string", "unknown unroll setting", "unroll factor", "unknown index_check setting",
          "is negative", "is too large (at most 2^40)", "has too many elements", "output shape",
          "rank 33 is too large", "data must have rank >= 1", "needs indices of rank >= 1",
          "is out of range for data of rank", "GatherElements needs equal ranks", "exceeds data dimension",
          "batch_dims 2 is out of range", "batch dimension 0 is", "index tuple length", "the data rank - batch_dims",
          "does not match", "is already used by", "once upper-cased", "both headers would define",
          "\"full\" unrolling would take", "did you mean",
          "index 5 is out of range for data axis", "with int32 indices", "so no index is valid",
          "expected an integer, got string \"3\" (arrays nested", "expected an array of 2", "got array (an integer",
          "more constant indices are invalid", "does not apply to constant indices",
          "ScatterElements needs equal ranks", "updates have the shape of indices",
          "says what a run-time count counts", "unknown count_leads setting", "output has the shape of indices, so",
          "output is indices_shape[:-1] + data_shape", "output is all of data, with updates",
          "which must lead the output too", "a run-time count of data rows", "count data's rows with",
          "more than its uint32_t count can reach", "an ONNX model? did you mean 'kernelgen import",
          "is out of range for int8", "largest 65504", "unknown value \"nan\"", "as data_shape [2, 2]",
          "expected true or false", "expected [real, imaginary]", "is given twice", "the name of a NumPy .npy file",
          "cannot read \"missing.npy\"", "holds '<f8' elements", "holds an array of shape", "Fortran (column-major)",
          "bytes of data where its header", "no \\x93NUMPY magic", "which is not a bool", "elements in one kernel",
          "constant data has all its rows", "string data cannot be constant"}) {
        EXPECT_NE(all.find(form), std::string::npos) << "no catalogue entry shows a message with: " << form;
    }
}
