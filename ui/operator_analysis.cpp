#include "ui/operator_analysis.h"

#include <functional>

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
    for (const auto& node : ddg.nodes)
        out.ddg.nodes.push_back({QString::fromStdString(node.label())});
    for (const auto& edge : ddg.edges)
        out.ddg.edges.push_back({edge.from, edge.to, QStringLiteral("r%1").arg(edge.rule)});
    for (int root : ddg.roots())
        out.independentNodes.insert(root);
    if (!out.report->rules[2].ok) out.cycleEdges = edgesOnCycles(ddg);
    return out;
}

} // namespace marvel::ui
