// `mpirun -n N marvel-mpi codesign`: the same designs file as `marvel codesign` byte for byte (the rounds
// do not depend on who evaluates them), and a bad budget stops every rank with exit status 2.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "../cli/cli_runner.h"

namespace {

// A one-dimensional convolution keeps each rank's searches short (under the sanitizers too).
const QString kConv1d = QStringLiteral(MARVEL_SAMPLES_DIR) + "/operators/conv1d.loop";

QStringList codesignArgs(const QString& op, const QString& out, const QString& budget = "0.01")
{
    return {"codesign", "--op", op, "--hw",
        QStringLiteral(MARVEL_SAMPLES_DIR) + "/accelerators/classroom_4pe.json", "--technology", "45nm",
        "--area-budget", budget, "--vary", "pes=1:16:x2", "--vary", "l1=32,64,128", "--vary", "noc_bw=1,4",
        "--max-designs", "10", "--batch", "4", "--seed", "3", "--out", out};
}

// Leak checking is off in the ranks, as for the sweep (tst_mpi_sweep.cpp says why).
clitest::CliRun runCodesignMpi(int ranks, const QStringList& args)
{
    return clitest::runProgram(QStringLiteral(MARVEL_MPIEXEC),
        QStringList{"--allow-run-as-root", "--oversubscribe", "-x", "ASAN_OPTIONS=detect_leaks=0", "-n",
            QString::number(ranks), QStringLiteral(MARVEL_MPI_PATH)}
            + args,
        300000);
}

} // namespace

class TestMpiCodesign : public QObject
{
    Q_OBJECT

private slots:
    void sameDesignsAsMarvelCodesign()
    {
        QTemporaryDir dir;
        const QString op = kConv1d;
        const clitest::CliRun local = clitest::runMarvel(codesignArgs(op, dir.filePath("local.csv")));
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));
        const QByteArray expected = clitest::readBytes(dir.filePath("local.csv"));
        QCOMPARE(expected.count('\n'), 11); // header and ten designs
        for (int ranks : {1, 3}) {
            const QString out = dir.filePath(QString("mpi%1.csv").arg(ranks));
            const clitest::CliRun r = runCodesignMpi(ranks, codesignArgs(op, out));
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QCOMPARE(clitest::readBytes(out), expected);
        }
    }

    void badBudgetExitsTwo()
    {
        QTemporaryDir dir;
        const QString op = kConv1d;
        const clitest::CliRun r = runCodesignMpi(2, codesignArgs(op, dir.filePath("x.csv"), "-1"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--area-budget must be a positive"), qPrintable(r.err));
    }
};

QTEST_MAIN(TestMpiCodesign)
#include "tst_mpi_codesign.moc"
