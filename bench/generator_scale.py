#!/usr/bin/env python3
"""How the generator scales: the time of one run over 1,000 specs, and lines of C against tensor size.

1. Writes 1,000 spec files (the four operators in turn, float32, embedded-size shapes, "unroll" auto) and
   times one `kernelgen` run over all of them (the best of 3 runs, wall clock).
   Then times a kernel holding a 4 MiB table (a float32 embedding of 16,384 rows of 64, "data_file"): its
   kernelgen run, and arm-none-eabi-gcc -Os compiling it for Cortex-M4F when that compiler is on PATH (best of 3).
2. Generates Gather, GatherElements, GatherND and ScatterND (add) kernels whose tensors grow from 2^4 to
   2^36 elements, under "unroll" auto and none, and counts the lines of the .c file: the code stays bounded
   whatever the tensor size.

Usage: bench/generator_scale.py --kernelgen build/kernelgen [--out report.md]
       bench/generator_scale.py --kernelgen build/kernelgen --doc docs/speed-and-size.md [--update]
With --doc, only the table of lines (deterministic) is made, and it must be the one between the page's
"generator-lines" markers (exit 1 when stale); with --update too, it is rewritten.
"""
import argparse
import array
import json
import os
import shutil
import subprocess
import tempfile
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unroll_report  # noqa: E402

EMBEDDED = [
    {"op": "Gather", "data_shape": [64, 32], "indices_shape": [16], "axis": 0},
    {"op": "GatherElements", "data_shape": [16, 32], "indices_shape": [16, 8], "axis": 1},
    {"op": "GatherND", "data_shape": [32, 16, 8], "indices_shape": [10, 2]},
    {"op": "ScatterND", "data_shape": [32, 16], "indices_shape": [8, 1], "reduction": "add"},
]


def growing(op, n):
    """A kernel of `op` whose data has about 2^n elements (indices a quarter of its rows)."""
    rows, cols = 1 << (n - n // 2), 1 << (n // 2)
    if op == "Gather":
        return {"data_shape": [rows, cols], "indices_shape": [max(rows // 4, 1)], "axis": 0}
    if op == "GatherElements":
        return {"data_shape": [rows, cols], "indices_shape": [rows, max(cols // 4, 1)], "axis": 1}
    if op == "GatherND":
        return {"data_shape": [rows, cols], "indices_shape": [max(rows // 4, 1), 2]}
    return {"data_shape": [rows, cols], "indices_shape": [max(rows // 4, 1), 1], "reduction": "add"}


def run_kernelgen(kernelgen, out_dir, paths, unroll="auto"):
    subprocess.run([kernelgen, "--unroll", unroll, "--out-dir", out_dir, *paths], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernelgen", required=True)
    parser.add_argument("--out")
    parser.add_argument("--doc", help="a page whose table between the generator-lines markers must match")
    parser.add_argument("--update", action="store_true", help="with --doc: rewrite that table")
    args = parser.parse_args()
    report = []
    with tempfile.TemporaryDirectory() as work:
        if not args.doc:
            time_runs(args.kernelgen, work, report)
        table = lines_table(args.kernelgen, work)
    if args.doc:
        unroll_report.doc_table(args.doc, "generator-lines", "\n".join(table) + "\n", args.update)
        return
    unroll_report.write_report("\n".join(report + table) + "\n", args.out)


def time_runs(kernelgen, work, report):
    """One kernelgen run over 1,000 specs, the best of 3."""
    if True:
        paths = []
        for i in range(1000):
            path = os.path.join(work, f"k{i}.json")
            with open(path, "w") as f:
                json.dump({"name": f"k{i}", "dtype": "float32", **EMBEDDED[i % 4]}, f)
            paths.append(path)
        times = []
        for attempt in range(3):
            out_dir = os.path.join(work, f"out{attempt}")
            start = time.perf_counter()
            run_kernelgen(kernelgen, out_dir, paths)
            times.append(time.perf_counter() - start)
        lines = sum(sum(1 for _ in open(os.path.join(out_dir, name))) for name in os.listdir(out_dir))
        report.append(f"One run over 1,000 specs: {min(times):.2f} s (best of 3; {lines:,} lines of C written).\n")
    time_table(kernelgen, work, report)


def best_of_3(command, cwd=None):
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(command, check=True, cwd=cwd)
        times.append(time.perf_counter() - start)
    return min(times)


def time_table(kernelgen, work, report):
    """A kernel that holds a 4 MiB table: generating it, and compiling it for Cortex-M4F."""
    rows, cols = 16384, 64
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    values = array.array("f", (float(i % 1000) / 8 for i in range(rows * cols)))
    with open(os.path.join(work, "table.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + values.tobytes())
    spec = os.path.join(work, "table.json")
    with open(spec, "w") as f:
        json.dump({"name": "table", "op": "Gather", "dtype": "float32", "data_shape": [rows, cols],
                   "indices_shape": [8], "data_file": "table.npy"}, f)
    out_dir = os.path.join(work, "table")
    generation = best_of_3([kernelgen, "--out-dir", out_dir, spec])
    text = f"A kernel holding a 4 MiB table ({rows:,} x {cols} float32, `data_file`): generated in {generation:.2f} s"
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc:
        flags = ["-std=c99", *unroll_report.M4F_FLAGS, "-c", "table.c", "-o", "table.o"]
        text += f", compiled by arm-none-eabi-gcc -Os for Cortex-M4F in {best_of_3([gcc, *flags], cwd=out_dir):.2f} s"
    report.append(text + " (best of 3).\n")


def lines_table(kernelgen, work):
    """Lines of C of one kernel against the element count of its data, "unroll" auto and none."""
    report = ["| data elements | " + " | ".join(f"{e['op']} auto / none" for e in EMBEDDED) + " |",
              "| ---: |" + " ---: |" * len(EMBEDDED)]
    if True:
        for n in (4, 8, 12, 16, 20, 24, 28, 32, 36):
            cells = []
            for e in EMBEDDED:
                counts = []
                for unroll in ("auto", "none"):
                    name = f"{e['op'].lower()}_{n}_{unroll}"
                    path = os.path.join(work, name + ".json")
                    with open(path, "w") as f:
                        json.dump({"name": name, "op": e["op"], "dtype": "float32", **growing(e["op"], n)}, f)
                    run_kernelgen(kernelgen, os.path.join(work, "grow"), [path], unroll)
                    counts.append(sum(1 for _ in open(os.path.join(work, "grow", name + ".c"))))
                cells.append(f"{counts[0]} / {counts[1]}")
            report.append(f"| 2^{n} | " + " | ".join(cells) + " |")
    return report


if __name__ == "__main__":
    main()
