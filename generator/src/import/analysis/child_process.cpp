#include "import/analysis/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <new>

#include "import/model/resource_guard.h"

namespace kernelgen {

namespace {

// The child's first byte says how the work ended.
constexpr char kDone = 'O', kThrew = 'E', kOutOfMemory = 'M';

// Address space in use now (bytes), from /proc/self/statm; 0 when unknown.
uint64_t address_space_in_use() {
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0;
    if (!(statm >> pages)) return 0;
    return pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

void write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t wrote = ::write(fd, data, size);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return;
        data += wrote;
        size -= static_cast<size_t>(wrote);
    }
}

[[noreturn]] void run_child(int out, const std::function<std::string()>& work, const ChildLimits& limits) {
    // A fault ends the child plainly, whatever handlers the parent installed (a fuzzer's or a sanitizer's would
    // report the parent's "crash" from inside the child).
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGINT, SIGTERM}) ::signal(s, SIG_DFL);
    // The import's own memory limit is its process's: the child has the limits below instead.
    ProcessMemoryLimit::restore_in_child();
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    const rlimit cpu{limits.cpu_seconds, limits.cpu_seconds + 1};
    ::setrlimit(RLIMIT_CPU, &cpu);
    if (const uint64_t in_use = address_space_in_use()) {
        const rlim_t most = static_cast<rlim_t>(in_use + limits.memory_bytes);
        const rlimit memory{most, most};
        ::setrlimit(RLIMIT_AS, &memory);
    }
    std::string message;
    try {
        message = kDone + work();
    } catch (const std::bad_alloc&) {
        message = std::string(1, kOutOfMemory);
    } catch (const std::exception& error) {
        message = kThrew + std::string(error.what());
    } catch (...) {
        message = kThrew + std::string("an exception that is not a std::exception");
    }
    write_all(out, message.data(), message.size());
    ::_exit(0);  // no atexit handlers, no flushing of the parent's buffered output
}

std::string megabytes(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// What the parent read of the child's result: its bytes, and whether the reading stopped at a limit.
struct Received {
    std::string bytes;
    bool timed_out = false;
    bool too_large = false;
};

// Reads `fd` until the child closes its end, the output grows too large, or the wall time is up.
Received receive(int fd, const ChildLimits& limits) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::seconds(limits.wall_seconds);
    Received received;
    char buffer[1 << 16];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            received.timed_out = true;
            return received;
        }
        pollfd wait_for{fd, POLLIN, 0};
        const int ready = ::poll(&wait_for, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) return received;
        if (ready <= 0) continue;
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got <= 0) return received;
        received.bytes.append(buffer, static_cast<size_t>(got));
        if (received.bytes.size() > limits.max_output_bytes + 1) {
            received.too_large = true;
            return received;
        }
    }
}

}  // namespace

ChildOutcome run_contained(const std::function<std::string()>& work, const ChildLimits& limits) {
    ChildOutcome outcome;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        outcome.failure = std::string("cannot create a pipe: ") + std::strerror(errno);
        return outcome;
    }
    const pid_t child = ::fork();
    if (child < 0) {
        outcome.failure = std::string("cannot start a process: ") + std::strerror(errno);
        ::close(fds[0]);
        ::close(fds[1]);
        return outcome;
    }
    if (child == 0) {
        ::close(fds[0]);
        run_child(fds[1], work, limits);
    }
    ::close(fds[1]);

    const Received received_from_child = receive(fds[0], limits);
    const std::string& received = received_from_child.bytes;
    const bool timed_out = received_from_child.timed_out, too_large = received_from_child.too_large;
    ::close(fds[0]);
    if (timed_out || too_large) ::kill(child, SIGKILL);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }

    if (timed_out) {
        outcome.failure = "it took more than " + std::to_string(limits.wall_seconds) + " s";
    } else if (too_large) {
        outcome.failure = "its result passed " + megabytes(limits.max_output_bytes);
    } else if (WIFSIGNALED(status)) {
        const int signal_number = WTERMSIG(status);
        if (signal_number == SIGXCPU || (signal_number == SIGKILL && received.empty())) {
            // SIGKILL with nothing sent: the hard CPU limit (or the system's out-of-memory killer).
            outcome.failure = signal_number == SIGXCPU
                                  ? "it used more than " + std::to_string(limits.cpu_seconds) + " s of CPU time"
                                  : "it was killed (signal 9: the CPU limit of " + std::to_string(limits.cpu_seconds) +
                                        " s, or the system ran out of memory)";
        } else {
            const char* name = ::strsignal(signal_number);
            outcome.failure = "signal " + std::to_string(signal_number) + (name ? std::string(", ") + name : std::string());
        }
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || received.empty()) {
        outcome.failure = "it ended without a result (exit status " +
                          std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
    } else if (received[0] == kOutOfMemory) {
        outcome.failure = "it needed more than " + megabytes(limits.memory_bytes) + " of memory";
    } else if (received[0] == kThrew) {
        outcome.failure = received.substr(1);
    } else if (received[0] == kDone) {
        outcome.ok = true;
        outcome.output = received.substr(1);
    } else {
        outcome.failure = "it sent a malformed result";
    }
    return outcome;
}

}  // namespace kernelgen
