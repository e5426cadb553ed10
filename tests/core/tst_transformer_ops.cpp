#include <QDir>
#include <QTest>

#include "core/arch/accelerator.h"
#include "core/conform/conformability.h"
#include "core/cost/problem.h"
#include "core/export/timeloop.h"
#include "core/search/search.h"
#include "core/workloads/transformer.h"

using namespace marvel;
using workloads::LayerKind;

namespace {

std::int64_t sum(const std::vector<workloads::WorkloadLayer>& layers)
{
    std::int64_t n = 0;
    for (const auto& l : layers)
        n += workloads::elementOps(l) * l.repeat;
    return n;
}

} // namespace

class TestTransformerOps : public QObject
{
    Q_OBJECT

private slots:
    // Element operations per element, counted by hand from the statements (core/workloads/transformer.h):
    // softmax max 1 + (sub, exp) 2 + sum 1 + div 1; LayerNorm sum 1, sumsq (mul, add) 2, normalize (mul, sub,
    // mul, mul, add) 5 and per row rstd (mul, mul, mul, sub, add, rsqrt) 6; RMSNorm sumsq 2, normalize 2, per
    // row (mul, add, rsqrt) 3; GELU x*0.5*(1+erf(x*c)) 5.
    void elementOperations()
    {
        const std::int64_t R = 6, C = 10;
        QCOMPARE(sum(workloads::softmaxLayers("sm", R, C)), 5 * R * C);
        QCOMPARE(sum(workloads::layerNormLayers("ln", R, C)), 8 * R * C + 6 * R);
        QCOMPARE(sum(workloads::rmsNormLayers("rms", R, C)), 4 * R * C + 3 * R);
        QCOMPARE(workloads::elementOps(workloads::geluLayer("g", R, C)), 5 * R * C);
        QCOMPARE(workloads::elementOps(workloads::siluLayer("s", R, C)), 2 * R * C);
        QCOMPARE(workloads::elementOps(workloads::swigluGateLayer("sw", R, C)), 3 * R * C);
        QCOMPARE(workloads::elementOps(workloads::reluLayer("r", R, C)), R * C);
        QCOMPARE(workloads::elementOps(workloads::addLayer("a", R, C)), R * C);
        QCOMPARE(workloads::elementOps(workloads::mulLayer("m", R, C)), R * C);
        // A multiply-accumulate is two operations: 2 M N K per matrix, the batch as the repeat.
        const auto qk = workloads::attentionLayer("qk", 16, 16, 8, 12);
        QCOMPARE(workloads::elementOps(qk), 2 * 16 * 16 * 8);
        QCOMPARE(qk.repeat, 12);
    }

    void kindsAndNames()
    {
        const auto sm = workloads::softmaxLayers("h0.attn.softmax", 4, 8);
        QCOMPARE(sm.size(), std::size_t(4));
        QCOMPARE(sm[0].name, std::string("h0.attn.softmax.max"));
        QCOMPARE(sm[3].name, std::string("h0.attn.softmax.div"));
        for (const auto& l : sm) {
            QCOMPARE(l.effectiveKind(), LayerKind::Softmax);
            QVERIFY(l.maestro.type.empty());
        }
        const auto qk = workloads::attentionLayer("qk", 16, 16, 8, 12);
        QCOMPARE(qk.effectiveKind(), LayerKind::Attention);
        QCOMPARE(qk.maestro.type, std::string("GEMM"));
        QVERIFY(workloads::isMatrixProduct(LayerKind::Attention));
        QVERIFY(!workloads::isMatrixProduct(LayerKind::Softmax));
        QCOMPARE(std::string(workloads::toString(workloads::layerNormLayers("ln", 2, 4)[0].effectiveKind())),
            std::string("norm"));
        QCOMPARE(std::string(workloads::toString(workloads::geluLayer("g", 2, 4).effectiveKind())),
            std::string("activation"));
        QCOMPARE(std::string(workloads::toString(workloads::addLayer("a", 2, 4).effectiveKind())),
            std::string("elementwise"));
        // An attention product never merges with a weight GEMM of the same shape.
        auto merged = workloads::mergeRepeats(
            {workloads::gemmLayer("proj", 16, 16, 8), workloads::attentionLayer("qk", 16, 16, 8, 2)});
        QCOMPARE(merged.size(), std::size_t(2));
    }

    // Every layer is conformable and the search maps it: each statement instance is one PE-cycle of work,
    // so a layer of E instances takes at least ceil(E / PEs) cycles and counts E instances.
    void everyLayerSearches()
    {
        std::vector<workloads::WorkloadLayer> layers = workloads::softmaxLayers("sm", 8, 16);
        for (auto& l : workloads::layerNormLayers("ln", 8, 16))
            layers.push_back(std::move(l));
        for (auto& l : workloads::rmsNormLayers("rms", 8, 16))
            layers.push_back(std::move(l));
        layers.push_back(workloads::geluLayer("gelu", 8, 16));
        layers.push_back(workloads::swigluGateLayer("gate", 8, 16));
        layers.push_back(workloads::addLayer("add", 8, 16));
        layers.push_back(workloads::attentionLayer("qk", 8, 8, 4, 2));
        arch::Accelerator acc;
        acc.numPes = 16;
        acc.l1Bytes = 64;
        acc.l2Bytes = 16384;
        acc.nocBandwidth = 16;
        acc.offchipBandwidth = 16;
        search::SearchOptions options;
        options.refine = false; // the refinement cannot change whether a layer maps, only how well
        for (const auto& l : layers) {
            const conform::Report report = conform::checkConformability(l.op);
            QVERIFY2(report.conformable, l.name.c_str());
            const search::LayerSearchResult r = search::searchLayer(l.op, acc, options);
            QVERIFY2(r.result.bestRuntime.has_value(), l.name.c_str());
            const std::int64_t instances = workloads::operatorMacs(l.op);
            QCOMPARE(r.result.bestRuntime->metrics.macs, instances);
            QVERIFY2(r.result.bestRuntime->metrics.runtime >= (instances + acc.numPes - 1) / acc.numPes,
                l.name.c_str());
        }
    }

    // A MAESTRO mapping file holds the matrix products (the attention product as one GEMM of its batch, with
    // a note) and names the operators MAESTRO has no layer type for; with only those, there is nothing to
    // write and it says why.
    void maestroExportLeavesOutWhatItCannotExpress()
    {
        arch::Accelerator acc;
        acc.numPes = 16;
        acc.l2Bytes = 16384;
        search::SearchOptions options;
        options.refine = false;
        const auto qk = workloads::attentionLayer("qk", 8, 8, 4, 6);
        const auto div = workloads::softmaxLayers("sm", 8, 8)[3];
        const search::LayerSearchResult a = search::searchLayer(qk.op, acc, options);
        const search::LayerSearchResult b = search::searchLayer(div.op, acc, options);
        QVERIFY(a.result.bestRuntime && b.result.bestRuntime);
        const std::string text = cost::maestroMappingFile("t",
            {{"qk", &a.problem, &a.result.bestRuntime->dataflow, "one matrix of 6"},
                {"sm.div", &b.problem, &b.result.bestRuntime->dataflow}},
            "t.m");
        QVERIFY(
            text.starts_with("// qk: one matrix of 6\n// Not in this file (not matrix products; no MAESTRO "
                             "layer type expresses them): sm.div.\n"));
        QVERIFY(text.find("Type: GEMM") != std::string::npos);
        QVERIFY(text.find("sm.div {") == std::string::npos);
        // Timeloop's files would misdescribe a division by a row sum: refused, the report says why.
        const auto reports = timeloop::exportLayers({{"sm.div", &b.problem, &b.result.bestRuntime->dataflow}},
            acc, QDir::tempPath().toStdString(), {});
        QCOMPARE(QString::fromStdString(reports.at(0).message),
            QStringLiteral(
                "not exported: not a matrix product (Timeloop's problem is a product of two tensors "
                "accumulated)"));
        try {
            cost::maestroMappingFile("t", {{"sm.div", &b.problem, &b.result.bestRuntime->dataflow}}, "t.m");
            QFAIL("a file of no layer was written");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.diagnostics()[0].format()),
                QStringLiteral(
                    "t.m: no layer to export: sm.div is not a matrix product, which MAESTRO's layer "
                    "types (CONV, DSCONV, GEMM) cannot express"));
        }
    }
};

QTEST_APPLESS_MAIN(TestTransformerOps)
#include "tst_transformer_ops.moc"
