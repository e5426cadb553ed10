#pragma once
// Ticks for the app's logarithmic axes (the Pareto plot, the sweep's plots and colour scale).

#include <qcustomplot.h>

namespace marvel::ui {

/// Ticks for a log axis over any span: round mantissas evenly spread on the log scale (the powers of ten
/// alone, or 1 and 3, or 1, 2 and 5, ... per decade), the set whose ticks inside the range come nearest
/// the axis's tickCount(); over many decades QCustomPlot's own log ticks, over a sliver of a decade its
/// linear ones. Labels have the shortest mantissa that tells them apart ("3e6", "1.5e7"), which an axis
/// with the "b" number format draws as powers of ten.
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
