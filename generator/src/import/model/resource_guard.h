// The limits of one `kernelgen import` as a whole: a deadline and a memory budget across every round of shape
// inference and folding, and every node the import then looks at. The work checks the guard as it goes; past a
// limit, check() throws LimitExceeded, which import_model turns into a diagnostic (nothing is written).
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernelgen/import.h"

namespace kernelgen {

// Thrown by ResourceGuard::check() past a limit; what() is the message ("import stopped: ...").
class LimitExceeded : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class ResourceGuard {
public:
    explicit ResourceGuard(const ImportLimits& limits);

    // Throws LimitExceeded when the deadline has passed or the process holds more memory than it held when the
    // guard was made plus the budget. Cheap: the clock is read on every call, the memory in use on every 64th.
    void check();

    // Seconds left before the deadline (at least 1): what a contained child may take at most.
    unsigned seconds_left() const;

    // The message for an allocation that failed (std::bad_alloc: the system, or a ulimit, refused more memory).
    static std::string allocation_failed();

private:
    ImportLimits limits_;
    std::chrono::steady_clock::time_point deadline_;
    uint64_t baseline_ = 0;  // resident memory when the guard was made
    uint64_t calls_ = 0;
};

// The resident memory of this process in bytes (from /proc/self/statm), or 0 when it cannot be read.
uint64_t resident_memory();

}  // namespace kernelgen
