// Impossible figures (issue 22, point 3; doc/cost-model.md, "Impossible figures"): MAESTRO's edge-case
// accounting reports some mappings faster than the compute bound or with a wrong MAC count. Maestro-
// fidelity evaluations flag them with the corrected runtime beside them (checked against the simulator
// where it can run), and no search ranks them.
#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/cost/report.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/search.h"
#include "core/sim/model_check.h"
#include "core/sim/simulator.h"
#include "tests/core/core_test_support.h"
#include "tests/unguarded_evaluator.h"

using namespace marvel;

using marvel::testsupport::spatialOnTap;
namespace {

const std::string kSamples = MARVEL_SAMPLES_DIR;

// A GAMMA-like two-level mapping of a VGG16 CONV4_3-like layer on P2's 1024 PEs: 32 clusters of 32
// PEs, input channels in pairs over the clusters, filters over a cluster's PEs, output rows in tiles of
// 16 then 15 and columns in tiles of 7 then 3 (neither divides 26, nor the inner tile the outer one).
// Found by a local search over such mappings in maestro fidelity without the guard: MAESTRO reports
// 1623 MACs per cycle on 1024 PEs.
const char* kGammaLike = R"(
    TemporalMap(3,3) R; TemporalMap(3,3) S; TemporalMap(7,7) X'; SpatialMap(2,2) C;
    TemporalMap(32,32) K; TemporalMap(16,16) Y';
    Cluster(32,P);
    SpatialMap(1,1) K; TemporalMap(3,3) X'; TemporalMap(15,15) Y'; TemporalMap(3,3) R;
    TemporalMap(3,3) S; TemporalMap(1,1) C;)";

// A CONV layer as MAESTRO writes it (Y, X: input rows and columns, stride 1) with `dataflow`.
mdc::Layer convLayer(std::int64_t k, std::int64_t c, std::int64_t rs, std::int64_t yx, const char* dataflow)
{
    const std::string text = "Network N { Layer L { Type: CONV Stride { X: 1, Y: 1 } Dimensions { K: "
        + std::to_string(k) + ", C: " + std::to_string(c) + ", R: " + std::to_string(rs)
        + ", S: " + std::to_string(rs) + ", Y: " + std::to_string(yx) + ", X: " + std::to_string(yx)
        + " } Dataflow { " + dataflow + " } } }";
    return mdc::readMaestroMapping(text, "test.m").layers.at(0);
}

cost::Result evaluate(const mdc::Layer& layer, const arch::Accelerator& acc, cost::Fidelity fidelity)
{
    cost::Options o;
    o.fidelity = fidelity;
    return cost::Evaluator(cost::fromMaestroLayer(layer), acc, o).evaluate(layer.dataflow);
}

// An Undercount as QCOMPARE prints it.
std::string why(cost::Undercount u)
{
    return u == cost::Undercount::None ? std::string("none") : cost::toString(u);
}

arch::Accelerator p2()
{
    return arch::loadAccelerator(kSamples + "/accelerators/P2_edge.json");
}

} // namespace

class TestUndercount : public QObject
{
    Q_OBJECT

private slots:
    void computeBound()
    {
        QCOMPARE(cost::computeBound(1594884096, 1024, 1), std::int64_t(1557504)); // exact division
        QCOMPARE(cost::computeBound(77280, 12, 1), std::int64_t(6440));
        QCOMPARE(cost::computeBound(10, 4, 1), std::int64_t(3)); // rounded up
        QCOMPARE(cost::computeBound(10, 2, 4), std::int64_t(2)); // SIMD lanes multiply the PEs
        QCOMPARE(cost::computeBound(0, 4, 1), std::int64_t(0));
    }

    // The issue's example: VGG16 CONV4_3 as MAESTRO's models write it (Y: 28, 26x26 outputs, the
    // issue's 1,594,884,096 MACs), and the same layer with 28x28 outputs (Y: 30).
    void gammaLikeMappingOnP2_data()
    {
        QTest::addColumn<std::int64_t>("inputRows");
        QTest::addColumn<std::int64_t>("macs");
        QTest::addColumn<std::int64_t>("bound");
        QTest::addColumn<std::int64_t>("maestro");
        QTest::addColumn<std::int64_t>("corrected");
        QTest::newRow("28x28 input (the issue's MACs)")
            << std::int64_t(28) << std::int64_t(1594884096) << std::int64_t(1557504) << std::int64_t(982497)
            << std::int64_t(1560801);
        QTest::newRow("28x28 output") << std::int64_t(30) << std::int64_t(1849688064) << std::int64_t(1806336)
                                      << std::int64_t(1100001) << std::int64_t(1809633);
    }

    void gammaLikeMappingOnP2()
    {
        QFETCH(std::int64_t, inputRows);
        QFETCH(std::int64_t, macs);
        QFETCH(std::int64_t, bound);
        QFETCH(std::int64_t, maestro);
        QFETCH(std::int64_t, corrected);
        const arch::Accelerator acc = p2();
        const mdc::Layer layer = convLayer(512, 512, 3, inputRows, kGammaLike);
        const cost::Result r = evaluate(layer, acc, cost::Fidelity::Maestro);
        QCOMPARE(r.macsExpected, 512LL * 512 * 9 * (inputRows - 2) * (inputRows - 2));
        QCOMPARE(r.macsExpected, macs);
        QCOMPARE(r.m.macs, macs); // the MAC count is right: only the runtime is undercounted
        QCOMPARE(r.exactMacs, macs);
        QCOMPARE(r.m.activePes, std::int64_t(1024)); // 32 of 256 channel pairs x 32 of 32 filters
        QCOMPARE(r.computeBound, bound);
        QCOMPARE(r.m.runtimeCycles, maestro);
        QVERIFY(r.m.runtimeCycles < bound);
        QCOMPARE(why(r.undercount), why(cost::Undercount::BelowComputeBound));
        QCOMPARE(cost::evaluationStatus(r), std::string("maestro-undercount"));
        QVERIFY(r.correctedRuntime);
        QCOMPARE(*r.correctedRuntime, corrected);
        QVERIFY(*r.correctedRuntime >= bound);
        QVERIFY(cost::undercountWarning(r).find(std::to_string(corrected) + " cycles") != std::string::npos);

        // The corrected runtime is that of corrected fidelity itself, whose figure is possible.
        const cost::Result c = evaluate(layer, acc, cost::Fidelity::Corrected);
        QCOMPARE(c.m.runtimeCycles, corrected);
        QCOMPARE(c.m.macs, macs);
        QCOMPARE(why(c.undercount), why(cost::Undercount::None));
        QCOMPARE(c.computeBound, bound);

        // The network path (marvel evaluate --mapping) flags it the same way.
        const auto net = cost::evaluateNetwork(mdc::Network{"N", {layer}}, acc);
        QCOMPARE(why(net.at(0).result.undercount), why(cost::Undercount::BelowComputeBound));
        QCOMPARE(net.at(0).result.correctedRuntime.value_or(-1), corrected);
    }

    void shrunkenMappingAgreesWithTheSimulator()
    {
        // The same directives on the same accelerator with 16 times fewer filters and 8 times fewer
        // channels: small enough to simulate. MAESTRO undercounts it alike; the simulator executes it
        // in exactly the corrected runtime, above the bound.
        const arch::Accelerator acc = p2();
        const mdc::Layer layer = convLayer(32, 64, 3, 28, kGammaLike);
        const cost::Result r = evaluate(layer, acc, cost::Fidelity::Maestro);
        QCOMPARE(r.m.macs, std::int64_t(12460032));
        QCOMPARE(r.m.activePes, std::int64_t(1024));
        QCOMPARE(r.computeBound, std::int64_t(12168));
        QCOMPARE(r.m.runtimeCycles, std::int64_t(7899));
        QCOMPARE(why(r.undercount), why(cost::Undercount::BelowComputeBound));
        QCOMPARE(r.correctedRuntime.value_or(-1), std::int64_t(12417));
        const sim::Totals t = sim::simulate(cost::fromMaestroLayer(layer), layer.dataflow, acc);
        QCOMPARE(t.macs, std::int64_t(12460032));
        QCOMPARE(t.recomputedMacs, std::int64_t(0));
        QCOMPARE(t.runtimeCycles, std::int64_t(12417));
    }

    void wrongMacCountIsFlagged()
    {
        // K = 10 in tiles of 3 over 2 PEs: the last fold has one full tile (K 6-8) and a partial one
        // (K 9). MAESTRO counts only the full units of that fold (its E, spec section 3.4): 7 of the 10
        // filters' MACs, 126 of 180.
        arch::Accelerator acc = p2();
        acc.numPes = 2;
        const mdc::Layer layer = mdc::readMaestroMapping(
            "Network N { Layer FOLD { Type: CONV Stride { X: 1, Y: 1 } Dimensions { "
            "K: 10, C: 2, R: 1, S: 1, Y: 3, X: 3 } Dataflow { SpatialMap(3,3) K; "
            "TemporalMap(1,1) C; TemporalMap(1,1) Y; TemporalMap(1,1) X; } } }",
            "fold.m")
                                     .layers.at(0);
        const cost::Result r = evaluate(layer, acc, cost::Fidelity::Maestro);
        QCOMPARE(r.macsExpected, std::int64_t(180));
        QCOMPARE(r.m.macs, std::int64_t(126));
        QCOMPARE(r.exactMacs, std::int64_t(180));
        QCOMPARE(why(r.undercount), why(cost::Undercount::WrongMacs));
        QCOMPARE(cost::toString(r.undercount), std::string("wrong-mac-count"));
        QCOMPARE(r.correctedRuntime.value_or(-1), std::int64_t(109));
        const sim::Totals t = sim::simulate(cost::fromMaestroLayer(layer), layer.dataflow, acc);
        QCOMPARE(t.macs, std::int64_t(180));
        QCOMPARE(t.runtimeCycles, std::int64_t(109));
    }

    void recomputedMacsAreNoWrongCount()
    {
        // Overlapping output tiles (offset 1, size 4) compute outputs again: both fidelities count the
        // MACs the mapping performs, 40 for the operator's 16 (the simulator: 16 + 24 recomputed), which
        // is not a miscount.
        const ir::Operator op = ir::parseOperator(R"(operator conv1d(K = 2, C = 1, X = 8, S = 1) {
  for (k = 0; k < K; k++)
    for (c = 0; c < C; c++)
      for (x = 0; x < X; x++)
        for (s = 0; s < S; s++)
          O[k][x] += W[k][c][s] * I[c][x + s];
})",
            "conv1d.loop");
        const cost::Problem problem = cost::fromOperator(op);
        arch::Accelerator acc = p2();
        acc.numPes = 2;
        const mdc::Dataflow df = {mdc::Directive::temporal(1, 1, "K"), mdc::Directive::spatial(4, 1, "X"),
            mdc::Directive::temporal(1, 1, "S"), mdc::Directive::temporal(1, 1, "C")};
        const cost::Result r = cost::Evaluator(problem, acc).evaluate(df);
        QCOMPARE(r.macsExpected, std::int64_t(16));
        QCOMPARE(r.m.macs, std::int64_t(40));
        QCOMPARE(r.exactMacs, std::int64_t(40));
        QCOMPARE(why(r.undercount), why(cost::Undercount::None));
        QVERIFY(!r.correctedRuntime);
        const sim::Totals t = sim::simulate(problem, df, acc);
        QCOMPARE(t.macs, std::int64_t(16));
        QCOMPARE(t.macs + t.recomputedMacs, std::int64_t(40));
    }

    void correctedFidelityIsAboveTheBound()
    {
        // The bound is a true lower bound: corrected fidelity, exact against the simulator on these
        // random mappings (tst_sim), never goes below it. Its per-case tables alone (what it uses for
        // mappings too large to walk) may, with a spatial map on a filter tap, the case they do not count
        // exactly (doc/cost-model.md): such figures are flagged too (and the search's evaluator rejects them,
        // by the same check). Since the tables' rules for a child level under a SpatialMap on a tap they do
        // on none of 300,000 random mappings (seeds 1-30; of seeds 1-3, 53 before FIX TAP-EXTENT, 1 before
        // FIX TAP-COMPUTE: seed 2's case 7903 below). MAESTRO's figures are flagged on some of the mappings.
        int flaggedMaestro = 0, flaggedTables = 0;
        for (int i = 0; i < 1000; ++i) {
            const sim::RandomCase c = sim::randomCase(1, i);
            for (int mode = 0; mode < 3; ++mode) {
                cost::Options o;
                o.fidelity = mode == 0 ? cost::Fidelity::Maestro : cost::Fidelity::Corrected;
                o.stepWalk = mode == 1;
                cost::Evaluator ev(c.problem, c.acc, o);
                cost::Metrics m;
                if (!ev.evaluateMetrics(c.dataflow, m)) {
                    QVERIFY2(mode == 0, c.text().c_str());
                    continue;
                }
                QVERIFY2(m.activePes >= 1 && m.activePes <= c.acc.numPes, c.text().c_str());
                const bool below = m.runtimeCycles
                    < cost::computeBound(c.problem.analyticMacs(), m.activePes, c.acc.simdLanes);
                const cost::Result r = ev.evaluate(c.dataflow);
                if (mode == 0) {
                    flaggedMaestro += r.undercount != cost::Undercount::None;
                    continue;
                }
                QCOMPARE(why(r.undercount),
                    why(below ? cost::Undercount::BelowComputeBound : cost::Undercount::None));
                QVERIFY2(!below || (mode == 2 && spatialOnTap(c)), c.text().c_str());
                if (below) QCOMPARE(cost::evaluationStatus(r), std::string("corrected-undercount"));
                flaggedTables += below;
            }
        }
        QVERIFY(flaggedMaestro > 0);
        QCOMPARE(flaggedTables, 0);
        // Two taps of R = 3 per sub-unit (SpatialMap(2,2) R), then the last one alone below, whose own map
        // on the output rows names outputs of 2 taps: under one it computes every output its rows give that
        // tap (FIX TAP-COMPUTE), where the tables counted one and fell below the bound (342 cycles; the
        // simulator 606). They now count no fewer cycles than the simulator.
        const sim::RandomCase c = sim::randomCase(2, 7903);
        QVERIFY(spatialOnTap(c));
        cost::Options o;
        o.fidelity = cost::Fidelity::Corrected;
        o.stepWalk = false;
        const cost::Result r = cost::Evaluator(c.problem, c.acc, o).evaluate(c.dataflow);
        QVERIFY(r.m.runtimeCycles
            >= cost::computeBound(c.problem.analyticMacs(), r.m.activePes, c.acc.simdLanes));
        QCOMPARE(why(r.undercount), why(cost::Undercount::None));
        QCOMPARE(sim::simulate(c.problem, c.dataflow, c.acc).runtimeCycles, std::int64_t(606));
        QVERIFY(r.m.runtimeCycles >= 606);
    }

    void searchEvaluatorsRejectImpossibleFigures()
    {
        // The one evaluator every search path uses (decoupled, exhaustive, widened, styles, genetic,
        // sweeps): a Maestro figure below the bound is rejected and said to be impossible; the same
        // mapping in corrected fidelity is ranked by its possible figure.
        const arch::Accelerator acc = p2();
        const mdc::Layer layer = convLayer(512, 512, 3, 28, kGammaLike);
        const cost::Problem problem = cost::fromMaestroLayer(layer);
        auto maestro = search::costModelEvaluators(problem, acc, search::Fidelity::Maestro)();
        QVERIFY(!maestro->evaluate(layer.dataflow));
        QVERIFY(maestro->lastImpossible());
        auto corrected = search::costModelEvaluators(problem, acc, search::Fidelity::Corrected)();
        const std::optional<search::Metrics> c = corrected->evaluate(layer.dataflow);
        QVERIFY(c);
        QVERIFY(!corrected->lastImpossible());
        QCOMPARE(c->runtime, std::int64_t(1560801));
        // An invalid mapping is rejected, but not as impossible.
        QVERIFY(!maestro->evaluate({mdc::Directive::temporal(1, 1, "K")}));
        QVERIFY(!maestro->lastImpossible());
    }

    void searchNeverReturnsAnImpossibleFigure()
    {
        // A small layer whose tile sizes need not divide, on 12 PEs, K and C parallel: the same search
        // with the cost model's plain figures (the rule before: only a wrong MAC count rejected) returns
        // a mapping MAESTRO reports in 4556 cycles, below the bound of 4600 (12 busy PEs); the search
        // refuses it and returns a possible figure.
        const ir::Operator op
            = ir::parseOperator(R"(operator conv(K = 23, C = 12, Y = 10, X = 5, R = 2, S = 2) {
  for (k = 0; k < K; k++)
    for (c = 0; c < C; c++)
      for (y = 0; y < Y; y++)
        for (x = 0; x < X; x++)
          for (r = 0; r < R; r++)
            for (s = 0; s < S; s++)
              O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s];
})",
                "conv.loop");
        arch::Accelerator acc = arch::loadAccelerator(kSamples + "/accelerators/classroom_8pe.json");
        acc.numPes = 12;
        acc.l1Bytes = 93;
        acc.l2Bytes = 4650;
        search::SearchOptions o;
        o.threads = 2;
        o.fidelity = search::Fidelity::Maestro; // MAESTRO's figures are the ones that can be impossible
        o.divisorsOnly = false;
        o.everyTileSize = true;
        o.constraint.parallelAllowed = {true, true, false, false, false, false};
        const search::LayerSearchResult r = search::searchLayer(op, acc, o);
        QVERIFY(r.result.bestRuntime);
        QVERIFY(r.result.stats.impossibleFigures > 0);
        cost::Evaluator maestro(r.problem, acc);
        const cost::Result best = maestro.evaluate(r.result.bestRuntime->dataflow);
        QCOMPARE(best.computeBound, std::int64_t(4600));
        QCOMPARE(r.result.bestRuntime->metrics.runtime, std::int64_t(4614));
        QCOMPARE(best.m.runtimeCycles, std::int64_t(4614));
        QCOMPARE(why(best.undercount), why(cost::Undercount::None));
        for (const search::Candidate& c : r.result.pareto)
            QCOMPARE(why(maestro.evaluate(c.dataflow).undercount), why(cost::Undercount::None));

        // The plain figures, as the search ranked them before.
        const search::SearchResult plain = search::searchOnChip(
            r.space, r.offChip, acc, o, [&]() -> std::unique_ptr<search::MappingEvaluator> {
                return std::make_unique<marvel::testing::UnguardedCostEvaluator>(r.problem, acc);
            });
        QVERIFY(plain.bestRuntime);
        QCOMPARE(plain.bestRuntime->metrics.runtime, std::int64_t(4556));
        const cost::Result fooled = maestro.evaluate(plain.bestRuntime->dataflow);
        QCOMPARE(why(fooled.undercount), why(cost::Undercount::BelowComputeBound));
        QCOMPARE(fooled.computeBound, std::int64_t(4600));
        QCOMPARE(fooled.correctedRuntime.value_or(-1), std::int64_t(5568));
    }
};

QTEST_APPLESS_MAIN(TestUndercount)
#include "tst_undercount.moc"
