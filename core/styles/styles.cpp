#include "core/styles/styles.h"

#include <algorithm>

#include "core/ir/parser.h"
#include "core/search/genetic.h"
#include "core/styles/named.h"
#include "core/workloads/workloads.h"

namespace marvel::styles {

namespace {

constexpr detail::Named<Style> kStyles[] = {
    {Style::RowStationary, "rs", "Eyeriss-like row-stationary"},
    {Style::WeightStationary, "ws", "NVDLA-like weight-stationary"},
    {Style::OutputStationary, "os", "ShiDianNao-like output-stationary"},
    {Style::Interstellar, "interstellar", "Interstellar-like optimiser"},
    {Style::DMazeRunner, "dmazerunner", "dMazeRunner-like optimiser"},
    {Style::Genetic, "genetic", "GAMMA-like genetic search"},
};

bool indexes(const search::SpaceTensor& tensor, int loop)
{
    for (const auto& subscript : tensor.subscripts)
        for (const search::SpaceTensor::Term& t : subscript)
            if (t.loop == loop) return true;
    return false;
}

} // namespace

std::string toString(Style style)
{
    return detail::entry<Style>(kStyles, style).name;
}

std::optional<Style> styleFromString(std::string_view name)
{
    return detail::fromName<Style>(kStyles, name);
}

const std::vector<Style>& allStyles()
{
    static const std::vector<Style> styles = detail::values<Style>(kStyles);
    return styles;
}

const std::vector<Style>& constraintStyles()
{
    static const std::vector<Style> styles = [] {
        std::vector<Style> out = allStyles();
        std::erase(out, Style::Genetic);
        return out;
    }();
    return styles;
}

bool isConstraint(Style style)
{
    return style != Style::Genetic;
}

std::string description(Style style)
{
    return detail::entry<Style>(kStyles, style).description;
}

std::string shortLabel(Style style)
{
    switch (style) {
    case Style::RowStationary:
        return "RS";
    case Style::WeightStationary:
        return "WS";
    case Style::OutputStationary:
        return "OS";
    case Style::Interstellar:
        return "Interstellar";
    case Style::DMazeRunner:
        return "dMazeRunner";
    case Style::Genetic:
        return "Genetic";
    }
    return toString(style);
}

bool usesConvolutionForm(Style style)
{
    return style == Style::Interstellar || style == Style::DMazeRunner;
}

LoopRoles loopRoles(const search::LayerSpace& space)
{
    LoopRoles r;
    const int n = static_cast<int>(space.loops.size());
    r.roles.assign(static_cast<std::size_t>(n), 0);
    if (space.tensors.empty()) return r;
    const search::SpaceTensor& out = space.tensors[static_cast<std::size_t>(r.output)];
    std::vector<bool> inOutput(static_cast<std::size_t>(n), false);
    for (int i = 0; i < n; ++i)
        inOutput[static_cast<std::size_t>(i)] = indexes(out, i);

    // A window is an input subscript moving with an output loop and a reduction loop (y + r); the
    // tensor read through windows is the activation. Windows are kept in subscript order: the last one
    // is the innermost dimension of the activation, the width.
    struct Window
    {
        std::vector<int> outputs, filters;
    };
    std::vector<Window> windows;
    for (std::size_t t = 1; t < space.tensors.size(); ++t) {
        std::vector<Window> found;
        for (const auto& subscript : space.tensors[t].subscripts) {
            Window w;
            for (const search::SpaceTensor::Term& term : subscript)
                (inOutput[static_cast<std::size_t>(term.loop)] ? w.outputs : w.filters).push_back(term.loop);
            if (!w.outputs.empty() && !w.filters.empty()) found.push_back(std::move(w));
        }
        if (!found.empty() && r.activation < 0) {
            r.activation = static_cast<int>(t);
            windows = std::move(found);
        }
    }
    if (r.activation < 0) {
        // No window (a GEMM, an MLP, a 1x1 convolution written without its filter loops): which input is
        // the activation is not structural. It is the input indexed by the most output loops (I[c][y][x]
        // beside W[k][c]); on a tie (A[m][k] and B[k][n]) the one indexed by the outermost output loop,
        // as nests list batch-like loops first (m of a GEMM, b of an MLP).
        int best = -1, bestOutermost = n, bestCount = -1;
        for (std::size_t t = 1; t < space.tensors.size(); ++t) {
            int outermost = n, count = 0;
            for (int i = 0; i < n; ++i)
                if (inOutput[static_cast<std::size_t>(i)] && indexes(space.tensors[t], i)) {
                    outermost = std::min(outermost, i);
                    ++count;
                }
            if (count > bestCount || (count == bestCount && outermost < bestOutermost)) {
                best = static_cast<int>(t);
                bestOutermost = outermost;
                bestCount = count;
            }
        }
        r.activation = best;
    }
    for (std::size_t t = 1; t < space.tensors.size(); ++t)
        if (static_cast<int>(t) != r.activation) r.weights.push_back(static_cast<int>(t));

    for (std::size_t w = 0; w < windows.size(); ++w) {
        const bool innermost = w + 1 == windows.size();
        for (int i : windows[w].outputs)
            r.roles[static_cast<std::size_t>(i)] |= innermost ? OutWidth : OutHeight;
        for (int i : windows[w].filters)
            r.roles[static_cast<std::size_t>(i)] |= innermost ? FilterWidth : FilterHeight;
    }
    for (int i = 0; i < n; ++i) {
        auto& role = r.roles[static_cast<std::size_t>(i)];
        if (role != 0) continue;
        const bool o = inOutput[static_cast<std::size_t>(i)];
        const bool a = r.activation >= 0 && indexes(space.tensors[static_cast<std::size_t>(r.activation)], i);
        bool w = false;
        for (int t : r.weights)
            w = w || indexes(space.tensors[static_cast<std::size_t>(t)], i);
        if (o && w)
            role = OutChannel | (a ? InChannel : 0u); // a depth-wise channel is both
        else if (o && a)
            role = windows.empty() ? OutHeight | OutWidth : Batch; // a GEMM's rows are its output positions
        else if (o)
            role = OutChannel;
        else
            role = InChannel; // a reduction that is not a window's sliding loop
    }
    return r;
}

search::SearchConstraint styleConstraint(Style style, const search::LayerSpace& space)
{
    const LoopRoles roles = loopRoles(space);
    const std::size_t n = space.loops.size();
    unsigned parallel = 0;
    switch (style) {
    case Style::RowStationary:
        parallel = OutWidth | FilterWidth;
        break;
    case Style::WeightStationary:
    case Style::Interstellar:
        parallel = OutChannel | InChannel;
        break;
    case Style::OutputStationary:
        parallel = OutWidth | OutHeight;
        break;
    case Style::DMazeRunner:
        parallel = OutChannel;
        break;
    case Style::Genetic:
        return {};
    }
    search::SearchConstraint c;
    c.parallelAllowed.assign(n, false);
    for (std::size_t i = 0; i < n; ++i)
        c.parallelAllowed[i] = roles.has(i, parallel);
    auto loopsOf = [&](const std::vector<int>& tensors) {
        std::vector<bool> marked(n, false);
        for (int t : tensors)
            for (std::size_t i = 0; i < n; ++i)
                marked[i]
                    = marked[i] || indexes(space.tensors[static_cast<std::size_t>(t)], static_cast<int>(i));
        return marked;
    };
    if (style == Style::WeightStationary && !roles.weights.empty())
        c.stationaryAlternatives.push_back(loopsOf(roles.weights));
    if (style == Style::DMazeRunner)
        for (std::size_t t = 0; t < space.tensors.size(); ++t)
            c.stationaryAlternatives.push_back(loopsOf({static_cast<int>(t)}));
    return c;
}

std::optional<ConvolutionForm> convolutionForm(const ir::Operator& op)
{
    const std::optional<ir::PerfectNest> nest = ir::perfectNest(op);
    if (!nest || nest->statements.size() != 1) return std::nullopt;
    const search::LayerSpace space = search::makeLayerSpace(*nest, {}, op.name);
    if (space.tensors.size() != 3) return std::nullopt;
    const LoopRoles roles = loopRoles(space);
    ConvolutionForm f;
    std::string rows, outs, ins;
    auto add = [](std::string& names, const std::string& dim) { names += (names.empty() ? "" : "*") + dim; };
    for (std::size_t i = 0; i < space.loops.size(); ++i) {
        const mapping::MappedLoop& l = space.loops[i];
        switch (roles.roles[i]) {
        case OutHeight | OutWidth:
            f.Y *= l.extent;
            add(rows, l.dim);
            break;
        case OutChannel:
            f.K *= l.extent;
            add(outs, l.dim);
            break;
        case InChannel:
            f.C *= l.extent;
            add(ins, l.dim);
            break;
        default:
            return std::nullopt; // a window, a batch or a depth-wise channel: not a GEMM
        }
    }
    f.op = ir::parseOperator(workloads::conv2dLoopText(f.K, f.C, f.Y, 1, 1, 1, 1, 1), op.file);
    f.op.name = op.name;
    f.op.loc = op.loc;
    auto part = [](const char* dim, std::int64_t v, const std::string& from) {
        return std::string(dim) + "=" + std::to_string(v) + (from.empty() ? "" : " (" + from + ")");
    };
    f.text = "CONV2D " + part("K", f.K, outs) + " " + part("C", f.C, ins) + " " + part("Y'", f.Y, rows)
        + " X'=R=S=1";
    return f;
}

StyleSearch searchLayerStyle(const ir::Operator& op, const arch::Accelerator& acc, Style style,
    const search::SearchOptions& options, search::SearchSink* sink, std::stop_token stop)
{
    StyleSearch out;
    out.style = style;
    if (style == Style::Genetic) {
        out.search = search::searchLayerGenetic(op, acc, options, sink, std::move(stop));
        out.best = out.search.result.best(options.objective);
        return out;
    }
    std::optional<ConvolutionForm> form;
    if (usesConvolutionForm(style)) form = convolutionForm(op);
    const ir::Operator& target = form ? form->op : op;
    if (form) out.convForm = form->text;

    search::SearchOptions o = options;
    o.constraintFor = [style](const search::LayerSpace& s) { return styleConstraint(style, s); };
    // The PE-utilisation bound prunes tiles keeping fewer PEs busy; a style whose parallel loops are
    // small (X' and S of a late layer on 1024 PEs) could never meet it, so it is capped at the
    // fraction of the PEs those loops can fill at all.
    if (const std::optional<ir::PerfectNest> nest = ir::perfectNest(target); nest && acc.numPes > 0) {
        const search::LayerSpace space = search::makeLayerSpace(*nest, {}, target.name);
        const search::SearchConstraint c = styleConstraint(style, space);
        std::int64_t fill = 1;
        for (std::size_t i = 0; i < space.loops.size(); ++i)
            if (c.allowsParallel(i)) fill = std::min(acc.numPes, fill * space.loops[i].extent);
        o.peUtilizationBound
            = std::min(o.peUtilizationBound, static_cast<double>(fill) / static_cast<double>(acc.numPes));
    }
    out.search = search::searchLayer(target, acc, o, sink, stop);
    // Level-3 tiles can leave the style's loops smaller than their extents: then no bound at all.
    if (!out.search.result.cancelled && !out.search.result.best(o.objective) && o.peUtilizationBound > 0) {
        o.peUtilizationBound = 0;
        out.search = search::searchLayer(target, acc, o, sink, stop);
    }
    out.best = out.search.result.best(o.objective);
    out.peUtilizationBound = o.peUtilizationBound;
    return out;
}

std::vector<StyleSearch> searchLayerStyles(const ir::Operator& op, const arch::Accelerator& acc,
    const search::SearchOptions& options, const std::vector<Style>& styles, search::SearchSink* sink,
    std::stop_token stop)
{
    std::vector<StyleSearch> out;
    for (Style s : styles) {
        if (stop.stop_requested()) break;
        out.push_back(searchLayerStyle(op, acc, s, options, sink, stop));
    }
    return out;
}

} // namespace marvel::styles
