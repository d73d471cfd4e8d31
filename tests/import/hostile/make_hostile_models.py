"""Writes the crafted models of tests/import/hostile/ (run with Debian's python3-onnx; the .onnx files are checked in).

Each but the last once crashed or exhausted kernelgen import inside ONNX's shape inference, which ran in kernelgen's
own process:
  split_no_outputs             a Split node with no outputs beside a Gather: SIGFPE in ONNX's Split inference
  gather_nd_negative_dim       GatherND indices declared int64[1, -2]: an out-of-bounds read (SIGSEGV)
  constant_of_shape_huge_rank  ConstantOfShape fed by an input declared int64[2^40]: a shape of 2^40 dimensions
  range_rank_bomb              ConstantOfShape of a Range to 2^39, computed from initializers: SIGSEGV in ONNX
  reshape_huge_rank            a probe: Reshape whose shape input is declared int64[2^20] (a rank of 2^20 with
                               data propagation on)
"""
import sys

import onnx
from onnx import TensorProto as T
from onnx import helper as h


def save(name, nodes, inputs, outputs, inits=()):
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], producer_name="kernelgen hostile models")
    model.ir_version = 8
    onnx.save(model, name + ".onnx")


x = h.make_tensor_value_info("x", T.FLOAT, [4, 3])
i = h.make_tensor_value_info("i", T.INT64, [2])
y = h.make_tensor_value_info("y", T.FLOAT, [2, 3])
gather = h.make_node("Gather", ["x", "i"], ["y"], name="g")

save("split_no_outputs", [h.make_node("Split", ["x"], [], name="split", axis=0), gather], [x, i], [y])
save("gather_nd_negative_dim", [h.make_node("GatherND", ["x", "j"], ["z"], name="g")],
     [x, h.make_tensor_value_info("j", T.INT64, [1, -2])], [h.make_tensor_value_info("z", T.FLOAT, None)])
save("constant_of_shape_huge_rank", [h.make_node("ConstantOfShape", ["s"], ["c"], name="cos"), gather],
     [h.make_tensor_value_info("s", T.INT64, [2**40]), x, i], [y])
save("range_rank_bomb",
     [h.make_node("Range", ["start", "limit", "delta"], ["r"], name="range"),
      h.make_node("ConstantOfShape", ["r"], ["c"], name="cos"), gather],
     [x, i], [y],
     inits=[h.make_tensor("start", T.INT64, [], [0]), h.make_tensor("limit", T.INT64, [], [2**39]),
            h.make_tensor("delta", T.INT64, [], [1])])
save("reshape_huge_rank", [h.make_node("Reshape", ["x", "s"], ["r"], name="reshape"), gather],
     [x, i, h.make_tensor_value_info("s", T.INT64, [2**20])], [y])
print("wrote the hostile models", file=sys.stderr)
