#pragma once
// ONNX models in (issues 24 and 35): the convolutions, matrix products and transformer operators of an
// ONNX graph as a workload, with every other node listed as not mapped. Shapes come from the file's value
// info, ONNX's shape inference and, where that leaves gaps behind shape arithmetic on statically known
// sizes (Shape/Gather/Div/Mul/Slice/Concat chains), a small constant folder over int64 tensors. Symbolic
// dimensions of the graph inputs: the first (the batch) takes `batch`, every other one `seqLen` (an
// error naming the dimension when it is not given: --seq-len). A decode step (--phase decode --kv-len L)
// is read from the same prefill graph at L tokens, each layer's token rows then one token's while the
// attention keeps attending to L (no KV-cache inputs needed).
//
// Mapping: Conv 2-D and 1-D (a 1-D convolution is a 2-D one with Y = R = 1); group 1 a CONV, group =
// input channels = output channels a DSCONV, any other group count one group's CONV with repeat =
// group. Gemm (transA/transB) a GEMM. MatMul of an activation and weights a GEMM: the leading
// dimensions of the left operand fold into M when the right one is a plain matrix (a fully connected
// layer on a sequence), else they are the batch, which becomes the repeat. MatMul of two activations
// (both computed at run time from a data input, like Q·Kᵀ and A·V) an attention layer, the broadcast
// leading dimensions its batch (= repeat). A bias Add after a MatMul belongs to its layer (its element
// operations are not counted, as a Gemm's C). Data inputs: the graph inputs that are no initializer and
// either come first or have a symbolic dimension (PyTorch's export_params=False turns the weights into
// graph inputs of fixed shape, listed after the data).
//
// The operators that are not matrix products become the layers of core/workloads/transformer.h, rows
// being every leading dimension of the tensor and columns the last: Softmax; LayerNormalization and its
// opset-13 form (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div [, Mul weight] [, Add bias]); RMSNorm
// (Pow, ReduceMean, Add, Sqrt, Div 1/x or Reciprocal, Mul [, Mul weight]); GELU (Gelu, or Div/Mul by
// sqrt 2, Erf, Add 1, Mul, Mul 0.5, or the tanh approximation: Mul c, x + 0.044715 x^3 (Pow or Mul),
// Tanh, Add 1, Mul, Mul 0.5); SiLU (Sigmoid, Mul) and the SwiGLU gate (SiLU times an activation);
// Relu; Add and Sub of activations an addition, Mul and Div a product. Nodes computed from weights and
// shapes alone, and the nodes that only move data (Reshape, Transpose, Gather, Concat, Slice, Cast...),
// are listed as not mapped; a node computing on activations that none of these models (MaxPool, Clip,
// BatchNormalization...) is listed too, and a note names it, as it is missing from the totals.
//
// Layers of identical shape and kind merge into the first with a repeat count and every source node's
// name (layers that differ only in their dilation stay apart). A dilated convolution keeps its R x S taps
// with the dilation on Y and X (mdc::LayerDim::dilation): the operator reads I[stride*y + dilation*r], so
// the cost model sees the wider input window it reads.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/workloads/workloads.h"

namespace marvel::onnx_import {

/// How to read a model.
struct ImportOptions
{
    std::int64_t batch = 1; ///< the size of a symbolic or missing batch (first) input dimension
    /// The size of every other symbolic input dimension (the sequence); none: such a dimension is an error.
    std::optional<std::int64_t> seqLen{};
    /// Decode: one step read from the prefill graph at kvLen tokens, each layer's token rows then one
    /// token's while the attention products and softmax keep attending to kvLen (no KV-cache inputs needed).
    workloads::Phase phase = workloads::Phase::Prefill;
    std::optional<std::int64_t> kvLen{}; ///< the cached tokens of a decode step (required with decode)
    /// Files above this size are refused before being read (protobuf's own limit is 2 GiB; an ONNX
    /// graph exported without its weights is tens of KB, with them up to a few hundred MB).
    std::uintmax_t maxFileBytes = std::uintmax_t(1) << 30;
};

/// Reads an ONNX file. Problems throw InputError naming `path` and the node (name, op type) or the
/// field; with LayerErrors::Keep a node that cannot be mapped becomes a layer holding its errors.
workloads::Workload importOnnxFile(const std::string& path, const ImportOptions& options = {},
    workloads::LayerErrors mode = workloads::LayerErrors::Throw);
/// The same for the bytes of a file already in memory (the fuzz target).
workloads::Workload importOnnx(std::string_view bytes, const std::string& fileName,
    const ImportOptions& options = {}, workloads::LayerErrors mode = workloads::LayerErrors::Throw);

/// Makes workloads::loadWorkload read `.onnx` files with these options (again: replaces them).
void registerOnnxReader(const ImportOptions& options = {});

/// The layer table `marvel import` prints: name, type (CONV, DSCONV, GEMM, ATTENTION, or the kind of the
/// other layers: SOFTMAX, NORM, ACTIVATION, ELEMENTWISE), dimensions (those operators' sizes), stride
/// (with the dilation, "1 d2", when not 1), repeat, source nodes.
std::string formatLayerTable(const workloads::Workload& workload);
/// The not-mapped nodes grouped by op type with their names, and the notes; `brief` gives one line of
/// counts per op type instead, and the note naming the computing nodes left out (what search and sweep
/// print).
std::string formatImportSummary(const workloads::Workload& workload, bool brief);

} // namespace marvel::onnx_import
