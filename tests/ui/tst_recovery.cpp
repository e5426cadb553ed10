// Crash-safe editing: a window writes its unsaved work to a recovery file every few seconds; after the
// process is killed (SIGKILL, nothing runs at exit) the next start finds the file and restores the
// editor text, the accelerator and the settings, still unsaved. Saving or closing removes the file.
//
// The killed process is this test binary started again with --child: it opens a window, edits, and
// waits to be killed.
#include <string_view>

#include <QApplication>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/ui_samples.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/recovery/recovery_store.h"
#include "ui/search/search_panel.h"

using namespace marvel;
using namespace marvel::ui;

using uitest::kGemm;
namespace {
const QString kEdit = QStringLiteral("// unsaved edit 4711");

/// The process the test kills: edits the GEMM operator and the PE count, then runs until killed.
int runChild(int argc, char** argv)
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    MainWindow window;
    window.openFile(kGemm);
    window.editor()->appendPlainText(kEdit);
    qobject_cast<QSpinBox*>(window.acceleratorPanel()->field(QStringLiteral("num_pes")))->setValue(300);
    window.autosaveNow(); // the timer would do it within MARVEL_AUTOSAVE_MS as well
    return app.exec();
}

void removeRecoveryFiles()
{
    QDir(RecoveryStore::directory()).removeRecursively();
}
} // namespace

class TestRecovery : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        removeRecoveryFiles();
    }

    void killedSessionIsRestored()
    {
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MARVEL_AUTOSAVE_MS"), QStringLiteral("200"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--child")});
        QVERIFY(child.waitForStarted(10000));
        const QString file
            = RecoveryStore::directory() + QStringLiteral("/session-%1.json").arg(child.processId());
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(file), 30000);
        QVERIFY(RecoveryStore::orphans().isEmpty()); // its process still runs: not offered
        child.kill(); // SIGKILL: no clean-up code runs
        QVERIFY(child.waitForFinished(10000));

        QVERIFY(RecoveryStore::orphans().contains(QFileInfo(file).absoluteFilePath()));
        MainWindow w;
        QVERIFY(w.restoreRecovery(file));
        QVERIFY(w.editor()->toPlainText().contains(kEdit));
        QVERIFY(w.editor()->toPlainText().startsWith(QStringLiteral("operator gemm")));
        QCOMPARE(w.acceleratorPanel()->accelerator().numPes, 300);
        QVERIFY(w.hasUnsavedChanges()); // restored work is not saved work
        QCOMPARE(w.currentFile(), QFileInfo(kGemm).filePath());
        QVERIFY(!QFileInfo::exists(file)); // taken over by this window's own recovery file
        QVERIFY(QFileInfo::exists(w.recoveryFile()));
        QVERIFY(!RecoveryStore::orphans().contains(QFileInfo(file).absoluteFilePath()));
    }

    void savingRemovesTheRecoveryFile()
    {
        removeRecoveryFiles();
        QTemporaryDir dir;
        MainWindow w;
        QVERIFY(w.openFile(kGemm));
        w.autosaveNow();
        QVERIFY(!QFileInfo::exists(w.recoveryFile())); // nothing unsaved, nothing written
        w.editor()->appendPlainText(kEdit);
        w.autosaveNow();
        QVERIFY(QFileInfo::exists(w.recoveryFile()));
        QVERIFY(w.saveTo(dir.filePath(QStringLiteral("op.loop"))));
        QVERIFY(!QFileInfo::exists(w.recoveryFile()));
    }

    void brokenRecoveryFileIsRefused()
    {
        removeRecoveryFiles();
        QVERIFY(QDir().mkpath(RecoveryStore::directory()));
        const QString path = RecoveryStore::directory() + QStringLiteral("/session-999999999.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"something else\"}");
        f.close();
        MainWindow w;
        QVERIFY(w.openFile(kGemm));
        const QString before = w.editor()->toPlainText();
        QVERIFY(!w.restoreRecovery(path));
        QVERIFY(w.lastError().contains(QStringLiteral("session-999999999.json")));
        QVERIFY(w.lastError().contains(QStringLiteral("not a Marvel Studio recovery file")));
        QCOMPARE(w.editor()->toPlainText(), before);
        removeRecoveryFiles();
    }
};

int main(int argc, char** argv)
{
    if (argc > 1 && std::string_view(argv[1]) == "--child") return runChild(argc, argv);
    QApplication app(argc, argv);
    TestRecovery test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_recovery.moc"
