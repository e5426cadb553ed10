// ONNX models through the real `marvel` (issue 24): import and its outputs, the same search as the JSON
// model of the same layers, sweeps and projects, and bad input (exit 2 naming the file and the node).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using clitest::readAll;
using clitest::runMarvel;
using clitest::writeFile;

namespace {

const QString kOnnxData = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/onnx/");
const QString kClassroom8 = QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/classroom_8pe.json");

} // namespace

class TestCliOnnx : public QObject
{
    Q_OBJECT

private slots:
    void importPrintsTheLayersAndWhatIsLeftOut()
    {
        const auto run = runMarvel({"import", kOnnxData + "resnet50.onnx"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(
            QRegularExpression("/layer1/layer1.0/conv2/Conv +CONV +K=64 C=64 R=3 S=3 Y=58 X=58 +1 +3 "
                               "+/layer1/layer1.0/conv2/Conv, "
                               "/layer1/layer1.1/conv2/Conv, /layer1/layer1.2/conv2/Conv\n")));
        // The 53 convolutions, the classifier, the 49 ReLUs and 16 residual adds (issue 35).
        QVERIFY2(
            run.out.contains(
                "119 nodes mapped to 40 layers (119 with repeats, 4089184256 MACs); 50 nodes not mapped"),
            qPrintable(run.out));
        QVERIFY(run.out.contains(
            QRegularExpression("\n/relu/Relu +ACTIVATION +R=7168 C=112 +- +1 +/relu/Relu\n")));
        QVERIFY(run.out.contains("not mapped: MaxPool (1): /maxpool/MaxPool\n"));
        QVERIFY(
            run.out.contains("note: 2 nodes compute on activations but are not modelled (not in the totals): "
                             "GlobalAveragePool x1, MaxPool x1\n"));
    }

    void searchEqualsTheSameLayersAsJson()
    {
        // The whole imported ResNet50, searched, against `marvel import --out x.json` of it: the same
        // totals (cheap settings: 8 PEs, no genetic refinement).
        QTemporaryDir dir;
        const QString json = dir.filePath("resnet50.json");
        QCOMPARE(runMarvel({"import", kOnnxData + "resnet50.onnx", "--out", json}).exitCode, 0);
        const QStringList common{"--hw", kClassroom8, "--json", "--threads", "2", "--genetic-evaluations",
            "1", "--no-refine", "--widen-above", "0", "--pe-util-bound", "0.5"};
        const auto onnx = runMarvel(QStringList{"search", "--model", kOnnxData + "resnet50.onnx"} + common);
        const auto fromJson = runMarvel(QStringList{"search", "--model", json} + common);
        QCOMPARE(onnx.exitCode, 0);
        QCOMPARE(fromJson.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(onnx.out.toUtf8()).object();
        const QJsonObject b = QJsonDocument::fromJson(fromJson.out.toUtf8()).object();
        QVERIFY(a["total_runtime_cycles"].toDouble() > 0);
        for (const char* key : {"total_runtime_cycles", "total_roofline_cycles", "total_energy"})
            QCOMPARE(a[key].toDouble(), b[key].toDouble());
        // 4 089 184 256 MACs on 8 PEs at best (each layer's roofline rounds up).
        QVERIFY(a["total_roofline_cycles"].toDouble() >= 4089184256.0 / 8);
        QVERIFY(onnx.err.contains("resnet50.onnx: 119 nodes mapped to 40 layers"));
        QVERIFY(onnx.err.contains("MaxPool x1"));
        QVERIFY(onnx.err.contains("note: 2 nodes compute on activations but are not modelled"));
    }

    void batchAndMaestroOutput()
    {
        QTemporaryDir dir;
        const QString m = dir.filePath("model.m");
        // MAESTRO has no dilation: the dilated Conv1d is refused by name, and nothing is written.
        const auto dilated = runMarvel({"import", kOnnxData + "conv1d.onnx", "--batch", "2", "--out", m});
        QCOMPARE(dilated.exitCode, 2);
        QVERIFY2(dilated.err.contains(
                     m + ": layer '/features/features.2/Conv' is a dilated convolution (dilation 2 on"),
            qPrintable(dilated.err));
        QVERIFY(dilated.out.contains("3753472 MACs")); // twice 1 876 736
        QVERIFY(dilated.out.contains("N=2 K=64 C=64 R=1 S=3 Y=1 X=55"));
        QVERIFY(!QFile::exists(m));
        const auto run = runMarvel({"import", kOnnxData + "alexnet.onnx", "--out", m});
        QCOMPARE(run.exitCode, 0);
        const QString text = readAll(m);
        // AlexNet's 5 convolutions and 3 GEMMs.
        QCOMPARE(text.count("Layer "), 8);
        QVERIFY(text.contains("/features/features.3/Conv"));
        QVERIFY(text.contains("Stride { Y: 4, X: 4 }"));
        // The JSON model has no batch: refused, naming the layer.
        const auto json = runMarvel(
            {"import", kOnnxData + "conv1d.onnx", "--batch", "2", "--out", dir.filePath("x.json")});
        QCOMPARE(json.exitCode, 2);
        QVERIFY(json.err.contains("layer /features/features.0/Conv: the JSON model format has no batch"));
    }

    void sweepAndProject()
    {
        QTemporaryDir dir;
        const auto sweep
            = runMarvel({"sweep", "--model", kOnnxData + "transformer_encoder.onnx", "--hw", kClassroom8,
                "--vary", "pes=4,8", "--out", dir.filePath("s.csv"), "--threads", "2", "--quick-search"});
        QCOMPARE(sweep.exitCode, 0);
        // 1 638 400 MACs and 34 880 statement instances of the other operators (softmax 4 x 2048, the
        // LayerNorms 2 x (3 x 2048 + 32), the ReLU 8192, the adds 2 x 2048 and the scaling of Q 2048) on 4
        // and 8 PEs: the roofline is at least their sum over the PEs.
        const QString csv = readAll(dir.filePath("s.csv"));
        const QStringList rows = csv.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 3);
        const int roofline = rows[0].split(',').indexOf("roofline_cycles");
        QVERIFY(roofline > 0);
        QVERIFY2(rows[1].split(',')[roofline].toDouble() >= (1638400 + 34880) / 4, qPrintable(csv));
        QVERIFY2(rows[2].split(',')[roofline].toDouble() >= (1638400 + 34880) / 8, qPrintable(csv));

        QJsonObject project
            = QJsonDocument::fromJson(readAll(MARVEL_SAMPLES_DIR "/projects/gemm_classroom.json").toUtf8())
                  .object();
        project["workload"]
            = QJsonObject{{"kind", "model"}, {"model", kOnnxData + "transformer_encoder.onnx"}};
        QFile f(dir.filePath("p.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(project).toJson());
        f.close();
        const auto search = runMarvel({"search", "--project", dir.filePath("p.json"), "--json",
            "--genetic-evaluations", "1", "--no-refine"});
        QVERIFY2(search.exitCode == 0 || search.exitCode == 3, qPrintable(search.err));
        // 5 products and 11 other layers (transformerImport).
        QCOMPARE(QJsonDocument::fromJson(search.out.toUtf8()).object()["layers"].toArray().size(), 16);
    }

    /// A transformer exported with symbolic batch and sequence (issue 35): --seq-len and --batch size it;
    /// the attention products are ATTENTION layers, the JSON model holds every layer, the MAESTRO file the
    /// products only (with a note); a missing sequence length, a non-positive one and decode exit 2.
    void transformerImport()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("llama.json");
        const auto run = runMarvel(
            {"import", kOnnxData + "llama_like.onnx", "--batch", "2", "--seq-len", "16", "--out", json});
        QCOMPARE(run.exitCode, 0);
        // Q K^T: 2 KV heads of 2 query heads each, [2, 2, 32, 16] x [2, 2, 16, 16], 2 blocks; A V the same.
        QVERIFY2(run.out.contains(QRegularExpression(
                     "\n/blocks/blocks.0/attention/scores/MatMul +ATTENTION +M=32 N=16 K=16 +- +16 ")),
            qPrintable(run.out));
        QVERIFY(
            run.out.contains(QRegularExpression("\n/blocks/blocks.0/swiglu +ACTIVATION +R=32 C=176 +- +2 ")));
        QVERIFY(!run.out.contains("not modelled"));
        const QJsonArray layers
            = QJsonDocument::fromJson(readAll(json).toUtf8()).object()["layers"].toArray();
        QStringList types;
        for (const auto& l : layers)
            types << l.toObject()["type"].toString();
        QCOMPARE(types.count("ATTENTION"), 1);
        QCOMPARE(types.count("RMSNORM"), 1);
        QCOMPARE(types.count("SOFTMAX"), 1);
        QCOMPARE(types.count("SWIGLU"), 1);
        const auto back = runMarvel({"import", kOnnxData + "llama_like.onnx", "--batch", "2", "--seq-len",
            "16", "--out", dir.filePath("llama.m")});
        QCOMPARE(back.exitCode, 0);
        QVERIFY(back.out.contains("note: 11 layers that are no CONV, DSCONV or GEMM"));
        // The GEMMs, 15 with their repeats, and the 16 attention products, merged into one layer.
        QCOMPARE(readAll(dir.filePath("llama.m")).count("Layer "), 31);

        const auto missing = runMarvel({"import", kOnnxData + "bert_like.onnx"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(
            missing.err.contains("bert_like.onnx: graph input input dimension 1: is symbolic ('seq') and no "
                                 "value is given: --seq-len sets the sequence dimensions"),
            qPrintable(missing.err));
        const auto zero = runMarvel({"import", kOnnxData + "bert_like.onnx", "--seq-len", "0"});
        QCOMPARE(zero.exitCode, 2);
        QVERIFY(zero.err.contains("--seq-len expects an integer from 1"));
        const auto decode
            = runMarvel({"import", kOnnxData + "bert_like.onnx", "--seq-len", "8", "--phase", "decode"});
        QCOMPARE(decode.exitCode, 2);
        QVERIFY2(decode.err.contains("seq-len: applies to --phase prefill"), qPrintable(decode.err));
    }

    /// An experiments file names an ONNX model beside it, as it names a JSON or MAESTRO model.
    void reproduceTakesAnOnnxModel()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(kOnnxData + "transformer_encoder.onnx", dir.filePath("encoder.onnx")));
        writeFile(dir.filePath("experiments.json"),
            QJsonDocument(
                QJsonObject{{"platforms", QJsonObject{{"P1", kClassroom8}}},
                    {"experiments",
                        QJsonArray{QJsonObject{{"workload", "encoder.onnx"}, {"category", "mlp_lstm"},
                            {"layers", QJsonArray{"/layer/self_attn/MatMul_1"}}}}}})
                .toJson());
        const auto r = runMarvel({"reproduce", "--experiments", dir.filePath("experiments.json"), "--out",
            dir.filePath("out"), "--threads", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // The attention's two 16x16x16 products per head (8 heads), merged into one layer of 16 repeats;
        // its 4096 MACs on 8 PEs bound it at 512 cycles.
        const QString layers = readAll(dir.filePath("out/encoder_layers.csv"));
        static const QRegularExpression marvelRow(
            R"(encoder\.onnx,/layer/self_attn/MatMul_1,P1,marvel,16,\d+,[^,]+,[^,]*,512,)");
        QVERIFY2(layers.contains(marvelRow), qPrintable(layers));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("not onnx") << "not_onnx.onnx"
                                  << "not_onnx.onnx: is not an ONNX model";
        QTest::newRow("empty") << "empty.onnx"
                               << "empty.onnx: empty file\n";
        QTest::newRow("missing shape")
            << "missing_shape.onnx"
            << "missing_shape.onnx: node conv_no_weight_shape (Conv): the shape of weight 'w' is unknown";
        QTest::newRow("zero") << "zero_dimension.onnx"
                              << "zero_dimension.onnx: graph input x dimension 1: is 0";
        QTest::newRow("no layer") << "no_layers.onnx"
                                  << "no_layers.onnx: graph: no node maps to a layer";
    }

    void badInput()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const QString path = MARVEL_SOURCE_DIR "/tests/data/onnx/bad/" + file;
        for (const QStringList& args :
            {QStringList{"import", path}, QStringList{"search", "--model", path, "--hw", kClassroom8}}) {
            const auto run = runMarvel(args);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(message), qPrintable(run.err));
        }
    }
};

QTEST_APPLESS_MAIN(TestCliOnnx)
#include "tst_cli_onnx.moc"
