#!/usr/bin/env python3
"""Flash of kernelgen's kernels against plain constant-bound loop kernels (bench/plain_loops.py).

For each kernel of the given spec files: kernelgen's kernel under "unroll" none, 4, auto and full (as
bench/unroll_report.py generates them), and the plain loop kernel, each compiled for Cortex-M4F at -Os;
.text bytes of each. Before measuring, the plain kernel and kernelgen's are run on the host side by side on
the same pseudo-random indices (negative ones too) and must give identical outputs: the baseline computes
the same thing.

With --explained PAGE, every kernel larger under "none" than its plain loops must have a row, with a reason
written by hand, in the page's none-over-plain table; --update rewrites the table's figures and keeps the reasons.

Usage: bench/flash_vs_plain.py --kernelgen build/kernelgen [--out report.md] [--check]
          [--doc PAGE | --explained PAGE [--update]] SPEC.json...
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plain_loops  # noqa: E402
import unroll_report  # noqa: E402

MODES = ["none", "4", "auto", "full"]


def agreement_program(spec, name):
    """Fills data (and updates) with distinct values and indices with in-range ones, calls both kernels (a run-time
    count at its bound, then at half of it) and compares the outputs element by element."""
    from math import prod
    t = plain_loops.C_TYPES[spec["dtype"]]
    ti = "int32_t" if spec.get("index_dtype") == "int32" else "int64_t"
    macro = name.upper()
    if spec["op"] == "TensorScatter":  # write indices from 0 to the largest a call may pass
        bounds = [-(unroll_report.write_index_high(spec) + 1)]
    elif not plain_loops.derived(spec):
        period = unroll_report.index_bounds(spec)
        bounds = [period[t % len(period)] for t in range(prod(spec["indices_shape"]))]
    else:  # the values the kernel takes, each in its range: ONNX's shifted by the constants added to it
        period = plain_loops.value_ranges(spec)
        bounds = [period[t % len(period)] for t in range(prod(plain_loops.taken_shape(spec)))]
    if spec["dtype"] in plain_loops.COMPLEX_TYPES:  # both parts set, and the outputs compared byte by byte
        part = "float" if spec["dtype"] == "complex64" else "double"
        fill = {"data": f"{{ data[i].re = ({part})(i % 251u); data[i].im = ({part})(i % 13u); }}",
                "updates": f"{{ updates[i].re = ({part})(i % 7u + 1u); updates[i].im = ({part})(i % 5u); }}"}
        differs = "memcmp(&a[i], &b[i], sizeof a[i]) != 0"
    elif spec["dtype"] == "string":  # pointers into one string, compared as pointers
        fill = {"data": "data[i] = &words[i % 60u];", "updates": "updates[i] = &words[i % 7u + 1u];"}
        differs = "a[i] != b[i]"
    else:
        fill = {"data": f"data[i] = ({t})(i % 251u);", "updates": f"updates[i] = ({t})(i % 7u + 1u);"}
        differs = "a[i] != b[i]"
    reads = "const char *" if spec["dtype"] == "string" else t
    lines, fills, args = [], [], []
    for _, argument in plain_loops.arguments(spec):
        if argument in ("data", "updates"):
            lines.append(f"static {reads} {argument}[{macro}_{argument.upper()}_SIZE];")
            fills.append(f"for (i = 0u; i < sizeof {argument} / sizeof {argument}[0]; ++i) {fill[argument]}")
        elif argument == "indices":
            taken = plain_loops.taken_shape(spec) if plain_loops.derived(spec) else spec["indices_shape"]
            lines.append(f"static {ti} indices[{max(prod(taken), 1)}];")
            fills.append("for (i = 0u; i < sizeof indices / sizeof indices[0] && i < sizeof bounds / sizeof bounds[0]; "
                         "++i) {")
            fills.append("    state = state * 1103515245u + 12345u;")
            if plain_loops.derived(spec):  # from low to high (none where the range is empty)
                fills.append(f"    indices[i] = bounds[i][1] < bounds[i][0] ? 0 : ({ti})(bounds[i][0] + (int64_t)((state >> 8) "
                             "% (uint32_t)(bounds[i][1] - bounds[i][0] + 1)));")
            else:  # a negative bound (TensorScatter): from 0 to -bound - 1; else from -bound to bound - 1
                fills.append(f"    indices[i] = bounds[i] == 0 ? 0 : bounds[i] < 0 ? ({ti})((state >> 8) % (uint32_t)-bounds[i])"
                             f" : ({ti})((state >> 8) % (uint32_t)(2 * bounds[i])) - bounds[i];")
            fills.append("}")
        args.append({"count": "count", "data_count": f"{macro}_MAX_DATA_COUNT", "output": "@"}.get(argument, argument))
    if plain_loops.derived(spec):  # [low, high] a value
        bounds_table = (f"static const int64_t bounds[{len(bounds)}][2] = {{"
                        + ", ".join(f"{{{low}, {high}}}" for low, high in bounds) + "};")
    else:
        bounds_table = f"static const {ti} bounds[{max(len(bounds), 1)}] = {{{', '.join(str(b) for b in bounds) or '0'}}};"
    counted = spec.get("count") == "runtime"
    call = ", ".join(args)
    return f"""#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "{name}.h"
{plain_loops.prototype(spec, "plain_" + name)};
static const char words[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?";
{chr(10).join(lines)}
{bounds_table}
static {reads} a[{macro}_OUTPUT_SIZE];
static {reads} b[{macro}_OUTPUT_SIZE];
int main(void)
{{
    uint32_t i, state = 12345u, round;
    (void)words;
    {(chr(10) + "    ").join(fills)}
    for (round = 0u; round < {2 if counted else 1}u; ++round) {{
        {f"const uint32_t count = {macro}_MAX_COUNT >> round;" if counted else ""}
        /* Both fail alike (an axis of size 0: no index is in range), or both succeed. */
        int failed = {name}({call.replace("@", "a")}) != 0;
        if (failed != (plain_{name}({call.replace("@", "b")}) != 0)) return 2;
        for (i = 0u; i < sizeof a / sizeof a[0]; ++i) {{
            if ({differs}) {{ printf("element %u differs\\n", (unsigned)i); return 1; }}
        }}
    }}
    return 0;
}}
"""


def measure(args, work, spec, modes):
    """(name, row, ratio, plain bytes, none bytes) of one kernel under `modes`, or the reason bench/plain_loops.py
    leaves it out."""
    name = spec["name"]
    why = plain_loops.covers(spec)
    if why:
        return f"{name} ({why})"
    sizes = {}
    for mode in modes:
        out_dir = os.path.join(work, mode)
        if unroll_report.generate(args.kernelgen, spec, mode, out_dir):
            sizes[mode] = unroll_report.text_size(args.arm_gcc, args.arm_size, os.path.join(out_dir, name + ".c"), out_dir)
    # Beside the kernel, as a float16 reduction's plain loops include the support header for its conversions.
    plain = os.path.join(work, "none", f"plain_{name}.c")
    with open(plain, "w") as f:
        f.write(plain_loops.plain_kernel(spec, f"plain_{name}"))
    plain_size = unroll_report.text_size(args.arm_gcc, args.arm_size, plain, work)
    # The baseline must compute what the kernel computes.
    program = os.path.join(work, f"agree_{name}.c")
    with open(program, "w") as f:
        f.write(agreement_program(spec, name))
    binary = os.path.join(work, f"agree_{name}")
    none_dir = os.path.join(work, "none")
    subprocess.run([args.cc, "-std=c99", "-O1", "-I", none_dir, program, plain, os.path.join(none_dir, name + ".c"),
                    os.path.join(none_dir, "kernelgen_support.c"), "-o", binary], check=True)
    if subprocess.run([binary]).returncode != 0:
        sys.exit(f"{name}: the plain loop kernel and kernelgen's disagree")
    ratio = sizes["none"] / plain_size
    cells = [f"{sizes[m]:,}" if m in sizes else "refused" if m in modes else "-" for m in MODES]
    row = f"| {name} | {plain_size:,} | " + " | ".join(cells) + f" | {ratio:.2f} |"
    return name, row, ratio, plain_size, sizes["none"]


def explained_table(doc, larger):
    """The none-over-plain table of `doc` for the kernels larger under none than their plain loops, each with the
    reason its row in the page gives (kept from the page as written by hand); and the kernels that have none."""
    reasons = unroll_report.written_reasons(doc, "none-over-plain")
    rows = ["| kernel | plain loops | `none` | `none` / plain | why |", "| --- | ---: | ---: | ---: | --- |"]
    for name, plain, none in larger:
        rows.append(f"| `{name}` | {plain:,} | {none:,} | {none / plain:.2f} | {reasons.get(name, '')} |")
    return "\n".join(rows) + "\n", [name for name, _, _ in larger if name not in reasons]


def main():
    parser = unroll_report.arguments(__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 unless the target is met")
    parser.add_argument("--doc", help="a page whose table between the flash-vs-plain markers must match")
    parser.add_argument("--explained", help="a page whose none-over-plain table must list every kernel larger under "
                                            "none than its plain loops, each with a reason (--update rewrites its "
                                            "figures and keeps the reasons)")
    parser.add_argument("--update", action="store_true", help="with --doc or --explained: rewrite that table")
    args = parser.parse_args()

    rows = ["| kernel | plain loops | `none` | `4` | `auto` | `full` | `none` / plain |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    modes = MODES if args.doc or not args.explained else ["none"]  # --explained alone needs none's flash only
    with tempfile.TemporaryDirectory() as work:
        for mode in modes:
            os.makedirs(os.path.join(work, mode))
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            measured = list(pool.map(lambda spec: measure(args, work, spec, modes), unroll_report.kernels_of(args.specs)))
    kernels = [m for m in measured if isinstance(m, tuple)]
    left_out = [m for m in measured if isinstance(m, str)]
    rows += [row for _, row, _, _, _ in kernels]
    worst = max((ratio for _, _, ratio, _, _ in kernels), default=0.0)
    larger = [(name, plain, none) for name, _, _, plain, none in kernels if none > plain]
    verdict = "met" if worst <= 1.0 else "NOT met"
    report = "\n".join(rows) + f"\n\nTarget `none` <= plain loops on every kernel: {verdict} (largest ratio {worst:.2f}).\n"
    if left_out:
        report += "\nLeft out (bench/plain_loops.py writes no such kernel): " + ", ".join(left_out) + ".\n"
    unroll_report.write_report(report, args.out)
    if args.check and worst > 1.0:
        sys.exit(1)
    if args.doc:
        unroll_report.doc_table(args.doc, "flash-vs-plain", "\n".join(rows) + "\n", args.update)
    if args.explained:
        table, unexplained = explained_table(args.explained, larger)
        unroll_report.doc_table(args.explained, "none-over-plain", table, args.update)
        if unexplained:
            sys.exit(f"{args.explained}: no reason given for {', '.join(unexplained)} (larger under none than its plain "
                     "loops): write one in its row of the none-over-plain table")


if __name__ == "__main__":
    main()
