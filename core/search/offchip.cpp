#include "core/search/offchip.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <utility>

#include "core/search/nest_util.h"
#include "core/search/space_size.h"

namespace marvel::search {

namespace {

// Above this many candidate values a non-contiguous subscript is not enumerated; its distinct count
// falls back to min(span, product of tile sizes), an upper bound.
constexpr std::int64_t kMaxEnumeratedSpan = std::int64_t(1) << 24;

struct Term
{
    int loop = -1; // index into the tile vector
    std::int64_t coef = 0;
};

// Footprint of sum(coef_i * t_i), t_i in [0, tile[loop_i]). Coefficient signs do not change the count
// of distinct values (a reflection), so only magnitudes are used.
SubscriptFootprint countSubscript(
    const std::vector<Term>& terms, const std::int64_t* tile, std::int64_t block)
{
    // Small fixed buffer: subscripts have a handful of terms; longer ones are rare but legal.
    std::pair<std::int64_t, std::int64_t> active[16];
    std::vector<std::pair<std::int64_t, std::int64_t>> spill;
    std::pair<std::int64_t, std::int64_t>* act = active;
    if (terms.size() > 16) {
        spill.resize(terms.size());
        act = spill.data();
    }
    std::size_t n = 0;
    for (const Term& term : terms) {
        std::int64_t t = tile[term.loop];
        std::int64_t a = term.coef < 0 ? -term.coef : term.coef;
        if (t > 1 && a != 0) act[n++] = {a, t};
    }
    if (n == 0) return {1, 1};
    std::int64_t g = 0;
    for (std::size_t i = 0; i < n; ++i)
        g = std::gcd(g, act[i].first);
    std::sort(act, act + n);

    // reach: largest scaled value; contiguous while every step fits in the run built so far.
    bool contiguous = true;
    bool huge = false;
    std::int64_t reach = 0;
    double product = 1.0;
    for (std::size_t i = 0; i < n; ++i) {
        std::int64_t b = act[i].first / g;
        std::int64_t t = act[i].second;
        product *= double(t);
        if (b > reach + 1) contiguous = false;
        if (double(b) * double(t - 1) + double(reach) > 1e18) {
            huge = true;
            break;
        }
        reach += b * (t - 1);
    }
    auto blocksOfRun = [&](std::int64_t count) {
        // values g*u, u in [0, count): no block is skipped when g <= block.
        if (g >= block) return count;
        return std::int64_t((__int128(g) * (count - 1)) / block + 1);
    };
    if (contiguous && !huge) {
        std::int64_t count = reach + 1;
        return {count, blocksOfRun(count)};
    }
    if (huge || reach + 1 > kMaxEnumeratedSpan) {
        double span = huge ? 1e18 : double(reach + 1);
        std::int64_t count = std::int64_t(std::min(span, product));
        return {count, std::min(count, blocksOfRun(std::int64_t(std::min(span, 1e18))))};
    }
    thread_local std::vector<char> marks;
    marks.assign(std::size_t(reach + 1), 0);
    marks[0] = 1;
    std::int64_t top = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::int64_t b = act[i].first / g;
        std::int64_t t = act[i].second;
        // Walk downwards so marks set in this pass (always above v) are not shifted again.
        for (std::int64_t v = top; v >= 0; --v)
            if (marks[std::size_t(v)])
                for (std::int64_t k = 1; k < t; ++k)
                    marks[std::size_t(v + b * k)] = 1;
        top += b * (t - 1);
    }
    SubscriptFootprint fp{0, 0};
    std::int64_t lastBlock = -1;
    for (std::int64_t v = 0; v <= top; ++v) {
        if (!marks[std::size_t(v)]) continue;
        ++fp.distinct;
        std::int64_t blk = std::int64_t((__int128(g) * v) / block);
        if (blk != lastBlock) {
            ++fp.blocks;
            lastBlock = blk;
        }
    }
    return fp;
}

struct Dim
{
    std::vector<Term> terms; // iterator terms, signed coefficients
    std::int64_t constant = 0;
};

struct Ref
{
    int tensor = 0;
    std::vector<Dim> dims;
};

struct Tensor
{
    std::string name;
    int rank = 0;
    std::vector<int> refs;
    std::vector<int> innermostChoices; // in preference order for ties (row-major first)
};

// The nest turned into index-based models the inner loop can evaluate without lookups by name.
struct Model
{
    std::vector<Ref> refs;
    std::vector<Tensor> tensors;
    std::vector<ir::TensorRef> irRefs;
};

Model buildModel(const ir::PerfectNest& nest, bool exploreLayouts)
{
    Model m;
    m.irRefs = distinctRefs(nest);
    for (const auto& ref : m.irRefs) {
        int t = -1;
        for (std::size_t i = 0; i < m.tensors.size(); ++i)
            if (m.tensors[i].name == ref.tensor) t = int(i);
        if (t < 0) {
            m.tensors.push_back({ref.tensor, int(ref.subscripts.size()), {}, {}});
            t = int(m.tensors.size()) - 1;
        }
        Tensor& tensor = m.tensors[std::size_t(t)];
        tensor.rank = std::min(tensor.rank, int(ref.subscripts.size()));
        Ref model;
        model.tensor = t;
        for (const auto& sub : ref.subscripts) {
            Dim dim;
            dim.constant = sub.constant;
            for (const auto& [name, coef] : sub.terms) {
                int loop = loopIndex(nest, name);
                if (loop >= 0 && coef != 0) dim.terms.push_back({loop, coef});
            }
            model.dims.push_back(std::move(dim));
        }
        tensor.refs.push_back(int(m.refs.size()));
        m.refs.push_back(std::move(model));
    }
    for (auto& tensor : m.tensors) {
        if (tensor.rank == 0) {
            tensor.innermostChoices = {-1};
        } else if (!exploreLayouts) {
            tensor.innermostChoices = {tensor.rank - 1};
        } else {
            for (int d = tensor.rank - 1; d >= 0; --d)
                tensor.innermostChoices.push_back(d);
        }
    }
    return m;
}

std::int64_t evalAffine(const ir::AffineExpr& expr, const std::vector<ir::SizeParam>& sizes, bool& ok)
{
    std::int64_t value = expr.constant;
    for (const auto& [name, coef] : expr.terms) {
        const std::string& sizeName = name; // clang 14 cannot capture a structured binding
        auto it = std::find_if(
            sizes.begin(), sizes.end(), [&](const ir::SizeParam& s) { return s.name == sizeName; });
        if (it == sizes.end()) {
            ok = false;
            return 0;
        }
        value += coef * it->value;
    }
    return value;
}

std::vector<std::int64_t> extentsOf(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes)
{
    std::vector<std::int64_t> extents;
    for (const auto& loop : nest.loops) {
        std::int64_t e = loop.extent;
        if (e <= 0) {
            bool ok = true;
            std::int64_t hi = evalAffine(loop.upper, sizes, ok);
            std::int64_t lo = evalAffine(loop.lower, sizes, ok);
            e = ok ? hi - lo : 1;
        }
        extents.push_back(std::max<std::int64_t>(e, 1));
    }
    return extents;
}

struct TileCost
{
    std::int64_t blocks = 0;
    std::int64_t footprintElements = 0;
};

// Evaluates tiles of one nest; scratch buffers are reused across calls.
class Evaluator
{
public:
    Evaluator(const Model& model, std::int64_t block)
        : m_model(model)
        , m_block(block)
    {
        for (const auto& ref : model.refs)
            m_fp.emplace_back(ref.dims.size());
    }

    // Footprint in elements of every tensor (no DB): what the L2 constraint needs.
    std::int64_t footprint(const std::int64_t* tile)
    {
        std::int64_t total = 0;
        for (const auto& tensor : m_model.tensors)
            total += tensorFootprint(tensor, tile);
        return total;
    }

    // DB with each tensor's best layout (written to `chosen` when non-null) or with `fixed` layouts.
    TileCost cost(const std::int64_t* tile, std::vector<int>* chosen, const std::vector<int>* fixed = nullptr)
    {
        TileCost c;
        for (std::size_t t = 0; t < m_model.tensors.size(); ++t) {
            const Tensor& tensor = m_model.tensors[t];
            c.footprintElements += tensorFootprint(tensor, tile);
            std::int64_t best = std::numeric_limits<std::int64_t>::max();
            int bestDim = tensor.innermostChoices.front();
            auto consider = [&](int d) {
                std::int64_t sum = 0;
                for (int r : tensor.refs) {
                    const auto& fp = m_fp[std::size_t(r)];
                    if (d < 0 || fp.empty()) {
                        sum += 1;
                        continue;
                    }
                    std::int64_t others = 1;
                    for (std::size_t j = 0; j < fp.size(); ++j)
                        if (int(j) != d) others *= fp[j].distinct;
                    sum += fp[std::size_t(d)].blocks * others;
                }
                if (sum < best) {
                    best = sum;
                    bestDim = d;
                }
            };
            if (fixed) {
                consider((*fixed)[t]);
            } else {
                for (int d : tensor.innermostChoices)
                    consider(d);
            }
            c.blocks += best;
            if (chosen) (*chosen)[t] = bestDim;
        }
        return c;
    }

    // Sum over references of distinct elements / elements per block (scalars: 1 block): no tile whose
    // sizes are at most `tile` in the free loops has fewer blocks per iteration (see boundFrom()).
    double blocksLowerBound(const std::int64_t* tile) const
    {
        double total = 0.0;
        for (const auto& ref : m_model.refs) {
            double product = 1.0;
            for (const auto& dim : ref.dims)
                product *= double(footprint_(dim.terms, tile).distinct);
            total += ref.dims.empty() ? 1.0 : product / double(m_block);
        }
        return total;
    }

    // Blocks of one subscript (for the last-loop run detection).
    std::int64_t subscriptBlocks(int ref, int dim, const std::int64_t* tile) const
    {
        return footprint_(m_model.refs[std::size_t(ref)].dims[std::size_t(dim)].terms, tile).blocks;
    }

private:
    SubscriptFootprint footprint_(const std::vector<Term>& terms, const std::int64_t* tile) const
    {
        return countSubscript(terms, tile, m_block);
    }

    // Distinct elements of a tensor. Several references: the smaller of their sum and their bounding box.
    std::int64_t tensorFootprint(const Tensor& tensor, const std::int64_t* tile)
    {
        std::int64_t sum = 0;
        for (int r : tensor.refs) {
            const Ref& ref = m_model.refs[std::size_t(r)];
            auto& fp = m_fp[std::size_t(r)];
            std::int64_t product = 1;
            for (std::size_t j = 0; j < ref.dims.size(); ++j) {
                fp[j] = footprint_(ref.dims[j].terms, tile);
                product *= fp[j].distinct;
            }
            sum += product;
        }
        if (tensor.refs.size() <= 1 || tensor.rank == 0) return sum;
        std::int64_t box = 1;
        for (int d = 0; d < tensor.rank; ++d) {
            std::int64_t lo = std::numeric_limits<std::int64_t>::max();
            std::int64_t hi = std::numeric_limits<std::int64_t>::min();
            for (int r : tensor.refs) {
                const Dim& dim = m_model.refs[std::size_t(r)].dims[std::size_t(d)];
                std::int64_t dlo = dim.constant, dhi = dim.constant;
                for (const Term& term : dim.terms) {
                    std::int64_t span = term.coef * (tile[term.loop] - 1);
                    (span < 0 ? dlo : dhi) += span;
                }
                lo = std::min(lo, dlo);
                hi = std::max(hi, dhi);
            }
            box *= hi - lo + 1;
        }
        return std::min(sum, box);
    }

    const Model& m_model;
    std::int64_t m_block;
    std::vector<std::vector<SubscriptFootprint>> m_fp; // per ref, per dim: the last tile's footprints
};

std::int64_t elementsPerBlock(const arch::Accelerator& acc)
{
    std::int64_t bpe = std::max<std::int64_t>(acc.bytesPerElement, 1);
    return std::max<std::int64_t>(acc.dramBlockBytes / bpe, 1);
}

std::int64_t bytesOf(std::int64_t elements, const arch::Accelerator& acc, const OffChipOptions& options)
{
    return elements * std::max<std::int64_t>(acc.bytesPerElement, 1) * (options.doubleBuffering ? 2 : 1);
}

class Search
{
public:
    Search(const ir::PerfectNest& nest, const std::vector<std::int64_t>& extents, const Model& model,
        const arch::Accelerator& acc, const OffChipOptions& options)
        : m_model(model)
        , m_acc(acc)
        , m_options(options)
        , m_eval(model, elementsPerBlock(acc))
    {
        std::size_t n = nest.loops.size();
        m_tile.assign(n, 1);
        for (std::size_t i = 0; i < n; ++i) {
            m_candidates.push_back(tileSizes(extents[i], options.divisorsOnly, options.everyTileSize));
            if (i < options.maxTile.size() && options.maxTile[i] > 0)
                std::erase_if(m_candidates.back(), [&](std::int64_t t) { return t > options.maxTile[i]; });
        }
        // The last loop gets the run-skipping treatment; it must not appear in two subscripts of one
        // reference (then DB is not monotone within a run). Prefer the loop with most candidates.
        std::vector<bool> runSafe(n, true);
        for (const auto& ref : model.refs) {
            std::vector<int> uses(n, 0);
            for (const auto& dim : ref.dims)
                for (const auto& term : dim.terms)
                    ++uses[std::size_t(term.loop)];
            for (std::size_t i = 0; i < n; ++i)
                if (uses[i] > 1) runSafe[i] = false;
        }
        m_extents = extents;
        m_bound = std::all_of(runSafe.begin(), runSafe.end(), [](bool b) { return b; });
        for (std::size_t i = 0; i < n; ++i)
            m_order.push_back(int(i));
        std::stable_sort(m_order.begin(), m_order.end(), [&](int a, int b) {
            auto key = [&](int l) {
                return std::make_pair(runSafe[std::size_t(l)] ? 1 : 0, m_candidates[std::size_t(l)].size());
            };
            return key(a) < key(b);
        });
        if (n > 0) {
            int last = m_order.back();
            m_lastRunSafe = runSafe[std::size_t(last)];
            for (std::size_t r = 0; r < model.refs.size(); ++r) {
                const Tensor& tensor = model.tensors[std::size_t(model.refs[r].tensor)];
                for (int d : tensor.innermostChoices) {
                    if (d < 0) continue;
                    for (const auto& term : model.refs[r].dims[std::size_t(d)].terms)
                        if (term.loop == last) m_watch.emplace_back(int(r), d);
                }
            }
        }
    }

    void run()
    {
        if (!fits()) return;
        if (m_tile.empty()) {
            consider();
            return;
        }
        descend(0);
    }

    bool found() const { return m_found; }
    const std::vector<std::int64_t>& bestTile() const { return m_bestTile; }
    const std::vector<int>& bestLayout() const { return m_bestLayout; }
    TileCost bestCost() const { return m_best; }
    std::int64_t evaluated() const { return m_evaluated; }
    bool stopped() const { return m_stopped; }

private:
    // Checked every 1024 steps: a step costs well under a microsecond, so a stop is seen within a
    // millisecond without a per-step atomic load.
    bool stopRequested()
    {
        if (!m_stopped && (++m_steps & 1023) == 0) m_stopped = m_options.stop.stop_requested();
        return m_stopped;
    }

    bool fits() { return bytesOf(m_eval.footprint(m_tile.data()), m_acc, m_options) <= m_acc.l2Bytes; }

    void descend(std::size_t depth)
    {
        if (stopRequested()) return;
        int loop = m_order[depth];
        const auto& cands = m_candidates[std::size_t(loop)];
        if (depth + 1 == m_order.size()) {
            lastLoop(loop, cands);
            return;
        }
        // Largest feasible size first: good tiles are found early, and the bound below only grows as
        // the size shrinks, so the first pruned size ends the loop.
        std::size_t top = largestFeasible(loop, cands);
        for (std::size_t i = top + 1; i-- > 0;) {
            m_tile[std::size_t(loop)] = cands[i];
            if (m_bound && m_found && boundExceedsBest(depth)) break;
            descend(depth + 1);
        }
        m_tile[std::size_t(loop)] = 1;
    }

    // Branch and bound. Every reference's blocks are at least its distinct elements / block, and
    // distinct(s) / (product of the tile sizes of its iterators) never grows with those sizes when no
    // loop appears in two subscripts of a reference (the same argument as the last-loop runs). So
    // with the loops not yet chosen at their full extents, sum_refs distinct / block / volume bounds
    // the cost of every tile of the subtree from below.
    bool boundExceedsBest(std::size_t depth)
    {
        for (std::size_t k = depth + 1; k < m_order.size(); ++k)
            m_tile[std::size_t(m_order[k])] = m_extents[std::size_t(m_order[k])];
        double volume = 1.0;
        for (std::int64_t v : m_tile)
            volume *= double(v);
        double bound = m_eval.blocksLowerBound(m_tile.data()) / volume;
        for (std::size_t k = depth + 1; k < m_order.size(); ++k)
            m_tile[std::size_t(m_order[k])] = 1;
        double best = double(m_best.blocks) / double(m_bestVolume);
        return bound > best * (1.0 + 1e-9);
    }

    // Index of the largest candidate that fits with the loops chosen so far (the first, 1, fits: the
    // caller checked it with this loop at 1); footprints grow with every tile size.
    std::size_t largestFeasible(int loop, const std::vector<std::int64_t>& cands)
    {
        auto& t = m_tile[std::size_t(loop)];
        std::size_t lo = 0, hi = cands.size() - 1;
        while (lo < hi) {
            std::size_t mid = (lo + hi + 1) / 2;
            t = cands[mid];
            if (fits())
                lo = mid;
            else
                hi = mid - 1;
        }
        t = 1;
        return lo;
    }

    void lastLoop(int loop, const std::vector<std::int64_t>& cands)
    {
        auto& t = m_tile[std::size_t(loop)];
        std::size_t top = largestFeasible(loop, cands);
        thread_local std::vector<std::int64_t> prev, cur;
        for (std::size_t i = top + 1; i-- > 0 && !stopRequested();) {
            t = cands[i];
            bool evaluate = i == top || !m_lastRunSafe;
            if (m_lastRunSafe) {
                cur.clear();
                for (const auto& [ref, dim] : m_watch)
                    cur.push_back(m_eval.subscriptBlocks(ref, dim, m_tile.data()));
                if (i != top && cur != prev) evaluate = true;
                std::swap(prev, cur);
            }
            if (evaluate) consider();
        }
        t = 1;
    }

    void consider()
    {
        ++m_evaluated;
        TileCost c = m_eval.cost(m_tile.data(), &m_scratchLayout);
        std::int64_t volume = 1;
        for (std::int64_t v : m_tile)
            volume *= v;
        bool better = !m_found;
        if (!better) {
            __int128 lhs = __int128(c.blocks) * m_bestVolume;
            __int128 rhs = __int128(m_best.blocks) * volume;
            better = lhs < rhs
                || (lhs == rhs && (volume > m_bestVolume || (volume == m_bestVolume && m_tile > m_bestTile)));
        }
        if (better) {
            m_found = true;
            m_best = c;
            m_bestVolume = volume;
            m_bestTile = m_tile;
            m_bestLayout = m_scratchLayout;
        }
    }

    const Model& m_model;
    const arch::Accelerator& m_acc;
    const OffChipOptions& m_options;
    Evaluator m_eval;
    std::vector<std::vector<std::int64_t>> m_candidates;
    std::vector<int> m_order; // enumeration order of the loops (not the inter-tile order)
    bool m_lastRunSafe = true;
    bool m_bound = false; // branch and bound is valid (no loop in two subscripts of a reference)
    std::vector<std::int64_t> m_extents;
    std::vector<std::pair<int, int>> m_watch; // (ref, dim) whose block count may change with the last loop
    std::vector<std::int64_t> m_tile;
    std::vector<int> m_scratchLayout = std::vector<int>(m_model.tensors.size(), 0);
    bool m_found = false;
    TileCost m_best;
    std::int64_t m_bestVolume = 1;
    std::vector<std::int64_t> m_bestTile;
    std::vector<int> m_bestLayout;
    std::int64_t m_evaluated = 0;
    std::uint64_t m_steps = 0;
    bool m_stopped = false;
};

// d cost / d T_l of the smooth cost at `tile`, with the given innermost dimension per tensor.
std::vector<double> derivatives(const Model& model, const std::vector<std::int64_t>& tile,
    const std::vector<int>& innermost, double block)
{
    std::size_t n = tile.size();
    double volume = 1.0;
    for (std::int64_t v : tile)
        volume *= double(v);
    std::vector<double> numerator(n, 0.0);
    double cost = 0.0;
    for (const auto& ref : model.refs) {
        int inner = innermost[std::size_t(ref.tensor)];
        std::vector<double> spans;
        double f = 1.0;
        for (std::size_t j = 0; j < ref.dims.size(); ++j) {
            double span = 1.0;
            for (const auto& term : ref.dims[j].terms)
                span += double(term.coef < 0 ? -term.coef : term.coef)
                    * double(tile[std::size_t(term.loop)] - 1);
            spans.push_back(span);
            f *= span;
        }
        if (inner >= 0) f /= block;
        cost += f;
        for (std::size_t j = 0; j < ref.dims.size(); ++j)
            for (const auto& term : ref.dims[j].terms)
                numerator[std::size_t(term.loop)]
                    += double(term.coef < 0 ? -term.coef : term.coef) * f / spans[j];
    }
    cost /= volume;
    std::vector<double> result(n);
    for (std::size_t l = 0; l < n; ++l)
        result[l] = numerator[l] / volume - cost / double(tile[l]);
    return result;
}

std::vector<TensorLayout> layoutsOf(const Model& model, const std::vector<int>& innermost)
{
    std::vector<TensorLayout> out;
    for (std::size_t t = 0; t < model.tensors.size(); ++t) {
        const Tensor& tensor = model.tensors[t];
        out.push_back(
            innermostLayout(tensor.name, tensor.rank, innermost[t] < 0 ? tensor.rank - 1 : innermost[t]));
    }
    return out;
}

// Terms of `expr` whose names are tile iterators, with tile sizes gathered into `sizes`.
std::vector<Term> termsOver(const ir::AffineExpr& expr, const std::map<std::string, std::int64_t>& tile,
    std::vector<std::int64_t>& sizes)
{
    std::vector<Term> terms;
    for (const auto& [name, coef] : expr.terms) {
        auto it = tile.find(name);
        if (it == tile.end() || coef == 0) continue;
        terms.push_back({int(sizes.size()), coef});
        sizes.push_back(std::max<std::int64_t>(it->second, 1));
    }
    return terms;
}

} // namespace

std::string TensorLayout::toString() const
{
    std::string out = tensor + ":";
    for (std::size_t i = 0; i < dimOrder.size(); ++i)
        out += (i ? "," : " ") + std::to_string(dimOrder[i]);
    return out;
}

TensorLayout innermostLayout(const std::string& tensor, int rank, int innermostDim)
{
    TensorLayout layout{tensor, {}};
    for (int d = 0; d < rank; ++d)
        if (d != innermostDim) layout.dimOrder.push_back(d);
    if (innermostDim >= 0 && innermostDim < rank) layout.dimOrder.push_back(innermostDim);
    return layout;
}

SubscriptFootprint subscriptFootprint(const ir::AffineExpr& subscript,
    const std::map<std::string, std::int64_t>& tile, std::int64_t elementsPerBlock)
{
    std::vector<std::int64_t> sizes;
    auto terms = termsOver(subscript, tile, sizes);
    return countSubscript(terms, sizes.data(), std::max<std::int64_t>(elementsPerBlock, 1));
}

std::int64_t distinctSubscriptValues(std::span<const std::pair<std::int64_t, std::int64_t>> terms)
{
    // Per-thread scratch: the on-chip search calls this for every node of its tile enumeration.
    thread_local std::vector<Term> scratchTerms;
    thread_local std::vector<std::int64_t> scratchTiles;
    scratchTerms.clear();
    scratchTiles.clear();
    for (const auto& [coefficient, tile] : terms) {
        scratchTerms.push_back({static_cast<int>(scratchTiles.size()), coefficient});
        scratchTiles.push_back(std::max<std::int64_t>(1, tile));
    }
    return countSubscript(scratchTerms, scratchTiles.data(), 1).distinct;
}

std::int64_t distinctBlocks(const ir::TensorRef& ref, const std::map<std::string, std::int64_t>& tile,
    const TensorLayout& layout, std::int64_t elementsPerBlock)
{
    if (ref.subscripts.empty()) return 1;
    int inner = layout.innermost();
    if (inner < 0 || inner >= int(ref.subscripts.size())) inner = int(ref.subscripts.size()) - 1;
    std::int64_t result = 1;
    for (std::size_t j = 0; j < ref.subscripts.size(); ++j) {
        auto fp = subscriptFootprint(ref.subscripts[j], tile, elementsPerBlock);
        result *= int(j) == inner ? fp.blocks : fp.distinct;
    }
    return result;
}

std::int64_t distinctElements(const ir::TensorRef& ref, const std::map<std::string, std::int64_t>& tile)
{
    std::int64_t result = 1;
    for (const auto& sub : ref.subscripts)
        result *= subscriptFootprint(sub, tile, 1).distinct;
    return result;
}

OffChipCost offChipCost(const ir::PerfectNest& nest, const std::vector<std::int64_t>& tile,
    const std::vector<TensorLayout>& layouts, const arch::Accelerator& acc, const OffChipOptions& options)
{
    Model model = buildModel(nest, true);
    std::vector<std::int64_t> t(nest.loops.size(), 1);
    for (std::size_t i = 0; i < t.size() && i < tile.size(); ++i)
        t[i] = std::max<std::int64_t>(tile[i], 1);
    std::vector<int> fixed;
    for (const auto& tensor : model.tensors) {
        int inner = tensor.rank - 1;
        for (const auto& layout : layouts)
            if (layout.tensor == tensor.name && layout.innermost() >= 0 && layout.innermost() < tensor.rank)
                inner = layout.innermost();
        fixed.push_back(tensor.rank == 0 ? -1 : inner);
    }
    Evaluator eval(model, elementsPerBlock(acc));
    TileCost c = eval.cost(t.data(), nullptr, &fixed);
    OffChipCost out;
    out.distinctBlocks = c.blocks;
    out.iterations = 1;
    for (std::int64_t v : t)
        out.iterations *= v;
    out.costPerIteration = double(c.blocks) / double(out.iterations);
    out.l2FootprintBytes = bytesOf(c.footprintElements, acc, options);
    out.fitsL2 = out.l2FootprintBytes <= acc.l2Bytes;
    return out;
}

OffChipSolution solveOffChip(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes,
    const arch::Accelerator& acc, const OffChipOptions& options)
{
    OffChipSolution sol;
    auto extents = extentsOf(nest, sizes);
    if (!options.divisorsOnly) {
        // Every tile size 1..extent is a candidate: a list of that many sizes (and the space sizes'
        // enumeration) must stay within memory, or the search ends in std::bad_alloc.
        constexpr std::int64_t kMaxNonDivisorExtent = std::int64_t(1) << 20;
        std::vector<Diagnostic> tooLong;
        for (std::size_t i = 0; i < nest.loops.size(); ++i)
            if (i < extents.size() && extents[i] > kMaxNonDivisorExtent)
                tooLong.push_back(Diagnostic{{}, {}, "search.divisors_only",
                    "loop '" + nest.loops[i].iterator + "' has " + std::to_string(extents[i])
                        + " iterations: tile sizes that do not divide it can only be tried up to "
                        + std::to_string(kMaxNonDivisorExtent) + " (keep tile sizes to divisors)"});
        if (!tooLong.empty()) throw InputError(std::move(tooLong));
    }
    Model model = buildModel(nest, options.exploreLayouts);
    sol.originalSpaceSize = originalSpaceSize(nest, acc.numPes, false, 0.0, options.exploreLayouts);
    sol.offChipSpaceSize = offChipSpaceSize(nest, false, options.exploreLayouts);
    sol.offChipSpacePruned = offChipSpaceSize(nest, options.divisorsOnly, options.exploreLayouts);

    Search search(nest, extents, model, acc, options);
    search.run();
    sol.evaluated = search.evaluated();
    if (search.stopped()) {
        sol.cancelled = true;
        return sol;
    }
    std::vector<int> innermost(model.tensors.size());
    if (search.found()) {
        sol.feasible = true;
        sol.tile = search.bestTile();
        innermost = search.bestLayout();
    } else {
        sol.tile.assign(nest.loops.size(), 1);
        for (std::size_t t = 0; t < model.tensors.size(); ++t)
            innermost[t] = model.tensors[t].innermostChoices.front();
    }
    sol.layouts = layoutsOf(model, innermost);
    OffChipCost c = offChipCost(nest, sol.tile, sol.layouts, acc, options);
    sol.distinctBlocksPerTile = c.distinctBlocks;
    sol.iterationsPerTile = c.iterations;
    sol.costPerIteration = c.costPerIteration;
    sol.l2FootprintBytes = c.l2FootprintBytes;

    sol.derivatives = derivatives(model, sol.tile, innermost, double(elementsPerBlock(acc)));
    for (std::size_t i = 0; i < nest.loops.size(); ++i)
        sol.order.push_back(int(i));
    std::stable_sort(sol.order.begin(), sol.order.end(),
        [&](int a, int b) { return sol.derivatives[std::size_t(a)] > sol.derivatives[std::size_t(b)]; });
    return sol;
}

namespace {
/// Everything solveOffChip reads, as text: equal keys give equal solutions.
std::string offChipKey(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes,
    const arch::Accelerator& acc, const OffChipOptions& options)
{
    std::string key;
    for (const ir::LoopInfo& l : nest.loops)
        key += l.iterator + ':' + l.lower.toString() + ':' + l.upper.toString() + ':'
            + std::to_string(l.extent) + ':' + l.dimName + ';';
    for (const ir::Statement& st : nest.statements)
        key += st.text + ';';
    for (const ir::SizeParam& p : sizes)
        key += p.name + '=' + std::to_string(p.value) + ';';
    key += "|l2=" + std::to_string(acc.l2Bytes) + "|w=" + std::to_string(acc.bytesPerElement)
        + "|blk=" + std::to_string(acc.dramBlockBytes) + '|' + char('0' + options.divisorsOnly)
        + char('0' + options.everyTileSize) + char('0' + options.exploreLayouts)
        + char('0' + options.doubleBuffering);
    for (std::int64_t m : options.maxTile)
        key += ',' + std::to_string(m);
    return key;
}
} // namespace

OffChipSolution OffChipCache::solve(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes,
    const arch::Accelerator& acc, const OffChipOptions& options)
{
    const std::string key = offChipKey(nest, sizes, acc, options);
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
                if (it->first != key) continue;
                m_entries.splice(m_entries.begin(), m_entries, it);
                ++m_hits;
                OffChipSolution hit = it->second;
                // The only figure that depends on the PE count: the size of the whole space.
                hit.originalSpaceSize
                    = originalSpaceSize(nest, acc.numPes, false, 0.0, options.exploreLayouts);
                return hit;
            }
            if (!m_solving.contains(key)) break;
            // Another caller is solving this key (sweep points that differ only on chip start together):
            // wait for its result instead of solving it twice, checking our own cancellation now and then.
            if (options.stop.stop_requested()) {
                OffChipSolution cancelled;
                cancelled.cancelled = true;
                return cancelled;
            }
            m_solved.wait_for(lock, std::chrono::milliseconds(50));
        }
        ++m_misses;
        m_solving.insert(key);
    }
    OffChipSolution solution;
    try {
        solution = solveOffChip(nest, sizes, acc, options);
    } catch (...) {
        const std::lock_guard lock(m_mutex);
        m_solving.erase(key);
        m_solved.notify_all();
        throw;
    }
    const std::lock_guard lock(m_mutex);
    m_solving.erase(key);
    if (!solution.cancelled) { // a cancelled solve is not kept: a waiting caller solves it itself
        m_entries.emplace_front(key, solution);
        if (m_entries.size() > m_capacity) m_entries.pop_back();
    }
    m_solved.notify_all();
    return solution;
}

std::uint64_t OffChipCache::hits() const
{
    const std::lock_guard lock(m_mutex);
    return m_hits;
}

std::uint64_t OffChipCache::misses() const
{
    const std::lock_guard lock(m_mutex);
    return m_misses;
}

} // namespace marvel::search
