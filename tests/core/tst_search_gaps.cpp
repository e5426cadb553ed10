// What decoupling and each pruning option cost against the true optimum of the whole mapping space, on
// operators small enough to search exhaustively (issue 4). Options that claim to keep the optimum
// (lower-bound skipping) must show a gap of exactly 0; the others' gaps are measured and printed.
// The true optimum is taken over legal mappings under the same capacity rule as every search: the cost
// model's L1 and L2 requirements fit the buffers (a mapping that does not fit cannot run, although
// MAESTRO would still price it).
#include <QTest>

#include "core/ir/parser.h"
#include "core/search/search.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using namespace marvel::search;

using marvel::testsupport::bestValue;
namespace {

const char* kGapOperators[] = {
    "operator gemm(M = 4, N = 6, K = 4) {\n"
    "  for (m = 0; m < M; m++)\n    for (n = 0; n < N; n++)\n      for (k = 0; k < K; k++)\n"
    "        C[m][n] += A[m][k] * B[k][n];\n}\n",
    "operator conv1d(X = 10, S = 3) {\n"
    "  for (x = 0; x < X; x++)\n    for (s = 0; s < S; s++)\n      O[x] += W[s] * I[x + s];\n}\n",
};

arch::Accelerator tinyAccelerator()
{
    arch::Accelerator acc;
    acc.numPes = 4;
    acc.l1Bytes = 16;
    acc.l2Bytes = 64; // small enough that the level-3 tile (decoupling) matters
    acc.nocBandwidth = 2;
    return acc;
}

/// The decoupled search's space unpruned (the refinement is left out: its mappings may lie outside it).
SearchOptions unpruned(Objective objective)
{
    SearchOptions o;
    o.refine = false;
    o.objective = objective;
    o.exhaustive = true;
    o.divisorsOnly = false;
    o.everyTileSize = true;
    o.peUtilizationBound = 0;
    o.boundSkipping = false;
    o.threads = 2;
    return o;
}

} // namespace

class TestSearchGaps : public QObject
{
    Q_OBJECT
private slots:
    void gaps_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<int>("objective");
        for (int op = 0; op < 2; ++op)
            for (int obj = 0; obj < 3; ++obj)
                QTest::addRow(
                    "%s/%s", op == 0 ? "gemm" : "conv1d", toString(static_cast<Objective>(obj)).c_str())
                    << op << obj;
    }
    void gaps()
    {
        QFETCH(int, op);
        QFETCH(int, objective);
        const Objective obj = static_cast<Objective>(objective);
        const ir::Operator oper = ir::parseOperator(kGapOperators[op], "gap.loop");
        const arch::Accelerator acc = tinyAccelerator();

        const LayerSearchResult truth = searchLayer(oper, acc, unpruned(obj));
        const double best = bestValue(truth.result, obj);
        QVERIFY(std::isfinite(best));

        // Lower-bound skipping is exact: the same optimum, never more evaluations.
        SearchOptions skipping = unpruned(obj);
        skipping.boundSkipping = true;
        const LayerSearchResult skipped = searchLayer(oper, acc, skipping);
        QCOMPARE(bestValue(skipped.result, obj), best);
        QVERIFY(skipped.result.evaluated <= truth.result.evaluated);

        // The others may lose the optimum; they can never beat it. Their gaps are the figures to report.
        struct Variant
        {
            const char* name;
            SearchOptions options;
        };
        std::vector<Variant> variants;
        SearchOptions divisors = unpruned(obj);
        divisors.divisorsOnly = true;
        variants.push_back({"divisors only", divisors});
        SearchOptions utilisation = unpruned(obj);
        utilisation.peUtilizationBound = 0.5;
        variants.push_back({"PE utilisation >= 0.5", utilisation});
        SearchOptions decoupled = unpruned(obj);
        decoupled.exhaustive = false;
        variants.push_back({"decoupled (DB off-chip choice)", decoupled});
        SearchOptions paper;
        paper.refine = false;
        paper.objective = obj;
        paper.threads = 2;
        variants.push_back({"decoupled + paper pruning", paper});
        QString report;
        for (const Variant& v : variants) {
            const LayerSearchResult r = searchLayer(oper, acc, v.options);
            const double value = bestValue(r.result, obj);
            QVERIFY2(value >= best, v.name);
            report += QStringLiteral(" %1: %2%")
                          .arg(QLatin1String(v.name))
                          .arg((value / best - 1) * 100, 0, 'f', 1);
        }
        qInfo("gap to the true optimum (%.0f, %llu mappings):%s", best,
            static_cast<unsigned long long>(truth.result.evaluated), qPrintable(report));
    }
};

QTEST_APPLESS_MAIN(TestSearchGaps)
#include "tst_search_gaps.moc"
