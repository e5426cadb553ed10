#include "core/cost/dram_traffic.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "core/cost/tile_geometry.h"

namespace marvel::cost::dram {

namespace {

constexpr i64 kMax = std::numeric_limits<i64>::max();
// Tuples a coupled group (or a directive whose tiles do not translate) is enumerated over at most; beyond,
// its positions 0 .. N-2 are taken as translated (an approximation for absurdly long top levels only).
constexpr i64 kEnumLimit = i64(1) << 16;

// Saturating arithmetic: the DRAM counts of absurd mappings cap at 2^63 - 1 instead of wrapping.
struct Arith
{
    bool sat = false;
    i64 mul(i64 a, i64 b)
    {
        i64 r = 0;
        if (__builtin_mul_overflow(a, b, &r)) {
            sat = true;
            return kMax;
        }
        return r;
    }
    i64 add(i64 a, i64 b)
    {
        i64 r = 0;
        if (__builtin_add_overflow(a, b, &r)) {
            sat = true;
            return kMax;
        }
        return r;
    }
};

i64 interSize(const RangeSet& a, const RangeSet& b)
{
    if (a.r.size() == 1 && b.r.size() == 1)
        return std::max<i64>(0, std::min(a.r[0].e, b.r[0].e) - std::max(a.r[0].b, b.r[0].b));
    i64 n = 0;
    size_t i = 0, j = 0;
    while (i < a.r.size() && j < b.r.size()) {
        n += std::max<i64>(0, std::min(a.r[i].e, b.r[j].e) - std::max(a.r[i].b, b.r[j].b));
        if (a.r[i].e < b.r[j].e)
            ++i;
        else
            ++j;
    }
    return n;
}

/// DRAM blocks of the set's runs (each run starts on a block boundary).
i64 runBlocks(const RangeSet& a, i64 epb)
{
    i64 n = 0;
    for (const Range& x : a.r)
        n += ceilDiv(x.size(), epb);
    return n;
}

/// DRAM blocks of the runs of a \ b.
i64 diffBlocks(const RangeSet& a, const RangeSet& b, i64 epb)
{
    i64 n = 0;
    size_t j = 0;
    for (const Range& x : a.r) {
        i64 from = x.b;
        while (j < b.r.size() && b.r[j].e <= from)
            ++j;
        for (size_t k = j; k < b.r.size() && b.r[k].b < x.e; ++k) {
            if (b.r[k].b > from) n += ceilDiv(b.r[k].b - from, epb);
            from = std::max(from, b.r[k].e);
        }
        if (x.e > from) n += ceilDiv(x.e - from, epb);
    }
    return n;
}

/// Sorts and merges overlapping or adjacent ranges (empty ones dropped).
void normalize(RangeSet& s)
{
    if (s.r.size() <= 1) {
        if (s.r.size() == 1 && s.r[0].size() == 0) s.r.clear();
        return;
    }
    std::sort(s.r.begin(), s.r.end(), [](Range a, Range b) { return a.b < b.b; });
    size_t out = 0;
    for (const Range& x : s.r) {
        if (x.size() == 0) continue;
        if (out > 0 && x.b <= s.r[out - 1].e)
            s.r[out - 1].e = std::max(s.r[out - 1].e, x.e);
        else
            s.r[out++] = x;
    }
    s.r.resize(out);
}

/// u = u ∪ a (both normalised), through `tmp`.
void unite(RangeSet& u, const RangeSet& a, RangeSet& tmp)
{
    tmp.r.clear();
    tmp.r.insert(tmp.r.end(), u.r.begin(), u.r.end());
    tmp.r.insert(tmp.r.end(), a.r.begin(), a.r.end());
    normalize(tmp);
    std::swap(u.r, tmp.r);
}

} // namespace

i64 RangeSet::size() const
{
    i64 n = 0;
    for (const Range& x : r)
        n += x.size();
    return n;
}

void Engine::setProblem(int nd, const i64* extents, const std::vector<Window>& windows,
    const std::vector<TensorAxes>& tensors, i64 elementsPerBlock)
{
    m_nd = nd;
    for (int v = 0; v < nd; ++v)
        m_ext[v] = extents[v];
    m_win = windows;
    m_t = tensors;
    m_haveLast = false;
    m_stepMemo.clear();
    m_epb = std::max<i64>(1, elementsPerBlock);
    m_epbShift = -1;
    for (int b = 0; b < 62; ++b)
        if ((i64(1) << b) == m_epb) m_epbShift = b;
    m_sets.resize(size_t(kMaxDirectives + 8) * kMaxAxes);
    m_enumKinds.resize(size_t(4 * kMaxDirectives * kMaxDirectives));
    m_live.resize(kMaxDirectives);
    m_ft.resize(kMaxDirectives);
    m_w.resize(kMaxDirectives);
    m_unit.resize(kMaxDirectives);
    m_cache.resize(kMaxTensors * kMaxAxes);
}

// ------------------------------------------------------------------------------------------------
// Geometry

Range Engine::tile(int k, i64 index) const
{
    const Directive& d = m_d[k];
    const i64 b = index * d.of;
    return Range{b, std::min(b + d.sz, m_ext[d.dim])};
}

i64 Engine::active(const i64* pos) const
{
    i64 a = m_P;
    for (int k = 0; k < m_n; ++k)
        if (m_d[k].spatial) a = std::min(a, m_T[k] - pos[k] * m_P);
    return std::max<i64>(a, 0);
}

Range Engine::rangeOf(int dim, const i64* pos, i64 u) const
{
    const int k = dim >= 0 ? m_dirOf[dim] : -1;
    if (k < 0) return Range{0, dim >= 0 ? m_ext[dim] : 1};
    return m_d[k].spatial ? tile(k, pos[k] * m_P + u) : tile(k, pos[k]);
}

bool Engine::windowLive(int w, const i64* pos, i64 u) const
{
    const Window& x = m_win[size_t(w)];
    const Range rows = rangeOf(x.ref, pos, u), taps = rangeOf(x.slide, pos, u);
    const OutputSpan o = windowOutputs(rows.b, rows.e, taps.b, taps.e, x.stride, x.dilation, x.outExtent);
    return o.end > o.begin;
}

bool Engine::works(const i64* pos, i64 u) const
{
    for (size_t w = 0; w < m_win.size(); ++w)
        if (m_touched[w] && !windowLive(int(w), pos, u)) return false;
    return true;
}

// The range set of dimension `axis` of tensor `t` at one step: the union over the sub-units that hold it
// (the output: over the sub-units that compute, which differ from those with a tile only when a SpatialMap
// moves a window).
void Engine::axisSet(const TensorAxes& t, int axis, const i64* pos, RangeSet& out)
{
    out.r.clear();
    const bool filter = t.output && m_nTouched > 0;
    const int window = t.window[axis];
    if (window < 0) {
        const int dim = t.dim[axis];
        const int k = m_dirOf[dim];
        if (k < 0) {
            out.r.push_back(Range{0, m_ext[dim]});
            return;
        }
        if (!m_d[k].spatial) {
            out.r.push_back(tile(k, pos[k]));
            return;
        }
        const i64 a = active(pos);
        if (!filter && m_d[k].of <= m_d[k].sz) {
            if (a > 0) out.r.push_back(Range{tile(k, pos[k] * m_P).b, tile(k, pos[k] * m_P + a - 1).e});
            return;
        }
        for (i64 u = 0; u < a; ++u)
            if (!filter || works(pos, u)) out.r.push_back(tile(k, pos[k] * m_P + u));
        normalize(out);
        return;
    }
    windowSet(window, pos, out, filter && m_nTouched > 1);
}

// The set of dimension `axis` of `t` at `pos` as one range, without building a range set, when it is one:
// a TemporalMap's tile, a SpatialMap's hull (no gaps, every active sub-unit counted), the outputs of a
// window no SpatialMap moves. False otherwise.
bool Engine::simpleRange(const TensorAxes& t, int axis, const i64* pos, Range& out) const
{
    const int window = t.window[axis];
    if (window < 0) {
        const int k = m_dirOf[t.dim[axis]];
        if (k < 0) return false;
        const Directive& d = m_d[k];
        if (!d.spatial) {
            out = tile(k, pos[k]);
            return true;
        }
        if ((t.output && m_nTouched > 0) || d.of > d.sz) return false;
        const i64 a = active(pos);
        out = a > 0 ? Range{tile(k, pos[k] * m_P).b, tile(k, pos[k] * m_P + a - 1).e} : Range{};
        return true;
    }
    if (m_touched[size_t(window)]) return false;
    const Window& x = m_win[size_t(window)];
    const Range rows = rangeOf(x.ref, pos, 0), taps = rangeOf(x.slide, pos, 0);
    const OutputSpan o = windowOutputs(rows.b, rows.e, taps.b, taps.e, x.stride, x.dilation, x.outExtent);
    out = o.end > o.begin ? Range{o.begin, o.end} : Range{};
    return true;
}

// The outputs of window w its sub-units complete at one step (`filter`: only the sub-units that compute).
void Engine::windowSet(int window, const i64* pos, RangeSet& out, bool filter)
{
    out.r.clear();
    const Window& x = m_win[size_t(window)];
    auto outputs = [&](i64 u) {
        const Range rows = rangeOf(x.ref, pos, u), taps = rangeOf(x.slide, pos, u);
        const OutputSpan o = windowOutputs(rows.b, rows.e, taps.b, taps.e, x.stride, x.dilation, x.outExtent);
        return Range{o.begin, o.end};
    };
    if (!m_touched[size_t(window)]) {
        const Range o = outputs(0);
        if (o.size() > 0) out.r.push_back(o); // no sub-unit computes: the step is not executed at all
        return;
    }
    const i64 a = active(pos);
    if (a <= 0) return;
    // Sub-unit u's rows and taps are u tiles further: unclipped, its outputs move by a fixed shift, so the
    // full tiles' outputs form one range when the shift does not exceed their size, and only the last
    // sub-unit's (possibly partial) tile needs its own look.
    const int kr = x.ref >= 0 ? m_dirOf[x.ref] : -1, ks = x.slide >= 0 ? m_dirOf[x.slide] : -1;
    const i64 dr = kr >= 0 && m_d[kr].spatial ? m_d[kr].of : 0;
    const i64 dt = ks >= 0 && m_d[ks].spatial ? m_d[ks].of : 0;
    const i64 num = dr - x.dilation * dt;
    auto raw = [&](i64 u) {
        const Range rows = rangeOf(x.ref, pos, u), taps = rangeOf(x.slide, pos, u);
        if (rows.size() == 0 || taps.size() == 0) return Range{};
        return Range{ceilDiv(rows.b - x.dilation * taps.b, x.stride),
            floorDiv(rows.e - 1 - x.dilation * (taps.e - 1), x.stride) + 1};
    };
    auto clip = [&](Range r) { return Range{std::max<i64>(r.b, 0), std::min(r.e, x.outExtent)}; };
    if (!filter && num % x.stride == 0) {
        const i64 shift = num / x.stride;
        const Range first = raw(0), last = raw(a - 1);
        const i64 size = first.e - first.b;
        if (a == 1 || size <= 0) {
            const Range o = clip(last);
            if (o.size() > 0) out.r.push_back(o);
            return;
        }
        if (std::abs(shift) <= size) {
            Range full = shift >= 0 ? Range{first.b, first.e + (a - 2) * shift}
                                    : Range{first.b + (a - 2) * shift, first.e};
            Range extra{};
            if (last.e > last.b) {
                if (last.b <= full.e && last.e >= full.b)
                    full = Range{std::min(full.b, last.b), std::max(full.e, last.e)};
                else
                    extra = last;
            }
            for (const Range r : {full, extra}) {
                const Range o = clip(r);
                if (o.size() > 0) out.r.push_back(o);
            }
            normalize(out);
            return;
        }
    }
    for (i64 u = 0; u < a; ++u) {
        if (filter && !works(pos, u)) continue;
        const Range o = outputs(u);
        if (o.size() > 0) out.r.push_back(o);
    }
    normalize(out);
}

bool Engine::groupLive(const Group& g, const i64* pos)
{
    if (g.windows == 0) return true;
    int touched = 0;
    for (size_t w = 0; w < m_win.size(); ++w)
        touched += (g.windows >> w & 1u) && m_touched[w] ? 1 : 0;
    if (touched <= 1) {
        // One window moves per sub-unit at most: the step computes when every window completes an output.
        for (size_t w = 0; w < m_win.size(); ++w)
            if (g.windows >> w & 1u) {
                windowSet(int(w), pos, m_tmp, false);
                if (m_tmp.r.empty()) return false;
            }
        return true;
    }
    const i64 a = active(pos);
    for (i64 u = 0; u < a; ++u) {
        bool all = true;
        for (size_t w = 0; w < m_win.size() && all; ++w)
            if (g.windows >> w & 1u) all = windowLive(int(w), pos, m_touched[w] ? u : 0);
        if (all) return true;
    }
    return false;
}

bool Engine::live(const i64* pos)
{
    ensureGroups();
    if (m_allDead) return false;
    for (int gi = 0; gi < m_nGroups; ++gi)
        if (!groupLive(m_g[gi], pos)) return false;
    return true;
}

// Whether positions 0 .. N-2 of directive k hold translated sets along every dimension it moves: full tiles
// always do; a window's outputs do when the shift is a multiple of the stride and no output range clips at
// the window's output extent.
bool Engine::translates(int k)
{
    const Directive& d = m_d[k];
    const i64 N = m_N[k];
    if (N <= 2) return true;
    const i64 shift = d.of * (d.spatial ? m_P : 1);
    for (size_t w = 0; w < m_win.size(); ++w) {
        const Window& x = m_win[w];
        const bool ref = x.ref == d.dim, slide = x.slide == d.dim;
        if (!ref && !slide && !(d.spatial && m_touched[w])) continue;
        if (ref && shift % x.stride != 0) return false;
        if (slide && (x.dilation * shift) % x.stride != 0) return false;
        for (const i64 p : {i64(0), N - 2}) {
            std::fill(m_pos, m_pos + m_n, 0);
            m_pos[k] = p;
            const i64 a = m_touched[w] ? active(m_pos) : 1;
            for (i64 u = 0; u < a; ++u) {
                const Range rows = rangeOf(x.ref, m_pos, u), taps = rangeOf(x.slide, m_pos, u);
                if (rows.size() == 0 || taps.size() == 0) continue;
                const i64 lo = ceilDiv(rows.b - x.dilation * taps.b, x.stride);
                const i64 hi = floorDiv(rows.e - 1 - x.dilation * (taps.e - 1), x.stride) + 1;
                if (lo < hi && (lo < 0 || hi > x.outExtent)) return false;
            }
        }
    }
    return true;
}

void Engine::buildGroups()
{
    m_grouped = true;
    m_nTouched = 0;
    m_touched.assign(m_win.size(), 0);
    for (size_t w = 0; w < m_win.size(); ++w) {
        const int kr = m_win[w].ref >= 0 ? m_dirOf[m_win[w].ref] : -1;
        const int ks = m_win[w].slide >= 0 ? m_dirOf[m_win[w].slide] : -1;
        m_touched[w] = (kr >= 0 && m_d[kr].spatial) || (ks >= 0 && m_d[ks].spatial);
        m_nTouched += m_touched[w];
    }
    // The spatial group: every SpatialMap with several folds and every loop of a window a SpatialMap moves,
    // coupled through the sub-units a step keeps busy.
    bool inStar[kMaxDirectives] = {};
    int nStar = 0;
    i64 starTuples = 1;
    for (int k = 0; k < m_n; ++k) {
        if (m_N[k] <= 1) continue;
        bool s = m_d[k].spatial;
        for (size_t w = 0; w < m_win.size() && !s; ++w)
            s = m_touched[w] && (m_win[w].ref == m_d[k].dim || m_win[w].slide == m_d[k].dim);
        if (s) {
            inStar[k] = true;
            ++nStar;
            starTuples = starTuples > kEnumLimit ? starTuples : starTuples * m_N[k];
        }
    }
    const bool starTogether = nStar >= 2 && starTuples <= kEnumLimit;
    m_nGroups = 0;
    int starGroup = -1;
    for (int k = 0; k < m_n; ++k) {
        if (inStar[k] && starTogether) {
            if (starGroup < 0) {
                starGroup = m_nGroups++;
                Group& g = m_g[starGroup];
                g = Group{};
                g.spatial = true;
                g.enumerated = true;
            }
            Group& g = m_g[starGroup];
            g.m[g.n++] = k;
            g.tuples *= m_N[k];
            m_groupOf[k] = starGroup;
            continue;
        }
        Group& g = m_g[m_nGroups];
        g = Group{};
        g.n = 1;
        g.m[0] = k;
        g.tuples = m_N[k];
        g.spatial = inStar[k];
        g.enumerated = m_N[k] > 2 && m_N[k] <= kEnumLimit && !translates(k);
        m_groupOf[k] = m_nGroups++;
    }
    m_starGroup = -1;
    for (int gi = 0; gi < m_nGroups && m_starGroup < 0; ++gi)
        if (m_g[gi].spatial) m_starGroup = gi;
    // Windows each group decides the liveness of; the others are constant.
    std::uint32_t owned = 0;
    for (int gi = 0; gi < m_nGroups; ++gi) {
        Group& g = m_g[gi];
        g.windows = 0;
        for (size_t w = 0; w < m_win.size(); ++w) {
            const int kr = m_win[w].ref >= 0 ? m_dirOf[m_win[w].ref] : -1;
            const int ks = m_win[w].slide >= 0 ? m_dirOf[m_win[w].slide] : -1;
            bool mine = g.spatial && m_touched[w];
            for (int i = 0; i < g.n; ++i)
                mine = mine || ((g.m[i] == kr || g.m[i] == ks) && m_N[g.m[i]] > 1);
            if (mine) g.windows |= 1u << w;
        }
        owned |= g.windows;
    }
    std::fill(m_pos, m_pos + m_n, 0);
    m_allDead = false;
    {
        Group constant;
        for (size_t w = 0; w < m_win.size(); ++w)
            if (!(owned >> w & 1u)) constant.windows |= 1u << w;
        m_allDead = !groupLive(constant, m_pos);
    }
    for (int gi = 0; gi < m_nGroups; ++gi) {
        Group& g = m_g[gi];
        if (g.enumerated) {
            auto& lv = m_live[size_t(gi)];
            lv.assign(size_t(g.tuples), 0);
            i64 digit[kMaxDirectives] = {};
            std::fill(m_pos, m_pos + m_n, 0);
            for (i64 t = 0; t < g.tuples; ++t) {
                lv[size_t(t)] = groupLive(g, m_pos) ? 1 : 0;
                for (int i = g.n - 1; i >= 0; --i) {
                    const int k = g.m[i];
                    if (++digit[i] < m_N[k]) {
                        m_pos[k] = digit[i];
                        break;
                    }
                    digit[i] = 0;
                    m_pos[k] = 0;
                }
            }
        } else {
            const int k = g.m[0];
            std::fill(m_pos, m_pos + m_n, 0);
            g.liveRun = groupLive(g, m_pos);
            m_pos[k] = m_N[k] - 1;
            g.liveLast = groupLive(g, m_pos);
            if (m_N[k] == 1) g.liveRun = g.liveLast;
            m_pos[k] = 0;
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Sums per group

i64 Engine::mul(i64 a, i64 b)
{
    i64 r = 0;
    if (__builtin_mul_overflow(a, b, &r)) {
        m_saturated = true;
        return kMax;
    }
    return r;
}

i64 Engine::add(i64 a, i64 b)
{
    i64 r = 0;
    if (__builtin_add_overflow(a, b, &r)) {
        m_saturated = true;
        return kMax;
    }
    return r;
}

void Engine::addTo(Kinds& into, const Kinds& w, i64 times)
{
    for (int i = 0; i < 5; ++i)
        into.v[i] = add(into.v[i], mul(w.v[i], times));
}

// Weights of the transition from the sets in slot q to those in slot p, over the tensor's dimensions `ax`.
Engine::Kinds Engine::trans(const TensorAxes& t, const int* ax, int na, int q, int p)
{
    i64 outer = 1;
    int in = -1;
    for (int i = 0; i < na; ++i) {
        if (ax[i] == t.inner) {
            in = ax[i];
            continue;
        }
        outer = mul(outer, interSize(set(q, ax[i]), set(p, ax[i])));
    }
    Kinds w;
    if (in < 0) {
        for (i64& v : w.v)
            v = outer;
        return w;
    }
    const RangeSet& a = set(p, in);
    const RangeSet& b = set(q, in);
    w.v[0] = mul(outer, interSize(a, b));
    w.v[1] = mul(outer, runBlocks(a, m_epb));
    w.v[2] = mul(outer, runBlocks(b, m_epb));
    w.v[3] = outer == 0 ? 0 : mul(outer, diffBlocks(a, b, m_epb));
    w.v[4] = outer == 0 ? 0 : mul(outer, diffBlocks(b, a, m_epb));
    return w;
}

// First-touched elements of the sets in slot p after the (translated, monotone) sets in slot q, and their
// blocks: the slab formula of trans() within the group.
void Engine::firstTouched(const TensorAxes& t, const int* ax, int na, int q, int p, i64& elems, i64& blocks)
{
    const Kinds self = trans(t, ax, na, p, p), w = trans(t, ax, na, q, p);
    elems = self.v[0] - w.v[0];
    bool inner = false;
    for (int i = 0; i < na; ++i)
        inner = inner || ax[i] == t.inner;
    blocks = inner ? self.v[1] - w.v[1] + w.v[3] : elems;
}

void Engine::fillSets(const TensorAxes& t, const int* ax, int na, int slot, const i64* pos)
{
    for (int i = 0; i < na; ++i)
        axisSet(t, ax[i], pos, set(slot, ax[i]));
}

void Engine::reset(Weights& w, int members)
{
    w.L = w.SA = w.SC = w.FTC = w.FTB = w.maxSize = 0;
    w.pre = w.wrap = w.at0 = Kinds{};
    w.at = w.mix = nullptr;
    (void)members;
}

// The weights of one directive from its positions 0, 1, N-2 and N-1 (positions 0 .. N-2 are translates):
// `tr(q, p)` gives the weights of the transition between two of them (slots 0, 1, 2, 3 = positions 0, 1,
// N-2, N-1), `inner` whether the group holds the contiguous dimension.
template <class Tr> void Engine::fastCore(i64 N, bool a, bool b, Weights& w, bool inner, Tr&& tr)
{
    reset(w, 1);
    auto firstTouched = [&](int q, int p, i64& e, i64& bl) {
        const Kinds self = tr(p, p), x = tr(q, p);
        e = self.v[0] - x.v[0];
        bl = inner ? self.v[1] - x.v[1] + x.v[3] : e;
    };
    if (N == 1) {
        if (!b) return;
        const Kinds self = tr(3, 3);
        w.L = 1;
        w.SA = w.FTC = w.maxSize = self.v[0];
        w.SC = w.FTB = self.v[1];
        if (!inner) w.FTB = w.FTC;
        w.pre = w.wrap = self;
        return;
    }
    const int sm = N >= 3 ? 2 : 0;
    w.L = (a ? N - 1 : 0) + (b ? 1 : 0);
    if (w.L == 0) return;
    const Kinds s0 = tr(0, 0), sl = tr(3, 3);
    const i64 run = a ? N - 1 : 0, last = b ? 1 : 0;
    w.SA = add(mul(run, s0.v[0]), mul(last, sl.v[0]));
    w.SC = add(mul(run, s0.v[1]), mul(last, sl.v[1]));
    w.maxSize = std::max(a ? s0.v[0] : 0, b ? sl.v[0] : 0);
    addTo(w.pre, s0, run);
    addTo(w.pre, sl, last);
    if (a && N >= 3) addTo(w.at0, tr(0, 1), N - 2);
    if (a && b) addTo(w.at0, tr(sm, 3), 1);
    w.wrap = tr(b ? 3 : sm, a ? 0 : 3);
    i64 e = 0, bl = 0;
    if (a) {
        w.FTC = s0.v[0];
        w.FTB = s0.v[1];
        if (N >= 3) {
            firstTouched(0, 1, e, bl);
            w.FTC = add(w.FTC, mul(N - 2, e));
            w.FTB = add(w.FTB, mul(N - 2, bl));
        }
    }
    if (b) {
        if (a) {
            firstTouched(sm, 3, e, bl);
        } else {
            e = sl.v[0];
            bl = sl.v[1];
        }
        w.FTC = add(w.FTC, e);
        w.FTB = add(w.FTB, bl);
    }
    if (!inner) w.FTB = w.FTC;
}

// One dimension moved by one directive, one range per position (r: positions 0, 1, N-2, N-1; a, b:
// liveness of positions 0..N-2 and N-1): plain interval arithmetic.
void Engine::rangeWeights(const Range* r, i64 N, bool a, bool b, bool inner, Weights& w)
{
    auto ov = [](Range x, Range y) { return std::max<i64>(0, std::min(x.e, y.e) - std::max(x.b, y.b)); };
    if (!inner) {
        // Every kind is the overlap: scalars, spread over the kinds at the end.
        a = a && N > 1;
        reset(w, 1);
        w.L = (a ? N - 1 : 0) + (b ? 1 : 0);
        if (w.L == 0) return;
        const i64 run = a ? N - 1 : 0;
        const i64 s0 = r[0].size(), sl = r[3].size();
        const int sm = N >= 3 ? 2 : 0;
        w.SA = w.SC = add(mul(run, s0), b ? sl : 0);
        w.maxSize = std::max(a ? s0 : 0, b ? sl : 0);
        const i64 inside = (a && N >= 3 ? mul(N - 2, ov(r[0], r[1])) : 0) + (a && b ? ov(r[sm], r[3]) : 0);
        const i64 wrap = ov(r[b ? 3 : sm], r[a ? 0 : 3]);
        i64 ft = a ? add(s0, mul(N >= 3 ? N - 2 : 0, r[1].size() - ov(r[0], r[1]))) : 0;
        if (b) ft = add(ft, a ? sl - ov(r[sm], r[3]) : sl);
        w.FTC = w.FTB = ft;
        for (int i = 0; i < 5; ++i) {
            w.pre.v[i] = w.SA;
            w.at0.v[i] = inside;
            w.wrap.v[i] = wrap;
        }
        return;
    }
    // The contiguous dimension: straight-line arithmetic (this runs once per tensor on the hot path). Blocks
    // of a run by a shift when a block holds a power of two of elements (as usual).
    const i64 epb = m_epb;
    const int shift = m_epbShift;
    auto blocks = [epb, shift](i64 len) {
        if (len <= 0) return i64(0);
        return shift >= 0 ? (len + epb - 1) >> shift : (len + epb - 1) / epb;
    };
    // Blocks of the runs of x \ y (at most one run on each side of y).
    auto diff = [&](Range x, Range y) {
        if (ov(x, y) == 0) return blocks(x.size());
        return blocks(std::max(x.b, y.b) - x.b) + blocks(x.e - std::min(x.e, y.e));
    };
    reset(w, 1);
    if (N == 1) {
        if (!b) return;
        const i64 sz = r[3].size(), c = blocks(sz);
        w.L = 1;
        w.SA = w.FTC = w.maxSize = sz;
        w.SC = w.FTB = c;
        w.pre = w.wrap = Kinds{{sz, c, c, 0, 0}};
        return;
    }
    w.L = (a ? N - 1 : 0) + (b ? 1 : 0);
    if (w.L == 0) return;
    const int sm = N >= 3 ? 2 : 0;
    const i64 run = a ? N - 1 : 0, last = b ? 1 : 0;
    const i64 s0 = r[0].size(), sl = r[3].size(), c0 = blocks(s0), cl = blocks(sl);
    w.SA = add(mul(run, s0), mul(last, sl));
    w.SC = add(mul(run, c0), mul(last, cl));
    w.maxSize = std::max(a ? s0 : 0, b ? sl : 0);
    w.pre = Kinds{{w.SA, w.SC, w.SC, 0, 0}};
    if (a && N >= 3) {
        const i64 o = ov(r[0], r[1]), d10 = diff(r[1], r[0]);
        const Kinds x{{o, blocks(r[1].size()), c0, d10, diff(r[0], r[1])}};
        addTo(w.at0, x, N - 2);
        w.FTC = add(s0, mul(N - 2, r[1].size() - o));
        w.FTB = add(c0, mul(N - 2, d10));
    } else if (a) {
        w.FTC = s0;
        w.FTB = c0;
    }
    if (b) {
        if (a) {
            const i64 o = ov(r[sm], r[3]), dlm = diff(r[3], r[sm]);
            const Kinds x{{o, cl, blocks(r[sm].size()), dlm, diff(r[sm], r[3])}};
            addTo(w.at0, x, 1);
            w.FTC = add(w.FTC, sl - o);
            w.FTB = add(w.FTB, dlm);
        } else {
            w.FTC = add(w.FTC, sl);
            w.FTB = add(w.FTB, cl);
        }
    }
    const Range F = r[a ? 0 : 3], L = r[b ? 3 : sm];
    w.wrap = Kinds{{ov(L, F), blocks(F.size()), blocks(L.size()), diff(F, L), diff(L, F)}};
}

void Engine::fastWeights(int gi, const TensorAxes& t, const int* ax, int na, Weights& w)
{
    const Group& g = m_g[gi];
    const int k = g.m[0];
    const i64 N = m_N[k];
    if (na == 0) {
        // Counts only.
        reset(w, 1);
        w.L = (N == 1 ? 0 : (g.liveRun ? N - 1 : 0)) + (g.liveLast ? 1 : 0);
        if (w.L == 0) return;
        w.SA = w.SC = w.FTC = w.FTB = w.maxSize = 1;
        w.SA = w.SC = w.L;
        for (int i = 0; i < 5; ++i) {
            w.pre.v[i] = w.L;
            w.at0.v[i] = w.L - 1;
            w.wrap.v[i] = 1;
        }
        return;
    }
    // Slots: 0 position 0, 1 position 1, 2 position N-2, 3 position N-1 (a single position: slot 3 only).
    std::fill(m_pos, m_pos + m_n, 0);
    const i64 at[4] = {0, std::min<i64>(1, N - 1), std::max<i64>(N - 2, 0), N - 1};
    Range r[4];
    bool single = na == 1;
    for (int slot = N == 1 ? 3 : 0; slot < 4 && single; ++slot) {
        m_pos[k] = at[slot];
        single = simpleRange(t, ax[0], m_pos, r[slot]);
    }
    if (!single) {
        for (int slot = N == 1 ? 3 : 0; slot < 4; ++slot) {
            m_pos[k] = at[slot];
            fillSets(t, ax, na, slot, m_pos);
        }
        single = na == 1;
        for (int slot = N == 1 ? 3 : 0; slot < 4; ++slot)
            single = single && set(slot, ax[0]).r.size() <= 1;
        if (single)
            for (int slot = N == 1 ? 3 : 0; slot < 4; ++slot)
                r[slot] = set(slot, ax[0]).r.empty() ? Range{} : set(slot, ax[0]).r[0];
    }
    m_pos[k] = 0;
    bool inner = false;
    for (int i = 0; i < na; ++i)
        inner = inner || ax[i] == t.inner;
    if (single) {
        if (N == 1) r[0] = r[1] = r[2] = r[3];
        rangeWeights(r, N, g.liveRun, g.liveLast, inner, w);
        return;
    }
    if (N == 1)
        for (int slot = 0; slot < 3; ++slot)
            copySets(ax, na, 3, slot);
    fastCore(N, g.liveRun, g.liveLast, w, inner, [&](int q, int p) { return trans(t, ax, na, q, p); });
}

// A group summed tuple by tuple in lexicographic order (its members outermost first, as they nest).
void Engine::enumWeights(int gi, const TensorAxes& t, const int* ax, int na, Weights& w)
{
    const Group& g = m_g[gi];
    reset(w, g.n);
    // Storage: per group, one block for the tensor being summed and one for the counts (unitWeights).
    w.at = &m_enumKinds[(size_t(gi) * 2 + (&w == &m_unit[size_t(gi)] ? 1 : 0)) * 2 * kMaxDirectives];
    w.mix = w.at + kMaxDirectives;
    for (int i = 0; i < g.n; ++i)
        w.at[i] = w.mix[i] = Kinds{};
    const auto& lv = m_live[size_t(gi)];
    std::vector<i64>* ft = t.output ? &m_ft[size_t(gi)] : nullptr;
    if (ft) ft->assign(size_t(g.tuples), 0);
    bool inner = false;
    for (int i = 0; i < na; ++i)
        inner = inner || ax[i] == t.inner;
    // Slots: 0 current, 1 previous live, 2 first live, 3 running union, 4 + i first of the open class of
    // prefix i.
    const bool oneAxis = na == 1;
    i64 digit[kMaxDirectives] = {}, prevDigit[kMaxDirectives] = {};
    std::fill(m_pos, m_pos + m_n, 0);
    bool any = false;
    for (i64 tu = 0; tu < g.tuples; ++tu) {
        if (lv[size_t(tu)]) {
            fillSets(t, ax, na, 0, m_pos);
            const Kinds self = trans(t, ax, na, 0, 0);
            w.L = add(w.L, 1);
            w.SA = add(w.SA, self.v[0]);
            w.SC = add(w.SC, self.v[1]);
            w.maxSize = std::max(w.maxSize, self.v[0]);
            addTo(w.pre, self, 1);
            i64 fe = 0, fb = 0;
            if (!any) {
                copySets(ax, na, 0, 2);
                for (int i = 0; i + 1 < g.n; ++i)
                    copySets(ax, na, 0, 4 + i);
                fe = self.v[0];
                fb = self.v[1];
                if (oneAxis) set(3, ax[0]).r = set(0, ax[0]).r;
            } else {
                int d = 0;
                while (d < g.n && digit[d] == prevDigit[d])
                    ++d;
                addTo(w.at[d], trans(t, ax, na, 1, 0), 1);
                for (int i = d; i + 1 < g.n; ++i) {
                    addTo(w.mix[i], trans(t, ax, na, 1, 4 + i), 1);
                    copySets(ax, na, 0, 4 + i);
                }
                if (oneAxis) {
                    // Exact: what no earlier tuple held.
                    const RangeSet& cur = set(0, ax[0]);
                    RangeSet& seen = set(3, ax[0]);
                    fe = cur.size() - interSize(cur, seen);
                    fb = inner ? diffBlocks(cur, seen, m_epb) : fe;
                    unite(seen, cur, m_tmp);
                } else {
                    firstTouched(t, ax, na, 1, 0, fe, fb);
                }
            }
            w.FTC = add(w.FTC, fe);
            w.FTB = add(w.FTB, fb);
            if (ft) (*ft)[size_t(tu)] = fe;
            copySets(ax, na, 0, 1);
            std::copy(digit, digit + g.n, prevDigit);
            any = true;
        }
        for (int i = g.n - 1; i >= 0; --i) {
            const int k = g.m[i];
            if (++digit[i] < m_N[k]) {
                m_pos[k] = digit[i];
                break;
            }
            digit[i] = 0;
            m_pos[k] = 0;
        }
    }
    if (!any) return;
    for (int i = 0; i + 1 < g.n; ++i)
        addTo(w.mix[i], trans(t, ax, na, 1, 4 + i), 1);
    w.wrap = trans(t, ax, na, 1, 2);
    if (!inner) w.FTB = w.FTC;
}

// A group no dimension of the tensor depends on: counts of its live tuples and transitions only.
void Engine::unitWeights(int gi, Weights& w)
{
    static const TensorAxes none;
    const Group& g = m_g[gi];
    if (g.enumerated)
        enumWeights(gi, none, nullptr, 0, w);
    else
        fastWeights(gi, none, nullptr, 0, w);
}

// ------------------------------------------------------------------------------------------------
// Totals

// The group whose tuples move dimension `axis` of `t`: the spatial group for a SpatialMap's dimension or a
// window a SpatialMap moves (when that group exists), else the group of the directive on the dimension (a
// window's: on its rows, or on its taps when only those move).
int Engine::ownerGroup(const TensorAxes& t, int axis) const
{
    const int window = t.window[axis];
    if (window < 0) {
        const int k = m_dirOf[t.dim[axis]];
        if (k < 0) return 0;
        return m_d[k].spatial && m_starGroup >= 0 ? m_starGroup : m_groupOf[k];
    }
    if (m_touched[size_t(window)] && m_starGroup >= 0) return m_starGroup;
    const Window& x = m_win[size_t(window)];
    const int kr = x.ref >= 0 ? m_dirOf[x.ref] : -1, ks = x.slide >= 0 ? m_dirOf[x.slide] : -1;
    if (kr >= 0 && m_N[kr] > 1) return m_groupOf[kr];
    if (ks >= 0 && m_N[ks] > 1) return m_groupOf[ks];
    return kr >= 0 ? m_groupOf[kr] : ks >= 0 ? m_groupOf[ks] : 0;
}

// Each dimension of tensor t belongs to the one group of directives that moves it, or to its own
// directive's one-position group, which contributes a constant factor. Returns the moving group holding the
// contiguous dimension (-1: none).
int Engine::assignAxes(int t)
{
    const TensorAxes& x = m_t[size_t(t)];
    for (int gi = 0; gi < m_nGroups; ++gi)
        m_na[t][gi] = 0;
    int innerGroup = -1;
    for (int i = 0; i < x.n; ++i) {
        const int owner = ownerGroup(x, i);
        m_ax[t][owner][m_na[t][owner]++] = i;
        if (i == x.inner && m_g[owner].tuples > 1) innerGroup = owner;
    }
    return innerGroup;
}

// The groups and each dimension's owner, for the per-step queries after a closed-form compute().
void Engine::ensureGroups()
{
    if (m_grouped) return;
    buildGroups();
    for (size_t t = 0; t < m_t.size(); ++t)
        assignAxes(int(t));
    // The first-touch tables of enumerated groups that move the output.
    const int o = int(m_t.size()) - 1;
    for (int gi = 0; gi < m_nGroups; ++gi) {
        const Group& g = m_g[gi];
        if (!g.enumerated) continue;
        m_firstLive[gi] = 0;
        const auto& lv = m_live[size_t(gi)];
        while (m_firstLive[gi] < g.tuples && !lv[size_t(m_firstLive[gi])])
            ++m_firstLive[gi];
        if (m_na[o][gi] > 0) enumWeights(gi, m_t[size_t(o)], m_ax[o][gi], m_na[o][gi], m_w[gi]);
    }
}

// The common case in closed form: no SpatialMap moves a window, at most one SpatialMap, folds without gaps,
// every window's tiles translate, each tensor dimension moved by its own directive. Per directive, the
// ranges of its positions 0, 1, N-2 and N-1; per tensor, the same products as compute(). False when the
// mapping is not of that form (compute() then takes the general way).
bool Engine::computeSimple(Traffic* out)
{
    const int n = m_n, nt = int(m_t.size());
    int spatial = -1;
    for (int k = 0; k < n; ++k)
        if (m_d[k].spatial) {
            if (spatial >= 0 || m_d[k].of > m_d[k].sz) return false;
            spatial = k;
        }
    // Windows: each moved by one directive (its rows', or its taps' when the rows hold one tile); a
    // SpatialMap may move one of them, then the window's outputs per fold are the union over its sub-units.
    m_touched.assign(m_win.size(), 0);
    m_nTouched = 0;
    int windowOf[kMaxDirectives], driverOf[kMaxAxes];
    std::fill(windowOf, windowOf + n, -1);
    for (size_t w = 0; w < m_win.size(); ++w) {
        const Window& x = m_win[w];
        const int kr = x.ref >= 0 ? m_dirOf[x.ref] : -1, ks = x.slide >= 0 ? m_dirOf[x.slide] : -1;
        const bool rs = kr >= 0 && m_d[kr].spatial, ss = ks >= 0 && m_d[ks].spatial;
        if (rs && ss) return false;
        m_touched[w] = rs || ss;
        m_nTouched += m_touched[w];
        int driver = kr;
        if (ks >= 0 && m_N[ks] > 1) {
            if (kr >= 0 && m_N[kr] > 1) return false;
            driver = ks;
        }
        if (driver < 0 || windowOf[driver] >= 0) return false;
        windowOf[driver] = int(w);
        driverOf[w] = driver;
    }
    if (m_nTouched > 1) return false;
    // Ranges and liveness per directive: plain (its own dimension) and window (its window's outputs).
    // (Plain arrays: this runs on the cost model's hot path.)
    struct R
    {
        i64 b, e;
        operator Range() const { return Range{b, e}; }
    };
    R plain[kMaxDirectives][4], win[kMaxDirectives][4];
    bool run[kMaxDirectives], last[kMaxDirectives];
    bool dead = false;
    std::fill(m_pos, m_pos + n, 0);
    for (int k = 0; k < n; ++k) {
        const i64 N = m_N[k];
        const i64 at[4] = {0, std::min<i64>(1, N - 1), std::max<i64>(N - 2, 0), N - 1};
        const Directive& d = m_d[k];
        const i64 D = m_ext[d.dim];
        for (int slot = 0; slot < 4; ++slot) {
            if (d.spatial) {
                const i64 first = at[slot] * m_P, a = std::min(m_P, m_T[k] - first);
                plain[k][slot] = R{first * d.of, std::min((first + a - 1) * d.of + d.sz, D)};
            } else {
                plain[k][slot] = R{at[slot] * d.of, std::min(at[slot] * d.of + d.sz, D)};
            }
        }
        run[k] = last[k] = true;
        if (windowOf[k] < 0) continue;
        const int w = windowOf[k];
        const Window& x = m_win[size_t(w)];
        if (m_touched[size_t(w)]) {
            if (N > 2 && !translates(k)) return false;
            // The SpatialMap moves the rows or the taps per sub-unit: sub-unit u's outputs, unclipped, are u
            // shifts further, so the full tiles' outputs form one range when the shift does not exceed their
            // size; the last sub-unit's tile may be partial.
            const int ksp = spatial;
            const Directive& ds = m_d[ksp];
            const bool spRows = x.ref == ds.dim;
            const i64 num = spRows ? ds.of : -x.dilation * ds.of;
            if (num % x.stride != 0) return false;
            const i64 shift = num / x.stride, Ds = m_ext[ds.dim];
            for (int slot = 0; slot < 4; ++slot) {
                m_pos[k] = at[slot];
                const i64 fi = (ksp == k ? at[slot] : 0) * m_P, a = std::min(m_P, m_T[ksp] - fi);
                const Range other = rangeOf(spRows ? x.slide : x.ref, m_pos, 0);
                auto raw = [&](i64 u) {
                    const i64 tb = (fi + u) * ds.of;
                    const Range t{tb, std::min(tb + ds.sz, Ds)};
                    const Range rows = spRows ? t : other, taps = spRows ? other : t;
                    if (rows.size() == 0 || taps.size() == 0) return R{0, 0};
                    return R{ceilDiv(rows.b - x.dilation * taps.b, x.stride),
                        floorDiv(rows.e - 1 - x.dilation * (taps.e - 1), x.stride) + 1};
                };
                const R first = raw(0), lastR = raw(a - 1);
                const i64 size = first.e - first.b;
                R all = lastR;
                if (a > 1 && size > 0) {
                    if (std::abs(shift) > size) return false; // gaps between sub-units
                    R full = shift >= 0 ? R{first.b, first.e + (a - 2) * shift}
                                        : R{first.b + (a - 2) * shift, first.e};
                    if (lastR.e > lastR.b) {
                        if (lastR.b > full.e || lastR.e < full.b) return false;
                        full = R{std::min(full.b, lastR.b), std::max(full.e, lastR.e)};
                    }
                    all = full;
                }
                const i64 b = std::max<i64>(all.b, 0), e = std::min(all.e, x.outExtent);
                win[k][slot] = e > b ? R{b, e} : R{0, 0};
            }
            m_pos[k] = 0;
        } else {
            // The directive moves the window's rows (or its taps) one tile per position.
            const bool rows = x.ref == d.dim;
            const Range other = rangeOf(rows ? x.slide : x.ref, m_pos, 0);
            for (int slot = 0; slot < 4; ++slot) {
                const R r = rows ? plain[k][slot] : R{other.b, other.e};
                const R q = rows ? R{other.b, other.e} : plain[k][slot];
                const i64 lo = ceilDiv(r.b - x.dilation * q.b, x.stride);
                const i64 hi = floorDiv(r.e - 1 - x.dilation * (q.e - 1), x.stride) + 1;
                // Positions 0 .. N-2 translate when the shift is a whole number of outputs and no output
                // range clips (checked at both ends of the run).
                if (N > 2 && (slot == 0 || slot == 2) && lo < hi && (lo < 0 || hi > x.outExtent))
                    return false;
                const i64 b = std::max<i64>(lo, 0), e = std::min(hi, x.outExtent);
                win[k][slot] = e > b ? R{b, e} : R{0, 0};
            }
            if (N > 2 && (rows ? d.of : x.dilation * d.of) % x.stride != 0) return false;
        }
        run[k] = win[k][0].e > win[k][0].b;
        last[k] = win[k][3].e > win[k][3].b;
        if (N == 1) run[k] = last[k];
        if (!run[k] && !last[k]) dead = true;
    }
    // Per tensor: which directive moves each dimension (none twice).
    int axisOf[kMaxTensors][kMaxDirectives];
    for (int t = 0; t < nt; ++t) {
        const TensorAxes& x = m_t[size_t(t)];
        std::fill(axisOf[t], axisOf[t] + n, -1);
        for (int i = 0; i < x.n; ++i) {
            const int k = x.window[i] < 0 ? m_dirOf[x.dim[i]] : driverOf[x.window[i]];
            if (k < 0 || axisOf[t][k] >= 0) return false;
            if (x.window[i] >= 0 && windowOf[k] != x.window[i]) return false;
            axisOf[t][k] = i;
        }
    }
    for (int t = 0; t < nt; ++t)
        out[t] = Traffic{};
    m_stepBound = 0;
    if (dead) return true;
    // Per directive and kind of dimension (plain, window), the sums in every kind but the contiguous
    // dimension's; shared by the tensors.
    struct Uniform
    {
        i64 SA, FT, maxSize, pre, at, wrap;
    };
    Uniform uni[kMaxDirectives][2];
    bool done[kMaxDirectives][2] = {};
    i64 live[kMaxDirectives];
    int moving[kMaxDirectives], nMoving = 0;
    for (int k = 0; k < n; ++k) {
        live[k] = (m_N[k] > 1 && run[k] ? m_N[k] - 1 : 0) + (last[k] ? 1 : 0);
        if (m_N[k] > 1) moving[nMoving++] = k;
    }
    auto ov = [](R a, R b) { return std::max<i64>(0, std::min(a.e, b.e) - std::max(a.b, b.b)); };
    auto size = [](R a) { return a.e > a.b ? a.e - a.b : 0; };
    for (int t = 0; t < nt; ++t) {
        const TensorAxes& x = m_t[size_t(t)];
        const int* ax = axisOf[t];
        int innerDir = -1;
        Weights& in = m_w[0];
        if (x.inner >= 0) {
            innerDir = x.window[x.inner] < 0 ? m_dirOf[x.dim[x.inner]] : driverOf[x.window[x.inner]];
            const R* src = x.window[x.inner] < 0 ? plain[innerDir] : win[innerDir];
            const Range r4[4] = {src[0], src[1], src[2], src[3]};
            rangeWeights(r4, m_N[innerDir], run[innerDir], last[innerDir], true, in);
        }
        i64 E1 = 1, T1 = 1, FE = 1, FB = 1, maxSize = 1;
        // Directives with one position scale everything by their tile (the contiguous one kind by kind).
        Kinds scale{{1, 1, 1, 1, 1}};
        const int innerOnce = innerDir >= 0 && m_N[innerDir] == 1 ? innerDir : -1;
        if (innerOnce >= 0) {
            E1 = in.SA;
            T1 = in.SC;
            FE = in.FTC;
            FB = in.FTB;
            maxSize = in.maxSize;
            scale = in.pre;
            innerDir = -1;
        }
        for (int k = 0; k < n; ++k) {
            if (m_N[k] > 1 || ax[k] < 0 || k == innerOnce) continue;
            const R r = x.window[ax[k]] < 0 ? plain[k][3] : win[k][3];
            const i64 sz = size(r);
            E1 = mul(E1, sz);
            T1 = mul(T1, sz);
            FE = mul(FE, sz);
            FB = mul(FB, sz);
            maxSize = mul(maxSize, sz);
            for (int q = 0; q < 5; ++q)
                scale.v[q] = mul(scale.v[q], sz);
        }
        i64 pre[kMaxDirectives], at[kMaxDirectives], wrap[kMaxDirectives];
        for (int j = 0; j < nMoving; ++j) {
            const int k = moving[j];
            const i64 N = m_N[k], L = live[k];
            if (k == innerDir) {
                E1 = mul(E1, in.SA);
                T1 = mul(T1, in.SC);
                FE = mul(FE, in.FTC);
                FB = mul(FB, in.FTB);
                maxSize = mul(maxSize, in.maxSize);
                at[j] = in.at0.v[0] | in.at0.v[1] | in.at0.v[2] | in.at0.v[3] | in.at0.v[4];
                continue;
            }
            if (ax[k] < 0) {
                // A directive the tensor does not depend on: counts of its live positions.
                E1 = mul(E1, L);
                T1 = mul(T1, L);
                pre[j] = L;
                at[j] = L - 1;
                wrap[j] = 1;
                continue;
            }
            const int kind = x.window[ax[k]] < 0 ? 0 : 1;
            Uniform& u = uni[k][kind];
            if (!done[k][kind]) {
                const R* r = kind == 0 ? plain[k] : win[k];
                const bool a = run[k], b = last[k];
                const i64 s0 = size(r[0]), sl = size(r[3]);
                const int sm = N >= 3 ? 2 : 0;
                u.SA = add(mul(a ? N - 1 : 0, s0), b ? sl : 0);
                u.maxSize = std::max(a ? s0 : 0, b ? sl : 0);
                u.at = (a && N >= 3 ? mul(N - 2, ov(r[0], r[1])) : 0) + (a && b ? ov(r[sm], r[3]) : 0);
                u.wrap = ov(r[b ? 3 : sm], r[a ? 0 : 3]);
                u.FT = a ? add(s0, mul(N >= 3 ? N - 2 : 0, size(r[1]) - ov(r[0], r[1]))) : 0;
                if (b) u.FT = add(u.FT, a ? sl - ov(r[sm], r[3]) : sl);
                u.pre = u.SA;
                done[k][kind] = true;
            }
            E1 = mul(E1, u.SA);
            T1 = mul(T1, u.SA);
            FE = mul(FE, u.FT);
            FB = mul(FB, u.FT);
            maxSize = mul(maxSize, u.maxSize);
            pre[j] = u.pre;
            at[j] = u.at;
            wrap[j] = u.wrap;
        }
        const int nm = nMoving;
        i64 prefix[kMaxDirectives + 1], suffix[kMaxDirectives + 1];
        prefix[0] = 1;
        for (int j = 0; j < nm; ++j)
            prefix[j + 1] = moving[j] == innerDir ? prefix[j] : mul(prefix[j], pre[j]);
        suffix[nm] = 1;
        for (int j = nm - 1; j >= 0; --j)
            suffix[j] = moving[j] == innerDir ? suffix[j + 1] : mul(suffix[j + 1], wrap[j]);
        Kinds S;
        for (int j = 0; j < nm; ++j) {
            const int k = moving[j];
            if (at[j] == 0) continue;
            const i64 base = mul(prefix[j], suffix[j + 1]);
            if (base == 0) continue;
            if (innerDir < 0) {
                const i64 b = mul(base, at[j]);
                for (int q = 0; q < 5; ++q)
                    S.v[q] = add(S.v[q], b);
            } else if (k == innerDir) {
                for (int q = 0; q < 5; ++q)
                    S.v[q] = add(S.v[q], mul(base, in.at0.v[q]));
            } else {
                const Kinds& f = innerDir < k ? in.pre : in.wrap;
                const i64 b = mul(base, at[j]);
                for (int q = 0; q < 5; ++q)
                    S.v[q] = add(S.v[q], mul(b, f.v[q]));
            }
        }
        for (int q = 0; q < 5; ++q)
            S.v[q] = mul(S.v[q], scale.v[q]);
        finish(x, E1, T1, FE, FB, S, maxSize, out[t]);
    }
    return true;
}

// The totals of one tensor from its sums (see compute()).
void Engine::finish(
    const TensorAxes& x, i64 E1, i64 T1, i64 FE, i64 FB, const Kinds& S, i64 maxSize, Traffic& o)
{
    const i64 EN = E1 - S.v[0];
    i64 EB = EN, LB = EN;
    if (x.inner >= 0) {
        EB = T1 - S.v[1] + S.v[3];
        LB = T1 - S.v[2] + S.v[4];
    } else {
        FB = FE;
    }
    if (x.output) {
        o.writeElements = EN;
        o.writeBlocks = LB;
        o.readElements = EN - FE;
        o.readBlocks = EB - FB;
        m_stepBound = add(m_stepBound, mul(3, maxSize));
    } else {
        o.readElements = EN;
        o.readBlocks = EB;
        m_stepBound = add(m_stepBound, maxSize);
    }
}

void Engine::compute(i64 P, int n, const Directive* d, Traffic* out)
{
    // The search evaluates many mappings under one off-chip choice, whose top level is the same: the last
    // top level's totals are kept.
    bool same = m_haveLast && P == m_P && n == m_n;
    for (int k = 0; k < n && same; ++k)
        same = d[k].spatial == m_d[k].spatial && d[k].dim == m_d[k].dim && d[k].sz == m_d[k].sz
            && d[k].of == m_d[k].of;
    if (same) {
        std::copy(m_last, m_last + m_t.size(), out);
        return;
    }
    compute0(P, n, d, out);
    std::copy(out, out + m_t.size(), m_last);
    m_haveLast = true;
}

void Engine::compute0(i64 P, int n, const Directive* d, Traffic* out)
{
    m_saturated = false;
    m_stepMemo.clear();
    m_P = std::max<i64>(P, 1);
    m_n = n;
    for (int v = 0; v < m_nd; ++v)
        m_dirOf[v] = -1;
    for (int k = 0; k < n; ++k) {
        m_d[k] = d[k];
        m_dirOf[d[k].dim] = k;
        m_T[k] = std::max<i64>(tileCount(d[k].sz, d[k].of, m_ext[d[k].dim]), 1);
        m_N[k] = d[k].spatial ? (m_T[k] + m_P - 1) / m_P : m_T[k];
    }
    m_grouped = false;
    if (m_closedForm && computeSimple(out)) return;
    buildGroups();
    const int nt = int(m_t.size());
    for (int t = 0; t < nt; ++t)
        out[t] = Traffic{};
    m_stepBound = 0;
    if (m_allDead) return;
    // Groups whose tuples move (more than one position); the others hold one tile throughout.
    int moving[kMaxDirectives];
    int nMoving = 0;
    bool singletons = true;
    for (int gi = 0; gi < m_nGroups; ++gi) {
        const Group& g = m_g[gi];
        if (g.tuples == 1) {
            if (!g.liveLast) return; // no step computes anything
            continue;
        }
        unitWeights(gi, m_unit[gi]);
        if (m_unit[gi].L == 0) return;
        moving[nMoving++] = gi;
        singletons = singletons && g.n == 1;
        m_firstLive[gi] = 0;
        if (g.enumerated) {
            const auto& lv = m_live[size_t(gi)];
            while (!lv[size_t(m_firstLive[gi])])
                ++m_firstLive[gi];
        }
    }
    struct Cached
    {
        int group = -1, key = -1;
        bool inner = false, filtered = false;
    };
    Cached cached[kMaxTensors * kMaxAxes];
    int nCached = 0;
    for (int t = 0; t < nt; ++t) {
        const TensorAxes& x = m_t[size_t(t)];
        const int innerGroup = assignAxes(t);
        // The constant factor: kinds of (tile -> itself) of every dimension no directive moves.
        Kinds cst;
        for (i64& v : cst.v)
            v = 1;
        std::fill(m_pos, m_pos + m_n, 0);
        for (int gi = 0; gi < m_nGroups; ++gi) {
            if (m_g[gi].tuples > 1 || m_na[t][gi] == 0) continue;
            fillSets(x, m_ax[t][gi], m_na[t][gi], 0, m_pos);
            const Kinds self = trans(x, m_ax[t][gi], m_na[t][gi], 0, 0);
            for (int i = 0; i < 5; ++i)
                cst.v[i] = mul(cst.v[i], self.v[i]);
        }
        const Weights* w[kMaxDirectives];
        for (int j = 0; j < nMoving; ++j) {
            const int gi = moving[j];
            const int na = m_na[t][gi];
            if (na == 0) {
                w[gi] = &m_unit[gi];
                continue;
            }
            if (m_g[gi].enumerated) {
                enumWeights(gi, x, m_ax[t][gi], na, m_w[gi]);
                w[gi] = &m_w[gi];
                continue;
            }
            if (na > 1) {
                fastWeights(gi, x, m_ax[t][gi], na, m_w[gi]);
                w[gi] = &m_w[gi];
                continue;
            }
            // One dimension of one directive: tensors that share it (the filter's and the output's K) share
            // its weights.
            const int i = m_ax[t][gi][0];
            const int key = x.window[i] >= 0 ? kMaxAxes + x.window[i] : x.dim[i];
            const bool inner = i == x.inner, filtered = x.output && m_nTouched > 0;
            int hit = -1;
            for (int c = 0; c < nCached && hit < 0; ++c)
                if (cached[c].group == gi && cached[c].key == key && cached[c].inner == inner
                    && cached[c].filtered == filtered)
                    hit = c;
            if (hit < 0) {
                hit = nCached++;
                cached[hit] = Cached{gi, key, inner, filtered};
                fastWeights(gi, x, m_ax[t][gi], na, m_cache[size_t(hit)]);
            }
            w[gi] = &m_cache[size_t(hit)];
        }
        const bool innerConst = x.inner >= 0 && innerGroup < 0;
        i64 E1 = cst.v[0], T1 = cst.v[1], FE = cst.v[0], FB = innerConst ? cst.v[1] : cst.v[0];
        i64 maxSize = cst.v[0];
        for (int j = 0; j < nMoving; ++j) {
            const int gi = moving[j];
            E1 = mul(E1, w[gi]->SA);
            T1 = mul(T1, w[gi]->SC);
            FE = mul(FE, w[gi]->FTC);
            FB = mul(FB, w[gi]->FTB);
            if (m_na[t][gi] > 0) maxSize = mul(maxSize, w[gi]->maxSize);
        }
        // Pairs of consecutive steps, by the directive that advances: groups outside it stay (pre), groups
        // inside it wrap around (wrap), a group with members on both sides wraps within its prefix (mix).
        // Only the group holding the contiguous dimension has five different kinds; the others' factors are
        // the same in every kind.
        Kinds S;
        if (singletons) {
            // One directive per group, in nest order: prefix products of `pre`, suffix products of `wrap`.
            i64 prefix[kMaxDirectives + 1], suffix[kMaxDirectives + 1];
            prefix[0] = 1;
            for (int j = 0; j < nMoving; ++j)
                prefix[j + 1] = moving[j] == innerGroup ? prefix[j] : mul(prefix[j], w[moving[j]]->pre.v[0]);
            suffix[nMoving] = 1;
            for (int j = nMoving - 1; j >= 0; --j)
                suffix[j]
                    = moving[j] == innerGroup ? suffix[j + 1] : mul(suffix[j + 1], w[moving[j]]->wrap.v[0]);
            for (int j = 0; j < nMoving; ++j) {
                const int gi = moving[j];
                const Kinds& at = w[gi]->atMember(0);
                if (at.v[0] == 0 && at.v[1] == 0 && at.v[2] == 0) continue;
                const i64 base = mul(prefix[j], suffix[j + 1]);
                if (base == 0) continue;
                if (innerGroup < 0) {
                    const i64 b = mul(base, at.v[0]);
                    for (int i = 0; i < 5; ++i)
                        S.v[i] = add(S.v[i], b);
                } else if (gi == innerGroup) {
                    for (int i = 0; i < 5; ++i)
                        S.v[i] = add(S.v[i], mul(base, at.v[i]));
                } else {
                    const Kinds& f = innerGroup < gi ? w[innerGroup]->pre : w[innerGroup]->wrap;
                    const i64 b = mul(base, at.v[0]);
                    for (int i = 0; i < 5; ++i)
                        S.v[i] = add(S.v[i], mul(b, f.v[i]));
                }
            }
        } else {
            for (int j = 0; j < nMoving; ++j) {
                const int gk = moving[j];
                const Group& g = m_g[gk];
                for (int mi = 0; mi < g.n; ++mi) {
                    const int k = g.m[mi];
                    Kinds term = w[gk]->atMember(mi);
                    bool zero = true;
                    for (const i64 v : term.v)
                        zero = zero && v == 0;
                    if (zero) continue;
                    for (int jh = 0; jh < nMoving; ++jh) {
                        const int h = moving[jh];
                        if (h == gk) continue;
                        const Group& gh = m_g[h];
                        const Kinds* f = nullptr;
                        if (gh.m[gh.n - 1] < k)
                            f = &w[h]->pre;
                        else if (gh.m[0] > k)
                            f = &w[h]->wrap;
                        else {
                            int q = 0;
                            while (q + 1 < gh.n && gh.m[q + 1] < k)
                                ++q;
                            f = &w[h]->mix[q];
                        }
                        for (int i = 0; i < 5; ++i)
                            term.v[i] = mul(term.v[i], f->v[i]);
                    }
                    for (int i = 0; i < 5; ++i)
                        S.v[i] = add(S.v[i], term.v[i]);
                }
            }
        }
        for (int i = 0; i < 5; ++i)
            S.v[i] = mul(S.v[i], cst.v[i]);
        finish(x, E1, T1, FE, FB, S, maxSize, out[t]);
    }
}

// ------------------------------------------------------------------------------------------------
// One step

i64 Engine::tupleIndex(int gi, const i64* pos) const
{
    const Group& g = m_g[gi];
    i64 idx = 0;
    for (int i = 0; i < g.n; ++i)
        idx = idx * m_N[g.m[i]] + pos[g.m[i]];
    return idx;
}

// Output elements the step at `pos` holds for the first time: the product over the groups of what the
// group's tuple holds that no earlier live tuple of the group held (slots 2 and 3 are scratch).
i64 Engine::firstTouch(const i64* pos)
{
    const int o = int(m_t.size()) - 1;
    const TensorAxes& x = m_t[size_t(o)];
    i64 ft = 1;
    for (int gi = 0; gi < m_nGroups && ft > 0; ++gi) {
        const Group& g = m_g[gi];
        const int na = m_na[o][gi];
        const int* ax = m_ax[o][gi];
        if (g.enumerated) {
            const i64 idx = tupleIndex(gi, pos);
            ft = na > 0 ? mul(ft, m_ft[size_t(gi)][size_t(idx)]) : (idx == m_firstLive[gi] ? ft : 0);
            continue;
        }
        const int k = g.m[0];
        const i64 p = pos[k];
        const i64 first = (m_N[k] == 1 || g.liveRun) ? 0 : m_N[k] - 1;
        if (na == 0) {
            if (p != first) ft = 0;
            continue;
        }
        std::copy(pos, pos + m_n, m_pos);
        fillSets(x, ax, na, 2, m_pos);
        i64 here = 1;
        for (int i = 0; i < na; ++i)
            here = mul(here, set(2, ax[i]).size());
        if (p != first) {
            m_pos[k] = p - 1;
            fillSets(x, ax, na, 3, m_pos);
            i64 kept = 1;
            for (int i = 0; i < na; ++i)
                kept = mul(kept, interSize(set(2, ax[i]), set(3, ax[i])));
            here -= kept;
        }
        ft = mul(ft, here);
    }
    return ft;
}

i64 Engine::stepElements(const i64* pos, const i64* prev, bool last)
{
    // Keyed by the step, the previous step (or none) and `last`; the top level is m_d's until compute0.
    i64 key[2 * kMaxDirectives + 1];
    int nk = 0;
    key[nk++] = (prev ? 2 : 0) | (last ? 1 : 0);
    for (int k = 0; k < m_n; ++k)
        key[nk++] = pos[k];
    if (prev)
        for (int k = 0; k < m_n; ++k)
            key[nk++] = prev[k];
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < nk; ++i)
        h = (h ^ std::uint64_t(key[i])) * 0x100000001b3ull;
    h ^= h >> 31;
    StepMemo::Entry& e = m_stepMemo.slots[h & (StepMemo::kSlots - 1)];
    if (e.generation == m_stepMemo.generation && e.hash == h && std::equal(key, key + nk, e.key))
        return e.value;
    const i64 value = stepElements0(pos, prev, last);
    e.generation = m_stepMemo.generation;
    e.hash = h;
    std::copy(key, key + nk, e.key);
    e.value = value;
    return value;
}

i64 Engine::stepElements0(const i64* pos, const i64* prev, bool last)
{
    ensureGroups();
    i64 total = 0;
    for (size_t t = 0; t < m_t.size(); ++t) {
        const TensorAxes& x = m_t[t];
        i64 here = 1, before = 1, kept = prev ? 1 : 0;
        for (int i = 0; i < x.n; ++i) {
            RangeSet& a = set(0, i);
            axisSet(x, i, pos, a);
            here = mul(here, a.size());
            if (prev) {
                RangeSet& b = set(1, i);
                axisSet(x, i, prev, b);
                before = mul(before, b.size());
                kept = mul(kept, interSize(a, b));
            }
        }
        const i64 enter = here - kept;
        if (!x.output) {
            total = add(total, enter);
            continue;
        }
        total = add(total, enter - firstTouch(pos));
        if (prev) total = add(total, before - kept);
        if (last) total = add(total, here);
    }
    return total;
}

} // namespace marvel::cost::dram
