#pragma once
// Layout habits the app's small plots share (the sweep's design front, the co-design's designs).

class QCustomPlot;

namespace marvel::ui {

/// Moves the plot's legend out of the axes to a row below them (inside, it covered data points).
void placeLegendBelow(QCustomPlot* plot);
/// Both axes logarithmic with LogTicker's ticks, about `tickCount` of them.
void setLogLogAxes(QCustomPlot* plot, int tickCount);

} // namespace marvel::ui
