"""Property test of kernelgen import's run-time count bounds: a bound is a promise for every input.

Builds random ONNX graphs (onnx.helper, opset 17): a producer whose output has a number of rows known only at run
time (NonZero, TopK with a run-time k, NonMaxSuppression, Compress, Unique), then one to four operators the count
goes through (casts and element-wise operators, broadcasting against constants and against a second count,
Transpose, Squeeze, Unsqueeze, Reshape, Flatten, Slice (and Slice by run-time starts and ends, a producer), Expand,
Concat along the counted axis and beside it, MatMul, a Gather of a column, Split, If, and the count read off the
shape by Shape and Gather or Slice and made a dimension again by ConstantOfShape, Expand, Range or Reshape(t, [c, -1])), and last an indexing node "probe": a Gather whose indices are the counted tensor
(moved to the front, made int64 and multiplied by 0, so that every run is valid). `kernelgen import` gives the
probe a bound (its report's "bounded" entry); ONNX Runtime then runs each graph on inputs chosen to reach the
extremes (all-zero and all-one masks, one nonzero, k at the axis' size, every box kept) and random ones, and the
count it produces (the leading dimension of the probe's indices) must never pass the bound.

Usage: count_bound_property.py KERNELGEN NODE ORT_DIR WORK_DIR [--graphs N] [--seed S]
Prints one line per graph that breaks a bound (with its operators and the counts seen) and a summary; exits 1
when a bound was broken, or when too few graphs got a bound to prove anything.
"""
import argparse
import json
import os
import random
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

OPSET = 17
NP_TYPES = {T.FLOAT: np.float32, T.INT64: np.int64, T.BOOL: np.bool_}
ORT_TYPES = {T.FLOAT: "float32", T.INT64: "int64", T.BOOL: "bool"}


class Counted:
    """A tensor of the graph being built: its static dims, with None at the counted axis."""

    def __init__(self, name, dims, axis, elem):
        self.name, self.dims, self.axis, self.elem = name, list(dims), axis, elem

    @property
    def rank(self):
        return len(self.dims)


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inputs, self.inits = [], [], []
        self.feeds = []  # (name, elem, dims, kind): how run inputs are made for each graph input
        self.ops = []    # what the graph does, for messages
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return f"{stem}{self.count}"

    def node(self, op, inputs, outputs=1, **attrs):
        names = [self.fresh(op.lower() + "_") for _ in range(outputs)]
        self.nodes.append(h.make_node(op, inputs, names, name=self.fresh(op + "_node"), **attrs))
        return names if outputs > 1 else names[0]

    def const(self, array):
        name = self.fresh("c")
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def input(self, elem, dims, kind):
        name = self.fresh("in")
        self.inputs.append(h.make_tensor_value_info(name, elem, dims))
        self.feeds.append((name, elem, list(dims), kind))
        return name

    # --- the producers -------------------------------------------------------------------------------------

    def nonzero(self, rank=None):
        rank = rank or self.rng.choice([1, 2])
        dims = [self.rng.choice([1, 2, 4, 7, 100]) for _ in range(rank)] if rank == 1 else \
            [self.rng.choice([1, 2, 3, 5]) for _ in range(rank)]
        x = self.input(T.FLOAT, dims, "mask")
        mask = self.node("Greater", [x, self.const(np.float32(0.5))])
        self.ops.append(f"NonZero{dims}")
        return Counted(self.node("NonZero", [mask]), [rank, None], 1, T.INT64)

    def top_k(self):
        dims = [self.rng.choice([2, 3]), self.rng.choice([4, 6])]
        axis = self.rng.choice([0, 1, -1])
        x = self.input(T.FLOAT, dims, "values")
        k = self.input(T.INT64, [1], f"k:{dims[axis]}")
        if self.rng.random() < 0.4:  # torchvision's k = min(c, n): at most c
            c = self.rng.choice([0, 1, 2, 3, 5])
            both = self.node("Concat", [self.const(np.array([c], dtype=np.int64)), k], axis=0)
            k = self.node("Reshape", [self.node("ReduceMin", [both], keepdims=0),
                                      self.const(np.array([1], dtype=np.int64))])
            self.ops.append(f"k = min({c}, k)")
        values, indices = self.node("TopK", [x, k], outputs=2, axis=axis)
        out = self.rng.choice([values, indices])
        self.ops.append(f"TopK{dims} axis {axis}")
        shape = list(dims)
        shape[axis] = None
        return Counted(out, shape, axis % 2, T.FLOAT if out == values else T.INT64)

    def nms(self):
        boxes_n, classes = self.rng.choice([3, 6]), self.rng.choice([1, 2])
        boxes = self.input(T.FLOAT, [1, boxes_n, 4], "boxes")
        scores = self.input(T.FLOAT, [1, classes, boxes_n], "scores")
        inputs = [boxes, scores]
        if self.rng.random() < 0.5:
            inputs.append(self.input(T.INT64, [1], f"k:{boxes_n + 2}"))
        else:
            inputs.append(self.const(np.array([self.rng.choice([1, 2, 50])], dtype=np.int64)))
        inputs += [self.const(np.array([0.5], dtype=np.float32)), self.const(np.array([0.0], dtype=np.float32))]
        self.ops.append(f"NonMaxSuppression boxes {boxes_n} classes {classes}")
        return Counted(self.node("NonMaxSuppression", inputs), [None, 3], 0, T.INT64)

    def compress(self):
        dims = [self.rng.choice([2, 3, 5]), self.rng.choice([2, 4])]
        x = self.input(T.FLOAT, dims, "values")
        axis = self.rng.choice([0, 1, None])
        length = dims[axis] if axis is not None else dims[0] * dims[1]
        length = self.rng.choice([length, max(1, length - 1)])
        cond = self.input(T.BOOL, [length], "bools")
        attrs = {} if axis is None else {"axis": axis}
        self.ops.append(f"Compress{dims} axis {axis} condition [{length}]")
        out = self.node("Compress", [x, cond], **attrs)
        if axis is None:
            return Counted(out, [None], 0, T.FLOAT)
        shape = list(dims)
        shape[axis] = None
        return Counted(out, shape, axis, T.FLOAT)

    def unique(self):
        dims = [self.rng.choice([3, 6])] if self.rng.random() < 0.5 else [self.rng.choice([2, 4]), 3]
        x = self.input(T.FLOAT, dims, "small_ints")
        axis = 0 if len(dims) == 2 and self.rng.random() < 0.5 else None
        outs = self.node("Unique", [x], outputs=4, **({} if axis is None else {"axis": 0}))
        which = self.rng.choice([0, 1, 3])
        self.ops.append(f"Unique{dims} axis {axis} output {which}")
        if which == 0 and axis == 0:
            return Counted(outs[0], [None, dims[1]], 0, T.FLOAT)
        return Counted(outs[which], [None], 0, T.FLOAT if which == 0 else T.INT64)

    def runtime_slice(self):
        dims = [self.rng.choice([2, 5]), self.rng.choice([3, 4])]
        x = self.input(T.FLOAT, dims, "values")
        axis = self.rng.choice([0, 1, -1, None])  # None: axes left out (axis 0)
        size = dims[0 if axis is None else axis]
        starts = self.input(T.INT64, [1], f"s:{size}")
        ends = self.input(T.INT64, [1], f"s:{size}")
        inputs = [x, starts, ends]
        step = self.rng.choice([None, 1, 2, -1, -3])
        if axis is not None or step is not None:
            inputs.append(self.const(np.array([0 if axis is None else axis], dtype=np.int64)))
        if step is not None:
            inputs.append(self.const(np.array([step], dtype=np.int64)))
        self.ops.append(f"Slice{dims} axis {axis} step {step} by run-time starts and ends")
        shape = list(dims)
        at = 0 if axis is None else axis % 2
        shape[at] = None
        return Counted(self.node("Slice", inputs), shape, at, T.FLOAT)

    def producer(self):
        return self.rng.choice([self.nonzero, self.top_k, self.nms, self.compress, self.unique,
                                self.runtime_slice])()

    # --- the operators a count goes through --------------------------------------------------------------

    def as_float(self, t):
        if t.elem == T.FLOAT:
            return t
        return Counted(self.node("Cast", [t.name], to=T.FLOAT), t.dims, t.axis, T.FLOAT)

    def step(self, t):
        choices = [self.unary, self.broadcast_constant, self.broadcast_count, self.transpose, self.unsqueeze,
                   self.squeeze, self.reshape_flat, self.reshape_copy, self.flatten, self.slice, self.expand,
                   self.concat_along, self.concat_beside, self.matmul, self.gather_column, self.split, self.if_node,
                   self.through_shape, self.through_shape]
        for _ in range(8):
            out = self.rng.choice(choices)(t)
            if out is not None:
                return out
        return t

    def unary(self, t):
        op = self.rng.choice(["Neg", "Abs", "Relu", "Identity", "Cast"])
        if op == "Cast":
            to = self.rng.choice([T.FLOAT, T.INT64])
            self.ops.append("Cast")
            return Counted(self.node("Cast", [t.name], to=to), t.dims, t.axis, to)
        if op == "Relu":
            t = self.as_float(t)
        self.ops.append(op)
        return Counted(self.node(op, [t.name]), t.dims, t.axis, t.elem)

    def broadcast_constant(self, t):
        t = self.as_float(t)
        dims = [1 if d is None else self.rng.choice([d, 1]) for d in t.dims]
        drop = self.rng.randint(0, t.axis)  # leading axes the constant leaves out (never the counted one)
        dims = dims[drop:]
        op = self.rng.choice(["Add", "Mul", "Max", "Min", "Sum", "Where"])
        c = self.const(np.ones(dims, dtype=np.float32))
        self.ops.append(f"{op} with constant {dims}")
        if op == "Where":
            cond = self.const(np.ones(dims, dtype=np.bool_))
            return Counted(self.node("Where", [cond, t.name, c]), t.dims, t.axis, T.FLOAT)
        return Counted(self.node(op, [t.name, c]), t.dims, t.axis, T.FLOAT)

    def broadcast_count(self, t):
        # A second count on the same axis: where one of the two is 1, it broadcasts against the other.
        if t.rank != 2 or t.axis != 1 or t.dims[0] not in (1, 2):
            return None
        other = self.nonzero(rank=t.dims[0])
        a, b = self.as_float(t), self.as_float(other)
        op = self.rng.choice(["Add", "Mul", "Max", "Sum", "Where"])
        self.ops.append(f"{op} with a second count")
        if op == "Where":
            cond = self.const(np.ones([1, 1], dtype=np.bool_))
            return Counted(self.node("Where", [cond, a.name, b.name]), t.dims, t.axis, T.FLOAT)
        return Counted(self.node(op, [a.name, b.name]), t.dims, t.axis, T.FLOAT)

    def transpose(self, t):
        perm = list(range(t.rank))
        self.rng.shuffle(perm)
        self.ops.append(f"Transpose{perm}")
        return Counted(self.node("Transpose", [t.name], perm=perm), [t.dims[p] for p in perm], perm.index(t.axis), t.elem)

    def unsqueeze(self, t):
        if t.rank >= 4:
            return None
        at = self.rng.randint(0, t.rank)
        dims = t.dims[:at] + [1] + t.dims[at:]
        self.ops.append(f"Unsqueeze[{at}]")
        axes = self.const(np.array([at], dtype=np.int64))
        return Counted(self.node("Unsqueeze", [t.name, axes]), dims, t.axis + (1 if at <= t.axis else 0), t.elem)

    def squeeze(self, t):
        ones = [i for i, d in enumerate(t.dims) if d == 1]
        if not ones:
            return None
        at = self.rng.choice(ones)
        self.ops.append(f"Squeeze[{at}]")
        axes = self.const(np.array([at], dtype=np.int64))
        dims = t.dims[:at] + t.dims[at + 1:]
        return Counted(self.node("Squeeze", [t.name, axes]), dims, t.axis - (1 if at < t.axis else 0), t.elem)

    def reshape_flat(self, t):
        self.ops.append("Reshape[-1]")
        return Counted(self.node("Reshape", [t.name, self.const(np.array([-1], dtype=np.int64))]), [None], 0, t.elem)

    def reshape_copy(self, t):
        # [0, ..., 0, product of the rest]: copies the dims up to the counted one, merges the static ones after it.
        rest = t.dims[t.axis + 1:]
        target = [0] * (t.axis + 1) + ([int(np.prod(rest))] if rest else [])
        self.ops.append(f"Reshape{target}")
        dims = t.dims[:t.axis + 1] + target[t.axis + 1:]
        return Counted(self.node("Reshape", [t.name, self.const(np.array(target, dtype=np.int64))]), dims, t.axis, t.elem)

    def flatten(self, t):
        axis = self.rng.randint(0, t.rank)
        self.ops.append(f"Flatten axis {axis}")
        first = t.axis < axis
        outer = [d for d in t.dims[:axis]]
        inner = [d for d in t.dims[axis:]]
        dims = [None if first else int(np.prod(outer)), int(np.prod(inner)) if first else None]
        return Counted(self.node("Flatten", [t.name], axis=axis), dims, 0 if first else 1, t.elem)

    def slice(self, t):
        axis = t.axis if self.rng.random() < 0.7 else self.rng.randrange(t.rank)
        start, end, step = self.rng.choice([(0, 3, 1), (1, 1000, 1), (-3, 1000, 1), (0, 1000, 2), (-1, -1000, -1),
                                            (2, 5, 1)])
        dims = list(t.dims)
        if axis != t.axis:  # a static axis loses its last element
            start, end, step = 0, max(0, t.dims[axis] - 1), 1
            dims[axis] = end
        self.ops.append(f"Slice axis {axis} [{start}:{end}:{step}]")
        args = [np.array([v], dtype=np.int64) for v in (start, end, axis, step)]
        out = self.node("Slice", [t.name] + [self.const(a) for a in args])
        return Counted(out, dims, t.axis, t.elem)

    def expand(self, t):
        shape = [2] + [1] * t.rank
        self.ops.append(f"Expand{shape}")
        out = self.node("Expand", [t.name, self.const(np.array(shape, dtype=np.int64))])
        return Counted(out, [2] + t.dims, t.axis + 1, t.elem)

    def concat_along(self, t):
        t = self.as_float(t)
        if self.rng.random() < 0.5:
            other = t.name
            what = "itself"
        else:
            dims = [self.rng.choice([1, 3]) if d is None else d for d in t.dims]
            other = self.const(np.zeros(dims, dtype=np.float32))
            what = f"constant {dims}"
        self.ops.append(f"Concat axis {t.axis} with {what}")
        return Counted(self.node("Concat", [t.name, other], axis=t.axis), t.dims, t.axis, T.FLOAT)

    def concat_beside(self, t):
        others = [i for i in range(t.rank) if i != t.axis]
        if not others:
            return None
        axis = self.rng.choice(others)
        neg = self.node("Neg", [self.as_float(t).name])
        self.ops.append(f"Concat axis {axis} with its negation")
        dims = list(t.dims)
        dims[axis] *= 2
        return Counted(self.node("Concat", [self.as_float(t).name, neg], axis=axis), dims, t.axis, T.FLOAT)

    def matmul(self, t):
        if t.rank < 2 or t.axis != t.rank - 2:
            return None
        t = self.as_float(t)
        w = self.const(np.ones([t.dims[-1], 2], dtype=np.float32))
        self.ops.append("MatMul")
        return Counted(self.node("MatMul", [t.name, w]), t.dims[:-1] + [2], t.axis, T.FLOAT)

    def gather_column(self, t):
        others = [i for i in range(t.rank) if i != t.axis and t.dims[i] and t.dims[i] > 0]
        if not others:
            return None
        axis = self.rng.choice(others)
        scalar = self.rng.random() < 0.5
        idx = self.const(np.array(0 if scalar else [0, t.dims[axis] - 1], dtype=np.int64))
        self.ops.append(f"Gather axis {axis} {'scalar' if scalar else '[2]'}")
        dims = t.dims[:axis] + ([] if scalar else [2]) + t.dims[axis + 1:]
        count_axis = t.axis - (1 if scalar and axis < t.axis else 0)
        return Counted(self.node("Gather", [t.name, idx], axis=axis), dims, count_axis, t.elem)

    def split(self, t):
        others = [i for i in range(t.rank) if i != t.axis and t.dims[i] and t.dims[i] % 2 == 0]
        if not others:
            return None
        axis = self.rng.choice(others)
        halves = self.const(np.array([t.dims[axis] // 2] * 2, dtype=np.int64))
        parts = self.node("Split", [t.name, halves], outputs=2, axis=axis)
        self.ops.append(f"Split axis {axis}")
        dims = list(t.dims)
        dims[axis] //= 2
        return Counted(self.rng.choice(parts), dims, t.axis, t.elem)

    def if_node(self, t):
        t = self.as_float(t)
        cond = self.input(T.BOOL, [], "condition")
        then_out, else_out = self.fresh("then_"), self.fresh("else_")
        then_graph = h.make_graph([h.make_node("Identity", [t.name], [then_out])], "then", [],
                                  [h.make_tensor_value_info(then_out, T.FLOAT, None)])
        else_graph = h.make_graph([h.make_node("Concat", [t.name, t.name], [else_out], axis=t.axis)], "else", [],
                                  [h.make_tensor_value_info(else_out, T.FLOAT, None)])
        self.ops.append("If(then itself, else twice along the count)")
        out = self.node("If", [cond], then_branch=then_graph, else_branch=else_graph)
        return Counted(out, t.dims, t.axis, T.FLOAT)

    def shape_count(self, t):
        """The count read off t's shape as a 1-D value of one element: Shape, then Gather or Slice (or Shape's own
        start and end), perhaps through an int32 Cast and back."""
        how = self.rng.choice(["gather", "slice", "start_end"])
        if how == "start_end":
            count = self.node("Shape", [t.name], start=t.axis, end=t.axis + 1)
        else:
            shape = self.node("Shape", [t.name])
            if how == "gather":
                scalar = self.node("Gather", [shape, self.const(np.int64(t.axis - t.rank))], axis=0)
                count = self.node("Unsqueeze", [scalar, self.const(np.array([0], dtype=np.int64))])
            else:
                args = [np.array([v], dtype=np.int64) for v in (t.axis, t.axis + 1, 0)]
                count = self.node("Slice", [shape] + [self.const(a) for a in args])
        if self.rng.random() < 0.3:
            count = self.node("Cast", [self.node("Cast", [count], to=T.INT32)], to=T.INT64)
            how += ", int32 and back"
        return count, how

    def through_shape(self, t):
        # A count read off the shape and made a dimension again: ConstantOfShape, Expand, Range, Reshape(t, [c, -1]).
        count, how = self.shape_count(t)
        target = self.rng.choice(["ConstantOfShape", "Expand", "Range", "Reshape"])
        if target == "Range":
            start, delta = self.rng.choice([0, 1, -2]), self.rng.choice([1, 2])
            limit = self.node("Squeeze", [count, self.const(np.array([0], dtype=np.int64))])
            self.ops.append(f"Shape ({how}) to Range({start}, count, {delta})")
            out = self.node("Range", [self.const(np.int64(start)), limit, self.const(np.int64(delta))])
            return Counted(out, [None], 0, T.INT64)
        if target == "Reshape":
            rest = [d for i, d in enumerate(t.dims) if i != t.axis]
            shape = self.node("Concat", [count, self.const(np.array([-1], dtype=np.int64))], axis=0)
            moved = t
            if t.axis != 0:  # the count first, so that [count, -1] keeps the rows whole
                perm = [t.axis] + [i for i in range(t.rank) if i != t.axis]
                moved = Counted(self.node("Transpose", [t.name], perm=perm), [t.dims[p] for p in perm], 0, t.elem)
            self.ops.append(f"Shape ({how}) to Reshape(t, [count, -1])")
            return Counted(self.node("Reshape", [moved.name, shape]), [None, int(np.prod(rest)) if rest else 1], 0,
                           t.elem)
        width = self.rng.choice([1, 3])
        before = self.rng.random() < 0.5  # the count first or last in the new shape
        parts = [count, self.const(np.array([width], dtype=np.int64))]
        shape = self.node("Concat", parts if before else parts[::-1], axis=0)
        dims, axis = ([None, width], 0) if before else ([width, None], 1)
        self.ops.append(f"Shape ({how}) to {target}{'[count, %d]' % width if before else '[%d, count]' % width}")
        if target == "ConstantOfShape":
            return Counted(self.node("ConstantOfShape", [shape]), dims, axis, T.FLOAT)
        ones = self.const(np.ones([1, 1], dtype=np.float32))
        if self.rng.random() < 0.5:  # PyTorch's expand(n, w): Where(Equal(shape, -1), ones, shape)
            minus = self.node("Equal", [shape, self.const(np.array([-1, -1], dtype=np.int64))])
            shape = self.node("Where", [minus, self.const(np.array([1, 1], dtype=np.int64)), shape])
            self.ops[-1] += " through Where(Equal(shape, -1), 1, shape)"
        return Counted(self.node("Expand", [ones, shape]), dims, axis, T.FLOAT)

    # --- the probe -----------------------------------------------------------------------------------------

    def probe(self, t):
        if t.axis != 0:
            perm = [t.axis] + [i for i in range(t.rank) if i != t.axis]
            t = Counted(self.node("Transpose", [t.name], perm=perm), [t.dims[p] for p in perm], 0, t.elem)
        as_int = self.node("Cast", [t.name], to=T.INT64)
        idx = self.node("Mul", [as_int, self.const(np.int64(0))])
        table = self.const(np.arange(10, dtype=np.float32).reshape(5, 2))
        self.nodes.append(h.make_node("Gather", [table, idx], ["probe_out"], name="probe", axis=0))
        return idx

    def model(self, idx):
        outputs = [h.make_tensor_value_info(idx, T.INT64, None), h.make_tensor_value_info("probe_out", T.FLOAT, None)]
        graph = h.make_graph(self.nodes, "bounds", self.inputs, outputs, initializer=self.inits)
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)], producer_name="count_bound_property")
        model.ir_version = 8
        return model


def make_graph(rng):
    b = Builder(rng)
    t = b.producer()
    for _ in range(rng.randint(1, 4)):
        t = b.step(t)
    idx = b.probe(t)
    return b, b.model(idx), idx


def feed(rng, elem, dims, kind, variant):
    """One run's value of an input: variant 0 all zeros (nothing selected), 1 all ones, 2 exactly one set, then random."""
    size = int(np.prod(dims)) if dims else 1
    if kind.startswith("s:"):  # a Slice's start or end: in range, beyond either end, negative
        most = int(kind[2:]) + 3
        value = [0, most, -most][variant] if variant < 3 else rng.randint(-most, most)
        return np.array([value], dtype=np.int64)
    if kind.startswith("k:"):
        most = int(kind[2:])
        value = [0, most, 1][variant] if variant < 3 else rng.randint(0, most)
        return np.array([value], dtype=np.int64)
    if elem == T.BOOL:
        if kind == "condition":
            return np.array(variant % 2 == 1, dtype=np.bool_)
        pick = [np.zeros(size), np.ones(size), np.eye(1, size, max(0, size - 1))[0]][variant] if variant < 3 else \
            np.array([rng.random() < 0.5 for _ in range(size)])
        return pick.astype(np.bool_).reshape(dims)
    if kind == "boxes":
        if variant == 1:  # far apart: non-maximum suppression keeps them all
            boxes = [[10.0 * i, 0.0, 10.0 * i + 1.0, 1.0] for i in range(dims[1])]
            return np.array([boxes], dtype=np.float32)
        return np.array([[rng.random() * 4, rng.random() * 4, 5 + rng.random(), 5 + rng.random()]
                         for _ in range(dims[1])], dtype=np.float32).reshape(dims)
    if kind == "small_ints":
        values = [np.zeros(size), np.arange(size), np.eye(1, size, 0)[0]][variant] if variant < 3 else \
            np.array([rng.randint(0, 2) for _ in range(size)])
        return values.astype(np.float32).reshape(dims)
    values = [np.zeros(size), np.ones(size), np.eye(1, size, max(0, size - 1))[0]][variant] if variant < 3 else \
        np.array([rng.random() for _ in range(size)])
    return values.astype(np.float32).reshape(dims)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kernelgen")
    parser.add_argument("node")
    parser.add_argument("ort_dir")
    parser.add_argument("work")
    parser.add_argument("--graphs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = random.Random(args.seed)
    graphs, jobs = [], []
    for g in range(args.graphs):
        builder, model, idx = make_graph(rng)
        path = os.path.join(args.work, f"g{g}.onnx")
        onnx.save(model, path)
        out_dir = os.path.join(args.work, f"g{g}")
        run = subprocess.run([args.kernelgen, "import", path, "--out-dir", out_dir], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"g{g}: kernelgen import failed ({run.returncode}): {run.stderr.strip()}")
            return 1
        with open(os.path.join(out_dir, f"g{g}.import.json")) as f:
            report = json.load(f)
        entry = next(e for e in report["nodes"] if e["name"] == "probe")
        bound = entry["bounded"]["bound"] if "bounded" in entry else None
        graphs.append({"name": f"g{g}", "ops": builder.ops, "bound": bound, "idx": idx, "counts": [],
                       "why": entry.get("skipped", "")})
        for variant in range(args.runs):
            inputs = {}
            for name, elem, dims, kind in builder.feeds:
                value = feed(rng, elem, dims, kind, variant)
                inputs[name] = {"type": ORT_TYPES[elem], "dims": list(value.shape), "hex": value.tobytes().hex()}
            jobs.append({"model": path, "inputs": inputs, "graph": g})
    jobs_path, results_path = os.path.join(args.work, "jobs.json"), os.path.join(args.work, "results.json")
    with open(jobs_path, "w") as f:
        json.dump(jobs, f)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_batch_ort.js")
    run = subprocess.run([args.node, script, jobs_path, results_path, args.ort_dir], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"ONNX Runtime failed: {run.stderr.strip()}")
        return 1
    with open(results_path) as f:
        results = json.load(f)
    runs = 0
    for job, result in zip(jobs, results):
        if "outputs" in result:
            graphs[job["graph"]]["counts"].append(result["outputs"][graphs[job["graph"]]["idx"]]["dims"][0])
            runs += 1
    broken = 0
    for g in graphs:
        if g["bound"] is not None and g["counts"] and max(g["counts"]) > g["bound"]:
            broken += 1
            print(f"{g['name']}: bound {g['bound']} broken: ONNX Runtime produced counts {g['counts']} "
                  f"through {' -> '.join(g['ops'])}")
    bounded = [g for g in graphs if g["bound"] is not None]
    reached = sum(1 for g in bounded if g["counts"] and max(g["counts"]) == g["bound"])
    print(f"{len(graphs)} graphs, {len(bounded)} bounded ({reached} reaching their bound on some input), "
          f"{runs} runs by ONNX Runtime, {broken} bounds broken")
    # Graphs whose count went through a shape value (Shape ... ConstantOfShape, Expand, Range, Reshape).
    via_shape = [g for g in graphs if any(op.startswith("Shape (") for op in g["ops"])]
    via_shape_bounded = sum(1 for g in via_shape if g["bound"] is not None)
    print(f"  of which {len(via_shape)} through a shape value, {via_shape_bounded} of them bounded")
    if len(bounded) * 2 < len(graphs) or via_shape_bounded * 2 < len(via_shape):
        print("too few graphs got a bound for the test to mean anything")
        for g in graphs:
            if g["bound"] is None:
                print(f"  {g['name']}: {' -> '.join(g['ops'])}: {g['why']}")
        return 1
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
