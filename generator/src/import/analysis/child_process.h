// Running a piece of work that kernelgen cannot vouch for (ONNX's shape inference on a model an attacker may have
// written) in a child process, under limits of memory, CPU time and wall time, so that a crash, a runaway
// allocation or an endless loop ends the child, never kernelgen.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace kernelgen {

struct ChildLimits {
    uint64_t memory_bytes = uint64_t{2} << 30;  // address space the child may add to what it starts with
    unsigned cpu_seconds = 60;                    // CPU time, then SIGXCPU (and SIGKILL a second later)
    unsigned wall_seconds = 120;                  // wall time, then the parent kills the child
    uint64_t max_output_bytes = uint64_t{1} << 30;  // what the child may send back
};

struct ChildOutcome {
    bool ok = false;
    std::string output;   // what the work returned, when ok
    std::string failure;  // why not, when not ok: "signal 8 (Floating point exception)", "needed more than ..."
};

// Forks, runs `work` in the child under `limits` (no core dump either), and returns what it returned. An
// exception in the work is a failure carrying its message; so is anything that ends the child otherwise.
// The calling process must be single-threaded (or the work must not need locks other threads may hold).
ChildOutcome run_contained(const std::function<std::string()>& work, const ChildLimits& limits);

}  // namespace kernelgen
