// The ONNX reader (issue 24) on the models PyTorch's exporter wrote (scripts/export-onnx-models.py):
// cross-checked against our built-in models of the same name, the MACs PyTorch's modules compute
// (tests/data/onnx/macs.json, counted with forward hooks), the transformer's products by hand.
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include "core/workloads/workloads.h"
#include "importers/onnx/onnx_import.h"

using namespace marvel;

namespace {

const std::string kData = MARVEL_SOURCE_DIR "/tests/data/onnx/";

workloads::Workload import(const std::string& name, std::int64_t batch = 1)
{
    return onnx_import::importOnnxFile(kData + name + ".onnx", {.batch = batch});
}

// "TYPE K=.. C=.. Y=../stride(dilation)" -> layers of that shape, repeats included: a model as a multiset of
// shapes ("Y=20d2": input rows 20, dilation 2).
std::map<std::string, int> shapes(const workloads::Workload& w, bool convolutionsOnly)
{
    std::map<std::string, int> out;
    for (const auto& l : w.layers) {
        if (convolutionsOnly && l.maestro.type == "GEMM") continue;
        std::string key = l.maestro.type;
        for (const auto& d : l.maestro.dims)
            if (d.name != "N" || l.maestro.type == "GEMM")
                key += " " + d.name + "=" + std::to_string(d.size)
                    + (d.stride != 1 ? "/" + std::to_string(d.stride) : "")
                    + (d.dilation != 1 ? "d" + std::to_string(d.dilation) : "");
        out[key] += l.repeat;
    }
    return out;
}

std::string importError(const std::string& path, std::uintmax_t maxBytes = std::uintmax_t(1) << 30)
{
    try {
        onnx_import::importOnnxFile(path, {.batch = 1, .maxFileBytes = maxBytes});
    } catch (const InputError& e) {
        return formatDiagnostics(e.diagnostics());
    }
    return "no error";
}

} // namespace

class TestOnnxImport : public QObject
{
    Q_OBJECT

private slots:
    void macsAddUpToPyTorchs()
    {
        std::ifstream in(kData + "macs.json");
        const auto figures = nlohmann::json::parse(in)["macs"];
        QCOMPARE(figures.size(), std::size_t(8));
        for (const auto& [name, macs] : figures.items())
            QVERIFY2(import(name).totalMacs() == macs.get<std::int64_t>(), name.c_str());
        QCOMPARE(figures["resnet50"].get<std::int64_t>(), std::int64_t(4'089'184'256));
    }

    void vgg16AndMobileNetV2AreTheBuiltInOnes()
    {
        // Same convolutions, same repeats; the ONNX files add the classifiers as GEMMs.
        for (const char* name : {"vgg16", "mobilenetv2"})
            QCOMPARE(shapes(import(name), true), shapes(workloads::builtinWorkload(name), true));
        auto vgg = shapes(import("vgg16"), false);
        QCOMPARE(vgg["GEMM M=1 N=4096 K=25088"], 1);
        QCOMPARE(vgg["GEMM M=1 N=4096 K=4096"], 1);
        QCOMPARE(vgg["GEMM M=1 N=1000 K=4096"], 1);
        QCOMPARE(shapes(import("mobilenetv2"), false)["GEMM M=1 N=1000 K=1280"], 1);
    }

    void resnet50IsVersion1_5()
    {
        // torchvision's ResNet50 is "v1.5": the first block of stages 3-5 strides in its 3x3 convolution,
        // not in the first 1x1 (He et al.'s Caffe release, our built-in). Moving the stride in the
        // built-in model gives exactly the file's convolutions.
        std::vector<workloads::WorkloadLayer> v15;
        for (auto l : workloads::builtinWorkload("resnet50").layers) {
            const bool first
                = l.name == "res3a_branch2a" || l.name == "res4a_branch2a" || l.name == "res5a_branch2a";
            const bool second
                = l.name == "res3a_branch2b" || l.name == "res4a_branch2b" || l.name == "res5a_branch2b";
            auto dim = [&](const char* n) {
                for (const auto& d : l.maestro.dims)
                    if (d.name == n) return d.size;
                return std::int64_t(0);
            };
            const std::int64_t out = (dim("Y") - dim("R")) / (first ? 2 : 1) + 1; // output rows
            if (first) l = workloads::convLayer(l.name, dim("K"), dim("C"), out * 2, out * 2, 1, 1, 1);
            if (second && l.repeat > 1) {
                // The built-in model merged the first block's 3x3 with the others': split it off.
                --l.repeat;
                v15.push_back(l);
            }
            if (second) l = workloads::convLayer(l.name, dim("K"), dim("C"), out, out, 3, 3, 2);
            v15.push_back(l);
        }
        const workloads::Workload expected{"resnet50", workloads::mergeRepeats(v15)};
        const workloads::Workload imported = import("resnet50");
        QCOMPARE(shapes(imported, true), shapes(expected, true));
        QCOMPARE(shapes(imported, false)["GEMM M=1 N=1000 K=2048"], 1);
        // 4.09 G against the Caffe release's 3.86 G (workloads.h).
        QCOMPARE(expected.totalMacs(), std::int64_t(4'089'184'256 - 2048 * 1000));
        QCOMPARE(imported.layerCount(), std::int64_t(54));
    }

    void resnet50ListsWhatItLeavesOut()
    {
        std::map<std::string, int> byType;
        for (const auto& n : import("resnet50").notMapped)
            ++byType[n.opType];
        QCOMPARE(byType["Relu"], 49);
        QCOMPARE(byType["Add"], 16);
        QCOMPARE(byType["MaxPool"], 1);
        QCOMPARE(byType["GlobalAveragePool"], 1);
        QCOMPARE(byType["Flatten"], 1);
        QCOMPARE(byType["Conv"], 0);
        // Merged layers name every node they stand for.
        const auto w = import("resnet50");
        QCOMPARE(w.layers[2].sources,
            (std::vector<std::string>{"/layer1/layer1.0/conv2/Conv", "/layer1/layer1.1/conv2/Conv",
                "/layer1/layer1.2/conv2/Conv"}));
        QCOMPARE(w.layers[2].repeat, 3);
    }

    void alexNetIsTorchvisionsVariant()
    {
        // torchvision's AlexNet is the single-GPU "one weird trick" variant (64, 192, 384, 256, 256
        // filters, no groups, 224 input with padding 2), not the paper's two-group one (our built-in).
        const auto w = import("alexnet");
        const std::map<std::string, int> expected{{"CONV K=64 C=3 R=11 S=11 Y=227/4 X=227/4", 1},
            {"CONV K=192 C=64 R=5 S=5 Y=31 X=31", 1}, {"CONV K=384 C=192 R=3 S=3 Y=15 X=15", 1},
            {"CONV K=256 C=384 R=3 S=3 Y=15 X=15", 1}, {"CONV K=256 C=256 R=3 S=3 Y=15 X=15", 1}};
        QCOMPARE(shapes(w, true), expected);
        QCOMPARE(shapes(w, false)["GEMM M=1 N=4096 K=9216"], 1);
    }

    void transformerProducts()
    {
        // 2 sequences of 16 tokens, width 64, 4 heads of 16: in-projection 32x64 by 64x192, Q K^T and
        // A V 16x16x16 for each of 2 x 4 (batch x heads), out-projection, feed-forward 64 -> 256 -> 64.
        const auto w = import("transformer_encoder");
        std::vector<std::array<std::int64_t, 4>> got;
        for (const auto& l : w.layers) {
            QCOMPARE(l.maestro.type, std::string("GEMM"));
            got.push_back({l.maestro.dims[0].size, l.maestro.dims[1].size, l.maestro.dims[2].size, l.repeat});
        }
        const std::vector<std::array<std::int64_t, 4>> expected{
            {32, 192, 64, 1}, {16, 16, 16, 16}, {32, 64, 64, 1}, {32, 256, 64, 1}, {32, 64, 256, 1}};
        QCOMPARE(got, expected);
        QCOMPARE(w.layers[1].sources.size(), std::size_t(2));
    }

    void conv1dGroupsAndBatch()
    {
        // Conv1d(64, 128, 3, stride 2, groups 4): one group's convolution (32 filters of 16 channels)
        // four times; groups = channels: depth-wise. The batch is symbolic in this file.
        for (std::int64_t batch : {1, 3}) {
            const auto w = import("conv1d", batch);
            auto s = shapes(w, false);
            QCOMPARE(s["CONV K=32 C=16 R=1 S=3 Y=1/2 X=53/2"], 4);
            QCOMPARE(s["DSCONV K=1 C=128 R=1 S=3 Y=1 X=28"], 1);
            // Conv1d(64, 64, 3, padding 2, dilation 2) over 51: 51 outputs of 5 input columns (55).
            QCOMPARE(s["CONV K=64 C=64 R=1 S=3 Y=1d2 X=55d2"], 1);
            QCOMPARE(s["GEMM M=" + std::to_string(batch) + " N=12 K=128"], 1);
            QCOMPARE(w.totalMacs(), batch * 1'876'736);
        }
        QVERIFY(import("conv1d").notes.empty()); // the dilated convolution is modelled: no remark
    }

    void dilatedConvolutions()
    {
        // DeepLab-style (scripts/export-onnx-models.py, DilatedNet) on 3x32x32: every convolution keeps
        // 16x16 outputs; the MAESTRO view's input is (16 - 1) * stride + (R - 1) * dilation + 1 (padded).
        const auto w = import("dilated");
        const auto shapeCounts = shapes(w, false);
        const auto count = [&](const char* key) {
            const auto it = shapeCounts.find(key);
            return it == shapeCounts.end() ? 0 : it->second;
        };
        QCOMPARE(count("CONV K=16 C=3 R=3 S=3 Y=33/2 X=33/2"), 1); // stem, stride 2
        QCOMPARE(count("CONV K=16 C=16 R=3 S=3 Y=20d2 X=20d2"), 2); // the two of dilation 2, merged
        QCOMPARE(count("CONV K=16 C=16 R=3 S=3 Y=18 X=18"), 1); // the same undilated: apart
        QCOMPARE(count("DSCONV K=1 C=16 R=3 S=3 Y=24d4 X=24d4"), 1);
        QCOMPARE(count("CONV K=8 C=16 R=3 S=3 Y=18 X=20d2"), 1); // dilations (1, 2)
        QCOMPARE(count("CONV K=21 C=8 R=1 S=1 Y=16 X=16"), 1);
        QCOMPARE(w.layers.size(), std::size_t(6));
        QCOMPARE(w.layers[1].sources,
            (std::vector<std::string>{"/features/features.2/Conv", "/features/features.4/Conv"}));
        QVERIFY(w.notes.empty());
        QCOMPARE(w.notMapped.size(), std::size_t(6)); // the ReLUs
        for (const auto& l : w.layers) {
            QCOMPARE(l.op.sizeValue("Y"), std::optional<std::int64_t>(16));
            QCOMPARE(l.op.sizeValue("X"), std::optional<std::int64_t>(16));
            QCOMPARE(workloads::operatorMacs(l.op), workloads::maestroMacs(l.maestro));
        }
        // 16x16 outputs x (27 + 2 x 16 x 9 x 16 + 16 x 9 x 16 + 9 x 16 + 16 x 9 x 8 + 8 x 21), PyTorch's
        // figure.
        QCOMPARE(
            w.totalMacs(), std::int64_t(256 * (27 * 16 + 3 * 16 * 9 * 16 + 9 * 16 + 16 * 9 * 8 + 8 * 21)));
        QCOMPARE(w.totalMacs(), std::int64_t(2'254'848));
        QCOMPARE(workloads::maestroMacs(w.layers[1].maestro), std::int64_t(256 * 16 * 9 * 16));
        // The operator reads the dilated window: input rows y + 2r, 20 of them.
        const std::string text = "I[c][y + 2 * r][x + 2 * s]";
        QVERIFY(
            workloads::conv2dLoopText(16, 16, 16, 16, 3, 3, 1, 1, 1, 2, 2).find(text) != std::string::npos);
        QCOMPARE(w.layers[1].op.name, std::string("conv2d_dilated"));
        const auto table = onnx_import::formatLayerTable(w);
        QVERIFY2(table.find("1 d2    2       /features/features.2/Conv, /features/features.4/Conv")
                != std::string::npos,
            table.c_str());
        QVERIFY2(table.find("1 d1x2 ") != std::string::npos, table.c_str());
        QVERIFY2(table.find("2       1       /features/features.0/Conv") != std::string::npos, table.c_str());
    }

    void shuffleNetChannelSplitFolds()
    {
        // Its channel split and shuffle are Shape/Gather/Div/Mul/Slice chains ONNX's shape inference
        // leaves unresolved; folded, every convolution has its shape.
        const auto w = import("shufflenetv2");
        std::size_t mapped = 0;
        for (const auto& l : w.layers)
            mapped += l.sources.size();
        QCOMPARE(mapped, std::size_t(57));
        QCOMPARE(shapes(w, false)["DSCONV K=1 C=58 R=3 S=3 Y=30 X=30"], 3);
        QVERIFY(w.notes.back().find("78 nodes of shape arithmetic folded") != std::string::npos);
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("not onnx") << "not_onnx.onnx"
                                  << "not_onnx.onnx: is not an ONNX model";
        // 0 bytes parse as a model without a graph: said as an empty file, not as "no graph nodes".
        QTest::newRow("empty") << "empty.onnx"
                               << "empty.onnx: empty file";
        QTest::newRow("truncated") << "truncated.onnx"
                                   << "truncated.onnx: is not an ONNX model";
        QTest::newRow("missing shape")
            << "missing_shape.onnx"
            << "node conv_no_weight_shape (Conv): the shape of weight 'w' is unknown";
        QTest::newRow("zero") << "zero_dimension.onnx"
                              << "graph input x dimension 1: is 0, not positive";
        QTest::newRow("negative") << "negative_dimension.onnx"
                                  << "graph input x dimension 2: is -2, not positive";
        QTest::newRow("symbolic") << "symbolic_dimension.onnx"
                                  << "dimension 2: is symbolic ('height')";
        QTest::newRow("no layer") << "no_layers.onnx"
                                  << "graph: no node maps to a layer";
    }

    void badInput()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const std::string error = importError(MARVEL_SOURCE_DIR "/tests/data/onnx/bad/" + file.toStdString());
        QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
    }

    void hugeFileRefusedBeforeReading()
    {
        // A sparse 3 GB file: refused by its size, never read (reading would take seconds and 3 GB).
        QTemporaryDir dir;
        const std::string path = dir.filePath("huge.onnx").toStdString();
        std::ofstream(path).put('x');
        std::filesystem::resize_file(path, std::uintmax_t(3) << 30);
        const std::string error = importError(path);
        QVERIFY2(error.find("huge.onnx: is 3221225472 bytes, more than the 1073741824") != std::string::npos,
            error.c_str());
    }

    void registeredForLoadWorkload()
    {
        onnx_import::registerOnnxReader({.batch = 2});
        QCOMPARE(workloads::loadWorkload(kData + "conv1d.onnx").totalMacs(), 2 * 1'876'736);
        onnx_import::registerOnnxReader();
    }
};

QTEST_APPLESS_MAIN(TestOnnxImport)
#include "tst_onnx_import.moc"
