#include "ui/codesign/codesign_controller.h"

#include <mutex>

#include <QTimer>

#include "core/util/diagnostic.h"

namespace marvel::ui {

/// What the worker hands to the GUI thread: it appends under the mutex, drain() swaps out.
struct CodesignController::Shared
{
    std::mutex mutex;
    std::vector<codesign::Design> designs;
    std::optional<codesign::Progress> progress; ///< the latest only: older ones are of no use
    std::optional<CodesignOutcome> outcome;
};

CodesignController::CodesignController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<codesign::Progress>();
    qRegisterMetaType<CodesignOutcome>();
    m_drainTimer = new QTimer(this);
    m_drainTimer->setInterval(kDrainIntervalMs);
    connect(m_drainTimer, &QTimer::timeout, this, &CodesignController::drain);
}

CodesignController::~CodesignController() = default;

void CodesignController::start(CodesignRequest request)
{
    if (m_running) cancel();
    auto shared = std::make_shared<Shared>();
    m_shared = shared;
    m_running = true;
    std::shared_ptr<const sweep::Grid> grid = request.grid;
    m_workers.spawn([shared, request = std::move(request)](std::stop_token stop) {
        CodesignOutcome outcome;
        const auto begin = std::chrono::steady_clock::now();
        try {
            // Building the problem prepares every layer and filters the grid by the budgets: the worker's.
            const codesign::CoDesigner designer(*request.grid, request.workload, request.options);
            auto result = std::make_shared<codesign::Result>(designer.run(
                stop,
                [&](const codesign::Design& d) {
                    std::lock_guard lock(shared->mutex);
                    shared->designs.push_back(d);
                },
                [&](const codesign::Progress& p) {
                    std::lock_guard lock(shared->mutex);
                    shared->progress = p;
                }));
            if (result->cancelled || stop.stop_requested())
                outcome.status = CodesignOutcome::Status::Cancelled;
            outcome.result = std::move(result);
        } catch (const InputError& e) {
            outcome.status = CodesignOutcome::Status::Failed;
            outcome.message = QString::fromStdString(e.what());
        }
        outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        std::lock_guard lock(shared->mutex);
        shared->outcome = std::move(outcome);
    });
    m_drainTimer->start();
    emit started(grid);
}

void CodesignController::cancel()
{
    if (!m_running) return;
    m_workers.stopNewest();
    m_running = false;
    m_shared.reset(); // what the old worker still writes goes nowhere
    m_drainTimer->stop();
    CodesignOutcome outcome;
    outcome.status = CodesignOutcome::Status::Cancelled;
    outcome.message = tr("cancelled");
    emit finished(outcome);
}

void CodesignController::drain()
{
    if (!m_shared) return;
    std::vector<codesign::Design> designs;
    std::optional<codesign::Progress> progress;
    std::optional<CodesignOutcome> outcome;
    {
        // As the sweep's: the worker may be preempted holding the buffer; try again shortly, never wait.
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
        designs.swap(m_shared->designs);
        progress.swap(m_shared->progress);
        outcome.swap(m_shared->outcome);
    }
    if (!designs.empty()) emit designsEvaluated(designs);
    if (progress) emit progressed(*progress);
    if (outcome) {
        m_running = false;
        m_shared.reset();
        m_drainTimer->stop();
        emit finished(*outcome);
    }
}

} // namespace marvel::ui
