#!/usr/bin/python3
"""Exports the model of docs/import.md's fake-quantized tables (Debian's python3-torch and python3-onnx).

Usage: fake_quant_example.py MODEL.onnx

A token embedding of 1000 x 32 as quantization-aware training leaves it: a float weight and, per row, the int8 scale
and zero point it was trained for (torch.fake_quantize_per_channel_affine along axis 0, as PyTorch's embedding
qconfig quantizes it), exported with a dynamic batch and sequence. Random weights from a fixed seed.
"""

import sys

import torch
from torch import nn


class FakeQuantizedEmbedding(nn.Module):
    def __init__(self, tokens=1000, width=32):
        super().__init__()
        self.tokens = nn.Embedding(tokens, width)
        with torch.no_grad():
            rows = self.tokens.weight.abs().amax(dim=1)
        self.register_buffer("scale", rows / 127)
        self.register_buffer("zero_point", torch.zeros(tokens, dtype=torch.int32))

    def forward(self, ids):
        weight = torch.fake_quantize_per_channel_affine(self.tokens.weight, self.scale, self.zero_point, 0, -128, 127)
        return nn.functional.embedding(ids, weight)


torch.manual_seed(56)
torch.onnx.export(FakeQuantizedEmbedding(), (torch.tensor([[7, 0, 999]]),), sys.argv[1], opset_version=13,
                  input_names=["ids"], output_names=["vectors"], dynamic_axes={"ids": {0: "batch", 1: "seq"}})
