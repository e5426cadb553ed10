// `marvel-mpi sweep`: `marvel sweep` across MPI ranks (issue 12). Rank 0 owns the file and hands out
// design points on demand (points differ a lot in cost, so a fixed split would leave ranks idle); every
// rank, rank 0 included (on a thread of its own, so that it keeps serving requests), searches points and
// rank 0 appends the rows as they arrive. The file is written through the same SweepFile as `marvel
// sweep`, so after the final sort it is the same file byte for byte.
//
// Messages, all with rank 0: a worker sends kReady (empty), then gets kWork (a point index) or kStop; it
// answers kWork with kResult (the point's CSV row, from which rank 0 recovers the index), which also asks
// for the next point. Any rank that dies ends the whole job: MPI_COMM_WORLD keeps MPI's default
// MPI_ERRORS_ARE_FATAL and mpirun aborts every rank when one exits without MPI_Finalize, so rank 0 never
// waits for it; the rows already appended stay in the file for --resume.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <iostream>
#include <mpi.h>
#include <mutex>
#include <thread>

#include "app/cli/command.h"
#include "app/cli/sweep_cli.h"

namespace {

using namespace marvel;

enum Tag : int { kReady = 1, kWork = 2, kStop = 3, kResult = 4 };

// A worker rank: asks for points until told to stop.
void workerLoop(const sweep::Sweeper& sweeper, unsigned threads)
{
    MPI_Send(nullptr, 0, MPI_CHAR, 0, kReady, MPI_COMM_WORLD);
    for (;;) {
        std::uint64_t index = 0;
        MPI_Status status;
        MPI_Recv(&index, 1, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        if (status.MPI_TAG == kStop) return;
        const std::optional<sweep::PointResult> row
            = sweeper.evaluate(static_cast<std::size_t>(index), threads);
        const std::string text = sweep::formatRow(*row);
        MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kResult, MPI_COMM_WORLD);
    }
}

// Rank 0: serves the workers' requests, searches points on a thread of its own meanwhile, and writes the
// rows as they arrive. Returns the exit code.
int coordinate(const cli::SweepJob& job, const sweep::Sweeper& sweeper, sweep::SweepFile& file, int ranks)
{
    std::deque<std::size_t> queue;
    for (std::size_t i : file.pending())
        queue.push_back(i);
    cli::SweepProgress progress(job.grid->size(), job.grid->size() - queue.size());
    std::mutex mutex;
    std::vector<sweep::PointResult> local; // finished by rank 0's own thread, not yet written
    auto take = [&]() -> std::optional<std::size_t> {
        const std::lock_guard lock(mutex);
        if (queue.empty()) return std::nullopt;
        const std::size_t i = queue.front();
        queue.pop_front();
        return i;
    };
    std::atomic<bool> ownFinished{false};
    std::jthread own([&] {
        while (const std::optional<std::size_t> i = take()) {
            std::optional<sweep::PointResult> row = sweeper.evaluate(*i, std::max(1u, job.options.threads));
            const std::lock_guard lock(mutex);
            local.push_back(std::move(*row));
        }
        ownFinished = true;
    });
    auto drainOwn = [&] {
        std::vector<sweep::PointResult> finished;
        {
            const std::lock_guard lock(mutex);
            finished.swap(local);
        }
        for (const sweep::PointResult& row : finished) {
            file.append(row);
            progress.point(row);
        }
    };
    int active = ranks - 1;
    for (;;) {
        drainOwn();
        if (active == 0 && ownFinished) {
            drainOwn(); // what the thread finished after the first drain
            break;
        }
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (!flag) {
            // Sleeping rather than blocking: Open MPI's blocking receive spins, which would take a core
            // from the searches.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        int size = 0;
        MPI_Get_count(&status, MPI_CHAR, &size);
        std::string text(static_cast<std::size_t>(size), '\0');
        MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
            MPI_STATUS_IGNORE);
        if (status.MPI_TAG == kResult) {
            const std::optional<sweep::PointResult> row = sweep::parseRow(text, *job.grid);
            if (!row) {
                std::cerr << "marvel-mpi sweep: rank " << status.MPI_SOURCE
                          << " sent a row not of this grid: " << text << '\n';
                MPI_Abort(MPI_COMM_WORLD, cli::InputError);
            }
            file.append(*row);
            progress.point(*row);
        }
        if (const std::optional<std::size_t> next = take()) {
            const std::uint64_t index = *next;
            MPI_Send(&index, 1, MPI_UINT64_T, status.MPI_SOURCE, kWork, MPI_COMM_WORLD);
        } else {
            const std::uint64_t none = 0;
            MPI_Send(&none, 1, MPI_UINT64_T, status.MPI_SOURCE, kStop, MPI_COMM_WORLD);
            --active;
        }
    }
    progress.finish();
    const sweep::DesignFronts fronts = file.finish();
    return cli::reportSweep(job, file, fronts, progress.elapsedSeconds(), false);
}

int run(int argc, char** argv, int rank, int ranks)
{
    std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
    const bool help = argc < 2 || std::string(argv[1]) != "sweep"
        || std::find_if(
               args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; })
            != args.end();
    if (help) {
        if (rank == 0)
            std::cout << "marvel-mpi " MARVEL_VERSION
                         " - `marvel sweep` across MPI ranks: mpirun -n N marvel-mpi sweep ...\n\n"
                      << cli::sweepUsage("marvel-mpi") << '\n';
        return argc >= 2 && std::string(argv[1]) == "sweep" ? cli::Ok : cli::InputError;
    }

    // Every rank reads the inputs (they must be reachable on every node); rank 0 also opens the file.
    // The ranks agree on the outcome before any point is handed out, so none waits for a rank that gave up.
    cli::SweepJob job;
    std::optional<int> code = cli::parseSweepJob(args, "marvel-mpi", 1, rank == 0, job);
    std::unique_ptr<sweep::Sweeper> sweeper;
    std::unique_ptr<sweep::SweepFile> file;
    if (!code) {
        try {
            sweeper = std::make_unique<sweep::Sweeper>(*job.grid, job.workload, job.options);
            if (rank == 0) file = std::make_unique<sweep::SweepFile>(job.out, *job.grid, job.resume);
        } catch (const marvel::InputError& e) {
            if (rank == 0) std::cerr << "marvel-mpi sweep: " << formatDiagnostics(e.diagnostics());
            code = cli::InputError;
        }
    }
    int mine = code.value_or(0), worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != 0) {
        if (rank == 0 && mine == 0)
            std::cerr
                << "marvel-mpi sweep: another rank could not read the inputs (every node must reach the "
                   "files given)\n";
        return worst;
    }
    if (rank != 0) {
        workerLoop(*sweeper, std::max(1u, job.options.threads));
        return cli::Ok;
    }
    try {
        return coordinate(job, *sweeper, *file, ranks);
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel-mpi sweep: " << formatDiagnostics(e.diagnostics());
        MPI_Abort(MPI_COMM_WORLD, cli::InputError);
        return cli::InputError;
    }
}

} // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    // Only the main thread calls MPI; rank 0's searching thread never does.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0)
            std::cerr
                << "marvel-mpi: this MPI library does not allow a second thread (MPI_THREAD_FUNNELED)\n";
        MPI_Finalize();
        return marvel::cli::InputError;
    }
    const int code = run(argc, argv, rank, ranks);
    MPI_Finalize();
    return code;
}
