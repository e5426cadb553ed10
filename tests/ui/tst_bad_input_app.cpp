// The bad-input corpus (tests/data/bad-input/, the CLI's expectations in each folder's expected.txt) in
// the app: every file the app can open gives the CLI's message (file and line:col or field), and the
// editor and the accelerator keep what the user had.
#include <QDir>
#include <QFile>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QtTest>

#include "core/arch/accelerator_io.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/model/model_table.h"

using namespace marvel;
using namespace marvel::ui;

namespace {
const QString kCorpus = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/bad-input");
const QString kWork
    = QStringLiteral("operator mine(X = 8) {\n  for (x = 0; x < X; x++)\n    O[x] += I[x];\n}\n");

/// expected.txt: one "file<TAB>message suffix" per line.
QList<QPair<QString, QString>> cases(const QString& format)
{
    QList<QPair<QString, QString>> out;
    QFile f(kCorpus + QLatin1Char('/') + format + QStringLiteral("/expected.txt"));
    if (!f.open(QIODevice::ReadOnly)) return out;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const int tab = line.indexOf('\t');
        if (tab > 0)
            out.append({QString::fromUtf8(line.left(tab)), QString::fromUtf8(line.mid(tab + 1)).trimmed()});
    }
    return out;
}

QString path(const QString& format, const QString& file)
{
    return kCorpus + QLatin1Char('/') + format + QLatin1Char('/') + file;
}
} // namespace

class TestBadInputApp : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void projects()
    {
        const auto all = cases(QStringLiteral("project"));
        QVERIFY(all.size() >= 5);
        MainWindow w;
        w.editor()->setPlainText(kWork);
        static const QRegularExpression operatorText(
            QStringLiteral("^: workload\\.text: line (\\d+:\\d+: .*)$"));
        for (const auto& [file, expected] : all) {
            const QRegularExpressionMatch text = operatorText.match(expected);
            if (text.hasMatch()) {
                // An operator that does not parse yet is work in progress: it opens, and the editor
                // lists the error at its line:col.
                MainWindow other;
                QVERIFY(other.openProject(path(QStringLiteral("project"), file)));
                QString listed;
                for (int i = 0; i < other.diagnosticsList()->count(); ++i)
                    listed += other.diagnosticsList()->item(i)->text() + '\n';
                QVERIFY2(
                    listed.contains(QLatin1Char(':') + text.captured(1)), qPrintable(file + ": " + listed));
                continue;
            }
            QVERIFY2(!w.openProject(path(QStringLiteral("project"), file)), qPrintable(file));
            QVERIFY2(w.lastError().contains(file + expected), qPrintable(file + ": " + w.lastError()));
            QCOMPARE(w.editor()->toPlainText(), kWork); // the work stays
        }
    }

    void accelerators()
    {
        for (const QString& format :
            {QStringLiteral("accelerator_json"), QStringLiteral("maestro_hardware")}) {
            const auto all = cases(format);
            QVERIFY(all.size() >= 5);
            AcceleratorPanel panel;
            const arch::Accelerator before = panel.accelerator();
            for (const auto& [file, expected] : all) {
                QVERIFY2(!panel.loadPreset(path(format, file)), qPrintable(file));
                QVERIFY2(
                    panel.message().contains(file + expected), qPrintable(file + ": " + panel.message()));
                QVERIFY(arch::sameParameters(panel.accelerator(), before)); // the fields stay
            }
        }
    }

    /// Model files: an error of the whole file refuses it; a bad layer is listed with its error.
    void models()
    {
        for (const QString& format : {QStringLiteral("model_json"), QStringLiteral("maestro_mapping")}) {
            const auto all = cases(format);
            QVERIFY(all.size() >= 5);
            for (const auto& [file, expected] : all) {
                MainWindow w;
                w.editor()->setPlainText(kWork);
                QString shown;
                if (!w.loadModel(path(format, file))) {
                    shown = w.lastError();
                    QCOMPARE(w.editor()->toPlainText(), kWork);
                } else {
                    bool allOk = true;
                    for (int row = 0; row < w.modelTable()->rowCount(); ++row) {
                        const QString status
                            = w.modelTable()->index(row, ModelTableModel::Status).data().toString();
                        allOk = allOk && !status.startsWith(QStringLiteral("error"));
                        shown += status + '\n';
                    }
                    // The app reads a mapping file as a model, which has no directives: only an error
                    // in what the directives map (found when evaluating them) may go unseen.
                    static const QRegularExpression directive(
                        QStringLiteral("(Spatial|Temporal)Map|Cluster|cluster level"));
                    if (allOk && directive.match(expected).hasMatch()) continue;
                }
                // Read as a model rather than evaluated, a file can be refused for a related reason: the
                // place (file and line:col) must be the same.
                static const QRegularExpression located(QStringLiteral("^(:\\d+:\\d+:)"));
                const QRegularExpressionMatch at = located.match(expected);
                const QString want = file + (at.hasMatch() ? at.captured(1) : expected);
                QVERIFY2(shown.contains(want), qPrintable(file + ": " + expected + " | " + shown));
            }
        }
    }

    /// Operators: the editor keeps the text as written and lists the error at its line:col; a file that
    /// is not text (a NUL byte, invalid UTF-8) is refused with the CLI's message and the editor keeps the
    /// work it had.
    void operators()
    {
        const auto all = cases(QStringLiteral("operator"));
        QVERIFY(all.size() >= 5);
        int refused = 0;
        for (const auto& [file, expected] : all) {
            MainWindow w;
            const QString p = path(QStringLiteral("operator"), file);
            if (expected.contains(QStringLiteral("NUL byte")) || expected.contains(QStringLiteral("UTF-8"))) {
                w.editor()->setPlainText(kWork);
                QVERIFY2(!w.openFile(p), qPrintable(file));
                QVERIFY2(w.lastError().contains(file + expected), qPrintable(file + ": " + w.lastError()));
                QCOMPARE(w.editor()->toPlainText(), kWork);
                ++refused;
                continue;
            }
            QVERIFY(w.openFile(p));
            QFile f(p);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(w.editor()->toPlainText(), QString::fromUtf8(f.readAll()));
            QString listed;
            for (int i = 0; i < w.diagnosticsList()->count(); ++i)
                listed += w.diagnosticsList()->item(i)->text() + '\n';
            QVERIFY2(listed.contains(expected), qPrintable(file + ": " + expected + " | " + listed));
        }
        QCOMPARE(refused, 3); // nul_byte.loop, binary.loop (a PNG), latin1.loop
    }
};

QTEST_MAIN(TestBadInputApp)
#include "tst_bad_input_app.moc"
