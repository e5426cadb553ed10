// Buffer capacity as the cost model counts it (issue 7): every mapping the search returns or puts on
// its Pareto front needs no more L1 per PE and no more L2 than the accelerator has, measured by an
// independent full cost-model evaluation of the exported dataflow; shrinking a buffer changes the
// choice and never yields an overflow; nothing fitting is reported as not mappable with the smallest
// requirement found; the search's L1 footprint pruning never removes a mapping the cost model would fit.
#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using namespace marvel::search;

using marvel::testsupport::decoupledOptions;
using marvel::testsupport::sampleAccelerator;
namespace {

struct TestWorkload
{
    const char* name;
    std::string text;
};

std::vector<TestWorkload> testWorkloads()
{
    return {
        {"conv3x3", workloads::conv2dLoopText(16, 8, 8, 8, 3, 3, 1, 1)},
        {"alexnet-conv1-stride4", workloads::conv2dLoopText(96, 3, 55, 55, 11, 11, 4, 4)},
        {"depthwise5x5", workloads::depthwiseLoopText(96, 28, 28, 5, 5, 1, 1)},
        {"gemm", workloads::gemmLoopText(32, 48, 16)},
    };
}

/// Corrected fidelity walks small mappings step by step, so its rows cost far more than MAESTRO's:
/// the 3x3 convolution and the GEMM on P1 and on the small buffers (widened spaces) took 54 of the
/// file's 75 s in a release build. The capacity rule in corrected fidelity is still checked on
/// every workload and every accelerator: each workload on P2, the stride-4 and the depth-wise
/// convolutions also on P1 and on the small buffers.
bool correctedRowChecked(int workload, int accelerator)
{
    const std::string name = testWorkloads()[static_cast<std::size_t>(workload)].name;
    return accelerator == 1 || name == "alexnet-conv1-stride4" || name == "depthwise5x5";
}

/// 256 PEs with a 256-byte L1 and a 24 KiB L2: small enough that most first choices overflow.
arch::Accelerator smallBuffers()
{
    arch::Accelerator acc = sampleAccelerator("P2_edge.json");
    acc.name = "small buffers";
    acc.numPes = 256;
    acc.l1Bytes = 256;
    acc.l2Bytes = 24 * 1024;
    return acc;
}

struct Need
{
    std::int64_t l1Bytes = 0;
    std::int64_t l2Bytes = 0;
};

/// The requirement a fresh cost-model evaluation reports for the candidate's dataflow.
Need needOf(cost::Evaluator& evaluator, const Candidate& c, const arch::Accelerator& acc)
{
    const cost::Result result = evaluator.evaluate(c.dataflow);
    return {result.m.l1SizeReq * acc.bytesPerElement, result.m.l2SizeReq * acc.bytesPerElement};
}

Need needOf(const LayerSearchResult& r, const Candidate& c, const arch::Accelerator& acc, Fidelity f)
{
    cost::Evaluator evaluator(r.problem, acc, costOptions(f));
    return needOf(evaluator, c, acc);
}

/// Checks every returned and Pareto mapping of `r` against the capacities; the number checked, or -1
/// when one overflows or the search's record of its requirement is not the cost model's.
int checkFits(const LayerSearchResult& r, const arch::Accelerator& acc, Fidelity f)
{
    cost::Evaluator evaluator(r.problem, acc, costOptions(f));
    int checked = 0;
    std::vector<const Candidate*> all;
    for (const auto* best : {&r.result.bestRuntime, &r.result.bestEnergy, &r.result.bestEdp})
        if (*best) all.push_back(&**best);
    for (const Candidate& c : r.result.pareto)
        all.push_back(&c);
    for (const Candidate* c : all) {
        const Need need = needOf(evaluator, *c, acc);
        if (need.l1Bytes > acc.l1Bytes || need.l2Bytes > acc.l2Bytes) {
            qWarning("%s: L1 %lld / %lld, L2 %lld / %lld", acc.name.c_str(),
                static_cast<long long>(need.l1Bytes), static_cast<long long>(acc.l1Bytes),
                static_cast<long long>(need.l2Bytes), static_cast<long long>(acc.l2Bytes));
            return -1;
        }
        if (need.l1Bytes != c->metrics.l1Requirement * acc.bytesPerElement) return -1;
        ++checked;
    }
    return checked;
}

} // namespace

class TestSearchCapacity : public QObject
{
    Q_OBJECT
private slots:
    void everyMappingFits_data()
    {
        QTest::addColumn<int>("workload");
        QTest::addColumn<int>("accelerator");
        QTest::addColumn<int>("fidelity");
        const char* accelerators[] = {"P1", "P2", "small"};
        for (int w = 0; w < static_cast<int>(testWorkloads().size()); ++w)
            for (int a = 0; a < 3; ++a)
                for (int f = 0; f < 2; ++f) {
                    if (f == 1 && !correctedRowChecked(w, a)) continue;
                    QTest::addRow("%s/%s/%s", testWorkloads()[static_cast<std::size_t>(w)].name,
                        accelerators[a], f ? "corrected" : "maestro")
                        << w << a << f;
                }
    }
    void everyMappingFits()
    {
        QFETCH(int, workload);
        QFETCH(int, accelerator);
        QFETCH(int, fidelity);
        const arch::Accelerator acc = accelerator == 0 ? sampleAccelerator("P1_eyeriss.json")
            : accelerator == 1                         ? sampleAccelerator("P2_edge.json")
                                                       : smallBuffers();
        const ir::Operator op
            = ir::parseOperator(testWorkloads()[static_cast<std::size_t>(workload)].text, "capacity.loop");
        // Every objective in maestro fidelity; EDP only in corrected fidelity (keeps the sanitizer run
        // short), and under the sanitizers runtime only in maestro fidelity: the capacity check is one
        // code path whatever the objective, which the optimised build checks for each.
        const std::vector<Objective> objectives = fidelity ? std::vector<Objective>{Objective::Edp}
            : MARVEL_ADDRESS_SANITIZER
            ? std::vector<Objective>{Objective::Runtime}
            : std::vector<Objective>{Objective::Runtime, Objective::Energy, Objective::Edp};
        for (Objective objective : objectives) {
            SearchOptions options = decoupledOptions();
            options.objective = objective;
            options.fidelity = fidelity ? Fidelity::Corrected : Fidelity::Maestro;
            options.threads = 2;
            const LayerSearchResult r = searchLayer(op, acc, options);
            QVERIFY2(r.result.bestRuntime, "a mapping that fits exists for every workload here");
            QVERIFY(!r.result.notMappable());
            const int checked = checkFits(r, acc, options.fidelity);
            QVERIFY2(checked > 0, "a returned or Pareto mapping overflows a buffer");
        }
    }

    /// The mapping chosen with generous buffers needs more than a smaller L1 (or L2) holds; with that
    /// smaller buffer the search picks another mapping, which fits, and cannot run faster (the on-chip
    /// space under a smaller L1 is a subset of the larger one's).
    void shrinkingL1ChangesTheMapping()
    {
        const ir::Operator op
            = ir::parseOperator(workloads::conv2dLoopText(32, 32, 14, 14, 3, 3, 1, 1), "capacity.loop");
        arch::Accelerator big = sampleAccelerator("P2_edge.json");
        big.l1Bytes = 4096;
        SearchOptions options = decoupledOptions();
        options.threads = 2;
        const LayerSearchResult wide = searchLayer(op, big, options);
        QVERIFY(wide.result.bestRuntime);
        const std::int64_t wideNeed = needOf(wide, *wide.result.bestRuntime, big, options.fidelity).l1Bytes;
        std::int64_t previousRuntime = wide.result.bestRuntime->metrics.runtime;
        int changed = 0;
        for (std::int64_t l1 : {512, 256, 128, 64}) {
            arch::Accelerator small = big;
            small.l1Bytes = l1;
            const LayerSearchResult r = searchLayer(op, small, options);
            QVERIFY(r.result.bestRuntime);
            QVERIFY(checkFits(r, small, options.fidelity) > 0);
            QVERIFY(r.result.bestRuntime->metrics.runtime >= previousRuntime);
            previousRuntime = r.result.bestRuntime->metrics.runtime;
            if (wideNeed > l1) {
                QVERIFY(!(r.result.bestRuntime->dataflow == wide.result.bestRuntime->dataflow));
                ++changed;
            }
        }
        QVERIFY(changed >= 3);
    }

    void shrinkingL2ChangesTheMapping()
    {
        const ir::Operator op = ir::parseOperator(testWorkloads()[1].text, "capacity.loop");
        const arch::Accelerator base = sampleAccelerator("P2_edge.json");
        SearchOptions options = decoupledOptions();
        options.threads = 2;
        const LayerSearchResult wide = searchLayer(op, base, options);
        QVERIFY(wide.result.bestRuntime);
        const std::int64_t wideNeed = needOf(wide, *wide.result.bestRuntime, base, options.fidelity).l2Bytes;
        QVERIFY(wideNeed <= base.l2Bytes);
        for (std::int64_t l2 : {wideNeed / 2, wideNeed / 4, wideNeed / 8}) {
            arch::Accelerator small = base;
            small.l2Bytes = l2;
            const LayerSearchResult r = searchLayer(op, small, options);
            QVERIFY(r.result.bestRuntime);
            QVERIFY(checkFits(r, small, options.fidelity) > 0);
            QVERIFY(!(r.result.bestRuntime->dataflow == wide.result.bestRuntime->dataflow));
        }
    }

    /// Corrected fidelity reads a map on a strided window's output as that many output rows (FIX
    /// STRIDE), so a search in it writes the loop nest's tiles so: MobileNetV2's b7_dw (stride 2, 192
    /// channels of 14 x 14 outputs) on P1 costs the level-3 tile the nest shows. Its L2 requirement is
    /// twice the tile's distinct elements - C3 x ((Y3 - 1) x 2 + R) x ((X3 - 1) x 2 + S) inputs,
    /// C3 x R x S weights, C3 x Y3 x X3 outputs - which the off-chip solver budgets for; written in
    /// MAESTRO's positions (2 x (T - 1) + 1 rows) the cost model read 13 output columns for a tile of 7,
    /// needed 116 KB against P1's 108 and the layer was not mappable.
    void stridedTilesAreCostedAsTheLoopNestShows()
    {
        workloads::Workload net = workloads::loadWorkload("mobilenetv2");
        std::erase_if(net.layers, [](const workloads::WorkloadLayer& l) { return l.name != "b7_dw"; });
        QCOMPARE(net.layers.size(), std::size_t(1));
        const arch::Accelerator p1 = sampleAccelerator("P1_eyeriss.json");
        SearchOptions options = decoupledOptions();
        options.fidelity = Fidelity::Corrected;
        options.threads = 2;
        const LayerSearchResult r = searchLayer(net.layers[0].op, p1, options);
        QVERIFY(r.result.bestRuntime);
        const Candidate& best = *r.result.bestRuntime;
        QVERIFY(best.dataflow == mapping::toMdc(best.mapping, p1, mapping::StridedTiles::Outputs));
        std::map<std::string, std::int64_t> tile;
        for (const mapping::MappedLoop& l : best.mapping.loops)
            tile[l.dim] = l.level3;
        // The first level-3 tile is whole (every tile size divides its extent here).
        for (const mapping::MappedLoop& l : best.mapping.loops)
            QCOMPARE(l.extent % l.level3, std::int64_t(0));
        const std::int64_t c = tile["C"], y = tile["Y"], x = tile["X"], rr = tile["R"], ss = tile["S"];
        const std::int64_t distinct = c * ((y - 1) * 2 + rr) * ((x - 1) * 2 + ss) + c * rr * ss + c * y * x;
        QCOMPARE(best.metrics.l2Requirement, 2 * distinct);
        QVERIFY(best.metrics.l2Requirement * p1.bytesPerElement <= p1.l2Bytes);
        QCOMPARE(needOf(r, best, p1, Fidelity::Corrected).l2Bytes,
            best.metrics.l2Requirement * p1.bytesPerElement);
    }

    /// A stride-2 3x3 convolution in maestro fidelity: the distinct-block L2 footprint of the first
    /// off-chip choice is below the cost model's requirement of every mapping under it (MAESTRO's
    /// requirement of strided tiles); the search shrinks its L2 budget instead of returning an
    /// overflowing mapping or nothing.
    void offChipLeavesRoomForTheCostModel()
    {
        const ir::Operator op
            = ir::parseOperator(workloads::conv2dLoopText(32, 32, 28, 28, 3, 3, 2, 2), "capacity.loop");
        SearchOptions options = decoupledOptions();
        options.fidelity = Fidelity::Maestro;
        options.threads = 2;
        int retried = 0;
        for (std::int64_t l2 : {32768, 16384, 8192, 2048}) {
            arch::Accelerator acc = sampleAccelerator("P2_edge.json");
            acc.l2Bytes = l2;
            const LayerSearchResult r = searchLayer(op, acc, options);
            QVERIFY(r.result.bestRuntime);
            QVERIFY(checkFits(r, acc, options.fidelity) > 0);
            qInfo("L2 %lld bytes: %d off-chip choices tried, the best mapping needs %lld",
                static_cast<long long>(l2), r.result.stats.offChipAttempts,
                static_cast<long long>(r.result.bestRuntime->metrics.l2Requirement * acc.bytesPerElement));
            retried += r.result.stats.offChipAttempts > 1 ? 1 : 0;
        }
        QVERIFY2(retried >= 2, "the first off-chip choice leaves enough room for the cost model");
    }

    /// An off-chip attempt whose first mappings are all too big for the L2 gives up early
    /// (SearchOptions::offChipGiveUpAfter) and the next one takes a smaller tile: the same best mapping
    /// as searching each attempt's whole space, for fewer evaluations.
    void givingUpOnAnOffChipTileKeepsTheBest()
    {
        const ir::Operator op
            = ir::parseOperator(workloads::conv2dLoopText(32, 32, 28, 28, 3, 3, 2, 2), "capacity.loop");
        int gaveUp = 0;
        using Case = std::pair<search::Fidelity, std::int64_t>; // fidelity, L2 bytes
        std::vector<Case> cases;
        for (search::Fidelity fidelity : {search::Fidelity::Maestro, search::Fidelity::Corrected})
            for (std::int64_t l2 : {16384, 8192, 2048})
                cases.emplace_back(fidelity, l2);
        // The sanitizer build keeps the cases where an attempt gives up (the others take half its time).
        if (MARVEL_ADDRESS_SANITIZER)
            cases = {{search::Fidelity::Maestro, 16384}, {search::Fidelity::Maestro, 8192},
                {search::Fidelity::Corrected, 2048}};
        for (const auto& [fidelity, l2] : cases) {
            arch::Accelerator acc = sampleAccelerator("P2_edge.json");
            acc.l2Bytes = l2;
            SearchOptions whole = decoupledOptions();
            whole.threads = 2;
            whole.fidelity = fidelity;
            whole.offChipGiveUpAfter = 0;
            SearchOptions early = whole;
            early.offChipGiveUpAfter = 1024;
            const LayerSearchResult a = searchLayer(op, acc, whole);
            const LayerSearchResult b = searchLayer(op, acc, early);
            QVERIFY(a.result.bestRuntime && b.result.bestRuntime);
            qInfo("%s, L2 %lld: %d attempts, %llu mappings; giving up early: %d attempts, %llu mappings",
                search::toString(fidelity).c_str(), static_cast<long long>(l2),
                a.result.stats.offChipAttempts, static_cast<unsigned long long>(a.result.evaluated),
                b.result.stats.offChipAttempts, static_cast<unsigned long long>(b.result.evaluated));
            QCOMPARE(b.result.bestRuntime->metrics.runtime, a.result.bestRuntime->metrics.runtime);
            QCOMPARE(b.result.bestRuntime->metrics.energy, a.result.bestRuntime->metrics.energy);
            QVERIFY(b.result.evaluated <= a.result.evaluated);
            gaveUp += b.result.evaluated < a.result.evaluated ? 1 : 0;
        }
        QVERIFY2(gaveUp >= 3,
            "attempts did not give up early where they did (maestro 16 and 8 KiB, corrected 2 KiB)");
    }

    /// An L1 of 8 bytes holds no double-buffered mapping of a convolution: the search reports the
    /// layer as not mappable with the smallest requirement it found, which `--no-l1-check` then returns.
    void nothingFits()
    {
        const ir::Operator op = ir::parseOperator(testWorkloads()[0].text, "capacity.loop");
        arch::Accelerator acc = sampleAccelerator("P2_edge.json");
        acc.l1Bytes = 8;
        SearchOptions options = decoupledOptions();
        options.threads = 2;
        options.fidelity = Fidelity::Maestro; // its L1 requirement counts outputs in input rows (below)
        const LayerSearchResult r = searchLayer(op, acc, options);
        QVERIFY(!r.result.bestRuntime && !r.result.bestEnergy && !r.result.bestEdp);
        QVERIFY(r.result.pareto.empty());
        QVERIFY(r.result.notMappable());
        // The smallest mapping splits R over PEs and keeps the whole S = 3 in each PE (MAESTRO lets only
        // one of the filter loops be split, as the innermost parallel loop): weights 1x3, inputs 1x3 and,
        // counted in input rows (spec Q-BUF-1), outputs 1x3; two buffers each: 2 * (3 + 3 + 3) bytes.
        QCOMPARE(r.result.stats.minL1Bytes, 18);

        SearchOptions unchecked = options;
        unchecked.l1Capacity = false;
        const LayerSearchResult u = searchLayer(op, acc, unchecked);
        QVERIFY(u.result.bestRuntime);
        QVERIFY(u.result.bestRuntime->metrics.l1Requirement * acc.bytesPerElement > acc.l1Bytes);
        QCOMPARE(u.result.stats.overL1, std::uint64_t{0});
    }

    /// The enumeration skips level-1 tiles whose double-buffered footprint exceeds L1. That is only
    /// sound if the cost model never needs less: check it on mappings made from the searches' Pareto
    /// mappings by giving every loop each level-1 tile that divides its level-2 tile.
    void footprintPruningIsALowerBound()
    {
        int checked = 0;
        for (const TestWorkload& w : testWorkloads()) {
            const ir::Operator op = ir::parseOperator(w.text, "capacity.loop");
            // Under the sanitizers the small buffers only, where the pruning bites hardest (256-byte L1).
            std::vector<arch::Accelerator> accelerators{smallBuffers()};
            if (!MARVEL_ADDRESS_SANITIZER) accelerators.push_back(sampleAccelerator("P1_eyeriss.json"));
            for (const arch::Accelerator& acc : accelerators) {
                SearchOptions options = decoupledOptions();
                options.l1Capacity = false;
                options.threads = 2;
                const LayerSearchResult r = searchLayer(op, acc, options);
                cost::Evaluator evaluator(r.problem, acc);
                auto check = [&](const mapping::LoopNestMapping& m) {
                    cost::Metrics metrics;
                    mdc::Dataflow dataflow;
                    try {
                        dataflow = mapping::toMdc(m, acc);
                    } catch (const InputError&) {
                        return true; // more parallel regions than MAESTRO levels
                    }
                    if (!evaluator.evaluateMetrics(dataflow, metrics)) return true;
                    std::vector<std::int64_t> level1;
                    for (const mapping::MappedLoop& l : m.loops)
                        level1.push_back(l.level1);
                    ++checked;
                    return 2 * r.space.totalFootprint(level1) <= metrics.l1SizeReq;
                };
                for (const Candidate& c : r.result.pareto) {
                    const std::size_t n = c.mapping.loops.size();
                    for (std::size_t a = 0; a < n; ++a)
                        for (std::size_t b = a; b < n; ++b)
                            for (std::int64_t ta = 1; ta <= c.mapping.loops[a].level2; ++ta)
                                for (std::int64_t tb = 1; tb <= c.mapping.loops[b].level2; ++tb) {
                                    if (c.mapping.loops[a].level2 % ta || c.mapping.loops[b].level2 % tb)
                                        continue;
                                    mapping::LoopNestMapping m = c.mapping;
                                    m.loops[a].level1 = ta;
                                    m.loops[b].level1 = tb;
                                    QVERIFY2(check(m), w.name);
                                }
                }
            }
        }
        qInfo("%d mappings: double-buffered level-1 footprint <= the cost model's L1 requirement", checked);
        QVERIFY(checked > (MARVEL_ADDRESS_SANITIZER ? 500 : 1000));
    }
};

QTEST_APPLESS_MAIN(TestSearchCapacity)
#include "tst_search_capacity.moc"
