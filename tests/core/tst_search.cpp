// The on-chip search: Pareto front against brute force, determinism across thread counts,
// cancellation, each pruning option's effect, bound skipping keeping the optimum, and the gap between
// the decoupled search and the exhaustive one on small operators. Runs the real cost model on GEMM
// problems built from MAESTRO layers.
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <QtTest>

#include "core/cost/costmodel.h"
#include "core/cost/problem.h"
#include "core/ir/parser.h"
#include "core/search/offchip.h"
#include "core/search/onchip_search.h"
#include "core/search/roofline.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using namespace marvel::search;

using marvel::testsupport::decoupledOptions;
namespace {

cost::Problem gemmProblem(std::int64_t M, std::int64_t N, std::int64_t K)
{
    mdc::Layer layer;
    layer.name = "gemm";
    layer.type = "GEMM";
    layer.dims = {{"M", M, 1}, {"N", N, 1}, {"K", K, 1}};
    return cost::fromMaestroLayer(layer);
}

/// C[m][n] += A[m][k] * B[k][n] with loops m, n, k.
LayerSpace gemmSpace(std::int64_t M, std::int64_t N, std::int64_t K)
{
    LayerSpace s;
    s.name = "gemm";
    for (auto [dim, extent] : {std::pair<const char*, std::int64_t>{"M", M}, {"N", N}, {"K", K}}) {
        mapping::MappedLoop l;
        l.dim = dim;
        l.extent = extent;
        s.loops.push_back(l);
    }
    s.wholeLoops = {false, false, false};
    s.tensors = {{"C", {{{0, 1}}, {{1, 1}}}}, {"A", {{{0, 1}}, {{2, 1}}}}, {"B", {{{2, 1}}, {{1, 1}}}}};
    s.macs = M * N * K;
    s.body = "C[m][n] += A[m][k] * B[k][n];";
    return s;
}

OffChipChoice wholeTile(const LayerSpace& s)
{
    OffChipChoice c;
    for (const auto& l : s.loops)
        c.level3.push_back(l.extent);
    c.level3Order = {0, 1, 2};
    return c;
}

arch::Accelerator smallAccelerator(std::int64_t pes = 16)
{
    arch::Accelerator acc;
    acc.numPes = pes;
    acc.l1Bytes = 64;
    acc.l2Bytes = 4096;
    acc.nocBandwidth = 4;
    return acc;
}

/// Records every evaluated (runtime, energy, L1 requirement) behind the real cost model.
struct Recorder
{
    std::mutex mutex;
    std::vector<Metrics> seen;
    EvaluatorFactory wrap(EvaluatorFactory inner)
    {
        return [this, inner] {
            struct Recording final : MappingEvaluator
            {
                Recorder* r;
                std::unique_ptr<MappingEvaluator> e;
                std::optional<Metrics> evaluate(const mdc::Dataflow& df) override
                {
                    auto m = e->evaluate(df);
                    if (m) {
                        std::lock_guard lock(r->mutex);
                        r->seen.push_back(*m);
                    }
                    return m;
                }
            };
            auto rec = std::make_unique<Recording>();
            rec->r = this;
            rec->e = inner();
            return std::unique_ptr<MappingEvaluator>(std::move(rec));
        };
    }
};

/// O[k][y][x] += W[k][c][r][s] * I[c][2y + r][2x + s]: K = 4, C = 2, 4 x 2 outputs, 3 x 3 window of
/// stride 2 (input 9 x 5), loops K, C, Y', X', R, S; R and S whole.
LayerSpace stridedConvSpace()
{
    LayerSpace s;
    s.name = "strided";
    for (auto [dim, extent] :
        {std::pair<const char*, std::int64_t>{"K", 4}, {"C", 2}, {"Y'", 4}, {"X'", 2}, {"R", 3}, {"S", 3}}) {
        mapping::MappedLoop l;
        l.dim = dim;
        l.extent = extent;
        l.windowStride = l.dim.back() == '\'' ? 2 : 1;
        s.loops.push_back(l);
    }
    s.wholeLoops = {false, false, false, false, true, true};
    s.tensors = {{"O", {{{0, 1}}, {{2, 1}}, {{3, 1}}}}, {"W", {{{0, 1}}, {{1, 1}}, {{4, 1}}, {{5, 1}}}},
        {"I", {{{1, 1}}, {{2, 2}, {4, 1}}, {{3, 2}, {5, 1}}}}};
    s.macs = 4 * 2 * 4 * 2 * 3 * 3;
    s.body = "O[k][y][x] += W[k][c][r][s] * I[c][2 * y + r][2 * x + s];";
    return s;
}

cost::Problem smallStridedConvProblem()
{
    mdc::Layer layer;
    layer.name = "strided";
    layer.type = "CONV";
    layer.dims = {{"K", 4, 1}, {"C", 2, 1}, {"R", 3, 1}, {"S", 3, 1}, {"Y", 9, 2}, {"X", 5, 2}};
    return cost::fromMaestroLayer(layer);
}

bool sameCandidate(const std::optional<Candidate>& a, const std::optional<Candidate>& b)
{
    if (!a || !b) return !a && !b;
    return a->index == b->index && a->mapping == b->mapping && a->dataflow == b->dataflow
        && a->metrics.runtime == b->metrics.runtime && a->metrics.energy == b->metrics.energy;
}

} // namespace

class TestSearch : public QObject
{
    Q_OBJECT

private slots:
    void footprintCountsDistinctElements()
    {
        // Subscripts of each shape the footprint counts by a shortcut (one loop, unit coefficients,
        // coefficients that cancel out) or in general (strides, mixed coefficients), against the
        // elements a tile touches, enumerated.
        LayerSpace space;
        for (int i = 0; i < 3; ++i)
            space.loops.push_back({});
        using T = SpaceTensor::Term;
        const std::vector<std::vector<std::vector<T>>> tensors = {
            {{{0, 1}}, {{1, 1}, {2, 1}}}, // A[x][y + r]
            {{{0, 2}}}, // A[2x]
            {{{0, 1}, {1, -1}}}, // A[x - y]
            {{{0, 2}, {1, 1}}}, // A[2x + y]
            {{{0, 3}, {1, 2}}}, // A[3x + 2y]
            {{{0, 1}, {1, 1}, {2, 1}}, {{2, 0}}}, // A[x + y + r][0 * r]
            {{{0, 2}, {1, 2}, {2, 1}}}, // A[2x + 2y + r]
            {{}, {{1, 4}}}, // A[0][4y]
        };
        int shapes = 0;
        for (const auto& subscripts : tensors) {
            const SpaceTensor tensor{"A", subscripts};
            for (std::int64_t a = 1; a <= 4; ++a)
                for (std::int64_t b = 1; b <= 4; ++b)
                    for (std::int64_t c = 1; c <= 3; ++c) {
                        const std::vector<std::int64_t> tile = {a, b, c};
                        std::set<std::vector<std::int64_t>> touched;
                        for (std::int64_t x = 0; x < a; ++x)
                            for (std::int64_t y = 0; y < b; ++y)
                                for (std::int64_t r = 0; r < c; ++r) {
                                    const std::int64_t at[3] = {x, y, r};
                                    std::vector<std::int64_t> element;
                                    for (const auto& terms : subscripts) {
                                        std::int64_t v = 0;
                                        for (const T& t : terms)
                                            v += t.coefficient * at[t.loop];
                                        element.push_back(v);
                                    }
                                    touched.insert(element);
                                }
                        QCOMPARE(space.footprint(tensor, tile), static_cast<std::int64_t>(touched.size()));
                    }
            ++shapes;
        }
        QCOMPARE(shapes, 8);
    }

    void paretoFrontMatchesBruteForce()
    {
        std::mt19937 rng(7);
        for (int round = 0; round < 50; ++round) {
            std::vector<ParetoPoint> points;
            ParetoFront front;
            for (std::uint64_t i = 0; i < 60; ++i) {
                ParetoPoint p{static_cast<std::int64_t>(rng() % 20), static_cast<double>(rng() % 20), i};
                points.push_back(p);
                front.insert(p);
            }
            QCOMPARE(front.points(), bruteForceFront(points));
        }
    }

    void searchParetoMatchesBruteForce()
    {
        const LayerSpace space = gemmSpace(8, 8, 4);
        const arch::Accelerator acc = smallAccelerator();
        Recorder rec;
        SearchOptions o = decoupledOptions();
        o.boundSkipping = false;
        o.threads = 2;
        const SearchResult r = searchOnChip(space, wholeTile(space), acc, o,
            rec.wrap(costModelEvaluators(gemmProblem(8, 8, 4), acc, Fidelity::Maestro)));
        QVERIFY(r.evaluated > 20);
        QCOMPARE(r.evaluated, static_cast<std::uint64_t>(rec.seen.size()));
        std::vector<ParetoPoint> all;
        for (std::size_t i = 0; i < rec.seen.size(); ++i)
            all.push_back({rec.seen[i].runtime, rec.seen[i].energy, 0});
        std::vector<std::pair<std::int64_t, double>> expected, got;
        for (const ParetoPoint& p : bruteForceFront(all))
            if (expected.empty() || expected.back() != std::pair{p.runtime, p.energy})
                expected.emplace_back(p.runtime, p.energy);
        for (const Candidate& c : r.pareto)
            got.emplace_back(c.metrics.runtime, c.metrics.energy);
        QCOMPARE(got, expected);
        // Each best is the minimum over everything evaluated.
        std::int64_t minRuntime = INT64_MAX;
        double minEnergy = 1e300;
        for (const Metrics& m : rec.seen) {
            minRuntime = std::min(minRuntime, m.runtime);
            minEnergy = std::min(minEnergy, m.energy);
        }
        QCOMPARE(r.bestRuntime->metrics.runtime, minRuntime);
        QCOMPARE(r.bestEnergy->metrics.energy, minEnergy);
    }

    void deterministicAcrossThreads_data()
    {
        QTest::addColumn<int>("objective");
        QTest::addColumn<bool>("bounds");
        QTest::newRow("runtime") << 0 << true;
        QTest::newRow("energy") << 1 << true;
        QTest::newRow("edp, no bounds") << 2 << false;
    }
    void deterministicAcrossThreads()
    {
        QFETCH(int, objective);
        QFETCH(bool, bounds);
        const LayerSpace space = gemmSpace(16, 8, 8);
        const arch::Accelerator acc = smallAccelerator();
        const auto factory = costModelEvaluators(gemmProblem(16, 8, 8), acc, Fidelity::Maestro);
        SearchOptions o = decoupledOptions();
        o.objective = static_cast<Objective>(objective);
        o.boundSkipping = bounds;
        o.batchSize = 64;
        std::vector<SearchResult> results;
        for (unsigned t : {1u, 2u, 4u}) {
            o.threads = t;
            results.push_back(searchOnChip(space, wholeTile(space), acc, o, factory));
        }
        for (std::size_t i = 1; i < results.size(); ++i) {
            QCOMPARE(results[i].evaluated, results[0].evaluated);
            QVERIFY(sameCandidate(results[i].bestRuntime, results[0].bestRuntime));
            QVERIFY(sameCandidate(results[i].bestEnergy, results[0].bestEnergy));
            QVERIFY(sameCandidate(results[i].bestEdp, results[0].bestEdp));
            QCOMPARE(results[i].pareto.size(), results[0].pareto.size());
            for (std::size_t k = 0; k < results[0].pareto.size(); ++k)
                QVERIFY(sameCandidate(results[i].pareto[k], results[0].pareto[k]));
        }
    }

    void cancellation()
    {
        // A space large enough not to finish at once; the stop arrives from another thread.
        const LayerSpace space = gemmSpace(64, 64, 64);
        arch::Accelerator acc = smallAccelerator(64);
        acc.l1Bytes = 512;
        SearchOptions o = decoupledOptions();
        o.boundSkipping = false;
        o.threads = 2;
        o.divisorsOnly = false;
        o.everyTileSize = true;
        std::stop_source source;
        std::jthread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            source.request_stop();
        });
        const auto start = std::chrono::steady_clock::now();
        const SearchResult r = searchOnChip(space, wholeTile(space), acc, o,
            costModelEvaluators(gemmProblem(64, 64, 64), acc, Fidelity::Maestro), nullptr,
            source.get_token());
        const double seconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY(r.cancelled);
        QVERIFY2(seconds < 10.0,
            qPrintable(QString::number(seconds))); // generous: the bound is 100 ms after the stop
    }

    void progressAndParetoUpdates()
    {
        struct Sink final : SearchSink
        {
            int progress = 0, updates = 0;
            std::size_t lastFront = 0;
            void onProgress(const Progress& p) override
            {
                ++progress;
                QVERIFY(p.evaluated + p.skipped <= p.candidates + p.skipped);
            }
            void onParetoUpdate(std::span<const Candidate> front) override
            {
                ++updates;
                lastFront = front.size();
            }
        } sink;
        const LayerSpace space = gemmSpace(8, 8, 4);
        const arch::Accelerator acc = smallAccelerator();
        SearchOptions o = decoupledOptions();
        o.boundSkipping = false;
        o.batchSize = 16;
        const SearchResult r = searchOnChip(space, wholeTile(space), acc, o,
            costModelEvaluators(gemmProblem(8, 8, 4), acc, Fidelity::Maestro), &sink);
        QVERIFY(sink.progress >= 1); // the final report always comes
        QVERIFY(sink.updates >= 1);
        QCOMPARE(sink.lastFront, r.pareto.size());
    }

    void pruningOptions()
    {
        const LayerSpace space = gemmSpace(12, 8, 6);
        const arch::Accelerator acc = smallAccelerator();
        const auto factory = costModelEvaluators(gemmProblem(12, 8, 6), acc, Fidelity::Maestro);
        SearchOptions base = decoupledOptions();
        base.boundSkipping = false;
        const SearchResult r0 = searchOnChip(space, wholeTile(space), acc, base, factory);

        SearchOptions noDiv = base;
        noDiv.divisorsOnly = false;
        const SearchResult r1 = searchOnChip(space, wholeTile(space), acc, noDiv, factory);
        QVERIFY(r1.stats.onChipPruned > r0.stats.onChipPruned);
        QVERIFY(r1.bestRuntime->metrics.runtime <= r0.bestRuntime->metrics.runtime);
        for (const auto& l : r0.bestRuntime->mapping.loops) {
            QCOMPARE(l.level3 % l.level2, 0);
            QCOMPARE(l.level2 % l.level1, 0);
        }

        SearchOptions noL1 = base;
        noL1.l1Capacity = false;
        const SearchResult r2 = searchOnChip(space, wholeTile(space), acc, noL1, factory);
        QVERIFY(r2.stats.onChipPruned > r0.stats.onChipPruned);

        SearchOptions util = base;
        util.peUtilizationBound = 0.75;
        const SearchResult r3 = searchOnChip(space, wholeTile(space), acc, util, factory);
        QVERIFY(r3.stats.onChipPruned < r0.stats.onChipPruned);
        for (const Candidate& c : r3.pareto)
            QVERIFY(c.mapping.activePes() >= 12);
        qInfo("candidates: base %.0f, no-divisors %.0f, no-L1 %.0f, p=0.75 %.0f; best runtime base %lld, "
              "no-div %lld, p=0.75 %lld",
            r0.stats.onChipPruned, r1.stats.onChipPruned, r2.stats.onChipPruned, r3.stats.onChipPruned,
            static_cast<long long>(r0.bestRuntime->metrics.runtime),
            static_cast<long long>(r1.bestRuntime->metrics.runtime),
            static_cast<long long>(r3.bestRuntime->metrics.runtime));
    }

    void boundSkippingKeepsTheOptimum_data()
    {
        QTest::addColumn<int>("objective");
        QTest::newRow("runtime") << 0;
        QTest::newRow("energy") << 1;
        QTest::newRow("edp") << 2;
    }
    void boundSkippingKeepsTheOptimum()
    {
        QFETCH(int, objective);
        const LayerSpace space = gemmSpace(16, 16, 8);
        const arch::Accelerator acc = smallAccelerator();
        const auto factory = costModelEvaluators(gemmProblem(16, 16, 8), acc, Fidelity::Maestro);
        SearchOptions o = decoupledOptions();
        o.objective = static_cast<Objective>(objective);
        o.boundSkipping = false;
        const SearchResult all = searchOnChip(space, wholeTile(space), acc, o, factory);
        o.boundSkipping = true;
        const SearchResult skipped = searchOnChip(space, wholeTile(space), acc, o, factory);
        QVERIFY(sameCandidate(all.best(o.objective), skipped.best(o.objective)));
        QVERIFY(skipped.evaluated <= all.evaluated);
        qInfo("%s: %llu of %llu evaluated with bounds",
            qPrintable(QString::fromStdString(toString(o.objective))),
            static_cast<unsigned long long>(skipped.evaluated),
            static_cast<unsigned long long>(all.evaluated));
    }

    /// Corrected fidelity, runtime objective: the cost model skips a candidate whose runtime bound (its
    /// PEs' compute and each execution's first fetch, cost::Evaluator::runtimeBound) exceeds the best so
    /// far. The same best mapping as a search whose evaluators ignore the bound, in fewer evaluations.
    void runtimeBoundKeepsTheOptimum()
    {
        const LayerSpace space = gemmSpace(64, 64, 32);
        arch::Accelerator acc = smallAccelerator(64);
        acc.l1Bytes = 256;
        acc.l2Bytes = 1 << 20;
        const auto factory = costModelEvaluators(gemmProblem(64, 64, 32), acc, Fidelity::Corrected);
        const SearchOptions o = decoupledOptions();
        const SearchResult bounded = searchOnChip(space, wholeTile(space), acc, o, factory);
        Recorder recorder; // its evaluators do not override evaluateBelow: no bound
        const SearchResult all = searchOnChip(space, wholeTile(space), acc, o, recorder.wrap(factory));
        QVERIFY(sameCandidate(all.bestRuntime, bounded.bestRuntime));
        qInfo("%llu of %llu evaluated with the runtime bound, %llu skipped by bounds",
            static_cast<unsigned long long>(bounded.evaluated),
            static_cast<unsigned long long>(all.evaluated),
            static_cast<unsigned long long>(bounded.stats.boundSkipped));
        QVERIFY(bounded.evaluated < all.evaluated);
        QCOMPARE(bounded.evaluated + bounded.stats.boundSkipped, all.evaluated + all.stats.boundSkipped);
    }

    void exhaustiveVersusDecoupled()
    {
        // The decoupled search fixes the whole operator as one level-3 tile here; the exhaustive one
        // tries every level-3 tile and order that fits L2. Its optimum can only be better or equal.
        const LayerSpace space = gemmSpace(8, 8, 4);
        arch::Accelerator acc = smallAccelerator();
        const auto factory = costModelEvaluators(gemmProblem(8, 8, 4), acc, Fidelity::Maestro);
        SearchOptions o = decoupledOptions();
        const SearchResult decoupled = searchOnChip(space, wholeTile(space), acc, o, factory);
        o.exhaustive = true;
        const SearchResult exhaustive = searchOnChip(space, wholeTile(space), acc, o, factory);
        QVERIFY(exhaustive.stats.onChipPruned > decoupled.stats.onChipPruned);
        QVERIFY(exhaustive.bestRuntime->metrics.runtime <= decoupled.bestRuntime->metrics.runtime);
        // Bound skipping claims to keep the optimum: gap 0 against the exhaustive search without it.
        o.boundSkipping = false;
        const SearchResult exhaustiveAll = searchOnChip(space, wholeTile(space), acc, o, factory);
        QCOMPARE(exhaustiveAll.bestRuntime->metrics.runtime, exhaustive.bestRuntime->metrics.runtime);
        qInfo("runtime gap of the decoupled search: %.4f (decoupled %lld, exhaustive %lld)",
            static_cast<double>(decoupled.bestRuntime->metrics.runtime)
                    / static_cast<double>(exhaustive.bestRuntime->metrics.runtime)
                - 1.0,
            static_cast<long long>(decoupled.bestRuntime->metrics.runtime),
            static_cast<long long>(exhaustive.bestRuntime->metrics.runtime));
    }

    void macMiscountsAreRejected()
    {
        // Without row loops every candidate keeps Y' and X' whole in the level-3 tile; MAESTRO counts
        // the MACs of those that map several strided output rows in level 0 wrongly (spec section 4.1).
        // Each dataflow is also evaluated by a plain cost model here: the search must reject exactly
        // the miscounted (and the invalid) ones, count them in stats.rejected and keep only exact ones.
        const LayerSpace space = stridedConvSpace();
        const cost::Problem problem = smallStridedConvProblem();
        QCOMPARE(problem.analyticMacs(), space.macs);
        arch::Accelerator acc = smallAccelerator(16);
        acc.l1Bytes = 512;
        OffChipChoice whole;
        for (const auto& l : space.loops)
            whole.level3.push_back(l.extent);
        whole.level3Order = {0, 1, 2, 3, 4, 5};
        std::uint64_t exact = 0, miscounted = 0, invalid = 0;
        std::vector<std::int64_t> acceptedMacs;
        const EvaluatorFactory inner = costModelEvaluators(problem, acc, Fidelity::Maestro);
        const EvaluatorFactory checking = [&]() -> std::unique_ptr<MappingEvaluator> {
            struct Checking final : MappingEvaluator
            {
                std::unique_ptr<MappingEvaluator> search;
                cost::Evaluator plain;
                std::int64_t macs;
                std::uint64_t *exact, *miscounted, *invalid;
                std::vector<std::int64_t>* accepted;
                Checking(std::unique_ptr<MappingEvaluator> s, cost::Evaluator p, std::int64_t m)
                    : search(std::move(s))
                    , plain(std::move(p))
                    , macs(m)
                { }
                std::optional<Metrics> evaluate(const mdc::Dataflow& df) override
                {
                    cost::Metrics m;
                    if (!plain.evaluateMetrics(df, m))
                        ++*invalid;
                    else
                        ++*(m.macs == macs ? exact : miscounted);
                    auto out = search->evaluate(df);
                    if (out) accepted->push_back(out->macs);
                    return out;
                }
            };
            auto c
                = std::make_unique<Checking>(inner(), cost::Evaluator(problem, acc), problem.analyticMacs());
            c->exact = &exact;
            c->miscounted = &miscounted;
            c->invalid = &invalid;
            c->accepted = &acceptedMacs;
            return c;
        };
        SearchOptions o = decoupledOptions();
        o.threads = 1;
        o.boundSkipping = false;
        const SearchResult r = searchOnChip(space, whole, acc, o, checking);
        QVERIFY(miscounted > 0);
        QVERIFY(exact > 0);
        QCOMPARE(r.stats.rejected, miscounted + invalid);
        QCOMPARE(r.evaluated, exact);
        QCOMPARE(acceptedMacs.size(), exact);
        for (std::int64_t m : acceptedMacs)
            QCOMPARE(m, space.macs);
        QVERIFY(r.bestRuntime);
        QCOMPARE(r.bestRuntime->metrics.macs, space.macs);
    }

    void stridedRowsSpreadOverTheTopLevel()
    {
        // searchLayer makes Y' a row loop in maestro fidelity: the best mapping spreads output rows over
        // the top level (TopSpatial form, one row per PE) and MAESTRO counts its MACs exactly; X' keeps
        // level-3 tiles of one row.
        const ir::Operator op
            = ir::parseOperator(workloads::conv2dLoopText(16, 4, 8, 8, 3, 3, 2, 2), "sc.loop");
        arch::Accelerator acc = smallAccelerator(64);
        acc.l1Bytes = 512;
        acc.l2Bytes = 1 << 16;
        SearchOptions o = decoupledOptions();
        o.threads = 2;
        o.fidelity = Fidelity::Maestro; // the row loops are maestro fidelity's
        const LayerSearchResult r = searchLayer(op, acc, o);
        const std::int64_t macs = 16 * 4 * 8 * 8 * 3 * 3;
        QVERIFY(r.result.bestRuntime);
        const Candidate& best = *r.result.bestRuntime;
        QCOMPARE(best.metrics.macs, macs);
        QVERIFY(best.mapping.level2Form == mapping::Level2Form::TopSpatial);
        const std::vector<int> parallel = best.mapping.parallelLoops();
        const mapping::MappedLoop& top = best.mapping.loops[static_cast<std::size_t>(parallel.front())];
        QCOMPARE(top.windowStride, 2);
        QCOMPARE(top.level1, 1);
        QVERIFY(top.level2 > 1);
        QCOMPARE(top.level3, top.level2);
        for (const mapping::MappedLoop& l : best.mapping.loops)
            if (l.windowStride > 1 && &l != &top) QCOMPARE(l.level3, 1);
        // Re-evaluating the exported dataflow with the plain cost model gives the search's numbers.
        cost::Evaluator plain(r.problem, acc);
        cost::Metrics m;
        QVERIFY(plain.evaluateMetrics(best.dataflow, m));
        QCOMPARE(m.runtimeCycles, best.metrics.runtime);
        QCOMPARE(m.macs, macs);
    }

    /// A GEMM whose bounds are all 13 (prime) on 12 PEs: a divisor tile spreads a loop over 1 or 13 PEs,
    /// so the divisor-only space under the PE-utilisation bound (0.1 of 12 PEs: at least 2) is empty.
    /// searchLayer then searches tile sizes that need not divide, which is exactly the non-divisor search's
    /// result. (13 rather than a larger prime: the non-divisor space grows with the cube of the bound.)
    void emptyDivisorSpaceIsWidened()
    {
        const ir::Operator op = ir::parseOperator(workloads::gemmLoopText(13, 13, 13), "prime.loop");
        arch::Accelerator acc = smallAccelerator(12);
        SearchOptions narrow = decoupledOptions();
        narrow.widenWhenEmpty = false;
        const LayerSearchResult none = searchLayer(op, acc, narrow);
        QVERIFY(!none.result.bestRuntime);
        QVERIFY(!none.result.notMappable());
        const LayerSearchResult widened = searchLayer(op, acc, decoupledOptions());
        QVERIFY(widened.result.bestRuntime);
        QVERIFY(widened.result.stats.widened);
        const Candidate& best = *widened.result.bestRuntime;
        QCOMPARE(best.metrics.macs, std::int64_t(13 * 13 * 13));
        QVERIFY(best.mapping.activePes() >= 2); // 0.1 of 12 PEs
        QVERIFY(best.metrics.runtime >= (13 * 13 * 13 + 11) / 12);
        SearchOptions nonDivisors = decoupledOptions();
        nonDivisors.divisorsOnly = false;
        const LayerSearchResult direct = searchLayer(op, acc, nonDivisors);
        QVERIFY(!direct.result.stats.widened);
        QVERIFY(sameCandidate(widened.result.bestRuntime, direct.result.bestRuntime));
    }

    /// A GEMM of 34 x 34 x 34 (2 x 17 each) on 16 PEs: divisor tiles spread a loop over 1, 2, 17 or 34
    /// PEs, so at most 2 x 2 x 2 = 8 PEs work and the divisor-only search cannot come within 2x of the
    /// compute roofline (34^3 / 16 cycles). searchLayer then widens to tile sizes that need not divide,
    /// exactly the non-divisor search's result, and better; widenAboveRoofline = 0 keeps the paper's
    /// divisor-only search.
    void poorDivisorResultIsWidened()
    {
        const ir::Operator op = ir::parseOperator(workloads::gemmLoopText(34, 34, 34), "twice17.loop");
        const arch::Accelerator acc = smallAccelerator(16);
        const std::int64_t roof = roofline(*ir::perfectNest(op), op.sizes, acc).cycles;
        QVERIFY(roof >= 34 * 34 * 34 / 16);
        SearchOptions strict = decoupledOptions();
        strict.widenAboveRoofline = 0;
        const LayerSearchResult divisors = searchLayer(op, acc, strict);
        QVERIFY(divisors.result.bestRuntime);
        QVERIFY(!divisors.result.stats.widened);
        QVERIFY(divisors.result.bestRuntime->mapping.activePes() <= 8);
        QVERIFY(divisors.result.bestRuntime->metrics.runtime > 2 * roof);
        const LayerSearchResult widened = searchLayer(op, acc, decoupledOptions());
        QVERIFY(widened.result.stats.widened);
        QVERIFY(widened.result.bestRuntime->metrics.runtime < divisors.result.bestRuntime->metrics.runtime);
        QVERIFY(widened.result.bestRuntime->mapping.activePes() > 8);
        SearchOptions nonDivisors = decoupledOptions();
        nonDivisors.divisorsOnly = false;
        QVERIFY(
            sameCandidate(widened.result.bestRuntime, searchLayer(op, acc, nonDivisors).result.bestRuntime));
        // The search-space table stays the paper's (divisor-only) one.
        QCOMPARE(widened.sizes.onChipPruned, divisors.sizes.onChipPruned);
    }

    /// --exhaustive enumerates every level-3 choice too, a space holding the decoupled search's answer;
    /// cut short by a limit it must still never answer worse than the decoupled search under the same
    /// limit. A 64^3 GEMM on 16 PEs with 20 candidates: the decoupled search's first 20 hold a far better
    /// mapping than the exhaustive enumeration's first 20, and searchLayer's seeding keeps it.
    void exhaustiveCutShortIsNeverWorseThanDecoupled()
    {
        const ir::Operator op = ir::parseOperator(workloads::gemmLoopText(64, 64, 64), "gemm64.loop");
        const arch::Accelerator acc = smallAccelerator(16);
        SearchOptions cut = decoupledOptions();
        cut.maxCandidates = 20;
        const LayerSearchResult decoupled = searchLayer(op, acc, cut);
        QVERIFY(decoupled.result.bestRuntime);
        cut.exhaustive = true;
        const LayerSearchResult exhaustive = searchLayer(op, acc, cut);
        QVERIFY(exhaustive.result.truncated);
        QVERIFY(exhaustive.result.bestRuntime);
        QVERIFY(
            exhaustive.result.bestRuntime->metrics.runtime <= decoupled.result.bestRuntime->metrics.runtime);
        QVERIFY(exhaustive.result.evaluated > decoupled.result.evaluated);
        // Without the decoupled seeds those 20 exhaustive candidates are worse: the seeding holds the line.
        const SearchResult unseeded = searchOnChip(decoupled.space, decoupled.offChip, acc, cut,
            costModelEvaluators(decoupled.problem, acc, Fidelity::Maestro));
        QVERIFY(unseeded.bestRuntime);
        QVERIFY2(unseeded.bestRuntime->metrics.runtime > decoupled.result.bestRuntime->metrics.runtime,
            qPrintable(QStringLiteral("%1 against %2")
                           .arg(unseeded.bestRuntime->metrics.runtime)
                           .arg(decoupled.result.bestRuntime->metrics.runtime)));
    }

    /// Retuning on-chip parameters reuses the off-chip solution: a search through the cache returns what
    /// a search without it returns, for the first accelerator and for each retuned one, and only an L2
    /// change solves the off-chip subspace again.
    void offChipCacheGivesTheSameResults()
    {
        const ir::Operator op
            = ir::parseOperator(workloads::conv2dLoopText(32, 16, 14, 14, 3, 3, 1, 1), "c.loop");
        arch::Accelerator acc = smallAccelerator();
        acc.numPes = 64;
        acc.l2Bytes = 16 * 1024;
        SearchOptions cached = decoupledOptions();
        cached.offChipCache = std::make_shared<OffChipCache>();
        const SearchOptions plain = decoupledOptions();
        auto check = [&](const arch::Accelerator& a) {
            const LayerSearchResult withCache = searchLayer(op, a, cached);
            const LayerSearchResult without = searchLayer(op, a, plain);
            QCOMPARE(withCache.offChip.level3, without.offChip.level3);
            QCOMPARE(withCache.result.evaluated, without.result.evaluated);
            QCOMPARE(withCache.result.stats.onChipPruned, without.result.stats.onChipPruned);
            QVERIFY(sameCandidate(withCache.result.bestRuntime, without.result.bestRuntime));
            QCOMPARE(withCache.result.pareto.size(), without.result.pareto.size());
        };
        check(acc);
        QCOMPARE(cached.offChipCache->misses(), 1u);
        acc.numPes = 32; // on-chip only: reused
        check(acc);
        acc.l1Bytes *= 2;
        check(acc);
        QCOMPARE(cached.offChipCache->hits(), 2u);
        QCOMPARE(cached.offChipCache->misses(), 1u);
        acc.l2Bytes /= 2; // the off-chip subspace changes
        check(acc);
        QCOMPARE(cached.offChipCache->misses(), 2u);
    }

    void badOffChipChoice()
    {
        const LayerSpace space = gemmSpace(8, 8, 4);
        OffChipChoice c = wholeTile(space);
        c.level3.pop_back();
        const arch::Accelerator acc = smallAccelerator();
        QVERIFY_THROWS_EXCEPTION(InputError,
            searchOnChip(
                space, c, acc, {}, costModelEvaluators(gemmProblem(8, 8, 4), acc, Fidelity::Maestro)));
    }
};

QTEST_APPLESS_MAIN(TestSearch)
#include "tst_search.moc"
