// A transformer in the app (issue 35): the Model panel's context (prefill or decode, tokens) instantiates
// a built-in LLM or an ONNX graph with a symbolic sequence as `marvel search --seq-len/--phase/--kv-len`
// would, is saved with the project, and is hidden for models without a sequence.
#include <QComboBox>
#include <QSpinBox>
#include <QtTest>

#include "core/workloads/workloads.h"
#include "ui/main_window.h"
#include "ui/model/model_table.h"

using namespace marvel;
using namespace marvel::ui;

namespace {

// The attended length of the first attention product (Q·Kᵀ: N = T).
std::int64_t attendedTokens(const workloads::Workload& w)
{
    for (const auto& l : w.layers)
        if (l.effectiveKind() == workloads::LayerKind::Attention) return l.op.sizeValue("N").value_or(-1);
    return -1;
}

} // namespace

class TestTransformerApp : public QObject
{
    Q_OBJECT

private slots:
    void contextInstantiatesTheModel()
    {
        MainWindow w;
        auto* phase = w.findChild<QComboBox*>(QStringLiteral("phase"));
        auto* tokens = w.findChild<QSpinBox*>(QStringLiteral("tokens"));
        QVERIFY(phase && tokens);
        QVERIFY(w.loadModel(QStringLiteral("gpt2")));
        QVERIFY(phase->isVisibleTo(&w));
        // GPT-2's default context: a prefill of 1,024 tokens.
        QCOMPARE(phase->currentText(), QStringLiteral("prefill"));
        QCOMPARE(tokens->value(), 1024);
        QCOMPARE(attendedTokens(w.modelTable()->workload()), std::int64_t(1024));
        // One decode step over 64 cached tokens: the same layers as the CLI's --phase decode --kv-len 64.
        phase->setCurrentIndex(1);
        emit phase->activated(1);
        tokens->setValue(64);
        workloads::SequenceOptions decode;
        decode.phase = workloads::Phase::Decode;
        decode.kvLen = 64;
        const workloads::Workload expected
            = workloads::loadWorkload("gpt2", workloads::LayerErrors::Throw, decode);
        const workloads::Workload& shown = w.modelTable()->workload();
        QCOMPARE(shown.layers.size(), expected.layers.size());
        for (std::size_t i = 0; i < shown.layers.size(); ++i) {
            QCOMPARE(shown.layers[i].name, expected.layers[i].name);
            QCOMPARE(shown.layers[i].repeat, expected.layers[i].repeat);
            QCOMPARE(shown.layers[i].op.sizes.size(), expected.layers[i].op.sizes.size());
            for (std::size_t s = 0; s < shown.layers[i].op.sizes.size(); ++s)
                QCOMPARE(shown.layers[i].op.sizes[s].value, expected.layers[i].op.sizes[s].value);
        }
        QCOMPARE(attendedTokens(shown), std::int64_t(64));
        // Saved with the project, and back when it is opened.
        const project::Project p = w.currentProject();
        QVERIFY(p.workload.sequence == decode);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("gpt2_decode.json"));
        project::saveProject(p, path.toStdString());
        MainWindow other;
        QVERIFY(other.openProject(path));
        QCOMPARE(attendedTokens(other.modelTable()->workload()), std::int64_t(64));
        QCOMPARE(
            other.findChild<QComboBox*>(QStringLiteral("phase"))->currentText(), QStringLiteral("decode"));
        // A CNN has no context: hidden, and not in its project.
        QVERIFY(w.loadModel(QStringLiteral("vgg16")));
        QVERIFY(!phase->isVisibleTo(&w));
    }

    // An ONNX graph with a symbolic sequence opens at the context's tokens (128 to start with) and follows
    // them, in decode too (one token attending to the cached ones).
    void onnxSequenceFollowsTheContext()
    {
        MainWindow w;
        QVERIFY(w.openFile(QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/onnx/gpt2_like.onnx")));
        auto* tokens = w.findChild<QSpinBox*>(QStringLiteral("tokens"));
        auto* phase = w.findChild<QComboBox*>(QStringLiteral("phase"));
        QCOMPARE(tokens->value(), 128);
        QCOMPARE(attendedTokens(w.modelTable()->workload()), std::int64_t(128));
        tokens->setValue(40);
        QCOMPARE(attendedTokens(w.modelTable()->workload()), std::int64_t(40));
        phase->setCurrentIndex(1);
        emit phase->activated(1);
        QCOMPARE(phase->currentText(), QStringLiteral("decode"));
        QCOMPARE(attendedTokens(w.modelTable()->workload()), std::int64_t(40));
        workloads::SequenceOptions decode;
        decode.phase = workloads::Phase::Decode;
        decode.kvLen = 40;
        const workloads::Workload expected = workloads::loadWorkload(
            MARVEL_SOURCE_DIR "/tests/data/onnx/gpt2_like.onnx", workloads::LayerErrors::Throw, decode);
        QCOMPARE(w.modelTable()->workload().totalMacs(), expected.totalMacs());
    }
};

QTEST_MAIN(TestTransformerApp)
#include "tst_transformer_app.moc"
