#!/usr/bin/python3
"""Writes one single-node ONNX model per case dumped by random_kernels_test (KERNELGEN_DUMP_CASES).

Usage: make_models.py CASES_DIR MODELS_DIR

For every <Op>.json in CASES_DIR (Gather, GatherElements, GatherND, ScatterND, ScatterElements, TensorScatter) and
every case in it, this writes MODELS_DIR/<Op>/<spec name>.onnx: a graph with one node of that operator, opset 18
(the first opset with ScatterND's max/min reductions; 24 for TensorScatter), whose inputs data, indices (and
updates) are declared with the case's exact shapes and element types and whose attributes are the spec's axis,
batch_dims, reduction or mode. TensorScatter's node takes them as past_cache, update, write_indices (ONNX's order).

ONNX allows only int64 indices for GatherND, ScatterND and TensorScatter, while kernelgen also accepts int32. For those
cases a second model, <spec name>.int64-indices.onnx, declares the indices as int64 so that run_ort.js can
still compare the values computed (it widens the index values, which does not change them) when ONNX
Runtime refuses the exact model.

bfloat16: onnxruntime-node cannot pass bfloat16 tensors (its binding refuses any model with a bfloat16 input
or output: "Unsupported data type: 16"). A bfloat16 case's model therefore has float32 inputs and output,
Cast to bfloat16 before the node and back to float32 after it; the node itself runs on bfloat16 as the
case says. Both casts are exact for every bfloat16 value (a bfloat16 is the high half of a float32), except
that a NaN may come back as another NaN. Every other element type, float16, complex64, complex128 and string
included, is declared as it is.

MODELS_DIR/<Op>/manifest.json lists, case by case in the order of <Op>.json, the model files, the element
type of the graph's inputs and output ("io_dtype": float32 for bfloat16, else the case's own type) and the
output shape that ONNX's shape rules give, which run_ort.js checks ORT's output against.

A case whose kernel has a run-time count ("count": "runtime") is the ONNX problem with `count` rows: its
indices (and updates) cut to their first `count` rows, indices_shape[0] set to `count`, and a gather's expected
output cut to the rows the count gives (the kernel leaves the rest untouched; the host test checks that). A
Gather that counts data's rows ("count_leads": "data") has data_shape[0] set to `count` instead (its case holds
those rows of data only) and every index. A case whose count is above the bound has no ONNX counterpart (the
kernel refuses it before reading anything): it is left out and counted. The cases as ONNX sees them are written to MODELS_DIR/<Op>.json, which run_ort.js reads.

Runs with Debian's python3-onnx (1.12), which knows opsets only up to 17: the models are therefore not
passed through onnx.checker, and the IR version is set by hand (8; 10 for TensorScatter's opset 24).
"""

import json
import math
import os
import sys

import onnx
from onnx import TensorProto, helper

OPS = ("Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements", "TensorScatter")
OPSET = 18
IR_VERSION = 8
# TensorScatter is opset 24's.
OPSETS = {"TensorScatter": (24, 10)}

# The spec's dtype names (kernelgen accepts ONNX's "float" as well as "float32") -> ONNX element types.
ELEMENT_TYPES = {
    "float32": TensorProto.FLOAT,
    "float": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
    "int8": TensorProto.INT8,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "uint8": TensorProto.UINT8,
    "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
    "bool": TensorProto.BOOL,
    "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16,
    "complex64": TensorProto.COMPLEX64,
    "complex128": TensorProto.COMPLEX128,
    "string": TensorProto.STRING,
}
# Element types that the graph's inputs and output carry as another type, with a Cast on each side of the
# node (see above): element type -> the type on the graph's interface, as its name in the manifest.
CARRIED_AS = {"bfloat16": ("float32", TensorProto.FLOAT)}
INDEX_TYPES = {"int32": TensorProto.INT32, "int64": TensorProto.INT64}

# Operators whose ONNX schema takes only int64 indices.
INT64_ONLY_INDICES = ("GatherND", "ScatterND", "TensorScatter")


def normalized_axis(spec):
    rank = len(spec["data_shape"])
    axis = spec.get("axis", 0)
    return axis + rank if axis < 0 else axis


def updates_shape(spec):
    """ScatterND: indices.shape[:-1] ++ data.shape[k:], k = indices.shape[-1] (the spec's own value if given;
    a TensorScatter spec always gives it)."""
    if "updates_shape" in spec:
        return list(spec["updates_shape"])
    if spec["op"] == "ScatterElements":  # the shape of indices
        return list(spec["indices_shape"])
    data, indices = spec["data_shape"], spec["indices_shape"]
    return list(indices[:-1]) + list(data[indices[-1]:])


def output_shape(spec):
    """The output shape by ONNX's rules for each operator, written out from the operator docs."""
    op, data, indices = spec["op"], spec["data_shape"], spec["indices_shape"]
    if op == "Gather":  # data[:axis] ++ indices ++ data[axis+1:]
        a = normalized_axis(spec)
        return list(data[:a]) + list(indices) + list(data[a + 1:])
    if op == "GatherElements":  # the shape of indices
        return list(indices)
    if op == "GatherND":  # indices[:-1] ++ data[batch_dims + k:]
        b = spec.get("batch_dims", 0)
        return list(indices[:-1]) + list(data[b + indices[-1]:])
    return list(data)  # ScatterND, ScatterElements, TensorScatter


def at_data_rows(case):
    """With a run-time data count ("data_count"): the ONNX problem of data's first `data_count` rows (the case
    already holds only those, as the kernel was given them), a scatter's expected output cut to as many rows; None
    when the data count is above its bound."""
    if "data_count" not in case:
        return case
    spec = dict(case["spec"])
    if case["data_count"] > spec["data_shape"][0]:
        return None
    del spec["data_count"]
    spec["data_shape"] = [case["data_count"]] + list(spec["data_shape"][1:])
    out = dict(case, spec=spec)
    del out["data_count"]
    if spec["op"] in ("ScatterND", "ScatterElements", "TensorScatter"):  # output is data_count rows too (the rest left untouched)
        row = math.prod(spec["data_shape"][1:])
        if "expected_strings" in out:
            out["expected_strings"] = out["expected_strings"][:row * case["data_count"]]
        out["expected_output"] = out["expected_output"][:2 * row * case["data_count"] * case["element_size"]]
    return out


def at_count(case):
    """The case as ONNX sees it: with a run-time count, the problem of its first `count` rows; None when the
    count (or a data count) is above its bound (no ONNX counterpart)."""
    case = at_data_rows(case)
    if case is None or "count" not in case:
        return case
    spec = dict(case["spec"])
    if spec.get("count_leads") == "data":
        return at_data_count(case)
    bound, count = spec["indices_shape"][0], case["count"]
    if count > bound:
        return None
    del spec["count"]
    index_bytes = 4 if spec.get("index_dtype") == "int32" else 8
    keep = {}
    keep["indices"] = math.prod(spec["indices_shape"]) // bound * count * index_bytes
    if spec["op"] in ("ScatterND", "ScatterElements"):
        keep["updates"] = math.prod(updates_shape(spec)) // bound * count
    else:  # a gather's output rows follow the count
        keep["expected_output"] = math.prod(output_shape(spec)) // bound * count
    out = dict(case, spec=spec)
    del out["count"]
    spec["indices_shape"] = [count] + list(spec["indices_shape"][1:])
    if "updates_shape" in spec:
        spec["updates_shape"] = [count] + list(spec["updates_shape"][1:])
    out["indices"] = case["indices"][:2 * keep["indices"]]
    for name in ("updates", "expected_output"):
        if name in keep:
            if "data_strings" in case:  # strings travel as JSON arrays
                strings = {"updates": "updates_strings", "expected_output": "expected_strings"}[name]
                out[strings] = case[strings][:keep[name]]
            out[name] = case[name][:2 * keep[name] * case["element_size"]]
    return out


def at_data_count(case):
    """A Gather whose run-time count is one of data's rows ("count_leads": "data"): the ONNX problem of data's
    first `count` rows (the case already holds only those, as the kernel was given them) and every index, its
    expected output cut to the first `count` rows of the output; None when the count is above the bound."""
    spec = dict(case["spec"])
    bound, count = spec["data_shape"][0], case["count"]
    if count > bound:
        return None
    del spec["count"], spec["count_leads"]
    spec["data_shape"] = [count] + list(spec["data_shape"][1:])
    out = dict(case, spec=spec)
    del out["count"]
    for name in ("expected_output", "expected_strings"):  # the output's rows, each as long as the others
        if name in case:
            out[name] = case[name][:len(case[name]) // bound * count]
    return out


def make_model(spec, index_type):
    """One node of spec["op"] reading graph inputs data, indices (, updates) and writing output; for an
    element type in CARRIED_AS, data, updates and output are of the carrying type, cast around the node."""
    op = spec["op"]
    elem = ELEMENT_TYPES[spec["dtype"]]
    io_elem = CARRIED_AS[spec["dtype"]][1] if spec["dtype"] in CARRIED_AS else elem
    inputs = [
        helper.make_tensor_value_info("data", io_elem, spec["data_shape"]),
        helper.make_tensor_value_info("indices", index_type, spec["indices_shape"]),
    ]
    attributes = {}
    if op in ("Gather", "GatherElements", "ScatterElements"):
        attributes["axis"] = spec.get("axis", 0)
    if op == "TensorScatter":
        attributes["axis"] = spec.get("axis", -2)
        attributes["mode"] = spec.get("mode", "linear")
        inputs.append(helper.make_tensor_value_info("updates", io_elem, updates_shape(spec)))
    if op == "GatherND":
        attributes["batch_dims"] = spec.get("batch_dims", 0)
    elif op in ("ScatterND", "ScatterElements"):
        inputs.append(helper.make_tensor_value_info("updates", io_elem, updates_shape(spec)))
        attributes["reduction"] = spec.get("reduction", "none")
    output = helper.make_tensor_value_info("output", io_elem, output_shape(spec))

    nodes = []
    node_inputs = [i.name for i in inputs]
    if op == "TensorScatter":  # past_cache, update, write_indices
        node_inputs = ["data", "updates", "indices"]
    node_output = "output"
    if io_elem != elem:
        # data and updates cast to the case's type before the node, its result cast back after it.
        for n, name in enumerate(node_inputs):
            if name != "indices":
                node_inputs[n] = f"{name}_{spec['dtype']}"
                nodes.append(helper.make_node("Cast", [name], [node_inputs[n]], name=f"cast_{name}", to=elem))
        node_output = f"output_{spec['dtype']}"
    nodes.append(helper.make_node(op, node_inputs, [node_output], name=spec["name"], **attributes))
    if io_elem != elem:
        nodes.append(helper.make_node("Cast", [node_output], ["output"], name="cast_output", to=io_elem))

    graph = helper.make_graph(nodes, spec["name"], inputs, [output])
    opset, ir_version = OPSETS.get(op, (OPSET, IR_VERSION))
    model = helper.make_model(graph, producer_name="kernelgen-ort-crosscheck",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version  # no onnx.checker: onnx 1.12 does not know opset 18
    return model


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: make_models.py CASES_DIR MODELS_DIR")
    cases_dir, models_dir = argv[1], argv[2]
    found = 0
    for op in OPS:
        path = os.path.join(cases_dir, op + ".json")
        if not os.path.exists(path):
            continue
        found += 1
        with open(path) as f:
            dumped = json.load(f)
        cases = [c for c in map(at_count, dumped) if c is not None]
        os.makedirs(models_dir, exist_ok=True)
        with open(os.path.join(models_dir, op + ".json"), "w") as f:
            json.dump(cases, f)
        above_bound = len(dumped) - len(cases)
        op_dir = os.path.join(models_dir, op)
        os.makedirs(op_dir, exist_ok=True)
        manifest = []
        for case in cases:
            spec = case["spec"]
            assert spec["op"] == op, f"{path}: a {spec['op']} case in the {op} file"
            index_dtype = spec.get("index_dtype", "int64")
            io_dtype = CARRIED_AS[spec["dtype"]][0] if spec["dtype"] in CARRIED_AS else spec["dtype"]
            entry = {"name": spec["name"], "model": spec["name"] + ".onnx", "widened_model": None,
                     "io_dtype": io_dtype, "output_shape": output_shape(spec)}
            onnx.save(make_model(spec, INDEX_TYPES[index_dtype]), os.path.join(op_dir, entry["model"]))
            if op in INT64_ONLY_INDICES and index_dtype != "int64":
                entry["widened_model"] = spec["name"] + ".int64-indices.onnx"
                onnx.save(make_model(spec, TensorProto.INT64), os.path.join(op_dir, entry["widened_model"]))
            manifest.append(entry)
        with open(os.path.join(op_dir, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        counted = sum("count" in c for c in dumped)
        data_rows = sum(c["spec"].get("count_leads") == "data" for c in dumped)
        data_counts = sum("data_count" in c for c in dumped)
        print(f"make_models: {len(manifest)} {op} models in {op_dir} ({counted} cases with a run-time count, "
              f"{data_rows} of them of data rows; {data_counts} with a run-time data count; {above_bound} above a "
              f"bound are left out)")
    if found == 0:
        sys.exit(f"make_models: no <Op>.json case files in {cases_dir}")


if __name__ == "__main__":
    main(sys.argv)
