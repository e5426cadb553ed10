#include "core/search/constraint.h"

namespace marvel::search {

bool SearchConstraint::allowsOrder(
    const std::vector<mapping::MappedLoop>& loops, const std::vector<int>& level2Order) const
{
    if (stationaryAlternatives.empty()) return true;
    for (const std::vector<bool>& marked : stationaryAlternatives) {
        bool unmarkedSeen = false, ok = true;
        for (int i : level2Order) {
            const auto k = static_cast<std::size_t>(i);
            if (k >= loops.size() || loops[k].level2Iterations() <= 1) continue;
            const bool m = k < marked.size() && marked[k];
            if (!m)
                unmarkedSeen = true;
            else if (unmarkedSeen)
                ok = false;
        }
        if (ok) return true;
    }
    return false;
}

bool SearchConstraint::allows(const mapping::LoopNestMapping& mapping) const
{
    for (std::size_t i = 0; i < mapping.loops.size(); ++i)
        if (mapping.loops[i].isParallel() && !allowsParallel(i)) return false;
    return allowsOrder(mapping.loops, mapping.level2Order);
}

} // namespace marvel::search
