#include <fstream>

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include "core/conform/conformability.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/roofline.h"
#include "core/workloads/workloads.h"

using namespace marvel;

namespace {

std::int64_t conv(std::int64_t k, std::int64_t c, std::int64_t out, std::int64_t f)
{
    return k * c * out * out * f * f;
}

// ResNet-50 (He et al. 2015, Caffe release) written from the paper's table 1 independently of the
// library: per stage (blocks, bottleneck width, output channels, output size, first stride).
std::int64_t resnet50Macs()
{
    std::int64_t total = conv(64, 3, 112, 7);
    struct S
    {
        int blocks;
        std::int64_t mid, out, size;
    } stages[] = {{3, 64, 256, 56}, {4, 128, 512, 28}, {6, 256, 1024, 14}, {3, 512, 2048, 7}};
    std::int64_t in = 64;
    for (auto s : stages)
        for (int b = 0; b < s.blocks; ++b) {
            total += conv(s.mid, b == 0 ? in : s.out, s.size, 1) + conv(s.mid, s.mid, s.size, 3)
                + conv(s.out, s.mid, s.size, 1);
            if (b == 0) total += conv(s.out, in, s.size, 1);
            in = s.out;
        }
    return total;
}

std::string write(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    std::string path = dir.filePath(name).toStdString();
    std::ofstream(path) << text;
    return path;
}

QString workloadError(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromStdString(formatDiagnostics(e.diagnostics()));
    }
    return {};
}

} // namespace

class TestWorkloads : public QObject
{
    Q_OBJECT
private slots:
    void publishedTotals_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qint64>("layers");
        QTest::addColumn<qint64>("macs");
        // AlexNet with MAESTRO's grouping convention (reference README section 4).
        QTest::newRow("alexnet") << "alexnet" << qint64(5)
                                 << qint64(96LL * 3 * 121 * 55 * 55 + 256LL * 48 * 25 * 27 * 27
                                        + 384LL * 256 * 9 * 169 + 384LL * 192 * 9 * 169
                                        + 256LL * 192 * 9 * 169);
        QTest::newRow("vgg16") << "vgg16" << qint64(13) << qint64(15346630656LL);
        QTest::newRow("resnet50") << "resnet50" << qint64(53) << qint64(resnet50Macs());
        // MobileNetV2: 300.8 M multiply-adds published, minus the 1280x1000 classifier.
        QTest::newRow("mobilenetv2") << "mobilenetv2" << qint64(52) << qint64(299494272LL);
        QTest::newRow("gemm") << "gemm" << qint64(10)
                              << qint64(128LL * 2048 * 4096 + 320LL * 3072 * 4096 + 1632LL * 36548 * 1024
                                     + 2048LL * 4096 * 32 + 1024LL * 16 * 500000 + 35LL * 8457 * 2560
                                     + 31999LL * 1024 * 84 + 84LL * 1024 * 84 + 2048LL * 1 * 128
                                     + 256LL * 256 * 2048);
        QTest::newRow("mlp-m") << "mlp-m" << qint64(3)
                               << qint64(128LL * (784 * 1000 + 1000 * 500 + 500 * 250));
        QTest::newRow("mlp-l") << "MLP-L" << qint64(3)
                               << qint64(128LL * (784 * 1500 + 1500 * 1000 + 1000 * 500));
        QTest::newRow("lstm-m") << "lstm-m" << qint64(1) << qint64(128LL * 500 * 1000);
        QTest::newRow("lstm-l") << "lstm-l" << qint64(1) << qint64(128LL * 1000 * 2000);
        QTest::newRow("rhn") << "rhn" << qint64(1) << qint64(128LL * 1500 * 3000);
    }
    void publishedTotals()
    {
        QFETCH(QString, model);
        QFETCH(qint64, layers);
        QFETCH(qint64, macs);
        auto w = workloads::builtinWorkload(model.toStdString());
        QCOMPARE(qint64(w.layerCount()), layers);
        QCOMPARE(qint64(w.totalMacs()), macs);
        // The operator view counts the same MACs as the MAESTRO view, layer by layer.
        std::int64_t fromOps = 0;
        for (const auto& l : w.layers) {
            QCOMPARE(workloads::operatorMacs(l.op), workloads::maestroMacs(l.maestro));
            fromOps += l.repeat * workloads::operatorMacs(l.op);
        }
        QCOMPARE(qint64(fromOps), macs);
    }

    void everyLayerConformable()
    {
        for (const auto& name : workloads::builtinWorkloadNames()) {
            auto w = workloads::builtinWorkload(name);
            for (const auto& l : w.layers) {
                auto nest = ir::perfectNest(l.op);
                QVERIFY2(nest.has_value(), l.name.c_str());
                auto report = conform::checkConformability(l.op);
                QVERIFY2(report.conformable, (name + "/" + l.name).c_str());
                QVERIFY(l.maestro.dataflow.empty());
            }
        }
    }

    void shapesAsMaestroSeesThem()
    {
        auto alex = workloads::builtinWorkload("alexnet");
        const auto& c1 = alex.layers[0].maestro;
        QCOMPARE(c1.type, std::string("CONV"));
        // Input 227x227 with stride 4, as in the reference README.
        QCOMPARE(c1.dims[4], (mdc::LayerDim{"Y", 227, 4}));
        QCOMPARE(c1.dims[5], (mdc::LayerDim{"X", 227, 4}));
        QCOMPARE(alex.layers[1].maestro.dims[4], (mdc::LayerDim{"Y", 31, 1}));
        QCOMPARE(alex.layers[4].maestro.dims[4], (mdc::LayerDim{"Y", 15, 1}));
        // The operator's Y is the output size and the stride shows in the input subscript.
        QCOMPARE(alex.layers[0].op.sizeValue("Y"), std::optional<std::int64_t>(55));
        auto nest = ir::perfectNest(alex.layers[0].op);
        QVERIFY(nest);
        QCOMPARE(QString::fromStdString(nest->statements[0].value.operands[1].ref.subscripts[1].toString()),
            QStringLiteral("r + 4*y"));

        auto mobile = workloads::builtinWorkload("mobilenetv2");
        int dw = 0;
        for (const auto& l : mobile.layers)
            if (l.maestro.type == "DSCONV") dw += l.repeat;
        QCOMPARE(dw, 17);
        auto resnet = workloads::builtinWorkload("resnet50");
        QVERIFY(resnet.layers.size() < 53); // identical blocks merged
        int strided = 0;
        for (const auto& l : resnet.layers)
            strided += l.maestro.dims[4].stride == 2 ? l.repeat : 0;
        QCOMPARE(strided, 1 + 3 * 2); // conv1 + (first 1x1 and projection) of stages 3-5
    }

    void unknownBuiltin()
    {
        QVERIFY(workloadError([] {
            workloads::builtinWorkload("lenet");
        }).contains("unknown built-in model 'lenet'"));
        QVERIFY(workloadError([] {
            workloads::loadWorkload("/nonexistent/x.json");
        }).contains("/nonexistent/x.json"));
    }

    void sampleModels()
    {
        auto tiny = workloads::loadWorkload(MARVEL_SAMPLES_DIR "/models/tiny_cnn.json");
        QCOMPARE(tiny.name, std::string("tiny-cnn"));
        QCOMPARE(tiny.layers.size(), std::size_t(3));
        QCOMPARE(tiny.layers[0].maestro.dims[4], (mdc::LayerDim{"Y", 33, 2}));
        QCOMPARE(tiny.totalMacs(), std::int64_t(16 * 3 * 9 * 256 + 16 * 9 * 256 + 32 * 16 * 256));
        auto gemms = workloads::loadWorkload(MARVEL_SAMPLES_DIR "/models/gemm_set.json");
        QCOMPARE(gemms.layerCount(), std::int64_t(5));
        QCOMPARE(gemms.layers[3].op.sizeValue("M"), std::optional<std::int64_t>(64));
        QCOMPARE(gemms.totalMacs(),
            std::int64_t(256LL * 256 * 256 + 35LL * 8457 * 2560 + 2LL * 128 * 1000 * 784 + 64LL * 64 * 32));
    }

    void maestroModelFile()
    {
        QTemporaryDir dir;
        auto path = write(dir, "net.m",
            "Network net {\n"
            "Layer CONV1 {\nType: CONV\nStride { X: 2, Y: 2 }\nDimensions { K: 16, C: 8, R: 3, S: 3, Y: 9, "
            "X: 9 }\n}\n"
            "Layer DW {\nType: DSCONV\nDimensions { K: 1, C: 16, R: 3, S: 3, Y: 6, X: 6 }\n}\n"
            "Layer G {\nType: GEMM\nDimensions { K: 10, M: 20, N: 30 }\n}\n}\n");
        auto w = workloads::loadWorkload(path);
        QCOMPARE(w.name, std::string("net"));
        QCOMPARE(w.layers.size(), std::size_t(3));
        // 9x9 input, 3x3 filter, stride 2 -> 4x4 output (reference edge case 14).
        QCOMPARE(w.layers[0].op.sizeValue("Y"), std::optional<std::int64_t>(4));
        QCOMPARE(workloads::operatorMacs(w.layers[0].op), std::int64_t(16 * 8 * 9 * 16));
        QCOMPARE(workloads::operatorMacs(w.layers[1].op), std::int64_t(16 * 9 * 16));
        QCOMPARE(workloads::operatorMacs(w.layers[2].op), std::int64_t(6000));
        for (const auto& l : w.layers)
            QCOMPARE(workloads::operatorMacs(l.op), workloads::maestroMacs(l.maestro));

        auto bad = write(dir, "bad.m",
            "Network n {\nLayer P {\nType: NGCONV\nDimensions { G: 2, K: 4, C: 4, R: 1, S: 1, Y: 4, X: 4 "
            "}\n}\n}\n");
        QString err = workloadError([&] { workloads::loadWorkload(bad); });
        QVERIFY2(err.contains("bad.m:2") && err.contains("NGCONV"), qPrintable(err));
    }

    void jsonErrors_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << "{\n  \"layers\": [ }"
                                << "model.json:2:15: invalid JSON";
        QTest::newRow("no layers") << "{\"schema_version\": 1}"
                                   << "layers: must be a non-empty array";
        QTest::newRow("version")
            << "{\"schema_version\": 2, \"layers\": [{\"type\":\"GEMM\",\"M\":1,\"N\":1,\"K\":1}]}"
            << "schema_version: must be 1";
        QTest::newRow("missing")
            << "{\"layers\": [{\"type\":\"CONV\",\"K\":1,\"C\":1,\"R\":1,\"S\":1,\"Y\":4}]}"
            << "layers[0].X: missing integer field";
        QTest::newRow("negative") << "{\"layers\": [{\"type\":\"GEMM\",\"M\":-3,\"N\":1,\"K\":1}]}"
                                  << "layers[0].M: must be an integer";
        QTest::newRow("unknown field")
            << "{\"layers\": [{\"type\":\"GEMM\",\"M\":1,\"N\":1,\"K\":1,\"Q\":2}]}"
            << "layers[0].Q: unknown field";
        // A dilation must be a positive integer, like a stride.
        for (const char* d : {"0", "-1", "1.5", "\"2\""})
            QTest::newRow(qPrintable(QStringLiteral("dilation %1").arg(d)))
                << QStringLiteral("{\"layers\": [{\"type\":\"CONV\",\"K\":1,\"C\":1,\"R\":3,\"S\":3,\"Y\":4,"
                                  "\"X\":4,\"dilation\":%1}]}")
                       .arg(d)
                << "layers[0].dilation: must be an integer between 1 and";
        QTest::newRow("type") << "{\"layers\": [{\"type\":\"POOL\"}]}"
                              << "layers[0].type: must be CONV, DSCONV, GEMM, ATTENTION, SOFTMAX";
        QTest::newRow("softmax cols") << "{\"layers\": [{\"type\":\"SOFTMAX\",\"rows\":4}]}"
                                      << "layers[0].cols: missing integer field";
        QTest::newRow("gelu rows") << "{\"layers\": [{\"type\":\"GELU\",\"rows\":0,\"cols\":4}]}"
                                   << "layers[0].rows: must be an integer between 1 and";
        QTest::newRow("attention rows")
            << "{\"layers\": [{\"type\":\"ATTENTION\",\"M\":2,\"N\":2,\"K\":2,\"rows\":3}]}"
            << "layers[0].rows: unknown field";
        QTest::newRow("add M") << "{\"layers\": [{\"type\":\"ADD\",\"rows\":2,\"cols\":2,\"M\":3}]}"
                               << "layers[0].M: unknown field";
        QTest::newRow("operator file") << "{\"layers\": [{\"operator_file\":\"missing.loop\"}]}"
                                       << "layers[0].operator_file: " + QDir::tempPath();
        QTest::newRow("bad size") << "{\"layers\": [{\"operator_file\":\"g.loop\",\"sizes\":{\"Z\":4}}]}"
                                  << "layers[0].sizes.Z: operator gemm has no size Z";
        QTest::newRow("operator syntax") << "{\"layers\": [{\"operator_file\":\"broken.loop\"}]}"
                                         << "broken.loop:1:";
    }
    void jsonErrors()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        write(dir, "g.loop",
            "operator gemm(M = 4, N = 4, K = 4) {\n for (m = 0; m < M; m++)\n for (n = 0; n < N; n++)\n"
            " for (k = 0; k < K; k++)\n C[m][n] += A[m][k] * B[k][n];\n}\n");
        write(dir, "broken.loop", "operator ( {\n");
        auto path = write(dir, "model.json", json.toStdString());
        QString err = workloadError([&] { workloads::loadWorkload(path); });
        QVERIFY2(err.contains("model.json") || expected.contains(".loop"), qPrintable(err));
        QVERIFY2(err.contains(expected), qPrintable(err));
    }

    // A dilated layer (DeepLab's atrous convolutions): the JSON "dilation" field, its operator and MAESTRO
    // view, the JSON written back (the field only when not 1), merging, and the MAESTRO writer's refusal.
    void jsonDilation()
    {
        QTemporaryDir dir;
        const auto path = write(dir, "atrous.json",
            R"({"schema_version": 1, "name": "atrous", "layers": [
                {"name": "a", "type": "CONV", "K": 16, "C": 8, "R": 3, "S": 3, "Y": 10, "X": 10, "dilation": 2},
                {"name": "b", "type": "CONV", "K": 16, "C": 8, "R": 3, "S": 3, "Y": 10, "X": 10},
                {"name": "dw", "type": "DSCONV", "C": 8, "R": 3, "S": 3, "Y": 5, "X": 5, "stride": 2,
                 "dilation": 3}]})");
        const workloads::Workload w = workloads::loadWorkload(path);
        QCOMPARE(w.layers.size(), std::size_t(3));
        // Input rows: (10 - 1) * 1 + (3 - 1) * 2 + 1 = 14; depth-wise (5 - 1) * 2 + (3 - 1) * 3 + 1 = 15.
        const mdc::Layer& a = w.layers[0].maestro;
        QCOMPARE(a.dims[4].name, std::string("Y"));
        QCOMPARE(a.dims[4].size, std::int64_t(14));
        QCOMPARE(a.dims[4].dilation, std::int64_t(2));
        QCOMPARE(a.dims[5].dilation, std::int64_t(2));
        QCOMPARE(w.layers[1].maestro.dims[4].size, std::int64_t(12));
        QCOMPARE(w.layers[1].maestro.dims[4].dilation, std::int64_t(1));
        QCOMPARE(w.layers[2].maestro.dims[4].size, std::int64_t(15));
        QCOMPARE(w.layers[2].maestro.dims[4].stride, std::int64_t(2));
        // Dilation changes the input read, not the MACs: the operator and the MAESTRO view agree.
        QCOMPARE(workloads::maestroMacs(a), std::int64_t(16 * 8 * 9 * 100));
        QCOMPARE(w.totalMacs(), std::int64_t(2 * 16 * 8 * 9 * 100 + 8 * 9 * 25));
        for (const auto& l : w.layers)
            QCOMPARE(workloads::operatorMacs(l.op), workloads::maestroMacs(l.maestro));
        const std::string text = workloads::conv2dLoopText(16, 8, 10, 10, 3, 3, 1, 1, 1, 2, 2);
        QVERIFY2(text.find("I[c][y + 2 * r][x + 2 * s]") != std::string::npos, text.c_str());
        QCOMPARE(w.layers[0].op.name, std::string("conv2d_dilated"));
        QVERIFY(
            workloads::depthwiseLoopText(8, 5, 5, 3, 3, 2, 2, 1, 3, 3).find("[2 * y + 3 * r][2 * x + 3 * s]")
            != std::string::npos);

        // Written back: "dilation" where it is not 1, read again to the same layers.
        const std::string json = workloads::writeWorkloadJson(w, "out.json");
        QVERIFY2(json.find("\"dilation\": 2") != std::string::npos, json.c_str());
        QVERIFY2(json.find("\"dilation\": 3") != std::string::npos, json.c_str());
        QCOMPARE(QString::fromStdString(json).count("dilation"), 2);
        const workloads::Workload back = workloads::readWorkloadJson(json, "out.json");
        QCOMPARE(back.layers.size(), w.layers.size());
        for (std::size_t i = 0; i < w.layers.size(); ++i)
            QVERIFY(back.layers[i].maestro == w.layers[i].maestro);

        // The dilation is part of a layer's identity: 8x8 outputs of dilation 2 read the same 12x12 input
        // as b's 10x10 outputs, so the two layers' sizes are all equal; they still do not merge.
        const workloads::WorkloadLayer c = workloads::convLayer("c", 16, 8, 8, 8, 3, 3, 1, 2);
        for (std::size_t i = 0; i < c.maestro.dims.size(); ++i)
            QCOMPARE(c.maestro.dims[i].size, w.layers[1].maestro.dims[i].size);
        std::vector<workloads::WorkloadLayer> layers{w.layers[1], c, w.layers[1], c};
        layers = workloads::mergeRepeats(std::move(layers));
        QCOMPARE(layers.size(), std::size_t(2));
        QCOMPARE(layers[0].repeat, 2);
        QCOMPARE(layers[1].repeat, 2);
        QCOMPARE(workloads::maestroMacs(layers[1].maestro), std::int64_t(16 * 8 * 9 * 64));

        // MAESTRO has no dilation: its writer refuses the layer instead of writing an undilated one.
        mdc::Network net{"atrous", {w.layers[1].maestro, w.layers[0].maestro}};
        const QString err = workloadError([&] { mdc::writeMaestroMapping(net, "atrous.m"); });
        QVERIFY2(err.startsWith("atrous.m: layer 'a' is a dilated convolution (dilation 2 on Y)"),
            qPrintable(err));
        net.layers.pop_back();
        QVERIFY(!mdc::writeMaestroMapping(net, "atrous.m").empty());
        // Different dilations on rows and columns do not fit the JSON format's single field.
        workloads::Workload uneven = w;
        uneven.layers.resize(1);
        uneven.layers[0].maestro.dims[5].dilation = 1;
        QVERIFY(workloadError([&] {
            workloads::writeWorkloadJson(uneven, "u.json");
        }).contains("u.json: layer a: the JSON model format has one dilation for Y and X"));
    }

    // The transformer layers in the JSON model format (issue 35): an attention product with its batch as
    // repeat, one entry per operator of several layers (softmax: four), read back to the builders' layers.
    void jsonTransformerLayers()
    {
        const std::string text = R"({"schema_version": 1, "name": "t", "layers": [
            {"name": "qk", "type": "ATTENTION", "M": 16, "N": 16, "K": 8, "repeat": 6},
            {"name": "sm", "type": "SOFTMAX", "rows": 96, "cols": 16},
            {"name": "ln", "type": "LAYERNORM", "rows": 16, "cols": 48},
            {"name": "rms", "type": "RMSNORM", "rows": 16, "cols": 48, "repeat": 2},
            {"name": "g", "type": "GELU", "rows": 16, "cols": 192},
            {"name": "s", "type": "SILU", "rows": 16, "cols": 8},
            {"name": "sw", "type": "SWIGLU", "rows": 16, "cols": 128},
            {"name": "r", "type": "RELU", "rows": 3, "cols": 5},
            {"name": "a", "type": "ADD", "rows": 16, "cols": 48},
            {"name": "m", "type": "MUL", "rows": 16, "cols": 48}]})";
        const workloads::Workload w = workloads::readWorkloadJson(text, "t.json");
        QCOMPARE(w.layers.size(), std::size_t(1 + 4 + 4 + 3 + 6));
        QCOMPARE(w.layers[0].effectiveKind(), workloads::LayerKind::Attention);
        QCOMPARE(w.layers[0].repeat, 6);
        QCOMPARE(workloads::maestroMacs(w.layers[0].maestro), std::int64_t(16 * 16 * 8));
        QCOMPARE(w.layers[1].name, std::string("sm.max"));
        QCOMPARE(w.layers[9].name, std::string("rms.sumsq"));
        QCOMPARE(w.layers[9].repeat, 2);
        // Element operations by the spec's counts: softmax 5 per element, LayerNorm 8 per element and 6
        // per row, RMSNorm 4 and 3 (twice), GELU 5, SiLU 2, SwiGLU 3, ReLU, add and product 1.
        std::int64_t ops = 0;
        for (const auto& l : w.layers)
            if (!workloads::isMatrixProduct(l.effectiveKind())) ops += workloads::elementOps(l) * l.repeat;
        QCOMPARE(ops,
            std::int64_t(5 * 96 * 16 + (8 * 16 * 48 + 6 * 16) + 2 * (4 * 16 * 48 + 3 * 16) + 5 * 16 * 192
                + 2 * 16 * 8 + 3 * 16 * 128 + 15 + 16 * 48 + 16 * 48));
        // Written back: the same entries.
        const std::string json = workloads::writeWorkloadJson(w, "t2.json");
        const workloads::Workload back = workloads::readWorkloadJson(json, "t2.json");
        QCOMPARE(back.layers.size(), w.layers.size());
        for (std::size_t i = 0; i < w.layers.size(); ++i) {
            QCOMPARE(back.layers[i].name, w.layers[i].name);
            QCOMPARE(back.layers[i].repeat, w.layers[i].repeat);
            QCOMPARE(back.layers[i].effectiveKind(), w.layers[i].effectiveKind());
            QCOMPARE(workloads::elementOps(back.layers[i]), workloads::elementOps(w.layers[i]));
        }
        QCOMPARE(QString::fromStdString(json).count("\"type\""), 10);
        // A softmax missing a part is no operator the format holds.
        workloads::Workload partial = w;
        partial.layers.erase(partial.layers.begin() + 2);
        QVERIFY(workloadError([&] {
            workloads::writeWorkloadJson(partial, "p.json");
        }).contains("p.json: layer sm.max: is no operator the JSON model format holds"));
    }

    // Operator-file layers keep their own loops, with sizes overridden before parsing.
    void jsonOperatorFile()
    {
        QTemporaryDir dir;
        write(dir, "conv1d.loop",
            "operator conv1d(X = 16, S = 3) {\n  for (x = 0; x < X; x++)\n    for (s = 0; s < S; s++)\n"
            "      O[x] += W[s] * I[x + s];\n}\n");
        auto path = write(dir, "m.json",
            "{\"schema_version\":1,\"name\":\"c\",\"layers\":[{\"name\":\"a\",\"operator_file\":\"conv1d."
            "loop\","
            "\"sizes\":{\"X\":100}}]}");
        auto w = workloads::loadWorkload(path);
        QCOMPARE(w.layers[0].op.sizeValue("X"), std::optional<std::int64_t>(100));
        QCOMPARE(w.layers[0].op.sizeValue("S"), std::optional<std::int64_t>(3));
        QCOMPARE(w.totalMacs(), std::int64_t(300));
    }

    // LayerErrors::Keep: a bad layer stays in its place with its located errors; the good ones are usable.
    void badLayersKept()
    {
        const std::string dir = MARVEL_SOURCE_DIR "/tests/data/partial/";
        for (const char* file : {"tiny_bad_layer.json", "tiny_bad_layer.m"}) {
            const std::string path = dir + file;
            QVERIFY_THROWS_EXCEPTION(InputError, workloads::loadWorkload(path));
            const workloads::Workload w = workloads::loadWorkload(path, workloads::LayerErrors::Keep);
            QCOMPARE(w.layers.size(), std::size_t(3));
            QVERIFY(w.layers[0].ok());
            QVERIFY(!w.layers[1].ok());
            QVERIFY(w.layers[2].ok());
            QCOMPARE(w.layers[1].errors.size(), std::size_t(1));
            QCOMPARE(w.layers[1].errors[0].file, path);
            // Only the good layers count: c1 (8x4x3x3 filter over 8x8 outputs) and fc (1x10x64).
            QCOMPARE(w.layerCount(), std::int64_t(2));
            QCOMPARE(w.totalMacs(), conv(8, 4, 8, 3) + 640);
        }
        const auto json = workloads::loadWorkload(dir + "tiny_bad_layer.json", workloads::LayerErrors::Keep);
        QCOMPARE(json.layers[1].name, std::string("fc_bad"));
        QCOMPARE(QString::fromStdString(json.layers[1].errors[0].format()),
            QString::fromStdString(dir + "tiny_bad_layer.json: layers[1].N: missing integer field"));
        const auto m = workloads::loadWorkload(dir + "tiny_bad_layer.m", workloads::LayerErrors::Keep);
        QCOMPARE(m.layers[1].name, std::string("too_small"));
        QCOMPARE(m.layers[1].errors[0].loc, (SourceLoc{7, 2}));
    }

    // Products of huge MAESTRO dimensions saturate instead of wrapping.
    void hugeDimensionsSaturate()
    {
        mdc::Layer gemm;
        gemm.type = "GEMM";
        gemm.dims = {{"M", 4'000'000'000, 1}, {"N", 4'000'000'000, 1}, {"K", 4'000'000'000, 1}};
        QCOMPARE(workloads::maestroMacs(gemm), std::numeric_limits<std::int64_t>::max());
        gemm.dims = {{"M", 1000, 1}, {"N", 1000, 1}, {"K", 1000, 1}};
        QCOMPARE(workloads::maestroMacs(gemm), std::int64_t(1'000'000'000));
    }
};

QTEST_APPLESS_MAIN(TestWorkloads)
#include "tst_workloads.moc"
