// MainWindow's frame: construction in order, the window's lifetime (show, close, destruction) and the
// few helpers every part uses. The parts live in ui/window/ (see main_window.h for which owns what).
#include "ui/main_window.h"

#include <algorithm>

#include <QCloseEvent>
#include <QFileInfo>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>

#include "importers/onnx/onnx_import.h"
#include "ui/samples_dir.h"
#include "ui/search/search_controller.h"

namespace marvel::ui {

namespace {
/// Version of the dock arrangement in saved window states: a layout saved by an older arrangement (the
/// search and accelerator stacked on the right; docks that a long layer name had widened past the screen)
/// is not restored over the current one.
constexpr int kLayoutVersion = 3;
/// A window resized by dragging its edge is rearranged once the drag pauses this long.
constexpr int kArrangeDelayMs = 120;
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
    wireCodesign();
    startAnalysisTimer();
    startAutosave();
    buildMenus();
    analyseNow();
    updateTitle();
    m_arrangeTimer = new QTimer(this);
    m_arrangeTimer->setSingleShot(true);
    m_arrangeTimer->setInterval(kArrangeDelayMs);
    connect(m_arrangeTimer, &QTimer::timeout, this, &MainWindow::rearrangeForSize);
    QSettings settings;
    const bool placed = restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    m_layoutRestored
        = restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    if (m_layoutRestored)
        m_arrangement = Arrangement(settings.value(QStringLiteral("window/arrangement")).toInt());
    if (placed) {
        // Saved on a larger screen, or with docks that had widened the window: it fits this one, and the
        // docks get the sizes of the arrangement rather than their old ones, too wide for it.
        if (fitToScreen()) m_stateChanged = true;
    } else if (const QScreen* s = screen()) {
        // The window's frame is not known before it shows; a title bar's height is a fair guess.
        const QMargins frame(0, style()->pixelMetric(QStyle::PM_TitleBarHeight), 0, 0);
        QRect wanted(QPoint(), kPreferredSize);
        wanted.moveCenter(s->availableGeometry().center());
        setGeometry(fittedGeometry(wanted, s->availableGeometry(), minimumSizeHint(), frame));
    }
    m_chosenGeometry = geometry();
}

QRect MainWindow::fittedGeometry(
    const QRect& wanted, const QRect& available, const QSize& minimum, const QMargins& frame)
{
    const QRect room = available.marginsRemoved(frame);
    QRect fitted(wanted.topLeft(), wanted.size().boundedTo(room.size()).expandedTo(minimum));
    if (!room.contains(fitted)) {
        fitted.moveCenter(room.center());
        // A window larger than the screen keeps its title bar and left edge on it.
        fitted.moveTopLeft(QPoint(std::max(fitted.left(), room.left()), std::max(fitted.top(), room.top())));
    }
    return fitted;
}

bool MainWindow::fitToScreen()
{
    const QScreen* s = screen();
    if (!s || isMaximized() || isFullScreen()) return false;
    // Once shown, the frame the window manager gave it; before, none is known.
    const QRect outer = isVisible() ? frameGeometry() : geometry();
    const QRect inner = geometry();
    const QMargins frame(inner.left() - outer.left(), inner.top() - outer.top(),
        outer.right() - inner.right(), outer.bottom() - inner.bottom());
    const QRect fitted = fittedGeometry(inner, s->availableGeometry(), minimumSizeHint(), frame);
    const bool moved = fitted != inner;
    if (moved) setGeometry(fitted);
    m_chosenGeometry = geometry();
    return moved;
}

MainWindow::~MainWindow()
{
    m_recovery.discard();
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!m_chosenGeometry.isNull() && geometry() == m_chosenGeometry) {
        // The geometry the window chose (not one asked for, as --size does): once shown, its frame is
        // known, and the window with its frame fits the screen. A window manager may add the frame only
        // after mapping the window: once more when the events so far are handled.
        fitToScreen();
        QTimer::singleShot(0, this, [this] {
            if (geometry() == m_chosenGeometry) fitToScreen();
            m_chosenGeometry = {};
        });
    } else {
        m_chosenGeometry = {};
    }
    // The first show: the arrangement for the size the window opens at (a restored layout of the same
    // arrangement stays as it was saved).
    rearrangeForSize();
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    if (isVisible()) m_arrangeTimer->start();
}

void MainWindow::changeEvent(QEvent* event)
{
    QMainWindow::changeEvent(event);
    if (event->type() != QEvent::WindowStateChange) return;
    // Maximised or restored: the docks get the sizes of the new window size, not only the centre.
    m_stateChanged = true;
    m_arrangeTimer->start();
}

void MainWindow::rearrangeForSize()
{
    if (!isVisible()) return;
    m_arrangeTimer->stop();
    const Arrangement wanted = width() >= kWideWidth ? Arrangement::Wide : Arrangement::Narrow;
    if (wanted != m_arrangement) {
        arrangeDocks(wanted);
    } else if (m_stateChanged) {
        applyDefaultDockSizes();
    }
    m_stateChanged = false;
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
    settings.setValue(QStringLiteral("window/arrangement"), int(m_arrangement));
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
