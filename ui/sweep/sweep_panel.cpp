#include "ui/sweep/sweep_panel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPdfWriter>
#include <QProgressBar>
#include <QPushButton>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/util/diagnostic.h"
#include "core/util/text_file.h"
#include "ui/plot/log_ticker.h"
#include "ui/plot/plot_layout.h"
#include "ui/search/result_basis.h"
#include "ui/sweep/design_labels.h"

namespace marvel::ui {

namespace {

/// Perceptually uniform and readable in grey (viridis' stops): dark is low, yellow is high; NaN (no
/// design point yet) light grey.
QCPColorGradient viridis()
{
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(68, 1, 84));
    gradient.setColorStopAt(0.25, QColor(59, 82, 139));
    gradient.setColorStopAt(0.5, QColor(33, 145, 140));
    gradient.setColorStopAt(0.75, QColor(94, 201, 98));
    gradient.setColorStopAt(1.0, QColor(253, 231, 37));
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(QColor(225, 225, 225));
    return gradient;
}

/// `energyUnit`: "MAC units", or "pJ" for a sweep around an accelerator with a technology table.
QString metricLabel(SweepPanel::Metric m, const QString& energyUnit = QObject::tr("MAC units"))
{
    switch (m) {
    case SweepPanel::Metric::Runtime:
        return QObject::tr("runtime (cycles)");
    case SweepPanel::Metric::Energy:
        return QObject::tr("total energy (%1)").arg(energyUnit);
    case SweepPanel::Metric::Edp:
        return QObject::tr("energy-delay product");
    case SweepPanel::Metric::Area:
        return QObject::tr("area (mm\u00b2)");
    case SweepPanel::Metric::Power:
        return QObject::tr("power (mW)");
    case SweepPanel::Metric::Utilization:
        return QObject::tr("PE utilization (%)");
    case SweepPanel::Metric::RooflineRatio:
        return QObject::tr("runtime / roofline");
    case SweepPanel::Metric::DramBytes:
        return QObject::tr("DRAM traffic (bytes)");
    case SweepPanel::Metric::DramEnergy:
        return QObject::tr("DRAM energy (%1)").arg(energyUnit);
    }
    return {};
}

bool logScaled(SweepPanel::Metric m)
{
    return m == SweepPanel::Metric::Runtime || m == SweepPanel::Metric::Energy
        || m == SweepPanel::Metric::Edp;
}

/// Short cell text: three significant digits with an SI suffix.
QString shortNumber(double v, int digits = 3)
{
    if (!std::isfinite(v)) return {};
    const char* suffix[] = {"", "k", "M", "G", "T", "P", "E"};
    int i = 0;
    double a = std::abs(v);
    while (a >= 1000.0 && i < 6) {
        a /= 1000.0;
        v /= 1000.0;
        ++i;
    }
    return QString::number(v, 'g', digits) + QLatin1String(suffix[i]);
}

} // namespace

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent)
{
    // Two rows: what to vary, then what to show and the actions.
    auto* controls = new QGridLayout;
    auto axisRow = [&](int column, const QString& title, QComboBox*& combo, QLineEdit*& range,
                       sweep::Parameter initial, const QString& text) {
        combo = new QComboBox;
        for (sweep::Parameter p : kParameters)
            combo->addItem(parameterLabel(p), parameterKey(p));
        // A transformer's context: the model (a built-in transformer or an ONNX model with a symbolic
        // sequence) is instantiated again for each value.
        combo->addItem(contextLabel(sweep::ContextParameter::Seq), QStringLiteral("seq"));
        combo->setItemData(combo->count() - 1,
            tr("The prompt's tokens per sequence (prefill) of the model in the model view"), Qt::ToolTipRole);
        combo->addItem(contextLabel(sweep::ContextParameter::Kv), QStringLiteral("kv"));
        combo->setItemData(combo->count() - 1,
            tr("The cached tokens one decode step of the model attends to"), Qt::ToolTipRole);
        combo->setCurrentIndex(int(initial));
        range = new QLineEdit(text);
        range->setMinimumWidth(90);
        range->setToolTip(tr("Values as `marvel sweep --vary` takes them: a list (256,512,1024), a geometric "
                             "range (64K:1M:x2) or an arithmetic one (1:8:+1); K and M mean x1024."));
        controls->addWidget(new QLabel(title), 0, column);
        controls->addWidget(combo, 0, column + 1);
        controls->addWidget(range, 0, column + 2);
    };
    axisRow(0, tr("Across:"), m_xParameter, m_xRange, sweep::Parameter::Pes,
        QStringLiteral("64,128,256,512,1024"));
    axisRow(3, tr("Down:"), m_yParameter, m_yRange, sweep::Parameter::L2, QStringLiteral("32K:512K:x2"));
    controls->setColumnStretch(2, 1);
    controls->setColumnStretch(5, 1);

    m_metric = new QComboBox;
    for (Metric m : {Metric::Runtime, Metric::Energy, Metric::Edp, Metric::DramBytes, Metric::DramEnergy,
             Metric::Area, Metric::Power, Metric::Utilization, Metric::RooflineRatio})
        m_metric->addItem(metricLabel(m), int(m));
    m_objective = new QComboBox;
    m_objective->addItem(tr("runtime"), int(search::Objective::Runtime));
    m_objective->addItem(tr("energy"), int(search::Objective::Energy));
    m_objective->addItem(tr("EDP"), int(search::Objective::Edp));
    m_objective->setToolTip(tr("What each design point's search minimises"));
    m_run = new QPushButton(tr("Run sweep"));
    m_run->setToolTip(tr("Search the whole workload at every design point of the grid"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    m_export = new QPushButton(tr("Export"));
    m_export->setEnabled(false);
    m_export->setToolTip(tr("The design points as CSV; the heat map and Pareto set as PNG, PDF or SVG"));
    m_quick = new QCheckBox(tr("Quick search"));
    m_quick->setToolTip(tr("Search each design point with the decoupled search alone (the paper's sweeps): "
                           "faster, but a cell may show a slower or costlier mapping than the tuner finds "
                           "for that design when you click it. Unticked, every point runs the Search "
                           "panel's search (marvel sweep without --quick-search)."));
    auto* objectiveRow = new QHBoxLayout;
    objectiveRow->addWidget(new QLabel(tr("best mapping for")));
    objectiveRow->addWidget(m_objective);
    objectiveRow->addWidget(m_quick);
    objectiveRow->addStretch(1);
    controls->addWidget(new QLabel(tr("Colour:")), 1, 0);
    controls->addWidget(m_metric, 1, 1, 1, 2);
    controls->addLayout(objectiveRow, 1, 3, 1, 3);

    auto* progressRow = new QHBoxLayout;
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setMinimumWidth(
        m_progress->fontMetrics().horizontalAdvance(QStringLiteral("999 / 999 design points")) + 24);
    m_status = new QLabel(tr("Choose two parameters and their values, then Run sweep: every design point is "
                             "searched for the workload open in the editor or the model view."));
    m_status->setWordWrap(true);
    // The actions lead the progress row: the panel then fits the centre of a laptop-sized window.
    progressRow->addWidget(m_run);
    progressRow->addWidget(m_cancel);
    progressRow->addWidget(m_export);
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_status, 3);

    // Heat map: cells are grid positions (0..n-1) with the values as tick labels, so geometric ranges
    // get evenly sized cells.
    m_heatPlot = new QCustomPlot;
    m_heatPlot->setMinimumSize(260, 240);
    m_colourMap = new QCPColorMap(m_heatPlot->xAxis, m_heatPlot->yAxis);
    m_colourMap->setInterpolate(false);
    m_colourMap->setTightBoundary(false);
    m_colourScale = new QCPColorScale(m_heatPlot);
    m_heatPlot->plotLayout()->addElement(0, 1, m_colourScale);
    m_colourScale->setType(QCPAxis::atRight);
    m_colourMap->setColorScale(m_colourScale);
    m_colourMap->setGradient(viridis());
    auto* margins = new QCPMarginGroup(m_heatPlot);
    m_heatPlot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_colourScale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_heatPlot->installEventFilter(this); // the selection frame is made by rebuildHeatMap()
    // The cells' size is known once the plot is laid out (and changes with the window).
    connect(m_heatPlot, &QCustomPlot::afterLayout, this, &SweepPanel::fitCellLabels);

    m_paretoPlot = new QCustomPlot;
    m_paretoPlot->setMinimumSize(200, 240);
    m_allDesigns = m_paretoPlot->addGraph();
    m_allDesigns->setLineStyle(QCPGraph::lsNone);
    m_allDesigns->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(150, 150, 150), 6));
    m_allDesigns->setName(tr("design points"));
    m_frontDesigns = m_paretoPlot->addGraph();
    m_frontDesigns->setPen(QPen(QColor(30, 90, 200), 1.8));
    m_frontDesigns->setLineStyle(QCPGraph::lsStepLeft);
    m_frontDesigns->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(30, 90, 200), 8));
    m_frontDesigns->setName(tr("Pareto set"));
    m_paretoPlot->xAxis->setLabel(tr("area (mm\u00b2)"));
    placeLegendBelow(m_paretoPlot);
    setLogLogAxes(m_paretoPlot, 4); // a narrow plot: fewer, wider labels
    m_front = new QComboBox;
    m_front->addItem(tr("runtime against area"));
    m_front->addItem(tr("energy against area"));
    m_paretoPlot->installEventFilter(this);

    auto* paretoBox = new QVBoxLayout;
    auto* frontRow = new QHBoxLayout;
    frontRow->addWidget(new QLabel(tr("Design points' Pareto set:")));
    frontRow->addWidget(m_front, 1);
    paretoBox->addLayout(frontRow);
    paretoBox->addWidget(m_paretoPlot, 1);

    m_figures = new QWidget;
    auto* figures = new QHBoxLayout(m_figures);
    figures->setContentsMargins(0, 0, 0, 0);
    figures->addWidget(m_heatPlot, 3);
    figures->addLayout(paretoBox, 2);

    m_staleNote = new QLabel;
    m_staleNote->setWordWrap(true);
    m_staleNote->setStyleSheet(QStringLiteral("color: %1; font-weight: bold").arg(kStaleNote));
    m_staleNote->setVisible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(progressRow);
    layout->addWidget(m_staleNote);
    layout->addWidget(m_figures, 1);

    connect(m_run, &QPushButton::clicked, this, &SweepPanel::runRequested);
    connect(m_cancel, &QPushButton::clicked, this, &SweepPanel::cancelRequested);
    connect(m_export, &QPushButton::clicked, this, &SweepPanel::showExportMenu);
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { rebuildHeatMap(); });
    connect(m_front, &QComboBox::currentIndexChanged, this, [this] { updatePareto(); });
    connect(m_objective, &QComboBox::currentIndexChanged, this, &SweepPanel::objectiveChanged);
    connect(m_quick, &QCheckBox::toggled, this, &SweepPanel::objectiveChanged);
    rebuildHeatMap();
    updatePareto();
}

void SweepPanel::setStale(const QString& change)
{
    if (change == m_stale) return;
    m_stale = change;
    m_staleNote->setText(staleText(change, tr("Run the sweep again to update it.")));
    m_staleNote->setVisible(!change.isEmpty());
    // Grey figures still read (the greyscale keeps the order of the values), but plainly not current.
    const bool stale = !change.isEmpty();
    QCPColorGradient gradient = stale ? QCPColorGradient(QCPColorGradient::gpGrayscale) : viridis();
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(QColor(225, 225, 225));
    m_colourMap->setGradient(gradient);
    const QColor front = stale ? QColor(kStaleGrey) : QColor(30, 90, 200);
    m_frontDesigns->setPen(QPen(front, 1.8));
    m_frontDesigns->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, front, 8));
    m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
    m_paretoPlot->replot(QCustomPlot::rpQueuedReplot);
}

QString SweepPanel::staleNote() const
{
    return m_stale.isEmpty() ? QString() : m_staleNote->text();
}

namespace {

std::string varySpec(const QComboBox* combo, const QLineEdit* range)
{
    return (combo->currentData().toString() + QLatin1Char('=') + range->text().trimmed()).toStdString();
}

} // namespace

std::vector<sweep::Axis> SweepPanel::axes() const
{
    const std::string x = varySpec(m_xParameter, m_xRange), y = varySpec(m_yParameter, m_yRange);
    if (m_xParameter->currentData() == m_yParameter->currentData()
        || (sweep::isContextVary(x) && sweep::isContextVary(y)))
        throw InputError(Diagnostic{{}, {}, "sweep",
            "both axes vary " + m_xParameter->currentData().toString().toStdString()
                + (sweep::isContextVary(x) && sweep::isContextVary(y)
                        ? " and " + m_yParameter->currentData().toString().toStdString()
                        : std::string())
                + "; choose two different parameters (at most one of seq and kv)"});
    std::vector<sweep::Axis> result;
    for (const std::string& spec : {x, y})
        if (!sweep::isContextVary(spec)) result.push_back(sweep::parseVary(spec));
    return result;
}

std::optional<sweep::ContextAxis> SweepPanel::contextAxis() const
{
    (void)axes(); // the same checks
    for (const std::string& spec : {varySpec(m_xParameter, m_xRange), varySpec(m_yParameter, m_yRange)})
        if (sweep::isContextVary(spec)) return sweep::parseContextVary(spec);
    return std::nullopt;
}

void SweepPanel::setAxes(
    const QString& xParameter, const QString& xRange, const QString& yParameter, const QString& yRange)
{
    m_xParameter->setCurrentIndex(std::max(0, m_xParameter->findData(xParameter)));
    m_xRange->setText(xRange);
    m_yParameter->setCurrentIndex(std::max(0, m_yParameter->findData(yParameter)));
    m_yRange->setText(yRange);
}

search::Objective SweepPanel::objective() const
{
    return static_cast<search::Objective>(m_objective->currentData().toInt());
}

void SweepPanel::setMetric(Metric metric)
{
    m_metric->setCurrentIndex(m_metric->findData(int(metric)));
}

std::optional<SweepPanel::Metric> SweepPanel::metricByName(const QString& name)
{
    static const std::pair<const char*, Metric> kNames[] = {{"runtime", Metric::Runtime},
        {"energy", Metric::Energy}, {"edp", Metric::Edp}, {"dram-bytes", Metric::DramBytes},
        {"dram-energy", Metric::DramEnergy}, {"area", Metric::Area}, {"power", Metric::Power},
        {"utilization", Metric::Utilization}, {"roofline", Metric::RooflineRatio}};
    for (const auto& [text, metric] : kNames)
        if (name == QLatin1String(text)) return metric;
    return std::nullopt;
}

SweepPanel::Metric SweepPanel::metric() const
{
    return static_cast<Metric>(m_metric->currentData().toInt());
}

void SweepPanel::startGrid(std::shared_ptr<const sweep::Grid> grid)
{
    m_grid = std::move(grid);
    m_points.clear();
    m_pointOfIndex.assign(m_grid ? m_grid->size() : 0, -1);
    m_xAxis = m_yAxis = -1;
    if (m_grid) {
        const auto& axes = m_grid->axes();
        const QString x = m_xParameter->currentData().toString();
        const QString y = m_yParameter->currentData().toString();
        for (int i = 0; i < int(axes.size()); ++i) {
            const QString name
                = QString::fromUtf8(sweep::parameterName(axes[std::size_t(i)].parameter).data());
            if (name == x) m_xAxis = i;
            if (name == y) m_yAxis = i;
        }
        if (const auto& context = m_grid->context()) {
            const QString name = QString::fromUtf8(sweep::contextName(context->parameter).data());
            if (name == x) m_xAxis = kContextAxis;
            if (name == y) m_yAxis = kContextAxis;
            if (m_xAxis == -1 && m_yAxis != kContextAxis) m_xAxis = kContextAxis;
            if (m_yAxis == -1 && m_xAxis != kContextAxis) m_yAxis = kContextAxis;
        }
        if (m_xAxis == -1 && !axes.empty()) m_xAxis = m_yAxis == 0 ? (axes.size() > 1 ? 1 : -1) : 0;
        if (m_yAxis == -1 && !axes.empty()) m_yAxis = m_xAxis == 0 ? (axes.size() > 1 ? 1 : -1) : 0;
    }
    m_selection->setVisible(false);
    m_progress->setRange(0, int(m_grid ? m_grid->size() : 1));
    m_progress->setValue(0);
    m_progress->setFormat(tr("%v / %m design points"));
    m_export->setEnabled(false);
    rebuildHeatMap();
    updatePareto();
}

std::vector<std::int64_t> SweepPanel::axisValues(int a) const
{
    if (!m_grid) return {};
    if (a == kContextAxis) return m_grid->context() ? m_grid->context()->values : std::vector<std::int64_t>{};
    if (a < 0) return {};
    return m_grid->axes()[std::size_t(a)].values;
}

QString SweepPanel::axisTitle(int a) const
{
    if (m_grid && a == kContextAxis && m_grid->context()) return contextLabel(m_grid->context()->parameter);
    if (m_grid && a >= 0) return parameterLabel(m_grid->axes()[std::size_t(a)].parameter);
    return {};
}

QString SweepPanel::axisValueText(int a, std::int64_t v) const
{
    if (a == kContextAxis) return QString::number(v);
    return m_grid && a >= 0 ? valueLabel(m_grid->axes()[std::size_t(a)].parameter, v) : QString();
}

int SweepPanel::axisPosition(std::size_t index, bool xAxis) const
{
    const int a = xAxis ? m_xAxis : m_yAxis;
    if (m_grid && a == kContextAxis) return int(m_grid->contextIndex(index));
    if (!m_grid || a < 0) return 0;
    const sweep::Axis& axis = m_grid->axes()[std::size_t(a)];
    const std::int64_t v = m_grid->parameters(index)[std::size_t(axis.parameter)];
    return int(std::lower_bound(axis.values.begin(), axis.values.end(), v) - axis.values.begin());
}

double SweepPanel::valueOf(const sweep::PointResult& p) const
{
    if (!p.ok) return std::numeric_limits<double>::quiet_NaN();
    switch (metric()) {
    case Metric::Runtime:
        return double(p.runtime);
    case Metric::Energy:
        return p.energy;
    case Metric::Edp:
        return p.edp;
    case Metric::Area:
        return p.areaMm2;
    case Metric::Power:
        return p.powerMw;
    case Metric::Utilization:
        return 100.0 * p.utilization;
    case Metric::RooflineRatio:
        return p.roofline > 0 ? double(p.runtime) / double(p.roofline) : 0.0;
    case Metric::DramBytes:
        return double(p.dramBytes);
    case Metric::DramEnergy:
        return p.dramEnergy;
    }
    return 0.0;
}

void SweepPanel::rebuildHeatMap()
{
    const int nx = std::max(1, int(axisValues(m_xAxis).size()));
    const int ny = std::max(1, int(axisValues(m_yAxis).size()));
    QCPColorMapData* data = m_colourMap->data();
    data->setSize(nx, ny);
    data->setRange(QCPRange(0, nx - 1), QCPRange(0, ny - 1));
    data->fill(std::numeric_limits<double>::quiet_NaN());
    m_heatPlot->clearItems(); // cell labels; the selection frame is made again below
    m_cellLabels.assign(std::size_t(nx) * std::size_t(ny), nullptr);
    m_selection = new QCPItemRect(m_heatPlot);
    m_selection->setPen(QPen(QColor(220, 40, 40), 2.5));
    m_selection->setBrush(Qt::NoBrush);
    m_selection->setVisible(false);

    auto ticker = [&](int a) {
        QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
        const std::vector<std::int64_t> values = axisValues(a);
        for (std::size_t i = 0; i < values.size(); ++i)
            t->addTick(double(i), axisValueText(a, values[i]));
        return t;
    };
    m_heatPlot->xAxis->setTicker(ticker(m_xAxis));
    m_heatPlot->yAxis->setTicker(ticker(m_yAxis));
    m_xTickLabels.clear();
    for (std::int64_t v : axisValues(m_xAxis))
        m_xTickLabels << axisValueText(m_xAxis, v);
    m_xTickStep = 1;
    auto label = [&](int a, QComboBox* combo) {
        const QString title = axisTitle(a);
        return title.isEmpty() ? combo->currentText() : title;
    };
    m_heatPlot->xAxis->setLabel(label(m_xAxis, m_xParameter));
    m_heatPlot->yAxis->setLabel(label(m_yAxis, m_yParameter));
    m_heatPlot->xAxis->setRange(-0.5, nx - 0.5);
    m_heatPlot->yAxis->setRange(-0.5, ny - 0.5);
    m_colourScale->axis()->setLabel(colourScaleLabel());
    const bool log = logScaled(metric());
    m_colourScale->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log)
        m_colourScale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new LogTicker));
    else
        m_colourScale->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    for (const sweep::PointResult& p : m_points)
        updateCell(p);
    updateColourRange();
    m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
}

void SweepPanel::updateCell(const sweep::PointResult& p)
{
    const int x = axisPosition(p.index, true);
    const int y = axisPosition(p.index, false);
    const double v = valueOf(p);
    m_colourMap->data()->setCell(x, y, v);
    // Small grids carry their numbers: an architect reads the knee off them, a projector shows them.
    const int cells = m_colourMap->data()->keySize() * m_colourMap->data()->valueSize();
    const std::size_t cell = std::size_t(y) * std::size_t(m_colourMap->data()->keySize()) + std::size_t(x);
    if (cells <= 100 && cell < m_cellLabels.size()) {
        QCPItemText*& text = m_cellLabels[cell]; // a point searched again keeps its one label
        if (!text) {
            text = new QCPItemText(m_heatPlot);
            text->position->setCoords(x, y);
            QFont f = text->font();
            f.setPointSizeF(f.pointSizeF() * 0.9);
            text->setFont(f);
            text->setPadding(QMargins(2, 0, 2, 0));
            text->setClipToAxisRect(true);
        }
        text->setProperty("cellValue", v);
        text->setProperty("cellOk", p.ok);
        text->setColor(p.ok ? Qt::white : QColor(90, 90, 90));
        text->setBrush(
            p.ok ? QBrush(QColor(0, 0, 0, 110)) : QBrush()); // white on a dark patch reads anywhere
        fitCellLabels();
    }
}

void SweepPanel::fitCellLabels()
{
    const int nx = m_colourMap->data()->keySize(), ny = m_colourMap->data()->valueSize();
    if (nx <= 0 || ny <= 0) return;
    const QRect area = m_heatPlot->axisRect()->rect();
    // The column values along the bottom: every k-th one when they would run together ("819216384").
    if (m_xTickLabels.size() == nx) {
        const QFontMetricsF tickMetrics(m_heatPlot->xAxis->tickLabelFont());
        double widest = 0;
        for (const QString& l : std::as_const(m_xTickLabels))
            widest = std::max(widest, tickMetrics.horizontalAdvance(l));
        int step = 1;
        while (step < nx && widest + 8 > step * double(area.width()) / nx)
            ++step;
        if (step != m_xTickStep) {
            m_xTickStep = step;
            QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
            for (int i = 0; i < nx; ++i)
                t->addTick(i, i % step == 0 ? m_xTickLabels[i] : QString());
            m_heatPlot->xAxis->setTicker(t);
            // The ticks were laid out already for this frame: draw once more with the new ones.
            QMetaObject::invokeMethod(
                m_heatPlot, [plot = m_heatPlot] { plot->replot(QCustomPlot::rpQueuedReplot); },
                Qt::QueuedConnection);
        }
    }
    // What a label may take of its cell: a few pixels stay free on each side, so neighbours keep a gap.
    const double width = double(area.width()) / nx - 6, height = double(area.height()) / ny - 2;
    for (QCPItemText* text : m_cellLabels) {
        if (!text) continue;
        const double v = text->property("cellValue").toDouble();
        QStringList forms = text->property("cellOk").toBool()
            ? QStringList{shortNumber(v, 3), shortNumber(v, 2), shortNumber(v, 1)}
            : QStringList{tr("fails"), QStringLiteral("\u2715")};
        forms.removeIf([](const QString& f) { return f.contains(QStringLiteral("e+")); }); // 1e+02k: no
        const QFontMetricsF metrics(text->font());
        const QMargins pad = text->padding();
        QString fits;
        for (const QString& form : forms)
            if (metrics.horizontalAdvance(form) + pad.left() + pad.right() <= width
                && metrics.height() + pad.top() + pad.bottom() <= height) {
                fits = form;
                break;
            }
        text->setVisible(!fits.isEmpty());
        if (!fits.isEmpty()) text->setText(fits);
    }
}

void SweepPanel::updateColourRange()
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const sweep::PointResult& p : m_points) {
        const double v = valueOf(p);
        if (!std::isfinite(v) || (logScaled(metric()) && v <= 0)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (!std::isfinite(lo)) {
        lo = 1;
        hi = 10;
    } else if (lo == hi) {
        lo *= 0.9;
        hi = hi * 1.1 + (hi == 0 ? 1 : 0);
    }
    m_colourMap->setDataRange(QCPRange(lo, hi));
}

void SweepPanel::addPoints(const std::vector<sweep::PointResult>& points)
{
    if (!m_grid) return;
    for (const sweep::PointResult& p : points) {
        if (p.index >= m_pointOfIndex.size()) continue;
        m_pointOfIndex[p.index] = int(m_points.size());
        m_points.push_back(p);
        updateCell(p);
    }
    m_colourScale->axis()->setLabel(colourScaleLabel());
    updateColourRange();
    updatePareto();
    m_export->setEnabled(!m_points.empty());
    m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
}

void SweepPanel::updatePareto()
{
    const bool energy = m_front->currentIndex() == 1;
    m_paretoPlot->yAxis->setLabel(energy
            ? tr("energy (%1)").arg(m_grid ? energyUnit(m_grid->base()) : tr("MAC units"))
            : tr("runtime (cycles)"));
    QVector<double> ax, ay, fx, fy;
    for (const sweep::PointResult& p : m_points)
        if (p.ok) {
            ax << p.areaMm2;
            ay << (energy ? p.energy : double(p.runtime));
        }
    m_paretoIndex.clear();
    const sweep::DesignFronts fronts = sweep::paretoDesigns(m_points);
    for (const sweep::PointResult& p : energy ? fronts.energyArea : fronts.runtimeArea) {
        fx << p.areaMm2;
        fy << (energy ? p.energy : double(p.runtime));
        m_paretoIndex.push_back(p.index);
    }
    m_allDesigns->setData(ax, ay);
    m_frontDesigns->setData(fx, fy, true);
    if (!ax.isEmpty()) {
        m_paretoPlot->rescaleAxes();
        for (QCPAxis* a : {m_paretoPlot->xAxis, m_paretoPlot->yAxis})
            a->setRange(a->range().lower / 1.25, a->range().upper * 1.25);
    } else {
        m_paretoPlot->xAxis->setRange(1, 10);
        m_paretoPlot->yAxis->setRange(1, 10);
    }
    m_paretoPlot->replot(QCustomPlot::rpQueuedReplot);
}

int SweepPanel::filledCells() const
{
    int n = 0;
    QCPColorMapData* d = m_colourMap->data();
    for (int x = 0; x < d->keySize(); ++x)
        for (int y = 0; y < d->valueSize(); ++y)
            n += std::isfinite(d->cell(x, y)) ? 1 : 0;
    return n;
}

double SweepPanel::cellValue(std::size_t index) const
{
    if (!m_grid || index >= m_grid->size()) return std::numeric_limits<double>::quiet_NaN();
    return m_colourMap->data()->cell(axisPosition(index, true), axisPosition(index, false));
}

QPoint SweepPanel::cellCentre(std::size_t index) const
{
    const double px = m_heatPlot->xAxis->coordToPixel(axisPosition(index, true));
    const double py = m_heatPlot->yAxis->coordToPixel(axisPosition(index, false));
    return m_heatPlot->mapTo(this, QPointF(px, py).toPoint());
}

std::optional<std::size_t> SweepPanel::pointAtPixel(const QPoint& pixel) const
{
    if (!m_grid || !m_heatPlot->axisRect()->rect().contains(pixel)) return std::nullopt;
    const int x = int(std::lround(m_heatPlot->xAxis->pixelToCoord(pixel.x())));
    const int y = int(std::lround(m_heatPlot->yAxis->pixelToCoord(pixel.y())));
    for (const sweep::PointResult& p : m_points)
        if (axisPosition(p.index, true) == x && axisPosition(p.index, false) == y) return p.index;
    return std::nullopt;
}

bool SweepPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::MouseButtonRelease) {
        auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() == Qt::LeftButton) {
            std::optional<std::size_t> index;
            if (watched == m_heatPlot) {
                index = pointAtPixel(mouse->pos());
            } else if (watched == m_paretoPlot && !m_paretoIndex.empty()) {
                // The nearest Pareto design point within a few pixels.
                double best = 12.0 * 12.0;
                for (std::size_t i = 0; i < m_paretoIndex.size(); ++i) {
                    const auto it = m_frontDesigns->data()->at(int(i));
                    const double dx = m_paretoPlot->xAxis->coordToPixel(it->key) - mouse->pos().x();
                    const double dy = m_paretoPlot->yAxis->coordToPixel(it->value) - mouse->pos().y();
                    if (dx * dx + dy * dy < best) {
                        best = dx * dx + dy * dy;
                        index = m_paretoIndex[i];
                    }
                }
            }
            if (index) {
                const int x = axisPosition(*index, true), y = axisPosition(*index, false);
                m_selection->topLeft->setCoords(x - 0.5, y + 0.5);
                m_selection->bottomRight->setCoords(x + 0.5, y - 0.5);
                m_selection->setVisible(true);
                m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
                emit designPointActivated(*index);
            }
        }
    }
    if (event->type() == QEvent::ToolTip && watched == m_heatPlot && m_grid) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (auto index = pointAtPixel(help->pos())) {
            const sweep::PointResult& p = m_points[std::size_t(m_pointOfIndex[*index])];
            QStringList lines;
            if (const auto& context = m_grid->context())
                lines << QStringLiteral("%1 = %2").arg(contextLabel(context->parameter)).arg(p.context);
            for (const sweep::Axis& a : m_grid->axes())
                lines << QStringLiteral("%1 = %2").arg(parameterLabel(a.parameter),
                    valueLabel(a.parameter, p.parameters[std::size_t(a.parameter)]));
            if (p.ok)
                lines << tr("runtime %L1 cycles (%2\u00d7 roofline)")
                             .arg(p.runtime)
                             .arg(p.roofline > 0 ? double(p.runtime) / double(p.roofline) : 0.0, 0, 'f', 2)
                      << tr("energy %1 %2, area %3 mm\u00b2, power %4 mW, utilization %5%")
                             .arg(shortNumber(p.energy), energyUnit(m_grid->base()), shortNumber(p.areaMm2))
                             .arg(p.powerMw, 0, 'f', 1)
                             .arg(100.0 * p.utilization, 0, 'f', 0)
                      << tr("DRAM traffic %1B, DRAM energy %2")
                             .arg(shortNumber(double(p.dramBytes)), shortNumber(p.dramEnergy))
                      << (p.search == sweep::PointSearch::Quick
                                 ? tr("Found by the quick search: the tuner may find a better mapping.")
                                 : tr("Found by the full search: the tuner shows the same mapping."))
                      << tr("Click to load this accelerator and search it.");
            else
                lines << QString::fromStdString(p.status);
            setToolTip(lines.join(QLatin1Char('\n')));
        } else {
            setToolTip({});
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SweepPanel::showProgress(const SweepProgress& progress)
{
    m_progress->setRange(0, int(progress.total));
    m_progress->setValue(int(progress.done));
    m_status->setText(tr("%1 of %2 design points \u00b7 %3 s elapsed \u00b7 ETA %4 s")
                          .arg(progress.done)
                          .arg(progress.total)
                          .arg(progress.elapsedSeconds, 0, 'f', 1)
                          .arg(progress.etaSeconds, 0, 'f', 1));
}

void SweepPanel::showOutcome(const SweepOutcome& outcome)
{
    setRunning(false);
    int failed = 0;
    for (const sweep::PointResult& p : m_points)
        failed += p.ok ? 0 : 1;
    switch (outcome.status) {
    case SweepOutcome::Status::Finished:
        m_status->setText(tr(
            "%1 design points in %2 s by the %3 search%4. Click a cell to load that accelerator and search "
            "it.")
                              .arg(m_points.size())
                              .arg(outcome.seconds, 0, 'f', 1)
                              .arg(quickPoints() ? tr("quick") : tr("full"))
                              .arg(failed ? tr(" (%1 without a mapping that fits: grey cells)").arg(failed)
                                          : QString()));
        break;
    case SweepOutcome::Status::Cancelled:
        m_status->setText(tr("Cancelled after %1 of %2 design points.")
                              .arg(m_points.size())
                              .arg(m_grid ? m_grid->size() : 0));
        break;
    case SweepOutcome::Status::Failed:
        showError(outcome.message);
        break;
    }
}

void SweepPanel::showError(const QString& message)
{
    setRunning(false);
    m_status->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(message.toHtmlEscaped()));
}

void SweepPanel::setObjective(search::Objective objective)
{
    m_objective->setCurrentIndex(m_objective->findData(int(objective)));
}

bool SweepPanel::quickSearch() const
{
    return m_quick->isChecked();
}

void SweepPanel::setQuickSearch(bool quick)
{
    m_quick->setChecked(quick);
}

bool SweepPanel::quickPoints() const
{
    return std::any_of(m_points.begin(), m_points.end(),
        [](const sweep::PointResult& p) { return p.search == sweep::PointSearch::Quick; });
}

QString SweepPanel::colourScaleLabel() const
{
    // Which search made the cells travels with every picture of the heat map.
    const QString label = metricLabel(metric(), m_grid ? energyUnit(m_grid->base()) : tr("MAC units"));
    return quickPoints() ? tr("%1 \u00b7 quick search").arg(label) : label;
}

QString SweepPanel::statusText() const
{
    return m_status->text();
}

void SweepPanel::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
}

bool SweepPanel::saveCsv(const QString& path) const
{
    std::vector<sweep::PointResult> rows = m_points;
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    std::string text = (m_grid ? sweep::csvHeader(*m_grid) : sweep::csvHeader()) + "\n";
    for (const sweep::PointResult& r : rows)
        text += sweep::formatRow(r) + "\n";
    try {
        writeTextFileAtomically(path.toStdString(), text, "sweep CSV");
    } catch (const InputError&) {
        return false;
    }
    return true;
}

bool SweepPanel::saveImage(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QSize size = m_figures->size();
    // Each plot is painted through QCustomPlot's own painter path, so PDF and SVG stay vector graphics.
    auto paint = [&](QCPPainter& painter) {
        for (QCustomPlot* plot : {m_heatPlot, m_paretoPlot}) {
            painter.save();
            painter.translate(plot->mapTo(m_figures, QPoint(0, 0)));
            plot->toPainter(&painter, plot->width(), plot->height());
            painter.restore();
        }
    };
    if (suffix == QLatin1String("png")) {
        QImage image(size * 2, QImage::Format_ARGB32);
        image.setDevicePixelRatio(2.0);
        image.fill(Qt::white);
        QCPPainter painter(&image);
        paint(painter);
        painter.end();
        return image.save(path);
    }
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter writer(path);
        writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setResolution(72);
        writer.setTitle(tr("Design-space sweep"));
        QCPPainter painter;
        if (!painter.begin(&writer)) return false;
        paint(painter);
        return painter.end();
    }
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(tr("Design-space sweep"));
        QCPPainter painter;
        if (!painter.begin(&generator)) return false;
        paint(painter);
        return painter.end();
    }
    return false;
}

void SweepPanel::showExportMenu()
{
    QMenu menu(this);
    menu.addAction(tr("Design points as CSV..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export sweep"), {}, tr("CSV (*.csv)"));
        if (!path.isEmpty() && !saveCsv(path)) showError(tr("Could not write %1").arg(path));
    });
    for (const QString& format : {QStringLiteral("PNG"), QStringLiteral("PDF"), QStringLiteral("SVG")})
        menu.addAction(tr("Heat map and Pareto set as %1...").arg(format), this, [this, format] {
            const QString path = QFileDialog::getSaveFileName(
                this, tr("Export sweep"), {}, QStringLiteral("%1 (*.%2)").arg(format, format.toLower()));
            if (!path.isEmpty() && !saveImage(path)) showError(tr("Could not write %1").arg(path));
        });
    menu.exec(m_export->mapToGlobal(QPoint(0, m_export->height())));
}

} // namespace marvel::ui
