// The samples finder every program shares (core/resources/samples_dir.h): from a build tree the source
// tree's samples/ whatever the working directory, $MARVEL_SAMPLES_DIR first, and the presets' names.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "core/resources/samples_dir.h"

using namespace marvel;
namespace fs = std::filesystem;

namespace {

/// Sets or removes $MARVEL_SAMPLES_DIR for one scope, restoring what it was.
class SamplesVariable
{
public:
    explicit SamplesVariable(const char* value)
    {
        if (const char* old = std::getenv("MARVEL_SAMPLES_DIR")) m_old = old;
        if (value)
            ::setenv("MARVEL_SAMPLES_DIR", value, 1);
        else
            ::unsetenv("MARVEL_SAMPLES_DIR");
    }
    ~SamplesVariable()
    {
        if (m_old)
            ::setenv("MARVEL_SAMPLES_DIR", m_old->c_str(), 1);
        else
            ::unsetenv("MARVEL_SAMPLES_DIR");
    }
    SamplesVariable(const SamplesVariable&) = delete;
    SamplesVariable& operator=(const SamplesVariable&) = delete;

private:
    std::optional<std::string> m_old;
};

/// Runs in another working directory for one scope.
class InFolder
{
public:
    explicit InFolder(const fs::path& dir)
        : m_old(fs::current_path())
    {
        fs::current_path(dir);
    }
    ~InFolder() { fs::current_path(m_old); }
    InFolder(const InFolder&) = delete;
    InFolder& operator=(const InFolder&) = delete;

private:
    fs::path m_old;
};

bool samePath(const fs::path& a, const fs::path& b)
{
    std::error_code ec;
    return fs::equivalent(a, b, ec);
}

} // namespace

class TestSamplesDir : public QObject
{
    Q_OBJECT

private slots:
    /// The test executable is in the build tree: the source tree's samples/, from a folder outside it.
    void buildTreeFromAnyFolder()
    {
        SamplesVariable none(nullptr);
        QTemporaryDir elsewhere;
        InFolder in(elsewhere.path().toStdString());
        QVERIFY2(samePath(resources::samplesRoot(), MARVEL_SAMPLES_DIR), resources::samplesRoot().c_str());
        QVERIFY(resources::samplesRoot().is_absolute()); // never the working directory's
        const std::optional<fs::path> p2 = resources::findAcceleratorPreset("P2");
        QVERIFY(p2);
        QVERIFY(samePath(*p2, MARVEL_SAMPLES_DIR "/accelerators/P2_edge.json"));
        QVERIFY(samePath(*resources::findAcceleratorPreset("eyeriss_dram"),
            MARVEL_SAMPLES_DIR "/accelerators/eyeriss_dram.json"));
        QVERIFY(!resources::findAcceleratorPreset("no_such_preset"));
        QVERIFY(!resources::findAcceleratorPreset(""));
        QVERIFY(samePath(*resources::findSample("technology"), MARVEL_SAMPLES_DIR "/technology"));
        // Each tree once, though the working directory's parent may be the source tree too.
        const std::vector<fs::path> dirs = resources::samplesDirs();
        for (std::size_t i = 0; i < dirs.size(); ++i)
            for (std::size_t j = i + 1; j < dirs.size(); ++j)
                QVERIFY(!samePath(dirs[i], dirs[j]));
    }

    void presetFileNames()
    {
        QCOMPARE(resources::presetFileName("P1"), std::string("P1_eyeriss.json"));
        QCOMPARE(resources::presetFileName("P2"), std::string("P2_edge.json"));
        QCOMPARE(resources::presetFileName("edge1024_dram"), std::string("edge1024_dram.json"));
    }

    /// The user's own tree comes first, presets or not; what it lacks is found in the others.
    void variableFirst()
    {
        QTemporaryDir tree;
        QVERIFY(QDir(tree.path()).mkpath(QStringLiteral("accelerators")));
        QFile preset(tree.filePath("accelerators/P2_edge.json"));
        QVERIFY(preset.open(QIODevice::WriteOnly));
        preset.write("{}");
        preset.close();
        SamplesVariable set(tree.path().toUtf8().constData());
        QVERIFY(samePath(resources::samplesRoot(), tree.path().toStdString()));
        QVERIFY(samePath(*resources::findAcceleratorPreset("P2"), preset.fileName().toStdString()));
        QVERIFY(samePath(
            *resources::findAcceleratorPreset("P1"), MARVEL_SAMPLES_DIR "/accelerators/P1_eyeriss.json"));
        // A variable naming no folder is passed over.
        SamplesVariable wrong("/nonexistent-marvel-samples");
        QVERIFY(samePath(resources::samplesRoot(), MARVEL_SAMPLES_DIR));
    }
};

QTEST_APPLESS_MAIN(TestSamplesDir)
#include "tst_samples_dir.moc"
