// Crash recovery: the unsaved work written every few seconds to this window's recovery file, and
// restored (on request) from the file of a session that ended without saving.
#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

#include "ui/editor/code_editor.h"
#include "ui/main_window.h"

namespace marvel::ui {

namespace {
constexpr int kAutosaveMs = 5000; ///< at most this much unsaved work is lost when the app is killed
} // namespace

void MainWindow::startAutosave()
{
    m_autosaveTimer = new QTimer(this);
    const int autosaveMs = qEnvironmentVariableIntValue("MARVEL_AUTOSAVE_MS");
    m_autosaveTimer->setInterval(autosaveMs > 0 ? autosaveMs : kAutosaveMs);
    connect(m_autosaveTimer, &QTimer::timeout, this, &MainWindow::autosaveNow);
    m_autosaveTimer->start();
}

QByteArray MainWindow::recoveryContent() const
{
    nlohmann::json j;
    j["format"] = "marvel-studio-recovery";
    j["version"] = 1;
    j["project_file"] = m_projectFile.toStdString();
    j["saved_at"] = QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
    j["project"] = nlohmann::json::parse(project::writeProject(currentProject()));
    return QByteArray::fromStdString(j.dump(1));
}

void MainWindow::autosaveNow()
{
    if (hasUnsavedChanges())
        m_recovery.write(recoveryContent());
    else
        m_recovery.discard();
}

bool MainWindow::restoreRecovery(const QString& path)
{
    QFile file(path);
    project::Project p;
    QString projectFile;
    try {
        if (!file.open(QIODevice::ReadOnly))
            throw InputError(Diagnostic{path.toStdString(), {}, {}, file.errorString().toStdString()});
        const nlohmann::json j = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
        if (!j.is_object() || j.value("format", "") != "marvel-studio-recovery" || !j.contains("project"))
            throw InputError(
                Diagnostic{path.toStdString(), {}, "format", "not a Marvel Studio recovery file"});
        p = project::readProject(j["project"].dump(), path.toStdString());
        projectFile = QString::fromStdString(j.value("project_file", ""));
    } catch (const InputError& e) {
        reportError(tr("Cannot restore"), QString::fromStdString(e.what()));
        return false;
    }
    applyProject(p);
    // The restored work is unsaved until the user saves it.
    m_projectFile = projectFile;
    m_settingsDirty = true;
    m_editor->document()->setModified(true);
    updateTitle();
    QFile::remove(path);
    autosaveNow();
    statusBar()->showMessage(tr("Restored the unsaved work of a session that ended without saving"), 6000);
    return true;
}

bool MainWindow::offerRecovery()
{
    const QStringList orphans = RecoveryStore::orphans();
    if (orphans.isEmpty()) return false;
    QMessageBox box(QMessageBox::Question, tr("Restore unsaved work?"),
        tr("Marvel Studio ended without saving your last changes (%1). Restore them?")
            .arg(QFileInfo(orphans.first()).lastModified().toString(QStringLiteral("yyyy-MM-dd hh:mm:ss"))),
        QMessageBox::NoButton, this);
    QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
    QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box.addButton(tr("Ask Again Later"), QMessageBox::RejectRole);
    box.setDefaultButton(restore);
    box.exec();
    if (box.clickedButton() == discard) {
        for (const QString& path : orphans)
            QFile::remove(path);
        return false;
    }
    return box.clickedButton() == restore && restoreRecovery(orphans.first());
}

} // namespace marvel::ui
