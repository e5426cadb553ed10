#include "ui/animation/delay_strip.h"

#include <algorithm>

#include <QMouseEvent>
#include <QPainter>

namespace marvel::ui {

namespace {
constexpr double kMinStepWidth = 16; ///< three 4-pixel bars and a gap
constexpr double kMaxStepWidth = 64;
constexpr double kLeft = 8;
constexpr double kLegendHeight = 18;
const QColor kIngressColour(33, 113, 181), kComputeColour(35, 139, 69), kEgressColour(230, 110, 20);
} // namespace

DelayStrip::DelayStrip(QWidget* parent)
    : QWidget(parent)
{
    setMinimumHeight(80);
    setMaximumHeight(120);
    setToolTip(tr(
        "Each step's ingress (blue), compute (green) and egress (orange) delay; click a step to go there"));
}

void DelayStrip::setDelays(const std::vector<std::vector<sim::StepDelays>>* delays)
{
    m_delays = delays;
    m_max = 1;
    if (delays)
        for (const auto& levels : *delays)
            if (!levels.empty())
                m_max = std::max({m_max, levels.back().ingress, levels.back().compute, levels.back().egress});
    m_current = 0;
    update();
}

void DelayStrip::setCurrent(std::int64_t frame)
{
    m_current = frame;
    update();
}

void DelayStrip::setHighlightedLevel(int level)
{
    m_highlightLevel = level;
    update();
}

double DelayStrip::stepWidth() const
{
    // Few steps get wide bars; many scroll past at the narrowest width.
    const double n = m_delays && !m_delays->empty() ? double(m_delays->size()) : 1.0;
    return std::clamp((width() - 2 * kLeft) / n, kMinStepWidth, kMaxStepWidth);
}

int DelayStrip::visibleCount() const
{
    return std::max(1, int((width() - 2 * kLeft) / stepWidth()));
}

std::int64_t DelayStrip::firstVisible() const
{
    if (!m_delays) return 0;
    const std::int64_t n = std::int64_t(m_delays->size());
    const std::int64_t visible = visibleCount();
    // The current step stays near the middle once the strip is longer than the widget.
    return std::clamp<std::int64_t>(m_current - visible / 2, 0, std::max<std::int64_t>(0, n - visible));
}

std::int64_t DelayStrip::frameAt(double x) const
{
    if (!m_delays || x < kLeft) return -1;
    const std::int64_t f = firstVisible() + std::int64_t((x - kLeft) / stepWidth());
    return f < std::int64_t(m_delays->size()) ? f : -1;
}

void DelayStrip::mousePressEvent(QMouseEvent* e)
{
    const std::int64_t f = frameAt(e->position().x());
    if (f >= 0) emit frameClicked(f);
}

void DelayStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    QFont small = font();
    small.setPointSizeF(std::max(6.5, small.pointSizeF() * 0.85));
    p.setFont(small);
    double x = kLeft;
    for (auto [colour, name] : {std::pair{kIngressColour, tr("ingress")}, {kComputeColour, tr("compute")},
             {kEgressColour, tr("egress")}}) {
        p.fillRect(QRectF(x, 4, 10, 10), colour);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPointF(x + 14, 13), name);
        x += 24 + p.fontMetrics().horizontalAdvance(name);
    }
    if (!m_delays || m_delays->empty()) return;
    p.drawText(
        QPointF(x + 10, 13), tr("innermost level's steps, bar height in cycles (tallest %1)").arg(m_max));

    const double top = kLegendHeight + 4, bottom = height() - 6, h = bottom - top;
    const double kStepWidth = stepWidth(), kBarWidth = (kStepWidth - 4) / 3;
    const std::int64_t first = firstVisible();
    const std::int64_t last = std::min<std::int64_t>(std::int64_t(m_delays->size()), first + visibleCount());
    for (std::int64_t f = first; f < last; ++f) {
        const auto& levels = (*m_delays)[std::size_t(f)];
        const double left = kLeft + double(f - first) * kStepWidth;
        if (f == m_current) p.fillRect(QRectF(left - 2, top - 2, kStepWidth, h + 4), QColor(255, 225, 150));
        if (!levels.empty() && levels.front().begins && f > 0) {
            p.setPen(QPen(QColor(150, 150, 150), 1, Qt::DotLine));
            p.drawLine(QPointF(left - 2, top), QPointF(left - 2, bottom));
        }
        if (m_highlightLevel >= 0 && m_highlightLevel < int(levels.size())
            && levels[std::size_t(m_highlightLevel)].begins)
            p.fillRect(QRectF(left - 1, bottom + 1, kStepWidth - 2, 4), QColor(230, 120, 0));
        if (levels.empty()) continue;
        const sim::StepDelays& d = levels.back();
        auto bar = [&](int k, std::int64_t v, const QColor& c) {
            const double bh = h * double(v) / double(m_max);
            p.fillRect(QRectF(left + k * kBarWidth, bottom - bh, kBarWidth - 0.5, bh), c);
        };
        bar(0, d.ingress, kIngressColour);
        bar(1, d.compute, kComputeColour);
        bar(2, d.egress, kEgressColour);
    }
}

} // namespace marvel::ui
