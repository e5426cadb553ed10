#include "core/conform/conformability.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/conform/dependence.h"
#include "core/util/strings.h"

namespace marvel::conform {

std::string DdgNode::variable() const
{
    return tensor + "." + std::to_string(dim);
}
std::string DdgNode::label() const
{
    return variable() + ":" + subscript;
}

std::vector<int> Ddg::roots() const
{
    std::vector<int> inDegree(nodes.size(), 0);
    for (const auto& e : edges)
        ++inDegree[std::size_t(e.to)];
    std::vector<int> out;
    for (std::size_t n = 0; n < nodes.size(); ++n)
        if (inDegree[n] == 0) out.push_back(int(n));
    return out;
}

namespace {

std::string at(SourceLoc loc)
{
    return std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

std::string plural(std::size_t count, const std::string& noun)
{
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

/// A part of a reason being written that names source text; found in the finished reason by withLinks.
struct Pending
{
    std::string text;
    SourceRange range;
    int node = -1;
};

/// The rule's result, with each pending part located in `reason` (searched in order, each after the
/// previous one, so a name repeated in the sentence links to the right occurrence).
RuleResult withLinks(bool ok, std::string reason, const std::vector<Pending>& pending)
{
    RuleResult result{ok, std::move(reason), {}};
    std::size_t from = 0;
    for (const auto& p : pending) {
        if (p.text.empty() || (!p.range.valid() && p.node < 0)) continue;
        const auto found = result.reason.find(p.text, from);
        if (found == std::string::npos) continue;
        result.links.push_back({found, p.text.size(), p.range, p.node});
        from = found + p.text.size();
    }
    return result;
}

Pending nodeLink(const Ddg& ddg, int node)
{
    const auto& n = ddg.nodes[std::size_t(node)];
    return {n.label(), n.occurrences.empty() ? SourceRange{} : n.occurrences.front(), node};
}

// ---- R1 ---------------------------------------------------------------------------------------------

void perfectNestProblems(const std::vector<ir::Node>& nodes, const ir::Node* parent,
    std::vector<std::string>& out, std::vector<Pending>& links)
{
    auto loopLink = [&](const ir::Node* loop) {
        links.push_back({"'" + loop->iterator + "' (" + at(loop->loc) + ")", loop->header});
    };
    std::vector<const ir::Node*> loops, statements;
    for (const auto& node : nodes) {
        if (node.kind == ir::Node::Kind::Loop)
            loops.push_back(&node);
        else if (node.kind == ir::Node::Kind::Statement)
            statements.push_back(&node);
        else {
            links.push_back({"if (" + node.condition + ")", node.header});
            out.push_back("conditional 'if (" + node.condition + ")' at " + at(node.loc)
                + ": the MDC computation must be the same in every PE at every time step");
        }
    }
    if (loops.size() > 1) {
        loopLink(loops[0]);
        loopLink(loops[1]);
        out.push_back("loops '" + loops[0]->iterator + "' (" + at(loops[0]->loc) + ") and '"
            + loops[1]->iterator + "' (" + at(loops[1]->loc) + ") are siblings, not nested");
    }
    auto statementLink = [&](const ir::Node* s) { links.push_back({s->statement.text, s->statement.range}); };
    if (!loops.empty()) {
        for (const auto* s : statements) {
            statementLink(s);
            out.push_back("statement '" + s->statement.text + "' (" + at(s->loc) + ") lies between loops"
                + (parent ? ": it is in loop '" + parent->iterator + "' next to loop '" + loops[0]->iterator
                            + "'"
                          : ": it is outside loop '" + loops[0]->iterator + "'"));
        }
    } else if (!parent) {
        for (const auto* s : statements) {
            statementLink(s);
            out.push_back(
                "statement '" + s->statement.text + "' (" + at(s->loc) + ") is not inside any loop");
        }
    }
    if (parent && nodes.empty()) {
        loopLink(parent);
        out.push_back("loop '" + parent->iterator + "' (" + at(parent->loc) + ") has an empty body");
    }
    for (const auto& node : nodes) {
        if (node.kind == ir::Node::Kind::Loop)
            perfectNestProblems(node.body, &node, out, links);
        else if (node.kind == ir::Node::Kind::If)
            perfectNestProblems(node.body, parent, out, links);
    }
}

RuleResult checkR1(const ir::Operator& op)
{
    std::vector<std::string> problems;
    std::vector<Pending> links;
    if (op.body.empty()) problems.push_back("the operator has no statement");
    perfectNestProblems(op.body, nullptr, problems, links);
    if (!problems.empty())
        return withLinks(
            false, "not a perfectly nested loop without conditionals: " + joined(problems, "; "), links);
    auto nest = ir::perfectNest(op);
    if (!nest) return {false, "not a perfectly nested loop"};
    std::vector<std::string> iterators;
    for (const auto& l : nest->loops)
        iterators.push_back(l.iterator);
    const auto n = nest->statements.size();
    return {true,
        "perfectly nested: " + plural(iterators.size(), "loop") + " (" + joined(iterators) + ") around "
            + std::to_string(n) + (n == 1 ? " statement" : " statements") + ", no conditionals"};
}

// ---- R2 ---------------------------------------------------------------------------------------------

RuleResult checkR2(const std::vector<StatementContext>& statements)
{
    auto deps = forbiddenDependences(statements);
    if (!deps.empty()) {
        std::vector<std::string> parts;
        std::vector<Pending> links;
        for (const auto& d : deps) {
            parts.push_back(d.describe());
            links.push_back({d.source->statement->text, d.source->statement->range});
            links.push_back({d.first.toString(), d.first.range});
            if (d.sink != d.source) links.push_back({d.sink->statement->text, d.sink->statement->range});
            links.push_back({d.second.toString(), d.second.range});
        }
        return withLinks(false,
            "dependences other than reductions: " + joined(parts, "; ")
                + " (only reduction dependences on the output tensor are allowed)",
            links);
    }
    std::set<std::string> reduced;
    for (const auto& s : statements)
        if (s.statement->isReduction()) reduced.insert(s.statement->target.tensor);
    if (reduced.empty()) return {true, "no dependences between iterations or statements"};
    return {true, "only reduction dependences (on " + joined({reduced.begin(), reduced.end()}) + ")"};
}

// ---- DDG --------------------------------------------------------------------------------------------

class DdgBuilder
{
public:
    DdgBuilder(const ir::Operator& op, const std::vector<StatementContext>& statements)
    {
        collectLoops(op.body);
        for (const auto& context : statements) {
            std::vector<ir::TensorRef> refs;
            context.statement->value.collectRefs(refs);
            refs.push_back(context.statement->target);
            for (const auto& ref : refs)
                for (std::size_t d = 0; d < ref.subscripts.size(); ++d)
                    addNode(ref, int(d));
        }
        rule1();
        rule2();
        rule3();
    }

    Ddg ddg;
    std::vector<std::pair<int, std::string>> nonIteratorNames; ///< node, name: subscripts R3 cannot analyse

private:
    void collectLoops(const std::vector<ir::Node>& nodes)
    {
        for (const auto& n : nodes) {
            if (n.kind == ir::Node::Kind::Loop) m_loops.push_back(&n);
            if (n.kind != ir::Node::Kind::Statement) collectLoops(n.body);
        }
    }

    bool isIterator(const std::string& name) const
    {
        return std::any_of(
            m_loops.begin(), m_loops.end(), [&](const ir::Node* l) { return l->iterator == name; });
    }

    void addNode(const ir::TensorRef& ref, int dim)
    {
        const auto& expr = ref.subscripts[std::size_t(dim)];
        const SourceRange where = std::size_t(dim) < ref.subscriptRanges.size()
            ? ref.subscriptRanges[std::size_t(dim)]
            : SourceRange{};
        for (auto& n : ddg.nodes) {
            if (n.tensor == ref.tensor && n.dim == dim && n.expr == expr) {
                if (where.valid()) n.occurrences.push_back(where);
                return;
            }
        }
        DdgNode node;
        node.tensor = ref.tensor;
        node.dim = dim;
        node.subscript = ref.subscriptToString(std::size_t(dim));
        node.expr = expr;
        if (where.valid()) node.occurrences.push_back(where);
        for (const auto& name : expr.variables()) {
            if (isIterator(name))
                node.iterators.push_back(name);
            else
                nonIteratorNames.push_back({int(ddg.nodes.size()), name});
        }
        ddg.nodes.push_back(std::move(node));
    }

    void addEdge(int from, int to, int rule)
    {
        if (from == to) return;
        // Rules run in order 1, 2, 3, so the first rule to add an edge is its lowest one.
        if (!m_edgeSet.insert({from, to}).second) return;
        ddg.edges.push_back({from, to, rule});
    }

    bool uses(int node, const std::string& iterator) const
    {
        const auto& its = ddg.nodes[std::size_t(node)].iterators;
        return std::find(its.begin(), its.end(), iterator) != its.end();
    }

    int count() const { return int(ddg.nodes.size()); }

    /// Rule 1: SIV/MIV node -> MIV node when they share an iterator.
    void rule1()
    {
        for (int m = 0; m < count(); ++m) {
            if (ddg.nodes[std::size_t(m)].iterators.size() < 2) continue;
            for (int n = 0; n < count(); ++n) {
                const auto& its = ddg.nodes[std::size_t(n)].iterators;
                if (n != m
                    && std::any_of(its.begin(), its.end(), [&](const std::string& i) { return uses(m, i); }))
                    addEdge(n, m, 1);
            }
        }
    }

    /// Rule 2: SIV nodes grouped by iterator; the lowest constant (first node on ties) -> the others.
    void rule2()
    {
        std::map<std::string, std::vector<int>> groups;
        std::vector<std::string> order;
        for (int n = 0; n < count(); ++n) {
            const auto& node = ddg.nodes[std::size_t(n)];
            if (node.iterators.size() != 1) continue;
            if (!groups.count(node.iterators[0])) order.push_back(node.iterators[0]);
            groups[node.iterators[0]].push_back(n);
        }
        for (const auto& iterator : order) {
            const auto& group = groups[iterator];
            int root = group.front();
            for (int n : group)
                if (ddg.nodes[std::size_t(n)].expr.constant < ddg.nodes[std::size_t(root)].expr.constant)
                    root = n;
            for (int n : group)
                addEdge(root, n, 2);
        }
    }

    /// Rule 3: iterator i's bounds use iterator j -> edges from nodes with i to nodes with j.
    void rule3()
    {
        for (const auto* loop : m_loops) {
            std::vector<std::string> used = loop->upper.variables();
            for (const auto& v : loop->lower.variables())
                used.push_back(v);
            for (const auto& j : used) {
                if (!isIterator(j) || j == loop->iterator) continue;
                for (int from = 0; from < count(); ++from)
                    if (uses(from, loop->iterator))
                        for (int to = 0; to < count(); ++to)
                            if (uses(to, j)) addEdge(from, to, 3);
            }
        }
    }

    std::vector<const ir::Node*> m_loops;
    std::set<std::pair<int, int>> m_edgeSet; ///< (from, to) of every edge, for constant-time duplicate checks
};

/// Kahn's algorithm, smallest node first for a stable order; empty when a cycle remains.
std::vector<int> topologicalOrder(const Ddg& ddg, std::vector<int>& leftOver)
{
    const std::size_t n = ddg.nodes.size();
    std::vector<int> inDegree(n, 0);
    for (const auto& e : ddg.edges)
        ++inDegree[std::size_t(e.to)];
    std::vector<std::vector<int>> successors(n);
    for (const auto& e : ddg.edges)
        successors[std::size_t(e.from)].push_back(e.to);
    std::set<int> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (inDegree[i] == 0) ready.insert(int(i));
    std::vector<int> order;
    while (!ready.empty()) {
        int v = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(v);
        for (int to : successors[std::size_t(v)])
            if (--inDegree[std::size_t(to)] == 0) ready.insert(to);
    }
    leftOver.clear();
    for (std::size_t i = 0; i < n; ++i)
        if (inDegree[i] > 0) leftOver.push_back(int(i));
    if (!leftOver.empty()) order.clear();
    return order;
}

/// A cycle among the nodes Kahn's algorithm could not order: each of them has a predecessor among them,
/// so walking predecessors must revisit a node. Its edges in order; empty if none is found.
std::vector<const DdgEdge*> findCycle(const Ddg& ddg, const std::vector<int>& leftOver)
{
    std::set<int> remaining(leftOver.begin(), leftOver.end());
    // First edge (in edge order) entering each node from the unordered ones.
    std::map<int, const DdgEdge*> firstInto;
    for (const auto& e : ddg.edges)
        if (remaining.count(e.from)) firstInto.try_emplace(e.to, &e);
    std::vector<const DdgEdge*> path;
    std::map<int, std::size_t> seenAt;
    int v = leftOver.front();
    while (!seenAt.count(v)) {
        seenAt[v] = path.size();
        const auto found = firstInto.find(v);
        if (found == firstInto.end()) return {};
        const DdgEdge* into = found->second;
        path.push_back(into);
        v = into->from;
    }
    // path[k] enters the node visited at step k; the cycle is path[seenAt[v]..], walked backwards.
    std::vector<const DdgEdge*> cycle(path.begin() + std::ptrdiff_t(seenAt[v]), path.end());
    std::reverse(cycle.begin(), cycle.end());
    return cycle;
}

std::string describeCycle(
    const Ddg& ddg, const std::vector<const DdgEdge*>& cycle, std::vector<Pending>& links)
{
    if (cycle.empty()) return "";
    std::string out = ddg.nodes[std::size_t(cycle.front()->from)].label();
    links.push_back(nodeLink(ddg, cycle.front()->from));
    for (const auto* e : cycle) {
        out += " -> " + ddg.nodes[std::size_t(e->to)].label() + " (rule " + std::to_string(e->rule) + ")";
        links.push_back(nodeLink(ddg, e->to));
    }
    return out;
}

RuleResult checkR3(const Ddg& ddg, const std::vector<int>& leftOver,
    const std::vector<std::pair<int, std::string>>& nonIteratorNames)
{
    std::vector<std::string> problems;
    std::vector<Pending> links;
    if (!leftOver.empty())
        problems.push_back("the DDG has a cycle, so it has no topological order: "
            + describeCycle(ddg, findCycle(ddg, leftOver), links));
    const auto roots = ddg.roots();
    std::set<int> rootSet(roots.begin(), roots.end());
    for (const auto& [node, name] : nonIteratorNames)
        if (!rootSet.count(node)) {
            links.push_back(nodeLink(ddg, node));
            problems.push_back("dependent node " + ddg.nodes[std::size_t(node)].label() + " uses '" + name
                + "', which is not a loop iterator, so its subscript is not a linear combination "
                  "of loop iterators");
        }
    std::map<std::string, std::vector<std::string>> rootsByVariable;
    std::map<std::string, std::vector<int>> rootNodesByVariable;
    std::vector<std::string> variables;
    for (int r : roots) {
        const auto& node = ddg.nodes[std::size_t(r)];
        if (!rootsByVariable.count(node.variable())) variables.push_back(node.variable());
        rootsByVariable[node.variable()].push_back(node.label());
        rootNodesByVariable[node.variable()].push_back(r);
    }
    for (const auto& v : variables)
        if (rootsByVariable[v].size() > 1) {
            for (int r : rootNodesByVariable[v])
                links.push_back(nodeLink(ddg, r));
            problems.push_back("dimension variable " + v + " has " + std::to_string(rootsByVariable[v].size())
                + " independent (zero in-degree) nodes " + joined(rootsByVariable[v])
                + ", but the MDC notation maps each dimension variable once");
        }
    if (roots.empty() && !ddg.nodes.empty())
        problems.push_back("the DDG has no independent dimension variable to map");
    if (!problems.empty()) return withLinks(false, joined(problems, "; "), links);
    return {true,
        "the DDG (" + std::to_string(ddg.nodes.size()) + " nodes, " + std::to_string(ddg.edges.size())
            + " edges) has a topological order and one independent node per dimension variable"};
}

RuleResult checkR4(const Ddg& ddg, const std::vector<int>& roots)
{
    std::vector<std::string> problems, fine;
    std::vector<Pending> links;
    for (int r : roots) {
        const auto& node = ddg.nodes[std::size_t(r)];
        const std::string head = "independent node " + node.label();
        if (node.iterators.empty() && node.expr.terms.empty()) {
            links.push_back(nodeLink(ddg, r));
            problems.push_back(head + " has no loop iterator in its subscript");
            continue;
        }
        bool ok = true;
        for (const auto& [name, c] : node.expr.terms) {
            if (c != 1) {
                links.push_back(nodeLink(ddg, r));
                problems.push_back(head + " has coefficient " + std::to_string(c) + " on '" + name
                    + "' (a mapping directive walks a dimension from 0 with unit stride)");
                ok = false;
            }
        }
        if (node.expr.constant != 0) {
            links.push_back(nodeLink(ddg, r));
            problems.push_back(head + " has the constant " + std::to_string(node.expr.constant)
                + " (a mapping directive starts a dimension at 0)");
            ok = false;
        }
        if (ok) fine.push_back(node.label());
    }
    if (!problems.empty()) return withLinks(false, joined(problems, "; "), links);
    return {true,
        "independent subscripts are sums of loop iterators with unit coefficients and no constant: "
            + joined(fine)};
}

} // namespace

Report checkConformability(const ir::Operator& op)
{
    Report report;
    report.operatorName = op.name;
    const auto statements = collectStatements(op);
    report.rules[0] = checkR1(op);
    report.rules[1] = checkR2(statements);

    DdgBuilder builder(op, statements);
    report.ddg = std::move(builder.ddg);
    std::vector<int> leftOver;
    report.topologicalOrder = topologicalOrder(report.ddg, leftOver);
    const auto roots = report.ddg.roots();
    report.rules[2] = checkR3(report.ddg, leftOver, builder.nonIteratorNames);
    report.rules[3] = checkR4(report.ddg, roots);

    for (int r : roots) {
        const auto& node = report.ddg.nodes[std::size_t(r)];
        IndependentDim dim;
        dim.tensor = node.tensor;
        dim.dim = node.dim;
        dim.mergedIterators = node.iterators;
        dim.iterator = joined(node.iterators, "+");
        report.independent.push_back(std::move(dim));
    }
    report.conformable
        = std::all_of(report.rules.begin(), report.rules.end(), [](const RuleResult& r) { return r.ok; });
    return report;
}

} // namespace marvel::conform
