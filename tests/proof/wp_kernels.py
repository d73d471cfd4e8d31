#!/usr/bin/env python3
"""Frama-C WP over generated kernels: every goal of each header's ACSL contract proven, or the test fails.

For each header given (a kernel of a kernelgen output folder), WP proves the kernel's function against the
contract its header states (the buffers it needs, what it writes, one behavior per return code) and that its
body has no run-time error (-wp-rte: every access inside its buffer, no overflow, no invalid shift), with z3 and
cvc4 through why3. The support functions the body calls are taken by their own contracts in kernelgen_support.h
(an index check: nonzero exactly when the value lies outside its range; a wrap: the offset of an index in range),
which index_check_test tests on every target against the plain compare and wrap.

One substitution is made before WP reads a kernel: each row copy (kernelgen_copy, kernelgen_copy_once, a copy out of a table, memcpy)
of N elements of type T becomes a call of a copy of T with the contract below (it writes to[0 .. N-1] from
from[0 .. N-1], both valid and apart), and each memset of them a call that writes to[0 .. N-1]. WP's typed memory model cannot follow a copy through void pointers, and the
copies' bodies are per-target code (inline assembly on Cortex-M and AVR) that copy_routine_test runs on every
target; EVA (eva_kernels.py) analyses the real text, copies included.

A kernel whose constant tables take more than 16 KB of C is proven for any contents of them (table_options).

A kernel named in --known (wp_known_unproven.txt: a form whose proof is not there yet, each with the reason) is
not run: trying it costs minutes of prover time. With --mutants, each kernel's first index check is removed and WP
must then leave a goal unproven; with --mutants copy, the sources of its first two element copies are swapped and
WP must then leave the header's `ensures values:` unproven, and only that. --batch K/N runs every Nth kernel from
the Kth (the tier runs four batches).
--sample N proves every Nth kernel (of the random ones), but those of a form WP does not prove yet (form_beyond_wp),
which it reports. --proven FILE begins WP's cache with the verdicts FILE records of goals a prover proved before
(wp_proven.json: a goal of the same text takes its verdict, every other goes to the provers; RESULTS below).

    wp_kernels.py --work DIR [--frama-c PATH] [--steps N] [--timeout S] [--known FILE] [--mutants [check|copy]]
                  [--jobs J] [--batch K/N] [--sample N] [--match REGEX] [--kernelgen PATH] [--proven FILE]
                  HEADER_OR_FOLDER_OR_SPEC...
"""
import argparse
import concurrent.futures
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eva_kernels import CHECK, PROTOTYPE, kernel_headers, kernel_name, known_alarms  # noqa: E402  (the same kernels' shape, the same list format)

# Provers WP runs at once. Most goals take a prover tens of milliseconds, and waiting for each one's answer costs
# about as long: more of them at once than there are cores keeps the cores busy (a kernel of 108 goals: 13.9 s
# with 1, 5.5 s with 4, 4.8 s with 8, on 2 cores, for the same 5 s of processor time).
PROVERS_AT_ONCE = 8

# How far a prover may search for one goal, in its own steps (why3's step limit: cvc4's --rlimit, z3's rlimit),
# which count the same work on any machine: a goal is proven or not whatever the processor's speed and load. A
# time limit alone did not: on a machine about three times as slow, with the tier's other tests beside it, cvc4 ran out
# of its 10 s on goals it proves in 2 s alone, and two kernels failed. The most any goal of the tier took:
# 172,165 steps of cvc4 (reverse_time), 1,056,321 of z3 (batched_gather_nd, where cvc4 left it); a goal no prover
# proves (the mutants') ends as "unknown" within the limit, in a fraction of a second. --timeout is then a net
# for a machine that is slower still, not the limit that decides.
STEPS = 3_000_000

# An element copy's source, `output[...] = data[<this>];` (or `from[<this>]`, a short row read through its pointer),
# for the copy mutants.
COPIED_FROM = re.compile(r"^\s*output\w*\[[^\]]+\] = ((?:data\w*|from)\[[^;]+\]);$", re.M)

COPY = re.compile(r"\b(kernelgen_copy|kernelgen_copy_once|KERNELGEN_COPY_FROM_TABLE|KERNELGEN_MEMCPY_FROM_TABLE|memcpy|memset)\(")


def arguments(text, start):
    """The arguments of the call whose '(' is at text[start - 1], and the index after its ')'."""
    depth, parts, begin = 0, [], start
    for i in range(start, len(text)):
        ch = text[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            if depth == 0:
                parts.append(text[begin:i].strip())
                return parts, i + 1
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[begin:i].strip())
            begin = i + 1
    raise ValueError("unbalanced call")


def tag(element):
    return re.sub(r"\W+", "_", element.replace("const char *", "string")).strip("_")


TABLE = re.compile(r"^static const (\w+) (kernelgen_\w+)\[", re.M)


def typed_copies(source, tables):
    """The source with its row copies made typed calls, and the (destination, source) element types they copy.
    A copy out of a table the kernel holds reads the table's own type (its elements' bits: uint8_t of int8_t
    data, uint32_t of float data)."""
    out, types, at = [], set(), 0
    for match in COPY.finditer(source):
        if match.start() < at:
            continue
        args, end = arguments(source, match.end())
        table = None
        if match.group(1) in ("kernelgen_copy", "kernelgen_copy_once", "memcpy", "memset"):
            to, from_, size = args[0], args[1], args[2]
        else:
            table = tables.get(args[1])
            to, from_, size = args[0], f"&({args[1]})[{args[2]}]", args[3]
        count, element = copied_elements(size, to, source)
        out.append(source[at:match.start()])
        if match.group(1) == "memset":
            out.append(f"kernelgen_proof_zero_{tag(element)}({to}, {count})")
            types.add((element, element))
        else:
            pair = (element, table or element)
            out.append(f"{copy_name(pair)}({to}, {from_}, {count})")
            types.add(pair)
        at = end
    out.append(source[at:])
    return "".join(out), types


def copied_elements(size, to, source):
    """The count and type of the elements a copy of `size` bytes into `to` moves: `N * sizeof(T)`, or one element
    into a local (`sizeof update`, whose declaration `int32_t update;` gives its type)."""
    sized = re.fullmatch(r"(?:(.+) \* )?sizeof\((.+)\)", size)
    if sized:
        return sized.group(1) or "1u", sized.group(2)
    local = re.fullmatch(r"sizeof (\w+)", size)
    declared = re.findall(rf"^\s*(\w+) {local.group(1)};$", source, re.M) if local and to == f"&{local.group(1)}" else []
    if len(set(declared)) == 1:  # declared once, or in each of several blocks alike
        return "1u", declared[0]
    raise ValueError(f"a row copy of {size!r} bytes: not a count of elements")


def copy_name(pair):
    to, from_ = pair
    return f"kernelgen_proof_copy_{tag(to)}" + ("" if to == from_ else f"_from_{tag(from_)}")


def pointer(element, read_only):
    if element == "const char *":
        return "const char *const *" if read_only else "const char **"
    return ("const " if read_only else "") + element + " *"


def proof_header(types):
    lines = ["/* The row copies as WP reads them (wp_kernels.py): N elements from `from` to `to`. A prefetch hint, which",
             " * has no effect on any value, is nothing (Frama-C does not know the builtin). */",
             "#define __builtin_prefetch(...) ((void)0)",
             "#include <stddef.h>", "#include <stdint.h>", "#include <stdbool.h>", '#include "kernelgen_support.h"', ""]
    for pair in sorted(types):
        # One `requires` (WP makes a goal of each at every call, and a kernel calls a copy per row).
        lines += ["/*@ requires \\valid(to + (0 .. n - 1)) && \\valid_read(from + (0 .. n - 1)) &&",
                  "             \\separated(to + (0 .. n - 1), from + (0 .. n - 1));",
                  "    assigns to[0 .. n - 1] \\from from[0 .. n - 1];",
                  "    exits \\false;",
                  "*/",
                  f"void {copy_name(pair)}({pointer(pair[0], False)}to, {pointer(pair[1], True)}from, size_t n);", ""]
    for element in sorted({pair[0] for pair in types}):
        lines += ["/*@ requires \\valid(to + (0 .. n - 1));",
                  "    assigns to[0 .. n - 1];",
                  "    exits \\false;",
                  "*/",
                  f"void kernelgen_proof_zero_{tag(element)}({pointer(element, False)}to, size_t n);", ""]
    return "\n".join(lines)


def wp_command(frama_c, provers, include, functions, path):
    """Frama-C's WP over `functions` of the C file `path` (with -wp-rte) by `provers`, as every run here starts."""
    return [frama_c, "-wp", "-wp-rte", "-wp-prover", provers, "-warn-special-float", "none", "-machdep", "x86_64",
            "-cpp-extra-args=" + " ".join(f"-I{folder}" for folder in include), "-wp-fct", ",".join(functions), path]


def prove(header, work, frama_c, steps, timeout, mutant, shared_cache=None):
    folder = os.path.dirname(os.path.abspath(header))
    text = open(header).read()
    found = PROTOTYPE.search(text)
    name = found.group(1)
    if "/*@" not in text:
        return name, False, "no contract in the header", ""
    source = open(os.path.join(folder, f"{name}.c")).read()
    if mutant == "check":
        source, removed = CHECK.subn("", source, count=1)
        if not removed:
            return name, False, "no index check to remove", ""
    elif mutant == "copy":
        # The first two element copies read each other's source: every access stays in bounds, only the values
        # written are wrong, which the header's `ensures values:` must catch.
        copies = list(COPIED_FROM.finditer(source))
        if len(copies) < 2 or "ensures values:" not in text:
            return name, False, "no two element copies, or no values stated", ""
        first, second = copies[0], copies[1]
        source = (source[:first.start(1)] + second.group(1) + source[first.end(1):second.start(1)] + first.group(1) +
                  source[second.end(1):])
    tables = {}
    for held in (source, *(open(os.path.join(folder, f)).read() for f in os.listdir(folder)
                            if f.startswith(f"{name}_") and f.endswith(".inc"))):
        tables.update({table: element for element, table in TABLE.findall(held)})
    try:
        source, types = typed_copies(source, tables)
    except ValueError as error:
        return name, False, str(error), ""
    suffix = f"_{mutant}_mutant" if mutant else ""
    path = os.path.join(work, f"{name}{suffix}.c")
    with open(path, "w") as out:
        out.write(f'#include "{name}_proof.h"\n' + source)
    with open(os.path.join(work, f"{name}_proof.h"), "w") as out:
        out.write(proof_header(types))
    # The kernel's own helpers (a reduction's combine, a quantized table's value reader and row function) are
    # proven beside it, against their contracts.
    helpers = re.findall(r"^static (?:inline )?\w+ (kernelgen_\w+)\(", source, re.M)
    began = time.monotonic()
    # cvc4 alone proves most goals fastest; z3 beside it where some are left (it proves goals cvc4 does not, but
    # takes several times as long). The second run takes the first one's results from WP's cache, begun empty
    # for each kernel in each run (with --proven, one cache for every kernel of the run, begun with the verdicts
    # of that file: RESULTS; a verdict other than valid then serves every kernel of the run with the same goal):
    # it gives z3 only the goals cvc4 left.
    cache = shared_cache or os.path.join(work, f"{name}{suffix}_cache")
    if not shared_cache:
        shutil.rmtree(cache, ignore_errors=True)
    # Complex elements (a struct of two floats or doubles): WP's model of such a struct brings floating-point
    # literals (the float types' bounds), which Debian's cvc4 1.8 is built without (it aborts: "Floating-point
    # literals not yet implemented"). Those kernels are proven with floats as reals: no goal depends on a float's
    # value, as every address and every return code depends on the indices and counts alone.
    # A gather whose header states the values it writes (`ensures values:`): WP's float model brings the float
    # theory to each goal on a copied float value, which z3 runs out of memory on and cvc4 1.8 fails; as reals,
    # copied values are the values read, and the goal is cvc4's in seconds. Floats as reals are sound for a copy:
    # the body computes nothing with a value, it moves it.
    model = ["-wp-model", "Typed+real"] if "kernelgen_complex" in text or "ensures values:" in text else []
    # A constant table of more than LARGE_TABLE bytes of C: WP builds its initial value element by element, for
    # minutes before any goal (a table of 219 KB: gone past 5 minutes). Such a kernel is proven with no initial
    # value for its constant tables (-wp-no-init-const): for any contents of them, which holds for the contents
    # they have. No goal of a kernel of such a table depends on its values (the data, a quantized table's values,
    # scales and zero points: each read is at an offset the indices decide, each value only converted); a goal
    # that did would fail here.
    model += table_options(folder, name)
    passes = []
    for provers in ("cvc4", "cvc4,z3"):
        passes.append(provers)
        command = wp_command(frama_c, provers, [folder, work], [name] + helpers, path) + [
            "-wp-steps", str(steps), "-wp-timeout", str(timeout), *model,
            "-wp-cache", "update", "-wp-cache-dir", cache, "-wp-par", str(PROVERS_AT_ONCE)]
        run = subprocess.run(command, capture_output=True, text=True)
        log = run.stdout + run.stderr
        proved = re.search(r"Proved goals:\s+(\d+) / (\d+)", log)
        if run.returncode != 0 or not proved:
            return name, False, f"WP failed (exit {run.returncode}), {time.monotonic() - began:.1f} s", log
        done, total = int(proved.group(1)), int(proved.group(2))
        if done == total:
            break
    seconds = time.monotonic() - began
    lines = log.splitlines()
    # WP's hypotheses that the kernel's own tables (static, file-local: no caller holds a pointer into them) lie
    # apart from the caller's buffers are expected: its kernelgen_* tables, and the constant indices it holds in
    # its body (`static const int64_t indices[]`, which Frama-C names <kernel>_indices). Any other fails the kernel.
    own = ("kernelgen_", f"{name}_indices")
    tables_apart = set()
    for i, line in enumerate(lines[:-1]):
        if "Memory model hypotheses" not in lines[i + 1]:
            continue
        block = []
        for after in lines[i + 2:]:
            block.append(after)
            if "*/" in after:
                break
        clauses = re.split(r"requires", " ".join(block))[1:]
        if clauses and all(any(table in clause for table in own) for clause in clauses):
            tables_apart.add(i)
    # A cache entry WP reads while another kernel's run of the same goal writes it (--proven with --jobs: one cache
    # for the run) is "invalid": WP then runs the prover, as for an entry it does not have.
    failed = [line for i, line in enumerate(lines) if i not in tables_apart and "invalid cache entry" not in line and
              (re.search(r"\[wp\] \[[^]]*\] Goal .*: (Failed|Unknown|Timeout)", line) or
               re.search(r"\[wp\] \[Failed\] Goal", line) or re.search(r"\[(kernel|wp)[^]]*\].*(Warning|warning)", line))]
    ok = done == total and not failed
    return name, ok, f"{done} / {total} goals, {seconds:.1f} s ({' then '.join(passes)})", "\n".join(failed)


# RESULTS. WP's cache holds one file per goal a prover was run on, named by a digest of the goal as the prover
# receives it (the why3 task: every hypothesis and the conclusion) and of the prover's name and version, with the
# verdict and the steps and time it took; WP takes a recorded valid verdict only where those fit the run's limits
# (--steps, --timeout), and fails the goal otherwise. tests/proof/wp_proven.json keeps the entries of the tier's
# goals a prover proved, recorded by a run from an empty cache (the update-proof-results target). With --proven, a
# run begins its cache with them: a goal whose text is the same as one recorded takes the recorded verdict, and
# every other goal (a change to a kernel, its contract, the support header, Frama-C or why3 that alters the goal's
# text, another prover version) goes to the provers. Qed, Frama-C's own simplifier, still simplifies every goal in
# every run, and a goal it proves never reaches the file. With KERNELGEN_WP_FRESH=1 a run proves everything again
# from an empty cache; with KERNELGEN_WP_RECORD=FILE it does so and adds the verdicts of its goals to FILE (the
# update-proof-results target records into a file of the build folder, then copies it over wp_proven.json once
# every test passed).
FRESH, RECORD = "KERNELGEN_WP_FRESH", "KERNELGEN_WP_RECORD"
DIGEST = re.compile(r"[0-9a-f]{32}")


def fresh():
    return os.environ.get(FRESH) == "1" or bool(os.environ.get(RECORD))


def begin_cache(folder, proven):
    """A cache in `folder` for a run: empty, or holding the recorded verdicts of `proven` (RESULTS). Returns the
    digests it holds."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    if proven and not fresh():
        if not os.path.exists(proven):
            sys.exit(f"{proven}: no such file (git checkout it, or record it: the update-proof-results target)")
        for digest, verdict in json.load(open(proven)).items():
            if not (DIGEST.fullmatch(digest) and isinstance(verdict, dict) and verdict.get("verdict") == "valid"):
                sys.exit(f"{proven}: {digest!r}: not a digest and a valid verdict")
            with open(os.path.join(folder, f"{digest}.json"), "w") as out:
                json.dump(verdict, out)
    return {entry[:-len(".json")] for entry in os.listdir(folder)}


def cached_verdicts(folder):
    """The goals proven by a prover, as WP's cache in `folder` holds them: {digest: verdict}."""
    proven = {}
    for entry in sorted(e for e in os.listdir(folder) if e.endswith(".json")):
        # WP writes a whole number of seconds as OCaml prints a float ("time": 2.), which JSON does not allow.
        text = re.sub(r"(\d)\.(?=[\s,}])", r"\1.0", open(os.path.join(folder, entry)).read())
        try:
            verdict = json.loads(text)
        except ValueError:  # not a verdict
            continue
        if isinstance(verdict, dict) and verdict.get("verdict") == "valid":
            proven[entry[:-len(".json")]] = verdict
    return proven


def record(proven, run):
    """Adds `run`, the verdicts of a run from an empty cache, to those `proven` records (RESULTS), one goal a line in
    digest order. Tests that record at once take turns (a lock on its folder)."""
    lock = os.open(os.path.dirname(os.path.abspath(proven)), os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        verdicts = json.load(open(proven)) if os.path.exists(proven) else {}
        verdicts.update(run)
        with open(proven + ".new", "w") as out:
            out.write("{\n" + ",\n".join(f"{json.dumps(d)}: {json.dumps(v, sort_keys=True)}"
                                          for d, v in sorted(verdicts.items())) + "\n}\n")
        os.replace(proven + ".new", proven)
    finally:
        os.close(lock)
    print(f"{proven} records the verdicts of {len(verdicts)} goals")


# Goals one function of a kernel of the random sample may have (the kernel's, or a helper's): more (a long straight
# line) take minutes, as WP builds each goal with every statement before it. Long written-out checks and copies are
# short functions of their own (docs/generated-code.md, "Contracts"): random_Gather_37 (16 checks and 48 copies, 449
# goals in all, 8 functions) is proven in 15 s. Before them, random_ScatterND_nan_11 (245 goals in one function)
# took 150 s.
SAMPLE_GOALS = 200
SAMPLE_LISTING = 10  # seconds WP may take to list them
LARGE_TABLE = 16384  # bytes of a constant table's C text (its _data.inc): proven for any contents (table_options)


def table_options(folder, name):
    """WP's options for the kernel `name`'s constant tables: with a table of more than LARGE_TABLE bytes of C, no
    initial value (-wp-no-init-const). WP builds a table's initial value element by element, for minutes before
    any goal (a table of 219 KB went past 5 minutes); without it, the kernel is proven for any contents of its
    constant tables, which holds for the contents they have. No goal of such a kernel depends on a value of its
    tables (the data, a quantized table's values, scales and zero points: each read at an offset the indices
    decide, each value only converted); a goal that did would fail, not pass. Not for a kernel that copies
    constant runs by tables of their offsets (RUN_TABLES), whose values its goals need: form_beyond_wp."""
    return ["-wp-no-init-const"] if large_table(folder, name) and not run_tables(folder, name) else []


def large_table(folder, name):
    data_file = os.path.join(folder, f"{name}_data.inc")
    return os.path.exists(data_file) and os.path.getsize(data_file) > LARGE_TABLE


# A kernel's tables of the offsets and lengths of constant runs (helpers.c.mustache), which its copies read.
RUN_TABLES = re.compile(r"^static const \w+ kernelgen_\w+_(sources|destinations|lengths)\[", re.M)


def run_tables(folder, name):
    return bool(RUN_TABLES.search(open(os.path.join(folder, f"{name}.c")).read()))


def form_beyond_wp(header, work, frama_c):
    """Why WP does not prove this kernel's form yet (the forms of wp_known_unproven.txt), or None: a constant table
    over LARGE_TABLE beside tables of constant runs (table_options), more goals than SAMPLE_GOALS in one of its
    functions (the kernel's, or a helper's: counted by WP with no prover, in a fraction of a second)."""
    source = open(header[:-2] + ".c").read()
    name = kernel_name(header)
    folder = os.path.dirname(os.path.abspath(header))
    if large_table(folder, name) and run_tables(folder, name):
        return "a constant table of more than 16 KB of C beside tables of constant runs"
    copy = os.path.join(work, f"{name}_goals.c")
    with open(copy, "w") as out:
        out.write(source)
    functions = [name] + re.findall(r"^static (?:inline )?\w+ (kernelgen_\w+)\(", source, re.M)
    try:
        run = subprocess.run(wp_command(frama_c, "none", [folder], functions, copy) + table_options(folder, name),
                             capture_output=True, text=True, timeout=SAMPLE_LISTING)
    except subprocess.TimeoutExpired:
        return f"its goals not listed within {SAMPLE_LISTING} s"
    goals = {}
    for goal in re.findall(r"\[wp\] Goal typed_(\w+) : not tried", run.stdout + run.stderr):
        owner = max((f for f in functions if goal.startswith(f + "_")), key=len, default="")
        goals[owner] = goals.get(owner, 0) + 1
    most = max(goals.items(), key=lambda item: item[1], default=("", 0))
    return f"{most[1]} goals in {most[0]}, more than the sample's {SAMPLE_GOALS}" if most[1] > SAMPLE_GOALS else None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", required=True)
    parser.add_argument("--frama-c", default="frama-c")
    parser.add_argument("--steps", type=int, default=STEPS, help="a prover's steps per goal (the limit that decides)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per goal: a net for slow machines")
    parser.add_argument("--known")
    parser.add_argument("--mutants", nargs="?", const="check", choices=("check", "copy"),
                        help="check: remove each kernel's first index check, WP must then leave a goal unproven; "
                             "copy: swap the sources of its first two element copies, WP must then leave the "
                             "header's values unproven")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--batch", default="1/1")
    parser.add_argument("--sample", type=int, default=0,
                        help="every N-th kernel only (random ones); those of a form WP does not prove yet "
                             "(form_beyond_wp) are reported and skipped, the others must be proven")
    parser.add_argument("--match", help="only the kernels whose name this regular expression matches (with --sample: "
                                             "every N-th of them)")
    parser.add_argument("--kernelgen", help="generate the kernels first, with this kernelgen, from the specs given")
    parser.add_argument("--proven", help="begin WP's cache with the verdicts this file records (RESULTS above)")
    parser.add_argument("headers", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.kernelgen:
        folder = os.path.join(args.work, "kernels")
        subprocess.run([args.kernelgen, "--out-dir", folder] + args.headers, check=True)
        args.headers = [folder]
    headers = kernel_headers(args.headers)
    known = known_alarms(args.known) if args.known else {}
    # A name no kernel of the folders given has (a list that no longer holds).
    stale = sorted(name for name in known if not any(kernel_name(h) == name for h in headers))
    if stale and all(os.path.isdir(item) for item in args.headers):
        print(f"FAIL {args.known} names kernels there are not: {', '.join(stale)}")
        return 1
    first, every = (int(part) for part in args.batch.split("/"))
    if args.match:
        headers = [h for h in headers if re.search(args.match, kernel_name(h))]
    headers = headers[first - 1::every]
    if args.sample:
        headers = headers[::args.sample]
        for header in headers:
            form = form_beyond_wp(header, args.work, args.frama_c)
            if form:
                known[kernel_name(header)] = form
    for name in sorted(known):
        if any(kernel_name(h) == name for h in headers):
            print(f"skip {name}: {'not required' if args.sample else 'known unproven'} ({known[name]})")
    headers = [h for h in headers if kernel_name(h) not in known]
    shared = os.path.join(args.work, "cache") if args.proven else None
    recorded = begin_cache(shared, args.proven) if shared else set()  # digests
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda h: prove(h, args.work, args.frama_c, args.steps, args.timeout, args.mutants,
                                                shared), headers))
    for name, ok, summary, log in results:
        if args.mutants:
            expected = not ok and "goals" in summary
            if args.mutants == "copy":
                # Only the values: every other goal (each access in bounds) still proven.
                expected = expected and bool(log) and all("values" in line for line in log.splitlines())
            what = "first check removed" if args.mutants == "check" else "two copies' sources swapped"
            print(f"{'ok  ' if expected else 'FAIL'} {name} ({what}): {summary}")
            if not expected and log:
                print(log)
        else:
            expected = ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {summary}")
            if not ok and log:
                print(log)
        failures += not expected
    if shared:
        run = cached_verdicts(shared)
        new = len(run.keys() - recorded)
        print(f"{new} goals proven by a prover in this run, {len(recorded)} recorded verdicts begun with"
              + ("" if not new or fresh() else
                 f" ({os.path.basename(args.proven)} is not current: the update-proof-results target records them)"))
        if os.environ.get(RECORD):
            record(os.environ[RECORD], run)
    print(f"{len(results) - failures} of {len(results)} as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
