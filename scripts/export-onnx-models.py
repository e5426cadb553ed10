#!/usr/bin/python3
"""Exports the ONNX test models of tests/data/onnx/ with PyTorch's own exporter (issue 24).

Run with Debian's interpreter, which has torch (another python3 may come first on PATH):
    /usr/bin/python3 scripts/export-onnx-models.py [OUT_DIR]
Weights are random (weights=None: nothing is downloaded) and not written (export_params=False), so each
file holds only the graph, tens of KB. Beside the models it writes macs.json: for every model the
multiply-accumulates its convolution and linear modules perform, counted with forward hooks on the
modules PyTorch runs, plus (transformer) the attention's two batched products, which run inside
F.multi_head_attention_forward and are no module of their own. The tests compare the importer with it.
"""
import json
import os
import sys

import torch
import torchvision

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "onnx")


class Conv1dNet(torch.nn.Module):
    """A small 1-D convolutional network (keyword-spotting style): strided, dilated and grouped Conv1d."""

    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv1d(40, 64, 5, stride=2, padding=2), torch.nn.ReLU(),
            torch.nn.Conv1d(64, 64, 3, padding=2, dilation=2), torch.nn.ReLU(),
            torch.nn.Conv1d(64, 128, 3, stride=2, padding=1, groups=4), torch.nn.ReLU(),
            torch.nn.Conv1d(128, 128, 3, padding=1, groups=128), torch.nn.ReLU(),
            torch.nn.Conv1d(128, 128, 1))
        self.pool = torch.nn.AdaptiveAvgPool1d(1)
        self.fc = torch.nn.Linear(128, 12)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class DilatedNet(torch.nn.Module):
    """DeepLab-style atrous convolutions on a 32x32 image: a strided stem, two identical 3x3 convolutions of
    dilation 2 (they merge), the same convolution undilated (it must not merge with them), a depth-wise one
    of dilation 4, one dilated differently along rows and columns, and a 1x1 classifier (21 classes)."""

    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 16, 3, padding=2, dilation=2), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 16, 3, padding=2, dilation=2), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 16, 3, padding=4, dilation=4, groups=16), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 8, 3, padding=(1, 2), dilation=(1, 2)), torch.nn.ReLU(),
            torch.nn.Conv2d(8, 21, 1))

    def forward(self, x):
        return self.features(x)


class Encoder(torch.nn.Module):
    """One transformer encoder layer, batch first: 2 sequences of 16 tokens, model width 64, 4 heads."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256, dropout=0.0,
                                                      batch_first=True)

    def forward(self, x):
        return self.layer(x)


def count_macs(model, example):
    macs = {"total": 0}

    def hook(module, inputs, output):
        if isinstance(module, (torch.nn.Conv1d, torch.nn.Conv2d)):
            per_output = (module.in_channels // module.groups) * int(torch.tensor(module.kernel_size).prod())
            macs["total"] += output.numel() * per_output
        elif isinstance(module, torch.nn.Linear):
            macs["total"] += output.numel() * module.in_features
        elif isinstance(module, torch.nn.MultiheadAttention):
            # F.multi_head_attention_forward uses the projections' weights directly, so no hook of a
            # submodule fires: in-projection (3 E x E), Q K^T and attention x V over all heads, and the
            # out-projection (E x E).
            batch, seq, width = inputs[0].shape
            macs["total"] += batch * seq * width * 3 * width
            macs["total"] += 2 * batch * seq * seq * width
            macs["total"] += batch * seq * width * width

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    # In training mode (the models have no dropout that matters: dropout=0.0 or zeros in, MACs out) so
    # that TransformerEncoderLayer runs its submodules rather than its fused evaluation fast path.
    model.train()
    with torch.no_grad():
        model(example)
    model.eval()
    for h in handles:
        h.remove()
    return macs["total"]


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    image = torch.zeros(1, 3, 224, 224)
    models = {
        "alexnet": (torchvision.models.alexnet(weights=None), image, None),
        "vgg16": (torchvision.models.vgg16(weights=None), image, None),
        "resnet50": (torchvision.models.resnet50(weights=None), image, None),
        "mobilenetv2": (torchvision.models.mobilenet_v2(weights=None), image, None),
        "shufflenetv2": (torchvision.models.shufflenet_v2_x1_0(weights=None), image, None),
        "transformer_encoder": (Encoder(), torch.zeros(2, 16, 64), None),
        # The batch is symbolic here ("batch"): the importer takes it from --batch.
        "conv1d": (Conv1dNet(), torch.zeros(1, 40, 101), {"input": {0: "batch"}, "output": {0: "batch"}}),
        "dilated": (DilatedNet(), torch.zeros(1, 3, 32, 32), None),
    }
    figures = {}
    for name, (model, example, dynamic) in models.items():
        figures[name] = count_macs(model, example)
        path = os.path.join(OUT, name + ".onnx")
        torch.onnx.export(model, example, path, export_params=False, opset_version=13, input_names=["input"],
                          output_names=["output"], dynamic_axes=dynamic)
        print(f"{path}: {os.path.getsize(path)} bytes, {figures[name]} MACs")
    with open(os.path.join(OUT, "macs.json"), "w") as f:
        json.dump({"note": "MACs of each model at the exported input size (batch 1; transformer batch 2), "
                           "counted by scripts/export-onnx-models.py with forward hooks",
                   "macs": figures}, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
