#pragma once
// The live runtime-energy plot of a search: every evaluated mapping as a light cloud, decimated to
// one point per pixel cell so a million points replot in milliseconds, the Pareto front drawn exactly as
// a step line, the best mapping per objective marked, and the roofline runtime as a reference line.

#include <cstdint>
#include <span>
#include <vector>

#include <QWidget>

#include "core/search/onchip_search.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace marvel::ui {

class ParetoPlot : public QWidget
{
    Q_OBJECT
public:
    explicit ParetoPlot(QWidget* parent = nullptr);

    void clear();
    void setClockMhz(double mhz) { m_clockMhz = mhz; }
    /// Roofline runtime (cycles) as a vertical reference line; 0 hides it.
    void setRoofline(std::int64_t cycles);
    /// Appends evaluated mappings and replots once.
    void addPoints(std::span<const search::EvaluatedPoint> points);
    void setFront(const std::vector<search::Candidate>& front);
    /// Marks the best mapping of each objective (runtime, energy, EDP) among `front`'s points.
    void setBest(const std::vector<search::Candidate>& best);

    std::size_t pointCount() const { return m_runtime.size(); }
    std::size_t drawnPointCount() const { return m_drawn; }
    /// Forces an immediate replot and returns how long it took (ms).
    double replotNowMs();

    bool savePng(const QString& path, int width, int height);
    bool savePdf(const QString& path);
    bool saveSvg(const QString& path);
    bool saveFrontCsv(const QString& path) const;
    QCustomPlot* plot() const { return m_plot; }

signals:
    void frontPointClicked(std::uint64_t candidateIndex);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void redecimate();
    void rescale();
    void showContextMenu(const QPoint& pos);
    int nearestFrontPoint(const QPoint& pixel) const;
    int nearestCloudPoint(const QPoint& pixel) const;
    QString describe(std::int64_t runtime, double energy, double utilisation) const;

    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_cloud = nullptr;
    QCPGraph* m_frontGraph = nullptr;
    QCPGraph* m_bestGraph = nullptr;
    QCPItemStraightLine* m_roofline = nullptr;
    QCPItemText* m_empty = nullptr;
    QCPItemText* m_rooflineLabel = nullptr;
    std::vector<std::int64_t> m_runtime;
    std::vector<float> m_energy;
    std::vector<float> m_utilisation;
    std::vector<search::Candidate> m_front;
    std::size_t m_drawn = 0;
    double m_clockMhz = 200.0;
    std::int64_t m_rooflineCycles = 0;
};

} // namespace marvel::ui
