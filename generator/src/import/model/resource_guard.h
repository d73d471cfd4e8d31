// The limits of one `kernelgen import` as a whole: a deadline and a memory budget across every round of shape
// inference and folding, and every node the import then looks at. The work checks the guard as it goes; past a
// limit, check() throws LimitExceeded, which import_model turns into a diagnostic (nothing is written).
#pragma once

#include <sys/resource.h>

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
    // The message for an import past its memory limit.
    std::string over_memory_limit() const;

private:
    ImportLimits limits_;
    std::chrono::steady_clock::time_point deadline_;
    uint64_t baseline_ = 0;  // resident memory when the guard was made
    uint64_t calls_ = 0;
};

// The memory limit as the system enforces it, for the life of the object (an import): the process's data segment
// (RLIMIT_DATA: the heap and every private writable mapping, which is where allocations come from) may grow by at
// most `bytes` beyond what it holds when the object is made (VmData of /proc/self/status, which counts what a
// sanitizer reserved up front too). An allocation past it fails at once (std::bad_alloc) rather than growing the
// process, however the memory is used between two checks of the guard. The soft limit it found is restored when the
// object ends; a lower limit already set (ulimit -d) is kept. The limit is the process's: while one import holds it,
// another running at the same time in the process changes nothing. A forked child (inference) goes back to the
// limit there was before (child_process.cpp), under limits of its own.
class ProcessMemoryLimit {
public:
    explicit ProcessMemoryLimit(uint64_t bytes);
    ~ProcessMemoryLimit();
    ProcessMemoryLimit(const ProcessMemoryLimit&) = delete;
    ProcessMemoryLimit& operator=(const ProcessMemoryLimit&) = delete;

    // Whether this limit, rather than another one (an address-space limit such as ulimit -v closer to what the
    // process holds), is what refuses an allocation first: what an allocation that failed is reported as.
    bool binding() const { return binding_; }

    // In a child just forked: the soft data limit there was before any import set one (async-signal-safe).
    static void restore_in_child();

private:
    bool applied_ = false;
    bool binding_ = false;
};

// The resident memory of this process in bytes (from /proc/self/statm), or 0 when it cannot be read.
uint64_t resident_memory();

// A field of /proc/self/status in bytes ("VmData", "VmSize"), or 0 when it cannot be read.
uint64_t status_bytes(const std::string& field);

}  // namespace kernelgen
