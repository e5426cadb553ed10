#include "ui/plot/log_ticker.h"

#include <cmath>

namespace marvel::ui {

QVector<double> LogTicker::createTickVector(double tickStep, const QCPRange& range)
{
    m_powersOfTen = true;
    if (range.lower <= 0 || range.upper <= range.lower)
        return QCPAxisTickerLog::createTickVector(tickStep, range);
    // QCustomPlot falls back to linear ticks below 1.6 decades; a sliver of a decade reads best linear.
    const double decades = std::log10(range.upper / range.lower);
    if (decades >= 1.6 || decades < 0.15) return QCPAxisTickerLog::createTickVector(tickStep, range);
    m_powersOfTen = false;
    static const QVector<double> kCoarse{1, 2, 5}, kMedium{1, 1.5, 2, 3, 5, 7},
        kFine{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9};
    const QVector<double>& mantissas = decades >= 1.0 ? kCoarse : decades >= 0.5 ? kMedium : kFine;
    QVector<double> ticks;
    for (int e = static_cast<int>(std::floor(std::log10(range.lower))) - 1; ticks.size() < 64; ++e) {
        const double power = std::pow(10.0, e);
        if (power > range.upper * 10) break;
        for (double m : mantissas)
            ticks.push_back(m * power);
    }
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
