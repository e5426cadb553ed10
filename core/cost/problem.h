#pragma once
// The cost model's view of an operator: dimensions, tensors and the sliding windows that couple them.
// MAESTRO's layer types (CONV, DSCONV, NGCONV, GEMM) are instances, and so is any conformable operator
// of the operator language.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/mdc/dataflow.h"
#include "core/util/diagnostic.h"

namespace marvel::ir {
struct Operator;
struct Statement;
} // namespace marvel::ir

namespace marvel::cost {

/// One loop dimension with its level-0 extent. `stride` is the outer stride of a sliding-window
/// reference dimension (MAESTRO's `Stride { Y: 2 }`); 1 elsewhere.
struct ProblemDim
{
    std::string name;
    std::int64_t size = 1;
    std::int64_t stride = 1;
    bool declared = true; ///< written by the user (false: derived, such as MAESTRO's Y' from Y and R)
};

/// A tensor and the dimensions that index it, in order. Input-class tensors are read; the output is
/// accumulated. The output lists window output dimensions (Y', or Y of an operator) by their own name.
struct ProblemTensor
{
    enum class Role { Input, Output };
    std::string name;
    std::vector<std::string> dims;
    Role role = Role::Input;
    /// DRAM layout, for the DRAM block counts: the index into `dims` of the dimension contiguous in DRAM.
    /// kRowMajor: the last one; kNoContiguousDim: none of them (the contiguous subscript is a constant,
    /// so every element lies in a block of its own). setDramLayouts sets it from an off-chip solution.
    int dramInnermost = kRowMajor;
    static constexpr int kRowMajor = -1;
    static constexpr int kNoContiguousDim = -2;
    /// The index into `dims` of the contiguous dimension, or -1 when there is none.
    int contiguousDim() const
    {
        if (dramInnermost == kNoContiguousDim || dims.empty()) return -1;
        return dramInnermost == kRowMajor ? int(dims.size()) - 1 : dramInnermost;
    }
};

/// A sliding window `stride*out + dilation*sliding` read through the `reference` (input-space)
/// dimension: MAESTRO's (Y, R) pair with output Y'. Directives on `output` are rewritten to the
/// reference dimension (MAESTRO's Y' -> Y conversion).
struct SlidingWindow
{
    std::string reference;
    std::string sliding;
    std::string output;
    std::int64_t stride = 1;
    std::int64_t dilation = 1; ///< 1 in MAESTRO; other values follow the effective-window generalisation
};

/// A complete problem description: every dimension of the level-0 table (declared and derived), the
/// tensors (exactly one output) and the windows. `unrollOrder` is the order in which dimensions missing
/// from the user's level-0 directives are appended as full temporal maps (MAESTRO: byte-wise name order
/// of the input-class coupling union).
struct Problem
{
    std::string name;
    std::string type; ///< CONV, DSCONV, NGCONV, GEMM for MAESTRO layers; "OPERATOR" otherwise
    std::vector<ProblemDim> dims;
    std::vector<ProblemTensor> tensors;
    std::vector<SlidingWindow> windows;
    std::vector<std::string> unrollOrder;
    SourceLoc loc;
    std::string file;
    /// For an operator whose statement is not a multiply-accumulate (softmax, a norm, an activation...):
    /// its element operations per instance (at least 1), so that it runs on the accelerator's vector unit
    /// when it has one (executionUnit). 0: a matrix product, which runs on the PE array.
    std::int64_t vectorOps = 0;

    const ProblemDim* dim(std::string_view name) const;
    const ProblemTensor* output() const;
    /// Exact number of multiply-accumulates of the operator (true strided output extents).
    std::int64_t analyticMacs() const;
    /// Product of the declared sizes of the dimensions coupled to `tensor` (MAESTRO's "Num Total
    /// Input/Weight Pixels": declared dimensions only).
    std::int64_t declaredTensorElements(const ProblemTensor& tensor) const;
    /// Structural problems (unknown dimension names, no output, bad sizes), each naming the field.
    std::vector<Diagnostic> validate() const;
};

/// MAESTRO's layer semantics (spec §2.3): coupling table with and without batch N, derived Y'/X'
/// (or Y/X from declared Y'/X', with MAESTRO's stride quirk), overlap pairs (Y,R) and (X,S). A
/// dilation on Y or X (or Y', X'; mdc::LayerDim::dilation, 1 in every MAESTRO file) becomes the window's
/// dilation, and the derived sizes use the dilated window (R - 1) * dilation + 1 in place of R.
/// `withBatch` overrides the batch choice (MAESTRO fixes it per layer type by the first layer of that
/// type in a file); by default it follows whether the layer declares N.
/// Throws InputError naming the layer when the type is unsupported or a required dimension is missing.
Problem fromMaestroLayer(
    const mdc::Layer& layer, std::optional<bool> withBatch = std::nullopt, const std::string& fileName = {});

/// Problem::vectorOps of an operator whose nest holds `statement` alone.
std::int64_t vectorOpsOf(const ir::Statement& statement);

/// The accelerator `problem` runs on: `acc`'s vector unit (arch::vectorUnitView) for an operator that is
/// not a matrix product when `acc` has one, else `acc` itself. The search, the roofline, the cost model and
/// the simulator all evaluate on it, so that their figures agree.
arch::Accelerator executionUnit(const Problem& problem, const arch::Accelerator& acc);

/// Any conformable perfectly nested operator: tensors and couplings come from the subscripts.
/// A single-iterator subscript couples the loop's dimension (ir::LoopInfo::dimName); a subscript
/// `a*y + b*r` on an input tensor is a sliding window: output dimension of y, sliding dimension of r,
/// stride a, dilation b - unless r's extent is 1, which couples y's dimension like `a*y`. Directives then use
/// the loop dimension names (output rows stay `Y`). Throws InputError (file:line:col) for operators outside
/// this form.
Problem fromOperator(const ir::Operator& op);

/// One tensor's DRAM layout over the operator's subscripts (mapping::TensorLayout::subscriptOrder,
/// search::TensorLayout::dimOrder): the subscripts in memory order, the last one contiguous.
struct SubscriptLayout
{
    std::string tensor;
    std::vector<int> subscriptOrder;
};
/// Sets ProblemTensor::dramInnermost of `problem` (fromOperator(op)) from layouts over op's subscripts,
/// matched by tensor name (a layout of `I` applies to every reference of I); tensors without a layout
/// stay row-major. Layouts naming no tensor or a subscript out of range are ignored.
void setDramLayouts(Problem& problem, const ir::Operator& op, const std::vector<SubscriptLayout>& layouts);

/// A MAESTRO layer equivalent to `problem` mapped by `dataflow`, for export: CONV/DSCONV/GEMM when the
/// problem has that shape (directives on window outputs written as Y'/X', sizes input-centric with the
/// stride block; a window-free point-wise convolution, strided or not, as a CONV with R = S = 1 over its
/// subsampled input); nullopt when MAESTRO has no layer type for it.
std::optional<mdc::Layer> toMaestroLayer(const Problem& problem, const mdc::Dataflow& dataflow);

/// A mapped layer to export: its name, problem and dataflow.
struct NamedMapping
{
    std::string name;
    const Problem* problem = nullptr;
    const mdc::Dataflow* dataflow = nullptr;
    /// What the file's reader should know about the layer (an attention product written as one GEMM
    /// of a batch), written as a comment at the head of the file; empty: nothing.
    std::string note{};
};
/// The text of one MAESTRO mapping file (network `networkName`) holding every layer, which `marvel
/// evaluate` reads back to the same numbers. The operators that are not matrix products (Problem::
/// vectorOps: softmax, norms, activations) have no MAESTRO layer type: they are left out and named in a
/// comment at the head of the file. Throws InputError naming `fileName` for any other layer MAESTRO has no
/// layer type for, or when no layer is left.
std::string maestroMappingFile(
    const std::string& networkName, const std::vector<NamedMapping>& layers, const std::string& fileName);

} // namespace marvel::cost
