#include "ui/editor/operator_analysis.h"

#include <functional>

#include <QObject>

#include "core/ir/parser.h"

namespace marvel::ui {

namespace {
// Edges whose endpoints lie in one strongly connected component are on a cycle.
QSet<int> edgesOnCycles(const conform::Ddg& ddg)
{
    const int n = int(ddg.nodes.size());
    std::vector<std::vector<int>> adjacency(static_cast<std::size_t>(n));
    for (const auto& e : ddg.edges)
        adjacency[std::size_t(e.from)].push_back(e.to);
    std::vector<std::vector<bool>> reach(
        static_cast<std::size_t>(n), std::vector<bool>(static_cast<std::size_t>(n), false));
    for (int s = 0; s < n; ++s) {
        std::vector<int> stack{s};
        while (!stack.empty()) {
            int v = stack.back();
            stack.pop_back();
            for (int w : adjacency[std::size_t(v)]) {
                if (!reach[std::size_t(s)][std::size_t(w)]) {
                    reach[std::size_t(s)][std::size_t(w)] = true;
                    stack.push_back(w);
                }
            }
        }
    }
    QSet<int> result;
    for (int i = 0; i < int(ddg.edges.size()); ++i) {
        const auto& e = ddg.edges[std::size_t(i)];
        if (reach[std::size_t(e.to)][std::size_t(e.from)]) result.insert(i);
    }
    return result;
}
} // namespace

OperatorAnalysis OperatorAnalysis::analyse(const QString& text, const QString& fileName)
{
    OperatorAnalysis out;
    try {
        const ir::Operator op = ir::parseOperator(text.toStdString(), fileName.toStdString());
        out.report = conform::checkConformability(op);
    } catch (const InputError& e) {
        out.diagnostics = e.diagnostics();
        return out;
    }
    const auto& ddg = out.report->ddg;
    for (int root : ddg.roots())
        out.independentNodes.insert(root);
    if (!out.report->rules[2].ok) out.cycleEdges = edgesOnCycles(ddg);
    for (int e : std::as_const(out.cycleEdges)) {
        out.problemNodes.insert(ddg.edges[std::size_t(e)].from);
        out.problemNodes.insert(ddg.edges[std::size_t(e)].to);
    }
    for (std::size_t r = 2; r < 4; ++r)
        if (!out.report->rules[r].ok)
            for (const auto& link : out.report->rules[r].links)
                if (link.node >= 0) out.problemNodes.insert(link.node);
    for (int i = 0; i < int(ddg.nodes.size()); ++i) {
        const auto& node = ddg.nodes[std::size_t(i)];
        GraphInput::Node n;
        n.label = QString::fromStdString(node.label());
        n.group = QString::fromStdString(node.tensor);
        n.independent = out.independentNodes.contains(i);
        n.problem = out.problemNodes.contains(i);
        n.toolTip = QObject::tr("dimension %1 of tensor %2, subscript %3 (%4)")
                        .arg(node.dim)
                        .arg(n.group, QString::fromStdString(node.subscript),
                            node.iterators.size() > 1        ? QObject::tr("MIV: several loop iterators")
                                : node.iterators.size() == 1 ? QObject::tr("SIV: one loop iterator")
                                                             : QObject::tr("no loop iterator"));
        out.ddg.nodes.push_back(n);
    }
    static const char* const kEdgeRules[] = {
        "",
        "edge rule 1: a node shares an iterator with an MIV node (several iterators)",
        "edge rule 2: SIV nodes of one iterator hang off the one with the lowest constant",
        "edge rule 3: a loop bound uses another loop's iterator",
    };
    for (int i = 0; i < int(ddg.edges.size()); ++i) {
        const auto& edge = ddg.edges[std::size_t(i)];
        GraphInput::Edge e;
        e.from = edge.from;
        e.to = edge.to;
        e.label = QObject::tr("rule %1").arg(edge.rule);
        e.toolTip = edge.rule >= 1 && edge.rule <= 3 ? QObject::tr(kEdgeRules[edge.rule]) : QString();
        e.problem = out.cycleEdges.contains(i);
        out.ddg.edges.push_back(e);
    }
    return out;
}

int OperatorAnalysis::nodeAt(SourceLoc loc) const
{
    if (!report) return -1;
    auto before = [](SourceLoc a, SourceLoc b) {
        return a.line < b.line || (a.line == b.line && a.column <= b.column);
    };
    for (int i = 0; i < int(report->ddg.nodes.size()); ++i)
        for (const auto& r : report->ddg.nodes[std::size_t(i)].occurrences)
            if (before(r.begin, loc) && before(loc, r.end)) return i;
    return -1;
}

} // namespace marvel::ui
