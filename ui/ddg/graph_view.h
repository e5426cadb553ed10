#pragma once

#include <QGraphicsView>
#include <QSet>

#include "ui/ddg/graph_layout.h"

namespace marvel::ui {

/// Shows a laid-out directed graph (the DDG): boxes coloured by group (with a legend), curved edges with
/// labels, independent nodes marked, problem nodes and edges in red. Ctrl+wheel or +/- zoom, 0 fits,
/// dragging pans; clicking a node selects it (nodeActivated).
class GraphView : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    /// Disconnects from the scene first: deleting the scene (a child) clears its selection, which must
    /// not reach this half-destroyed view.
    ~GraphView() override;

    /// Nodes in `highlighted` are drawn as independent, edges in `problemEdges` as violations, besides
    /// the flags in `graph` itself.
    void setGraph(
        const GraphInput& graph, const QSet<int>& highlighted = {}, const QSet<int>& problemEdges = {});
    /// Shows a centred message instead of a graph (e.g. while the operator does not parse).
    void setMessage(const QString& message);
    int nodeCount() const { return m_nodeCount; }

    /// Selects a node (-1: none) without emitting nodeActivated, and scrolls it into view.
    void selectNode(int node);
    int selectedNode() const;
    /// A node's box in scene coordinates (empty when out of range).
    QRectF nodeRect(int node) const;
    /// The fill colour of a node (its group's colour).
    QColor nodeColor(int node) const;
    bool isProblemNode(int node) const { return m_problemNodes.contains(node); }
    /// Group names in legend order with their colours.
    QVector<QPair<QString, QColor>> legend() const { return m_legend; }

    void zoomBy(double factor);
    /// Back to fitting the whole graph in the view.
    void fitGraph();
    double zoom() const { return transform().m11(); }

signals:
    /// The user selected a node by clicking it (-1: clicked away from the nodes).
    void nodeActivated(int node);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void fit();
    void clearGraph();
    void updateLegend();
    int m_nodeCount = 0;
    class GraphLegend* m_legendWidget = nullptr;
    bool m_userZoom = false; ///< the user zoomed: resizing no longer refits
    bool m_selecting = false; ///< selectNode is changing the selection
    QVector<QGraphicsItem*> m_nodeItems;
    QVector<QRectF> m_nodeRects;
    QVector<QColor> m_nodeColors;
    QSet<int> m_problemNodes;
    QVector<QPair<QString, QColor>> m_legend;
    bool m_hasIndependent = false;
    bool m_hasProblems = false;
};

} // namespace marvel::ui
