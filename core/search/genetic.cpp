#include "core/search/genetic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "core/search/mapping_pool.h"
#include "core/search/space_size.h"

namespace marvel::search {

namespace {

using Clock = std::chrono::steady_clock;

/// splitmix64: a small generator whose sequence is the same on every platform (the standard
/// distributions are not), so a seed gives the same search everywhere.
class Random
{
public:
    explicit Random(std::uint64_t seed)
        : m_state(seed)
    { }
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n), n >= 1.
    std::uint64_t below(std::uint64_t n)
    {
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
    }
    /// Uniform in [lo, hi].
    std::int64_t between(std::int64_t lo, std::int64_t hi)
    {
        return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return unit() < p; }

private:
    std::uint64_t m_state;
};

/// GAMMA's encoding of a two-level mapping. Level 0 spreads `par0` over the clusters: its tile there is
/// the tile one cluster gets; every other loop's level-0 tile is what L2 sends per step. Level 1 spreads
/// `par1` over the `cluster` PEs of a cluster; its tiles are those of one PE.
struct Genome
{
    std::vector<int> order0, order1; ///< loop indices, outermost first
    std::vector<std::int64_t> tile0, tile1;
    int par0 = 0, par1 = -1; ///< par1 -1: no parallel loop inside a cluster
    std::int64_t cluster = 1;
};

class Genetic
{
public:
    Genetic(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
        const EvaluatorFactory& evaluators, SearchSink* sink, std::stop_token stop)
        : m_space(space)
        , m_acc(acc)
        , m_options(options)
        , m_sink(sink)
        , m_stop(std::move(stop))
        , m_pool(space, acc, options, evaluators, sink)
        , m_random(options.genetic.seed)
        , m_maestro(options.fidelity == Fidelity::Maestro)
    {
        for (std::size_t i = 0; i < space.loops.size(); ++i) {
            if (space.loops[i].extent < 2) continue;
            m_inner.push_back(static_cast<int>(i));
            if (!whole(static_cast<int>(i))) m_outer.push_back(static_cast<int>(i));
        }
    }

    SearchResult run();
    const std::vector<MappingPool::FootprintPoint>& footprintFront() const { return m_pool.footprintFront(); }

private:
    struct Member
    {
        Genome genome;
        MappingPool::Outcome outcome;
        std::uint64_t born = 0; ///< creation order: the last tie-break
        /// Among the members that fit L1: 0 when no other ranks before it on the objective and needs at
        /// most as much L2 (non-dominated sorting, as in NSGA-II), 1 when only members of layer 0 do,
        /// and so on.
        std::size_t layer = 0;
    };

    bool whole(int loop) const
    {
        return static_cast<std::size_t>(loop) < m_space.wholeLoops.size()
            && m_space.wholeLoops[static_cast<std::size_t>(loop)];
    }
    std::int64_t extent(int loop) const { return m_space.loops[static_cast<std::size_t>(loop)].extent; }
    std::int64_t randomSize(std::int64_t bound);
    std::int64_t nudge(std::int64_t value, std::int64_t bound);
    std::int64_t randomCluster();
    Genome randomGenome();
    void repair(Genome& g) const;
    void mutate(Genome& g);
    Genome crossover(const Genome& a, const Genome& b);
    mapping::LoopNestMapping decode(const Genome& g) const;
    void assignLayers(std::vector<Member>& population) const;
    bool better(const Member& a, const Member& b, bool byLayers) const;
    void progress(bool force);

    const LayerSpace& m_space;
    const arch::Accelerator& m_acc;
    const SearchOptions& m_options;
    SearchSink* m_sink;
    std::stop_token m_stop;
    MappingPool m_pool;
    Random m_random;
    bool m_maestro;
    std::vector<int> m_outer; ///< loops that may spread over the clusters (not whole, extent > 1)
    std::vector<int> m_inner; ///< loops that may spread inside a cluster (extent > 1)
    Clock::time_point m_start, m_lastProgress;
};

std::int64_t Genetic::randomSize(std::int64_t bound)
{
    if (bound <= 1) return 1;
    // Log-uniform, so that small tiles (which fit the buffers) are as likely as large ones.
    const double v = std::exp(m_random.unit() * std::log(static_cast<double>(bound) + 1.0));
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(v), 1, bound);
}

std::int64_t Genetic::nudge(std::int64_t value, std::int64_t bound)
{
    switch (m_random.below(5)) {
    case 0:
        value -= 1;
        break;
    case 1:
        value += 1;
        break;
    case 2:
        value *= 2;
        break;
    case 3:
        value /= 2;
        break;
    default:
        return randomSize(bound);
    }
    return std::clamp<std::int64_t>(value, 1, std::max<std::int64_t>(1, bound));
}

std::int64_t Genetic::randomCluster()
{
    const std::int64_t pes = std::max<std::int64_t>(1, m_acc.numPes);
    // Half of the time a size that leaves no PE idle once the clusters are counted (pes / k clusters
    // of the size): GAMMA's best mappings fill the array (56 clusters of 3 PEs on 168).
    if (m_random.chance(0.5)) return std::max<std::int64_t>(1, pes / randomSize(pes));
    return randomSize(pes);
}

Genome Genetic::randomGenome()
{
    const int n = static_cast<int>(m_space.loops.size());
    Genome g;
    g.order0.resize(static_cast<std::size_t>(n));
    std::iota(g.order0.begin(), g.order0.end(), 0);
    g.order1 = g.order0;
    for (int i = n - 1; i > 0; --i) {
        std::swap(g.order0[static_cast<std::size_t>(i)],
            g.order0[static_cast<std::size_t>(m_random.below(static_cast<std::uint64_t>(i) + 1))]);
        std::swap(g.order1[static_cast<std::size_t>(i)],
            g.order1[static_cast<std::size_t>(m_random.below(static_cast<std::uint64_t>(i) + 1))]);
    }
    for (int i = 0; i < n; ++i) {
        g.tile0.push_back(randomSize(extent(i)));
        g.tile1.push_back(randomSize(g.tile0.back()));
    }
    g.par0 = m_outer.empty() ? 0 : m_outer[m_random.below(m_outer.size())];
    g.par1 = m_inner.empty() ? -1 : m_inner[m_random.below(m_inner.size())];
    g.cluster = randomCluster();
    repair(g);
    return g;
}

void Genetic::repair(Genome& g) const
{
    const std::size_t n = m_space.loops.size();
    for (std::size_t i = 0; i < n; ++i) {
        const int loop = static_cast<int>(i);
        g.tile0[i] = whole(loop) ? extent(loop) : std::clamp<std::int64_t>(g.tile0[i], 1, extent(loop));
        g.tile1[i] = std::clamp<std::int64_t>(g.tile1[i], 1, g.tile0[i]);
    }
    g.cluster = std::clamp<std::int64_t>(g.cluster, 1, std::max<std::int64_t>(1, m_acc.numPes));
    if (m_maestro)
        // MAESTRO counts a strided window's output rows exactly only when level 0 maps them one at a
        // time (the decoupled search's row loops, search.cpp): one row per cluster (the level-0 tile of
        // the loop spread over the clusters), else tiles of one row.
        for (std::size_t i = 0; i < n; ++i)
            if (m_space.loops[i].windowStride > 1) g.tile0[i] = g.tile1[i] = 1;
    if (g.par1 == g.par0) {
        // Two levels cannot spread the same loop: the inner level takes another one, if any.
        g.par1 = -1;
        for (int i : m_inner)
            if (i != g.par0) {
                g.par1 = i;
                break;
            }
    }
}

void Genetic::mutate(Genome& g)
{
    const std::size_t n = m_space.loops.size();
    // Tile sizes: GAMMA's most frequent mutation.
    do {
        const std::size_t i = m_random.below(n);
        if (m_random.chance(0.5))
            g.tile0[i] = nudge(g.tile0[i], extent(static_cast<int>(i)));
        else
            g.tile1[i] = nudge(g.tile1[i], g.tile0[i]);
    } while (m_random.chance(0.4));
    if (m_random.chance(0.2)) {
        // Swap two loops of one level's order.
        std::vector<int>& order = m_random.chance(0.5) ? g.order0 : g.order1;
        std::swap(order[m_random.below(n)], order[m_random.below(n)]);
    }
    if (m_random.chance(0.1)) {
        // Another parallel loop at one level (the two swap when they collide).
        if (m_random.chance(0.5) && !m_outer.empty()) {
            const int next = m_outer[m_random.below(m_outer.size())];
            if (next == g.par1) g.par1 = g.par0;
            g.par0 = next;
        } else if (!m_inner.empty()) {
            const int next = m_inner[m_random.below(m_inner.size())];
            if (next == g.par0 && !whole(g.par1) && g.par1 >= 0) g.par0 = g.par1;
            g.par1 = next;
        }
    }
    if (m_random.chance(0.2))
        g.cluster = m_random.chance(0.5) ? randomCluster()
                                         : nudge(g.cluster, std::max<std::int64_t>(1, m_acc.numPes));
    repair(g);
}

Genome Genetic::crossover(const Genome& a, const Genome& b)
{
    Genome c = a;
    // A loop's tiles travel together (its level-0 tile bounds its level-1 tile).
    for (std::size_t i = 0; i < c.tile0.size(); ++i)
        if (m_random.chance(0.5)) {
            c.tile0[i] = b.tile0[i];
            c.tile1[i] = b.tile1[i];
        }
    if (m_random.chance(0.5)) c.order0 = b.order0;
    if (m_random.chance(0.5)) c.order1 = b.order1;
    if (m_random.chance(0.5)) {
        c.par0 = b.par0;
        c.par1 = b.par1;
        c.cluster = b.cluster;
    }
    repair(c);
    return c;
}

mapping::LoopNestMapping Genetic::decode(const Genome& g) const
{
    mapping::LoopNestMapping m;
    m.loops = m_space.loops;
    const std::size_t n = m.loops.size();
    for (std::size_t i = 0; i < n; ++i) {
        mapping::MappedLoop& l = m.loops[i];
        l.level3 = g.tile0[i];
        l.level2 = l.level1 = whole(static_cast<int>(i)) ? l.extent : std::min(g.tile1[i], l.level3);
    }
    const std::int64_t pes = std::max<std::int64_t>(1, m_acc.numPes);
    // The inner parallel loop spreads its level-1 tiles over at most `cluster` PEs of its level-0 tile.
    std::int64_t inner = 1;
    if (g.par1 >= 0) {
        mapping::MappedLoop& q = m.loops[static_cast<std::size_t>(g.par1)];
        q.level1 = std::min(g.tile1[static_cast<std::size_t>(g.par1)], q.level3);
        q.level2 = std::min(q.level3, q.level1 * g.cluster);
        inner = q.parallelism();
        if (inner < 2) q.level2 = q.level1 = std::min(g.tile1[static_cast<std::size_t>(g.par1)], q.level3);
    }
    // The outer one gives each of the pes / inner clusters its level-0 tile; one spatial step covers
    // the clusters (its level-3 tile is its level-2 tile), the folds are its level-3 iterations.
    mapping::MappedLoop& p = m.loops[static_cast<std::size_t>(g.par0)];
    p.level1 = g.tile0[static_cast<std::size_t>(g.par0)];
    p.level2 = p.level3
        = std::min(p.extent, p.level1 * std::max<std::int64_t>(1, pes / std::max<std::int64_t>(1, inner)));
    m.level3Order = g.order0;
    m.level2Order = g.order1;
    const auto at = [&](int loop) { return std::find(m.level2Order.begin(), m.level2Order.end(), loop); };
    if (inner >= 2 && p.isParallel()) {
        // The outer parallel loop comes first among the parallel loops of the level-2 order.
        if (at(g.par1) < at(g.par0)) std::iter_swap(at(g.par1), at(g.par0));
        m.level2Form = mapping::Level2Form::TopSpatial;
        if (!mapping::topSpatialClusters(m, m_acc).empty()) return m;
    }
    // One parallel loop (or none): the paper's separate form, the fused one when it applies.
    m.level2Form
        = mapping::fusedFormApplies(m, &m_acc) ? mapping::Level2Form::Fused : mapping::Level2Form::Separate;
    return m;
}

void Genetic::assignLayers(std::vector<Member>& population) const
{
    std::vector<std::size_t> fitting;
    for (std::size_t i = 0; i < population.size(); ++i)
        if (population[i].outcome.fitsL1()) fitting.push_back(i);
    auto need = [&](std::size_t i) { return population[i].outcome.metrics.l2Requirement; };
    std::sort(fitting.begin(), fitting.end(), [&](std::size_t a, std::size_t b) {
        const Metrics& ma = population[a].outcome.metrics;
        const Metrics& mb = population[b].outcome.metrics;
        if (m_pool.ranksBefore(ma, mb)) return true;
        if (m_pool.ranksBefore(mb, ma)) return false;
        if (need(a) != need(b)) return need(a) < need(b);
        return population[a].born < population[b].born;
    });
    // In that order every member that beats one comes before it, so a member joins the first layer whose
    // smallest L2 need so far is above its own (none of that layer beats it, one of the layer before
    // does); those smallest needs ascend with the layer.
    std::vector<std::int64_t> smallestNeed;
    for (std::size_t i : fitting) {
        const auto at = std::upper_bound(smallestNeed.begin(), smallestNeed.end(), need(i));
        population[i].layer = static_cast<std::size_t>(at - smallestNeed.begin());
        if (at == smallestNeed.end())
            smallestNeed.push_back(need(i));
        else
            *at = need(i);
    }
}

bool Genetic::better(const Member& a, const Member& b, bool byLayers) const
{
    // Ranked without the L2 capacity, so that the search visits the same mappings under every L2 size
    // and a larger L2, under which every mapping that fitted the smaller one still fits and costs the
    // same, never gives a worse best (issue 21); the pool keeps only what fits L2. The mappings that fit
    // L1 come first: by the objective, ties as the pool breaks them (many mappings reach the same
    // runtime, the compute bound, and the population should hold the cheapest of them); `byLayers`, by
    // their layer of the objective against the L2 need first (assignLayers). Mappings over L1 rank
    // after them by how far they overflow it (a way towards fitting), refused ones last.
    auto rank = [](const MappingPool::Outcome& o) {
        switch (o.status) {
        case MappingPool::Status::Fits:
            return 0;
        case MappingPool::Status::OverCapacity:
            return o.l1Overflow > 0 ? 1 : 0;
        default:
            return 2;
        }
    };
    const int ra = rank(a.outcome), rb = rank(b.outcome);
    if (ra != rb) return ra < rb;
    if (ra == 0) {
        if (byLayers && a.layer != b.layer) return a.layer < b.layer;
        if (m_pool.ranksBefore(a.outcome.metrics, b.outcome.metrics)) return true;
        if (m_pool.ranksBefore(b.outcome.metrics, a.outcome.metrics)) return false;
    } else if (ra == 1 && a.outcome.l1Overflow != b.outcome.l1Overflow) {
        return a.outcome.l1Overflow < b.outcome.l1Overflow;
    }
    return a.born < b.born;
}

void Genetic::progress(bool force)
{
    if (!m_sink) return;
    const auto now = Clock::now();
    if (!force && now - m_lastProgress < std::chrono::milliseconds(m_options.progressIntervalMs)) return;
    m_lastProgress = now;
    Progress p;
    p.evaluated = m_pool.evaluated();
    p.candidates = m_options.genetic.evaluations;
    if (const Candidate* b = m_pool.best()) p.best = b->metrics;
    p.elapsedSeconds = std::chrono::duration<double>(now - m_start).count();
    const std::uint64_t budget = m_options.genetic.evaluations;
    p.etaSeconds = p.evaluated == 0 || p.evaluated >= budget
        ? 0.0
        : p.elapsedSeconds * static_cast<double>(budget - p.evaluated) / static_cast<double>(p.evaluated);
    m_sink->onProgress(p);
}

SearchResult Genetic::run()
{
    m_start = m_lastProgress = Clock::now();
    m_pool.addSeeds(m_options.seeds);
    const std::uint64_t budget = m_options.genetic.evaluations;
    const std::size_t size = std::max<std::size_t>(4, m_options.genetic.population);
    const std::size_t elite = std::max<std::size_t>(1, size / 4);
    bool cancelled = false;
    std::uint64_t born = 0;
    std::vector<Member> population;

    auto evaluate = [&](std::vector<Genome> genomes) {
        std::vector<mapping::LoopNestMapping> batch;
        for (const Genome& g : genomes)
            batch.push_back(decode(g));
        const std::uint64_t left = budget > m_pool.evaluated() ? budget - m_pool.evaluated() : 0;
        const std::uint64_t before = m_pool.evaluated();
        const std::vector<MappingPool::Outcome> outcomes = m_pool.evaluate(batch, left, m_stop);
        if (m_stop.stop_requested()) {
            cancelled = true;
            return std::uint64_t{0};
        }
        for (std::size_t i = 0; i < genomes.size(); ++i)
            if (outcomes[i].status != MappingPool::Status::NotEvaluated)
                population.push_back({std::move(genomes[i]), outcomes[i], born++});
        return m_pool.evaluated() - before;
    };
    if (!m_outer.empty()) {
        std::vector<Genome> first;
        for (std::size_t i = 0; i < size; ++i)
            first.push_back(randomGenome());
        evaluate(std::move(first));
    }
    int idle = 0; // generations in a row that evaluated nothing new: the reachable space is exhausted
    while (!cancelled && !population.empty() && m_pool.evaluated() < budget && idle < 32) {
        assignLayers(population);
        // One member per mapping (a repeat would only narrow the population). Half the survivors are the
        // best by the objective; the others the best of the rest by layers, which keeps mappings that
        // need little L2 beside the best ones: what fits a small L2 stays in the population although
        // the ranking does not know the L2 size (ranked by the objective alone, the population filled
        // with mappings too large for it and found worse fitting ones, 1.6% slower on VGG16 CONV2_1 on
        // the Eyeriss-like preset with DRAM). The best by the objective come first, for the tournaments.
        std::vector<Member> survivors;
        std::unordered_set<std::uint64_t> kept;
        for (bool byLayers : {false, true}) {
            std::stable_sort(population.begin(), population.end(),
                [&](const Member& a, const Member& b) { return better(a, b, byLayers); });
            const std::size_t until = byLayers ? size : size / 2;
            for (Member& m : population) {
                if (survivors.size() >= until) break;
                if (kept.insert(m.outcome.index).second) survivors.push_back(m);
            }
        }
        population = std::move(survivors);
        // Parents by tournament of two; the elite also survive unchanged into the next round.
        auto parent = [&]() -> const Genome& {
            const std::size_t a = m_random.below(population.size());
            const std::size_t b = m_random.below(population.size());
            return population[std::min(a, b)].genome; // sorted: the lower index is the better one
        };
        std::vector<Genome> children;
        for (std::size_t i = elite; i < size + elite; ++i) {
            Genome child;
            if (m_random.chance(0.7)) {
                // Drawn one statement at a time: the order in which a call's arguments are evaluated is
                // unspecified (GCC and clang differ), and a seed must give the same mappings whichever
                // compiler built the search. The second parent first, as GCC's builds always drew them.
                const Genome& second = parent();
                const Genome& first = parent();
                child = crossover(first, second);
            } else {
                child = parent();
            }
            mutate(child);
            children.push_back(std::move(child));
        }
        idle = evaluate(std::move(children)) == 0 ? idle + 1 : 0;
        progress(false);
    }
    SearchResult result = m_pool.result();
    result.cancelled = cancelled;
    result.seconds = std::chrono::duration<double>(Clock::now() - m_start).count();
    progress(true);
    return result;
}

} // namespace

SearchResult searchGenetic(const LayerSpace& space, const arch::Accelerator& acc,
    const SearchOptions& options, const EvaluatorFactory& evaluators, SearchSink* sink, std::stop_token stop)
{
    return Genetic(space, acc, options, evaluators, sink, std::move(stop)).run();
}

SearchResult searchGenetic(const LayerSpace& space, const arch::Accelerator& acc,
    const SearchOptions& options, const EvaluatorFactory& evaluators,
    std::vector<MappingPool::FootprintPoint>& footprintFront, SearchSink* sink, std::stop_token stop)
{
    Genetic genetic(space, acc, options, evaluators, sink, std::move(stop));
    SearchResult r = genetic.run();
    footprintFront = genetic.footprintFront();
    return r;
}

LayerSearchResult searchLayerGenetic(const ir::Operator& op, const arch::Accelerator& acc,
    const SearchOptions& options, SearchSink* sink, std::stop_token stop)
{
    if (auto problems = arch::validate(acc); !problems.empty()) throw InputError(std::move(problems));
    const PreparedLayer prepared = prepareLayer(op);
    LayerSearchResult out;
    out.problem = prepared.problem;
    out.space = prepared.space;
    out.result = searchGenetic(out.space, acc, options,
        costModelEvaluators(out.problem, acc, options.fidelity, options.constraint.dataflowFilter), sink,
        std::move(stop));
    std::vector<std::int64_t> level3 = loopExtents(prepared.nest);
    if (const std::optional<Candidate>& best = out.result.bestRuntime) {
        level3.clear();
        for (const mapping::MappedLoop& l : best->mapping.loops)
            level3.push_back(l.level3);
        out.offChip.level3 = level3;
        out.offChip.level3Order = best->mapping.level3Order;
        out.offChip.layouts = best->mapping.layouts;
    }
    SpaceSizeOptions sizeOptions;
    sizeOptions.divisorsOnly = false;
    sizeOptions.peUtilisationBound = 0;
    out.sizes = searchSpaceSizes(prepared.nest, level3, acc, sizeOptions);
    return out;
}

} // namespace marvel::search
