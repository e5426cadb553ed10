#include "core/search/pareto.h"

#include <algorithm>

namespace marvel::search {

bool dominates(const ParetoPoint& a, const ParetoPoint& b)
{
    if (a.runtime > b.runtime || a.energy > b.energy) return false;
    if (a.runtime < b.runtime || a.energy < b.energy) return true;
    return a.index < b.index;
}

bool ParetoFront::isDominated(const ParetoPoint& p) const
{
    // Points with runtime <= p.runtime are a prefix; the last of them has the least energy.
    auto end = std::upper_bound(m_points.begin(), m_points.end(), p.runtime,
        [](std::int64_t r, const ParetoPoint& q) { return r < q.runtime; });
    for (auto it = m_points.begin(); it != end; ++it)
        if (dominates(*it, p)) return true;
    return false;
}

bool ParetoFront::covers(std::int64_t runtime, double energy) const
{
    for (const ParetoPoint& q : m_points) {
        if (q.runtime > runtime) break;
        if (q.energy <= energy) return true;
    }
    return false;
}

bool ParetoFront::insert(const ParetoPoint& p)
{
    if (isDominated(p)) return false;
    std::erase_if(m_points, [&](const ParetoPoint& q) { return dominates(p, q); });
    auto pos = std::lower_bound(
        m_points.begin(), m_points.end(), p, [](const ParetoPoint& a, const ParetoPoint& b) {
            return a.runtime < b.runtime || (a.runtime == b.runtime && a.index < b.index);
        });
    m_points.insert(pos, p);
    return true;
}

std::vector<ParetoPoint> bruteForceFront(const std::vector<ParetoPoint>& points)
{
    std::vector<ParetoPoint> out;
    for (const ParetoPoint& p : points) {
        bool dominated = false;
        for (const ParetoPoint& q : points)
            if (&q != &p && dominates(q, p)) {
                dominated = true;
                break;
            }
        if (!dominated) out.push_back(p);
    }
    std::sort(out.begin(), out.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
        return a.runtime < b.runtime || (a.runtime == b.runtime && a.index < b.index);
    });
    return out;
}

} // namespace marvel::search
