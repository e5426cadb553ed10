#include "ui/plot/plot_layout.h"

#include <qcustomplot.h>

#include "ui/plot/log_ticker.h"

namespace marvel::ui {

void placeLegendBelow(QCustomPlot* plot)
{
    plot->legend->setVisible(true);
    plot->legend->setBrush(QColor(255, 255, 255, 220));
    plot->axisRect()->insetLayout()->take(plot->legend);
    auto* legendRow = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
}

void setLogLogAxes(QCustomPlot* plot, int tickCount)
{
    for (QCPAxis* a : {plot->xAxis, plot->yAxis}) {
        a->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new LogTicker);
        ticker->setTickCount(tickCount);
        a->setTicker(ticker);
    }
}

} // namespace marvel::ui
