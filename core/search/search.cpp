#include "core/search/search.h"

#include <algorithm>
#include <optional>

#include "core/search/nest_util.h"
#include "core/search/offchip.h"
#include "core/search/refine.h"
#include "core/search/roofline.h"

namespace marvel::search {

PreparedLayer prepareLayer(const ir::Operator& op)
{
    std::optional<ir::PerfectNest> nest = ir::perfectNest(op);
    if (!nest) {
        Diagnostic d;
        d.file = op.file;
        d.loc = op.loc;
        d.message = "operator '" + op.name + "' is not a perfect loop nest (rule R1)";
        throw InputError(d);
    }
    PreparedLayer out;
    out.nest = std::move(*nest);
    out.problem = cost::fromOperator(op);
    out.space = makeLayerSpace(out.nest, wholeDimensions(out.problem), op.name);
    for (const cost::SlidingWindow& w : out.problem.windows)
        for (mapping::MappedLoop& l : out.space.loops) {
            if (l.dim != w.output) continue;
            l.windowStride = w.stride;
            // MAESTRO's Y = Y' + R - 1 holds for undilated windows only.
            if (w.dilation != 1) continue;
            l.windowReference = w.reference;
            l.windowSliding = w.sliding;
        }
    return out;
}

LayerSearchResult searchLayer(const ir::Operator& op, const arch::Accelerator& acc,
    const SearchOptions& options, SearchSink* sink, std::stop_token stop)
{
    if (auto problems = arch::validate(acc); !problems.empty()) throw InputError(std::move(problems));
    return searchLayer(op, prepareLayer(op), acc, options, sink, std::move(stop));
}

namespace {

/// A style's constraint (SearchOptions::constraintFor) on `space`, with the target tool's restrictions of
/// options.constraint (its filter and tile rules), which every style keeps to.
SearchConstraint styleConstraint(const SearchOptions& options, const LayerSpace& space)
{
    SearchConstraint c = options.constraintFor(space);
    c.dataflowFilter = options.constraint.dataflowFilter;
    c.tileRules = options.constraint.tileRules;
    c.expressibleIn = options.constraint.expressibleIn;
    c.expressibleSpace = options.constraint.expressibleSpace;
    return c;
}

/// Merges the on-chip search `r`, seeded with `o`'s result, into `o` (the statistics add up; the space
/// sizes stay the first search's, the paper's table).
void mergeSeededPass(SearchResult& o, SearchResult r)
{
    r.stats.evaluated += o.stats.evaluated;
    r.stats.boundSkipped += o.stats.boundSkipped;
    r.stats.rejected += o.stats.rejected;
    r.stats.impossibleFigures += o.stats.impossibleFigures;
    r.stats.overL1 += o.stats.overL1;
    r.stats.overL2 += o.stats.overL2;
    for (auto [theirs, mine] : {std::pair{&r.stats.minL1Bytes, o.stats.minL1Bytes},
             std::pair{&r.stats.minL2Bytes, o.stats.minL2Bytes}})
        if (mine >= 0 && (*theirs < 0 || mine < *theirs)) *theirs = mine;
    r.stats.tiles += o.stats.tiles;
    r.stats.footprintPruned += o.stats.footprintPruned;
    r.stats.boundPrunedTiles += o.stats.boundPrunedTiles;
    r.stats.notRepresentable += o.stats.notRepresentable;
    r.stats.originalSpace = o.stats.originalSpace;
    r.stats.offChipSpace = o.stats.offChipSpace;
    r.stats.onChipSpace = o.stats.onChipSpace;
    r.stats.onChipPruned = o.stats.onChipPruned;
    r.stats.offChipAttempts = o.stats.offChipAttempts;
    r.stats.widened = o.stats.widened;
    r.stats.refined = o.stats.refined;
    r.stats.offChipSolutions = o.stats.offChipSolutions + 1;
    r.evaluated += o.evaluated;
    r.seconds += o.seconds;
    r.truncated = r.truncated || o.truncated;
    o = std::move(r);
}

/// Several off-chip solutions (SearchOptions::offChipCandidates). The distinct-block model ranks level-3
/// tiles by DRAM blocks per iteration and sets the order by its derivatives, but the cost model's DRAM
/// traffic depends on which tensor the order keeps in L2 from step to step, and its runtime on the tile
/// shapes the PEs get. So after the search under the optimum `first`, the next solutions are (1) its tile
/// with each other loop that has several level-3 tiles moved innermost (in the order's own ranking: the
/// tensors it does not index stay in L2 across that loop), then (2) the optimum for an L2 budget one byte
/// below the previous tile's footprint (the staircase of least DRAM traffic against footprint: distinct
/// tilings with room for what the cost model's L2 requirement adds). The on-chip space under each is
/// searched seeded with the results so far (their bests and front come first: the merged result is never
/// worse than any pass, its front the union's). Every solution keeps the first one's DRAM layouts: a tensor
/// has one layout in DRAM, and one problem evaluates every mapping of the result.
void searchMoreOffChipSolutions(LayerSearchResult& out, const ir::Operator& op, const ir::PerfectNest& nest,
    const arch::Accelerator& acc, const SearchOptions& options, SearchSink* sink, std::stop_token stop)
{
    const OffChipSolution& first = out.offChipSolve->solution;
    arch::Accelerator budget = acc;
    budget.l2Bytes = out.offChipSolve->l2Budget;
    OffChipOptions offOptions = out.offChipSolve->options;
    offOptions.stop = stop;
    const EvaluatorFactory evaluators
        = costModelEvaluators(out.problem, acc, options.fidelity, options.constraint.dataflowFilter);
    int searched = 1;
    auto searchUnder = [&](const std::vector<std::int64_t>& tile, const std::vector<int>& order) {
        OffChipChoice choice;
        choice.level3 = tile;
        choice.level3Order = order;
        choice.layouts = out.offChip.layouts;
        SearchOptions seeded = options;
        seeded.seeds = seedsFrom(out.result);
        mergeSeededPass(out.result, searchOnChip(out.space, choice, acc, seeded, evaluators, sink, stop));
        ++searched;
        return !out.result.cancelled && searched < options.offChipCandidates;
    };
    // (1) The optimum's tile under other orders. Loops of one level-3 tile do not change the steps.
    const std::size_t n = first.tile.size();
    auto trips = [&](int loop) {
        const std::int64_t t = std::max<std::int64_t>(1, first.tile[std::size_t(loop)]);
        return (out.space.loops[std::size_t(loop)].extent + t - 1) / t;
    };
    std::vector<int> stepping; // loops with several level-3 tiles, innermost first
    for (std::size_t i = n; i-- > 0;)
        if (trips(first.order[i]) > 1) stepping.push_back(first.order[i]);
    for (std::size_t j = 1; j < stepping.size(); ++j) {
        std::vector<int> order = first.order;
        std::erase(order, stepping[j]);
        order.push_back(stepping[j]);
        if (!searchUnder(first.tile, order)) return;
    }
    // (2) The staircase of smaller footprints.
    OffChipSolution previous = first;
    for (;;) {
        budget.l2Bytes = previous.l2FootprintBytes - 1;
        if (budget.l2Bytes < budget.bytesPerElement) return;
        OffChipSolution next = options.offChipCache
            ? options.offChipCache->solve(nest, op.sizes, budget, offOptions)
            : solveOffChip(nest, op.sizes, budget, offOptions);
        if (next.cancelled) {
            out.result.cancelled = true;
            return;
        }
        if (!next.feasible || next.l2FootprintBytes >= previous.l2FootprintBytes) return;
        if (!searchUnder(next.tile, next.order)) return;
        previous = std::move(next);
    }
}

/// Whether the decoupled search's result is refined (refineLayer): a style's constraint describes the
/// decoupled search's space, which the refinement does not keep to.
bool refines(const SearchOptions& options)
{
    return options.refine && !options.constraintFor && options.constraint.empty();
}

/// The refinement's genetic stage, run before the first decoupled search once its problem (the off-chip
/// solution's DRAM layouts) is known, when the search is refined with a genetic budget.
using EarlyGenetic = std::optional<GeneticStage>;

/// One decoupled search of the space `options` describe (no divisor-only first pass). With `early` not
/// yet run, runs it first and seeds the search with its bests and front.
LayerSearchResult searchLayerOnce(const ir::Operator& op, const PreparedLayer& prepared,
    const arch::Accelerator& acc, const SearchOptions& options, SearchSink* sink, std::stop_token stop,
    EarlyGenetic* early)
{
    const ir::PerfectNest* nest = &prepared.nest;
    LayerSearchResult out;
    out.problem = prepared.problem;
    out.space = prepared.space;

    // A style's constraint is written in terms of this operator's loops.
    SearchOptions constrained = options;
    if (options.constraintFor) constrained.constraint = styleConstraint(options, out.space);

    OffChipOptions offOptions;
    offOptions.divisorsOnly = options.divisorsOnly;
    offOptions.everyTileSize = options.everyTileSize;
    if (options.fidelity == Fidelity::Maestro) {
        // MAESTRO sizes a level's output rows of a strided window as M[Y] - M[R] + 1, ignoring the
        // stride (spec section 4.1), and reports level 0's MAC count: it counts a strided window
        // exactly only when level 0 maps its output one row at a time (reference README, item 8). The
        // first strided output loop becomes a row loop, spread one row per PE over level 0 by the
        // TopSpatial form, so its level-3 tile is at most the PE count; the other strided outputs keep
        // level-3 tiles of one row. The evaluator still rejects any miscounted mapping. Under a
        // constraint the row loop is the first strided output it lets be parallel, if any.
        offOptions.maxTile.assign(nest->loops.size(), 0);
        out.space.rowLoops.assign(nest->loops.size(), false);
        std::vector<std::size_t> strided;
        for (std::size_t i = 0; i < nest->loops.size(); ++i)
            for (const cost::SlidingWindow& w : out.problem.windows)
                if (w.stride > 1 && nest->loops[i].dimName == w.output) {
                    strided.push_back(i);
                    break;
                }
        auto row = std::find_if(strided.begin(), strided.end(),
            [&](std::size_t i) { return constrained.constraint.allowsParallel(i); });
        if (row == strided.end() && !strided.empty()) row = strided.begin();
        for (std::size_t i : strided) {
            offOptions.maxTile[i] = i == *row ? std::max<std::int64_t>(1, acc.numPes) : 1;
            out.space.rowLoops[i] = i == *row;
        }
    }
    offOptions.stop = stop;
    // The off-chip solver sizes level-3 tiles by their distinct elements; the cost model's L2
    // requirement of a whole mapping can be larger (doc/search.md, "L2 capacity"). When no on-chip
    // mapping under the chosen tile fits, the solver runs again with the L2 budget scaled down by how
    // much the smallest mapping found overflowed, until one fits or no level-3 tile fits the budget.
    constexpr int kMaxOffChipAttempts = 8;
    arch::Accelerator budget = acc;
    OffChipSolution off;
    SearchResult abandoned; // the attempts given up: their evaluations and time are the search's too
    for (int attempt = 1;; ++attempt) {
        off = options.offChipCache ? options.offChipCache->solve(*nest, op.sizes, budget, offOptions)
                                   : solveOffChip(*nest, op.sizes, budget, offOptions);
        if (off.cancelled) {
            out.result.cancelled = true;
            return out;
        }
        if (!off.feasible) {
            if (attempt > 1) break; // the last search's result says why nothing fits
            Diagnostic d;
            d.file = op.file;
            d.loc = op.loc;
            d.message = "no level-3 tile of operator '" + op.name + "' fits in the L2 buffer ("
                + std::to_string(acc.l2Bytes) + " bytes)";
            throw InputError(d);
        }
        out.offChip = {};
        out.offChip.level3 = off.tile;
        out.offChip.level3Order = off.order;
        std::vector<cost::SubscriptLayout> dramLayouts;
        for (const TensorLayout& l : off.layouts) {
            out.offChip.layouts.push_back({l.tensor, l.dimOrder});
            dramLayouts.push_back({l.tensor, l.dimOrder});
        }
        // The cost model counts DRAM blocks under the off-chip solution's layouts.
        out.problem = prepared.problem;
        cost::setDramLayouts(out.problem, op, dramLayouts);
        if (early && !*early) {
            // The genetic stage's best bounds the decoupled search from its first tile: in corrected
            // fidelity it is far below the decoupled search's own (1.02 against 1.22 of the roofline on
            // ResNet-50 on P1), so the bound skips most tiles (doc/search.md, "Refinement").
            *early = geneticStage(out.space, acc, options,
                costModelEvaluators(out.problem, acc, options.fidelity, options.constraint.dataflowFilter),
                sink, stop);
            // Stopped during the stage: the decoupled search below returns at once, with the stage's bests.
            for (Candidate& c : seedsFrom((*early)->result)) {
                if (c.mapping.layouts.empty()) c.mapping.layouts = out.offChip.layouts;
                constrained.seeds.push_back(std::move(c));
            }
        }
        auto searchAttempt = [&](std::uint64_t giveUpAfter) {
            SearchOptions attemptOptions = constrained;
            attemptOptions.giveUpOverL2After = giveUpAfter;
            SearchResult r = searchOnChip(out.space, out.offChip, acc, attemptOptions,
                costModelEvaluators(out.problem, acc, options.fidelity, options.constraint.dataflowFilter),
                sink, stop);
            r.stats.offChipAttempts = attempt;
            return r;
        };
        out.result = searchAttempt(
            options.l2Capacity && attempt < kMaxOffChipAttempts ? options.offChipGiveUpAfter : 0);
        const SearchStats& st = out.result.stats;
        if (out.result.cancelled || out.result.bestRuntime || !options.l2Capacity || st.overL2 == 0
            || st.minL2Bytes <= acc.l2Bytes || attempt == kMaxOffChipAttempts)
            break;
        // Scale what the solver's tile takes of the budget, not the budget: when the tile left much of
        // the budget unused, scaling the budget would give the same tile again.
        const double shrink = static_cast<double>(acc.l2Bytes) / static_cast<double>(st.minL2Bytes);
        const std::int64_t used
            = off.l2FootprintBytes > 0 ? std::min(off.l2FootprintBytes, budget.l2Bytes) : budget.l2Bytes;
        const auto next = static_cast<std::int64_t>(static_cast<double>(used) * shrink);
        if (std::min(next, budget.l2Bytes - 1) < budget.bytesPerElement) {
            if (out.result.gaveUpOverL2) {
                // No smaller tile to try: this one's whole space decides after all.
                addSeedingPass(abandoned, out.result);
                out.result = searchAttempt(0);
            }
            break;
        }
        addSeedingPass(abandoned, out.result);
        budget.l2Bytes = std::min(next, budget.l2Bytes - 1);
    }
    addSeedingPass(out.result, abandoned);
    if (off.feasible) {
        out.offChipSolve = LayerSearchResult::OffChipSolve{off, budget.l2Bytes, offOptions};
        out.offChipSolve->options.stop = {}; // each use passes its own
    }
    SpaceSizeOptions sizeOptions;
    sizeOptions.divisorsOnly = options.divisorsOnly;
    sizeOptions.peUtilisationBound = options.peUtilizationBound;
    out.sizes = searchSpaceSizes(*nest, out.offChip.level3, acc, sizeOptions);
    SearchStats& s = out.result.stats;
    s.originalSpace = out.sizes.original;
    s.offChipSpace = out.sizes.offChip;
    s.onChipSpace = out.sizes.onChip;
    return out;
}

/// Whether a divisor-only result `r` is worth widening to tile sizes that need not divide: its pruned
/// space was empty, or (runtime objective) its best stays above the roofline bound, as happens when the
/// loop bounds have large prime factors; and some loop has such sizes at all (loops of at most four
/// iterations do not).
bool worthWidening(const ir::Operator& op, const PreparedLayer& prepared, const arch::Accelerator& acc,
    const SearchOptions& options, const SearchResult& r)
{
    const bool empty = !r.bestRuntime && !r.notMappable();
    // Only the runtime objective: the ratio is a runtime's, and the energy and EDP bounds prune little,
    // so their non-divisor searches run to SearchOptions::nonDivisorBudget (a minute on big layers).
    const bool poor = options.objective == Objective::Runtime && r.bestRuntime
        && options.widenAboveRoofline > 0
        && static_cast<double>(r.bestRuntime->metrics.runtime)
            > options.widenAboveRoofline * static_cast<double>(roofline(prepared.nest, op.sizes, acc).cycles);
    if (!(empty && options.widenWhenEmpty) && !poor) return false;
    return std::any_of(
        prepared.space.loops.begin(), prepared.space.loops.end(), [](const mapping::MappedLoop& l) {
            return tileSizes(l.extent, false, false) != tileSizes(l.extent, true, false);
        });
}

/// The divisor-only search, then (when asked for or worth it) the one over tile sizes that need not
/// divide, seeded with it.
LayerSearchResult searchLayerWidening(const ir::Operator& op, const PreparedLayer& prepared,
    const arch::Accelerator& acc, const SearchOptions& options, SearchSink* sink, std::stop_token stop,
    EarlyGenetic* early)
{
    // Without divisorsOnly the off-chip solution can differ from the divisor-only one, so its on-chip
    // space need not contain the divisor-only optimum: that search runs first and seeds this one, which
    // then never returns a worse mapping (searchOnChip does the same under each off-chip choice).
    SearchOptions divisors = options;
    divisors.divisorsOnly = true;
    LayerSearchResult first = searchLayerOnce(op, prepared, acc, divisors, sink, stop, early);
    const SearchResult& r = first.result;
    if (r.cancelled) return first;
    // Tile sizes that do not divide are all refused by a tool that counts a partial tile as a full one.
    if (options.constraint.tileRules.dividingTilesOnly) return first;
    // A divisor-only request that goes on is widened; a non-divisor one always goes on, seeded.
    const bool widened = options.divisorsOnly;
    if (widened && !worthWidening(op, prepared, acc, options, r)) return first;
    SearchOptions wider = options;
    wider.divisorsOnly = false;
    wider.seeds = seedsFrom(r);
    LayerSearchResult out = searchLayerOnce(op, prepared, acc, wider, sink, std::move(stop), early);
    addSeedingPass(out.result, r);
    if (widened) {
        // The search-space table describes the paper's (divisor-only) space; the widening is reported
        // beside it.
        out.sizes = first.sizes;
        out.result.stats.originalSpace = r.stats.originalSpace;
        out.result.stats.offChipSpace = r.stats.offChipSpace;
        out.result.stats.onChipSpace = r.stats.onChipSpace;
        out.result.stats.onChipPruned = r.stats.onChipPruned;
        out.result.stats.widened = true;
    }
    return out;
}

/// The refinement stage after the decoupled search (SearchOptions::refine): its bests and front replace
/// the decoupled ones (never worse), its evaluations and time are added.
void refineLayer(LayerSearchResult& out, const arch::Accelerator& acc, const SearchOptions& options,
    SearchSink* sink, std::stop_token stop, const EarlyGenetic& early)
{
    if (!refines(options) || out.result.cancelled) return;
    const EvaluatorFactory evaluators
        = costModelEvaluators(out.problem, acc, options.fidelity, options.constraint.dataflowFilter);
    SearchResult r = early ? refineSearch(out.space, acc, options, *early, out.result, evaluators, sink, stop)
                           : refineSearch(out.space, acc, options, out.result, evaluators, sink, stop);
    SearchResult& o = out.result;
    // The refinement's own mappings were evaluated with the problem's DRAM layouts, the off-chip
    // solution's: they say so, as the decoupled search's do.
    auto withLayouts = [&](std::optional<Candidate>& c) {
        if (c && c->mapping.layouts.empty()) c->mapping.layouts = out.offChip.layouts;
    };
    for (std::optional<Candidate>* c : {&r.bestRuntime, &r.bestEnergy, &r.bestEdp})
        withLayouts(*c);
    for (Candidate& c : r.pareto)
        if (c.mapping.layouts.empty()) c.mapping.layouts = out.offChip.layouts;
    o.bestRuntime = std::move(r.bestRuntime);
    o.bestEnergy = std::move(r.bestEnergy);
    o.bestEdp = std::move(r.bestEdp);
    o.pareto = std::move(r.pareto);
    o.evaluated += r.evaluated;
    o.seconds += r.seconds;
    o.cancelled = r.cancelled;
    // The statistics describe the decoupled search's space (the paper's table: candidates, evaluated,
    // skipped, rejected); what fits or overflows counts every mapping evaluated, for the report of a layer
    // that nothing fits.
    o.stats.overL1 += r.stats.overL1;
    o.stats.overL2 += r.stats.overL2;
    for (auto [mine, theirs] : {std::pair{&o.stats.minL1Bytes, r.stats.minL1Bytes},
             std::pair{&o.stats.minL2Bytes, r.stats.minL2Bytes}})
        if (theirs >= 0 && (*mine < 0 || theirs < *mine)) *mine = theirs;
    o.stats.refined = true;
}

LayerSearchResult searchLayerDecoupled(const ir::Operator& op, const PreparedLayer& prepared,
    const arch::Accelerator& acc, const SearchOptions& options, SearchSink* sink, std::stop_token stop,
    EarlyGenetic* early)
{
    if (!options.exhaustive)
        return searchLayerWidening(op, prepared, acc, options, sink, std::move(stop), early);
    // The exhaustive space holds every level-3 choice, the decoupled one's among them, but on a big
    // layer a limit or a stop cuts it short long before it gets there (MobileNetV2's b1_project on P2:
    // 1.95x the roofline after a minute, where the decoupled search finds 1.14x in a second). The
    // decoupled search runs first and seeds it, so that the larger space never gives a worse answer.
    SearchOptions decoupledOptions = options;
    decoupledOptions.exhaustive = false;
    LayerSearchResult decoupled = searchLayerWidening(op, prepared, acc, decoupledOptions, sink, stop, early);
    if (decoupled.result.cancelled) return decoupled;
    // The caller's seeds went into the decoupled search, whose bests and front now stand for them.
    SearchOptions exhaustiveOptions = options;
    exhaustiveOptions.seeds = seedsFrom(decoupled.result);
    LayerSearchResult out
        = searchLayerWidening(op, prepared, acc, exhaustiveOptions, sink, std::move(stop), early);
    addSeedingPass(out.result, decoupled.result);
    return out;
}

} // namespace

LayerSearchResult searchLayer(const ir::Operator& op, const PreparedLayer& prepared,
    const arch::Accelerator& array, const SearchOptions& options, SearchSink* sink, std::stop_token stop)
{
    if (auto problems = arch::validate(array); !problems.empty()) throw InputError(std::move(problems));
    // The vector unit's operators are searched on it: its lanes are the PEs their mappings spread over.
    const arch::Accelerator acc = cost::executionUnit(prepared.problem, array);
    EarlyGenetic early;
    const bool geneticFirst = refines(options) && options.genetic.evaluations > 0;
    LayerSearchResult out
        = searchLayerDecoupled(op, prepared, acc, options, sink, stop, geneticFirst ? &early : nullptr);
    refineLayer(out, acc, options, sink, stop, early);
    // The further off-chip solutions come last, seeded with everything before: the result (bests and
    // front) is never worse than the single-solution search's with the refinement, and their passes start
    // from its incumbent, which lets the bounds skip more.
    if (options.offChipCandidates > 1 && !options.exhaustive && out.offChipSolve && !out.result.cancelled) {
        SearchOptions constrained = options;
        if (options.constraintFor) constrained.constraint = styleConstraint(options, out.space);
        searchMoreOffChipSolutions(out, op, prepared.nest, acc, constrained, sink, std::move(stop));
    }
    // Last, over everything kept: the earlier passes seed each other with their exact bests and fronts.
    breakNearTies(out.result, options.nearTie);
    return out;
}

} // namespace marvel::search
