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


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="kernelgen hostile models")
    model.ir_version = 8 if opset <= 17 else 10
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

# Round two (each once crashed, exhausted or misled kernelgen import):
#   nested_constant_of_shape  ConstantOfShape of 60,000 ones: a value of rank 60,000 and one element, whose report
#                             nested once per dimension (SIGSEGV)
#   many_rank_bombs           100 values of rank 2^20 from one ConstantOfShape each: 5 GB, then std::bad_alloc
#   wasted_folds              a chain that takes one round of inference per link, beside 100 nodes whose values
#                             pass the folding budget: each was recomputed in every round (minutes)
#   broadcast_counts          Add(NonZero(x[4]), NonZero(y[100])): the count broadcast from 1 to 100 got bound 4
#   position_table            a 1024 x 16 table gathered by arange(seq): a report of megabytes, refused by kernelgen
#   control_characters        node names with a newline and a terminal escape sequence
#   negative_dim_initializer  an initializer declared [-1, 3]
#   nonzero_of_scalar         NonZero of a rank-0 input (ONNX Runtime: [1, n]; ONNX's inference: [0, n])
ones = h.make_tensor("one", T.INT64, [1], [1])
save("nested_constant_of_shape",
     [h.make_node("ConstantOfShape", ["n"], ["ones"], value=ones),
      h.make_node("ConstantOfShape", ["ones"], ["big"], value=h.make_tensor("v", T.INT64, [1], [7])),
      h.make_node("Gather", ["big", "i"], ["y"], name="g")],
     [], [h.make_tensor_value_info("y", T.INT64, None)],
     inits=[h.make_tensor("n", T.INT64, [1], [60000]), h.make_tensor("i", T.INT64, [1], [0])])

bombs = [h.make_node("ConstantOfShape", ["n"], ["ones"], value=ones)]
for k in range(100):
    bombs += [h.make_node("ConstantOfShape", ["ones"], [f"big{k}"], value=h.make_tensor("v", T.INT64, [1], [k])),
              h.make_node("Gather", [f"big{k}", "i"], [f"y{k}"], name=f"g{k}")]
save("many_rank_bombs", bombs, [], [h.make_tensor_value_info(f"y{k}", T.INT64, None) for k in range(100)],
     inits=[h.make_tensor("n", T.INT64, [1], [2**20]), h.make_tensor("i", T.INT64, [1], [0])])

# The chain: t_k = Reshape(x, ReduceMax(Shape(t_{k-1}), keepdims)) - ONNX's data propagation stops at ReduceMax,
# so each link needs the previous round's folding. The waste: values of 2^20 elements, once the fillers have taken
# all but 1000 elements of the folding budget (2^24 elements).
waste, links = [], 24
waste.append(h.make_node("Identity", ["x"], ["t0"]))
for k in range(1, links + 1):
    waste += [h.make_node("Shape", [f"t{k - 1}"], [f"s{k}"]),
              h.make_node("ReduceMax", [f"s{k}"], [f"m{k}"], keepdims=1),
              h.make_node("Reshape", ["x", f"m{k}"], [f"t{k}"])]
for k in range(15):
    waste.append(h.make_node("ConstantOfShape", ["million"], [f"fill{k}"]))
waste.append(h.make_node("ConstantOfShape", ["almost_million"], ["fill15"]))
for k in range(100):
    waste.append(h.make_node("Range", ["zero", "million_scalar", f"step{k % 2}"], [f"waste{k}"]))
waste.append(h.make_node("Gather", [f"t{links}", "i"], ["y"], name="g"))
save("wasted_folds", waste, [h.make_tensor_value_info("x", T.FLOAT, [6])], [h.make_tensor_value_info("y", T.FLOAT, None)],
     inits=[h.make_tensor("million", T.INT64, [1], [2**20]), h.make_tensor("almost_million", T.INT64, [1], [2**20 - 1000]),
            h.make_tensor("million_scalar", T.INT64, [], [2**20]),
            h.make_tensor("zero", T.INT64, [], [0]), h.make_tensor("step0", T.INT64, [], [1]),
            h.make_tensor("step1", T.INT64, [], [1]), h.make_tensor("i", T.INT64, [2], [0, 5])])

save("broadcast_counts",
     [h.make_node("NonZero", ["x"], ["nx"]), h.make_node("NonZero", ["y"], ["ny"]),
      h.make_node("Add", ["nx", "ny"], ["sum"]),
      h.make_node("Squeeze", ["sum", "axis0"], ["picks"]),
      h.make_node("Gather", ["table", "picks"], ["z"], name="g")],
     [h.make_tensor_value_info("x", T.FLOAT, [4]), h.make_tensor_value_info("y", T.FLOAT, [100]),
      h.make_tensor_value_info("table", T.FLOAT, [200, 3])],
     [h.make_tensor_value_info("z", T.FLOAT, None)], inits=[h.make_tensor("axis0", T.INT64, [1], [0])])

# GPT's positions: a table gathered by arange(seq) (the table is computed here, not stored: the file stays small).
save("position_table",
     [h.make_node("Range", ["zero", "cells", "one_step"], ["flat"]),
      h.make_node("Cast", ["flat"], ["flat_float"], to=T.FLOAT),
      h.make_node("Reshape", ["flat_float", "table_shape"], ["table"]),
      h.make_node("Shape", ["tokens"], ["tokens_shape"]),
      h.make_node("Gather", ["tokens_shape", "one"], ["seq"], axis=0),
      h.make_node("Range", ["zero", "seq", "one_step"], ["positions"]),
      h.make_node("Gather", ["table", "positions"], ["position_rows"], name="positions"),
      h.make_node("Gather", ["embedding", "tokens"], ["token_rows"], name="tokens")],
     [h.make_tensor_value_info("tokens", T.INT64, [1, "seq"]), h.make_tensor_value_info("embedding", T.FLOAT, [50, 16])],
     [h.make_tensor_value_info("position_rows", T.FLOAT, None), h.make_tensor_value_info("token_rows", T.FLOAT, None)],
     inits=[h.make_tensor("zero", T.INT64, [], [0]), h.make_tensor("cells", T.INT64, [], [1024 * 16]),
            h.make_tensor("one_step", T.INT64, [], [1]), h.make_tensor("one", T.INT64, [], [1]),
            h.make_tensor("table_shape", T.INT64, [2], [1024, 16])])

save("control_characters",
     [h.make_node("Gather", ["x", "i"], ["y"], name="evil\nname \x1b[31mred\x1b[0m"),
      h.make_node("Gather", ["x", "j"], ["z"], name="fine")],
     [h.make_tensor_value_info("x", T.FLOAT, ["rows\x1b[2J", 3]), h.make_tensor_value_info("i", T.INT64, [2]),
      h.make_tensor_value_info("j", T.INT64, [2])],
     [h.make_tensor_value_info("y", T.FLOAT, None), h.make_tensor_value_info("z", T.FLOAT, None)])

negative = onnx.TensorProto()
negative.name, negative.data_type = "w", T.FLOAT
negative.dims.extend([-1, 3])
negative.raw_data = bytes(12)
save("negative_dim_initializer", [h.make_node("Gather", ["w", "i"], ["y"], name="g")],
     [h.make_tensor_value_info("i", T.INT64, [2])], [h.make_tensor_value_info("y", T.FLOAT, None)], inits=[negative])

save("nonzero_of_scalar",
     [h.make_node("NonZero", ["x"], ["nz"]), h.make_node("Transpose", ["nz"], ["rows"], perm=[1, 0]),
      h.make_node("Gather", ["table", "rows"], ["y"], name="g")],
     [h.make_tensor_value_info("x", T.FLOAT, []), h.make_tensor_value_info("table", T.FLOAT, [4, 2])],
     [h.make_tensor_value_info("y", T.FLOAT, None)])
print("wrote the round-two models", file=sys.stderr)

# Round three, TensorScatter (opset 24), whose import builds constant zeros for a left-out write_indices:
#   tensor_scatter_nodes  malformed and oversized TensorScatter nodes beside valid ones: a batch of 2^40 rows
#                         without write_indices (2^40 zeros: std::bad_alloc), a required input left out, a huge or
#                         fractional axis, a negative dimension, rank-0 tensors, write indices of rank 3, "mode"
#                         twice, a node with no output, and a Gather on the output of a valid one
cache = [h.make_tensor_value_info("past", T.FLOAT, [2, 4, 8, 16]), h.make_tensor_value_info("upd", T.FLOAT, [2, 4, 1, 16]),
         h.make_tensor_value_info("wi", T.INT64, [2])]
twice = h.make_node("TensorScatter", ["past", "upd", "wi"], ["twice"], name="mode_twice", mode="linear")
twice.attribute.append(h.make_attribute("mode", "circular"))
save("tensor_scatter_nodes",
     [h.make_node("TensorScatter", ["big", "big"], ["huge"], name="huge_batch"),
      h.make_node("TensorScatter", ["", "upd", "wi"], ["empty"], name="no_past_cache"),
      h.make_node("TensorScatter", ["past", "upd", "wi"], ["far"], name="huge_axis", axis=2**62),
      h.make_node("TensorScatter", ["past", "upd", "wi"], ["half"], name="fractional_axis", axis=1.5),
      h.make_node("TensorScatter", ["negative", "upd", "wi"], ["neg"], name="negative_dim"),
      h.make_node("TensorScatter", ["scalar", "scalar"], ["flat"], name="scalars"),
      h.make_node("TensorScatter", ["past", "upd", "wi3"], ["deep"], name="rank3_write_indices"),
      twice,
      h.make_node("TensorScatter", ["past", "upd", "wi"], [], name="no_output"),
      h.make_node("TensorScatter", ["past", "upd", "wi"], ["present"], name="kv"),
      h.make_node("Gather", ["present", "wi"], ["y"], name="g", axis=0)],
     cache + [h.make_tensor_value_info("big", T.FLOAT, [2**40, 2**40]),
              h.make_tensor_value_info("negative", T.FLOAT, [2, -3, 8]), h.make_tensor_value_info("scalar", T.FLOAT, []),
              h.make_tensor_value_info("wi3", T.INT64, [2, 1, 1])],
     [h.make_tensor_value_info("y", T.FLOAT, None)], opset=24)
print("wrote the round-three models", file=sys.stderr)

# Round three, lengths the model declares (found by tests/fuzz/graph_fuzzer.cpp's kind of graph):
#   slice_huge_starts  a Slice by run-time starts and ends declared int64[2^40]: the axes it slices were listed one
#                      by one, 2^40 of them (16 GB and two minutes before "ran out of memory", under a 4 GiB
#                      --memory-limit)
save("slice_huge_starts",
     [h.make_node("Slice", ["x", "starts", "ends"], ["sliced"], name="slice"), gather],
     [x, i, h.make_tensor_value_info("starts", T.INT64, [2**40]), h.make_tensor_value_info("ends", T.INT64, [2**40])],
     [y, h.make_tensor_value_info("sliced", T.FLOAT, None)])
print("wrote the round-three length models", file=sys.stderr)
