#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include <QTest>

#include "core/conform/conformability.h"
#include "core/conform/dependence.h"
#include "core/ir/parser.h"

using namespace marvel;

namespace {

const std::string kOperatorSamples = std::string(MARVEL_SAMPLES_DIR) + "/operators/";

nlohmann::json expectations()
{
    std::ifstream in(kOperatorSamples + "expected.json");
    return nlohmann::json::parse(in);
}

conform::Report check(const std::string& text)
{
    return conform::checkConformability(ir::parseOperator(text, "t.loop"));
}

std::set<std::string> edgeSet(const conform::Report& r)
{
    std::set<std::string> out;
    for (const auto& e : r.ddg.edges)
        out.insert(r.ddg.nodes[std::size_t(e.from)].label() + " -> " + r.ddg.nodes[std::size_t(e.to)].label()
            + " (" + std::to_string(e.rule) + ")");
    return out;
}

std::set<std::string> independentSet(const conform::Report& r)
{
    std::set<std::string> out;
    for (const auto& d : r.independent)
        out.insert(d.tensor + "." + std::to_string(d.dim) + "=" + d.iterator);
    return out;
}

/// Every edge goes forward in the order, and the order lists every node once.
bool isTopological(const conform::Report& r)
{
    if (r.topologicalOrder.size() != r.ddg.nodes.size()) return false;
    std::vector<int> position(r.ddg.nodes.size(), -1);
    for (std::size_t i = 0; i < r.topologicalOrder.size(); ++i)
        position[std::size_t(r.topologicalOrder[i])] = int(i);
    if (std::count(position.begin(), position.end(), -1) != 0) return false;
    return std::all_of(r.ddg.edges.begin(), r.ddg.edges.end(), [&](const conform::DdgEdge& e) {
        return position[std::size_t(e.from)] < position[std::size_t(e.to)];
    });
}

} // namespace

class TestConformability : public QObject
{
    Q_OBJECT
private slots:
    // The paper's conformability table (and the one-rule-broken examples), from
    // samples/operators/expected.json.
    void samples_data()
    {
        QTest::addColumn<QString>("file");
        const auto all = expectations();
        for (const auto& item : all.items())
            if (item.key()[0] != '_') QTest::newRow(item.key().c_str()) << QString::fromStdString(item.key());
    }
    void samples()
    {
        QFETCH(QString, file);
        const auto expected = expectations()[file.toStdString()];
        const auto report
            = conform::checkConformability(ir::parseOperatorFile(kOperatorSamples + file.toStdString()));
        for (int r = 0; r < 4; ++r) {
            const std::string rule = "R" + std::to_string(r + 1);
            QVERIFY2(report.rules[std::size_t(r)].ok == expected[rule].get<bool>(),
                (rule + ": " + report.rules[std::size_t(r)].reason).c_str());
            if (expected.contains("reason") && expected["reason"].contains(rule)) {
                const auto needle = expected["reason"][rule].get<std::string>();
                QVERIFY2(report.rules[std::size_t(r)].reason.find(needle) != std::string::npos,
                    (rule + " reason was: " + report.rules[std::size_t(r)].reason).c_str());
            }
        }
        QCOMPARE(report.conformable, expected["conformable"].get<bool>());
        if (report.rules[2].ok)
            QVERIFY(isTopological(report));
        else
            QVERIFY(report.topologicalOrder.empty() || isTopological(report));
    }

    void everySampleHasAnExpectation()
    {
        const auto expected = expectations();
        int count = 0;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(kOperatorSamples)) {
            if (entry.path().extension() != ".loop") continue;
            ++count;
            const auto relative = std::filesystem::relative(entry.path(), kOperatorSamples).generic_string();
            QVERIFY2(expected.contains(relative), relative.c_str());
        }
        QCOMPARE(count, int(expected.size()) - 1);
        // One sample per row of the paper's table: 16 operators.
        QCOMPARE(int(std::count_if(expected.items().begin(), expected.items().end(),
                     [](const auto& item) {
                         return item.key().find('/') == std::string::npos && item.key()[0] != '_';
                     })),
            16);
    }

    // Paper figure (a): CONV1D. d_O:i0 -> d_I:i0+i1 and d_W:i1 -> d_I:i0+i1 (rule 1); O and W independent.
    void conv1dDdg()
    {
        const auto r = check("operator conv1d(X = 16, S = 3) {\n"
                             "  for (x = 0; x < X; x++)\n"
                             "    for (s = 0; s < S; s++)\n"
                             "      O[x] += W[s] * I[x + s];\n"
                             "}\n");
        std::set<std::string> labels;
        for (const auto& n : r.ddg.nodes)
            labels.insert(n.label());
        QCOMPARE(labels, (std::set<std::string>{"O.0:x", "W.0:s", "I.0:x + s"}));
        QCOMPARE(edgeSet(r), (std::set<std::string>{"O.0:x -> I.0:x + s (1)", "W.0:s -> I.0:x + s (1)"}));
        QCOMPARE(independentSet(r), (std::set<std::string>{"O.0=x", "W.0=s"}));
        QVERIFY(isTopological(r));
        QCOMPARE(r.ddg.nodes[std::size_t(r.topologicalOrder.back())].label(), std::string("I.0:x + s"));
        QVERIFY(r.conformable);
    }

    // Paper figure (b): the stencil groups the SIV nodes of x; the lowest constant, d_I:i0, points to the
    // rest.
    void reasonsLinkToTheTextTheyName()
    {
        // Line 3 col 7: "if (x + s < X)"; line 4: "O[x] += W[s] * I[x + s];" from col 9.
        const std::string text
            = "operator t(X = 16, S = 3) {\n  for (x = 0; x < X; x++)\n    for (s = 0; s < S; s++)\n"
              "      if (x + s < X)\n        O[x + 1] += W[s] * I[x + s];\n}\n";
        const auto r = check(text);
        QVERIFY(!r.rules[0].ok);
        QCOMPARE(r.rules[0].links.size(), std::size_t(1));
        const auto& link = r.rules[0].links[0];
        QCOMPARE(r.rules[0].reason.substr(link.offset, link.length), std::string("if (x + s < X)"));
        QCOMPARE(link.range, (SourceRange{{4, 7}, {4, 21}}));
        // R4: the independent node O.0:x + 1 and its subscript between the brackets.
        QVERIFY(!r.rules[3].ok);
        QVERIFY(!r.rules[3].links.empty());
        const auto& r4 = r.rules[3].links[0];
        QCOMPARE(r.ddg.nodes[std::size_t(r4.node)].label(), std::string("O.0:x + 1"));
        QCOMPARE(r.rules[3].reason.substr(r4.offset, r4.length), std::string("O.0:x + 1"));
        QCOMPARE(r4.range, (SourceRange{{5, 11}, {5, 16}}));
        // Every node records where its subscript is written: I.0:x + s once, at line 5 col 30.
        for (const auto& n : r.ddg.nodes)
            if (n.label() == "I.0:x + s")
                QCOMPARE(n.occurrences, (std::vector<SourceRange>{{{5, 30}, {5, 35}}}));
        // Rules that hold have no links.
        QVERIFY(r.rules[1].ok && r.rules[1].links.empty());
    }

    void stencilDdg()
    {
        const auto r = check(
            "operator stencil(X = 64) { for (x = 0; x < X; x++) O[x] = I[x] + I[x + 1] + I[x + 2]; }");
        QCOMPARE(edgeSet(r),
            (std::set<std::string>{
                "I.0:x -> I.0:x + 1 (2)", "I.0:x -> I.0:x + 2 (2)", "I.0:x -> O.0:x (2)"}));
        QCOMPARE(independentSet(r), (std::set<std::string>{"I.0=x"}));
        QVERIFY(r.conformable);
    }

    // Rule 2 takes the lowest constant even when it is not the first node.
    void rule2LowestConstant()
    {
        const auto r
            = check("operator s(X = 64) { for (x = 0; x < X; x++) O[x + 3] = I[x + 2] + I[x + 1]; }");
        QCOMPARE(
            edgeSet(r), (std::set<std::string>{"I.0:x + 1 -> I.0:x + 2 (2)", "I.0:x + 1 -> O.0:x + 3 (2)"}));
        QVERIFY(r.rules[3].ok == false); // the root I.0:x + 1 has a constant
        QVERIFY(r.rules[3].reason.find("independent node I.0:x + 1 has the constant 1") != std::string::npos);
    }

    // Rule 3: n's bound uses m, so every node with n points to every node with m.
    void triangularBoundEdges()
    {
        const auto r
            = conform::checkConformability(ir::parseOperatorFile(kOperatorSamples + "gemm_triangular.loop"));
        const auto edges = edgeSet(r);
        for (const char* e : {"B.1:n -> A.0:m (3)", "B.1:n -> C.0:m (3)", "C.1:n -> A.0:m (3)"})
            QVERIFY2(edges.count(e), e);
        QCOMPARE(independentSet(r), (std::set<std::string>{"A.1=k", "B.1=n"}));
        QVERIFY(r.conformable);
    }

    // R4: an independent MIV subscript i + j merges its iterators into one loop.
    void mivIteratorsMerge()
    {
        const auto r = check("operator window(K = 8, P = 3, Q = 3) {\n"
                             "  for (k = 0; k < K; k++) for (i = 0; i < P; i++) for (j = 0; j < Q; j++)\n"
                             "    O[k] += V[i + j][k];\n"
                             "}");
        QVERIFY(r.rules[3].ok);
        auto it = std::find_if(r.independent.begin(), r.independent.end(),
            [](const conform::IndependentDim& d) { return d.tensor == "V" && d.dim == 0; });
        QVERIFY(it != r.independent.end());
        QCOMPARE(it->iterator, std::string("i+j"));
        QCOMPARE(it->mergedIterators, (std::vector<std::string>{"i", "j"}));
        QVERIFY(r.conformable);
    }

    void r4NegativeCoefficient()
    {
        const auto r = check("operator flip(X = 8) { for (x = 0; x < X; x++) O[7 - x] = I[0] * 2; }");
        QVERIFY(!r.rules[3].ok);
        QVERIFY(r.rules[3].reason.find("O.0:7 - x has coefficient -1 on 'x'") != std::string::npos);
        // I[0] is a dimension walked by no loop.
        QVERIFY(r.rules[3].reason.find("independent node I.0:0 has no loop iterator") != std::string::npos);
    }

    void r1Problems_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reason");
        QTest::newRow("siblings")
            << "operator s(X = 4) { for (i = 0; i < X; i++) { for (j = 0; j < X; j++) A[i][j] = B[j]; "
               "for (k = 0; k < X; k++) C[i][k] = B[k]; } }"
            << "loops 'j' (1:47) and 'k' (1:87) are siblings, not nested";
        QTest::newRow("outside loops") << "operator s(X = 4) { A[0] = B[0]; }"
                                       << "statement 'A[0] = B[0];' (1:21) is not inside any loop";
        QTest::newRow("after loop")
            << "operator s(X = 4) { for (i = 0; i < X; i++) A[i] = B[i]; C[0] = B[0]; }"
            << "statement 'C[0] = B[0];' (1:58) lies between loops: it is outside loop 'i'";
        QTest::newRow("empty loop") << "operator s(X = 4) { for (i = 0; i < X; i++) { } }"
                                    << "loop 'i' (1:21) has an empty body";
        QTest::newRow("empty operator") << "operator s(X = 4) { }"
                                        << "the operator has no statement";
    }
    void r1Problems()
    {
        QFETCH(QString, text);
        QFETCH(QString, reason);
        const auto r = check(text.toStdString());
        QVERIFY(!r.rules[0].ok);
        QVERIFY2(
            r.rules[0].reason.find(reason.toStdString()) != std::string::npos, r.rules[0].reason.c_str());
        QVERIFY(!r.conformable);
    }

    void r2Dependences_data()
    {
        QTest::addColumn<QString>("statement");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("reason");
        // Loops: for x < 8, for s < 3.
        QTest::newRow("reduction") << "O[x] += W[s] * I[x + s];" << true
                                   << "only reduction dependences (on O)";
        QTest::newRow("explicit sum")
            << "O[x] = O[x] + W[s] * I[x + s];" << true << "only reduction dependences";
        QTest::newRow("min") << "O[x] = min(O[x], I[x + s]);" << true << "only reduction dependences";
        QTest::newRow("overwrite")
            << "O[x] = W[s] * I[x + s];" << false
            << "output dependence on O: 'O[x] = W[s] * I[x + s];' (1:76) writes O[x] and writes "
               "O[x] in another iteration, direction (=, <) over loops (x, s)";
        QTest::newRow("anti")
            << "A[x][s] = A[x + 1][s] * 2;" << false
            << "anti dependence on A: 'A[x][s] = A[x + 1][s] * 2;' (1:76) writes A[x][s] and reads "
               "A[x + 1][s] in another iteration, direction (>, =)";
        QTest::newRow("flow") << "A[x + 1][s] = A[x][s] * 2;" << false << "flow dependence on A";
        QTest::newRow("disjoint rows") << "A[2 * x][s] = A[2 * x + 1][s] * 2;" << true << "no dependences";
        QTest::newRow("out of range") << "A[x][s] = A[x + 8][s] * 2;" << true << "no dependences";
        QTest::newRow("reduction reads other element")
            << "O[x] += O[x + 1] * I[s];" << false << "anti dependence on O";
    }
    void r2Dependences()
    {
        QFETCH(QString, statement);
        QFETCH(bool, ok);
        QFETCH(QString, reason);
        const auto r = check("operator d(X = 8, S = 3) { for (x = 0; x < X; x++) for (s = 0; s < S; s++) "
            + statement.toStdString() + " }");
        QCOMPARE(r.rules[1].ok, ok);
        QVERIFY2(
            r.rules[1].reason.find(reason.toStdString()) != std::string::npos, r.rules[1].reason.c_str());
    }

    // The dependence test may be conservative but never misses a dependence: compare with brute force on
    // A[a*x + b*y + c] = A[d*x + e*y + f] over small random loops.
    void dependenceTestIsSound()
    {
        std::mt19937 rng(20240611);
        std::uniform_int_distribution<int> coefficient(-2, 2), constant(-3, 3), extent(1, 5);
        int dependent = 0, independent = 0;
        for (int round = 0; round < 300; ++round) {
            const int X = extent(rng), Y = extent(rng);
            const int a = coefficient(rng), b = coefficient(rng), c = constant(rng) + 6;
            const int d = coefficient(rng), e = coefficient(rng), f = constant(rng) + 6;
            auto sub = [](int p, int q, int k) {
                return std::to_string(p) + " * x + " + std::to_string(q) + " * y + " + std::to_string(k);
            };
            const std::string text = "operator t(X = " + std::to_string(X) + ", Y = " + std::to_string(Y)
                + ") { for (x = 0; x < X; x++) for (y = 0; y < Y; y++) A[" + sub(a, b, c) + "] = A["
                + sub(d, e, f) + "] * 2; }";
            bool truth = false;
            for (int x = 0; x < X && !truth; ++x)
                for (int y = 0; y < Y && !truth; ++y)
                    for (int x2 = 0; x2 < X && !truth; ++x2)
                        for (int y2 = 0; y2 < Y && !truth; ++y2) {
                            const bool other = x != x2 || y != y2;
                            const int w = a * x + b * y + c;
                            truth = other && (w == d * x2 + e * y2 + f || w == a * x2 + b * y2 + c);
                        }
            const auto r = check(text);
            if (truth) QVERIFY2(!r.rules[1].ok, text.c_str());
            (truth ? dependent : independent)++;
        }
        QVERIFY(dependent > 50);
        QVERIFY(independent > 20);
    }

    void jsonShape()
    {
        const auto r = conform::checkConformability(ir::parseOperatorFile(kOperatorSamples + "conv1d.loop"));
        const auto j = conform::toJson(r);
        QCOMPARE(j["operator"].get<std::string>(), std::string("conv1d"));
        QCOMPARE(j["conformable"].get<bool>(), true);
        for (const char* rule : {"R1", "R2", "R3", "R4"}) {
            QVERIFY(j["rules"][rule]["ok"].is_boolean());
            QVERIFY(j["rules"][rule]["reason"].is_string());
        }
        QCOMPARE(j["ddg"]["nodes"].size(), std::size_t(3));
        QCOMPARE(j["ddg"]["edges"].size(), std::size_t(2));
        QCOMPARE(j["topological_order"].size(), std::size_t(3));
        QCOMPARE(j["independent"].size(), std::size_t(2));
        QCOMPARE(j["independent"][0].size(), std::size_t(3));
        QVERIFY(j["independent"][0]["dim"].is_number_integer());
    }

    void textReport()
    {
        const auto r
            = conform::checkConformability(ir::parseOperatorFile(kOperatorSamples + "lstm_multicell.loop"));
        const auto text = conform::toText(r);
        QVERIFY(text.find("operator lstm_multicell: NOT conformable") == 0);
        QVERIFY(text.find("R2  FAILS   dependences other than reductions: flow dependence on H")
            != std::string::npos);
        QVERIFY(text.find("R1  holds") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestConformability)
#include "tst_conformability.moc"
