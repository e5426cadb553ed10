// The GAMMA-like genetic search (issue 22): the same result for a seed and budget whatever the threads,
// every mapping it returns sound (its MDC form reloads to the same figures, it fits the buffers, counts
// every MAC and runs no faster than its PEs can), the budget kept, seeds that only add to the bests,
// and the pool refusing figures below the compute and transfer bounds; ranked without the L2 capacity, so
// the best it finds under a larger L2 is never worse. And the refinement that follows
// the decoupled search: never worse than it nor than the genetic search alone, whatever the threads.
#include <QtTest>

#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/search/genetic.h"
#include "core/search/mapping_pool.h"
#include "core/search/refine.h"
#include "core/styles/styles.h"
#include "core/workloads/workloads.h"

using namespace marvel;
using namespace marvel::search;

namespace {

arch::Accelerator accelerator(std::int64_t pes)
{
    arch::Accelerator acc;
    acc.numPes = pes;
    acc.l1Bytes = 512;
    acc.l2Bytes = 110592;
    acc.nocBandwidth = 12;
    return acc;
}

ir::Operator conv(std::int64_t K, std::int64_t C, std::int64_t Y, std::int64_t X, std::int64_t R)
{
    return ir::parseOperator(workloads::conv2dLoopText(K, C, Y, X, R, R, 1, 1), "test.loop");
}

SearchOptions geneticOptions(std::uint64_t evaluations, unsigned threads)
{
    SearchOptions o;
    o.genetic.evaluations = evaluations;
    o.threads = threads;
    return o;
}

/// An evaluator that reports a fixed runtime and requirements for any mapping.
class FixedEvaluator final : public MappingEvaluator
{
public:
    explicit FixedEvaluator(Metrics m)
        : m_metrics(m)
    { }
    std::optional<Metrics> evaluate(const mdc::Dataflow&) override { return m_metrics; }

private:
    Metrics m_metrics;
};

} // namespace

class TestGenetic : public QObject
{
    Q_OBJECT

private slots:
    void sameResultWhateverTheThreads()
    {
        const ir::Operator op = conv(32, 16, 14, 14, 3);
        const arch::Accelerator acc = accelerator(168);
        const LayerSearchResult one = searchLayerGenetic(op, acc, geneticOptions(1500, 1));
        const LayerSearchResult three = searchLayerGenetic(op, acc, geneticOptions(1500, 3));
        QVERIFY(one.result.bestRuntime && three.result.bestRuntime);
        QCOMPARE(one.result.evaluated, std::uint64_t{1500});
        QCOMPARE(three.result.evaluated, std::uint64_t{1500});
        QVERIFY(one.result.bestRuntime->mapping == three.result.bestRuntime->mapping);
        QCOMPARE(one.result.bestRuntime->metrics.runtime, three.result.bestRuntime->metrics.runtime);
        QCOMPARE(one.result.pareto.size(), three.result.pareto.size());
        for (std::size_t i = 0; i < one.result.pareto.size(); ++i)
            QVERIFY(one.result.pareto[i].mapping == three.result.pareto[i].mapping);
        // Another seed is another search (its own first population), with the same budget.
        SearchOptions other = geneticOptions(1500, 2);
        other.genetic.seed = 7;
        const LayerSearchResult seven = searchLayerGenetic(op, acc, other);
        QCOMPARE(seven.result.evaluated, std::uint64_t{1500});
        QVERIFY(seven.result.bestRuntime);
    }

    /// Every mapping returned: the MDC form written from its loop nest is the one evaluated, a fresh
    /// cost model gives the same figures, it fits L1 and L2, counts the layer's MACs, keeps at most two
    /// loops parallel on at most the accelerator's PEs and runs no faster than its MACs over its PEs.
    void everyMappingIsSound()
    {
        const ir::Operator op = conv(24, 8, 12, 10, 3);
        const arch::Accelerator acc = accelerator(64);
        for (Fidelity fidelity : {Fidelity::Maestro, Fidelity::Corrected}) {
            SearchOptions o = geneticOptions(1200, 2);
            o.fidelity = fidelity;
            const LayerSearchResult r = searchLayerGenetic(op, acc, o);
            QVERIFY(r.result.bestRuntime && r.result.bestEnergy && r.result.bestEdp);
            QVERIFY(!r.result.pareto.empty());
            const std::int64_t macs = std::int64_t{24} * 8 * 12 * 10 * 9;
            const cost::Options co = costOptions(fidelity);
            std::vector<const Candidate*> all{
                &*r.result.bestRuntime, &*r.result.bestEnergy, &*r.result.bestEdp};
            for (const Candidate& c : r.result.pareto)
                all.push_back(&c);
            for (const Candidate* c : all) {
                QCOMPARE(mapping::toMdc(c->mapping, acc), c->dataflow);
                cost::Evaluator evaluator(r.problem, acc, co);
                cost::Metrics m;
                QVERIFY(evaluator.evaluateMetrics(c->dataflow, m));
                QCOMPARE(m.runtimeCycles, c->metrics.runtime);
                QCOMPARE(m.macs, macs);
                QVERIFY(m.l1SizeReq * acc.bytesPerElement <= acc.l1Bytes);
                QVERIFY(m.l2SizeReq * acc.bytesPerElement <= acc.l2Bytes);
                QVERIFY(c->mapping.parallelLoops().size() <= 2);
                QVERIFY(c->mapping.activePes() <= acc.numPes);
                QVERIFY(c->metrics.runtime >= (macs + c->mapping.activePes() - 1) / c->mapping.activePes());
            }
            // The front: runtime ascending, energy descending, none dominating another.
            for (std::size_t i = 1; i < r.result.pareto.size(); ++i) {
                QVERIFY(r.result.pareto[i].metrics.runtime > r.result.pareto[i - 1].metrics.runtime);
                QVERIFY(r.result.pareto[i].metrics.energy < r.result.pareto[i - 1].metrics.energy);
            }
            QVERIFY(r.result.bestRuntime->metrics.runtime == r.result.pareto.front().metrics.runtime);
        }
    }

    /// Seeds join the bests and the front but change nothing of the search itself: the result is the
    /// better of the seeds and the unseeded search, which evaluates exactly as much.
    void seedsOnlyAddToTheBests()
    {
        const ir::Operator op = conv(32, 8, 7, 7, 3);
        const arch::Accelerator acc = accelerator(56);
        const LayerSearchResult plain = searchLayerGenetic(op, acc, geneticOptions(800, 2));
        SearchOptions decoupledOptions;
        decoupledOptions.threads = 2;
        const LayerSearchResult decoupled = searchLayer(op, acc, decoupledOptions);
        QVERIFY(plain.result.bestRuntime && decoupled.result.bestRuntime);
        SearchOptions seeded = geneticOptions(800, 2);
        seeded.seeds = seedsFrom(decoupled.result);
        const LayerSearchResult both = searchLayerGenetic(op, acc, seeded);
        QCOMPARE(both.result.evaluated, plain.result.evaluated);
        QCOMPARE(both.result.bestRuntime->metrics.runtime,
            std::min(
                plain.result.bestRuntime->metrics.runtime, decoupled.result.bestRuntime->metrics.runtime));
        QVERIFY(both.result.bestEnergy->metrics.energy <= std::min(
                    plain.result.bestEnergy->metrics.energy, decoupled.result.bestEnergy->metrics.energy));
    }

    void stopsWhenAsked()
    {
        std::stop_source stop;
        stop.request_stop();
        const LayerSearchResult r = searchLayerGenetic(
            conv(16, 8, 8, 8, 3), accelerator(32), geneticOptions(1000, 2), nullptr, stop.get_token());
        QVERIFY(r.result.cancelled);
        QVERIFY(!r.result.bestRuntime);
        QCOMPARE(r.result.evaluated, std::uint64_t{0});
    }

    /// The pool's rules on figures it cannot trust or keep, with an evaluator whose answer is fixed:
    /// a runtime below ceil(MACs / active PEs) or below the layer's compulsory traffic over the NoC is
    /// refused, one at the bound kept, an overflow measured.
    void poolRefusesFiguresBelowTheBounds()
    {
        const ir::Operator op = conv(8, 4, 6, 6, 1);
        arch::Accelerator acc = accelerator(16);
        const PreparedLayer prepared = prepareLayer(op);
        mapping::LoopNestMapping m;
        m.loops = prepared.space.loops;
        for (mapping::MappedLoop& l : m.loops)
            l.level1 = l.level2 = l.level3 = l.extent;
        m.loops[0].level1 = 1; // K spread over 8 PEs
        m.level2Order = m.level3Order = {0, 1, 2, 3, 4, 5};
        QCOMPARE(m.activePes(), std::int64_t{8});
        const std::int64_t bound = (8 * 4 * 6 * 6 + 7) / 8; // 144
        auto outcome = [&](std::int64_t runtime, std::int64_t l1, std::int64_t floor = 24) {
            Metrics metrics;
            metrics.runtime = runtime;
            metrics.macs = 8 * 4 * 6 * 6;
            metrics.l1Requirement = l1;
            metrics.l2Requirement = 100;
            const EvaluatorFactory factory = [metrics] { return std::make_unique<FixedEvaluator>(metrics); };
            SearchOptions o;
            o.threads = 1;
            MappingPool pool(prepared.space, acc, o, factory, nullptr);
            // Writes: O, 8 x 6 x 6 = 288 elements; reads: W 8 x 4 and I 4 x 6 x 6, 176; over 12 or 1 per
            // cycle.
            [&] { QCOMPARE(pool.transferFloor(), floor); }();
            const MappingPool::Outcome out = pool.evaluate({m}, 10, {}).front();
            return std::make_pair(out, pool.result());
        };
        auto [below, belowResult] = outcome(bound - 1, 10);
        QCOMPARE(below.status, MappingPool::Status::Rejected);
        QCOMPARE(belowResult.stats.rejected, std::uint64_t{1});
        QVERIFY(!belowResult.bestRuntime);
        auto [at, atResult] = outcome(bound, 10);
        QCOMPARE(at.status, MappingPool::Status::Fits);
        QVERIFY(atResult.bestRuntime);
        QCOMPARE(atResult.bestRuntime->metrics.runtime, bound);
        auto [over, overResult] = outcome(bound, 1024);
        QCOMPARE(over.status, MappingPool::Status::OverCapacity);
        QCOMPARE(over.overflow, 2.0); // 1024 bytes of a 512-byte L1
        QCOMPARE(overResult.stats.overL1, std::uint64_t{1});
        QCOMPARE(overResult.stats.minL1Bytes, std::int64_t{1024});
        QVERIFY(overResult.notMappable());
        // A NoC of one element per cycle: the 288 output elements take longer than the MACs.
        acc.nocBandwidth = 1;
        QCOMPARE(outcome(287, 10, 288).first.status, MappingPool::Status::Rejected);
        QCOMPARE(outcome(288, 10, 288).first.status, MappingPool::Status::Fits);
    }

    /// The default search refines the decoupled result: its best on each objective is the better of the
    /// decoupled search's and the genetic search's (same seed and budget) or better still, its front
    /// dominates the decoupled front, and neither the threads nor anything but the seed changes it.
    void refinementIsNeverWorse()
    {
        const ir::Operator op = conv(32, 8, 7, 7, 3);
        const arch::Accelerator acc = accelerator(56);
        SearchOptions o = geneticOptions(800, 1);
        o.refineLocalEvaluations = 300;
        o.refineRearrangeEvaluations = 100;
        o.offChipCandidates = 1; // the refinement against the paper's search (tst_offchip_candidates: K > 1)
        SearchOptions paper = o;
        paper.refine = false;
        const LayerSearchResult decoupled = searchLayer(op, acc, paper);
        const LayerSearchResult genetic = searchLayerGenetic(op, acc, o);
        const LayerSearchResult refined = searchLayer(op, acc, o);
        QVERIFY(refined.result.stats.refined && !decoupled.result.stats.refined);
        QVERIFY(decoupled.result.bestRuntime && genetic.result.bestRuntime && refined.result.bestRuntime);
        QVERIFY(
            refined.result.bestRuntime->metrics.runtime <= std::min(
                decoupled.result.bestRuntime->metrics.runtime, genetic.result.bestRuntime->metrics.runtime));
        QVERIFY(refined.result.bestEnergy->metrics.energy <= std::min(
                    decoupled.result.bestEnergy->metrics.energy, genetic.result.bestEnergy->metrics.energy));
        QVERIFY(refined.result.bestEdp->metrics.edp() <= decoupled.result.bestEdp->metrics.edp());
        for (const Candidate& d : decoupled.result.pareto)
            QVERIFY(std::any_of(
                refined.result.pareto.begin(), refined.result.pareto.end(), [&](const Candidate& r) {
                    return r.metrics.runtime <= d.metrics.runtime && r.metrics.energy <= d.metrics.energy;
                }));
        // Every stage's evaluations are counted, the refinement's at most their budgets; the space's
        // statistics stay the decoupled search's, which the genetic stage's bests (found first) let skip
        // what cannot beat them.
        QVERIFY(refined.result.stats.evaluated <= decoupled.result.stats.evaluated);
        QVERIFY(refined.result.evaluated > refined.result.stats.evaluated);
        QVERIFY(refined.result.evaluated <= refined.result.stats.evaluated + 800 + 300 + 100);
        QVERIFY(refined.result.evaluated >= refined.result.stats.evaluated + genetic.result.evaluated);
        o.threads = 3;
        const LayerSearchResult three = searchLayer(op, acc, o);
        QVERIFY(three.result.bestRuntime->mapping == refined.result.bestRuntime->mapping);
        QCOMPARE(three.result.evaluated, refined.result.evaluated);
        QCOMPARE(three.result.pareto.size(), refined.result.pareto.size());
        // A style keeps to its restriction: no refinement.
        const styles::StyleSearch ws = styles::searchLayerStyle(op, acc, styles::Style::WeightStationary, o);
        QVERIFY(ws.best && !ws.search.result.stats.refined);
    }

    /// The refinement's genetic stage runs first and seeds the decoupled search: its bound then skips the
    /// tiles that cannot beat the genetic search's best, and the result is the one refining the unseeded
    /// decoupled search gives (the genetic stage's course does not depend on seeds).
    void geneticStageBoundsTheDecoupledSearch()
    {
        const ir::Operator op = conv(64, 16, 14, 14, 1);
        const arch::Accelerator acc = accelerator(168);
        SearchOptions o = geneticOptions(800, 2);
        o.fidelity = Fidelity::Corrected;
        o.refineLocalEvaluations = 300;
        o.offChipCandidates = 1;
        SearchOptions paper = o;
        paper.refine = false;
        const LayerSearchResult decoupled = searchLayer(op, acc, paper);
        const SearchResult refinedAfter = refineSearch(decoupled.space, acc, o, decoupled.result,
            costModelEvaluators(decoupled.problem, acc, o.fidelity, {}));
        const LayerSearchResult refined = searchLayer(op, acc, o);
        QVERIFY(decoupled.result.bestRuntime && refinedAfter.bestRuntime && refined.result.bestRuntime);
        // The decoupled search alone: 2,065 cycles after 75,116 mappings. The genetic stage's best, 1,440
        // cycles (roofline 1,195), is below the compute bound of every tile the decoupled search has:
        // seeded with it, that search evaluates nothing.
        QCOMPARE(decoupled.result.bestRuntime->metrics.runtime, std::int64_t{2065});
        QCOMPARE(refined.result.bestRuntime->metrics.runtime, refinedAfter.bestRuntime->metrics.runtime);
        QCOMPARE(refined.result.bestRuntime->metrics.runtime, std::int64_t{1440});
        QVERIFY(decoupled.result.stats.evaluated > 10000);
        QCOMPARE(refined.result.stats.evaluated, std::uint64_t{0});
    }

    /// The local stage alone: never worse than its seeds, at most its budget, every mapping it keeps one
    /// the MDC transformation writes and the buffers hold.
    void localMovesKeepTheBudget()
    {
        const ir::Operator op = conv(12, 8, 6, 5, 3);
        const arch::Accelerator acc = accelerator(24);
        SearchOptions paper = geneticOptions(0, 2);
        paper.refine = false;
        const LayerSearchResult decoupled = searchLayer(op, acc, paper);
        QVERIFY(decoupled.result.bestRuntime);
        const SearchResult local = localSearch(decoupled.space, acc, paper, seedsFrom(decoupled.result), 400,
            costModelEvaluators(decoupled.problem, acc, paper.fidelity));
        QVERIFY(local.evaluated <= 400);
        QVERIFY(local.evaluated > 0);
        QVERIFY(local.bestRuntime->metrics.runtime <= decoupled.result.bestRuntime->metrics.runtime);
        QVERIFY(local.bestEnergy->metrics.energy <= decoupled.result.bestEnergy->metrics.energy);
        QCOMPARE(mapping::toMdc(local.bestRuntime->mapping, acc), local.bestRuntime->dataflow);
        QVERIFY(local.bestRuntime->metrics.l1Requirement * acc.bytesPerElement <= acc.l1Bytes);
        QVERIFY(local.bestRuntime->metrics.l2Requirement * acc.bytesPerElement <= acc.l2Bytes);
    }

    /// The genetic search ranks without the L2 capacity, so it visits the same mappings under every L2;
    /// its footprint front holds, for any L2 size, the best of them that fits. Checked at the L2 sizes
    /// the front's own points need, and a byte below each: the best energy found there equals the
    /// front's best within that size (none when no point fits).
    void footprintFrontIsTheBestOfEveryL2()
    {
        const ir::Operator op = conv(32, 16, 14, 14, 3);
        arch::Accelerator acc = accelerator(168);
        acc.l2Bytes = std::int64_t{1} << 30;
        SearchOptions o = geneticOptions(1200, 2);
        o.objective = Objective::Energy;
        const PreparedLayer layer = prepareLayer(op);
        auto run = [&](std::vector<MappingPool::FootprintPoint>& front) {
            return searchGenetic(
                layer.space, acc, o, costModelEvaluators(layer.problem, acc, o.fidelity), front);
        };
        std::vector<MappingPool::FootprintPoint> front;
        run(front);
        QVERIFY(front.size() >= 3);
        for (std::size_t i = 1; i < front.size(); ++i) {
            QVERIFY(front[i - 1].metrics.l2Requirement < front[i].metrics.l2Requirement);
            QVERIFY(front[i - 1].objective > front[i].objective);
        }
        std::vector<std::int64_t> sizes;
        for (std::size_t i = 0; i < front.size(); i += std::max<std::size_t>(1, front.size() / 4))
            for (std::int64_t below : {0, 1})
                sizes.push_back(front[i].metrics.l2Requirement * acc.bytesPerElement - below);
        for (std::int64_t l2 : sizes) {
            acc.l2Bytes = l2;
            std::vector<MappingPool::FootprintPoint> again;
            const SearchResult r = run(again);
            QCOMPARE(again.size(), front.size());
            std::optional<double> expected;
            for (const MappingPool::FootprintPoint& p : front)
                if (p.metrics.l2Requirement * acc.bytesPerElement <= l2) expected = p.objective;
            QCOMPARE(r.bestEnergy.has_value(), expected.has_value());
            if (expected) QCOMPARE(r.bestEnergy->metrics.energy, *expected);
        }
    }

    /// The style API runs the genetic search with the options' budget.
    void isAStyle()
    {
        const ir::Operator op = conv(16, 8, 8, 8, 3);
        const arch::Accelerator acc = accelerator(32);
        const styles::StyleSearch s
            = styles::searchLayerStyle(op, acc, styles::Style::Genetic, geneticOptions(600, 2));
        QVERIFY(s.best);
        QCOMPARE(s.search.result.evaluated, std::uint64_t{600});
        QCOMPARE(s.best->metrics.runtime,
            searchLayerGenetic(op, acc, geneticOptions(600, 1)).result.bestRuntime->metrics.runtime);
    }
};

QTEST_GUILESS_MAIN(TestGenetic)
#include "tst_genetic.moc"
