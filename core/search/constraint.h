#pragma once
// A restriction of the on-chip mapping space: which loops may be spread over the PEs and which level-2
// orders are allowed. Mapping styles and past optimisers (core/styles) are written as such constraints
// and searched by the normal decoupled search, as the paper encodes them ("parallelization and loop
// order constraints on the on-chip mapping space").

#include <functional>
#include <string>
#include <vector>

#include "core/mapping/loop_nest_mapping.h"

namespace marvel::cost {
struct Problem;
}
namespace marvel::arch {
struct Accelerator;
}

namespace marvel::search {

/// A rule on whole mappings as MDC directives (a target tool's expressiveness: what Timeloop can take,
/// core/export/timeloop.h): one predicate per search thread, made for the layer's problem and accelerator.
using DataflowFilter = std::function<bool(const mdc::Dataflow&)>;
using DataflowFilterFactory = std::function<DataflowFilter(const cost::Problem&, const arch::Accelerator&)>;

/// Per-loop parallelism and level-2 order restrictions, by loop index of the searched space. An empty
/// constraint allows everything.
struct SearchConstraint
{
    /// Per loop: may it be parallel (level-2 tile over several level-1 tiles)? Empty: every loop.
    std::vector<bool> parallelAllowed;
    /// Allowed level-2 orders, as alternatives: an order is allowed when for some alternative every loop
    /// it marks (the loops indexing a tensor kept stationary) that has several level-2 iterations comes
    /// before (outside) every unmarked loop with several level-2 iterations, so the marked tensor's tile
    /// stays in place while the inner loops run. Loops with one level-2 iteration do not iterate and are
    /// ignored. Empty: every order.
    std::vector<std::vector<bool>> stationaryAlternatives;

    /// Mappings the search may return: the cost model's evaluator rejects a mapping the filter refuses, as an
    /// invalid one, on every search path (decoupled, refinement, genetic). Null: every mapping. Not part of
    /// empty(): the refinement keeps to it by itself.
    DataflowFilterFactory dataflowFilter;
    /// Tile shapes dataflowFilter refuses whatever the order and form, known from the tiles alone: the
    /// enumeration skips them rather than writing and filtering every candidate of theirs (a filter that
    /// refuses most of the space would otherwise cost the evaluations, and the bounds, which skip only
    /// behind an incumbent, skip little). Not part of empty(), as dataflowFilter.
    struct TileRules
    {
        int maxParallelLoops = 0; ///< loops spread over the PEs at most; 0: no limit of its own
        bool wholeLoopsUnsplit = false; ///< whole loops (filter rows, columns) neither split nor parallel
        /// Only tiles that divide their parent: no widening to other tile sizes (searchLayer).
        bool dividingTilesOnly = false;
    };
    TileRules tileRules;
    /// The tool whose expressible mappings dataflowFilter and tileRules keep to ("timeloop":
    /// timeloop::restrictSearch), which projects save; empty: none.
    std::string expressibleIn;
    /// Which of that tool's spaces ("narrow", "wide": timeloop::SearchSpace), which projects save too.
    std::string expressibleSpace;

    bool empty() const { return parallelAllowed.empty() && stationaryAlternatives.empty(); }
    bool allowsParallel(std::size_t loop) const
    {
        return parallelAllowed.empty() || (loop < parallelAllowed.size() && parallelAllowed[loop]);
    }
    /// Whether `level2Order` over `loops` (their level-2 iteration counts) is one of the allowed orders.
    bool allowsOrder(
        const std::vector<mapping::MappedLoop>& loops, const std::vector<int>& level2Order) const;
    /// Both rules on a complete mapping.
    bool allows(const mapping::LoopNestMapping& mapping) const;
};

} // namespace marvel::search
