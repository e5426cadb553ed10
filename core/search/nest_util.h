#pragma once
// Small queries on a perfect nest shared by the off-chip search, the roofline and the space sizes.

#include <cstdint>
#include <vector>

#include "core/ir/operator.h"

namespace marvel::search {

/// Every distinct tensor reference of the nest's statements (targets first, then reads, in statement
/// order; equal references once).
std::vector<ir::TensorRef> distinctRefs(const ir::PerfectNest& nest);

/// Divisors of n (n >= 1), ascending.
std::vector<std::int64_t> divisorsOf(std::int64_t n);

/// Tile sizes of a loop of `bound`: its divisors, every size 1..bound, or (neither) for each number of
/// tiles k the smallest size giving k tiles, ceil(bound / k): a larger size with the same count has as
/// many steps with bigger buffers and a more uneven last tile. These include every divisor and number
/// about 2 sqrt(bound) instead of bound. Ascending.
std::vector<std::int64_t> tileSizes(std::int64_t bound, bool divisorsOnly, bool everySize);

/// Index of the loop whose iterator is `name`, or -1.
int loopIndex(const ir::PerfectNest& nest, const std::string& name);

} // namespace marvel::search
