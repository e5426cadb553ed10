#include <QTest>

#include "ui/ddg/graph_layout.h"
#include "ui/ddg/graph_view.h"

using namespace marvel::ui;

class TestGraphLayout : public QObject
{
    Q_OBJECT
private slots:
    void chainIsLaidOutTopToBottom()
    {
        GraphInput g;
        g.nodes = {{QStringLiteral("O[0]: x")}, {QStringLiteral("I[0]: x + s")}, {QStringLiteral("W[0]: s")}};
        g.edges = {{0, 1, QStringLiteral("1")}, {2, 1, QStringLiteral("1")}};
        const GraphGeometry geo = layoutGraph(g);
        QVERIFY(geo.ok);
        QCOMPARE(geo.nodes.size(), 3);
        QCOMPARE(geo.edges.size(), 2);
        // Both sources sit on the first rank, the sink below them.
        QCOMPARE(geo.nodes[0].center().y(), geo.nodes[2].center().y());
        QVERIFY(geo.nodes[1].center().y() > geo.nodes[0].center().y());
        for (int i = 0; i < 2; ++i) {
            QVERIFY(geo.edges[i].size() >= 4);
            // The arrow ends on the target's box edge, not inside the source.
            QVERIFY(qAbs(geo.arrowTips[i].y() - geo.nodes[1].top()) < 2.0);
        }
        QVERIFY(geo.bounds.contains(geo.nodes[1]));
    }

    void repeatedLayoutsShareOneContext()
    {
        // Graphviz 2.42 reads freed memory when contexts are recycled; many layouts in a row must stay clean.
        GraphInput g;
        g.nodes = {{QStringLiteral("a")}, {QStringLiteral("b")}};
        g.edges = {{0, 1, {}}};
        for (int i = 0; i < 20; ++i)
            QVERIFY(layoutGraph(g).ok);
    }

    void invalidEdgesAreIgnored()
    {
        GraphInput g;
        g.nodes = {{QStringLiteral("a")}};
        g.edges = {{0, 5, {}}, {-1, 0, {}}};
        const GraphGeometry geo = layoutGraph(g);
        QVERIFY(geo.ok);
        QCOMPARE(geo.edges.size(), 2);
        QVERIFY(geo.edges[0].isEmpty());
    }

    void viewShowsEveryNode()
    {
        GraphView view;
        GraphInput g;
        g.nodes = {{QStringLiteral("a")}, {QStringLiteral("b")}, {QStringLiteral("c")}};
        g.edges = {{0, 1, {}}, {1, 2, {}}, {2, 0, QStringLiteral("cycle")}};
        view.setGraph(g, {0}, {2});
        QCOMPARE(view.nodeCount(), 3);
        view.setMessage(QStringLiteral("does not parse"));
        QCOMPARE(view.nodeCount(), 0);
    }
};

QTEST_MAIN(TestGraphLayout)
#include "tst_graph_layout.moc"
