#pragma once
// The worker threads of one controller: the current job and superseded ones still winding down. A job
// gets a std::stop_token and is never waited for on the GUI thread: finished workers are joined when the
// next job starts (they have returned, so joining does not block); the rest only when the controller is
// destroyed, after a stop request that core honours within milliseconds.

#include <atomic>
#include <memory>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

namespace marvel::ui {

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
