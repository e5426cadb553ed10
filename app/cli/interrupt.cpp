#include "app/cli/interrupt.h"

#include <atomic>
#include <chrono>
#include <csignal>

namespace marvel::cli {

namespace {
/// Set by SIGINT; the watching thread turns it into a stop request. A lock-free atomic is both safe in a
/// signal handler and free of data races with the watcher.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void onInterrupt(int)
{
    g_interrupted.store(true);
}
} // namespace

StopOnInterrupt::StopOnInterrupt(std::stop_source& source, std::optional<double> seconds)
{
    std::signal(SIGINT, onInterrupt);
    m_thread
        = std::jthread([&source, seconds, start = std::chrono::steady_clock::now()](std::stop_token done) {
              while (!done.stop_requested() && !source.stop_requested()) {
                  const double elapsed
                      = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                  if (g_interrupted.load() || (seconds && elapsed >= *seconds)) {
                      source.request_stop();
                      break;
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
              }
          });
}

StopOnInterrupt::~StopOnInterrupt()
{
    m_thread.request_stop();
    m_thread.join();
    std::signal(SIGINT, SIG_DFL);
}

bool StopOnInterrupt::interrupted()
{
    return g_interrupted.load();
}

} // namespace marvel::cli
