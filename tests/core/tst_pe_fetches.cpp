// The PE-level global-buffer count (core/cost/pe_fetches) against its definition enumerated element by
// element: random PE tiles over random frames, each multicast, with sets of elements per PE and per frame.
#include <map>
#include <random>
#include <set>

#include <QTest>

#include "core/cost/pe_fetches.h"

using namespace marvel;
using cost::AxisSpan;

namespace {

using i64 = std::int64_t;
using Element = std::vector<i64>;

std::set<Element> elementsOf(const AxisSpan* box, size_t n)
{
    std::set<Element> out;
    Element e(n);
    std::function<void(size_t)> walk = [&](size_t k) {
        if (k == n) {
            out.insert(e);
            return;
        }
        for (e[k] = box[k].begin; e[k] < box[k].end; ++e[k])
            walk(k + 1);
    };
    walk(0);
    return out;
}

struct Frame
{
    struct Pe
    {
        i64 pe = 0;
        bool holds = false, computes = false;
        std::vector<AxisSpan> tiles; // every tensor's axes
    };
    std::vector<Pe> pes;
};

struct Counts
{
    std::vector<i64> reads;
    i64 updates = 0;
};

// The definition (doc/cost-model.md, "Global-buffer traffic") by sets: at each frame a PE fetches what it
// did not hold at its own previous frame; per frame the fetched elements leave the L2 once (Elements), once
// per group of identical tiles (Tiles) or once per PE (None); partial sums a PE held and no longer holds go
// back once per frame, and what is still held at the end goes back once.
Counts bruteForce(const std::vector<std::vector<i64>>& extents, i64 pes, arch::Multicast multicast,
    const std::vector<Frame>& frames)
{
    const size_t tensors = extents.size();
    std::vector<size_t> offset(tensors, 0);
    for (size_t t = 1; t < tensors; ++t)
        offset[t] = offset[t - 1] + extents[t - 1].size();
    Counts c;
    c.reads.assign(tensors - 1, 0);
    auto held
        = std::vector<std::vector<std::set<Element>>>(size_t(pes), std::vector<std::set<Element>>(tensors));
    std::vector<bool> heldOut(size_t(pes), false);
    for (const Frame& f : frames) {
        for (size_t t = 0; t + 1 < tensors; ++t) {
            std::map<std::vector<i64>, std::set<Element>> sent; // per tile (Tiles) or one key (Elements)
            for (const Frame::Pe& p : f.pes) {
                if (!p.holds) continue;
                std::set<Element> now = elementsOf(p.tiles.data() + offset[t], extents[t].size());
                std::set<Element> fresh;
                for (const Element& e : now)
                    if (!held[size_t(p.pe)][t].count(e)) fresh.insert(e);
                if (multicast == arch::Multicast::None) {
                    c.reads[t] += i64(fresh.size());
                    continue;
                }
                std::vector<i64> key;
                if (multicast == arch::Multicast::Tiles)
                    for (size_t k = 0; k < extents[t].size(); ++k) {
                        key.push_back(p.tiles[offset[t] + k].begin);
                        key.push_back(p.tiles[offset[t] + k].end);
                    }
                sent[key].insert(fresh.begin(), fresh.end());
            }
            for (const auto& [key, elements] : sent)
                c.reads[t] += i64(elements.size());
        }
        const size_t out = tensors - 1;
        std::set<Element> returned;
        for (const Frame::Pe& p : f.pes) {
            if (!heldOut[size_t(p.pe)]) continue;
            std::set<Element> now;
            if (p.holds && p.computes) now = elementsOf(p.tiles.data() + offset[out], extents[out].size());
            for (const Element& e : held[size_t(p.pe)][out])
                if (!now.count(e)) returned.insert(e);
        }
        c.updates += i64(returned.size());
        for (const Frame::Pe& p : f.pes) {
            for (size_t t = 0; t < tensors; ++t)
                held[size_t(p.pe)][t] = p.holds ? elementsOf(p.tiles.data() + offset[t], extents[t].size())
                                                : std::set<Element>{};
            heldOut[size_t(p.pe)] = p.holds && p.computes;
        }
    }
    std::set<Element> last;
    for (i64 pe = 0; pe < pes; ++pe)
        if (heldOut[size_t(pe)])
            last.insert(held[size_t(pe)][tensors - 1].begin(), held[size_t(pe)][tensors - 1].end());
    c.updates += i64(last.size());
    return c;
}

} // namespace

class TestPeFetches : public QObject
{
    Q_OBJECT

private slots:
    // Random tiles, mostly alike or side by side as mappings make them, sometimes anywhere; flushed at
    // random points between frames, as the step walk and the simulator flush.
    void countsEqualTheDefinitionByElementSets()
    {
        std::mt19937_64 rng(20261129);
        auto pick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
        int cases = 0;
        for (int round = 0; round < 400; ++round) {
            const size_t tensors = size_t(pick(2, 3));
            std::vector<std::vector<i64>> extents(tensors);
            for (auto& e : extents) {
                e.resize(size_t(pick(1, 3)));
                for (i64& x : e)
                    x = pick(1, 7);
            }
            const i64 pes = pick(1, 6);
            const auto multicast = std::array{
                arch::Multicast::Elements, arch::Multicast::Tiles, arch::Multicast::None}[size_t(pick(0, 2))];
            // A PE's tile: random, a shifted copy of a base tile (sliding windows), or the base itself.
            std::vector<Frame> frames(size_t(pick(1, 6)));
            for (Frame& f : frames) {
                std::vector<AxisSpan> base;
                for (const auto& e : extents)
                    for (i64 x : e) {
                        const i64 b = pick(0, x - 1);
                        base.push_back({b, pick(b + 1, x)});
                    }
                for (i64 pe = 0; pe < pes; ++pe) {
                    if (pick(0, 5) == 0) continue; // not recorded: keeps what it held
                    Frame::Pe p;
                    p.pe = pe;
                    p.holds = pick(0, 6) != 0;
                    p.computes = pick(0, 4) != 0;
                    const i64 style = pick(0, 2);
                    size_t axis = 0;
                    for (const auto& e : extents)
                        for (i64 x : e) {
                            AxisSpan s = base[axis++];
                            if (style == 0) {
                                const i64 b = pick(0, x - 1);
                                s = {b, pick(b + 1, x)};
                            } else if (style == 1) {
                                const i64 shift = pick(-2, 2);
                                s = {std::clamp<i64>(s.begin + shift, 0, x - 1),
                                    std::clamp<i64>(s.end + shift, 1, x)};
                                if (s.end <= s.begin) s.end = s.begin + 1;
                            }
                            p.tiles.push_back(s);
                        }
                    f.pes.push_back(p);
                }
            }
            const Counts expected = bruteForce(extents, pes, multicast, frames);
            cost::PeFetchCounter counter;
            counter.reset(extents, pes, multicast);
            for (size_t f = 0; f < frames.size(); ++f) {
                for (const Frame::Pe& p : frames[f].pes)
                    counter.add(i64(f), p.pe, p.holds, p.computes, p.tiles.data());
                if (pick(0, 2) == 0) counter.flush();
            }
            counter.finish();
            for (size_t t = 0; t + 1 < tensors; ++t)
                QCOMPARE(counter.reads(int(t)), expected.reads[t]);
            QCOMPARE(counter.updates(), expected.updates);
            ++cases;
        }
        QCOMPARE(cases, 400);
    }

    // Runs of PEs holding translates (addRun), as the step walk records a cluster's PEs: the same runs
    // frame after frame (each PE's fetch the first one's moved), runs cut differently from one frame to
    // the next, steps shorter and longer than the tiles, along one axis, several or none, backwards too,
    // and clusters whose runs are the first one's moved; against the definition on every PE's tiles and
    // against add() for each PE.
    void runsEqualTheDefinition()
    {
        std::mt19937_64 rng(20261130);
        auto pick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
        int cases = 0;
        for (int round = 0; round < 1000; ++round) {
            const size_t tensors = size_t(pick(2, 3));
            std::vector<std::vector<i64>> extents(tensors);
            size_t axes = 0;
            for (auto& e : extents) {
                e.resize(size_t(pick(1, 3)));
                for (i64& x : e)
                    x = pick(1, 12);
                axes += e.size();
            }
            std::vector<i64> extentOf;
            std::vector<bool> spread; // per axis: the one of its tensor the runs mostly move along
            for (const auto& e : extents) {
                extentOf.insert(extentOf.end(), e.begin(), e.end());
                const size_t along = size_t(pick(0, i64(e.size()) - 1));
                for (size_t k = 0; k < e.size(); ++k)
                    spread.push_back(k == along);
            }
            const i64 pes = pick(1, 12);
            // Clusters of `pes` PEs each: the others' runs those of the first moved by a step a cluster
            // (`across`, along one axis a tensor, none, or along several), when that stays inside.
            const i64 clusters = pick(1, 3), allPes = clusters * pes, margin = 3 * (clusters - 1);
            for (auto& e : extents)
                for (i64& x : e)
                    x += 2 * margin;
            std::vector<i64> across(axes, 0);
            {
                size_t a = 0;
                for (const auto& e : extents) {
                    const i64 style = pick(0, 4);
                    const size_t along = size_t(pick(0, i64(e.size()) - 1));
                    for (size_t k = 0; k < e.size(); ++k, ++a)
                        if ((style <= 2 && k == along) || (style == 3 && pick(0, 1) == 0))
                            across[a] = pick(-3, 3);
                }
            }
            const auto multicast = std::array{
                arch::Multicast::Elements, arch::Multicast::Tiles, arch::Multicast::None}[size_t(pick(0, 2))];
            struct RunRec
            {
                i64 pe0 = 0, count = 1;
                bool holds = false, computes = false;
                std::vector<AxisSpan> tiles;
                std::vector<i64> deltas;
            };
            // The PEs cut into runs: kept for most frames, as a cluster's walk keeps them.
            auto cut = [&] {
                std::vector<std::pair<i64, i64>> runs;
                if (pick(0, 1) == 0) return decltype(runs){{0, pes}}; // one run, the walk's usual
                for (i64 pe = 0; pe < pes;) {
                    const i64 count = pick(1, pes - pe);
                    runs.push_back({pe, count});
                    pe += count;
                }
                return runs;
            };
            auto layout = cut();
            std::vector<RunRec> previous;
            std::vector<std::vector<RunRec>> frames(size_t(pick(1, 7)));
            for (auto& f : frames) {
                if (pick(0, 3) == 0) layout = cut();
                const bool slide = !previous.empty() && pick(0, 2) != 0 && previous.size() == layout.size();
                std::vector<RunRec> made;
                for (size_t i = 0; i < layout.size(); ++i) {
                    RunRec r;
                    r.pe0 = layout[i].first;
                    r.count = layout[i].second;
                    r.holds = pick(0, 6) != 0;
                    r.computes = pick(0, 4) != 0;
                    // The axes the run moves along (most often one) and its tiles within the extents at
                    // every PE of the run.
                    const i64 style = pick(0, 5);
                    r.deltas.assign(axes, 0);
                    for (size_t a = 0; a < axes; ++a) {
                        const i64 x = extentOf[a];
                        AxisSpan s;
                        if (slide && pick(0, 2) != 0) {
                            s = previous[i].tiles[a];
                            const i64 shift = pick(-1, 1);
                            if (s.begin + shift >= 0 && s.end + shift <= x)
                                s = {s.begin + shift, s.end + shift};
                        } else {
                            const i64 b = pick(0, x - 1);
                            s = {b, pick(b + 1, x)};
                        }
                        const bool moves = style == 0 ? false : style <= 3 ? spread[a] : pick(0, 1) == 1;
                        if (r.count > 1) {
                            // A step keeping every translate inside the extent: the previous frame's (the
                            // walk's runs keep theirs) or a random one.
                            const i64 room = (x - s.end) / (r.count - 1), back = s.begin / (r.count - 1);
                            const i64 kept = slide ? previous[i].deltas[a] : 0;
                            if (slide && kept >= -back && kept <= room && pick(0, 3) != 0)
                                r.deltas[a] = kept;
                            else if (moves) // often past the tile: translates apart
                                r.deltas[a] = pick(0, 1) == 0 ? pick(-back, room)
                                                              : pick(std::min(s.end - s.begin, room), room);
                        }
                        r.tiles.push_back(s);
                    }
                    made.push_back(r);
                    if (pick(0, 5) == 0) continue; // not recorded: its PEs keep what they held
                    f.push_back(r);
                }
                previous = made;
                // Clusters side by side: the first's runs, then each other's moved by `across` a cluster,
                // within the margins added to every extent.
                const std::vector<RunRec> first = f;
                f.clear();
                for (i64 g = 0; g < clusters; ++g)
                    for (RunRec r : first) {
                        r.pe0 += g * pes;
                        if (g > 0 && pick(0, 9) == 0) r.computes = !r.computes;
                        for (size_t a = 0; a < axes; ++a)
                            r.tiles[a] = {r.tiles[a].begin + margin + g * across[a],
                                r.tiles[a].end + margin + g * across[a]};
                        f.push_back(r);
                    }
            }
            std::vector<Frame> expanded(frames.size());
            for (size_t f = 0; f < frames.size(); ++f)
                for (const RunRec& r : frames[f])
                    for (i64 j = 0; j < r.count; ++j) {
                        Frame::Pe p;
                        p.pe = r.pe0 + j;
                        p.holds = r.holds;
                        p.computes = r.computes;
                        for (size_t a = 0; a < axes; ++a)
                            p.tiles.push_back(
                                {r.tiles[a].begin + j * r.deltas[a], r.tiles[a].end + j * r.deltas[a]});
                        expanded[f].pes.push_back(p);
                    }
            const Counts expected = bruteForce(extents, allPes, multicast, expanded);
            cost::PeFetchCounter byRuns, byPes;
            byRuns.reset(extents, allPes, multicast);
            byPes.reset(extents, allPes, multicast);
            for (size_t f = 0; f < frames.size(); ++f) {
                for (const RunRec& r : frames[f])
                    byRuns.addRun(
                        i64(f), r.pe0, r.count, r.holds, r.computes, r.tiles.data(), r.deltas.data());
                for (const Frame::Pe& p : expanded[f].pes)
                    byPes.add(i64(f), p.pe, p.holds, p.computes, p.tiles.data());
                if (pick(0, 2) == 0) {
                    byRuns.flush();
                    byPes.flush();
                }
            }
            byRuns.finish();
            byPes.finish();
            for (size_t t = 0; t + 1 < tensors; ++t) {
                QCOMPARE(byRuns.reads(int(t)), expected.reads[t]);
                QCOMPARE(byPes.reads(int(t)), expected.reads[t]);
            }
            QCOMPARE(byRuns.updates(), expected.updates);
            QCOMPARE(byPes.updates(), expected.updates);
            ++cases;
        }
        QCOMPARE(cases, 1000);
    }

    // A worked frame: four PEs over a 1-D input of 10, tiles [0,4) [2,6) [4,8) [6,10) (a sliding window of
    // 4, stride 2), then each moves on by 1. Elements: 10, then one new element each (4, 6, 8, 10): 4;
    // Tiles: 16 (no two tiles alike) then 4; None: the same.
    void slidingWindowsByHand()
    {
        const std::vector<std::vector<i64>> extents{{11}, {1}};
        for (auto [multicast, first, second] : {std::tuple{arch::Multicast::Elements, 10, 4},
                 std::tuple{arch::Multicast::Tiles, 16, 4}, std::tuple{arch::Multicast::None, 16, 4}}) {
            cost::PeFetchCounter counter;
            counter.reset(extents, 4, multicast);
            for (i64 frame = 0; frame < 2; ++frame)
                for (i64 pe = 0; pe < 4; ++pe) {
                    const AxisSpan tiles[2] = {{2 * pe + frame, 2 * pe + 4 + frame}, {0, 1}};
                    counter.add(frame, pe, true, true, tiles);
                }
            counter.flush();
            const i64 afterTwo = counter.reads(0);
            QCOMPARE(afterTwo, i64(first + second));
            counter.finish();
            QCOMPARE(counter.updates(), i64(1)); // every PE held the one output: back once, reduced
        }
    }
};

QTEST_APPLESS_MAIN(TestPeFetches)
#include "tst_pe_fetches.moc"
