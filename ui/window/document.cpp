// The operator document: new, open, save and the unsaved-changes prompt, the window title that shows
// them, templates, and the list of recent files.
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>

#include "core/util/text_file.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"

namespace marvel::ui {

namespace {
const QString kRecentFilesKey = QStringLiteral("files/recent");
constexpr int kMaxRecentFiles = 10;
} // namespace

void MainWindow::leaveProjectAndModel()
{
    if (!m_modelName.isEmpty()) loadModel({});
    m_projectFile.clear();
}

void MainWindow::newOperator()
{
    if (!confirmDiscard()) return;
    leaveProjectAndModel();
    m_editor->clear();
    m_editor->document()->setModified(false);
    m_file.clear();
    updateTitle();
    analyseNow();
}

void MainWindow::openDialog()
{
    if (!confirmDiscard()) return;
    const QString start = m_file.isEmpty() ? samplesDirectory() : QFileInfo(m_file).path();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open operator or project"), start,
        tr("Operators and projects (*.loop *.json);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path)
{
    if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) {
        // A JSON model (a "layers" list, no project "workload") opens in the Model panel.
        QFile json(path);
        if (json.open(QIODevice::ReadOnly)) {
            const QJsonObject top = QJsonDocument::fromJson(json.read(1 << 24)).object();
            if (top.contains(QStringLiteral("layers")) && !top.contains(QStringLiteral("workload"))) {
                m_sequence = {};
                return loadModel(path);
            }
        }
        return openProject(path);
    }
    if (path.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive)) {
        m_sequence = {};
        return loadModel(path);
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, file.errorString()));
        return false;
    }
    const QByteArray bytes = file.readAll();
    // A binary file (NUL bytes, invalid UTF-8) is refused as the operator reader refuses it, rather than
    // shown as junk in the editor; what the editor held stays.
    if (const std::optional<Diagnostic> notText = notTextDiagnostic(
            std::string_view(bytes.constData(), std::size_t(bytes.size())), path.toStdString())) {
        reportError(tr("Cannot open operator"), QString::fromStdString(notText->format()));
        return false;
    }
    leaveProjectAndModel();
    m_editor->setPlainText(QString::fromUtf8(bytes));
    m_editor->document()->setModified(false);
    m_file = path;
    m_ddgOnTop = true; // an operator file: its DDG explains the verdict
    m_docks[1]->raise();
    updateTitle();
    analyseNow();
    rememberRecentFile(path);
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::saveTo(const QString& path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(m_editor->toPlainText().toUtf8()) < 0
        || !file.commit()) {
        QMessageBox::warning(this, tr("Save failed"), tr("Cannot save %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_file = path;
    m_editor->document()->setModified(false);
    updateTitle();
    rememberRecentFile(path);
    autosaveNow();
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::save()
{
    if (!m_projectFile.isEmpty()) return saveProjectTo(m_projectFile);
    return m_file.isEmpty() ? saveAsDialog() : saveTo(m_file);
}

bool MainWindow::saveAsDialog()
{
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Save operator"), m_file, tr("Operators (*.loop)"));
    return !path.isEmpty() && saveTo(path);
}

bool MainWindow::confirmDiscard()
{
    if (!hasUnsavedChanges()) return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"), unsavedChangesText(),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::updateTitle()
{
    const QString name = !m_projectFile.isEmpty() ? QFileInfo(m_projectFile).fileName()
        : m_file.isEmpty()                        ? tr("untitled.loop")
                                                  : QFileInfo(m_file).fileName();
    setWindowTitle(tr("%1[*] - Marvel Studio").arg(name));
    setWindowModified(hasUnsavedChanges());
}

bool MainWindow::hasUnsavedChanges() const
{
    return m_editor->document()->isModified() || (!m_projectFile.isEmpty() && m_settingsDirty);
}

QString MainWindow::unsavedChangesText() const
{
    const bool text = m_editor->document()->isModified();
    const bool settings = !m_projectFile.isEmpty() && m_settingsDirty;
    QString parts = tr("settings");
    if (!m_dirtyParts.isEmpty()) {
        parts = m_dirtyParts.first();
        for (qsizetype i = 1; i < m_dirtyParts.size(); ++i)
            parts += (i + 1 == m_dirtyParts.size() ? tr(" and ") : tr(", ")) + m_dirtyParts[i];
    }
    if (text && settings)
        return tr("The operator and the project's %1 have unsaved changes. Save them first?").arg(parts);
    // Only the project's settings: the operator's text is as it was saved, and the prompt says so.
    if (settings)
        return tr(
            "The project's %1 changed since it was saved (the operator did not). Save the project first?")
            .arg(parts);
    return tr("The operator has unsaved changes. Save them first?");
}

void MainWindow::markSettingsDirty(const QString& part)
{
    if (!m_dirtyParts.contains(part)) m_dirtyParts << part;
    m_settingsDirty = true;
    updateTitle();
}

bool MainWindow::newFromTemplate(const QString& path)
{
    if (!confirmDiscard()) return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, file.errorString()));
        return false;
    }
    leaveProjectAndModel();
    m_file.clear();
    m_editor->setPlainText(QString::fromUtf8(file.readAll()));
    m_editor->document()->setModified(true); // a new operator that is not saved anywhere yet
    updateTitle();
    analyseNow();
    statusBar()->showMessage(tr("New operator from the template %1").arg(QFileInfo(path).fileName()), 4000);
    return true;
}

QStringList MainWindow::recentFiles()
{
    QStringList files = QSettings().value(kRecentFilesKey).toStringList();
    files.removeIf([](const QString& path) { return !QFileInfo::exists(path); });
    return files;
}

void MainWindow::rememberRecentFile(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(kRecentFilesKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(kRecentFilesKey, files);
}

void MainWindow::forgetRecentFiles()
{
    QSettings().remove(kRecentFilesKey);
}

} // namespace marvel::ui
