#pragma once
// Ctrl+C and time limits for the long-running commands (search, sweep): both become a stop request.

#include <optional>
#include <stop_token>
#include <thread>

namespace marvel::cli {

/// While alive, SIGINT (and `seconds` elapsing, when given) requests a stop of `source`, checked every
/// 20 ms; the default SIGINT action comes back when it is destroyed.
class StopOnInterrupt
{
public:
    explicit StopOnInterrupt(std::stop_source& source, std::optional<double> seconds = std::nullopt);
    ~StopOnInterrupt();
    StopOnInterrupt(const StopOnInterrupt&) = delete;
    StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;
    /// True once SIGINT arrived.
    static bool interrupted();

private:
    std::jthread m_thread;
};

} // namespace marvel::cli
