#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <QTest>

#include "core/mdc/maestro_io.h"
#include "tests/core/core_test_support.h"

using marvel::InputError;
using marvel::mdc::Directive;
using marvel::mdc::Layer;
using marvel::mdc::Network;

using marvel::testsupport::readCsv;
using marvel::testsupport::splitCsvLine;
namespace {

const std::string kReference = MARVEL_REFERENCE_DIR;

std::string parseError(const std::string& text)
{
    try {
        marvel::mdc::readMaestroMapping(text, "f.m");
    } catch (const InputError& e) {
        return marvel::formatDiagnostics(e.diagnostics());
    }
    return "<no error>";
}

std::string ruleErrors(const Layer& layer)
{
    return marvel::formatDiagnostics(marvel::mdc::checkMaestroRules(layer, "f.m"));
}

std::string dataflowAsReference(const Layer& layer)
{
    std::string out;
    for (const Directive& d : layer.dataflow) {
        if (!out.empty()) out += ' ';
        switch (d.kind) {
        case Directive::Kind::TemporalMap:
            out += "TemporalMap(" + std::to_string(d.size) + "," + std::to_string(d.offset) + ")" + d.dim
                + ";";
            break;
        case Directive::Kind::SpatialMap:
            out += "SpatialMap(" + std::to_string(d.size) + "," + std::to_string(d.offset) + ")" + d.dim
                + ";";
            break;
        case Directive::Kind::Cluster:
            out += "Cluster(" + std::to_string(d.size) + ",P);";
            break;
        }
    }
    return out;
}

const std::string kSimpleLayer = "Network n {\n"
                                 "Layer L1 {\n"
                                 "Type: CONV\n"
                                 "Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 }\n"
                                 "Dataflow {\n"
                                 "SpatialMap(1,1) K;\n"
                                 "TemporalMap(Sz(R),Sz(R)) R;\n"
                                 "}\n"
                                 "}\n"
                                 "}\n";

} // namespace

class TestMaestroIo : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!std::filesystem::exists(kReference + "/mappings"))
            QSKIP("MAESTRO reference mappings not available (MARVEL_REFERENCE_DIR)");
    }

    // Every reference file reads, has as many layers as MAESTRO counted, writes back to an equal
    // network, and passes checkMaestroRules exactly when MAESTRO did not reject it.
    void referenceFiles_data()
    {
        QTest::addColumn<QString>("mapping");
        QTest::addColumn<int>("layers");
        QTest::addColumn<bool>("maestroAccepts");
        std::map<std::string, std::pair<int, bool>> files;
        for (auto& row : readCsv(kReference + "/runs.csv")) {
            if (row["binary"] != "upstream") continue;
            // SIGFPE is a defect of MAESTRO's off-chip code (README §7.1), not a rejected mapping.
            const bool accepted = row["status"] == "ok" || row["status"] == "crash_sigfpe";
            files[row["mapping"]] = {std::stoi(row["layers_in_file"]), accepted};
        }
        QVERIFY(files.size() >= 28);
        for (const auto& [name, info] : files)
            QTest::newRow(name.c_str()) << QString::fromStdString(name) << info.first << info.second;
    }
    void referenceFiles()
    {
        QFETCH(QString, mapping);
        QFETCH(int, layers);
        QFETCH(bool, maestroAccepts);
        const std::string path = kReference + "/mappings/" + mapping.toStdString() + ".m";
        const Network network = marvel::mdc::readMaestroMappingFile(path);
        QCOMPARE(int(network.layers.size()), layers);
        const Network again
            = marvel::mdc::readMaestroMapping(marvel::mdc::writeMaestroMapping(network), "w.m");
        QCOMPARE(again.name, network.name);
        QVERIFY(again.layers == network.layers);
        std::string problems;
        for (const Layer& layer : network.layers)
            problems += ruleErrors(layer);
        QCOMPARE(problems.empty(), maestroAccepts);
    }

    // Name, type, sizes, strides and dataflow of every layer MAESTRO evaluated, as the reference
    // table records them (constants and Sz() replaced by numbers).
    void referenceLayers()
    {
        std::map<std::string, Network> parsed;
        int checked = 0;
        for (const char* table : {"/layers.csv", "/layers_guardfix.csv"}) {
            for (auto& row : readCsv(kReference + table)) {
                const std::string mapping = row["mapping"];
                if (!parsed.count(mapping))
                    parsed[mapping]
                        = marvel::mdc::readMaestroMappingFile(kReference + "/mappings/" + mapping + ".m");
                const Network& network = parsed[mapping];
                const std::size_t index = std::stoul(row["layer_index"]) - 1;
                QVERIFY2(index < network.layers.size(), mapping.c_str());
                const Layer& layer = network.layers[index];
                const std::string where = mapping + " layer " + row["layer_index"];
                QVERIFY2(layer.name == row["layer_name"], where.c_str());
                QVERIFY2(network.name == row["network"], where.c_str());
                QVERIFY2(layer.type == row["layer_type"], where.c_str());
                const std::map<std::string, std::string> columns{{"N", "dim_N"}, {"G", "dim_G"},
                    {"K", "dim_K"}, {"C", "dim_C"}, {"R", "dim_R"}, {"S", "dim_S"}, {"Y", "dim_Y"},
                    {"X", "dim_X"}, {"Y'", "dim_Yo"}, {"X'", "dim_Xo"}, {"M", "dim_M"}};
                std::size_t declared = 0;
                for (const auto& [dim, column] : columns) {
                    const std::string& expected = row[column];
                    auto it = std::find_if(layer.dims.begin(), layer.dims.end(),
                        [&name = dim](const auto& d) { return d.name == name; });
                    if (expected.empty()) {
                        QVERIFY2(it == layer.dims.end(), (where + " " + dim).c_str());
                        continue;
                    }
                    ++declared;
                    QVERIFY2(it != layer.dims.end() && std::to_string(it->size) == expected,
                        (where + " " + dim).c_str());
                }
                QCOMPARE(layer.dims.size(), declared);
                auto strideOf = [&](const char* a, const char* b) {
                    for (const auto& d : layer.dims)
                        if (d.name == a || d.name == b) return d.stride;
                    return std::int64_t{1};
                };
                const auto expectStride = [](const std::string& s) { return s.empty() ? 1 : std::stoll(s); };
                QVERIFY2(strideOf("Y", "Y'") == expectStride(row["stride_y"]), where.c_str());
                QVERIFY2(strideOf("X", "X'") == expectStride(row["stride_x"]), where.c_str());
                QCOMPARE(QString::fromStdString(dataflowAsReference(layer)),
                    QString::fromStdString(row["dataflow"]));
                ++checked;
            }
        }
        QVERIFY(checked >= 305);
    }

    void vgg16RowStationaryByHand()
    {
        const Network n = marvel::mdc::readMaestroMappingFile(kReference + "/mappings/repo_vgg16_rs.m");
        QCOMPARE(n.name, std::string("VGG16"));
        QCOMPARE(n.layers.size(), std::size_t{13});
        const Layer& conv1 = n.layers[0];
        QCOMPARE(conv1.name, std::string("CONV1"));
        QCOMPARE(conv1.type, std::string("CONV"));
        QCOMPARE(conv1.loc, (marvel::SourceLoc{2, 2}));
        const std::vector<marvel::mdc::LayerDim> dims{
            {"K", 64, 1}, {"C", 3, 1}, {"R", 3, 1}, {"S", 3, 1}, {"Y", 224, 1}, {"X", 224, 1}};
        QVERIFY(conv1.dims == dims);
        using K = Directive::Kind;
        const std::vector<Directive> expected{{K::TemporalMap, 2, 2, "K", {}},
            {K::TemporalMap, 3, 3, "C", {}}, {K::TemporalMap, 3, 3, "R", {}}, {K::SpatialMap, 3, 1, "Y", {}},
            {K::TemporalMap, 3, 1, "X", {}}, {K::Cluster, 3, 1, "", {}}, {K::SpatialMap, 1, 1, "X", {}},
            {K::SpatialMap, 1, 1, "R", {}}, {K::TemporalMap, 3, 3, "S", {}}};
        QVERIFY(conv1.dataflow == expected);
        QCOMPARE(conv1.dataflow[0].loc, (marvel::SourceLoc{6, 4}));
        QCOMPARE(conv1.dataflow[8].loc, (marvel::SourceLoc{14, 4}));
        QCOMPARE(n.layers[12].name, std::string("CONV13"));
    }

    void constantsStrideAndSz()
    {
        const Network gemm
            = marvel::mdc::readMaestroMappingFile(kReference + "/mappings/repo_GEMM_Example.m");
        QCOMPARE(gemm.layers.size(), std::size_t{1});
        QVERIFY(gemm.layers[0].dims
            == (std::vector<marvel::mdc::LayerDim>{{"K", 100, 1}, {"M", 100, 1}, {"N", 100, 1}}));
        QCOMPARE(gemm.layers[0].dataflow[3], Directive::cluster(100));

        const Network alex
            = marvel::mdc::readMaestroMappingFile(kReference + "/mappings/repo_alexnet_rs_validation.m");
        const Layer& conv1 = alex.layers[0];
        QCOMPARE(conv1.dims[0].name, std::string("N"));
        QCOMPARE(conv1.dims[0].size, 4);
        QCOMPARE(conv1.dims[5].stride, 4); // Y
        QCOMPARE(conv1.dims[6].stride, 4); // X
        QCOMPARE(conv1.dims[2].stride, 1); // K
        QCOMPARE(conv1.dataflow[7].size, 11); // Cluster(Sz(R),P) with R = 11
        QCOMPARE(conv1.dataflow[0].dim, std::string("Y'"));
    }

    void modelFileWithoutDataflow()
    {
        const std::string text
            = "// a model file\nNetwork ResNet {\n Layer CONV1 {\n  Type: TRCONV\n"
              "  Stride { X: 2, Y: 2 }\n  Dimensions { K: 64, C: 3, R: 7, S: 7, Y: 230, X: 230 }\n"
              " }\n Layer DW { Type: DSCONV Dimensions { C: 32, R: 3, S: 3, Y': 16, X': 16 } }\n}\n";
        const Network n = marvel::mdc::readMaestroMapping(text, "model.m");
        QCOMPARE(n.layers.size(), std::size_t{2});
        QCOMPARE(n.layers[0].type, std::string("CONV"));
        QVERIFY(n.layers[0].dataflow.empty());
        QVERIFY(n.layers[0].dims
            == (std::vector<marvel::mdc::LayerDim>{
                {"K", 64, 1}, {"C", 3, 1}, {"R", 7, 1}, {"S", 7, 1}, {"Y", 230, 2}, {"X", 230, 2}}));
        QCOMPARE(n.layers[1].dims[3].name, std::string("Y'"));
        const std::string written = marvel::mdc::writeMaestroMapping(n);
        QVERIFY(written.find("Dataflow") == std::string::npos);
        const Network again = marvel::mdc::readMaestroMapping(written, "w.m");
        QVERIFY(again.layers == n.layers);
        QCOMPARE(QString::fromStdString(ruleErrors(n.layers[0])),
            "f.m:3:2: layer 'CONV1' has no Dataflow block (MAESTRO needs one in every layer)\n");
    }

    void canonicalWriter()
    {
        Network n;
        n.name = "net";
        Layer l;
        l.name = "L1";
        l.type = "CONV";
        l.dims = {{"K", 64, 1}, {"C", 3, 1}, {"R", 3, 1}, {"S", 3, 1}, {"Y", 9, 2}, {"X", 9, 2}};
        l.dataflow = {Directive::temporal(3, 1, "Y"), Directive::spatial(1, 1, "K"), Directive::cluster(3)};
        n.layers.push_back(l);
        QCOMPARE(QString::fromStdString(marvel::mdc::writeMaestroMapping(n)),
            "Network net {\n"
            "\tLayer L1 {\n"
            "\t\tType: CONV\n"
            "\t\tStride { Y: 2, X: 2 }\n"
            "\t\tDimensions { K: 64, C: 3, R: 3, S: 3, Y: 9, X: 9 }\n"
            "\t\tDataflow {\n"
            "\t\t\tTemporalMap(3,1) Y;\n"
            "\t\t\tSpatialMap(1,1) K;\n"
            "\t\t\tCluster(3,P);\n"
            "\t\t}\n"
            "\t}\n"
            "}\n");
    }

    void lexicalRules()
    {
        // CRLF (rejected by MAESTRO) reads like LF; comments at token start, also right after ';'.
        std::string crlf;
        for (char c : kSimpleLayer) {
            if (c == '\n') crlf += '\r';
            crlf += c;
        }
        const Network a = marvel::mdc::readMaestroMapping(kSimpleLayer, "a.m");
        const Network b = marvel::mdc::readMaestroMapping(crlf, "b.m");
        QVERIFY(a.layers == b.layers);
        const Network c = marvel::mdc::readMaestroMapping(
            "Constant T 2; Network n { Layer L { Type: GEMM Dimensions { M: T, N: 3, K: 4 } // x\n"
            "Dataflow { SpatialMap(T,T) M;// comment\n TemporalMap(Sz(K),Sz(K)) K; } } }\n"
            "Accelerator { PE { Size: 4 } Buffer { L1: 3 } }\n",
            "c.m");
        QCOMPARE(c.layers[0].dims[0].size, 2);
        QCOMPARE(c.layers[0].dataflow.size(), std::size_t{2});
        QCOMPARE(c.layers[0].dataflow[1], Directive::temporal(4, 4, "K"));
    }

    void syntaxErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        auto layer = [](const std::string& body) {
            return QString::fromStdString("Network n {\nLayer L1 {\n" + body + "}\n}\n");
        };
        const std::string dims = "Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 }\n";
        QTest::newRow("size 0") << layer("Type: CONV\nDimensions { K: 0 }\n")
                                << "f.m:4:17: size of dimension K must be at least 1\n";
        QTest::newRow("negative size")
            << layer("Type: CONV\nDimensions { K: -64 }\n")
            << "f.m:4:18: size of dimension K must not be negative (MAESTRO would silently read 64)\n";
        QTest::newRow("garbage size")
            << layer("Type: CONV\nDimensions { K: 6x4 }\n")
            << "f.m:4:17: size of dimension K must be an integer or a declared constant, not '6x4'\n";
        QTest::newRow("stride 0") << layer("Type: CONV\nStride { X: 0 }\n" + dims)
                                  << "f.m:4:13: stride of X must be at least 1\n";
        QTest::newRow("stride after dimensions") << layer("Type: CONV\n" + dims + "Stride { X: 2 }\n")
                                                 << "f.m:5:1: Stride must come before Dimensions\n";
        QTest::newRow("FC") << layer("Type: FC\n" + dims)
                            << "f.m:3:7: layer type FC is not supported by the MDC cost model\n";
        QTest::newRow("LSTM") << layer("Type: LSTM\n" + dims)
                              << "f.m:3:7: layer type LSTM is not supported by the MDC cost model\n";
        QTest::newRow("unknown type")
            << layer("Type: CONV2D\n" + dims)
            << "f.m:3:7: unknown layer type 'CONV2D' (expected CONV, DSCONV, NGCONV, GEMM or TRCONV)\n";
        QTest::newRow("missing type") << layer(dims) << "f.m:2:1: layer 'L1' has no Type\n";
        QTest::newRow("unknown Sz dimension")
            << layer("Type: CONV\n" + dims + "Dataflow { TemporalMap(Sz(Q),1) K; }\n")
            << "f.m:5:27: Sz(Q): dimension Q is not declared in the Dimensions of layer 'L1' before this "
               "point\n";
        QTest::newRow("Sz before Dimensions")
            << layer("Type: CONV\nDataflow { TemporalMap(Sz(R),1) Y; }\n" + dims)
            << "f.m:4:27: Sz(R): dimension R is not declared in the Dimensions of layer 'L1' before this "
               "point\n";
        QTest::newRow("unknown directive")
            << layer("Type: CONV\n" + dims + "Dataflow {\n  TemporalMapp(1,1) K;\n}\n")
            << "f.m:6:3: unknown directive 'TemporalMapp' in Dataflow block of Layer 'L1' (expected "
               "TemporalMap, "
               "SpatialMap, Cluster or '}')\n";
        QTest::newRow("map size 0") << layer("Type: CONV\n" + dims + "Dataflow { TemporalMap(0,1) K; }\n")
                                    << "f.m:5:24: map size must be at least 1\n";
        QTest::newRow("bad cluster type") << layer("Type: CONV\n" + dims + "Dataflow { Cluster(3, Q); }\n")
                                          << "f.m:5:23: cluster type must be P or L, not 'Q'\n";
        QTest::newRow("unexpected word in layer") << layer("Type: CONV\nFoo\n" + dims)
                                                  << "f.m:4:1: unexpected 'Foo' in Layer 'L1' (expected "
                                                     "Type, Stride, Dimensions, Dataflow or '}')\n";
        QTest::newRow("glued brace")
            << layer("Type: CONV\nDimensions {K:4}\n")
            << "f.m:4:12: expected '{' after Dimensions, found '{K' (braces must be separated by spaces)\n";
        QTest::newRow("brace glued to a name") << layer("Type: CONV\nDimensions { K: 4,}Y: 8 }\n")
                                               << "f.m:4:19: unexpected '}Y' as a name in the Dimensions "
                                                  "block of Layer 'L1' (braces must be separated by "
                                                  "spaces)\n";
        QTest::newRow("duplicate dimension") << layer("Type: CONV\nDimensions { K: 4, K: 8 }\n")
                                             << "f.m:4:20: dimension K is declared twice\n";
        QTest::newRow("unterminated layer")
            << "Network n {\n  Layer L1 {\n    Type: CONV\n"
            << "f.m:2:3: Layer 'L1' is not closed: end of file while expecting '}'\n";
        QTest::newRow("unterminated dataflow")
            << "Network n {\nLayer L1 {\nType: CONV\nDataflow {\nSpatialMap(1,1) K;\n"
            << "f.m:4:1: Dataflow block of Layer 'L1' is not closed: end of file while expecting '}'\n";
        QTest::newRow("unterminated network")
            << "Network n {\n"
            << "f.m:1:1: Network block is not closed: end of file while expecting '}'\n";
        QTest::newRow("every value error")
            << layer("Type: CONV\nDimensions { K: 0, C: x }\n")
            << "f.m:4:17: size of dimension K must be at least 1\n"
               "f.m:4:23: size of dimension C must be an integer or a declared constant, not 'x'\n";
        QTest::newRow("bad constant")
            << "Constant T abc;\n"
            << "f.m:1:12: value of constant 'T' must be a non-negative integer, not 'abc'\n";
    }
    void syntaxErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(parseError(text.toStdString())), expected);
    }

    void structuralRules_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        auto layer = [](const std::string& dims, const std::string& dataflow) {
            return QString::fromStdString(
                "Network n {\nLayer L1 {\nType: CONV\n" + dims + "\nDataflow {\n" + dataflow + "}\n}\n}\n");
        };
        const std::string dims = "Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 }";
        QTest::newRow("valid") << layer(dims, "SpatialMap(1,1) K;\nTemporalMap(3,3) R;\n") << "";
        QTest::newRow("partial R")
            << layer(dims, "SpatialMap(1,1) K;\nTemporalMap(1,1) R;\n")
            << "f.m:7:1: TemporalMap on R must cover the whole filter: size and offset must "
               "both be 3 (MAESTRO rejects TemporalMap(1,1) R)\n";
        QTest::newRow("spatial R is not checked") << layer(dims, "SpatialMap(1,1) R;\n") << "";
        QTest::newRow("no spatial map") << layer(dims, "TemporalMap(1,1) K;\n")
                                        << "f.m:6:1: cluster level 0 of layer 'L1' has no SpatialMap\n";
        QTest::newRow("inner level without spatial map")
            << layer(dims, "SpatialMap(1,1) K;\nCluster(2,P);\nTemporalMap(1,1) C;\n")
            << "f.m:8:1: cluster level 1 of layer 'L1' has no SpatialMap\n";
        QTest::newRow("three spatial maps")
            << layer(dims, "SpatialMap(1,1) K;\nSpatialMap(1,1) C;\nSpatialMap(1,1) Y;\n")
            << "f.m:8:1: cluster level 0 of layer 'L1' has more than two SpatialMaps\n";
        QTest::newRow("four clusters")
            << layer(dims,
                   "SpatialMap(1,1) K;\nCluster(1,P);\nSpatialMap(1,1) C;\nCluster(1,P);\nSpatialMap(1,1) "
                   "Y;\nCluster(1,P);\nSpatialMap(1,1) X;\nCluster(1,P);\nSpatialMap(1,1) C;\n")
            << "f.m:13:1: more than 3 Cluster directives (MAESTRO supports at most 4 cluster levels)\n";
        QTest::newRow("undeclared dimension")
            << layer(dims, "SpatialMap(1,1) K;\nTemporalMap(1,1) N;\n")
            << "f.m:7:1: directive on N, which layer 'L1' does not declare\n";
        QTest::newRow("output dimension in an inner level")
            << layer("Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 }",
                   "SpatialMap(1,1) C;\nCluster(2,P);\n"
                   "SpatialMap(1,1) Y;\nTemporalMap(1,1) M;\n")
            << "f.m:9:1: directive on M, which layer 'L1' does not declare\n";
        QTest::newRow("Y and Y' both declared")
            << layer("Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, Y': 6, X: 8 }", "SpatialMap(1,1) K;\n")
            << "f.m:2:1: layer 'L1' declares both Y and Y' (give the input or the output size, not both)\n";
        QTest::newRow("missing filter dimension") << layer("Dimensions { K: 4, C: 2, R: 3, Y: 8, X: 8 }",
            "SpatialMap(1,1) K;\n") << "f.m:2:1: layer 'L1' (CONV) does not declare dimension S\n";
        QTest::newRow("Y' without R")
            << layer(dims, "SpatialMap(1,1) Y';\n")
            << "f.m:6:1: Y' is mapped in a cluster level without a directive on R (MAESTRO's "
               "result would be undefined)\n";
        QTest::newRow("Y and Y' in one level")
            << layer(dims, "SpatialMap(1,1) Y';\nTemporalMap(3,3) R;\nTemporalMap(3,1) Y;\n")
            << "f.m:6:1: cluster level 0 of layer 'L1' maps both Y and Y'\n";
    }
    void structuralRules()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const Network n = marvel::mdc::readMaestroMapping(text.toStdString(), "f.m");
        QCOMPARE(QString::fromStdString(ruleErrors(n.layers.at(0))), expected);
    }
};

QTEST_APPLESS_MAIN(TestMaestroIo)
#include "tst_maestro_io.moc"
