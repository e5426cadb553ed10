#pragma once
// The PE array at one time step of a simulated mapping: PEs as cells inside nested cluster frames (one
// per level, labelled with the level's directives), each cell showing what the PE holds of each tensor
// (a colour per tensor; bright: arrived this step, pale: kept from the previous step), whether it
// computed, and the partial sums it sent. Above the array, one source per input tensor fans out to the
// PEs its elements reached this step through the cluster hierarchy, labelled with the multicast fan-out.

#include <optional>
#include <vector>

#include <QLineF>
#include <QWidget>

#include "core/sim/simulator.h"

namespace marvel::ui {

class PeArrayView : public QWidget
{
    Q_OBJECT
public:
    explicit PeArrayView(QWidget* parent = nullptr);

    void setLayout(const sim::Layout& layout);
    void setFrame(const sim::Frame* frame); ///< null: nothing to show yet
    /// Outlines the sub-units of `level` (a SpatialMap's or Cluster's level); -1 clears.
    void setHighlightedLevel(int level);
    int highlightedLevel() const { return m_highlightLevel; }
    void setZoom(double zoom);
    double zoom() const { return m_zoom; }
    /// The largest zoom at which the array, its legend and its sources fit `viewport` (cells between 10
    /// and 120 pixels: a small classroom array fills the panel, a large one starts readable and scrolls).
    double zoomToFit(QSize viewport) const;

    /// Geometry, for tests and for the panel: the cell of PE `pe` in widget coordinates.
    QRectF peRect(std::int64_t pe) const;
    /// The PE under `pos`, or -1.
    std::int64_t peAt(const QPointF& pos) const;
    /// The tooltip text for PE `pe` at the current frame.
    QString describePe(std::int64_t pe) const;
    static QColor tensorColour(int tensor, int tensors);
    /// How input `tensor` reached its PEs at the current frame, as drawn: from its source above the
    /// array, a trunk down each receiving frame's left margin, a bus in the gap above each row of
    /// sub-units and a drop (ending in a dot on a PE) into each sub-unit that receives, so that no line
    /// crosses a frame or a PE it does not enter. Drops to PEs are left out past 256 receivers.
    struct FanOut
    {
        std::vector<QLineF> lines;
        std::vector<QPointF> dots; ///< where the drops reach the receiving PEs
        std::int64_t receivers = 0; ///< PEs the tensor reached this step
        std::int64_t multicast = 0; ///< the largest fan-out of one element
    };
    FanOut fanOut(int tensor) const;
    /// Every cluster frame, the array's first (for tests).
    std::vector<QRectF> clusterRects() const;

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent* e) override;

private:
    struct ClusterBox
    {
        QRectF rect;
        int level = 0;
        std::int64_t unit = 0;
        std::int64_t firstPe = 0;
    };
    std::vector<int> inputTensors() const; ///< the layout's tensors that are not the output
    QRectF sourceChip(std::size_t k, std::size_t inputs) const; ///< input k's source above the array
    void relayout();
    QSizeF unitSize(int level) const { return unitSizeAt(level, cell()); }
    QSizeF unitSizeAt(int level, double cellSize) const;
    void place(int level, std::int64_t unit, std::int64_t firstPe, QPointF origin);
    double cell() const { return 48.0 * m_zoom; }

    std::optional<sim::Layout> m_layout;
    const sim::Frame* m_frame = nullptr;
    std::vector<QRectF> m_peRects;
    std::vector<ClusterBox> m_clusters;
    std::vector<std::vector<std::size_t>> m_boxIndex; ///< per level, per unit: its index in m_clusters
    QSizeF m_size;
    double m_zoom = 1.0;
    int m_highlightLevel = -1;
    double m_top = 0; ///< where the array starts (below the legend and the sources)
};

} // namespace marvel::ui
