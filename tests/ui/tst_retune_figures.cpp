// Every figure follows the accelerator it was computed for (issue 23): the real panels are retuned one
// parameter at a time (PEs, SIMD lanes, NoC bandwidth, L1, L2, then the objective) and after each change
// every figure the window shows is either marked stale at once or, once the search has run again, equal
// to a fresh core search of the same state: the model table's cycles, energy, PE use and runtime over the
// roofline, the cost panel's, the plot's roofline line and front, the styles' comparison and the
// animation's cost-model line; for a whole model also every row and the totals line. The layers of
// tests/data/retune/tiny_model.json are small enough for each search to take some tens of milliseconds.
#include <nlohmann/json.hpp>
#include <numeric>

#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>
#include <qcustomplot.h>

#include "core/cost/costmodel.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/project/project.h"
#include "core/search/roofline.h"
#include "core/search/search.h"
#include "core/styles/styles.h"
#include "core/workloads/workloads.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_controller.h"
#include "ui/sweep/sweep_panel.h"

using namespace marvel;
using namespace marvel::ui;

namespace {
const QString kModel = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/retune/tiny_model.json");
constexpr int kSearchMs = 120000; // generous for the sanitizer build and a busy machine

/// Runs a checking helper and leaves the test function when it failed.
#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        call;                                                                                                \
        if (QTest::currentTestFailed()) return;                                                              \
    } while (false)

bool sameDataflow(const mdc::Dataflow& a, const mdc::Dataflow& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].toString() != b[i].toString()) return false;
    return true;
}

/// A fresh core search of one layer in the panels' state, with the figures the window should show.
struct Fresh
{
    search::LayerSearchResult layer;
    std::int64_t roofline = 0;
    search::Candidate best;
    double overRoofline() const { return double(best.metrics.runtime) / double(roofline); }
};

Fresh freshSearch(const ir::Operator& op, const arch::Accelerator& acc, const search::SearchOptions& options)
{
    Fresh f;
    f.layer = search::searchLayer(op, acc, options);
    f.roofline = search::roofline(*ir::perfectNest(op), op.sizes, acc).cycles;
    const auto& best = f.layer.result.best(options.objective);
    if (!best) qFatal("no mapping for %s", op.name.c_str());
    f.best = *best;
    return f;
}

QSpinBox* field(MainWindow& w, const char* key)
{
    return qobject_cast<QSpinBox*>(w.acceleratorPanel()->field(QString::fromLatin1(key)));
}

QComboBox* objectiveBox(MainWindow& w)
{
    for (QComboBox* c : w.searchPanel()->findChildren<QComboBox*>())
        if (c->count() == 3 && c->itemText(0) == QStringLiteral("runtime")) return c;
    return nullptr;
}

QVariant cell(MainWindow& w, int row, int column, int role = Qt::DisplayRole)
{
    return w.modelTable()->index(row, column).data(role);
}

/// The x of the plot's roofline line, as drawn (NaN when hidden).
double plottedRoofline(MainWindow& w)
{
    QCustomPlot* plot = w.paretoPlot()->plot();
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i)))
            return line->visible() ? line->point1->coords().x() : std::nan("");
    return std::nan("");
}

QCPGraph* graphNamed(MainWindow& w, const QString& name)
{
    QCustomPlot* plot = w.paretoPlot()->plot();
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name() == name) return plot->graph(i);
    return nullptr;
}

/// A visible note on the plot that says it is stale.
bool plotSaysStale(MainWindow& w)
{
    QCustomPlot* plot = w.paretoPlot()->plot();
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)))
            if (text->visible() && text->text().startsWith(QStringLiteral("Stale"))) return true;
    return false;
}

bool rowSaysStale(MainWindow& w, int row)
{
    return cell(w, row, ModelTableModel::Status).toString().startsWith(QStringLiteral("stale"))
        && cell(w, row, ModelTableModel::Runtime, Qt::ForegroundRole).value<QColor>().isValid();
}

/// Model table row `row` shows `f`'s figures, current.
void checkRow(MainWindow& w, int row, const Fresh& f)
{
    const search::Metrics& m = f.best.metrics;
    QCOMPARE(cell(w, row, ModelTableModel::Status).toString(), QStringLiteral("ok"));
    QCOMPARE(cell(w, row, ModelTableModel::Runtime, ModelTableModel::SortRole).toDouble(), double(m.runtime));
    QCOMPARE(cell(w, row, ModelTableModel::Energy, ModelTableModel::SortRole).toDouble(), m.energy);
    QCOMPARE(cell(w, row, ModelTableModel::Utilisation, ModelTableModel::SortRole).toDouble(), m.utilization);
    QCOMPARE(
        cell(w, row, ModelTableModel::OverRoofline, ModelTableModel::SortRole).toDouble(), f.overRoofline());
    // Marked when below the roofline (maestro fidelity's off-chip formula on a bandwidth-bound layer).
    QCOMPARE(cell(w, row, ModelTableModel::OverRoofline).toString(),
        QString::number(f.overRoofline(), 'f', 3)
            + (f.overRoofline() < 1 ? QStringLiteral(" !") : QString()));
    QVERIFY(!cell(w, row, ModelTableModel::Runtime, Qt::ForegroundRole).value<QColor>().isValid());
}

/// The shown layer's figures (cost panel, plot, selection, animation) are `f`'s on `acc`, current.
void checkShownLayer(MainWindow& w, const Fresh& f, const arch::Accelerator& acc)
{
    const search::Metrics& m = f.best.metrics;
    // The selection and the cost panel.
    QVERIFY(w.selectedCandidate());
    QCOMPARE(mapping::toJson(w.selectedCandidate()->mapping), mapping::toJson(f.best.mapping));
    QVERIFY(w.mappingView()->result());
    QCOMPARE(w.mappingView()->result()->m.runtimeCycles, m.runtime);
    QCOMPARE(w.mappingView()->result()->m.totalEnergy(), m.energy); // the search ranks the total
    const QString cost = w.mappingView()->metricsText();
    QVERIFY2(cost.contains(QString::number(f.overRoofline(), 'f', 3) + QStringLiteral("\u00d7")),
        qPrintable(cost));
    QVERIFY2(cost.contains(QStringLiteral(" of %1 PEs").arg(acc.numPes)), qPrintable(cost));
    QVERIFY2(!cost.contains(QStringLiteral("Stale")), qPrintable(cost));

    // The plot: the roofline where this accelerator puts it, the fresh search's front, nothing stale.
    QCOMPARE(plottedRoofline(w), double(f.roofline));
    QCPGraph* front = graphNamed(w, QStringLiteral("Pareto front"));
    QVERIFY(front);
    QCOMPARE(front->dataCount(), int(f.layer.result.pareto.size()));
    for (int i = 0; i < front->dataCount(); ++i) {
        QCOMPARE(front->data()->at(i)->key, double(f.layer.result.pareto[std::size_t(i)].metrics.runtime));
        QCOMPARE(front->data()->at(i)->value, f.layer.result.pareto[std::size_t(i)].metrics.energy);
    }
    QVERIFY(!plotSaysStale(w));

    // The animation simulates the selected mapping on this accelerator; its cost-model line gives both
    // fidelities' runtimes of that mapping on it.
    AnimationPanel* a = w.animationPanel();
    QTRY_VERIFY_WITH_TIMEOUT(a->summary() && sameDataflow(a->summary()->dataflow, f.best.dataflow)
            && !a->totalsLabel()->text().contains(QStringLiteral("Stale")),
        kSearchMs);
    for (auto [fidelity, shown] : {std::pair{cost::Fidelity::Maestro, a->summary()->maestroCycles},
             std::pair{cost::Fidelity::Corrected, a->summary()->correctedCycles}}) {
        cost::Options options;
        options.fidelity = fidelity;
        const std::int64_t cycles
            = cost::Evaluator(f.layer.problem, acc, options).evaluate(f.best.dataflow).m.runtimeCycles;
        QCOMPARE(shown, cycles);
        QVERIFY2(a->totalsLabel()->text().contains(QLocale().toString(qlonglong(cycles))),
            qPrintable(a->totalsLabel()->text()));
    }
}

/// Right after a change and before the search runs again: every view showing the old figures says so.
void checkMarkedStale(MainWindow& w, int row)
{
    QVERIFY(plotSaysStale(w));
    QVERIFY2(w.mappingView()->metricsText().contains(QStringLiteral("Stale")),
        qPrintable(w.mappingView()->metricsText()));
    QVERIFY(rowSaysStale(w, row));
    QVERIFY2(w.modelTotals()->text().contains(QStringLiteral("Stale")), qPrintable(w.modelTotals()->text()));
}

/// Sets a field of the accelerator panel as a user does and waits for the search it starts.
void retune(MainWindow& w, const char* key, int value, int shownRow)
{
    QSignalSpy finished(&w, &MainWindow::searchFinished);
    QSpinBox* box = field(w, key);
    QVERIFY(box);
    box->setValue(value);
    CHECK(checkMarkedStale(w, shownRow));
    QVERIFY(finished.wait(kSearchMs));
}
} // namespace

namespace {

// What is checked here is that every figure follows the panels, whichever search made it: without the
// refinement (tst_refine's subject) each search costs a fraction, above all under the sanitizers.
void withoutRefinement(MainWindow& w)
{
    search::SearchOptions options = w.searchPanel()->options();
    options.refine = false;
    w.searchPanel()->setOptions(options);
}

} // namespace

class TestRetuneFigures : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    /// One layer of a model, shown as the vgg16_conv_p2 project shows its layer: each retune's figures.
    void layerFiguresFollowEachRetune()
    {
        const workloads::Workload model = workloads::loadWorkload(kModel.toStdString());
        const int row = 0; // a 16 x 16 x 16 GEMM: compute-bound on P2 until the NoC narrows
        const ir::Operator& op = model.layers[std::size_t(row)].op;
        MainWindow w;
        // The rooflines below are worked out for P2, whose DRAM bandwidth bounds nothing (the window's
        // default platform has a memory system).
        QVERIFY(w.acceleratorPanel()->loadPreset(
            QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/P2_edge.json")));
        QVERIFY(w.loadModel(kModel));
        w.searchPanel()->setCompareStyles(false); // until the last step: they search several times more
        withoutRefinement(w);
        w.modelView()->selectRow(row);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        w.searchPanel()->runButton()->click();
        QVERIFY(finished.wait(kSearchMs));

        std::optional<Fresh> f;
        auto check = [&](std::int64_t expectedRoofline) {
            const arch::Accelerator acc = w.acceleratorPanel()->accelerator();
            f = freshSearch(op, acc, w.searchPanel()->options());
            QCOMPARE(f->roofline, expectedRoofline); // the retune moved the roofline as worked out below
            CHECK(checkRow(w, row, *f));
            CHECK(checkShownLayer(w, *f, acc));
            QVERIFY2(w.modelTotals()->text().startsWith(
                         QStringLiteral("1 of 3 layers: %L1 cycles").arg(qlonglong(f->best.metrics.runtime))),
                qPrintable(w.modelTotals()->text()));
            QVERIFY(!w.modelTotals()->text().contains(QStringLiteral("Stale")));
        };
        // 4,096 MACs; compulsory traffic 512 elements read (A, B), 256 written (C).
        CHECK(check(4)); // 1024 PEs: 4096 / 1024 (the NoC's 512 / 128 as well)
        CHECK(retune(w, "num_pes", 256, row));
        CHECK(check(16)); // 4096 / 256
        CHECK(retune(w, "simd_lanes", 2, row));
        CHECK(check(8)); // 4096 / 512
        CHECK(retune(w, "noc_bandwidth_elements_per_cycle", 16, row));
        CHECK(check(32)); // 512 read / 16 per cycle
        CHECK(retune(w, "l1_bytes", 128, row));
        CHECK(check(32)); // buffers move no bound
        CHECK(retune(w, "l2_bytes", 1024, row));
        CHECK(check(32));

        // The objective, with the styles compared: the search runs again for energy.
        w.searchPanel()->setCompareStyles(true);
        QComboBox* objective = objectiveBox(w);
        QVERIFY(objective);
        objective->setCurrentIndex(1); // energy
        QVERIFY(plotSaysStale(w));
        QVERIFY(w.mappingView()->metricsText().contains(QStringLiteral("Stale")));
        QVERIFY(rowSaysStale(w, row));
        QVERIFY(finished.wait(kSearchMs));
        QVERIFY(w.searchPanel()->options().objective == search::Objective::Energy);
        CHECK(check(32));
        const arch::Accelerator acc = w.acceleratorPanel()->accelerator();
        const std::vector<styles::StyleSearch> direct
            = styles::searchLayerStyles(op, acc, w.searchPanel()->options());
        QTableWidget* table = w.mappingView()->styleTable();
        QCOMPARE(table->rowCount(), int(direct.size()));
        for (std::size_t s = 0; s < direct.size(); ++s) {
            if (!direct[s].best) continue;
            const search::Metrics& m = direct[s].best->metrics;
            QCOMPARE(
                table->item(int(s), MappingView::Runtime)->text(), QLocale().toString(qlonglong(m.runtime)));
            QCOMPARE(table->item(int(s), MappingView::Energy)->text(), QString::number(m.energy, 'g', 4));
            // The column compares the objective's figure: energy here (issue 36).
            QCOMPARE(cell(w, row, ModelTableModel::FirstStyle + int(s), ModelTableModel::SortRole).toDouble(),
                m.energy / f->best.metrics.energy);
            bool marked = false;
            for (const ParetoPlot::StyleMark& mark : w.paretoPlot()->styleMarks())
                marked = marked || (mark.runtime == m.runtime && mark.energy == m.energy);
            QVERIFY(marked);
        }

        // Another layer, not searched: the plot and the cost panel still show this one's, so they say so;
        // back on this layer they are current again.
        w.modelView()->selectRow(1);
        QVERIFY(plotSaysStale(w));
        QVERIFY(w.mappingView()->metricsText().contains(QStringLiteral("the workload changed")));
        w.modelView()->selectRow(row);
        CHECK(check(32));
    }

    /// The operator in the editor is the workload: a comment leaves its figures current, another size
    /// marks them stale.
    void editingTheOperatorMarksItsFiguresStale()
    {
        MainWindow w;
        w.searchPanel()->setCompareStyles(false);
        withoutRefinement(w);
        w.editor()->setPlainText(QString::fromStdString(workloads::gemmLoopText(16, 16, 16)));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(kSearchMs));
        QTRY_VERIFY_WITH_TIMEOUT(w.animationPanel()->summary(), kSearchMs);
        QVERIFY(!plotSaysStale(w));
        w.editor()->appendPlainText(QStringLiteral("// a note"));
        QVERIFY(!plotSaysStale(w));
        QVERIFY(!w.mappingView()->metricsText().contains(QStringLiteral("Stale")));
        w.editor()->setPlainText(QString::fromStdString(workloads::gemmLoopText(16, 16, 32)));
        QVERIFY(plotSaysStale(w));
        QVERIFY(w.mappingView()->metricsText().contains(QStringLiteral("the workload changed")));
        QVERIFY(w.animationPanel()->totalsLabel()->text().contains(QStringLiteral("Stale")));
    }

    /// A project opens on its saved mapping as current; the plot of a search made before it (another
    /// workload, another accelerator) is marked stale.
    void openedProjectIsCurrent()
    {
        MainWindow w;
        w.searchPanel()->setCompareStyles(false);
        withoutRefinement(w);
        w.editor()->setPlainText(QString::fromStdString(workloads::gemmLoopText(16, 16, 16)));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(kSearchMs));
        const QDir projects(QStringLiteral(MARVEL_SAMPLES_DIR "/projects"));
        int withMapping = 0;
        for (const QString& name : projects.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            QVERIFY(w.openFile(projects.filePath(name)));
            QVERIFY2(plotSaysStale(w), qPrintable(name));
            const QString cost = w.mappingView()->metricsText();
            if (cost.contains(QStringLiteral("Runtime"))) ++withMapping;
            // The project's own selected mapping is shown current, and is the one the window would save
            // (not the selection of the operator searched before).
            const project::Project opened = project::loadProject(projects.filePath(name).toStdString());
            if (!opened.selectedMapping) continue;
            QVERIFY2(!cost.contains(QStringLiteral("Stale")), qPrintable(name + QStringLiteral(": ") + cost));
            QVERIFY(w.currentProject().selectedMapping);
            QCOMPARE(mapping::toJson(w.currentProject().selectedMapping->mapping),
                mapping::toJson(opened.selectedMapping->mapping));
        }
        QVERIFY(withMapping > 0);
    }

    /// A design sweep around the accelerator stays current while a design point of its grid is loaded,
    /// and is marked stale when a parameter it did not vary, or its objective, changes.
    void sweepMarkedStaleOffItsGrid()
    {
        MainWindow w;
        w.searchPanel()->setCompareStyles(false);
        withoutRefinement(w);
        QVERIFY(w.loadModel(kModel));
        w.sweepPanel()->setAxes(
            QStringLiteral("pes"), QStringLiteral("64,128"), QStringLiteral("l2"), QStringLiteral("32K,64K"));
        QSignalSpy swept(w.sweepController(), &SweepController::finished);
        QVERIFY(w.runSweep());
        QVERIFY(swept.wait(kSearchMs));
        auto sweepSaysStale = [&] {
            for (QLabel* l : w.sweepPanel()->findChildren<QLabel*>())
                if (!l->isHidden() && l->text().startsWith(QStringLiteral("Stale"))) return true;
            return false;
        };
        QVERIFY(!sweepSaysStale());
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.loadDesignPoint(3)); // 128 PEs, 64 KB of L2: on the grid
        QCOMPARE(w.acceleratorPanel()->accelerator().numPes, 128);
        QVERIFY(finished.wait(kSearchMs));
        QVERIFY(!sweepSaysStale());
        field(w, "l1_bytes")->setValue(256); // not varied by the sweep
        QVERIFY(sweepSaysStale());
        field(w, "l1_bytes")->setValue(512);
        QVERIFY(!sweepSaysStale());
        QComboBox* objective = nullptr;
        for (QComboBox* c : w.sweepPanel()->findChildren<QComboBox*>())
            if (c->findText(QStringLiteral("EDP")) >= 0) objective = c;
        QVERIFY(objective);
        objective->setCurrentIndex(objective->findText(QStringLiteral("energy")));
        QVERIFY(sweepSaysStale());
    }

    /// A whole model: after a search of every layer each row and the totals equal core's; a retune
    /// searches the shown layer again and leaves the other rows and the totals marked stale until the
    /// whole model is searched again.
    void modelFiguresFollowARetune()
    {
        const workloads::Workload model = workloads::loadWorkload(kModel.toStdString());
        MainWindow w;
        w.searchPanel()->setCompareStyles(false);
        withoutRefinement(w);
        QVERIFY(w.loadModel(kModel));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QPushButton* searchAll = nullptr;
        for (QPushButton* b : w.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Search whole model")) searchAll = b;
        QVERIFY(searchAll);
        auto checkAll = [&] {
            const arch::Accelerator acc = w.acceleratorPanel()->accelerator();
            std::int64_t runtime = 0, roofline = 0;
            double energy = 0;
            int below = 0; // layers below their roofline (maestro fidelity's off-chip formula)
            std::vector<Fresh> fresh;
            for (std::size_t i = 0; i < model.layers.size(); ++i) {
                fresh.push_back(freshSearch(model.layers[i].op, acc, w.searchPanel()->options()));
                CHECK(checkRow(w, int(i), fresh.back()));
                const int repeat = model.layers[i].repeat;
                runtime += fresh.back().best.metrics.runtime * repeat;
                energy += fresh.back().best.metrics.energy * repeat;
                roofline += fresh.back().roofline * repeat;
                below += fresh.back().overRoofline() < 1 ? 1 : 0;
            }
            QString totals
                = QStringLiteral("3 of 3 layers: %L1 cycles, energy %2 MAC units, %3\u00d7 the roofline")
                      .arg(qlonglong(runtime))
                      .arg(energy, 0, 'g', 4)
                      .arg(double(runtime) / double(roofline), 0, 'f', 3);
            if (below > 0) totals += QStringLiteral("; %1 below their roofline (marked !)").arg(below);
            // The tiny model has one layer of each kind: their shares, in the order of workloads::LayerKind.
            std::vector<std::size_t> order(model.layers.size());
            std::iota(order.begin(), order.end(), std::size_t(0));
            std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return model.layers[a].effectiveKind() < model.layers[b].effectiveKind();
            });
            QStringList shares;
            for (std::size_t i : order)
                shares << QStringLiteral("%1 %2%")
                              .arg(QString::fromLatin1(workloads::toString(model.layers[i].effectiveKind())))
                              .arg(100.0 * double(fresh[i].best.metrics.runtime * model.layers[i].repeat)
                                      / double(runtime),
                                  0, 'f', 1);
            totals += QStringLiteral("; cycles by kind: ") + shares.join(QStringLiteral(", "));
            QCOMPARE(w.modelTotals()->text(), totals);
            // The first layer is shown once the model is searched.
            CHECK(checkShownLayer(w, fresh[0], acc));
        };
        searchAll->click();
        QVERIFY(finished.wait(kSearchMs));
        CHECK(checkAll());
        // Every column says what it holds (a style added to the list once took the Status header).
        for (std::size_t s = 0; s < styles::allStyles().size(); ++s)
            QCOMPARE(
                w.modelTable()->headerData(ModelTableModel::FirstStyle + int(s), Qt::Horizontal).toString(),
                QString::fromStdString(styles::shortLabel(styles::allStyles()[s])));
        QCOMPARE(w.modelTable()->headerData(ModelTableModel::Status, Qt::Horizontal).toString(),
            QStringLiteral("Status"));

        // The shown layer (the first) is searched again on 256 PEs; the other two keep 1024 PEs' figures.
        CHECK(retune(w, "num_pes", 256, 0));
        const arch::Accelerator acc = w.acceleratorPanel()->accelerator();
        const Fresh first = freshSearch(model.layers[0].op, acc, w.searchPanel()->options());
        CHECK(checkRow(w, 0, first));
        CHECK(checkShownLayer(w, first, acc));
        QVERIFY(rowSaysStale(w, 1));
        QVERIFY(rowSaysStale(w, 2));
        QVERIFY2(w.modelTotals()->text().contains(QStringLiteral("Stale: 2 of the 3 layers")),
            qPrintable(w.modelTotals()->text()));

        searchAll->click();
        QVERIFY(finished.wait(kSearchMs));
        CHECK(checkAll());
    }
};

QTEST_MAIN(TestRetuneFigures)
#include "tst_retune_figures.moc"
