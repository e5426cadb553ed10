// core/codesign: which designs the budgets admit (areas and leakage computed by hand from the 45 nm
// table), a budget nothing meets, the same result for a seed whatever the threads, and the best design of
// a small grid against the best found by searching every design of that grid.
#include <QTest>

#include "core/codesign/codesign.h"
#include "core/ir/parser.h"
#include "core/tech/technology.h"
#include "tests/core/core_test_support.h"

using namespace marvel;

namespace tst_codesign {

// Four PEs, 8-bit elements, the 45 nm table: MAC 282 um^2 and 0.0009 pJ/cycle of leakage; the table's own
// capacities for L1 and L2, so that the curves give their listed figures.
arch::Accelerator codesignBase()
{
    arch::Accelerator acc;
    acc.name = "base";
    acc.numPes = 4;
    acc.l1Bytes = 24;
    acc.l2Bytes = 384;
    acc.nocBandwidth = 4;
    acc.technology = "45nm";
    acc.technologyTable = tech::loadTechnology("45nm");
    tech::applyTechnology(acc);
    return acc;
}

workloads::Workload codesignWorkload(const std::string& text, int repeat = 1)
{
    workloads::Workload w;
    ir::Operator op = ir::parseOperator(text, "test.loop");
    w.name = op.name;
    w.layers.push_back({op.name, {}, op, repeat, {}});
    return w;
}

const std::string kCodesignConv1d = "operator conv1d(X = 64, S = 3) {\n"
                                    "  for (x = 0; x < X; x++)\n"
                                    "    for (s = 0; s < S; s++)\n"
                                    "      O[x] += W[s] * I[x + s];\n"
                                    "}\n";

std::vector<sweep::Axis> codesignAxes(const std::vector<std::string>& specs)
{
    std::vector<sweep::Axis> out;
    for (const std::string& s : specs)
        out.push_back(sweep::parseVary(s));
    return out;
}

} // namespace tst_codesign

using namespace tst_codesign;

class TestCodesign : public QObject
{
    Q_OBJECT

private slots:
    void budgetsAdmitByHandComputedAreaAndLeakage()
    {
        // Grid pes 4, 8 x l1 24, 32, 384 x l2 384, 128K. Area (um^2) = pes x (282 + L1 area) + L2 area with
        // L1 areas 16.512, 22.016, 264.192 and L2 areas 264.192, 90177.536 (45nm.json).
        const sweep::Grid grid(codesignBase(), codesignAxes({"pes=4,8", "l1=24,32,384", "l2=384,131072"}));
        codesign::Options options;
        options.budget.areaMm2 = 2600e-6;
        const codesign::CoDesigner cd(grid, codesignWorkload(kCodesignConv1d), options);
        const double expected[2][3][2]
            = {{{4 * (282 + 16.512) + 264.192, 4 * (282 + 16.512) + 90177.536},
                   {4 * (282 + 22.016) + 264.192, 4 * (282 + 22.016) + 90177.536},
                   {4 * (282 + 264.192) + 264.192, 4 * (282 + 264.192) + 90177.536}},
                {{8 * (282 + 16.512) + 264.192, 8 * (282 + 16.512) + 90177.536},
                    {8 * (282 + 22.016) + 264.192, 8 * (282 + 22.016) + 90177.536},
                    {8 * (282 + 264.192) + 264.192, 8 * (282 + 264.192) + 90177.536}}};
        for (std::size_t p = 0; p < 2; ++p)
            for (std::size_t l1 = 0; l1 < 3; ++l1)
                for (std::size_t l2 = 0; l2 < 2; ++l2) {
                    const std::size_t index = (p * 3 + l1) * 2 + l2;
                    QVERIFY(std::abs(cd.staticCost(index).areaMm2 - expected[p][l1][l2] * 1e-6) < 1e-12);
                }
        // Within 2600 um^2: the four-PE designs with the small L2 (1458.24, 1480.256, 2448.96 um^2); eight
        // PEs take 2652.288 at least.
        QCOMPARE(cd.withinArea(), (std::vector<std::size_t>{0, 2, 4}));

        // Leakage (pJ/cycle) = pes x (0.0009 + L1's) + L2's, x 200 MHz x 1e-3 in mW: the four-PE designs
        // with the small L2 leak 0.0013264, 0.0013664 and 0.003136 mW.
        options.budget.powerMw = 0.0014;
        const codesign::CoDesigner withPower(grid, codesignWorkload(kCodesignConv1d), options);
        QVERIFY(std::abs(withPower.staticCost(0).leakageMw - 0.0013264) < 1e-12);
        QVERIFY(std::abs(withPower.staticCost(2).leakageMw - 0.0013664) < 1e-12);
        QVERIFY(std::abs(withPower.staticCost(4).leakageMw - 0.003136) < 1e-12);
        QCOMPARE(withPower.withinArea(), (std::vector<std::size_t>{0, 2}));

        // Every evaluated design the run returns is one of them, and the best is within budget.
        const codesign::Result r = withPower.run();
        QCOMPARE(r.designs.size(), std::size_t{2});
        for (const codesign::Design& d : r.designs) {
            QVERIFY(d.point.index == 0 || d.point.index == 2);
            QCOMPARE(d.withinBudget, d.point.ok && d.point.powerMw <= 0.0014);
        }
    }

    void aBudgetNothingMeetsSaysWhatTheSmallestDesignTakes()
    {
        const sweep::Grid grid(codesignBase(), codesignAxes({"pes=4,8", "l1=24,32"}));
        codesign::Options options;
        options.budget.areaMm2 = 0.001;
        const std::string error = testsupport::errorText(
            [&] { codesign::CoDesigner(grid, codesignWorkload(kCodesignConv1d), options); });
        QVERIFY2(error.find("no design of the grid meets the budget of 0.001 mm^2") != std::string::npos,
            error.c_str());
        // The smallest: four PEs, L1 24, L2 384: 1458.24 um^2.
        QVERIFY2(error.find("takes 0.001458 mm^2") != std::string::npos, error.c_str());

        options.budget.areaMm2 = -1;
        QVERIFY(testsupport::errorText([&] {
            codesign::CoDesigner(grid, codesignWorkload(kCodesignConv1d), options);
        }).find("area budget")
            != std::string::npos);
        arch::Accelerator plain = codesignBase();
        plain.technology.clear();
        plain.technologyTable.reset();
        options.budget.areaMm2 = 1;
        QVERIFY(testsupport::errorText([&] {
            codesign::CoDesigner(
                sweep::Grid(plain, codesignAxes({"pes=4,8"})), codesignWorkload(kCodesignConv1d), options);
        }).find("technology table")
            != std::string::npos);
    }

    void aSeedGivesTheSameDesignsOnAnyThreads()
    {
        const sweep::Grid grid(
            codesignBase(), codesignAxes({"pes=1:16:x2", "l1=24,32,384", "l2=384,4K,16K", "noc_bw=1,4"}));
        auto runWith = [&](unsigned threads, std::uint64_t seed) {
            codesign::Options options;
            options.budget.areaMm2 = 0.02;
            options.seed = seed;
            options.maxDesigns = 20;
            options.batch = 4;
            options.sweep.search.refine = false; // the engine is under test, not the inner search
            options.sweep.threads = threads;
            const codesign::CoDesigner cd(grid, codesignWorkload(kCodesignConv1d), options);
            std::vector<std::string> rows;
            for (const codesign::Design& d : cd.run().designs)
                rows.push_back(d.phase + " " + sweep::formatRow(d.point));
            return rows;
        };
        const std::vector<std::string> one = runWith(1, 7), two = runWith(2, 7);
        QCOMPARE(one.size(), std::size_t{20});
        QCOMPARE(one, two);
        QVERIFY(runWith(1, 8) != one); // another seed samples other designs
    }

    void bestOfASmallGridIsTheExhaustiveBest_data()
    {
        QTest::addColumn<int>("objective");
        QTest::newRow("runtime") << int(codesign::Objective::Runtime);
        QTest::newRow("energy") << int(codesign::Objective::Energy);
        QTest::newRow("edp") << int(codesign::Objective::Edp);
    }

    void bestOfASmallGridIsTheExhaustiveBest()
    {
        QFETCH(int, objective);
        // 5 x 3 x 2 = 30 designs; the budget leaves 18.
        const sweep::Grid grid(codesignBase(), codesignAxes({"pes=1:16:x2", "l1=24,32,384", "noc_bw=1,4"}));
        codesign::Options options;
        options.objective = static_cast<codesign::Objective>(objective);
        options.budget.areaMm2 = 0.0035;
        options.maxDesigns = 12;
        options.batch = 2;
        options.sweep.search.refine = false; // the engine is under test, not the inner search
        const workloads::Workload w = codesignWorkload(kCodesignConv1d);
        const codesign::CoDesigner cd(grid, w, options);
        QVERIFY(cd.withinArea().size() > options.maxDesigns);

        // Brute force: every design of the grid searched as a sweep does, kept when its area is within
        // the budget, the least objective (ties: smaller area, lower index).
        sweep::SweepOptions so;
        so.search.objective = options.objective;
        so.search.refine = false;
        const sweep::Sweeper all(grid, w, so);
        std::vector<std::size_t> every(grid.size());
        for (std::size_t i = 0; i < every.size(); ++i)
            every[i] = i;
        std::optional<sweep::PointResult> best;
        double bestValue = 0;
        std::size_t inside = 0;
        for (const sweep::PointResult& r : all.run(every)) {
            if (!r.ok || r.areaMm2 > options.budget.areaMm2) continue;
            ++inside;
            const double v = options.objective == codesign::Objective::Runtime ? double(r.runtime)
                : options.objective == codesign::Objective::Energy             ? r.energyPj
                                                                   : double(r.runtime) * r.energyPj;
            if (!best || v < bestValue || (v == bestValue && r.areaMm2 < best->areaMm2)) {
                best = r;
                bestValue = v;
            }
        }
        QCOMPARE(inside, cd.withinArea().size());
        QVERIFY(best);

        const codesign::Result r = cd.run();
        QVERIFY(r.designs.size() <= options.maxDesigns);
        QVERIFY(r.best);
        QCOMPARE(r.best->point.index, best->index);
        QCOMPARE(r.best->objective, bestValue);
        // The front: area ascending, objective strictly falling, the best last.
        for (std::size_t i = 1; i < r.front.size(); ++i) {
            QVERIFY(r.front[i].point.areaMm2 > r.front[i - 1].point.areaMm2);
            QVERIFY(r.front[i].objective < r.front[i - 1].objective);
        }
        QCOMPARE(r.front.back().point.index, best->index);

        // The bounded exhaustive search finds the same best; for runtime without searching every design.
        const codesign::Result b = cd.boundedExhaustive();
        QVERIFY(b.best);
        QCOMPARE(b.best->point.index, best->index);
        QCOMPARE(b.best->objective, bestValue);
        QCOMPARE(b.boundViolations, std::size_t{0});
        if (options.objective == codesign::Objective::Runtime) {
            QVERIFY(b.ruledOutByBound + b.stoppedByBound > 0);
            QVERIFY(b.layerSearches < cd.withinArea().size() * w.layers.size());
        } else {
            QCOMPARE(b.designs.size(), cd.withinArea().size());
        }
    }

    void twoRungsScoreOnTheHeaviestLayerThenSearchTheBestWhole()
    {
        // Two layers, the second three times the first's work: the probe (30% of the roofline time) is the
        // second alone.
        workloads::Workload w = codesignWorkload(kCodesignConv1d);
        const std::string heavy = "operator heavy(X = 64, S = 9) {\n"
                                  "  for (x = 0; x < X; x++)\n"
                                  "    for (s = 0; s < S; s++)\n"
                                  "      O[x] += W[s] * I[x + s];\n"
                                  "}\n";
        w.layers.push_back(codesignWorkload(heavy).layers.front());
        const sweep::Grid grid(codesignBase(), codesignAxes({"pes=1:16:x2", "l1=24,32,384", "noc_bw=1,4"}));
        codesign::Options options;
        options.budget.areaMm2 = 0.0035;
        options.maxDesigns = 12;
        options.promote = 4;
        options.batch = 2;
        options.sweep.search.refine = false;
        const codesign::CoDesigner cd(grid, w, options);
        QCOMPARE(cd.probeLayers(), (std::vector<std::size_t>{1}));
        std::vector<std::string> streamed;
        const codesign::Result r
            = cd.run({}, [&](const codesign::Design& d) { streamed.push_back(sweep::formatRow(d.point)); });
        // Twelve designs scored on the probe (one failing there is complete at once: a layer fits no
        // mapping), then the four best searched whole.
        std::vector<codesign::Design> promoted;
        for (const codesign::Design& d : r.designs)
            if (d.phase == "promote") promoted.push_back(d);
        QCOMPARE(r.probes.size() + r.designs.size() - promoted.size(), std::size_t{12});
        QCOMPARE(promoted.size(), std::size_t{4});
        QCOMPARE(streamed.size(), r.probes.size() + r.designs.size());
        QCOMPARE(r.layerSearches, std::size_t{12 + 4});
        // The promoted designs are the four best on the probe, and their rows are the sweep's whole rows
        // (the probe layer's result reused).
        std::vector<const codesign::Design*> byProbe;
        for (const codesign::Design& d : r.probes)
            if (d.point.ok) byProbe.push_back(&d);
        std::sort(byProbe.begin(), byProbe.end(), [](const codesign::Design* a, const codesign::Design* b) {
            return a->objective != b->objective ? a->objective < b->objective
                                                : a->point.areaMm2 < b->point.areaMm2;
        });
        sweep::SweepOptions so;
        so.search.refine = false;
        const sweep::Sweeper sweeper(grid, w, so);
        for (std::size_t k = 0; k < promoted.size(); ++k) {
            QCOMPARE(promoted[k].point.index, byProbe[k]->point.index);
            QCOMPARE(sweep::formatRow(promoted[k].point),
                sweep::formatRow(*sweeper.evaluate(byProbe[k]->point.index, 1)));
        }
        QVERIFY(r.best);
        for (const codesign::Design& d : r.designs)
            QVERIFY(r.best->objective <= d.objective);
    }

    void stopsWhenAsked()
    {
        const sweep::Grid grid(codesignBase(), codesignAxes({"pes=1:8:x2", "l1=24,32,384"}));
        codesign::Options options;
        options.budget.areaMm2 = 1;
        const codesign::CoDesigner cd(grid, codesignWorkload(kCodesignConv1d), options);
        std::stop_source stop;
        stop.request_stop();
        const codesign::Result r = cd.run(stop.get_token());
        QVERIFY(r.cancelled);
        QVERIFY(r.designs.empty());
    }
};

QTEST_MAIN(TestCodesign)
#include "tst_codesign.moc"
