#include "core/styles/fixed_dataflows.h"

#include <algorithm>

#include "core/cost/problem.h"
#include "core/styles/named.h"

namespace marvel::styles {

namespace {

constexpr detail::Named<FixedDataflow> kFixed[] = {
    {FixedDataflow::KcpWs, "kcp_ws",
        "NVDLA-like weight-stationary: output channels over clusters, input channels inside a cluster"},
    {FixedDataflow::Rs, "rs",
        "Eyeriss-like row-stationary: output rows over clusters of R PEs, one filter row per PE"},
    {FixedDataflow::XpWs, "xp_ws", "weight-stationary over output columns: one output column per PE"},
    {FixedDataflow::YxpOs, "yxp_os",
        "ShiDianNao-like output-stationary: output rows over clusters, output columns inside a cluster"},
    {FixedDataflow::YkpOs, "ykp_os",
        "output-stationary: output rows over clusters, output channels inside a cluster"},
};

using mdc::Directive;

/// Cluster sizes s in [1, min(pes, inner)], best first: by the PEs kept busy when an outer loop of
/// `outer` iterations is spread over pes / s clusters and an inner one of `inner` iterations over s
/// PEs, ties to the larger cluster.
std::vector<std::int64_t> clusterCandidates(std::int64_t pes, std::int64_t outer, std::int64_t inner)
{
    std::vector<std::pair<std::int64_t, std::int64_t>> busy; // (busy PEs, size)
    for (std::int64_t s = 1; s <= std::min(pes, inner); ++s)
        busy.push_back({std::min(outer, pes / s) * s, s});
    std::sort(busy.rbegin(), busy.rend());
    std::vector<std::int64_t> out;
    for (const auto& b : busy)
        out.push_back(b.second);
    return out;
}

} // namespace

std::string toString(FixedDataflow dataflow)
{
    return detail::entry<FixedDataflow>(kFixed, dataflow).name;
}

std::optional<FixedDataflow> fixedDataflowFromString(std::string_view name)
{
    return detail::fromName<FixedDataflow>(kFixed, name);
}

const std::vector<FixedDataflow>& allFixedDataflows()
{
    static const std::vector<FixedDataflow> all = detail::values<FixedDataflow>(kFixed);
    return all;
}

std::string description(FixedDataflow dataflow)
{
    return detail::entry<FixedDataflow>(kFixed, dataflow).description;
}

mdc::Dataflow fixedDataflow(FixedDataflow dataflow, const mdc::Layer& layer, const arch::Accelerator& acc,
    const cost::Options& options)
{
    if (layer.type != "CONV" && layer.type != "DSCONV") {
        Diagnostic d;
        d.loc = layer.loc;
        d.field = "layer " + layer.name;
        d.message = "the " + toString(dataflow) + " dataflow is defined for convolutions (CONV, DSCONV), not "
            + (layer.type.empty() ? std::string("this layer") : layer.type);
        throw InputError(d);
    }
    const cost::Problem problem = cost::fromMaestroLayer(layer);
    auto size = [&](const char* dim) {
        const cost::ProblemDim* d = problem.dim(dim);
        return d ? std::max<std::int64_t>(1, d->size) : std::int64_t{1};
    };
    const std::int64_t K = size("K"), C = size("C"), R = size("R"), S = size("S");
    const std::int64_t Yo = size("Y'"), Xo = size("X'");
    const std::int64_t pes = std::max<std::int64_t>(1, acc.numPes);
    const cost::ProblemDim* xIn = problem.dim("X");
    const std::int64_t sx = xIn ? std::max<std::int64_t>(1, xIn->stride) : 1;
    // A dilated window's taps lie dy (dx) input rows (columns) apart: a PE given one filter row reads
    // every dy-th input row, and one output column reads (S - 1) * dx + 1 input columns.
    std::int64_t dy = 1, dx = 1;
    for (const cost::SlidingWindow& w : problem.windows)
        (w.reference == "Y" ? dy : dx) = std::max<std::int64_t>(1, w.dilation);
    const std::int64_t spanX = (S - 1) * dx + 1;
    // A depth-wise layer's only channel is C: its K is 1 and indexes no tensor.
    const bool depthwise = layer.type == "DSCONV";
    const char* outChannel = depthwise ? "C" : "K";
    const std::int64_t outChannels = depthwise ? C : K;
    auto T = [](std::int64_t s, std::int64_t o, const char* dim) { return Directive::temporal(s, o, dim); };
    auto Sp = [](std::int64_t s, std::int64_t o, const char* dim) { return Directive::spatial(s, o, dim); };

    // MAESTRO miscounts the MACs of some strided tilings (spec section 4.1) and undercounts the runtime
    // of some edge cases; the sizes are tried best first and the first whose figure is possible
    // (cost::checkUndercount: the MACs exact, the runtime not below the compute bound) is kept (with
    // `fits`, also the first whose L1 and L2 requirements fit).
    cost::Evaluator evaluator(problem, acc, options);
    auto exact = [&](const mdc::Dataflow& df, bool fits) {
        cost::Metrics m;
        if (!evaluator.evaluateMetrics(df, m)
            || cost::checkUndercount(m, problem.analyticMacs(), problem.analyticMacs(), acc.simdLanes)
                != cost::Undercount::None)
            return false;
        return !fits
            || (m.l1SizeReq * acc.bytesPerElement <= acc.l1Bytes
                && m.l2SizeReq * acc.bytesPerElement <= acc.l2Bytes);
    };
    auto firstExact = [&](const std::vector<std::int64_t>& sizes, auto make, bool fits) {
        for (std::int64_t s : sizes)
            if (exact(make(s), fits)) return make(s);
        return make(sizes.empty() ? 1 : sizes.front());
    };
    // Output rows and columns are mapped one at a time at the top level (Y', X' directives), where
    // MAESTRO counts a strided window exactly.
    switch (dataflow) {
    case FixedDataflow::KcpWs: {
        if (depthwise) {
            // No reduction over input channels: the channels over the PEs, c per cluster.
            const std::int64_t c = std::min(C, pes);
            return {Sp(c, c, "C"), T(R, R, "R"), T(S, S, "S"), T(1, 1, "Y'"), T(1, 1, "X'"),
                Directive::cluster(c), Sp(1, 1, "C"), T(R, R, "R"), T(S, S, "S")};
        }
        return firstExact(
            clusterCandidates(pes, K, C),
            [&](std::int64_t c) -> mdc::Dataflow {
                return {Sp(1, 1, "K"), T(c, c, "C"), T(R, R, "R"), T(S, S, "S"), T(1, 1, "Y'"), T(1, 1, "X'"),
                    Directive::cluster(c), Sp(1, 1, "C"), T(R, R, "R"), T(S, S, "S")};
            },
            false);
    }
    case FixedDataflow::Rs: {
        // The largest filter tile (16 down to 1, halving) whose buffers fit, so that a PE reuses each
        // input row over it.
        std::vector<std::int64_t> tiles;
        for (std::int64_t kt = std::min<std::int64_t>(outChannels, 16); kt >= 1; kt /= 2)
            tiles.push_back(kt);
        return firstExact(
            tiles,
            [&](std::int64_t kt) -> mdc::Dataflow {
                mdc::Dataflow df = {Sp(1, 1, "Y'"), T(1, 1, "X'")};
                if (!depthwise) df.push_back(T(1, 1, "C"));
                for (const Directive& d : {T(kt, kt, outChannel), T(R, R, "R"), T(S, S, "S"),
                         Directive::cluster(R), Sp(1, dy, "Y"), Sp(1, 1, "R"), T(S, S, "S")})
                    df.push_back(d);
                return df;
            },
            true);
    }
    case FixedDataflow::XpWs:
        if (depthwise) return {T(1, 1, "C"), T(1, 1, "Y'"), Sp(1, 1, "X'"), T(R, R, "R"), T(S, S, "S")};
        return {T(1, 1, "K"), T(1, 1, "C"), T(1, 1, "Y'"), Sp(1, 1, "X'"), T(R, R, "R"), T(S, S, "S")};
    case FixedDataflow::YxpOs:
        // Inner levels map input dimensions only: one output column is S input columns.
        return firstExact(
            clusterCandidates(pes, Yo, Xo),
            [&](std::int64_t x) -> mdc::Dataflow {
                mdc::Dataflow df;
                if (!depthwise) df.push_back(T(1, 1, "K"));
                for (const Directive& d : {T(1, 1, "C"), Sp(1, 1, "Y'"), T(x, x, "X'"), T(R, R, "R"),
                         T(S, S, "S"), Directive::cluster(x), Sp(spanX, sx, "X"), T(R, R, "R"), T(S, S, "S")})
                    df.push_back(d);
                return df;
            },
            false);
    case FixedDataflow::YkpOs:
        return firstExact(
            clusterCandidates(pes, Yo, outChannels),
            [&](std::int64_t k) -> mdc::Dataflow {
                mdc::Dataflow df = {T(k, k, outChannel), Sp(1, 1, "Y'"), T(1, 1, "X'")};
                if (!depthwise) df.push_back(T(1, 1, "C"));
                for (const Directive& d : {T(R, R, "R"), T(S, S, "S"), Directive::cluster(k),
                         Sp(1, 1, outChannel), T(R, R, "R"), T(S, S, "S")})
                    df.push_back(d);
                return df;
            },
            false);
    }
    return {};
}

} // namespace marvel::styles
