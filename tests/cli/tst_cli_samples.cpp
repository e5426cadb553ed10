// Where `marvel` finds its presets (core/resources/samples_dir.h), whatever the working directory: the
// build tree's source samples, an installed prefix's share/marvel-studio/samples, $MARVEL_SAMPLES_DIR.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::kSmallConv;
using clitest::parse;
using clitest::writeFile;

namespace {

/// `marvel` (the one at `program`) run in `workingDir` with `env` added to its environment.
clitest::CliRun runIn(const QString& program, const QStringList& args, const QString& workingDir,
    const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setWorkingDirectory(workingDir);
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
        QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QProcessEnvironment withoutSamplesVariable()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("MARVEL_SAMPLES_DIR"));
    return env;
}

/// The best mapping's runtime and energy of a one-layer `marvel search --json`.
QPair<qint64, double> bestOf(const clitest::CliRun& run)
{
    const QJsonObject layer = parse(run.out)["layers"].toArray().at(0).toObject();
    return {layer["runtime_cycles"].toInteger(), layer["energy"].toDouble()};
}

const QStringList kCheap{"--json", "--no-refine", "--threads", "1"};

} // namespace

class TestCliSamples : public QObject
{
    Q_OBJECT

private slots:
    /// `--hw P2` and `--technology 45nm` from a folder outside the source tree: the build tree's samples.
    void presetFromAnyFolder()
    {
        QTemporaryDir dir; // under the system's temporary folder, not the source tree
        QVERIFY(!QDir(dir.path()).exists(QStringLiteral("samples")));
        writeFile(dir.filePath("conv.loop"), kSmallConv);
        const QStringList op{"search", "--op", "conv.loop"};
        const auto byName = runIn(QStringLiteral(MARVEL_CLI_PATH),
            op + QStringList{"--hw", "P2", "--technology", "45nm"} + kCheap, dir.path(),
            withoutSamplesVariable());
        QVERIFY2(byName.exitCode == 0, qPrintable(byName.err));
        const auto byFile = runIn(QStringLiteral(MARVEL_CLI_PATH),
            op
                + QStringList{"--hw", kSamples + "/accelerators/P2_edge.json", "--technology",
                    kSamples + "/technology/45nm.json"}
                + kCheap,
            dir.path(), withoutSamplesVariable());
        QVERIFY2(byFile.exitCode == 0, qPrintable(byFile.err));
        QCOMPARE(bestOf(byName), bestOf(byFile));
        QCOMPARE(parse(byName.out)["technology"], parse(byFile.out)["technology"]);
    }

    /// An installed `marvel` (bin/marvel beside share/marvel-studio/samples, any prefix) takes the
    /// prefix's presets, from any folder, without the build tree.
    void installedPrefix()
    {
        QTemporaryDir prefix;
        QVERIFY(QDir(prefix.path()).mkpath(QStringLiteral("bin")));
        const QString accelerators = prefix.filePath("share/marvel-studio/samples/accelerators");
        QVERIFY(QDir().mkpath(accelerators));
        QVERIFY(QFile::copy(QStringLiteral(MARVEL_CLI_PATH), prefix.filePath("bin/marvel")));
        QVERIFY(QFile::copy(kSamples + "/accelerators/P1_eyeriss.json", accelerators + "/P1_eyeriss.json"));
        // "P2" of this prefix is the 8-PE classroom accelerator: only this tree gives its figures.
        QVERIFY(QFile::copy(kSamples + "/accelerators/classroom_8pe.json", accelerators + "/P2_edge.json"));
        QTemporaryDir work;
        writeFile(work.filePath("conv.loop"), kSmallConv);
        const QStringList op{"search", "--op", "conv.loop", "--hw"};
        const auto installed = runIn(prefix.filePath("bin/marvel"), op + QStringList{"P2"} + kCheap,
            work.path(), withoutSamplesVariable());
        QVERIFY2(installed.exitCode == 0, qPrintable(installed.err));
        const auto classroom = runIn(QStringLiteral(MARVEL_CLI_PATH),
            op + QStringList{kSamples + "/accelerators/classroom_8pe.json"} + kCheap, work.path());
        QVERIFY2(classroom.exitCode == 0, qPrintable(classroom.err));
        QCOMPARE(bestOf(installed), bestOf(classroom));
        // A name no tree has is refused, naming it.
        const auto unknown = runIn(prefix.filePath("bin/marvel"), op + QStringList{"eyeriss_dram"},
            work.path(), withoutSamplesVariable());
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("eyeriss_dram: cannot read the file, nor is it a preset's name"),
            qPrintable(unknown.err));
        // ... and says where it looked: the prefix's samples only (no build tree above this copy).
        QVERIFY2(unknown.err.endsWith("; looked in " + QDir::cleanPath(accelerators) + "\n"),
            qPrintable(unknown.err));
    }

    /// $MARVEL_SAMPLES_DIR is looked in first; the build tree's presets stay found after it.
    void environmentVariableFirst()
    {
        QTemporaryDir tree;
        QVERIFY(QDir(tree.path()).mkpath(QStringLiteral("accelerators")));
        QVERIFY(QFile::copy(
            kSamples + "/accelerators/classroom_8pe.json", tree.filePath("accelerators/my_preset.json")));
        QTemporaryDir work;
        writeFile(work.filePath("conv.loop"), kSmallConv);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MARVEL_SAMPLES_DIR"), tree.path());
        const QStringList op{"search", "--op", "conv.loop", "--hw"};
        const auto mine = runIn(
            QStringLiteral(MARVEL_CLI_PATH), op + QStringList{"my_preset"} + kCheap, work.path(), env);
        QVERIFY2(mine.exitCode == 0, qPrintable(mine.err));
        const auto classroom = runIn(QStringLiteral(MARVEL_CLI_PATH),
            op + QStringList{kSamples + "/accelerators/classroom_8pe.json"} + kCheap, work.path());
        QCOMPARE(bestOf(mine), bestOf(classroom));
        const auto p1
            = runIn(QStringLiteral(MARVEL_CLI_PATH), op + QStringList{"P1"} + kCheap, work.path(), env);
        QVERIFY2(p1.exitCode == 0, qPrintable(p1.err));
    }
};

QTEST_APPLESS_MAIN(TestCliSamples)
#include "tst_cli_samples.moc"
