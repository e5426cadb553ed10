#pragma once
// Hardware/mapping co-design (issue 34): the accelerator of a grid of designs (the axes of a design
// sweep, core/sweep) that minimises an objective over a whole workload within an area budget (and
// optionally a power budget), each design's layers mapped by the search `marvel sweep` runs for a point
// (sweep::Sweeper: the same search, the same off-chip cache shared between designs).
//
// Budgets. A design's area is analytic (the technology table's curves for its PEs, SIMD lanes, L1 and
// L2: tech::physical, the sweep CSV's area_mm2), as is its leakage power (power at zero activity), so
// designs over the area budget, or whose leakage alone exceeds the power budget, are rejected before any
// search. Average power (dynamic energy over the runtime plus leakage) is known only once searched: a
// searched design above the power budget is evaluated but not within budget.
//
// Search. Not a grid walk, and in two rungs (successive halving by layers). Rung 0 scores designs on
// the probe: the workload's heaviest layers (by roofline cycles on the base accelerator, times their
// repeat) that make up Options::probeShare of its roofline time. The designs within the area budget are
// sampled (half from the "maximal" ones, which no single step up of an axis keeps within the budget,
// where a runtime optimum lies; half uniformly), then evolved (tournament selection, uniform crossover
// of the axes' value indices, one-step mutations, repair into the budget), then the best designs'
// one-step neighbourhoods are searched until none improves (a pattern search on the axes' value grids).
// Rung 1 searches the rest of the layers of the designs best on the probe (Options::promote of them),
// reusing the probe's layer results; the best design is the best of those on the whole workload. When
// the probe is the whole workload (one layer, or probeShare 1) rung 0 searches every layer and rung 1
// has nothing to add. Every proposal is a design not proposed before; evaluations come in rounds of
// `Options::batch` designs, whose composition depends only on the seed and earlier rounds' results, so
// the result is the same on any number of threads or MPI ranks.
//
// Use from the app: check the workload's layers are conformable (as the sweep does), build a CoDesigner
// (it throws InputError on bad input, e.g. a budget nothing fits), then call run() on a worker thread
// with a std::stop_token, an onDesign callback (each evaluated design as its round completes, probe
// scores with `complete` false: plot them live against area, with the budget line at
// options().budget.areaMm2) and an onProgress callback (progress with an ETA); both are called on the
// thread that runs run(), never concurrently, so post them to the GUI thread. The result's best design's
// accelerator is CoDesigner::accelerator(best.point.index); a design the user clicks is
// accelerator(design.point.index). withinArea() and staticCost() give the area of every design before
// any search (e.g. to draw the grid's designs greyed out).

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/sweep/sweep.h"

namespace marvel::codesign {

/// What the co-design minimises over the whole workload: total runtime (cycles), total energy (pJ) or
/// their product; each layer's mapping is searched for the same objective (search::toString and
/// search::objectiveFromString name them "runtime", "energy", "edp").
using Objective = search::Objective;

/// The budgets a design must meet: area in mm^2 (required, positive), average power in mW (optional).
struct Budget
{
    double areaMm2 = 0.0;
    std::optional<double> powerMw;
};

/// How the co-design searches.
struct Options
{
    Objective objective = Objective::Runtime;
    Budget budget;
    std::uint64_t seed = 1;
    /// Most designs rung 0 scores (on the probe layers); 0: defaultMaxDesigns of the grid. The search may
    /// stop sooner, once neither evolution nor the neighbourhood search finds anything new to improve.
    std::size_t maxDesigns = 0;
    /// The share (0..1] of the workload's roofline time the probe layers make up; 1: every layer.
    double probeShare = 0.3;
    /// Designs rung 1 searches on the whole workload, the best on the probe first; 0: a sixth of
    /// maxDesigns, at least `batch`. Unused when the probe is the whole workload.
    std::size_t promote = 0;
    /// Designs per round (evaluated together, on the threads or ranks there are). Part of the
    /// algorithm: the result depends on it, not on the threads.
    std::size_t batch = 8;
    /// The inner search: options.search.objective is set from `objective`; threads and reuse as a sweep.
    sweep::SweepOptions sweep;
};
/// The default rung-0 budget: 6% of the grid, at least 12 designs (capped at the grid).
std::size_t defaultMaxDesigns(std::size_t gridSize);

/// A design's figures known before any search.
struct StaticCost
{
    double areaMm2 = 0.0;
    double leakageMw = 0.0; ///< the least power it can draw (power at zero activity)
};

/// One evaluated design.
struct Design
{
    /// Its grid index, parameters and figures: the whole workload's when `complete`, else the probe
    /// layers' sums (status "probe"; area as the design's).
    sweep::PointResult point;
    /// The objective (cycles, pJ, cycles x pJ) of `point`; infinity when the design failed (a layer fits
    /// no mapping).
    double objective = std::numeric_limits<double>::infinity();
    bool complete = true; ///< every layer searched (or one failed); else the probe layers only
    bool withinBudget = false; ///< complete, every layer mapped, area and power within the budgets
    std::size_t order = 0; ///< 0-based order of evaluation among the complete designs (or the probes)
    std::string phase; ///< "sample", "evolve", "refine", "promote" or "exhaustive"
};

/// Where a run is, for a progress line and its ETA.
struct Progress
{
    std::size_t layerSearches = 0; ///< layer searches so far (a design is one per layer)
    std::size_t plannedSearches = 0; ///< at most this many in all (the run may end sooner)
    std::size_t probed = 0, complete = 0; ///< designs scored on the probe, on the whole workload
    std::size_t withinArea = 0; ///< designs of the grid within the area (and leakage) budget
    std::size_t gridSize = 0;
    double elapsedSeconds = 0.0;
    double etaSeconds = 0.0; ///< to plannedSearches at this run's pace
    std::string phase;
    std::optional<Design> best; ///< the best complete design within budget so far
    std::optional<Design> bestProbe; ///< the best probe score so far (two rungs only)
};

/// A run's outcome.
struct Result
{
    std::vector<Design> designs; ///< every complete design, in evaluation order
    std::vector<Design> probes; ///< rung 0's probe scores (empty when the probe is the whole workload)
    std::optional<Design> best; ///< least objective within budget (ties: smaller area, lower index)
    /// The designs within budget no other beats on both objective and area, area ascending.
    std::vector<Design> front;
    std::size_t gridSize = 0, withinArea = 0;
    std::size_t probeLayers = 0, layers = 0; ///< layers on the probe, in the workload
    std::size_t layerSearches = 0; ///< layer searches run (cost: gridSize x layers for the whole grid)
    bool cancelled = false;
    /// CoDesigner::boundedExhaustive only: designs never searched because their roofline bound exceeds
    /// the best, designs dropped part-searched (their searched layers plus the others' bounds exceed
    /// it), and layer searches that came out below their roofline (0: every bound held, so the best is
    /// the exhaustive grid's).
    std::size_t ruledOutByBound = 0, stoppedByBound = 0, boundViolations = 0;
};

/// The designs of `withinBudget` no other beats on both objective and area, area ascending (areas equal
/// but for rounding count as one: sweep::sameArea).
std::vector<Design> frontOf(std::vector<const Design*> withinBudget);

/// One layer of one design point, the unit of evaluation.
struct Unit
{
    std::size_t index = 0; ///< grid index
    std::size_t layer = 0; ///< workload layer
};
/// Searches units, one outcome per unit in the same order; an empty optional for a unit not finished
/// because `stop` was requested. The default runs sweep::Sweeper::evaluateLayer on the sweep options'
/// threads; marvel-mpi hands the units to its ranks.
using UnitEvaluator = std::function<std::vector<std::optional<sweep::LayerOutcome>>(
    const std::vector<Unit>& units, std::stop_token stop)>;

/// A co-design problem: a workload, a grid of designs around a base accelerator with a technology
/// table, the budgets and the objective.
class CoDesigner
{
public:
    /// Throws InputError when the budgets are not positive, the base accelerator has no technology table
    /// (area and power would have no unit), a layer cannot be searched, or no design of the grid meets
    /// the budgets (the message gives the smallest design's area and leakage power).
    CoDesigner(sweep::Grid grid, workloads::Workload workload, Options options);
    ~CoDesigner();
    const sweep::Grid& grid() const;
    const Options& options() const { return m_options; }
    /// The sweeper that evaluates points (marvel-mpi's ranks evaluate with their own, built alike).
    const sweep::Sweeper& sweeper() const;
    /// Analytic area and leakage of grid point `index`.
    StaticCost staticCost(std::size_t index) const;
    /// The grid indices within the area budget and whose leakage is within the power budget, ascending.
    const std::vector<std::size_t>& withinArea() const { return m_within; }
    /// Grid point `index` as an accelerator (its technology's energies for its sizes), named after its
    /// parameters.
    arch::Accelerator accelerator(std::size_t index) const;
    /// The evaluation budget of rung 0: options().maxDesigns, or defaultMaxDesigns.
    std::size_t plannedDesigns() const;
    /// The probe's layers (workload indices, ascending); every layer when the probe is the workload.
    const std::vector<std::size_t>& probeLayers() const;
    /// The default evaluator: `units` on options().sweep.threads threads.
    std::vector<std::optional<sweep::LayerOutcome>> evaluateUnits(
        const std::vector<Unit>& units, std::stop_token stop = {}) const;

    /// The co-design search. `onDesign` gets each evaluated design, probe scores included (in
    /// evaluation order, a round at a time), `onProgress` the progress after each round; both on the calling
    /// thread. When stopped, returns what was evaluated with `cancelled` set. `evaluator`: how points are
    /// evaluated (default: this machine's threads).
    Result run(std::stop_token stop = {}, const std::function<void(const Design&)>& onDesign = {},
        const std::function<void(const Progress&)>& onProgress = {},
        const UnitEvaluator& evaluator = {}) const;

    /// Every design within the area budget, every layer searched (the exhaustive reference of `marvel
    /// bench codesign`); otherwise as run().
    Result exhaustive(std::stop_token stop = {}, const std::function<void(const Design&)>& onDesign = {},
        const std::function<void(const Progress&)>& onProgress = {},
        const UnitEvaluator& evaluator = {}) const;

    /// The exhaustive grid's best without searching every design (branch and bound). For the runtime
    /// objective a design takes at least the sum of its layers' roofline cycles
    /// (sweep::Sweeper::layerRoofline), so the designs within budget are searched in ascending order of
    /// that bound, the heaviest layers first, a design is dropped once its searched layers plus the
    /// others' bounds exceed the best so far, and the search ends at the first design whose bound exceeds
    /// it. The best is exhaustive()'s (ties included) when Result::boundViolations is 0; `designs` holds
    /// the designs searched whole, so the front is theirs. Other objectives have no such bound:
    /// exhaustive().
    Result boundedExhaustive(std::stop_token stop = {},
        const std::function<void(const Progress&)>& onProgress = {},
        const UnitEvaluator& evaluator = {}) const;

    /// A complete point as a design of this problem (objective and budgets applied); `order` and
    /// `phase` as given.
    Design judge(const sweep::PointResult& point, std::size_t order, std::string phase) const;
    /// Point `index` from its layers' outcomes (every layer in order, or up to a failed one).
    sweep::PointResult combine(std::size_t index, const std::vector<sweep::LayerOutcome>& layers) const;
    /// The best and the front of `designs` under this problem's budgets.
    void summarise(Result& result) const;

private:
    struct Impl;
    Options m_options;
    std::vector<std::size_t> m_within;
    std::unique_ptr<Impl> m_impl;
};

} // namespace marvel::codesign
