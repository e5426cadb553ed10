// Files that parse to nothing usable are errors, and one bad layer does not hide the good ones
// (issue 11): `marvel evaluate` and `marvel search --model` report every good layer, mark each bad one
// with its located error and exit with status 2.
#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::runMarvel;
using Run = clitest::CliRun;

namespace {
const QString kPartialData = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/partial");
} // namespace

class TestCliPartialInput : public QObject
{
    Q_OBJECT

private slots:
    void emptyFilesAreErrors_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty hardware file")
            << "evaluate-hw"
            << "hw.m" << QByteArray()
            << "hw.m: num_pes: the hardware file is empty: it must at least say how many PEs there are";
        QTest::newRow("hardware file without num_pes")
            << "evaluate-hw"
            << "hw.m" << QByteArray("l1_size_cstr: 64\nnoc_bw_cstr: 8\n")
            << "hw.m: num_pes: missing key: the hardware file must say how many PEs there are";
        QTest::newRow("empty JSON accelerator")
            << "evaluate-hw"
            << "hw.json" << QByteArray("{}") << "hw.json: num_pes: missing required field";
        QTest::newRow("empty mapping file")
            << "evaluate-mapping"
            << "map.m" << QByteArray("\n// nothing\n") << "map.m:1:1: the file is empty: it holds no layer";
        QTest::newRow("network without layers")
            << "evaluate-mapping"
            << "map.m" << QByteArray("Network n {\n}\n") << "map.m:1:1: the Network block holds no layer";
        QTest::newRow("empty model file")
            << "search-model"
            << "model.m" << QByteArray("") << "model.m:1:1: the file is empty: it holds no layer";
        QTest::newRow("JSON model without layers")
            << "search-model"
            << "model.json" << QByteArray(R"({"schema_version": 1, "layers": []})")
            << "model.json: layers: must be a non-empty array of layers";
        QTest::newRow("empty operator") << "search-op"
                                        << "op.loop" << QByteArray("\n") << "op.loop:2:1:";
    }
    void emptyFilesAreErrors()
    {
        QFETCH(QString, command);
        QFETCH(QString, fileName);
        QFETCH(QByteArray, contents);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(fileName);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(contents);
        f.close();
        const QString hw = kSamples + "/accelerators/P2_edge.json";
        const QString mapping = kSamples + "/mappings/vgg16_conv2_styles.m";
        QStringList args;
        if (command == "evaluate-hw")
            args = {"evaluate", "--hw", path, "--mapping", mapping};
        else if (command == "evaluate-mapping")
            args = {"evaluate", "--hw", hw, "--mapping", path};
        else if (command == "search-model")
            args = {"search", "--model", path, "--hw", hw};
        else
            args = {"search", "--op", path, "--hw", hw};
        const Run r = runMarvel(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(dir.path() + "/" + message), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
    }

    void evaluateReportsEveryGoodLayer()
    {
        // MAESTRO's figures (2097152 cycles: corrected fidelity adds the last write-back, 2098176).
        const QStringList base = {"evaluate", "--hw", kPartialData + "/accelerator_256.m", "--mapping",
            kPartialData + "/resnext_tail_yxp_os.m", "--fidelity", "maestro"};
        const QString located = kPartialData
            + "/resnext_tail_yxp_os.m:22:2: layer 'FC1000': invalid mapping: every iteration is empty (no "
              "MAC is computed)";

        const Run table = runMarvel(base);
        QCOMPARE(table.exitCode, 2);
        QCOMPARE(table.err, "marvel evaluate: " + located + "\n");
        const QStringList lines = table.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5); // the cost model's fidelity, header + 3 layers
        QVERIFY2(lines[0].startsWith("cost model: maestro fidelity"), qPrintable(lines[0]));
        QVERIFY(lines[2].startsWith("CONV5_3_1"));
        QVERIFY2(lines[2].contains(" 102760448 ") && lines[2].contains(" 2097152 "), qPrintable(lines[2]));
        QCOMPARE(lines[3], "FC1000     error: " + located);
        QVERIFY(lines[4].startsWith("CONV5_3_3"));
        QVERIFY2(lines[4].contains(" 102760448 ") && lines[4].contains(" 2097152 "), qPrintable(lines[4]));

        const Run csv = runMarvel(base + QStringList{"--format", "csv"});
        QCOMPARE(csv.exitCode, 2);
        const QStringList rows = csv.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 4);
        const QStringList header = rows[0].split(',');
        QCOMPARE(header.mid(0, 3), (QStringList{"layer_name", "status", "num_pes"}));
        const int runtime = int(header.indexOf("runtime_cycles"));
        QVERIFY(runtime > 0);
        QCOMPARE(rows[1].split(',').size(), header.size());
        QCOMPARE(rows[1].split(',')[1], "ok");
        QCOMPARE(rows[1].split(',')[runtime], "2097152");
        // The bad row keeps every column (empty), the error quoted only when it needs it.
        QCOMPARE(header.last(), "fidelity");
        QCOMPARE(rows[1].split(',').last(), "maestro");
        QCOMPARE(rows[2], "FC1000,error: " + located + QString(header.size() - 2, ',') + "maestro");
        QCOMPARE(rows[3].split(',')[1], "ok");
        QCOMPARE(rows[3].split(',')[runtime], "2097152");

        const Run json = runMarvel(base + QStringList{"--format", "json"});
        QCOMPARE(json.exitCode, 2);
        const auto doc = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(doc.size(), std::size_t(3));
        QVERIFY(doc[0]["status"] == "ok");
        QCOMPARE(doc[0]["runtime_cycles"].get<long long>(), 2097152LL);
        QCOMPARE(doc[0]["num_macs"].get<long long>(), 102760448LL);
        QVERIFY(!doc[0].contains("errors"));
        QVERIFY(doc[1]["layer_name"] == "FC1000");
        QVERIFY(doc[1]["status"] == "error");
        QVERIFY(doc[1]["errors"] == nlohmann::json::array({located.toStdString()}));
        QVERIFY(!doc[1].contains("runtime_cycles"));
        QVERIFY(doc[2]["status"] == "ok");
        QCOMPARE(doc[2]["num_macs"].get<long long>(), 102760448LL);
    }

    void searchModelReportsEveryGoodLayer_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("bad");
        QTest::addColumn<QString>("error");
        QTest::newRow("JSON model") << "tiny_bad_layer.json"
                                    << "fc_bad"
                                    << "tiny_bad_layer.json: layers[1].N: missing integer field";
        QTest::newRow("MAESTRO model")
            << "tiny_bad_layer.m"
            << "too_small"
            << "tiny_bad_layer.m:7:2: layer too_small: needs Y and X (or Y' and X') of at least the filter "
               "size";
    }
    void searchModelReportsEveryGoodLayer()
    {
        QFETCH(QString, model);
        QFETCH(QString, bad);
        QFETCH(QString, error);
        const QString path = kPartialData + "/" + model;
        const QString hw = kSamples + "/accelerators/P2_edge.json";
        const QString located = kPartialData + "/" + error;
        const Run r = runMarvel({"search", "--model", path, "--hw", hw, "--json", "--threads", "2"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, "marvel search: " + located + "\n");
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        const auto& layers = doc["layers"];
        QCOMPARE(layers.size(), std::size_t(3));
        QVERIFY(layers[0]["name"] == "c1");
        QVERIFY(layers[0]["status"] == "ok");
        QVERIFY(layers[1]["name"] == bad.toStdString());
        QVERIFY(layers[1]["status"] == "error");
        QVERIFY(layers[1]["errors"] == nlohmann::json::array({located.toStdString()}));
        QVERIFY(layers[2]["name"] == "fc");
        QVERIFY(layers[2]["status"] == "ok");
        QCOMPARE(doc["search_space"]["layers"].get<int>(), 2);

        // Each good layer has exactly the result it has when searched alone (in the optimised build: under
        // the sanitizers those searches would only run again what this run has just run, and compare).
        long long total = 0;
        for (const char* name : {"c1", "fc"}) {
            const auto& inModel = layers[std::string(name) == "c1" ? 0 : 2];
            total += inModel["runtime_cycles"].get<long long>();
            if (MARVEL_ADDRESS_SANITIZER) continue;
            const Run one = runMarvel(
                {"search", "--model", path, "--layer", name, "--hw", hw, "--json", "--threads", "2"});
            QCOMPARE(one.exitCode, 0);
            const auto alone = nlohmann::json::parse(one.out.toStdString())["layers"][0];
            QVERIFY(inModel["runtime_cycles"] == alone["runtime_cycles"]);
            QVERIFY(inModel["energy"] == alone["energy"]);
            QVERIFY(inModel["mapping"] == alone["mapping"]);
        }
        QCOMPARE(doc["total_runtime_cycles"].get<long long>(), total);

        // The readable report marks the bad layer in its place.
        const Run text = runMarvel({"search", "--model", path, "--hw", hw, "--threads", "2"});
        QCOMPARE(text.exitCode, 2);
        const qsizetype c1 = text.out.indexOf("== c1: best runtime");
        const qsizetype badLine = text.out.indexOf("== " + bad + ": error: " + located + "\n");
        const qsizetype fc = text.out.indexOf("== fc: best runtime");
        QVERIFY2(c1 >= 0 && badLine > c1 && fc > badLine, qPrintable(text.out));
    }

    // Sizes whose products overflow 64 bits: a GEMM of 2^31-1 cubed (2^93 MACs) is a valid operator
    // (marvel check accepts it) that the search rejects with a clear message instead of wrapping.
    void hugeSizes()
    {
        const QString op = kPartialData + "/huge_gemm.loop";
        QCOMPARE(runMarvel({"check", op}).exitCode, 0);
        const Run r = runMarvel({"search", "--op", op, "--hw", kSamples + "/accelerators/P2_edge.json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(
                     "huge: " + op + ":1:1: 'huge': the iteration space is too large for the cost model"),
            qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliPartialInput)
#include "tst_cli_partial_input.moc"
