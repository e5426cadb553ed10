#pragma once
// The off-chip mapping subspace (paper, "Solving off-chip mapping subspace"): level-3 tile sizes, the
// level-3 inter-tile loop order and each tensor's DRAM layout, chosen with the classical
// distinct-block (DB) locality model instead of the on-chip cost model.
//
// DB model. A DRAM layout is an innermost-dimension reordering: one dimension of the tensor is made
// contiguous, the others keep their order. Every line of the contiguous dimension is assumed to start
// on a block boundary (padded to whole blocks), and a tile's footprint starts at a block boundary.
// For a reference T[s_0]...[s_k] and tile sizes T_i (iterators of the level-3 tile) the number of
// distinct blocks is
//     DB = blocks(s_inner) * prod_{j != inner} distinct(s_j)
// where distinct(s) is the number of distinct values the affine subscript s takes over the tile
// (the paper's approximation sum_i |a_i| (T_i - 1) + 1, e.g. y + r -> T_y + T_r - 1, made exact for
// strided and dilated subscripts such as 2*y with T_r = 1) and blocks(s) the number of distinct
// value / elementsPerBlock. DB is exact (equal to counting touched blocks) when no iterator appears
// in two subscripts of the same reference, as in every CONV/DSCONV/GEMM operator; otherwise it is
// an upper bound, as in the paper. Data-movement cost per iteration = sum over the distinct
// references of DB / prod_i T_i.
//
// Search. The cost is minimised over the level-3 tiles (divisors of the extents, or tileSizes) and
// the layouts subject to `footprint * bytesPerElement * (doubleBuffering ? 2 : 1) <= l2Bytes`, where
// a tensor's footprint is its distinct elements in the tile. Layouts decouple per tensor, so for each
// tile every tensor takes its best innermost dimension. Ties are broken towards the larger tile
// volume, then the lexicographically larger tile, so the answer does not depend on enumeration order.
// The enumeration prunes with the footprint (monotone in every tile size) and, for the last loop,
// evaluates only sizes at the end of a run where no DRAM-block count of that loop changes: within
// such a run the cost cannot increase with the tile size, so skipped sizes never beat the kept ones.
//
// Order. With the optimal tile and layouts, the partial derivatives of the smooth cost (ceil(F/B)
// relaxed to F/B and distinct() to the paper's span formula) are evaluated at the optimum; the loop
// with the most negative derivative (highest reuse) goes innermost and the others follow by their
// derivatives (ties keep nest order).

#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/ir/operator.h"

namespace marvel::search {

/// A tensor's DRAM layout: its dimensions in memory order, outermost first; the last is contiguous.
struct TensorLayout
{
    std::string tensor;
    std::vector<int> dimOrder;
    int innermost() const { return dimOrder.empty() ? -1 : dimOrder.back(); }
    /// "I: c,x,y" - dimension indices replaced by the subscript text of `ref` when given.
    std::string toString() const;
    friend bool operator==(const TensorLayout&, const TensorLayout&) = default;
};

/// The layout of a tensor of `rank` dimensions with `innermostDim` made contiguous and the others in
/// declaration order; `innermostDim` = rank - 1 is row-major.
TensorLayout innermostLayout(const std::string& tensor, int rank, int innermostDim);

/// Distinct values of one affine subscript over a tile, and the DRAM blocks they fall in when the
/// subscript is the contiguous dimension (values shifted so the smallest is 0).
struct SubscriptFootprint
{
    std::int64_t distinct = 1;
    std::int64_t blocks = 1;
};

/// Footprint of `subscript` when every iterator `name` ranges over [0, tile[name]) (absent iterators
/// and non-iterator names are held fixed).
SubscriptFootprint subscriptFootprint(const ir::AffineExpr& subscript,
    const std::map<std::string, std::int64_t>& tile, std::int64_t elementsPerBlock);

/// Distinct values of sum_i coefficient_i * x_i with x_i in [0, tile_i): exact (an upper bound only
/// for spans beyond 2^24 values). `terms` holds (coefficient, tile) pairs.
std::int64_t distinctSubscriptValues(std::span<const std::pair<std::int64_t, std::int64_t>> terms);

/// DB of `ref` for a tile (tile size per iterator name) under `layout` with `elementsPerBlock`
/// elements per DRAM block (dramBlockBytes / bytesPerElement, at least 1).
std::int64_t distinctBlocks(const ir::TensorRef& ref, const std::map<std::string, std::int64_t>& tile,
    const TensorLayout& layout, std::int64_t elementsPerBlock);

/// Distinct elements of `ref` touched by the tile (product of the subscripts' distinct values).
std::int64_t distinctElements(const ir::TensorRef& ref, const std::map<std::string, std::int64_t>& tile);

/// Knobs of the off-chip search.
struct OffChipOptions
{
    bool divisorsOnly = true; ///< level-3 tiles divide the loop extents ("no prologue/epilogue")
    /// Without divisorsOnly: every size, not only the smallest per number of tiles (tileSizes).
    bool everyTileSize = false;
    bool exploreLayouts = true; ///< false: every tensor row-major (last dimension contiguous)
    bool doubleBuffering = true; ///< the L2 holds two tiles of every tensor
    /// Largest level-3 tile per loop (nest order); missing or 0: the extent. The search uses it where
    /// the on-chip cost model can only describe small level-3 tiles of a loop exactly.
    std::vector<std::int64_t> maxTile;
    /// Requests to stop: the solver returns soon after with `cancelled` set (the app cancels searches).
    std::stop_token stop;
};

/// The best off-chip mapping and what the search saw.
struct OffChipSolution
{
    bool feasible = false; ///< false when not even the all-ones tile fits in L2, or when cancelled
    bool cancelled = false; ///< OffChipOptions::stop was requested before the search finished
    std::vector<std::int64_t> tile; ///< level-3 tile size per loop, in nest order
    std::vector<int> order; ///< level-3 inter-tile loop order: loop indices, outermost first
    std::vector<double> derivatives; ///< d cost / d tile size per loop at the optimum (nest order)
    std::vector<TensorLayout> layouts; ///< one per distinct tensor, in order of first reference
    std::int64_t distinctBlocksPerTile = 0; ///< sum of DB over the distinct references
    std::int64_t iterationsPerTile = 0; ///< product of the tile sizes
    double costPerIteration = 0; ///< distinctBlocksPerTile / iterationsPerTile
    std::int64_t l2FootprintBytes = 0; ///< including double buffering when enabled
    double originalSpaceSize = 0; ///< whole mapping space, no pruning (space_size.h)
    double offChipSpaceSize = 0; ///< level-3 tiles x orders x layouts, no pruning
    double offChipSpacePruned = 0; ///< the same with the options' tile pruning
    std::int64_t evaluated = 0; ///< tiles whose cost was computed
};

/// Solves the off-chip subspace of `nest`. Loop extents come from LoopInfo::extent (for triangular
/// loops the largest trip count); a non-positive extent is recomputed from `sizes` when the bound is
/// a size expression, else taken as 1.
OffChipSolution solveOffChip(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes,
    const arch::Accelerator& acc, const OffChipOptions& options = {});

/// Remembers off-chip solutions so that searches differing only in on-chip parameters (PEs, L1, NoC,
/// energies) skip the off-chip solve: Marvel's decoupling makes the solution depend only on the
/// operator, L2, the word and DRAM block sizes and the options. Thread-safe; keeps the most recent
/// `capacity` solutions; a key being solved is solved once, other callers wait for it. Used by the app's
/// retuning and by sweeps.
class OffChipCache
{
public:
    explicit OffChipCache(std::size_t capacity = 64)
        : m_capacity(capacity)
    { }
    /// solveOffChip, or the remembered result of an identical call. Cancelled solves are not kept.
    OffChipSolution solve(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes,
        const arch::Accelerator& acc, const OffChipOptions& options);
    std::uint64_t hits() const;
    std::uint64_t misses() const;

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_solved;
    std::set<std::string> m_solving; ///< keys a caller is solving now
    std::size_t m_capacity;
    std::list<std::pair<std::string, OffChipSolution>> m_entries; ///< most recently used first
    std::uint64_t m_hits = 0, m_misses = 0;
};

/// Cost per iteration (sum of DB / product of tile sizes) of a given tile and layouts, and whether it
/// fits in L2; what solveOffChip minimises, for tests and the on-chip search.
struct OffChipCost
{
    std::int64_t distinctBlocks = 0;
    std::int64_t iterations = 0;
    double costPerIteration = 0;
    std::int64_t l2FootprintBytes = 0;
    bool fitsL2 = false;
};
OffChipCost offChipCost(const ir::PerfectNest& nest, const std::vector<std::int64_t>& tile,
    const std::vector<TensorLayout>& layouts, const arch::Accelerator& acc,
    const OffChipOptions& options = {});

} // namespace marvel::search
