// `marvel bench costmodel`: speed of the MDC cost model on MAESTRO's reference mappings.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "app/cli/command.h"
#include "app/cli/search_args.h"
#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/search.h"
#include "core/sim/model_check.h"
#include "core/workloads/gamma_cases.h"

namespace cmd_bench {

int run(const std::vector<std::string>& argv);

#ifndef MARVEL_DEFAULT_REFERENCE_DIR
#define MARVEL_DEFAULT_REFERENCE_DIR "../shared/reference/maestro"
#endif

const marvel::cli::Command kCommand{"bench",
    "benchmarks (costmodel: evaluations per second; search: = bench-search; sweep: = bench-sweep; codesign: "
    "= bench-codesign; sim)",
    "usage: marvel bench costmodel [--reference DIR] [--seconds S]\n"
    "       marvel bench search ...   (the same as marvel bench-search ...)\n"
    "       marvel bench sweep ...    (the same as marvel bench-sweep ...: design points per second)\n"
    "       marvel bench codesign ... (the same as marvel bench-codesign ...: co-design against the grid)\n"
    "       marvel bench sim [--cases N] [--seed S] [--exportable narrow|wide] [--case I] "
    "[--show-disagreements]\n"
    "                        [--export-timeloop DIR]\n"
    "       marvel bench gamma [--case ID] [--threads N] [--genetic-seed S]\n\n"
    "gamma: runs the default search (corrected fidelity, refined) on the 34 layer/accelerator cases on\n"
    "which GAMMA, a genetic mapper over MAESTRO, was measured (doc/search.md, \"Against GAMMA\") and prints\n"
    "per case our runtime against GAMMA's best valid mapping and against the best valid mapping GAMMA\n"
    "evaluated at all (both in corrected fidelity), the compute bound and our search time, then on how\n"
    "many cases ours is at least as fast.\n\n"
    "sim: simulates N (default 600) random small mappings (1-3 levels; CONV1D, strided CONV2D, depth-wise,\n"
    "GEMM) and prints the share that agree exactly with the cost model's corrected fidelity, per metric\n"
    "and number of levels (macs: against the analytic MAC count; DRAM reads, writes and their bytes for\n"
    "every tensor), then the same for the per-case tables alone (with the general DRAM sums), which\n"
    "corrected fidelity uses for mappings too large to walk step by step. --exportable keeps to the\n"
    "random mappings the Timeloop export writes (wide: every one, the space --timeloop-compatible\n"
    "searches by default; narrow: --timeloop-space narrow), drawn from the same stream until N are\n"
    "found. --case I runs case I of the stream alone (the number --show-disagreements prints).\n"
    "--export-timeloop DIR also writes each kept case as Timeloop input (DIR/caseI: problem, arch, map,\n"
    "ert .yaml) and prints our counts of it on stderr with the case, as evaluate --export-timeloop does.\n\n"
    "costmodel: "
    "Evaluates every layer of every mapping in DIR/mappings on DIR/hw/P1_eyeriss.m and P2_edge.m\n"
    "(MAESTRO's reference data, default " MARVEL_DEFAULT_REFERENCE_DIR ") repeatedly for about S seconds\n"
    "(default 2) and prints evaluations per second and the median, min and max time per layer.",
    run};

// `marvel bench sim`: exact agreement of the cost model with the simulator on the random set.
int runSim(const std::vector<std::string>& argv)
{
    using namespace marvel;
    cli::Args args(argv, {"cases", "seed", "exportable", "case", "export-timeloop"}, {"show-disagreements"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    auto cases = args.integer("cases", 1, 1000000);
    auto only = args.integer("case", 0, 1LL << 30);
    auto seed = args.integer("seed", 0, 1LL << 40);
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    const int n = int(cases.value_or(600));
    const bool show = args.has("show-disagreements");
    // The exporter's space: what Checker::expressible takes (the search's --timeloop-compatible filter).
    std::optional<timeloop::SearchSpace> space;
    if (auto name = args.value("exportable")) {
        space = timeloop::searchSpaceNamed(*name);
        if (!space) return cli::usageError(kCommand, "--exportable: narrow or wide, not " + *name);
    }
    // metric -> levels -> (agreeing, total); a traffic metric agrees when it does for every tensor.
    using Tally = std::map<std::string, std::map<int, std::pair<int, int>>>;
    Tally tally, perCase;
    const std::vector<std::string> metrics = {"macs", "runtime", "l2_reads", "l1_writes", "l2_writes",
        "dram_reads", "dram_writes", "dram_read_bytes", "dram_write_bytes"};
    auto count = [&](Tally& into, const std::vector<sim::MetricCheck>& checks, int levels) {
        for (const auto& m : metrics) {
            bool agree = true;
            for (const auto& k : checks)
                if (k.metric == m) agree = agree && k.agrees();
            auto& cell = into[m][levels];
            cell.first += agree ? 1 : 0;
            cell.second += 1;
        }
    };
    // Most random mappings are not exportable (tiles that do not divide, overlapping offsets): the stream is
    // read until n cases are kept or it has given a thousand times as many.
    int kept = 0;
    for (int i = only.value_or(0); kept < n && i < (only ? *only + 1 : n * 1000); ++i) {
        const sim::RandomCase c = sim::randomCase(std::uint64_t(seed.value_or(1)), i);
        if (!sim::keeps(space, c)) continue;
        ++kept;
        std::vector<sim::MetricCheck> checks, tablesOnly;
        try {
            checks = sim::compareWithCostModel(c);
            tablesOnly = sim::compareWithCostModel(c, false);
            count(perCase, tablesOnly, c.levels);
        } catch (const InputError& e) {
            std::cerr << "marvel bench sim: case " << i << " (" << c.text()
                      << "): " << formatDiagnostics(e.diagnostics());
            continue;
        }
        count(tally, checks, c.levels);
        // Each kept case as Timeloop input with our counts, to check them against Timeloop itself.
        if (auto dir = args.value("export-timeloop")) {
            try {
                const std::string name = "case" + std::to_string(i);
                for (const auto& r : timeloop::exportLayers({{name, &c.problem, &c.dataflow}}, c.acc, *dir))
                    std::cerr << "timeloop: " << r.layer << ": " << r.message << "  | " << c.text() << '\n';
            } catch (const InputError& e) {
                std::cerr << "marvel bench sim: " << formatDiagnostics(e.diagnostics());
                return cli::InputError;
            }
        }
        if (show)
            for (auto [label, list] :
                {std::pair{"case ", &checks}, std::pair{"per-case tables, case ", &tablesOnly}})
                for (const auto& k : *list)
                    if (!k.agrees())
                        std::cout << label << i << " levels=" << c.levels << " " << k.metric
                                  << (k.tensor.empty() ? "" : " " + k.tensor) << ": simulated " << k.simulated
                                  << ", model " << k.model << "  | " << c.text() << '\n';
    }
    // The per-case tables alone are what corrected fidelity uses for mappings too large to walk.
    for (auto [label, t] : {std::pair{"agreement", &tally}, std::pair{"per-case tables agreement", &perCase}})
        for (const auto& m : metrics)
            for (const auto& [levels, cell] : (*t)[m]) {
                char pct[32];
                std::snprintf(pct, sizeof pct, "%.1f", 100.0 * cell.first / std::max(cell.second, 1));
                std::cout << label << " levels=" << levels << " metric=" << m << ": " << pct
                          << "% (n=" << cell.second << ")\n";
            }
    return cli::Ok;
}

// `marvel bench gamma`: the default search against GAMMA's figures on the 34 cases.
int runGamma(const std::vector<std::string>& argv)
{
    using namespace marvel;
    cli::Args args(argv, {"case", "threads", "genetic-seed"}, {});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    auto threads = args.integer("threads", 1, 256);
    auto seed = args.integer("genetic-seed", 0, 1LL << 40);
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    const std::string only = args.valueOr("case", "");
    std::vector<workloads::GammaCase> cases;
    for (const auto& c : workloads::gammaCases())
        if (only.empty() || c.id == only) cases.push_back(c);
    if (cases.empty()) return cli::usageError(kCommand, "--case: no case is named " + only);
    search::SearchOptions options;
    options.threads = int(threads.value_or(2));
    if (seed) options.genetic.seed = std::uint64_t(*seed);
    std::printf("%-11s %-42s %5s %12s %12s %12s %8s %8s %12s %8s\n", "case", "layer", "PEs", "GAMMA",
        "GAMMA seen", "ours", "/GAMMA", "/seen", "bound", "seconds");
    int atMostGamma = 0, atMostSeen = 0;
    double worstRatio = 0.0, totalSeconds = 0.0;
    std::string worstCase;
    for (const auto& c : cases) {
        arch::Accelerator acc;
        try {
            acc = cli::loadAcceleratorArg(c.platform);
        } catch (const InputError& e) {
            std::cerr << "marvel bench gamma: " << e.what() << "\n";
            return cli::InputError;
        }
        acc.numPes = c.pes;
        const ir::Operator op = ir::parseOperator(c.loopText(), c.id + ".loop");
        const auto start = std::chrono::steady_clock::now();
        const search::LayerSearchResult r = search::searchLayer(op, acc, options);
        const double seconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        totalSeconds += seconds;
        if (!r.result.bestRuntime) {
            std::printf(
                "%-11s %-42s %5lld  no mapping found\n", c.id.c_str(), c.layer.c_str(), (long long)c.pes);
            continue;
        }
        const std::int64_t ours = r.result.bestRuntime->metrics.runtime;
        const double ratio = double(ours) / double(c.gammaCycles);
        atMostGamma += ours <= c.gammaCycles ? 1 : 0;
        atMostSeen += ours <= c.gammaBestSeenCycles ? 1 : 0;
        if (ratio > worstRatio) {
            worstRatio = ratio;
            worstCase = c.id;
        }
        std::printf("%-11s %-42s %5lld %12lld %12lld %12lld %8.5f %8.5f %12lld %8.2f\n", c.id.c_str(),
            c.layer.c_str(), (long long)c.pes, (long long)c.gammaCycles, (long long)c.gammaBestSeenCycles,
            (long long)ours, ratio, double(ours) / double(c.gammaBestSeenCycles),
            (long long)cost::computeBound(c.macs(), c.pes, 1), seconds);
        std::fflush(stdout);
    }
    const int n = int(cases.size());
    std::printf("ours <= GAMMA's best valid mapping on %d of %d cases (worst ours/GAMMA %.5f, %s)\n",
        atMostGamma, n, worstRatio, worstCase.c_str());
    std::printf("ours <= the best valid mapping GAMMA evaluated on %d of %d cases\n", atMostSeen, n);
    std::printf("our search: %.1f s in all, %.2f s a case (%d threads); GAMMA: 20-145 s a run\n",
        totalSeconds, totalSeconds / std::max(1, n), options.threads);
    return 0;
}

int run(const std::vector<std::string>& argv)
{
    using namespace marvel;
    using Clock = std::chrono::steady_clock;
    if (!argv.empty() && argv.front() == "sim")
        return runSim(std::vector<std::string>(argv.begin() + 1, argv.end()));
    if (!argv.empty() && argv.front() == "gamma")
        return runGamma(std::vector<std::string>(argv.begin() + 1, argv.end()));
    if (!argv.empty()
        && (argv.front() == "search" || argv.front() == "sweep" || argv.front() == "codesign")) {
        const auto& all = cli::commands();
        if (auto it = all.find("bench-" + argv.front()); it != all.end())
            return it->second.run(std::vector<std::string>(argv.begin() + 1, argv.end()));
    }
    cli::Args args(argv, {"reference", "seconds"}, {});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (args.positionals().size() != 1 || args.positionals().front() != "costmodel")
        return cli::usageError(kCommand, "expects the benchmark name 'costmodel'");
    auto seconds = args.number("seconds", 0.01, 3600);
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    double budget = seconds.value_or(2.0);
    std::string dir = args.valueOr("reference", MARVEL_DEFAULT_REFERENCE_DIR);
    namespace fs = std::filesystem;
    if (!fs::is_directory(dir + "/mappings") || !fs::is_directory(dir + "/hw")) {
        std::cerr << "marvel bench: " << dir
                  << ": not a MAESTRO reference directory (needs hw/ and mappings/)\n";
        return cli::InputError;
    }

    // Compile every (platform, layer) once, as the search does; invalid mappings are left out.
    struct Case
    {
        std::unique_ptr<cost::Evaluator> evaluator;
        mdc::Dataflow dataflow;
        std::vector<double> ns;
    };
    std::vector<Case> cases;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir + "/mappings"))
        if (e.path().extension() == ".m") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const char* hw : {"P1_eyeriss", "P2_edge"}) {
        arch::Accelerator acc;
        try {
            acc = arch::loadAccelerator(dir + "/hw/" + hw + ".m");
        } catch (const InputError& e) {
            std::cerr << "marvel bench: " << formatDiagnostics(e.diagnostics());
            return cli::InputError;
        }
        for (const auto& f : files) {
            try {
                mdc::Network net = mdc::readMaestroMappingFile(f.string());
                for (const auto& layer : net.layers) {
                    auto ev = std::make_unique<cost::Evaluator>(cost::fromMaestroLayer(layer), acc);
                    cost::Metrics m;
                    if (ev->evaluateMetrics(layer.dataflow, m))
                        cases.push_back({std::move(ev), layer.dataflow, {}});
                }
            } catch (const InputError&) {
                // rejected files are not part of the timing
            }
        }
    }
    if (cases.empty()) {
        std::cerr << "marvel bench: no valid mapping found in " << dir << "\n";
        return cli::InputError;
    }
    std::cout << "cost model benchmark: " << cases.size() << " layer evaluations (P1 and P2) from "
              << files.size() << " mapping files, about " << budget << " s\n";
    long long evaluations = 0;
    auto start = Clock::now();
    double elapsed = 0.0;
    cost::Metrics m;
    std::int64_t checksum = 0;
    do {
        for (auto& c : cases) {
            // Repeat short evaluations so the clock resolution does not dominate.
            const int reps = 8;
            auto t0 = Clock::now();
            for (int r = 0; r < reps; ++r) {
                c.evaluator->evaluateMetrics(c.dataflow, m);
                checksum += m.runtimeCycles;
            }
            auto t1 = Clock::now();
            c.ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / reps);
            evaluations += reps;
        }
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < budget);
    std::vector<double> perLayer;
    for (auto& c : cases) {
        std::sort(c.ns.begin(), c.ns.end());
        perLayer.push_back(c.ns[c.ns.size() / 2]);
    }
    std::sort(perLayer.begin(), perLayer.end());
    double median = perLayer[perLayer.size() / 2];
    std::cout << "evaluations:           " << evaluations << " in " << elapsed << " s (checksum "
              << checksum % 1000 << ")\n";
    std::cout << "evaluations per second: " << static_cast<long long>(double(evaluations) / elapsed) << "\n";
    std::cout << "per-layer time (median of each layer's runs): median " << median / 1000.0 << " us, min "
              << perLayer.front() / 1000.0 << " us, max " << perLayer.back() / 1000.0 << " us\n";
    std::cout << "MAESTRO optimised build: 400 us per layer -> speed-up " << 400000.0 / median
              << "x (target >= 100x, " << (median <= 4000.0 ? "met" : "NOT met") << ")\n";
    return cli::Ok;
}

const bool registered = marvel::cli::registerCommand(kCommand);

} // namespace cmd_bench
