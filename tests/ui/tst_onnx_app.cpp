// The app with an ONNX model (issue 24): the Model panel opens tests/data/onnx/resnet50.onnx (through
// File > Open and by drag-and-drop), says what the graph left out, and searches the whole model with the
// same totals as `marvel search --model` of it (tests/cli/tst_cli_onnx.cpp, same cheap settings).
#include <QDropEvent>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QUrl>
#include <QtTest>

#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/main_window.h"
#include "ui/model/model_table.h"
#include "ui/search/search_panel.h"

using namespace marvel;
using namespace marvel::ui;

namespace {
const QString kResNet = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/onnx/resnet50.onnx");
const QString kTransformer = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/onnx/transformer_encoder.onnx");
} // namespace

class TestOnnxApp : public QObject
{
    Q_OBJECT

private slots:
    void opensAndSaysWhatIsLeftOut()
    {
        MainWindow w;
        QVERIFY(w.openFile(kResNet));
        // 24 products, 12 ReLU and 4 add layers of distinct shapes (issue 35).
        QCOMPARE(w.modelTable()->rowCount(), 40);
        QCOMPARE(w.modelTable()->workload().totalMacs(), std::int64_t(4'089'184'256));
        QVERIFY2(w.modelTotals()->text().contains(
                     "40 layer(s); not searched yet; 50 node(s) of the graph not mapped"),
            qPrintable(w.modelTotals()->text()));
        QVERIFY(w.modelTotals()->toolTip().contains("not mapped: MaxPool (1)"));
        // The editor holds a note on the whole model, not an operator: the verdict says what to do
        // rather than reporting the note as an operator that does not parse.
        QCOMPARE(w.verdictLabel()->text(),
            QStringLiteral("Model <b>resnet50.onnx</b>: pick a layer in the Model panel to check it against "
                           "the rules."));
    }

    /// An empty .onnx is refused as an empty file (not as a model without graph nodes), and the model
    /// shown before stays.
    void refusesAnEmptyFile()
    {
        MainWindow w;
        QVERIFY(w.openFile(QStringLiteral(MARVEL_SAMPLES_DIR "/models/tiny_cnn.json")));
        const QString empty = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/onnx/bad/empty.onnx");
        QVERIFY(!w.openFile(empty));
        QCOMPARE(w.lastError(), empty + QStringLiteral(": empty file"));
        QCOMPARE(w.statusBar()->currentMessage(), w.lastError());
        QCOMPARE(w.modelTable()->rowCount(), 3);
    }

    /// A JSON model opened as a file (not a project) goes to the Model panel too.
    void opensAJsonModelFile()
    {
        MainWindow w;
        QVERIFY(w.openFile(QStringLiteral(MARVEL_SAMPLES_DIR "/models/tiny_cnn.json")));
        QCOMPARE(w.modelTable()->rowCount(), 3);
        // conv1 16x3x3x3 over 16x16 outputs, dw2 16x3x3 over 16x16, pw2 32x16 over 16x16.
        QCOMPARE(w.modelTable()->workload().totalMacs(), std::int64_t(110'592 + 36'864 + 131'072));
        QVERIFY(w.verdictLabel()->text().startsWith("Model <b>tiny_cnn.json</b>"));
    }

    void dropOpensTheModel()
    {
        MainWindow w;
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(kTransformer)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        // 5 products, the scaling of Q, softmax's 4 parts, the adds, LayerNorm's 4 parts and the ReLU.
        QCOMPARE(w.modelTable()->rowCount(), 16);
        const auto& qk = w.modelTable()->workload().layers[2];
        QCOMPARE(qk.repeat, 16); // Q K^T and A V, 2 x 4 heads each
        QVERIFY(qk.effectiveKind() == workloads::LayerKind::Attention);
    }

    void searchesTheWholeModel()
    {
        MainWindow w;
        // An animation error of the workload before (a mapping file that does not simulate) does not
        // follow into the model.
        QVERIFY(!w.animateMappingFile(QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/onnx/macs.json")));
        QVERIFY(w.animationPanel()->statusLabel()->styleSheet().contains(QStringLiteral("c62828")));
        QVERIFY(w.loadModel(kResNet));
        QVERIFY(!w.animationPanel()->statusLabel()->styleSheet().contains(QStringLiteral("c62828")));
        QVERIFY(!w.animationPanel()->isReady());
        QVERIFY(w.acceleratorPanel()->loadPreset(
            QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/classroom_8pe.json")));
        search::SearchOptions options = w.searchPanel()->options();
        options.refine = false;
        options.widenAboveRoofline = 0;
        options.peUtilizationBound = 0.5;
        w.searchPanel()->setOptions(options);
        w.searchPanel()->setCompareStyles(false); // the six styles would search every layer six times more
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.searchModel());
        QVERIFY(finished.wait(120000));
        QCOMPARE(w.modelTable()->searchedLayers(), 40);
        // The totals still say what they leave out.
        QVERIFY2(w.modelTotals()->text().contains("not in these totals: 50 node(s) of the graph not mapped"),
            qPrintable(w.modelTotals()->text()));
        QVERIFY(w.modelTotals()->toolTip().contains("not mapped: MaxPool (1)"));
        // At least the roofline: 4 089 184 256 MACs on 8 PEs.
        QVERIFY(w.modelTable()->totalRoofline() >= 4'089'184'256 / 8);
        // The same totals as `marvel search` of the file with the same settings.
        QProcess cli;
        cli.start(QStringLiteral(MARVEL_CLI_PATH),
            {"search", "--model", kResNet, "--hw", MARVEL_SAMPLES_DIR "/accelerators/classroom_8pe.json",
                "--json", "--no-refine", "--widen-above", "0", "--pe-util-bound", "0.5"});
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(double(w.modelTable()->totalRuntime()), json["total_runtime_cycles"].toDouble());
        QCOMPARE(double(w.modelTable()->totalRoofline()), json["total_roofline_cycles"].toDouble());
    }
};

QTEST_MAIN(TestOnnxApp)
#include "tst_onnx_app.moc"
