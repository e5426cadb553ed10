// `--technology` on the commands that take an accelerator: search and sweep report energy in pJ, area in
// mm^2 and power in mW from the table (the same figures the core computes for that design), evaluate has
// the columns, and a bad table or name exits 2 naming the file and field.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::runMarvel;

class TestCliTechnology : public QObject
{
    Q_OBJECT

private slots:
    /// The search's JSON on Edge 1024 at 45 nm: the energy in pJ is the energy units (pJ under this
    /// table) summed with the NoC's, its parts add up, and the area is the 45 nm table's for 1024 PEs:
    /// 1024 x 282 um^2 of MACs + (1024 x 512 + 110592) bytes x 0.688 um^2 of SRAM.
    void searchReportsPhysicalUnits()
    {
        const clitest::CliRun r = runMarvel({"search", "--op", kSamples + "/operators/gemm.loop", "--hw",
            kSamples + "/accelerators/edge1024_dram.json", "--technology", "45nm", "--threads", "2",
            "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json["technology"].toString(), QString("technology 45nm (LPDDR4)"));
        const QJsonObject layer = json["layers"].toArray().first().toObject();
        const double energyPj = layer["energy_pj"].toDouble();
        QVERIFY(std::abs(energyPj - layer["energy"].toDouble()) <= 1e-9 * energyPj); // units are pJ
        const QJsonObject parts = layer["energy_parts_pj"].toObject();
        double sum = 0;
        for (const char* p : {"mac", "l1", "l2", "noc", "dram"})
            sum += parts[p].toDouble();
        QVERIFY(std::abs(sum - energyPj) <= 1e-9 * energyPj);
        QVERIFY(parts["noc"].toDouble() > 0); // the NoC's sends are charged under a table
        const double area = (1024 * 282.0 + (1024 * 512 + 110592) * 0.688) * 1e-6;
        QVERIFY(std::abs(layer["area_mm2"].toDouble() - area) < 1e-9);
        // Power: the energy over the runtime at 200 MHz, plus a leakage below 1 mW.
        const double seconds = layer["runtime_cycles"].toDouble() / 200e6;
        const double dynamic = energyPj * 1e-9 / seconds;
        QVERIFY(layer["power_mw"].toDouble() > dynamic && layer["power_mw"].toDouble() < dynamic + 1.0);

        // The text report says the same in readable units.
        const clitest::CliRun text = runMarvel({"search", "--op", kSamples + "/operators/gemm.loop", "--hw",
            kSamples + "/accelerators/edge1024_dram.json", "--technology", "45nm", "--threads", "2"});
        QVERIFY2(text.out.contains("physical (technology 45nm (LPDDR4)): energy "), qPrintable(text.out));
        QVERIFY(text.out.contains(" mm2; "));
    }

    /// A sweep under the 45 nm table: energy_pj, area_mm2 and power_mw in every row; a bigger L2 costs
    /// more area, and the energy per access grows with it (the L2 rows' energies differ).
    void sweepCarriesPhysicalColumns()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("s.csv");
        const clitest::CliRun r = runMarvel({"sweep", "--op", kSamples + "/operators/conv1d.loop", "--hw",
            kSamples + "/accelerators/classroom_4pe.json", "--technology", "45nm", "--vary", "l2=1K,64K",
            "--out", out, "--threads", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("physical units: technology 45nm (LPDDR4)"));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        const QStringList header = lines[0].split(',');
        const int energyPj = int(header.indexOf("energy_pj")), area = int(header.indexOf("area_mm2")),
                  power = int(header.indexOf("power_mw")), energy = int(header.indexOf("energy"));
        QVERIFY(energyPj > 0 && area > 0 && power > 0);
        const QStringList small = lines[1].split(','), big = lines[2].split(',');
        QCOMPARE(small[energyPj].toDouble(), small[energy].toDouble()); // pJ units
        QVERIFY(big[area].toDouble() > small[area].toDouble());
        QVERIFY(small[power].toDouble() > 0);
    }

    void evaluateHasTheColumns()
    {
        const clitest::CliRun r
            = runMarvel({"evaluate", "--hw", kSamples + "/accelerators/P2_edge.json", "--mapping",
                kSamples + "/mappings/conv2d_two_levels.m", "--technology", "45nm", "--format", "json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject row = QJsonDocument::fromJson(r.out.toUtf8()).array().first().toObject();
        QVERIFY(row["energy_pj"].toDouble() > 0);
        QVERIFY(row["area_mm2"].toDouble() > 0);
        QVERIFY(row["power_mw"].toDouble() > 0);
        QVERIFY(row.contains("noc_energy_macu"));
    }

    /// The simulator's figures in physical units are the cost model's for the same mapping (they count
    /// the same traffic on this one: corrected fidelity, one level): `simulate --json` and `evaluate`
    /// agree on energy_pj, each part, area and power; the text says pJ.
    void simulateHasThePhysicalFigures()
    {
        const QStringList common = {"--hw", kSamples + "/accelerators/edge1024_45nm.json", "--mapping",
            kSamples + "/mappings/conv2d_two_levels.m"};
        const clitest::CliRun sim = runMarvel(QStringList{"simulate"} + common + QStringList{"--json"});
        QVERIFY2(sim.exitCode == 0, qPrintable(sim.err));
        const clitest::CliRun eval = runMarvel(
            QStringList{"evaluate"} + common + QStringList{"--format", "json", "--fidelity", "corrected"});
        QVERIFY2(eval.exitCode == 0, qPrintable(eval.err));
        const QJsonObject s = QJsonDocument::fromJson(sim.out.toUtf8()).array().first().toObject();
        const QJsonObject e = QJsonDocument::fromJson(eval.out.toUtf8()).array().first().toObject();
        QCOMPARE(s["runtime_cycles"].toInteger(), e["runtime_cycles"].toInteger());
        auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), 1.0); };
        QVERIFY2(close(s["energy_pj"].toDouble(), e["energy_pj"].toDouble()),
            qPrintable(QString::number(s["energy_pj"].toDouble()) + " vs "
                + QString::number(e["energy_pj"].toDouble())));
        const QJsonObject parts = s["energy_parts_pj"].toObject();
        for (const char* p : {"mac", "l1", "l2", "noc", "dram"})
            QVERIFY2(close(parts[p].toDouble(), e[QString(p) + "_energy_macu"].toDouble()), p);
        QVERIFY(parts["noc"].toDouble() > 0);
        QVERIFY(close(s["area_mm2"].toDouble(), e["area_mm2"].toDouble()));
        QVERIFY(close(s["power_mw"].toDouble(), e["power_mw"].toDouble()));
        const clitest::CliRun text = runMarvel(QStringList{"simulate"} + common);
        QVERIFY(text.out.contains(" pJ: MAC "));
        QVERIFY(text.out.contains("physical (technology 45nm (LPDDR4)): energy "));
    }

    /// `--compare-styles --json` carries each mapping's physical figures and the totals' energy in pJ.
    void compareStylesHasThePhysicalFigures()
    {
        const clitest::CliRun r = runMarvel({"search", "--op", kSamples + "/operators/gemm.loop", "--hw",
            kSamples + "/accelerators/edge1024_45nm.json", "--compare-styles", "--threads", "2", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json["energy_unit"].toString(), QString("pJ"));
        const QJsonObject layer = json["layers"].toArray().first().toObject();
        const QJsonObject marvel = layer["marvel"].toObject();
        QCOMPARE(marvel["energy_pj"].toDouble(), marvel["energy"].toDouble());
        QVERIFY(marvel["area_mm2"].toDouble() > 0 && marvel["power_mw"].toDouble() > 0);
        int styled = 0;
        for (const QJsonValue v : layer["styles"].toObject()) {
            const QJsonObject st = v.toObject();
            if (st["status"].toString() != "ok") continue;
            ++styled;
            QCOMPARE(st["energy_pj"].toDouble(), st["energy"].toDouble());
            QCOMPARE(st["area_mm2"].toDouble(), marvel["area_mm2"].toDouble()); // one design
        }
        QVERIFY(styled > 0);
        const QJsonObject total = json["total"].toObject()["marvel"].toObject();
        QCOMPARE(total["energy_pj"].toDouble(), total["energy"].toDouble());
    }

    /// A name that is no table, a malformed table and a table whose curve falls: exit 2, naming it.
    void badTechnologyExitsTwo()
    {
        clitest::CliRun r = runMarvel({"search", "--op", kSamples + "/operators/gemm.loop", "--hw",
            kSamples + "/accelerators/P2_edge.json", "--technology", "3nm-dreams"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--technology") && r.err.contains("no technology table of that name")
                && r.err.contains("45nm"),
            qPrintable(r.err));
        QTemporaryDir dir;
        QFile bad(dir.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        QFile good(kSamples + "/technology/45nm.json");
        QVERIFY(good.open(QIODevice::ReadOnly));
        QByteArray text = good.readAll();
        text.replace("\"read\": 32.342452", "\"read\": 0.5");
        bad.write(text);
        bad.close();
        r = runMarvel({"sweep", "--op", kSamples + "/operators/gemm.loop", "--hw",
            kSamples + "/accelerators/P2_edge.json", "--technology", dir.filePath("bad.json"), "--vary",
            "pes=64", "--out", dir.filePath("s.csv")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(dir.filePath("bad.json"))
                && r.err.contains("l1[3].read: the curve is not monotone"),
            qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliTechnology)
#include "tst_cli_technology.moc"
