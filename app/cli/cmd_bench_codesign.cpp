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
    "  the exhaustive best: the best of every design within the budget searched as marvel sweep\n"
    "  searches a point, found by branch and bound for the runtime objective (a design takes at least\n"
    "  its layers' roofline cycles: designs in ascending order of that bound, dropped once their\n"
    "  searched layers and the others' bounds exceed the best so far; a layer search below its\n"
    "  roofline would void the proof and is reported); other objectives search every design\n"
    "  the co-design's best, its distance to the exhaustive best, and its layer searches (the share of\n"
    "  the whole grid's); goal: within 1%, at most 10% of the grid's\n"
    "then the wall and CPU time of one whole co-design (the middle budget) searching every design it\n"
    "proposes (goal for resnet50: at most 600 s on 2 cores), whose rows must equal the exhaustive ones.\n"
    "The exhaustive grid is the expensive part: --cache PREFIX keeps every layer search in\n"
    "PREFIX.MODEL.txt (a later run searches only the missing ones); the co-design takes its layer\n"
    "searches from the same table (the same search's results). --first-layer K and --layers N keep N\n"
    "layers of each model from its K-th (from 0;\n"
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

        // Every layer search goes through one table, filled from the cache file and by searching what is
        // missing (appended to the cache as it goes, so that Ctrl+C loses little).
        std::map<std::pair<std::size_t, std::size_t>, sweep::LayerOutcome> table;
        const std::size_t layerCount = workload.layers.size();
        std::ofstream cacheOut;
        if (auto prefix = args.value("cache"); prefix && exhaustive) {
            std::string stem = model;
            std::replace(stem.begin(), stem.end(), '/', '_');
            const std::string cachePath = *prefix + "." + stem
                + (firstLayer ? ".from" + std::to_string(*firstLayer) : "")
                + (layers ? ".layers" + std::to_string(*layers) : "") + ".txt";
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
            std::fprintf(
                stderr, "%s: %zu layer searches from %s\n", model.c_str(), table.size(), cachePath.c_str());
        }
        std::size_t searched = 0;
        const codesign::UnitEvaluator throughTable
            = [&](const std::vector<codesign::Unit>& units, std::stop_token stopToken) {
                  std::vector<codesign::Unit> missing;
                  for (const codesign::Unit& u : units)
                      if (!table.count({u.index, u.layer})) missing.push_back(u);
                  const std::vector<std::optional<sweep::LayerOutcome>> got
                      = largest.evaluateUnits(missing, stopToken);
                  for (std::size_t k = 0; k < missing.size(); ++k) {
                      if (!got[k]) continue;
                      table[{missing[k].index, missing[k].layer}] = *got[k];
                      ++searched;
                      if (cacheOut)
                          cacheOut << missing[k].index << ' ' << missing[k].layer << ' '
                                   << sweep::formatLayerOutcome(*got[k]) << '\n';
                  }
                  cacheOut.flush();
                  std::vector<std::optional<sweep::LayerOutcome>> out;
                  for (const codesign::Unit& u : units) {
                      const auto it = table.find({u.index, u.layer});
                      out.push_back(it == table.end() ? std::nullopt : std::optional(it->second));
                  }
                  return out;
              };
        auto wholeRow
            = [&](const codesign::CoDesigner& cd, std::size_t index) -> std::optional<sweep::PointResult> {
            std::vector<sweep::LayerOutcome> outcomes;
            for (std::size_t l = 0; l < layerCount; ++l) {
                const auto it = table.find({index, l});
                if (it == table.end()) return std::nullopt;
                outcomes.push_back(it->second);
                if (!outcomes.back().ok) break;
            }
            return cd.combine(index, outcomes);
        };

        // Quality, per budget: the exhaustive grid's best (branch and bound: every design within the
        // budget that its roofline bound does not rule out), then the co-design's with the same layer
        // searches.
        const std::size_t gridSearches = grid->size() * layerCount;
        for (std::size_t b = 0; exhaustive && b < budgets.size(); ++b) {
            const codesign::CoDesigner& cd = *problems[b];
            const auto start = std::chrono::steady_clock::now();
            const std::clock_t cpu0 = std::clock();
            const std::size_t searchedBefore = searched;
            cli::CodesignProgress progress;
            const codesign::Result every = cd.boundedExhaustive(
                stop.get_token(), [&](const codesign::Progress& p) { progress.update(p); }, throughTable);
            progress.finish();
            if (every.cancelled) {
                std::printf("interrupted: the cache keeps the %zu layer searches done\n", table.size());
                return 130;
            }
            std::printf("  budget %g mm^2: %zu designs within it; exhaustive best %s\n", budgets[b],
                cd.withinArea().size(), every.best ? designText(*every.best).c_str() : "none");
            std::printf(
                "    exhaustive by branch and bound: %zu designs searched whole, %zu dropped part-searched, "
                "%zu ruled out by their roofline bound; %zu layer searches (%zu new, %.1f s, cpu %.1f s), "
                "%zu below their roofline%s\n",
                every.designs.size(), every.stoppedByBound, every.ruledOutByBound, every.layerSearches,
                searched - searchedBefore, seconds(start), double(std::clock() - cpu0) / CLOCKS_PER_SEC,
                every.boundViolations, every.boundViolations ? " (the bound failed: not proven)" : "");
            std::fflush(stdout);
            const codesign::Result r = cd.run(stop.get_token(), {}, {}, throughTable);
            if (r.cancelled) {
                std::printf("interrupted: the cache keeps the %zu layer searches done\n", table.size());
                return 130;
            }
            const double cost = 100.0 * double(r.layerSearches) / double(gridSearches);
            if (!every.best || !r.best) {
                if (every.best) std::printf("    the co-design found no design within budget\n");
                allMet = allMet && !every.best;
                continue;
            }
            const double gap = 100.0 * (r.best->objective - every.best->objective) / every.best->objective;
            const bool met = gap <= 1.0 && cost <= 10.0 && every.boundViolations == 0;
            allMet = allMet && met;
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
                if (const std::optional<sweep::PointResult> row = wholeRow(cd, d.point.index))
                    same = same && sweep::formatRow(*row) == sweep::formatRow(d.point);
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
