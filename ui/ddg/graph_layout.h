#pragma once
// Layered layout of small directed graphs (the DDG) through Graphviz's `dot`, as plain geometry.

#include <QPointF>
#include <QRectF>
#include <QString>
#include <QVector>

namespace marvel::ui {

struct GraphInput
{
    struct Node
    {
        QString label;
        double widthPt = 0; ///< 0 = size from the label
        double heightPt = 0;
        QString group{}; ///< GraphView colours the nodes of one group alike (the DDG: the tensor)
        QString toolTip{};
        bool independent = false; ///< GraphView marks it (the DDG: a zero in-degree node)
        bool problem = false; ///< GraphView draws it in red
    };
    struct Edge
    {
        int from = 0;
        int to = 0;
        QString label;
        QString toolTip{};
        bool problem = false; ///< GraphView draws it in red
    };
    QVector<Node> nodes;
    QVector<Edge> edges;
};

/// Node boxes and edge polylines in points, y growing downwards (Qt's convention).
struct GraphGeometry
{
    QVector<QRectF> nodes;
    QVector<QVector<QPointF>> edges; ///< cubic Bezier control points (3n+1), first to last
    QVector<QPointF> arrowTips; ///< where each edge's arrow head points
    QVector<QPointF> edgeLabels;
    QRectF bounds;
    bool ok = false;
};

/// Lays the graph out top to bottom. Graphviz is not thread-safe and its 2.42 release misbehaves when
/// contexts are recycled, so one process-wide context is used under a mutex.
GraphGeometry layoutGraph(const GraphInput& input);

} // namespace marvel::ui
