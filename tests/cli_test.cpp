// The kernelgen command line, run as a real process (KERNELGEN_EXECUTABLE_PATH) in a fresh temporary
// folder per test: exit statuses, messages, nothing written on error, unchanged files left alone, and
// byte-identical output whatever path names the spec.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "kernelgen/version.h"
#include "text_files.h"

namespace {

namespace fs = std::filesystem;

struct RunResult {
    int exit_code = -1;  // -1 when the process did not exit normally
    std::string out;
    std::string err;
};

std::string shell_quoted(const std::string& text) {
    std::string out = "'";
    for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

using testfiles::read_text;
using testfiles::write_text;

// Names of the entries of a folder (empty when it does not exist).
std::set<std::string> entries_of(const fs::path& dir) {
    std::set<std::string> names;
    if (!fs::exists(dir)) return names;
    for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
    return names;
}

// Content of every file of a folder, by name.
std::map<std::string, std::string> contents_of(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& name : entries_of(dir)) files[name] = read_text(dir / name);
    return files;
}

void expect_no_temporaries(const fs::path& dir) {
    for (const auto& name : entries_of(dir)) EXPECT_NE(name.front(), '.') << "leftover temporary " << (dir / name);
}

const std::string kAlpha =
    R"json({"name": "alpha", "op": "Gather", "dtype": "float32", "data_shape": [4, 3], "indices_shape": [2]})json";
const std::string kBetaGamma = R"json({"kernels": [
    {"name": "beta", "op": "GatherND", "dtype": "int16", "data_shape": [2, 3, 4], "indices_shape": [2, 1], "batch_dims": 1},
    {"name": "gamma", "op": "ScatterND", "dtype": "uint8", "data_shape": [8], "indices_shape": [3, 1], "reduction": "add"}]})json";
// Two problems: an axis out of range and an unknown element type.
// What a run of alpha.json writes: its kernel and the support code every run writes beside its kernels.
const std::set<std::string> kAlphaFiles{"alpha.c", "alpha.h", "kernelgen_support.c", "kernelgen_support.h"};

const std::string kBad = R"json({"kernels": [
    {"name": "delta", "op": "Gather", "dtype": "float32", "data_shape": [4, 3], "indices_shape": [2], "axis": 2},
    {"name": "epsilon", "op": "GatherElements", "dtype": "float8", "data_shape": [4], "indices_shape": [4]}]})json";
const std::string kBadProblems =
    "bad.json: /kernels/0/axis: axis 2 is out of range for data of rank 2 (allowed -2..1)\n"
    "bad.json: /kernels/1/dtype: unknown element type \"float8\" (one of float32 or float, float64 or double, int8, "
    "int16, int32, int64, uint8, uint16, uint32, uint64, bool, float16, bfloat16, complex64, complex128, string)\n"
    "kernelgen: 2 problems; nothing was written\n";

// A NumPy 1.0 file of float32 values: magic, version, header length, the header padded to 128 bytes with a newline.
std::string npy_float32(const std::vector<float>& values) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
    header.resize(128 - 10 - 1, ' ');
    header += '\n';
    std::string out = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    return out;
}

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string test_name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        root_ = fs::temp_directory_path() / ("kernelgen_cli_test_" + std::to_string(::getpid()) + "_" + test_name);
        fs::remove_all(root_);
        work_ = root_ / "work";
        fs::create_directories(work_);
    }

    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }

    // Runs kernelgen with `arguments` (already shell-quoted where needed) in the work folder.
    RunResult run(const std::string& arguments) const {
        const fs::path out_file = root_ / "stdout.txt", err_file = root_ / "stderr.txt";
        const std::string command = "cd " + shell_quoted(work_.string()) + " && " +
                                    shell_quoted(KERNELGEN_EXECUTABLE_PATH) + " " + arguments + " >" +
                                    shell_quoted(out_file.string()) + " 2>" + shell_quoted(err_file.string());
        RunResult result;
        const int status = std::system(command.c_str());
        if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
        result.out = read_text(out_file);
        result.err = read_text(err_file);
        return result;
    }

    void write_spec(const std::string& name, const std::string& text) const { write_text(work_ / name, text); }

    // Sets every file of `dir` to a time well in the past and returns the times set.
    static std::map<std::string, fs::file_time_type> age_files(const fs::path& dir) {
        const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(2);
        std::map<std::string, fs::file_time_type> times;
        for (const auto& name : entries_of(dir)) {
            fs::last_write_time(dir / name, old_time);
            times[name] = fs::last_write_time(dir / name);
        }
        return times;
    }

    fs::path root_;
    fs::path work_;
};

}  // namespace

// --- usage ----------------------------------------------------------------------------------------------

TEST_F(CliTest, HelpExitsZero) {
    for (const char* option : {"--help", "-h"}) {
        RunResult result = run(option);
        EXPECT_EQ(result.exit_code, 0) << option;
        EXPECT_EQ(result.out.rfind("Usage: kernelgen [generate] --out-dir DIR [--unroll MODE] [--prefetch MODE]\n", 0), 0u) << result.out;
        EXPECT_EQ(result.err, "");
    }
}

TEST_F(CliTest, HelpOfOneCommandListsItsOptionsAlone) {
    // kernelgen help COMMAND and kernelgen COMMAND --help: that command's synopsis and options, no other's.
    struct Case {
        std::string args, usage, has, lacks;
    };
    const std::vector<Case> cases{
        {"help import", "Usage: kernelgen import MODEL.onnx --out-dir DIR", "--max-count NODE=N", "--depfile"},
        {"import --help", "Usage: kernelgen import MODEL.onnx --out-dir DIR", "--plain-indices NODE", "--unroll"},
        {"help generate", "Usage: kernelgen [generate] --out-dir DIR", "--depfile FILE", "--dim NAME=N"},
        {"generate --help", "Usage: kernelgen [generate] --out-dir DIR", "--unroll MODE", "--weights"},
        {"help support", "Usage: kernelgen support --out-dir DIR\n\n", "--out-dir DIR", "--unroll"},
        {"support --help", "Usage: kernelgen support --out-dir DIR\n\n", "--version", "--prefix"},
        {"help list", "Usage: kernelgen list SPEC.json...\n\n", "--no-support", "--out-dir"},
        {"list -h", "Usage: kernelgen list SPEC.json...\n\n", "--prefetch MODE", "--depfile"},
    };
    for (const auto& c : cases) {
        RunResult result = run(c.args);
        EXPECT_EQ(result.exit_code, 0) << c.args;
        EXPECT_EQ(result.out.rfind(c.usage, 0), 0u) << c.args << ":\n" << result.out;
        EXPECT_NE(result.out.find(c.has), std::string::npos) << c.args;
        EXPECT_EQ(result.out.find(c.lacks), std::string::npos) << c.args;
        EXPECT_EQ(result.err, "");
    }
    // kernelgen help alone is kernelgen --help, every form.
    EXPECT_EQ(run("help").out, run("--help").out);
    EXPECT_NE(run("--help").out.find("kernelgen help COMMAND"), std::string::npos);
    RunResult unknown = run("help frobnicate");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.err, "kernelgen: help takes at most one command: generate, support, list or import (not frobnicate)\n"
                           "Try 'kernelgen --help'.\n");
}

TEST_F(CliTest, HelpWinsOverEverythingElse) {
    RunResult result = run("generate --help --out-dir out missing.json");
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.out.rfind("Usage: kernelgen", 0), 0u);
    EXPECT_TRUE(entries_of(work_ / "out").empty());
}

TEST_F(CliTest, VersionExitsZero) {
    RunResult result = run("--version");
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.out, std::string("kernelgen ") + KERNELGEN_VERSION_STRING + "\n");
    EXPECT_EQ(result.err, "");
}

TEST_F(CliTest, MissingOutDirExitsTwo) {
    write_spec("alpha.json", kAlpha);
    RunResult result = run("alpha.json");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: --out-dir DIR is required\nTry 'kernelgen --help'.\n");
    EXPECT_EQ(entries_of(work_), (std::set<std::string>{"alpha.json"}));
}

TEST_F(CliTest, NoSpecsExitsTwo) {
    RunResult result = run("--out-dir out");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: no spec files given\nTry 'kernelgen --help'.\n");
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

TEST_F(CliTest, NoSpecsAfterGenerateExitsTwo) {
    RunResult result = run("generate -o out");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: no spec files given\nTry 'kernelgen --help'.\n");
}

TEST_F(CliTest, OutDirWithoutAFolderExitsTwo) {
    write_spec("alpha.json", kAlpha);
    RunResult result = run("alpha.json -o");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: -o needs a folder\nTry 'kernelgen --help'.\n");
}

TEST_F(CliTest, UnknownOptionExitsTwo) {
    write_spec("alpha.json", kAlpha);
    RunResult result = run("--out-dir out --fast alpha.json");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: unknown option --fast\nTry 'kernelgen --help'.\n");
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

// --- a valid run ----------------------------------------------------------------------------------------

TEST_F(CliTest, ValidRunWritesHeaderAndSourcePerKernel) {
    write_spec("alpha.json", kAlpha);
    write_spec("beta_gamma.json", kBetaGamma);
    RunResult result = run("--out-dir out alpha.json beta_gamma.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    const fs::path out = work_ / "out";
    EXPECT_EQ(entries_of(out), (std::set<std::string>{"alpha.c", "alpha.h", "beta.c", "beta.h", "gamma.c", "gamma.h", "kernelgen_support.c",
                                                    "kernelgen_support.h"}));
    for (const auto& [name, content] : contents_of(out)) {
        EXPECT_EQ(content.rfind("/* Auto-generated file. Do not edit!", 0), 0u) << name;
    }
    const std::string header = read_text(out / "alpha.h");
    EXPECT_NE(header.find("int alpha(const float *data, const int64_t *indices, float *output);"), std::string::npos)
        << header;
    EXPECT_NE(read_text(out / "gamma.h").find("int gamma(const uint8_t *data, const int64_t *indices, const uint8_t "
                                              "*updates, uint8_t *output);"),
              std::string::npos);
    EXPECT_NE(read_text(out / "alpha.c").find("#include \"alpha.h\""), std::string::npos);
    expect_no_temporaries(out);
}

// A scatter holding its data and updates from .npy files: the prototype drops both, the run writes its table file,
// and --depfile names both files among the run's inputs.
TEST_F(CliTest, ScatterTablesFromFilesAndTheDepfile) {
    write_text(work_ / "base.npy", npy_float32({1, 2, 3, 4}));
    write_text(work_ / "put.npy", npy_float32({-1, -2}));
    write_spec("put.json", R"json({"name": "put", "op": "ScatterND", "dtype": "float32", "data_shape": [4],
        "indices_shape": [2, 1], "data_file": "base.npy", "updates_file": "put.npy"})json");
    RunResult result = run("--out-dir out --no-support --depfile out/put.d put.json");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(entries_of(work_ / "out"), (std::set<std::string>{"put.c", "put.h", "put_data.inc", "put.d"}));
    EXPECT_NE(read_text(work_ / "out" / "put.h").find("int put(const int64_t *indices, float *output);"), std::string::npos);
    const std::string table = read_text(work_ / "out" / "put_data.inc");
    EXPECT_NE(table.find("0x3F800000u, 0x40000000u, 0x40400000u, 0x40800000u,"), std::string::npos) << table;
    EXPECT_NE(table.find("0xBF800000u, 0xC0000000u,"), std::string::npos) << table;
    EXPECT_EQ(read_text(work_ / "out" / "put.d"), "out/put.h \\\n out/put.c \\\n out/put_data.inc: \\\n put.json \\\n base.npy \\\n put.npy\n");
}

TEST_F(CliTest, LeadingGenerateWordWorks) {
    write_spec("alpha.json", kAlpha);
    RunResult result = run("generate --out-dir out alpha.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(entries_of(work_ / "out"), kAlphaFiles);
    // The same output as without the word.
    RunResult plain = run("--out-dir plain alpha.json");
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(contents_of(work_ / "out"), contents_of(work_ / "plain"));
}

TEST_F(CliTest, OutDirSpellings) {
    write_spec("alpha.json", kAlpha);
    EXPECT_EQ(run("-o short alpha.json").exit_code, 0);
    EXPECT_EQ(run("--out-dir=joined alpha.json").exit_code, 0);
    EXPECT_EQ(run("alpha.json --out-dir after").exit_code, 0);
    for (const char* dir : {"short", "joined", "after"}) {
        EXPECT_EQ(entries_of(work_ / dir), kAlphaFiles) << dir;
    }
}

// --- the support code every run writes beside its kernels ----------------------------------------------

TEST_F(CliTest, SupportWritesOnlyTheSupportFiles) {
    RunResult result = run("support --out-dir shared");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(entries_of(work_ / "shared"), (std::set<std::string>{"kernelgen_support.c", "kernelgen_support.h"}));
    // The same files as a generate run writes beside its kernels.
    write_spec("alpha.json", kAlpha);
    ASSERT_EQ(run("--out-dir kernels alpha.json").exit_code, 0);
    for (const char* name : {"kernelgen_support.c", "kernelgen_support.h"}) {
        EXPECT_EQ(read_text(work_ / "shared" / name), read_text(work_ / "kernels" / name)) << name;
    }
    RunResult extra = run("support --out-dir shared alpha.json");
    EXPECT_EQ(extra.exit_code, 2);
    EXPECT_EQ(extra.err, "kernelgen: support takes no argument alpha.json (kernelgen support --out-dir DIR)\n"
                         "Try 'kernelgen help support'.\n");
    EXPECT_EQ(run("support").exit_code, 2);
}

TEST_F(CliTest, NoSupportLeavesTheSupportFilesOut) {
    write_spec("alpha.json", kAlpha);
    RunResult result = run("--out-dir out --no-support alpha.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(entries_of(work_ / "out"), (std::set<std::string>{"alpha.c", "alpha.h"}));
}

// A kernel beside support code of another release refuses to compile, and says what to do; with its own, it
// compiles with the strict flags.
TEST_F(CliTest, AKernelRefusesSupportCodeOfAnotherRelease) {
    write_spec("alpha.json", kAlpha);
    ASSERT_EQ(run("--out-dir out alpha.json").exit_code, 0);
    const fs::path out = work_ / "out";
    auto compile = [&](const std::string& source) {
        const std::string command = "cd " + shell_quoted(out.string()) + " && " KERNELGEN_C_COMPILER " " +
                                    KERNELGEN_STRICT_C_FLAGS + " -c " + source + " -o /dev/null 2>&1";
        std::string log;
        FILE* pipe = ::popen(command.c_str(), "r");
        char buffer[4096];
        for (size_t n; pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) log.append(buffer, n);
        const int status = pipe ? ::pclose(pipe) : -1;
        return std::make_pair(status, log);
    };
    EXPECT_EQ(compile("alpha.c"), std::make_pair(0, std::string()));
    EXPECT_EQ(compile("kernelgen_support.c"), std::make_pair(0, std::string()));
    std::string header = read_text(out / "kernelgen_support.h");
    const std::string line = "#define KERNELGEN_SUPPORT_VERSION " + std::to_string(KERNELGEN_VERSION_NUMBER) + "\n";
    ASSERT_NE(header.find(line), std::string::npos) << header;
    header.replace(header.find(line), line.size(), "#define KERNELGEN_SUPPORT_VERSION 1\n");
    write_text(out / "kernelgen_support.h", header);
    for (const char* source : {"alpha.c", "kernelgen_support.c"}) {
        const auto [status, log] = compile(source);
        EXPECT_NE(status, 0) << source;
        EXPECT_NE(log.find("were written by different kernelgen releases: regenerate the folder with one kernelgen"),
                  std::string::npos)
            << source << ":\n" << log;
    }
}

TEST_F(CliTest, CreatesNestedOutDir) {
    write_spec("alpha.json", kAlpha);
    RunResult result = run("--out-dir a/b/c alpha.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(entries_of(work_ / "a" / "b" / "c"), kAlphaFiles);
}

TEST_F(CliTest, OutDirThatIsAFileExitsTwo) {
    write_spec("alpha.json", kAlpha);
    write_text(work_ / "taken", "a file, not a folder\n");
    RunResult result = run("--out-dir taken alpha.json");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: taken: exists and is not a folder (the output folder)\n");
    EXPECT_EQ(read_text(work_ / "taken"), "a file, not a folder\n");
    // A file where a folder above it must be is named too.
    result = run("--out-dir taken/inner/out alpha.json");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: taken/inner/out: cannot create the folder: taken exists and is not a folder\n");
    EXPECT_EQ(read_text(work_ / "taken"), "a file, not a folder\n");
}

TEST_F(CliTest, TargetThatIsAFolderWritesNothing) {
    // alpha.c is a folder: refused before any file is renamed into place, so alpha.h is not written either.
    write_spec("alpha.json", kAlpha);
    fs::create_directories(work_ / "out" / "alpha.c");
    RunResult result = run("--out-dir out alpha.json");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: out/alpha.c: exists and is not a regular file; nothing was written\n");
    EXPECT_EQ(entries_of(work_ / "out"), (std::set<std::string>{"alpha.c"}));
    EXPECT_TRUE(fs::is_directory(work_ / "out" / "alpha.c"));
}

// --- invalid specs: every problem, nothing written ------------------------------------------------------

TEST_F(CliTest, InvalidSpecAmongValidOnesWritesNothing) {
    write_spec("alpha.json", kAlpha);
    write_spec("bad.json", kBad);
    write_spec("beta_gamma.json", kBetaGamma);
    RunResult result = run("--out-dir out alpha.json bad.json beta_gamma.json");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err, kBadProblems);
    EXPECT_EQ(result.out, "");
    EXPECT_FALSE(fs::exists(work_ / "out")) << "the out folder is not even created";
}

TEST_F(CliTest, InvalidSpecLeavesExistingFilesUntouched) {
    const fs::path out = work_ / "out";
    write_text(out / "alpha.h", "an older alpha.h\n");
    write_text(out / "notes.txt", "not kernelgen's\n");
    const auto times = age_files(out);
    write_spec("alpha.json", kAlpha);
    write_spec("bad.json", kBad);
    RunResult result = run("--out-dir out alpha.json bad.json");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err, kBadProblems);
    EXPECT_EQ(entries_of(out), (std::set<std::string>{"alpha.h", "notes.txt"}));
    EXPECT_EQ(read_text(out / "alpha.h"), "an older alpha.h\n");
    EXPECT_EQ(read_text(out / "notes.txt"), "not kernelgen's\n");
    for (const auto& [name, time] : times) EXPECT_EQ(fs::last_write_time(out / name), time) << name;
}

TEST_F(CliTest, ProblemsOfEveryFileArePrinted) {
    write_spec("one.json", R"json({"name": "one", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2], "axes": 0})json");
    write_spec("two.json", R"json({"name": "two", "op": "GatherND", "dtype": "float32", "data_shape": [3], "indices_shape": [2, 2]})json");
    RunResult result = run("--out-dir out one.json two.json");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err,
              "one.json: /axes: unknown key \"axes\" (allowed: name, op, dtype, index_dtype, data_shape, indices_shape, "
              "indices, unroll, prefetch, index_check, count, count_leads, data_count, indices_broadcast_from, indices_add, axis, data, data_file, quantization, runtime_axes); did you mean \"axis\"?\n"
              "two.json: /indices_shape/1: index tuple length 2 is out of range (indices_shape[-1] must be 1..1, the "
              "data rank 1)\n"
              "kernelgen: 2 problems; nothing was written\n");
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

TEST_F(CliTest, DuplicateNamesAcrossFilesExitOne) {
    write_spec("alpha.json", kAlpha);
    write_spec("again.json", kAlpha);
    RunResult result = run("--out-dir out alpha.json again.json");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err,
              "again.json: /name: kernel name \"alpha\" is already used by alpha.json: / (names must be unique in a run)\n"
              "kernelgen: 1 problem; nothing was written\n");
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

TEST_F(CliTest, MissingSpecFileIsNamed) {
    write_spec("alpha.json", kAlpha);
    RunResult result = run("--out-dir out alpha.json missing.json");
    EXPECT_NE(result.exit_code, 0);
    EXPECT_EQ(result.err,
              "missing.json: /: no such file (a readable JSON spec file of at most 16 MiB)\n"
              "kernelgen: 1 problem; nothing was written\n");
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

TEST_F(CliTest, FolderAsSpecIsNamed) {
    fs::create_directories(work_ / "specs");
    RunResult result = run("--out-dir out specs");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err,
              "specs: /: is a folder, not a file (a readable JSON spec file of at most 16 MiB)\n"
              "kernelgen: 1 problem; nothing was written\n");
}

// An endless input stops at the size limit instead of filling the memory.
TEST_F(CliTest, EndlessOrHugeSpecStopsAtTheLimit) {
    RunResult result = run("--out-dir out /dev/zero");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err,
              "/dev/zero: /: the file is larger than 16 MiB (a readable JSON spec file of at most 16 MiB)\n"
              "kernelgen: 1 problem; nothing was written\n");
    std::string big = "{\"kernels\": [" + std::string(16 << 20, ' ') + "]}";
    write_spec("big.json", big);
    result = run("--out-dir out big.json");
    EXPECT_EQ(result.err,
              "big.json: /: the file is larger than 16 MiB (a readable JSON spec file of at most 16 MiB)\n"
              "kernelgen: 1 problem; nothing was written\n");
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

// A number beyond the range of a double ("axis": 1e400) once aborted kernelgen with an uncaught
// exception; it is a reported problem and exit status 1.
TEST_F(CliTest, NumberOverflowInSpecIsAProblemNotACrash) {
    write_spec("huge.json", R"json({"name": "huge", "op": "Gather", "dtype": "float32", "data_shape": [3],
                                    "indices_shape": [1], "axis": 1e400})json");
    RunResult result = run("--out-dir out huge.json");
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_EQ(result.err.rfind("huge.json: ", 0), 0u) << result.err;
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

// --- unchanged files, determinism, temporaries ----------------------------------------------------------

TEST_F(CliTest, SecondIdenticalRunDoesNotRewrite) {
    write_spec("alpha.json", kAlpha);
    write_spec("beta_gamma.json", kBetaGamma);
    ASSERT_EQ(run("--out-dir out alpha.json beta_gamma.json").exit_code, 0);
    const fs::path out = work_ / "out";
    const auto contents = contents_of(out);
    const auto times = age_files(out);
    ASSERT_EQ(times.size(), 8u);
    RunResult again = run("generate --out-dir out alpha.json beta_gamma.json");
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(contents_of(out), contents);
    for (const auto& [name, time] : times) EXPECT_EQ(fs::last_write_time(out / name), time) << name << " was rewritten";
    expect_no_temporaries(out);
}

TEST_F(CliTest, ChangedKernelRewritesOnlyItsFiles) {
    write_spec("alpha.json", kAlpha);
    write_spec("beta_gamma.json", kBetaGamma);
    ASSERT_EQ(run("--out-dir out alpha.json beta_gamma.json").exit_code, 0);
    const fs::path out = work_ / "out";
    const std::string old_header = read_text(out / "alpha.h");
    const auto times = age_files(out);
    write_spec("alpha.json",
               R"json({"name": "alpha", "op": "Gather", "dtype": "int32", "data_shape": [4, 3], "indices_shape": [2]})json");
    RunResult result = run("--out-dir out alpha.json beta_gamma.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(read_text(out / "alpha.h"), old_header);
    EXPECT_NE(read_text(out / "alpha.h").find("int alpha(const int32_t *data"), std::string::npos);
    EXPECT_NE(fs::last_write_time(out / "alpha.h"), times.at("alpha.h"));
    EXPECT_NE(fs::last_write_time(out / "alpha.c"), times.at("alpha.c"));
    for (const char* name : {"beta.c", "beta.h", "gamma.c", "gamma.h", "kernelgen_support.c", "kernelgen_support.h"}) {
        EXPECT_EQ(fs::last_write_time(out / name), times.at(name)) << name << " was rewritten";
    }
    EXPECT_EQ(entries_of(out).size(), 8u);
    expect_no_temporaries(out);
}

TEST_F(CliTest, OutputIsIdenticalWhateverPathNamesTheSpec) {
    write_spec("specs/alpha.json", kAlpha);
    write_spec("specs/beta_gamma.json", kBetaGamma);
    const fs::path absolute_specs = fs::canonical(work_ / "specs");
    ASSERT_EQ(run("--out-dir relative specs/alpha.json specs/beta_gamma.json").exit_code, 0);
    ASSERT_EQ(run("--out-dir " + shell_quoted((work_ / "absolute").string()) + " " +
                  shell_quoted((absolute_specs / "alpha.json").string()) + " " +
                  shell_quoted((absolute_specs / "beta_gamma.json").string()))
                  .exit_code,
              0);
    ASSERT_EQ(run("--out-dir dotted ./specs/../specs/alpha.json ./specs/beta_gamma.json").exit_code, 0);
    const auto relative = contents_of(work_ / "relative");
    EXPECT_EQ(relative.size(), 8u);
    EXPECT_EQ(contents_of(work_ / "absolute"), relative);
    EXPECT_EQ(contents_of(work_ / "dotted"), relative);
    // The banner names the spec file only, never a folder.
    EXPECT_EQ(relative.at("alpha.h").find("specs/"), std::string::npos);
    EXPECT_EQ(relative.at("alpha.h").find(work_.string()), std::string::npos);
}

TEST_F(CliTest, RepeatedFreshRunsAreByteIdentical) {
    write_spec("alpha.json", kAlpha);
    write_spec("beta_gamma.json", kBetaGamma);
    ASSERT_EQ(run("--out-dir first alpha.json beta_gamma.json").exit_code, 0);
    ASSERT_EQ(run("--out-dir second beta_gamma.json alpha.json").exit_code, 0);
    EXPECT_EQ(contents_of(work_ / "first"), contents_of(work_ / "second"));
    expect_no_temporaries(work_ / "first");
    expect_no_temporaries(work_ / "second");
}

// --unroll sets the unrolling of every kernel whose spec has no "unroll"; a spec's own setting wins.
TEST_F(CliTest, UnrollOptionIsTheRunsDefault) {
    write_spec("plain.json", R"json({"name": "plain", "op": "Gather", "dtype": "float32", "data_shape": [8], "indices_shape": [2]})json");
    write_spec("own.json", R"json({"name": "own", "op": "Gather", "dtype": "float32", "data_shape": [8], "indices_shape": [2], "unroll": 2})json");
    RunResult result = run("--unroll none --out-dir out plain.json own.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(read_text(work_ / "out" / "plain.c").find("unroll none: loops over the index tuples"), std::string::npos);
    EXPECT_NE(read_text(work_ / "out" / "own.c").find("unroll 2:"), std::string::npos);
    result = run("--unroll=full --out-dir out2 plain.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(read_text(work_ / "out2" / "plain.c").find("unroll full: straight-line copies"), std::string::npos);
}

// --prefetch likewise: a run-wide default that a spec's own "prefetch" overrides.
TEST_F(CliTest, PrefetchOptionIsTheRunsDefault) {
    write_spec("plain.json", R"json({"name": "plain", "op": "Gather", "dtype": "float32", "data_shape": [8, 2], "indices_shape": [6]})json");
    write_spec("own.json", R"json({"name": "own", "op": "Gather", "dtype": "float32", "data_shape": [8, 2], "indices_shape": [6], "prefetch": "none"})json");
    RunResult result = run("--prefetch 2 --out-dir out plain.json own.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    const std::string plain = read_text(work_ / "out" / "plain.c");
    EXPECT_NE(plain.find("a loop of index checks, prefetch 2 tuples ahead."), std::string::npos) << plain;
    EXPECT_EQ(read_text(work_ / "out" / "own.c").find("prefetch"), std::string::npos);
    result = run("--prefetch=none --out-dir out2 plain.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(read_text(work_ / "out2" / "plain.c").find("prefetch"), std::string::npos);
    for (const char* mode : {"off", "0", "1025", "", "2x"}) {
        result = run(std::string("--prefetch '") + mode + "' --out-dir out3 plain.json");
        EXPECT_EQ(result.exit_code, 2) << mode;
        EXPECT_EQ(result.err, std::string("kernelgen: unknown --prefetch mode '") + mode +
                                  "' (auto, none or a distance 1..1024)\nTry 'kernelgen --help'.\n");
    }
    result = run("--out-dir out3 plain.json --prefetch");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: --prefetch needs a mode\nTry 'kernelgen --help'.\n");
    EXPECT_FALSE(fs::exists(work_ / "out3"));
}

TEST_F(CliTest, UnrollOptionErrors) {
    write_spec("big.json", R"json({"name": "big", "op": "Gather", "dtype": "float32", "data_shape": [5000], "indices_shape": [5000]})json");
    for (const char* mode : {"fast", "0", "65", "", "4x"}) {
        RunResult result = run(std::string("--unroll '") + mode + "' --out-dir out big.json");
        EXPECT_EQ(result.exit_code, 2) << mode;
        EXPECT_EQ(result.err, std::string("kernelgen: unknown --unroll mode '") + mode +
                                  "' (auto, full, none or a factor 1..64)\nTry 'kernelgen --help'.\n");
    }
    RunResult result = run("--out-dir out big.json --unroll");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "kernelgen: --unroll needs a mode\nTry 'kernelgen --help'.\n");
    // Over the full-unroll cap, the problem is the run's option, not a key of the spec.
    result = run("--unroll full --out-dir out big.json");
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err, "big.json: /: \"full\" unrolling (--unroll full) would take 10000 statements (at most 4096; "
                          "use \"auto\", \"none\" or a factor)\nkernelgen: 1 problem; nothing was written\n");
    EXPECT_FALSE(fs::exists(work_ / "out"));
}

// --- a run's own files: the depfile, and outputs that would replace inputs -------------------------------

// A link planted at the old fixed temporary name and at the depfile itself: neither is written through, and the
// depfile is a regular file holding the rule.
TEST_F(CliTest, DepfileIsNeverWrittenThroughALink) {
    write_spec("k.json", kAlpha);
    write_text(work_ / "victim.txt", "victim\n");
    fs::create_directories(work_ / "out");
    fs::create_symlink("../victim.txt", work_ / "out" / "alpha.d.tmp");
    RunResult first = run("--out-dir out --no-support --depfile out/alpha.d k.json");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(read_text(work_ / "victim.txt"), "victim\n");
    EXPECT_FALSE(fs::is_symlink(work_ / "out" / "alpha.d"));
    EXPECT_EQ(read_text(work_ / "out" / "alpha.d"), "out/alpha.h \\\n out/alpha.c: \\\n k.json\n");
    // A link at the depfile's own name is replaced, not written through; so is one in another folder.
    fs::remove(work_ / "out" / "alpha.d");
    fs::create_symlink("../victim.txt", work_ / "out" / "alpha.d");
    fs::create_directories(work_ / "deps");
    fs::create_symlink("../victim.txt", work_ / "deps" / "alpha.d");
    for (const char* depfile : {"out/alpha.d", "deps/alpha.d"}) {
        RunResult result = run(std::string("--out-dir out --no-support --depfile ") + depfile + " k.json");
        ASSERT_EQ(result.exit_code, 0) << depfile << ": " << result.err;
        EXPECT_FALSE(fs::is_symlink(work_ / depfile)) << depfile;
        EXPECT_EQ(read_text(work_ / depfile), "out/alpha.h \\\n out/alpha.c: \\\n k.json\n") << depfile;
    }
    EXPECT_EQ(read_text(work_ / "victim.txt"), "victim\n");
    expect_no_temporaries(work_ / "out");
    expect_no_temporaries(work_ / "deps");
}

// Every refusal of the depfile comes before anything is written: a missing folder, a name make or Ninja cannot
// read, and a depfile that is an input or an output of the run.
TEST_F(CliTest, DepfileRefusalsWriteNothing) {
    write_spec("k.json", kAlpha);
    const std::string spec_text = read_text(work_ / "k.json");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--out-dir out --depfile nowhere/k.d k.json",
         "kernelgen: --depfile nowhere/k.d: its folder nowhere does not exist (the depfile's folder must exist, or be "
         "--out-dir); nothing was written\n"},
        {"--out-dir out --depfile k.json k.json",
         "kernelgen: --depfile k.json: it is k.json, which this run reads; nothing was written\n"},
        {"--out-dir out --depfile ./out/../k.json k.json",
         "kernelgen: --depfile ./out/../k.json: it is k.json, which this run reads; nothing was written\n"},
        {"--out-dir out --depfile out/alpha.h k.json",
         "kernelgen: --depfile out/alpha.h: it is out/alpha.h, which this run writes; nothing was written\n"},
        {"--out-dir 'o;ut' --depfile k.d k.json",
         "kernelgen: --depfile k.d: the depfile cannot name \"o;ut/alpha.h\": make or Ninja cannot read ';' in a rule "
         "(a depfile's paths may hold letters, digits, bytes from 0x80, spaces and _ . / + , - ~ ( ) { } [ ] @ ! # $ "
         ":); nothing was written\n"},
    };
    for (const auto& [arguments, message] : cases) {
        RunResult result = run(arguments);
        EXPECT_EQ(result.exit_code, 2) << arguments;
        EXPECT_EQ(result.err, message) << arguments;
        EXPECT_EQ(entries_of(work_ / "out"), std::set<std::string>{}) << arguments;
        EXPECT_FALSE(fs::exists(work_ / "o;ut")) << arguments;
        EXPECT_FALSE(fs::exists(work_ / "k.d")) << arguments;
        EXPECT_EQ(read_text(work_ / "k.json"), spec_text) << arguments;
    }
    // Each character make or Ninja cannot read in a spec's path, and control characters, refused by name.
    for (const char ch : std::string("\"'\\;=|%*?&<>`^\t\n\x7f")) {
        const std::string name = std::string("s") + ch + "k.json";
        write_text(work_ / name, kAlpha);
        RunResult result = run("--out-dir out --depfile k.d " + shell_quoted(name));
        EXPECT_EQ(result.exit_code, 2) << name;
        EXPECT_NE(result.err.find("the depfile cannot name"), std::string::npos) << name << ": " << result.err;
        EXPECT_EQ(entries_of(work_ / "out"), std::set<std::string>{}) << name;
        fs::remove(work_ / name);
    }
}

// The paths a depfile carries, as make and Ninja themselves read them: every data file a kernel names, with each
// character the depfile escapes or keeps, is a prerequisite (make: out of date once it is newer; Ninja: in its
// recorded dependencies).
TEST_F(CliTest, DepfileIsReadByMakeAndNinja) {
    const std::string odd = "d a#t$a:(x)[1]{y}@!~+,-\xc3\xa9.npy";
    write_text(work_ / odd, npy_float32({1, 2}));
    write_spec("k.json", R"json({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [2],
        "indices_shape": [1], "data_file": ")json" + odd + "\"}");
    // make: the depfile included, the headers' rule up to date, then out of date once the data file is newer.
    write_text(work_ / "Makefile", "include out/k.d\nout/k.h:\n\t@echo remade\n");
    ASSERT_EQ(run("--out-dir out --no-support --depfile out/k.d k.json").exit_code, 0);
    const auto past = fs::file_time_type::clock::now() - std::chrono::hours(1);
    fs::last_write_time(work_ / "k.json", past);
    fs::last_write_time(work_ / odd, past);
    auto make_question = [&]() {
        const std::string command = "cd " + shell_quoted(work_.string()) + " && make -q out/k.h > /dev/null 2>&1";
        const int status = std::system(command.c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    EXPECT_EQ(make_question(), 0) << read_text(work_ / "out" / "k.d");  // 2 would be a prerequisite misread
    fs::last_write_time(work_ / odd, fs::file_time_type::clock::now() + std::chrono::hours(1));
    EXPECT_EQ(make_question(), 1) << read_text(work_ / "out" / "k.d");
    // Ninja: the rule's depfile read after the run, its dependencies recorded exactly.
    write_text(work_ / "build.ninja", "rule gen\n  command = " + shell_quoted(KERNELGEN_EXECUTABLE_PATH) +
                                          " --out-dir ninja-out --no-support --depfile ninja-out/k.d k.json\n"
                                          "  depfile = ninja-out/k.d\n  deps = gcc\n"
                                          "build ninja-out/k.h ninja-out/k.c: gen\n");
    const std::string ninja = "cd " + shell_quoted(work_.string()) + " && ninja > /dev/null 2>&1 && ninja -t deps > deps.txt";
    ASSERT_EQ(std::system(ninja.c_str()), 0);
    const std::string deps = read_text(work_ / "deps.txt");
    EXPECT_NE(deps.find("\n    k.json\n    " + odd + "\n"), std::string::npos) << deps;
}

// No output may replace a file the run reads: a spec file or a data file with an output's name in the output
// folder (by its name, a second name or a link), or the model of an import.
TEST_F(CliTest, OutputsNeverReplaceTheRunsInputs) {
    fs::create_directories(work_ / "out");
    write_text(work_ / "out" / "alpha.c", kAlpha);  // a spec file named like its kernel's source
    RunResult own_name = run("--out-dir out out/alpha.c");
    EXPECT_EQ(own_name.exit_code, 2);
    EXPECT_EQ(own_name.err, "kernelgen: out/alpha.c: would replace out/alpha.c, which this run reads (write the output "
                            "elsewhere); nothing was written\n");
    EXPECT_EQ(read_text(work_ / "out" / "alpha.c"), kAlpha);
    EXPECT_EQ(entries_of(work_ / "out"), std::set<std::string>{"alpha.c"});
    // The same file under a second name, and through a link.
    fs::create_hard_link(work_ / "out" / "alpha.c", work_ / "hard.json");
    RunResult hard = run("--out-dir out hard.json");
    EXPECT_EQ(hard.exit_code, 2);
    EXPECT_NE(hard.err.find("would replace hard.json, which this run reads"), std::string::npos) << hard.err;
    fs::create_symlink("out/alpha.c", work_ / "link.json");
    RunResult link = run("--out-dir out link.json");
    EXPECT_EQ(link.exit_code, 2);
    EXPECT_NE(link.err.find("would replace link.json, which this run reads"), std::string::npos) << link.err;
    EXPECT_EQ(read_text(work_ / "out" / "alpha.c"), kAlpha);
    // A constant table's data file named like the kernel's table.
    const std::string npy = npy_float32({1, 2});
    write_text(work_ / "out" / "t_data.inc", npy);
    write_text(work_ / "out" / "t.json", R"json({"name": "t", "op": "Gather", "dtype": "float32", "data_shape": [2],
        "indices_shape": [1], "data_file": "t_data.inc"})json");
    RunResult table = run("--out-dir out out/t.json");
    EXPECT_EQ(table.exit_code, 2);
    EXPECT_NE(table.err.find("out/t_data.inc: would replace out/t_data.inc, which this run reads"), std::string::npos)
        << table.err;
    EXPECT_EQ(read_text(work_ / "out" / "t_data.inc"), npy);
    expect_no_temporaries(work_ / "out");
}
