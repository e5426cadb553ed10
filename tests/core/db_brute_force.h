#pragma once
// Brute-force references for the distinct-block model: enumerate every iteration of a tile, compute
// each element's address under an innermost-dimension layout and count distinct address / block.
// Shared by tst_distinct_blocks and tst_offchip; independent of core/search.

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/operator.h"

namespace bruteforce {

/// AffineExpr from (name, coefficient) pairs, kept canonical (sorted, no zeros).
inline marvel::ir::AffineExpr affine(
    std::vector<std::pair<std::string, std::int64_t>> terms, std::int64_t constant = 0)
{
    std::sort(terms.begin(), terms.end());
    marvel::ir::AffineExpr e;
    for (auto& t : terms)
        if (t.second != 0) e.terms.push_back(t);
    e.constant = constant;
    return e;
}

inline marvel::ir::TensorRef ref(const std::string& tensor, std::vector<marvel::ir::AffineExpr> subs)
{
    marvel::ir::TensorRef r;
    r.tensor = tensor;
    r.subscripts = std::move(subs);
    return r;
}

inline std::int64_t eval(const marvel::ir::AffineExpr& e, const std::map<std::string, std::int64_t>& point)
{
    std::int64_t v = e.constant;
    for (const auto& [name, coef] : e.terms) {
        auto it = point.find(name);
        v += coef * (it == point.end() ? 0 : it->second);
    }
    return v;
}

/// Every point of the tile box [0, tile[name]) over the iterators in `tile`.
inline std::vector<std::map<std::string, std::int64_t>> points(
    const std::map<std::string, std::int64_t>& tile)
{
    std::vector<std::map<std::string, std::int64_t>> out{{}};
    for (const auto& [name, size] : tile) {
        std::vector<std::map<std::string, std::int64_t>> next;
        for (const auto& p : out)
            for (std::int64_t v = 0; v < size; ++v) {
                auto q = p;
                q[name] = v;
                next.push_back(q);
            }
        out = std::move(next);
    }
    return out;
}

/// Distinct DRAM blocks of `r` over the tile. Layout: `innermost` is contiguous, the other dimensions
/// keep their order; each contiguous line is padded to whole blocks and the tile's smallest subscript
/// value of every dimension sits at offset 0 of its line.
inline std::int64_t blocks(const marvel::ir::TensorRef& r, const std::map<std::string, std::int64_t>& tile,
    int innermost, std::int64_t block)
{
    auto pts = points(tile);
    std::size_t rank = r.subscripts.size();
    std::vector<std::int64_t> lo(rank, INT64_MAX), hi(rank, INT64_MIN);
    for (const auto& p : pts)
        for (std::size_t d = 0; d < rank; ++d) {
            lo[d] = std::min(lo[d], eval(r.subscripts[d], p));
            hi[d] = std::max(hi[d], eval(r.subscripts[d], p));
        }
    std::vector<std::size_t> order;
    for (std::size_t d = 0; d < rank; ++d)
        if (int(d) != innermost) order.push_back(d);
    order.push_back(std::size_t(innermost));
    std::set<std::int64_t> seen;
    for (const auto& p : pts) {
        std::int64_t address = 0;
        for (std::size_t k = 0; k < rank; ++k) {
            std::size_t d = order[k];
            std::int64_t extent = hi[d] - lo[d] + 1;
            if (k + 1 == rank) extent = (extent + block - 1) / block * block; // padded line
            address = address * extent + (eval(r.subscripts[d], p) - lo[d]);
        }
        seen.insert(address / block);
    }
    return std::int64_t(seen.size());
}

/// Distinct elements of `r` over the tile.
inline std::int64_t elements(const marvel::ir::TensorRef& r, const std::map<std::string, std::int64_t>& tile)
{
    std::set<std::vector<std::int64_t>> seen;
    for (const auto& p : points(tile)) {
        std::vector<std::int64_t> e;
        for (const auto& s : r.subscripts)
            e.push_back(eval(s, p));
        seen.insert(e);
    }
    return std::int64_t(seen.size());
}

} // namespace bruteforce
