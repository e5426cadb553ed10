// The vector unit (arch::VectorUnit): the operators that are not matrix products run on its lanes, the
// matrix products stay on the PE array; the search, the roofline and the cost model agree on where.

#include <QTest>

#include "core/arch/accelerator.h"
#include "core/arch/accelerator_io.h"
#include "core/cost/problem.h"
#include "core/search/roofline.h"
#include "core/search/search.h"
#include "core/tech/technology.h"
#include "core/util/diagnostic.h"
#include "core/workloads/transformer.h"

using namespace marvel;

namespace {

arch::Accelerator array16()
{
    arch::Accelerator acc;
    acc.numPes = 16;
    acc.l1Bytes = 64;
    acc.l2Bytes = 65536;
    acc.nocBandwidth = 1024;
    acc.offchipBandwidth = 1024;
    return acc;
}

arch::Accelerator withVectorUnit(std::int64_t lanes)
{
    arch::Accelerator acc = array16();
    acc.vectorUnit.lanes = lanes;
    acc.energy.vectorOp = 0.5;
    return acc;
}

search::Metrics best(const workloads::WorkloadLayer& layer, const arch::Accelerator& acc)
{
    search::SearchOptions options;
    options.refine = false;
    const search::LayerSearchResult r = search::searchLayer(layer.op, acc, options);
    if (!r.result.bestRuntime) throw std::runtime_error("no mapping for " + layer.name);
    return r.result.bestRuntime->metrics;
}

std::int64_t computeBound(const workloads::WorkloadLayer& layer, const arch::Accelerator& acc)
{
    return search::roofline(*ir::perfectNest(layer.op), layer.op.sizes, acc).computeCycles;
}

} // namespace

class TestVectorUnit : public QObject
{
    Q_OBJECT

private slots:
    // Where each operator runs, by hand: a 64 x 64 ReLU is 4,096 instances of one operation; on 16 PEs that
    // is 256 cycles at least, on 64 lanes of one operation per cycle 64. Softmax's exponent takes two
    // operations an element (a subtraction and the exp): 32 lane pairs, 128 cycles. A GEMM stays on the PEs.
    void computeBoundsByHand()
    {
        const auto relu = workloads::reluLayer("relu", 64, 64);
        const auto exp = workloads::softmaxLayers("sm", 64, 64)[1];
        const auto gemm = workloads::gemmLayer("fc", 16, 16, 16);
        QCOMPARE(computeBound(relu, array16()), std::int64_t(256));
        QCOMPARE(computeBound(relu, withVectorUnit(64)), std::int64_t(64));
        QCOMPARE(computeBound(exp, withVectorUnit(64)), std::int64_t(128));
        arch::Accelerator wide = withVectorUnit(64);
        wide.vectorUnit.opsPerCycle = 2; // each lane finishes a two-operation element per cycle
        QCOMPARE(computeBound(exp, wide), std::int64_t(64));
        QCOMPARE(computeBound(gemm, withVectorUnit(64)), std::int64_t(4096 / 16));
    }

    // The search maps the ReLU over the lanes (at the bound but for the pipeline's fill, far below what the
    // 16 PEs can do); its compute energy is the element
    // operations at the vector unit's energy (4,096 x 1 x 0.5), not the MAC's; a GEMM's figures are the
    // same whether the accelerator has a vector unit or not.
    void searchRunsOnTheUnit()
    {
        const auto relu = workloads::reluLayer("relu", 64, 64);
        const search::Metrics onLanes = best(relu, withVectorUnit(64));
        QVERIFY(onLanes.runtime >= 64 && onLanes.runtime < 128);
        QCOMPARE(onLanes.macEnergy, 4096 * 1 * 0.5);
        const search::Metrics onPes = best(relu, array16());
        QVERIFY(onPes.runtime >= 256);
        QCOMPARE(onPes.macEnergy, 4096 * 1.0);
        const auto exp = workloads::softmaxLayers("sm", 64, 64)[1];
        QCOMPARE(best(exp, withVectorUnit(64)).macEnergy, 4096 * 2 * 0.5);
        const auto gemm = workloads::gemmLayer("fc", 16, 16, 16);
        const search::Metrics a = best(gemm, array16()), b = best(gemm, withVectorUnit(64));
        QCOMPARE(b.runtime, a.runtime);
        QCOMPARE(b.energy, a.energy);
    }

    void viewOfTheUnit()
    {
        arch::Accelerator acc = withVectorUnit(64);
        acc.vectorUnit.registerBytes = 32;
        const arch::Accelerator view = arch::vectorUnitView(acc, 4); // 16 groups of 4 lanes
        QCOMPARE(view.numPes, std::int64_t(16));
        QCOMPARE(view.l1Bytes, std::int64_t(4 * 32));
        QCOMPARE(view.energy.mac, 4 * 0.5);
        QCOMPARE(view.vectorUnit.lanes, std::int64_t(0));
        QCOMPARE(view.l2Bytes, acc.l2Bytes);
        // More operations than the lanes do in a cycle: one unit, still a valid accelerator.
        QCOMPARE(arch::vectorUnitView(withVectorUnit(2), 5).numPes, std::int64_t(1));
    }

    void jsonRoundTripAndErrors()
    {
        arch::Accelerator acc = withVectorUnit(128);
        acc.vectorUnit.opsPerCycle = 2;
        acc.vectorUnit.registerBytes = 256;
        const arch::Accelerator back = arch::readAcceleratorJson(arch::writeAcceleratorJson(acc), "v.json");
        QCOMPARE(back.vectorUnit, acc.vectorUnit);
        QCOMPARE(back.energy.vectorOp, 0.5);
        // Without a vector unit the file has no such field (older files read back as they were).
        QVERIFY(arch::writeAcceleratorJson(array16()).find("vector_unit") == std::string::npos);
        auto error = [](const std::string& text) {
            try {
                arch::Accelerator a = arch::readAcceleratorJson(text, "v.json");
                return formatDiagnostics(arch::validate(a));
            } catch (const InputError& e) {
                return formatDiagnostics(e.diagnostics());
            }
        };
        const std::string head = R"({"num_pes": 4, "noc_bandwidth_elements_per_cycle": 1, "vector_unit": )";
        QCOMPARE(QString::fromStdString(error(head + R"({"ops_per_cycle": 2}})")),
            QStringLiteral("v.json: vector_unit.lanes: missing required field\n"));
        QCOMPARE(QString::fromStdString(error(head + R"({"lanes": 8, "width": 2}})")),
            QStringLiteral("v.json: vector_unit.width: unknown field\n"));
        QVERIFY(error(head + R"({"lanes": -1}})").find("vector_unit.lanes") != std::string::npos);
        QVERIFY(error(head + R"({"lanes": 8, "ops_per_cycle": 0}})").find("vector_unit.ops_per_cycle")
            != std::string::npos);
    }

    // A technology table prices the lanes: the 45 nm table's element operation and lane area are its
    // 16-bit MAC's (0.315 pJ, 993 um^2), so 64 lanes add 63,552 um^2.
    void technologyPricesTheLanes()
    {
        auto table = tech::loadTechnology(std::string(MARVEL_SAMPLES_DIR) + "/technology/45nm.json");
        arch::Accelerator acc = array16();
        acc.bytesPerElement = 2;
        const tech::Resolved without = tech::resolve(*table, acc);
        acc.vectorUnit.lanes = 64;
        const tech::Resolved with = tech::resolve(*table, acc);
        QCOMPARE(with.energy.vectorOp, 0.315);
        QVERIFY(std::abs(with.areaUm2 - without.areaUm2 - 64 * 993.0) < 1e-6);
    }
};

QTEST_APPLESS_MAIN(TestVectorUnit)
#include "tst_vector_unit.moc"
