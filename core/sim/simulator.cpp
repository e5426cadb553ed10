#include "core/sim/simulator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <deque>

#include "core/cost/costmodel.h"
#include "core/cost/pe_fetches.h"
#include "core/cost/tile_geometry.h"

namespace marvel::sim {

namespace {

using i64 = std::int64_t;
using Box = std::array<Range, cost::kMaxDims>; ///< per dimension id (only the tensor dimensions are used)

i64 satMul(i64 a, i64 b)
{
    i64 r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::numeric_limits<i64>::max();
    return r;
}

using cost::tileCount;

Range intersect(Range a, Range b)
{
    return Range{std::max(a.begin, b.begin), std::min(a.end, b.end)};
}

struct Window
{
    int ref = -1, slide = -1, out = -1;
    i64 stride = 1, dilation = 1;
    i64 outExtent = 0;
};

/// A tensor (or iteration-space) dimension: a problem dimension, or a window's output index.
struct Axis
{
    int dim = -1;
    int window = -1;
};

struct Tensor
{
    std::string name;
    bool output = false;
    std::vector<Axis> axes;
    std::vector<i64> sizes;
    std::vector<i64> strides; ///< row-major flat index
    i64 elements = 1;
    std::vector<std::uint32_t> stamp, count; ///< per element: last union round it was seen in, receivers
    /// Whether element `e` is seen for the first time in union round `round` (and marks it seen).
    bool firstInRound(i64 e, std::uint32_t round)
    {
        if (stamp[size_t(e)] == round) return false;
        stamp[size_t(e)] = round;
        return true;
    }
};

struct Dir
{
    bool spatial = false;
    int dim = -1;
    i64 sz = 1, of = 1;
};

struct Level
{
    i64 P = 1;
    std::vector<Dir> d;
    i64 pesPerSub = 1;
};

/// Calls row(flat index of the row's first axis-(n-1) position, ignoring the last axis) once per row of
/// the box `r` (n >= 1 axes) of a tensor with `strides`: the odometer over every axis but the last.
template <class F> void forEachRow(const Range* r, int n, const i64* strides, F&& row)
{
    for (int k = 0; k < n; ++k)
        if (r[k].size() == 0) return;
    i64 idx[cost::kMaxDims];
    for (int k = 0; k < n; ++k)
        idx[k] = r[k].begin;
    while (true) {
        i64 base = 0;
        for (int k = 0; k < n - 1; ++k)
            base += idx[k] * strides[k];
        row(base);
        int k = n - 2;
        while (k >= 0) {
            if (++idx[k] < r[k].end) break;
            idx[k] = r[k].begin;
            --k;
        }
        if (k < 0) return;
    }
}

/// Calls f(flat index) for every element of the box `r` (n axes) of a tensor with `strides`.
template <class F> void forEachIn(const Range* r, int n, const i64* strides, F&& f)
{
    if (n == 0) {
        f(i64(0));
        return;
    }
    forEachRow(r, n, strides, [&](i64 base) {
        for (i64 x = r[n - 1].begin; x < r[n - 1].end; ++x)
            f(base + x * strides[n - 1]);
    });
}

/// Calls f(flat) for every element of box b that is not in box p (p empty: all of b), as disjoint slabs.
template <class F>
void forEachNew(const Range* b, const Range* p, bool havePrev, int n, const i64* strides, F&& f)
{
    if (!havePrev) {
        forEachIn(b, n, strides, f);
        return;
    }
    for (int k = 0; k < n; ++k)
        if (intersect(b[k], p[k]).size() == 0) {
            forEachIn(b, n, strides, f);
            return;
        }
    Range slab[cost::kMaxDims];
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < n; ++k)
            slab[k] = k < i ? intersect(b[k], p[k]) : b[k];
        // Along axis i: the parts of b before and after p.
        slab[i] = Range{b[i].begin, std::min(b[i].end, p[i].begin)};
        forEachIn(slab, n, strides, f);
        slab[i] = Range{std::max(b[i].begin, p[i].end), b[i].end};
        forEachIn(slab, n, strides, f);
    }
}

/// Counts DRAM blocks of runs of transferred elements along the lines of a tensor's contiguous dimension:
/// each maximal run of consecutive transferred elements of one line counts ceil(length / block) blocks.
struct RunBlocks
{
    i64 epb = 1;
    i64 len = 0, last = 0, blocks = 0;
    void add(i64 x, bool newLine)
    {
        if (!newLine && len > 0 && x == last + 1) {
            ++len;
        } else {
            gap();
            len = 1;
        }
        last = x;
    }
    void gap()
    {
        if (len > 0) blocks += (len + epb - 1) / epb;
        len = 0;
    }
};

/// Calls f(flat index, index along the contiguous axis, whether a new line starts) for every element of the
/// product of the per-axis range lists `sets`, the contiguous axis `inner` innermost (-1: none, every
/// element a line of its own), the others in axis order.
template <class F>
void forEachInSets(
    const std::vector<std::vector<Range>>& sets, int inner, const std::vector<i64>& strides, F&& f)
{
    const int n = int(sets.size());
    std::vector<std::vector<i64>> idx(static_cast<size_t>(n));
    for (int a = 0; a < n; ++a) {
        for (const Range& r : sets[size_t(a)])
            for (i64 x = r.begin; x < r.end; ++x)
                idx[size_t(a)].push_back(x);
        if (idx[size_t(a)].empty()) return;
    }
    std::vector<int> outer;
    for (int a = 0; a < n; ++a)
        if (a != inner) outer.push_back(a);
    std::vector<size_t> c(outer.size(), 0);
    while (true) {
        i64 base = 0;
        for (size_t j = 0; j < outer.size(); ++j)
            base += idx[size_t(outer[j])][c[j]] * strides[size_t(outer[j])];
        if (inner < 0) {
            f(base, i64(0), true);
        } else {
            bool first = true;
            for (const i64 x : idx[size_t(inner)]) {
                f(base + x * strides[size_t(inner)], x, first);
                first = false;
            }
        }
        size_t j = outer.size();
        while (j > 0) {
            --j;
            if (++c[j] < idx[size_t(outer[j])].size()) break;
            c[j] = 0;
            if (j == 0) return;
        }
        if (outer.empty()) return;
    }
}

} // namespace

struct Simulator::Impl
{
    cost::Problem problem;
    arch::Accelerator acc;
    Limits limits;
    int nd = 0;
    std::vector<std::string> names;
    std::vector<i64> size0;
    std::vector<Window> windows;
    std::vector<int> refWindow; ///< per dim: the window whose reference dimension it is
    std::vector<Axis> iter; ///< iteration space: tensor dimensions but references, plus window outputs
    std::vector<i64> iterSize, iterStride;
    i64 iterElements = 1;
    std::vector<Tensor> tensors;
    int nInputs = 0;
    std::vector<Level> lv;
    Layout lay;

    // Per run.
    std::vector<std::uint64_t> macBits;
    i64 distinct = 0, executed = 0;
    std::uint32_t round = 0;
    Totals totals;
    const FrameSink* sink = nullptr;
    const ProgressFn* progress = nullptr;
    i64 first = 0, count = 0;
    std::deque<Frame> pending; ///< frames [pendingBase, ...) of the requested window not yet delivered
    i64 pendingBase = 0;
    bool stopped = false;

    void compile(const mdc::Dataflow& dataflow, bool allocate = true);
    void checkSize();
    Range outputRange(const Box& box, const Window& w) const;
    Range axisRange(const Box& box, const Axis& a) const
    {
        return a.window >= 0 ? outputRange(box, windows[size_t(a.window)]) : box[size_t(a.dim)];
    }
    i64 macCount(const Box& box) const;
    void markMacs(const Box& box);
    Frame* frameAt(i64 index);
    void flushBefore(i64 index);

    // DRAM traffic of level 0's steps (see simulator.h).
    struct DramTensor
    {
        std::vector<std::uint32_t> stamp; ///< per element: the last executed step holding it in L2 (0: none)
        std::vector<std::vector<Range>> held; ///< per axis: what the last executed step held
        int inner = -1; ///< contiguous axis in DRAM (-1: none)
    };
    std::vector<DramTensor> dram;
    std::uint32_t dramStepId = 0;
    /// The level whose sends and returns are the L2's reads and updates: the outermost one with more than
    /// one busy sub-unit (the levels above it are the whole array, which has no buffer of its own).
    int gbLevel = 0;
    /// The L2's reads and updates, counted from every PE's tiles frame by frame (cost::PeFetchCounter); each
    /// execution's timing still starts from empty buffers.
    cost::PeFetchCounter gb;
    std::vector<cost::AxisSpan> gbTiles; ///< scratch: one PE's tiles, tensor after tensor
    i64 lastStepCycles = 0, lastStepMoved = 0; ///< the last executed step of level 0: on-chip time, DRAM
    i64 dramStep(const std::vector<Box>& box, const std::vector<char>& valid, const std::vector<i64>& work);
    i64 dramFinish();
    i64 runLevel(int l, const Box& region, i64 frameOffset, i64 peBase, i64& framesOut);
    Totals run(const FrameSink& s, i64 firstFrame, i64 frameCount, const ProgressFn& p);
};

// ------------------------------------------------------------------------------------------------
// Compilation

void Simulator::Impl::compile(const mdc::Dataflow& dataflow, bool allocate)
{
    cost::Options options;
    options.fidelity = cost::Fidelity::Corrected; // true strided tiles: the directives' real meaning
    cost::Evaluator evaluator(problem, acc, options);
    const auto levels = evaluator.completedLevels(dataflow);

    nd = int(problem.dims.size());
    for (const auto& d : problem.dims) {
        names.push_back(d.name);
        size0.push_back(d.size);
    }
    refWindow.assign(size_t(nd), -1);
    auto id = [&](const std::string& n) { return evaluator.dimId(n); };
    for (const auto& w : problem.windows) {
        Window x;
        x.ref = id(w.reference);
        x.slide = id(w.sliding);
        x.out = id(w.output);
        x.stride = std::max<i64>(w.stride, 1);
        x.dilation = std::max<i64>(w.dilation, 1);
        const auto& od = problem.dims[size_t(x.out)];
        const i64 span = (size0[size_t(x.slide)] - 1) * x.dilation + 1;
        x.outExtent = od.declared
            ? od.size
            : (size0[size_t(x.ref)] < span ? 0 : (size0[size_t(x.ref)] - span) / x.stride + 1);
        refWindow[size_t(x.ref)] = int(windows.size());
        windows.push_back(x);
    }
    auto axisOf = [&](const std::string& n) {
        Axis a;
        a.dim = id(n);
        for (size_t w = 0; w < windows.size(); ++w)
            if (windows[w].out == a.dim) {
                a.window = int(w);
                a.dim = windows[w].ref;
            }
        return a;
    };
    auto axisSize = [&](const Axis& a) {
        return a.window >= 0 ? windows[size_t(a.window)].outExtent : size0[size_t(a.dim)];
    };
    auto axisName = [&](const Axis& a) {
        return a.window >= 0 ? names[size_t(windows[size_t(a.window)].out)] : names[size_t(a.dim)];
    };
    // Tensors in the cost model's order: input-class first, the output last.
    std::vector<const cost::ProblemTensor*> order;
    for (const auto& t : problem.tensors)
        if (t.role == cost::ProblemTensor::Role::Input) order.push_back(&t);
    nInputs = int(order.size());
    order.push_back(problem.output());
    std::vector<bool> tensorDim(size_t(nd), false);
    for (const auto* t : order) {
        Tensor x;
        x.name = t->name;
        x.output = t->role == cost::ProblemTensor::Role::Output;
        TensorInfo info{t->name, x.output, {}};
        for (const auto& n : t->dims) {
            Axis a = axisOf(n);
            x.axes.push_back(a);
            x.sizes.push_back(axisSize(a));
            info.dims.push_back(axisName(a));
            tensorDim[size_t(a.dim)] = true;
        }
        dram.push_back(DramTensor{});
        dram.back().inner = t->contiguousDim();
        x.strides.assign(x.axes.size(), 1);
        for (size_t k = x.axes.size(); k-- > 0;) {
            x.strides[k] = x.elements;
            x.elements = satMul(x.elements, x.sizes[k]);
        }
        tensors.push_back(std::move(x));
        lay.tensors.push_back(std::move(info));
    }
    // Iteration space: every tensor dimension that is not a window's reference, then the window outputs.
    for (int dmn = 0; dmn < nd; ++dmn)
        if (tensorDim[size_t(dmn)] && refWindow[size_t(dmn)] < 0) iter.push_back(Axis{dmn, -1});
    for (size_t w = 0; w < windows.size(); ++w) {
        if (!tensorDim[size_t(windows[w].slide)]) iter.push_back(Axis{windows[w].slide, -1});
        iter.push_back(Axis{windows[w].ref, int(w)});
    }
    for (const auto& a : iter)
        iterSize.push_back(axisSize(a));
    iterStride.assign(iter.size(), 1);
    for (size_t k = iter.size(); k-- > 0;) {
        iterStride[k] = iterElements;
        iterElements = satMul(iterElements, iterSize[k]);
    }

    // Levels and the cluster hierarchy.
    lay.layer = problem.name;
    std::vector<std::vector<std::string>> user(1);
    for (const auto& dir : dataflow) {
        if (dir.kind == mdc::Directive::Kind::Cluster)
            user.emplace_back();
        else
            user.back().push_back(dir.toString());
    }
    for (const auto& c : levels) {
        Level L;
        L.P = c.subUnits;
        for (const auto& dir : c.directives)
            L.d.push_back(Dir{dir.kind == mdc::Directive::Kind::SpatialMap, dir.dim, dir.size, dir.offset});
        lv.push_back(std::move(L));
    }
    i64 pes = 1;
    for (size_t l = lv.size(); l-- > 0;) {
        lv[l].pesPerSub = pes;
        pes *= lv[l].P;
    }
    lay.pes = pes;
    for (size_t l = 0; l < lv.size(); ++l) {
        LevelInfo info;
        info.subUnits = lv[l].P;
        info.pesPerSubUnit = lv[l].pesPerSub;
        info.pesPerUnit = lv[l].P * lv[l].pesPerSub;
        info.units = pes / info.pesPerUnit;
        for (const auto& dir : lv[l].d) {
            // Window references read better by their output name when the user wrote outputs (operators).
            const std::string& dim = names[size_t(dir.dim)];
            info.directives.push_back((dir.spatial ? mdc::Directive::spatial(dir.sz, dir.of, dim)
                                                   : mdc::Directive::temporal(dir.sz, dir.of, dim))
                                          .toString());
        }
        if (l < user.size()) info.userDirectives = user[l];
        lay.levels.push_back(std::move(info));
    }
    checkSize();
    if (!allocate) return;
    for (auto& t : tensors) {
        t.stamp.assign(size_t(t.elements), 0);
        t.count.assign(size_t(t.elements), 0);
    }
}

// ------------------------------------------------------------------------------------------------
// DRAM

// One executed step of level 0: what enters L2 and what leaves it, per tensor; returns the elements moved.
i64 Simulator::Impl::dramStep(
    const std::vector<Box>& box, const std::vector<char>& valid, const std::vector<i64>& work)
{
    const std::uint32_t prevId = dramStepId, id = ++dramStepId;
    const i64 epb = std::max<i64>(1, acc.dramBlockBytes / std::max<i64>(1, acc.bytesPerElement));
    const i64 blockBytes = epb * std::max<i64>(1, acc.bytesPerElement);
    i64 moved = 0;
    for (size_t t = 0; t < tensors.size(); ++t) {
        Tensor& T = tensors[t];
        DramTensor& D = dram[t];
        TensorTotals& tot = totals.tensors[t];
        std::vector<std::vector<Range>> held(T.axes.size());
        for (size_t a = 0; a < T.axes.size(); ++a) {
            std::vector<Range>& h = held[a];
            for (size_t u = 0; u < box.size(); ++u) {
                if (!valid[u] || (T.output && work[u] == 0)) continue;
                const Range r = axisRange(box[u], T.axes[a]);
                if (r.size() > 0) h.push_back(r);
            }
            std::sort(h.begin(), h.end(), [](Range x, Range y) { return x.begin < y.begin; });
            size_t out = 0;
            for (const Range& r : h) {
                if (out > 0 && r.begin <= h[out - 1].end)
                    h[out - 1].end = std::max(h[out - 1].end, r.end);
                else
                    h[out++] = r;
            }
            h.resize(out);
        }
        i64 enter = 0, fresh = 0, leave = 0;
        RunBlocks enterRuns{epb}, freshRuns{epb}, leaveRuns{epb};
        forEachInSets(held, D.inner, T.strides, [&](i64 e, i64 x, bool line) {
            std::uint32_t& st = D.stamp[size_t(e)];
            if (line) {
                enterRuns.gap();
                freshRuns.gap();
            }
            if (prevId == 0 || st != prevId) {
                ++enter;
                enterRuns.add(x, line);
            } else {
                enterRuns.gap();
            }
            if (st == 0) {
                ++fresh;
                freshRuns.add(x, line);
            } else {
                freshRuns.gap();
            }
            st = id;
        });
        enterRuns.gap();
        freshRuns.gap();
        if (prevId != 0)
            forEachInSets(D.held, D.inner, T.strides, [&](i64 e, i64 x, bool line) {
                if (line) leaveRuns.gap();
                if (D.stamp[size_t(e)] != id) {
                    ++leave;
                    leaveRuns.add(x, line);
                } else {
                    leaveRuns.gap();
                }
            });
        leaveRuns.gap();
        D.held = std::move(held);
        if (T.output) {
            tot.dramReads += enter - fresh;
            tot.dramReadBytes += (enterRuns.blocks - freshRuns.blocks) * blockBytes;
            tot.dramWrites += leave;
            tot.dramWriteBytes += leaveRuns.blocks * blockBytes;
            moved += enter - fresh + leave;
        } else {
            tot.dramReads += enter;
            tot.dramReadBytes += enterRuns.blocks * blockBytes;
            moved += enter;
        }
    }
    return moved;
}

// After the last step of level 0: its outputs are written back. Returns the elements written.
i64 Simulator::Impl::dramFinish()
{
    if (dramStepId == 0) return 0;
    const i64 epb = std::max<i64>(1, acc.dramBlockBytes / std::max<i64>(1, acc.bytesPerElement));
    const i64 blockBytes = epb * std::max<i64>(1, acc.bytesPerElement);
    const size_t o = tensors.size() - 1;
    RunBlocks runs{epb};
    i64 n = 0;
    forEachInSets(dram[o].held, dram[o].inner, tensors[o].strides, [&](i64, i64 x, bool line) {
        ++n;
        runs.add(x, line);
    });
    runs.gap();
    totals.tensors[o].dramWrites += n;
    totals.tensors[o].dramWriteBytes += runs.blocks * blockBytes;
    return n;
}

// Refuses simulations that would take too long or too much memory, saying what to shrink.
void Simulator::Impl::checkSize()
{
    // Upper bound of the frames: every level's tile count at its static extents (edges only shrink it).
    struct Factor
    {
        int level;
        int dim;
        i64 tiles;
    };
    std::vector<Factor> factors;
    std::vector<i64> ext(size0);
    i64 frames = 1;
    for (size_t l = 0; l < lv.size(); ++l) {
        std::vector<i64> next(ext);
        for (const auto& dir : lv[l].d) {
            i64 k = tileCount(dir.sz, dir.of, ext[size_t(dir.dim)]);
            if (dir.spatial) k = (k + lv[l].P - 1) / lv[l].P;
            frames = satMul(frames, std::max<i64>(k, 1));
            factors.push_back(Factor{int(l), dir.dim, k});
            next[size_t(dir.dim)] = std::min(dir.sz, ext[size_t(dir.dim)]);
        }
        ext = next;
    }
    lay.frameBound = frames;
    gbLevel = int(lv.size()) - 1;
    {
        std::vector<i64> e(size0);
        for (size_t l = 0; l < lv.size(); ++l) {
            i64 busy = 1;
            for (const auto& dir : lv[l].d)
                if (dir.spatial)
                    busy = std::max(busy, std::min(lv[l].P, tileCount(dir.sz, dir.of, e[size_t(dir.dim)])));
            if (busy > 1) {
                gbLevel = int(l);
                break;
            }
            for (const auto& dir : lv[l].d)
                e[size_t(dir.dim)] = std::min(dir.sz, e[size_t(dir.dim)]);
        }
    }
    const i64 peSteps = satMul(frames, lay.pes);
    auto dimLabel = [&](int dmn, i64& size) {
        if (refWindow[size_t(dmn)] >= 0) {
            const Window& w = windows[size_t(refWindow[size_t(dmn)])];
            if (problem.dims[size_t(w.out)].declared) {
                size = w.outExtent;
                return names[size_t(w.out)];
            }
        }
        size = size0[size_t(dmn)];
        return names[size_t(dmn)];
    };
    std::vector<Diagnostic> problems;
    auto refuse = [&](std::string message) {
        Diagnostic d;
        d.file = problem.file;
        d.loc = problem.loc;
        d.message = "layer '" + problem.name + "': " + std::move(message);
        problems.push_back(std::move(d));
    };
    if (peSteps > limits.maxPeSteps) {
        const i64 need = (peSteps + limits.maxPeSteps - 1) / limits.maxPeSteps; // shrink factor
        std::sort(factors.begin(), factors.end(),
            [](const Factor& a, const Factor& b) { return a.tiles > b.tiles; });
        std::string advice;
        i64 got = 1;
        for (const auto& f : factors) {
            if (got >= need || f.tiles <= 1) break;
            const i64 want = std::min(f.tiles, (need + got - 1) / got);
            got = satMul(got, want);
            i64 size = 0;
            std::string name = dimLabel(f.dim, size);
            advice += advice.empty() ? "" : ", ";
            if (f.level == 0)
                advice += "shrink " + name + " from " + std::to_string(size) + " to at most "
                    + std::to_string(std::max<i64>(1, size / want));
            else
                advice += "cut the " + std::to_string(f.tiles) + " tiles of " + name + " in cluster level "
                    + std::to_string(f.level) + " by " + std::to_string(want) + "x";
        }
        if (got < need) advice += (advice.empty() ? "" : ", and ") + std::string("use fewer PEs");
        refuse("too large to simulate: up to " + std::to_string(frames) + " steps x "
            + std::to_string(lay.pes) + " PEs = " + std::to_string(peSteps) + " PE-steps (limit "
            + std::to_string(limits.maxPeSteps) + "; " + std::to_string(need) + "x too many): " + advice);
    }
    auto largestDim = [&](const std::vector<Axis>& axes, const std::vector<i64>& sizes, i64 need) {
        size_t best = 0;
        for (size_t k = 1; k < axes.size(); ++k)
            if (sizes[k] > sizes[best]) best = k;
        if (axes.empty()) return std::string();
        i64 size = sizes[best];
        std::string name = axes[best].window >= 0 ? names[size_t(windows[size_t(axes[best].window)].out)]
                                                  : names[size_t(axes[best].dim)];
        return "shrink " + name + " from " + std::to_string(size) + " to at most "
            + std::to_string(std::max<i64>(1, size / need));
    };
    if (iterElements > limits.maxIterations) {
        const i64 need = (iterElements + limits.maxIterations - 1) / limits.maxIterations;
        refuse("too large to simulate: " + std::to_string(iterElements) + " operator iterations (limit "
            + std::to_string(limits.maxIterations) + "): " + largestDim(iter, iterSize, need));
    }
    for (const auto& t : tensors)
        if (t.elements > limits.maxTensorElements) {
            const i64 need = (t.elements + limits.maxTensorElements - 1) / limits.maxTensorElements;
            refuse("too large to simulate: tensor " + t.name + " has " + std::to_string(t.elements)
                + " elements (limit " + std::to_string(limits.maxTensorElements)
                + "): " + largestDim(t.axes, t.sizes, need));
        }
    if (!problems.empty()) throw InputError(std::move(problems));
}

// ------------------------------------------------------------------------------------------------
// Geometry

// Output indices o of window w whose taps held (the slide range) all read rows inside the held rows.
Range Simulator::Impl::outputRange(const Box& box, const Window& w) const
{
    const Range r = box[size_t(w.ref)];
    const Range s = box[size_t(w.slide)];
    const cost::OutputSpan o
        = cost::windowOutputs(r.begin, r.end, s.begin, s.end, w.stride, w.dilation, w.outExtent);
    return Range{o.begin, o.end};
}

i64 Simulator::Impl::macCount(const Box& box) const
{
    i64 n = 1;
    for (const auto& a : iter)
        n *= axisRange(box, a).size();
    return n;
}

void Simulator::Impl::markMacs(const Box& box)
{
    Range r[cost::kMaxDims];
    const int n = int(iter.size());
    for (int k = 0; k < n; ++k)
        r[k] = axisRange(box, iter[size_t(k)]);
    if (n == 0) return;
    // Rows along the last axis are contiguous bits.
    forEachRow(r, n, iterStride.data(), [&](i64 base) {
        i64 a = base + r[n - 1].begin, b = base + r[n - 1].end;
        while (a < b) {
            const i64 word = a >> 6;
            const int lo = int(a & 63);
            const int hi = int(std::min<i64>(b - (word << 6), 64));
            const std::uint64_t mask = (hi == 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << hi) - 1))
                & ~((std::uint64_t(1) << lo) - 1);
            auto& w = macBits[size_t(word)];
            distinct += std::popcount(mask & ~w);
            w |= mask;
            a = (word + 1) << 6;
        }
    });
}

// ------------------------------------------------------------------------------------------------
// Frames

Frame* Simulator::Impl::frameAt(i64 index)
{
    if (!sink || index < first || index - first >= count || index < pendingBase) return nullptr;
    while (pendingBase + i64(pending.size()) <= index) {
        Frame f;
        f.index = pendingBase + i64(pending.size());
        f.levels.assign(lv.size(), StepDelays{});
        f.pes.resize(size_t(lay.pes));
        for (auto& pe : f.pes) {
            pe.tensors.resize(tensors.size());
            for (size_t t = 0; t < tensors.size(); ++t)
                pe.tensors[t].ranges.assign(tensors[t].axes.size(), Range{});
        }
        pending.push_back(std::move(f));
    }
    return &pending[size_t(index - pendingBase)];
}

void Simulator::Impl::flushBefore(i64 index)
{
    while (!pending.empty() && pendingBase < index) {
        if (!stopped && !(*sink)(pending.front())) stopped = true;
        pending.pop_front();
        ++pendingBase;
    }
    if (pending.empty()) pendingBase = std::max(pendingBase, std::max(first, index));
}

// ------------------------------------------------------------------------------------------------
// Execution

i64 Simulator::Impl::runLevel(int l, const Box& region, i64 frameOffset, i64 peBase, i64& framesOut)
{
    const Level& L = lv[size_t(l)];
    const bool top = l == 0;
    const bool innermost = l + 1 == int(lv.size());
    const int n = int(L.d.size());
    const int nt = int(tensors.size());
    framesOut = 0;
    std::vector<i64> tiles(static_cast<size_t>(n)), positions(static_cast<size_t>(n));
    i64 total = 1;
    for (int j = 0; j < n; ++j) {
        const Dir& dir = L.d[size_t(j)];
        tiles[size_t(j)] = tileCount(dir.sz, dir.of, region[size_t(dir.dim)].size());
        positions[size_t(j)] = dir.spatial ? (tiles[size_t(j)] + L.P - 1) / L.P : tiles[size_t(j)];
        total *= positions[size_t(j)];
    }
    if (total == 0) return 0;

    const i64 H = acc.nocLatency, BW = acc.nocBandwidth;
    auto delay = [&](i64 elems) { return H + (elems + BW - 1) / BW - 1; };
    const size_t P = size_t(L.P);
    std::vector<Box> box(P), prev(P);
    std::vector<char> valid(P, 0), hadPrev(P, 0);
    std::vector<i64> work(P, 0);
    std::vector<i64> idx(size_t(n), 0);
    std::vector<i64> unionIn(size_t(nt), 0), sumIn(size_t(nt), 0);
    // A NoC that multicasts identical tiles only sends each sub-unit its own tile of a tensor this level's
    // spatial maps index; one without multicast sends every copy.
    std::vector<char> everyCopy(size_t(nInputs), 0);
    for (int t = 0; t < nInputs; ++t) {
        bool spatiallyIndexed = false;
        for (const auto& dir : L.d)
            for (const auto& ax : tensors[size_t(t)].axes)
                spatiallyIndexed = spatiallyIndexed || (dir.spatial && ax.window < 0 && ax.dim == dir.dim);
        everyCopy[size_t(t)] = acc.multicast == arch::Multicast::None
            || (acc.multicast == arch::Multicast::Tiles && spatiallyIndexed);
    }
    i64 runtime = 0;

    for (i64 s = 0; s < total && !stopped; ++s) {
        {
            i64 rest = s;
            for (int j = n - 1; j >= 0; --j) {
                idx[size_t(j)] = rest % positions[size_t(j)];
                rest /= positions[size_t(j)];
            }
        }
        i64 allWork = 0;
        for (size_t u = 0; u < P; ++u) {
            Box b = region;
            bool ok = true;
            for (int j = 0; j < n && ok; ++j) {
                const Dir& dir = L.d[size_t(j)];
                const i64 k = dir.spatial ? idx[size_t(j)] * L.P + i64(u) : idx[size_t(j)];
                if (k >= tiles[size_t(j)]) {
                    ok = false;
                    break;
                }
                const Range r = region[size_t(dir.dim)];
                b[size_t(dir.dim)]
                    = Range{r.begin + k * dir.of, std::min(r.begin + k * dir.of + dir.sz, r.end)};
            }
            valid[u] = ok;
            box[u] = b;
            work[u] = ok ? macCount(b) : 0;
            allWork += work[u];
        }
        if (allWork == 0) continue; // nothing to compute anywhere: the step is not executed

        const i64 dramMoved = top ? dramStep(box, valid, work) : 0;
        const i64 frameHere = frameOffset + framesOut;
        const bool wantFrame = innermost && frameAt(frameHere) != nullptr;
        Frame* frame = wantFrame ? frameAt(frameHere) : nullptr;

        // Ingress of every input-class tensor: what each sub-unit lacks, multicast once per step.
        Range tb[cost::kMaxDims], pb[cost::kMaxDims];
        i64 allIn = 0;
        for (int t = 0; t < nInputs; ++t) {
            Tensor& T = tensors[size_t(t)];
            const int na = int(T.axes.size());
            const std::uint32_t rd = ++round;
            i64 uni = 0, sum = 0;
            for (size_t u = 0; u < P; ++u) {
                if (!valid[u]) continue;
                for (int k = 0; k < na; ++k) {
                    tb[k] = axisRange(box[u], T.axes[size_t(k)]);
                    pb[k] = hadPrev[u] ? axisRange(prev[u], T.axes[size_t(k)]) : Range{};
                }
                i64 arrived = 0;
                forEachNew(tb, pb, hadPrev[u], na, T.strides.data(), [&](i64 e) {
                    auto& st = T.stamp[size_t(e)];
                    if (st != rd) {
                        st = rd;
                        T.count[size_t(e)] = 0;
                        ++uni;
                    }
                    ++T.count[size_t(e)];
                    ++arrived;
                });
                sum += arrived;
                if (frame) {
                    TensorState& ts = frame->pes[size_t(peBase + i64(u))].tensors[size_t(t)];
                    i64 held = 1, stayed = hadPrev[u] ? 1 : 0;
                    for (int k = 0; k < na; ++k) {
                        ts.ranges[size_t(k)] = tb[k];
                        held *= tb[k].size();
                        stayed *= intersect(tb[k], pb[k]).size();
                    }
                    ts.held = held;
                    ts.arrived = arrived;
                    ts.stayed = stayed;
                }
            }
            if (frame) // the fan-out needs every receiver counted first
                for (size_t u = 0; u < P; ++u) {
                    if (!valid[u]) continue;
                    for (int k = 0; k < na; ++k) {
                        tb[k] = axisRange(box[u], T.axes[size_t(k)]);
                        pb[k] = hadPrev[u] ? axisRange(prev[u], T.axes[size_t(k)]) : Range{};
                    }
                    i64 fan = 0;
                    forEachNew(tb, pb, hadPrev[u], na, T.strides.data(),
                        [&](i64 e) { fan = std::max<i64>(fan, T.count[size_t(e)]); });
                    frame->pes[size_t(peBase + i64(u))].tensors[size_t(t)].fanout = fan;
                }
            if (everyCopy[size_t(t)]) uni = sum;
            unionIn[size_t(t)] = uni;
            sumIn[size_t(t)] = sum;
            allIn += uni;
        }
        // Egress: partial sums of every working sub-unit, reduced per output element.
        i64 out = 0;
        {
            Tensor& T = tensors[size_t(nt - 1)];
            const int na = int(T.axes.size());
            const std::uint32_t rd = ++round;
            for (size_t u = 0; u < P; ++u) {
                if (!valid[u] || work[u] == 0) continue;
                for (int k = 0; k < na; ++k)
                    tb[k] = axisRange(box[u], T.axes[size_t(k)]);
                forEachIn(tb, na, T.strides.data(), [&](i64 e) { out += T.firstInRound(e, rd); });
            }
            if (frame)
                for (size_t u = 0; u < P; ++u) {
                    if (!valid[u]) continue;
                    TensorState& ts = frame->pes[size_t(peBase + i64(u))].tensors[size_t(nt - 1)];
                    i64 held = 1;
                    for (int k = 0; k < na; ++k) {
                        ts.ranges[size_t(k)] = axisRange(box[u], T.axes[size_t(k)]);
                        held *= ts.ranges[size_t(k)].size();
                    }
                    ts.held = held;
                    ts.sent = work[u] > 0 ? held : 0;
                }
        }

        // Compute: the busiest PE, or the slowest sub-cluster's whole execution.
        i64 comp = 0, stepFrames = 0;
        if (innermost) {
            stepFrames = 1;
            for (size_t u = 0; u < P; ++u) {
                if (!valid[u]) continue;
                comp = std::max(comp, (work[u] + acc.simdLanes - 1) / acc.simdLanes);
                executed += work[u];
                markMacs(box[u]);
                if (frame) {
                    PeState& pe = frame->pes[size_t(peBase + i64(u))];
                    pe.active = true;
                    pe.macs = work[u];
                }
            }
            for (int t = 0; t < nInputs; ++t)
                totals.tensors[size_t(t)].l1Writes += sumIn[size_t(t)];
            // The frame's tiles of every PE for the global buffer's count (a PE past the last tile holds
            // none).
            for (size_t u = 0; u < P; ++u) {
                gbTiles.clear();
                for (const Tensor& T : tensors)
                    for (const Axis& a : T.axes) {
                        const Range r = valid[u] ? axisRange(box[u], a) : Range{};
                        gbTiles.push_back(cost::AxisSpan{r.begin, r.end});
                    }
                gb.add(frameHere, peBase + i64(u), valid[u] != 0, work[u] > 0, gbTiles.data());
            }
        } else {
            for (size_t u = 0; u < P && !stopped; ++u) {
                if (!valid[u]) continue;
                i64 childFrames = 0;
                comp = std::max(
                    comp, runLevel(l + 1, box[u], frameHere, peBase + i64(u) * L.pesPerSub, childFrames));
                stepFrames = std::max(stepFrames, childFrames);
            }
        }
        const i64 din = delay(allIn), dout = delay(out);
        i64 t = s == 0 ? comp + din : std::max({dout, comp, din});
        if (top) {
            // The step's DRAM traffic at the off-chip bandwidth, overlapped with its on-chip time (see
            // "DRAM" in simulator.h); the last step's also takes the final write-back (run()).
            const i64 off = acc.offchipBandwidth;
            lastStepCycles = t;
            lastStepMoved = dramMoved;
            t = std::max(t, (dramMoved + off - 1) / off);
            ++totals.steps;
        }
        if (l == gbLevel) gb.flush(); // every frame of this step is recorded: later steps' come later
        runtime += t;
        for (i64 f = frameHere; f < frameHere + stepFrames; ++f)
            if (Frame* fr = frameAt(f)) {
                StepDelays& sd = fr->levels[size_t(l)];
                if (sd.step < 0) sd.step = s;
                sd.begins = sd.begins || f == frameHere;
                sd.ingress = std::max(sd.ingress, din);
                sd.compute = std::max(sd.compute, comp);
                sd.egress = std::max(sd.egress, dout);
                sd.cycles = std::max(sd.cycles, t);
            }
        for (size_t u = 0; u < P; ++u) {
            hadPrev[u] = valid[u];
            prev[u] = box[u];
        }
        framesOut += stepFrames;
        if (top) {
            if (sink) flushBefore(frameOffset + framesOut);
            if (progress && *progress) (*progress)(s + 1, total);
        }
    }
    return runtime;
}

Totals Simulator::Impl::run(const FrameSink& s, i64 firstFrame, i64 frameCount, const ProgressFn& p)
{
    totals = Totals{};
    for (const auto& t : tensors)
        totals.tensors.push_back(TensorTotals{t.name, t.output, t.elements});
    dramStepId = 0;
    {
        std::vector<std::vector<i64>> extents;
        for (const auto& t : tensors)
            extents.push_back(t.sizes);
        gb.reset(extents, lay.pes, acc.multicast);
    }
    for (size_t t = 0; t < tensors.size(); ++t) {
        dram[t].stamp.assign(size_t(tensors[t].elements), 0);
        dram[t].held.clear();
    }
    macBits.assign(size_t((iterElements + 63) / 64), 0);
    distinct = executed = 0;
    sink = s ? &s : nullptr;
    progress = &p;
    first = std::max<i64>(firstFrame, 0);
    count = std::max<i64>(frameCount, 0);
    pending.clear();
    pendingBase = first;
    stopped = false;
    Box region{};
    for (int dmn = 0; dmn < nd; ++dmn)
        region[size_t(dmn)] = Range{0, size0[size_t(dmn)]};
    i64 frames = 0;
    totals.runtimeCycles = runLevel(0, region, 0, 0, frames);
    if (!stopped) {
        gb.finish();
        for (int t = 0; t < nInputs; ++t)
            totals.tensors[size_t(t)].l2Reads = gb.reads(t);
        totals.tensors.back().l2Writes = gb.updates();
    }
    if (!stopped && dramStepId > 0) {
        const i64 off = acc.offchipBandwidth, written = dramFinish();
        totals.runtimeCycles += std::max(lastStepCycles, (lastStepMoved + written + off - 1) / off)
            - std::max(lastStepCycles, (lastStepMoved + off - 1) / off);
    }
    if (sink) flushBefore(std::numeric_limits<i64>::max());
    totals.frames = frames;
    totals.peSteps = frames * lay.pes;
    totals.macs = distinct;
    totals.recomputedMacs = executed - distinct;
    totals.tensors.back().l1Writes = executed;
    sink = nullptr;
    progress = nullptr;
    return totals;
}

// ------------------------------------------------------------------------------------------------
// Public API

Simulator::Simulator(
    const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc, Limits limits)
    : d(std::make_unique<Impl>())
{
    d->problem = problem;
    d->acc = cost::executionUnit(problem, acc);
    d->limits = limits;
    d->compile(dataflow);
}

Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

const Layout& Simulator::layout() const
{
    return d->lay;
}

Totals Simulator::run(
    const FrameSink& sink, std::int64_t first, std::int64_t count, const ProgressFn& progress)
{
    return d->run(sink, first, count, progress);
}

std::vector<Frame> Simulator::frames(std::int64_t first, std::int64_t count)
{
    std::vector<Frame> out;
    d->run(
        [&](const Frame& f) {
            out.push_back(f);
            return i64(out.size()) < count;
        },
        first, count, {});
    return out;
}

Energy energyOf(const Totals& totals, const arch::Accelerator& acc)
{
    const double executed = double(totals.macs + totals.recomputedMacs);
    // Reads and writes apart, as the cost model charges them (a technology table prices them apart); the
    // sums are exact in a double, so equal energies give MAESTRO's products bit for bit.
    double l1Reads = 0.0, l1Writes = 0.0, l2Reads = 0.0, l2Writes = 0.0, noc = 0.0, dram = 0.0;
    for (const TensorTotals& t : totals.tensors) {
        if (t.output) {
            l1Reads += executed;
            l1Writes += executed;
            l2Writes += double(t.l2Writes);
            l2Reads += double(t.elements);
            noc += double(t.l2Writes);
        } else {
            l1Writes += double(t.l1Writes);
            l1Reads += executed;
            l2Reads += double(t.l2Reads);
            l2Writes += double(t.elements);
            noc += double(t.l2Reads);
        }
        dram += double(t.dramReads + t.dramWrites);
    }
    Energy e;
    e.mac = acc.energy.mac * executed;
    e.l1 = acc.energy.l1Energy(l1Reads, l1Writes);
    e.l2 = acc.energy.l2Energy(l2Reads, l2Writes);
    e.noc = acc.energy.nocElement * noc;
    e.dram = acc.energy.dramAccess * dram;
    return e;
}

Totals simulate(const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc,
    const FrameSink& sink, Limits limits)
{
    return Simulator(problem, dataflow, acc, limits).run(sink);
}

void Simulator::check(
    const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc, Limits limits)
{
    Impl impl;
    impl.problem = problem;
    impl.acc = cost::executionUnit(problem, acc);
    impl.limits = limits;
    impl.compile(dataflow, false);
}

std::optional<ShrunkenLayer> shrunkenCopy(
    const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc, Limits limits)
{
    ShrunkenLayer out{problem, {}};
    cost::Problem& p = out.problem;
    auto index = [&](const std::string& name) {
        for (size_t i = 0; i < p.dims.size(); ++i)
            if (p.dims[i].name == name) return int(i);
        return -1;
    };
    // What can shrink: plain dimensions, and each window as one unit (its outputs halve, its rows follow);
    // the taps stay, a window needs them all.
    struct Unit
    {
        int dim = -1; ///< the dimension directives act on (a window's reference rows)
        int shown = -1; ///< the dimension the user reads (a window's declared side)
        const cost::SlidingWindow* window = nullptr;
    };
    std::vector<Unit> units;
    std::vector<bool> inWindow(p.dims.size(), false);
    for (const cost::SlidingWindow& w : p.windows) {
        const int ref = index(w.reference), slide = index(w.sliding), o = index(w.output);
        if (ref < 0 || slide < 0 || o < 0) return std::nullopt;
        inWindow[size_t(ref)] = inWindow[size_t(slide)] = inWindow[size_t(o)] = true;
        units.push_back({ref, p.dims[size_t(o)].declared ? o : ref, &w});
    }
    for (size_t i = 0; i < p.dims.size(); ++i)
        if (!inWindow[i]) units.push_back({int(i), int(i), nullptr});
    const std::vector<std::int64_t> before = [&] {
        std::vector<std::int64_t> s;
        for (const auto& d : problem.dims)
            s.push_back(d.size);
        return s;
    }();
    auto span = [&](const cost::SlidingWindow& w) {
        return (p.dims[size_t(index(w.sliding))].size - 1) * std::max<i64>(w.dilation, 1) + 1;
    };
    auto outputsOf = [&](const Unit& u) {
        const cost::SlidingWindow& w = *u.window;
        return std::max<i64>(0, (p.dims[size_t(u.dim)].size - span(w)) / std::max<i64>(w.stride, 1) + 1);
    };
    for (int round = 0; round < 256; ++round) {
        try {
            Simulator::check(p, dataflow, acc, limits);
            for (const Unit& u : units) {
                const auto& d = p.dims[size_t(u.shown)];
                if (d.size == before[size_t(u.shown)]) continue;
                out.shrunk += (out.shrunk.empty() ? "" : ", ") + d.name + " "
                    + std::to_string(before[size_t(u.shown)]) + " -> " + std::to_string(d.size);
            }
            return out;
        } catch (const InputError& e) {
            if (std::string(e.what()).find("too large to simulate") == std::string::npos) return std::nullopt;
        }
        // Halve the unit with the most tiles over the levels (what makes the run long), else the largest.
        cost::Options o;
        o.fidelity = cost::Fidelity::Corrected;
        std::vector<cost::Evaluator::CompletedLevel> levels;
        try {
            levels = cost::Evaluator(p, acc, o).completedLevels(dataflow);
        } catch (const InputError&) {
            return std::nullopt;
        }
        std::vector<i64> ext(p.dims.size()), tiles(p.dims.size(), 1);
        for (size_t i = 0; i < p.dims.size(); ++i)
            ext[i] = p.dims[i].size;
        for (const auto& level : levels) {
            std::vector<i64> next = ext;
            for (const auto& d : level.directives) {
                if (d.dim < 0 || size_t(d.dim) >= ext.size()) continue;
                i64 k = tileCount(d.size, d.offset, ext[size_t(d.dim)]);
                if (d.kind == mdc::Directive::Kind::SpatialMap) k = (k + level.subUnits - 1) / level.subUnits;
                tiles[size_t(d.dim)] = satMul(tiles[size_t(d.dim)], std::max<i64>(k, 1));
                next[size_t(d.dim)] = std::min(d.size, ext[size_t(d.dim)]);
            }
            ext = next;
        }
        const Unit* pick = nullptr;
        i64 bestTiles = 1, bestSize = 1;
        for (const Unit& u : units) {
            const i64 size = u.window ? outputsOf(u) : p.dims[size_t(u.dim)].size;
            if (size <= 1) continue;
            const i64 t = tiles[size_t(u.dim)];
            if (t > bestTiles || (t == bestTiles && size > bestSize)) {
                pick = &u;
                bestTiles = t;
                bestSize = size;
            }
        }
        if (!pick) return std::nullopt; // every dimension is down to one: too many PEs
        if (pick->window) {
            const cost::SlidingWindow& w = *pick->window;
            const i64 outputs = (bestSize + 1) / 2;
            p.dims[size_t(pick->dim)].size = (outputs - 1) * std::max<i64>(w.stride, 1) + span(w);
            p.dims[size_t(index(w.output))].size = outputs;
        } else {
            p.dims[size_t(pick->dim)].size = (bestSize + 1) / 2;
        }
    }
    return std::nullopt;
}

} // namespace marvel::sim
