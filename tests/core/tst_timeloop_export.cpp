// Timeloop export (core/export/timeloop.h): the worked case of ../shared/reference/timeloop/vgg16_conv2_1_ws
// (VGG16 CONV2_1 weight-stationary on 128 PEs: its mapping, and our counts against the counts in Timeloop's
// own timeloop-output/ stats, copied below), depth-wise, strided and GEMM layers against hand-worked counts,
// every refused mapping's message, and the YAML read back with yaml-cpp.
#include <filesystem>
#include <sstream>

#include <QTest>

#include "core/arch/accelerator_io.h"
#include "core/cost/problem.h"
#include "core/export/timeloop.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"
#include "tests/timeloop_yaml.h"

using namespace marvel;

namespace {

using i64 = std::int64_t;

// conv2_1_ws.m of the reference folder.
const char* kConv21 = R"(Network vgg16_conv2_1 {
  Layer CONV2_1 {
    Type: CONV
    Dimensions { K: 128, C: 64, R: 3, S: 3, Y: 114, X: 114 }
    Dataflow {
      SpatialMap(1,1) K; TemporalMap(8,8) C; TemporalMap(3,3) R; TemporalMap(3,3) S;
      TemporalMap(3,1) Y; TemporalMap(3,1) X;
      Cluster(8,P);
      SpatialMap(1,1) C; TemporalMap(3,3) R; TemporalMap(3,3) S;
    }
  }
})";

// P1_128pe.json of the reference folder.
arch::Accelerator p1With128Pes()
{
    arch::Accelerator a;
    a.name = "P1 with 128 PEs";
    a.numPes = 128;
    a.l1Bytes = 512;
    a.l2Bytes = 110592;
    a.nocBandwidth = 12;
    a.offchipBandwidth = 1000000;
    return a;
}

struct TimeloopLayer
{
    cost::Problem problem;
    mdc::Dataflow dataflow;
};

TimeloopLayer timeloopLayerOf(const std::string& text)
{
    const mdc::Network n = mdc::readMaestroMapping(text, "test.m");
    return {cost::fromMaestroLayer(n.layers.at(0)), n.layers.at(0).dataflow};
}

// The worked case exported with `buffering` (multiple_buffering).
timeloop::Export exportWorkedCase(int buffering)
{
    const TimeloopLayer l = timeloopLayerOf(kConv21);
    timeloop::Options o;
    o.multipleBuffering = buffering;
    o.topLevelInDram = false; // a MAESTRO file: the global buffer keeps what fits (doc/timeloop.md)
    return timeloop::translateMdc("CONV2_1", l.problem, l.dataflow, p1With128Pes(), o);
}

// An accelerator of `pes` PEs, the other fields their defaults.
arch::Accelerator acceleratorOfPes(int pes)
{
    arch::Accelerator acc;
    acc.numPes = pes;
    return acc;
}

timeloop::Export exportOnPes(const TimeloopLayer& l, int pes)
{
    return timeloop::translateMdc("L", l.problem, l.dataflow, acceleratorOfPes(pes));
}

std::string loopsText(const std::vector<timeloop::Loop>& ls)
{
    std::string s;
    for (const auto& l : ls)
        s += (s.empty() ? "" : " ") + l.dim + "=" + std::to_string(l.factor);
    return s;
}

i64 countOf(const std::vector<std::pair<std::string, i64>>& v, const std::string& name)
{
    for (const auto& [n, c] : v)
        if (n == name) return c;
    return -1;
}

#if MARVEL_HAVE_YAML_CPP
// Reads all four files as Timeloop does: each on its own must have exactly one top-level key, and their
// concatenation must parse as one document.
YAML::Node readBackTimeloop(const timeloop::Files& f)
{
    for (const auto* text : {&f.problem, &f.arch, &f.map, &f.ert}) {
        const YAML::Node n = YAML::Load(*text);
        if (!n.IsMap() || n.size() != 1) throw std::runtime_error("not one top-level key:\n" + *text);
    }
    const YAML::Node all = YAML::Load(f.problem + f.arch + f.map + f.ert);
    if (all.size() != 4) throw std::runtime_error("the four files do not have four distinct top-level keys");
    return all;
}

// Structure of a read-back export: factor products equal the problem sizes, the mesh the PEs used.
void checkTimeloopStructure(const YAML::Node& all, i64 pesUsed)
{
    using timeloop_test::factorsOf;
    const YAML::Node inst = all["problem"]["instance"];
    const YAML::Node dims = all["problem"]["shape"]["dimensions"];
    QVERIFY(dims.IsSequence());
    const YAML::Node map = all["mapping"];
    // One PE: no fan-out, so no spatial entry (Timeloop refuses one whose level has no more instances).
    QCOMPARE(int(map.size()), pesUsed > 1 ? 4 : 3);
    for (const auto& d : dims) {
        const std::string name = d.as<std::string>();
        i64 product = 1;
        for (const auto& e : map)
            product *= factorsOf(e["factors"].as<std::string>()).at(name);
        QCOMPARE(product, inst[name].as<i64>());
    }
    const YAML::Node local = all["architecture"]["subtree"][0]["local"];
    QCOMPARE(int(local.size()), 4);
    const YAML::Node pe = local[2]["attributes"];
    QCOMPARE(pe["meshX"].as<i64>() * pe["meshY"].as<i64>(), pesUsed);
    QCOMPARE(local[2]["name"].as<std::string>(), "PEBuffer[0.." + std::to_string(pesUsed - 1) + "]");
    QCOMPARE(all["ERT"]["tables"][0]["name"].as<std::string>(), std::string("system.DRAM"));
    if (pesUsed == 1) return;
    // The spatial fan-out is the mesh: meshX the product of the first `split` dimensions.
    const YAML::Node sp = timeloop_test::mappingEntry(map, "GlobalBuffer", "spatial");
    const auto f = factorsOf(sp["factors"].as<std::string>());
    const std::string perm = sp["permutation"].as<std::string>();
    const int split = sp["split"].as<int>();
    i64 x = 1, y = 1;
    for (int i = 0; i < int(perm.size()); ++i)
        (i < split ? x : y) *= f.at(std::string(1, perm[std::size_t(i)]));
    QCOMPARE(x, pe["meshX"].as<i64>());
    QCOMPARE(y, pe["meshY"].as<i64>());
}
#endif

// The small array the restricted-search tests search on: 16 PEs, a 256-byte L1, an 8 KiB L2, NoC 8.
arch::Accelerator sixteenPes()
{
    arch::Accelerator acc;
    acc.numPes = 16;
    acc.l1Bytes = 256;
    acc.l2Bytes = 8192;
    acc.nocBandwidth = 8;
    return acc;
}

} // namespace

class TstTimeloopExport : public QObject
{
    Q_OBJECT

private slots:
    void workedCaseMapping_data()
    {
        QTest::addColumn<int>("buffering");
        QTest::addColumn<QString>("globalBuffer");
        QTest::addColumn<QString>("dram");
        // Single-buffered: the reference's own split (map_maestro_ws_128.yaml): 4 strips of 28 output rows.
        QTest::newRow("single") << 1 << "P=28 Q=112"
                                << "K=8 C=8 P=4";
        // Double-buffered (the default): a strip of 28 rows needs 78,688 of the 55,296 elements half the
        // L2 gives; 16 rows (the largest divisor of 112 that fits) need 1,152 + 8 x 18 x 114 + 16 x 16 x 112
        // = 46,240.
        QTest::newRow("double") << 2 << "P=16 Q=112"
                                << "K=8 C=8 P=7";
    }
    void workedCaseMapping()
    {
        QFETCH(int, buffering);
        QFETCH(QString, globalBuffer);
        QFETCH(QString, dram);
        const auto e = exportWorkedCase(buffering);
        QVERIFY2(e.ok(), e.reason.c_str());
        const auto& m = *e.mapping;
        QCOMPARE(QString::fromStdString(loopsText(m.peBuffer)), QString("R=3 S=3"));
        QCOMPARE(QString::fromStdString(loopsText(m.spatialX)), QString("C=8"));
        QCOMPARE(QString::fromStdString(loopsText(m.spatialY)), QString("K=16"));
        QCOMPARE(QString::fromStdString(loopsText(m.globalBuffer)), globalBuffer);
        QCOMPARE(QString::fromStdString(loopsText(m.dram)), dram);
        QCOMPARE(m.meshX, i64(8));
        QCOMPARE(m.meshY, i64(16));
        // The reference's order: PCKRSQN (innermost first) at DRAM, QPRSCKN in the global buffer.
        QVERIFY(e.files.map.find("permutation: PCK") != std::string::npos);
        QVERIFY(e.files.map.find("permutation: QP") != std::string::npos);
        QVERIFY(e.files.map.find("permutation: SR") != std::string::npos);
        QVERIFY(e.files.map.find("split: 1") != std::string::npos);
        QCOMPARE(e.files.arch.find("multiple_buffering: 2") != std::string::npos, buffering == 2);
    }

    // Our counts for the worked case equal timeloop-output/tl_128/timeloop-model.stats.txt: MACs
    // (Computes), GlobalBuffer scalar reads of Weights and Inputs, GlobalBuffer Outputs updates, DRAM reads
    // of every data space and DRAM Outputs updates (what Timeloop writes back).
    void workedCaseCounts()
    {
        const TimeloopLayer l = timeloopLayerOf(kConv21);
        for (int buffering : {1, 2}) {
            const auto e = exportWorkedCase(buffering);
            QVERIFY2(e.ok(), e.reason.c_str());
            const auto c = timeloop::ourCounts(l.problem, l.dataflow, p1With128Pes(), *e.mapping);
            QCOMPARE(c.macs, i64(924844032));
            QCOMPARE(countOf(c.globalBufferReads, "Weights"), i64(73728));
            QCOMPARE(countOf(c.globalBufferReads, "Inputs"), i64(19611648));
            QCOMPARE(c.outputUpdates, i64(12845056));
            QCOMPARE(countOf(c.dramReads, "Weights"), i64(73728));
            QCOMPARE(countOf(c.dramReads, "Inputs"), i64(6653952));
            QCOMPARE(countOf(c.dramReads, "Outputs"), i64(11239424));
            QCOMPARE(c.outputDramWrites, i64(12845056));
        }
    }

    // The worked case read back: one top-level key per file, factor products, the mesh; and, when the
    // reference folder is there, the same problem, architecture and mapping as its hand translation up to
    // formatting (single buffered, as the reference ran; tst_cli_timeloop checks the CLI's export too).
    void workedCaseReadBack()
    {
#if !MARVEL_HAVE_YAML_CPP
        QSKIP("yaml-cpp not found (libyaml-cpp-dev)");
#else
        const auto e = exportWorkedCase(1);
        QVERIFY2(e.ok(), e.reason.c_str());
        const YAML::Node all = readBackTimeloop(e.files);
        checkTimeloopStructure(all, 128);
        if (QTest::currentTestFailed()) return;
        if (!std::filesystem::exists(timeloop_test::workedCaseDir() + "/map_maestro_ws_128.yaml"))
            QSKIP("reference folder ../shared/reference/timeloop not found");
        timeloop_test::compareWithWorkedCase(
            YAML::Load(e.files.problem), YAML::Load(e.files.arch), YAML::Load(e.files.map));
#endif
    }

    // Hand-worked layers: the mapping and our counts (what Timeloop counts the same way, doc/timeloop.md).
    // The PE buffers' fills (pe:) are what each PE receives, summed over the PEs: the global buffer's reads
    // times the PEs a multicast reaches.
    void handWorked_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("pes");
        QTest::addColumn<QString>("pe");
        QTest::addColumn<QString>("spatial");
        QTest::addColumn<QString>("gb");
        QTest::addColumn<QString>("counts");
        // Depth-wise 3x3 over 4 channels of 6x6 (4x4 outputs), a channel per PE. Weights reach each PE once
        // (9 x 4); inputs: per channel and output row 9 + 3 x 3 new elements as the window slides, rows do
        // not overlap the previous step's columns: 18 x 4 rows x 4 channels = 288, each to its own PE; one
        // update per output
        // (64); everything fits in L2: DRAM reads the tensors once (36, 144), writes the 64 outputs.
        QTest::newRow("depthwise")
            << "Network n { Layer DW { Type: DSCONV Dimensions { C: 4, R: 3, S: 3, Y: 6, X: 6 } Dataflow {"
               " SpatialMap(1,1) C; TemporalMap(3,3) R; TemporalMap(3,3) S; TemporalMap(3,1) Y;"
               " TemporalMap(3,1) X; } } }"
            << 4 << "R=3 S=3"
            << "C=4"
            << "P=4 Q=4"
            << "macs=576 gb:Inputs=288 gb:Weights=36 updates=64 pe:Inputs=288 pe:Weights=36 dram:Inputs=144 "
               "dram:Weights=36 dram:Outputs=0 writes=64";
        // Stride 2: K 2, C 2, 3x3 over 7x7 (3x3 outputs), a K per PE. Weights 18 per PE (36); inputs per
        // output row: 2 x 3 x 3 = 18, then 2 new columns x 3 rows x 2 channels = 12 per step (the windows
        // overlap by one column): 18 + 2 x 12 = 42 per row, 126 in all, sent once to both PEs (252 fills);
        // 2 x 9 output
        // updates; DRAM: 36, 2 x 49 = 98, 18 written.
        QTest::newRow("strided")
            << "Network n { Layer S2 { Type: CONV Stride { X: 2, Y: 2 } Dimensions { K: 2, C: 2, R: 3, S: 3, "
               "Y: 7,"
               " X: 7 } Dataflow { SpatialMap(1,1) K; TemporalMap(2,2) C; TemporalMap(3,3) R; "
               "TemporalMap(3,3) S;"
               " TemporalMap(3,2) Y; TemporalMap(3,2) X; } } }"
            << 2 << "C=2 R=3 S=3"
            << "K=2"
            << "P=3 Q=3"
            << "macs=324 gb:Inputs=126 gb:Weights=36 updates=18 pe:Inputs=252 pe:Weights=36 dram:Inputs=98 "
               "dram:Weights=36 dram:Outputs=0 writes=18";
        // GEMM M 4, N 4, K 8, a row of A per PE: A reaches each PE once (4 x 8 = 32), a column of B per N
        // step to all four PEs at once (8 x 4 = 32; 128 fills), each output updated once (16); DRAM: 32, 32,
        // 16 written.
        QTest::newRow("gemm")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 4, N: 4, K: 8 } Dataflow { SpatialMap(1,1) "
               "M;"
               " TemporalMap(1,1) N; TemporalMap(8,8) K; } } }"
            << 4 << "K=8"
            << "M=4"
            << "N=4"
            << "macs=128 gb:Inputs=32 gb:Weights=32 updates=16 pe:Inputs=32 pe:Weights=128 dram:Inputs=32 "
               "dram:Weights=32 dram:Outputs=0 writes=16";
        // The same kind on one PE (M 2, N 2, K 4; its SpatialMap folds M in time): A's row stays while N
        // steps (2 x 4 = 8), B's column changes every step (4 x 4 = 16), each output once (4); DRAM reads A
        // and B once (8, 8). Timeloop 4cf6d4c gives these counts for this export (no spatial level: Timeloop
        // refuses one on a single PE, which it did for every such export until 2026-11-29).
        QTest::newRow("one PE")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 2, N: 2, K: 4 } Dataflow { SpatialMap(1,1) "
               "M; TemporalMap(1,1) N; TemporalMap(4,4) K; } } }"
            << 1 << "K=4"
            << ""
            << "M=2 N=2"
            << "macs=16 gb:Inputs=8 gb:Weights=16 updates=4 pe:Inputs=8 pe:Weights=16 dram:Inputs=8 "
               "dram:Weights=8 dram:Outputs=0 writes=4";
    }
    void handWorked()
    {
        QFETCH(QString, text);
        QFETCH(int, pes);
        QFETCH(QString, pe);
        QFETCH(QString, spatial);
        QFETCH(QString, gb);
        QFETCH(QString, counts);
        const TimeloopLayer l = timeloopLayerOf(text.toStdString());
        const auto e = exportOnPes(l, pes);
        QVERIFY2(e.ok(), e.reason.c_str());
        QCOMPARE(QString::fromStdString(loopsText(e.mapping->peBuffer)), pe);
        QCOMPARE(QString::fromStdString(loopsText(e.mapping->spatialX)), spatial);
        QCOMPARE(QString::fromStdString(loopsText(e.mapping->globalBuffer)), gb);
        QCOMPARE(QString::fromStdString(loopsText(e.mapping->dram)), QString());
        const auto c = timeloop::ourCounts(l.problem, l.dataflow, acceleratorOfPes(pes), *e.mapping);
        std::ostringstream got;
        got << "macs=" << c.macs << " gb:Inputs=" << countOf(c.globalBufferReads, "Inputs")
            << " gb:Weights=" << countOf(c.globalBufferReads, "Weights") << " updates=" << c.outputUpdates
            << " pe:Inputs=" << countOf(c.peFills, "Inputs")
            << " pe:Weights=" << countOf(c.peFills, "Weights")
            << " dram:Inputs=" << countOf(c.dramReads, "Inputs")
            << " dram:Weights=" << countOf(c.dramReads, "Weights")
            << " dram:Outputs=" << countOf(c.dramReads, "Outputs") << " writes=" << c.outputDramWrites;
        QCOMPARE(QString::fromStdString(got.str()), counts);
#if MARVEL_HAVE_YAML_CPP
        checkTimeloopStructure(readBackTimeloop(e.files), pes);
#endif
    }

    // Forms exported since issue 33: nested fan-outs (more than two cluster levels spreading tiles, or one
    // dimension spread at two of them) as one Timeloop spatial level; filter rows spread over PEs with the
    // input rows that move with them (row-stationary) as a spatial loop over R; a dimension stepping in two
    // cluster levels whose loops meet in one Timeloop level as one loop of their product. The cluster
    // levels' steps are global-buffer loops (the frames, clusters in lock-step) and the PE buffer holds one
    // step's tile, so the global buffer's reads and updates are what the PEs fetch and return frame by frame,
    // as our count and the simulator define them (doc/cost-model.md, "Global-buffer traffic"; the NoC
    // multicasts identical tiles only, as Timeloop's). Loops and our counts by hand, each equal to the
    // simulator's but where said; tst_cli_timeloop runs the same mappings through Timeloop.
    void newForms_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("pes");
        QTest::addColumn<QString>("loops");
        QTest::addColumn<QString>("counts");
        const QString conv
            = "Network n { Layer L { Type: CONV Dimensions { K: 8, C: 4, R: 3, S: 3, Y: 6, X: 6 }"
              " Dataflow { %1 } } }";
        // Three fan-outs on 16 PEs: 2 sub-units at the top take K in 4 folds (the DRAM's loop), 4 clusters
        // take C, the 2 PEs of each take 2 of the 4 output rows twice (P=2 spatial, P=2 stepped, with the 4
        // columns); meshX the PEs' P=2, meshY the outer levels' K=2 and C=4. Counts: 8 x 4 x 16 x 9 MACs;
        // inputs: each PE's 3x3 window, 9 at a row's first column and 3 at each next, 18 a row, 2 rows per
        // PE, 2 PEs (different rows: not shared), 4 channels, again in each of the 4 K folds: 1152 (the top
        // level's K halves take identical inputs, sent once); each weight once (a K fold's weights stay in
        // the PE through its frames), 288; 8 x 16 outputs updated once (the 4 channels' partial sums
        // reduced).
        QTest::newRow("three fan-outs")
            << conv.arg("SpatialMap(1,1) K; Cluster(4,P); SpatialMap(1,1) C; Cluster(2,P); SpatialMap(3,1) Y;"
                        " TemporalMap(3,1) X;")
            << 16 << "pe: R=3 S=3 | x: P=2 | y: K=2 C=4 | gb: P=2 Q=4 | dram: K=4"
            << "macs=4608 gb:Inputs=1152 gb:Weights=288 updates=128";
        // K in pairs over the top level's 2 sub-units (2 folds, the DRAM's) and one each over the PEs of a
        // cluster: one K=4 along meshX. Inputs: every PE of a channel the same window (sent once), 18 per row
        // of output positions, 4 rows, 4 channels, 2 K folds: 576; weights and updates as above.
        QTest::newRow("K at two fan-outs")
            << conv.arg("SpatialMap(2,2) K; Cluster(4,P); SpatialMap(1,1) C; Cluster(2,P); SpatialMap(1,1) K;"
                        " TemporalMap(3,1) Y; TemporalMap(3,1) X;")
            << 16 << "pe: R=3 S=3 | x: K=4 | y: C=4 | gb: P=4 Q=4 | dram: K=2"
            << "macs=4608 gb:Inputs=576 gb:Weights=288 updates=128";
        // Row-stationary: a filter row per PE with the input rows it reads for the cluster's output row (Y in
        // lock-step with R), a channel per cluster, the output rows in time. Depth-wise 3x3 over 8x8 (6x6
        // outputs): per channel and output row each of the 3 PEs fetches its input row's first 3 columns,
        // then one new column a step (3 + 5 = 8; a PE holds one row, so the next output row is new to it):
        // 3 x 8 x 6 = 144 a channel, 576 in all; 36 weights; 144 updates (the 3 filter rows' partial sums
        // reduced across the PEs).
        QTest::newRow("row-stationary depth-wise")
            << "Network n { Layer DW { Type: DSCONV Dimensions { C: 4, R: 3, S: 3, Y: 8, X: 8 } Dataflow {"
               " SpatialMap(1,1) C; TemporalMap(3,1) Y; Cluster(3,P); SpatialMap(1,1) Y; SpatialMap(1,1) R;"
               " TemporalMap(3,3) S; TemporalMap(3,1) X; } } }"
            << 18 << "pe: S=3 | x: R=3 | y: C=4 | gb: Q=6 | dram: P=6"
            << "macs=1296 gb:Inputs=576 gb:Weights=36 updates=144";
        // The same over 6 clusters of one output row each (K 4 in time at the top, C 2 in the PE): PE j of
        // cluster c holds input row c + j, so PEs of neighbouring clusters hold identical rows (cluster c's
        // PE j and cluster c+1's PE j-1), sent once as Timeloop's multicast of identical tiles does: 8 rows x
        // 2 channels x 8 columns (3, then one a step) x 4 K steps = 512, the simulator's count. The per-case
        // tables (two SpatialMaps in a level: no step walk) take the clusters' fetches over the union of
        // their PEs' rows, 8 of the 18 (until 2026-11-29 they added them up: 1152). 72 weights; 144 updates.
        QTest::newRow("row-stationary")
            << "Network n { Layer RS { Type: CONV Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 8, X: 8 } Dataflow "
               "{"
               " TemporalMap(1,1) K; TemporalMap(2,2) C; SpatialMap(3,1) Y; Cluster(3,P); SpatialMap(1,1) Y;"
               " SpatialMap(1,1) R; TemporalMap(3,3) S; TemporalMap(3,1) X; } } }"
            << 18 << "pe: C=2 S=3 | x: R=3 | y: P=6 | gb: Q=6 | dram: K=4"
            << "macs=2592 gb:Inputs=512 gb:Weights=72 updates=144";
        // The PEs' level steps K by 2 over the 8 a cluster holds, the PE's tile has 2: K=2 in the PE buffer,
        // K=4 in the global buffer. Per channel 9 + 3 x 3 inputs a row (18 x 4 x 4 = 288); the PE holds 2 of
        // the 8 filters at a time, so each output position fetches all 72 of its channel again (16 positions
        // x 4 channels x 72 = 4608).
        QTest::newRow("K twice in the PE") << conv.arg(
            "SpatialMap(1,1) C; TemporalMap(8,8) K; TemporalMap(3,1) Y; TemporalMap(3,1) X;"
            " Cluster(2,P); SpatialMap(3,1) Y; TemporalMap(2,2) K; TemporalMap(3,3) R;"
            " TemporalMap(3,3) S;") << 16 << "pe: K=2 R=3 S=3 | x: C=4 | y:  | gb: K=4 | dram: P=4 Q=4"
                                           << "macs=4608 gb:Inputs=288 gb:Weights=4608 updates=128";
        // Output rows stepped between two fan-outs (refused until the cluster levels' steps became
        // global-buffer loops). Inputs per channel and K fold: the 2 PEs take output columns 0, 1 then 2, 3
        // of each of the 4 rows: 9 + 9 at the first frame, then each PE keeps one column of its window (6 +
        // 6), at the next row two elements (7 + 7): 18 + 12 + 3 x (14 + 12) = 108, 4 channels, 4 K folds:
        // 1728.
        QTest::newRow("steps between fan-outs")
            << conv.arg("SpatialMap(1,1) K; Cluster(4,P); SpatialMap(1,1) C; TemporalMap(3,1) Y;"
                        " Cluster(2,P); SpatialMap(3,1) X;")
            << 16 << "pe: R=3 S=3 | x: Q=2 | y: K=2 C=4 | gb: P=4 Q=2 | dram: K=4"
            << "macs=4608 gb:Inputs=1728 gb:Weights=288 updates=128";
        // K by 4 at level 1 and by 2 at level 2 with nothing between them: one K=4 global-buffer loop outside
        // P and Q. The inputs are sent again for each of the 4 K tiles (4 x 288), the weights once.
        QTest::newRow("K twice in the global buffer")
            << conv.arg("SpatialMap(8,8) K; TemporalMap(6,6) Y; TemporalMap(6,6) X; Cluster(1,P);"
                        " TemporalMap(4,4) K; SpatialMap(6,6) Y; TemporalMap(6,6) X; Cluster(4,P);"
                        " SpatialMap(1,1) C; TemporalMap(2,2) K; TemporalMap(3,1) Y; TemporalMap(3,1) X;")
            << 16 << "pe: R=3 S=3 K=2 | x: C=4 | y:  | gb: K=4 P=4 Q=4 | dram: "
            << "macs=4608 gb:Inputs=1152 gb:Weights=288 updates=128";
    }
    void newForms()
    {
        QFETCH(QString, text);
        QFETCH(int, pes);
        QFETCH(QString, loops);
        QFETCH(QString, counts);
        const TimeloopLayer l = timeloopLayerOf(text.toStdString());
        arch::Accelerator acc = acceleratorOfPes(pes);
        acc.l2Bytes = 65536;
        const auto e = timeloop::translateMdc("L", l.problem, l.dataflow, acc);
        QVERIFY2(e.ok(), e.reason.c_str());
        const auto& m = *e.mapping;
        QCOMPARE(QString::fromStdString("pe: " + loopsText(m.peBuffer) + " | x: " + loopsText(m.spatialX)
                     + " | y: " + loopsText(m.spatialY) + " | gb: " + loopsText(m.globalBuffer)
                     + " | dram: " + loopsText(m.dram)),
            loops);
        const auto c = timeloop::ourCounts(l.problem, l.dataflow, acc, *e.mapping);
        std::ostringstream got;
        got << "macs=" << c.macs << " gb:Inputs=" << countOf(c.globalBufferReads, "Inputs")
            << " gb:Weights=" << countOf(c.globalBufferReads, "Weights") << " updates=" << c.outputUpdates;
        QCOMPARE(QString::fromStdString(got.str()), counts);
#if MARVEL_HAVE_YAML_CPP
        checkTimeloopStructure(readBackTimeloop(e.files), m.pesUsed());
#endif
    }

    // --timeloop-compatible's tile rule (timeloop::restrictSearch: dividing tiles only) skips only tiles the
    // filter would refuse whatever their order: the search with it finds a best as good as the filter alone
    // finds (runtime, EDP: the objectives the bounds prune) without the widening to tile sizes that do not
    // divide, whose mappings the filter all refuses; it exports.
    void restrictedSearchKeepsTheBest()
    {
        const ir::Operator op
            = ir::parseOperator(workloads::conv2dLoopText(4, 4, 4, 4, 3, 3, 1, 1), "tl.loop");
        const arch::Accelerator acc = sixteenPes();
        for (auto objective : {search::Objective::Runtime, search::Objective::Edp}) {
            search::SearchOptions filterOnly;
            filterOnly.objective = objective;
            filterOnly.refine = false;
            filterOnly.widenAboveRoofline = 1; // widen whenever above the roofline (runtime objective)
            filterOnly.threads = 1;
            timeloop::Options searched; // the filter of restrictSearch's space, without its tile rules
            searched.searchSpaceOnly = true;
            filterOnly.constraint.dataflowFilter = timeloop::searchFilter(searched);
            search::SearchOptions ruled = filterOnly;
            timeloop::restrictSearch(ruled.constraint);
            const auto a = search::searchLayer(op, acc, filterOnly).result;
            const auto b = search::searchLayer(op, acc, ruled).result;
            QVERIFY(a.bestRuntime && b.bestRuntime && a.bestEdp && b.bestEdp);
            if (objective == search::Objective::Runtime)
                QCOMPARE(b.bestRuntime->metrics.runtime, a.bestRuntime->metrics.runtime);
            else
                QCOMPARE(b.bestEdp->metrics.edp(), a.bestEdp->metrics.edp());
            qInfo("%s: %llu mappings refused with the filter alone, %llu with the tile rules",
                search::toString(objective).c_str(), static_cast<unsigned long long>(a.stats.rejected),
                static_cast<unsigned long long>(b.stats.rejected));
            QVERIFY(b.stats.rejected < a.stats.rejected);
            QCOMPARE(a.stats.widened, objective == search::Objective::Runtime);
            QVERIFY(!b.stats.widened);
            const cost::Problem problem = cost::fromOperator(op);
            QVERIFY(timeloop::translateMdc("tl", problem, b.bestRuntime->dataflow, acc).ok());
        }
    }

    // The wide space (`--timeloop-space wide`): every mapping the export writes, dividing tiles only. Its
    // tile rule skips only what the export's filter refuses, so the search finds the filter's best, and it
    // exports. K 2, C 2, 2x2 outputs, 3x3 taps (144 MACs) on 16 PEs: two loops of these over the PEs (the
    // narrow space's most, filter rows whole in each PE) fill at most 4 of them; the wide space spreads
    // three, and its best is faster.
    void wideSpaceKeepsTheExportsBest()
    {
        const ir::Operator op
            = ir::parseOperator(workloads::conv2dLoopText(2, 2, 2, 2, 3, 3, 1, 1), "tl.loop");
        const arch::Accelerator acc = sixteenPes();
        search::SearchOptions filterOnly;
        filterOnly.refine = false;
        filterOnly.widenAboveRoofline = 0;
        filterOnly.threads = 1;
        filterOnly.constraint.dataflowFilter = timeloop::searchFilter(); // what the export takes
        filterOnly.constraint.tileRules.dividingTilesOnly = true;
        search::SearchOptions wide = filterOnly, narrow = filterOnly;
        timeloop::restrictSearch(wide.constraint, {}, timeloop::SearchSpace::Wide);
        timeloop::restrictSearch(narrow.constraint, {}, timeloop::SearchSpace::Narrow);
        const auto a = search::searchLayer(op, acc, filterOnly).result;
        const auto w = search::searchLayer(op, acc, wide).result;
        const auto n = search::searchLayer(op, acc, narrow).result;
        QVERIFY(a.bestRuntime && w.bestRuntime && n.bestRuntime);
        QCOMPARE(w.bestRuntime->metrics.runtime, a.bestRuntime->metrics.runtime);
        QVERIFY(w.bestRuntime->metrics.runtime < n.bestRuntime->metrics.runtime);
        QVERIFY(w.stats.evaluated > n.stats.evaluated); // it searched mappings the narrow space leaves out
        qInfo("wide %lld cycles (%llu mappings), narrow %lld (%llu)",
            static_cast<long long>(w.bestRuntime->metrics.runtime),
            static_cast<unsigned long long>(w.stats.evaluated),
            static_cast<long long>(n.bestRuntime->metrics.runtime),
            static_cast<unsigned long long>(n.stats.evaluated));
        const cost::Problem problem = cost::fromOperator(op);
        QVERIFY(timeloop::translateMdc("tl", problem, w.bestRuntime->dataflow, acc).ok());
    }

    // A dilated convolution (dilation 2; MAESTRO's text has no dilation, so it is set on Y and X after
    // reading): K 2, C 1, 3x3 taps over 7x7 (3x3 outputs), a K per PE, one output per step, rows outer.
    // Weights 9 per PE (18); inputs, sent once to both PEs: the 5x5 patch of the first output (25), then 5
    // new columns per step (35 a row); the next row's first patch keeps rows 1-4 x columns 2-4 (12) of the
    // last one, 13 new, 23 a row: 81 in all; 2 x 9 updates; DRAM reads each tensor once (49, 18).
    // The export writes the mapping the search costed: every loop of the top level (the level-3 inter-tile
    // loops of mapping::toMdc) is a DRAM loop in its order, so the DRAM counts of the exported tiling equal
    // the search's, also when the top level fans out. ResNet-50's conv1 (7x7, stride 2) on Edge 1024 with
    // DRAM: the search costs 2,130,912 DRAM reads; when the global buffer kept the top level's inner loops
    // that fit, the export described a larger L2 tile and 166,731.
    void exportsTheCostedTiling_data()
    {
        QTest::addColumn<QString>("loop");
        QTest::newRow("res5a_branch2b")
            << QString::fromStdString(workloads::conv2dLoopText(512, 512, 7, 7, 3, 3, 1, 1));
        QTest::newRow("conv1") << QString::fromStdString(
            workloads::conv2dLoopText(64, 3, 112, 112, 7, 7, 2, 2));
    }
    void exportsTheCostedTiling()
    {
        QFETCH(QString, loop);
        const ir::Operator op = ir::parseOperator(loop.toStdString(), "l.loop");
        const arch::Accelerator acc
            = arch::loadAccelerator(std::string(MARVEL_SAMPLES_DIR) + "/accelerators/edge1024_dram.json");
        search::SearchOptions o;
        o.threads = 1;
        timeloop::restrictSearch(o.constraint);
        const auto r = search::searchLayer(op, acc, o);
        QVERIFY(r.result.bestRuntime);
        const auto& best = *r.result.bestRuntime;
        const auto e = timeloop::translateMdc("l", r.problem, best.dataflow, acc);
        QVERIFY2(e.ok(), e.reason.c_str());
        const auto c = timeloop::ourCounts(r.problem, best.dataflow, acc, *e.mapping);
        i64 reads = 0;
        for (const auto& [name, n] : c.dramReads)
            reads += n;
        QCOMPARE(reads, best.metrics.dramReads);
        QCOMPARE(c.outputDramWrites, best.metrics.dramWrites);
    }

    // Data spaces are named by role: without a window the activations are the input sharing more
    // dimensions with the output, whichever the statement names first (a 1x1 convolution's weights were
    // exported as Inputs); a GEMM's first input stays Inputs.
    void dataSpacesByRole_data()
    {
        QTest::addColumn<QString>("loop");
        QTest::addColumn<QString>("names");
        QTest::newRow("1x1 convolution, weights first")
            << "operator pw(K = 8, C = 4, Y = 3, X = 3) { for (int k = 0; k < K; k++) for (int c = 0; c < C; "
               "c++) for (int y = 0; y < Y; y++) for (int x = 0; x < X; x++) O[k][y][x] += W[k][c] * "
               "I[c][y][x]; }"
            << "W=Weights I=Inputs O=Outputs";
        QTest::newRow("GEMM") << "operator g(M = 4, N = 4, K = 8) { for (int m = 0; m < M; m++) for (int n = "
                                 "0; n < N; n++) for "
                                 "(int k = 0; k < K; k++) C[m][n] += A[m][k] * B[k][n]; }"
                              << "A=Inputs B=Weights C=Outputs";
    }
    void dataSpacesByRole()
    {
        QFETCH(QString, loop);
        QFETCH(QString, names);
        const cost::Problem p = cost::fromOperator(ir::parseOperator(loop.toStdString(), "op.loop"));
        const auto spaces = timeloop::dataSpaceNames(p);
        QStringList got;
        for (std::size_t i = 0; i < p.tensors.size(); ++i)
            got << QString::fromStdString(p.tensors[i].name + "=" + spaces[i]);
        got.sort();
        QStringList want = names.split(' ');
        want.sort();
        QCOMPARE(got, want);
    }

    void dilatedLayer()
    {
        mdc::Network n = mdc::readMaestroMapping(
            "Network n { Layer D { Type: CONV Dimensions { K: 2, C: 1, R: 3, S: 3, Y: 7, X: 7 } Dataflow {"
            " SpatialMap(1,1) K; TemporalMap(3,3) R; TemporalMap(3,3) S; TemporalMap(5,1) Y;"
            " TemporalMap(5,1) X; } } }",
            "dilated.m");
        mdc::Layer& layer = n.layers.at(0);
        for (auto& d : layer.dims)
            if (d.name == "Y" || d.name == "X") d.dilation = 2;
        const TimeloopLayer l{cost::fromMaestroLayer(layer), layer.dataflow};
        const arch::Accelerator acc = acceleratorOfPes(2);
        const auto e = timeloop::translateMdc("D", l.problem, l.dataflow, acc);
        QVERIFY2(e.ok(), e.reason.c_str());
        QCOMPARE(QString::fromStdString(loopsText(e.mapping->spatialX)), QString("K=2"));
        QCOMPARE(QString::fromStdString(loopsText(e.mapping->globalBuffer)), QString("P=3 Q=3"));
        QCOMPARE(e.mapping->factorProduct("P"), i64(3));
        QCOMPARE(e.mapping->factorProduct("R"), i64(3));
        QCOMPARE(countOf(e.mapping->coefficients, "Wdilation"), i64(2));
        QCOMPARE(countOf(e.mapping->coefficients, "Hdilation"), i64(2));
        QCOMPARE(countOf(e.mapping->coefficients, "Wstride"), i64(1));
        QVERIFY2(
            e.files.problem.find("    Wdilation: 2\n    Hstride: 1\n    Hdilation: 2\n") != std::string::npos,
            e.files.problem.c_str());
        QVERIFY2(e.files.problem.find("- [ [R, Wdilation], [P, Wstride] ]") != std::string::npos,
            e.files.problem.c_str());
        const auto c = timeloop::ourCounts(l.problem, l.dataflow, acc, *e.mapping);
        QCOMPARE(c.macs, i64(162));
        QCOMPARE(countOf(c.globalBufferReads, "Inputs"), i64(81));
        QCOMPARE(countOf(c.globalBufferReads, "Weights"), i64(18));
        QCOMPARE(c.outputUpdates, i64(18));
        QCOMPARE(countOf(c.dramReads, "Inputs"), i64(49));
        QCOMPARE(countOf(c.dramReads, "Weights"), i64(18));
        QCOMPARE(c.outputDramWrites, i64(18));
#if MARVEL_HAVE_YAML_CPP
        const YAML::Node all = readBackTimeloop(e.files);
        checkTimeloopStructure(all, 2);
        QCOMPARE(all["problem"]["instance"]["P"].as<i64>(), i64(3));
        QCOMPARE(all["problem"]["instance"]["Q"].as<i64>(), i64(3));
        QCOMPARE(all["problem"]["instance"]["Wdilation"].as<i64>(), i64(2));
        QCOMPARE(all["problem"]["instance"]["Hdilation"].as<i64>(), i64(2));
#endif
    }

    // Mappings Timeloop cannot express get a message naming the directive and why.
    void notTranslatable_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("pes");
        QTest::addColumn<QString>("message");
        const QString conv
            = "Network n { Layer L { Type: CONV Dimensions { K: %1, C: 4, R: 3, S: 3, Y: 6, X: 6 }"
              " Dataflow { %2 } } }";
        QTest::newRow("overlap on K")
            << conv.arg(8).arg(
                   "SpatialMap(1,1) C; TemporalMap(2,1) K; TemporalMap(3,1) Y; TemporalMap(3,1) X;")
            << 4 << "TemporalMap(2,1) K (line 1): tiles of 2 at offset 1 overlap on K";
        // Filter rows spread alone: the 3 PEs hold the same input rows, PE r completes the outputs r rows
        // above them (clipped at the edges), where Timeloop's spatial R keeps the PEs on the same outputs and
        // shifts their input rows; whatever the input tiles, another dataflow (in the random mappings of
        // `marvel bench sim --exportable wide`, every such export counted other global-buffer traffic than
        // Timeloop, 17 of 31 other MACs).
        QTest::newRow("filter rows spread alone")
            << conv.arg(8).arg("SpatialMap(1,1) R; TemporalMap(4,1) Y; TemporalMap(3,1) X;") << 4
            << "SpatialMap(1,1) R (line 1): the filter dimension R is spread over sub-units that hold the "
               "same input rows, so each completes outputs shifted by its taps";
        // The same one level down, under a cluster level that steps the input rows.
        QTest::newRow("filter columns spread in a cluster")
            << conv.arg(8).arg("SpatialMap(1,1) K; TemporalMap(3,1) Y; TemporalMap(3,1) X; Cluster(3,P);"
                               " SpatialMap(1,1) S;")
            << 12 << "SpatialMap(1,1) S (line 1): the filter dimension S is spread over sub-units";
        // A row-stationary pair whose input rows per PE are not those of the 4 output rows in force.
        QTest::newRow("row-stationary pair")
            << conv.arg(8).arg("SpatialMap(1,1) Y; SpatialMap(1,1) R; TemporalMap(3,1) X;") << 4
            << "SpatialMap(1,1) Y (line 1): with 1 filter row(s) of R per PE, each PE's input rows for the 4 "
               "output rows in force are 4 at offset 1 (row-stationary)";
        QTest::newRow("remainder")
            << conv.arg(10).arg("SpatialMap(1,1) K; TemporalMap(3,1) Y; TemporalMap(3,1) X;") << 4
            << "SpatialMap(1,1) K (line 1): 10 tiles over 4 sub-units leave a partial fold";
        QTest::newRow("two spatial maps") << conv.arg(8).arg(
            "SpatialMap(1,1) K; SpatialMap(1,1) C; TemporalMap(3,1) Y; TemporalMap(3,1) X;")
                                          << 4 << "a second SpatialMap in one cluster level";
        // K by 4 at level 1 and by 2 at level 2 with the columns stepping between them: one K loop in the
        // global buffer would move K's inner steps outside the columns.
        QTest::newRow("K apart in the global buffer")
            << conv.arg(8).arg("SpatialMap(8,8) K; TemporalMap(6,6) Y; TemporalMap(6,6) X; Cluster(1,P);"
                               " TemporalMap(4,4) K; SpatialMap(6,6) Y; TemporalMap(3,1) X; Cluster(4,P);"
                               " SpatialMap(1,1) C; TemporalMap(2,2) K; TemporalMap(3,1) Y;")
            << 16
            << "dimension K steps in two cluster levels whose loops land in the global buffer with Q "
               "stepping between them";
        QTest::newRow("window offset")
            << conv.arg(8).arg("SpatialMap(1,1) K; TemporalMap(4,1) Y; TemporalMap(3,1) X;") << 4
            << "TemporalMap(4,1) Y (line 1): the offset 1 is not the tile's 2 output row(s) x stride 1";
    }
    void notTranslatable()
    {
        QFETCH(QString, text);
        QFETCH(int, pes);
        QFETCH(QString, message);
        const auto e = exportOnPes(timeloopLayerOf(text.toStdString()), pes);
        QVERIFY(!e.ok());
        QVERIFY2(QString::fromStdString(e.reason).contains(message), e.reason.c_str());
    }
};

QTEST_APPLESS_MAIN(TstTimeloopExport)
#include "tst_timeloop_export.moc"
