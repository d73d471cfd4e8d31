#!/usr/bin/python3
"""Writes the model of docs/import.md's quantized tables (Debian's python3-onnx and python3-numpy).

Usage: quantized_example.py MODEL.onnx

Two embedding lookups of 1000 tokens, as deployed models store them:
  - words: ONNX Runtime's com.microsoft.GatherBlockQuantized, 64 values a row, 4 bits each (two a byte), in blocks
    of 32 with a float16 scale and a 4-bit zero point each;
  - tags: ONNX's DequantizeLinear (opset 21, blocked) of an int8 table of 1000 x 16, in blocks of 8 with float32
    scales, then Gather.
Random values from a fixed seed. ONNX 1.12 writes the opset numbers it does not know yet.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

rng = np.random.default_rng(34)
tokens, width, block = 1000, 64, 32
words = rng.integers(0, 16, size=(tokens, width), dtype=np.uint8)
packed = (words[:, 0::2] | (words[:, 1::2] << 4)).astype(np.uint8)  # element 2k in the low nibble of byte k
word_scales = (rng.uniform(0.01, 0.1, size=(tokens, width // block))).astype(np.float16)
word_zeros = rng.integers(0, 16, size=(tokens, width // block), dtype=np.uint8)
packed_zeros = (word_zeros[:, 0::2] | (word_zeros[:, 1::2] << 4)).astype(np.uint8)
tags = rng.integers(-128, 128, size=(tokens, 16), dtype=np.int8)
tag_scales = rng.uniform(0.001, 0.01, size=(tokens, 2)).astype(np.float32)

nodes = [
    helper.make_node("GatherBlockQuantized", ["words", "ids", "word_scales", "word_zeros"], ["word_vectors"],
                     name="words", domain="com.microsoft", bits=4, block_size=block),
    helper.make_node("DequantizeLinear", ["tags", "tag_scales"], ["tag_table"], name="tags_dq", axis=1, block_size=8),
    helper.make_node("Gather", ["tag_table", "ids"], ["tag_vectors"], name="tags"),
]
graph = helper.make_graph(
    nodes, "quantized_lookups",
    [helper.make_tensor_value_info("ids", T.INT64, [8])],
    [helper.make_tensor_value_info("word_vectors", T.FLOAT16, [8, width]),
     helper.make_tensor_value_info("tag_vectors", T.FLOAT, [8, 16])],
    [numpy_helper.from_array(packed, "words"), numpy_helper.from_array(word_scales, "word_scales"),
     numpy_helper.from_array(packed_zeros, "word_zeros"), numpy_helper.from_array(tags, "tags"),
     numpy_helper.from_array(tag_scales, "tag_scales")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
