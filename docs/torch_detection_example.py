#!/usr/bin/python3
"""Exports the detection post-process of docs/import.md's run-time count example (Debian's python3-torch and
python3-torchvision).

Usage: torch_detection_example.py MODEL.onnx

Non-maximum suppression over n candidate boxes (torchvision.ops.nms), then the kept boxes and scores
(boxes[keep]) and the confident boxes (boxes[scores > 0.9]): how many rows each has is known only at run time.
"""
import sys

import torch
import torchvision
from torch import nn


class PostProcess(nn.Module):
    def forward(self, boxes, scores):
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        return boxes[keep], scores[keep], boxes[scores > 0.9]


corners = torch.rand(100, 2)
torch.onnx.export(PostProcess(), (torch.cat([corners, corners + 0.1], 1), torch.rand(100)), sys.argv[1],
                  input_names=["boxes", "scores"], output_names=["kept_boxes", "kept_scores", "confident"],
                  dynamic_axes={"boxes": {0: "n"}, "scores": {0: "n"}}, opset_version=17)
