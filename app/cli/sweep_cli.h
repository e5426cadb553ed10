#pragma once
// What `marvel sweep` and `marvel-mpi sweep` share (one source, linked into both through the
// marvel_cli_common library): the options and their usage text, reading the workload and the grid, the
// progress line on stderr and the final report. The sweep itself is core/sweep.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sweep/sweep.h"
#include "core/sweep/sweep_file.h"

namespace marvel::cli {

/// The usage text of `PROGRAM sweep` (PROGRAM: "marvel" or "marvel-mpi").
std::string sweepUsage(const std::string& program);

/// A parsed `sweep` command line with its workload and grid loaded.
struct SweepJob
{
    std::unique_ptr<sweep::Grid> grid;
    workloads::Workload workload; ///< the workload (a context sweep's at its first value)
    /// A context sweep (--vary seq=... or kv=...): the model at each context value; empty otherwise.
    std::vector<workloads::Workload> contextWorkloads;
    sweep::SweepOptions options;
    std::string out; ///< the CSV file
    bool resume = false;
    bool json = false;
};

/// Parses the arguments after `sweep` and loads what they name. Returns the exit code to stop with, after
/// printing why on stderr when `printErrors` (2 for a usage or input error, naming the --vary argument or
/// the file and field; 1 for a non-conformable layer), or nullopt when `job` is ready. `defaultThreads`:
/// the threads when --threads is not given (0: every core).
std::optional<int> parseSweepJob(const std::vector<std::string>& argv, const std::string& program,
    unsigned defaultThreads, bool printErrors, SweepJob& job);

/// "sweep: 12/36 points (33%), 1 failed, 40 s, eta 80 s" on stderr: redrawn in place on a terminal, else a
/// line at most every 5 s; the ETA extrapolates this run's points per second.
class SweepProgress
{
public:
    /// `total` points in the grid, `alreadyDone` of them read from the file (--resume).
    SweepProgress(std::size_t total, std::size_t alreadyDone);
    void point(const sweep::PointResult& row);
    /// Ends the progress line.
    void finish();
    double elapsedSeconds() const;

private:
    void print(bool force);
    std::size_t m_total, m_done, m_startDone, m_failed = 0;
    bool m_tty;
    std::chrono::steady_clock::time_point m_start, m_lastPrint;
};

/// The Sweeper of a parsed job (one workload, or one per context value).
sweep::Sweeper makeSweeper(const SweepJob& job);
/// The settings the job's file is written with (sweep::sweepSettings).
std::string jobSettings(const SweepJob& job);

/// Prints the report on stdout (text, or the --json object with both Pareto sets) once `file` is
/// finished, and returns the exit code: 0 when every point has a row, 130 when `interrupted`.
int reportSweep(const SweepJob& job, const sweep::SweepFile& file, const sweep::DesignFronts& fronts,
    double seconds, bool interrupted);

} // namespace marvel::cli
