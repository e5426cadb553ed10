// Every row of MAESTRO's reference table (layers.csv, layers_guardfix.csv) against our cost model in
// maestro fidelity: integer columns exactly, real columns within 1e-5 relative (MAESTRO prints 6
// significant digits). Invocations MAESTRO rejected or crashed on (runs.csv) must give our
// validation error.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/cost/report.h"
#include "core/mdc/maestro_io.h"
#include "tests/core/core_test_support.h"

using namespace marvel;

using marvel::testsupport::readCsv;
using marvel::testsupport::splitCsvLine;
namespace {

const std::string kRef = MARVEL_REFERENCE_DIR;

using Row = std::map<std::string, std::string>;

struct FileEval
{
    std::vector<cost::LayerEvaluation> layers;
    std::string readError;
};

// One network evaluation per (hw, mapping, guard), shared by the rows of that file.
const FileEval& evaluateFile(const std::string& hw, const std::string& mapping, bool guard)
{
    static std::map<std::string, FileEval> cache;
    std::string key = hw + "|" + mapping + "|" + (guard ? "g" : "u");
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    FileEval fe;
    try {
        arch::Accelerator acc = arch::loadAccelerator(kRef + "/hw/" + hw + ".m");
        std::string path = kRef + "/mappings/" + mapping + ".m";
        mdc::Network net = mdc::readMaestroMappingFile(path);
        cost::Options opt;
        opt.guardZeroCompute = guard;
        fe.layers = cost::evaluateNetwork(net, acc, opt, path);
    } catch (const InputError& e) {
        fe.readError = formatDiagnostics(e.diagnostics());
    }
    return cache.emplace(key, std::move(fe)).first->second;
}

bool sameReal(double expected, double actual)
{
    if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
    if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
    double scale = std::max(std::fabs(expected), 1e-12);
    return std::fabs(expected - actual) / scale <= 1e-5 || std::fabs(expected - actual) < 1e-9;
}

// Compares our row with the reference; returns one line per differing column.
QStringList compareRow(const Row& ref, const cost::Result& res)
{
    QStringList diffs;
    for (const auto& v : cost::reportRow(res)) {
        auto it = ref.find(v.name);
        if (it == ref.end() || it->second.empty()) continue;
        const std::string& text = it->second;
        bool same;
        if (v.integer) {
            same = text == std::to_string(v.i);
        } else {
            double expected = text == "inf"         ? INFINITY
                : (text == "-nan" || text == "nan") ? NAN
                                                    : std::stod(text);
            same = sameReal(expected, v.r);
        }
        if (!same) diffs << QString::fromStdString(v.name + ": expected " + text + ", got " + v.text());
    }
    return diffs;
}

} // namespace

class TestCostModelReference : public QObject
{
    Q_OBJECT
private:
    int m_matched = 0;
    int m_rows = 0;

    static bool haveReference() { return std::filesystem::exists(kRef + "/layers.csv"); }

    static void addRows(const std::string& file, bool guard)
    {
        for (const auto& r : readCsv(kRef + "/" + file)) {
            std::string name
                = r.at("hw") + "/" + r.at("mapping") + "/" + r.at("layer_index") + " " + r.at("layer_name");
            QTest::newRow(name.c_str())
                << QString::fromStdString(r.at("hw")) << QString::fromStdString(r.at("mapping"))
                << std::stoi(r.at("layer_index")) << guard << QString::fromStdString(file);
        }
    }

private slots:
    void initTestCase()
    {
        if (!haveReference())
            QSKIP("MAESTRO reference data not found at MARVEL_REFERENCE_DIR (../shared/reference/maestro)");
    }

    void layer_data()
    {
        QTest::addColumn<QString>("hw");
        QTest::addColumn<QString>("mapping");
        QTest::addColumn<int>("index");
        QTest::addColumn<bool>("guard");
        QTest::addColumn<QString>("table");
        addRows("layers.csv", false);
        addRows("layers_guardfix.csv", true);
    }

    void layer()
    {
        QFETCH(QString, hw);
        QFETCH(QString, mapping);
        QFETCH(int, index);
        QFETCH(bool, guard);
        QFETCH(QString, table);
        static std::map<std::string, std::vector<Row>> tables;
        auto& rows = tables[table.toStdString()];
        if (rows.empty()) rows = readCsv(kRef + "/" + table.toStdString());
        const Row* ref = nullptr;
        for (const auto& r : rows)
            if (r.at("hw") == hw.toStdString() && r.at("mapping") == mapping.toStdString()
                && std::stoi(r.at("layer_index")) == index)
                ref = &r;
        QVERIFY(ref);
        const FileEval& fe = evaluateFile(hw.toStdString(), mapping.toStdString(), guard);
        QVERIFY2(fe.readError.empty(), fe.readError.c_str());
        QVERIFY(index >= 1 && size_t(index) <= fe.layers.size());
        const auto& ev = fe.layers[size_t(index - 1)];
        QVERIFY2(ev.ok, formatDiagnostics(ev.errors).c_str());
        ++m_rows;
        QStringList diffs = compareRow(*ref, ev.result);
        if (diffs.isEmpty()) ++m_matched;
        QVERIFY2(diffs.isEmpty(), qPrintable(diffs.join("; ")));
    }

    // Files MAESTRO rejected (exit 255) or crashed on: we report a validation error naming the cause.
    void rejected_data()
    {
        QTest::addColumn<QString>("hw");
        QTest::addColumn<QString>("mapping");
        QTest::addColumn<QString>("status");
        for (const auto& r : readCsv(kRef + "/runs.csv")) {
            if (r.at("status") == "ok" || r.at("binary") != "upstream") continue;
            std::string name = r.at("hw") + "/" + r.at("mapping");
            QTest::newRow(name.c_str())
                << QString::fromStdString(r.at("hw")) << QString::fromStdString(r.at("mapping"))
                << QString::fromStdString(r.at("status"));
        }
    }

    void rejected()
    {
        QFETCH(QString, hw);
        QFETCH(QString, mapping);
        QFETCH(QString, status);
        const FileEval& fe = evaluateFile(hw.toStdString(), mapping.toStdString(), false);
        std::string messages = fe.readError;
        for (const auto& l : fe.layers)
            if (!l.ok) messages += formatDiagnostics(l.errors) + "\n";
        QVERIFY2(!messages.empty(), "MAESTRO rejects this file; we must too");
        // The message names the mapping file and a position in it.
        QVERIFY2(messages.find(mapping.toStdString() + ".m:") != std::string::npos, messages.c_str());
        if (status == "crash_sigfpe")
            QVERIFY2(messages.find("computes nothing") != std::string::npos, messages.c_str());
    }

    void cleanupTestCase()
    {
        if (m_rows > 0) qInfo("reference rows matched on every column: %d of %d", m_matched, m_rows);
    }
};

QTEST_APPLESS_MAIN(TestCostModelReference)
#include "tst_costmodel_reference.moc"
