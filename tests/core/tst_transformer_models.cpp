#include <QTest>

#include "core/util/diagnostic.h"
#include "core/workloads/transformer.h"
#include "core/workloads/transformer_models.h"
#include "core/workloads/workloads.h"

using namespace marvel;
using workloads::LayerKind;
using workloads::Phase;
using workloads::SequenceOptions;

namespace {

// MACs of the matrix products (convolutions, GEMMs, attention products), with repeats.
std::int64_t productMacs(const workloads::Workload& w)
{
    std::int64_t n = 0;
    for (const auto& l : w.layers)
        if (workloads::isMatrixProduct(l.effectiveKind())) n += workloads::maestroMacs(l.maestro) * l.repeat;
    return n;
}

std::int64_t elementOps(const workloads::Workload& w)
{
    std::int64_t n = 0;
    for (const auto& l : w.layers)
        n += workloads::elementOps(l) * l.repeat;
    return n;
}

const workloads::WorkloadLayer& layer(const workloads::Workload& w, const std::string& name)
{
    for (const auto& l : w.layers)
        if (l.name == name) return l;
    throw std::runtime_error("no layer " + name);
}

std::int64_t dim(const workloads::WorkloadLayer& l, const char* name)
{
    for (const auto& d : l.maestro.dims)
        if (d.name == name) return d.size;
    return -1;
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.diagnostics().front().format();
    }
    return "(no error)";
}

// Element operations by hand from the spec's per-element counts (transformer.h): LayerNorm 8 per element
// and 6 per row, RMSNorm 4 and 3, softmax 5, GELU 5, SwiGLU gate 3, residual add 1, a product 2 per MAC.
std::int64_t layerNorm(std::int64_t r, std::int64_t d)
{
    return 8 * r * d + 6 * r;
}
std::int64_t rmsNorm(std::int64_t r, std::int64_t d)
{
    return 4 * r * d + 3 * r;
}

} // namespace

class TestTransformerModels : public QObject
{
    Q_OBJECT

private slots:
    // GPT-2 small at its default 1024 tokens: per block c_attn (N = 3 * 768), Q*K^T and A*V for 12 heads,
    // c_proj, fc and proj; the LM head once.
    void gpt2Prefill()
    {
        const workloads::Workload w = workloads::builtinWorkload("gpt2");
        const std::int64_t S = 1024, W = 768, F = 3072, V = 50257;
        const std::int64_t block = S * W * 2304 + 12 * (S * S * 64) * 2 + S * W * W + 2 * S * W * F;
        QCOMPARE(productMacs(w), 12 * block + S * W * V);
        const std::int64_t blockOps = 2 * layerNorm(S, W) + 2 * S * 2304 * W + 2 * 2 * 12 * S * S * 64
            + 5 * 12 * S * S + 2 * S * W * W + 2 * S * W + 2 * S * F * W + 5 * S * F + 2 * S * W * F;
        QCOMPARE(elementOps(w), 12 * blockOps + layerNorm(S, W) + 2 * S * V * W);
        // Identical layers merge: Q*K^T of 12 heads in 12 blocks, ln_1, ln_2 and ln_f.
        const auto& scores = layer(w, "h.0.attn.scores");
        QCOMPARE(scores.effectiveKind(), LayerKind::Attention);
        QCOMPARE(scores.repeat, 144);
        QCOMPARE(dim(scores, "M"), S);
        QCOMPARE(dim(scores, "N"), S);
        QCOMPARE(dim(scores, "K"), std::int64_t(64));
        QCOMPARE(layer(w, "h.0.ln_1.normalize").repeat, 25);
        QCOMPARE(layer(w, "h.0.attn.softmax.exp").effectiveKind(), LayerKind::Softmax);
        QCOMPARE(layer(w, "lm_head").repeat, 1);
        QCOMPARE(dim(layer(w, "lm_head"), "N"), V);
    }

    // One decode step: every projection a GEMV (M = batch), attention over the kv-len cached tokens.
    void gpt2Decode()
    {
        SequenceOptions o;
        o.phase = Phase::Decode;
        o.kvLen = 1024;
        o.batch = 2;
        const workloads::Workload w = workloads::builtinWorkload("gpt2", o);
        const std::int64_t B = 2, T = 1024, W = 768, F = 3072, V = 50257;
        const std::int64_t block = B * W * 2304 + B * 12 * (T * 64) * 2 + B * W * W + 2 * B * W * F;
        QCOMPARE(productMacs(w), 12 * block + B * W * V);
        const auto& cAttn = layer(w, "h.0.attn.c_attn");
        QCOMPARE(dim(cAttn, "M"), B);
        const auto& scores = layer(w, "h.0.attn.scores");
        QCOMPARE(dim(scores, "M"), std::int64_t(1));
        QCOMPARE(dim(scores, "N"), T);
        QCOMPARE(scores.repeat, int(B * 12 * 12));
        const auto& context = layer(w, "h.0.attn.context");
        QCOMPARE(dim(context, "N"), std::int64_t(64));
        QCOMPARE(dim(context, "K"), T);
        QCOMPARE(workloads::operatorMacs(layer(w, "h.0.attn.softmax.exp").op), B * 12 * T);
        // Without --kv-len a decode step attends to the model's default sequence (1024 for GPT-2).
        SequenceOptions d;
        d.phase = Phase::Decode;
        QCOMPARE(
            dim(layer(workloads::builtinWorkload("gpt2", d), "h.0.attn.scores"), "N"), std::int64_t(1024));
    }

    // BERT-base: q, k, v and the output projection are the same 768 x 768 GEMM (4 per block), two
    // post-LN LayerNorms per block, no LM head.
    void bertBase()
    {
        for (const auto& [name, S] :
            {std::pair{"bert-base", std::int64_t(128)}, std::pair{"bert-base-512", std::int64_t(512)}}) {
            const workloads::Workload w = workloads::builtinWorkload(name);
            const std::int64_t W = 768, F = 3072;
            const std::int64_t block = 4 * S * W * W + 2 * 12 * S * S * 64 + 2 * S * W * F;
            QCOMPARE(productMacs(w), 12 * block);
            const std::int64_t blockOps = 2 * 4 * S * W * W + 2 * 2 * 12 * S * S * 64 + 5 * 12 * S * S
                + 2 * S * W + 2 * layerNorm(S, W) + 2 * 2 * S * W * F + 5 * S * F;
            QCOMPARE(elementOps(w), 12 * blockOps);
            QCOMPARE(layer(w, "layer.0.attention.query").repeat, 48);
        }
        SequenceOptions o;
        o.seqLen = 32;
        o.batch = 3;
        const workloads::Workload w = workloads::builtinWorkload("bert-base", o);
        QCOMPARE(dim(layer(w, "layer.0.intermediate"), "M"), std::int64_t(3 * 32));
        QCOMPARE(layer(w, "layer.0.attention.scores").repeat, 3 * 12 * 12);
        // At 64 tokens (the head width) Q*K^T and A*V are the same 64 x 64 x 64 product: one layer.
        o.seqLen = 64;
        const workloads::Workload square = workloads::builtinWorkload("bert-base", o);
        QCOMPARE(layer(square, "layer.0.attention.scores").repeat, 2 * 3 * 12 * 12);
    }

    // Grouped-query attention: 32 query heads share 8 KV heads, so each of the B * 8 products has 4 * S
    // rows; k and v project to 8 * 128 = 1024.
    void llamaBlockGqa()
    {
        const workloads::Workload w = workloads::builtinWorkload("llama-7b-block");
        const std::int64_t S = 4096, W = 4096, F = 11008, kv = 1024;
        const auto& scores = layer(w, "self_attn.scores");
        QCOMPARE(dim(scores, "M"), 4 * S);
        QCOMPARE(dim(scores, "N"), S);
        QCOMPARE(dim(scores, "K"), std::int64_t(128));
        QCOMPARE(scores.repeat, 8);
        QCOMPARE(dim(layer(w, "self_attn.k_proj"), "N"), kv);
        QCOMPARE(layer(w, "self_attn.k_proj").repeat, 2); // k and v
        QCOMPARE(layer(w, "self_attn.q_proj").repeat, 2); // q and o
        QCOMPARE(layer(w, "mlp.gate_proj").repeat, 2); // gate and up
        const std::int64_t macs = 2 * S * W * W + 2 * S * kv * W + 2 * 8 * (4 * S * S * 128) + 3 * S * F * W;
        QCOMPARE(productMacs(w), macs);
        const std::int64_t ops = 2 * macs + 2 * rmsNorm(S, W) + 5 * 32 * S * S + 3 * S * F + 2 * S * W;
        QCOMPARE(elementOps(w), ops);
        // The whole model: 32 blocks, the final RMSNorm and the LM head to 32000 tokens.
        const workloads::Workload model = workloads::builtinWorkload("llama-7b");
        QCOMPARE(productMacs(model), 32 * macs + S * 32000 * W);
        QCOMPARE(elementOps(model), 32 * ops + rmsNorm(S, W) + 2 * S * 32000 * W);

        SequenceOptions o;
        o.phase = Phase::Decode;
        o.kvLen = 4096;
        o.batch = 2;
        const workloads::Workload d = workloads::builtinWorkload("llama-7b-block", o);
        const auto& s = layer(d, "self_attn.scores");
        QCOMPARE(dim(s, "M"), std::int64_t(4));
        QCOMPARE(dim(s, "N"), std::int64_t(4096));
        QCOMPARE(s.repeat, 16);
        QCOMPARE(dim(layer(d, "self_attn.context"), "K"), std::int64_t(4096));
        QCOMPARE(dim(layer(d, "mlp.down_proj"), "M"), std::int64_t(2));
        QCOMPARE(workloads::operatorMacs(layer(d, "self_attn.softmax.div").op), std::int64_t(2 * 32 * 4096));
    }

    // What the sequence options refuse, each naming the option.
    void badSequences()
    {
        SequenceOptions zero;
        zero.seqLen = 0;
        QVERIFY(errorOf([&] {
            workloads::builtinWorkload("gpt2", zero);
        }).find("--seq-len must be a positive integer")
            != std::string::npos);
        SequenceOptions negativeBatch;
        negativeBatch.batch = -2;
        QVERIFY(errorOf([&] {
            workloads::builtinWorkload("llama-7b", negativeBatch);
        }).find("--batch must be a positive integer")
            != std::string::npos);
        SequenceOptions kvZero;
        kvZero.phase = Phase::Decode;
        kvZero.kvLen = 0;
        QVERIFY(errorOf([&] {
            workloads::builtinWorkload("gpt2", kvZero);
        }).find("--kv-len must be a positive integer")
            != std::string::npos);
        SequenceOptions kvPrefill;
        kvPrefill.kvLen = 16;
        QVERIFY(errorOf([&] {
            workloads::builtinWorkload("gpt2", kvPrefill);
        }).find("--kv-len applies to --phase decode")
            != std::string::npos);
        SequenceOptions decode;
        decode.phase = Phase::Decode;
        QVERIFY(errorOf([&] { workloads::builtinWorkload("bert-base", decode); }).find("encoder")
            != std::string::npos);
        SequenceOptions huge;
        huge.seqLen = 1 << 20;
        huge.batch = 4096;
        QVERIFY(errorOf([&] { workloads::builtinWorkload("gpt2", huge); }).find("above the largest extent")
            != std::string::npos);
        SequenceOptions seq;
        seq.seqLen = 16;
        QVERIFY(errorOf([&] { workloads::builtinWorkload("resnet50", seq); }).find("has no sequence")
            != std::string::npos);
        QVERIFY(workloads::isBuiltinWorkloadName("GPT2"));
        QVERIFY(workloads::isBuiltinWorkloadName("llama-7b-block"));
    }

    // Layers that are not matrix products merge only when they compute the same: a LayerNorm's rstd
    // over rows of another width has another constant.
    void mergeOperators()
    {
        std::vector<workloads::WorkloadLayer> layers = workloads::softmaxLayers("a", 8, 16);
        for (auto& l : workloads::softmaxLayers("b", 8, 16))
            layers.push_back(std::move(l));
        for (auto& l : workloads::softmaxLayers("c", 8, 32))
            layers.push_back(std::move(l));
        layers.push_back(workloads::layerNormLayers("n1", 8, 16)[2]);
        layers.push_back(workloads::layerNormLayers("n2", 8, 32)[2]);
        const auto merged = workloads::mergeRepeats(std::move(layers));
        QCOMPARE(merged.size(), std::size_t(10));
        QCOMPARE(merged[0].name, std::string("a.max"));
        QCOMPARE(merged[0].repeat, 2);
        QCOMPARE(merged[4].name, std::string("c.max"));
        QCOMPARE(merged[4].repeat, 1);
        QCOMPARE(merged[8].repeat, 1);
        QCOMPARE(merged[9].repeat, 1);
    }
};

QTEST_APPLESS_MAIN(TestTransformerModels)
#include "tst_transformer_models.moc"
