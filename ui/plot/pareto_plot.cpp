#include "ui/plot/pareto_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include <QElapsedTimer>
#include <QFileDialog>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "core/search/pareto_csv.h"
#include "ui/plot/log_ticker.h"
#include "ui/search/result_basis.h"

namespace marvel::ui {

namespace {
QString defaultEmptyMessage()
{
    return ParetoPlot::tr("Run a search (Ctrl+R) to see the runtime-energy trade-off of its mappings");
}
const QColor kCloud(100, 140, 190, 70);
const QColor kFront(200, 60, 40);
const QColor kBest(20, 20, 20);
const QColor kStyle(220, 120, 20);
const QColor kRoofline(60, 140, 60);
constexpr int kPickRadiusPx = 8;
constexpr int kDotPx = 4; ///< diameter of a cloud point

double edp(std::int64_t runtime, double energy)
{
    return static_cast<double>(runtime) * energy;
}

/// The mark of the best mapping of objective `k` (runtime, energy, EDP).
QCPScatterStyle bestStyle(int k, const QColor& colour)
{
    switch (k) {
    case 0:
        return QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(colour, 2), Qt::NoBrush, 14);
    case 1:
        return QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(colour, 2), Qt::NoBrush, 12);
    default:
        return QCPScatterStyle(QCPScatterStyle::ssStar, QPen(colour, 2), Qt::NoBrush, 15);
    }
}
} // namespace

namespace {
/// Log ticks labelled as times with an SI prefix ("10 µs", "1 ms", "2 s").
class SecondsTicker : public LogTicker
{
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar, int) override
    {
        static const struct
        {
            double scale;
            const char* unit;
        } kUnits[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "\u00b5s"}, {1e-9, "ns"}, {1e-12, "ps"}};
        for (const auto& u : kUnits) {
            if (tick >= u.scale * 0.999 || u.scale == 1e-12)
                return locale.toString(tick / u.scale, 'g', 3) + QChar(' ') + QString::fromUtf8(u.unit);
        }
        return {};
    }
};
} // namespace

ParetoPlot::ParetoPlot(QWidget* parent)
    : QWidget(parent)
{
    m_plot = new QCustomPlot(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(320, 240);

    QSharedPointer<QCPAxisTickerLog> logTicker(new LogTicker);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(logTicker);
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
        axis->grid()->setSubGridVisible(true);
    }
    // Runtime in seconds on the top axis: architects compare against deadlines, not cycle counts.
    m_plot->xAxis2->setVisible(true);
    m_plot->xAxis2->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis2->setTicker(QSharedPointer<SecondsTicker>(new SecondsTicker));
    m_plot->xAxis->setLabel(tr("runtime (cycles)"));
    // What the search ranks: MAESTRO's on-chip energy plus the DRAM transfers (0 when the accelerator
    // charges none, as P1/P2 and MAESTRO's files do).
    m_plot->yAxis->setLabel(tr("total energy with DRAM (%1)").arg(m_energyUnit));
    m_plot->xAxis->setRange(1e3, 1e7);
    m_plot->yAxis->setRange(1e6, 1e10);

    m_cloud = m_plot->addGraph();
    m_cloud->setName(tr("evaluated mappings"));
    m_cloud->setLineStyle(QCPGraph::lsNone);
    m_cloud->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kCloud, kCloud, 4));
    m_cloudItem = new QCPItemPixmap(m_plot);
    m_cloudItem->setScaled(false);
    m_cloudItem->setClipToAxisRect(true);
    m_cloudItem->setSelectable(false);
    m_cloudItem->topLeft->setType(QCPItemPosition::ptAbsolute);
    m_cloudItem->bottomRight->setType(QCPItemPosition::ptAbsolute);
    // A resize changes the axis rect: the raster is redrawn for the new one.
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        placeStyleLabels(); // the axes are final here, and nothing is drawn yet
        if (m_plot->axisRect()->rect() != m_rasterRect)
            QMetaObject::invokeMethod(
                this, [this] { redecimate(); }, Qt::QueuedConnection);
    });

    m_frontGraph = m_plot->addGraph();
    m_frontGraph->setName(tr("Pareto front"));
    m_frontGraph->setLineStyle(QCPGraph::lsStepLeft);
    m_frontGraph->setPen(QPen(kFront, 2));
    m_frontGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kFront, Qt::white, 7));

    // One marker per objective: a mapping best in two shows both shapes on one point.
    const QString bestNames[3] = {tr("best runtime"), tr("best energy"), tr("best EDP")};
    for (int k = 0; k < 3; ++k) {
        m_bestGraph[k] = m_plot->addGraph();
        m_bestGraph[k]->setName(bestNames[k]);
        m_bestGraph[k]->setLineStyle(QCPGraph::lsNone);
        m_bestGraph[k]->setScatterStyle(bestStyle(k, kBest));
    }

    m_styleGraph = m_plot->addGraph();
    m_styleGraph->setName(tr("best of a mapping style"));
    m_styleGraph->setLineStyle(QCPGraph::lsNone);
    m_styleGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kStyle, 1.5), QColor(230, 140, 40, 90), 10));

    m_roofline = new QCPItemStraightLine(m_plot);
    m_roofline->setPen(QPen(kRoofline, 1.5, Qt::DashLine));
    m_roofline->setVisible(false);
    m_rooflineLabel = new QCPItemText(m_plot);
    m_rooflineLabel->setText(tr("roofline"));
    m_rooflineLabel->setColor(kRoofline);
    m_rooflineLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_rooflineLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_rooflineLabel->setVisible(false);

    m_staleLabel = new QCPItemText(m_plot);
    m_staleLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
    // Bottom left: below and left of the Pareto front nothing can be, and the legend is top right.
    m_staleLabel->position->setCoords(0.01, 0.98);
    m_staleLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_staleLabel->setColor(QColor(kStaleNote));
    m_staleLabel->setBrush(QColor(255, 255, 255, 230));
    m_staleLabel->setPen(QPen(QColor(kStaleNote)));
    m_staleLabel->setPadding(QMargins(6, 3, 6, 3));
    m_staleLabel->setVisible(false);

    m_empty = new QCPItemText(m_plot);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setText(defaultEmptyMessage());
    m_empty->setColor(QColor(110, 110, 110));

    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(QColor(255, 255, 255, 220));
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &ParetoPlot::showContextMenu);
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
        updateSecondsAxis();
        // Zooming changes which points share a pixel.
        QMetaObject::invokeMethod(
            this, [this] { redecimate(); }, Qt::QueuedConnection);
    });
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    updateSecondsAxis();
}

void ParetoPlot::setEnergyUnit(const QString& unit)
{
    if (unit == m_energyUnit) return;
    m_energyUnit = unit;
    m_plot->yAxis->setLabel(tr("total energy with DRAM (%1)").arg(m_energyUnit));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setClockMhz(double mhz)
{
    m_clockMhz = mhz;
    updateSecondsAxis();
}

void ParetoPlot::updateSecondsAxis()
{
    const double hz = m_clockMhz * 1e6;
    if (!(hz > 0)) return;
    m_plot->xAxis2->setLabel(tr("runtime at %1 MHz").arg(m_clockMhz));
    const QCPRange cycles = m_plot->xAxis->range();
    m_plot->xAxis2->setRange(cycles.lower / hz, cycles.upper / hz);
}

void ParetoPlot::clear(const QString& message)
{
    m_runtime.clear();
    m_received = 0;
    m_energy.clear();
    m_utilisation.clear();
    m_front.clear();
    m_cells.clear();
    m_raster.fill(Qt::transparent);
    publishRaster();
    m_frontGraph->data()->clear();
    for (QCPGraph* g : m_bestGraph)
        g->data()->clear();
    m_styleGraph->data()->clear();
    for (QCPItemText* label : m_styleLabels)
        m_plot->removeItem(label);
    m_styleLabels.clear();
    for (QCPItemLine* leader : m_styleLeaders)
        m_plot->removeItem(leader);
    m_styleLeaders.clear();
    m_styleLabelRects.clear();
    m_styleMarks.clear();
    m_drawn = 0;
    m_empty->setText(message.isEmpty() ? idleMessage() : message);
    m_empty->setVisible(true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString ParetoPlot::idleMessage() const
{
    return m_idleMessage.isEmpty() ? defaultEmptyMessage() : m_idleMessage;
}

void ParetoPlot::setIdleMessage(const QString& message)
{
    const QString before = idleMessage();
    m_idleMessage = message;
    // Only the idle text is replaced: "Searching..." or a search's own message stays.
    if (m_empty->text() == before && m_empty->text() != idleMessage()) {
        m_empty->setText(idleMessage());
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString ParetoPlot::emptyMessage() const
{
    return m_empty->visible() ? m_empty->text() : QString();
}

void ParetoPlot::setRoofline(std::int64_t cycles)
{
    m_rooflineCycles = cycles;
    m_roofline->setVisible(cycles > 0);
    m_rooflineLabel->setVisible(cycles > 0);
    if (cycles > 0) {
        m_rooflineLabel->position->setCoords(static_cast<double>(cycles), 0.02);
        m_roofline->point1->setCoords(static_cast<double>(cycles), 1);
        m_roofline->point2->setCoords(static_cast<double>(cycles), 2);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setStale(const QString& change)
{
    if (change == m_stale) return;
    m_stale = change;
    m_staleLabel->setText(staleText(change));
    m_staleLabel->setVisible(!change.isEmpty());
    applyColours();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString ParetoPlot::staleNote() const
{
    return m_stale.isEmpty() ? QString() : staleText(m_stale);
}

void ParetoPlot::applyColours()
{
    const QColor grey(kStaleGrey);
    const bool stale = !m_stale.isEmpty();
    const QColor front = stale ? grey : kFront, best = stale ? grey : kBest, style = stale ? grey : kStyle;
    m_frontGraph->setPen(QPen(front, 2));
    m_frontGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, front, Qt::white, 7));
    for (int k = 0; k < 3; ++k)
        m_bestGraph[k]->setScatterStyle(bestStyle(k, best));
    m_styleGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(style, 1.5),
        stale ? QColor(grey.red(), grey.green(), grey.blue(), 90) : QColor(230, 140, 40, 90), 10));
    const QColor roof = stale ? grey : kRoofline;
    m_roofline->setPen(QPen(roof, 1.5, Qt::DashLine));
    m_rooflineLabel->setColor(roof);
    for (QCPItemText* label : m_styleLabels)
        label->setColor(stale ? grey : kStyle.darker(130));
    for (QCPItemLine* leader : m_styleLeaders)
        leader->setPen(QPen(stale ? grey : kStyle.darker(130), 1));
}

void ParetoPlot::addPoints(std::span<const search::EvaluatedPoint> points)
{
    if (points.empty()) return;
    const QCPRange xr = m_plot->xAxis->range(), yr = m_plot->yAxis->range();
    bool outside = m_runtime.empty();
    for (const search::EvaluatedPoint& p : points) {
        ++m_received;
        outside = outside || !xr.contains(static_cast<double>(p.runtime)) || !yr.contains(p.energy);
        std::size_t slot = m_runtime.size();
        if (slot >= kMaxStoredPoints) {
            // Memory stays bounded on enormous searches: past the cap the kept points are a uniform
            // sample of all (reservoir sampling); every point is still drawn when it arrives.
            slot = static_cast<std::size_t>(m_sampler() % m_received);
            if (slot >= kMaxStoredPoints) continue;
            m_runtime[slot] = p.runtime;
            m_energy[slot] = static_cast<float>(p.energy);
            m_utilisation[slot] = static_cast<float>(p.utilization);
            continue;
        }
        m_runtime.push_back(p.runtime);
        m_energy.push_back(static_cast<float>(p.energy));
        m_utilisation.push_back(static_cast<float>(p.utilization));
    }
    m_empty->setVisible(false);
    if (outside) {
        rescale(); // redecimates from the kept points
    } else {
        stamp(points.size(), [&](std::size_t i) {
            return std::pair{static_cast<double>(points[i].runtime), points[i].energy};
        });
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

template <class PointAt> void ParetoPlot::stamp(std::size_t count, PointAt pointAt)
{
    if (m_raster.isNull()) return;
    const QCPRange xr = m_plot->xAxis->range(), yr = m_plot->yAxis->range();
    const QPoint origin = m_rasterRect.topLeft();
    QPainter painter(&m_raster);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(kCloud);
    for (std::size_t i = 0; i < count; ++i) {
        const auto [x, y] = pointAt(i);
        if (!xr.contains(x) || !yr.contains(y)) continue;
        const int px = qRound(m_plot->xAxis->coordToPixel(x)) - origin.x();
        const int py = qRound(m_plot->yAxis->coordToPixel(y)) - origin.y();
        // One dot per pixel: a million points cost what the pixels they cover cost.
        if (!m_cells.insert((quint64(quint32(px)) << 32) | quint32(py)).second) continue;
        painter.drawEllipse(QRectF(px - kDotPx / 2.0, py - kDotPx / 2.0, kDotPx, kDotPx));
    }
    painter.end();
    m_drawn = m_cells.size();
    publishRaster();
}

void ParetoPlot::publishRaster()
{
    if (m_raster.isNull()) return; // not laid out yet: nothing drawn
    m_cloudItem->topLeft->setCoords(m_rasterRect.left(), m_rasterRect.top());
    m_cloudItem->bottomRight->setCoords(m_rasterRect.right() + 1, m_rasterRect.bottom() + 1);
    m_cloudItem->setPixmap(QPixmap::fromImage(m_raster));
}

void ParetoPlot::rescale()
{
    if (m_runtime.empty() && m_front.empty() && m_styleMarks.empty()) return;
    double x0 = std::numeric_limits<double>::max(), x1 = 0, y0 = std::numeric_limits<double>::max(), y1 = 0;
    for (std::size_t i = 0; i < m_runtime.size(); ++i) {
        x0 = std::min(x0, static_cast<double>(m_runtime[i]));
        x1 = std::max(x1, static_cast<double>(m_runtime[i]));
        y0 = std::min(y0, static_cast<double>(m_energy[i]));
        y1 = std::max(y1, static_cast<double>(m_energy[i]));
    }
    for (const search::Candidate& c : m_front) {
        x0 = std::min(x0, static_cast<double>(c.metrics.runtime));
        x1 = std::max(x1, static_cast<double>(c.metrics.runtime));
        y0 = std::min(y0, c.metrics.energy);
        y1 = std::max(y1, c.metrics.energy);
    }
    for (const StyleMark& m : m_styleMarks) {
        x0 = std::min(x0, static_cast<double>(m.runtime));
        x1 = std::max(x1, static_cast<double>(m.runtime));
        y0 = std::min(y0, m.energy);
        y1 = std::max(y1, m.energy);
    }
    if (m_rooflineCycles > 0) x0 = std::min(x0, static_cast<double>(m_rooflineCycles));
    // Padding in log space so that a few more points do not force another full pass.
    auto fit = [](QCPAxis* axis, double lo, double hi) {
        lo = std::max(1e-3, lo / 1.3);
        hi = std::max(hi * 1.3, lo * 1.01);
        axis->setRange(lo, hi);
    };
    fit(m_plot->xAxis, x0, x1);
    fit(m_plot->yAxis, y0, y1);
    redecimate();
}

void ParetoPlot::redecimate()
{
    m_rasterRect = m_plot->axisRect()->rect();
    const QSize size = m_rasterRect.size().expandedTo(QSize(1, 1));
    if (m_raster.size() != size) m_raster = QImage(size, QImage::Format_ARGB32_Premultiplied);
    m_raster.fill(Qt::transparent);
    m_cells.clear();
    stamp(m_runtime.size(), [this](std::size_t i) {
        return std::pair{static_cast<double>(m_runtime[i]), double(m_energy[i])};
    });
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setFront(const std::vector<search::Candidate>& front)
{
    m_front = front;
    QVector<double> keys, values;
    for (const search::Candidate& c : front) {
        keys.push_back(static_cast<double>(c.metrics.runtime));
        values.push_back(c.metrics.energy);
    }
    m_frontGraph->setData(keys, values, true);
    if (!front.empty()) m_empty->setVisible(false);
    if (m_runtime.empty()) rescale();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setBest(const std::optional<search::Candidate>& runtime,
    const std::optional<search::Candidate>& energy, const std::optional<search::Candidate>& edp)
{
    const std::optional<search::Candidate>* bests[3] = {&runtime, &energy, &edp};
    for (int k = 0; k < 3; ++k) {
        QVector<double> keys, values;
        if (const auto& c = *bests[k]) {
            keys.push_back(static_cast<double>(c->metrics.runtime));
            values.push_back(c->metrics.energy);
        }
        m_bestGraph[k]->setData(keys, values);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setStyleMarks(const std::vector<StyleMark>& marks)
{
    for (QCPItemText* label : m_styleLabels)
        m_plot->removeItem(label);
    m_styleLabels.clear();
    for (QCPItemLine* leader : m_styleLeaders)
        m_plot->removeItem(leader);
    m_styleLeaders.clear();
    m_styleLabelRects.clear();
    m_styleMarks = marks;
    QVector<double> keys, values;
    for (const StyleMark& m : marks) {
        keys.push_back(static_cast<double>(m.runtime));
        values.push_back(m.energy);
        auto* label = new QCPItemText(m_plot);
        label->setText(m.label);
        label->setColor(m_stale.isEmpty() ? kStyle.darker(130) : QColor(kStaleGrey));
        // Placed in pixels at every layout (placeStyleLabels), where it covers no mark and no front.
        label->position->setType(QCPItemPosition::ptAbsolute);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(3, 1, 3, 1));
        label->setBrush(QColor(255, 255, 255, 200));
        label->setClipToAxisRect(true);
        m_styleLabels.push_back(label);
        auto* leader = new QCPItemLine(m_plot);
        leader->start->setType(QCPItemPosition::ptAbsolute);
        leader->end->setType(QCPItemPosition::ptAbsolute);
        leader->setPen(QPen(m_stale.isEmpty() ? kStyle.darker(130) : QColor(kStaleGrey), 1));
        leader->setClipToAxisRect(true);
        leader->setVisible(false);
        m_styleLeaders.push_back(leader);
    }
    m_styleGraph->setData(keys, values);
    m_empty->setVisible(m_runtime.empty() && m_front.empty() && marks.empty());
    rescale();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

std::vector<QRectF> ParetoPlot::markRects() const
{
    std::vector<QRectF> out;
    auto pixel = [this](double runtime, double energy) {
        return QPointF(m_plot->xAxis->coordToPixel(runtime), m_plot->yAxis->coordToPixel(energy));
    };
    auto around = [&](const QPointF& p, double half) {
        out.push_back(QRectF(p.x() - half, p.y() - half, 2 * half, 2 * half));
    };
    // The front's points and its step line (lsStepLeft: along at a point's energy to the next runtime,
    // then down to the next energy), as thin rectangles.
    for (std::size_t i = 0; i < m_front.size(); ++i) {
        const QPointF p = pixel(static_cast<double>(m_front[i].metrics.runtime), m_front[i].metrics.energy);
        around(p, 5);
        if (i + 1 == m_front.size()) continue;
        const QPointF q
            = pixel(static_cast<double>(m_front[i + 1].metrics.runtime), m_front[i + 1].metrics.energy);
        out.push_back(
            QRectF(QPointF(std::min(p.x(), q.x()), p.y() - 2), QPointF(std::max(p.x(), q.x()), p.y() + 2)));
        out.push_back(
            QRectF(QPointF(q.x() - 2, std::min(p.y(), q.y())), QPointF(q.x() + 2, std::max(p.y(), q.y()))));
    }
    for (const QCPGraph* g : m_bestGraph)
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            around(pixel(it->key, it->value), 8);
    for (const StyleMark& m : m_styleMarks)
        around(pixel(static_cast<double>(m.runtime), m.energy), 6);
    return out;
}

std::vector<QRectF> ParetoPlot::styleLabelRects() const
{
    return m_styleLabelRects;
}

void ParetoPlot::placeStyleLabels()
{
    m_styleLabelRects.assign(m_styleLabels.size(), QRectF());
    if (m_styleLabels.empty()) return;
    const QRectF area = m_plot->axisRect()->rect();
    const std::vector<QRectF> marks = markRects();
    std::vector<QRectF> taken;
    // Left to right, each label takes the nearest place around its mark that covers no other label, no
    // mark (front points, bests, styles) and no stretch of the front, inside the plot; one set away from
    // its mark gets a leader line to it. Where nothing is free, the place that covers the fewest.
    std::vector<std::size_t> order(m_styleLabels.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
        [this](std::size_t a, std::size_t b) { return m_styleMarks[a].runtime < m_styleMarks[b].runtime; });
    // Directions in order of preference: right, above right, above, ... (unit vectors, y down).
    static const QPointF kDirections[]
        = {{1, 0}, {0.7, -0.7}, {0.7, 0.7}, {-1, 0}, {-0.7, -0.7}, {-0.7, 0.7}, {0, -1}, {0, 1}};
    static const double kDistances[] = {4, 14, 28, 48, 72};
    for (std::size_t i : order) {
        QCPItemText* label = m_styleLabels[i];
        const QPointF at(m_plot->xAxis->coordToPixel(static_cast<double>(m_styleMarks[i].runtime)),
            m_plot->yAxis->coordToPixel(m_styleMarks[i].energy));
        const QSizeF size
            = QFontMetricsF(label->font()).size(Qt::TextSingleLine, label->text()) + QSizeF(6, 2);
        QRectF chosen;
        double chosenDistance = 0;
        int fewest = std::numeric_limits<int>::max();
        for (double d : kDistances) {
            for (const QPointF& dir : kDirections) {
                // The rectangle's side nearest the mark sits `d` beyond the mark's half-size (6 px).
                const double reach = 6 + d;
                QPointF centre = at
                    + QPointF(dir.x() * (reach + size.width() / 2), dir.y() * (reach + size.height() / 2));
                const QRectF rect(centre - QPointF(size.width() / 2, size.height() / 2), size);
                if (!area.contains(rect)) continue;
                int covered = 0;
                for (const QRectF& t : taken)
                    covered += t.intersects(rect) ? 4 : 0; // labels over labels are the worst
                for (const QRectF& m : marks)
                    covered += m.intersects(rect) ? 1 : 0;
                if (covered < fewest) {
                    fewest = covered;
                    chosen = rect;
                    chosenDistance = d;
                }
                if (covered == 0) break;
            }
            if (fewest == 0) break;
        }
        if (chosen.isNull()) chosen = QRectF(at + QPointF(10, -size.height() / 2), size); // a tiny plot
        label->position->setCoords(chosen.topLeft());
        m_styleLabelRects[i] = chosen;
        taken.push_back(chosen);
        QCPItemLine* leader = m_styleLeaders[i];
        leader->setVisible(chosenDistance > 4);
        if (chosenDistance > 4) {
            // From the mark's edge to the nearest point of the label.
            const QPointF end(std::clamp(at.x(), chosen.left(), chosen.right()),
                std::clamp(at.y(), chosen.top(), chosen.bottom()));
            const QPointF towards = end - at;
            const double length = std::hypot(towards.x(), towards.y());
            leader->start->setCoords(length > 0 ? at + towards * (6 / length) : at);
            leader->end->setCoords(end);
        }
    }
}

double ParetoPlot::replotNowMs()
{
    QElapsedTimer timer;
    timer.start();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

QString ParetoPlot::describe(std::int64_t runtime, double energy, double utilisation) const
{
    const double seconds = static_cast<double>(runtime) / (m_clockMhz * 1e6);
    return tr("runtime %L1 cycles (%2 ms at %3 MHz)\ntotal energy %4 %7 (with DRAM)\n"
              "EDP %5\nPE utilisation %6%")
        .arg(runtime)
        .arg(seconds * 1e3, 0, 'g', 4)
        .arg(m_clockMhz)
        .arg(energy, 0, 'g', 6)
        .arg(edp(runtime, energy), 0, 'g', 6)
        .arg(utilisation * 100, 0, 'f', 1)
        .arg(m_energyUnit);
}

int ParetoPlot::nearestFrontPoint(const QPoint& pixel) const
{
    int best = -1;
    double bestDistance = kPickRadiusPx;
    for (std::size_t i = 0; i < m_front.size(); ++i) {
        const double dx
            = m_plot->xAxis->coordToPixel(static_cast<double>(m_front[i].metrics.runtime)) - pixel.x();
        const double dy = m_plot->yAxis->coordToPixel(m_front[i].metrics.energy) - pixel.y();
        const double d = std::hypot(dx, dy);
        if (d <= bestDistance) {
            bestDistance = d;
            best = static_cast<int>(i);
        }
    }
    return best;
}

int ParetoPlot::nearestCloudPoint(const QPoint& pixel) const
{
    int best = -1;
    double bestDistance = kPickRadiusPx;
    // The exact points, not the drawn ones: their utilisation is what the tooltip shows.
    const double x0 = m_plot->xAxis->pixelToCoord(pixel.x() - kPickRadiusPx);
    const double x1 = m_plot->xAxis->pixelToCoord(pixel.x() + kPickRadiusPx);
    for (std::size_t i = 0; i < m_runtime.size(); ++i) {
        const double x = static_cast<double>(m_runtime[i]);
        if (x < x0 || x > x1) continue;
        const double d = std::hypot(
            m_plot->xAxis->coordToPixel(x) - pixel.x(), m_plot->yAxis->coordToPixel(m_energy[i]) - pixel.y());
        if (d <= bestDistance) {
            bestDistance = d;
            best = static_cast<int>(i);
        }
    }
    return best;
}

bool ParetoPlot::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot) {
        if (event->type() == QEvent::Resize)
            QMetaObject::invokeMethod(
                this, [this] { redecimate(); }, Qt::QueuedConnection);
        if (event->type() == QEvent::MouseMove) {
            const QPoint pos = static_cast<QMouseEvent*>(event)->pos();
            if (int f = nearestFrontPoint(pos); f >= 0) {
                const search::Candidate& c = m_front[static_cast<std::size_t>(f)];
                QToolTip::showText(m_plot->mapToGlobal(pos),
                    tr("Pareto point (click to show its mapping)\n")
                        + describe(c.metrics.runtime, c.metrics.energy, c.metrics.utilization),
                    m_plot);
            } else if (int p = nearestCloudPoint(pos); p >= 0) {
                const auto i = static_cast<std::size_t>(p);
                QToolTip::showText(
                    m_plot->mapToGlobal(pos), describe(m_runtime[i], m_energy[i], m_utilisation[i]), m_plot);
            } else {
                QToolTip::hideText();
            }
        }
        if (event->type() == QEvent::MouseButtonRelease
            && static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton) {
            if (int f = nearestFrontPoint(static_cast<QMouseEvent*>(event)->pos()); f >= 0)
                emit frontPointClicked(m_front[static_cast<std::size_t>(f)].index);
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ParetoPlot::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    menu.addAction(tr("Export plot as PNG..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), {}, tr("PNG (*.png)"));
        if (!path.isEmpty()) savePng(path, m_plot->width(), m_plot->height());
    });
    menu.addAction(tr("Export plot as PDF..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), {}, tr("PDF (*.pdf)"));
        if (!path.isEmpty()) savePdf(path);
    });
    menu.addAction(tr("Export plot as SVG..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), {}, tr("SVG (*.svg)"));
        if (!path.isEmpty()) saveSvg(path);
    });
    menu.addAction(tr("Export Pareto front as CSV..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export front"), {}, tr("CSV (*.csv)"));
        if (!path.isEmpty()) saveFrontCsv(path);
    });
    menu.exec(m_plot->mapToGlobal(pos));
}

bool ParetoPlot::savePng(const QString& path, int width, int height)
{
    return m_plot->savePng(path, width, height);
}

bool ParetoPlot::savePdf(const QString& path)
{
    return m_plot->savePdf(path, m_plot->width(), m_plot->height());
}

bool ParetoPlot::saveSvg(const QString& path)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(m_plot->size());
    generator.setViewBox(QRect(QPoint(0, 0), m_plot->size()));
    generator.setTitle(tr("Runtime-energy trade-off"));
    QCPPainter painter;
    if (!painter.begin(&generator)) return false;
    m_plot->toPainter(&painter, m_plot->width(), m_plot->height());
    return painter.end();
}

bool ParetoPlot::saveFrontCsv(const QString& path) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return false; // "\n" as the CLI writes it
    // The CLI's --pareto-csv writer itself: a file from either program reads the same.
    const std::string text
        = search::paretoCsvHeader() + search::paretoCsvRows(m_layerName.toStdString(), m_front);
    const QByteArray out = QByteArray::fromStdString(text);
    return file.write(out) == out.size() && file.commit();
}

} // namespace marvel::ui
