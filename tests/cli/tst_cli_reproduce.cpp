// `marvel reproduce` end to end on a tiny experiments file (one small layer per category on P1 and P2):
// the files it writes, summary.json holding every key of issue 10 as a number, a CSV row against
// `marvel search` of the same layer, the styles' mean recomputed from the model table, and the bad-input
// exits.
#include <cmath>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

using clitest::kP1;
using clitest::runMarvel;

namespace {

const QString kTiny = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/reproduce/tiny.json");

/// The rows of a CSV file as maps from the header's names (no quoted commas in these files' numbers).
QList<QMap<QString, QString>> readCsv(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QList<QMap<QString, QString>> rows;
    const QStringList header = lines.value(0).split(',');
    for (int i = 1; i < lines.size(); ++i) {
        const QStringList fields = lines[i].split(',');
        QMap<QString, QString> row;
        for (int c = 0; c < header.size(); ++c)
            row[header[c]] = fields.value(c);
        rows << row;
    }
    return rows;
}

QMap<QString, QString> findRow(const QList<QMap<QString, QString>>& rows, const QString& key1,
    const QString& v1, const QString& platform, const QString& variant)
{
    for (const auto& r : rows)
        if (r.value(key1) == v1 && r.value("platform") == platform && r.value("variant") == variant) return r;
    return {};
}

} // namespace

class TestCliReproduce : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_out;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_out = m_dir.filePath("out");
        const auto r
            = runMarvel({"reproduce", "--experiments", kTiny, "--out", m_out, "--threads", "2"}, 600000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // Progress with an estimate of the time left, one line per layer search off a terminal.
        QVERIFY2(r.err.contains("eta"), qPrintable(r.err));
    }

    void writesEveryFile()
    {
        for (const char* f : {"REPORT.md", "summary.json", "alexnet.csv", "alexnet_layers.csv", "gemm.csv",
                 "gemm_layers.csv", "mlp-m.csv", "mlp-m_layers.csv", "fig_cnn_optimisers.csv",
                 "fig_cnn_styles_runtime.csv", "fig_cnn_styles_energy.csv", "fig_gemm_mlp_lstm.csv"})
            QVERIFY2(QFile::exists(m_out + "/" + f), f);
        // The figures, when the renderer was built beside marvel (MARVEL_BUILD_UI=ON).
        if (QFile::exists(QFileInfo(QStringLiteral(MARVEL_CLI_PATH)).dir().filePath("marvel-figures")))
            for (const char* f : {"fig_cnn_optimisers", "fig_cnn_styles_runtime", "fig_cnn_styles_energy",
                     "fig_gemm_mlp_lstm"})
                for (const char* ext : {".png", ".pdf"})
                    QVERIFY2(QFileInfo(m_out + "/" + f + ext).size() > 1000, f);
        QFile report(m_out + "/REPORT.md");
        QVERIFY(report.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(report.readAll());
        QVERIFY(text.contains("10.25x")); // the paper's figure beside ours
        QVERIFY(text.contains("## Why our numbers differ"));
    }

    void summaryHasTheIssueKeys()
    {
        QFile f(m_out + "/summary.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
        for (const char* p : {"P1", "P2"})
            QVERIFY(j["marvel_over_roofline"][p].isDouble());
        QVERIFY(j["throughput_gain_vs_styles"].isDouble());
        QVERIFY(j["energy_gain_vs_styles"].isDouble());
        for (const char* k :
            {"speedup_vs_dmazerunner_like", "speedup_vs_interstellar_like", "speedup_vs_genetic"})
            for (const char* c : {"cnn", "gemm", "mlp_lstm"})
                QVERIFY2(j[k][c].isDouble(), c);
        for (const char* k : {"original_avg", "offchip_pruned_avg", "onchip_pruned_avg"})
            QVERIFY2(j["search_space"][k].isDouble(), k);
        QVERIFY(j["seconds"].toDouble() > 0);

        // The styles' mean from the model table: over {rs, ws, os} x {P1, P2} of style / Marvel runtime.
        const auto models = readCsv(m_out + "/alexnet.csv");
        double logSum = 0;
        int n = 0;
        for (const char* p : {"P1", "P2"})
            for (const char* v : {"rs", "ws", "os"}) {
                const auto style = findRow(models, "item", "alexnet", p, v);
                const auto marvel = findRow(models, "item", "alexnet", p, "marvel");
                QVERIFY2(!style.isEmpty() && !marvel.isEmpty(), v);
                logSum += std::log(style["runtime_cycles"].toDouble() / marvel["runtime_cycles"].toDouble());
                ++n;
            }
        QVERIFY(std::abs(j["throughput_gain_vs_styles"].toDouble() - std::exp(logSum / n)) < 1e-9);
        // One layer per model: Marvel's model runtime / roofline is the layer's.
        const auto marvelP1 = findRow(models, "item", "alexnet", "P1", "marvel");
        QVERIFY(std::abs(j["marvel_over_roofline"]["P1"].toDouble()
                    - marvelP1["runtime_cycles"].toDouble() / marvelP1["roofline_cycles"].toDouble())
            < 1e-9);
    }

    void rowsMatchMarvelSearch()
    {
        const auto layers = readCsv(m_out + "/alexnet_layers.csv");
        // Every row has the header's fields (the search-space columns are empty off Marvel's rows).
        for (const char* table : {"alexnet_layers.csv", "gemm_layers.csv", "alexnet.csv", "gemm.csv"}) {
            QFile f(m_out + "/" + table);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
            for (const QString& line : lines)
                QCOMPARE(line.count(','), lines[0].count(','));
        }
        for (const QString& style :
            {QString(), QStringLiteral("ws"), QStringLiteral("dmazerunner"), QStringLiteral("genetic")}) {
            // reproduce's genetic budget is its own (2000 evaluations per layer), its fidelity maestro's.
            QStringList args{"search", "--model", "alexnet", "--layer", "CONV5", "--hw", kP1, "--json",
                "--threads", "2", "--genetic-evaluations", "2000", "--fidelity", "maestro"};
            if (!style.isEmpty()) args << "--style" << style;
            if (style.isEmpty()) args << "--no-refine"; // reproduce measures the paper's search
            const auto r = runMarvel(args);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const QJsonObject layer
                = QJsonDocument::fromJson(r.out.toUtf8()).object()["layers"].toArray()[0].toObject();
            const auto row = findRow(layers, "layer", "CONV5", "P1", style.isEmpty() ? "marvel" : style);
            QVERIFY(!row.isEmpty());
            QCOMPARE(row["runtime_cycles"].toLongLong(), layer["runtime_cycles"].toInteger());
            QCOMPARE(row["roofline_cycles"].toLongLong(), layer["roofline_cycles"].toInteger());
        }
    }

    void independentOfThreads()
    {
        // A second whole reproduction only to compare its tables: the optimised build checks it; under
        // the sanitizers it would repeat the first run's memory checks at six times the cost.
        if (MARVEL_ADDRESS_SANITIZER) QSKIP("checked by the optimised build");
        const QString other = m_dir.filePath("one-thread");
        const auto r
            = runMarvel({"reproduce", "--experiments", kTiny, "--out", other, "--threads", "1"}, 600000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // The model tables hold no timings: byte for byte the same.
        for (const char* table : {"alexnet.csv", "gemm.csv", "mlp-m.csv", "fig_cnn_optimisers.csv"}) {
            QFile a(m_out + "/" + table), b(other + "/" + table);
            QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
            QCOMPARE(a.readAll(), b.readAll());
        }
    }

    void badOutIsAnInputError()
    {
        const QString file = m_dir.filePath("a-file");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x");
        f.close();
        const auto r = runMarvel({"reproduce", "--experiments", kTiny, "--out", file});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("a-file") && r.err.contains("not a directory"), qPrintable(r.err));
        QCOMPARE(runMarvel({"reproduce", "--quick"}).exitCode, 2); // no --out
    }

    void badExperimentsFileNamesTheField()
    {
        const QString path = m_dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"({"platforms": {"P1": "x.json"}, "experiments": [{"workload": "alexnet", "category": "rnn"}]})");
        f.close();
        const auto r = runMarvel({"reproduce", "--experiments", path, "--out", m_dir.filePath("o2")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bad.json") && r.err.contains("experiments[0].category"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliReproduce)
#include "tst_cli_reproduce.moc"
