#include "ui/sweep/sweep_controller.h"

#include <mutex>
#include <numeric>
#include <optional>

#include <QTimer>

#include "core/util/diagnostic.h"

namespace marvel::ui {

/// What the worker hands to the GUI thread: it appends under the mutex, drain() swaps out.
struct SweepController::Shared
{
    std::mutex mutex;
    std::vector<sweep::PointResult> points;
    std::optional<SweepOutcome> outcome;
};

SweepController::SweepController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<SweepProgress>();
    qRegisterMetaType<SweepOutcome>();
    m_drainTimer = new QTimer(this);
    m_drainTimer->setInterval(kDrainIntervalMs);
    connect(m_drainTimer, &QTimer::timeout, this, &SweepController::drain);
}

SweepController::~SweepController() = default;

void SweepController::start(SweepRequest request)
{
    if (m_running) cancel();
    auto shared = std::make_shared<Shared>();
    m_shared = shared;
    m_running = true;
    m_begin = std::chrono::steady_clock::now();
    std::shared_ptr<const sweep::Grid> grid = request.grid;
    m_workers.spawn([shared, request = std::move(request)](std::stop_token stop) {
        SweepOutcome outcome;
        const auto begin = std::chrono::steady_clock::now();
        try {
            // Preparing a model's layers takes a moment: it belongs on the worker too.
            const sweep::Sweeper sweeper = request.contextWorkloads.empty()
                ? sweep::Sweeper(*request.grid, request.workload, request.options)
                : sweep::Sweeper(*request.grid, request.contextWorkloads, request.options);
            std::vector<std::size_t> all(request.grid->size());
            std::iota(all.begin(), all.end(), std::size_t(0));
            sweeper.run(
                all,
                [&](const sweep::PointResult& point) {
                    std::lock_guard lock(shared->mutex);
                    shared->points.push_back(point);
                },
                stop);
            if (stop.stop_requested()) outcome.status = SweepOutcome::Status::Cancelled;
        } catch (const InputError& e) {
            outcome.status = SweepOutcome::Status::Failed;
            outcome.message = QString::fromStdString(e.what());
        }
        outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        std::lock_guard lock(shared->mutex);
        shared->outcome = outcome;
    });
    m_drainTimer->start();
    emit started(grid);
    m_total = grid->size();
    m_done = 0;
}

void SweepController::cancel()
{
    if (!m_running) return;
    m_workers.stopNewest();
    m_running = false;
    m_shared.reset(); // what the old worker still writes goes nowhere
    m_drainTimer->stop();
    SweepOutcome outcome;
    outcome.status = SweepOutcome::Status::Cancelled;
    outcome.message = tr("cancelled");
    emit finished(outcome);
}

void SweepController::drain()
{
    if (!m_shared) return;
    std::vector<sweep::PointResult> points;
    std::optional<SweepOutcome> outcome;
    {
        // The worker runs at a lower priority than this thread (WorkerThreads) and can be preempted
        // while it holds the buffer: rather than wait for it, the GUI thread tries again shortly.
        std::unique_lock lock(m_shared->mutex, std::try_to_lock);
        if (!lock.owns_lock()) {
            if (!m_drainRetry) {
                m_drainRetry = true;
                QTimer::singleShot(kDrainRetryMs, this, [this] {
                    m_drainRetry = false;
                    drain();
                });
            }
            return;
        }
        points.swap(m_shared->points);
        outcome.swap(m_shared->outcome);
    }
    if (!points.empty()) {
        m_done += points.size();
        SweepProgress progress;
        progress.done = m_done;
        progress.total = m_total;
        progress.elapsedSeconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_begin).count();
        progress.etaSeconds = progress.elapsedSeconds / double(m_done) * double(m_total - m_done);
        emit pointsFinished(points);
        emit progressed(progress);
    }
    if (outcome) {
        m_running = false;
        m_shared.reset();
        m_drainTimer->stop();
        emit finished(*outcome);
    }
}

} // namespace marvel::ui
