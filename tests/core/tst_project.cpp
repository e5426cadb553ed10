// Project files: every field round trips, every malformed field is named, a newer schema is refused with
// one message, model workloads resolve against the project's folder, saves are atomic, and every sample
// project loads.
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/export/timeloop.h"
#include "core/project/project.h"
#include "core/util/text_file.h"
#include "importers/onnx/onnx_import.h"
#include "tests/core/core_test_support.h"

using marvel::InputError;
using marvel::project::Project;
using marvel::project::ProjectWorkload;
using nlohmann::json;

Q_DECLARE_METATYPE(std::function<void(nlohmann::json&)>)

using marvel::testsupport::errorText;
using marvel::testsupport::writeFile;
namespace {

namespace fs = std::filesystem;

const char* const kProjectGemm = "operator gemm(M = 8, N = 16, K = 32) {\n"
                                 "  for (m = 0; m < M; m++)\n"
                                 "    for (n = 0; n < N; n++)\n"
                                 "      for (k = 0; k < K; k++)\n"
                                 "        C[m][n] += A[m][k] * B[k][n];\n"
                                 "}\n";

// A GEMM mapping with every member away from its default.
marvel::mapping::LoopNestMapping gemmMapping()
{
    marvel::mapping::LoopNestMapping m;
    m.loops = {{"M", "m", 8, 1, 4, 8, 1, "", ""}, {"N", "n", 16, 2, 8, 16, 1, "", ""},
        {"K", "k", 32, 4, 4, 16, 1, "", ""}};
    m.level2Order = {2, 0, 1};
    m.level3Order = {1, 2, 0};
    m.layouts = {{"A", {1, 0}}, {"B", {0, 1}}};
    m.level2Form = marvel::mapping::Level2Form::Fused;
    return m;
}

// An operator project with every field away from its default.
Project fullProject()
{
    Project p;
    p.workload.kind = ProjectWorkload::Kind::Operator;
    p.workload.text = kProjectGemm;
    p.workload.file = "ops/gemm \"small\".loop";
    marvel::arch::Accelerator& a = p.accelerator;
    a.name = "odd \"one\"";
    a.numPes = 77;
    a.l1Bytes = 1000;
    a.l2Bytes = 65536;
    a.nocBandwidth = 5;
    a.nocLatency = 0;
    a.offchipBandwidth = 9;
    a.clockMHz = 333.25;
    a.dramBlockBytes = 32;
    a.bytesPerElement = 2;
    a.simdLanes = 4;
    a.multicast = marvel::arch::Multicast::Tiles; // written as a string, the other two as booleans
    a.spatialReduction = false;
    a.energy = {0.5, 2.25, 30.125, 0.001, 210.5};
    marvel::search::SearchOptions& s = p.search;
    s.objective = marvel::search::Objective::Edp;
    s.fidelity = marvel::search::Fidelity::Corrected;
    s.peUtilizationBound = 0.375;
    s.nearTie = 0.0025;
    s.divisorsOnly = false;
    s.l1Capacity = false;
    s.l2Capacity = false;
    s.boundSkipping = false;
    s.refine = false;
    s.offChipCandidates = 5;
    marvel::timeloop::restrictSearch(s.constraint);
    s.threads = 3;
    p.selectedMapping = marvel::project::SelectedMapping{"gemm", gemmMapping()};
    return p;
}

void compareProjects(const Project& a, const Project& b)
{
    QVERIFY(a.workload == b.workload);
    QVERIFY(marvel::arch::sameParameters(a.accelerator, b.accelerator));
    QCOMPARE(a.accelerator.name, b.accelerator.name);
    QVERIFY(a.search.objective == b.search.objective);
    QVERIFY(a.search.fidelity == b.search.fidelity);
    QCOMPARE(a.search.peUtilizationBound, b.search.peUtilizationBound);
    QCOMPARE(a.search.nearTie, b.search.nearTie);
    QCOMPARE(a.search.divisorsOnly, b.search.divisorsOnly);
    QCOMPARE(a.search.l1Capacity, b.search.l1Capacity);
    QCOMPARE(a.search.l2Capacity, b.search.l2Capacity);
    QCOMPARE(a.search.boundSkipping, b.search.boundSkipping);
    QCOMPARE(a.search.refine, b.search.refine);
    QCOMPARE(a.search.offChipCandidates, b.search.offChipCandidates);
    // "Timeloop only": the name, and the filter and tile rules it stands for.
    QCOMPARE(a.search.constraint.expressibleIn, b.search.constraint.expressibleIn);
    QCOMPARE(a.search.constraint.expressibleSpace, b.search.constraint.expressibleSpace);
    QCOMPARE(
        a.search.constraint.tileRules.wholeLoopsUnsplit, b.search.constraint.tileRules.wholeLoopsUnsplit);
    QCOMPARE(bool(a.search.constraint.dataflowFilter), bool(b.search.constraint.dataflowFilter));
    QCOMPARE(a.search.constraint.tileRules.maxParallelLoops, b.search.constraint.tileRules.maxParallelLoops);
    QCOMPARE(
        a.search.constraint.tileRules.dividingTilesOnly, b.search.constraint.tileRules.dividingTilesOnly);
    QCOMPARE(a.search.threads, b.search.threads);
    QCOMPARE(a.selectedMapping.has_value(), b.selectedMapping.has_value());
    if (a.selectedMapping) {
        QCOMPARE(a.selectedMapping->layer, b.selectedMapping->layer);
        QVERIFY(a.selectedMapping->mapping == b.selectedMapping->mapping);
    }
}

json baseJson()
{
    return json::parse(marvel::project::writeProject(fullProject()));
}

QString readError(const json& j)
{
    return QString::fromStdString(errorText([&] { marvel::project::readProject(j.dump(2), "p.json"); }));
}

const std::string kTinyModel = R"({"schema_version": 1, "name": "tiny", "layers": [
  {"name": "c1", "type": "CONV", "K": 16, "C": 3, "R": 3, "S": 3, "Y": 8, "X": 8},
  {"name": "fc", "type": "GEMM", "M": 4, "N": 32, "K": 64}]})";

} // namespace

class TestProject : public QObject
{
    Q_OBJECT
private slots:
    void roundTripEveryField()
    {
        const Project p = fullProject();
        const std::string text = marvel::project::writeProject(p);
        const Project q = marvel::project::readProject(text, "dir/p.json");
        compareProjects(p, q);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(q.baseDir, std::string("dir"));
        // Stable: writing what was read gives the same bytes.
        QCOMPARE(marvel::project::writeProject(q), text);
        // The documented order.
        const auto j = nlohmann::ordered_json::parse(text);
        std::vector<std::string> keys;
        for (const auto& [key, value] : j.items())
            keys.push_back(key);
        QCOMPARE(keys,
            (std::vector<std::string>{
                "schema_version", "workload", "accelerator", "search", "selected_mapping"}));
        QCOMPARE(j["selected_mapping"].begin().key(), std::string("layer"));
        QCOMPARE(j["search"].size(), std::size_t{12});
        QCOMPARE(j["search"]["near_tie"].get<double>(), 0.0025);
        QVERIFY(j["search"]["timeloop_compatible"] == true);
        // The default space's rules: the wide one keeps every exported mapping, so no loop stays whole.
        QVERIFY(q.search.constraint.dataflowFilter && q.search.constraint.tileRules.dividingTilesOnly);
        QCOMPARE(q.search.constraint.tileRules.wholeLoopsUnsplit,
            timeloop::kDefaultSearchSpace == timeloop::SearchSpace::Narrow);
        QCOMPARE(q.search.constraint.expressibleIn, std::string("timeloop"));
    }

    /// "Timeloop only" in the narrow space: saved by name and read back with its rules; the default
    /// space is not written, so a project without the field searches it.
    void timeloopSpaceRoundTrips()
    {
        Project p = fullProject();
        p.search.constraint = {};
        timeloop::restrictSearch(p.search.constraint, {}, timeloop::SearchSpace::Narrow);
        const std::string text = marvel::project::writeProject(p);
        QCOMPARE(json::parse(text)["search"]["timeloop_space"].get<std::string>(), std::string("narrow"));
        const Project q = marvel::project::readProject(text, "p.json");
        compareProjects(p, q);
        QCOMPARE(q.search.constraint.expressibleSpace, std::string("narrow"));
        QCOMPARE(q.search.constraint.tileRules.maxParallelLoops, 2);
        QVERIFY(q.search.constraint.tileRules.wholeLoopsUnsplit);

        p.search.constraint = {};
        timeloop::restrictSearch(p.search.constraint, {}, timeloop::SearchSpace::Wide);
        const json wide = json::parse(marvel::project::writeProject(p));
        QVERIFY(!wide["search"].contains("timeloop_space"));
        const Project r = marvel::project::readProject(wide.dump(), "p.json");
        QCOMPARE(r.search.constraint.expressibleSpace,
            std::string(timeloop::searchSpaceName(timeloop::kDefaultSearchSpace)));
        QVERIFY(!r.search.constraint.tileRules.wholeLoopsUnsplit);
    }

    void roundTripModelWorkloadAndDefaults()
    {
        Project p;
        p.workload.kind = ProjectWorkload::Kind::Model;
        p.workload.model = "models/tiny.json";
        p.workload.layer = "c1";
        const std::string text = marvel::project::writeProject(p);
        const Project q = marvel::project::readProject(text, "p.json");
        compareProjects(p, q);
        QCOMPARE(q.baseDir, std::string());
        const json j = json::parse(text);
        QVERIFY(!j.contains("selected_mapping"));
        QVERIFY(!j["workload"].contains("text"));
        QVERIFY(j["search"]["objective"] == "runtime");
        QVERIFY(j["search"]["fidelity"] == "corrected"); // the search's default
        QVERIFY(j["search"]["timeloop_compatible"] == false);
        // The default margin is not written: readable by versions before the setting.
        QVERIFY(!j["search"].contains("near_tie"));
        QCOMPARE(q.search.nearTie, marvel::search::kDefaultNearTie);
        // 0, the exact bests, is not the default any more: written, and read back as 0.
        Project exact = p;
        exact.search.nearTie = 0;
        const std::string exactText = marvel::project::writeProject(exact);
        QCOMPARE(json::parse(exactText)["search"]["near_tie"].get<double>(), 0.0);
        QCOMPARE(marvel::project::readProject(exactText, "p.json").search.nearTie, 0.0);
        QVERIFY(!q.search.constraint.dataflowFilter && q.search.constraint.expressibleIn.empty());

        // Only schema_version, the workload and the accelerator are required; search fields default.
        const Project minimal = marvel::project::readProject(R"({"schema_version": 1,
            "workload": {"kind": "model", "model": "vgg16"},
            "accelerator": {"num_pes": 16, "noc_bandwidth_elements_per_cycle": 4},
            "search": {"objective": "energy"}})",
            "m.json");
        QCOMPARE(minimal.workload.model, std::string("vgg16"));
        QVERIFY(minimal.workload.layer.empty());
        QCOMPARE(minimal.accelerator.numPes, 16);
        QVERIFY(minimal.search.objective == marvel::search::Objective::Energy);
        QCOMPARE(minimal.search.peUtilizationBound, 0.1);
        QCOMPARE(minimal.search.nearTie, marvel::search::kDefaultNearTie); // absent: the default margin
        QVERIFY(minimal.search.divisorsOnly && minimal.search.l1Capacity && minimal.search.l2Capacity);
        QCOMPARE(minimal.search.threads, 0u);
        // A project written before "timeloop_compatible" existed searches every mapping.
        QVERIFY(!minimal.search.constraint.dataflowFilter);
        QCOMPARE(minimal.search.constraint.tileRules.maxParallelLoops, 0);
        QVERIFY(!minimal.selectedMapping);
        QVERIFY(minimal.workload.sequence.empty());
        QVERIFY(!j["workload"].contains("seq_len") && !j["workload"].contains("phase"));
    }

    // A transformer's context is kept with the model and instantiates it: GPT-2's decode step at 16 cached
    // tokens attends over N = 16; a CNN has no context, and the error names the project file.
    void modelContextRoundTripsAndApplies()
    {
        Project p;
        p.workload.kind = ProjectWorkload::Kind::Model;
        p.workload.model = "gpt2";
        p.workload.sequence.phase = marvel::workloads::Phase::Decode;
        p.workload.sequence.kvLen = 16;
        p.workload.sequence.batch = 2;
        const std::string text = marvel::project::writeProject(p);
        const json j = json::parse(text);
        QCOMPARE(j["workload"]["phase"].get<std::string>(), std::string("decode"));
        QCOMPARE(j["workload"]["kv_len"].get<int>(), 16);
        QVERIFY(!j["workload"].contains("seq_len"));
        const Project q = marvel::project::readProject(text, "p.json");
        QVERIFY(q.workload.sequence == p.workload.sequence);
        const marvel::workloads::Workload w = marvel::project::loadProjectWorkload(q, "p.json");
        const auto qk = std::find_if(w.layers.begin(), w.layers.end(),
            [](const auto& l) { return l.effectiveKind() == marvel::workloads::LayerKind::Attention; });
        QVERIFY(qk != w.layers.end());
        QCOMPARE(qk->op.sizeValue("N").value_or(0), std::int64_t(16)); // Q·Kᵀ, the first: N = T
        QCOMPARE(qk->repeat, 2 * 12 * 12); // B sequences x 12 heads x 12 blocks
        Project cnn = p;
        cnn.workload.model = "vgg16";
        try {
            marvel::project::loadProjectWorkload(cnn, "p.json");
            QFAIL("a CNN took a decode context");
        } catch (const marvel::InputError& e) {
            QCOMPARE(QString::fromStdString(e.diagnostics().at(0).file), QStringLiteral("p.json"));
        }
    }

    void malformedFieldIsNamed_data()
    {
        using Mutate = std::function<void(json&)>;
        QTest::addColumn<Mutate>("mutate");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, Mutate m, const char* expected) {
            QTest::newRow(name) << m << QString::fromUtf8(expected);
        };
        row(
            "not an object", [](json& j) { j = json::array(); },
            "p.json:1:1: a project must be a JSON object, not array\n");
        row(
            "no schema", [](json& j) { j.erase("schema_version"); },
            "p.json: schema_version: missing required field\n");
        row(
            "schema 0", [](json& j) { j["schema_version"] = 0; },
            "p.json: schema_version: unsupported version 0 (this version reads schema 1)\n");
        row(
            "schema text", [](json& j) { j["schema_version"] = "1"; },
            "p.json: schema_version: must be an integer, not string \"1\"\n");
        row(
            "unknown field", [](json& j) { j["colour"] = "blue"; }, "p.json: colour: unknown field\n");
        row(
            "no workload", [](json& j) { j.erase("workload"); },
            "p.json: workload: missing required field\n");
        row(
            "zero tokens",
            [](json& j) {
                j["workload"] = {{"kind", "model"}, {"model", "gpt2"}, {"seq_len", 0}};
            },
            "p.json: workload.seq_len: must be a positive integer\n");
        row(
            "unknown phase",
            [](json& j) {
                j["workload"] = {{"kind", "model"}, {"model", "gpt2"}, {"phase", "beam"}};
            },
            "p.json: workload.phase: must be \"prefill\" or \"decode\", not \"beam\"\n");
        row(
            "workload not object", [](json& j) { j["workload"] = 3; },
            "p.json: workload: must be an object, not number\n");
        row(
            "workload kind", [](json& j) { j["workload"]["kind"] = "layer"; },
            "p.json: workload.kind: must be \"operator\" or \"model\", not \"layer\"\n");
        row(
            "workload no kind", [](json& j) { j["workload"].erase("kind"); },
            "p.json: workload.kind: missing required field\n");
        row(
            "operator text missing", [](json& j) { j["workload"].erase("text"); },
            "p.json: workload.text: missing required field\n");
        row(
            "operator text type", [](json& j) { j["workload"]["text"] = 12; },
            "p.json: workload.text: must be a string, not number\n");
        row(
            "operator file type", [](json& j) { j["workload"]["file"] = false; },
            "p.json: workload.file: must be a string, not boolean\n");
        row(
            "operator with a layer", [](json& j) { j["workload"]["layer"] = "x"; },
            "p.json: workload.layer: unknown field\n");
        row(
            "model missing",
            [](json& j) {
                j["workload"] = {{"kind", "model"}};
            },
            "p.json: workload.model: missing required field\n");
        row(
            "model empty",
            [](json& j) {
                j["workload"] = {{"kind", "model"}, {"model", ""}};
            },
            "p.json: workload.model: must name a built-in model or a model file\n");
        row(
            "model layer type",
            [](json& j) {
                j["workload"] = {{"kind", "model"}, {"model", "vgg16"}, {"layer", 2}};
            },
            "p.json: workload.layer: must be a string, not number\n");
        row(
            "model with text",
            [](json& j) {
                j["workload"] = {{"kind", "model"}, {"model", "vgg16"}, {"text", "x"}};
            },
            "p.json: workload.text: unknown field\n");
        row(
            "no accelerator", [](json& j) { j.erase("accelerator"); },
            "p.json: accelerator: missing required field\n");
        row(
            "accelerator not object", [](json& j) { j["accelerator"] = "P2"; },
            "p.json: accelerator: an accelerator must be a JSON object, not string \"P2\"\n");
        row(
            "accelerator l1", [](json& j) { j["accelerator"]["l1_bytes"] = "big"; },
            "p.json: accelerator.l1_bytes: must be an integer, not string \"big\"\n");
        row(
            "accelerator pes missing", [](json& j) { j["accelerator"].erase("num_pes"); },
            "p.json: accelerator.num_pes: missing required field\n");
        row(
            "accelerator energy", [](json& j) { j["accelerator"]["energy"]["mac"] = "one"; },
            "p.json: accelerator.energy.mac: must be a number, not string \"one\"\n");
        row(
            "accelerator unknown", [](json& j) { j["accelerator"]["l3_bytes"] = 1; },
            "p.json: accelerator.l3_bytes: unknown field\n");
        row(
            "search not object", [](json& j) { j["search"] = json::array(); },
            "p.json: search: must be an object, not array\n");
        row(
            "objective", [](json& j) { j["search"]["objective"] = "speed"; },
            "p.json: search.objective: must be \"runtime\", \"energy\" or \"edp\", not \"speed\"\n");
        row(
            "objective type", [](json& j) { j["search"]["objective"] = 1; },
            "p.json: search.objective: must be a string, not number\n");
        row(
            "fidelity", [](json& j) { j["search"]["fidelity"] = "exact"; },
            "p.json: search.fidelity: must be \"maestro\" or \"corrected\", not \"exact\"\n");
        row(
            "timeloop space", [](json& j) { j["search"]["timeloop_space"] = "medium"; },
            "p.json: search.timeloop_space: must be \"narrow\" or \"wide\", not \"medium\"\n");
        row(
            "pe util bound range", [](json& j) { j["search"]["pe_util_bound"] = 1.5; },
            "p.json: search.pe_util_bound: must be between 0 and 1 (got 1.5)\n");
        row(
            "pe util bound type", [](json& j) { j["search"]["pe_util_bound"] = "half"; },
            "p.json: search.pe_util_bound: must be a number, not string \"half\"\n");
        row(
            "near tie range", [](json& j) { j["search"]["near_tie"] = -0.01; },
            "p.json: search.near_tie: must be between 0 and 0.5 (got -0.01)\n");
        row(
            "divisors only", [](json& j) { j["search"]["divisors_only"] = "yes"; },
            "p.json: search.divisors_only: must be true or false, not string \"yes\"\n");
        row(
            "l1 check", [](json& j) { j["search"]["l1_check"] = 1; },
            "p.json: search.l1_check: must be true or false, not number\n");
        row(
            "l2 check", [](json& j) { j["search"]["l2_check"] = nullptr; },
            "p.json: search.l2_check: must be true or false, not null\n");
        row(
            "bound skipping", [](json& j) { j["search"]["bound_skipping"] = json::object(); },
            "p.json: search.bound_skipping: must be true or false, not object\n");
        row(
            "timeloop compatible", [](json& j) { j["search"]["timeloop_compatible"] = "no"; },
            "p.json: search.timeloop_compatible: must be true or false, not string \"no\"\n");
        row(
            "threads negative", [](json& j) { j["search"]["threads"] = -1; },
            "p.json: search.threads: must be between 0 (every core) and 1024 (got -1)\n");
        row(
            "threads fraction", [](json& j) { j["search"]["threads"] = 1.5; },
            "p.json: search.threads: must be an integer, not the number 1.5\n");
        row(
            "offchip candidates zero", [](json& j) { j["search"]["offchip_candidates"] = 0; },
            "p.json: search.offchip_candidates: must be between 1 (the paper's search) and 64 (got 0)\n");
        row(
            "search unknown", [](json& j) { j["search"]["exhaustive"] = true; },
            "p.json: search.exhaustive: unknown field\n");
        row(
            "mapping not object", [](json& j) { j["selected_mapping"] = 1; },
            "p.json: selected_mapping: must be an object, not number\n");
        row(
            "mapping tile", [](json& j) { j["selected_mapping"]["loops"][1]["level1"] = 0; },
            "p.json: selected_mapping.loops[1].level1: level-1 tile must be at least 1, got 0\n");
        row(
            "mapping tile type", [](json& j) { j["selected_mapping"]["loops"][0]["level2"] = "4"; },
            "p.json: selected_mapping.loops[0].level2: expected an integer\n");
        row(
            "mapping order", [](json& j) { j["selected_mapping"]["level2_order"][0] = "Q"; },
            "p.json: selected_mapping.level2_order: unknown dimension 'Q'\n");
        row(
            "mapping form", [](json& j) { j["selected_mapping"]["level2_form"] = "folded"; },
            "p.json: selected_mapping.level2_form: expected \"separate\", \"fused\" or \"top_spatial\"\n");
        row(
            "mapping loop unknown", [](json& j) { j["selected_mapping"]["loops"][2]["level4"] = 1; },
            "p.json: selected_mapping.loops[2].level4: unknown field\n");
        row(
            "mapping unknown", [](json& j) { j["selected_mapping"]["cost"] = 1; },
            "p.json: selected_mapping.cost: unknown field\n");
        row(
            "mapping layer type", [](json& j) { j["selected_mapping"]["layer"] = 1; },
            "p.json: selected_mapping.layer: must be a string, not number\n");
        row(
            "mapping layer mismatch",
            [](json& j) {
                j["workload"] = {{"kind", "model"}, {"model", "m.json"}, {"layer", "c1"}};
                j["selected_mapping"]["layer"] = "fc";
            },
            "p.json: selected_mapping.layer: is 'fc' but the project maps layer 'c1'\n");
    }
    void malformedFieldIsNamed()
    {
        QFETCH(std::function<void(json&)>, mutate);
        QFETCH(QString, expected);
        json j = baseJson();
        mutate(j);
        QCOMPARE(readError(j), expected);
    }

    void everyProblemIsReported()
    {
        json j = baseJson();
        j["search"]["objective"] = "speed";
        j["accelerator"]["l1_bytes"] = "big";
        j["workload"]["extra"] = 1;
        const QString text = readError(j);
        QVERIFY2(text.contains("workload.extra") && text.contains("accelerator.l1_bytes")
                && text.contains("search.objective"),
            qPrintable(text));
    }

    void syntaxErrorHasLineAndColumn()
    {
        const std::string text
            = "{\n  \"schema_version\": 1,\n  \"workload\": {\"kind\": \"operator\",}\n}\n";
        const QString error
            = QString::fromStdString(errorText([&] { marvel::project::readProject(text, "broken.json"); }));
        QVERIFY2(error.startsWith("broken.json:3:"), qPrintable(error));
        QVERIFY2(error.contains("invalid JSON"), qPrintable(error));
    }

    void newerSchemaIsRefused()
    {
        // A newer file may have fields this version does not know: the schema is the only message.
        json j = baseJson();
        j["schema_version"] = 2;
        j["timeline"] = json::array();
        j["search"]["annealing"] = true;
        QCOMPARE(readError(j),
            QString("p.json: schema_version: written by a newer Marvel Studio (schema 2); this version reads "
                    "schema 1\n"));
    }

    void loadValidatesAcceleratorValues()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.json").toStdString();
        Project p = fullProject();
        p.accelerator.numPes = 0;
        p.accelerator.nocBandwidth = 0;
        writeFile(path, marvel::project::writeProject(p));
        // Reading keeps the work (an editor shows the values); loading to run refuses them.
        QCOMPARE(marvel::project::readProject(marvel::readTextFile(path), path).accelerator.numPes, 0);
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::project::loadProject(path); })),
            QString::fromStdString(path + ": accelerator.num_pes: must be at least 1 (got 0)\n" + path
                + ": accelerator.noc_bandwidth_elements_per_cycle: must be at least 1 (got 0)\n"));
        const std::string missing = dir.filePath("none.json").toStdString();
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::project::loadProject(missing); })),
            QString::fromStdString(missing + ": cannot read the file\n"));
    }

    void saveIsAtomicAndLoadsBack()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.json").toStdString();
        writeFile(path, "old contents");
        const Project p = fullProject();
        marvel::project::saveProject(p, path);
        QVERIFY(!fs::exists(path + ".tmp"));
        const Project q = marvel::project::loadProject(path);
        compareProjects(p, q);
        QCOMPARE(marvel::readTextFile(path), marvel::project::writeProject(p));
        // A folder that does not exist: an error naming the path, and no file left behind.
        const std::string bad = dir.filePath("no/such/folder/p.json").toStdString();
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::project::saveProject(p, bad); })),
            QString::fromStdString(bad + ": cannot write the project file\n"));
        QVERIFY(!fs::exists(bad + ".tmp"));
    }

    void operatorWorkloadParses()
    {
        Project p = fullProject();
        const marvel::workloads::Workload w = marvel::project::loadProjectWorkload(p, "p.json");
        QCOMPARE(w.layers.size(), std::size_t{1});
        QCOMPARE(w.layers[0].name, std::string("gemm"));
        QCOMPARE(w.layers[0].op.name, std::string("gemm"));
        QCOMPARE(&marvel::project::selectedLayer(p, w, "p.json"), &w.layers[0]);

        // A broken operator: the project file and field, with the line:col inside the text.
        p.workload.text = "operator gemm(M = 8) {\n  for (m = 0; m < M; m++)\n    C[m] += ;\n}\n";
        const QString error
            = QString::fromStdString(errorText([&] { marvel::project::loadProjectWorkload(p, "p.json"); }));
        QVERIFY2(error.startsWith("p.json: workload.text: line 3:"), qPrintable(error));

        p.selectedMapping.reset();
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::project::selectedLayer(p, w, "p.json"); })),
            QString("p.json: selected_mapping: the project has no selected mapping\n"));
    }

    void modelWorkloadResolves()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("models"));
        QVERIFY(QDir(dir.path()).mkpath("elsewhere/deeper"));
        writeFile(dir.filePath("models/tiny.json").toStdString(), kTinyModel);
        Project p;
        p.workload.kind = ProjectWorkload::Kind::Model;
        p.workload.model = "models/tiny.json";
        const std::string path = dir.filePath("p.json").toStdString();
        marvel::project::saveProject(p, path);

        // Relative to the project's folder, not the working directory.
        Project loaded = marvel::project::loadProject(path);
        QCOMPARE(loaded.baseDir, dir.path().toStdString());
        QCOMPARE(marvel::project::resolvedModelPath(loaded), dir.filePath("models/tiny.json").toStdString());
        marvel::workloads::Workload w = marvel::project::loadProjectWorkload(loaded, path);
        QCOMPARE(w.name, std::string("tiny"));
        QCOMPARE(w.layers.size(), std::size_t{2});

        // The whole model has two layers: the selected mapping must name its own.
        loaded.selectedMapping = marvel::project::SelectedMapping{};
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::project::selectedLayer(loaded, w, path); })),
            QString::fromStdString(path
                + ": selected_mapping.layer: missing: model 'tiny' has 2 layers; name the one the mapping "
                  "belongs to (c1, fc)\n"));
        loaded.selectedMapping->layer = "fc";
        QCOMPARE(marvel::project::selectedLayer(loaded, w, path).name, std::string("fc"));
        loaded.selectedMapping->layer = "fc9";
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::project::selectedLayer(loaded, w, path); })),
            QString::fromStdString(path
                + ": selected_mapping.layer: 'fc9' is not a layer of the project's workload (layers: c1, "
                  "fc)\n"));

        // One layer, or a layer the model does not have.
        loaded.workload.layer = "fc";
        w = marvel::project::loadProjectWorkload(loaded, path);
        QCOMPARE(w.layers.size(), std::size_t{1});
        QCOMPARE(w.layers[0].name, std::string("fc"));
        loaded.workload.layer = "c9";
        QCOMPARE(
            QString::fromStdString(errorText([&] { marvel::project::loadProjectWorkload(loaded, path); })),
            QString::fromStdString(
                path + ": workload.layer: model 'tiny' has no layer 'c9' (layers: c1, fc)\n"));

        // Saved elsewhere, the relative path is rewritten to name the same file.
        loaded.workload.layer.clear();
        loaded.selectedMapping.reset();
        const std::string moved = dir.filePath("elsewhere/deeper/q.json").toStdString();
        marvel::project::saveProject(loaded, moved);
        const Project reloaded = marvel::project::loadProject(moved);
        QCOMPARE(reloaded.workload.model, std::string("../../models/tiny.json"));
        QCOMPARE(marvel::project::loadProjectWorkload(reloaded, moved).layers.size(), std::size_t{2});

        // A missing file names the field and where it was looked for.
        loaded.workload.model = "models/none.json";
        const QString error
            = QString::fromStdString(errorText([&] { marvel::project::loadProjectWorkload(loaded, path); }));
        QVERIFY2(error.startsWith(QString::fromStdString(path
                     + ": workload.model: 'models/none.json' is neither "
                       "a built-in model")),
            qPrintable(error));
        QVERIFY2(error.contains(dir.filePath("models/none.json")), qPrintable(error));

        // Built-in names are never files (any case), and resolve to the built-in model.
        loaded.workload.model = "VGG16";
        loaded.workload.layer = "CONV2_1";
        QCOMPARE(marvel::project::resolvedModelPath(loaded), std::string("VGG16"));
        w = marvel::project::loadProjectWorkload(loaded, path);
        QCOMPARE(w.name, std::string("vgg16"));
        QCOMPARE(w.layers.size(), std::size_t{1});
        QCOMPARE(marvel::workloads::operatorMacs(w.layers[0].op), 128LL * 64 * 112 * 112 * 9);
    }

    void sampleProjectsLoad()
    {
        const fs::path folder = fs::path(MARVEL_SAMPLES_DIR) / "projects";
        QVERIFY(fs::is_directory(folder));
        // A sample maps an ONNX model (resnet50_onnx_p2.json): the reader the programs register.
        marvel::onnx_import::registerOnnxReader();
        int count = 0;
        for (const auto& entry : fs::directory_iterator(folder)) {
            if (entry.path().extension() != ".json") continue;
            ++count;
            const std::string path = entry.path().string();
            try {
                const Project p = marvel::project::loadProject(path);
                const marvel::workloads::Workload w = marvel::project::loadProjectWorkload(p, path);
                QVERIFY2(!w.layers.empty(), path.c_str());
                if (p.selectedMapping) {
                    const auto& layer = marvel::project::selectedLayer(p, w, path);
                    QVERIFY2(marvel::mapping::validate(p.selectedMapping->mapping, &p.accelerator).empty(),
                        path.c_str());
                    QVERIFY2(!layer.name.empty(), path.c_str());
                }
                // Samples are in the form the app writes.
                QCOMPARE(marvel::readTextFile(path), marvel::project::writeProject(p));
            } catch (const InputError& e) {
                QFAIL(e.what());
            }
        }
        QVERIFY(count >= 3);

        // The three the issue asks for, on the sample accelerators.
        const std::string samples = MARVEL_SAMPLES_DIR;
        const auto p1 = marvel::arch::loadAccelerator(samples + "/accelerators/P1_eyeriss.json");
        const auto p2 = marvel::arch::loadAccelerator(samples + "/accelerators/P2_edge.json");
        const Project vgg = marvel::project::loadProject(samples + "/projects/vgg16_conv_p2.json");
        QVERIFY(vgg.workload.kind == ProjectWorkload::Kind::Model);
        QCOMPARE(vgg.workload.model, std::string("vgg16"));
        QVERIFY(!vgg.workload.layer.empty());
        QVERIFY(marvel::arch::sameParameters(vgg.accelerator, p2));
        const Project gemm = marvel::project::loadProject(samples + "/projects/gemm_p1.json");
        QVERIFY(gemm.workload.kind == ProjectWorkload::Kind::Operator);
        QCOMPARE(gemm.workload.text, marvel::readTextFile(samples + "/operators/gemm.loop"));
        QVERIFY(marvel::arch::sameParameters(gemm.accelerator, p1));
        const Project mobilenet = marvel::project::loadProject(samples + "/projects/mobilenetv2_p2.json");
        QCOMPARE(mobilenet.workload.model, std::string("mobilenetv2"));
        QVERIFY(mobilenet.workload.layer.empty());
        QVERIFY(marvel::arch::sameParameters(mobilenet.accelerator, p2));
    }
};

QTEST_APPLESS_MAIN(TestProject)
#include "tst_project.moc"
