#!/usr/bin/python3
"""Exports the PyTorch model of the README's `kernelgen import` example (Debian's python3-torch, random weights).

Usage: torch_export_example.py MODEL.onnx

A decoder step of a small GPT-2-style model, as torch.onnx.export writes it with dynamic batch and sequence
axes: token and learned position embeddings (the positions are arange(seq)), and this step's keys written into
a key cache at a run-time position.
"""
import sys

import torch
from torch import nn


class DecoderStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(1000, 32)
        self.positions = nn.Embedding(64, 32)
        self.keys = nn.Linear(32, 32)

    def forward(self, ids, cache, pos):
        x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))
        cache = cache.clone()
        cache[:, pos] = self.keys(x[:, -1])
        return x, cache


torch.manual_seed(0)
torch.onnx.export(DecoderStep(), (torch.zeros(1, 8, dtype=torch.long), torch.zeros(1, 64, 32), torch.tensor(7)),
                  sys.argv[1], input_names=["ids", "cache", "pos"], output_names=["hidden", "cache_out"],
                  dynamic_axes={"ids": {0: "batch", 1: "seq"}, "cache": {0: "batch"}}, opset_version=17)
