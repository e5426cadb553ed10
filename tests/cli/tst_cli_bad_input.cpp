// The bad-input corpus (issue 11): every file of tests/data/bad-input/<format>/ goes through the CLI
// command that reads that format and must give exit status 2 with a message naming the file and the
// line:col or the field. <format>/expected.txt holds, per file, "NAME<TAB>TEXT": the message must hold
// the file's path followed by TEXT, which starts with ":LINE:COL: " or ": FIELD: ".
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::runMarvel;

namespace {
const QString kCorpus = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/bad-input");

QStringList commandFor(const QString& format, const QString& path)
{
    const QString hw = kSamples + "/accelerators/P2_edge.json";
    if (format == "operator") return {"check", path};
    if (format == "maestro_mapping") return {"evaluate", "--hw", hw, "--mapping", path};
    if (format == "maestro_hardware" || format == "accelerator_json")
        return {"evaluate", "--hw", path, "--mapping", kSamples + "/mappings/vgg16_conv2_styles.m"};
    if (format == "model_json") return {"search", "--model", path, "--hw", hw};
    if (format == "project") return {"search", "--project", path};
    if (format == "technology_json")
        return {"search", "--op", kSamples + "/operators/gemm.loop", "--hw", hw, "--technology", path};
    return {};
}
} // namespace

class TestCliBadInput : public QObject
{
    Q_OBJECT

private slots:
    void corpus_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        int files = 0;
        const QStringList formats = QDir(kCorpus).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(formats,
            (QStringList{"accelerator_json", "maestro_hardware", "maestro_mapping", "model_json", "operator",
                "project", "technology_json"}));
        for (const QString& format : formats) {
            const QDir dir(kCorpus + "/" + format);
            QFile list(dir.filePath("expected.txt"));
            QVERIFY2(list.open(QIODevice::ReadOnly), qPrintable(list.fileName()));
            QMap<QString, QString> expected;
            for (const QString& line : QString::fromUtf8(list.readAll()).split('\n', Qt::SkipEmptyParts)) {
                const qsizetype tab = line.indexOf('\t');
                QVERIFY2(tab > 0, qPrintable(line));
                expected.insert(line.left(tab), line.mid(tab + 1));
            }
            // Every file has an expectation and every expectation a file.
            QStringList names = dir.entryList(QDir::Files);
            names.removeAll("expected.txt");
            QCOMPARE(names, expected.keys());
            for (const QString& name : names) {
                QTest::addRow("%s/%s", qPrintable(format), qPrintable(name))
                    << format << dir.filePath(name) << expected.value(name);
                ++files;
            }
        }
        QVERIFY2(files >= 60, qPrintable(QString::number(files)));
    }
    void corpus()
    {
        QFETCH(QString, format);
        QFETCH(QString, file);
        QFETCH(QString, expected);
        // The message locates the problem: a line:col, or a field path.
        static const QRegularExpression located(R"(^(:\d+:\d+|: [A-Za-z_][\w.\[\]]*): .*)");
        QVERIFY2(located.match(expected).hasMatch(), qPrintable(expected));
        const clitest::CliRun r = runMarvel(commandFor(format, file), 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(file + expected), qPrintable(r.err));
        // Nothing on stdout, or (marvel evaluate on a file whose layers are all bad) the same error in
        // the layer table.
        QVERIFY2(r.out.isEmpty() || r.out.contains("error: " + file + expected), qPrintable(r.out));
    }
};

QTEST_GUILESS_MAIN(TestCliBadInput)
#include "tst_cli_bad_input.moc"
