// `--export-timeloop DIR` of `marvel evaluate` and `marvel search`: per layer four files with one top-level
// key each, a layer Timeloop cannot express reported with its reason while the others are written, and the
// worked case of ../shared/reference/timeloop/vgg16_conv2_1_ws reproduced with `--timeloop-buffering 1`.
#include <QDir>
#include <QFileInfo>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"
#include "tests/timeloop_yaml.h"

using namespace clitest;

namespace {

// Why the tests against Timeloop itself skip: it is an outside oracle, never a dependency.
constexpr char kNoTimeloop[]
    = "TIMELOOP_HOME is not set (a Timeloop build: ../shared/guides/timeloop-oracle.md)";

// Lines that start at column 0 and are not comments: the top-level keys.
QStringList topLevelKeys(const QString& text)
{
    QStringList keys;
    for (const QString& line : text.split('\n'))
        if (!line.isEmpty() && !line.startsWith('#') && !line.startsWith(' ')) keys << line;
    return keys;
}

// Timeloop's per-level, per-data-space scalar reads, updates and fills from timeloop-model.stats.txt
// ("GlobalBuffer Inputs reads" -> n; per instance, fills over the utilized instances: "PEBuffer Inputs
// fills" is what all the PE buffers receive) and its MAC computes ("computes").
QMap<QString, qint64> timeloopStats(const QString& text)
{
    QMap<QString, qint64> stats;
    QString level, space;
    const QRegularExpression levelRe(QStringLiteral("^=== (\\w+) ===$")),
        spaceRe(QStringLiteral("^    (\\w+):$")),
        countRe(QStringLiteral("^\\s+Scalar (reads|updates|fills) \\(per-instance\\)\\s+:\\s+(\\d+)")),
        computesRe(QStringLiteral("^\\s+Computes \\(total\\)\\s+:\\s+(\\d+)")),
        instancesRe(QStringLiteral("^\\s+Utilized instances \\(max\\)\\s+:\\s+(\\d+)"));
    qint64 instances = 1; // of the current data space, printed before its counts
    for (const QString& line : text.split('\n')) {
        if (auto m = levelRe.match(line); m.hasMatch()) {
            level = m.captured(1);
            space.clear();
        } else if (auto m2 = spaceRe.match(line); m2.hasMatch()) {
            space = m2.captured(1);
            instances = 1;
        } else if (auto m5 = instancesRe.match(line); m5.hasMatch()) {
            instances = m5.captured(1).toLongLong();
        } else if (auto m3 = countRe.match(line); m3.hasMatch() && !space.isEmpty()) {
            const QString key = level + ' ' + space + ' ' + m3.captured(1);
            const qint64 perInstance = m3.captured(2).toLongLong();
            if (!stats.contains(key))
                stats[key] = m3.captured(1) == "fills" ? perInstance * instances : perInstance;
        } else if (auto m4 = computesRe.match(line); m4.hasMatch() && !stats.contains("computes")) {
            stats["computes"] = m4.captured(1).toLongLong();
        }
    }
    return stats;
}

// Runs timeloop-model (TIMELOOP_HOME `home`) on the export in `folder`; its stats, or an error in `error`.
QMap<QString, qint64> runTimeloopModel(const QString& home, const QString& folder, QString& error)
{
    QProcess tl;
    tl.setWorkingDirectory(folder);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("LD_LIBRARY_PATH", home + "/lib");
    tl.setProcessEnvironment(env);
    tl.start(home + "/bin/timeloop-model", {"arch.yaml", "problem.yaml", "map.yaml", "ert.yaml"});
    if (!tl.waitForFinished(120000)) {
        error = folder + ": timeloop-model did not finish";
        return {};
    }
    QFile stats(folder + "/timeloop-model.stats.txt");
    if (!stats.open(QIODevice::ReadOnly)) {
        error = folder + ": " + QString::fromUtf8(tl.readAllStandardError());
        return {};
    }
    return timeloopStats(QString::fromUtf8(stats.readAll()));
}

// Our counts from an export's stderr line, keyed as timeloopStats keys Timeloop's.
QMap<QString, qint64> ourExportCounts(const QString& line)
{
    QMap<QString, qint64> ours;
    const QRegularExpression pair(
        QStringLiteral("(computes|GlobalBuffer \\w+ (?:reads|updates|fills)|PEBuffer \\w+ "
                       "fills|DRAM \\w+ (?:reads|updates)) (\\d+)"));
    for (auto it = pair.globalMatch(line); it.hasNext();) {
        const auto m = it.next();
        ours[m.captured(1)] = m.captured(2).toLongLong();
    }
    return ours;
}

} // namespace

class TstCliTimeloop : public QObject
{
    Q_OBJECT

private slots:
    // Against Timeloop itself (an outside oracle, never a dependency: ../shared/guides/timeloop-oracle.md;
    // skipped unless TIMELOOP_HOME names its build): ResNet-50 searched on Edge 1024 with DRAM, every layer
    // exported and run through timeloop-model. MACs and the DRAM reads and updates of every data space are
    // equal on every layer; the global buffer's reads and updates are equal on every layer with one level of
    // sub-units, and with two (the known gap, doc/timeloop.md) only the input reads may fall short.
    void agreesWithTimeloop()
    {
        const QString home = qEnvironmentVariable("TIMELOOP_HOME");
        if (home.isEmpty()) QSKIP(kNoTimeloop);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("tl");
        // The file rather than the preset's name: ctest runs the tests outside the source tree, where the
        // preset's samples/accelerators is not found.
        const CliRun run = runMarvel({"search", "--model", "resnet50", "--hw",
            QStringLiteral(MARVEL_SAMPLES_DIR) + "/accelerators/edge1024_dram.json", "--timeloop-compatible",
            "--fidelity", "corrected", "--export-timeloop", out});
        QCOMPARE(run.exitCode, 0);
        int layers = 0, gbEqual = 0;
        for (const QString& line : run.err.split('\n')) {
            const auto m
                = QRegularExpression(QStringLiteral("^timeloop: (\\S+): exported to (\\S+) ")).match(line);
            if (!m.hasMatch()) continue;
            const QString folder = m.captured(2);
            QString error;
            const auto theirs = runTimeloopModel(home, folder, error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            const QString map = readAll(folder + "/map.yaml");
            const QRegularExpression spatial(QStringLiteral("type: spatial\\n\\s+factors: ([^\\n]*)"));
            int axes = 0; // mesh axes with more than one PE
            for (const QString& f : spatial.match(map).captured(1).split(' ', Qt::SkipEmptyParts))
                axes += f.section('=', 1).toLongLong() > 1 ? 1 : 0;
            bool layerGbEqual = true;
            const auto ours = ourExportCounts(line);
            for (auto it = ours.begin(); it != ours.end(); ++it) {
                const QString where = m.captured(1) + ": " + it.key();
                QVERIFY2(theirs.contains(it.key()), qPrintable(where + " missing in Timeloop's stats"));
                if (!it.key().startsWith("GlobalBuffer") && !it.key().startsWith("PEBuffer")) {
                    QVERIFY2(theirs[it.key()] == it.value(),
                        qPrintable(where
                            + QString(": ours %1, Timeloop's %2").arg(it.value()).arg(theirs[it.key()])));
                } else if (theirs[it.key()] != it.value()) {
                    layerGbEqual = false;
                    QVERIFY2(axes > 1 && (it.key().endsWith("reads") || it.key().endsWith("fills"))
                            && it.value() < theirs[it.key()],
                        qPrintable(where
                            + QString(": ours %1, Timeloop's %2").arg(it.value()).arg(theirs[it.key()])));
                }
            }
            ++layers;
            gbEqual += layerGbEqual ? 1 : 0;
        }
        QCOMPARE(layers, 20);
        qInfo("global-buffer counts equal to Timeloop's on %d of %d layers", gbEqual, layers);
        // Every layer, or all but one whose PE credits what it still holds across an inner loop's wrap
        // (res3a_branch2b with some of the search's mappings; doc/timeloop.md, "Reuse across an inner loop's
        // wrap"). 20 of 20 on 2026-11-29.
        QVERIFY2(gbEqual >= layers - 1, "fewer layers agree than the one definitional difference allows");
    }

    // The forms exported since issue 33 (tst_timeloop_export's newForms, by hand) through Timeloop itself:
    // nested fan-outs, row-stationary filter rows over PEs, a dimension stepping in two cluster levels. Every
    // count tst_timeloop_export compares is equal - the global buffer's reads and updates are counted where
    // the PEs fetch them, frame by frame, in both (a row whose input reads differ would give Timeloop's
    // value, the simulator's; since the per-case tables count identical tiles of different clusters once,
    // 2026-11-29, none does).
    void newFormsAgreeWithTimeloop_data()
    {
        QTest::addColumn<QString>("layer");
        QTest::addColumn<QString>("dataflow");
        QTest::addColumn<qint64>("timeloopInputReads"); // -1: equal to ours
        const QString conv = "Type: CONV Dimensions { K: 8, C: 4, R: 3, S: 3, Y: 6, X: 6 } Dataflow { %1 }";
        QTest::newRow("three fan-outs") << "THREE"
                                        << conv.arg("SpatialMap(1,1) K; Cluster(4,P); SpatialMap(1,1) C; "
                                                    "Cluster(2,P); SpatialMap(3,1) Y; TemporalMap(3,1) X;")
                                        << qint64(-1);
        QTest::newRow("K at two fan-outs")
            << "TWICE"
            << conv.arg("SpatialMap(2,2) K; Cluster(4,P); SpatialMap(1,1) C; Cluster(2,P); SpatialMap(1,1) K;"
                        " TemporalMap(3,1) Y; TemporalMap(3,1) X;")
            << qint64(-1);
        QTest::newRow("row-stationary depth-wise")
            << "DW"
            << "Type: DSCONV Dimensions { C: 4, R: 3, S: 3, Y: 8, X: 8 } Dataflow { SpatialMap(1,1) C;"
               " TemporalMap(3,1) Y; Cluster(3,P); SpatialMap(1,1) Y; SpatialMap(1,1) R; TemporalMap(3,3) S;"
               " TemporalMap(3,1) X; }"
            << qint64(-1);
        // PE (cluster c, filter row r) reads input row c + r: PEs of neighbouring clusters read identical
        // rows, which Timeloop multicasts (8 rows x 2 channels, 3 + 5 columns, 4 K steps: 512, the
        // simulator's count and the per-case tables' too).
        QTest::newRow("row-stationary")
            << "RS"
            << "Type: CONV Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 } Dataflow { TemporalMap(1,1) K;"
               " TemporalMap(2,2) C; SpatialMap(3,1) Y; Cluster(3,P); SpatialMap(1,1) Y; SpatialMap(1,1) R;"
               " TemporalMap(3,3) S; TemporalMap(3,1) X; }"
            << qint64(-1);
        QTest::newRow("K twice in the PE")
            << "PEK"
            << conv.arg("SpatialMap(1,1) C; TemporalMap(8,8) K; TemporalMap(3,1) Y; TemporalMap(3,1) X;"
                        " Cluster(2,P); SpatialMap(3,1) Y; TemporalMap(2,2) K; TemporalMap(3,3) R;"
                        " TemporalMap(3,3) S;")
            << qint64(-1);
        QTest::newRow("K twice in the global buffer")
            << "GBK"
            << conv.arg("SpatialMap(8,8) K; TemporalMap(6,6) Y; TemporalMap(6,6) X; Cluster(1,P);"
                        " TemporalMap(4,4) K; SpatialMap(6,6) Y; TemporalMap(6,6) X; Cluster(4,P);"
                        " SpatialMap(1,1) C; TemporalMap(2,2) K; TemporalMap(3,1) Y; TemporalMap(3,1) X;")
            << qint64(-1);
    }
    void newFormsAgreeWithTimeloop()
    {
        QFETCH(QString, layer);
        QFETCH(QString, dataflow);
        QFETCH(qint64, timeloopInputReads);
        const QString home = qEnvironmentVariable("TIMELOOP_HOME");
        if (home.isEmpty()) QSKIP(kNoTimeloop);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString m = dir.filePath("forms.m"), hw = dir.filePath("hw.json");
        writeFile(m, ("Network n { Layer " + layer + " { " + dataflow + " } }\n").toUtf8());
        writeFile(hw, R"({"schema_version": 1, "name": "eighteen", "num_pes": 18, "l1_bytes": 512,
                          "l2_bytes": 65536, "noc_bandwidth_elements_per_cycle": 16})");
        const QString out = dir.filePath("tl");
        const CliRun run = runMarvel(
            {"evaluate", "--mapping", m, "--hw", hw, "--format", "csv", "--export-timeloop", out});
        QCOMPARE(run.exitCode, 0);
        const auto line = QRegularExpression(QStringLiteral("timeloop: \\S+: exported to \\S+ [^\\n]*"))
                              .match(run.err)
                              .captured(0);
        QVERIFY2(!line.isEmpty(), qPrintable(run.err));
        const QString folder = out + "/" + layer;
        QString error;
        const auto theirs = runTimeloopModel(home, folder, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto ours = ourExportCounts(line);
        QVERIFY(ours.size() >= 13);
        for (auto it = ours.begin(); it != ours.end(); ++it) {
            const qint64 want = it.key() == "GlobalBuffer Inputs reads" && timeloopInputReads >= 0
                ? timeloopInputReads
                : it.value();
            QVERIFY2(theirs.value(it.key(), -1) == want,
                qPrintable(it.key()
                    + QString(": ours %1, Timeloop's %2, expected %3")
                          .arg(it.value())
                          .arg(theirs.value(it.key(), -1))
                          .arg(want)));
        }
        if (timeloopInputReads >= 0) QVERIFY(ours["GlobalBuffer Inputs reads"] != timeloopInputReads);
    }

    // Every mapping the export writes, not only the search's: the first 300 random small mappings of `marvel
    // bench sim --exportable wide` (seed 1; 1-3 cluster levels, 1 to 96 PEs, CONV1D, strided CONV2D,
    // depth-wise, GEMM) through Timeloop. Each runs (mappings on one PE too), and every count is equal but
    // the inputs' reads where a tile's overlap is kept across an inner loop's wrap (doc/timeloop.md, "Reuse
    // across an inner loop's wrap"): there ours is lower, in the global buffer and from DRAM alike. Before
    // 2026-11-29 Timeloop refused the 89 exports on one PE and 31 with filter taps spread alone over PEs
    // counted other traffic (17 other MACs); 295 of 300 are equal now.
    void randomExportsAgreeWithTimeloop()
    {
        const QString home = qEnvironmentVariable("TIMELOOP_HOME");
        if (home.isEmpty()) QSKIP(kNoTimeloop);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("tl");
        const CliRun run = runMarvel({"bench", "sim", "--cases", "300", "--seed", "1", "--exportable", "wide",
            "--export-timeloop", out});
        QCOMPARE(run.exitCode, 0);
        int cases = 0, equal = 0;
        for (const QString& line : run.err.split('\n')) {
            const auto m
                = QRegularExpression(QStringLiteral("^timeloop: (\\S+): exported to (\\S+) ")).match(line);
            if (!m.hasMatch()) continue;
            QString error;
            const auto theirs = runTimeloopModel(home, m.captured(2), error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            const auto ours = ourExportCounts(line.section(QStringLiteral("  | "), 0, 0));
            QVERIFY(ours.size() >= 13);
            bool allEqual = true;
            for (auto it = ours.begin(); it != ours.end(); ++it) {
                const qint64 tl = theirs.value(it.key(), -1);
                if (tl == it.value()) continue;
                allEqual = false;
                QVERIFY2((it.key().endsWith("Inputs reads") || it.key().endsWith("Inputs fills"))
                        && it.value() < tl,
                    qPrintable(m.captured(1) + ": " + it.key()
                        + QString(": ours %1, Timeloop's %2").arg(it.value()).arg(tl)
                        + line.section("  | ", 1)));
            }
            ++cases;
            equal += allEqual ? 1 : 0;
        }
        QCOMPARE(cases, 300);
        qInfo("every count equal to Timeloop's on %d of %d random exported mappings", equal, cases);
        QVERIFY(equal >= 290);
    }

    // `marvel bench sim --export-timeloop`, what randomExportsAgreeWithTimeloop runs, without Timeloop: each
    // kept case's four files and our counts with the case on stderr. Case 0 of seed 1 is a CONV1D on one PE
    // (K 2, C 1, 8 outputs, 3 taps: 48 MACs): no spatial level.
    void benchSimWritesTimeloopInput()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("tl");
        const CliRun run = runMarvel({"bench", "sim", "--cases", "4", "--seed", "1", "--exportable", "wide",
            "--export-timeloop", out});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = run.err.split('\n').filter(QStringLiteral(": exported to "));
        QCOMPARE(lines.size(), 4);
        for (const QString& line : lines) {
            const QString folder
                = QRegularExpression(QStringLiteral("exported to (\\S+) ")).match(line).captured(1);
            for (const char* file : {"problem.yaml", "arch.yaml", "map.yaml", "ert.yaml"})
                QVERIFY2(QFileInfo::exists(folder + "/" + file), qPrintable(folder + "/" + file));
            QVERIFY2(line.contains(QStringLiteral("  | ")), qPrintable(line)); // the case itself
            QVERIFY(ourExportCounts(line.section(QStringLiteral("  | "), 0, 0)).size() >= 13);
        }
        QVERIFY2(lines[0].startsWith(QStringLiteral("timeloop: case0: exported to ")), qPrintable(lines[0]));
        QVERIFY2(lines[0].contains(QStringLiteral("(1 PEs)")), qPrintable(lines[0]));
        QCOMPARE(ourExportCounts(lines[0].section(QStringLiteral("  | "), 0, 0))["computes"], qint64(48));
        QVERIFY(!readAll(out + "/case0/map.yaml").contains(QStringLiteral("type: spatial")));
    }

    void evaluateExports()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString m = dir.filePath("two.m"), hw = dir.filePath("hw.json");
        // GOOD: a row of A per PE; OVERLAP: tiles of 2 rows of M at offset 1.
        writeFile(m,
            "Network n {\n"
            "Layer GOOD { Type: GEMM Dimensions { M: 4, N: 4, K: 8 } Dataflow { SpatialMap(1,1) M;\n"
            "  TemporalMap(1,1) N; TemporalMap(8,8) K; } }\n"
            "Layer OVERLAP { Type: GEMM Dimensions { M: 4, N: 4, K: 8 } Dataflow { SpatialMap(1,1) N;\n"
            "  TemporalMap(2,1) M; TemporalMap(8,8) K; } } }\n");
        writeFile(
            hw, R"({"schema_version": 1, "name": "four", "num_pes": 4, "l1_bytes": 512, "l2_bytes": 4096,
                     "noc_bandwidth_elements_per_cycle": 4})");
        const QString out = dir.filePath("tl");
        const CliRun r = runMarvel(
            {"evaluate", "--mapping", m, "--hw", hw, "--format", "csv", "--export-timeloop", out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("timeloop: GOOD: exported to"), qPrintable(r.err));
        QVERIFY2(r.err.contains("computes 128, GlobalBuffer Inputs reads 32, GlobalBuffer Weights reads 32, "
                                "GlobalBuffer Outputs updates 16"),
            qPrintable(r.err));
        QVERIFY2(r.err.contains("timeloop: OVERLAP: not exported: TemporalMap(2,1) M (line 5): tiles of 2 at "
                                "offset 1 overlap on M"),
            qPrintable(r.err));
        QVERIFY(!QDir(out + "/OVERLAP").exists());
        const QStringList files{"problem.yaml", "arch.yaml", "map.yaml", "ert.yaml"};
        const QStringList keys{"problem:", "architecture:", "mapping:", "ERT:"};
        for (int i = 0; i < files.size(); ++i)
            QCOMPARE(topLevelKeys(readAll(out + "/GOOD/" + files[i])), QStringList{keys[i]});
        QVERIFY(readAll(out + "/GOOD/map.yaml").contains("factors: M=4 N=1 K=1"));
        // Without --mapping the option has nothing to export.
        QCOMPARE(runMarvel({"evaluate", "--project", m, "--export-timeloop", out}).exitCode, 2);
        // --timeloop-buffering takes 1 or 2, and only with an export.
        const CliRun three = runMarvel(
            {"evaluate", "--mapping", m, "--hw", hw, "--export-timeloop", out, "--timeloop-buffering", "3"});
        QCOMPARE(three.exitCode, 2);
        QVERIFY2(three.err.contains("--timeloop-buffering expects an integer from 1 to 2, got '3'"),
            qPrintable(three.err));
        QCOMPARE(
            runMarvel({"evaluate", "--mapping", m, "--hw", hw, "--timeloop-buffering", "1"}).exitCode, 2);
    }

    // `marvel search --export-timeloop`: the best mapping of a small convolution on 8 PEs is written (its
    // PE buffer holds one step's tile, as the PE's L1 does: the cluster levels' steps are global-buffer
    // loops); --timeloop-compatible searches only what exports, and its best is written too.
    void searchExports()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString op = dir.filePath("small.loop");
        writeFile(op,
            "operator small(K = 4, C = 4, Y = 6, X = 6, R = 3, S = 3) {\n"
            "  for (k = 0; k < K; k++) for (c = 0; c < C; c++) for (y = 0; y < Y; y++)\n"
            "  for (x = 0; x < X; x++) for (r = 0; r < R; r++) for (s = 0; s < S; s++)\n"
            "    O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s];\n}\n");
        const QString hw = QStringLiteral(MARVEL_SAMPLES_DIR) + "/accelerators/classroom_8pe.json";
        const QString out = dir.filePath("tl");
        const CliRun plain = runMarvel({"search", "--op", op, "--hw", hw, "--export-timeloop", out});
        QCOMPARE(plain.exitCode, 0);
        QVERIFY2(plain.err.contains("timeloop: small: exported to"), qPrintable(plain.err));
        QVERIFY(QFileInfo::exists(out + "/small/map.yaml"));
        QVERIFY(QDir(out + "/small").removeRecursively());
        const CliRun compatible = runMarvel(
            {"search", "--op", op, "--hw", hw, "--export-timeloop", out, "--timeloop-compatible"});
        QCOMPARE(compatible.exitCode, 0);
        QVERIFY2(compatible.err.contains("timeloop: small: exported to"), qPrintable(compatible.err));
        QCOMPARE(topLevelKeys(readAll(out + "/small/map.yaml")), QStringList{"mapping:"});
        QVERIFY(readAll(out + "/small/problem.yaml").contains("dimensions: [ R, S, P, Q, K, C, N ]"));
    }

    // The worked case from the command line: `marvel evaluate --mapping conv2_1_ws.m --hw P1_128pe.json
    // --export-timeloop DIR --timeloop-buffering 1` writes the reference's problem, architecture and mapping
    // up to formatting (the reference ran Timeloop single-buffered: its architecture sets no
    // multiple_buffering). Double-buffered, the default, the global buffer keeps 16 output rows, not 28.
    void workedCase()
    {
        const QString ref = QString::fromStdString(marvel::timeloop_test::workedCaseDir());
        if (!QFileInfo::exists(ref + "/conv2_1_ws.m")) QSKIP("../shared/reference/timeloop not found");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QStringList args{"evaluate", "--mapping", ref + "/conv2_1_ws.m", "--hw", ref + "/P1_128pe.json",
            "--format", "csv", "--export-timeloop"};
        const CliRun single
            = runMarvel(args + QStringList{dir.filePath("single"), "--timeloop-buffering", "1"});
        QCOMPARE(single.exitCode, 0);
        QVERIFY2(single.err.contains("timeloop: CONV2_1: exported to"), qPrintable(single.err));
        const CliRun twice = runMarvel(args + QStringList{dir.filePath("double")});
        QCOMPARE(twice.exitCode, 0);
        QVERIFY(readAll(dir.filePath("double/CONV2_1/map.yaml")).contains("factors: R=1 S=1 P=16 Q=112"));
        QVERIFY(readAll(dir.filePath("double/CONV2_1/arch.yaml")).contains("multiple_buffering: 2"));
#if !MARVEL_HAVE_YAML_CPP
        QSKIP("yaml-cpp not found (libyaml-cpp-dev)");
#else
        const std::string out = dir.filePath("single/CONV2_1/").toStdString();
        marvel::timeloop_test::compareWithWorkedCase(YAML::LoadFile(out + "problem.yaml"),
            YAML::LoadFile(out + "arch.yaml"), YAML::LoadFile(out + "map.yaml"));
#endif
    }
};

QTEST_GUILESS_MAIN(TstCliTimeloop)
#include "tst_cli_timeloop.moc"
