#include "ui/plot/comparison_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QVBoxLayout>
#include <qcustomplot.h>

namespace marvel::ui {

ComparisonChart::ComparisonChart(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
}

QColor ComparisonChart::seriesColor(const QString& name, int index)
{
    // Marvel keeps one colour in every chart; the others follow the order of the paper's legends.
    static const std::vector<std::pair<QString, QColor>> known{{"Marvel", QColor(31, 119, 180)},
        {"dMazeRunner-like", QColor(255, 127, 14)}, {"Interstellar-like", QColor(44, 160, 44)},
        {"Eyeriss-like RS", QColor(214, 39, 40)}, {"NVDLA-like WS", QColor(148, 103, 189)},
        {"ShiDianNao-like OS", QColor(140, 86, 75)}, {"Marvel (any tile size)", QColor(23, 190, 207)},
        {"GAMMA-like genetic", QColor(188, 189, 34)}};
    for (const auto& [n, c] : known)
        if (n == name) return c;
    static const QColor extra[] = {QColor(127, 127, 127), QColor(188, 189, 34), QColor(227, 119, 194)};
    return extra[static_cast<std::size_t>(std::max(index, 0)) % std::size(extra)];
}

void ComparisonChart::setData(const QString& title, const QString& yLabel, bool logScale,
    const QStringList& groups, const QStringList& series, const std::vector<std::vector<double>>& values)
{
    m_plot->clearPlottables();
    m_plot->plotLayout()->clear();
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, title, QFont("sans", 11, QFont::Bold)));
    auto* rect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, rect);
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    legend->setLayer("legend");
    m_plot->legend = legend;
    legend->setVisible(true);
    legend->setFont(QFont("sans", 8));
    // One row: a stacked legend in the corner hid the tallest bars (MobileNetV2's RS on P2).
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(0);

    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& row : values)
        for (double v : row)
            if (std::isfinite(v) && v > 0) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    if (!std::isfinite(lo)) lo = hi = 1;
    // On a log axis the bars start below the smallest value (and below 1), so that a ratio of 1.02 still
    // shows as a bar rather than vanishing into the axis.
    const double base = logScale ? std::min(lo, 1.0) / 2 : 0.0;

    auto* group = new QCPBarsGroup(m_plot);
    const int n = static_cast<int>(series.size());
    const double width = 0.8 / std::max(n, 1);
    for (int s = 0; s < n; ++s) {
        auto* bars = new QCPBars(x, y);
        bars->setName(series[s]);
        bars->setWidth(width);
        bars->setBarsGroup(group);
        bars->setBaseValue(base);
        const QColor c = seriesColor(series[s], s);
        bars->setBrush(c);
        bars->setPen(QPen(c.darker(130)));
        QVector<double> keys, vals;
        for (int g = 0; g < groups.size(); ++g) {
            const double v = static_cast<std::size_t>(s) < values.size()
                    && static_cast<std::size_t>(g) < values[s].size()
                ? values[s][g]
                : std::nan("");
            if (!std::isfinite(v) || (logScale && v <= 0)) continue;
            keys.push_back(g + 1);
            // QCPBars draws from the base value to base + value.
            vals.push_back(v - base);
        }
        bars->setData(keys, vals, true);
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const bool rotated = groups.size() > 8;
    for (int g = 0; g < groups.size(); ++g) {
        // Level labels run into each other ("mobilenetv2 P1mobilenetv2 P2"): the item on one line, the
        // platform below it.
        QString label = groups[g];
        if (const qsizetype space = label.indexOf(QLatin1Char(' ')); !rotated && space > 0)
            label[space] = QLatin1Char('\n');
        ticker->addTick(g + 1, label);
    }
    x->setTicker(ticker);
    x->setTickLabelRotation(rotated ? 60 : 0);
    x->setTickLabelFont(QFont("sans", 8));
    x->setRange(0.4, groups.size() + 0.6);
    x->grid()->setVisible(false);
    y->setLabel(yLabel);
    if (logScale) {
        y->setScaleType(QCPAxis::stLogarithmic);
        y->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        // Headroom for the legend row: a fifth of the decades shown, above the tallest bar.
        y->setRange(base, hi * std::pow(10.0, 0.2 * std::log10(std::max(hi / base, 10.0))));
    } else {
        y->setScaleType(QCPAxis::stLinear);
        y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        y->setRange(0, hi * 1.25); // room for the legend row above the bars
    }
    m_plot->replot();
}

bool ComparisonChart::savePng(const QString& path, int width, int height)
{
    return m_plot->savePng(path, width, height);
}

bool ComparisonChart::savePdf(const QString& path, int width, int height)
{
    return m_plot->savePdf(path, width, height);
}

} // namespace marvel::ui
