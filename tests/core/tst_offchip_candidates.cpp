// Several off-chip solutions (issue 21, point 5; doc/search.md "Several off-chip solutions"): the front of
// a search under K > 1 off-chip solutions weakly dominates the single-solution front, with the refinement
// and without; its bests are never worse; every mapping still fits the buffers as the cost model counts
// them; the result does not depend on the threads. On the energy objective a larger L2 gives no higher
// best energy on the DRAM-aware presets, with the refinement and without.
#include <nlohmann/json.hpp>

#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using namespace marvel::search;

using marvel::testsupport::parseTestOperator;
using marvel::testsupport::sampleAccelerator;
namespace {

// Small enough for a few hundred milliseconds per search in a release build; big enough that the level-3
// tile is a real choice at the L2 sizes below.
ir::Operator smallConv()
{
    return parseTestOperator(workloads::conv2dLoopText(16, 16, 8, 8, 3, 3, 1, 1));
}
// Whole in an L2 of 4 KiB at two bytes a word, double buffered: from 512 B to 8 KiB every tiling is a choice.
ir::Operator tinyConv()
{
    return parseTestOperator(workloads::conv2dLoopText(8, 8, 4, 4, 3, 3, 1, 1));
}
ir::Operator smallGemm()
{
    return parseTestOperator(workloads::gemmLoopText(64, 128, 256));
}

SearchOptions optionsWith(int k, Objective objective, bool refine)
{
    SearchOptions o;
    o.offChipCandidates = k;
    o.objective = objective;
    o.refine = refine;
    o.threads = 2;
    return o;
}

/// Whether every point of `weaker` has a point of `stronger` at most as slow and at most as costly.
bool weaklyDominates(const std::vector<Candidate>& stronger, const std::vector<Candidate>& weaker)
{
    for (const Candidate& w : weaker) {
        const bool covered = std::any_of(stronger.begin(), stronger.end(), [&](const Candidate& s) {
            return s.metrics.runtime <= w.metrics.runtime && s.metrics.energy <= w.metrics.energy;
        });
        if (!covered) return false;
    }
    return true;
}

/// Every best and front mapping needs at most the accelerator's L1 and L2 (a fresh cost-model evaluation).
bool everyMappingFits(const LayerSearchResult& r, const arch::Accelerator& acc, Fidelity fidelity)
{
    cost::Evaluator evaluator(r.problem, acc, costOptions(fidelity));
    std::vector<const Candidate*> all;
    for (const auto* best : {&r.result.bestRuntime, &r.result.bestEnergy, &r.result.bestEdp})
        if (*best) all.push_back(&**best);
    for (const Candidate& c : r.result.pareto)
        all.push_back(&c);
    for (const Candidate* c : all) {
        const cost::Result m = evaluator.evaluate(c->dataflow);
        if (m.m.l1SizeReq * acc.bytesPerElement > acc.l1Bytes) return false;
        if (m.m.l2SizeReq * acc.bytesPerElement > acc.l2Bytes) return false;
    }
    return !all.empty();
}

} // namespace

class TestOffChipCandidates : public QObject
{
    Q_OBJECT
private slots:
    void frontDominatesTheSingleSolution_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("refine");
        QTest::addColumn<int>("objective");
        for (bool refine : {false, true}) {
            const char* how = refine ? " refined" : " decoupled";
            QTest::newRow((std::string("conv edge1024_dram") + how).c_str())
                << 0 << "edge1024_dram.json" << refine << int(Objective::Runtime);
            QTest::newRow((std::string("gemm eyeriss_dram") + how).c_str())
                << 1 << "eyeriss_dram.json" << refine << int(Objective::Runtime);
        }
        QTest::newRow("gemm edge1024_dram decoupled, EDP")
            << 1 << "edge1024_dram.json" << false << int(Objective::Edp);
    }
    void frontDominatesTheSingleSolution()
    {
        QFETCH(int, op);
        QFETCH(QString, preset);
        QFETCH(bool, refine);
        QFETCH(int, objective);
        const ir::Operator o = op == 0 ? smallConv() : smallGemm();
        const arch::Accelerator acc = sampleAccelerator(preset.toUtf8().constData());
        const auto obj = static_cast<Objective>(objective);
        // A smaller refinement budget: the dominance holds by construction whatever the budget.
        SearchOptions single = optionsWith(1, obj, refine);
        single.genetic.evaluations = 1000;
        single.refineLocalEvaluations = 300;
        SearchOptions several = single;
        several.offChipCandidates = 3;
        const LayerSearchResult one = searchLayer(o, acc, single);
        const LayerSearchResult three = searchLayer(o, acc, several);
        QCOMPARE(one.result.stats.offChipSolutions, 1);
        // Three when the L2 holds that many distinct choices, as it does for both operators here.
        QCOMPARE(three.result.stats.offChipSolutions, 3);
        QVERIFY(!one.result.pareto.empty());
        QVERIFY(weaklyDominates(three.result.pareto, one.result.pareto));
        for (Objective which : {Objective::Runtime, Objective::Energy, Objective::Edp}) {
            QVERIFY(one.result.best(which) && three.result.best(which));
        }
        const auto value = [&](const LayerSearchResult& r) {
            const Metrics& m = r.result.best(obj)->metrics;
            return obj == Objective::Runtime ? static_cast<double>(m.runtime) : m.edp();
        };
        QVERIFY(value(three) <= value(one));
        QVERIFY(three.result.evaluated >= one.result.evaluated);
        // Capacity rules unchanged.
        QVERIFY(everyMappingFits(three, acc, several.fidelity));
        // No mapping moves less than the compulsory traffic (tst_dram: on random mappings, and exactly it
        // when the layer fits): the GEMM reads A (64 x 256) and B (256 x 128), writes C (64 x 128).
        if (op == 1)
            for (const Candidate& c : three.result.pareto) {
                QVERIFY(c.metrics.dramReads >= 64 * 256 + 256 * 128);
                QVERIFY(c.metrics.dramWrites >= 64 * 128);
            }
        // DRAM energy is part of what the fronts rank: the totals carry it.
        const Metrics& best = three.result.best(obj)->metrics;
        QVERIFY(best.dramEnergy > 0);
        QCOMPARE(best.energy, best.macEnergy + best.l1Energy + best.l2Energy + best.dramEnergy);
    }

    void independentOfThreads()
    {
        const arch::Accelerator acc = sampleAccelerator("edge1024_dram.json");
        SearchOptions o = optionsWith(3, Objective::Runtime, true);
        o.threads = 1;
        const LayerSearchResult a = searchLayer(smallConv(), acc, o);
        o.threads = 3;
        const LayerSearchResult b = searchLayer(smallConv(), acc, o);
        QCOMPARE(a.result.pareto.size(), b.result.pareto.size());
        for (std::size_t i = 0; i < a.result.pareto.size(); ++i) {
            QCOMPARE(a.result.pareto[i].metrics.runtime, b.result.pareto[i].metrics.runtime);
            QCOMPARE(a.result.pareto[i].metrics.energy, b.result.pareto[i].metrics.energy);
            QCOMPARE(mapping::toJson(a.result.pareto[i].mapping).dump(),
                mapping::toJson(b.result.pareto[i].mapping).dump());
        }
        QCOMPARE(a.result.evaluated, b.result.evaluated);
    }

    // On the energy objective a larger L2 never gives a higher best energy: every mapping that fits a
    // smaller L2 fits a larger one and costs the same there (checked below: no figure depends on the L2
    // size). The refinement's genetic search and footprint descents keep to it by construction: they rank
    // without the L2 capacity, so they visit the same mappings under every L2 (doc/search.md, "Several
    // off-chip solutions"). The decoupled search, and the descents from its result, keep to it on these
    // cases, not by construction (that would need the off-chip solutions of every smaller L2).
    void largerL2NeverCostsMoreEnergy_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("refine");
        QTest::addColumn<qint64>("smallestL2"); // then four doublings
        QTest::newRow("conv, Eyeriss-like with DRAM, decoupled")
            << 2 << "eyeriss_dram.json" << false << qint64{512};
        QTest::newRow("gemm, Eyeriss-like with DRAM, decoupled")
            << 1 << "eyeriss_dram.json" << false << qint64{2048};
        QTest::newRow("gemm, Edge 1024 with DRAM, decoupled")
            << 1 << "edge1024_dram.json" << false << qint64{2048};
        QTest::newRow("gemm, Edge 1024 with DRAM, refined")
            << 1 << "edge1024_dram.json" << true << qint64{2048};
        QTest::newRow("conv, Eyeriss-like with DRAM, refined")
            << 2 << "eyeriss_dram.json" << true << qint64{512};
    }
    void largerL2NeverCostsMoreEnergy()
    {
        QFETCH(int, op);
        QFETCH(QString, preset);
        QFETCH(bool, refine);
        QFETCH(qint64, smallestL2);
        // The refinement's five searches per row are the slowest part of this test under the sanitizers;
        // its code runs there in tst_genetic.
        if (refine && MARVEL_ADDRESS_SANITIZER) QSKIP("checked by the optimised build");
        const ir::Operator o = op == 2 ? tinyConv() : op == 0 ? smallConv() : smallGemm();
        arch::Accelerator acc = sampleAccelerator(preset.toUtf8().constData());
        double previous = 0;
        std::optional<Candidate> previousBest;
        std::string rises;
        for (std::int64_t l2 = smallestL2; l2 <= 16 * smallestL2; l2 *= 2) {
            acc.l2Bytes = l2;
            const SearchOptions options = optionsWith(1, Objective::Energy, refine);
            const LayerSearchResult r = searchLayer(o, acc, options);
            QVERIFY(r.result.bestEnergy);
            const double energy = r.result.bestEnergy->metrics.energy;
            if (previousBest) {
                // The smaller L2's best fits this L2 and costs the same here.
                const cost::Result again = cost::Evaluator(r.problem, acc, costOptions(options.fidelity))
                                               .evaluate(previousBest->dataflow);
                QCOMPARE(again.m.totalEnergy(), previous);
                QVERIFY(again.m.l2SizeReq * acc.bytesPerElement <= acc.l2Bytes);
                if (energy > previous)
                    rises += std::to_string(l2) + " B: " + std::to_string(energy) + " > "
                        + std::to_string(previous) + "; ";
            }
            previous = energy;
            previousBest = r.result.bestEnergy;
        }
        QVERIFY2(rises.empty(), rises.c_str());
    }
};

QTEST_GUILESS_MAIN(TestOffChipCandidates)
#include "tst_offchip_candidates.moc"
