#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <QTest>

#include "core/conform/conformability.h"
#include "core/ir/parser.h"

using namespace marvel;
using ir::Expr;
using ir::Node;

namespace {

const std::string kConv1d = "operator conv1d(X = 16, S = 3) {\n"
                            "  for (x = 0; x < X; x++)\n"
                            "    for (s = 0; s < S; s++)\n"
                            "      O[x] += W[s] * I[x + s];\n"
                            "}\n";

const std::string kParserGemm = "operator gemm(M = 128, N = 2048, K = 4096) {\n"
                                "  for (int m = 0; m < M; m++) {\n"
                                "    for (int n = 0; n < N; n++) {\n"
                                "      for (int k = 0; k < K; k++) {\n"
                                "        C[m][n] += A[m][k] * B[k][n];\n"
                                "      }\n"
                                "    }\n"
                                "  }\n"
                                "}\n";

/// The diagnostics of a text that must not parse.
std::vector<Diagnostic> errorsOf(const std::string& text)
{
    try {
        ir::parseOperator(text, "bad.loop");
    } catch (const InputError& e) {
        return e.diagnostics();
    }
    return {};
}

std::string firstError(const std::string& text)
{
    auto d = errorsOf(text);
    return d.empty() ? std::string("(parsed)") : d.front().format();
}

ir::AffineExpr affine(std::vector<std::pair<std::string, std::int64_t>> terms, std::int64_t constant)
{
    return ir::AffineExpr{std::move(terms), constant};
}

/// The single statement of a one-statement operator, wherever it is nested.
const ir::Statement& onlyStatement(const ir::Operator& op)
{
    const std::vector<Node>* level = &op.body;
    while (level->front().kind != Node::Kind::Statement)
        level = &level->front().body;
    return level->front().statement;
}

std::string wrap(const std::string& loops, const std::string& statement)
{
    return "operator t(N = 8, M = 4) {\n" + loops + "\n" + statement + "\n}\n";
}

} // namespace

class TestParser : public QObject
{
    Q_OBJECT
private slots:
    void conv1dExample()
    {
        const auto op = ir::parseOperator(kConv1d, "conv1d.loop");
        QCOMPARE(op.name, std::string("conv1d"));
        QCOMPARE(op.file, std::string("conv1d.loop"));
        QCOMPARE(op.sizes.size(), std::size_t(2));
        QCOMPARE(op.sizes[0].name, std::string("X"));
        QCOMPARE(op.sizes[0].value, std::int64_t(16));
        QCOMPARE(op.sizes[0].loc, (SourceLoc{1, 17}));
        QCOMPARE(op.sizes[1].name, std::string("S"));
        QCOMPARE(op.sizes[1].value, std::int64_t(3));
        QCOMPARE(op.sizeValue("S"), std::optional<std::int64_t>(3));
        QCOMPARE(op.sizeValue("Q"), std::optional<std::int64_t>());

        QCOMPARE(op.body.size(), std::size_t(1));
        const Node& x = op.body[0];
        QCOMPARE(x.kind, Node::Kind::Loop);
        QCOMPARE(x.iterator, std::string("x"));
        QCOMPARE(x.loc, (SourceLoc{2, 3}));
        QCOMPARE(x.lower, affine({}, 0));
        QCOMPARE(x.upper, affine({{"X", 1}}, 0));
        QCOMPARE(x.body.size(), std::size_t(1));
        const Node& s = x.body[0];
        QCOMPARE(s.iterator, std::string("s"));
        QCOMPARE(s.upper, affine({{"S", 1}}, 0));
        QCOMPARE(s.body.size(), std::size_t(1));
        const ir::Statement& st = s.body[0].statement;
        QCOMPARE(s.body[0].kind, Node::Kind::Statement);
        QCOMPARE(st.op, ir::Statement::Op::AddAssign);
        QCOMPARE(st.loc, (SourceLoc{4, 7}));
        QCOMPARE(st.text, std::string("O[x] += W[s] * I[x + s];"));
        QCOMPARE(st.target.tensor, std::string("O"));
        QCOMPARE(st.target.subscripts, std::vector<ir::AffineExpr>{affine({{"x", 1}}, 0)});
        QCOMPARE(st.value.kind, Expr::Kind::Mul);
        QCOMPARE(st.value.operands.size(), std::size_t(2));
        QCOMPARE(st.value.operands[0].ref.toString(), std::string("W[s]"));
        QCOMPARE(st.value.operands[1].ref.tensor, std::string("I"));
        QCOMPARE(st.value.operands[1].ref.subscripts,
            std::vector<ir::AffineExpr>{affine({{"s", 1}, {"x", 1}}, 0)});
        QCOMPARE(st.value.operands[1].ref.toString(), std::string("I[x + s]"));
        QVERIFY(st.isReduction());
        const auto reads = st.reads();
        QCOMPARE(reads.size(), std::size_t(3));
        QCOMPARE(reads[0].toString(), std::string("O[x]"));
        QCOMPARE(reads[2].toString(), std::string("I[x + s]"));

        const auto nest = ir::perfectNest(op);
        QVERIFY(nest.has_value());
        QCOMPARE(nest->loops.size(), std::size_t(2));
        QCOMPARE(nest->loops[0].extent, std::int64_t(16));
        QCOMPARE(nest->loops[0].dimName, std::string("X"));
        QCOMPARE(nest->loops[1].extent, std::int64_t(3));
        QCOMPARE(nest->statements.size(), std::size_t(1));
    }

    void gemmExample()
    {
        const auto op = ir::parseOperator(kParserGemm, "gemm.loop");
        QCOMPARE(op.name, std::string("gemm"));
        QCOMPARE(op.sizes.size(), std::size_t(3));
        QCOMPARE(op.sizes[2].value, std::int64_t(4096));
        const auto nest = ir::perfectNest(op);
        QVERIFY(nest.has_value());
        std::vector<std::string> iterators, dims;
        std::vector<std::int64_t> extents;
        for (const auto& l : nest->loops) {
            iterators.push_back(l.iterator);
            dims.push_back(l.dimName);
            extents.push_back(l.extent);
        }
        QCOMPARE(iterators, (std::vector<std::string>{"m", "n", "k"}));
        QCOMPARE(dims, (std::vector<std::string>{"M", "N", "K"}));
        QCOMPARE(extents, (std::vector<std::int64_t>{128, 2048, 4096}));
        const auto& st = nest->statements[0];
        QCOMPARE(st.text, std::string("C[m][n] += A[m][k] * B[k][n];"));
        QCOMPARE(st.loc, (SourceLoc{5, 9}));
        QCOMPARE(st.target.toString(), std::string("C[m][n]"));
        QCOMPARE(st.value.operands[0].ref.toString(), std::string("A[m][k]"));
        QCOMPARE(st.value.operands[1].ref.toString(), std::string("B[k][n]"));
    }

    void loopForms_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<QString>("upper");
        QTest::newRow("i++") << "for (i = 0; i < N; i++)"
                             << "N";
        QTest::newRow("++i") << "for (i = 0; i < N; ++i)"
                             << "N";
        QTest::newRow("+= 1") << "for (int i = 0; i < N; i += 1)"
                              << "N";
        QTest::newRow("<= becomes < + 1") << "for (i = 0; i <= N; i++)"
                                          << "N + 1";
        QTest::newRow("affine bound") << "for (i = 0; i < 2 * N - M + 3; i++)"
                                      << "-M + 2*N + 3";
        QTest::newRow("constant bound") << "for (i = 0; i < 10; i++)"
                                        << "10";
        QTest::newRow("comments") << "for /* c */ (i = 0; // x\n i < N; i++)"
                                  << "N";
    }
    void loopForms()
    {
        QFETCH(QString, header);
        QFETCH(QString, upper);
        const auto op = ir::parseOperator(wrap(header.toStdString(), "O[i] = I[i];"), "t.loop");
        QCOMPARE(op.body[0].iterator, std::string("i"));
        QCOMPARE(op.body[0].upper.toString(), upper.toStdString());
    }

    void triangularLoop()
    {
        const auto op = ir::parseOperator(
            wrap("for (i = 0; i < N; i++) for (j = 0; j <= i; j++)", "O[i][j] = I[j][i];"), "t.loop");
        QCOMPARE(op.body[0].body[0].upper, affine({{"i", 1}}, 1));
        const auto nest = ir::perfectNest(op);
        QVERIFY(nest.has_value());
        QCOMPARE(nest->loops[1].extent, std::int64_t(8)); // j reaches 0..7 when i = 7
        QCOMPARE(nest->loops[1].dimName, std::string("J"));
    }

    void subscripts_data()
    {
        QTest::addColumn<QString>("subscript");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("2 * y + r") << "2 * y + r"
                                   << "r + 2*y";
        QTest::newRow("x + 1") << "x + 1"
                               << "x + 1";
        QTest::newRow("2*y") << "2*y"
                             << "2*y";
        QTest::newRow("y*2") << "y*2"
                             << "2*y";
        QTest::newRow("-x") << "-x"
                            << "-x";
        QTest::newRow("parentheses") << "3 * (x - 1) + (r)"
                                     << "r + 3*x - 3";
        QTest::newRow("size is a constant") << "x + N - 1"
                                            << "x + 7";
        QTest::newRow("cancels") << "x + r - x"
                                 << "r";
        QTest::newRow("constant") << "0"
                                  << "0";
    }
    void subscripts()
    {
        QFETCH(QString, subscript);
        QFETCH(QString, canonical);
        const auto op = ir::parseOperator(
            wrap("for (x = 0; x < N; x++) for (y = 0; y < N; y++) for (r = 0; r < M; r++)",
                "O[x] += I[" + subscript.toStdString() + "];"),
            "t.loop");
        const auto& ref = onlyStatement(op).value.ref;
        QCOMPARE(ref.subscripts[0].toString(), canonical.toStdString());
        QCOMPARE(ref.subscriptText[0], subscript.toStdString());
    }

    void statements_data()
    {
        QTest::addColumn<QString>("statement");
        QTest::addColumn<bool>("reduction");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("operations");
        QTest::newRow("+=") << "O[i] += I[i];" << true << int(Expr::Kind::Ref) << 1;
        QTest::newRow("=") << "O[i] = I[i] * 2;" << false << int(Expr::Kind::Mul) << 1;
        QTest::newRow("mac") << "O[i] += W[i] * I[i];" << true << int(Expr::Kind::Mul) << 2;
        QTest::newRow("= sum") << "O[i] = O[i] + I[i];" << true << int(Expr::Kind::Add) << 1;
        QTest::newRow("max") << "O[i] = max(O[i], I[i]);" << true << int(Expr::Kind::Max) << 1;
        QTest::newRow("min second") << "O[i] = min(I[i], O[i]);" << true << int(Expr::Kind::Min) << 1;
        QTest::newRow("max other") << "O[i] = max(I[i], 0);" << false << int(Expr::Kind::Max) << 1;
        QTest::newRow("unary minus") << "O[i] = -I[i];" << false << int(Expr::Kind::Neg) << 1;
        QTest::newRow("sub") << "O[i] = I[i] - 1.5e-3;" << false << int(Expr::Kind::Sub) << 1;
        QTest::newRow("number") << "O[i] = .5;" << false << int(Expr::Kind::Number) << 0;
        QTest::newRow("copy") << "O[i] = I[i];" << false << int(Expr::Kind::Ref) << 0;
        QTest::newRow("parens") << "O[i] = (I[i] + 1) * (I[i] - 1);" << false << int(Expr::Kind::Mul) << 3;
        QTest::newRow("division") << "O[i] = I[i] / S[0];" << false << int(Expr::Kind::Div) << 1;
        // Softmax's exponent and GELU: each call is one operation, like each arithmetic operator.
        QTest::newRow("exp") << "O[i] = exp(I[i] - Z[0]);" << false << int(Expr::Kind::Call) << 2;
        QTest::newRow("gelu") << "O[i] = I[i] * 0.5 * (1 + erf(I[i] * 0.7071067811865476));" << false
                              << int(Expr::Kind::Mul) << 5;
        QTest::newRow("rsqrt") << "O[i] = rsqrt(Q[i] * 0.25 + 0.00001);" << false << int(Expr::Kind::Call)
                               << 3;
        QTest::newRow("sigmoid gate")
            << "O[i] = G[i] * sigmoid(G[i]) * U[i];" << false << int(Expr::Kind::Mul) << 3;
        QTest::newRow("a tensor named like a function")
            << "O[i] = exp[i] + tanh[i];" << false << int(Expr::Kind::Add) << 1;
    }
    void statements()
    {
        QFETCH(QString, statement);
        QFETCH(bool, reduction);
        QFETCH(int, kind);
        QFETCH(int, operations);
        const auto op = ir::parseOperator(wrap("for (i = 0; i < N; i++)", statement.toStdString()), "t.loop");
        const auto& st = onlyStatement(op);
        QCOMPARE(st.isReduction(), reduction);
        QCOMPARE(int(st.value.kind), kind);
        QCOMPARE(st.operations(), std::int64_t(operations));
        QCOMPARE(st.text, statement.toStdString());
    }

    // Not the MDC's shape, but the language: R1 reports these, the parser accepts them.
    void conditionalsAndImperfectNests()
    {
        const auto op = ir::parseOperator("operator f(N = 4) {\n"
                                          "  for (i = 0; i < N; i++) {\n"
                                          "    B[i] = C[i];\n"
                                          "    if (i > 0 && (i < N - 1 || !(i == 2))) { O[i] = B[i]; }\n"
                                          "    if (i != 1) O[i] += 1;\n"
                                          "  }\n"
                                          "}\n",
            "f.loop");
        const auto& body = op.body[0].body;
        QCOMPARE(body.size(), std::size_t(3));
        QCOMPARE(body[1].kind, Node::Kind::If);
        QCOMPARE(body[1].condition, std::string("i > 0 && (i < N - 1 || !(i == 2))"));
        QCOMPARE(body[1].loc, (SourceLoc{4, 5}));
        QCOMPARE(body[2].body[0].statement.text, std::string("O[i] += 1;"));
        QVERIFY(!ir::perfectNest(op).has_value());
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const std::string loop = "for (i = 0; i < N; i++)";
        auto body = [](const std::string& s) { return "operator t(N = 8) {\n" + s + "\n}\n"; };
        QTest::newRow("empty file")
            << ""
            << "bad.loop:1:1: empty file: expected 'operator NAME(SIZE = value, ...) { ... }'";
        QTest::newRow("only comments")
            << "// nothing\n/* here */\n"
            << "bad.loop:3:1: empty file: expected 'operator NAME(SIZE = value, ...) { ... }'";
        QTest::newRow("not an operator") << "oper t() {}"
                                         << "bad.loop:1:1: expected 'operator', found 'oper'";
        QTest::newRow("unknown identifier in bound")
            << QString::fromStdString(body("for (i = 0; i < Q; i++) O[i] = I[i];"))
            << "bad.loop:2:17: unknown identifier 'Q' in loop bound";
        QTest::newRow("unknown identifier in subscript") << QString::fromStdString(
            body(loop + " O[i] = I[j];")) << "bad.loop:2:34: unknown identifier 'j' in subscript";
        QTest::newRow("non-affine subscript")
            << QString::fromStdString(body(loop + " for (j = 0; j < N; j++) O[i * j] = I[i];"))
            << "bad.loop:2:53: not affine: 'i' times 'j' multiplies two variables";
        QTest::newRow("loop not from 0")
            << QString::fromStdString(body("for (i = 1; i < N; i++) O[i] = I[i];"))
            << "bad.loop:2:10: loop 'i' must start at 0 (found '1'); normalise it by "
               "shifting the subscripts instead";
        QTest::newRow("step 2") << QString::fromStdString(body("for (i = 0; i < N; i += 2) O[i] = I[i];"))
                                << "bad.loop:2:20: the loop increment must be 'i++', '++i' or 'i += 1'";
        QTest::newRow("condition on other iterator")
            << QString::fromStdString(body("for (i = 0; k < N; i++) O[i] = I[i];"))
            << "bad.loop:2:13: the loop condition must test 'i', found 'k'";
        QTest::newRow("missing brace")
            << "operator t(N = 8) {\n for (i = 0; i < N; i++) {\n O[i] = I[i];\n}\n"
            << "bad.loop:5:1: expected '}' to close the '{' opened at 1:19, found end of file";
        QTest::newRow("extra brace") << QString::fromStdString(body(loop + " O[i] = I[i]; }"))
                                     << "bad.loop:3:1: unexpected '}' after the end of the operator";
        QTest::newRow("unterminated comment")
            << QString::fromStdString(body(loop + " O[i] = I[i]; /* open"))
            << "bad.loop:2:38: unterminated comment: '/*' has no matching '*/'";
        QTest::newRow("duplicate size") << "operator t(N = 8, N = 4) { for (i = 0; i < N; i++) O[i] = I[i]; }"
                                        << "bad.loop:1:19: duplicate size 'N' (first declared at 1:12)";
        QTest::newRow("iterator reuse")
            << QString::fromStdString(body(loop + " for (i = 0; i < N; i++) O[i] = I[i];"))
            << "bad.loop:2:30: loop iterator 'i' is already declared at 2:6";
        QTest::newRow("huge size")
            << "operator t(N = 99999999999999999999999) { for (i = 0; i < N; i++) O[i] = I[i]; }"
            << "bad.loop:1:16: size 'N' = 99999999999999999999999 is too large (at most "
               "2147483647)";
        QTest::newRow("huge constant")
            << QString::fromStdString(body(loop + " O[i + 9223372036854775808] = I[i];"))
            << "bad.loop:2:31: number '9223372036854775808' is too large (at most 2147483647)";
        QTest::newRow("overflowing product")
            << QString::fromStdString(body(loop + " O[2000000000 * 2000000000 * 2000000000 * i] = I[i];"))
            << "bad.loop:2:51: integer overflow in expression";
        QTest::newRow("zero size") << "operator t(N = 0) { for (i = 0; i < N; i++) O[i] = I[i]; }"
                                   << "bad.loop:1:16: size 'N' must be a positive integer";
        QTest::newRow("float subscript")
            << QString::fromStdString(body(loop + " O[i] = I[1.5];"))
            << "bad.loop:2:34: '1.5' is not an integer: subscripts use integer constants";
        QTest::newRow("division in a subscript")
            << QString::fromStdString(body(loop + " O[i / 2] = I[i];"))
            << "bad.loop:2:29: division is not supported in subscripts, bounds or conditions";
        QTest::newRow("two arguments to exp") << QString::fromStdString(body(loop + " O[i] = exp(I[i], 2);"))
                                              << "bad.loop:2:40: 'exp' takes one argument";
        QTest::newRow("-= assignment")
            << QString::fromStdString(body(loop + " O[i] -= I[i];"))
            << "bad.loop:2:30: only '=' and '+=' assignments are supported, found '-='";
        QTest::newRow("missing semicolon")
            << QString::fromStdString(body(loop + " O[i] = I[i]\n"))
            << "bad.loop:4:1: expected ';' at the end of the statement, found '}'";
        QTest::newRow("unknown function")
            << QString::fromStdString(body(loop + " O[i] = log(I[i]);"))
            << "bad.loop:2:32: unknown function 'log' (available: max, min, exp, sqrt, rsqrt, tanh, erf, "
               "sigmoid)";
        QTest::newRow("iterator as value")
            << QString::fromStdString(body(loop + " O[i] = i;"))
            << "bad.loop:2:32: the loop iterator 'i' cannot be used as a value: values "
               "are tensor elements T[...] and numbers";
        QTest::newRow("rank mismatch") << QString::fromStdString(body(loop + " O[i] = O[i][i];"))
                                       << "bad.loop:2:32: tensor 'O' has 2 subscripts here but 1 at 2:25";
        QTest::newRow("bad character") << QString::fromStdString(body(loop + " O[i] = I[i] @ 2;"))
                                       << "bad.loop:2:37: unexpected character '@'";
        QTest::newRow("non-ascii character")
            << QString::fromStdString(body(loop + " O[i] = I[i] \xc3\x97 2;"))
            << "bad.loop:2:37: unexpected character U+00D7";
        QTest::newRow("invalid utf-8")
            << QString::fromLatin1("operator t(N = 8) { // caf\xe9\n}")
            << "bad.loop:1:27: invalid UTF-8 byte 0xE9: the file must be UTF-8 text";
        QTest::newRow("bound uses own iterator")
            << QString::fromStdString(body("for (i = 0; i < i; i++) O[i] = I[i];"))
            << "bad.loop:2:17: the bound of loop 'i' cannot use its own iterator";
        QTest::newRow("never runs") << QString::fromStdString(
            body("for (i = 0; i < N - 8; i++) O[i] = I[i];"))
                                    << "bad.loop:2:17: loop 'i' never runs: its bound 'N - 8' is at most 0";
        QTest::newRow("else")
            << QString::fromStdString(body(loop + " if (i < 2) O[i] = 1; else O[i] = 2;"))
            << "bad.loop:2:46: 'else' is not supported (write a second 'if' with the opposite "
               "condition)";
        QTest::newRow("if without comparison")
            << QString::fromStdString(body(loop + " if (i + 1) O[i] = 1;"))
            << "bad.loop:2:29: the condition of 'if' must be a comparison such as "
               "'i < N'";
        QTest::newRow("junk after operator")
            << "operator t(N = 8) { for (i = 0; i < N; i++) O[i] = I[i]; } extra"
            << "bad.loop:1:60: unexpected 'extra' after the end of the operator";
    }
    void malformed()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        // Latin-1 round trip keeps the deliberately invalid byte of the UTF-8 row.
        const std::string input = QTest::currentDataTag() == QLatin1String("invalid utf-8")
            ? text.toLatin1().toStdString()
            : text.toStdString();
        QCOMPARE(QString::fromStdString(firstError(input)), message);
    }

    void collectsEveryDiagnostic()
    {
        const auto d = errorsOf("operator t(N = 8, N = 2) {\n"
                                "  for (i = 0; i < N; i++) {\n"
                                "    O[i] = I[q];\n"
                                "    O[i] = = 2;\n"
                                "    O[i * i] = I[i];\n"
                                "  }\n"
                                "}\n");
        QCOMPARE(d.size(), std::size_t(4));
        QCOMPARE(d[0].format(), std::string("bad.loop:1:19: duplicate size 'N' (first declared at 1:12)"));
        QCOMPARE(d[1].format(), std::string("bad.loop:3:14: unknown identifier 'q' in subscript"));
        QCOMPARE(d[2].format(),
            std::string("bad.loop:4:12: expected a value (a number, a tensor element, max(...) "
                        "or min(...)), found '='"));
        QCOMPARE(
            d[3].format(), std::string("bad.loop:5:9: not affine: 'i' times 'i' multiplies two variables"));
    }

    void tooManyErrorsStops()
    {
        std::string text = "operator t(N = 8) { for (i = 0; i < N; i++) {\n";
        for (int k = 0; k < 200; ++k)
            text += "O[i] = I[q];\n";
        const auto d = errorsOf(text + "} }");
        QVERIFY(d.size() <= 26);
        QCOMPARE(d.back().message, std::string("too many errors, stopping"));
    }

    void deepNesting_data()
    {
        QTest::addColumn<QString>("open");
        QTest::addColumn<QString>("close");
        QTest::addColumn<QString>("where");
        QTest::newRow("parentheses in a value") << "("
                                                << ")"
                                                << "value";
        QTest::newRow("parentheses in a subscript") << "("
                                                    << ")"
                                                    << "subscript";
        QTest::newRow("unary minus") << "-"
                                     << ""
                                     << "value";
        QTest::newRow("braces") << "if (i < 2) {"
                                << "}"
                                << "block";
        QTest::newRow("if chain") << "if (i < 2) "
                                  << ""
                                  << "block";
    }
    void deepNesting()
    {
        QFETCH(QString, open);
        QFETCH(QString, close);
        QFETCH(QString, where);
        for (int depth : {kNearLimit, 100000}) {
            std::string prefix, suffix;
            for (int k = 0; k < depth; ++k) {
                prefix += open.toStdString();
                suffix += close.toStdString();
            }
            std::string statement;
            if (where == "value")
                statement = "O[i] = " + prefix + "I[i]" + suffix + ";";
            else if (where == "subscript")
                statement = "O[i] = I[" + prefix + "i" + suffix + "];";
            else
                statement = prefix + "O[i] = I[i];" + suffix;
            const std::string text = "operator t(N = 8) { for (i = 0; i < N; i++) { " + statement + " } }";
            const auto d = errorsOf(text);
            if (depth == kNearLimit) {
                QVERIFY2(d.empty(), d.empty() ? "" : d.front().format().c_str());
            } else {
                QVERIFY(!d.empty());
                QVERIFY2(d.back().message.find("nesting is too deep (more than 256 levels") == 0,
                    d.back().format().c_str());
            }
        }
    }

    // Long operator chains build deep expression trees: a chain of 100 terms parses, one of 100000 is
    // rejected with one located error instead of overflowing the stack when the tree is walked or freed.
    // Affine subscripts fold as they are read, so any length is fine there.
    void longChains_data()
    {
        QTest::addColumn<QString>("op");
        QTest::newRow("sum") << "+";
        QTest::newRow("difference") << "-";
        QTest::newRow("product") << "*";
    }
    void longChains()
    {
        QFETCH(QString, op);
        const std::string o = " " + op.toStdString() + " ";
        auto chain = [&](const std::string& term, int terms) {
            std::string text = term;
            for (int k = 1; k < terms; ++k)
                text += o + term;
            return text;
        };
        auto statementOf = [](const std::string& statement) {
            return "operator t(N = 8) {\n  for (i = 0; i < N; i++)\n    " + statement + "\n}\n";
        };
        const auto ok = ir::parseOperator(statementOf("O[i] = " + chain("I[i]", 100) + ";"), "ok.loop");
        const ir::Expr* e = &ok.body.at(0).body.at(0).statement.value;
        int depth = 0;
        for (; !e->operands.empty(); e = &e->operands.front())
            ++depth;
        QCOMPARE(depth, 99);
        const auto d = errorsOf(statementOf("O[i] = " + chain("I[i]", 100000) + ";"));
        QCOMPARE(d.size(), std::size_t(1));
        QVERIFY2(d[0].format().starts_with("bad.loop:3:"), d[0].format().c_str());
        QVERIFY2(d[0].message.find("nesting is too deep (more than 256 levels") == 0, d[0].format().c_str());
        const auto folded
            = ir::parseOperator(statementOf("O[i] = I[i" + o + chain("1", 100000) + "];"), "ok.loop");
        const ir::AffineExpr& subscript = folded.body.at(0).body.at(0).statement.value.ref.subscripts.at(0);
        QCOMPARE(subscript.coefficient("i"), std::int64_t(1));
        QCOMPARE(subscript.constant, op == "+" ? std::int64_t(100000) : op == "-" ? -100000 : 0);
    }

    // Operators larger than the checker is meant for stop with one located error (the checker compares
    // every write with every access, so unbounded input would make `marvel check` effectively hang).
    void sizeLimits_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        auto loops = [](int count) {
            std::string body;
            for (int k = 0; k < count; ++k)
                body += " for (z" + std::to_string(k) + " = 0; z" + std::to_string(k) + " < 4; z"
                    + std::to_string(k) + "++) O[z" + std::to_string(k) + "] += I[z" + std::to_string(k)
                    + "];";
            return QString::fromStdString("operator t() {" + body + " }");
        };
        auto statements = [](int count) {
            std::string body;
            for (int k = 0; k < count; ++k)
                body += " O[i] += I[i];";
            return QString::fromStdString("operator t() { for (i = 0; i < 4; i++) {" + body + " } }");
        };
        QTest::newRow("100 loops") << loops(ir::kMaxLoops) << "";
        QTest::newRow("101 loops") << loops(ir::kMaxLoops + 1) << "more than 100 loops";
        QTest::newRow("100 statements") << statements(ir::kMaxStatements) << "";
        QTest::newRow("101 statements") << statements(ir::kMaxStatements + 1) << "more than 100 statements";
        QTest::newRow("1001 subscripts") << QString::fromStdString(
            "operator t() { for (i = 0; i < 4; i++) O[i] += I" + std::string() +
            [] {
                std::string s;
                for (int k = 0; k < ir::kMaxSubscripts; ++k)
                    s += "[i]";
                return s;
            }()
            + "; }") << "more than 1000 tensor subscripts";
    }
    void sizeLimits()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto d = errorsOf(text.toStdString());
        if (message.isEmpty()) {
            QVERIFY2(d.empty(), d.empty() ? "" : d.front().format().c_str());
            return;
        }
        QCOMPARE(d.size(), std::size_t(1));
        QCOMPARE(d[0].message, "the operator is too large: " + message.toStdString());
        QVERIFY(d[0].loc.line == 1 && d[0].loc.column > 1);
    }

    // A bare block is not part of the language; even 100000 of them nested give one clear error.
    void bareBlocks()
    {
        const std::string text = "operator t(N = 8) { for (i = 0; i < N; i++) { " + std::string(100000, '{')
            + "O[i] = I[i];" + std::string(100000, '}') + " } }";
        const auto d = errorsOf(text);
        QCOMPARE(d.size(), std::size_t(1));
        QCOMPARE(d[0].format(),
            std::string("bad.loop:1:47: unexpected '{': a block must follow 'for (...)' or 'if (...)'"));
    }

    void readsFiles()
    {
        const auto op = ir::parseOperatorFile(std::string(MARVEL_SAMPLES_DIR) + "/operators/conv2d.loop");
        QCOMPARE(op.name, std::string("conv2d"));
        QCOMPARE(op.sizes.size(), std::size_t(6));
        QVERIFY(op.file.find("conv2d.loop") != std::string::npos);
        try {
            ir::parseOperatorFile("/nonexistent/dir/missing.loop");
            QFAIL("a missing file must be an input error");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostics().front().format(),
                std::string("/nonexistent/dir/missing.loop: cannot read the file"));
        }
        try {
            ir::parseOperatorFile(MARVEL_SAMPLES_DIR);
            QFAIL("a directory must be an input error");
        } catch (const InputError& e) {
            QVERIFY(e.diagnostics().front().message.find("directory") != std::string::npos);
        }
    }

    // Random, truncated and mutated inputs: the parser either returns an operator (which the checker then
    // handles) or throws InputError with located diagnostics - never anything else, never a hang.
    void fuzz()
    {
        std::vector<std::string> seeds{kConv1d, kParserGemm};
        for (const auto& entry :
            std::filesystem::directory_iterator(std::string(MARVEL_SAMPLES_DIR) + "/operators")) {
            if (entry.path().extension() != ".loop") continue;
            std::ifstream in(entry.path());
            std::stringstream buffer;
            buffer << in.rdbuf();
            seeds.push_back(buffer.str());
        }
        const std::string alphabet = "(){}[];,=+-*/<>!&|._ \n\t0123456789aeiknorsxyzIOW#@\"'\\\x80\xff";
        std::mt19937 rng(12345);
        int parsed = 0, rejected = 0;
        for (int round = 0; round < 3000; ++round) {
            std::string text = seeds[rng() % seeds.size()];
            const int mutations = 1 + int(rng() % 4);
            for (int m = 0; m < mutations && !text.empty(); ++m) {
                const std::size_t at = rng() % text.size();
                switch (rng() % 6) {
                case 0:
                    text.resize(at);
                    break;
                case 1:
                    text.erase(at, 1 + rng() % 8);
                    break;
                case 2:
                    text.insert(at, 1, alphabet[rng() % alphabet.size()]);
                    break;
                case 3:
                    text[at] = char(rng() % 256);
                    break;
                case 4:
                    text.insert(at, text.substr(rng() % text.size(), rng() % 16));
                    break;
                default:
                    std::swap(text[at], text[rng() % text.size()]);
                    break;
                }
            }
            try {
                const auto op = ir::parseOperator(text, "fuzz.loop");
                const auto report = conform::checkConformability(op);
                QVERIFY(report.operatorName == op.name);
                ++parsed;
            } catch (const InputError& e) {
                QVERIFY(!e.diagnostics().empty());
                for (const auto& d : e.diagnostics())
                    QVERIFY2(
                        d.file == "fuzz.loop" && d.loc.line >= 1 && d.loc.column >= 1, d.format().c_str());
                ++rejected;
            }
        }
        QVERIFY(parsed > 50);
        QVERIFY(rejected > 500);
    }

private:
    // Each level costs more than one guard (block + item, or parentheses + unary), so stay clearly below.
    static constexpr int kNearLimit = 60;
};

QTEST_APPLESS_MAIN(TestParser)
#include "tst_parser.moc"
