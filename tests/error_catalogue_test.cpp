// docs/errors.md is the catalogue of spec errors: every example there, run through the generator, must
// print exactly the lines the catalogue shows. The catalogue is thereby the test's data, written by hand
// as the messages' specification, and cannot drift from what kernelgen says.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernelgen/generate.h"
#include "kernelgen/spec.h"

namespace {

struct SpecFile {
    std::string name;
    std::string text;
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
    enum class Block { None, Json, Text, Other } block = Block::None;
    while (std::getline(in, line)) {
        ++number;
        if (block != Block::None) {
            if (line == "```") {
                block = Block::None;
            } else if (block == Block::Json) {
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

std::vector<std::string> run(const std::vector<SpecFile>& files) {
    std::vector<kernelgen::Diagnostic> diagnostics;
    std::vector<kernelgen::KernelSpec> kernels;
    for (const auto& file : files) {
        auto parsed = kernelgen::parse_spec_text(file.text, file.name, diagnostics);
        kernels.insert(kernels.end(), parsed.begin(), parsed.end());
    }
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
          "more than its uint32_t count can reach", "an ONNX model? did you mean 'kernelgen import"}) {
        EXPECT_NE(all.find(form), std::string::npos) << "no catalogue entry shows a message with: " << form;
    }
}
