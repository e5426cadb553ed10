// `marvel bench sweep` (= `marvel bench-sweep`): design points per second of a 36-point sweep of a model
// around P2, the time the reuse of off-chip solutions and prepared layers saves, and the speed-up of
// `mpirun -n 2 marvel-mpi` over `-n 1` when marvel-mpi is built next to this binary.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

#include "app/cli/command.h"
#include "app/cli/search_args.h"
#include "core/arch/accelerator_io.h"
#include "core/sweep/sweep.h"
#include "core/util/text_file.h"

namespace cmd_bench_sweep {

using namespace marvel;
namespace fs = std::filesystem;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"bench-sweep",
    "benchmark of design-space sweeps: points per second, reuse, MPI scaling",
    "usage: marvel bench-sweep [--model NAME_OR_FILE] [--hw P1|P2|PRESET|FILE] [--threads N] "
    "[--no-reuse-run]\n"
    "                          [--no-mpi] [--quick-search]\n"
    "                          [--seq-len N] [--batch B] [--phase prefill|decode] [--kv-len L]\n\n"
    "Sweeps the model (default resnet50) over 36 design points around the accelerator (default P2; PRESET:\n"
    "a file of samples/accelerators by its stem, e.g. edge1024_dram):\n"
    "pes=256,512,1024 x l2=64K:256K:x2 x noc_bw=32,64,128,256, runtime objective, each point searched as\n"
    "marvel sweep does (the full search; --quick-search: the decoupled search alone), and prints\n"
    "  sweep: 36 points in S s (P points/s)\n"
    "  reuse: saved S s (X%)          the same sweep without sharing off-chip solutions and prepared\n"
    "                                 layers (skipped with --no-reuse-run); the rows must be identical\n"
    "  mpi: -n 2 over -n 1: X.XXx     mpirun --oversubscribe -n 1 and -n 2 marvel-mpi sweep (one thread\n"
    "                                 per rank; the files must be identical), when marvel-mpi is next to\n"
    "                                 this binary and mpirun is on the PATH (else: skipped, and why)\n"
    "--seq-len, --batch, --phase and --kv-len instantiate a transformer model as for marvel search.",
    run};

const std::vector<std::string> kVary = {"pes=256,512,1024", "l2=64K:256K:x2", "noc_bw=32,64,128,256"};

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::string quoted(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// CPU seconds of this process's waited-for children (mpirun and the ranks it waited for).
double childCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
        + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Runs `mpirun -n ranks marvel-mpi sweep ...` and returns its wall time (negative on failure) and adds
// its CPU time to `cpu`.
double timeMpi(const std::string& mpi, int ranks, const std::string& model, const std::string& hw,
    const std::string& out, bool quick, const std::string& sequenceArgs, double& cpu)
{
    std::string cmd = "mpirun --allow-run-as-root --oversubscribe -n " + std::to_string(ranks) + " "
        + quoted(mpi) + " sweep --model " + quoted(model) + " --hw " + quoted(hw) + " --threads 1 --out "
        + quoted(out);
    for (const std::string& v : kVary)
        cmd += " --vary " + v;
    if (quick) cmd += " --quick-search";
    cmd += sequenceArgs + " >/dev/null 2>&1";
    const double cpuBefore = childCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(cmd.c_str());
    const double s = seconds(start);
    cpu = childCpuSeconds() - cpuBefore;
    return status == 0 ? s : -1.0;
}

bool onPath(const std::string& program)
{
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && fs::exists(fs::path(dir) / program)) return true;
    return false;
}

int run(const std::vector<std::string>& argv)
{
    std::vector<std::string> valueOptions{"model", "hw", "threads"};
    for (std::string& name : cli::sequenceOptionNames())
        valueOptions.push_back(std::move(name));
    cli::Args args(argv, valueOptions, {"no-reuse-run", "no-mpi", "quick-search"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    workloads::SequenceOptions sequence;
    if (std::string error = cli::sequenceOptionsFromArgs(args, sequence); !error.empty())
        return cli::usageError(kCommand, error);
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    sweep::SweepOptions options;
    if (std::string error = cli::searchOptionsFromArgs(args, options.search); !error.empty())
        return cli::usageError(kCommand, error);
    options.threads = options.search.threads;
    const bool quick = args.has("quick-search");
    if (quick) options.pointSearch = sweep::PointSearch::Quick;
    const std::string model = args.valueOr("model", "resnet50");
    const std::string hwArg = args.valueOr("hw", "P2");
    const std::string hw = cli::acceleratorArgPath(hwArg);

    std::unique_ptr<sweep::Grid> grid;
    workloads::Workload workload;
    try {
        std::vector<sweep::Axis> axes;
        for (const std::string& v : kVary)
            axes.push_back(sweep::parseVary(v));
        grid = std::make_unique<sweep::Grid>(arch::loadAccelerator(hw), std::move(axes));
        workload = workloads::loadWorkload(model, workloads::LayerErrors::Throw, sequence);
    } catch (const InputError& e) {
        std::cerr << "marvel bench-sweep: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    std::vector<std::size_t> all(grid->size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    const unsigned threads
        = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    std::printf("sweep of %s (%zu layers) around %s, %u threads: %s x %s x %s\n", model.c_str(),
        workload.layers.size(), grid->base().name.c_str(), threads, kVary[0].c_str(), kVary[1].c_str(),
        kVary[2].c_str());
    std::printf("points: %s\n", sweep::pointSearchDescription(options).c_str());
    std::fflush(stdout);

    // Wall time, and CPU time of every thread: the machine may be shared, and the CPU time per point is
    // what a cluster estimate needs.
    struct Timing
    {
        double wall = 0, cpu = 0;
        std::uint64_t hits = 0, misses = 0;
    };
    auto timed = [&](bool reuse, std::vector<sweep::PointResult>& rows) {
        sweep::SweepOptions o = options;
        o.reuse = reuse;
        const std::clock_t cpu = std::clock();
        const auto start = std::chrono::steady_clock::now();
        const sweep::Sweeper sweeper(*grid, workload, o);
        rows = sweeper.run(all);
        Timing t;
        t.wall = seconds(start);
        t.cpu = static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
        t.hits = sweeper.offChipHits();
        t.misses = sweeper.offChipMisses();
        return t;
    };
    double load = 0;
    std::ifstream("/proc/loadavg") >> load;
    std::printf(
        "load average before: %.2f on %u hardware threads\n", load, std::thread::hardware_concurrency());
    std::vector<sweep::PointResult> withReuse;
    const Timing timing = timed(true, withReuse);
    const double t = timing.wall;
    std::size_t failed = 0;
    for (const sweep::PointResult& r : withReuse)
        failed += r.ok ? 0 : 1;
    const double n = static_cast<double>(withReuse.size());
    std::printf(
        "sweep: %zu points in %.1f s (%.3f points/s), %zu failed (goal: under 120 s on 2 cores: %s)\n",
        withReuse.size(), t, n / t, failed, t < 120 ? "met" : "not met");
    std::printf("cpu: %.1f s, %.2f s per point; off-chip solutions %llu solved, %llu reused\n", timing.cpu,
        timing.cpu / n, static_cast<unsigned long long>(timing.misses),
        static_cast<unsigned long long>(timing.hits));
    std::fflush(stdout);

    if (!args.has("no-reuse-run")) {
        std::vector<sweep::PointResult> without;
        const Timing plain = timed(false, without);
        bool same = without.size() == withReuse.size();
        for (std::size_t i = 0; same && i < without.size(); ++i)
            same = sweep::formatRow(without[i]) == sweep::formatRow(withReuse[i]);
        std::printf("reuse: saved %.1f s (%.1f%%): %.1f s without reuse; cpu saved %.1f s (%.1f%%); rows "
                    "identical: %s\n",
            plain.wall - t, 100.0 * (plain.wall - t) / plain.wall, plain.wall, plain.cpu - timing.cpu,
            100.0 * (plain.cpu - timing.cpu) / plain.cpu, same ? "yes" : "NO");
    } else {
        std::printf("reuse: skipped (--no-reuse-run)\n");
    }
    std::fflush(stdout);

    std::error_code ec;
    const fs::path mpi = fs::read_symlink("/proc/self/exe", ec).parent_path() / "marvel-mpi";
    if (args.has("no-mpi")) {
        std::printf("mpi: skipped (--no-mpi)\n");
    } else if (ec || !fs::exists(mpi)) {
        std::printf("mpi: skipped (marvel-mpi is not built next to this binary: Open MPI was not found)\n");
    } else if (!onPath("mpirun")) {
        std::printf("mpi: skipped (mpirun is not on the PATH)\n");
    } else {
        const fs::path dir = fs::temp_directory_path() / ("marvel-bench-sweep-" + std::to_string(::getpid()));
        fs::create_directories(dir, ec);
        const std::string out1 = (dir / "n1.csv").string(), out2 = (dir / "n2.csv").string();
        double cpu1 = 0, cpu2 = 0;
        std::string sequenceArgs; // the same model instance in the ranks
        for (const std::string& name : cli::sequenceOptionNames())
            if (const std::optional<std::string> v = args.value(name))
                sequenceArgs += " --" + name + " " + quoted(*v);
        const double t1 = timeMpi(mpi.string(), 1, model, hw, out1, quick, sequenceArgs, cpu1);
        const double t2
            = t1 < 0 ? -1.0 : timeMpi(mpi.string(), 2, model, hw, out2, quick, sequenceArgs, cpu2);
        if (t1 < 0 || t2 < 0) {
            std::printf("mpi: mpirun failed (run it by hand to see why)\n");
        } else {
            bool same = false;
            try {
                same = readTextFile(out1) == readTextFile(out2);
            } catch (const InputError&) { }
            std::printf(
                "mpi: -n 2 over -n 1: %.2fx (-n 1 %.1f s, cpu %.1f s; -n 2 %.1f s, cpu %.1f s; one thread "
                "per rank; files identical: %s)\n",
                t1 / t2, t1, cpu1, t2, cpu2, same ? "yes" : "NO");
        }
        fs::remove_all(dir, ec);
    }
    return cli::Ok;
}

const bool registered = cli::registerCommand(kCommand);

} // namespace cmd_bench_sweep
