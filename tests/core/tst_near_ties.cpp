// The best mapping of an objective breaks near ties by the other metric (SearchOptions::nearTie,
// doc/search.md, "Near ties"): within a margin of the least runtime, the least energy wins (issue 36: a
// bigger L2 showed a costlier best because a mapping 157 cycles faster in 3.6 million cost 5 % more
// energy), and likewise for energy and EDP, whose near ties go to the least runtime. The default margin,
// kDefaultNearTie (2e-5), is small enough to give no runtime away against GAMMA (issue 33); nearTie 0 gives
// the exact bests.
#include <algorithm>
#include <cmath>

#include <QTest>

#include "core/ir/parser.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using namespace marvel::search;

namespace {
Candidate nearTieCandidate(std::uint64_t index, std::int64_t runtime, double energy)
{
    Candidate c;
    c.index = index;
    c.metrics.runtime = runtime;
    c.metrics.energy = energy;
    return c;
}
} // namespace

class TestNearTies : public QObject
{
    Q_OBJECT
private slots:
    /// nearTieBest on a front written by hand.
    void chosenFromTheFront()
    {
        const std::vector<Candidate> front = {nearTieCandidate(7, 100000, 9e9),
            nearTieCandidate(3, 100040, 8e9), nearTieCandidate(5, 100090, 7.5e9),
            nearTieCandidate(9, 100150, 7.005e9), nearTieCandidate(2, 100200, 7e9)};
        // Runtime: within 100100 cycles (0.1 % above 100000), the least energy is 7.5e9 at 100090; 100150
        // is cheaper but 0.15 % slower.
        QCOMPARE(nearTieBest(front, Objective::Runtime, 1e-3)->index, std::uint64_t(5));
        // Energy: within 7.007e9, the least runtime is 100150 (the least energy, 7e9, takes 100200).
        QCOMPARE(nearTieBest(front, Objective::Energy, 1e-3)->index, std::uint64_t(9));
        // EDP: the least is 100200 x 7e9 = 7.014e14; within 7.021014e14 lie 100150 x 7.005e9 = 7.0155e14
        // and 100090 x 7.5e9 = 7.507e14 is not: 100150 is the faster of the two.
        QCOMPARE(nearTieBest(front, Objective::Edp, 1e-3)->index, std::uint64_t(9));
        // An exact tie on both metrics goes to the lower index.
        const std::vector<Candidate> twins = {nearTieCandidate(4, 500, 2.0), nearTieCandidate(1, 500, 2.0)};
        QCOMPARE(nearTieBest(twins, Objective::Runtime, 1e-3)->index, std::uint64_t(1));
        QVERIFY(!nearTieBest({}, Objective::Runtime, 1e-3));
    }

    /// A real search with nearTie 0.001: conv2d_pointwise on 256 PEs, where the fastest mapping the search
    /// keeps costs 19 % more energy than one 23 cycles (0.09 %) slower. The best runtime is that cheaper one;
    /// every best is within 0.1 % of its objective's least and the cheapest (fastest) of the mappings that
    /// are.
    void searchBestsBreakNearTies()
    {
        const LayerSearchResult out = pointwiseSearch(kMargin);
        const SearchResult& r = out.result;
        QVERIFY(r.bestRuntime && r.bestEnergy && r.bestEdp);
        for (Objective objective : {Objective::Runtime, Objective::Energy, Objective::Edp}) {
            const double least = leastOnFront(r, objective);
            const Metrics& best = r.best(objective)->metrics;
            QVERIFY(best.value(objective) <= least * (1 + kMargin));
            for (const Candidate& c : r.pareto) {
                if (c.metrics.value(objective) > least * (1 + kMargin)) continue;
                if (objective == Objective::Runtime)
                    QVERIFY2(best.energy <= c.metrics.energy,
                        qPrintable(QStringLiteral("%1 cycles at %2 beside %3 at %4")
                                       .arg(best.runtime)
                                       .arg(best.energy)
                                       .arg(c.metrics.runtime)
                                       .arg(c.metrics.energy)));
                else
                    QVERIFY(best.runtime <= c.metrics.runtime);
            }
        }
        // The case is a near tie indeed: the exact fastest is another, costlier mapping.
        QVERIFY(r.bestRuntime->metrics.runtime > std::int64_t(leastOnFront(r, Objective::Runtime)));
    }

    /// nearTie 0 on the same search: every best is its objective's exact least over the front (the fastest
    /// mapping, 23 cycles faster than the 0.001 margin's best runtime), exact ties to the other metric.
    void zeroBestsAreExact()
    {
        const LayerSearchResult exact = pointwiseSearch(0.0);
        const SearchResult& r = exact.result;
        QVERIFY(r.bestRuntime && r.bestEnergy && r.bestEdp);
        for (Objective objective : {Objective::Runtime, Objective::Energy, Objective::Edp}) {
            const double least = leastOnFront(r, objective);
            const Metrics& best = r.best(objective)->metrics;
            QCOMPARE(best.value(objective), least);
            for (const Candidate& c : r.pareto) {
                if (c.metrics.value(objective) != least) continue;
                if (objective == Objective::Runtime)
                    QVERIFY(best.energy <= c.metrics.energy);
                else
                    QVERIFY(best.runtime <= c.metrics.runtime);
            }
        }
        const LayerSearchResult near = pointwiseSearch(kMargin);
        QVERIFY(near.result.bestRuntime->metrics.runtime > r.bestRuntime->metrics.runtime);
        QVERIFY(near.result.bestRuntime->metrics.energy < r.bestRuntime->metrics.energy);
    }

    /// The default margin, 2e-5, on issue 36's case: VGG16 CONV2_1 on P2 with 256 PEs. The exact fastest
    /// mappings make the bigger L2 the costlier (108 KiB: 3,613,015 cycles at 8.81e9; 64 KiB: 3,613,172 at
    /// 8.37e9); within 2e-5 (72 cycles) the best runtimes are cheaper ones, 52 and 5 cycles slower, and
    /// the bigger L2 is the cheaper (7.92e9 against 8.08e9).
    void defaultMarginPicksTheCheaperNearTie()
    {
        QCOMPARE(kDefaultNearTie, 2e-5);
        QCOMPARE(SearchOptions{}.nearTie, kDefaultNearTie);
        const workloads::Workload vgg = workloads::builtinWorkload("vgg16");
        const auto layer = std::find_if(vgg.layers.begin(), vgg.layers.end(),
            [](const workloads::WorkloadLayer& l) { return l.name == "CONV2_1"; });
        QVERIFY(layer != vgg.layers.end());
        arch::Accelerator acc = testsupport::sampleAccelerator("P2_edge.json");
        acc.numPes = 256;
        struct Expected
        {
            std::int64_t l2Bytes, exactRuntime, runtime;
        };
        double energyAt[2] = {}, exactEnergyAt[2] = {};
        int i = 0;
        for (const Expected& e : {Expected{110592, 3613015, 3613067}, Expected{65536, 3613172, 3613177}}) {
            acc.l2Bytes = e.l2Bytes;
            SearchOptions options;
            options.threads = 2;
            const SearchResult r = searchLayer(layer->op, acc, options).result;
            // The exact fastest, as nearTie 0 chooses it from the same front.
            const Candidate exact = *nearTieBest(r.pareto, Objective::Runtime, 0);
            QCOMPARE(exact.metrics.runtime, e.exactRuntime);
            QCOMPARE(r.bestRuntime->metrics.runtime, e.runtime);
            QVERIFY(double(e.runtime) <= double(e.exactRuntime) * (1 + kDefaultNearTie));
            QVERIFY(r.bestRuntime->metrics.energy < exact.metrics.energy);
            energyAt[i] = r.bestRuntime->metrics.energy;
            exactEnergyAt[i] = exact.metrics.energy;
            ++i;
        }
        QVERIFY(exactEnergyAt[0] > exactEnergyAt[1]); // exact: the bigger L2 costlier
        QVERIFY(energyAt[0] < energyAt[1]); // the default: the bigger L2 cheaper
        QVERIFY(std::abs(energyAt[0] - 7.92e9) < 0.005e9);
        QVERIFY(std::abs(energyAt[1] - 8.08e9) < 0.005e9);
    }

private:
    static constexpr double kMargin = 1e-3;

    static LayerSearchResult pointwiseSearch(double nearTie)
    {
        arch::Accelerator acc = testsupport::sampleAccelerator("P2_edge.json");
        acc.numPes = 256;
        const ir::Operator op
            = ir::parseOperatorFile(std::string(MARVEL_SAMPLES_DIR) + "/operators/conv2d_pointwise.loop");
        SearchOptions options;
        options.threads = 2;
        options.nearTie = nearTie;
        return searchLayer(op, acc, options);
    }

    static double leastOnFront(const SearchResult& r, Objective objective)
    {
        double least = std::numeric_limits<double>::infinity();
        for (const Candidate& c : r.pareto)
            least = std::min(least, c.metrics.value(objective));
        return least;
    }
};

QTEST_APPLESS_MAIN(TestNearTies)
#include "tst_near_ties.moc"
