// The menu bar: File (operators, projects, samples, templates, export), Edit, Search, View (a toggle per
// dock) and Help.
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>

#include "core/mdc/maestro_io.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"

namespace marvel::ui {

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newOperator);
    file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::openDialog);
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString& path : recentFiles()) {
            recent->addAction(QDir::toNativeSeparators(path), this, [this, path] {
                if (confirmDiscard()) openFile(path);
            });
        }
        if (recent->isEmpty()) {
            recent->addAction(tr("No recent files"))->setEnabled(false);
        } else {
            recent->addSeparator();
            recent->addAction(tr("Clear the list"), this, [] { forgetRecentFiles(); });
        }
    });
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    // Listed when opened, so samples added while the app runs show up.
    connect(samples, &QMenu::aboutToShow, this, [this, samples] {
        samples->clear();
        auto list = [this, samples](const QString& folder, const QString& pattern) {
            const QDir dir(folder);
            for (const QFileInfo& info : dir.entryInfoList({pattern}, QDir::Files, QDir::Name)) {
                const QString path = info.absoluteFilePath();
                samples->addAction(info.fileName(), this, [this, path] {
                    if (confirmDiscard()) openFile(path);
                });
            }
        };
        list(samplesDirectory(), QStringLiteral("*.loop"));
        samples->addSection(tr("Projects"));
        list(projectSamplesDirectory(), QStringLiteral("*.json"));
        samples->addSection(tr("Mappings to animate (on the accelerator shown)"));
        const QDir mappings(samplesDirectory() + QStringLiteral("/../mappings"));
        for (const QFileInfo& info :
            mappings.entryInfoList({QStringLiteral("*.m")}, QDir::Files, QDir::Name)) {
            const QString path = info.absoluteFilePath();
            samples->addAction(info.fileName(), this, [this, path] { animateMappingFile(path); });
        }
    });
    buildEditMenu(file);
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAsDialog);
    file->addAction(tr("Save &Project As..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save project"), m_projectFile, tr("Marvel Studio projects (*.json)"));
        if (!path.isEmpty()) saveProjectTo(path);
    });
    file->addAction(tr("&Animate a MAESTRO Mapping..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Animate a MAESTRO mapping"), {}, tr("MAESTRO mappings (*.m);;All files (*)"));
        if (path.isEmpty()) return;
        QString layer;
        try {
            const mdc::Network net = mdc::readMaestroMappingFile(path.toStdString());
            if (net.layers.size() > 1) {
                QStringList names;
                for (const mdc::Layer& l : net.layers)
                    names << QString::fromStdString(l.name);
                bool ok = false;
                layer = QInputDialog::getItem(
                    this, tr("Animate a MAESTRO mapping"), tr("Layer:"), names, 0, false, &ok);
                if (!ok) return;
            }
        } catch (const InputError&) {
            // animateMappingFile reports it
        }
        animateMappingFile(path, layer);
    });
    file->addAction(tr("&Export Selected Mapping..."), this, [this] {
        QString filter = mappingExportFilters().front();
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export mapping"), {}, mappingExportFilters().join(QStringLiteral(";;")), &filter);
        if (path.isEmpty()) return;
        const auto [target, format] = mappingExportTarget(path, filter);
        exportMapping(target, format);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* searchMenu = menuBar()->addMenu(tr("&Search"));
    QAction* run = searchMenu->addAction(tr("&Run search"), this, &MainWindow::runSearch);
    run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    run->setShortcutContext(Qt::WidgetShortcut); // the window-wide QShortcut handles the key
    QAction* cancel = searchMenu->addAction(tr("&Cancel"), this, &MainWindow::cancelSearch);
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setShortcutContext(Qt::WidgetShortcut);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : m_docks)
        m_viewMenu->addAction(d->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("The &MDC notation"), QKeySequence::HelpContents, this, [this] { showGuide(); });
    help->addAction(tr("&Keyboard shortcuts"), this, [this] { showShortcuts(); });
    help->addSeparator();
    help->addAction(tr("&About Marvel Studio"), this, [this] {
        QFile about(QStringLiteral(":/marvel/about.html"));
        about.open(QIODevice::ReadOnly);
        QMessageBox::about(this, tr("About Marvel Studio"), QString::fromUtf8(about.readAll()));
    });
}

// File > New from Template and the Edit menu.
void MainWindow::buildEditMenu(QMenu* file)
{
    m_templatesMenu = file->addMenu(tr("New from &Template"));
    auto fillTemplates = [this] {
        m_templatesMenu->clear();
        bool section = false;
        for (const QString& path : operatorTemplates(samplesDirectory())) {
            if (!section && QFileInfo(path).dir() != QDir(samplesDirectory())) {
                m_templatesMenu->addSection(tr("Not conformable"));
                section = true;
            }
            m_templatesMenu->addAction(
                QFileInfo(path).completeBaseName(), this, [this, path] { newFromTemplate(path); });
        }
    };
    fillTemplates();
    connect(m_templatesMenu, &QMenu::aboutToShow, this, fillTemplates);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = edit->addAction(tr("&Undo"), QKeySequence::Undo, m_editor, &QPlainTextEdit::undo);
    QAction* redo = edit->addAction(
        tr("&Redo"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), m_editor, &QPlainTextEdit::redo);
    undo->setEnabled(false);
    redo->setEnabled(false);
    connect(m_editor, &QPlainTextEdit::undoAvailable, undo, &QAction::setEnabled);
    connect(m_editor, &QPlainTextEdit::redoAvailable, redo, &QAction::setEnabled);
    edit->addSeparator();
    edit->addAction(m_editor->findAction()); // Ctrl+F
}

} // namespace marvel::ui
