// `marvel codesign`: the design of a grid within an area (and power) budget that minimises an objective
// over a whole workload (issue 34); `marvel-mpi codesign` evaluates the same designs across MPI ranks.
#include <chrono>
#include <iostream>

#include "app/cli/codesign_cli.h"
#include "app/cli/command.h"
#include "app/cli/interrupt.h"

namespace cmd_codesign {

using namespace marvel;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"codesign",
    "find the accelerator design within an area/power budget that minimises runtime, energy or EDP",
    cli::codesignUsage("marvel"), run};

int run(const std::vector<std::string>& argv)
{
    cli::CodesignJob job;
    if (std::optional<int> code = cli::parseCodesignJob(argv, "marvel", 0, true, job)) return *code;
    cli::CodesignProgress progress;
    std::stop_source stop;
    const auto start = std::chrono::steady_clock::now();
    codesign::Result result;
    {
        cli::StopOnInterrupt watch(stop);
        result = job.designer->run(
            stop.get_token(), {}, [&](const codesign::Progress& p) { progress.update(p); });
    }
    progress.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return cli::reportCodesign(job, result, seconds, cli::StopOnInterrupt::interrupted());
}

const bool registered = cli::registerCommand(kCommand);

} // namespace cmd_codesign
