#include "core/workloads/transformer_models.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "core/ir/parser.h"
#include "core/util/checked_math.h"
#include "core/workloads/transformer.h"

namespace marvel::workloads {

namespace {

using Family = TransformerConfig::Family;

[[noreturn]] void fail(const std::string& model, const std::string& message)
{
    throw InputError(Diagnostic{model, {}, "", message});
}

void append(std::vector<WorkloadLayer>& out, std::vector<WorkloadLayer> more)
{
    for (WorkloadLayer& l : more)
        out.push_back(std::move(l));
}

// The sizes one instantiation uses.
struct Shape
{
    std::int64_t batch = 1, query = 1, attended = 1; // B, S, T
};

Shape shapeOf(const TransformerConfig& c, const SequenceOptions& o)
{
    const auto positive = [&](const std::optional<std::int64_t>& v, const char* option) {
        if (v && *v < 1)
            fail(
                c.name, std::string(option) + " must be a positive integer (got " + std::to_string(*v) + ")");
    };
    positive(o.seqLen, "--seq-len");
    positive(o.batch, "--batch");
    positive(o.kvLen, "--kv-len");
    Shape s;
    s.batch = o.batch.value_or(1);
    if (o.phase == Phase::Prefill) {
        if (o.kvLen)
            fail(
                c.name, "--kv-len applies to --phase decode (a prefill attends to its own --seq-len tokens)");
        s.query = s.attended = o.seqLen.value_or(c.defaultSeqLen);
    } else {
        if (c.family == Family::Bert)
            fail(c.name,
                "--phase decode applies to decoders (gpt2, llama-*): " + c.name
                    + " is an encoder that reads its whole sequence at once");
        if (o.seqLen)
            fail(c.name,
                "--seq-len applies to --phase prefill (a decode step has one new token per sequence; "
                "--kv-len gives the cached tokens it attends to)");
        s.query = 1;
        s.attended = o.kvLen.value_or(c.defaultSeqLen);
    }
    // Every loop extent is a product of these (the largest: softmax's B*H*S rows, the FFN's B*S x F);
    // the attention products' batch B*Hkv (times the blocks) is a repeat count.
    const char* lengthOption = o.phase == Phase::Prefill ? "--seq-len" : "--kv-len";
    const std::int64_t length = o.phase == Phase::Prefill ? s.query : s.attended;
    const std::int64_t widest = std::max({c.width, c.ffn, c.vocab, c.heads});
    const std::int64_t extents[] = {saturatingMul(saturatingMul(s.batch, s.query), widest),
        saturatingMul(saturatingMul(s.batch, c.heads), s.query), s.attended};
    for (std::int64_t e : extents)
        if (e > ir::kMaxExtent)
            fail(c.name,
                std::string(lengthOption) + " " + std::to_string(length) + " with --batch "
                    + std::to_string(s.batch) + " makes a loop of " + std::to_string(e)
                    + " iterations, above the largest extent " + std::to_string(ir::kMaxExtent));
    // Q*K^T and A*V of every block may merge into one layer (when T equals the head width).
    if (saturatingMul(saturatingMul(s.batch, c.kvHeads), 2 * std::int64_t(c.blocks)) > INT_MAX)
        fail(c.name, "--batch " + std::to_string(s.batch) + " is too large for this model");
    return s;
}

// One block's layers, named PREFIX.part. Rows are the B*S tokens of the batch.
std::vector<WorkloadLayer> block(const TransformerConfig& c, const Shape& s, const std::string& prefix)
{
    const std::int64_t tokens = s.batch * s.query;
    const std::int64_t d = c.width / c.heads, g = c.heads / c.kvHeads, kv = c.kvHeads * d;
    const std::int64_t W = c.width;
    std::vector<WorkloadLayer> out;
    auto gemm = [&](const std::string& name, std::int64_t n, std::int64_t k) {
        out.push_back(gemmLayer(prefix + name, tokens, n, k));
    };
    // Attention: a KV head's g query heads share its keys and values, so each of the B*Hkv products
    // has g*S rows.
    auto attention = [&](const std::string& at) {
        out.push_back(
            attentionLayer(prefix + at + ".scores", g * s.query, s.attended, d, s.batch * c.kvHeads));
        append(out, softmaxLayers(prefix + at + ".softmax", s.batch * c.heads * s.query, s.attended));
        out.push_back(
            attentionLayer(prefix + at + ".context", g * s.query, d, s.attended, s.batch * c.kvHeads));
    };
    switch (c.family) {
    case Family::Bert:
        gemm("attention.query", W, W);
        gemm("attention.key", kv, W);
        gemm("attention.value", kv, W);
        attention("attention");
        gemm("attention.output", W, W);
        out.push_back(addLayer(prefix + "attention.residual", tokens, W));
        append(out, layerNormLayers(prefix + "attention.layernorm", tokens, W));
        gemm("intermediate", c.ffn, W);
        out.push_back(geluLayer(prefix + "intermediate.gelu", tokens, c.ffn));
        gemm("output", W, c.ffn);
        out.push_back(addLayer(prefix + "output.residual", tokens, W));
        append(out, layerNormLayers(prefix + "output.layernorm", tokens, W));
        break;
    case Family::Gpt2:
        append(out, layerNormLayers(prefix + "ln_1", tokens, W));
        gemm("attn.c_attn", W + 2 * kv, W);
        attention("attn");
        gemm("attn.c_proj", W, W);
        out.push_back(addLayer(prefix + "attn.residual", tokens, W));
        append(out, layerNormLayers(prefix + "ln_2", tokens, W));
        gemm("mlp.c_fc", c.ffn, W);
        out.push_back(geluLayer(prefix + "mlp.gelu", tokens, c.ffn));
        gemm("mlp.c_proj", W, c.ffn);
        out.push_back(addLayer(prefix + "mlp.residual", tokens, W));
        break;
    case Family::Llama:
        append(out, rmsNormLayers(prefix + "input_layernorm", tokens, W));
        gemm("self_attn.q_proj", W, W);
        gemm("self_attn.k_proj", kv, W);
        gemm("self_attn.v_proj", kv, W);
        attention("self_attn");
        gemm("self_attn.o_proj", W, W);
        out.push_back(addLayer(prefix + "self_attn.residual", tokens, W));
        append(out, rmsNormLayers(prefix + "post_attention_layernorm", tokens, W));
        gemm("mlp.gate_proj", c.ffn, W);
        gemm("mlp.up_proj", c.ffn, W);
        out.push_back(swigluGateLayer(prefix + "mlp.act", tokens, c.ffn));
        gemm("mlp.down_proj", W, c.ffn);
        out.push_back(addLayer(prefix + "mlp.residual", tokens, W));
        break;
    }
    return out;
}

TransformerConfig config(std::string name, Family family, int blocks, std::int64_t width, std::int64_t heads,
    std::int64_t kvHeads, std::int64_t ffn, std::int64_t vocab, std::int64_t seq, bool whole = true)
{
    return TransformerConfig{std::move(name), family, blocks, width, heads, kvHeads, ffn, vocab, seq, whole};
}

} // namespace

std::vector<TransformerConfig> builtinTransformerConfigs()
{
    // Published shapes: BERT-base (Devlin et al. 2019), GPT-2 small (Radford et al. 2019, the 124M
    // model), the Llama-7B shapes with 8 KV heads, and Llama 3 8B (Meta 2024), which has them.
    return {config("bert-base", Family::Bert, 12, 768, 12, 12, 3072, 0, 128),
        config("bert-base-512", Family::Bert, 12, 768, 12, 12, 3072, 0, 512),
        config("gpt2", Family::Gpt2, 12, 768, 12, 12, 3072, 50257, 1024),
        config("llama-7b", Family::Llama, 32, 4096, 32, 8, 11008, 32000, 4096),
        config("llama-7b-block", Family::Llama, 1, 4096, 32, 8, 11008, 32000, 4096, false),
        config("llama3-8b", Family::Llama, 32, 4096, 32, 8, 14336, 128256, 8192),
        config("llama3-8b-block", Family::Llama, 1, 4096, 32, 8, 14336, 128256, 8192, false)};
}

std::optional<TransformerConfig> findTransformerConfig(std::string_view name)
{
    std::string n(name);
    for (char& ch : n)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    for (TransformerConfig& c : builtinTransformerConfigs())
        if (c.name == n) return c;
    return std::nullopt;
}

Workload transformerWorkload(const TransformerConfig& c, const SequenceOptions& sequence)
{
    const Shape s = shapeOf(c, sequence);
    std::vector<WorkloadLayer> layers;
    const std::string blockName = c.family == Family::Bert ? "layer"
        : c.family == Family::Gpt2                         ? "h"
                                                           : "layers";
    for (int b = 0; b < c.blocks; ++b)
        append(layers, block(c, s, c.wholeModel ? blockName + "." + std::to_string(b) + "." : ""));
    if (c.wholeModel && c.family != Family::Bert) {
        const std::int64_t tokens = s.batch * s.query;
        append(layers,
            c.family == Family::Gpt2 ? layerNormLayers("ln_f", tokens, c.width)
                                     : rmsNormLayers("norm", tokens, c.width));
        layers.push_back(gemmLayer("lm_head", tokens, c.vocab, c.width));
    }
    return {c.name, mergeRepeats(std::move(layers))};
}

} // namespace marvel::workloads
