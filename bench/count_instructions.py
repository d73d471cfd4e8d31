#!/usr/bin/env python3
"""x86 instructions of one call of each benchmark case, three ways, counted by callgrind.

Runs build/bench/count_calls under `valgrind --tool=callgrind --collect-atstart=no`: the program calls every case
of bench/specs/ once as kernelgen's kernel, once as the runtime-shaped kernel (bench/runtime_shaped.c) and once
as memcpy of the bytes the kernel moves, each between callgrind client requests, and callgrind dumps the
instructions of each call on its own. Counts are deterministic for one binary, so they can be compared on a
noisy machine, and the same on every x86-64 machine: count_calls is compiled for baseline x86-64
(bench/counted/CMakeLists.txt), and glibc is given its baseline SSE2 memcpy whatever the CPU
(unroll_report.valgrind_env).

Target (embedded-size cases): kernelgen at most half the runtime-shaped kernel's instructions, geometric mean.

Usage: bench/count_instructions.py --count-calls build/bench/count_calls [--json counts.json] [--check]
                                   [--doc docs/speed-and-size.md [--update]]
With --doc, the table between the page's "instructions" markers must be the one counted (exit 1 when stale);
with --update too, it is rewritten.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unroll_report  # noqa: E402

EMBEDDED_PREFIX = "emb_"
WAYS = ["kernelgen", "runtime_shaped", "memcpy"]


def count(program, other_cpu=()):
    """{case: {way: instructions}} from one callgrind run of count_calls, with glibc pinned to baseline x86-64's
    copy (unroll_report.valgrind_env; `other_cpu` masks more of the CPU's features from glibc)."""
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "callgrind.out")
        result = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}",
                                 program], capture_output=True, text=True, env=unroll_report.valgrind_env(other_cpu))
        if result.returncode != 0:
            sys.exit(f"count_calls failed under valgrind:\n{result.stdout}{result.stderr}")
        counts = {}
        for path in glob.glob(out + ".*"):
            with open(path) as f:
                text = f.read()
            label = re.search(r"^desc: Trigger: Client Request: (\S+)$", text, re.M)
            total = re.search(r"^summary: (\d+)$", text, re.M)
            if label and total:
                case, way = label.group(1).split("/")
                counts.setdefault(case, {})[way] = int(total.group(1))
    if not counts:
        sys.exit("no callgrind dumps found")
    return counts


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(counts):
    rows = ["| case | kernelgen | runtime-shaped | memcpy | kernelgen / runtime-shaped |",
            "| --- | ---: | ---: | ---: | ---: |"]
    for case, ways in counts.items():
        ratio = ways["kernelgen"] / ways["runtime_shaped"]
        rows.append(f"| {case} | {ways['kernelgen']:,} | {ways['runtime_shaped']:,} | {ways['memcpy']:,} | {ratio:.2f} |")
    embedded = [w["kernelgen"] / w["runtime_shaped"] for c, w in counts.items() if c.startswith(EMBEDDED_PREFIX)]
    mean = geometric_mean(embedded)
    verdict = "met" if mean <= 0.5 else "NOT met"
    text = "\n".join(rows) + (f"\n\nEmbedded-size cases, kernelgen / runtime-shaped instructions, geometric mean: "
                              f"**{mean:.2f}** (target at most 0.50: {verdict}).\n")
    return text, mean


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count-calls", required=True, help="the count_calls program (build/bench/count_calls)")
    parser.add_argument("--json", help="also write the counts here")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the target is met")
    parser.add_argument("--doc", help="a page whose table between the instructions markers must match")
    parser.add_argument("--update", action="store_true", help="with --doc: rewrite that table")
    args = parser.parse_args()
    counts = count(args.count_calls)
    order = ["emb_gather_rows", "emb_gather_rows_small", "emb_gather_axis1", "emb_gather_elements", "emb_gather_nd",
             "emb_gather_nd_batch", "emb_scatter_nd", "emb_scatter_nd_add", "big_embedding", "big_gather_nd", "big_gather_nd_in_order",
             "big_gather_nd_few_rows", "big_scatter_nd_add", "big_gather_elements"]
    counts = {case: counts[case] for case in sorted(counts, key=lambda c: order.index(c) if c in order else len(order))}
    text, mean = report(counts)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(counts, f, indent=2)
    if args.check and mean > 0.5:
        sys.exit(1)
    if args.doc:
        unroll_report.doc_table(args.doc, "instructions", text[:text.index("\n\n")] + "\n", args.update)

if __name__ == "__main__":
    main()
