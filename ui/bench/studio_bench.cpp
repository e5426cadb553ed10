#include "ui/bench/studio_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#ifdef __linux__
#include <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <QAbstractSpinBox>
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
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

/// Runs the event loop until `done` or `timeoutMs`; false on timeout. The loop sleeps between events, as
/// the app's does: polling it would keep a core busy and slow the search being measured.
template <class Done> bool waitFor(Done done, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    QTimer timeout; // wakes the loop to notice the timeout
    timeout.start(100);
    while (!done()) {
        if (clock.elapsed() > timeoutMs) return false;
        QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    }
    return true;
}

/// The 1-minute load average (runnable and waiting processes, /proc/loadavg); -1 where there is none.
double loadAverage()
{
    double load = -1;
    std::ifstream("/proc/loadavg") >> load;
    return load;
}

/// Another program keeping every core busy: one busy-loop process per hardware thread, each in a
/// session of its own as a program started elsewhere would be, killed when this goes away (and with the
/// bench, should it die first). Linux only; elsewhere it starts nothing.
class CpuLoad
{
public:
    explicit CpuLoad(unsigned processes)
    {
#ifdef __linux__
        for (unsigned i = 0; i < processes; ++i) {
            const pid_t pid = fork();
            if (pid == 0) {
                // The child of a threaded process may only make system calls before it spins.
                setsid();
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                volatile std::uint64_t spin = 0; // volatile: the loop is not optimised away
                for (;;)
                    spin = spin + 1;
            }
            if (pid > 0) m_pids.push_back(pid);
        }
#else
        (void)processes;
#endif
    }
    ~CpuLoad()
    {
#ifdef __linux__
        for (pid_t pid : m_pids)
            kill(pid, SIGKILL);
        for (pid_t pid : m_pids)
            waitpid(pid, nullptr, 0);
#endif
    }
    CpuLoad(const CpuLoad&) = delete;
    CpuLoad& operator=(const CpuLoad&) = delete;
    std::size_t size() const
    {
        return m_pids.size();
    }

private:
    std::vector<int> m_pids;
};

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

/// Starts `clock` when the accelerator panel's typing pause ends, before any slot of its
/// acceleratorChanged runs (the window's own, which starts the search, was connected first).
class DebounceClock : public QObject
{
public:
    explicit DebounceClock(QElapsedTimer& clock)
        : m_clock(clock)
    { }
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Timer) m_clock.start();
        return false;
    }

private:
    QElapsedTimer& m_clock;
};

/// Median of `runs` retunes of VGG16 CONV2_1 on P2 from 1024 to 512 PEs (back to 1024 between them).
bool retuneLatency(double& firstPointsMs, double& finalFrontMs, int runs)
{
    MainWindow window;
    window.resize(1440, 900);
    window.show();
    if (!window.openProject(projectPath("vgg16_conv_p2.json"))) return false;
    window.searchPanel()->setCompareStyles(false); // the search's own figures, not the styles' extra runs
    bool finished = false;
    QObject::connect(&window, &MainWindow::searchFinished, &window, [&finished] { finished = true; });
    if (!window.runSearch() || !waitFor([&] { return finished; }, 600'000)) return false;

    // The clock starts when the panel's typing pause ends (excluded by the goal), before the window's
    // slot builds the request and starts the search.
    QElapsedTimer clock;
    DebounceClock debounce(clock);
    if (auto* timer = window.acceleratorPanel()->findChild<QTimer*>(QStringLiteral("acceleratorDebounce")))
        timer->installEventFilter(&debounce);
    bool changed = false, measuring = false;
    double first = -1, final = -1;
    QObject::connect(window.acceleratorPanel(), &AcceleratorPanel::acceleratorChanged, &window, [&] {
        changed = true;
        finished = false;
        if (!clock.isValid()) clock.start(); // no debounce timer found: from here
    });
    // Connected after the window's own slot, so the plot already has the points when this runs.
    QObject::connect(window.searchController(), &SearchController::pointsAdded, &window,
        [&](const std::vector<search::EvaluatedPoint>& points) {
            if (measuring && changed && first < 0 && !points.empty())
                first = double(clock.nsecsElapsed()) / 1e6;
        });
    QObject::connect(&window, &MainWindow::searchFinished, &window, [&] {
        if (measuring && changed) final = double(clock.nsecsElapsed()) / 1e6;
    });
    auto* pes = qobject_cast<QSpinBox*>(window.acceleratorPanel()->field(QStringLiteral("num_pes")));
    if (!pes) return false;
    std::vector<double> firsts, finals;
    for (int run = 0; run < runs; ++run) {
        if (run > 0) { // back to the project's 1024 PEs, not measured
            measuring = false;
            changed = false;
            pes->setValue(1024);
            if (!waitFor([&] { return changed && finished; }, 600'000)) return false;
        }
        measuring = true;
        changed = false;
        first = final = -1;
        clock.invalidate();
        pes->setValue(512);
        if (!waitFor([&] { return changed && finished; }, 600'000) || first < 0) return false;
        firsts.push_back(first);
        finals.push_back(final);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    firstPointsMs = median(firsts);
    finalFrontMs = median(finals);
    return true;
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

/// Prints the responsiveness figures of one condition; false (with the reason on stderr) when a sample
/// did not run.
bool measure(bool underLoad)
{
    constexpr int kRetunes = 3;
    auto load = [] { return QStringLiteral("%1").arg(loadAverage(), 0, 'f', 2); };
    double stall = 0;
    const QString stallLoad = load();
    if (!stallDuringModelSearch(stall)) {
        std::fprintf(stderr, "bench: the MobileNetV2 search did not run (%s)\n",
            qPrintable(projectPath("mobilenetv2_p2.json")));
        return false;
    }
    std::printf("worst GUI-thread stall: %.1f ms (goal: under 16 ms; load average %s -> %s)\n", stall,
        qPrintable(stallLoad), qPrintable(load()));
    std::fflush(stdout);

    double first = 0, final = 0;
    const QString retuneLoad = load();
    if (!retuneLatency(first, final, kRetunes)) {
        std::fprintf(stderr, "bench: the VGG16 retune did not run (%s)\n",
            qPrintable(projectPath("vgg16_conv_p2.json")));
        return false;
    }
    std::printf("retune latency: first points %.0f ms, final front %.0f ms (median of %d; %s; load average "
                "%s -> %s)\n",
        first, final, kRetunes, underLoad ? "no goal under load" : "goals: under 100 and 200 ms",
        qPrintable(retuneLoad), qPrintable(load()));
    std::fflush(stdout);
    return true;
}

} // namespace

int runStudioBench()
{
    try {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        std::printf("idle: no load of the bench's own, %u hardware threads (the load average also counts "
                    "the bench's own searches)\n",
            cores);
        std::fflush(stdout);
        if (!measure(false)) return 2;
        std::size_t points = 0;
        const double replot = replotMillionPoints(points);
        std::printf("replot: %.1f ms with %zu points (load average %.2f)\n", replot, points, loadAverage());
        std::fflush(stdout);
        const double slowdown = streamingSlowdownPercent();
        std::printf("search slowdown with streaming: %.1f%% (load average %.2f)\n", slowdown, loadAverage());
        std::fflush(stdout);

        const CpuLoad busy(cores);
        std::printf("under load: %zu busy-loop processes, one per hardware thread, each a program of its own "
                    "at normal priority\n",
            busy.size());
        std::fflush(stdout);
        if (!measure(true)) return 2;
    } catch (const InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}

} // namespace marvel::ui
