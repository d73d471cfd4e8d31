#!/usr/bin/env python3
"""Frama-C EVA over generated kernels, every input free: 0 alarms or the test fails.

For each header given (a kernel of a kernelgen output folder), writes a driver that fills every input buffer
(data, indices, updates, and output itself) with values EVA knows nothing about, the indices over their type's
whole range, and a run-time count or data count over all of uint32_t, then calls the kernel; where the header
allows a scatter in place (output the same pointer as data), a second call does so. EVA then analyses the
driver with the kernel and the support code, at each --precision in turn until a run is clean, and this script
reads its summary: an alarm (an unknown precondition of a library call such as memcpy counts as one), a construct
EVA does not implement, or a call it could not analyse fails the kernel. EVA reads the code alone: the ACSL
annotations of the headers and loops are made plain comments first (code_alone), as WP proves them.

A kernel named in --known must still fail (its list stays true); with --sample, kernels of a form EVA cannot
follow (form_beyond_eva) are reported but not required clear; with --mutants, each kernel's first index check is
removed and EVA must then fail it. --kernelgen and --unroll generate the kernels from specs first.

    eva_kernels.py --work DIR [--frama-c PATH] [--precision P]... [--timeout S] [--known FILE [--known-timeout S]]
                   [--sample N | --mutants] [--batch K/N] [--kernelgen PATH --unroll U] HEADER_FOLDER_OR_SPEC...
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

# How a driver fills a buffer of this element type with any value of the type (bool: 0 or 1; a string: some
# string, its text never read by a kernel; every other type: any bytes).
FILL = {
    "bool": "for (size_t i = 0; i < n; ++i) b[i] = Frama_C_interval(0, 1) != 0;",
    "const char *": 'for (size_t i = 0; i < n; ++i) b[i] = "s";',
}

PROTOTYPE = re.compile(r"^int (\w+)\((.*)\);$", re.M)
PARAMETER = re.compile(r"^(?:const )?(char \*(?:const )?|\w+ )\*(\w+)$|^uint32_t (\w+)$")


def parameters(text):
    """The kernel's name and its parameters as (role, element type, is_count) from the header's prototype."""
    found = PROTOTYPE.search(text)
    if not found:
        raise SystemExit("no kernel prototype")
    result = []
    for part in found.group(2).split(", "):
        match = PARAMETER.match(part.strip())
        if not match:
            raise SystemExit(f"parameter not understood: {part}")
        if match.group(3):
            result.append((match.group(3), "uint32_t", True))
        else:
            element = "const char *" if match.group(1).startswith("char") else match.group(1).strip()
            result.append((match.group(2), element, False))
    return found.group(1), result


def kernel_name(header):
    """The kernel a header declares, by the header's file name (kernelgen names it after the kernel)."""
    return os.path.basename(header)[:-2]


def driver(header, text, together=False):
    """The kernel's name and the text of a driver for it, whose function (`main`, or `eva_<kernel>` to be called
    with others, cleared_together) fills the inputs and calls it."""
    name, params = parameters(text)
    entry = f"eva_{name}" if together else "main"
    upper = name.upper()
    in_place = "output may be the same pointer as data" in text
    lines = ['#include "__fc_builtin.h"', "#include <stddef.h>", f'#include "{os.path.basename(header)}"', ""]
    for role, element, is_count in params:
        if is_count:
            continue
        size = f"{upper}_{role.upper()}_SIZE"
        # Exactly the tensor's size (an empty tensor, which C has no array for, gets one element).
        lines.append(f"static {element} {role}_buffer[{size} > 0 ? {size} : 1];")
    lines.append("")
    for role, element, is_count in params:
        if is_count:
            continue
        body = FILL.get(element, "Frama_C_make_unknown((char *)b, n * sizeof *b);")
        lines += [f"static void fill_{role}({element} *b, size_t n)", "{", f"    {body}", "}"]
    lines += ["", f"int {entry}(void)", "{", "    int result;"]
    for role, element, is_count in params:
        if is_count:
            lines.append(f"    uint32_t {role} = Frama_C_unsigned_int_interval(0u, 4294967295u);")
        else:
            lines.append(f"    fill_{role}({role}_buffer, {upper}_{role.upper()}_SIZE);")

    def call(output):
        args = [role if is_count else (output if role == "output" else f"{role}_buffer")
                for role, _, is_count in params]
        return f"{name}({', '.join(args)})"

    calls = [f"result = {call('output_buffer')};"] + ([f"result |= {call('data_buffer')};"] if in_place else [])
    # Every data count and run-time extent still: those up to its bound one at a time (a state of EVA's each, which
    # relates the count to the index values checked against it, and to the copies' offsets), the rest in one.
    split = [role for role, _, is_count in params if is_count and (role == "data_count" or role.startswith("data_dim_"))]

    def nested(roles, depth):
        pad = "    " * depth
        if not roles:
            return [f"{pad}{line}" for line in calls]
        role = roles[0]
        inner = nested(roles[1:], depth + 1)
        return ([f"{pad}if ({role} <= {upper}_MAX_{role.upper()}) {{", f"{pad}    /*@ split {role}; */"] + inner +
                [f"{pad}}} else {{"] + [f"{pad}    {line}" for line in calls] + [f"{pad}}}"])

    lines += nested(split, 1)
    lines += ["    return result;", "}", ""]
    return name, "\n".join(lines)


# A line of EVA's log that fails a kernel: an alarm, an annotation or construct it could not handle, a warning.
PROBLEM = re.compile(r"\[(eva:alarm|kernel:annot-error|eva:locals-escaping|eva:garbled-mix)\]|"
                     r"\[eva\] .*(not implemented|Neither code nor specification)|"
                     r"warning: |\[kernel\] User Error|Assertion .* invalid")
# Where a kernel's checks gather into one flag, run up to a run-time count or compare against a run-time data count,
# its copies restate each index value's range (`/*@ assert checked: ... */`, kept by code_alone): EVA takes it as a
# hypothesis and leaves its status unknown, which is no problem here, as WP proves each (wp_kernels.py); one EVA
# finds invalid still fails.
RESTATED = re.compile(r"assertion 'checked' got status unknown")


def problems_in(log):
    """The messages of EVA's log (a line opening with `[`, and the indented lines after it) that fail a kernel."""
    return [message for message in re.split(r"\n(?=\[)", log) if PROBLEM.search(message) and not RESTATED.search(message)]


def run_eva(folder, sources, frama_c, extra, timeout, defines=()):
    """EVA over `sources` (their headers in `folder`, the preprocessor given `defines`): (exit code or "timeout",
    log, seconds, alarms or None, the lines that fail a kernel)."""
    command = [frama_c, "-eva", "-machdep", "x86_64", f"-cpp-extra-args={' '.join([f'-I{folder}', *defines])}",
               "-warn-special-float", "none", "-eva-no-show-progress",
               "-eva-split-limit", "1000",  # the driver's split of a data count (driver())
               # a caller branching on a check's result keeps what the check learned about the index
               "-eva-split-return", "auto"] + extra + sources
    began = time.monotonic()
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        code, log = run.returncode, run.stdout + run.stderr
    except subprocess.TimeoutExpired:
        code, log = "timeout", f"EVA ran out of its {timeout:g} s"
    alarms = re.search(r"(\d+) alarms? generated", log)
    problems = problems_in(log)
    return code, log, time.monotonic() - began, int(alarms.group(1)) if alarms else None, problems


def write_driver(header, work, together=False):
    """The kernel's name and the path of its driver (driver()), written into `work`."""
    name, driver_source = driver(header, open(header).read(), together)
    path = os.path.join(work, f"{name}_driver.c")
    with open(path, "w") as out:
        out.write(driver_source)
    return name, path


def restates(header):
    """Whether the kernel's copies restate its checks (RESTATED), which it is then analysed alone to take."""
    return "/*@ assert checked:" in open(header[:-2] + ".c").read()


def analyse(header, work, frama_c, extra, timeout, source=None):
    """EVA over the kernel of `header` (its .c beside it, or `source` in its place): (name, ok, summary, log). A
    kernel whose copies restate its checks is analysed with EVA's domain of imprecise lvalues' values, which
    carries a range restated for indices[i0] to the copy's read of it (given to every kernel, the domain gave four
    others alarms: row copies' memcpy preconditions, and a read of words_q8)."""
    folder = os.path.dirname(os.path.abspath(header))
    name, path = write_driver(header, work)
    sources = [path, source or os.path.join(folder, f"{name}.c"), os.path.join(folder, "kernelgen_support.c")]
    if restates(header):
        extra = extra + ["-eva-domains", "symbolic-locations"]
    code, log, seconds, alarms, problems = run_eva(folder, sources, frama_c, extra, timeout)
    ok = code == 0 and alarms == 0 and not problems
    if code == "timeout":
        summary = f"timed out after {seconds:.0f} s"
    elif alarms is None:
        summary = f"EVA failed (exit {code})"
    else:
        summary = f"{alarms} alarms, {len(problems)} warnings, {seconds:.1f} s ({' '.join(extra)})"
    return name, ok, summary, log if alarms is None else "\n".join(problems)


def cleared_together(headers, work, frama_c, extra, timeout):
    """The kernels of `headers` (of one folder) that one EVA run of them all clears, as {name: summary}.

    Most of a run on one kernel is Frama-C's start and parse (0.3 s of 0.4). One run takes them all: each driver's
    function (`eva_<kernel>`, its buffers its own statics, filled with values EVA knows nothing about as alone) is
    called in turn from one `main`, and after each call a marker (Frama_C_show_each_cleared_<i>) shows that EVA got
    past it. Each call starts from its own buffers' state, and every alarm and warning is placed: by the call stack
    EVA prints with it (through `eva_<kernel>`: an alarm in the support code a kernel calls is that kernel's), else
    by the files it names (a kernel's source, header, tables or driver). A kernel is cleared when EVA reached its
    marker and no message is its own, as its own run would clear it. A message that cannot be placed clears none; a
    kernel not cleared here is for the caller to run on its own."""
    if len(headers) < 2:
        return {}
    folder = os.path.dirname(os.path.abspath(headers[0]))
    names, sources, calls = [], [], []
    for i, header in enumerate(headers):
        name, path = write_driver(header, work, together=True)
        names.append(name)
        sources += [path, os.path.join(folder, f"{name}.c")]
        calls += [f"    eva_{name}();", f"    Frama_C_show_each_cleared_{i}(0);"]
    owner = {}
    for name in sorted(names, key=len):  # a table's file goes to the longest kernel name it starts with
        owner.update({f"{name}.c": name, f"{name}_driver.c": name, f"{name}.h": name})
        owner.update({entry: name for entry in os.listdir(folder)
                      if entry.startswith(f"{name}_") and entry.endswith(".inc")})
    main = os.path.join(work, f"together_{names[0]}_{len(names)}.c")
    with open(main, "w") as out:
        out.write("\n".join(['#include "__fc_builtin.h"'] + [f"int eva_{name}(void);" for name in names] +
                            ["", "int main(void)", "{"] + calls + ["    return 0;", "}", ""]))
    code, log, seconds, alarms, _ = run_eva(folder, [main] + sources + [os.path.join(folder, "kernelgen_support.c")],
                                           frama_c, extra + ["-eva-print-callstacks"],
                                           timeout * len(headers) if timeout else None,
                                           # A prefetch hint (no effect on any value), which Frama-C does not
                                           # know, is nothing: each source would otherwise declare it its own way.
                                           ["'-D__builtin_prefetch(...)=((void)0)'"])  # quoted: a shell runs the preprocessor
    if code != 0 or alarms is None:
        return {}
    # Each message of the log (a line opening with `[`, and the indented lines after it) that fails a kernel is
    # blamed on the kernel whose driver its call stack passes through (`eva_<kernel> ::`), or whose files it names.
    blamed = set()
    for message in problems_in(log):
        callers = set(re.findall(r"\beva_(\w+) ::", message)) & set(names)
        files = {os.path.basename(f) for f in re.findall(r"([^\s:]+\.(?:c|h|inc)):\d+", message)}
        whose = callers or {owner.get(f) for f in files}
        if not whose or None in whose:
            return {}
        blamed |= whose
    if alarms and not blamed:
        return {}
    reached = set(int(i) for i in re.findall(r"Frama_C_show_each_cleared_(\d+)", log))
    summary = f"0 alarms, 0 warnings ({' '.join(extra)}; one run of {len(names)} kernels, {seconds:.1f} s)"
    return {name: summary for i, name in enumerate(names) if i in reached and name not in blamed}


# The first index check of a kernel: an `if` whose condition tests an index (or the ORed offsets of a loop of
# checks), with its `return` of the error.
CHECK = re.compile(r"^( *)if \((kernelgen_outside|outside > |[^\n]*< -)[^\n]*\{\n[^\n]*return [A-Z0-9_]*_ERROR_INDEX_OUT_OF_RANGE;\n\1\}\n",
                   re.M)


def mutant(header, work):
    """The kernel's source with its first index check removed, written into `work`; None if it has none."""
    name = kernel_name(header)
    text = open(os.path.join(os.path.dirname(header), f"{name}.c")).read()
    removed, count = CHECK.subn("", text, count=1)
    if not count:
        return None
    path = os.path.join(work, f"{name}_mutant.c")
    with open(path, "w") as out:
        out.write(removed)
    return path


def form_beyond_eva(header):
    """Why EVA cannot clear this kernel's form, or None: "index_check": "none" kernels are the caller's to keep in
    range. (Checks gathered into one flag, run up to a run-time count or against a data count were such forms
    until the copies restated the checks, RESTATED.)"""
    if 'Generated with "index_check": "none"' in open(header).read():
        return "unchecked: the caller guarantees the indices"
    return None


def kernel_headers(items):
    """The kernel headers given, each folder among them as its kernels' headers (in name order)."""
    headers = []
    for given in items:
        if os.path.isdir(given):
            headers += sorted(os.path.join(given, f) for f in os.listdir(given)
                              if f.endswith(".h") and f != "kernelgen_support.h")
        else:
            headers.append(given)
    return headers


MIRRORED = set()  # the folders code_alone has copied in this run

# The support code's wraps of a signed index by a size, each with the parameter it reads: an index in [-size, size-1]
# read as an unsigned low word is [0, size-1] and [2^32 - size, 2^32 - 1], which EVA's interval joins into every
# uint32_t value, so a wrapped offset was unbounded wherever the index's values were too many to enumerate (the
# 300-row tables of far_table_2 and quantized_12). EVA's `split` annotation analyses the two signs apart, a state
# each: a direction for the analysis only, the code and its meaning unchanged. Sizes up to 128 are left whole: EVA
# enumerates their 256 values at -eva-precision 11, and splitting them too (states EVA's slevel then keeps apart
# after the wrap, doubling at each) kept a kernel of 16 wraps (random_GatherND_5) 90 s in EVA, against 1.
WRAP = re.compile(r"(static inline \w+ kernelgen_wrap_(plus_)?[a-z0-9]+_u(?:32|64)\("
                  r"(?:const \w+ \*(at)|\w+ (index))[^)]*\)\n\{\n)")


def split_signs(support):
    """The support header's text with a `split` of the index's sign at the head of each wrap (WRAP). A header
    that defines wraps WRAP no longer finds (their text changed) is an error, not an analysis without the splits."""
    def split(match):
        value = "*at" if match.group(3) else "index"
        return f"{match.group(1)}    /*@ split size > 128 && {value}{' + plus' if match.group(2) else ''} < 0; */\n"
    text, splits = WRAP.subn(split, support)
    if splits == 0 and "kernelgen_wrap_i64_u32(const int64_t *at" in support:
        sys.exit("eva_kernels.py: the support header's wraps no longer read as WRAP expects: update WRAP")
    return text


def code_alone(header, work):
    """The header's copy, in a copy of its folder whose ACSL annotations (the contracts in the headers and the
    support code, the loops' invariants) are plain comments: EVA analyses the code alone, as a compiler reads it,
    and takes no annotation as a hypothesis where it cannot decide it (those are WP's to prove, wp_kernels.py), but
    the copies' restated checks (RESTATED), each of which WP proves. The C library's own specifications, which EVA
    checks each call against (memcpy's source and destination), stay; the support header's wraps gain a split of
    the index's sign (split_signs)."""
    folder = os.path.dirname(os.path.abspath(header))
    mirror = os.path.join(work, "code", re.sub(r"\W+", "_", folder).strip("_"))
    if mirror not in MIRRORED:  # written once a run, over what an earlier run left (the kernels may have changed)
        MIRRORED.add(mirror)
        os.makedirs(mirror, exist_ok=True)
        for entry in os.listdir(folder):
            source = os.path.join(folder, entry)
            if os.path.isfile(source) and entry.endswith((".c", ".h", ".inc")):
                with open(source) as inp, open(os.path.join(mirror, entry), "w") as out:
                    text = re.sub(r"/\*@(?! assert checked:)", "/* @", inp.read())
                    out.write(split_signs(text) if entry == "kernelgen_support.h" else text)
    return os.path.join(mirror, os.path.basename(header))


def known_alarms(path):
    """The kernels EVA is known not to clear, from the file's lines `name: reason` (# starts a comment)."""
    known = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, reason = line.partition(":")
            known[name.strip()] = reason.strip()
    return known


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", required=True, help="folder for the drivers")
    parser.add_argument("--frama-c", default="frama-c")
    parser.add_argument("--precision", action="append", type=int,
                        help="EVA's -eva-precision, tried in the order given until one run finds no alarm")
    parser.add_argument("--timeout", type=float, default=None, help="seconds EVA may take a kernel")
    parser.add_argument("--known", help="file of the kernels with known alarms: they must still have them")
    parser.add_argument("--mutants", action="store_true",
                        help="remove each kernel's first index check: EVA must then report an alarm")
    parser.add_argument("--known-timeout", type=float, default=None,
                        help="seconds EVA may take a kernel of --known (running out of them leaves it uncleared)")
    parser.add_argument("--sample", type=int, default=0,
                        help="kernels of unknown names (random ones): every N-th; those of a form EVA cannot "
                             "follow (form_beyond_eva) are analysed and may keep alarms, the others must have none")
    parser.add_argument("--kernelgen", help="generate the kernels first: this kernelgen, with --unroll, ...")
    parser.add_argument("--unroll", help="... this unroll setting, from the specs given in place of headers")
    parser.add_argument("--batch", default="1/1", help="K/N: only the K-th of every N kernels, for parallel tests")
    parser.add_argument("headers", nargs="+", help="kernel headers, or folders of them")
    args = parser.parse_args()
    if args.kernelgen:
        folder = os.path.join(args.work, "kernels")
        subprocess.run([args.kernelgen, "--unroll", args.unroll, "--out-dir", folder] + args.headers, check=True)
        args.headers = [folder]
    headers = kernel_headers(args.headers)
    k, n = (int(x) for x in args.batch.split("/"))
    os.makedirs(args.work, exist_ok=True)
    args.headers = [code_alone(header, args.work) for header in headers[k - 1::n]]
    known = known_alarms(args.known) if args.known else {}
    if args.sample:
        args.headers = args.headers[::args.sample]
        for header in args.headers:
            form = form_beyond_eva(header)
            if form:
                known[kernel_name(header)] = form
    precisions = [["-eva-precision", str(p)] for p in args.precision or [0]]
    # The kernels required clear are first analysed all at once (cleared_together), at each precision in turn on
    # those not yet cleared; those not cleared so run alone, as the loop below runs every kernel.
    together = [] if args.mutants else [h for h in args.headers if kernel_name(h) not in known and not restates(h)]
    cleared = {}
    for options in precisions:
        cleared.update(cleared_together([h for h in together if kernel_name(h) not in cleared],
                                        args.work, args.frama_c, options, args.timeout))
    failed = 0
    for header in args.headers:
        if kernel_name(header) in cleared:
            print(f"ok   {kernel_name(header)}: {cleared[kernel_name(header)]}")
            continue
        if args.mutants:
            source = mutant(header, args.work)
            if source is None:
                print(f"FAIL {os.path.basename(header)}: no index check found to remove")
                failed += 1
                continue
            name, ok, summary, _ = analyse(header, args.work, args.frama_c, precisions[-1], args.timeout, source)
            good = not ok and "alarms" in summary and not summary.startswith("0 alarms, 0 warnings")
            print(f"{'ok  ' if good else 'FAIL'} {name} without its first index check: {summary}"
                  f"{'' if good else ' (EVA should have found the access the check guarded)'}")
            failed += not good
            continue
        listed = kernel_name(header) in known
        timeout = args.known_timeout if listed else args.timeout
        # Each run is sound: one without alarms is enough. A kernel listed (or of a form EVA cannot follow) runs
        # at the last precision alone, the one that would clear it.
        for options in precisions[-1:] if listed else precisions:
            name, ok, summary, details = analyse(header, args.work, args.frama_c, options, timeout)
            if ok:
                break
        if name in known and args.sample:
            good = True  # a form EVA cannot follow: reported, alarms or not
            print(f"ok   {name}: {summary} (not required: {known[name]})")
        elif name in known:
            good = not ok
            print(f"{'ok  ' if good else 'FAIL'} {name}: {summary} (known: {known[name]})"
                  f"{'' if good else '; now clean: remove it from ' + args.known}")
        else:
            good = ok
            print(f"{'ok  ' if good else 'FAIL'} {name}: {summary}")
            if not good:
                print(details)
        failed += not good
    if args.mutants and len(args.headers) > 1:
        # Analysed several at once, as cleared_together takes the kernels required clear, the mutants (each
        # beside the others, in a copy of their folder) must not be cleared either.
        folder = os.path.join(args.work, "mutants_together")
        os.makedirs(folder, exist_ok=True)
        beside = os.path.dirname(os.path.abspath(args.headers[0]))
        for entry in os.listdir(beside):
            if entry.endswith((".c", ".h", ".inc")):
                shutil.copy(os.path.join(beside, entry), folder)
        for header in args.headers:
            name = kernel_name(header)
            if os.path.exists(os.path.join(args.work, f"{name}_mutant.c")):
                shutil.copy(os.path.join(args.work, f"{name}_mutant.c"), os.path.join(folder, f"{name}.c"))
        wrongly = cleared_together([os.path.join(folder, os.path.basename(h)) for h in args.headers], args.work,
                                   args.frama_c, precisions[-1], args.timeout)
        print(f"{'FAIL' if wrongly else 'ok  '} the {len(args.headers)} mutants analysed at once: "
              f"{'cleared ' + ', '.join(sorted(wrongly)) if wrongly else 'none cleared'}")
        failed += bool(wrongly)
    print(f"{len(args.headers) - failed} of {len(args.headers)} as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
