#include <numeric>
#include <stop_token>

#include <QTest>

#include "core/search/offchip.h"
#include "core/search/roofline.h"
#include "core/search/space_size.h"
#include "db_brute_force.h"

using bruteforce::affine;
using bruteforce::ref;
using namespace marvel;

namespace {

ir::LoopInfo loop(const std::string& it, std::int64_t extent)
{
    ir::LoopInfo l;
    l.iterator = it;
    l.lower = affine({});
    l.upper = affine({}, extent);
    l.extent = extent;
    std::string dim = it;
    for (auto& ch : dim)
        ch = char(std::toupper(static_cast<unsigned char>(ch)));
    l.dimName = dim;
    return l;
}

ir::Expr refExpr(const ir::TensorRef& r)
{
    ir::Expr e;
    e.kind = ir::Expr::Kind::Ref;
    e.ref = r;
    return e;
}

ir::Statement macStatement(const ir::TensorRef& out, const ir::TensorRef& a, const ir::TensorRef& b)
{
    ir::Statement s;
    s.target = out;
    s.op = ir::Statement::Op::AddAssign;
    s.value.kind = ir::Expr::Kind::Mul;
    s.value.operands = {refExpr(a), refExpr(b)};
    return s;
}

// O[k][y][x] += W[k][c][r][s] * I[c][stride*y + r][stride*x + s]
ir::PerfectNest conv(std::int64_t K, std::int64_t C, std::int64_t Y, std::int64_t X, std::int64_t R,
    std::int64_t S, std::int64_t stride)
{
    ir::PerfectNest nest;
    nest.loops = {loop("k", K), loop("c", C), loop("y", Y), loop("x", X), loop("r", R), loop("s", S)};
    auto o = ref("O", {affine({{"k", 1}}), affine({{"y", 1}}), affine({{"x", 1}})});
    auto w = ref("W", {affine({{"k", 1}}), affine({{"c", 1}}), affine({{"r", 1}}), affine({{"s", 1}})});
    auto in = ref(
        "I", {affine({{"c", 1}}), affine({{"y", stride}, {"r", 1}}), affine({{"x", stride}, {"s", 1}})});
    nest.statements = {macStatement(o, w, in)};
    return nest;
}

ir::PerfectNest gemm(std::int64_t M, std::int64_t N, std::int64_t K)
{
    ir::PerfectNest nest;
    nest.loops = {loop("m", M), loop("n", N), loop("k", K)};
    nest.statements = {macStatement(ref("C", {affine({{"m", 1}}), affine({{"n", 1}})}),
        ref("A", {affine({{"m", 1}}), affine({{"k", 1}})}),
        ref("B", {affine({{"k", 1}}), affine({{"n", 1}})}))};
    return nest;
}

arch::Accelerator accel(std::int64_t l2Bytes, std::int64_t blockBytes)
{
    arch::Accelerator acc;
    acc.numPes = 16;
    acc.l2Bytes = l2Bytes;
    acc.dramBlockBytes = blockBytes;
    acc.bytesPerElement = 1;
    return acc;
}

struct Brute
{
    bool found = false;
    std::int64_t blocks = 0, volume = 1;
    std::vector<std::int64_t> tile;
};

// Every tile (all sizes or divisors) and every layout, counted by enumeration.
Brute bruteForce(const ir::PerfectNest& nest, const arch::Accelerator& acc, bool divisorsOnly,
    const std::vector<std::int64_t>& maxTile = {})
{
    std::vector<ir::TensorRef> refs;
    for (const auto& st : nest.statements) {
        refs.push_back(st.target);
        for (const auto& op : st.value.operands)
            refs.push_back(op.ref);
    }
    std::vector<std::int64_t> tile(nest.loops.size(), 1);
    Brute best;
    std::function<void(std::size_t)> rec = [&](std::size_t i) {
        if (i == tile.size()) {
            std::map<std::string, std::int64_t> named;
            std::int64_t volume = 1;
            for (std::size_t l = 0; l < tile.size(); ++l) {
                named[nest.loops[l].iterator] = tile[l];
                volume *= tile[l];
            }
            std::int64_t blocks = 0, elements = 0;
            for (const auto& r : refs) {
                std::map<std::string, std::int64_t> own;
                for (const auto& s : r.subscripts)
                    for (const auto& t : s.terms)
                        own[t.first] = named[t.first];
                elements += bruteforce::elements(r, own);
                std::int64_t bestLayout = INT64_MAX;
                for (int d = 0; d < int(r.subscripts.size()); ++d)
                    bestLayout = std::min(bestLayout, bruteforce::blocks(r, own, d, acc.dramBlockBytes));
                blocks += bestLayout;
            }
            if (2 * elements > acc.l2Bytes) return;
            __int128 lhs = __int128(blocks) * best.volume, rhs = __int128(best.blocks) * volume;
            if (!best.found || lhs < rhs
                || (lhs == rhs && (volume > best.volume || (volume == best.volume && tile > best.tile))))
                best = {true, blocks, volume, tile};
            return;
        }
        for (std::int64_t v = 1; v <= nest.loops[i].extent; ++v) {
            if (divisorsOnly && nest.loops[i].extent % v != 0) continue;
            if (i < maxTile.size() && maxTile[i] > 0 && v > maxTile[i]) continue;
            tile[i] = v;
            rec(i + 1);
        }
        tile[i] = 1;
    };
    rec(0);
    return best;
}

} // namespace

class TestOffChip : public QObject
{
    Q_OBJECT
private slots:
    void bruteForceOptimum_data()
    {
        QTest::addColumn<int>("stride");
        QTest::addColumn<bool>("divisorsOnly");
        QTest::addColumn<qint64>("block");
        QTest::addColumn<qint64>("l2");
        for (int stride : {1, 2})
            for (bool div : {true, false})
                for (qint64 block : {1, 4})
                    for (qint64 l2 : {30, 64, 1000})
                        QTest::addRow(
                            "stride%d %s B%lld L2=%lld", stride, div ? "divisors" : "all", block, l2)
                            << stride << div << block << l2;
    }
    void bruteForceOptimum()
    {
        QFETCH(int, stride);
        QFETCH(bool, divisorsOnly);
        QFETCH(qint64, block);
        QFETCH(qint64, l2);
        auto nest = conv(2, 3, 4, 3, 2, 2, stride);
        auto acc = accel(l2, block);
        search::OffChipOptions options;
        options.divisorsOnly = divisorsOnly;
        options.everyTileSize = true; // the brute force tries every size
        auto sol = search::solveOffChip(nest, {}, acc, options);
        Brute brute = bruteForce(nest, acc, divisorsOnly);
        QVERIFY(brute.found);
        QVERIFY(sol.feasible);
        QCOMPARE(sol.distinctBlocksPerTile * brute.volume, brute.blocks * sol.iterationsPerTile);
        QCOMPARE(sol.tile, brute.tile);
        QVERIFY(sol.l2FootprintBytes <= l2);
        QCOMPARE(sol.costPerIteration, double(brute.blocks) / double(brute.volume));
        // The reported cost is the one offChipCost gives for the chosen tile and layouts.
        auto again = search::offChipCost(nest, sol.tile, sol.layouts, acc, options);
        QCOMPARE(again.distinctBlocks, sol.distinctBlocksPerTile);
        QVERIFY(again.fitsL2);
        QVERIFY(sol.evaluated > 0);
    }

    // A stop requested before (or while) the solver runs ends it with `cancelled` and no solution; the
    // same problem without a stop is solved.
    void stopCancels()
    {
        const auto nest = conv(64, 64, 56, 56, 3, 3, 1);
        search::OffChipOptions options;
        options.divisorsOnly = false;
        std::stop_source source;
        source.request_stop();
        options.stop = source.get_token();
        const auto stopped = search::solveOffChip(nest, {}, accel(110592, 64), options);
        QVERIFY(stopped.cancelled);
        QVERIFY(!stopped.feasible);
        QVERIFY(stopped.evaluated < 1024);
        options.stop = {};
        options.divisorsOnly = true;
        const auto solved = search::solveOffChip(nest, {}, accel(110592, 64), options);
        QVERIFY(!solved.cancelled);
        QVERIFY(solved.feasible);
    }

    void maxTileCapsLoops_data()
    {
        QTest::addColumn<std::vector<std::int64_t>>("maxTile");
        QTest::addColumn<bool>("divisorsOnly");
        using V = std::vector<std::int64_t>;
        // Output rows capped at one (how the search keeps the second strided output of a window in
        // maestro fidelity), at a size that is no divisor of the extent, several loops, and missing or
        // zero entries meaning the extent.
        for (bool div : {true, false}) {
            const char* mode = div ? "divisors" : "all";
            QTest::addRow("y<=1 %s", mode) << V{0, 0, 1} << div;
            QTest::addRow("y<=3 %s", mode) << V{0, 0, 3} << div;
            QTest::addRow("k<=1 x<=2 %s", mode) << V{1, 0, 0, 2} << div;
            QTest::addRow("none %s", mode) << V{} << div;
        }
    }
    void maxTileCapsLoops()
    {
        QFETCH(std::vector<std::int64_t>, maxTile);
        QFETCH(bool, divisorsOnly);
        // Stride 2 with ample L2: the uncapped optimum is the whole nest, so every cap binds.
        auto nest = conv(2, 3, 4, 3, 2, 2, 2);
        auto acc = accel(1000, 4);
        search::OffChipOptions options;
        options.divisorsOnly = divisorsOnly;
        options.everyTileSize = true; // the brute force tries every size
        options.maxTile = maxTile;
        auto sol = search::solveOffChip(nest, {}, acc, options);
        Brute brute = bruteForce(nest, acc, divisorsOnly, maxTile);
        QVERIFY(sol.feasible);
        QCOMPARE(sol.tile, brute.tile);
        for (std::size_t i = 0; i < maxTile.size(); ++i)
            if (maxTile[i] > 0) QVERIFY(sol.tile[i] <= maxTile[i]);
        QCOMPARE(sol.costPerIteration, double(brute.blocks) / double(brute.volume));
        if (maxTile.empty()) QCOMPARE(sol.tile, (std::vector<std::int64_t>{2, 3, 4, 3, 2, 2}));
    }

    void respectsL2WithDoubleBuffering()
    {
        auto nest = conv(64, 64, 56, 56, 3, 3, 1);
        auto acc = accel(110592, 64);
        auto sol = search::solveOffChip(nest, {}, acc);
        QVERIFY(sol.feasible);
        // Footprint by hand from the tile: O = Tk*Ty*Tx, W = Tk*Tc*Tr*Ts, I = Tc*(Ty+Tr-1)*(Tx+Ts-1).
        auto t = sol.tile;
        std::int64_t elements
            = t[0] * t[2] * t[3] + t[0] * t[1] * t[4] * t[5] + t[1] * (t[2] + t[4] - 1) * (t[3] + t[5] - 1);
        QCOMPARE(sol.l2FootprintBytes, 2 * elements);
        QVERIFY(2 * elements <= 110592);
        // Without double buffering the bigger budget must not give a worse tile.
        search::OffChipOptions single;
        single.doubleBuffering = false;
        auto one = search::solveOffChip(nest, {}, acc, single);
        QVERIFY(one.costPerIteration <= sol.costPerIteration);
        QVERIFY(one.l2FootprintBytes <= 110592);
        QCOMPARE(sol.offChipSpaceSize, 64.0 * 64 * 56 * 56 * 3 * 3 * 720 * (3 * 4 * 3));
        QCOMPARE(sol.offChipSpacePruned, 7.0 * 7 * 8 * 8 * 2 * 2 * 720 * (3 * 4 * 3));
    }

    void infeasibleWhenL2TooSmall()
    {
        auto sol = search::solveOffChip(gemm(4, 4, 4), {}, accel(5, 4));
        QVERIFY(!sol.feasible); // 3 tensors x 1 element x 2 buffers = 6 bytes > 5
        QCOMPARE(sol.tile, (std::vector<std::int64_t>{1, 1, 1}));
    }

    // GEMM with one element per block and ample L2: DB = TmTn + TmTk + TkTn, so the cost is
    // 1/Tk + 1/Tn + 1/Tm and d cost / d T = -1/T^2 at the optimum (the whole extents). K is the
    // shortest loop, so its derivative is the most negative: k goes innermost and the C tile, which k
    // does not index, stays in L2 across the k tiles (output reuse).
    void derivativeOrderGemm()
    {
        auto acc = accel(1 << 20, 1);
        auto sol = search::solveOffChip(gemm(64, 32, 8), {}, acc);
        QCOMPARE(sol.tile, (std::vector<std::int64_t>{64, 32, 8}));
        QCOMPARE(sol.derivatives.size(), std::size_t(3));
        QVERIFY(qAbs(sol.derivatives[0] + 1.0 / (64 * 64)) < 1e-12);
        QVERIFY(qAbs(sol.derivatives[1] + 1.0 / (32 * 32)) < 1e-12);
        QVERIFY(qAbs(sol.derivatives[2] + 1.0 / (8 * 8)) < 1e-12);
        QCOMPARE(sol.order, (std::vector<int>{0, 1, 2}));

        // Same GEMM with M the shortest: m goes innermost (B, not indexed by m, is reused).
        auto other = search::solveOffChip(gemm(4, 32, 64), {}, acc);
        QCOMPARE(other.order.back(), 0);
        QCOMPARE(other.order.front(), 2);
    }

    // L2 binding on a square GEMM: by symmetry and the footprint budget the best tile is balanced.
    void gemmTightL2()
    {
        // 2 * (TmTn + TmTk + TkTn) <= 2 * 3 * 16 * 16: the largest square tile is 16.
        auto acc = accel(2 * 3 * 16 * 16, 1);
        auto sol = search::solveOffChip(gemm(64, 64, 64), {}, acc);
        QCOMPARE(sol.tile, (std::vector<std::int64_t>{16, 16, 16}));
        QCOMPARE(sol.l2FootprintBytes, std::int64_t(2 * 3 * 256));
        QCOMPARE(sol.distinctBlocksPerTile, std::int64_t(3 * 256));
    }

    void rowMajorOnlyWhenLayoutsOff()
    {
        search::OffChipOptions options;
        options.exploreLayouts = false;
        auto sol = search::solveOffChip(conv(4, 4, 8, 8, 3, 3, 1), {}, accel(4096, 64), options);
        for (const auto& layout : sol.layouts)
            QCOMPARE(layout.innermost(), int(layout.dimOrder.size()) - 1);
        QCOMPARE(sol.offChipSpaceSize, 4.0 * 4 * 8 * 8 * 3 * 3 * 720);
    }

    // VGG16 CONV1 on P1 (168 PEs, 12 elements/cycle), figures by hand.
    void rooflineConv()
    {
        auto acc = accel(110592, 64);
        acc.numPes = 168;
        acc.nocBandwidth = 12;
        auto r = search::roofline(conv(64, 3, 224, 224, 3, 3, 1), {}, acc);
        QCOMPARE(r.macs, std::int64_t(64) * 3 * 224 * 224 * 9);
        QCOMPARE(r.computeCycles, (r.macs + 167) / 168);
        // Reads W 64*3*3*3 + I 3*226*226 = 154956, writes O 64*224*224 = 3211264 elements (3366220 in all).
        // The bidirectional NoC moves them at the same time: max(154956, 3211264) / 12 -> 267606.
        QCOMPARE(r.compulsoryElements, std::int64_t(3366220));
        QCOMPARE(r.readElements, std::int64_t(154956));
        QCOMPARE(r.writeElements, std::int64_t(3211264));
        QCOMPARE(r.nocCycles, std::int64_t(267606));
        QCOMPARE(r.cycles, r.computeCycles);
        acc.nocBandwidth = 1;
        QCOMPARE(search::roofline(conv(64, 3, 224, 224, 3, 3, 1), {}, acc).cycles, std::int64_t(3211264));
    }

    // for (i = 0; i < N; i++) for (j = 0; j <= i; j++): N(N+1)/2 iterations.
    void triangularIterations()
    {
        ir::PerfectNest nest;
        nest.loops = {loop("i", 10), loop("j", 10)};
        nest.loops[0].upper = affine({{"N", 1}});
        nest.loops[1].upper = affine({{"i", 1}}, 1);
        nest.statements = {macStatement(ref("O", {affine({{"i", 1}})}),
            ref("A", {affine({{"i", 1}}), affine({{"j", 1}})}), ref("B", {affine({{"j", 1}})}))};
        QCOMPARE(search::iterationCount(nest, {{"N", 10, {}}}), std::int64_t(55));
    }

    void spaceSizes()
    {
        auto nest = gemm(4, 6, 1);
        // Off-chip: 4 * 6 * 1 tiles x 3! orders x 2^3 layouts.
        QCOMPARE(search::offChipSpaceSize(nest, false, true), 4.0 * 6 * 6 * 8);
        QCOMPARE(search::offChipSpaceSize(nest, true, true), 3.0 * 4 * 6 * 8);
        // Chains t1 <= t2 <= t3 <= E: E(E+1)(E+2)/6 -> 20, 56, 1; both orders 36; layouts 8.
        QCOMPARE(search::originalSpaceSize(nest, 16, false, 0.0), 20.0 * 56 * 1 * 36 * 8);
        // On-chip under T3 = (4, 6, 1): pairs t1 <= t2 <= T3: 10, 21, 1; 3! orders.
        QCOMPARE(search::onChipSpaceSize({4, 6, 1}, 16, false, 0.0), 10.0 * 21 * 6);
        // Divisor pairs t1 | t2 | T3: for 4 -> d(1)+d(2)+d(4) = 6, for 6 -> 1+2+2+4 = 9.
        QCOMPARE(search::onChipSpaceSize({4, 6, 1}, 16, true, 0.0), 6.0 * 9 * 6);
        // PE bound: 8 <= (4/t2m) * (6/t2n) <= 16 (p = 0.5 of 16 PEs). Parallel factors fm in {1,2,4}
        // (weights d(4)=3, d(2)=2, d(1)=1), fn in {1,2,3,6} (weights d(6)=4, d(3)=2, d(2)=2, d(1)=1).
        // Products in [8,16]: 4*2 (1*2), 4*3 (1*2), 2*6 (2*1), 4*... 4*6=24 no, 2*... 2*3=6 no.
        QCOMPARE(search::onChipSpaceSize({4, 6, 1}, 16, true, 0.5), (1.0 * 2 + 1.0 * 2 + 2.0 * 1) * 6);
    }

    // The largest accelerator validate() accepts (2^30 PEs) and huge extents: the PE-bounded figures take
    // neither gigabytes (a dense table per PE count used 16 GB) nor minutes, and stay exact.
    void spaceSizesOfHugeAccelerators()
    {
        const std::int64_t pes = std::int64_t(1) << 30;
        auto nest = gemm(4, 6, 1);
        // A bound of one PE: every choice counts, as with no bound at all.
        const double tiny = 1e-12;
        QCOMPARE(search::originalSpaceSize(nest, pes, false, tiny), 20.0 * 56 * 1 * 36 * 8);
        QCOMPARE(search::onChipSpaceSize({4, 6, 1}, pes, false, tiny), 10.0 * 21 * 6);
        QCOMPARE(search::onChipSpaceSize({4, 6, 1}, pes, true, tiny), 6.0 * 9 * 6);
        // Half the PEs busy is out of reach of 24 iterations.
        QCOMPARE(search::onChipSpaceSize({4, 6, 1}, pes, true, 0.5), 0.0);
        // Extents of 2^31 - 1 (a prime: divisors 1 and itself) on 2^30 PEs. Divisor chains t1|t2|t3|E:
        // (1,1,1), (1,1,E), (1,E,E), (E,E,E); (1,1,E) spreads E > 2^30 level-1 tiles over the PEs and
        // is out. On-chip under T3 = E: (t1,t2) in {(1,E), (E,E)}, 2 per loop, 2! orders.
        const std::int64_t e = 2147483647;
        QCOMPARE(search::onChipSpaceSize({e, e}, pes, true, tiny), 2.0 * 2.0 * 2);
        QCOMPARE(search::originalSpaceSize(gemm(e, e, e), pes, true, tiny), 3.0 * 3.0 * 3.0 * 36 * 8);
    }
};

QTEST_APPLESS_MAIN(TestOffChip)
#include "tst_offchip.moc"
