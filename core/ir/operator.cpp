#include "core/ir/operator.h"

#include <algorithm>
#include <cstdlib>

namespace marvel::ir {

std::int64_t AffineExpr::coefficient(std::string_view name) const
{
    for (const auto& [variable, value] : terms)
        if (variable == name) return value;
    return 0;
}

std::vector<std::string> AffineExpr::variables() const
{
    std::vector<std::string> names;
    names.reserve(terms.size());
    for (const auto& term : terms)
        names.push_back(term.first);
    return names;
}

std::string AffineExpr::toString() const
{
    std::string out;
    auto appendSigned = [&out](bool negative) {
        if (out.empty())
            out += negative ? "-" : "";
        else
            out += negative ? " - " : " + ";
    };
    for (const auto& [name, value] : terms) {
        appendSigned(value < 0);
        // The magnitude of INT64_MIN is not representable; print it through unsigned arithmetic.
        std::uint64_t magnitude = value < 0 ? std::uint64_t(0) - std::uint64_t(value) : std::uint64_t(value);
        if (magnitude != 1) out += std::to_string(magnitude) + "*";
        out += name;
    }
    if (constant != 0 || out.empty()) {
        if (out.empty()) {
            out = std::to_string(constant);
        } else {
            appendSigned(constant < 0);
            std::uint64_t magnitude
                = constant < 0 ? std::uint64_t(0) - std::uint64_t(constant) : std::uint64_t(constant);
            out += std::to_string(magnitude);
        }
    }
    return out;
}

std::string TensorRef::subscriptToString(std::size_t dim) const
{
    if (dim < subscriptText.size() && !subscriptText[dim].empty()) return subscriptText[dim];
    return dim < subscripts.size() ? subscripts[dim].toString() : std::string();
}

std::string TensorRef::toString() const
{
    std::string out = tensor;
    for (std::size_t d = 0; d < subscripts.size(); ++d)
        out += "[" + subscriptToString(d) + "]";
    return out;
}

void Expr::collectRefs(std::vector<TensorRef>& out) const
{
    if (kind == Kind::Ref) {
        out.push_back(ref);
        return;
    }
    for (const auto& operand : operands)
        operand.collectRefs(out);
}

std::int64_t Expr::operations() const
{
    std::int64_t n = (kind == Kind::Number || kind == Kind::Ref) ? 0 : 1;
    for (const auto& operand : operands)
        n += operand.operations();
    return n;
}

namespace {
bool isRefTo(const Expr& e, const TensorRef& target)
{
    return e.kind == Expr::Kind::Ref && e.ref == target;
}
} // namespace

bool Statement::isReduction() const
{
    if (op == Op::AddAssign) return true;
    const bool binaryReduction
        = value.kind == Expr::Kind::Add || value.kind == Expr::Kind::Max || value.kind == Expr::Kind::Min;
    if (!binaryReduction || value.operands.size() != 2) return false;
    return isRefTo(value.operands[0], target) || isRefTo(value.operands[1], target);
}

std::vector<TensorRef> Statement::reads() const
{
    std::vector<TensorRef> out;
    if (op == Op::AddAssign) out.push_back(target);
    value.collectRefs(out);
    return out;
}

bool Statement::isMultiplyAccumulate() const
{
    auto isProduct = [](const Expr& e) {
        return e.kind == Expr::Kind::Mul && e.operands.size() == 2 && e.operands[0].kind == Expr::Kind::Ref
            && e.operands[1].kind == Expr::Kind::Ref;
    };
    if (op == Op::AddAssign) return isProduct(value);
    if (value.kind != Expr::Kind::Add || value.operands.size() != 2) return false;
    return (isRefTo(value.operands[0], target) && isProduct(value.operands[1]))
        || (isRefTo(value.operands[1], target) && isProduct(value.operands[0]));
}

std::int64_t Statement::operations() const
{
    return value.operations() + (op == Op::AddAssign ? 1 : 0);
}

std::optional<std::int64_t> Operator::sizeValue(std::string_view name) const
{
    for (const auto& size : sizes)
        if (size.name == name) return size.value;
    return std::nullopt;
}

namespace {

/// Largest value `e` reaches when every size is replaced by its value and every outer iterator ranges
/// over [0, extent - 1]. Computed in 128 bits: sizes and coefficients are bounded by the parser, so the
/// sum cannot overflow there.
__int128 maxOverBox(const AffineExpr& e, const Operator& op, const std::vector<LoopInfo>& outer)
{
    __int128 value = e.constant;
    for (const auto& [name, coefficient] : e.terms) {
        if (auto size = op.sizeValue(name)) {
            value += __int128(coefficient) * *size;
            continue;
        }
        const std::string& iterator = name; // clang 14 cannot capture a structured binding
        auto loop = std::find_if(
            outer.begin(), outer.end(), [&](const LoopInfo& l) { return l.iterator == iterator; });
        if (loop != outer.end() && coefficient > 0) value += __int128(coefficient) * (loop->extent - 1);
    }
    return value;
}

std::string dimensionName(const LoopInfo& loop)
{
    if (loop.upper.constant == 0 && loop.upper.terms.size() == 1 && loop.upper.terms[0].second == 1)
        return loop.upper.terms[0].first;
    std::string upper = loop.iterator;
    std::transform(upper.begin(), upper.end(), upper.begin(),
        [](unsigned char c) { return char(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c); });
    return upper;
}

} // namespace

std::optional<PerfectNest> perfectNest(const Operator& op)
{
    PerfectNest nest;
    const std::vector<Node>* level = &op.body;
    while (true) {
        const bool allStatements = std::all_of(
            level->begin(), level->end(), [](const Node& n) { return n.kind == Node::Kind::Statement; });
        if (allStatements) {
            if (level->empty() || nest.loops.empty()) return std::nullopt;
            for (const auto& n : *level)
                nest.statements.push_back(n.statement);
            return nest;
        }
        if (level->size() != 1 || level->front().kind != Node::Kind::Loop) return std::nullopt;
        const Node& loop = level->front();
        LoopInfo info;
        info.iterator = loop.iterator;
        info.lower = loop.lower;
        info.upper = loop.upper;
        info.loc = loop.loc;
        const __int128 extent = maxOverBox(loop.upper, op, nest.loops) - loop.lower.constant;
        if (extent <= 0 || extent > INT64_MAX) return std::nullopt;
        info.extent = std::int64_t(extent);
        info.dimName = dimensionName(info);
        nest.loops.push_back(std::move(info));
        level = &loop.body;
    }
}

} // namespace marvel::ir
