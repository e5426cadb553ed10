// The cost model over operators of the operator language: a conv2d operator mapped on its loop names
// (Y, X = output rows/cols) gives exactly MAESTRO's CONV layer mapped on Y'/X'; GEMM operator = GEMM
// layer; other operators evaluate with the loop-count MAC number; export to MAESTRO round-trips.
#include <QTest>

#include "core/cost/costmodel.h"
#include "core/cost/report.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/workloads/workloads.h"

Q_DECLARE_METATYPE(marvel::mdc::Dataflow)

using namespace marvel;
using Dir = mdc::Directive;

namespace {

arch::Accelerator platform(std::int64_t pes, std::int64_t bw)
{
    arch::Accelerator a;
    a.numPes = pes;
    a.nocBandwidth = bw;
    a.nocLatency = 1;
    a.offchipBandwidth = 1000000;
    return a;
}

const std::string kConv2d = workloads::conv2dLoopText(64, 64, 222, 222, 3, 3, 1, 1);

const char* kOperatorGemm = R"(operator gemm(M = 100, N = 60, K = 70) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++)
      for (int k = 0; k < K; k++)
        C[m][n] += A[m][k] * B[k][n];
})";

// Operator dataflow -> the same dataflow on MAESTRO's names (Y -> Y', X -> X').
mdc::Dataflow toPrimed(mdc::Dataflow df)
{
    for (auto& d : df)
        if (d.kind != Dir::Kind::Cluster && (d.dim == "Y" || d.dim == "X")) d.dim += "'";
    return df;
}

void compareResults(const cost::Result& a, const cost::Result& b)
{
    auto ra = cost::reportRow(a);
    auto rb = cost::reportRow(b);
    QCOMPARE(ra.size(), rb.size());
    for (size_t i = 0; i < ra.size(); ++i) {
        QCOMPARE(ra[i].name, rb[i].name);
        QVERIFY2(
            ra[i].text() == rb[i].text(), (ra[i].name + ": " + ra[i].text() + " vs " + rb[i].text()).c_str());
    }
}

// A 3x3 convolution of one channel in and out over a 7x7 input, dilation `d` on rows and columns, as a
// MAESTRO-style layer (mdc::LayerDim::dilation on Y and X; Y', X' derived).
mdc::Layer dilatedConvLayer(std::int64_t d)
{
    mdc::Layer l;
    l.name = "atrous";
    l.type = "CONV";
    l.dims = {{"K", 1, 1}, {"C", 1, 1}, {"R", 3, 1}, {"S", 3, 1}, {"Y", 7, 1, d}, {"X", 7, 1, d}};
    return l;
}

// The same convolution written as an operator: the taps 2 rows and columns apart (I[c][y + 2*r][x + 2*s]).
const std::string kAtrousOperator = workloads::conv2dLoopText(1, 1, 3, 3, 3, 3, 1, 1, 1, 2, 2);

} // namespace

class TestCostModelOperator : public QObject
{
    Q_OBJECT
private slots:
    void convEquivalence_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("pes");
        QTest::addColumn<int>("bw");
        QTest::addColumn<mdc::Dataflow>("dataflow");
        // Output-stationary rows (yxp_os style), weight-stationary (kcp_ws), row-stationary-like (rs).
        QTest::newRow("yxp_os P1") << "os" << 168 << 12
                                   << mdc::Dataflow{Dir::temporal(1, 1, "K"), Dir::temporal(1, 1, "C"),
                                          Dir::spatial(1, 1, "Y"), Dir::temporal(8, 8, "X"),
                                          Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S"), Dir::cluster(8),
                                          Dir::spatial(1, 1, "X"), Dir::temporal(3, 3, "R"),
                                          Dir::temporal(3, 3, "S")};
        QTest::newRow("kcp_ws P2") << "ws" << 1024 << 128
                                   << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::temporal(64, 64, "C"),
                                          Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S"),
                                          Dir::temporal(1, 1, "Y"), Dir::temporal(1, 1, "X"),
                                          Dir::cluster(64), Dir::spatial(1, 1, "C")};
        QTest::newRow("ykp P1 edges")
            << "edges" << 168 << 12
            << mdc::Dataflow{Dir::spatial(5, 5, "Y"), Dir::temporal(7, 7, "K"), Dir::temporal(3, 3, "C"),
                   Dir::temporal(10, 10, "X"), Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S")};
    }

    void convEquivalence()
    {
        QFETCH(int, pes);
        QFETCH(int, bw);
        QFETCH(mdc::Dataflow, dataflow);
        ir::Operator op = ir::parseOperator(kConv2d, "conv2d.loop");
        cost::Problem fromOp = cost::fromOperator(op);
        // VGG16 CONV2 as MAESTRO declares it: input-centric Y, X.
        mdc::Layer layer;
        layer.name = "CONV2";
        layer.type = "CONV";
        layer.dims = {{"K", 64, 1}, {"C", 64, 1}, {"R", 3, 1}, {"S", 3, 1}, {"Y", 224, 1}, {"X", 224, 1}};
        cost::Problem fromLayer = cost::fromMaestroLayer(layer);
        QCOMPARE(fromOp.analyticMacs(), fromLayer.analyticMacs());
        auto acc = platform(pes, bw);
        cost::Result a = cost::Evaluator(fromOp, acc).evaluate(dataflow);
        cost::Result b = cost::Evaluator(fromLayer, acc).evaluate(toPrimed(dataflow));
        QCOMPARE(a.m.macs, std::int64_t(64) * 64 * 222 * 222 * 9);
        compareResults(a, b);

        // Export for MAESTRO, write, read back: the same numbers again.
        std::optional<mdc::Layer> exported = cost::toMaestroLayer(fromOp, dataflow);
        QVERIFY(exported);
        QCOMPARE(exported->type, std::string("CONV"));
        mdc::Network net;
        net.name = "export";
        net.layers.push_back(*exported);
        mdc::Network back = mdc::readMaestroMapping(mdc::writeMaestroMapping(net), "export.m");
        cost::Result c = cost::Evaluator(cost::fromMaestroLayer(back.layers.at(0)), acc)
                             .evaluate(back.layers[0].dataflow);
        compareResults(a, c);
    }

    // NGCONV (grouped convolution) is MAESTRO's CONV with a group dimension G: AlexNet's CONV2 as two
    // groups of 128 filters over 48 channels performs exactly the MACs of the same layer written as one
    // CONV with K = 256 and C = 48 per group (the convention of the reference README, edge26).
    void groupedConvolution_data()
    {
        QTest::addColumn<mdc::Dataflow>("dataflow");
        QTest::newRow("K spatial") << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::temporal(1, 1, "G"),
            Dir::temporal(4, 4, "C"), Dir::temporal(5, 5, "R"), Dir::temporal(5, 5, "S"),
            Dir::temporal(5, 1, "Y"), Dir::temporal(5, 1, "X")};
        QTest::newRow("G and C over clusters") << mdc::Dataflow{Dir::spatial(1, 1, "G"),
            Dir::temporal(8, 8, "K"), Dir::temporal(16, 16, "C"), Dir::temporal(5, 5, "R"),
            Dir::temporal(5, 5, "S"), Dir::temporal(5, 1, "Y"), Dir::temporal(5, 1, "X"), Dir::cluster(16),
            Dir::spatial(1, 1, "C"), Dir::temporal(5, 5, "R"), Dir::temporal(5, 5, "S")};
    }
    void groupedConvolution()
    {
        QFETCH(mdc::Dataflow, dataflow);
        mdc::Layer layer;
        layer.name = "CONV2";
        layer.type = "NGCONV";
        layer.dims = {
            {"G", 2, 1}, {"K", 128, 1}, {"C", 48, 1}, {"R", 5, 1}, {"S", 5, 1}, {"Y", 31, 1}, {"X", 31, 1}};
        const cost::Problem problem = cost::fromMaestroLayer(layer);
        const std::int64_t expected = std::int64_t(2) * 128 * 48 * 5 * 5 * 27 * 27; // G K C R S Y' X'
        QCOMPARE(problem.analyticMacs(), expected);
        cost::Result r = cost::Evaluator(problem, platform(168, 12)).evaluate(dataflow);
        QCOMPARE(r.m.macs, expected);
        // Every filter weight is written to L2 once: G * K * C * R * S elements.
        QCOMPARE(r.m.tensors[1].l2Write, std::int64_t(2) * 128 * 48 * 25);
        // The array cannot beat one MAC per usable PE per cycle.
        QVERIFY(r.m.runtimeCycles >= expected / 168);
    }

    void gemmEquivalence()
    {
        ir::Operator op = ir::parseOperator(kOperatorGemm, "gemm.loop");
        cost::Problem fromOp = cost::fromOperator(op);
        mdc::Layer layer;
        layer.name = "G";
        layer.type = "GEMM";
        layer.dims = {{"M", 100, 1}, {"N", 60, 1}, {"K", 70, 1}};
        mdc::Dataflow df{Dir::spatial(4, 4, "M"), Dir::temporal(16, 16, "N"), Dir::temporal(8, 8, "K"),
            Dir::cluster(16), Dir::spatial(1, 1, "N"), Dir::temporal(8, 8, "K")};
        auto acc = platform(168, 12);
        cost::Result a = cost::Evaluator(fromOp, acc).evaluate(df);
        cost::Result b = cost::Evaluator(cost::fromMaestroLayer(layer), acc).evaluate(df);
        QCOMPARE(a.m.macs, std::int64_t(100 * 60 * 70));
        compareResults(a, b);
        auto exported = cost::toMaestroLayer(fromOp, df);
        QVERIFY(exported);
        QCOMPARE(exported->type, std::string("GEMM"));
    }

    // Operators that are not convolutions: sane MAC counts (the loop count) and positive runtime.
    void otherOperators_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<mdc::Dataflow>("dataflow");
        QTest::addColumn<qlonglong>("macs");
        QTest::addColumn<QString>("maestroType");
        QTest::newRow("depthwise") << R"(operator dw(C = 32, Y = 30, X = 30, R = 3, S = 3) {
  for (int c = 0; c < C; c++) for (int y = 0; y < Y; y++) for (int x = 0; x < X; x++)
  for (int r = 0; r < R; r++) for (int s = 0; s < S; s++)
    O[c][y][x] += W[c][r][s] * I[c][y + r][x + s]; })"
                                   << mdc::Dataflow{Dir::spatial(1, 1, "C"), Dir::temporal(2, 2, "Y"),
                                          Dir::temporal(4, 4, "X"), Dir::temporal(3, 3, "R"),
                                          Dir::temporal(3, 3, "S")}
                                   << 32LL * 30 * 30 * 9 << "DSCONV";
        QTest::newRow("mlp") << R"(operator mlp(B = 16, N = 100, K = 78) {
  for (int b = 0; b < B; b++) for (int n = 0; n < N; n++) for (int k = 0; k < K; k++)
    O[b][n] += W[n][k] * I[b][k]; })"
                             << mdc::Dataflow{Dir::spatial(1, 1, "N"), Dir::temporal(4, 4, "B"),
                                    Dir::temporal(13, 13, "K")}
                             << 16LL * 100 * 78 << "GEMM";
        QTest::newRow("strided conv")
            << R"(operator cs(K = 8, C = 4, Y = 14, X = 14, R = 3, S = 3) {
  for (int k = 0; k < K; k++) for (int c = 0; c < C; c++) for (int y = 0; y < Y; y++)
  for (int x = 0; x < X; x++) for (int r = 0; r < R; r++) for (int s = 0; s < S; s++)
    O[k][y][x] += W[k][c][r][s] * I[c][2 * y + r][2 * x + s]; })"
            << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::temporal(2, 2, "C"), Dir::temporal(1, 1, "Y"),
                   Dir::temporal(1, 1, "X"), Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S")}
            << 8LL * 4 * 14 * 14 * 9 << "CONV";
        QTest::newRow("dilated conv")
            << R"(operator cd(K = 8, C = 4, Y = 10, X = 10, R = 3, S = 3) {
  for (int k = 0; k < K; k++) for (int c = 0; c < C; c++) for (int y = 0; y < Y; y++)
  for (int x = 0; x < X; x++) for (int r = 0; r < R; r++) for (int s = 0; s < S; s++)
    O[k][y][x] += W[k][c][r][s] * I[c][y + 2 * r][x + 2 * s]; })"
            << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::temporal(2, 2, "C"), Dir::temporal(1, 1, "Y"),
                   Dir::temporal(1, 1, "X"), Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S")}
            << 8LL * 4 * 10 * 10 * 9 << "";
    }

    void otherOperators()
    {
        QFETCH(QString, text);
        QFETCH(mdc::Dataflow, dataflow);
        QFETCH(qlonglong, macs);
        QFETCH(QString, maestroType);
        cost::Problem p = cost::fromOperator(ir::parseOperator(text.toStdString(), "op.loop"));
        QCOMPARE(p.analyticMacs(), std::int64_t(macs));
        for (auto f : {cost::Fidelity::Maestro, cost::Fidelity::Corrected}) {
            cost::Options o;
            o.fidelity = f;
            cost::Result r = cost::Evaluator(p, platform(168, 12), o).evaluate(dataflow);
            QVERIFY2(r.m.macs == macs, (std::to_string(int(f)) + ": " + std::to_string(r.m.macs)).c_str());
            QVERIFY(r.m.runtimeCycles > 0);
            QVERIFY(r.m.energy > double(macs));
        }
        auto exported = cost::toMaestroLayer(p, dataflow);
        QCOMPARE(exported.has_value(), !maestroType.isEmpty());
        if (exported) QCOMPARE(QString::fromStdString(exported->type), maestroType);
    }

    // Invalid mappings of an operator give a diagnostic naming the directive, never a crash.
    void invalidMapping_data()
    {
        QTest::addColumn<mdc::Dataflow>("dataflow");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown dim") << mdc::Dataflow{Dir::spatial(1, 1, "Q")} << "not found";
        QTest::newRow("no spatial") << mdc::Dataflow{Dir::temporal(1, 1, "K")} << "no SpatialMap";
        QTest::newRow("partial R") << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::temporal(1, 1, "R")}
                                   << "full size";
        QTest::newRow("too many clusters") << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::cluster(2),
            Dir::spatial(1, 1, "C"), Dir::cluster(2), Dir::spatial(1, 1, "C"), Dir::cluster(2),
            Dir::spatial(1, 1, "C"), Dir::cluster(2), Dir::spatial(1, 1, "C")}
                                           << "at most 3";
        QTest::newRow("clusters exceed PEs") << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::cluster(1000),
            Dir::spatial(1, 1, "C")} << "exceeds";
        QTest::newRow("zero size") << mdc::Dataflow{Dir::spatial(0, 1, "K")} << "at least 1";
        QTest::newRow("output row without window") << mdc::Dataflow{Dir::spatial(1, 1, "K"), Dir::cluster(2),
            Dir::spatial(1, 1, "Y")} << "window dimension";
    }

    // Dilation 2 by hand: 3x3 outputs (7 - (3 - 1) * 2 = 3), 81 MACs, a 7x7 input. One PE computes one
    // output per step, rows outer, columns inner, holding the 5x5 input patch the dilated window spans
    // and receiving what it did not hold the step before: along a row of outputs 25, then 5 new columns
    // twice (35); the first output of the next row keeps rows 1-4 x columns 2-4 of the previous patch
    // (12) and receives 13, then 5 and 5 (23); twice: 35 + 23 + 23 = 81 input reads from L2. The L2 tile
    // is that same patch, so DRAM reads are the same 81. Dilation 1: 5x5 outputs of 3x3 patches, 225
    // MACs; a row of outputs reads 9 + 4 x 3 = 21 (the next row's first patch shares no column with the
    // last one), 105 in all.
    void dilatedConvolutionByHand()
    {
        // The SpatialMap on K (of extent 1) only gives the level its one PE.
        const mdc::Dataflow df{Dir::spatial(1, 1, "K"), Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S"),
            Dir::temporal(1, 1, "Y'"), Dir::temporal(1, 1, "X'")};
        cost::Options o;
        o.fidelity = cost::Fidelity::Corrected;
        auto evaluate = [&](const cost::Problem& p, const mdc::Dataflow& dataflow) {
            cost::Evaluator ev(p, platform(1, 64), o);
            return ev.evaluate(dataflow);
        };
        const cost::Problem dilated = cost::fromMaestroLayer(dilatedConvLayer(2));
        QCOMPARE(dilated.windows.at(0).dilation, std::int64_t(2));
        QCOMPARE(dilated.dim("Y'")->size, std::int64_t(3));
        QCOMPARE(dilated.analyticMacs(), std::int64_t(81));
        const cost::Result r = evaluate(dilated, df);
        QCOMPARE(r.m.macs, std::int64_t(81));
        QCOMPARE(r.inputTensorElems, std::int64_t(49));
        QCOMPARE(r.m.tensors[0].l2Read, std::int64_t(81));
        QCOMPARE(r.m.tensors[0].dramRead, std::int64_t(81));
        QCOMPARE(r.m.tensors[1].l2Read, std::int64_t(9)); // the filter, once
        QCOMPARE(r.m.tensors[2].dramWrite, std::int64_t(9)); // each output once

        const cost::Result plain = evaluate(cost::fromMaestroLayer(dilatedConvLayer(1)), df);
        QCOMPARE(plain.m.macs, std::int64_t(225));
        QCOMPARE(plain.inputTensorElems, std::int64_t(49));
        QCOMPARE(plain.m.tensors[0].l2Read, std::int64_t(105));
        QCOMPARE(plain.m.tensors[0].dramRead, std::int64_t(105));
        QCOMPARE(plain.m.tensors[2].dramWrite, std::int64_t(25));

        // The written operator (I[c][y + 2 * r][x + 2 * s]) mapped on its loop names: the same figures.
        const cost::Problem op = cost::fromOperator(ir::parseOperator(kAtrousOperator, "atrous.loop"));
        QCOMPARE(op.windows.at(0).dilation, std::int64_t(2));
        QCOMPARE(op.dim("Y+R")->size, std::int64_t(7));
        compareResults(evaluate(op,
                           {Dir::spatial(1, 1, "K"), Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S"),
                               Dir::temporal(1, 1, "Y"), Dir::temporal(1, 1, "X")}),
            r);
        // A whole-layer tile reads the input once, dilated or not.
        const mdc::Dataflow whole{Dir::spatial(1, 1, "K"), Dir::temporal(3, 3, "R"), Dir::temporal(3, 3, "S"),
            Dir::temporal(3, 3, "Y'"), Dir::temporal(3, 3, "X'")};
        QCOMPARE(evaluate(dilated, whole).m.tensors[0].l2Read, std::int64_t(49));
        QCOMPARE(evaluate(dilated, whole).m.tensors[0].dramRead, std::int64_t(49));
    }

    void invalidMapping()
    {
        QFETCH(mdc::Dataflow, dataflow);
        QFETCH(QString, message);
        cost::Problem p = cost::fromOperator(ir::parseOperator(kConv2d, "conv2d.loop"));
        cost::Evaluator ev(p, platform(168, 12));
        cost::Metrics m;
        QVERIFY(!ev.evaluateMetrics(dataflow, m));
        std::string text = ev.lastError().format();
        QVERIFY2(text.find(message.toStdString()) != std::string::npos, text.c_str());
        QVERIFY_THROWS_EXCEPTION(InputError, ev.evaluate(dataflow));
    }
};

QTEST_APPLESS_MAIN(TestCostModelOperator)
#include "tst_costmodel_operator.moc"
