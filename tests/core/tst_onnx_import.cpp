// The ONNX reader (issues 24, 35) on the models PyTorch's exporter wrote (scripts/export-onnx-models.py):
// cross-checked against our built-in models of the same name, the MACs PyTorch's modules compute
// (tests/data/onnx/macs.json, counted with forward hooks), the element operations of the transformers'
// other operators (macs.json, from the shapes the hooks see), the transformer's products by hand.
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include "core/ir/operator.h"
#include "core/workloads/transformer.h"
#include "core/workloads/workloads.h"
#include "importers/onnx/onnx_import.h"

using namespace marvel;

namespace {

const std::string kData = MARVEL_SOURCE_DIR "/tests/data/onnx/";

workloads::Workload import(const std::string& name, std::int64_t batch = 1)
{
    return onnx_import::importOnnxFile(kData + name + ".onnx", {.batch = batch});
}

// "TYPE K=.. C=.. Y=../stride(dilation)" -> layers of that shape, repeats included: a model as a multiset of
// shapes ("Y=20d2": input rows 20, dilation 2).
std::map<std::string, int> shapes(const workloads::Workload& w, bool convolutionsOnly)
{
    std::map<std::string, int> out;
    for (const auto& l : w.layers) {
        if (l.maestro.type.empty() || (convolutionsOnly && l.maestro.type == "GEMM")) continue;
        std::string key = l.maestro.type;
        for (const auto& d : l.maestro.dims)
            if (d.name != "N" || l.maestro.type == "GEMM")
                key += " " + d.name + "=" + std::to_string(d.size)
                    + (d.stride != 1 ? "/" + std::to_string(d.stride) : "")
                    + (d.dilation != 1 ? "d" + std::to_string(d.dilation) : "");
        out[key] += l.repeat;
    }
    return out;
}

workloads::Workload importSequence(const std::string& name, std::int64_t batch, std::int64_t seqLen)
{
    return onnx_import::importOnnxFile(kData + name + ".onnx", {.batch = batch, .seqLen = seqLen});
}

/// A workload's work as macs.json counts it: MACs of the matrix products (of which the attention's) and
/// element operations per kind, repeats included.
struct Work
{
    std::int64_t macs = 0, attentionMacs = 0;
    std::map<std::string, std::int64_t> ops;
    std::int64_t op(const std::string& kind) const
    {
        const auto it = ops.find(kind);
        return it == ops.end() ? 0 : it->second;
    }
};

Work work(const workloads::Workload& w)
{
    Work out;
    for (const auto& l : w.layers) {
        const auto kind = l.effectiveKind();
        if (workloads::isMatrixProduct(kind)) {
            out.macs += workloads::maestroMacs(l.maestro) * l.repeat;
            if (kind == workloads::LayerKind::Attention)
                out.attentionMacs += workloads::maestroMacs(l.maestro) * l.repeat;
        } else {
            out.ops[workloads::toString(kind)] += workloads::elementOps(l) * l.repeat;
        }
    }
    return out;
}

bool hasNote(const workloads::Workload& w, const std::string& text)
{
    return std::any_of(w.notes.begin(), w.notes.end(),
        [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

std::string importError(const std::string& path, std::uintmax_t maxBytes = std::uintmax_t(1) << 30)
{
    try {
        onnx_import::importOnnxFile(path, {.batch = 1, .maxFileBytes = maxBytes});
    } catch (const InputError& e) {
        return formatDiagnostics(e.diagnostics());
    }
    return "no error";
}

} // namespace

class TestOnnxImport : public QObject
{
    Q_OBJECT

private slots:
    void macsAddUpToPyTorchs()
    {
        std::ifstream in(kData + "macs.json");
        const auto figures = nlohmann::json::parse(in)["macs"];
        QCOMPARE(figures.size(), std::size_t(8));
        for (const auto& [name, macs] : figures.items())
            QVERIFY2(import(name).totalMacs() == macs.get<std::int64_t>(), name.c_str());
        QCOMPARE(figures["resnet50"].get<std::int64_t>(), std::int64_t(4'089'184'256));
    }

    void vgg16AndMobileNetV2AreTheBuiltInOnes()
    {
        // Same convolutions, same repeats; the ONNX files add the classifiers as GEMMs.
        for (const char* name : {"vgg16", "mobilenetv2"})
            QCOMPARE(shapes(import(name), true), shapes(workloads::builtinWorkload(name), true));
        auto vgg = shapes(import("vgg16"), false);
        QCOMPARE(vgg["GEMM M=1 N=4096 K=25088"], 1);
        QCOMPARE(vgg["GEMM M=1 N=4096 K=4096"], 1);
        QCOMPARE(vgg["GEMM M=1 N=1000 K=4096"], 1);
        QCOMPARE(shapes(import("mobilenetv2"), false)["GEMM M=1 N=1000 K=1280"], 1);
    }

    void resnet50IsVersion1_5()
    {
        // torchvision's ResNet50 is "v1.5": the first block of stages 3-5 strides in its 3x3 convolution,
        // not in the first 1x1 (He et al.'s Caffe release, our built-in). Moving the stride in the
        // built-in model gives exactly the file's convolutions.
        std::vector<workloads::WorkloadLayer> v15;
        for (auto l : workloads::builtinWorkload("resnet50").layers) {
            const bool first
                = l.name == "res3a_branch2a" || l.name == "res4a_branch2a" || l.name == "res5a_branch2a";
            const bool second
                = l.name == "res3a_branch2b" || l.name == "res4a_branch2b" || l.name == "res5a_branch2b";
            auto dim = [&](const char* n) {
                for (const auto& d : l.maestro.dims)
                    if (d.name == n) return d.size;
                return std::int64_t(0);
            };
            const std::int64_t out = (dim("Y") - dim("R")) / (first ? 2 : 1) + 1; // output rows
            if (first) l = workloads::convLayer(l.name, dim("K"), dim("C"), out * 2, out * 2, 1, 1, 1);
            if (second && l.repeat > 1) {
                // The built-in model merged the first block's 3x3 with the others': split it off.
                --l.repeat;
                v15.push_back(l);
            }
            if (second) l = workloads::convLayer(l.name, dim("K"), dim("C"), out, out, 3, 3, 2);
            v15.push_back(l);
        }
        const workloads::Workload expected{"resnet50", workloads::mergeRepeats(v15)};
        const workloads::Workload imported = import("resnet50");
        QCOMPARE(shapes(imported, true), shapes(expected, true));
        QCOMPARE(shapes(imported, false)["GEMM M=1 N=1000 K=2048"], 1);
        // 4.09 G against the Caffe release's 3.86 G (workloads.h).
        QCOMPARE(expected.totalMacs(), std::int64_t(4'089'184'256 - 2048 * 1000));
        int products = 0;
        for (const auto& l : imported.layers)
            if (workloads::isMatrixProduct(l.effectiveKind())) products += l.repeat;
        QCOMPARE(products, 54);
        // With the 49 ReLUs and the 16 residual adds (issue 35).
        QCOMPARE(imported.layerCount(), std::int64_t(54 + 49 + 16));
    }

    void resnet50ListsWhatItLeavesOut()
    {
        std::map<std::string, int> byType;
        for (const auto& n : import("resnet50").notMapped)
            ++byType[n.opType];
        // The ReLUs and residual adds are layers since issue 35 (cnnActivationsAndAddsAreLayers).
        QCOMPARE(byType["Relu"], 0);
        QCOMPARE(byType["Add"], 0);
        QCOMPARE(byType["MaxPool"], 1);
        QCOMPARE(byType["GlobalAveragePool"], 1);
        QCOMPARE(byType["Flatten"], 1);
        QCOMPARE(byType["Conv"], 0);
        // Merged layers name every node they stand for.
        const auto w = import("resnet50");
        const auto conv2 = std::find_if(w.layers.begin(), w.layers.end(),
            [](const workloads::WorkloadLayer& l) { return l.name == "/layer1/layer1.0/conv2/Conv"; });
        QVERIFY(conv2 != w.layers.end());
        QCOMPARE(conv2->sources,
            (std::vector<std::string>{"/layer1/layer1.0/conv2/Conv", "/layer1/layer1.1/conv2/Conv",
                "/layer1/layer1.2/conv2/Conv"}));
        QCOMPARE(conv2->repeat, 3);
    }

    void alexNetIsTorchvisionsVariant()
    {
        // torchvision's AlexNet is the single-GPU "one weird trick" variant (64, 192, 384, 256, 256
        // filters, no groups, 224 input with padding 2), not the paper's two-group one (our built-in).
        const auto w = import("alexnet");
        const std::map<std::string, int> expected{{"CONV K=64 C=3 R=11 S=11 Y=227/4 X=227/4", 1},
            {"CONV K=192 C=64 R=5 S=5 Y=31 X=31", 1}, {"CONV K=384 C=192 R=3 S=3 Y=15 X=15", 1},
            {"CONV K=256 C=384 R=3 S=3 Y=15 X=15", 1}, {"CONV K=256 C=256 R=3 S=3 Y=15 X=15", 1}};
        QCOMPARE(shapes(w, true), expected);
        QCOMPARE(shapes(w, false)["GEMM M=1 N=4096 K=9216"], 1);
    }

    void transformerProducts()
    {
        // 2 sequences of 16 tokens, width 64, 4 heads of 16: in-projection 32x64 by 64x192, Q K^T and
        // A V 16x16x16 for each of 2 x 4 (batch x heads), out-projection, feed-forward 64 -> 256 -> 64.
        const auto w = import("transformer_encoder");
        std::vector<std::array<std::int64_t, 4>> got;
        std::vector<workloads::LayerKind> kinds;
        for (const auto& l : w.layers) {
            if (!workloads::isMatrixProduct(l.effectiveKind())) continue;
            QCOMPARE(l.maestro.type, std::string("GEMM"));
            got.push_back({l.maestro.dims[0].size, l.maestro.dims[1].size, l.maestro.dims[2].size, l.repeat});
            kinds.push_back(l.effectiveKind());
        }
        const std::vector<std::array<std::int64_t, 4>> expected{
            {32, 192, 64, 1}, {16, 16, 16, 16}, {32, 64, 64, 1}, {32, 256, 64, 1}, {32, 64, 256, 1}};
        QCOMPARE(got, expected);
        // Q K^T and A V multiply two activations: attention, not a GEMM with weights.
        using K = workloads::LayerKind;
        QCOMPARE(kinds, (std::vector<K>{K::Gemm, K::Attention, K::Gemm, K::Gemm, K::Gemm}));
        const auto qk = std::find_if(w.layers.begin(), w.layers.end(),
            [](const workloads::WorkloadLayer& l) { return l.effectiveKind() == K::Attention; });
        QCOMPARE(qk->sources,
            (std::vector<std::string>{"/layer/self_attn/MatMul_1", "/layer/self_attn/MatMul_2"}));
        // The rest of torch's TransformerEncoderLayer: softmax over 2 x 4 x 16 rows of 16, two LayerNorms
        // (opset 13: ReduceMean, Sub, Pow, ...) of 32 rows of 64, the ReLU of 32 x 256, the residual adds
        // 32 x 64, the scaling of Q (Div) 2 x 4 x 16 x 16; every node that computes is modelled.
        const Work ops = work(w);
        QCOMPARE(ops.op("softmax"), std::int64_t(5 * 128 * 16));
        QCOMPARE(ops.op("norm"), std::int64_t(2 * (32 * 64 * 8 + 6 * 32)));
        QCOMPARE(ops.op("activation"), std::int64_t(32 * 256));
        QCOMPARE(ops.op("elementwise"), std::int64_t(2 * 32 * 64 + 2 * 4 * 16 * 16));
        QVERIFY(!hasNote(w, "not modelled"));
    }

    void transformersCountAsPyTorch()
    {
        // bert_like, gpt2_like, llama_like at the two sizes macs.json gives (symbolic batch and sequence):
        // the importer's matrix-product MACs (the attention's apart) and its element operations per kind
        // are PyTorch's, counted by forward hooks on the modules that ran.
        std::ifstream in(kData + "macs.json");
        const auto figures = nlohmann::json::parse(in)["transformers"];
        QCOMPARE(figures.size(), std::size_t(3));
        for (const auto& [name, sizes] : figures.items()) {
            QCOMPARE(sizes.size(), std::size_t(2));
            for (const auto& size : sizes) {
                const auto w = importSequence(name, size["batch"], size["seq_len"]);
                const Work got = work(w);
                const std::string what
                    = name + " at batch " + size["batch"].dump() + ", seq " + size["seq_len"].dump();
                QVERIFY2(got.macs == size["macs"].get<std::int64_t>(), what.c_str());
                QVERIFY2(w.totalMacs() == got.macs, what.c_str());
                QVERIFY2(got.attentionMacs == size["attention_macs"].get<std::int64_t>(), what.c_str());
                for (const char* kind : {"softmax", "norm", "activation", "elementwise"})
                    QVERIFY2(got.op(kind) == size["element_ops"][kind].get<std::int64_t>(),
                        (what + " " + kind).c_str());
                QVERIFY2(!hasNote(w, "not modelled"), what.c_str());
            }
        }
    }

    void attentionProductsOfTwoActivations()
    {
        // Llama-like, grouped-query attention: 4 heads of 16, 2 KV heads (g = 2). At batch 2 and 24 tokens
        // Q K^T is [2, 2, 48, 16] x [2, 2, 16, 24]: M = g x S = 48, N = 24, K = 16, batch 2 x 2, and A V
        // 48 x 16 by 24; two blocks each. The projections stay GEMMs of weights: q and out 48 x 64 by 64,
        // k and v N = 32, gate and up N = 176, down K = 176, the LM head N = 256.
        const auto w = importSequence("llama_like", 2, 24);
        std::map<std::string, int> products;
        for (const auto& l : w.layers) {
            const auto kind = l.effectiveKind();
            if (!workloads::isMatrixProduct(kind)) continue;
            std::string key = kind == workloads::LayerKind::Attention ? "attention" : "gemm";
            for (const auto& d : l.maestro.dims)
                key += " " + d.name + "=" + std::to_string(d.size);
            products[key] += l.repeat;
        }
        const std::map<std::string, int> expected{{"attention M=48 N=24 K=16", 8},
            {"attention M=48 N=16 K=24", 8}, {"gemm M=48 N=64 K=64", 4}, {"gemm M=48 N=32 K=64", 4},
            {"gemm M=48 N=176 K=64", 4}, {"gemm M=48 N=64 K=176", 2}, {"gemm M=48 N=256 K=64", 1}};
        QCOMPARE(products, expected);
    }

    void sequenceLengthScalesAsTheShapesSay()
    {
        // Llama-like, batch 1, S tokens (by hand from its shapes): per token 2 blocks of q, out 64 x 64,
        // k, v 64 x 32, gate, up, down 64 x 176, and the head 64 x 256: 108544 MACs; attention 2 blocks x 2
        // products x 2 KV heads x (2 S) x S x 16 = 256 S^2. Softmax 5 x 4 heads x S^2 x 2; RMSNorm 5 times
        // (4 x 64 + 3) S; SwiGLU gate 3 x 176 S x 2; residual adds 2 x 64 S x 2, the scaling and the causal
        // mask 2 x 4 x S^2 x 2.
        for (std::int64_t s : {8, 64}) {
            const Work got = work(importSequence("llama_like", 1, s));
            QCOMPARE(got.macs, 108544 * s + 256 * s * s);
            QCOMPARE(got.attentionMacs, 256 * s * s);
            QCOMPARE(got.op("softmax"), 40 * s * s);
            QCOMPARE(got.op("norm"), 5 * 259 * s);
            QCOMPARE(got.op("activation"), 1056 * s);
            QCOMPARE(got.op("elementwise"), 256 * s + 16 * s * s);
        }
        // The batch multiplies everything.
        QCOMPARE(work(importSequence("llama_like", 3, 8)).op("softmax"), std::int64_t(3 * 40 * 64));
    }

    // One decoding step of the same graph (no KV-cache inputs): one token per sequence attending to L cached
    // ones. From the prefill counts above with one query token and L keys: the projections' 108544 MACs, the
    // attention 256 L; softmax 40 L; RMSNorm 5 x 259; SwiGLU 1056; residual adds 256 and the scaling and
    // mask 16 L.
    void decodeStepFromThePrefillGraph()
    {
        for (std::int64_t kv : {8, 64}) {
            const Work got = work(onnx_import::importOnnxFile(
                kData + "llama_like.onnx", {.batch = 1, .phase = workloads::Phase::Decode, .kvLen = kv}));
            QCOMPARE(got.macs, 108544 + 256 * kv);
            QCOMPARE(got.attentionMacs, 256 * kv);
            QCOMPARE(got.op("softmax"), 40 * kv);
            QCOMPARE(got.op("norm"), std::int64_t(5 * 259));
            QCOMPARE(got.op("activation"), std::int64_t(1056));
            QCOMPARE(got.op("elementwise"), 256 + 16 * kv);
        }
    }

    void symbolicDimensionsNeedTheirOption()
    {
        const std::string path = kData + "bert_like.onnx";
        auto error = [&](const onnx_import::ImportOptions& options) {
            try {
                onnx_import::importOnnxFile(path, options);
            } catch (const InputError& e) {
                return formatDiagnostics(e.diagnostics());
            }
            return std::string("no error");
        };
        // The batch defaults to 1; the sequence has no default.
        QCOMPARE(error({}),
            path
                + ": graph input input dimension 1: is symbolic ('seq') and no value is given: --seq-len "
                  "sets "
                  "the sequence dimensions (--batch the first, the batch)\n");
        QCOMPARE(error({.seqLen = 0}), path + ": seq-len: must be a positive size, not 0\n");
        QCOMPARE(error({.seqLen = -3}), path + ": seq-len: must be a positive size, not -3\n");
        QCOMPARE(error({.seqLen = 4, .kvLen = 0}), path + ": kv-len: must be a positive size, not 0\n");
        QCOMPARE(error({.seqLen = 4, .phase = workloads::Phase::Decode, .kvLen = 64}),
            path
                + ": seq-len: applies to --phase prefill: a decode step has one new token per sequence "
                  "(--kv-len "
                  "sets the cached tokens it attends to)\n");
        QCOMPARE(error({.phase = workloads::Phase::Decode}),
            path
                + ": kv-len: --phase decode needs --kv-len: the cached tokens a step attends to (an ONNX "
                  "graph "
                  "gives no default)\n");
        QCOMPARE(error({.seqLen = 4}), std::string("no error"));
    }

    void transformerJsonRoundTrip()
    {
        // GPT-2-like at batch 1, 12 tokens, written as a JSON model and read back: the same layers (names,
        // kinds, operators, repeats), one JSON entry per softmax and LayerNorm.
        const auto w = importSequence("gpt2_like", 1, 12);
        const std::string text = workloads::writeWorkloadJson(w, "gpt2.json");
        const auto doc = nlohmann::json::parse(text);
        std::map<std::string, int> types;
        for (const auto& l : doc["layers"])
            types[l["type"].get<std::string>()] += 1;
        const std::map<std::string, int> expected{{"GEMM", 4}, {"ATTENTION", 2}, {"LAYERNORM", 1},
            {"SOFTMAX", 1}, {"MUL", 1}, {"ADD", 2}, {"GELU", 1}};
        QCOMPARE(types, expected);
        const auto back = workloads::readWorkloadJson(text, "gpt2.json");
        QCOMPARE(back.layers.size(), w.layers.size());
        for (std::size_t i = 0; i < w.layers.size(); ++i) {
            const auto &a = w.layers[i], &b = back.layers[i];
            QCOMPARE(b.name, a.name);
            QCOMPARE(b.effectiveKind(), a.effectiveKind());
            QCOMPARE(b.repeat, a.repeat);
            QCOMPARE(b.maestro.type, a.maestro.type);
            QVERIFY(b.maestro.dims == a.maestro.dims);
            QCOMPARE(b.op.name, a.op.name);
            QCOMPARE(workloads::elementOps(b), workloads::elementOps(a));
            const auto na = ir::perfectNest(a.op), nb = ir::perfectNest(b.op);
            QVERIFY(na && nb);
            QCOMPARE(nb->statements.front().text, na->statements.front().text);
        }
        QCOMPARE(work(back).ops, work(w).ops);
        QCOMPARE(back.totalMacs(), w.totalMacs());
    }

    void cnnActivationsAndAddsAreLayers()
    {
        // ResNet50: its 49 ReLUs and 16 residual adds are layers now; pooling is not modelled and said so.
        const auto w = import("resnet50");
        int relus = 0, adds = 0;
        for (const auto& l : w.layers) {
            if (l.effectiveKind() == workloads::LayerKind::Activation) relus += l.repeat;
            if (l.effectiveKind() == workloads::LayerKind::Elementwise) adds += l.repeat;
        }
        QCOMPARE(relus, 49);
        QCOMPARE(adds, 16);
        QVERIFY(hasNote(w,
            "2 nodes compute on activations but are not modelled (not in the totals): GlobalAveragePool x1, "
            "MaxPool x1"));
        // The first ReLU: 64 channels of 112 x 112 (rows: every leading dimension, 64 x 112).
        const auto relu = std::find_if(w.layers.begin(), w.layers.end(),
            [](const workloads::WorkloadLayer& l) { return l.sources.front() == "/relu/Relu"; });
        QVERIFY(relu != w.layers.end());
        QCOMPARE(workloads::elementOps(*relu), std::int64_t(64 * 112 * 112));
    }

    void conv1dGroupsAndBatch()
    {
        // Conv1d(64, 128, 3, stride 2, groups 4): one group's convolution (32 filters of 16 channels)
        // four times; groups = channels: depth-wise. The batch is symbolic in this file.
        for (std::int64_t batch : {1, 3}) {
            const auto w = import("conv1d", batch);
            auto s = shapes(w, false);
            QCOMPARE(s["CONV K=32 C=16 R=1 S=3 Y=1/2 X=53/2"], 4);
            QCOMPARE(s["DSCONV K=1 C=128 R=1 S=3 Y=1 X=28"], 1);
            // Conv1d(64, 64, 3, padding 2, dilation 2) over 51: 51 outputs of 5 input columns (55).
            QCOMPARE(s["CONV K=64 C=64 R=1 S=3 Y=1d2 X=55d2"], 1);
            QCOMPARE(s["GEMM M=" + std::to_string(batch) + " N=12 K=128"], 1);
            QCOMPARE(w.totalMacs(), batch * 1'876'736);
        }
        // The dilated convolution is modelled: no remark; the pooling is not, and said so.
        QCOMPARE(import("conv1d").notes,
            std::vector<std::string>{
                "1 nodes compute on activations but are not modelled (not in the totals): "
                "GlobalAveragePool x1"});
    }

    void dilatedConvolutions()
    {
        // DeepLab-style (scripts/export-onnx-models.py, DilatedNet) on 3x32x32: every convolution keeps
        // 16x16 outputs; the MAESTRO view's input is (16 - 1) * stride + (R - 1) * dilation + 1 (padded).
        const auto w = import("dilated");
        const auto shapeCounts = shapes(w, false);
        const auto count = [&](const char* key) {
            const auto it = shapeCounts.find(key);
            return it == shapeCounts.end() ? 0 : it->second;
        };
        QCOMPARE(count("CONV K=16 C=3 R=3 S=3 Y=33/2 X=33/2"), 1); // stem, stride 2
        QCOMPARE(count("CONV K=16 C=16 R=3 S=3 Y=20d2 X=20d2"), 2); // the two of dilation 2, merged
        QCOMPARE(count("CONV K=16 C=16 R=3 S=3 Y=18 X=18"), 1); // the same undilated: apart
        QCOMPARE(count("DSCONV K=1 C=16 R=3 S=3 Y=24d4 X=24d4"), 1);
        QCOMPARE(count("CONV K=8 C=16 R=3 S=3 Y=18 X=20d2"), 1); // dilations (1, 2)
        QCOMPARE(count("CONV K=21 C=8 R=1 S=1 Y=16 X=16"), 1);
        std::vector<workloads::WorkloadLayer> convolutions;
        std::copy_if(w.layers.begin(), w.layers.end(), std::back_inserter(convolutions),
            [](const workloads::WorkloadLayer& l) { return !l.maestro.type.empty(); });
        QCOMPARE(convolutions.size(), std::size_t(6));
        QCOMPARE(convolutions[1].sources,
            (std::vector<std::string>{"/features/features.2/Conv", "/features/features.4/Conv"}));
        QVERIFY(w.notes.empty());
        // The ReLUs are layers (issue 35): five of 16 x 16 x 16, one of 8 x 16 x 16.
        QCOMPARE(w.notMapped.size(), std::size_t(0));
        QCOMPARE(w.layers.size(), std::size_t(8));
        QCOMPARE(work(w).op("activation"), std::int64_t(5 * 16 * 256 + 8 * 256));
        for (const auto& l : convolutions) {
            QCOMPARE(l.op.sizeValue("Y"), std::optional<std::int64_t>(16));
            QCOMPARE(l.op.sizeValue("X"), std::optional<std::int64_t>(16));
            QCOMPARE(workloads::operatorMacs(l.op), workloads::maestroMacs(l.maestro));
        }
        // 16x16 outputs x (27 + 2 x 16 x 9 x 16 + 16 x 9 x 16 + 9 x 16 + 16 x 9 x 8 + 8 x 21), PyTorch's
        // figure.
        QCOMPARE(
            w.totalMacs(), std::int64_t(256 * (27 * 16 + 3 * 16 * 9 * 16 + 9 * 16 + 16 * 9 * 8 + 8 * 21)));
        QCOMPARE(w.totalMacs(), std::int64_t(2'254'848));
        QCOMPARE(workloads::maestroMacs(convolutions[1].maestro), std::int64_t(256 * 16 * 9 * 16));
        // The operator reads the dilated window: input rows y + 2r, 20 of them.
        const std::string text = "I[c][y + 2 * r][x + 2 * s]";
        QVERIFY(
            workloads::conv2dLoopText(16, 16, 16, 16, 3, 3, 1, 1, 1, 2, 2).find(text) != std::string::npos);
        QCOMPARE(convolutions[1].op.name, std::string("conv2d_dilated"));
        const auto table = onnx_import::formatLayerTable(w);
        QVERIFY2(table.find("1 d2    2       /features/features.2/Conv, /features/features.4/Conv")
                != std::string::npos,
            table.c_str());
        QVERIFY2(table.find("1 d1x2 ") != std::string::npos, table.c_str());
        QVERIFY2(table.find("2       1       /features/features.0/Conv") != std::string::npos, table.c_str());
    }

    void shuffleNetChannelSplitFolds()
    {
        // Its channel split and shuffle are Shape/Gather/Div/Mul/Slice chains ONNX's shape inference
        // leaves unresolved; folded, every convolution has its shape.
        const auto w = import("shufflenetv2");
        std::size_t mapped = 0;
        for (const auto& l : w.layers)
            if (workloads::isMatrixProduct(l.effectiveKind())) mapped += l.sources.size();
        QCOMPARE(mapped, std::size_t(57));
        QCOMPARE(shapes(w, false)["DSCONV K=1 C=58 R=3 S=3 Y=30 X=30"], 3);
        QVERIFY(w.notes.back().find("78 nodes of shape arithmetic folded") != std::string::npos);
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("not onnx") << "not_onnx.onnx"
                                  << "not_onnx.onnx: is not an ONNX model";
        // 0 bytes parse as a model without a graph: said as an empty file, not as "no graph nodes".
        QTest::newRow("empty") << "empty.onnx"
                               << "empty.onnx: empty file";
        QTest::newRow("truncated") << "truncated.onnx"
                                   << "truncated.onnx: is not an ONNX model";
        QTest::newRow("missing shape")
            << "missing_shape.onnx"
            << "node conv_no_weight_shape (Conv): the shape of weight 'w' is unknown";
        QTest::newRow("zero") << "zero_dimension.onnx"
                              << "graph input x dimension 1: is 0, not positive";
        QTest::newRow("negative") << "negative_dimension.onnx"
                                  << "graph input x dimension 2: is -2, not positive";
        QTest::newRow("symbolic") << "symbolic_dimension.onnx"
                                  << "dimension 2: is symbolic ('height')";
        QTest::newRow("no layer") << "no_layers.onnx"
                                  << "graph: no node maps to a layer";
    }

    void badInput()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const std::string error = importError(MARVEL_SOURCE_DIR "/tests/data/onnx/bad/" + file.toStdString());
        QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
    }

    void hugeFileRefusedBeforeReading()
    {
        // A sparse 3 GB file: refused by its size, never read (reading would take seconds and 3 GB).
        QTemporaryDir dir;
        const std::string path = dir.filePath("huge.onnx").toStdString();
        std::ofstream(path).put('x');
        std::filesystem::resize_file(path, std::uintmax_t(3) << 30);
        const std::string error = importError(path);
        QVERIFY2(error.find("huge.onnx: is 3221225472 bytes, more than the 1073741824") != std::string::npos,
            error.c_str());
    }

    void registeredForLoadWorkload()
    {
        onnx_import::registerOnnxReader({.batch = 2});
        QCOMPARE(workloads::loadWorkload(kData + "conv1d.onnx").totalMacs(), 2 * 1'876'736);
        onnx_import::registerOnnxReader();
    }
};

QTEST_APPLESS_MAIN(TestOnnxImport)
#include "tst_onnx_import.moc"
