// `marvel sweep`: a small sweep against the same points searched one by one with `marvel search`, the
// Pareto design file against a brute-force front of the rows, --resume after a killed run and after a cut
// file, and bad --vary arguments (exit 2 naming the argument).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::runMarvel;

namespace {

const QString kOp = kSamples + "/operators/conv1d.loop";
const QString kSweepHw = kSamples + "/accelerators/classroom_4pe.json";

void writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// `quick`: the decoupled search alone, for the tests of the file, resume and reports, which do not
// depend on the search (the sanitizer build runs them several times slower); the tests of what a point
// holds run the full search, marvel search's.
QStringList sweepArgs(const QString& out, bool quick = true)
{
    QStringList args = {"sweep", "--op", kOp, "--hw", kSweepHw, "--vary", "noc_bw=1,4", "--vary",
        "pes=2:8:x2", "--out", out, "--threads", "2"};
    if (quick) args << "--quick-search";
    return args;
}

// The file's rows as field lists (header dropped).
QList<QStringList> rowsOf(const QByteArray& csv)
{
    QList<QStringList> out;
    const QList<QByteArray> lines = csv.split('\n');
    for (int i = 1; i < lines.size(); ++i)
        if (!lines[i].isEmpty()) out.push_back(QString::fromUtf8(lines[i]).split(','));
    return out;
}

} // namespace

class TestCliSweep : public QObject
{
    Q_OBJECT

private slots:
    void smallSweepEqualsSearchesOneByOne()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("s.csv");
        const clitest::CliRun r = runMarvel(sweepArgs(out, false));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QByteArray csv = clitest::readBytes(out);
        QVERIFY(csv.startsWith(
            "pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,edp,area,power,"
            "utilization,roofline_cycles,dram_bytes,dram_energy,energy_pj,area_mm2,power_mw,search,"
            "status\n"));
        const QList<QStringList> rows = rowsOf(csv);
        // pes outermost, both ascending, whatever the order of the --vary arguments.
        const QList<QPair<int, int>> grid = {{2, 1}, {2, 4}, {4, 1}, {4, 4}, {8, 1}, {8, 4}};
        QCOMPARE(rows.size(), grid.size());
        QFile base(kSweepHw);
        QVERIFY(base.open(QIODevice::ReadOnly));
        const QJsonObject baseJson = QJsonDocument::fromJson(base.readAll()).object();
        for (int i = 0; i < rows.size(); ++i) {
            const QStringList& row = rows[i];
            QCOMPARE(row.size(), 20);
            QCOMPARE(row[0].toInt(), grid[i].first);
            QCOMPARE(row[4].toInt(), grid[i].second);
            QCOMPARE(row[1], QString("1")); // the base's simd, l1, l2, offchip_bw
            QCOMPARE(row[2], QString("64"));
            QCOMPARE(row[3], QString("1024"));
            QCOMPARE(row[5], QString("1000000"));
            QCOMPARE(row[18], QString("full")); // the search marvel search runs
            QCOMPARE(row[19], QString("ok"));
            // MAESTRO's energies at 0.23 pJ per MAC unit (the classroom accelerator names no table).
            QVERIFY(std::abs(row[15].toDouble() - 0.23 * row[7].toDouble()) <= 1e-9 * row[15].toDouble());
            // The same accelerator searched on its own.
            QJsonObject acc = baseJson;
            acc["num_pes"] = grid[i].first;
            acc["noc_bandwidth_elements_per_cycle"] = grid[i].second;
            const QString hw = dir.filePath(QString("p%1.json").arg(i));
            writeAll(hw, QJsonDocument(acc).toJson());
            const clitest::CliRun s = runMarvel({"search", "--op", kOp, "--hw", hw, "--json"});
            QVERIFY2(s.exitCode == 0, qPrintable(s.err));
            const QJsonObject layer
                = QJsonDocument::fromJson(s.out.toUtf8()).object()["layers"].toArray().first().toObject();
            QCOMPARE(row[6].toLongLong(), layer["runtime_cycles"].toInteger());
            QCOMPARE(row[7].toDouble(), layer["energy"].toDouble());
            QCOMPARE(row[8].toDouble(), layer["edp"].toDouble());
            QCOMPARE(row[12].toLongLong(), layer["roofline_cycles"].toInteger());
            // The chosen mapping's DRAM bytes and DRAM energy (the base charges none).
            const QJsonObject dram = layer["dram"].toObject();
            QCOMPARE(row[13].toLongLong(), dram["read_bytes"].toInteger() + dram["write_bytes"].toInteger());
            QVERIFY(row[13].toLongLong() > 0);
            QCOMPARE(row[14].toDouble(), layer["energy_parts"].toObject()["dram"].toDouble());
        }
    }

    void paretoFileIsTheFrontOfTheRows()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("s.csv");
        const clitest::CliRun r = runMarvel(sweepArgs(out) << "--json");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QList<QStringList> rows = rowsOf(clitest::readBytes(out));
        const QByteArray pareto = clitest::readBytes(dir.filePath("s.pareto.csv"));
        QVERIFY(pareto.startsWith(
            "front,pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,area,power,area_mm2,"
            "power_mw\n"));
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json["points"].toInt(), 6);
        QCOMPARE(json["done"].toInt(), 6);
        QCOMPARE(json["fidelity"].toString(), QString("corrected")); // the figures say their cost model
        QCOMPARE(json["pareto_file"].toString(), dir.filePath("s.pareto.csv"));
        for (const auto& [front, column, key] :
            {std::tuple{QString("runtime-area"), 6, QString("runtime_area")},
                std::tuple{QString("energy-area"), 7, QString("energy_area")}}) {
            constexpr int kAreaMm2 = 16; // the rows' area_mm2 column, the area the fronts use
            // Brute force: a row is on the front when no other is at most as large on area and the figure
            // and smaller on one (the rows are distinct here).
            QStringList expected;
            for (const QStringList& p : rows) {
                bool dominated = false;
                for (const QStringList& q : rows)
                    if (&p != &q && q[kAreaMm2].toDouble() <= p[kAreaMm2].toDouble()
                        && q[column].toDouble() <= p[column].toDouble()
                        && (q[kAreaMm2].toDouble() < p[kAreaMm2].toDouble()
                            || q[column].toDouble() < p[column].toDouble()))
                        dominated = true;
                if (!dominated) expected << p[0] + "/" + p[4];
            }
            QStringList found;
            for (const QByteArray& line : pareto.split('\n'))
                if (line.startsWith(front.toUtf8() + ',')) {
                    const QStringList f = QString::fromUtf8(line).split(',');
                    found << f[1] + "/" + f[5];
                }
            QStringList fromJson;
            for (const QJsonValue& v : json["pareto"].toObject()[key].toArray())
                fromJson << QString::number(v.toObject()["pes"].toInt()) + "/"
                        + QString::number(v.toObject()["noc_bw"].toInt());
            expected.sort();
            found.sort();
            fromJson.sort();
            QVERIFY(!expected.isEmpty());
            QCOMPARE(found, expected);
            QCOMPARE(fromJson, expected);
        }
    }

    void resumeAfterCutFile()
    {
        QTemporaryDir dir;
        const QString full = dir.filePath("full.csv");
        QCOMPARE(runMarvel(sweepArgs(full)).exitCode, 0);
        const QByteArray expected = clitest::readBytes(full);
        // Header, two rows and half of the third: as a crash while writing leaves it.
        const QList<QByteArray> lines = expected.split('\n');
        const QByteArray cut = lines[0] + '\n' + lines[3] + '\n' + lines[1] + '\n' + lines[5].left(9);
        const QString part = dir.filePath("part.csv");
        writeAll(part, cut);
        const clitest::CliRun r = runMarvel(sweepArgs(part) << "--resume");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("2 of 6 points already in the file"), qPrintable(r.err));
        QCOMPARE(clitest::readBytes(part), expected);
        QCOMPARE(clitest::readBytes(dir.filePath("part.pareto.csv")),
            clitest::readBytes(dir.filePath("full.pareto.csv")));
        // Resuming a finished file searches nothing and leaves it as it is.
        const clitest::CliRun again = runMarvel(sweepArgs(part) << "--resume");
        QCOMPARE(again.exitCode, 0);
        QVERIFY(again.err.contains("6 of 6 points already in the file"));
        QCOMPARE(clitest::readBytes(part), expected);
    }

    void resumeAfterKilledRun()
    {
        // A grid slow enough to kill mid-run: gemm 64x64x64 over 24 points, one thread.
        QTemporaryDir dir;
        const QString op = dir.filePath("gemm.loop");
        writeAll(op,
            "operator gemm(M = 64, N = 64, K = 64) {\n"
            "  for (m = 0; m < M; m++)\n    for (n = 0; n < N; n++)\n      for (k = 0; k < K; k++)\n"
            "        C[m][n] += A[m][k] * B[k][n];\n}\n");
        auto args = [&](const QString& out) {
            return QStringList{"sweep", "--op", op, "--hw", kSweepHw, "--vary", "pes=4,8,16,32", "--vary",
                "l1=64,128,256", "--vary", "noc_bw=2,8", "--out", out, "--threads", "1", "--quick-search"};
        };
        const QString full = dir.filePath("full.csv");
        QCOMPARE(runMarvel(args(full)).exitCode, 0);
        const QByteArray expected = clitest::readBytes(full);
        QCOMPARE(expected.count('\n'), 25);

        const QString part = dir.filePath("part.csv");
        QProcess p;
        p.start(QStringLiteral(MARVEL_CLI_PATH), args(part));
        QVERIFY(p.waitForStarted());
        // Kill it once a few rows are in the file (before it finishes, if the machine allows).
        for (int i = 0;
             i < 20000 && clitest::readBytes(part).count('\n') < 4 && p.state() == QProcess::Running; ++i)
            QThread::msleep(1);
        p.kill();
        p.waitForFinished();
        const int rowsBefore = int(clitest::readBytes(part).count('\n')) - 1;
        if (p.exitStatus() == QProcess::NormalExit)
            qWarning(
                "the sweep finished before it could be killed; only the resume of a whole file is checked");
        const clitest::CliRun r = runMarvel(args(part) << "--resume");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        if (rowsBefore > 0 && rowsBefore < 24)
            QVERIFY2(r.err.contains(QString("%1 of 24 points already in the file").arg(rowsBefore)),
                qPrintable(r.err));
        QCOMPARE(clitest::readBytes(part), expected);
    }

    void resumeRefusesAnotherGrid()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("s.csv");
        QCOMPARE(runMarvel(sweepArgs(out)).exitCode, 0);
        QStringList other = sweepArgs(out);
        other[other.indexOf("pes=2:8:x2")] = "pes=2,3";
        const clitest::CliRun r = runMarvel(other << "--resume");
        QCOMPARE(r.exitCode, 2);
        // Lines 2 and 3 hold pes 2, in both grids; line 4 holds pes 4, not in the new one.
        QVERIFY2(r.err.contains(out + ":4: not a design point of this sweep"), qPrintable(r.err));
    }

    // The grid alone does not say what the rows were searched for: FILE.settings keeps the workload and the
    // search options, and --resume refuses a file written for another objective or another workload. The
    // file is left as it was.
    void resumeRefusesAnotherObjectiveOrWorkload()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("s.csv");
        QCOMPARE(runMarvel(sweepArgs(out, false)).exitCode, 0);
        const QByteArray rows = clitest::readBytes(out);
        const QByteArray settings = clitest::readBytes(dir.filePath("s.settings"));
        QVERIFY2(settings.contains("objective: runtime\n"), settings.constData());

        clitest::CliRun r = runMarvel(sweepArgs(out, false) << "--objective"
                                                            << "energy"
                                                            << "--resume");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(dir.filePath("s.settings") + ":"), qPrintable(r.err));
        QVERIFY2(r.err.contains("'objective: runtime', this one has 'objective: energy'"), qPrintable(r.err));
        QCOMPARE(clitest::readBytes(out), rows);

        QStringList other = sweepArgs(out, false);
        other[other.indexOf(kOp)] = kSamples + "/operators/gemm.loop";
        r = runMarvel(other << "--resume");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("'workload: conv1d', this one has 'workload: gemm'"), qPrintable(r.err));
        QCOMPARE(clitest::readBytes(out), rows);

        // Rows of the full search are not finished by the quick one, nor refined ones by --no-refine.
        QVERIFY2(settings.contains("search: full\nrefine: yes\n"), settings.constData());
        r = runMarvel(sweepArgs(out, false) << "--quick-search"
                                            << "--resume");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("'search: full', this one has 'search: quick'"), qPrintable(r.err));
        r = runMarvel(sweepArgs(out, false) << "--no-refine"
                                            << "--resume");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("'refine: yes', this one has 'refine: no'"), qPrintable(r.err));
        QCOMPARE(clitest::readBytes(out), rows);

        // Rows of one near-tie margin are not finished with another. The default margin is named in the
        // file, so that a settings file without the line keeps meaning the exact bests (0), as the files
        // written before the default was 2e-5 were: those resume with --near-tie 0 only.
        QVERIFY2(settings.contains("near_tie: 2e-05\n"), settings.constData());
        r = runMarvel(sweepArgs(out, false) << "--near-tie"
                                            << "0.001"
                                            << "--resume");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("'near_tie: 2e-05', this one has 'near_tie: 0.001'"), qPrintable(r.err));
        QCOMPARE(clitest::readBytes(out), rows);
        r = runMarvel(sweepArgs(out, false) << "--near-tie"
                                            << "0"
                                            << "--resume");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("'near_tie: 2e-05', this one has 'divisors_only: yes'"), qPrintable(r.err));
        QCOMPARE(clitest::readBytes(out), rows);

        // The same sweep resumes: nothing left to search, the same file.
        r = runMarvel(sweepArgs(out, false) << "--near-tie"
                                            << "0.00002"
                                            << "--resume");
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(clitest::readBytes(out), rows);
        r = runMarvel(sweepArgs(out, false) << "--resume");
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(clitest::readBytes(out), rows);

        // A sweep of exact bests writes no line, as those before the setting: one such file resumes with
        // --near-tie 0 and not with the default margin.
        const QString exactOut = dir.filePath("exact.csv");
        QCOMPARE(runMarvel(sweepArgs(exactOut, false) << "--near-tie"
                                                      << "0")
                     .exitCode,
            0);
        const QByteArray exactRows = clitest::readBytes(exactOut);
        QVERIFY(!clitest::readBytes(dir.filePath("exact.settings")).contains("near_tie"));
        r = runMarvel(sweepArgs(exactOut, false) << "--resume");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("this one has 'near_tie: 2e-05'"), qPrintable(r.err));
        QCOMPARE(clitest::readBytes(exactOut), exactRows);
        r = runMarvel(sweepArgs(exactOut, false) << "--near-tie"
                                                 << "0"
                                                 << "--resume");
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(clitest::readBytes(exactOut), exactRows);
    }

    // --quick-search is the decoupled search alone, and every output says so: the rows' search column,
    // the report's "points:" line and the JSON's "search". Its rows are `marvel search --no-refine`'s.
    void quickSearchSaysSo()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("q.csv");
        const clitest::CliRun r = runMarvel(sweepArgs(out) << "--json");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json["search"].toString(), QString("quick"));
        QCOMPARE(json["refine"].toBool(), false);
        QCOMPARE(json["pareto"].toObject()["runtime_area"].toArray().first().toObject()["search"].toString(),
            QString("quick"));
        const QList<QStringList> rows = rowsOf(clitest::readBytes(out));
        QCOMPARE(rows.size(), 6);
        const QStringList& row = rows.last(); // 8 PEs, noc_bw 4
        QCOMPARE(row[18], QString("quick"));
        QFile base(kSweepHw);
        QVERIFY(base.open(QIODevice::ReadOnly));
        QJsonObject acc = QJsonDocument::fromJson(base.readAll()).object();
        acc["num_pes"] = 8;
        acc["noc_bandwidth_elements_per_cycle"] = 4;
        const QString hw = dir.filePath("p.json");
        writeAll(hw, QJsonDocument(acc).toJson());
        const clitest::CliRun s = runMarvel({"search", "--op", kOp, "--hw", hw, "--no-refine", "--json"});
        QVERIFY2(s.exitCode == 0, qPrintable(s.err));
        const QJsonObject layer
            = QJsonDocument::fromJson(s.out.toUtf8()).object()["layers"].toArray().first().toObject();
        QCOMPARE(row[6].toLongLong(), layer["runtime_cycles"].toInteger());
        QCOMPARE(row[7].toDouble(), layer["energy"].toDouble());
        const clitest::CliRun text = runMarvel(sweepArgs(dir.filePath("t.csv")));
        QVERIFY2(text.out.contains("points: quick search (the decoupled search alone"), qPrintable(text.out));
    }

    void badVary_data()
    {
        QTest::addColumn<QString>("vary");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown parameter") << "banks=2,4"
                                           << "--vary 'banks=2,4': unknown parameter 'banks'";
        QTest::newRow("empty range") << "l2=1M:64K:x2"
                                     << "--vary 'l2=1M:64K:x2': empty range";
        QTest::newRow("zero") << "pes=0,4"
                              << "--vary 'pes=0,4': values must be positive (got 0)";
        QTest::newRow("negative") << "noc_bw=-1"
                                  << "--vary 'noc_bw=-1': values must be positive (got -1)";
        QTest::newRow("absurd") << "pes=1G,2G"
                                << "--vary 'pes=1G,2G': value 2147483648 makes the accelerator invalid";
        QTest::newRow("too many") << "l1=1:100000:+1"
                                  << "--vary 'l1=1:100000:+1': more than 10000 values";
        QTest::newRow("no values") << "simd="
                                   << "--vary 'simd=': no values";
    }

    void badVary()
    {
        QFETCH(QString, vary);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const clitest::CliRun r = runMarvel(
            {"sweep", "--op", kOp, "--hw", kSweepHw, "--vary", vary, "--out", dir.filePath("s.csv")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("s.csv")));
    }

    void badSweeps()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("s.csv");
        // The same parameter twice.
        clitest::CliRun r = runMarvel(
            {"sweep", "--op", kOp, "--hw", kSweepHw, "--vary", "pes=2,4", "--vary", "pes=8", "--out", out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--vary 'pes=8': parameter 'pes' is already varied by --vary 'pes=2,4'"),
            qPrintable(r.err));
        // Too many points altogether: 1000 x 1000 x 2.
        r = runMarvel({"sweep", "--op", kOp, "--hw", kSweepHw, "--vary", "pes=1:1000:+1", "--vary",
            "l1=1:1000:+1", "--vary", "simd=1,2", "--out", out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("more than 1000000 design points"), qPrintable(r.err));
        // An invalid base accelerator names its file and field.
        const QString zero
            = QStringLiteral(MARVEL_SOURCE_DIR) + "/tests/data/bad-input/accelerator_json/pes_zero.json";
        r = runMarvel({"sweep", "--op", kOp, "--hw", zero, "--vary", "l1=64", "--out", out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("pes_zero.json: num_pes: must be at least 1"), qPrintable(r.err));
        // No --vary, no --out.
        r = runMarvel({"sweep", "--op", kOp, "--hw", kSweepHw, "--out", out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("missing --vary"));
        r = runMarvel({"sweep", "--op", kOp, "--hw", kSweepHw, "--vary", "pes=2"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("missing --out"));
        QVERIFY(!QFile::exists(out));
    }

    void failedPointHasAStatus()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("s.csv");
        const clitest::CliRun r
            = runMarvel({"sweep", "--op", kOp, "--hw", kSweepHw, "--vary", "l2=2,1K", "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QList<QStringList> rows = rowsOf(clitest::readBytes(out));
        QCOMPARE(rows.size(), 2);
        // An L2 of 2 bytes holds no tile of the three tensors (6 bytes double buffered).
        QCOMPARE(rows[0][3], QString("2"));
        QCOMPARE(rows[0][6], QString());
        QCOMPARE(rows[0].last(),
            QString("conv1d: no level-3 tile of operator 'conv1d' fits in the L2 buffer (2 bytes)"));
        QCOMPARE(rows[1].last(), QString("ok"));
    }
};

QTEST_GUILESS_MAIN(TestCliSweep)
#include "tst_cli_sweep.moc"
