#include "import/model/resource_guard.h"

#include <unistd.h>

#include <fstream>

namespace kernelgen {

namespace {

std::string mebibytes(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

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
    if (calls_++ % 64 == 0 && resident_memory() > baseline_ + limits_.memory_bytes) {
        throw LimitExceeded("import stopped: it needed more than " + mebibytes(limits_.memory_bytes) +
                            " of memory (--memory-limit MIB raises the limit)");
    }
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
