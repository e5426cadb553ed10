// `marvel codesign`: the best design's accelerator file (--best-hw) loads and `marvel search` finds on it
// the figures the co-design reported; a seed gives the same designs file twice; --json's shape; bad input
// (no budget, a budget that is not positive, an unknown axis, a budget nothing meets, no technology)
// exits 2 with a clear message.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::runMarvel;

namespace {

// A one-dimensional convolution: ten designs' full searches take a tenth of a second (a GEMM of 8x8x4 took
// five times as long, which the sanitizer build multiplies).
const QString kConv1d = kSamples + "/operators/conv1d.loop";
// A GEMM where a MAESTRO layer type is needed (--export-mdc: a CONV1D has none).
const QByteArray kGemm = "operator gemm(M = 8, N = 8, K = 4) {\n"
                         "  for (m = 0; m < M; m++)\n"
                         "    for (n = 0; n < N; n++)\n"
                         "      for (k = 0; k < K; k++)\n"
                         "        O[m][n] += A[m][k] * B[k][n];\n"
                         "}\n";
const QString kHw = kSamples + "/accelerators/classroom_4pe.json";

QStringList codesignArgs(const QString& op, const QString& budget = "0.01")
{
    return {"codesign", "--op", op, "--hw", kHw, "--technology", "45nm", "--area-budget", budget, "--vary",
        "pes=1:16:x2", "--vary", "l1=32,64,128", "--vary", "noc_bw=1,4", "--max-designs", "10", "--batch",
        "4", "--threads", "2"};
}

} // namespace

class TestCliCodesign : public QObject
{
    Q_OBJECT

private:
    QString m_op;

private slots:
    void initTestCase() { m_op = kConv1d; }

    void bestHwLoadsAndSearchesToTheSameFigures()
    {
        QTemporaryDir dir;
        const QString best = dir.filePath("best.json"), mdc = dir.filePath("best.m");
        const QString gemm = dir.filePath("gemm.loop");
        clitest::writeFile(gemm, kGemm);
        const clitest::CliRun r = runMarvel(codesignArgs(gemm)
            + QStringList{"--json", "--best-hw", best, "--export-mdc", mdc, "--seed", "3"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("eta"), qPrintable(r.err)); // progress with an ETA on stderr
        const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject b = out["best"].toObject();
        QVERIFY(b["accelerator"].isObject());
        QVERIFY(out["front"].isArray() && !out["front"].toArray().isEmpty());
        QVERIFY(out["designs_evaluated"].toInt() >= 1 && out["designs_evaluated"].toInt() <= 10);
        QVERIFY(b["area_mm2"].toDouble() <= 0.01);
        QCOMPARE(b["accelerator"].toObject()["num_pes"].toInt(), b["pes"].toInt());
        QCOMPARE(b["accelerator"].toObject()["technology"].toString(), QString("45nm"));
        QVERIFY(clitest::readAll(mdc).contains("Dataflow"));

        const clitest::CliRun s
            = runMarvel({"search", "--op", gemm, "--hw", best, "--json", "--threads", "2"});
        QVERIFY2(s.exitCode == 0, qPrintable(s.err));
        const QJsonObject found = QJsonDocument::fromJson(s.out.toUtf8()).object();
        QCOMPARE(found["total_runtime_cycles"].toInteger(), b["runtime_cycles"].toInteger());
        const QJsonObject layer = found["layers"].toArray().first().toObject();
        QCOMPARE(layer["energy_pj"].toDouble(), b["energy_pj"].toDouble());
        QCOMPARE(layer["area_mm2"].toDouble(), b["area_mm2"].toDouble());
    }

    void aSeedWritesTheSameDesignsTwice()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath("a.csv"), b = dir.filePath("b.csv");
        const clitest::CliRun r1 = runMarvel(codesignArgs(m_op) + QStringList{"--seed", "5", "--out", a});
        QVERIFY2(r1.exitCode == 0, qPrintable(r1.err));
        const clitest::CliRun r2
            = runMarvel(codesignArgs(m_op) + QStringList{"--seed", "5", "--out", b, "--threads", "1"});
        QVERIFY2(r2.exitCode == 0, qPrintable(r2.err));
        const QByteArray first = clitest::readBytes(a);
        QVERIFY(first.startsWith("order,phase,pes,simd,"));
        QCOMPARE(first.count('\n'), 11); // header and ten designs
        QCOMPARE(clitest::readBytes(b), first);
        QVERIFY(r1.out.contains("front ("));
        QVERIFY(r1.out.contains("best:"));
    }

    void badInputExitsTwo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QStringList noBudget = codesignArgs(m_op);
        noBudget.removeAt(noBudget.indexOf("--area-budget") + 1);
        noBudget.removeAll("--area-budget");
        QTest::newRow("no budget") << noBudget << "missing --area-budget";
        QTest::newRow("zero budget") << codesignArgs(m_op, "0") << "--area-budget must be a positive";
        QTest::newRow("negative power") << codesignArgs(m_op) + QStringList{"--power-budget", "-3"}
                                        << "--power-budget must be a positive";
        QTest::newRow("unknown axis")
            << codesignArgs(m_op) + QStringList{"--vary", "banks=1,2"} << "unknown parameter 'banks'";
        QTest::newRow("empty range") << codesignArgs(m_op) + QStringList{"--vary", "l2=1M:64K:x2"}
                                     << "empty range";
        QTest::newRow("nothing fits")
            << codesignArgs(m_op, "0.0001") << "no design of the grid meets the budget";
        QStringList noTechnology = codesignArgs(m_op);
        noTechnology.removeAt(noTechnology.indexOf("--technology") + 1);
        noTechnology.removeAll("--technology");
        QTest::newRow("no technology") << noTechnology << "names no technology table";
        QTest::newRow("bad objective")
            << codesignArgs(m_op) + QStringList{"--objective", "speed"} << "--objective must be";
    }

    void badInputExitsTwo()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const clitest::CliRun r = runMarvel(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

QTEST_MAIN(TestCliCodesign)
#include "tst_cli_codesign.moc"
