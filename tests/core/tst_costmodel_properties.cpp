// Property test of the cost model (issue 11): thousands of random valid mappings of random GEMMs and
// (strided, depth-wise) convolutions, each checked against invariants that hold for every mapping in
// Corrected fidelity: the MACs equal the operator's analytic count, the runtime is at least the
// roofline's compute bound, the energy at least the MACs' energy, and no figure is negative.
#include <algorithm>
#include <array>
#include <numeric>
#include <random>

#include <QTest>

#include "core/arch/accelerator.h"
#include "core/cost/costmodel.h"
#include "core/cost/problem.h"
#include "core/ir/parser.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/search/onchip_search.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"

using namespace marvel;

namespace {

std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi)
{
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

std::string randomOperator(std::mt19937_64& rng)
{
    switch (uniform(rng, 0, 2)) {
    case 0:
        return workloads::gemmLoopText(uniform(rng, 1, 64), uniform(rng, 1, 64), uniform(rng, 1, 64));
    case 1: {
        const std::int64_t r = uniform(rng, 1, 3), s = uniform(rng, 1, 3), stride = uniform(rng, 1, 2);
        return workloads::conv2dLoopText(uniform(rng, 1, 16), uniform(rng, 1, 8), uniform(rng, 1, 12),
            uniform(rng, 1, 12), r, s, stride, stride, uniform(rng, 1, 2));
    }
    default:
        return workloads::depthwiseLoopText(
            uniform(rng, 1, 16), uniform(rng, 1, 12), uniform(rng, 1, 12), 3, 3, uniform(rng, 1, 2), 1);
    }
}

std::vector<int> shuffled(std::size_t n, std::mt19937_64& rng)
{
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    return order;
}

/// A random mapping of `space`: each loop's level-3, level-2 and level-1 tiles drawn in turn by
/// `tile(bound)` (filter loops whole, MAESTRO's rule), then random level-2 and level-3 orders.
template <class Tile>
mapping::LoopNestMapping randomMapping(const search::LayerSpace& space, std::mt19937_64& rng, Tile&& tile)
{
    mapping::LoopNestMapping m;
    for (std::size_t i = 0; i < space.loops.size(); ++i) {
        mapping::MappedLoop l = space.loops[i];
        if (space.wholeLoops[i]) {
            l.level3 = l.level2 = l.level1 = l.extent;
        } else {
            l.level3 = tile(l.extent);
            l.level2 = tile(l.level3);
            l.level1 = tile(l.level2);
        }
        m.loops.push_back(l);
    }
    m.level2Order = shuffled(m.loops.size(), rng);
    m.level3Order = shuffled(m.loops.size(), rng);
    return m;
}

} // namespace

class TestCostModelProperties : public QObject
{
    Q_OBJECT

private slots:
    void randomMappingsKeepInvariants()
    {
        std::mt19937_64 rng(20261123);
        int checked = 0, operators = 0;
        for (int attempt = 0; checked < 3000 && attempt < 60000; ++attempt) {
            ++operators;
            const std::string text = randomOperator(rng);
            const ir::Operator op = ir::parseOperator(text, "random.loop");
            const auto nest = ir::perfectNest(op);
            QVERIFY(nest);
            const cost::Problem problem = cost::fromOperator(op);
            const search::LayerSpace space
                = search::makeLayerSpace(*nest, search::wholeDimensions(problem), op.name);

            arch::Accelerator acc;
            acc.numPes = uniform(rng, 1, 64);
            acc.nocBandwidth = uniform(rng, 1, 32);
            acc.simdLanes = uniform(rng, 1, 2);
            acc.l1Bytes = acc.l2Bytes = std::int64_t(1) << 30; // capacity is not what is checked here

            const mapping::LoopNestMapping m
                = randomMapping(space, rng, [&](std::int64_t bound) { return uniform(rng, 1, bound); });
            if (!mapping::validate(m, &acc).empty()) continue;
            mdc::Dataflow dataflow;
            try {
                dataflow = mapping::toMdc(m, acc);
            } catch (const InputError&) {
                continue; // more parallel loops than MAESTRO levels, or more PEs than the array has
            }
            cost::Evaluator evaluator(problem, acc, cost::Options{cost::Fidelity::Corrected, true});
            cost::Metrics metrics;
            if (!evaluator.evaluateMetrics(dataflow, metrics)) continue;
            ++checked;

            const std::string where = text + "\n" + mapping::printTiledLoopNest(m);
            const std::int64_t macs = problem.analyticMacs();
            QVERIFY2(metrics.macs == macs,
                qPrintable(QString("MACs %1, analytic %2\n").arg(metrics.macs).arg(macs)
                    + QString::fromStdString(where)));
            const std::int64_t peak = acc.numPes * acc.simdLanes;
            const std::int64_t computeBound = (macs + peak - 1) / peak;
            QVERIFY2(metrics.runtimeCycles >= computeBound,
                qPrintable(
                    QString("runtime %1 < compute bound %2\n").arg(metrics.runtimeCycles).arg(computeBound)
                    + QString::fromStdString(where)));
            // The search's energy bound (it prunes EDP tiles by it) holds in both fidelities for every
            // mapping the search accepts, that is one whose MACs are the operator's.
            acc.energy.l1Access = 0.5 * double(uniform(rng, 0, 4));
            acc.energy.l2Access = double(uniform(rng, 0, 30));
            acc.energy.dramAccess = double(uniform(rng, 0, 2) * 100);
            const double energyBound = search::energyLowerBound(space, acc);
            // Two input operands read, the partial sum read and written: four L1 accesses per MAC.
            QCOMPARE(energyBound, double(macs) * (acc.energy.mac + 4 * acc.energy.l1Access));
            for (const cost::Fidelity fidelity : {cost::Fidelity::Corrected, cost::Fidelity::Maestro}) {
                cost::Evaluator energyEvaluator(problem, acc, cost::Options{fidelity, true});
                cost::Metrics e;
                if (!energyEvaluator.evaluateMetrics(dataflow, e) || e.macs != macs) continue;
                QVERIFY2(e.totalEnergy() >= energyBound * (1 - 1e-12),
                    qPrintable(QString("energy %1 < bound %2\n").arg(e.totalEnergy()).arg(energyBound)
                        + QString::fromStdString(where)));
            }
            QVERIFY(metrics.l1SizeReq >= 0 && metrics.l2SizeReq >= 0 && metrics.peakBwReq >= 0);
            QVERIFY(metrics.avgUtilizedPes >= 0.0 && metrics.avgUtilizedPes <= double(acc.numPes) + 1e-9);
            for (int t = 0; t < metrics.numTensors; ++t) {
                const cost::TensorCounts& c = metrics.tensors[std::size_t(t)];
                QVERIFY2(c.l2Req >= 0 && c.l1Req >= 0 && c.l2Read >= 0 && c.l2Write >= 0 && c.l1Read >= 0
                        && c.l1Write >= 0,
                    qPrintable(QString::fromStdString(where)));
            }
        }
        qInfo("%d random mappings checked (%d random operators and mappings drawn)", checked, operators);
        QVERIFY2(checked >= 3000, qPrintable(QString::number(checked)));
    }

    /// cost::Evaluator::runtimeBound, which the search uses to refuse candidates before analysing them, is
    /// never above the runtime: random mappings whose tiles divide (where the bound is known), of GEMMs and
    /// convolutions large enough that the per-case tables rather than the step walk give the runtime, on
    /// NoCs that multicast elements, identical tiles or nothing.
    void runtimeBoundNeverAboveTheRuntime()
    {
        std::mt19937_64 rng(20261130);
        auto divisor = [&](std::int64_t n) {
            std::vector<std::int64_t> ds;
            for (std::int64_t d = 1; d <= n; ++d)
                if (n % d == 0) ds.push_back(d);
            return ds[std::size_t(uniform(rng, 0, std::int64_t(ds.size()) - 1))];
        };
        int checked = 0, bounded = 0, tight = 0;
        for (int attempt = 0; bounded < 300 && attempt < 40000; ++attempt) {
            // One draw per statement: the order in which a call's arguments are evaluated differs
            // between GCC and Clang, and both builds should check the same mappings.
            const bool gemm = uniform(rng, 0, 1) == 0;
            const std::int64_t a = std::int64_t(1) << uniform(rng, gemm ? 3 : 2, gemm ? 7 : 5);
            const std::int64_t b = std::int64_t(1) << uniform(rng, gemm ? 3 : 2, gemm ? 7 : 5);
            const std::int64_t c = std::int64_t(1) << uniform(rng, 3, gemm ? 7 : 5);
            const std::int64_t d = std::int64_t(1) << uniform(rng, 3, 5);
            const std::string text = gemm ? workloads::gemmLoopText(a, b, c)
                                          : workloads::conv2dLoopText(a, b, c, d, 3, 3, 1, 1, 1);
            const ir::Operator op = ir::parseOperator(text, "random.loop");
            const auto nest = ir::perfectNest(op);
            QVERIFY(nest);
            const cost::Problem problem = cost::fromOperator(op);
            const search::LayerSpace space
                = search::makeLayerSpace(*nest, search::wholeDimensions(problem), op.name);
            arch::Accelerator acc;
            acc.numPes = std::int64_t(1) << uniform(rng, 4, 8);
            acc.nocBandwidth = uniform(rng, 1, 64);
            acc.nocLatency = uniform(rng, 1, 3);
            acc.multicast = std::array{arch::Multicast::Elements, arch::Multicast::Tiles,
                arch::Multicast::None}[std::size_t(uniform(rng, 0, 2))];
            acc.l1Bytes = acc.l2Bytes = std::int64_t(1) << 30;
            const mapping::LoopNestMapping m = randomMapping(space, rng, divisor);
            if (!mapping::validate(m, &acc).empty()) continue;
            mdc::Dataflow dataflow;
            try {
                dataflow = mapping::toMdc(m, acc, mapping::StridedTiles::Outputs);
            } catch (const InputError&) {
                continue;
            }
            cost::Evaluator evaluator(problem, acc, cost::Options{cost::Fidelity::Corrected, true});
            std::vector<cost::Evaluator::DirectiveId> ids;
            for (const mdc::Directive& d : dataflow)
                ids.push_back({d.kind, d.size, d.offset,
                    d.kind == mdc::Directive::Kind::Cluster ? -1 : evaluator.dimId(d.dim)});
            const std::int64_t bound = evaluator.runtimeBound(ids);
            cost::Metrics metrics;
            if (!evaluator.evaluateMetrics(ids, metrics)) continue;
            ++checked;
            if (bound < 0) continue;
            ++bounded;
            tight += bound == metrics.runtimeCycles ? 1 : 0;
            QVERIFY2(metrics.runtimeCycles >= bound,
                qPrintable(QString("runtime %1 < bound %2\n").arg(metrics.runtimeCycles).arg(bound)
                    + QString::fromStdString(text + "\n" + mapping::printTiledLoopNest(m))));
        }
        qInfo(
            "%d random mappings, the bound known on %d, equal to the runtime on %d", checked, bounded, tight);
        QVERIFY2(bounded >= 300, qPrintable(QString::number(bounded)));
    }
};

QTEST_APPLESS_MAIN(TestCostModelProperties)
#include "tst_costmodel_properties.moc"
