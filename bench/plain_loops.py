#!/usr/bin/env python3
"""Plain constant-bound loop kernels: the baseline for kernelgen's flash with "unroll": "none".

For a spec, writes the C a careful hand (or onnx2c) would: nested loops with literal bounds, one element at a
time, no unrolling and no memcpy, with the same contract as kernelgen's kernels (every index checked first,
negative indices wrapped, -1 and output untouched when one is out of range). Gather, GatherElements, GatherND,
ScatterND and ScatterElements in every numeric element type and bool, with every reduction (float16 and bfloat16
stored as 16-bit integers, their reductions computed in float32 through kernelgen_support.h's conversions, the
same arithmetic the kernel's combine does, so the two differ in their loops alone; bool's add and max an OR, mul
and min an AND, as ONNX Runtime; complex64 and complex128 as kernelgen_support.h's structs, add and mul as
ONNX Runtime computes them, each product rounded on its own); not: constant tensors, run-time counts, quantized
tables, strings, TensorScatter (covers() says why).

With checked=False, the unchecked kernel of the same loops, the shape of onnx2c's Gather and ScatterND (which
check no index): no check pass, and a scatter's output starting as one memcpy of data. Negative indices are still
wrapped (onnx2c's Gather wraps them; the benchmarks' indices include negative ones).

Usage: bench/plain_loops.py SPEC.json OUT.c   (a spec file holding one kernel object)
"""
import json
import sys
from math import prod

C_TYPES = {
    "float32": "float", "float": "float", "float64": "double", "double": "double", "int8": "int8_t",
    "int16": "int16_t", "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t",
    "uint32": "uint32_t", "uint64": "uint64_t", "bool": "_Bool", "float16": "uint16_t", "bfloat16": "uint16_t",
    "complex64": "kernelgen_complex64", "complex128": "kernelgen_complex128",
}
OPS = ("Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements")
SCATTERS = ("ScatterND", "ScatterElements")
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
    for key in ("data", "data_file", "indices", "updates", "updates_file", "quantization", "scales_file"):
        if key in spec:
            return "constant tensors are not written"
    if spec.get("count") == "runtime" or spec.get("data_count") == "runtime":
        return "run-time counts are not written"
    return None


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


def loops(names, extents, body, indent="    "):
    """Nested for loops over names with literal extents around body lines."""
    lines = []
    for depth, (name, extent) in enumerate(zip(names, extents)):
        lines.append(f"{indent}{'    ' * depth}for ({name} = 0u; {name} < {extent}u; ++{name}) {{")
    depth = len(names)
    lines += [f"{indent}{'    ' * depth}{line}" for line in body]
    for d in reversed(range(depth)):
        lines.append(f"{indent}{'    ' * d}}}")
    return lines


def check_loop(count, bounds_of, index_type):
    """The check pass: every index value against the size of the axis it selects along."""
    lines = ["    for (t = 0u; t < %du; ++t) {" % count]
    if len(set(bounds_of)) == 1:
        s = bounds_of[0]
        lines.append(f"        if (indices[t] < -{s} || indices[t] > {s - 1}) {{")
    else:
        k = len(bounds_of)
        table = ", ".join(str(b) for b in bounds_of)
        lines.insert(0, f"    static const {index_type} bound[{k}] = {{{table}}};")
        lines.append(f"        if (indices[t] < -bound[t % {k}u] || indices[t] >= bound[t % {k}u]) {{")
    lines += ["            return -1;", "        }", "    }"]
    return lines


def copy_data(data, t, checked):
    """A scatter's output starts as data: element by element, or (unchecked, as onnx2c writes it) one memcpy."""
    if not checked:
        return [f"    memcpy(output, data, {prod(data)}u * sizeof({t}));"]
    return loops(["e"], [prod(data)], ["output[e] = data[e];"])


def wrap(expression, size):
    return f"(uint32_t)({expression} < 0 ? {expression} + {size} : {expression})"


def parameters(spec):
    t = C_TYPES[spec["dtype"]]
    ti = "int32_t" if spec.get("index_dtype") == "int32" else "int64_t"
    updates = f"const {t} *updates, " if spec["op"] in SCATTERS else ""
    return f"const {t} *data, const {ti} *indices, {updates}{t} *output"


def prototype(spec, name):
    return f"int {name}({parameters(spec)})"


def plain_kernel(spec, name, checked=True):
    op, data, ind = spec["op"], spec["data_shape"], spec["indices_shape"]
    t = C_TYPES[spec["dtype"]]
    ti = "int32_t" if spec.get("index_dtype") == "int32" else "int64_t"
    ds, js = strides(data), strides(ind)
    params = parameters(spec)
    body, variables = [], ["t"] if checked else []
    reduction = spec.get("reduction", "none")

    def store(target, value):
        if reduction == "none":
            return f"{target} = {value};"
        if spec["dtype"] in HALF_TYPES:
            return HALF_COMBINE[reduction].format(o=target, u=value, f=spec["dtype"])
        if spec["dtype"] in COMPLEX_TYPES:
            return COMPLEX_COMBINE[reduction].format(o=target, u=value, t=t)
        combine = FLOAT_COMBINE if t in ("float", "double") else BOOL_COMBINE if t == "_Bool" else COMBINE
        return combine[reduction].format(o=target, u=value, t=t)
    if op == "Gather":
        axis = spec.get("axis", 0) % len(data)
        outer, size, inner, count = prod(data[:axis]), data[axis], prod(data[axis + 1:]), prod(ind)
        body += check_loop(count, [size], ti) if checked else []
        variables += ["o", "i", "e"]
        body += loops(["o", "i"], [outer, count], [
            f"const uint32_t row = {wrap('indices[i]', size)};",
            *loops(["e"], [inner], [f"output[(o * {count}u + i) * {inner}u + e] = data[(o * {size}u + row) * {inner}u + e];"], ""),
        ])
    elif op in ("GatherElements", "ScatterElements"):
        axis = spec.get("axis", 0) % len(data)
        names = [f"i{d}" for d in range(len(ind))]
        variables += names
        body += check_loop(prod(ind), [data[axis]], ti) if checked else []
        at = offset(list(zip(names, js)))
        located = offset([(n, s) for d, (n, s) in enumerate(zip(names, ds)) if d != axis] + [("v", ds[axis])])
        v = f"const uint32_t v = {wrap(f'indices[{at}]', data[axis])};"
        if op == "GatherElements":
            body += loops(names, ind, [v, f"output[{at}] = data[{located}];"])
        else:
            variables += ["e"] if checked else []
            body += copy_data(data, t, checked)
            body += loops(names, ind, [v, store(f"output[{located}]", f"updates[{at}]")])
    else:  # GatherND and ScatterND: tuples of k along indices[:-1] select data[b + j]
        b = spec.get("batch_dims", 0) if op == "GatherND" else 0
        k = ind[-1]
        block = prod(data[b + k:])
        tuples = ind[:-1]
        names = [f"i{d}" for d in range(len(tuples))]
        variables += names + ["e", "j"]
        bounds = [data[b + j] for j in range(k)]
        body += check_loop(prod(ind), bounds, ti) if checked else []
        tuple_at = offset(list(zip(names, js[:-1])))
        dense = offset(list(zip(names, [s // k * block for s in js[:-1]])))
        batch = offset([(n, ds[d]) for d, n in enumerate(names[:b])])
        inner = ["uint32_t at = %s;" % batch]
        inner += loops(["j"], [k], [f"const {ti} v = indices[{tuple_at} + j];",
                                    f"at += {wrap('v', f'(' + ti + ')dims[j]')} * strides[j];"], "")
        table = ", ".join(str(x) for x in bounds)
        stride_table = ", ".join(str(ds[b + j]) for j in range(k))
        body.insert(0, f"    static const uint32_t strides[{k}] = {{{stride_table}}};")
        body.insert(0, f"    static const uint32_t dims[{k}] = {{{table}}};")
        if op == "GatherND":
            inner += loops(["e"], [block], [f"output[{dense} + e] = data[at + e];"], "")
        else:
            body += copy_data(data, t, checked)
            inner += loops(["e"], [block], [store("output[at + e]", f"updates[{dense} + e]")], "")
        body += loops(names, tuples, inner)
    declarations = "    uint32_t " + ", ".join(dict.fromkeys(variables)) + ";"
    # The support header: a float16 reduction's conversions, the complex structs.
    support = (reduction != "none" and spec["dtype"] in HALF_TYPES) or spec["dtype"] in COMPLEX_TYPES
    return "\n".join([
        "#include <stdint.h>", *([] if checked else ["#include <string.h>"]),
        *(['#include "kernelgen_support.h"'] if support else []), "",
        f"int {name}({params});", "",
        f"int {name}({params})", "{", declarations, *body, "    return 0;", "}", ""])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    with open(sys.argv[2], "w") as f:
        f.write(plain_kernel(spec, "plain_" + spec["name"]))


if __name__ == "__main__":
    main()
