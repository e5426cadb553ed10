#pragma once
// The PE array at one time step of a simulated mapping: PEs as cells inside nested cluster frames (one
// per level, labelled with the level's directives), each cell showing what the PE holds of each tensor
// (a colour per tensor; bright: arrived this step, pale: kept from the previous step), whether it
// computed, and the partial sums it sent. Above the array, one source per input tensor fans out to the
// PEs its elements reached this step, labelled with the multicast fan-out.

#include <optional>
#include <vector>

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
    };
    void relayout();
    QSizeF unitSize(int level) const { return unitSizeAt(level, cell()); }
    QSizeF unitSizeAt(int level, double cellSize) const;
    void place(int level, std::int64_t unit, std::int64_t firstPe, QPointF origin);
    double cell() const { return 48.0 * m_zoom; }

    std::optional<sim::Layout> m_layout;
    const sim::Frame* m_frame = nullptr;
    std::vector<QRectF> m_peRects;
    std::vector<ClusterBox> m_clusters;
    QSizeF m_size;
    double m_zoom = 1.0;
    int m_highlightLevel = -1;
    double m_top = 0; ///< where the array starts (below the legend and the sources)
};

} // namespace marvel::ui
