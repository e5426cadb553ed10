#include "ui/plot/log_ticker.h"

#include <array>
#include <cmath>
#include <limits>

namespace marvel::ui {

namespace {

/// Mantissa sets from the coarsest (the powers of ten alone) to the finest; a set spreads its ticks
/// roughly evenly over each decade of the log scale.
const std::array<QVector<double>, 5>& mantissaSets()
{
    static const std::array<QVector<double>, 5> sets{QVector<double>{1}, QVector<double>{1, 3},
        QVector<double>{1, 2, 5}, QVector<double>{1, 1.5, 2, 3, 5, 7},
        QVector<double>{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9}};
    return sets;
}

/// Every mantissa x power of ten from a decade below `range` to a decade above it.
QVector<double> mantissaTicks(const QVector<double>& mantissas, const QCPRange& range)
{
    QVector<double> ticks;
    for (int e = static_cast<int>(std::floor(std::log10(range.lower))) - 1; ticks.size() < 256; ++e) {
        const double power = std::pow(10.0, e);
        if (power > range.upper * 10) break;
        for (double m : mantissas)
            ticks.push_back(m * power);
    }
    return ticks;
}

int ticksInside(const QVector<double>& ticks, const QCPRange& range)
{
    int n = 0;
    for (double t : ticks)
        n += t >= range.lower && t <= range.upper;
    return n;
}

} // namespace

QVector<double> LogTicker::createTickVector(double tickStep, const QCPRange& range)
{
    m_powersOfTen = true;
    if (range.lower <= 0 || range.upper <= range.lower)
        return QCPAxisTickerLog::createTickVector(tickStep, range);
    // A sliver of a decade reads best with QCustomPlot's linear fallback.
    const double decades = std::log10(range.upper / range.lower);
    if (decades < 0.15) return QCPAxisTickerLog::createTickVector(tickStep, range);
    // The set whose ticks inside the range come nearest the axis's tick count, the coarser on a tie:
    // the powers of ten alone leave a single label on an axis spanning under two decades (a sweep's
    // area axis did), finer sets crowd a short axis.
    const auto& sets = mantissaSets();
    std::size_t chosen = 0;
    int bestDistance = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < sets.size(); ++i) {
        const int inside = ticksInside(mantissaTicks(sets[i], range), range);
        const int distance = std::abs(inside - tickCount());
        if (inside >= 2 && distance < bestDistance) {
            chosen = i;
            bestDistance = distance;
        }
    }
    // Over many decades QCustomPlot's own ticks (with sub-ticks) may step by several decades.
    if (chosen == 0 && decades >= 1.6) return QCPAxisTickerLog::createTickVector(tickStep, range);
    m_powersOfTen = false;
    const QVector<double> ticks = mantissaTicks(sets[chosen], range);
    // One tick outside the range at each end, as QCustomPlot's tickers give.
    QVector<double> kept;
    for (int i = 0; i < ticks.size(); ++i) {
        const bool before = i + 1 < ticks.size() && ticks[i + 1] < range.lower;
        const bool after = i > 0 && ticks[i - 1] > range.upper;
        if (!before && !after) kept.push_back(ticks[i]);
    }
    return kept;
}

int LogTicker::getSubTickCount(double tickStep)
{
    return m_powersOfTen ? QCPAxisTickerLog::getSubTickCount(tickStep) : 0;
}

QString LogTicker::getTickLabel(double tick, const QLocale& locale, QChar, int)
{
    if (tick <= 0) return locale.toString(tick, 'g', 3);
    const int exponent = static_cast<int>(std::floor(std::log10(tick) + 1e-9));
    const double mantissa = tick / std::pow(10.0, exponent);
    return locale.toString(mantissa, 'g', 3) + QLatin1Char('e') + QString::number(exponent);
}

} // namespace marvel::ui
