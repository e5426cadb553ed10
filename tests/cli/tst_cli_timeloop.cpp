// `--export-timeloop DIR` of `marvel evaluate` and `marvel search`: per layer four files with one top-level
// key each, a layer Timeloop cannot express reported with its reason while the others are written, and the
// worked case of ../shared/reference/timeloop/vgg16_conv2_1_ws reproduced with `--timeloop-buffering 1`.
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"
#include "tests/timeloop_yaml.h"

using namespace clitest;

namespace {

// Lines that start at column 0 and are not comments: the top-level keys.
QStringList topLevelKeys(const QString& text)
{
    QStringList keys;
    for (const QString& line : text.split('\n'))
        if (!line.isEmpty() && !line.startsWith('#') && !line.startsWith(' ')) keys << line;
    return keys;
}

} // namespace

class TstCliTimeloop : public QObject
{
    Q_OBJECT

private slots:
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

    // `marvel search --export-timeloop`: the best mapping of a small convolution on 8 PEs keeps each PE's
    // steps in its L1 beyond what Timeloop's PE buffer holds, so it is reported and not written;
    // --timeloop-compatible searches only what exports, and the best is written.
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
        QVERIFY2(
            plain.err.contains("timeloop: small: not exported: one PE's tile holds 67 elements, more than "
                               "the 32 its L1 gives a tile (double-buffered)"),
            qPrintable(plain.err));
        QVERIFY(!QDir(out + "/small").exists());
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
