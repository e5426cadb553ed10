// `marvel simulate` end to end: JSON totals of the spec's worked example 1, frames, and exit 2 with the
// file and position or field on bad input.
#include <cmath>
#include <nlohmann/json.hpp>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

namespace {

using clitest::runMarvel;

const char* kEx1 = R"(Network Tiny {
Layer L1 {
  Type: CONV
  Stride { X: 1, Y: 1 }
  Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 6, X: 6 }
  Dataflow { SpatialMap(1,1) K; TemporalMap(1,1) C; TemporalMap(Sz(R),1) Y; TemporalMap(Sz(S),1) X;
             TemporalMap(Sz(R),Sz(R)) R; TemporalMap(Sz(S),Sz(S)) S; }
}
}
)";

const char* kSimHw = "num_pes: 16\nnoc_bw_cstr: 8\nNoC_NumHops: 1\noffchip_bw_cstr: 1000\n";

QString writeIn(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(text);
    return path;
}

} // namespace

class TestCliSimulate : public QObject
{
    Q_OBJECT
private slots:
    void jsonTotals()
    {
        QTemporaryDir dir;
        const QString hw = writeIn(dir, "hw.m", kSimHw), m = writeIn(dir, "ex1.m", kEx1);
        const auto r = runMarvel({"simulate", "--hw", hw, "--mapping", m, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j.size(), size_t(1));
        const auto& l = j[0];
        QCOMPARE(l["name"].get<std::string>(), std::string("L1"));
        QCOMPARE(l["macs"].get<long long>(), 1152LL); // K4 C2 R3 S3 Y'4 X'4
        QCOMPARE(l["recomputed_macs"].get<long long>(), 0LL);
        QCOMPARE(l["runtime_cycles"].get<long long>(), 294LL); // the spec's hand-computed runtime
        QCOMPARE(l["steps"].get<long long>(), 32LL);
        QCOMPARE(l["tensors"]["input"]["l2_reads"].get<long long>(), 144LL);
        QCOMPARE(l["tensors"]["input"]["l1_writes"].get<long long>(), 576LL);
        QCOMPARE(l["tensors"]["filter"]["l2_reads"].get<long long>(), 72LL);
        QCOMPARE(l["tensors"]["output"]["l2_writes"].get<long long>(), 128LL);
        // DRAM over the 32 steps (one level: its steps are the L2 tiles). Per channel the 3x3 input tile
        // slides along X (3 new elements a step) and restarts each row (9): 2 x 4 x (9 + 3 x 3) = 144; the
        // filter's 4x3x3 tile changes with C: 72; the output's 4 elements change every step: written 32 x 4,
        // and the second channel's pass reads the first's partial sums back: 16 x 4.
        QCOMPARE(l["tensors"]["input"]["dram_reads"].get<long long>(), 144LL);
        QCOMPARE(l["tensors"]["filter"]["dram_reads"].get<long long>(), 72LL);
        QCOMPARE(l["tensors"]["output"]["dram_reads"].get<long long>(), 64LL);
        QCOMPARE(l["tensors"]["output"]["dram_writes"].get<long long>(), 128LL);
        // Energy with its parts; a MAESTRO hardware file charges no DRAM energy.
        const auto& parts = l["energy_parts"];
        QCOMPARE(parts["dram"].get<double>(), 0.0);
        QCOMPARE(parts["mac"].get<double>(), 1152.0);
        QVERIFY(std::abs(parts["mac"].get<double>() + parts["l1"].get<double>() + parts["l2"].get<double>()
                    - l["energy"].get<double>())
            < 1e-9 * l["energy"].get<double>());
        QVERIFY(!l.contains("frames"));
    }

    void framesAndText()
    {
        QTemporaryDir dir;
        const QString hw = writeIn(dir, "hw.m", kSimHw), m = writeIn(dir, "ex1.m", kEx1);
        auto r = runMarvel(
            {"simulate", "--hw", hw, "--mapping", m, "--json", "--frames", "1:2", "--layer", "L1"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& frames = j[0]["frames"];
        QCOMPARE(frames.size(), size_t(2));
        QCOMPARE(frames[0]["index"].get<int>(), 1);
        // Step 1: X advances by one column, so 3 of the 9 input elements arrive (C1 x Y3 x X1) to 4 PEs.
        const auto& pe0 = frames[0]["pes"][0];
        QCOMPARE(pe0["tensors"]["input"]["arrived"].get<int>(), 3);
        QCOMPARE(pe0["tensors"]["input"]["stayed"].get<int>(), 6);
        QCOMPARE(pe0["tensors"]["input"]["fanout"].get<int>(), 4);
        QCOMPARE(pe0["macs"].get<int>(), 9);
        QCOMPARE(frames[0]["pes"][4]["active"].get<bool>(), false);
        QCOMPARE(j[0]["layout"]["levels"][0]["sub_units"].get<int>(), 16);
        r = runMarvel({"simulate", "--hw", hw, "--mapping", m, "--frames", "0:1"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("PE 3: 9 MACs"), qPrintable(r.out));
        QVERIFY2(r.out.contains("runtime 294 cycles"), qPrintable(r.out));
    }

    void badInput()
    {
        QTemporaryDir dir;
        const QString hw = writeIn(dir, "hw.m", kSimHw), m = writeIn(dir, "ex1.m", kEx1);
        QByteArray bad = kEx1;
        bad.replace("SpatialMap(1,1) K;", "SpatialMap(1,1) Q;");
        const QString b = writeIn(dir, "bad.m", bad);
        auto r = runMarvel({"simulate", "--hw", hw, "--mapping", b});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bad.m:6:"), qPrintable(r.err)); // file:line:col of the directive
        r = runMarvel({"simulate", "--hw", hw, "--mapping", m, "--layer", "L9"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("layer") && r.err.contains("L9"), qPrintable(r.err));
        r = runMarvel({"simulate", "--hw", hw, "--mapping", m, "--frames", "3"});
        QCOMPARE(r.exitCode, 2);
        r = runMarvel({"simulate", "--hw", dir.filePath("missing.m"), "--mapping", m});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("missing.m"), qPrintable(r.err));
        // Too large: the message says what to shrink.
        QByteArray big = kEx1;
        big.replace("K: 4, C: 2, R: 3, S: 3, Y: 6, X: 6", "K: 4, C: 512, R: 3, S: 3, Y: 130, X: 130");
        r = runMarvel({"simulate", "--hw", hw, "--mapping", writeIn(dir, "big.m", big)});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("PE-steps") && r.err.contains("shrink"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliSimulate)
#include "tst_cli_simulate.moc"
