"""Exports the fake-quantized embeddings of import_test's TorchFakeQuant tests as quantization-aware training leaves
them (torch.fake_quantize_per_tensor_affine / torch.fake_quantize_per_channel_affine on nn.Embedding's weight, which
torch.onnx.export writes as QuantizeLinear -> DequantizeLinear -> Gather, through a Clip for quant_max 127), with
dynamic batch and sequence axes and random weights, and writes for each, into OUT_DIR, what capture.py says, and
manifest.json (per model: the --dim values to bind, the quantized type its table must become, and the table's rows).

Run with Debian's /usr/bin/python3 (python3-torch, python3-onnx):  export_fake_quant.py OUT_DIR
"""
import json
import os
import sys

import torch
from torch import nn

import capture

torch.manual_seed(2026)
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
manifest = {}
ROWS, WIDTH = 50, 12


class PerTensor(nn.Module):
    """An embedding whose weight is fake-quantized with one scale and zero point."""

    def __init__(self, scale, zero_point, quant_min, quant_max, ties=False):
        super().__init__()
        self.emb = nn.Embedding(ROWS, WIDTH)
        if ties:
            # Weights in half steps of the scale (a power of 2): every quotient exact, half of them ties.
            with torch.no_grad():
                self.emb.weight.copy_(torch.round(self.emb.weight / (scale / 2)) * (scale / 2))
        self.quantization = (scale, zero_point, quant_min, quant_max)

    def forward(self, ids):
        return nn.functional.embedding(ids, torch.fake_quantize_per_tensor_affine(self.emb.weight, *self.quantization))


class PerChannel(nn.Module):
    """An embedding whose weight is fake-quantized with a scale and zero point per row (axis 0) or column (axis 1)."""

    def __init__(self, axis, quant_min, quant_max):
        super().__init__()
        self.emb = nn.Embedding(ROWS, WIDTH)
        channels = self.emb.weight.shape[axis]
        self.register_buffer("scale", torch.rand(channels) * 0.02 + 0.004)
        self.register_buffer("zero_point", torch.randint(quant_min // 4, quant_max // 4 + 1, (channels,), dtype=torch.int32))
        self.quantization = (axis, quant_min, quant_max)

    def forward(self, ids):
        weight = torch.fake_quantize_per_channel_affine(self.emb.weight, self.scale, self.zero_point, *self.quantization)
        return nn.functional.embedding(ids, weight)


batch, seq = 2, 7
ids = torch.randint(0, ROWS, (batch, seq))
ids[0, 0], ids[1, 6] = 0, ROWS - 1
models = {
    # Weights of N(0, 1) with scales near 0.02: a fifth of them beyond int8's range, at either end.
    "per_tensor_int8": (PerTensor(0.02, -3, -128, 127), "int8"),
    "per_tensor_int8_ties": (PerTensor(2.0 ** -6, 5, -128, 127, ties=True), "int8"),
    "per_tensor_uint8": (PerTensor(0.015, 130, 0, 255), "uint8"),
    "per_tensor_uint7": (PerTensor(0.01, 60, 0, 127), "uint8"),  # through a Clip to 0..127
    "per_row_int8": (PerChannel(0, -128, 127), "int8"),
    "per_column_uint8": (PerChannel(1, 0, 255), "uint8"),
}
for name, (model, quantized) in models.items():
    capture.export(OUT, manifest, name, model, (ids,), ["ids"], {"ids": {0: "batch", 1: "seq"}},
                   {"batch": batch, "seq": seq}, opset=13)
    manifest[name].update({"quantized": quantized, "rows": ROWS})
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
print("exported", len(manifest), "models", file=sys.stderr)
