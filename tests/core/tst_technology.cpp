// Technology tables (core/tech): the sample tables' figures at the sizes they list and between them by
// hand, MAESTRO's table giving MAESTRO's figures bit for bit, an accelerator file naming a table, the
// figures in physical units, and bad tables refused naming the field.
#include <cmath>

#include <QTemporaryDir>
#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/search/search.h"
#include "core/sweep/sweep.h"
#include "core/tech/technology.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using testsupport::errorText;
using testsupport::sampleAccelerator;
using testsupport::writeFile;

namespace {

std::shared_ptr<const tech::Technology> sampleTable(const char* name)
{
    return tech::loadTechnology(std::string(MARVEL_SAMPLES_DIR) + "/technology/" + name + ".json");
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

// A minimal valid table in pJ; `edit` replaces one line to break it.
std::string table(const std::string& from = {}, const std::string& to = {})
{
    std::string t = R"({
  "schema_version": 1, "name": "t", "energy_unit": "pJ",
  "mac": [{"bits": 8, "energy": 0.1, "area_um2": 100}],
  "l1": [{"bytes": 64, "word_bits": 8, "read": 0.5, "write": 0.6, "area_um2": 40},
         {"bytes": 1024, "word_bits": 8, "read": 2.0, "write": 2.5, "area_um2": 640}],
  "l2": [{"bytes": 1024, "word_bits": 8, "read": 2.0, "write": 2.5, "area_um2": 640, "leak_per_cycle": 0.5}],
  "noc": {"energy": 0.2, "energy_per_element_bits": 8},
  "dram": {"default": "LPDDR4", "types": {"LPDDR4": {"energy_per_bit": 8}}}
})";
    if (!from.empty()) {
        const auto at = t.find(from);
        if (at != std::string::npos) t.replace(at, from.size(), to);
    }
    return t;
}

} // namespace

class TestTechnology : public QObject
{
    Q_OBJECT
private slots:
    /// The 45 nm table at its own points, between them (log-log in capacity) and past its last one.
    void table45nmByHand()
    {
        const auto t = sampleTable("45nm");
        arch::Accelerator acc;
        acc.numPes = 1024;
        acc.l1Bytes = 384;
        acc.l2Bytes = 131072;
        acc.bytesPerElement = 2; // 16-bit words: the example's own width
        tech::Resolved r = tech::resolve(*t, acc);
        QVERIFY(near(r.energy.mac, 0.315));
        QVERIFY(near(r.energy.l1Access, 3.005554)); // the 192-word scratchpad
        QVERIFY(near(r.energy.l1WriteEnergy(), 2.861554));
        QVERIFY(near(r.energy.l2Access, 32.342452 / 4)); // a 64-bit word's read, for 16 bits
        QVERIFY(near(r.energy.dramAccess, 16 * 8.0)); // LPDDR4, 8 pJ per bit
        QVERIFY(near(r.energy.nocElement, 0.63));
        QVERIFY(near(r.energy.macEnergyNanojoule, 0.001)); // energy units are pJ

        // 8-bit elements: the 8-bit MAC; an 8 KiB L2 between the 384 B and 128 KiB points; 4 MiB past the
        // last point on its slope (values from the formula by hand: exp of the interpolated logs).
        acc.bytesPerElement = 1;
        acc.l2Bytes = 8192;
        r = tech::resolve(*t, acc);
        QVERIFY(near(r.energy.mac, 0.07875));
        QVERIFY(std::abs(r.energy.l2Access - 2.525733533071547) < 1e-12);
        QVERIFY(std::abs(r.energy.l2WriteEnergy() - 2.205856358393659) < 1e-12);
        acc.l2Bytes = 4194304;
        QVERIFY(std::abs(tech::resolve(*t, acc).energy.l2Access - 7.278673466202881) < 1e-12);
        // A bigger buffer never costs less per access.
        double last = 0;
        for (std::int64_t kb : {16, 32, 64, 128, 256, 512, 1024, 4096}) {
            acc.l2Bytes = kb * 1024;
            const double e = tech::resolve(*t, acc).energy.l2Access;
            QVERIFY(e > last);
            last = e;
        }
        acc.dramType = "HBM2";
        QVERIFY(near(tech::resolve(*t, acc, acc.dramType).energy.dramAccess, 8 * 3.9));
    }

    /// Area and power of Edge 1024 at 45 nm by hand: 1024 INT8 MACs of 282 um^2, SRAM at 0.688 um^2 per
    /// byte (0.086 per bit; the curve is proportional, so any interpolation is exact), leakage per cycle
    /// at the clock, dynamic power = energy over time.
    void physicalUnitsByHand()
    {
        const arch::Accelerator acc = sampleAccelerator("edge1024_45nm.json");
        QCOMPARE(acc.technology, std::string("45nm"));
        QVERIFY(tech::physicalUnits(acc));
        const double area = 1024 * 282.0 + 1024 * 512 * 0.688 + 110592 * 0.688;
        const tech::Physical idle = tech::physical(acc, {}, 0);
        QVERIFY(std::abs(idle.areaMm2 - area * 1e-6) < 1e-9);
        // 1 uJ over 200,000 cycles at 200 MHz (1 ms): 1 mW, plus leakage.
        const tech::Physical p = tech::physical(acc, tech::EnergyParts{4e5, 3e5, 2e5, 5e4, 5e4}, 200000);
        QVERIFY(near(p.energyPj, 1e6));
        QVERIFY(near(p.l1Pj, 3e5));
        QVERIFY(p.leakageMw > 0);
        QVERIFY(near(p.powerMw, 1.0 + p.leakageMw));
        // Leakage: per cycle, MACs 1024 x 0.0009, L1s 1024 x interpolated, L2 interpolated; at 200 MHz a
        // pJ per cycle is 0.2 mW.
        const tech::Resolved r = tech::resolve(*acc.technologyTable, acc);
        QVERIFY(near(p.leakageMw, r.leakPjPerCycle * 0.2));
        QVERIFY(r.leakPjPerCycle > 1024 * 0.0009);
    }

    /// MAESTRO's table is MAESTRO's figures: the search on it gives, bit for bit, what the accelerator
    /// with MAESTRO's energies (and 200 MAC units per DRAM element, the table's eyeriss_ratio) gives.
    void maestroTableKeepsTheFigures()
    {
        const arch::Accelerator own = sampleAccelerator("edge1024_dram.json");
        arch::Accelerator viaTable = own;
        viaTable.technology = "maestro";
        viaTable.technologyTable = sampleTable("maestro");
        viaTable.dramType = "eyeriss_ratio";
        tech::applyTechnology(viaTable);
        QCOMPARE(viaTable.energy.mac, own.energy.mac);
        QCOMPARE(viaTable.energy.l1Access, own.energy.l1Access);
        QCOMPARE(viaTable.energy.l2Access, own.energy.l2Access);
        QCOMPARE(viaTable.energy.dramAccess, own.energy.dramAccess);
        QCOMPARE(viaTable.energy.macEnergyNanojoule, own.energy.macEnergyNanojoule);
        QVERIFY(viaTable.energy.l1Write < 0 && viaTable.energy.l2Write < 0); // writes as reads
        QCOMPARE(viaTable.energy.nocElement, 0.0);
        const ir::Operator op
            = ir::parseOperatorFile(std::string(MARVEL_SAMPLES_DIR) + "/operators/gemm.loop");
        search::SearchOptions options;
        options.objective = search::Objective::Energy;
        options.threads = 2;
        const auto a = search::searchLayer(op, own, options).result.best(options.objective);
        const auto b = search::searchLayer(op, viaTable, options).result.best(options.objective);
        QVERIFY(a && b);
        QCOMPARE(b->metrics.runtime, a->metrics.runtime);
        QCOMPARE(b->metrics.energy, a->metrics.energy);
        // MAESTRO's area model: what the design sweeps reported before tables.
        QVERIFY(!tech::physicalUnits(viaTable));
        const tech::Physical p = tech::physical(viaTable, {}, 0);
        const cost::AreaPower ap = cost::areaPower(own, double(own.l1Elements()), double(own.l2Elements()));
        QCOMPARE(p.areaMm2, ap.area * 1e-6);
    }

    /// An accelerator file names its table (found beside its samples tree) and writes the name back, not
    /// the energies; a sweep's points take the table's energies for their own sizes.
    void acceleratorFilesAndSweepsUseTheTable()
    {
        const arch::Accelerator acc = sampleAccelerator("edge1024_45nm.json");
        QVERIFY(acc.technologyTable);
        QCOMPARE(acc.dramType, std::string("LPDDR4"));
        const std::string json = arch::writeAcceleratorJson(acc);
        QVERIFY(json.find("\"technology\": \"45nm\"") != std::string::npos);
        QVERIFY(json.find("\"energy\"") == std::string::npos);
        QTemporaryDir dir;
        const std::string copy = dir.filePath("copy.json").toStdString();
        writeFile(copy, json);
        const arch::Accelerator back = arch::loadAccelerator(copy);
        QVERIFY(arch::sameParameters(back, acc));

        const sweep::Grid grid(acc, {sweep::parseVary("l2=32K,256K")});
        QVERIFY(grid.point(1).energy.l2Access > grid.point(0).energy.l2Access);
        QCOMPARE(grid.point(0).energy.l2Access,
            tech::resolve(*acc.technologyTable, grid.point(0)).energy.l2Access);
    }

    void badTablesNameTheField_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing action") << "\"l2\": ["
                                        << "\"l3\": ["
                                        << ": l3: unknown field";
        QTest::newRow("missing l2") << "\"l2\": ["
                                    << "\"l3\": ["
                                    << ": l2: ";
        QTest::newRow("negative") << "\"energy\": 0.1"
                                  << "\"energy\": -0.1"
                                  << "mac[0].energy: must be a non-negative";
        QTest::newRow("non-monotone energy") << "\"read\": 2.0, \"write\": 2.5, \"area_um2\": 640}],"
                                             << "\"read\": 0.4, \"write\": 2.5, \"area_um2\": 640}],"
                                             << "l1[1].read: the curve is not monotone";
        QTest::newRow("non-monotone area") << "\"read\": 2.0, \"write\": 2.5, \"area_um2\": 640}],"
                                           << "\"read\": 2.0, \"write\": 2.5, \"area_um2\": 20}],"
                                           << "l1[1].area_um2: the curve is not monotone";
        QTest::newRow("capacities") << "{\"bytes\": 64,"
                                    << "{\"bytes\": 2048,"
                                    << "l1[1].bytes: capacities must ascend";
        QTest::newRow("unit") << "\"energy_unit\": \"pJ\""
                              << "\"energy_unit\": \"kWh\""
                              << "energy_unit: unknown unit 'kWh'";
        QTest::newRow("dram default") << "\"default\": \"LPDDR4\""
                                      << "\"default\": \"HBM9\""
                                      << "dram.default: 'HBM9' is not one of dram.types";
        QTest::newRow("mac units need their pJ") << "\"energy_unit\": \"pJ\""
                                                 << "\"energy_unit\": \"mac\""
                                                 << "mac_unit_pj: ";
    }

    void badTablesNameTheField()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        QVERIFY(errorText([] { tech::readTechnologyJson(table(), "t.json"); }) == "<no error>");
        const std::string text = table(from.toStdString(), to.toStdString());
        QVERIFY(text != table());
        const std::string error = errorText([&] { tech::readTechnologyJson(text, "t.json"); });
        QVERIFY2(error.find("t.json") != std::string::npos, error.c_str());
        QVERIFY2(error.find(expected.toStdString()) != std::string::npos, error.c_str());
    }

    /// Accelerator files: a table and explicit energies together, an unknown table, a DRAM type the table
    /// does not have: each refused naming the accelerator file and its field.
    void badAcceleratorTechnology()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("a.json").toStdString();
        auto load = [&](const std::string& extra) {
            writeFile(path, "{\"num_pes\": 4, \"noc_bandwidth_elements_per_cycle\": 4" + extra + "}");
            return errorText([&] { arch::loadAccelerator(path); });
        };
        std::string e = load(", \"technology\": \"45nm\", \"energy\": {\"mac\": 2}");
        QVERIFY2(e.find("energy: give either") != std::string::npos, e.c_str());
        e = load(", \"technology\": \"7nm-dreams\"");
        QVERIFY2(e.find(path) != std::string::npos && e.find("technology") != std::string::npos
                && e.find("no technology table of that name") != std::string::npos,
            e.c_str());
        e = load(", \"technology\": \"" + std::string(MARVEL_SAMPLES_DIR)
            + "/technology/45nm.json\", \"dram_type\": \"SRAM\"");
        QVERIFY2(e.find("dram_type") != std::string::npos
                && e.find("'SRAM' is not in the technology table 45nm") != std::string::npos,
            e.c_str());
        e = load(", \"dram_type\": \"HBM2\"");
        QVERIFY2(e.find("dram_type: a DRAM type needs") != std::string::npos, e.c_str());
        QCOMPARE(load(", \"technology\": \"" + std::string(MARVEL_SAMPLES_DIR) + "/technology/45nm.json\""),
            std::string("<no error>"));
    }
};

QTEST_APPLESS_MAIN(TestTechnology)
#include "tst_technology.moc"
