// Every rule of the spec format, each with the exact diagnostic it prints, and the specs it accepts.
//
// Rules of one file are checked through kernelgen::parse_spec_text(); the rules of a whole run (unique
// names, the "full" unrolling limit) through kernelgen::generate().
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernelgen/generate.h"
#include "kernelgen/spec.h"

namespace {

using kernelgen::KernelSpec;
using kernelgen::Shape;
using Problems = std::vector<std::string>;

// The "(allowed)" texts of the rules, as the messages end.
const std::string kOps = "one of Gather, GatherElements, GatherND, ScatterND, ScatterElements, TensorScatter";
const std::string kNameRule = "a C identifier of at most 63 characters, not a C or C++ keyword";
const std::string kDTypes =
    "one of float32 or float, float64 or double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, "
    "float16, bfloat16, complex64, complex128, string";
const std::string kIndexTypes = "int32 or int64; default int64";
const std::string kShapeRule = "an array of integers >= 0";
const std::string kUnrollRule = "\"auto\", \"full\", \"none\" or an integer factor from 1 to 64; default \"auto\"";
const std::string kReductions = "none, add, mul, max or min; default none";
const std::string kCommonKeys = "name, op, dtype, index_dtype, data_shape, indices_shape, indices, unroll, prefetch, index_check, count, count_leads, data_count, indices_broadcast_from, indices_add";

struct Parsed {
    std::vector<KernelSpec> kernels;
    std::vector<kernelgen::Diagnostic> diagnostics;
    Problems problems;  // Diagnostic::str() of each diagnostic, in order
};

Parsed parse(const std::string& text) {
    Parsed parsed;
    parsed.kernels = kernelgen::parse_spec_text(text, "spec.json", parsed.diagnostics);
    for (const auto& diagnostic : parsed.diagnostics) parsed.problems.push_back(diagnostic.str());
    return parsed;
}

// Parses a document that must hold exactly one valid kernel.
KernelSpec parse_one(const std::string& text) {
    Parsed parsed = parse(text);
    EXPECT_EQ(parsed.problems, Problems{});
    EXPECT_EQ(parsed.kernels.size(), 1u);
    return parsed.kernels.empty() ? KernelSpec{} : parsed.kernels.front();
}

// The problems of a document that must be rejected as a whole.
Problems rejected(const std::string& text) {
    Parsed parsed = parse(text);
    EXPECT_TRUE(parsed.kernels.empty()) << "no kernel of a rejected document is returned";
    return parsed.problems;
}

// Parses each text as its own file (named by `files`), then runs the run-wide rules of generate().
kernelgen::GenerateResult generate_texts(const std::vector<std::string>& files, const std::vector<std::string>& texts) {
    std::vector<kernelgen::Diagnostic> diagnostics;
    std::vector<KernelSpec> kernels;
    for (size_t i = 0; i < texts.size(); ++i) {
        auto parsed = kernelgen::parse_spec_text(texts[i], files[i], diagnostics);
        kernels.insert(kernels.end(), parsed.begin(), parsed.end());
    }
    EXPECT_TRUE(diagnostics.empty()) << "every file of a run-wide test is valid on its own";
    return kernelgen::generate(kernels);
}

Problems strings_of(const std::vector<kernelgen::Diagnostic>& diagnostics) {
    Problems out;
    for (const auto& diagnostic : diagnostics) out.push_back(diagnostic.str());
    return out;
}

}  // namespace

// --- the document ---------------------------------------------------------------------------------------

TEST(SpecErrors, MalformedJsonNamesLineAndColumn) {
    EXPECT_EQ(rejected(R"json({"name": })json"),
              Problems{"spec.json: /: malformed JSON: at line 1, column 10: syntax error while parsing value - "
                       "unexpected '}'; expected '[', '{', or a literal"});
}

// An ONNX model given where a spec belongs (kernelgen model.onnx, without import): by its name, or by its first
// byte, 0x08 (protobuf field 1, the ir_version every model starts with), the hint names the command that reads it.
TEST(SpecErrors, AnOnnxModelGetsTheImportHint) {
    const std::string model = "\x08\x07\x12\x07pytorch\x1a\x04" "1.13";  // how torch.onnx.export's files begin
    auto problems = [](const std::string& text, const std::string& file) {
        std::vector<kernelgen::Diagnostic> diagnostics;
        EXPECT_TRUE(kernelgen::parse_spec_text(text, file, diagnostics).empty());
        return strings_of(diagnostics);
    };
    const std::string read = ": /: malformed JSON: at line 1, column 1: syntax error while parsing value - invalid literal; "
                             "last read: '<U+0008>'; an ONNX model? did you mean 'kernelgen import ";
    EXPECT_EQ(problems(model, "decoder.onnx"), Problems{"decoder.onnx" + read + "decoder.onnx --out-dir DIR'?"});
    EXPECT_EQ(problems(model, "Decoder.ONNX"), Problems{"Decoder.ONNX" + read + "Decoder.ONNX --out-dir DIR'?"});
    EXPECT_EQ(problems(model, "exported.pb"), Problems{"exported.pb" + read + "exported.pb --out-dir DIR'?"});
    EXPECT_NE(problems("{x", "m.onnx").at(0).find("; an ONNX model? did you mean 'kernelgen import m.onnx --out-dir DIR'?"),
              std::string::npos);
    // Not for a spec that is merely malformed.
    EXPECT_EQ(problems("{x", "spec.json").at(0).find("ONNX"), std::string::npos);
}

TEST(SpecErrors, TruncatedJson) {
    EXPECT_EQ(rejected(R"json({"name": "k",)json"),
              Problems{"spec.json: /: malformed JSON: at line 1, column 14: syntax error while parsing object key - "
                       "unexpected end of input; expected string literal"});
}

TEST(SpecErrors, EmptyFile) {
    EXPECT_EQ(rejected(""), Problems{"spec.json: /: malformed JSON: at line 1, column 1: syntax error while parsing "
                                     "value - unexpected end of input; expected '[', '{', or a literal"});
}

TEST(SpecErrors, TrailingContentAfterTheDocument) {
    EXPECT_EQ(rejected("{} x"), Problems{"spec.json: /: malformed JSON: at line 1, column 4: syntax error while "
                                         "parsing value - invalid literal; last read: '{} x'; expected end of input"});
}

// Regression: a number too large for a double (valid JSON grammar) once escaped as an exception.
TEST(SpecErrors, NumberTooLargeForADoubleIsADiagnosticNotACrash) {
    const std::string text =
        R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [1], "axis": 1e400})json";
    std::vector<kernelgen::Diagnostic> diagnostics;
    std::vector<KernelSpec> kernels;
    EXPECT_NO_THROW(kernels = kernelgen::parse_spec_text(text, "spec.json", diagnostics));
    EXPECT_TRUE(kernels.empty());
    ASSERT_EQ(diagnostics.size(), 1u);
    EXPECT_EQ(diagnostics[0].file, "spec.json");
}

// JSON leaves a repeated key's meaning open; a spec must not depend on which one a reader keeps.
TEST(SpecErrors, DuplicateKeysAreNamedWithTheirPointer) {
    EXPECT_EQ(rejected(R"json({"kernels": [
        {"name": "a", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2], "axis": 0, "axis": -1},
        {"name": "b", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}],
        "kernels": []})json"),
              (Problems{"spec.json: /kernels/0/axis: key \"axis\" is given more than once (each key once)",
                        "spec.json: /kernels: key \"kernels\" is given more than once (each key once)"}));
    // The same key in different objects is fine.
    EXPECT_EQ(parse(R"json({"kernels": [
        {"name": "a", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
        {"name": "b", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}]})json").kernels.size(), 2u);
}

// Nesting is refused before parsing, at a depth no spec needs, so a deep document cannot exhaust the stack or
// the memory; brackets inside strings do not count.
TEST(SpecErrors, DeepNestingIsRefusedWithItsPosition) {
    const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
    EXPECT_EQ(rejected(deep), Problems{"spec.json: /: JSON nested more than 64 levels deep at line 1, column 65 (a spec "
                                       "nests 4 levels: {\"kernels\": [{\"data_shape\": [...]}]})"});
    // Exactly 64 levels pass the scan (and fail as a spec for other reasons).
    const std::string sixty_four = "{\"kernels\": " + std::string(63, '[') + std::string(63, ']') + "}";
    for (const auto& problem : rejected(sixty_four)) EXPECT_EQ(problem.find("nested"), std::string::npos) << problem;
    EXPECT_EQ(rejected("{\"name\": \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}").size(), 5u)
        << "a string full of brackets is not nesting: only the missing keys are reported";
}

TEST(SpecErrors, DocumentNotAnObject) {
    EXPECT_EQ(rejected("[1, 2]"),
              Problems{"spec.json: /: expected a kernel object, got array (an object with \"name\", \"op\", ...)"});
    EXPECT_EQ(rejected("42"),
              Problems{"spec.json: /: expected a kernel object, got integer (an object with \"name\", \"op\", ...)"});
}

TEST(SpecErrors, KernelInListNotAnObject) {
    EXPECT_EQ(rejected(R"json({"kernels": [7, "Gather"]})json"),
              (Problems{"spec.json: /kernels/0: expected a kernel object, got integer (an object with \"name\", \"op\", ...)",
                        "spec.json: /kernels/1: expected a kernel object, got string (an object with \"name\", \"op\", ...)"}));
}

TEST(SpecErrors, EmptyKernelList) {
    EXPECT_EQ(rejected(R"json({"kernels": []})json"),
              Problems{"spec.json: /kernels: expected a non-empty array of kernel objects, got an empty array"});
}

TEST(SpecErrors, KernelListNotAnArray) {
    EXPECT_EQ(rejected(R"json({"kernels": {"name": "k"}})json"),
              Problems{"spec.json: /kernels: expected a non-empty array of kernel objects, got object"});
}

TEST(SpecErrors, KeysBesideKernels) {
    Parsed parsed = parse(R"json({"version": 2, "kernels": [
        {"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [1]}], "author": "me"})json");
    // nlohmann keeps object keys sorted, so "author" comes before "version".
    EXPECT_EQ(parsed.problems,
              (Problems{"spec.json: /author: unknown key \"author\" beside \"kernels\" (a file holds one kernel object, "
                        "or {\"kernels\": [...]} with at most \"$schema\" beside it)",
                        "spec.json: /version: unknown key \"version\" beside \"kernels\" (a file holds one kernel object, "
                        "or {\"kernels\": [...]} with at most \"$schema\" beside it)"}));
}

// "$schema" at the top of a file names its JSON Schema for editors: accepted in either form, and ignored.
TEST(SpecErrors, SchemaKeyAtTheTopIsIgnored) {
    const std::string plain =
        R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 2], "indices_shape": [2], "axis": 1})json";
    const KernelSpec without = parse_one(plain);
    const KernelSpec with =
        parse_one(R"json({"$schema": "../schema/kernelgen-spec.schema.json", )json" + plain.substr(1));
    EXPECT_EQ(with.name, without.name);
    EXPECT_EQ(with.data_shape, without.data_shape);
    EXPECT_EQ(with.axis, without.axis);
    Parsed list = parse(R"json({"$schema": "https://example.com/kernelgen-spec.schema.json", "kernels": [)json" + plain +
                        "]}");
    EXPECT_EQ(list.problems, Problems{});
    ASSERT_EQ(list.kernels.size(), 1u);
    EXPECT_EQ(list.kernels[0].pointer, "/kernels/0");
}

TEST(SpecErrors, SchemaKeyMustBeAString) {
    const std::string rule = "(the file's JSON Schema for editors, a URI or path; kernelgen ignores it)";
    EXPECT_EQ(parse(R"json({"$schema": 7, "name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
                            "indices_shape": [2]})json").problems,
              Problems{"spec.json: /$schema: expected a string, got integer " + rule});
    EXPECT_EQ(parse(R"json({"$schema": {"$ref": "x"}, "kernels": [{"name": "k", "op": "Gather", "dtype": "float32",
                            "data_shape": [3], "indices_shape": [2]}]})json").problems,
              Problems{"spec.json: /$schema: expected a string, got object " + rule});
}

TEST(SpecErrors, SchemaKeyOnlyAtTheTop) {
    EXPECT_EQ(rejected(R"json({"kernels": [{"$schema": "s.json", "name": "k", "op": "Gather", "dtype": "float32",
                                            "data_shape": [3], "indices_shape": [2]}]})json"),
              Problems{"spec.json: /kernels/0/$schema: unknown key \"$schema\" (allowed: " + kCommonKeys + ", axis, data, data_file, quantization, runtime_axes)"});
}

// --- keys -----------------------------------------------------------------------------------------------

TEST(SpecErrors, MissingRequiredKeys) {
    EXPECT_EQ(rejected("{}"),
              (Problems{"spec.json: /op: required key \"op\" is missing (" + kOps + ")",
                        "spec.json: /name: required key \"name\" is missing (" + kNameRule + ")",
                        "spec.json: /dtype: required key \"dtype\" is missing (" + kDTypes + ")",
                        "spec.json: /data_shape: required key \"data_shape\" is missing (" + kShapeRule + ")",
                        "spec.json: /indices_shape: required key \"indices_shape\" is missing (" + kShapeRule + ")"}));
}

TEST(SpecErrors, MissingIndicesShapeOnly) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "int8", "data_shape": [3]})json"),
              Problems{"spec.json: /indices_shape: required key \"indices_shape\" is missing (" + kShapeRule + ")"});
}

TEST(SpecErrors, UnknownKeyWithDidYouMean) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2], "axes": 1})json"),
              Problems{"spec.json: /axes: unknown key \"axes\" (allowed: " + kCommonKeys + ", axis, data, data_file, quantization, runtime_axes); did you mean \"axis\"?"});
}

TEST(SpecErrors, UnknownKeyHintIgnoresCase) {
    EXPECT_EQ(rejected(R"json({"Name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2]})json"),
              (Problems{"spec.json: /Name: unknown key \"Name\" (allowed: " + kCommonKeys + ", axis, data, data_file, quantization, runtime_axes); did you mean \"name\"?",
                        "spec.json: /name: required key \"name\" is missing (" + kNameRule + ")"}));
}

TEST(SpecErrors, UnknownKeyWithoutHint) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2, 1], "comment": "x"})json"),
              Problems{"spec.json: /comment: unknown key \"comment\" (allowed: " + kCommonKeys +
                       ", reduction, updates_shape, data, data_file, updates, updates_file, tuple_constants, updates_broadcast_from)"});
}

TEST(SpecErrors, UnknownKeyWithUnknownOperatorListsEveryKey) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gathr", "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2], "batchdims": 1})json"),
              (Problems{"spec.json: /op: unknown operator \"Gathr\" (" + kOps + "); did you mean \"Gather\"?",
                        "spec.json: /batchdims: unknown key \"batchdims\" (allowed: " + kCommonKeys +
                            ", axis, data, data_file, quantization, runtime_axes, batch_dims, tuple_constants, reduction, updates_shape, updates, updates_file, updates_broadcast_from, mode); did you mean \"batch_dims\"?"}));
}

// A ScatterND's update rows are read whole: updates that leave out a leading axis of the rows (padded in front, so
// broadcast along it) are refused at the key itself, as one of its own dimensions is at its place.
TEST(SpecErrors, UpdatesBroadcastAlongTheRowsByPadding) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [3, 4, 5],
                               "indices_shape": [3, 1], "updates_broadcast_from": [5]})json"),
              Problems{"spec.json: /updates_broadcast_from: dimension 1 of updates_shape [3, 4, 5] is in the rows of data "
                       "each index tuple writes, which are read whole (a broadcast is allowed along the first 1)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [3, 4, 5],
                               "indices_shape": [3, 1], "updates_broadcast_from": [1, 5]})json"),
              Problems{"spec.json: /updates_broadcast_from/0: dimension 1 of updates_shape [3, 4, 5] is in the rows of data "
                       "each index tuple writes, which are read whole (a broadcast is allowed along the first 1)"});
}

TEST(SpecErrors, AxisDoesNotApplyToGatherND) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2, 1], "axis": 0})json"),
              Problems{"spec.json: /axis: key \"axis\" does not apply to GatherND (GatherND takes " + kCommonKeys +
                       ", batch_dims, data, data_file, tuple_constants)"});
}

TEST(SpecErrors, ScatterKeysDoNotApplyToGather) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2], "reduction": "add", "updates_shape": [2, 2]})json"),
              (Problems{"spec.json: /reduction: key \"reduction\" does not apply to Gather (Gather takes " + kCommonKeys +
                            ", axis, data, data_file, quantization, runtime_axes)",
                        "spec.json: /updates_shape: key \"updates_shape\" does not apply to Gather (Gather takes " +
                            kCommonKeys + ", axis, data, data_file, quantization, runtime_axes)"}));
}

TEST(SpecErrors, BatchDimsDoesNotApplyToGatherElements) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [3, 2], "batch_dims": 0})json"),
              Problems{"spec.json: /batch_dims: key \"batch_dims\" does not apply to GatherElements (GatherElements takes " +
                       kCommonKeys + ", axis, data, data_file)"});
}

TEST(SpecErrors, AxisDoesNotApplyToScatterND) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2, 1], "axis": 0})json"),
              Problems{"spec.json: /axis: key \"axis\" does not apply to ScatterND (ScatterND takes " + kCommonKeys +
                       ", reduction, updates_shape, data, data_file, updates, updates_file, tuple_constants, updates_broadcast_from)"});
}

// The hint comes only from the keys the operator takes (here: none is close, so no hint).
TEST(SpecErrors, HintSuggestsOnlyKeysTheOperatorTakes) {
    Problems problems = rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [3, 2],
                                         "indices_shape": [2, 1], "axes": 0})json");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].find("did you mean \"axis\""), std::string::npos) << problems[0];
}

// Keys are escaped in JSON pointers as RFC 6901 says: '~' as "~0", '/' as "~1".
TEST(SpecErrors, PointerEscapesSlashAndTildeInKeys) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2], "data/shape": [3], "x~y": 1})json"),
              (Problems{"spec.json: /data~1shape: unknown key \"data/shape\" (allowed: " + kCommonKeys +
                            ", axis, data, data_file, quantization, runtime_axes); did you mean \"data_shape\"?",
                        "spec.json: /x~0y: unknown key \"x~y\" (allowed: " + kCommonKeys + ", axis, data, data_file, quantization, runtime_axes)"}));
}

// User text is escaped in messages, so every problem stays on one line.
TEST(SpecErrors, DiagnosticStaysOnOneLine) {
    Problems problems = rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
                                         "indices_shape": [2], "bad\nkey": 1})json");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].find('\n'), std::string::npos) << problems[0];
}

// --- JSON types -----------------------------------------------------------------------------------------

TEST(SpecErrors, WrongTypesOfCommonKeys) {
    EXPECT_EQ(rejected(R"json({"name": 5, "op": "Gather", "dtype": null, "index_dtype": 64, "unroll": true,
                               "data_shape": "3x2", "indices_shape": {}})json"),
              (Problems{"spec.json: /name: expected a string, got integer (" + kNameRule + ")",
                        "spec.json: /dtype: expected a string, got null (" + kDTypes + ")",
                        "spec.json: /index_dtype: expected a string, got integer (" + kIndexTypes + ")",
                        "spec.json: /unroll: expected an integer, got boolean true (" + kUnrollRule + ")",
                        "spec.json: /data_shape: expected an array, got string (" + kShapeRule + ")",
                        "spec.json: /indices_shape: expected an array, got object (" + kShapeRule + ")"}));
}

TEST(SpecErrors, OperatorNotAString) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": ["Gather"], "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2]})json"),
              Problems{"spec.json: /op: expected a string, got array (" + kOps + ")"});
}

TEST(SpecErrors, AxisNotAnInteger) {
    const std::string head =
        R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 2], "indices_shape": [2], "axis": )json";
    EXPECT_EQ(rejected(head + "\"1\"}"),
              Problems{"spec.json: /axis: expected an integer, got string \"1\" (allowed -2..1)"});
    EXPECT_EQ(rejected(head + "1.5}"), Problems{"spec.json: /axis: expected an integer, got number 1.5 (allowed -2..1)"});
    EXPECT_EQ(rejected(head + "1.0}"), Problems{"spec.json: /axis: expected an integer, got number 1.0 (allowed -2..1)"});
    EXPECT_EQ(rejected(head + "false}"),
              Problems{"spec.json: /axis: expected an integer, got boolean false (allowed -2..1)"});
}

TEST(SpecErrors, BatchDimsNotAnInteger) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3],
                               "indices_shape": [2, 1], "batch_dims": 0.0})json"),
              Problems{"spec.json: /batch_dims: expected an integer, got number 0.0 "
                       "(allowed 0..1, below min(indices rank, data rank))"});
}

TEST(SpecErrors, ReductionAndUpdatesShapeWrongTypes) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4],
                               "indices_shape": [2, 1], "reduction": 1, "updates_shape": 2})json"),
              (Problems{"spec.json: /reduction: expected a string, got integer (" + kReductions + ")",
                        "spec.json: /updates_shape: expected an array, got integer (" + kShapeRule + ")"}));
}

// An integer above INT64_MAX is out of range, not of the wrong type.
TEST(SpecErrors, HugeAxisIsOutOfRangeNotAWrongType) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2], "axis": 9223372036854775808})json"),
              Problems{"spec.json: /axis: axis 9223372036854775808 is out of range for data of rank 2 (allowed -2..1)"});
}

// --- names ----------------------------------------------------------------------------------------------

namespace {
std::string named(const std::string& name_json) {
    return R"json({"name": )json" + name_json +
           R"json(, "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]})json";
}
}  // namespace

TEST(SpecErrors, NameNotAnIdentifier) {
    const std::string why = " is not a C identifier (" + kNameRule + ": letters, digits and '_', not starting with a digit)";
    EXPECT_EQ(rejected(named("\"2fast\"")), Problems{"spec.json: /name: \"2fast\"" + why});
    EXPECT_EQ(rejected(named("\"my-kernel\"")), Problems{"spec.json: /name: \"my-kernel\"" + why});
    EXPECT_EQ(rejected(named("\"has space\"")), Problems{"spec.json: /name: \"has space\"" + why});
    EXPECT_EQ(rejected(named("\"\"")), Problems{"spec.json: /name: \"\"" + why});
}

TEST(SpecErrors, NameIsACKeyword) {
    EXPECT_EQ(rejected(named("\"register\"")),
              Problems{"spec.json: /name: \"register\" is a C or C++ keyword (" + kNameRule + ")"});
    EXPECT_EQ(rejected(named("\"restrict\"")),
              Problems{"spec.json: /name: \"restrict\" is a C or C++ keyword (" + kNameRule + ")"});
    // A reserved C11 keyword: the keyword rule is reported rather than the leading '_'.
    EXPECT_EQ(rejected(named("\"_Bool\"")),
              Problems{"spec.json: /name: \"_Bool\" is a C or C++ keyword (" + kNameRule + ")"});
}

TEST(SpecErrors, NameIsACppKeyword) {
    EXPECT_EQ(rejected(named("\"class\"")),
              Problems{"spec.json: /name: \"class\" is a C or C++ keyword (" + kNameRule + ")"});
    EXPECT_EQ(rejected(named("\"namespace\"")),
              Problems{"spec.json: /name: \"namespace\" is a C or C++ keyword (" + kNameRule + ")"});
    EXPECT_EQ(rejected(named("\"nullptr\"")),
              Problems{"spec.json: /name: \"nullptr\" is a C or C++ keyword (" + kNameRule + ")"});
}

TEST(SpecErrors, NameStartsWithUnderscore) {
    EXPECT_EQ(rejected(named("\"_gather\"")),
              Problems{"spec.json: /name: \"_gather\" starts with '_', which C reserves for the implementation (" +
                       kNameRule + ")"});
}

TEST(SpecErrors, NameTooLong) {
    const std::string longest(63, 'a');
    EXPECT_EQ(parse_one(named("\"" + longest + "\"")).name, longest);
    EXPECT_EQ(rejected(named("\"" + std::string(64, 'a') + "\"")),
              Problems{"spec.json: /name: name is 64 characters long (" + kNameRule + ")"});
}

// The name becomes a function declared next to <stdint.h> and <string.h>: their names, and the
// names C reserves for them, are refused.
TEST(SpecErrors, NameOfAStandardLibraryIdentifierIsRejected) {
    for (const char* name : {"int32_t", "uint8_t", "memcpy"}) {
        Parsed parsed = parse(named(std::string("\"") + name + "\""));
        EXPECT_TRUE(parsed.kernels.empty()) << name;
        ASSERT_EQ(parsed.diagnostics.size(), 1u) << name;
        EXPECT_EQ(parsed.diagnostics[0].pointer, "/name") << name;
    }
}

// A kernel is a function with external linkage, and C reserves every library function's name (C99 7.1.3).
TEST(SpecErrors, NameOfACLibraryFunctionIsRejected) {
    for (const char* name : {"exp", "expf", "roundl", "free", "printf", "abs", "remove", "time", "assert"}) {
        EXPECT_EQ(rejected(named(std::string("\"") + name + "\"")),
                  Problems{std::string("spec.json: /name: \"") + name + "\" is a name of the C standard library (" +
                           kNameRule + ")"});
    }
    // Near misses stay valid.
    for (const char* name : {"expand", "token_embedding", "rounding", "gather_exp"}) {
        EXPECT_EQ(parse_one(named(std::string("\"") + name + "\"")).name, name);
    }
}

TEST(SpecErrors, NameWithKernelgensPrefixIsRejected) {
    for (const char* name : {"kernelgen_complex64", "KernelGen", "KERNELGEN_X"}) {
        EXPECT_EQ(rejected(named(std::string("\"") + name + "\"")),
                  Problems{std::string("spec.json: /name: \"") + name +
                           "\" begins with \"kernelgen\", which kernelgen keeps for the names it shares between "
                           "kernels (" + kNameRule + ")"});
    }
}

TEST(SpecErrors, NameOfAStdintWidthMacroIsRejected) {
    EXPECT_EQ(rejected(named("\"INT32_WIDTH\"")),
              Problems{"spec.json: /name: \"INT32_WIDTH\" has the form of a <stdint.h> macro name (INT.../UINT... "
                       "ending in _MAX, _MIN, _C or _WIDTH) (" + kNameRule + ")"});
}

// C++ reserves every identifier containing "__", and the header is C++ too.
TEST(SpecErrors, NameWithDoubleUnderscoreIsRejected) {
    Parsed parsed = parse(named("\"gather__rows\""));
    EXPECT_TRUE(parsed.kernels.empty());
    ASSERT_EQ(parsed.diagnostics.size(), 1u);
    EXPECT_EQ(parsed.diagnostics[0].pointer, "/name");
}

// --- enumerated values ----------------------------------------------------------------------------------

TEST(SpecErrors, UnknownOperator) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "gather", "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2]})json"),
              Problems{"spec.json: /op: unknown operator \"gather\" (" + kOps + "); did you mean \"Gather\"?"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Scatter", "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2, 1]})json"),
              Problems{"spec.json: /op: unknown operator \"Scatter\" (" + kOps + "); did you mean \"ScatterND\"?"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Reshape", "dtype": "float32", "data_shape": [3],
                               "indices_shape": [2]})json"),
              Problems{"spec.json: /op: unknown operator \"Reshape\" (" + kOps + ")"});
}

TEST(SpecErrors, UnknownDType) {
    // A hint for a case slip, ONNX's TensorProto names, other tools' short forms and slips of the letters (two
    // swapped, one missing or extra); none for a near miss in digits ("int61" is not "int16"), a type kernelgen
    // lacks ("float8"), or a slip as close to two types ("unt8": uint8 or int8).
    const std::vector<std::pair<std::string, std::string>> cases{
        {"float8", ""},
        {"Float32", "; did you mean \"float32\"?"},
        {"BFLOAT16", "; did you mean \"bfloat16\"?"},
        {"fp16", "; did you mean \"float16\"?"},
        {"flaot32", "; did you mean \"float32\"?"},
        {"unit8", "; did you mean \"uint8\"?"},
        {"bol", "; did you mean \"bool\"?"},
        {"Flaot64", "; did you mean \"float64\"?"},
        {"unt8", ""},
        {"int61", ""}};
    for (const auto& [dtype, hint] : cases) {
        EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": ")json" + dtype +
                           R"json(", "data_shape": [3], "indices_shape": [2]})json"),
                  Problems{"spec.json: /dtype: unknown element type \"" + dtype + "\" (" + kDTypes + ")" + hint});
    }
}

TEST(SpecErrors, UnknownIndexDType) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "index_dtype": "int16",
                               "data_shape": [3], "indices_shape": [2]})json"),
              Problems{"spec.json: /index_dtype: unknown index type \"int16\" (" + kIndexTypes + ")"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "index_dtype": "INT32",
                               "data_shape": [3], "indices_shape": [2]})json"),
              Problems{"spec.json: /index_dtype: unknown index type \"INT32\" (" + kIndexTypes + "); did you mean \"int32\"?"});
}

TEST(SpecErrors, UnknownReduction) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4],
                               "indices_shape": [2, 1], "reduction": "sum"})json"),
              Problems{"spec.json: /reduction: unknown reduction \"sum\" (" + kReductions + "); did you mean \"add\"?"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4],
                               "indices_shape": [2, 1], "reduction": "xor"})json"),
              Problems{"spec.json: /reduction: unknown reduction \"xor\" (" + kReductions + ")"});
}

// --- shapes ---------------------------------------------------------------------------------------------

namespace {
std::string gather_shapes(const std::string& data, const std::string& indices) {
    return R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": )json" + data +
           R"json(, "indices_shape": )json" + indices + "}";
}
}  // namespace

TEST(SpecErrors, NegativeDimension) {
    EXPECT_EQ(rejected(gather_shapes("[3, -2]", "[2]")),
              Problems{"spec.json: /data_shape/1: dimension -2 is negative (" + kShapeRule + ")"});
}

TEST(SpecErrors, FractionalDimension) {
    EXPECT_EQ(rejected(gather_shapes("[3]", "[2.5, 1]")),
              Problems{"spec.json: /indices_shape/0: expected an integer, got number 2.5 (" + kShapeRule + ")"});
}

TEST(SpecErrors, DimensionNotANumber) {
    EXPECT_EQ(rejected(gather_shapes("[3, \"2\"]", "[2]")),
              Problems{"spec.json: /data_shape/1: expected an integer, got string \"2\" (" + kShapeRule + ")"});
}

TEST(SpecErrors, EveryBadDimensionIsReported) {
    EXPECT_EQ(rejected(gather_shapes("[-1, 2, null]", "[2]")),
              (Problems{"spec.json: /data_shape/0: dimension -1 is negative (" + kShapeRule + ")",
                        "spec.json: /data_shape/2: expected an integer, got null null (" + kShapeRule + ")"}));
}

TEST(SpecErrors, DimensionTooLarge) {
    EXPECT_EQ(rejected(gather_shapes("[1099511627777]", "[2]")),
              Problems{"spec.json: /data_shape/0: dimension 1099511627777 is too large (at most 2^40)"});
}

TEST(SpecErrors, TooManyElements) {
    EXPECT_EQ(rejected(gather_shapes("[1048576, 1048577]", "[2]")),
              Problems{"spec.json: /data_shape: shape [1048576, 1048577] has too many elements (at most 2^40)"});
    // Exactly 2^40 elements is the limit, and allowed.
    EXPECT_EQ(parse_one(gather_shapes("[1048576, 1048576]", "[1]")).output_shape, (Shape{1, 1048576}));
}

TEST(SpecErrors, RankTooLarge) {
    std::string ones = "[1";
    for (int i = 1; i < 33; ++i) ones += ", 1";
    ones += "]";
    EXPECT_EQ(rejected(gather_shapes(ones, "[2]")),
              Problems{"spec.json: /data_shape: rank 33 is too large (at most 32 dimensions)"});
}

TEST(SpecErrors, OutputTooLarge) {
    EXPECT_EQ(rejected(gather_shapes("[1048576, 1048576]", "[1048576, 2]")),
              Problems{"spec.json: /: output shape [1048576, 2, 1048576] has too many elements (at most 2^40)"});
}

// The output's element count is computed without wrapping: 2^80 elements is too many, not 0.
TEST(SpecErrors, OutputElementCountDoesNotWrap) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [1099511627776, 1],
                               "indices_shape": [1099511627776], "axis": 1})json"),
              Problems{"spec.json: /: output shape [1099511627776, 1099511627776] has too many elements (at most 2^40)"});
}

// ScatterND's derived updates tensor obeys the 2^40 element limit too.
TEST(SpecErrors, UpdatesTooLarge) {
    Parsed parsed = parse(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [2, 1048576],
                                  "indices_shape": [2097152, 1]})json");
    EXPECT_TRUE(parsed.kernels.empty());
    ASSERT_EQ(parsed.problems.size(), 1u);
    EXPECT_NE(parsed.problems[0].find("too many elements"), std::string::npos) << parsed.problems[0];
}

TEST(SpecErrors, DataOfRankZero) {
    EXPECT_EQ(rejected(gather_shapes("[]", "[2]")),
              Problems{"spec.json: /data_shape: data must have rank >= 1 (a non-empty array of dimensions)"});
}

TEST(SpecErrors, IndicesOfRankZeroForGatherNDAndScatterND) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [3], "indices_shape": []})json"),
              Problems{"spec.json: /indices_shape: GatherND needs indices of rank >= 1 (a non-empty array of dimensions)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [], "indices_shape": []})json"),
              (Problems{"spec.json: /data_shape: data must have rank >= 1 (a non-empty array of dimensions)",
                        "spec.json: /indices_shape: ScatterND needs indices of rank >= 1 (a non-empty array of dimensions)"}));
}

// --- axis -----------------------------------------------------------------------------------------------

TEST(SpecErrors, AxisTooLarge) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2], "axis": 2})json"),
              Problems{"spec.json: /axis: axis 2 is out of range for data of rank 2 (allowed -2..1)"});
}

TEST(SpecErrors, AxisTooNegative) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [3, 2, 4],
                               "indices_shape": [3, 2, 4], "axis": -4})json"),
              Problems{"spec.json: /axis: axis -4 is out of range for data of rank 3 (allowed -3..2)"});
}

// --- GatherElements -------------------------------------------------------------------------------------

TEST(SpecErrors, GatherElementsRankMismatch) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [3, 3],
                               "indices_shape": [2]})json"),
              Problems{"spec.json: /indices_shape: indices have rank 1 but data [3, 3] has rank 2 "
                       "(GatherElements needs equal ranks)"});
}

TEST(SpecErrors, GatherElementsRankZeroIndices) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [3],
                               "indices_shape": []})json"),
              Problems{"spec.json: /indices_shape: indices have rank 0 but data [3] has rank 1 "
                       "(GatherElements needs equal ranks)"});
}

TEST(SpecErrors, GatherElementsIndicesExceedDataOffTheAxis) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [3, 2, 4],
                               "indices_shape": [9, 3, 5], "axis": 0})json"),
              (Problems{"spec.json: /indices_shape/1: dimension 3 exceeds data dimension 2 (off the axis, allowed 0..2)",
                        "spec.json: /indices_shape/2: dimension 5 exceeds data dimension 4 (off the axis, allowed 0..4)"}));
}

// --- GatherND -------------------------------------------------------------------------------------------

TEST(SpecErrors, BatchDimsTooLarge) {
    // min(q, r) = 2: batch_dims must stay below it.
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3, 4],
                               "indices_shape": [2, 1], "batch_dims": 2})json"),
              Problems{"spec.json: /batch_dims: batch_dims 2 is out of range (allowed 0..1, below min(indices rank, data rank))"});
}

TEST(SpecErrors, BatchDimsNegative) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3],
                               "indices_shape": [2, 3, 1], "batch_dims": -1})json"),
              Problems{"spec.json: /batch_dims: batch_dims -1 is out of range (allowed 0..1, below min(indices rank, data rank))"});
}

TEST(SpecErrors, BatchDimensionsUnequal) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3, 4],
                               "indices_shape": [2, 4, 1], "batch_dims": 2})json"),
              Problems{"spec.json: /indices_shape/1: batch dimension 1 is 4 but data's is 3 "
                       "(the first batch_dims dimensions must be equal)"});
}

TEST(SpecErrors, GatherNDTupleTooLong) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3],
                               "indices_shape": [4, 3]})json"),
              Problems{"spec.json: /indices_shape/1: index tuple length 3 is out of range "
                       "(indices_shape[-1] must be 1..2, the data rank 2)"});
}

TEST(SpecErrors, GatherNDTupleTooLongForBatchDims) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3, 4],
                               "indices_shape": [2, 3], "batch_dims": 1})json"),
              Problems{"spec.json: /indices_shape/1: index tuple length 3 is out of range "
                       "(indices_shape[-1] must be 1..2, the data rank - batch_dims = 2)"});
}

TEST(SpecErrors, GatherNDEmptyTuple) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3],
                               "indices_shape": [4, 0]})json"),
              Problems{"spec.json: /indices_shape/1: index tuple length 0 is out of range "
                       "(indices_shape[-1] must be 1..2, the data rank 2)"});
}

// --- ScatterND ------------------------------------------------------------------------------------------

TEST(SpecErrors, ScatterNDTupleTooLong) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 4],
                               "indices_shape": [2, 3]})json"),
              Problems{"spec.json: /indices_shape/1: index tuple length 3 is out of range "
                       "(indices_shape[-1] must be 1..2, the data rank 2)"});
}

TEST(SpecErrors, ScatterNDWrongUpdatesShape) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 4, 4],
                               "indices_shape": [2, 1], "updates_shape": [2, 4]})json"),
              Problems{"spec.json: /updates_shape: updates shape [2, 4] does not match [2, 4, 4] "
                       "(indices_shape[:-1] + data_shape[k:], with k = indices_shape[-1] = 1)"});
}

TEST(SpecErrors, ScatterNDUpdatesShapeWithBadDimension) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4],
                               "indices_shape": [2, 1], "updates_shape": [-2]})json"),
              Problems{"spec.json: /updates_shape/0: dimension -2 is negative (" + kShapeRule + ")"});
}

// --- unroll ---------------------------------------------------------------------------------------------

TEST(SpecErrors, UnrollBadValues) {
    const std::string head =
        R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2], "unroll": )json";
    EXPECT_EQ(rejected(head + "\"fast\"}"),
              Problems{"spec.json: /unroll: unknown unroll setting \"fast\" (" + kUnrollRule + ")"});
    EXPECT_EQ(rejected(head + "\"Full\"}"),
              Problems{"spec.json: /unroll: unknown unroll setting \"Full\" (" + kUnrollRule + "); did you mean \"full\"?"});
    EXPECT_EQ(rejected(head + "0}"), Problems{"spec.json: /unroll: unroll factor 0 is out of range (" + kUnrollRule + ")"});
    EXPECT_EQ(rejected(head + "65}"), Problems{"spec.json: /unroll: unroll factor 65 is out of range (" + kUnrollRule + ")"});
    EXPECT_EQ(rejected(head + "-4}"), Problems{"spec.json: /unroll: unroll factor -4 is out of range (" + kUnrollRule + ")"});
    EXPECT_EQ(rejected(head + "2.5}"),
              Problems{"spec.json: /unroll: expected an integer, got number 2.5 (" + kUnrollRule + ")"});
    EXPECT_EQ(rejected(head + "[4]}"),
              Problems{"spec.json: /unroll: expected an integer, got array [4] (" + kUnrollRule + ")"});
}

// --- prefetch -------------------------------------------------------------------------------------------

TEST(SpecErrors, PrefetchBadValues) {
    const std::string head =
        R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2], "prefetch": )json";
    const std::string rule = "\"auto\", \"none\" or a distance in index tuples from 1 to 1024; default \"auto\"";
    EXPECT_EQ(rejected(head + "\"off\"}"),
              Problems{"spec.json: /prefetch: unknown prefetch setting \"off\" (" + rule + "); did you mean \"none\"?"});
    EXPECT_EQ(rejected(head + "\"Auto\"}"),
              Problems{"spec.json: /prefetch: unknown prefetch setting \"Auto\" (" + rule + "); did you mean \"auto\"?"});
    EXPECT_EQ(rejected(head + "0}"), Problems{"spec.json: /prefetch: prefetch distance 0 is out of range (" + rule + ")"});
    EXPECT_EQ(rejected(head + "1025}"), Problems{"spec.json: /prefetch: prefetch distance 1025 is out of range (" + rule + ")"});
    EXPECT_EQ(rejected(head + "true}"), Problems{"spec.json: /prefetch: expected an integer, got boolean true (" + rule + ")"});
    EXPECT_EQ(rejected(head + "1.5}"), Problems{"spec.json: /prefetch: expected an integer, got number 1.5 (" + rule + ")"});
    EXPECT_EQ(parse_one(head + "\"none\"}").prefetch.kind, kernelgen::Prefetch::Kind::None);
    const KernelSpec far = parse_one(head + "1024}");
    EXPECT_EQ(far.prefetch.kind, kernelgen::Prefetch::Kind::Distance);
    EXPECT_EQ(far.prefetch.distance, 1024u);
    ASSERT_TRUE(far.prefetch_in_spec);
    EXPECT_EQ(far.prefetch_in_spec->distance, 1024u);
    const KernelSpec plain = parse_one(named("\"k\""));
    EXPECT_EQ(plain.prefetch.kind, kernelgen::Prefetch::Kind::Auto);
    EXPECT_FALSE(plain.prefetch_in_spec);
    // The command line's spelling.
    EXPECT_EQ(kernelgen::parse_prefetch("none")->kind, kernelgen::Prefetch::Kind::None);
    EXPECT_EQ(kernelgen::parse_prefetch("auto")->kind, kernelgen::Prefetch::Kind::Auto);
    EXPECT_EQ(kernelgen::parse_prefetch("8")->distance, 8u);
    for (const char* bad : {"", "0", "1025", "-1", "4x", "99999", "off"}) EXPECT_FALSE(kernelgen::parse_prefetch(bad)) << bad;
}

// --- index_check ----------------------------------------------------------------------------------------

TEST(SpecErrors, IndexCheckBadValues) {
    const std::string head = R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2], "index_check": )json";
    const std::string rule = "\"checked\" or \"none\"; default \"checked\"";
    EXPECT_EQ(rejected(head + "\"off\"}"),
              Problems{"spec.json: /index_check: unknown index_check setting \"off\" (" + rule + "); did you mean \"none\"?"});
    EXPECT_EQ(rejected(head + "\"strict\"}"),
              Problems{"spec.json: /index_check: unknown index_check setting \"strict\" (" + rule + ")"});
    EXPECT_EQ(rejected(head + "false}"), Problems{"spec.json: /index_check: expected a string, got boolean (" + rule + ")"});
    EXPECT_EQ(parse_one(head + "\"none\"}").index_check, kernelgen::IndexCheck::None);
    EXPECT_EQ(parse_one(head + "\"checked\"}").index_check, kernelgen::IndexCheck::Checked);
    EXPECT_EQ(parse_one(named("\"k\"")).index_check, kernelgen::IndexCheck::Checked);
}

// --- ScatterElements -------------------------------------------------------------------------------------------

TEST(SpecErrors, ScatterElementsResolves) {
    KernelSpec spec = parse_one(R"json({"name": "k", "op": "ScatterElements", "dtype": "int32", "data_shape": [4, 3],
        "indices_shape": [2, 3], "axis": -2, "reduction": "min", "updates_shape": [2, 3]})json");
    EXPECT_EQ(spec.op, kernelgen::Op::ScatterElements);
    EXPECT_EQ(spec.axis, 0);
    EXPECT_EQ(spec.reduction, kernelgen::Reduction::Min);
    EXPECT_EQ(spec.updates_shape, (Shape{2, 3}));
    EXPECT_EQ(spec.output_shape, (Shape{4, 3}));
    // The axis dimension of indices may exceed data's (ONNX Runtime's rule bounds only the others).
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "ScatterElements", "dtype": "int32", "data_shape": [4, 3],
        "indices_shape": [6, 3]})json").updates_shape, (Shape{6, 3}));
}

TEST(SpecErrors, ScatterElementsRules) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterElements", "dtype": "float32", "data_shape": [4, 3],
        "indices_shape": [2, 3], "batch_dims": 0})json"),
              Problems{"spec.json: /batch_dims: key \"batch_dims\" does not apply to ScatterElements (ScatterElements takes " +
                       kCommonKeys + ", axis, reduction, updates_shape, data, data_file, updates, updates_file, updates_broadcast_from)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterElements", "dtype": "complex64", "data_shape": [4],
        "indices_shape": [2], "axis": 1, "reduction": "max"})json"),
              (Problems{"spec.json: /reduction: reduction \"max\" is not defined for complex64 (complex64 allows none, add, "
                        "mul: complex numbers have no order)",
                        "spec.json: /axis: axis 1 is out of range for data of rank 1 (allowed -1..0)"}));
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterElements", "dtype": "float32", "data_shape": [],
        "indices_shape": []})json"),
              Problems{"spec.json: /data_shape: data must have rank >= 1 (a non-empty array of dimensions)"});
}

// --- constant indices ---------------------------------------------------------------------------------------

TEST(SpecErrors, ConstantIndicesNestedFlatAndScalar) {
    using Values = std::vector<int64_t>;
    const std::string gather = R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [4, 2], )json";
    EXPECT_EQ(parse_one(gather + R"json("indices_shape": [2, 3], "indices": [[0, 1, -1], [3, -4, 2]]})json").constant_indices,
              (Values{0, 1, -1, 3, -4, 2}));
    EXPECT_EQ(parse_one(gather + R"json("indices_shape": [2, 3], "indices": [0, 1, -1, 3, -4, 2]})json").constant_indices,
              (Values{0, 1, -1, 3, -4, 2}));
    EXPECT_EQ(parse_one(gather + R"json("indices_shape": [], "indices": -2})json").constant_indices, Values{-2});
    EXPECT_EQ(parse_one(gather + R"json("indices_shape": [], "indices": [3]})json").constant_indices, Values{3});
    EXPECT_EQ(parse_one(gather + R"json("indices_shape": [2, 0], "indices": [[], []]})json").constant_indices, Values{});
    EXPECT_EQ(parse_one(gather + R"json("indices_shape": [0], "indices": []})json").constant_indices, Values{});
    EXPECT_FALSE(parse_one(gather + R"json("indices_shape": [1]})json").constant_indices.has_value());
}

// Each value is checked against the axis it selects along: the tuple position for GatherND (after the
// batch dimensions) and ScatterND, the axis for Gather and GatherElements.
TEST(SpecErrors, ConstantIndicesCheckedPerAxis) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [2, 7],
        "indices_shape": [2, 2], "indices": [[1, 6], [2, -7]]})json"),
              Problems{"spec.json: /indices/1/0: index 2 is out of range for data axis 0 of size 2 (allowed -2..1)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [2, 3, 5],
        "indices_shape": [2, 1], "batch_dims": 1, "indices": [[2], [-4]]})json"),
              Problems{"spec.json: /indices/1/0: index -4 is out of range for data axis 1 of size 3 (allowed -3..2)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [2, 3],
        "indices_shape": [2, 2], "axis": -1, "indices": [0, 1, 2, 3]})json"),
              Problems{"spec.json: /indices/3: index 3 is out of range for data axis 1 of size 3 (allowed -3..2)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
        "indices_shape": [2], "indices": [18446744073709551615, -9223372036854775808]})json"),
              (Problems{"spec.json: /indices/0: index 18446744073709551615 is out of range for data axis 0 of size 3 (allowed -3..2)",
                        "spec.json: /indices/1: index -9223372036854775808 is out of range for data axis 0 of size 3 (allowed -3..2)"}));
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
        "indices_shape": [2], "indices": [1, 2, 0]})json"),
              Problems{"spec.json: /indices: expected an array of 2, got an array of 3 (arrays nested as indices_shape [2], "
                       "or a flat array of 2 integers)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
        "indices_shape": [2], "indices": {"0": 1}})json"),
              Problems{"spec.json: /indices: expected an array of 2, got object (arrays nested as indices_shape [2], "
                       "or a flat array of 2 integers)"});
}

// With "index_check": "none" the checks leave the full-unroll count: 5000 copies alone exceed the cap.
TEST(SpecErrors, FullUnrollWithoutIndexChecks) {
    auto result = generate_texts({"spec.json"}, {R"json({"name": "k", "op": "Gather", "dtype": "float32",
        "data_shape": [4000], "indices_shape": [4000], "unroll": "full", "index_check": "none"})json"});
    EXPECT_TRUE(result.diagnostics.empty());
}

TEST(SpecErrors, FullUnrollOverTheLimit) {
    // Gather of [5000] by [5000]: 5000 single-element copies plus 5000 index checks = 10000 statements.
    auto result = generate_texts({"spec.json"}, {R"json({"name": "k", "op": "Gather", "dtype": "float32",
        "data_shape": [5000], "indices_shape": [5000], "unroll": "full"})json"});
    EXPECT_EQ(strings_of(result.diagnostics),
              Problems{"spec.json: /unroll: \"full\" unrolling would take 10000 statements (at most 4096; "
                       "use \"auto\", \"none\" or a factor)"});
    EXPECT_TRUE(result.files.empty());
}

TEST(SpecErrors, FullUnrollOverTheLimitInAList) {
    // ScatterND add of [2049] by [2049, 1]: a reduction counts one statement per element, so
    // 2049 copies + 2049 checks = 4098 statements.
    auto result = generate_texts({"list.json"}, {R"json({"kernels": [
        {"name": "small", "op": "Gather", "dtype": "float32", "data_shape": [4], "indices_shape": [2], "unroll": "full"},
        {"name": "big", "op": "ScatterND", "dtype": "int32", "data_shape": [2049], "indices_shape": [2049, 1],
         "reduction": "add", "unroll": "full"}]})json"});
    EXPECT_EQ(strings_of(result.diagnostics),
              Problems{"list.json: /kernels/1/unroll: \"full\" unrolling would take 4098 statements (at most 4096; "
                       "use \"auto\", \"none\" or a factor)"});
    EXPECT_TRUE(result.files.empty());
}

// With the run's --unroll full, the problem is the option's, at the kernel; a spec's own setting is not touched.
TEST(SpecErrors, FullUnrollOverTheLimitFromTheRun) {
    std::vector<kernelgen::Diagnostic> diagnostics;
    auto kernels = kernelgen::parse_spec_text(R"json({"kernels": [
        {"name": "big", "op": "Gather", "dtype": "float32", "data_shape": [5000], "indices_shape": [5000]},
        {"name": "own", "op": "Gather", "dtype": "float32", "data_shape": [5000], "indices_shape": [5000],
         "unroll": 8}]})json", "list.json", diagnostics);
    ASSERT_EQ(kernels.size(), 2u);
    const kernelgen::RunOptions run{kernelgen::Unroll{kernelgen::Unroll::Kind::Full, 1}, std::nullopt};
    for (auto& kernel : kernels) kernelgen::apply_run_options(kernel, run);
    EXPECT_EQ(strings_of(kernelgen::generate(kernels).diagnostics),
              Problems{"list.json: /kernels/0: \"full\" unrolling (--unroll full) would take 10000 statements (at most "
                       "4096; use \"auto\", \"none\" or a factor)"});
}

TEST(SpecErrors, FullUnrollAtTheLimitIsAccepted) {
    // 2048 copies + 2048 checks = 4096 statements: exactly the limit.
    auto result = generate_texts({"spec.json"}, {R"json({"name": "k", "op": "Gather", "dtype": "float32",
        "data_shape": [2048], "indices_shape": [2048], "unroll": "full"})json"});
    EXPECT_EQ(strings_of(result.diagnostics), Problems{});
    EXPECT_EQ(result.files.size(), 4u);  // its .h and .c, and the support files
}

// --- run-wide: names ------------------------------------------------------------------------------------

TEST(SpecErrors, DuplicateNamesInOneFile) {
    auto result = generate_texts({"spec.json"}, {R"json({"kernels": [
        {"name": "lookup", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
        {"name": "other", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
        {"name": "lookup", "op": "GatherND", "dtype": "float32", "data_shape": [3], "indices_shape": [2, 1]}]})json"});
    EXPECT_EQ(strings_of(result.diagnostics),
              Problems{"spec.json: /kernels/2/name: kernel name \"lookup\" is already used by spec.json: /kernels/0 "
                       "(names must be unique in a run)"});
    EXPECT_TRUE(result.files.empty());
}

TEST(SpecErrors, DuplicateNamesAcrossFiles) {
    const std::string kernel =
        R"json({"name": "lookup", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]})json";
    auto result = generate_texts({"a.json", "b.json"}, {kernel, kernel});
    EXPECT_EQ(strings_of(result.diagnostics),
              Problems{"b.json: /name: kernel name \"lookup\" is already used by a.json: / (names must be unique in a run)"});
    EXPECT_TRUE(result.files.empty());
}

TEST(SpecErrors, NamesEqualOnceUpperCased) {
    auto result = generate_texts(
        {"a.json", "b.json"},
        {R"json({"kernels": [{"name": "Lookup", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}]})json",
         R"json({"name": "LOOKUP", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]})json"});
    EXPECT_EQ(strings_of(result.diagnostics),
              Problems{"b.json: /name: kernel name \"LOOKUP\" equals \"Lookup\" of a.json: /kernels/0 once upper-cased, "
                       "as the macros are (names must differ even when upper-cased)"});
    EXPECT_TRUE(result.files.empty());
}

// A name that is another kernel's macro: a file including both headers would see FOO_OK redefined.
TEST(SpecErrors, NameThatIsAnotherKernelsMacro) {
    auto result = generate_texts(
        {"a.json", "b.json"},
        {R"json({"name": "foo", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]})json",
         R"json({"kernels": [{"name": "FOO_OK", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
                             {"name": "FOO_DATA", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}]})json"});
    EXPECT_EQ(strings_of(result.diagnostics),
              Problems{"b.json: /kernels/0/name: kernel name \"FOO_OK\" clashes with kernel \"foo\" of a.json: /: both "
                       "headers would define FOO_OK (names whose headers share no identifier)"});
    EXPECT_TRUE(result.files.empty());
    // Prefixes alone do not clash: foo_ok's macros are FOO_OK_H, FOO_OK_DATA_SIZE, ..., FOO_DATA's FOO_DATA_H,
    // FOO_DATA_DATA_SIZE, ...; none of them is one of foo's.
    auto fine = generate_texts(
        {"a.json"},
        {R"json({"kernels": [{"name": "foo", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
                             {"name": "foo_ok", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
                             {"name": "FOO_DATA", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}]})json"});
    EXPECT_TRUE(fine.diagnostics.empty()) << strings_of(fine.diagnostics).front();
    EXPECT_EQ(fine.files.size(), 8u);  // three kernels and the support files
}

// A run's output is bounded (kMaxRunOutputBytes, 256 MiB); the bound is a parameter so it can be met here.
TEST(SpecErrors, RunOutputBeyondTheBoundIsAProblem) {
    std::vector<kernelgen::Diagnostic> diagnostics;
    auto kernels = kernelgen::parse_spec_text(R"json({"kernels": [
        {"name": "one", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
        {"name": "two", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}]})json",
                                              "spec.json", diagnostics);
    ASSERT_EQ(kernels.size(), 2u);
    const auto whole = kernelgen::generate(kernels);
    ASSERT_EQ(whole.files.size(), 6u);  // two kernels and the support files
    const uint64_t first = whole.files[0].content.size() + whole.files[1].content.size();
    const auto bounded = kernelgen::generate(kernels, {}, first);
    EXPECT_TRUE(bounded.files.empty());
    EXPECT_EQ(strings_of(bounded.diagnostics),
              Problems{"spec.json: /kernels/1: the run's generated files pass " + std::to_string(first) +
                       " bytes at this kernel (at most " + std::to_string(first) +
                       " bytes per run; split the specs over several runs)"});
    EXPECT_EQ(kernelgen::kMaxRunOutputBytes, uint64_t{256} << 20);
}

TEST(SpecErrors, GenerateEmitsNothingWhenGivenProblems) {
    std::vector<kernelgen::Diagnostic> diagnostics;
    auto kernels = kernelgen::parse_spec_text(
        R"json({"kernels": [{"name": "ok", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
                            {"name": "bad", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2], "axis": 1}]})json",
        "spec.json", diagnostics);
    ASSERT_EQ(kernels.size(), 1u);
    auto result = kernelgen::generate(kernels, diagnostics);
    EXPECT_EQ(strings_of(result.diagnostics),
              Problems{"spec.json: /kernels/1/axis: axis 1 is out of range for data of rank 1 (allowed -1..0)"});
    EXPECT_TRUE(result.files.empty());
}

// --- pointers and several problems ----------------------------------------------------------------------

TEST(SpecErrors, PointersInsideAKernelList) {
    Parsed parsed = parse(R"json({"kernels": [
        {"name": "first", "op": "Gather", "dtype": "float32", "data_shape": [3, 2], "indices_shape": [2]},
        {"name": "second", "op": "Gather", "dtype": "float32", "data_shape": [3, 2], "indices_shape": [2], "axis": 5},
        {"name": "third", "op": "GatherND", "dtype": "float32", "data_shape": [3, 2], "indices_shape": [2, -1]}]})json");
    EXPECT_EQ(parsed.problems,
              (Problems{"spec.json: /kernels/1/axis: axis 5 is out of range for data of rank 2 (allowed -2..1)",
                        "spec.json: /kernels/2/indices_shape/1: dimension -1 is negative (" + kShapeRule + ")"}));
    ASSERT_EQ(parsed.kernels.size(), 1u);
    EXPECT_EQ(parsed.kernels[0].name, "first");
    EXPECT_EQ(parsed.kernels[0].pointer, "/kernels/0");
}

TEST(SpecErrors, SeveralProblemsInOneCall) {
    Parsed parsed = parse(R"json({"kernels": [
        {"name": "2d", "op": "Gather", "dtype": "float128", "data_shape": [3, 2], "indices_shape": [2], "axsi": 0},
        {"name": "fine", "op": "ScatterND", "dtype": "uint8", "data_shape": [4, 4], "indices_shape": [3, 1]},
        {"name": "nd", "op": "GatherND", "dtype": "bool", "data_shape": [3, 2], "indices_shape": [4, 1], "batch_dims": 1},
        {"name": "el", "op": "GatherElements", "dtype": "int8", "data_shape": [3, 2], "indices_shape": [3, 2, 1]}]})json");
    EXPECT_EQ(parsed.problems,
              (Problems{"spec.json: /kernels/0/axsi: unknown key \"axsi\" (allowed: " + kCommonKeys +
                            ", axis, data, data_file, quantization, runtime_axes); did you mean \"axis\"?",
                        "spec.json: /kernels/0/name: \"2d\" is not a C identifier (" + kNameRule +
                            ": letters, digits and '_', not starting with a digit)",
                        "spec.json: /kernels/0/dtype: unknown element type \"float128\" (" + kDTypes + ")",
                        "spec.json: /kernels/2/indices_shape/0: batch dimension 0 is 4 but data's is 3 "
                        "(the first batch_dims dimensions must be equal)",
                        "spec.json: /kernels/3/indices_shape: indices have rank 3 but data [3, 2] has rank 2 "
                        "(GatherElements needs equal ranks)"}));
    ASSERT_EQ(parsed.kernels.size(), 1u);
    EXPECT_EQ(parsed.kernels[0].name, "fine");
}

// A problem in one key does not hide independent problems in the operator's own keys.
TEST(SpecErrors, ProblemInOneKeyDoesNotHideOthers) {
    EXPECT_EQ(rejected(R"json({"name": "int", "op": "Gather", "dtype": "float32", "data_shape": [3, 2],
                               "indices_shape": [2], "axis": 7})json"),
              (Problems{"spec.json: /name: \"int\" is a C or C++ keyword (" + kNameRule + ")",
                        "spec.json: /axis: axis 7 is out of range for data of rank 2 (allowed -2..1)"}));
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "float8", "data_shape": [4],
                               "indices_shape": [2, 1], "reduction": "sum"})json"),
              (Problems{"spec.json: /dtype: unknown element type \"float8\" (" + kDTypes + ")",
                        "spec.json: /reduction: unknown reduction \"sum\" (" + kReductions + "); did you mean \"add\"?"}));
}

// --- accepted specs -------------------------------------------------------------------------------------

TEST(SpecAccepted, DefaultsOfAGather) {
    KernelSpec spec = parse_one(R"json({"name": "token_embedding", "op": "Gather", "dtype": "float32",
                                        "data_shape": [100, 8], "indices_shape": [5]})json");
    EXPECT_EQ(spec.name, "token_embedding");
    EXPECT_EQ(spec.op, kernelgen::Op::Gather);
    EXPECT_EQ(spec.dtype, kernelgen::DType::Float32);
    EXPECT_EQ(spec.index_dtype, kernelgen::IndexType::Int64);
    EXPECT_EQ(spec.axis, 0);
    EXPECT_EQ(spec.unroll.kind, kernelgen::Unroll::Kind::Auto);
    EXPECT_EQ(spec.output_shape, (Shape{5, 8}));
    EXPECT_TRUE(spec.updates_shape.empty());
    EXPECT_EQ(spec.spec_file, "spec.json");
    EXPECT_EQ(spec.pointer, "");
}

TEST(SpecAccepted, FloatAndDoubleSpellings) {
    EXPECT_EQ(parse_one(named("\"k\"")).dtype, kernelgen::DType::Float32);
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float", "data_shape": [3], "indices_shape": [2]})json").dtype,
              kernelgen::DType::Float32);
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "Gather", "dtype": "double", "data_shape": [3], "indices_shape": [2]})json").dtype,
              kernelgen::DType::Float64);
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float64", "data_shape": [3], "indices_shape": [2]})json").dtype,
              kernelgen::DType::Float64);
}

TEST(SpecAccepted, EveryDTypeAndIndexType) {
    const std::vector<std::pair<std::string, kernelgen::DType>> types{
        {"int8", kernelgen::DType::Int8},     {"int16", kernelgen::DType::Int16},   {"int32", kernelgen::DType::Int32},
        {"int64", kernelgen::DType::Int64},   {"uint8", kernelgen::DType::UInt8},   {"uint16", kernelgen::DType::UInt16},
        {"uint32", kernelgen::DType::UInt32}, {"uint64", kernelgen::DType::UInt64}, {"bool", kernelgen::DType::Bool}};
    for (const auto& [spelling, type] : types) {
        KernelSpec spec = parse_one(R"json({"name": "k", "op": "Gather", "index_dtype": "int32", "dtype": ")json" + spelling +
                                    R"json(", "data_shape": [3], "indices_shape": [2]})json");
        EXPECT_EQ(spec.dtype, type) << spelling;
        EXPECT_EQ(spec.index_dtype, kernelgen::IndexType::Int32) << spelling;
    }
}

TEST(SpecAccepted, NegativeAxisIsNormalized) {
    // ONNX Gather example with axis 1 given as -1: data [3, 3], indices [1, 2] -> output [3, 1, 2].
    KernelSpec spec = parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3, 3],
                                        "indices_shape": [1, 2], "axis": -1})json");
    EXPECT_EQ(spec.axis, 1);
    EXPECT_EQ(spec.output_shape, (Shape{3, 1, 2}));
    // -r is the first axis.
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [3, 2, 4],
                               "indices_shape": [1, 2, 4], "axis": -3})json").axis, 0);
}

TEST(SpecAccepted, GatherOutputShapes) {
    // ONNX Gather example 1: data [3, 2], indices [2, 2], axis 0 -> output [2, 2, 2].
    EXPECT_EQ(parse_one(gather_shapes("[3, 2]", "[2, 2]")).output_shape, (Shape{2, 2, 2}));
    // data[:axis] + indices + data[axis+1:]: [5] + [3] + [3, 2].
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [5, 4, 3, 2],
                               "indices_shape": [3], "axis": -3})json").output_shape, (Shape{5, 3, 3, 2}));
    // The last axis: [5, 4, 3] + [2, 6].
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [5, 4, 3, 2],
                               "indices_shape": [2, 6], "axis": 3})json").output_shape, (Shape{5, 4, 3, 2, 6}));
}

TEST(SpecAccepted, GatherWithRankZeroIndices) {
    // A scalar index drops the axis: rank q + r - 1 = 1.
    KernelSpec spec = parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [5, 4],
                                        "indices_shape": [], "axis": 1})json");
    EXPECT_TRUE(spec.indices_shape.empty());
    EXPECT_EQ(spec.output_shape, (Shape{5}));
}

TEST(SpecAccepted, GatherElementsOutputIsIndicesShape) {
    // ONNX GatherElements example 2: data [3, 3], indices [2, 3], axis 0 -> output [2, 3].
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "GatherElements", "dtype": "int32", "data_shape": [3, 3],
                               "indices_shape": [2, 3]})json").output_shape, (Shape{2, 3}));
    // Along the axis the indices may be longer than data.
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "GatherElements", "dtype": "int32", "data_shape": [3, 2],
                               "indices_shape": [2, 7], "axis": 1})json").output_shape, (Shape{2, 7}));
}

TEST(SpecAccepted, GatherNDOutputShapes) {
    // ONNX GatherND examples 1-5: indices_shape[:-1] + data_shape[b+k:].
    const std::string head = R"json({"name": "k", "op": "GatherND", "dtype": "int32", )json";
    EXPECT_EQ(parse_one(head + R"json("data_shape": [2, 2], "indices_shape": [2, 2]})json").output_shape, (Shape{2}));
    EXPECT_EQ(parse_one(head + R"json("data_shape": [2, 2], "indices_shape": [2, 1]})json").output_shape, (Shape{2, 2}));
    EXPECT_EQ(parse_one(head + R"json("data_shape": [2, 2, 2], "indices_shape": [2, 2]})json").output_shape, (Shape{2, 2}));
    EXPECT_EQ(parse_one(head + R"json("data_shape": [2, 2, 2], "indices_shape": [2, 1, 2]})json").output_shape,
              (Shape{2, 1, 2}));
    KernelSpec batched = parse_one(head + R"json("data_shape": [2, 2, 2], "indices_shape": [2, 1], "batch_dims": 1})json");
    EXPECT_EQ(batched.batch_dims, 1);
    EXPECT_EQ(batched.output_shape, (Shape{2, 2}));
    // Two batch dimensions: [2, 3] + [] + data[2+1:] = [2, 3, 5].
    EXPECT_EQ(parse_one(head + R"json("data_shape": [2, 3, 4, 5], "indices_shape": [2, 3, 1], "batch_dims": 2})json").output_shape,
              (Shape{2, 3, 5}));
}

TEST(SpecAccepted, ScatterNDDerivedUpdatesShape) {
    // ONNX ScatterND example 2: data [4, 4, 4], indices [2, 1] -> updates [2, 4, 4], output [4, 4, 4].
    KernelSpec spec = parse_one(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 4, 4],
                                        "indices_shape": [2, 1], "reduction": "max"})json");
    EXPECT_EQ(spec.updates_shape, (Shape{2, 4, 4}));
    EXPECT_EQ(spec.output_shape, (Shape{4, 4, 4}));
    EXPECT_EQ(spec.reduction, kernelgen::Reduction::Max);
    // ONNX ScatterND example 1: data [8], indices [4, 1] -> updates [4]; given and matching.
    KernelSpec given = parse_one(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [8],
                                         "indices_shape": [4, 1], "updates_shape": [4]})json");
    EXPECT_EQ(given.updates_shape, (Shape{4}));
    EXPECT_EQ(given.reduction, kernelgen::Reduction::None);
    // k = r: one element per tuple, updates = indices[:-1] = [3, 2].
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [5, 6],
                               "indices_shape": [3, 2, 2]})json").updates_shape, (Shape{3, 2}));
}

TEST(SpecAccepted, ZeroSizedDimensions) {
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [0, 3],
                               "indices_shape": [2], "axis": 1})json").output_shape, (Shape{0, 2}));
    EXPECT_EQ(parse_one(gather_shapes("[3, 2]", "[0]")).output_shape, (Shape{0, 2}));
    // A zero dimension makes any other size fine: the tensor is empty.
    EXPECT_EQ(parse_one(gather_shapes("[1099511627776, 1099511627776, 0]", "[1]")).output_shape,
              (Shape{1, 1099511627776, 0}));
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [4, 0],
                               "indices_shape": [0, 1]})json").output_shape, (Shape{0, 0}));
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [4, 0],
                               "indices_shape": [3, 1]})json").updates_shape, (Shape{3, 0}));
}

TEST(SpecAccepted, UnrollSettings) {
    const std::string head =
        R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2], "unroll": )json";
    EXPECT_EQ(parse_one(head + "\"auto\"}").unroll.kind, kernelgen::Unroll::Kind::Auto);
    EXPECT_EQ(parse_one(head + "\"full\"}").unroll.kind, kernelgen::Unroll::Kind::Full);
    EXPECT_EQ(parse_one(head + "\"none\"}").unroll.kind, kernelgen::Unroll::Kind::None);
    KernelSpec one = parse_one(head + "1}");
    EXPECT_EQ(one.unroll.kind, kernelgen::Unroll::Kind::Factor);
    EXPECT_EQ(one.unroll.factor, 1u);
    EXPECT_EQ(parse_one(head + "64}").unroll.factor, 64u);
}

// A run's --unroll and --prefetch (RunOptions) set what a spec leaves out, and never what it says.
TEST(SpecAccepted, RunOptionsApplyWhereTheSpecIsSilent) {
    using kernelgen::Prefetch;
    using kernelgen::Unroll;
    const kernelgen::RunOptions run{Unroll{Unroll::Kind::None, 1}, Prefetch{Prefetch::Kind::Distance, 8}};
    KernelSpec silent = parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
                                         "indices_shape": [2]})json");
    EXPECT_FALSE(silent.unroll_in_spec);
    EXPECT_FALSE(silent.prefetch_in_spec);
    kernelgen::apply_run_options(silent, run);
    EXPECT_EQ(silent.unroll.kind, Unroll::Kind::None);
    EXPECT_EQ(silent.prefetch.kind, Prefetch::Kind::Distance);
    EXPECT_EQ(silent.prefetch.distance, 8u);
    // Applying a run without options gives the defaults back: the spec itself was never changed.
    kernelgen::apply_run_options(silent, {});
    EXPECT_EQ(silent.unroll.kind, Unroll::Kind::Auto);
    EXPECT_EQ(silent.prefetch.kind, Prefetch::Kind::Auto);

    KernelSpec own = parse_one(R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3],
                                      "indices_shape": [2], "unroll": 4, "prefetch": "none"})json");
    kernelgen::apply_run_options(own, run);
    EXPECT_EQ(own.unroll.kind, Unroll::Kind::Factor);
    EXPECT_EQ(own.unroll.factor, 4u);
    EXPECT_EQ(own.prefetch.kind, Prefetch::Kind::None);
}

TEST(SpecAccepted, KernelListKeepsPointers) {
    Parsed parsed = parse(R"json({"kernels": [
        {"name": "a", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]},
        {"name": "b", "op": "GatherND", "dtype": "float32", "data_shape": [3], "indices_shape": [2, 1]}]})json");
    EXPECT_EQ(parsed.problems, Problems{});
    ASSERT_EQ(parsed.kernels.size(), 2u);
    EXPECT_EQ(parsed.kernels[0].pointer, "/kernels/0");
    EXPECT_EQ(parsed.kernels[1].pointer, "/kernels/1");
    EXPECT_EQ(parsed.kernels[1].op, kernelgen::Op::GatherND);
    EXPECT_EQ(parsed.kernels[1].output_shape, (Shape{2}));
}

namespace {

// --- reductions a type does not define --------------------------------------------------------------------

TEST(SpecErrors, ReductionTheElementTypeDoesNotDefine) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "complex64", "data_shape": [4],
                               "indices_shape": [2, 1], "reduction": "max"})json"),
              Problems{"spec.json: /reduction: reduction \"max\" is not defined for complex64 (complex64 allows none, "
                       "add, mul: complex numbers have no order)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "ScatterND", "dtype": "string", "data_shape": [4],
                               "indices_shape": [2, 1], "reduction": "add"})json"),
              Problems{"spec.json: /reduction: reduction \"add\" is not defined for string (string allows none: a "
                       "kernel copies string pointers and never combines strings)"});
}

TEST(SpecAccepted, EveryReductionOfEveryOtherType) {
    for (const char* dtype : {"float16", "bfloat16", "bool", "uint8", "float64"}) {
        for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
            std::vector<kernelgen::Diagnostic> diagnostics;
            auto kernels = kernelgen::parse_spec_text(
                std::string(R"({"name": "k", "op": "ScatterND", "data_shape": [4], "indices_shape": [2, 1], "dtype": ")") +
                    dtype + R"(", "reduction": ")" + reduction + "\"}",
                "spec.json", diagnostics);
            EXPECT_TRUE(diagnostics.empty()) << dtype << " " << reduction;
            EXPECT_EQ(kernels.size(), 1u);
        }
    }
}

}  // namespace

namespace {

// --- run-time counts: what "count_leads" says the count counts ----------------------------------------------

using kernelgen::CountLeads;

// A float32 Gather of the given shapes with `extra` keys.
std::string gather_with(const std::string& data, const std::string& indices, const std::string& extra) {
    return R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": )json" + data +
           R"json(, "indices_shape": )json" + indices + extra + "}";
}

// A Gather of the third column of [4, 3] (an NMS result), constant index 2, with `extra` keys.
std::string column_gather(const std::string& extra) {
    return R"json({"name": "k", "op": "Gather", "dtype": "int64", "data_shape": [4, 3], "indices_shape": [],
                   "indices": 2)json" + extra + "}";
}

const std::string kCountLeadsRule =
    "\"indices\" (default): the count is the leading dimension of indices; \"data\": of data, for Gather along axis 1 "
    "or later";

TEST(SpecErrors, CountLeadsNeedsARunTimeCount) {
    const Problems without{"spec.json: /count_leads: \"count_leads\" says what a run-time count counts, and applies only "
                           "with \"count\": \"runtime\" (add \"count\": \"runtime\", or remove \"count_leads\")"};
    EXPECT_EQ(rejected(column_gather(R"(, "axis": 1, "count_leads": "data")")), without);
    EXPECT_EQ(rejected(gather_with("[4, 3]", "[2]", R"(, "count_leads": "indices")")), without);
}

TEST(SpecErrors, CountLeadsBadValues) {
    const std::string head = R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [4, 3],
                                     "indices_shape": [2], "axis": 1, "count": "runtime", "count_leads": )json";
    EXPECT_EQ(rejected(head + "\"Data\"}"), Problems{"spec.json: /count_leads: unknown count_leads setting \"Data\" (" +
                                                      kCountLeadsRule + "); did you mean \"data\"?"});
    EXPECT_EQ(rejected(head + "\"index\"}"), Problems{"spec.json: /count_leads: unknown count_leads setting \"index\" (" +
                                                       kCountLeadsRule + "); did you mean \"indices\"?"});
    EXPECT_EQ(rejected(head + "\"rows\"}"),
              Problems{"spec.json: /count_leads: unknown count_leads setting \"rows\" (" + kCountLeadsRule + ")"});
    EXPECT_EQ(rejected(head + "1}"),
              Problems{"spec.json: /count_leads: expected a string, got integer (" + kCountLeadsRule + ")"});
}

// Only Gather keeps data's leading dimension in its output; each other operator says why it does not.
TEST(SpecErrors, CountLeadsDataIsGatherOnly) {
    auto refusal = [](const std::string& op, const std::string& shapes) {
        return rejected(R"({"name": "k", "op": ")" + op + R"(", "dtype": "float32", "data_shape": [8, 4], )" + shapes +
                        R"(, "count": "runtime", "count_leads": "data"})");
    };
    const std::string head = "spec.json: /count_leads: \"count_leads\": \"data\" applies to Gather only: ";
    const std::string gathers = ", so its rows follow the rows of indices, not of data (count those with \"count_leads\": \"indices\")";
    const std::string scatters = " output is all of data, with updates written wherever the indices point, so its rows do "
                                 "not follow data's (count the rows of indices and updates with \"count_leads\": \"indices\")";
    EXPECT_EQ(refusal("GatherElements", R"("indices_shape": [8, 2], "axis": 1)"),
              Problems{head + "GatherElements' output has the shape of indices" + gathers});
    EXPECT_EQ(refusal("GatherND", R"("indices_shape": [8, 1])"),
              Problems{head + "GatherND's output is indices_shape[:-1] + data_shape[batch_dims + k:]" + gathers});
    EXPECT_EQ(refusal("ScatterND", R"("indices_shape": [8, 1])"), Problems{head + "ScatterND's" + scatters});
    EXPECT_EQ(refusal("ScatterElements", R"("indices_shape": [8, 4], "axis": 1)"), Problems{head + "ScatterElements'" + scatters});
}

TEST(SpecErrors, CountLeadsDataNeedsAxisOneOrLater) {
    const std::string head = "spec.json: /axis: with \"count_leads\": \"data\" the count is data's leading dimension, which "
                             "must lead the output too: gather along axis 1 or later (here axis ";
    const std::string tail = "), or count the rows of indices with \"count_leads\": \"indices\"";
    const std::string counted = R"(, "count": "runtime", "count_leads": "data")";
    EXPECT_EQ(rejected(column_gather(counted)), Problems{head + "0, the default" + tail});
    EXPECT_EQ(rejected(column_gather(R"(, "axis": 0)" + counted)), Problems{head + "0" + tail});
    EXPECT_EQ(rejected(column_gather(R"(, "axis": -2)" + counted)), Problems{head + "-2, that is 0" + tail});
}

TEST(SpecErrors, CountLeadsDataNeedsABound) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "int64", "data_shape": [0, 3], "indices_shape": [2],
                               "axis": 1, "count": "runtime", "count_leads": "data"})json"),
              Problems{"spec.json: /data_shape/0: the bound of a run-time count of data rows, data_shape[0], must be at "
                       "least 1"});
}

// A uint32_t count reaches at most 4294967295: a larger bound, of index or of data rows, is refused.
TEST(SpecErrors, RunTimeCountBoundsReachableByAUint32) {
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "uint8", "data_shape": [4],
                               "indices_shape": [4294967296], "count": "runtime"})json"),
              Problems{"spec.json: /indices_shape/0: the bound of a run-time count, indices_shape[0], is 4294967296, more "
                       "than its uint32_t count can reach (at most 4294967295)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "uint8", "data_shape": [4294967296, 2],
                               "indices_shape": [], "axis": 1, "count": "runtime", "count_leads": "data"})json"),
              Problems{"spec.json: /data_shape/0: the bound of a run-time count, data_shape[0], is 4294967296, more "
                       "than its uint32_t count can reach (at most 4294967295)"});
    EXPECT_TRUE(parse_one(R"json({"name": "k", "op": "Gather", "dtype": "uint8", "data_shape": [4294967295, 2],
                                 "indices_shape": [], "axis": 1, "count": "runtime", "count_leads": "data"})json")
                    .runtime_count);
}

// The rules every run-time count keeps: no "prefetch", an axis with elements, constant indices in range.
TEST(SpecErrors, CountLeadsDataKeepsTheOtherRules) {
    const std::string counted = R"(, "axis": 1, "count": "runtime", "count_leads": "data")";
    EXPECT_EQ(rejected(gather_with("[4, 3]", "[2]", counted + R"(, "prefetch": 2)")),
              Problems{"spec.json: /prefetch: \"prefetch\" does not combine with a run-time count: the hints would look "
                       "ahead past the count (remove \"prefetch\", or set it to \"none\")"});
    EXPECT_EQ(rejected(gather_with("[4, 0]", "[2]", counted)),
              Problems{"spec.json: /data_shape/1: a run-time count needs every data axis the indices select along to "
                       "have elements (axis 1 has size 0, where no index is valid)"});
    EXPECT_EQ(rejected(R"json({"name": "k", "op": "Gather", "dtype": "int64", "data_shape": [4, 3], "indices_shape": [],
                               "indices": 3)json" + counted + "}"),
              Problems{"spec.json: /indices: index 3 is out of range for data axis 1 of size 3 (allowed -3..2)"});
}

// A count of index rows that cannot lead a Gather's output points to the count of data rows.
TEST(SpecErrors, GatherCountOfIndexRowsPointsToDataRows) {
    EXPECT_EQ(rejected(gather_with("[4, 3]", "[2]", R"(, "axis": 1, "count": "runtime")")),
              Problems{"spec.json: /axis: with a run-time count, the count must lead the output: data's dimensions "
                       "before axis 1 must all be 1, not [4] (gather along axis 0, or count data's rows with "
                       "\"count_leads\": \"data\")"});
}

TEST(SpecAccepted, CountLeads) {
    // The default, said or not, on every operator.
    const KernelSpec said = parse_one(gather_with("[6, 4]", "[3]", R"(, "count": "runtime", "count_leads": "indices")"));
    EXPECT_TRUE(said.runtime_count);
    EXPECT_EQ(said.count_leads, CountLeads::Indices);
    EXPECT_EQ(parse_one(gather_with("[6, 4]", "[3]", R"(, "count": "runtime")")).count_leads, CountLeads::Indices);
    EXPECT_EQ(parse_one(R"json({"name": "k", "op": "ScatterND", "dtype": "float32", "data_shape": [8, 4],
                               "indices_shape": [3, 1], "count": "runtime", "count_leads": "indices"})json").count_leads,
              CountLeads::Indices);
    // Data rows: constant indices (of rank 0 here) combine with the count; a negative axis counts from the back.
    const KernelSpec column = parse_one(column_gather(R"(, "axis": -1, "count": "runtime", "count_leads": "data")"));
    EXPECT_TRUE(column.runtime_count);
    EXPECT_EQ(column.count_leads, CountLeads::Data);
    EXPECT_EQ(column.axis, 1);
    EXPECT_EQ(column.output_shape, (Shape{4}));
    ASSERT_TRUE(column.constant_indices.has_value());
    EXPECT_EQ(*column.constant_indices, (std::vector<int64_t>{2}));
    // Run-time indices of any shape, none at all included; data's dimensions between the count and the axis stay.
    const KernelSpec runtime = parse_one(gather_with("[5, 2, 7]", "[3, 2]", R"(, "axis": 2, "count": "runtime", "count_leads": "data")"));
    EXPECT_EQ(runtime.count_leads, CountLeads::Data);
    EXPECT_EQ(runtime.output_shape, (Shape{5, 2, 3, 2}));
    EXPECT_EQ(parse_one(gather_with("[5, 7]", "[0]", R"(, "axis": 1, "count": "runtime", "count_leads": "data")")).output_shape,
              (Shape{5, 0}));
}

TEST(SpecAccepted, DataCount) {
    // Beside a count of index rows, on each operator it applies to; a run's prefetch leaves such kernels alone.
    const KernelSpec both = parse_one(gather_with("[6, 4]", "[3]", R"(, "count": "runtime", "data_count": "runtime")"));
    EXPECT_TRUE(both.runtime_count);
    EXPECT_TRUE(both.runtime_data_count);
    EXPECT_EQ(both.count_leads, CountLeads::Indices);
    EXPECT_EQ(both.prefetch.kind, kernelgen::Prefetch::Kind::None);
    EXPECT_TRUE(parse_one(R"json({"name": "k", "op": "GatherND", "dtype": "float32", "data_shape": [8, 4],
                                  "indices_shape": [3, 2], "count": "runtime", "data_count": "runtime"})json")
                    .runtime_data_count);
    EXPECT_TRUE(parse_one(R"json({"name": "k", "op": "GatherElements", "dtype": "float32", "data_shape": [8, 4],
                                  "indices_shape": [9, 2], "data_count": "runtime"})json")
                    .runtime_data_count);
    // Alone, with rank-0 indices, along axis -2 (axis 0 of rank 2), with "prefetch": "none" and unchecked indices.
    const KernelSpec alone = parse_one(gather_with("[6, 4]", "[]", R"(, "axis": -2, "data_count": "runtime", "prefetch": "none", "index_check": "none")"));
    EXPECT_FALSE(alone.runtime_count);
    EXPECT_TRUE(alone.runtime_data_count);
    EXPECT_EQ(alone.output_shape, (Shape{4}));
    // Left out: no data count.
    EXPECT_FALSE(parse_one(gather_with("[6, 4]", "[3]", R"(, "count": "runtime")")).runtime_data_count);
}

// A block longer than its axis is one block, at any block_size up to 2^64 - 1: the size arithmetic once wrapped
// (ceil((4 + 2^64 - 1 - 1) / (2^64 - 1)) was 0 scales) and the kernel did not compile. The spec keeps the size given.
TEST(SpecAccepted, QuantizationBlockBeyondTheAxisIsOneBlock) {
    const std::string table = R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [4, 2],
        "indices_shape": [2], "data": [[1, 2], [3, 4], [5, 6], [7, 8]],
        "quantization": {"type": "int8", "axis": 0, "block_size": BLOCK, "scales": SCALES}})json";
    auto spec_text = [&](const std::string& block, const std::string& scales) {
        std::string text = table;
        text.replace(text.find("BLOCK"), 5, block);
        text.replace(text.find("SCALES"), 6, scales);
        return text;
    };
    for (const char* block : {"4", "5", "18446744073709551615"}) {
        const KernelSpec spec = parse_one(spec_text(block, "[[0.5, 0.25]]"));
        ASSERT_TRUE(spec.quantization) << block;
        EXPECT_EQ(std::to_string(spec.quantization->block_size), block);
        EXPECT_EQ(spec.quantization->scales_shape, (Shape{1, 2})) << block;
        const kernelgen::GenerateResult generated = kernelgen::generate({spec});
        EXPECT_EQ(strings_of(generated.diagnostics), Problems{}) << block;
        // Every row's scales are those of the one block: row 0..3 / 4 is 0, in 32-bit arithmetic.
        ASSERT_EQ(generated.files.size(), 5u) << block;  // k.h, k.c, k_data.inc and the support files
        EXPECT_NE(generated.files[1].content.find("const uint32_t scales = (row / 4u) * 2u;"), std::string::npos)
            << generated.files[1].content;
    }
    EXPECT_EQ(rejected(spec_text("18446744073709551615", "[]")),
              Problems{"spec.json: /quantization/scales: expected an array of 1, got an array of 0 (arrays nested as the "
                       "scales' shape [1, 2], or a flat array of 2 numbers)"});
}

}  // namespace
