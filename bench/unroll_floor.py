#!/usr/bin/env python3
"""How small the kernels of one run could be, each under the unroll setting that suits it best, against their
unchecked loops (the flash goal of docs/microcontrollers.md's "Against unchecked kernels").

Usage: unroll_floor.py FIGURES.json

FIGURES.json comes from one run of bench/target_costs.py with --plain and several --unroll modes, "auto" first:

    python3 bench/target_costs.py --kernelgen build/kernelgen --plugin build/bench/libqemu_count_plugin.so \\
        --plain --unroll auto --unroll none --unroll 2 --unroll 4 --unroll 8 --json modes.json specs/*.json
    python3 bench/unroll_floor.py modes.json

For each class and kernel it takes, among the measured modes, the smallest flash (.text and .rodata) whose cost
is at most the unchecked loops' (or, where none is, the fastest mode), and prints per class: the geometric mean
of flash against the unchecked loops under "auto" and under that choice, how many kernels stay slower than their
unchecked loops, and how many are above 2.5 times their flash. Measured modes only: a choice no mode makes (a
smaller form of the same code) is not in it.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from target_costs import TARGETS, geomean  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        figures = json.load(f)
    kernels, plain = figures["kernels"], figures["plain"]
    modes = list(next(iter(kernels.values())))
    if not modes or modes[0] != "auto" or len(modes) < 2:
        sys.exit(f"{sys.argv[1]}: needs a run with --plain and --unroll auto first, then other modes (has {modes})")
    print("| target | kernels | flash / unchecked loops under auto | under the best mode of each kernel "
          "| slower than unchecked loops under it | above 2.5 times their flash | modes chosen |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for target in ("m0", "m4f", "avr"):
        unit = TARGETS[target].unit
        under_auto, chosen, slower, above, counts = [], [], 0, 0, {}
        for name, ways in plain.items():
            unchecked = (ways.get(target) or {}).get("unchecked") or {}
            if not unchecked.get(unit) or not unchecked.get("flash") or name not in kernels:
                continue
            measured = []
            for mode in modes:
                cell = kernels[name].get(mode, {}).get(target) or {}
                if cell.get("status") == "ok" and cell.get(unit):
                    measured.append((mode, cell[unit], cell["text"] + cell["rodata"]))
            if not measured or measured[0][0] != "auto":
                continue
            fast_enough = [m for m in measured if m[1] <= unchecked[unit]]
            if fast_enough:
                best = min(fast_enough, key=lambda m: (m[2], m[1]))
            else:
                best = min(measured, key=lambda m: (m[1], m[2]))
                slower += 1
            counts[best[0]] = counts.get(best[0], 0) + 1
            under_auto.append(measured[0][2] / unchecked["flash"])
            chosen.append(best[2] / unchecked["flash"])
            above += best[2] > 2.5 * unchecked["flash"]
        if not chosen:
            continue
        picks = ", ".join(f"{mode} {counts[mode]}" for mode in modes if mode in counts)
        print(f"| {TARGETS[target].title} ({unit}) | {len(chosen)} | {geomean(under_auto):.2f} | {geomean(chosen):.2f} | {slower} | {above} "
              f"| {picks} |")


if __name__ == "__main__":
    main()
