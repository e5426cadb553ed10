// `marvel search --style`, `--compare-styles` and `marvel evaluate --dataflow` end to end: every mapping a
// style returns spreads only that style's loops (read from the JSON mapping), the comparison's totals
// and geometric means recomputed from its per-layer rows, the optimisers' GEMM in convolution form,
// MAESTRO's fixed dataflows counting every MAC of a small model, and the bad-argument exits.
#include <cmath>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

using clitest::kP1;
using clitest::parse;
using clitest::runMarvel;
using clitest::writeFile;

namespace {

// Stride 1, so every style's parallel loops can keep the 10% PE bound busy on 168 PEs: each style's
// space is then part of Marvel's. The GEMM's M of 42 (a quarter of 168) lets Marvel's search find its
// mapping among the tile sizes that divide the loops; M = 16 made it widen to every tile size, ten times
// the work, in each of the comparisons below.
const QByteArray kModel = R"({"schema_version": 1, "name": "tiny", "layers": [
  {"name": "c1", "type": "CONV", "K": 32, "C": 16, "R": 3, "S": 3, "Y": 14, "X": 14},
  {"name": "c2", "type": "CONV", "K": 32, "C": 32, "R": 3, "S": 3, "Y": 14, "X": 14, "repeat": 2},
  {"name": "fc", "type": "GEMM", "M": 42, "N": 64, "K": 128}]})";

// Dimensions each style may spread over the PEs, by the names of the built-in convolution (K, C, Y, X,
// R, S) and GEMM (M, N, K) loops, from the paper's definitions: for a GEMM, N is the output channel, K
// the input channel and M the output rows (height and width).
QSet<QString> allowed(const QString& style, bool gemm)
{
    if (style == "rs") return gemm ? QSet<QString>{"M"} : QSet<QString>{"X", "S"};
    if (style == "os") return gemm ? QSet<QString>{"M"} : QSet<QString>{"X", "Y"};
    if (style == "dmazerunner") return {"K"}; // the convolution form's K: the GEMM's N
    return gemm ? QSet<QString>{"N", "K"} : QSet<QString>{"K", "C"};
}

QStringList parallelDims(const QJsonObject& mapping)
{
    QStringList out;
    for (const QJsonValue& l : mapping["loops"].toArray())
        if (l.toObject()["parallelism"].toInt() > 1) out << l.toObject()["dim"].toString();
    return out;
}

} // namespace

class TestCliStyles : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        writeFile(m_dir.filePath("tiny.json"), kModel);
    }

    void styleRestrictsTheParallelLoops_data()
    {
        QTest::addColumn<QString>("style");
        for (const char* s : {"rs", "ws", "os", "interstellar", "dmazerunner"})
            QTest::newRow(s) << s;
    }
    void styleRestrictsTheParallelLoops()
    {
        QFETCH(QString, style);
        const auto r = runMarvel({"search", "--model", m_dir.filePath("tiny.json"), "--hw", kP1, "--style",
            style, "--json", "--threads", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject out = parse(r.out);
        QCOMPARE(out["style"].toString(), style);
        const QJsonArray layers = out["layers"].toArray();
        QCOMPARE(layers.size(), 3);
        for (const QJsonValue& v : layers) {
            const QJsonObject l = v.toObject();
            QCOMPARE(l["status"].toString(), QString("ok"));
            const bool gemm = l["name"].toString() == "fc";
            const bool convForm = gemm && (style == "interstellar" || style == "dmazerunner");
            QCOMPARE(l.contains("conv_form"), convForm);
            if (convForm)
                QCOMPARE(l["conv_form"].toString(), QString("CONV2D K=64 (N) C=128 (K) Y'=42 (M) X'=R=S=1"));
            // MACs of the original layer whatever form was searched.
            QCOMPARE(l["macs"].toInteger(),
                gemm ? 42 * 64 * 128
                     : (l["name"].toString() == "c1" ? 32 * 16 * 9 * 196 : 32 * 32 * 9 * 196));
            const QSet<QString> ok = allowed(style, gemm && !convForm);
            QList<QJsonObject> mappings{l["mapping"].toObject()};
            for (const QJsonValue& p : l["pareto"].toArray())
                mappings << p.toObject()["mapping"].toObject();
            for (const QJsonObject& m : mappings)
                for (const QString& d : parallelDims(m))
                    QVERIFY2(
                        ok.contains(d), qPrintable(style + " spreads " + d + " of " + l["name"].toString()));
        }
    }

    void styleTextAndThreadIndependence()
    {
        const QString model = m_dir.filePath("tiny.json");
        const auto text
            = runMarvel({"search", "--model", model, "--hw", kP1, "--style", "ws", "--layer", "c1"});
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY(text.out.startsWith("style: ws (NVDLA-like weight-stationary)"));
        const auto one = runMarvel(
            {"search", "--model", model, "--hw", kP1, "--style", "dmazerunner", "--json", "--threads", "1"});
        const auto two = runMarvel(
            {"search", "--model", model, "--hw", kP1, "--style", "dmazerunner", "--json", "--threads", "2"});
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(two.exitCode, 0);
        const QJsonArray a = parse(one.out)["layers"].toArray(), b = parse(two.out)["layers"].toArray();
        QCOMPARE(a.size(), b.size());
        for (int i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].toObject()["mapping"], b[i].toObject()["mapping"]);
            QCOMPARE(a[i].toObject()["pareto"], b[i].toObject()["pareto"]);
        }
    }

    /// `--style genetic`: its budget and seed, the same answer whatever the threads, every mapping
    /// fitting the buffers with the layer's MACs.
    void geneticStyle()
    {
        const QString model = m_dir.filePath("tiny.json");
        QStringList args{"search", "--model", model, "--hw", kP1, "--style", "genetic", "--layer", "c1",
            "--genetic-evaluations", "500", "--json"};
        const auto one = runMarvel(args + QStringList{"--threads", "1"});
        const auto two = runMarvel(args + QStringList{"--threads", "2"});
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        QCOMPARE(two.exitCode, 0);
        const QJsonObject a = parse(one.out), b = parse(two.out);
        QCOMPARE(a["style"].toString(), QString("genetic"));
        const QJsonObject la = a["layers"].toArray()[0].toObject(), lb = b["layers"].toArray()[0].toObject();
        QCOMPARE(la["evaluated"].toInteger(), 500);
        QCOMPARE(la["mapping"], lb["mapping"]);
        QCOMPARE(la["pareto"], lb["pareto"]);
        QCOMPARE(la["macs"].toInteger(), 32 * 16 * 9 * 196);
        QVERIFY(la["buffers"].toObject()["fits"].toBool());
        const auto text = runMarvel({"search", "--model", model, "--hw", kP1, "--style", "genetic", "--layer",
            "c1", "--genetic-evaluations", "300", "--genetic-seed", "5"});
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY2(text.out.startsWith("style: genetic (GAMMA-like genetic search): seed 5, at most 300"),
            qPrintable(text.out));
        const auto bad = runMarvel(
            {"search", "--model", model, "--hw", kP1, "--style", "genetic", "--genetic-evaluations", "0"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("--genetic-evaluations"));
    }

    void compareStyles()
    {
        // A small genetic budget keeps the comparison quick (the sanitizer build runs it too).
        const auto r = runMarvel({"search", "--model", m_dir.filePath("tiny.json"), "--hw", kP1,
            "--compare-styles", "--json", "--threads", "2", "--genetic-evaluations", "600"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject out = parse(r.out);
        const QStringList styles = {"rs", "ws", "os", "interstellar", "dmazerunner", "genetic"};
        QCOMPARE(out["styles"].toArray().size(), styles.size());
        QMap<QString, double> total, logRatio;
        double marvelTotal = 0, fcMarvel = 0;
        int layers = 0;
        for (const QJsonValue& v : out["layers"].toArray()) {
            const QJsonObject l = v.toObject();
            const int repeat = l["repeat"].toInt();
            const double marvel = l["marvel"].toObject()["runtime_cycles"].toDouble();
            marvelTotal += repeat * marvel;
            if (l["name"].toString() == "fc") fcMarvel = marvel;
            layers += repeat;
            for (const QString& s : styles) {
                const QJsonObject e = l["styles"].toObject()[s].toObject();
                QCOMPARE(e["status"].toString(), QString("ok"));
                const double rt = e["runtime_cycles"].toDouble();
                // Each style searches part of Marvel's space here: never faster than Marvel. (The genetic
                // search is no part of it.)
                if (s != "genetic")
                    QVERIFY2(rt >= marvel, qPrintable(s + " beats Marvel on " + l["name"].toString()));
                QCOMPARE(e["runtime_ratio"].toDouble(), rt / marvel);
                total[s] += repeat * rt;
                logRatio[s] += repeat * std::log(rt / marvel);
            }
        }
        QCOMPARE(layers, 4);
        const QJsonObject t = out["total"].toObject();
        QCOMPARE(t["marvel"].toObject()["runtime_cycles"].toDouble(), marvelTotal);
        for (const QString& s : styles) {
            const QJsonObject e = t["styles"].toObject()[s].toObject();
            QCOMPARE(e["runtime_cycles"].toDouble(), total[s]);
            QCOMPARE(e["runtime_ratio"].toDouble(), total[s] / marvelTotal);
            QVERIFY(qAbs(e["geomean_runtime_ratio"].toDouble() - std::exp(logRatio[s] / layers)) < 1e-12);
        }
        // The text form says the same (of the GEMM layer alone: comparing the styles is a search per
        // style, so the whole model once is enough).
        const auto text = runMarvel({"search", "--model", m_dir.filePath("tiny.json"), "--hw", kP1,
            "--compare-styles", "--threads", "2", "--genetic-evaluations", "600", "--layer", "fc"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("dmazerunner (dMazeRunner-like optimiser)"));
        QVERIFY(text.out.contains("genetic (GAMMA-like genetic search)"));
        QVERIFY2(text.out.contains(QString::number(static_cast<qint64>(fcMarvel))), qPrintable(text.out));
    }

    void fixedDataflowsCountEveryMac()
    {
        // MACs by hand: K*C*R*S*Y'*X' per convolution.
        const QList<qint64> macs = {32 * 16 * 9 * 196, 32 * 32 * 9 * 196};
        for (const char* d : {"kcp_ws", "rs", "xp_ws", "yxp_os", "ykp_os"}) {
            const QString exported = m_dir.filePath(QString(d) + ".m");
            const auto r = runMarvel({"evaluate", "--dataflow", d, "--model", m_dir.filePath("tiny.json"),
                "--hw", kP1, "--format", "json", "--export-mdc", exported});
            // The GEMM layer is no convolution: reported in its place, exit 2.
            QCOMPARE(r.exitCode, 2);
            QVERIFY(r.err.contains("defined for convolutions"));
            const QJsonArray rows = QJsonDocument::fromJson(r.out.toUtf8()).array();
            QCOMPARE(rows.size(), 3);
            for (int i = 0; i < 2; ++i) {
                QCOMPARE(rows[i].toObject()["status"].toString(), QString("ok"));
                QCOMPARE(rows[i].toObject()["num_macs"].toInteger(), macs[i]);
            }
            QCOMPARE(rows[2].toObject()["status"].toString(), QString("error"));
            // The exported file reads back to the same numbers.
            const auto back = runMarvel({"evaluate", "--mapping", exported, "--hw", kP1, "--format", "json"});
            QVERIFY2(back.exitCode == 0, qPrintable(back.err));
            const QJsonArray again = QJsonDocument::fromJson(back.out.toUtf8()).array();
            QCOMPARE(again.size(), 2);
            for (int i = 0; i < 2; ++i)
                QCOMPARE(again[i].toObject()["runtime_cycles"].toInteger(),
                    rows[i].toObject()["runtime_cycles"].toInteger());
        }
        const auto one = runMarvel({"evaluate", "--dataflow", "rs", "--model", "vgg16", "--layer", "CONV1_1",
            "--hw", kP1, "--format", "csv"});
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(one.out.count('\n'), 2);
    }

    void badArguments()
    {
        const QString model = m_dir.filePath("tiny.json");
        auto r = runMarvel({"search", "--model", model, "--hw", kP1, "--style", "eyeriss"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--style") && r.err.contains("'eyeriss'"));
        r = runMarvel({"search", "--model", model, "--hw", kP1, "--style", "rs", "--compare-styles"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("not both"));
        r = runMarvel({"evaluate", "--dataflow", "nlr", "--model", model, "--hw", kP1});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--dataflow") && r.err.contains("'nlr'"));
        r = runMarvel({"evaluate", "--dataflow", "rs", "--hw", kP1});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--model"));
        r = runMarvel({"evaluate", "--dataflow", "rs", "--model", model, "--layer", "nope", "--hw", kP1});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("no layer 'nope'"));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCliStyles)
#include "tst_cli_styles.moc"
