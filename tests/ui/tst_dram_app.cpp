// DRAM in the app (issue 21, point 7): the cost panel's energy parts (MAC, L1, L2, DRAM) and per-tensor DRAM
// traffic are core's figures for the same mapping and add up to the total the search ranks; the accelerator
// panel's DRAM access energy reaches the accelerator and a saved preset; the sweep colours cells by core's
// DRAM energy and traffic of each design point.
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <qcustomplot.h>

#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/search.h"
#include "core/sweep/sweep.h"
#include "core/tech/technology.h"
#include "core/workloads/workloads.h"
#include "tests/ui/ui_samples.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_panel.h"

using namespace marvel;
using namespace marvel::ui;

using uitest::kSamples;
namespace {

/// P2 with a memory system: 200 MAC energies per DRAM element, 64 elements per cycle off chip.
arch::Accelerator edgeWithDram()
{
    arch::Accelerator acc = arch::loadAccelerator(kSamples + "/accelerators/P2_edge.json");
    acc.energy.dramAccess = 200.0;
    acc.offchipBandwidth = 64;
    return acc;
}

search::SearchOptions fastOptions()
{
    search::SearchOptions o;
    o.threads = 2;
    o.refine = false;
    o.fidelity = search::Fidelity::Corrected;
    return o;
}

/// The plot's Pareto front as (runtime, energy) pairs.
std::vector<std::pair<double, double>> plottedFront(MainWindow& w)
{
    std::vector<std::pair<double, double>> out;
    QCustomPlot* plot = w.paretoPlot()->findChild<QCustomPlot*>();
    for (int g = 0; plot && g < plot->graphCount(); ++g)
        if (plot->graph(g)->name() == QStringLiteral("Pareto front"))
            for (int i = 0; i < plot->graph(g)->dataCount(); ++i)
                out.emplace_back(plot->graph(g)->data()->at(i)->key, plot->graph(g)->data()->at(i)->value);
    return out;
}

/// Core's front for the window's operator, accelerator and options.
std::vector<std::pair<double, double>> coreFront(MainWindow& w, const ir::Operator& op)
{
    const search::LayerSearchResult r
        = search::searchLayer(op, w.acceleratorPanel()->accelerator(), w.searchPanel()->options());
    std::vector<std::pair<double, double>> out;
    for (const search::Candidate& c : r.result.pareto)
        out.emplace_back(double(c.metrics.runtime), c.metrics.energy);
    return out;
}

} // namespace

class TestDramApp : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void costPanelShowsCoresEnergyPartsAndDramTraffic()
    {
        const arch::Accelerator acc = edgeWithDram();
        const workloads::WorkloadLayer layer = workloads::gemmLayer("g", 256, 128, 512);
        const search::LayerSearchResult found = search::searchLayer(layer.op, acc, fastOptions());
        QVERIFY(found.result.bestEnergy);
        const search::Candidate& best = *found.result.bestEnergy;

        MappingView view;
        view.setMapping(best, found.problem, found.space.body, acc, search::Fidelity::Corrected, 0);
        QVERIFY(view.result());
        const cost::Metrics& shown = view.result()->m;

        // Core's figures for the same mapping, evaluated on their own.
        cost::Options options;
        options.fidelity = cost::Fidelity::Corrected;
        cost::Evaluator evaluator(found.problem, acc, options);
        const cost::Result core = evaluator.evaluate(best.dataflow);
        QCOMPARE(shown.macEnergy, core.m.macEnergy);
        QCOMPARE(shown.l1Energy, core.m.l1Energy);
        QCOMPARE(shown.l2Energy, core.m.l2Energy);
        QCOMPARE(shown.dramEnergy, core.m.dramEnergy);
        QCOMPARE(shown.totalEnergy(), core.m.totalEnergy());
        // The DRAM part is charged (the layer does not fit L2 whole), and is 200 per element moved.
        QVERIFY(core.m.dramReads() >= 256 * 512 + 512 * 128); // at least the compulsory reads of A and B
        QCOMPARE(core.m.dramEnergy, 200.0 * double(core.m.dramReads() + core.m.dramWrites()));
        // The parts add up to the total, which is what the search ranked the mapping by.
        const double parts = core.m.macEnergy + core.m.l1Energy + core.m.l2Energy + core.m.dramEnergy;
        QVERIFY(qAbs(parts - core.m.totalEnergy()) <= 1e-9 * core.m.totalEnergy());
        QCOMPARE(best.metrics.energy, core.m.totalEnergy());
        QCOMPARE(best.metrics.dramEnergy, core.m.dramEnergy);

        // The panel prints the total and each part as computed, and every tensor's DRAM traffic.
        const QString text = view.metricsText();
        QVERIFY2(text.contains(QStringLiteral("%1 MAC units").arg(core.m.totalEnergy(), 0, 'g', 6)),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("%1 / %2 / %3 / %4 / %5")
                                   .arg(core.m.macEnergy, 0, 'g', 4)
                                   .arg(core.m.l1Energy, 0, 'g', 4)
                                   .arg(core.m.l2Energy, 0, 'g', 4)
                                   .arg(core.m.nocEnergy, 0, 'g', 4)
                                   .arg(core.m.dramEnergy, 0, 'g', 4)),
            qPrintable(text));
        QCOMPARE(core.tensorNames.size(), std::size_t(3));
        for (int t = 0; t < core.m.numTensors; ++t) {
            const cost::TensorCounts& tc = core.m.tensors[std::size_t(t)];
            const QString row
                = QStringLiteral("<tr><td>%1</td><td align=right>%L2</td><td align=right>%L3</td>"
                                 "<td align=right>%L4</td><td align=right>%L5</td></tr>")
                      .arg(QString::fromStdString(core.tensorNames[std::size_t(t)]))
                      .arg(tc.dramRead)
                      .arg(tc.dramWrite)
                      .arg(tc.dramReadBytes)
                      .arg(tc.dramWriteBytes);
            QVERIFY2(text.contains(row), qPrintable(row));
        }
        // Only the output is written back; the bytes are whole 64-byte blocks.
        QCOMPARE(core.m.tensors[0].dramWrite + core.m.tensors[1].dramWrite, std::int64_t(0));
        QVERIFY(core.m.tensors[2].dramWrite >= 256 * 128);
        QCOMPARE(core.m.dramReadBytes() % 64, std::int64_t(0));
    }

    void dramEnergyFieldRoundTrips()
    {
        AcceleratorPanel panel;
        auto* field = qobject_cast<QDoubleSpinBox*>(panel.field(QStringLiteral("energy.dram_access")));
        QVERIFY(field);
        arch::Accelerator acc = edgeWithDram();
        panel.setAccelerator(acc);
        QCOMPARE(field->value(), 200.0);
        QCOMPARE(panel.accelerator().energy.dramAccess, 200.0);

        // An edit reaches the accelerator the window searches, after the typing pause.
        QSignalSpy changed(&panel, &AcceleratorPanel::acceleratorChanged);
        field->setValue(150.5);
        QCOMPARE(panel.accelerator().energy.dramAccess, 150.5);
        QVERIFY(changed.wait(3000));
        QCOMPARE(changed.last().at(0).value<arch::Accelerator>().energy.dramAccess, 150.5);

        // ... and a saved preset's JSON (energy.dram_access), read back by core.
        QVERIFY(panel.saveAsPreset(QStringLiteral("dram round trip")));
        const arch::Accelerator saved = arch::loadAccelerator(
            (AcceleratorPanel::userPresetsDirectory() + QStringLiteral("/dram_round_trip.json"))
                .toStdString());
        QCOMPARE(saved.energy.dramAccess, 150.5);
        QCOMPARE(saved.offchipBandwidth, std::int64_t(64));
        QFile::remove(AcceleratorPanel::userPresetsDirectory() + QStringLiteral("/dram_round_trip.json"));

        // A negative energy is core's error, flagged on the field; nothing is emitted.
        field->setValue(-1);
        QVERIFY(!panel.isValid());
        QVERIFY(panel.message().contains(QStringLiteral("dram_access")));
    }

    /// The Technology choice: the energy fields show the 45 nm table's pJ for the panel's sizes, read-only,
    /// and follow an L2 edit (a bigger buffer costs more per access); the accelerator searched and saved
    /// names the table; "own values" makes the fields editable again, in MAC units.
    void technologyChoicePricesTheSizes()
    {
        AcceleratorPanel panel;
        panel.setAccelerator(edgeWithDram());
        QComboBox* choice = panel.technologyChoice();
        QVERIFY(choice);
        QCOMPARE(choice->currentData().toString(), QString());
        auto* l2Energy = qobject_cast<QDoubleSpinBox*>(panel.field(QStringLiteral("energy.l2_access")));
        QVERIFY(l2Energy && !l2Energy->isReadOnly());
        choice->setCurrentIndex(choice->findData(QStringLiteral("45nm")));
        arch::Accelerator acc = panel.accelerator();
        QCOMPARE(acc.technology, std::string("45nm"));
        QVERIFY(acc.technologyTable);
        const tech::Resolved at108K = tech::resolve(*acc.technologyTable, acc);
        QCOMPARE(acc.energy.l2Access, at108K.energy.l2Access);
        QCOMPARE(acc.energy.mac, 0.07875); // the 8-bit MAC of the table
        QVERIFY(l2Energy->isReadOnly());
        QVERIFY(l2Energy->suffix().contains(QStringLiteral("pJ")));
        QVERIFY(std::abs(l2Energy->value() - at108K.energy.l2Access) < 1e-3);
        auto* l2 = qobject_cast<QSpinBox*>(panel.field(QStringLiteral("l2_bytes")));
        l2->setValue(1024 * 1024);
        acc = panel.accelerator();
        QVERIFY(acc.energy.l2Access > at108K.energy.l2Access);
        QVERIFY(std::abs(l2Energy->value() - acc.energy.l2Access) < 1e-3);
        QVERIFY(panel.saveAsPreset(QStringLiteral("technology round trip")));
        const QString saved
            = AcceleratorPanel::userPresetsDirectory() + QStringLiteral("/technology_round_trip.json");
        const arch::Accelerator back = arch::loadAccelerator(saved.toStdString());
        QFile::remove(saved);
        QCOMPARE(back.technology, std::string("45nm"));
        QCOMPARE(back.energy.l2Access, acc.energy.l2Access);
        choice->setCurrentIndex(0);
        QVERIFY(!l2Energy->isReadOnly());
        QVERIFY(l2Energy->suffix().contains(QStringLiteral("MAC units")));
        QVERIFY(panel.accelerator().technology.empty());
        QCOMPARE(panel.accelerator().energy.l2Access, 18.61); // the values typed before the table
        QCOMPARE(panel.accelerator().energy.dramAccess, 200.0);
    }

    /// The NoC's multicast kind is the panel's too: shown from a file, edited into the accelerator the window
    /// searches, saved in the preset's JSON, and it changes what the cost model counts (the global buffer's
    /// input reads of a 3x3 window's rows spread over PEs: their shared halo rows are sent once only when
    /// elements multicast).
    void multicastChoiceRoundTrips()
    {
        AcceleratorPanel panel;
        QComboBox* choice = panel.multicastChoice();
        QVERIFY(choice);
        arch::Accelerator acc = edgeWithDram();
        acc.multicast = arch::Multicast::Tiles;
        panel.setAccelerator(acc);
        QCOMPARE(choice->currentData().toInt(), int(arch::Multicast::Tiles));
        QVERIFY(panel.accelerator().multicast == arch::Multicast::Tiles);

        QSignalSpy changed(&panel, &AcceleratorPanel::acceleratorChanged);
        choice->setCurrentIndex(choice->findData(int(arch::Multicast::None)));
        QVERIFY(changed.wait(3000));
        const auto edited = changed.last().at(0).value<arch::Accelerator>();
        QVERIFY(edited.multicast == arch::Multicast::None);
        QVERIFY(panel.presetList()->currentText().contains(QStringLiteral("not a preset")));

        QVERIFY(panel.saveAsPreset(QStringLiteral("multicast round trip")));
        const QString path
            = AcceleratorPanel::userPresetsDirectory() + QStringLiteral("/multicast_round_trip.json");
        QVERIFY(arch::loadAccelerator(path.toStdString()).multicast == arch::Multicast::None);
        QFile::remove(path);

        // doc/cost-model.md's halo case: 4 output rows of a 3-tap window over 4 PEs, 2 channels. Each PE
        // needs 3 input rows and neighbours share 2: the 6 rows of a channel are sent once with element
        // multicast (12 reads), each PE its own 3 rows with identical-tile multicast or none (24).
        const mdc::Network net = mdc::readMaestroMapping(
            "Network n { Layer D { Type: DSCONV Dimensions { C: 2, R: 3, S: 1, Y: 6, X: 1 } Dataflow {"
            " TemporalMap(1,1) C; SpatialMap(1,1) Y'; TemporalMap(3,3) R; TemporalMap(1,1) S;"
            " TemporalMap(1,1) X; } } }",
            "halo.m");
        const cost::Problem problem = cost::fromMaestroLayer(net.layers[0]);
        QStringList reads;
        for (arch::Multicast m : {arch::Multicast::Elements, arch::Multicast::Tiles, arch::Multicast::None}) {
            choice->setCurrentIndex(choice->findData(int(m)));
            arch::Accelerator a = panel.accelerator();
            a.numPes = 4;
            cost::Options o;
            o.fidelity = cost::Fidelity::Corrected;
            const cost::Result r = cost::Evaluator(problem, a, o).evaluate(net.layers[0].dataflow);
            reads << QString::number(r.m.tensors[0].l2Read);
        }
        QCOMPARE(reads.join(' '), QStringLiteral("12 24 24"));
    }

    void retuningL2OrTheDramBandwidthMovesTheFront()
    {
        // A GEMM whose operands do not fit L2 together, so the L2 tiles decide its DRAM traffic.
        const QString file = QDir(QDir::tempPath()).filePath(QStringLiteral("tst_dram_app_gemm.loop"));
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(workloads::gemmLoopText(128, 64, 256)));
        }
        const ir::Operator op = ir::parseOperatorFile(file.toStdString());
        MainWindow w;
        QVERIFY(w.openFile(file));
        w.searchPanel()->setCompareStyles(false);
        search::SearchOptions options = w.searchPanel()->options();
        options.refine = false; // the decoupled search alone: a fraction of the time, the same point
        w.searchPanel()->setOptions(options);
        arch::Accelerator acc = edgeWithDram();
        acc.numPes = 256; // a smaller search space: the test stays fast
        w.acceleratorPanel()->setAccelerator(acc);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        const auto first = plottedFront(w);
        QVERIFY(!first.empty());
        QCOMPARE(first, coreFront(w, op));

        // Each edit of the panel searches again; the plot then shows core's front for the new accelerator,
        // which differs: 16 KiB of L2 instead of 108, then 2 elements per cycle from DRAM instead of 64.
        auto retune = [&](const char* key, int value) {
            auto* box = qobject_cast<QSpinBox*>(w.acceleratorPanel()->field(QString::fromLatin1(key)));
            QVERIFY(box);
            finished.clear();
            box->setValue(value);
            QVERIFY(finished.wait(60000));
        };
        retune("l2_bytes", 16384);
        const auto smallL2 = plottedFront(w);
        QCOMPARE(smallL2, coreFront(w, op));
        QVERIFY(smallL2 != first);
        retune("offchip_bandwidth_elements_per_cycle", 2);
        const auto narrow = plottedFront(w);
        QCOMPARE(narrow, coreFront(w, op));
        QVERIFY(narrow != smallL2);
        QFile::remove(file);
    }

    void sweepColoursByCoresDramFigures()
    {
        // An L2 x PEs grid on a GEMM: core's sweep gives each design point's DRAM traffic and energy.
        const arch::Accelerator acc = edgeWithDram();
        auto grid = std::make_shared<const sweep::Grid>(
            acc, std::vector<sweep::Axis>{sweep::parseVary("pes=64,256"), sweep::parseVary("l2=8K:32K:x2")});
        workloads::Workload workload;
        workload.name = "gemm";
        workload.layers.push_back(workloads::gemmLayer("g", 128, 128, 256));
        sweep::SweepOptions options;
        options.threads = 2;
        options.search.objective = search::Objective::Energy;
        const sweep::Sweeper sweeper(*grid, workload, options);
        std::vector<std::size_t> all(grid->size());
        for (std::size_t i = 0; i < all.size(); ++i)
            all[i] = i;
        const std::vector<sweep::PointResult> rows = sweeper.run(all);
        QCOMPARE(rows.size(), std::size_t(6));

        SweepPanel panel;
        panel.startGrid(grid);
        panel.addPoints(rows);
        QCOMPARE(SweepPanel::metricByName(QStringLiteral("dram-energy")), SweepPanel::Metric::DramEnergy);
        QCOMPARE(SweepPanel::metricByName(QStringLiteral("dram-bytes")), SweepPanel::Metric::DramBytes);
        QVERIFY(!SweepPanel::metricByName(QStringLiteral("dram")));
        panel.setMetric(SweepPanel::Metric::DramEnergy);
        QCOMPARE(panel.metric(), SweepPanel::Metric::DramEnergy);
        double smallest = 0, largest = 0;
        for (const sweep::PointResult& p : rows) {
            QVERIFY(p.ok);
            QVERIFY(p.dramEnergy > 0);
            QCOMPARE(panel.cellValue(p.index), p.dramEnergy);
            smallest = smallest == 0 ? p.dramEnergy : std::min(smallest, p.dramEnergy);
            largest = std::max(largest, p.dramEnergy);
        }
        QVERIFY(largest > smallest); // the buffer size shows in the colours
        panel.setMetric(SweepPanel::Metric::DramBytes);
        for (const sweep::PointResult& p : rows)
            QCOMPARE(panel.cellValue(p.index), double(p.dramBytes));
    }
};

QTEST_MAIN(TestDramApp)
#include "tst_dram_app.moc"
