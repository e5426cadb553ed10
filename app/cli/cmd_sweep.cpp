// `marvel sweep`: a design-space sweep (issue 12) on this machine; `marvel-mpi sweep` runs the same
// sweep across MPI ranks and writes the same file.
#include <iostream>
#include <mutex>

#include "app/cli/command.h"
#include "app/cli/interrupt.h"
#include "app/cli/sweep_cli.h"

namespace cmd_sweep {

using namespace marvel;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"sweep",
    "search a workload over a grid of accelerators (PEs, SIMD, L1, L2, bandwidths): CSV + Pareto designs",
    cli::sweepUsage("marvel"), run};

int run(const std::vector<std::string>& argv)
{
    cli::SweepJob job;
    if (std::optional<int> code = cli::parseSweepJob(argv, "marvel", 0, true, job)) return *code;
    try {
        sweep::SweepFile file(job.out, *job.grid, job.resume, cli::jobSettings(job));
        const sweep::Sweeper sweeper = cli::makeSweeper(job);
        const std::vector<std::size_t> pending = file.pending();
        cli::SweepProgress progress(job.grid->size(), job.grid->size() - pending.size());
        std::stop_source stop;
        std::optional<marvel::InputError> writeError;
        {
            cli::StopOnInterrupt watch(stop);
            sweeper.run(
                pending,
                [&](const sweep::PointResult& row) {
                    // Called under the sweeper's lock: a failed write stops the sweep.
                    try {
                        file.append(row);
                    } catch (const marvel::InputError& e) {
                        if (!writeError) writeError = e;
                        stop.request_stop();
                    }
                    progress.point(row);
                },
                stop.get_token());
        }
        progress.finish();
        if (writeError) throw *writeError;
        const sweep::DesignFronts fronts = file.finish();
        return cli::reportSweep(
            job, file, fronts, progress.elapsedSeconds(), cli::StopOnInterrupt::interrupted());
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel sweep: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
}

const bool registered = cli::registerCommand(kCommand);

} // namespace cmd_sweep
