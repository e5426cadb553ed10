#include "core/search/space_size.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "core/search/nest_util.h"

namespace marvel::search {

namespace {

// Number of level-1 choices under a level-2 tile t2: t1 in 1..t2, or the divisors of t2.
double l1Choices(std::int64_t t2, bool divisorsOnly)
{
    return tileChoices(t2, divisorsOnly);
}

// Distribution of the PE count along one loop: weight[f] = number of (t2, t1) choices (over every
// level-3 tile when `l3Extents` is a range) that split the level-3 tile into f parallel chunks, f <= cap.
// Sparse (only the f that occur, ascending), so that memory does not grow with the PE count: an
// accelerator may have up to 2^30 PEs, and a dense table per loop would take gigabytes.
using Weights = std::map<std::int64_t, double>;

Weights onChipWeights(std::int64_t t3, std::int64_t cap, bool divisorsOnly)
{
    Weights w;
    auto add = [&](std::int64_t t2) {
        std::int64_t f = (t3 + t2 - 1) / t2;
        if (f <= cap) w[f] += l1Choices(t2, divisorsOnly);
    };
    if (divisorsOnly) {
        for (std::int64_t t2 : divisorsOf(t3))
            add(t2);
    } else {
        // Only t2 >= t3 / cap can give f <= cap.
        for (std::int64_t t2 = std::max<std::int64_t>(1, t3 / std::max<std::int64_t>(cap, 1)); t2 <= t3; ++t2)
            add(t2);
    }
    return w;
}

Weights originalWeights(std::int64_t extent, std::int64_t cap, bool divisorsOnly)
{
    Weights w;
    if (divisorsOnly) {
        for (std::int64_t t3 : divisorsOf(extent))
            for (const auto& [f, weight] : onChipWeights(t3, cap, true))
                w[f] += weight;
        return w;
    }
    // For each t2, the t3 in [t2, extent] with ceil(t3 / t2) = f are those in ((f-1)*t2, f*t2].
    for (std::int64_t t2 = 1; t2 <= extent; ++t2) {
        double l1 = double(t2);
        for (std::int64_t f = 1; f <= cap; ++f) {
            std::int64_t lo = std::max<std::int64_t>((f - 1) * t2 + 1, t2);
            std::int64_t hi = std::min<std::int64_t>(f * t2, extent);
            if (lo > extent) break;
            if (hi >= lo) w[f] += l1 * double(hi - lo + 1);
        }
    }
    return w;
}

// Most distinct PE counts the bounded product keeps (16 bytes each, plus the map's nodes): beyond it the
// figure is not counted (NaN) rather than taking gigabytes or hours.
constexpr std::size_t kMaxProducts = std::size_t(1) << 20;

// Sum over per-loop choices of the product of weights, restricted to products of f in [lo, hi]; NaN when
// more than kMaxProducts distinct partial products would have to be tracked.
double boundedProduct(const std::vector<Weights>& perLoop, std::int64_t lo, std::int64_t hi)
{
    std::map<std::int64_t, double> dp{{1, 1.0}};
    for (const auto& w : perLoop) {
        std::map<std::int64_t, double> next;
        for (const auto& [p, count] : dp)
            for (const auto& [f, weight] : w) {
                if (f > hi / p) break; // ascending f: every later product exceeds hi too
                next[p * f] += count * weight;
            }
        if (next.size() > kMaxProducts) return std::numeric_limits<double>::quiet_NaN();
        dp = std::move(next);
    }
    double total = 0.0;
    for (const auto& [p, count] : dp)
        if (p >= lo && p <= hi) total += count;
    return total;
}

std::int64_t minimumPes(std::int64_t numPes, double bound)
{
    return std::max<std::int64_t>(1, std::int64_t(std::ceil(bound * double(numPes) - 1e-9)));
}

} // namespace

double tileChoices(std::int64_t extent, bool divisorsOnly)
{
    if (extent < 1) return 1.0;
    return divisorsOnly ? double(divisorsOf(extent).size()) : double(extent);
}

double loopOrders(std::size_t loops)
{
    double result = 1.0;
    for (std::size_t i = 2; i <= loops; ++i)
        result *= double(i);
    return result;
}

double layoutChoices(const ir::PerfectNest& nest)
{
    std::map<std::string, std::size_t> ranks;
    for (const auto& ref : distinctRefs(nest))
        ranks[ref.tensor] = std::max(ranks[ref.tensor], ref.subscripts.size());
    double result = 1.0;
    for (const auto& [name, rank] : ranks)
        result *= double(std::max<std::size_t>(rank, 1));
    return result;
}

std::vector<std::int64_t> loopExtents(const ir::PerfectNest& nest)
{
    std::vector<std::int64_t> extents;
    for (const auto& loop : nest.loops)
        extents.push_back(std::max<std::int64_t>(loop.extent, 1));
    return extents;
}

double offChipSpaceSize(const ir::PerfectNest& nest, bool divisorsOnly, bool layouts)
{
    double result = loopOrders(nest.loops.size()) * (layouts ? layoutChoices(nest) : 1.0);
    for (std::int64_t e : loopExtents(nest))
        result *= tileChoices(e, divisorsOnly);
    return result;
}

double onChipSpaceSize(const std::vector<std::int64_t>& l3Tile, std::int64_t numPes, bool divisorsOnly,
    double peUtilisationBound)
{
    double orders = loopOrders(l3Tile.size());
    if (peUtilisationBound <= 0.0) {
        double result = orders;
        for (std::int64_t t3 : l3Tile) {
            double pairs = 0.0;
            if (divisorsOnly) {
                for (std::int64_t t2 : divisorsOf(t3))
                    pairs += l1Choices(t2, true);
            } else {
                double t = double(std::max<std::int64_t>(t3, 1));
                pairs = t * (t + 1.0) / 2.0;
            }
            result *= pairs;
        }
        return result;
    }
    std::int64_t cap = std::max<std::int64_t>(numPes, 1);
    std::vector<Weights> perLoop;
    for (std::int64_t t3 : l3Tile)
        perLoop.push_back(onChipWeights(std::max<std::int64_t>(t3, 1), cap, divisorsOnly));
    return orders * boundedProduct(perLoop, minimumPes(cap, peUtilisationBound), cap);
}

double originalSpaceSize(const ir::PerfectNest& nest, std::int64_t numPes, bool divisorsOnly,
    double peUtilisationBound, bool layouts)
{
    double orders = loopOrders(nest.loops.size());
    double fixed = orders * orders * (layouts ? layoutChoices(nest) : 1.0);
    auto extents = loopExtents(nest);
    if (peUtilisationBound <= 0.0) {
        double result = fixed;
        for (std::int64_t e : extents) {
            double chains = 0.0;
            if (divisorsOnly) {
                for (std::int64_t t3 : divisorsOf(e))
                    for (std::int64_t t2 : divisorsOf(t3))
                        chains += l1Choices(t2, true);
            } else {
                double x = double(e);
                chains = x * (x + 1.0) * (x + 2.0) / 6.0;
            }
            result *= chains;
        }
        return result;
    }
    std::int64_t cap = std::max<std::int64_t>(numPes, 1);
    std::vector<Weights> perLoop;
    for (std::int64_t e : extents)
        perLoop.push_back(originalWeights(e, cap, divisorsOnly));
    return fixed * boundedProduct(perLoop, minimumPes(cap, peUtilisationBound), cap);
}

SearchSpaceSizes searchSpaceSizes(const ir::PerfectNest& nest, const std::vector<std::int64_t>& l3Tile,
    const arch::Accelerator& acc, const SpaceSizeOptions& options)
{
    SearchSpaceSizes s;
    s.original = originalSpaceSize(nest, acc.numPes, false, 0.0, options.layouts);
    s.offChip = offChipSpaceSize(nest, false, options.layouts);
    s.onChip = onChipSpaceSize(l3Tile, acc.numPes, false, 0.0);
    s.originalPruned = originalSpaceSize(
        nest, acc.numPes, options.divisorsOnly, options.peUtilisationBound, options.layouts);
    s.offChipPruned = offChipSpaceSize(nest, options.divisorsOnly, options.layouts);
    s.onChipPruned = onChipSpaceSize(l3Tile, acc.numPes, options.divisorsOnly, options.peUtilisationBound);
    return s;
}

} // namespace marvel::search
