#include "kernelgen/output_files.h"

#include "common/output_files_hooks.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <random>
#include <system_error>

namespace kernelgen {

namespace {

namespace fs = std::filesystem;

std::string errno_text(int error) { return std::strerror(error); }

// A file descriptor closed when it goes out of scope.
class Descriptor {
public:
    explicit Descriptor(int fd = -1) : fd_(fd) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }
    // Closes now and says whether close() succeeded (it reports a failed write on some file systems).
    bool close() {
        const int fd = fd_;
        fd_ = -1;
        return ::close(fd) == 0;
    }

private:
    int fd_;
};

// --- the random part of the temporary folder's name -----------------------------------------------------------

std::atomic<testing_hooks::NameSource> name_source{nullptr};
std::atomic<testing_hooks::WriteObserver> write_observer{nullptr};

std::string random_name_part(size_t length) {
    if (auto source = name_source.load()) {
        std::string name = source();
        if (!name.empty()) return name;
    }
    static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string out;
    try {
        std::random_device device;  // getrandom() on Linux
        while (out.size() < length) out += kAlphabet[device() % 36];
    } catch (const std::exception&) {
        // No entropy source: unpredictable enough for a name that is created exclusively anyway.
        static std::atomic<uint64_t> counter{0};
        std::mt19937_64 mix(static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                            (static_cast<uint64_t>(::getpid()) << 32) ^ counter.fetch_add(1));
        out.clear();
        while (out.size() < length) out += kAlphabet[mix() % 36];
    }
    return out;
}

// A temporary folder's name: kTemporaryFolderPattern with its X's random.
std::string temporary_folder_name() {
    const std::string pattern = kTemporaryFolderPattern;
    const size_t random_from = pattern.find('X');
    return pattern.substr(0, random_from) + random_name_part(pattern.size() - random_from);
}

// --- removing the temporaries on a signal -----------------------------------------------------------------

// What the signal handler removes: the temporaries created so far and their folder. Set up completely before
// the handler can see it; `created` only grows, and is raised *before* each file is created, so a signal
// between the two removes a file that may not exist yet (harmless: nobody else writes in that folder).
struct Cleanup {
    int dir_fd = -1;
    int temporary_fd = -1;
    const char* temporary_name = nullptr;     // inside dir_fd
    const std::vector<std::string>* names = nullptr;  // inside temporary_fd
    volatile sig_atomic_t created = 0;
};

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr size_t kSignalCount = sizeof(kCleanupSignals) / sizeof(kCleanupSignals[0]);
Cleanup* volatile active_cleanup = nullptr;
struct sigaction previous_actions[kSignalCount];
bool installed[kSignalCount];
std::atomic<bool> cleanup_busy{false};

void remove_temporaries(const Cleanup& cleanup) {
    for (sig_atomic_t i = 0; i < cleanup.created; ++i) {
        ::unlinkat(cleanup.temporary_fd, (*cleanup.names)[static_cast<size_t>(i)].c_str(), 0);
    }
    ::unlinkat(cleanup.dir_fd, cleanup.temporary_name, AT_REMOVEDIR);
}

extern "C" void remove_temporaries_and_reraise(int signal_number) {
    // Only async-signal-safe calls: unlinkat, sigaction, raise.
    if (Cleanup* cleanup = active_cleanup) remove_temporaries(*cleanup);
    for (size_t i = 0; i < kSignalCount; ++i) {
        if (kCleanupSignals[i] == signal_number) ::sigaction(signal_number, &previous_actions[i], nullptr);
    }
    ::raise(signal_number);  // delivered with the previous disposition once this handler returns
}

// Installs the handler for the lifetime of the guard (unless another thread's write holds it, or a signal is
// ignored, as under nohup), and restores what was there before.
class SignalGuard {
public:
    explicit SignalGuard(Cleanup& cleanup) {
        bool expected = false;
        if (!cleanup_busy.compare_exchange_strong(expected, true)) return;
        owner_ = true;
        active_cleanup = &cleanup;
        struct sigaction action {};
        action.sa_handler = remove_temporaries_and_reraise;
        sigemptyset(&action.sa_mask);
        for (int s : kCleanupSignals) sigaddset(&action.sa_mask, s);
        for (size_t i = 0; i < kSignalCount; ++i) {
            installed[i] = false;
            if (::sigaction(kCleanupSignals[i], nullptr, &previous_actions[i]) != 0) continue;
            if (previous_actions[i].sa_handler == SIG_IGN) continue;
            installed[i] = ::sigaction(kCleanupSignals[i], &action, nullptr) == 0;
        }
    }
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;
    ~SignalGuard() {
        if (!owner_) return;
        for (size_t i = 0; i < kSignalCount; ++i) {
            if (installed[i]) ::sigaction(kCleanupSignals[i], &previous_actions[i], nullptr);
        }
        active_cleanup = nullptr;
        cleanup_busy.store(false);
    }

private:
    bool owner_ = false;
};

// Holds the cleanup signals back from the creation of the temporary folder until the handler that removes it is
// in place (a signal in between would leave the folder behind); a signal that came meanwhile is delivered on
// release, to the handler.
class HeldSignals {
public:
    HeldSignals() {
        sigset_t held;
        sigemptyset(&held);
        for (int s : kCleanupSignals) sigaddset(&held, s);
        held_ = ::pthread_sigmask(SIG_BLOCK, &held, &previous_) == 0;
    }
    HeldSignals(const HeldSignals&) = delete;
    HeldSignals& operator=(const HeldSignals&) = delete;
    ~HeldSignals() { release(); }
    void release() {
        if (held_) ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
        held_ = false;
    }

private:
    sigset_t previous_;
    bool held_ = false;
};

// --- examining a target -----------------------------------------------------------------------------------

enum class Target { Missing, Unchanged, Changed, NotRegular, LinkToNotRegular, Unreadable };

// Whether the open regular file `fd` holds exactly `content` (whose size it was found to have).
bool holds(int fd, const std::string& content) {
    constexpr size_t kChunk = size_t{64} << 10;
    char buffer[kChunk];
    size_t at = 0;
    while (at < content.size()) {
        const ssize_t got = ::read(fd, buffer, std::min(kChunk, content.size() - at));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        if (std::memcmp(buffer, content.data() + at, static_cast<size_t>(got)) != 0) return false;
        at += static_cast<size_t>(got);
    }
    char extra;
    return ::read(fd, &extra, 1) == 0;  // and nothing more
}

// What stands at `name` in the folder: examined with lstat() before anything opens it; a regular file of the
// right size is opened without following links and without blocking, and compared chunk by chunk.
Target examine(int dir_fd, const std::string& name, const std::string& content, int& error) {
    struct stat status {};
    if (::fstatat(dir_fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0) {
        error = errno;
        return errno == ENOENT ? Target::Missing : Target::Unreadable;
    }
    if (S_ISLNK(status.st_mode)) {
        // Never written through: replaced by the new file when it leads to a regular file or nowhere.
        struct stat target {};
        if (::fstatat(dir_fd, name.c_str(), &target, 0) != 0) return Target::Changed;
        return S_ISREG(target.st_mode) ? Target::Changed : Target::LinkToNotRegular;
    }
    if (!S_ISREG(status.st_mode)) return Target::NotRegular;
    if (static_cast<uint64_t>(status.st_size) != content.size()) return Target::Changed;
    Descriptor file(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (file.get() < 0) return Target::Changed;  // unreadable: replaced
    struct stat opened {};
    if (::fstat(file.get(), &opened) != 0) return Target::Changed;
    if (!S_ISREG(opened.st_mode)) return Target::NotRegular;  // swapped since the lstat()
    if (opened.st_dev != status.st_dev || opened.st_ino != status.st_ino) return Target::Changed;
    return holds(file.get(), content) ? Target::Unchanged : Target::Changed;
}

// A file's identity: its device and inode.
struct Identity {
    dev_t device;
    ino_t inode;
    bool operator==(const Identity& other) const { return device == other.device && inode == other.inode; }
};

// An input of the run: the identities of its name (lstat: the directory entry, a link itself) and of the file it
// names (stat: through links), where they exist.
struct InputIdentity {
    std::string shown;
    std::optional<Identity> entry, file;
};

std::optional<Identity> identity(int dir_fd, const char* path, int flags) {
    struct stat status {};
    if (::fstatat(dir_fd, path, &status, flags) != 0) return std::nullopt;
    return Identity{status.st_dev, status.st_ino};
}

std::vector<InputIdentity> input_identities(const std::vector<fs::path>& inputs) {
    std::vector<InputIdentity> out;
    for (const auto& input : inputs) {
        out.push_back({input.string(), identity(AT_FDCWD, input.c_str(), AT_SYMLINK_NOFOLLOW),
                       identity(AT_FDCWD, input.c_str(), 0)});
    }
    return out;
}

// The input that the target `name` in the folder is, if any: the same directory entry, or the same file (a hard
// link, or a target that is a link to the input).
const InputIdentity* replaced_input(int dir_fd, const std::string& name, const std::vector<InputIdentity>& inputs) {
    const auto entry = identity(dir_fd, name.c_str(), AT_SYMLINK_NOFOLLOW);
    if (!entry) return nullptr;
    const auto file = identity(dir_fd, name.c_str(), 0);
    for (const auto& input : inputs) {
        if ((input.entry && *input.entry == *entry) || (file && input.file && *input.file == *file)) return &input;
    }
    return nullptr;
}

bool valid_file_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\0') == std::string::npos;
}

bool write_all(int fd, const std::string& content) {
    size_t at = 0;
    while (at < content.size()) {
        const ssize_t wrote = ::write(fd, content.data() + at, content.size() - at);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return false;
        at += static_cast<size_t>(wrote);
    }
    return true;
}

}  // namespace

namespace testing_hooks {
void set_temporary_name_source(NameSource next) { name_source.store(next); }
void set_write_observer(WriteObserver observer) { write_observer.store(observer); }
}  // namespace testing_hooks

namespace {

// Step 1: every target examined before anything is created, so that a refusal leaves the folder as it was. Fills
// `pending` with the files to write (the others are unchanged, listed in the report); false on a refusal.
bool examine_targets(int dir_fd, const fs::path& dir, const std::vector<OutputFile>& files,
                     const std::vector<fs::path>& inputs, std::vector<const OutputFile*>& pending, WriteReport& report) {
    const std::vector<InputIdentity> input_files = input_identities(inputs);
    for (const auto& file : files) {
        const std::string target = (dir / file.name).string();
        if (!valid_file_name(file.name)) {
            report.error = target + ": not a file name (internal error); nothing was written";
            return false;
        }
        auto refuse = [&](const std::string& why) {
            report.error = target + ": " + why + "; nothing was written";
            report.unchanged.clear();
            return false;
        };
        if (const InputIdentity* input = replaced_input(dir_fd, file.name, input_files)) {
            return refuse("would replace " + input->shown + ", which this run reads (write the output elsewhere)");
        }
        int examine_error = 0;
        switch (examine(dir_fd, file.name, file.content, examine_error)) {
            case Target::Unchanged: report.unchanged.push_back(target); break;
            case Target::Missing:
            case Target::Changed: pending.push_back(&file); break;
            case Target::NotRegular: return refuse("exists and is not a regular file");
            case Target::LinkToNotRegular: return refuse("is a symbolic link to something that is not a regular file");
            case Target::Unreadable: return refuse("cannot examine the file: " + errno_text(examine_error));
        }
    }
    return true;
}

// Step 2: the run's private temporary folder, created exclusively under an unpredictable name; "" on failure
// (reported).
std::string make_temporary_folder(int dir_fd, const fs::path& dir, WriteReport& report) {
    for (int attempt = 0;; ++attempt) {
        std::string name = temporary_folder_name();
        if (::mkdirat(dir_fd, name.c_str(), 0700) == 0) return name;
        if (errno != EEXIST || attempt == 99) {
            report.error = (dir / name).string() + ": cannot create a temporary folder: " + errno_text(errno) +
                           "; nothing was written";
            return "";
        }
    }
}

// Step 3: each pending file written into the temporary folder and flushed; the message of the first failure, or "".
std::string write_temporaries(const fs::path& shown_folder, int temporary_fd, Cleanup& cleanup,
                              const std::vector<const OutputFile*>& pending, const std::vector<std::string>& names) {
    // Each file's writeback starts as soon as it is written; once all are written, one syncfs() waits for them
    // all (on Linux; elsewhere, or if it fails, an fdatasync() of each). Both flush the data before any rename:
    // one call for the whole run instead of one flush per file, which cost 0.3 ms a file here.
    for (size_t i = 0; i < pending.size(); ++i) {
        const std::string shown = (shown_folder / names[i]).string();
        cleanup.created = static_cast<sig_atomic_t>(i + 1);
        Descriptor out(::openat(temporary_fd, names[i].c_str(),
                                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666));
        if (out.get() < 0) return shown + ": cannot create the file: " + errno_text(errno) + "; nothing was written";
        if (!write_all(out.get(), pending[i]->content)) {
            return shown + ": cannot write the file: " + errno_text(errno) + "; nothing was written";
        }
#ifdef SYNC_FILE_RANGE_WRITE
        ::sync_file_range(out.get(), 0, 0, SYNC_FILE_RANGE_WRITE);  // a head start only
#endif
        if (!out.close()) return shown + ": cannot write the file: " + errno_text(errno) + "; nothing was written";
        if (auto observer = write_observer.load()) observer(shown_folder, i + 1);
    }
    bool flushed = false;
#ifdef __linux__
    flushed = ::syncfs(temporary_fd) == 0;
#endif
    for (size_t i = 0; i < pending.size() && !flushed; ++i) {
        Descriptor in(::openat(temporary_fd, names[i].c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        if (in.get() < 0 || ::fdatasync(in.get()) != 0) {
            return (shown_folder / names[i]).string() + ": cannot write the file to disk: " + errno_text(errno) +
                   "; nothing was written";
        }
    }
    return "";
}

}  // namespace

WriteReport write_outputs(const fs::path& dir, const std::vector<OutputFile>& files, const std::vector<fs::path>& inputs) {
    WriteReport report;
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        // Where a file stands in the folder's way (the folder itself, or one of the folders above it), that file
        // is named: "Not a directory" alone does not say which.
        for (fs::path at = dir; !at.empty(); at = at.parent_path()) {
            std::error_code status_error;
            const fs::file_status status = fs::status(at, status_error);
            if (fs::exists(status)) {
                if (fs::is_directory(status)) break;
                report.error = at == dir ? dir.string() + ": exists and is not a folder (the output folder)"
                                         : dir.string() + ": cannot create the folder: " + at.string() + " exists and is not a folder";
                return report;
            }
            if (at == at.parent_path()) break;
        }
        report.error = dir.string() + ": cannot create the folder: " + error.message();
        return report;
    }
    Descriptor dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir_fd.get() < 0) {
        report.error = dir.string() + ": cannot open the folder: " + errno_text(errno);
        return report;
    }
    // One run at a time writes into a folder: an exclusive lock on the folder itself, held until this returns (the
    // descriptor closes), so that two runs' files never interleave (a report always beside its own run's specs).
    // A file system without locks (some network ones) is written without.
    while (::flock(dir_fd.get(), LOCK_EX) != 0 && errno == EINTR) {
    }
    std::vector<const OutputFile*> pending;
    if (!examine_targets(dir_fd.get(), dir, files, inputs, pending, report) || pending.empty()) return report;

    HeldSignals held;
    const std::string temporary_name = make_temporary_folder(dir_fd.get(), dir, report);
    if (temporary_name.empty()) return report;
    Descriptor temporary_fd(::openat(dir_fd.get(), temporary_name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (temporary_fd.get() < 0) {
        report.error = (dir / temporary_name).string() + ": cannot open the temporary folder: " + errno_text(errno) +
                       "; nothing was written";
        ::unlinkat(dir_fd.get(), temporary_name.c_str(), AT_REMOVEDIR);
        return report;
    }
    std::vector<std::string> names;
    names.reserve(pending.size());
    for (const OutputFile* file : pending) names.push_back(file->name);
    Cleanup cleanup;
    cleanup.dir_fd = dir_fd.get();
    cleanup.temporary_fd = temporary_fd.get();
    cleanup.temporary_name = temporary_name.c_str();
    cleanup.names = &names;
    SignalGuard guard(cleanup);
    held.release();
    auto fail = [&](const std::string& message) {
        report.error = message;
        remove_temporaries(cleanup);
        return report;
    };
    const std::string problem = write_temporaries(dir / temporary_name, temporary_fd.get(), cleanup, pending, names);
    if (!problem.empty()) return fail(problem);
    // Step 4: the renames, once every file is written and flushed.
    for (size_t i = 0; i < pending.size(); ++i) {
        const std::string target = (dir / names[i]).string();
        if (::renameat(temporary_fd.get(), names[i].c_str(), dir_fd.get(), names[i].c_str()) != 0) {
            // Renames are atomic one by one, not together: say exactly which files are already new.
            const std::string why = errno_text(errno);
            return fail(target + ": cannot replace the file: " + why + "; " +
                        (report.written.empty() ? std::string("nothing was written")
                                                : std::to_string(report.written.size()) +
                                                      " file(s) already replaced, the others left as they were"));
        }
        report.written.push_back(target);
    }
    ::fsync(dir_fd.get());  // the renames themselves; a file system that cannot sync a folder still renamed
    remove_temporaries(cleanup);  // only the empty folder is left to remove
    return report;
}

}  // namespace kernelgen
