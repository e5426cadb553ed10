// `marvel reproduce`: the paper's whole evaluation (issue 10) - CSV tables, summary.json, REPORT.md and
// figures drawn by `marvel-figures` (a Qt renderer beside this executable; `marvel` stays Qt-free).
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

#include "app/cli/command.h"
#include "app/cli/interrupt.h"
#include "app/cli/search_args.h"
#include "core/eval/reproduce.h"
#include "core/util/text_file.h"

namespace cmd_reproduce {

using namespace marvel;
namespace fs = std::filesystem;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"reproduce",
    "run the paper's whole evaluation and write tables, figures and a report",
    "usage: marvel reproduce --out DIR [--quick | --experiments FILE.json] [--threads N]\n\n"
    "Searches the paper's workloads on P1 and P2 with Marvel, the three mapping styles (rs, ws, os) and the\n"
    "two past optimisers (interstellar, dmazerunner), our GAMMA-like genetic search (2000 evaluations per\n"
    "layer) and Marvel with tile sizes that need not divide the loop bounds on the CNNs (the last two "
    "beyond\n"
    "the paper). Writes into DIR:\n"
    "  WORKLOAD.csv, WORKLOAD_layers.csv   per model (and per layer): runtime, energy, roofline, ratios\n"
    "  fig_*.csv, fig_*.png, fig_*.pdf     the figures' data and the figures (drawn by marvel-figures,\n"
    "                                      found beside marvel; skipped with a warning when it is absent)\n"
    "  summary.json                        the geometric means the paper reports\n"
    "  REPORT.md                           every number beside the paper's, differences explained\n"
    "  --out DIR              output directory (created when missing)\n"
    "  --quick                a subset that runs in well under a minute: AlexNet, GNMT1, Transformer2, NCF2, "
    "MLP-M\n"
    "  --experiments FILE     the experiments and platforms of a JSON file (core/eval/reproduce.h); for\n"
    "                         tests and custom studies\n"
    "  --threads N            search threads (default: all cores); results do not depend on it\n"
    "  --accelerators DIR     where P1_eyeriss.json and P2_edge.json are (default: samples/accelerators)\n"
    "Progress with an estimate of the time left goes to stderr; Ctrl+C stops after the current layer and\n"
    "writes what was searched (exit 130).\n\n"
    "exit status: 0 ok, 2 input error (a bad --out, experiments file or accelerator), 130 interrupted",
    run};

/// The renderer's path: beside this executable (the directory of /proc/self/exe).
fs::path rendererPath()
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : self.parent_path() / "marvel-figures";
}

/// Runs `program args...` and waits; its exit status, or -1 when it could not start.
int runProgram(const fs::path& program, const std::vector<std::string>& args)
{
    std::vector<std::string> all{program.string()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (std::string& a : all)
        cargs.push_back(a.data());
    cargs.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execv(cargs[0], cargs.data());
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string fileStem(const std::string& workload)
{
    std::string stem = fs::path(workload).stem().string();
    for (char& c : stem)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
    return stem;
}

int run(const std::vector<std::string>& argv)
{
    cli::Args args(argv, {"out", "threads", "experiments", "accelerators"}, {"quick"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    if (!args.has("out")) return cli::usageError(kCommand, "missing --out DIR");
    if (args.has("quick") && args.has("experiments"))
        return cli::usageError(kCommand, "give --quick or --experiments, not both");
    unsigned threads = 0;
    if (args.has("threads")) {
        auto t = args.integer("threads", 1, 1024);
        if (!t) return cli::usageError(kCommand, args.error());
        threads = static_cast<unsigned>(*t);
    }
    const fs::path out = *args.value("out");
    {
        std::error_code ec;
        if (fs::exists(out, ec) && !fs::is_directory(out, ec)) {
            std::cerr << "marvel reproduce: --out " << out.string() << ": exists and is not a directory\n";
            return cli::InputError;
        }
        fs::create_directories(out, ec);
        if (ec || !fs::is_directory(out)) {
            std::cerr << "marvel reproduce: --out " << out.string() << ": cannot create the directory ("
                      << ec.message() << ")\n";
            return cli::InputError;
        }
    }

    eval::Plan plan;
    std::vector<std::pair<std::string, arch::Accelerator>> platforms;
    try {
        const std::string accDir = args.has("accelerators")
            ? *args.value("accelerators")
            : fs::path(cli::presetAcceleratorPath("P1")).parent_path().string();
        if (auto file = args.value("experiments"))
            plan = eval::readPlan(readTextFile(*file), *file, fs::path(*file).parent_path().string());
        else
            plan = args.has("quick") ? eval::quickPlan(accDir) : eval::fullPlan(accDir);
        platforms = eval::loadPlatforms(plan);
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel reproduce: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }

    std::stop_source stop;
    std::optional<cli::StopOnInterrupt> watchdog(std::in_place, stop);
    const auto start = std::chrono::steady_clock::now();
    const bool tty = isatty(fileno(stderr)) != 0;
    eval::RunOptions options;
    options.threads = threads;
    options.progress = [tty](const eval::RunProgress& p) {
        // One line per layer search (a log when stderr is a file, a redrawn line on a terminal).
        std::fprintf(stderr, "%s[%zu/%zu] %s  elapsed %.0fs, eta %.0fs%s", tty ? "\r\033[K" : "",
            p.done + 1 > p.total ? p.total : p.done + 1, p.total, p.current.c_str(), p.elapsedSeconds,
            p.etaSeconds, tty ? "" : "\n");
        std::fflush(stderr);
    };
    std::vector<eval::LayerRow> rows;
    bool cancelled = false;
    try {
        rows = eval::runPlan(plan, platforms, options, stop.get_token(), cancelled);
    } catch (const marvel::InputError& e) {
        std::cerr << (tty ? "\n" : "") << "marvel reproduce: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    if (tty) std::fprintf(stderr, "\n");
    const bool interrupted = cli::StopOnInterrupt::interrupted();
    watchdog.reset();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (cancelled)
        std::cerr << "marvel reproduce: interrupted after " << seconds << " s; writing the " << rows.size()
                  << " layer searches done\n";

    const eval::Summary summary = eval::summarize(rows);
    std::vector<std::string> figureFiles;
    try {
        std::set<std::string> written;
        for (const eval::Experiment& e : plan.experiments) {
            const std::string stem = fileStem(e.workload);
            if (!written.insert(stem).second) continue;
            writeTextFileAtomically(
                (out / (stem + ".csv")).string(), eval::itemsCsv(summary, e.workload), "a table");
            writeTextFileAtomically(
                (out / (stem + "_layers.csv")).string(), eval::layersCsv(rows, e.workload), "a table");
        }
        const std::vector<eval::Figure> figs = eval::figures(summary);
        for (const eval::Figure& f : figs)
            writeTextFileAtomically(
                (out / (f.name + ".csv")).string(), eval::figureCsv(f), "a figure's data");
        const fs::path renderer = rendererPath();
        if (!renderer.empty() && fs::exists(renderer)) {
            for (const eval::Figure& f : figs) {
                std::vector<std::string> rargs{
                    "--out", out.string(), "--name", f.name, "--title", f.title, "--y-label", f.yLabel};
                if (f.logScale) rargs.push_back("--log");
                rargs.push_back((out / (f.name + ".csv")).string());
                if (int rc = runProgram(renderer, rargs); rc != 0)
                    std::cerr << "marvel reproduce: warning: marvel-figures failed on " << f.name << " (exit "
                              << rc << "); its CSV is written\n";
                else
                    figureFiles.push_back(f.name + ".png");
            }
        } else if (!figs.empty())
            std::cerr
                << "marvel reproduce: warning: figures skipped: the renderer marvel-figures is not beside "
                   "marvel (build with MARVEL_BUILD_UI=ON); the figures' data is in fig_*.csv\n";
        writeTextFileAtomically((out / "summary.json").string(),
            eval::summaryJson(
                summary, seconds, cancelled, plan, options.beyondMaxCandidates, options.geneticEvaluations)
                    .dump(2)
                + "\n",
            "the summary");
        writeTextFileAtomically((out / "REPORT.md").string(),
            eval::reportMarkdown(plan, summary, rows, seconds, cancelled, figureFiles,
                options.beyondMaxCandidates, options.geneticEvaluations),
            "the report");
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel reproduce: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    std::cerr << "marvel reproduce: wrote " << (out / "REPORT.md").string() << " and summary.json in "
              << seconds << " s\n";
    return interrupted ? 128 + SIGINT : cli::Ok;
}

const bool registered = cli::registerCommand(kCommand);

} // namespace cmd_reproduce
