#!/usr/bin/python3
"""Exports the ONNX test models of tests/data/onnx/ with PyTorch's own exporter (issue 24).

Run with Debian's interpreter, which has torch (another python3 may come first on PATH):
    /usr/bin/python3 scripts/export-onnx-models.py [OUT_DIR]
Weights are random (weights=None: nothing is downloaded) and not written (export_params=False), so each
file holds only the graph, tens of KB. Beside the models it writes macs.json: for every model the
multiply-accumulates its convolution and linear modules perform, counted with forward hooks on the
modules PyTorch runs, plus (transformer) the attention's two batched products, which run inside
F.multi_head_attention_forward and are no module of their own. The tests compare the importer with it.

The transformers of issue 35 (bert_like, gpt2_like, llama_like: PyTorch modules defined here, symbolic
batch and sequence) are counted at two sizes under "transformers": MACs of the matrix products, those of
the attention's products of two activations, and the element operations per kind (softmax, norm,
activation, elementwise) with the convention the importer and the built-in models share.
"""
import json
import math
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


# Transformers (issue 35): a BERT-like encoder, a GPT-2-like and a Llama-like decoder, two blocks each,
# width 64 and 4 heads of 16, the input being the hidden states (no token embedding: a Gather of a table,
# no arithmetic). Every operation that is counted runs in a module of its own, so that forward hooks
# count it from the shapes it sees: the matrix products in Linear and BatchedMatMul (the attention's two
# products of activations), the rest in the modules below, with the element operations per instance of
# the convention of doc/onnx.md: softmax 5, LayerNorm 8 per element and 6 per
# row, RMSNorm 4 per element and 3 per row, GELU 5, SwiGLU gate 3, addition and product 1. The biases
# of linear layers are part of their layers (not counted), as a Gemm's C is.


class BatchedMatMul(torch.nn.Module):
    """a @ b of two activations (Q K^T, A V)."""

    def forward(self, a, b):
        return torch.matmul(a, b)


class Residual(torch.nn.Module):
    """An element-wise addition: the residual connections and the causal mask."""

    def forward(self, a, b):
        return a + b


class Scale(torch.nn.Module):
    """The scores times 1/sqrt(head width): an element-wise product."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


class RMSNorm(torch.nn.Module):
    """Llama's: x / sqrt(mean(x^2) + eps) * weight."""

    def __init__(self, width, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class SwiGLUGate(torch.nn.Module):
    """silu(gate) * up."""

    def forward(self, gate, up):
        return torch.nn.functional.silu(gate) * up


class TanhGELU(torch.nn.Module):
    """GPT-2's GELU, the tanh approximation (Hugging Face's NewGELU); counted as GELU."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class TransformerConfig:
    def __init__(self, width=64, heads=4, kv_heads=4, ffn=256, blocks=2, vocab=0, max_tokens=1024):
        self.width, self.heads, self.kv_heads, self.ffn = width, heads, kv_heads, ffn
        self.blocks, self.vocab, self.max_tokens = blocks, vocab, max_tokens
        self.head_width = width // heads


class Attention(torch.nn.Module):
    """Multi-head attention with grouped query heads (kv_heads divides heads): the g = heads / kv_heads
    query heads of a KV head are stacked as rows, so that Q K^T is [B, kv, g*S, d] x [B, kv, d, T] and
    reads each key once (M = g*S, batch = B*kv). Fused QKV (GPT-2's c_attn) or separate projections;
    causal or not."""

    def __init__(self, cfg, fused, causal, bias):
        super().__init__()
        self.cfg, self.fused, self.causal = cfg, fused, causal
        kv_width = cfg.kv_heads * cfg.head_width
        if fused:
            self.qkv = torch.nn.Linear(cfg.width, cfg.width + 2 * kv_width, bias=bias)
        else:
            self.q = torch.nn.Linear(cfg.width, cfg.width, bias=bias)
            self.k = torch.nn.Linear(cfg.width, kv_width, bias=bias)
            self.v = torch.nn.Linear(cfg.width, kv_width, bias=bias)
        self.out = torch.nn.Linear(cfg.width, cfg.width, bias=bias)
        self.scores = BatchedMatMul()
        self.context = BatchedMatMul()
        self.scale = Scale(1.0 / cfg.head_width ** 0.5)
        self.softmax = torch.nn.Softmax(dim=-1)
        if causal:
            # An additive mask, -inf above the diagonal, sliced to the sequence.
            mask = torch.triu(torch.full((cfg.max_tokens, cfg.max_tokens), float("-inf")), 1)
            self.register_buffer("mask", mask)
            self.add_mask = Residual()

    def forward(self, x):
        cfg = self.cfg
        b, s, _ = x.shape
        kv, g, d = cfg.kv_heads, cfg.heads // cfg.kv_heads, cfg.head_width
        if self.fused:
            q, k, v = self.qkv(x).split([cfg.width, kv * d, kv * d], dim=-1)
        else:
            q, k, v = self.q(x), self.k(x), self.v(x)
        q = q.view(b, s, kv, g, d).permute(0, 2, 3, 1, 4).reshape(b, kv, g * s, d)
        k = k.view(b, s, kv, d).permute(0, 2, 3, 1)  # [B, kv, d, T]
        v = v.view(b, s, kv, d).transpose(1, 2)  # [B, kv, T, d]
        scores = self.scale(self.scores(q, k))
        if self.causal:
            scores = self.add_mask(scores.view(b, kv, g, s, s), self.mask[:s, :s])
        p = self.softmax(scores).reshape(b, kv, g * s, s)
        ctx = self.context(p, v)  # [B, kv, g*S, d]
        ctx = ctx.view(b, kv, g, s, d).permute(0, 3, 1, 2, 4).reshape(b, s, cfg.width)
        return self.out(ctx)


class BertBlock(torch.nn.Module):
    """Post-LN: x = LN(x + attention(x)); x = LN(x + fc2(gelu(fc1(x))))."""

    def __init__(self, cfg):
        super().__init__()
        self.attention = Attention(cfg, fused=False, causal=False, bias=True)
        self.add1, self.add2 = Residual(), Residual()
        self.norm1, self.norm2 = torch.nn.LayerNorm(cfg.width), torch.nn.LayerNorm(cfg.width)
        self.fc1, self.fc2 = torch.nn.Linear(cfg.width, cfg.ffn), torch.nn.Linear(cfg.ffn, cfg.width)
        self.gelu = torch.nn.GELU()

    def forward(self, x):
        x = self.norm1(self.add1(x, self.attention(x)))
        return self.norm2(self.add2(x, self.fc2(self.gelu(self.fc1(x)))))


class Gpt2Block(torch.nn.Module):
    """Pre-LN: x = x + attention(ln_1(x)); x = x + fc2(gelu(fc1(ln_2(x)))); fused QKV, causal, GPT-2's
    tanh GELU."""

    def __init__(self, cfg):
        super().__init__()
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(cfg.width), torch.nn.LayerNorm(cfg.width)
        self.attention = Attention(cfg, fused=True, causal=True, bias=True)
        self.add1, self.add2 = Residual(), Residual()
        self.fc1, self.fc2 = torch.nn.Linear(cfg.width, cfg.ffn), torch.nn.Linear(cfg.ffn, cfg.width)
        self.gelu = TanhGELU()

    def forward(self, x):
        x = self.add1(x, self.attention(self.ln_1(x)))
        return self.add2(x, self.fc2(self.gelu(self.fc1(self.ln_2(x)))))


class LlamaBlock(torch.nn.Module):
    """x = x + attention(rms(x)); x = x + down(silu(gate(rms(x))) * up(rms(x))); grouped-query
    attention, no biases, no rotary embedding."""

    def __init__(self, cfg):
        super().__init__()
        self.attention_norm, self.ffn_norm = RMSNorm(cfg.width), RMSNorm(cfg.width)
        self.attention = Attention(cfg, fused=False, causal=True, bias=False)
        self.add1, self.add2 = Residual(), Residual()
        self.gate = torch.nn.Linear(cfg.width, cfg.ffn, bias=False)
        self.up = torch.nn.Linear(cfg.width, cfg.ffn, bias=False)
        self.down = torch.nn.Linear(cfg.ffn, cfg.width, bias=False)
        self.swiglu = SwiGLUGate()

    def forward(self, x):
        x = self.add1(x, self.attention(self.attention_norm(x)))
        h = self.ffn_norm(x)
        return self.add2(x, self.down(self.swiglu(self.gate(h), self.up(h))))


class TransformerNet(torch.nn.Module):
    """Blocks on hidden states [batch, seq, width]; a final norm and an LM head when vocab > 0."""

    def __init__(self, cfg, block, final_norm=None):
        super().__init__()
        self.blocks = torch.nn.Sequential(*[block(cfg) for _ in range(cfg.blocks)])
        self.norm = final_norm
        self.head = torch.nn.Linear(cfg.width, cfg.vocab, bias=False) if cfg.vocab else None

    def forward(self, x):
        x = self.blocks(x)
        if self.norm is not None:
            x = self.norm(x)
        return self.head(x) if self.head is not None else x


def bert_like():
    return TransformerNet(TransformerConfig(width=64, heads=4, ffn=256), BertBlock)


def gpt2_like():
    cfg = TransformerConfig(width=64, heads=4, ffn=256, vocab=256)
    return TransformerNet(cfg, Gpt2Block, torch.nn.LayerNorm(cfg.width))


def llama_like():
    cfg = TransformerConfig(width=64, heads=4, kv_heads=2, ffn=176, vocab=256)
    return TransformerNet(cfg, LlamaBlock, RMSNorm(cfg.width))


def count_transformer(model, example):
    """MACs (matrix products, of which the attention's) and element operations per kind."""
    figures = {"macs": 0, "attention_macs": 0,
               "element_ops": {"softmax": 0, "norm": 0, "activation": 0, "elementwise": 0}}
    ops = figures["element_ops"]

    def rows_cols(t):
        return t.numel() // t.shape[-1], t.shape[-1]

    def hook(module, inputs, output):
        if isinstance(module, torch.nn.Linear):
            figures["macs"] += output.numel() * module.in_features
        elif isinstance(module, BatchedMatMul):
            macs = output.numel() * inputs[0].shape[-1]
            figures["macs"] += macs
            figures["attention_macs"] += macs
        elif isinstance(module, torch.nn.Softmax):
            ops["softmax"] += 5 * output.numel()
        elif isinstance(module, torch.nn.LayerNorm):
            r, d = rows_cols(output)
            ops["norm"] += r * d * 8 + 6 * r
        elif isinstance(module, RMSNorm):
            r, d = rows_cols(output)
            ops["norm"] += r * d * 4 + 3 * r
        elif isinstance(module, (torch.nn.GELU, TanhGELU)):
            ops["activation"] += 5 * output.numel()
        elif isinstance(module, SwiGLUGate):
            ops["activation"] += 3 * output.numel()
        elif isinstance(module, (Residual, Scale)):
            ops["elementwise"] += output.numel()

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    with torch.no_grad():
        model(example)
    for h in handles:
        h.remove()
    return figures


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
    # The transformers: batch and sequence symbolic ("batch", "seq"), the importer takes them from --batch
    # and --seq-len. GPT-2-like at opset 17, where LayerNorm is one LayerNormalization node; the others at
    # opset 13, where it is written out (ReduceMean, Sub, Pow, ..., as RMSNorm is).
    transformers = {"bert_like": (bert_like(), 13), "gpt2_like": (gpt2_like(), 17),
                    "llama_like": (llama_like(), 13)}
    sizes = [(2, 16), (1, 40)]
    counts = {}
    for name, (model, opset) in transformers.items():
        model.eval()
        counts[name] = [dict(batch=b, seq_len=s, **count_transformer(model, torch.zeros(b, s, 64)))
                        for b, s in sizes]
        path = os.path.join(OUT, name + ".onnx")
        axes = {0: "batch", 1: "seq"}
        torch.onnx.export(model, torch.zeros(*sizes[0], 64), path, export_params=False, opset_version=opset,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": axes, "output": axes})
        print(f"{path}: {os.path.getsize(path)} bytes, {counts[name]}")
    with open(os.path.join(OUT, "macs.json"), "w") as f:
        json.dump({"note": "MACs of each model at the exported input size (batch 1; transformer batch 2), "
                           "counted by scripts/export-onnx-models.py with forward hooks",
                   "macs": figures,
                   "transformers_note": "the transformers of symbolic batch and sequence at two sizes: MACs of "
                                        "the matrix products (attention_macs: Q K^T and A V), counted with "
                                        "forward hooks, and element operations per kind from the shapes the "
                                        "hooks see",
                   "transformers": counts}, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
