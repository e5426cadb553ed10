#include "core/search/refine.h"

#include <algorithm>
#include <chrono>

#include "core/search/genetic.h"
#include "core/search/mapping_pool.h"
#include "core/search/nest_util.h"

namespace marvel::search {

namespace {

using Clock = std::chrono::steady_clock;

/// The sizes a move may give a tile of `value` within [1, bound]: one more or less, and the smallest
/// size for each number of tiles of the bound (ceil(bound / k), every divisor among them: what matters
/// when sizes need not divide; about 2 sqrt(bound) of them). Ascending, without `value`.
std::vector<std::int64_t> sizesNear(std::int64_t value, std::int64_t bound)
{
    std::vector<std::int64_t> out = tileSizes(bound, false, false);
    out.push_back(value - 1);
    out.push_back(value + 1);
    std::erase_if(out, [&](std::int64_t v) { return v < 1 || v > bound || v == value; });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// Steps the busiest PE takes over one loop: for each level-3 tile, for each of its level-2 tiles, its PE
/// tile or what is left of it (a loop that is not parallel, T1 = T2, takes its extent). Their product
/// over the loops is the mapping's compute time without transfers.
double peSteps(std::int64_t extent, std::int64_t t3, std::int64_t t2, std::int64_t t1)
{
    auto inTile = [&](std::int64_t size) {
        return (size / t2) * std::min(t1, t2) + (size % t2 != 0 ? std::min(t1, size % t2) : 0);
    };
    return static_cast<double>((extent / t3) * inTile(t3) + (extent % t3 != 0 ? inTile(extent % t3) : 0));
}

/// The distinct values, ascending.
std::vector<std::int64_t> distinct(std::vector<std::int64_t> v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

class Neighbourhood
{
public:
    Neighbourhood(const LayerSpace& space, const arch::Accelerator& acc, Fidelity fidelity)
        : m_space(space)
        , m_acc(acc)
        , m_maestro(fidelity == Fidelity::Maestro)
    { }

    /// Every mapping one move away from `m` that the MDC transformation can write, in a fixed order.
    std::vector<mapping::LoopNestMapping> of(const mapping::LoopNestMapping& m) const
    {
        std::vector<mapping::LoopNestMapping> out;
        const std::size_t n = m.loops.size();
        auto add = [&](mapping::LoopNestMapping c) {
            if (!fix(c)) return;
            try {
                (void)mapping::toMdc(c, m_acc);
            } catch (const InputError&) {
                return;
            }
            out.push_back(std::move(c)); // the pool evaluates a repeat once
        };
        for (std::size_t i = 0; i < n; ++i) {
            const mapping::MappedLoop& l = m.loops[i];
            if (!whole(i))
                for (std::int64_t t : sizesNear(l.level3, l.extent)) {
                    mapping::LoopNestMapping c = m;
                    c.loops[i].level3 = t;
                    add(std::move(c));
                }
            // Level 2: with level 1 when the loop is not parallel (T1 = T2), alone when it is, including
            // the size that fills the PEs the other parallel loops leave.
            std::vector<std::int64_t> level2 = sizesNear(l.level2, l.level3);
            if (l.isParallel()) {
                const std::int64_t others = m.activePes() / l.parallelism();
                const std::int64_t fill
                    = std::min(l.level3, l.level1 * std::max<std::int64_t>(1, m_acc.numPes / others));
                if (fill != l.level2) level2.push_back(fill);
            }
            for (std::int64_t t : level2) {
                mapping::LoopNestMapping c = m;
                c.loops[i].level2 = t;
                if (!l.isParallel()) c.loops[i].level1 = t;
                add(std::move(c));
            }
            // Level 1: a parallel loop's PE tile, or a loop made parallel (its level-2 tile spread).
            for (std::int64_t t : sizesNear(l.level1, l.level2)) {
                if (!l.isParallel() && t > l.level1) continue;
                mapping::LoopNestMapping c = m;
                c.loops[i].level1 = t;
                add(std::move(c));
            }
        }
        for (std::size_t k = 0; k + 1 < n; ++k) {
            mapping::LoopNestMapping c = m;
            std::swap(c.level2Order[k], c.level2Order[k + 1]);
            add(std::move(c));
            c = m;
            std::swap(c.level3Order[k], c.level3Order[k + 1]);
            add(std::move(c));
        }
        for (mapping::Level2Form form :
            {mapping::Level2Form::Separate, mapping::Level2Form::Fused, mapping::Level2Form::TopSpatial})
            if (form != m.level2Form) {
                mapping::LoopNestMapping c = m;
                c.level2Form = form;
                add(std::move(c));
            }
        return out;
    }

    /// Up to `count` mappings that split the PE array anew between two loops, in the TopSpatial form the
    /// genetic search writes: `p` over clusters, `q` over the PEs of a cluster, every other loop on one
    /// PE with the PE tile it had. A single move changes one loop's parallelism, so it cannot go from 16
    /// x 10 PEs on two loops to 56 x 3 on two others: that takes several at once, through worse mappings
    /// (ResNet-50's res2a_branch2c on P1). For every ordered pair of loops (p not a whole loop) and
    /// cluster size c (each distinct N_PE / k): q keeps its PE tile (or spreads its level-2 tile over c
    /// PEs) or takes 1, and keeps its level-3 tile or rounds it to a multiple of what its c PEs take in
    /// one step; p keeps its PE tile or takes 1 or the size that covers it in one step of the clusters.
    /// Ranked by their compute time without transfers (peSteps; ties in that order), the first `count`
    /// that the MDC transformation can write and that differ from `m`.
    std::vector<mapping::LoopNestMapping> rearrangements(
        const mapping::LoopNestMapping& m, std::size_t count) const
    {
        struct Split
        {
            double steps;
            std::size_t p, q;
            std::int64_t c, p1, q1, q3;
        };
        const std::size_t n = m.loops.size();
        const std::int64_t pes = std::max<std::int64_t>(1, m_acc.numPes);
        std::vector<std::int64_t> clusterSizes;
        for (std::int64_t k = 1; k <= pes / 2; ++k) // largest first
            if (clusterSizes.empty() || clusterSizes.back() != pes / k) clusterSizes.push_back(pes / k);
        std::vector<Split> splits;
        for (std::size_t p = 0; p < n; ++p) {
            const mapping::MappedLoop& lp = m.loops[p];
            if (whole(p) || lp.extent < 2) continue;
            for (std::size_t q = 0; q < n; ++q) {
                const mapping::MappedLoop& lq = m.loops[q];
                if (q == p || lq.extent < 2) continue;
                double others = 1.0; // the other loops on one PE: their extents
                for (std::size_t i = 0; i < n; ++i)
                    if (i != p && i != q) others *= static_cast<double>(m.loops[i].extent);
                for (std::int64_t c : clusterSizes) {
                    const std::int64_t clusters = pes / c;
                    for (std::int64_t q1 :
                        distinct({lq.isParallel() ? lq.level1 : (lq.level2 + c - 1) / c, 1})) {
                        const std::int64_t span = q1 * c;
                        std::vector<std::int64_t> q3s{whole(q) ? lq.extent : lq.level3};
                        if (!whole(q)) {
                            if (lq.level3 >= span) q3s.push_back(lq.level3 / span * span);
                            q3s.push_back(std::min(lq.extent, (lq.level3 + span - 1) / span * span));
                        }
                        for (std::int64_t q3 : distinct(q3s)) {
                            const std::int64_t q2 = std::min(q3, span);
                            const std::int64_t inner = (q2 + q1 - 1) / q1;
                            if (inner < 2) continue;
                            const std::int64_t reach = std::max<std::int64_t>(1, pes / inner);
                            for (std::int64_t p1 : distinct({lp.isParallel() ? lp.level1 : lp.level2, 1,
                                     (lp.extent + clusters - 1) / clusters})) {
                                const std::int64_t p3 = std::min(lp.extent, p1 * reach);
                                if ((p3 + p1 - 1) / p1 < 2) continue;
                                splits.push_back(
                                    {others * peSteps(lp.extent, p3, p3, p1) * peSteps(lq.extent, q3, q2, q1),
                                        p, q, c, p1, q1, q3});
                            }
                        }
                    }
                }
            }
        }
        std::stable_sort(
            splits.begin(), splits.end(), [](const Split& a, const Split& b) { return a.steps < b.steps; });
        std::vector<mapping::LoopNestMapping> out;
        for (const Split& s : splits) {
            if (out.size() >= count) break;
            mapping::LoopNestMapping c = m;
            for (mapping::MappedLoop& l : c.loops)
                l.level2 = l.level1;
            mapping::MappedLoop& q = c.loops[s.q];
            q.level3 = s.q3;
            q.level1 = s.q1;
            q.level2 = std::min(q.level3, s.q1 * s.c);
            mapping::MappedLoop& p = c.loops[s.p];
            p.level1 = s.p1;
            p.level2 = p.level3 = p.extent; // fix() gives it one step over the clusters
            // The outer parallel loop comes first among the parallel loops of the level-2 order.
            auto at = [&](std::size_t loop) {
                return std::find(c.level2Order.begin(), c.level2Order.end(), static_cast<int>(loop));
            };
            if (at(s.q) < at(s.p)) std::iter_swap(at(s.q), at(s.p));
            c.level2Form = mapping::Level2Form::TopSpatial;
            if (!fix(c) || c == m || std::find(out.begin(), out.end(), c) != out.end()) continue;
            try {
                (void)mapping::toMdc(c, m_acc);
            } catch (const InputError&) {
                continue;
            }
            out.push_back(std::move(c));
        }
        return out;
    }

private:
    bool whole(std::size_t i) const { return i < m_space.wholeLoops.size() && m_space.wholeLoops[i]; }

    /// Restores the rules a move may break: T1 <= T2 <= T3 <= extent, whole loops whole, strided rows
    /// as MAESTRO counts them (maestro fidelity), and in the TopSpatial form the outer parallel loop's
    /// tiles derived from its level-1 tile as the genetic search writes them; false when the mapping
    /// needs more PEs than there are.
    bool fix(mapping::LoopNestMapping& c) const
    {
        for (std::size_t i = 0; i < c.loops.size(); ++i) {
            mapping::MappedLoop& l = c.loops[i];
            if (whole(i)) {
                l.level3 = l.extent;
                if (l.level1 == l.level2) l.level1 = l.extent;
                l.level2 = l.extent;
            }
            l.level3 = std::clamp<std::int64_t>(l.level3, 1, l.extent);
            l.level2 = std::clamp<std::int64_t>(l.level2, 1, l.level3);
            l.level1 = std::clamp<std::int64_t>(l.level1, 1, l.level2);
        }
        std::vector<int> parallel = c.parallelLoops();
        const bool topSpatial = c.level2Form == mapping::Level2Form::TopSpatial && parallel.size() >= 2;
        if (m_maestro)
            // MAESTRO counts a strided window's output rows exactly only when level 0 maps them one at a
            // time (the decoupled search's row loops, search.cpp): one row per cluster, else rows of one.
            for (std::size_t i = 0; i < c.loops.size(); ++i) {
                mapping::MappedLoop& l = c.loops[i];
                if (l.windowStride < 2) continue;
                l.level1 = 1;
                if (!topSpatial || static_cast<int>(i) != parallel.front()) l.level2 = l.level3 = 1;
            }
        parallel = c.parallelLoops();
        if (topSpatial && parallel.size() >= 2) {
            // The outer parallel loop gives each cluster its level-1 tile, and one spatial step covers
            // the clusters: its level-3 tile is its level-2 tile, as many tiles as the inner loops
            // leave clusters (as the genetic search writes it).
            mapping::MappedLoop& p = c.loops[static_cast<std::size_t>(parallel.front())];
            const std::int64_t inner = std::max<std::int64_t>(1, c.activePes() / p.parallelism());
            p.level2 = p.level3
                = std::min(p.extent, p.level1 * std::max<std::int64_t>(1, m_acc.numPes / inner));
        }
        return c.activePes() <= m_acc.numPes;
    }

    const LayerSpace& m_space;
    const arch::Accelerator& m_acc;
    bool m_maestro;
};

/// Up to `count` points of `front` spread evenly along it, its ends included, in its order.
std::vector<MappingPool::FootprintPoint> spreadAlong(
    const std::vector<MappingPool::FootprintPoint>& front, std::size_t count)
{
    if (front.size() <= count) return front;
    std::vector<MappingPool::FootprintPoint> out;
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(front[i * (front.size() - 1) / (count - 1)]);
    return out;
}

/// Steepest descent from each start among the neighbours that fit L1 and need no more L2 than the start,
/// at most `perStart` evaluations each. Decided on the objective and the L2 requirement alone, never on
/// the L2 capacity: the pool keeps what fits. False when stopped.
bool descendWithinFootprints(MappingPool& pool, const Neighbourhood& neighbourhood,
    const std::vector<MappingPool::FootprintPoint>& starts, std::uint64_t perStart,
    const std::stop_token& stop)
{
    for (const MappingPool::FootprintPoint& start : starts) {
        const std::uint64_t end = pool.evaluated() + perStart;
        mapping::LoopNestMapping current = start.mapping;
        Metrics metrics = start.metrics;
        while (pool.evaluated() < end) {
            const std::vector<mapping::LoopNestMapping> moves = neighbourhood.of(current);
            const std::vector<MappingPool::Outcome> outcomes
                = pool.evaluate(moves, end - pool.evaluated(), stop);
            if (stop.stop_requested()) return false;
            std::optional<std::size_t> next;
            for (std::size_t i = 0; i < moves.size(); ++i) {
                const MappingPool::Outcome& o = outcomes[i];
                if (!o.fitsL1() || o.metrics.l2Requirement > start.metrics.l2Requirement) continue;
                if (pool.ranksBefore(o.metrics, next ? outcomes[*next].metrics : metrics)) next = i;
            }
            if (!next) break;
            current = moves[*next];
            metrics = outcomes[*next].metrics;
        }
    }
    return true;
}

} // namespace

SearchResult localSearch(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const std::vector<Candidate>& seeds, std::uint64_t evaluations, const EvaluatorFactory& evaluators,
    SearchSink* sink, std::stop_token stop, const std::vector<MappingPool::FootprintPoint>& footprintStarts,
    std::uint64_t rearrangeEvaluations)
{
    const auto start = Clock::now();
    MappingPool pool(space, acc, options, evaluators, sink);
    pool.addSeeds(seeds);
    const Neighbourhood neighbourhood(space, acc, options.fidelity);
    bool cancelled = false;
    if (!footprintStarts.empty()) {
        // First, while the pool has evaluated nothing: what these descents visit then depends on nothing
        // the L2 size decides (the seeds are not remembered as evaluated).
        constexpr std::size_t kFootprintStarts = 8;
        const std::vector<MappingPool::FootprintPoint> spread
            = spreadAlong(footprintStarts, kFootprintStarts);
        cancelled
            = !descendWithinFootprints(pool, neighbourhood, spread, evaluations / 2 / spread.size(), stop);
    }
    // Steepest descent from `current` while the pool has evaluated fewer than `limit` mappings: the best
    // fitting neighbour, when it beats the current mapping (ties to the first in move order); none: a
    // local optimum, which it returns.
    auto descend = [&](Candidate current, std::uint64_t limit) {
        for (;;) {
            const std::vector<mapping::LoopNestMapping> moves = neighbourhood.of(current.mapping);
            const std::vector<MappingPool::Outcome> outcomes
                = pool.evaluate(moves, limit - pool.evaluated(), stop);
            if (stop.stop_requested()) {
                cancelled = true;
                break;
            }
            std::optional<std::size_t> next;
            for (std::size_t i = 0; i < moves.size(); ++i) {
                if (outcomes[i].status != MappingPool::Status::Fits) continue;
                if (pool.ranksBefore(outcomes[i].metrics, next ? outcomes[*next].metrics : current.metrics))
                    next = i;
            }
            if (!next || pool.evaluated() >= limit) break;
            current.mapping = moves[*next];
            current.metrics = outcomes[*next].metrics;
        }
        return current;
    };
    // Starts: the seeds by the objective, best first; the next one once a descent ends at a local
    // optimum, while the budget lasts.
    std::vector<Candidate> starts = seeds;
    std::stable_sort(starts.begin(), starts.end(),
        [&](const Candidate& a, const Candidate& b) { return pool.ranksBefore(a.metrics, b.metrics); });
    for (std::size_t s = 0; s < starts.size() && !cancelled && pool.evaluated() < evaluations; ++s)
        descend(starts[s], evaluations);
    // Last, with a budget of its own (so that everything before runs as without it): from the best
    // mapping, its best-ranked re-splits of the PE array (Neighbourhood::rearrangements), a descent from
    // the fittest of them, and again from the new best while that descent ends better than the best.
    constexpr std::size_t kRearrangements = 32;
    const std::uint64_t total = evaluations + rearrangeEvaluations;
    while (rearrangeEvaluations > 0 && !cancelled && pool.evaluated() < total && pool.best()) {
        const Candidate best = *pool.best();
        const std::vector<mapping::LoopNestMapping> moves
            = neighbourhood.rearrangements(best.mapping, kRearrangements);
        const std::vector<MappingPool::Outcome> outcomes
            = pool.evaluate(moves, total - pool.evaluated(), stop);
        if (stop.stop_requested()) {
            cancelled = true;
            break;
        }
        std::optional<std::size_t> fittest;
        for (std::size_t i = 0; i < moves.size(); ++i)
            if (outcomes[i].status == MappingPool::Status::Fits
                && (!fittest || pool.ranksBefore(outcomes[i].metrics, outcomes[*fittest].metrics)))
                fittest = i;
        if (!fittest) break;
        Candidate from;
        from.mapping = moves[*fittest];
        from.metrics = outcomes[*fittest].metrics;
        if (!pool.ranksBefore(descend(from, total).metrics, best.metrics)) break;
    }
    SearchResult r = pool.result();
    r.cancelled = cancelled;
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
}

namespace {

/// The local stage after the genetic one (`first`: the genetic stage's result, its bests and front those of
/// everything so far), started from its seeds and the genetic search's footprint front.
SearchResult refineFromGenetic(const LayerSpace& space, const arch::Accelerator& acc,
    const SearchOptions& options, const SearchResult& first,
    const std::vector<MappingPool::FootprintPoint>& footprintFront, const EvaluatorFactory& evaluators,
    SearchSink* sink, std::stop_token stop)
{
    if (first.cancelled || options.refineLocalEvaluations == 0) return first;
    SearchResult second = localSearch(space, acc, options, seedsFrom(first), options.refineLocalEvaluations,
        evaluators, sink, std::move(stop), footprintFront, options.refineRearrangeEvaluations);
    addSeedingPass(second, first);
    second.stats.rejected += first.stats.rejected;
    second.stats.overL1 += first.stats.overL1;
    second.stats.overL2 += first.stats.overL2;
    return second;
}

} // namespace

SearchResult refineSearch(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const SearchResult& decoupled, const EvaluatorFactory& evaluators, SearchSink* sink, std::stop_token stop)
{
    SearchOptions genetic = options;
    genetic.seeds = seedsFrom(decoupled);
    std::vector<MappingPool::FootprintPoint> footprintFront;
    SearchResult first = genetic.genetic.evaluations > 0
        ? searchGenetic(space, acc, genetic, evaluators, footprintFront, sink, stop)
        : SearchResult{};
    if (genetic.genetic.evaluations == 0) {
        // No genetic stage: the local one starts from the decoupled result itself.
        first.bestRuntime = decoupled.bestRuntime;
        first.bestEnergy = decoupled.bestEnergy;
        first.bestEdp = decoupled.bestEdp;
        first.pareto = decoupled.pareto;
    }
    return refineFromGenetic(space, acc, options, first, footprintFront, evaluators, sink, std::move(stop));
}

GeneticStage geneticStage(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const EvaluatorFactory& evaluators, SearchSink* sink, std::stop_token stop)
{
    GeneticStage stage;
    SearchOptions unseeded = options;
    unseeded.seeds.clear();
    stage.result
        = searchGenetic(space, acc, unseeded, evaluators, stage.footprintFront, sink, std::move(stop));
    return stage;
}

SearchResult refineSearch(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const GeneticStage& stage, const SearchResult& seededDecoupled, const EvaluatorFactory& evaluators,
    SearchSink* sink, std::stop_token stop)
{
    // The genetic stage's evaluations and time, with the bests and front of everything so far (the
    // decoupled search started from the stage's, so its own hold them).
    SearchResult first = stage.result;
    first.bestRuntime = seededDecoupled.bestRuntime;
    first.bestEnergy = seededDecoupled.bestEnergy;
    first.bestEdp = seededDecoupled.bestEdp;
    first.pareto = seededDecoupled.pareto;
    return refineFromGenetic(
        space, acc, options, first, stage.footprintFront, evaluators, sink, std::move(stop));
}

} // namespace marvel::search
