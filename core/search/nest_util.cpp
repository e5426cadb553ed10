#include "core/search/nest_util.h"

#include <algorithm>
#include <numeric>

namespace marvel::search {

namespace {

void collect(const ir::Expr& expr, std::vector<ir::TensorRef>& out)
{
    if (expr.kind == ir::Expr::Kind::Ref) {
        out.push_back(expr.ref);
        return;
    }
    for (const auto& operand : expr.operands)
        collect(operand, out);
}

} // namespace

std::vector<ir::TensorRef> distinctRefs(const ir::PerfectNest& nest)
{
    std::vector<ir::TensorRef> all;
    for (const auto& statement : nest.statements) {
        all.push_back(statement.target);
        collect(statement.value, all);
    }
    std::vector<ir::TensorRef> out;
    for (auto& ref : all)
        if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(std::move(ref));
    return out;
}

std::vector<std::int64_t> divisorsOf(std::int64_t n)
{
    std::vector<std::int64_t> low, high;
    if (n < 1) return {1};
    for (std::int64_t d = 1; d * d <= n; ++d) {
        if (n % d != 0) continue;
        low.push_back(d);
        if (d != n / d) high.push_back(n / d);
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

int loopIndex(const ir::PerfectNest& nest, const std::string& name)
{
    for (std::size_t i = 0; i < nest.loops.size(); ++i)
        if (nest.loops[i].iterator == name) return int(i);
    return -1;
}

std::vector<std::int64_t> tileSizes(std::int64_t bound, bool divisorsOnly, bool everySize)
{
    if (divisorsOnly) return divisorsOf(bound);
    std::vector<std::int64_t> out;
    if (everySize) {
        out.resize(static_cast<std::size_t>(std::max<std::int64_t>(0, bound)));
        std::iota(out.begin(), out.end(), std::int64_t{1});
        return out;
    }
    for (std::int64_t k = bound; k >= 1; --k) {
        const std::int64_t size = (bound + k - 1) / k;
        if (out.empty() || out.back() != size) out.push_back(size);
    }
    return out;
}

} // namespace marvel::search
