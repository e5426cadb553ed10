// The refinement's re-splits of the PE array (localSearch's rearrangement phase, core/search/refine.h):
// from a local optimum of the single moves, where the descent alone stays, they reach mappings that
// spread two other loops over the PEs. Both cases start from the default search's result before the
// re-splits (what the genetic search and the descents found with seed 1), in corrected fidelity.
#include <QtTest>

#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/search/mapping_pool.h"
#include "core/search/refine.h"
#include "core/search/roofline.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"

using namespace marvel;
using namespace marvel::search;

namespace {

struct Case
{
    ir::Operator op;
    PreparedLayer layer;
    arch::Accelerator acc;
    SearchOptions options;
    Candidate seed;
};

/// `tiles`: level 3, 2, 1 of each loop in nest order (K C Y X R S); `level3`, `level2`: the orders as
/// dimension letters, outermost first; the TopSpatial form.
Case makeCase(const std::string& loopText, const std::string& platform, std::int64_t pes,
    const std::vector<std::int64_t>& tiles, const std::string& level3, const std::string& level2)
{
    Case c{ir::parseOperator(loopText, "case.loop"), {}, {}, {}, {}};
    c.layer = prepareLayer(c.op);
    c.acc = arch::loadAccelerator(std::string(MARVEL_SAMPLES_DIR "/accelerators/") + platform + ".json");
    if (pes > 0) c.acc.numPes = pes;
    c.options.fidelity = Fidelity::Corrected;
    c.options.threads = 2;
    mapping::LoopNestMapping& m = c.seed.mapping;
    m.loops = c.layer.space.loops;
    for (std::size_t i = 0; i < m.loops.size(); ++i) {
        m.loops[i].level3 = tiles[3 * i];
        m.loops[i].level2 = tiles[3 * i + 1];
        m.loops[i].level1 = tiles[3 * i + 2];
    }
    auto loopOf = [&](char dim) {
        for (std::size_t i = 0; i < m.loops.size(); ++i)
            if (m.loops[i].dim == std::string(1, dim)) return static_cast<int>(i);
        return -1;
    };
    for (char d : level3)
        m.level3Order.push_back(loopOf(d));
    for (char d : level2)
        m.level2Order.push_back(loopOf(d));
    m.level2Form = mapping::Level2Form::TopSpatial;
    const EvaluatorFactory evaluators = costModelEvaluators(c.layer.problem, c.acc, c.options.fidelity);
    MappingPool pool(c.layer.space, c.acc, c.options, evaluators, nullptr);
    const MappingPool::Outcome o = pool.evaluate({m}, 1, {}).front();
    if (o.status == MappingPool::Status::Fits) c.seed.metrics = o.metrics;
    c.seed.dataflow = mapping::toMdc(m, c.acc, stridedTiles(c.options.fidelity));
    return c;
}

} // namespace

class TestRefine : public QObject
{
    Q_OBJECT

private slots:
    /// The single moves and the re-splits from the same local optimum: the moves keep it (a whole
    /// neighbourhood evaluated, nothing better), 300 evaluations of re-splits and descents reach the
    /// figure below, never more than the budget. The figures were measured when the re-splits were added;
    /// the compute bound (MACs over the PEs) is the floor.
    void resplitsLeaveALocalOptimum_data()
    {
        QTest::addColumn<QString>("loop");
        QTest::addColumn<QString>("platform");
        QTest::addColumn<qint64>("pes");
        QTest::addColumn<QList<qint64>>("tiles");
        QTest::addColumn<QString>("level3");
        QTest::addColumn<QString>("level2");
        QTest::addColumn<qint64>("seedCycles");
        QTest::addColumn<qint64>("reached");
        // ResNet-50's res2a_branch2c on P1 (168 PEs): C over 16 clusters of 10 PEs spreading the output
        // rows (160 PEs busy); the re-splits find the output rows over 28 clusters of 6 PEs spreading K
        // (168 busy). Compute bound 256 * 64 * 56 * 56 / 168 = 305,835.
        QTest::newRow("res2a_branch2c, P1")
            << QString::fromStdString(workloads::conv2dLoopText(256, 64, 56, 56, 1, 1, 1, 1)) << "P1_eyeriss"
            << qint64(0) << QList<qint64>{128, 2, 2, 16, 16, 1, 19, 10, 1, 7, 1, 1, 1, 1, 1, 1, 1, 1}
            << "KRXSYC"
            << "XSCYKR" << qint64(344'604) << qint64(308'771);
        // AlexNet CONV2 on P2 with 96 PEs (bench gamma's 11_P2_96): C over 32 clusters of 3 PEs spreading
        // the output columns; the re-splits find K over 32 clusters, below GAMMA's best valid mapping
        // (K over 32 clusters of 3 PEs spreading C: 4,665,900 cycles). Compute bound 4,665,600.
        QTest::newRow("AlexNet CONV2, P2 with 96 PEs")
            << QString::fromStdString(workloads::conv2dLoopText(256, 96, 27, 27, 5, 5, 1, 1)) << "P2_edge"
            << qint64(96) << QList<qint64>{20, 1, 1, 32, 32, 1, 27, 10, 10, 9, 3, 1, 5, 5, 5, 5, 5, 5}
            << "SXRCYK"
            << "CRYXKS" << qint64(4'665'943) << qint64(4'665'807);
    }
    void resplitsLeaveALocalOptimum()
    {
        QFETCH(QString, loop);
        QFETCH(QString, platform);
        QFETCH(qint64, pes);
        QFETCH(QList<qint64>, tiles);
        QFETCH(QString, level3);
        QFETCH(QString, level2);
        QFETCH(qint64, seedCycles);
        QFETCH(qint64, reached);
        const Case c = makeCase(loop.toStdString(), platform.toStdString(), pes,
            std::vector<std::int64_t>(tiles.begin(), tiles.end()), level3.toStdString(),
            level2.toStdString());
        QCOMPARE(c.seed.metrics.runtime, seedCycles);
        const EvaluatorFactory evaluators = costModelEvaluators(c.layer.problem, c.acc, c.options.fidelity);

        const SearchResult moves = localSearch(c.layer.space, c.acc, c.options, {c.seed}, 2'000, evaluators);
        QVERIFY(moves.evaluated > 0 && moves.evaluated < 2'000); // it stopped at the local optimum
        QCOMPARE(moves.bestRuntime->metrics.runtime, seedCycles);

        const SearchResult resplit
            = localSearch(c.layer.space, c.acc, c.options, {c.seed}, 0, evaluators, nullptr, {}, {}, 300);
        QVERIFY(resplit.evaluated <= 300);
        const Candidate& best = *resplit.bestRuntime;
        qInfo("%lld cycles from %lld", static_cast<long long>(best.metrics.runtime),
            static_cast<long long>(seedCycles));
        QVERIFY(best.metrics.runtime <= reached);
        const std::int64_t bound = (c.layer.space.macs + c.acc.numPes - 1) / c.acc.numPes;
        QVERIFY(best.metrics.runtime >= bound);
        QCOMPARE(best.metrics.macs, c.layer.space.macs);
        QVERIFY(best.mapping.parallelLoops() != c.seed.mapping.parallelLoops()); // other loops spread
        QVERIFY(best.metrics.l1Requirement * c.acc.bytesPerElement <= c.acc.l1Bytes);
        QVERIFY(best.metrics.l2Requirement * c.acc.bytesPerElement <= c.acc.l2Bytes);
        QCOMPARE(mapping::toMdc(best.mapping, c.acc, stridedTiles(c.options.fidelity)), best.dataflow);
    }
};

QTEST_GUILESS_MAIN(TestRefine)
#include "tst_refine.moc"
