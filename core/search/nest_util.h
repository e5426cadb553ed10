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

/// Index of the loop whose iterator is `name`, or -1.
int loopIndex(const ir::PerfectNest& nest, const std::string& name);

} // namespace marvel::search
