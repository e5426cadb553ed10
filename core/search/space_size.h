#pragma once
// Sizes of the mapping space and of its decoupled subspaces, for the paper's search-space table.
//
// A mapping of an n-loop perfect nest on the 3-level hierarchy chooses, per loop i with extent E_i,
// a chain of tile sizes t1 <= t2 <= t3 <= E_i (level 1: the L1 point tile; level 2: the chunk one PE
// gets, so the L3 tile is spread over ceil(t3 / t2) PEs along loop i; level 3: the L2 tile), one
// level-2 and one level-3 inter-tile loop order (n! each), and one DRAM layout per tensor (rank(t)
// choices of the innermost dimension). Hence
//   original  = prod_i #chains(E_i) * (n!)^2 * layouts
//   off-chip  = prod_i #t3(E_i) * n! * layouts                      (level-3 tiles, orders, layouts)
//   on-chip   = prod_i #(t1 <= t2 <= T3_i) * n!                      (for the chosen level-3 tile T3)
// Pruning: "divisors only" keeps t1 | t2 | t3 | E_i (no prologue/epilogue); the PE-utilisation bound
// p keeps the level-2 choices with p * numPes <= prod_i ceil(t3_i / t2_i) <= numPes. All counts are
// doubles because they reach 1e19 and beyond (and inf past 1.8e308: (100!)^2 orders of 100 loops).
// Memory does not grow with the PE count (up to 2^30 PEs); a PE-bounded figure that would need more
// than 2^20 distinct PE counts tracked is not counted and is NaN (JSON null).

#include <cstdint>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/ir/operator.h"

namespace marvel::search {

/// What the "pruned" figures prune.
struct SpaceSizeOptions
{
    bool divisorsOnly = true; ///< tile sizes divide the enclosing tile (no prologue/epilogue)
    double peUtilisationBound = 0.1; ///< minimum fraction of the PEs a level-2 tiling must use; 0 disables
    bool layouts = true; ///< count DRAM layouts (innermost-dimension reordering)
};

/// Every figure of one row of the paper's search-space table, for one operator.
struct SearchSpaceSizes
{
    double original = 0; ///< whole space, no pruning
    double offChip = 0; ///< level-3 tiles x level-3 orders x layouts, no pruning
    double onChip = 0; ///< level-1 x level-2 tiles x level-2 orders under the level-3 tile, no pruning
    double originalPruned = 0; ///< whole space with the pruning options
    double offChipPruned = 0; ///< off-chip subspace with divisor-only tiles
    double onChipPruned = 0; ///< on-chip subspace with divisor-only tiles and the PE-utilisation bound
};

/// Number of tile sizes of a loop of extent `extent`: all of 1..extent, or only its divisors.
double tileChoices(std::int64_t extent, bool divisorsOnly);
/// n! as a double.
double loopOrders(std::size_t loops);
/// Product over the distinct tensors of the nest of their rank (choices of the innermost dimension).
double layoutChoices(const ir::PerfectNest& nest);

/// Off-chip subspace: level-3 tile sizes x level-3 orders x layouts (layouts counted when `layouts`).
double offChipSpaceSize(const ir::PerfectNest& nest, bool divisorsOnly, bool layouts = true);
/// On-chip subspace under a fixed level-3 tile (one size per loop): level-2 tiles x level-1 tiles x
/// level-2 orders; `peUtilisationBound` > 0 applies the PE bound with `numPes`.
double onChipSpaceSize(const std::vector<std::int64_t>& l3Tile, std::int64_t numPes, bool divisorsOnly,
    double peUtilisationBound);
/// The whole space: tile chains of the three levels x both orders x layouts.
double originalSpaceSize(const ir::PerfectNest& nest, std::int64_t numPes, bool divisorsOnly,
    double peUtilisationBound, bool layouts = true);

/// All six figures; `l3Tile` is the level-3 tile the off-chip search chose (one size per loop).
SearchSpaceSizes searchSpaceSizes(const ir::PerfectNest& nest, const std::vector<std::int64_t>& l3Tile,
    const arch::Accelerator& acc, const SpaceSizeOptions& options = {});

/// Loop extents of a nest (LoopInfo::extent, at least 1).
std::vector<std::int64_t> loopExtents(const ir::PerfectNest& nest);

} // namespace marvel::search
