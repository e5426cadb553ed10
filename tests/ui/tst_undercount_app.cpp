// Impossible figures in the app (issue 22, point 3): the cost panel marks a Maestro figure below the
// compute bound (with why and the corrected runtime), the animation marks MAESTRO's figure beside the
// simulated one, and the model table says how many mappings a layer's search refused and marks a runtime
// below the roofline (maestro fidelity's off-chip formula) with why.
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"
#include "tests/ui/ui_samples.h"
#include "tests/unguarded_evaluator.h"
#include "ui/animation/animation_panel.h"
#include "ui/animation/simulation_controller.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/search/result_basis.h"

using namespace marvel;
using namespace marvel::ui;

using uitest::kSamples;
namespace {

// A small layer whose tiles need not divide, on 12 PEs with K and C parallel (as in tst_undercount):
// its search refuses the mappings MAESTRO reports below the compute bound.
const char* kUndercountConv = R"(operator conv(K = 23, C = 12, Y = 10, X = 5, R = 2, S = 2) {
  for (k = 0; k < K; k++)
    for (c = 0; c < C; c++)
      for (y = 0; y < Y; y++)
        for (x = 0; x < X; x++)
          for (r = 0; r < R; r++)
            for (s = 0; s < S; s++)
              O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s];
})";

arch::Accelerator twelvePes()
{
    arch::Accelerator acc = arch::loadAccelerator(kSamples + "/accelerators/classroom_8pe.json");
    acc.numPes = 12;
    acc.l1Bytes = 93;
    acc.l2Bytes = 4650;
    return acc;
}

search::SearchOptions options()
{
    search::SearchOptions o;
    o.fidelity = search::Fidelity::Maestro; // the undercounts are MAESTRO's
    o.threads = 2;
    o.divisorsOnly = false;
    o.everyTileSize = true;
    o.constraint.parallelAllowed = {true, true, false, false, false, false};
    return o;
}

} // namespace

class TestUndercountApp : public QObject
{
    Q_OBJECT

private slots:
    void costPanelAndModelTableMarkIt()
    {
        const ir::Operator op = ir::parseOperator(kUndercountConv, "conv.loop");
        const arch::Accelerator acc = twelvePes();
        const auto guarded
            = std::make_shared<search::LayerSearchResult>(search::searchLayer(op, acc, options()));
        QVERIFY(guarded->result.bestRuntime);
        const search::SearchResult plain = search::searchOnChip(guarded->space, guarded->offChip, acc,
            options(), [&]() -> std::unique_ptr<search::MappingEvaluator> {
                return std::make_unique<marvel::testing::UnguardedCostEvaluator>(guarded->problem, acc);
            });
        QVERIFY(plain.bestRuntime);

        // The mapping MAESTRO undercounts: 4556 cycles, below the bound of 4600 on 12 PEs.
        MappingView view;
        view.setMapping(
            *plain.bestRuntime, guarded->problem, guarded->space.body, acc, search::Fidelity::Maestro, 0);
        QVERIFY(view.result());
        QCOMPARE(view.result()->m.runtimeCycles, std::int64_t(4556));
        const QString text = view.metricsText();
        QVERIFY2(text.contains(QStringLiteral("maestro-undercount")), qPrintable(text));
        QVERIFY2(text.contains(QLocale().toString(4600)), qPrintable(text)); // the bound
        QVERIFY2(text.contains(QLocale().toString(5568)), qPrintable(text)); // the corrected runtime
        // The tooltip says it in full.
        bool tipped = false;
        for (const QLabel* label : view.findChildren<QLabel*>())
            tipped = tipped
                || (label->text() == text
                    && label->toolTip().contains(QStringLiteral("corrected fidelity: 5568 cycles")));
        QVERIFY(tipped);

        // The search's own best carries no mark; in corrected fidelity neither does the undercounted one.
        view.setMapping(*guarded->result.bestRuntime, guarded->problem, guarded->space.body, acc,
            search::Fidelity::Maestro, 0);
        QVERIFY(!view.metricsText().contains(QStringLiteral("undercount")));
        view.setMapping(
            *plain.bestRuntime, guarded->problem, guarded->space.body, acc, search::Fidelity::Corrected, 0);
        QCOMPARE(view.result()->m.runtimeCycles, std::int64_t(5568));
        QVERIFY(!view.metricsText().contains(QStringLiteral("undercount")));

        // The model table's status says how many mappings the layer's search refused.
        workloads::WorkloadLayer layer;
        layer.name = "conv";
        layer.op = op;
        ModelTableModel model;
        model.setWorkload(workloads::Workload{"one", {layer}});
        model.setCurrent(acc, options());
        model.setLayerStatus(0, QStringLiteral("searched"));
        model.setLayerResult(0, guarded, ResultBasis{workloadKey(op), acc, options()});
        const QString tip = model.data(model.index(0, ModelTableModel::Status), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("maestro-undercount"))
                && tip.contains(QString::number(guarded->result.stats.impossibleFigures)),
            qPrintable(tip));
    }

    /// A runtime below the roofline is marked in the model table and its tooltip says why (maestro
    /// fidelity's off-chip formula on MobileNetV2's b1_dw on Edge 1024 with DRAM: 0.519 of the roofline).
    void modelTableMarksRuntimesBelowTheRoofline()
    {
        workloads::Workload net = workloads::loadWorkload("mobilenetv2");
        std::erase_if(net.layers, [](const workloads::WorkloadLayer& l) { return l.name != "b1_dw"; });
        QCOMPARE(net.layers.size(), std::size_t(1));
        const ir::Operator op = net.layers[0].op;
        const arch::Accelerator acc = arch::loadAccelerator(kSamples + "/accelerators/edge1024_dram.json");
        search::SearchOptions o;
        o.fidelity = search::Fidelity::Maestro;
        o.threads = 2;
        o.refine = false;
        const auto result = std::make_shared<search::LayerSearchResult>(search::searchLayer(op, acc, o));
        ModelTableModel model;
        model.setWorkload(std::move(net));
        model.setCurrent(acc, o);
        model.setLayerResult(0, result, ResultBasis{workloadKey(op), acc, o});
        const QModelIndex cell = model.index(0, ModelTableModel::OverRoofline);
        QCOMPARE(model.data(cell, Qt::DisplayRole).toString(), QStringLiteral("0.519 !"));
        QVERIFY2(
            model.data(cell, Qt::ToolTipRole)
                .toString()
                .startsWith(QStringLiteral("Runtime below the roofline's off-chip bound (12775 cycles)")),
            qPrintable(model.data(cell, Qt::ToolTipRole).toString()));
        QCOMPARE(model.layersBelowRoofline(), 1); // the totals line counts them
        // In corrected fidelity the same layer stays at or above its roofline (1.007 here), unmarked.
        o.fidelity = search::Fidelity::Corrected;
        const auto corrected = std::make_shared<search::LayerSearchResult>(search::searchLayer(op, acc, o));
        model.setCurrent(acc, o);
        model.setLayerResult(0, corrected, ResultBasis{workloadKey(op), acc, o});
        const QString ratio = model.data(cell, Qt::DisplayRole).toString();
        QVERIFY2(!ratio.endsWith(QLatin1Char('!')) && ratio.toDouble() >= 1.0, qPrintable(ratio));
        QVERIFY(model.data(cell, Qt::ToolTipRole).toString().isEmpty());
        QCOMPARE(model.layersBelowRoofline(), 0);
    }

    void animationMarksMaestrosFigure()
    {
        // The sample MAESTRO undercounts, on P2: the simulation runs 12,417 cycles, corrected fidelity
        // agrees, MAESTRO's 7,899 cycles are marked.
        const std::string file = kSamples + "/mappings/maestro_undercount.m";
        const mdc::Layer layer = mdc::readMaestroMappingFile(file).layers.at(0);
        SimulationRequest request{QStringLiteral("undercount"), cost::fromMaestroLayer(layer), layer.dataflow,
            arch::loadAccelerator(kSamples + "/accelerators/P2_edge.json")};
        AnimationPanel panel;
        panel.show();
        QSignalSpy ready(&panel, &AnimationPanel::ready);
        panel.setMapping(request);
        QVERIFY(ready.wait(60000));
        const SimulationSummary* s = panel.summary();
        QCOMPARE(s->totals.runtimeCycles, std::int64_t(12417));
        QCOMPARE(s->correctedCycles, std::int64_t(12417));
        QCOMPARE(s->maestroCycles, std::int64_t(7899));
        QVERIFY(s->maestroUndercount.startsWith(QStringLiteral("maestro-undercount: ")));
        QVERIFY(panel.totalsLabel()->text().contains(QStringLiteral("maestro-undercount")));
        QVERIFY(panel.totalsLabel()->toolTip().contains(QStringLiteral("12417 cycles")));
    }
};

QTEST_MAIN(TestUndercountApp)
#include "tst_undercount_app.moc"
