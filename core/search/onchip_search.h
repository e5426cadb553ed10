#pragma once
// The on-chip mapping search (paper Algorithm 1) over level-2 orders, level-2 tiles and level-1 tiles,
// given the off-chip choice (level-3 tiles, order, layouts), plus an exhaustive mode that also
// enumerates the level-3 tiles and orders. Candidates go through the MDC transformation and a cost
// model supplied per thread; the result does not depend on the thread count.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/ir/operator.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/mdc/dataflow.h"
#include "core/search/constraint.h"
#include "core/search/pareto.h"

namespace marvel::search {

enum class Objective { Runtime, Energy, Edp };
/// "runtime", "energy", "edp".
std::string toString(Objective objective);
std::optional<Objective> objectiveFromString(const std::string& text);

/// Cost-model fidelity passed to the evaluator (the cost model's `maestro` and `corrected` modes).
enum class Fidelity { Maestro, Corrected };
std::string toString(Fidelity fidelity); ///< "maestro" or "corrected"
/// How a search in `fidelity` writes its mappings' strided tiles in MDC: as the cost model reading them
/// sizes them (mapping::StridedTiles).
mapping::StridedTiles stridedTiles(Fidelity fidelity);
std::optional<Fidelity> fidelityFromString(const std::string& text);

/// What the cost model reports for one mapping (the part the search uses).
struct Metrics
{
    std::int64_t runtime = 0; ///< cycles
    /// Energy units (MAC units, or pJ under a technology table): on-chip (MAESTRO's) and DRAM; what the
    /// energy and EDP objectives rank.
    double energy = 0.0;
    /// The parts of `energy`: MACs, L1 and L2 accesses, NoC sends, DRAM transfers (cost::Metrics).
    double macEnergy = 0.0, l1Energy = 0.0, l2Energy = 0.0, nocEnergy = 0.0, dramEnergy = 0.0;
    /// DRAM traffic of the layer: elements read into L2 and written back, and the bytes of their blocks.
    std::int64_t dramReads = 0, dramWrites = 0, dramReadBytes = 0, dramWriteBytes = 0;
    std::int64_t macs = 0;
    std::int64_t l1Requirement = 0; ///< elements per PE
    std::int64_t l2Requirement = 0; ///< elements
    double utilization = 0.0; ///< average busy PEs over the configured PEs, 0..1
    double edp() const { return static_cast<double>(runtime) * energy; }
    /// The figure `objective` ranks: cycles, energy or their product (lower is better).
    double value(Objective objective) const;
};

/// One cost model instance; the search makes one per thread and reuses it for every candidate.
class MappingEvaluator
{
public:
    virtual ~MappingEvaluator() = default;
    /// Metrics of the mapping written as `dataflow`; nullopt when the cost model rejects it.
    virtual std::optional<Metrics> evaluate(const mdc::Dataflow& dataflow) = 0;
    /// After evaluate() returned nullopt: whether the cost model evaluated the mapping but its figure
    /// was impossible (a runtime below the compute bound or a wrong MAC count: MAESTRO's undercount,
    /// doc/search.md "Impossible figures") rather than the mapping invalid.
    virtual bool lastImpossible() const { return false; }
    /// evaluate(), or nullopt with lastExceeded() true when the cost model's lower bound on the mapping's
    /// runtime already exceeds `runtimeCeiling` (doc/search.md, "Runtime bound"). By default no bound.
    virtual std::optional<Metrics> evaluateBelow(const mdc::Dataflow& dataflow, std::int64_t runtimeCeiling)
    {
        (void)runtimeCeiling;
        return evaluate(dataflow);
    }
    virtual bool lastExceeded() const { return false; }
};
using EvaluatorFactory = std::function<std::unique_ptr<MappingEvaluator>()>;

/// A tensor reference as the search needs it: per subscript, the loops it moves with and how fast.
struct SpaceTensor
{
    struct Term
    {
        int loop = 0;
        std::int64_t coefficient = 1;
    };
    std::string name;
    std::vector<std::vector<Term>> subscripts;
    bool written = false; ///< a statement writes the tensor (every reference to it says so)
};

/// The operator as the search sees it: loops (nest order, extents), the tensors for footprints, the
/// loops whose temporal tiles must cover the whole loop (MAESTRO's rule for filter rows/columns R, S:
/// they may be split only as the innermost parallel loop), the MAC count and the statement text.
struct LayerSpace
{
    std::string name;
    std::vector<mapping::MappedLoop> loops; ///< dim, iterator, extent (tiles ignored)
    std::vector<SpaceTensor> tensors;
    std::vector<bool> wholeLoops;
    /// Loops spread over the top MAESTRO level (mapping::Level2Form::TopSpatial): their level-3 tile is
    /// their level-2 tile, one row per PE (level-1 tile 1), at most the off-chip choice's level-3 tile;
    /// a tile of more than one row is evaluated only in that form. The search marks a strided window's
    /// output loop so in maestro fidelity, where no other form counts its MACs exactly. Empty: none.
    std::vector<bool> rowLoops;
    std::int64_t macs = 0;
    std::string body;

    /// Distinct elements of `tensor` one tile with the given per-loop sizes touches.
    std::int64_t footprint(const SpaceTensor& tensor, const std::vector<std::int64_t>& tile) const;
    std::int64_t totalFootprint(const std::vector<std::int64_t>& tile) const;
};

/// Builds the space of a perfect nest: loop names and extents, tensors from every reference of the
/// statements, and `wholeDims` (dimension names) as whole loops.
LayerSpace makeLayerSpace(
    const ir::PerfectNest& nest, const std::vector<std::string>& wholeDims, std::string name = {});

/// The off-chip part the on-chip search starts from (the decoupled search's first step).
struct OffChipChoice
{
    std::vector<std::int64_t> level3; ///< per loop
    std::vector<int> level3Order;
    std::vector<mapping::TensorLayout> layouts;
};

class OffChipCache;

/// One evaluated mapping.
struct Candidate
{
    std::uint64_t index = 0; ///< position in the enumeration, seeds first (ties go to the lower index)
    mapping::LoopNestMapping mapping;
    mdc::Dataflow dataflow;
    Metrics metrics;
};

/// The candidate's mapping with strided tiles written as output rows, the reading of corrected fidelity,
/// the simulator and the Timeloop export, whatever fidelity the search wrote `dataflow` in (`dataflow`
/// itself for a candidate without a loop nest).
mdc::Dataflow outputRowDataflow(const Candidate& candidate, const arch::Accelerator& acc);

/// The genetic search's settings (`--style genetic`, core/search/genetic.h): its random seed and budget.
/// The result is a function of the seed and the budget (not of the threads); a time limit is the search's
/// stop token (`--max-seconds`), which ends it with the generations finished.
struct GeneticOptions
{
    std::uint64_t seed = 1;
    std::uint64_t evaluations = 5'000; ///< cost-model evaluations at most (a repeated mapping is free)
    std::uint32_t population = 64;
};

/// The default SearchOptions::nearTie, 2e-5 (0.002 %, one cycle in 50,000): runtime differences this small
/// are far below anything that matters, while the energy among mappings that close can differ by 5-10 %
/// (VGG16 CONV2_1 on 256 PEs: the exact fastest at 108 KiB of L2 costs 8.81e9, 5 % more than at 64 KiB;
/// within 2e-5 it costs 7.92e9, the cheaper of the two). Small enough that `marvel bench gamma` keeps its
/// 34 of 34 (when it had 33, a 0.1 % margin lost three); doc/search.md, "Near ties".
inline constexpr double kDefaultNearTie = 2e-5;

struct SearchOptions
{
    Objective objective = Objective::Runtime;
    /// searchLayer only: relative margin of the objective within which the other metric picks the best
    /// mapping (runtime objective: energy; energy and EDP: runtime), among the Pareto front's mappings
    /// within (1 + nearTie) of its least (doc/search.md, "Near ties"). 0: the exact best of the objective
    /// (exact ties to the other metric). Default kDefaultNearTie.
    double nearTie = kDefaultNearTie;
    double peUtilizationBound = 0.1; ///< level-2 tiles must keep at least this fraction of the PEs busy
    /// Tile sizes divide the enclosing tile: no prologue/epilogue (searchLayer may still widen the
    /// search to other sizes, see widenWhenEmpty and widenAboveRoofline).
    bool divisorsOnly = true;
    /// Without divisorsOnly: every on-chip tile size, not only the smallest one per number of tiles
    /// (ceil(T / k), which includes the divisors); a far larger space, for experiments.
    bool everyTileSize = false;
    /// The cost model's per-PE L1 requirement (double buffered, bytes at the accelerator's word size)
    /// fits in L1; level-1 tiles whose double-buffered footprint alone exceeds it are not enumerated.
    bool l1Capacity = true;
    bool l2Capacity = true; ///< the cost model's L2 requirement fits in L2
    bool boundSkipping = true; ///< skip candidates whose exact lower bound cannot beat the incumbent
    bool exhaustive = false; ///< also enumerate level-3 tiles and orders (small operators only)
    unsigned threads = 0; ///< 0: std::thread::hardware_concurrency()
    Fidelity fidelity = Fidelity::Corrected;
    std::uint64_t batchSize
        = 1024; ///< candidates between incumbent updates (fixed: results stay deterministic)
    int progressIntervalMs = 100; ///< minimum time between progress callbacks
    std::uint64_t maxCandidates = 0; ///< 0: no limit; else the search stops after this many (reported)
    /// With maxCandidates 0 and divisorsOnly false: the candidates the search evaluates at most (0: no
    /// limit). The runtime bound usually proves the result well before (VGG16 layers on P1: under
    /// 450 000); the energy bound never does, so energy and EDP searches stop here (reported).
    std::uint64_t nonDivisorBudget = 1'000'000;
    /// Tile assignments one search holds (about 100 MB at the default); past it, an evenly spread
    /// sample of the enumeration is kept instead and the search reports itself truncated.
    std::uint64_t maxTileAssignments = 1'500'000;
    /// Nodes of the tile-assignment enumeration one search visits at most, pruned ones included (about
    /// 10 s), shared evenly by its level-3 choices. Sampling bounds the assignments kept but not the
    /// visits: without divisorsOnly a big layer's tree is far larger (MobileNetV2's 14x14 depth-wise
    /// layer on P1 did not finish in an hour). Past it that choice's enumeration stops and the search
    /// reports itself truncated; 0: no limit.
    std::uint64_t maxTileVisits = 100'000'000;
    /// searchLayer's attempts at an off-chip tile (all but its last) stop once this many mappings were
    /// evaluated and every one was refused for its L2 requirement alone: the tile is too big for the
    /// on-chip mappings the cost model counts, and the next attempt takes a smaller one rather than
    /// evaluate the whole space to learn it (MobileNetV2's strided conv1 on P1 in corrected fidelity:
    /// 380,000 mappings in 9 s for nothing). 0: every attempt searches its whole space.
    std::uint64_t offChipGiveUpAfter = 1024;
    /// The on-chip search's own limit, set by searchLayer from offChipGiveUpAfter for the attempts it can
    /// follow with a smaller tile (SearchResult::gaveUpOverL2); 0: never (searchOnChip's callers).
    std::uint64_t giveUpOverL2After = 0;
    /// Mappings found by an earlier search (the divisor-only one, for `divisorsOnly = false`) that start
    /// the incumbents and the Pareto front: they come first in candidate order, so the result is never
    /// worse than the best of them and ties keep them. Their metrics must come from the same cost model.
    std::vector<Candidate> seeds;
    /// Off-chip solutions shared between searches (the app's retuning, sweeps); null: solve every time.
    std::shared_ptr<OffChipCache> offChipCache;
    /// searchLayer only: when the divisor-only search finds no candidate at all (not one that overflows
    /// the buffers: the pruned space is empty), search again without divisorsOnly (SearchStats::widened).
    bool widenWhenEmpty = true;
    /// searchLayer only, runtime objective: when the divisor-only search's best runtime is above this
    /// multiple of the operator's roofline, the divisor tiles are a poor fit for the loop bounds
    /// (DeepBench2 on P1: 21.6x), so tile sizes that need not divide are searched as well, seeded with
    /// the divisor-only result and therefore never worse (SearchStats::widened); 0: never. (The energy
    /// and EDP bounds prune too little for that search to stay short.)
    double widenAboveRoofline = 2.0;
    /// Restricts the on-chip space (a mapping style's parallel loops and level-2 orders); empty: none.
    SearchConstraint constraint;
    /// searchLayer only: builds `constraint` from the operator's space (core/styles); null: keep it.
    std::function<SearchConstraint(const LayerSpace&)> constraintFor;
    GeneticOptions genetic; ///< the genetic search's (core/search/genetic.h)
    /// searchLayer only, without a constraint: after the decoupled search, the anytime refinement
    /// (core/search/refine.h): the genetic search with `genetic`'s seed and budget, then at most
    /// refineLocalEvaluations local moves from the best mapping found, then at most
    /// refineRearrangeEvaluations more to split the PE array anew between two loops and descend from there
    /// (localSearch); never worse than the decoupled result nor than the genetic search alone. false: the
    /// paper's decoupled search (with the widening).
    bool refine = true;
    std::uint64_t refineLocalEvaluations = 2'000;
    std::uint64_t refineRearrangeEvaluations = 500;
    /// searchLayer only: off-chip solutions the on-chip space is searched under (K, `--offchip-candidates`):
    /// after the decoupled search (and the refinement) under the distinct-block optimum, its tile with other
    /// loops innermost, then the optimum for an L2 budget just below the previous tile's footprint, each
    /// pass seeded with the result so far: bests and front never worse than K = 1's (doc/search.md,
    /// "Several off-chip solutions"). 1: one solution, as the paper; the default, because K = 2 changed
    /// nothing on the four CNNs for up to twice the time (measured there).
    static constexpr int kDefaultOffChipCandidates = 1;
    int offChipCandidates = kDefaultOffChipCandidates;
};

struct Progress
{
    std::uint64_t evaluated = 0;
    std::uint64_t skipped = 0; ///< by bounds or rejected by the cost model
    std::uint64_t candidates = 0; ///< candidates enumerated (after pruning)
    std::optional<Metrics> best; ///< best so far for the search objective
    double elapsedSeconds = 0.0;
    double etaSeconds = 0.0; ///< upper estimate: as if nothing more were skipped
};

/// One evaluated mapping as a live plot needs it: the numbers only, in candidate order. The mapping of
/// a front point arrives with onParetoUpdate; `index` links the two.
struct EvaluatedPoint
{
    std::uint64_t index = 0;
    std::int64_t runtime = 0; ///< cycles
    double energy = 0.0; ///< MAC units
    double utilization = 0.0; ///< 0..1
};

/// Receives progress and Pareto updates from the searching thread (never concurrently).
class SearchSink
{
public:
    virtual ~SearchSink() = default;
    virtual void onProgress(const Progress&) { }
    /// Every mapping of a batch that the cost model evaluated and that fits the buffers (when the
    /// capacity checks are on), after the batch; called only by searches that have a sink.
    virtual void onEvaluated(std::span<const EvaluatedPoint>) { }
    /// The whole current front after a batch that changed it.
    virtual void onParetoUpdate(std::span<const Candidate>) { }
};

/// Sizes of the search space (the paper's search-space table) and what the search did.
struct SearchStats
{
    double originalSpace = 0; ///< all level-1/2/3 tiles x level-2/3 orders (x layouts) of the operator
    double offChipSpace = 0; ///< level-3 tiles x level-3 orders x layouts
    double onChipSpace = 0; ///< level-2 orders x level-2 tiles x level-1 tiles under the chosen level-3 tile
    double onChipPruned = 0; ///< on-chip candidates left after pruning (order-equivalence included)
    std::uint64_t tiles = 0; ///< tile assignments after pruning
    std::uint64_t evaluated = 0;
    std::uint64_t boundSkipped = 0;
    std::uint64_t rejected = 0; ///< the cost model or the transformation refused
    /// Of `rejected`: evaluated, but the figure was impossible (MappingEvaluator::lastImpossible); the
    /// output says how many (`maestro-undercount`).
    std::uint64_t impossibleFigures = 0;
    std::uint64_t overL1 = 0; ///< evaluated, but the cost model's L1 requirement exceeds L1 (not kept)
    std::uint64_t overL2 = 0; ///< evaluated, but the cost model's L2 requirement exceeds L2 (not kept)
    /// Smallest requirements (bytes; L1 per PE) over every evaluated mapping, fitting or not: what the
    /// accelerator would need for the smallest mapping found; -1 when nothing was evaluated.
    std::int64_t minL1Bytes = -1;
    std::int64_t minL2Bytes = -1;
    std::uint64_t footprintPruned = 0; ///< partial tile assignments whose level-1 footprint exceeds L1
    /// Partial tile assignments whose runtime bound cannot beat the seeds' incumbent (not enumerated).
    std::uint64_t boundPrunedTiles = 0;
    int offChipAttempts = 1; ///< off-chip solutions tried (the L2 budget shrinks when nothing fits)
    std::uint64_t notRepresentable = 0; ///< would need more than 4 MAESTRO levels (pruned before)
    /// The divisor-only space held no candidate within the PE-utilisation bound (DeepBench2's
    /// 35 x 8457 x 2560 GEMM on 1024 PEs: 8457 = 3 x 2819) or only poor ones, so searchLayer searched
    /// tile sizes that need not divide as well (SearchOptions::widenWhenEmpty, widenAboveRoofline). The
    /// space sizes above and LayerSearchResult::sizes stay those of the divisor-only space.
    bool widened = false;
    bool refined = false; ///< the refinement stage ran after the decoupled search (SearchOptions::refine)
    /// Off-chip solutions whose on-chip space was searched (SearchOptions::offChipCandidates, fewer when
    /// the L2 holds fewer distinct tilings)
    int offChipSolutions = 1;
};

struct SearchResult
{
    std::optional<Candidate> bestRuntime, bestEnergy, bestEdp;
    std::vector<Candidate> pareto; ///< runtime ascending
    SearchStats stats;
    std::uint64_t evaluated = 0;
    double seconds = 0.0;
    bool cancelled = false;
    bool truncated = false; ///< maxCandidates or the tile-assignment limit reached: best of a part only
    bool gaveUpOverL2 = false; ///< SearchOptions::giveUpOverL2After: stopped, nothing can fit the L2
    /// Nothing evaluated fits the buffers (stats.minL1Bytes / minL2Bytes say what the smallest needs).
    bool notMappable() const { return !cancelled && !bestRuntime && (stats.overL1 > 0 || stats.overL2 > 0); }

    const std::optional<Candidate>& best(Objective objective) const;
};

/// Algorithm 1 on `space` under `offChip` (or, with options.exhaustive, over every level-3 choice too).
/// With divisorsOnly false and no seeds, the divisor-only search runs first and seeds the full one, so
/// the result is never worse than the divisor-only result (doc/search.md).
SearchResult searchOnChip(const LayerSpace& space, const OffChipChoice& offChip, const arch::Accelerator& acc,
    const SearchOptions& options, const EvaluatorFactory& evaluators, SearchSink* sink = nullptr,
    std::stop_token stop = {});

/// The largest SearchOptions::nearTie that `--near-tie`, projects and the app accept: past half again the
/// least value, the "best" of an objective would be little more than the other metric's best.
inline constexpr double kMaxNearTie = 0.5;

/// The best of `front` for `objective` with near ties broken by the other metric: among the mappings whose
/// objective is within (1 + nearTie) of the front's least, the one with the least energy (objective
/// runtime) or runtime (energy, EDP), then the lower objective, then the lower index. nullopt when `front`
/// is empty. The front holds every mapping this can choose: one that another beats on both is never it.
std::optional<Candidate> nearTieBest(
    const std::vector<Candidate>& front, Objective objective, double nearTie);

/// Sets the result's three bests to nearTieBest of its Pareto front (the final step of searchLayer, so
/// that the CLI, the app and the sweep report the same mappings). nearTie 0 leaves the search's exact
/// bests as they are.
void breakNearTies(SearchResult& result, double nearTie);

/// The mappings a later search starts from (SearchOptions::seeds): the three bests and the Pareto front.
std::vector<Candidate> seedsFrom(const SearchResult& result);

/// Counts an earlier pass that seeded `later` (its evaluations and time) into `later`.
void addSeedingPass(SearchResult& later, const SearchResult& earlier);

/// Exact lower bound on the runtime of any mapping with these tiles: the MACs over the PEs a level-2
/// tile keeps busy (each PE does at most `simdLanes` MACs per cycle).
std::int64_t runtimeLowerBound(std::int64_t macs, std::int64_t activePes, std::int64_t simdLanes);

/// Exact lower bound on the total energy of any mapping of the space that counts every MAC: the MACs'
/// energy and their L1 accesses (each input operand read, the partial sum read and written).
double energyLowerBound(const LayerSpace& space, const arch::Accelerator& acc);

} // namespace marvel::search
