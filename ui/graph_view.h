#pragma once

#include <QGraphicsView>
#include <QSet>

#include "ui/graph_layout.h"

namespace marvel::ui {

/// Shows a laid-out directed graph (the DDG): boxes, curved edges with labels. Nodes in
/// `highlighted` are drawn as independent dimension variables, edges in `problemEdges` as violations.
class GraphView : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    void setGraph(
        const GraphInput& graph, const QSet<int>& highlighted = {}, const QSet<int>& problemEdges = {});
    /// Shows a centred message instead of a graph (e.g. while the operator does not parse).
    void setMessage(const QString& message);
    int nodeCount() const { return m_nodeCount; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fit();
    int m_nodeCount = 0;
};

} // namespace marvel::ui
