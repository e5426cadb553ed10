#pragma once
// Ticks for the app's logarithmic axes (the Pareto plot, the sweep's plots and colour scale).

#include <qcustomplot.h>

namespace marvel::ui {

/// Ticks for a log axis over any span. Over a few decades, the powers of ten (QCustomPlot's log ticker);
/// over less, where that ticker falls back to evenly spaced values that crowd at the right end, round
/// mantissas (1, 2, 5, ...) that are evenly spread on the log scale. Labels have the shortest mantissa
/// that tells them apart ("3e6", "1.5e7"), which an axis with the "b" number format draws as powers of ten.
class LogTicker : public QCPAxisTickerLog
{
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

private:
    bool m_powersOfTen = true; ///< the last ticks were QCustomPlot's (with its sub-ticks)
};

} // namespace marvel::ui
