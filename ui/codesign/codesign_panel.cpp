#include "ui/codesign/codesign_panel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/arch/accelerator_io.h"
#include "core/tech/technology.h"
#include "core/util/diagnostic.h"
#include "ui/plot/plot_layout.h"
#include "ui/search/result_basis.h"
#include "ui/sweep/design_labels.h"

namespace marvel::ui {

namespace {

/// The values each axis starts with: the grid of about 2,000 designs (PEs 64-4096, L1 64 B-2 KiB,
/// L2 16 KiB-4 MiB, NoC 16-512 elements per cycle), SIMD lanes and off-chip bandwidth offered unticked.
struct AxisDefault
{
    sweep::Parameter parameter;
    bool varied;
    const char* values;
};
constexpr AxisDefault kAxisDefaults[]
    = {{sweep::Parameter::Pes, true, "64:4096:x2"}, {sweep::Parameter::Simd, false, "1,2,4"},
        {sweep::Parameter::L1, true, "64:2K:x2"}, {sweep::Parameter::L2, true, "16K:4M:x2"},
        {sweep::Parameter::NocBw, true, "16:512:x2"}, {sweep::Parameter::OffchipBw, false, "16:256:x2"}};

const QColor kWithin(30, 90, 200);
const QColor kBest(200, 40, 40);

QString formatSeconds(double s)
{
    if (s < 90) return QObject::tr("%1 s").arg(s, 0, 'f', s < 10 ? 1 : 0);
    return QObject::tr("%1 min %2 s").arg(int(s) / 60).arg(int(s) % 60);
}

} // namespace

CodesignPanel::CodesignPanel(QWidget* parent)
    : QWidget(parent)
{
    // The budgets and the objective.
    m_area = new QDoubleSpinBox;
    m_area->setRange(0.001, 100000.0);
    m_area->setDecimals(3);
    m_area->setValue(1.0);
    m_area->setSuffix(tr(" mm\u00b2"));
    m_area->setToolTip(tr("The most silicon a design may take: MACs, L1 and L2 from the accelerator's "
                          "technology table (pick one in the Accelerator panel)"));
    m_powerOn = new QCheckBox(tr("Power budget"));
    m_power = new QDoubleSpinBox;
    m_power->setRange(0.001, 1000000.0);
    m_power->setDecimals(1);
    m_power->setValue(500.0);
    m_power->setSuffix(tr(" mW"));
    m_power->setEnabled(false);
    m_power->setToolTip(tr("The most average power (dynamic energy over the runtime, plus leakage) a design "
                           "may draw over the workload at the accelerator's clock"));
    m_objective = new QComboBox;
    m_objective->addItem(tr("runtime"), int(search::Objective::Runtime));
    m_objective->addItem(tr("energy"), int(search::Objective::Energy));
    m_objective->addItem(tr("EDP"), int(search::Objective::Edp));
    m_objective->setToolTip(
        tr("What the co-design minimises over the whole workload (each layer's mapping is "
           "searched for it too)"));
    m_seed = new QSpinBox;
    m_seed->setRange(1, 1000000);
    m_seed->setValue(1);
    m_seed->setToolTip(tr("The same seed, budgets and axes give the same designs, in the same order"));
    m_maxDesigns = new QSpinBox;
    m_maxDesigns->setRange(0, 1000000);
    m_maxDesigns->setSpecialValueText(tr("auto"));
    m_maxDesigns->setToolTip(tr("The most designs to search (auto: a share of the grid's designs); the "
                                "co-design may stop sooner once nothing near its best improves"));
    // The controls stack in a column beside the plot, which takes the rest of the tab's width and height.
    auto* budgets = new QFormLayout;
    budgets->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    budgets->addRow(tr("Area budget"), m_area);
    budgets->addRow(m_powerOn, m_power);
    budgets->addRow(tr("Minimise"), m_objective);
    auto* seedRow = new QHBoxLayout;
    seedRow->addWidget(m_seed, 1);
    seedRow->addWidget(new QLabel(tr("designs")));
    seedRow->addWidget(m_maxDesigns, 1);
    budgets->addRow(tr("Seed"), seedRow);

    // The axes: a tick and a range per parameter.
    auto* axes = new QGridLayout;
    int i = 0;
    for (const AxisDefault& a : kAxisDefaults) {
        auto* on = new QCheckBox(parameterLabel(a.parameter));
        on->setChecked(a.varied);
        auto* values = new QLineEdit(QString::fromLatin1(a.values));
        values->setEnabled(a.varied);
        values->setMinimumWidth(80);
        values->setToolTip(tr("Values as `marvel codesign --vary` takes them: a list (256,512,1024), a "
                              "geometric range (64K:1M:x2) or an arithmetic one (1:8:+1); K and M mean "
                              "x1024. Unticked, the accelerator panel's value is kept."));
        connect(on, &QCheckBox::toggled, values, &QLineEdit::setEnabled);
        axes->addWidget(on, i, 0);
        axes->addWidget(values, i, 1);
        m_axisOn.push_back(on);
        m_axisValues.push_back(values);
        ++i;
    }

    m_run = new QPushButton(tr("Run co-design"));
    m_run->setToolTip(tr("Search designs of the grid within the budgets, each with the whole workload mapped "
                         "by the Search panel's search, spending the searches near the best designs"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setMinimumWidth(
        m_progress->fontMetrics().horizontalAdvance(QStringLiteral("999 / 999")) + 40);
    m_status
        = new QLabel(tr("Set an area budget, tick the parameters to vary, then Run co-design: it finds the "
                        "design that minimises the objective over the workload open in the editor or "
                        "the model view, within the budgets."));
    m_status->setWordWrap(true);
    axes->setColumnStretch(1, 1);
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_run, 1);
    runRow->addWidget(m_cancel);

    // The plot: every evaluated design at its area and objective, log-log.
    m_plot = new QCustomPlot;
    m_plot->setMinimumSize(300, 260);
    m_probeGraph = m_plot->addGraph();
    m_probeGraph->setLineStyle(QCPGraph::lsNone);
    m_probeGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(230, 150, 60), 5));
    m_probeGraph->setName(tr("heaviest layers only"));
    m_outside = m_plot->addGraph();
    m_outside->setLineStyle(QCPGraph::lsNone);
    m_outside->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QColor(160, 160, 160), 6));
    m_outside->setName(tr("over a budget"));
    m_within = m_plot->addGraph();
    m_within->setLineStyle(QCPGraph::lsNone);
    m_within->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kWithin.lighter(150), 6));
    m_within->setName(tr("within budget"));
    m_frontGraph = m_plot->addGraph();
    m_frontGraph->setPen(QPen(kWithin, 1.8));
    m_frontGraph->setLineStyle(QCPGraph::lsStepLeft);
    m_frontGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kWithin, 7));
    m_frontGraph->setName(tr("front"));
    m_bestGraph = m_plot->addGraph();
    m_bestGraph->setLineStyle(QCPGraph::lsNone);
    m_bestGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(kBest, 2.2), QBrush(), 16));
    m_bestGraph->setName(tr("best within budget"));
    m_budgetLine = new QCPItemStraightLine(m_plot);
    m_budgetLine->setPen(QPen(kBest, 1.5, Qt::DashLine));
    m_budgetText = new QCPItemText(m_plot);
    m_budgetText->setColor(kBest);
    m_budgetText->setPositionAlignment(Qt::AlignTop | Qt::AlignRight);
    m_budgetText->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_budgetText->setPadding(QMargins(4, 2, 4, 2));
    m_plot->xAxis->setLabel(tr("area (mm\u00b2)"));
    setLogLogAxes(m_plot, 5);
    placeLegendBelow(m_plot);
    // Two columns: the plot shares the tab with the controls.
    m_plot->legend->setWrap(2);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    m_plot->installEventFilter(this);

    // The best design, and what to do with it.
    m_bestLabel = new QLabel(tr("No design yet."));
    m_bestLabel->setWordWrap(true);
    m_bestLabel->setTextFormat(Qt::RichText);
    m_bestLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_loadBest = new QPushButton(tr("Load into accelerator panel"));
    m_loadBest->setToolTip(tr("Load the best design into the accelerator panel and search it"));
    m_loadBest->setEnabled(false);
    m_saveBest = new QPushButton(tr("Save as accelerator..."));
    m_saveBest->setToolTip(tr("Write the best design as an accelerator file (JSON) that opens everywhere"));
    m_saveBest->setEnabled(false);
    auto* bestBox = new QVBoxLayout;
    auto* bestTitle = new QLabel(tr("<b>Best design</b>"));
    bestBox->addWidget(bestTitle);
    bestBox->addWidget(m_bestLabel);
    bestBox->addWidget(m_loadBest);
    bestBox->addWidget(m_saveBest);
    bestBox->addStretch(1);

    auto* varyTitle = new QLabel(tr("<b>Vary</b>"));
    auto* controls = new QWidget;
    controls->setFixedWidth(300);
    auto* column = new QVBoxLayout(controls);
    column->setContentsMargins(0, 0, 0, 0);
    column->addLayout(budgets);
    column->addWidget(varyTitle);
    column->addLayout(axes);
    column->addLayout(runRow);
    column->addWidget(m_progress);
    column->addWidget(m_status);
    column->addSpacing(6);
    column->addLayout(bestBox);

    m_staleNote = new QLabel;
    m_staleNote->setWordWrap(true);
    m_staleNote->setStyleSheet(QStringLiteral("color: %1; font-weight: bold").arg(kStaleNote));
    m_staleNote->setVisible(false);

    auto* figures = new QVBoxLayout;
    figures->addWidget(m_staleNote);
    figures->addWidget(m_plot, 1);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(controls);
    layout->addLayout(figures, 1);

    connect(m_powerOn, &QCheckBox::toggled, m_power, &QDoubleSpinBox::setEnabled);
    connect(m_run, &QPushButton::clicked, this, &CodesignPanel::runRequested);
    connect(m_cancel, &QPushButton::clicked, this, &CodesignPanel::cancelRequested);
    connect(m_loadBest, &QPushButton::clicked, this, [this] {
        if (m_best) emit designActivated(m_best->point.index);
    });
    connect(m_saveBest, &QPushButton::clicked, this, &CodesignPanel::saveBest);
    // The budget line follows the box at once: it shows where the next run's budget lies.
    connect(m_area, &QDoubleSpinBox::valueChanged, this, [this] {
        updateBudgetLine();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    replot();
}

codesign::Budget CodesignPanel::budget() const
{
    codesign::Budget b;
    b.areaMm2 = m_area->value();
    if (m_powerOn->isChecked()) b.powerMw = m_power->value();
    return b;
}

void CodesignPanel::setBudget(const codesign::Budget& budget)
{
    m_area->setValue(budget.areaMm2);
    m_powerOn->setChecked(budget.powerMw.has_value());
    if (budget.powerMw) m_power->setValue(*budget.powerMw);
}

search::Objective CodesignPanel::objective() const
{
    return static_cast<search::Objective>(m_objective->currentData().toInt());
}

void CodesignPanel::setObjective(search::Objective objective)
{
    m_objective->setCurrentIndex(m_objective->findData(int(objective)));
}

std::uint64_t CodesignPanel::seed() const
{
    return std::uint64_t(m_seed->value());
}

std::size_t CodesignPanel::maxDesigns() const
{
    return std::size_t(m_maxDesigns->value());
}

std::vector<sweep::Axis> CodesignPanel::axes() const
{
    std::vector<sweep::Axis> out;
    for (std::size_t i = 0; i < m_axisOn.size(); ++i) {
        if (!m_axisOn[i]->isChecked()) continue;
        const QString spec
            = parameterKey(kAxisDefaults[i].parameter) + QLatin1Char('=') + m_axisValues[i]->text();
        out.push_back(sweep::parseVary(spec.toStdString()));
    }
    if (out.empty()) throw InputError(Diagnostic{{}, {}, "axes", "tick at least one parameter to vary"});
    return out;
}

void CodesignPanel::setAxis(const QString& name, bool varied, const QString& values)
{
    for (std::size_t i = 0; i < m_axisOn.size(); ++i) {
        if (parameterKey(kAxisDefaults[i].parameter) != name) continue;
        m_axisOn[i]->setChecked(varied);
        if (!values.isEmpty()) m_axisValues[i]->setText(values);
    }
}

QString CodesignPanel::statusText() const
{
    return m_status->text();
}

QString CodesignPanel::bestText() const
{
    return m_bestLabel->text();
}

double CodesignPanel::budgetLine() const
{
    return m_budgetLine->visible() ? m_budgetLine->point1->coords().x() : std::nan("");
}

void CodesignPanel::setStale(const QString& change)
{
    if (change == m_stale) return;
    m_stale = change;
    m_staleNote->setText(staleText(change, tr("Run the co-design again to update it.")));
    m_staleNote->setVisible(!change.isEmpty());
    const QColor front = change.isEmpty() ? kWithin : QColor(kStaleGrey);
    m_frontGraph->setPen(QPen(front, 1.8));
    m_frontGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, front, 7));
    const QColor best = change.isEmpty() ? kBest : QColor(kStaleGrey);
    m_bestGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(best, 2.2), QBrush(), 16));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString CodesignPanel::staleNote() const
{
    return m_stale.isEmpty() ? QString() : m_staleNote->text();
}

void CodesignPanel::startGrid(std::shared_ptr<const sweep::Grid> grid)
{
    m_grid = std::move(grid);
    m_runBudget = budget();
    m_runObjective = objective();
    m_designs.clear();
    m_probes.clear();
    m_best.reset();
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status->setText(tr("Preparing the workload and the designs within the budgets..."));
    m_plot->yAxis->setLabel(objectiveLabel());
    updateBest();
    replot();
}

void CodesignPanel::addDesigns(const std::vector<codesign::Design>& designs)
{
    for (const codesign::Design& d : designs) {
        (d.complete ? m_designs : m_probes).push_back(d);
        if (!d.complete || !d.withinBudget) continue;
        // Least objective within budget; ties: the smaller area, then the lower grid index (the core's rule).
        const bool better = !m_best || d.objective < m_best->objective
            || (d.objective == m_best->objective
                && (d.point.areaMm2 < m_best->point.areaMm2
                    || (d.point.areaMm2 == m_best->point.areaMm2 && d.point.index < m_best->point.index)));
        if (better) m_best = d;
    }
    updateBest();
    replot();
}

void CodesignPanel::showProgress(const codesign::Progress& progress)
{
    // The unit of work is one layer of one design: the bar counts layer searches.
    m_progress->setRange(0, int(std::max<std::size_t>(progress.plannedSearches, 1)));
    m_progress->setValue(int(std::min(progress.layerSearches, progress.plannedSearches)));
    m_progress->setFormat(QStringLiteral("%p%"));
    const QString probed = progress.probed > 0
        ? tr("%1 designs scored on the heaviest layers, ").arg(progress.probed)
        : QString();
    m_status->setText(tr("%1%2 searched whole (%3) \u00b7 %4 of the grid's %5 designs within the "
                         "budgets \u00b7 %6 elapsed \u00b7 ETA %7")
                          .arg(probed)
                          .arg(progress.complete)
                          .arg(QString::fromStdString(progress.phase))
                          .arg(progress.withinArea)
                          .arg(progress.gridSize)
                          .arg(formatSeconds(progress.elapsedSeconds), formatSeconds(progress.etaSeconds)));
}

void CodesignPanel::showOutcome(const CodesignOutcome& outcome)
{
    setRunning(false);
    if (outcome.result && outcome.result->best) {
        m_best = outcome.result->best; // the core's word on ties
        updateBest();
        replot();
    }
    switch (outcome.status) {
    case CodesignOutcome::Status::Finished: {
        const std::size_t grid = outcome.result ? outcome.result->gridSize : 0;
        const std::size_t within = outcome.result ? outcome.result->withinArea : 0;
        m_progress->setRange(0, 1);
        m_progress->setValue(1);
        m_progress->setFormat(tr("done"));
        m_status->setText(
            tr("%1 designs searched%2 in %3 (%4 of the grid's %5 are within the budgets). %6 Click a design "
               "to load it into the accelerator panel and search it.")
                .arg(m_designs.size())
                .arg(m_probes.empty()
                        ? QString()
                        : tr(" whole after %1 scored on the heaviest layers").arg(m_probes.size()))
                .arg(formatSeconds(outcome.seconds))
                .arg(within)
                .arg(grid)
                .arg(m_best
                        ? tr("The star is the best within budget.")
                        : tr("None met the budgets once searched (power, or a layer without a mapping).")));
        break;
    }
    case CodesignOutcome::Status::Cancelled:
        m_status->setText(tr("Cancelled after %1 designs; the best so far is kept.").arg(m_designs.size()));
        break;
    case CodesignOutcome::Status::Failed:
        showError(outcome.message);
        break;
    }
}

void CodesignPanel::showError(const QString& message)
{
    setRunning(false);
    m_status->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(message.toHtmlEscaped()));
}

void CodesignPanel::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
    if (running) {
        m_progress->setRange(0, 0); // busy until the first progress
        m_progress->setFormat(QString());
    }
}

double CodesignPanel::objectiveOf(const codesign::Design& d) const
{
    return d.objective;
}

QString CodesignPanel::objectiveLabel() const
{
    switch (m_runObjective) {
    case search::Objective::Runtime:
        return tr("total runtime (cycles)");
    case search::Objective::Energy:
        return tr("total energy (pJ)");
    case search::Objective::Edp:
        return tr("energy-delay product (cycles \u00d7 pJ)");
    }
    return {};
}

QString CodesignPanel::designText(const codesign::Design& d, bool withHint) const
{
    const sweep::PointResult& p = d.point;
    QStringList parts;
    for (sweep::Parameter parameter : kParameters)
        parts << designValueText(parameter, p.parameters[std::size_t(parameter)]);
    QStringList lines;
    lines << parts.mid(0, 3).join(QStringLiteral(", ")) << parts.mid(3).join(QStringLiteral(", "));
    if (!d.complete) lines << tr("Scored on the workload's heaviest layers only:");
    if (p.ok) {
        lines << tr("runtime %L1 cycles (%2\u00d7 roofline), energy %3")
                     .arg(p.runtime)
                     .arg(p.roofline > 0 ? double(p.runtime) / double(p.roofline) : 0.0, 0, 'f', 2)
                     .arg(QString::fromStdString(tech::formatPicojoules(p.energyPj)));
        lines << tr("area %1 mm\u00b2, power %2 mW").arg(p.areaMm2, 0, 'g', 4).arg(p.powerMw, 0, 'f', 1);
        if (d.complete && !d.withinBudget) {
            QStringList over;
            if (p.areaMm2 > m_runBudget.areaMm2) over << tr("area");
            if (m_runBudget.powerMw && p.powerMw > *m_runBudget.powerMw) over << tr("power");
            lines << tr("over the %1 budget").arg(over.isEmpty() ? tr("") : over.join(tr(" and ")));
        }
    } else {
        lines << QString::fromStdString(p.status);
    }
    if (withHint) lines << tr("Click to load this design into the accelerator panel and search it.");
    return lines.join(QLatin1Char('\n'));
}

void CodesignPanel::updateBest()
{
    m_loadBest->setEnabled(m_best.has_value());
    m_saveBest->setEnabled(m_best.has_value());
    if (!m_best) {
        m_bestLabel->setText(m_designs.empty() ? tr("No design yet.") : tr("None within the budgets yet."));
        return;
    }
    m_bestLabel->setText(
        designText(*m_best, false).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
}

void CodesignPanel::updateBudgetLine()
{
    const double area = m_grid ? m_runBudget.areaMm2 : m_area->value();
    const double shown = m_area->value();
    m_budgetLine->point1->setCoords(shown, 1);
    m_budgetLine->point2->setCoords(shown, 2);
    m_budgetText->position->setCoords(shown, 0.0);
    m_budgetText->setText(shown == area ? tr("area budget %1 mm\u00b2").arg(shown, 0, 'g', 4)
                                        : tr("next run's budget %1 mm\u00b2").arg(shown, 0, 'g', 4));
}

void CodesignPanel::replot()
{
    QVector<double> px, py, ox, oy, wx, wy, fx, fy, bx, by;
    for (const codesign::Design& d : m_probes)
        if (d.point.ok && std::isfinite(d.objective)) {
            px << d.point.areaMm2;
            py << d.objective;
        }
    std::vector<const codesign::Design*> within;
    for (const codesign::Design& d : m_designs) {
        if (!d.point.ok || !std::isfinite(d.objective)) continue;
        if (d.withinBudget) {
            wx << d.point.areaMm2;
            wy << d.objective;
            within.push_back(&d);
        } else {
            ox << d.point.areaMm2;
            oy << d.objective;
        }
    }
    for (const codesign::Design& d : codesign::frontOf(within)) {
        fx << d.point.areaMm2;
        fy << d.objective;
    }
    if (m_best) {
        bx << m_best->point.areaMm2;
        by << m_best->objective;
    }
    m_probeGraph->setData(px, py);
    m_outside->setData(ox, oy);
    m_within->setData(wx, wy);
    m_frontGraph->setData(fx, fy, true);
    m_bestGraph->setData(bx, by);
    if (!ox.isEmpty() || !wx.isEmpty() || !px.isEmpty()) {
        m_plot->rescaleAxes();
        QCPRange x = m_plot->xAxis->range();
        x.lower = std::min(x.lower, m_area->value());
        x.upper = std::max(x.upper, m_area->value());
        m_plot->xAxis->setRange(x.lower / 1.3, x.upper * 1.3);
        m_plot->yAxis->setRange(m_plot->yAxis->range().lower / 1.3, m_plot->yAxis->range().upper * 1.3);
    } else {
        m_plot->xAxis->setRange(m_area->value() / 10, m_area->value() * 10);
        m_plot->yAxis->setRange(1, 10);
    }
    updateBudgetLine();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

const codesign::Design* CodesignPanel::designAt(const QPoint& pixel) const
{
    const codesign::Design* found = nullptr;
    double nearest = 9.0 * 9.0; // within 9 px
    for (const std::vector<codesign::Design>* list : {&m_designs, &m_probes})
        for (const codesign::Design& d : *list) {
            if (!d.point.ok || !std::isfinite(d.objective)) continue;
            const double dx = m_plot->xAxis->coordToPixel(d.point.areaMm2) - pixel.x();
            const double dy = m_plot->yAxis->coordToPixel(d.objective) - pixel.y();
            if (dx * dx + dy * dy < nearest) {
                nearest = dx * dx + dy * dy;
                found = &d;
            }
        }
    return found;
}

std::optional<QPoint> CodesignPanel::designPixel(std::size_t index) const
{
    for (const codesign::Design& d : m_designs)
        if (d.point.index == index && d.point.ok && std::isfinite(d.objective))
            return QPoint(int(std::lround(m_plot->xAxis->coordToPixel(d.point.areaMm2))),
                int(std::lround(m_plot->yAxis->coordToPixel(d.objective))));
    return std::nullopt;
}

bool CodesignPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const codesign::Design* d = designAt(help->pos()))
            QToolTip::showText(help->globalPos(), designText(*d, true), m_plot);
        else
            QToolTip::hideText();
        return true;
    }
    if (watched == m_plot && event->type() == QEvent::MouseButtonRelease) {
        auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() == Qt::LeftButton)
            if (const codesign::Design* d = designAt(mouse->position().toPoint()))
                emit designActivated(d->point.index);
    }
    return QWidget::eventFilter(watched, event);
}

void CodesignPanel::saveBest()
{
    if (!m_best || !m_grid) return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save the best design"), QStringLiteral("best.json"), tr("Accelerator (*.json)"));
    if (path.isEmpty()) return;
    try {
        arch::saveAccelerator(m_grid->point(m_best->point.index), path.toStdString());
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Save the best design"), QString::fromStdString(e.what()));
    }
}

} // namespace marvel::ui
