#pragma once
// The design front shared by sweeps, the co-design and their views: the designs no other beats on both
// area and a figure (runtime, energy, EDP), area ascending.

#include <algorithm>
#include <cmath>
#include <vector>

namespace marvel::sweep {

/// Areas equal but for rounding: the same silicon summed in another order (L1 bytes traded for L2 bytes
/// at one SRAM density, say) must count as one area, or the front keeps the worse of two such designs.
inline bool sameArea(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

/// The front of `points` (area(p), figure(p)): sorted by area, figure and index; a point enters when its
/// figure is below every kept point's, and among points of the same area only the best stays.
template <class T, class Area, class Figure, class Index>
std::vector<T> areaFront(std::vector<const T*> points, Area area, Figure figure, Index index)
{
    std::sort(points.begin(), points.end(), [&](const T* a, const T* b) {
        if (area(*a) != area(*b)) return area(*a) < area(*b);
        if (figure(*a) != figure(*b)) return figure(*a) < figure(*b);
        return index(*a) < index(*b);
    });
    std::vector<T> out;
    for (const T* p : points) {
        if (!out.empty() && sameArea(area(*p), area(out.back()))) {
            // Still below the point kept before it: the kept figures only decrease.
            if (figure(*p) < figure(out.back())) out.back() = *p;
            continue;
        }
        if (out.empty() || figure(*p) < figure(out.back())) out.push_back(*p);
    }
    return out;
}

} // namespace marvel::sweep
