#include "ui/graph_view.h"

#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QPainterPath>
#include <QtMath>

namespace marvel::ui {

namespace {
const QColor kNodeFill(0xf4, 0xf6, 0xfb);
const QColor kIndependentFill(0xd8, 0xf0, 0xd8);
const QColor kEdge(0x55, 0x5f, 0x70);
const QColor kProblem(0xc6, 0x28, 0x28);

QPolygonF arrowHead(QPointF tip, QPointF from)
{
    const QLineF line(from, tip);
    const double angle = qDegreesToRadians(line.angle());
    const double size = 7.0;
    QPointF left = tip - QPointF(std::cos(angle - M_PI / 7) * size, -std::sin(angle - M_PI / 7) * size);
    QPointF right = tip - QPointF(std::cos(angle + M_PI / 7) * size, -std::sin(angle + M_PI / 7) * size);
    return QPolygonF({tip, left, right});
}
} // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent)
{
    setScene(new QGraphicsScene(this));
    scene()->setItemIndexMethod(QGraphicsScene::NoIndex);
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
}

void GraphView::setMessage(const QString& message)
{
    scene()->clear();
    m_nodeCount = 0;
    auto* text = scene()->addSimpleText(message);
    text->setBrush(palette().color(QPalette::PlaceholderText));
    fit();
}

void GraphView::setGraph(const GraphInput& graph, const QSet<int>& highlighted, const QSet<int>& problemEdges)
{
    scene()->clear();
    const GraphGeometry geometry = layoutGraph(graph);
    if (!geometry.ok) {
        setMessage(tr("The graph could not be laid out."));
        return;
    }
    m_nodeCount = int(geometry.nodes.size());
    for (int i = 0; i < geometry.nodes.size(); ++i) {
        auto* box = scene()->addRect(
            geometry.nodes[i], QPen(kEdge), highlighted.contains(i) ? kIndependentFill : kNodeFill);
        box->setToolTip(graph.nodes[i].label);
        auto* text = scene()->addSimpleText(graph.nodes[i].label);
        QRectF tb = text->boundingRect();
        text->setPos(geometry.nodes[i].center() - QPointF(tb.width() / 2, tb.height() / 2));
    }
    for (int i = 0; i < geometry.edges.size(); ++i) {
        const auto& pts = geometry.edges[i];
        if (pts.size() < 2) continue;
        const QColor color = problemEdges.contains(i) ? kProblem : kEdge;
        QPen pen(color, problemEdges.contains(i) ? 2.0 : 1.2);
        QPainterPath path;
        path.moveTo(pts[0]);
        int k = 1;
        for (; k + 2 < pts.size(); k += 3)
            path.cubicTo(pts[k], pts[k + 1], pts[k + 2]);
        const QPointF tip = geometry.arrowTips[i];
        path.lineTo(tip);
        scene()->addPath(path, pen);
        scene()->addPolygon(
            arrowHead(tip, pts.last() == tip ? pts[pts.size() - 2] : pts.last()), QPen(color), color);
        if (i < graph.edges.size() && !graph.edges[i].label.isEmpty()) {
            auto* label = scene()->addSimpleText(graph.edges[i].label);
            QFont f = label->font();
            f.setPointSizeF(f.pointSizeF() * 0.8);
            label->setFont(f);
            label->setBrush(color);
            label->setPos(geometry.edgeLabels[i]);
        }
    }
    fit();
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    fit();
}

void GraphView::fit()
{
    const QRectF r = scene()->itemsBoundingRect().adjusted(-10, -10, 10, 10);
    scene()->setSceneRect(r);
    if (r.width() > viewport()->width() || r.height() > viewport()->height())
        fitInView(r, Qt::KeepAspectRatio);
    else
        resetTransform();
}

} // namespace marvel::ui
