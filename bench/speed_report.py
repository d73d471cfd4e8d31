#!/usr/bin/env python3
"""Time of each benchmark case three ways, from kernels_bench's JSON output: a Markdown table, the targets, and
a chart drawn with gnuplot. Beside them, memcpy of the same bytes in 256-byte calls: what a copy made of
row-sized pieces takes, with no index work (no target).

Run the benchmark first, with repetitions (the median of each is used):
  build/bench/kernels_bench --benchmark_min_time=0.05 --benchmark_repetitions=40 \
      --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
      --benchmark_out=bench.json --benchmark_out_format=json
  bench/speed_report.py bench.json [--chart speed.png] [--check]

Targets: the large copy-bound cases (big_embedding, big_gather_nd, big_scatter_nd_add) within 1.25x of memcpy of
the bytes they move; the large GatherElements at most half the runtime-shaped kernel's time. (The embedded-size
cases are held to instructions, by bench/count_instructions.py: at this size a time is a few hundred nanoseconds.)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

MEMORY_BOUND = {"big_embedding", "big_gather_nd", "big_scatter_nd_add"}
HALF_TIME = {"big_gather_elements"}
DIAGNOSTIC = {"big_gather_nd_in_order": "none (big_gather_nd's kernel reading memcpy's bytes in memcpy's order)",
              "big_gather_nd_few_rows": "none (big_gather_nd's kernel copying its rows from 32 KiB of data)"}
WAYS = ["kernelgen", "runtime_shaped", "memcpy", "memcpy_pieces"]


def medians(path):
    """{case: {way: median CPU time in ns}}, in the benchmark's order (CPU time: a shared machine's waits left out)."""
    with open(path) as f:
        document = json.load(f)
    times = {}
    # In registration order (family_index), which --benchmark_enable_random_interleaving does not keep in the file.
    for bench in sorted(document["benchmarks"], key=lambda b: b.get("family_index", 0)):
        name = bench.get("run_name", bench["name"])
        if bench.get("run_type") == "aggregate" and bench.get("aggregate_name") != "median":
            continue
        case, way = name.split("/")[:2]
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[bench.get("time_unit", "ns")]
        times.setdefault(case, {})[way] = bench["cpu_time"] * scale
    return document.get("context", {}), times


def table(times):
    rows = ["| case | kernelgen | runtime-shaped | memcpy | memcpy in 256 B calls | kernelgen / runtime-shaped "
            "| kernelgen / memcpy | kernelgen / memcpy in 256 B calls | target |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    met = True
    for case, t in times.items():
        vs_runtime = t["kernelgen"] / t["runtime_shaped"]
        vs_memcpy = t["kernelgen"] / t["memcpy"]
        if case in MEMORY_BOUND:
            ok = vs_memcpy <= 1.25
            target = f"kernelgen / memcpy <= 1.25: {'met' if ok else 'NOT met'}"
        elif case in HALF_TIME:
            ok = vs_runtime <= 0.5
            target = f"kernelgen / runtime-shaped <= 0.50: {'met' if ok else 'NOT met'}"
        elif case in DIAGNOSTIC:
            ok, target = True, DIAGNOSTIC[case]
        else:
            ok, target = True, "instructions (table above)"
        met = met and ok
        cells = " | ".join(microseconds(t[w]) for w in WAYS)
        vs_pieces = t["kernelgen"] / t["memcpy_pieces"]
        rows.append(f"| {case} | {cells} | {vs_runtime:.2f} | {vs_memcpy:.2f} | {vs_pieces:.2f} | {target} |")
    return "\n".join(rows) + "\n", met


def microseconds(ns):
    if ns < 1e3:
        return f"{ns:,.0f} ns"
    return f"{ns / 1e3:,.2f} µs" if ns < 1e5 else f"{ns / 1e3:,.0f} µs"


def chart(times, path):
    """Grouped bars: each way's time relative to the runtime-shaped kernel's, per case (log scale)."""
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "times.dat")
        with open(data, "w") as f:
            for case, t in times.items():
                f.write(f"{case} " + " ".join(f"{t[w] / t['runtime_shaped']:.4f}" for w in WAYS) + "\n")
        script = f"""
set terminal pngcairo size 1100,560 font ",10"
set output "{path}"
set title "Time of one call relative to the runtime-shaped kernel (CPU time, median of repetitions; lower is faster)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set logscale y 2
set yrange [0.015625:4]
set ytics ("1/64" 0.015625, "1/32" 0.03125, "1/16" 0.0625, "1/8" 0.125, "1/4" 0.25, "1/2" 0.5, "1" 1, "2" 2)
set rmargin 10
set bmargin 7
set grid ytics
set xtics rotate by -30 noenhanced
set key top center horizontal
plot "{data}" using 2:xtic(1) title "kernelgen" linecolor rgb "#1f77b4", \\
     "" using 3 title "runtime-shaped" linecolor rgb "#bbbbbb", \\
     "" using 4 title "memcpy of the bytes moved" linecolor rgb "#2ca02c", \\
     "" using 5 title "the same memcpy in 256-byte calls" linecolor rgb "#98df8a"
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="kernels_bench --benchmark_out file")
    parser.add_argument("--chart", help="write a PNG chart here (needs gnuplot)")
    parser.add_argument("--check", action="store_true", help="exit 1 unless every target is met")
    args = parser.parse_args()
    context, times = medians(args.json)
    text, met = table(times)
    machine = f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz"
    print(text + f"\nMedian of {context.get('repetitions', 'the')} repetitions each, on {machine}.")
    if args.chart:
        chart(times, args.chart)
    if args.check and not met:
        sys.exit(1)


if __name__ == "__main__":
    main()
