// MainWindow's frame: construction in order, the window's lifetime (show, close, destruction) and the
// few helpers every part uses. The parts live in ui/window/ (see main_window.h for which owns what).
#include "ui/main_window.h"

#include <QCloseEvent>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>

#include "importers/onnx/onnx_import.h"
#include "ui/samples_dir.h"
#include "ui/search/search_controller.h"

namespace marvel::ui {

namespace {
/// Version of the dock arrangement in saved window states: a layout saved by an older arrangement (the
/// search and accelerator stacked on the right) is not restored over the current one.
constexpr int kLayoutVersion = 2;
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    // Model files of every format the CLI reads, ONNX included (a second window registers again: harmless).
    onnx_import::registerOnnxReader();
    setAcceptDrops(true);
    buildOperatorPane();
    buildCentre();
    buildDocks();
    wireSearch();
    wireSweep();
    startAnalysisTimer();
    startAutosave();
    buildMenus();
    resize(1440, 900);
    analyseNow();
    updateTitle();
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    m_layoutRestored
        = restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
}

MainWindow::~MainWindow()
{
    m_recovery.discard();
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (m_layoutRestored || m_defaultLayoutApplied) return;
    m_defaultLayoutApplied = true;
    applyDefaultDockSizes();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!confirmDiscard()) {
        event->ignore();
        return;
    }
    m_controller->cancel();
    m_recovery.discard(); // saved or deliberately discarded
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
    event->accept();
}

void MainWindow::reportError(const QString& title, const QString& message)
{
    m_lastError = message;
    statusBar()->showMessage(message);
    // Not modal: the work in the window stays usable (and tests are not blocked).
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

QString MainWindow::samplesDirectory()
{
    return samplesRoot() + QStringLiteral("/operators");
}

QString MainWindow::projectSamplesDirectory()
{
    return QFileInfo(samplesDirectory()).path() + QStringLiteral("/projects");
}

} // namespace marvel::ui
