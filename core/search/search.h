#pragma once
// The decoupled off-chip/on-chip search of one operator (paper, "Mapping Space Exploration"): the
// distinct-block off-chip solution fixes the level-3 tiles, order and layouts, then Algorithm 1 explores
// the on-chip subspace with the MDC cost model. This is the API the CLI and the desktop app drive.

#include <stop_token>

#include "core/arch/accelerator.h"
#include "core/cost/costmodel.h"
#include "core/cost/problem.h"
#include "core/ir/operator.h"
#include "core/search/offchip.h"
#include "core/search/onchip_search.h"
#include "core/search/space_size.h"

namespace marvel::cost {
struct Metrics;
}

namespace marvel::search {

/// The search result of one operator with what is needed to report and export it.
struct LayerSearchResult
{
    SearchResult result;
    cost::Problem
        problem; ///< the cost model's view of the operator, with the off-chip solution's DRAM layouts
    LayerSpace space; ///< loops, tensors and whole loops the search used
    OffChipChoice offChip; ///< level-3 tiles, order and layouts from the off-chip search
    SearchSpaceSizes sizes; ///< the paper's search-space table row
    /// The off-chip solve the on-chip search ran under (its solution, L2 budget and options), from which
    /// searchLayer takes the further off-chip solutions (SearchOptions::offChipCandidates).
    struct OffChipSolve
    {
        OffChipSolution solution;
        std::int64_t l2Budget = 0;
        OffChipOptions options;
    };
    std::optional<OffChipSolve> offChipSolve;
};

/// What a search derives from the operator alone, whatever the accelerator: its perfect nest, the cost
/// model's problem and the search space. A sweep prepares each layer once for all its design points.
struct PreparedLayer
{
    ir::PerfectNest nest;
    cost::Problem problem;
    LayerSpace space;
};
/// Throws InputError when `op` has no perfect-nest form or the cost model cannot describe it.
PreparedLayer prepareLayer(const ir::Operator& op);

/// Searches `op` (conformable and perfectly nested; check conformability first) on `acc`; with
/// divisorsOnly false, after the divisor-only search, which seeds the larger one (never worse); then, with
/// options.refine and no style constraint, refines the result (core/search/refine.h: never worse). Throws
/// InputError when the operator has no perfect-nest form, the cost model cannot describe it, the
/// accelerator is invalid or not even the smallest level-3 tile fits in L2.
LayerSearchResult searchLayer(const ir::Operator& op, const arch::Accelerator& acc,
    const SearchOptions& options, SearchSink* sink = nullptr, std::stop_token stop = {});

/// The same search from `prepareLayer(op)`'s result (equal results; skips the preparation).
LayerSearchResult searchLayer(const ir::Operator& op, const PreparedLayer& prepared,
    const arch::Accelerator& acc, const SearchOptions& options, SearchSink* sink = nullptr,
    std::stop_token stop = {});

/// The search's figures of one cost-model evaluation (energy with DRAM, its parts, the DRAM traffic, the
/// buffer requirements, the PE utilisation of `numPes`).
Metrics toSearchMetrics(const cost::Metrics& m, std::int64_t numPes);

/// The cost model's options a search in `fidelity` evaluates with: re-evaluating what it returned with
/// them gives its figures.
cost::Options costOptions(Fidelity fidelity);

/// One cost::Evaluator per call, configured with `fidelity`: the search's evaluator factory. With `filter`,
/// each evaluator rejects the mappings its filter refuses (SearchConstraint::dataflowFilter).
EvaluatorFactory costModelEvaluators(const cost::Problem& problem, const arch::Accelerator& acc,
    Fidelity fidelity, const DataflowFilterFactory& filter = {});

/// Dimensions whose temporal maps MAESTRO requires to cover the whole dimension: the sliding
/// dimensions of the problem's windows (R and S of a convolution).
std::vector<std::string> wholeDimensions(const cost::Problem& problem);

} // namespace marvel::search
