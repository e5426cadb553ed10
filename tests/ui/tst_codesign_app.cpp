// The Co-design tab, offscreen (issue 34): a co-design started from the tab streams its designs into the
// plot, finds the design brute force finds over the same small grid within the area budget, draws the
// budget line and the best design, and a click on a design loads it into the accelerator panel, whose
// search shows that design's cycles and energy; an accelerator without a technology table, a bad range
// and Cancel behave.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>
#include <qcustomplot.h>

#include "core/ir/parser.h"
#include "core/search/search.h"
#include "core/tech/technology.h"
#include "core/workloads/workloads.h"
#include "tests/ui/ui_samples.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/codesign/codesign_controller.h"
#include "ui/codesign/codesign_panel.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"

using namespace marvel;
using namespace marvel::ui;

namespace {
const QString kEdge45 = QString::fromStdString(uitest::kSamples + "/accelerators/edge1024_45nm.json");
constexpr int kWaitMs = 180000; // the sanitizer build on a busy machine

/// A small operator keeps every design's search short (under the sanitizers too).
const QString kConv1d = QString::fromStdString(uitest::kSamples + "/operators/conv1d.loop");

void vary(CodesignPanel* panel, const QString& pes, const QString& l2)
{
    for (const char* name : {"pes", "simd", "l1", "l2", "noc_bw", "offchip_bw"})
        panel->setAxis(QString::fromLatin1(name), false);
    panel->setAxis(QStringLiteral("pes"), true, pes);
    panel->setAxis(QStringLiteral("l2"), true, l2);
}
} // namespace

class TestCodesignApp : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void codesignFindsTheBruteForceBestAndAClickLoadsIt()
    {
        MainWindow w;
        QVERIFY(w.openFile(kConv1d));
        QVERIFY(w.acceleratorPanel()->loadPreset(kEdge45));
        CodesignPanel* panel = w.codesignPanel();
        vary(panel, QStringLiteral("4,16,64"), QStringLiteral("16K,64K"));
        // The budget between the designs' areas (the 45 nm table's): some are over it.
        const sweep::Grid grid(w.acceleratorPanel()->accelerator(),
            {sweep::parseVary("pes=4,16,64"), sweep::parseVary("l2=16K,64K")});
        std::vector<double> areas;
        for (std::size_t i = 0; i < grid.size(); ++i)
            areas.push_back(tech::physical(grid.point(i), {}, 0).areaMm2);
        std::vector<double> sorted = areas;
        std::sort(sorted.begin(), sorted.end());
        // Four designs within it; three decimals, as the box shows it.
        const double budget = std::round((sorted[3] + sorted[4]) / 2 * 1000) / 1000;
        QVERIFY(sorted[3] <= budget && budget < sorted[4]);
        panel->setBudget({budget, std::nullopt});
        panel->setObjective(search::Objective::Energy);

        QSignalSpy finished(w.codesignController(), &CodesignController::finished);
        QSignalSpy streamed(w.codesignController(), &CodesignController::designsEvaluated);
        QVERIFY(w.runCodesign());
        QVERIFY(w.centreTabs()->currentWidget()->isAncestorOf(panel));
        QVERIFY(!panel->runButton()->isEnabled());
        QVERIFY(panel->cancelButton()->isEnabled());
        QVERIFY(finished.wait(kWaitMs));
        const CodesignOutcome outcome = finished.last().at(0).value<CodesignOutcome>();
        QCOMPARE(outcome.status, CodesignOutcome::Status::Finished);
        QVERIFY(streamed.count() >= 1);
        QVERIFY(panel->runButton()->isEnabled());

        // Brute force over the designs within the area budget: the least energy of the Search panel's
        // search, in pJ under the 45 nm table.
        const ir::Operator op = ir::parseOperatorFile(kConv1d.toStdString());
        search::SearchOptions options = w.searchPanel()->options();
        options.objective = search::Objective::Energy;
        std::optional<std::size_t> bestIndex;
        double bestEnergy = 0;
        int within = 0;
        for (std::size_t i = 0; i < grid.size(); ++i) {
            if (areas[i] > budget) continue;
            ++within;
            const search::LayerSearchResult r = search::searchLayer(op, grid.point(i), options);
            QVERIFY(r.result.bestEnergy);
            const double e = r.result.bestEnergy->metrics.energy;
            if (!bestIndex || e < bestEnergy) {
                bestIndex = i;
                bestEnergy = e;
            }
        }
        QCOMPARE(within, 4);
        QCOMPARE(int(panel->designs().size()), within); // designs over the area budget are never searched
        for (const codesign::Design& d : panel->designs())
            QVERIFY(d.point.areaMm2 <= budget);
        QVERIFY(panel->best());
        QCOMPARE(panel->best()->point.index, *bestIndex);
        QCOMPARE(panel->best()->point.energy, bestEnergy);
        QVERIFY(panel->bestText().contains(QStringLiteral("mm\u00b2")));
        QVERIFY(panel->loadBestButton()->isEnabled());
        QCOMPARE(panel->budgetLine(), budget);
        QVERIFY2(panel->statusText().contains(QStringLiteral("4 designs searched")),
            qPrintable(panel->statusText()));

        // A click on the best design's mark loads it and searches it for the co-design's objective: the
        // tuner's figures are the design's.
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        panel->plot()->replot();
        const auto pixel = panel->designPixel(*bestIndex);
        QVERIFY(pixel);
        QSignalSpy activated(panel, &CodesignPanel::designActivated);
        QSignalSpy searchDone(&w, &MainWindow::searchFinished);
        QTest::mouseClick(panel->plot(), Qt::LeftButton, {}, *pixel);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().at(0).value<std::size_t>(), *bestIndex);
        QCOMPARE(w.acceleratorPanel()->accelerator().numPes, grid.point(*bestIndex).numPes);
        QCOMPARE(w.acceleratorPanel()->accelerator().l2Bytes, grid.point(*bestIndex).l2Bytes);
        QVERIFY(searchDone.wait(kWaitMs));
        QVERIFY(w.searchPanel()->options().objective == search::Objective::Energy);
        const search::Candidate& tuned = *w.lastResult()->result.best(search::Objective::Energy);
        QCOMPARE(tuned.metrics.energy, panel->best()->point.energy);
        QCOMPARE(tuned.metrics.runtime, panel->best()->point.runtime);

        // A design of the grid loaded leaves the co-design current; a parameter it did not vary, or the
        // workload, marks it stale (and setting them back makes it current again).
        QVERIFY2(panel->staleNote().isEmpty(), qPrintable(panel->staleNote()));
        auto* noc = qobject_cast<QSpinBox*>(
            w.acceleratorPanel()->field(QStringLiteral("noc_bandwidth_elements_per_cycle")));
        QVERIFY(noc);
        const int bandwidth = noc->value();
        noc->setValue(bandwidth / 2);
        QVERIFY2(panel->staleNote().contains(QStringLiteral("NoC")), qPrintable(panel->staleNote()));
        noc->setValue(bandwidth);
        QVERIFY(panel->staleNote().isEmpty());
        w.editor()->setPlainText(QString::fromStdString(workloads::gemmLoopText(8, 8, 8)));
        QVERIFY(panel->staleNote().contains(QStringLiteral("workload")));
    }

    /// Without a technology table there is no area to hold against a budget: the tab says what to pick
    /// and runs nothing; a bad range names its parameter; Cancel stops a run and keeps what it had.
    void badInputAndCancel()
    {
        MainWindow w;
        QVERIFY(w.openFile(kConv1d));
        QVERIFY(w.acceleratorPanel()->loadPreset(uitest::kEdge)); // P2: MAESTRO's figures
        CodesignPanel* panel = w.codesignPanel();
        QSignalSpy started(w.codesignController(), &CodesignController::started);
        QVERIFY(!w.runCodesign());
        QVERIFY2(panel->statusText().contains(QStringLiteral("technology table")),
            qPrintable(panel->statusText()));
        QCOMPARE(started.count(), 0);

        QVERIFY(w.acceleratorPanel()->loadPreset(kEdge45));
        vary(panel, QStringLiteral("64:16:x2"), QStringLiteral("16K"));
        QVERIFY(!w.runCodesign());
        QVERIFY2(
            panel->statusText().contains(QStringLiteral("pes=64:16:x2")), qPrintable(panel->statusText()));
        QCOMPARE(started.count(), 0);

        // The default axes (about 2,000 designs) with a generous budget: cancelled while it runs.
        for (const char* name : {"pes", "l1", "l2", "noc_bw"})
            panel->setAxis(QString::fromLatin1(name), true);
        panel->setAxis(QStringLiteral("pes"), true, QStringLiteral("64:4096:x2"));
        panel->setBudget({100.0, std::nullopt});
        QSignalSpy finished(w.codesignController(), &CodesignController::finished);
        QVERIFY(w.runCodesign());
        QVERIFY(w.codesignController()->isRunning());
        panel->cancelButton()->click();
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.last().at(0).value<CodesignOutcome>().status, CodesignOutcome::Status::Cancelled);
        QVERIFY(!w.codesignController()->isRunning());
        QVERIFY(panel->runButton()->isEnabled());
        QVERIFY2(
            panel->statusText().startsWith(QStringLiteral("Cancelled")), qPrintable(panel->statusText()));
    }
};

QTEST_MAIN(TestCodesignApp)
#include "tst_codesign_app.moc"
