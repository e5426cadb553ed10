#include "ui/ddg/graph_layout.h"

#include <gvc.h>
#include <mutex>
#include <string>

namespace marvel::ui {

namespace {
std::mutex& graphvizMutex()
{
    static std::mutex m;
    return m;
}

GVC_t* sharedContext()
{
    // Never freed: gvFreeContext followed by a new context reads freed memory in Graphviz 2.42.
    static GVC_t* context = gvContext();
    return context;
}

void setAttr(void* object, const char* name, const std::string& value)
{
    std::string n(name);
    std::string v(value);
    std::string empty;
    agsafeset(object, n.data(), v.data(), empty.data());
}
} // namespace

GraphGeometry layoutGraph(const GraphInput& input)
{
    GraphGeometry out;
    std::lock_guard lock(graphvizMutex());
    GVC_t* gvc = sharedContext();
    std::string graphName = "g";
    Agraph_t* g = agopen(graphName.data(), Agdirected, nullptr);
    setAttr(g, "rankdir", "TB");
    setAttr(g, "nodesep", "0.35");
    setAttr(g, "ranksep", "0.5");
    QVector<Agnode_t*> nodes;
    for (int i = 0; i < input.nodes.size(); ++i) {
        std::string id = "n" + std::to_string(i);
        Agnode_t* n = agnode(g, id.data(), 1);
        const auto& node = input.nodes[i];
        setAttr(n, "shape", "box");
        setAttr(n, "fontname", "DejaVu Sans");
        setAttr(n, "fontsize", "10");
        setAttr(n, "label", node.label.toStdString());
        if (node.widthPt > 0) {
            setAttr(n, "fixedsize", "true");
            setAttr(n, "width", std::to_string(node.widthPt / 72.0));
            setAttr(n, "height", std::to_string(node.heightPt / 72.0));
        }
        nodes.push_back(n);
    }
    QVector<Agedge_t*> edges;
    for (const auto& e : input.edges) {
        if (e.from < 0 || e.to < 0 || e.from >= nodes.size() || e.to >= nodes.size()) {
            edges.push_back(nullptr);
            continue;
        }
        Agedge_t* edge = agedge(g, nodes[e.from], nodes[e.to], nullptr, 1);
        if (!e.label.isEmpty()) {
            setAttr(edge, "label", e.label.toStdString());
            setAttr(edge, "fontsize", "9");
            setAttr(edge, "fontname", "DejaVu Sans");
        }
        edges.push_back(edge);
    }
    if (gvLayout(gvc, g, "dot") != 0) {
        agclose(g);
        return out;
    }
    const boxf bb = GD_bb(g);
    const double height = bb.UR.y;
    auto flip = [height](pointf p) { return QPointF(p.x, height - p.y); };
    for (Agnode_t* n : nodes) {
        const double w = ND_width(n) * 72.0;
        const double h = ND_height(n) * 72.0;
        const QPointF c = flip(ND_coord(n));
        out.nodes.push_back(QRectF(c.x() - w / 2, c.y() - h / 2, w, h));
    }
    for (Agedge_t* e : edges) {
        QVector<QPointF> points;
        QPointF labelPos;
        QPointF tip;
        if (e && ED_spl(e) && ED_spl(e)->size > 0) {
            const bezier& bz = ED_spl(e)->list[0];
            for (int i = 0; i < bz.size; ++i)
                points.push_back(flip(bz.list[i]));
            // Graphviz keeps the arrow tip apart from the spline, which stops short of the node.
            tip = bz.eflag ? flip(bz.ep) : (points.isEmpty() ? QPointF() : points.last());
            if (ED_label(e)) labelPos = flip(ED_label(e)->pos);
        }
        out.edges.push_back(points);
        out.arrowTips.push_back(tip);
        out.edgeLabels.push_back(labelPos);
    }
    out.bounds = QRectF(0, 0, bb.UR.x, height);
    out.ok = true;
    gvFreeLayout(gvc, g);
    agclose(g);
    return out;
}

} // namespace marvel::ui
