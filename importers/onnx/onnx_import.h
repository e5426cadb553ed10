#pragma once
// ONNX models in (issue 24): the convolutions, GEMMs and matrix products of an ONNX graph as a workload
// of CONV / DSCONV / GEMM layers, with every other node listed as not mapped. Shapes come from the
// file's value info, ONNX's shape inference and, where that leaves gaps behind shape arithmetic on
// statically known sizes (Shape/Gather/Div/Mul/Slice/Concat chains), a small constant folder over
// int64 tensors. A symbolic batch dimension takes `batch`.
//
// Mapping: Conv 2-D and 1-D (a 1-D convolution is a 2-D one with Y = R = 1); group 1 a CONV, group =
// input channels = output channels a DSCONV, any other group count one group's CONV with repeat =
// group. Gemm (transA/transB) a GEMM. MatMul a GEMM: the leading dimensions of the left operand fold
// into M when the right one is a plain matrix (a fully connected layer on a sequence), else they are
// the batch, which becomes the repeat. Layers of identical shape merge into the first with a repeat
// count and every source node's name (layers that differ only in their dilation stay apart). A dilated
// convolution keeps its R x S taps with the dilation on Y and X (mdc::LayerDim::dilation): the operator
// reads I[stride*y + dilation*r], so the cost model sees the wider input window it reads.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/workloads/workloads.h"

namespace marvel::onnx_import {

/// How to read a model.
struct ImportOptions
{
    std::int64_t batch = 1; ///< the size of a symbolic or missing batch (first) input dimension
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

/// The layer table `marvel import` prints: name, type, dimensions, stride (with the dilation, "1 d2", when
/// not 1), repeat, source nodes.
std::string formatLayerTable(const workloads::Workload& workload);
/// The not-mapped nodes grouped by op type with their names, and the notes; `brief` gives one line of
/// counts per op type instead (what search and sweep print).
std::string formatImportSummary(const workloads::Workload& workload, bool brief);

} // namespace marvel::onnx_import
