#pragma once
// The design-space sweep view: two accelerator parameters and their ranges, the metric to colour by,
// Run and Cancel with a progress bar and ETA, a heat map of the metric over the grid that fills in as
// design points finish, and beside it the design points' Pareto set (runtime or energy against area).
// Clicking a cell asks for that design point to be loaded and searched. It runs nothing itself: the
// window connects it to the SweepController, and marks the figures stale (grey, with a note) when the
// accelerator's other parameters, the settings or the workload change after the sweep.

#include <memory>
#include <optional>
#include <vector>

#include <QWidget>

#include "core/sweep/sweep.h"
#include "ui/sweep/sweep_controller.h"

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPItemRect;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace marvel::ui {

class SweepPanel : public QWidget
{
    Q_OBJECT
public:
    /// What a cell's colour shows. DramBytes and DramEnergy: the chosen mappings' DRAM traffic (bytes of
    /// the DRAM blocks read and written) and its energy, where a bigger L2 stops paying.
    enum class Metric {
        Runtime,
        Energy,
        Edp,
        Area,
        Power,
        Utilization,
        RooflineRatio,
        DramBytes,
        DramEnergy
    };

    explicit SweepPanel(QWidget* parent = nullptr);

    /// The accelerator's axes as the user wrote them (one when the other varies the context). Throws
    /// InputError naming the field when a range does not parse or both axes vary one parameter.
    std::vector<sweep::Axis> axes() const;
    /// The context axis when an axis varies a transformer's context ("seq": the prefill's tokens per
    /// sequence, "kv": a decode step's cached tokens; the model is instantiated again for each value),
    /// nullopt otherwise. Throws InputError as axes().
    std::optional<sweep::ContextAxis> contextAxis() const;
    /// Sets the axes' parameters and range texts (the parameter names --vary takes, seq and kv too).
    void setAxes(
        const QString& xParameter, const QString& xRange, const QString& yParameter, const QString& yRange);
    search::Objective objective() const;
    void setObjective(search::Objective objective);
    /// The "Quick search" box: design points searched by the decoupled search alone
    /// (sweep::PointSearch::Quick) rather than the Search panel's whole search.
    bool quickSearch() const;
    void setQuickSearch(bool quick);
    /// The colour scale's title: the metric, and "quick search" when the quick search made the cells.
    QString colourScaleLabel() const;
    void setMetric(Metric metric);
    Metric metric() const;
    /// The metric called `name` ("runtime", "energy", "edp", "dram-bytes", "dram-energy", "area", "power",
    /// "utilization", "roofline"), for the command line; nullopt when unknown.
    static std::optional<Metric> metricByName(const QString& name);

    /// Design points received for the current grid, in completion order.
    const std::vector<sweep::PointResult>& points() const { return m_points; }
    std::shared_ptr<const sweep::Grid> grid() const { return m_grid; }
    /// Cells of the heat map that hold a finished design point.
    int filledCells() const;
    /// The colour map's value of the cell of design point `index` (NaN when empty or failed).
    double cellValue(std::size_t index) const;
    /// The widget pixel at the centre of the cell of design point `index` (for tests and tours).
    QPoint cellCentre(std::size_t index) const;
    QCustomPlot* heatMap() const { return m_heatPlot; }
    QCustomPlot* paretoPlot() const { return m_paretoPlot; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QString statusText() const;
    /// Greys the heat map and the Pareto set under a note that they were computed before `change`
    /// changed (see staleText); empty: they are current.
    void setStale(const QString& change);
    /// The stale note shown (empty when the figures are current).
    QString staleNote() const;

    /// The sweep's rows sorted by grid index in `marvel sweep`'s CSV format (atomic write).
    bool saveCsv(const QString& path) const;
    /// Both plots side by side; the format follows the extension (.png, .pdf or .svg).
    bool saveImage(const QString& path);

public slots:
    void startGrid(std::shared_ptr<const marvel::sweep::Grid> grid);
    void addPoints(const std::vector<marvel::sweep::PointResult>& points);
    void showProgress(const marvel::ui::SweepProgress& progress);
    void showOutcome(const marvel::ui::SweepOutcome& outcome);
    void showError(const QString& message);
    void setRunning(bool running);

signals:
    void runRequested();
    void cancelRequested();
    /// The user clicked the cell of a finished design point.
    void designPointActivated(std::size_t index);
    /// The objective of the design points' searches, or which search they run, changed.
    void objectiveChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    // metric() above is the colour's metric; QWidget's paint-device metric(PaintDeviceMetric) stays
    // visible beside it (clang's -Woverloaded-virtual).
    using QWidget::metric;

private:
    void rebuildHeatMap();
    bool quickPoints() const; ///< the shown points were made by the quick search
    void updateCell(const sweep::PointResult& point);
    /// Each cell label in the shortest form that fits its cell at the current size, or hidden (the cell's
    /// tooltip still has the figures): neighbours never run together.
    void fitCellLabels();
    void updateColourRange();
    void updatePareto();
    double valueOf(const sweep::PointResult& point) const;
    std::optional<std::size_t> pointAtPixel(const QPoint& pixel) const;
    void showExportMenu();
    int axisPosition(std::size_t index, bool xAxis) const;
    /// An axis of the shown grid (an index into its axes(), or kContextAxis): its values, its title and
    /// a value as its ticks write it.
    std::vector<std::int64_t> axisValues(int a) const;
    QString axisTitle(int a) const;
    QString axisValueText(int a, std::int64_t v) const;
    static constexpr int kContextAxis = -2;

    QComboBox* m_xParameter = nullptr;
    QLineEdit* m_xRange = nullptr;
    QComboBox* m_yParameter = nullptr;
    QLineEdit* m_yRange = nullptr;
    QComboBox* m_metric = nullptr;
    QComboBox* m_objective = nullptr;
    QCheckBox* m_quick = nullptr;
    QComboBox* m_front = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_export = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_staleNote = nullptr;
    QString m_stale; ///< what changed since the sweep, or empty
    QWidget* m_figures = nullptr;
    QCustomPlot* m_heatPlot = nullptr;
    QCPColorMap* m_colourMap = nullptr;
    QCPColorScale* m_colourScale = nullptr;
    QCPItemRect* m_selection = nullptr;
    std::vector<QCPItemText*> m_cellLabels; ///< per cell (y * columns + x), null until its point is in
    QStringList m_xTickLabels; ///< the columns' values, as the x axis names them
    int m_xTickStep = 1; ///< every m_xTickStep-th column is named (fitCellLabels)
    QCustomPlot* m_paretoPlot = nullptr;
    QCPGraph* m_allDesigns = nullptr;
    QCPGraph* m_frontDesigns = nullptr;

    std::shared_ptr<const sweep::Grid> m_grid;
    int m_xAxis = -1; ///< index into the grid's axes shown across; -1: none; kContextAxis: the context
    int m_yAxis = -1;
    std::vector<sweep::PointResult> m_points;
    std::vector<int> m_pointOfIndex; ///< grid index -> position in m_points, -1 while unfinished
    std::vector<std::size_t> m_paretoIndex; ///< front graph's data -> grid index
};

} // namespace marvel::ui
