"""Exports the PyTorch models of import_test's TorchExports tests, as a user would (torch.onnx.export, dynamic axes,
random weights), and writes for each, into OUT_DIR, what capture.py says (the export, its capture model, random
inputs at the sizes the test binds), and:
  <name>.eager.json    for index_put_accumulate: the model's output as eager PyTorch computes it (the same form)
  manifest.json        per model: the --dim values to bind; for index_put_accumulate, "accumulate": the ScatterND
                       nodes that index_put_(accumulate=True) became

Run with Debian's /usr/bin/python3 (python3-torch, python3-onnx):  export_models.py OUT_DIR
"""
import json
import os
import sys

import numpy as np
import torch
import torchvision
from torch import nn

import capture
from capture import hex_tensor

torch.manual_seed(2026)
RNG = np.random.default_rng(2026)
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
manifest = {}


class TokenEmbedding(nn.Module):
    """A decoder's input layer: token embedding plus learned positions taken by arange(seq)."""

    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(100, 16)
        self.positions = nn.Embedding(64, 16)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        return self.tokens(ids) + self.positions(positions)


class KvCacheUpdate(nn.Module):
    """A GPT-2-style decoder step writing this step's keys into the cache at a run-time position."""

    def forward(self, cache, new_kv, pos):
        cache = cache.clone()
        cache[:, :, pos] = new_kv
        return cache


class TopkGather(nn.Module):
    """Pick the k best-scoring rows of each batch entry: TopK, then torch.gather."""

    def forward(self, scores, features):
        _, idx = torch.topk(scores, 4, dim=1)
        idx = idx.unsqueeze(-1).expand(-1, -1, features.shape[2])
        return torch.gather(features, 1, idx)


class SegmentSum(nn.Module):
    """Segment statistics: scatter_add_ of values into their segments."""

    def forward(self, values, segments):
        out = torch.zeros(values.shape[0], 8, dtype=values.dtype)
        return out.scatter_add_(1, segments, values)


class AdvancedIndexing(nn.Module):
    """x[b_idx, idx]: rows picked by (batch, position) pairs."""

    def forward(self, x, b_idx, idx):
        return x[b_idx, idx]


class EmbeddingTables(nn.Module):
    """A DLRM-style sparse part: one embedding table per categorical feature, concatenated."""

    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList([nn.Embedding(n, 8) for n in (10, 20, 30)])

    def forward(self, categories):
        return torch.cat([t(categories[:, i]) for i, t in enumerate(self.tables)], dim=1)


class DetectionPostProcess(nn.Module):
    """SSD-style post-processing: each anchor's best class, the 16 best anchors (TopK), their boxes, labels and
    features (torch.gather), non-maximum suppression (torchvision.ops.nms), then the kept boxes, labels, scores and
    features (boxes[keep]) and the confident boxes (boxes[scores > t]): the number of rows is data, not shape."""

    def forward(self, boxes, logits, features):
        scores, labels = logits.softmax(-1).max(-1)
        top_scores, top = torch.topk(scores, 16)
        top_boxes = boxes[top]
        top_labels = labels[top]
        top_features = torch.gather(features, 0, top.unsqueeze(1).expand(-1, features.shape[1]))
        keep = torchvision.ops.nms(top_boxes, top_scores, 0.45)
        confident = top_boxes[top_scores > 0.8]
        return top_boxes[keep], top_labels[keep], top_scores[keep], top_features[keep], confident


class IndexPutAccumulate(nn.Module):
    """A histogram-style update, x[idx] += v with repeated indices: index_put_(accumulate=True), which torch 1.13
    exports as Add(x, ScatterND(ConstantOfShape(Shape(x)), idx, v)), a ScatterND without a reduction."""

    def forward(self, x, idx, v):
        x = x.clone()
        x.index_put_((idx,), v, accumulate=True)
        return x


class Int32Ids(nn.Module):
    """Token ids held as int32, as a tokenizer on a microcontroller gives them: widened for the lookup (a Cast), and
    rows picked by a flattened view of int32 picks (a Cast, then a Reshape)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)

    def forward(self, ids, x, pick):
        return self.emb(ids.long()), x[pick.long().view(-1)]


class IndexCopy(nn.Module):
    """A cache written at run-time positions: cache.index_copy(1, pos, x), a ScatterElements whose indices are the
    positions unsqueezed and expanded along the other axes."""

    def forward(self, cache, pos, x):
        return cache.index_copy(1, pos, x)


class Rotary(nn.Module):
    """Rotary position tables read at the positions after a cache's length: cos[torch.arange(4) + past_len], a
    Gather whose indices are an Add of a constant range and one run-time value; and per batch row,
    sin[arange(4)[None, :] + past_lens[:, None]], the offsets broadcast along the positions."""

    def __init__(self):
        super().__init__()
        self.register_buffer("cos", torch.randn(16, 8))
        self.register_buffer("sin", torch.randn(16, 8))

    def forward(self, past_len, past_lens):
        return self.cos[torch.arange(4) + past_len], self.sin[torch.arange(4)[None, :] + past_lens[:, None]]


class CacheSetitem(nn.Module):
    """A cache written at run-time positions by indexing: c[:, pos] = x, a ScatterND whose index tuples are a Concat of
    a constant 0 and the positions, its updates a Reshape of x; and c[:, pos] = row, one row written at every
    position (expanded along the positions, as PyTorch would otherwise export a Reshape of it ONNX Runtime refuses),
    its updates an Expand of the row."""

    def forward(self, c, pos, x, row):
        c1, c2 = c.clone(), c.clone()
        c1[:, pos] = x
        c2[:, pos] = row.expand(1, pos.shape[0], 4)
        return c1, c2


def export(name, model, args, input_names, dynamic_axes, dims, opset=16, output_names=("out",)):
    return capture.export(OUT, manifest, name, model, args, input_names, dynamic_axes, dims, opset, output_names)


batch, seq = 2, 5
export("token_embedding", TokenEmbedding(), (torch.randint(0, 100, (batch, seq)),), ["ids"],
       {"ids": {0: "batch", 1: "seq"}}, {"batch": batch, "seq": seq})
export("kv_cache_update", KvCacheUpdate(),
       (torch.randn(batch, 2, 8, 4), torch.randn(batch, 2, 4), torch.tensor(3)), ["cache", "new_kv", "pos"],
       {"cache": {0: "batch"}, "new_kv": {0: "batch"}}, {"batch": batch})
export("topk_gather", TopkGather(), (torch.randn(batch, 10), torch.randn(batch, 10, 6)), ["scores", "features"],
       {"scores": {0: "batch"}, "features": {0: "batch"}}, {"batch": batch})
export("segment_sum", SegmentSum(), (torch.randn(batch, 12), torch.randint(0, 8, (batch, 12))), ["values", "segments"],
       {"values": {0: "batch"}, "segments": {0: "batch"}}, {"batch": batch})
export("advanced_indexing", AdvancedIndexing(),
       (torch.randn(batch, 7, 3), torch.tensor([1, 0, 1]), torch.tensor([6, -2, 0])), ["x", "b_idx", "idx"],
       {"x": {0: "batch", 1: "seq"}, "b_idx": {0: "picks"}, "idx": {0: "picks"}}, {"batch": batch, "seq": 7, "picks": 3})
export("embedding_tables", EmbeddingTables(), (torch.stack([torch.randint(0, n, (batch,)) for n in (10, 20, 30)], 1),),
       ["categories"], {"categories": {0: "batch"}}, {"batch": batch})
anchors = 50
corners = torch.rand(anchors, 2) * 0.8
detection_boxes = torch.cat([corners, corners + 0.05 + torch.rand(anchors, 2) * 0.3], 1)
export("detection", DetectionPostProcess(), (detection_boxes, torch.randn(anchors, 5) * 2, torch.randn(anchors, 6)),
       ["boxes", "logits", "features"], {"boxes": {0: "anchors"}, "logits": {0: "anchors"}, "features": {0: "anchors"}},
       {"anchors": anchors}, output_names=("kept_boxes", "kept_labels", "kept_scores", "kept_features", "confident"))
export("int32_ids", Int32Ids(),
       (torch.randint(0, 50, (batch, seq), dtype=torch.int32), torch.randn(9, 4), torch.tensor([[3, -1, 8, 0]], dtype=torch.int32)),
       ["ids", "x", "pick"], {"ids": {0: "batch", 1: "seq"}, "x": {0: "rows"}, "pick": {1: "n"}},
       {"batch": batch, "seq": seq, "rows": 9, "n": 4}, output_names=("tokens", "picked"))
export("index_copy", IndexCopy(), (torch.randn(batch, 8, 4), torch.tensor([5, 2]), torch.randn(batch, 2, 4)),
       ["cache", "pos", "x"], {"cache": {0: "batch"}, "x": {0: "batch"}}, {"batch": batch})
export("rotary", Rotary(), (torch.tensor(3), torch.tensor([0, 12, -4])), ["past_len", "past_lens"], {}, {},
       output_names=("cos_at", "sin_at"))
export("cache_setitem", CacheSetitem(), (torch.randn(1, 8, 4), torch.tensor([5, -1]), torch.randn(1, 2, 4), torch.randn(4)),
       ["c", "pos", "x", "row"], {}, {}, output_names=("written", "row_written"))
# Values in quarters, small enough that every sum is exact in float32 whatever the order of the additions: eager
# PyTorch's x + v1 + v2 and the kernel's (0 + v1 + v2), added to x after it, give the same bits.
quarters = lambda *shape: torch.randint(-40, 41, shape).float() / 4
put_x, put_idx, put_v = quarters(8, 4), torch.tensor([1, 3, 1, 1, 7, 3, 0, 5, 1, 6, 3, 2, 7, 7, 4, 1]), quarters(16, 4)
put = export("index_put_accumulate", IndexPutAccumulate(), (put_x, put_idx, put_v), ["x", "idx", "v"],
             {"x": {0: "rows"}, "idx": {0: "n"}, "v": {0: "n"}}, {"rows": 8, "n": 16})
manifest["index_put_accumulate"]["accumulate"] = [n.name for n in put.graph.node if n.op_type == "ScatterND"]
with open(os.path.join(OUT, "index_put_accumulate.eager.json"), "w") as f:
    json.dump({"out": hex_tensor(IndexPutAccumulate()(put_x, put_idx, put_v).numpy())}, f)
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
print("exported", len(manifest), "models", file=sys.stderr)
