#include "core/search/onchip_search.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>
#include <tuple>

#include "core/search/nest_util.h"
#include "core/search/offchip.h"
#include "core/util/checked_math.h"

namespace marvel::search {

std::string toString(Objective objective)
{
    switch (objective) {
    case Objective::Runtime:
        return "runtime";
    case Objective::Energy:
        return "energy";
    case Objective::Edp:
        return "edp";
    }
    return "runtime";
}

std::string toString(Fidelity fidelity)
{
    return fidelity == Fidelity::Corrected ? "corrected" : "maestro";
}

mapping::StridedTiles stridedTiles(Fidelity fidelity)
{
    return fidelity == Fidelity::Corrected ? mapping::StridedTiles::Outputs
                                           : mapping::StridedTiles::MaestroPositions;
}

mdc::Dataflow outputRowDataflow(const Candidate& candidate, const arch::Accelerator& acc)
{
    if (candidate.mapping.loops.empty()) return candidate.dataflow;
    return mapping::toMdc(candidate.mapping, acc, mapping::StridedTiles::Outputs);
}

std::optional<Fidelity> fidelityFromString(const std::string& text)
{
    if (text == "corrected") return Fidelity::Corrected;
    if (text == "maestro") return Fidelity::Maestro;
    return std::nullopt;
}

std::optional<Objective> objectiveFromString(const std::string& text)
{
    if (text == "runtime") return Objective::Runtime;
    if (text == "energy") return Objective::Energy;
    if (text == "edp") return Objective::Edp;
    return std::nullopt;
}

double Metrics::value(Objective objective) const
{
    switch (objective) {
    case Objective::Energy:
        return energy;
    case Objective::Edp:
        return edp();
    case Objective::Runtime:
        break;
    }
    return static_cast<double>(runtime);
}

const std::optional<Candidate>& SearchResult::best(Objective objective) const
{
    switch (objective) {
    case Objective::Energy:
        return bestEnergy;
    case Objective::Edp:
        return bestEdp;
    case Objective::Runtime:
        break;
    }
    return bestRuntime;
}

std::int64_t LayerSpace::footprint(const SpaceTensor& tensor, const std::vector<std::int64_t>& tile) const
{
    // Distinct elements, not the subscripts' spans: a strided subscript such as 2*y touches T_y rows,
    // and the cost model never counts fewer than the distinct elements a tile touches.
    std::int64_t n = 1;
    std::pair<std::int64_t, std::int64_t> terms[16];
    for (const auto& subscript : tensor.subscripts) {
        // The common subscripts, x and y + r (unit coefficients) or 2*x (one term), cover a contiguous
        // run of 1 + sum (T - 1) values, or T: what distinctSubscriptValues counts, without its sort.
        // The tile enumeration calls this for every node, so the shortcut is most of its time.
        std::int64_t span = 1;
        int moving = 0;
        bool unit = true;
        for (const SpaceTensor::Term& t : subscript) {
            if (t.coefficient == 0) continue;
            const std::int64_t size = std::max<std::int64_t>(1, tile[static_cast<std::size_t>(t.loop)]);
            if (size == 1) continue;
            ++moving;
            unit = unit && (t.coefficient == 1 || t.coefficient == -1);
            span += size - 1;
        }
        if (moving <= 1 || unit) {
            n *= span;
            continue;
        }
        if (subscript.size() > std::size(terms)) {
            std::vector<std::pair<std::int64_t, std::int64_t>> many;
            for (const SpaceTensor::Term& t : subscript)
                many.emplace_back(t.coefficient, tile[static_cast<std::size_t>(t.loop)]);
            n *= distinctSubscriptValues(many);
            continue;
        }
        std::size_t k = 0;
        for (const SpaceTensor::Term& t : subscript)
            terms[k++] = {t.coefficient, tile[static_cast<std::size_t>(t.loop)]};
        n *= distinctSubscriptValues(std::span(terms, k));
    }
    return n;
}

std::int64_t LayerSpace::totalFootprint(const std::vector<std::int64_t>& tile) const
{
    std::int64_t n = 0;
    for (const SpaceTensor& t : tensors)
        n += footprint(t, tile);
    return n;
}

LayerSpace makeLayerSpace(
    const ir::PerfectNest& nest, const std::vector<std::string>& wholeDims, std::string name)
{
    LayerSpace space;
    space.name = std::move(name);
    space.macs = 1;
    for (const ir::LoopInfo& l : nest.loops) {
        mapping::MappedLoop m;
        m.dim = l.dimName;
        m.iterator = l.iterator;
        m.extent = std::max<std::int64_t>(1, l.extent);
        space.loops.push_back(m);
        space.wholeLoops.push_back(
            std::find(wholeDims.begin(), wholeDims.end(), l.dimName) != wholeDims.end());
        space.macs = saturatingMul(space.macs, m.extent); // huge nests are rejected later, not wrapped
    }
    auto loopIndex = [&](const std::string& iterator) {
        for (std::size_t i = 0; i < nest.loops.size(); ++i)
            if (nest.loops[i].iterator == iterator) return static_cast<int>(i);
        return -1;
    };
    std::map<std::string, bool> seen;
    auto addRef = [&](const ir::TensorRef& ref) {
        const std::string key = ref.toString();
        if (seen[key]) return;
        seen[key] = true;
        SpaceTensor t;
        t.name = ref.tensor;
        for (const ir::AffineExpr& e : ref.subscripts) {
            std::vector<SpaceTensor::Term> terms;
            for (const auto& [var, coefficient] : e.terms)
                if (int i = loopIndex(var); i >= 0) terms.push_back({i, coefficient});
            t.subscripts.push_back(std::move(terms));
        }
        space.tensors.push_back(std::move(t));
    };
    for (const ir::Statement& s : nest.statements) {
        addRef(s.target);
        for (const ir::TensorRef& r : s.reads())
            addRef(r);
        if (space.body.empty()) space.body = s.text;
    }
    for (SpaceTensor& t : space.tensors)
        t.written = std::any_of(nest.statements.begin(), nest.statements.end(),
            [&](const ir::Statement& s) { return s.target.tensor == t.name; });
    return space;
}

std::int64_t runtimeLowerBound(std::int64_t macs, std::int64_t activePes, std::int64_t simdLanes)
{
    const std::int64_t lanes = std::max<std::int64_t>(1, activePes) * std::max<std::int64_t>(1, simdLanes);
    return (macs + lanes - 1) / lanes;
}

double energyLowerBound(const LayerSpace& space, const arch::Accelerator& acc)
{
    // Every MAC reads each input operand from L1 and reads and writes its output partial sum there,
    // in both fidelities; L2 and DRAM accesses only add to that.
    const auto inputs = std::count_if(
        space.tensors.begin(), space.tensors.end(), [](const SpaceTensor& t) { return !t.written; });
    const bool anyOutput = std::any_of(
        space.tensors.begin(), space.tensors.end(), [](const SpaceTensor& t) { return t.written; });
    const double reads = static_cast<double>(inputs + (anyOutput ? 1 : 0)), writes = anyOutput ? 1.0 : 0.0;
    return static_cast<double>(space.macs) * (acc.energy.mac + acc.energy.l1Energy(reads, writes));
}

namespace {

using Clock = std::chrono::steady_clock;

struct TileOption
{
    std::int64_t level1 = 1;
    std::int64_t level2 = 1;
    std::int64_t level3 = 0; ///< 0: the level-3 choice's tile; else this tile (row loops)
    std::int64_t parallelism() const { return (level2 + level1 - 1) / level1; }
};

/// Iterations of a loop of `extent` that the first PE runs under level-3 tiles of `level3`: per level-3
/// tile and per level-2 step in it, min(T1, step) (the first PE always gets a whole level-1 tile when
/// the step has one). It is at least extent / parallelism, with equality when the tiles divide; edge
/// tiles of non-divisor sizes leave the other PEs partly idle, which this counts.
std::int64_t firstPeIterations(std::int64_t extent, std::int64_t level3, const TileOption& o)
{
    auto withinLevel3
        = [&](std::int64_t size) { return size / o.level2 * o.level1 + std::min(o.level1, size % o.level2); };
    return extent / level3 * withinLevel3(level3) + withinLevel3(extent % level3);
}

/// The runtime bound skips only candidates it proves this much slower than the best so far: those nearer
/// stay on the front, whose near end the refinement's local stage starts its descents from (skipping every
/// candidate that cannot win left MobileNetV2's conv1 on P2 4% slower after the refinement, doc/search.md
/// "Runtime bound").
constexpr double kRuntimeBoundMargin = 0.05;

/// One level-3 choice: tiles and order (the off-chip part).
struct Level3Choice
{
    std::vector<std::int64_t> level3;
    std::vector<int> order;
};

/// A pruned tile assignment: which level-3 choice, the option per loop, and its bounds.

struct TileEntry
{
    std::uint32_t level3Choice = 0;
    std::uint32_t firstOption = 0; ///< into the flat option-index array
    std::int64_t runtimeBound = 0;
    double energyBound = 0.0;
    std::int64_t activePes = 1;
    std::uint64_t orderCount = 0; ///< candidates of this tile: (level-2 order, MDC form) pairs
    std::uint64_t firstCandidate = 0;
    bool separateForm = true; ///< the paper's transformation can describe these tiles in MAESTRO
    bool fusedForm = false; ///< the fused form applies and is distinct (mapping::Level2Form)
    int topSpatialLoop = -1; ///< a row loop spread over its level-3 tile: only the TopSpatial form
    /// Outside the TopSpatial form: the tile's level-2 orders, Engine::m_orderLists[orderList].
    std::uint32_t orderList = 0;
    std::uint64_t spread = 0; ///< non-divisor searches: order among equal bounds (enumerateTiles)
};

/// One candidate of a tile: a level-2 order and the MDC form it is written in.
struct OrderAndForm
{
    std::vector<int> order;
    mapping::Level2Form form = mapping::Level2Form::Separate;
};

/// Level-2 orders that differ in the MDC they produce. Only loops with several level-2 iterations
/// reorder inter-tile directives, and only parallel loops order the parallel regions; every other
/// loop's position changes nothing, so those loops stay outermost in nest order. Whole loops (R, S)
/// must be the innermost parallel loop.
std::vector<std::vector<int>> level2Orders(
    const std::vector<mapping::MappedLoop>& loops, const std::vector<bool>& whole)
{
    const int n = static_cast<int>(loops.size());
    std::vector<int> multi, par, rest;
    for (int i = 0; i < n; ++i) {
        const bool m = loops[static_cast<std::size_t>(i)].level2Iterations() > 1;
        const bool p = loops[static_cast<std::size_t>(i)].isParallel();
        if (m) multi.push_back(i);
        if (p) par.push_back(i);
        if (!m && !p) rest.push_back(i);
    }
    auto inMulti = [&](int i) { return std::find(multi.begin(), multi.end(), i) != multi.end(); };
    auto inPar = [&](int i) { return std::find(par.begin(), par.end(), i) != par.end(); };
    std::vector<std::vector<int>> out;
    std::vector<int> mp = multi;
    do {
        std::vector<int> pp = par;
        do {
            if (!pp.empty()) {
                bool wholeOk = true;
                for (std::size_t k = 0; k + 1 < pp.size(); ++k)
                    if (whole[static_cast<std::size_t>(pp[k])]) wholeOk = false;
                if (!wholeOk) continue;
            }
            // Shared loops must appear in the same relative order in both sequences.
            std::vector<int> sharedM, sharedP;
            for (int i : mp)
                if (inPar(i)) sharedM.push_back(i);
            for (int i : pp)
                if (inMulti(i)) sharedP.push_back(i);
            if (sharedM != sharedP) continue;
            std::vector<int> order = rest;
            std::size_t a = 0, b = 0;
            while (a < mp.size() || b < pp.size()) {
                if (a < mp.size() && !inPar(mp[a]))
                    order.push_back(mp[a++]);
                else if (b < pp.size() && !inMulti(pp[b]))
                    order.push_back(pp[b++]);
                else {
                    order.push_back(mp[a]);
                    ++a;
                    ++b;
                }
            }
            out.push_back(std::move(order));
        } while (std::next_permutation(pp.begin(), pp.end()));
    } while (std::next_permutation(mp.begin(), mp.end()));
    return out;
}

/// Level-3 orders that differ: permutations of the loops with several level-3 tiles, the others first.
std::vector<std::vector<int>> level3Orders(const std::vector<mapping::MappedLoop>& loops)
{
    std::vector<int> multi, rest;
    for (int i = 0; i < static_cast<int>(loops.size()); ++i)
        (loops[static_cast<std::size_t>(i)].level3Iterations() > 1 ? multi : rest).push_back(i);
    std::vector<std::vector<int>> out;
    do {
        std::vector<int> order = rest;
        order.insert(order.end(), multi.begin(), multi.end());
        out.push_back(std::move(order));
    } while (std::next_permutation(multi.begin(), multi.end()));
    return out;
}

double factorial(int n)
{
    double f = 1;
    for (int i = 2; i <= n; ++i)
        f *= i;
    return f;
}

struct Evaluated
{
    std::uint64_t index = 0;
    Metrics metrics;
};

/// What one worker thread saw besides the mappings it kept.
struct Tally
{
    std::uint64_t rejected = 0;
    std::uint64_t impossibleFigures = 0;
    std::uint64_t overL1 = 0;
    std::uint64_t overL2 = 0;
    std::uint64_t overCapacity = 0; ///< over L1, L2 or both
    std::uint64_t exceeded = 0; ///< skipped by the cost model's runtime bound
    std::int64_t minL1Bytes = -1;
    std::int64_t minL2Bytes = -1;

    static void keepMin(std::int64_t& current, std::int64_t value)
    {
        if (current < 0 || value < current) current = value;
    }
    void merge(const Tally& t)
    {
        rejected += t.rejected;
        impossibleFigures += t.impossibleFigures;
        overL1 += t.overL1;
        overL2 += t.overL2;
        overCapacity += t.overCapacity;
        exceeded += t.exceeded;
        if (t.minL1Bytes >= 0) keepMin(minL1Bytes, t.minL1Bytes);
        if (t.minL2Bytes >= 0) keepMin(minL2Bytes, t.minL2Bytes);
    }
};

class Engine
{
public:
    Engine(const LayerSpace& space, const OffChipChoice& offChip, const arch::Accelerator& acc,
        const SearchOptions& options, const EvaluatorFactory& factory, SearchSink* sink, std::stop_token stop,
        bool footprintPruning)
        : m_space(space)
        , m_offChip(offChip)
        , m_acc(acc)
        , m_options(options)
        , m_factory(factory)
        , m_sink(sink)
        , m_stop(std::move(stop))
        , m_footprintPruning(footprintPruning)
    { }

    SearchResult run();

private:
    bool stopRequested() const { return m_stop.stop_requested(); }
    bool isRowLoop(std::size_t i) const { return i < m_space.rowLoops.size() && m_space.rowLoops[i]; }
    void buildLevel3Choices();
    void enumerateTiles();
    void halveSample();
    void enumerateFor(std::uint32_t choice);
    double objectiveBound(const TileEntry& e) const;
    mapping::LoopNestMapping mappingOf(const TileEntry& e, std::uint64_t k) const;
    std::vector<mapping::MappedLoop> loopsOf(const TileEntry& e) const;
    std::vector<OrderAndForm> topSpatialCandidates(
        const TileEntry& e, const std::vector<mapping::MappedLoop>& loops) const;
    /// Sets `m`'s level-2 order and form to candidate k of tile `e` (`topSpatial`: its
    /// topSpatialCandidates when it is in that form).
    void setCandidate(const TileEntry& e, const std::vector<OrderAndForm>& topSpatial, std::uint64_t k,
        mapping::LoopNestMapping& m) const;
    Candidate candidateOf(std::uint64_t index) const;
    /// Evaluates a tile's candidates; `runtimeCeiling` >= 0: skips those whose runtime bound proves them
    /// slower.
    void processTile(std::size_t tile, MappingEvaluator& evaluator, std::vector<Evaluated>& out, Tally& tally,
        std::int64_t runtimeCeiling);
    void reportProgress(bool force);

    const LayerSpace& m_space;
    const OffChipChoice& m_offChip;
    const arch::Accelerator& m_acc;
    const SearchOptions& m_options;
    const EvaluatorFactory& m_factory;
    SearchSink* m_sink;
    std::stop_token m_stop;
    bool m_footprintPruning; ///< skip level-1 tiles whose double-buffered footprint exceeds L1

    std::vector<Level3Choice> m_level3;
    std::vector<std::vector<TileOption>> m_options3; ///< per (choice, loop): flattened choice * nLoops + loop
    /// Flat, nLoops per tile entry. 32 bits: a loop of a long extent searched with every tile size
    /// (the cancellation benchmark on an LM head) has more than 65535 options.
    std::vector<std::uint32_t> m_optionIndex;
    std::vector<TileEntry> m_tiles;
    /// Outside the TopSpatial form a tile's level-2 orders depend only on which loops have several level-2
    /// iterations and which are parallel: listed once per such pair of masks (enumerateTiles), a style's
    /// order rule applied, and shared by the tiles.
    std::vector<std::vector<std::vector<int>>> m_orderLists;
    SearchStats m_stats;
    Clock::time_point m_start;
    Clock::time_point m_lastProgress;
    std::uint64_t m_evaluated = 0;
    std::uint64_t m_skipped = 0;
    std::uint64_t m_candidates = 0;
    std::optional<Metrics> m_best;
    bool m_truncated = false;
    std::uint64_t m_leaves = 0; ///< tile assignments that passed every pruning rule
    std::uint64_t m_sampleStride = 1; ///< every m_sampleStride-th of them is kept (halveSample)
    std::uint64_t m_seedCount = 0; ///< options.seeds take candidate indices 0..m_seedCount-1
    double m_seedIncumbent = std::numeric_limits<double>::infinity(); ///< best seed on the objective
};

void Engine::buildLevel3Choices()
{
    const std::size_t n = m_space.loops.size();
    auto fixWhole = [&](std::vector<std::int64_t> t) {
        for (std::size_t i = 0; i < n; ++i)
            if (m_space.wholeLoops[i]) t[i] = m_space.loops[i].extent;
        return t;
    };
    if (!m_options.exhaustive) {
        Level3Choice c;
        c.level3 = fixWhole(m_offChip.level3);
        c.order = m_offChip.level3Order;
        m_level3.push_back(std::move(c));
        return;
    }
    // Every level-3 tile that fits L2 double buffered, with every distinct level-3 order.
    std::vector<std::vector<std::int64_t>> sizes(n);
    for (std::size_t i = 0; i < n; ++i)
        sizes[i] = m_space.wholeLoops[i]
            ? std::vector<std::int64_t>{m_space.loops[i].extent}
            : tileSizes(m_space.loops[i].extent, m_options.divisorsOnly, m_options.everyTileSize);
    std::vector<std::int64_t> tile(n);
    std::vector<std::size_t> pick(n, 0);
    while (true) {
        for (std::size_t i = 0; i < n; ++i)
            tile[i] = sizes[i][pick[i]];
        if (2 * m_space.totalFootprint(tile) <= m_acc.l2Elements()) {
            std::vector<mapping::MappedLoop> loops = m_space.loops;
            for (std::size_t i = 0; i < n; ++i)
                loops[i].level3 = loops[i].level2 = loops[i].level1 = tile[i];
            for (auto& order : level3Orders(loops))
                m_level3.push_back({tile, std::move(order)});
        }
        std::size_t k = 0;
        while (k < n && ++pick[k] == sizes[k].size())
            pick[k++] = 0;
        if (k == n || stopRequested()) break;
    }
}

void Engine::enumerateFor(std::uint32_t choice)
{
    const std::size_t n = m_space.loops.size();
    const Level3Choice& l3 = m_level3[choice];
    // Options per loop: (T1, T2) with T1 <= T2 <= T3.
    const SearchConstraint::TileRules& rules = m_options.constraint.tileRules;
    std::vector<std::vector<TileOption>> opts(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t t3 = l3.level3[i];
        if (isRowLoop(i)) {
            // One row per PE over a level-3 tile equal to the level-2 tile, at most the level-3 choice's
            // tile (in exhaustive mode exactly it: the level-3 choices already enumerate the sizes).
            opts[i].push_back({1, 1, 1});
            for (std::int64_t t :
                tileSizes(m_space.loops[i].extent, m_options.divisorsOnly, m_options.everyTileSize))
                if (t > 1 && t <= t3 && t <= m_acc.numPes && (!m_options.exhaustive || t == t3)
                    && m_options.constraint.allowsParallel(i))
                    opts[i].push_back({1, t, t});
            if (m_options.exhaustive && t3 > 1) opts[i].erase(opts[i].begin());
            continue;
        }
        for (std::int64_t t2 : tileSizes(t3, m_options.divisorsOnly, m_options.everyTileSize)) {
            // Every tile size of a long loop makes millions of pairs: a stop leaves the loop without
            // options, so that nothing below is enumerated.
            if ((t2 & 255) == 0 && stopRequested()) {
                opts[i].clear();
                break;
            }
            if (m_space.wholeLoops[i] && t2 != m_space.loops[i].extent) continue;
            for (std::int64_t t1 : tileSizes(t2, m_options.divisorsOnly, m_options.everyTileSize)) {
                if (rules.wholeLoopsUnsplit && m_space.wholeLoops[i] && t1 != t2) continue; // a tool's rule
                // Non-parallel loops have T1 = T2: a larger T2 over one level-1 tile means nothing.
                TileOption o{t1, t2};
                if (t1 < t2 && o.parallelism() <= 1) continue;
                if (t1 < t2 && !m_options.constraint.allowsParallel(i)) continue; // a style's rule
                if (t1 < t2 && (o.parallelism() - 1) * t1 >= t2)
                    continue; // last PE would get nothing: the same as a smaller T2
                opts[i].push_back(o);
            }
        }
    }
    bool has3 = false, hasRows = false;
    for (std::size_t i = 0; i < n; ++i) {
        has3 = has3 || (m_space.loops[i].extent + l3.level3[i] - 1) / l3.level3[i] > 1;
        hasRows = hasRows || isRowLoop(i);
    }
    // The TopSpatial form needs no level of its own for the level-3 region.
    int maxParallel = mapping::kMaxMdcLevels - (has3 && !hasRows ? 1 : 0);
    if (rules.maxParallelLoops > 0) maxParallel = std::min(maxParallel, rules.maxParallelLoops);
    const std::int64_t pes = m_acc.numPes;
    // An operator of fewer iterations than the bound's PEs (a decode step's per-row statistic over one
    // sequence) would have no mapping at all: its bound is every iteration on a PE of its own.
    double iterations = 1;
    for (const mapping::MappedLoop& loop : m_space.loops)
        iterations *= static_cast<double>(loop.extent);
    const auto minActive = std::min(
        static_cast<std::int64_t>(std::ceil(m_options.peUtilizationBound * static_cast<double>(pes) - 1e-9)),
        static_cast<std::int64_t>(std::min(iterations, static_cast<double>(pes))));
    const std::int64_t l1 = m_acc.l1Elements();
    // Branch and bound against the seeds' incumbent: the loops still to choose run at least their
    // extents' product over the PEs left, so a partial assignment whose bound already exceeds the
    // incumbent has no completion that could win (strictly worse: ties stay with the seeds).
    const bool pruneByBound = m_options.boundSkipping && m_options.objective != Objective::Energy
        && std::isfinite(m_seedIncumbent);
    std::vector<double> extentsFrom(n + 1, 1.0); // product of the extents of loops i..n-1
    for (std::size_t i = n; i-- > 0;)
        extentsFrom[i] = extentsFrom[i + 1] * static_cast<double>(m_space.loops[i].extent);
    const double energyBound = energyLowerBound(m_space, m_acc);
    const double lanes = static_cast<double>(std::max<std::int64_t>(1, m_acc.simdLanes));
    auto cannotWin = [&](double runtimeBound) {
        const double bound
            = m_options.objective == Objective::Edp ? runtimeBound * energyBound : runtimeBound;
        return bound > m_seedIncumbent * (1 + 1e-12); // the margin absorbs rounding: never prunes a tie
    };

    std::vector<std::int64_t> t1(n, 1);
    std::vector<std::uint32_t> pick(n, 0);
    std::uint64_t visited = 0, scanned = 0;
    const std::uint64_t visitLimit = m_options.maxTileVisits == 0
        ? std::numeric_limits<std::uint64_t>::max()
        : std::max<std::uint64_t>(1, m_options.maxTileVisits / std::max<std::size_t>(1, m_level3.size()));
    bool stopped = false;
    // `grew`: the last loop chosen has a level-1 tile above 1; otherwise the level-1 tiles are the
    // parent's, whose footprint already fits.
    auto rec = [&](auto&& self, std::size_t i, std::int64_t active, int parallel, int wholeParallel,
                   std::int64_t work, bool grew) -> void {
        if (stopped || ((++visited & 1023) == 0 && (stopped = stopRequested()))) return;
        if (visited > visitLimit) {
            m_truncated = true;
            stopped = true;
            return;
        }
        if (m_footprintPruning && grew && 2 * m_space.totalFootprint(t1) > l1) {
            ++m_stats.footprintPruned;
            return; // footprints only grow with the remaining tiles
        }
        if (pruneByBound) {
            const double peLeft = static_cast<double>(std::max<std::int64_t>(1, pes / active));
            if (cannotWin(static_cast<double>(work) * extentsFrom[i] / peLeft / lanes)) {
                ++m_stats.boundPrunedTiles;
                return;
            }
        }
        if (i == n) {
            if (active < minActive) return;
            bool has2 = false, tileHas3 = false, singleLevel3 = false;
            int topSpatial = -1;
            for (std::size_t k = 0; k < n; ++k) {
                const TileOption& o = opts[k][pick[k]];
                const std::int64_t level3 = o.level3 > 0 ? o.level3 : l3.level3[k];
                has2 = has2 || (level3 + o.level2 - 1) / o.level2 > 1;
                tileHas3 = tileHas3 || (m_space.loops[k].extent + level3 - 1) / level3 > 1;
                // Every loop of a tile the fused form needs has one level-3 tile when some does.
                singleLevel3 = singleLevel3 || level3 == m_space.loops[k].extent;
                if (o.level3 > 1) topSpatial = static_cast<int>(k);
            }
            const bool separate = topSpatial < 0
                && (tileHas3 ? 1 : 0) + (has2 ? 1 : 0) + std::max(parallel, 1) <= mapping::kMaxMdcLevels;
            // Without a level-2 region the fused form differs from the separate one only in cluster
            // sizes that leave the same sub-units busy: not a distinct candidate.
            // Its top level's spatial map needs a loop with one level-3 tile, or a top level of one
            // sub-unit, where any loop's map steps like a temporal one (mapping::fusedFormApplies).
            const bool fused = topSpatial < 0 && has2 && parallel >= 1 && (singleLevel3 || pes / active < 2)
                && 1 + parallel <= mapping::kMaxMdcLevels;
            const bool rows = topSpatial >= 0 && parallel >= 2;
            if (!separate && !fused && !rows) {
                ++m_stats.notRepresentable;
                return;
            }
            if (wholeParallel > 1) return; // two whole loops cannot both be the innermost parallel loop
            const std::int64_t runtimeBound = ceilDiv(work, std::max<std::int64_t>(1, m_acc.simdLanes));
            if (pruneByBound && cannotWin(static_cast<double>(runtimeBound))) {
                ++m_stats.boundPrunedTiles;
                return;
            }
            if (m_leaves++ % m_sampleStride != 0) return; // not in the sample (halveSample)
            TileEntry e;
            e.level3Choice = choice;
            e.firstOption = static_cast<std::uint32_t>(m_optionIndex.size());
            m_optionIndex.insert(m_optionIndex.end(), pick.begin(), pick.end());
            e.activePes = active;
            e.separateForm = separate;
            e.fusedForm = fused;
            e.topSpatialLoop = rows ? topSpatial : -1;
            // The first PE's iterations: MACs / active PEs when the tiles divide, more at edge tiles.
            e.runtimeBound = runtimeBound;
            e.energyBound = energyBound;
            m_tiles.push_back(e);
            if (m_tiles.size() >= std::max<std::uint64_t>(2, m_options.maxTileAssignments)) halveSample();
            return;
        }
        for (std::uint32_t k = 0; k < opts[i].size(); ++k) {
            // A loop of many options, most of them skipped below (a long LM head's every tile size),
            // must still see a stop request; counted apart from `visited`, which bounds the search.
            if (stopped || ((++scanned & 4095) == 0 && (stopped = stopRequested()))) return;
            const TileOption& o = opts[i][k];
            const std::int64_t p = o.parallelism();
            if (active * p > pes) continue;
            const int par = parallel + (p > 1 ? 1 : 0);
            if (par > maxParallel) continue;
            pick[i] = k;
            t1[i] = o.level1;
            const std::int64_t iterations
                = firstPeIterations(m_space.loops[i].extent, o.level3 > 0 ? o.level3 : l3.level3[i], o);
            self(self, i + 1, active * p, par, wholeParallel + (p > 1 && m_space.wholeLoops[i] ? 1 : 0),
                saturatingMul(work, iterations), o.level1 > 1);
            t1[i] = 1;
        }
    };
    rec(rec, 0, 1, 0, 0, 1, true);
    m_options3.resize(m_level3.size() * n);
    for (std::size_t i = 0; i < n; ++i)
        m_options3[choice * n + i] = std::move(opts[i]);
}

void Engine::halveSample()
{
    // Tile assignments are kept to sort them by their bounds; past this many (without divisor pruning,
    // on big layers) memory would run out. Rather than keeping the first ones in enumeration order
    // (all sharing the outer loops' first tile sizes), keep every other one and from now on every
    // 2^k-th: a deterministic sample spread evenly over the whole enumeration.
    const std::size_t n = m_space.loops.size();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_tiles.size(); i += 2) {
        TileEntry e = m_tiles[i];
        const auto first = static_cast<std::uint32_t>(kept * n);
        for (std::size_t k = 0; k < n; ++k) // first <= e.firstOption: a forward copy within the array
            m_optionIndex[first + k] = m_optionIndex[e.firstOption + k];
        e.firstOption = first;
        m_tiles[kept++] = e;
    }
    m_tiles.resize(kept);
    m_optionIndex.resize(kept * n);
    m_sampleStride *= 2;
    m_truncated = true;
}

void Engine::enumerateTiles()
{
    for (std::uint32_t c = 0; c < m_level3.size() && !stopRequested(); ++c)
        enumerateFor(c);
    if (stopRequested()) return;
    // Most promising first (lowest bound on the objective), ties in enumeration order: the bound then
    // skips the tail as soon as an incumbent reaches it.
    if (!m_options.divisorsOnly) {
        // Among equal bounds (every tile, for the energy bound), the bit-reversed enumeration position:
        // any prefix a candidate limit keeps is then spread evenly over the enumeration instead of
        // sharing the outer loops' first sizes. (The divisor-only order stays as it always was.)
        for (std::size_t i = 0; i < m_tiles.size(); ++i) {
            std::uint64_t reversed = 0;
            for (std::uint64_t v = i, bit = 0; bit < 64; ++bit, v >>= 1)
                reversed = (reversed << 1) | (v & 1);
            m_tiles[i].spread = reversed;
        }
    }
    std::stable_sort(m_tiles.begin(), m_tiles.end(), [&](const TileEntry& a, const TileEntry& b) {
        const double ba = objectiveBound(a), bb = objectiveBound(b);
        return ba < bb || (ba == bb && a.spread < b.spread);
    });
    std::uint64_t next = 0;
    std::size_t counted = 0;
    std::unordered_map<std::uint64_t, std::uint32_t> ordersByMasks; // -> m_orderLists
    m_orderLists.clear();
    const std::size_t n = m_space.loops.size();
    for (TileEntry& e : m_tiles) {
        if ((++counted & 255) == 0 && stopRequested()) break;
        if (e.topSpatialLoop >= 0) {
            e.orderCount = topSpatialCandidates(e, loopsOf(e)).size();
        } else {
            // The masks straight from the tile options: loopsOf copies every loop's names, which took
            // most of this pass's time.
            std::uint64_t masks = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const TileOption& o = m_options3[e.level3Choice * n + i][m_optionIndex[e.firstOption + i]];
                const std::int64_t level3 = o.level3 > 0 ? o.level3 : m_level3[e.level3Choice].level3[i];
                masks |= (std::uint64_t((level3 + o.level2 - 1) / o.level2 > 1) << i)
                    | (std::uint64_t(o.parallelism() > 1) << (i + 32));
            }
            auto [it, inserted] = ordersByMasks.try_emplace(masks, std::uint32_t(m_orderLists.size()));
            if (inserted) {
                const std::vector<mapping::MappedLoop> loops = loopsOf(e);
                std::vector<std::vector<int>> orders = level2Orders(loops, m_space.wholeLoops);
                std::erase_if(orders, [&](const std::vector<int>& order) {
                    return !m_options.constraint.allowsOrder(loops, order); // a style's rule
                });
                m_orderLists.push_back(std::move(orders));
            }
            e.orderList = it->second;
            e.orderCount
                = m_orderLists[it->second].size() * ((e.separateForm ? 1 : 0) + (e.fusedForm ? 1 : 0));
        }
        e.firstCandidate = next;
        next += e.orderCount;
    }
    m_candidates = next;
    m_stats.tiles = m_tiles.size();
    m_stats.onChipPruned = static_cast<double>(next);
}

double Engine::objectiveBound(const TileEntry& e) const
{
    switch (m_options.objective) {
    case Objective::Energy:
        return e.energyBound;
    case Objective::Edp:
        return static_cast<double>(e.runtimeBound) * e.energyBound;
    case Objective::Runtime:
        break;
    }
    return static_cast<double>(e.runtimeBound);
}

std::vector<mapping::MappedLoop> Engine::loopsOf(const TileEntry& e) const
{
    const std::size_t n = m_space.loops.size();
    std::vector<mapping::MappedLoop> loops = m_space.loops;
    const Level3Choice& l3 = m_level3[e.level3Choice];
    for (std::size_t i = 0; i < n; ++i) {
        const TileOption& o = m_options3[e.level3Choice * n + i][m_optionIndex[e.firstOption + i]];
        loops[i].level3 = o.level3 > 0 ? o.level3 : l3.level3[i];
        loops[i].level2 = o.level2;
        loops[i].level1 = o.level1;
    }
    return loops;
}

/// The candidates of a tile with a row loop spread over its level-3 tile, in enumeration order: the
/// orders whose outer parallel loop it is, in the TopSpatial form, when MAESTRO's cluster sizes can express
/// them. (Other tiles' candidates are, per order of m_orderLists[orderList], the separate then the fused
/// form: setCandidate.)
std::vector<OrderAndForm> Engine::topSpatialCandidates(
    const TileEntry& e, const std::vector<mapping::MappedLoop>& loops) const
{
    std::vector<OrderAndForm> out;
    mapping::LoopNestMapping m;
    m.loops = loops;
    for (std::vector<int>& order : level2Orders(loops, m_space.wholeLoops)) {
        if (!m_options.constraint.allowsOrder(loops, order)) continue; // a style's rule
        m.level2Order = std::move(order);
        m.level2Form = mapping::Level2Form::TopSpatial;
        const std::vector<int> parallel = m.parallelLoops();
        if (parallel.front() == e.topSpatialLoop && !mapping::topSpatialClusters(m, m_acc).empty())
            out.push_back({std::move(m.level2Order), mapping::Level2Form::TopSpatial});
    }
    return out;
}

void Engine::setCandidate(const TileEntry& e, const std::vector<OrderAndForm>& topSpatial, std::uint64_t k,
    mapping::LoopNestMapping& m) const
{
    if (e.topSpatialLoop >= 0) {
        m.level2Order = topSpatial[k].order;
        m.level2Form = topSpatial[k].form;
        return;
    }
    const int forms = (e.separateForm ? 1 : 0) + (e.fusedForm ? 1 : 0);
    m.level2Order = m_orderLists[e.orderList][k / forms];
    m.level2Form
        = e.separateForm && k % forms == 0 ? mapping::Level2Form::Separate : mapping::Level2Form::Fused;
}

mapping::LoopNestMapping Engine::mappingOf(const TileEntry& e, std::uint64_t k) const
{
    mapping::LoopNestMapping m;
    m.loops = loopsOf(e);
    setCandidate(
        e, e.topSpatialLoop >= 0 ? topSpatialCandidates(e, m.loops) : std::vector<OrderAndForm>{}, k, m);
    m.level3Order = m_level3[e.level3Choice].order;
    m.layouts = m_offChip.layouts;
    return m;
}

Candidate Engine::candidateOf(std::uint64_t index) const
{
    if (index < m_seedCount) {
        Candidate c = m_options.seeds[index];
        c.index = index;
        return c;
    }
    index -= m_seedCount;
    auto it = std::upper_bound(m_tiles.begin(), m_tiles.end(), index,
        [](std::uint64_t i, const TileEntry& e) { return i < e.firstCandidate; });
    const TileEntry& e = *(it - 1);
    Candidate c;
    c.index = index + m_seedCount;
    c.mapping = mappingOf(e, index - e.firstCandidate);
    c.dataflow = mapping::toMdc(c.mapping, m_acc, stridedTiles(m_options.fidelity));
    return c;
}

void Engine::processTile(std::size_t tile, MappingEvaluator& evaluator, std::vector<Evaluated>& out,
    Tally& tally, std::int64_t runtimeCeiling)
{
    const TileEntry& e = m_tiles[tile];
    mapping::LoopNestMapping m;
    m.loops = loopsOf(e);
    m.level3Order = m_level3[e.level3Choice].order;
    m.layouts = m_offChip.layouts;
    const std::vector<OrderAndForm> topSpatial
        = e.topSpatialLoop >= 0 ? topSpatialCandidates(e, m.loops) : std::vector<OrderAndForm>{};
    for (std::uint64_t k = 0; k < e.orderCount; ++k) {
        if (stopRequested()) return;
        setCandidate(e, topSpatial, k, m);
        std::optional<Metrics> metrics;
        try {
            metrics = evaluator.evaluateBelow(
                mapping::toMdc(m, m_acc, stridedTiles(m_options.fidelity)), runtimeCeiling);
        } catch (const InputError&) {
            metrics.reset();
        }
        if (!metrics && evaluator.lastExceeded()) {
            ++tally.exceeded;
            continue;
        }
        if (!metrics) {
            ++tally.rejected;
            tally.impossibleFigures += evaluator.lastImpossible() ? 1 : 0;
            continue;
        }
        // The cost model is the arbiter of capacity: a mapping whose requirement (as the cost model and
        // MAESTRO count it, double buffering included) exceeds a buffer cannot run on this accelerator.
        const std::int64_t l1Bytes = metrics->l1Requirement * m_acc.bytesPerElement;
        const std::int64_t l2Bytes = metrics->l2Requirement * m_acc.bytesPerElement;
        Tally::keepMin(tally.minL1Bytes, l1Bytes);
        Tally::keepMin(tally.minL2Bytes, l2Bytes);
        const bool overL1 = m_options.l1Capacity && l1Bytes > m_acc.l1Bytes;
        const bool overL2 = m_options.l2Capacity && l2Bytes > m_acc.l2Bytes;
        tally.overL1 += overL1 ? 1 : 0;
        tally.overL2 += overL2 ? 1 : 0;
        if (overL1 || overL2) {
            ++tally.overCapacity;
            continue;
        }
        out.push_back({m_seedCount + e.firstCandidate + k, *metrics});
    }
}

void Engine::reportProgress(bool force)
{
    if (!m_sink) return;
    const auto now = Clock::now();
    if (!force && now - m_lastProgress < std::chrono::milliseconds(m_options.progressIntervalMs)) return;
    m_lastProgress = now;
    Progress p;
    p.evaluated = m_evaluated;
    p.skipped = m_skipped;
    p.candidates = m_candidates;
    p.best = m_best;
    p.elapsedSeconds = std::chrono::duration<double>(now - m_start).count();
    const std::uint64_t done = m_evaluated + m_skipped;
    p.etaSeconds = done == 0 ? 0.0
                             : p.elapsedSeconds
            * static_cast<double>(m_candidates - std::min(done, m_candidates)) / static_cast<double>(done);
    m_sink->onProgress(p);
}

SearchResult Engine::run()
{
    m_start = m_lastProgress = Clock::now();
    SearchResult result;
    const std::size_t n = m_space.loops.size();
    // Search-space sizes (paper's table): every tile triple T1 <= T2 <= T3 <= extent per loop,
    // level-2 and level-3 orders, one layout per tensor subscript choice.
    {
        double layouts = 1, triples = 1, pairsUnder3 = 1, level3 = 1;
        for (const SpaceTensor& t : m_space.tensors)
            layouts *= std::max<double>(1, static_cast<double>(t.subscripts.size()));
        for (std::size_t i = 0; i < n; ++i) {
            const double e = static_cast<double>(m_space.loops[i].extent);
            triples *= e * (e + 1) * (e + 2) / 6;
            level3 *= e;
            const double t3 = i < m_offChip.level3.size() ? static_cast<double>(m_offChip.level3[i]) : e;
            pairsUnder3 *= t3 * (t3 + 1) / 2;
        }
        m_stats.originalSpace
            = triples * factorial(static_cast<int>(n)) * factorial(static_cast<int>(n)) * layouts;
        m_stats.offChipSpace = level3 * factorial(static_cast<int>(n)) * layouts;
        m_stats.onChipSpace = pairsUnder3 * factorial(static_cast<int>(n));
    }
    m_seedCount = m_options.seeds.size();
    for (const Candidate& c : m_options.seeds)
        m_seedIncumbent = std::min(m_seedIncumbent, c.metrics.value(m_options.objective));
    buildLevel3Choices();
    enumerateTiles();

    const unsigned threads
        = std::max(1u, m_options.threads ? m_options.threads : std::thread::hardware_concurrency());
    std::vector<std::unique_ptr<MappingEvaluator>> evaluators;
    for (unsigned t = 0; t < threads; ++t)
        evaluators.push_back(m_factory());
    std::vector<std::vector<Evaluated>> perThread(threads);
    std::vector<Tally> tallies(threads);

    ParetoFront front;
    std::map<std::uint64_t, Metrics> frontMetrics; // full metrics of the current front members
    std::optional<Evaluated> best[3];
    double incumbent = std::numeric_limits<double>::infinity();

    std::vector<EvaluatedPoint> points; // the batch streamed to the sink
    std::size_t nextTile = 0;
    std::size_t batchEnd = 0;
    std::atomic<std::size_t> cursor{0};
    bool finished = m_tiles.empty() || stopRequested();
    std::barrier sync(static_cast<std::ptrdiff_t>(threads));

    // The incumbent a batch starts from (the same whatever the threads): with the runtime objective, the cost
    // model skips a candidate whose runtime bound (cost::Evaluator::runtimeBound) exceeds it by more than
    // kRuntimeBoundMargin.
    std::int64_t ceiling = -1;
    auto work = [&](unsigned t) {
        for (;;) {
            std::size_t i = cursor.fetch_add(1);
            if (i >= batchEnd || stopRequested()) break;
            processTile(i, *evaluators[t], perThread[t], tallies[t], ceiling);
        }
    };
    // Merges evaluated mappings (in candidate order) into the bests and the front; `counted`: they were
    // evaluated by this search (the seeds were evaluated by an earlier one).
    auto absorb = [&](const std::vector<Evaluated>& merged, bool counted) {
        bool frontChanged = false;
        for (const Evaluated& ev : merged) {
            m_evaluated += counted ? 1 : 0;
            // Ties on an objective go to the mapping better on the other metric (runtime for energy and
            // EDP, energy for runtime), so no best mapping is dominated by a front point; then to the
            // lower index, as the batches arrive in candidate order.
            auto key = [](const Metrics& m, int k) {
                switch (k) {
                case 0:
                    return std::pair<double, double>(static_cast<double>(m.runtime), m.energy);
                case 1:
                    return std::pair<double, double>(m.energy, static_cast<double>(m.runtime));
                default:
                    return std::pair<double, double>(m.edp(), static_cast<double>(m.runtime));
                }
            };
            for (int k = 0; k < 3; ++k)
                if (!best[k] || key(ev.metrics, k) < key(best[k]->metrics, k)) best[k] = ev;
            if (front.insert({ev.metrics.runtime, ev.metrics.energy, ev.index})) {
                frontChanged = true;
                frontMetrics[ev.index] = ev.metrics;
            }
        }
        if (frontChanged)
            std::erase_if(frontMetrics, [&](const auto& kv) {
                return std::none_of(front.points().begin(), front.points().end(),
                    [&](const ParetoPoint& p) { return p.index == kv.first; });
            });
        const int objectiveSlot = static_cast<int>(m_options.objective);
        if (best[objectiveSlot]) {
            incumbent = best[objectiveSlot]->metrics.value(m_options.objective);
            m_best = best[objectiveSlot]->metrics;
        }
        if (frontChanged && m_sink) {
            std::vector<Candidate> cs;
            for (const ParetoPoint& p : front.points()) {
                Candidate c = candidateOf(p.index);
                c.metrics = frontMetrics[p.index];
                cs.push_back(std::move(c));
            }
            m_sink->onParetoUpdate(cs);
        }
    };
    if (m_seedCount > 0) {
        std::vector<Evaluated> seeded;
        for (std::uint64_t i = 0; i < m_seedCount; ++i)
            seeded.push_back({i, m_options.seeds[i].metrics});
        absorb(seeded, false);
    }

    const std::uint64_t candidateLimit = m_options.maxCandidates ? m_options.maxCandidates
        : m_options.divisorsOnly                                 ? 0
                                                                 : m_options.nonDivisorBudget;
    bool released = false; // workers have seen `finished`
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (;;) {
                sync.arrive_and_wait(); // batch ready (or finished)
                if (finished) return;
                work(t);
                sync.arrive_and_wait(); // batch done
            }
        });

    while (!finished) {
        // Skip the tiles the incumbent already beats; the list is sorted by bound, so the rest go too.
        if (m_options.boundSkipping && nextTile < m_tiles.size()
            && objectiveBound(m_tiles[nextTile]) > incumbent) {
            for (std::size_t i = nextTile; i < m_tiles.size(); ++i)
                m_skipped += m_tiles[i].orderCount;
            m_stats.boundSkipped += m_candidates - m_tiles[nextTile].firstCandidate;
            nextTile = m_tiles.size();
        }
        if (nextTile >= m_tiles.size() || (candidateLimit && m_evaluated >= candidateLimit)) {
            m_truncated = m_truncated || nextTile < m_tiles.size();
            break;
        }
        std::uint64_t amount = 0;
        batchEnd = nextTile;
        while (batchEnd < m_tiles.size() && amount < m_options.batchSize) {
            if (m_options.boundSkipping && objectiveBound(m_tiles[batchEnd]) > incumbent) break;
            amount += m_tiles[batchEnd].orderCount;
            ++batchEnd;
        }
        cursor.store(nextTile);
        ceiling
            = m_options.boundSkipping && m_options.objective == Objective::Runtime && std::isfinite(incumbent)
            ? static_cast<std::int64_t>(incumbent * (1.0 + kRuntimeBoundMargin))
            : -1;
        sync.arrive_and_wait(); // start the batch
        work(0);
        sync.arrive_and_wait(); // wait for the batch
        nextTile = batchEnd;
        if (stopRequested()) {
            result.cancelled = true;
            break;
        }
        // Merge in candidate order: the same outcome whatever thread evaluated what.
        std::vector<Evaluated> merged;
        for (auto& v : perThread) {
            merged.insert(merged.end(), v.begin(), v.end());
            v.clear();
        }
        std::sort(merged.begin(), merged.end(),
            [](const Evaluated& a, const Evaluated& b) { return a.index < b.index; });
        if (m_sink && !merged.empty()) {
            points.clear();
            for (const Evaluated& ev : merged)
                points.push_back({ev.index, ev.metrics.runtime, ev.metrics.energy, ev.metrics.utilization});
            m_sink->onEvaluated(points);
        }
        absorb(merged, true);
        reportProgress(false);
        if (m_options.giveUpOverL2After > 0 && !best[0]) {
            Tally sofar;
            for (const Tally& t : tallies)
                sofar.merge(t);
            // Nothing has fitted yet, and every mapping refused so far was refused for the L2 alone.
            if (sofar.overCapacity >= m_options.giveUpOverL2After && sofar.overL2 == sofar.overCapacity
                && sofar.minL2Bytes > m_acc.l2Bytes) {
                result.gaveUpOverL2 = true;
                break;
            }
        }
    }
    finished = true;
    if (!released && threads > 1) {
        sync.arrive_and_wait();
        released = true;
    }
    pool.clear();

    Tally total;
    for (const Tally& t : tallies)
        total.merge(t);
    m_stats.rejected = total.rejected;
    m_stats.impossibleFigures = total.impossibleFigures;
    m_stats.overL1 = total.overL1;
    m_stats.overL2 = total.overL2;
    m_stats.minL1Bytes = total.minL1Bytes;
    m_stats.minL2Bytes = total.minL2Bytes;
    m_skipped += m_stats.rejected + total.exceeded;
    m_stats.boundSkipped += total.exceeded;
    m_evaluated += total.overCapacity; // evaluated by the cost model, then found not to fit
    auto materialise = [&](const std::optional<Evaluated>& ev) -> std::optional<Candidate> {
        if (!ev) return std::nullopt;
        Candidate c = candidateOf(ev->index);
        c.metrics = ev->metrics;
        return c;
    };
    result.bestRuntime = materialise(best[0]);
    result.bestEnergy = materialise(best[1]);
    result.bestEdp = materialise(best[2]);
    for (const ParetoPoint& p : front.points()) {
        Candidate c = candidateOf(p.index);
        c.metrics = frontMetrics[p.index];
        result.pareto.push_back(std::move(c));
    }
    result.cancelled = result.cancelled || stopRequested();
    result.truncated = m_truncated;
    m_stats.evaluated = m_evaluated;
    result.stats = m_stats;
    result.evaluated = m_evaluated;
    result.seconds = std::chrono::duration<double>(Clock::now() - m_start).count();
    reportProgress(true);
    return result;
}

} // namespace

namespace {

/// One search of the space `options` describe (no divisor-only first pass).
SearchResult searchOnChipOnce(const LayerSpace& space, const OffChipChoice& offChip,
    const arch::Accelerator& acc, const SearchOptions& options, const EvaluatorFactory& evaluators,
    SearchSink* sink, std::stop_token stop)
{
    // The footprint is a lower bound on the cost model's L1 requirement, so pruning by it loses no
    // mapping that fits. When nothing fits, the search runs again without it so that the report can
    // say how much L1 the smallest mapping would need.
    SearchResult result
        = Engine(space, offChip, acc, options, evaluators, sink, stop, options.l1Capacity).run();
    if (!result.cancelled && !result.bestRuntime && result.stats.footprintPruned > 0) {
        const std::uint64_t pruned = result.stats.footprintPruned;
        SearchOptions bounded = options;
        constexpr std::uint64_t kMaxUnprunedCandidates = 200'000; // the report's figure, not the search's
        if (bounded.maxCandidates == 0 || bounded.maxCandidates > kMaxUnprunedCandidates)
            bounded.maxCandidates = kMaxUnprunedCandidates;
        result = Engine(space, offChip, acc, bounded, evaluators, sink, std::move(stop), false).run();
        result.truncated = false;
        result.stats.footprintPruned = pruned;
    }
    return result;
}

} // namespace

std::optional<Candidate> nearTieBest(const std::vector<Candidate>& front, Objective objective, double nearTie)
{
    if (front.empty()) return std::nullopt;
    double least = std::numeric_limits<double>::infinity();
    for (const Candidate& c : front)
        least = std::min(least, c.metrics.value(objective));
    const double within = least * (1 + nearTie);
    auto other = [&](const Metrics& m) {
        return objective == Objective::Runtime ? m.energy : static_cast<double>(m.runtime);
    };
    const Candidate* chosen = nullptr;
    for (const Candidate& c : front) {
        if (c.metrics.value(objective) > within) continue;
        const auto key = std::tuple(other(c.metrics), c.metrics.value(objective), c.index);
        if (!chosen
            || key < std::tuple(other(chosen->metrics), chosen->metrics.value(objective), chosen->index))
            chosen = &c;
    }
    return *chosen;
}

void breakNearTies(SearchResult& result, double nearTie)
{
    // 0 keeps the search's own bests: exact, exact ties already to the other metric (rankKeyFor).
    if (nearTie <= 0 || result.pareto.empty()) return;
    result.bestRuntime = nearTieBest(result.pareto, Objective::Runtime, nearTie);
    result.bestEnergy = nearTieBest(result.pareto, Objective::Energy, nearTie);
    result.bestEdp = nearTieBest(result.pareto, Objective::Edp, nearTie);
}

std::vector<Candidate> seedsFrom(const SearchResult& result)
{
    std::vector<Candidate> out;
    auto add = [&](const Candidate& c) {
        if (std::none_of(out.begin(), out.end(), [&](const Candidate& o) { return o.index == c.index; }))
            out.push_back(c);
    };
    for (const std::optional<Candidate>* best : {&result.bestRuntime, &result.bestEnergy, &result.bestEdp})
        if (*best) add(**best);
    for (const Candidate& c : result.pareto)
        add(c);
    return out;
}

void addSeedingPass(SearchResult& later, const SearchResult& earlier)
{
    later.evaluated += earlier.evaluated;
    later.stats.evaluated += earlier.stats.evaluated;
    later.stats.impossibleFigures += earlier.stats.impossibleFigures;
    later.seconds += earlier.seconds;
}

SearchResult searchOnChip(const LayerSpace& space, const OffChipChoice& offChip, const arch::Accelerator& acc,
    const SearchOptions& options, const EvaluatorFactory& evaluators, SearchSink* sink, std::stop_token stop)
{
    const std::size_t n = space.loops.size();
    if (n == 0 || offChip.level3.size() != n || offChip.level3Order.size() != n
        || space.wholeLoops.size() != n) {
        Diagnostic d;
        d.field = "search";
        d.message = "the off-chip choice must give a level-3 tile and an order position for each of the "
            + std::to_string(n) + " loops";
        throw InputError(d);
    }
    // Seeds from the caller (searchLayer's divisor-only search) already hold the divisor optimum.
    if (options.divisorsOnly || !options.seeds.empty())
        return searchOnChipOnce(space, offChip, acc, options, evaluators, sink, std::move(stop));
    // Every divisor tiling is also a non-divisor one: searching the divisor-only subspace first (a
    // fraction of the time) and seeding the full search with its bests and front makes the larger
    // space never give a worse answer, even when a limit stops it, and its incumbent lets the bound
    // prune most of the non-divisor tiles before they are enumerated.
    SearchOptions divisors = options;
    divisors.divisorsOnly = true;
    const SearchResult first = searchOnChipOnce(space, offChip, acc, divisors, evaluators, sink, stop);
    if (first.cancelled) return first;
    SearchOptions seeded = options;
    seeded.seeds = seedsFrom(first);
    SearchResult result = searchOnChipOnce(space, offChip, acc, seeded, evaluators, sink, std::move(stop));
    addSeedingPass(result, first);
    return result;
}

} // namespace marvel::search
