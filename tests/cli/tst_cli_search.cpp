// `marvel search` end to end: a small operator and a small model, the JSON shape, the MAESTRO export
// read back by `marvel evaluate` to the same numbers, thread-count independence and exit codes.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"
#include "core/workloads/workloads.h"

using clitest::kP1;
using clitest::kSmallConv;
using clitest::parse;
using clitest::runMarvel;
using clitest::writeFile;

namespace {

const QByteArray kTinyModel = R"({"schema_version": 1, "name": "tiny", "layers": [
  {"name": "c1", "type": "CONV", "K": 16, "C": 3, "R": 3, "S": 3, "Y": 8, "X": 8, "stride": 1},
  {"name": "dw", "type": "DSCONV", "C": 16, "R": 3, "S": 3, "Y": 8, "X": 8, "stride": 1},
  {"name": "fc", "type": "GEMM", "M": 4, "N": 32, "K": 64}]})";

// Reads the MAESTRO file the search exported back with `marvel evaluate` in the search's fidelity (the
// default unless `fidelity` says otherwise): it must give the search's MACs, runtime and energy for
// `layer` (a layer object of `marvel search --json`).
void checkExportReadsBack(const QString& mdcPath, const QJsonObject& layer, QJsonObject* row = nullptr,
    const QString& fidelity = {})
{
    QStringList args{"evaluate", "--hw", kP1, "--mapping", mdcPath, "--format", "json"};
    if (!fidelity.isEmpty()) args << "--fidelity" << fidelity;
    const auto eval = runMarvel(args);
    QVERIFY2(eval.exitCode == 0, qPrintable(eval.err));
    const QJsonArray rows = QJsonDocument::fromJson(eval.out.toUtf8()).array();
    QCOMPARE(rows.size(), 1);
    const QJsonObject r = rows.at(0).toObject();
    QCOMPARE(r["num_macs"].toInteger(), layer["macs"].toInteger());
    QCOMPARE(r["runtime_cycles"].toInteger(), layer["runtime_cycles"].toInteger());
    QVERIFY(qAbs(r["total_energy_macu"].toDouble() - layer["energy"].toDouble())
        <= 1e-9 * layer["energy"].toDouble());
    // The DRAM elements too (the bytes follow layouts, which a MAESTRO file cannot hold).
    QCOMPARE(r["dram_reads"].toInteger(), layer["dram"].toObject()["reads"].toInteger());
    QCOMPARE(r["dram_writes"].toInteger(), layer["dram"].toObject()["writes"].toInteger());
    if (row) *row = r;
}

// Checks the "pareto" array of one layer of `marvel search --json`: runtime ascending, energy strictly
// descending (so no point dominates another), EDP = runtime x energy, a mapping per point, and the
// layer's best mapping for `objective` on the front (its runtime and energy, or a point that beats it on
// the other metric at the same value of the objective).
void checkParetoFront(const QJsonObject& layer, const QString& objective)
{
    const QJsonArray front = layer["pareto"].toArray();
    QVERIFY2(!front.isEmpty(), qPrintable(layer["name"].toString()));
    for (int i = 0; i < front.size(); ++i) {
        const QJsonObject p = front.at(i).toObject();
        QVERIFY(p["runtime_cycles"].toInteger() > 0);
        QCOMPARE(p["edp"].toDouble(), double(p["runtime_cycles"].toInteger()) * p["energy"].toDouble());
        QVERIFY(p["utilization"].toDouble() > 0 && p["utilization"].toDouble() <= 1);
        QVERIFY(!p["mapping"].toObject()["loops"].toArray().isEmpty());
        for (int j = 0; j < front.size(); ++j) {
            if (i == j) continue;
            const QJsonObject q = front.at(j).toObject();
            const bool dominates = q["runtime_cycles"].toInteger() <= p["runtime_cycles"].toInteger()
                && q["energy"].toDouble() <= p["energy"].toDouble();
            QVERIFY2(!dominates, qPrintable(QString("point %1 dominates point %2").arg(j).arg(i)));
        }
        if (i > 0) {
            const QJsonObject prev = front.at(i - 1).toObject();
            QVERIFY(prev["runtime_cycles"].toInteger() < p["runtime_cycles"].toInteger());
            QVERIFY(prev["energy"].toDouble() > p["energy"].toDouble());
        }
    }
    const qint64 runtime = layer["runtime_cycles"].toInteger();
    const double energy = layer["energy"].toDouble();
    if (objective == "runtime") {
        const QJsonObject first = front.first().toObject();
        QCOMPARE(first["runtime_cycles"].toInteger(), runtime);
        QVERIFY(first["energy"].toDouble() <= energy);
    } else if (objective == "energy") {
        const QJsonObject last = front.last().toObject();
        QCOMPARE(last["energy"].toDouble(), energy);
        QVERIFY(last["runtime_cycles"].toInteger() <= runtime);
    }
    // The best mapping itself is a point of the front unless a point beats it on the other metric.
    bool found = false;
    for (const auto& v : front) {
        const QJsonObject p = v.toObject();
        if (p["runtime_cycles"].toInteger() == runtime && p["energy"].toDouble() == energy) {
            found = true;
            if (objective != "edp") QCOMPARE(p["mapping"], layer["mapping"]);
        }
    }
    if (objective == "edp") QVERIFY(found);
}

// The rows of a --pareto-csv file after its header, split into fields.
QList<QStringList> csvRows(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    if (lines.isEmpty()
        || lines.takeFirst()
            != "layer,runtime_cycles,energy,edp,utilization,mac_energy,l1_energy,l2_energy,dram_energy,"
               "dram_reads,dram_writes,dram_read_bytes,dram_write_bytes")
        return {};
    QList<QStringList> rows;
    for (const QString& line : lines)
        rows.push_back(line.split(','));
    return rows;
}

} // namespace

class TestCliSearch : public QObject
{
    Q_OBJECT

private slots:
    void operatorJsonExportAndEvaluate()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("conv.loop"), kSmallConv);
        const QString mdcPath = dir.filePath("best.m");
        const auto run = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1, "--objective",
            "runtime", "--json", "--export-mdc", mdcPath});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject j = parse(run.out);
        QCOMPARE(j["objective"].toString(), QString("runtime"));
        const QStringList topKeys = {"capacity_checked", "elapsed_seconds", "fidelity", "layers", "objective",
            "search_space", "style", "technology", "total_energy", "total_roofline_cycles",
            "total_roofline_ratio", "total_runtime_cycles", "totals_by_kind"};
        QCOMPARE(j.keys(), topKeys);
        // One operator of the user's: one kind, its totals the model's.
        const QJsonArray kinds = j["totals_by_kind"].toArray();
        QCOMPARE(kinds.size(), 1);
        QCOMPARE(kinds[0].toObject()["kind"].toString(), QString("operator"));
        QCOMPARE(kinds[0].toObject()["runtime_cycles"].toInteger(), j["total_runtime_cycles"].toInteger());
        QCOMPARE(j["layers"].toArray()[0].toObject()["kind"].toString(), QString("operator"));
        // No table on P1: MAESTRO's energies, whose unit the figures in physical units name.
        QCOMPARE(j["technology"].toString(),
            QString("MAESTRO's energies (0.23 pJ per MAC unit) and area/power formulas"));
        QCOMPARE(
            j["fidelity"].toString(), QString("corrected")); // the figures say which cost model made them
        QCOMPARE(j["style"].toString(), QString("marvel")); // the full search, no --style
        const QJsonObject layer = j["layers"].toArray().at(0).toObject();
        for (const char* key :
            {"name", "status", "buffers", "macs", "runtime_cycles", "energy", "edp", "roofline_cycles",
                "mapping", "mdc", "evaluated", "seconds", "energy_pj", "area_mm2", "power_mw"})
            QVERIFY2(layer.contains(key), key);
        QCOMPARE(layer["status"].toString(), QString("ok"));
        // P1: 512 bytes of L1 per PE, 110592 of L2; the mapping's own requirement fits both.
        const QJsonObject buffers = layer["buffers"].toObject();
        QVERIFY(buffers["fits"].toBool());
        QVERIFY(buffers["l1_bytes_per_pe"].toInt() > 0 && buffers["l1_bytes_per_pe"].toInt() <= 512);
        QVERIFY(buffers["l2_bytes"].toInt() > 0 && buffers["l2_bytes"].toInt() <= 110592);
        QCOMPARE(layer["name"].toString(), QString("smallconv"));
        QCOMPARE(layer["macs"].toInteger(), 16LL * 8 * 8 * 8 * 3 * 3);
        QVERIFY(layer["runtime_cycles"].toInteger() >= layer["roofline_cycles"].toInteger());
        QCOMPARE(j["total_runtime_cycles"].toInteger(), layer["runtime_cycles"].toInteger());
        QVERIFY(layer["evaluated"].toInteger() > 0);
        QVERIFY(layer["mdc"].toString().contains("SpatialMap"));
        QCOMPARE(layer["mapping"].toObject()["loops"].toArray().size(), 6);
        // The roofline of 9216 MACs on 168 PEs is at least ceil(9216 / 168) = 55 cycles.
        QVERIFY(layer["roofline_cycles"].toInteger() >= 55);

        // The exported file reads back to the reported numbers.
        QJsonObject row;
        checkExportReadsBack(mdcPath, layer, &row);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(row["layer_name"].toString(), QString("smallconv"));
    }

    void stridedPointwiseExportAndEvaluate()
    {
        // A stride-2 1x1 convolution reads I only at even rows and columns: 16 * 8 * 7 * 7 MACs. The
        // export is the equivalent stride-1 CONV with R = S = 1 on the 7 x 7 subsampled input, and
        // `marvel evaluate` reads it back (both in maestro fidelity, whose stride handling is the subject) to
        // the search's numbers. (The decoupled search's mapping: the refinement's best, X over 7 clusters of
        // 16 PEs, is one cycle faster on the strided operator in maestro fidelity than on its subsampled
        // MAESTRO layer, 93 against 94 cycles, the simulator's figure too; a difference of the two models,
        // not of the export.)
        QTemporaryDir dir;
        writeFile(dir.filePath("sp.loop"),
            QByteArray::fromStdString(marvel::workloads::conv2dLoopText(16, 8, 7, 7, 1, 1, 2, 2)));
        const QString mdcPath = dir.filePath("sp.m");
        const auto run = runMarvel({"search", "--op", dir.filePath("sp.loop"), "--hw", kP1, "--json",
            "--export-mdc", mdcPath, "--no-refine", "--fidelity", "maestro"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject layer = parse(run.out)["layers"].toArray().at(0).toObject();
        QCOMPARE(layer["macs"].toInteger(), 16LL * 8 * 7 * 7);
        QFile exported(mdcPath);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(exported.readAll());
        QVERIFY2(text.contains("Dimensions { K: 16, C: 8, R: 1, S: 1, Y: 7, X: 7 }"), qPrintable(text));
        QVERIFY(!text.contains("Stride"));
        checkExportReadsBack(mdcPath, layer, nullptr, "maestro");
    }

    void strided3x3ExportAndEvaluate()
    {
        // A stride-2 3x3 convolution (8 x 8 outputs of a 17 x 17 input): 16 * 8 * 8 * 8 * 9 MACs. MAESTRO
        // counts them exactly only with one output row per top-level unit, which the top_spatial form
        // spreads over the PEs; `marvel evaluate` reads the export back to the search's numbers (both in
        // maestro fidelity, whose stride handling is the subject). The decoupled search spreads the first
        // strided output (Y'); the refinement keeps to the same rule but may spread X' (its export reads back
        // too, below).
        QTemporaryDir dir;
        writeFile(dir.filePath("s2.loop"),
            QByteArray::fromStdString(marvel::workloads::conv2dLoopText(16, 8, 8, 8, 3, 3, 2, 2)));
        const QString refinedPath = dir.filePath("refined.m");
        const auto refined = runMarvel({"search", "--op", dir.filePath("s2.loop"), "--hw", kP1, "--json",
            "--export-mdc", refinedPath, "--fidelity", "maestro"});
        QVERIFY2(refined.exitCode == 0, qPrintable(refined.err));
        checkExportReadsBack(
            refinedPath, parse(refined.out)["layers"].toArray().at(0).toObject(), nullptr, "maestro");
        const QString mdcPath = dir.filePath("s2.m");
        const auto run = runMarvel({"search", "--op", dir.filePath("s2.loop"), "--hw", kP1, "--json",
            "--export-mdc", mdcPath, "--no-refine", "--fidelity", "maestro"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject layer = parse(run.out)["layers"].toArray().at(0).toObject();
        const qint64 macs = 16LL * 8 * 8 * 8 * 9;
        QCOMPARE(layer["macs"].toInteger(), macs);
        const QJsonObject mapping = layer["mapping"].toObject();
        QCOMPARE(mapping["level2_form"].toString(), QString("top_spatial"));
        QFile exported(mdcPath);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(exported.readAll());
        QVERIFY2(text.contains("Stride { Y: 2, X: 2 }"), qPrintable(text));
        QVERIFY2(text.contains("SpatialMap(1,1) Y';"), qPrintable(text));
        QJsonObject row;
        checkExportReadsBack(mdcPath, layer, &row, "maestro");
        if (QTest::currentTestFailed()) return;
        QCOMPARE(row["macs_expected"].toInteger(), macs);
        // The output rows are spread one per PE over level-3 tiles equal to the level-2 tiles.
        for (const auto& l : mapping["loops"].toArray()) {
            const QJsonObject loop = l.toObject();
            if (loop["dim"].toString() != "Y") continue;
            QCOMPARE(loop["window_stride"].toInteger(), 2);
            QCOMPARE(loop["level1"].toInteger(), 1);
            QVERIFY(loop["parallelism"].toInteger() > 1);
            QCOMPARE(loop["level3"].toInteger(), loop["level2"].toInteger());
        }
    }

    void sameAnswerWithOneAndTwoThreads()
    {
        // Under the sanitizers tst_cli_determinism runs a search with one thread and with four.
        if (MARVEL_ADDRESS_SANITIZER) QSKIP("checked by the optimised build");
        QTemporaryDir dir;
        writeFile(dir.filePath("conv.loop"), kSmallConv);
        QJsonObject layers[2];
        for (int t = 0; t < 2; ++t) {
            // The EDP bound skips little, so a tighter PE-utilisation pruning keeps this fast under
            // the sanitizers (about 36k candidates instead of 233k); determinism is what is checked.
            const auto run
                = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1, "--objective", "edp",
                    "--pe-util-bound", "0.5", "--json", "--threads", QString::number(t + 1)});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            layers[t] = parse(run.out)["layers"].toArray().at(0).toObject();
        }
        QCOMPARE(layers[0]["mapping"], layers[1]["mapping"]);
        QCOMPARE(layers[0]["runtime_cycles"], layers[1]["runtime_cycles"]);
        QCOMPARE(layers[0]["evaluated"], layers[1]["evaluated"]);
    }

    /// --hw takes a preset's name as the benchmarks do (looked up in samples/accelerators from the
    /// working directory): the same search as with the file; a name that is neither says so.
    void presetNamesForHw()
    {
        const QString conv1d = QStringLiteral(MARVEL_SAMPLES_DIR "/operators/conv1d.loop");
        const QString edge = clitest::kSamples + QStringLiteral("/accelerators/edge1024_dram.json");
        const auto byFile = runMarvel({"search", "--op", conv1d, "--hw", edge, "--json"});
        const auto byName = clitest::runProgram(QStringLiteral(MARVEL_CLI_PATH),
            {"search", "--op", conv1d, "--hw", "edge1024_dram", "--json"}, 120000,
            QStringLiteral(MARVEL_SOURCE_DIR));
        QVERIFY2(byFile.exitCode == 0 && byName.exitCode == 0, qPrintable(byFile.err + byName.err));
        const QJsonObject a = parse(byFile.out)["layers"].toArray().at(0).toObject();
        const QJsonObject b = parse(byName.out)["layers"].toArray().at(0).toObject();
        QCOMPARE(b["mapping"], a["mapping"]);
        QCOMPARE(b["energy"], a["energy"]);
        QVERIFY(a["energy_parts"].toObject()["dram"].toDouble() > 0); // the preset's DRAM energy counts
        const auto unknown = clitest::runProgram(QStringLiteral(MARVEL_CLI_PATH),
            {"search", "--op", conv1d, "--hw", "no_such_preset"}, 120000, QStringLiteral(MARVEL_SOURCE_DIR));
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("no_such_preset: cannot read the file, nor is it a preset's name"),
            qPrintable(unknown.err));
    }

    /// A runtime below the roofline is never shown without a word: MobileNetV2's b1_dw on Edge 1024 with
    /// DRAM in maestro fidelity (MAESTRO's off-chip formula) says which bound and why, in the JSON and
    /// the text; corrected fidelity stays at or above the roofline and says nothing.
    void belowTheRooflineIsSaid()
    {
        const QString edge = clitest::kSamples + QStringLiteral("/accelerators/edge1024_dram.json");
        const QStringList args{"search", "--model", "mobilenetv2", "--layer", "b1_dw", "--hw", edge,
            "--no-refine", "--fidelity", "maestro"};
        const auto json = runMarvel(args + QStringList{"--json"});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject maestro = parse(json.out)["layers"].toArray().at(0).toObject();
        QVERIFY(maestro["runtime_cycles"].toInteger() < maestro["roofline_cycles"].toInteger());
        QVERIFY2(maestro["below_roofline"].toString().startsWith(
                     "below the roofline's off-chip bound (12775 cycles)"),
            qPrintable(maestro["below_roofline"].toString()));
        const auto text = runMarvel(args);
        QVERIFY(
            text.out.contains("   note: runtime below the roofline's off-chip bound (12775 cycles): maestro "
                              "fidelity's off-chip time"));
        const auto corrected = runMarvel(args + QStringList{"--json", "--fidelity", "corrected"});
        QVERIFY2(corrected.exitCode == 0, qPrintable(corrected.err));
        const QJsonObject c = parse(corrected.out)["layers"].toArray().at(0).toObject();
        QVERIFY(c["runtime_cycles"].toInteger() >= c["roofline_cycles"].toInteger());
        QVERIFY(!c.contains("below_roofline"));
    }

    void readableOutput()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("conv.loop"), kSmallConv);
        // The energy bound skips little: a tighter PE-utilisation pruning keeps this fast under the
        // sanitizers; the readable form is what is checked.
        const auto run = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1, "--objective",
            "energy", "--pe-util-bound", "0.5"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(run.out.contains("== smallconv: best energy"));
        QVERIFY(run.out.contains("-- tiled loop nest"));
        QVERIFY(run.out.contains("O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s];"));
        QVERIFY(run.out.contains("-- MDC"));
        QVERIFY(run.err.isEmpty()); // no progress bar when stderr is not a terminal
    }

    /// A model's totals, as the app's Model panel shows them ("N of M layers: X cycles, energy E, R x the
    /// roofline"): runtime and energy of the best mappings and the rooflines, each layer counted `repeat`
    /// times, and the ratio of the two sums; in the text and in the JSON.
    void modelTotalsAsTheAppShowsThem()
    {
        QTemporaryDir dir;
        QByteArray model = kTinyModel;
        model.replace(R"("name": "dw",)", R"("name": "dw", "repeat": 3,)"); // a repeated layer counts 3 times
        writeFile(dir.filePath("tiny.json"), model);
        const QStringList common{"search", "--model", dir.filePath("tiny.json"), "--hw", kP1, "--no-refine"};
        const auto json = runMarvel(common + QStringList{"--json"});
        const auto text = runMarvel(common);
        QVERIFY2(json.exitCode == 0 && text.exitCode == 0, qPrintable(json.err + text.err));
        const QJsonObject j = parse(json.out);
        qint64 runtime = 0, roofline = 0;
        double energy = 0;
        for (const auto& v : j["layers"].toArray()) {
            const QJsonObject l = v.toObject();
            const int repeat = l["repeat"].toInt();
            QCOMPARE(repeat, l["name"].toString() == "dw" ? 3 : 1);
            runtime += l["runtime_cycles"].toInteger() * repeat;
            roofline += l["roofline_cycles"].toInteger() * repeat;
            energy += l["energy"].toDouble() * repeat;
        }
        QCOMPARE(j["total_runtime_cycles"].toInteger(), runtime);
        QCOMPARE(j["total_roofline_cycles"].toInteger(), roofline);
        QVERIFY2(qAbs(j["total_energy"].toDouble() - energy) <= 1e-12 * energy,
            qPrintable(QString::number(j["total_energy"].toDouble())));
        const double ratio = double(runtime) / double(roofline);
        QVERIFY(ratio > 1.0); // the tiny layers on 168 PEs stay above their rooflines
        QCOMPARE(j["total_roofline_ratio"].toDouble(), ratio);
        // The text: the same figures (the search is deterministic), ratio to 3 decimals as the app shows it.
        const QString line
            = QStringLiteral("total runtime %1 cycles, roofline %2 cycles (ratio %3), energy %4; "
                             "over 3 of 3 layers (repeats counted)\n")
                  .arg(runtime)
                  .arg(roofline)
                  .arg(ratio, 0, 'f', 3)
                  .arg(QString::asprintf("%.6g", energy));
        QVERIFY2(text.out.contains(line), qPrintable(line + " | " + text.out.right(600)));
    }

    void modelExportAndEvaluate()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("tiny.json"), kTinyModel);
        const QString mdcPath = dir.filePath("tiny.m");
        const auto run = runMarvel(
            {"search", "--model", dir.filePath("tiny.json"), "--hw", kP1, "--json", "--export-mdc", mdcPath});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonArray layers = parse(run.out)["layers"].toArray();
        QCOMPARE(layers.size(), 3);
        qint64 total = 0;
        for (const auto& l : layers)
            total += l.toObject()["runtime_cycles"].toInteger();
        QCOMPARE(parse(run.out)["total_runtime_cycles"].toInteger(), total);
        const auto eval = runMarvel({"evaluate", "--hw", kP1, "--mapping", mdcPath, "--format", "json"});
        QVERIFY2(eval.exitCode == 0, qPrintable(eval.err));
        const QJsonArray rows = QJsonDocument::fromJson(eval.out.toUtf8()).array();
        QCOMPARE(rows.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const QJsonObject l = layers.at(i).toObject();
            QCOMPARE(rows.at(i).toObject()["layer_name"].toString(), l["name"].toString());
            QCOMPARE(rows.at(i).toObject()["runtime_cycles"].toInteger(), l["runtime_cycles"].toInteger());
        }
        // --layer picks one.
        const auto one = runMarvel(
            {"search", "--model", dir.filePath("tiny.json"), "--layer", "fc", "--hw", kP1, "--json"});
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(parse(one.out)["layers"].toArray().size(), 1);
    }

    void paretoFrontPerObjective_data()
    {
        QTest::addColumn<QString>("objective");
        QTest::newRow("runtime") << "runtime";
        QTest::newRow("energy") << "energy";
        QTest::newRow("edp") << "edp";
    }
    void paretoFrontPerObjective()
    {
        QFETCH(QString, objective);
        QTemporaryDir dir;
        writeFile(dir.filePath("conv.loop"), kSmallConv);
        const QString csvPath = dir.filePath("front.csv");
        // A tighter PE-utilisation pruning keeps the energy and EDP searches fast under the sanitizers.
        const auto run = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1, "--objective",
            objective, "--pe-util-bound", "0.5", "--json", "--pareto-csv", csvPath});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject layer = parse(run.out)["layers"].toArray().at(0).toObject();
        checkParetoFront(layer, objective);
        if (QTest::currentTestFailed()) return;

        // The CSV holds the same front, number for number.
        const QJsonArray front = layer["pareto"].toArray();
        const QList<QStringList> rows = csvRows(csvPath);
        QCOMPARE(rows.size(), front.size());
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject p = front.at(i).toObject();
            QCOMPARE(rows[i].size(), 13);
            QCOMPARE(rows[i][0], QString("smallconv"));
            QCOMPARE(rows[i][1].toLongLong(), p["runtime_cycles"].toInteger());
            QCOMPARE(rows[i][2].toDouble(), p["energy"].toDouble());
            QCOMPARE(rows[i][3].toDouble(), p["edp"].toDouble());
            QCOMPARE(rows[i][4].toDouble(), p["utilization"].toDouble());
            // The energy's parts add up to it; P1 charges no DRAM energy, but the traffic is there.
            const QJsonObject parts = p["energy_parts"].toObject();
            QCOMPARE(rows[i][5].toDouble(), parts["mac"].toDouble());
            QCOMPARE(rows[i][8].toDouble(), 0.0);
            QVERIFY(qAbs(rows[i][5].toDouble() + rows[i][6].toDouble() + rows[i][7].toDouble()
                        + rows[i][8].toDouble() - rows[i][2].toDouble())
                <= 1e-9 * rows[i][2].toDouble());
            QCOMPARE(rows[i][9].toLongLong(), p["dram"].toObject()["reads"].toInteger());
            QVERIFY(rows[i][9].toLongLong() > 0 && rows[i][10].toLongLong() > 0);
            QCOMPARE(rows[i][12].toLongLong(), p["dram"].toObject()["write_bytes"].toInteger());
        }
        QVERIFY(!QFile::exists(csvPath + ".tmp"));
    }

    void paretoFrontOfEveryModelLayer()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("tiny.json"), kTinyModel);
        const QString csvPath = dir.filePath("front.csv");
        writeFile(csvPath, "stale contents\n");
        const auto run = runMarvel({"search", "--model", dir.filePath("tiny.json"), "--hw", kP1,
            "--objective", "energy", "--pe-util-bound", "0.5", "--json", "--pareto-csv", csvPath});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonArray layers = parse(run.out)["layers"].toArray();
        QCOMPARE(layers.size(), 3);
        QList<QStringList> expected;
        for (const auto& l : layers) {
            const QJsonObject layer = l.toObject();
            checkParetoFront(layer, "energy");
            if (QTest::currentTestFailed()) return;
            for (const auto& p : layer["pareto"].toArray())
                expected.push_back(
                    {layer["name"].toString(), QString::number(p.toObject()["runtime_cycles"].toInteger())});
        }
        QList<QStringList> rows = csvRows(csvPath);
        QCOMPARE(rows.size(), expected.size());
        for (int i = 0; i < rows.size(); ++i)
            QCOMPARE(rows[i].mid(0, 2), expected[i]);
    }

    void paretoFrontInReadableOutput()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("conv.loop"), kSmallConv);
        const auto run = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const qsizetype at = run.out.indexOf("-- runtime-energy Pareto set (");
        QVERIFY2(at >= 0, qPrintable(run.out));
        const QStringList lines = run.out.mid(at).split('\n');
        QVERIFY(lines.size() > 3);
        QVERIFY(lines[1].contains("runtime cycles") && lines[1].contains("energy") && lines[1].contains("EDP")
            && lines[1].contains("utilization"));
        // The first row is the fastest mapping: the best for the runtime objective.
        const QStringList first = lines[2].split(' ', Qt::SkipEmptyParts);
        QVERIFY2(lines[2].endsWith("<- best runtime"), qPrintable(lines[2]));
        QVERIFY2(run.out.contains("runtime " + first[0] + " cycles"), qPrintable(run.out));
    }

    void paretoCsvUnwritable()
    {
        const auto run
            = runMarvel({"search", "--op", QStringLiteral(MARVEL_SAMPLES_DIR "/operators/gemm.loop"), "--hw",
                kP1, "--pareto-csv", "/nonexistent/folder/front.csv"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("/nonexistent/folder/front.csv: cannot write the Pareto CSV file"),
            qPrintable(run.err));
    }

    /// 34 x 34 x 34 (2 x 17 each) on 16 PEs: the divisor tiles keep at most 8 PEs busy, over 2x the
    /// roofline, so the search widens to other tile sizes and says so; --widen-above 0 keeps the paper's
    /// divisor-only search, which is slower; values between 0 and 1 make no sense.
    void widenedSearchIsReported()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("g.loop"),
            "operator g(M = 34, N = 34, K = 34) {\n  for (m = 0; m < M; m++)\n    for (n = 0; n < N; n++)\n"
            "      for (k = 0; k < K; k++)\n        C[m][n] += A[m][k] * B[k][n];\n}\n");
        writeFile(dir.filePath("acc.json"), R"({"num_pes": 16, "noc_bandwidth_elements_per_cycle": 16})");
        const QStringList base = {"search", "--op", dir.filePath("g.loop"), "--hw", dir.filePath("acc.json"),
            "--json", "--no-refine"};
        const auto widened = runMarvel(base);
        QCOMPARE(widened.exitCode, 0);
        QVERIFY2(widened.err.contains("g: note: the tile sizes that divide the loop bounds"),
            qPrintable(widened.err));
        const auto strict = runMarvel(base + QStringList{"--widen-above", "0"});
        QCOMPARE(strict.exitCode, 0);
        QVERIFY(!strict.err.contains("note:"));
        const QJsonObject w
            = QJsonDocument::fromJson(widened.out.toUtf8()).object()["layers"].toArray()[0].toObject();
        const QJsonObject d
            = QJsonDocument::fromJson(strict.out.toUtf8()).object()["layers"].toArray()[0].toObject();
        QCOMPARE(w["widened_to_non_divisors"].toBool(), true);
        QCOMPARE(d["widened_to_non_divisors"].toBool(), false);
        QVERIFY(w["runtime_cycles"].toDouble() < d["runtime_cycles"].toDouble());
        QVERIFY(d["runtime_cycles"].toDouble() > 2 * d["roofline_cycles"].toDouble());
        const auto bad = runMarvel(base + QStringList{"--widen-above", "0.5"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--widen-above must be 0 (never) or at least 1"), qPrintable(bad.err));
    }

    /// A 12-byte L1 holds no mapping of the tiny model's 3x3 layers (the smallest needs 14 bytes: a 1x3
    /// filter row, the input row it slides over and the one output it makes, double buffered; MAESTRO's
    /// requirement counts the output at window size, 18) but does hold the GEMM's: those layers are
    /// reported as not mappable with the smallest requirement, the GEMM as usual, and the exit status is 3.
    void notMappableLayersAreReported()
    {
        QTemporaryDir dir;
        const QString model = dir.filePath("tiny.json");
        writeFile(model, kTinyModel);
        QFile p1(kP1);
        QVERIFY(p1.open(QIODevice::ReadOnly));
        QJsonObject acc = QJsonDocument::fromJson(p1.readAll()).object();
        acc["l1_bytes"] = 12;
        const QString hw = dir.filePath("small_l1.json");
        writeFile(hw, QJsonDocument(acc).toJson());
        // The paper's search (--no-refine) is enough to find what does not fit, and quick under the
        // sanitizers.
        const auto run = runMarvel({"search", "--model", model, "--hw", hw, "--json", "--no-refine",
            "--export-mdc", dir.filePath("x.m")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains("c1: not mappable on P1 (Eyeriss-like)"), qPrintable(run.err));
        const QJsonArray layers = parse(run.out)["layers"].toArray();
        QCOMPARE(layers.size(), 3);
        for (int i : {0, 1}) {
            const QJsonObject l = layers[i].toObject();
            QCOMPARE(l["status"].toString(), QStringLiteral("not_mappable"));
            QCOMPARE(l["smallest_requirement"].toObject()["l1_bytes_per_pe"].toInt(), 2 * (3 + 3 + 1));
            QCOMPARE(l["capacity"].toObject()["l1_bytes_per_pe"].toInt(), 12);
            QVERIFY(!l.contains("mapping"));
        }
        const QJsonObject fc = layers[2].toObject();
        QCOMPARE(fc["status"].toString(), QStringLiteral("ok"));
        QVERIFY(fc["buffers"].toObject()["fits"].toBool());
        QVERIFY(fc["buffers"].toObject()["l1_bytes_per_pe"].toInt() <= 12);
        // Only the mappable layer is exported.
        QFile exported(dir.filePath("x.m"));
        QVERIFY(exported.open(QIODevice::ReadOnly));
        const QByteArray text = exported.readAll();
        QVERIFY(text.contains("Layer fc") && !text.contains("Layer c1"));

        // Without the L1 check the same search returns mappings, says they may not fit, and exits 0.
        const auto unchecked
            = runMarvel({"search", "--model", model, "--hw", hw, "--json", "--no-refine", "--no-l1-check"});
        QCOMPARE(unchecked.exitCode, 0);
        QVERIFY(unchecked.err.contains("the mappings may not fit in L1"));
        const QJsonObject u = parse(unchecked.out);
        QVERIFY(!u["capacity_checked"].toObject()["l1"].toBool());
        QVERIFY(!u["layers"].toArray()[0].toObject()["buffers"].toObject()["fits"].toBool());
        const auto text2
            = runMarvel({"search", "--model", model, "--hw", hw, "--no-refine", "--no-l1-check"});
        QVERIFY(text2.out.startsWith("warning: L1 capacity not checked"));
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const QString conv = QStringLiteral(MARVEL_SAMPLES_DIR "/operators/conv2d.loop");
        QTest::newRow("no source") << QStringList{"search", "--hw", kP1} << 2
                                   << "exactly one of --op and --model";
        QTest::newRow("no hw") << QStringList{"search", "--op", conv} << 2 << "missing --hw";
        QTest::newRow("timeloop space alone") << QStringList{"search", "--op", conv, "--hw", kP1,
            "--timeloop-space", "wide"} << 2 << "--timeloop-space goes with --timeloop-compatible";
        QTest::newRow("bad timeloop space") << QStringList{"search", "--op", conv, "--hw", kP1,
            "--timeloop-compatible", "--timeloop-space", "huge"}
                                            << 2 << "--timeloop-space takes narrow or wide";
        QTest::newRow("bad objective") << QStringList{"search", "--op", conv, "--hw", kP1, "--objective",
            "speed"} << 2 << "--objective must be runtime, energy or edp";
        QTest::newRow("bad bound") << QStringList{"search", "--op", conv, "--hw", kP1, "--pe-util-bound", "2"}
                                   << 2 << "pe-util-bound";
        for (const char* bad : {"-0.001", "0.6", "tenth", "nan"})
            QTest::addRow("bad near tie %s", bad)
                << QStringList{"search", "--op", conv, "--hw", kP1, "--near-tie", bad} << 2 << "--near-tie";
        QTest::newRow("missing op") << QStringList{"search", "--op", "/nonexistent.loop", "--hw", kP1} << 2
                                    << "nonexistent.loop";
        QTest::newRow("unknown layer") << QStringList{"search", "--model", "resnet50", "--layer", "nope",
            "--hw", kP1} << 2 << "no layer 'nope'";
        QTest::newRow("not conformable") << QStringList{"search", "--op",
            QStringLiteral(MARVEL_SAMPLES_DIR "/operators/nonconformable/prefix_sum.loop"), "--hw", kP1}
                                         << 1 << "not conformable";
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const auto run = runMarvel(args);
        QCOMPARE(run.exitCode, code);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
    }
};

QTEST_APPLESS_MAIN(TestCliSearch)
#include "tst_cli_search.moc"
