// `--export-timeloop DIR` of `marvel evaluate`: per layer four files with one top-level key each, a layer
// Timeloop cannot express reported with its reason while the others are written.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace clitest;

namespace {

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

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
        QFile m(dir.filePath("two.m"));
        QVERIFY(m.open(QIODevice::WriteOnly));
        // GOOD: a row of A per PE; OVERLAP: tiles of 2 rows of M at offset 1.
        m.write("Network n {\n"
                "Layer GOOD { Type: GEMM Dimensions { M: 4, N: 4, K: 8 } Dataflow { SpatialMap(1,1) M;\n"
                "  TemporalMap(1,1) N; TemporalMap(8,8) K; } }\n"
                "Layer OVERLAP { Type: GEMM Dimensions { M: 4, N: 4, K: 8 } Dataflow { SpatialMap(1,1) N;\n"
                "  TemporalMap(2,1) M; TemporalMap(8,8) K; } } }\n");
        m.close();
        QFile hw(dir.filePath("hw.json"));
        QVERIFY(hw.open(QIODevice::WriteOnly));
        hw.write(R"({"schema_version": 1, "name": "four", "num_pes": 4, "l1_bytes": 512, "l2_bytes": 4096,
                     "noc_bandwidth_elements_per_cycle": 4})");
        hw.close();
        const QString out = dir.filePath("tl");
        const CliRun r = runMarvel({"evaluate", "--mapping", m.fileName(), "--hw", hw.fileName(), "--format",
            "csv", "--export-timeloop", out});
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
        QCOMPARE(runMarvel({"evaluate", "--project", m.fileName(), "--export-timeloop", out}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TstCliTimeloop)
#include "tst_cli_timeloop.moc"
