// Google Benchmark: every case of bench/specs/ three ways side by side in one process — kernelgen's kernel,
// the runtime-shaped kernel, and memcpy of the bytes the kernel must move — and that memcpy in 256-byte calls
// (cases.h). Before anything is timed, kernelgen's and the runtime-shaped kernel must agree on every case.
//
//   build/bench/kernels_bench --benchmark_out=bench.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <cstdio>

#include "cases.h"

int main(int argc, char** argv) {
    static const std::vector<bench::Case> cases = bench::make_cases();
    if (!bench::all_agree(cases)) return 1;
    for (const bench::Case& c : cases) {
        const std::pair<const char*, const std::function<void()>*> ways[] = {
            {"kernelgen", &c.kernelgen},
            {"runtime_shaped", &c.runtime_shaped},
            {"memcpy", &c.memcpy},
            {"memcpy_pieces", &c.memcpy_pieces}};
        for (const auto& [way, call] : ways) {
            benchmark::RegisterBenchmark((c.name + "/" + way).c_str(), [&c, call](benchmark::State& state) {
                for (auto _ : state) {
                    (*call)();
                    benchmark::ClobberMemory();
                }
                state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(c.bytes));
            });
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
