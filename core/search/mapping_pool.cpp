#include "core/search/mapping_pool.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace marvel::search {

MappingPool::MappingPool(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const EvaluatorFactory& evaluators, SearchSink* sink)
    : m_space(space)
    , m_acc(acc)
    , m_options(options)
    , m_factory(evaluators)
    , m_sink(sink)
{
    m_stats.minL1Bytes = m_stats.minL2Bytes = -1;
    std::vector<std::int64_t> whole;
    for (const mapping::MappedLoop& l : space.loops)
        whole.push_back(l.extent);
    std::map<std::string, std::pair<std::int64_t, bool>> byName; // largest reference, written
    for (const SpaceTensor& t : space.tensors) {
        auto& [elements, written] = byName[t.name];
        elements = std::max(elements, space.footprint(t, whole));
        written = written || t.written;
    }
    std::int64_t reads = 0, writes = 0;
    for (const auto& [name, e] : byName)
        (e.second ? writes : reads) += e.first;
    auto cycles = [&](std::int64_t bandwidth) {
        if (bandwidth <= 0) return std::int64_t{0};
        return std::max((reads + bandwidth - 1) / bandwidth, (writes + bandwidth - 1) / bandwidth);
    };
    m_transferFloor = std::max(cycles(acc.nocBandwidth), cycles(acc.offchipBandwidth));
}

std::size_t MappingPool::KeyHash::operator()(const Key& k) const
{
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::int64_t v : k.values)
        h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ull + (h >> 29);
    return static_cast<std::size_t>(h);
}

MappingPool::Key MappingPool::keyOf(const mapping::LoopNestMapping& m)
{
    Key k;
    k.values.reserve(m.loops.size() * 5 + 1);
    for (const mapping::MappedLoop& l : m.loops) {
        k.values.push_back(l.level1);
        k.values.push_back(l.level2);
        k.values.push_back(l.level3);
    }
    k.values.insert(k.values.end(), m.level2Order.begin(), m.level2Order.end());
    k.values.insert(k.values.end(), m.level3Order.begin(), m.level3Order.end());
    k.values.push_back(static_cast<std::int64_t>(m.level2Form));
    return k;
}

double MappingPool::objectiveValue(const Metrics& m) const
{
    return m.value(m_options.objective);
}

MappingPool::Outcome MappingPool::evaluateOne(
    MappingEvaluator& evaluator, const mapping::LoopNestMapping& m) const
{
    Outcome out;
    out.status = Status::Rejected;
    std::optional<Metrics> metrics;
    try {
        metrics = evaluator.evaluate(mapping::toMdc(m, m_acc, stridedTiles(m_options.fidelity)));
    } catch (const InputError&) {
        return out;
    }
    if (!metrics) {
        out.impossible = evaluator.lastImpossible();
        return out;
    }
    // No mapping runs faster than its MACs over the PEs it keeps busy, nor than its compulsory traffic
    // over the NoC: a lower figure is a quirk of MAESTRO's accounting (issue 22; depth-wise layers in
    // maestro fidelity came out below their NoC bound), which a search proposing its own mappings finds
    // all too easily. The evaluator already refuses figures below the compute bound by the cost model's
    // count of busy PEs (cost_evaluator.cpp); this checks them against the loop nest's own count and the
    // transfer bound as well.
    const std::int64_t pes = std::min<std::int64_t>(std::max<std::int64_t>(1, m.activePes()), m_acc.numPes);
    if (metrics->runtime < runtimeLowerBound(m_space.macs, pes, m_acc.simdLanes)
        || metrics->runtime < m_transferFloor) {
        out.impossible = true;
        return out;
    }
    out.metrics = *metrics;
    const double l1 = static_cast<double>(metrics->l1Requirement * m_acc.bytesPerElement);
    const double l2 = static_cast<double>(metrics->l2Requirement * m_acc.bytesPerElement);
    const bool overL1 = m_options.l1Capacity && l1 > static_cast<double>(m_acc.l1Bytes);
    const bool overL2 = m_options.l2Capacity && l2 > static_cast<double>(m_acc.l2Bytes);
    if (overL1 || overL2) {
        out.status = Status::OverCapacity;
        out.l1Overflow = overL1 ? l1 / static_cast<double>(std::max<std::int64_t>(1, m_acc.l1Bytes)) : 0.0;
        out.overflow = std::max(out.l1Overflow,
            overL2 ? l2 / static_cast<double>(std::max<std::int64_t>(1, m_acc.l2Bytes)) : 0.0);
        return out;
    }
    out.status = Status::Fits;
    return out;
}

namespace {

/// Ties on an objective go to the mapping better on the other metric (then to the lower index, as in the
/// decoupled search).
std::pair<double, double> rankKeyFor(const Metrics& x, Objective objective)
{
    switch (objective) {
    case Objective::Runtime:
        return {static_cast<double>(x.runtime), x.energy};
    case Objective::Energy:
        return {x.energy, static_cast<double>(x.runtime)};
    default:
        return {x.edp(), static_cast<double>(x.runtime)};
    }
}

} // namespace

bool MappingPool::ranksBefore(const Metrics& a, const Metrics& b) const
{
    return rankKeyFor(a, m_options.objective) < rankKeyFor(b, m_options.objective);
}

void MappingPool::absorb(std::uint64_t index, const mapping::LoopNestMapping& m, const Metrics& metrics,
    std::vector<EvaluatedPoint>& points, bool& frontChanged)
{
    auto key = [](const Metrics& x, int k) { return rankKeyFor(x, static_cast<Objective>(k)); };
    std::optional<Candidate> candidate;
    auto materialise = [&]() -> const Candidate& {
        if (!candidate) {
            candidate.emplace();
            candidate->index = index;
            candidate->mapping = m;
            candidate->dataflow = mapping::toMdc(m, m_acc, stridedTiles(m_options.fidelity));
            candidate->metrics = metrics;
        }
        return *candidate;
    };
    for (int k = 0; k < 3; ++k)
        if (!m_best[k] || key(metrics, k) < key(m_best[k]->metrics, k)) m_best[k] = materialise();
    if (m_front.insert({metrics.runtime, metrics.energy, index})) {
        frontChanged = true;
        m_frontCandidates[index] = materialise();
    }
    points.push_back({index, metrics.runtime, metrics.energy, metrics.utilization});
}

void MappingPool::addSeeds(const std::vector<Candidate>& seeds)
{
    std::vector<EvaluatedPoint> points;
    bool frontChanged = false;
    for (const Candidate& c : seeds) {
        const std::uint64_t index = m_nextIndex++;
        // Not remembered as evaluated: a search proposing a seed's mapping evaluates it as it would
        // without seeds, so that seeds change its course in nothing (only the bests and the front). A
        // seed keeps its own MDC form (mapping and dataflow as the earlier search made them).
        absorb(index, c.mapping, c.metrics, points, frontChanged);
        for (auto& best : m_best)
            if (best && best->index == index) best->dataflow = c.dataflow;
        if (auto it = m_frontCandidates.find(index); it != m_frontCandidates.end())
            it->second.dataflow = c.dataflow;
    }
    std::erase_if(m_frontCandidates, [&](const auto& kv) {
        return std::none_of(m_front.points().begin(), m_front.points().end(),
            [&](const ParetoPoint& p) { return p.index == kv.first; });
    });
}

std::vector<MappingPool::Outcome> MappingPool::evaluate(
    const std::vector<mapping::LoopNestMapping>& batch, std::uint64_t maxNew, const std::stop_token& stop)
{
    std::vector<Outcome> out(batch.size());
    // Which mappings are new (first occurrence, within the limit), in batch order: decided before any
    // evaluation, so the outcome does not depend on the threads.
    std::vector<std::size_t> fresh;
    std::vector<std::ptrdiff_t> sameAs(batch.size(), -1); // a repeat of an earlier new one in this batch
    std::unordered_map<Key, std::size_t, KeyHash> inBatch;
    std::vector<Key> freshKeys;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        Key k = keyOf(batch[i]);
        if (auto it = m_seen.find(k); it != m_seen.end()) {
            out[i] = it->second;
            continue;
        }
        if (auto it = inBatch.find(k); it != inBatch.end()) {
            sameAs[i] = static_cast<std::ptrdiff_t>(it->second);
            continue;
        }
        if (fresh.size() >= maxNew) continue; // NotEvaluated
        inBatch.emplace(k, i);
        freshKeys.push_back(std::move(k));
        fresh.push_back(i);
    }
    const unsigned threads = std::max(1u,
        std::min<unsigned>(m_options.threads ? m_options.threads : std::thread::hardware_concurrency(),
            static_cast<unsigned>(std::max<std::size_t>(1, fresh.size() / 8))));
    while (m_evaluators.size() < threads)
        m_evaluators.push_back(m_factory());
    std::atomic<std::size_t> cursor{0};
    auto work = [&](unsigned t) {
        for (;;) {
            const std::size_t k = cursor.fetch_add(1);
            if (k >= fresh.size() || stop.stop_requested()) break;
            out[fresh[k]] = evaluateOne(*m_evaluators[t], batch[fresh[k]]);
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned t = 1; t < threads; ++t)
            pool.emplace_back(work, t);
        work(0);
    }
    if (stop.stop_requested()) {
        // Stopped part-way: nothing of this batch is kept, so what is kept does not depend on timing
        // within the batch (only on which batches finished).
        for (std::size_t i : fresh)
            out[i] = Outcome{};
        return out;
    }
    std::vector<EvaluatedPoint> points;
    bool frontChanged = false;
    for (std::size_t f = 0; f < fresh.size(); ++f) {
        const std::size_t i = fresh[f];
        Outcome& o = out[i];
        const std::uint64_t index = m_nextIndex++;
        o.index = index;
        m_seen.emplace(std::move(freshKeys[f]), o);
        ++m_evaluated;
        if (o.status == Status::Rejected) {
            ++m_stats.rejected;
            m_stats.impossibleFigures += o.impossible ? 1 : 0;
            continue;
        }
        if (o.fitsL1()) addToFootprintFront(index, batch[i], o.metrics);
        const std::int64_t l1 = o.metrics.l1Requirement * m_acc.bytesPerElement;
        const std::int64_t l2 = o.metrics.l2Requirement * m_acc.bytesPerElement;
        if (m_stats.minL1Bytes < 0 || l1 < m_stats.minL1Bytes) m_stats.minL1Bytes = l1;
        if (m_stats.minL2Bytes < 0 || l2 < m_stats.minL2Bytes) m_stats.minL2Bytes = l2;
        if (o.status == Status::OverCapacity) {
            m_stats.overL1 += m_options.l1Capacity && l1 > m_acc.l1Bytes ? 1 : 0;
            m_stats.overL2 += m_options.l2Capacity && l2 > m_acc.l2Bytes ? 1 : 0;
            continue;
        }
        absorb(index, batch[i], o.metrics, points, frontChanged);
    }
    for (std::size_t i = 0; i < batch.size(); ++i)
        if (sameAs[i] >= 0) out[i] = out[static_cast<std::size_t>(sameAs[i])];
    if (frontChanged)
        std::erase_if(m_frontCandidates, [&](const auto& kv) {
            return std::none_of(m_front.points().begin(), m_front.points().end(),
                [&](const ParetoPoint& p) { return p.index == kv.first; });
        });
    if (m_sink && !points.empty()) m_sink->onEvaluated(points);
    if (m_sink && frontChanged) {
        std::vector<Candidate> front;
        for (const ParetoPoint& p : m_front.points())
            front.push_back(m_frontCandidates.at(p.index));
        m_sink->onParetoUpdate(front);
    }
    return out;
}

void MappingPool::addToFootprintFront(
    std::uint64_t index, const mapping::LoopNestMapping& m, const Metrics& metrics)
{
    const double objective = objectiveValue(metrics);
    const std::int64_t l2 = metrics.l2Requirement;
    // Sorted by ascending L2 requirement, so by descending objective: the first point needing at most
    // this much L2 decides whether the mapping is beaten.
    auto at = std::upper_bound(m_footprintFront.begin(), m_footprintFront.end(), l2,
        [](std::int64_t need, const FootprintPoint& p) { return need < p.metrics.l2Requirement; });
    if (at != m_footprintFront.begin() && std::prev(at)->objective <= objective) return;
    // Those it beats: needing at least as much L2 for no better an objective.
    auto end = at;
    while (end != m_footprintFront.end() && end->objective >= objective)
        ++end;
    if (at != m_footprintFront.begin() && std::prev(at)->metrics.l2Requirement == l2)
        --at; // worse, same need
    at = m_footprintFront.erase(at, end);
    m_footprintFront.insert(at, FootprintPoint{m, metrics, objective, index});
}

const Candidate* MappingPool::best() const
{
    const auto& b = m_best[static_cast<int>(m_options.objective)];
    return b ? &*b : nullptr;
}

SearchResult MappingPool::result() const
{
    SearchResult r;
    r.bestRuntime = m_best[0];
    r.bestEnergy = m_best[1];
    r.bestEdp = m_best[2];
    for (const ParetoPoint& p : m_front.points())
        r.pareto.push_back(m_frontCandidates.at(p.index));
    r.stats = m_stats;
    r.stats.evaluated = m_evaluated;
    r.evaluated = m_evaluated;
    return r;
}

} // namespace marvel::search
