#pragma once
// DNN workloads: the paper's evaluation models as lists of layers, each both a MAESTRO-typed layer
// (CONV / DSCONV / GEMM dimensions and strides, no dataflow) and an operator of our language,
// instantiated from `.loop` text templates through the operator parser (one source of truth).
//
// Built-in models (batch 1 for the CNNs, the original papers' layer shapes, conv layers only):
//   alexnet     5 CONV; the two-group layers as in MAESTRO's validation file (CONV2 C=48, CONV4/5
//               C=192, all K filters), strides/padding as the reference README: 665,784,864 MACs.
//   vgg16       13 CONV, 3x3 stride 1 with padding 1: 15,346,630,656 MACs.
//   resnet50    He et al. 2015 (Caffe release): stride 2 on the first 1x1 of stages 3-5 and on the
//               1x1 projections, 53 conv layers: 3,855,925,248 MACs (the paper's "3.8 GFLOPs";
//               torchvision's v1.5, stride on the 3x3, has 4.09 G).
//   mobilenetv2 Sandler et al. 2018, width 1.0, 224x224: the first 3x3 CONV, every expansion 1x1,
//               depth-wise 3x3 (DSCONV) and projection 1x1, and the last 1x1 (52 layers).
//   gemm        the paper's GEMM table (GNMT x4, DeepBench x2, Transformer x2, NCF x2), M x K times
//               K x N (K is the reduction), as in the SIGMA work the table comes from.
//   mlp-m, mlp-l  the Interstellar FC layers as GEMM with M = batch 128, N = output, K = input
//               channels. The table gives no batch for the MLPs; 128 is the batch its LSTM rows use.
//   lstm-m, lstm-l, rhn  one GEMM each: M = batch 128, N = E, K = 2E (E = 500, 1000, 1500).
// Transformers (core/workloads/transformer_models.h; every layer a loop nest of transformer.h, so
// softmax, the norms, the activations and the residual adds are costed with the matrix products):
//   bert-base, bert-base-512  BERT-base encoder: 12 blocks, width 768, 12 heads, FFN 3072, post-LN,
//               GELU; default sequence 128 (bert-base) or 512; prefill only. No pooler or task head.
//   gpt2        GPT-2 small: 12 blocks, 768, 12 heads, FFN 3072, pre-LN (ln_1, ln_2, final ln_f), GELU,
//               fused QKV (c_attn), LM head to the 50257-token vocabulary; default sequence 1024.
//   llama-7b    a Llama-style decoder with the issue's 7B shapes: 32 blocks, width 4096, 32 heads, 8 KV
//               heads (grouped-query attention), FFN 11008 (SwiGLU), RMSNorm, vocabulary 32000;
//               default sequence 4096. llama-7b-block: one block alone (no final norm, no LM head).
//   llama3-8b   Llama 3 8B: as llama-7b with FFN 14336, vocabulary 128256, default sequence 8192;
//               llama3-8b-block: one block.
//   SequenceOptions instantiate them: prefill (default) runs seqLen tokens per sequence (S = T =
//   seqLen); decode one new token per sequence attending to kvLen cached tokens (S = 1, T = kvLen, the
//   products GEMV-shaped with M = batch); batch B sequences (default 1). Unset, seqLen and kvLen take the
//   model's default sequence. Per block: projections M = B*S (GPT-2's fused c_attn N = 3 * width);
//   attention products Q*K^T (M = g*S, N = T, K = head width, batch B * KV heads; g query heads share
//   a KV head) and A*V (M = g*S, N = head width, K = T); softmax over B*heads*S rows of T; residual
//   adds and norms over B*S rows of the width. Embedding lookups are table reads, not compute: left out.
// Identical layers of a model (same type, sizes and strides, or the same operator for the layers that
// are not matrix products) are merged into the first one with a `repeat` count; totals multiply by it
// (so GPT-2's ln_f is counted in its first block's ln_1).
//
// Convolution sizes: the operator's Y, X are OUTPUT rows/cols; the MAESTRO layer's Y, X are INPUT
// rows/cols including padding, (Y_out - 1) * stride + (R - 1) * dilation + 1, with the stride and the
// dilation on Y and X.
//
// JSON model format (schema_version 1):
//   {"schema_version": 1, "name": "tiny",
//    "layers": [
//      {"name": "c1", "type": "CONV", "K": 16, "C": 3, "R": 3, "S": 3, "Y": 32, "X": 32, "stride": 1},
//      {"name": "dw", "type": "DSCONV", "C": 16, "R": 3, "S": 3, "Y": 16, "X": 16, "stride": 2},
//      {"name": "fc", "type": "GEMM", "M": 1, "N": 10, "K": 256},
//      {"name": "qk", "type": "ATTENTION", "M": 128, "N": 128, "K": 64, "repeat": 12},
//      {"name": "sm", "type": "SOFTMAX", "rows": 1536, "cols": 128},
//      {"name": "op", "operator_file": "ops/x.loop", "sizes": {"N": 64}}]}
// Y, X are output sizes; "stride" and "dilation" (default 1; written only when not 1) apply to both;
// a dilation d spreads the filter taps d apart (DeepLab's atrous convolutions); every layer may carry
// "repeat" (default 1). `operator_file` is relative to the JSON file; `sizes` overrides the operator's size
// parameters (each must exist). Unknown fields are errors; every error names the file and field.
// Transformers (core/workloads/transformer.h): "ATTENTION" is a product of two activations, M x K by
// K x N, its batch (sequences x heads) the "repeat"; "SOFTMAX", "LAYERNORM", "RMSNORM", "GELU", "SILU",
// "SWIGLU" (the gate), "RELU", "ADD" and "MUL" take "rows" (every leading dimension) and "cols" (the last;
// a norm's width), and one entry stands for all the layers of its operator (a softmax's NAME.max,
// NAME.exp, NAME.sum, NAME.div, each with the entry's repeat).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/operator.h"
#include "core/mdc/dataflow.h"
#include "core/util/diagnostic.h"

namespace marvel::workloads {

/// What a layer computes, as the model table, the JSON outputs and the exports name it. Convolutions and
/// matrix products multiply an activation by weights; an attention product multiplies two activations
/// produced at run time (Q·Kᵀ, A·V: a batched GEMM whose batch is the layer's repeat); the others are not
/// matrix products (softmax, normalisations, activation functions, element-wise arithmetic) and run one
/// statement per element on the PE array's lanes.
enum class LayerKind {
    Conv,
    Depthwise,
    Gemm,
    Attention,
    Softmax,
    Norm, ///< LayerNorm, RMSNorm
    Activation, ///< GELU, SiLU, ReLU, gates
    Elementwise, ///< residual add, element-wise product
    Operator, ///< an operator of the user's (a `.loop` file)
};
/// "conv", "dsconv", "gemm", "attention", "softmax", "norm", "activation", "elementwise", "operator".
const char* toString(LayerKind kind);
/// Whether the kind multiplies two operands and accumulates (conv, dsconv, gemm, attention).
bool isMatrixProduct(LayerKind kind);

/// How a model whose sizes depend on its use is instantiated (built-in transformers, ONNX files with
/// symbolic dimensions): unset fields take the model's defaults.
enum class Phase {
    Prefill, ///< the whole prompt at once: seqLen tokens per sequence
    Decode, ///< one new token per sequence, attending to kvLen cached tokens
};
/// "prefill", "decode".
const char* toString(Phase phase);
struct SequenceOptions
{
    std::optional<std::int64_t> seqLen; ///< tokens per sequence (prefill)
    std::optional<std::int64_t> batch; ///< sequences
    Phase phase = Phase::Prefill;
    std::optional<std::int64_t> kvLen; ///< cached tokens a decode step attends to
    bool empty() const { return !seqLen && !batch && !kvLen && phase == Phase::Prefill; }
    friend bool operator==(const SequenceOptions&, const SequenceOptions&) = default;
};

/// One layer: the MAESTRO view and the operator view of the same computation.
struct WorkloadLayer
{
    std::string name;
    mdc::Layer maestro; ///< CONV/DSCONV/GEMM dims and strides, no dataflow; type empty for a custom operator
    ir::Operator op; ///< the layer as an operator of our language
    int repeat = 1; ///< how many identical layers this entry stands for
    /// Why the layer cannot be used, each naming the file and the layer's line:col or field. Only a
    /// workload read with LayerErrors::Keep holds such layers (then `op` is empty); empty: usable.
    std::vector<Diagnostic> errors;
    /// The nodes of an imported model (ONNX) this layer stands for, after merging; empty otherwise.
    std::vector<std::string> sources{};
    /// What the layer computes; Operator for a layer built from `op` alone. Use effectiveKind().
    LayerKind kind = LayerKind::Operator;
    bool ok() const { return errors.empty(); }
    /// `kind`, or the MAESTRO type's kind (CONV, DSCONV, GEMM) for a layer whose kind was not set.
    LayerKind effectiveKind() const;
};

/// What a model reader does with a layer it cannot use (a missing dimension, an unsupported type, a
/// filter larger than its input...). Errors of the file as a whole (syntax, no layer) always throw.
enum class LayerErrors {
    Throw, ///< throw InputError with every bad layer's problems (nothing is returned)
    Keep, ///< keep each bad layer in its place with its `errors`, so that the good ones can still be used
};

/// A node of an imported model (ONNX) that is not a layer: its name and operator type.
struct SourceNode
{
    std::string name;
    std::string opType;
};

/// A model: its layers in execution order.
struct Workload
{
    std::string name;
    std::vector<WorkloadLayer> layers;
    /// Nodes of an imported model that no layer stands for (pooling, activations...), in file order, so
    /// that what was left out is always said. Empty for the other formats.
    std::vector<SourceNode> notMapped{};
    /// Remarks of an importer on how it mapped a node (an approximation, a folded shape), one a line.
    std::vector<std::string> notes{};
    /// Usable layers counted with their repeats.
    std::int64_t layerCount() const;
    /// MACs of all layers, with repeats (from the MAESTRO dims; the operator's own count for custom
    /// operators). The layers that are no matrix product (softmax, norms, activations, element-wise)
    /// multiply-accumulate nothing: their work is workloads::elementOps.
    std::int64_t totalMacs() const;
};

/// MACs of a MAESTRO layer: N*K*C*R*S*Y'*X' (CONV), N*C*R*S*Y'*X' (DSCONV), M*N*K (GEMM); 0 otherwise.
std::int64_t maestroMacs(const mdc::Layer& layer);
/// MACs of an operator: statement instances of its perfect nest (0 when it is not one).
std::int64_t operatorMacs(const ir::Operator& op);

/// Layer builders (Y, X are output sizes). A dilation d spreads the R x S taps d rows/columns apart: the
/// operator reads I[stride*y + d*r], and the MAESTRO view's input is (Y - 1) * stride + (R - 1) * d + 1.
WorkloadLayer convLayer(const std::string& name, std::int64_t K, std::int64_t C, std::int64_t Y,
    std::int64_t X, std::int64_t R, std::int64_t S, std::int64_t stride = 1, std::int64_t dilation = 1);
WorkloadLayer depthwiseLayer(const std::string& name, std::int64_t C, std::int64_t Y, std::int64_t X,
    std::int64_t R, std::int64_t S, std::int64_t stride = 1, std::int64_t dilation = 1);
WorkloadLayer gemmLayer(const std::string& name, std::int64_t M, std::int64_t N, std::int64_t K);

/// The `.loop` texts the builders parse.
std::string conv2dLoopText(std::int64_t K, std::int64_t C, std::int64_t Y, std::int64_t X, std::int64_t R,
    std::int64_t S, std::int64_t strideY, std::int64_t strideX, std::int64_t batch = 1,
    std::int64_t dilationY = 1, std::int64_t dilationX = 1);
std::string depthwiseLoopText(std::int64_t C, std::int64_t Y, std::int64_t X, std::int64_t R, std::int64_t S,
    std::int64_t strideY, std::int64_t strideX, std::int64_t batch = 1, std::int64_t dilationY = 1,
    std::int64_t dilationX = 1);
std::string gemmLoopText(std::int64_t M, std::int64_t N, std::int64_t K);

/// Lower-case names accepted by builtinWorkload().
std::vector<std::string> builtinWorkloadNames();
/// Whether loadWorkload() takes `nameOrPath` for a built-in workload (any case) rather than a file.
bool isBuiltinWorkloadName(std::string_view nameOrPath);
/// A built-in model by name (case-insensitive). Throws InputError for an unknown name, or for sequence
/// options a model does not take (a CNN has no sequence) or that are not positive.
Workload builtinWorkload(std::string_view name, const SequenceOptions& sequence = {});

/// A MAESTRO model or mapping file's CONV/DSCONV/GEMM layers as a workload (dataflows are kept in
/// `maestro` but ignored). Other layer types are errors naming the file and the layer's line.
Workload workloadFromNetwork(
    const mdc::Network& network, const std::string& fileName, LayerErrors mode = LayerErrors::Throw);
/// Parses the JSON model format; `baseDir` resolves `operator_file`.
Workload readWorkloadJson(std::string_view text, const std::string& fileName,
    const std::string& baseDir = ".", LayerErrors mode = LayerErrors::Throw);

/// A built-in name, or a path to a `.json` model or a MAESTRO `.m` model/mapping file, or a file of a
/// format registered with registerModelFileReader (`.onnx`, when the program links marvel_onnx).
/// `sequence` instantiates a transformer's sequence sizes (built-in LLMs, ONNX symbolic dimensions).
Workload loadWorkload(const std::string& nameOrPath, LayerErrors mode = LayerErrors::Throw,
    const SequenceOptions& sequence = {});

/// Reads a model file of a format core cannot read itself (ONNX needs protobuf, which core does not link).
using ModelFileReader
    = std::function<Workload(const std::string& path, LayerErrors mode, const SequenceOptions& sequence)>;
/// Makes loadWorkload read files ending in `extension` (lower case, with the dot) with `reader`,
/// replacing an earlier registration of the same extension. Programs register at start-up.
void registerModelFileReader(const std::string& extension, ModelFileReader reader);
/// Whether a reader for `extension` (lower case, with the dot) is registered.
bool hasModelFileReader(const std::string& extension);

/// The JSON model format of the layers of a workload built of CONV, DSCONV, GEMM, attention and
/// transformer operator layers (what an importer produces). Throws InputError naming `fileName` and the
/// layer for one the format cannot hold: a custom operator, a batch above 1, different strides (or
/// dilations) on Y and X, an operator whose parts are not together with one repeat.
std::string writeWorkloadJson(const Workload& workload, const std::string& fileName);

/// Whether two operators are the same computation: name, sizes and the nest's loops and statements as
/// written (a custom operator, or a transformer layer that is not a matrix product).
bool sameOperator(const ir::Operator& a, const ir::Operator& b);

/// Merges layers of the same kind with the same MAESTRO type, dims, strides and dilations (or, without a
/// MAESTRO type, the same operator: name, sizes, loops and statements) into the first, adding up
/// `repeat`. Layers with errors never merge.
std::vector<WorkloadLayer> mergeRepeats(std::vector<WorkloadLayer> layers);

} // namespace marvel::workloads
