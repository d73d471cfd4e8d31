"""Exports the models of import_test's TorchDetectors tests as a user would (torch.onnx.export with dynamic axes,
random weights, no download), with what capture.py writes beside each, and manifest.json (the --dim values):

  ssdlite      torchvision's ssdlite320_mobilenet_v3_large: input "image" [3, height, width] float32, outputs the
               boxes, scores and labels of a data-dependent number of detections
  fasterrcnn   torchvision's fasterrcnn_mobilenet_v3_large_320_fpn, likewise (min_size = max_size = 320)
  dlrm         a DLRM-style recommendation model: a dense MLP, three nn.EmbeddingBag(mode="sum") tables, each
               fed a 1-D indices_t [nnz_t] with offsets_t [batch] (a Loop per bag in ONNX), their pairwise
               interaction and a top MLP

The detectors with score thresholds low enough that random weights leave detections, and one random 3x320x320
image; the DLRM with 4 samples of 1 to 4 indices each per table.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx):
  export_detectors.py OUT_DIR [NAME...]     (ssdlite, fasterrcnn and dlrm by default; also retinanet, fcos,
                                             ssd300, maskrcnn and keypointrcnn, not in the test)
"""
import json
import os
import sys
import warnings

import torch
import torchvision
from torch import nn

import capture

warnings.filterwarnings("ignore")  # the exporter's and torchvision's tracing warnings
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
torch.set_num_threads(1)
manifest = {}


class Detector(nn.Module):
    """One 3xHxW image (the ONNX input) in, the first image's boxes, scores and labels out."""

    def __init__(self, model):
        super().__init__()
        self.model = model.eval()

    def forward(self, image):
        out = self.model([image])[0]
        return out["boxes"], out["scores"], out["labels"]


class Dlrm(nn.Module):
    def __init__(self, tables=(100, 50, 20), dim=8, dense=13):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense, 32), nn.ReLU(), nn.Linear(32, dim), nn.ReLU())
        self.bags = nn.ModuleList([nn.EmbeddingBag(n, dim, mode="sum") for n in tables])
        features = len(tables) + 1
        self.pairs = torch.tril_indices(features, features, offset=-1)
        self.top = nn.Sequential(nn.Linear(dim + features * (features - 1) // 2, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, dense, *sparse):
        x = self.bottom(dense)
        bags = [bag(sparse[2 * t], sparse[2 * t + 1]) for t, bag in enumerate(self.bags)]
        z = torch.stack([x] + bags, dim=1)
        z = torch.bmm(z, z.transpose(1, 2))[:, self.pairs[0], self.pairs[1]]
        return self.top(torch.cat([x, z], dim=1))


def export_dlrm():
    torch.manual_seed(0)
    model = Dlrm().eval()
    batch, args, names, axes, dims = 4, [torch.randn(4, 13)], ["dense"], {"dense": {0: "batch"}}, {"batch": 4}
    for t, rows in enumerate((100, 50, 20)):
        lengths = torch.randint(1, 5, (batch,))
        offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lengths, 0)[:-1]])
        args += [torch.randint(0, rows, (int(lengths.sum()),)), offsets]
        names += [f"indices_{t}", f"offsets_{t}"]
        axes.update({f"indices_{t}": {0: f"nnz_{t}"}, f"offsets_{t}": {0: "batch"}})
        dims[f"nnz_{t}"] = int(lengths.sum())
    capture.export(OUT, manifest, "dlrm", model, tuple(args), names, axes, dims, output_names=("logits",))


detection = torchvision.models.detection
untrained = dict(weights=None, weights_backbone=None)
rcnn = dict(untrained, min_size=320, max_size=320, box_score_thresh=0.001)
models = {
    "ssdlite": lambda: detection.ssdlite320_mobilenet_v3_large(**untrained, score_thresh=0.001),
    "fasterrcnn": lambda: detection.fasterrcnn_mobilenet_v3_large_320_fpn(**rcnn),
    # Not in the test (larger, slower to export and run); docs/import.md gives their import figures.
    "retinanet": lambda: detection.retinanet_resnet50_fpn(**untrained, min_size=320, max_size=320, score_thresh=0.001),
    "fcos": lambda: detection.fcos_resnet50_fpn(**untrained, min_size=320, max_size=320, score_thresh=0.001),
    "ssd300": lambda: detection.ssd300_vgg16(**untrained, score_thresh=0.001),
    "maskrcnn": lambda: detection.maskrcnn_resnet50_fpn(**rcnn),
    "keypointrcnn": lambda: detection.keypointrcnn_resnet50_fpn(**rcnn),
}
for name in sys.argv[2:] or ["ssdlite", "fasterrcnn", "dlrm"]:
    if name == "dlrm":
        export_dlrm()
        continue
    make = models[name]
    torch.manual_seed(0)
    model = Detector(make())
    image = torch.rand(3, 320, 320)
    outputs = ("boxes", "scores", "labels")
    axes = {"image": {1: "height", 2: "width"}, **{o: {0: "detections"} for o in outputs}}
    capture.export(OUT, manifest, name, model, (image,), ["image"], axes, {"height": 320, "width": 320},
                   output_names=outputs)
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
print("exported", len(manifest), "models", file=sys.stderr)
