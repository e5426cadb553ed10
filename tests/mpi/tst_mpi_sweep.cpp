// `mpirun -n N marvel-mpi sweep`: the same files as `marvel sweep` byte for byte (3 ranks, 1 rank, a
// model whose few points are split by layer, and a resumed cut file), and a bad --vary stops every rank with
// exit status 2. Registered only when marvel-mpi is built (Open MPI found). The sweeps run the quick search:
// what is under test is how ranks share the points, not the search (tst_cli_sweep checks the full one).
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "../cli/cli_runner.h"

namespace {

const QString kSamples = QStringLiteral(MARVEL_SAMPLES_DIR);

QStringList sweepArgs(const QString& out)
{
    return {"sweep", "--op", kSamples + "/operators/conv1d.loop", "--hw",
        kSamples + "/accelerators/classroom_4pe.json", "--vary", "noc_bw=1,4", "--vary", "pes=2:8:x2",
        "--vary", "l1=32,64", "--out", out, "--quick-search"};
}

// Under AddressSanitizer Open MPI's own init and finalize allocations (its plugins' too) show as leaks in
// every rank, which library suppressions do not cover: leak checking is off in the ranks (the sweep code
// itself is leak-checked through `marvel sweep` in the CLI tests).
clitest::CliRun runMpi(int ranks, const QStringList& args)
{
    return clitest::runProgram(QStringLiteral(MARVEL_MPIEXEC),
        QStringList{"--allow-run-as-root", "--oversubscribe", "-x", "ASAN_OPTIONS=detect_leaks=0", "-n",
            QString::number(ranks), QStringLiteral(MARVEL_MPI_PATH)}
            + args,
        300000);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestMpiSweep : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QByteArray m_expected, m_expectedPareto;

private slots:
    void initTestCase()
    {
        const clitest::CliRun r = clitest::runMarvel(sweepArgs(m_dir.filePath("local.csv")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        m_expected = readAll(m_dir.filePath("local.csv"));
        m_expectedPareto = readAll(m_dir.filePath("local.pareto.csv"));
        QCOMPARE(m_expected.count('\n'), 13); // header and 12 points
    }

    void sameFileAsMarvelSweep_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::newRow("3 ranks") << 3;
        QTest::newRow("1 rank") << 1;
    }

    void sameFileAsMarvelSweep()
    {
        QFETCH(int, ranks);
        const QString out = m_dir.filePath(QString("mpi%1.csv").arg(ranks));
        const clitest::CliRun r = runMpi(ranks, sweepArgs(out));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(readAll(out), m_expected);
        QCOMPARE(readAll(m_dir.filePath(QString("mpi%1.pareto.csv").arg(ranks))), m_expectedPareto);
    }

    void fewPointsAreSplitByLayer()
    {
        // Two design points on three ranks: rank 0 hands out the model's layers, not whole points, and
        // puts each point's row together from them.
        auto args = [](const QString& out) {
            return QStringList{"sweep", "--model", kSamples + "/models/tiny_cnn.json", "--hw",
                kSamples + "/accelerators/classroom_4pe.json", "--vary", "pes=2,4", "--objective", "edp",
                "--out", out, "--quick-search"};
        };
        const clitest::CliRun local = clitest::runMarvel(args(m_dir.filePath("model.csv")));
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));
        const QByteArray expected = readAll(m_dir.filePath("model.csv"));
        QCOMPARE(expected.count('\n'), 3);
        const clitest::CliRun r = runMpi(3, args(m_dir.filePath("model-mpi.csv")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("2 points to search on 3 ranks: handing out the 3 layers of each point"),
            qPrintable(r.err));
        QCOMPARE(readAll(m_dir.filePath("model-mpi.csv")), expected);
        QCOMPARE(
            readAll(m_dir.filePath("model-mpi.pareto.csv")), readAll(m_dir.filePath("model.pareto.csv")));
    }

    void resumeFinishesACutFile()
    {
        const QList<QByteArray> lines = m_expected.split('\n');
        const QString out = m_dir.filePath("cut.csv");
        QFile f(out);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(lines[0] + '\n' + lines[7] + '\n' + lines[2] + '\n' + lines[9].left(12));
        f.close();
        const clitest::CliRun r = runMpi(2, sweepArgs(out) << "--resume");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("2 of 12 points already in the file"), qPrintable(r.err));
        QCOMPARE(readAll(out), m_expected);
    }

    void badVaryStopsEveryRank()
    {
        QStringList args = sweepArgs(m_dir.filePath("bad.csv"));
        args[args.indexOf("l1=32,64")] = "l1=64:32:x2";
        const clitest::CliRun r = runMpi(3, args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--vary 'l1=64:32:x2': empty range"), qPrintable(r.err));
        QVERIFY(!QFile::exists(m_dir.filePath("bad.csv")));
    }
};

QTEST_GUILESS_MAIN(TestMpiSweep)
#include "tst_mpi_sweep.moc"
