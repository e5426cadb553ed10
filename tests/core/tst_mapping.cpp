// Loop-nest mappings: the paper's transformation to MDC directives (checked by hand), the tiled
// loop-nest printing, JSON round trips and validation messages.
#include <nlohmann/json.hpp>

#include <QtTest>

#include "core/mapping/loop_nest_mapping.h"

using namespace marvel;
using mapping::LoopNestMapping;
using mapping::MappedLoop;

namespace {

MappedLoop loop(std::string dim, std::int64_t extent, std::int64_t t1, std::int64_t t2, std::int64_t t3)
{
    MappedLoop l;
    l.dim = std::move(dim);
    l.extent = extent;
    l.level1 = t1;
    l.level2 = t2;
    l.level3 = t3;
    return l;
}

/// The paper's CONV1D (O[x] += W[s] * I[x + s], X = 16, S = 3) with both loops parallel, as in its
/// transformation figure: x spread over 2 PEs (T1 = 2, T2 = 4), s over 3 PEs (T1 = 1, T2 = 3), level-3
/// tile x = 8; level-2 order (s, x), level-3 order (x, s).
LoopNestMapping conv1dMapping()
{
    LoopNestMapping m;
    m.loops = {loop("X", 16, 2, 4, 8), loop("S", 3, 1, 3, 3)};
    m.level2Order = {1, 0};
    m.level3Order = {0, 1};
    return m;
}

arch::Accelerator pes(std::int64_t n)
{
    arch::Accelerator acc;
    acc.numPes = n;
    return acc;
}

using mdc::Directive;

} // namespace

class TestMapping : public QObject
{
    Q_OBJECT

private slots:
    void derivedQuantities()
    {
        const LoopNestMapping m = conv1dMapping();
        QCOMPARE(m.loops[0].parallelism(), 2);
        QCOMPARE(m.loops[1].parallelism(), 3);
        QCOMPARE(m.loops[0].level2Iterations(), 2);
        QCOMPARE(m.loops[0].level3Iterations(), 2);
        QCOMPARE(m.activePes(), 6);
        QCOMPARE(m.parallelLoops(), (std::vector<int>{1, 0})); // level-2 order: s outside x
        QCOMPARE(mapping::mdcLevelCount(m), 4);
    }

    void conv1dTransformation()
    {
        // By hand: region of the level-3 inter-tile loops (x, s), Cluster(1), region of the level-2
        // inter-tile loops (s, x), a cluster giving the s region 8 / 2 = 4 sub-units of 2 PEs, the s
        // region (its spatial map over s, x still at its level-2 tile 4), Cluster(2) for the 2 x PEs,
        // and the innermost x region that also holds the point loops.
        const mdc::Dataflow expected = {
            Directive::temporal(8, 8, "X"),
            Directive::spatial(3, 3, "S"),
            Directive::cluster(1),
            Directive::temporal(3, 3, "S"),
            Directive::spatial(4, 4, "X"),
            Directive::cluster(4),
            Directive::spatial(1, 1, "S"),
            Directive::temporal(4, 4, "X"),
            Directive::cluster(2),
            Directive::spatial(2, 2, "X"),
            Directive::temporal(1, 1, "S"),
        };
        const mdc::Dataflow df = mapping::toMdc(conv1dMapping(), pes(8));
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
    }

    void conv1dFusedForm()
    {
        // By hand: the level-3 region (x, then s as the top level's spatial map: s has one level-3 tile,
        // so the top level's 8 / (3 * 2) = 1 sub-unit is busy), Cluster(3) for the outer parallel loop
        // s, the fused level - the level-2 inter-tile loops in level-2 order (s, x) with s written as
        // its SpatialMap(1,1), whose folds over the level-3 tile are s's level-2 inter-tile iterations -
        // then Cluster(2) and the innermost x region as in the separate form.
        LoopNestMapping m = conv1dMapping();
        m.level2Form = mapping::Level2Form::Fused;
        QVERIFY(mapping::fusedFormApplies(m));
        QCOMPARE(mapping::mdcLevelCount(m), 3);
        const mdc::Dataflow expected = {
            Directive::temporal(8, 8, "X"),
            Directive::spatial(3, 3, "S"),
            Directive::cluster(3),
            Directive::spatial(1, 1, "S"),
            Directive::temporal(4, 4, "X"),
            Directive::cluster(2),
            Directive::spatial(2, 2, "X"),
            Directive::temporal(1, 1, "S"),
        };
        const mdc::Dataflow df = mapping::toMdc(m, pes(8));
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
    }

    void fusedFormNeedsASingleLevel3Tile()
    {
        // Every loop has several level-3 tiles: no loop can hold the top level's one-unit spatial map.
        LoopNestMapping m;
        m.loops = {loop("A", 8, 1, 2, 4), loop("B", 8, 2, 2, 4)};
        m.level2Order = {0, 1};
        m.level3Order = {0, 1};
        m.level2Form = mapping::Level2Form::Fused;
        QVERIFY(!mapping::fusedFormApplies(m));
        try {
            mapping::toMdc(m, pes(4));
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("fused form needs") != std::string::npos);
        }
        // No parallel loop: nothing to fuse with.
        m.loops = {loop("A", 8, 2, 2, 8), loop("B", 8, 2, 2, 4)};
        QVERIFY(!mapping::fusedFormApplies(m));
    }

    void fusedFormRepresentsThreeParallelLoopsWithTwoTilings()
    {
        // Level-3 and level-2 regions plus three parallel loops need five levels in the separate form
        // but four when fused (the level-3 region, then one level per parallel loop).
        LoopNestMapping m;
        m.loops = {loop("A", 8, 1, 2, 4), loop("B", 8, 1, 2, 4), loop("C", 2, 1, 2, 2)};
        m.level2Order = {0, 1, 2};
        m.level3Order = {0, 1, 2};
        QCOMPARE(mapping::mdcLevelCount(m), 5);
        m.level2Form = mapping::Level2Form::Fused;
        QCOMPARE(mapping::mdcLevelCount(m), 4);
        const mdc::Dataflow df = mapping::toMdc(m, pes(8));
        const mdc::Dataflow expected = {Directive::temporal(4, 4, "A"), Directive::temporal(4, 4, "B"),
            Directive::spatial(2, 2, "C"), Directive::cluster(2), Directive::spatial(1, 1, "A"),
            Directive::temporal(2, 2, "B"), Directive::temporal(2, 2, "C"), Directive::cluster(2),
            Directive::spatial(1, 1, "B"), Directive::temporal(1, 1, "A"), Directive::temporal(2, 2, "C"),
            Directive::cluster(2), Directive::spatial(1, 1, "C"), Directive::temporal(1, 1, "A"),
            Directive::temporal(1, 1, "B")};
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], (df[i].toString() + " != " + expected[i].toString()).c_str());
    }

    void trivialRegionsAreOmitted()
    {
        // Whole operator in one level-3 tile and one level-2 tile: only the parallel regions remain,
        // and the top level holds the outer parallel loop over N_PE / 4 = 4 sub-units.
        LoopNestMapping m;
        m.loops = {loop("K", 8, 2, 8, 8), loop("C", 4, 1, 4, 4)};
        m.level2Order = {0, 1};
        m.level3Order = {0, 1};
        const mdc::Dataflow df = mapping::toMdc(m, pes(16));
        const mdc::Dataflow expected = {Directive::spatial(2, 2, "K"), Directive::temporal(4, 4, "C"),
            Directive::cluster(4), Directive::spatial(1, 1, "C"), Directive::temporal(2, 2, "K")};
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], df[i].toString().c_str());
    }

    void noParallelLoop()
    {
        // One PE does everything: a single point level with the innermost level-2 loop as the
        // (one-unit-wide) spatial map.
        LoopNestMapping m;
        m.loops = {loop("M", 4, 4, 4, 4), loop("N", 2, 2, 2, 2)};
        m.level2Order = {1, 0};
        m.level3Order = {0, 1};
        const mdc::Dataflow df = mapping::toMdc(m, pes(4));
        const mdc::Dataflow expected = {Directive::spatial(4, 4, "M"), Directive::temporal(2, 2, "N")};
        QCOMPARE(df.size(), expected.size());
        for (std::size_t i = 0; i < df.size(); ++i)
            QVERIFY2(df[i] == expected[i], df[i].toString().c_str());
    }

    void notRepresentable()
    {
        // Level-3 and level-2 regions plus three parallel loops: five levels, MAESTRO has four.
        LoopNestMapping m;
        m.loops = {loop("A", 8, 1, 2, 4), loop("B", 8, 1, 2, 4), loop("C", 8, 1, 2, 4)};
        m.level2Order = {0, 1, 2};
        m.level3Order = {0, 1, 2};
        QCOMPARE(mapping::mdcLevelCount(m), 5);
        try {
            mapping::toMdc(m, pes(64));
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("not representable in MAESTRO") != std::string::npos);
        }
    }

    void validation_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("level2 < level1") << 0 << "loops[0].level2"
                                         << "smaller than the level-1 tile";
        QTest::newRow("level3 > extent") << 1 << "loops[1].level3"
                                         << "exceeds the loop extent";
        QTest::newRow("order") << 2 << "level2_order"
                               << "every loop exactly once";
        QTest::newRow("too many PEs") << 3 << "loops"
                                      << "need 6 PEs but the accelerator has 4";
        QTest::newRow("duplicate dim") << 4 << "loops[1].dim"
                                       << "mapped twice";
    }
    void validation()
    {
        QFETCH(int, which);
        QFETCH(QString, field);
        QFETCH(QString, fragment);
        LoopNestMapping m = conv1dMapping();
        if (which == 0) m.loops[0].level2 = 1;
        if (which == 1) m.loops[1].level3 = 4;
        if (which == 2) m.level2Order = {0, 0};
        if (which == 4) m.loops[1].dim = "X";
        const arch::Accelerator acc = pes(4);
        const auto problems = mapping::validate(m, which == 3 ? &acc : nullptr);
        QVERIFY(!problems.empty());
        QCOMPARE(QString::fromStdString(problems.front().field), field);
        QVERIFY2(QString::fromStdString(problems.front().message).contains(fragment),
            problems.front().message.c_str());
        QVERIFY(mapping::validate(conv1dMapping(), &acc).size() == 1); // only the PE count
    }

    void printing()
    {
        LoopNestMapping m = conv1dMapping();
        m.loops[0].iterator = "x";
        m.loops[1].iterator = "s";
        const std::string text = mapping::printTiledLoopNest(m, "O[x] += W[s] * I[x + s];");
        const std::string expected = "// level 3: L2 tiles (DRAM -> L2)\n"
                                     "for (x3 = 0; x3 < 16; x3 += 8) {\n"
                                     "  for (s3 = 0; s3 < 3; s3 += 3) {\n"
                                     "    // level 2: tiles spread over the PE array (L2 -> PEs)\n"
                                     "    for (s2 = s3; s2 < s3 + 3; s2 += 3) {\n"
                                     "      for (x2 = x3; x2 < x3 + 8; x2 += 4) {\n"
                                     "        // PE array: 6 PEs\n"
                                     "        parallel_for (s1 = s2; s1 < s2 + 3; s1 += 1) {\n"
                                     "          parallel_for (x1 = x2; x1 < x2 + 4; x1 += 2) {\n"
                                     "            // level 1: point loops in one PE (L1)\n"
                                     "            for (x = x1; x < x1 + 2; x++) {\n"
                                     "              for (s = s1; s < s1 + 1; s++) {\n"
                                     "                O[x] += W[s] * I[x + s];\n"
                                     "              }\n"
                                     "            }\n"
                                     "          }\n"
                                     "        }\n"
                                     "      }\n"
                                     "    }\n"
                                     "  }\n"
                                     "}\n";
        QCOMPARE(QString::fromStdString(text), QString::fromStdString(expected));
    }

    void printingPartialTiles()
    {
        // A level-3 tile of 5 over 16: the inner loops are clipped to the extent.
        LoopNestMapping m;
        m.loops = {loop("X", 16, 5, 5, 5)};
        m.level2Order = {0};
        m.level3Order = {0};
        const std::string text = mapping::printTiledLoopNest(m);
        QVERIFY2(
            text.find("for (x2 = x3; x2 < min(x3 + 5, 16); x2 += 5)") != std::string::npos, text.c_str());
        QVERIFY(text.find("parallel_for") == std::string::npos);
    }

    void jsonRoundTrip()
    {
        LoopNestMapping m = conv1dMapping();
        m.layouts = {{"I", {0}}, {"W", {0}}};
        const nlohmann::json j = mapping::toJson(m);
        QCOMPARE(j["active_pes"].get<int>(), 6);
        QCOMPARE(j["level2_order"], nlohmann::json({"S", "X"}));
        QCOMPARE(j["loops"][0]["parallelism"].get<int>(), 2);
        LoopNestMapping back = mapping::mappingFromJson(j);
        for (auto& l : back.loops)
            l.iterator.clear();
        QVERIFY(back == m);
        QCOMPARE(j["level2_form"], nlohmann::json("separate"));
        m.level2Form = mapping::Level2Form::Fused;
        back = mapping::mappingFromJson(mapping::toJson(m));
        QVERIFY(back.level2Form == mapping::Level2Form::Fused);
        nlohmann::json bad = mapping::toJson(m);
        bad["level2_form"] = "merged";
        try {
            mapping::mappingFromJson(bad);
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("mapping.level2_form") != std::string::npos);
        }
    }

    void jsonErrors()
    {
        nlohmann::json j = mapping::toJson(conv1dMapping());
        j["loops"][1]["level1"] = "one";
        try {
            mapping::mappingFromJson(j);
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QCOMPARE(
                QString::fromStdString(e.diagnostics().front().field), QString("mapping.loops[1].level1"));
        }
        j = mapping::toJson(conv1dMapping());
        j["level3_order"] = {"X", "Q"};
        QVERIFY_THROWS_EXCEPTION(InputError, mapping::mappingFromJson(j));
    }
};

QTEST_APPLESS_MAIN(TestMapping)
#include "tst_mapping.moc"
