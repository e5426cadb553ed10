#include "core/cost/pe_fetches.h"

#include <algorithm>
#include <array>

namespace marvel::cost {

namespace pe_fetch_detail {

using i64 = std::int64_t;

/// Appends n elements (a few spans at a time: cheaper than a range insert).
template <class T> void append(std::vector<T>& v, const T* from, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        v.push_back(from[i]);
}

AxisSpan overlap(AxisSpan a, AxisSpan b)
{
    return AxisSpan{std::max(a.begin, b.begin), std::min(a.end, b.end)};
}

i64 volumeOf(const AxisSpan* box, size_t n)
{
    i64 v = 1;
    for (size_t k = 0; k < n; ++k)
        v *= box[k].size();
    return v;
}

/// Calls f(first flat index, length) for every row of `box` along its last axis (n axes, row-major
/// `strides`, the last one 1).
template <class F> void forEachRow(const AxisSpan* box, size_t n, const i64* strides, F&& f)
{
    if (volumeOf(box, n) == 0) return;
    if (n == 0) {
        f(0, 1);
        return;
    }
    i64 idx[32];
    for (size_t k = 0; k + 1 < n; ++k)
        idx[k] = box[k].begin;
    while (true) {
        i64 flat = box[n - 1].begin;
        for (size_t k = 0; k + 1 < n; ++k)
            flat += idx[k] * strides[k];
        f(flat, box[n - 1].size());
        size_t k = n - 1;
        while (k > 0 && ++idx[k - 1] == box[k - 1].end) {
            idx[k - 1] = box[k - 1].begin;
            --k;
        }
        if (k == 0) return;
    }
}

/// Appends to `out` the disjoint, non-empty slabs of `box` outside `kept` (all of `box` when !haveKept).
size_t appendOutside(
    const AxisSpan* box, const AxisSpan* kept, bool haveKept, size_t n, std::vector<AxisSpan>& out)
{
    if (volumeOf(box, n) == 0) return 0;
    bool disjoint = !haveKept;
    for (size_t k = 0; k < n && !disjoint; ++k)
        disjoint = overlap(box[k], kept[k]).size() == 0;
    if (disjoint) {
        append(out, box, n);
        return 1;
    }
    size_t added = 0;
    AxisSpan slab[32];
    for (size_t i = 0; i < n; ++i) {
        for (size_t k = 0; k < n; ++k)
            slab[k] = k < i ? overlap(box[k], kept[k]) : box[k];
        for (AxisSpan side : {AxisSpan{box[i].begin, std::min(box[i].end, kept[i].begin)},
                 AxisSpan{std::max(box[i].begin, kept[i].end), box[i].end}}) {
            slab[i] = side;
            if (volumeOf(slab, n) == 0) continue;
            append(out, slab, n);
            ++added;
        }
    }
    return added;
}

} // namespace pe_fetch_detail

using namespace pe_fetch_detail;

void PeFetchCounter::reset(const std::vector<std::vector<i64>>& extents, i64 pes, arch::Multicast multicast)
{
    multicast_ = multicast;
    tensors_.resize(extents.size());
    axesPerRecord_ = 0;
    for (size_t t = 0; t < extents.size(); ++t) {
        Tensor& x = tensors_[t];
        x.extents = extents[t];
        x.strides.assign(x.extents.size(), 1);
        i64 elements = 1;
        for (size_t k = x.extents.size(); k-- > 0;) {
            x.strides[k] = elements;
            elements *= std::max<i64>(x.extents[k], 1);
        }
        // Stamps of earlier rounds are all below the next one: a tensor of the same size keeps its array
        // (made when first needed).
        if (x.stamp.size() != size_t(elements)) x.stamp.clear();
        x.elements = size_t(elements);
        x.offset = axesPerRecord_;
        axesPerRecord_ += x.extents.size();
    }
    if (round_ > 0xF0000000u) {
        for (auto& x : tensors_)
            std::fill(x.stamp.begin(), x.stamp.end(), 0u);
        std::fill(cellStamp_.begin(), cellStamp_.end(), 0u);
        round_ = 0;
    }
    size_t axes = 0;
    for (const Tensor& x : tensors_)
        axes = std::max(axes, x.extents.size());
    if (cuts_.size() < axes) cuts_.resize(axes);
    runs_.clear();
    spans_.clear();
    deltas_.clear();
    pendingFrom_ = 0;
    lastRun_.assign(size_t(pes), -1);
    keptRun_.assign(size_t(pes), -1);
    size_t slots = 16;
    while (slots < 2 * size_t(pes) + 2)
        slots *= 2;
    if (slotStamp_.size() != slots) {
        slotStamp_.assign(slots, 0);
        slotEntry_.assign(slots, 0);
    }
    reads_.assign(extents.empty() ? 0 : extents.size() - 1, 0);
    updates_ = 0;
}

void PeFetchCounter::addRun(
    i64 frame, i64 pe0, i64 count, bool holds, bool computes, const AxisSpan* tiles, const i64* deltas)
{
    if (count <= 0) return;
    computes = computes && holds;
    if (count == 1) deltas = nullptr;
    if (count > 1 && !deltas) { // PEs holding identical tiles
        zeroDeltas_.assign(axesPerRecord_, 0);
        deltas = zeroDeltas_.data();
    }
    const size_t first = size_t(pe0), last = size_t(pe0 + count);
    // PEs recorded again as they were fetch and return nothing: most PEs in most frames of a walk.
    if (!holds) {
        bool held = false;
        for (size_t pe = first; pe < last && !held; ++pe)
            held = lastRun_[pe] >= 0 && runs_[size_t(lastRun_[pe])].holds;
        if (!held) return;
    } else if (const i64 at = lastRun_[first]; at >= 0) {
        const Run& r = runs_[size_t(at)];
        bool same = r.pe0 == pe0 && r.count == count && r.holds && r.computes == computes
            && std::equal(tiles, tiles + axesPerRecord_, spans_.data() + r.tiles);
        if (same && count > 1) same = std::equal(deltas, deltas + axesPerRecord_, deltas_.data() + r.deltas);
        for (size_t pe = first + 1; pe < last && same; ++pe)
            same = lastRun_[pe] == at;
        if (same) return;
    }
    Run r;
    r.frame = frame;
    r.pe0 = pe0;
    r.count = count;
    r.holds = holds;
    r.computes = computes;
    if (holds) {
        r.tiles = spans_.size();
        append(spans_, tiles, axesPerRecord_);
        if (deltas) {
            r.deltas = deltas_.size();
            append(deltas_, deltas, axesPerRecord_);
        }
    }
    const i64 at = i64(runs_.size());
    runs_.push_back(r);
    std::fill(lastRun_.begin() + std::ptrdiff_t(first), lastRun_.begin() + std::ptrdiff_t(last), at);
}

void PeFetchCounter::clearBoxes()
{
    boxes_.clear();
    moved_.clear();
    entries_.clear();
    boxCount_ = 0;
    seen_.clear();
    if (++seenRound_ == 0) {
        std::fill(slotStamp_.begin(), slotStamp_.end(), 0u);
        seenRound_ = 1;
    }
}

void PeFetchCounter::collectOutside(const AxisSpan* box, const AxisSpan* kept, bool haveKept, size_t n,
    const i64* deltas, i64 count, const i64* deltas2, i64 count2)
{
    if (haveKept && std::equal(box, box + n, kept)) return;
    if (count2 > 1 && deltas2) {
        // Runs side by side (the clusters of a level): moved along a second axis. Kept as one entry when
        // both moves are along one axis each, two different ones, by positive steps; else run by run.
        int axis = -1, axis2 = -1;
        bool each = false;
        for (size_t k = 0; k < n; ++k) {
            if (count > 1 && deltas && deltas[k] != 0) {
                each = each || axis >= 0 || deltas[k] < 0;
                axis = int(k);
            }
            if (deltas2[k] != 0) {
                each = each || axis2 >= 0 || deltas2[k] < 0;
                axis2 = int(k);
            }
        }
        if (axis2 >= 0 && (each || axis == axis2)) {
            for (i64 i = 0; i < count2; ++i) {
                std::array<AxisSpan, 64>& m = moved_.emplace_back();
                for (size_t k = 0; k < n; ++k) {
                    m[k] = AxisSpan{box[k].begin + i * deltas2[k], box[k].end + i * deltas2[k]};
                    if (haveKept)
                        m[n + k] = AxisSpan{kept[k].begin + i * deltas2[k], kept[k].end + i * deltas2[k]};
                }
                collectOutside(m.data(), haveKept ? m.data() + n : nullptr, haveKept, n, deltas, count);
            }
            return;
        }
        if (axis2 >= 0) {
            boxCount_ += appendOutside(box, kept, haveKept, n, boxes_);
            const Entry e{
                axis, axis >= 0 ? deltas[axis] : 0, axis >= 0 ? count : 1, axis2, deltas2[axis2], count2};
            while (entries_.size() < boxCount_)
                entries_.push_back(e);
            return;
        }
    }
    // The PEs of a run move along one axis (a cluster's spatial dimension), by a positive step: their
    // boxes are kept as one entry. Otherwise (never in a walk) each PE's is added.
    int axis = -1;
    bool each = false;
    if (count > 1 && deltas)
        for (size_t k = 0; k < n; ++k) {
            if (deltas[k] == 0) continue;
            each = each || axis >= 0 || deltas[k] < 0;
            axis = int(k);
        }
    if (each) {
        AxisSpan b[32], c[32];
        for (i64 j = 0; j < count; ++j) {
            for (size_t k = 0; k < n; ++k) {
                b[k] = AxisSpan{box[k].begin + j * deltas[k], box[k].end + j * deltas[k]};
                if (haveKept) c[k] = AxisSpan{kept[k].begin + j * deltas[k], kept[k].end + j * deltas[k]};
            }
            const size_t added = appendOutside(b, c, haveKept, n, boxes_);
            boxCount_ += added;
            while (entries_.size() < boxCount_)
                entries_.push_back(Entry{});
        }
        return;
    }
    if (axis < 0) {
        deltas = nullptr;
        count = 1;
    }
    // PEs that fetch alike (the same tile, the same one kept) add one box: in most frames many PEs do, PEs
    // side by side often. Which pairs were seen is looked up only for boxes larger than a hash costs.
    auto same = [&](const Seen& s) {
        return s.haveKept == haveKept && s.count == count && std::equal(box, box + n, s.box)
            && (!haveKept || std::equal(kept, kept + n, s.kept))
            && (!deltas || std::equal(deltas, deltas + n, s.deltas));
    };
    if (!seen_.empty() && same(seen_.back())) return;
    if (volumeOf(box, n) >= 16 && seen_.size() * 2 < slotStamp_.size()) {
        std::uint64_t h = haveKept ? 0x9E3779B97F4A7C15ull : 0x2545F4914F6CDD1Dull;
        h ^= std::uint64_t(count) * 0x94D049BB133111EBull;
        for (size_t k = 0; k < n; ++k) {
            h = (h ^ std::uint64_t(box[k].begin + (box[k].end << 20))) * 0xFF51AFD7ED558CCDull;
            if (haveKept)
                h = (h ^ std::uint64_t(kept[k].begin + (kept[k].end << 20))) * 0xC4CEB9FE1A85EC53ull;
        }
        const size_t mask = slotStamp_.size() - 1;
        for (size_t slot = size_t(h ^ (h >> 31)) & mask;; slot = (slot + 1) & mask) {
            if (slotStamp_[slot] != seenRound_) {
                slotStamp_[slot] = seenRound_;
                slotEntry_[slot] = std::uint32_t(seen_.size());
                break;
            }
            if (same(seen_[slotEntry_[slot]])) return;
        }
    }
    seen_.push_back(Seen{box, kept, deltas, count, haveKept});
    boxCount_ += appendOutside(box, kept, haveKept, n, boxes_);
    const Entry e{axis, axis >= 0 ? deltas[axis] : 0, count, -1, 0, 1};
    while (entries_.size() < boxCount_)
        entries_.push_back(e);
}

i64 PeFetchCounter::unionOf(Tensor& x, const AxisSpan* boxes, size_t count)
{
    const size_t n = x.extents.size();
    if (count == 0) return 0;
    if (count == 1) return volumeOf(boxes, n);
    i64 sum = 0;
    for (size_t b = 0; b < count; ++b)
        sum += volumeOf(boxes + b * n, n);
    const std::uint32_t round = ++round_;
    i64 volume = 0;
    // Small boxes (the usual frame: a few elements a PE) are counted element by element; large ones by
    // coordinate compression, the boxes' edges cutting every axis into intervals and the union counted over
    // the cells they make.
    size_t cells = 1;
    bool compress = sum > i64(32 * count);
    for (size_t k = 0; k < n && compress; ++k) {
        std::vector<i64>& c = cuts_[k];
        c.clear();
        for (size_t b = 0; b < count; ++b) {
            c.push_back(boxes[b * n + k].begin);
            c.push_back(boxes[b * n + k].end);
        }
        std::sort(c.begin(), c.end());
        c.erase(std::unique(c.begin(), c.end()), c.end());
        cells *= c.size() - 1;
        compress = cells <= (size_t(1) << 20);
    }
    if (!compress) {
        if (x.stamp.size() != x.elements) x.stamp.assign(x.elements, 0);
        std::uint32_t* stamp = x.stamp.data();
        const i64* strides = x.strides.data();
        for (size_t b = 0; b < count; ++b)
            forEachRow(boxes + b * n, n, strides, [&](i64 first, i64 length) {
                for (i64 e = first; e < first + length; ++e)
                    if (stamp[e] != round) {
                        stamp[e] = round;
                        ++volume;
                    }
            });
        return volume;
    }
    if (cellStamp_.size() < cells) cellStamp_.resize(cells, 0);
    size_t lo[32], hi[32], idx[32], stride[32];
    for (size_t k = n, s = 1; k-- > 0;) {
        stride[k] = s;
        s *= cuts_[k].size() - 1;
    }
    for (size_t b = 0; b < count; ++b) {
        const AxisSpan* box = boxes + b * n;
        for (size_t k = 0; k < n; ++k) {
            const std::vector<i64>& c = cuts_[k];
            lo[k] = size_t(std::lower_bound(c.begin(), c.end(), box[k].begin) - c.begin());
            hi[k] = size_t(std::lower_bound(c.begin(), c.end(), box[k].end) - c.begin());
            idx[k] = lo[k];
        }
        while (true) {
            size_t cell = 0;
            i64 cellVolume = 1;
            for (size_t k = 0; k < n; ++k) {
                cell += idx[k] * stride[k];
                cellVolume *= cuts_[k][idx[k] + 1] - cuts_[k][idx[k]];
            }
            if (cellStamp_[cell] != round) {
                cellStamp_[cell] = round;
                volume += cellVolume;
            }
            size_t k = n;
            while (k > 0 && ++idx[k - 1] == hi[k - 1]) {
                idx[k - 1] = lo[k - 1];
                --k;
            }
            if (k == 0) break;
        }
    }
    return volume;
}

i64 PeFetchCounter::collectedVolume(Tensor& x)
{
    const size_t n = x.extents.size();
    // Runs moved along a second axis: each run's translates merged when they overlap or touch, then the
    // runs' (else each run's translates one entry).
    for (size_t b = 0, end = boxCount_; b < end; ++b) {
        if (entries_[b].axis2 < 0) continue;
        Entry e = entries_[b];
        AxisSpan* box = boxes_.data() + b * n;
        if (e.axis >= 0 && e.step <= box[e.axis].size()) {
            box[e.axis].end += (e.count - 1) * e.step;
            e.axis = -1;
            e.step = 0;
            e.count = 1;
        }
        const Entry runs{e.axis, e.step, e.count, -1, 0, 1};
        if (e.axis < 0) {
            if (e.step2 <= box[e.axis2].size()) {
                box[e.axis2].end += (e.count2 - 1) * e.step2;
                entries_[b] = runs;
            } else {
                entries_[b] = Entry{e.axis2, e.step2, e.count2, -1, 0, 1};
            }
            continue;
        }
        entries_[b] = runs;
        for (i64 i = 1; i < e.count2; ++i) {
            for (size_t k = 0; k < n; ++k) {
                AxisSpan s = boxes_[b * n + k];
                if (int(k) == e.axis2) s = AxisSpan{s.begin + i * e.step2, s.end + i * e.step2};
                boxes_.push_back(s);
            }
            entries_.push_back(runs);
            ++boxCount_;
        }
    }
    // Translates that overlap or touch along their axis make one box.
    bool moved = false;
    for (size_t b = 0; b < boxCount_; ++b) {
        Entry& e = entries_[b];
        if (e.axis < 0) continue;
        AxisSpan& s = boxes_[b * n + size_t(e.axis)];
        if (e.step <= s.size()) {
            s.end += (e.count - 1) * e.step;
            e = Entry{};
        } else {
            moved = true;
        }
    }
    if (!moved) return unionOf(x, boxes_.data(), boxCount_);
    // Translates apart, all along one axis by one step: when every box lies within one window [lo + w step,
    // lo + (w+1) step) of that axis (a translate's box in window w + j), the windows share nothing and the
    // union is, window after window, that of the boxes there moved back into the first window.
    int axis = -1;
    i64 step = 0, lo = 0;
    bool windows = true;
    for (size_t b = 0; b < boxCount_ && windows; ++b) {
        const Entry& e = entries_[b];
        if (e.axis < 0) continue;
        if (axis < 0) {
            axis = e.axis;
            step = e.step;
        }
        windows = e.axis == axis && e.step == step;
    }
    if (windows) {
        lo = boxes_[size_t(axis)].begin;
        for (size_t b = 1; b < boxCount_; ++b)
            lo = std::min(lo, boxes_[b * n + size_t(axis)].begin);
    }
    for (size_t b = 0; b < boxCount_ && windows; ++b) {
        const AxisSpan& s = boxes_[b * n + size_t(axis)];
        windows = s.end <= lo + ((s.begin - lo) / step + 1) * step; // s.begin >= lo
    }
    breaks_.clear();
    for (size_t b = 0; b < boxCount_ && windows; ++b) {
        Entry& e = entries_[b];
        AxisSpan& s = boxes_[b * n + size_t(axis)];
        const i64 w = (s.begin - lo) / step;
        s.begin -= w * step;
        s.end -= w * step;
        // The windows the box's translates lie in, [w, w + count): kept as (step, count).
        e.step = w;
        breaks_.push_back(w);
        breaks_.push_back(w + e.count);
    }
    if (!windows) {
        // Each translate a box of its own.
        partBoxes_.clear();
        for (size_t b = 0; b < boxCount_; ++b) {
            const Entry& e = entries_[b];
            const AxisSpan* box = boxes_.data() + b * n;
            for (i64 j = 0; j < e.count; ++j) {
                append(partBoxes_, box, n);
                if (e.axis >= 0) {
                    partBoxes_[partBoxes_.size() - n + size_t(e.axis)].begin += j * e.step;
                    partBoxes_[partBoxes_.size() - n + size_t(e.axis)].end += j * e.step;
                }
            }
        }
        return unionOf(x, partBoxes_.data(), partBoxes_.size() / n);
    }
    std::sort(breaks_.begin(), breaks_.end());
    breaks_.erase(std::unique(breaks_.begin(), breaks_.end()), breaks_.end());
    i64 volume = 0;
    for (size_t i = 0; i + 1 < breaks_.size(); ++i) {
        const i64 from = breaks_[i], to = breaks_[i + 1];
        partBoxes_.clear();
        for (size_t b = 0; b < boxCount_; ++b) {
            const Entry& e = entries_[b];
            if (e.step <= from && from < e.step + e.count) append(partBoxes_, boxes_.data() + b * n, n);
        }
        volume += (to - from) * unionOf(x, partBoxes_.data(), partBoxes_.size() / n);
    }
    return volume;
}

const AxisSpan* PeFetchCounter::tileAt(const Run& r, i64 j)
{
    const AxisSpan* tiles = spans_.data() + r.tiles;
    if (j == 0 || r.deltas == kNone) return tiles;
    const AxisSpan* at = scratch_.data() + scratch_.size();
    const i64* d = deltas_.data() + r.deltas;
    for (size_t k = 0; k < axesPerRecord_; ++k)
        scratch_.push_back(AxisSpan{tiles[k].begin + j * d[k], tiles[k].end + j * d[k]});
    return at;
}

void PeFetchCounter::buildItems()
{
    items_.clear();
    scratch_.clear();
    // Room for every PE's tiles: what tileAt returns stays in place.
    size_t pes = 0;
    for (size_t g : group_)
        pes += size_t(runs_[g].count);
    scratch_.reserve(2 * pes * axesPerRecord_);
    for (size_t g : group_) {
        const Run& r = runs_[g];
        // The run's PEs by what they held at their previous frame: runs of PEs that held one earlier run.
        for (i64 s = r.pe0, end = r.pe0 + r.count; s < end;) {
            const i64 x = keptRun_[size_t(s)];
            i64 m = 1;
            while (s + m < end && keptRun_[size_t(s + m)] == x)
                ++m;
            const Run* was = x >= 0 ? &runs_[size_t(x)] : nullptr;
            Item it;
            it.holds = r.holds;
            it.computes = r.computes;
            it.held = was && was->holds;
            it.heldOut = was && was->computes;
            if (r.holds || it.heldOut) {
                // Both moving alike, each PE's fetch is the first one's moved: one item. Else one a PE.
                const bool alike = m == 1 || !r.holds || !it.held
                    || std::equal(deltas_.data() + r.deltas, deltas_.data() + r.deltas + axesPerRecord_,
                        deltas_.data() + was->deltas);
                for (i64 i = 0; i < (alike ? 1 : m); ++i) {
                    it.count = alike ? m : 1;
                    it.tile = r.holds ? tileAt(r, s + i - r.pe0) : nullptr;
                    it.kept = it.held ? tileAt(*was, s + i - was->pe0) : nullptr;
                    const size_t d = it.count == 1 ? kNone : r.holds ? r.deltas : was->deltas;
                    it.deltas = d == kNone ? nullptr : deltas_.data() + d;
                    items_.push_back(it);
                }
            }
            s += m;
        }
    }
}

void PeFetchCounter::collectFolded(Tensor& x, bool outputs)
{
    const size_t n = x.extents.size();
    // What an item fetches (inputs: its tiles outside what it kept) or returns (outputs: the partial sums it
    // kept outside its tiles when it computes).
    auto fetchOf = [&](const Item& it) {
        Fetch f;
        f.box = (outputs ? it.kept : it.tile) + x.offset;
        f.haveKept = outputs ? it.computes : it.held;
        if (f.haveKept) f.kept = (outputs ? it.tile : it.kept) + x.offset;
        f.deltas = it.deltas ? it.deltas + x.offset : nullptr;
        f.count = it.count;
        return f;
    };
    // Consecutive items moved alike, each by one step from the previous (the runs of a level's sub-units
    // walked as one moved: theirs come one after the other), are added as one.
    folds_.clear();
    folds_.reserve(items_.size() * n);
    i64 step[32];
    fetches_.clear();
    for (const Item& it : items_)
        if (outputs ? it.heldOut : it.holds) fetches_.push_back(fetchOf(it));
    for (size_t i = 0; i < fetches_.size();) {
        const Fetch& f = fetches_[i];
        size_t m = 1;
        for (; i + m < fetches_.size(); ++m) {
            const Fetch &g = fetches_[i + m], &p = fetches_[i + m - 1];
            if (g.count != f.count || g.haveKept != f.haveKept
                || (g.deltas == nullptr) != (f.deltas == nullptr)
                || (g.deltas && !std::equal(g.deltas, g.deltas + n, f.deltas)))
                break;
            bool alike = true;
            for (size_t k = 0; k < n && alike; ++k) {
                const i64 d = g.box[k].begin - p.box[k].begin;
                if (m == 1) step[k] = d;
                alike = d == step[k] && g.box[k].end - p.box[k].end == d
                    && (!g.haveKept
                        || (g.kept[k].begin - p.kept[k].begin == d && g.kept[k].end - p.kept[k].end == d));
            }
            if (!alike) break;
        }
        const i64* deltas2 = nullptr;
        if (m > 1) {
            deltas2 = folds_.data() + folds_.size();
            for (size_t k = 0; k < n; ++k)
                folds_.push_back(step[k]);
        }
        collectOutside(f.box, f.kept, f.haveKept, n, f.deltas, f.count, deltas2, i64(m));
        i += m;
    }
}

i64 PeFetchCounter::inputReads(int t)
{
    Tensor& x = tensors_[size_t(t)];
    const size_t n = x.extents.size();
    auto deltasOf = [&](const Item& it) { return it.deltas ? it.deltas + x.offset : nullptr; };
    if (multicast_ == arch::Multicast::None) {
        i64 reads = 0;
        for (const Item& it : items_) {
            if (!it.holds) continue;
            const AxisSpan* tile = it.tile + x.offset;
            i64 both = it.held ? 1 : 0;
            for (size_t k = 0; k < n && both; ++k)
                both *= overlap(tile[k], it.kept[x.offset + k]).size();
            reads += it.count * (volumeOf(tile, n) - both);
        }
        return reads;
    }
    clearBoxes();
    if (multicast_ == arch::Multicast::Elements) {
        collectFolded(x, false);
        return collectedVolume(x);
    }
    // Tiles: PEs fetching identical tiles share a send, each group of them its own. Every PE's tile and what
    // it kept, side by side (PEs of an item not moving on this tensor's axes fetch alike: one is enough).
    tileScratch_.clear();
    for (const Item& it : items_) {
        if (!it.holds) continue;
        const i64* d = deltasOf(it);
        bool moves = false;
        for (size_t k = 0; d && k < n; ++k)
            moves = moves || d[k] != 0;
        for (i64 j = 0; j < (moves ? it.count : 1); ++j)
            for (const AxisSpan* which : {it.tile, it.kept})
                for (size_t k = 0; k < n; ++k) {
                    const AxisSpan s = which ? which[x.offset + k] : AxisSpan{};
                    const i64 shift = moves ? j * d[k] : 0;
                    tileScratch_.push_back(AxisSpan{s.begin + shift, s.end + shift});
                }
    }
    // (held is per item: kept spans are empty boxes when not held, which keep nothing.)
    const size_t pes = tileScratch_.size() / (2 * n);
    tileOrder_.resize(pes);
    for (size_t i = 0; i < pes; ++i)
        tileOrder_[i] = i;
    const AxisSpan* all = tileScratch_.data();
    std::stable_sort(tileOrder_.begin(), tileOrder_.end(), [&](size_t a, size_t b) {
        const AxisSpan* ta = all + a * 2 * n;
        const AxisSpan* tb = all + b * 2 * n;
        for (size_t k = 0; k < n; ++k)
            if (ta[k].begin != tb[k].begin || ta[k].end != tb[k].end)
                return ta[k].begin != tb[k].begin ? ta[k].begin < tb[k].begin : ta[k].end < tb[k].end;
        return false;
    });
    i64 reads = 0;
    const AxisSpan* previous = nullptr;
    for (size_t i : tileOrder_) {
        const AxisSpan* tile = all + i * 2 * n;
        if (previous && !std::equal(tile, tile + n, previous)) {
            reads += collectedVolume(x);
            clearBoxes();
        }
        previous = tile;
        collectOutside(tile, tile + n, volumeOf(tile + n, n) > 0, n);
    }
    return reads + collectedVolume(x);
}

i64 PeFetchCounter::outputUpdates()
{
    Tensor& x = tensors_.back();
    // Partial sums a PE held at its previous frame and no longer holds, each output once in the frame.
    clearBoxes();
    collectFolded(x, true);
    return collectedVolume(x);
}

void PeFetchCounter::flush()
{
    if (runs_.size() == pendingFrom_) return;
    const size_t from = pendingFrom_, pending = runs_.size() - from;
    // Runs in frame order, each frame's in the order they came: a counting sort over the frames, which are
    // dense (one executed innermost step after another).
    i64 lo = runs_[from].frame, hi = lo;
    for (size_t i = from; i < runs_.size(); ++i) {
        lo = std::min(lo, runs_[i].frame);
        hi = std::max(hi, runs_[i].frame);
    }
    order_.resize(pending);
    if (hi - lo < i64(4 * pending + 64)) {
        starts_.assign(size_t(hi - lo + 2), 0);
        for (size_t i = from; i < runs_.size(); ++i)
            ++starts_[size_t(runs_[i].frame - lo + 1)];
        for (size_t f = 1; f < starts_.size(); ++f)
            starts_[f] += starts_[f - 1];
        for (size_t i = from; i < runs_.size(); ++i)
            order_[starts_[size_t(runs_[i].frame - lo)]++] = i;
    } else {
        for (size_t i = 0; i < pending; ++i)
            order_[i] = from + i;
        std::stable_sort(order_.begin(), order_.end(),
            [&](size_t a, size_t b) { return runs_[a].frame < runs_[b].frame; });
    }
    const int nInputs = int(tensors_.size()) - 1;
    for (size_t first = 0; first < order_.size();) {
        size_t last = first;
        while (last < order_.size() && runs_[order_[last]].frame == runs_[order_[first]].frame)
            ++last;
        group_.assign(order_.begin() + std::ptrdiff_t(first), order_.begin() + std::ptrdiff_t(last));
        buildItems();
        for (int t = 0; t < nInputs; ++t)
            reads_[size_t(t)] += inputReads(t);
        updates_ += outputUpdates();
        for (size_t g : group_) {
            const Run& r = runs_[g];
            std::fill(keptRun_.begin() + std::ptrdiff_t(r.pe0),
                keptRun_.begin() + std::ptrdiff_t(r.pe0 + r.count), i64(g));
        }
        first = last;
    }
    compact();
}

void PeFetchCounter::compact()
{
    std::vector<Run>& runs = compactRuns_;
    std::vector<AxisSpan>& spans = compactSpans_;
    std::vector<i64>& deltas = compactDeltas_;
    runs.clear();
    spans.clear();
    deltas.clear();
    remap_.assign(runs_.size(), -1);
    for (i64& x : keptRun_) {
        if (x < 0) continue;
        i64& to = remap_[size_t(x)];
        if (to < 0) {
            Run r = runs_[size_t(x)];
            if (r.tiles != kNone) {
                const size_t at = spans.size();
                append(spans, spans_.data() + r.tiles, axesPerRecord_);
                r.tiles = at;
            }
            if (r.deltas != kNone) {
                const size_t at = deltas.size();
                append(deltas, deltas_.data() + r.deltas, axesPerRecord_);
                r.deltas = at;
            }
            to = i64(runs.size());
            runs.push_back(r);
        }
        x = to;
    }
    runs_.swap(runs);
    spans_.swap(spans);
    deltas_.swap(deltas);
    pendingFrom_ = runs_.size();
    lastRun_ = keptRun_;
}

void PeFetchCounter::finish()
{
    flush();
    Tensor& x = tensors_.back();
    const size_t n = x.extents.size();
    clearBoxes();
    scratch_.clear();
    scratch_.reserve(keptRun_.size() * axesPerRecord_);
    // Every PE's partial sums, by runs of PEs holding one earlier run (their tiles in scratch_ first: the
    // union keeps pointers to them).
    items_.clear();
    for (size_t s = 0; s < keptRun_.size();) {
        const i64 r = keptRun_[s];
        size_t m = 1;
        while (s + m < keptRun_.size() && keptRun_[s + m] == r)
            ++m;
        if (r >= 0 && runs_[size_t(r)].computes) {
            const Run& was = runs_[size_t(r)];
            Item it;
            it.count = i64(m);
            it.kept = tileAt(was, i64(s) - was.pe0);
            it.deltas = m == 1 ? nullptr : deltas_.data() + was.deltas;
            items_.push_back(it);
        }
        s += m;
    }
    for (const Item& it : items_)
        collectOutside(
            it.kept + x.offset, nullptr, false, n, it.deltas ? it.deltas + x.offset : nullptr, it.count);
    updates_ += collectedVolume(x);
    // The PEs keep their tiles but hold no partial sums any more.
    for (Run& r : runs_)
        r.computes = false;
}

} // namespace marvel::cost
