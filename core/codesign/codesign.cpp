#include "core/codesign/codesign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>

#include "core/search/roofline.h"
#include "core/sweep/area_front.h"
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
    std::vector<std::size_t> probe; ///< the probe's layers, ascending
    std::size_t layers = 0;

    Impl(sweep::Grid g, const workloads::Workload& workload, const sweep::SweepOptions& options)
        : grid(g)
        , sweeper(std::move(g), workload, options)
        , layers(workload.layers.size())
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

// The heaviest layers on the base accelerator (roofline cycles times repeat; ties: the earlier layer)
// until they make up `share` of the workload's roofline time.
std::vector<std::size_t> probeLayersOf(
    const workloads::Workload& workload, const arch::Accelerator& base, double share)
{
    std::vector<std::pair<double, std::size_t>> weight;
    double total = 0.0;
    for (std::size_t l = 0; l < workload.layers.size(); ++l) {
        const workloads::WorkloadLayer& layer = workload.layers[l];
        double cycles = 1.0;
        if (const std::optional<ir::PerfectNest> nest = ir::perfectNest(layer.op))
            cycles = static_cast<double>(search::roofline(*nest, layer.op.sizes, base).cycles);
        weight.emplace_back(cycles * layer.repeat, l);
        total += weight.back().first;
    }
    std::stable_sort(
        weight.begin(), weight.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::size_t> out;
    double sum = 0.0;
    for (const auto& [w, l] : weight) {
        if (!out.empty() && sum >= share * total) break;
        out.push_back(l);
        sum += w;
    }
    std::sort(out.begin(), out.end());
    return out;
}

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
    if (!(m_options.probeShare > 0.0 && m_options.probeShare <= 1.0))
        fail("probe share", "must be above 0 and at most 1 (got " + number(m_options.probeShare) + ")");
    m_impl = std::make_unique<Impl>(std::move(grid), workload, m_options.sweep);
    m_impl->probe = probeLayersOf(workload, m_impl->grid.base(), m_options.probeShare);

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

const std::vector<std::size_t>& CoDesigner::probeLayers() const
{
    return m_impl->probe;
}

sweep::PointResult CoDesigner::combine(
    std::size_t index, const std::vector<sweep::LayerOutcome>& layers) const
{
    return m_impl->sweeper.combine(index, layers);
}

std::vector<std::optional<sweep::LayerOutcome>> CoDesigner::evaluateUnits(
    const std::vector<Unit>& units, std::stop_token stop) const
{
    const unsigned threads = m_options.sweep.threads ? m_options.sweep.threads
                                                     : std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers
        = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, units.size())));
    const unsigned searchThreads = std::max(1u, threads / workers);
    std::vector<std::optional<sweep::LayerOutcome>> out(units.size());
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < units.size() && !stop.stop_requested(); i = next++)
            out[i] = m_impl->sweeper.evaluateLayer(units[i].index, units[i].layer, searchThreads, stop);
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned w = 1; w < workers; ++w)
            pool.emplace_back(work);
        work();
    }
    return out;
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
    result.front = frontOf(in);
}

std::vector<Design> frontOf(std::vector<const Design*> withinBudget)
{
    return sweep::areaFront(
        std::move(withinBudget), [](const Design& d) { return d.point.areaMm2; },
        [](const Design& d) { return d.objective; }, [](const Design& d) { return d.point.index; });
}

namespace {

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

// The state of one run: the layer outcomes known per design, the scores, the rounds, the progress.
class Run
{
public:
    Run(const CoDesigner& owner, std::stop_token stop, const std::function<void(const Design&)>& onDesign,
        const std::function<void(const Progress&)>& onProgress, const UnitEvaluator& evaluator,
        std::size_t plannedSearches, std::size_t layers)
        : m_owner(owner)
        , m_stop(std::move(stop))
        , m_onDesign(onDesign)
        , m_onProgress(onProgress)
        , m_evaluator(evaluator)
        , m_plannedSearches(plannedSearches)
        , m_layers(layers)
        , m_start(std::chrono::steady_clock::now())
    {
        m_result.gridSize = owner.grid().size();
        m_result.withinArea = owner.withinArea().size();
        m_result.layers = layers;
        m_result.probeLayers = owner.probeLayers().size();
        if (!m_evaluator)
            m_evaluator = [&owner](const std::vector<Unit>& units, std::stop_token s) {
                return owner.evaluateUnits(units, std::move(s));
            };
    }

    bool stopped() const { return m_result.cancelled; }
    bool scored(std::size_t index) const { return m_scoreOf.count(index) != 0; }
    std::size_t scoredCount() const { return m_scores.size(); }
    const std::vector<Design>& scores() const { return m_scores; }
    const std::optional<Design>& best() const { return m_best; }

    // Searches `layers` of each design (those not known yet; none of a design already failed). False
    // when stopped (the round is then dropped whole, so that a cancelled run's designs are those of an
    // earlier stop whatever the threads had finished).
    bool search(const std::vector<std::size_t>& designs, const std::vector<std::size_t>& layers)
    {
        if (m_stop.stop_requested()) {
            m_result.cancelled = true;
            return false;
        }
        std::vector<Unit> units;
        for (std::size_t i : designs) {
            std::vector<std::optional<sweep::LayerOutcome>>& known = outcomes(i);
            if (failed(known)) continue;
            for (std::size_t l : layers)
                if (!known[l]) units.push_back({i, l});
        }
        if (units.empty()) return true;
        const std::vector<std::optional<sweep::LayerOutcome>> got = m_evaluator(units, m_stop);
        bool complete = got.size() == units.size();
        for (std::size_t u = 0; complete && u < got.size(); ++u)
            complete = got[u].has_value();
        if (!complete) {
            m_result.cancelled = true;
            return false;
        }
        for (std::size_t u = 0; u < units.size(); ++u)
            m_outcomes[units[u].index][units[u].layer] = got[u];
        m_result.layerSearches += units.size();
        return true;
    }

    // Rung 0: scores `designs` on the probe layers. With the probe the whole workload, the scores are the
    // complete designs.
    void probe(const std::vector<std::size_t>& designs, const std::string& phase)
    {
        const std::vector<std::size_t>& probe = m_owner.probeLayers();
        if (!search(designs, probe)) return;
        for (std::size_t i : designs) {
            const std::vector<std::optional<sweep::LayerOutcome>>& known = outcomes(i);
            Design d;
            if (probe.size() == m_layers || failed(known)) {
                d = addComplete(i, phase);
            } else {
                d = probeDesign(i, known, phase);
                m_result.probes.push_back(d);
                if (d.point.ok && (!m_bestProbe || better(d, *m_bestProbe))) m_bestProbe = d;
                if (m_onDesign) m_onDesign(d);
            }
            m_scoreOf[i] = m_scores.size();
            m_scores.push_back(d);
        }
        progress(phase);
    }

    // Rung 1: every layer of `designs`.
    void complete(const std::vector<std::size_t>& designs, const std::string& phase)
    {
        std::vector<std::size_t> all(m_layers);
        for (std::size_t l = 0; l < m_layers; ++l)
            all[l] = l;
        if (!search(designs, all)) return;
        for (std::size_t i : designs)
            if (!m_completed.count(i)) addComplete(i, phase);
        progress(phase);
    }

    bool completed(std::size_t index) const { return m_completed.count(index) != 0; }

    // For the bounded exhaustive search, which picks its own layers per round.
    const std::vector<std::optional<sweep::LayerOutcome>>& known(std::size_t index)
    {
        return outcomes(index);
    }
    static bool hasFailed(const std::vector<std::optional<sweep::LayerOutcome>>& known)
    {
        return failed(known);
    }
    Design finishDesign(std::size_t index, const std::string& phase) { return addComplete(index, phase); }
    void replan(std::size_t plannedSearches) { m_plannedSearches = plannedSearches; }
    void report(const std::string& phase) { progress(phase); }
    Result& result() { return m_result; }

    Result finish()
    {
        m_owner.summarise(m_result);
        return std::move(m_result);
    }

private:
    std::vector<std::optional<sweep::LayerOutcome>>& outcomes(std::size_t index)
    {
        auto it = m_outcomes.find(index);
        if (it == m_outcomes.end())
            it = m_outcomes.emplace(index, std::vector<std::optional<sweep::LayerOutcome>>(m_layers)).first;
        return it->second;
    }
    static bool failed(const std::vector<std::optional<sweep::LayerOutcome>>& known)
    {
        return std::any_of(known.begin(), known.end(), [](const auto& o) { return o && !o->ok; });
    }

    // A design whose every layer is known, or one of whose layers failed.
    Design addComplete(std::size_t index, const std::string& phase)
    {
        const std::vector<std::optional<sweep::LayerOutcome>>& known = outcomes(index);
        std::vector<sweep::LayerOutcome> layers;
        for (const std::optional<sweep::LayerOutcome>& o : known) {
            if (!o) continue;
            if (!o->ok) {
                layers = {*o}; // the point takes the first failed layer's status
                break;
            }
            layers.push_back(*o);
        }
        Design d = m_owner.judge(m_owner.combine(index, layers), m_result.designs.size(), phase);
        m_completed.insert(index);
        m_result.designs.push_back(d);
        if (d.withinBudget && (!m_best || better(d, *m_best))) m_best = d;
        if (m_onDesign) m_onDesign(d);
        return d;
    }

    // The probe layers' sums as a design: the objective on the probe, and the power over the probe's
    // time as an estimate of the design's (to rank within a power budget).
    Design probeDesign(std::size_t index, const std::vector<std::optional<sweep::LayerOutcome>>& known,
        const std::string& phase)
    {
        std::vector<sweep::LayerOutcome> layers;
        for (const std::optional<sweep::LayerOutcome>& o : known)
            if (o) layers.push_back(*o);
        // combine() adds what it is given: the probe's layers, in layer order.
        sweep::PointResult p = m_owner.combine(index, layers);
        p.status = "probe";
        Design d = m_owner.judge(p, m_result.probes.size(), phase);
        d.complete = false;
        d.withinBudget = false;
        return d;
    }

    void progress(const std::string& phase)
    {
        if (!m_onProgress) return;
        Progress p;
        p.layerSearches = m_result.layerSearches;
        p.plannedSearches = std::max(m_plannedSearches, p.layerSearches);
        p.probed = m_result.probes.size();
        p.complete = m_result.designs.size();
        p.withinArea = m_result.withinArea;
        p.gridSize = m_result.gridSize;
        p.elapsedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        p.etaSeconds = p.layerSearches ? p.elapsedSeconds / static_cast<double>(p.layerSearches)
                * static_cast<double>(p.plannedSearches - p.layerSearches)
                                       : 0.0;
        p.phase = phase;
        p.best = m_best;
        p.bestProbe = m_bestProbe;
        m_onProgress(p);
    }

    const CoDesigner& m_owner;
    std::stop_token m_stop;
    const std::function<void(const Design&)>& m_onDesign;
    const std::function<void(const Progress&)>& m_onProgress;
    UnitEvaluator m_evaluator;
    std::size_t m_plannedSearches, m_layers;
    std::chrono::steady_clock::time_point m_start;
    Result m_result;
    std::map<std::size_t, std::vector<std::optional<sweep::LayerOutcome>>> m_outcomes;
    std::vector<Design> m_scores; ///< rung 0's, in order
    std::map<std::size_t, std::size_t> m_scoreOf;
    std::set<std::size_t> m_completed;
    std::optional<Design> m_best, m_bestProbe;
};

} // namespace

Result CoDesigner::exhaustive(std::stop_token stop, const std::function<void(const Design&)>& onDesign,
    const std::function<void(const Progress&)>& onProgress, const UnitEvaluator& evaluator) const
{
    const std::size_t layers = m_impl->layers;
    Run run(*this, std::move(stop), onDesign, onProgress, evaluator, m_within.size() * layers, layers);
    // Rounds of many designs, so that every thread stays busy.
    const std::size_t chunk = std::max<std::size_t>(m_options.batch, 64);
    for (std::size_t from = 0; from < m_within.size() && !run.stopped(); from += chunk)
        run.complete(
            std::vector<std::size_t>(m_within.begin() + static_cast<std::ptrdiff_t>(from),
                m_within.begin() + static_cast<std::ptrdiff_t>(std::min(m_within.size(), from + chunk))),
            "exhaustive");
    return run.finish();
}

Result CoDesigner::boundedExhaustive(std::stop_token stop,
    const std::function<void(const Progress&)>& onProgress, const UnitEvaluator& evaluator) const
{
    if (m_options.objective != Objective::Runtime)
        return exhaustive(std::move(stop), {}, onProgress, evaluator);
    const Impl& im = *m_impl;
    const std::size_t layers = im.layers;
    std::unordered_map<std::size_t, std::vector<std::int64_t>> bound;
    std::unordered_map<std::size_t, std::int64_t> total;
    for (std::size_t i : m_within) {
        std::vector<std::int64_t>& b = bound[i];
        for (std::size_t l = 0; l < layers; ++l)
            b.push_back(im.sweeper.layerRoofline(i, l));
        total[i] = std::accumulate(b.begin(), b.end(), std::int64_t{0});
    }
    std::vector<std::size_t> order = m_within;
    std::stable_sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return total[a] < total[b]; });
    // The heaviest layers first (by their bounds on the design searched first), in four stages: most
    // designs that cannot win show it on their heaviest layers.
    std::vector<std::pair<std::int64_t, std::size_t>> weight;
    for (std::size_t l = 0; l < layers; ++l)
        weight.emplace_back(bound[order.front()][l], l);
    std::stable_sort(
        weight.begin(), weight.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::size_t stageSize = std::max<std::size_t>(1, (layers + 3) / 4);
    std::vector<std::vector<std::size_t>> stages;
    for (std::size_t k = 0; k < weight.size(); ++k) {
        if (k % stageSize == 0) stages.emplace_back();
        stages.back().push_back(weight[k].second);
    }

    const std::function<void(const Design&)> noDesigns; // Run keeps a reference
    Run run(*this, std::move(stop), noDesigns, onProgress, evaluator, m_within.size() * layers, layers);
    double incumbent = std::numeric_limits<double>::infinity();
    const std::size_t batch = std::max<std::size_t>(m_options.batch, 8);
    std::size_t next = 0;
    while (next < order.size() && !run.stopped()) {
        if (static_cast<double>(total[order[next]]) > incumbent) break; // so is every later design's
        std::vector<std::size_t> active;
        while (next < order.size() && active.size() < batch
            && static_cast<double>(total[order[next]]) <= incumbent)
            active.push_back(order[next++]);
        for (const std::vector<std::size_t>& stage : stages) {
            if (active.empty() || !run.search(active, stage)) break;
            std::vector<std::size_t> still;
            for (std::size_t i : active) {
                const std::vector<std::optional<sweep::LayerOutcome>>& known = run.known(i);
                if (Run::hasFailed(known)) {
                    run.finishDesign(i, "exhaustive");
                    continue;
                }
                for (std::size_t l : stage)
                    if (known[l]->runtime < bound[i][l]) ++run.result().boundViolations;
                double atLeast = 0.0;
                for (std::size_t l = 0; l < layers; ++l)
                    atLeast += static_cast<double>(known[l] ? known[l]->runtime : bound[i][l]);
                if (atLeast > incumbent)
                    ++run.result().stoppedByBound;
                else
                    still.push_back(i);
            }
            active = std::move(still);
        }
        if (run.stopped()) break;
        for (std::size_t i : active) {
            const Design d = run.finishDesign(i, "exhaustive");
            if (d.withinBudget) incumbent = std::min(incumbent, d.objective);
        }
        std::size_t planned = run.result().layerSearches;
        for (std::size_t k = next; k < order.size(); ++k)
            if (static_cast<double>(total[order[k]]) <= incumbent) planned += layers;
        run.replan(planned);
        run.report("exhaustive");
    }
    if (!run.stopped()) run.result().ruledOutByBound = order.size() - next;
    return run.finish();
}

Result CoDesigner::run(std::stop_token stop, const std::function<void(const Design&)>& onDesign,
    const std::function<void(const Progress&)>& onProgress, const UnitEvaluator& evaluator) const
{
    const Impl& im = *m_impl;
    const std::size_t planned = plannedDesigns();
    const std::size_t batch = std::max<std::size_t>(1, m_options.batch);
    const bool twoRungs = im.probe.size() < im.layers;
    const std::size_t promote = !twoRungs ? 0
        : m_options.promote               ? m_options.promote
                                          : std::max(batch, planned / 6);
    Run run(*this, std::move(stop), onDesign, onProgress, evaluator,
        planned * im.probe.size() + promote * (im.layers - im.probe.size()), im.layers);
    Random rng(m_options.seed);
    const std::size_t axes = im.radix.size();
    auto inside = [&](const Digits& d) { return im.inside[im.index(d)] != 0; };
    auto left = [&] { return planned > run.scoredCount() ? planned - run.scoredCount() : 0; };
    // Rung 0 ranks by the probe's figures; within budget there means mapped, and an estimated power
    // within the power budget.
    auto rankable = [&](const Design& d) {
        const Budget& b = m_options.budget;
        return d.point.ok && (!b.powerMw || d.point.powerMw <= *b.powerMw);
    };

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

    // Takes up to `n` designs of `pool` not proposed before, at random, into `out`.
    std::set<std::size_t> proposed;
    auto take = [&](std::vector<std::size_t> pool, std::size_t n, std::vector<std::size_t>& out) {
        while (n > 0 && !pool.empty()) {
            const std::size_t k = rng.below(pool.size());
            const std::size_t i = pool[k];
            pool[k] = pool.back();
            pool.pop_back();
            if (proposed.count(i)) continue;
            proposed.insert(i);
            out.push_back(i);
            --n;
        }
    };

    // Sampling: a third of the budget, half on the maximal designs.
    {
        const std::size_t n = std::min(left(), std::max(batch, (planned + 2) / 3));
        std::vector<std::size_t> first;
        take(maximal, n / 2, first);
        take(m_within, n - first.size(), first);
        for (std::size_t from = 0; from < first.size() && !run.stopped(); from += batch)
            run.probe(std::vector<std::size_t>(first.begin() + static_cast<std::ptrdiff_t>(from),
                          first.begin() + static_cast<std::ptrdiff_t>(std::min(first.size(), from + batch))),
                "sample");
    }

    // Rung 0's designs best first.
    auto ranked = [&] {
        std::vector<const Design*> r;
        for (const Design& d : run.scores())
            if (rankable(d)) r.push_back(&d);
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
        while (!run.stopped() && run.scoredCount() < until && left() > 0 && stale < 3) {
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
            const std::size_t want = std::min(batch, left());
            for (std::size_t attempt = 0; children.size() < want && attempt < 64 * want; ++attempt) {
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
                if (proposed.count(i)) continue;
                proposed.insert(i);
                children.push_back(i);
            }
            if (children.empty()) break;
            run.probe(children, "evolve");
            const std::vector<const Design*> after = ranked();
            stale = !after.empty() && after.front()->objective < bestBefore ? 0 : stale + 1;
        }
    }

    // Neighbourhood search: the one-step neighbours of the best designs (single steps, pairs of steps,
    // and a step up of one axis traded for steps down of another until the design is within budget),
    // the best first, until every neighbourhood of the three best is scored or the budget is spent.
    auto neighbours = [&](std::size_t index) {
        const Digits d = im.digits(index);
        std::vector<std::size_t> out;
        auto add = [&](const Digits& c) {
            if (!inside(c)) return;
            const std::size_t i = im.index(c);
            if (!proposed.count(i) && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
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
    while (!run.stopped() && left() > 0) {
        const std::vector<const Design*> pool = ranked();
        std::vector<std::size_t> next;
        for (std::size_t k = 0; k < std::min<std::size_t>(3, pool.size()) && next.empty(); ++k)
            next = neighbours(pool[k]->point.index);
        if (next.empty()) break;
        if (next.size() > std::min(batch, left())) next.resize(std::min(batch, left()));
        for (std::size_t i : next)
            proposed.insert(i);
        run.probe(next, "refine");
    }

    // Rung 1: the best on the probe, searched whole, a round at a time.
    if (twoRungs) {
        std::vector<std::size_t> best;
        for (const Design* d : ranked())
            if (best.size() < promote && !run.completed(d->point.index)) best.push_back(d->point.index);
        for (std::size_t from = 0; from < best.size() && !run.stopped(); from += batch)
            run.complete(std::vector<std::size_t>(best.begin() + static_cast<std::ptrdiff_t>(from),
                             best.begin() + static_cast<std::ptrdiff_t>(std::min(best.size(), from + batch))),
                "promote");
    }
    return run.finish();
}

} // namespace marvel::codesign
