// The Sweep tab, offscreen: a sweep started from the panel fills the heat map point by point with the
// numbers core's own search gives at each design point, exports the same CSV as `marvel sweep`, and a
// click on a cell loads that accelerator and searches it; bad ranges and Cancel behave.
#include <QComboBox>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/search/search.h"
#include "tests/ui/ui_samples.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/model/model_table.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_controller.h"
#include "ui/sweep/sweep_panel.h"

using namespace marvel;
using namespace marvel::ui;

using uitest::kEdge;
using uitest::kGemm;
namespace { } // namespace

class TestSweepPanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void sweepFillsTheHeatMapAndAClickLoadsTheDesign()
    {
        MainWindow w;
        QVERIFY(w.openFile(kGemm));
        QVERIFY(w.acceleratorPanel()->loadPreset(kEdge));
        SweepPanel* panel = w.sweepPanel();
        panel->setAxes(QStringLiteral("pes"), QStringLiteral("64,1024"), QStringLiteral("l1"),
            QStringLiteral("256,512"));
        QSignalSpy points(w.sweepController(), &SweepController::pointsFinished);
        QSignalSpy finished(w.sweepController(), &SweepController::finished);
        QVERIFY(w.runSweep());
        QVERIFY(w.centreTabs()->currentWidget()->isAncestorOf(panel));
        QVERIFY(!panel->runButton()->isEnabled());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.last().at(0).value<SweepOutcome>().status, SweepOutcome::Status::Finished);
        QVERIFY(points.count() >= 1); // streamed as they finished
        QCOMPARE(panel->filledCells(), 4);
        QCOMPARE(int(panel->points().size()), 4);
        QVERIFY(panel->runButton()->isEnabled());

        // Every cell holds what core's search of that accelerator finds for the Search panel's options.
        const ir::Operator op = ir::parseOperatorFile(kGemm.toStdString());
        search::SearchOptions options = w.searchPanel()->options();
        options.objective = search::Objective::Runtime;
        QVERIFY(options.refine); // the whole search, refinement included
        for (std::size_t i = 0; i < panel->grid()->size(); ++i) {
            const arch::Accelerator acc = panel->grid()->point(i);
            const search::LayerSearchResult direct = search::searchLayer(op, acc, options);
            QVERIFY(direct.result.bestRuntime);
            QCOMPARE(panel->cellValue(i), double(direct.result.bestRuntime->metrics.runtime));
        }
        // More PEs never make the best mapping slower at equal L1 (the smaller array's mappings remain).
        const auto& grid = *panel->grid();
        for (std::size_t i = 0; i + 2 < grid.size(); ++i)
            if (grid.parameters(i)[std::size_t(sweep::Parameter::L1)]
                == grid.parameters(i + 2)[std::size_t(sweep::Parameter::L1)])
                QVERIFY(panel->cellValue(i + 2) <= panel->cellValue(i));

        // The exported CSV is the file `marvel sweep` writes for the same sweep, byte for byte.
        QTemporaryDir dir;
        const QString appCsv = dir.filePath(QStringLiteral("app.csv"));
        const QString cliCsv = dir.filePath(QStringLiteral("cli.csv"));
        QVERIFY(panel->saveCsv(appCsv));
        QProcess cli;
        cli.start(QStringLiteral(MARVEL_CLI_PATH),
            {QStringLiteral("sweep"), QStringLiteral("--op"), kGemm, QStringLiteral("--hw"), kEdge,
                QStringLiteral("--vary"), QStringLiteral("pes=64,1024"), QStringLiteral("--vary"),
                QStringLiteral("l1=256,512"), QStringLiteral("--out"), cliCsv});
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        QFile a(appCsv), b(cliCsv);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(a.readAll(), b.readAll());
        for (const char* suffix : {"png", "pdf", "svg"}) {
            const QString image = dir.filePath(QStringLiteral("sweep.") + QLatin1String(suffix));
            QVERIFY(panel->saveImage(image));
            QVERIFY(QFileInfo(image).size() > 1000);
        }

        // A click on the cell of 64 PEs with a 256-byte L1 loads that accelerator and searches it.
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        panel->heatMap()->replot();
        std::size_t target = grid.size();
        for (std::size_t i = 0; i < grid.size(); ++i)
            if (grid.parameters(i)[std::size_t(sweep::Parameter::Pes)] == 64
                && grid.parameters(i)[std::size_t(sweep::Parameter::L1)] == 256)
                target = i;
        QVERIFY(target < grid.size());
        QSignalSpy activated(panel, &SweepPanel::designPointActivated);
        QSignalSpy searchDone(&w, &MainWindow::searchFinished);
        const QPoint inPlot = panel->heatMap()->mapFrom(panel, panel->cellCentre(target));
        QTest::mouseClick(panel->heatMap(), Qt::LeftButton, {}, inPlot);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().at(0).value<std::size_t>(), target);
        QCOMPARE(w.acceleratorPanel()->accelerator().numPes, 64);
        QCOMPARE(w.acceleratorPanel()->accelerator().l1Bytes, 256);
        QVERIFY(searchDone.wait(60000));
        QVERIFY(w.lastResult());
        // The tuner finds what the cell shows.
        QCOMPARE(double(w.lastResult()->result.bestRuntime->metrics.runtime), panel->cellValue(target));
    }

    /// Cells clicked into the tuner give the tuner's figures, cycles and energy alike, for the sweep's
    /// objective (EDP; the Search panel's is runtime) - the case: conv2d on Edge 1024 with DRAM,
    /// where the decoupled search alone gives 119,891 cycles at 1024 PEs and a 32 KiB L2 and the tuner
    /// 114,110. The Quick search box makes the decoupled search's cells and says so everywhere.
    void clickedCellsEqualTheTuner()
    {
        MainWindow w;
        QVERIFY(w.openFile(QString::fromStdString(uitest::kSamples + "/operators/conv2d.loop")));
        QVERIFY(w.acceleratorPanel()->loadPreset(
            QString::fromStdString(uitest::kSamples + "/accelerators/edge1024_dram.json")));
        QVERIFY(w.searchPanel()->options().objective == search::Objective::Runtime);
        SweepPanel* panel = w.sweepPanel();
        panel->setAxes(
            QStringLiteral("pes"), QStringLiteral("1024"), QStringLiteral("l2"), QStringLiteral("32K,108K"));
        panel->setObjective(search::Objective::Edp);
        QVERIFY(panel->objective() == search::Objective::Edp);
        QVERIFY(!panel->quickSearch());
        QSignalSpy finished(w.sweepController(), &SweepController::finished);
        QVERIFY(w.runSweep());
        QVERIFY(finished.wait(120000));
        QCOMPARE(int(panel->points().size()), 2);
        QVERIFY2(panel->statusText().contains(QStringLiteral("by the full search")),
            qPrintable(panel->statusText()));
        QVERIFY(!panel->colourScaleLabel().contains(QStringLiteral("quick")));
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        panel->heatMap()->replot();
        for (const sweep::PointResult& point : std::vector<sweep::PointResult>(panel->points())) {
            if (point.parameters[std::size_t(sweep::Parameter::L2)] != 32768) continue; // the small L2's cell
            QSignalSpy searchDone(&w, &MainWindow::searchFinished);
            QTest::mouseClick(panel->heatMap(), Qt::LeftButton, {},
                panel->heatMap()->mapFrom(panel, panel->cellCentre(point.index)));
            QVERIFY(searchDone.wait(60000));
            QVERIFY(w.searchPanel()->options().objective == search::Objective::Edp); // the sweep's
            const search::Candidate& best = *w.lastResult()->result.best(search::Objective::Edp);
            QCOMPARE(best.metrics.runtime, point.runtime);
            QCOMPARE(best.metrics.energy, point.energy);
            QCOMPARE(best.metrics.dramReadBytes + best.metrics.dramWriteBytes, point.dramBytes);
        }

        // The quick search: the runtime cell of 1024 PEs and 32 KiB is the decoupled search's, the colour
        // scale and the status say "quick", and the tuner beats it.
        panel->setObjective(search::Objective::Runtime);
        panel->setQuickSearch(true);
        QVERIFY(w.runSweep());
        QVERIFY(finished.wait(120000));
        QVERIFY2(panel->statusText().contains(QStringLiteral("by the quick search")),
            qPrintable(panel->statusText()));
        QVERIFY2(panel->colourScaleLabel().endsWith(QStringLiteral("\u00b7 quick search")),
            qPrintable(panel->colourScaleLabel()));
        std::size_t target = panel->grid()->size();
        for (std::size_t i = 0; i < panel->grid()->size(); ++i) {
            const sweep::Parameters p = panel->grid()->parameters(i);
            if (p[std::size_t(sweep::Parameter::Pes)] == 1024
                && p[std::size_t(sweep::Parameter::L2)] == 32768)
                target = i;
        }
        QVERIFY(target < panel->grid()->size());
        QCOMPARE(panel->cellValue(target), 119891.0);
        for (const sweep::PointResult& point : panel->points())
            QVERIFY(point.search == sweep::PointSearch::Quick);
        QSignalSpy searchDone(&w, &MainWindow::searchFinished);
        QTest::mouseClick(panel->heatMap(), Qt::LeftButton, {},
            panel->heatMap()->mapFrom(panel, panel->cellCentre(target)));
        QVERIFY(searchDone.wait(60000));
        QCOMPARE(w.lastResult()->result.bestRuntime->metrics.runtime, std::int64_t(114110));
        // Unticking the box leaves the quick sweep on screen, marked stale.
        QVERIFY(panel->staleNote().isEmpty());
        panel->setQuickSearch(false);
        QVERIFY2(
            panel->staleNote().contains(QStringLiteral("Quick search box")), qPrintable(panel->staleNote()));
    }

    /// A range that does not parse, or both axes on one parameter, is reported in the tab and runs
    /// nothing; the message names the argument.
    void badRangesRunNothing()
    {
        MainWindow w;
        QVERIFY(w.openFile(kGemm));
        QSignalSpy started(w.sweepController(), &SweepController::started);
        w.sweepPanel()->setAxes(
            QStringLiteral("pes"), QStringLiteral("1M:64K:x2"), QStringLiteral("l2"), QStringLiteral("64K"));
        QVERIFY(!w.runSweep());
        QVERIFY2(w.sweepPanel()->statusText().contains(QStringLiteral("pes=1M:64K:x2")),
            qPrintable(w.sweepPanel()->statusText()));
        w.sweepPanel()->setAxes(
            QStringLiteral("l2"), QStringLiteral("64K,128K"), QStringLiteral("l2"), QStringLiteral("256K"));
        QVERIFY(!w.runSweep());
        QVERIFY(w.sweepPanel()->statusText().contains(QStringLiteral("both axes vary l2")));
        QCOMPARE(started.count(), 0);
        QVERIFY(w.sweepPanel()->runButton()->isEnabled());
    }

    /// A transformer's context as an axis: GPT-2's decode step at 16 and 32 cached tokens down, two PE
    /// counts across; the cells grow with the cache, and the CSV is `marvel sweep --vary kv=...`'s. A
    /// context axis needs a whole model, and only one of seq and kv.
    void contextAxisSweepsTheModel()
    {
        MainWindow w;
        QVERIFY(w.acceleratorPanel()->loadPreset(kEdge));
        QVERIFY(w.openFile(kGemm));
        SweepPanel* panel = w.sweepPanel();
        panel->setQuickSearch(true);
        panel->setAxes(
            QStringLiteral("pes"), QStringLiteral("256,1024"), QStringLiteral("kv"), QStringLiteral("16,32"));
        QVERIFY(!w.runSweep()); // an operator has no sequence
        QVERIFY2(panel->statusText().contains(QStringLiteral("context")), qPrintable(panel->statusText()));
        QVERIFY(w.loadModel(QStringLiteral("gpt2")));
        panel->setAxes(
            QStringLiteral("seq"), QStringLiteral("8"), QStringLiteral("kv"), QStringLiteral("16"));
        QVERIFY(!w.runSweep());
        QVERIFY2(panel->statusText().contains(QStringLiteral("at most one of seq and kv")),
            qPrintable(panel->statusText()));
        panel->setAxes(
            QStringLiteral("pes"), QStringLiteral("256,1024"), QStringLiteral("kv"), QStringLiteral("16,32"));
        QSignalSpy finished(w.sweepController(), &SweepController::finished);
        QVERIFY(w.runSweep());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.last().at(0).value<SweepOutcome>().status, SweepOutcome::Status::Finished);
        QCOMPARE(panel->filledCells(), 4);
        const sweep::Grid& grid = *panel->grid();
        QVERIFY(grid.context());
        QCOMPARE(grid.context()->values, (std::vector<std::int64_t>{16, 32}));
        for (std::size_t i = 0; i < 2; ++i) // the same PEs, twice the cache: more cycles
            QVERIFY(panel->cellValue(i + 2) > panel->cellValue(i));

        QTemporaryDir dir;
        const QString appCsv = dir.filePath(QStringLiteral("app.csv"));
        const QString cliCsv = dir.filePath(QStringLiteral("cli.csv"));
        QVERIFY(panel->saveCsv(appCsv));
        QProcess cli;
        cli.start(QStringLiteral(MARVEL_CLI_PATH),
            {QStringLiteral("sweep"), QStringLiteral("--model"), QStringLiteral("gpt2"),
                QStringLiteral("--hw"), kEdge, QStringLiteral("--vary"), QStringLiteral("pes=256,1024"),
                QStringLiteral("--vary"), QStringLiteral("kv=16,32"), QStringLiteral("--quick-search"),
                QStringLiteral("--out"), cliCsv});
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        QFile a(appCsv), b(cliCsv);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray app = a.readAll();
        QVERIFY(app.startsWith("kv,pes,"));
        QCOMPARE(app, b.readAll());

        // A cell of kv 32 loads its accelerator and its context: the Model panel's model becomes the decode
        // step over 32 cached tokens, and the sweep, which studied every length, stays current.
        QVERIFY(w.loadDesignPoint(3));
        QCOMPARE(w.acceleratorPanel()->accelerator().numPes, std::int64_t(1024));
        QCOMPARE(w.findChild<QComboBox*>(QStringLiteral("phase"))->currentText(), QStringLiteral("decode"));
        QCOMPARE(w.findChild<QSpinBox*>(QStringLiteral("tokens"))->value(), 32);
        for (const workloads::WorkloadLayer& l : w.modelTable()->workload().layers)
            if (l.effectiveKind() == workloads::LayerKind::Attention && l.name.ends_with("scores"))
                QCOMPARE(l.op.sizeValue("N").value_or(0), std::int64_t(32));
        QVERIFY2(panel->staleNote().isEmpty(), qPrintable(panel->staleNote()));
        w.cancelSearch();
    }

    /// Cancel returns at once; the stopped worker is joined by the next run, which alone reaches the map.
    void cancelThenRunAgain()
    {
        MainWindow w;
        QVERIFY(w.openFile(kGemm));
        QVERIFY(w.acceleratorPanel()->loadPreset(kEdge));
        w.sweepPanel()->setAxes(QStringLiteral("pes"), QStringLiteral("16:1024:+16"), QStringLiteral("l2"),
            QStringLiteral("16K:1M:x2"));
        QSignalSpy finished(w.sweepController(), &SweepController::finished);
        QVERIFY(w.runSweep());
        QTest::qWait(200);
        w.sweepPanel()->cancelButton()->click();
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.last().at(0).value<SweepOutcome>().status, SweepOutcome::Status::Cancelled);
        QVERIFY(!w.sweepController()->isRunning());
        QVERIFY(w.sweepPanel()->runButton()->isEnabled());

        w.sweepPanel()->setAxes(
            QStringLiteral("pes"), QStringLiteral("64,128"), QStringLiteral("simd"), QStringLiteral("1"));
        finished.clear();
        QVERIFY(w.runSweep());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).value<SweepOutcome>().status, SweepOutcome::Status::Finished);
        QCOMPARE(w.sweepPanel()->filledCells(), 2);
        QVERIFY(w.sweepController()->workerCount() <= 2);
    }
};

QTEST_MAIN(TestSweepPanel)
#include "tst_sweep_panel.moc"
