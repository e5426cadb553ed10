// `marvel search`: the decoupled off-chip/on-chip mapping search of an operator or of every layer of a
// model (issue 4) or of a project's workload, with a progress bar, JSON output, the runtime-energy
// Pareto set of each layer, a MAESTRO mapping export and a Pareto CSV export.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "app/cli/command.h"
#include "app/cli/interrupt.h"
#include "app/cli/search_args.h"
#include "app/cli/search_export.h"
#include "app/cli/search_layers.h"
#include "app/cli/search_report.h"
#include "app/cli/styles_report.h"
#include "core/export/timeloop.h"
#include "core/mdc/maestro_io.h"
#include "core/project/project.h"
#include "core/util/text_file.h"

namespace cmd_search {

using namespace marvel;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"search", "find the best mappings of an operator or a model on an accelerator",
    "usage: marvel search (--op FILE.loop | --model NAME_OR_FILE [--layer NAME] | --project FILE.json)\n"
    "                     [--hw FILE] [--objective runtime|energy|edp] [--threads N] [--json]\n"
    "                     [--export-mdc OUT.m] [--pareto-csv OUT.csv]\n"
    "                     [--pe-util-bound P] [--near-tie F] [--widen-above X] [--no-divisors-only]\n"
    "                     [--no-l1-check] [--no-l2-check] [--no-bound-skipping]\n"
    "                     [--exhaustive] [--fidelity maestro|corrected]\n"
    "                     [--max-seconds S] [--no-refine] [--genetic-evaluations N] [--genetic-seed S]\n"
    "                     [--offchip-candidates K] [--export-timeloop DIR]\n"
    "                     [--seq-len N] [--batch B] [--phase prefill|decode] [--kv-len L]\n"
    "                     [--timeloop-compatible [--timeloop-space narrow|wide]]\n"
    "                     [--timeloop-buffering 1|2] [--technology NAME|FILE]\n"
    "                     [--style rs|ws|os|interstellar|dmazerunner|genetic | --compare-styles]\n\n"
    "Solves the off-chip subspace with the distinct-block model and runs the genetic search, then\n"
    "explores level-2 orders, level-2 and level-1 tiles with the MDC cost model (paper Algorithm 1) from\n"
    "its best, then refines the result with local moves (never worse than either search). Reports each\n"
    "layer's best mapping for the objective and its runtime-energy Pareto set (the mappings no other\n"
    "evaluated one beats on both runtime and energy).\n"
    "  --op FILE.loop        one operator\n"
    "  --model NAME|FILE     a built-in model (alexnet, vgg16, resnet50, mobilenetv2, bert-base, gpt2,\n"
    "                        llama-7b, llama-7b-block, ...), a MAESTRO model file (.m), a JSON model or\n"
    "                        an ONNX model (.onnx: the nodes not modelled are listed); --layer picks one\n"
    "                        layer\n"
        + cli::sequenceOptionsUsage()
        + "  --project FILE.json   a Marvel Studio project: its workload, accelerator and search settings\n"
          "                        (the options below override the settings; --layer picks a model layer)\n"
          "  --hw FILE|PRESET      accelerator (.json or MAESTRO .m), or a preset's name: P1, P2, "
          "eyeriss_dram,\n"
          "                        edge1024_dram (samples/accelerators); required unless --project gives "
          "one\n"
          "  --technology T        the technology table the energies, area and power come from (a name of\n"
          "                        samples/technology such as 45nm or maestro, or a .json file; default: "
          "the\n"
          "                        accelerator's own \"technology\", else its \"energy\" in MAC units)\n"
          "  --objective           what to minimise (default runtime); energy is the total: MACs, L1, L2 "
          "and\n"
          "                        DRAM transfers (the accelerator's energy.dram_access per element)\n"
          "  --threads N           worker threads (default: all cores); results do not depend on it\n"
          "  --pe-util-bound P     prune level-2 tiles below P of the PEs (default 0.1; no bound on the "
          "result)\n"
          "  --near-tie F          the best mapping of the objective is the one best on the other metric\n"
          "                        (runtime: energy; energy, EDP: runtime) among the Pareto set's within a\n"
          "                        fraction F (0 to 0.5) of the objective's least; default 0.00002\n"
          "                        (0.002 %); 0: the exact best (e.g. 0.001: a mapping at most 0.1 % slower\n"
          "                        but cheaper is the best runtime)\n"
          "  --widen-above X       runtime objective: when the divisor-only best runs above X times the\n"
          "                        roofline, also search tile sizes that do not divide, starting from it\n"
          "                        (default 2; 0: never). A layer with no divisor mapping within\n"
          "                        --pe-util-bound is always widened so\n"
          "  --no-divisors-only    also try tile sizes that do not divide the enclosing tile (for each "
          "number\n"
          "                        of tiles the smallest size); starts from the divisor-only optimum, so it\n"
          "                        is never worse\n"
          "  --no-l1-check         do not require the mapping's L1 requirement to fit in L1\n"
          "  --no-l2-check         do not require the mapping's L2 requirement to fit in L2\n"
          "  --no-bound-skipping   evaluate every candidate even when a lower bound rules it out\n"
          "  --exhaustive          also enumerate level-3 tiles and orders (small operators only); starts\n"
          "                        from the decoupled search's result, so a limit never makes it worse\n"
          "  --fidelity            cost model mode: corrected (default: what the mappings really move,\n"
          "                        doc/cost-model.md) or maestro (MAESTRO's figures, quirks included)\n"
          "  --no-refine           the paper's decoupled search only: no genetic search before it nor\n"
          "                        local moves after it\n"
          "  --offchip-candidates K  also search the on-chip space under further off-chip solutions, K in "
          "all\n"
          "                        (default 1: one, as the paper): the optimum's tile with other loops\n"
          "                        innermost, then the optimum of an L2 budget just below the previous "
          "tile's\n"
          "                        footprint, ...; one merged front, never worse than K=1's (doc/search.md)\n"

          "  --json                one JSON object on stdout (each layer with a \"pareto\" array)\n"
          "  --export-mdc OUT.m    write every layer's best mapping as one MAESTRO mapping file\n"
          "  --export-timeloop DIR write each layer's best mapping as Timeloop input, "
          "DIR/<layer>/problem.yaml,\n"
          "                        arch.yaml, map.yaml, ert.yaml (cd DIR/<layer> && timeloop-model "
          "arch.yaml\n"
          "                        problem.yaml map.yaml ert.yaml); says per layer on stderr exported, with\n"
          "                        our counts Timeloop defines the same way, or why not (doc/timeloop.md)\n"
          "  --timeloop-compatible search only mappings Timeloop can express, so that every layer's best\n"
          "                        mapping exports\n"
          "  --timeloop-space S    with --timeloop-compatible: wide (default: every mapping the export\n"
          "                        writes) or narrow (at most two loops over the PEs, filter rows and\n"
          "                        columns whole in each PE; doc/timeloop.md compares the two)\n"
          "  --timeloop-buffering B  with --export-timeloop or --timeloop-compatible: the Timeloop buffers'\n"
          "                        multiple_buffering, 2 (default: our cost model's double-buffered "
          "requirement,\n"
          "                        a tile may use half a buffer) or 1 (the whole buffer, Timeloop's default, "
          "as\n"
          "                        doc/timeloop.md's worked case ran)\n"
          "  --pareto-csv OUT.csv  write every layer's Pareto set: "
          "layer,runtime_cycles,energy,edp,utilization,\n"
          "                        then the energy's parts mac_energy,l1_energy,l2_energy,dram_energy and "
          "the\n"
          "                        DRAM traffic dram_reads,dram_writes,dram_read_bytes,dram_write_bytes\n"
          "  --style NAME          search only the mappings of a mapping style or past optimiser "
          "(doc/search.md):\n"
          "                        rs (Eyeriss-like row-stationary), ws (NVDLA-like weight-stationary),\n"
          "                        os (ShiDianNao-like output-stationary), interstellar "
          "(Interstellar-like),\n"
          "                        dmazerunner (dMazeRunner-like); the optimisers search a GEMM-like layer\n"
          "                        in its 1x1-convolution form; or genetic: our GAMMA-like genetic search\n"
          "                        of two-level mappings (any tile sizes), the baseline Marvel is measured\n"
          "                        against\n"
          "  --genetic-evaluations N  the genetic search's budget: cost-model evaluations per layer "
          "(default\n"
          "                        5000)\n"
          "  --genetic-seed S      the genetic search's random seed (default 1); the same seed and budget "
          "give\n"
          "                        the same result, whatever --threads\n"
          "  --compare-styles      search each layer with Marvel and under every style; print per layer and "
          "in\n"
          "                        total each style's best beside Marvel's (runtime, energy, ratios)\n"
          "  --max-seconds S       stop searching after S seconds and report the best mappings of the part\n"
          "                        searched (a warning says so); Ctrl+C (SIGINT) stops the same way, exit "
          "130\n\n"
          "exit status: 0 ok, 1 operator not conformable, 2 input error (a bad layer of a model file is "
          "reported\n"
          "in its place with its error, the other layers as usual), 3 a layer has no mapping that fits the\n"
          "accelerator's buffers (reported with the smallest requirement found; the other layers as usual)",
    run};

/// A terminal progress bar on stderr, redrawn at most every 100 ms by the search thread.
class ProgressBar final : public search::SearchSink
{
public:
    explicit ProgressBar(std::string label)
        : m_label(std::move(label))
    { }
    void onProgress(const search::Progress& p) override
    {
        const double done = p.candidates
            ? static_cast<double>(p.evaluated + p.skipped) / static_cast<double>(p.candidates)
            : 1.0;
        const int width = 30;
        const int filled = static_cast<int>(done * width);
        std::fprintf(stderr, "\r%-20.20s [%s%s] %3d%% %llu evaluated, best %lld cycles, eta %.0fs   ",
            m_label.c_str(), std::string(static_cast<std::size_t>(std::min(filled, width)), '#').c_str(),
            std::string(static_cast<std::size_t>(width - std::min(filled, width)), '.').c_str(),
            static_cast<int>(done * 100), static_cast<unsigned long long>(p.evaluated),
            static_cast<long long>(p.best ? p.best->runtime : 0), p.etaSeconds);
        std::fflush(stderr);
    }
    void finish() { std::fprintf(stderr, "\r%80s\r", ""); }

private:
    std::string m_label;
};

int run(const std::vector<std::string>& argv)
{
    std::vector<std::string> valueOptions{"op", "model", "layer", "project", "hw", "objective", "threads",
        "export-mdc", "pareto-csv", "pe-util-bound", "near-tie", "fidelity", "max-seconds", "style",
        "widen-above", "genetic-evaluations", "genetic-seed", "offchip-candidates", "export-timeloop",
        "timeloop-buffering", "timeloop-space", "technology"};
    for (std::string& name : cli::sequenceOptionNames())
        valueOptions.push_back(std::move(name));
    cli::Args args(argv, valueOptions,
        {"json", "no-divisors-only", "no-l1-check", "no-l2-check", "no-bound-skipping", "exhaustive",
            "compare-styles", "no-refine", "timeloop-compatible"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    if (int(args.has("op")) + int(args.has("model")) + int(args.has("project")) != 1)
        return cli::usageError(kCommand, "give exactly one of --op and --model, or --project");
    if (args.has("layer") && args.has("op"))
        return cli::usageError(kCommand, "--layer needs --model or --project");
    if (!args.has("hw") && !args.has("project")) return cli::usageError(kCommand, "missing --hw FILE");

    // A project gives the starting settings; the options override them.
    std::optional<project::Project> proj;
    try {
        if (auto path = args.value("project")) proj = project::loadProject(*path);
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel search: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    search::SearchOptions options = proj ? proj->search : search::SearchOptions{};
    if (std::string error = cli::searchOptionsFromArgs(args, options); !error.empty())
        return cli::usageError(kCommand, error);
    workloads::SequenceOptions sequence;
    if (std::string error = cli::sequenceOptionsFromArgs(args, sequence); !error.empty())
        return cli::usageError(kCommand, error);
    if (!sequence.empty() && !args.has("model"))
        return cli::usageError(kCommand, "--seq-len, --batch, --phase and --kv-len go with --model");
    timeloop::Options timeloopOptions;
    if (std::string error = cli::timeloopOptionsFromArgs(args, timeloopOptions); !error.empty())
        return cli::usageError(kCommand, error);
    if (args.has("timeloop-buffering") && !args.has("export-timeloop") && !args.has("timeloop-compatible"))
        return cli::usageError(
            kCommand, "--timeloop-buffering goes with --export-timeloop or --timeloop-compatible");
    timeloop::SearchSpace space = timeloop::kDefaultSearchSpace;
    if (auto name = args.value("timeloop-space")) {
        if (!args.has("timeloop-compatible"))
            return cli::usageError(kCommand, "--timeloop-space goes with --timeloop-compatible");
        const std::optional<timeloop::SearchSpace> named = timeloop::searchSpaceNamed(*name);
        if (!named)
            return cli::usageError(kCommand, "--timeloop-space takes narrow or wide, got '" + *name + "'");
        space = *named;
    }
    // Only the mappings Timeloop can express (core/export/timeloop.h), on every search path.
    if (args.has("timeloop-compatible")) timeloop::restrictSearch(options.constraint, timeloopOptions, space);
    std::optional<styles::Style> style;
    if (auto name = args.value("style")) {
        style = styles::styleFromString(*name);
        if (!style)
            return cli::usageError(kCommand,
                "--style must be rs, ws, os, interstellar, dmazerunner or genetic, got '" + *name + "'");
    }
    const bool compare = args.has("compare-styles");
    if (compare && style) return cli::usageError(kCommand, "give --style or --compare-styles, not both");
    if (compare && (args.has("export-mdc") || args.has("pareto-csv") || args.has("export-timeloop")))
        return cli::usageError(kCommand, "--compare-styles prints a comparison; it exports no mapping");
    std::optional<double> maxSeconds;
    if (args.has("max-seconds")) {
        maxSeconds = args.number("max-seconds", 0.0, 1e9);
        if (!maxSeconds) return cli::usageError(kCommand, args.error());
    }

    arch::Accelerator acc;
    std::vector<cli::SearchLayer> layers;
    try {
        acc = args.has("hw") ? cli::loadAcceleratorArg(*args.value("hw")) : proj->accelerator;
        cli::applyTechnologyArg(args, acc);
        if (proj) {
            const std::string path = *args.value("project");
            if (auto layer = args.value("layer")) {
                if (proj->workload.kind != project::ProjectWorkload::Kind::Model)
                    return cli::usageError(
                        kCommand, "--layer needs a model project; " + path + " maps an operator");
                proj->workload.layer = *layer;
            }
            layers = cli::layersFromWorkload(project::loadProjectWorkload(*proj, path));
        } else {
            layers = args.has("op") ? cli::layersFromOperatorFile(*args.value("op"))
                                    : cli::layersFromModel(*args.value("model"), args.value("layer"),
                                        workloads::LayerErrors::Keep, sequence);
        }
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel search: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    if (std::string reason = cli::nonConformableReason(layers); !reason.empty()) {
        std::cerr << "marvel search: " << reason << '\n';
        return cli::NotConformable;
    }

    const bool json = args.has("json");
    const bool tty = isatty(fileno(stderr)) != 0;
    const auto start = std::chrono::steady_clock::now();
    std::vector<cli::SearchedLayer> searched;
    bool notMappable = false;
    bool badLayer = false;
    std::cerr << cli::capacityWarning(options);
    // Ctrl+C and --max-seconds stop the search; what was found so far is still reported.
    std::stop_source stop;
    std::optional<cli::StopOnInterrupt> watchdog(std::in_place, stop, maxSeconds);
    std::size_t unsearched = 0;
    std::vector<std::vector<cli::SearchedLayer>> styleResults; // --compare-styles: per searched layer
    for (const cli::SearchLayer& layer : layers) {
        if (stop.stop_requested()) {
            ++unsearched;
            continue;
        }
        if (!layer.ok()) {
            // Reported in its place in the output; the other layers are still searched.
            std::cerr << "marvel search: " << formatDiagnostics(layer.errors);
            badLayer = true;
            searched.push_back(cli::searchOne(layer, acc, options, nullptr));
            styleResults.emplace_back();
            continue;
        }
        ProgressBar bar(style ? layer.name + " [" + styles::toString(*style) + "]" : layer.name);
        try {
            searched.push_back(
                cli::searchOne(layer, acc, options, tty ? &bar : nullptr, stop.get_token(), style));
            if (compare) {
                std::vector<cli::SearchedLayer> row;
                for (styles::Style st : styles::allStyles()) {
                    if (stop.stop_requested()) break;
                    ProgressBar styleBar(layer.name + " [" + styles::toString(st) + "]");
                    row.push_back(
                        cli::searchOne(layer, acc, options, tty ? &styleBar : nullptr, stop.get_token(), st));
                    if (tty) styleBar.finish();
                }
                styleResults.push_back(std::move(row));
            }
        } catch (const marvel::InputError& e) {
            if (tty) bar.finish();
            std::cerr << "marvel search: " << layer.name << ": " << e.what() << '\n';
            return cli::InputError;
        }
        if (tty) bar.finish();
        if (searched.back().search.result.cancelled && !searched.back().best) {
            // Stopped before its first mapping: nothing to report for it.
            searched.pop_back();
            if (compare) styleResults.pop_back();
            ++unsearched;
            continue;
        }
        if (searched.back().search.result.cancelled)
            std::cerr
                << "marvel search: " << layer.name
                << ": warning: stopped before the search finished; this is the best mapping of the part "
                   "searched\n";
        if (!searched.back().best && searched.back().search.result.notMappable()) {
            std::cerr << "marvel search: " << cli::notMappableReason(searched.back(), acc) << '\n';
            notMappable = true;
        } else if (!searched.back().best) {
            std::cerr << "marvel search: " << layer.name
                      << ": no valid mapping in the pruned space (try a lower --pe-util-bound or "
                         "--no-divisors-only)\n";
            return cli::InputError;
        }
        if (searched.back().best && searched.back().search.result.stats.widened)
            std::cerr
                << "marvel search: " << layer.name
                << ": note: the tile sizes that divide the loop bounds gave no mapping keeping the "
                   "--pe-util-bound share of the PEs busy, or none within 2x the roofline; tile sizes that "
                   "do not divide were searched too\n";
        if (searched.back().search.result.truncated)
            std::cerr
                << "marvel search: " << layer.name
                << ": warning: the search stopped before it could prove this mapping the best: it is the "
                   "best of the part searched (the most promising candidates first, or an evenly spread "
                   "sample of the tile sizes; never worse than the divisor-only search); a higher "
                   "--pe-util-bound makes the space smaller\n";
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool interrupted = cli::StopOnInterrupt::interrupted();
    watchdog.reset();
    if (stop.stop_requested())
        std::cerr << "marvel search: " << (interrupted ? "interrupted" : "time limit (--max-seconds) reached")
                  << " after " << elapsed << " s"
                  << (unsearched ? "; " + std::to_string(unsearched) + " layer(s) not searched"
                                 : std::string())
                  << '\n';

    try {
        if (args.has("export-mdc")) cli::exportMdc(searched, *args.value("export-mdc"));
        if (auto dir = args.value("export-timeloop"))
            cli::exportTimeloop(searched, acc, *dir, std::cerr, timeloopOptions);
        if (args.has("pareto-csv"))
            writeTextFileAtomically(
                *args.value("pareto-csv"), cli::paretoCsv(searched), "the Pareto CSV file");
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel search: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    if (compare) {
        std::vector<cli::ComparedLayer> compared;
        for (std::size_t i = 0; i < searched.size(); ++i)
            compared.push_back(
                {searched[i], i < styleResults.size() ? styleResults[i] : std::vector<cli::SearchedLayer>{}});
        if (json)
            std::cout << cli::compareStylesJson(compared, options, elapsed, acc).dump(2) << '\n';
        else
            std::cout << cli::compareStylesText(compared, options, elapsed, acc);
    } else if (json)
        std::cout << cli::searchJson(searched, options, elapsed, acc).dump(2) << '\n';
    else
        std::cout << cli::searchText(searched, options, elapsed, acc);
    if (interrupted) return 128 + SIGINT;
    // The time limit left a layer without any mapping: no result for it, as when none is valid.
    if (unsearched > 0) return cli::InputError;
    return badLayer ? cli::InputError : notMappable ? cli::NotMappable : cli::Ok;
}

const bool registered = cli::registerCommand(kCommand);

} // namespace cmd_search
