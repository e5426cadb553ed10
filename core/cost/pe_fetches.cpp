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

/// Calls f(flat index) for every element of `box` (n axes, row-major `strides`).
template <class F> void forEachElement(const AxisSpan* box, size_t n, const i64* strides, F&& f)
{
    if (volumeOf(box, n) == 0) return;
    i64 idx[32];
    for (size_t k = 0; k < n; ++k)
        idx[k] = box[k].begin;
    while (true) {
        i64 flat = 0;
        for (size_t k = 0; k < n; ++k)
            flat += idx[k] * strides[k];
        f(flat);
        size_t k = n;
        while (k > 0) {
            --k;
            if (++idx[k] < box[k].end) break;
            idx[k] = box[k].begin;
            if (k == 0) return;
        }
        if (n == 0) return;
    }
}

/// Calls f(flat) for every element of `box` outside `kept` (all of them when !haveKept), as disjoint slabs.
template <class F>
void forEachOutside(
    const AxisSpan* box, const AxisSpan* kept, bool haveKept, size_t n, const i64* strides, F&& f)
{
    bool disjoint = !haveKept;
    for (size_t k = 0; k < n && !disjoint; ++k)
        disjoint = overlap(box[k], kept[k]).size() == 0;
    if (disjoint) {
        forEachElement(box, n, strides, f);
        return;
    }
    AxisSpan slab[32];
    for (size_t i = 0; i < n; ++i) {
        for (size_t k = 0; k < n; ++k)
            slab[k] = k < i ? overlap(box[k], kept[k]) : box[k];
        slab[i] = AxisSpan{box[i].begin, std::min(box[i].end, kept[i].begin)};
        forEachElement(slab, n, strides, f);
        slab[i] = AxisSpan{std::max(box[i].begin, kept[i].end), box[i].end};
        forEachElement(slab, n, strides, f);
    }
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
        // Stamps of earlier rounds are all below the next one: a tensor of the same size keeps its array.
        if (x.stamp.size() != size_t(elements)) x.stamp.assign(size_t(elements), 0);
        x.offset = axesPerRecord_;
        axesPerRecord_ += x.extents.size();
    }
    if (round_ > 0xF0000000u) {
        for (auto& x : tensors_)
            std::fill(x.stamp.begin(), x.stamp.end(), 0u);
        round_ = 0;
    }
    records_.clear();
    spans_.clear();
    kept_.assign(size_t(pes) * axesPerRecord_, AxisSpan{});
    held_.assign(size_t(pes), 0);
    heldOut_.assign(size_t(pes), 0);
    reads_.assign(extents.empty() ? 0 : extents.size() - 1, 0);
    updates_ = 0;
}

void PeFetchCounter::add(i64 frame, i64 pe, bool holds, bool computes, const AxisSpan* tiles)
{
    Record r;
    r.frame = frame;
    r.pe = pe;
    r.holds = holds;
    r.computes = computes && holds;
    r.tiles = spans_.size();
    if (holds) {
        spans_.insert(spans_.end(), tiles, tiles + axesPerRecord_);
    } else {
        spans_.resize(spans_.size() + axesPerRecord_);
    }
    records_.push_back(r);
}

bool PeFetchCounter::firstInRound(Tensor& t, i64 element, std::uint32_t round)
{
    std::uint32_t& s = t.stamp[size_t(element)];
    if (s == round) return false;
    s = round;
    return true;
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
            // Tiles: PEs fetching identical tiles share a send, each group of them its own round.
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
            std::uint32_t round = ++round_;
            const AxisSpan* previous = nullptr;
            for (size_t i : group) {
                const Record& r = records_[i];
                if (!r.holds) continue;
                const AxisSpan* tile = tileOf(r, t);
                if (multicast_ == arch::Multicast::Tiles && previous && !std::equal(tile, tile + n, previous))
                    round = ++round_;
                previous = tile;
                forEachOutside(tile, keptOf(r), held_[size_t(r.pe)] != 0, n, x.strides.data(), [&](i64 e) {
                    if (firstInRound(x, e, round)) ++reads_[size_t(t)];
                });
            }
        }
        // Partial sums a PE held at its previous frame and no longer holds, each output once in the frame.
        {
            Tensor& x = tensors_.back();
            const size_t n = x.extents.size();
            const std::uint32_t round = ++round_;
            for (size_t i : group) {
                const Record& r = records_[i];
                if (!heldOut_[size_t(r.pe)]) continue;
                const AxisSpan* was = kept_.data() + size_t(r.pe) * axesPerRecord_ + x.offset;
                forEachOutside(was, tileOf(r, nInputs), r.computes, n, x.strides.data(), [&](i64 e) {
                    if (firstInRound(x, e, round)) ++updates_;
                });
            }
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
}

void PeFetchCounter::finish()
{
    flush();
    Tensor& x = tensors_.back();
    const std::uint32_t round = ++round_;
    for (size_t pe = 0; pe < heldOut_.size(); ++pe) {
        if (!heldOut_[pe]) continue;
        forEachElement(
            kept_.data() + pe * axesPerRecord_ + x.offset, x.extents.size(), x.strides.data(), [&](i64 e) {
                if (firstInRound(x, e, round)) ++updates_;
            });
        heldOut_[pe] = 0;
    }
}

} // namespace marvel::cost
