#pragma once
// The worker threads of one controller: the current job and superseded ones still winding down. A job
// gets a std::stop_token and is never waited for on the GUI thread: finished workers are joined when the
// next job starts (they have returned, so joining does not block); the rest only when the controller is
// destroyed, after a stop request that core honours within milliseconds. A job runs at a lower priority
// than the GUI thread, so that when something else keeps every core busy it is the search that slows
// down, not the window.

#include <atomic>
#include <memory>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace marvel::ui {

/// How often a controller's timer drains what its worker produced (often enough for a live plot, rarely
/// enough that the GUI thread spends little time on it), and how soon it retries after finding the worker
/// in the buffer.
inline constexpr int kDrainIntervalMs = 50;
inline constexpr int kDrainRetryMs = 2;

/// Nice value of a worker thread (Linux; 0 is the GUI thread's, 19 the lowest priority): against a
/// busy thread of normal priority a worker keeps about a tenth of a core, so a search still advances.
inline constexpr int kWorkerNice = 10;

/// Lowers the calling thread's priority: SCHED_BATCH (a worker waking up, as the search's pool does
/// after every batch, does not preempt the GUI thread) at kWorkerNice. On Linux both belong to the
/// thread and the threads it starts inherit them, so core's search pool yields as well. Elsewhere:
/// nothing.
inline void lowerWorkerPriority()
{
#ifdef __linux__
    const sched_param normal{};
    sched_setscheduler(0, SCHED_BATCH, &normal); // 0: the calling thread
    // PRIO_PROCESS with a thread id sets that thread's nice value.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kWorkerNice);
#endif
}

class WorkerThreads
{
public:
    WorkerThreads() = default;
    WorkerThreads(const WorkerThreads&) = delete;
    WorkerThreads& operator=(const WorkerThreads&) = delete;
    ~WorkerThreads()
    {
        stopAll();
        m_workers.clear(); // joins
    }

    /// Runs `job(stop)` on a new thread after joining the workers that have returned.
    template <class Job> void spawn(Job job)
    {
        reap();
        auto done = std::make_shared<std::atomic<bool>>(false);
        std::jthread thread([job = std::move(job), done](std::stop_token stop) mutable {
            lowerWorkerPriority();
            job(stop);
            *done = true;
        });
        m_workers.push_back({std::move(done), std::move(thread)});
    }

    /// Asks every worker to stop; none is waited for.
    void stopAll()
    {
        for (Worker& w : m_workers)
            w.thread.request_stop();
    }
    /// Asks the most recently spawned worker to stop.
    void stopNewest()
    {
        if (!m_workers.empty()) m_workers.back().thread.request_stop();
    }
    /// Joins the workers whose job has returned.
    void reap()
    {
        std::erase_if(m_workers, [](const Worker& w) { return w.done->load(); });
    }
    /// Workers not yet joined.
    std::size_t size() const { return m_workers.size(); }

private:
    struct Worker
    {
        std::shared_ptr<std::atomic<bool>> done;
        std::jthread thread;
    };
    std::vector<Worker> m_workers;
};

} // namespace marvel::ui
