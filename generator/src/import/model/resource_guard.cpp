#include "import/model/resource_guard.h"

#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>

namespace kernelgen {

namespace {

std::string mebibytes(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

uint64_t status_bytes(const std::string& field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.compare(0, field.size() + 1, field + ":") != 0) continue;
        std::istringstream fields(line.substr(field.size() + 1));
        uint64_t kibibytes = 0;
        std::string unit;
        if (fields >> kibibytes >> unit && unit == "kB") return kibibytes << 10;
        return 0;
    }
    return 0;
}

namespace {

// The one data limit of the process: the soft limit found when the first import set it, and how many imports run
// under it.
std::mutex data_limit_mutex;
int data_limit_holders = 0;
rlimit data_limit_before{RLIM_INFINITY, RLIM_INFINITY};
volatile bool data_limit_set = false;  // read by a forked child

}  // namespace

ProcessMemoryLimit::ProcessMemoryLimit(uint64_t bytes) {
    const std::lock_guard<std::mutex> lock(data_limit_mutex);
    if (data_limit_holders > 0) return;  // another import's limit holds
    const uint64_t data = status_bytes("VmData");
    rlimit now{};
    if (data == 0 || ::getrlimit(RLIMIT_DATA, &now) != 0) return;
    const uint64_t wanted = data > RLIM_INFINITY - 1 - bytes ? RLIM_INFINITY - 1 : data + bytes;
    if (now.rlim_cur != RLIM_INFINITY && now.rlim_cur <= wanted) return;  // a lower limit is set already: it stays
    rlimit limited = now;
    limited.rlim_cur = now.rlim_max != RLIM_INFINITY && now.rlim_max < wanted ? now.rlim_max : wanted;
    if (::setrlimit(RLIMIT_DATA, &limited) != 0) return;
    data_limit_before = now;
    data_limit_set = true;
    ++data_limit_holders;
    applied_ = true;
    // An address-space limit refuses first where it leaves less room than this one.
    rlimit space{};
    const uint64_t size = status_bytes("VmSize");
    binding_ = ::getrlimit(RLIMIT_AS, &space) != 0 || space.rlim_cur == RLIM_INFINITY || size == 0 ||
               (space.rlim_cur > size && space.rlim_cur - size >= limited.rlim_cur - data);
}

ProcessMemoryLimit::~ProcessMemoryLimit() {
    if (!applied_) return;
    const std::lock_guard<std::mutex> lock(data_limit_mutex);
    if (--data_limit_holders > 0) return;
    ::setrlimit(RLIMIT_DATA, &data_limit_before);
    data_limit_set = false;
}

void ProcessMemoryLimit::restore_in_child() {
    if (data_limit_set) ::setrlimit(RLIMIT_DATA, &data_limit_before);
}

uint64_t resident_memory() {
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

ResourceGuard::ResourceGuard(const ImportLimits& limits)
    : limits_(limits),
      deadline_(std::chrono::steady_clock::now() + std::chrono::seconds(limits.seconds)),
      baseline_(resident_memory()) {}

void ResourceGuard::check() {
    if (std::chrono::steady_clock::now() >= deadline_) {
        throw LimitExceeded("import stopped: it took more than " + std::to_string(limits_.seconds) +
                            " s (--time-limit SECONDS raises the limit)");
    }
    if (calls_++ % 64 == 0 && resident_memory() > baseline_ + limits_.memory_bytes) throw LimitExceeded(over_memory_limit());
}

std::string ResourceGuard::over_memory_limit() const {
    return "import stopped: it needed more than " + mebibytes(limits_.memory_bytes) +
           " of memory (--memory-limit MIB raises the limit)";
}

unsigned ResourceGuard::seconds_left() const {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline_ - std::chrono::steady_clock::now()).count();
    return left < 1 ? 1u : static_cast<unsigned>(left);
}

std::string ResourceGuard::allocation_failed() {
    return "import stopped: it ran out of memory (the system refused an allocation; a limit such as ulimit -v, or "
           "too little memory)";
}

}  // namespace kernelgen
