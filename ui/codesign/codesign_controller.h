#pragma once
// Runs a co-design search for the app (core/codesign): a worker thread builds the problem and runs it,
// appending each evaluated design to a mutex-protected buffer and keeping the latest progress, which a
// GUI-thread timer drains. Every run has its own buffer; starting another or cancelling stops the worker
// through its std::stop_token and nothing it still produces reaches a view. The GUI thread never waits.

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "core/codesign/codesign.h"
#include "core/workloads/workloads.h"
#include "ui/worker_threads.h"

class QTimer;

namespace marvel::ui {

/// A co-design to run: the workload, the grid of designs around the base accelerator, the options.
struct CodesignRequest
{
    workloads::Workload workload;
    std::shared_ptr<const sweep::Grid> grid;
    codesign::Options options;
};

/// How a co-design ended: its best design and front when it finished (or what it had when cancelled).
struct CodesignOutcome
{
    enum class Status { Finished, Cancelled, Failed };
    Status status = Status::Finished;
    QString message;
    double seconds = 0.0;
    std::shared_ptr<const codesign::Result> result; ///< null when it failed before evaluating anything
};

class CodesignController : public QObject
{
    Q_OBJECT
public:
    explicit CodesignController(QObject* parent = nullptr);
    ~CodesignController() override;

    /// Supersedes any running co-design.
    void start(CodesignRequest request);
    /// `finished(Cancelled)` at once; the worker winds down alone.
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    void started(std::shared_ptr<const marvel::sweep::Grid> grid);
    /// Designs evaluated since the last drain, in evaluation order.
    void designsEvaluated(const std::vector<marvel::codesign::Design>& designs);
    void progressed(const marvel::codesign::Progress& progress);
    void finished(const marvel::ui::CodesignOutcome& outcome);

private:
    struct Shared;
    void drain();

    std::shared_ptr<Shared> m_shared; ///< of the current run; its worker keeps its own alive
    QTimer* m_drainTimer = nullptr;
    bool m_drainRetry = false;
    bool m_running = false;
    /// Last, so that it is destroyed (its threads stopped and joined) before anything they use.
    WorkerThreads m_workers;
};

} // namespace marvel::ui

Q_DECLARE_METATYPE(marvel::codesign::Progress)
Q_DECLARE_METATYPE(marvel::ui::CodesignOutcome)
