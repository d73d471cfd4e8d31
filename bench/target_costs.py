#!/usr/bin/env python3
"""On-target costs of kernelgen's kernels: executed instructions or cycles per call, flash and stack.

Targets (--target, repeatable; all three by default):
  m4f  Cortex-M4F, qemu-system-arm -M mps2-an386: guest instructions per call, counted by the TCG plugin
       bench/target/qemu_count_plugin.c between two marker functions (kg_start, kg_stop);
  m0   Cortex-M0, qemu-system-arm -M microbit (nRF51, 16 KB RAM, 256 KB flash): the same;
  avr  ATmega2560 under simavr: cycles per call, read from Timer1 at prescaler 1 (extended past 16 bits by
       its overflow interrupt) around the call and printed on UART0.
The instructions or cycles of an empty bracket, measured the same way, are subtracted. Each kernel is also
compiled on its own with the project's strict flags at -Os for the target: .text, .rodata (on AVR also the
.progmem tables) and stack (the -fstack-usage frames of its file, summed, as cmake/KernelGenSizeReport.cmake
counts them).

Each spec's kernel is generated on its own (bench/unroll_report.py's generate()): as its spec says, or, for
each --unroll MODE, with that mode and the spec's "unroll" key removed. One program per target and mode holds
every kernel: it fills the inputs (data with distinct values, indices pseudo-random and in range, negative ones
too) in one shared arena in RAM, then brackets one call of each kernel. A kernel whose tensors do not fit the
arena has its read-only inputs (data, indices, updates) in flash as constants where that makes it fit (Arm
only: AVR reads its data space only), else it is reported "does not fit". Kernels that refuse the target with
their own #error (AVR: 64-bit doubles, tensors over 64 KB) are "refused".

With --baselines, the cases of bench/specs/ are measured four ways too (docs/speed-and-size.md measures the
first two on x86): kernelgen's kernel, the runtime-shaped kernel (bench/runtime_shaped.c), the plain-loop kernel
and the same loops unchecked, in the shape of onnx2c's kernels (bench/plain_loops.py). --plain (and --doc) compares every
kernel of the specs with its plain and unchecked loops; with --doc, each kernel slower than its unchecked loops on
some target must have its row, with a reason written by hand, in the page's slower-than-unchecked table (the
figures checked or rewritten, the reasons kept), or the run exits 1. Each call's output is hashed after its bracket, and the
run stops where a baseline's output differs from kernelgen's (each output is first filled with a pattern, so a
baseline that leaves part of it unwritten differs too). The calls of one spec share their constant inputs.

With --materialized (and --doc), each kernel whose indices or updates are derived from the tensor it takes
("indices_broadcast_from", "indices_add", "tuple_constants", "updates_broadcast_from") is measured against its
materialized twin: the same spec without those keys, passed the indices and updates the kernel makes of the same
values (a scatter's calls out of place and in place); the table gives the bytes of indices and updates the caller
holds, the cost of a call and .text, and the outputs must agree.

Usage: bench/target_costs.py --kernelgen build/kernelgen [--plugin build/bench/libqemu_count_plugin.so]
          [--target m4f|m0|avr]... [--unroll MODE]... [--baselines] [--plain] [--materialized] [--json FILE] [--out FILE]
          [--doc docs/microcontrollers.md (--check | --update)] [--auto-goal] SPEC.json...

--auto-goal checks the goal of "unroll": "auto" (docs/generated-code.md) on the Cortex-M targets: with --unroll none
--unroll auto, or beside --doc, where "auto" is measured only for the kernels whose spec sets its own "unroll" (the
others' spec setting is auto, measured for the page already).
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from math import prod

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, BENCH)
import flash_vs_plain  # noqa: E402
import plain_loops  # noqa: E402
import unroll_report  # noqa: E402
from unroll_report import run  # noqa: E402

PLAIN_WAYS = {"plain": True, "unchecked": False}  # bench/plain_loops.py's kernels: checked, and onnx2c's unchecked shape
PLAIN_PROGRAM = 40  # kernels per program in plain_costs()

ARENA_ALIGN = 8


def strict_flags():
    """The project's strict flag set, read from the top-level CMakeLists.txt (KERNELGEN_STRICT_C_FLAGS)."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        match = re.search(r"set\(KERNELGEN_STRICT_C_FLAGS\s+([^)]*)\)", f.read())
    return match.group(1).split()


class Target:
    def __init__(self, key, title, tool_prefix, flags, board, link, machine, ram_arena, flash_inputs, pointer,
                 unit):
        self.key, self.title, self.tool_prefix, self.flags = key, title, tool_prefix, flags
        self.board, self.link, self.machine = board, link, machine
        self.ram_arena = ram_arena        # bytes of RAM the shared arena of inputs and outputs may take
        self.flash_inputs = flash_inputs  # bytes of flash read-only inputs may take (0: not addressable)
        self.pointer = pointer            # sizeof(const char *)
        self.unit = unit                  # "instructions" or "cycles"

    def tool(self, name):
        return self.tool_prefix + name


TARGETS = {
    "m4f": Target("m4f", "Cortex-M4F", "arm-none-eabi-",
                  ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"],
                  "boards/cortex-m/startup.c", "boards/mps2-an386/mps2_an386.ld", "mps2-an386",
                  3 << 20, 3 << 20, 4, "instructions"),
    "m0": Target("m0", "Cortex-M0", "arm-none-eabi-", ["-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft"],
                 "boards/cortex-m/startup.c", "boards/microbit/microbit.ld", "microbit",
                 11 << 10, 160 << 10, 4, "instructions"),
    "avr": Target("avr", "ATmega2560", "avr-", ["-mmcu=atmega2560"], None, None, None,
                  6 << 10, 0, 2, "cycles"),
}

ELEMENT_BYTES = {"float32": 4, "float": 4, "float64": 8, "double": 8, "int8": 1, "uint8": 1, "bool": 1, "int16": 2,
                 "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
                 "complex64": 8, "complex128": 16}


def element_bytes(dtype, target):
    return target.pointer if dtype == "string" else ELEMENT_BYTES[dtype]


def value_expression(dtype, i):
    """C: the i-th value of an input tensor, distinct as far as the type allows (finite for the halves)."""
    c = unroll_report.C_TYPES[dtype]
    if dtype in ("float32", "float"):
        return f"((float){i} + 0.5f)"
    if dtype in ("float64", "double"):
        return f"((double){i} + 0.5)"
    if dtype == "bool":
        return f"(({i} & 1u) != 0u)"
    if dtype == "float16":
        return f"(uint16_t)(0x3C00u + ({i} & 0x3FFFu))"
    if dtype == "bfloat16":
        return f"(uint16_t)(0x3F80u + ({i} & 0x3FFFu))"
    if dtype.startswith("complex"):
        part = "float" if dtype == "complex64" else "double"
        return f"({c}){{({part}){i} + 0.5f, -({part}){i}}}"
    if dtype == "string":
        return f"(kg_words + ({i} & 63u))"
    return f"({c})(({c}){i} * ({c})7 + ({c})3)"


def value_literal(dtype, i):
    """The same value as value_expression(dtype, i), written as a constant initializer."""
    if dtype in ("float32", "float"):
        return f"{i + 0.5!r}f"
    if dtype in ("float64", "double"):
        return f"{i + 0.5!r}"
    if dtype == "bool":
        return "true" if i & 1 else "false"
    if dtype == "float16":
        return str(0x3C00 + (i & 0x3FFF))
    if dtype == "bfloat16":
        return str(0x3F80 + (i & 0x3FFF))
    if dtype.startswith("complex"):
        suffix = "f" if dtype == "complex64" else ""
        return f"{{{i + 0.5!r}{suffix}, {-float(i)!r}{suffix}}}"
    if dtype == "string":
        return f"kg_words + {i & 63}"
    bits = 8 * ELEMENT_BYTES[dtype]
    value = (i * 7 + 3) % (1 << bits)
    if not dtype.startswith("uint") and value >= 1 << (bits - 1):
        value -= 1 << bits
    return f"({unroll_report.C_TYPES[dtype]})({value}{'ll' if bits == 64 else 'l'})"


def index_ranges(spec):
    """[(low, span)]: the value at flat position t of the indices a kernel takes lies in [low, low + span - 1] for
    (low, span) = ranges[t % len(ranges)], in range for the axis it selects along ([-b, b-1]; of a derived kernel,
    the values it takes, that range shifted by the constants added: plain_loops.value_ranges()); span 0 where no
    value is (an empty axis)."""
    if not plain_loops.derived(spec):
        return [(-b, 2 * b) for b in unroll_report.index_bounds(spec)]
    return [(low, max(high - low + 1, 0)) for low, high in plain_loops.value_ranges(spec)]


def index_values(spec, count):
    """The pseudo-random in-range indices (negative ones too; TensorScatter's write indices from 0 to
    write_index_high), the same on every target."""
    tensor_scatter = spec["op"] == "TensorScatter"
    ranges = [] if tensor_scatter else index_ranges(spec)
    state, values = 12345, []
    for t in range(count):
        state = (state * 1103515245 + 12345) % (1 << 32)
        if tensor_scatter:
            values.append((state >> 8) % (unroll_report.write_index_high(spec) + 1))
            continue
        low, span = ranges[t % len(ranges)]
        values.append(low + (state >> 8) % span if span else 0)
    return values


def header_sizes(header, name):
    """Element counts of the kernel's tensors, from its header's NAME_<TENSOR>_SIZE macros."""
    with open(header) as f:
        text = f.read()
    sizes = {}
    for tensor in ("DATA", "INDICES", "UPDATES", "OUTPUT"):
        match = re.search(rf"#define {name.upper()}_{tensor}_SIZE \(?(\d+)", text)
        if match:
            sizes[tensor.lower()] = int(match.group(1))
    return sizes


class Call:
    """One measured call: the function, its tensors (each a dict: name, C type, element bytes, element count,
    read-only, dtype), the spec whose shapes they have, the arguments, and what the program needs for it
    (includes, setup lines); `note` explains a call expected to fail; `index_values`, when set, the indices it is
    passed (else pseudo-random ones in range, index_values()); `update_sources`, when set, per element of its
    updates the element of another call's whose value it is passed (else each its own)."""

    def __init__(self, label, function, tensors, spec, note=""):
        self.label, self.function, self.tensors, self.spec, self.note = label, function, tensors, spec, note
        self.args = [t["name"] for t in tensors]
        self.includes = [f'#include "{spec["name"]}.h"']
        self.setup = []
        self.index_values = None
        self.update_sources = None

    def arena_bytes(self, in_flash):
        return sum(aligned(t["bytes"] * max(t["count"], 1)) for t in self.tensors
                   if not (in_flash and t["readonly"]))

    def flash_bytes(self):
        return sum(t["bytes"] * t["count"] for t in self.tensors if t["readonly"])


def aligned(n):
    return (n + ARENA_ALIGN - 1) // ARENA_ALIGN * ARENA_ALIGN


def measured_names(kernel):
    """What a kernel is measured as: its call, and a TensorScatter's in-place call too (the cache updated where it
    is, as a decode step runs it: no copy of the cache), "<name> in place"."""
    in_place = kernel["op"] == "TensorScatter" and not unroll_report.holds_data(kernel)
    return [kernel["name"]] + ([kernel["name"] + " in place"] if in_place else [])


def kernel_call(spec, header, target, label=None, function=None, in_place=False):
    """The Call of kernelgen's kernel `spec` (or of another function with the same tensors); `in_place`: with
    output as data too."""
    name = spec["name"]
    sizes = header_sizes(header, name)
    c = unroll_report.C_TYPES[spec["dtype"]]
    index = "int32_t" if spec.get("index_dtype") == "int32" else "int64_t"
    size = element_bytes(spec["dtype"], target)
    tensors = []
    if not unroll_report.holds_data(spec) and not in_place:  # constant data is the kernel's own table
        tensors.append(dict(name="data", type=c, bytes=size, count=sizes["data"], readonly=True, dtype=spec["dtype"]))
    if "indices" not in spec:
        tensors.append(dict(name="indices", type=index, bytes=8 if index == "int64_t" else 4, count=sizes["indices"],
                            readonly=True, dtype="index"))
    if spec["op"] in unroll_report.SCATTERS and not unroll_report.holds_updates(spec):  # constant updates likewise
        tensors.append(dict(name="updates", type=c, bytes=size, count=sizes["updates"], readonly=True,
                            dtype=spec["dtype"]))
    tensors.append(dict(name="output", type=c, bytes=size, count=sizes["output"], readonly=False, dtype=spec["dtype"]))
    note = ""
    if spec["op"] != "TensorScatter" and 0 in unroll_report.index_bounds(spec) and sizes.get("indices", 0):
        note = "error path: no index is in range"
    call = Call(label or name, function or name, tensors, spec, note)
    if in_place:
        call.args.insert(0, "output")
    if spec.get("count") == "runtime":  # a run-time count, measured at its bound, after indices (or data)
        bound = spec["data_shape" if spec.get("count_leads") == "data" else "indices_shape"][0]
        call.args.insert(call.args.index("indices" if "indices" in call.args else "data") + 1, f"{bound}u")
    if spec.get("data_count") == "runtime":  # a run-time data count, measured at its bound, right after data
        call.args.insert(call.args.index("data") + 1, f"{spec['data_shape'][0]}u")
    return call


def program_source(target, calls, placement):
    """The C driver: one function per call, each filling its inputs, then calling between the markers."""
    avr = target.key == "avr"
    lines = ["#include <stdbool.h>", "#include <stddef.h>", "#include <stdint.h>", "#include <stdio.h>",
             '#include "kernelgen_support.h"']
    if avr:
        lines += ["#include <avr/interrupt.h>", "#include <avr/io.h>", "#include <avr/sleep.h>"]
    for call in calls:
        lines += [line for line in call.includes if line not in lines]
    arena = max([call.arena_bytes(placement[call.label] == "flash") for call in calls if placement[call.label] != "no"]
                + [ARENA_ALIGN])
    lines += [
        f"static uint64_t kg_arena[{arena // 8 + 1}];",
        "static const char kg_words[] = \"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?\";",
        "static uint32_t kg_state;",
        "int kg_status;",
        "volatile int kg_sink;",
        "void kg_start(void);",
        "void kg_stop(void);",
    ]
    if avr:
        lines += [
            "static volatile uint16_t kg_overflows;",
            "static uint32_t kg_t0, kg_t1;",
            "ISR(TIMER1_OVF_vect) { ++kg_overflows; }",
            "static uint32_t kg_now(void)",
            "{",
            "    const uint8_t sreg = SREG;",
            "    uint16_t low, high;",
            "    cli();",
            "    low = TCNT1;",
            "    high = kg_overflows;",
            "    if ((TIFR1 & _BV(TOV1)) != 0 && low < 0x8000u) ++high;",
            "    SREG = sreg;",
            "    return ((uint32_t)high << 16) | low;",
            "}",
            # The timer starts from 0 at each bracket: a call under 65,536 cycles is then never lengthened by the
            # overflow interrupt, whose 40-odd cycles would fall on some calls and not others with the layout.
            "__attribute__((noinline)) void kg_start(void)",
            "{",
            "    TCNT1 = 0u;",
            "    kg_overflows = 0u;",
            "    TIFR1 = _BV(TOV1);",
            "    kg_t0 = kg_now();",
            "}",
            "__attribute__((noinline)) void kg_stop(void) { kg_t1 = kg_now(); }",
            "static void kg_putc(char c) { while ((UCSR0A & _BV(UDRE0)) == 0) {} UDR0 = (uint8_t)c; }",
            "static void kg_put_u32(uint32_t v)",
            "{",
            "    char digits[10];",
            "    uint8_t n = 0;",
            "    do { digits[n++] = (char)('0' + v % 10u); v /= 10u; } while (v != 0u);",
            "    while (n != 0u) kg_putc(digits[--n]);",
            "}",
            "static void kg_report(int status)",
            "{",
            "    if (status < 0) { kg_putc('-'); status = -status; }",
            "    kg_put_u32((uint32_t)status);",
            "    kg_putc(' ');",
            "    kg_put_u32(kg_t1 - kg_t0);",
            "    kg_putc('\\n');",
            "}",
            "static void kg_report_hash(uint32_t hash) { kg_putc('h'); kg_put_u32(hash); kg_putc('\\n'); }",
        ]
    else:
        lines += [
            "__attribute__((noinline)) void kg_start(void) { kg_sink = 1; }",
            "__attribute__((noinline)) void kg_stop(void) { kg_sink = 2; }",
            "static void kg_report(int status) { printf(\"%d\\n\", status); }",
            "static void kg_report_hash(uint32_t hash) { printf(\"h%lu\\n\", (unsigned long)hash); }",
        ]
    prologue = lines
    lines += [
        # Around each call, from main, which leaves the call's function (and its bracket) as it was: its output
        # (`count` bytes at `offset` in the arena) filled with a pattern before, so that a baseline that leaves
        # some of it unwritten cannot pass with the bytes the call before it wrote there; and the FNV-1a hash of
        # the output after, on a line of its own: the baselines must write what kernelgen's kernel does.
        "__attribute__((noinline)) static void kg_poison_output(uint32_t offset, uint32_t count)",
        "{",
        "    unsigned char *p = (unsigned char *)kg_arena + offset;",
        "    uint32_t i;",
        "    for (i = 0u; i < count; ++i) p[i] = (unsigned char)(0xA5u ^ i);",
        "}",
        "__attribute__((noinline)) static void kg_report_output(uint32_t offset, uint32_t count)",
        "{",
        "    const unsigned char *p = (const unsigned char *)kg_arena + offset;",
        "    uint32_t hash = 2166136261u;",
        "    uint32_t i;",
        "    for (i = 0u; i < count; ++i) hash = (hash ^ p[i]) * 16777619u;",
        "    kg_report_hash(hash);",
        "}",
        "static int32_t kg_index(int32_t bound)",
        "{",
        "    kg_state = kg_state * 1103515245u + 12345u;",
        "    return bound == 0 ? 0 : (int32_t)((kg_state >> 8) % (uint32_t)(2 * bound)) - bound;",
        "}",
    ]
    if any(plain_loops.derived(call.spec) for call in calls):  # values in ranges of their own (index_ranges())
        lines += [
            "static int32_t kg_index_in(int32_t low, uint32_t span)",
            "{",
            "    kg_state = kg_state * 1103515245u + 12345u;",
            "    return span == 0u ? 0 : low + (int32_t)((kg_state >> 8) % span);",
            "}",
        ]
    body, consts, functions, shared = [], [], [], {}
    for n, call in enumerate(calls):
        where = placement[call.label]
        if where == "no":
            continue
        fn = f"kg_call_{n}"
        lines = functions
        lines += [f"__attribute__((noinline)) static void {fn}(void)", "{", "    uint32_t i;"]
        offset, hashed = 0, "0u, 0u"
        for t in call.tensors:
            var, count = t["name"], max(t["count"], 1)
            if var == "output":
                hashed = f"{offset}u, {t['bytes'] * t['count']}u"
            if where == "flash" and t["readonly"]:
                key = (call.spec["name"], var, t["type"], t["count"])  # one table for the calls of a spec
                if key not in shared:
                    shared[key] = f"kg_{n}_{var}"
                    sources = call.update_sources if var == "updates" and call.update_sources else range(t["count"])
                    values = (call.index_values or index_values(call.spec, t["count"]) if t["dtype"] == "index"
                              else [value_literal(t["dtype"], i + (1000 if var == "updates" else 0)) for i in sources])
                    consts.append(f"static const {t['type']} {shared[key]}[{count}] = {{"
                                  + ", ".join(str(v) for v in values or ["0"]) + "};")
                lines.append(f"    const {t['type']} *{var} = {shared[key]};")
                continue
            lines.append(f"    {t['type']} *{var} = ({t['type']} *)(void *)((unsigned char *)kg_arena + {offset});")
            offset += aligned(t["bytes"] * count)
        for t in call.tensors:
            var = t["name"]
            if not t["readonly"] or (where == "flash"):
                continue
            if t["dtype"] == "index" and (call.spec["op"] == "TensorScatter" or call.index_values):
                values = ", ".join(map(str, call.index_values or index_values(call.spec, t["count"]) or [0]))
                lines.append(f"    static const {t['type']} values[{max(t['count'], 1)}] = {{{values}}};")
                lines.append(f"    for (i = 0u; i < {t['count']}u; ++i) {var}[i] = values[i];")
            elif t["dtype"] == "index" and not plain_loops.derived(call.spec):
                bounds = unroll_report.index_bounds(call.spec)
                lines.append(f"    static const int32_t bounds[{len(bounds)}] = {{{', '.join(map(str, bounds))}}};")
                lines.append("    kg_state = 12345u;")
                lines.append(f"    for (i = 0u; i < {t['count']}u; ++i) {var}[i] = ({t['type']})kg_index(bounds[i % {len(bounds)}u]);")
            elif t["dtype"] == "index":
                ranges = index_ranges(call.spec)
                lows, spans = ", ".join(str(r[0]) for r in ranges), ", ".join(f"{r[1]}u" for r in ranges)
                lines.append(f"    static const int32_t lows[{len(ranges)}] = {{{lows}}};")
                lines.append(f"    static const uint32_t spans[{len(ranges)}] = {{{spans}}};")
                lines.append("    kg_state = 12345u;")
                lines.append(f"    for (i = 0u; i < {t['count']}u; ++i) "
                             f"{var}[i] = ({t['type']})kg_index_in(lows[i % {len(ranges)}u], spans[i % {len(ranges)}u]);")
            elif var == "updates" and call.update_sources:  # the values of the elements they broadcast from
                lines.append(f"    static const uint32_t sources[{t['count']}] = "
                             f"{{{', '.join(f'{v}u' for v in call.update_sources)}}};")
                lines.append(f"    for (i = 0u; i < {t['count']}u; ++i) "
                             f"{var}[i] = {value_expression(t['dtype'], '(sources[i] + 1000u)')};")
            else:
                base = " + 1000u" if var == "updates" else ""
                lines.append(f"    for (i = 0u; i < {t['count']}u; ++i) {var}[i] = {value_expression(t['dtype'], '(i' + base + ')')};")
        lines += call.setup
        lines += ["    kg_start();", f"    kg_status = {call.function}({', '.join(call.args)});", "    kg_stop();",
                  "    kg_report(kg_status);", "}"]
        body += [f"    kg_poison_output({hashed});", f"    {fn}();", f"    kg_report_output({hashed});"]
    empty = ["__attribute__((noinline)) static void kg_empty(void)", "{", "    kg_start();", "    kg_stop();",
             "    kg_report(0);", "}"]
    lines = prologue + consts + empty + functions + ["int main(void);", "int main(void)", "{", "    int k;"]
    if avr:
        lines += ["    UBRR0 = 0u;", "    UCSR0B = _BV(TXEN0);", "    TCCR1A = 0u;", "    TCCR1B = _BV(CS10);",
                  "    TIMSK1 = _BV(TOIE1);", "    sei();"]
    lines += ["    for (k = 0; k < 3; ++k) {", "        kg_empty();", "    }"] + body
    if avr:
        lines += ["    cli();", "    sleep_cpu();", "    for (;;) {}"]
    else:
        lines += ["    return 0;"]
    lines += ["}", ""]
    return "\n".join(lines)


def compile_object(target, source, obj, include, werror=True):
    """Compiles one file for the target at -Os with the strict flags (warnings not errors unless werror); the
    CompletedProcess."""
    flags = [f for f in strict_flags() if werror or f != "-Werror"]
    return run([target.tool("gcc"), *flags, *target.flags, "-Os", "-fstack-usage", "-I", include, "-I", BENCH, "-c",
                source, "-o", obj])


def object_sizes(target, obj):
    """.text, .rodata (with AVR's .progmem tables) and stack (the -fstack-usage frames, summed) of an object."""
    text = rodata = stack = 0
    for line in run([target.tool("size"), "-A", obj]).stdout.splitlines():
        match = re.match(r"(\.\S+)\s+(\d+)", line)
        if match and match.group(1).startswith(".text"):
            text += int(match.group(2))
        elif match and match.group(1).startswith((".rodata", ".progmem")):
            rodata += int(match.group(2))
    with open(os.path.splitext(obj)[0] + ".su") as f:
        for frame in f:
            stack += int(frame.split("\t")[1])
    return {"text": text, "rodata": rodata, "stack": stack}


def place(target, calls):
    """Where each call's inputs live: "ram" (the arena), "flash" (read-only inputs as constants) or "no". The
    calls of one spec (kernelgen's and its baselines) share their constants: the inputs are the same."""
    placement, flash_left, charged = {}, target.flash_inputs, {}
    for call in calls:
        extra = max(call.flash_bytes() - charged.get(call.spec["name"], 0), 0)
        if call.arena_bytes(False) <= target.ram_arena:
            placement[call.label] = "ram"
        elif target.flash_inputs and call.arena_bytes(True) <= target.ram_arena and extra <= flash_left:
            placement[call.label] = "flash"
            flash_left -= extra
            charged[call.spec["name"]] = charged.get(call.spec["name"], 0) + extra
        else:
            placement[call.label] = "no"
    return placement


def symbol_address(target, elf, symbol):
    for line in run([target.tool("nm"), elf]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == symbol:
            return int(parts[0], 16)
    sys.exit(f"{elf} has no {symbol}")


def run_program(target, elf, plugin, work):
    """[(status, cost)] of each bracket the program measured, the empty ones first, cost not yet corrected; and
    the hashes of the outputs of the calls (the brackets but the empty ones)."""
    if target.key == "avr":
        result = run(["simavr", "-m", "atmega2560", "-f", "16000000", elf], timeout=600)
        # simavr echoes UART0 on stderr, line by line in colour, each newline shown as ".".
        output = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
        rows = re.findall(r"^(-?\d+) (\d+)\.?\s*$", output, re.M)
        hashes = re.findall(r"^h(\d+)\.?\s*$", output, re.M)
        return [(int(s), int(c)) for s, c in rows], [int(h) for h in hashes]
    counts = os.path.join(work, "counts.txt")
    start, stop = symbol_address(target, elf, "kg_start"), symbol_address(target, elf, "kg_stop")
    result = run(["qemu-system-arm", "-M", target.machine, "-nographic", "-semihosting-config",
                  "enable=on,target=native", "-kernel", elf, "-plugin",
                  f"{plugin},start={start:#x},stop={stop:#x},out={counts}"], timeout=600)
    if result.returncode != 0:
        sys.exit(f"{elf} failed on qemu ({result.returncode}):\n{result.stdout}{result.stderr}")
    statuses = [int(s) for s in re.findall(r"^(-?\d+)\s*$", result.stdout, re.M)]
    hashes = [int(h) for h in re.findall(r"^h(\d+)\s*$", result.stdout, re.M)]
    with open(counts) as f:
        costs = [int(line) for line in f]
    if len(costs) != len(statuses):
        sys.exit(f"{elf}: {len(statuses)} calls reported, {len(costs)} counted")
    return list(zip(statuses, costs)), hashes


def link(target, calls, placement, sources, work, include):
    """Writes and links the target's program; its ELF."""
    driver = os.path.join(work, "driver.c")
    with open(driver, "w") as f:
        f.write(program_source(target, calls, placement))
    elf = os.path.join(work, "program.elf")
    if target.key == "avr":
        command = [target.tool("gcc"), "-std=c99", *target.flags, "-Os", "-I", include, "-I", BENCH, driver, *sources,
                   "-o", elf]
    else:
        command = [target.tool("gcc"), "-std=c99", *target.flags, "-Os", "-I", include, "-I", BENCH, "--specs=rdimon.specs",
                   "-nostartfiles", "-L", os.path.join(ROOT, "boards", "cortex-m"), "-T", os.path.join(ROOT, target.link),
                   os.path.join(ROOT, target.board), driver, *sources, "-o", elf]
    result = run(command)
    if result.returncode != 0:
        sys.exit(f"linking the {target.title} program failed:\n{result.stderr}")
    return elf


def measure(target, calls, sources, work, include, plugin):
    """{label: {unit: cost or None, "status": ..., "inputs": ram or flash, "output_hash": ...}} of one program
    holding every call."""
    placement = place(target, calls)
    elf = link(target, calls, placement, sources, work, include)
    rows, hashes = run_program(target, elf, plugin, work)
    if len(hashes) != len(rows) - 3:
        sys.exit(f"{target.title}: {len(rows) - 3} calls reported, {len(hashes)} outputs hashed")
    rows = [row + (h,) for row, h in zip(rows, [None] * 3 + hashes)]
    empty = {cost for _, cost, _ in rows[:3]}
    if len(empty) != 1:
        sys.exit(f"{target.title}: the empty brackets differ: {sorted(empty)}")
    empty = empty.pop()
    measured = iter(rows[3:])
    results = {}
    for call in calls:
        if placement[call.label] == "no":
            results[call.label] = {target.unit: None, "status": "does not fit"}
            continue
        status, cost, output_hash = next(measured)
        if status != 0 and not call.note:
            sys.exit(f"{target.title}: {call.label} returned {status} on in-range indices")
        results[call.label] = {target.unit: cost - empty, "status": call.note or "ok",
                               "inputs": placement[call.label], "output_hash": output_hash}
    if next(measured, None) is not None:
        sys.exit(f"{target.title}: more calls reported than made")
    return results


def build_plugin(cc, work):
    plugin = os.path.join(work, "libqemu_count_plugin.so")
    result = run([cc, "-shared", "-fPIC", "-O2", os.path.join(BENCH, "target", "qemu_count_plugin.c"), "-o", plugin])
    if result.returncode != 0:
        sys.exit(f"building the plugin failed:\n{result.stderr}")
    return plugin


def kernel_costs(args, pool, work, modes=None, targets=None, kernels=None, results=None, label=None):
    """{kernel: {mode: {target: {...}}}} for the kernels of the spec files (or `kernels`), under each of `modes`
    (default: --unroll's, or the specs' own settings) on `targets` (default --target's), added to `results`; with
    `label` (one mode), measured under that name in place of the mode's."""
    kernels = list(unroll_report.kernels_of(args.specs)) if kernels is None else kernels
    targets = targets or args.target
    results = {name: {} for k in kernels for name in measured_names(k)} if results is None else results
    for mode in modes or args.unroll or [None]:
        measured_as = label or mode or "spec"
        out_dir = os.path.join(work, measured_as)
        os.makedirs(out_dir)
        made = list(pool.map(lambda k: unroll_report.generate(args.kernelgen, k, mode, out_dir), kernels))
        for kernel in kernels:
            for name in measured_names(kernel):
                results[name][measured_as] = {key: {"status": "not generated"} for key in targets}
        generated = [k for k, ok in zip(kernels, made) if ok]
        for key in targets:
            cells = measure_mode(TARGETS[key], generated, out_dir, os.path.join(out_dir, key), args.plugin, pool)
            for name, cell in cells.items():
                results[name][measured_as][key] = cell
    return results


def goal_costs(args, pool, work, results):
    """With --doc: adds "none" and "auto" on the Cortex-M targets for --auto-goal, measuring "auto" only for the
    kernels whose spec sets its own "unroll" (for every other one, "auto" is its spec's setting, just measured)."""
    goal_targets = [t for t in args.target if TARGETS[t].unit == "instructions"]
    kernels = list(unroll_report.kernels_of(args.specs))
    kernel_costs(args, pool, work, ["none"], goal_targets, kernels, results)
    own = [k for k in kernels if "unroll" in k]
    kernel_costs(args, pool, work, ["auto"], goal_targets, own, results)
    for kernel in kernels:
        if "unroll" not in kernel:
            for name in measured_names(kernel):
                results[name]["auto"] = {t: results[name]["spec"][t] for t in goal_targets}
    return goal_targets


def compile_all(target, sources, work, include, pool, werror=True):
    """Compiles each source for the target with the strict flags; per source its object, or None when the
    source refuses the target with its own #error."""
    def build(source):
        obj = os.path.join(work, os.path.splitext(os.path.basename(source))[0] + ".o")
        result = compile_object(target, source, obj, include, werror)
        if result.returncode == 0:
            return obj
        if "#error" in result.stderr:
            return None
        sys.exit(f"{target.title}: {source} does not compile:\n{result.stderr}")
    os.makedirs(work, exist_ok=True)
    return list(pool.map(build, sources))


def measure_mode(target, kernels, source_dir, work, plugin, pool):
    """Compiles every kernel for the target, then measures the ones that compile in one program."""
    names = [k["name"] for k in kernels]
    *objects, support = compile_all(target, [os.path.join(source_dir, n + ".c") for n in names + ["kernelgen_support"]],
                                    work, source_dir, pool)
    calls = [kernel_call(k, os.path.join(source_dir, k["name"] + ".h"), target, label, in_place=label != k["name"])
             for k, o in zip(kernels, objects) if o for label in measured_names(k)]
    measured = measure(target, calls, [o for o in objects if o] + [support], work, source_dir, plugin)
    return {label: {**measured[label], **object_sizes(target, obj)} if obj else {"status": "refused"}
            for kernel, obj in zip(kernels, objects) for label in measured_names(kernel)}


RS_FUNCTIONS = {"Gather": "rs_gather", "GatherElements": "rs_gather_elements", "GatherND": "rs_gather_nd",
                "ScatterND": "rs_scatter_nd"}


def write_plain_kernels(spec, out_dir):
    """bench/plain_loops.py's kernels of `spec`, one C file per way of PLAIN_WAYS: `<way>_<name>.c` in out_dir."""
    for way, checked in PLAIN_WAYS.items():
        with open(os.path.join(out_dir, f"{way}_{spec['name']}.c"), "w") as f:
            f.write(plain_loops.plain_kernel(spec, f"{way}_{spec['name']}", checked))


def plain_calls(spec, header, target):
    """The calls of `spec`'s plain-loop kernels (write_plain_kernels()), one per way, labelled `<name>/<way>`."""
    calls = []
    for way in PLAIN_WAYS:
        function = f"{way}_{spec['name']}"
        call = kernel_call(spec, header, target, label=f"{spec['name']}/{way}", function=function)
        call.includes = [plain_loops.prototype(spec, function) + ";"]
        calls.append(call)
    return calls


def baseline_calls(spec, header, target):
    """The four calls of one bench case: kernelgen's kernel, the runtime-shaped one, the plain-loop one and the
    unchecked loops of onnx2c's shape."""
    name, op = spec["name"], spec["op"]
    kernel = kernel_call(spec, header, target)
    shaped = kernel_call(spec, header, target, label=name + "/runtime_shaped", function=RS_FUNCTIONS[op])
    dims = [f"static const int32_t data_dims[{len(spec['data_shape'])}] = {{{', '.join(map(str, spec['data_shape']))}}};",
            f"static const int32_t indices_dims[{len(spec['indices_shape'])}] = "
            f"{{{', '.join(map(str, spec['indices_shape']))}}};",
            f"const rs_shape data_shape = {{data_dims, {len(spec['data_shape'])}}};",
            f"const rs_shape indices_shape = {{indices_dims, {len(spec['indices_shape'])}}};"]
    shaped.setup = ["    " + line for line in dims]
    if op == "ScatterND":
        reduction = "RS_REDUCTION_ADD" if spec.get("reduction") == "add" else "RS_REDUCTION_NONE"
        shaped.args = ["data", "data_shape", "indices", "indices_shape", "updates", reduction, "output"]
    else:
        parameter = spec.get("batch_dims", 0) if op == "GatherND" else spec.get("axis", 0)
        shaped.args = ["data", "data_shape", "indices", "indices_shape", str(parameter), "output"]
    shaped.includes = ['#include "runtime_shaped.h"']
    return [kernel, shaped, *plain_calls(spec, header, target)]


def function_size(target, obj, function):
    """Bytes of one function of an object (nm -S)."""
    for line in run([target.tool("nm"), "-S", obj]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == function:
            return int(parts[1], 16)
    sys.exit(f"{obj} has no {function}")


# The copy-bound cases: Gathers whose rows (the contiguous bytes one index selects) are at least this long.
COPY_ROWS_FROM = 32
# The block of each target's floor copy (bench/target/copy_floor.c): bytes moved by one turn of its loop.
FLOOR_BLOCK = {"m4f": 32, "m0": 16, "avr": 16}
COPY_WAYS = ("kernelgen", "memcpy_rows", "memcpy", "floor")


def copy_row_bytes(spec):
    """The bytes of one row a Gather or GatherND case copies per index (tuple), or None for other operators."""
    data, elements = spec["data_shape"], ELEMENT_BYTES[spec["dtype"]]
    if spec["op"] == "Gather":
        return prod(data[spec.get("axis", 0) % len(data) + 1:]) * elements
    if spec["op"] == "GatherND":
        return prod(data[spec.get("batch_dims", 0) + spec["indices_shape"][-1]:]) * elements
    return None


def copy_bound(spec):
    """Whether the case is copy-bound: a Gather or GatherND with rows of COPY_ROWS_FROM bytes or more."""
    return (copy_row_bytes(spec) or 0) >= COPY_ROWS_FROM


def bytes_written(spec, header):
    """The bytes of the case's output, from its header."""
    return header_sizes(header, spec["name"])["output"] * ELEMENT_BYTES[spec["dtype"]]


def copy_calls(spec, header, target):
    """For a copy-bound case: the calls of its kernel with every row copied by memcpy (KERNELGEN_COPY_WITH_MEMCPY),
    of one memcpy of the bytes it writes, and of the target's floor copy of them (with the case's tensors)."""
    name, moved = spec["name"], bytes_written(spec, header)
    rows = kernel_call(spec, header, target, label=name + "/memcpy_rows", function=name + "_memcpy_rows")
    rows.includes.append(plain_loops.prototype(spec, name + "_memcpy_rows") + ";")
    calls = [rows]
    for way in ("memcpy", "floor"):
        if way == "floor" and moved % FLOOR_BLOCK[target.key]:
            continue
        call = kernel_call(spec, header, target, label=f"{name}/{way}", function="kg_copy_" + way)
        call.args = ["output", "data", f"{moved}u"]
        call.includes = [f"int kg_copy_{way}(void *to, const void *from, size_t bytes);"]
        calls.append(call)
    return calls


def baseline_costs(args, pool, work):
    """{case: {target: {way: {unit: ..., "flash": ...}}}} for the cases of bench/specs/, four ways; for the
    copy-bound cases three more: "memcpy_rows", "memcpy" and "floor" (copy_calls())."""
    specs = list(unroll_report.kernels_of(sorted(glob.glob(os.path.join(BENCH, "specs", "*.json")))))
    out_dir = os.path.join(work, "baselines")
    os.makedirs(out_dir)
    for spec in specs:
        if not unroll_report.generate(args.kernelgen, spec, None, out_dir):
            sys.exit(f"kernelgen refused the bench case {spec['name']}")
        write_plain_kernels(spec, out_dir)
        if copy_bound(spec):  # the kernel again, its rows copied by memcpy
            with open(os.path.join(out_dir, f"{spec['name']}_memcpy_rows.c"), "w") as f:
                f.write(f"#define KERNELGEN_COPY_WITH_MEMCPY 1\n#define {spec['name']} {spec['name']}_memcpy_rows\n"
                        f'#include "{spec["name"]}.c"\n')
    names = [spec["name"] for spec in specs]
    results = {name: {} for name in names}
    for key in args.target:
        target, target_dir = TARGETS[key], os.path.join(out_dir, key)
        *kernels, support = compile_all(target, [os.path.join(out_dir, n + ".c") for n in names + ["kernelgen_support"]],
                                        target_dir, out_dir, pool)
        cases = [spec for spec, obj in zip(specs, kernels) if obj]
        *plains, shaped = compile_all(target, [os.path.join(out_dir, f"{way}_{spec['name']}.c")
                                               for way in PLAIN_WAYS for spec in cases]
                                      + [os.path.join(BENCH, "runtime_shaped.c")], target_dir, out_dir, pool,
                                      werror=False)  # the baselines are not held to the kernels' flags
        plains = {way: plains[i * len(cases):(i + 1) * len(cases)] for i, way in enumerate(PLAIN_WAYS)}
        copies = [spec for spec in cases if copy_bound(spec)]
        *with_memcpy, floor = compile_all(target, [os.path.join(out_dir, f"{spec['name']}_memcpy_rows.c")
                                                   for spec in copies]
                                          + [os.path.join(BENCH, "target", "copy_floor.c")], target_dir, out_dir, pool)
        calls = [c for spec in cases for c in baseline_calls(spec, os.path.join(out_dir, spec["name"] + ".h"), target)]
        measured = measure(target, calls, [o for o in kernels if o] + [o for way in PLAIN_WAYS for o in plains[way]]
                           + [shaped, support], target_dir, out_dir, args.plugin)
        for spec in cases:
            check_agreement(target, measured, spec["name"], ("runtime_shaped", *PLAIN_WAYS))
        # The copies in a program of their own, which gives their read-only inputs the flash the baselines took.
        calls = [c for spec in copies for c in copy_calls(spec, os.path.join(out_dir, spec["name"] + ".h"), target)]
        measured.update(measure(target, calls, with_memcpy + [support, floor], target_dir, out_dir, args.plugin))
        refused = {"status": "refused", "flash": None}
        for spec, obj in zip(specs, kernels):
            results[spec["name"]][key] = {way: refused for way in ("kernelgen", "runtime_shaped", *PLAIN_WAYS)}
        for i, (spec, obj) in enumerate(zip(cases, [o for o in kernels if o])):
            name = spec["name"]
            kernel_sizes = object_sizes(target, obj)
            results[name][key] = {
                "kernelgen": {**measured[name], "flash": kernel_sizes["text"] + kernel_sizes["rodata"]},
                "runtime_shaped": {**measured[name + "/runtime_shaped"],
                                   "flash": function_size(target, shaped, RS_FUNCTIONS[spec["op"]])},
            }
            for way in PLAIN_WAYS:
                sizes = object_sizes(target, plains[way][i])
                results[name][key][way] = {**measured[f"{name}/{way}"], "flash": sizes["text"] + sizes["rodata"]}
        for spec, obj in zip(copies, with_memcpy):
            name = spec["name"]
            sizes = object_sizes(target, obj)
            results[name][key]["memcpy_rows"] = {**measured[name + "/memcpy_rows"],
                                                 "flash": sizes["text"] + sizes["rodata"]}
            for way in ("memcpy", "floor"):
                results[name][key][way] = measured.get(f"{name}/{way}", {"status": "-"})
            results[name][key]["bytes"] = bytes_written(spec, os.path.join(out_dir, name + ".h"))
            results[name][key]["row_bytes"] = copy_row_bytes(spec)
    return results


# The keys by which a kernel takes the tensor its indices or updates are derived from (docs/spec-format.md).
DERIVED_KEYS = plain_loops.DERIVED_INDICES + ("updates_broadcast_from",)


def has_twin(spec):
    """Whether the kernel derives its indices or its updates from a tensor it takes (DERIVED_KEYS)."""
    return any(key in spec for key in DERIVED_KEYS)


def materialized_spec(spec):
    """The same operation as a derived kernel's (DERIVED_KEYS) with its indices and updates materialized: a kernel
    that takes indices of indices_shape and updates of updates_shape, as the model's Expand, Add and Concat make
    them."""
    twin = {key: value for key, value in spec.items() if key not in DERIVED_KEYS}
    twin["name"] = spec["name"] + "_materialized"
    return twin


def materialized_calls(spec, twin, source_dir, target):
    """The calls of a derived kernel and of its materialized twin, labelled `<name>/materialized`, the twin passed
    the indices and updates the kernel makes of what it takes (plain_loops.expanded(), updates_expanded()); a
    scatter's in place too."""
    calls = []
    for in_place in (False, True) if spec["op"] in unroll_report.SCATTERS else (False,):
        label = spec["name"] + (" in place" if in_place else "")
        kernel = kernel_call(spec, os.path.join(source_dir, spec["name"] + ".h"), target, label, in_place=in_place)
        other = kernel_call(twin, os.path.join(source_dir, twin["name"] + ".h"), target, label + "/materialized",
                            in_place=in_place)
        taken = next(t["count"] for t in kernel.tensors if t["name"] == "indices")
        kernel.index_values = index_values(spec, taken)  # both filled alike
        other.index_values = (plain_loops.expanded(spec, kernel.index_values) if plain_loops.derived(spec)
                              else kernel.index_values)
        if "updates_broadcast_from" in spec:
            updates = next(t["count"] for t in other.tensors if t["name"] == "updates")
            other.update_sources = plain_loops.updates_expanded(spec, updates)
        calls += [kernel, other]
    return calls


def materialized_costs(args, pool, work):
    """{kernel: {target: {way: {...}}}} for each derived kernel of the spec files, "taken" (the kernel) and
    "materialized" (its twin, materialized_spec()): per way the bytes of the indices and of the updates its caller
    holds ("index_bytes", "update_bytes", None for a gather), the cost of a call (and "in_place", a scatter's call
    with output == data), and its sizes; None where the target refuses either."""
    pairs = [(k, materialized_spec(k)) for k in unroll_report.kernels_of(args.specs) if has_twin(k)]
    out_dir = os.path.join(work, "materialized")
    os.makedirs(out_dir)
    kernels = [k for pair in pairs for k in pair]
    if unroll_report.generate_all(args.kernelgen, kernels, None, out_dir) != kernels:
        sys.exit("kernelgen refused a derived kernel or its materialized twin")
    results = {spec["name"]: {} for spec, _ in pairs}
    for key in args.target:
        target, target_dir = TARGETS[key], os.path.join(out_dir, key)
        names = [k["name"] for k in kernels]
        *objects, support = compile_all(target, [os.path.join(out_dir, n + ".c") for n in names + ["kernelgen_support"]],
                                        target_dir, out_dir, pool)
        objects = dict(zip(names, objects))
        both = [(spec, twin) for spec, twin in pairs if objects[spec["name"]] and objects[twin["name"]]]
        calls = [c for spec, twin in both for c in materialized_calls(spec, twin, out_dir, target)]
        measured = measure(target, calls, [o for o in objects.values() if o] + [support], target_dir, out_dir,
                           args.plugin)
        for spec, twin in pairs:
            if (spec, twin) not in both:
                results[spec["name"]][key] = None
                continue
            labels = [c.label for c in calls if c.spec is spec]
            for label in labels:
                check_agreement(target, measured, label, ("materialized",))
            results[spec["name"]][key] = {}
            for way, kernel in (("taken", spec), ("materialized", twin)):
                suffix = "" if way == "taken" else "/materialized"
                sizes = header_sizes(os.path.join(out_dir, kernel["name"] + ".h"), kernel["name"])
                width = 4 if kernel.get("index_dtype") == "int32" else 8
                results[spec["name"]][key][way] = {
                    **measured[labels[0] + suffix], **object_sizes(target, objects[kernel["name"]]),
                    "index_bytes": sizes["indices"] * width,
                    "update_bytes": (sizes["updates"] * element_bytes(spec["dtype"], target)
                                     if "updates" in sizes else None),
                    "in_place": measured[labels[1] + suffix].get(target.unit) if len(labels) > 1 else None}
    return results


def materialized_table(results, targets):
    """Per derived kernel and target: the bytes of indices and of updates its caller holds, the cost of a call (a
    scatter's in place too) and .text, the kernel's against its materialized twin's."""
    rows = ["| kernel | target | indices the caller holds, bytes | updates, bytes | one call | in place (`output == data`) "
            "| .text, bytes |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, by_target in results.items():
        for t in targets:
            unit, ways = TARGETS[t].unit, by_target.get(t)
            if ways is None:
                rows.append(f"| `{name}` | {TARGETS[t].title} ({unit}) | refused | refused | refused | refused | refused |")
                continue
            taken, twin = ways["taken"], ways["materialized"]

            def pair(field):
                if taken.get(field) is None or twin.get(field) is None:
                    return taken.get("status", "-") if field == unit else "-"
                return f"{taken[field]:,} / {twin[field]:,}"
            rows.append(f"| `{name}` | {TARGETS[t].title} ({unit}) | {pair('index_bytes')} | {pair('update_bytes')} | "
                        f"{pair(unit)} | {pair('in_place')} | {pair('text')} |")
    return "\n".join(rows) + "\n"


def check_agreement(target, measured, name, ways):
    """Exits unless every baseline `ways` of kernel `name` wrote the output bytes kernelgen's kernel wrote (a call
    expected to fail, or one that did not fit, is not compared)."""
    kernel = measured.get(name, {})
    if kernel.get("status") != "ok":
        return
    for way in ways:
        other = measured.get(f"{name}/{way}", {})
        if other.get("status") == "ok" and other["output_hash"] != kernel["output_hash"]:
            sys.exit(f"{target.title}: {name}: the {way} kernel's output differs from kernelgen's")


def plain_costs(args, pool, work):
    """{kernel: {target: {"kernelgen": {...}, "plain": {...}, "unchecked": {...}}}} for every kernel of the spec
    files that bench/plain_loops.py writes (as its spec says), and the kernels it leaves out, with why."""
    kernels, left_out = [], []
    for kernel in unroll_report.kernels_of(args.specs):
        why = plain_loops.covers(kernel)
        (left_out.append(f"{kernel['name']} ({why})") if why else kernels.append(kernel))
    out_dir = os.path.join(work, "plain")
    os.makedirs(out_dir)
    # kernel_costs() has generated and compiled every kernel as its spec says (work/spec, an object per target) unless
    # --unroll set other modes: those are reused.
    source_dir = os.path.join(work, "spec")
    reuse = os.path.isdir(source_dir)
    if reuse:
        kernels = [k for k in kernels if os.path.exists(os.path.join(source_dir, k["name"] + ".h"))]
    else:
        source_dir = out_dir
        made = list(pool.map(lambda k: unroll_report.generate(args.kernelgen, k, None, out_dir), kernels))
        kernels = [k for k, ok in zip(kernels, made) if ok]
    for kernel in kernels:
        write_plain_kernels(kernel, out_dir)
    results = {k["name"]: {} for k in kernels}
    for key in args.target:
        target, target_dir = TARGETS[key], os.path.join(out_dir, key)
        names = [k["name"] for k in kernels]
        if reuse:
            compiled = [os.path.join(source_dir, key, n + ".o") for n in names + ["kernelgen_support"]]
            *objects, support = [o if os.path.exists(o) else None for o in compiled]
        else:
            *objects, support = compile_all(target, [os.path.join(out_dir, n + ".c") for n in names + ["kernelgen_support"]],
                                            target_dir, out_dir, pool)
        others = {way: compile_all(target, [os.path.join(out_dir, f"{way}_{n}.c") for n in names], target_dir,
                                   source_dir, pool, werror=False) for way in PLAIN_WAYS}
        # In programs of PLAIN_PROGRAM kernels each: three copies of every kernel's code and constants would not fit
        # Cortex-M0's flash in one (a call costs the same in any program).
        measured = {}
        for first in range(0, len(kernels), PLAIN_PROGRAM):
            calls, sources = [], [support]
            for i in range(first, min(first + PLAIN_PROGRAM, len(kernels))):
                if not objects[i]:
                    continue
                header = os.path.join(source_dir, kernels[i]["name"] + ".h")
                calls += [kernel_call(kernels[i], header, target), *plain_calls(kernels[i], header, target)]
                sources += [objects[i], *[others[way][i] for way in PLAIN_WAYS]]
            program_dir = os.path.join(target_dir, str(first))
            os.makedirs(program_dir)
            measured.update(measure(target, calls, sources, program_dir, source_dir, args.plugin))
        for kernel in kernels:
            check_agreement(target, measured, kernel["name"], PLAIN_WAYS)
        for i, (kernel, obj) in enumerate(zip(kernels, objects)):
            name = kernel["name"]
            if not obj:
                results[name][key] = None
                continue
            sizes = {"kernelgen": object_sizes(target, obj), **{way: object_sizes(target, others[way][i]) for way in PLAIN_WAYS}}
            results[name][key] = {way: {**measured[name if way == "kernelgen" else f"{name}/{way}"],
                                        "flash": sizes[way]["text"] + sizes[way]["rodata"]} for way in sizes}
    return results, left_out


def compared(results, t, way):
    """{kernel: its figures on target t} of the kernels measured there both as kernelgen's and as `way`'s loops. A
    call expected to fail (no index in range) is compared with checked loops alone: an unchecked kernel does the
    whole copy there."""
    unit = TARGETS[t].unit
    return {n: r[t] for n, r in results.items()
            if r.get(t) and r[t]["kernelgen"].get(unit) is not None and r[t][way].get(unit) is not None
            and (way == "plain" or r[t]["kernelgen"].get("status") == "ok")}


def plain_table(results, left_out, targets, way="plain"):
    """Per target: kernelgen against bench/plain_loops.py's kernels of the same specs (`way`: the checked plain
    loops, or the unchecked ones of onnx2c's shape), in cost and flash. Returns the table and whether no kernel
    is slower than its baseline."""
    them = {"plain": "plain loops", "unchecked": "unchecked loops"}[way]
    rows = [f"| target | kernels | kernelgen / {them}, geometric mean | largest | kernels slower than {them} "
            "| flash, geometric mean |", "| --- | ---: | ---: | --- | --- | ---: |"]
    slower_anywhere = []
    for t in targets:
        unit = TARGETS[t].unit
        pairs = compared(results, t, way)
        ratios = {n: max(p["kernelgen"][unit], 1) / max(p[way][unit], 1) for n, p in pairs.items()}
        flash = [p["kernelgen"]["flash"] / p[way]["flash"] for p in pairs.values()]
        slower = [f"{n} ({pairs[n]['kernelgen'][unit]:,} / {pairs[n][way][unit]:,})" for n, v in ratios.items() if v > 1]
        slower_anywhere += slower
        largest = max(ratios, key=ratios.get)
        rows.append(f"| {TARGETS[t].title} ({unit}) | {len(pairs)} | {geomean(ratios.values()):.2f} | "
                    f"{ratios[largest]:.2f} (`{largest}`) | {', '.join(slower) or 'none'} | {geomean(flash):.2f} |")
    note = ("\nNot compared (bench/plain_loops.py writes no such kernel): " + ", ".join(left_out) + ".\n"
            if left_out and way == "plain" else "")
    return "\n".join(rows) + "\n" + note, not slower_anywhere


def slower_kernels(results, targets):
    """{kernel: {target: (kernelgen's cost, the unchecked loops')}} of the kernels slower than their unchecked
    loops, on the targets where they are (those compared(): calls expected to fail left out)."""
    slower = {}
    for t in targets:
        unit = TARGETS[t].unit
        for name, r in compared(results, t, "unchecked").items():
            mine, theirs = r["kernelgen"][unit], r["unchecked"][unit]
            if mine > theirs:
                slower.setdefault(name, {})[t] = (mine, theirs)
    return slower


def unchecked_kernelgen_costs(args, pool, work, slower):
    """{kernel: {target: cost}} of kernelgen's own kernels of `slower` generated with "index_check": "none" (the
    same kernel, its checks left out): how much of a kernel's cost its checks are. Kernels of constant indices,
    checked when generated, have no such form and are left out."""
    kernels = [dict(k, index_check="none") for k in unroll_report.kernels_of(args.specs)
               if k["name"] in slower and "indices" not in k]
    results = kernel_costs(args, pool, work, [None], args.target, kernels, label="index_check_none")
    return {name: {t: cell.get(TARGETS[t].unit) for t, cell in by_label["index_check_none"].items()}
            for name, by_label in results.items() if name in slower}


def slower_than_unchecked(slower, without_checks, targets, doc):
    """The slower-than-unchecked table of `doc`: each kernel slower than its unchecked loops on some target, its
    cost against theirs on each such target with its own cost without checks beside them, and the reason its row
    in the page gives (written by hand, kept); and the kernels that have none."""
    reasons = unroll_report.written_reasons(doc, "slower-than-unchecked")

    def cell(name, t):
        if t not in slower[name]:
            return ""
        mine, theirs = slower[name][t]
        bare = without_checks.get(name, {}).get(t)
        return f"{mine:,} / {theirs:,}" + (f" ({bare:,})" if bare is not None else "")
    rows = ["| kernel | " + " | ".join(f"{TARGETS[t].title} ({TARGETS[t].unit})" for t in targets) + " | why |",
            "| --- | " + " | ".join("---:" for _ in targets) + " | --- |"]
    for name in sorted(slower):
        rows.append(f"| `{name}` | " + " | ".join(cell(name, t) for t in targets) + f" | {reasons.get(name, '')} |")
    return "\n".join(rows) + "\n", [name for name in sorted(slower) if name not in reasons]


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def baseline_table(results, targets):
    """Per case and target: kernelgen / runtime-shaped / plain-loop / unchecked-loop cost of one call, and their
    flash."""
    rows = ["| case | target | kernelgen | runtime-shaped | plain loops | unchecked loops | flash: kernelgen | "
            "runtime-shaped | plain loops | unchecked loops |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, by_target in results.items():
        for t in targets:
            ways = [by_target[t][w] for w in ("kernelgen", "runtime_shaped", *PLAIN_WAYS)]
            unit = TARGETS[t].unit
            costs = [f"{w[unit]:,}" if w.get(unit) is not None else w["status"] for w in ways]
            flash = [f"{w['flash']:,}" if w["flash"] is not None else w["status"] for w in ways]
            rows.append(f"| {name} | {TARGETS[t].title} ({unit}) | " + " | ".join(costs + flash) + " |")
    return "\n".join(rows) + "\n"


def copy_table(results, targets):
    """Per copy-bound case and target: kernelgen's cost, with its rows copied by memcpy, one memcpy of the bytes
    it writes, and the floor copy of them; each also per byte moved, and kernelgen against the floor."""
    rows = ["| case (row; bytes written) | target | kernelgen | rows by `memcpy` | one `memcpy` | floor | "
            "kernelgen / floor |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, by_target in results.items():
        for t in targets:
            ways = by_target[t]
            if "bytes" not in ways or all(ways[w].get(TARGETS[t].unit) is None for w in COPY_WAYS):
                continue  # not copy-bound, or too large for the target
            unit, moved = TARGETS[t].unit, ways["bytes"]

            def per_byte(way):
                cost = ways[way].get(unit)
                return f"{cost:,} ({cost / moved:.2f})" if cost is not None else ways[way]["status"]
            kernel, floor = ways["kernelgen"].get(unit), ways["floor"].get(unit)
            ratio = f"{kernel / floor:.2f}" if kernel is not None and floor is not None else "-"
            rows.append(f"| {name} ({ways['row_bytes']} B; {moved:,} B) | {TARGETS[t].title} ({unit}) | "
                        + " | ".join(per_byte(w) for w in COPY_WAYS)
                        + f" | {ratio} |")
    return "\n".join(rows) + "\n"


# Issue 36's goals for row copies, kernelgen / floor per byte: rows of 64 bytes or more, and rows of 32 to 63.
COPY_GOALS = {"m4f": (2.5, 6.0), "avr": (1.3, 2.0)}


def copy_goal(results, targets):
    """The verdict lines of the row-copy goals (COPY_GOALS) on the copy-bound cases measured, and whether they hold."""
    lines, met = [], True
    for t in (t for t in targets if t in COPY_GOALS):
        unit = TARGETS[t].unit
        for name, by_target in results.items():
            ways = by_target.get(t, {})
            if "bytes" not in ways or ways["kernelgen"].get(unit) is None or ways["floor"].get(unit) is None:
                continue
            goal = COPY_GOALS[t][0 if ways["row_bytes"] >= 64 else 1]
            ratio = ways["kernelgen"][unit] / ways["floor"][unit]
            lines.append(f"{TARGETS[t].title}: {name} (rows of {ways['row_bytes']} bytes) {ratio:.2f} x the floor "
                         f"(goal {goal}): {'met' if ratio <= goal else 'NOT met'}")
            met = met and ratio <= goal
    return lines, met


def cell(results, key, field):
    """One table cell: the number, or why there is none."""
    value = results.get(key, {}).get(field)
    if value is None:
        return results.get(key, {}).get("status", "-")
    return f"{value:,}"


def flash_cell(result):
    if "text" not in result:
        return result.get("status", "-")
    return f"{result['text'] + result['rodata']:,}"


def mode_totals(results, modes, targets):
    """Per mode, per target: the totals over the kernels measured under every mode on every target."""
    common = [name for name, by_mode in results.items()
              if all(by_mode[m][t].get(TARGETS[t].unit) is not None for m in modes for t in targets)]
    rows = ["| unroll | kernels | " + " | ".join(f"{TARGETS[t].title} {TARGETS[t].unit}" for t in targets) + " | "
            + " | ".join(f"{TARGETS[t].title} flash" for t in targets) + " |",
            "| --- | ---: |" + " ---: |" * (2 * len(targets))]
    for m in modes:
        costs = [sum(results[n][m][t][TARGETS[t].unit] for n in common) for t in targets]
        flash = [sum(results[n][m][t]["text"] + results[n][m][t]["rodata"] for n in common) for t in targets]
        rows.append(f"| `{m}` | {len(common)} | " + " | ".join(f"{v:,}" for v in costs + flash) + " |")
    return "\n".join(rows) + "\n"


def kernel_table(results, mode, targets):
    """Per kernel: the cost of one call on each target, flash (.text + .rodata) and stack per target."""
    rows = ["| kernel | " + " | ".join(f"{TARGETS[t].title} {TARGETS[t].unit}" for t in targets) + " | "
            + " | ".join(f"{TARGETS[t].title} flash" for t in targets) + " | stack "
            + " / ".join(TARGETS[t].title for t in targets) + " |",
            "| --- |" + " ---: |" * (2 * len(targets) + 1)]
    for name, by_mode in results.items():
        r = by_mode[mode]
        stacks = " / ".join(str(r[t]["stack"]) if "stack" in r[t] else "-" for t in targets)
        rows.append(f"| `{name}` | " + " | ".join(cell(r, t, TARGETS[t].unit) for t in targets) + " | "
                    + " | ".join(flash_cell(r[t]) for t in targets) + f" | {stacks} |")
    everywhere = [by_mode[mode] for by_mode in results.values()
                  if all(by_mode[mode][t].get(TARGETS[t].unit) is not None for t in targets)]
    costs = [sum(r[t][TARGETS[t].unit] for r in everywhere) for t in targets]
    flash = [sum(r[t]["text"] + r[t]["rodata"] for r in everywhere) for t in targets]
    rows.append(f"| the {len(everywhere)} kernels measured on every target | " + " | ".join(f"{v:,}" for v in costs + flash)
                + " | |")
    return "\n".join(rows) + "\n"


def auto_goal(results, targets):
    """Issue 22's goal for "unroll": "auto", on the targets counted in instructions: across the kernels measured
    under both modes, auto's Cortex-M4F flash at most 1.5 times none's and no kernel's above 3 times its own (issue
    36), and on every kernel, no more instructions than none. Returns the lines of the verdict and whether the goal
    holds."""
    lines, met = [], True
    for t in (t for t in targets if TARGETS[t].unit == "instructions"):
        both = {n: r for n, r in results.items()
                if r["none"][t].get("instructions") is not None and r["auto"][t].get("instructions") is not None}
        flash = {m: sum(r[m][t]["text"] + r[m][t]["rodata"] for r in both.values()) for m in ("none", "auto")}
        slower = [f"{n} ({r['none'][t]['instructions']:,} -> {r['auto'][t]['instructions']:,})"
                  for n, r in both.items() if r["auto"][t]["instructions"] > r["none"][t]["instructions"]]
        ratio = flash["auto"] / flash["none"]
        per_kernel = {n: (r["auto"][t]["text"] + r["auto"][t]["rodata"]) / max(r["none"][t]["text"] + r["none"][t]["rodata"], 1)
                      for n, r in both.items()}
        largest = max(per_kernel, key=per_kernel.get, default=None)
        above = [f"{n} ({v:.2f} x)" for n, v in per_kernel.items() if v > 3]
        lines.append(f"{TARGETS[t].title}: {len(both)} kernels, auto's flash {flash['auto']:,} = {ratio:.2f} x none's "
                     f"{flash['none']:,}, per kernel at most {per_kernel.get(largest, 0):.2f} x ({largest}); "
                     f"slower under auto than none: {', '.join(slower) or 'none'}"
                     + (f"; above 3 x its none: {', '.join(above)}" if t == "m4f" and above else ""))
        met = met and not slower and (t != "m4f" or (ratio <= 1.5 and not above))
    return lines, met


def tool_versions(targets):
    """"arm-none-eabi-gcc 12.2.1, ...": the compilers the figures depend on."""
    prefixes = dict.fromkeys(TARGETS[t].tool_prefix for t in targets)
    return ", ".join(f"{p}gcc {run([p + 'gcc', '-dumpversion']).stdout.strip()}" for p in prefixes)


def main():
    parser = unroll_report.arguments(__doc__)
    parser.add_argument("--plugin", help="the built qemu_count_plugin (default: built here with --cc)")
    parser.add_argument("--target", action="append", choices=list(TARGETS), help="repeatable; default all")
    parser.add_argument("--unroll", action="append", help="repeatable: measure the kernels generated with each mode")
    parser.add_argument("--baselines", action="store_true",
                        help="also the cases of bench/specs/ as runtime-shaped, plain-loop and unchecked-loop kernels")
    parser.add_argument("--plain", action="store_true",
                        help="also every kernel bench/plain_loops.py writes against its plain-loop kernel and its "
                             "unchecked loops (--doc: always); exit 1 if kernelgen's is slower than the plain loops "
                             "on any target")
    parser.add_argument("--materialized", action="store_true",
                        help="also every kernel whose indices or updates are derived (indices_broadcast_from, "
                             "indices_add, tuple_constants, updates_broadcast_from) against the same operation taking "
                             "them materialized (--doc: always)")
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--keep", help="build in this (new) folder and keep the programs, for a look")
    parser.add_argument("--doc", action="append",
                        help="repeatable: pages whose on-target cost tables must match (--check) or are rewritten; "
                             "each table goes to every page with its markers, and must have one")
    parser.add_argument("--check", action="store_true", help="with --doc: exit 1 when its tables are stale")
    parser.add_argument("--update", action="store_true", help="with --doc: rewrite its tables")
    parser.add_argument("--copy-goal", action="store_true",
                        help="with --baselines or --doc: exit 1 unless every copy-bound case is within its goal of the "
                             "floor: rows of 64 bytes or more 2.5 times on Cortex-M4F and 1.3 on the ATmega2560, rows of "
                             "32 to 63 bytes 6 and 2 times")
    parser.add_argument("--explained",
                        help="with --doc and --auto-goal: a page whose none-over-plain table must list every kernel "
                             "whose Cortex-M4F flash under unroll none is above its plain loops', each with a reason "
                             "(bench/flash_vs_plain.py's table, from this run's figures; --update rewrites its "
                             "figures and keeps the reasons)")
    parser.add_argument("--auto-goal", action="store_true",
                        help="with --unroll none --unroll auto, or --doc: exit 1 unless auto's Cortex-M4F flash is at "
                             "most 1.5 times none's (no kernel's above 3 times) and no kernel executes more "
                             "instructions under auto (M0, M4F)")
    args = parser.parse_args()
    if args.explained and not (args.doc and args.auto_goal):
        parser.error("--explained takes --doc and --auto-goal (the run that measures unroll none's flash)")
    if args.auto_goal and not args.doc and sorted(args.unroll or []) != ["auto", "none"]:
        parser.error("--auto-goal takes --unroll none --unroll auto, or --doc")
    args.target = args.target or ["m0", "m4f", "avr"]
    if args.doc:
        if args.unroll or len(args.target) != len(TARGETS) or args.check == args.update:
            parser.error("--doc takes every target, no --unroll, and one of --check and --update")
        args.target = ["m0", "m4f", "avr"]
        args.baselines = True
    modes = [m or "spec" for m in (args.unroll or [None])]
    with tempfile.TemporaryDirectory() as scratch, concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        work = args.keep or scratch
        if not args.plugin and any(t != "avr" for t in args.target):
            args.plugin = build_plugin(args.cc, work)
        results = kernel_costs(args, pool, work)
        goal_targets = goal_costs(args, pool, work, results) if args.doc and args.auto_goal else args.target
        baselines = baseline_costs(args, pool, work) if args.baselines else None
        plain = plain_costs(args, pool, work) if args.plain or args.doc else None
        materialized = materialized_costs(args, pool, work) if args.materialized or args.doc else None
        slower = slower_kernels(plain[0], args.target) if plain else {}
        without_checks = unchecked_kernelgen_costs(args, pool, work, slower) if args.doc else {}
    if args.json:
        with open(args.json, "w") as f:
            others = {key: value for key, value in (("baselines", baselines), ("materialized", materialized),
                                                    ("plain", plain[0] if plain else None)) if value}
            json.dump({"kernels": results, **others} if others else results, f, indent=1)
    report = ""
    if args.unroll:
        report += mode_totals(results, modes, args.target) + "\n"
    for mode in modes:
        report += f"Mode `{mode}`:\n\n" + kernel_table(results, mode, args.target) + "\n"
    if baselines:
        report += "Baselines:\n\n" + baseline_table(baselines, args.target) + "\n"
        report += "Copies (per byte written in parentheses):\n\n" + copy_table(baselines, args.target) + "\n"
    plain_met = True
    if plain:
        table, plain_met = plain_table(*plain, args.target)
        report += "Against plain loops:\n\n" + table + "\n"
        report += "Against unchecked loops (onnx2c's shape):\n\n" + plain_table(*plain, args.target, "unchecked")[0] + "\n"
    if materialized:
        report += ("Derived indices and updates (the tensor taken / the tensors materialized):\n\n"
                   + materialized_table(materialized, args.target) + "\n")
    if args.auto_goal:
        verdict, met = auto_goal(results, goal_targets)
        report += "\n".join(verdict) + f"\n\nThe goal of auto: {'met' if met else 'NOT met'}.\n"
    copies_met = True
    if args.copy_goal and baselines:
        verdict, copies_met = copy_goal(baselines, args.target)
        report += "\n" + "\n".join(verdict) + f"\n\nThe goals of the row copies: {'met' if copies_met else 'NOT met'}.\n"
    unroll_report.write_report(report, args.out)
    if (args.auto_goal and not met) or (args.plain and not plain_met) or not copies_met:
        sys.exit(1)
    if args.doc:
        flags = "; ".join(f"{TARGETS[t].title} `{' '.join(TARGETS[t].flags)} -Os`" for t in args.target)
        heading = f"With {tool_versions(args.target)} and the strict flags; {flags}.\n\n"
        tables = {"target-costs": heading + kernel_table(results, "spec", args.target),
                  "target-baselines": baseline_table(baselines, args.target),
                  "target-copies": copy_table(baselines, args.target),
                  "target-plain": plain_table(*plain, args.target)[0],
                  "target-unchecked": plain_table(*plain, args.target, "unchecked")[0],
                  "target-materialized": materialized_table(materialized, args.target)}
        for marker, table in tables.items():
            pages = [page for page in args.doc if unroll_report.page_parts(page, marker) is not None]
            if not pages:
                sys.exit(f"none of {', '.join(args.doc)} has {marker} markers")
            for page in pages:
                unroll_report.doc_table(page, marker, table, args.update)
    if args.explained:
        none_over_plain(args, results, plain[0])
    if args.doc:
        unchecked_explained(args, slower, without_checks)


def unchecked_explained(args, slower, without_checks):
    """Every kernel slower than its unchecked loops on some target has its row, with a reason, in the
    slower-than-unchecked table of the --doc page that has one; exits 1 when one has none."""
    pages = [page for page in args.doc if unroll_report.page_parts(page, "slower-than-unchecked") is not None]
    if not pages:
        sys.exit(f"none of {', '.join(args.doc)} has slower-than-unchecked markers")
    table, unexplained = slower_than_unchecked(slower, without_checks, args.target, pages[0])
    unroll_report.doc_table(pages[0], "slower-than-unchecked", table, args.update)
    if unexplained:
        sys.exit(f"{pages[0]}: no reason given for {', '.join(unexplained)} (slower than its unchecked loops): "
                 "write one in its row of the slower-than-unchecked table")


def none_over_plain(args, results, plain):
    """The none-over-plain table of --explained: each kernel whose Cortex-M4F flash (.text and .rodata) under
    unroll none is above its plain loops', with the reason the page gives; exits 1 when one has none."""
    larger = []
    for name, by_target in plain.items():
        none = results.get(name, {}).get("none", {}).get("m4f", {})
        loops = (by_target.get("m4f") or {}).get("plain", {})
        if "text" in none and "flash" in loops and none["text"] + none["rodata"] > loops["flash"]:
            larger.append((name, loops["flash"], none["text"] + none["rodata"]))
    table, unexplained = flash_vs_plain.explained_table(args.explained, larger)
    unroll_report.doc_table(args.explained, "none-over-plain", table, args.update)
    if unexplained:
        sys.exit(f"{args.explained}: no reason given for {', '.join(unexplained)} (larger under none than its plain "
                 "loops): write one in its row of the none-over-plain table")


if __name__ == "__main__":
    main()
