#include "core/cost/pe_fetches.h"

#include <algorithm>

namespace marvel::cost {

namespace pe_fetch_detail {

using i64 = std::int64_t;

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
        out.insert(out.end(), box, box + n);
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
            out.insert(out.end(), slab, slab + n);
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
    records_.clear();
    spans_.clear();
    // What a PE keeps is read only while held_ or heldOut_ says it holds something: no need to clear it.
    if (kept_.size() < size_t(pes) * axesPerRecord_) kept_.resize(size_t(pes) * axesPerRecord_);
    held_.assign(size_t(pes), 0);
    heldOut_.assign(size_t(pes), 0);
    lastRecord_.assign(size_t(pes), -1);
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

void PeFetchCounter::add(i64 frame, i64 pe, bool holds, bool computes, const AxisSpan* tiles)
{
    computes = computes && holds;
    // A PE recorded again as it was fetches and returns nothing: most PEs in most frames of a walk.
    const AxisSpan* last = nullptr;
    bool lastHolds = false, lastComputes = false;
    if (const std::int64_t at = lastRecord_[size_t(pe)]; at >= 0) {
        const Record& r = records_[size_t(at)];
        last = spans_.data() + r.tiles;
        lastHolds = r.holds;
        lastComputes = r.computes;
    } else {
        last = kept_.data() + size_t(pe) * axesPerRecord_;
        lastHolds = held_[size_t(pe)] != 0;
        lastComputes = heldOut_[size_t(pe)] != 0;
    }
    if (holds == lastHolds && computes == lastComputes
        && (!holds || std::equal(tiles, tiles + axesPerRecord_, last)))
        return;
    Record r;
    r.frame = frame;
    r.pe = pe;
    r.holds = holds;
    r.computes = computes;
    r.tiles = spans_.size();
    spans_.resize(spans_.size() + axesPerRecord_);
    if (holds) std::copy(tiles, tiles + axesPerRecord_, spans_.end() - std::ptrdiff_t(axesPerRecord_));
    lastRecord_[size_t(pe)] = std::int64_t(records_.size());
    records_.push_back(r);
}

void PeFetchCounter::clearBoxes()
{
    boxes_.clear();
    boxCount_ = 0;
    seen_.clear();
    if (++seenRound_ == 0) {
        std::fill(slotStamp_.begin(), slotStamp_.end(), 0u);
        seenRound_ = 1;
    }
}

void PeFetchCounter::collectOutside(const AxisSpan* box, const AxisSpan* kept, bool haveKept, size_t n)
{
    if (haveKept && std::equal(box, box + n, kept)) return;
    // PEs that fetch alike (the same tile, the same one kept) add one box: in most frames many PEs do, PEs
    // side by side often. Which pairs were seen is looked up only for boxes larger than a hash costs.
    auto same = [&](const Seen& s) {
        return s.haveKept == haveKept && std::equal(box, box + n, s.box)
            && (!haveKept || std::equal(kept, kept + n, s.kept));
    };
    if (!seen_.empty() && same(seen_.back())) return;
    if (volumeOf(box, n) >= 16 && seen_.size() * 2 < slotStamp_.size()) {
        std::uint64_t h = haveKept ? 0x9E3779B97F4A7C15ull : 0x2545F4914F6CDD1Dull;
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
    seen_.push_back(Seen{box, kept, haveKept});
    boxCount_ += appendOutside(box, kept, haveKept, n, boxes_);
}

i64 PeFetchCounter::unionVolume(Tensor& x)
{
    const size_t n = x.extents.size();
    if (boxCount_ == 0) return 0;
    if (boxCount_ == 1) return volumeOf(boxes_.data(), n);
    i64 sum = 0;
    for (size_t b = 0; b < boxCount_; ++b)
        sum += volumeOf(boxes_.data() + b * n, n);
    const std::uint32_t round = ++round_;
    i64 volume = 0;
    // Small boxes (the usual frame: a few elements a PE) are counted element by element; large ones by
    // coordinate compression, the boxes' edges cutting every axis into intervals and the union counted over
    // the cells they make.
    size_t cells = 1;
    bool compress = sum > i64(32 * boxCount_);
    for (size_t k = 0; k < n && compress; ++k) {
        std::vector<i64>& c = cuts_[k];
        c.clear();
        for (size_t b = 0; b < boxCount_; ++b) {
            c.push_back(boxes_[b * n + k].begin);
            c.push_back(boxes_[b * n + k].end);
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
        for (size_t b = 0; b < boxCount_; ++b)
            forEachRow(boxes_.data() + b * n, n, strides, [&](i64 first, i64 length) {
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
    for (size_t b = 0; b < boxCount_; ++b) {
        const AxisSpan* box = boxes_.data() + b * n;
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

void PeFetchCounter::flush()
{
    if (records_.empty()) return;
    // Records in frame order, each frame's in the order they came: a counting sort over the frames, which
    // are dense (one executed innermost step after another).
    i64 lo = records_.front().frame, hi = lo;
    for (const Record& r : records_) {
        lo = std::min(lo, r.frame);
        hi = std::max(hi, r.frame);
    }
    order_.resize(records_.size());
    if (hi - lo < i64(4 * records_.size() + 64)) {
        starts_.assign(size_t(hi - lo + 2), 0);
        for (const Record& r : records_)
            ++starts_[size_t(r.frame - lo + 1)];
        for (size_t f = 1; f < starts_.size(); ++f)
            starts_[f] += starts_[f - 1];
        for (size_t i = 0; i < records_.size(); ++i)
            order_[starts_[size_t(records_[i].frame - lo)]++] = i;
    } else {
        for (size_t i = 0; i < order_.size(); ++i)
            order_[i] = i;
        std::stable_sort(order_.begin(), order_.end(),
            [&](size_t a, size_t b) { return records_[a].frame < records_[b].frame; });
    }
    const int nInputs = int(tensors_.size()) - 1;
    std::vector<size_t> group;
    for (size_t first = 0; first < order_.size();) {
        size_t last = first;
        while (last < order_.size() && records_[order_[last]].frame == records_[order_[first]].frame)
            ++last;
        group.assign(order_.begin() + std::ptrdiff_t(first), order_.begin() + std::ptrdiff_t(last));
        for (int t = 0; t < nInputs; ++t) {
            Tensor& x = tensors_[size_t(t)];
            const size_t n = x.extents.size();
            auto keptOf
                = [&](const Record& r) { return kept_.data() + size_t(r.pe) * axesPerRecord_ + x.offset; };
            if (multicast_ == arch::Multicast::None) {
                for (size_t i : group) {
                    const Record& r = records_[i];
                    if (!r.holds) continue;
                    i64 both = held_[size_t(r.pe)] ? 1 : 0;
                    for (size_t k = 0; k < n; ++k)
                        both *= overlap(tileOf(r, t)[k], keptOf(r)[k]).size();
                    reads_[size_t(t)] += volumeOf(tileOf(r, t), n) - both;
                }
                continue;
            }
            // Tiles: PEs fetching identical tiles share a send, each group of them its own.
            if (multicast_ == arch::Multicast::Tiles)
                std::stable_sort(group.begin(), group.end(), [&](size_t a, size_t b) {
                    const AxisSpan* ta = tileOf(records_[a], t);
                    const AxisSpan* tb = tileOf(records_[b], t);
                    for (size_t k = 0; k < n; ++k)
                        if (ta[k].begin != tb[k].begin || ta[k].end != tb[k].end)
                            return ta[k].begin != tb[k].begin ? ta[k].begin < tb[k].begin
                                                              : ta[k].end < tb[k].end;
                    return false;
                });
            clearBoxes();
            const AxisSpan* previous = nullptr;
            for (size_t i : group) {
                const Record& r = records_[i];
                if (!r.holds) continue;
                const AxisSpan* tile = tileOf(r, t);
                if (multicast_ == arch::Multicast::Tiles && previous
                    && !std::equal(tile, tile + n, previous)) {
                    reads_[size_t(t)] += unionVolume(x);
                    clearBoxes();
                }
                previous = tile;
                collectOutside(tile, keptOf(r), held_[size_t(r.pe)] != 0, n);
            }
            reads_[size_t(t)] += unionVolume(x);
        }
        // Partial sums a PE held at its previous frame and no longer holds, each output once in the frame.
        {
            Tensor& x = tensors_.back();
            const size_t n = x.extents.size();
            clearBoxes();
            for (size_t i : group) {
                const Record& r = records_[i];
                if (!heldOut_[size_t(r.pe)]) continue;
                const AxisSpan* was = kept_.data() + size_t(r.pe) * axesPerRecord_ + x.offset;
                collectOutside(was, tileOf(r, nInputs), r.computes, n);
            }
            updates_ += unionVolume(x);
        }
        for (size_t i : group) {
            const Record& r = records_[i];
            std::copy(spans_.begin() + std::ptrdiff_t(r.tiles),
                spans_.begin() + std::ptrdiff_t(r.tiles + axesPerRecord_),
                kept_.begin() + std::ptrdiff_t(size_t(r.pe) * axesPerRecord_));
            held_[size_t(r.pe)] = r.holds;
            heldOut_[size_t(r.pe)] = r.computes;
        }
        first = last;
    }
    records_.clear();
    spans_.clear();
    std::fill(lastRecord_.begin(), lastRecord_.end(), -1);
}

void PeFetchCounter::finish()
{
    flush();
    Tensor& x = tensors_.back();
    clearBoxes();
    for (size_t pe = 0; pe < heldOut_.size(); ++pe) {
        if (!heldOut_[pe]) continue;
        collectOutside(kept_.data() + pe * axesPerRecord_ + x.offset, nullptr, false, x.extents.size());
        heldOut_[pe] = 0;
    }
    updates_ += unionVolume(x);
}

} // namespace marvel::cost
