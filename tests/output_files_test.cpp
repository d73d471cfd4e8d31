// Writing outputs in a shared or hostile folder (kernelgen/output_files.h): targets that are FIFOs, devices or
// links, links planted at the temporary names, a huge existing target under a memory limit, signals in the middle
// of a write, and two runs on one folder at once. Each case sets up a real folder; the command line runs as a
// real process where the point is the process (exit status, memory, signals from outside).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/output_files_hooks.h"
#include "kernelgen/output_files.h"
#include "text_files.h"

namespace {

namespace fs = std::filesystem;
using testfiles::read_text;
using testfiles::write_text;

std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

std::set<std::string> entries_of(const fs::path& dir) {
    std::set<std::string> names;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) names.insert(entry.path().filename().string());
    return names;
}

std::vector<std::string> temporaries_in(const fs::path& dir) {
    std::vector<std::string> found;
    for (const auto& name : entries_of(dir)) {
        if (name.rfind(".kernelgen-", 0) == 0) found.push_back(name);
    }
    return found;
}

const std::vector<kernelgen::OutputFile> kFiles{
    {"k.h", "header\n"}, {"k.c", "source\n"}, {"m.h", "another header\n"}, {"m.c", "another source\n"}};

class OutputFiles : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        root_ = fs::temp_directory_path() / ("kernelgen_output_files_" + std::to_string(::getpid()) + "_" + test);
        fs::remove_all(root_);
        out_ = root_ / "out";
        outside_ = root_ / "outside";
        fs::create_directories(out_);
        fs::create_directories(outside_);
    }
    void TearDown() override {
        kernelgen::testing_hooks::set_temporary_name_source(nullptr);
        kernelgen::testing_hooks::set_write_observer(nullptr);
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }
    // Runs a shell command line; returns its exit status (-1 unless it exited).
    static int shell(const std::string& command) {
        const int status = std::system(command.c_str());
        return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    // A spec with `kernels` fully unrolled GatherElements kernels of about 330 KB of C each.
    fs::path big_spec(int kernels) const {
        std::string text = "{\"kernels\": [";
        for (int i = 0; i < kernels; ++i) {
            text += std::string(i ? ", " : "") + "{\"name\": \"big" + std::to_string(i) +
                    "\", \"op\": \"GatherElements\", \"dtype\": \"float32\", \"data_shape\": [2000], "
                    "\"indices_shape\": [2000], \"unroll\": \"full\"}";
        }
        const fs::path spec = root_ / "big.json";
        write_text(spec, text + "]}");
        return spec;
    }
    static std::string kernelgen() { return quoted(KERNELGEN_EXECUTABLE_PATH); }

    fs::path root_, out_, outside_;
};

TEST_F(OutputFiles, WritesAndLeavesUnchangedFilesAlone) {
    auto report = kernelgen::write_outputs(out_, kFiles);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.written.size(), 4u);
    EXPECT_EQ(read_text(out_ / "m.c"), "another source\n");
    EXPECT_TRUE(temporaries_in(out_).empty());
    auto changed = kFiles;
    changed[1].content = "source, longer\n";  // another size
    changed[3].content = "another sourcE\n";  // the same size, other bytes
    report = kernelgen::write_outputs(out_, changed);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.written, (std::vector<std::string>{(out_ / "k.c").string(), (out_ / "m.c").string()}));
    EXPECT_EQ(report.unchanged.size(), 2u);
    EXPECT_EQ(read_text(out_ / "m.c"), "another sourcE\n");
}

TEST_F(OutputFiles, RefusesAFifoWithoutOpeningIt) {
    ASSERT_EQ(::mkfifo((out_ / "k.c").c_str(), 0644), 0);
    const auto report = kernelgen::write_outputs(out_, kFiles);  // would block forever if it opened the FIFO
    EXPECT_EQ(report.error, (out_ / "k.c").string() + ": exists and is not a regular file; nothing was written");
    EXPECT_EQ(entries_of(out_), (std::set<std::string>{"k.c"}));
}

TEST_F(OutputFiles, RefusesALinkToADeviceWithoutReadingIt) {
    fs::create_symlink("/dev/zero", out_ / "k.c");  // same size as nothing: never read
    const auto report = kernelgen::write_outputs(out_, kFiles);
    EXPECT_EQ(report.error,
              (out_ / "k.c").string() + ": is a symbolic link to something that is not a regular file; nothing was written");
    EXPECT_EQ(entries_of(out_), (std::set<std::string>{"k.c"}));
}

TEST_F(OutputFiles, ReplacesLinksAndNeverWritesThroughThem) {
    write_text(outside_ / "victim.txt", "precious\n");
    write_text(outside_ / "same.txt", "header\n");  // what k.h would hold: still replaced, not read as "unchanged"
    fs::create_symlink(outside_ / "victim.txt", out_ / "k.c");
    fs::create_symlink(outside_ / "same.txt", out_ / "k.h");
    fs::create_symlink(outside_ / "nowhere.txt", out_ / "m.c");  // dangling
    const auto report = kernelgen::write_outputs(out_, kFiles);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(read_text(outside_ / "victim.txt"), "precious\n");
    EXPECT_EQ(read_text(outside_ / "same.txt"), "header\n");
    EXPECT_FALSE(fs::exists(outside_ / "nowhere.txt"));
    for (const auto& file : kFiles) {
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out_ / file.name))) << file.name;
        EXPECT_EQ(read_text(out_ / file.name), file.content);
    }
}

// The old fixed names (.k.c.kernelgen-tmp) and the exact names a run will try first, planted as links to a folder
// and a file outside, and as a file: the run takes another name and never touches what was planted.
std::vector<std::string> planted_names{"planted1", "planted2", "planted3"};
size_t next_planted = 0;
std::string planted_name() { return next_planted < planted_names.size() ? planted_names[next_planted++] : ""; }

TEST_F(OutputFiles, PlantedLinksAtTemporaryNamesAreNeverFollowed) {
    write_text(outside_ / "victim.txt", "precious\n");
    fs::create_symlink(outside_, out_ / ".kernelgen-planted1");
    fs::create_symlink(outside_ / "victim.txt", out_ / ".kernelgen-planted2");
    write_text(out_ / ".kernelgen-planted3", "someone else's\n");
    for (const auto& file : kFiles) fs::create_symlink(outside_ / "victim.txt", out_ / ("." + file.name + ".kernelgen-tmp"));
    next_planted = 0;
    kernelgen::testing_hooks::set_temporary_name_source(planted_name);
    const auto report = kernelgen::write_outputs(out_, kFiles);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(next_planted, 3u) << "each planted name was tried";
    EXPECT_EQ(entries_of(outside_), (std::set<std::string>{"victim.txt"}));
    EXPECT_EQ(read_text(outside_ / "victim.txt"), "precious\n");
    EXPECT_TRUE(fs::is_symlink(out_ / ".kernelgen-planted1"));
    EXPECT_TRUE(fs::is_symlink(out_ / ".kernelgen-planted2"));
    EXPECT_EQ(read_text(out_ / ".kernelgen-planted3"), "someone else's\n");
    EXPECT_EQ(temporaries_in(out_).size(), 3u) << "only the planted ones";
    for (const auto& file : kFiles) EXPECT_EQ(read_text(out_ / file.name), file.content);
}

TEST_F(OutputFiles, FileNamesStayInTheFolder) {
    for (const std::string name : {"../escape.c", "", ".", "..", "a/b.c"}) {
        const auto report = kernelgen::write_outputs(out_, {{"k.h", "x"}, {name, "y"}});
        EXPECT_NE(report.error.find("not a file name"), std::string::npos) << name;
    }
    EXPECT_TRUE(entries_of(out_).empty());
    EXPECT_FALSE(fs::exists(root_ / "escape.c"));
}

// A signal in the middle of a write (delivered by the run itself, after its second temporary): the temporaries go,
// the targets are as they were, and the next run writes everything.
void raise_term_after_two(const fs::path&, size_t written) {
    if (written == 2) ::raise(SIGTERM);
}
void raise_int_after_one(const fs::path&, size_t written) {
    if (written == 1) ::raise(SIGINT);
}
void kill_after_three(const fs::path&, size_t written) {
    if (written == 3) ::raise(SIGKILL);
}

TEST_F(OutputFiles, SignalsMidWriteRemoveTheTemporaries) {
    write_text(out_ / "k.c", "old source\n");
    for (auto [observer, signal] : {std::pair{raise_term_after_two, SIGTERM}, std::pair{raise_int_after_one, SIGINT}}) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            kernelgen::testing_hooks::set_write_observer(observer);
            kernelgen::write_outputs(out_, kFiles);
            ::_exit(0);  // not reached: the signal ends the process
        }
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFSIGNALED(status)) << "the run should have been ended by its signal";
        EXPECT_EQ(WTERMSIG(status), signal);
        EXPECT_EQ(entries_of(out_), (std::set<std::string>{"k.c"}));
        EXPECT_EQ(read_text(out_ / "k.c"), "old source\n");
    }
    const auto report = kernelgen::write_outputs(out_, kFiles);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.written.size(), 4u);
    EXPECT_TRUE(temporaries_in(out_).empty());
}

// What a SIGKILL leaves: one temporary folder of the documented pattern, which later runs leave alone.
TEST_F(OutputFiles, SigkillLeavesOneTemporaryFolder) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        kernelgen::testing_hooks::set_write_observer(kill_after_three);
        kernelgen::write_outputs(out_, kFiles);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    const auto left = temporaries_in(out_);
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].size(), std::string(kernelgen::kTemporaryFolderPattern).size());
    EXPECT_EQ(entries_of(out_ / left[0]).size(), 3u);
    EXPECT_EQ(entries_of(out_).size(), 1u) << "no target was renamed into place";
    const auto report = kernelgen::write_outputs(out_, kFiles);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(temporaries_in(out_), left) << "another run's folder is never deleted";
}

// The command line on a FIFO target: exit 2 at once (the README's promise), nothing written.
TEST_F(OutputFiles, CommandLineRefusesAFifoTarget) {
    const fs::path spec = root_ / "k.json";
    write_text(spec, R"({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [4, 3], "indices_shape": [2]})");
    ASSERT_EQ(::mkfifo((out_ / "k.c").c_str(), 0644), 0);
    const auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(shell("timeout 20 " + kernelgen() + " --out-dir " + quoted(out_.string()) + " " + quoted(spec.string()) +
                    " 2>" + quoted((root_ / "err.txt").string())),
              2);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
    EXPECT_EQ(read_text(root_ / "err.txt"),
              "kernelgen: " + (out_ / "k.c").string() + ": exists and is not a regular file; nothing was written\n");
    EXPECT_EQ(entries_of(out_), (std::set<std::string>{"k.c"}));
}

// A 1 GiB sparse file where a kernel goes, under a 256 MiB address-space limit: sizes are compared before content,
// so it is replaced without being read.
TEST_F(OutputFiles, AHugeTargetIsReplacedWithoutBeingRead) {
    const fs::path spec = root_ / "k.json";
    write_text(spec, R"({"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [4, 3], "indices_shape": [2]})");
    write_text(out_ / "k.c", "");
    ASSERT_EQ(::truncate((out_ / "k.c").c_str(), off_t{1} << 30), 0);
    ASSERT_EQ(fs::file_size(out_ / "k.c"), uint64_t{1} << 30);
    EXPECT_EQ(shell("ulimit -v 262144 && timeout 60 " + kernelgen() + " --out-dir " + quoted(out_.string()) + " " +
                    quoted(spec.string())),
              0);
    EXPECT_LT(fs::file_size(out_ / "k.c"), 100000u);
    EXPECT_NE(read_text(out_ / "k.c").find("int k("), std::string::npos);
}

// SIGTERM from outside while a large run writes (about 35 MB), then a clean rerun.
TEST_F(OutputFiles, SigtermFromOutsideThenACleanRerun) {
    const fs::path spec = big_spec(100);
    const std::string command = kernelgen() + " --out-dir " + quoted(out_.string()) + " " + quoted(spec.string());
    bool caught_mid_write = false;
    for (int attempt = 0; attempt < 5 && !caught_mid_write; ++attempt) {
        fs::remove_all(out_);
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            ::execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        // Wait for the temporary folder to appear, then a little more so that some temporaries are written.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (temporaries_in(out_).empty() && std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (::waitpid(child, &status, WNOHANG) == child) break;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
        ::kill(child, SIGTERM);
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        caught_mid_write = WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM;
        EXPECT_TRUE(temporaries_in(out_).empty()) << "attempt " << attempt;
        if (caught_mid_write) {
            EXPECT_EQ(entries_of(out_).size(), 0u) << "renaming had not begun";
        }
    }
    EXPECT_TRUE(caught_mid_write) << "no attempt reached the run while it wrote";
    EXPECT_EQ(shell(command), 0);
    EXPECT_EQ(entries_of(out_).size(), 202u);  // 100 kernels and the support files
    EXPECT_TRUE(temporaries_in(out_).empty());
}

// Two runs on one folder at once, writing some kernels both and some each alone: both succeed, and the folder
// ends with every kernel whole and no temporaries.
TEST_F(OutputFiles, TwoConcurrentRunsBothSucceed) {
    const std::string kernel = R"({"name": "NAME", "op": "Gather", "dtype": "float32", "data_shape": [64, 3], "indices_shape": [SIZE]})";
    auto spec = [&](const std::string& name, int size) {
        std::string text = kernel;
        text.replace(text.find("NAME"), 4, name);
        text.replace(text.find("SIZE"), 4, std::to_string(size));
        return text;
    };
    write_text(root_ / "a.json", "{\"kernels\": [" + spec("shared", 5) + ", " + spec("only_a", 6) + "]}");
    write_text(root_ / "b.json", "{\"kernels\": [" + spec("shared", 5) + ", " + spec("only_b", 7) + "]}");
    auto run = [&](const std::string& file, const std::string& status) {
        return "(" + kernelgen() + " --out-dir " + quoted(out_.string()) + " " + quoted((root_ / file).string()) +
               "; echo $? > " + quoted((root_ / status).string()) + ")";
    };
    for (int round = 0; round < 20; ++round) {
        fs::remove_all(out_);
        ASSERT_EQ(shell(run("a.json", "a.status") + " & " + run("b.json", "b.status") + " & wait"), 0);
        EXPECT_EQ(read_text(root_ / "a.status"), "0\n") << "round " << round;
        EXPECT_EQ(read_text(root_ / "b.status"), "0\n") << "round " << round;
        EXPECT_EQ(entries_of(out_), (std::set<std::string>{"kernelgen_support.c", "kernelgen_support.h", "only_a.c",
                                                            "only_a.h", "only_b.c", "only_b.h", "shared.c", "shared.h"}));
        EXPECT_NE(read_text(out_ / "shared.c").find("int shared("), std::string::npos);
    }
}

}  // namespace
