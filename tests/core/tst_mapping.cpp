// Loop-nest mappings: the paper's transformation to MDC directives (checked by hand), the tiled
// loop-nest printing, JSON round trips and validation messages.
#include <nlohmann/json.hpp>

#include <QtTest>

#include "core/cost/costmodel.h"
#include "core/cost/problem.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/sim/simulator.h"

using namespace marvel;
using mapping::LoopNestMapping;
using mapping::MappedLoop;

namespace {

MappedLoop loop(std::string dim, std::int64_t extent, std::int64_t t1, std::int64_t t2, std::int64_t t3)
{
    MappedLoop l;
    l.dim = std::move(dim);
    l.extent = extent;
    l.level1 = t1;
    l.level2 = t2;
    l.level3 = t3;
    return l;
}

/// The paper's CONV1D (O[x] += W[s] * I[x + s], X = 16, S = 3) with both loops parallel, as in its
/// transformation figure: x spread over 2 PEs (T1 = 2, T2 = 4), s over 3 PEs (T1 = 1, T2 = 3), level-3
/// tile x = 8; level-2 order (s, x), level-3 order (x, s).
LoopNestMapping conv1dMapping()
{
    LoopNestMapping m;
    m.loops = {loop("X", 16, 2, 4, 8), loop("S", 3, 1, 3, 3)};
    m.level2Order = {1, 0};
    m.level3Order = {0, 1};
    return m;
}

arch::Accelerator pes(std::int64_t n)
{
    arch::Accelerator acc;
    acc.numPes = n;
    return acc;
}

using mdc::Directive;

/// A 3x3 convolution of stride 2 (K = 16, C = 8, 8 x 8 outputs from a 17 x 17 input): output rows Y'
/// spread over 4 PEs with level-3 tile = level-2 tile = 4 rows, K over 8 PEs (level-1 tile 1, level-2
/// tile 8, level-3 tile 16: two level-2 iterations), one output column X' per level-3 tile.
/// Level-2 order (Y', K, C, X', R, S); level-3 order (K, C, Y', X', R, S).
LoopNestMapping stridedConvMapping()
{
    LoopNestMapping m;
    m.loops = {loop("K", 16, 1, 8, 16), loop("C", 8, 8, 8, 8), loop("Y'", 8, 1, 4, 4), loop("X'", 8, 1, 1, 1),
        loop("R", 3, 3, 3, 3), loop("S", 3, 3, 3, 3)};
    m.loops[2].windowStride = 2;
    m.loops[3].windowStride = 2;
    m.level2Order = {2, 0, 1, 3, 4, 5};
    m.level3Order = {0, 1, 2, 3, 4, 5};
    m.level2Form = mapping::Level2Form::TopSpatial;
    return m;
}

cost::Problem strided17Problem()
{
    mdc::Layer layer;
    layer.name = "strided";
    layer.type = "CONV";
    layer.dims = {{"K", 16, 1}, {"C", 8, 1}, {"R", 3, 1}, {"S", 3, 1}, {"Y", 17, 2}, {"X", 17, 2}};
    return cost::fromMaestroLayer(layer);
}

void compareDataflows(const mdc::Dataflow& df, const mdc::Dataflow& expected)
{
    QCOMPARE(df.size(), expected.size());
    for (std::size_t i = 0; i < df.size(); ++i)
        QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
}

} // namespace

class TestMapping : public QObject
{
    Q_OBJECT

private slots:
    void derivedQuantities()
    {
        const LoopNestMapping m = conv1dMapping();
        QCOMPARE(m.loops[0].parallelism(), 2);
        QCOMPARE(m.loops[1].parallelism(), 3);
        QCOMPARE(m.loops[0].level2Iterations(), 2);
        QCOMPARE(m.loops[0].level3Iterations(), 2);
        QCOMPARE(m.activePes(), 6);
        QCOMPARE(m.parallelLoops(), (std::vector<int>{1, 0})); // level-2 order: s outside x
        QCOMPARE(mapping::mdcLevelCount(m), 4);
    }

    void conv1dTransformation()
    {
        // By hand: region of the level-3 inter-tile loops (x, s), Cluster(1), region of the level-2
        // inter-tile loops (s, x), a cluster giving the s region 8 / 2 = 4 sub-units of 2 PEs, the s
        // region (its spatial map over s, x still at its level-2 tile 4), Cluster(2) for the 2 x PEs,
        // and the innermost x region that also holds the point loops.
        const mdc::Dataflow expected = {
            Directive::temporal(8, 8, "X"),
            Directive::spatial(3, 3, "S"),
            Directive::cluster(1),
            Directive::temporal(3, 3, "S"),
            Directive::spatial(4, 4, "X"),
            Directive::cluster(4),
            Directive::spatial(1, 1, "S"),
            Directive::temporal(4, 4, "X"),
            Directive::cluster(2),
            Directive::spatial(2, 2, "X"),
            Directive::temporal(1, 1, "S"),
        };
        const mdc::Dataflow df = mapping::toMdc(conv1dMapping(), pes(8));
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
    }

    void conv1dFusedForm()
    {
        // By hand: the level-3 region (x, then s as the top level's spatial map: s has one level-3 tile,
        // so the top level's 8 / (3 * 2) = 1 sub-unit is busy), Cluster(3) for the outer parallel loop
        // s, the fused level - the level-2 inter-tile loops in level-2 order (s, x) with s written as
        // its SpatialMap(1,1), whose folds over the level-3 tile are s's level-2 inter-tile iterations -
        // then Cluster(2) and the innermost x region as in the separate form.
        LoopNestMapping m = conv1dMapping();
        m.level2Form = mapping::Level2Form::Fused;
        QVERIFY(mapping::fusedFormApplies(m));
        QCOMPARE(mapping::mdcLevelCount(m), 3);
        const mdc::Dataflow expected = {
            Directive::temporal(8, 8, "X"),
            Directive::spatial(3, 3, "S"),
            Directive::cluster(3),
            Directive::spatial(1, 1, "S"),
            Directive::temporal(4, 4, "X"),
            Directive::cluster(2),
            Directive::spatial(2, 2, "X"),
            Directive::temporal(1, 1, "S"),
        };
        const mdc::Dataflow df = mapping::toMdc(m, pes(8));
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
    }

    void fusedFormNeedsASingleLevel3Tile()
    {
        // Every loop has several level-3 tiles: no loop can hold the top level's one-unit spatial map.
        LoopNestMapping m;
        m.loops = {loop("A", 8, 1, 2, 4), loop("B", 8, 2, 2, 4)};
        m.level2Order = {0, 1};
        m.level3Order = {0, 1};
        m.level2Form = mapping::Level2Form::Fused;
        QVERIFY(!mapping::fusedFormApplies(m));
        try {
            mapping::toMdc(m, pes(4));
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("fused form needs") != std::string::npos);
        }
        // No parallel loop: nothing to fuse with.
        m.loops = {loop("A", 8, 2, 2, 8), loop("B", 8, 2, 2, 4)};
        QVERIFY(!mapping::fusedFormApplies(m));
    }

    void fusedFormWithOneTopSubUnit()
    {
        // The same split loops on 3 PEs: A spreads over 2 of them, so the top level has 3 / 2 = 1 sub-unit
        // and the innermost level-3 loop (B) carries its spatial map in place. By hand: the level-3
        // region in level-3 order (A, then B as SpatialMap(4,4)), Cluster(2) for the parallel loop A, the
        // fused level in level-2 order (A as its SpatialMap(1,1), B as TemporalMap(2,2)).
        LoopNestMapping m;
        m.loops = {loop("A", 8, 1, 2, 4), loop("B", 8, 2, 2, 4)};
        m.level2Order = {0, 1};
        m.level3Order = {0, 1};
        m.level2Form = mapping::Level2Form::Fused;
        const arch::Accelerator three = pes(3);
        QVERIFY(mapping::fusedFormApplies(m, &three));
        const mdc::Dataflow expected = {
            Directive::temporal(4, 4, "A"),
            Directive::spatial(4, 4, "B"),
            Directive::cluster(2),
            Directive::spatial(1, 1, "A"),
            Directive::temporal(2, 2, "B"),
        };
        const mdc::Dataflow df = mapping::toMdc(m, three);
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
        // Four PEs leave two top sub-units: B's map would spread its level-3 tiles over both.
        const arch::Accelerator four = pes(4);
        QVERIFY(!mapping::fusedFormApplies(m, &four));
    }

    void fusedFormRepresentsThreeParallelLoopsWithTwoTilings()
    {
        // Level-3 and level-2 regions plus three parallel loops need five levels in the separate form
        // but four when fused (the level-3 region, then one level per parallel loop).
        LoopNestMapping m;
        m.loops = {loop("A", 8, 1, 2, 4), loop("B", 8, 1, 2, 4), loop("C", 2, 1, 2, 2)};
        m.level2Order = {0, 1, 2};
        m.level3Order = {0, 1, 2};
        QCOMPARE(mapping::mdcLevelCount(m), 5);
        m.level2Form = mapping::Level2Form::Fused;
        QCOMPARE(mapping::mdcLevelCount(m), 4);
        const mdc::Dataflow df = mapping::toMdc(m, pes(8));
        const mdc::Dataflow expected = {Directive::temporal(4, 4, "A"), Directive::temporal(4, 4, "B"),
            Directive::spatial(2, 2, "C"), Directive::cluster(2), Directive::spatial(1, 1, "A"),
            Directive::temporal(2, 2, "B"), Directive::temporal(2, 2, "C"), Directive::cluster(2),
            Directive::spatial(1, 1, "B"), Directive::temporal(1, 1, "A"), Directive::temporal(2, 2, "C"),
            Directive::cluster(2), Directive::spatial(1, 1, "C"), Directive::temporal(1, 1, "A"),
            Directive::temporal(1, 1, "B")};
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
    }

    void stridedConvTopSpatialForm()
    {
        // By hand: level 0 holds the level-3 inter-tile loops in level-3 order, Y' (the outer parallel
        // loop, level-3 tile = level-2 tile) written as its SpatialMap(1,1) in its level-3 place, X' as
        // one row (a map of 1 output row is 1 in MAESTRO's strided Y'/X' semantics); Cluster(8) leaves
        // level 0 32 / 8 = 4 sub-units, exactly Y's parallelism, so the folds of the spatial map walk
        // Y's two level-3 tiles. Level 1 is the fused level: level-2 order with Y' at its level-1 tile,
        // K as its SpatialMap(1,1) (its folds: K's two level-2 tiles of 8), the others at their
        // level-2 tiles.
        const LoopNestMapping m = stridedConvMapping();
        QCOMPARE(mapping::mdcLevelCount(m), 2);
        QCOMPARE(mapping::topSpatialClusters(m, pes(32)), (std::vector<std::int64_t>{8}));
        compareDataflows(mapping::toMdc(m, pes(32)),
            {Directive::temporal(16, 16, "K"), Directive::temporal(8, 8, "C"), Directive::spatial(1, 1, "Y'"),
                Directive::temporal(1, 1, "X'"), Directive::temporal(3, 3, "R"),
                Directive::temporal(3, 3, "S"), Directive::cluster(8), Directive::temporal(1, 1, "Y'"),
                Directive::spatial(1, 1, "K"), Directive::temporal(8, 8, "C"),
                Directive::temporal(1, 1, "X'"), Directive::temporal(3, 3, "R"),
                Directive::temporal(3, 3, "S")});
    }

    void topSpatialFormCountsStridedMacsExactly()
    {
        // MAESTRO (maestro fidelity) counts K * C * Y' * X' * R * S = 16 * 8 * 8 * 8 * 3 * 3 MACs for
        // the TopSpatial form. The Separate form of the same loop nest maps Y's level-3 tile of 4 rows in
        // level 0 as Y' size 2 * 3 + 1 = 7, i.e. 9 input rows, which MAESTRO reads as 9 - 3 + 1 = 7
        // output rows per tile (spec section 4.1): 14 counted rows for 8.
        const std::int64_t macs = 16 * 8 * 8 * 8 * 3 * 3;
        cost::Evaluator evaluator(strided17Problem(), pes(32));
        LoopNestMapping m = stridedConvMapping();
        cost::Metrics metrics;
        QVERIFY(evaluator.evaluateMetrics(mapping::toMdc(m, pes(32)), metrics));
        QCOMPARE(metrics.macs, macs);
        // Every PE busy except for the NoC: at least macs / 32 cycles.
        QVERIFY(metrics.runtimeCycles >= macs / 32);
        m.level2Form = mapping::Level2Form::Separate;
        QVERIFY(evaluator.evaluateMetrics(mapping::toMdc(m, pes(32)), metrics));
        QCOMPARE(metrics.macs, macs / 8 * 14);
    }

    void filterLoopSpreadWithItsInputRows()
    {
        // A 3x3 convolution of stride 2 (K = C = 2, 4 x 4 outputs from a 9 x 9 input) on 6 PEs: K over
        // 2 clusters, R over the 3 PEs of each, S whole in a PE; one output row and column per step.
        mdc::Layer layer;
        layer.name = "rowstationary";
        layer.type = "CONV";
        layer.dims = {{"K", 2, 1}, {"C", 2, 1}, {"R", 3, 1}, {"S", 3, 1}, {"Y", 9, 2}, {"X", 9, 2}};
        const cost::Problem problem = cost::fromMaestroLayer(layer);
        LoopNestMapping m;
        m.loops = {loop("K", 2, 1, 2, 2), loop("C", 2, 1, 1, 2), loop("Y'", 4, 1, 1, 1),
            loop("X'", 4, 1, 1, 1), loop("R", 3, 1, 3, 3), loop("S", 3, 3, 3, 3)};
        for (int i : {2, 3})
            m.loops[static_cast<std::size_t>(i)].windowStride = 2;
        m.loops[2].windowReference = "Y";
        m.loops[2].windowSliding = "R";
        m.loops[3].windowReference = "X";
        m.loops[3].windowSliding = "S";
        m.level2Order = {0, 1, 2, 3, 4, 5};
        m.level3Order = {3, 0, 1, 2, 4, 5};
        // By hand: the level-3 region (X' and Y' in steps of one output, as MAESTRO counts a strided
        // window's MACs exactly), the level-2 region (C steps), Cluster(6 / 3) for the K region, then the R
        // region: Y' is at one row there, so the input rows go over the same 3 PEs as the filter rows, PE r
        // getting row 2 y' + r.
        const mdc::Dataflow expected = {Directive::temporal(1, 1, "X'"), Directive::temporal(2, 2, "K"),
            Directive::temporal(2, 2, "C"), Directive::temporal(1, 1, "Y'"), Directive::temporal(3, 3, "R"),
            Directive::spatial(3, 3, "S"), Directive::cluster(1), Directive::temporal(2, 2, "K"),
            Directive::temporal(1, 1, "C"), Directive::temporal(1, 1, "Y'"), Directive::temporal(1, 1, "X'"),
            Directive::temporal(3, 3, "R"), Directive::spatial(3, 3, "S"), Directive::cluster(2),
            Directive::spatial(1, 1, "K"), Directive::temporal(1, 1, "C"), Directive::temporal(1, 1, "Y'"),
            Directive::temporal(1, 1, "X'"), Directive::temporal(3, 3, "R"), Directive::temporal(3, 3, "S"),
            Directive::cluster(3), Directive::spatial(1, 1, "Y"), Directive::spatial(1, 1, "R"),
            Directive::temporal(1, 1, "K"), Directive::temporal(1, 1, "C"), Directive::temporal(1, 1, "X'"),
            Directive::temporal(3, 3, "S")};
        arch::Accelerator acc = pes(6);
        acc.nocBandwidth = 64; // compute-bound, so that the steps show in the runtime
        const mdc::Dataflow df = mapping::toMdc(m, acc);
        compareDataflows(df, expected);

        // Every PE does S = 3 MACs per step on input row 2 y' + r; MAESTRO counts the layer's
        // 2 * 2 * 4 * 4 * 3 * 3 MACs, and the step-by-step simulation agrees with the cost model.
        const std::int64_t macs = 2 * 2 * 4 * 4 * 3 * 3;
        cost::Evaluator evaluator(problem, acc);
        cost::Metrics diagonal;
        QVERIFY(evaluator.evaluateMetrics(df, diagonal));
        QCOMPARE(diagonal.macs, macs);
        sim::Simulator s(problem, df, acc);
        const int input = [&] {
            for (std::size_t t = 0; t < s.layout().tensors.size(); ++t)
                if (s.layout().tensors[t].name == "input") return static_cast<int>(t);
            return -1;
        }();
        QVERIFY(input >= 0);
        std::vector<sim::Frame> frames;
        const sim::Totals totals = s.run(
            [&](const sim::Frame& f) {
                frames.push_back(f);
                return true;
            },
            0, 4);
        QCOMPARE(totals.macs, macs);
        QCOMPARE(totals.runtimeCycles, diagonal.runtimeCycles);
        QCOMPARE(frames.size(), std::size_t(4));
        for (std::size_t f = 0; f < 4; ++f)
            for (std::size_t pe = 0; pe < 6; ++pe) {
                const sim::PeState& state = frames[f].pes[pe];
                QCOMPARE(state.macs, 3);
                // Frames walk C inside Y' (one row at a time); the input's subscripts are C, Y, X.
                const std::int64_t row
                    = 2 * static_cast<std::int64_t>(f / 2) + static_cast<std::int64_t>(pe % 3);
                QCOMPARE(
                    state.tensors[static_cast<std::size_t>(input)].ranges.at(1), (sim::Range{row, row + 1}));
            }

        // Without the window's names the R region keeps Y' at one row, which MAESTRO turns into one input
        // row per step walked over all 3 rows of the parent's window: the same MACs, three times the steps.
        for (MappedLoop& l : m.loops)
            l.windowReference.clear();
        cost::Metrics walked;
        QVERIFY(evaluator.evaluateMetrics(mapping::toMdc(m, acc), walked));
        QCOMPARE(walked.macs, macs);
        QVERIFY(walked.runtimeCycles > diagonal.runtimeCycles);
    }

    void topSpatialClusters_data()
    {
        QTest::addColumn<qint64>("numPes");
        QTest::addColumn<qint64>("kLevel1");
        QTest::addColumn<qint64>("kLevel2");
        QTest::addColumn<qint64>("yLevel2");
        QTest::addColumn<std::vector<std::int64_t>>("clusters");
        using V = std::vector<std::int64_t>;
        // K over 8 PEs, Y' over 4: 4 sub-units at level 0 for 32 PEs.
        QTest::newRow("exact") << qint64(32) << qint64(1) << qint64(8) << qint64(4) << V{8};
        // 40 / 8 = 5 sub-units would step over 5 rows, not Y's level-3 tile of 4; K has two level-2
        // tiles, so enlarging its cluster would change them: not expressible.
        QTest::newRow("too many sub-units") << qint64(40) << qint64(1) << qint64(8) << qint64(4) << V{};
        // K over 8 PEs by tiles of 2 in a single level-2 tile of 16: its cluster may grow to 40 / 4 = 10
        // (2 sub-units idle, one spatial step either way), leaving 4 sub-units at level 0.
        QTest::newRow("enlarged") << qint64(40) << qint64(2) << qint64(16) << qint64(4) << V{10};
        // Y' whole (level-3 tile 8 = extent): one spatial step on 100 / 8 = 12 >= 8 sub-units.
        QTest::newRow("single step") << qint64(100) << qint64(1) << qint64(8) << qint64(8) << V{8};
        // Too few PEs for the inner parallel loop.
        QTest::newRow("too few PEs") << qint64(4) << qint64(1) << qint64(8) << qint64(4) << V{};
    }

    void topSpatialClusters()
    {
        QFETCH(qint64, numPes);
        QFETCH(qint64, kLevel1);
        QFETCH(qint64, kLevel2);
        QFETCH(qint64, yLevel2);
        QFETCH(std::vector<std::int64_t>, clusters);
        LoopNestMapping m = stridedConvMapping();
        m.loops[0].level1 = kLevel1;
        m.loops[0].level2 = kLevel2;
        m.loops[2].level2 = m.loops[2].level3 = yLevel2;
        QCOMPARE(mapping::topSpatialClusters(m, pes(numPes)), clusters);
        if (clusters.empty()) {
            try {
                mapping::toMdc(m, pes(numPes));
                QFAIL("expected an error");
            } catch (const InputError& e) {
                const bool tooFewPes = m.activePes() > numPes;
                QVERIFY(std::string(e.what()).find(
                            tooFewPes ? "PEs but the accelerator has" : "top_spatial form needs")
                    != std::string::npos);
            }
        } else {
            QCOMPARE(mapping::toMdc(m, pes(numPes))[6], Directive::cluster(clusters[0]));
        }
    }

    void topSpatialFormNeedsItsShape()
    {
        // The outer parallel loop must have one level-2 tile per level-3 tile.
        LoopNestMapping m = stridedConvMapping();
        m.loops[2].level3 = 8;
        QVERIFY(mapping::topSpatialClusters(m, pes(32)).empty());
        // And an inner parallel loop.
        m = stridedConvMapping();
        m.loops[0].level1 = 8;
        QVERIFY(mapping::topSpatialClusters(m, pes(32)).empty());
    }

    void trivialRegionsAreOmitted()
    {
        // Whole operator in one level-3 tile and one level-2 tile: only the parallel regions remain,
        // and the top level holds the outer parallel loop over N_PE / 4 = 4 sub-units.
        LoopNestMapping m;
        m.loops = {loop("K", 8, 2, 8, 8), loop("C", 4, 1, 4, 4)};
        m.level2Order = {0, 1};
        m.level3Order = {0, 1};
        const mdc::Dataflow df = mapping::toMdc(m, pes(16));
        const mdc::Dataflow expected = {Directive::spatial(2, 2, "K"), Directive::temporal(4, 4, "C"),
            Directive::cluster(4), Directive::spatial(1, 1, "C"), Directive::temporal(2, 2, "K")};
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], df[i].toString().c_str());
    }

    void noParallelLoop()
    {
        // One PE does everything: a single point level with the innermost level-2 loop as the
        // (one-unit-wide) spatial map.
        LoopNestMapping m;
        m.loops = {loop("M", 4, 4, 4, 4), loop("N", 2, 2, 2, 2)};
        m.level2Order = {1, 0};
        m.level3Order = {0, 1};
        const mdc::Dataflow df = mapping::toMdc(m, pes(4));
        const mdc::Dataflow expected = {Directive::spatial(4, 4, "M"), Directive::temporal(2, 2, "N")};
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], df[i].toString().c_str());
    }

    void notRepresentable()
    {
        // Level-3 and level-2 regions plus three parallel loops: five levels, MAESTRO has four.
        LoopNestMapping m;
        m.loops = {loop("A", 8, 1, 2, 4), loop("B", 8, 1, 2, 4), loop("C", 8, 1, 2, 4)};
        m.level2Order = {0, 1, 2};
        m.level3Order = {0, 1, 2};
        QCOMPARE(mapping::mdcLevelCount(m), 5);
        try {
            mapping::toMdc(m, pes(64));
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("not representable in MAESTRO") != std::string::npos);
        }
    }

    void validation_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("level2 < level1") << 0 << "loops[0].level2"
                                         << "smaller than the level-1 tile";
        QTest::newRow("level3 > extent") << 1 << "loops[1].level3"
                                         << "exceeds the loop extent";
        QTest::newRow("order") << 2 << "level2_order"
                               << "every loop exactly once";
        QTest::newRow("too many PEs") << 3 << "loops"
                                      << "need 6 PEs but the accelerator has 4";
        QTest::newRow("duplicate dim") << 4 << "loops[1].dim"
                                       << "mapped twice";
    }
    void validation()
    {
        QFETCH(int, which);
        QFETCH(QString, field);
        QFETCH(QString, fragment);
        LoopNestMapping m = conv1dMapping();
        if (which == 0) m.loops[0].level2 = 1;
        if (which == 1) m.loops[1].level3 = 4;
        if (which == 2) m.level2Order = {0, 0};
        if (which == 4) m.loops[1].dim = "X";
        const arch::Accelerator acc = pes(4);
        const auto problems = mapping::validate(m, which == 3 ? &acc : nullptr);
        QVERIFY(!problems.empty());
        QCOMPARE(QString::fromStdString(problems.front().field), field);
        QVERIFY2(QString::fromStdString(problems.front().message).contains(fragment),
            problems.front().message.c_str());
        QVERIFY(mapping::validate(conv1dMapping(), &acc).size() == 1); // only the PE count
    }

    void printing()
    {
        LoopNestMapping m = conv1dMapping();
        m.loops[0].iterator = "x";
        m.loops[1].iterator = "s";
        const std::string text = mapping::printTiledLoopNest(m, "O[x] += W[s] * I[x + s];");
        const std::string expected = "// level 3: L2 tiles (DRAM -> L2)\n"
                                     "for (x3 = 0; x3 < 16; x3 += 8) {\n"
                                     "  for (s3 = 0; s3 < 3; s3 += 3) {\n"
                                     "    // level 2: tiles spread over the PE array (L2 -> PEs)\n"
                                     "    for (s2 = s3; s2 < s3 + 3; s2 += 3) {\n"
                                     "      for (x2 = x3; x2 < x3 + 8; x2 += 4) {\n"
                                     "        // PE array: 6 PEs\n"
                                     "        parallel_for (s1 = s2; s1 < s2 + 3; s1 += 1) {\n"
                                     "          parallel_for (x1 = x2; x1 < x2 + 4; x1 += 2) {\n"
                                     "            // level 1: point loops in one PE (L1)\n"
                                     "            for (x = x1; x < x1 + 2; x++) {\n"
                                     "              for (s = s1; s < s1 + 1; s++) {\n"
                                     "                O[x] += W[s] * I[x + s];\n"
                                     "              }\n"
                                     "            }\n"
                                     "          }\n"
                                     "        }\n"
                                     "      }\n"
                                     "    }\n"
                                     "  }\n"
                                     "}\n";
        QCOMPARE(QString::fromStdString(text), QString::fromStdString(expected));
    }

    void printingCompact()
    {
        // The panel's form of the same nest: s3 and s2 run once (S's level-3 and level-2 tiles are the
        // whole filter), so they are left out and s1 starts from 0; x2 runs twice and stays.
        LoopNestMapping m = conv1dMapping();
        m.loops[0].iterator = "x";
        m.loops[1].iterator = "s";
        const std::string text = mapping::printTiledLoopNest(
            m, "O[x] += W[s] * I[x + s];", {.omitSingleIterationLoops = true, .closeOnOneLine = true});
        const std::string expected = "// level 3: L2 tiles (DRAM -> L2)\n"
                                     "for (x3 = 0; x3 < 16; x3 += 8) {\n"
                                     "  // level 2: tiles spread over the PE array (L2 -> PEs)\n"
                                     "  for (x2 = x3; x2 < x3 + 8; x2 += 4) {\n"
                                     "    // PE array: 6 PEs\n"
                                     "    parallel_for (s1 = 0; s1 < 3; s1 += 1) {\n"
                                     "      parallel_for (x1 = x2; x1 < x2 + 4; x1 += 2) {\n"
                                     "        // level 1: point loops in one PE (L1)\n"
                                     "        for (x = x1; x < x1 + 2; x++) {\n"
                                     "          for (s = s1; s < s1 + 1; s++) {\n"
                                     "            O[x] += W[s] * I[x + s];\n"
                                     "}}}}}}\n"
                                     "// one iteration, left out: s3 s2\n";
        QCOMPARE(QString::fromStdString(text), QString::fromStdString(expected));
    }

    void printingPartialTiles()
    {
        // A level-3 tile of 5 over 16: the inner loops are clipped to the extent.
        LoopNestMapping m;
        m.loops = {loop("X", 16, 5, 5, 5)};
        m.level2Order = {0};
        m.level3Order = {0};
        const std::string text = mapping::printTiledLoopNest(m);
        QVERIFY2(
            text.find("for (x2 = x3; x2 < min(x3 + 5, 16); x2 += 5)") != std::string::npos, text.c_str());
        QVERIFY(text.find("parallel_for") == std::string::npos);
    }

    void jsonRoundTrip()
    {
        LoopNestMapping m = conv1dMapping();
        m.layouts = {{"I", {0}}, {"W", {0}}};
        const nlohmann::json j = mapping::toJson(m);
        QCOMPARE(j["active_pes"].get<int>(), 6);
        QCOMPARE(j["level2_order"], nlohmann::json({"S", "X"}));
        QCOMPARE(j["loops"][0]["parallelism"].get<int>(), 2);
        LoopNestMapping back = mapping::mappingFromJson(j);
        for (auto& l : back.loops)
            l.iterator.clear();
        QVERIFY(back == m);
        QCOMPARE(j["level2_form"], nlohmann::json("separate"));
        m.level2Form = mapping::Level2Form::Fused;
        back = mapping::mappingFromJson(mapping::toJson(m));
        QVERIFY(back.level2Form == mapping::Level2Form::Fused);
        m.level2Form = mapping::Level2Form::TopSpatial;
        QCOMPARE(mapping::toJson(m)["level2_form"], nlohmann::json("top_spatial"));
        back = mapping::mappingFromJson(mapping::toJson(m));
        QVERIFY(back.level2Form == mapping::Level2Form::TopSpatial);
        m.loops[0].windowReference = "X+S";
        m.loops[0].windowSliding = "S";
        QCOMPARE(mapping::toJson(m)["loops"][0]["window_sliding"], nlohmann::json("S"));
        back = mapping::mappingFromJson(mapping::toJson(m));
        QCOMPARE(back.loops[0].windowReference, std::string("X+S"));
        QCOMPARE(back.loops[0].windowSliding, std::string("S"));
        QVERIFY(!mapping::toJson(m)["loops"][1].contains("window_reference"));
        nlohmann::json bad = mapping::toJson(m);
        bad["level2_form"] = "merged";
        try {
            mapping::mappingFromJson(bad);
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("mapping.level2_form") != std::string::npos);
        }
    }

    void jsonErrors()
    {
        nlohmann::json j = mapping::toJson(conv1dMapping());
        j["loops"][1]["level1"] = "one";
        try {
            mapping::mappingFromJson(j);
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QCOMPARE(
                QString::fromStdString(e.diagnostics().front().field), QString("mapping.loops[1].level1"));
        }
        j = mapping::toJson(conv1dMapping());
        j["level3_order"] = {"X", "Q"};
        QVERIFY_THROWS_EXCEPTION(InputError, mapping::mappingFromJson(j));
    }
};

QTEST_APPLESS_MAIN(TestMapping)
#include "tst_mapping.moc"
