// Where each panel goes: the centre's tabs (plot, animation, sweep) and the dock widgets around them,
// with the default sizes a first session starts with.
#include <algorithm>

#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTabWidget>

#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/animation/pe_array_view.h"
#include "ui/codesign/codesign_panel.h"
#include "ui/ddg/graph_view.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_panel.h"

namespace marvel::ui {

namespace {
/// `widget` in a frameless scroll area that gives it all its room and scrolls when there is less than its
/// minimum (`horizontal`: also sideways).
QScrollArea* scrolling(QWidget* widget, bool horizontal = true)
{
    auto* area = new QScrollArea;
    area->setWidget(widget);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    if (!horizontal) {
        area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        // Without a horizontal scroll bar, the area must be wide enough for every field and button.
        area->setMinimumWidth(
            widget->minimumSizeHint().width() + area->verticalScrollBar()->sizeHint().width() + 2);
    }
    return area;
}
} // namespace

void MainWindow::showCentre(QWidget* view)
{
    for (int i = 0; i < m_centre->count(); ++i)
        if (m_centre->widget(i) == view || m_centre->widget(i)->isAncestorOf(view))
            m_centre->setCurrentIndex(i);
}

void MainWindow::buildCentre()
{
    m_plot = new ParetoPlot;
    // The centre shows the search's trade-off or the selected mapping moving data: the two views a user
    // looks at longest.
    m_animation = new AnimationPanel;
    m_centre = new QTabWidget;
    m_centre->setDocumentMode(true);
    m_centre->addTab(m_plot, tr("Runtime vs energy"));
    m_sweepPanel = new SweepPanel;
    // A tab's minimum is every tab's: the animation's controls and the sweep's two figures scroll on a
    // small screen rather than making the plot's tab, and the window, larger than it.
    m_centre->addTab(scrolling(m_animation), tr("Animation"));
    m_centre->addTab(scrolling(m_sweepPanel), tr("Design sweep"));
    m_codesignPanel = new CodesignPanel;
    m_centre->addTab(scrolling(m_codesignPanel), tr("Co-design"));
    setCentralWidget(m_centre);
    // Picking the Animation tab puts the focus in it, so Space plays and the arrows step at once; text
    // being typed elsewhere (the tab shown by opening a project or a mapping file) keeps it.
    connect(m_centre, &QTabWidget::currentChanged, this, [this](int index) {
        const QWidget* focus = QApplication::focusWidget();
        if (!m_centre->widget(index)->isAncestorOf(m_animation) || qobject_cast<const QPlainTextEdit*>(focus)
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
    // Both scroll rather than forcing the window taller than a laptop screen.
    QScrollArea* searchScroll = scrolling(m_searchPanel, false);
    searchScroll->setMinimumHeight(120);
    QDockWidget* searchDock
        = dock(tr("Search"), QStringLiteral("search"), searchScroll, Qt::RightDockWidgetArea);
    QScrollArea* accScroll = scrolling(m_accelerator, false);
    accScroll->setMinimumHeight(160);
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
    // The narrow arrangement until the window shows at its size (arrangeDocks).
    splitDockWidget(op, searchDock, Qt::Vertical);
    tabifyDockWidget(searchDock, ddg);
    searchDock->raise();
    // The tab the user picks stays on top when the docks are arranged again.
    auto raisedTab = [this](QDockWidget* dock, QDockWidget* sharing, bool ddgOnTop) {
        connect(dock, &QDockWidget::visibilityChanged, this, [this, dock, sharing, ddgOnTop](bool visible) {
            if (visible && !dock->isFloating() && tabifiedDockWidgets(dock).contains(sharing))
                m_ddgOnTop = ddgOnTop;
        });
    };
    raisedTab(ddg, searchDock, true);
    raisedTab(searchDock, ddg, false);
    m_docks = {op, ddg, searchDock, accDock, mappingDock, modelDock};
}

void MainWindow::arrangeDocks(Arrangement arrangement)
{
    QDockWidget* op = m_docks[0];
    QDockWidget* ddg = m_docks[1];
    QDockWidget* search = m_docks[2];
    QDockWidget* acc = m_docks[3];
    // Moving the docks shows and hides them: the tab on top is the one chosen before.
    const bool ddgOnTop = m_ddgOnTop;
    // A dock the user floated stays where it floats; the others go where the arrangement has them.
    auto docked = [](std::initializer_list<QDockWidget*> docks) {
        return std::none_of(docks.begin(), docks.end(), [](QDockWidget* d) { return d->isFloating(); });
    };
    if (docked({acc}) && dockWidgetArea(acc) != Qt::RightDockWidgetArea)
        addDockWidget(Qt::RightDockWidgetArea, acc);
    if (docked({op}) && dockWidgetArea(op) != Qt::LeftDockWidgetArea)
        addDockWidget(Qt::LeftDockWidgetArea, op);
    if (arrangement == Arrangement::Wide) {
        // The model table has its columns' width beside the accelerator column, which runs the whole
        // height with the search settings under it: the left column is the operator's and its DDG's.
        setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
        if (docked({op, ddg})) splitDockWidget(op, ddg, Qt::Vertical);
        if (docked({acc, search})) splitDockWidget(acc, search, Qt::Vertical);
    } else {
        // The accelerator has the right column to itself, so that all its fields show without scrolling
        // from 1440x900 up: an architect tunes them while watching the plot. The search settings share the
        // left column's lower half with the DDG, as tabs; the search is raised (its progress and Run
        // button), the DDG is one click away beside the operator it explains. The Model and Selected
        // mapping panels span the window's width, so that a model's table shows every column.
        setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
        if (docked({op, search})) splitDockWidget(op, search, Qt::Vertical);
        if (docked({search, ddg})) tabifyDockWidget(search, ddg);
        (ddgOnTop ? ddg : search)->raise(); // an operator file opened shows its DDG (openFile)
    }
    m_ddgOnTop = ddgOnTop;
    m_arrangement = arrangement;
    applyDefaultDockSizes();
}

void MainWindow::applyDefaultDockSizes()
{
    // Dock sizes given before the window has its size are scaled away when it gets it, which left the
    // Model and Selected mapping panels two rows high; they are set once the window is sized.
    // A fifth of the window up to 900 pixels; up to 1080, most of the extra height goes to the bottom
    // panel, so that at 1080 the selected mapping's loop nest, directives (a 4-level convolution has
    // about 28) and cost show without scrolling; beyond, the bottom panel takes a fifth of the extra
    // height (more table rows), the plot the rest.
    const int h = height();
    const int bottom = std::max(190, h * 22 / 100 + std::clamp(h - 900, 0, 180) * 8 / 5);
    // The search settings get their natural height.
    const int search = m_searchPanel->sizeHint().height() + 40;
    if (m_arrangement == Arrangement::Wide) {
        // Beyond 1920 pixels the operator's column widens too (its loop nest's lines are long), the
        // accelerator's a little; the plot keeps most of the width.
        const int extra = std::max(0, width() - 1920);
        resizeDocks({m_docks[0], m_docks[3]}, {420 + extra * 3 / 10, 360 + extra / 10}, Qt::Horizontal);
        resizeDocks({m_docks[0], m_docks[1]}, {(h - bottom) * 3 / 5, (h - bottom) * 2 / 5}, Qt::Vertical);
        // The accelerator's fields, then the search settings right under them, which take the rest.
        // Sizes that do not add up to the column's height are scaled to it: they do.
        const int column = h - menuBar()->height() - statusBar()->height();
        const int accelerator = std::min(column - search,
            m_accelerator->minimumSizeHint().expandedTo(m_accelerator->sizeHint()).height() + 30);
        resizeDocks({m_docks[3], m_docks[2]}, {accelerator, column - accelerator}, Qt::Vertical);
    } else {
        // Below 1440 pixels the operator's column gives up to 30 of its 360 to the centre (the sweep's
        // controls and figures); more would wrap the rules' reasons so that a failing rule's row no longer
        // fits the rules table's view at 1280x800.
        const int operatorWidth = std::clamp(360 - (1440 - width()) * 3 / 8, 330, 360);
        resizeDocks({m_docks[0], m_docks[3]}, {operatorWidth, 340}, Qt::Horizontal);
        // The operator takes what the search settings leave of the column.
        resizeDocks({m_docks[0], m_docks[2]}, {std::max(200, h - bottom - search), search}, Qt::Vertical);
    }
    resizeDocks({m_docks[4]}, {bottom}, Qt::Vertical);
}

} // namespace marvel::ui
