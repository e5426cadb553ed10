#pragma once
// Runs a design-space sweep for the app: a worker thread prepares the workload and evaluates the grid
// (core/sweep), appending each finished design point to a mutex-protected buffer that a GUI-thread timer
// drains at 20 Hz. Every run has a generation number; starting another or cancelling stops the worker
// through its std::stop_token and nothing it still produces reaches a view. The GUI thread never waits.

#include <chrono>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "core/sweep/sweep.h"
#include "core/workloads/workloads.h"
#include "ui/worker_threads.h"

class QTimer;

namespace marvel::ui {

/// A sweep to run: the workload searched at every point of the grid.
struct SweepRequest
{
    workloads::Workload workload;
    /// A context sweep (the grid has a seq or kv axis): the model at each of its values.
    std::vector<workloads::Workload> contextWorkloads;
    std::shared_ptr<const sweep::Grid> grid;
    sweep::SweepOptions options;
};

/// How far the current sweep is.
struct SweepProgress
{
    std::size_t done = 0;
    std::size_t total = 0;
    double elapsedSeconds = 0.0;
    double etaSeconds = 0.0; ///< remaining points at the mean time per point so far
};

/// How a sweep ended.
struct SweepOutcome
{
    enum class Status { Finished, Cancelled, Failed };
    Status status = Status::Finished;
    QString message;
    double seconds = 0.0;
};

class SweepController : public QObject
{
    Q_OBJECT
public:
    explicit SweepController(QObject* parent = nullptr);
    ~SweepController() override;

    /// Supersedes any running sweep.
    void start(SweepRequest request);
    /// `finished(Cancelled)` at once; the worker winds down alone.
    void cancel();
    bool isRunning() const { return m_running; }
    std::size_t workerCount() const { return m_workers.size(); }

signals:
    void started(std::shared_ptr<const marvel::sweep::Grid> grid);
    /// Points finished since the last drain, in completion order.
    void pointsFinished(const std::vector<marvel::sweep::PointResult>& points);
    void progressed(const marvel::ui::SweepProgress& progress);
    void finished(const marvel::ui::SweepOutcome& outcome);

private:
    struct Shared;
    void drain();

    std::shared_ptr<Shared> m_shared; ///< of the current run; its worker keeps its own alive
    QTimer* m_drainTimer = nullptr;
    bool m_drainRetry = false; ///< a drain that found the buffer busy is to be retried
    bool m_running = false;
    std::chrono::steady_clock::time_point m_begin;
    std::size_t m_done = 0;
    std::size_t m_total = 0;
    /// Last, so that it is destroyed (its threads stopped and joined) before anything they use.
    WorkerThreads m_workers;
};

} // namespace marvel::ui

Q_DECLARE_METATYPE(marvel::ui::SweepProgress)
Q_DECLARE_METATYPE(marvel::ui::SweepOutcome)
