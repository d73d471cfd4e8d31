#!/usr/bin/python3
"""Writes the small ONNX model of the README's worked example of `kernelgen import` (Debian's python3-onnx).

Usage: import_example.py MODEL.onnx

A decoder step, opset 18: token embedding (Gather of a weight table by runtime token ids), learned positions
(Gather by a constant initializer), a key-cache update (ScatterND into a cache whose batch size is dynamic),
the running maximum of class scores (ScatterElements, reduction "max", new in opset 18), and a Softmax,
which is not an indexing operator.
"""

import sys

import onnx
from onnx import TensorProto as T
from onnx import helper

vocabulary, width, steps = 100, 8, 4
nodes = [
    helper.make_node("Gather", ["embedding_table", "tokens"], ["embedded"], name="embed/Gather", axis=0),
    helper.make_node("Gather", ["position_table", "positions"], ["position_rows"], name="positions/Gather"),
    helper.make_node("ScatterND", ["cache", "slot", "key"], ["cache_out"], name="cache/ScatterND"),
    helper.make_node("ScatterElements", ["scores", "classes", "logits"], ["best"], axis=1, reduction="max"),
    helper.make_node("Softmax", ["best"], ["probabilities"]),
]
inputs = [
    helper.make_tensor_value_info("tokens", T.INT64, [1, steps]),
    helper.make_tensor_value_info("cache", T.FLOAT, ["batch", 16, width]),
    helper.make_tensor_value_info("slot", T.INT64, [1, 1]),
    helper.make_tensor_value_info("key", T.FLOAT, [1, width]),
    helper.make_tensor_value_info("scores", T.FLOAT, [1, 10]),
    helper.make_tensor_value_info("classes", T.INT32, [1, steps]),
    helper.make_tensor_value_info("logits", T.FLOAT, [1, steps]),
]
outputs = [
    helper.make_tensor_value_info(name, T.FLOAT, None)
    for name in ("embedded", "position_rows", "cache_out", "probabilities")
]
initializers = [
    helper.make_tensor("embedding_table", T.FLOAT, [vocabulary, width], [0.01 * i for i in range(vocabulary * width)]),
    helper.make_tensor("position_table", T.FLOAT, [16, width], [0.5] * (16 * width)),
    helper.make_tensor("positions", T.INT64, [steps], list(range(steps))),
]
graph = helper.make_graph(nodes, "decoder_step", inputs, outputs, initializer=initializers)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="kernelgen example")
model.ir_version = 8  # python3-onnx 1.12 knows opsets up to 17: set by hand, and not passed through the checker
onnx.save(model, sys.argv[1])
