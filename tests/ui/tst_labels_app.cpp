// Labels that must say what is true (issue 36, points 6 and 7), offscreen: the Search panel's tile pruning,
// the model table's style columns under the energy objective, the unsaved-changes prompt when only the
// accelerator changed, an edited preset's name in the Timeloop export, the plot's three best marks and its
// style labels clear of the front, the front CSV the CLI writes too, the sweep heat map's cell labels and
// its design-front legend, and the shortcuts list by menu.
#include <functional>

#include <QApplication>
#include <QFile>
#include <QFormLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <qcustomplot.h>

#include "core/arch/accelerator_io.h"
#include "core/sweep/sweep.h"
#include "core/workloads/workloads.h"
#include "tests/ui/ui_samples.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_panel.h"

using namespace marvel;
using namespace marvel::ui;

namespace {
const QString kClassroomProject = QStringLiteral(MARVEL_SAMPLES_DIR "/projects/conv2d_classroom.json");
const QString kEdgeDram = QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/edge1024_dram.json");

search::Candidate labelsCandidate(std::uint64_t index, std::int64_t runtime, double energy)
{
    search::Candidate c;
    c.index = index;
    c.metrics.runtime = runtime;
    c.metrics.energy = energy;
    c.metrics.utilization = 1;
    return c;
}

/// Where a QCPItemText is drawn, in the plot's pixels: its text and padding placed by its position and
/// alignment (computed here from QCustomPlot's own rules, not from the code under test).
QRectF drawnRect(QCPItemText* t)
{
    const QPointF at = t->position->pixelPosition();
    const QSizeF size = QFontMetricsF(t->font()).size(Qt::TextSingleLine, t->text())
        + QSizeF(t->padding().left() + t->padding().right(), t->padding().top() + t->padding().bottom());
    QPointF topLeft = at;
    const Qt::Alignment a = t->positionAlignment();
    if (a & Qt::AlignHCenter) topLeft.rx() -= size.width() / 2;
    if (a & Qt::AlignRight) topLeft.rx() -= size.width();
    if (a & Qt::AlignVCenter) topLeft.ry() -= size.height() / 2;
    if (a & Qt::AlignBottom) topLeft.ry() -= size.height();
    return QRectF(topLeft, size);
}

/// Answers the next modal message box with Cancel and hands back its text.
void cancelNextMessageBox(QString* text)
{
    QTimer::singleShot(0, [text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return cancelNextMessageBox(text); // not open yet
        *text = box->text();
        box->button(QMessageBox::Cancel)->click();
    });
}
} // namespace

class TestLabelsApp : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    /// The PE-utilisation bound prunes the decoupled search's tiles; the refinement can return fewer PEs.
    /// The row said "Min. PE utilisation", which reads as a constraint on the result.
    void tilePruningSaysWhatItDoes()
    {
        SearchPanel panel;
        auto* box = panel.findChild<QDoubleSpinBox*>(QStringLiteral("tilePruning"));
        QVERIFY(box);
        QString label;
        for (QFormLayout* form : panel.findChildren<QFormLayout*>())
            if (auto* l = qobject_cast<QLabel*>(form->labelForField(box))) label = l->text();
        QCOMPARE(label, QStringLiteral("Prune tiles below"));
        QCOMPARE(box->text(), QStringLiteral("0.10 of the PEs"));
        QVERIFY(box->toolTip().contains(QStringLiteral("Not a constraint on the result")));
    }

    /// Under the energy objective a style column compares energies: a style twice as costly at half the
    /// runtime is "x2.00", not the runtimes' "x0.50".
    void styleColumnsCompareTheObjective()
    {
        ModelTableModel model;
        model.setWorkload(workloads::loadWorkload(MARVEL_SAMPLES_DIR "/models/tiny_cnn.json"));
        QVERIFY(model.rowCount() > 0);
        ResultBasis basis;
        basis.accelerator = arch::loadAccelerator(uitest::kEdge.toStdString());
        basis.options.objective = search::Objective::Energy;
        model.setCurrent(basis.accelerator, basis.options);
        auto result = std::make_shared<search::LayerSearchResult>();
        result->result.bestEnergy = labelsCandidate(0, 1000, 500);
        result->result.bestRuntime = labelsCandidate(1, 400, 900);
        result->result.pareto = {*result->result.bestRuntime, *result->result.bestEnergy};
        model.setLayerResult(0, result, basis);
        auto styles = std::make_shared<std::vector<styles::StyleSearch>>(1);
        (*styles)[0].style = styles::allStyles()[0];
        (*styles)[0].best = labelsCandidate(0, 500, 1000);
        model.setLayerStyles(0, styles);
        const std::optional<double> ratio = model.styleRatio(0, styles::allStyles()[0]);
        QVERIFY(ratio);
        QCOMPARE(*ratio, 2.0);
        const QModelIndex cell = model.index(0, ModelTableModel::FirstStyle);
        QCOMPARE(model.data(cell).toString(), QStringLiteral("\u00d72.00"));
        QVERIFY(model.data(cell, Qt::ToolTipRole).toString().contains(QStringLiteral("energy")));
        QVERIFY(model.headerData(ModelTableModel::FirstStyle, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("energy")));
    }

    /// Only the project's accelerator changed: the prompt says so, not that the operator has changes.
    void unsavedPromptNamesWhatChanged()
    {
        MainWindow w;
        QVERIFY(w.openProject(kClassroomProject));
        QVERIFY(!w.hasUnsavedChanges());
        qobject_cast<QSpinBox*>(w.acceleratorPanel()->field(QStringLiteral("num_pes")))->setValue(4);
        QVERIFY(w.hasUnsavedChanges());
        QString text;
        cancelNextMessageBox(&text);
        w.newOperator(); // asks first; Cancel keeps everything
        QCOMPARE(text,
            QStringLiteral(
                "The project's accelerator changed since it was saved (the operator did not). Save "
                "the project first?"));
        QVERIFY(w.hasUnsavedChanges());
        QVERIFY(!w.currentProjectFile().isEmpty());
    }

    /// A preset edited in the panel is named for what changed, and that name is what an export writes:
    /// arch.yaml said "Edge 1024" for a 256-PE design.
    void editedPresetIsNamedForTheEdit()
    {
        AcceleratorPanel panel;
        QVERIFY(panel.loadPreset(kEdgeDram));
        QCOMPARE(panel.accelerator().name, std::string("Edge 1024 with DRAM"));
        qobject_cast<QSpinBox*>(panel.field(QStringLiteral("num_pes")))->setValue(256);
        QCOMPARE(panel.accelerator().name, std::string("Edge 1024 with DRAM (edited: 256 PEs)"));
        QVERIFY(
            panel.accelerator().description.find("Edited in Marvel Studio from Edge 1024 with DRAM") == 0);
        qobject_cast<QSpinBox*>(panel.field(QStringLiteral("l2_bytes")))->setValue(65536);
        QCOMPARE(panel.accelerator().name, std::string("Edge 1024 with DRAM (edited: 256 PEs, L2 64 KiB)"));
        qobject_cast<QSpinBox*>(panel.field(QStringLiteral("num_pes")))->setValue(1024);
        qobject_cast<QSpinBox*>(panel.field(QStringLiteral("l2_bytes")))->setValue(110592);
        QCOMPARE(panel.accelerator().name, std::string("Edge 1024 with DRAM")); // back to the preset

        // The Timeloop export of a search on an edited accelerator.
        MainWindow w;
        QVERIFY(w.openProject(kClassroomProject));
        QSignalSpy changed(w.acceleratorPanel(), &AcceleratorPanel::acceleratorChanged);
        qobject_cast<QSpinBox*>(w.acceleratorPanel()->field(QStringLiteral("num_pes")))->setValue(4);
        QVERIFY(changed.wait(3000)); // after the typing pause
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        QVERIFY(w.selectedCandidate());
        QCOMPARE(w.selectedCandidate()->mapping.activePes() <= 4, true);
        QTemporaryDir dir;
        QVERIFY2(w.exportMapping(
                     dir.filePath(QStringLiteral("out.timeloop")), MainWindow::MappingFormat::Timeloop),
            qPrintable(w.lastError()));
        QFile arch(dir.filePath(QStringLiteral("out/arch.yaml")));
        QVERIFY(arch.open(QIODevice::ReadOnly));
        const QString first = QString::fromUtf8(arch.readLine());
        QVERIFY2(first.startsWith(QStringLiteral("# Accelerator Classroom (8 PEs) (edited: 4 PEs) ")),
            qPrintable(first));
    }

    /// Best runtime, best energy and best EDP: three marks of their own with their own legend entries.
    void bestMarksAreDistinct()
    {
        ParetoPlot plot;
        plot.resize(800, 500);
        const std::vector<search::Candidate> front
            = {labelsCandidate(1, 1000, 9e6), labelsCandidate(2, 2000, 3e6), labelsCandidate(3, 8000, 1e6)};
        plot.setFront(front);
        plot.setBest(front[0], front[2], front[1]);
        QCustomPlot* p = plot.plot();
        auto graphNamed = [p](const QString& name) -> QCPGraph* {
            for (int i = 0; i < p->graphCount(); ++i)
                if (p->graph(i)->name() == name) return p->graph(i);
            return nullptr;
        };
        QCPGraph* runtime = graphNamed(QStringLiteral("best runtime"));
        QCPGraph* energy = graphNamed(QStringLiteral("best energy"));
        QCPGraph* edp = graphNamed(QStringLiteral("best EDP"));
        QVERIFY(runtime && energy && edp);
        QSet<int> shapes{int(runtime->scatterStyle().shape()), int(energy->scatterStyle().shape()),
            int(edp->scatterStyle().shape())};
        QCOMPARE(shapes.size(), 3);
        QCOMPARE(runtime->dataCount(), 1);
        QCOMPARE(runtime->data()->at(0)->key, 1000.0);
        QCOMPARE(energy->data()->at(0)->value, 1e6);
        QCOMPARE(edp->data()->at(0)->key, 2000.0); // 2000 x 3e6 = 6e9, the least
        for (QCPGraph* g : {runtime, energy, edp})
            QVERIFY(p->legend->itemWithPlottable(g));
    }

    /// Style labels cover no front point, no stretch of the front's step line, no best mark, no other
    /// style's mark and no other label, even with the marks crowded onto the front.
    void styleLabelsKeepClearOfTheFront()
    {
        ParetoPlot plot;
        plot.resize(900, 560);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        std::vector<search::Candidate> front;
        for (int i = 0; i < 12; ++i)
            front.push_back(labelsCandidate(std::uint64_t(i), 100000 + 20000 * i, 8e8 / (1 + 0.25 * i)));
        plot.setFront(front);
        plot.setBest(front[0], front[11], front[4]);
        // Marks just off the front, where the old labels (right of the mark) fell on its next points.
        plot.setStyleMarks({{QStringLiteral("RS"), 120000, 7.0e8}, {QStringLiteral("WS"), 140000, 5.9e8},
            {QStringLiteral("OS, IS"), 160000, 5.1e8}, {QStringLiteral("DMZ"), 100000, 8.2e8},
            // Just under a stretch of the front: a label above and to the right of it would cover the line.
            {QStringLiteral("GEN"), 110000, 7.7e8}});
        plot.replotNowMs();
        QCustomPlot* p = plot.plot();
        auto pixel = [p](double x, double y) {
            return QPointF(p->xAxis->coordToPixel(x), p->yAxis->coordToPixel(y));
        };
        std::vector<QRectF> obstacles;
        for (std::size_t i = 0; i < front.size(); ++i) {
            const QPointF a = pixel(double(front[i].metrics.runtime), front[i].metrics.energy);
            obstacles.push_back(QRectF(a - QPointF(4, 4), QSizeF(8, 8)));
            if (i + 1 < front.size()) { // the step: along, then down
                const QPointF b = pixel(double(front[i + 1].metrics.runtime), front[i + 1].metrics.energy);
                obstacles.push_back(
                    QRectF(QPointF(a.x(), a.y() - 1), QPointF(b.x(), a.y() + 1)).normalized());
                obstacles.push_back(
                    QRectF(QPointF(b.x() - 1, a.y()), QPointF(b.x() + 1, b.y())).normalized());
            }
        }
        for (const ParetoPlot::StyleMark& m : plot.styleMarks())
            obstacles.push_back(QRectF(pixel(double(m.runtime), m.energy) - QPointF(5, 5), QSizeF(10, 10)));
        std::vector<QRectF> labels;
        for (int i = 0; i < p->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->visible()) {
                const QString text = t->text();
                if (QStringList{QStringLiteral("RS"), QStringLiteral("WS"), QStringLiteral("OS, IS"),
                        QStringLiteral("DMZ"), QStringLiteral("GEN")}
                        .contains(text))
                    labels.push_back(drawnRect(t));
            }
        QCOMPARE(labels.size(), std::size_t(5));
        for (std::size_t i = 0; i < labels.size(); ++i) {
            QVERIFY(p->axisRect()->rect().contains(labels[i].toRect()));
            for (const QRectF& o : obstacles)
                QVERIFY2(!labels[i].intersects(o),
                    qPrintable(QStringLiteral("label %1 at %2,%3 covers %4,%5")
                                   .arg(i)
                                   .arg(labels[i].x())
                                   .arg(labels[i].y())
                                   .arg(o.center().x())
                                   .arg(o.center().y())));
            for (std::size_t j = i + 1; j < labels.size(); ++j)
                QVERIFY(!labels[i].intersects(labels[j]));
        }
    }

    /// The plot's "Export Pareto front as CSV" writes what `marvel search --pareto-csv` writes for the
    /// same search: the same columns, the same shortest exact numbers (no 0.0045194199999999997).
    void frontCsvIsTheCliOne()
    {
        MainWindow w;
        QVERIFY(w.openProject(kClassroomProject));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        QTemporaryDir dir;
        const QString app = dir.filePath(QStringLiteral("app.csv"));
        const QString cli = dir.filePath(QStringLiteral("cli.csv"));
        QVERIFY(w.paretoPlot()->saveFrontCsv(app));
        QProcess marvel;
        marvel.start(QStringLiteral(MARVEL_CLI_PATH),
            {QStringLiteral("search"), QStringLiteral("--project"), kClassroomProject,
                QStringLiteral("--pareto-csv"), cli});
        QVERIFY(marvel.waitForFinished(60000));
        QCOMPARE(marvel.exitCode(), 0);
        QFile a(app), c(cli);
        QVERIFY(a.open(QIODevice::ReadOnly) && c.open(QIODevice::ReadOnly));
        const QByteArray appText = a.readAll();
        QCOMPARE(appText, c.readAll());
        QVERIFY(appText.startsWith("layer,runtime_cycles,energy,edp,utilization,mac_energy,"));
        QVERIFY(appText.count('\n') >= 2); // a header and a front
    }

    /// Cell labels of a dense heat map in a narrow panel never run together: each visible one fits its
    /// cell (a shorter form, else none; the tooltip keeps the figures). The design-front legend sits
    /// outside the axes, where it covers no design point.
    void heatMapLabelsFitTheirCells()
    {
        arch::Accelerator base = arch::loadAccelerator(uitest::kEdge.toStdString());
        auto grid = std::make_shared<sweep::Grid>(base,
            std::vector<sweep::Axis>{sweep::parseVary("pes=64,128,256,512,1024,2048,4096,8192,16384"),
                sweep::parseVary("l2=16K,32K,64K,128K,256K")});
        SweepPanel panel;
        panel.resize(760, 420);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.startGrid(grid);
        std::vector<sweep::PointResult> points;
        for (std::size_t i = 0; i < grid->size(); ++i) {
            sweep::PointResult p;
            p.index = i;
            p.parameters = grid->parameters(i);
            p.ok = true;
            p.runtime = 90'600'000 + std::int64_t(i) * 1000; // "90.6M" in every cell
            p.energy = 1e9;
            p.edp = double(p.runtime) * p.energy;
            p.area = 1e6 * double(i + 1);
            p.roofline = 90'000'000;
            points.push_back(p);
        }
        panel.addPoints(points);
        QCustomPlot* heat = panel.heatMap();
        heat->replot(QCustomPlot::rpImmediateRefresh);
        const double cellWidth = heat->axisRect()->width() / 9.0;
        std::vector<QRectF> shown;
        int hidden = 0;
        for (int i = 0; i < heat->itemCount(); ++i) {
            auto* t = qobject_cast<QCPItemText*>(heat->item(i));
            if (!t) continue;
            if (!t->visible()) {
                ++hidden;
                continue;
            }
            const QRectF r = drawnRect(t);
            QVERIFY2(r.width() <= cellWidth - 4,
                qPrintable(QStringLiteral("%1 in %2 px").arg(t->text()).arg(cellWidth)));
            shown.push_back(r);
        }
        QCOMPARE(int(shown.size()) + hidden, 45);
        for (std::size_t i = 0; i < shown.size(); ++i)
            for (std::size_t j = i + 1; j < shown.size(); ++j)
                QVERIFY(!shown[i].intersects(shown[j]));

        // The column values along the bottom do not run together either ("819216384"): every k-th one.
        QApplication::processEvents(); // the replot with the thinned ticks
        heat->replot(QCustomPlot::rpImmediateRefresh);
        auto ticker = heat->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        const QFontMetricsF tickFont(heat->xAxis->tickLabelFont());
        std::vector<std::pair<double, double>> spans; // left and right pixel of each named column
        for (auto it = ticker->ticks().constBegin(); it != ticker->ticks().constEnd(); ++it) {
            if (it.value().isEmpty()) continue;
            const double centre = heat->xAxis->coordToPixel(it.key());
            const double half = tickFont.horizontalAdvance(it.value()) / 2;
            spans.emplace_back(centre - half, centre + half);
        }
        QVERIFY(spans.size() >= 3);
        for (std::size_t i = 1; i < spans.size(); ++i)
            QVERIFY2(spans[i - 1].second + 2 < spans[i].first, qPrintable(QString::number(i)));

        QCustomPlot* front = panel.paretoPlot();
        front->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(front->legend->visible());
        QVERIFY(!front->legend->outerRect().intersects(front->axisRect()->rect()));
    }

    /// Help > Keyboard shortcuts lists the keys by menu, in the menus' order, then the panels' keys under
    /// their panel; Ctrl+Return says what it applies.
    void shortcutsFollowTheMenus()
    {
        MainWindow w;
        const auto groups = w.shortcutGroups();
        QStringList names;
        for (const auto& g : groups)
            names << g.first;
        // The menus with keys come first, in the menu bar's order.
        QStringList menus;
        for (QAction* a : w.menuBar()->actions())
            if (names.contains(a->text().remove(QLatin1Char('&'))))
                menus << a->text().remove(QLatin1Char('&'));
        QVERIFY(menus.size() >= 3);
        QCOMPARE(names.mid(0, menus.size()), menus);
        // The flat list starts with every menu's keys in menu order (Edit: Undo, Redo, Find - not the
        // alphabet's Find, Redo, Undo).
        QStringList menuRows;
        std::function<void(QMenu*)> walk = [&](QMenu* menu) {
            for (QAction* a : menu->actions()) {
                if (a->menu()) walk(a->menu());
                for (const QKeySequence& k : a->shortcuts()) {
                    const QString row = k.toString(QKeySequence::NativeText) + QLatin1Char('\t')
                        + a->text().remove(QLatin1Char('&'));
                    if (!menuRows.contains(row)) menuRows << row;
                }
            }
        };
        for (QAction* a : w.menuBar()->actions())
            if (a->menu()) walk(a->menu());
        QVERIFY(menuRows.size() >= 6);
        QCOMPARE(w.shortcutList().mid(0, menuRows.size()), menuRows);
        QCOMPARE(menuRows.first(), QStringLiteral("Ctrl+N\tNew"));
        const int animation = names.indexOf(QStringLiteral("Animation"));
        QVERIFY(animation >= 0);
        const QStringList keys = groups[animation].second;
        QVERIFY2(keys.contains(QStringLiteral(
                     "Ctrl+Return\tAnimate the directives typed under \"Try your own\" on this layer")),
            qPrintable(keys.join(QLatin1Char('\n'))));
        QVERIFY(keys.contains(QStringLiteral("Space\tPlay / pause")));
    }
};

QTEST_MAIN(TestLabelsApp)
#include "tst_labels_app.moc"
