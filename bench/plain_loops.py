#!/usr/bin/env python3
"""Plain constant-bound loop kernels: the baseline for kernelgen's flash with "unroll": "none".

For a spec, writes the C a careful hand (or onnx2c) would: nested loops with literal bounds, one element at a
time, no unrolling and no memcpy, with the same contract as kernelgen's kernels (every index checked first,
negative indices wrapped, -1 and output untouched when one is out of range), and the same parameters
(docs/c-interface.md). Every operator kernelgen generates, Gather, GatherElements, GatherND, ScatterND,
ScatterElements and TensorScatter, in every element type: numeric types and bool, with every reduction
(float16 and bfloat16 stored as 16-bit integers, their reductions computed in float32 through
kernelgen_support.h's conversions, the same arithmetic the kernel's combine does, so the two differ in their loops
alone; bool's add and max an OR, mul and min an AND, as ONNX Runtime; complex64 and complex128 as
kernelgen_support.h's structs, add and mul as ONNX Runtime computes them, each product rounded on its own), and
strings as pointers. Constant tensors (data, indices, updates) become static const tables in the plain file, in
program memory on AVR (read by avr-libc's pgm_read_* of the element's size, as kernelgen keeps them in flash),
constant indices in the narrowest type that holds them and checked when written, as kernelgen checks them when
generating; a quantized table dequantizes each element as docs/spec-format.md says; run-time counts are count
arguments, their bounds checked first with kernelgen's error codes (-3 for the data count, -2 for the count);
indices derived from a tensor the kernel takes ("indices_broadcast_from", "indices_add", "tuple_constants") are read
from it where they broadcast, each value checked once against ONNX's range shifted by the constants added to it, a
tuple's constant components one offset (checked when written), as kernelgen does; updates broadcast from a smaller
tensor ("updates_broadcast_from") are read from it where they broadcast.

With checked=False, the unchecked kernel of the same loops, the shape of onnx2c's Gather and ScatterND (which
check no index): no check pass, and a scatter's output starting as one memcpy of data. Negative indices are still
wrapped (onnx2c's Gather wraps them; the benchmarks' indices include negative ones).

Usage: bench/plain_loops.py SPEC.json OUT.c   (a spec file holding one kernel object)
"""
import json
import os
import sys
from math import prod

C_TYPES = {
    "float32": "float", "float": "float", "float64": "double", "double": "double", "int8": "int8_t",
    "int16": "int16_t", "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t",
    "uint32": "uint32_t", "uint64": "uint64_t", "bool": "_Bool", "float16": "uint16_t", "bfloat16": "uint16_t",
    "complex64": "kernelgen_complex64", "complex128": "kernelgen_complex128", "string": "const char *",
}
OPS = ("Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements", "TensorScatter")
SCATTERS = ("ScatterND", "ScatterElements", "TensorScatter")
COMBINE = {"add": "{o} = ({t})({o} + {u});", "mul": "{o} = ({t})({o} * {u});",
           "max": "{o} = {u} > {o} ? {u} : {o};", "min": "{o} = {u} < {o} ? {u} : {o};"}
# Floating-point max and min as ONNX Runtime (and kernelgen) compute them: a NaN operand gives NaN, a tie (-0, +0)
# takes the update.
FLOAT_COMBINE = {**COMBINE, "max": "{o} = ({u} >= {o} || {u} != {u}) ? {u} : {o};",
                 "min": "{o} = ({u} <= {o} || {u} != {u}) ? {u} : {o};"}
# float16 and bfloat16 (16-bit patterns): each reduction in float32, rounded back to nearest, ties to even, by the
# support header's conversions ({f} names the format); max and min store the winning operand's own bits.
HALF_COMBINE = {reduction: "{{ const float a = kernelgen_{f}_to_float({o}), b = kernelgen_{f}_to_float({u}); "
                            + body + " }}"
                for reduction, body in {"add": "{o} = kernelgen_{f}_from_float(a + b);",
                                        "mul": "{o} = kernelgen_{f}_from_float(a * b);",
                                        "max": "{o} = (b >= a || b != b) ? {u} : {o};",
                                        "min": "{o} = (b <= a || b != b) ? {u} : {o};"}.items()}
# bool, as ONNX Runtime: add and max an OR, mul and min an AND.
BOOL_COMBINE = {"add": "{o} = {o} || {u};", "max": "{o} = {o} || {u};",
                "mul": "{o} = {o} && {u};", "min": "{o} = {o} && {u};"}
HALF_TYPES = ("float16", "bfloat16")
# complex64 and complex128 (structs of re and im): complex addition, and multiplication with each product rounded.
COMPLEX_COMBINE = {
    "add": "{o}.re = {o}.re + {u}.re; {o}.im = {o}.im + {u}.im;",
    "mul": "{{ const {t} c = {o}, w = {u}; {o}.re = c.re * w.re - c.im * w.im; {o}.im = c.re * w.im + c.im * w.re; }}"}
COMPLEX_TYPES = ("complex64", "complex128")


def covers(spec):
    """None when plain_kernel() writes this spec's kernel, else why not."""
    if spec["op"] not in OPS:
        return f"{spec['op']} is not written"
    if spec["dtype"] not in C_TYPES:
        return f"{spec['dtype']} elements are not written"
    if derived(spec) and "quantization" in spec:
        return "a quantized table's derived indices are not written"
    return None


# --- indices derived from the tensor the kernel takes (docs/spec-format.md, "Broadcast indices", "Constants added
# to indices" and "Constant tuple components"), and updates broadcast from a smaller tensor -------------------------

DERIVED_INDICES = ("indices_broadcast_from", "indices_add", "tuple_constants")
TUPLES = ("GatherND", "ScatterND")


def derived(spec):
    """Whether the kernel derives its indices from a tensor it takes: a smaller one they broadcast from, constants
    added to what it reads, or constant components of each index tuple."""
    return any(key in spec for key in DERIVED_INDICES)


def broadcast_strides(shape, taken):
    """Per axis of `shape`, the stride of a tensor of shape `taken` (aligned at the back, as ONNX's Expand aligns
    it) read where it broadcasts to `shape`: 0 along an axis it is broadcast along."""
    taken = [1] * (len(shape) - len(taken)) + list(taken)
    return [0 if dim == 1 and full != 1 else stride for dim, full, stride in zip(taken, shape, strides(taken))]


def read_components(spec):
    """The places, in each index tuple (GatherND's and ScatterND's last axis), of the components the kernel reads:
    all but tuple_constants' constants; [0] for the other operators."""
    if spec["op"] not in TUPLES:
        return [0]
    constants = spec.get("tuple_constants", [None] * spec["indices_shape"][-1])
    return [j for j, c in enumerate(constants) if c is None]


def read_shape(spec):
    """The shape of the indices the kernel reads, before they broadcast: indices_shape, its last dimension the
    count of the components read where some are constants."""
    shape = list(spec["indices_shape"])
    if "tuple_constants" in spec:
        shape[-1] = len(read_components(spec))
    return shape


def taken_shape(spec):
    """The shape of the indices tensor the kernel takes."""
    return list(spec.get("indices_broadcast_from", read_shape(spec)))


def taken_strides(spec):
    """Per axis of read_shape(), the stride of the tensor the kernel takes along it: 0 where it is broadcast."""
    return broadcast_strides(read_shape(spec), taken_shape(spec))


def read_bounds(spec):
    """The size of the data axis each component read selects along, a period over the flat read_shape()."""
    data = spec["data_shape"]
    if spec["op"] in TUPLES:
        first = spec.get("batch_dims", 0) if spec["op"] == "GatherND" else 0
        return [data[first + j] for j in read_components(spec)]
    return [data[spec.get("axis", 0) % len(data)]]


def added_steps(spec):
    """(start, steps): the constant added to the index at position (i0, i1, ...) of indices_shape is
    start + sum(steps[d] * i_d), the last i_d of a tuple's component its place in the whole tuple."""
    add = spec.get("indices_add", 0)
    if isinstance(add, int):
        return add, [0] * len(spec["indices_shape"])
    return add["start"], list(add.get("steps", [0] * len(spec["indices_shape"])))


def derived_positions(spec):
    """Per flat position of read_shape(), in order: (the offset in the tensor a derived kernel takes of the value
    read there, the constant added to it)."""
    shape, at, (start, steps) = read_shape(spec), taken_strides(spec), added_steps(spec)
    places = read_components(spec)
    for flat in range(prod(shape)):
        position = [flat // s % d for s, d in zip(strides(shape), shape)]
        moved = position[:-1] + [places[position[-1]]] if spec["op"] in TUPLES else position
        yield (sum(p * a for p, a in zip(position, at)), start + sum(p * step for p, step in zip(moved, steps)))


def expanded(spec, values):
    """The indices of indices_shape (flat) a derived kernel makes of the `values` of the tensor it takes: each
    component read the value taken there plus its constant, each constant component as it is."""
    read = [values[taken] + constant for taken, constant in derived_positions(spec)]
    if "tuple_constants" not in spec:
        return read
    taken = iter(read)
    return [next(taken) if c is None else c
            for _ in range(prod(spec["indices_shape"][:-1])) for c in spec["tuple_constants"]]


def value_ranges(spec):
    """[(low, high)]: the range of the value at flat position t of the tensor a derived kernel takes, for t modulo
    the list's length, that keeps every index made of it in [-b, b-1] for the size b of the axis it selects along
    (read_bounds()): ONNX's range shifted by the constants added to it."""
    bounds = read_bounds(spec)
    period = len(bounds)
    ranges = [(-(2**62), 2**62)] * period
    for flat, (taken, constant) in enumerate(derived_positions(spec)):
        b, (low, high) = bounds[flat % period], ranges[taken % period]
        ranges[taken % period] = (max(low, -b - constant), min(high, b - 1 - constant))
    return ranges


def updates_shape(spec):
    """A scatter's updates_shape, as given or as ONNX has it."""
    if "updates_shape" in spec:
        return list(spec["updates_shape"])
    ind = spec["indices_shape"]
    if spec["op"] == "ScatterND":
        return ind[:-1] + spec["data_shape"][ind[-1]:]
    return list(ind)


def updates_taken(spec):
    """The shape of the updates a scatter takes: updates_broadcast_from's, or updates_shape."""
    return list(spec.get("updates_broadcast_from", updates_shape(spec)))


def updates_expanded(spec, count):
    """Per flat position of updates_shape, the offset in the updates a scatter takes (updates_taken()) of the value
    read there; `count` positions of the updates taken as they are where nothing is broadcast."""
    if "updates_broadcast_from" not in spec:
        return list(range(count))
    shape = updates_shape(spec)
    at = broadcast_strides(shape, updates_taken(spec))
    return [sum(flat // s % d * a for s, d, a in zip(strides(shape), shape, at)) for flat in range(prod(shape))]


def c_type(spec):
    return C_TYPES[spec["dtype"]]


def index_type(spec):
    return "int32_t" if spec.get("index_dtype") == "int32" else "int64_t"


def strides(shape):
    out, step = [], 1
    for dim in reversed(shape):
        out.insert(0, step)
        step *= dim
    return out


def offset(terms):
    """sum(variable * stride) with literal strides, or 0u."""
    parts = [f"{v} * {s}u" if s != 1 else v for v, s in terms if s != 0]
    return " + ".join(parts) if parts else "0u"


def extent(value):
    """A loop bound: a literal, or a run-time expression (a count) as it is."""
    return f"{value}u" if isinstance(value, int) else value


def times(count, rows):
    """`count` (a literal or the run-time count) times a literal number of elements per row."""
    if isinstance(count, int):
        return count * rows
    return count if rows == 1 else f"{count} * {rows}u"


def loops(names, extents, body, indent="    "):
    """Nested for loops over names with literal (or run-time count) extents around body lines."""
    lines = []
    for depth, (name, bound) in enumerate(zip(names, extents)):
        lines.append(f"{indent}{'    ' * depth}for ({name} = 0u; {name} < {extent(bound)}; ++{name}) {{")
    depth = len(names)
    lines += [f"{indent}{'    ' * depth}{line}" for line in body]
    for d in reversed(range(depth)):
        lines.append(f"{indent}{'    ' * d}}}")
    return lines


def check_loop(count, bounds_of, index_type, read):
    """The check pass: every index value against the size of the axis it selects along (a literal, or the
    run-time data count)."""
    lines = [f"    for (t = 0u; t < {extent(count)}; ++t) {{"]
    if len(set(bounds_of)) == 1 and isinstance(bounds_of[0], int):
        s = bounds_of[0]
        lines.append(f"        if ({read('t')} < -{s} || {read('t')} > {s - 1}) {{")
    elif len(set(bounds_of)) == 1:
        s = f"(int64_t){bounds_of[0]}"
        lines.append(f"        if ({read('t')} < -{s} || {read('t')} >= {s}) {{")
    else:
        k = len(bounds_of)
        table = ", ".join(str(b) if isinstance(b, int) else f"(int64_t){b}" for b in bounds_of)
        fixed = all(isinstance(b, int) for b in bounds_of)
        kind = f"static const {index_type}" if fixed else "const int64_t"
        lines.insert(0, f"    {kind} bound[{k}] = {{{table}}};")
        lines.append(f"        if ({read('t')} < -bound[t % {k}u] || {read('t')} >= bound[t % {k}u]) {{")
    lines += ["            return -1;", "        }", "    }"]
    return lines


def range_check_loop(count, ranges, read):
    """The check pass of a derived kernel: each value it takes, once, against its range (value_ranges())."""
    if len(set(ranges)) == 1:
        (low, high), lines = ranges[0], []
        test = f"{read('t')} < {low} || {read('t')} > {high}"
    else:
        k = len(ranges)
        lines = [f"    static const int64_t low[{k}] = {{{', '.join(str(r[0]) for r in ranges)}}};",
                 f"    static const int64_t high[{k}] = {{{', '.join(str(r[1]) for r in ranges)}}};"]
        test = f"{read('t')} < low[t % {k}u] || {read('t')} > high[t % {k}u]"
    return lines + [f"    for (t = 0u; t < {count}u; ++t) {{", f"        if ({test}) {{", "            return -1;",
                    "        }", "    }"]


def wrap(expression, size):
    if not isinstance(size, int) and not size.startswith("("):
        size = f"(int64_t){size}"
    return f"(uint32_t)({expression} < 0 ? {expression} + {size} : {expression})"


# --- constant tensors: tables in the plain file, in program memory on AVR as kernelgen keeps them -------------

TABLE_READS = """#if defined(__AVR__) && defined(__GNUC__) && !defined(__clang__)
#include <avr/pgmspace.h>
#define PLAIN_FLASH PROGMEM
#define PLAIN_U8(p) pgm_read_byte(p)
#define PLAIN_U16(p) pgm_read_word(p)
#define PLAIN_U32(p) pgm_read_dword(p)
#define PLAIN_F32(p) pgm_read_float(p)
#define PLAIN_COPY(to, p, n) memcpy_P((to), (p), (n))
#else
#define PLAIN_FLASH
#define PLAIN_U8(p) (*(p))
#define PLAIN_U16(p) (*(p))
#define PLAIN_U32(p) (*(p))
#define PLAIN_F32(p) (*(p))
#define PLAIN_COPY(to, p, n) memcpy((to), (p), (n))
#endif"""

BYTES = {"int8_t": 1, "uint8_t": 1, "_Bool": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4}


def flat(value, dtype):
    """A spec's nested (or flat) values as one flat list; a complex value is its [re, im] pair."""
    if not isinstance(value, list):
        return [value]
    if dtype in COMPLEX_TYPES and value and not any(isinstance(v, list) for v in value):
        return [value]
    return [leaf for v in value for leaf in flat(v, dtype)]


# The NumPy element types of constant tensors' files: struct's format of one element.
NPY_FORMATS = {"f2": "e", "f4": "f", "f8": "d", "i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I",
               "i8": "q", "u8": "Q", "b1": "?", "c8": "ff", "c16": "dd"}


def read_npy(path):
    """(shape, flat values) of a NumPy .npy file (format 1.0-3.0, C order, the types of NPY_FORMATS); bench/ reads
    them without NumPy, as the generator does."""
    import ast
    import struct
    with open(path, "rb") as f:
        raw = f.read()
    major = raw[6]
    length_bytes = 2 if major == 1 else 4
    length = int.from_bytes(raw[8:8 + length_bytes], "little")
    start = 8 + length_bytes
    header = ast.literal_eval(raw[start:start + length].decode("latin1"))
    descr, shape = header["descr"], tuple(header["shape"])
    order = ">" if descr[0] == ">" else "<"
    element = NPY_FORMATS[descr[1:]]
    count = prod(shape)
    values = list(struct.unpack_from(f"{order}{element * count}", raw, start + length))
    if len(element) == 2:  # complex: (re, im) pairs
        values = [[values[i], values[i + 1]] for i in range(0, len(values), 2)]
    return shape, values


def load(spec, key, dtype):
    """The flat values of a constant tensor: `key` inline, or `key`_file (a NumPy file, its path absolute)."""
    if key in spec:
        return flat(spec[key], dtype)
    return read_npy(spec[key + "_file"])[1]


def number(value):
    """A spec's number: JSON numbers, "NaN", "Infinity", "-Infinity"."""
    return float(value) if isinstance(value, str) else value


def narrowest(values):
    """The narrowest signed type that holds constant indices, as a careful hand stores them."""
    values = flat(values, "int64")
    for bits in (8, 16, 32):
        if all(-2**(bits - 1) <= v < 2**(bits - 1) for v in values):
            return f"int{bits}_t"
    return "int64_t"


def literal(value, dtype):
    """The C initializer of one value of `dtype` (float16 and bfloat16: their 16-bit patterns)."""
    import struct
    if dtype in COMPLEX_TYPES:
        return "{" + ", ".join(literal(part, "float32" if dtype == "complex64" else "float64") for part in value) + "}"
    if dtype == "bool":
        return "1" if value else "0"
    if dtype in ("float16", "bfloat16"):
        x = number(value)
        if dtype == "float16":
            bits = struct.unpack("<H", struct.pack("<e", x))[0]
        else:
            f32 = struct.unpack("<I", struct.pack("<f", x))[0]
            bits = 0x7FC0 | (f32 >> 16 & 0x8000) if x != x else (f32 + 0x7FFF + (f32 >> 16 & 1)) >> 16
        return f"0x{bits:04x}u"
    if dtype in ("float32", "float", "float64", "double"):
        x = number(value)
        suffix = "f" if dtype in ("float32", "float") else ""
        if x != x:
            return "NAN"
        if x in (float("inf"), float("-inf")):
            return ("-" if x < 0 else "") + "INFINITY"
        if suffix:
            x = struct.unpack("<f", struct.pack("<f", x))[0]
        return float(x).hex() + suffix
    value = int(value)
    if value >= 2**63:  # uint64 beyond long long
        return f"{value}ULL"
    if value == -2**63:  # no such literal: its negation does not fit
        return "(-9223372036854775807LL - 1)"
    return str(value) + ("LL" if not -2**31 <= value < 2**31 else "")


def table(name, c, values, dtype):
    """A static const table in flash, and its reader (`read_<name>(i)`, one element a read as a careful hand
    writes for the target: pgm_read_* of its size on AVR, a copy for wider ones)."""
    size = len(values)
    lines = [f"static const {c} {name}[{max(size, 1)}] PLAIN_FLASH = {{"
             + ", ".join(literal(v, dtype) for v in values) + (" 0" if not values else "") + "};"]
    if c == "float":
        read = f"PLAIN_F32(&{name}[i])"
    elif c in BYTES:
        read = f"({c})PLAIN_U{8 * BYTES[c]}(&{name}[i])" if c != "_Bool" else f"PLAIN_U8(&{name}[i]) != 0"
    else:
        read = None
    if read:
        lines.append(f"static inline {c} read_{name}(uint32_t i) {{ return {read}; }}")
    else:
        lines.append(f"static inline {c} read_{name}(uint32_t i) {{ {c} v; PLAIN_COPY(&v, &{name}[i], sizeof v); return v; }}")
    return lines


# --- the kernel ----------------------------------------------------------------------------------------------

def arguments(spec):
    """The kernel's parameters in kernelgen's order (docs/c-interface.md): data (unless the kernel holds it), the
    data count, indices (unless constant), the count, updates (unless held), output. [(declaration, name)]"""
    t, ti = c_type(spec), index_type(spec)
    reads = "const char *const *" if spec["dtype"] == "string" else f"const {t} *"
    writes = "const char **" if spec["dtype"] == "string" else f"{t} *"
    out = []
    if "data" not in spec and "data_file" not in spec:
        out.append((f"{reads}data", "data"))
    if spec.get("data_count") == "runtime":
        out.append(("uint32_t data_count", "data_count"))
    if "indices" not in spec:
        out.append((f"const {ti} *indices", "indices"))
    if spec.get("count") == "runtime":
        out.append(("uint32_t count", "count"))
    if spec["op"] in SCATTERS and "updates" not in spec and "updates_file" not in spec:
        out.append((f"{reads}updates", "updates"))
    out.append((f"{writes}output", "output"))
    return out


def parameters(spec):
    return ", ".join(declaration for declaration, _ in arguments(spec))


def prototype(spec, name):
    return f"int {name}({parameters(spec)})"


def plain_kernel(spec, name, checked=True):
    op, data, ind = spec["op"], spec["data_shape"], spec["indices_shape"]
    t, ti = c_type(spec), index_type(spec)
    ds, js = strides(data), strides(ind)
    body, variables, tables = [], [], []
    reduction = spec.get("reduction", "none")
    count = "count" if spec.get("count") == "runtime" else None
    data_count = "data_count" if spec.get("data_count") == "runtime" else None
    leads_data = spec.get("count_leads") == "data"

    def tensor(key, c, dtype):
        """How the kernel reads `key`: its parameter, or the plain file's table of the spec's constants."""
        if key in spec or key + "_file" in spec:
            tables.extend(table(key, c, load(spec, key, dtype), dtype))
            return lambda at: f"read_{key}({at})"
        return lambda at: f"{key}[{at}]"
    quantization = spec.get("quantization")
    if quantization:  # the values one a byte, or two (element 2k in byte k's low nibble)
        read = lambda at: f"read_data({at})"  # noqa: E731
        tables += quantized_values(spec)
    else:
        read = tensor("data", t, spec["dtype"])
    index = tensor("indices", narrowest(spec.get("indices", 0)), "int64")
    if derived(spec):  # the index at a position (loop variables over indices_shape): the value taken there, plus
        taken, (start, steps) = taken_strides(spec), added_steps(spec)  # the constant added at that position

        def index_at(names, component=None, place=None):
            """`component` counts the components read, `place` (where it differs) its place in the whole tuple."""
            terms = list(zip(names, taken)) + ([(component, taken[-1])] if component else [])
            constant = [f"(int64_t){n}" + (f" * {step}" if step != 1 else "")
                        for n, step in zip(names + ([place or component] if component else []), steps) if step]
            constant += [str(start)] if start else []
            return f"({index(offset(terms))} + {' + '.join(constant)})" if constant else index(offset(terms))
    update = tensor("updates", t, spec["dtype"]) if op in SCATTERS else None
    # Per axis of updates_shape, the stride of the updates the kernel takes (0 where they are broadcast).
    us = broadcast_strides(updates_shape(spec), updates_taken(spec)) if op in SCATTERS else None
    # Index rows (a count of them, or all) and the checks: constant indices were checked when generated (along
    # axis 0 they are checked against a run-time data count).
    rows = ind[0] if ind else 1
    n_indices = times(count, prod(ind[1:])) if count and not leads_data else prod(ind)
    check_indices = checked and ("indices" not in spec or data_count)
    if check_indices and derived(spec):  # each value taken, once, against its shifted range
        body += range_check_loop(prod(taken_shape(spec)), value_ranges(spec), index)
        variables.append("t")
        check_indices = False
    variables += ["t"] if check_indices or (checked and op == "TensorScatter") else []
    # A count above its bound: the error codes of kernelgen's C interface (-3 for the data count, -2 for the count).
    if checked and data_count:
        body += [f"    if (data_count > {data[0]}u) {{", "        return -3;", "    }"]
    if checked and count:
        bound = data[0] if leads_data else rows
        body += [f"    if (count > {bound}u) {{", "        return -2;", "    }"]

    def store(target, value):
        if reduction == "none":
            return f"{target} = {value};"
        if spec["dtype"] in HALF_TYPES:
            return HALF_COMBINE[reduction].format(o=target, u=value, f=spec["dtype"])
        if spec["dtype"] in COMPLEX_TYPES:
            return COMPLEX_COMBINE[reduction].format(o=target, u=value, t=t)
        combine = FLOAT_COMBINE if t in ("float", "double") else BOOL_COMBINE if t == "_Bool" else COMBINE
        return combine[reduction].format(o=target, u=value, t=t)

    def copy_data():
        """A scatter's output starts as data (its data_count rows): element by element, or (unchecked, as onnx2c
        writes it) one memcpy."""
        n = times(data_count, prod(data[1:])) if data_count else prod(data)
        if not checked:
            size = f"(size_t){n} * sizeof({t})" if data_count else f"{n}u * sizeof({t})"
            copy = "PLAIN_COPY" if "data" in spec or "data_file" in spec else "memcpy"
            return [f"    {copy}(output, data, {size});"]
        variables.append("e")
        return loops(["e"], [n], [f"output[e] = {read('e')};"])
    if quantization:
        body += dequantizing_gather(spec, index, n_indices, checked, variables, tables)
    elif op == "Gather":
        axis = spec.get("axis", 0) % len(data)
        size = data_count or data[axis]
        outer, inner = prod(data[:axis]), prod(data[axis + 1:])
        if leads_data:
            outer = times(count, prod(data[1:axis]))
        body += check_loop(n_indices, [size], ti, index) if check_indices else []
        # Derived indices: a loop per axis of indices_shape, whose variables say where each index is taken from.
        names = [f"i{d}" for d in range(len(ind))] if derived(spec) else ["i"]
        position = offset(list(zip(names, js))) if derived(spec) else "i"
        variables += ["o", *names, "e"]
        body += loops(["o", *names], [outer, *(ind if derived(spec) else [n_indices])], [
            f"const uint32_t row = {wrap(index_at(names) if derived(spec) else index('i'), size)};",
            *loops(["e"], [inner], [f"output[(o * {extent(n_indices)} + {position}) * {inner}u + e] = "
                                    f"{read(f'(o * {data[axis]}u + row) * {inner}u + e')};"], ""),
        ])
    elif op in ("GatherElements", "ScatterElements"):
        axis = spec.get("axis", 0) % len(data)
        size = data_count or data[axis]
        names = [f"i{d}" for d in range(len(ind))]
        variables += names
        body += check_loop(n_indices, [size], ti, index) if check_indices else []
        at = offset(list(zip(names, js)))
        located = offset([(n, s) for d, (n, s) in enumerate(zip(names, ds)) if d != axis] + [("v", ds[axis])])
        v = f"const uint32_t v = {wrap(index_at(names) if derived(spec) else index(at), size)};"
        extents = [count or rows] + ind[1:] if ind else []
        if op == "GatherElements":
            body += loops(names, extents, [v, f"output[{at}] = {read(located)};"])
        else:
            body += copy_data()
            body += loops(names, extents, [v, store(f"output[{located}]", update(offset(list(zip(names, us)))))])
    elif op == "TensorScatter":
        body += tensor_scatter(spec, read, index, update, checked, variables, copy_data)
    else:  # GatherND and ScatterND: tuples of k along indices[:-1] select data[b + j]
        b = spec.get("batch_dims", 0) if op == "GatherND" else 0
        k = ind[-1]
        block = prod(data[b + k:])
        tuples = ind[:-1]
        names = [f"i{d}" for d in range(len(tuples))]
        variables += names + ["e", "j"]
        bounds = [data[b + j] for j in range(k)]
        body += check_loop(n_indices, [data_count or bounds[0]] + bounds[1:], ti, index) if check_indices else []
        tuple_at = offset(list(zip(names, js[:-1])))
        dense = offset(list(zip(names, us[:len(tuples)] if us else [s // k * block for s in js[:-1]])))
        batch = offset([(n, ds[d]) for d, n in enumerate(names[:b])])
        # The components read, in a loop over tables of their axes; constant components (tuple_constants, checked
        # when generated) are one offset, added once a tuple.
        reads, constants = read_components(spec), spec.get("tuple_constants", [None] * k)
        fixed = sum((c + bounds[j] if c < 0 else c) * ds[b + j] for j, c in enumerate(constants) if c is not None)
        origin = [part for part in (batch, f"{fixed}u") if part != "0u"]
        inner = [f"uint32_t at = {' + '.join(origin) or '0u'};"]
        place = None  # a step along the tuples counts each component's place in the whole tuple
        if "tuple_constants" in spec and added_steps(spec)[1][-1]:
            if reads == list(range(reads[0], reads[0] + len(reads))):
                place = f"(j + {reads[0]}u)"
            else:
                place = "places[j]"
                body.insert(0, f"    static const uint32_t places[{len(reads)}] = {{{', '.join(map(str, reads))}}};")
        value = index_at(names, "j", place) if derived(spec) else index(f"{tuple_at} + j")
        inner += loops(["j"], [len(reads)], [f"const {'int64_t' if derived(spec) else ti} v = {value};",
                                             f"at += {wrap('v', f'(' + ti + ')dims[j]')} * strides[j];"], "")
        dims = ", ".join([data_count or str(bounds[reads[0]])] + [str(bounds[j]) for j in reads[1:]])
        stride_table = ", ".join(str(ds[b + j]) for j in reads)
        body.insert(0, f"    static const uint32_t strides[{len(reads)}] = {{{stride_table}}};")
        body.insert(0, f"    {'const' if data_count else 'static const'} uint32_t dims[{len(reads)}] = {{{dims}}};")
        if op == "GatherND":
            inner += loops(["e"], [block], [f"output[{dense} + e] = {read('at + e')};"], "")
        else:
            body += copy_data()
            inner += loops(["e"], [block], [store("output[at + e]", update(f"{dense} + e"))], "")
        body += loops(names, [count or tuples[0]] + tuples[1:] if tuples else [], inner)
    declarations = "    uint32_t " + ", ".join(dict.fromkeys(variables)) + ";"
    # The support header: a float16 reduction's conversions, the complex structs, a quantized table's float16.
    support = ((reduction != "none" or quantization) and spec["dtype"] in HALF_TYPES) or spec["dtype"] in COMPLEX_TYPES
    return "\n".join([
        "#include <stdint.h>", *(["#include <string.h>"] if not checked or tables else []),
        *(["#include <math.h>"] if any("NAN" in line or "INFINITY" in line for line in tables) else []),
        *(['#include "kernelgen_support.h"'] if support else []), "",
        *([TABLE_READS, *tables, ""] if tables else []),
        f"int {name}({parameters(spec)});", "",
        f"int {name}({parameters(spec)})", "{", declarations, *body, "    return 0;", "}", ""])


def quantized_values(spec):
    """The table of a quantized Gather's values: one a byte (8-bit), or two a byte, packed flat (4-bit)."""
    kind = spec["quantization"]["type"]
    if kind in ("int8", "uint8"):
        return table("data", kind + "_t", load(spec, "data", "int"), kind)
    values = load(spec, "data", "int") if "data" in spec else unpack_nibbles(spec)
    packed = [(values[i] & 15) | ((values[i + 1] & 15) << 4 if i + 1 < len(values) else 0)
              for i in range(0, len(values), 2)]
    return table("data", "uint8_t", packed, "uint8")


def unpack_nibbles(spec):
    """A 4-bit table's values from its NumPy file: two a byte along the last axis, each row padded to whole bytes."""
    shape, packed = read_npy(spec["data_file"])
    n, row = spec["data_shape"][-1], shape[-1]
    values = []
    for start in range(0, len(packed), row):
        nibbles = [v for byte in packed[start:start + row] for v in ((byte & 15), (byte & 255) >> 4)][:n]
        values += [(v ^ 8) - 8 for v in nibbles] if spec["quantization"]["type"] == "int4" else nibbles
    return values


def dequantizing_gather(spec, index, n_indices, checked, variables, tables):
    """A Gather along axis 0 of a quantized table: each element (float)(q - zero_point) * scale, the scale (and
    zero point) of its position along the quantization axis, as docs/spec-format.md has it."""
    data, q = spec["data_shape"], spec["quantization"]
    t = c_type(spec)
    ds = strides(data)
    inner = prod(data[1:])
    tables += table("scales", t, load(q, "scales", spec["dtype"]), spec["dtype"])
    zero_points = load(q, "zero_points", "int") if "zero_points" in q or "zero_points_file" in q else [0]
    if len(zero_points) > 1:
        tables += table("zero_points", q["type"].replace("4", "8") + "_t", zero_points, "int")
    if "axis" in q and q.get("block_size", 0):  # scales shaped as data, the axis in blocks
        a = q["axis"] % len(data)
        dim, st, block = data[a], ds[a], q["block_size"]
        blocks = -(-dim // block)
        at = f"f / {st * dim}u * {blocks * st}u + f / {st}u % {dim}u / {block}u * {st}u + f % {st}u"
    elif "axis" in q:  # a scale per index along the axis
        a = q["axis"] % len(data)
        at = f"f / {ds[a]}u % {data[a]}u"
    else:
        at = "0u"
    if q["type"] in ("int4", "uint4"):
        nibble = "((f & 1u) != 0u ? read_data(f >> 1) >> 4 : read_data(f >> 1) & 15u)"
        value = f"((int){nibble} ^ 8) - 8" if q["type"] == "int4" else f"(int){nibble}"
    else:
        value = "(int)read_data(f)"
    zero = "(int)read_zero_points(s)" if len(zero_points) > 1 else str(int(zero_points[0]))
    scale = f"kernelgen_{spec['dtype']}_to_float(read_scales(s))" if spec["dtype"] in HALF_TYPES else "read_scales(s)"
    product = f"({'double' if t == 'double' else 'float'})(({value}) - {zero}) * {scale}"
    if spec["dtype"] in HALF_TYPES:
        product = f"kernelgen_{spec['dtype']}_from_float({product})"
    variables += ["i", "e"]
    lines = check_loop(n_indices, [data[0]], index_type(spec), index) if checked else []
    return lines + loops(["i"], [n_indices], [
        f"const uint32_t row = {wrap(index('i'), data[0])};",
        *loops(["e"], [inner], [f"const uint32_t f = row * {inner}u + e, s = {at};",
                                f"output[i * {inner}u + e] = {product};"], "")])


def tensor_scatter(spec, read, index, update, checked, variables, copy_data):
    """TensorScatter: the cache copied, then each batch row's update written from its write index on (linear:
    0..max - sequence; circular: any from 0, the sequence coordinate wrapping alone)."""
    data, updates = spec["data_shape"], spec["updates_shape"]
    axis = spec.get("axis", -2) % len(data)
    batch, middle, inner = data[0], prod(data[1:axis]), prod(data[axis + 1:])
    cache, sequence = data[axis], updates[axis]
    circular = spec.get("mode") == "circular"
    lines = []
    if checked:
        test = f"{index('t')} < 0" + ("" if circular else f" || {index('t')} > {cache - sequence}")
        lines += loops(["t"], [batch], [f"if ({test}) {{", "    return -1;", "}"])
    lines += copy_data()
    variables += ["b", "m", "j", "e", "w"]
    where = f"(w + j) % {cache}u" if circular else "w + j"
    first = f"(uint32_t)({index('b')} % {cache})" if circular else f"(uint32_t){index('b')}"
    lines += loops(["b"], [batch], [
        f"w = {first};",
        *loops(["m", "j", "e"], [middle, sequence, inner], [
            f"output[b * {middle * cache * inner}u + m * {cache * inner}u + ({where}) * {inner}u + e] = "
            f"{update(f'b * {middle * sequence * inner}u + m * {sequence * inner}u + j * {inner}u + e')};"], "")])
    return lines
def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    folder = os.path.dirname(os.path.abspath(sys.argv[1]))  # a constant tensor's file is relative to the spec
    for holder in (spec, spec.get("quantization", {})):
        for key in ("data_file", "updates_file", "scales_file", "zero_points_file"):
            if key in holder:
                holder[key] = os.path.join(folder, holder[key])
    with open(sys.argv[2], "w") as f:
        f.write(plain_kernel(spec, "plain_" + spec["name"]))


if __name__ == "__main__":
    main()
