// Impossible figures end to end (issue 22, point 3): `marvel evaluate` flags a Maestro figure below the
// compute bound with the status maestro-undercount and the corrected runtime beside it (csv, json, a
// warning line in the table), and `marvel search` says how many such mappings it refused while what it
// returns evaluates without the flag.
#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

namespace {

using clitest::kP1;
using clitest::runMarvel;

const QString kP2 = QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/P2_edge.json");
// VGG16 CONV4_3 (28x28 input) twice: GAMMA_LIKE, which MAESTRO undercounts, and KCP_WS (see the file).
const QString kConv43 = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/undercount/conv4_3_gamma_like.m");

} // namespace

class TestCliUndercount : public QObject
{
    Q_OBJECT

private slots:
    void csvHasTheStatusAndTheCorrectedRuntime()
    {
        const clitest::CliRun r = runMarvel(
            {"evaluate", "--hw", kP2, "--mapping", kConv43, "--format", "csv", "--fidelity", "maestro"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        const QStringList header = lines[0].split(',');
        // MAESTRO's columns keep their places; ours come after them.
        QCOMPARE(header.mid(0, 3), (QStringList{"layer_name", "status", "num_pes"}));
        QCOMPARE(
            header.mid(header.size() - 3), (QStringList{"compute_bound", "corrected_runtime", "fidelity"}));
        QCOMPARE(lines[1].split(',').last(), QString("maestro"));
        auto cell
            = [&](int row, const char* column) { return lines[row].split(',').at(header.indexOf(column)); };
        QCOMPARE(cell(1, "layer_name"), QString("GAMMA_LIKE"));
        QCOMPARE(cell(1, "status"), QString("maestro-undercount"));
        QCOMPARE(cell(1, "num_macs"), QString("1594884096"));
        QCOMPARE(cell(1, "runtime_cycles"), QString("982497")); // MAESTRO's figure, unchanged
        QCOMPARE(cell(1, "compute_bound"), QString("1557504"));
        QCOMPARE(cell(1, "corrected_runtime"), QString("1560801"));
        QCOMPARE(cell(2, "status"), QString("ok"));
        QCOMPARE(cell(2, "compute_bound"), QString("1557504"));
        QCOMPARE(cell(2, "corrected_runtime"), QString());
    }

    void jsonAndTable()
    {
        const clitest::CliRun j = runMarvel(
            {"evaluate", "--hw", kP2, "--mapping", kConv43, "--format", "json", "--fidelity", "maestro"});
        QCOMPARE(j.exitCode, 0);
        const auto doc = nlohmann::json::parse(j.out.toStdString());
        QCOMPARE(doc.size(), std::size_t(2));
        QCOMPARE(doc[0]["status"].get<std::string>(), std::string("maestro-undercount"));
        QCOMPARE(doc[0]["undercount"].get<std::string>(), std::string("below-compute-bound"));
        QCOMPARE(doc[0]["runtime_cycles"].get<long long>(), 982497LL);
        QCOMPARE(doc[0]["compute_bound"].get<long long>(), 1557504LL);
        QCOMPARE(doc[0]["corrected_runtime"].get<long long>(), 1560801LL);
        QCOMPARE(doc[1]["status"].get<std::string>(), std::string("ok"));
        QVERIFY(doc[1]["corrected_runtime"].is_null());
        QVERIFY(!doc[1].contains("undercount"));

        const clitest::CliRun t
            = runMarvel({"evaluate", "--hw", kP2, "--mapping", kConv43, "--fidelity", "maestro"});
        QCOMPARE(t.exitCode, 0);
        const QStringList warnings = t.out.split('\n').filter("warning:");
        QCOMPARE(warnings.size(), 1);
        QCOMPARE(warnings[0],
            QString(
                "warning: layer 'GAMMA_LIKE': maestro-undercount: MAESTRO's runtime 982497 cycles is below "
                "the compute bound 1557504 (1594884096 MACs on 1024 PEs x 1 SIMD lane); corrected "
                "fidelity: 1560801 cycles"));

        // In corrected fidelity the figure is the corrected runtime, and possible.
        const clitest::CliRun c = runMarvel(
            {"evaluate", "--hw", kP2, "--mapping", kConv43, "--format", "json", "--fidelity", "corrected"});
        QCOMPARE(c.exitCode, 0);
        const auto corrected = nlohmann::json::parse(c.out.toStdString());
        QCOMPARE(corrected[0]["status"].get<std::string>(), std::string("ok"));
        QCOMPARE(corrected[0]["runtime_cycles"].get<long long>(), 1560801LL);
    }

    void searchRefusesImpossibleFigures()
    {
        // AlexNet's CONV1 (stride 4) on P1, in maestro fidelity: MAESTRO miscounts the MACs of the mappings
        // that tile several strided output rows; the search refuses them, says how many, and its result is
        // possible.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString mdc = dir.filePath("best.m");
        const clitest::CliRun s = runMarvel({"search", "--model", "alexnet", "--layer", "CONV1", "--hw", kP1,
            "--json", "--threads", "2", "--export-mdc", mdc, "--fidelity", "maestro"});
        QCOMPARE(s.exitCode, 0);
        const auto doc = nlohmann::json::parse(s.out.toStdString());
        const auto& layer = doc["layers"][0];
        QVERIFY(layer["maestro_undercount_refused"].get<long long>() > 0);
        const clitest::CliRun e = runMarvel(
            {"evaluate", "--hw", kP1, "--mapping", mdc, "--format", "json", "--fidelity", "maestro"});
        QCOMPARE(e.exitCode, 0);
        const auto evaluated = nlohmann::json::parse(e.out.toStdString());
        QCOMPARE(evaluated[0]["status"].get<std::string>(), std::string("ok"));
        QCOMPARE(evaluated[0]["runtime_cycles"].get<long long>(), layer["runtime_cycles"].get<long long>());
        QVERIFY(evaluated[0]["runtime_cycles"].get<long long>()
            >= evaluated[0]["compute_bound"].get<long long>());

        const clitest::CliRun text = runMarvel({"search", "--model", "alexnet", "--layer", "CONV1", "--hw",
            kP1, "--threads", "2", "--fidelity", "maestro"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QString("maestro-undercount: %1 mappings refused")
                                       .arg(layer["maestro_undercount_refused"].get<long long>())),
            qPrintable(text.out));
    }
};

QTEST_APPLESS_MAIN(TestCliUndercount)
#include "tst_cli_undercount.moc"
