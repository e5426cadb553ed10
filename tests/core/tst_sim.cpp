// The simulator (core/sim): frames of tiny mappings cell by cell against tables worked out by hand,
// recomputation, the size limit, lazy frames, and the check of the cost model (corrected fidelity) on a
// random set of mappings.
#include <QTest>

#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/sim/model_check.h"
#include "core/sim/simulator.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using Dir = mdc::Directive;

using marvel::testsupport::spatialOnTap;
namespace {

// The paper's CONV1D in the style of its MDC figure: 5 outputs, 3 taps, inputs I[0..6].
const char* kSimConv1d = R"(operator conv1d(X = 5, S = 3) {
  for (x = 0; x < X; x++)
    for (s = 0; s < S; s++)
      O[x] += W[s] * I[x + s];
})";

arch::Accelerator hw(std::int64_t pes, std::int64_t bw, std::int64_t latency)
{
    arch::Accelerator a;
    a.numPes = pes;
    a.nocBandwidth = bw;
    a.nocLatency = latency;
    a.offchipBandwidth = 1000000;
    return a;
}

// Operators of the hand-worked rows, their sizes as arguments (%1, %2, ...).
const QString kRuleConv1d = "operator conv1d(K = %1, C = %2, X = %3, S = %4) { for (k = 0; k < K; k++)"
                            " for (c = 0; c < C; c++) for (x = 0; x < X; x++) for (s = 0; s < S; s++)"
                            " O[k][x] += W[k][c][s] * I[c][x + s]; }";
const QString kRuleConv2d = "operator conv2d(K = %1, C = %2, Y = %3, X = %4, R = %5, S = %6) {"
                            " for (k = 0; k < K; k++) for (c = 0; c < C; c++) for (y = 0; y < Y; y++)"
                            " for (x = 0; x < X; x++) for (r = 0; r < R; r++) for (s = 0; s < S; s++)"
                            " O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s]; }";
const QString kRuleDepthwise = "operator dw(C = %1, Y = %2, X = %3, R = %4, S = %5) { for (c = 0; c < C; c++)"
                               " for (y = 0; y < Y; y++) for (x = 0; x < X; x++) for (r = 0; r < R; r++)"
                               " for (s = 0; s < S; s++) O[c][y][x] += W[c][r][s] * I[c][y + r][x + s]; }";

// The directives `flow` over the problem's dimensions.
mdc::Dataflow directivesOf(const cost::Problem& p, const QString& flow, const std::string& fileName)
{
    std::vector<mdc::LayerDim> dims;
    for (const auto& d : p.dims)
        dims.push_back(mdc::LayerDim{d.name, d.size});
    return mdc::readDirectives(flow.toStdString(), dims, fileName);
}

// The simulator, the cost model's step walk and its per-case tables alone against one hand-worked figure
// `want`, "I W O": every input's L2 reads, then the output's L2 writes (after the runtime with
// `withRuntime`; then every input's L1 writes with `withL1Writes`).
void checkTrafficByHand(const cost::Problem& p, const mdc::Dataflow& df, const arch::Accelerator& a,
    const QString& want, bool withRuntime = false, bool withL1Writes = false)
{
    const sim::Totals t = sim::simulate(p, df, a);
    QStringList simulated;
    if (withRuntime) simulated << QString::number(t.runtimeCycles);
    for (const auto& x : t.tensors)
        simulated << QString::number(x.output ? x.l2Writes : x.l2Reads);
    for (const auto& x : t.tensors)
        if (withL1Writes && !x.output) simulated << QString::number(x.l1Writes);
    QCOMPARE(simulated.join(' '), want);
    for (bool walk : {true, false}) {
        cost::Options o;
        o.fidelity = cost::Fidelity::Corrected;
        o.stepWalk = walk;
        const cost::Result r = cost::Evaluator(p, a, o).evaluate(df);
        QStringList model;
        if (withRuntime) model << QString::number(r.m.runtimeCycles);
        for (int k = 0; k < r.m.numTensors; ++k) {
            const auto& c = r.m.tensors[size_t(k)];
            model << QString::number(k + 1 < r.m.numTensors ? c.l2Read : c.l2Write);
        }
        for (int k = 0; withL1Writes && k + 1 < r.m.numTensors; ++k)
            model << QString::number(r.m.tensors[size_t(k)].l1Write);
        QCOMPARE(model.join(' '), want);
    }
}

int tensorIndex(const sim::Layout& lay, const std::string& name)
{
    for (size_t t = 0; t < lay.tensors.size(); ++t)
        if (lay.tensors[t].name == name) return int(t);
    return -1;
}

const char* kSimEx1 = R"(Network Tiny { Layer L1 { Type: CONV Stride { X: 1, Y: 1 }
  Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 6, X: 6 }
  Dataflow { SpatialMap(1,1) K; TemporalMap(1,1) C; TemporalMap(Sz(R),1) Y; TemporalMap(Sz(S),1) X;
             TemporalMap(Sz(R),Sz(R)) R; TemporalMap(Sz(S),Sz(S)) S; } } })";

// Output x of O[k][x] += W[k][c][s] * I[c][x + s] over 7 outputs and 2 taps.
const char* kConv1dKcs = R"(operator conv1d(K = 3, C = 1, X = 7, S = 2) {
  for (k = 0; k < K; k++)
    for (c = 0; c < C; c++)
      for (x = 0; x < X; x++)
        for (s = 0; s < S; s++)
          O[k][x] += W[k][c][s] * I[c][x + s];
})";

} // namespace

Q_DECLARE_METATYPE(marvel::arch::Multicast)

class TestSim : public QObject
{
    Q_OBJECT
private slots:
    // SpatialMap(1,1) X; TemporalMap(3,3) S on 3 PEs, NoC 1 element/cycle, latency 1. X is rewritten to
    // input tiles of 3 rows, offset 1: 5 tiles, 2 folds (PEs 0-2, then PEs 0-1).
    //   frame 0: W[0,3) to every PE (3 arrive each, multicast x3); I[0,3), I[1,4), I[2,5) (5 distinct,
    //            element 2 goes to 3 PEs); 3 MACs each; outputs 0, 1, 2 returned.
    //            ingress delay 1 + (3 + 5) - 1 = 8, compute 3, egress 3: first step 8 + 3 = 11.
    //   frame 1: W stays (3 kept); PE0 I[3,6) and PE1 I[4,7): nothing kept, 4 distinct (4, 5 go to both);
    //            PE2 idle; outputs 3, 4. ingress 4, compute 3, egress 2: max = 4.
    //   totals: runtime 15, 15 MACs, I read 5 + 4 = 9 from L2 and written 9 + 6 = 15 times into L1s,
    //           W read 3 and written 9 times, 5 partial sums returned.
    void conv1dFramesByHand()
    {
        const cost::Problem p = cost::fromOperator(ir::parseOperator(kSimConv1d, "conv1d.loop"));
        const mdc::Dataflow df = {Dir::spatial(1, 1, "X"), Dir::temporal(3, 3, "S")};
        sim::Simulator s(p, df, hw(3, 1, 1));
        const sim::Layout& lay = s.layout();
        QCOMPARE(lay.pes, 3);
        QCOMPARE(lay.levels.size(), size_t(1));
        QCOMPARE(lay.levels[0].directives,
            (std::vector<std::string>{"SpatialMap(3,1) X+S", "TemporalMap(3,3) S"}));
        const int I = tensorIndex(lay, "I"), W = tensorIndex(lay, "W"), O = tensorIndex(lay, "O");
        QVERIFY(I >= 0 && W >= 0 && O >= 0);
        QVERIFY(lay.tensors[size_t(O)].output);

        std::vector<sim::Frame> frames;
        const sim::Totals t = s.run([&](const sim::Frame& f) {
            frames.push_back(f);
            return true;
        });
        QCOMPARE(frames.size(), size_t(2));
        struct Cell
        {
            int frame, pe;
            std::int64_t iBegin, iEnd, iArrived, iKept, iFan, wArrived, wKept, wFan, macs, out;
        };
        const Cell table[] = {
            {0, 0, 0, 3, 3, 0, 3, 3, 0, 3, 3, 0},
            {0, 1, 1, 4, 3, 0, 3, 3, 0, 3, 3, 1},
            {0, 2, 2, 5, 3, 0, 3, 3, 0, 3, 3, 2},
            {1, 0, 3, 6, 3, 0, 2, 0, 3, 0, 3, 3},
            {1, 1, 4, 7, 3, 0, 2, 0, 3, 0, 3, 4},
        };
        for (const Cell& c : table) {
            const sim::PeState& pe = frames[size_t(c.frame)].pes[size_t(c.pe)];
            const QByteArray where
                = "frame " + QByteArray::number(c.frame) + " PE " + QByteArray::number(c.pe);
            QVERIFY2(pe.active, where);
            QCOMPARE(pe.macs, c.macs);
            const auto& in = pe.tensors[size_t(I)];
            QCOMPARE(in.ranges.at(0), (sim::Range{c.iBegin, c.iEnd}));
            QCOMPARE(in.arrived, c.iArrived);
            QCOMPARE(in.stayed, c.iKept);
            QCOMPARE(in.fanout, c.iFan);
            const auto& w = pe.tensors[size_t(W)];
            QCOMPARE(w.ranges.at(0), (sim::Range{0, 3}));
            QCOMPARE(w.arrived, c.wArrived);
            QCOMPARE(w.stayed, c.wKept);
            QCOMPARE(w.fanout, c.wFan);
            const auto& o = pe.tensors[size_t(O)];
            QCOMPARE(o.ranges.at(0), (sim::Range{c.out, c.out + 1}));
            QCOMPARE(o.sent, 1);
        }
        QVERIFY(!frames[1].pes[2].active);
        QCOMPARE(frames[1].pes[2].macs, 0);
        QCOMPARE(frames[0].levels[0].ingress, 8);
        QCOMPARE(frames[0].levels[0].compute, 3);
        QCOMPARE(frames[0].levels[0].egress, 3);
        QCOMPARE(frames[0].levels[0].cycles, 11);
        QCOMPARE(frames[1].levels[0].ingress, 4);
        QCOMPARE(frames[1].levels[0].egress, 2);
        QCOMPARE(frames[1].levels[0].cycles, 4);

        QCOMPARE(t.runtimeCycles, 15);
        QCOMPARE(t.macs, 15);
        QCOMPARE(t.recomputedMacs, 0);
        QCOMPARE(t.steps, 2);
        QCOMPARE(t.frames, 2);
        QCOMPARE(t.tensors[size_t(I)].l2Reads, 9);
        QCOMPARE(t.tensors[size_t(I)].l1Writes, 15);
        QCOMPARE(t.tensors[size_t(W)].l2Reads, 3);
        QCOMPARE(t.tensors[size_t(W)].l1Writes, 9);
        QCOMPARE(t.tensors[size_t(O)].l2Writes, 5);
        QCOMPARE(t.tensors[size_t(O)].l1Writes, 15);

        // The corrected cost model gives the same numbers.
        cost::Options o;
        o.fidelity = cost::Fidelity::Corrected;
        const cost::Result r = cost::Evaluator(p, hw(3, 1, 1), o).evaluate(df);
        QCOMPARE(r.m.runtimeCycles, 15);
        for (int k = 0; k < r.m.numTensors; ++k) {
            const int st = tensorIndex(lay, r.tensorNames[size_t(k)]);
            if (k + 1 < r.m.numTensors) {
                QCOMPARE(r.m.tensors[size_t(k)].l2Read, t.tensors[size_t(st)].l2Reads);
                QCOMPARE(r.m.tensors[size_t(k)].l1Write, t.tensors[size_t(st)].l1Writes);
            } else {
                QCOMPARE(r.m.tensors[size_t(k)].l2Write, 5);
            }
        }
    }

    // The global buffer's traffic (doc/cost-model.md, "Global-buffer traffic"), worked by hand, equal in the
    // simulator, the step walk and the per-case tables, and in Timeloop 4cf6d4c on the exports of the same
    // mappings (each count of the Elements column but the DSCONV input, which Timeloop counts as Tiles).
    void globalBufferTrafficByHand_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("elements"); // L2 reads per input-class tensor, then output updates
        QTest::addColumn<QString>("tiles");
        QTest::addColumn<QString>("none");
        // GEMM M 4 N 4 K 8 on 4 PEs, level 0 the whole array stepping over two DRAM tiles of 2 columns of
        // N, level 1 a row of M per PE and a column of N per step. A: each PE keeps its row of 8 through
        // both DRAM tiles (the N steps do not index A), 32 sent; B: a column of 8 to all four PEs per step,
        // 4 x 8 = 32 (each PE its own copy without multicast: 128); C: each step's 4 outputs return when
        // the next step moves to another column, 16. Counted only at level 0 (the first version), A and B
        // left L2 once per DRAM tile (16, 32) and the outputs once (16) however often the PEs fetched.
        QTest::newRow("DRAM tiles")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 4, N: 4, K: 8 } Dataflow {"
               " TemporalMap(2,2) N; SpatialMap(8,8) K; Cluster(4,P); SpatialMap(1,1) M; TemporalMap(1,1) N;"
               " TemporalMap(8,8) K; } } }"
            << "32 32 16"
            << "32 32 16"
            << "32 128 16";
        // The same GEMM with K in 4 steps of 2 inside each column: each PE keeps its output's partial sum
        // through the 4 K steps and returns it once, 16 updates (a return every step: 64); A's 2-element
        // chunk changes every step, 4 PEs x 2 x 16 steps = 128; B's chunk of 2 goes to all four, 32.
        QTest::newRow("partial sums kept")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 4, N: 4, K: 8 } Dataflow {"
               " SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(2,2) K; } } }"
            << "128 32 16"
            << "128 32 16"
            << "128 128 16";
        // GEMM M 2 N 4 K 2 on 2 clusters of 2 PEs: a row of M per cluster, in it a column of N per PE in 2
        // folds, K in 2 steps inside each fold (4 frames). A PE's L1 holds one step's tile, so at every frame
        // each PE takes a new A element, which its cluster's other PE takes too: 2 sends a frame, 8 (each
        // PE's own: 16); B: the PEs at the same place in both clusters take the same element, 8 (16); each PE
        // keeps its output through the K steps and returns it when the fold moves on, 8. Counted at the
        // clusters, as if each kept its row of A through the folds, A took 4 sends.
        QTest::newRow("clusters")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 2, N: 4, K: 2 } Dataflow {"
               " TemporalMap(2,2) K; TemporalMap(4,4) N; SpatialMap(1,1) M; Cluster(2,P); SpatialMap(1,1) N;"
               " TemporalMap(1,1) K; } } }"
            << "8 8 8"
            << "8 8 8"
            << "16 16 8";
        // Depth-wise 3 taps over 6 input rows (4 outputs) of 2 channels, an output row per PE: each PE
        // needs 3 input rows, neighbours share 2. Multicast of elements sends the 6 rows once per channel
        // (12); of identical tiles only, every PE its 3 rows (24, Timeloop's count); the taps go to all
        // four PEs (6, without multicast 24); 8 outputs.
        // Overlapping clusters (gap (a) of the per-case tables, closed): GEMM M 2 N 3 K 2 on 2 clusters of 2
        // PEs, the clusters' columns of N [0, 2) and [1, 3), a column per PE, so PE 1 of cluster 0 and PE 0
        // of cluster 1 both hold column 1 (and compute its outputs twice). B: the 3 columns of 2 once (6),
        // kept through the 2 rows of M; each PE's own copy without multicast (8); tile multicast sends the
        // two identical tiles once (6). A: the row's 2 elements to all four PEs per row of M, 4 (16).
        // Outputs: the 3 columns per row, the two copies of column 1 reduced in the frame: 6. Until
        // 2026-11-29 the tables added the clusters' counts up, as if their tiles were disjoint: B 8 and 8
        // updates.
        QTest::newRow("overlapping clusters")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 2, N: 3, K: 2 } Dataflow {"
               " TemporalMap(1,1) M; SpatialMap(2,1) N; TemporalMap(2,2) K; Cluster(2,P); SpatialMap(1,1) N;"
               " } } }"
            << "4 6 6"
            << "4 6 6"
            << "16 8 6";
        // Gap (b): GEMM M 2 N 4 K 2, level 0 the whole array stepping a window of 2 columns of N by 1, a K
        // per PE (2 of the 4 busy). Each step's child execution starts with what the PEs held at the last:
        // B, each PE keeps one of its 2 columns, 2 x 2 at the first step and 2 at each of the 2 others, 8; A,
        // each PE's column of 2 stays, 4; outputs, the PEs' partial sums of a column return when the window
        // leaves it (2 and 2, then the last 4 at the end), 8. Until 2026-11-29 the tables counted each child
        // execution from empty buffers: B 12 and 12 updates.
        QTest::newRow("kept across executions")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 2, N: 4, K: 2 } Dataflow {"
               " TemporalMap(2,1) N; SpatialMap(2,2) K; Cluster(4,P); SpatialMap(1,1) K; } } }"
            << "4 8 8"
            << "4 8 8"
            << "4 8 8";
        // The same over three levels: a K per cluster of 2 PEs, a row of M per PE. B: the 2 PEs of a cluster
        // share their row of K (one send), each keeps one of its 2 columns at each step: 4, then 2 and 2, 8;
        // A: each PE's element stays, 4; outputs: 2 rows of the column the window leaves at each step, the
        // last 2 columns at the end, 8 (the two clusters' partial sums reduced).
        QTest::newRow("kept across executions, three levels")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 2, N: 4, K: 2 } Dataflow {"
               " TemporalMap(2,1) N; SpatialMap(2,2) K; Cluster(2,P); SpatialMap(1,1) K; Cluster(2,P);"
               " SpatialMap(1,1) M; } } }"
            << "4 8 8"
            << "4 8 8"
            << "4 16 8";
        // Gap (c): GEMM M 1 N 1 K 5 on 2 clusters of 2 PEs, the clusters' K tiles of 3 at offset 1 (2 folds),
        // in each 2 and 1 to the PEs. Fold 0: PE tiles [0,2), [2,3), [1,3), [3,4), 4 elements of A and of B;
        // fold 1 (cluster 0 only, [2,5)): its PEs take [2,4) and [4,5), keeping nothing of [0,2) and [2,3),
        // 3 more: 7 each. The cluster's tile keeps [2,3), which its PEs do not: until 2026-11-29 the tables
        // counted 6. Each PE its own tiles (no multicast; none identical): 6 + 3 = 9. The outputs' partial
        // sums (one output) return once.
        QTest::newRow("PE tiles under a moving cluster tile")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 1, N: 1, K: 5 } Dataflow {"
               " SpatialMap(3,1) K; Cluster(2,P); SpatialMap(2,2) K; } } }"
            << "7 7 1"
            << "9 9 1"
            << "9 9 1";
        // GEMM M 1 N 2 K 5 on 4 PEs, a K per PE in 2 folds (4, then 1): in the second fold PEs 1-3 hold
        // nothing and return their partial sums of the output, PE 0 keeps its own until N moves on: 2
        // updates per output (until 2026-11-29 the tables counted 1). A and B: 5 elements per column of N,
        // none repeated (a PE keeps only its last element, which the next column does not reuse): 10 each.
        QTest::newRow("partial sums of an idle PE")
            << "Network n { Layer G { Type: GEMM Dimensions { M: 1, N: 2, K: 5 } Dataflow {"
               " TemporalMap(1,1) N; SpatialMap(1,1) K; } } }"
            << "10 10 4"
            << "10 10 4"
            << "10 10 4";
        QTest::newRow("halo")
            << "Network n { Layer D { Type: DSCONV Dimensions { C: 2, R: 3, S: 1, Y: 6, X: 1 } Dataflow {"
               " TemporalMap(1,1) C; SpatialMap(1,1) Y'; TemporalMap(3,3) R; TemporalMap(1,1) S;"
               " TemporalMap(1,1) X; } } }"
            << "12 6 8"
            << "24 6 8"
            << "24 24 8";
    }
    void globalBufferTrafficByHand()
    {
        QFETCH(QString, text);
        QFETCH(QString, elements);
        QFETCH(QString, tiles);
        QFETCH(QString, none);
        const mdc::Network net = mdc::readMaestroMapping(text.toStdString(), "gb.m");
        const cost::Problem p = cost::fromMaestroLayer(net.layers[0]);
        const mdc::Dataflow& df = net.layers[0].dataflow;
        const std::pair<arch::Multicast, QString> kinds[] = {{arch::Multicast::Elements, elements},
            {arch::Multicast::Tiles, tiles}, {arch::Multicast::None, none}};
        for (const auto& [kind, want] : kinds) {
            arch::Accelerator a = hw(4, 64, 1);
            a.multicast = kind;
            checkTrafficByHand(p, df, a, want);
            if (QTest::currentTestFailed()) return;
        }
    }

    // The per-case tables' rules for input windows over clusters (doc/cost-model.md, "Global-buffer
    // traffic"), each on a mapping of the random set's exportable space (`marvel bench sim --exportable
    // narrow|wide`, the case named) worked by hand: the simulator, the step walk and the tables alone count
    // the same L2 reads of I and W and output updates under the row's NoC multicast. "Before" is the
    // tables' count of I before the rule (2026-11-29 and 2026-11-30).
    void tablesRulesByHand_data()
    {
        QTest::addColumn<QString>("loop");
        QTest::addColumn<QString>("flow");
        QTest::addColumn<int>("pes");
        QTest::addColumn<QString>("want"); // L2 reads of I, of W, output updates
        QTest::addColumn<arch::Multicast>("multicast");
        // Seed 3, case 4980. Two PEs, 3 input rows each at offset 1, in 4 folds (all 3 channels). Fold 0:
        // rows 0-3, 4 x 3 = 12. Fold f: PE 0 keeps row 2f and takes 2f+1, 2f+2; PE 1 keeps 2f+1 and takes
        // 2f+2, 2f+3: 3 rows, 9 a fold, 39. W: 9 taps and channels kept; 8 outputs. Before: 30 (PE 1 was
        // given its part beyond PE 0's tile less what it kept, 0 rows: 2 rows a fold).
        QTest::newRow("fold of overlapping tiles")
            << kRuleConv1d.arg(1).arg(3).arg(8).arg(3)
            << "TemporalMap(3,3) S; SpatialMap(1,1) X; TemporalMap(1,1) K;" << 2 << "39 9 8"
            << arch::Multicast::Elements;
        // Seed 1, case 782. A channel per cluster (3 of 6 busy); K in 2 steps, X in 2 of 2 outputs (4 input
        // rows) inside; per cluster one busy sub-cluster of 4 PEs, 2 busy with 3 rows at offset 1. Per
        // channel: rows 0-3 (4); X advances: PE 0 keeps row 2 and takes 3, 4, PE 1 keeps 3 and takes 4, 5
        // (3); K advances and X wraps around to rows 0-3: PE 0 held 2-4 and takes 0, 1, PE 1 held 3-5 and
        // takes 1, 2 (3); X advances again (3): 13, 39. W: 3 taps per K step per channel, 18; 8 outputs
        // (the channels' partial sums reduced). Before: 30 (the clusters' tiles, as one buffer, keep 2 rows).
        QTest::newRow("PEs under a moving cluster tile, wrapped")
            << kRuleConv1d.arg(2).arg(3).arg(4).arg(3)
            << "SpatialMap(1,1) C; TemporalMap(1,1) K; TemporalMap(3,3) S; TemporalMap(2,2) X; Cluster(3,P);"
               " TemporalMap(1,1) K; TemporalMap(3,3) S; SpatialMap(1,1) C; Cluster(4,P); SpatialMap(1,1) X;"
               " TemporalMap(1,1) C; TemporalMap(1,1) K; TemporalMap(3,3) S;"
            << 72 << "39 18 8" << arch::Multicast::Elements;
        // Seed 1, case 3424. The whole array steps X by 2 outputs (3 input columns at offset 2); in it 2 PEs
        // hold input rows 0-2 and 1-3. Step 0: 4 rows x 3 columns, 12; step 1: each PE keeps column 2 and
        // takes 3, 4: 4 rows x 2, 8; 20. W: the 12 weights once; 16 outputs. Before: 24 (the PEs' tiles
        // overlap, so the keep across the steps was left out).
        QTest::newRow("keep over overlapping PE tiles")
            << kRuleConv2d.arg(2).arg(1).arg(2).arg(4).arg(3).arg(2)
            << "TemporalMap(2,2) X; TemporalMap(3,3) R; SpatialMap(1,1) C; TemporalMap(2,2) S; "
               "TemporalMap(2,2) K;"
               " Cluster(4,P); TemporalMap(2,2) S; SpatialMap(1,1) Y; TemporalMap(1,1) C; TemporalMap(3,3) R;"
            << 24 << "20 12 16" << arch::Multicast::Elements;
        // Seed 1, case 9985. One busy PE: K in 3 steps, X in 2 inside (input rows 0-2, 1-3). Rows 0-2 (3),
        // then 3 (1); K advances and X wraps around: rows 0-2, the PE holds 1-3 and takes 0 (1); 3 (1); twice
        // more: 3 + 1 + 4 = 8. W: 3 taps per K, 9; 6 outputs. Before: 12 (no keep after a wrap).
        QTest::newRow("keep after a wrap")
            << kRuleConv1d.arg(3).arg(1).arg(2).arg(3)
            << "SpatialMap(1,1) K; TemporalMap(1,1) X; TemporalMap(3,3) S; TemporalMap(1,1) C; Cluster(4,P);"
               " TemporalMap(3,3) S; SpatialMap(1,1) C;"
            << 4 << "8 9 6" << arch::Multicast::Elements;
        // Seed 1, case 12553. 5 clusters of 3 PEs, 3 busy with input rows 0-2, 1-3, 2-4 of one channel (the
        // last fold of X, its last tile whole), a PE each: 5 rows a channel, 15. W: 3 taps per channel, 9;
        // 3 outputs. Before: 23 (the sub-units of a last fold were counted kind by kind, their overlap
        // twice).
        QTest::newRow("last fold of whole tiles")
            << kRuleConv1d.arg(1).arg(3).arg(3).arg(3)
            << "TemporalMap(1,1) K; TemporalMap(1,1) C; SpatialMap(1,1) X; TemporalMap(3,3) S; Cluster(3,P);"
               " SpatialMap(1,1) C; TemporalMap(3,3) S;"
            << 17 << "15 9 3" << arch::Multicast::Elements;
        // Seed 3, case 12975. One PE: X in 3 steps, Y spread over the PE in 2 folds inside; the tile is 3
        // rows x 3 columns x 2 channels. (y0, x0) 18; (y1, x0) keeps rows 1-2, 6; (y0, x1): rows 0-2 x
        // columns 1-3, it holds rows 1-3 x columns 0-2 and keeps rows 1-2 x columns 1-2, 10; (y1, x1) 6; (y0,
        // x2) 10; (y1, x2) 6: 56. W: 54 once; 18 outputs. Before: 72 (the folds' wrap kept nothing).
        QTest::newRow("single sub-unit wrapped")
            << kRuleConv2d.arg(3).arg(2).arg(2).arg(3).arg(3).arg(3)
            << "TemporalMap(1,1) X; TemporalMap(2,2) C; TemporalMap(3,3) R; TemporalMap(3,3) S; "
               "SpatialMap(1,1) Y;"
            << 1 << "56 54 18" << arch::Multicast::Elements;
        // Seed 3, case 14138. Three levels with one busy PE: X in 3 steps at the top, rows 0-2, 1-3, 2-4: 3 +
        // 1 + 1 = 5. W 3; 3 outputs. Before: 9 (a map of overlapping tiles below, though holding one tile,
        // stopped the keep).
        QTest::newRow("keep over three levels")
            << kRuleConv1d.arg(1).arg(1).arg(3).arg(3)
            << "TemporalMap(1,1) K; TemporalMap(3,3) S; SpatialMap(1,1) C; TemporalMap(1,1) X; Cluster(2,P);"
               " SpatialMap(1,1) X; TemporalMap(3,3) S; Cluster(4,P); TemporalMap(3,3) S; TemporalMap(1,1) C;"
               " SpatialMap(1,1) K;"
            << 48 << "5 3 3" << arch::Multicast::Elements;
        // Seed 1, case 2930. The whole array steps X by 4 outputs (input rows 0-5, then 4-9); inside, a step
        // of 2 outputs (4 rows at offset 2) over 2 PEs of 3 rows at offset 1. Rows 0-3 (4); rows 2-5: PE 0
        // keeps 2 and takes 3, 4, PE 1 keeps 3 and takes 4, 5 (3); the next top step, rows 4-7: PE 0 held 2-4
        // and takes 5, 6, PE 1 held 3-5 and takes 6, 7 (3, where the PEs' keeps added up say 2); rows 6-9
        // (3):
        // 13. W 3; 8 outputs. Before: 14 (over two levels of overlapping PE tiles the keep was left out).
        QTest::newRow("keep over overlapping PE tiles, two levels")
            << kRuleConv1d.arg(1).arg(1).arg(8).arg(3)
            << "TemporalMap(4,4) X; TemporalMap(3,3) S; TemporalMap(1,1) C; SpatialMap(1,1) K; Cluster(4,P);"
               " TemporalMap(1,1) C; SpatialMap(1,1) K; TemporalMap(2,2) X; TemporalMap(3,3) S; Cluster(3,P);"
               " SpatialMap(1,1) X; TemporalMap(1,1) C; TemporalMap(3,3) S;"
            << 12 << "13 3 8" << arch::Multicast::Elements;
        // Seed 3, case 3451, without multicast. 2 clusters of 4 input rows at offset 2, in each 2 PEs of 3
        // rows at offset 1, X in 5 steps of 2 input columns at offset 1. Each PE takes its own 3 x 2 (24),
        // then at each step keeps a column and takes 3 (4 x 4 x 3 = 48): 72. W: 6 to each PE, 24; 20
        // outputs. Before: 120 (the PEs' tiles overlap, so the keep was left out, though each PE fetches its
        // own copy).
        QTest::newRow("keep over overlapping PE tiles, no multicast")
            << kRuleDepthwise.arg(1).arg(4).arg(5).arg(3).arg(2)
            << "SpatialMap(2,2) Y; TemporalMap(3,3) R; TemporalMap(1,1) X; TemporalMap(2,2) S; Cluster(3,P);"
               " TemporalMap(1,1) X; SpatialMap(1,1) Y; TemporalMap(1,1) C; TemporalMap(3,3) R; "
               "TemporalMap(2,2) S;"
            << 12 << "72 24 20" << arch::Multicast::None;
        // Seed 1, case 8083 without its stride: the whole array spreads Y over itself (3 folds of 2 input
        // rows at offset 1), X in 2 steps inside (2 input columns at offset 1); a channel per PE. Per
        // channel: (y0, x0) 4; (y0, x1) keeps column 1, 2; (y1, x0): rows 1-2 x columns 0-1, it holds rows
        // 0-1 x columns 1-2 and keeps row 1, column 1: 3; (y1, x1) 2; (y2, x0) 3; (y2, x1) 2: 16, 32. W: 8
        // once; 12 outputs. Before: 36 (the region moved along two dimensions: no keep).
        QTest::newRow("keep after an advance and a wrap")
            << kRuleDepthwise.arg(2).arg(3).arg(2).arg(2).arg(2)
            << "TemporalMap(2,2) C; SpatialMap(1,1) Y; TemporalMap(1,1) X; TemporalMap(2,2) R; "
               "TemporalMap(2,2) S;"
               " Cluster(4,P); SpatialMap(1,1) C; TemporalMap(2,2) R; TemporalMap(2,2) S;"
            << 4 << "32 8 12" << arch::Multicast::Elements;
        // Seed 2, case 11761. Two busy clusters hold input rows 0-3 and 2-5 (2 outputs at offset 2); in
        // each, a PE per K steps X by 1 output (3 rows at offset 1), in lock-step. Frame 0: rows 0-2 and
        // 2-4, row 2 sent once: 5; frame 1: rows 3 and 5: 2; 7. W: 3 taps per K, both clusters alike: 6;
        // 8 outputs. Before: 8 (the clusters' counts, 4 each, added up: row 2 twice).
        QTest::newRow("halo between clusters in lock-step")
            << kRuleConv1d.arg(2).arg(1).arg(4).arg(3)
            << "TemporalMap(1,1) C; TemporalMap(3,3) S; TemporalMap(2,2) K; SpatialMap(2,2) X; Cluster(3,P);"
               " SpatialMap(1,1) K; TemporalMap(1,1) X; TemporalMap(1,1) C; TemporalMap(3,3) S;"
            << 15 << "7 6 8" << arch::Multicast::Elements;
        // Seed 1, case 8006. The same two clusters (a PE each) under a top level stepping K twice. Per K:
        // rows 0-2 and 2-4 (5), then 3 and 5 (2); at the second K, X wraps around: the PEs held rows 1-3 and
        // 3-5 and take rows 0 and 2 (2), then 3 and 5 (2): 11. W 6; 8 outputs. Before: 13 (the clusters'
        // first execution counted 8, the second 8 less the 3 rows kept).
        QTest::newRow("halo between clusters in lock-step, under a step")
            << kRuleConv1d.arg(2).arg(1).arg(4).arg(3)
            << "TemporalMap(3,3) S; SpatialMap(1,1) C; TemporalMap(1,1) K; Cluster(2,P); TemporalMap(1,1) K;"
               " TemporalMap(1,1) C; TemporalMap(3,3) S; SpatialMap(2,2) X; Cluster(4,P); TemporalMap(1,1) X;"
               " TemporalMap(3,3) S; SpatialMap(1,1) C; TemporalMap(1,1) K;"
            << 24 << "11 6 8" << arch::Multicast::Elements;
        // Seed 2, case 4865. The clusters of rows 0-3 and 2-5 step X inside a level whose PEs' tiles stay
        // put, for each of the 2 input rows Y: per Y, 5 + 2 = 7 (a new Y keeps nothing), 14. W 3; 8
        // outputs. Before: 16.
        QTest::newRow("halo between clusters in lock-step, PEs below")
            << kRuleConv2d.arg(1).arg(1).arg(2).arg(4).arg(1).arg(3)
            << "SpatialMap(2,2) X; TemporalMap(1,1) Y; TemporalMap(1,1) K; TemporalMap(3,3) S; Cluster(3,P);"
               " SpatialMap(1,1) R; TemporalMap(3,3) S; TemporalMap(1,1) X; TemporalMap(1,1) Y;"
               " TemporalMap(1,1) C; Cluster(4,P); TemporalMap(1,1) C; SpatialMap(1,1) K;"
            << 72 << "14 3 8" << arch::Multicast::Elements;
        // The rule over 3 clusters, with the channels stepping inside X: input rows 0-3, 2-5, 4-7 (8 rows),
        // a PE each holding 3 rows of one channel. Every frame (x0 c0, x0 c1, x1 c0, x1 c1) brings each PE
        // 3 rows of a channel it does not hold: rows 0-2, 2-4, 4-6, then 1-3, 3-5, 5-7, 7 of 9 distinct, 28
        // (the clusters' counts added up: 36). W: 3 taps of the frame's channel, 12; 6 outputs (the PEs keep
        // their partial sums over the channels).
        QTest::newRow("halo between three clusters")
            << kRuleConv1d.arg(1).arg(2).arg(6).arg(3)
            << "SpatialMap(2,2) X; TemporalMap(2,2) C; TemporalMap(3,3) S; Cluster(1,P); TemporalMap(1,1) X;"
               " TemporalMap(1,1) C; TemporalMap(3,3) S; SpatialMap(1,1) K;"
            << 3 << "28 12 6" << arch::Multicast::Elements;
        // Seed 6, case 5395. Two clusters, a column each (a SpatialMap of X in one fold: the clusters'
        // columns never move), step Y by 2 outputs (input rows 0-3, then 2-5); in each, 2 PEs of 3 rows at
        // offset 1, all 3 channels. Step 0: 4 rows x 2 columns x 3 = 24; step 1: PE 0 keeps row 2 and takes
        // 3, 4, PE 1 keeps 3 and takes 4, 5: rows 3-5, 3 x 2 x 3 = 18; 42. W: the 9 taps and channels once;
        // 24 outputs. Before: 36 (the map of X, though in one fold, counted as a move: the clusters' tiles,
        // as one buffer, kept rows 2-3).
        QTest::newRow("PEs under a moving cluster tile, beside a map in one fold")
            << kRuleDepthwise.arg(3).arg(4).arg(2).arg(3).arg(1)
            << "TemporalMap(3,3) R; TemporalMap(2,2) Y; SpatialMap(1,1) X; Cluster(4,P); TemporalMap(1,1) X;"
               " SpatialMap(1,1) Y; TemporalMap(3,3) R;"
            << 8 << "42 9 24" << arch::Multicast::Elements;
        // Seed 6, case 5908. A channel per cluster; X in 3 steps of 3 input columns at offset 1, Y in 2 of 4
        // rows at offset 2 inside; in each cluster 2 PEs of 3 rows at offset 1. Per channel: (x0, y0) 4 rows
        // x 3 columns, 12; (x0, y1) rows 3-5 as above, 9; (x1, y0): columns 1-3 and Y wraps back to rows 0-3:
        // PE 0 (rows 0-2) kept row 2 of columns 1-2, PE 1 (rows 1-3) row 3 of them, so rows 0-2 of columns
        // 1-3 (9, row 2 new to PE 1) and row 3 of column 3 (1): 10; (x1, y1) 9; (x2, y0) 10; (x2, y1) 9: 59,
        // 118. W: 9 per channel, 18; 12 outputs (the channels' partial sums reduced). Before: 92 (the
        // clusters' tiles kept rows 2-3, and after the wrap rows 2-3 of columns 1-2).
        QTest::newRow("PEs under a moving cluster tile, wrapped along a held dimension")
            << kRuleConv2d.arg(1).arg(2).arg(4).arg(3).arg(3).arg(3)
            << "TemporalMap(1,1) X; TemporalMap(3,3) R; TemporalMap(2,2) Y; TemporalMap(3,3) S; "
               "SpatialMap(1,1) C;"
               " TemporalMap(1,1) K; Cluster(2,P); TemporalMap(3,3) R; SpatialMap(1,1) Y;"
            << 4 << "118 18 12" << arch::Multicast::Elements;
        // Seed 4, case 643. A channel per cluster; Y in 5 steps of 3 input rows at offset 1, X in 2 of 4
        // columns at offset 2 inside; in each cluster 2 PEs of 3 columns at offset 1, every row. Per
        // channel: (y0, x0) 3 x 4, 12; (y0, x1) columns 3-5, 9; (y1, x0): rows 1-3 and X wraps back to
        // columns 0-3: PE 0 kept rows 1-2 of column 2, PE 1 of column 3: row 3 of columns 0-3 (4) and rows
        // 1-2 of columns 0-2 (6, column 2 new to PE 1): 10; (y1, x1) 9; likewise for y2-y4: 21 + 4 x 19 =
        // 97, 291. W 27; 60 outputs. Before: 267 (the clusters' tiles kept rows 1-2 of columns 2-3).
        QTest::newRow("PEs under a moving cluster tile, advanced along a held dimension")
            << kRuleDepthwise.arg(3).arg(5).arg(4).arg(3).arg(3)
            << "TemporalMap(1,1) Y; SpatialMap(1,1) C; TemporalMap(2,2) X; TemporalMap(3,3) S; "
               "TemporalMap(3,3) R;"
               " Cluster(3,P); SpatialMap(1,1) X; TemporalMap(1,1) C; TemporalMap(3,3) S;"
            << 15 << "291 27 60" << arch::Multicast::Elements;
        // Seed 4, case 5454. Two PEs, one level: Y in 4 steps (3 input rows at offset 1), X spread over
        // the PEs in 2 folds inside (3 input columns at offset 1), both channels. y0: columns 0-3, 4 x 3 x 2
        // = 24; the fold: PE 0 takes columns 3, 4, PE 1 4, 5: 3 x 3 x 2 = 18. Each later y wraps X around:
        // PE 0 held rows y-1..y+1 x columns 2-4 and keeps rows y, y+1 of column 2, PE 1 of column 3; column 2
        // is PE 1's to take anyway, so rows y, y+1 of column 3 stay out of the union: 24 - 4 = 20, then 18:
        // 24 + 18 + 3 x 38 = 156 (L1 writes: 36 + 24 + 3 x (28 + 24) = 216). W: 18 once; 32 outputs.
        // Before: 168 and 240 (a wrap of a map over several sub-units kept nothing).
        QTest::newRow("spatial fold wrapped")
            << kRuleDepthwise.arg(2).arg(4).arg(4).arg(3).arg(3)
            << "TemporalMap(3,3) R; TemporalMap(2,2) C; TemporalMap(1,1) Y; SpatialMap(1,1) X; "
               "TemporalMap(3,3) S;"
            << 2 << "156 18 32" << arch::Multicast::Elements;
        // Seed 4, case 7780. Two clusters of 4 PEs over X (3 input columns at offset 1) in 2 folds, K in 2
        // steps outside; in each cluster 2 PEs of input rows 0-2 and 2-4. k0: columns 0-3 x 5 rows, 20; the
        // fold: columns 3-5, 15; k1 wraps X around: cluster 0 held columns 2-4 and keeps column 2, cluster 1
        // held 3-5 and keeps 3, which alone no one takes: columns 0-2, 15; then 15: 65. W: 6 a K, 12; 32
        // outputs. Before: 70.
        QTest::newRow("spatial fold of clusters wrapped")
            << kRuleConv2d.arg(2).arg(1).arg(4).arg(4).arg(2).arg(3)
            << "TemporalMap(3,3) S; TemporalMap(1,1) K; TemporalMap(1,1) C; TemporalMap(2,2) R; "
               "SpatialMap(1,1) X;"
               " Cluster(4,P); TemporalMap(1,1) C; SpatialMap(2,2) Y; TemporalMap(3,3) S; TemporalMap(2,2) R;"
            << 8 << "65 12 32" << arch::Multicast::Elements;
        // Seed 5, case 2576 (FIX SHARE-KEEP). Two clusters over Y (3 input rows at offset 1) in 2 folds, X
        // in a step of 2 outputs and one of 1 outside; a PE per cluster holds its cluster's rows, both
        // channels, and steps X inside (3 columns at offset 1). X0, fold 0: rows 0-3 x columns 0-2 x 2 =
        // 24, then column 3, 8. Fold 1: cluster 0 takes rows 2-4 of columns 0-2 and held rows 0-2 of
        // columns 1-3, cluster 1 rows 3-5, held 1-3: rows 2-5 (24) less row 2 of columns 1-2, which only
        // cluster 0 holds and kept (4): 20 (the clusters' counts, 20 each, times the union's 4 rows over
        // their 6: 26), then 8. X1 (columns 2-4), fold 0 (the map wrapped): rows 0-3 (24) less row 3 of
        // columns 2-3, kept by cluster 1 alone (4): 20; fold 1: rows 2-5 (24) less row 2, kept (6): 18. 98.
        // W: 18 once; 24 outputs. Before: 100.
        QTest::newRow("fold of clusters after their PEs kept")
            << kRuleDepthwise.arg(2).arg(4).arg(3).arg(3).arg(3)
            << "TemporalMap(3,3) R; TemporalMap(3,3) S; TemporalMap(2,2) X; SpatialMap(1,1) Y; Cluster(3,P);"
               " SpatialMap(1,1) Y; TemporalMap(3,3) R; TemporalMap(1,1) X; TemporalMap(3,3) S; Cluster(3,P);"
               " SpatialMap(1,1) X; TemporalMap(2,2) C; TemporalMap(3,3) R; TemporalMap(3,3) S;"
            << 19 << "98 18 24" << arch::Multicast::Elements;
        // Seed 6, case 1742 (FIX HALO-DEEP). Two busy clusters of input rows 0-3 and 2-5 (2 outputs at
        // offset 2) hold them whole through a level stepping the channels, whose busy sub-cluster's PE
        // steps X by 1 output (3 rows at offset 1) two levels below the map. Per channel: rows 0-2 and 2-4,
        // row 2 sent once (5), then rows 3 and 5 (2): 14. W: 3 taps per channel, 6; 8 output updates (each
        // PE returns an output's partial sums at each channel). Before: 16 (the clusters' counts added up,
        // row 2 twice per channel: the halo rule took a halo fetched one level below the map only).
        QTest::newRow("halo between clusters two levels down")
            << kRuleConv1d.arg(1).arg(2).arg(4).arg(3)
            << "SpatialMap(2,2) X; TemporalMap(3,3) S; TemporalMap(2,2) C; TemporalMap(1,1) K; Cluster(3,P);"
               " TemporalMap(3,3) S; TemporalMap(1,1) C; SpatialMap(1,1) K; Cluster(2,P); TemporalMap(1,1) X;"
               " SpatialMap(1,1) K; TemporalMap(3,3) S;"
            << 31 << "14 6 8" << arch::Multicast::Elements;
        // Seed 2, case 6638 of the wide export, the same over 4 clusters (input rows 0-3, 2-5, 4-7, 6-9), a
        // channel per sub-cluster and a K per PE: per channel rows 0-2, 2-4, 4-6, 6-8 (9), then 3, 5, 7, 9
        // (4): 26. W: 12 once; 16 outputs. Before: 32.
        QTest::newRow("halo between four clusters two levels down")
            << kRuleConv1d.arg(2).arg(2).arg(8).arg(3)
            << "TemporalMap(3,3) S; TemporalMap(2,2) K; SpatialMap(2,2) X; Cluster(3,P); TemporalMap(3,3) S;"
               " SpatialMap(1,1) C; TemporalMap(2,2) X; Cluster(3,P); SpatialMap(1,1) K; TemporalMap(1,1) C;"
               " TemporalMap(1,1) X; TemporalMap(3,3) S;"
            << 45 << "26 12 16" << arch::Multicast::Elements;
        // FIX KEEP-GROUPS: a keep over PEs of overlapping tiles whose other ranges differ (a channel per
        // cluster, a column per PE), group by group. Seed 11, case 10985 of the wide export: the whole array
        // (8 PEs) steps the input columns 0-3, then 2-5 (a SpatialMap over one sub-unit steps in time); a
        // channel per cluster of 4 PEs, 2 of them busy with columns 0-2 and 1-3 and all 4 rows. Step 0: 4
        // columns x 4 rows x 2 channels, 32. Step 1: PE 0 (columns 2-4) keeps column 2, PE 1 (3-5) column 3,
        // which PE 0 takes anyway: columns 3-5, 12 a channel, 24: 56. W: 12, fetched again at each step (K
        // steps inside), 24; 32 outputs. Before: 64 (the PEs' channels differ, so no keep was credited).
        QTest::newRow("keep over overlapping PEs of different channels")
            << kRuleConv2d.arg(2).arg(2).arg(4).arg(4).arg(1).arg(3)
            << "TemporalMap(3,3) S; TemporalMap(1,1) R; TemporalMap(2,1) C; SpatialMap(2,2) X; Cluster(2,P);"
               " TemporalMap(2,2) K; TemporalMap(1,1) R; TemporalMap(2,2) X; SpatialMap(1,1) C;"
               " TemporalMap(3,3) S; Cluster(4,P); TemporalMap(3,3) S; SpatialMap(1,1) X; TemporalMap(1,1) K;"
            << 10 << "56 24 32" << arch::Multicast::Elements;
        // Seed 9, case 89: K in 3 steps outside, a channel per cluster of 12 PEs; in each, sub-clusters of
        // input rows 0-2 and 2-4 (3 at offset 2) step 2 rows at offset 1 inside (0-1, then 1-2), a column
        // per PE. k0: rows 0-3 x 2 columns x 2 channels, 16, then rows 2 and 4, 8. k1 (the rows wrap back):
        // the PEs held rows 1-2 and 3-4, keep 1 and 3, take 0 and 2: 8, then 8; k2 alike: 56. W: 12; 24
        // outputs. Before: 72 (the PEs' columns differ).
        QTest::newRow("keep over overlapping PEs of different columns")
            << kRuleConv2d.arg(3).arg(2).arg(4).arg(2).arg(2).arg(1)
            << "TemporalMap(2,2) X; TemporalMap(1,1) S; SpatialMap(1,1) C; TemporalMap(1,1) K; Cluster(3,P);"
               " TemporalMap(2,2) X; TemporalMap(1,1) S; TemporalMap(1,1) C; SpatialMap(2,2) Y;"
               " TemporalMap(2,2) R; Cluster(4,P); TemporalMap(1,1) S; TemporalMap(1,1) Y; SpatialMap(1,1) X;"
               " TemporalMap(1,1) C; TemporalMap(2,2) R;"
            << 36 << "56 12 24" << arch::Multicast::Elements;
        // Seed 12, case 1088: the whole array steps input rows 0-2, 1-3, 2-4; in it 2 clusters over input
        // columns (3 at offset 1) in 2 folds (0-2, 1-3, then 2-4, 3-5), a channel per PE. Rows 0-2: columns
        // 0-3 x 3 rows x 2 channels, 24; the fold: columns 3-5, 18. Rows 1-3, the fold wrapped back: cluster
        // 0 (columns 2-4 before) keeps column 2 of rows 1-2, cluster 1 (3-5) column 3, and column 2 is
        // cluster 1's to take: row 3 x columns 0-3 and rows 1-2 x columns 0-2, 10 a channel, 20; the fold
        // 18; rows 2-4 alike, 38: 118. W: 18; 24 outputs. Before: 126.
        QTest::newRow("keep over overlapping clusters of PEs of different channels")
            << kRuleDepthwise.arg(2).arg(3).arg(4).arg(3).arg(3)
            << "SpatialMap(1,1) Y; TemporalMap(3,3) R; TemporalMap(3,3) S; TemporalMap(2,2) C; Cluster(2,P);"
               " TemporalMap(3,3) R; SpatialMap(1,1) X; TemporalMap(2,1) C; TemporalMap(3,3) S; Cluster(4,P);"
               " TemporalMap(1,1) Y; TemporalMap(3,3) S; SpatialMap(1,1) C; TemporalMap(1,1) X;"
               " TemporalMap(3,3) R;"
            << 8 << "118 18 24" << arch::Multicast::Elements;
        // FIX WRAP-KEEP: a NoC without multicast, the PEs' keep after a spatial fold wrapped around. Seed
        // 109, case 5185 of the wide export: K in 3 steps outside, 2 clusters (a busy PE each) over the
        // outputs in 2 folds, input columns 0-2 and 1-3, then 2-4 and 3-5. k0: fold 0 3 + 3 = 6; fold 1: PE 0
        // keeps column 2 and takes 3, 4, PE 1 keeps 3 and takes 4, 5: 4. k1, the fold wrapped back: PE 0 held
        // 2-4, keeps 2 and takes 0, 1, PE 1 held 3-5, keeps 3 and takes 1, 2: 4; fold 1 4. k2 alike: 26.
        // W: each PE its 3 taps per K step, its own copy, 18; 12 outputs. Before: 30 (the wrap kept nothing:
        // 6 at each K step).
        QTest::newRow("wrapped fold of clusters, every copy")
            << kRuleConv1d.arg(3).arg(1).arg(4).arg(3)
            << "TemporalMap(1,1) C; TemporalMap(1,1) K; SpatialMap(1,1) X; TemporalMap(3,3) S; Cluster(4,P);"
               " SpatialMap(1,1) C;"
            << 10 << "26 18 12" << arch::Multicast::None;
        // FIX HALO-KEEP: the halo between clusters after a step that kept part of the PEs' tiles. Seed 33,
        // case 4231 of the wide export: 2 clusters over the outputs' columns (input columns 0-3 and 2-5,
        // the halo column 2-3), a busy PE each stepping them by one (3 columns), the rows stepped by one
        // above (2 of 3 input rows). Row 0: frame 0 columns 0-2 and 2-4 of rows 0-1, 6 + 6 less column 2
        // taken once, 10; frame 1 columns 3 and 5, 4. Row 1: PE 0 (columns 1-3 of rows 0-1) keeps row 1
        // columns 1-2 and takes row 2 columns 0-2 and row 1 column 0, PE 1 the same 2 columns on, sharing
        // row 2 column 2: 7; frame 1 4: 25. W: 6 taps, kept; 8 outputs. Before: 26 (the halo was taken
        // off only where nothing was kept).
        QTest::newRow("halo between clusters after a keep")
            << kRuleDepthwise.arg(1).arg(2).arg(4).arg(2).arg(3)
            << "TemporalMap(3,3) S; SpatialMap(2,2) X; TemporalMap(1,1) Y; TemporalMap(1,1) C; "
               "TemporalMap(2,2) R;"
               " Cluster(4,P); TemporalMap(1,1) X; TemporalMap(2,2) R; SpatialMap(1,1) C; TemporalMap(1,1) Y;"
               " TemporalMap(3,3) S;"
            << 10 << "25 6 8" << arch::Multicast::Elements;
        // FIX DEEP-HALO-KEEP: the same over two levels below the map (the keep PE by PE). Seed 101, case
        // 13409 of the wide export: 2 clusters over the output rows (input rows 0-3 and 2-5), 4 sub-clusters
        // over C (2 busy) stepping Y by one, a busy PE each (3 rows, 3 columns), X stepped by one above. X 0:
        // frame 0 rows 0-2 and 2-4 of columns 0-2, row 2 taken once, 2 channels x (9 + 9 - 3) = 30; frame 1
        // rows 3 and 5, 12. X 1: PE of cluster 0 (rows 1-3, columns 0-2) keeps rows 1-2 columns 1-2 and
        // takes row 0 columns 1-3 and rows 1-2 column 3, the other the same 2 rows on, sharing row 2 column
        // 3: 2 x (5 + 5 - 1) = 18; frame 1 12: 72. W: 18, kept; 8 outputs. Before: 74 (the halo after the
        // keep counted twice).
        QTest::newRow("halo between clusters after a keep, two levels below")
            << kRuleConv2d.arg(1).arg(2).arg(4).arg(2).arg(3).arg(3)
            << "TemporalMap(2,2) C; TemporalMap(3,3) R; SpatialMap(2,2) Y; TemporalMap(3,3) S;"
               " TemporalMap(1,1) X; Cluster(4,P); TemporalMap(3,3) R; SpatialMap(1,1) C; TemporalMap(1,1) Y;"
               " TemporalMap(1,1) X; TemporalMap(1,1) K; TemporalMap(3,3) S; Cluster(3,P); TemporalMap(3,3) "
               "R;"
               " SpatialMap(1,1) X; TemporalMap(1,1) C; TemporalMap(1,1) K; TemporalMap(3,3) S;"
            << 60 << "72 18 8" << arch::Multicast::Elements;
        // FIX KEEP-SPLIT: clusters of overlapping tiles on one dimension (a halo between them) step another
        // that their PEs spread, so every PE keeps only its own overlap (tileShiftByHand's "one channel" is
        // its map of a single tile, seed 14 case 3536).

        // Seed 108, case 7120. Two busy clusters hold input columns 0-2 and 1-3 (an output column each)
        // and step Y by 2 outputs (input rows 0-3, then 2-5); in each, 2 busy PEs of 3 rows at offset 1
        // (rows y..y+2, y+1..y+3) step K inside. Step 0: rows 0-3 x columns 0-3, 16. Step 1: PE 0 held rows
        // 0-2 and takes 3, 4, PE 1 held 1-3 and takes 4, 5: rows 3-5 x columns 0-3, 12; 28. W: W[k] (9) to
        // every PE at each of the 4 frames (Y x K), 36; 16 outputs, each returned once. Before: 24 (the
        // clusters' tiles, as one buffer, kept rows 2-3: rows 4-5 new, 8).
        QTest::newRow("halo between clusters, PEs spread the step")
            << kRuleConv2d.arg(2).arg(1).arg(4).arg(2).arg(3).arg(3)
            << "SpatialMap(1,1) X; TemporalMap(2,2) Y; TemporalMap(3,3) R; TemporalMap(1,1) C;"
               " TemporalMap(3,3) S; Cluster(4,P); SpatialMap(1,1) Y; TemporalMap(1,1) K; TemporalMap(1,1) C;"
               " TemporalMap(3,3) S; TemporalMap(3,3) R;"
            << 24 << "28 36 16" << arch::Multicast::Elements;
        // Seed 103, case 67, multicast of identical tiles. Three busy clusters hold input rows 0-1, 1-2,
        // 2-3 (an output row each) and step X by 2 outputs (input columns 0-3, then 2-5); in each, 2 PEs of
        // 3 columns at offset 1. No two PEs hold identical tiles, so each takes its own: step 0, 6 PEs x 2
        // rows x 3 columns, 36; step 1, each keeps a column and takes 2: 6 x 2 x 2, 24; 60. W: the 6 taps,
        // identical in every PE, once; 12 outputs. Before: 54.
        QTest::newRow("halo between clusters, PEs spread the step, tiles")
            << kRuleDepthwise.arg(1).arg(3).arg(4).arg(2).arg(3)
            << "SpatialMap(1,1) Y; TemporalMap(2,2) X; TemporalMap(2,2) R; TemporalMap(1,1) C;"
               " TemporalMap(3,3) S; Cluster(2,P); TemporalMap(1,1) Y; TemporalMap(1,1) C; SpatialMap(1,1) X;"
               " TemporalMap(3,3) S; TemporalMap(2,2) R;"
            << 12 << "60 6 12" << arch::Multicast::Tiles;
        // Seed 66, case 13373: a K per cluster (identical input tiles), X in 4 steps of 3 input columns at
        // offset 1, Y in 2 of 4 rows at offset 2 inside; in each cluster 2 busy sub-clusters of 3 rows at
        // offset 1 (both channels), whose SpatialMap of the column keeps a single PE busy. (x0, y0) rows
        // 0-3 x columns 0-2 x 2, 24; (x0, y1) rows 3-5, 18; (x1, y0): Y wraps back to rows 0-3 of columns
        // 1-3: PE 0 kept row 2, PE 1 row 3 of columns 1-2, so row 3 of them stays out: (4 x 3 - 2) x 2, 20;
        // (x1, y1) 18; likewise x2, x3: 42 + 3 x 38 = 156. W: W[k] (18) to each cluster once, 54; 48
        // outputs. Before: 144 (X, held whole by every PE, was taken for a spread dimension).
        QTest::newRow("moving cluster tile wrapped, a map of one tile below")
            << kRuleConv2d.arg(3).arg(2).arg(4).arg(4).arg(3).arg(3)
            << "TemporalMap(3,3) S; SpatialMap(1,1) K; TemporalMap(1,1) X; TemporalMap(3,3) R;"
               " TemporalMap(2,2) Y; Cluster(4,P); TemporalMap(1,1) X; SpatialMap(1,1) Y; TemporalMap(1,1) K;"
               " TemporalMap(3,3) S; TemporalMap(3,3) R; TemporalMap(2,2) C; Cluster(2,P);"
               " TemporalMap(2,2) C; TemporalMap(1,1) Y; TemporalMap(1,1) K; TemporalMap(3,3) S;"
               " SpatialMap(1,1) X; TemporalMap(3,3) R;"
            << 24 << "156 54 48" << arch::Multicast::Elements;
        // FIX HALO-SOURCE: a three-level mapping on which the tables counted fewer input L2 reads than the
        // PEs fetch.

        // Seed 44, case 9869 (FIX HALO-SOURCE). K 1, C 3, 2 x 4 outputs (4 x 5 inputs), 3 x 2 taps. Level 0:
        // 2 sub-units of 2 output columns each (input columns 0-2 and 2-4, overlapping at 2). Level 1: 2
        // busy clusters of an output row each (input rows 0-2 and 1-3), every column and channel. Level 2: a
        // busy PE steps its cluster's 2 output columns one by one (2 input columns at offset 1). Frame 0: the
        // 4 PEs hold columns 0-1 and 2-3 of rows 0-2 and 1-3: rows 0-3 x columns 0-3 x 3 channels = 48.
        // Frame 1: each PE keeps a column and takes the next, 2 of the left sub-unit and 4 of the right one
        // (column 2 is new to the left PEs, whose neighbours held it): rows 0-3 x 2 columns x 3 = 24. I 72.
        // W: 18 weights in every PE, once and kept: 18. Outputs: 8, each PE's complete. Before: I 36 (level
        // 1 measured its PEs' halo along the rows, rows 1-2 fetched by both clusters, 18 per cluster, and
        // handed it up as the halo along the columns between level 0's sub-units, 36 taken off their 72,
        // where those never fetch a column at the same frame).
        QTest::newRow("halo measured against another map")
            << kRuleConv2d.arg(1).arg(3).arg(2).arg(4).arg(3).arg(2)
            << "SpatialMap(2,2) X; TemporalMap(1,1) K; TemporalMap(2,2) S; TemporalMap(3,3) R; Cluster(3,P);"
               " TemporalMap(3,3) R; TemporalMap(3,1) C; SpatialMap(1,1) Y; TemporalMap(2,2) X;"
               " TemporalMap(2,2) S; Cluster(3,P); SpatialMap(1,1) K; TemporalMap(1,1) Y; TemporalMap(2,2) S;"
               " TemporalMap(1,1) X; TemporalMap(3,3) R;"
            << 18 << "72 18 8" << arch::Multicast::Elements;
        // Seed 85, case 10916 (FIX HALO-DEEP through a stepping level). 2 channels, 4 x 4 outputs (6 x 4
        // inputs), 3 x 1 taps. Level 0: 2 busy sub-units of 2 output rows (input rows 0-3 and 2-5, sharing
        // 2-3), both channels. Level 1 steps their output rows one by one (3 input rows, at offset 1) over 2
        // busy clusters of 2 columns; level 2 steps X in its PEs, a channel each. Per step a sub-unit takes
        // its 3 rows x 4 columns x 2 channels (24): a PE's last tile (column 3 or 1) and its next first
        // (column 2 or 0) share nothing. At each step the two sub-units' rows meet in one (row 2, then row
        // 3), fetched once: 4 steps x 24 - 2 x 8 = 80. W: the 6 weights, 6. Outputs: 32. Before: 96 (level
        // 1 steps the rows, so no level below measured the halo between level 0's sub-units).
        QTest::newRow("halo through a level stepping its rows")
            << kRuleDepthwise.arg(2).arg(4).arg(4).arg(3).arg(1)
            << "SpatialMap(2,2) Y; TemporalMap(2,2) C; TemporalMap(1,1) S; TemporalMap(3,3) R;"
               " TemporalMap(4,4) X; Cluster(4,P); TemporalMap(1,1) Y; SpatialMap(2,2) X; TemporalMap(3,3) R;"
               " Cluster(3,P); TemporalMap(1,1) S; SpatialMap(1,1) C; TemporalMap(3,3) R; TemporalMap(1,1) X;"
            << 48 << "80 6 32" << arch::Multicast::Elements;
        // Seed 88, case 10496 (FIX HALO-KEEP-DEEP). 2 channels one after the other, 4 x 2 outputs (6 x 4
        // inputs), 3 x 3 taps. Level 0: 2 busy sub-units of 2 output rows (input rows 0-3 and 2-5). Level 1
        // steps their output rows (3 input rows); its SpatialMap of the one channel and level 2's of the one
        // row keep a single PE busy, which steps X (3 columns at offset 1). A sub-unit per channel: (y0, x0)
        // 9, (y0, x1) column 3, 3; (y1, x0) the PE kept rows 1-2 of columns 1-2, 5; (y1, x1) 3: 20, 40 for
        // both. Fetched by both at the same frame: row 2 of columns 0-2 (3), then of column 3 (1); row 3 of
        // column 0 (1), of column 3 (1): 6. 2 x (40 - 6) = 68. W: 18. Outputs: 16. Before: 80 (no level
        // below measured the halo), then 72 (the halo of the steps after a keep was dropped).
        QTest::newRow("halo through a stepping level that keeps")
            << kRuleDepthwise.arg(2).arg(4).arg(2).arg(3).arg(3)
            << "TemporalMap(1,1) C; SpatialMap(2,2) Y; TemporalMap(3,3) R; TemporalMap(2,1) X;"
               " TemporalMap(3,3) S; Cluster(3,P); TemporalMap(3,3) S; TemporalMap(1,1) Y; SpatialMap(1,1) C;"
               " TemporalMap(3,3) R; Cluster(3,P); TemporalMap(1,1) X; TemporalMap(1,1) C; SpatialMap(1,1) Y;"
               " TemporalMap(3,3) S; TemporalMap(3,3) R;"
            << 27 << "68 18 16" << arch::Multicast::Elements;
        // Seed 183, case 10469 (FIX PE-BOXES). One channel, 4 x 4 outputs (6 x 6 inputs), 3 x 3 taps. Level
        // 1: 2 busy clusters of an output column (input columns 0-2 and 1-3, then 2-4 and 3-5 in the second
        // fold) step the output rows by 2 (input rows 0-3, then 2-5); in each, 2 busy PEs of an output row
        // (3 input rows at offset 1). (f0, y0): rows 0-3 x columns 0-3, 16. (f0, y1): every PE keeps its row
        // 2 (or 3) and takes 2 rows: rows 3-5 x columns 0-3, 12. (f1, y0): rows 0-3 x columns 2-5, where
        // only PE 1 of cluster 0 held one of its elements before (row 3, column 2) and no other PE takes it:
        // 15. (f1, y1): 12. 55. W: 9. Outputs: 16. Before: 46 (the clusters' previous tiles kept rows 2-3 of
        // their new columns, as if each were one buffer).
        QTest::newRow("PEs of clusters in a new fold, rows wrapped")
            << kRuleConv2d.arg(1).arg(1).arg(4).arg(4).arg(3).arg(3)
            << "TemporalMap(4,4) X; SpatialMap(1,1) K; TemporalMap(3,3) S; Cluster(2,P); SpatialMap(1,1) X;"
               " TemporalMap(3,3) S; TemporalMap(1,1) C; TemporalMap(1,1) K; TemporalMap(2,2) Y;"
               " TemporalMap(3,3) R; Cluster(4,P); TemporalMap(1,1) C; SpatialMap(1,1) Y; TemporalMap(1,1) K;"
               " TemporalMap(3,3) S; TemporalMap(3,3) R;"
            << 16 << "55 9 16" << arch::Multicast::Elements;
        // Seed 144, case 13196 (FIX PE-BOXES), multicast of identical tiles. 2 channels, 2 x 4 outputs (3 x
        // 6 inputs), 2 x 3 taps. Level 0: a channel per cluster steps the output rows (input rows 0-1, 1-2)
        // inside 2 steps of 2 output columns; in each, 2 busy sub-clusters of 3 input columns at offset 1
        // (0-2 and 1-3, then 2-4 and 3-5), one busy PE each. No two PEs hold identical tiles: (x0, y0) 4 PEs
        // x 6 = 24; (x0, y1) each keeps row 1 and takes row 2, 12; (x1, y0): the rows wrap back and the
        // columns move by 2: each PE kept one element (row 1 of its first new column), 4 x 5 = 20; (x1, y1)
        // 12. 68. W: 12. Outputs: 16. Before: 66 (the clusters' new part scaled by their PEs' tiles over
        // theirs, 12 x 24 / 16 = 18 at (x1, y0)).
        QTest::newRow("PEs of clusters, columns moved and rows wrapped, tiles")
            << kRuleDepthwise.arg(2).arg(2).arg(4).arg(2).arg(3)
            << "SpatialMap(1,1) C; TemporalMap(2,2) X; TemporalMap(3,3) S; TemporalMap(2,2) R;"
               " TemporalMap(1,1) Y; Cluster(3,P); SpatialMap(1,1) X; TemporalMap(3,3) S; TemporalMap(1,1) Y;"
               " TemporalMap(2,2) R; Cluster(4,P); SpatialMap(1,1) C; TemporalMap(1,1) Y; TemporalMap(2,2) R;"
            << 24 << "68 12 16" << arch::Multicast::Tiles;
        // Seed 158, case 6248 (FIX PE-BOXES, the keep across child executions). One channel, 4 x 4 outputs
        // (6 x 5 inputs), 3 x 2 taps. Level 0 steps the output rows by 2 (input rows 0-3, then 2-5); level
        // 1: 2 clusters of 2 output columns (input columns 0-2 and 2-4, sharing 2); level 2: 2 PEs of an
        // output row (3 input rows at offset 1). Step 0: rows 0-3 x columns 0-4, 20. Step 1: rows 2-5; row 2
        // is kept by every PE that needs it (PE 0 of each cluster held rows 0-2), row 3 is new to PE 0:
        // 4 x 5 - 5 = 15. 35. W: 6. Outputs: 16. Before: 40 (overlapping tiles along two dimensions, the
        // columns between clusters and the rows between PEs: no keep was credited).
        QTest::newRow("keep over PEs overlapping along two dimensions")
            << kRuleDepthwise.arg(1).arg(4).arg(4).arg(3).arg(2)
            << "TemporalMap(2,2) Y; SpatialMap(1,1) C; TemporalMap(3,3) R; TemporalMap(2,2) S;"
               " TemporalMap(4,4) X; Cluster(2,P); SpatialMap(2,2) X; TemporalMap(1,1) C; TemporalMap(2,2) S;"
               " Cluster(2,P); TemporalMap(3,3) R; SpatialMap(1,1) Y;"
            << 16 << "35 6 16" << arch::Multicast::Elements;
        // Seed 129, case 7580 (FIX HALO-DEEP past a map of one tile). 4 channels, 3 x 4 outputs (5 x 6
        // inputs), 3 x 3 taps. Level 0: 2 busy sub-units of 2 output columns (input columns 0-3 and 2-5),
        // stepping the output rows (3 input rows). Level 1 keeps a single sub-cluster busy (its SpatialMap
        // of the one row) and steps the columns (3 at offset 1); level 2 folds the channels over 2 PEs. At
        // each of the 3 x 2 x 2 frames the 4 busy PEs hold 2 channels x 3 rows x 3 columns, nothing of the
        // frame before (another channel), and the two sub-units' PEs share one column: 4 x 18 / 2 - 6 = 30;
        // 360. W: both sub-units' PEs take the same 2 channels' 9 taps a frame, 216. Outputs: 48. Before:
        // 432 (the one-tile map of the rows, whose rows overlap, stopped the halo's way down).
        QTest::newRow("halo past a map of one tile")
            << kRuleDepthwise.arg(4).arg(3).arg(4).arg(3).arg(3)
            << "TemporalMap(3,3) R; TemporalMap(3,3) S; TemporalMap(1,1) Y; TemporalMap(4,4) C;"
               " SpatialMap(2,2) X; Cluster(4,P); SpatialMap(1,1) Y; TemporalMap(1,1) X; TemporalMap(3,3) S;"
               " TemporalMap(4,4) C; TemporalMap(3,3) R; Cluster(2,P); TemporalMap(3,3) S; SpatialMap(1,1) C;"
            << 40 << "360 216 48" << arch::Multicast::Elements;
        // Seed 199, case 11444 (FIX HALO-SHIFT). One channel, 4 x 4 outputs (6 x 6 inputs), 3 x 3 taps.
        // Level 0: 2 busy sub-units of 2 output rows (input rows 0-3 and 2-5); level 1 steps their output
        // rows (3 input rows) and, inside, 2 output columns at a time (input columns 0-3, then 2-5); one busy
        // PE each. (y0, x0): 2 x 12 less row 2 of columns 0-3, both fetch it: 20. (y0, x1): each keeps
        // columns 2-3 and takes 4-5 of its 3 rows, sharing row 2: 12 - 2 = 10. (y1, x0): the columns wrap
        // back, the rows move by 1: each takes columns 0-1 of its 3 rows and the new row of columns 2-3, 8,
        // sharing row 3 of columns 0-1: 14. (y1, x1) 10. 54. W: 9. Outputs: 16. Before: 58 (the column steps,
        // counted PE by PE, handed up no halo).
        QTest::newRow("halo of steps counted PE by PE")
            << kRuleDepthwise.arg(1).arg(4).arg(4).arg(3).arg(3)
            << "TemporalMap(1,1) C; TemporalMap(3,3) S; SpatialMap(2,2) Y; TemporalMap(4,4) X; "
               "TemporalMap(3,3) R;"
               " Cluster(3,P); TemporalMap(1,1) Y; TemporalMap(2,2) X; SpatialMap(1,1) C; TemporalMap(3,3) S;"
               " TemporalMap(3,3) R; Cluster(4,P); SpatialMap(1,1) C; TemporalMap(3,3) S;"
            << 36 << "54 9 16" << arch::Multicast::Elements;
        // Seed 173, case 3572 (FIX HALO-KEEP over PEs of overlapping tiles). One channel, 4 x 4 outputs (6 x
        // 6 inputs), 3 x 3 taps. Level 0: 2 busy sub-units of 2 output rows (input rows 0-3 and 2-5); level 1
        // steps their output rows (3 input rows); level 2 folds the 4 output columns over 2 PEs (3 input
        // columns at offset 1: 0-2 and 1-3, then 2-4 and 3-5). (y0, f0): 2 x 12 less row 2 of columns 0-3,
        // 20. (y0, f1): each PE keeps a column, the sub-units take columns 3-5 of their rows, sharing row 2:
        // 18 - 3 = 15. (y1, f0): rows 1-3 and 3-5 of columns 0-3; only PE 1 kept something no other PE needs
        // anew (rows 1-2 and 3-4 of column 3): 2 x 10, sharing row 3 of columns 0-2: 17. (y1, f1) 15. 67.
        // W: 9. Outputs: 16. Before: 73 (no halo was handed up after the keep).
        QTest::newRow("halo after a keep over PEs of overlapping tiles")
            << kRuleDepthwise.arg(1).arg(4).arg(4).arg(3).arg(3)
            << "SpatialMap(2,2) Y; TemporalMap(4,1) X; TemporalMap(3,3) R; TemporalMap(1,1) C; "
               "TemporalMap(3,3) S;"
               " Cluster(4,P); TemporalMap(1,1) Y; TemporalMap(4,2) X; SpatialMap(1,1) C; TemporalMap(3,3) S;"
               " TemporalMap(3,3) R; Cluster(2,P); SpatialMap(1,1) X; TemporalMap(3,3) S; TemporalMap(1,1) Y;"
               " TemporalMap(3,3) R;"
            << 16 << "67 9 16" << arch::Multicast::Elements;
        // Seed 184, case 11825 (FIX HALO-SHIFT after a step whose PEs keep nothing). K 2, 3 channels, 4 x 4
        // outputs (6 x 6 inputs), 3 x 3 taps. Level 0: 2 busy sub-units of 2 output rows (input rows 0-3 and
        // 2-5); level 1 gives its 2 busy sub-clusters a K each (identical input tiles) and steps the
        // channels, inside them the output rows (3 input rows); a PE per sub-cluster holds the channel. Per
        // channel: rows 0-2 and 2-4 of all 6 columns, sharing row 2: 30; then each keeps 2 rows and takes row
        // 3 or 5:
        // 12. 3 x 42 = 126. W: 54. Outputs: 96 (the 3 channels' partial sums of 32). Before: 138 (the steps
        // to a new channel handed up no halo).
        QTest::newRow("halo after a step that keeps nothing")
            << kRuleConv2d.arg(2).arg(3).arg(4).arg(4).arg(3).arg(3)
            << "SpatialMap(2,2) Y; TemporalMap(3,3) R; TemporalMap(3,3) C; TemporalMap(3,3) S; "
               "TemporalMap(2,1) K;"
               " Cluster(4,P); TemporalMap(4,4) X; SpatialMap(1,1) K; TemporalMap(1,1) C; TemporalMap(1,1) Y;"
               " TemporalMap(3,3) R; TemporalMap(3,3) S; Cluster(4,P); TemporalMap(1,1) Y; TemporalMap(3,3) "
               "R;"
               " SpatialMap(1,1) C; TemporalMap(1,1) K;"
            << 65 << "126 54 96" << arch::Multicast::Elements;
        // Seed 215, case 5729 (FIX PE-BOXES, the keep across executions whose tiles move). K 2, 2 channels, 4
        // x 4 outputs (6 x 6 inputs), 3 x 3 taps, one busy cluster. Level 0 steps 2 output columns (input
        // columns 0-3, then 2-5) and, inside, K; level 1 steps 2 output rows (input rows 0-3, then 2-5) over
        // 2 busy sub-clusters of an output column (3 input columns at offset 1); level 2 spreads the rows
        // over 2 PEs (3 at offset 1), both channels. (x0, k0): rows 0-3 x columns 0-3 x 2, 32; rows 2-5, row
        // 2 kept by every PE that needs it, 24. (x0, k1): back to rows 0-3; row 3 only PE 1 needs, and it
        // kept it: 24, then 24. (x1, k0): columns 2-5, rows 0-3: of column 2 row 3 only PE 1 of the first
        // sub-cluster needs, and it kept it: 32 - 2 = 30, then 24. (x1, k1) 24 + 24. 206. W: 72. Outputs:
        // 32. Before: 224 (no keep credited across level 0's steps: overlapping tiles along two dimensions).
        QTest::newRow("keep over PEs overlapping along two dimensions, tiles moving")
            << kRuleConv2d.arg(2).arg(2).arg(4).arg(4).arg(3).arg(3)
            << "TemporalMap(2,2) X; TemporalMap(3,3) S; TemporalMap(3,3) R; SpatialMap(1,1) K; "
               "TemporalMap(2,1) C;"
               " Cluster(3,P); TemporalMap(1,1) K; TemporalMap(2,2) Y; SpatialMap(1,1) X; TemporalMap(3,3) S;"
               " TemporalMap(3,3) R; Cluster(3,P); SpatialMap(1,1) Y; TemporalMap(3,3) R;"
            << 9 << "206 72 32" << arch::Multicast::Elements;
        // Seed 405, case 6488 (FIX HALO-TWO). 3 channels one after the other, 4 x 4 outputs (5 x 6 inputs), 2
        // x 3 taps. Level 0: 2 busy sub-units of 2 output columns (input columns 0-3 and 2-5); level 1: 2
        // busy sub-clusters of 2 output rows (input rows 0-2 and 2-4); level 2: a PE stepping its 2 output
        // columns (3 input columns at offset 1). Frame 0: the 4 PEs hold rows 0-2 / 2-4 x columns 0-2 / 2-4,
        // fetched once: 5 x 5 = 25; frame 1: each keeps 2 columns and takes column 3 or 5 of its rows: 2 x 5
        // = 10. 3 x 35 = 105. W: 18. Outputs: 48. Before: 120 (the halo between level 0's sub-units, column
        // 2, was not measured: level 1's own overlapping map stood between; by inclusion and exclusion it
        // is each sub-cluster's column, 3 + 3, less the corner both maps share, row 2 of column 2).
        QTest::newRow("halos of two maps")
            << kRuleDepthwise.arg(3).arg(4).arg(4).arg(2).arg(3)
            << "TemporalMap(3,3) S; TemporalMap(4,2) Y; TemporalMap(2,2) R; TemporalMap(1,1) C; "
               "SpatialMap(2,2) X;"
               " Cluster(3,P); TemporalMap(2,2) R; SpatialMap(2,2) Y; TemporalMap(3,3) S; TemporalMap(2,2) X;"
               " Cluster(4,P); TemporalMap(3,3) S; TemporalMap(1,1) X; TemporalMap(2,2) R; SpatialMap(1,1) C;"
            << 60 << "105 18 48" << arch::Multicast::Elements;
        // Seed 471, case 7982 (FIX HALO-NEST). K 2, 2 channels, 8 outputs (10 inputs), 3 taps. Level 0: 2
        // busy sub-units of 4 outputs (inputs 0-5 and 4-9); level 1 spreads them again, 2 sub-clusters of 2
        // outputs (inputs 0-3 and 2-5 of each); level 2 steps K and, inside, its 2 outputs (3 inputs at
        // offset 1), a channel per PE. (k0, x0): the PEs hold 0-2, 2-4, 4-6 and 6-8 of both channels, 9 x 2
        // = 18 (input 4, fetched by both sub-units, once); (k0, x1): each PE keeps 2 inputs and takes the
        // next, 3, 5, 7 and 9: 8; (k1, x0): back to 0-2 ..., each takes 0, 2, 4 or 6 (input 2 kept by one PE,
        // new to the other): 8; (k1, x1) 8. 42. W: 12. Outputs: 16. Before: 44 (no halo measured between
        // level 0's sub-units: level 1 spreads the same dimension over overlapping tiles; the union of its
        // sub-clusters' fetches, 0-4 in the one and 4-8 in the other, shares input 4).
        QTest::newRow("halos of two maps of one dimension")
            << kRuleConv1d.arg(2).arg(2).arg(8).arg(3)
            << "TemporalMap(2,2) K; TemporalMap(3,3) S; SpatialMap(4,4) X; Cluster(3,P); TemporalMap(3,3) S;"
               " SpatialMap(2,2) X; Cluster(4,P); TemporalMap(1,1) K; SpatialMap(1,1) C; TemporalMap(1,1) X;"
               " TemporalMap(3,3) S;"
            << 72 << "42 12 16" << arch::Multicast::Elements;
        // Seed 676, case 13988 (FIX PE-BOXES for the halo after a keep). One channel, 4 x 4 outputs (6 x 6
        // inputs), 3 x 3 taps. Level 0: 2 busy sub-units of 2 output rows (input rows 0-3, 2-5), stepping 2
        // output columns (input columns 0-3, then 2-5); level 1: 2 sub-clusters of an output column (3 input
        // columns at offset 1); level 2 steps the rows (3 at offset 1). Column step 0: rows 0-4 x columns
        // 0-3, 20, then rows 3 and 5, 8. Column step 1: rows 0-4 x columns 2-5 less what every PE needing it
        // kept (rows 1, 3 and 4 of column 2), 17, then 8. 53. W: 9. Outputs: 16. Before: 56 (after the keep,
        // the halo between the sub-units, row 2 of columns 3-5, was not taken off: the PEs of a sub-unit
        // overlap).
        QTest::newRow("halo after a keep over PEs of overlapping clusters")
            << kRuleDepthwise.arg(1).arg(4).arg(4).arg(3).arg(3)
            << "SpatialMap(2,2) Y; TemporalMap(3,3) R; TemporalMap(2,2) X; TemporalMap(3,3) S; "
               "TemporalMap(1,1) C;"
               " Cluster(2,P); SpatialMap(1,1) X; TemporalMap(3,3) S; TemporalMap(3,3) R; Cluster(3,P);"
               " TemporalMap(1,1) Y; SpatialMap(1,1) C; TemporalMap(3,3) S; TemporalMap(3,3) R;"
            << 12 << "53 9 16" << arch::Multicast::Elements;
    }
    void tablesRulesByHand()
    {
        QFETCH(QString, loop);
        QFETCH(QString, flow);
        QFETCH(int, pes);
        QFETCH(QString, want);
        QFETCH(arch::Multicast, multicast);
        const cost::Problem p = cost::fromOperator(ir::parseOperator(loop.toStdString(), "rule.loop"));
        arch::Accelerator a = hw(pes, 4, 1);
        a.multicast = multicast;
        checkTrafficByHand(p, directivesOf(p, flow, "rule.m"), a, want);
    }

    // FIX TILE-SHIFT (doc/cost-model.md, "Global-buffer traffic"): a NoC that multicasts identical tiles
    // only, PEs under a moving cluster tile whose tiles of the input also differ on a dimension a level below
    // spreads. dw: O[c][y][x] += W[c][s] * I[c][y][x + s], 2 rows, 4 outputs (6 input columns), 3 taps, on
    // 37 PEs: 3 clusters of 12 over Y (2 busy, a row each) step X by 2 outputs (input columns 0-3, then
    // 2-5); in each, 3 sub-clusters of 4 PEs over X (2 busy: columns 0-2 and 1-3, then 2-4 and 3-5), in
    // each the channels over the PEs. The simulator, the step walk and the tables alone count the L2 reads
    // of I and W and the output updates. "Before": the tables before the rule, which scaled the clusters'
    // new columns (2 a row) by their PEs' tiles over theirs (6 columns over 4), as from empty buffers.
    void tileShiftByHand_data()
    {
        QTest::addColumn<int>("channels");
        QTest::addColumn<QString>("channelMap"); // the innermost level's map of C over 4 PEs
        QTest::addColumn<QString>("want");
        // Seed 14, case 3536 of `marvel bench sim --exportable wide`. One channel, a PE per sub-cluster.
        // Step 0: each PE its 3 columns, no two tiles alike: 4 x 3 = 12. Step 1: each PE kept one column
        // (2 of 0-2, 3 of 1-3) and takes 2: 8. I 20. W: the 3 taps, identical in every PE, once and kept:
        // 3. Outputs: 8, each returned once. Before: I 12 + 2 x 2 x 6 / 4 = 18.
        QTest::newRow("one channel") << 1 << "SpatialMap(1,1) C;"
                                     << "20 3 8";
        // Three channels, 2 PEs per sub-cluster over channels 0-1 and 1-2 (a PE of each range
        // takes its own send). Step 0: 8 PEs x 3 columns x 2 channels = 48. Step 1: each takes 2
        // columns of its 2 channels, 8 x 4 = 32. I 80. W: the two channel ranges' 6 weights, 12. Outputs:
        // 8 x 3 = 24 (the PEs' partial sums of channel 1 reduced). Before: 48 + 2 x 2 x 3 x 24 / 12 = 72.
        QTest::newRow("three channels over overlapping PEs") << 3 << "SpatialMap(2,1) C;"
                                                             << "80 12 24";
    }
    void tileShiftByHand()
    {
        QFETCH(int, channels);
        QFETCH(QString, channelMap);
        QFETCH(QString, want);
        const QString c = QString::number(channels);
        const cost::Problem p = cost::fromOperator(
            ir::parseOperator(kRuleDepthwise.arg(c).arg(2).arg(4).arg(1).arg(3).toStdString(), "rule.loop"));
        const QString flow = "TemporalMap(1,1) R; TemporalMap(2,2) X; TemporalMap(" + c + "," + c
            + ") C; TemporalMap(3,3) S; SpatialMap(1,1) Y; Cluster(3,P); TemporalMap(3,3) S; TemporalMap(" + c
            + "," + c + ") C; TemporalMap(1,1) Y; SpatialMap(1,1) X; Cluster(4,P); " + channelMap;
        arch::Accelerator a = hw(37, 4, 1);
        a.multicast = arch::Multicast::Tiles;
        checkTrafficByHand(p, directivesOf(p, flow, "rule.m"), a, want);
    }

    // FIX LAST-STEP (doc/cost-model.md, "Off-chip bandwidth"): the last top-level step also writes its own
    // outputs back to DRAM, in the step's time. Single-level conv1d O[k][x] += W[k][c][s] * I[c][x + s]
    // whose off-chip bandwidth bounds some steps; NoC latency 2, a transfer of e elements takes
    // 2 + ceil(e / bw) - 1 cycles. The simulator, the step walk and the tables alone count runtime, L2
    // reads of the input-class tensors (the one read through a window first: I, W; with S = 1 there is no
    // window, W, I), output updates. "Before": the tables charged the final write-back to the case they
    // enumerate last (all-I first, then rotated), not to the case holding the last step.
    void offchipLastStepByHand_data()
    {
        QTest::addColumn<QString>("loop");
        QTest::addColumn<QString>("flow");
        QTest::addColumn<int>("pes");
        QTest::addColumn<int>("bw");
        QTest::addColumn<int>("offchip");
        QTest::addColumn<QString>("want"); // runtime, L2 reads (problem order), output updates
        // Seed 17, case 14040 of the wide export. K 3, C 2, X 8, S 1 on 4 PEs, steps (c, k, fold of 4 x):
        // 12, each PE one MAC. On chip: step 0 takes 4 inputs and a weight (5 elements: 2 cycles) + 1 MAC,
        // 3; every later step 4 new inputs (and a weight), 4 partial sums back, 2 cycles: 3 + 11 x 2 = 25.
        // DRAM at 6 elements a cycle (L2 tiles: W 1, I 4, O 4): step 0 reads 5 (1 cycle); c = 0 then moves
        // I 4 (+ W 1 when k advances) and writes the previous 4 outputs: 8 or 9, 2 cycles; c = 1 also reads
        // back the partial sums of c = 0: 13 at fold 0 (W advances: 3 cycles), 12 at fold 1 (2). Steps:
        // 3, 2 x 5, then 3 2 3 2 3 2: 28, and the last step, (c1, k2, fold 1), writes its 4 outputs too:
        // 16 elements, 3 cycles instead of 2: 29. W: one weight a (c, k), kept across the folds, 6; I: 4 a
        // step, 48; outputs 4 a step, 48. Before: 28 (the final write-back went to (c0, k0, fold 1), 8 + 4
        // elements, still 2 cycles).
        QTest::newRow("seed 17 case 14040")
            << kRuleConv1d.arg(3).arg(2).arg(8).arg(1)
            << "TemporalMap(1,1) C; TemporalMap(1,1) K; SpatialMap(1,1) X;" << 4 << 8 << 6 << "29 6 48 48";
        // Seed 18, case 12000 of the wide export. K 3, C 3, X 6, S 3 (8 input rows) on 6 PEs, an output
        // column per PE, steps (c, k): 9, each PE 3 MACs (3 cycles). On chip: step 0 takes 8 rows and 3
        // weights (11: 3 cycles) + 3, 6; each later step 3 weights (2) or 11 at a new channel (3), 6
        // partial sums back (2), compute 3: 3 each, 30. DRAM at 5 a cycle (L2 tiles: W 3, I 8, O 6): step 0
        // reads 11 (3 cycles, under 6); at c = 0, k = 1, 2: W 3 + the previous outputs 6, 9 (2); at a new
        // channel W 3, I 8, the partial sums of O[k0] back 6 and O[k2] out 6: 23 (5); then 3 + 6 + 6 = 15
        // (3): 6 3 3 5 3 3 5 3 3 = 34, and the last step writes its 6 outputs too: 21, 5 cycles instead of
        // 3: 36. I 24 (8 a channel, kept across K), W 27 (3 a step), outputs 54 (6 a step). Before: 34 (the
        // final write-back went to (c0, k2), 9 + 6 elements: 3 cycles, as before).
        QTest::newRow("seed 18 case 12000")
            << kRuleConv1d.arg(3).arg(3).arg(6).arg(3)
            << "TemporalMap(1,1) C; SpatialMap(1,1) X; TemporalMap(1,1) K; TemporalMap(3,3) S;" << 6 << 6 << 5
            << "36 24 27 54";
    }
    void offchipLastStepByHand()
    {
        QFETCH(QString, loop);
        QFETCH(QString, flow);
        QFETCH(int, pes);
        QFETCH(int, bw);
        QFETCH(int, offchip);
        QFETCH(QString, want);
        const cost::Problem p = cost::fromOperator(ir::parseOperator(loop.toStdString(), "last.loop"));
        arch::Accelerator a = hw(pes, bw, 2);
        a.offchipBandwidth = offchip;
        checkTrafficByHand(p, directivesOf(p, flow, "last.m"), a, want, true);
    }

    // The per-case tables' rules for a child level under a SpatialMap on a filter tap (FIX TAP-EXTENT,
    // TAP-IDLE and TAP-COMPUTE, doc/cost-model.md): the child holds one tap, fewer than its own map of the
    // taps names, so the rows it inherits complete that one tap's outputs (at most the layer's); a PE whose
    // tap completes no output of its rows runs no child execution. O[x] += W[s] * I[x + s], X = 2 outputs,
    // S = 2 taps, 3 input rows; 2 PEs, clusters of 1 (PE s holds tap s), NoC bandwidth 4, latency 1: a
    // transfer of e elements takes ceil(e / 4) cycles. The simulator, the step walk and the tables alone
    // count runtime, L2 reads of I and W, output updates, L1 writes of I and W (each child execution
    // starts from empty buffers). "Before": the tables before the rule.
    void tapExtentRuleByHand_data()
    {
        QTest::addColumn<QString>("flow");
        QTest::addColumn<QString>("want"); // runtime, L2 reads of I and W, output updates, L1 writes of I, W
        // One step over all 3 rows: PE 0 computes O0, O1 from I0, I1, PE 1 from I1, I2 (4 MACs). I 3, W 2;
        // both return O0, O1 at the end, reduced: 2. Runtime: the child (one PE) receives 3 rows and a tap,
        // 1 cycle, and computes 2 MACs, 2: 3; the top step receives 3 + 2 elements, 2 cycles, then its child:
        // 2 + 3 = 5. L1: each PE 3 rows and a tap, 6 and 2. Before: O 3 (the child's 3 rows over its map's 2
        // taps).
        QTest::newRow("rows unrolled")
            << "SpatialMap(1,1) S; Cluster(1,P); SpatialMap(1,1) C; TemporalMap(2,2) S;"
            << "5 3 2 2 6 2";
        // TemporalMap(1,1) X: one input row r a step, r = 0, 1, 2; PE s completes output r - s when it
        // exists: (O0), (O1, O0), (-, O1): 4 MACs. I 1 a step, 3; W 2 once. O: PE 0 returns O0 at step 1, PE
        // 1 O0 at step 2; PE 0 computes nothing at step 2 and keeps O1, which both return at the end,
        // reduced: 3. Runtime: the child receives 1 row and 1 tap (1 cycle) and computes 1 MAC: 2. Step 0: 3
        // elements, 1 cycle, then the child: 3; steps 1 and 2: 1 row (1), at most 2 outputs back (1), the
        // child 2: 2 each; 7. L1: the 4 child executions that compute (PE 1 at row 0 and PE 0 at row 2 run
        // none) receive a row and a tap each: 4 and 4. Before: runtime 3 (the child's 1 row over its map's
        // 2 taps completed nothing); before TAP-IDLE, L1 6 and 6 (the idle PEs' executions counted).
        QTest::newRow("one row a step")
            << "SpatialMap(1,1) S; TemporalMap(1,1) X; Cluster(1,P); SpatialMap(1,1) C; TemporalMap(2,2) S;"
            << "7 3 2 3 4 4";
        // TAP-IDLE. TemporalMap(2,2) X: rows 0-1, then row 2. Step 0: PE 0 computes O0, O1 (2 MACs), PE 1
        // O0 (1); step 1: PE 0's tap 0 would complete O2, which does not exist: it runs nothing; PE 1
        // computes O1. I: rows 0-1 multicast, then row 2: 3; W: 2 taps, PE 1 keeps its own: 2. O: at step 1
        // PE 1 returns O0, PE 0 (not running) keeps O0, O1, both return theirs at the end, reduced (O0, O1):
        // 3. Runtime: step 0, 2 rows and 2 taps (1 cycle), the slowest child (2 rows and a tap, 1 cycle; 2
        // MACs): 1 + 3 = 4; step 1: row 2 (1), PE 1's child 1 + 1 = 2, O0 back (1): 2; 6. L1: I 2 + 2 + 1 =
        // 5, W 1 + 1 + 1 = 3 (PE 1's execution at step 1 starts empty). Before: 6 and 4 (PE 0's row 2 and
        // tap at step 1).
        QTest::newRow("idle tap at the last rows")
            << "TemporalMap(2,2) X; SpatialMap(1,1) S; Cluster(1,P); SpatialMap(1,1) C;"
            << "6 3 2 3 5 3";
        // TAP-COMPUTE. The same, the child with its own TemporalMap(1,1) X: one output of its map's 2 taps,
        // a tile of 2 input rows (offset 1). Under one tap such a tile completes 2 outputs, which PE 0
        // computes at step 0 (O0, O1), returning them as the simulator does; every figure is the row's
        // above. Before: runtime 5 (the tile computed one output, PE 0's child 1 + 1 = 2 at step 0).
        QTest::newRow("own output map over one tap")
            << "TemporalMap(2,2) X; SpatialMap(1,1) S; Cluster(1,P); TemporalMap(1,1) X; SpatialMap(1,1) C;"
               " TemporalMap(2,2) S;"
            << "6 3 2 3 5 3";
    }
    void tapExtentRuleByHand()
    {
        QFETCH(QString, flow);
        QFETCH(QString, want);
        const cost::Problem p = cost::fromOperator(ir::parseOperator(
            "operator conv1d(K = 1, C = 1, X = 2, S = 2) { for (k = 0; k < K; k++) for (c = 0; c < C; c++)"
            " for (x = 0; x < X; x++) for (s = 0; s < S; s++) O[k][x] += W[k][c][s] * I[c][x + s]; }",
            "tap.loop"));
        checkTrafficByHand(p, directivesOf(p, flow, "tap.m"), hw(2, 4, 1), want, true, true);
    }

    // FIX TAP-IDLE under a level that steps the rows (doc/cost-model.md): the tap level holds 2 of the 3
    // rows, so its sub-units' positions are the level above's. The operator and accelerator of
    // tapExtentRuleByHand; level 0 (one sub-unit) steps the rows [0, 2), [1, 3); in each, level 1 steps one
    // row at a time over 2 clusters of a PE, PE s holding tap s and computing output r - s of row r when it
    // exists. Rows 0, 1: PE 1 computes nothing at row 0 (output -1); rows 1, 2: PE 0 nothing at row 2
    // (output 2). The 6 child executions that compute each receive their row and tap from empty buffers:
    // L1 writes I 6, W 6 (before: 8, 8, the idle PEs' executions counted, since the tap level alone does
    // not know where its rows lie). L2 reads: I rows 0, 1, 2 once each, 3 (the PEs keep row 1 into the
    // second region); W each PE its tap once, 2. Runtime: a PE's execution receives 2 elements (1 cycle)
    // and computes 1 MAC: 2; level 1 over a region: row and 2 taps (1) then 2, 3; the next row (1), the
    // child 2, an output back (1): 2; 5. Level 0: 2 rows and 2 taps (1) + 5 = 6, then row 2 (1), 5: 5;
    // 11. The simulator, the step walk and the tables alone count all of these (the output updates are
    // left out: the tables count 4, the simulator 3, the shifted rows of class 1).
    void tapIdleBelowByHand()
    {
        const cost::Problem p = cost::fromOperator(ir::parseOperator(
            "operator conv1d(K = 1, C = 1, X = 2, S = 2) { for (k = 0; k < K; k++) for (c = 0; c < C; c++)"
            " for (x = 0; x < X; x++) for (s = 0; s < S; s++) O[k][x] += W[k][c][s] * I[c][x + s]; }",
            "tap.loop"));
        const mdc::Dataflow df = directivesOf(p,
            "SpatialMap(1,1) K; TemporalMap(1,1) X; TemporalMap(2,2) S; Cluster(2,P); TemporalMap(1,1) X;"
            " SpatialMap(1,1) S; Cluster(1,P); SpatialMap(1,1) C;",
            "tap.m");
        const arch::Accelerator a = hw(2, 4, 1);
        const QString want = "11 3 2 6 6"; // runtime, L2 reads of I and W, L1 writes of I and W
        const sim::Totals t = sim::simulate(p, df, a);
        QCOMPARE(QString("%1 %2 %3 %4 %5")
                     .arg(t.runtimeCycles)
                     .arg(t.tensors[0].l2Reads)
                     .arg(t.tensors[1].l2Reads)
                     .arg(t.tensors[0].l1Writes)
                     .arg(t.tensors[1].l1Writes),
            want);
        for (bool walk : {true, false}) {
            cost::Options o;
            o.fidelity = cost::Fidelity::Corrected;
            o.stepWalk = walk;
            const cost::Result r = cost::Evaluator(p, a, o).evaluate(df);
            QCOMPARE(QString("%1 %2 %3 %4 %5")
                         .arg(r.m.runtimeCycles)
                         .arg(r.m.tensors[0].l2Read)
                         .arg(r.m.tensors[1].l2Read)
                         .arg(r.m.tensors[0].l1Write)
                         .arg(r.m.tensors[1].l1Write),
                want);
        }
    }

    // The per-case tables alone (what corrected fidelity uses for mappings too large to walk, so every real
    // layer a search ranks) on the random mappings the Timeloop export writes in its default, narrow space:
    // the first 2000 of seed 1 (`marvel bench sim --seed 1 --exportable narrow`; case 8006, a halo between
    // clusters in lock-step, among them) count the L2 reads and L1 writes of every input, the output
    // updates and the runtime the simulator does. The sanitizer build checks the first 500.
    void tablesOnExportableMappings()
    {
        const int cases = MARVEL_ADDRESS_SANITIZER ? 500 : 2000;
        int kept = 0;
        for (int i = 0; kept < cases; ++i) {
            const sim::RandomCase c = sim::randomCase(1, i);
            if (!sim::keeps(timeloop::SearchSpace::Narrow, c)) continue;
            ++kept;
            for (const auto& k : sim::compareWithCostModel(c, false)) {
                if (k.metric != "l2_reads" && k.metric != "l1_writes" && k.metric != "l2_writes"
                    && k.metric != "runtime")
                    continue;
                const std::string what = "case " + std::to_string(i) + " " + k.metric + " " + k.tensor
                    + ": simulated " + std::to_string(k.simulated) + ", tables " + std::to_string(k.model)
                    + " | " + c.text();
                QVERIFY2(k.agrees(), what.c_str());
            }
        }
    }

    // The spec's worked example 1 (its case table is computed by hand there): runtime 294, 1152 MACs, input
    // L2 reads 144, filter 72; output egress 4 per step x 32 steps = 128 (MAESTRO drops the 4th PE: 96).
    void specExample1()
    {
        mdc::Network net = mdc::readMaestroMapping(kSimEx1, "ex1.m");
        arch::Accelerator a = hw(16, 8, 1);
        a.offchipBandwidth = 1000;
        const sim::Totals t = sim::simulate(cost::fromMaestroLayer(net.layers[0]), net.layers[0].dataflow, a);
        QCOMPARE(t.runtimeCycles, 294);
        QCOMPARE(t.macs, 1152);
        QCOMPARE(t.steps, 32);
        QCOMPARE(t.tensors[0].name, std::string("input"));
        QCOMPARE(t.tensors[0].l2Reads, 144);
        QCOMPARE(t.tensors[0].l1Writes, 4 * 144); // every input element goes to the 4 working PEs
        QCOMPARE(t.tensors[1].l2Reads, 72);
        QCOMPARE(t.tensors[2].l2Writes, 128);
    }

    // TemporalMap(2,1) M over M = 4 visits rows [0,2) [1,3) [2,4): rows 1 and 2 are computed twice.
    void recomputedMacs()
    {
        const cost::Problem p = cost::fromOperator(ir::parseOperator(
            "operator g(M = 4, N = 1, K = 1) { for (m = 0; m < M; m++) for (n = 0; n < N; n++)"
            " for (k = 0; k < K; k++) O[m][n] += A[m][k] * B[k][n]; }",
            "g.loop"));
        const sim::Totals t = sim::simulate(
            p, {Dir::temporal(2, 1, "M"), Dir::spatial(1, 1, "N"), Dir::temporal(1, 1, "K")}, hw(1, 4, 1));
        QCOMPARE(t.macs, 4);
        QCOMPARE(t.recomputedMacs, 2);
        QCOMPARE(t.steps, 3);
        QCOMPARE(t.tensors.back().l1Writes, 6);
    }

    // Two levels: GEMM M=4 on 2 clusters of 2 PEs. Level 0 gives cluster c rows [2c, 2c+2) (SpatialMap(2,2)
    // M), level 1 one row per PE. One step per level, so one frame; every PE computes K = 3 MACs.
    // Cluster ingress: A rows 2 x K 3 = 6 per cluster, B 3 multicast: 12 + 3 = 15 from L2.
    // Level 1 per cluster: A 3 + 3, B 3 (multicast) = 9 elements -> delay 9 (bw 1, latency 1), compute 3:
    // child runtime 12. Level 0: delay(15) = 15, first step 15 + 12 = 27.
    void twoLevelsByHand()
    {
        const cost::Problem p = cost::fromOperator(ir::parseOperator(
            "operator g(M = 4, N = 1, K = 3) { for (m = 0; m < M; m++) for (n = 0; n < N; n++)"
            " for (k = 0; k < K; k++) O[m][n] += A[m][k] * B[k][n]; }",
            "g.loop"));
        const mdc::Dataflow df = {Dir::spatial(2, 2, "M"), Dir::temporal(3, 3, "K"), Dir::temporal(1, 1, "N"),
            Dir::cluster(2), Dir::spatial(1, 1, "M")};
        sim::Simulator s(p, df, hw(4, 1, 1));
        const sim::Layout& lay = s.layout();
        QCOMPARE(lay.levels.size(), size_t(2));
        QCOMPARE(lay.levels[0].subUnits, 2);
        QCOMPARE(lay.levels[0].pesPerSubUnit, 2);
        QCOMPARE(lay.levels[1].units, 2);
        QCOMPARE(lay.levels[1].userDirectives, (std::vector<std::string>{"SpatialMap(1,1) M"}));
        const auto frames = s.frames(0, 10);
        QCOMPARE(frames.size(), size_t(1));
        for (int pe = 0; pe < 4; ++pe) {
            QVERIFY(frames[0].pes[size_t(pe)].active);
            QCOMPARE(frames[0].pes[size_t(pe)].macs, 3);
            QCOMPARE(frames[0].pes[size_t(pe)].tensors[0].ranges.at(0), (sim::Range{pe, pe + 1}));
        }
        QCOMPARE(frames[0].levels[1].ingress, 9);
        QCOMPARE(frames[0].levels[1].cycles, 12);
        QCOMPARE(frames[0].levels[0].ingress, 15);
        QCOMPARE(frames[0].levels[0].compute, 12);
        const sim::Totals t = s.run();
        QCOMPARE(t.runtimeCycles, 27);
        QCOMPARE(t.tensors[0].l2Reads, 12);
        QCOMPARE(t.tensors[0].l1Writes, 12);
        QCOMPARE(t.tensors[1].l2Reads, 3);
        QCOMPARE(t.tensors[1].l1Writes, 12); // B reaches every PE
        QCOMPARE(t.macs, 12);
    }

    // Frames are produced lazily: a window of frames equals the same frames of the full run, and a sink
    // that stops ends the run.
    void framesWindow()
    {
        mdc::Network net = mdc::readMaestroMapping(kSimEx1, "ex1.m");
        sim::Simulator s(cost::fromMaestroLayer(net.layers[0]), net.layers[0].dataflow, hw(16, 8, 1));
        std::vector<sim::Frame> all;
        s.run([&](const sim::Frame& f) {
            all.push_back(f);
            return true;
        });
        QCOMPARE(all.size(), size_t(32));
        const auto some = s.frames(5, 3);
        QCOMPARE(some.size(), size_t(3));
        for (int k = 0; k < 3; ++k) {
            QCOMPARE(some[size_t(k)].index, 5 + k);
            for (size_t pe = 0; pe < some[size_t(k)].pes.size(); ++pe) {
                QCOMPARE(some[size_t(k)].pes[pe].macs, all[size_t(5 + k)].pes[pe].macs);
                QCOMPARE(
                    some[size_t(k)].pes[pe].tensors[0].ranges, all[size_t(5 + k)].pes[pe].tensors[0].ranges);
                QCOMPARE(some[size_t(k)].pes[pe].tensors[0].arrived,
                    all[size_t(5 + k)].pes[pe].tensors[0].arrived);
            }
        }
        int seen = 0;
        s.run([&](const sim::Frame&) { return ++seen < 2; });
        QCOMPARE(seen, 2);
    }

    // Too big: refused with the PE-step count and what to shrink.
    void sizeLimit()
    {
        const cost::Problem p = cost::fromOperator(ir::parseOperator(
            "operator g(M = 4000, N = 100, K = 64) { for (m = 0; m < M; m++) for (n = 0; n < N; n++)"
            " for (k = 0; k < K; k++) O[m][n] += A[m][k] * B[k][n]; }",
            "g.loop"));
        try {
            sim::Simulator s(p, {Dir::temporal(1, 1, "M"), Dir::spatial(1, 1, "K"), Dir::temporal(1, 1, "N")},
                hw(64, 4, 1));
            QFAIL("expected a refusal");
        } catch (const InputError& e) {
            const std::string m = e.diagnostics().at(0).message;
            // 4000 x 100 steps x 64 PEs = 25 600 000 PE-steps: 3x the limit; M has the most tiles.
            QVERIFY2(m.find("25600000 PE-steps") != std::string::npos, m.c_str());
            QVERIFY2(m.find("3x too many") != std::string::npos, m.c_str());
            QVERIFY2(m.find("shrink M from 4000 to at most 1333") != std::string::npos, m.c_str());
        }
    }

    // "Animate a shrunken copy": the dimension with the most tiles halves until the run fits. The GEMM
    // above: M has 4000 tiles, N 100, K one fold; M 2000 still gives 12 800 000 PE-steps, M 1000 gives
    // 6 400 000. A window halves its outputs and its rows follow, its taps stay: CONV1D with 3 000 000
    // outputs (3 000 002 input rows) on 4 PEs with the taps spread is 3 000 000 steps x 4 PEs; 1 500 000
    // outputs (1 500 002 rows) fit. A mapping that is wrong for another reason gets no copy.
    void shrunkenCopy()
    {
        const cost::Problem g = cost::fromOperator(ir::parseOperator(
            "operator g(M = 4000, N = 100, K = 64) { for (m = 0; m < M; m++) for (n = 0; n < N; n++)"
            " for (k = 0; k < K; k++) O[m][n] += A[m][k] * B[k][n]; }",
            "g.loop"));
        const mdc::Dataflow gdf
            = {Dir::temporal(1, 1, "M"), Dir::spatial(1, 1, "K"), Dir::temporal(1, 1, "N")};
        const auto small = sim::shrunkenCopy(g, gdf, hw(64, 4, 1));
        QVERIFY(small);
        QCOMPARE(small->shrunk, std::string("M 4000 -> 1000"));
        QCOMPARE(small->problem.dim("M")->size, 1000);
        QCOMPARE(small->problem.dim("N")->size, 100);
        sim::Simulator fits(small->problem, gdf, hw(64, 4, 1));
        QCOMPARE(fits.layout().frameBound, 1000 * 100);

        const cost::Problem c = cost::fromOperator(ir::parseOperator(
            "operator c(X = 3000000, S = 3) { for (x = 0; x < X; x++) for (s = 0; s < S; s++)"
            " O[x] += W[s] * I[x + s]; }",
            "c.loop"));
        const mdc::Dataflow cdf = {Dir::spatial(1, 1, "S"), Dir::temporal(1, 1, "X")};
        const auto shorter = sim::shrunkenCopy(c, cdf, hw(4, 4, 1));
        QVERIFY(shorter);
        QCOMPARE(shorter->shrunk, std::string("X 3000000 -> 1500000"));
        QCOMPARE(shorter->problem.dim("X")->size, 1500000);
        QCOMPARE(shorter->problem.dim("X+S")->size, 1500002);
        QCOMPARE(shorter->problem.dim("S")->size, 3);
        sim::Simulator::check(shorter->problem, cdf, hw(4, 4, 1));

        QVERIFY(!sim::shrunkenCopy(g, {Dir::temporal(1, 1, "Q")}, hw(64, 4, 1)));
    }

    // The taps spread over the PEs (SpatialMap(1,1) S), 2-output tiles (TemporalMap(2,2) X: input rows
    // [r, r+2), r = 0, 2, 4, 6), K in tiles of 2 and 1, NoC 4 elements/cycle, latency 2, 2 SIMD lanes.
    // Tap 0 completes outputs {r, r+1}, tap 1 (input row x + 1) outputs {r-1, r}, clipped to [0, 7):
    //   r = 0: {0,1} u {0} = 2 outputs; r = 2: {2,3} u {1,2} = 3; r = 4: 3; r = 6: {6} u {5,6} = 2.
    //   Output L2 writes: 10 per k, 30 in all (one tile's worth per step, 2 per k, would give 24).
    // Per step (K tile of 2, then of 1; ingress: W at each K tile, 2 new input rows every step):
    //   k 2: r=0: ingress 4+2 = 6 (delay 3), compute ceil(2*2/2) = 2, first step 3 + 2 = 5;
    //        r=2, r=4: ingress 2 (2), compute 2, egress 6 sums (3): 3 each; r=6: egress 4 (2), compute 2: 2.
    //   k 1: ingress 2+2 (2), then 2 (2); compute 1; egress at most 3 (2): 2 per step, 8 in all.
    //   Runtime 5 + 3 + 3 + 2 + 8 = 21 cycles; W read 4 + 2 = 6, I read 8 x 2 = 16; 3*7*2 = 42 MACs.
    void tapParallelMappingByHand()
    {
        const cost::Problem p = cost::fromOperator(ir::parseOperator(kConv1dKcs, "conv1d.loop"));
        const mdc::Dataflow df = {Dir::spatial(1, 1, "S"), Dir::temporal(1, 1, "C"), Dir::temporal(2, 2, "K"),
            Dir::temporal(2, 2, "X")};
        arch::Accelerator acc = hw(6, 4, 2);
        acc.simdLanes = 2;
        cost::Options o;
        o.fidelity = cost::Fidelity::Corrected;
        const cost::Result r = cost::Evaluator(p, acc, o).evaluate(df);
        auto tensor = [&](const std::string& name) {
            for (size_t t = 0; t < r.tensorNames.size(); ++t)
                if (r.tensorNames[t] == name) return r.m.tensors[t];
            return cost::TensorCounts{};
        };
        QCOMPARE(r.m.runtimeCycles, 21);
        QCOMPARE(r.m.macs, 42);
        QCOMPARE(tensor("O").l2Write, 30);
        QCOMPARE(tensor("W").l2Read, 6);
        QCOMPARE(tensor("I").l2Read, 16);

        const sim::Totals t = sim::simulate(p, df, acc);
        QCOMPARE(t.runtimeCycles, 21);
        QCOMPARE(t.macs, 42);
        QCOMPARE(t.tensors[size_t(tensorIndex(sim::Simulator(p, df, acc).layout(), "O"))].l2Writes, 30);
    }

    // The cost model check on the random set (the same one `marvel bench sim` measures): the simulator's MACs
    // equal the analytic count, and corrected fidelity agrees with the simulator on runtime and traffic
    // exactly, at every number of levels (1200 cases, taps spread over PEs and overlapping tiles among them),
    // DRAM traffic included (elements and bytes per tensor, in both ways of summing it).
    void costModelOnRandomMappings()
    {
        int exact = 0, tap = 0, tablesDiffer = 0;
        for (int i = 0; i < 1200; ++i) {
            const sim::RandomCase c = sim::randomCase(1, i);
            bool all = true;
            for (const auto& k : sim::compareWithCostModel(c)) {
                const std::string what = "case " + std::to_string(i) + " " + k.metric + " " + k.tensor
                    + ": simulated " + std::to_string(k.simulated) + ", model " + std::to_string(k.model)
                    + " | " + c.text();
                QVERIFY2(k.agrees(), what.c_str());
                all = all && k.agrees();
            }
            exact += all ? 1 : 0;
            tap += spatialOnTap(c) ? 1 : 0;
            bool tables = true;
            for (const auto& k : sim::compareWithCostModel(c, false)) {
                tables = tables && k.agrees();
                // The DRAM traffic does not depend on the walk: the general sums agree everywhere too.
                if (k.metric.rfind("dram", 0) == 0) {
                    const std::string what = "case " + std::to_string(i) + " (general DRAM sums) " + k.metric
                        + " " + k.tensor + ": simulated " + std::to_string(k.simulated) + ", model "
                        + std::to_string(k.model) + " | " + c.text();
                    QVERIFY2(k.agrees(), what.c_str());
                }
            }
            tablesDiffer += tables ? 0 : 1;
        }
        QCOMPARE(exact, 1200);
        QVERIFY(tap >= 60); // the tap-parallel class is well represented
        // The walk matters: the per-case tables alone (used beyond the walk's size) miss some of them.
        QVERIFY(tablesDiffer >= 60);
    }
};

QTEST_GUILESS_MAIN(TestSim)
#include "tst_sim.moc"
