// `marvel bench codesign` (= `marvel bench-codesign`): the co-design's best design under three area
// budgets against the exhaustive grid's best (every design within the budget searched, the same inner
// search), the share of the grid it evaluated, and the time of a whole co-design.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "app/cli/codesign_cli.h"
#include "app/cli/command.h"
#include "app/cli/interrupt.h"
#include "app/cli/search_args.h"
#include "core/arch/accelerator_io.h"
#include "core/sweep/sweep_file.h"
#include "core/tech/technology.h"

namespace cmd_bench_codesign {

using namespace marvel;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"bench-codesign",
    "benchmark of the co-design: its best against the exhaustive grid's, designs evaluated, time",
    "usage: marvel bench-codesign [--models resnet50,mobilenetv2] [--hw BASE] [--technology 45nm]\n"
    "                             [--budgets MM2,MM2,MM2] [--objective runtime|energy|edp] [--seed N]\n"
    "                             [--vary NAME=VALUES ...] [--first-layer K] [--layers N] [--threads N]\n"
    "                             [--max-designs N]\n"
    "                             [--probe-share F] [--promote N] [--cache PREFIX] [--no-exhaustive]\n"
    "                             [--no-timing]\n\n"
    "For each model (default resnet50 and mobilenetv2, built in) around the base accelerator (default\n"
    "edge1024_45nm) with the technology table (default 45nm), over the grid of marvel codesign's default\n"
    "axes (pes=64:4096:x2 l1=64:2K:x2 l2=16K:4M:x2 noc_bw=16:512:x2: 2268 designs; --vary replaces\n"
    "them), prints for each area budget (default 0.5,1.5,4 mm^2):\n"
    "  the exhaustive best: every design within the budget searched as marvel sweep searches a point\n"
    "  the co-design's best, its distance to the exhaustive best, and its layer searches (the share of\n"
    "  the whole grid's); goal: within 1%, at most 10% of the grid's\n"
    "then the wall and CPU time of one whole co-design (the middle budget) searching every design it\n"
    "proposes (goal for resnet50: at most 600 s on 2 cores), whose rows must equal the exhaustive ones.\n"
    "The exhaustive grid is the expensive part: --cache PREFIX keeps its layer searches in\n"
    "PREFIX.MODEL.txt (a later run searches only the missing ones); the quality figures take the\n"
    "co-design's layer searches from them (the same search's results). Only designs within the largest\n"
    "budget are searched. --first-layer K and --layers N keep N layers of each model from its K-th (from 0;\n"
    "a cheaper run whose figures are those of that part of the model); --no-exhaustive prints only the "
    "co-design's figures;\n"
    "--no-timing skips the timed run. The other options are marvel codesign's. Ctrl+C stops (the cache\n"
    "keeps what was searched).",
    run};

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::vector<std::string> split(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

std::string designText(const codesign::Design& d)
{
    const sweep::Parameters& p = d.point.parameters;
    char text[200];
    std::snprintf(text, sizeof text, "%.6g (pes %lld l1 %lld l2 %lld noc_bw %lld, %.3f mm^2)", d.objective,
        static_cast<long long>(p[0]), static_cast<long long>(p[2]), static_cast<long long>(p[3]),
        static_cast<long long>(p[4]), d.point.areaMm2);
    return text;
}

int run(const std::vector<std::string>& argv)
{
    cli::Args args(argv,
        {"models", "hw", "technology", "budgets", "objective", "seed", "vary", "layers", "threads",
            "max-designs", "cache", "probe-share", "promote", "first-layer"},
        {"no-exhaustive", "no-timing"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    codesign::Options base;
    if (std::string error = cli::searchOptionsFromArgs(args, base.sweep.search); !error.empty())
        return cli::usageError(kCommand, error);
    base.objective = base.sweep.search.objective;
    base.sweep.threads = base.sweep.search.threads;
    const auto seed = args.integer("seed", 0, 1LL << 62);
    const auto layers = args.integer("layers", 1, 100000);
    const auto firstLayer = args.integer("first-layer", 0, 100000);
    const auto maxDesigns = args.integer("max-designs", 1, sweep::kMaxPoints);
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (seed) base.seed = static_cast<std::uint64_t>(*seed);
    if (maxDesigns) base.maxDesigns = static_cast<std::size_t>(*maxDesigns);
    const auto promote = args.integer("promote", 1, sweep::kMaxPoints);
    const auto probeShare = args.number("probe-share", 0.001, 1.0);
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (promote) base.promote = static_cast<std::size_t>(*promote);
    if (probeShare) base.probeShare = *probeShare;
    std::vector<double> budgets;
    for (const std::string& b : split(args.valueOr("budgets", "0.5,1.5,4"))) {
        try {
            std::size_t used = 0;
            const double v = std::stod(b, &used);
            if (used != b.size() || !(v > 0)) throw std::invalid_argument(b);
            budgets.push_back(v);
        } catch (const std::exception&) {
            return cli::usageError(kCommand, "--budgets takes positive numbers of mm^2, got '" + b + "'");
        }
    }
    if (budgets.empty()) return cli::usageError(kCommand, "--budgets is empty");
    std::sort(budgets.begin(), budgets.end());
    const std::vector<std::string> models = split(args.valueOr("models", "resnet50,mobilenetv2"));
    const std::vector<std::string> specs
        = args.has("vary") ? args.values("vary") : cli::defaultCodesignAxes();
    const bool exhaustive = !args.has("no-exhaustive"), timing = !args.has("no-timing");
    const unsigned threads
        = base.sweep.threads ? base.sweep.threads : std::max(1u, std::thread::hardware_concurrency());

    arch::Accelerator acc;
    std::vector<sweep::Axis> axes;
    try {
        for (const std::string& s : specs)
            axes.push_back(sweep::parseVary(s));
        acc = cli::loadAcceleratorArg(args.valueOr("hw", "edge1024_45nm"));
        cli::Args tech(
            std::vector<std::string>{"--technology", args.valueOr("technology", "45nm")}, {"technology"}, {});
        cli::applyTechnologyArg(tech, acc);
    } catch (const InputError& e) {
        std::cerr << "marvel bench-codesign: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    std::string axesText;
    for (const std::string& s : specs)
        axesText += " " + s;
    std::printf("codesign benchmark: %s, base %s, grid%s, objective %s, seed %llu, %u threads\n",
        tech::describe(acc).c_str(), acc.name.c_str(), axesText.c_str(),
        search::toString(base.objective).c_str(), static_cast<unsigned long long>(base.seed), threads);
    std::fflush(stdout);

    std::stop_source stop;
    cli::StopOnInterrupt watch(stop);
    bool allMet = true;
    for (const std::string& model : models) {
        workloads::Workload workload;
        std::unique_ptr<sweep::Grid> grid;
        try {
            workload = workloads::loadWorkload(model);
            const std::size_t first = static_cast<std::size_t>(firstLayer.value_or(0));
            if (first >= workload.layers.size())
                return cli::usageError(kCommand,
                    "--first-layer " + std::to_string(first) + ": " + model + " has "
                        + std::to_string(workload.layers.size()) + " layers");
            workload.layers.erase(
                workload.layers.begin(), workload.layers.begin() + static_cast<std::ptrdiff_t>(first));
            if (layers && static_cast<std::size_t>(*layers) < workload.layers.size())
                workload.layers.resize(static_cast<std::size_t>(*layers));
            grid = std::make_unique<sweep::Grid>(acc, axes);
        } catch (const InputError& e) {
            std::cerr << "marvel bench-codesign: " << formatDiagnostics(e.diagnostics());
            return cli::InputError;
        }
        std::printf("\n%s: %zu layers%s, %zu designs in the grid\n", model.c_str(), workload.layers.size(),
            layers || firstLayer ? " (--first-layer, --layers)" : "", grid->size());
        std::fflush(stdout);

        // The problems of the budgets (the largest first: its designs include every other's).
        std::vector<std::unique_ptr<codesign::CoDesigner>> problems;
        try {
            for (double b : budgets) {
                codesign::Options o = base;
                o.budget.areaMm2 = b;
                problems.push_back(std::make_unique<codesign::CoDesigner>(*grid, workload, o));
            }
        } catch (const InputError& e) {
            std::cerr << "marvel bench-codesign: " << formatDiagnostics(e.diagnostics());
            return cli::InputError;
        }
        const codesign::CoDesigner& largest = *problems.back();

        // The exhaustive layer outcomes: from the cache, the missing ones searched (within the largest
        // budget).
        std::map<std::pair<std::size_t, std::size_t>, sweep::LayerOutcome> table;
        const std::size_t layerCount = workload.layers.size();
        if (exhaustive) {
            const auto start = std::chrono::steady_clock::now();
            const std::clock_t cpu0 = std::clock();
            std::string cachePath;
            std::ofstream cacheOut;
            if (auto prefix = args.value("cache")) {
                std::string stem = model;
                std::replace(stem.begin(), stem.end(), '/', '_');
                cachePath
                    = *prefix + "." + stem + (layers ? ".layers" + std::to_string(*layers) : "") + ".txt";
                // One line per layer search: "POINT LAYER OUTCOME" (sweep::formatLayerOutcome); the first
                // line says what they depend on, so that a cache of another grid or search is refused.
                const std::string settings = axesText + " | "
                    + cli::acceleratorArgPath(args.valueOr("hw", "edge1024_45nm")) + " | "
                    + sweep::sweepSettings(workload, largest.options().sweep);
                std::string header = settings;
                std::replace(header.begin(), header.end(), '\n', ';');
                std::ifstream in(cachePath);
                std::string line;
                if (in && std::getline(in, line)) {
                    if (line != header) {
                        std::cerr << "marvel bench-codesign: " << cachePath
                                  << ": written for another grid, model or search; remove it or give another "
                                     "--cache\n";
                        return cli::InputError;
                    }
                    while (std::getline(in, line)) {
                        std::istringstream fields(line);
                        std::size_t point = 0, layer = 0;
                        fields >> point >> layer;
                        const std::streamoff at = fields.tellg();
                        if (!fields || at < 0) continue; // a cut last line
                        const std::optional<sweep::LayerOutcome> o = sweep::parseLayerOutcome(
                            std::string_view(line).substr(static_cast<std::size_t>(at) + 1));
                        if (o && point < grid->size() && layer < layerCount) table[{point, layer}] = *o;
                    }
                    cacheOut.open(cachePath, std::ios::app);
                } else {
                    cacheOut.open(cachePath, std::ios::trunc);
                    cacheOut << header << '\n';
                }
                if (!cacheOut) {
                    std::cerr << "marvel bench-codesign: " << cachePath << ": cannot write the cache\n";
                    return cli::InputError;
                }
            }
            std::vector<codesign::Unit> todo;
            for (std::size_t i : largest.withinArea())
                for (std::size_t l = 0; l < layerCount; ++l)
                    if (!table.count({i, l})) todo.push_back({i, l});
            const std::size_t all = largest.withinArea().size() * layerCount;
            std::fprintf(stderr,
                "%s: exhaustive: %zu designs within %.3g mm^2 x %zu layers, %zu cached, %zu to search\n",
                model.c_str(), largest.withinArea().size(), budgets.back(), layerCount, all - todo.size(),
                todo.size());
            // In chunks, so that the cache grows as it goes and Ctrl+C loses little.
            const std::size_t chunk = 64;
            for (std::size_t from = 0; from < todo.size() && !stop.stop_requested(); from += chunk) {
                const std::vector<codesign::Unit> part(todo.begin() + static_cast<std::ptrdiff_t>(from),
                    todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), from + chunk)));
                const std::vector<std::optional<sweep::LayerOutcome>> got
                    = largest.evaluateUnits(part, stop.get_token());
                for (std::size_t u = 0; u < part.size(); ++u) {
                    if (!got[u]) continue;
                    table[{part[u].index, part[u].layer}] = *got[u];
                    if (cacheOut)
                        cacheOut << part[u].index << ' ' << part[u].layer << ' '
                                 << sweep::formatLayerOutcome(*got[u]) << '\n';
                }
                cacheOut.flush();
                const double t = seconds(start);
                const std::size_t done = std::min(todo.size(), from + chunk);
                std::fprintf(stderr, "%s: exhaustive: %zu/%zu layer searches, %.0f s, eta %.0f s\n",
                    model.c_str(), done, todo.size(), t, t / double(done) * double(todo.size() - done));
            }
            if (stop.stop_requested()) {
                std::printf("interrupted: the cache keeps the %zu layer searches done\n", table.size());
                return 130;
            }
            std::printf(
                "  exhaustive: %zu designs within the largest budget x %zu layers (%zu layer searches "
                "from the cache, %zu run in %.1f s, cpu %.1f s)\n",
                largest.withinArea().size(), layerCount, all - todo.size(), todo.size(), seconds(start),
                double(std::clock() - cpu0) / CLOCKS_PER_SEC);
            std::fflush(stdout);
        }

        // Quality: each budget's co-design, its layer searches taken from the exhaustive ones.
        const codesign::UnitEvaluator fromTable
            = [&](const std::vector<codesign::Unit>& units, std::stop_token) {
                  std::vector<std::optional<sweep::LayerOutcome>> out;
                  for (const codesign::Unit& u : units)
                      out.push_back(table.at({u.index, u.layer}));
                  return out;
              };
        auto wholeRow = [&](const codesign::CoDesigner& cd, std::size_t index) {
            std::vector<sweep::LayerOutcome> outcomes;
            for (std::size_t l = 0; l < layerCount; ++l) {
                outcomes.push_back(table.at({index, l}));
                if (!outcomes.back().ok) break;
            }
            return cd.combine(index, outcomes);
        };
        for (std::size_t b = 0; exhaustive && b < budgets.size(); ++b) {
            const codesign::CoDesigner& cd = *problems[b];
            codesign::Result every;
            every.gridSize = grid->size();
            for (std::size_t i : cd.withinArea())
                every.designs.push_back(cd.judge(wholeRow(cd, i), every.designs.size(), "exhaustive"));
            cd.summarise(every);
            const codesign::Result r = cd.run({}, {}, {}, fromTable);
            const double cost = 100.0 * double(r.layerSearches) / double(grid->size() * layerCount);
            if (!every.best || !r.best) {
                std::printf("  budget %g mm^2: %s\n", budgets[b],
                    every.best ? "the co-design found no design within budget" : "no design within budget");
                allMet = allMet && !every.best;
                continue;
            }
            const double gap = 100.0 * (r.best->objective - every.best->objective) / every.best->objective;
            const bool met = gap <= 1.0 && cost <= 10.0;
            allMet = allMet && met;
            std::printf("  budget %g mm^2: %zu designs within it; exhaustive best %s\n", budgets[b],
                cd.withinArea().size(), designText(*every.best).c_str());
            std::printf(
                "    codesign best %s: %+.2f%%; %zu designs scored on %zu probe layers, %zu searched whole; "
                "%zu layer searches = %.1f%% of the whole grid's (%.1f designs' worth): %s\n",
                designText(*r.best).c_str(), gap, r.probes.size() + r.designs.size(), r.probeLayers,
                r.designs.size(), r.layerSearches, cost, double(r.layerSearches) / double(layerCount),
                met ? "met (within 1%, at most 10%)" : "NOT met (goal: within 1%, at most 10%)");
            std::fflush(stdout);
        }

        // Speed: a whole co-design of the middle budget searching every design it proposes.
        if (timing) {
            const codesign::CoDesigner& cd = *problems[problems.size() / 2];
            const auto start = std::chrono::steady_clock::now();
            const std::clock_t cpu0 = std::clock();
            cli::CodesignProgress progress;
            const codesign::Result r
                = cd.run(stop.get_token(), {}, [&](const codesign::Progress& p) { progress.update(p); });
            progress.finish();
            const double wall = seconds(start), cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
            if (r.cancelled) {
                std::printf("interrupted\n");
                return 130;
            }
            bool same = true;
            for (const codesign::Design& d : r.designs)
                if (table.count({d.point.index, 0}))
                    same = same && sweep::formatRow(wholeRow(cd, d.point.index)) == sweep::formatRow(d.point);
            std::printf(
                "  timed codesign (budget %g mm^2): %zu designs probed, %zu searched whole, %zu layer "
                "searches in %.1f s, cpu %.1f s; best %s",
                cd.options().budget.areaMm2, r.probes.size() + r.designs.size(), r.designs.size(),
                r.layerSearches, wall, cpu, r.best ? designText(*r.best).c_str() : "none");
            if (exhaustive) std::printf("; rows equal to the exhaustive ones: %s", same ? "yes" : "NO");
            std::printf("\n    goal: at most 600 s on 2 cores for the whole of resnet50: %s\n",
                layers                    ? "not measured (--layers)"
                    : model != "resnet50" ? "(resnet50 only)"
                    : wall <= 600         ? "met"
                                          : "NOT met");
            std::fflush(stdout);
        }
    }
    if (exhaustive)
        std::printf("\nquality goal (within 1%% of the exhaustive best, at most 10%% of the grid, every "
                    "budget): %s\n",
            allMet ? "met" : "NOT met");
    return cli::Ok;
}

const bool registered = cli::registerCommand(kCommand);

} // namespace cmd_bench_codesign
