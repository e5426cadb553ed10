#include "ui/bench/studio_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <random>
#include <vector>

#include <QAbstractSpinBox>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSpinBox>
#include <QTimer>

#include "core/project/project.h"
#include "core/search/search.h"
#include "core/util/diagnostic.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/main_window.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"

namespace marvel::ui {

namespace {

/// Spins the event loop until `done` or `timeoutMs`; false on timeout.
template <class Done> bool waitFor(Done done, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeoutMs) return false;
        QApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

/// Longest gap between turns of the event loop: a 1 ms precise timer records how late each tick is.
class StallMeter : public QObject
{
public:
    StallMeter()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            if (m_last >= 0) m_worstNs = std::max(m_worstNs, now - m_last - 1'000'000);
            m_last = now;
        });
        m_clock.start();
        m_timer.start();
    }
    double worstMs() const { return double(std::max<qint64>(m_worstNs, 0)) / 1e6; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    qint64 m_worstNs = 0;
};

QString projectPath(const char* name)
{
    return MainWindow::projectSamplesDirectory() + QLatin1Char('/') + QLatin1String(name);
}

bool stallDuringModelSearch(double& worstMs)
{
    MainWindow window;
    window.resize(1440, 900);
    window.show();
    if (!window.openProject(projectPath("mobilenetv2_p2.json"))) return false;
    window.searchPanel()->setCompareStyles(false); // the search's own figures, not the styles' extra runs
    QApplication::processEvents();
    bool finished = false;
    QObject::connect(&window, &MainWindow::searchFinished, &window, [&finished] { finished = true; });
    StallMeter meter;
    if (!window.searchModel()) return false;
    if (!waitFor([&] { return finished; }, 600'000)) return false;
    worstMs = meter.worstMs();
    return true;
}

bool retuneLatency(double& firstPointsMs, double& finalFrontMs)
{
    MainWindow window;
    window.resize(1440, 900);
    window.show();
    if (!window.openProject(projectPath("vgg16_conv_p2.json"))) return false;
    window.searchPanel()->setCompareStyles(false); // the search's own figures, not the styles' extra runs
    bool finished = false;
    QObject::connect(&window, &MainWindow::searchFinished, &window, [&finished] { finished = true; });
    if (!window.runSearch() || !waitFor([&] { return finished; }, 600'000)) return false;

    // The clock starts when the panel emits the change, after its typing pause (excluded by the goal).
    QElapsedTimer clock;
    bool changed = false;
    firstPointsMs = -1;
    QObject::connect(window.acceleratorPanel(), &AcceleratorPanel::acceleratorChanged, &window, [&] {
        changed = true;
        finished = false;
        clock.start();
    });
    // Connected after the window's own slot, so the plot already has the points when this runs.
    QObject::connect(window.searchController(), &SearchController::pointsAdded, &window,
        [&](const std::vector<search::EvaluatedPoint>& points) {
            if (changed && firstPointsMs < 0 && !points.empty())
                firstPointsMs = double(clock.nsecsElapsed()) / 1e6;
        });
    QObject::connect(&window, &MainWindow::searchFinished, &window, [&] {
        if (changed) finalFrontMs = double(clock.nsecsElapsed()) / 1e6;
    });
    auto* pes = qobject_cast<QSpinBox*>(window.acceleratorPanel()->field(QStringLiteral("num_pes")));
    if (!pes) return false;
    pes->setValue(512);
    return waitFor([&] { return changed && finished; }, 600'000) && firstPointsMs >= 0;
}

double replotMillionPoints(std::size_t& points)
{
    ParetoPlot plot;
    plot.resize(1000, 700);
    plot.show();
    // A cloud shaped like a real search's: log-normal runtimes and energies with a correlated tail.
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> runtime(std::log(2e5), 0.8), spread(0.0, 0.4);
    std::vector<search::EvaluatedPoint> cloud(1'000'000);
    for (std::size_t i = 0; i < cloud.size(); ++i) {
        const double r = runtime(rng);
        cloud[i] = {i, static_cast<std::int64_t>(r), 3e3 * r * spread(rng), 0.5};
    }
    plot.setClockMhz(200);
    plot.addPoints(cloud);
    QApplication::processEvents();
    std::vector<double> times;
    for (int i = 0; i < 7; ++i)
        times.push_back(plot.replotNowMs());
    std::sort(times.begin(), times.end());
    points = plot.pointCount();
    return times[times.size() / 2];
}

/// A sink doing what the controller's does: copy every batch under a mutex.
class CopyingSink : public search::SearchSink
{
public:
    void onEvaluated(std::span<const search::EvaluatedPoint> points) override
    {
        const std::lock_guard lock(m_mutex);
        m_points.insert(m_points.end(), points.begin(), points.end());
    }
    std::size_t size() const { return m_points.size(); }

private:
    std::mutex m_mutex;
    std::vector<search::EvaluatedPoint> m_points;
};

double streamingSlowdownPercent()
{
    const std::string path = projectPath("vgg16_conv_p2.json").toStdString();
    const project::Project p = project::loadProject(path);
    const workloads::Workload workload = project::loadProjectWorkload(p, path);
    const ir::Operator& op = workload.layers.front().op;
    auto seconds = [&](search::SearchSink* sink) {
        const auto start = std::chrono::steady_clock::now();
        search::searchLayer(op, p.accelerator, p.search, sink);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    // Alternating runs, best of each: the machine's noise hits both the same way.
    double bare = 1e300, streaming = 1e300;
    for (int i = 0; i < 3; ++i) {
        bare = std::min(bare, seconds(nullptr));
        CopyingSink sink;
        streaming = std::min(streaming, seconds(&sink));
    }
    return 100.0 * (streaming - bare) / bare;
}

} // namespace

int runStudioBench()
{
    try {
        double stall = 0;
        if (!stallDuringModelSearch(stall)) {
            std::fprintf(stderr, "bench: the MobileNetV2 search did not run (%s)\n",
                qPrintable(projectPath("mobilenetv2_p2.json")));
            return 2;
        }
        std::printf("worst GUI-thread stall: %.1f ms\n", stall);
        std::fflush(stdout);

        double first = 0, final = 0;
        if (!retuneLatency(first, final)) {
            std::fprintf(stderr, "bench: the VGG16 retune did not run (%s)\n",
                qPrintable(projectPath("vgg16_conv_p2.json")));
            return 2;
        }
        std::printf("retune latency: first points %.0f ms, final front %.0f ms\n", first, final);
        std::fflush(stdout);

        std::size_t points = 0;
        const double replot = replotMillionPoints(points);
        std::printf("replot: %.1f ms with %zu points\n", replot, points);
        std::fflush(stdout);

        std::printf("search slowdown with streaming: %.1f%%\n", streamingSlowdownPercent());
    } catch (const InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}

} // namespace marvel::ui
