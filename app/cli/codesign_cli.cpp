#include "app/cli/codesign_cli.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "app/cli/command.h"
#include "app/cli/search_args.h"
#include "app/cli/search_export.h"
#include "app/cli/search_layers.h"
#include "app/cli/search_report.h"
#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/tech/technology.h"
#include "core/util/csv.h"
#include "core/util/text_file.h"

namespace marvel::cli {

const std::vector<std::string>& defaultCodesignAxes()
{
    static const std::vector<std::string> axes
        = {"pes=64:4096:x2", "l1=64:2K:x2", "l2=16K:4M:x2", "noc_bw=16:512:x2"};
    return axes;
}

std::string codesignUsage(const std::string& program)
{
    const std::string pad(program.size(), ' ');
    std::string axes;
    for (const std::string& a : defaultCodesignAxes())
        axes += " " + a;
    return "usage: " + program + " codesign (--model NAME_OR_FILE | --op FILE.loop) --hw BASE\n" + "       "
        + pad + "          [--technology NAME|FILE] --area-budget MM2 [--power-budget MW]\n" + "       " + pad
        + "          [--objective runtime|energy|edp] [--vary NAME=VALUES ...]\n" + "       " + pad
        + "          [--seed N] [--max-designs N] [--batch N] [--threads N] [--json]\n" + "       " + pad
        + "          [--out designs.csv] [--best-hw best.json] [--export-mdc best.m]\n" + "       " + pad
        + "          [--fidelity maestro|corrected] [--no-refine] [--near-tie F] [--pe-util-bound P]\n"
        + "       " + pad + "          [--probe-share F] [--promote N]\n" + "       " + pad
        + "          [--seq-len N] [--phase prefill|decode] [--kv-len L]\n\n"
          "Finds the design of a grid around the base accelerator that minimises the objective over the\n"
          "whole workload (every layer searched as marvel sweep searches a design point) within the area\n"
          "budget (mm^2) and the power budget (mW, average power at the clock). Area and leakage come from\n"
          "the technology table, so designs over the budget are rejected before any search. Not a grid\n"
          "walk: designs are sampled (the largest that fit the budget, and at random), evolved, then the\n"
          "best ones' neighbourhoods are searched (doc/codesign.md). Prints the designs no other within\n"
          "budget beats on both objective and area (the front, area ascending) and the best design.\n"
          "  --model, --op         the workload: a built-in model (resnet50, mobilenetv2, gpt2, ...), a "
          "model\n"
          "                        file, or one operator\n"
          "  --seq-len, --phase, --kv-len  a transformer's sequence length, prefill or decode and cached\n"
          "                        tokens, as for marvel search (one sequence: --batch is the designs per\n"
          "                        round here)\n"
          "  --hw BASE             the base accelerator (.json or .m, or a preset's name: P2, "
          "edge1024_45nm)\n"
          "  --technology T        the table area, power and energies come from (required unless BASE\n"
          "                        names one): 45nm, maestro, or a .json file\n"
          "  --area-budget MM2     the largest area allowed, mm^2 (required)\n"
          "  --power-budget MW     the largest average power allowed, mW\n"
          "  --objective           runtime (cycles, default), energy (pJ) or edp (cycles x pJ); each\n"
          "                        layer's mapping is searched for it\n"
          "  --vary NAME=VALUES    an axis as for marvel sweep (pes, simd, l1, l2, noc_bw, offchip_bw);\n"
          "                        default:"
        + axes
        + "\n"
          "  --seed N              the co-design's random seed (default 1); the result depends only on\n"
          "                        it, --batch and --max-designs, not on the threads or ranks\n"
          "  --max-designs N       most designs to score (default 6% of the grid, at least 12)\n"
          "  --batch N             designs proposed per round (default 8)\n"
          "  --probe-share F       designs are first scored on the heaviest layers making up this share of\n"
          "                        the roofline time (default 0.3; 1: every layer), then the best of them\n"
          "  --promote N           on every layer (default a sixth of --max-designs, at least --batch)\n"
          "  --out FILE.csv        every evaluated design: order,phase, the sweep CSV's columns, objective,\n"
          "                        within_budget (the designs scored on the probe only last, status probe)\n"
          "  --best-hw FILE.json   the best design as an accelerator file\n"
          "  --export-mdc FILE.m   the best design's mappings (every layer) as a MAESTRO mapping file\n"
          "  --threads, --fidelity, --no-refine, --near-tie, --pe-util-bound: as for marvel search\n"
          "  --json                {\"best\": {\"accelerator\": {...}, \"runtime_cycles\", \"energy_pj\",\n"
          "                        \"area_mm2\", \"power_mw\", ...}, \"front\": [...], "
          "\"designs_evaluated\": N}\n"
          "Progress with an ETA goes to stderr; Ctrl+C stops and reports what was evaluated.\n"
          "exit status: 0 done, 1 a layer is not conformable, 2 input error (no budget, an unknown axis, a\n"
          "budget no design meets), 3 no evaluated design met the budgets, 130 interrupted";
}

namespace {

int printed(bool print, const std::string& program, const std::string& message, int code, bool usage)
{
    if (print) {
        std::cerr << program << " codesign: " << message << '\n';
        if (usage) std::cerr << '\n' << codesignUsage(program) << '\n';
    }
    return code;
}

} // namespace

std::optional<int> parseCodesignJob(const std::vector<std::string>& argv, const std::string& program,
    unsigned defaultThreads, bool printErrors, CodesignJob& job)
{
    auto usageError = [&](const std::string& message) {
        return printed(printErrors, program, message, InputError, true);
    };
    auto inputError = [&](const marvel::InputError& e) {
        std::string text = formatDiagnostics(e.diagnostics());
        while (!text.empty() && text.back() == '\n')
            text.pop_back();
        return printed(printErrors, program, text, InputError, false);
    };
    Args args(argv,
        {"op", "model", "hw", "technology", "area-budget", "power-budget", "objective", "vary", "seed",
            "max-designs", "batch", "probe-share", "promote", "threads", "out", "best-hw", "export-mdc",
            "fidelity", "near-tie", "pe-util-bound", "seq-len", "phase", "kv-len"},
        {"json", "no-refine"});
    if (!args.ok()) return usageError(args.error());
    // --batch is the designs per round here, so a transformer's sequences stay at one.
    workloads::SequenceOptions sequence;
    if (std::string error = sequenceOptionsFromArgs(args, sequence, false); !error.empty())
        return usageError(error);
    if (!sequence.empty() && !args.has("model"))
        return usageError("--seq-len, --phase and --kv-len go with --model");
    if (!args.positionals().empty())
        return usageError("unexpected argument '" + args.positionals().front() + "'");
    if (int(args.has("op")) + int(args.has("model")) != 1) return usageError("give one of --model and --op");
    if (!args.has("hw")) return usageError("missing --hw BASE");
    if (!args.has("area-budget")) return usageError("missing --area-budget MM2 (the largest area allowed)");

    codesign::Options options;
    constexpr double kHuge = std::numeric_limits<double>::max();
    const std::optional<double> area = args.number("area-budget", -kHuge, kHuge);
    if (!area) return usageError(args.error());
    if (!(*area > 0))
        return usageError(
            "--area-budget must be a positive number of mm^2, got " + *args.value("area-budget"));
    options.budget.areaMm2 = *area;
    if (args.has("power-budget")) {
        const std::optional<double> power = args.number("power-budget", -kHuge, kHuge);
        if (!power) return usageError(args.error());
        if (!(*power > 0))
            return usageError(
                "--power-budget must be a positive number of mW, got " + *args.value("power-budget"));
        options.budget.powerMw = *power;
    }
    if (args.has("seed")) {
        const auto seed = args.integer("seed", 0, std::numeric_limits<long long>::max());
        if (!seed) return usageError(args.error());
        options.seed = static_cast<std::uint64_t>(*seed);
    }
    if (args.has("max-designs")) {
        const auto n = args.integer("max-designs", 1, sweep::kMaxPoints);
        if (!n) return usageError(args.error());
        options.maxDesigns = static_cast<std::size_t>(*n);
    }
    if (args.has("probe-share")) {
        const auto share = args.number("probe-share", 0.0, 1.0);
        if (!share) return usageError(args.error());
        if (!(*share > 0)) return usageError("--probe-share must be above 0");
        options.probeShare = *share;
    }
    if (args.has("promote")) {
        const auto n = args.integer("promote", 1, sweep::kMaxPoints);
        if (!n) return usageError(args.error());
        options.promote = static_cast<std::size_t>(*n);
    }
    if (args.has("batch")) {
        const auto n = args.integer("batch", 1, 1024);
        if (!n) return usageError(args.error());
        options.batch = static_cast<std::size_t>(*n);
    }
    options.sweep.search.threads = defaultThreads;
    if (std::string error = searchOptionsFromArgs(args, options.sweep.search); !error.empty())
        return usageError(error);
    options.objective = options.sweep.search.objective;
    options.sweep.threads = options.sweep.search.threads;
    job.out = args.valueOr("out", "");
    job.bestHw = args.valueOr("best-hw", "");
    job.exportMdc = args.valueOr("export-mdc", "");
    job.json = args.has("json");

    try {
        std::vector<sweep::Axis> axes;
        const std::vector<std::string> specs = args.has("vary") ? args.values("vary") : defaultCodesignAxes();
        for (const std::string& spec : specs)
            axes.push_back(sweep::parseVary(spec));
        arch::Accelerator base = loadAcceleratorArg(*args.value("hw"));
        applyTechnologyArg(args, base);
        if (!base.technologyTable)
            return printed(printErrors, program,
                "the base accelerator " + *args.value("hw")
                    + " names no technology table: give --technology (e.g. 45nm) so that area and power have "
                      "units",
                InputError, false);
        sweep::Grid grid(base, std::move(axes));
        if (auto op = args.value("op")) {
            ir::Operator parsed = ir::parseOperatorFile(*op);
            job.workload.name = parsed.name;
            job.workload.layers.push_back({parsed.name, {}, std::move(parsed), 1, {}});
            job.modelName = *op;
        } else {
            job.workload
                = workloads::loadWorkload(*args.value("model"), workloads::LayerErrors::Throw, sequence);
            job.modelName = *args.value("model");
        }
        if (std::string reason = nonConformableReason(layersFromWorkload(job.workload)); !reason.empty())
            return printed(printErrors, program, reason, NotConformable, false);
        job.designer = std::make_unique<codesign::CoDesigner>(std::move(grid), job.workload, options);
    } catch (const marvel::InputError& e) {
        return inputError(e);
    }
    return std::nullopt;
}

void CodesignProgress::update(const codesign::Progress& p)
{
    const auto now = std::chrono::steady_clock::now();
    if (!m_started) {
        m_started = true;
        m_tty = isatty(fileno(stderr)) != 0;
        m_lastPrint = now - std::chrono::hours(1);
    }
    const bool last = p.layerSearches >= p.plannedSearches;
    if (!last && std::chrono::duration<double>(now - m_lastPrint).count() < (m_tty ? 0.1 : 5.0)) return;
    m_lastPrint = now;
    char best[96] = "none within budget yet";
    if (p.best)
        std::snprintf(best, sizeof best, "best %.4g at %.3g mm^2", p.best->objective, p.best->point.areaMm2);
    else if (p.bestProbe)
        std::snprintf(best, sizeof best, "best on the probe %.4g at %.3g mm^2", p.bestProbe->objective,
            p.bestProbe->point.areaMm2);
    std::fprintf(stderr,
        "%scodesign: %zu/%zu layer searches (%.0f%%), %zu designs probed, %zu complete, %s, %s, %.0f s, eta "
        "%.0f s%s",
        m_tty ? "\r" : "", p.layerSearches, p.plannedSearches,
        p.plannedSearches
            ? 100.0 * static_cast<double>(p.layerSearches) / static_cast<double>(p.plannedSearches)
            : 100.0,
        p.probed, p.complete, p.phase.c_str(), best, p.elapsedSeconds, p.etaSeconds, m_tty ? "   " : "\n");
    std::fflush(stderr);
}

void CodesignProgress::finish()
{
    if (m_tty && m_started) std::fprintf(stderr, "\n");
}

namespace {

nlohmann::ordered_json designJson(const codesign::CoDesigner& designer, const codesign::Design& d)
{
    static constexpr const char* kColumns[] = {"pes", "simd", "l1_bytes", "l2_bytes", "noc_bw", "offchip_bw"};
    nlohmann::ordered_json j;
    for (std::size_t i = 0; i < sweep::kParameterCount; ++i)
        j[kColumns[i]] = d.point.parameters[i];
    j["objective"] = d.objective;
    j["runtime_cycles"] = d.point.runtime;
    j["energy_pj"] = d.point.energyPj;
    j["edp"] = static_cast<double>(d.point.runtime) * d.point.energyPj;
    j["area_mm2"] = d.point.areaMm2;
    j["power_mw"] = d.point.powerMw;
    j["leakage_mw"] = designer.staticCost(d.point.index).leakageMw;
    j["utilization"] = d.point.utilization;
    j["dram_bytes"] = d.point.dramBytes;
    j["order"] = d.order;
    j["phase"] = d.phase;
    return j;
}

std::string designLine(const codesign::Design& d)
{
    const sweep::Parameters& p = d.point.parameters;
    char line[240];
    std::snprintf(line, sizeof line,
        "  %9.4f mm^2  %14lld cycles  %10s  %9.4g mW   pes %lld simd %lld l1 %lld l2 %lld noc_bw %lld "
        "offchip_bw %lld\n",
        d.point.areaMm2, static_cast<long long>(d.point.runtime),
        tech::formatPicojoules(d.point.energyPj).c_str(), d.point.powerMw, static_cast<long long>(p[0]),
        static_cast<long long>(p[1]), static_cast<long long>(p[2]), static_cast<long long>(p[3]),
        static_cast<long long>(p[4]), static_cast<long long>(p[5]));
    return line;
}

void writeDesigns(const CodesignJob& job, const codesign::Result& result)
{
    std::string text = "order,phase," + sweep::csvHeader() + ",objective,within_budget\n";
    // The complete designs, then the probe scores (their status says "probe").
    for (const std::vector<codesign::Design>* list : {&result.designs, &result.probes})
        for (const codesign::Design& d : *list)
            text += std::to_string(d.order) + ',' + d.phase + ',' + sweep::formatRow(d.point) + ','
                + (d.point.ok ? exactNumber(d.objective) : std::string()) + ',' + (d.withinBudget ? "1" : "0")
                + '\n';
    writeTextFileAtomically(job.out, text, "the designs file");
}

// The best design's layers searched again on its accelerator, for --export-mdc.
void exportBestMappings(const CodesignJob& job, const arch::Accelerator& acc)
{
    std::vector<SearchedLayer> searched;
    search::SearchOptions options = job.designer->options().sweep.search;
    options.threads = std::max(1u, job.designer->options().sweep.threads);
    for (const SearchLayer& l : layersFromWorkload(job.workload))
        searched.push_back(searchOne(l, acc, options, nullptr));
    exportMdc(searched, job.exportMdc);
}

} // namespace

int reportCodesign(const CodesignJob& job, const codesign::Result& result, double seconds, bool interrupted)
{
    const codesign::CoDesigner& designer = *job.designer;
    const codesign::Options& o = designer.options();
    try {
        if (!job.out.empty()) writeDesigns(job, result);
        if (result.best) {
            const arch::Accelerator acc = designer.accelerator(result.best->point.index);
            if (!job.bestHw.empty()) arch::saveAccelerator(acc, job.bestHw);
            if (!job.exportMdc.empty()) exportBestMappings(job, acc);
        }
    } catch (const marvel::InputError& e) {
        std::cerr << "codesign: " << formatDiagnostics(e.diagnostics());
        return InputError;
    }
    const double share = result.gridSize
        ? 100.0 * static_cast<double>(result.designs.size()) / static_cast<double>(result.gridSize)
        : 0.0;
    if (job.json) {
        nlohmann::ordered_json out;
        if (result.best) {
            nlohmann::ordered_json best;
            best["accelerator"] = arch::acceleratorToJson(designer.accelerator(result.best->point.index));
            const nlohmann::ordered_json figures = designJson(designer, *result.best);
            for (auto it = figures.begin(); it != figures.end(); ++it)
                best[it.key()] = it.value();
            out["best"] = best;
        } else {
            out["best"] = nullptr;
        }
        out["front"] = nlohmann::ordered_json::array();
        for (const codesign::Design& d : result.front)
            out["front"].push_back(designJson(designer, d));
        out["designs_evaluated"] = result.designs.size();
        out["designs_probed"] = result.probes.size();
        out["probe_layers"] = result.probeLayers;
        out["layers"] = result.layers;
        out["layer_searches"] = result.layerSearches;
        out["grid_designs"] = result.gridSize;
        out["within_area_budget"] = result.withinArea;
        out["objective"] = search::toString(o.objective);
        out["area_budget_mm2"] = o.budget.areaMm2;
        if (o.budget.powerMw) out["power_budget_mw"] = *o.budget.powerMw;
        out["seed"] = o.seed;
        out["technology"] = tech::describe(designer.grid().base());
        out["search"] = sweep::pointSearchDescription(o.sweep);
        out["elapsed_seconds"] = seconds;
        out["cancelled"] = result.cancelled;
        std::cout << out.dump(2) << '\n';
    } else {
        std::cout << "codesign of " << job.modelName << " (" << job.workload.layers.size()
                  << " layers) around " << designer.grid().base().name << ", "
                  << tech::describe(designer.grid().base()) << '\n';
        std::cout << "objective " << search::toString(o.objective) << ", area budget " << o.budget.areaMm2
                  << " mm^2";
        if (o.budget.powerMw) std::cout << ", power budget " << *o.budget.powerMw << " mW";
        std::cout << ", seed " << o.seed << '\n';
        std::cout << "designs: " << result.designs.size() << " searched whole of " << result.gridSize
                  << " in the grid (" << share << "%), " << result.withinArea << " within the area budget";
        if (!result.probes.empty())
            std::cout << "; " << result.probes.size() << " scored on the probe (" << result.probeLayers
                      << " of " << result.layers << " layers)";
        std::cout << "; " << result.layerSearches << " layer searches ("
                  << 100.0 * static_cast<double>(result.layerSearches)
                / static_cast<double>(std::max<std::size_t>(1, result.gridSize * result.layers))
                  << "% of the whole grid's) in " << seconds << " s\n";
        std::cout << "each design: " << sweep::pointSearchDescription(o.sweep) << '\n';
        std::cout << "front (" << search::toString(o.objective) << " against area, " << result.front.size()
                  << " designs):\n";
        std::cout << "       area         runtime           energy       power\n";
        for (const codesign::Design& d : result.front)
            std::cout << designLine(d);
        if (result.best) {
            std::cout << "best:\n" << designLine(*result.best);
            if (!job.bestHw.empty()) std::cout << "wrote " << job.bestHw << '\n';
            if (!job.exportMdc.empty()) std::cout << "wrote " << job.exportMdc << '\n';
        }
        if (!job.out.empty()) std::cout << "wrote " << job.out << '\n';
    }
    if (interrupted) {
        std::cerr << "codesign: interrupted after " << result.designs.size() << " designs\n";
        return 130;
    }
    if (!result.best) {
        std::cerr << "codesign: no evaluated design met the budgets (every layer mapped";
        if (o.budget.powerMw) std::cerr << ", average power within " << *o.budget.powerMw << " mW";
        std::cerr << ")\n";
        return NotMappable;
    }
    return Ok;
}

} // namespace marvel::cli
