#include "core/cost/costmodel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <compare>
#include <limits>
#include <map>
#include <set>

#include "core/cost/dram_traffic.h"
#include "core/cost/pe_fetches.h"
#include "core/cost/tile_geometry.h"

// Implementation notes (section numbers refer to the MDC cost-model spec).
//
// Corrected fidelity: each fix below is marked "FIX <quirk>" where it is applied.
//   FIX Q-REUSE-1  an uncoupled advancing loop no longer hides the re-fetch of a tensor whose inner
//                  coupled loops wrapped around: the whole tile is charged (with the usual multicast).
//   FIX Q-OUT-1    the edge-edge sub-unit of a spatial init-edge with E > 1 returns its outputs
//                  (its unique part, min(U, ME)) instead of UE, which is usually 0.
//   FIX Q-OUT-2    the new output rows per window step are offset / stride, never more than the tile.
//   FIX Q-EDGE-1   skipped (empty) cases no longer touch the output counters.
//   FIX Q-CSV-1    the CSV energy uses the layer's own counts, including MACs and output L2 reads.
//   FIX Q-OUT-3    a spatial edge step with one active unit returns its output rows (ME of Y'), not
//                  its input rows (ME of Y), which invented outputs and MACs.
//   FIX EDGE-UNITS a folded spatial map whose last fold ends in a partial sub-unit counts that unit
//                  among the active ones (MAESTRO's E misses it, dropping its MACs).
//   FIX Q-EDGE-3   a zero top-level compute delay counts as 1 in the off-chip requirement (guard).
//   FIX REUSE      (replaces the rules behind Q-REUSE-1..3) a sub-unit receives its tile minus what it kept
//                  from the previous step; non-first sub-units add what lies beyond their neighbour's tile.
//   FIX L1-WRITES  every receiver of a multicast writes it into its L1 (Q-REUSE-4).
//   FIX L1-OUTPUT  a window's output tile requires its outputs in L1, not the input rows they read.
//   GLOBAL BUFFER  the L2's reads and updates are those of gbLevel, where the PEs fetch and return
//                  (doc/cost-model.md, "Global-buffer traffic").
//   FIX CHILD-EXTENT a child level under a parent's edge tile uses the tile tables of its real extent.
//   FIX Q-EDGE-2   a map larger than its extent holds the whole extent.
//   (The last four were found by, and are checked against, the exact simulator in core/sim.)
//   FIX STRIDE     (behind the strided MAC miscount of the reference data) a strided window tile of o
//                  output rows spans (o-1)*stride + window input rows, and its output extent is
//                  (rows - window) / stride + 1, so strided tiles neither drop nor invent outputs.
//   FIX TAP-EXTENT a child level under a SpatialMap on a filter tap completes, over rows it inherited, the
//                  outputs of the taps it holds (at most the layer's), not of its own map's taps.
//   FIX TAP-COMPUTE a child level's own map on the window's outputs under fewer taps than it names returns
//                  its output rows but computes every output its rows give the taps it holds.
//   FIX TAP-IDLE   a sub-unit of a cluster level spreading taps whose taps complete no output of its rows
//                  runs no child execution (no L1 writes under it).
//   FIX TILE-SHIFT with a NoC that multicasts identical tiles, PEs under a moving cluster tile that also
//                  spread another of the tensor's dimensions fetch their own new part along the move, one
//                  send per distinct range there (not the cluster's new part times its PEs' halo ratio).
//   FIX HALO-SOURCE a level hands up its child executions' halo only when they measured it against the
//                  same map as it does (not against an overlapping map of its own).
//   FIX KEEP-GROUPS the keep over overlapping PE tiles is taken group by group of equal ranges on the
//                  tensor's other dimensions when those groups are apart.
//   FIX KEEP-SPLIT PEs under a moving cluster tile beside a halo between clusters keep only their own
//                  overlap; a SpatialMap whose extent fits in one tile does not spread its dimension over
//                  the PEs below (they hold its whole range, as under a temporal map).
//   FIX LAST-STEP  the final write-back to DRAM is charged to the last step itself.
//   FIX WRAP-KEEP  after a spatial map's full last fold wraps back to its first, each PE keeps the overlap
//                  of its last tile with its first (the keep across child executions).
//   FIX HALO-KEEP  the halo between sub-units of an overlapping map is taken off after a step whose PEs
//                  kept part of their tiles too: the child's first frame's halo of its tile less the kept
//                  box.
//   FIX HALO-DEEP  (extended) the halo of a map reaches the child executions that fetch it through levels
//                  that step its dimension or hold it whole (no directive, a temporal map over it, a
//                  SpatialMap of one tile), none spreading overlapping tiles; a level between hands up its
//                  children's halo after a keep (HALO-KEEP-DEEP), and after steps whose fetch is counted
//                  PE by PE where the PEs hold their sub-unit's whole tile (HALO-SHIFT).
//   FIX HALO-TWO   PEs under two overlapping maps measure their fetch's halo against both; the level
//                  between hands up the farther one's by inclusion and exclusion of the corners.
//   FIX HALO-NEST  the same for two overlapping maps of one dimension: the union of the level between's
//                  sub-units' fetches against itself moved by the farther map's offset.
//   FIX PE-BOXES   where the rules above cannot follow the PEs (a step moving a dimension they spread, or
//                  PE tiles overlapping along two dimensions), each PE's first and previous tiles as boxes,
//                  counted cell by cell as the NoC multicasts; also the halo after a keep where keptDeep
//                  cannot tell it.

namespace marvel::cost {

namespace {

using i64 = std::int64_t;
constexpr i64 kMaxI64 = std::numeric_limits<i64>::max();
constexpr i64 kProductLimit = i64(1) << 52;
/// PEs under a cluster level beyond which the tables leave out what they keep across its executions (the
/// rule enumerates them at every step; searches on arrays of hundreds of PEs stay as fast).
constexpr i64 kKeepPes = 64;

enum Pos : std::uint8_t { PosI = 0, PosS = 1, PosE = 2 };

/// Half-open index range of one dimension.
struct Span
{
    i64 begin = 0, end = 0;
    i64 size() const { return end > begin ? end - begin : 0; }
    friend auto operator<=>(const Span&, const Span&) = default; // by begin, then end
};
/// The number of indices the spans cover (sorts them).
i64 unionSize(std::vector<Span>& spans);

struct State
{
    i64 occ = 1;
    Pos pos = PosI;
    bool unrolled = false;
    bool initEdge = false;
    bool edgeEdge = false;
    bool edge = false;
    /// A spatial directive's sub-units hold the last fold's tiles (where the last one may be partial).
    bool lastFold() const { return (pos == PosI && edge) || pos == PosE; }
};

struct Dir
{
    bool spatial = false;
    int dim = -1;
    i64 sz = 1;
    i64 of = 1;
    int src = -1; ///< index in the user's dataflow, -1 for inherited/default directives
};

struct Level
{
    i64 P = 1;
    int n = 0;
    Dir d[kMaxLevelDirectives];
    int dirOf[kMaxDims];
    i64 D[kMaxDims];
    std::uint32_t present = 0;
    i64 M[kMaxDims], U[kMaxDims], ME[kMaxDims], UE[kMaxDims];
    i64 E = 1;
    int sp = -1;
    int lastSp = -1;
    // Per tensor: coupled spatial directives in coupling order (for ee = last one).
    int nCoupledSpatial[kMaxTensors];
    int lastCoupledSpatial[kMaxTensors];
    /// Per tensor: the directives (bits by index) over its dimensions.
    std::uint32_t tensorDirs[kMaxTensors];
    std::uint32_t spatialDirs = 0; ///< the spatial maps (bits by directive index)
    int nSpatial = 0;
    bool overlappingSpatial = false; ///< a spatial map's tiles overlap (offset below size)
    bool overlappingAny = false; ///< a map's tiles overlap
    std::uint32_t unevenDims = 0; ///< dimensions whose map's tiles overlap or end in a partial one
    /// FIX TAP-COMPUTE: window outputs (bits by reference dimension) whose tile, a map of the level's own on
    /// them, holds fewer taps than the map names (Evaluator::Impl::tapComputed).
    std::uint32_t tapComputeDims = 0;
};

struct LevelOut
{
    i64 runtime = 0;
    double avgUtil = 0.0;
    bool anyProcessed = false;
    i64 reqDn[kMaxTensors] = {};
    i64 peWrites[kMaxTensors] = {}; ///< corrected: elements written into the PEs' L1s over the execution
    /// Corrected: global-buffer traffic over the execution (the ingress and egress of the global-buffer
    /// level, Impl::gbLevel, summed over all its executions below this one).
    i64 gbIn[kMaxTensors] = {};
    i64 gbOut = 0;
    /// Corrected, under a parent whose spatial map of a tensor's dimension overlaps (Impl::haloFrom): of
    /// gbIn, what one sub-unit of the parent fetches at the same frames as its neighbour, the neighbour's
    /// tile being this one's moved by the map's offset (counted where gbIn is the level's own ingress).
    i64 gbHalo[kMaxTensors] = {};
    /// FIX HALO-TWO / HALO-NEST, PEs under two overlapping maps (Impl::haloUp): of gbIn, what the P
    /// sub-units of the level between (gbHaloUp) or the E of its last fold (gbHaloUpEdge) fetch at the same
    /// frames as their counterparts in the farther map's neighbouring sub-unit; haloUpLost: tensors for which
    /// it is not known.
    i64 gbHaloUp[kMaxTensors] = {};
    i64 gbHaloUpEdge[kMaxTensors] = {};
    std::uint32_t haloUpLost = 0;
    /// Corrected, at gbLevel and above: the tensor's tile in the global-buffer level's sub-units is the
    /// same at every step of the execution (each directive indexing it has a single position), so an
    /// execution that follows one with the same tile receives none of it.
    bool gbConst[kMaxTensors] = {};
};

struct MemoEntry
{
    i64 key[kMaxDims];
    i64 begin = -1; ///< a tap level's first row in the layer (FIX TAP-IDLE), -1 when not known
    LevelOut out;
};

enum class Err {
    None,
    UnknownDim,
    BadSize,
    BadClusterSize,
    TooManyClusters,
    ClusterExceedsPes,
    SlidingTemporal,
    SlidingOversize,
    BothPrimed,
    PrimedWithoutSliding,
    Duplicate,
    NotInInner,
    NoSpatial,
    TooManySpatial,
    TooManyDirectives,
    TooLarge,
    ZeroUnique,
    AllSkipped,
    ZeroCompute,
};

std::string formatDirective(const mdc::Directive& d)
{
    using Kind = mdc::Directive::Kind;
    if (d.kind == Kind::Cluster) return "Cluster(" + std::to_string(d.size) + ",P)";
    return std::string(d.kind == Kind::SpatialMap ? "SpatialMap(" : "TemporalMap(") + std::to_string(d.size)
        + "," + std::to_string(d.offset) + ") " + d.dim;
}

// acc += a * b, recording an overflow instead of wrapping (hostile tile sizes must not be UB).
inline void addMul(i64& acc, i64 a, i64 b, bool& overflow)
{
    i64 p = 0;
    const bool mulOverflow = __builtin_mul_overflow(a, b, &p);
    const bool addOverflow = __builtin_add_overflow(acc, p, &acc);
    overflow = overflow || mulOverflow || addOverflow;
}

i64 satAdd(i64 a, i64 b)
{
    i64 r;
    if (__builtin_add_overflow(a, b, &r)) return kMaxI64;
    return r;
}

i64 satMul(i64 a, i64 b)
{
    i64 r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return kMaxI64;
    return r;
}

} // namespace

struct Evaluator::Impl
{
    Problem problem;
    arch::Accelerator acc;
    Options opt;
    bool corrected = false;

    // ---- compiled problem ----
    int nd = 0;
    std::vector<std::string> names;
    i64 size0[kMaxDims] = {};
    i64 stride[kMaxDims] = {};
    int slideOf[kMaxDims]; ///< reference dim -> its sliding dim
    int outOf[kMaxDims]; ///< reference dim -> its output dim
    int refOf[kMaxDims]; ///< output dim -> its reference dim
    i64 dilation[kMaxDims]; ///< of the window whose reference dim this is
    std::uint32_t slidingMask = 0;
    std::uint32_t ivMask = 0;
    int unroll[kMaxDims];
    int nUnroll = 0;
    int nt = 0; ///< tensors; the last one is the output
    int nInputs = 0;
    int tdims[kMaxTensors][kMaxDims];
    int tcount[kMaxTensors] = {};
    std::uint32_t tmask[kMaxTensors] = {};
    std::vector<std::string> tensorNames;
    std::int64_t inputElems = 0, weightElems = 0, macsExpected = 0;
    i64 outExtent[kMaxDims] = {}; ///< reference dim -> output positions of its window (level 0)
    bool inputReadsWindowOutput = false; ///< an input-class tensor indexed by a window's output index

    // ---- DRAM traffic of level 0 ----
    dram::Engine dramEngine;
    dram::Traffic dramTraffic[kMaxTensors];
    /// Corrected fidelity: the last top-level step whose DRAM time was taken (its on-chip time, elements
    /// moved, positions and the previous step's), so that the final write-back can be added to it.
    struct LastTop
    {
        bool valid = false;
        i64 t = 0, moved = 0;
        bool hasPrev = false;
        i64 pos[kMaxLevelDirectives] = {}, prev[kMaxLevelDirectives] = {};
        /// Per-case tables: the positions of the case's last step (its representative is `pos`).
        i64 last[kMaxLevelDirectives] = {};
    } lastTop;
    i64 dramBlockBytes = 1; ///< bytes of one DRAM block as the engine counts them

    // ---- per evaluation ----
    int nLevels = 0;
    /// The level whose traffic is the global buffer's (L2's) reads and updates. Maestro fidelity: level 0,
    /// as MAESTRO counts. Corrected: the outermost level that keeps more than one sub-unit busy (the
    /// innermost when none does). The levels above it have a single busy sub-unit - the whole array,
    /// which has no buffer of its own (a search mapping's level-3 and level-2 inter-tile loops) - so the
    /// data its sub-units receive at each of their steps leave the L2 at that step: counting only at level
    /// 0 would charge the L2 once per DRAM tile however often the PEs fetch it (doc/timeloop.md).
    int gbLevel = 0;
    /// Corrected: per level l, a bit per tensor the PEs below can keep something of across its steps'
    /// child executions (keptAcross is 0 for the others).
    std::uint32_t keepFrom[kMaxLevels] = {};
    /// Corrected: level l is a cluster level whose one SpatialMap spreads a window's taps (FIX TAP-IDLE).
    bool tapLevel[kMaxLevels] = {};
    /// The first row in the layer of the region the next analysis of tap level l covers, -1 when not known
    /// (its parent names it to take off the L1 writes of the sub-units that compute nothing there).
    i64 tapBegin[kMaxLevels];
    /// Corrected, multicast of elements: per level l, a bit per input whose tiles l's single spatial map
    /// spreads over its sub-units with overlap (offset below size) while level l + 1 steps through that
    /// dimension in time: the sub-units' child executions fetch overlapping rows at the same frames.
    std::uint32_t haloFrom[kMaxLevels] = {};
    /// Per level l: the level whose haloFrom bits (haloBits[l]) it measures its fetch's halo for, -1 for
    /// none: its parent, or (FIX HALO-DEEP) a level above through parents holding that dimension whole.
    int haloSrc[kMaxLevels];
    std::uint32_t haloBits[kMaxLevels] = {};
    /// FIX HALO-TWO / HALO-NEST: per level l (the innermost only), the farther map it also measures its
    /// fetch's halo against when its parent spreads overlapping tiles of its own, -1 for none: the one the
    /// parent measured against (HALO-TWO, another dimension), or one two levels up whose dimension the
    /// parent spreads again (HALO-NEST); haloUpBits[l], the tensors it does so for.
    int haloUp[kMaxLevels];
    std::uint32_t haloUpBits[kMaxLevels] = {};
    Level lv[kMaxLevels];
    /// The user's top-level directives and sub-unit count lv[0] was last compiled from (compileDataflow).
    struct CompiledTop
    {
        bool valid = false;
        i64 P = 0;
        std::vector<DirectiveId> flow;
    } compiledTop;
    static bool sameDirective(const DirectiveId& a, const DirectiveId& b)
    {
        return a.kind == b.kind && a.size == b.size && a.offset == b.offset && a.dim == b.dim;
    }
    State states[kMaxLevels][kMaxLevelDirectives][3];
    int nStates[kMaxLevels][kMaxLevelDirectives];
    std::vector<MemoEntry> memo[kMaxLevels];
    bool haveFirst = false;
    i64 firstReqDn[kMaxTensors] = {};

    // Top-level accumulators.
    struct Top
    {
        TensorCounts t[kMaxTensors];
        i64 macs = 0;
        i64 peak = 0;
        i64 avgNum = 0;
        i64 sumOcc = 0;
        i64 dinMin, dinMax, dinSum, doutMin, doutMax, doutSum, compMin, compMax, compSum;
        double ai = 0.0;
        i64 offchip = 0;
        double util = 0.0;
    } top;

    // ---- error ----
    Err err = Err::None;
    int errSrc = -1;
    int errDim = -1;
    int errLevel = -1;
    SourceLoc errLoc;
    const mdc::Dataflow* userFlow = nullptr;

    static i64 eff(i64 taps, i64 dil) { return (taps <= 0 || dil == 1) ? taps : (taps - 1) * dil + 1; }

    bool fail(Err e, int src = -1, int dim = -1, int level = -1)
    {
        if (err == Err::None) {
            err = e;
            errSrc = src;
            errDim = dim;
            errLevel = level;
        }
        return false;
    }

    void compileProblem();
    bool compileDataflow(std::span<const DirectiveId> flow);
    void tileTables(Level& L) const;
    void edgeUnits(Level& L) const;
    void buildStates(int l, const i64* Dc);
    LevelOut analyze(int l, const i64* Dc);
    /// FIX TAP-IDLE: at a cluster level whose one SpatialMap spreads a window's taps, a sub-unit holding taps
    /// that complete no output of its rows runs no child execution. Over the case's `occ` steps: such
    /// sub-unit steps, `full` of whole tap tiles, `edge` of the last fold's partial one; false (both 0) when
    /// the positions are unknown.
    bool idleTapSubUnits(
        int l, const Level& L, const State* const* s, const i64* Dc, i64 occ, i64& full, i64& edge) const;
    /// The window's rows dimension of a tap level's taps, -1 when level l is not one.
    int tapRows(int l) const;
    /// FIX TAP-IDLE at level l's step (occ steps): takes off the PE writes of the sub-units (at a tap level)
    /// or of the child's sub-units (under one) that compute nothing; `full` and `edge` are one child
    /// execution's under a whole tile and under the last fold's partial one.
    [[gnu::noinline]] void tapIdleWrites(const Level& L, int l, const State* const* s, const i64* Dc, i64 occ,
        const i64* childDims, bool uniform, const i64* full, const i64* edge, LevelOut& res);
    /// FIX TAP-IDLE under level l: its child level l + 1 is a tap level over a part of the rows, which this
    /// level steps through from the layer's first: the L1 writes, over the case's `occ` steps, that the
    /// child's sub-units computing nothing at those rows do not make (`less`); false when not so.
    bool tapIdleBelow(const Level& L, int l, const State* const* s, const i64* Dc, i64 occ,
        const i64* childDims, i64* less);
    /// Whether the step walk evaluates the mapping; `subUnitSteps`: the walk's sub-unit steps.
    bool stepWalkApplies(i64* subUnitSteps = nullptr) const;
    struct Walked
    {
        i64 runtime = 0;
        double util = 0.0; ///< PEs busy on average over the executed steps
        i64 executed = 0; ///< steps executed
        i64 frames = 0; ///< steps of the innermost level, the sub-units in lock-step
    };
    /// Walks one execution of level l over `region`, its first frame `frameBase`, its first PE `peBase`.
    Walked walk(int l, const Span* region, i64 frameBase = 0, i64 peBase = 0);
    /// walk(l, region), replayed when walked before; `times` identical sub-units add their counts `times`
    /// times (the runtime and utilisation returned are one's).
    Walked walkChild(int l, const Span* region, i64 times = 1, i64 frameBase = 0, i64 peBase = 0);
    /// The walk's global buffer when gbLevel has cluster levels below it: every PE's tiles, frame by frame
    /// (doc/cost-model.md, "Global-buffer traffic"), counted after the walk within kFrameCountLimit element
    /// visits; beyond it the per-case tables' counts stand.
    bool gbByFrames = false;
    bool gbCounted = false; ///< the walk counted the global buffer (else the tables' counts stand)
    bool clustersBelowGb = false; ///< gbLevel has cluster levels below it
    PeFetchCounter peFetches;
    /// peFetches.addRun, also kept in runRecord while a walk's runs are recorded (recording > 0).
    void emitRun(
        i64 frame, i64 pe, i64 count, bool holds, bool computes, const AxisSpan* tiles, const i64* deltas);
    /// Walks `run` sub-units of level l (the first's region `region`, theirs `mine` on sd, equal in size):
    /// the first walked, the others its runs of PEs moved along sd and its L1 and MAC counts repeated.
    Walked walkMoved(
        int l, int sd, const Span* region, const Span* mine, size_t run, i64 frameBase, i64 peBase);
    struct RecordedRun
    {
        i64 frame = 0, pe = 0, count = 1;
        bool holds = false, computes = false;
    };
    int recording = 0;
    std::vector<RecordedRun> runRecord;
    std::vector<AxisSpan> runRecordTiles, movedTiles;
    std::vector<i64> runRecordDeltas, movedDeltas;
    std::vector<int> peAxisDim; ///< per axis of the PEs' tiles, its dimension
    std::vector<AxisSpan> peTiles;
    std::vector<i64> peDeltas;
    std::vector<char> peKinds;
    i64 pesPerSub[kMaxLevels] = {};
    LevelOut walkMapping();
    i64 activePes() const;
    /// Whether the sub-units of level L hold the same output tile at every step: its two SpatialMaps spread a
    /// window's input rows and filter taps in lock-step so that every sub-unit's rows minus taps are equal.
    bool sameOutputsAcross(const Level& L) const
    {
        int rows = -1, taps = -1;
        for (int k = 0; k < L.n; ++k) {
            if (!L.d[k].spatial) continue;
            if (outOf[L.d[k].dim] >= 0)
                rows = k;
            else
                taps = k;
        }
        if (rows < 0 || taps < 0 || slideOf[L.d[rows].dim] != L.d[taps].dim) return false;
        return L.d[rows].of == L.d[taps].of * std::max<i64>(dilation[L.d[rows].dim], 1);
    }
    i64 walkReqIn = 0; ///< double-buffered input tiles of the walk's first top-level step
    struct WalkScratch
    {
        std::vector<Span> mine, prevMine, outs, news;
        std::vector<i64> work;
        // Per-dimension ranges, kept here rather than on the stack: zeroing them on every call of the
        // walk (once per sub-unit and step of the level above) cost a fifth of its time.
        Span cur[kMaxDims], prev[kMaxDims], sub[kMaxDims], outCommon[kMaxDims];
    } walkScratch[kMaxLevels];
    /// The walk's global-buffer level (gbLevel > 0): what its sub-units held at its last executed step, over
    /// all its executions so far (they keep it into the next execution).
    struct GbCarry
    {
        bool any = false;
        Span prev[kMaxDims];
        std::vector<Span> prevMine;
        size_t held = 0; ///< sub-units 0 .. held-1 held prevMine at the last executed step
        /// The spread dimension's range and fold (first tile) of that step: with disjoint tiles, equal
        /// ones mean prevMine is the current step's tiles, a new fold in the same range that they share
        /// nothing.
        Span spreadRange;
        i64 fold = -1;
        /// Outputs: the ranges the sub-units' partial sums covered at the level's last executed step (the
        /// dimensions they share, then each sub-unit's range on the one that differs: {0, 1} when none
        /// does, empty when it computed nothing).
        bool anyOut = false;
        Span outCommon[kMaxDims];
        int nOutCommon = 0;
        std::vector<Span> prevOut, curOut, scratch;
        void reset()
        {
            any = anyOut = false;
            prevMine.clear();
            held = 0;
            fold = -1;
            prevOut.clear();
            curOut.clear();
        }
        /// Outputs held at the last step and not at this one (common ranges `oc`, curOut): (|prev| - |kept|)
        /// x |union of prevOut| + |kept| x |union of (prevOut_j minus curOut_j)|; all of them when `oc` is
        /// null (the end).
        i64 drained(const Span* oc);
        void grow(size_t n)
        {
            if (prevMine.size() < n) prevMine.resize(n);
        }
    } gbCarry;
    /// Corrected walk: the child walks of one evaluation by their region, where the region is keyed by its
    /// absolute ranges on the dimensions a window makes position-dependent (edges clip, strides skip) and
    /// by its size on the others. Below the global-buffer level a child walk is a pure function of that
    /// key plus its additions to the L1 and MAC counts; most sub-units of a level repeat a shape the
    /// level above has already walked (its steps over the other dimensions), so replaying them saves most
    /// of a two- or three-level walk.
    struct ChildWalks
    {
        static constexpr size_t kSlots = 2048; // a power of two
        static constexpr int kProbes = 8;
        struct Entry
        {
            std::uint32_t generation = 0;
            int level = 0;
            std::uint64_t hash = 0;
            Span key[kMaxDims];
            Walked walked;
            i64 l1Write[kMaxTensors], l1Read[kMaxTensors], macs;
        };
        std::vector<Entry> slots;
        std::uint32_t generation = 0;
        std::uint32_t positional = 0; ///< dimensions keyed by absolute range
        bool enabledBelow[kMaxLevels] = {}; ///< child walks of level l may be replayed
        void startEvaluation()
        {
            if (slots.empty()) slots.resize(kSlots);
            if (++generation == 0) { // wrapped: forget every entry
                for (Entry& e : slots)
                    e.generation = 0;
                generation = 1;
            }
        }
    } childWalks;
    const LevelOut* child(int l, const i64* Dc);
    /// `runtimeCeiling` >= 0: stop after compiling when runtimeBound() exceeds it (exceededCeiling).
    bool run(std::span<const DirectiveId> flow, Metrics& out, i64 runtimeCeiling = -1);
    /// Corrected fidelity: a lower bound on the runtime of the compiled dataflow from its compute and the
    /// first fetch of every execution of every level; -1 where it is not known (its comment says where).
    i64 runtimeBound();
    bool exceededCeiling = false;

    // Per-case formulas (§4.4). s[i] is the state of directive i in the current case.
    i64 mapped(const Level& L, const State* const* s, int t, bool first, bool eepe) const;
    i64 ingress(
        const Level& L, const State* const* s, int t, bool first, bool eepe, int ch, bool fresh) const;
    /// FIX TAP-COMPUTE: the outputs a tile of the window's rows v (a whole one, else the edge one) gives the
    /// taps the level holds, which fewer than its own map on the outputs names.
    i64 tapComputed(const Level& L, int v, bool whole) const
    {
        const int w = slideOf[v];
        const i64 rows = whole ? L.M[v] : L.ME[v];
        const i64 taps = eff(whole ? L.D[w] : std::min(L.ME[w], L.D[w]), dilation[v]);
        return std::min(rows < taps ? 0 : (rows - taps) / std::max<i64>(stride[v], 1) + 1, outExtent[v]);
    }
    i64 peout(const Level& L, const State* const* s, bool psum, bool first, bool eepe, bool reuse,
        bool strictUnique = false) const;
    /// FIX TAP-COMPUTE: `L` with the outputs that the tiles of its flagged window rows give the taps it holds
    /// (a temporal map's tile, whole or the edge one), in `T`: the tables of the sub-units' work.
    [[gnu::noinline]] const Level& tapWorkLevel(const Level& L, Level& T) const
    {
        T = L;
        for (int v = 0; v < nd; ++v) {
            const int j = L.dirOf[v];
            if (!(L.tapComputeDims >> v & 1u) || j < 0 || L.d[j].spatial) continue;
            T.M[outOf[v]] = tapComputed(L, v, true);
            T.ME[outOf[v]] = tapComputed(L, v, false);
        }
        return T;
    }
    i64 ingressExact(
        const Level& L, int l, const State* const* s, int t, bool unique, bool eepe, int ch) const;
    /// Of ingressExact's elements, those the same fetch moved by `of` along dimension v also has.
    /// FIX HALO-TWO: the fetch of haloExact's tile less its kept box, when that is a box: what it shares
    /// with itself moved by o2 along v2 (h2) and with itself moved along v1 by o1, along v2 by o2 and both
    /// (corner); false when the fetch is not a box.
    bool haloBox(const Level& L, int l, const State* const* s, int t, bool unique, bool eepe, int ch, int v1,
        i64 o1, int v2, i64 o2, i64& h2, i64& corner) const;
    /// The fetch of exactExtent's tile less its kept box as a box (its n dimensions and lengths), false
    /// when it is none.
    bool fetchBox(const Level& L, int l, const State* const* s, int t, bool unique, bool eepe, int ch,
        int* dims, i64* len, int& n) const;
    /// FIX HALO-NEST: what `subUnits` sub-units of level l - 1, each fetching this box moved by their map's
    /// offset, share with their counterparts moved by the offset of the map haloUp[l]; false when the
    /// fetch is no box.
    bool nestHalo(const Level& L, int l, const State* const* s, int t, bool unique, bool eepe, int ch,
        i64 subUnits, i64& halo);
    i64 haloExact(const Level& L, int l, const State* const* s, int t, bool unique, bool eepe, int ch, int v,
        i64 of) const;
    void exactExtent(const Level& L, int l, const State* const* s, int j, bool unique, bool eepe, int ch,
        i64& c, i64& o) const;
    /// Per level and directive, set by analyze: of a spatial map's first fold, what a sub-unit kept from
    /// the last fold when the map wrapped around (FIX FOLD-WRAP; 0 for the others).
    i64 foldWrapKept[kMaxLevels][kMaxLevelDirectives] = {};
    template <class F> i64 aggregate(const Level& L, bool spm, bool spe, bool ee, F&& f) const
    {
        if (!spm) return f(true, false);
        if (!spe) return f(true, false) + (L.P - 1) * f(false, false);
        i64 v = f(true, L.E == 1 && ee);
        if (L.E > 1) {
            i64 nee = ee ? 1 : 0;
            i64 nfull = std::max<i64>(L.E - nee - 1, 0);
            v += nfull * f(false, false) + nee * f(false, true);
        }
        return v;
    }

    Diagnostic diagnostic() const;
    std::vector<DirectiveId> scratchFlow;
    /// PEs of different sub-units of level l holding identical tiles (its spatial map's tiles overlap):
    /// the share of the sub-units' summed child counts of tensor t that leaves the L2, num / den, when
    /// the PEs' ranges on the map's dimension stay put through the child execution; false otherwise.
    bool overlapShare(const Level& L, int l, int t, const i64* childDims, i64 n, i64& num, i64& den);
    /// What the PEs below level l fetch of tensor t when the step advanced only along one dimension of t
    /// that the levels below spread over their PEs without stepping through it: each PE's range moves with
    /// its sub-unit's and keeps only its own overlap (multicast of elements), also when the step moved t's
    /// region along dimensions every PE holds whole besides; false when that is not so.
    /// `summed` (sub-units of unequal tiles, counted kind by kind): set to whether the kinds' counts add up
    /// (else they are the same PEs' tiles, counted once); a map along the step's dimension is then refused.
    /// FIX PE-BOXES: what the PEs below level l, whose tiles stay put through a child execution, fetch of
    /// input t at a step that moved it along a dimension they spread: an element is sent when a PE holding
    /// it now did not hold it before (peBoxes, boxCount); false when the step moved nothing they spread or
    /// the boxes are too many to count.
    bool peBoxFetch(const Level& L, int l, int t, int ch, std::uint32_t moving, const i64* childDims, i64 n,
        i64& fetched);
    bool peShiftFetch(const Level& L, int l, int t, int ch, const i64* childDims, i64 n, i64& fetched,
        bool* summed = nullptr);
    /// FIX KEEP-SPLIT: in peShiftFetch, the union of the `n` sub-units' ranges on the dimension of level l's
    /// SpatialMap hk, whose tiles of t overlap, in `span`; false when the rule does not hold (`refuse`).
    bool haloSpan(
        const Level& L, int l, int t, int hk, const i64* childDims, i64 n, bool refuse, i64& span) const;
    /// The ranges on dimension v of the PEs of one sub-unit of level l over `ext` rows, one slot per PE
    /// (empty for a PE without a tile), in `out`; false when a level below steps through the rows.
    bool peSpans(int l, int v, i64 ext, std::vector<Span>& out);
    /// Whether the step moved the tiles of t along the dimension l spreads, whose whole range of each
    /// sub-unit the PEs below hold: then a sub-unit's keep lies at one end of its range.
    bool keptAtOneEnd(const Level& L, int l, int ch, std::uint32_t moving, int t, const i64* childDims) const;
    /// FIX HALO-SOURCE: whether the halos level l's child executions measured (LevelOut::gbHalo, against
    /// the map of level haloSrc[l + 1]) are level l's own, against the map of haloSrc[l], so that it may
    /// hand them up. A child under a map of level l that overlaps measures its halo against that map, not
    /// the one above: its rows shared with a neighbouring cluster of l are no columns shared with a
    /// neighbouring sub-unit higher up (seed 44 case 9869 of the wide export took 36 of 72 input reads off).
    bool childHaloIsHere(int l) const { return haloSrc[l + 1] == haloSrc[l]; }
    /// FIX KEEP-SPLIT: whether level B's SpatialMap j gives its sub-units different ranges of its dimension.
    /// One whose extent fits in a single tile keeps one sub-unit busy with the whole range, as a temporal
    /// map over it does: the PEs below hold their cluster's whole range there, they do not spread it (seed
    /// 66 case 13373 of the wide export: a step moving the columns, held so, and the rows wrapping, spread,
    /// was taken for two spread dimensions moved and left to the clusters' keep, 144 input reads of 156).
    static bool spreadsRange(const Level& B, int j)
    {
        return tileCount(B.d[j].sz, B.d[j].of, B.D[B.d[j].dim]) > 1;
    }
    /// Whether a level below l spreads one of t's dimensions over its sub-units (the PEs then hold parts of
    /// their sub-unit's tile of t, not all of it).
    /// The index of dimension v among tensor t's (tdims[t]), -1 when t has none.
    int axisOf(int t, int v) const
    {
        for (int a = 0; a < tcount[t]; ++a)
            if (tdims[t][a] == v) return a;
        return -1;
    }
    /// The PEs below n sub-units of level l.
    i64 pesBelow(int l, i64 n) const
    {
        for (int b = l + 1; b < nLevels; ++b)
            n = satMul(n, lv[b].P);
        return n;
    }
    bool tensorSpreadBelow(int l, int t) const
    {
        for (int b = l + 1; b < nLevels; ++b)
            for (int j = 0; j < lv[b].n; ++j)
                if (lv[b].d[j].spatial && (tmask[t] >> lv[b].d[j].dim & 1u) && spreadsRange(lv[b], j))
                    return true;
        return false;
    }
    std::vector<Span> shareSpans, shareNext, shiftPrev, shiftCur, shiftOther;
    std::vector<std::pair<Span, Span>> shiftPairs;
    /// What the PEs of one child execution (level l + 1, the innermost, over `childDims`) still hold of
    /// tensor t from the previous step's execution, which the child's count fetches (inputs) or returns
    /// (outputs) again at its first step: 0 when they hold nothing or the tables cannot tell.
    /// FIX HALO-KEEP: asked for by keptAcross's caller under a map whose sub-units' tiles overlap along v
    /// by size - of: the halo of the child's first frame (the sub-units' shared elements) from empty
    /// buffers (full) and once the PEs kept what keptAcross credits (kept); ok false when not known.
    struct KeptHalo
    {
        int v = -1;
        i64 of = 0;
        bool ok = false;
        i64 full = 0, kept = 0;
        /// The halo of PE boxes of `box` elements off v (`boxV` rows on it) once they kept `keptBox` off v
        /// (`keptV` rows on it, at one end): what a PE fetches overlaps its counterpart's in the neighbouring
        /// sub-unit, moved by `of` along v, by boxV - of rows outside the kept box, boxV - keptV - of inside.
        i64 after(i64 box, i64 boxV, i64 keptBox, i64 keptV) const
        {
            return satAdd(satMul(box - keptBox, std::max<i64>(0, boxV - of)),
                satMul(keptBox, std::max<i64>(0, boxV - keptV - of)));
        }
    };
    i64 keptAcross(const Level& L, int l, int ch, std::uint32_t moving, int t, const i64* childDims,
        bool childMoves, KeptHalo* kh = nullptr);
    /// How a step of level L moved the region of tensor t its child execution covers: along each dimension
    /// u of `moved` by delta[u] (a previous position p is p - delta[u] here), the previous region
    /// prevExt[u] long on u; `moved` 0 when the step left t's region where it was. `ok` false when the
    /// tables cannot tell (an output's loops wrapped around, a spatial map over sub-units wrapped).
    struct StepShift
    {
        bool ok = true;
        std::uint32_t moved = 0;
        int v = -1; ///< the advancing directive's dimension
        i64 delta[kMaxDims], prevExt[kMaxDims];
        bool shifted(int u) const { return moved >> u & 1u; }
        i64 du(int u) const { return shifted(u) ? delta[u] : 0; }
        /// The previous region lies wholly apart from the child's `childDims` along some dimension of
        /// the nd: nothing of it is here.
        bool apart(const i64* childDims, int nd) const;
    };
    StepShift stepShift(const Level& L, int ch, std::uint32_t moving, int t) const;
    /// FIX PE-BOXES: the PEs' tiles of t below n sub-units of level l at the child execution's first frame
    /// (boxCur) and at the previous execution's last one (boxPrev, moved back as sh says), per dimension of
    /// t, and the cuts their edges make (boxCuts); false beyond kBoxPes PEs or kBoxWork cells times PEs.
    bool peBoxes(const Level& L, int l, int t, const i64* childDims, const StepShift& sh, i64 n);
    /// The elements the PEs of peBoxes fetch from empty buffers, or (lessPrev) beside what they held before,
    /// counted as the NoC multicasts them.
    i64 boxCount(int t, bool lessPrev) const;
    /// keptAcross from peBoxes: what the PEs of one child execution held of their tiles before.
    i64 keptBoxes(int l, int t, const i64* childDims, const StepShift& sh);
    /// FIX PE-BOXES for FIX HALO-KEEP: the halo of the first frame of peBoxes' PEs, what their fetch shares
    /// with itself moved by kh.of along kh.v, from empty buffers (kh.full) and beside what they held
    /// (kh.kept); multicast of elements only.
    void boxHalo(int t, KeptHalo& kh);
    std::vector<Span> boxCur[kMaxDims], boxPrev[kMaxDims];
    std::vector<i64> boxCuts[kMaxDims];
    i64 nBoxes = 0;
    /// Whether PE b's box of `spans` (boxCur or boxPrev) holds point p (na coordinates).
    bool boxHolds(const std::vector<Span>* spans, i64 b, const i64* p, int na) const
    {
        for (int a = 0; a < na; ++a) {
            const Span x = spans[a][size_t(b)];
            if (x.size() <= 0 || p[a] < x.begin || p[a] >= x.end) return false;
        }
        return true;
    }
    /// Calls f(lo, volume) for every cell the cuts of the na dimensions make (lo: its lowest point).
    template <class F> void forEachBoxCell(int na, F&& f) const
    {
        i64 cells = 1;
        for (int a = 0; a < na; ++a)
            cells = satMul(cells, std::max<i64>(0, i64(boxCuts[a].size()) - 1));
        i64 at[kMaxDims] = {}, lo[kMaxDims];
        for (i64 c = 0; c < cells; ++c) {
            i64 vol = 1;
            for (int a = 0; a < na; ++a) {
                lo[a] = boxCuts[a][size_t(at[a])];
                vol *= boxCuts[a][size_t(at[a]) + 1] - lo[a];
            }
            f(static_cast<const i64*>(lo), vol);
            for (int a = na - 1; a >= 0; --a) {
                if (++at[a] + 1 < i64(boxCuts[a].size())) break;
                at[a] = 0;
            }
        }
    }
    /// FIX WRAP-KEEP: the move of a spatial map over several sub-units that wrapped around into r (false
    /// when its sub-units move unlike).
    bool foldWrapShift(const Level& L, const Dir& w, StepShift& r) const;
    /// keptAcross when level l + 1 has levels below it: every PE enumerated.
    i64 keptDeep(int l, int t, const i64* childDims, const StepShift& sh, KeptHalo* kh);
    /// keptDeep's answers in this evaluation: the cases of a level ask the same few again and again.
    struct KeptDeepSeen
    {
        int l, t;
        std::uint32_t moved;
        i64 key[3 * kMaxDims];
        i64 kept;
        bool halo; ///< asked with a KeptHalo, which is then khSeen
        KeptHalo khSeen;
    };
    std::vector<KeptDeepSeen> keptDeepSeen;
    i64 keptDeepMemo(int l, int t, const i64* childDims, const StepShift& sh, KeptHalo* kh);
    /// keptDeep, or FIX PE-BOXES' count where keptDeep does not follow the PEs (keptDeepMemo's work).
    i64 keptDeepOrBoxes(int l, int t, const i64* childDims, const StepShift& sh, KeptHalo* kh);
    struct DeepPe
    {
        Span first[kMaxDims];
        i64 kept = 0;
        Span keptOn; ///< over PEs of overlapping tiles: the part kept on their spread dimension
        i64 keptRest = 1; ///< and the product of the others' parts kept
    };
    std::vector<DeepPe> deepPes;
    /// FIX DEEP-HALO-KEEP: each PE's kept part on each dimension of the tensor (tcount of them a PE, in
    /// deepPes' order), gathered only when a KeptHalo is asked for.
    std::vector<Span> deepKeptOf;
    /// FIX DEEP-HALO-KEEP: keptAcross's KeptHalo from keptDeep's PEs (deepPes), when exact.
    void deepKeptHalo(int t, KeptHalo& kh);
    /// Corrected fidelity: whether the NoC sends a tensor to each receiving sub-unit separately (no
    /// multicast, or multicast of identical tiles only and `spatiallyIndexed`: the level's spatial maps
    /// give the sub-units different tiles of it).
    bool sendsEveryCopy(bool spatiallyIndexed) const
    {
        return corrected
            && (acc.multicast == arch::Multicast::None
                || (acc.multicast == arch::Multicast::Tiles && spatiallyIndexed));
    }
};

// ------------------------------------------------------------------------------------------------
// Problem compilation

void Evaluator::Impl::compileProblem()
{
    std::vector<Diagnostic> problems = problem.validate();
    if (problem.dims.size() > size_t(kMaxDims)) {
        Diagnostic d;
        d.file = problem.file;
        d.loc = problem.loc;
        d.message = "'" + problem.name + "': more than " + std::to_string(kMaxDims) + " dimensions";
        problems.push_back(d);
    }
    size_t tensors = problem.tensors.size();
    if (tensors > size_t(kMaxTensors)) {
        Diagnostic d;
        d.file = problem.file;
        d.loc = problem.loc;
        d.message = "'" + problem.name + "': more than " + std::to_string(kMaxTensors) + " tensors";
        problems.push_back(d);
    }
    if (!problems.empty()) throw InputError(problems);

    nd = int(problem.dims.size());
    for (int i = 0; i < kMaxDims; ++i) {
        slideOf[i] = outOf[i] = refOf[i] = -1;
        dilation[i] = 1;
    }
    for (int i = 0; i < nd; ++i) {
        names.push_back(problem.dims[size_t(i)].name);
        size0[i] = problem.dims[size_t(i)].size;
        stride[i] = problem.dims[size_t(i)].stride;
    }
    auto id = [&](const std::string& n) {
        for (int i = 0; i < nd; ++i)
            if (names[size_t(i)] == n) return i;
        return -1;
    };
    for (const auto& w : problem.windows) {
        int r = id(w.reference), s = id(w.sliding), o = id(w.output);
        slideOf[r] = s;
        outOf[r] = o;
        refOf[o] = r;
        dilation[r] = w.dilation;
        stride[r] = w.stride;
        slidingMask |= 1u << s;
        const i64 span = (size0[s] - 1) * std::max<i64>(w.dilation, 1) + 1;
        outExtent[r] = problem.dims[size_t(o)].declared
            ? size0[o]
            : (size0[r] < span ? 0 : (size0[r] - span) / std::max<i64>(w.stride, 1) + 1);
    }
    // Input-class tensors first, the output last; output coupling uses the reference dimensions.
    std::vector<const ProblemTensor*> order;
    for (const auto& t : problem.tensors)
        if (t.role == ProblemTensor::Role::Input) order.push_back(&t);
    nInputs = int(order.size());
    order.push_back(problem.output());
    nt = int(order.size());
    for (int t = 0; t < nt; ++t) {
        tensorNames.push_back(order[size_t(t)]->name);
        for (const auto& dn : order[size_t(t)]->dims) {
            int i = id(dn);
            if (refOf[i] >= 0) {
                if (order[size_t(t)]->role == ProblemTensor::Role::Input) inputReadsWindowOutput = true;
                i = refOf[i];
            }
            tdims[t][tcount[t]++] = i;
            tmask[t] |= 1u << i;
            ivMask |= 1u << i;
        }
    }
    for (const auto& n : problem.unrollOrder) {
        int i = id(n);
        if (i >= 0 && (ivMask >> i & 1u)) unroll[nUnroll++] = i;
    }
    for (int i = 0; i < nd; ++i) {
        bool listed = false;
        for (int k = 0; k < nUnroll; ++k)
            listed = listed || unroll[k] == i;
        if (!listed && (ivMask >> i & 1u)) unroll[nUnroll++] = i;
    }
    i64 prod = 1;
    for (int i = 0; i < nd; ++i)
        prod = satMul(prod, size0[i]);
    if (prod > kProductLimit) {
        Diagnostic d;
        d.file = problem.file;
        d.loc = problem.loc;
        d.message = "'" + problem.name + "': the iteration space is too large for the cost model";
        throw InputError(d);
    }
    for (int t = 0; t < nt; ++t) {
        if (t == 0 && nInputs >= 1) inputElems = problem.declaredTensorElements(*order[0]);
        if (t == 1 && nInputs >= 2) weightElems = problem.declaredTensorElements(*order[1]);
    }
    macsExpected = problem.analyticMacs();

    // The DRAM model sees every tensor dimension as the simulator does: a window's output index by itself.
    std::vector<dram::Window> dw;
    for (const auto& w : problem.windows) {
        const int r = id(w.reference);
        dw.push_back(dram::Window{
            r, id(w.sliding), std::max<i64>(stride[r], 1), std::max<i64>(dilation[r], 1), outExtent[r]});
    }
    std::vector<dram::TensorAxes> dt;
    for (const ProblemTensor* t : order) {
        dram::TensorAxes x;
        for (const auto& dn : t->dims) {
            const int i = id(dn);
            int window = -1;
            for (size_t w = 0; w < problem.windows.size(); ++w)
                if (id(problem.windows[w].output) == i) window = int(w);
            x.dim[x.n] = i;
            x.window[x.n] = window;
            ++x.n;
        }
        x.inner = t->contiguousDim();
        x.output = t->role == ProblemTensor::Role::Output;
        dt.push_back(x);
    }
    const i64 epb = std::max<i64>(1, acc.dramBlockBytes / std::max<i64>(1, acc.bytesPerElement));
    dramBlockBytes = epb * std::max<i64>(1, acc.bytesPerElement);
    dramEngine.setProblem(nd, size0, dw, dt, epb);
    dramEngine.setClosedForm(opt.dramClosedForm);
}

// ------------------------------------------------------------------------------------------------
// Dataflow compilation (§3)

bool Evaluator::Impl::compileDataflow(std::span<const DirectiveId> flow)
{
    using Kind = mdc::Directive::Kind;
    // Split into levels and check the user's directives.
    int nClusters = 0;
    i64 clusterSize[kMaxLevels] = {};
    int begin[kMaxLevels + 1] = {};
    for (size_t k = 0; k < flow.size(); ++k) {
        const auto& f = flow[k];
        int src = int(k);
        if (f.kind == Kind::Cluster) {
            if (f.size < 1 || f.size > (i64(1) << 31)) return fail(Err::BadClusterSize, src);
            if (nClusters == kMaxLevels - 1) return fail(Err::TooManyClusters, src);
            clusterSize[++nClusters] = f.size;
            begin[nClusters] = src + 1;
            continue;
        }
        if (f.size < 1 || f.offset < 1 || f.size > (i64(1) << 40) || f.offset > (i64(1) << 40))
            return fail(Err::BadSize, src);
        if (f.dim < 0 || f.dim >= nd) return fail(Err::UnknownDim, src);
        // MAESTRO's parse-time R/S rule: a temporal map on a sliding dimension covers it entirely.
        if (f.kind == Kind::TemporalMap && (slidingMask >> f.dim & 1u)
            && (f.size != f.offset || f.size != size0[f.dim]))
            return fail(Err::SlidingTemporal, src, f.dim);
        // A map wider than the filter names taps that do not exist; its window would have a negative
        // number of output rows, whose products overflow (found by fuzzing the typed directives).
        if ((slidingMask >> f.dim & 1u) && f.size > size0[f.dim])
            return fail(Err::SlidingOversize, src, f.dim);
    }
    begin[nClusters + 1] = int(flow.size()) + 1;
    nLevels = nClusters + 1;
    i64 product = 1;
    for (int c = 1; c <= nClusters; ++c)
        product = satMul(product, clusterSize[c]);
    if (product > acc.numPes) return fail(Err::ClusterExceedsPes);

    for (int l = 0; l < nLevels; ++l) {
        Level& L = lv[l];
        if (l == 0) {
            // A search evaluates the orders of one tiling in a row: their top levels are the same, and the
            // top level depends on nothing else (its extents are the layer's).
            const std::span<const DirectiveId> top(flow.data(), size_t(begin[1] - 1));
            const i64 P = acc.numPes / product;
            if (compiledTop.valid && compiledTop.P == P
                && std::ranges::equal(top, compiledTop.flow, sameDirective))
                continue;
            compiledTop.valid = false;
            compiledTop.P = P;
            compiledTop.flow.assign(top.begin(), top.end());
        }
        L.P = l == 0 ? acc.numPes / product : clusterSize[l];
        // Static table of this level (§3.3 step 5 of the parent).
        if (l == 0) {
            for (int i = 0; i < nd; ++i)
                L.D[i] = size0[i];
            L.present = nd == 32 ? ~0u : ((1u << nd) - 1u);
        } else {
            const Level& up = lv[l - 1];
            L.present = ivMask;
            for (int i = 0; i < nd; ++i)
                if (ivMask >> i & 1u) L.D[i] = std::min(up.d[up.dirOf[i]].sz, up.D[i]);
        }
        // User directives of this level.
        Dir cur[kMaxLevelDirectives];
        int nc = 0;
        int last = begin[l + 1] - 1;
        for (int k = begin[l]; k < last; ++k) {
            if (nc == kMaxLevelDirectives) return fail(Err::TooManyDirectives, k);
            cur[nc++] = Dir{flow[size_t(k)].kind == Kind::SpatialMap, flow[size_t(k)].dim,
                flow[size_t(k)].size, flow[size_t(k)].offset, k};
        }
        // Step 1: window output -> reference (Y' -> Y with size + R - 1).
        for (int o = 0; o < nd; ++o) {
            int r = refOf[o];
            if (r < 0) continue;
            int at = -1, refAt = -1, slideAt = -1;
            for (int k = 0; k < nc; ++k) {
                if (cur[k].dim == o && at < 0) at = k;
                if (cur[k].dim == r) refAt = k;
                if (cur[k].dim == slideOf[r]) slideAt = k;
            }
            if (at < 0) continue;
            if (refAt >= 0) return fail(Err::BothPrimed, cur[at].src, o, l);
            if (slideAt < 0) return fail(Err::PrimedWithoutSliding, cur[at].src, o, l);
            i64 w = eff(cur[slideAt].sz, dilation[r]);
            cur[at].dim = r;
            if (corrected && stride[r] != 1)
                cur[at].sz
                    = (cur[at].sz - 1) * stride[r] + w; // FIX STRIDE: o output rows span this many inputs
            else
                cur[at].sz = cur[at].sz + w - 1;
        }
        for (int a = 0; a < nc; ++a) {
            for (int b = a + 1; b < nc; ++b)
                if (cur[a].dim == cur[b].dim) return fail(Err::Duplicate, cur[b].src, cur[b].dim, l);
            if (!(L.present >> cur[a].dim & 1u)) return fail(Err::NotInInner, cur[a].src, cur[a].dim, l);
        }
        // Step 2: inherit the parent's directives missing here, in front, in reverse parent order.
        L.n = 0;
        if (l > 0) {
            const Level& up = lv[l - 1];
            Dir inherited[kMaxLevelDirectives];
            int ni = 0;
            for (int k = 0; k < up.n; ++k) {
                bool found = false;
                for (int j = 0; j < nc && !found; ++j)
                    found = cur[j].dim == up.d[k].dim;
                if (!found) {
                    if (!(L.present >> up.d[k].dim & 1u))
                        return fail(Err::NotInInner, up.d[k].src, up.d[k].dim, l);
                    inherited[ni++] = Dir{false, up.d[k].dim, up.d[k].sz, up.d[k].of, -1};
                }
            }
            if (ni + nc > kMaxLevelDirectives) return fail(Err::TooManyDirectives);
            for (int k = ni - 1; k >= 0; --k)
                L.d[L.n++] = inherited[k];
        }
        for (int k = 0; k < nc; ++k)
            L.d[L.n++] = cur[k];
        // Step 3: default-unroll the coupled dimensions still missing.
        for (int k = 0; k < nUnroll; ++k) {
            int v = unroll[k];
            bool found = false;
            for (int j = 0; j < L.n && !found; ++j)
                found = L.d[j].dim == v;
            if (!found && (L.present >> v & 1u)) {
                if (L.n == kMaxLevelDirectives) return fail(Err::TooManyDirectives);
                L.d[L.n++] = Dir{false, v, L.D[v], L.D[v], -1};
            }
        }
        // Step 4: outer stride rewrites the reference-dimension tiles.
        for (int k = 0; k < L.n; ++k) {
            Dir& t = L.d[k];
            int v = t.dim;
            if (slideOf[v] < 0 || stride[v] == 1) continue;
            i64 st = stride[v];
            i64 w = eff(size0[slideOf[v]], dilation[v]);
            if (t.sz < w) continue;
            i64 o = (t.sz + st - w) / st;
            if (corrected) {
                t.sz = (o - 1) * st + w; // FIX STRIDE
                t.of = o * st;
            } else {
                t.sz = o * std::min(st, w) + std::max<i64>(w - st, 0);
                t.of = (l > 0 && w < st) ? o * w : o * st;
            }
        }
        // Structure: lookup by dimension, spatial maps.
        for (int i = 0; i < kMaxDims; ++i)
            L.dirOf[i] = -1;
        int nSpatial = 0;
        L.sp = L.lastSp = -1;
        i64 prod = L.P; // bounds every per-case volume, aggregated over the sub-units
        L.overlappingSpatial = L.overlappingAny = false;
        L.unevenDims = L.spatialDirs = 0;
        for (int k = 0; k < L.n; ++k) {
            L.dirOf[L.d[k].dim] = k;
            const bool overlapping = L.d[k].sz > L.d[k].of;
            L.overlappingAny = L.overlappingAny || overlapping;
            const i64 D = L.D[L.d[k].dim];
            if (overlapping || (L.d[k].sz < D && (D - L.d[k].sz) % L.d[k].of != 0))
                L.unevenDims |= 1u << L.d[k].dim;
            if (L.d[k].spatial) {
                ++nSpatial;
                L.spatialDirs |= 1u << k;
                if (L.sp < 0) L.sp = k;
                L.lastSp = k;
                L.overlappingSpatial = L.overlappingSpatial || overlapping;
            }
            prod = satMul(prod, std::max(L.d[k].sz, L.D[L.d[k].dim]));
        }
        if (prod > kProductLimit) return fail(Err::TooLarge, -1, -1, l);
        if (nSpatial == 0) return fail(Err::NoSpatial, -1, -1, l);
        if (nSpatial > 2) return fail(Err::TooManySpatial, L.d[L.lastSp].src, L.d[L.lastSp].dim, l);
        for (int i = 0; i < nd; ++i)
            if ((ivMask >> i & 1u) && L.dirOf[i] < 0) return fail(Err::NotInInner, -1, i, l);
        edgeUnits(L); // from the first spatial map and the static extent (§3.4)
        L.nSpatial = nSpatial;
        for (int t = 0; t < nt; ++t) {
            L.tensorDirs[t] = 0;
            L.nCoupledSpatial[t] = 0;
            L.lastCoupledSpatial[t] = -1;
            for (int k = 0; k < tcount[t]; ++k) {
                int j = L.dirOf[tdims[t][k]];
                if (j >= 0) L.tensorDirs[t] |= 1u << j;
                if (j >= 0 && L.d[j].spatial) {
                    ++L.nCoupledSpatial[t];
                    L.lastCoupledSpatial[t] = j;
                }
            }
        }
        tileTables(L);
        if (l == 0) compiledTop.valid = true;
    }
    for (int l = 0; l < nLevels; ++l) {
        tapLevel[l] = corrected && l + 1 < nLevels && lv[l].nSpatial == 1
            && (slidingMask >> lv[l].d[lv[l].sp].dim & 1u);
        tapBegin[l] = -1;
    }
    for (int l = 0; l < nLevels; ++l) {
        keepFrom[l] = 0;
        if (!corrected || l + 1 >= nLevels || lv[l + 1].nSpatial != 1) continue;
        // A tensor's tiles can stay put from one child execution to the next only where a map of its
        // dimensions overlaps or ends in a partial tile (a smaller region, where a tile that moves elsewhere
        // may stay), or a cluster level idles sub-units in a last fold (they keep the fold before's).
        std::uint32_t uneven = 0;
        bool idle = false;
        i64 pes = 1;
        for (int b = l; b < nLevels; ++b) {
            uneven |= lv[b].unevenDims;
            if (b == l) continue;
            pes = satMul(pes, lv[b].P);
            const Dir& d = lv[b].d[lv[b].sp];
            idle = idle || (b < nLevels - 1 && tileCount(d.sz, d.of, lv[b].D[d.dim]) > lv[b].P);
        }
        const bool deep = l + 1 < nLevels - 1;
        if (deep && pes > kKeepPes) continue;
        for (int t = 0; t < nt; ++t)
            if ((uneven & tmask[t]) || (deep && idle)) keepFrom[l] |= 1u << t;
    }
    gbLevel = 0;
    if (corrected) {
        gbLevel = nLevels - 1;
        for (int l = 0; l < nLevels; ++l) {
            const Level& L = lv[l];
            i64 busy = 1;
            for (int k = 0; k < L.n; ++k)
                if (L.d[k].spatial)
                    busy = std::max(busy, std::min(L.P, tileCount(L.d[k].sz, L.d[k].of, L.D[L.d[k].dim])));
            if (busy > 1) {
                gbLevel = l;
                break;
            }
        }
    }
    // Whether level b's directive j spreads its dimension over b's sub-units (a SpatialMap of more than one
    // tile: one of a single tile keeps one sub-unit busy with the whole range, as a temporal map does).
    auto spreads = [&](int b, int j) { return lv[b].d[j].spatial && spreadsRange(lv[b], j); };
    // Whether level b spreads overlapping tiles over its sub-units (a map of one tile spreads nothing).
    auto spreadsOverlap = [&](int b) {
        for (int k = 0; k < lv[b].n && lv[b].overlappingSpatial; ++k)
            if (spreads(b, k) && lv[b].d[k].sz > lv[b].d[k].of) return true;
        return false;
    };
    // Whether the first level from b down with a directive on v keeps it in one sub-unit (steps it in time
    // or holds it whole), the levels above it (none naming v: they hold their parent's whole range)
    // spreading no overlapping tiles.
    auto stepsBelow = [&](int b, int v) {
        for (; b < nLevels; ++b) {
            const int j = lv[b].dirOf[v];
            if (j >= 0) return !spreads(b, j);
            if (spreadsOverlap(b)) return false;
        }
        return false;
    };
    // FIX HALO-NEST: level l + 1 spreads l's map's dimension v again over overlapping tiles (its only map)
    // and the innermost level below it, l + 2, steps or holds v and spreads no overlapping tiles: the PEs
    // measure the halo of both maps' sub-units at once.
    auto nestBelow = [&](int l, int v) {
        if (l + 2 != nLevels - 1) return false;
        const Level& M = lv[l + 1];
        return M.nSpatial == 1 && M.d[M.sp].dim == v && M.d[M.sp].sz > M.d[M.sp].of && spreads(l + 1, M.sp)
            && stepsBelow(l + 2, v) && !spreadsOverlap(l + 2);
    };
    std::fill(haloUp, haloUp + nLevels, -1);
    std::fill(haloUpBits, haloUpBits + nLevels, 0);
    for (int l = 0; l < nLevels; ++l) {
        haloFrom[l] = 0;
        const Level& L = lv[l];
        if (!corrected || acc.multicast != arch::Multicast::Elements || l < gbLevel || l + 1 >= nLevels
            || L.nSpatial != 1 || L.P < 2)
            continue;
        const Dir& d = L.d[L.sp];
        if (d.sz <= d.of || tileCount(d.sz, d.of, L.D[d.dim]) < 2) continue;
        const bool below = stepsBelow(l + 1, d.dim), nest = !below && nestBelow(l, d.dim);
        if (!below && !nest) continue;
        // Filter taps spread below shift each sub-unit's rows by its tap (doc/cost-model.md, class 1): its
        // fetch is no box the offset moves.
        bool tapsBelow = false;
        for (int b = l + 1; b < nLevels; ++b)
            for (int k = 0; k < lv[b].n; ++k)
                tapsBelow = tapsBelow || (lv[b].d[k].spatial && (slidingMask >> lv[b].d[k].dim & 1u));
        if (tapsBelow) continue;
        for (int t = 0; t < nInputs; ++t)
            if (tmask[t] >> d.dim & 1u) haloFrom[l] |= 1u << t;
        if (nest) {
            haloUp[l + 2] = l;
            haloUpBits[l + 2] = haloFrom[l];
        }
    }
    // FIX HALO-DEEP: a level below the map that holds its dimension in a single tile (a temporal map over
    // its whole extent), with no halo of its own, runs its sub-units' child executions at the same frames
    // in every sub-unit of the map: the halo is its child's, which measures it against the map's offset and
    // hands it up (seed 2 case 6638, seed 6 case 1742: rows fetched two levels below the map).
    for (int l = 0; l < nLevels; ++l) {
        haloSrc[l] = -1;
        haloBits[l] = 0;
        if (l == 0) continue;
        if (haloFrom[l - 1]) {
            haloSrc[l] = l - 1;
            haloBits[l] = haloFrom[l - 1];
            continue;
        }
        const int a = haloSrc[l - 1];
        if (a < 0) continue;
        const Level& M = lv[l - 1];
        const int v = lv[a].d[lv[a].sp].dim;
        const int j = M.dirOf[v];
        if ((j >= 0 && spreads(l - 1, j)) || spreadsOverlap(l - 1) || !stepsBelow(l, v)) continue;
        haloSrc[l] = a;
        haloBits[l] = haloBits[l - 1];
    }
    // FIX HALO-TWO: the innermost level below a level whose own overlapping map stops the halo of a map
    // above (haloSrc[l] = l - 1) also measures that one, along another dimension the level between holds
    // in one sub-unit, when its own PEs spread no tensor dimension over overlapping tiles.
    if (const int l = nLevels - 1;
        l >= 2 && haloUp[l] < 0 && haloSrc[l] == l - 1 && haloSrc[l - 1] >= 0 && !spreadsOverlap(l)) {
        const Level& M = lv[l - 1];
        const int a = haloSrc[l - 1];
        const int v2 = lv[a].d[lv[a].sp].dim, j = M.dirOf[v2];
        if (v2 != M.d[M.sp].dim && !(j >= 0 && spreads(l - 1, j)) && stepsBelow(l, v2)) {
            haloUp[l] = a;
            haloUpBits[l] = haloBits[l - 1] & haloFrom[l - 1];
        }
    }
    return true;
}

void Evaluator::Impl::edgeUnits(Level& L) const
{
    const Dir& s = L.d[L.sp];
    i64 D = L.D[s.dim], sz = s.sz, of = s.of, P = L.P;
    i64 full = of * (P - 1) + sz;
    i64 E;
    if (D > full) {
        i64 steady = ((D - sz) / of + 1) / P - 1;
        i64 rem = D - (steady + 1) * of * P;
        E = rem < sz ? 1 : (rem - sz) / of + 1;
        // FIX EDGE-UNITS: the last fold also has a partially covered sub-unit after the E full ones.
        if (corrected && rem >= sz && (E - 1) * of + sz < rem) ++E;
    } else if (D > sz) {
        E = (D - sz) / of + 1;
        if (of * (E - 1) + sz < D) ++E;
    } else {
        E = 1;
    }
    L.E = E;
}

void Evaluator::Impl::tileTables(Level& L) const
{
    L.tapComputeDims = 0;
    for (int k = 0; k < L.n; ++k) {
        const Dir& d = L.d[k];
        int v = d.dim;
        i64 D = L.D[v], sz = d.sz, of = d.of;
        i64 st = std::max<i64>(0, (D - sz) / of);
        bool hasEdge = (st * of + sz < D) || (sz > D);
        L.M[v] = sz;
        L.U[v] = std::min(sz, of);
        if (!d.spatial && D <= sz) L.U[v] = 0; // fully unrolled temporal map: nothing new per step
        i64 em = D - (st + 1) * of;
        if (em < 0) em = D;
        L.ME[v] = hasEdge ? em : sz;
        L.UE[v] = std::max<i64>(of - (sz - em), 0);
        if (corrected && sz > D) { // FIX Q-EDGE-2: a map larger than the extent holds the whole extent
            L.ME[v] = D;
            L.UE[v] = std::max<i64>(of - (sz - D), 0);
        }
    }
    for (int k = 0; k < L.n; ++k) {
        const Dir& d = L.d[k];
        int v = d.dim;
        int a = outOf[v];
        if (a < 0) continue;
        int w = slideOf[v];
        bool hasW = L.dirOf[w] >= 0;
        // FIX TAP-EXTENT: under a SpatialMap on the taps a child level holds fewer taps than its own map
        // of them names (one of 2 under SpatialMap(1,1) S); rows it inherited (or unrolled) complete the
        // outputs of the taps it holds. A map of its own on the window's output keeps its output rows.
        const bool ownRows = d.src >= 0;
        i64 mw = hasW ? eff(corrected && !ownRows ? std::min(L.M[w], L.D[w]) : L.M[w], dilation[v]) : 0;
        i64 mew = hasW ? eff(L.ME[w], dilation[v]) : 0;
        if (corrected) {
            // FIX STRIDE / FIX Q-OUT-2: output rows of a tile and new output rows per step.
            i64 st = stride[v];
            L.M[a] = L.M[v] < mw ? 0 : (L.M[v] - mw) / st + 1;
            L.ME[a] = L.ME[v] < mew ? 0 : (L.ME[v] - mew) / st + 1;
            if (!ownRows) { // fewer taps complete more rows' outputs, but never more than the layer has
                L.M[a] = std::min(L.M[a], outExtent[v]);
                L.ME[a] = std::min(L.ME[a], outExtent[v]);
            }
            L.U[a] = std::min(std::max<i64>(d.of / st, 1), L.M[a]);
            L.UE[a] = std::min(std::max<i64>(d.of / st, 1), L.ME[a]);
            // FIX TAP-COMPUTE: a map of its own keeps its output rows (what the sub-unit returns), but its
            // rows give the taps it holds more outputs, which it computes (one tap of a map's two: a tile of
            // 2 rows, 1 output row returned, 2 computed).
            if (ownRows && hasW && L.D[w] < L.M[w]) L.tapComputeDims |= 1u << v;
        } else {
            L.M[a] = L.M[v] - mw + 1;
            L.U[a] = std::min(d.of, d.sz);
            L.ME[a] = L.ME[v] - mew + 1;
            L.UE[a] = std::min(d.of, L.ME[a]);
        }
    }
}

// ------------------------------------------------------------------------------------------------
// States (§4.2)

void Evaluator::Impl::buildStates(int l, const i64* Dc)
{
    const Level& L = lv[l];
    for (int k = 0; k < L.n; ++k) {
        const Dir& d = L.d[k];
        i64 D = Dc[d.dim], sz = d.sz, of = d.of;
        State* s = states[l][k];
        int n = 0;
        if (!d.spatial) {
            State i;
            i.unrolled = D <= sz;
            i.initEdge = D < sz;
            i.edge = i.initEdge;
            s[n++] = i;
            i64 steps = (D - sz) / of;
            if (sz < D && steps > 0) {
                State st;
                st.pos = PosS;
                st.occ = steps;
                s[n++] = st;
            }
            if (!i.initEdge && steps * of + sz < D) {
                State e;
                e.pos = PosE;
                e.edge = true;
                s[n++] = e;
            }
        } else {
            i64 P = L.P;
            i64 cov = sz + of * (P - 1);
            State i;
            i.unrolled = D <= cov;
            i.initEdge = D < cov;
            i.edgeEdge = i.initEdge;
            i.edge = i.initEdge;
            s[n++] = i;
            i64 steps = ((D - sz) / of + 1) / P - 1;
            if (cov < D && steps > 0) {
                State st;
                st.pos = PosS;
                st.occ = steps;
                s[n++] = st;
            }
            if (!i.initEdge && !i.unrolled && (steps + 1) * of * P + cov > D && steps * of * P + cov != D) {
                State e;
                e.pos = PosE;
                e.edge = true;
                i64 rem = D - (steps + 1) * of * P;
                i64 a = rem < sz ? 1 : (rem - sz) / of + 1;
                e.edgeEdge = (a - 1) * of + sz < rem;
                s[n++] = e;
            }
        }
        nStates[l][k] = n;
    }
}

// ------------------------------------------------------------------------------------------------
// Per-case volumes (§4.4)

i64 Evaluator::Impl::mapped(const Level& L, const State* const* s, int t, bool first, bool eepe) const
{
    i64 vol = 1;
    for (int k = 0; k < L.n; ++k) {
        int v = L.d[k].dim;
        if (!(tmask[t] >> v & 1u)) continue;
        const State& st = *s[k];
        if (!L.d[k].spatial)
            vol *= st.edge ? L.ME[v] : L.M[v];
        else if (st.edge) {
            if (L.E == 1)
                vol *= (first || eepe) ? L.ME[v] : 1;
            else
                vol *= eepe ? L.ME[v] : L.M[v];
        } else
            vol *= L.M[v];
    }
    return vol;
}

i64 Evaluator::Impl::ingress(
    const Level& L, const State* const* s, int t, bool first, bool eepe, int ch, bool fresh) const
{
    if (ch < 0) return mapped(L, s, t, first, eepe);
    if (!(tmask[t] >> L.d[ch].dim & 1u)) {
        // MAESTRO charges nothing when the advancing loop does not index the tensor (Q-REUSE-1).
        // FIX Q-REUSE-1: when an inner coupled loop wrapped around ("fresh"), the tile is fetched again.
        if (!(corrected && fresh)) return 0;
    }
    i64 vol = 1;
    for (int j = 0; j < L.n; ++j) {
        int v = L.d[j].dim;
        if (!(tmask[t] >> v & 1u)) continue;
        const State& st = *s[j];
        i64 xm = eepe ? L.ME[v] : L.M[v];
        i64 xu = eepe ? L.UE[v] : L.U[v];
        if (!L.d[j].spatial) {
            if (st.pos == PosI)
                vol *= st.edge ? L.ME[v] : L.M[v];
            else
                vol *= (j == ch && !fresh) ? std::max<i64>(L.U[v], 1) : L.M[v];
        } else {
            if (first)
                vol *= xm;
            else if (st.pos == PosI)
                vol *= j <= ch ? xm : xu;
            else
                vol *= (j == ch && !fresh) ? xu : xm;
        }
    }
    return vol;
}

// FIX REUSE (corrected fidelity; replaces the fresh/advancing rules of Q-REUSE-1..3): a sub-unit
// receives its current tile minus what it kept from the previous step, |tile| - |tile ∩ previous tile|,
// both products over the tensor's dimensions. Per dimension the kept part is: the whole extent for loops
// outside the advancing one; the window overlap sz - of for the advancing temporal loop (edge extents
// included); for inner loops that wrapped around, the overlap of their first tile with their last one
// (all of it when they have a single tile); nothing for a spatial fold that changed. `unique` gives a
// non-first sub-unit only its part beyond its neighbour's tile (what a multicast adds to the union).
// Directive j's extent in the sub-unit's tile (c) and the part kept from the previous step (o).
inline __attribute__((always_inline)) void Evaluator::Impl::exactExtent(
    const Level& L, int l, const State* const* s, int j, bool unique, bool eepe, int ch, i64& c, i64& o) const
{
    const Dir& d = L.d[j];
    const int v = d.dim;
    const State& st = *s[j];
    if (!d.spatial) {
        c = st.edge ? L.ME[v] : L.M[v];
        if (j < ch)
            o = c;
        else if (j == ch)
            o = std::min(c, std::max<i64>(0, d.sz - d.of));
        else {
            const int last = nStates[l][j] - 1;
            if (last == 0) {
                o = c;
            } else {
                const State& ls = states[l][j][last];
                i64 steady = states[l][j][1].pos == PosS ? states[l][j][1].occ : 0;
                i64 start = ls.pos == PosE ? (steady + 1) * d.of : steady * d.of;
                i64 end = ls.pos == PosE ? start + L.ME[v] : start + d.sz;
                o = std::max<i64>(0, std::min(c, end) - start);
            }
        }
    } else {
        // A non-first sub-unit adds its tile minus the overlap with its neighbour's (MAESTRO's UE is 0
        // for a last sub-unit that is not partial, which would drop it).
        const i64 overlap = std::max<i64>(0, d.sz - d.of);
        // The single active sub-unit of a last fold holds the last, possibly partial, tile.
        const bool edgeTile = eepe || (st.pos == PosE && L.E == 1);
        c = unique ? std::max<i64>(0, (edgeTile ? L.ME[v] : L.M[v]) - overlap)
                   : (edgeTile ? L.ME[v] : L.M[v]);
        if (j < ch || (j > ch && nStates[l][j] == 1))
            o = c;
        else if (j > ch && L.P == 1) {
            // A single sub-unit steps through the map in time: it wrapped around from its last tile,
            // which overlaps its first one as a temporal map's does.
            const i64 start = (tileCount(d.sz, d.of, L.D[v]) - 1) * d.of;
            o = std::max<i64>(0, std::min(c, std::min(start + d.sz, L.D[v])) - start);
        } else if (j > ch)
            o = unique ? 0 : std::min(c, foldWrapKept[l][j]);
        else if (j == ch) // a new fold: the same sub-unit's tiles overlap when P * offset < size
            // Each sub-unit's new rows are the tail of its tile, its neighbour's the same tail moved by
            // the offset: what a non-first one adds to their union is its part beyond its neighbour's
            // tile (c), whatever it kept of its own previous tile.
            o = unique ? 0 : std::min(c, std::max<i64>(0, d.sz - L.P * d.of));
    }
}

i64 Evaluator::Impl::ingressExact(
    const Level& L, int l, const State* const* s, int t, bool unique, bool eepe, int ch) const
{
    i64 cur = 1, kept = ch < 0 ? 0 : 1;
    for (std::uint32_t dirs = L.tensorDirs[t]; dirs != 0; dirs &= dirs - 1) {
        const int j = std::countr_zero(dirs);
        i64 c = 0, o = 0;
        exactExtent(L, l, s, j, unique, eepe, ch, c, o);
        cur *= c;
        kept *= o;
    }
    return cur - kept;
}

// The fetch is the tile C less the box K kept, and K's range on v lies at one end of C's (the tail of the
// previous tile, or a wrapped loop's last tile): on each line along v it is one interval, all of C's
// where the other dimensions lie outside K, C's less K's where inside. An interval of m rows shares
// max(0, m - of) of them with itself moved by `of`.
i64 Evaluator::Impl::haloExact(
    const Level& L, int l, const State* const* s, int t, bool unique, bool eepe, int ch, int v, i64 of) const
{
    i64 cur = 1, kept = ch < 0 ? 0 : 1, curV = 0, keptV = 0;
    for (std::uint32_t dirs = L.tensorDirs[t]; dirs != 0; dirs &= dirs - 1) {
        const int j = std::countr_zero(dirs);
        i64 c = 0, o = 0;
        exactExtent(L, l, s, j, unique, eepe, ch, c, o);
        if (L.d[j].dim == v) {
            curV = c;
            keptV = o;
            continue;
        }
        cur *= c;
        kept *= o;
    }
    return (cur - kept) * std::max<i64>(0, curV - of) + kept * std::max<i64>(0, curV - keptV - of);
}

// The fetch is a box when the kept box K leaves the tile C whole on every dimension but one (or K is
// empty): then what it shares with itself moved along some dimensions is the product of each dimension's
// length less its move.
bool Evaluator::Impl::fetchBox(const Level& L, int l, const State* const* s, int t, bool unique, bool eepe,
    int ch, int* dims, i64* len, int& n) const
{
    i64 cut[kMaxLevelDirectives], kept = ch < 0 ? 0 : 1;
    int partial = 0;
    n = 0;
    for (std::uint32_t dirs = L.tensorDirs[t]; dirs != 0; dirs &= dirs - 1) {
        const int j = std::countr_zero(dirs);
        i64 c = 0, o = 0;
        exactExtent(L, l, s, j, unique, eepe, ch, c, o);
        o = std::min(o, c);
        dims[n] = L.d[j].dim;
        len[n] = c;
        cut[n] = c - o;
        kept *= o;
        if (o < c) ++partial;
        ++n;
    }
    if (kept > 0) {
        if (partial > 1) return false;
        for (int i = 0; i < n; ++i) // the kept box leaves one dimension's far rows, or nothing
            len[i] = partial == 0 ? 0 : cut[i] > 0 ? cut[i] : len[i];
    }
    return true;
}

bool Evaluator::Impl::haloBox(const Level& L, int l, const State* const* s, int t, bool unique, bool eepe,
    int ch, int v1, i64 o1, int v2, i64 o2, i64& h2, i64& corner) const
{
    int dims[kMaxLevelDirectives], n = 0;
    i64 len[kMaxLevelDirectives];
    if (!fetchBox(L, l, s, t, unique, eepe, ch, dims, len, n)) return false;
    h2 = corner = 1;
    for (int i = 0; i < n; ++i) {
        const i64 along2 = dims[i] == v2 ? std::max<i64>(0, len[i] - o2) : len[i];
        h2 = satMul(h2, along2);
        corner = satMul(corner, dims[i] == v1 ? std::max<i64>(0, len[i] - o1) : along2);
    }
    return true;
}

bool Evaluator::Impl::nestHalo(const Level& L, int l, const State* const* s, int t, bool unique, bool eepe,
    int ch, i64 subUnits, i64& halo)
{
    int dims[kMaxLevelDirectives], n = 0;
    i64 len[kMaxLevelDirectives];
    if (!fetchBox(L, l, s, t, unique, eepe, ch, dims, len, n)) return false;
    const Dir& m = lv[l - 1].d[lv[l - 1].sp];
    const Dir& a = lv[haloUp[l]].d[lv[haloUp[l]].sp];
    i64 along = 0, rest = 1;
    for (int i = 0; i < n; ++i)
        if (dims[i] == m.dim)
            along = len[i];
        else
            rest = satMul(rest, len[i]);
    // The sub-units' fetches along v, U, and U moved by the farther map's offset: |U| + |U| - |both|.
    shareSpans.clear();
    for (i64 i = 0; i < subUnits && along > 0; ++i)
        shareSpans.push_back(Span{i * m.of, i * m.of + along});
    const i64 u = unionSize(shareSpans);
    shareSpans.clear();
    for (i64 i = 0; i < subUnits && along > 0; ++i) {
        shareSpans.push_back(Span{i * m.of, i * m.of + along});
        shareSpans.push_back(Span{i * m.of + a.of, i * m.of + a.of + along});
    }
    halo = satMul(rest, 2 * u - unionSize(shareSpans));
    return true;
}

i64 Evaluator::Impl::peout(const Level& L, const State* const* s, bool psum, bool first, bool eepe,
    bool reuse, bool strictUnique) const
{
    const int o = nt - 1;
    i64 vol = 1;
    // MAESTRO gives a later sub-unit one output of its own even when it has none (its tile is its
    // neighbour's, as with filter rows and input rows spread in lock-step); strictUnique counts none.
    auto other = [&](i64 u) { return u == 0 && !strictUnique ? i64(1) : u; };
    if (psum) {
        for (int k = 0; k < L.n; ++k) {
            int v = L.d[k].dim;
            if (tmask[o] >> v & 1u) continue;
            const State& st = *s[k];
            if (!L.d[k].spatial) {
                vol *= st.edge ? L.ME[v] : L.M[v];
            } else if (st.pos == PosI) {
                if (st.edge && eepe)
                    vol *= L.ME[v];
                else
                    vol *= first ? L.M[v] : other(L.U[v]);
            } else if (st.pos == PosS) {
                vol *= first ? L.M[v] : other(L.U[v]);
            } else {
                if (L.E == 1)
                    vol *= (first || eepe) ? L.ME[v] : 1;
                else
                    vol *= eepe ? L.UE[v] : (first ? L.M[v] : other(L.U[v]));
            }
        }
    }
    for (int k = 0; k < tcount[o]; ++k) {
        int v = tdims[o][k];
        int j = L.dirOf[v];
        if (j < 0) continue;
        int a = outOf[v] >= 0 ? outOf[v] : v;
        const State& st = *s[j];
        if (!L.d[j].spatial) {
            if (st.pos == PosI)
                vol *= st.initEdge ? L.ME[a] : L.M[a];
            else if (st.pos == PosS)
                vol *= L.M[a];
            else
                vol *= L.ME[a];
        } else if (st.pos == PosI) {
            if (st.initEdge && eepe) {
                if (L.E == 1)
                    vol *= L.ME[a];
                else if (!reuse)
                    vol *= L.ME[a];
                else if (corrected) // FIX Q-OUT-1: its outputs beyond its neighbour's
                    vol *= std::max<i64>(0, L.ME[a] - (L.M[a] - L.U[a]));
                else
                    vol *= L.UE[a];
            } else {
                vol *= first ? L.M[a] : other(L.U[a]);
            }
        } else if (st.pos == PosS) {
            vol *= first ? L.M[a] : other(L.U[a]);
        } else {
            if (L.E == 1)
                // MAESTRO uses the unprimed (input-row) entry here (Q-OUT-3); FIX Q-OUT-3: the output entry.
                vol *= (first || eepe) ? (corrected ? L.ME[a] : L.ME[v]) : 1;
            else if (eepe && corrected) // as FIX Q-OUT-1 for the partial sub-unit of the last fold
                vol *= std::max<i64>(0, L.ME[a] - (L.M[a] - L.U[a]));
            else
                vol *= eepe ? L.UE[a] : (first ? L.M[a] : other(L.U[a]));
        }
    }
    return vol;
}

// ------------------------------------------------------------------------------------------------
// Level analysis (§4-§5)

// FIX TAP-IDLE. Sub-unit j of a SpatialMap on a window's taps holds tap tile j and the rows every sub-unit
// holds: the outputs it can complete are those rows' outputs for its taps, shifted by its first tap and
// clipped at the layer's edges (with a stride, only rows of the right parity). One that completes none
// computes nothing, and the simulator runs no child execution under it (no tile reaches its PEs); the
// per-case tables see states, not positions, so the case's rows and folds are enumerated here. Positions
// are those of the layer only when the level holds the whole extent of the rows and the taps.
int Evaluator::Impl::tapRows(int l) const
{
    if (!tapLevel[l]) return -1;
    const int sd = lv[l].d[lv[l].sp].dim;
    for (int i = 0; i < nd; ++i)
        if (outOf[i] >= 0 && slideOf[i] == sd) return i;
    return -1;
}

bool Evaluator::Impl::idleTapSubUnits(
    int l, const Level& L, const State* const* s, const i64* Dc, i64 occ, i64& full, i64& edge) const
{
    full = edge = 0;
    const int v = tapRows(l);
    if (v < 0) return false;
    const Dir& sp = L.d[L.sp];
    const int sd = sp.dim;
    // The rows' first one in the layer: 0 over the whole extent, else as the parent named it.
    const i64 origin = Dc[v] == size0[v] ? 0 : tapBegin[l];
    if (origin < 0 || Dc[sd] != size0[sd]) return false;
    // The tiles a state covers: the first, the steady ones after it, or the last.
    auto covered = [](const State& st, i64 tiles, i64& first, i64& count) {
        first = st.pos == PosI ? 0 : st.pos == PosS ? 1 : tiles - 1;
        count = st.pos == PosS ? st.occ : 1;
    };
    const int kr = L.dirOf[v];
    const Dir* rows = kr >= 0 ? &L.d[kr] : nullptr;
    if (rows && rows->spatial) return false;
    const i64 rowTiles = rows ? tileCount(rows->sz, rows->of, Dc[v]) : 1;
    i64 r0 = 0, nr = 1;
    if (rows) covered(*s[kr], rowTiles, r0, nr);
    const i64 tapTiles = tileCount(sp.sz, sp.of, Dc[sd]);
    const i64 folds = ceilDiv(tapTiles, L.P);
    i64 f0 = 0, nf = 1;
    covered(*s[L.sp], folds, f0, nf);
    if (satMul(satMul(nr, nf), std::min(L.P, tapTiles)) > (i64(1) << 14)) return false;
    const i64 st = std::max<i64>(stride[v], 1), dil = dilation[v];
    i64 idleFull = 0, idleEdge = 0;
    for (i64 r = r0; r < r0 + nr; ++r) {
        const i64 rb = origin + (rows ? r * rows->of : 0);
        const i64 re = rows ? std::min(rb + rows->sz, origin + Dc[v]) : origin + Dc[v];
        for (i64 f = f0; f < f0 + nf; ++f)
            for (i64 k = f * L.P; k < std::min((f + 1) * L.P, tapTiles); ++k) {
                const i64 tb = k * sp.of, te = std::min(tb + sp.sz, Dc[sd]);
                const OutputSpan w = windowOutputs(rb, re, tb, te, st, dil, outExtent[v]);
                if (w.end <= w.begin) ++(te - tb < sp.sz ? idleEdge : idleFull);
            }
    }
    // The other directives' steps repeat each (rows, fold) pair alike.
    const i64 rest = occ / ((rows ? s[kr]->occ : 1) * s[L.sp]->occ);
    full = idleFull * rest;
    edge = idleEdge * rest;
    return true;
}

void Evaluator::Impl::tapIdleWrites(const Level& L, int l, const State* const* s, const i64* Dc, i64 occ,
    const i64* childDims, bool uniform, const i64* full, const i64* edge, LevelOut& res)
{
    i64 idleFull = 0, idleEdge = 0, below[kMaxTensors];
    if (tapLevel[l]) idleTapSubUnits(l, L, s, Dc, occ, idleFull, idleEdge);
    const bool under = tapLevel[l + 1] && uniform && tapIdleBelow(L, l, s, Dc, occ, childDims, below);
    for (int t = 0; t < nInputs; ++t) {
        i64 less = satAdd(satMul(idleFull, full[t]), satMul(idleEdge, edge[t]));
        if (under) less = satAdd(less, below[t]);
        res.peWrites[t] = std::max<i64>(0, res.peWrites[t] - less);
    }
}

bool Evaluator::Impl::tapIdleBelow(
    const Level& L, int l, const State* const* s, const i64* Dc, i64 occ, const i64* childDims, i64* less)
{
    const int v = tapRows(l + 1);
    if (v < 0 || Dc[v] != size0[v] || childDims[v] == size0[v]) return false;
    const int kr = L.dirOf[v];
    if (kr < 0) return false;
    const Dir& d = L.d[kr];
    const i64 tiles = tileCount(d.sz, d.of, Dc[v]);
    const State& st = *s[kr];
    // The tiles of rows the case's steps give the child executions: a temporal map's in the state, a
    // spatial map's in the state's folds, every sub-unit's.
    const i64 per = d.spatial ? L.P : 1, positions = d.spatial ? ceilDiv(tiles, L.P) : tiles;
    const i64 first = st.pos == PosI ? 0 : st.pos == PosS ? 1 : positions - 1;
    const i64 count = st.pos == PosS ? st.occ : 1;
    if (count * per > 64) return false;
    const i64 weight = occ / st.occ;
    i64 whole[kMaxTensors];
    {
        const LevelOut* r = child(l + 1, childDims);
        if (!r) return false;
        std::copy(r->peWrites, r->peWrites + nInputs, whole);
    }
    i64 dims[kMaxDims];
    std::copy(childDims, childDims + nd, dims);
    std::fill(less, less + nInputs, i64(0));
    for (i64 k = first * per; k < std::min((first + count) * per, tiles); ++k) {
        const i64 b = k * d.of;
        if (std::min(d.sz, Dc[v] - b) != childDims[v]) continue; // a tile the representative does not cover
        tapBegin[l + 1] = b;
        const LevelOut* r = child(l + 1, dims);
        tapBegin[l + 1] = -1;
        if (!r) return false;
        for (int t = 0; t < nInputs; ++t)
            less[t] = satAdd(less[t], satMul(weight, std::max<i64>(0, whole[t] - r->peWrites[t])));
    }
    return true;
}

const LevelOut* Evaluator::Impl::child(int l, const i64* Dc)
{
    auto& cache = memo[l];
    const i64 begin = tapLevel[l] ? tapBegin[l] : -1;
    for (const auto& e : cache) {
        bool same = e.begin == begin;
        for (int i = 0; i < nd && same; ++i)
            same = !(ivMask >> i & 1u) || e.key[i] == Dc[i];
        if (same) return &e.out;
    }
    LevelOut out = analyze(l, Dc);
    if (err != Err::None) return nullptr;
    MemoEntry e;
    e.begin = begin;
    for (int i = 0; i < nd; ++i)
        e.key[i] = Dc[i];
    e.out = out;
    cache.push_back(e);
    return &cache.back().out;
}

LevelOut Evaluator::Impl::analyze(int l, const i64* Dc)
{
    buildStates(l, Dc);
    // FIX CHILD-EXTENT: a child level under a parent's edge tile iterates over the smaller extent; MAESTRO
    // keeps the tile tables of the full extent (§4.0), which charges and computes the missing part.
    // Under a full tile of the parent (the usual case) the level's own tables already are the child's.
    bool edgeChild = false;
    if (corrected && l > 0)
        for (int i = 0; i < nd && !edgeChild; ++i)
            edgeChild = (ivMask >> i & 1u) && Dc[i] != lv[l].D[i];
    Level perCase;
    if (edgeChild) {
        perCase = lv[l];
        for (int i = 0; i < nd; ++i)
            if (ivMask >> i & 1u) perCase.D[i] = Dc[i];
        edgeUnits(perCase);
        tileTables(perCase);
    }
    const Level& L = edgeChild ? perCase : lv[l];
    // The tables of the sub-units' work: the level's own but under FIX TAP-COMPUTE.
    Level workTables;
    const Level& LW = L.tapComputeDims ? tapWorkLevel(L, workTables) : L;
    const bool isTop = l == 0;
    const bool innermost = l == nLevels - 1;
    const int o = nt - 1;
    LevelOut res;
    // Global-buffer traffic: which directives move a tensor's tile (more than one position here).
    std::uint32_t moving = 0;
    const bool aboveGb = corrected && l < gbLevel;
    if (corrected)
        for (int k = 0; k < L.n; ++k) {
            const Dir& d = L.d[k];
            const i64 tiles = tileCount(d.sz, d.of, L.D[d.dim]);
            if ((d.spatial ? ceilDiv(tiles, L.P) : tiles) > 1) moving |= 1u << k;
            // FIX FOLD-WRAP: a spatial map over several sub-units that wrapped around (an outer loop
            // advanced) moves each sub-unit from its tile of the last fold back to its first, by delta =
            // (folds - 1) * P * offset: it keeps max(0, size - delta) rows of it, whatever the last tile's
            // clipping (the first tile ends before). Every sub-unit keeps that when the last fold is full
            // (one idle there holds nothing afterwards: then none is credited). In the union of what they
            // fetch a row stays out when every sub-unit holding it kept it: those within delta of the last
            // sub-unit's tile's start fail, the others are the last size - delta rows of its tile, as many
            // as the first sub-unit keeps (exactExtent): its keep and the others' whole parts beyond their
            // neighbours' tiles count the union exactly.
            foldWrapKept[l][k] = d.spatial && L.P > 1 && L.nSpatial == 1 && tiles % L.P == 0
                ? std::max<i64>(0, d.sz - (tiles / L.P - 1) * L.P * d.of)
                : 0;
        }
    for (int t = 0; t < nt && corrected; ++t)
        res.gbConst[t] = (moving & L.tensorDirs[t]) == 0;
    // The per-case tests below are bit operations over the directives (L.spatialDirs, L.tensorDirs, the
    // case's edgeDirs and freshDirs): they were loops over the directives, a tenth of an evaluation.
    const std::uint32_t spatialDirs = L.spatialDirs;
    const State* s[kMaxLevelDirectives];
    i64 f[kMaxLevelDirectives];
    i64 total = 1;
    for (int k = L.n - 1; k >= 0; --k) {
        f[k] = total;
        total *= nStates[l][k];
    }
    bool firstDone = false;
    bool ovf = false;
    i64 sumOcc = 0;
    double utilSum = 0.0;
    i64 reqUp[kMaxTensors] = {};
    i64 in[kMaxTensors] = {};
    i64 inL1[kMaxTensors] = {};
    i64 halo[kMaxTensors]; // of in[t], what the parent's neighbouring sub-unit fetches too (haloHere's bits)
    const std::uint32_t haloHere = haloBits[l];
    // FIX HALO-TWO / HALO-NEST: of in[t], what the parent's P (haloUpP) or E (haloUpE) sub-units share with
    // their counterparts in the farther map's neighbouring sub-unit (haloUp); haloUpBad: tensors whose fetch
    // is no box this case.
    const std::uint32_t haloUpHere = haloUpBits[l];
    i64 haloUpP[kMaxTensors], haloUpE[kMaxTensors];
    std::uint32_t haloUpBad = 0;
    const i64 H = acc.nocLatency;
    const i64 BW = acc.nocBandwidth;
    auto delay = [&](i64 elems) { return H + ceilDiv(elems, BW) - 1; };
    i64 childDims[kMaxDims], eeDims[kMaxDims];
    // FIX LAST-STEP: the cases are enumerated in a rotated order (all-I first), so the last one processed
    // is not the case holding the level's last step; the final write-back is charged to the executed case
    // that is last in step order (the largest state indices, outermost directive first), among those whose
    // DRAM time is taken.
    i64 lastTopKey = -1;

    // Case c > 0 takes state (digit_k + 1) mod nStates of each directive k, where digit is c - 1 written in
    // the mixed radix of the state counts (directive n - 1 least significant): an odometer, not a division
    // per directive per case.
    int digit[kMaxLevelDirectives] = {};
    for (i64 c = 0; c < total; ++c) {
        i64 occ = 1;
        int ch = -1;
        if (c >= 2)
            for (int k = L.n - 1; k >= 0; --k) {
                if (++digit[k] < nStates[l][k]) break;
                digit[k] = 0;
            }
        // Directives at a partial tile (edge), and those at their first position that are not unrolled.
        std::uint32_t edgeDirs = 0, freshDirs = 0;
        for (int k = 0; k < L.n; ++k) {
            const int next = digit[k] + 1;
            s[k] = &states[l][k][c == 0 || next == nStates[l][k] ? 0 : next];
            ovf |= __builtin_mul_overflow(occ, s[k]->occ, &occ);
            if (s[k]->pos != PosI) ch = k;
            edgeDirs |= s[k]->edge ? 1u << k : 0u;
            freshDirs |= s[k]->pos == PosI && !s[k]->unrolled ? 1u << k : 0u;
        }
        // The directives that moved at this step: the one that advanced and those inside it that wrapped.
        const std::uint32_t advancing = ch < 0 ? 0u : (1u << ch) | (moving & (~0u << ch));
        // A child execution whose PEs' tiles of tensor t never move receives none of it when this step kept
        // the tile (the directive that advanced, and those inside it that wrapped, do not index t), since
        // the PEs keep it from the previous execution.
        auto tileMoves = [&](int t) { return ch < 0 || (advancing & L.tensorDirs[t]) != 0; };
        auto gbKept = [&](int t, const LevelOut& r) { return corrected && r.gbConst[t] && !tileMoves(t); };
        // Output side.
        bool speO = false, eeO = false;
        if (L.nCoupledSpatial[o] > 0) {
            speO = (edgeDirs & spatialDirs & L.tensorDirs[o]) != 0;
            eeO = s[L.lastCoupledSpatial[o]]->edgeEdge;
        }
        const bool spmO = L.nCoupledSpatial[o] > 0;
        i64 out = aggregate(
            L, spmO, speO, eeO, [&](bool first, bool eepe) { return peout(L, s, false, first, eepe, true); });
        i64 ps = peout(LW, s, true, true, spmO && speO && L.E == 1 && eeO, true);
        i64 macs = 0;
        if (isTop) {
            const bool speAll = (edgeDirs & spatialDirs) != 0;
            bool eeAll = s[L.lastSp]->edgeEdge;
            if (!speAll) {
                macs = L.P * peout(LW, s, true, true, false, true);
            } else {
                macs = peout(LW, s, true, true, L.E == 1 && eeAll, true);
                if (L.E > 1) {
                    i64 nee = eeAll ? 1 : 0;
                    i64 nfull = std::max<i64>(L.E - nee - 1, 0);
                    macs += nfull * peout(LW, s, true, true, false, true)
                        + nee * peout(LW, s, true, false, true, false);
                }
            }
        }
        const bool speAllCase = (edgeDirs & spatialDirs) != 0;
        // Input side (needed for buffer requirements and for processed cases).
        auto computeIngress = [&]() -> bool {
            for (int t = 0; t < nInputs; ++t) {
                const bool fresh = ch >= 0 && (freshDirs & L.tensorDirs[t] & (~0u << (ch + 1))) != 0;
                if (ch >= 0 && !fresh && !L.d[ch].spatial && (tmask[t] >> L.d[ch].dim & 1u)
                    && L.U[L.d[ch].dim] == 0)
                    return fail(Err::ZeroUnique, L.d[ch].src, L.d[ch].dim, l);
                bool spe = false, ee = false;
                if (L.nCoupledSpatial[t] > 0) {
                    spe = (edgeDirs & spatialDirs & L.tensorDirs[t]) != 0;
                    ee = s[L.lastCoupledSpatial[t]]->edgeEdge;
                }
                if (corrected) {
                    // The four (unique, eepe) variants, each computed once: the L2 and L1 sides share them.
                    i64 memo[2][2] = {{-1, -1}, {-1, -1}};
                    auto exact = [&](bool unique, bool eepe) {
                        i64& m = memo[unique][eepe];
                        if (m < 0) m = ingressExact(L, l, s, t, unique, eepe, ch);
                        return m;
                    };
                    in[t] = aggregate(L, L.nCoupledSpatial[t] > 0, spe, ee,
                        [&](bool first, bool eepe) { return exact(!first, eepe); });
                    if (haloHere >> t & 1u) {
                        const Dir& pd = lv[haloSrc[l]].d[lv[haloSrc[l]].sp];
                        halo[t] = aggregate(L, L.nCoupledSpatial[t] > 0, spe, ee, [&](bool first, bool eepe) {
                            return haloExact(L, l, s, t, !first, eepe, ch, pd.dim, pd.of);
                        });
                    }
                    if (haloUpHere >> t & 1u) [[unlikely]] {
                        const Level& M = lv[l - 1];
                        const Dir& d1 = M.d[M.sp];
                        const Dir& d2 = lv[haloUp[l]].d[lv[haloUp[l]].sp];
                        bool box = true;
                        auto sum = [&](auto&& part) {
                            return aggregate(L, L.nCoupledSpatial[t] > 0, spe, ee, part);
                        };
                        if (d1.dim == d2.dim) { // HALO-NEST: the union of the parent's sub-units' fetches
                            auto shared = [&](i64 n) {
                                return sum([&](bool first, bool eepe) {
                                    i64 h = 0;
                                    box = nestHalo(L, l, s, t, !first, eepe, ch, n, h) && box;
                                    return h;
                                });
                            };
                            haloUpP[t] = shared(M.P);
                            haloUpE[t] = shared(M.E);
                        } else { // HALO-TWO: n sub-units in a line share n halos less n - 1 corners
                            auto part = [&](bool wantCorner) {
                                return sum([&](bool first, bool eepe) {
                                    i64 h = 0, c = 0;
                                    box = haloBox(L, l, s, t, !first, eepe, ch, d1.dim, d1.of, d2.dim, d2.of,
                                              h, c)
                                        && box;
                                    return wantCorner ? c : h;
                                });
                            };
                            const i64 h2 = part(false), corner = part(true);
                            haloUpP[t] = satMul(M.P, h2) - satMul(M.P - 1, corner);
                            haloUpE[t] = satMul(M.E, h2) - satMul(M.E - 1, corner);
                        }
                        haloUpBad = box ? haloUpBad & ~(1u << t) : haloUpBad | 1u << t;
                    }
                    // FIX L1-WRITES: every receiving sub-unit writes what it received (multicast copies
                    // count once in L2 reads, once per receiver in L1 writes).
                    auto self = [&](bool eepe) { return exact(false, eepe); };
                    if (L.nCoupledSpatial[t] == 0)
                        inL1[t] = (speAllCase ? L.E : L.P) * self(false);
                    else if (!spe)
                        inL1[t] = L.P * self(false);
                    else {
                        inL1[t] = self(L.E == 1 && ee);
                        if (L.E > 1) {
                            i64 nee = ee ? 1 : 0;
                            inL1[t] += std::max<i64>(L.E - nee - 1, 0) * self(false) + nee * self(true);
                        }
                    }
                    // A NoC that multicasts only identical tiles sends each sub-unit its own tile of a
                    // tensor the spatial maps index; one without multicast sends every copy.
                    if (sendsEveryCopy(L.nCoupledSpatial[t] > 0)) in[t] = inL1[t];
                } else {
                    in[t] = aggregate(L, L.nCoupledSpatial[t] > 0, spe, ee,
                        [&](bool first, bool eepe) { return ingress(L, s, t, first, eepe, ch, fresh); });
                }
            }
            return true;
        };
        bool haveIngress = false;
        if (!firstDone) {
            if (!computeIngress()) return res;
            haveIngress = true;
            // §4.6: buffer requirements and tensor sizes (input-class parts accumulate over leading
            // skipped cases, quirk Q-BUF-3).
            for (int t = 0; t < nt; ++t) {
                i64 dn = 2;
                for (int k = 0; k < tcount[t]; ++k) {
                    int v = tdims[t][k];
                    if (L.dirOf[v] < 0) continue;
                    // FIX L1-OUTPUT: a window's output tile holds its outputs, not the input rows they read
                    // (an 11x11 window's one output is one element, not 121).
                    const int w = slideOf[v];
                    if (corrected && t == nt - 1 && w >= 0 && L.dirOf[w] >= 0)
                        dn *= std::max<i64>(
                            1, (L.M[v] - eff(L.M[w], dilation[v])) / std::max<i64>(stride[v], 1) + 1);
                    else
                        dn *= L.M[v];
                }
                if (t < nInputs) {
                    // FIX Q-BUF-3: a step that computes nothing moves nothing (FIX Q-EDGE-1), so the
                    // requirement is the first computing step's tiles, not the sum of those before it.
                    reqUp[t] = corrected ? 2 * in[t] : reqUp[t] + 2 * in[t];
                    res.reqDn[t] += dn;
                    if (isTop) {
                        i64 size = 1;
                        for (int k = 0; k < tcount[t]; ++k)
                            size *= Dc[tdims[t][k]];
                        top.t[t].l2Write = size;
                    }
                } else {
                    reqUp[t] = 2 * out;
                    res.reqDn[t] = dn;
                    if (isTop) {
                        i64 size = 1;
                        for (int k = 0; k < tcount[t]; ++k) {
                            int v = tdims[t][k];
                            int w = slideOf[v];
                            size *= w >= 0 ? Dc[v] - eff(Dc[w], dilation[v]) + 1 : Dc[v];
                        }
                        top.t[t].l2Read = size;
                    }
                }
            }
        }
        const bool skipped = ps <= 0;
        // The global buffer's traffic is counted from the PEs (doc/cost-model.md, "Global-buffer traffic"):
        // at the innermost level, per step, what its PEs lack (in[t], multicast as the NoC does); above it
        // down to gbLevel, from the child executions (below). The PEs keep their partial sums while their
        // output tile stays and return them when it moves on: each run of steps over one output tile
        // updates the L2 once (counted at its first step, with that tile's outputs).
        const bool peCount = corrected && l >= gbLevel && innermost;
        // The outputs the sub-units return, reduced: those of several sub-units in lock-step count once
        // (filter rows and the input rows they read spread together, row-stationary, all feed one output).
        auto outReduced = [&]() {
            // Only sub-units in lock-step on one output tile, or a later one with no output of its own (U = 0
            // on a spread output dimension), are counted differently from the egress.
            bool noneOwn = false;
            for (int k = 0; k < L.n && !noneOwn; ++k) {
                const int v = L.d[k].dim;
                noneOwn = L.d[k].spatial && (tmask[o] >> v & 1u) && L.U[outOf[v] >= 0 ? outOf[v] : v] == 0;
            }
            const bool same = sameOutputsAcross(L);
            if (!noneOwn && !same) return out;
            return same ? peout(L, s, false, true, false, true, true)
                        : aggregate(L, spmO, speO, eeO, [&](bool first, bool eepe) {
                              return peout(L, s, false, first, eepe, true, true);
                          });
        };
        if (peCount && !skipped && tileMoves(o)) addMul(res.gbOut, occ, outReduced(), ovf);
        // A fold of fewer sub-units than the previous one, along a dimension the outputs do not have: the
        // PEs without a tile in it hold nothing afterwards, so they return their partial sums of the output
        // tile the others keep (which return theirs when it moves on). Not so over filter taps, where
        // the sub-units' outputs are their taps' (the step walk's).
        if (peCount && !skipped && ch >= 0 && ch == L.sp && L.nSpatial == 1 && s[ch]->pos == PosE && L.E < L.P
            && !tileMoves(o) && !(slidingMask >> L.d[ch].dim & 1u))
            addMul(res.gbOut, occ, outReduced(), ovf);
        // FIX Q-EDGE-1: in corrected fidelity a skipped case adds nothing.
        if (isTop && !(corrected && skipped)) {
            addMul(top.t[o].l2Write, occ, out, ovf);
            addMul(top.t[o].l1Write, occ, macs, ovf);
            addMul(top.t[o].l1Read, occ, macs, ovf);
        }
        if (skipped) continue;
        firstDone = true;
        res.anyProcessed = true;
        if (!haveIngress && !computeIngress()) return res;
        i64 sumIn = 0;
        for (int t = 0; t < nInputs; ++t)
            sumIn += in[t];
        if (peCount)
            for (int t = 0; t < nInputs; ++t) {
                addMul(res.gbIn[t], occ, in[t], ovf);
                if (haloHere >> t & 1u) addMul(res.gbHalo[t], occ, halo[t], ovf);
                if (haloUpHere >> t & 1u) [[unlikely]] {
                    if (haloUpBad >> t & 1u) res.haloUpLost |= 1u << t;
                    addMul(res.gbHaloUp[t], occ, haloUpP[t], ovf);
                    addMul(res.gbHaloUpEdge[t], occ, haloUpE[t], ovf);
                }
            }
        if (isTop) {
            for (int t = 0; t < nInputs; ++t) {
                addMul(top.t[t].l2Read, occ, in[t], ovf);
                if (corrected) addMul(top.t[t].l1Write, occ, inL1[t], ovf);
                addMul(top.t[t].l1Read, occ, macs, ovf);
            }
            addMul(top.macs, occ, macs, ovf);
        }
        // Compute delay: the PE work, or the slowest child level (§5.1).
        i64 comp = 0;
        double units = 0.0;
        const State& sps = *s[L.sp];
        if (innermost) {
            comp = ceilDiv(ps, acc.simdLanes);
            units = double(sps.edge ? L.E : L.P);
            for (int t = 0; t < nInputs; ++t)
                addMul(res.peWrites[t], occ, inL1[t], ovf);
        } else {
            // Inlined: called from three places, the compiler made it a call, which cost the evaluations of
            // `marvel bench costmodel` 5 %.
            auto childDimsFor = [&](bool eeSub) __attribute__((always_inline))
            {
                for (int i = 0; i < nd; ++i)
                    childDims[i] = 0;
                for (int k = 0; k < L.n; ++k) {
                    int v = L.d[k].dim;
                    if (!(ivMask >> v & 1u)) continue;
                    const State& st = *s[k];
                    if (!L.d[k].spatial)
                        childDims[v] = st.edge ? L.ME[v] : L.M[v];
                    else if (st.lastFold())
                        childDims[v] = (L.E == 1 || eeSub) ? L.ME[v] : L.M[v];
                    else
                        childDims[v] = L.M[v];
                }
            };
            // The step's child executions, `times` sub-units of each kind: their PE writes and global-buffer
            // traffic (none of a tile this step kept, gbKept), and whether their PEs' tiles stay put.
            // From gbLevel down, the sub-units' executions run in lock-step: those of a tensor this level's
            // spatial maps index fetch disjoint tiles (their counts add up), the others the same tiles at
            // the same frames (counted once, the larger kind's), unless the NoC sends every copy.
            i64 writes[kMaxTensors] = {}, gbIn[kMaxTensors] = {}, gbOut = 0;
            // With a NoC that multicasts identical tiles only: the child executions' fetches were they all
            // to start afresh, and the sub-units' tiles they fetch (whose ratio is the PEs' halo overhead).
            i64 freshIn[kMaxTensors] = {}, subTiles[kMaxTensors] = {};
            // What one child execution took off for what its PEs kept (the most of one), and whether one
            // kept its whole tile (overlapShare, below).
            i64 keptOne[kMaxTensors] = {};
            bool keptWhole[kMaxTensors] = {};
            // FIX HALO-DEEP: the child executions' halos (haloHere), handed up where their counts stand.
            i64 childHalo[kMaxTensors];
            std::uint32_t childHaloLost = 0; // tensors whose child counts a keep changed
            // FIX HALO-TWO / HALO-NEST: the child (the innermost level) measured what this level's P or E
            // sub-units share with their counterparts in the neighbouring sub-unit of this level's source
            // map.
            const std::uint32_t upChild = l + 1 < nLevels && haloUp[l + 1] >= 0 && haloUp[l + 1] == haloSrc[l]
                ? haloUpBits[l + 1] & haloHere
                : 0;
            i64 childHaloUp[kMaxTensors];
            std::uint32_t childHaloUpLost = 0;
            if (upChild) std::fill(childHaloUp, childHaloUp + nInputs, 0);
            if (haloHere) std::fill(childHalo, childHalo + nInputs, 0);
            // Sub-units of a map whose tiles overlap fetch the same rows at the same frames where each one's
            // new rows reach into its neighbour's (haloFrom): what the summed counts took twice, of the
            // counts with nothing kept (twiceIn) and of those from empty buffers (twiceFresh).
            const std::uint32_t halos = haloFrom[l];
            i64 twiceIn[kMaxTensors], twiceFresh[kMaxTensors];
            if (halos) {
                std::fill(twiceIn, twiceIn + nInputs, 0);
                std::fill(twiceFresh, twiceFresh + nInputs, 0);
            }
            bool childConst[kMaxTensors];
            std::fill(childConst, childConst + nt, true);
            // FIX TAP-IDLE: the PE writes of one child execution under a whole tap tile (full) and under the
            // last fold's partial one (edge), taken off for the idle sub-units (every execution starts from
            // empty buffers, so none of them moves to a later one).
            i64 fullWrites[kMaxTensors], edgeWrites[kMaxTensors];
            const bool tapWrites = tapLevel[l] || tapLevel[l + 1];
            auto takeChild = [&](const LevelOut& r, i64 times) {
                auto gather = [&](i64& sum, i64 count, int t, bool copies, bool kept) {
                    if (kept) return;
                    sum = aboveGb || copies || L.nCoupledSpatial[t] > 0 ? satAdd(sum, satMul(times, count))
                                                                        : std::max(sum, count);
                };
                // What the PEs kept from the previous step's execution, which the child's count takes again.
                const std::uint32_t mayKeep = ch >= 0 ? keepFrom[l] : 0;
                auto less = [&](i64 count, int t, KeptHalo* kh = nullptr) {
                    return (mayKeep >> t & 1u) && count > 0 ? std::max<i64>(
                               0, count - keptAcross(L, l, ch, moving, t, childDims, !r.gbConst[t], kh))
                                                            : count;
                };
                for (int t = 0; t < nInputs; ++t) {
                    writes[t] = satAdd(writes[t], satMul(times, r.peWrites[t]));
                    const bool copies = acc.multicast == arch::Multicast::None;
                    const bool kept = gbKept(t, r);
                    // FIX HALO-KEEP: the halo between this level's sub-units at the child's first frame once
                    // its PEs kept part of their tiles.
                    KeptHalo kh;
                    const bool ownHalo = (halos >> t & 1u) && times > 1;
                    if (ownHalo) [[unlikely]] {
                        kh.v = L.d[L.sp].dim;
                        kh.of = L.d[L.sp].of;
                    } else if (haloHere >> t & 1u) [[unlikely]] {
                        // FIX HALO-KEEP-DEEP: the same against the map above whose halo this level hands up.
                        const Level& S = lv[haloSrc[l]];
                        kh.v = S.d[S.sp].dim;
                        kh.of = S.d[S.sp].of;
                    }
                    const i64 count = kept ? 0 : less(r.gbIn[t], t, kh.v >= 0 ? &kh : nullptr);
                    gather(gbIn[t], count, t, copies, kept);
                    keptWhole[t] = keptWhole[t] || kept;
                    if (haloHere >> t & 1u) [[unlikely]] {
                        i64 h = r.gbHalo[t];
                        if (kept)
                            childHaloLost |= 1u << t;
                        else if (count != r.gbIn[t]) {
                            if (!ownHalo && kh.ok && h >= kh.full)
                                h = h - kh.full + kh.kept;
                            else
                                childHaloLost |= 1u << t;
                        }
                        childHalo[t] = L.nCoupledSpatial[t] > 0 ? satAdd(childHalo[t], satMul(times, h))
                                                                : std::max(childHalo[t], h);
                    }
                    if (upChild >> t & 1u) [[unlikely]] {
                        if (kept || count != r.gbIn[t] || (r.haloUpLost >> t & 1u)
                            || L.nCoupledSpatial[t] == 0 || (times != L.P && times != L.E))
                            childHaloUpLost |= 1u << t;
                        else
                            childHaloUp[t] = times == L.P ? r.gbHaloUp[t] : r.gbHaloUpEdge[t];
                    }
                    if (!kept) keptOne[t] = std::max(keptOne[t], r.gbIn[t] - count);
                    if ((halos >> t & 1u) && times > 1) [[unlikely]] {
                        const i64 twice = satMul(times - 1, r.gbHalo[t]);
                        if (!kept && count == r.gbIn[t])
                            twiceIn[t] = satAdd(twiceIn[t], twice);
                        else if (!kept && kh.ok && r.gbHalo[t] >= kh.full)
                            twiceIn[t]
                                = satAdd(twiceIn[t], satMul(times - 1, r.gbHalo[t] - kh.full + kh.kept));
                        twiceFresh[t] = satAdd(twiceFresh[t], twice);
                    }
                    if (acc.multicast == arch::Multicast::None || aboveGb) continue;
                    gather(freshIn[t], r.gbIn[t], t, copies, false);
                    i64 tile = 1;
                    for (int k = 0; k < tcount[t]; ++k)
                        tile = satMul(tile, childDims[tdims[t][k]]);
                    gather(subTiles[t], tile, t, copies, false);
                }
                const bool keptO = gbKept(o, r);
                gather(gbOut, keptO ? 0 : less(r.gbOut, o), o, false, keptO);
                for (int t = 0; t < nt; ++t) {
                    res.gbConst[t] = res.gbConst[t] && r.gbConst[t];
                    childConst[t] = childConst[t] && r.gbConst[t];
                }
            };
            // The sub-units of a last fold are unequal when the last one's tile is partial.
            bool uniformChildren = !sps.edge || !sps.edgeEdge;
            if (!uniformChildren && corrected) {
                uniformChildren = true;
                for (int k = 0; k < L.n && uniformChildren && L.E > 1; ++k) {
                    const int v = L.d[k].dim;
                    uniformChildren
                        = !L.d[k].spatial || !(ivMask >> v & 1u) || !s[k]->lastFold() || L.ME[v] == L.M[v];
                }
            }
            if (uniformChildren) {
                childDimsFor(false);
                const LevelOut* r = child(l + 1, childDims);
                if (!r) return res;
                comp = r->runtime;
                units = r->avgUtil * double(sps.edge ? L.E : L.P);
                takeChild(*r, sps.edge ? L.E : L.P);
                if (tapWrites) {
                    std::copy(r->peWrites, r->peWrites + nInputs, fullWrites);
                    std::copy(r->peWrites, r->peWrites + nInputs, edgeWrites);
                }
            } else {
                childDimsFor(true);
                std::copy(childDims, childDims + nd, eeDims);
                const LevelOut* r = child(l + 1, childDims);
                if (!r) return res;
                comp = r->runtime;
                units = r->avgUtil;
                takeChild(*r, 1);
                if (tapWrites) {
                    std::copy(r->peWrites, r->peWrites + nInputs, fullWrites);
                    std::copy(r->peWrites, r->peWrites + nInputs, edgeWrites);
                }
                if (L.E - 1 > 0) {
                    childDimsFor(false);
                    const LevelOut* r2 = child(l + 1, childDims);
                    if (!r2) return res;
                    comp = std::max(comp, r2->runtime);
                    units += r2->avgUtil * double(L.E - 1);
                    takeChild(*r2, L.E - 1);
                    if (tapWrites) std::copy(r2->peWrites, r2->peWrites + nInputs, fullWrites);
                }
            }
            // PEs whose tiles stay put through the child execution fetch, and return, what this level's
            // sub-units lack at the step: its ingress and egress, exact then with a NoC that multicasts
            // elements (halos between the PEs included). With one that multicasts identical tiles only, each
            // PE of a halo takes its own copy: the ingress grows by the PEs' tiles over their sub-unit's.
            const bool peLevel = corrected && !aboveGb;
            // PEs of different sub-units holding identical tiles fetch (and return) them once.
            if (peLevel && uniformChildren && L.overlappingSpatial) {
                const i64 n = sps.edge ? L.E : L.P;
                auto share = [&](int t, i64& v, i64* also) {
                    i64 num = 0, den = 1;
                    if (!overlapShare(L, l, t, childDims, n, num, den)) return false;
                    v = i64(static_cast<__int128>(v) * num / den);
                    if (also) *also = i64(static_cast<__int128>(*also) * num / den);
                    return true;
                };
                for (int t = 0; t < nInputs; ++t) {
                    if (!share(t, gbIn[t], &freshIn[t])) continue;
                    if (halos >> t & 1u) twiceIn[t] = twiceFresh[t] = 0; // the union taken
                    if (keptOne[t] > 0 && !keptWhole[t] && keptAtOneEnd(L, l, ch, moving, t, childDims))
                        gbIn[t] = std::max<i64>(0, freshIn[t] - keptOne[t]);
                }
                share(o, gbOut, nullptr);
            }
            for (int t = 0; t < nInputs && halos; ++t)
                if (halos >> t & 1u) {
                    gbIn[t] = std::max<i64>(0, gbIn[t] - twiceIn[t]);
                    freshIn[t] = std::max<i64>(0, freshIn[t] - twiceFresh[t]);
                }
            // A step along a dimension a level below spreads over its sub-units by at least their tile leaves
            // no PE anything of its new tile, whatever the clusters' tiles share: they fetch it whole.
            auto peKeepsNothing = [&](int t) {
                for (std::uint32_t dirs = advancing & L.tensorDirs[t]; dirs != 0; dirs &= dirs - 1) {
                    const Dir& d = L.d[std::countr_zero(dirs)];
                    for (int b = l + 1; b < nLevels; ++b) {
                        const int j = lv[b].dirOf[d.dim];
                        if (j >= 0 && lv[b].d[j].spatial && lv[b].d[j].sz <= d.of) return true;
                    }
                }
                return false;
            };
            // Unequal sub-units (the last one's tile partial): the edge one's and the others' counts, added
            // up when their tiles of t differ.
            auto shiftFetch = [&](int t, i64& g) {
                if (uniformChildren) return peShiftFetch(L, l, t, ch, childDims, sps.edge ? L.E : L.P, g);
                i64 a = 0, b = 0;
                bool summed = false;
                if (!peShiftFetch(L, l, t, ch, eeDims, 1, a, &summed)) return false;
                if (L.E > 1 && !peShiftFetch(L, l, t, ch, childDims, L.E - 1, b, &summed)) return false;
                g = summed ? satAdd(a, b) : std::max(a, b);
                return true;
            };
            for (int t = 0; t < nInputs; ++t) {
                addMul(res.peWrites[t], occ, writes[t], ovf);
                i64 g = gbIn[t];
                // FIX HALO-SHIFT: PEs holding their sub-unit's whole tile of t fetch what it does (the
                // level's own count, in[t]), and share its halo with the neighbouring sub-unit of the map
                // above, however their fetch was counted.
                auto handUpHalo = [&] {
                    if ((haloHere >> t & 1u) && g == in[t] && !tensorSpreadBelow(l, t)) [[unlikely]]
                        addMul(res.gbHalo[t], occ, halo[t], ovf);
                };
                if (peLevel && childConst[t] && acc.multicast != arch::Multicast::None && tileMoves(t)
                    && peKeepsNothing(t)) {
                    g = freshIn[t];
                    handUpHalo();
                } else if (peLevel && childConst[t] && tileMoves(t) && shiftFetch(t, g))
                    handUpHalo();
                else if (peLevel && childConst[t] && acc.multicast != arch::Multicast::None
                    && !(haloHere >> t & 1u) && uniformChildren && tileMoves(t)
                    && peBoxFetch(L, l, t, ch, moving, childDims, sps.edge ? L.E : L.P, g))
                    [[unlikely]];
                else if (peLevel && childConst[t] && acc.multicast == arch::Multicast::Elements) {
                    g = in[t];
                    if (haloHere >> t & 1u) addMul(res.gbHalo[t], occ, halo[t], ovf);
                } else if (peLevel && childConst[t] && acc.multicast == arch::Multicast::Tiles
                    && subTiles[t] > 0)
                    g = i64(static_cast<__int128>(in[t]) * freshIn[t] / subTiles[t]);
                else if ((haloHere >> t & ~childHaloLost & 1u) && childHaloIsHere(l)
                    && (uniformChildren || L.nCoupledSpatial[t] > 0)) [[unlikely]]
                    addMul(res.gbHalo[t], occ, childHalo[t], ovf);
                else if ((upChild >> t & ~childHaloUpLost & 1u) && uniformChildren) [[unlikely]]
                    addMul(res.gbHalo[t], occ, childHaloUp[t], ovf);
                addMul(res.gbIn[t], occ, g, ovf);
            }
            addMul(res.gbOut, occ, peLevel && childConst[o] ? (tileMoves(o) ? outReduced() : 0) : gbOut, ovf);
            // FIX TAP-IDLE: a sub-unit whose taps complete nothing runs no child execution.
            if (tapWrites)
                tapIdleWrites(L, l, s, Dc, occ, childDims, uniformChildren, fullWrites, edgeWrites, res);
        }
        i64 din = delay(sumIn);
        i64 dout = delay(out);
        i64 t = std::max({dout, comp, din});
        if (ch < 0) ovf |= __builtin_add_overflow(comp, din, &t);
        if (isTop) {
            i64 reqIn = 0;
            for (int k = 0; k < nInputs; ++k)
                reqIn += reqUp[k];
            i64 off = acc.offchipBandwidth;
            if (corrected) {
                // The case's steps move their own DRAM traffic (the representative step of the case: which
                // directive advanced, full or edge tiles), overlapped with their on-chip time.
                if (t < 1 || dramEngine.stepBound() > off) {
                    i64 key = 0;
                    for (int k = 0; k < L.n; ++k)
                        key += (s[k] - states[l][k]) * f[k];
                    const bool lastSoFar = key > lastTopKey;
                    if (lastSoFar) lastTopKey = key;
                    i64 cur[kMaxLevelDirectives], prv[kMaxLevelDirectives];
                    for (int k = 0; k < L.n; ++k) {
                        const i64 N = dramEngine.positions(k);
                        cur[k] = s[k]->pos == PosI ? 0 : s[k]->pos == PosS ? std::min<i64>(1, N - 1) : N - 1;
                        prv[k] = k < ch ? cur[k] : k == ch ? std::max<i64>(cur[k] - 1, 0) : N - 1;
                    }
                    const i64 moved = dramEngine.stepElements(cur, ch < 0 ? nullptr : prv, false);
                    if (lastSoFar) {
                        lastTop = {true, t, moved, ch >= 0};
                        std::copy(cur, cur + L.n, lastTop.pos);
                        std::copy(prv, prv + L.n, lastTop.prev);
                        for (int k = 0; k < L.n; ++k) {
                            const i64 N = dramEngine.positions(k);
                            const bool edgeAfter = s[k] - states[l][k] + 1 < nStates[l][k];
                            lastTop.last[k] = s[k]->pos == PosI   ? 0
                                : s[k]->pos == PosE || !edgeAfter ? N - 1
                                                                  : N - 2;
                        }
                    }
                    t = std::max(t, ceilDiv(moved, off));
                } else {
                    // Every transfer fits in the step's cycles (with a bound above the bandwidth every case
                    // takes the branch above, so this case is no earlier step's).
                    lastTop.valid = false;
                }
            } else {
                t = std::max({(reqIn / off) / 2, t, (reqUp[o] / off) / 2}); // MAESTRO's off-chip bound
            }
            i64 compG = comp;
            if (compG == 0) {
                if (!(opt.guardZeroCompute || corrected)) { // FIX Q-EDGE-3
                    fail(Err::ZeroCompute, -1, -1, l);
                    return res;
                }
                compG = 1;
            }
            top.offchip = std::max({top.offchip, reqUp[o] / compG, reqIn / compG}) / 2;
            i64 compP = std::max<i64>(comp, 1);
            i64 traffic = std::max(sumIn, out);
            top.peak = std::max(top.peak, traffic / compP);
            {
                i64 weighted = 0;
                ovf |= __builtin_mul_overflow(occ, traffic, &weighted);
                top.avgNum += weighted / compP;
            }
            top.dinMin = std::min(top.dinMin, din);
            top.dinMax = std::max(top.dinMax, din);
            addMul(top.dinSum, occ, din, ovf);
            top.doutMin = std::min(top.doutMin, dout);
            top.doutMax = std::max(top.doutMax, dout);
            addMul(top.doutSum, occ, dout, ovf);
            top.compMin = std::min(top.compMin, compP);
            top.compMax = std::max(top.compMax, compP);
            addMul(top.compSum, occ, compP, ovf);
            top.ai = double(macs) / double(sumIn);
        }
        addMul(res.runtime, occ, t, ovf);
        sumOcc += occ;
        utilSum += double(occ) * units;
        if (ovf) {
            fail(Err::TooLarge, -1, -1, l);
            return res;
        }
    }
    if (ovf) {
        fail(Err::TooLarge, -1, -1, l);
        return res;
    }
    if (isTop && corrected && lastTop.valid) {
        // The last step also writes its outputs back. FIX LAST-STEP: it is the last step of the case last in
        // step order, not that case's representative (a steady state's second position, whose tiles a
        // window's outputs can clip differently), after the step before it; when either computes nothing
        // (tiles of filter taps, class 1) the representative stands.
        const i64 off = acc.offchipBandwidth;
        i64 before[kMaxLevelDirectives];
        std::copy(lastTop.last, lastTop.last + L.n, before);
        int adv = L.n - 1;
        while (adv >= 0 && before[adv] == 0)
            --adv;
        for (int k = adv + 1; k < L.n; ++k)
            before[k] = dramEngine.positions(k) - 1;
        if (adv >= 0) --before[adv];
        const bool exact = dramEngine.live(lastTop.last) && (adv < 0 || dramEngine.live(before));
        const i64 moved = exact
            ? dramEngine.stepElements(lastTop.last, adv < 0 ? nullptr : before, true)
            : dramEngine.stepElements(lastTop.pos, lastTop.hasPrev ? lastTop.prev : nullptr, true);
        res.runtime
            += std::max(lastTop.t, ceilDiv(moved, off)) - std::max(lastTop.t, ceilDiv(lastTop.moved, off));
    }
    // A level whose cases are all empty counts as one busy unit: this is what MAESTRO's guard-fixed
    // build reports for such sub-clusters (layers_guardfix.csv, repo vgg16_rs).
    res.avgUtil = sumOcc > 0 ? utilSum / double(sumOcc) : 1.0;
    if (isTop) {
        top.sumOcc = sumOcc;
        for (int t = 0; t < nt; ++t)
            top.t[t].l2Req = reqUp[t];
    }
    if (!haveFirst) {
        haveFirst = true;
        for (int t = 0; t < nt; ++t)
            firstReqDn[t] = res.reqDn[t];
    }
    return res;
}

// ------------------------------------------------------------------------------------------------
// Single-level mappings, walked step by step (corrected fidelity)

namespace {

Span intersect(Span a, Span b)
{
    return Span{std::max(a.begin, b.begin), std::min(a.end, b.end)};
}

// Appends `a` less `b` to `out` (one range, or two when b lies inside a) and returns their intersection.
Span pushDifference(std::vector<Span>& out, Span a, Span b)
{
    const Span both = intersect(a, b);
    if (both.size() == 0) {
        out.push_back(a);
    } else {
        out.push_back(Span{a.begin, both.begin});
        out.push_back(Span{both.end, a.end});
    }
    return both;
}

// Elements covered by a union of ranges (sorted in place).
i64 unionSize(std::vector<Span>& spans)
{
    const auto byBegin = [](Span a, Span b) { return a.begin < b.begin; };
    // The walk pushes its sub-units' ranges in order, so they usually come sorted.
    if (!std::is_sorted(spans.begin(), spans.end(), byBegin)) std::sort(spans.begin(), spans.end(), byBegin);
    i64 n = 0, reach = std::numeric_limits<i64>::min();
    for (const Span& x : spans) {
        if (x.size() == 0) continue;
        const i64 from = std::max(x.begin, reach);
        if (x.end > from) n += x.end - from;
        reach = std::max(reach, x.end);
    }
    return n;
}

/// Leaves the distinct non-empty ranges of `spans`, sorted: the tiles a NoC that multicasts identical tiles
/// only sends once each.
void keepDistinct(std::vector<Span>& spans)
{
    std::erase_if(spans, [](Span x) { return x.size() == 0; });
    std::sort(spans.begin(), spans.end());
    spans.erase(std::unique(spans.begin(), spans.end()), spans.end());
}

// Sub-unit steps beyond which a mapping keeps the per-case analysis: a walk of this size costs a few dozen
// per-case evaluations, so searches in corrected fidelity stay fast.
constexpr i64 kStepWalkLimit = i64(1) << 12;
/// Element visits the walk may spend on counting the PEs' frames (about 0.1 ms); beyond, the per-case
/// tables' count stands (the random sets' mappings stay far below it).
constexpr i64 kFrameCountLimit = i64(1) << 16;
// FIX PE-BOXES counts at most this many PEs' boxes and cells times boxes: far more than the random set's
// mappings ask; beyond, the other rules stand (the search's evaluations of large arrays would pay for it).
constexpr i64 kBoxPes = 64;
constexpr i64 kBoxWork = i64(1) << 12;

} // namespace

// The sub-units of a level whose spatial map's tiles overlap (offset below size) hold some rows of that
// dimension in common, and so do their PEs when a level below spreads the rows over them and none steps
// through them in time: at every frame the PEs of different sub-units on the same rows hold identical
// tiles (their other dimensions move in lock-step), which the NoC sends once (elements: the union of the
// rows; tiles: one send per distinct range) and whose partial sums count once. A sub-unit's child count is
// then its PEs' rows times what each row fetches, and the sub-units' together the union's: num / den of
// their sum (row-stationary: 6 clusters of 3 input rows, one a PE, 8 rows in all, 8 / 18).
bool Evaluator::Impl::overlapShare(
    const Level& L, int l, int t, const i64* childDims, i64 n, i64& num, i64& den)
{
    const bool outputs = t == nt - 1;
    if (!L.overlappingSpatial || (!outputs && acc.multicast == arch::Multicast::None)) return false;
    int k = -1;
    for (int j = 0; j < L.n; ++j) {
        if (!L.d[j].spatial || !(tmask[t] >> L.d[j].dim & 1u)) continue;
        if (k >= 0) return false; // two maps spread it: the PEs' ranges are not one dimension's
        k = j;
    }
    if (k < 0 || n < 2 || L.d[k].sz <= L.d[k].of) return false;
    const int v = L.d[k].dim;
    // A window's output rows are not the PEs' rows: leave the outputs of a window's rows alone.
    if (outputs && outOf[v] >= 0) return false;
    if (!peSpans(l, v, childDims[v], shareSpans)) return false;
    const bool distinct = !outputs && acc.multicast == arch::Multicast::Tiles;
    auto measure = [&](std::vector<Span>& spans) {
        if (!distinct) return unionSize(spans);
        keepDistinct(spans);
        return i64(spans.size());
    };
    const size_t per = shareSpans.size();
    if (satMul(i64(per), n) > 1 << 16) return false;
    shareNext.clear();
    for (i64 i = 0; i < n; ++i)
        for (size_t p = 0; p < per; ++p)
            shareNext.push_back(Span{shareSpans[p].begin + i * L.d[k].of, shareSpans[p].end + i * L.d[k].of});
    den = satMul(measure(shareSpans), n);
    num = measure(shareNext);
    return den > 0 && num < den;
}

// FIX SHARE-KEEP: the ratio of the PEs' union to the sum of the sub-units' tiles holds for what they fetch
// from empty buffers, not for what they kept. When the step moved the sub-units' tiles along the spread
// dimension (a new fold, or the map wrapped around) and the PEs hold their sub-unit's whole range there, a
// sub-unit's keep is the overlap of its range with its previous one, at one end of it (times a box on the
// other dimensions, the same for every sub-unit): the low end after a fold, the high end after a wrap. A
// row at the low end of sub-unit 0's range lies at the low end of every tile holding it (the tiles are
// translates), so every holder kept it; a row further on is held by a sub-unit that did not keep it (the
// move is at least the offset). The union keeps one sub-unit's keep, the high end likewise: it fetches its
// fetch from empty buffers less that. The summed counts' ratio took the sub-units' keeps times the ratio,
// less than one keep, and counted fewer than the simulator (seed 5, case 2576).
bool Evaluator::Impl::keptAtOneEnd(
    const Level& L, int l, int ch, std::uint32_t moving, int t, const i64* childDims) const
{
    int sj = -1;
    for (int j = 0; j < L.n; ++j)
        if (L.d[j].spatial && (tmask[t] >> L.d[j].dim & 1u)) sj = j;
    if (sj < 0 || ch < 0 || !(sj == ch || (sj > ch && (moving >> sj & 1u)))) return false;
    const int v = L.d[sj].dim;
    i64 ext = childDims[v];
    for (int b = l + 1; b < nLevels; ++b) {
        const int j = lv[b].dirOf[v];
        if (j < 0 || lv[b].d[j].sz < ext) return false;
    }
    return true;
}

bool Evaluator::Impl::peSpans(int l, int v, i64 ext, std::vector<Span>& out)
{
    out.assign(1, Span{0, ext});
    for (int b = l + 1; b < nLevels; ++b) {
        const Level& B = lv[b];
        const int j = B.dirOf[v];
        if (j < 0) return false;
        const Dir& d = B.d[j];
        const i64 slots = d.spatial ? B.P : 1;
        if (satMul(i64(out.size()), slots) > 4096) return false;
        shareNext.clear();
        for (const Span& r : out) {
            const i64 tiles = r.size() > 0 ? tileCount(d.sz, d.of, r.size()) : 0;
            if (tiles > slots) return false; // the PEs step through the rows
            for (i64 i = 0; i < slots; ++i)
                shareNext.push_back(i < tiles ? Span{r.begin + i * d.of,
                                        std::min(r.begin + i * d.of + std::min(d.sz, r.size()), r.end)}
                                              : Span{});
        }
        out.swap(shareNext);
    }
    return true;
}

// FIX KEEP-SPLIT. A step along a dimension v the PEs below spread, at a level whose SpatialMap of another
// dimension h of t spreads overlapping tiles over its sub-units (a halo between them), moves the PEs of
// every sub-unit alike along v: each keeps its own overlap, as without the halo, and the sub-units differ
// only in their range on h, which every PE of one holds whole (no level below spreads or steps h). An
// element is fetched when a PE holding it on h lacked it on v: the union of the sub-units' ranges on h
// times the union of the PEs' new parts along v. The level's own ingress (used before) kept what the
// sub-unit's previous tile shares with its new one, which no single PE held: seed 108 case 7120, two
// clusters of input columns 0-2 and 1-3 step the output rows by 2 over PEs of 3 rows at offset 1: PE 0
// (rows 0-2 -> 2-4) and PE 1 (1-3 -> 3-5) fetch rows 3-5 of columns 0-3 at the second step, 12, where the
// clusters' keep of rows 2-3 said 8. With a NoC that multicasts identical tiles only, every sub-unit
// takes its own copies (their tiles differ on h): the PEs' new parts of one, counted per distinct tile and
// part kept, times the sub-units (seed 103 case 67: 60, not 54). Only with sub-units of equal tiles (one
// kind) in one fold of the map, and no other SpatialMap of t beside it; not without multicast.
bool Evaluator::Impl::haloSpan(
    const Level& L, int l, int t, int hk, const i64* childDims, i64 n, bool refuse, i64& span) const
{
    const Dir& h = L.d[hk];
    if (refuse || t == nt - 1 || acc.multicast == arch::Multicast::None
        || tileCount(h.sz, h.of, L.D[h.dim]) > L.P)
        return false;
    for (int b = l + 1; b < nLevels; ++b) {
        const int j = lv[b].dirOf[h.dim];
        if (j >= 0 && lv[b].d[j].sz < childDims[h.dim]) return false; // (a single tile even if spatial)
    }
    span = satAdd(childDims[h.dim], satMul(n - 1, std::min(h.of, childDims[h.dim])));
    return true;
}

// A step along dimension v (a new fold of the sub-units, or a temporal step) moves every PE's range on v
// with its sub-unit's, so a PE keeps of its previous tile only the overlap with its own new one, not the
// part its sub-unit's previous tile shares (a neighbouring PE held that): three rows at offset 2 over PEs
// of 2 and 1 rows keep nothing, where the sub-unit keeps one row. What leaves the L2 is the union of the
// PEs' new parts (multicast of elements), one per distinct tile and part kept (of tiles), or every PE's
// (none), times their full tiles on t's other dimensions.
bool Evaluator::Impl::peShiftFetch(
    const Level& L, int l, int t, int ch, const i64* childDims, i64 n, i64& fetched, bool* summed)
{
    if (ch < 0) return false;
    // The directives whose step moved t's tile: the advancing one, and inner loops of t that wrapped
    // around from their last tile to their first. A SpatialMap whose tiles fit in one fold never moves.
    // One of them (mk) may move along a dimension the levels below spread over their PEs; along the
    // others every PE holds its sub-unit's whole range, which keeps their overlap (held, kept). A
    // SpatialMap holding its dimension in one tile (a single busy sub-unit) spreads nothing (FIX KEEP-SPLIT).
    auto spreadBelow = [&](int u) {
        for (int b = l + 1; b < nLevels; ++b)
            for (int j = 0; j < lv[b].n; ++j)
                if (lv[b].d[j].spatial && lv[b].d[j].dim == u && spreadsRange(lv[b], j)) return true;
        return false;
    };
    int moved[kMaxLevelDirectives], nMoved = 0;
    for (int k = ch; k < L.n; ++k) {
        const Dir& d = L.d[k];
        if (!(tmask[t] >> d.dim & 1u)) continue;
        const i64 tiles = tileCount(d.sz, d.of, L.D[d.dim]);
        if (tiles <= 1 || (k > ch && d.spatial && tiles <= L.P)) continue;
        if (k > ch && d.spatial && L.P > 1) return false; // a spatial map's folds wrapped around
        moved[nMoved++] = k;
    }
    if (nMoved == 0) return false;
    int mk = moved[0];
    std::uint32_t held = 0;
    i64 heldAll = 1, heldKept = 1;
    if (nMoved > 1) {
        if (t == nt - 1 || acc.multicast != arch::Multicast::Elements) return false;
        mk = -1;
        for (int i = 0; i < nMoved; ++i) {
            const Dir& d = L.d[moved[i]];
            if (spreadBelow(d.dim)) {
                if (mk >= 0) return false; // two ranges the PEs spread moved
                mk = moved[i];
                continue;
            }
            if (d.spatial || (held >> d.dim & 1u)) return false;
            const i64 last = (tileCount(d.sz, d.of, L.D[d.dim]) - 1) * d.of;
            const i64 adv = moved[i] == ch ? d.of : -last;
            const i64 prev = moved[i] == ch ? std::min(d.sz, L.D[d.dim]) : std::min(d.sz, L.D[d.dim] - last);
            held |= 1u << d.dim;
            heldAll = satMul(heldAll, childDims[d.dim]);
            heldKept = satMul(heldKept, intersect(Span{0, prev}, Span{adv, adv + childDims[d.dim]}).size());
        }
        if (mk < 0 || L.d[mk].spatial || heldKept <= 0) return false;
    }
    const Dir& a = L.d[mk];
    const int v = a.dim;
    const bool wrapped = mk != ch;
    if (summed && a.spatial) return false;
    // Sub-unit 0's range on v before and after the step: an advance moves it by the fold's or the step's
    // offset, a wrap brings it back from its last tile.
    i64 advance = a.spatial ? L.P * a.of : a.of;
    i64 prevExt = std::min(a.sz, L.D[v]);
    if (wrapped) {
        const i64 last = (tileCount(a.sz, a.of, L.D[v]) - 1) * a.of;
        advance = -last;
        prevExt = std::min(a.sz, L.D[v] - last);
    }
    // The sub-units kept nothing on v: nor did the PEs.
    if (intersect(Span{0, prevExt}, Span{advance, advance + childDims[v]}).size() <= 0) return false;
    // Other spatial maps of t at this level give the sub-units disjoint tiles of it: each fetches its own.
    // One whose tiles overlap (FIX KEEP-SPLIT) gives them the same rows on v and overlapping ranges on its
    // own dimension, which each of their PEs holds whole: see haloSpan.
    bool apart = false;
    int hk = -1;
    for (int k = 0; k < L.n; ++k) {
        const Dir& d = L.d[k];
        if (k == mk || !(tmask[t] >> d.dim & 1u) || !d.spatial) continue;
        if (a.spatial) return false;
        if (d.sz > d.of) {
            if (hk >= 0) return false;
            hk = k;
            continue;
        }
        apart = true;
    }
    i64 haloUnion = 0;
    if (hk >= 0) {
        if (!haloSpan(L, l, t, hk, childDims, n, summed != nullptr || apart, haloUnion)) return false;
        // A NoC that multicasts identical tiles only sends each sub-unit its own (their ranges on h differ).
        if (acc.multicast == arch::Multicast::Tiles) {
            apart = true;
            hk = -1;
        }
    }
    // Below, the PEs hold their sub-unit's whole tile on t's other dimensions, or spread them: the PEs'
    // new parts along v are then the same over each of their ranges there (with a NoC that multicasts
    // identical tiles, one send per distinct range: FIX TILE-SHIFT). To count every copy, no PEs but those
    // spread along v. (A map of one tile spreads none: FIX KEEP-SPLIT.)
    const bool copies = acc.multicast == arch::Multicast::None;
    std::uint32_t spreadOther = 0;
    const bool tilesOnly = acc.multicast != arch::Multicast::Elements;
    for (int b = l + 1; b < nLevels; ++b) {
        int onT = 0;
        for (int j = 0; j < lv[b].n; ++j) {
            const Dir& d = lv[b].d[j];
            if (!d.spatial) continue;
            const bool ofT = tmask[t] >> d.dim & 1u;
            // Under a NoC that multicasts elements a map of another tensor's dimension changes nothing;
            // the others are looked at (their tile count) only here, off the common path.
            if (!(copies && d.dim != v) && !(ofT && tilesOnly)) continue;
            if (!spreadsRange(lv[b], j)) continue;
            if (ofT) ++onT;
            if (d.dim == v) continue;
            if (copies) return false;
            if (ofT) spreadOther |= 1u << d.dim;
        }
        // Two maps of t's dimensions in one level move in lock-step: their ranges are not a product.
        if (onT > 1) return false;
    }
    const i64 groups = a.spatial ? n : 1; // sub-units apart on v (the others hold the same tiles of t)
    if (!peSpans(l, v, prevExt, shiftPrev) || !peSpans(l, v, childDims[v], shiftCur)
        || shiftPrev.size() != shiftCur.size())
        return false;
    if (satMul(i64(shiftCur.size()), groups) > 1 << 16) return false;
    shiftPairs.clear();
    for (i64 i = 0; i < groups; ++i) {
        const i64 at = i * a.of;
        for (size_t p = 0; p < shiftCur.size(); ++p) {
            const Span c = shiftCur[p], q = shiftPrev[p];
            if (c.size() > 0)
                shiftPairs.emplace_back(Span{at + advance + c.begin, at + advance + c.end},
                    q.size() > 0 ? Span{at + q.begin, at + q.end} : Span{});
        }
    }
    i64 along = 0;
    if (acc.multicast == arch::Multicast::Elements) {
        shareNext.clear();
        for (const auto& [cur, prev] : shiftPairs)
            pushDifference(shareNext, cur, prev);
        along = unionSize(shareNext);
        if (held) {
            // An element outside the part kept along the held dimensions is new to every PE holding it;
            // inside, to those whose range on v did not hold it.
            shareNext.clear();
            for (const auto& pr : shiftPairs)
                shareNext.push_back(pr.first);
            along = satAdd(satMul(unionSize(shareNext), heldAll - heldKept), satMul(along, heldKept));
        }
    } else {
        auto key = [](const std::pair<Span, Span>& x) {
            return std::array<i64, 4>{x.first.begin, x.first.end, x.second.begin, x.second.end};
        };
        if (!copies)
            std::sort(shiftPairs.begin(), shiftPairs.end(),
                [&](const auto& x, const auto& y) { return key(x) < key(y); });
        for (size_t i = 0; i < shiftPairs.size(); ++i) {
            if (!copies && i > 0 && key(shiftPairs[i]) == key(shiftPairs[i - 1])) continue;
            const auto& [cur, prev] = shiftPairs[i];
            along += cur.size() - intersect(cur, prev).size();
        }
    }
    i64 rest = 1;
    for (int k = 0; k < tcount[t]; ++k) {
        const int u = tdims[t][k];
        if (u == v || (held >> u & 1u)) continue;
        if (hk >= 0 && u == L.d[hk].dim) {
            rest = satMul(rest, haloUnion);
            continue;
        }
        if (!(spreadOther >> u & 1u)) {
            rest = satMul(rest, childDims[u]);
            continue;
        }
        // FIX TILE-SHIFT: PEs of different ranges on u receive different tiles, each its own send of its
        // new part along v; PEs of one range (and one part along v) share it: the distinct ranges' rows.
        if (!peSpans(l, u, childDims[u], shiftOther)) return false;
        keepDistinct(shiftOther);
        i64 rows = 0;
        for (const Span& x : shiftOther)
            rows = satAdd(rows, x.size());
        rest = satMul(rest, rows);
    }
    // Without multicast the sub-units holding the same tiles of t each take their own.
    fetched = satMul(satMul(along, rest), (copies && !a.spatial) || apart ? n : 1);
    if (summed) *summed = (copies && !a.spatial) || apart;
    return true;
}

// FIX PE-BOXES. Seed 183 case 10469 of the wide export: clusters of input columns 0-2 and 1-3 step the
// output rows by 2 over PEs of 3 rows at offset 1, then the next fold (columns 2-4, 3-5) starts over at
// rows 0-3. Each cluster's previous tile shares rows 2-3 of its new columns with the new one, but no PE
// kept any of them but one: PE 1 of cluster 0 held rows 3-5 of columns 0-2, its counterpart of cluster 1
// rows 3-5 of columns 1-3, and row 2 is new to PE 1 of both. The level's own ingress, which kept the
// clusters' overlap as if each were one buffer, said 6 elements where the PEs fetch 15. Here every PE's
// tile is a box: its sub-unit's range (moved back by the step along the dimensions it moved) narrowed
// level by level below to the PE's part; the boxes' edges cut each dimension into intervals, and a cell of
// them is sent when some PE's new box holds it and its previous one did not (as PeFetchCounter counts).
bool Evaluator::Impl::peBoxFetch(
    const Level& L, int l, int t, int ch, std::uint32_t moving, const i64* childDims, i64 n, i64& fetched)
{
    if (ch < 0 || l + 1 >= nLevels || t >= nInputs) return false;
    if (pesBelow(l, n) > kBoxPes) return false;
    const StepShift sh = stepShift(L, ch, moving, t);
    if (!sh.ok || sh.moved == 0) return false;
    bool spreadMoved = false;
    for (int b = l + 1; b < nLevels; ++b)
        for (int k = 0; k < lv[b].n; ++k)
            spreadMoved
                = spreadMoved || (lv[b].d[k].spatial && sh.shifted(lv[b].d[k].dim) && spreadsRange(lv[b], k));
    if (!spreadMoved || !peBoxes(L, l, t, childDims, sh, n)) return false;
    fetched = boxCount(t, true);
    return true;
}

i64 Evaluator::Impl::keptBoxes(int l, int t, const i64* childDims, const StepShift& sh)
{
    if (!peBoxes(lv[l], l, t, childDims, sh, 1)) return 0;
    return boxCount(t, false) - boxCount(t, true);
}

bool Evaluator::Impl::peBoxes(const Level& L, int l, int t, const i64* childDims, const StepShift& sh, i64 n)
{
    // Each PE's part of a sub-unit's `ext` rows on u at the first frame of an execution (or, `last`, at its
    // last frame), one slot per PE in the order of peSpans (empty for a PE without a tile). A temporal map
    // gives every PE below its first (last) tile, a spatial map each sub-unit its tile of the first (last)
    // fold; a sub-unit idle in a last fold keeps the fold before's, a PE idle there holds nothing.
    auto peParts = [&](int u, i64 ext, bool last, std::vector<Span>& out) {
        out.assign(1, Span{0, ext});
        for (int b = l + 1; b < nLevels; ++b) {
            const Level& B = lv[b];
            const int j = B.dirOf[u];
            shareNext.clear();
            for (const Span& r : out) {
                if (j < 0 || r.size() <= 0) {
                    shareNext.insert(shareNext.end(), size_t(B.P), r);
                    continue;
                }
                const Dir& d = B.d[j];
                const i64 tiles = tileCount(d.sz, d.of, r.size());
                auto tile = [&](i64 k) {
                    return Span{r.begin + k * d.of, std::min(r.begin + k * d.of + d.sz, r.end)};
                };
                if (!d.spatial) {
                    shareNext.insert(shareNext.end(), size_t(B.P), tile(last ? tiles - 1 : 0));
                    continue;
                }
                const i64 fold = last ? (tiles - 1) / B.P : 0;
                for (i64 i = 0; i < B.P; ++i) {
                    i64 q = fold * B.P + i;
                    if (q >= tiles && fold > 0 && b + 1 < nLevels) q -= B.P;
                    shareNext.push_back(q < tiles ? tile(q) : Span{});
                }
            }
            out.swap(shareNext);
        }
        return true;
    };
    const i64 pes = pesBelow(l, n);
    if (pes > kBoxPes) return false;
    const int na = tcount[t];
    i64 subOf[kMaxDims] = {};
    for (int k = 0; k < L.n; ++k)
        if (L.d[k].spatial) subOf[L.d[k].dim] = L.d[k].of;
    nBoxes = 0;
    i64 cells = 1;
    for (int a = 0; a < na; ++a) {
        const int u = tdims[t][a];
        const i64 prevExt = sh.shifted(u) ? sh.prevExt[u] : childDims[u];
        if (!peParts(u, childDims[u], false, shiftCur) || !peParts(u, prevExt, true, shiftPrev)) return false;
        nBoxes = pes;
        if (shiftCur.size() * size_t(n) != size_t(pes) || shiftPrev.size() != shiftCur.size()) return false;
        boxCur[a].clear();
        boxPrev[a].clear();
        boxCuts[a].clear();
        for (i64 i = 0; i < n; ++i) {
            const i64 at = i * subOf[u], was = at - sh.du(u);
            for (size_t p = 0; p < shiftCur.size(); ++p) {
                const Span c = shiftCur[p], q = shiftPrev[p];
                boxCur[a].push_back(c.size() > 0 ? Span{at + c.begin, at + c.end} : Span{});
                boxPrev[a].push_back(q.size() > 0 ? Span{was + q.begin, was + q.end} : Span{});
                for (const Span& x : {boxCur[a].back(), boxPrev[a].back()})
                    if (x.size() > 0) {
                        boxCuts[a].push_back(x.begin);
                        boxCuts[a].push_back(x.end);
                    }
            }
        }
        std::sort(boxCuts[a].begin(), boxCuts[a].end());
        boxCuts[a].erase(std::unique(boxCuts[a].begin(), boxCuts[a].end()), boxCuts[a].end());
        cells = satMul(cells, std::max<i64>(0, i64(boxCuts[a].size()) - 1));
    }
    return satMul(cells, nBoxes) <= kBoxWork;
}

i64 Evaluator::Impl::boxCount(int t, bool lessPrev) const
{
    const int na = tcount[t];
    // The PEs that share a send of what they lack: all (multicast of elements), those of identical tiles
    // (of identical tiles only), each alone (none).
    auto inGroup = [&](i64 lead, i64 b) {
        switch (acc.multicast) {
        case arch::Multicast::Elements:
            return true;
        case arch::Multicast::Tiles:
            for (int a = 0; a < na; ++a)
                if (boxCur[a][size_t(lead)] != boxCur[a][size_t(b)]) return false;
            return true;
        default:
            return lead == b;
        }
    };
    i64 sent = 0;
    for (i64 lead = 0; lead < nBoxes; ++lead) {
        // Each group once, from its first PE.
        bool first = true;
        for (i64 b = 0; b < lead && first; ++b)
            first = !inGroup(b, lead);
        if (!first) continue;
        forEachBoxCell(na, [&](const i64* p, i64 vol) {
            for (i64 b = lead; b < nBoxes; ++b)
                if (inGroup(lead, b) && boxHolds(boxCur, b, p, na)
                    && !(lessPrev && boxHolds(boxPrev, b, p, na))) {
                    sent = satAdd(sent, vol);
                    return;
                }
        });
        if (acc.multicast == arch::Multicast::Elements) break;
    }
    return sent;
}

void Evaluator::Impl::boxHalo(int t, KeptHalo& kh)
{
    const int na = tcount[t];
    const int av = axisOf(t, kh.v);
    if (av < 0) return;
    // Cut v also where a box edge lands once moved by the offset: every cell and the cell `of` below it are
    // then each inside or outside every box.
    const size_t edges = boxCuts[av].size();
    for (size_t i = 0; i < edges; ++i)
        boxCuts[av].push_back(boxCuts[av][i] + kh.of);
    std::sort(boxCuts[av].begin(), boxCuts[av].end());
    boxCuts[av].erase(std::unique(boxCuts[av].begin(), boxCuts[av].end()), boxCuts[av].end());
    i64 cells = 1;
    for (int a = 0; a < na; ++a)
        cells = satMul(cells, std::max<i64>(0, i64(boxCuts[a].size()) - 1));
    if (cells == 0 || satMul(cells, nBoxes) > kBoxWork) return;
    // Whether point p is in some PE's box now (fetched: and not in its previous one).
    auto held = [&](const i64* p, bool fetched) {
        for (i64 b = 0; b < nBoxes; ++b)
            if (boxHolds(boxCur, b, p, na) && !(fetched && boxHolds(boxPrev, b, p, na))) return true;
        return false;
    };
    i64 full = 0, kept = 0;
    forEachBoxCell(na, [&](const i64* p, i64 vol) {
        i64 q[kMaxDims];
        std::copy(p, p + na, q);
        q[av] -= kh.of;
        if (held(p, false) && held(q, false)) full = satAdd(full, vol);
        if (held(p, true) && held(q, true)) kept = satAdd(kept, vol);
    });
    kh.full = full;
    kh.kept = kept;
    kh.ok = true;
}

// A child execution starts with the PEs' buffers as the previous step's execution left them: a PE keeps
// the overlap of its last tile there (moved by the step, when the step's dimension indexes t) with its
// first tile here (a PE past the last tile of the previous execution's last fold holds nothing). The
// child's count, which starts from empty buffers, takes that overlap again: this is what it takes too
// many (the PEs' tiles identical: once, when every PE of the first fold kept it; disjoint: the sum).
// The advancing directive moves t's region by its step (its fold's, spatial); an inner loop of an input's
// dimension that wrapped around brings it back from its last tile to its first: that is a move by minus
// the last tile's start (a window's rows then overlap). Both at once, or two inner loops, move it along
// two dimensions.
Evaluator::Impl::StepShift Evaluator::Impl::stepShift(
    const Level& L, int ch, std::uint32_t moving, int t) const
{
    StepShift r;
    const Dir& a = L.d[ch];
    r.v = a.dim;
    if (tmask[t] >> a.dim & 1u) {
        r.moved |= 1u << a.dim;
        r.delta[a.dim] = a.spatial ? L.P * a.of : a.of;
        r.prevExt[a.dim] = std::min(a.sz, L.D[a.dim]);
    }
    for (std::uint32_t inner = moving & L.tensorDirs[t] & ~((2u << ch) - 1u); inner != 0;
         inner &= inner - 1u) {
        const Dir& w = L.d[std::countr_zero(inner)];
        // (A spatial map over a single sub-unit steps in time.)
        if (t == nt - 1) {
            r.ok = false;
            return r;
        }
        if (w.spatial && L.P > 1) {
            if (!foldWrapShift(L, w, r)) {
                r.ok = false;
                return r;
            }
            continue;
        }
        const i64 last = (tileCount(w.sz, w.of, L.D[w.dim]) - 1) * w.of;
        r.moved |= 1u << w.dim;
        r.delta[w.dim] = -last;
        r.prevExt[w.dim] = std::min(w.sz, L.D[w.dim] - last);
    }
    return r;
}

// FIX WRAP-KEEP: a spatial map over several sub-units that wrapped around from its last fold to its first
// moves every sub-unit back by the same (folds - 1) * P * offset when its last fold is full and its last
// tile whole: each sub-unit's previous tile is its own first one moved so, a whole tile (FIX FOLD-WRAP's
// keep, here for the PEs below the sub-units). With a partial last fold or tile the sub-units moved
// unlike: no keep is credited.
bool Evaluator::Impl::foldWrapShift(const Level& L, const Dir& w, StepShift& r) const
{
    const i64 D = L.D[w.dim];
    const i64 tiles = tileCount(w.sz, w.of, D);
    if (L.nSpatial != 1 || tiles % L.P != 0 || (tiles - 1) * w.of + w.sz > D) return false;
    r.moved |= 1u << w.dim;
    r.delta[w.dim] = -(tiles / L.P - 1) * L.P * w.of;
    r.prevExt[w.dim] = std::min(w.sz, D);
    return true;
}

bool Evaluator::Impl::StepShift::apart(const i64* childDims, int nd) const
{
    for (int u = 0; u < nd; ++u)
        if (shifted(u)
            && intersect(Span{-delta[u], prevExt[u] - delta[u]}, Span{0, childDims[u]}).size() <= 0)
            return true;
    return false;
}

i64 Evaluator::Impl::keptAcross(const Level& L, int l, int ch, std::uint32_t moving, int t,
    const i64* childDims, bool childMoves, KeptHalo* kh)
{
    if (kh) kh->ok = false;
    if (ch < 0 || l + 1 >= nLevels) return 0;
    const Level& C = lv[l + 1];
    const bool outputs = t == nt - 1;
    // Inner loops of t that wrapped around put the previous execution elsewhere (along two dimensions).
    const StepShift sh = stepShift(L, ch, moving, t);
    if (!sh.ok) return 0;
    if (C.nSpatial != 1) return 0;
    if (l + 1 != nLevels - 1) {
        return keptDeepMemo(l, t, childDims, sh, kh);
    }
    const int v = sh.v;
    // In the same region, a child whose tiles of t move and never overlap ends on other tiles than it starts.
    if (sh.moved == 0 && childMoves && !C.overlappingAny) return 0;
    if (sh.apart(childDims, nd)) return 0;
    i64 common = 1;
    int spread = -1; // the child's spatial directive indexing t
    // FIX HALO-KEEP: the first tile's and the kept box's sizes off kh->v (products) and on it, and whether
    // the kept box lies at one end of the tile along v (the fetch then one interval on each line).
    i64 curRest = 1, keptRest = 1, curV = -1, keptV = 0;
    bool oneEnd = kh != nullptr;
    // The step's dimension first: it usually leaves nothing.
    int order[kMaxDims], n = 0;
    for (int k = 0; k < tcount[t]; ++k)
        if (tdims[t][k] == v) order[n++] = v;
    for (int k = 0; k < tcount[t]; ++k)
        if (tdims[t][k] != v) order[n++] = tdims[t][k];
    for (int i = 0; i < n; ++i) {
        const int u = order[i];
        if (outputs && outOf[u] >= 0) return 0; // a window's outputs are not its rows
        const int j = C.dirOf[u];
        if (j < 0) return 0;
        const Dir& d = C.d[j];
        // A SpatialMap of a single tile gives every PE the same range, as a temporal map does (KEEP-SPLIT).
        if (d.spatial && spreadsRange(C, j)) {
            spread = j;
            continue;
        }
        const i64 x = childDims[u];
        const i64 xp = sh.shifted(u) ? sh.prevExt[u] : x;
        const i64 du = sh.du(u);
        const i64 tl = tileCount(d.sz, d.of, xp);
        const Span first{0, std::min(d.sz, x)};
        const Span last{(tl - 1) * d.of - du, std::min((tl - 1) * d.of + d.sz, xp) - du};
        const Span keptSpan = intersect(first, last);
        common = satMul(common, keptSpan.size());
        if (common == 0) return 0;
        if (!oneEnd) continue;
        if (u == kh->v) {
            curV = first.size();
            keptV = keptSpan.size();
            oneEnd = keptSpan.begin == first.begin || keptSpan.end == first.end;
        } else {
            curRest = satMul(curRest, first.size());
            keptRest = satMul(keptRest, keptSpan.size());
        }
    }
    oneEnd = oneEnd && curV >= 0;
    // The child's spatial map: PE p's first tile, and its tile at the previous execution's last fold.
    const int sj = spread >= 0 ? spread : C.sp;
    const Dir& d = C.d[sj];
    const int u = d.dim;
    const i64 x = childDims[u];
    const i64 xp = sh.shifted(u) ? sh.prevExt[u] : x;
    const i64 du = spread >= 0 ? sh.du(u) : 0;
    const i64 tilesF = tileCount(d.sz, d.of, x), tilesL = tileCount(d.sz, d.of, xp);
    const i64 fold = (tilesL - 1) / C.P;
    const i64 activeF = std::min(C.P, tilesF), activeL = tilesL - fold * C.P;
    if (spread < 0) {
        // Identical tiles: a PE of the first fold that held nothing fetches the whole tile for all; a PE
        // of the previous last fold without a tile here returns its partial sums now, the others later.
        if (outputs ? activeL > activeF : activeL < activeF) return 0;
        const bool copies = !outputs && acc.multicast == arch::Multicast::None;
        if (oneEnd && !copies) {
            kh->full = kh->after(curRest, curV, 0, keptV);
            kh->kept = kh->after(curRest, curV, keptRest, keptV);
            kh->ok = true;
        }
        return copies ? satMul(common, activeF) : common;
    }
    const i64 both = std::min(activeF, activeL);
    auto firstOf = [&](i64 p) { return Span{p * d.of, std::min(p * d.of + d.sz, x)}; };
    auto lastOf = [&](i64 p) {
        const i64 q = fold * C.P + p;
        return Span{q * d.of - du, std::min(q * d.of + d.sz, xp) - du};
    };
    auto at = [&](i64 p) { return intersect(firstOf(p), lastOf(p)).size(); };
    if (d.sz > d.of && (tilesF > 1 || tilesL > 1)
        && (outputs || acc.multicast == arch::Multicast::Elements)) {
        // Overlapping PE tiles: their union is not a sum (a NoC that multicasts identical tiles or nothing
        // sends each PE its own, so their keeps add up, below). With one that multicasts elements the child
        // fetched the union of the PEs' first tiles; an element of it stays where every PE holding it kept
        // it: its range on the spread dimension lies in no PE's part not kept, its others in the common
        // part (which no PE's range changes).
        if (outputs || activeF > 64) return 0;
        shareNext.clear();
        shiftCur.clear();
        for (i64 p = 0; p < activeF; ++p) {
            shiftCur.push_back(firstOf(p));
            if (p < activeL)
                pushDifference(shareNext, firstOf(p), lastOf(p));
            else
                shareNext.push_back(firstOf(p));
        }
        const i64 held = unionSize(shiftCur), keptU = held - unionSize(shareNext);
        // FIX HALO-KEEP over such PEs: they hold the same range along kh->v, so what they fetch is their
        // union U times the rows there less the kept rows times the part K of U every PE holding it kept.
        if (oneEnd && u != kh->v) {
            kh->full = kh->after(satMul(curRest, held), curV, 0, keptV);
            kh->kept = kh->after(satMul(curRest, held), curV, satMul(keptRest, keptU), keptV);
            kh->ok = true;
        }
        return satMul(common, keptU);
    }
    // FIX HALO-KEEP: PEs of disjoint tiles along u (not v) share elements only with their counterparts in
    // the neighbouring sub-unit: their halos add up.
    if (oneEnd && u != kh->v && activeF <= 64) {
        i64 full = 0, kept = 0;
        for (i64 p = 0; p < activeF; ++p) {
            const i64 cur = satMul(curRest, firstOf(p).size());
            full = satAdd(full, kh->after(cur, curV, 0, keptV));
            kept = satAdd(kept, kh->after(cur, curV, p < both ? satMul(keptRest, at(p)) : 0, keptV));
        }
        kh->full = full;
        kh->kept = kept;
        kh->ok = true;
    }
    // Only the last tile of a map is clipped: every other PE keeps the same overlap.
    const i64 special[2] = {tilesF - 1, tilesL - 1 - fold * C.P};
    i64 sum = 0;
    if (both <= 3) {
        for (i64 p = 0; p < both; ++p)
            sum += at(p);
    } else {
        i64 regular = 0;
        while (regular == special[0] || regular == special[1])
            ++regular;
        const i64 g = at(regular);
        sum = satMul(both, g);
        for (int k = 0; k < 2; ++k)
            if (special[k] >= 0 && special[k] < both && (k == 0 || special[1] != special[0]))
                sum += at(special[k]) - g;
    }
    return satMul(common, sum);
}

// The same over more levels: each PE's first tile of the child execution (every level at its first step)
// and its tile at the previous execution's last frame (every level at its last step; a PE past the last
// tile of the innermost level's last fold holds nothing, one whose cluster does not run in a last fold
// keeps the fold before's), PE by PE. PEs holding identical first tiles take them once: what all of them
// kept is not taken again.
i64 Evaluator::Impl::keptDeepMemo(int l, int t, const i64* childDims, const StepShift& sh, KeptHalo* kh)
{
    i64 key[3 * kMaxDims];
    for (int u = 0; u < nd; ++u) {
        key[3 * u] = childDims[u];
        key[3 * u + 1] = sh.shifted(u) ? sh.delta[u] : 0;
        key[3 * u + 2] = sh.shifted(u) ? sh.prevExt[u] : 0;
    }
    for (const KeptDeepSeen& e : keptDeepSeen)
        if (e.l == l && e.t == t && e.moved == sh.moved && e.halo == (kh != nullptr)
            && std::equal(key, key + 3 * nd, e.key)) {
            if (kh) *kh = e.khSeen;
            return e.kept;
        }
    const i64 kept = keptDeepOrBoxes(l, t, childDims, sh, kh);
    if (keptDeepSeen.size() < 64) {
        KeptDeepSeen e;
        e.l = l;
        e.t = t;
        e.moved = sh.moved;
        std::copy(key, key + 3 * nd, e.key);
        e.kept = kept;
        e.halo = kh != nullptr;
        if (kh) e.khSeen = *kh;
        keptDeepSeen.push_back(e);
    }
    return kept;
}

i64 Evaluator::Impl::keptDeepOrBoxes(int l, int t, const i64* childDims, const StepShift& sh, KeptHalo* kh)
{
    const bool outputs = t == nt - 1;
    // FIX PE-BOXES: PEs of overlapping tiles along two dimensions (a halo between clusters and one between
    // their PEs), which keptDeep does not follow: their boxes at the child's first frame and at the previous
    // execution's last one.
    int overlapDims = 0, counted = -1; // (the dimension counted last)
    for (int b = l + 1; b < nLevels && !outputs; ++b)
        for (int k = 0; k < lv[b].n; ++k) {
            const Dir& d = lv[b].d[k];
            if (d.spatial && (tmask[t] >> d.dim & 1u) && d.sz > d.of && spreadsRange(lv[b], k)
                && d.dim != counted) {
                counted = d.dim;
                ++overlapDims;
            }
        }
    if (overlapDims > 1) {
        if (kh) kh->ok = false;
        return keptBoxes(l, t, childDims, sh);
    }
    const i64 kept = keptDeep(l, t, childDims, sh, kh);
    // Where keptDeep cannot tell the halo after the keep (PEs of overlapping ranges), their boxes can.
    if (kh && !kh->ok && !outputs && acc.multicast == arch::Multicast::Elements
        && peBoxes(lv[l], l, t, childDims, sh, 1)) [[unlikely]]
        boxHalo(t, *kh);
    return kept;
}

i64 Evaluator::Impl::keptDeep(int l, int t, const i64* childDims, const StepShift& sh, KeptHalo* kh)
{
    if (kh) kh->ok = false;
    const bool outputs = t == nt - 1;
    if (sh.apart(childDims, nd)) return 0;
    for (int k = 0; k < tcount[t] && outputs; ++k)
        if (outOf[tdims[t][k]] >= 0) return 0; // a window's outputs are not its rows
    i64 pes = 1;
    int overlapDim = -1; // the dimension of t spread over PEs of overlapping tiles
    for (int b = l + 1; b < nLevels; ++b) {
        if (lv[b].nSpatial != 1) return 0;
        const Dir& d = lv[b].d[lv[b].sp];
        // Overlapping PE tiles: not a sum (unless a single one is ever held); with a NoC that multicasts
        // elements, along one dimension, the union of what they did not keep (below); with one that sends
        // each PE its own copy (identical tiles only, or none), the sum.
        if ((tmask[t] >> d.dim & 1u) && d.sz > d.of && tileCount(d.sz, d.of, lv[b].D[d.dim]) > 1) {
            if (outputs || (overlapDim >= 0 && overlapDim != d.dim)) return 0;
            if (acc.multicast == arch::Multicast::Elements) overlapDim = d.dim;
        }
        pes *= lv[b].P;
        if (pes > kKeepPes) return 0;
    }
    // Down to the first level that spreads a dimension of t, every PE's first and last ranges on it are the
    // same: when they already share nothing, no PE kept anything.
    for (int k = 0; k < tcount[t]; ++k) {
        const int u = tdims[t][k];
        Span fr{0, childDims[u]};
        Span lr{0, sh.shifted(u) ? sh.prevExt[u] : childDims[u]};
        const i64 du = sh.du(u);
        for (int b = l + 1; b < nLevels; ++b) {
            const int j = lv[b].dirOf[u];
            if (j < 0 || lv[b].d[j].spatial || lr.size() <= 0) break;
            const Dir& d = lv[b].d[j];
            const i64 tl = tileCount(d.sz, d.of, lr.size());
            fr = Span{fr.begin, fr.begin + std::min(d.sz, fr.size())};
            lr = Span{lr.begin + (tl - 1) * d.of, std::min(lr.begin + (tl - 1) * d.of + d.sz, lr.end)};
            if (intersect(fr, Span{lr.begin - du, lr.end - du}).size() == 0) return 0;
        }
    }
    // The dimensions followed: t's, then the levels' spatial ones (a PE idle on them holds nothing new).
    int dims[kMaxDims + kMaxLevels], nDims = 0;
    for (int k = 0; k < tcount[t]; ++k)
        dims[nDims++] = tdims[t][k];
    for (int b = l + 1; b < nLevels; ++b)
        if (!(tmask[t] >> lv[b].d[lv[b].sp].dim & 1u)) dims[nDims++] = lv[b].d[lv[b].sp].dim;
    // A dimension no level below spreads has the same first and last ranges in every PE: followed once.
    struct Chain
    {
        bool spread = false, alive = true;
        Span fr, lr;
    } chain[kMaxDims + kMaxLevels];
    for (int k = 0; k < nDims; ++k) {
        const int u = dims[k];
        Chain& c = chain[k];
        for (int b = l + 1; b < nLevels; ++b)
            c.spread = c.spread || lv[b].d[lv[b].sp].dim == u;
        if (c.spread) continue;
        c.fr = Span{0, childDims[u]};
        c.lr = Span{0, sh.shifted(u) ? sh.prevExt[u] : childDims[u]};
        for (int b = l + 1; b < nLevels; ++b) {
            const int j = lv[b].dirOf[u];
            if (j < 0) return 0;
            const Dir& d = lv[b].d[j];
            if (c.lr.size() <= 0) c.alive = false;
            c.fr = Span{c.fr.begin, c.fr.begin + std::min(d.sz, c.fr.size())};
            if (c.alive) {
                const i64 tl = tileCount(d.sz, d.of, c.lr.size());
                const i64 at = c.lr.begin + (tl - 1) * d.of;
                c.lr = Span{at, std::min(at + d.sz, c.lr.end)};
            }
        }
    }
    deepPes.clear();
    deepKeptOf.clear();
    for (i64 p = 0; p < pes; ++p) {
        Span keptOf[kMaxDims];
        DeepPe e;
        e.kept = 1;
        bool activeFirst = true, activeLast = true;
        i64 rest = p, index[kMaxLevels] = {}; // this PE's sub-unit at each level
        for (int b = nLevels - 1; b > l; --b) {
            index[b] = rest % lv[b].P;
            rest /= lv[b].P;
        }
        for (int k = 0; k < nDims; ++k) {
            const int u = dims[k];
            Span fr{0, childDims[u]};
            Span lr{0, sh.shifted(u) ? sh.prevExt[u] : childDims[u]};
            if (!chain[k].spread) {
                fr = chain[k].fr;
                lr = chain[k].lr;
                activeLast = activeLast && chain[k].alive;
            } else {
                for (int b = l + 1; b < nLevels; ++b) {
                    const Level& B = lv[b];
                    const int j = B.dirOf[u];
                    if (j < 0) return 0;
                    const Dir& d = B.d[j];
                    if (lr.size() <= 0) activeLast = false;
                    if (!d.spatial) {
                        fr = Span{fr.begin, fr.begin + std::min(d.sz, fr.size())};
                        if (activeLast) {
                            const i64 tl = tileCount(d.sz, d.of, lr.size());
                            const i64 at = lr.begin + (tl - 1) * d.of;
                            lr = Span{at, std::min(at + d.sz, lr.end)};
                        }
                        continue;
                    }
                    const i64 jb = index[b];
                    const i64 tilesF = tileCount(d.sz, d.of, fr.size());
                    if (jb >= tilesF)
                        activeFirst = false;
                    else
                        fr = Span{fr.begin + jb * d.of, std::min(fr.begin + jb * d.of + d.sz, fr.end)};
                    if (activeLast) {
                        const i64 tilesL = tileCount(d.sz, d.of, lr.size());
                        const i64 fold = (tilesL - 1) / B.P;
                        i64 q = fold * B.P + jb;
                        if (q >= tilesL) {
                            if (b == nLevels - 1 || fold == 0)
                                activeLast = false;
                            else
                                q -= B.P;
                        }
                        if (activeLast)
                            lr = Span{lr.begin + q * d.of, std::min(lr.begin + q * d.of + d.sz, lr.end)};
                    }
                }
            }
            if (!activeFirst) break;
            if (k < tcount[t]) {
                e.first[k] = fr;
                const i64 du = sh.du(u);
                const Span kept = activeLast ? intersect(fr, Span{lr.begin - du, lr.end - du}) : Span{};
                keptOf[k] = kept;
                e.kept = satMul(e.kept, std::max<i64>(0, kept.size()));
                if (u == overlapDim)
                    e.keptOn = kept;
                else
                    e.keptRest = satMul(e.keptRest, std::max<i64>(0, kept.size()));
            }
        }
        // A PE that held partial sums and has no tile now returns them at this frame.
        if (!activeFirst && activeLast && outputs) return 0;
        if (!activeFirst) continue;
        if (!activeLast) {
            e.kept = 0;
            e.keptOn = Span{};
        }
        deepPes.push_back(e);
        if (kh) deepKeptOf.insert(deepKeptOf.end(), keptOf, keptOf + tcount[t]);
    }
    const int tc = tcount[t];
    auto key = [&](const DeepPe& x, const DeepPe& y) {
        return std::lexicographical_compare(x.first, x.first + tc, y.first, y.first + tc);
    };
    i64 saving = 0;
    if (overlapDim >= 0) {
        // An element the child fetched from empty buffers stays where every PE holding it kept it: the union
        // of the PEs' ranges on the spread dimension less the union of their parts not kept, times what they
        // keep of the others (the same for every PE holding the same ranges there).
        // FIX KEEP-GROUPS: another level may spread another dimension of t over disjoint tiles (a channel
        // per cluster); an element is then held by the PEs of one group of equal ranges on the other
        // dimensions only, so the groups' savings add up when their boxes there are pairwise apart (else
        // nothing is credited, as before).
        const int at = axisOf(t, overlapDim);
        auto otherLess = [&](const DeepPe& x, const DeepPe& y) {
            for (int k = 0; k < tc; ++k)
                if (k != at && x.first[k] != y.first[k]) return x.first[k] < y.first[k];
            return false;
        };
        std::sort(deepPes.begin(), deepPes.end(), otherLess);
        size_t starts[kKeepPes]; // each group's first PE (at most kKeepPes PEs)
        size_t groups = 0;
        for (size_t i = 0; i < deepPes.size();) {
            for (size_t g = 0; g < groups; ++g) {
                bool apart = false;
                for (int k = 0; k < tc && !apart; ++k)
                    apart
                        = k != at && intersect(deepPes[starts[g]].first[k], deepPes[i].first[k]).size() <= 0;
                if (!apart) return 0;
            }
            starts[groups++] = i;
            shiftCur.clear();
            shareNext.clear();
            i64 rest = -1; // what the group's PEs that kept something keep of the other dimensions
            size_t j = i;
            for (; j < deepPes.size() && !otherLess(deepPes[i], deepPes[j]); ++j) {
                const DeepPe& e = deepPes[j];
                shiftCur.push_back(e.first[at]);
                if (e.kept > 0) {
                    if (rest >= 0 && e.keptRest != rest) return 0;
                    rest = e.keptRest;
                    pushDifference(shareNext, e.first[at], e.keptOn);
                } else {
                    shareNext.push_back(e.first[at]);
                }
            }
            if (rest > 0) saving = satAdd(saving, satMul(unionSize(shiftCur) - unionSize(shareNext), rest));
            i = j;
        }
        return saving;
    }
    if (kh && !outputs && acc.multicast == arch::Multicast::Elements) [[unlikely]]
        deepKeptHalo(t, *kh);
    if (!outputs && acc.multicast == arch::Multicast::None) {
        for (const DeepPe& e : deepPes)
            saving = satAdd(saving, e.kept);
        return saving;
    }
    std::sort(deepPes.begin(), deepPes.end(), key);
    for (size_t i = 0; i < deepPes.size();) {
        size_t j = i + 1;
        i64 least = deepPes[i].kept;
        while (j < deepPes.size() && !key(deepPes[i], deepPes[j])) // identical first tiles
            least = std::min(least, deepPes[j++].kept);
        saving = satAdd(saving, least);
        i = j;
    }
    return saving;
}

// The halo of the child's first frame between the map's neighbouring sub-units, from empty buffers and once
// the PEs kept part of their tiles. Exact when every PE spans the same range on the map's dimension v (the
// neighbour's PEs hold the same boxes moved by the offset along v), PEs of identical first boxes kept the
// same part (they fetch it once) and PEs of different boxes lie apart off v (they share nothing with
// another's counterpart): the groups' halos add up. The kept part of v must lie at one end of the range,
// so that what a PE fetches there is one interval, moved by the offset in the neighbour.
void Evaluator::Impl::deepKeptHalo(int t, KeptHalo& kh)
{
    const int tc = tcount[t];
    const int kv = axisOf(t, kh.v);
    if (kv < 0 || deepPes.empty() || deepPes.size() > 64) return;
    const Span* keptOf = deepKeptOf.data(); // PE i's kept part on dimension k: keptOf[i * tc + k]
    const Span rangeV = deepPes[0].first[kv];
    i64 full = 0, kept = 0;
    for (size_t i = 0; i < deepPes.size(); ++i) {
        const DeepPe& e = deepPes[i];
        const Span* ek = keptOf + i * size_t(tc);
        if (e.first[kv] != rangeV) return;
        bool seen = false;
        for (size_t j = 0; j < i; ++j) {
            const DeepPe& f = deepPes[j];
            if (std::equal(e.first, e.first + tc, f.first)) {
                // Identical boxes: fetched once, so they must have kept the same part.
                if ((e.kept > 0) != (f.kept > 0)) return;
                if (e.kept > 0 && !std::equal(ek, ek + tc, keptOf + j * size_t(tc))) return;
                seen = true;
                break;
            }
            bool apart = false;
            for (int k = 0; k < tc && !apart; ++k)
                apart = k != kv && intersect(f.first[k], e.first[k]).size() <= 0;
            if (!apart) return;
        }
        if (seen) continue;
        i64 cur = 1, keptRest = e.kept > 0 ? 1 : 0;
        for (int k = 0; k < tc; ++k) {
            if (k == kv) continue;
            cur = satMul(cur, e.first[k].size());
            keptRest = satMul(keptRest, std::max<i64>(0, ek[k].size()));
        }
        i64 keptV = 0;
        if (keptRest > 0) {
            keptV = ek[kv].size();
            if (ek[kv].begin != rangeV.begin && ek[kv].end != rangeV.end) return;
        }
        full = satAdd(full, kh.after(cur, rangeV.size(), 0, 0));
        kept = satAdd(kept, kh.after(cur, rangeV.size(), keptRest, keptV));
    }
    kh.full = full;
    kh.kept = kept;
    kh.ok = true;
}

i64 Evaluator::Impl::GbCarry::drained(const Span* oc)
{
    i64 all = 1, kept = oc ? 1 : 0;
    for (int k = 0; k < nOutCommon; ++k) {
        all *= outCommon[k].size();
        if (oc) kept *= intersect(outCommon[k], oc[k]).size();
    }
    scratch.clear();
    for (const Span& p : prevOut)
        if (p.size() > 0) scratch.push_back(p);
    const i64 before = unionSize(scratch);
    if (kept == 0) return all * before;
    scratch.clear();
    for (size_t j = 0; j < prevOut.size(); ++j)
        pushDifference(scratch, prevOut[j], j < curOut.size() ? curOut[j] : Span{});
    return (all - kept) * before + kept * unionSize(scratch);
}

// A mapping with one SpatialMap per level, walked step by step with interval arithmetic exactly as
// core/sim executes it. The per-case tables see a tile's state (first, steady, edge) but not its absolute
// position, which decides what a sub-unit really computes when the SpatialMap is on a window tap (R or
// S: every sub-unit holds the same rows and a different tap, so each completes a shifted set of outputs,
// clipped at the edges and subject to stride parity), what overlapping tiles share, what a child level
// under a parent's tile keeps, and what stays in a buffer across steps in which nothing is computed.
// Bounded by kStepWalkLimit sub-unit steps; two SpatialMaps in a level move in lock-step and keep the
// per-case analysis (doc/cost-model.md).
bool Evaluator::Impl::stepWalkApplies(i64* subUnitSteps) const
{
    if (!corrected || !opt.stepWalk || inputReadsWindowOutput) return false;
    if ((slidingMask & ivMask) != slidingMask) return false; // a tap no tensor indexes
    i64 work = 1;
    for (int l = 0; l < nLevels; ++l) {
        const Level& L = lv[l];
        int spatial = 0;
        for (int k = 0; k < L.n; ++k)
            spatial += L.d[k].spatial ? 1 : 0;
        if (spatial != 1) return false;
        for (int k = 0; k < L.n; ++k) {
            const Dir& d = L.d[k];
            const i64 t = tileCount(d.sz, d.of, L.D[d.dim]);
            work = satMul(work, d.spatial ? (t + L.P - 1) / L.P : t);
        }
        work = satMul(work, std::min(L.P, tileCount(L.d[L.sp].sz, L.d[L.sp].of, L.D[L.d[L.sp].dim])));
    }
    if (subUnitSteps) *subUnitSteps = work;
    return work <= kStepWalkLimit;
}

Evaluator::Impl::Walked Evaluator::Impl::walk(int l, const Span* region, i64 frameBase, i64 peBase)
{
    const Level& L = lv[l];
    const bool isTop = l == 0, innermost = l == nLevels - 1;
    const int n = L.n, o = nt - 1;
    const Dir& sp = L.d[L.sp];
    const int sd = sp.dim; // the only dimension whose range differs between sub-units
    // The window sd belongs to (as its rows or its taps), whose outputs therefore differ too.
    int window = -1;
    for (int v = 0; v < nd; ++v)
        if (outOf[v] >= 0 && (v == sd || slideOf[v] == sd)) window = v;
    const bool sdIsRows = window == sd;
    const bool disjointTiles = sp.of >= sp.sz; // the sub-units' ranges on sd never overlap
    i64 tiles[kMaxLevelDirectives], positions[kMaxLevelDirectives], idx[kMaxLevelDirectives];
    std::fill(idx, idx + n, i64(0));
    i64 total = 1;
    for (int k = 0; k < n; ++k) {
        tiles[k] = tileCount(L.d[k].sz, L.d[k].of, region[L.d[k].dim].size());
        positions[k] = L.d[k].spatial ? (tiles[k] + L.P - 1) / L.P : tiles[k];
        total *= positions[k];
    }
    Walked res;
    if (total == 0) return res;
    const size_t maxSub = size_t(std::min(L.P, tiles[L.sp]));
    WalkScratch& w = walkScratch[l]; // a level's walk never re-enters itself
    auto& mine = w.mine;
    auto& prevMine = w.prevMine;
    auto& outs = w.outs;
    auto& news = w.news;
    auto& work = w.work;
    size_t prevActive = 0; // sub-units 0 .. prevActive-1 held prevMine at the last executed step
    i64 prevFold = -1;
    mine.resize(maxSub);
    prevMine.resize(maxSub);
    work.resize(maxSub);
    Span* const cur = w.cur;
    Span* const prev = w.prev;
    Span* const sub = w.sub;
    for (int v = 0; v < nd; ++v)
        cur[v] = prev[v] = region[v];
    bool anyExecuted = false;
    const i64 H = acc.nocLatency, BW = acc.nocBandwidth, off = acc.offchipBandwidth;
    // Two divisions a step add up over thousands of steps; a power-of-two bandwidth (most NoCs) shifts.
    const int bwShift = BW > 0 && (BW & (BW - 1)) == 0 ? std::countr_zero(std::uint64_t(BW)) : -1;
    auto delay = [&](i64 elems) {
        return H
            + (bwShift >= 0 && elems >= 0 ? (elems >> bwShift) + ((elems & (BW - 1)) != 0)
                                          : ceilDiv(elems, BW))
            - 1;
    };
    auto outputs = [&](int ref, Span rows, Span slide) {
        const OutputSpan w = windowOutputs(rows.begin, rows.end, slide.begin, slide.end,
            std::max<i64>(stride[ref], 1), dilation[ref], outExtent[ref]);
        return Span{w.begin, w.end};
    };
    double utilSum = 0.0;
    i64 executed = 0;

    for (i64 s = 0; s < total; ++s) {
        if (s > 0) // the next position, the last directive fastest
            for (int k = n - 1; k >= 0 && ++idx[k] == positions[k]; --k)
                idx[k] = 0;
        for (int k = 0; k < n; ++k) {
            if (L.d[k].spatial) continue;
            const Span r = region[L.d[k].dim];
            const i64 b = r.begin + idx[k] * L.d[k].of;
            cur[L.d[k].dim] = Span{b, std::min(b + L.d[k].sz, r.end)};
        }
        const i64 firstTile = idx[L.sp] * L.P;
        const size_t active = size_t(std::min<i64>(L.P, tiles[L.sp] - firstTile));
        // Work of every sub-unit: the iterations whose indices lie in its tiles and whose held taps all
        // read rows it holds (a reference dimension counts through its window's outputs).
        i64 common = 1;
        for (int v = 0; v < nd; ++v) {
            if (!(ivMask >> v & 1u) || v == sd || v == window) continue;
            common *= outOf[v] >= 0 ? outputs(v, cur[v], cur[slideOf[v]]).size() : cur[v].size();
        }
        // Sub-unit j's outputs of the window sd belongs to.
        auto windowOutputs = [&](size_t j) {
            return sdIsRows ? outputs(window, mine[j], cur[slideOf[window]])
                            : outputs(window, cur[window], mine[j]);
        };
        i64 allWork = 0, maxWork = 0, allMine = 0;
        for (size_t j = 0; j < active; ++j) {
            const i64 b = region[sd].begin + (firstTile + i64(j)) * sp.of;
            mine[j] = Span{b, std::min(b + sp.sz, region[sd].end)};
            work[j] = common * (sdIsRows ? 1 : mine[j].size()) * (window >= 0 ? windowOutputs(j).size() : 1);
            allWork += work[j];
            maxWork = std::max(maxWork, work[j]);
            allMine += mine[j].size();
        }
        if (allWork == 0) continue; // nothing to compute anywhere: the step is not executed

        // Egress: the partial sums of the working sub-units, one per output element.
        i64 outCommon = 1;
        int varying = -1; // the output axis whose range differs between sub-units
        for (int k = 0; k < tcount[o]; ++k) {
            const int v = tdims[o][k];
            if (v == window || (window < 0 && v == sd))
                varying = v;
            else
                outCommon *= outOf[v] >= 0 ? outputs(v, cur[v], cur[slideOf[v]]).size() : cur[v].size();
        }
        i64 outUnion = 1;
        if (varying >= 0 && window < 0 && disjointTiles) {
            outUnion = 0;
            if (common > 0) // then every sub-unit with a tile works
                outUnion = allMine;
        } else if (varying >= 0) {
            outs.clear();
            for (size_t j = 0; j < active; ++j)
                if (work[j] > 0) outs.push_back(window >= 0 ? windowOutputs(j) : mine[j]);
            outUnion = unionSize(outs);
        }
        const i64 out = outCommon * outUnion;

        // Ingress: what each sub-unit lacks from its previous step (`was`: the ranges it held then, on the
        // dimensions the sub-units share and on sd; sub-units 0 .. held-1 held `wasMine`, which are this
        // step's tiles when `same`, or tiles sharing nothing with them when `apart`), multicast once.
        // Returns the elements sent (multicast once) and the sum over the receivers.
        auto ingressOf = [&](int t, bool any, const Span* was, const std::vector<Span>& wasMine, size_t held,
                             bool same, bool apart) {
            i64 a = 1, kept = any ? 1 : 0;
            for (int k = 0; k < tcount[t]; ++k) {
                const int v = tdims[t][k];
                if (v == sd) continue;
                a *= cur[v].size();
                kept *= intersect(cur[v], was[v]).size();
            }
            const size_t both = std::min(active, held); // sub-units that held a tile before
            i64 uni = 0, sum = 0;
            if ((tmask[t] >> sd & 1u) && disjointTiles) {
                // The sub-units' ranges do not overlap, nor do their new parts: the unions are sums.
                i64 fresh = allMine, keptMine = 0;
                if (same) {
                    for (size_t j = 0; j < both; ++j)
                        keptMine += mine[j].size();
                    fresh -= keptMine;
                } else if (!apart) {
                    for (size_t j = 0; j < both; ++j)
                        keptMine += intersect(mine[j], wasMine[j]).size();
                    fresh -= keptMine;
                }
                sum = a * allMine - kept * keptMine;
                uni = (a - kept) * allMine + kept * fresh;
            } else if (tmask[t] >> sd & 1u) {
                outs.clear();
                news.clear();
                for (size_t j = 0; j < active; ++j) {
                    outs.push_back(mine[j]);
                    const Span kept1 = pushDifference(news, mine[j], j < held ? wasMine[j] : Span{});
                    sum += a * mine[j].size() - kept * kept1.size();
                }
                uni = (a - kept) * unionSize(outs) + kept * unionSize(news);
            } else {
                sum = i64(active) * a - i64(both) * kept;
                uni = active > held ? a : a - kept;
            }
            return std::pair{uni, sum};
        };
        // Below level 0 the global-buffer level's sub-units keep what they hold from one execution of the
        // level to the next (the levels above have one busy sub-unit: the executions follow each other on
        // the same PEs); each execution's own timing starts from empty buffers, as every level's does.
        const bool gbCarries = l == gbLevel && l > 0 && !clustersBelowGb;
        if (gbCarries) gbCarry.grow(maxSub);
        const bool sameFold = anyExecuted && prevFold == firstTile; // within one walk, one range on sd
        const bool gbSameRange = gbCarries && gbCarry.any && gbCarry.spreadRange.begin == region[sd].begin
            && gbCarry.spreadRange.end == region[sd].end;
        const bool gbSameFold = gbSameRange && gbCarry.fold == firstTile;
        i64 allIn = 0;
        for (int t = 0; t < nInputs; ++t) {
            const bool everyCopy = sendsEveryCopy(tmask[t] >> sd & 1u);
            auto [uni, sum] = ingressOf(t, anyExecuted, prev, prevMine, prevActive, sameFold, !sameFold);
            if (everyCopy) uni = sum;
            if (gbCarries) {
                const auto [kept, keptSum] = ingressOf(t, gbCarry.any, gbCarry.prev, gbCarry.prevMine,
                    gbCarry.held, gbSameFold, gbSameRange && !gbSameFold);
                top.t[t].l2Read += everyCopy ? keptSum : kept;
            } else if (l == gbLevel && !clustersBelowGb)
                top.t[t].l2Read += uni;
            if (isTop && executed == 0) top.t[t].l2Req = 2 * uni;
            if (innermost) {
                top.t[t].l1Write += sum; // into the PEs' L1 buffers
                top.t[t].l1Read += allWork;
            }
            allIn += uni;
        }

        // Compute: the busiest PE, or the slowest sub-cluster's whole execution.
        i64 comp = 0, stepFrames = 0;
        double units = 0.0;
        if (innermost) {
            comp = acc.simdLanes == 1 ? maxWork : ceilDiv(maxWork, acc.simdLanes);
            units = double(active);
            top.t[o].l1Write += allWork;
            top.t[o].l1Read += allWork;
            top.macs += allWork;
            if (gbByFrames) {
                // Every PE's tiles at this frame, in runs of PEs whose tiles are translates: on the
                // spread dimension (kind 1) and the output's window axis (kind 2) they move by a step from
                // PE to PE, elsewhere (kind 0) they are the step's ranges. Those past the last tile hold
                // none.
                const i64 frame = frameBase + executed;
                peTiles.clear();
                peKinds.clear();
                for (int t = 0; t < nt; ++t)
                    for (int k = 0; k < tcount[t]; ++k) {
                        const int v = tdims[t][k];
                        Span r{};
                        char kind = 0;
                        if (t == o && outOf[v] >= 0) {
                            if (v == window)
                                kind = 2;
                            else
                                r = outputs(v, cur[v], cur[slideOf[v]]);
                        } else if (v == sd) {
                            kind = 1;
                        } else {
                            r = cur[v];
                        }
                        peTiles.push_back(AxisSpan{r.begin, r.end});
                        peKinds.push_back(kind);
                    }
                peDeltas.assign(peTiles.size(), 0);
                const bool hasWindow = std::find(peKinds.begin(), peKinds.end(), char(2)) != peKinds.end();
                for (size_t j = 0; j < active;) {
                    const Span m0 = mine[j], w0 = hasWindow ? windowOutputs(j) : Span{};
                    const bool c0 = work[j] > 0;
                    i64 dm = 0, dw = 0;
                    size_t count = 1;
                    for (; j + count < active; ++count) {
                        const size_t i = j + count;
                        if ((work[i] > 0) != c0) break;
                        const Span mi = mine[i], wi = hasWindow ? windowOutputs(i) : Span{};
                        if (count == 1) {
                            dm = mi.begin - m0.begin;
                            dw = wi.begin - w0.begin;
                        }
                        const i64 c = i64(count);
                        if (mi.begin != m0.begin + c * dm || mi.end != m0.end + c * dm
                            || wi.begin != w0.begin + c * dw || wi.end != w0.end + c * dw)
                            break;
                    }
                    for (size_t a = 0; a < peTiles.size(); ++a) {
                        if (peKinds[a] == 0) continue;
                        const Span r = peKinds[a] == 1 ? m0 : w0;
                        peTiles[a] = AxisSpan{r.begin, r.end};
                        peDeltas[a] = peKinds[a] == 1 ? dm : dw;
                    }
                    emitRun(frame, peBase + i64(j), i64(count), true, c0, peTiles.data(), peDeltas.data());
                    j += count;
                }
                if (active < size_t(L.P))
                    emitRun(frame, peBase + i64(active), L.P - i64(active), false, false, nullptr, nullptr);
            }
            stepFrames = 1;
        } else {
            // Sub-units whose regions differ only by position on a dimension the replay keys by size
            // walk alike: a run of equal sizes is walked (or replayed) once.
            const bool bySize = childWalks.enabledBelow[l] && !(childWalks.positional >> sd & 1u);
            // Counting the PEs' frames, such sub-units' tiles are the first one's moved along sd: its
            // walk's runs of PEs are replayed, moved, for the others.
            const bool moveRuns = gbByFrames && !(childWalks.positional >> sd & 1u);
            std::copy(cur, cur + nd, sub);
            for (size_t j = 0; j < active;) {
                size_t run = 1;
                if (bySize || moveRuns)
                    while (j + run < active && mine[j + run].size() == mine[j].size())
                        ++run;
                sub[sd] = mine[j];
                if (moveRuns && run > 1) {
                    const Walked child = walkMoved(l, sd, sub, mine.data() + j, run, frameBase + res.frames,
                        peBase + i64(j) * pesPerSub[l]);
                    stepFrames = std::max(stepFrames, child.frames);
                    comp = std::max(comp, child.runtime);
                    units += child.util * double(run);
                    j += run;
                    continue;
                }
                const Walked child
                    = walkChild(l + 1, sub, i64(run), frameBase + res.frames, peBase + i64(j) * pesPerSub[l]);
                stepFrames = std::max(stepFrames, child.frames);
                comp = std::max(comp, child.runtime);
                units += child.util * double(run);
                j += run;
            }
        }
        const i64 din = delay(allIn), dout = delay(out);
        i64 t = s == 0 ? comp + din : std::max({dout, comp, din});
        if (isTop) {
            if (executed == 0) {
                top.t[o].l2Req = 2 * out;
                walkReqIn = 2 * allIn;
            }
            const i64 reqIn = walkReqIn, reqOut = top.t[o].l2Req;
            // The step's DRAM traffic at the off-chip bandwidth, overlapped with its on-chip time.
            if (t < 1 || dramEngine.stepBound() > off) {
                const i64 moved = dramEngine.stepElements(idx, executed > 0 ? lastTop.pos : nullptr, false);
                lastTop.valid = true;
                lastTop.t = t;
                lastTop.moved = moved;
                lastTop.hasPrev = executed > 0;
                std::copy(lastTop.pos, lastTop.pos + n, lastTop.prev);
                t = std::max(t, ceilDiv(moved, off));
            } else {
                lastTop.valid = false;
            }
            std::copy(idx, idx + n, lastTop.pos);
            const i64 compP = std::max<i64>(comp, 1);
            top.offchip = std::max({top.offchip, reqOut / compP, reqIn / compP}) / 2;
            const i64 traffic = std::max(allIn, out);
            top.peak = std::max(top.peak, traffic / compP);
            top.avgNum += traffic / compP;
            top.dinMin = std::min(top.dinMin, din);
            top.dinMax = std::max(top.dinMax, din);
            top.dinSum += din;
            top.doutMin = std::min(top.doutMin, dout);
            top.doutMax = std::max(top.doutMax, dout);
            top.doutSum += dout;
            top.compMin = std::min(top.compMin, compP);
            top.compMax = std::max(top.compMax, compP);
            top.compSum += compP;
            top.ai = double(allWork) / double(std::max<i64>(allIn, 1));
            ++top.sumOcc;
        }
        if (l == gbLevel && !clustersBelowGb) {
            // Partial sums stay in a sub-unit while it keeps their output; those it no longer holds are
            // returned to the L2 (reduced across sub-units: an output counts once).
            GbCarry& g = gbCarry;
            g.grow(maxSub);
            int nc = 0;
            Span* const oc = w.outCommon;
            for (int k = 0; k < tcount[o]; ++k) {
                const int v = tdims[o][k];
                if (v != varying) oc[nc++] = outOf[v] >= 0 ? outputs(v, cur[v], cur[slideOf[v]]) : cur[v];
            }
            g.curOut.assign(active, Span{});
            for (size_t j = 0; j < active; ++j)
                if (work[j] > 0)
                    g.curOut[j] = varying < 0 ? Span{0, 1} : window >= 0 ? windowOutputs(j) : mine[j];
            if (g.anyOut) top.t[o].l2Write += g.drained(oc);
            g.anyOut = true;
            std::copy(oc, oc + nc, g.outCommon);
            g.nOutCommon = nc;
            std::swap(g.prevOut, g.curOut);
        }
        res.runtime += t;
        res.frames += stepFrames;
        utilSum += units;
        ++executed;

        anyExecuted = true;
        for (int v = 0; v < nd; ++v)
            prev[v] = cur[v];
        if (!sameFold) std::copy(mine.begin(), mine.begin() + std::ptrdiff_t(active), prevMine.begin());
        prevActive = active;
        prevFold = firstTile;
        if (gbCarries) {
            gbCarry.any = true;
            std::copy(cur, cur + nd, gbCarry.prev);
            if (!gbSameFold)
                std::copy(mine.begin(), mine.begin() + std::ptrdiff_t(active), gbCarry.prevMine.begin());
            gbCarry.held = active;
            gbCarry.spreadRange = region[sd];
            gbCarry.fold = firstTile;
        }
    }
    if (isTop && lastTop.valid) {
        // The last step also writes its outputs back.
        const i64 moved
            = dramEngine.stepElements(lastTop.pos, lastTop.hasPrev ? lastTop.prev : nullptr, true);
        res.runtime
            += std::max(lastTop.t, ceilDiv(moved, off)) - std::max(lastTop.t, ceilDiv(lastTop.moved, off));
    }
    res.util = executed > 0 ? utilSum / double(executed) : 1.0;
    res.executed = executed;
    return res;
}

void Evaluator::Impl::emitRun(
    i64 frame, i64 pe, i64 count, bool holds, bool computes, const AxisSpan* tiles, const i64* deltas)
{
    peFetches.addRun(frame, pe, count, holds, computes, tiles, deltas);
    if (recording == 0) return;
    runRecord.push_back(RecordedRun{frame, pe, count, holds, computes});
    const size_t axes = peAxisDim.size();
    for (size_t a = 0; a < axes; ++a) {
        runRecordTiles.push_back(holds ? tiles[a] : AxisSpan{});
        runRecordDeltas.push_back(deltas ? deltas[a] : 0);
    }
}

Evaluator::Impl::Walked Evaluator::Impl::walkMoved(
    int l, int sd, const Span* region, const Span* mine, size_t run, i64 frameBase, i64 peBase)
{
    // Below the level whose sub-units these are, a walk is a function of its region, and sd is keyed by
    // size (not positional): the others' walks are the first's with every range on sd moved.
    i64 l1Write[kMaxTensors], l1Read[kMaxTensors];
    for (int t = 0; t < nt; ++t) {
        l1Write[t] = top.t[t].l1Write;
        l1Read[t] = top.t[t].l1Read;
    }
    const i64 macs = top.macs;
    const size_t from = runRecord.size();
    ++recording;
    const Walked w = walk(l + 1, region, frameBase, peBase);
    const size_t to = runRecord.size();
    const i64 times = i64(run) - 1;
    for (int t = 0; t < nt; ++t) {
        top.t[t].l1Write += times * (top.t[t].l1Write - l1Write[t]);
        top.t[t].l1Read += times * (top.t[t].l1Read - l1Read[t]);
    }
    top.macs += times * (top.macs - macs);
    const size_t axes = peAxisDim.size();
    movedTiles.resize(axes);
    movedDeltas.resize(axes);
    for (size_t i = 1; i < run; ++i) {
        const i64 shift = mine[i].begin - mine[0].begin, pes = i64(i) * pesPerSub[l];
        for (size_t r = from; r < to; ++r) {
            const RecordedRun rec = runRecord[r]; // emitRun may move the record
            for (size_t a = 0; a < axes; ++a) {
                AxisSpan x = runRecordTiles[r * axes + a];
                if (peAxisDim[a] == sd) x = AxisSpan{x.begin + shift, x.end + shift};
                movedTiles[a] = x;
                movedDeltas[a] = runRecordDeltas[r * axes + a];
            }
            emitRun(rec.frame, rec.pe + pes, rec.count, rec.holds, rec.computes, movedTiles.data(),
                movedDeltas.data());
        }
    }
    if (--recording == 0) {
        runRecord.clear();
        runRecordTiles.clear();
        runRecordDeltas.clear();
    }
    return w;
}

Evaluator::Impl::Walked Evaluator::Impl::walkChild(
    int l, const Span* region, i64 times, i64 frameBase, i64 peBase)
{
    ChildWalks& m = childWalks;
    // times is 1: the caller groups replayable walks only
    if (!m.enabledBelow[l - 1]) return walk(l, region, frameBase, peBase);
    // Filled for the nd dimensions only: a Span array would be zeroed whole on every call.
    struct RawSpan
    {
        i64 begin, end;
    } key[kMaxDims];
    std::uint64_t h = 0x9e3779b97f4a7c15ull * std::uint64_t(l + 1);
    for (int v = 0; v < nd; ++v) {
        key[v]
            = m.positional >> v & 1u ? RawSpan{region[v].begin, region[v].end} : RawSpan{0, region[v].size()};
        h = (h ^ std::uint64_t(key[v].begin)) * 0x100000001b3ull;
        h = (h ^ std::uint64_t(key[v].end)) * 0x100000001b3ull;
    }
    h ^= h >> 29;
    const auto sameKey = [&](const ChildWalks::Entry& e) {
        if (e.hash != h || e.level != l) return false;
        for (int v = 0; v < nd; ++v)
            if (e.key[v].begin != key[v].begin || e.key[v].end != key[v].end) return false;
        return true;
    };
    ChildWalks::Entry* freeSlot = nullptr;
    for (int p = 0; p < ChildWalks::kProbes; ++p) {
        ChildWalks::Entry& e = m.slots[(h + std::uint64_t(p)) & (ChildWalks::kSlots - 1)];
        if (e.generation != m.generation) {
            freeSlot = &e;
            break;
        }
        if (sameKey(e)) {
            for (int t = 0; t < nt; ++t) {
                top.t[t].l1Write += times * e.l1Write[t];
                top.t[t].l1Read += times * e.l1Read[t];
            }
            top.macs += times * e.macs;
            return e.walked;
        }
    }
    i64 l1Write[kMaxTensors], l1Read[kMaxTensors];
    for (int t = 0; t < nt; ++t) {
        l1Write[t] = top.t[t].l1Write;
        l1Read[t] = top.t[t].l1Read;
    }
    const i64 macs = top.macs;
    const Walked w = walk(l, region);
    for (int t = 0; t < nt; ++t) {
        l1Write[t] = top.t[t].l1Write - l1Write[t]; // this walk's additions
        l1Read[t] = top.t[t].l1Read - l1Read[t];
        top.t[t].l1Write += (times - 1) * l1Write[t];
        top.t[t].l1Read += (times - 1) * l1Read[t];
    }
    const i64 addedMacs = top.macs - macs;
    top.macs += (times - 1) * addedMacs;
    if (freeSlot) {
        ChildWalks::Entry& e = *freeSlot;
        e.generation = m.generation;
        e.level = l;
        e.hash = h;
        for (int v = 0; v < nd; ++v)
            e.key[v] = Span{key[v].begin, key[v].end};
        e.walked = w;
        std::copy(l1Write, l1Write + nt, e.l1Write);
        std::copy(l1Read, l1Read + nt, e.l1Read);
        e.macs = addedMacs;
    }
    return w;
}

LevelOut Evaluator::Impl::walkMapping()
{
    const int o = nt - 1;
    for (int t = 0; t < nt; ++t)
        top.t[t].l1Read = top.t[t].l1Write = top.t[t].l2Req = 0;
    for (int t = 0; t < nInputs; ++t)
        top.t[t].l2Read = 0;
    top.t[o].l2Write = 0;
    top.macs = top.peak = top.avgNum = top.sumOcc = top.offchip = 0;
    top.dinMin = top.doutMin = top.compMin = kMaxI64;
    top.dinMax = top.doutMax = top.compMax = top.dinSum = top.doutSum = top.compSum = 0;
    top.ai = 0.0;
    gbCarry.reset();
    // A child walk is replayable when no level at or below it carries the global buffer's state from
    // one of its executions to the next (those above gbLevel do, through gbCarry).
    childWalks.startEvaluation();
    childWalks.positional = 0;
    for (int v = 0; v < nd; ++v)
        if (outOf[v] >= 0) childWalks.positional |= (1u << v) | (1u << slideOf[v]) | (1u << outOf[v]);
    // Counting the PEs' frames needs every execution walked with its own frames and PEs; it is done when
    // the elements it would visit (the PEs' steps times their tiles) stay within kFrameCountLimit.
    clustersBelowGb = gbLevel < nLevels - 1;
    gbByFrames = false;
    if (clustersBelowGb) {
        i64 steps = 0, tiles = 0;
        stepWalkApplies(&steps);
        const Level& inner = lv[nLevels - 1];
        for (int t = 0; t < nt; ++t) {
            i64 v = 1;
            for (int k = 0; k < tcount[t]; ++k)
                v = satMul(v, std::max<i64>(inner.M[tdims[t][k]], 1));
            tiles = satAdd(tiles, v);
        }
        gbByFrames = satMul(steps, tiles) <= kFrameCountLimit;
    }
    for (int l = 0; l < nLevels; ++l)
        childWalks.enabledBelow[l] = gbLevel <= l && !gbByFrames;
    pesPerSub[nLevels - 1] = 1;
    for (int l = nLevels - 2; l >= 0; --l)
        pesPerSub[l] = pesPerSub[l + 1] * lv[l + 1].P;
    if (gbByFrames) {
        std::vector<std::vector<i64>> extents(static_cast<size_t>(nt));
        for (int t = 0; t < nt; ++t)
            for (int k = 0; k < tcount[t]; ++k) {
                const int v = tdims[t][k];
                extents[size_t(t)].push_back(t == o && outOf[v] >= 0 ? outExtent[v] : size0[v]);
            }
        peFetches.reset(extents, pesPerSub[0] * lv[0].P, acc.multicast);
        peAxisDim.clear();
        for (int t = 0; t < nt; ++t)
            for (int k = 0; k < tcount[t]; ++k)
                peAxisDim.push_back(tdims[t][k]);
        recording = 0;
        runRecord.clear();
        runRecordTiles.clear();
        runRecordDeltas.clear();
    }
    Span region[kMaxDims];
    for (int v = 0; v < nd; ++v)
        region[v] = Span{0, size0[v]};
    const Walked w = walk(0, region);
    if (gbCarry.anyOut) top.t[o].l2Write += gbCarry.drained(nullptr); // the last partial sums
    gbCounted = !clustersBelowGb;
    if (gbByFrames) {
        peFetches.finish();
        for (int t = 0; t < nInputs; ++t)
            top.t[t].l2Read = peFetches.reads(t);
        top.t[o].l2Write = peFetches.updates();
        gbCounted = true;
    }
    LevelOut res;
    res.runtime = w.runtime;
    res.avgUtil = w.util;
    res.anyProcessed = w.executed > 0;
    return res;
}

// Every execution of a level starts with its all-initial case, whose step fetches the sub-units' first tiles
// and then computes (analyze: that case takes comp + din, the others at least comp), a level runs once per
// step of the levels above, and the innermost level's compute is its PEs' work per step. So the runtime is
// at least the PEs' compute (the innermost steps' ceil(work / lanes), over every execution) plus, per
// level, its executions times the delay of its first fetch. Known where every level's tiles divide its
// extents (every execution of a level then has the same extents and every case computes), no filter taps
// are spread or cut (whose idle sub-units skip cases), and the per-case tables give the runtime (the step
// walk knows what a PE kept from one execution to the next). The first fetch counted is the union of the
// sub-units' tiles: a NoC that sends every copy sends more.
i64 Evaluator::Impl::runtimeBound()
{
    if (!corrected || stepWalkApplies()) return -1;
    for (int l = 0; l < nLevels; ++l) {
        const Level& L = lv[l];
        if (tapLevel[l] || L.tapComputeDims) return -1;
        for (int k = 0; k < L.n; ++k) {
            const Dir& d = L.d[k];
            const i64 D = L.D[d.dim];
            if (d.sz > D || (D - d.sz) % d.of != 0) return -1;
        }
    }
    const i64 H = acc.nocLatency, BW = acc.nocBandwidth;
    const int o = nt - 1;
    i64 executions = 1, bound = 0;
    for (int l = 0; l < nLevels; ++l) {
        const Level& L = lv[l];
        buildStates(l, L.D);
        const std::uint32_t spatialDirs = L.spatialDirs;
        i64 steps = 1, total = 1;
        for (int k = 0; k < L.n; ++k) {
            i64 positions = 0;
            for (int j = 0; j < nStates[l][k]; ++j)
                positions = satAdd(positions, states[l][k][j].occ);
            steps = satMul(steps, positions);
            total *= nStates[l][k];
        }
        // Each case of the level (the innermost level's: all of them, for their compute; the others': the
        // first), its states and the PEs' work.
        const State* s[kMaxLevelDirectives];
        const bool innermost = l == nLevels - 1;
        i64 compute = 0;
        for (i64 c = 0; c < (innermost ? total : 1); ++c) {
            i64 occ = 1, rest = c;
            std::uint32_t edgeDirs = 0;
            for (int k = L.n - 1; k >= 0; --k) {
                s[k] = &states[l][k][rest % nStates[l][k]];
                rest /= nStates[l][k];
                occ = satMul(occ, s[k]->occ);
                edgeDirs |= s[k]->edge ? 1u << k : 0u;
            }
            const bool spmO = L.nCoupledSpatial[o] > 0;
            const bool speO = spmO && (edgeDirs & spatialDirs & L.tensorDirs[o]) != 0;
            const bool eeO = spmO && s[L.lastCoupledSpatial[o]]->edgeEdge;
            const i64 work = peout(L, s, true, true, spmO && speO && L.E == 1 && eeO, true);
            if (work <= 0) return -1; // a case that computes nothing is skipped, its fetch too
            compute = satAdd(compute, satMul(occ, ceilDiv(work, acc.simdLanes)));
            if (c > 0) continue;
            i64 sumIn = 0;
            for (int t = 0; t < nInputs; ++t) {
                const bool spm = L.nCoupledSpatial[t] > 0;
                const bool spe = spm && (edgeDirs & spatialDirs & L.tensorDirs[t]) != 0;
                const bool ee = spm && s[L.lastCoupledSpatial[t]]->edgeEdge;
                sumIn = satAdd(sumIn, aggregate(L, spm, spe, ee, [&](bool first, bool eepe) {
                    return ingressExact(L, l, s, t, !first, eepe, -1);
                }));
            }
            bound = satAdd(bound, satMul(executions, H + ceilDiv(sumIn, BW) - 1));
        }
        if (innermost) bound = satAdd(bound, satMul(executions, compute));
        executions = satMul(executions, steps);
    }
    return bound;
}

bool Evaluator::Impl::run(std::span<const DirectiveId> flow, Metrics& out, i64 runtimeCeiling)
{
    exceededCeiling = false;
    err = Err::None;
    errSrc = errDim = errLevel = -1;
    haveFirst = false;
    lastTop.valid = false;
    for (auto& m : memo)
        m.clear();
    keptDeepSeen.clear();
    top = Top{};
    top.dinMin = top.doutMin = top.compMin = kMaxI64;
    top.dinMax = top.doutMax = top.compMax = 0;
    top.dinSum = top.doutSum = top.compSum = 0;
    if (!compileDataflow(flow)) return false;
    if (runtimeCeiling >= 0 && runtimeBound() > runtimeCeiling) {
        exceededCeiling = true;
        return false;
    }
    {
        dram::Directive d0[kMaxLevelDirectives];
        for (int k = 0; k < lv[0].n; ++k)
            d0[k] = dram::Directive{lv[0].d[k].spatial, lv[0].d[k].dim, lv[0].d[k].sz, lv[0].d[k].of};
        dramEngine.compute(lv[0].P, lv[0].n, d0, dramTraffic);
    }
    LevelOut r = analyze(0, size0);
    if (err != Err::None) return false;
    const bool walked = stepWalkApplies();
    const LevelOut tables = r;
    if (walked) r = walkMapping();
    // The global buffer's counts the walk left to the tables (frames beyond its counting budget).
    const bool gbFromTables = corrected && (!walked || !gbCounted);
    if (!r.anyProcessed || top.sumOcc == 0) return fail(Err::AllSkipped);
    out.runtimeCycles = r.runtime;
    out.macs = top.macs;
    out.numTensors = nt;
    out.l1SizeReq = out.l2SizeReq = 0;
    double l1Reads = 0.0, l1Writes = 0.0, l2Reads = 0.0, l2Writes = 0.0, nocSent = 0.0;
    for (int t = 0; t < nt; ++t) {
        TensorCounts& tc = top.t[t];
        // Multicast: MAESTRO's L1 writes equal the elements sent (Q-REUSE-4); corrected fidelity counts
        // every receiver (FIX L1-WRITES, accumulated per case).
        if (t < nInputs && !corrected) tc.l1Write = tc.l2Read;
        // Corrected: writes into the PEs' L1s (for one level, the receivers of level 0).
        if (t < nInputs && corrected && !walked) tc.l1Write = r.peWrites[t];
        // Corrected: the global buffer's traffic is that of gbLevel over all its executions.
        if (gbFromTables) {
            if (t < nInputs)
                tc.l2Read = tables.gbIn[t];
            else
                tc.l2Write = tables.gbOut;
        }
        tc.l1Req = firstReqDn[t];
        tc.dramRead = dramTraffic[t].readElements;
        tc.dramWrite = dramTraffic[t].writeElements;
        tc.dramReadBytes = satMul(dramTraffic[t].readBlocks, dramBlockBytes);
        tc.dramWriteBytes = satMul(dramTraffic[t].writeBlocks, dramBlockBytes);
        out.tensors[size_t(t)] = tc;
        out.l1SizeReq += tc.l1Req;
        out.l2SizeReq += tc.l2Req;
        l1Reads += double(tc.l1Read);
        l1Writes += double(tc.l1Write);
        l2Reads += double(tc.l2Read);
        l2Writes += double(tc.l2Write);
        // What crosses the NoC: the inputs' sends to the PEs and the outputs' returns.
        nocSent += double(t < nInputs ? tc.l2Read : tc.l2Write);
    }
    out.macEnergy = acc.energy.mac * double(top.macs);
    out.l1Energy = acc.energy.l1Energy(l1Reads, l1Writes);
    out.l2Energy = acc.energy.l2Energy(l2Reads, l2Writes);
    out.nocEnergy = acc.energy.nocElement * nocSent;
    out.energy = out.l2Energy + out.l1Energy + out.macEnergy + out.nocEnergy;
    out.dramEnergy = acc.energy.dramAccess * double(out.dramReads() + out.dramWrites());
    out.peakBwReq = top.peak;
    out.avgUtilizedPes = r.avgUtil;
    out.activePes = activePes();
    return true;
}

// Sub-unit j of a level holds tile j of each of the level's spatial maps, so at most as many sub-units
// as a spatial map has tiles over the level's extent ever hold work; a level cannot occupy more than
// that (nor more than its sub-units), and the PEs of the whole mapping are the product over the levels.
// The extents and tiles are the completed ones of this fidelity, which agree in both fidelities except
// on a strided reference dimension (MAESTRO rewrites its tiles, spec section 3.3 step 4): a level with a
// spatial map there counts all its sub-units, so the count stays an upper bound in either fidelity.
i64 Evaluator::Impl::activePes() const
{
    i64 pes = 1;
    for (int l = 0; l < nLevels; ++l) {
        const Level& L = lv[l];
        i64 units = 0;
        bool strided = false;
        for (int k = 0; k < L.n; ++k) {
            const Dir& d = L.d[k];
            if (!d.spatial) continue;
            strided = strided || stride[d.dim] != 1;
            const i64 extent = L.D[d.dim];
            units = std::max(units, extent <= d.sz ? i64(1) : ceilDiv(extent - d.sz, d.of) + 1);
        }
        pes = satMul(pes, strided ? L.P : std::min(L.P, std::max<i64>(units, 1)));
    }
    return std::min<i64>(pes, acc.numPes);
}

// ------------------------------------------------------------------------------------------------
// Diagnostics

Diagnostic Evaluator::Impl::diagnostic() const
{
    Diagnostic d;
    d.file = problem.file;
    d.loc = problem.loc;
    std::string where = "layer '" + problem.name + "'";
    std::string directive;
    if (userFlow && errSrc >= 0 && size_t(errSrc) < userFlow->size()) {
        const auto& dir = (*userFlow)[size_t(errSrc)];
        directive = formatDirective(dir);
        if (dir.loc.line > 0) d.loc = dir.loc;
    } else if (errSrc >= 0) {
        directive = "directive " + std::to_string(errSrc + 1);
    }
    std::string dim = errDim >= 0 && errDim < nd ? names[size_t(errDim)] : std::string();
    std::string level = errLevel >= 0 ? " in cluster level " + std::to_string(errLevel) : std::string();
    std::string m;
    switch (err) {
    case Err::None:
        return Diagnostic{};
    case Err::UnknownDim:
        m = "dimension not found in the layer";
        break;
    case Err::BadSize:
        m = "map size and offset must be at least 1";
        break;
    case Err::BadClusterSize:
        m = "cluster size must be at least 1";
        break;
    case Err::TooManyClusters:
        m = "at most 3 Cluster directives (4 levels) are supported";
        break;
    case Err::ClusterExceedsPes:
        m = "the product of the cluster sizes exceeds the " + std::to_string(acc.numPes) + " PEs";
        break;
    case Err::SlidingTemporal:
        m = "a TemporalMap on " + dim + " must have size and offset equal to the full size "
            + std::to_string(errDim >= 0 ? size0[errDim] : 0);
        break;
    case Err::SlidingOversize:
        m = "a map on " + dim + " covers more than its " + std::to_string(errDim >= 0 ? size0[errDim] : 0)
            + " taps";
        break;
    case Err::BothPrimed:
        m = "both " + dim + " and its input-space dimension are mapped" + level;
        break;
    case Err::PrimedWithoutSliding:
        m = dim + " is mapped without a directive on its window dimension" + level;
        break;
    case Err::Duplicate:
        m = "two directives on " + dim + level;
        break;
    case Err::NotInInner:
        m = "dimension " + dim + " cannot be mapped" + level
            + " (inner levels only hold the tensor dimensions)";
        break;
    case Err::NoSpatial:
        m = "no SpatialMap" + level;
        break;
    case Err::TooManySpatial:
        m = "more than two SpatialMaps" + level;
        break;
    case Err::TooManyDirectives:
        m = "more than " + std::to_string(kMaxLevelDirectives) + " directives in one level";
        break;
    case Err::TooLarge:
        m = "tile sizes or counts are too large for 64-bit counters" + level;
        break;
    case Err::ZeroUnique:
        m = "temporal map on " + dim + " advances with no new elements" + level
            + " (parent tile larger than the level's extent)";
        break;
    case Err::AllSkipped:
        m = "invalid mapping: every iteration is empty (no MAC is computed)";
        break;
    case Err::ZeroCompute:
        m = "invalid mapping: a sub-cluster level computes nothing (MAESTRO divides by zero here)";
        break;
    }
    d.message = where + (directive.empty() ? "" : ": " + directive) + ": " + m;
    return d;
}

// ------------------------------------------------------------------------------------------------
// Public API

Evaluator::Evaluator(const Problem& problem, const arch::Accelerator& accelerator, Options options)
    : d(std::make_unique<Impl>())
{
    d->problem = problem;
    d->acc = executionUnit(problem, accelerator);
    d->opt = options;
    d->corrected = options.fidelity == Fidelity::Corrected;
    std::vector<Diagnostic> hw;
    auto bad = [&](const char* field, const std::string& msg) {
        Diagnostic g;
        g.field = field;
        g.message = msg;
        hw.push_back(g);
    };
    if (accelerator.numPes < 1 || accelerator.numPes > (i64(1) << 31))
        bad("accelerator.num_pes", "number of PEs must be between 1 and 2^31");
    if (accelerator.nocBandwidth < 1)
        bad("accelerator.noc_bandwidth", "NoC bandwidth must be at least 1 element per cycle");
    if (accelerator.offchipBandwidth < 1)
        bad("accelerator.offchip_bandwidth", "off-chip bandwidth must be at least 1 element per cycle");
    if (accelerator.simdLanes < 1) bad("accelerator.simd_lanes", "SIMD lanes must be at least 1");
    if (accelerator.nocLatency < 0 || accelerator.nocLatency > (i64(1) << 31))
        bad("accelerator.noc_latency", "NoC latency must be between 0 and 2^31 cycles");
    if (!hw.empty()) throw InputError(hw);
    d->compileProblem();
    for (auto& m : d->memo)
        m.reserve(64);
}

Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator&&) noexcept = default;
Evaluator& Evaluator::operator=(Evaluator&&) noexcept = default;

const Problem& Evaluator::problem() const
{
    return d->problem;
}

int Evaluator::dimId(std::string_view name) const
{
    for (int i = 0; i < d->nd; ++i)
        if (d->names[size_t(i)] == name) return i;
    return -1;
}

bool Evaluator::evaluateMetrics(std::span<const DirectiveId> dataflow, Metrics& out)
{
    d->userFlow = nullptr;
    return d->run(dataflow, out);
}

bool Evaluator::evaluateMetricsBelow(
    std::span<const DirectiveId> dataflow, std::int64_t runtimeCeiling, Metrics& out, bool& exceeded)
{
    d->userFlow = nullptr;
    const bool ok = d->run(dataflow, out, std::max<std::int64_t>(0, runtimeCeiling));
    exceeded = d->exceededCeiling;
    return ok;
}

std::int64_t Evaluator::runtimeBound(std::span<const DirectiveId> dataflow)
{
    d->err = Err::None;
    if (!d->compileDataflow(dataflow)) return -1;
    return d->runtimeBound();
}

bool Evaluator::evaluateMetrics(const mdc::Dataflow& dataflow, Metrics& out)
{
    auto& flow = d->scratchFlow;
    flow.resize(dataflow.size());
    for (size_t k = 0; k < dataflow.size(); ++k) {
        const auto& s = dataflow[k];
        flow[k] = DirectiveId{
            s.kind, s.size, s.offset, s.kind == mdc::Directive::Kind::Cluster ? -1 : dimId(s.dim)};
    }
    d->userFlow = &dataflow;
    bool ok = d->run(flow, out);
    if (!ok) d->errLoc = d->errSrc >= 0 ? dataflow[size_t(d->errSrc)].loc : SourceLoc{};
    return ok;
}

std::vector<Evaluator::CompletedLevel> Evaluator::completedLevels(const mdc::Dataflow& dataflow)
{
    auto& flow = d->scratchFlow;
    flow.resize(dataflow.size());
    for (size_t k = 0; k < dataflow.size(); ++k) {
        const auto& s = dataflow[k];
        flow[k] = DirectiveId{
            s.kind, s.size, s.offset, s.kind == mdc::Directive::Kind::Cluster ? -1 : dimId(s.dim)};
    }
    d->userFlow = &dataflow;
    d->err = Err::None;
    d->errSrc = d->errDim = d->errLevel = -1;
    if (!d->compileDataflow(flow)) {
        Diagnostic diag = d->diagnostic();
        d->userFlow = nullptr;
        throw InputError(diag);
    }
    d->userFlow = nullptr;
    std::vector<CompletedLevel> out(size_t(d->nLevels));
    for (int l = 0; l < d->nLevels; ++l) {
        const Level& L = d->lv[l];
        out[size_t(l)].subUnits = L.P;
        for (int k = 0; k < L.n; ++k)
            out[size_t(l)].directives.push_back(DirectiveId{
                L.d[k].spatial ? mdc::Directive::Kind::SpatialMap : mdc::Directive::Kind::TemporalMap,
                L.d[k].sz, L.d[k].of, L.d[k].dim});
    }
    return out;
}

Diagnostic Evaluator::lastError() const
{
    return d->diagnostic();
}

namespace {

// Maestro fidelity: the figure against an exact execution of the same mapping, Corrected fidelity on
// `problem` (which agrees with the simulator, walking small mappings step by step): the MACs it performs
// and, for an impossible figure, its runtime.
void checkAgainstCorrected(Result& r, const Problem& problem, const arch::Accelerator& acc, Options options,
    const mdc::Dataflow& dataflow)
{
    options.fidelity = Fidelity::Corrected;
    Evaluator corrected(problem, acc, options);
    Metrics cm;
    const bool ok = corrected.evaluateMetrics(dataflow, cm);
    r.exactMacs = ok ? cm.macs : r.macsExpected;
    r.undercount = checkUndercount(r.m, r.exactMacs, r.macsExpected, r.vectorWidth);
    r.correctedRuntime.reset();
    r.correctedError.clear();
    if (r.undercount == Undercount::None) return;
    if (ok)
        r.correctedRuntime = cm.runtimeCycles;
    else
        r.correctedError = corrected.lastError().message;
}

} // namespace

Result Evaluator::evaluate(const mdc::Dataflow& dataflow)
{
    Result r;
    if (!evaluateMetrics(dataflow, r.m)) {
        Diagnostic diag = d->diagnostic();
        d->userFlow = nullptr;
        throw InputError(diag);
    }
    d->userFlow = nullptr;
    const Impl& x = *d;
    const auto& top = x.top;
    const auto& e = x.acc.energy;
    r.tensorNames = x.tensorNames;
    r.numPes = x.acc.numPes;
    r.vectorWidth = x.acc.simdLanes;
    r.throughput = double(r.m.macs) / double(r.m.runtimeCycles);
    r.avgBwReq = double(top.avgNum) / double(top.sumOcc);
    r.offchipBwReq = top.offchip;
    r.ingressDelayMin = top.dinMin;
    r.ingressDelayMax = top.dinMax;
    r.ingressDelayAvg = top.dinSum / top.sumOcc;
    r.egressDelayMin = top.doutMin;
    r.egressDelayMax = top.doutMax;
    r.egressDelayAvg = top.doutSum / top.sumOcc;
    r.computeDelayMin = top.compMin;
    r.computeDelayMax = top.compMax;
    r.computeDelayAvg = top.compSum / top.sumOcc;
    r.arithmeticIntensity = top.ai;
    r.inputTensorElems = x.inputElems;
    r.weightTensorElems = x.weightElems;
    r.macsExpected = x.macsExpected;
    r.multiLevel = x.nLevels > 1;
    double l2w = 0, l2r = 0, l1w = 0, l1r = 0, l1all = 0, l2csv = 0;
    for (int t = 0; t < r.m.numTensors; ++t) {
        const auto& tc = r.m.tensors[size_t(t)];
        l2w += double(tc.l2Write);
        l2r += double(tc.l2Read);
        l1w += double(tc.l1Write);
        l1r += double(tc.l1Read);
        l1all += double(tc.l1Read + tc.l1Write);
        l2csv += double(tc.l2Write) + (t < x.nInputs ? double(tc.l2Read) : 0.0);
    }
    r.l2WriteEnergy = e.l2WriteEnergy() * l2w;
    r.l2ReadEnergy = e.l2Access * l2r;
    r.l1WriteEnergy = e.l1WriteEnergy() * l1w;
    r.l1ReadEnergy = e.l1Access * l1r;
    r.macEnergy = e.mac * double(r.m.macs);
    r.energyNjSameLayer = e.macEnergyNanojoule * (e.l2Access * l2csv + e.l1Access * l1all);
    // FIX Q-CSV-1: the corrected CSV energy is the consistent total (MACs and output L2 reads included).
    r.energyNjCsv = x.corrected ? e.macEnergyNanojoule * r.m.energy : r.energyNjSameLayer;

    // Area and power (§6.3), from the required buffer sizes.
    const AreaPower ap = areaPower(x.acc, double(r.m.l1SizeReq), double(r.m.l2SizeReq));
    r.pePower = ap.pePower;
    r.l1Power = ap.l1Power;
    r.l2Power = ap.l2Power;
    r.nocPower = ap.nocPower;
    r.power = ap.power;
    r.area = ap.area;

    r.computeBound = computeBound(r.macsExpected, r.m.activePes, r.vectorWidth);
    r.fidelity = x.opt.fidelity;
    if (!x.corrected)
        checkAgainstCorrected(r, x.problem, x.acc, x.opt, dataflow);
    else if (r.m.runtimeCycles < r.computeBound)
        r.undercount = Undercount::BelowComputeBound;
    return r;
}

std::int64_t computeBound(std::int64_t macs, std::int64_t activePes, std::int64_t simdLanes)
{
    const i64 perCycle = satMul(std::max<i64>(activePes, 1), std::max<i64>(simdLanes, 1));
    return macs <= 0 ? 0 : (macs - 1) / perCycle + 1;
}

Undercount checkUndercount(
    const Metrics& m, std::int64_t exactMacs, std::int64_t operatorMacs, std::int64_t simdLanes)
{
    if (m.macs != exactMacs) return Undercount::WrongMacs;
    if (m.runtimeCycles < computeBound(operatorMacs, m.activePes, simdLanes))
        return Undercount::BelowComputeBound;
    return Undercount::None;
}

AreaPower areaPower(const arch::Accelerator& acc, double l1Elements, double l2Elements)
{
    auto cells = [](double v) { return std::max(1.0, std::ceil(v)); };
    double pes = double(acc.numPes);
    double vw = double(acc.simdLanes);
    double bw = double(acc.nocBandwidth);
    double g = 1.2886 * pes * pes + 5.5814 * pes - 23.711;
    double busArea = 101.7938 * (14.662 * pes + 28.895) * bw;
    double busPower = 0.8 * (14.662 * pes + 28.895) / 1000.0 * bw;
    double arbArea = std::max(395.473 * g, 395.473);
    double arbPower = std::max(0.34 * g / 1000.0, 0.34);
    double l1c = cells(l1Elements), l2c = cells(l2Elements);
    AreaPower out;
    out.pePower = pes * 1.2223 * vw;
    out.l1Power = pes * 0.00345 * l1c;
    out.l2Power = 0.00345 * l2c;
    out.nocPower = busPower + arbPower;
    out.power = out.pePower + out.l1Power + out.l2Power + out.nocPower;
    out.area = pes * (283.0 * vw + 0.104 * l1c) + 0.104 * l2c + busArea + arbArea;
    return out;
}

std::vector<LayerEvaluation> evaluateNetwork(const mdc::Network& network,
    const arch::Accelerator& accelerator, Options options, const std::string& fileName)
{
    std::vector<LayerEvaluation> out;
    std::map<std::string, bool> batchByType;
    double previousL1 = 0.0;
    const bool maestro = options.fidelity == Fidelity::Maestro;
    for (const auto& layer : network.layers) {
        LayerEvaluation ev;
        ev.layerName = layer.name;
        try {
            std::string type = layer.type == "TRCONV" ? "CONV" : layer.type;
            std::optional<bool> batch;
            bool declaresN = false;
            for (const auto& dm : layer.dims)
                declaresN = declaresN || dm.name == "N";
            if (maestro && type != "GEMM") {
                // Q-PARSE-4: the first layer of each type fixes the batch coupling for the file.
                auto it = batchByType.find(type);
                if (it == batchByType.end())
                    batchByType[type] = declaresN;
                else
                    batch = it->second;
            }
            Problem p = fromMaestroLayer(layer, batch, fileName);
            Evaluator evaluator(p, accelerator, options);
            ev.result = evaluator.evaluate(layer.dataflow);
            ev.ok = true;
            // The corrected runtime beside an impossible figure is that of `--fidelity corrected`, which
            // couples the batch as the layer itself declares it (no Q-PARSE-4).
            if (ev.result.undercount != Undercount::None && batch && *batch != declaresN) {
                Options correctedOptions = options;
                correctedOptions.fidelity = Fidelity::Corrected;
                Evaluator alone(
                    fromMaestroLayer(layer, std::nullopt, fileName), accelerator, correctedOptions);
                Metrics cm;
                ev.result.correctedRuntime.reset();
                ev.result.correctedError.clear();
                if (alone.evaluateMetrics(layer.dataflow, cm))
                    ev.result.correctedRuntime = cm.runtimeCycles;
                else
                    ev.result.correctedError = alone.lastError().message;
            }
            if (maestro) {
                const auto& e = accelerator.energy;
                double l2csv = 0.0, l1 = 0.0;
                const auto& m = ev.result.m;
                for (int t = 0; t < m.numTensors; ++t) {
                    l1 += double(m.tensors[size_t(t)].l1Read + m.tensors[size_t(t)].l1Write);
                    l2csv += double(m.tensors[size_t(t)].l2Write)
                        + (t < m.numTensors - 1 ? double(m.tensors[size_t(t)].l2Read) : 0.0);
                }
                // Q-CSV-1: multi-level layers report the previous layer's L1 part.
                double l1part = ev.result.multiLevel ? previousL1 : l1;
                ev.result.energyNjCsv = e.macEnergyNanojoule * (e.l2Access * l2csv + e.l1Access * l1part);
                previousL1 = l1;
            }
        } catch (const InputError& e) {
            ev.errors = e.diagnostics();
        }
        out.push_back(std::move(ev));
    }
    return out;
}

} // namespace marvel::cost
