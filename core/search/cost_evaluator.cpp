#include <algorithm>
#include <span>

#include "core/cost/costmodel.h"
#include "core/search/search.h"

namespace marvel::search {

namespace {

/// Adapter from the search's evaluator interface to the cost model's allocation-free hot path.
///
/// No search ranks a figure that no execution can have (cost::checkUndercount: a runtime below the
/// compute bound, or a MAC count that is not the operator's; doc/search.md, "Impossible figures"): such
/// a mapping is rejected, in either fidelity (lastImpossible() says so). Every search path (decoupled,
/// exhaustive, widened, styles, genetic, sweeps, reproduce) gets its evaluators from costModelEvaluators.
class CostModelEvaluator final : public MappingEvaluator
{
public:
    CostModelEvaluator(const cost::Problem& problem, const arch::Accelerator& acc, cost::Options options,
        DataflowFilter filter)
        : m_evaluator(problem, acc, options)
        , m_filter(std::move(filter))
        , m_pes(acc.numPes)
        , m_simdLanes(acc.simdLanes)
        , m_requiredMacs(problem.analyticMacs())
    { }

    std::optional<Metrics> evaluate(const mdc::Dataflow& dataflow) override
    {
        return evaluateBelow(dataflow, -1);
    }

    std::optional<Metrics> evaluateBelow(const mdc::Dataflow& dataflow, std::int64_t runtimeCeiling) override
    {
        m_impossible = m_exceeded = false;
        if (m_filter && !m_filter(dataflow)) return std::nullopt;
        m_ids.clear();
        for (const mdc::Directive& d : dataflow) {
            cost::Evaluator::DirectiveId id;
            id.kind = d.kind;
            id.size = d.size;
            id.offset = d.offset;
            id.dim = d.kind == mdc::Directive::Kind::Cluster ? -1 : dimId(d.dim);
            if (d.kind != mdc::Directive::Kind::Cluster && id.dim < 0) return std::nullopt;
            m_ids.push_back(id);
        }
        cost::Metrics m;
        const std::span<const cost::Evaluator::DirectiveId> ids(m_ids);
        if (runtimeCeiling < 0 ? !m_evaluator.evaluateMetrics(ids, m)
                               : !m_evaluator.evaluateMetricsBelow(ids, runtimeCeiling, m, m_exceeded))
            return std::nullopt;
        // MAESTRO undercounts some mappings (edge-case accounting of tiles that do not divide, strided
        // tilings): their runtime and energy describe no execution, so the search neither exploits nor
        // trusts them. A search in corrected fidelity ranks such mappings by exact figures.
        if (cost::checkUndercount(m, m_requiredMacs, m_requiredMacs, m_simdLanes) != cost::Undercount::None) {
            m_impossible = true;
            return std::nullopt;
        }
        return toSearchMetrics(m, m_pes);
    }

    bool lastImpossible() const override { return m_impossible; }
    bool lastExceeded() const override { return m_exceeded; }

private:
    int dimId(const std::string& name)
    {
        // Dimension names are short and differ in their first letter: compare that before the strings
        // (this runs for every directive of every mapping a search evaluates).
        for (const auto& [n, id] : m_dimIds)
            if (n.size() == name.size() && n[0] == name[0] && n == name) return id;
        const int id = m_evaluator.dimId(name);
        m_dimIds.emplace_back(name, id);
        return id;
    }

    cost::Evaluator m_evaluator;
    DataflowFilter m_filter; ///< null: every mapping
    std::int64_t m_pes;
    std::int64_t m_simdLanes;
    std::int64_t m_requiredMacs; ///< the operator's MACs: what every mapping must count
    bool m_impossible = false;
    bool m_exceeded = false;
    std::vector<cost::Evaluator::DirectiveId> m_ids;
    std::vector<std::pair<std::string, int>> m_dimIds;
};

} // namespace

Metrics toSearchMetrics(const cost::Metrics& m, std::int64_t numPes)
{
    Metrics out;
    out.runtime = m.runtimeCycles;
    out.energy = m.totalEnergy();
    out.macEnergy = m.macEnergy;
    out.l1Energy = m.l1Energy;
    out.l2Energy = m.l2Energy;
    out.nocEnergy = m.nocEnergy;
    out.dramEnergy = m.dramEnergy;
    out.dramReads = m.dramReads();
    out.dramWrites = m.dramWrites();
    out.dramReadBytes = m.dramReadBytes();
    out.dramWriteBytes = m.dramWriteBytes();
    out.macs = m.macs;
    out.l1Requirement = m.l1SizeReq;
    out.l2Requirement = m.l2SizeReq;
    out.utilization = m.avgUtilizedPes / static_cast<double>(std::max<std::int64_t>(1, numPes));
    return out;
}

cost::Options costOptions(Fidelity fidelity)
{
    cost::Options options;
    options.fidelity = fidelity == Fidelity::Corrected ? cost::Fidelity::Corrected : cost::Fidelity::Maestro;
    return options;
}

EvaluatorFactory costModelEvaluators(const cost::Problem& problem, const arch::Accelerator& acc,
    Fidelity fidelity, const DataflowFilterFactory& filter)
{
    const cost::Options options = costOptions(fidelity);
    return [problem, acc, options, filter]() -> std::unique_ptr<MappingEvaluator> {
        return std::make_unique<CostModelEvaluator>(
            problem, acc, options, filter ? filter(problem, acc) : DataflowFilter{});
    };
}

std::vector<std::string> wholeDimensions(const cost::Problem& problem)
{
    std::vector<std::string> out;
    for (const cost::SlidingWindow& w : problem.windows)
        out.push_back(w.sliding);
    return out;
}

} // namespace marvel::search
