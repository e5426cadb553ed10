// The cost model's plain figures as a search evaluator: only a wrong MAC count rejected, no guard against
// MAESTRO's undercounts (search::costModelEvaluators has it). The undercount tests search with it to show
// the mapping the search ranked first before the guard.
#pragma once

#include <cstdint>
#include <optional>

#include "core/cost/costmodel.h"
#include "core/search/onchip_search.h"
#include "core/search/search.h"

namespace marvel::testing {

class UnguardedCostEvaluator final : public search::MappingEvaluator
{
public:
    UnguardedCostEvaluator(const cost::Problem& problem, const arch::Accelerator& acc)
        : m_evaluator(problem, acc)
        , m_macs(problem.analyticMacs())
        , m_pes(acc.numPes)
    { }
    std::optional<search::Metrics> evaluate(const mdc::Dataflow& dataflow) override
    {
        cost::Metrics m;
        if (!m_evaluator.evaluateMetrics(dataflow, m) || m.macs != m_macs) return std::nullopt;
        return search::toSearchMetrics(m, m_pes);
    }

private:
    cost::Evaluator m_evaluator;
    std::int64_t m_macs;
    std::int64_t m_pes;
};

} // namespace marvel::testing
