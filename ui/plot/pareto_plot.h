#pragma once
// The live runtime-energy plot of a search: every evaluated mapping as a light cloud, decimated to
// one point per pixel cell so a million points replot in milliseconds, the Pareto front drawn exactly as
// a step line, the best mapping per objective marked, and the roofline runtime as a reference line. A
// plot computed before the accelerator, the settings or the operator changed is greyed under a note.

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <unordered_set>
#include <vector>

#include <QImage>
#include <QWidget>

#include "core/search/onchip_search.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemPixmap;
class QCPItemText;
class QCPItemLine;

namespace marvel::ui {

class ParetoPlot : public QWidget
{
    Q_OBJECT
public:
    explicit ParetoPlot(QWidget* parent = nullptr);

    /// Clears the plot; `message` stands in its middle until points arrive (by default, how to start a
    /// search).
    void clear(const QString& message = {});
    /// The accelerator's clock, for the top axis (runtime in seconds) and the hover text.
    void setClockMhz(double mhz);
    /// The energies' unit: "MAC units", or "pJ" under a technology table (axis title and hover text).
    void setEnergyUnit(const QString& unit);
    /// Roofline runtime (cycles) as a vertical reference line; 0 hides it.
    void setRoofline(std::int64_t cycles);
    std::int64_t rooflineCycles() const { return m_rooflineCycles; }
    /// The text in the middle of an empty plot (empty while points are shown).
    QString emptyMessage() const;
    /// What an empty plot says when nothing is searching (empty: how to start a search), e.g. why the
    /// operator has no mappings; shown at once if the plot is empty and says the previous idle text.
    void setIdleMessage(const QString& message);
    /// Greys the front, the marks and the roofline under a note that they were computed before `change`
    /// changed (see staleText); empty: they are current.
    void setStale(const QString& change);
    /// The stale note shown (empty when the plot is current).
    QString staleNote() const;
    /// Appends evaluated mappings and replots once.
    void addPoints(std::span<const search::EvaluatedPoint> points);
    void setFront(const std::vector<search::Candidate>& front);
    /// Marks the best mapping of each objective, each with its own marker and legend entry (best runtime:
    /// a triangle, best energy: a square, best EDP: a star); an absent one is not marked.
    void setBest(const std::optional<search::Candidate>& runtime,
        const std::optional<search::Candidate>& energy, const std::optional<search::Candidate>& edp);
    /// The name of the layer the front belongs to: the CSV's `layer` column.
    void setLayerName(const QString& name) { m_layerName = name; }

    /// A mapping style's best mapping, shown as a labelled mark beside the search's own mappings.
    struct StyleMark
    {
        QString label; ///< "RS", "WS", ...
        std::int64_t runtime = 0;
        double energy = 0.0;
    };
    /// Replaces the style marks (cleared by clear()); the axes grow to show them.
    void setStyleMarks(const std::vector<StyleMark>& marks);
    const std::vector<StyleMark>& styleMarks() const { return m_styleMarks; }

    /// Evaluated mappings received since the last clear().
    std::size_t pointCount() const { return m_received; }
    /// Mappings kept for zooming and hovering: all of them up to kMaxStoredPoints, then a uniform sample.
    std::size_t storedPointCount() const { return m_runtime.size(); }
    static constexpr std::size_t kMaxStoredPoints = 2'000'000;
    std::size_t drawnPointCount() const { return m_drawn; }
    /// Forces an immediate replot and returns how long it took (ms).
    double replotNowMs();

    bool savePng(const QString& path, int width, int height);
    bool savePdf(const QString& path);
    bool saveSvg(const QString& path);
    /// The front as `marvel search --pareto-csv` writes it (core/search/pareto_csv.h): the same columns, the
    /// same shortest exact numbers, under setLayerName's name.
    bool saveFrontCsv(const QString& path) const;
    /// Where each style label is drawn (its rectangle in the plot's pixels), after the last layout.
    std::vector<QRectF> styleLabelRects() const;
    /// The rectangles around the drawn front points and best marks the style labels keep clear of.
    std::vector<QRectF> markRects() const;
    QCustomPlot* plot() const { return m_plot; }

signals:
    void frontPointClicked(std::uint64_t candidateIndex);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QString idleMessage() const;
    void updateSecondsAxis();
    void redecimate();
    /// Stamps points 0..count-1 (pointAt(i) -> {runtime, energy}) whose pixel cell is still empty into
    /// the cloud's raster.
    template <class PointAt> void stamp(std::size_t count, PointAt pointAt);
    void publishRaster();
    void rescale();
    /// Puts each style's label beside its mark where it overlaps no other label and stays in the plot.
    void placeStyleLabels();
    void showContextMenu(const QPoint& pos);
    int nearestFrontPoint(const QPoint& pixel) const;
    int nearestCloudPoint(const QPoint& pixel) const;
    QString describe(std::int64_t runtime, double energy, double utilisation) const;

    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_cloud = nullptr; ///< no data: the legend entry of the raster below
    /// The evaluated mappings drawn once into an image of the axis rect: a replot then costs one blit
    /// however many points there are.
    QCPItemPixmap* m_cloudItem = nullptr;
    QImage m_raster;
    QRect m_rasterRect; ///< axis rect the raster was drawn for
    std::unordered_set<quint64> m_cells; ///< occupied pixel cells of the raster
    QCPGraph* m_frontGraph = nullptr;
    QCPGraph* m_bestGraph[3] = {}; ///< best runtime, energy, EDP
    QCPGraph* m_styleGraph = nullptr;
    std::vector<QCPItemText*> m_styleLabels;
    std::vector<QCPItemLine*> m_styleLeaders; ///< from a mark to its label when placed away from it
    std::vector<QRectF> m_styleLabelRects;
    QString m_layerName = QStringLiteral("layer");
    std::vector<StyleMark> m_styleMarks;
    QCPItemStraightLine* m_roofline = nullptr;
    QString m_idleMessage; ///< setIdleMessage's; empty: how to start a search
    QCPItemText* m_empty = nullptr;
    QCPItemText* m_rooflineLabel = nullptr;
    QCPItemText* m_staleLabel = nullptr;
    QString m_stale; ///< what changed since the plot was computed, or empty
    void applyColours();
    std::vector<std::int64_t> m_runtime;
    std::vector<float> m_energy;
    std::vector<float> m_utilisation;
    std::vector<search::Candidate> m_front;
    std::size_t m_drawn = 0;
    std::size_t m_received = 0;
    std::minstd_rand m_sampler{1}; ///< fixed seed: the same search keeps the same sample
    double m_clockMhz = 200.0;
    QString m_energyUnit = QStringLiteral("MAC units");
    std::int64_t m_rooflineCycles = 0;
};

} // namespace marvel::ui
