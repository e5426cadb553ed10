// `marvel search --json` reports every row of the paper's search-space table, per layer and as
// min / avg / max over the layers; the sizes are checked against counts worked out by hand.
#include <fstream>
#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using clitest::runMarvel;

namespace {
void writeInput(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    std::ofstream(dir.filePath(QString::fromLatin1(name)).toStdString()) << text;
}

const char* const kRows[] = {"original", "off_chip", "on_chip", "off_chip_pruned", "on_chip_pruned"};
} // namespace

class TestCliSearchSpace : public QObject
{
    Q_OBJECT
private slots:
    // A 2x2x2 GEMM on 4 PEs, small enough to count the spaces by hand (the paper's search: one off-chip
    // solution, whose space the table describes).
    // Per loop (extent 2) the tile chains t1 <= t2 <= t3 <= 2 are 111, 112, 122, 222: 4 of them.
    // Layouts: each of A, B, C has 2 choices of innermost dimension: 8. Orders: 3! = 6 per level.
    //   original = 4^3 * 6 * 6 * 8 = 18432
    //   off-chip = (2 level-3 sizes)^3 * 6 * 8 = 384 (every size divides 2, so pruning keeps all)
    //   on-chip  = (t1 <= t2 <= 2: 3 pairs)^3 * 6 = 162 under the level-3 tile 2x2x2 (all fits in L2)
    //   on-chip pruned: the PE bound 0.1 * 4 <= prod ceil(2 / t2) <= 4 drops only t2 = 1 in all three
    //   loops (8 PEs): (27 - 1) * 6 = 156.
    void gemmCountedByHand()
    {
        QTemporaryDir dir;
        writeInput(dir, "g.loop",
            "operator g(M = 2, N = 2, K = 2) {\n  for (m = 0; m < M; m++)\n    for (n = 0; n < N; n++)\n"
            "      for (k = 0; k < K; k++)\n        C[m][n] += A[m][k] * B[k][n];\n}\n");
        writeInput(dir, "acc.json", R"({"num_pes": 4, "noc_bandwidth_elements_per_cycle": 4})");
        const auto r = runMarvel({"search", "--op", dir.filePath("g.loop"), "--hw", dir.filePath("acc.json"),
            "--objective", "runtime", "--json", "--no-refine", "--offchip-candidates", "1"});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        const auto& layer = doc["layers"].at(0)["search_space"];
        QCOMPARE(layer["original"].get<double>(), 18432.0);
        QCOMPARE(layer["off_chip"].get<double>(), 384.0);
        QCOMPARE(layer["off_chip_pruned"].get<double>(), 384.0);
        QCOMPARE(layer["on_chip"].get<double>(), 162.0);
        QCOMPARE(layer["on_chip_pruned"].get<double>(), 156.0);
        // What the search went through never exceeds the pruned on-chip space.
        QVERIFY(layer["evaluated"].get<double>() <= layer["candidates"].get<double>());
        QVERIFY(layer["candidates"].get<double>() <= 156.0);
        // One layer: min = avg = max = the layer's figure.
        for (const char* row : kRows) {
            const auto& s = doc["search_space"][row];
            QCOMPARE(s["min"].get<double>(), layer[row].get<double>());
            QCOMPARE(s["avg"].get<double>(), layer[row].get<double>());
            QCOMPARE(s["max"].get<double>(), layer[row].get<double>());
        }
    }

    void modelSummaryIsMinAvgMaxOfLayers()
    {
        const auto r
            = runMarvel({"search", "--model", QStringLiteral(MARVEL_SAMPLES_DIR "/models/tiny_cnn.json"),
                "--hw", QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/P2_edge.json"), "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        const auto& layers = doc["layers"];
        QCOMPARE(doc["search_space"]["layers"].get<std::size_t>(), layers.size());
        for (const char* row : kRows) {
            double lo = 1e300, hi = 0, sum = 0;
            for (const auto& l : layers) {
                const double v = l["search_space"][row].get<double>();
                lo = std::min(lo, v);
                hi = std::max(hi, v);
                sum += v;
            }
            const auto& s = doc["search_space"][row];
            QCOMPARE(s["min"].get<double>(), lo);
            QCOMPARE(s["max"].get<double>(), hi);
            QVERIFY(qFuzzyCompare(s["avg"].get<double>(), sum / double(layers.size())));
        }
        // Decoupling and pruning only ever shrink the space.
        for (const auto& l : layers) {
            const auto& s = l["search_space"];
            QVERIFY(s["off_chip"].get<double>() <= s["original"].get<double>());
            QVERIFY(s["on_chip"].get<double>() <= s["original"].get<double>());
            QVERIFY(s["off_chip_pruned"].get<double>() <= s["off_chip"].get<double>());
            QVERIFY(s["on_chip_pruned"].get<double>() <= s["on_chip"].get<double>());
        }
    }
};

QTEST_APPLESS_MAIN(TestCliSearchSpace)
#include "tst_cli_search_space.moc"
