// Mapping styles and past optimisers as constraints on the on-chip search: loop roles read from the
// subscripts, every mapping a constrained search returns obeys its style (checked on the MDC
// directives and the level-2 order), the constrained search's best equals a brute-force enumeration of
// the restricted space, Marvel's unrestricted best is never worse than a style's, the GEMM-to-CONV2D
// translation of the optimisers, and MAESTRO's fixed dataflows on real convolutions.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <QtTest>

#include "core/cost/costmodel.h"
#include "core/cost/problem.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/search.h"
#include "core/styles/fixed_dataflows.h"
#include "core/styles/styles.h"
#include "core/workloads/workloads.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using namespace marvel::search;
using namespace marvel::styles;

using marvel::testsupport::parseTestOperator;
namespace {

arch::Accelerator accelerator(std::int64_t pes, std::int64_t l1 = 512, std::int64_t l2 = 110592)
{
    arch::Accelerator acc;
    acc.numPes = pes;
    acc.l1Bytes = l1;
    acc.l2Bytes = l2;
    acc.nocBandwidth = 12;
    return acc;
}

LayerSpace spaceOf(const ir::Operator& op)
{
    const auto nest = ir::perfectNest(op);
    return makeLayerSpace(*nest, wholeDimensions(cost::fromOperator(op)), op.name);
}

int loopIndex(const LayerSpace& s, const std::string& dim)
{
    for (std::size_t i = 0; i < s.loops.size(); ++i)
        if (s.loops[i].dim == dim) return static_cast<int>(i);
    return -1;
}

/// The dimensions each style may spread over the PEs, by the names of conv2dLoopText (K, C, Y, X, R, S)
/// - written out by hand from the paper's definitions, not from the code's role analysis.
std::set<std::string> expectedParallel(Style style)
{
    switch (style) {
    case Style::RowStationary:
        return {"X", "S"};
    case Style::WeightStationary:
    case Style::Interstellar:
        return {"K", "C"};
    case Style::OutputStationary:
        return {"X", "Y"};
    case Style::DMazeRunner:
        return {"K"};
    case Style::Genetic: // not a constraint: never checked against one
        break;
    }
    return {};
}

/// Dimensions a dataflow spreads over more than one sub-unit (stride-1 layers: sizes are rows). MAESTRO
/// gives the level below Cluster(c) c sub-units and the top level numPes / (product of the cluster
/// sizes). A SpatialMap spreads its dimension when its level has several sub-units and its size is
/// less than the tile the enclosing level gives the dimension (the whole dimension at the top).
std::set<std::string> spatialDims(const mdc::Dataflow& df, std::int64_t pes, const LayerSpace& space)
{
    std::vector<std::vector<const mdc::Directive*>> levels(1);
    std::vector<std::int64_t> clusters;
    for (const mdc::Directive& d : df) {
        if (d.kind == mdc::Directive::Kind::Cluster) {
            clusters.push_back(d.size);
            levels.emplace_back();
        } else {
            levels.back().push_back(&d);
        }
    }
    std::int64_t product = 1;
    for (std::int64_t c : clusters)
        product *= c;
    std::set<std::string> out;
    for (std::size_t l = 0; l < levels.size(); ++l) {
        const std::int64_t units = l == 0 ? pes / product : clusters[l - 1];
        for (const mdc::Directive* d : levels[l]) {
            if (d->kind != mdc::Directive::Kind::SpatialMap || units <= 1) continue;
            // A window's input dimension is spread only beside its filter loop, over the same PEs
            // (mapping::toMdc's diagonal form): the parallel loop is the filter loop.
            if (std::any_of(space.loops.begin(), space.loops.end(),
                    [&](const marvel::mapping::MappedLoop& l) { return l.windowReference == d->dim; }))
                continue;
            std::int64_t enclosing = space.loops[static_cast<std::size_t>(loopIndex(space, d->dim))].extent;
            for (std::size_t up = l; up-- > 0
                 && enclosing == space.loops[static_cast<std::size_t>(loopIndex(space, d->dim))].extent;)
                for (const mdc::Directive* e : levels[up])
                    if (e->dim == d->dim) enclosing = e->size;
            if (d->size < enclosing) out.insert(d->dim);
        }
    }
    return out;
}

/// The stationarity rule written independently of SearchConstraint: for some tensor in `tensors`, every
/// loop with several level-2 iterations that indexes it comes before every such loop that does not.
bool stationaryForSome(
    const mapping::LoopNestMapping& m, const LayerSpace& space, const std::vector<int>& tensors)
{
    for (int t : tensors) {
        std::set<int> indexed;
        for (const auto& sub : space.tensors[static_cast<std::size_t>(t)].subscripts)
            for (const auto& term : sub)
                indexed.insert(term.loop);
        std::vector<int> seq;
        for (int i : m.level2Order)
            if (m.loops[static_cast<std::size_t>(i)].level2Iterations() > 1) seq.push_back(i);
        bool outside = true, ok = true;
        for (int i : seq) {
            if (!indexed.count(i))
                outside = false;
            else if (!outside)
                ok = false;
        }
        if (ok) return true;
    }
    return false;
}

int tensorIndex(const LayerSpace& space, const std::string& name)
{
    for (std::size_t t = 0; t < space.tensors.size(); ++t)
        if (space.tensors[t].name == name) return static_cast<int>(t);
    return -1;
}

/// Checks that `c` obeys `style` on the conv2dLoopText space: its MDC spreads only the style's
/// dimensions, its parallel loops are among them, and its level-2 order keeps the right tensor
/// stationary (ws: the weight W; dMazeRunner-like: one of O, W, I).
void checkObeys(const Candidate& c, Style style, const LayerSpace& space, std::int64_t pes)
{
    const std::set<std::string> allowed = expectedParallel(style);
    for (const std::string& d : spatialDims(c.dataflow, pes, space))
        QVERIFY2(
            allowed.count(d), qPrintable(QString::fromStdString(toString(style) + ": MDC spreads " + d)));
    for (int i : c.mapping.parallelLoops())
        QVERIFY(allowed.count(c.mapping.loops[static_cast<std::size_t>(i)].dim));
    if (style == Style::WeightStationary)
        QVERIFY(stationaryForSome(c.mapping, space, {tensorIndex(space, "W")}));
    if (style == Style::DMazeRunner)
        QVERIFY(stationaryForSome(
            c.mapping, space, {tensorIndex(space, "O"), tensorIndex(space, "W"), tensorIndex(space, "I")}));
}

/// Every mapping of the search's on-chip space under one off-chip choice, enumerated naively: per loop
/// every (T1, T2) with T1 | T2 | T3 (T2 = extent for whole loops, T1 < T2 only when parallel and the
/// last PE gets work - the space's own definition), every permutation as the level-2 order, every MDC
/// form that applies; at most kMaxMdcLevels levels, at most `pes` active PEs, the PE bound 0. Returns
/// (mapping, metrics) of each that the cost model accepts and that fits L1 and L2.
std::vector<std::pair<mapping::LoopNestMapping, Metrics>> bruteForce(const LayerSpace& space,
    const OffChipChoice& off, const arch::Accelerator& acc, const cost::Problem& problem)
{
    const std::size_t n = space.loops.size();
    auto divisors = [](std::int64_t v) {
        std::vector<std::int64_t> d;
        for (std::int64_t i = 1; i <= v; ++i)
            if (v % i == 0) d.push_back(i);
        return d;
    };
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> options(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::int64_t t2 : divisors(off.level3[i])) {
            if (space.wholeLoops[i] && t2 != space.loops[i].extent) continue;
            for (std::int64_t t1 : divisors(t2)) {
                const std::int64_t p = (t2 + t1 - 1) / t1;
                if (t1 < t2 && (p <= 1 || (p - 1) * t1 >= t2)) continue;
                options[i].push_back({t1, t2});
            }
        }
    cost::Evaluator evaluator(problem, acc);
    std::vector<std::pair<mapping::LoopNestMapping, Metrics>> out;
    std::vector<std::size_t> pick(n, 0);
    std::vector<int> perm(n);
    for (;;) {
        mapping::LoopNestMapping m;
        m.loops = space.loops;
        for (std::size_t i = 0; i < n; ++i) {
            m.loops[i].level3 = off.level3[i];
            m.loops[i].level2 = options[i][pick[i]].second;
            m.loops[i].level1 = options[i][pick[i]].first;
        }
        m.level3Order = off.level3Order;
        m.layouts = off.layouts;
        int wholeParallel = 0;
        for (std::size_t i = 0; i < n; ++i)
            wholeParallel += space.wholeLoops[i] && m.loops[i].isParallel() ? 1 : 0;
        if (m.activePes() <= acc.numPes && wholeParallel <= 1) {
            std::iota(perm.begin(), perm.end(), 0);
            std::set<std::string> seen;
            do {
                m.level2Order = perm;
                // A whole loop that is parallel must be the innermost parallel loop (MAESTRO's rule).
                const std::vector<int> par = m.parallelLoops();
                bool wholeLast = true;
                for (std::size_t k = 0; k + 1 < par.size(); ++k)
                    wholeLast = wholeLast && !space.wholeLoops[static_cast<std::size_t>(par[k])];
                if (!wholeLast) continue;
                for (auto form : {mapping::Level2Form::Separate, mapping::Level2Form::Fused}) {
                    m.level2Form = form;
                    if (form == mapping::Level2Form::Fused && !mapping::fusedFormApplies(m, &acc)) continue;
                    if (mapping::mdcLevelCount(m) > mapping::kMaxMdcLevels) continue;
                    mdc::Dataflow df;
                    try {
                        df = mapping::toMdc(m, acc);
                    } catch (const InputError&) {
                        continue;
                    }
                    cost::Metrics cm;
                    if (!evaluator.evaluateMetrics(df, cm)) continue;
                    if (cm.macs != space.macs) continue; // the search's evaluator rejects miscounts too
                    if (cm.l1SizeReq * acc.bytesPerElement > acc.l1Bytes
                        || cm.l2SizeReq * acc.bytesPerElement > acc.l2Bytes)
                        continue;
                    Metrics metrics;
                    metrics.runtime = cm.runtimeCycles;
                    metrics.energy = cm.energy;
                    out.push_back({m, metrics});
                }
            } while (std::next_permutation(perm.begin(), perm.end()));
        }
        std::size_t k = 0;
        while (k < n && ++pick[k] == options[k].size())
            pick[k++] = 0;
        if (k == n) break;
    }
    return out;
}

/// The convolution of conv2dLoopText with the given sizes.
ir::Operator conv(std::int64_t K, std::int64_t C, std::int64_t Y, std::int64_t X, std::int64_t R,
    std::int64_t S, std::int64_t stride = 1)
{
    return parseTestOperator(workloads::conv2dLoopText(K, C, Y, X, R, S, stride, stride));
}

} // namespace

class TestStyles : public QObject
{
    Q_OBJECT

private slots:
    void namesRoundTrip()
    {
        for (Style s : allStyles())
            QCOMPARE(styleFromString(toString(s)), std::optional<Style>(s));
        QVERIFY(!styleFromString("eyeriss"));
        for (FixedDataflow d : allFixedDataflows())
            QCOMPARE(fixedDataflowFromString(toString(d)), std::optional<FixedDataflow>(d));
        QVERIFY(!fixedDataflowFromString("nlr"));
        QCOMPARE(allStyles().size(), std::size_t{6});
        QCOMPARE(constraintStyles().size(), std::size_t{5});
        QVERIFY(std::find(constraintStyles().begin(), constraintStyles().end(), Style::Genetic)
            == constraintStyles().end());
        QCOMPARE(toString(Style::Genetic), std::string("genetic"));
        QVERIFY(styleConstraint(Style::Genetic, spaceOf(conv(8, 4, 6, 5, 3, 2))).empty());
    }

    void rolesOfAConvolution()
    {
        const LayerSpace s = spaceOf(conv(8, 4, 6, 5, 3, 2));
        const LoopRoles r = loopRoles(s);
        QCOMPARE(r.roles[loopIndex(s, "K")], unsigned(OutChannel));
        QCOMPARE(r.roles[loopIndex(s, "C")], unsigned(InChannel));
        QCOMPARE(r.roles[loopIndex(s, "Y")], unsigned(OutHeight));
        QCOMPARE(r.roles[loopIndex(s, "X")], unsigned(OutWidth));
        QCOMPARE(r.roles[loopIndex(s, "R")], unsigned(FilterHeight));
        QCOMPARE(r.roles[loopIndex(s, "S")], unsigned(FilterWidth));
        QCOMPARE(s.tensors[static_cast<std::size_t>(r.activation)].name, std::string("I"));
        // The same roles whatever the loops are called and in whatever order they nest.
        const LayerSpace t = spaceOf(parseTestOperator("operator c(A = 4, B = 3, P = 5, Q = 2) {\n"
                                                       "for (q = 0; q < Q; q++) for (p = 0; p < P; p++)\n"
                                                       "for (b = 0; b < B; b++) for (a = 0; a < A; a++)\n"
                                                       "  Out[a][p] += F[a][b][q] * In[b][p + q];\n}\n"));
        const LoopRoles u = loopRoles(t);
        QCOMPARE(u.roles[loopIndex(t, "A")], unsigned(OutChannel));
        QCOMPARE(u.roles[loopIndex(t, "B")], unsigned(InChannel));
        QCOMPARE(u.roles[loopIndex(t, "P")], unsigned(OutWidth)); // the only window: the width
        QCOMPARE(u.roles[loopIndex(t, "Q")], unsigned(FilterWidth));
    }

    void rolesOfDepthwiseGemmAndPointwise()
    {
        const LayerSpace dw = spaceOf(parseTestOperator(workloads::depthwiseLoopText(8, 4, 4, 3, 3, 1, 1)));
        QCOMPARE(loopRoles(dw).roles[loopIndex(dw, "C")], unsigned(OutChannel | InChannel));
        const LayerSpace g = spaceOf(parseTestOperator(workloads::gemmLoopText(6, 4, 8)));
        const LoopRoles gr = loopRoles(g);
        QCOMPARE(gr.roles[loopIndex(g, "M")], unsigned(OutHeight | OutWidth));
        QCOMPARE(gr.roles[loopIndex(g, "N")], unsigned(OutChannel));
        QCOMPARE(gr.roles[loopIndex(g, "K")], unsigned(InChannel));
        // A 1x1 convolution written without filter loops: the activation is I (more output loops).
        const LayerSpace pw = spaceOf(parseTestOperator("operator pw(K = 4, C = 3, Y = 2, X = 2) {\n"
                                                        "for (k = 0; k < K; k++) for (c = 0; c < C; c++)\n"
                                                        "for (y = 0; y < Y; y++) for (x = 0; x < X; x++)\n"
                                                        "  O[k][y][x] += W[k][c] * I[c][y][x];\n}\n"));
        const LoopRoles pr = loopRoles(pw);
        QCOMPARE(pw.tensors[static_cast<std::size_t>(pr.activation)].name, std::string("I"));
        QCOMPARE(pr.roles[loopIndex(pw, "K")], unsigned(OutChannel));
        QCOMPARE(pr.roles[loopIndex(pw, "Y")], unsigned(OutHeight | OutWidth));
        // Depth-wise under ws / dMazeRunner-like: the channel is both channels, so it is the parallel one.
        const SearchConstraint c = styleConstraint(Style::DMazeRunner, dw);
        for (std::size_t i = 0; i < dw.loops.size(); ++i)
            QCOMPARE(c.allowsParallel(i), dw.loops[i].dim == "C");
    }

    void gemmConvolutionForm()
    {
        const ir::Operator g = parseTestOperator(workloads::gemmLoopText(128, 2048, 4096));
        const std::optional<ConvolutionForm> f = convolutionForm(g);
        QVERIFY(f);
        QCOMPARE(f->K, std::int64_t{2048});
        QCOMPARE(f->C, std::int64_t{4096});
        QCOMPARE(f->Y, std::int64_t{128});
        QCOMPARE(f->op.name, g.name);
        QCOMPARE(workloads::operatorMacs(f->op), std::int64_t{128} * 2048 * 4096);
        // An MLP layer O[b][n] += W[n][k] * I[b][k]: batch rows, N outputs, K inputs.
        const std::optional<ConvolutionForm> m = convolutionForm(parseTestOperator(
            "operator fc(B = 128, N = 1000, K = 784) {\n for (b = 0; b < B; b++)\n for (n = 0; n < N; n++)\n"
            " for (k = 0; k < K; k++)\n O[b][n] += W[n][k] * I[b][k];\n}\n"));
        QVERIFY(m);
        QCOMPARE(m->K, std::int64_t{1000});
        QCOMPARE(m->C, std::int64_t{784});
        QCOMPARE(m->Y, std::int64_t{128});
        QVERIFY(!convolutionForm(conv(4, 4, 4, 4, 3, 3))); // already a convolution
    }

    void constraintRules()
    {
        // Loops 0..2; loop 1 has one level-2 iteration and is ignored by the order rule.
        std::vector<mapping::MappedLoop> loops(3);
        for (auto& l : loops) {
            l.extent = l.level3 = 4;
            l.level2 = l.level1 = 2;
        }
        loops[1].level2 = loops[1].level1 = 4;
        SearchConstraint c;
        c.stationaryAlternatives = {{true, false, false}};
        QVERIFY(c.allowsOrder(loops, {0, 1, 2}));
        QVERIFY(c.allowsOrder(loops, {1, 0, 2}));
        QVERIFY(!c.allowsOrder(loops, {2, 0, 1}));
        c.stationaryAlternatives.push_back({false, false, true});
        QVERIFY(c.allowsOrder(loops, {2, 0, 1}));
        c.parallelAllowed = {false, true, false};
        QVERIFY(!c.allowsParallel(0));
        QVERIFY(c.allowsParallel(1));
        QVERIFY(SearchConstraint{}.allowsParallel(7));
    }

    /// Each style on a small convolution: every mapping returned obeys it, and its best equals the best
    /// of a brute-force enumeration of the restricted space under the same off-chip choice.
    void styleMatchesBruteForce_data()
    {
        QTest::addColumn<int>("style");
        for (Style s : constraintStyles())
            QTest::newRow(toString(s).c_str()) << static_cast<int>(s);
    }
    void styleMatchesBruteForce()
    {
        QFETCH(int, style);
        const Style st = static_cast<Style>(style);
        // K = 4, C = 2, 2 x 3 outputs, a 1 x 2 filter: every style has a parallel loop, the whole space
        // (under the whole operator as the level-3 tile) enumerates in a second.
        const ir::Operator op = conv(4, 2, 2, 3, 1, 2);
        const LayerSpace space = spaceOf(op);
        const cost::Problem problem = cost::fromOperator(op);
        const arch::Accelerator acc = accelerator(8, 24, 4096);
        OffChipChoice off;
        for (const auto& l : space.loops)
            off.level3.push_back(l.extent);
        off.level3Order.resize(space.loops.size());
        std::iota(off.level3Order.begin(), off.level3Order.end(), 0);

        static const std::vector<std::pair<mapping::LoopNestMapping, Metrics>> all
            = bruteForce(space, off, acc, problem);
        QVERIFY(all.size() > 100);
        // The restricted space by the test's own reading of the style.
        const std::set<std::string> allowed = expectedParallel(st);
        std::optional<std::int64_t> bestRestricted, bestAll;
        for (const auto& [m, metrics] : all) {
            bestAll = std::min(bestAll.value_or(metrics.runtime), metrics.runtime);
            bool ok = true;
            for (int i : m.parallelLoops())
                ok = ok && allowed.count(m.loops[static_cast<std::size_t>(i)].dim);
            if (st == Style::WeightStationary)
                ok = ok && stationaryForSome(m, space, {tensorIndex(space, "W")});
            if (st == Style::DMazeRunner)
                ok = ok
                    && stationaryForSome(m, space,
                        {tensorIndex(space, "O"), tensorIndex(space, "W"), tensorIndex(space, "I")});
            if (ok) bestRestricted = std::min(bestRestricted.value_or(metrics.runtime), metrics.runtime);
        }
        QVERIFY(bestRestricted);
        // The MDC check can fail: a mapping spreading a loop outside the style shows it in its MDC.
        const auto outside = std::find_if(all.begin(), all.end(), [&](const auto& e) {
            for (int i : e.first.parallelLoops())
                if (!allowed.count(e.first.loops[static_cast<std::size_t>(i)].dim)) return true;
            return false;
        });
        QVERIFY(outside != all.end());
        std::set<std::string> spread = spatialDims(mapping::toMdc(outside->first, acc), acc.numPes, space);
        QVERIFY(std::any_of(
            spread.begin(), spread.end(), [&](const std::string& d) { return !allowed.count(d); }));

        SearchOptions o;
        o.peUtilizationBound = 0;
        o.threads = 2;
        o.constraint = styleConstraint(st, space);
        const auto factory = costModelEvaluators(problem, acc, Fidelity::Maestro);
        const SearchResult r = searchOnChip(space, off, acc, o, factory);
        QVERIFY(r.bestRuntime);
        QCOMPARE(r.bestRuntime->metrics.runtime, *bestRestricted);
        for (const auto* c : {&*r.bestRuntime, &*r.bestEnergy, &*r.bestEdp})
            checkObeys(*c, st, space, acc.numPes);
        for (const Candidate& c : r.pareto)
            checkObeys(c, st, space, acc.numPes);
        QVERIFY(!r.pareto.empty());

        // Marvel's unrestricted search: the brute-force optimum of the whole space, never worse.
        o.constraint = {};
        const SearchResult marvel = searchOnChip(space, off, acc, o, factory);
        QCOMPARE(marvel.bestRuntime->metrics.runtime, *bestAll);
        QVERIFY(marvel.bestRuntime->metrics.runtime <= r.bestRuntime->metrics.runtime);
        QVERIFY(marvel.bestEnergy->metrics.energy <= r.bestEnergy->metrics.energy);
        QVERIFY(marvel.stats.onChipPruned > r.stats.onChipPruned);
        qInfo("%s: best %lld cycles over %.0f candidates (unrestricted %lld over %.0f)", toString(st).c_str(),
            static_cast<long long>(r.bestRuntime->metrics.runtime), r.stats.onChipPruned,
            static_cast<long long>(marvel.bestRuntime->metrics.runtime), marvel.stats.onChipPruned);
    }

    /// The layer-level API: the decoupled search under each style on a real layer, every mapping obeying
    /// the style, Marvel's best never worse (than the genetic search's either); the optimisers search a
    /// GEMM in its convolution form.
    void layerSearchUnderEachStyle()
    {
        const ir::Operator op = conv(16, 8, 6, 6, 3, 3);
        const arch::Accelerator acc = accelerator(32);
        SearchOptions o;
        o.threads = 2;
        const LayerSearchResult marvel = searchLayer(op, acc, o);
        QVERIFY(marvel.result.bestRuntime);
        const std::vector<StyleSearch> all = searchLayerStyles(op, acc, o);
        QCOMPARE(all.size(), allStyles().size());
        for (const StyleSearch& s : all) {
            QVERIFY(s.best);
            QVERIFY(s.convForm.empty());
            // Marvel's refinement runs the genetic search with the same seed and budget: never worse.
            QVERIFY(marvel.result.bestRuntime->metrics.runtime <= s.best->metrics.runtime);
            if (!isConstraint(s.style)) continue; // the genetic search's mappings: tst_genetic
            checkObeys(*s.best, s.style, s.search.space, acc.numPes);
            for (const Candidate& c : s.search.result.pareto)
                checkObeys(c, s.style, s.search.space, acc.numPes);
        }
        const ir::Operator gemm = parseTestOperator(workloads::gemmLoopText(16, 24, 32));
        const StyleSearch d = searchLayerStyle(gemm, acc, Style::DMazeRunner, o);
        QCOMPARE(d.convForm, std::string("CONV2D K=24 (N) C=32 (K) Y'=16 (M) X'=R=S=1"));
        QVERIFY(d.best);
        QCOMPARE(d.best->metrics.macs, std::int64_t{16} * 24 * 32);
        checkObeys(*d.best, Style::DMazeRunner, d.search.space, acc.numPes);
        const StyleSearch w = searchLayerStyle(gemm, acc, Style::WeightStationary, o);
        QVERIFY(w.convForm.empty()); // the styles search the GEMM itself, by roles
        for (int i : w.best->mapping.parallelLoops())
            QVERIFY(w.best->mapping.loops[static_cast<std::size_t>(i)].dim != "M");
    }

    /// A style whose loops cannot reach the PE bound still finds a mapping (the bound is capped).
    void peBoundIsCappedForSmallStyles()
    {
        const ir::Operator op = conv(64, 64, 4, 4, 3, 3);
        const arch::Accelerator acc = accelerator(1024);
        SearchOptions o;
        o.threads = 2;
        const StyleSearch rs = searchLayerStyle(op, acc, Style::RowStationary, o);
        QVERIFY(rs.best);
        QCOMPARE(rs.peUtilizationBound, 12.0 / 1024.0); // X' = 4 times S = 3 PEs at most
        QVERIFY(rs.best->mapping.activePes() <= 12);
    }

    void fixedDataflowsCountEveryMac_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("layer");
        QTest::newRow("alexnet CONV1 (11x11, stride 4)") << "alexnet"
                                                         << "CONV1";
        QTest::newRow("alexnet CONV2") << "alexnet"
                                       << "CONV2";
        QTest::newRow("vgg16 CONV1_1") << "vgg16"
                                       << "CONV1_1";
        QTest::newRow("vgg16 CONV5_1") << "vgg16"
                                       << "CONV5_1";
        QTest::newRow("mobilenetv2 depth-wise") << "mobilenetv2"
                                                << "b1_dw";
        QTest::newRow("mobilenetv2 strided depth-wise") << "mobilenetv2"
                                                        << "b2_dw";
        QTest::newRow("resnet50 strided 1x1") << "resnet50"
                                              << "res3a_branch2a";
        // DeepLab-style atrous convolutions (dilation 2; the depth-wise one also strided): the rs
        // dataflow gives a PE every second input row, yxp_os an output column's 5 input columns.
        QTest::newRow("dilated 3x3") << "dilated"
                                     << "atrous";
        QTest::newRow("dilated strided depth-wise") << "dilated"
                                                    << "atrous_dw";
    }
    void fixedDataflowsCountEveryMac()
    {
        QFETCH(QString, model);
        QFETCH(QString, layer);
        workloads::Workload w;
        if (model == "dilated")
            w.layers = {workloads::convLayer("atrous", 64, 32, 28, 28, 3, 3, 1, 2),
                workloads::depthwiseLayer("atrous_dw", 32, 14, 14, 3, 3, 2, 2)};
        else
            w = workloads::builtinWorkload(model.toStdString());
        const workloads::WorkloadLayer* found = nullptr;
        for (const auto& l : w.layers)
            if (l.name == layer.toStdString()) found = &l;
        QVERIFY2(found, qPrintable(layer));
        // MACs by hand from the loop nest: the product of the loop extents.
        std::int64_t macs = 1;
        const std::optional<ir::PerfectNest> nest = ir::perfectNest(found->op);
        for (const auto& l : nest->loops)
            macs *= l.extent;
        for (const arch::Accelerator& acc : {accelerator(168), accelerator(1024, 512, 110592)}) {
            for (FixedDataflow d : allFixedDataflows()) {
                mdc::Layer l = found->maestro;
                l.dataflow = fixedDataflow(d, l, acc);
                const std::vector<Diagnostic> rules = mdc::checkMaestroRules(l, "generated");
                QVERIFY2(rules.empty(),
                    qPrintable(QString::fromStdString(toString(d) + ": " + formatDiagnostics(rules))));
                cost::Result r;
                try {
                    r = cost::Evaluator(cost::fromMaestroLayer(l), acc).evaluate(l.dataflow);
                } catch (const InputError& e) {
                    QFAIL(qPrintable(QString::fromStdString(toString(d) + ": " + e.what())));
                }
                QVERIFY2(r.m.macs == macs,
                    qPrintable(QString("%1 on %2 PEs: %3 MACs, expected %4")
                                   .arg(QString::fromStdString(toString(d)))
                                   .arg(acc.numPes)
                                   .arg(r.m.macs)
                                   .arg(macs)));
                QVERIFY(r.m.avgUtilizedPes >= 1.0);
                QVERIFY(r.m.avgUtilizedPes <= static_cast<double>(acc.numPes));
            }
        }
    }

    void fixedDataflowsAreSizedToThePes()
    {
        // VGG16 CONV2 (K = C = 64, 224 x 224 outputs) on 168 PEs.
        const workloads::WorkloadLayer l = workloads::convLayer("c", 64, 64, 224, 224, 3, 3);
        const arch::Accelerator acc = accelerator(168);
        auto clusterOf = [](const mdc::Dataflow& df) {
            for (const auto& d : df)
                if (d.kind == mdc::Directive::Kind::Cluster) return d.size;
            return std::int64_t{0};
        };
        // kcp_ws: c input channels per cluster, 168 / c clusters over K; c busy-PE count min(64, 168/c) * c
        // reaches 168 for the divisors c of 168 with 168 / c <= 64; ties go to the larger cluster: 56.
        QCOMPARE(clusterOf(fixedDataflow(FixedDataflow::KcpWs, l.maestro, acc)), std::int64_t{56});
        // yxp_os: 224 rows over clusters of x columns (x <= 168): x = 168 keeps all 168 busy.
        QCOMPARE(clusterOf(fixedDataflow(FixedDataflow::YxpOs, l.maestro, acc)), std::int64_t{168});
        // On 1024 PEs (x <= 224): min(224, 1024 / x) * x = 1024 for x in 8, 16, ..., 128: x = 128.
        QCOMPARE(
            clusterOf(fixedDataflow(FixedDataflow::YxpOs, l.maestro, accelerator(1024))), std::int64_t{128});
        // rs: clusters of R = 3 PEs, one filter row each.
        QCOMPARE(clusterOf(fixedDataflow(FixedDataflow::Rs, l.maestro, acc)), std::int64_t{3});
        const workloads::WorkloadLayer g = workloads::gemmLayer("g", 4, 4, 4);
        QVERIFY_THROWS_EXCEPTION(InputError, fixedDataflow(FixedDataflow::Rs, g.maestro, acc));
    }
};

QTEST_GUILESS_MAIN(TestStyles)
#include "tst_styles.moc"
