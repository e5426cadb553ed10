// Determinism (issue 11): `marvel search` gives the same results whatever --threads says and however
// often it runs - the best mappings, the Pareto fronts, the exported MAESTRO and CSV files byte for byte,
// and the --json output byte for byte apart from its timing fields ("elapsed_seconds", "seconds").
#include <utility>
#include <vector>

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::runMarvel;

namespace {

struct Outputs
{
    QString json; ///< timing fields blanked
    QByteArray mdc;
    QByteArray pareto;
};

} // namespace

class TestCliDeterminism : public QObject
{
    Q_OBJECT

    Outputs search(const QStringList& workload, const QString& objective, int threads, const QString& tag)
    {
        const QString mdc = m_dir.filePath(tag + ".m");
        const QString csv = m_dir.filePath(tag + ".csv");
        const clitest::CliRun r = runMarvel(workload
            + QStringList{"--hw", kSamples + "/accelerators/P2_edge.json", "--objective", objective,
                "--threads", QString::number(threads), "--json", "--export-mdc", mdc, "--pareto-csv", csv});
        if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
        Outputs o;
        static const QRegularExpression timing(R"re(("(elapsed_seconds|seconds)": )[-+0-9.eE]+)re");
        o.json = QString(r.out).replace(timing, "\\1<time>");
        o.mdc = clitest::readBytes(mdc);
        o.pareto = clitest::readBytes(csv);
        return o;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void sameResultsAcrossThreadsAndRuns_data()
    {
        QTest::addColumn<QStringList>("workload");
        QTest::addColumn<QString>("objective");
        const QString ops = kSamples + "/operators/";
        QTest::newRow("gemm runtime") << QStringList{"search", "--op", ops + "gemm.loop"} << "runtime";
        // The energy objective has no bound to skip by and corrected fidelity spreads strided outputs
        // freely: the default pruning would evaluate 217k mappings per run; 52k at half the PEs busy.
        QTest::newRow("strided conv energy") << QStringList{"search", "--op", ops + "conv2d_strided.loop",
            "--pe-util-bound", "0.5"} << "energy";
        QTest::newRow("depthwise edp")
            << QStringList{"search", "--op", ops + "conv2d_depthwise.loop"} << "edp";
        QTest::newRow("model edp") << QStringList{"search", "--model", kSamples + "/models/tiny_cnn.json"}
                                   << "edp";
    }
    void sameResultsAcrossThreadsAndRuns()
    {
        QFETCH(QStringList, workload);
        QFETCH(QString, objective);
        const QString tag = QTest::currentDataTag();
        const Outputs one = search(workload, objective, 1, tag + "-t1");
        QVERIFY2(one.json.contains("\"pareto\""), qPrintable(one.json.left(500)));
        QVERIFY(one.json.contains("\"elapsed_seconds\": <time>"));
        QVERIFY(one.mdc.startsWith("Network "));
        QVERIFY(one.pareto.startsWith(
            "layer,runtime_cycles,energy,edp,utilization,mac_energy,l1_energy,l2_energy,"
            "dram_energy,dram_reads,dram_writes,dram_read_bytes,dram_write_bytes\n"));
        // Under the sanitizers one run with several threads: the repeats exercise the same code again and
        // only compare outputs, which the optimised build does.
        const std::vector<std::pair<int, int>> repeats = MARVEL_ADDRESS_SANITIZER
            ? std::vector<std::pair<int, int>>{{4, 0}}
            : std::vector<std::pair<int, int>>{{2, 0}, {4, 0}, {4, 1}};
        for (const auto& [threads, run] : repeats) {
            const Outputs other = search(workload, objective, threads,
                tag + "-t" + QString::number(threads) + "-" + QString::number(run));
            QCOMPARE(other.json, one.json);
            QCOMPARE(other.mdc, one.mdc);
            QCOMPARE(other.pareto, one.pareto);
        }
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCliDeterminism)
#include "tst_cli_determinism.moc"
