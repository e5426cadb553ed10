#pragma once
// The runtime-energy Pareto front of a mapping search: the points no other point beats on both.

#include <cstdint>
#include <vector>

namespace marvel::search {

/// One point: runtime, energy and the candidate index that produced it (ties are broken by the
/// lower index so that the front does not depend on the order points arrive in).
struct ParetoPoint
{
    std::int64_t runtime = 0;
    double energy = 0.0;
    std::uint64_t index = 0;
    friend bool operator==(const ParetoPoint&, const ParetoPoint&) = default;
};

/// True when `a` is at least as good as `b` on both objectives and better on one, or equal on both
/// with a lower index (so exactly one of two identical points survives).
bool dominates(const ParetoPoint& a, const ParetoPoint& b);

/// A front kept sorted by runtime ascending (energy then strictly descending).
class ParetoFront
{
public:
    /// Adds `p` unless a point dominates it; removes the points it dominates. True when added.
    bool insert(const ParetoPoint& p);
    /// True when some point of the front dominates `p` (it would not be added).
    bool isDominated(const ParetoPoint& p) const;
    /// True when a point has runtime <= r and energy <= e: nothing with runtime >= r and energy >= e
    /// can enter the front (used to skip branches by their lower bounds).
    bool covers(std::int64_t runtime, double energy) const;
    const std::vector<ParetoPoint>& points() const { return m_points; }
    std::size_t size() const { return m_points.size(); }
    bool empty() const { return m_points.empty(); }

private:
    std::vector<ParetoPoint> m_points;
};

/// The front of `points` by pairwise comparison (quadratic; the reference the tests compare with).
std::vector<ParetoPoint> bruteForceFront(const std::vector<ParetoPoint>& points);

} // namespace marvel::search
