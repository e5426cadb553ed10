// Where each panel goes: the centre's tabs (plot, animation, sweep) and the dock widgets around them,
// with the default sizes a first session starts with.
#include <algorithm>

#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>

#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/animation/pe_array_view.h"
#include "ui/ddg/graph_view.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_panel.h"

namespace marvel::ui {

void MainWindow::buildCentre()
{
    m_plot = new ParetoPlot;
    // The centre shows the search's trade-off or the selected mapping moving data: the two views a user
    // looks at longest.
    m_animation = new AnimationPanel;
    m_centre = new QTabWidget;
    m_centre->setDocumentMode(true);
    m_centre->addTab(m_plot, tr("Runtime vs energy"));
    m_centre->addTab(m_animation, tr("Animation"));
    m_sweepPanel = new SweepPanel;
    m_centre->addTab(m_sweepPanel, tr("Design sweep"));
    setCentralWidget(m_centre);
    // Picking the Animation tab puts the focus in it, so Space plays and the arrows step at once; text
    // being typed elsewhere (the tab shown by opening a project or a mapping file) keeps it.
    connect(m_centre, &QTabWidget::currentChanged, this, [this](int index) {
        const QWidget* focus = QApplication::focusWidget();
        if (m_centre->widget(index) != m_animation || qobject_cast<const QPlainTextEdit*>(focus)
            || qobject_cast<const QLineEdit*>(focus))
            return;
        m_animation->arrayView()->setFocus(Qt::TabFocusReason);
    });
}

void MainWindow::buildDocks()
{
    setDockNestingEnabled(true);
    auto dock = [this](const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name); // saveState() keys docks by name
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    QDockWidget* op
        = dock(tr("Operator"), QStringLiteral("operator"), m_operatorPane, Qt::LeftDockWidgetArea);
    QDockWidget* ddg
        = dock(tr("Dimension dependence graph"), QStringLiteral("ddg"), m_ddg, Qt::LeftDockWidgetArea);
    m_searchPanel = new SearchPanel;
    m_accelerator = new AcceleratorPanel;
    QDockWidget* searchDock
        = dock(tr("Search"), QStringLiteral("search"), m_searchPanel, Qt::RightDockWidgetArea);
    // Scrolls rather than forcing the window taller than a laptop screen.
    auto* accScroll = new QScrollArea;
    accScroll->setWidget(m_accelerator);
    accScroll->setWidgetResizable(true);
    accScroll->setFrameShape(QFrame::NoFrame);
    accScroll->setMinimumHeight(160);
    accScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Without a horizontal scroll bar, the dock must be wide enough for every field and button.
    accScroll->setMinimumWidth(
        m_accelerator->minimumSizeHint().width() + accScroll->verticalScrollBar()->sizeHint().width() + 2);
    QDockWidget* accDock
        = dock(tr("Accelerator"), QStringLiteral("accelerator"), accScroll, Qt::RightDockWidgetArea);
    m_mappingView = new MappingView;
    QDockWidget* mappingDock
        = dock(tr("Selected mapping"), QStringLiteral("mapping"), m_mappingView, Qt::BottomDockWidgetArea);
    QDockWidget* modelDock
        = dock(tr("Model"), QStringLiteral("model"), buildModelPanel(), Qt::BottomDockWidgetArea);
    tabifyDockWidget(mappingDock, modelDock);
    mappingDock->raise();
    connect(m_mappingView, &MappingView::directiveSelected, m_animation, &AnimationPanel::highlightDirective);
    // The accelerator has the right column to itself, so that all its fields show without scrolling from
    // 1440x900 up: an architect tunes them while watching the plot. The search settings share the left
    // column's lower half with the DDG, as tabs; the search is raised (its progress and Run button), the
    // DDG is one click away beside the operator it explains.
    splitDockWidget(op, searchDock, Qt::Vertical);
    tabifyDockWidget(searchDock, ddg);
    searchDock->raise();
    // The Model and Selected mapping panels span the window's width, so that a model's table shows every
    // column (the styles' included) at 1440 pixels. Sizes: applyDefaultDockSizes.
    m_docks = {op, ddg, searchDock, accDock, mappingDock, modelDock};
}

void MainWindow::applyDefaultDockSizes()
{
    // Dock sizes given before the window has its size are scaled away when it gets it, which left the
    // Model and Selected mapping panels two rows high; they are set once the window is sized.
    // A fifth of the window up to 900 pixels; beyond, most of the extra height goes to the bottom panel,
    // so that at 1080 the selected mapping's loop nest, directives (a 4-level convolution has about 28)
    // and cost show without scrolling.
    const int bottom = std::max(190, height() * 22 / 100 + std::max(0, height() - 900) * 8 / 5);
    // On a wide window the model table has its columns' width beside the accelerator column, which then
    // runs the whole height: the taller bottom panel must not take the accelerator's fields.
    // The search settings get their natural height.
    const int search = m_docks[2]->widget()->sizeHint().height() + 40;
    if (width() >= 1700) {
        setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
        // ... and the search settings go under the accelerator, which leaves the left column to the
        // operator and its DDG, as at smaller sizes the DDG is a tab away.
        splitDockWidget(m_docks[3], m_docks[2], Qt::Vertical);
        resizeDocks({m_docks[0], m_docks[3]}, {420, 360}, Qt::Horizontal);
        resizeDocks({m_docks[0], m_docks[1]}, {(height() - bottom) * 3 / 5, (height() - bottom) * 2 / 5},
            Qt::Vertical);
        resizeDocks({m_docks[3], m_docks[2]}, {height() - search, search}, Qt::Vertical);
    } else {
        resizeDocks({m_docks[0], m_docks[3]}, {360, 340}, Qt::Horizontal);
        // The operator takes what the search settings leave of the column.
        resizeDocks(
            {m_docks[0], m_docks[2]}, {std::max(200, height() - bottom - search), search}, Qt::Vertical);
    }
    resizeDocks({m_docks[4]}, {bottom}, Qt::Vertical);
}

} // namespace marvel::ui
