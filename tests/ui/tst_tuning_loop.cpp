// The app's tuning loop, offscreen: a search started from the panels fills the plot and selects the
// same best mapping as core's search on the same input; Cancel returns at once; a superseded run never
// reaches the plot; an invalid accelerator field is flagged with core's reason and runs nothing.
#include <malloc.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <QAbstractItemModelTester>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/export/timeloop.h"
#include "core/ir/parser.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/mdc/maestro_io.h"
#include "core/project/project.h"
#include "core/search/roofline.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"
#include "tests/ui/ui_samples.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"

using namespace marvel;
using namespace marvel::ui;

using uitest::kGemm;
namespace {

/// Resident memory of this process (bytes), from /proc/self/statm, after glibc has returned the free
/// memory of its arenas (each search thread may allocate from another arena, whose freed pages would
/// otherwise stay resident and look like growth).
std::int64_t residentBytes()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly)) return -1;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields.at(1).toLongLong() * sysconf(_SC_PAGESIZE) : -1;
}

// AddressSanitizer's quarantine keeps freed memory: the resident size says nothing there.
constexpr bool kAddressSanitizer = MARVEL_ADDRESS_SANITIZER != 0;
// The widened search on 1023 PEs takes about a second in a release build and over a minute under the
// sanitizers on a busy machine.
constexpr int kWidenedSearchMs = kAddressSanitizer ? 600000 : 60000;

SearchRequest bigRequest()
{
    SearchRequest r;
    const ir::Operator op
        = ir::parseOperator(workloads::conv2dLoopText(256, 256, 56, 56, 3, 3, 1, 1), "big.loop");
    r.layers.push_back({QStringLiteral("big"), op, 1});
    r.accelerator = arch::loadAccelerator(MARVEL_SAMPLES_DIR "/accelerators/P1_eyeriss.json");
    r.options.divisorsOnly = false; // a space large enough to still be running when cancelled
    r.options.peUtilizationBound = 0;
    return r;
}
/// The window as these tests drive it: the tuning loop's figures involve no mapping style
/// (tests/ui/tst_styles_app.cpp tests the comparison), whose six searches would run after each search here.
class Window : public MainWindow
{
public:
    Window() { searchPanel()->setCompareStyles(false); }
};

} // namespace

class TestTuningLoop : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
#if defined(__GLIBC__)
        // A fixed mmap threshold: glibc otherwise raises it after freeing a large block, and the next
        // search's large buffers (the widened search's tile assignments) then come from the heap, which
        // steps the resident size up now and then; the storm test below measures that size.
        mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    }

    void searchFromThePanels()
    {
        Window w;
        QVERIFY(w.openFile(kGemm));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        QVERIFY(w.paretoPlot()->pointCount() > 0);
        QVERIFY(w.paretoPlot()->drawnPointCount() > 0);
        QVERIFY(w.paretoPlot()->drawnPointCount() <= w.paretoPlot()->pointCount());
        QVERIFY(w.lastResult());

        // The same input through core directly.
        QFile f(kGemm);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const ir::Operator op = ir::parseOperator(f.readAll().toStdString(), "gemm.loop");
        const arch::Accelerator acc = w.acceleratorPanel()->accelerator();
        // A new window opens on the edge platform with a memory system (issue 21): DRAM is charged.
        QVERIFY(arch::sameParameters(
            acc, arch::loadAccelerator(MARVEL_SAMPLES_DIR "/accelerators/edge1024_dram.json")));
        QCOMPARE(acc.energy.dramAccess, 200.0);
        const search::LayerSearchResult direct = search::searchLayer(op, acc, w.searchPanel()->options());
        QVERIFY(direct.result.bestRuntime);
        const auto& shown = w.mappingView()->result();
        QVERIFY(shown);
        QCOMPARE(shown->m.runtimeCycles, direct.result.bestRuntime->metrics.runtime);
        QCOMPARE(shown->m.totalEnergy(), direct.result.bestRuntime->metrics.energy);
        QVERIFY(shown->m.dramEnergy > 0);
        QVERIFY(w.mappingView()->mdcText().contains(QStringLiteral("SpatialMap")));
        QVERIFY(w.mappingView()->loopNestText().contains(QStringLiteral("parallel_for")));
        // Every evaluated point the plot holds fits: the numbers of the front agree with core's front.
        QCOMPARE(w.lastResult()->result.pareto.size(), direct.result.pareto.size());

        // Clicking a front point's position selects its mapping.
        const search::Candidate& last = direct.result.pareto.back();
        QVERIFY(w.selectCandidate(last.index));
        QCOMPARE(w.mappingView()->result()->m.runtimeCycles, last.metrics.runtime);
    }

    void cancelReturnsAtOnce()
    {
        SearchController controller;
        QSignalSpy finished(&controller, &SearchController::finished);
        controller.start(bigRequest());
        QTest::qWait(300);
        QVERIFY(controller.isRunning());
        QElapsedTimer timer;
        timer.start();
        controller.cancel();
        QVERIFY(timer.elapsed() < 50);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).value<SearchOutcome>().status, SearchOutcome::Status::Cancelled);
        QVERIFY(!controller.isRunning());
        QSignalSpy points(&controller, &SearchController::pointsAdded);
        QTest::qWait(300);
        QCOMPARE(points.count(), 0);
        QCOMPARE(finished.count(), 1);
    }

    void supersededRunNeverReachesAView()
    {
        SearchController controller;
        std::vector<quint64> generations;
        connect(&controller, &SearchController::pointsAdded, this,
            [&] { generations.push_back(controller.generation()); });
        QSignalSpy finished(&controller, &SearchController::finished);
        controller.start(bigRequest());
        const quint64 first = controller.generation();
        QTest::qWait(150);
        SearchRequest small;
        QFile f(kGemm);
        QVERIFY(f.open(QIODevice::ReadOnly));
        small.layers.push_back({"gemm", ir::parseOperator(f.readAll().toStdString(), "gemm.loop"), 1});
        small.accelerator = arch::loadAccelerator(MARVEL_SAMPLES_DIR "/accelerators/P2_edge.json");
        const std::size_t before = generations.size();
        controller.start(small);
        QVERIFY(controller.generation() > first);
        QTRY_VERIFY_WITH_TIMEOUT(!controller.isRunning(), 60000);
        QCOMPARE(finished.last().at(0).value<SearchOutcome>().status, SearchOutcome::Status::Finished);
        QVERIFY(generations.size() > before);
        for (std::size_t i = before; i < generations.size(); ++i)
            QCOMPARE(generations[i], controller.generation());
    }

    /// The sample GEMM (128 x 2048 x 4096): on 1024 PEs its divisor tiles run at 1.02x the roofline; on
    /// 1023 at 2.02x, so the decoupled search goes on with other tile sizes (1.06x). The panel says so in
    /// one short line and names the layer in its tooltip; core's search on the same input gives the same
    /// mapping. Without the refinement: its genetic stage, which runs first, finds 1.02x on 1023 PEs as
    /// well, and the decoupled search seeded with it has nothing to widen.
    void widenedSearchIsShown()
    {
        Window w;
        QVERIFY(w.openFile(kGemm));
        search::SearchOptions paper = w.searchPanel()->options();
        paper.refine = false;
        w.searchPanel()->setOptions(paper);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        auto* pes = qobject_cast<QSpinBox*>(w.acceleratorPanel()->field("num_pes"));
        pes->setValue(1024);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(kWidenedSearchMs));
        QVERIFY(!w.searchPanel()->outcomeText().contains("Other tile sizes"));
        QVERIFY(!w.lastResult()->result.stats.widened);
        finished.clear();
        pes->setValue(1023);
        QVERIFY(finished.wait(kWidenedSearchMs));
        QVERIFY2(w.searchPanel()->outcomeText().contains("Other tile sizes searched too."),
            qPrintable(w.searchPanel()->outcomeText()));
        QVERIFY(w.lastResult()->result.stats.widened);
        bool named = false;
        for (const QLabel* l : w.searchPanel()->findChildren<QLabel*>())
            named = named || l->toolTip().startsWith("gemm: the tile sizes that divide");
        QVERIFY(named);
        const arch::Accelerator acc = w.acceleratorPanel()->accelerator();
        QCOMPARE(acc.numPes, std::int64_t(1023));
        QFile f(kGemm);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const ir::Operator op = ir::parseOperator(f.readAll().toStdString(), "gemm.loop");
        const search::LayerSearchResult direct = search::searchLayer(op, acc, w.searchPanel()->options());
        QVERIFY(direct.result.stats.widened);
        QCOMPARE(
            w.lastResult()->result.bestRuntime->metrics.runtime, direct.result.bestRuntime->metrics.runtime);
        // Widened, and better than the divisor tiles' 2x the roofline.
        const std::int64_t roof = search::roofline(*ir::perfectNest(op), op.sizes, acc).cycles;
        QVERIFY(direct.result.bestRuntime->metrics.runtime < 2 * roof);
    }

    void destroyedDuringASearch()
    {
        QElapsedTimer timer;
        {
            SearchController controller;
            controller.start(bigRequest());
            QTest::qWait(200);
            timer.start();
        }
        QVERIFY(timer.elapsed() < 1000);
    }

    void invalidAcceleratorRunsNothing_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        QTest::newRow("no PEs") << "num_pes" << 0;
        QTest::newRow("no L1") << "l1_bytes" << 0;
        QTest::newRow("no L2") << "l2_bytes" << 0;
        QTest::newRow("no NoC") << "noc_bandwidth_elements_per_cycle" << 0;
        QTest::newRow("word size") << "bytes_per_element" << 0;
        QTest::newRow("SIMD") << "simd_lanes" << 0;
    }
    void invalidAcceleratorRunsNothing()
    {
        QFETCH(QString, key);
        QFETCH(int, value);
        Window w;
        QVERIFY(w.openFile(kGemm));
        QSignalSpy changed(w.acceleratorPanel(), &AcceleratorPanel::acceleratorChanged);
        QSignalSpy started(w.searchController(), &SearchController::started);
        auto* box = qobject_cast<QSpinBox*>(w.acceleratorPanel()->field(key));
        QVERIFY(box);
        box->setValue(value);
        QVERIFY(!w.acceleratorPanel()->isValid());
        QVERIFY(box->styleSheet().contains(QStringLiteral("#c62828")));
        // The tooltip carries core's reason for that field.
        const std::vector<Diagnostic> problems = arch::validate(w.acceleratorPanel()->accelerator());
        QString reason;
        for (const Diagnostic& d : problems)
            if (QString::fromStdString(d.field) == key) reason = QString::fromStdString(d.message);
        QVERIFY(!reason.isEmpty());
        QVERIFY2(box->toolTip().contains(reason), qPrintable(box->toolTip()));
        QVERIFY(!w.runSearch());
        QTest::qWait(400);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(started.count(), 0);
    }

    /// Project save -> load round trip of every field the window holds, and the exported .m file read
    /// back by core to the mapping view's numbers.
    void projectRoundTripAndExport()
    {
        QTemporaryDir dir;
        Window w;
        QVERIFY(w.openFile(kGemm));
        arch::Accelerator acc = w.acceleratorPanel()->accelerator();
        acc.numPes = 256;
        acc.l1Bytes = 256;
        acc.energy.l2Access = 20.5;
        w.acceleratorPanel()->setAccelerator(acc);
        search::SearchOptions options = w.searchPanel()->options();
        options.objective = search::Objective::Edp;
        options.fidelity = search::Fidelity::Corrected;
        options.peUtilizationBound = 0.25;
        options.nearTie = 0.0025;
        options.boundSkipping = false;
        options.threads = 2;
        w.searchPanel()->setOptions(options);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        QVERIFY(w.selectedCandidate());

        const QString path = dir.filePath("p.json");
        QVERIFY(w.saveProjectTo(path));
        QVERIFY(!w.hasUnsavedChanges());
        const project::Project saved = w.currentProject();

        Window v;
        QVERIFY(v.openFile(path));
        const project::Project loaded = v.currentProject();
        QCOMPARE(loaded.workload, saved.workload);
        QVERIFY(arch::sameParameters(loaded.accelerator, acc));
        QVERIFY(v.searchPanel()->options().objective == search::Objective::Edp);
        QVERIFY(v.searchPanel()->options().fidelity == search::Fidelity::Corrected);
        QCOMPARE(v.searchPanel()->options().peUtilizationBound, 0.25);
        QCOMPARE(v.searchPanel()->options().nearTie, 0.0025); // 0.25 % in the panel
        QCOMPARE(v.searchPanel()->options().boundSkipping, false);
        QCOMPARE(v.searchPanel()->options().threads, 2u);
        const project::Project onDisk = project::loadProject(path.toStdString());
        QCOMPARE(onDisk.search.nearTie, 0.0025);
        QVERIFY(onDisk.selectedMapping);
        QCOMPARE(mapping::toJson(onDisk.selectedMapping->mapping),
            mapping::toJson(w.selectedCandidate()->mapping));
        // The saved selection is selected again when the search finds it.
        QSignalSpy vFinished(&v, &MainWindow::searchFinished);
        QVERIFY(v.runSearch());
        QVERIFY(vFinished.wait(60000));
        QCOMPARE(
            mapping::toJson(v.selectedCandidate()->mapping), mapping::toJson(w.selectedCandidate()->mapping));

        // Export as MAESTRO .m: core reads it back to the mapping view's numbers.
        const QString mapping = dir.filePath("best.m");
        QVERIFY(w.exportMapping(mapping));
        QFile m(mapping);
        QVERIFY(m.open(QIODevice::ReadOnly));
        const mdc::Network network = mdc::readMaestroMapping(m.readAll().toStdString(), "best.m");
        cost::Options costOptions;
        costOptions.fidelity = cost::Fidelity::Corrected;
        const auto evaluated = cost::evaluateNetwork(network, acc, costOptions);
        QCOMPARE(evaluated.size(), std::size_t{1});
        QVERIFY(evaluated[0].ok);
        QCOMPARE(evaluated[0].result.m.runtimeCycles, w.mappingView()->result()->m.runtimeCycles);
        QCOMPARE(evaluated[0].result.m.energy, w.mappingView()->result()->m.energy);
        QVERIFY(w.exportMapping(dir.filePath("best.json")));
        QVERIFY(w.exportMapping(dir.filePath("best.txt")));
    }

    /// Every search setting a user can change in the Search panel reruns the search, and the figures shown
    /// afterwards are those of `marvel search` with the same option (issue 36: ticking "Timeloop only" or
    /// unticking "Refine" used to leave the old results under the new boxes).
    void everySettingRerunsAsTheCli()
    {
        Window w;
        QVERIFY(w.openFile(kGemm));
        QVERIFY(w.acceleratorPanel()->loadPreset(
            QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/edge1024_dram.json")));
        SearchPanel* panel = w.searchPanel();
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        auto box = [panel](const QString& text) {
            for (QCheckBox* c : panel->findChildren<QCheckBox*>())
                if (c->text() == text) return c;
            return static_cast<QCheckBox*>(nullptr);
        };
        auto combo = [panel](const QString& item) {
            for (QComboBox* c : panel->findChildren<QComboBox*>())
                if (c->findText(item) >= 0) return c;
            return static_cast<QComboBox*>(nullptr);
        };
        auto* utilisation = panel->findChild<QDoubleSpinBox*>(QStringLiteral("tilePruning"));
        auto* nearTie = panel->findChild<QDoubleSpinBox*>(QStringLiteral("nearTie"));
        QVERIFY(utilisation && nearTie);
        // The default margin, as marvel search's: 0.002 % on screen, exactly the fraction core defaults to.
        QCOMPARE(nearTie->value(), 0.002);
        QCOMPARE(nearTie->text(), QLocale().toString(0.002, 'f', 3) + QStringLiteral(" %"));
        QCOMPARE(panel->options().nearTie, search::kDefaultNearTie);
        nearTie->setValue(0); // 0: the exact bests, said in words
        QCOMPARE(nearTie->text(), QStringLiteral("exact best"));
        QCOMPARE(panel->options().nearTie, 0.0);
        nearTie->setValue(0.002);
        QCOMPARE(panel->options().nearTie, search::kDefaultNearTie);
        struct Setting
        {
            const char* name;
            std::function<void(bool)> set; ///< true: the changed value, false: back to the default
            QStringList cliArgs;
        };
        const std::vector<Setting> settings = {
            {"objective", [&](bool on) { combo("EDP")->setCurrentIndex(on ? 1 : 0); },
                {"--objective", "energy"}},
            {"cost model", [&](bool on) { combo("maestro")->setCurrentIndex(on ? 0 : 1); },
                {"--fidelity", "maestro"}},
            {"min. PE utilisation", [&](bool on) { utilisation->setValue(on ? 0.5 : 0.1); },
                {"--pe-util-bound", "0.5"}},
            {"near ties within (percent)", [&](bool on) { nearTie->setValue(on ? 0.1 : 0.002); },
                {"--near-tie", "0.001"}},
            {"divisor tiles only", [&](bool on) { box("Divisor tiles only")->setChecked(!on); },
                {"--no-divisors-only"}},
            {"fit in L1", [&](bool on) { box("Fit in L1")->setChecked(!on); }, {"--no-l1-check"}},
            {"fit in L2", [&](bool on) { box("Fit in L2")->setChecked(!on); }, {"--no-l2-check"}},
            {"prune by bounds", [&](bool on) { box("Prune by bounds")->setChecked(!on); },
                {"--no-bound-skipping"}},
            {"refine", [&](bool on) { box("Refine")->setChecked(!on); }, {"--no-refine"}},
            {"Timeloop only", [&](bool on) { box("Timeloop only")->setChecked(on); },
                {"--timeloop-compatible"}},
            // The space first: unticked, the box's choice changes no option and reruns nothing.
            {"Timeloop space",
                [&](bool on) {
                    QComboBox* space = combo("narrow space");
                    if (on) space->setCurrentIndex(int(timeloop::SearchSpace::Narrow));
                    box("Timeloop only")->setChecked(on);
                    if (!on) space->setCurrentIndex(int(timeloop::kDefaultSearchSpace));
                    // The gemm's best is the same in both spaces: the options say which was searched.
                    QCOMPARE(panel->options().constraint.expressibleSpace, std::string(on ? "narrow" : ""));
                    QCOMPARE(panel->options().constraint.tileRules.wholeLoopsUnsplit, on);
                },
                {"--timeloop-compatible", "--timeloop-space", "narrow"}},
        };
        for (std::size_t i = 0; i < settings.size(); ++i) {
            const Setting& s = settings[i];
            finished.clear();
            if (i > 0) settings[i - 1].set(false);
            s.set(true);
            if (s.cliArgs.front() == "--near-tie") // the shown figures name it (with the previous row's
                                                   // setting, set back at once)
                QVERIFY2(w.mappingView()->metricsText().contains(QStringLiteral("near ties) changed")),
                    qPrintable(w.mappingView()->metricsText()));
            QVERIFY2(finished.wait(60000), s.name); // reran on its own
            QVERIFY(w.selectedCandidate());
            // Under the sanitizers the app reruns every setting and the CLI runs once: its other runs
            // exercise the CLI's code again and only compare figures, which the optimised build does.
            if (kAddressSanitizer && i > 0) continue;
            QProcess cli;
            cli.start(QStringLiteral(MARVEL_CLI_PATH),
                QStringList{"search", "--op", kGemm, "--hw",
                    MARVEL_SAMPLES_DIR "/accelerators/edge1024_dram.json", "--json"}
                    + s.cliArgs);
            QVERIFY(cli.waitForFinished(60000));
            QCOMPARE(cli.exitCode(), 0);
            const QJsonObject layer = QJsonDocument::fromJson(cli.readAllStandardOutput())
                                          .object()["layers"]
                                          .toArray()[0]
                                          .toObject();
            const search::Metrics& shown = w.selectedCandidate()->metrics;
            QVERIFY2(qint64(shown.runtime) == layer["runtime_cycles"].toInteger(),
                qPrintable(QStringLiteral("%1: app %2 cycles, CLI %3")
                               .arg(s.name)
                               .arg(shown.runtime)
                               .arg(layer["runtime_cycles"].toInteger())));
            QVERIFY2(qAbs(shown.energy - layer["energy"].toDouble()) <= 1e-9 * shown.energy,
                qPrintable(QStringLiteral("%1: app energy %2, CLI %3")
                               .arg(s.name)
                               .arg(shown.energy)
                               .arg(layer["energy"].toDouble())));
        }
    }

    /// File > Export Selected Mapping: the filter chosen in the dialog decides the format and adds its
    /// suffix to a name typed without one (or with another format's); each format's file is what it says.
    void exportFormatFollowsTheFilter()
    {
        using F = MainWindow::MappingFormat;
        const QStringList filters = MainWindow::mappingExportFilters();
        QCOMPARE(filters.size(), 4);
        const std::pair<F, QString> formats[]
            = {{F::Maestro, ".m"}, {F::Json, ".json"}, {F::LoopNest, ".txt"}, {F::Timeloop, ".timeloop"}};
        for (int i = 0; i < 4; ++i) {
            const auto [format, suffix] = formats[i];
            QCOMPARE(MainWindow::mappingExportTarget("/x/best", filters[i]),
                std::make_pair(QString("/x/best" + suffix), format));
            QCOMPARE(MainWindow::mappingExportTarget("/x/best" + suffix, filters[i]),
                std::make_pair(QString("/x/best" + suffix), format));
            // Another format's suffix gives way; a dot that is no suffix of ours stays.
            QCOMPARE(MainWindow::mappingExportTarget("/x/best" + formats[(i + 1) % 4].second, filters[i]),
                std::make_pair(QString("/x/best" + suffix), format));
            QCOMPARE(MainWindow::mappingExportTarget("/x/v1.2", filters[i]),
                std::make_pair(QString("/x/v1.2" + suffix), format));
        }

        QTemporaryDir dir;
        Window w;
        QVERIFY(w.openFile(kGemm));
        search::SearchOptions options = w.searchPanel()->options();
        timeloop::restrictSearch(options.constraint); // "Timeloop only": the best exports to Timeloop
        options.threads = 2;
        w.searchPanel()->setOptions(options);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        QVERIFY(w.selectedCandidate());
        auto exportAs = [&](int filter) {
            const auto [path, format]
                = MainWindow::mappingExportTarget(dir.filePath("best"), filters[filter]);
            return w.exportMapping(path, format) ? path : QString();
        };
        // MAESTRO: read back by core to the selected mapping's dataflow.
        const QString m = exportAs(0);
        QVERIFY2(m.endsWith("best.m"), qPrintable(w.lastError()));
        QFile mf(m);
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const mdc::Network network = mdc::readMaestroMapping(mf.readAll().toStdString(), "best.m");
        QCOMPARE(network.layers.size(), std::size_t{1});
        QCOMPARE(network.layers[0].dataflow.size(), w.selectedCandidate()->dataflow.size());
        // JSON: the selected mapping's JSON.
        const QString json = exportAs(1);
        QVERIFY(json.endsWith("best.json"));
        QFile jf(json);
        QVERIFY(jf.open(QIODevice::ReadOnly));
        QCOMPARE(nlohmann::json::parse(jf.readAll().toStdString()),
            mapping::toJson(w.selectedCandidate()->mapping));
        // Loop-nest text: the tiled loop nest, not JSON.
        const QString txt = exportAs(2);
        QVERIFY(txt.endsWith("best.txt"));
        QFile tf(txt);
        QVERIFY(tf.open(QIODevice::ReadOnly));
        const QByteArray nest = tf.readAll();
        QVERIFY2(nest.contains("for ") && !nest.trimmed().startsWith('{'), nest.constData());
        // Timeloop: the folder of four YAML files.
        const QString tl = exportAs(3);
        QVERIFY2(tl.endsWith("best.timeloop"), qPrintable(w.lastError()));
        for (const char* f : {"problem.yaml", "arch.yaml", "map.yaml", "ert.yaml"})
            QVERIFY2(QFileInfo::exists(dir.filePath(QString("best/") + f)), f);
    }

    /// A broken project, and one from a newer schema, are refused with the field named; the window's
    /// operator text and accelerator stay as they were.
    void brokenProjectKeepsTheWork_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("newer schema") << QByteArray(R"({"schema_version": 2})") << "newer Marvel Studio";
        QTest::newRow("bad objective")
            << QByteArray(R"({"schema_version": 1, "workload": {"kind": "operator", "text": "x"},
                "accelerator": {"num_pes": 4, "noc_bandwidth_elements_per_cycle": 1},
                "search": {"objective": "speed"}})")
            << "search.objective";
        QTest::newRow("bad accelerator")
            << QByteArray(R"({"schema_version": 1, "workload": {"kind": "operator", "text": "x"},
                "accelerator": {"num_pes": 0, "noc_bandwidth_elements_per_cycle": 1}})")
            << "accelerator.num_pes";
        QTest::newRow("syntax") << QByteArray("{\n  \"schema_version\": 1,\n  oops\n}") << "p.json:3:";
    }
    void brokenProjectKeepsTheWork()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath("p.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        Window w;
        QVERIFY(w.openFile(kGemm));
        w.editor()->appendPlainText(QStringLiteral("// my edit"));
        const QString before = w.editor()->toPlainText();
        const arch::Accelerator acc = w.acceleratorPanel()->accelerator();
        QVERIFY(!w.openFile(path));
        QVERIFY2(w.lastError().contains(message), qPrintable(w.lastError()));
        QCOMPARE(w.editor()->toPlainText(), before);
        QVERIFY(arch::sameParameters(w.acceleratorPanel()->accelerator(), acc));
        QVERIFY(w.hasUnsavedChanges());
    }

    /// The model view's totals equal `marvel search --model` on the same model and accelerator; the item
    /// model and its sorting proxy pass QAbstractItemModelTester while the rows fill.
    void modelViewTotalsMatchTheCli()
    {
        const QString model = QStringLiteral(MARVEL_SAMPLES_DIR "/models/tiny_cnn.json");
        Window w;
        new QAbstractItemModelTester(
            w.modelTable(), QAbstractItemModelTester::FailureReportingMode::QtTest, &w);
        new QAbstractItemModelTester(
            w.modelView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest, &w);
        QVERIFY(w.loadModel(model));
        QVERIFY(w.modelTable()->rowCount() > 1);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        // The progress of a whole model is the model's: its share done grows across the layers (a later
        // layer starts past the earlier ones' share) and the time left is the model's, not one layer's.
        QList<SearchProgress> progress;
        connect(w.searchController(), &SearchController::progressed, &w,
            [&progress](const SearchProgress& p) { progress << p; });
        QVERIFY(w.runSearch()); // no layer picked: the whole model
        QVERIFY(finished.wait(120000));
        QCOMPARE(w.modelTable()->searchedLayers(), w.modelTable()->rowCount());
        QVERIFY(!progress.isEmpty());
        double before = 0;
        int laterLayers = 0;
        for (const SearchProgress& p : progress) {
            QCOMPARE(p.layers, w.modelTable()->rowCount());
            QVERIFY2(
                p.fraction >= double(p.layer) / p.layers - 1e-9, qPrintable(QString::number(p.fraction)));
            QVERIFY(p.fraction >= before - 1e-9);
            before = p.fraction;
            if (p.layer > 0 && p.fraction < 0.9) {
                ++laterLayers;
                QVERIFY2(p.etaSeconds > 0, qPrintable(QString::number(p.etaSeconds)));
            }
        }
        qInfo("%lld progress reports, %d mid-run ones after the first layer", qlonglong(progress.size()),
            laterLayers);
        // Each layer keeps its cloud of evaluated mappings: picking a layer afterwards shows it, as the
        // legend says (the mappings the search streams: all but the refinement's few, up to
        // ModelTableModel::kCloudPoints).
        for (int row = 0; row < w.modelTable()->rowCount(); ++row) {
            w.selectLayer(row);
            const std::size_t evaluated = w.modelTable()->layerResult(row)->result.evaluated;
            const std::size_t shown = w.paretoPlot()->pointCount();
            QCOMPARE(shown, w.modelTable()->layerPoints(row).size());
            QVERIFY2(shown <= std::min(evaluated, ModelTableModel::kCloudPoints)
                    && shown >= std::min(evaluated * 9 / 10, ModelTableModel::kCloudPoints),
                qPrintable(QStringLiteral("%1 shown of %2 evaluated").arg(shown).arg(evaluated)));
        }

        QProcess cli;
        cli.start(QStringLiteral(MARVEL_CLI_PATH),
            {"search", "--model", model, "--hw", MARVEL_SAMPLES_DIR "/accelerators/edge1024_dram.json",
                "--json"}); // the window's default accelerator
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject j = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(qint64(w.modelTable()->totalRuntime()), j["total_runtime_cycles"].toInteger());
        QCOMPARE(qint64(w.modelTable()->totalRoofline()), j["total_roofline_cycles"].toInteger());
        double energy = 0;
        for (const QJsonValue& l : j["layers"].toArray())
            energy += l.toObject()["energy"].toDouble() * l.toObject()["repeat"].toInt();
        QVERIFY(qAbs(w.modelTable()->totalEnergy() - energy) <= 1e-9 * energy);
        const double ratio = j["total_runtime_cycles"].toDouble() / j["total_roofline_cycles"].toDouble();
        QVERIFY2(w.modelTotals()->text().contains(
                     QString::number(ratio, 'f', 3) + QStringLiteral("\u00d7 the roofline")),
            qPrintable(w.modelTotals()->text()));

        // Sorting by runtime orders numerically.
        w.modelView()->sortByColumn(ModelTableModel::Runtime, Qt::AscendingOrder);
        double previous = -1;
        for (int r = 0; r < w.modelView()->model()->rowCount(); ++r) {
            const double v = w.modelView()
                                 ->model()
                                 ->index(r, ModelTableModel::Runtime)
                                 .data(ModelTableModel::SortRole)
                                 .toDouble();
            QVERIFY(v >= previous);
            previous = v;
        }
        // The first layer was shown after the search: its loop nest, read-only, and its mapping.
        QVERIFY(w.editor()->isReadOnly());
        QVERIFY(w.mappingView()->result());
    }

    /// After a first search, a valid change (PEs 1024 -> 512) re-runs it once after the pause.
    void validChangeRerunsTheSearch()
    {
        Window w;
        QVERIFY(w.openFile(kGemm));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        QSignalSpy started(w.searchController(), &SearchController::started);
        auto* pes = qobject_cast<QSpinBox*>(w.acceleratorPanel()->field("num_pes"));
        pes->setValue(512);
        QCOMPARE(started.count(), 0); // not before the pause
        QVERIFY(started.wait(2000));
        QVERIFY(finished.wait(60000));
        QCOMPARE(started.count(), 1);
        QVERIFY(w.lastResult()->result.bestRuntime->mapping.activePes() <= 512);
    }

    /// A model file with a bad layer: the good layers are listed, searched and totalled; the bad one
    /// shows its located error in the Status column and in the editor, and is left out of the search.
    void badLayerDoesNotHideTheGoodOnes()
    {
        const QString file = QStringLiteral(MARVEL_SOURCE_DIR "/tests/data/partial/tiny_bad_layer.m");
        Window w;
        QVERIFY(w.loadModel(file));
        QCOMPARE(w.modelTable()->rowCount(), 3);
        const QString status = w.modelTable()->index(1, ModelTableModel::Status).data().toString();
        QVERIFY2(status.startsWith(QStringLiteral("error: "))
                && status.contains(QStringLiteral("tiny_bad_layer.m:7:")),
            qPrintable(status));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.searchModel());
        QVERIFY(finished.wait(60000));
        QCOMPARE(w.modelTable()->index(0, ModelTableModel::Status).data().toString(), QStringLiteral("ok"));
        QCOMPARE(w.modelTable()->index(2, ModelTableModel::Status).data().toString(), QStringLiteral("ok"));
        QCOMPARE(w.modelTable()->index(1, ModelTableModel::Status).data().toString(), status);
        QCOMPARE(w.modelTable()->searchedLayers(), 2);
        w.selectLayer(1);
        QVERIFY(w.editor()->toPlainText().contains(QStringLiteral("tiny_bad_layer.m:7:")));
    }

    /// The plot keeps at most kMaxStoredPoints mappings (a uniform sample past the cap) however long the
    /// search runs, and still counts every one.
    void plotMemoryIsBounded()
    {
        ParetoPlot plot;
        plot.resize(800, 600);
        const std::size_t total = ParetoPlot::kMaxStoredPoints + 500'000;
        std::vector<search::EvaluatedPoint> batch(100'000);
        for (std::size_t done = 0; done < total; done += batch.size()) {
            for (std::size_t i = 0; i < batch.size(); ++i)
                batch[i] = {
                    done + i, std::int64_t(1000 + (done + i) % 5000), 1e6 + double((done + i) % 7919), 0.5};
            plot.addPoints(batch);
        }
        QCOMPARE(plot.pointCount(), total);
        QCOMPARE(plot.storedPointCount(), ParetoPlot::kMaxStoredPoints);
        plot.clear();
        QCOMPARE(plot.pointCount(), 0u);
    }

    /// 200 accelerator changes in quick succession (an arrow key held on the PE count) start one search
    /// after the pause, not 200.
    void acceleratorChangeStorm()
    {
        Window w;
        QVERIFY(w.openFile(kGemm));
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(w.runSearch());
        QVERIFY(finished.wait(60000));
        QSignalSpy started(w.searchController(), &SearchController::started);
        auto* pes = qobject_cast<QSpinBox*>(w.acceleratorPanel()->field("num_pes"));
        for (int i = 0; i < 200; ++i) {
            pes->setValue(1024 - i);
            QTest::qWait(1);
        }
        QVERIFY(started.wait(3000));
        QVERIFY(finished.wait(60000));
        QCOMPARE(started.count(), 1);
        QVERIFY(w.searchController()->workerCount() <= 1);
        QCOMPARE(w.lastResult()->result.bestRuntime.has_value(), true);

        // Memory stays flat: further storms (each ending in a finished search whose points fill the
        // plot) leave the resident size where the first one left it, give or take allocator slack.
        // Each search here plots some twenty to thirty thousand points (24 bytes each): keeping one
        // search's points per retune would add more than 1.5 MB over the three storms. They end
        // alternately on 1023 PEs, where the divisor tiles run at 2x the roofline and the search widens
        // to other tile sizes, and on 825.
        // AddressSanitizer's quarantine keeps freed memory resident, so there the resident size says
        // nothing: the further storms only measure memory and are left out (widenedSearchIsShown runs the
        // widened search under the sanitizers).
        const std::int64_t afterFirst = residentBytes();
        for (int round = 0; round < (kAddressSanitizer ? 0 : 3); ++round) {
            started.clear();
            finished.clear();
            for (int i = 0; i < 200; ++i) {
                pes->setValue(round % 2 == 0 ? 824 + i : 1024 - i);
                QTest::qWait(1);
            }
            QVERIFY(started.wait(3000));
            QVERIFY(finished.wait(60000));
            QCOMPARE(started.count(), 1);
        }
        const std::int64_t growth = residentBytes() - afterFirst;
        qInfo(
            "resident after the first storm %lld MB, growth over three more %lld KB (%zu points per search)",
            static_cast<long long>(afterFirst >> 20), static_cast<long long>(growth >> 10),
            w.paretoPlot()->pointCount());
        if (!kAddressSanitizer) QVERIFY2(growth < (1 << 20), qPrintable(QString::number(growth)));
    }

    /// Save as preset: the tuned accelerator is written to the user's config folder, offered by every
    /// accelerator panel from then on and loads back with every parameter; an invalid one is refused.
    void userPresets()
    {
        QDir(AcceleratorPanel::userPresetsDirectory()).removeRecursively();
        AcceleratorPanel panel;
        const int samples = panel.presetList()->count();
        qobject_cast<QSpinBox*>(panel.field("num_pes"))->setValue(300);
        qobject_cast<QSpinBox*>(panel.field("l1_bytes"))->setValue(768);
        const arch::Accelerator tuned = panel.accelerator();
        QVERIFY(panel.saveAsPreset(QStringLiteral("Edge / 300 PEs")));
        const QString file
            = AcceleratorPanel::userPresetsDirectory() + QStringLiteral("/Edge___300_PEs.json");
        QVERIFY(QFileInfo::exists(file));
        QCOMPARE(panel.presetList()->currentText(), QStringLiteral("Edge / 300 PEs (my preset)"));

        AcceleratorPanel other; // a new window lists it after the samples (and a separator)
        QCOMPARE(other.presetList()->count(), samples + 2);
        QVERIFY(other.loadPreset(QStringLiteral("Edge / 300 PEs (my preset)")));
        QVERIFY(arch::sameParameters(other.accelerator(), tuned));
        QCOMPARE(other.accelerator().numPes, 300);
        QCOMPARE(other.accelerator().name, std::string("Edge / 300 PEs"));

        qobject_cast<QSpinBox*>(other.field("num_pes"))->setValue(0);
        QVERIFY(!other.saveAsPreset(QStringLiteral("broken")));
        QVERIFY(
            !QFileInfo::exists(AcceleratorPanel::userPresetsDirectory() + QStringLiteral("/broken.json")));
        QDir(AcceleratorPanel::userPresetsDirectory()).removeRecursively();
    }

    /// Opened and saved files are remembered newest first, without duplicates, at most ten, and a file
    /// that has gone is not offered.
    void recentFiles()
    {
        QSettings().remove(QStringLiteral("files/recent"));
        QTemporaryDir dir;
        Window w;
        QStringList written;
        QVERIFY(w.openFile(kGemm));
        for (int i = 0; i < 12; ++i) {
            const QString path = dir.filePath(QStringLiteral("op%1.loop").arg(i));
            QVERIFY(w.saveTo(path));
            written.prepend(path);
        }
        QVERIFY(w.openFile(written.last())); // op0, the oldest, comes back to the top
        QStringList recent = MainWindow::recentFiles();
        QCOMPARE(recent.size(), 10);
        QCOMPARE(recent.first(), QFileInfo(written.last()).absoluteFilePath());
        QCOMPARE(recent.at(1), QFileInfo(written.first()).absoluteFilePath());
        QCOMPARE(recent.count(recent.first()), 1);
        QVERIFY(!recent.contains(QFileInfo(kGemm).absoluteFilePath())); // pushed out by newer files
        QVERIFY(QFile::remove(written.first()));
        recent = MainWindow::recentFiles();
        QCOMPARE(recent.size(), 9);
        QVERIFY(!recent.contains(QFileInfo(written.first()).absoluteFilePath()));
    }

    /// A retune storm: 200 runs started in quick succession end with the last one finishing, nothing of
    /// the others reaching a view, and their worker threads joined (not piling up).
    void retuneStorm()
    {
        SearchController controller;
        QSignalSpy finished(&controller, &SearchController::finished);
        for (int i = 0; i < 200; ++i) {
            SearchRequest r = bigRequest();
            r.accelerator.numPes = 64 + i;
            controller.start(std::move(r));
            QCoreApplication::processEvents();
        }
        QCOMPARE(finished.count(), 199); // each superseded run is reported cancelled at once
        SearchRequest small;
        small.layers.push_back({QStringLiteral("gemm"), ir::parseOperatorFile(kGemm.toStdString()), 1});
        small.accelerator = arch::loadAccelerator(MARVEL_SAMPLES_DIR "/accelerators/P2_edge.json");
        finished.clear();
        controller.start(small);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
        QCOMPARE(finished.last().at(0).value<SearchOutcome>().status, SearchOutcome::Status::Finished);
        // The stopped workers return within milliseconds; the next run joins them.
        QTest::qWait(300);
        finished.clear();
        controller.start(small);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY2(controller.workerCount() <= 2, qPrintable(QString::number(controller.workerCount())));
    }
};

QTEST_MAIN(TestTuningLoop)
#include "tst_tuning_loop.moc"
