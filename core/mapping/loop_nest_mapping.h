#pragma once
// A loop-nest mapping of a perfectly nested operator onto the paper's 3-level hierarchy (L1 per PE,
// the PE array, the shared L2; DRAM behind it), its translation to MDC directives (paper section
// "Transformation") and its readable forms (tiled C-like loop nest, JSON).

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/mdc/dataflow.h"
#include "core/util/diagnostic.h"

namespace marvel::mapping {

/// DRAM layout of one tensor: the order of its subscripts in memory, outermost first (the last one
/// is contiguous). The paper's innermost-dimension reordering picks which subscript comes last.
struct TensorLayout
{
    std::string tensor;
    std::vector<int> subscriptOrder;
    friend bool operator==(const TensorLayout&, const TensorLayout&) = default;
};

/// How toMdc sizes a map on a strided window's output dimension (Y'): MAESTRO reads a map of sz rows as
/// sz positions of the window at stride 1 (T output rows are written stride * (T - 1) + 1); corrected
/// fidelity, the simulator and the Timeloop export read it as sz output rows (FIX STRIDE,
/// doc/cost-model.md). The same text means different tiles to the two, so a mapping is written in the
/// convention of the cost model that will read it.
enum class StridedTiles {
    MaestroPositions,
    Outputs,
};

/// One loop of the mapped nest: its dimension name (ir::LoopInfo::dimName), iteration extent and the
/// tile size at each level. level1 <= level2 <= level3 <= extent; sizes need not divide each other
/// (the last tile of a loop is then partial, which the cost model's edge cases handle).
struct MappedLoop
{
    std::string dim;
    std::string iterator; ///< for printing; the dimension name lower-cased when empty
    std::int64_t extent = 1;
    std::int64_t level1 = 1; ///< L1 tile per PE (point loops)
    std::int64_t level2 = 1; ///< tile spread over the PE array: level2 > level1 makes the loop parallel
    std::int64_t level3 = 1; ///< L2 tile (one DRAM transfer)
    /// Stride of the sliding window whose output this loop is (1 otherwise). MAESTRO reads a map of
    /// sz output rows on a strided window as covering (sz + stride - 1) / stride rows, so toMdc writes
    /// a tile of T rows as stride * (T - 1) + 1 for it (MAESTRO then recomputes the offset itself);
    /// corrected fidelity reads sz as sz output rows (StridedTiles).
    std::int64_t windowStride = 1;
    /// For the output loop of a sliding window: the window's input (reference) dimension and its
    /// filter (sliding) dimension, MAESTRO's Y and R for Y' (empty otherwise). toMdc then spreads a
    /// parallel filter loop over the PEs together with the input rows it reads (see toMdc).
    std::string windowReference;
    std::string windowSliding;

    /// Level-1 tiles a level-2 tile spreads over the PEs (1: not parallel).
    std::int64_t parallelism() const { return (level2 + level1 - 1) / level1; }
    bool isParallel() const { return parallelism() > 1; }
    /// Level-2 tiles in one level-3 tile, and level-3 tiles in the whole loop.
    std::int64_t level2Iterations() const { return (level3 + level2 - 1) / level2; }
    std::int64_t level3Iterations() const { return (extent + level3 - 1) / level3; }
    friend bool operator==(const MappedLoop&, const MappedLoop&) = default;
};

/// How toMdc lays the inter-tile loops out in cluster levels (see toMdc). Separate is the paper's
/// transformation as written; Fused and TopSpatial are equivalent MAESTRO forms of the same loop nest
/// that the search also evaluates.
enum class Level2Form { Separate, Fused, TopSpatial };
/// "separate", "fused", "top_spatial".
std::string toString(Level2Form form);

/// A complete mapping. Orders hold loop indices (into `loops`), outermost first; they must be
/// permutations of all loops. Parallel loops are spread over the PEs in their level-2 order.
struct LoopNestMapping
{
    std::vector<MappedLoop> loops; ///< in the operator's nest order
    std::vector<int> level2Order; ///< inter-tile order of level-2 tiles inside a level-3 tile
    std::vector<int> level3Order; ///< inter-tile order of level-3 tiles (DRAM -> L2)
    std::vector<TensorLayout> layouts; ///< per tensor; empty means row-major as written
    Level2Form level2Form = Level2Form::Separate;

    /// Parallel loops (indices) in the order they nest: by position in level2Order.
    std::vector<int> parallelLoops() const;
    /// PEs a full level-2 tile occupies: product of the parallelisms.
    std::int64_t activePes() const;
    friend bool operator==(const LoopNestMapping&, const LoopNestMapping&) = default;
};

/// Structural problems, each naming its field ("loops[2].level1", "level2_order"): sizes out of
/// range or out of order, orders that are not permutations, more active PEs than the accelerator has
/// (when `acc` is given). Empty when the mapping is well formed.
std::vector<Diagnostic> validate(const LoopNestMapping& mapping, const arch::Accelerator* acc = nullptr);

/// Cluster levels the MDC form of a mapping needs. Separate: an inter-tile region counts when some
/// loop has more than one iteration in it, plus one per parallel loop, at least one. Fused: the
/// level-3 region plus one per parallel loop. TopSpatial: one per parallel loop.
int mdcLevelCount(const LoopNestMapping& mapping);
/// Whether the Fused form can describe the mapping: it needs a parallel loop and a carrier for the top
/// level's spatial map, which must step like a temporal map: a loop with a single level-3 tile (one
/// sub-unit busy, whatever the top level's count), or, on `acc`, any loop when the top level has a
/// single sub-unit (N_PE / active PEs < 2). Without `acc` only the first.
bool fusedFormApplies(const LoopNestMapping& mapping, const arch::Accelerator* acc = nullptr);
/// MAESTRO supports at most 4 cluster levels (3 Cluster directives).
inline constexpr int kMaxMdcLevels = 4;

/// Cluster sizes (file order) of the TopSpatial form of `mapping` on `acc`, or empty when the form
/// cannot describe it: it needs two parallel loops, an outer parallel loop (the first in level-2
/// order) whose level-3 tile is its level-2 tile, and cluster sizes that leave level 0 exactly that
/// loop's parallelism of sub-units - or at least as many when its level-3 tile is the whole loop, so
/// that one spatial step covers it. The sizes are the inner parallelisms; when that leaves level 0
/// too many sub-units the innermost cluster is enlarged (its spare sub-units idle) provided its
/// spatial map still takes a single step.
std::vector<std::int64_t> topSpatialClusters(const LoopNestMapping& mapping, const arch::Accelerator& acc);

/// The paper's transformation. Regions, outermost first, each a cluster level:
///  1. level-3 inter-tile loops: TemporalMap(T3,T3) in level-3 order (omitted when every loop has a
///     single level-3 tile), then Cluster(1) - the level has one sub-unit, the whole array;
///  2. level-2 inter-tile loops: TemporalMap(T2,T2) in level-2 order (omitted when trivial);
///  3. one region per parallel loop: SpatialMap(T1,T1) on its dimension and TemporalMaps of the tile
///     sizes still in force on the others (a single iteration each, so their order is irrelevant);
///     every parallel region but the innermost is closed by a Cluster;
///  4. the point loops TemporalMap(T1,T1), which coincide with the innermost parallel region's
///     directives and therefore share its level (with no parallel loop they form a level of their own).
/// MAESTRO-specific choices (documented because the paper's figure does not show them): MAESTRO needs a
/// SpatialMap in every level, so in an inter-tile level, which has one sub-unit, the innermost map is
/// written as a SpatialMap - on one sub-unit it steps exactly like the TemporalMap. MAESTRO gives the
/// level below `Cluster(c)` c sub-units and the top level N_PE / prod(c), so the cluster closing a
/// region carries the number of sub-units the next region spreads over: 1 between inter-tile regions,
/// the iteration count of the next parallel loop between parallel regions, and N_PE / (product of the
/// inner parallel loops' counts) between the last inter-tile region and the first parallel region -
/// which leaves the top level exactly one sub-unit.
/// A parallel region whose loop is a window's filter loop (R) while its output loop (Y') has a tile of
/// T rows in force is written the way MAESTRO's own row-stationary mappings are: SpatialMap(T1 +
/// stride * (T - 1), T1) on the input dimension (Y) before SpatialMap(T1,T1) R, and no Y' directive.
/// Each PE then receives exactly the input rows its filter rows read. Written with Y' instead, MAESTRO
/// derives one input row per step and walks every row of the parent's window, R times the work
/// (AlexNet CONV1: 12x its roofline instead of about 3x). With a strided window only T = 1 is written so,
/// as MAESTRO counts the output rows of a strided map ignoring the stride. Throws InputError when the mapping
/// is malformed or needs more than kMaxMdcLevels levels ("not representable in MAESTRO").
///
/// Fused form (a choice of ours where MAESTRO's levels differ from the paper's regions): a MAESTRO
/// cluster level is not a buffer but a step of the recursion whose single iteration still pays its
/// ingress before computing (spec section 5.3: the all-first case cannot overlap). A level of one
/// sub-unit holding the level-2 inter-tile loops, followed by the outer parallel region, therefore
/// exposes the outer region's ingress on every level-2 tile. The Fused form writes both regions as one
/// level: the level-2 inter-tile loops in level-2 order, where the outer parallel loop's directive is
/// its SpatialMap(T1,T1) - over the level-3 tile its folds are exactly that loop's level-2 inter-tile
/// iterations, and the parallel loop may sit at that position because parallel loops commute with the
/// loops around them (rule R2) - so MAESTRO double-buffers consecutive level-2 tiles. The level-3
/// region is always written (region 1), its innermost map a SpatialMap(T3,T3) on a loop with a single
/// level-3 tile, and is closed by Cluster(outer parallelism): the fused level then has exactly the
/// outer parallel loop's sub-units and the top level's spatial map keeps one of its N_PE / (product of
/// the parallelisms) sub-units busy. When no loop has a single level-3 tile but that top level has a single
/// sub-unit, the innermost level-3 loop carries the SpatialMap in its place: on one sub-unit it steps
/// exactly like its TemporalMap (as in the Separate form's inter-tile levels), so a GEMM whose three loops
/// are all split at level 3 has the Fused form too. The inner parallel regions follow as in the Separate
/// form.
/// Throws InputError when fusedFormApplies is false.
///
/// TopSpatial form (a choice of ours, needed for strided sliding windows in MAESTRO): MAESTRO sizes the
/// output rows of a strided window's tile as M[Y] - M[R] + 1, ignoring the stride (spec sections 3.3
/// step 4 and 4.1), and reports only level 0's MAC count; it therefore counts a strided output
/// dimension exactly only when level 0 maps it one row at a time, and then every inner level sees a
/// single output row of it too. The Separate and Fused forms put the level-3 tile of every loop in
/// level 0, which restricts a strided output loop to level-3 tiles of one row and leaves it no
/// parallelism. The TopSpatial form expresses the loop-nest mappings whose outer parallel loop p has a
/// level-3 tile equal to its level-2 tile: level 0 holds the level-3 inter-tile loops in level-3 order
/// as TemporalMap(T3,T3), except that p's directive is its SpatialMap(T1,T1) in p's level-3-order
/// place. Level 0 has exactly p's parallelism of sub-units (topSpatialClusters), so one spatial step
/// covers p's level-3 tile and the folds of the spatial map are p's level-3 inter-tile iterations; p
/// may sit at its level-3 position because it has one level-2 iteration and parallel loops commute
/// with the loops around them (rule R2). With T1 = 1 on a strided output dimension, level 0 then maps
/// it one row per sub-unit, which MAESTRO counts exactly (the row-stationary style of MAESTRO's own
/// AlexNet mapping, SpatialMap(1,1) Y' over clusters). The second parallel region is fused with the
/// level-2 inter-tile loops as in the Fused form (p's directive there is TemporalMap(T1,T1)), and the
/// further parallel regions follow as in the Separate form. Throws InputError when
/// topSpatialClusters is empty.
/// `strided` says how a map on a strided window's output dimension is sized (StridedTiles).
mdc::Dataflow toMdc(const LoopNestMapping& mapping, const arch::Accelerator& acc,
    StridedTiles strided = StridedTiles::MaestroPositions);

/// How printTiledLoopNest lays the nest out. The full form (default) is what exports write; the compact
/// form is for a panel that should show a whole 4-level nest at once.
struct LoopNestPrintOptions
{
    /// Leave out the level-3 and level-2 loops that run a single iteration (their variable is then the
    /// enclosing tile's start) and name them in one comment line.
    bool omitSingleIterationLoops = false;
    /// Close every brace on one line rather than one line each.
    bool closeOnOneLine = false;
};

/// The mapping as a C-like tiled loop nest: level-3 loops, level-2 loops, `parallel_for` loops over
/// the PEs and the point loops, each with its bounds and stride, then `body` as the statement.
std::string printTiledLoopNest(
    const LoopNestMapping& mapping, const std::string& body = {}, const LoopNestPrintOptions& options = {});

/// JSON form used by `--json` outputs and projects: {"loops": [{"dim", "iterator", "extent", "level1",
/// "level2", "level3", "window_stride", "parallelism"}], "level2_order": [dim...], "level3_order": [dim...],
/// "layouts": {tensor: [subscript index...]}, "level2_form": "separate"|"fused"|"top_spatial", "active_pes":
/// n} (level2_form may be absent on input: separate).
nlohmann::json toJson(const LoopNestMapping& mapping);
/// Inverse of toJson (derived fields ignored); throws InputError naming the field on malformed input.
LoopNestMapping mappingFromJson(const nlohmann::json& json);

} // namespace marvel::mapping
