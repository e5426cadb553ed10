#include "app/cli/sweep_cli.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "app/cli/command.h"
#include "app/cli/search_args.h"
#include "app/cli/search_layers.h"
#include "app/cli/search_report.h"
#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/project/project.h"
#include "core/tech/technology.h"

namespace marvel::cli {

std::string sweepUsage(const std::string& program)
{
    const std::string pad(program.size(), ' ');
    return "usage: " + program + " sweep (--op FILE.loop | --model NAME_OR_FILE | --project FILE.json)\n"
        + "       " + pad + "       [--hw BASE] --vary NAME=VALUES [--vary ...] --out FILE.csv [--resume]\n"
        + "       " + pad + "       [--objective runtime|energy|edp] [--threads N] [--json]\n" + "       "
        + pad + "       [--pe-util-bound P] [--near-tie F] [--fidelity maestro|corrected]\n" + "       " + pad
        + "       [--no-divisors-only] [--no-l1-check] [--no-l2-check] [--no-bound-skipping]\n" + "       "
        + pad + "       [--no-refine] [--quick-search] [--technology NAME|FILE]\n" + "       " + pad
        + "       [--seq-len N] [--batch B] [--phase prefill|decode] [--kv-len L]\n\n"
          "Searches the whole workload (every layer, totals times each layer's repeat) at every design "
          "point\n"
          "of a grid around the base accelerator and writes one CSV row per point:\n"
          "  pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,edp,area,power,utilization,\n"
          "  roofline_cycles,dram_bytes,dram_energy,energy_pj,area_mm2,power_mw,search,status\n"
          "(energy: the total, MACs, L1, L2 and DRAM; dram_bytes: bytes of the DRAM blocks the chosen "
          "mappings\n"
          "move, dram_energy: their part of the energy; status: ok, or why the point failed, e.g. a layer "
          "with\n"
          "no mapping fitting its buffers; then the runtime, energy, edp, utilization and DRAM fields are\n"
          "empty). Rows are appended as points finish, then\n"
          "sorted into the grid order (pes slowest, offchip_bw fastest, values ascending). area, power:\n"
          "MAESTRO's area/power formulas for the buffers' capacities; area_mm2, power_mw: the technology\n"
          "table's (the same formulas without one). The design points no other beats on\n"
          "runtime and area, and on energy and area, go to FILE.pareto.csv\n"
          "(front,pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,area,power,\n"
          "  area_mm2,power_mw; the fronts use area_mm2, the technology table's area).\n"
          "  --op, --model, --project  the workload, as for marvel search (a project also gives the base\n"
          "                        accelerator and the search settings; the options override them;\n"
          "                        --model takes transformers and ONNX models, instantiated by the\n"
          "                        options below)\n"
        + sequenceOptionsUsage()
        + "  --hw BASE             the base accelerator (.json or MAESTRO .m, or a preset's name: P1, P2,\n"
          "                        eyeriss_dram, edge1024_dram)\n"
          "  --vary NAME=VALUES    a parameter and its values; NAME is pes, simd, l1, l2 (bytes), noc_bw or\n"
          "                        offchip_bw (elements per cycle); VALUES a list (pes=256,512,1024), a\n"
          "                        geometric range FROM:TO:xFACTOR (l2=64K:1M:x2) or an arithmetic one\n"
          "                        FROM:TO:+STEP (noc_bw=32:128:+32); K, M, G multiply by 1024. At most "
        + std::to_string(sweep::kMaxAxisValues) + "\n" + "                        values per parameter and "
        + std::to_string(sweep::kMaxPoints)
        + " design points.\n"
          "                        A transformer's context varies too: seq=VALUES (prefill's tokens per\n"
          "                        sequence, e.g. seq=128:8192:x2) or kv=VALUES (one decode step's cached\n"
          "                        tokens; implies --phase decode), alone or with the accelerator's axes:\n"
          "                        the model is instantiated again for each value (the slowest axis), the\n"
          "                        rows and FILE.pareto.csv start with a seq or kv column, the report lists\n"
          "                        runtime, energy and DRAM traffic per value and the Pareto designs of\n"
          "                        each value\n"
          "  --out FILE.csv        the result file, replaced unless --resume (rewritten atomically at the "
          "end)\n"
          "  --resume              keep the rows already in FILE.csv (a cut last line is redone) and search\n"
          "                        only the missing points\n"
          "  --objective           what each layer's best mapping minimises (default runtime)\n"
          "  --near-tie F          near ties of the objective within a fraction F go to the mapping better\n"
          "                        on the other metric, as marvel search --near-tie (default 0.00002\n"
          "                        (0.002 %); 0: the exact best)\n"
          "  --technology T        the technology table the energies, area and power come from (a name of\n"
          "                        samples/technology such as 45nm or maestro, or a .json file; default:\n"
          "                        the accelerator's own)\n"
          "  --quick-search        search each point with the decoupled search alone (the paper's sweeps):\n"
          "                        faster, but a point may show a slower or costlier mapping than marvel\n"
          "                        search finds for that design. By default every point runs the search\n"
          "                        marvel search runs with the same options (--no-refine included), so its\n"
          "                        figures are those marvel search and the app's tuner give. The search\n"
          "                        column says which one made each row.\n"
          "  --threads N           threads (default "
        + (program == "marvel" ? std::string("all cores") : std::string("1 per rank"))
        + "); results do not depend on it\n"
          "  --json                the summary and both Pareto sets as one JSON object on stdout\n"
          "Progress with an ETA goes to stderr; Ctrl+C stops, keeping the finished rows for --resume.\n"
          "exit status: 0 done, 1 a layer is not conformable, 2 input error (a bad --vary names itself),\n"
          "130 interrupted";
}

namespace {

int printed(bool print, const std::string& program, const std::string& message, int code, bool usage)
{
    if (print) {
        std::cerr << program << " sweep: " << message << '\n';
        if (usage) std::cerr << '\n' << sweepUsage(program) << '\n';
    }
    return code;
}

} // namespace

std::optional<int> parseSweepJob(const std::vector<std::string>& argv, const std::string& program,
    unsigned defaultThreads, bool printErrors, SweepJob& job)
{
    auto usageError = [&](const std::string& message) {
        return printed(printErrors, program, message, InputError, true);
    };
    auto inputError = [&](const marvel::InputError& e) {
        return printed(printErrors, program, formatDiagnostics(e.diagnostics()), InputError, false);
    };
    std::vector<std::string> valueOptions{"op", "model", "project", "hw", "vary", "out", "objective",
        "threads", "pe-util-bound", "near-tie", "fidelity", "technology"};
    for (std::string& name : sequenceOptionNames())
        valueOptions.push_back(std::move(name));
    Args args(argv, valueOptions,
        {"resume", "json", "no-divisors-only", "no-l1-check", "no-l2-check", "no-bound-skipping", "no-refine",
            "quick-search"});
    if (!args.ok()) return usageError(args.error());
    if (!args.positionals().empty())
        return usageError("unexpected argument '" + args.positionals().front() + "'");
    if (int(args.has("op")) + int(args.has("model")) + int(args.has("project")) != 1)
        return usageError("give exactly one of --op, --model and --project");
    if (!args.has("hw") && !args.has("project")) return usageError("missing --hw BASE");
    if (!args.has("out")) return usageError("missing --out FILE.csv");
    if (!args.has("vary")) return usageError("missing --vary NAME=VALUES (e.g. --vary pes=256,512,1024)");

    std::optional<project::Project> proj;
    try {
        if (auto path = args.value("project")) proj = project::loadProject(*path);
    } catch (const marvel::InputError& e) {
        return inputError(e);
    }
    job.options.search = proj ? proj->search : search::SearchOptions{};
    job.options.search.threads = defaultThreads;
    if (std::string error = searchOptionsFromArgs(args, job.options.search); !error.empty())
        return usageError(error);
    workloads::SequenceOptions sequence;
    if (std::string error = sequenceOptionsFromArgs(args, sequence); !error.empty()) return usageError(error);
    if (!sequence.empty() && !args.has("model"))
        return usageError("--seq-len, --batch, --phase and --kv-len go with --model");
    job.options.threads = job.options.search.threads;
    if (args.has("quick-search")) job.options.pointSearch = sweep::PointSearch::Quick;
    job.out = *args.value("out");
    job.resume = args.has("resume");
    job.json = args.has("json");

    try {
        std::vector<sweep::Axis> axes;
        std::optional<sweep::ContextAxis> context;
        for (const std::string& spec : args.values("vary")) {
            if (!sweep::isContextVary(spec)) {
                axes.push_back(sweep::parseVary(spec));
                continue;
            }
            sweep::ContextAxis axis = sweep::parseContextVary(spec);
            const bool kv = axis.parameter == sweep::ContextParameter::Kv;
            if (context)
                return usageError("--vary '" + spec + "': the context is already varied by --vary '"
                    + context->spec + "' (seq is prefill's, kv decode's)");
            if (!args.has("model"))
                return usageError("--vary '" + spec
                    + "' varies a transformer's context: it needs --model (a built-in transformer or an ONNX "
                      "model with a symbolic sequence)");
            if (program != "marvel")
                return usageError("--vary '" + spec + "': " + program
                    + " sweep does not vary the context; run marvel sweep");
            if (kv && args.value("phase") == std::optional<std::string>("prefill"))
                return usageError("--vary '" + spec
                    + "' varies a decode step's cached tokens: it goes with "
                      "--phase decode (the default with a kv axis)");
            if (!kv && sequence.phase == workloads::Phase::Decode)
                return usageError("--vary '" + spec
                    + "' varies the prefill's sequence length; a decode step varies kv=...");
            if ((kv && sequence.kvLen) || (!kv && sequence.seqLen))
                return usageError(std::string(kv ? "--kv-len" : "--seq-len") + " and --vary '" + spec
                    + "' both set it: give one");
            context = std::move(axis);
        }
        arch::Accelerator base
            = args.has("hw") ? cli::loadAcceleratorArg(*args.value("hw")) : proj->accelerator;
        applyTechnologyArg(args, base);
        job.grid = std::make_unique<sweep::Grid>(base, std::move(axes), context);
        if (proj) {
            job.workload = project::loadProjectWorkload(*proj, *args.value("project"));
        } else if (auto op = args.value("op")) {
            ir::Operator parsed = ir::parseOperatorFile(*op);
            job.workload.name = parsed.name;
            job.workload.layers.push_back({parsed.name, {}, std::move(parsed), 1, {}});
        } else if (context) {
            // The model once per context value; a model without a sequence says so on the first.
            for (std::int64_t v : context->values) {
                workloads::SequenceOptions at = sequence;
                if (context->parameter == sweep::ContextParameter::Kv) {
                    at.phase = workloads::Phase::Decode;
                    at.kvLen = v;
                } else {
                    at.seqLen = v;
                }
                job.contextWorkloads.push_back(
                    workloads::loadWorkload(*args.value("model"), workloads::LayerErrors::Throw, at));
            }
            job.workload = job.contextWorkloads.front();
            if (printErrors) printImportSummary(job.workload, *args.value("model"));
        } else {
            job.workload
                = workloads::loadWorkload(*args.value("model"), workloads::LayerErrors::Throw, sequence);
            if (printErrors) printImportSummary(job.workload, *args.value("model"));
        }
    } catch (const marvel::InputError& e) {
        return inputError(e);
    }
    for (const workloads::Workload& w :
        job.contextWorkloads.empty() ? std::vector<workloads::Workload>{job.workload} : job.contextWorkloads)
        if (std::string reason = nonConformableReason(layersFromWorkload(w)); !reason.empty())
            return printed(printErrors, program, reason, NotConformable, false);
    return std::nullopt;
}

sweep::Sweeper makeSweeper(const SweepJob& job)
{
    if (job.contextWorkloads.empty()) return sweep::Sweeper(*job.grid, job.workload, job.options);
    return sweep::Sweeper(*job.grid, job.contextWorkloads, job.options);
}

std::string jobSettings(const SweepJob& job)
{
    if (job.contextWorkloads.empty()) return sweep::sweepSettings(job.workload, job.options);
    return sweep::sweepSettings(job.contextWorkloads, *job.grid, job.options);
}

SweepProgress::SweepProgress(std::size_t total, std::size_t alreadyDone)
    : m_total(total)
    , m_done(alreadyDone)
    , m_startDone(alreadyDone)
    , m_tty(isatty(fileno(stderr)) != 0)
    , m_start(std::chrono::steady_clock::now())
    , m_lastPrint(m_start)
{
    if (alreadyDone > 0)
        std::fprintf(stderr, "sweep: %zu of %zu points already in the file\n", alreadyDone, total);
}

double SweepProgress::elapsedSeconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void SweepProgress::point(const sweep::PointResult& row)
{
    ++m_done;
    if (!row.ok) ++m_failed;
    print(m_done == m_total);
}

void SweepProgress::print(bool force)
{
    const auto now = std::chrono::steady_clock::now();
    const double sinceLast = std::chrono::duration<double>(now - m_lastPrint).count();
    if (!force && sinceLast < (m_tty ? 0.1 : 5.0)) return;
    m_lastPrint = now;
    const double elapsed = elapsedSeconds();
    const std::size_t thisRun = m_done - m_startDone;
    const double eta
        = thisRun ? elapsed / static_cast<double>(thisRun) * static_cast<double>(m_total - m_done) : 0.0;
    std::fprintf(stderr, "%ssweep: %zu/%zu points (%.0f%%), %zu failed, %.0f s, eta %.0f s%s",
        m_tty ? "\r" : "", m_done, m_total,
        m_total ? 100.0 * static_cast<double>(m_done) / static_cast<double>(m_total) : 100.0, m_failed,
        elapsed, eta, m_tty ? "   " : "\n");
    std::fflush(stderr);
}

void SweepProgress::finish()
{
    if (m_tty) std::fprintf(stderr, "\n");
}

namespace {

// A design point with the CSV's column names.
nlohmann::json pointJson(const sweep::Grid& grid, const sweep::PointResult& r)
{
    static constexpr const char* kColumns[] = {"pes", "simd", "l1_bytes", "l2_bytes", "noc_bw", "offchip_bw"};
    nlohmann::json j;
    if (grid.context()) j[std::string(sweep::contextName(grid.context()->parameter))] = r.context;
    for (std::size_t i = 0; i < sweep::kParameterCount; ++i)
        j[kColumns[i]] = r.parameters[i];
    j["runtime_cycles"] = r.runtime;
    j["energy"] = r.energy;
    j["edp"] = r.edp;
    j["area"] = r.area;
    j["power"] = r.power;
    j["utilization"] = r.utilization;
    j["roofline_cycles"] = r.roofline;
    j["dram_bytes"] = r.dramBytes;
    j["dram_energy"] = r.dramEnergy;
    j["energy_pj"] = r.energyPj;
    j["area_mm2"] = r.areaMm2;
    j["power_mw"] = r.powerMw;
    j["search"] = sweep::pointSearchName(r.search);
    return j;
}

std::string pointText(const sweep::Grid& grid, const sweep::PointResult& r)
{
    char line[300];
    const std::string context = grid.context()
        ? std::string(sweep::contextName(grid.context()->parameter)) + " " + std::to_string(r.context) + ", "
        : std::string();
    std::snprintf(line, sizeof line,
        "  %spes %lld simd %lld l1 %lld l2 %lld noc_bw %lld offchip_bw %lld: runtime %lld, energy %.6g, area "
        "%.6g mm2, power %.4g mW\n",
        context.c_str(), static_cast<long long>(r.parameters[0]), static_cast<long long>(r.parameters[1]),
        static_cast<long long>(r.parameters[2]), static_cast<long long>(r.parameters[3]),
        static_cast<long long>(r.parameters[4]), static_cast<long long>(r.parameters[5]),
        static_cast<long long>(r.runtime), r.energy, r.areaMm2, r.powerMw);
    return line;
}

std::vector<sweep::PointResult> sortedRows(const sweep::SweepFile& file)
{
    std::vector<sweep::PointResult> rows = file.rows();
    std::sort(rows.begin(), rows.end(),
        [](const sweep::PointResult& a, const sweep::PointResult& b) { return a.index < b.index; });
    return rows;
}

// "  seq 1024, pes 1024 ...: runtime 123 cycles, energy 4.5e+06, DRAM 789 bytes" (or the failure).
std::string contextText(const sweep::Grid& grid, const sweep::PointResult& r)
{
    std::string line
        = "  " + std::string(sweep::contextName(grid.context()->parameter)) + " " + std::to_string(r.context);
    if (grid.hardwareSize() > 1) {
        for (std::size_t i = 0; i < sweep::kParameterCount; ++i)
            for (const sweep::Axis& a : grid.axes())
                if (static_cast<std::size_t>(a.parameter) == i)
                    line += ", " + std::string(sweep::parameterName(a.parameter)) + " "
                        + std::to_string(r.parameters[i]);
    }
    if (!r.ok) return line + ": failed: " + r.status + "\n";
    char figures[200];
    std::snprintf(figures, sizeof figures, ": runtime %lld cycles, energy %.6g, DRAM %lld bytes\n",
        static_cast<long long>(r.runtime), r.energy, static_cast<long long>(r.dramBytes));
    return line + figures;
}

} // namespace

int reportSweep(const SweepJob& job, const sweep::SweepFile& file, const sweep::DesignFronts& fronts,
    double seconds, bool interrupted)
{
    const std::size_t total = job.grid->size(), done = file.rows().size();
    std::size_t failed = 0;
    for (const sweep::PointResult& r : file.rows())
        failed += r.ok ? 0 : 1;
    if (job.json) {
        nlohmann::json out;
        out["out"] = job.out;
        out["pareto_file"] = sweep::paretoPath(job.out);
        out["objective"] = search::toString(job.options.search.objective);
        out["fidelity"] = search::toString(job.options.search.fidelity);
        out["search"] = sweep::pointSearchName(job.options.pointSearch);
        out["technology"] = tech::describe(job.grid->base());
        out["refine"] = job.options.pointSearch == sweep::PointSearch::Full && job.options.search.refine;
        out["points"] = total;
        out["done"] = done;
        out["failed"] = failed;
        out["complete"] = done == total;
        out["elapsed_seconds"] = seconds;
        nlohmann::json pareto;
        pareto["runtime_area"] = nlohmann::json::array();
        pareto["energy_area"] = nlohmann::json::array();
        for (const sweep::PointResult& r : fronts.runtimeArea)
            pareto["runtime_area"].push_back(pointJson(*job.grid, r));
        for (const sweep::PointResult& r : fronts.energyArea)
            pareto["energy_area"].push_back(pointJson(*job.grid, r));
        out["pareto"] = pareto;
        if (job.grid->context()) {
            // How the figures grow with the context: every point, in grid order.
            nlohmann::json points = nlohmann::json::array();
            for (const sweep::PointResult& r : sortedRows(file)) {
                nlohmann::json p = pointJson(*job.grid, r);
                p["status"] = r.status;
                points.push_back(std::move(p));
            }
            out["points_by_context"] = std::move(points);
        }
        std::cout << out.dump(2) << '\n';
    } else {
        std::cout << fidelityLine(job.options.search.fidelity);
        std::cout << "points: " << sweep::pointSearchDescription(job.options) << '\n';
        std::cout << "physical units: " << tech::describe(job.grid->base()) << '\n';
        std::cout << "sweep: " << done << " of " << total << " design points (" << failed << " failed) in "
                  << seconds << " s; wrote " << job.out << " and " << sweep::paretoPath(job.out) << '\n';
        if (const auto& context = job.grid->context()) {
            const std::string name(sweep::contextName(context->parameter));
            std::cout << "by " << name << " (" << (name == "kv" ? "one decode step" : "prefill")
                      << "): runtime cycles, energy, DRAM traffic per design point\n";
            for (const sweep::PointResult& r : sortedRows(file))
                std::cout << contextText(*job.grid, r);
        }
        std::cout << "runtime-area Pareto designs (" << fronts.runtimeArea.size() << "):\n";
        for (const sweep::PointResult& r : fronts.runtimeArea)
            std::cout << pointText(*job.grid, r);
        std::cout << "energy-area Pareto designs (" << fronts.energyArea.size() << "):\n";
        for (const sweep::PointResult& r : fronts.energyArea)
            std::cout << pointText(*job.grid, r);
    }
    if (interrupted) {
        std::cerr << "sweep: interrupted; " << total - done
                  << " point(s) not searched (--resume finishes them)\n";
        return 130;
    }
    return Ok;
}

} // namespace marvel::cli
