// `marvel search --project` and `marvel evaluate --project`: a project runs as the equivalent options do,
// options override its settings, a model path is relative to the project, the selected mapping evaluates
// to the numbers of the same mapping exported as a MAESTRO file, and broken projects name the field.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

using clitest::kP1;
using clitest::kSamples;
using clitest::kSmallConv;
using clitest::parse;
using clitest::runMarvel;
using clitest::writeFile;

namespace {

const QByteArray kProjectModel = R"({"schema_version": 1, "name": "tiny", "layers": [
  {"name": "c1", "type": "CONV", "K": 16, "C": 3, "R": 3, "S": 3, "Y": 8, "X": 8, "stride": 1},
  {"name": "fc", "type": "GEMM", "M": 4, "N": 32, "K": 64}]})";

QJsonObject readJsonFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// A project of the small convolution on P1 with an EDP search (the PE-utilisation bound keeps it fast
// under the sanitizers).
QJsonObject convProject()
{
    QJsonObject workload{{"kind", "operator"}, {"text", QString::fromUtf8(kSmallConv)}};
    QJsonObject search{{"objective", "edp"}, {"fidelity", "maestro"}, {"pe_util_bound", 0.5},
        {"divisors_only", true}, {"l1_check", true}, {"l2_check", true}, {"bound_skipping", true},
        {"threads", 1}};
    return {{"schema_version", 1}, {"workload", workload}, {"accelerator", readJsonFile(kP1)},
        {"search", search}};
}

void writeProject(const QString& path, const QJsonObject& project)
{
    writeFile(path, QJsonDocument(project).toJson());
}

// The numbers `marvel search --json` reports for a layer, without timings.
QJsonObject searchFigures(const QJsonObject& layer)
{
    QJsonObject out;
    for (const char* key :
        {"name", "macs", "runtime_cycles", "energy", "edp", "mapping", "mdc", "evaluated", "pareto"})
        out[key] = layer[key];
    return out;
}

} // namespace

class TestCliProject : public QObject
{
    Q_OBJECT

private slots:
    void searchProjectEqualsOptions()
    {
        // The settings reach the decoupled search alike either way; the refinement would only repeat
        // it (--no-refine keeps the sanitizer run short).
        QTemporaryDir dir;
        writeFile(dir.filePath("conv.loop"), kSmallConv);
        writeProject(dir.filePath("p.json"), convProject());
        const auto byProject
            = runMarvel({"search", "--project", dir.filePath("p.json"), "--json", "--no-refine"});
        QVERIFY2(byProject.exitCode == 0, qPrintable(byProject.err));
        // The project's fidelity (maestro, not the default) reaches the search too.
        const auto byOptions = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1,
            "--objective", "edp", "--pe-util-bound", "0.5", "--threads", "1", "--json", "--no-refine",
            "--fidelity", "maestro"});
        QVERIFY2(byOptions.exitCode == 0, qPrintable(byOptions.err));
        QCOMPARE(parse(byProject.out)["objective"].toString(), QString("edp"));
        const QJsonObject a = parse(byProject.out)["layers"].toArray().at(0).toObject();
        const QJsonObject b = parse(byOptions.out)["layers"].toArray().at(0).toObject();
        QCOMPARE(searchFigures(a), searchFigures(b));

        // Options override the project's settings.
        const auto overridden = runMarvel({"search", "--project", dir.filePath("p.json"), "--objective",
            "runtime", "--pe-util-bound", "0.25", "--json", "--no-refine"});
        QVERIFY2(overridden.exitCode == 0, qPrintable(overridden.err));
        const auto same = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1, "--objective",
            "runtime", "--pe-util-bound", "0.25", "--json", "--no-refine", "--fidelity", "maestro"});
        QVERIFY2(same.exitCode == 0, qPrintable(same.err));
        QCOMPARE(parse(overridden.out)["objective"].toString(), QString("runtime"));
        QCOMPARE(searchFigures(parse(overridden.out)["layers"].toArray().at(0).toObject()),
            searchFigures(parse(same.out)["layers"].toArray().at(0).toObject()));

        // The project's pruning settings are used: without bound skipping more mappings are evaluated.
        QJsonObject p = convProject();
        QJsonObject s = p["search"].toObject();
        s["bound_skipping"] = false;
        s["objective"] = "runtime";
        p["search"] = s;
        writeProject(dir.filePath("noskip.json"), p);
        const auto noSkipping
            = runMarvel({"search", "--project", dir.filePath("noskip.json"), "--json", "--no-refine"});
        QVERIFY2(noSkipping.exitCode == 0, qPrintable(noSkipping.err));
        const auto noSkippingOptions
            = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1, "--pe-util-bound", "0.5",
                "--no-bound-skipping", "--json", "--no-refine", "--fidelity", "maestro"});
        QVERIFY2(noSkippingOptions.exitCode == 0, qPrintable(noSkippingOptions.err));
        const QJsonObject c = parse(noSkipping.out)["layers"].toArray().at(0).toObject();
        QCOMPARE(searchFigures(c),
            searchFigures(parse(noSkippingOptions.out)["layers"].toArray().at(0).toObject()));
        const auto skipping = runMarvel({"search", "--op", dir.filePath("conv.loop"), "--hw", kP1,
            "--pe-util-bound", "0.5", "--json", "--no-refine", "--fidelity", "maestro"});
        QVERIFY2(skipping.exitCode == 0, qPrintable(skipping.err));
        QVERIFY(c["evaluated"].toInteger()
            > parse(skipping.out)["layers"].toArray().at(0).toObject()["evaluated"].toInteger());
    }

    void modelProjectRelativeToItsFolder()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("models"));
        writeFile(dir.filePath("models/tiny.json"), kProjectModel);
        QJsonObject p = convProject();
        p["workload"] = QJsonObject{{"kind", "model"}, {"model", "models/tiny.json"}, {"layer", "fc"}};
        writeProject(dir.filePath("p.json"), p);
        // The test's working directory is not the project's folder.
        QVERIFY(QDir::currentPath() != dir.path());
        const auto one = runMarvel({"search", "--project", dir.filePath("p.json"), "--json"});
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        QJsonArray layers = parse(one.out)["layers"].toArray();
        QCOMPARE(layers.size(), 1);
        QCOMPARE(layers.at(0).toObject()["name"].toString(), QString("fc"));
        QCOMPARE(layers.at(0).toObject()["macs"].toInteger(), 4LL * 32 * 64);

        // --layer picks another layer; without a layer the whole model is searched.
        const auto other
            = runMarvel({"search", "--project", dir.filePath("p.json"), "--layer", "c1", "--json"});
        QVERIFY2(other.exitCode == 0, qPrintable(other.err));
        layers = parse(other.out)["layers"].toArray();
        QCOMPARE(layers.size(), 1);
        QCOMPARE(layers.at(0).toObject()["name"].toString(), QString("c1"));
        p["workload"] = QJsonObject{{"kind", "model"}, {"model", "models/tiny.json"}};
        writeProject(dir.filePath("whole.json"), p);
        const auto whole = runMarvel({"search", "--project", dir.filePath("whole.json"), "--json"});
        QVERIFY2(whole.exitCode == 0, qPrintable(whole.err));
        QCOMPARE(parse(whole.out)["layers"].toArray().size(), 2);
    }

    void evaluateProjectReproducesExport()
    {
        QTemporaryDir dir;
        writeProject(dir.filePath("p.json"), convProject());
        const QString mdcPath = dir.filePath("best.m");
        const auto search
            = runMarvel({"search", "--project", dir.filePath("p.json"), "--json", "--export-mdc", mdcPath});
        QVERIFY2(search.exitCode == 0, qPrintable(search.err));
        const QJsonObject layer = parse(search.out)["layers"].toArray().at(0).toObject();

        // The project with the search's best mapping selected, as the app saves it.
        QJsonObject p = convProject();
        QJsonObject selected = layer["mapping"].toObject();
        selected["layer"] = layer["name"];
        p["selected_mapping"] = selected;
        writeProject(dir.filePath("selected.json"), p);
        // The same numbers but the DRAM bytes: the project counts them under the mapping's DRAM layouts,
        // which a MAESTRO file cannot express (it is read row-major).
        auto withoutBytes = [](const QString& out, const char* format) {
            QList<QStringList> rows;
            const bool table = QString(format) == "table";
            for (const QString& line : out.split('\n', Qt::SkipEmptyParts))
                if (!line.startsWith("cost model: ")) // the table's first line (both say maestro)
                    rows.push_back(table ? line.split(' ', Qt::SkipEmptyParts) : line.split(','));
            QList<int> bytes;
            for (int c = 0; c < rows.value(0).size(); ++c)
                if (rows[0][c].endsWith("_bytes")) bytes.prepend(c);
            for (QStringList& r : rows)
                for (int c : bytes)
                    if (c < r.size()) r.removeAt(c);
            return rows;
        };
        auto jsonWithoutBytes = [](const QString& out) {
            QJsonObject o = QJsonDocument::fromJson(out.toUtf8()).array().at(0).toObject();
            for (const QString& key : o.keys())
                if (key.endsWith("_bytes")) o.remove(key);
            return o;
        };
        for (const char* format : {"json", "csv", "table"}) {
            const auto byProject
                = runMarvel({"evaluate", "--project", dir.filePath("selected.json"), "--format", format});
            QVERIFY2(byProject.exitCode == 0, qPrintable(byProject.err));
            // The project's fidelity is maestro.
            const auto byFile = runMarvel(
                {"evaluate", "--hw", kP1, "--mapping", mdcPath, "--format", format, "--fidelity", "maestro"});
            QVERIFY2(byFile.exitCode == 0, qPrintable(byFile.err));
            if (QString(format) == "json") {
                QCOMPARE(jsonWithoutBytes(byProject.out), jsonWithoutBytes(byFile.out));
            } else {
                QCOMPARE(withoutBytes(byProject.out, format), withoutBytes(byFile.out, format));
            }
        }
        const auto eval
            = runMarvel({"evaluate", "--project", dir.filePath("selected.json"), "--format", "json"});
        const QJsonObject row = QJsonDocument::fromJson(eval.out.toUtf8()).array().at(0).toObject();
        QCOMPARE(row["layer_name"].toString(), QString("smallconv"));
        QCOMPARE(row["num_macs"].toInteger(), layer["macs"].toInteger());
        QCOMPARE(row["runtime_cycles"].toInteger(), layer["runtime_cycles"].toInteger());
        QVERIFY(qAbs(row["total_energy_macu"].toDouble() - layer["energy"].toDouble())
            <= 1e-9 * layer["energy"].toDouble());
        // The DRAM traffic the search reported, bytes under its layouts included.
        const QJsonObject dram = layer["dram"].toObject();
        QCOMPARE(row["dram_reads"].toInteger(), dram["reads"].toInteger());
        QCOMPARE(row["dram_writes"].toInteger(), dram["writes"].toInteger());
        QCOMPARE(row["dram_read_bytes"].toInteger(), dram["read_bytes"].toInteger());
        QCOMPARE(row["dram_write_bytes"].toInteger(), dram["write_bytes"].toInteger());

        // The layer name may be left out when the workload has one layer; --fidelity overrides.
        selected.remove("layer");
        p["selected_mapping"] = selected;
        writeProject(dir.filePath("unnamed.json"), p);
        const auto unnamed
            = runMarvel({"evaluate", "--project", dir.filePath("unnamed.json"), "--format", "json"});
        QVERIFY2(unnamed.exitCode == 0, qPrintable(unnamed.err));
        QCOMPARE(unnamed.out, eval.out);
        const auto corrected = runMarvel({"evaluate", "--project", dir.filePath("unnamed.json"), "--format",
            "json", "--fidelity", "corrected"});
        QVERIFY2(corrected.exitCode == 0, qPrintable(corrected.err));
        const auto correctedFile = runMarvel(
            {"evaluate", "--hw", kP1, "--mapping", mdcPath, "--format", "json", "--fidelity", "corrected"});
        QCOMPARE(jsonWithoutBytes(corrected.out), jsonWithoutBytes(correctedFile.out));
    }

    void sampleProjectsRun()
    {
        for (const char* name : {"vgg16_conv_p2.json", "gemm_p1.json"}) {
            const auto eval
                = runMarvel({"evaluate", "--project", kSamples + "/projects/" + name, "--format", "json"});
            QVERIFY2(eval.exitCode == 0, qPrintable(eval.err));
            QCOMPARE(QJsonDocument::fromJson(eval.out.toUtf8()).array().size(), 1);
        }
        const auto search
            = runMarvel({"search", "--project", kSamples + "/projects/vgg16_conv_p2.json", "--json"});
        QVERIFY2(search.exitCode == 0, qPrintable(search.err));
        const QJsonObject layer = parse(search.out)["layers"].toArray().at(0).toObject();
        QCOMPARE(layer["name"].toString(), QString("CONV2_1"));
        QCOMPARE(layer["macs"].toInteger(), 128LL * 64 * 112 * 112 * 9);
    }

    void brokenProjects_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("project");
        QTest::addColumn<QString>("message");
        auto withSearch = [](const char* key, const QJsonValue& value) {
            QJsonObject p = convProject();
            QJsonObject s = p["search"].toObject();
            s[key] = value;
            p["search"] = s;
            return QJsonDocument(p).toJson();
        };
        QJsonObject p = convProject();
        const QByteArray valid = QJsonDocument(p).toJson();
        const QStringList search{"search", "--project", "@"};
        const QStringList evaluate{"evaluate", "--project", "@"};
        QTest::newRow("search objective")
            << search << withSearch("objective", "speed")
            << "p.json: search.objective: must be \"runtime\", \"energy\" or \"edp\"";
        QTest::newRow("evaluate objective")
            << evaluate << withSearch("objective", "speed") << "p.json: search.objective";
        QTest::newRow("threads") << search << withSearch("threads", -2)
                                 << "p.json: search.threads: must be between";
        QTest::newRow("syntax") << search << QByteArray("{\n  \"schema_version\": 1,\n  ]")
                                << "p.json:3:3: invalid JSON";
        p["schema_version"] = 2;
        QTest::newRow("newer schema")
            << evaluate << QJsonDocument(p).toJson()
            << "p.json: schema_version: written by a newer Marvel Studio (schema 2); "
               "this version reads schema 1";
        p = convProject();
        QJsonObject acc = p["accelerator"].toObject();
        acc["num_pes"] = 0;
        p["accelerator"] = acc;
        QTest::newRow("invalid accelerator") << search << QJsonDocument(p).toJson()
                                             << "p.json: accelerator.num_pes: must be at least 1 (got 0)";
        acc["num_pes"] = "many";
        p["accelerator"] = acc;
        QTest::newRow("accelerator type")
            << evaluate << QJsonDocument(p).toJson() << "p.json: accelerator.num_pes: must be an integer";
        p = convProject();
        p["workload"] = QJsonObject{{"kind", "model"}, {"model", "models/none.json"}};
        QTest::newRow("missing model")
            << search << QJsonDocument(p).toJson()
            << "p.json: workload.model: 'models/none.json' is neither a built-in model";
        p["workload"] = QJsonObject{{"kind", "model"}, {"model", "vgg16"}, {"layer", "CONV9"}};
        QTest::newRow("unknown layer") << search << QJsonDocument(p).toJson()
                                       << "p.json: workload.layer: model 'vgg16' has no layer 'CONV9'";
        p = convProject();
        QJsonObject workload = p["workload"].toObject();
        workload["text"] = "operator broken(N = 4) {\n  for (n = 0; n < N; n++)\n    O[n] += ;\n}\n";
        p["workload"] = workload;
        QTest::newRow("broken operator")
            << search << QJsonDocument(p).toJson() << "p.json: workload.text: line 3:";
        QTest::newRow("no selected mapping") << evaluate << valid
                                             << "p.json: selected_mapping: the project has no "
                                                "selected mapping";
        p = convProject();
        p["selected_mapping"] = QJsonObject{{"loops",
                                                QJsonArray{QJsonObject{{"dim", "N"}, {"extent", 4},
                                                    {"level1", 1}, {"level2", 1}, {"level3", 1}}}},
            {"level2_order", QJsonArray{"N"}}, {"level3_order", QJsonArray{"N"}}};
        QTest::newRow("mapping of another operator")
            << evaluate << QJsonDocument(p).toJson()
            << "p.json: selected_mapping.loops: maps 1 loops but layer 'smallconv' has 6 (K 16, C 8, Y 8, X "
               "8, R 3, S 3)";
        p["selected_mapping"] = QJsonObject{{"loops",
                                                QJsonArray{QJsonObject{{"dim", "N"}, {"extent", 4},
                                                    {"level1", 8}, {"level2", 1}, {"level3", 1}}}},
            {"level2_order", QJsonArray{"N"}}, {"level3_order", QJsonArray{"N"}}};
        QTest::newRow("malformed mapping")
            << evaluate << QJsonDocument(p).toJson()
            << "p.json: selected_mapping.loops[0].level2: level-2 tile 1 is smaller than the level-1 tile 8";
        QTest::newRow("search with --op") << QStringList{"search", "--project", "@", "--op", "x.loop"}
                                          << valid << "give exactly one of --op and --model, or --project";
        QTest::newRow("evaluate with --mapping") << QStringList{"evaluate", "--project", "@", "--mapping",
            "x.m"} << valid << "give --mapping or --project, not both";
        QTest::newRow("layer of an operator") << QStringList{"search", "--project", "@", "--layer", "c1"}
                                              << valid << "--layer needs a model project";
        QTest::newRow("missing project") << QStringList{"search", "--project", "/nonexistent/p.json"} << valid
                                         << "/nonexistent/p.json: cannot read the file";
    }
    void brokenProjects()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, project);
        QFETCH(QString, message);
        QTemporaryDir dir;
        writeFile(dir.filePath("p.json"), project);
        args.replaceInStrings("@", dir.filePath("p.json"));
        const auto run = runMarvel(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestCliProject)
#include "tst_cli_project.moc"
