#include "core/codesign/codesign.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <unordered_map>

#include "core/tech/technology.h"

namespace marvel::codesign {

std::size_t defaultMaxDesigns(std::size_t gridSize)
{
    const std::size_t share = (gridSize * 6 + 99) / 100;
    return std::min(gridSize, std::max<std::size_t>(12, share));
}

namespace {

[[noreturn]] void fail(std::string field, std::string message)
{
    Diagnostic d;
    d.field = std::move(field);
    d.message = std::move(message);
    throw InputError(d);
}

std::string number(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", v);
    return text;
}

// A design as the digits of its grid index: one value index per varied axis, in the grid's axis order.
using Digits = std::vector<std::size_t>;

} // namespace

struct CoDesigner::Impl
{
    sweep::Grid grid;
    sweep::Sweeper sweeper;
    std::vector<StaticCost> costs; ///< per grid index
    std::vector<char> inside; ///< per grid index: within the area (and leakage) budget
    std::vector<std::size_t> radix; ///< values per axis

    Impl(sweep::Grid g, workloads::Workload workload, const sweep::SweepOptions& options)
        : grid(g)
        , sweeper(std::move(g), std::move(workload), options)
    {
        for (const sweep::Axis& a : grid.axes())
            radix.push_back(a.values.size());
    }

    Digits digits(std::size_t index) const
    {
        Digits d(radix.size());
        for (std::size_t a = radix.size(); a-- > 0;) {
            d[a] = index % radix[a];
            index /= radix[a];
        }
        return d;
    }
    std::size_t index(const Digits& d) const
    {
        std::size_t i = 0;
        for (std::size_t a = 0; a < radix.size(); ++a)
            i = i * radix[a] + d[a];
        return i;
    }
};

CoDesigner::CoDesigner(sweep::Grid grid, workloads::Workload workload, Options options)
    : m_options(std::move(options))
{
    const Budget& b = m_options.budget;
    if (!(b.areaMm2 > 0.0) || !std::isfinite(b.areaMm2))
        fail("area budget", "must be a positive number of mm^2 (got " + number(b.areaMm2) + ")");
    if (b.powerMw && (!(*b.powerMw > 0.0) || !std::isfinite(*b.powerMw)))
        fail("power budget", "must be a positive number of mW (got " + number(*b.powerMw) + ")");
    if (!grid.base().technologyTable)
        fail("technology",
            "co-design needs a technology table for the designs' area and power (e.g. --technology 45nm, or "
            "an accelerator file naming one)");
    if (m_options.batch == 0) fail("batch", "must be at least 1");
    m_options.sweep.search.objective = m_options.objective;
    m_impl = std::make_unique<Impl>(std::move(grid), std::move(workload), m_options.sweep);

    const std::size_t n = m_impl->grid.size();
    m_impl->costs.resize(n);
    m_impl->inside.assign(n, 0);
    std::size_t smallest = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const tech::Physical p = tech::physical(m_impl->grid.point(i), {}, 0);
        StaticCost& c = m_impl->costs[i];
        c.areaMm2 = p.areaMm2;
        c.leakageMw = p.powerMw; // no activity: the leakage (MAESTRO's model: its fixed power)
        if (c.areaMm2 < m_impl->costs[smallest].areaMm2) smallest = i;
        const bool fits = c.areaMm2 <= b.areaMm2 && (!b.powerMw || c.leakageMw <= *b.powerMw);
        m_impl->inside[i] = fits ? 1 : 0;
        if (fits) m_within.push_back(i);
    }
    if (m_within.empty()) {
        const StaticCost& s = m_impl->costs[smallest];
        const sweep::Parameters p = m_impl->grid.parameters(smallest);
        fail(b.powerMw ? "budget" : "area budget",
            "no design of the grid meets the budget of " + number(b.areaMm2) + " mm^2"
                + (b.powerMw ? " and " + number(*b.powerMw) + " mW" : std::string())
                + ": the smallest design (pes " + std::to_string(p[0]) + ", simd " + std::to_string(p[1])
                + ", l1 " + std::to_string(p[2]) + ", l2 " + std::to_string(p[3]) + ") takes "
                + number(s.areaMm2) + " mm^2 and draws at least " + number(s.leakageMw) + " mW of leakage");
    }
}

CoDesigner::~CoDesigner() = default;

const sweep::Grid& CoDesigner::grid() const
{
    return m_impl->grid;
}

const sweep::Sweeper& CoDesigner::sweeper() const
{
    return m_impl->sweeper;
}

StaticCost CoDesigner::staticCost(std::size_t index) const
{
    return m_impl->costs.at(index);
}

arch::Accelerator CoDesigner::accelerator(std::size_t index) const
{
    arch::Accelerator acc = m_impl->grid.point(index);
    const sweep::Parameters p = m_impl->grid.parameters(index);
    acc.name = "codesign pes " + std::to_string(p[0]) + " simd " + std::to_string(p[1]) + " l1 "
        + std::to_string(p[2]) + " l2 " + std::to_string(p[3]) + " noc_bw " + std::to_string(p[4])
        + " offchip_bw " + std::to_string(p[5]);
    acc.description = "Found by marvel codesign around " + m_impl->grid.base().name + " ("
        + std::string(search::toString(m_options.objective)) + " objective, area budget "
        + number(m_options.budget.areaMm2) + " mm^2"
        + (m_options.budget.powerMw ? ", power budget " + number(*m_options.budget.powerMw) + " mW" : "")
        + ").";
    return acc;
}

std::size_t CoDesigner::plannedDesigns() const
{
    const std::size_t planned
        = m_options.maxDesigns ? m_options.maxDesigns : defaultMaxDesigns(m_impl->grid.size());
    return std::min(planned, m_within.size());
}

Design CoDesigner::judge(const sweep::PointResult& point, std::size_t order, std::string phase) const
{
    Design d;
    d.point = point;
    d.order = order;
    d.phase = std::move(phase);
    if (point.ok) {
        switch (m_options.objective) {
        case Objective::Runtime:
            d.objective = static_cast<double>(point.runtime);
            break;
        case Objective::Energy:
            d.objective = point.energyPj;
            break;
        case Objective::Edp:
            d.objective = static_cast<double>(point.runtime) * point.energyPj;
            break;
        }
    }
    const Budget& b = m_options.budget;
    d.withinBudget = point.ok && point.areaMm2 <= b.areaMm2 && (!b.powerMw || point.powerMw <= *b.powerMw);
    return d;
}

namespace {

// a before b: lower objective, then smaller area, then lower grid index.
bool better(const Design& a, const Design& b)
{
    if (a.objective != b.objective) return a.objective < b.objective;
    if (a.point.areaMm2 != b.point.areaMm2) return a.point.areaMm2 < b.point.areaMm2;
    return a.point.index < b.point.index;
}

} // namespace

void CoDesigner::summarise(Result& result) const
{
    std::vector<const Design*> in;
    for (const Design& d : result.designs)
        if (d.withinBudget) in.push_back(&d);
    result.best.reset();
    for (const Design* d : in)
        if (!result.best || better(*d, *result.best)) result.best = *d;
    std::sort(in.begin(), in.end(), [](const Design* a, const Design* b) {
        if (a->point.areaMm2 != b->point.areaMm2) return a->point.areaMm2 < b->point.areaMm2;
        if (a->objective != b->objective) return a->objective < b->objective;
        return a->point.index < b->point.index;
    });
    result.front.clear();
    for (const Design* d : in)
        if (result.front.empty() || d->objective < result.front.back().objective) result.front.push_back(*d);
}

namespace {

// The state of one run: what was evaluated, the rounds, the progress.
class Run
{
public:
    Run(const CoDesigner& owner, std::stop_token stop, const std::function<void(const Design&)>& onDesign,
        const std::function<void(const Progress&)>& onProgress, const BatchEvaluator& evaluator,
        std::size_t planned)
        : m_owner(owner)
        , m_stop(std::move(stop))
        , m_onDesign(onDesign)
        , m_onProgress(onProgress)
        , m_evaluator(evaluator)
        , m_planned(planned)
        , m_start(std::chrono::steady_clock::now())
    {
        m_result.gridSize = owner.grid().size();
        m_result.withinArea = owner.withinArea().size();
        if (!m_evaluator) {
            const sweep::Sweeper& sweeper = owner.sweeper();
            m_evaluator = [&sweeper](const std::vector<std::size_t>& indices, std::stop_token stop) {
                std::vector<sweep::PointResult> rows = sweeper.run(indices, {}, stop);
                std::vector<std::optional<sweep::PointResult>> out(indices.size());
                for (sweep::PointResult& r : rows)
                    for (std::size_t i = 0; i < indices.size(); ++i)
                        if (indices[i] == r.index && !out[i]) {
                            out[i] = std::move(r);
                            break;
                        }
                return out;
            };
        }
    }

    bool evaluated(std::size_t index) const { return m_seen.count(index) != 0; }
    std::size_t count() const { return m_result.designs.size(); }
    std::size_t left() const { return m_planned > count() ? m_planned - count() : 0; }
    bool stopped() const { return m_result.cancelled; }
    const std::vector<Design>& designs() const { return m_result.designs; }

    // Evaluates `indices` (distinct, not evaluated before, at most left()); false when stopped.
    bool round(const std::vector<std::size_t>& indices, const std::string& phase)
    {
        if (indices.empty()) return true;
        if (m_stop.stop_requested()) {
            m_result.cancelled = true;
            return false;
        }
        const std::vector<std::optional<sweep::PointResult>> rows = m_evaluator(indices, m_stop);
        bool complete = rows.size() == indices.size();
        for (std::size_t i = 0; complete && i < rows.size(); ++i)
            complete = rows[i].has_value();
        // A round counts whole or not at all, so that a cancelled run's designs are those of an earlier
        // stop, whatever the threads had finished.
        if (!complete) {
            m_result.cancelled = true;
            return false;
        }
        for (std::size_t i = 0; i < rows.size(); ++i) {
            m_seen.insert(indices[i]);
            m_result.designs.push_back(m_owner.judge(*rows[i], m_result.designs.size(), phase));
            const Design& d = m_result.designs.back();
            if (d.withinBudget && (!m_best || better(d, *m_best))) m_best = d;
            if (m_onDesign) m_onDesign(d);
        }
        if (m_onProgress) {
            Progress p;
            p.evaluated = count();
            p.planned = m_planned;
            p.withinArea = m_result.withinArea;
            p.gridSize = m_result.gridSize;
            p.elapsedSeconds
                = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
            p.etaSeconds = p.elapsedSeconds / static_cast<double>(count()) * static_cast<double>(left());
            p.phase = phase;
            p.best = m_best;
            m_onProgress(p);
        }
        return true;
    }

    const std::optional<Design>& best() const { return m_best; }

    Result finish()
    {
        m_owner.summarise(m_result);
        return std::move(m_result);
    }

private:
    const CoDesigner& m_owner;
    std::stop_token m_stop;
    const std::function<void(const Design&)>& m_onDesign;
    const std::function<void(const Progress&)>& m_onProgress;
    BatchEvaluator m_evaluator;
    std::size_t m_planned;
    std::chrono::steady_clock::time_point m_start;
    Result m_result;
    std::set<std::size_t> m_seen;
    std::optional<Design> m_best;
};

// Deterministic whatever the standard library: mt19937_64's sequence is specified, the reductions here
// are ours.
class Random
{
public:
    explicit Random(std::uint64_t seed)
        : m_engine(seed)
    { }
    std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(m_engine() % n) : 0; }
    bool chance(double p) { return static_cast<double>(m_engine() >> 11) * 0x1.0p-53 < p; }

private:
    std::mt19937_64 m_engine;
};

} // namespace

Result CoDesigner::exhaustive(std::stop_token stop, const std::function<void(const Design&)>& onDesign,
    const std::function<void(const Progress&)>& onProgress, const BatchEvaluator& evaluator) const
{
    Run run(*this, std::move(stop), onDesign, onProgress, evaluator, m_within.size());
    // Rounds of many points, so that every thread stays busy.
    const std::size_t chunk = std::max<std::size_t>(m_options.batch, 64);
    for (std::size_t from = 0; from < m_within.size(); from += chunk) {
        const std::vector<std::size_t> part(m_within.begin() + static_cast<std::ptrdiff_t>(from),
            m_within.begin() + static_cast<std::ptrdiff_t>(std::min(m_within.size(), from + chunk)));
        if (!run.round(part, "exhaustive")) break;
    }
    return run.finish();
}

Result CoDesigner::run(std::stop_token stop, const std::function<void(const Design&)>& onDesign,
    const std::function<void(const Progress&)>& onProgress, const BatchEvaluator& evaluator) const
{
    const Impl& im = *m_impl;
    const std::size_t planned = plannedDesigns();
    Run run(*this, std::move(stop), onDesign, onProgress, evaluator, planned);
    Random rng(m_options.seed);
    const std::size_t axes = im.radix.size();
    const std::size_t batch = std::max<std::size_t>(1, m_options.batch);
    auto inside = [&](const Digits& d) { return im.inside[im.index(d)] != 0; };

    // A design is maximal when no one-step increase of an axis stays within the budget.
    std::vector<std::size_t> maximal;
    for (std::size_t i : m_within) {
        Digits d = im.digits(i);
        bool isMaximal = true;
        for (std::size_t a = 0; a < axes && isMaximal; ++a) {
            if (d[a] + 1 >= im.radix[a]) continue;
            ++d[a];
            isMaximal = !inside(d);
            --d[a];
        }
        if (isMaximal) maximal.push_back(i);
    }

    // Takes up to `n` not yet evaluated designs of `pool` at random into `out`.
    std::set<std::size_t> proposed;
    auto take = [&](std::vector<std::size_t> pool, std::size_t n, std::vector<std::size_t>& out) {
        while (n > 0 && !pool.empty()) {
            const std::size_t k = rng.below(pool.size());
            const std::size_t i = pool[k];
            pool[k] = pool.back();
            pool.pop_back();
            if (run.evaluated(i) || proposed.count(i)) continue;
            proposed.insert(i);
            out.push_back(i);
            --n;
        }
    };

    // Sampling: a third of the budget, half on the maximal designs.
    {
        const std::size_t n = std::min(run.left(), std::max(batch, (planned + 2) / 3));
        std::vector<std::size_t> first;
        take(maximal, n / 2, first);
        take(m_within, n - first.size(), first);
        for (std::size_t from = 0; from < first.size() && !run.stopped(); from += batch) {
            const std::vector<std::size_t> part(first.begin() + static_cast<std::ptrdiff_t>(from),
                first.begin() + static_cast<std::ptrdiff_t>(std::min(first.size(), from + batch)));
            run.round(part, "sample");
        }
    }

    // Ranked designs within budget (best first), for selection and the neighbourhood search.
    auto ranked = [&] {
        std::vector<const Design*> r;
        for (const Design& d : run.designs())
            if (d.withinBudget) r.push_back(&d);
        std::sort(r.begin(), r.end(), [](const Design* a, const Design* b) { return better(*a, *b); });
        return r;
    };
    // Steps axes down at random until the design is within the budget (every axis at its lowest value is
    // not necessarily within it: then nullopt).
    auto repair = [&](Digits d) -> std::optional<Digits> {
        for (int guard = 0; guard < 256 && !inside(d); ++guard) {
            std::vector<std::size_t> down;
            for (std::size_t a = 0; a < axes; ++a)
                if (d[a] > 0) down.push_back(a);
            if (down.empty()) return std::nullopt;
            --d[down[rng.below(down.size())]];
        }
        if (!inside(d)) return std::nullopt;
        return d;
    };

    // Evolution: until about two thirds of the budget, or three rounds without a better design.
    {
        const std::size_t until = planned * 2 / 3;
        int stale = 0;
        while (!run.stopped() && run.count() < until && run.left() > 0 && stale < 3) {
            const std::vector<const Design*> pool = ranked();
            if (pool.size() < 2) break;
            const double bestBefore = pool.front()->objective;
            // Parents: tournaments of two among the better half (at least two designs).
            const std::size_t elite = std::max<std::size_t>(2, pool.size() / 2);
            auto parent = [&]() -> const Design* {
                const std::size_t a = rng.below(elite), b = rng.below(elite);
                return pool[std::min(a, b)];
            };
            std::vector<std::size_t> children;
            const std::size_t want = std::min(batch, run.left());
            for (int attempt = 0; children.size() < want && attempt < 64 * static_cast<int>(want);
                 ++attempt) {
                const Digits p = im.digits(parent()->point.index), q = im.digits(parent()->point.index);
                Digits c(axes);
                for (std::size_t a = 0; a < axes; ++a)
                    c[a] = rng.chance(0.5) ? p[a] : q[a];
                // One-step mutations, each axis with probability 1/axes, at least one.
                bool mutated = false;
                for (std::size_t a = 0; a < axes; ++a)
                    if (rng.chance(1.0 / static_cast<double>(axes))) {
                        const bool up = rng.chance(0.5);
                        if (up && c[a] + 1 < im.radix[a]) ++c[a], mutated = true;
                        if (!up && c[a] > 0) --c[a], mutated = true;
                    }
                if (!mutated) {
                    const std::size_t a = rng.below(axes);
                    if (c[a] + 1 < im.radix[a] && (c[a] == 0 || rng.chance(0.5)))
                        ++c[a];
                    else if (c[a] > 0)
                        --c[a];
                }
                const std::optional<Digits> fixed = repair(c);
                if (!fixed) continue;
                const std::size_t i = im.index(*fixed);
                if (run.evaluated(i) || proposed.count(i)) continue;
                proposed.insert(i);
                children.push_back(i);
            }
            if (children.empty()) break;
            run.round(children, "evolve");
            const std::vector<const Design*> after = ranked();
            stale = !after.empty() && after.front()->objective < bestBefore ? 0 : stale + 1;
        }
    }

    // Neighbourhood search: the one-step neighbours of the best designs (single steps, pairs of steps,
    // and a step up of one axis traded for steps down of another until the design is within budget),
    // the best first, until every neighbourhood of the three best is evaluated or the budget is spent.
    {
        auto neighbours = [&](std::size_t index) {
            const Digits d = im.digits(index);
            std::vector<std::size_t> out;
            auto add = [&](const Digits& c) {
                if (!inside(c)) return;
                const std::size_t i = im.index(c);
                if (!run.evaluated(i) && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
            };
            for (std::size_t a = 0; a < axes; ++a)
                for (int da : {-1, 1}) {
                    if ((da < 0 && d[a] == 0) || (da > 0 && d[a] + 1 >= im.radix[a])) continue;
                    Digits c = d;
                    c[a] = da > 0 ? d[a] + 1 : d[a] - 1;
                    add(c);
                    for (std::size_t b = 0; b < axes; ++b) {
                        if (b == a) continue;
                        for (int db : {-1, 1}) {
                            if ((db < 0 && c[b] == 0) || (db > 0 && c[b] + 1 >= im.radix[b])) continue;
                            Digits e = c;
                            e[b] = db > 0 ? c[b] + 1 : c[b] - 1;
                            add(e);
                        }
                        if (da > 0) {
                            // Trade: b steps down until the design fits.
                            Digits e = c;
                            while (e[b] > 0 && !inside(e))
                                --e[b];
                            add(e);
                        }
                    }
                }
            return out;
        };
        while (!run.stopped() && run.left() > 0) {
            const std::vector<const Design*> pool = ranked();
            std::vector<std::size_t> next;
            for (std::size_t k = 0; k < std::min<std::size_t>(3, pool.size()) && next.empty(); ++k)
                next = neighbours(pool[k]->point.index);
            if (next.empty()) break;
            if (next.size() > std::min(batch, run.left())) next.resize(std::min(batch, run.left()));
            run.round(next, "refine");
        }
    }
    return run.finish();
}

} // namespace marvel::codesign
