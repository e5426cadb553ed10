#pragma once
// A grouped bar chart comparing variants (Marvel, mapping styles, past optimisers) over groups (a model on
// a platform), in the manner of the paper's evaluation figures: one colour per variant, the same palette
// everywhere, optionally a logarithmic value axis. Used by the `marvel-figures` renderer of `marvel
// reproduce` and available to the app.

#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

class QCustomPlot;

namespace marvel::ui {

class ComparisonChart : public QWidget
{
public:
    explicit ComparisonChart(QWidget* parent = nullptr);

    /// `values[s][g]` is series s in group g; NaN (or a non-positive value on a log axis) draws no bar.
    void setData(const QString& title, const QString& yLabel, bool logScale, const QStringList& groups,
        const QStringList& series, const std::vector<std::vector<double>>& values);
    /// The colour of a series by name: fixed for the known variants, then a palette by position.
    static QColor seriesColor(const QString& name, int index);

    bool savePng(const QString& path, int width, int height);
    bool savePdf(const QString& path, int width, int height);
    QCustomPlot* plot() const { return m_plot; }

private:
    QCustomPlot* m_plot = nullptr;
};

} // namespace marvel::ui
