#include "ui/animation/pe_array_view.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace marvel::ui {

namespace {
constexpr double kGap = 10; ///< room for the fan-out buses between rows of sub-units
constexpr double kPad = 10; ///< room for the fan-out trunks left of the sub-units
constexpr double kHeader = 18;
constexpr double kLegend = 24;
constexpr double kSources = 54; ///< band for the fan-out sources above the array
constexpr std::int64_t kMaxFanLines = 256; ///< more receivers than this: the source says how many

int gridColumns(std::int64_t n, bool cells)
{
    // A few PEs read as a row; clusters, already wider than tall, go in a square-ish grid so that nested
    // arrays fill a panel rather than a strip of it.
    if (cells && n <= 8) return static_cast<int>(std::max<std::int64_t>(1, n));
    if (!cells && n <= 3) return static_cast<int>(std::max<std::int64_t>(1, n));
    return static_cast<int>(std::ceil(std::sqrt(double(n) * (cells ? 2.0 : 1.0))));
}

QString rangesText(const sim::TensorInfo& info, const sim::TensorState& st)
{
    QStringList parts;
    for (std::size_t d = 0; d < info.dims.size() && d < st.ranges.size(); ++d) {
        const sim::Range& r = st.ranges[d];
        if (r.size() == 1)
            parts << QString::number(r.begin);
        else
            parts << QStringLiteral("%1:%2").arg(r.begin).arg(r.end);
    }
    return QString::fromStdString(info.name) + QLatin1Char('[') + parts.join(QStringLiteral("]["))
        + QLatin1Char(']');
}
} // namespace

PeArrayView::PeArrayView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus); // a click puts the focus here: the panel's keys then work
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

QColor PeArrayView::tensorColour(int tensor, int tensors)
{
    // Inputs in blue and green tones, the output (last) in orange: the same in every view.
    static const QColor inputs[] = {QColor(33, 113, 181), QColor(35, 139, 69), QColor(117, 107, 177),
        QColor(0, 150, 160), QColor(140, 110, 40)};
    if (tensor == tensors - 1) return QColor(230, 110, 20);
    return inputs[tensor % 5];
}

void PeArrayView::setLayout(const sim::Layout& layout)
{
    m_layout = layout;
    m_frame = nullptr;
    m_highlightLevel = -1;
    relayout();
}

void PeArrayView::setFrame(const sim::Frame* frame)
{
    m_frame = frame;
    update();
}

void PeArrayView::setHighlightedLevel(int level)
{
    m_highlightLevel = level;
    update();
}

void PeArrayView::setZoom(double zoom)
{
    m_zoom = std::clamp(zoom, 0.15, 4.0);
    relayout();
}

double PeArrayView::zoomToFit(QSize viewport) const
{
    constexpr double kMinZoom = 10.0 / 48.0, kMaxZoom = 120.0 / 48.0;
    if (!m_layout || m_layout->levels.empty()) return 1.0;
    const double width = viewport.width() - 2 * kPad;
    const double height = viewport.height() - kLegend - kSources - kPad;
    // Frames and gaps do not scale with the cells, so the fit is found by bisection on the cell size.
    const auto fits = [&](double zoom) {
        const QSizeF size = unitSizeAt(0, 48.0 * zoom);
        return size.width() <= width && size.height() <= height;
    };
    const auto largest = [&](auto&& ok) {
        double lo = kMinZoom, hi = kMaxZoom;
        if (ok(hi)) return hi;
        for (int i = 0; i < 30; ++i) {
            const double mid = (lo + hi) / 2;
            (ok(mid) ? lo : hi) = mid;
        }
        return lo;
    };
    const double whole = largest(fits);
    // Cells of 24 pixels still show a band per tensor: better than scrolling a small array.
    if (whole >= 24.0 / 48.0) return whole;
    // A tall array keeps cells of up to the default size and scrolls, rather than shrinking to dots; a
    // wide one scrolls too once its cells would fall below 20 pixels, where the bands stop being readable.
    const double across = largest([&](double zoom) { return unitSizeAt(0, 48.0 * zoom).width() <= width; });
    return std::max({whole, std::min(across, 1.0), 20.0 / 48.0});
}

QSizeF PeArrayView::unitSizeAt(int level, double cellSize) const
{
    const sim::LevelInfo& info = m_layout->levels[std::size_t(level)];
    const bool innermost = level + 1 == int(m_layout->levels.size());
    const QSizeF child = innermost ? QSizeF(cellSize, cellSize) : unitSizeAt(level + 1, cellSize);
    const int cols = gridColumns(info.subUnits, innermost);
    const auto rows = static_cast<int>((info.subUnits + cols - 1) / cols);
    return {cols * child.width() + (cols - 1) * kGap + 2 * kPad,
        rows * child.height() + (rows - 1) * kGap + 2 * kPad + kHeader};
}

void PeArrayView::place(int level, std::int64_t unit, std::int64_t firstPe, QPointF origin)
{
    const sim::LevelInfo& info = m_layout->levels[std::size_t(level)];
    const bool innermost = level + 1 == int(m_layout->levels.size());
    m_boxIndex[std::size_t(level)][std::size_t(unit)] = m_clusters.size();
    m_clusters.push_back({QRectF(origin, unitSize(level)), level, unit, firstPe});
    const QSizeF child = innermost ? QSizeF(cell(), cell()) : unitSize(level + 1);
    const int cols = gridColumns(info.subUnits, innermost);
    for (std::int64_t j = 0; j < info.subUnits; ++j) {
        const QPointF at(origin.x() + kPad + double(j % cols) * (child.width() + kGap),
            origin.y() + kHeader + kPad + double(j / cols) * (child.height() + kGap));
        const std::int64_t pe = firstPe + j * info.pesPerSubUnit;
        if (innermost) {
            if (pe < std::int64_t(m_peRects.size())) m_peRects[std::size_t(pe)] = QRectF(at, child);
        } else {
            place(level + 1, unit * info.subUnits + j, pe, at);
        }
    }
}

void PeArrayView::relayout()
{
    m_peRects.clear();
    m_clusters.clear();
    if (!m_layout || m_layout->levels.empty()) {
        m_size = QSizeF(200, 100);
        updateGeometry();
        update();
        return;
    }
    m_peRects.assign(std::size_t(m_layout->pes), QRectF());
    m_boxIndex.assign(m_layout->levels.size(), {});
    for (std::size_t l = 0; l < m_layout->levels.size(); ++l)
        m_boxIndex[l].assign(std::size_t(std::max<std::int64_t>(1, m_layout->levels[l].units)), 0);
    m_top = kLegend + kSources;
    place(0, 0, 0, QPointF(kPad, m_top));
    const QSizeF array = unitSize(0);
    m_size = QSizeF(std::max(array.width() + 2 * kPad, 330.0), m_top + array.height() + kPad);
    updateGeometry();
    resize(sizeHint());
    update();
}

QSize PeArrayView::sizeHint() const
{
    return m_size.toSize();
}

QRectF PeArrayView::peRect(std::int64_t pe) const
{
    return pe >= 0 && pe < std::int64_t(m_peRects.size()) ? m_peRects[std::size_t(pe)] : QRectF();
}

std::int64_t PeArrayView::peAt(const QPointF& pos) const
{
    for (std::size_t i = 0; i < m_peRects.size(); ++i)
        if (m_peRects[i].contains(pos)) return std::int64_t(i);
    return -1;
}

QString PeArrayView::describePe(std::int64_t pe) const
{
    if (!m_layout || !m_frame || pe < 0 || pe >= std::int64_t(m_frame->pes.size())) return {};
    const sim::PeState& st = m_frame->pes[std::size_t(pe)];
    QStringList lines;
    QStringList path;
    for (std::size_t l = 0; l < m_layout->levels.size(); ++l)
        path << QString::number((pe / m_layout->levels[l].pesPerSubUnit) % m_layout->levels[l].subUnits);
    lines << tr("PE %1 (sub-unit %2 from the top level down)").arg(pe).arg(path.join(QLatin1Char('.')));
    if (!st.active) {
        lines << tr("idle at this step");
        return lines.join(QLatin1Char('\n'));
    }
    // The PE's loop indices: each dimension's range in the first tensor that has it.
    QStringList indices;
    QStringList seen;
    for (std::size_t t = 0; t < m_layout->tensors.size() && t < st.tensors.size(); ++t) {
        const sim::TensorInfo& info = m_layout->tensors[t];
        for (std::size_t d = 0; d < info.dims.size() && d < st.tensors[t].ranges.size(); ++d) {
            const QString dim = QString::fromStdString(info.dims[d]);
            if (seen.contains(dim)) continue;
            seen << dim;
            const sim::Range& r = st.tensors[t].ranges[d];
            indices << QStringLiteral("%1 in [%2, %3)").arg(dim).arg(r.begin).arg(r.end);
        }
    }
    lines << tr("loop indices: %1").arg(indices.join(QStringLiteral(", ")));
    for (std::size_t t = 0; t < m_layout->tensors.size() && t < st.tensors.size(); ++t) {
        const sim::TensorInfo& info = m_layout->tensors[t];
        const sim::TensorState& ts = st.tensors[t];
        if (info.output)
            lines << tr("%1: holds %2, sent %3 partial sums")
                         .arg(rangesText(info, ts))
                         .arg(ts.held)
                         .arg(ts.sent);
        else
            lines << tr("%1: holds %2 (arrived %3, kept %4), multicast to %5 PEs")
                         .arg(rangesText(info, ts))
                         .arg(ts.held)
                         .arg(ts.arrived)
                         .arg(ts.stayed)
                         .arg(ts.fanout);
    }
    lines << tr("MACs this step: %1").arg(st.macs);
    return lines.join(QLatin1Char('\n'));
}

bool PeArrayView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = describePe(peAt(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

std::vector<int> PeArrayView::inputTensors() const
{
    std::vector<int> v;
    if (!m_layout) return v;
    for (std::size_t t = 0; t < m_layout->tensors.size(); ++t)
        if (!m_layout->tensors[t].output) v.push_back(int(t));
    return v;
}

QRectF PeArrayView::sourceChip(std::size_t k, std::size_t inputs) const
{
    const double slot = (m_size.width() - 2 * kPad) / double(std::max<std::size_t>(1, inputs));
    return {kPad + double(k) * slot, kLegend + 4, std::min(slot - 8, 240.0), 22};
}

PeArrayView::FanOut PeArrayView::fanOut(int tensor) const
{
    FanOut out;
    const std::vector<int> inputs = inputTensors();
    const auto it = std::find(inputs.begin(), inputs.end(), tensor);
    if (!m_frame || it == inputs.end()) return out;
    const auto k = static_cast<std::size_t>(it - inputs.begin());
    // Prefix counts of the PEs the tensor reached, for "does this unit receive" over its PE range.
    std::vector<std::int64_t> before(m_frame->pes.size() + 1, 0);
    for (std::size_t pe = 0; pe < m_frame->pes.size(); ++pe) {
        const sim::TensorState& ts = m_frame->pes[pe].tensors[std::size_t(tensor)];
        before[pe + 1] = before[pe] + (ts.arrived > 0 ? 1 : 0);
        if (ts.arrived > 0) out.multicast = std::max(out.multicast, ts.fanout);
    }
    out.receivers = before.back();
    if (out.receivers == 0 || m_clusters.empty()) return out;
    const bool toCells = before.back() <= kMaxFanLines;
    const auto receives = [&](std::int64_t firstPe, std::int64_t pes) {
        const std::int64_t n = std::int64_t(before.size()) - 1;
        const std::int64_t first = std::clamp<std::int64_t>(firstPe, 0, n);
        const std::int64_t last = std::clamp<std::int64_t>(firstPe + pes, first, n);
        return before[std::size_t(last)] > before[std::size_t(first)];
    };
    // Each tensor's lines are offset a little so that two trees sharing a margin stay apart.
    const double offset = (double(k) - double(inputs.size() - 1) / 2.0) * 3.5;
    const auto trunkX = [&](const QRectF& r) { return r.left() + kPad / 2 + offset; };
    const auto line = [&](QPointF a, QPointF b) { out.lines.push_back(QLineF(a, b)); };

    // From the source down into the array's left margin.
    const QRectF chip = sourceChip(k, inputs.size());
    const QPointF from(chip.center().x(), chip.bottom());
    const QRectF array = m_clusters.front().rect;
    const double turn = (from.y() + array.top()) / 2 + offset;
    line(from, QPointF(from.x(), turn));
    line(QPointF(from.x(), turn), QPointF(trunkX(array), turn));
    line(QPointF(trunkX(array), turn), QPointF(trunkX(array), array.top()));

    for (const ClusterBox& box : m_clusters) {
        const sim::LevelInfo& info = m_layout->levels[std::size_t(box.level)];
        if (!receives(box.firstPe, info.subUnits * info.pesPerSubUnit)) continue;
        const bool innermost = box.level + 1 == int(m_layout->levels.size());
        if (innermost && !toCells) continue;
        const int cols = gridColumns(info.subUnits, innermost);
        double lastBus = box.rect.top();
        // Rows of sub-units, each fed by a bus in the gap above it.
        for (std::int64_t rowStart = 0; rowStart < info.subUnits; rowStart += cols) {
            double busY = 0, busEnd = -1;
            for (std::int64_t j = rowStart; j < std::min<std::int64_t>(rowStart + cols, info.subUnits); ++j) {
                const std::int64_t pe = box.firstPe + j * info.pesPerSubUnit;
                if (!receives(pe, info.pesPerSubUnit)) continue;
                const QRectF child = innermost
                    ? peRect(pe)
                    : m_clusters[m_boxIndex[std::size_t(box.level + 1)]
                                           [std::size_t(box.unit * info.subUnits + j)]]
                          .rect;
                if (child.isEmpty()) continue;
                busY = child.top() - (rowStart == 0 ? kPad : kGap) / 2 + offset;
                const double x = innermost ? child.center().x() + offset : trunkX(child);
                line(QPointF(x, busY), QPointF(x, child.top()));
                if (innermost) out.dots.push_back(QPointF(x, child.top()));
                busEnd = std::max(busEnd, x);
            }
            if (busEnd < 0) continue;
            line(QPointF(trunkX(box.rect), busY), QPointF(busEnd, busY));
            lastBus = busY;
        }
        line(QPointF(trunkX(box.rect), box.rect.top()), QPointF(trunkX(box.rect), lastBus));
    }
    return out;
}

std::vector<QRectF> PeArrayView::clusterRects() const
{
    std::vector<QRectF> out;
    for (const ClusterBox& b : m_clusters)
        out.push_back(b.rect);
    return out;
}

void PeArrayView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    if (!m_layout) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Select a mapping to watch it move data"));
        return;
    }
    const int tensors = int(m_layout->tensors.size());
    const QFont base = font();
    QFont small = base;
    small.setPointSizeF(std::max(6.5, base.pointSizeF() * 0.85));

    // Legend: a swatch per tensor, then how to read a cell.
    double x = kPad;
    p.setFont(small);
    for (int t = 0; t < tensors; ++t) {
        p.fillRect(QRectF(x, 6, 14, 12), tensorColour(t, tensors));
        const QString name = QString::fromStdString(m_layout->tensors[std::size_t(t)].name)
            + (m_layout->tensors[std::size_t(t)].output ? tr(" (output)") : QString());
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPointF(x + 18, 16), name);
        x += 28 + p.fontMetrics().horizontalAdvance(name);
    }

    // Cluster frames, outermost first, labelled with their level's directives.
    for (const ClusterBox& box : m_clusters) {
        const sim::LevelInfo& info = m_layout->levels[std::size_t(box.level)];
        const bool lit = box.level == m_highlightLevel;
        const int shade = 245 - 12 * box.level;
        p.setPen(QPen(lit ? QColor(230, 120, 0) : QColor(150, 150, 160), lit ? 2.5 : 1));
        p.setBrush(QColor(shade, shade, std::min(255, shade + 6)));
        p.drawRoundedRect(box.rect, 5, 5);
        QStringList dirs;
        for (const std::string& d : info.userDirectives.empty() ? info.directives : info.userDirectives)
            dirs << QString::fromStdString(d);
        const QString name = box.level == 0 ? tr("array") : tr("cluster %1").arg(box.unit);
        p.setPen(palette().color(QPalette::Text));
        const QRectF text(
            box.rect.left() + kPad, box.rect.top() + 2, box.rect.width() - 2 * kPad, kHeader - 2);
        // The whole label when it fits, else the unit's name alone (its level's directives are in the
        // Directives list and the tooltip), else its number: never a word cut short.
        QString label
            = name + QStringLiteral(" \u00b7 L%1: ").arg(box.level) + dirs.join(QStringLiteral("; "));
        if (p.fontMetrics().horizontalAdvance(label) > text.width()) label = name;
        if (p.fontMetrics().horizontalAdvance(label) > text.width()) label = QString::number(box.unit);
        if (p.fontMetrics().horizontalAdvance(label) <= text.width())
            p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, label);
    }

    // Sources: one per input tensor, fanning out to the PEs its elements reached this step.
    if (m_frame) {
        const std::vector<int> inputs = inputTensors();
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const int t = inputs[k];
            const FanOut tree = fanOut(t);
            const QColor c = tensorColour(t, tensors);
            const QRectF chip = sourceChip(k, inputs.size());
            p.setPen(QPen(c, 1.5));
            p.setBrush(tree.receivers == 0 ? QColor(250, 250, 250) : c.lighter(185));
            p.drawRoundedRect(chip, 4, 4);
            const QString label = tree.receivers == 0
                ? tr("%1: nothing sent").arg(QString::fromStdString(m_layout->tensors[std::size_t(t)].name))
                : tr("%1 \u2192 %2 PEs, multicast \u00d7%3")
                      .arg(QString::fromStdString(m_layout->tensors[std::size_t(t)].name))
                      .arg(tree.receivers)
                      .arg(tree.multicast);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(chip.adjusted(4, 0, -4, 0), Qt::AlignCenter,
                p.fontMetrics().elidedText(label, Qt::ElideRight, int(chip.width() - 8)));
            QColor line = c;
            line.setAlpha(210);
            p.setPen(QPen(line, 1.8));
            p.setBrush(c);
            for (const QLineF& l : tree.lines)
                p.drawLine(l);
            for (const QPointF& d : tree.dots)
                p.drawEllipse(d, 2.2, 2.2);
        }
    }

    // The cells.
    for (std::size_t pe = 0; pe < m_peRects.size(); ++pe) {
        const QRectF r = m_peRects[pe];
        if (r.isEmpty()) continue;
        const sim::PeState* st = m_frame && pe < m_frame->pes.size() ? &m_frame->pes[pe] : nullptr;
        const bool active = st && st->active;
        p.setPen(QPen(QColor(120, 120, 130), 1));
        p.setBrush(active ? QColor(255, 255, 255) : QColor(222, 222, 226));
        p.drawRect(r);
        if (!active) continue;
        const double text = r.height() >= 40 ? 13 : 0;
        const double band = (r.height() - 4 - text) / std::max(1, tensors);
        for (int t = 0; t < tensors; ++t) {
            const sim::TensorState& ts = st->tensors[std::size_t(t)];
            const QRectF b(r.left() + 2, r.top() + 2 + t * band, r.width() - 4, band - 1);
            const QColor c = tensorColour(t, tensors);
            QColor pale = c;
            pale.setAlpha(70);
            if (ts.held <= 0) continue;
            bool bright = false;
            if (m_layout->tensors[std::size_t(t)].output) {
                bright = ts.sent > 0;
                p.fillRect(b, bright ? c : pale);
            } else {
                const double arrivedShare = std::clamp(double(ts.arrived) / double(ts.held), 0.0, 1.0);
                const QRectF kept(b.left(), b.top(), b.width() * (1 - arrivedShare), b.height());
                const QRectF fresh(kept.right(), b.top(), b.width() * arrivedShare, b.height());
                p.fillRect(kept, pale);
                p.fillRect(fresh, c);
                bright = arrivedShare > 0.5;
            }
            // Large cells (a classroom array) name what they hold on the band itself, as the tooltip does.
            if (b.height() >= 14) {
                const QString held = rangesText(m_layout->tensors[std::size_t(t)], ts);
                p.setFont(small);
                if (QFontMetricsF(small).horizontalAdvance(held) <= b.width() - 4) {
                    p.setPen(bright ? QColor(Qt::white) : QColor(40, 40, 48));
                    p.drawText(b, Qt::AlignCenter, held);
                }
            }
        }
        if (text > 0) {
            p.setFont(small);
            p.setPen(
                st->macs > 0 ? palette().color(QPalette::Text) : palette().color(QPalette::PlaceholderText));
            p.drawText(QRectF(r.left(), r.bottom() - text - 1, r.width(), text), Qt::AlignCenter,
                st->macs > 0 ? tr("%1 MAC").arg(st->macs) : tr("no MAC"));
        }
    }
}

} // namespace marvel::ui
