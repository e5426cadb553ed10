// `marvel simulate --hw FILE --mapping FILE.m`: the exact step-by-step execution of each mapped layer
// (core/sim): totals, and on request the frames (what every PE holds, receives and computes per step).
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/search_args.h"
#include "app/cli/search_report.h"
#include "core/arch/accelerator_io.h"
#include "core/cost/problem.h"
#include "core/mdc/maestro_io.h"
#include "core/sim/simulator.h"

namespace cmd_simulate {

/// The simulated layer's figures in physical units, as `marvel search` reports a mapping's.
marvel::tech::Physical physicalOf(
    const marvel::sim::Energy& e, const marvel::sim::Totals& t, const marvel::arch::Accelerator& acc)
{
    return marvel::tech::physical(acc, {e.mac, e.l1, e.l2, e.noc, e.dram}, t.runtimeCycles);
}

int run(const std::vector<std::string>& argv);

const marvel::cli::Command kCommand{"simulate",
    "run MDC mappings step by step: exact MACs, runtime and traffic, and what every PE does per step",
    "usage: marvel simulate --hw FILE --mapping FILE.m [--layer NAME] [--frames FIRST:COUNT] [--json]\n"
    "                       [--technology NAME|FILE]\n\n"
    "  --hw FILE         accelerator: MAESTRO hardware file (.m) or JSON (.json), or a preset's name\n"
    "                    (P1, P2, eyeriss_dram, edge1024_dram: samples/accelerators)\n"
    "  --mapping FILE    MAESTRO mapping file (Network / Layer / Dimensions / Dataflow)\n"
    "  --technology T    the technology table the energies come from (samples/technology name or file)\n"
    "  --layer NAME      only this layer\n"
    "  --frames F:N      also print frames F .. F+N-1 (0-based): per PE the index ranges it holds of each\n"
    "                    tensor, elements arrived (with multicast fan-out) and kept, MACs, partial sums\n"
    "  --json            JSON: per layer name, macs, recomputed_macs, runtime_cycles, steps, frames_total,\n"
    "                    energy and energy_parts {mac, l1, l2, noc, dram} (the accelerator's units),\n"
    "                    energy_pj and energy_parts_pj {mac, l1, l2, noc, dram}, area_mm2, power_mw (the\n"
    "                    technology table's, else MAESTRO's formulas), tensors {NAME:\n"
    "                    {l2_reads, l1_writes[, l2_writes], dram_reads, dram_writes, dram_read_bytes,\n"
    "                    dram_write_bytes}} (and layout, frames); DRAM traffic over the steps of level 0\n"
    "                    (the L2 tiles), see doc/cost-model.md\n\n"
    "MACs count each multiply-accumulate of the operator once; recomputed_macs are the extra ones that\n"
    "overlapping tiles do. Simulations beyond 10^7 PE-steps are refused with what to shrink.\n"
    "exit status: 0 every layer simulated, 2 input error (bad file, invalid mapping, too large)",
    run};

nlohmann::ordered_json rangesJson(const std::vector<marvel::sim::Range>& ranges)
{
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& r : ranges)
        a.push_back({r.begin, r.end});
    return a;
}

nlohmann::ordered_json frameJson(const marvel::sim::Layout& lay, const marvel::sim::Frame& f)
{
    nlohmann::ordered_json j;
    j["index"] = f.index;
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (const auto& s : f.levels)
        levels.push_back({{"step", s.step}, {"begins", s.begins}, {"ingress", s.ingress},
            {"compute", s.compute}, {"egress", s.egress}, {"cycles", s.cycles}});
    j["levels"] = levels;
    nlohmann::ordered_json pes = nlohmann::ordered_json::array();
    for (size_t p = 0; p < f.pes.size(); ++p) {
        const auto& pe = f.pes[p];
        nlohmann::ordered_json o;
        o["pe"] = p;
        o["active"] = pe.active;
        if (pe.active) {
            o["macs"] = pe.macs;
            nlohmann::ordered_json ts;
            for (size_t t = 0; t < pe.tensors.size(); ++t) {
                const auto& s = pe.tensors[t];
                nlohmann::ordered_json x;
                x["ranges"] = rangesJson(s.ranges);
                x["held"] = s.held;
                if (lay.tensors[t].output) {
                    x["sent"] = s.sent;
                } else {
                    x["arrived"] = s.arrived;
                    x["stayed"] = s.stayed;
                    x["fanout"] = s.fanout;
                }
                ts[lay.tensors[t].name] = x;
            }
            o["tensors"] = ts;
        }
        pes.push_back(o);
    }
    j["pes"] = pes;
    return j;
}

std::string rangesText(const marvel::sim::TensorInfo& info, const std::vector<marvel::sim::Range>& ranges)
{
    std::string s;
    for (size_t k = 0; k < ranges.size(); ++k)
        s += (k ? " " : "") + info.dims[k] + "[" + std::to_string(ranges[k].begin) + ","
            + std::to_string(ranges[k].end) + ")";
    return s;
}

void printFrameText(const marvel::sim::Layout& lay, const marvel::sim::Frame& f)
{
    std::cout << "frame " << f.index;
    for (size_t l = 0; l < f.levels.size(); ++l) {
        const auto& s = f.levels[l];
        if (s.step < 0) continue;
        std::cout << "  L" << l << " step " << s.step << (s.begins ? "*" : "") << " in " << s.ingress
                  << " comp " << s.compute << " out " << s.egress << " = " << s.cycles;
    }
    std::cout << '\n';
    for (size_t p = 0; p < f.pes.size(); ++p) {
        const auto& pe = f.pes[p];
        if (!pe.active) continue;
        std::cout << "  PE " << p << ": " << pe.macs << " MACs";
        for (size_t t = 0; t < pe.tensors.size(); ++t) {
            const auto& s = pe.tensors[t];
            std::cout << " | " << lay.tensors[t].name << " " << rangesText(lay.tensors[t], s.ranges);
            if (lay.tensors[t].output)
                std::cout << " sent " << s.sent;
            else
                std::cout << " +" << s.arrived << (s.fanout > 1 ? " (x" + std::to_string(s.fanout) + ")" : "")
                          << " kept " << s.stayed;
        }
        std::cout << '\n';
    }
}

int run(const std::vector<std::string>& argv)
{
    using namespace marvel;
    cli::Args args(argv, {"hw", "mapping", "layer", "frames", "technology"}, {"json"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    if (!args.has("hw") || !args.has("mapping"))
        return cli::usageError(kCommand, "--hw and --mapping are required");
    std::int64_t first = 0, count = 0;
    if (auto f = args.value("frames")) {
        const auto colon = f->find(':');
        bool ok = colon != std::string::npos && colon > 0 && colon + 1 < f->size();
        try {
            size_t used = 0;
            if (ok) first = std::stoll(f->substr(0, colon), &used);
            ok = ok && used == colon;
            if (ok) count = std::stoll(f->substr(colon + 1), &used);
            ok = ok && used == f->size() - colon - 1 && first >= 0 && count >= 1;
        } catch (const std::exception&) {
            ok = false;
        }
        if (!ok)
            return cli::usageError(
                kCommand, "--frames must be FIRST:COUNT (e.g. 0:10), FIRST >= 0, COUNT >= 1");
    }
    const bool json = args.has("json");
    const std::string mappingPath = *args.value("mapping");

    arch::Accelerator acc;
    mdc::Network net;
    try {
        acc = cli::loadAcceleratorArg(*args.value("hw"));
        cli::applyTechnologyArg(args, acc);
        net = mdc::readMaestroMappingFile(mappingPath);
        if (net.layers.empty()) throw InputError(Diagnostic{mappingPath, {}, {}, "the file has no layer"});
        if (auto name = args.value("layer")) {
            std::vector<mdc::Layer> kept;
            std::string known;
            for (const auto& l : net.layers) {
                if (l.name == *name) kept.push_back(l);
                known += (known.empty() ? "" : ", ") + l.name;
            }
            if (kept.empty())
                throw InputError(
                    Diagnostic{mappingPath, {}, "layer", "no layer '" + *name + "' (layers: " + known + ")"});
            net.layers = std::move(kept);
        }
    } catch (const InputError& e) {
        std::cerr << "marvel simulate: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }

    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    int status = cli::Ok;
    for (const auto& layer : net.layers) {
        try {
            const cost::Problem problem = cost::fromMaestroLayer(layer, std::nullopt, mappingPath);
            sim::Simulator simulator(problem, layer.dataflow, acc);
            const sim::Layout& lay = simulator.layout();
            nlohmann::ordered_json frames = nlohmann::ordered_json::array();
            const auto started = std::chrono::steady_clock::now();
            auto lastReport = started;
            bool reported = false;
            sim::ProgressFn progress = [&](std::int64_t done, std::int64_t bound) {
                const auto now = std::chrono::steady_clock::now();
                if (now - lastReport < std::chrono::seconds(1)) return;
                lastReport = now;
                reported = true;
                std::cerr << "\rmarvel simulate: " << layer.name << ": step " << done << " of " << bound
                          << std::flush;
            };
            sim::FrameSink sink;
            if (count > 0)
                sink = [&](const sim::Frame& f) {
                    if (json)
                        frames.push_back(frameJson(lay, f));
                    else
                        printFrameText(lay, f);
                    return true;
                };
            if (count > 0 && !json)
                std::cout << "layer " << layer.name << ": frames " << first << ".." << first + count - 1
                          << '\n';
            const sim::Totals t = simulator.run(sink, first, count, progress);
            if (reported) std::cerr << '\n';
            if (json) {
                nlohmann::ordered_json o;
                o["name"] = layer.name;
                o["macs"] = t.macs;
                o["recomputed_macs"] = t.recomputedMacs;
                o["runtime_cycles"] = t.runtimeCycles;
                o["steps"] = t.steps;
                o["frames_total"] = t.frames;
                o["pe_steps"] = t.peSteps;
                const sim::Energy e = sim::energyOf(t, acc);
                o["energy"] = e.total();
                o["energy_parts"]
                    = {{"mac", e.mac}, {"l1", e.l1}, {"l2", e.l2}, {"noc", e.noc}, {"dram", e.dram}};
                const tech::Physical ph = physicalOf(e, t, acc);
                o["energy_pj"] = ph.energyPj;
                o["energy_parts_pj"] = {{"mac", ph.macPj}, {"l1", ph.l1Pj}, {"l2", ph.l2Pj},
                    {"noc", ph.nocPj}, {"dram", ph.dramPj}};
                o["area_mm2"] = ph.areaMm2;
                o["power_mw"] = ph.powerMw;
                nlohmann::ordered_json ts;
                for (const auto& x : t.tensors) {
                    nlohmann::ordered_json v;
                    v["l2_reads"] = x.l2Reads;
                    v["l1_writes"] = x.l1Writes;
                    if (x.output) v["l2_writes"] = x.l2Writes;
                    v["dram_reads"] = x.dramReads;
                    v["dram_writes"] = x.dramWrites;
                    v["dram_read_bytes"] = x.dramReadBytes;
                    v["dram_write_bytes"] = x.dramWriteBytes;
                    ts[x.name] = v;
                }
                o["tensors"] = ts;
                if (count > 0) {
                    nlohmann::ordered_json l;
                    l["pes"] = lay.pes;
                    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
                    for (const auto& lv : lay.levels)
                        levels.push_back({{"units", lv.units}, {"sub_units", lv.subUnits},
                            {"pes_per_sub_unit", lv.pesPerSubUnit}, {"directives", lv.directives},
                            {"user_directives", lv.userDirectives}});
                    l["levels"] = levels;
                    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
                    for (const auto& ti : lay.tensors)
                        tensors.push_back({{"name", ti.name}, {"output", ti.output}, {"dims", ti.dims}});
                    l["tensors"] = tensors;
                    o["layout"] = l;
                    o["frames"] = frames;
                }
                out.push_back(o);
            } else {
                const sim::Energy e = sim::energyOf(t, acc);
                std::cout << "layer " << layer.name << ": " << t.macs << " MACs (+" << t.recomputedMacs
                          << " recomputed), runtime " << t.runtimeCycles << " cycles, " << t.steps
                          << " steps, " << t.frames << " frames on " << lay.pes << " PEs\n"
                          << "  energy " << e.total()
                          << (marvel::tech::physicalUnits(acc) ? " pJ" : " MAC units") << ": MAC " << e.mac
                          << ", L1 " << e.l1 << ", L2 " << e.l2 << ", NoC " << e.noc << ", DRAM " << e.dram
                          << '\n'
                          << marvel::cli::physicalLine(physicalOf(e, t, acc), acc).substr(1);
                for (const auto& x : t.tensors) {
                    std::cout << "  " << x.name << ": ";
                    if (x.output)
                        std::cout << "L2 writes " << x.l2Writes << ", L1 writes " << x.l1Writes;
                    else
                        std::cout << "L2 reads " << x.l2Reads << ", L1 writes " << x.l1Writes;
                    std::cout << ", DRAM reads " << x.dramReads << ", writes " << x.dramWrites << " ("
                              << x.dramReadBytes << " + " << x.dramWriteBytes << " bytes)\n";
                }
            }
        } catch (const InputError& e) {
            std::cerr << "marvel simulate: " << formatDiagnostics(e.diagnostics());
            status = cli::InputError;
        }
    }
    if (json) std::cout << out.dump(2) << '\n';
    return status;
}

const bool registered = marvel::cli::registerCommand(kCommand);

} // namespace cmd_simulate
