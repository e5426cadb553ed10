// Where each panel goes: the centre's tabs (plot, animation, sweep) and the dock widgets around them,
// with the default sizes a first session starts with.
#include <algorithm>

#include <QDockWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>

#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
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
    splitDockWidget(op, ddg, Qt::Vertical);
    splitDockWidget(searchDock, accDock, Qt::Vertical);
    // The Model and Selected mapping panels span the window's width, so that a model's table shows every
    // column (the styles' included) at 1440 pixels. Sizes: applyDefaultDockSizes.
    m_docks = {op, ddg, searchDock, accDock, mappingDock, modelDock};
}

void MainWindow::applyDefaultDockSizes()
{
    // Dock sizes given before the window has its size are scaled away when it gets it, which left the
    // Model and Selected mapping panels two rows high; they are set once the window is sized.
    const int bottom = std::max(190, height() * 22 / 100);
    resizeDocks({m_docks[0], m_docks[2]}, {360, 340}, Qt::Horizontal);
    resizeDocks({m_docks[0], m_docks[1]}, {500, 300}, Qt::Vertical);
    resizeDocks({m_docks[2], m_docks[3]}, {300, 600}, Qt::Vertical);
    resizeDocks({m_docks[4]}, {bottom}, Qt::Vertical);
}

} // namespace marvel::ui
