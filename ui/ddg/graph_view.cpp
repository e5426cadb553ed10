#include "ui/ddg/graph_view.h"

#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <QtMath>

namespace marvel::ui {

namespace {
const QColor kNodeFill(0xf4, 0xf6, 0xfb);
const QColor kEdge(0x55, 0x5f, 0x70);
const QColor kProblem(0xc6, 0x28, 0x28);
const QColor kIndependent(0x1b, 0x5e, 0x20);
const QColor kSelected(0x15, 0x65, 0xc0);
// Light fills, distinct in hue, that keep black labels readable (one per tensor, in order of appearance).
// Green comes last: it is the colour of the independent nodes' frames.
const QColor kGroupColors[] = {
    QColor(0xbb, 0xde, 0xfb), // blue
    QColor(0xff, 0xe0, 0xb2), // orange
    QColor(0xe1, 0xbe, 0xe7), // purple
    QColor(0xff, 0xf5, 0x9d), // yellow
    QColor(0xb2, 0xeb, 0xf2), // cyan
    QColor(0xf8, 0xbb, 0xd0), // pink
    QColor(0xd7, 0xcc, 0xc8), // brown
    QColor(0xc8, 0xe6, 0xc9), // green
};
constexpr int kNodeIndexKey = 0;
constexpr double kZoomStep = 1.25;

QPolygonF arrowHead(QPointF tip, QPointF from)
{
    const QLineF line(from, tip);
    const double angle = qDegreesToRadians(line.angle());
    const double size = 7.0;
    QPointF left = tip - QPointF(std::cos(angle - M_PI / 7) * size, -std::sin(angle - M_PI / 7) * size);
    QPointF right = tip - QPointF(std::cos(angle + M_PI / 7) * size, -std::sin(angle + M_PI / 7) * size);
    return QPolygonF({tip, left, right});
}

/// A DDG node: a rounded box in its tensor's colour; independent nodes get a thick green frame, problem
/// nodes a red one, the selected node a blue halo.
class NodeItem : public QGraphicsRectItem
{
public:
    NodeItem(const QRectF& rect, QColor fill, bool independent, bool problem)
        : QGraphicsRectItem(rect)
        , m_fill(fill)
        , m_independent(independent)
        , m_problem(problem)
    {
        setFlag(ItemIsSelectable);
        setCursor(Qt::PointingHandCursor);
    }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override
    {
        const QRectF r = rect();
        if (option->state & QStyle::State_Selected) {
            painter->setPen(QPen(kSelected, 3.0));
            painter->setBrush(Qt::NoBrush);
            painter->drawRoundedRect(r.adjusted(-4, -4, 4, 4), 7, 7);
        }
        const QColor frame = m_problem ? kProblem : m_independent ? kIndependent : kEdge;
        painter->setPen(QPen(frame, m_problem || m_independent ? 2.4 : 1.0,
            m_independent || m_problem ? Qt::SolidLine : Qt::SolidLine));
        painter->setBrush(m_fill);
        painter->drawRoundedRect(r, 4, 4);
        if (m_independent) {
            // A second inner frame: independent dimension variables read as "double boxed".
            painter->setPen(QPen(frame, 1.0));
            painter->setBrush(Qt::NoBrush);
            painter->drawRoundedRect(r.adjusted(3, 3, -3, -3), 2, 2);
        }
    }
    QRectF boundingRect() const override { return rect().adjusted(-6, -6, 6, 6); }

private:
    QColor m_fill;
    bool m_independent;
    bool m_problem;
};
} // namespace

/// The colour key above the graph, outside the zoomable area: one entry per tensor, then the frames of
/// independent and offending nodes, flowing onto as many rows as the width needs.
class GraphLegend : public QWidget
{
public:
    explicit GraphLegend(QWidget* parent)
        : QWidget(parent)
    {
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 0.9);
        setFont(f);
    }

    struct Entry
    {
        QString text;
        QColor fill;
        QPen frame;
    };
    QVector<Entry> entries;

    /// Lays the entries out for a width; returns the height they need (0 when there is nothing to show).
    int layout(int width, QVector<QRect>* rects = nullptr) const
    {
        if (entries.isEmpty()) return 0;
        const QFontMetrics fm(font());
        const int swatch = fm.height() - 4;
        const int rowHeight = fm.height() + 4;
        int x = kPad, y = kPad;
        for (const auto& e : entries) {
            const int w = swatch + 5 + fm.horizontalAdvance(e.text);
            if (x > kPad && x + w > width - kPad) {
                x = kPad;
                y += rowHeight;
            }
            if (rects) rects->push_back(QRect(x, y, w, rowHeight));
            x += w + 14;
        }
        return y + rowHeight + kPad;
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        p.fillRect(rect(), palette().color(QPalette::Base));
        p.setPen(QColor(0, 0, 0, 40));
        p.drawLine(rect().bottomLeft(), rect().bottomRight());
        QVector<QRect> rects;
        layout(width(), &rects);
        const QFontMetrics fm(font());
        const int swatch = fm.height() - 4;
        for (int i = 0; i < entries.size(); ++i) {
            const QRect r = rects[i];
            p.setPen(entries[i].frame);
            p.setBrush(entries[i].fill);
            p.drawRoundedRect(
                QRectF(r.left() + 1.5, r.top() + (r.height() - swatch) / 2.0, swatch, swatch), 2, 2);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QPoint(r.left() + swatch + 6, r.top() + (r.height() - fm.height()) / 2 + fm.ascent()),
                entries[i].text);
        }
    }

private:
    static constexpr int kPad = 4;
};

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent)
{
    setScene(new QGraphicsScene(this));
    scene()->setItemIndexMethod(QGraphicsScene::NoIndex);
    setRenderHint(QPainter::Antialiasing);
    setRenderHint(QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setFocusPolicy(Qt::StrongFocus);
    m_legendWidget = new GraphLegend(this);
    setToolTip(tr("Ctrl+wheel or +/- to zoom, 0 to fit, drag to pan; click a node to find its subscript"));
    connect(scene(), &QGraphicsScene::selectionChanged, this, [this] {
        if (!m_selecting) emit nodeActivated(selectedNode());
    });
}

GraphView::~GraphView()
{
    scene()->disconnect(this);
}

void GraphView::setMessage(const QString& message)
{
    clearGraph();
    auto* text = scene()->addSimpleText(message);
    text->setBrush(palette().color(QPalette::PlaceholderText));
    m_userZoom = false;
    fit();
}

void GraphView::clearGraph()
{
    m_selecting = true;
    scene()->clear();
    m_selecting = false;
    m_nodeCount = 0;
    m_nodeItems.clear();
    m_nodeRects.clear();
    m_nodeColors.clear();
    m_problemNodes.clear();
    m_legend.clear();
    m_hasIndependent = m_hasProblems = false;
    updateLegend();
}

void GraphView::updateLegend()
{
    m_legendWidget->entries.clear();
    for (const auto& [name, color] : std::as_const(m_legend))
        m_legendWidget->entries.push_back({tr("tensor %1").arg(name), color, QPen(kEdge)});
    if (m_hasIndependent)
        m_legendWidget->entries.push_back(
            {tr("independent (no incoming edge)"), Qt::white, QPen(kIndependent, 2.4)});
    if (m_hasProblems)
        m_legendWidget->entries.push_back({tr("breaks a rule"), Qt::white, QPen(kProblem, 2.4)});
    const QRect area = contentsRect();
    const int height = m_legendWidget->layout(area.width());
    setViewportMargins(0, height, 0, 0);
    m_legendWidget->setGeometry(area.left(), area.top(), area.width(), height);
    m_legendWidget->setVisible(height > 0);
    m_legendWidget->update();
}

void GraphView::setGraph(const GraphInput& graph, const QSet<int>& highlighted, const QSet<int>& problemEdges)
{
    const int previous = selectedNode();
    clearGraph();
    const GraphGeometry geometry = layoutGraph(graph);
    if (!geometry.ok) {
        setMessage(tr("The graph could not be laid out."));
        return;
    }
    m_nodeCount = int(geometry.nodes.size());
    QHash<QString, QColor> groupColor;
    for (int i = 0; i < geometry.nodes.size(); ++i) {
        const auto& node = graph.nodes[i];
        QColor fill = kNodeFill;
        if (!node.group.isEmpty()) {
            if (!groupColor.contains(node.group)) {
                const QColor c = kGroupColors[groupColor.size() % std::size(kGroupColors)];
                groupColor.insert(node.group, c);
                m_legend.push_back({node.group, c});
            }
            fill = groupColor.value(node.group);
        }
        const bool independent = node.independent || highlighted.contains(i);
        m_hasIndependent |= independent;
        if (node.problem) m_problemNodes.insert(i);
        m_hasProblems |= node.problem;
        auto* box = new NodeItem(geometry.nodes[i], fill, independent, node.problem);
        box->setData(kNodeIndexKey, i);
        QString tip = node.toolTip.isEmpty() ? node.label : node.toolTip;
        if (independent) tip += tr("\nindependent dimension variable (no incoming edge)");
        box->setToolTip(tip);
        box->setZValue(1);
        scene()->addItem(box);
        auto* text = new QGraphicsSimpleTextItem(node.label, box);
        if (independent) {
            QFont f = text->font();
            f.setBold(true);
            text->setFont(f);
        }
        text->setBrush(node.problem ? kProblem : QColor(Qt::black));
        const QRectF tb = text->boundingRect();
        text->setPos(geometry.nodes[i].center() - QPointF(tb.width() / 2, tb.height() / 2));
        m_nodeItems.push_back(box);
        m_nodeRects.push_back(geometry.nodes[i]);
        m_nodeColors.push_back(fill);
    }
    for (int i = 0; i < geometry.edges.size(); ++i) {
        const auto& pts = geometry.edges[i];
        if (pts.size() < 2) continue;
        const bool problem = problemEdges.contains(i) || (i < graph.edges.size() && graph.edges[i].problem);
        m_hasProblems |= problem;
        const QColor color = problem ? kProblem : kEdge;
        QPen pen(color, problem ? 2.2 : 1.2);
        QPainterPath path;
        path.moveTo(pts[0]);
        int k = 1;
        for (; k + 2 < pts.size(); k += 3)
            path.cubicTo(pts[k], pts[k + 1], pts[k + 2]);
        const QPointF tip = geometry.arrowTips[i];
        path.lineTo(tip);
        auto* edge = scene()->addPath(path, pen);
        scene()->addPolygon(
            arrowHead(tip, pts.last() == tip ? pts[pts.size() - 2] : pts.last()), QPen(color), color);
        if (i < graph.edges.size()) {
            edge->setToolTip(graph.edges[i].toolTip);
            if (!graph.edges[i].label.isEmpty()) {
                auto* label = scene()->addSimpleText(graph.edges[i].label);
                QFont f = label->font();
                f.setPointSizeF(f.pointSizeF() * 0.85);
                label->setFont(f);
                label->setBrush(color);
                label->setToolTip(graph.edges[i].toolTip);
                const QRectF lb = label->boundingRect();
                label->setPos(geometry.edgeLabels[i] - QPointF(lb.width() / 2, lb.height() / 2));
            }
        }
    }
    updateLegend();
    m_userZoom = false;
    fit();
    if (previous >= 0 && previous < m_nodeCount) selectNode(previous);
}

void GraphView::selectNode(int node)
{
    m_selecting = true;
    scene()->clearSelection();
    if (node >= 0 && node < m_nodeItems.size()) {
        m_nodeItems[node]->setSelected(true);
        ensureVisible(m_nodeItems[node], 20, 20);
    }
    m_selecting = false;
    viewport()->update();
}

int GraphView::selectedNode() const
{
    for (int i = 0; i < m_nodeItems.size(); ++i)
        if (m_nodeItems[i]->isSelected()) return i;
    return -1;
}

QRectF GraphView::nodeRect(int node) const
{
    return node >= 0 && node < m_nodeRects.size() ? m_nodeRects[node] : QRectF();
}

QColor GraphView::nodeColor(int node) const
{
    return node >= 0 && node < m_nodeColors.size() ? m_nodeColors[node] : QColor();
}

void GraphView::zoomBy(double factor)
{
    const double next = qBound(0.1, zoom() * factor, 8.0);
    m_userZoom = true;
    scale(next / zoom(), next / zoom());
}

void GraphView::fitGraph()
{
    m_userZoom = false;
    fit();
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        const double steps = event->angleDelta().y() / 120.0;
        if (steps != 0) zoomBy(std::pow(kZoomStep, steps));
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(kZoomStep);
        return;
    case Qt::Key_Minus:
        zoomBy(1 / kZoomStep);
        return;
    case Qt::Key_0:
        fitGraph();
        return;
    default:
        QGraphicsView::keyPressEvent(event);
    }
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    const QRect area = contentsRect();
    if (m_legendWidget->layout(area.width()) != m_legendWidget->height()) updateLegend();
    m_legendWidget->setGeometry(area.left(), area.top(), area.width(), m_legendWidget->height());
    if (!m_userZoom) fit();
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
