// core/sweep: the --vary parser, the grid's order, the CSV row format, the design-point Pareto fronts
// (against a brute-force front), the area model on capacities, and a sweep's points against searches of
// the same accelerators one by one.
#include <random>

#include <QTest>

#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/search/search.h"
#include "core/sweep/sweep.h"
#include "tests/core/core_test_support.h"

using namespace marvel;

namespace {

using testsupport::sampleAccelerator;

arch::Accelerator smallAccelerator()
{
    arch::Accelerator acc;
    acc.name = "small";
    acc.numPes = 4;
    acc.l1Bytes = 64;
    acc.l2Bytes = 1024;
    acc.nocBandwidth = 4;
    return acc;
}

workloads::Workload conv1d()
{
    workloads::Workload w;
    ir::Operator op = ir::parseOperator("operator conv1d(X = 16, S = 3) {\n"
                                        "  for (x = 0; x < X; x++)\n"
                                        "    for (s = 0; s < S; s++)\n"
                                        "      O[x] += W[s] * I[x + s];\n"
                                        "}\n",
        "conv1d.loop");
    w.name = op.name;
    w.layers.push_back({op.name, {}, op, 2, {}});
    return w;
}

// The message of the InputError `f` throws, or "no error".
template <typename F> QString sweepError(F f)
{
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromStdString(formatDiagnostics(e.diagnostics()));
    }
    return QStringLiteral("no error");
}

sweep::PointResult designRow(
    std::size_t index, double area, std::int64_t runtime, double energy, bool ok = true)
{
    sweep::PointResult r;
    r.index = index;
    r.areaMm2 = area; // the fronts use the physical area
    r.runtime = runtime;
    r.energy = energy;
    r.ok = ok;
    return r;
}

// Not dominated: no other ok row at most as large on both figures and smaller on one (or equal on both
// with a lower index).
std::vector<std::size_t> bruteForceFront(const std::vector<sweep::PointResult>& rows, bool energy)
{
    std::vector<std::size_t> out;
    auto y = [&](const sweep::PointResult& r) { return energy ? r.energy : static_cast<double>(r.runtime); };
    for (const sweep::PointResult& p : rows) {
        if (!p.ok) continue;
        bool dominated = false;
        for (const sweep::PointResult& q : rows)
            if (q.ok && &q != &p && q.areaMm2 <= p.areaMm2 && y(q) <= y(p)
                && (q.areaMm2 < p.areaMm2 || y(q) < y(p) || q.index < p.index))
                dominated = true;
        if (!dominated) out.push_back(p.index);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::size_t> indices(const std::vector<sweep::PointResult>& rows)
{
    std::vector<std::size_t> out;
    for (const sweep::PointResult& r : rows)
        out.push_back(r.index);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT

private slots:
    void listsAndRanges()
    {
        sweep::Axis a = sweep::parseVary("pes=1024,256,512");
        QCOMPARE(a.parameter, sweep::Parameter::Pes);
        QCOMPARE(a.values, (std::vector<std::int64_t>{256, 512, 1024}));
        QCOMPARE(a.spec, std::string("pes=1024,256,512"));

        a = sweep::parseVary("l2=64K:1M:x2");
        QCOMPARE(a.parameter, sweep::Parameter::L2);
        QCOMPARE(a.values, (std::vector<std::int64_t>{65536, 131072, 262144, 524288, 1048576}));

        a = sweep::parseVary("noc_bw=32:128:+32");
        QCOMPARE(a.parameter, sweep::Parameter::NocBw);
        QCOMPARE(a.values, (std::vector<std::int64_t>{32, 64, 96, 128}));
        // TO need not be reached exactly.
        QCOMPARE(sweep::parseVary("offchip_bw=10:25:+10").values, (std::vector<std::int64_t>{10, 20}));
        QCOMPARE(sweep::parseVary("simd=1:10:x3").values, (std::vector<std::int64_t>{1, 3, 9}));
        QCOMPARE(sweep::parseVary("l1=1k,2K").values, (std::vector<std::int64_t>{1024, 2048}));
        QCOMPARE(sweep::parseVary("l2_bytes=1G").values, (std::vector<std::int64_t>{1073741824}));
        QCOMPARE(sweep::parseVary("l1_bytes=3M").values, (std::vector<std::int64_t>{3145728}));
        QCOMPARE(sweep::parseVary("pes=7:7:+1").values, (std::vector<std::int64_t>{7}));
    }

    void badSpecifications_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown parameter") << "foo=1,2"
                                           << "unknown parameter 'foo'";
        QTest::newRow("no equals") << "pes"
                                   << "expected NAME=VALUES";
        QTest::newRow("no values") << "pes="
                                   << "no values";
        QTest::newRow("zero") << "pes=0,4"
                              << "values must be positive (got 0)";
        QTest::newRow("negative") << "l2=-64K"
                                  << "values must be positive (got -64K)";
        QTest::newRow("empty list item") << "pes=4,,8"
                                         << "a value is missing";
        QTest::newRow("word") << "pes=many"
                              << "'many' is not a positive integer";
        QTest::newRow("fraction") << "pes=1.5"
                                  << "'1.5' is not a positive integer";
        QTest::newRow("too large") << "l2=99999999999999999999"
                                   << "is too large";
        QTest::newRow("suffix overflow") << "l2=9999999999999G"
                                         << "is too large";
        QTest::newRow("empty range") << "l2=1M:64K:x2"
                                     << "empty range: 1048576 is above 65536";
        QTest::newRow("factor one") << "l2=64K:1M:x1"
                                    << "the factor must be at least 2";
        QTest::newRow("step zero") << "pes=1:8:+0"
                                   << "values must be positive (got 0)";
        QTest::newRow("bad step") << "pes=1:8:*2"
                                  << "must be xFACTOR (geometric) or +STEP";
        QTest::newRow("two parts") << "pes=1:8"
                                   << "a range is FROM:TO:xFACTOR or FROM:TO:+STEP";
        QTest::newRow("four parts") << "pes=1:8:x2:3"
                                    << "a range is FROM:TO:xFACTOR or FROM:TO:+STEP";
        QTest::newRow("too many values") << "pes=1:20000:+1"
                                         << "more than 10000 values";
        QTest::newRow("duplicate") << "pes=4,8,4"
                                   << "value 4 is given twice";
    }

    void badSpecifications()
    {
        QFETCH(QString, spec);
        QFETCH(QString, message);
        const QString error = sweepError([&] { sweep::parseVary(spec.toStdString()); });
        QVERIFY2(error.startsWith("--vary '" + spec + "': "), qPrintable(error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void badGrids()
    {
        const arch::Accelerator base = smallAccelerator();
        // The same parameter twice: the second argument is named.
        QString error = sweepError([&] {
            (void)sweep::Grid(base, {sweep::parseVary("pes=2,4"), sweep::parseVary("pes=8")});
        });
        QVERIFY2(error.startsWith("--vary 'pes=8': parameter 'pes' is already varied by --vary 'pes=2,4'"),
            qPrintable(error));
        // 1000 x 1000 x 2 points is over the limit of 10^6.
        error = sweepError([&] {
            (void)sweep::Grid(base,
                {sweep::parseVary("pes=1:1000:+1"), sweep::parseVary("l1=1:1000:+1"),
                    sweep::parseVary("simd=1,2")});
        });
        QVERIFY2(error.contains("more than 1000000 design points"), qPrintable(error));
        // A value the accelerator cannot have (at most 2^30 PEs).
        error = sweepError([&] { (void)sweep::Grid(base, {sweep::parseVary("pes=4,2G")}); });
        QVERIFY2(
            error.startsWith("--vary 'pes=4,2G': value 2147483648 makes the accelerator invalid: num_pes"),
            qPrintable(error));
        // An invalid base accelerator.
        arch::Accelerator zero = base;
        zero.nocBandwidth = 0;
        error = sweepError([&] { (void)sweep::Grid(zero, {sweep::parseVary("pes=4")}); });
        QVERIFY2(error.contains("noc_bandwidth_elements_per_cycle: the base accelerator is invalid"),
            qPrintable(error));
    }

    void gridOrder()
    {
        // Given l2 before pes: the grid still nests pes outermost, values ascending.
        const sweep::Grid grid(
            smallAccelerator(), {sweep::parseVary("l2=256,1K,2K"), sweep::parseVary("pes=8,2")});
        QCOMPARE(grid.size(), std::size_t(6));
        const std::vector<std::pair<std::int64_t, std::int64_t>> expected
            = {{2, 256}, {2, 1024}, {2, 2048}, {8, 256}, {8, 1024}, {8, 2048}};
        for (std::size_t i = 0; i < grid.size(); ++i) {
            const sweep::Parameters p = grid.parameters(i);
            QCOMPARE(p[0], expected[i].first);
            QCOMPARE(p[3], expected[i].second);
            // The rest is the base's.
            QCOMPARE(p[1], std::int64_t(1));
            QCOMPARE(p[2], std::int64_t(64));
            QCOMPARE(p[4], std::int64_t(4));
            QCOMPARE(p[5], std::int64_t(1000000));
            QCOMPARE(grid.indexOf(p), std::optional<std::size_t>(i));
            const arch::Accelerator acc = grid.point(i);
            QCOMPARE(acc.numPes, expected[i].first);
            QCOMPARE(acc.l2Bytes, expected[i].second);
            QCOMPARE(acc.name, std::string("small"));
        }
        sweep::Parameters outside = grid.parameters(0);
        outside[1] = 2; // simd is not varied: only the base's value is in the grid
        QVERIFY(!grid.indexOf(outside));
        outside = grid.parameters(0);
        outside[0] = 4; // not one of the pes values
        QVERIFY(!grid.indexOf(outside));
    }

    void rowsReadBackExactly()
    {
        const sweep::Grid grid(smallAccelerator(), {sweep::parseVary("pes=2,4")});
        sweep::PointResult ok;
        ok.index = 1;
        ok.parameters = grid.parameters(1);
        ok.ok = true;
        ok.runtime = 123456789012;
        ok.energy = 0.1 + 0.2; // not a short decimal: must still read back to the same double
        ok.edp = 1e300 / 3;
        ok.utilization = 2.0 / 3.0;
        ok.area = 7007.6142422;
        ok.power = 6.8055752;
        ok.roofline = 24;
        ok.dramBytes = 987654321;
        ok.dramEnergy = 0.1 + 0.7;
        ok.energyPj = (0.1 + 0.2) * 230;
        ok.areaMm2 = 7007.6142422e-6;
        ok.powerMw = 1.0 / 3.0;
        const std::string line = sweep::formatRow(ok);
        QCOMPARE(line.substr(0, 23), std::string("4,1,64,1024,4,1000000,1"));
        const std::optional<sweep::PointResult> back = sweep::parseRow(line, grid);
        QVERIFY(back);
        QCOMPARE(back->index, std::size_t(1));
        QCOMPARE(back->energy, 0.1 + 0.2);
        QCOMPARE(back->edp, 1e300 / 3);
        QCOMPARE(back->utilization, 2.0 / 3.0);
        QCOMPARE(back->runtime, std::int64_t(123456789012));
        QCOMPARE(back->dramBytes, std::int64_t(987654321));
        QCOMPARE(back->dramEnergy, 0.1 + 0.7);
        QCOMPARE(back->energyPj, (0.1 + 0.2) * 230);
        QCOMPARE(back->areaMm2, 7007.6142422e-6);
        QCOMPARE(back->powerMw, 1.0 / 3.0);
        QCOMPARE(sweep::formatRow(*back), line);

        sweep::PointResult failed = ok;
        failed.index = 0;
        failed.parameters = grid.parameters(0);
        failed.ok = false;
        failed.status = "conv: no mapping fits, \"really\"";
        const std::string failedLine = sweep::formatRow(failed);
        // The metrics of a failed point are empty; the status is one quoted field.
        QCOMPARE(failedLine,
            std::string("2,1,64,1024,4,1000000,,,,7007.6142422,6.8055752,,24,,,,0.0070076142422,,full,\"conv:"
                        " no mapping fits, "
                        "\"\"really\"\"\""));
        const std::optional<sweep::PointResult> failedBack = sweep::parseRow(failedLine, grid);
        QVERIFY(failedBack);
        QVERIFY(!failedBack->ok);
        QCOMPARE(failedBack->status, failed.status);

        // Cut lines, lines of another grid, and a header are not rows.
        QVERIFY(!sweep::parseRow(line.substr(0, line.size() - 1), grid)); // "o" is not a status of a full row
        QVERIFY(!sweep::parseRow(line.substr(0, line.size() / 2), grid));
        QVERIFY(!sweep::parseRow("8" + line.substr(1), grid));
        QVERIFY(!sweep::parseRow(sweep::csvHeader(), grid));
        const std::string header = sweep::csvHeader();
        QCOMPARE(std::count(header.begin(), header.end(), ','), 19);

        // Which search made a row is part of it; a search column that is neither is not a row.
        QVERIFY(line.ends_with(",full,ok"));
        sweep::PointResult quick = ok;
        quick.search = sweep::PointSearch::Quick;
        const std::string quickLine = sweep::formatRow(quick);
        QVERIFY(quickLine.ends_with(",quick,ok"));
        QCOMPARE(sweep::parseRow(quickLine, grid)->search, sweep::PointSearch::Quick);
        QCOMPARE(sweep::parseRow(line, grid)->search, sweep::PointSearch::Full);
        std::string other = line;
        other.replace(other.size() - std::string("full,ok").size(), 4, "fast");
        QVERIFY(!sweep::parseRow(other, grid));
    }

    // A context axis (--vary seq=...) is the grid's slowest axis: point i is context value i / 2 on
    // accelerator i % 2 here; its rows start with the value and read back only into such a grid.
    void contextAxis()
    {
        const sweep::ContextAxis seq = sweep::parseContextVary("seq=128:512:x2");
        QCOMPARE(seq.values, (std::vector<std::int64_t>{128, 256, 512}));
        QVERIFY(sweep::isContextVary("kv=8,16"));
        QVERIFY(!sweep::isContextVary("pes=8"));
        QVERIFY(sweepError([] { sweep::parseVary("seq=8"); }).contains("context"));
        QVERIFY(sweepError([] { sweep::parseContextVary("kv=16,8,16"); }).contains("given twice"));
        const sweep::Grid grid(smallAccelerator(), {sweep::parseVary("pes=2,4")}, seq);
        QCOMPARE(grid.size(), std::size_t(6));
        QCOMPARE(grid.hardwareSize(), std::size_t(2));
        QCOMPARE(grid.contextValue(3), std::int64_t(256));
        QCOMPARE(grid.parameters(3)[0], std::int64_t(4));
        QCOMPARE(grid.indexOf(grid.parameters(3), 256), std::optional<std::size_t>(3));
        QVERIFY(!grid.indexOf(grid.parameters(3), 1024));
        QVERIFY(!grid.indexOf(grid.parameters(3)));
        QCOMPARE(sweep::csvHeader(grid), "seq," + sweep::csvHeader());
        sweep::PointResult r;
        r.index = 5;
        r.context = 512;
        r.parameters = grid.parameters(5);
        r.status = "layer: no mapping";
        const std::string line = sweep::formatRow(r);
        QVERIFY(line.starts_with("512,4,1,"));
        const std::optional<sweep::PointResult> back = sweep::parseRow(line, grid);
        QVERIFY(back);
        QCOMPARE(back->index, std::size_t(5));
        QCOMPARE(back->context, std::int64_t(512));
        // Without the column the line belongs to a hardware sweep, and the other way round.
        QVERIFY(!sweep::parseRow(line.substr(4), grid));
        QVERIFY(!sweep::parseRow(line, sweep::Grid(smallAccelerator(), {sweep::parseVary("pes=2,4")})));
    }

    void paretoFronts()
    {
        // Hand example (area, runtime, energy): A(1, 100, 5) B(2, 50, 6) C(2, 60, 1) D(3, 50, 7) E(4, 10, 8),
        // F failed with the smallest area.
        const std::vector<sweep::PointResult> rows
            = {designRow(0, 1, 100, 5), designRow(1, 2, 50, 6), designRow(2, 2, 60, 1),
                designRow(3, 3, 50, 7), designRow(4, 4, 10, 8), designRow(5, 0.5, 1, 0.1, false)};
        const sweep::DesignFronts f = sweep::paretoDesigns(rows);
        QCOMPARE(indices(f.runtimeArea), (std::vector<std::size_t>{0, 1, 4}));
        QCOMPARE(indices(f.energyArea), (std::vector<std::size_t>{0, 2}));
        // Areas equal but for rounding (the same bytes moved from L1 to L2 at one SRAM density) are one
        // area: only the better design of the two stays, whichever rounding came out smaller.
        for (double nudge : {1e-15, -1e-15}) {
            const sweep::DesignFronts tie = sweep::paretoDesigns({designRow(0, 1, 5000000, 50),
                designRow(1, 1.6961, 3790411, 44.9), designRow(2, 1.6961 + nudge, 3786723, 26.7)});
            QCOMPARE(indices(tie.runtimeArea), (std::vector<std::size_t>{0, 2}));
            QCOMPARE(indices(tie.energyArea), (std::vector<std::size_t>{0, 2}));
        }
        // Area ascending in the file.
        QCOMPARE(f.runtimeArea.front().index, std::size_t(0));
        QCOMPARE(f.runtimeArea.back().index, std::size_t(4));

        // Random rows with many ties against the brute-force front.
        std::mt19937 rng(7);
        for (int round = 0; round < 200; ++round) {
            std::vector<sweep::PointResult> random;
            const int n = 1 + static_cast<int>(rng() % 30);
            for (int i = 0; i < n; ++i)
                random.push_back(designRow(static_cast<std::size_t>(i), double(rng() % 6),
                    std::int64_t(rng() % 6), double(rng() % 6), rng() % 5 != 0));
            const sweep::DesignFronts r = sweep::paretoDesigns(random);
            QCOMPARE(indices(r.runtimeArea), bruteForceFront(random, false));
            QCOMPARE(indices(r.energyArea), bruteForceFront(random, true));
        }
    }

    void areaOfCapacities()
    {
        // MAESTRO's §6.3 model by hand for 4 PEs, 1 lane, NoC bandwidth 2, L1 512 and L2 1024 elements:
        // g = 1.2886*16 + 5.5814*4 - 23.711 = 19.2322
        // area = 4*(283 + 0.104*512) + 0.104*1024 + 101.7938*(14.662*4 + 28.895)*2 + 395.473*g
        //      = 1344.992 + 106.496 + 17822.6747 + 7605.6539
        arch::Accelerator acc = smallAccelerator();
        acc.nocBandwidth = 2;
        const cost::AreaPower ap = cost::areaPower(acc, 512, 1024);
        QVERIFY(std::abs(ap.area - (1344.992 + 106.496 + 101.7938 * 87.543 * 2 + 395.473 * 19.2322)) < 1e-6);
        // power = 4*1.2223 + 4*0.00345*512 + 0.00345*1024 + 0.8*87.543/1000*2 + 0.34*19.2322/1000 (below the
        // arbiter's floor of 0.34, so 0.34)
        QVERIFY(std::abs(ap.power - (4.8892 + 7.0656 + 3.5328 + 0.1400688 + 0.34)) < 1e-9);
    }

    void pointsEqualSearchesOneByOne()
    {
        const workloads::Workload w = conv1d();
        const sweep::Grid grid(
            smallAccelerator(), {sweep::parseVary("pes=2,4,8"), sweep::parseVary("noc_bw=1,4")});
        sweep::SweepOptions options;
        options.threads = 2;
        // One off-chip solve per point needs the divisor-only search alone (no widening to other sizes).
        options.search.widenAboveRoofline = 0;
        const sweep::Sweeper reusing(grid, w, options);
        options.reuse = false;
        options.threads = 1;
        const sweep::Sweeper fresh(grid, w, options);
        std::vector<std::size_t> all = {0, 1, 2, 3, 4, 5};
        const std::vector<sweep::PointResult> a = reusing.run(all);
        const std::vector<sweep::PointResult> b = fresh.run(all);
        QCOMPARE(a.size(), std::size_t(6));
        QCOMPARE(b.size(), std::size_t(6));
        // The off-chip solution depends on neither pes nor noc_bw here (no strided window): solved once.
        QCOMPARE(reusing.offChipMisses(), std::uint64_t(1));
        QCOMPARE(reusing.offChipHits(), std::uint64_t(5));
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].index, i);
            QCOMPARE(sweep::formatRow(a[i]), sweep::formatRow(b[i])); // reuse and threads change nothing
            const arch::Accelerator acc = grid.point(i);
            const search::LayerSearchResult s = search::searchLayer(w.layers[0].op, acc, options.search);
            const search::Candidate& best = *s.result.best(search::Objective::Runtime);
            QVERIFY(a[i].ok);
            QCOMPARE(a[i].status, std::string("ok"));
            QCOMPARE(a[i].runtime, 2 * best.metrics.runtime); // repeat 2
            QCOMPARE(a[i].energy, 2 * best.metrics.energy);
            QCOMPARE(a[i].edp, double(a[i].runtime) * a[i].energy);
            QVERIFY(std::abs(a[i].utilization - best.metrics.utilization) < 1e-12);
            const cost::AreaPower ap = cost::areaPower(acc, 64, 1024);
            QCOMPARE(a[i].area, ap.area);
        }
    }

    /// A design point's figures are those `marvel search` gives for that design with the sweep's options
    /// (the tuner's): the case, conv2d on Edge 1024 with DRAM cut to a 32 KiB L2, where the
    /// decoupled search alone stops at 119,891 cycles and the refinement finds 114,110 (runtime; the EDP
    /// objective's figures too). The quick search is the decoupled search alone, and says so in its row.
    void pointsAreTheSearchTheirRowNames()
    {
        workloads::Workload w;
        ir::Operator op = ir::parseOperatorFile(std::string(MARVEL_SAMPLES_DIR) + "/operators/conv2d.loop");
        w.name = op.name;
        w.layers.push_back({op.name, {}, op, 1, {}});
        const sweep::Grid grid(sampleAccelerator("edge1024_dram.json"), {sweep::parseVary("l2=32K")});
        for (const auto& [kind, objective] : {std::pair{sweep::PointSearch::Full, search::Objective::Runtime},
                 {sweep::PointSearch::Quick, search::Objective::Runtime},
                 {sweep::PointSearch::Full, search::Objective::Edp}}) {
            sweep::SweepOptions options;
            options.threads = 2;
            options.pointSearch = kind;
            options.search.objective = objective;
            const sweep::Sweeper sweeper(grid, w, options);
            const std::vector<sweep::PointResult> rows = sweeper.run({0});
            QCOMPARE(rows.size(), std::size_t(1));
            for (const sweep::PointResult& row : rows) {
                QVERIFY(row.search == kind);
                search::SearchOptions direct = options.search;
                direct.threads = 1;
                if (kind == sweep::PointSearch::Quick) direct.refine = false;
                const search::LayerSearchResult s = search::searchLayer(op, grid.point(row.index), direct);
                const search::Candidate& best = *s.result.best(objective);
                QVERIFY(row.ok);
                QCOMPARE(row.runtime, best.metrics.runtime);
                QCOMPARE(row.energy, best.metrics.energy);
                QCOMPARE(row.dramBytes, best.metrics.dramReadBytes + best.metrics.dramWriteBytes);
            }
            if (objective == search::Objective::Runtime && rows[0].index == 0)
                QCOMPARE(rows[0].runtime,
                    kind == sweep::PointSearch::Full ? std::int64_t(114110) : std::int64_t(119891));
        }
    }

    void failedPointSaysWhy()
    {
        // L2 of 2 bytes: not even a one-element tile of the three tensors, double buffered (6 bytes), fits.
        const sweep::Grid grid(smallAccelerator(), {sweep::parseVary("l2=2,1K")});
        sweep::SweepOptions options;
        options.threads = 1;
        const sweep::Sweeper s(grid, conv1d(), options);
        const std::optional<sweep::PointResult> bad = s.evaluate(0, 1);
        QVERIFY(bad);
        QVERIFY(!bad->ok);
        QCOMPARE(bad->status,
            std::string("conv1d: no level-3 tile of operator 'conv1d' fits in the L2 buffer (2 bytes)"));
        QVERIFY(bad->roofline > 0);
        const std::optional<sweep::PointResult> good = s.evaluate(1, 1);
        QVERIFY(good && good->ok);
        // A stop requested before the point finishes leaves it unfinished.
        std::stop_source stop;
        stop.request_stop();
        QVERIFY(!s.evaluate(1, 1, stop.get_token()));
        QVERIFY(s.run({0, 1}, {}, stop.get_token()).empty());
    }

    void layersSearchedApartGiveTheSameRow()
    {
        // Two layers (the second repeated 3 times) so that the sums' order matters; both fail at the 2-byte
        // L2 points, where the row must take the first layer's status.
        workloads::Workload w = conv1d();
        ir::Operator gemm = ir::parseOperator("operator gemm(M = 6, N = 5, K = 7) {\n"
                                              "  for (m = 0; m < M; m++)\n"
                                              "    for (n = 0; n < N; n++)\n"
                                              "      for (k = 0; k < K; k++)\n"
                                              "        C[m][n] += A[m][k] * B[k][n];\n"
                                              "}\n",
            "gemm.loop");
        w.layers.push_back({"fc", {}, gemm, 3, {}});
        const sweep::Grid grid(
            smallAccelerator(), {sweep::parseVary("pes=2,4"), sweep::parseVary("l2=2,1K")});
        sweep::SweepOptions options;
        options.threads = 1;
        const sweep::Sweeper s(grid, w, options);
        QCOMPARE(s.layerCount(), std::size_t(2));
        for (std::size_t i = 0; i < grid.size(); ++i) {
            std::vector<sweep::LayerOutcome> layers;
            // Searched in reverse order and sent through their message text, as MPI ranks do.
            for (std::size_t l = s.layerCount(); l-- > 0;) {
                const std::optional<sweep::LayerOutcome> o = s.evaluateLayer(i, l, 1);
                QVERIFY(o);
                const std::optional<sweep::LayerOutcome> back
                    = sweep::parseLayerOutcome(sweep::formatLayerOutcome(*o));
                QVERIFY(back);
                QCOMPARE(back->energy, o->energy); // bit for bit
                QCOMPARE(back->busy, o->busy);
                QCOMPARE(back->dramBytes, o->dramBytes);
                QCOMPARE(back->dramEnergy, o->dramEnergy);
                QCOMPARE(back->status, o->status);
                layers.insert(layers.begin(), *back);
            }
            const sweep::PointResult whole = *s.evaluate(i, 1);
            QCOMPARE(sweep::formatRow(s.combine(i, layers)), sweep::formatRow(whole));
            QCOMPARE(whole.ok, grid.parameters(i)[3] == 1024);
            if (whole.ok) QCOMPARE(whole.runtime, layers[0].runtime + layers[1].runtime);
        }
        QVERIFY(!sweep::parseLayerOutcome("1 12 0x1p+3"));
        QVERIFY(!sweep::parseLayerOutcome("2 12 0x1p+3 0x1p+2 "));
        QVERIFY(!sweep::parseLayerOutcome("1 12 8.0 0x1p+2 "));
    }
};

QTEST_APPLESS_MAIN(TestSweep)
#include "tst_sweep.moc"
