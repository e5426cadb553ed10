#include "core/conform/dependence.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "core/util/strings.h"

namespace marvel::conform {

namespace {

using Wide = __int128;

std::int64_t boxMaximum(const ir::AffineExpr& e, const ir::Operator& op,
    const std::vector<const ir::Node*>& loops, const std::vector<std::int64_t>& extents)
{
    Wide value = e.constant;
    for (const auto& [name, coefficient] : e.terms) {
        if (auto size = op.sizeValue(name)) {
            value += Wide(coefficient) * *size;
            continue;
        }
        for (std::size_t k = 0; k < loops.size(); ++k)
            if (loops[k]->iterator == name && coefficient > 0) value += Wide(coefficient) * (extents[k] - 1);
    }
    return value > INT64_MAX ? INT64_MAX : value < 1 ? 1 : std::int64_t(value);
}

void collect(const ir::Operator& op, const std::vector<ir::Node>& nodes, std::vector<const ir::Node*>& loops,
    std::vector<std::int64_t>& extents, std::vector<StatementContext>& out)
{
    for (const auto& node : nodes) {
        switch (node.kind) {
        case ir::Node::Kind::Statement:
            out.push_back({&node.statement, loops, extents, int(out.size())});
            break;
        case ir::Node::Kind::If:
            collect(op, node.body, loops, extents, out);
            break;
        case ir::Node::Kind::Loop:
            extents.push_back(boxMaximum(node.upper, op, loops, extents) - node.lower.constant);
            loops.push_back(&node);
            collect(op, node.body, loops, extents, out);
            loops.pop_back();
            extents.pop_back();
            break;
        }
    }
}

enum class Reduction { None, Add, Max, Min };

/// One access of a statement; `accumulator` marks the read of T[e] that makes the statement a reduction.
struct Access
{
    const StatementContext* context = nullptr;
    ir::TensorRef ref;
    bool write = false;
    bool accumulator = false;
};

Reduction reductionOf(const ir::Statement& s, int& accumulatorIndex)
{
    accumulatorIndex = -1;
    if (s.op == ir::Statement::Op::AddAssign) return Reduction::Add;
    const auto& v = s.value;
    if (v.operands.size() != 2) return Reduction::None;
    Reduction kind = v.kind == ir::Expr::Kind::Add ? Reduction::Add
        : v.kind == ir::Expr::Kind::Max            ? Reduction::Max
        : v.kind == ir::Expr::Kind::Min            ? Reduction::Min
                                                   : Reduction::None;
    if (kind == Reduction::None) return kind;
    auto isTarget = [&](const ir::Expr& e) { return e.kind == ir::Expr::Kind::Ref && e.ref == s.target; };
    if (isTarget(v.operands[0])) {
        accumulatorIndex = 0;
    } else if (isTarget(v.operands[1])) {
        std::vector<ir::TensorRef> before;
        v.operands[0].collectRefs(before);
        accumulatorIndex = int(before.size());
    } else {
        return Reduction::None;
    }
    return kind;
}

/// Linear equation sum(a_k * i_k) - sum(b_k * i'_k) + constant = 0 for one subscript dimension.
struct Equation
{
    std::vector<std::int64_t> a; ///< coefficients over the source statement's loops
    std::vector<std::int64_t> b; ///< coefficients over the sink statement's loops
    std::int64_t constant = 0;
};

struct Problem
{
    std::vector<Equation> equations;
    std::vector<std::int64_t> extentsA, extentsB;
    std::size_t common = 0;
};

struct Range
{
    Wide low = 0, high = 0;
    void add(Wide lo, Wide hi)
    {
        low += lo;
        high += hi;
    }
};

/// Range of c * v for v in [0, extent - 1].
std::pair<Wide, Wide> scaled(std::int64_t c, std::int64_t extent)
{
    const Wide end = Wide(c) * (extent - 1);
    return {std::min<Wide>(0, end), std::max<Wide>(0, end)};
}

/// Whether `equation` may hold under the directions chosen so far ('*' = any) for the common loops.
bool mayHold(const Equation& eq, const Problem& p, const std::vector<char>& dirs)
{
    Range range;
    Wide g = 0;
    auto gcdWith = [&g](Wide c) {
        Wide x = c < 0 ? -c : c, y = g;
        while (y != 0) {
            Wide t = x % y;
            x = y;
            y = t;
        }
        g = x;
    };
    for (std::size_t k = 0; k < p.common; ++k) {
        const std::int64_t a = eq.a[k], b = eq.b[k], extent = p.extentsA[k];
        switch (dirs[k]) {
        case '=': {
            auto [lo, hi] = scaled(a - b, extent);
            range.add(lo, hi);
            gcdWith(Wide(a) - b);
            break;
        }
        case '<':
        case '>': {
            if (extent < 2) return false;
            // Extremes of a*v - b*w over the triangle v < w (or v > w) are at its vertices.
            const Wide e = extent - 1;
            const Wide vs[3][2] = {{0, 1}, {0, e}, {e - 1, e}};
            Wide lo = 0, hi = 0;
            for (int j = 0; j < 3; ++j) {
                const Wide v = dirs[k] == '<' ? vs[j][0] : vs[j][1];
                const Wide w = dirs[k] == '<' ? vs[j][1] : vs[j][0];
                const Wide f = Wide(a) * v - Wide(b) * w;
                lo = j == 0 ? f : std::min(lo, f);
                hi = j == 0 ? f : std::max(hi, f);
            }
            range.add(lo, hi);
            gcdWith(a);
            gcdWith(b);
            break;
        }
        default: {
            auto [alo, ahi] = scaled(a, extent);
            auto [blo, bhi] = scaled(-b, extent);
            range.add(alo + blo, ahi + bhi);
            gcdWith(a);
            gcdWith(b);
        }
        }
    }
    for (std::size_t k = p.common; k < eq.a.size(); ++k) {
        auto [lo, hi] = scaled(eq.a[k], p.extentsA[k]);
        range.add(lo, hi);
        gcdWith(eq.a[k]);
    }
    for (std::size_t k = p.common; k < eq.b.size(); ++k) {
        auto [lo, hi] = scaled(-eq.b[k], p.extentsB[k]);
        range.add(lo, hi);
        gcdWith(eq.b[k]);
    }
    const Wide target = -Wide(eq.constant);
    if (target < range.low || target > range.high) return false;
    return g == 0 ? target == 0 : target % g == 0;
}

/// Hierarchical refinement: the first direction vector (over the common loops) for which no equation is
/// disproved, or nullopt. With `distinct`, the all-'=' vector (same iteration) does not count.
std::optional<std::vector<char>> search(
    const Problem& p, std::vector<char>& dirs, std::size_t level, bool distinct)
{
    for (const auto& eq : p.equations)
        if (!mayHold(eq, p, dirs)) return std::nullopt;
    if (level == p.common) {
        if (distinct && std::all_of(dirs.begin(), dirs.end(), [](char d) { return d == '='; }))
            return std::nullopt;
        return dirs;
    }
    for (char d : {'<', '=', '>'}) {
        dirs[level] = d;
        if (auto found = search(p, dirs, level + 1, distinct)) return found;
    }
    dirs[level] = '*';
    return std::nullopt;
}

std::optional<Dependence> test(const Access& w, const Access& x, bool distinct)
{
    const auto& la = w.context->loops;
    const auto& lb = x.context->loops;
    Problem p;
    p.extentsA = w.context->extents;
    p.extentsB = x.context->extents;
    while (p.common < la.size() && p.common < lb.size() && la[p.common] == lb[p.common])
        ++p.common;
    auto indexOf = [](const std::vector<const ir::Node*>& loops, const std::string& name) -> int {
        for (std::size_t k = 0; k < loops.size(); ++k)
            if (loops[k]->iterator == name) return int(k);
        return -1;
    };
    const std::size_t rank = std::min(w.ref.subscripts.size(), x.ref.subscripts.size());
    for (std::size_t d = 0; d < rank; ++d) {
        Equation eq;
        eq.a.assign(la.size(), 0);
        eq.b.assign(lb.size(), 0);
        const auto& sa = w.ref.subscripts[d];
        const auto& sb = x.ref.subscripts[d];
        bool known = !__builtin_sub_overflow(sa.constant, sb.constant, &eq.constant);
        for (const auto& [name, c] : sa.terms) {
            int k = indexOf(la, name);
            known = known && k >= 0;
            if (k >= 0) eq.a[k] = c;
        }
        for (const auto& [name, c] : sb.terms) {
            int k = indexOf(lb, name);
            known = known && k >= 0;
            if (k >= 0) eq.b[k] = c;
        }
        // A subscript over names that are no enclosing loop cannot be analysed: assume it may match.
        if (known) p.equations.push_back(std::move(eq));
    }
    std::vector<char> dirs(p.common, '*');
    auto found = search(p, dirs, 0, distinct);
    if (!found) return std::nullopt;
    Dependence dep;
    dep.source = w.context;
    dep.sink = x.context;
    dep.first = w.ref;
    dep.second = x.ref;
    dep.secondIsWrite = x.write;
    dep.direction = "(";
    char firstNonEqual = '=';
    for (std::size_t k = 0; k < p.common; ++k) {
        dep.commonLoops.push_back(la[k]->iterator);
        dep.direction += (k ? ", " : "") + std::string(1, (*found)[k]);
        if (firstNonEqual == '=' && (*found)[k] != '=') firstNonEqual = (*found)[k];
    }
    dep.direction += ")";
    if (x.write)
        dep.kind = DependenceKind::Output;
    else if (firstNonEqual == '<')
        dep.kind = DependenceKind::Flow;
    else if (firstNonEqual == '>')
        dep.kind = DependenceKind::Anti;
    else
        dep.kind = w.context->order <= x.context->order ? DependenceKind::Flow : DependenceKind::Anti;
    return dep;
}

std::string where(const ir::Statement& s)
{
    return "'" + s.text + "' (" + std::to_string(s.loc.line) + ":" + std::to_string(s.loc.column) + ")";
}

} // namespace

std::vector<StatementContext> collectStatements(const ir::Operator& op)
{
    std::vector<StatementContext> out;
    std::vector<const ir::Node*> loops;
    std::vector<std::int64_t> extents;
    collect(op, op.body, loops, extents, out);
    return out;
}

const char* toString(DependenceKind kind)
{
    switch (kind) {
    case DependenceKind::Flow:
        return "flow";
    case DependenceKind::Anti:
        return "anti";
    case DependenceKind::Output:
        return "output";
    }
    return "";
}

std::string Dependence::describe() const
{
    std::string out = std::string(toString(kind)) + " dependence on " + first.tensor + ": ";
    const char* verb = secondIsWrite ? "writes" : "reads";
    if (source == sink) {
        out += where(*source->statement) + " writes " + first.toString() + " and " + verb + " "
            + second.toString() + " in another iteration";
    } else {
        out += where(*source->statement) + " writes " + first.toString() + " and " + where(*sink->statement)
            + " " + verb + " " + second.toString();
    }
    if (!commonLoops.empty()) out += ", direction " + direction + " over loops (" + joined(commonLoops) + ")";
    return out;
}

std::vector<Dependence> forbiddenDependences(const std::vector<StatementContext>& statements)
{
    std::vector<Access> accesses;
    std::vector<Reduction> reductions;
    for (const auto& context : statements) {
        const ir::Statement& s = *context.statement;
        int accumulatorIndex = -1;
        reductions.push_back(reductionOf(s, accumulatorIndex));
        accesses.push_back({&context, s.target, true, false});
        if (s.op == ir::Statement::Op::AddAssign) accesses.push_back({&context, s.target, false, true});
        std::vector<ir::TensorRef> reads;
        s.value.collectRefs(reads);
        for (std::size_t i = 0; i < reads.size(); ++i)
            accesses.push_back({&context, reads[i], false, int(i) == accumulatorIndex});
    }
    auto reductionAt = [&](const Access& a) { return reductions[std::size_t(a.context->order)]; };

    std::vector<Dependence> found;
    for (std::size_t iw = 0; iw < accesses.size(); ++iw) {
        const Access& w = accesses[iw];
        if (!w.write) continue;
        for (std::size_t ix = 0; ix < accesses.size(); ++ix) {
            const Access& x = accesses[ix];
            if (x.ref.tensor != w.ref.tensor || (x.write && ix < iw)) continue;
            const bool sameStatement = x.context == w.context;
            const bool reduction = reductionAt(w) != Reduction::None;
            if (sameStatement && reduction && (ix == iw || x.accumulator)) continue;
            if (!sameStatement && reduction && reductionAt(x) == reductionAt(w) && (x.write || x.accumulator)
                && x.ref == w.ref)
                continue;
            if (auto dep = test(w, x, sameStatement)) found.push_back(std::move(*dep));
        }
    }
    return found;
}

} // namespace marvel::conform
