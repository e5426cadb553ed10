#pragma once
// The layers of a transformer that the CNN builders do not cover (issue 35): attention products, whose two
// operands are activations produced at run time, and the operators that are not matrix products
// (softmax, LayerNorm, RMSNorm, GELU, SiLU, the SwiGLU gate, ReLU, residual adds, element-wise products).
//
// Each layer is a perfect nest of one statement of the operator language, so conformability, the search
// and the cost model treat it as any other operator; an operator with several reductions in sequence
// (softmax: a maximum, exponentials, a sum, a division) is several layers named NAME.part. Tensors are
// flattened to rows x columns: rows are every leading dimension (sequences x tokens [x heads]), columns
// the last one. Element operations (ir::Statement::operations: each + - * /, max, min and function call
// one, `+=` one more) per element: softmax 5 (max 1, exp 2, sum 1, div 1), LayerNorm 8 per element and 6
// per row, RMSNorm 4 per element and 3 per row, GELU 5, SiLU 2, SwiGLU gate 3, ReLU, add and product 1.

#include <cstdint>
#include <string>
#include <vector>

#include "core/workloads/workloads.h"

namespace marvel::workloads {

/// A batched product of two activations, C[m][n] += A[m][k] * B[k][n] for each of `batch` independent
/// matrices (Q·Kᵀ per head, A·V): the operator is one matrix's product and the batch its repeat; the
/// MAESTRO view is a GEMM. Kind Attention: both operands come from DRAM like any activation.
WorkloadLayer attentionLayer(
    const std::string& name, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch);

/// Softmax along the columns of a rows x cols matrix: NAME.max, NAME.exp, NAME.sum, NAME.div.
std::vector<WorkloadLayer> softmaxLayers(const std::string& name, std::int64_t rows, std::int64_t cols);
/// LayerNorm of rows of `width`: NAME.sum, NAME.sumsq, NAME.rstd (one value per row), NAME.normalize
/// (scale G and shift B per column).
std::vector<WorkloadLayer> layerNormLayers(const std::string& name, std::int64_t rows, std::int64_t width);
/// RMSNorm of rows of `width`: NAME.sumsq, NAME.rstd, NAME.normalize (scale G per column).
std::vector<WorkloadLayer> rmsNormLayers(const std::string& name, std::int64_t rows, std::int64_t width);

/// Element-wise layers of a rows x cols matrix.
WorkloadLayer geluLayer(const std::string& name, std::int64_t rows, std::int64_t cols);
WorkloadLayer siluLayer(const std::string& name, std::int64_t rows, std::int64_t cols);
/// SwiGLU's gate: silu(G) * U.
WorkloadLayer swigluGateLayer(const std::string& name, std::int64_t rows, std::int64_t cols);
WorkloadLayer reluLayer(const std::string& name, std::int64_t rows, std::int64_t cols);
/// The residual add A + B.
WorkloadLayer addLayer(const std::string& name, std::int64_t rows, std::int64_t cols);
/// The element-wise product A * B.
WorkloadLayer mulLayer(const std::string& name, std::int64_t rows, std::int64_t cols);

/// Element operations of one instance of a layer (without its repeat): statement instances times the
/// statements' operations; 0 for a layer without a perfect nest.
std::int64_t elementOps(const WorkloadLayer& layer);
std::int64_t elementOps(const ir::Operator& op);

} // namespace marvel::workloads
