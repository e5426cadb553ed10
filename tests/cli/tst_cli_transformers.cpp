// The built-in transformers on the command line (issue 35): a decode step's attention product searched
// with --phase decode --kv-len --batch, the sequence options' errors (exit 2 naming the option), and a
// sweep over the prompt length whose rows carry a seq column and grow with it.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using clitest::kSamples;
using clitest::runMarvel;

namespace {

const QString kTransformerHw = kSamples + "/accelerators/P2_edge.json";

} // namespace

class TestCliTransformers : public QObject
{
    Q_OBJECT

private slots:
    // One decode step of GPT-2 over 16 cached tokens, 2 sequences: Q*K^T per KV head is 1 x 16 x 64
    // (1024 MACs), 2 sequences x 12 heads x 12 blocks of them.
    void decodeStep()
    {
        const auto run
            = runMarvel({"search", "--model", "gpt2", "--phase", "decode", "--kv-len", "16", "--batch", "2",
                "--layer", "h.0.attn.scores", "--hw", kTransformerHw, "--json", "--threads", "2"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject layer = clitest::parse(run.out)["layers"].toArray().at(0).toObject();
        QCOMPARE(layer["name"].toString(), QString("h.0.attn.scores"));
        QCOMPARE(layer["macs"].toInteger(), qint64(1 * 16 * 64));
        QCOMPARE(layer["repeat"].toInteger(), qint64(2 * 12 * 12));
        QCOMPARE(layer["status"].toString(), QString("ok"));
    }

    // On the vector unit of the 45 nm sample: softmax's exponent runs there (kind softmax, its compute the
    // element operations at the lanes' 0.315 pJ: 1 x 16 rows x 16 x 2 operations per element); a unit
    // without exp cannot run it, and the search says why (exit 2).
    void vectorUnit()
    {
        const QString hw = kSamples + "/accelerators/edge1024_45nm_vector.json";
        const auto run = runMarvel({"search", "--model", "gpt2", "--seq-len", "16", "--layer",
            "h.0.attn.softmax.exp", "--hw", hw, "--json", "--threads", "2"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject layer = clitest::parse(run.out)["layers"].toArray().at(0).toObject();
        QCOMPARE(layer["kind"].toString(), QString("softmax"));
        QCOMPARE(layer["element_ops"].toInteger(), qint64(12 * 16 * 16 * 2));
        QVERIFY(
            std::abs(layer["energy_parts"].toObject()["mac"].toDouble() - 12 * 16 * 16 * 2 * 0.315) < 1e-6);
        QTemporaryDir dir;
        QFile in(hw);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject acc = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject unit = acc["vector_unit"].toObject();
        unit["functions"] = QJsonArray{"rsqrt", "sigmoid"};
        acc["vector_unit"] = unit;
        QFile out(dir.filePath("no_exp.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(acc).toJson());
        out.close();
        const auto refused = runMarvel({"search", "--model", "gpt2", "--seq-len", "16", "--layer",
            "h.0.attn.softmax.exp", "--hw", dir.filePath("no_exp.json"), "--threads", "2"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(
            refused.err.contains("operator 'softmax_exp' calls exp, which the accelerator's vector unit does "
                                 "not compute (vector_unit.functions: rsqrt, sigmoid)"),
            qPrintable(refused.err));
    }

    void badSequenceOptions()
    {
        struct Case
        {
            QStringList args;
            QString message;
        };
        const QStringList search = {"search", "--hw", kTransformerHw};
        const QList<Case> cases = {
            {search + QStringList{"--model", "gpt2", "--seq-len", "0"},
                "--seq-len must be a positive integer"},
            {search + QStringList{"--model", "gpt2", "--batch", "-3"}, "--batch must be a positive integer"},
            {search + QStringList{"--model", "gpt2", "--phase", "sideways"},
                "--phase must be prefill or decode"},
            {search + QStringList{"--model", "gpt2", "--kv-len", "8"}, "--kv-len applies to --phase decode"},
            {search + QStringList{"--model", "gpt2", "--phase", "decode", "--seq-len", "8"},
                "--seq-len applies to --phase prefill"},
            {search + QStringList{"--model", "resnet50", "--seq-len", "8"}, "has no sequence"},
            {search + QStringList{"--model", "bert-base", "--phase", "decode"}, "encoder"},
            {search + QStringList{"--op", kSamples + "/operators/gemm.loop", "--seq-len", "8"},
                "go with --model"},
            {{"sweep", "--model", "resnet50", "--hw", kTransformerHw, "--vary", "seq=8,16", "--out", "x.csv"},
                "has no sequence"},
            {{"sweep", "--op", kSamples + "/operators/gemm.loop", "--hw", kTransformerHw, "--vary",
                 "seq=8,16", "--out", "x.csv"},
                "needs --model"},
            {{"sweep", "--model", "gpt2", "--hw", kTransformerHw, "--vary", "kv=8,16", "--phase", "prefill",
                 "--out", "x.csv"},
                "goes with --phase decode"},
            {{"sweep", "--model", "gpt2", "--hw", kTransformerHw, "--vary", "seq=0,16", "--out", "x.csv"},
                "values must be positive"},
        };
        for (const Case& c : cases) {
            const auto run = runMarvel(c.args);
            QVERIFY2(run.exitCode == 2, qPrintable(c.args.join(' ') + ": " + run.err));
            QVERIFY2(run.err.contains(c.message), qPrintable(c.args.join(' ') + ": " + run.err));
        }
    }

    // GPT-2 prefill at 4 and 8 tokens: a seq column first, one row per value, and the runtime, energy and
    // DRAM traffic grow with the sequence.
    void sweepOverSequence()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("seq.csv");
        const auto run = runMarvel({"sweep", "--model", "gpt2", "--hw", kTransformerHw, "--vary", "seq=4,8",
            "--out", out, "--quick-search", "--threads", "2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QStringList lines = clitest::readAll(out).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        const QStringList header = lines[0].split(',');
        QCOMPARE(header.first(), QString("seq"));
        QCOMPARE(header.at(1), QString("pes"));
        const QStringList a = lines[1].split(','), b = lines[2].split(',');
        QCOMPARE(a.first(), QString("4"));
        QCOMPARE(b.first(), QString("8"));
        for (const char* column : {"runtime_cycles", "energy", "dram_bytes"}) {
            const int c = int(header.indexOf(column));
            QVERIFY(c > 0);
            QVERIFY2(b[c].toDouble() > a[c].toDouble(), column);
        }
        QVERIFY(run.out.contains("by seq (prefill)"));
        QVERIFY(run.out.contains("  seq 8: runtime " + b[header.indexOf("runtime_cycles")] + " cycles"));
        QVERIFY(clitest::readAll(dir.filePath("seq.pareto.csv")).startsWith("front,seq,pes,"));
    }
};

QTEST_APPLESS_MAIN(TestCliTransformers)
#include "tst_cli_transformers.moc"
