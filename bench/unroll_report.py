#!/usr/bin/env python3
"""Speed and flash of every kernel of the given spec files under each unroll setting.

For each setting (none, 4, auto, full) every kernel is generated on its own with `kernelgen --unroll MODE`
(its own "unroll" key removed, so the setting applies to all), then
  - flash: compiled for Cortex-M4F at -Os with arm-none-eabi-gcc and measured with arm-none-eabi-size
    (.text, which holds the code and the constant tables);
  - speed: compiled for baseline x86-64 at -O2 as one translation unit (an amalgamation: one compiler run, not one per
    kernel; the instructions are those of separate compiles), beside a driver (a unit of its own, so that no call
    is inlined) that calls each kernel once (indices all 0, in range for every axis that has elements), run under
    callgrind; the instructions of each kernel's call, inclusive of memcpy (glibc's SSE2 copy, pinned: see
    COUNT_FLAGS), are read with callgrind_annotate.
(Flash is measured one object per kernel: in one unit, -Os keeps a helper that many kernels call out of line,
which each kernel's own object inlines.)
"full" is refused for kernels over its 4096-statement cap: those are left out of every setting's totals
(and counted), so the totals compare the same kernels.

Usage: bench/unroll_report.py --kernelgen build/kernelgen [--out report.md] [--per-kernel] specs/*.json
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile

MODES = ["none", "4", "auto", "full"]
M4F_FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-Os"]
C_TYPES = {
    "float32": "float", "float": "float", "float64": "double", "double": "double", "int8": "int8_t",
    "int16": "int16_t", "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t",
    "uint32": "uint32_t", "uint64": "uint64_t", "bool": "bool", "float16": "uint16_t", "bfloat16": "uint16_t",
    "complex64": "kernelgen_complex64", "complex128": "kernelgen_complex128", "string": "const char *",
}


def kernels_of(paths):
    """The kernel objects of spec files, each a dict; a "data_file" (and a quantized table's "scales_file" and
    "zero_points_file", a scatter's "updates_file") made absolute (it names a file relative to its spec's folder, and the kernels are generated
    from copies elsewhere)."""
    for path in paths:
        with open(path) as f:
            document = json.load(f)
        folder = os.path.dirname(os.path.abspath(path))
        for kernel in document.get("kernels", [document]):
            for key in ("data_file", "updates_file"):
                if key in kernel:
                    kernel[key] = os.path.join(folder, kernel[key])
            quantization = kernel.get("quantization", {})
            for key in ("scales_file", "zero_points_file"):
                if key in quantization:
                    quantization[key] = os.path.join(folder, quantization[key])
            yield kernel


def holds_data(kernel):
    """Whether the kernel holds its data (constant data: "data" or "data_file"), and so takes no data argument."""
    return "data" in kernel or "data_file" in kernel


# The operators whose kernels take updates (unless they hold them).
SCATTERS = ("ScatterND", "ScatterElements", "TensorScatter")


def holds_updates(kernel):
    """Whether a scatter holds its updates ("updates" or "updates_file"), and so takes no updates argument."""
    return "updates" in kernel or "updates_file" in kernel


def elements(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def runnable(kernel):
    """Whether the driver can hold the kernel's tensors in static buffers (at most 2^24 elements each)."""
    return max(elements(kernel["data_shape"]), elements(kernel["indices_shape"]), 1) <= 1 << 24


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


# What x86 code the counts are of, whatever CPU compiles and runs them. The compiler's side: baseline x86-64 with
# generic tuning (never -march=native). glibc's side: it picks memcpy by the CPU it sees (under valgrind, a CPU
# valgrind makes up from the host's: one for every host with AVX2, others without) and sizes its copy paths by the
# caches that CPU reports; these tunables give it baseline x86-64's SSE2 copy and fixed sizes on every machine.
COUNT_FLAGS = ["-O2", "-march=x86-64", "-mtune=generic"]
GLIBC_HWCAPS = ["-AVX512F", "-AVX_Fast_Unaligned_Load", "-ERMS", "-SSSE3"]
GLIBC_SIZES = {"x86_non_temporal_threshold": "0x40000000", "x86_data_cache_size": "0x8000",
               "x86_shared_cache_size": "0x100000"}


def valgrind_env(other_cpu=()):
    """The environment to run a counted program in: glibc pinned as above. `other_cpu`, tunables that describe
    another CPU to glibc (features it lacks, its cache sizes), go first, as a test of the pin that follows them."""
    tunables = list(other_cpu) + ["glibc.cpu.hwcaps=" + ",".join(GLIBC_HWCAPS)]
    tunables += [f"glibc.cpu.{name}={value}" for name, value in GLIBC_SIZES.items()]
    return dict(os.environ, GLIBC_TUNABLES=":".join(tunables))


def generate(kernelgen, kernel, mode, out_dir):
    """Generates one kernel into out_dir with `--unroll MODE` (its own "unroll" key removed), or as its spec
    says when mode is None; False when kernelgen refuses it."""
    return generate_all(kernelgen, [kernel], mode, out_dir) == [kernel]


def generate_all(kernelgen, kernels, mode, out_dir):
    """Generates kernels into out_dir as generate() does, in one run of kernelgen where it can (a kernel it refuses,
    such as "full" over its cap, is left out and the others are generated again); the kernels generated."""
    paths = {}
    for kernel in kernels:
        spec = dict(kernel)
        if mode is not None:
            spec.pop("unroll", None)
        paths[kernel["name"]] = os.path.join(out_dir, kernel["name"] + ".json")
        with open(paths[kernel["name"]], "w") as f:
            json.dump(spec, f)
    unroll = [] if mode is None else ["--unroll", mode]
    made = list(kernels)
    while made:
        result = run([kernelgen, *unroll, "--out-dir", out_dir, *[paths[k["name"]] for k in made]])
        if result.returncode == 0:
            return made
        # Each problem is a line "SPEC: /pointer: message": the specs it names are left out.
        refused = {line.split(": ", 1)[0] for line in result.stderr.splitlines()}
        kept = [k for k in made if paths[k["name"]] not in refused]
        if len(kept) == len(made):
            sys.exit(f"kernelgen failed:\n{result.stderr}")
        made = kept
    return made


def index_bounds(spec):
    """The sizes of the axes the kernel's indices select along, one per index in a period that repeats over
    the indices tensor: an index at flat position t must lie in [-b, b-1] for b = bounds[t % len(bounds)].
    (TensorScatter's write indices are not ONNX indices: see write_index_high.)"""
    data, op = spec["data_shape"], spec["op"]
    assert op != "TensorScatter", "TensorScatter's write indices: write_index_high()"
    if op in ("Gather", "GatherElements", "ScatterElements"):
        return [data[spec.get("axis", 0) % len(data)]]
    first = spec.get("batch_dims", 0) if op == "GatherND" else 0
    return [data[first + j] for j in range(spec["indices_shape"][-1])]


def write_index_high(spec):
    """TensorScatter: the largest write index a call may pass, from 0: max_sequence_length - sequence_length in
    linear mode; in circular mode any, of which 2 * max_sequence_length - 1 wraps once."""
    axis = spec.get("axis", -2) % len(spec["data_shape"])
    cache, sequence = spec["data_shape"][axis], spec["updates_shape"][axis]
    return 2 * cache - 1 if spec.get("mode") == "circular" else cache - sequence


def text_size(arm_gcc, arm_size, source, work):
    return text_sizes(arm_gcc, arm_size, [source], work)[source]


def text_sizes(arm_gcc, arm_size, sources, work):
    """The .text bytes of each source compiled for Cortex-M4F at -Os: one compiler run and one size run for all."""
    objects = os.path.join(work, "objects")
    os.makedirs(objects, exist_ok=True)
    result = run([arm_gcc, "-std=c99", *M4F_FLAGS, "-c", *[os.path.abspath(s) for s in sources]], cwd=objects)
    if result.returncode != 0:
        sys.exit(f"{arm_gcc} failed:\n{result.stderr}")
    names = [os.path.splitext(os.path.basename(s))[0] + ".o" for s in sources]
    lines = run([arm_size, *names], cwd=objects).stdout.splitlines()[1:]
    return {source: int(line.split()[0]) for source, line in zip(sources, lines)}


def driver(kernels):
    """A C program that calls each kernel once on zeroed tensors (each in its own static buffer)."""
    lines = ["#include <stdbool.h>", "#include <stdint.h>"]
    lines += [f'#include "{k["name"]}.h"' for k in kernels]
    body = []
    for k in kernels:
        name, macro = k["name"], k["name"].upper()
        element = C_TYPES[k["dtype"]]
        index = "int32_t" if k.get("index_dtype") == "int32" else "int64_t"
        args = [] if holds_data(k) else [f"{name}_data"]
        if k.get("data_count") == "runtime":
            args.append(f"{macro}_MAX_DATA_COUNT")  # a run-time data count, at its bound
        if not holds_data(k):
            lines.append(f"static {element} {name}_data[{macro}_DATA_SIZE + 1];")
        lines.append(f"static {element} {name}_output[{macro}_OUTPUT_SIZE + 1];")
        if "indices" not in k:
            lines.append(f"static {index} {name}_indices[{macro}_INDICES_SIZE + 1];")
            args.append(f"{name}_indices")
        if k.get("count") == "runtime":
            args.append(f"{macro}_MAX_COUNT")  # a run-time count, at its bound
        if k["op"] in SCATTERS and not holds_updates(k):
            lines.append(f"static {element} {name}_updates[{macro}_UPDATES_SIZE + 1];")
            args.append(f"{name}_updates")
        args.append(f"{name}_output")
        body.append(f"    status |= {name}({', '.join(args)});")
    return "\n".join(lines + ["", "int main(void)", "{", "    int status = 0;"] + body +
                     ["    return status < 0 ? 0 : status;", "}", ""])


def instructions(cc, kernels, source_dir, work):
    program = os.path.join(work, "driver.c")
    with open(program, "w") as f:
        f.write(driver(kernels))
    # The kernels as one unit (kernelgen's names never collide across a run's kernels), no identical code folded.
    unity = os.path.join(work, "kernels_unity.c")
    with open(unity, "w") as f:
        f.write("".join(f'#include "{os.path.join(os.path.abspath(source_dir), k["name"] + ".c")}"\n' for k in kernels))
    sources = [unity, os.path.join(source_dir, "kernelgen_support.c")]
    binary = os.path.join(work, "driver")
    result = run([cc, "-std=c99", *COUNT_FLAGS, "-g", "-fno-ipa-icf", "-I", source_dir, program, *sources, "-Wl,-z,now",
                  "-o", binary])
    if result.returncode != 0:
        sys.exit(f"{cc} failed:\n{result.stderr}")
    out = os.path.join(work, "callgrind.out")
    run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary], check=True, env=valgrind_env())
    annotated = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out]).stdout
    counts = {}
    for line in annotated.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S+:(\w+)\b", line) or re.match(r"\s*([\d,]+)\s+\S+:(\w+)\b", line)
        if match:
            counts.setdefault(match.group(2), int(match.group(1).replace(",", "")))
    return {k["name"]: counts.get(k["name"], 0) for k in kernels}


def plural(count, noun):
    return f"{count} {noun}" + ("" if count == 1 else "s")


def write_report(text, path):
    """Prints a report, and writes it to `path` too when one is given."""
    if path:
        with open(path, "w") as f:
            f.write(text)
    print(text)


def page_parts(doc, marker):
    """(text before the table, the table, text after it) of the page's table between its `<!-- MARKER:begin -->` and
    `<!-- MARKER:end -->` lines, the marker lines left out; None when the page has no such table."""
    with open(doc) as f:
        page = f.read()
    begin, end = f"<!-- {marker}:begin -->\n", f"<!-- {marker}:end -->"
    if begin not in page or end not in page:
        return None
    head, rest = page.split(begin, 1)
    current, tail = rest.split(end, 1)
    return head + begin, current, end + tail


def written_reasons(doc, marker):
    """{first cell: last cell} of the rows of the page's table between its markers, the first cell's backquotes
    dropped: the reasons written by hand in a table whose figures a script keeps current."""
    reasons = {}
    parts = page_parts(doc, marker)
    for line in (parts[1].splitlines()[2:] if parts else []):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 1 and cells[-1]:
            reasons[cells[0].strip("`")] = cells[-1]
    return reasons


def doc_table(doc, marker, table, update):
    """The table between the page's `<!-- MARKER:begin -->` and `<!-- MARKER:end -->` lines must be `table`: exits 1
    when it is stale, or rewrites it with `update`. The pages' deterministic tables are kept current this way."""
    parts = page_parts(doc, marker)
    if parts is None:
        sys.exit(f"{doc} has no {marker} markers")
    head, current, tail = parts
    if update:
        with open(doc, "w") as f:
            f.write(head + table + tail)
    elif current != table:
        rows = [line for line in difflib.unified_diff(current.splitlines(), table.splitlines(), "published", "measured",
                                                      lineterm="", n=0) if not line.startswith("@@")]
        sys.exit(f"the {marker} table in {doc} differs from what this run measured:\n" + "\n".join(rows) +
                 "\nThe figures do not depend on the machine that measures them. When a change to kernelgen, its "
                 "templates or bench/ explains the difference, rerun this command with --update added and commit the "
                 "page with that change; otherwise the difference is a bug to report.")


def arguments(doc):
    """The options the bench scripts share: the tools, the report file, the spec files."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernelgen", required=True)
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--arm-gcc", default="arm-none-eabi-gcc")
    parser.add_argument("--arm-size", default="arm-none-eabi-size")
    parser.add_argument("--out")
    parser.add_argument("specs", nargs="+")
    return parser


def main():
    parser = arguments(__doc__)
    parser.add_argument("--per-kernel", action="store_true", help="also a row per kernel")
    parser.add_argument("--doc", help="a page whose table between the unroll-settings markers must match")
    parser.add_argument("--update", action="store_true", help="with --doc: rewrite that table")
    args = parser.parse_args()

    kernels = list(kernels_of(args.specs))
    results = {}  # mode -> name -> (text bytes, instructions)
    refused = set()
    with tempfile.TemporaryDirectory() as work:
        for mode in MODES:
            out_dir = os.path.join(work, mode)
            os.makedirs(out_dir)
            made = generate_all(args.kernelgen, kernels, mode, out_dir)
            refused |= {k["name"] for k in kernels} - {k["name"] for k in made}
            sources = [os.path.join(out_dir, k["name"] + ".c") for k in made]
            by_source = text_sizes(args.arm_gcc, args.arm_size, sources, out_dir)
            sizes = {k["name"]: by_source[s] for k, s in zip(made, sources)}
            calls = instructions(args.cc, [k for k in made if runnable(k)], out_dir, out_dir)
            results[mode] = {name: (sizes[name], calls.get(name, 0)) for name in sizes}

    too_large = {k["name"] for k in kernels if not runnable(k)}
    common = [k["name"] for k in kernels if k["name"] not in refused | too_large]
    rows = ["| unroll | kernels | .text bytes (Cortex-M4F -Os) | x86 instructions, one call of each |",
            "| --- | ---: | ---: | ---: |"]
    for mode in MODES:
        text = sum(results[mode][n][0] for n in common)
        calls = sum(results[mode][n][1] for n in common)
        rows.append(f"| `{mode}` | {len(common)} | {text:,} | {calls:,} |")
    note = "\n"
    if refused:
        note += (f"Left out: {plural(len(refused), 'kernel')} that \"full\" refuses (over 4096 statements): "
                 f"{', '.join(sorted(refused))}.\n")
    if too_large:
        note += (f"Left out: {plural(len(too_large), 'kernel')} whose tensors are too large to run here: "
                 f"{', '.join(sorted(too_large))}.\n")
    report = "\n".join(rows) + "\n" + note
    if args.doc:
        doc_table(args.doc, "unroll-settings", "\n".join(rows) + "\n", args.update)
    if args.per_kernel:
        report += "\n| kernel | " + " | ".join(f"`{m}` bytes / instructions" for m in MODES) + " |\n"
        report += "| --- |" + " ---: |" * len(MODES) + "\n"
        for name in common:
            cells = [f"{results[m][name][0]:,} / {results[m][name][1]:,}" for m in MODES]
            report += f"| {name} | " + " | ".join(cells) + " |\n"
    write_report(report, args.out)


if __name__ == "__main__":
    main()
