#pragma once
// What `marvel codesign` and `marvel-mpi codesign` share (linked into both through marvel_cli_common):
// the options and their usage text, reading the workload, the base accelerator and the design grid, the
// progress line on stderr and the report (text or --json, the designs CSV, --best-hw, --export-mdc).
// The co-design itself is core/codesign.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/codesign/codesign.h"

namespace marvel::cli {

/// The usage text of `PROGRAM codesign` (PROGRAM: "marvel" or "marvel-mpi").
std::string codesignUsage(const std::string& program);

/// The axes a co-design varies when no --vary is given: the grid of `marvel bench codesign`.
const std::vector<std::string>& defaultCodesignAxes();

/// A parsed `codesign` command line with its problem built.
struct CodesignJob
{
    std::unique_ptr<codesign::CoDesigner> designer;
    workloads::Workload workload;
    std::string modelName; ///< as given (--model or --op)
    std::string out; ///< the designs CSV, or empty
    std::string bestHw; ///< --best-hw, or empty
    std::string exportMdc; ///< --export-mdc, or empty
    bool json = false;
};

/// Parses the arguments after `codesign` and builds the problem. Returns the exit code to stop with, after
/// printing why on stderr when `printErrors` (2 for a usage or input error, e.g. no budget, an unknown
/// axis, a budget nothing fits; 1 for a non-conformable layer), or nullopt when `job` is ready.
/// `defaultThreads`: the threads when --threads is not given (0: every core).
std::optional<int> parseCodesignJob(const std::vector<std::string>& argv, const std::string& program,
    unsigned defaultThreads, bool printErrors, CodesignJob& job);

/// "codesign: 40/136 designs (29%), evolve, best 1.2e+06 at 8.1 mm^2, 40 s, eta 96 s" on stderr: redrawn
/// in place on a terminal, else a line at most every 5 s.
class CodesignProgress
{
public:
    void update(const codesign::Progress& progress);
    /// Ends the progress line.
    void finish();

private:
    bool m_tty = false, m_started = false;
    std::chrono::steady_clock::time_point m_lastPrint;
};

/// Prints the report on stdout (the front and the best design, or the --json object), writes the files
/// asked for and returns the exit code: 0, 3 when no evaluated design met the budgets, 130 when
/// `interrupted`.
int reportCodesign(const CodesignJob& job, const codesign::Result& result, double seconds, bool interrupted);

} // namespace marvel::cli
