#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include "core/arch/accelerator_io.h"
#include "tests/core/core_test_support.h"

using marvel::InputError;
using marvel::arch::Accelerator;

Q_DECLARE_METATYPE(std::function<void(Accelerator&)>)

using marvel::testsupport::errorText;
using marvel::testsupport::writeFile;
namespace { } // namespace

class TestAccelerator : public QObject
{
    Q_OBJECT
private slots:
    void defaultsAreValid() { QVERIFY(marvel::arch::validate(Accelerator{}).empty()); }

    void validationNamesTheField_data()
    {
        using Mutate = std::function<void(Accelerator&)>;
        QTest::addColumn<Mutate>("mutate");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero PEs") << Mutate([](Accelerator& a) { a.numPes = 0; })
                                  << "num_pes: must be at least 1 (got 0)";
        QTest::newRow("negative PEs")
            << Mutate([](Accelerator& a) { a.numPes = -4; }) << "num_pes: must be at least 1 (got -4)";
        QTest::newRow("zero NoC bandwidth") << Mutate([](Accelerator& a) { a.nocBandwidth = 0; })
                                            << "noc_bandwidth_elements_per_cycle: must be at least 1 (got 0)";
        QTest::newRow("zero off-chip bandwidth")
            << Mutate([](Accelerator& a) { a.offchipBandwidth = 0; })
            << "offchip_bandwidth_elements_per_cycle: must be at least 1 (got 0)";
        QTest::newRow("negative latency") << Mutate([](Accelerator& a) { a.nocLatency = -1; })
                                          << "noc_latency_cycles: must be at least 0 (got -1)";
        QTest::newRow("negative L1") << Mutate([](Accelerator& a) { a.l1Bytes = -512; })
                                     << "l1_bytes: must be at least 1 (got -512)";
        QTest::newRow("L1 smaller than a word") << Mutate([](Accelerator& a) {
            a.bytesPerElement = 4;
            a.l1Bytes = 2;
        }) << "l1_bytes: must be at least 4 (got 2)";
        QTest::newRow("absurd L2") << Mutate([](Accelerator& a) {
            a.l2Bytes = (std::int64_t{1} << 40) + 1;
        }) << "l2_bytes: is absurdly large (1099511627777; at most 1099511627776 bytes)";
        QTest::newRow("zero word size") << Mutate([](Accelerator& a) { a.bytesPerElement = 0; })
                                        << "bytes_per_element: must be at least 1 (got 0)";
        QTest::newRow("zero clock") << Mutate([](Accelerator& a) { a.clockMHz = 0.0; })
                                    << "clock_mhz: must be a positive number (got 0)";
        QTest::newRow("NaN clock") << Mutate([](Accelerator& a) {
            a.clockMHz = std::numeric_limits<double>::quiet_NaN();
        }) << "clock_mhz: must be a positive number (got nan)";
        QTest::newRow("zero DRAM block") << Mutate([](Accelerator& a) { a.dramBlockBytes = 0; })
                                         << "dram_block_bytes: must be at least 1 (got 0)";
        QTest::newRow("zero SIMD lanes")
            << Mutate([](Accelerator& a) { a.simdLanes = 0; }) << "simd_lanes: must be at least 1 (got 0)";
        QTest::newRow("negative MAC energy") << Mutate([](Accelerator& a) { a.energy.mac = -1.0; })
                                             << "energy.mac: must be a non-negative number (got -1)";
        QTest::newRow("negative L2 energy") << Mutate([](Accelerator& a) { a.energy.l2Access = -0.5; })
                                            << "energy.l2_access: must be a non-negative number (got -0.5)";
        QTest::newRow("negative DRAM energy")
            << Mutate([](Accelerator& a) { a.energy.dramAccess = -200; })
            << "energy.dram_access: must be a non-negative number (got -200)";
    }
    void validationNamesTheField()
    {
        QFETCH(std::function<void(Accelerator&)>, mutate);
        QFETCH(QString, expected);
        Accelerator a;
        mutate(a);
        const auto problems = marvel::arch::validate(a);
        QCOMPARE(problems.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(problems[0].format()), expected);
    }

    void validationReportsEveryProblem()
    {
        Accelerator a;
        a.numPes = 0;
        a.nocBandwidth = 0;
        a.simdLanes = 0;
        QCOMPARE(marvel::arch::validate(a).size(), std::size_t{3});
    }

    void jsonRoundTrip()
    {
        Accelerator a;
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
        a.multicast = marvel::arch::Multicast::None;
        a.spatialReduction = false;
        a.energy = {0.5, 2.25, 30.125, 0.001, 210.5};
        // Each NoC kind round-trips (None and Elements as the first version's false and true).
        for (auto m : {marvel::arch::Multicast::Elements, marvel::arch::Multicast::Tiles}) {
            Accelerator other = a;
            other.multicast = m;
            QCOMPARE(marvel::arch::readAcceleratorJson(marvel::arch::writeAcceleratorJson(other), "x.json")
                         .multicast,
                m);
        }
        QVERIFY(marvel::arch::writeAcceleratorJson(a).find("\"multicast\": false") != std::string::npos);
        const Accelerator b
            = marvel::arch::readAcceleratorJson(marvel::arch::writeAcceleratorJson(a), "x.json");
        QVERIFY(marvel::arch::sameParameters(a, b));
        QCOMPARE(b.name, a.name);
        QVERIFY(b.description.empty());
        // The description is written only when there is one, and comes back.
        QVERIFY(marvel::arch::writeAcceleratorJson(a).find("description") == std::string::npos);
        Accelerator described = a;
        described.description = "from \"a paper\", table 2";
        QCOMPARE(marvel::arch::readAcceleratorJson(marvel::arch::writeAcceleratorJson(described), "x.json")
                     .description,
            described.description);
        // sameParameters must notice a difference, or the round trip above proves nothing.
        Accelerator c = b;
        c.energy.l1Access = 2.0;
        QVERIFY(!marvel::arch::sameParameters(a, c));
        c = b;
        c.energy.dramAccess = 200.0;
        QVERIFY(!marvel::arch::sameParameters(a, c));
    }

    void jsonOptionalFieldsTakeDefaults()
    {
        const Accelerator a = marvel::arch::readAcceleratorJson(
            R"({"num_pes": 16, "noc_bandwidth_elements_per_cycle": 4})", "small.json");
        QCOMPARE(a.numPes, 16);
        QCOMPARE(a.nocBandwidth, 4);
        QCOMPARE(a.l1Bytes, 512);
        QCOMPARE(a.l2Bytes, 110592);
        QCOMPARE(a.nocLatency, 1);
        QCOMPARE(a.energy.l2Access, 18.61);
        QCOMPARE(a.energy.dramAccess, 0.0); // MAESTRO charges no DRAM energy
        QVERIFY(a.multicast == marvel::arch::Multicast::Elements);
        // The first version's booleans and the kinds' names.
        auto multicastOf = [](const char* value) {
            return marvel::arch::readAcceleratorJson(
                std::string(R"({"num_pes": 16, "noc_bandwidth_elements_per_cycle": 4, "multicast": )") + value
                    + "}",
                "m.json")
                .multicast;
        };
        QVERIFY(multicastOf("true") == marvel::arch::Multicast::Elements);
        QVERIFY(multicastOf("false") == marvel::arch::Multicast::None);
        QVERIFY(multicastOf("\"tiles\"") == marvel::arch::Multicast::Tiles);
        QVERIFY(multicastOf("\"none\"") == marvel::arch::Multicast::None);
    }

    void jsonErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown field")
            << R"({"num_pes": 1, "noc_bandwidth_elements_per_cycle": 1, "l3_bytes": 4})"
            << "a.json: l3_bytes: unknown field\n";
        QTest::newRow("unknown energy field")
            << R"({"num_pes": 1, "noc_bandwidth_elements_per_cycle": 1, "energy": {"dram": 4}})"
            << "a.json: energy.dram: unknown field\n";
        QTest::newRow("string for integer") << R"({"num_pes": "168", "noc_bandwidth_elements_per_cycle": 1})"
                                            << "a.json: num_pes: must be an integer, not string \"168\"\n";
        QTest::newRow("fraction for integer") << R"({"num_pes": 1.5, "noc_bandwidth_elements_per_cycle": 1})"
                                              << "a.json: num_pes: must be an integer, not the number 1.5\n";
        QTest::newRow("wrong boolean")
            << R"({"num_pes": 1, "noc_bandwidth_elements_per_cycle": 1, "spatial_reduction": 1})"
            << "a.json: spatial_reduction: must be true or false, not number\n";
        QTest::newRow("unknown multicast")
            << R"({"num_pes": 1, "noc_bandwidth_elements_per_cycle": 1, "multicast": "halo"})"
            << "a.json: multicast: must be \"elements\", \"tiles\", \"none\", true or false, not string "
               "\"halo\"\n";
        QTest::newRow("missing required") << R"({"noc_bandwidth_elements_per_cycle": 1})"
                                          << "a.json: num_pes: missing required field\n";
        QTest::newRow("bad schema")
            << R"({"schema_version": 2, "num_pes": 1, "noc_bandwidth_elements_per_cycle": 1})"
            << "a.json: schema_version: unsupported version 2 (this program reads 1)\n";
        QTest::newRow("not an object") << "[1, 2]"
                                       << "a.json:1:1: an accelerator must be a JSON object, not array\n";
        QTest::newRow("syntax error") << "{\n  \"num_pes\": 168,\n  \"l1_bytes\": ,\n}"
                                      << "a.json:3:15: invalid JSON: syntax error while parsing value - "
                                         "unexpected ','; expected '[', '{', "
                                         "or a literal\n";
    }
    void jsonErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const std::string t = text.toStdString();
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::readAcceleratorJson(t, "a.json"); })),
            expected);
    }

    void maestroHardwareDefaults()
    {
        // Keys left out take MAESTRO's defaults: 1 PE, NoC latency 1, everything else INT_MAX.
        const Accelerator a = marvel::arch::readMaestroHardware("// only the PEs\nnum_pes: 64\n", "h.m");
        QCOMPARE(a.numPes, 64);
        QCOMPARE(a.l1Bytes, 2147483647);
        QCOMPARE(a.l2Bytes, 2147483647);
        QCOMPARE(a.nocBandwidth, 2147483647);
        QCOMPARE(a.offchipBandwidth, 2147483647);
        QCOMPARE(a.nocLatency, 1);
    }

    void maestroHardwareWithoutPes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        // MAESTRO takes 1 PE for all of these; a file that does not say how many PEs is an error.
        QTest::newRow("empty") << ""
                               << "h.m: num_pes: the hardware file is empty: it must at least say how many "
                                  "PEs there are (num_pes: N)\n";
        QTest::newRow("only comments") << "// nothing here\n\n"
                                       << "h.m: num_pes: the hardware file is empty: it must at least say "
                                          "how many PEs there are (num_pes: N)\n";
        QTest::newRow("no num_pes") << "l1_size_cstr: 100\nnoc_bw_cstr: 4\n"
                                    << "h.m: num_pes: missing key: the hardware file must say how many PEs "
                                       "there are (num_pes: N)\n";
    }
    void maestroHardwareWithoutPes()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const std::string t = text.toStdString();
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::readMaestroHardware(t, "h.m"); })),
            expected);
    }

    void maestroHardwareAllKeys()
    {
        const Accelerator a
            = marvel::arch::readMaestroHardware("num_pes: 8\nl1_size_cstr: 100 l2_size_cstr "
                                                "2000\r\nnoc_bw_cstr: 3;NoC_NumHops: 0\noffchip_bw_cstr: 7 "
                                                "// trailing comment\n",
                "h.m");
        QCOMPARE(a.numPes, 8);
        QCOMPARE(a.l1Bytes, 100);
        QCOMPARE(a.l2Bytes, 2000);
        QCOMPARE(a.nocBandwidth, 3);
        QCOMPARE(a.nocLatency, 0);
        QCOMPARE(a.offchipBandwidth, 7);
    }

    void maestroHardwareErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown key") << "num_pes: 4\n  pe_count: 4\n"
                                     << "h.m:2:3: unknown hardware key 'pe_count'\n";
        QTest::newRow("keys are case sensitive") << "NUM_PES: 4\n"
                                                 << "h.m:1:1: unknown hardware key 'NUM_PES'\n";
        QTest::newRow("non-numeric value")
            << "num_pes: 4\nnoc_bw_cstr: 12k\n"
            << "h.m:2:14: value of 'noc_bw_cstr' must be a non-negative integer, not '12k'\n";
        QTest::newRow("negative value")
            << "num_pes: -4\n"
            << "h.m:1:11: value of 'num_pes' must not be negative (MAESTRO would silently read 4)\n";
        QTest::newRow("missing value") << "num_pes: 4\nl2_size_cstr:\n"
                                       << "h.m:2:1: missing value for 'l2_size_cstr'\n";
    }
    void maestroHardwareErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const std::string t = text.toStdString();
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::readMaestroHardware(t, "h.m"); })),
            expected);
    }

    void maestroHardwareRoundTrip()
    {
        Accelerator a;
        a.numPes = 99;
        a.l1Bytes = 256;
        a.l2Bytes = 4096;
        a.nocBandwidth = 17;
        a.nocLatency = 3;
        a.offchipBandwidth = 44;
        const Accelerator b = marvel::arch::readMaestroHardware(marvel::arch::writeMaestroHardware(a), "w.m");
        QVERIFY(marvel::arch::sameParameters(a, b));
    }

    void loadValidatesAndPointsAtTheKey()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("bad.m").toStdString();
        writeFile(path, "num_pes: 168\nnoc_bw_cstr: 0\n");
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::loadAccelerator(path); })),
            QString::fromStdString(path + ":2:14: noc_bw_cstr: must be at least 1 (got 0)\n"));
        const std::string json = dir.filePath("bad.json").toStdString();
        writeFile(json, R"({"num_pes": 0, "noc_bandwidth_elements_per_cycle": 12})");
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::loadAccelerator(json); })),
            QString::fromStdString(json + ": num_pes: must be at least 1 (got 0)\n"));
        writeFile(path + ".txt", "num_pes: 4\n");
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::loadAccelerator(path + ".txt"); })),
            QString::fromStdString(path
                + ".txt: unknown accelerator file type '.txt' (expected .json or a "
                  "MAESTRO hardware file .m)\n"));
        const std::string missing = dir.filePath("missing.json").toStdString();
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::loadAccelerator(missing); })),
            QString::fromStdString(missing + ": cannot read the file\n"));
        // A directory used to read as an empty hardware file, i.e. MAESTRO's defaults (1 PE).
        const std::string folder = dir.filePath("folder.m").toStdString();
        QVERIFY(QDir().mkdir(QString::fromStdString(folder)));
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::loadAccelerator(folder); })),
            QString::fromStdString(folder + ": cannot read the file: it is a directory\n"));
        const std::string binary = dir.filePath("binary.m").toStdString();
        writeFile(binary, std::string("num_pes: 4\nl1\xff") + std::string(1, '\0') + "x");
        // Said at the first byte that is not text (the 0xFF before the NUL), as the operator reader says it.
        QCOMPARE(QString::fromStdString(errorText([&] { marvel::arch::loadAccelerator(binary); })),
            QString::fromStdString(binary + ":2:3: invalid UTF-8 byte 0xFF: the file must be UTF-8 text\n"));
    }

    void saveThenLoad_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::newRow("json") << "acc.json";
        QTest::newRow("maestro") << "acc.m";
    }
    void saveThenLoad()
    {
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(fileName).toStdString();
        Accelerator a;
        a.name = "acc";
        a.numPes = 12;
        a.nocBandwidth = 6;
        writeFile(path, "old contents");
        marvel::arch::saveAccelerator(a, path);
        const Accelerator b = marvel::arch::loadAccelerator(path);
        QVERIFY(marvel::arch::sameParameters(a, b));
        QCOMPARE(b.name, std::string("acc"));
        // Nothing but the target is left behind in the folder.
        int files = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path().toStdString()))
            ++files;
        QCOMPARE(files, 1);
    }

    void presetsMatchReferenceHardware_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("pes");
        QTest::addColumn<qint64>("noc");
        QTest::newRow("P1") << "P1_eyeriss" << qint64{168} << qint64{12};
        QTest::newRow("P2") << "P2_edge" << qint64{1024} << qint64{128};
    }
    void presetsMatchReferenceHardware()
    {
        QFETCH(QString, preset);
        QFETCH(qint64, pes);
        QFETCH(qint64, noc);
        const std::string samples = std::string(MARVEL_SAMPLES_DIR) + "/accelerators/" + preset.toStdString();
        const Accelerator json = marvel::arch::loadAccelerator(samples + ".json");
        const Accelerator m = marvel::arch::loadAccelerator(samples + ".m");
        // The paper's platform table: 200 MHz, L1 512 B, L2 108 KB, 8-bit data, NoC GB/s -> elements/cycle.
        QCOMPARE(json.numPes, pes);
        QCOMPARE(json.nocBandwidth, noc);
        QCOMPARE(json.clockMHz, 200.0);
        QCOMPARE(json.l1Bytes, 512);
        QCOMPARE(json.l2Bytes, 108 * 1024);
        QCOMPARE(json.bytesPerElement, 1);
        QCOMPARE(json.dramBlockBytes, 64);
        QCOMPARE(json.offchipBandwidth, 1000000);
        QVERIFY(marvel::arch::sameParameters(json, m));

        const std::string reference
            = std::string(MARVEL_REFERENCE_DIR) + "/hw/" + preset.toStdString() + ".m";
        if (!std::filesystem::exists(reference))
            QSKIP("MAESTRO reference hardware files not available (MARVEL_REFERENCE_DIR)");
        QVERIFY(marvel::arch::sameParameters(json, marvel::arch::loadAccelerator(reference)));
    }

    // The DRAM-aware presets (issue 21): the figures their descriptions cite, worked out again here.
    void dramPresets_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("name");
        QTest::addColumn<qint64>("pes");
        QTest::addColumn<qint64>("bytesPerElement");
        QTest::addColumn<qint64>("interfaceBytes"); // LPDDR4 data bus width
        QTest::addColumn<qint64>("dramBlock");
        QTest::addColumn<double>("l1");
        QTest::addColumn<double>("l2");
        QTest::newRow("Eyeriss, LPDDR4-3200 x16")
            << "eyeriss_dram"
            << "Eyeriss-like with DRAM" << qint64{168} << qint64{2} << qint64{2} << qint64{32} << 1.0 << 6.0;
        QTest::newRow("edge 1024, LPDDR4-3200 x32")
            << "edge1024_dram"
            << "Edge 1024 with DRAM" << qint64{1024} << qint64{1} << qint64{4} << qint64{64} << 1.68 << 18.61;
    }
    void dramPresets()
    {
        QFETCH(QString, preset);
        QFETCH(QString, name);
        QFETCH(qint64, pes);
        QFETCH(qint64, bytesPerElement);
        QFETCH(qint64, interfaceBytes);
        QFETCH(qint64, dramBlock);
        QFETCH(double, l1);
        QFETCH(double, l2);
        const Accelerator acc = marvel::arch::loadAccelerator(
            std::string(MARVEL_SAMPLES_DIR) + "/accelerators/" + preset.toStdString() + ".json");
        QCOMPARE(QString::fromStdString(acc.name), name);
        QCOMPARE(acc.numPes, pes);
        QCOMPARE(acc.bytesPerElement, bytesPerElement);
        QCOMPARE(acc.l1Bytes, 512);
        QCOMPARE(acc.l2Bytes, 108 * 1024);
        QCOMPARE(acc.clockMHz, 200.0);
        // 3200 MT/s times the bus width, per 200 MHz cycle, in elements.
        const qint64 bytesPerCycle = 3200 * interfaceBytes / 200;
        QCOMPARE(acc.offchipBandwidth, bytesPerCycle / bytesPerElement);
        QCOMPARE(acc.dramBlockBytes, dramBlock); // one BL16 burst on the bus
        QCOMPARE(acc.dramBlockBytes, 16 * interfaceBytes);
        QCOMPARE(acc.energy.mac, 1.0);
        QCOMPARE(acc.energy.l1Access, l1);
        QCOMPARE(acc.energy.l2Access, l2);
        QCOMPARE(acc.energy.dramAccess, 200.0);
        // The sources are kept with the figures.
        for (const char* cited : {"ISCA 2016", "JESD209-4", "LPDDR4-3200"})
            QVERIFY2(acc.description.find(cited) != std::string::npos, cited);
    }
};

QTEST_APPLESS_MAIN(TestAccelerator)
#include "tst_accelerator.moc"
