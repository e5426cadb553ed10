#pragma once
// DRAM traffic of a mapping (doc/cost-model.md, "DRAM traffic"), internal to the cost model. The steps of
// the top cluster level are the level-3 tiles: at each step the L2 holds, per tensor, the product over its
// dimensions of the ranges its sub-units hold (input-class tensors: every sub-unit with a tile; the
// output: every sub-unit that computes). What a step holds that the previous executed step did not is read
// from DRAM (an output element only when it was written back before: partial sums come back); what the
// previous step held that this one does not is written back (outputs), and the last step's outputs at the
// end. Bytes count DRAM blocks the distinct-block way (core/search/offchip.h): per line of the tensor's
// contiguous dimension, each maximal run of transferred elements starts on a block boundary.
//
// The totals are computed without walking the steps: the top level's steps are an odometer over its
// directives, the step's sets are products over the directives' own tile sets, so every sum over the steps
// and over pairs of consecutive steps factorises into per-directive sums (which loop advances, full or edge
// tile, which inner loops wrapped). A directive's positions 0 .. N-2 hold translated tiles (full tiles,
// full folds), so three or four of them give its sums; a window whose tiles clip at its output extent or do
// not translate with the stride, and a SpatialMap on a window tap with several folds (coupled with the
// rows' loop), are enumerated position by position.

#include <cstdint>
#include <vector>

namespace marvel::cost::dram {

using i64 = std::int64_t;

inline constexpr int kMaxAxes = 16;
inline constexpr int kMaxDirectives = 16;
inline constexpr int kMaxTensors = 6;

/// Half-open index range.
struct Range
{
    i64 b = 0, e = 0;
    i64 size() const { return e > b ? e - b : 0; }
};

/// Sorted, disjoint, non-adjacent ranges along one axis.
struct RangeSet
{
    std::vector<Range> r;
    i64 size() const;
};

/// A sliding window: output o reads reference index stride * o + dilation * tap, o in [0, outExtent).
struct Window
{
    int ref = -1, slide = -1;
    i64 stride = 1, dilation = 1, outExtent = 0;
};

/// A tensor's dimensions: each a problem dimension (window < 0) or a window's output index.
struct TensorAxes
{
    int n = 0;
    int dim[kMaxAxes] = {};
    int window[kMaxAxes] = {};
    int inner = -1; ///< index of the dimension contiguous in DRAM; -1: none (every element its own block)
    bool output = false;
};

/// One completed top-level directive.
struct Directive
{
    bool spatial = false;
    int dim = -1;
    i64 sz = 1, of = 1;
};

/// One tensor's DRAM traffic over the layer.
struct Traffic
{
    i64 readElements = 0, writeElements = 0;
    i64 readBlocks = 0, writeBlocks = 0;
};

class Engine
{
public:
    /// The problem: dimension extents, windows, tensors (the output last) and DRAM elements per block.
    void setProblem(int nd, const i64* extents, const std::vector<Window>& windows,
        const std::vector<TensorAxes>& tensors, i64 elementsPerBlock);
    /// Totals of a mapping's top level (P sub-units, directives outermost first) into out[tensor].
    /// Allocates nothing once its scratch has grown. Counts beyond 63 bits saturate (saturated()). The
    /// totals of the last top level are kept: evaluations that share it (a search under one off-chip
    /// choice) cost a comparison.
    void compute(i64 P, int n, const Directive* d, Traffic* out);
    bool saturated() const { return m_saturated; }
    /// Off: every top level takes the general per-group sums (the closed form is for the common case).
    void setClosedForm(bool on) { m_closedForm = on; }
    /// After compute: positions of directive k (tiles of a TemporalMap, folds of a SpatialMap).
    i64 positions(int k) const { return m_N[k]; }
    /// Whether the step at `pos` (one position per directive) computes anything.
    bool live(const i64* pos);
    /// Elements moved between DRAM and L2 for the executed step at `pos` after the executed step at
    /// `prev` (null: the first step): reads of what L2 lacks (partial sums only when written back before),
    /// writes of the outputs the previous step leaves, with `last` also the step's own outputs.
    i64 stepElements(const i64* pos, const i64* prev, bool last);
    /// An upper bound of stepElements over every step.
    i64 stepBound() const { return m_stepBound; }

private:
    /// stepElements of the current top level, by step: the search evaluates many mappings under one
    /// top level (one off-chip choice), and each asks for the same steps again.
    struct StepMemo
    {
        static constexpr int kSlots = 256;
        struct Entry
        {
            std::uint64_t hash = 0;
            std::uint32_t generation = 0;
            i64 value = 0;
            i64 key[2 * kMaxDirectives + 1] = {};
        };
        std::vector<Entry> slots = std::vector<Entry>(kSlots);
        std::uint32_t generation = 1;
        void clear()
        {
            if (++generation == 0) { // wrapped: stale entries could match again
                for (Entry& e : slots)
                    e.generation = 0;
                generation = 1;
            }
        }
    };
    i64 stepElements0(const i64* pos, const i64* prev, bool last);

    struct Kinds
    {
        i64 v[5] = {};
    };
    // The sums of one group of directives for one tensor. Transition weights come in five kinds, for the
    // pieces of a transferred region (A \ B, A a step's set, B the previous one) in DRAM blocks:
    //   blocks(A \ B) = c(A_in) * (|A_out| - |A_out ∩ B_out|) + |A_out ∩ B_out| * c(A_in \ B_in)
    // (A_out: the product over the other dimensions, A_in: the contiguous one, c: run blocks). Kinds:
    // 0 |A ∩ B|, 1 |A_out ∩ B_out| c(A_in), 2 |A_out ∩ B_out| c(B_in), 3 |A_out ∩ B_out| c(A_in \ B_in),
    // 4 |A_out ∩ B_out| c(B_in \ A_in); for a group that does not hold the contiguous dimension all five are
    // |A ∩ B| (its factor of the product over the other dimensions).
    struct Weights
    {
        i64 L = 0; ///< live tuples
        i64 SA = 0, SC = 0; ///< over live tuples: elements, blocks
        i64 FTC = 0, FTB = 0; ///< over live tuples: first-touched elements, their blocks
        i64 maxSize = 0;
        Kinds pre; ///< sum over live tuples of the weights of (tuple -> itself): the group is outside the
                   ///< advancing loop
        Kinds wrap; ///< (last live tuple -> first live tuple): the group is inside the advancing loop
        Kinds at0; ///< one directive: sum over consecutive live positions
        /// Enumerated groups (else null): per member i, the sum over consecutive live tuples first differing
        /// at member i; per prefix of members 0..i, the sum over its classes of (last -> first).
        Kinds* at = nullptr;
        Kinds* mix = nullptr;
        const Kinds& atMember(int i) const { return at ? at[i] : at0; }
    };
    struct Group
    {
        int n = 0;
        int m[kMaxDirectives] = {}; ///< member directives, outermost first
        bool enumerated = false; ///< weights summed tuple by tuple (else from positions 0, 1, N-2, N-1)
        bool spatial = false; ///< the group of the SpatialMaps and the windows they move
        std::uint32_t windows = 0; ///< windows whose outputs decide the liveness of its tuples
        // Not enumerated (one directive): liveness of positions 0..N-2 and of N-1.
        bool liveRun = true, liveLast = true;
        i64 tuples = 1;
    };

    // Geometry.
    Range tile(int k, i64 index) const;
    i64 active(const i64* pos) const;
    Range rangeOf(int dim, const i64* pos, i64 u) const;
    bool windowLive(int w, const i64* pos, i64 u) const;
    bool works(const i64* pos, i64 u) const;
    void axisSet(const TensorAxes& t, int axis, const i64* pos, RangeSet& out);
    void windowSet(int window, const i64* pos, RangeSet& out, bool filter);
    bool simpleRange(const TensorAxes& t, int axis, const i64* pos, Range& out) const;
    int ownerGroup(const TensorAxes& t, int axis) const;
    bool groupLive(const Group& g, const i64* pos);
    bool translates(int k);
    void buildGroups();
    void ensureGroups();
    int assignAxes(int t);
    void compute0(i64 P, int n, const Directive* d, Traffic* out);
    bool computeSimple(Traffic* out);
    void finish(const TensorAxes& x, i64 E1, i64 T1, i64 FE, i64 FB, const Kinds& S, i64 maxSize, Traffic& o);

    // Sums.
    i64 mul(i64 a, i64 b);
    i64 add(i64 a, i64 b);
    void addTo(Kinds& into, const Kinds& w, i64 times);
    RangeSet& set(int slot, int axis) { return m_sets[std::size_t(slot * kMaxAxes + axis)]; }
    void fillSets(const TensorAxes& t, const int* ax, int na, int slot, const i64* pos);
    void copySets(const int* ax, int na, int from, int to)
    {
        for (int i = 0; i < na; ++i)
            set(to, ax[i]).r = set(from, ax[i]).r;
    }
    Kinds trans(const TensorAxes& t, const int* ax, int na, int q, int p);
    void firstTouched(const TensorAxes& t, const int* ax, int na, int q, int p, i64& elems, i64& blocks);
    void reset(Weights& w, int members);
    template <class Tr> void fastCore(i64 N, bool a, bool b, Weights& w, bool inner, Tr&& tr);
    void rangeWeights(const Range* r, i64 N, bool a, bool b, bool inner, Weights& w);
    void fastWeights(int gi, const TensorAxes& t, const int* ax, int na, Weights& w);
    void enumWeights(int gi, const TensorAxes& t, const int* ax, int na, Weights& w);
    void unitWeights(int gi, Weights& w);
    i64 tupleIndex(int gi, const i64* pos) const;
    i64 firstTouch(const i64* pos);

    // Problem.
    int m_nd = 0;
    i64 m_ext[kMaxAxes] = {};
    std::vector<Window> m_win;
    std::vector<TensorAxes> m_t;
    i64 m_epb = 1;
    int m_epbShift = 0; ///< log2(m_epb) when it is a power of two, else -1
    std::vector<char> m_touched; ///< per window: a SpatialMap moves its rows or taps
    int m_nTouched = 0;

    // Mapping.
    i64 m_P = 1;
    int m_n = 0;
    Directive m_d[kMaxDirectives];
    i64 m_N[kMaxDirectives] = {}; ///< positions
    i64 m_T[kMaxDirectives] = {}; ///< tiles
    int m_dirOf[kMaxAxes] = {};
    int m_nGroups = 0;
    Group m_g[kMaxDirectives];
    int m_groupOf[kMaxDirectives] = {};
    int m_starGroup = -1; ///< the spatial group, if any
    i64 m_firstLive[kMaxDirectives] = {}; ///< enumerated groups: first live tuple
    int m_na[kMaxTensors][kMaxDirectives] = {}; ///< per tensor and group: its dimensions the group moves
    int m_ax[kMaxTensors][kMaxDirectives][kMaxAxes] = {};
    std::vector<std::vector<char>> m_live; ///< enumerated groups: liveness per tuple
    std::vector<std::vector<i64>> m_ft; ///< enumerated groups: output first-touch per tuple
    bool m_allDead = false;
    bool m_grouped = false; ///< buildGroups ran for the current mapping
    bool m_saturated = false;
    i64 m_stepBound = 0;
    bool m_closedForm = true;
    bool m_haveLast = false; ///< m_last holds the totals of the directives in m_d
    StepMemo m_stepMemo;
    Traffic m_last[kMaxTensors];

    // Scratch.
    std::vector<Weights> m_w, m_unit; ///< per group
    std::vector<Weights> m_cache; ///< one directive's weights for one dimension, shared by tensors
    std::vector<Kinds>
        m_enumKinds; ///< per group: at[kMaxDirectives], mix[kMaxDirectives] of enumerated groups
    std::vector<RangeSet> m_sets; ///< slot * kMaxAxes + axis
    RangeSet m_tmp;
    i64 m_pos[kMaxDirectives] = {};
};

} // namespace marvel::cost::dram
