// Mapping styles in the app, offscreen: after a search, each style's best mapping is a labelled mark on
// the plot, the mapping view compares the selected mapping with each style's best, and a model search
// fills one column per style — all with the numbers core's own style searches give.
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/styles/styles.h"
#include "tests/ui/ui_samples.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"

using namespace marvel;
using namespace marvel::ui;

using uitest::kEdge;
namespace {
const QString kConv = QStringLiteral(MARVEL_SAMPLES_DIR "/operators/conv2d.loop");
} // namespace

class TestStylesApp : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void styleMarksAndComparison()
    {
        MainWindow w;
        QVERIFY(w.openFile(kConv));
        QVERIFY(w.acceleratorPanel()->loadPreset(kEdge));
        QVERIFY(w.searchPanel()->compareStyles()); // on by default
        QSignalSpy styles(w.searchController(), &SearchController::stylesFinished);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(120000));
        QCOMPARE(styles.count(), 1);

        // The same searches through core.
        const ir::Operator op = ir::parseOperatorFile(kConv.toStdString());
        const arch::Accelerator acc = arch::loadAccelerator(kEdge.toStdString());
        const std::vector<styles::StyleSearch> direct
            = styles::searchLayerStyles(op, acc, w.searchPanel()->options());
        QCOMPARE(direct.size(), styles::allStyles().size());

        // One mark per distinct style best, labelled with every style that found it.
        std::size_t found = 0;
        for (const styles::StyleSearch& s : direct) {
            if (!s.best) continue;
            ++found;
            bool marked = false;
            for (const ParetoPlot::StyleMark& m : w.paretoPlot()->styleMarks())
                marked
                    = marked || (m.runtime == s.best->metrics.runtime && m.energy == s.best->metrics.energy);
            QVERIFY2(marked, styles::toString(s.style).c_str());
        }
        QVERIFY(found > 0);
        QVERIFY(w.paretoPlot()->styleMarks().size() <= found);

        // The mapping view: one row per style, ratios against the selected (best) mapping.
        QVERIFY(w.selectedCandidate());
        const search::Metrics selected = w.selectedCandidate()->metrics;
        QTableWidget* table = w.mappingView()->styleTable();
        QVERIFY(!table->isHidden());
        QCOMPARE(table->rowCount(), int(direct.size()));
        for (int r = 0; r < table->rowCount(); ++r) {
            const styles::StyleSearch& s = direct[std::size_t(r)];
            QCOMPARE(table->item(r, MappingView::Name)->text(),
                QString::fromStdString(styles::shortLabel(s.style)));
            QVERIFY(table->item(r, MappingView::Name)
                        ->toolTip()
                        .contains(QString::fromStdString(styles::description(s.style))));
            if (!s.best) continue;
            QCOMPARE(table->item(r, MappingView::RuntimeRatio)->text(),
                QString::number(double(s.best->metrics.runtime) / double(selected.runtime), 'f', 2));
            // The search's best runtime is never beaten by a restriction of its own space.
            if (styles::isConstraint(s.style)) QVERIFY(s.best->metrics.runtime >= selected.runtime);
        }

        // Off: no style search, no marks.
        w.searchPanel()->setCompareStyles(false);
        styles.clear();
        finished.clear();
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(120000));
        QCOMPARE(styles.count(), 0);
        QVERIFY(w.paretoPlot()->styleMarks().empty());
        QVERIFY(table->isHidden());
    }

    void modelViewHasAColumnPerStyle()
    {
        MainWindow w;
        QVERIFY(w.loadModel(QStringLiteral(MARVEL_SAMPLES_DIR "/models/tiny_cnn.json")));
        QVERIFY(w.acceleratorPanel()->loadPreset(kEdge));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.searchModel());
        QVERIFY(finished.wait(120000));
        ModelTableModel* model = w.modelTable();
        QCOMPARE(
            model->headerData(ModelTableModel::FirstStyle, Qt::Horizontal).toString(), QStringLiteral("RS"));
        QCOMPARE(model->headerData(ModelTableModel::LastStyle, Qt::Horizontal).toString(),
            QStringLiteral("Genetic"));
        const arch::Accelerator acc = arch::loadAccelerator(kEdge.toStdString());
        for (int row = 0; row < model->rowCount(); ++row) {
            const auto layer = model->layerResult(row);
            QVERIFY(layer);
            const auto& best = layer->result.best(search::Objective::Runtime);
            QVERIFY(best);
            const workloads::WorkloadLayer& l = model->workload().layers[std::size_t(row)];
            for (styles::Style style : styles::allStyles()) {
                const styles::StyleSearch s
                    = styles::searchLayerStyle(l.op, acc, style, w.searchPanel()->options());
                const std::optional<double> ratio = model->styleRatio(row, style);
                QCOMPARE(ratio.has_value(), s.best.has_value());
                if (!s.best) continue;
                QCOMPARE(*ratio, double(s.best->metrics.runtime) / double(best->metrics.runtime));
                const QModelIndex cell = model->index(row, ModelTableModel::FirstStyle + int(style));
                QCOMPARE(cell.data().toString(), QStringLiteral("\u00d7%1").arg(*ratio, 0, 'f', 2));
            }
        }
    }
};

QTEST_MAIN(TestStylesApp)
#include "tst_styles_app.moc"
