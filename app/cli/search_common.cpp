#include "app/cli/search_common.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/conform/conformability.h"
#include "core/cost/problem.h"
#include "core/export/timeloop.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/pareto_csv.h"
#include "core/util/csv.h"
#include "core/util/text_file.h"
#include "importers/onnx/onnx_import.h"

namespace marvel::cli {

std::string searchOptionsFromArgs(Args& args, search::SearchOptions& options)
{
    if (auto o = args.value("objective")) {
        auto parsed = search::objectiveFromString(*o);
        if (!parsed) return "--objective must be runtime, energy or edp, got '" + *o + "'";
        options.objective = *parsed;
    }
    if (args.has("threads")) {
        auto t = args.integer("threads", 1, 1024);
        if (!t) return args.error();
        options.threads = static_cast<unsigned>(*t);
    }
    if (args.has("pe-util-bound")) {
        auto p = args.number("pe-util-bound", 0.0, 1.0);
        if (!p) return args.error();
        options.peUtilizationBound = *p;
    }
    if (auto f = args.value("fidelity")) {
        const std::optional<search::Fidelity> fidelity = search::fidelityFromString(*f);
        if (!fidelity) return "--fidelity must be maestro or corrected, got '" + *f + "'";
        options.fidelity = *fidelity;
    }
    if (args.has("widen-above")) {
        auto w = args.number("widen-above", 0.0, 1e9);
        if (!w) return args.error();
        if (*w > 0 && *w < 1) return "--widen-above must be 0 (never) or at least 1";
        options.widenAboveRoofline = *w;
    }
    if (args.has("no-divisors-only")) options.divisorsOnly = false;
    if (args.has("no-l1-check")) options.l1Capacity = false;
    if (args.has("no-l2-check")) options.l2Capacity = false;
    if (args.has("no-bound-skipping")) options.boundSkipping = false;
    if (args.has("exhaustive")) options.exhaustive = true;
    if (args.has("no-refine")) options.refine = false;
    if (args.has("offchip-candidates")) {
        auto k = args.integer("offchip-candidates", 1, 64);
        if (!k) return args.error();
        options.offChipCandidates = static_cast<int>(*k);
    }
    if (args.has("genetic-evaluations")) {
        auto n = args.integer("genetic-evaluations", 1, 1'000'000'000);
        if (!n) return args.error();
        options.genetic.evaluations = static_cast<std::uint64_t>(*n);
    }
    if (args.has("genetic-seed")) {
        auto n = args.integer("genetic-seed", 0, std::numeric_limits<long long>::max());
        if (!n) return args.error();
        options.genetic.seed = static_cast<std::uint64_t>(*n);
    }
    return {};
}

void printImportSummary(const workloads::Workload& workload, const std::string& path)
{
    // An imported graph always says what it left out (never dropped silently), on stderr beside the
    // results so that the JSON and CSV outputs stay as they are.
    if (!workload.notMapped.empty() || !workload.notes.empty())
        std::cerr << path << ": " << onnx_import::formatImportSummary(workload, true);
}

std::string modelOptionsFromArgs(Args& args)
{
    if (!args.has("batch")) return {};
    auto batch = args.integer("batch", 1, 1'000'000);
    if (!batch) return args.error();
    onnx_import::registerOnnxReader({.batch = *batch});
    return {};
}

std::vector<SearchLayer> layersFromOperatorFile(const std::string& path)
{
    ir::Operator op = ir::parseOperatorFile(path);
    return {SearchLayer{op.name, std::move(op), 1, {}}};
}

std::vector<SearchLayer> layersFromModel(
    const std::string& nameOrPath, const std::optional<std::string>& layer, workloads::LayerErrors mode)
{
    workloads::Workload w = workloads::loadWorkload(nameOrPath, mode);
    printImportSummary(w, nameOrPath);
    std::string names;
    for (const workloads::WorkloadLayer& l : w.layers)
        names += (names.empty() ? "" : ", ") + l.name;
    if (layer) std::erase_if(w.layers, [&](const workloads::WorkloadLayer& l) { return l.name != *layer; });
    if (w.layers.empty()) {
        Diagnostic d;
        d.file = nameOrPath;
        d.message = layer ? "model '" + w.name + "' has no layer '" + *layer + "' (layers: " + names + ")"
                          : "model '" + w.name + "' has no layers";
        throw marvel::InputError(d);
    }
    return layersFromWorkload(std::move(w));
}

std::vector<SearchLayer> layersFromWorkload(workloads::Workload workload)
{
    std::vector<SearchLayer> out;
    for (workloads::WorkloadLayer& l : workload.layers)
        out.push_back({l.name, std::move(l.op), l.repeat, std::move(l.errors)});
    return out;
}

std::string nonConformableReason(const std::vector<SearchLayer>& layers)
{
    for (const SearchLayer& l : layers) {
        if (!l.ok()) continue;
        const conform::Report report = conform::checkConformability(l.op);
        if (report.conformable) continue;
        std::string reason;
        for (std::size_t r = 0; r < report.rules.size(); ++r)
            if (!report.rules[r].ok) {
                reason = "R" + std::to_string(r + 1) + ": " + report.rules[r].reason;
                break;
            }
        return l.name + ": operator '" + l.op.name + "' is not conformable: " + reason;
    }
    return {};
}

std::string presetAcceleratorPath(const std::string& hw)
{
    const std::string name = hw == "P1" ? "P1_eyeriss.json" : hw == "P2" ? "P2_edge.json" : hw + ".json";
    for (const char* dir : {"samples/accelerators", "../samples/accelerators"}) {
        const std::filesystem::path p = std::filesystem::path(dir) / name;
        if (std::filesystem::exists(p)) return p.string();
    }
    // An installed `marvel` (bin/marvel) has its presets in share/marvel-studio/samples of its own
    // prefix, so any prefix works, whatever the working directory.
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const std::filesystem::path p
            = exe.parent_path().parent_path() / "share/marvel-studio/samples/accelerators" / name;
        if (std::filesystem::exists(p, ec)) return p.string();
    }
    return "samples/accelerators/" + name;
}

std::string acceleratorArgPath(const std::string& hw)
{
    if (std::filesystem::exists(hw)) return hw;
    if (hw.find('/') != std::string::npos || std::filesystem::path(hw).has_extension()) return hw;
    return presetAcceleratorPath(hw);
}

arch::Accelerator loadAcceleratorArg(const std::string& hw)
{
    const std::string path = acceleratorArgPath(hw);
    if (path != hw && !std::filesystem::exists(path)) {
        Diagnostic d;
        d.file = hw;
        d.message = "cannot read the file, nor is it a preset's name (P1, P2, or a file name of "
                    "samples/accelerators without .json, such as eyeriss_dram)";
        throw marvel::InputError(d);
    }
    return arch::loadAccelerator(path);
}

void applyTechnologyArg(const Args& args, arch::Accelerator& acc)
{
    const std::optional<std::string> name = args.value("technology");
    if (!name) return;
    std::shared_ptr<const tech::Technology> table;
    try {
        table = tech::loadTechnology(*name);
    } catch (const marvel::InputError& e) {
        std::vector<Diagnostic> d = e.diagnostics();
        for (Diagnostic& x : d)
            if (x.field == "technology") x.field = "--technology";
        throw marvel::InputError(std::move(d));
    }
    acc.technology = *name;
    acc.technologyTable = table;
    // The accelerator's DRAM type carries over where the new table knows it.
    if (!acc.dramType.empty() && !table->dramPjPerBit.count(acc.dramType)) acc.dramType.clear();
    tech::applyTechnology(acc);
}

tech::Physical physicalOf(const search::Metrics& m, const arch::Accelerator& acc)
{
    return tech::physical(
        acc, tech::EnergyParts{m.macEnergy, m.l1Energy, m.l2Energy, m.nocEnergy, m.dramEnergy}, m.runtime);
}

void addPhysicalJson(nlohmann::json& j, const tech::Physical& p)
{
    j["energy_pj"] = p.energyPj;
    j["energy_parts_pj"]
        = {{"mac", p.macPj}, {"l1", p.l1Pj}, {"l2", p.l2Pj}, {"noc", p.nocPj}, {"dram", p.dramPj}};
    j["area_mm2"] = p.areaMm2;
    j["power_mw"] = p.powerMw;
}

std::string physicalLine(const tech::Physical& p, const arch::Accelerator& acc)
{
    char line[512];
    std::snprintf(line, sizeof line,
        "   physical (%s): energy %s = MAC %s + L1 %s + L2 %s + NoC %s + DRAM %s; area %.4g mm2; %.4g mW at "
        "%.4g MHz%s\n",
        tech::describe(acc).c_str(), tech::formatPicojoules(p.energyPj).c_str(),
        tech::formatPicojoules(p.macPj).c_str(), tech::formatPicojoules(p.l1Pj).c_str(),
        tech::formatPicojoules(p.l2Pj).c_str(), tech::formatPicojoules(p.nocPj).c_str(),
        tech::formatPicojoules(p.dramPj).c_str(), p.areaMm2, p.powerMw, acc.clockMHz,
        p.tableArea ? (" (leakage " + std::to_string(p.leakageMw).substr(0, 6) + " mW)").c_str()
                    : " (MAESTRO's area/power formulas)");
    return line;
}

SearchedLayer searchOne(const SearchLayer& layer, const arch::Accelerator& acc,
    const search::SearchOptions& options, search::SearchSink* sink, std::stop_token stop,
    std::optional<styles::Style> style)
{
    SearchedLayer out;
    out.layer = layer;
    out.style = style;
    if (!layer.ok()) return out;
    if (style) {
        styles::StyleSearch s
            = styles::searchLayerStyle(layer.op, acc, *style, options, sink, std::move(stop));
        out.search = std::move(s.search);
        out.best = std::move(s.best);
        out.convForm = std::move(s.convForm);
    } else {
        out.search = search::searchLayer(layer.op, acc, options, sink, std::move(stop));
        out.best = out.search.result.best(options.objective);
    }
    if (auto nest = ir::perfectNest(layer.op)) out.roofline = search::roofline(*nest, layer.op.sizes, acc);
    return out;
}

std::string notMappableReason(const SearchedLayer& layer, const arch::Accelerator& acc)
{
    const search::SearchStats& st = layer.search.result.stats;
    std::string out = layer.layer.name + ": not mappable on "
        + (acc.name.empty() ? "this accelerator" : acc.name)
        + ": no mapping found fits its buffers (the cost model's requirement, double buffering included)";
    if (st.minL1Bytes >= 0)
        out += "; the smallest L1 requirement found is " + std::to_string(st.minL1Bytes)
            + " bytes per PE (L1 has " + std::to_string(acc.l1Bytes) + ")";
    if (st.minL2Bytes >= 0)
        out += ", the smallest L2 requirement " + std::to_string(st.minL2Bytes) + " bytes (L2 has "
            + std::to_string(acc.l2Bytes) + ")";
    return out;
}

std::string fidelityLine(search::Fidelity fidelity)
{
    return "cost model: " + search::toString(fidelity) + " fidelity"
        + (fidelity == search::Fidelity::Corrected
                ? " (what the mappings really move; --fidelity maestro: MAESTRO's figures)\n"
                : " (MAESTRO's figures, quirks included; --fidelity corrected: what the mappings really "
                  "move)\n");
}

std::string capacityWarning(const search::SearchOptions& options)
{
    std::string out;
    if (!options.l1Capacity)
        out += "warning: L1 capacity not checked (--no-l1-check): the mappings may not fit in L1\n";
    if (!options.l2Capacity)
        out += "warning: L2 capacity not checked (--no-l2-check): the mappings may not fit in L2\n";
    return out;
}

namespace {

/// Bytes the best mapping needs (L1 per PE, L2) and whether both fit.
nlohmann::json needsJson(const search::Candidate& c, const arch::Accelerator& acc)
{
    const std::int64_t l1 = c.metrics.l1Requirement * acc.bytesPerElement;
    const std::int64_t l2 = c.metrics.l2Requirement * acc.bytesPerElement;
    return {{"l1_bytes_per_pe", l1}, {"l2_bytes", l2}, {"fits", l1 <= acc.l1Bytes && l2 <= acc.l2Bytes}};
}

std::string mdcText(const mdc::Dataflow& df)
{
    std::string s;
    for (const mdc::Directive& d : df)
        s += d.toString() + ";\n";
    return s;
}

// The rows of the paper's search-space table, in its order: label, JSON key, figure of one layer.
struct SpaceRow
{
    const char* label;
    const char* key;
    double search::SearchSpaceSizes::*figure;
};
constexpr SpaceRow kSpaceRows[] = {
    {"original search space", "original", &search::SearchSpaceSizes::original},
    {"off-chip subspace after decoupling", "off_chip", &search::SearchSpaceSizes::offChip},
    {"on-chip subspace after decoupling", "on_chip", &search::SearchSpaceSizes::onChip},
    {"off-chip subspace after decoupling + pruning", "off_chip_pruned",
        &search::SearchSpaceSizes::offChipPruned},
    {"on-chip subspace after decoupling + pruning", "on_chip_pruned",
        &search::SearchSpaceSizes::onChipPruned},
};

nlohmann::json sizesJson(const search::LayerSearchResult& r)
{
    nlohmann::json j;
    for (const SpaceRow& row : kSpaceRows)
        j[row.key] = r.sizes.*row.figure;
    const search::SearchStats& s = r.result.stats;
    // What the search itself went through: on-chip candidates after every pruning (order equivalence
    // included), then how many the cost model evaluated, lower bounds skipped, or the model refused.
    j["candidates"] = s.onChipPruned;
    j["evaluated"] = s.evaluated;
    j["bound_skipped"] = s.boundSkipped;
    j["rejected"] = s.rejected;
    return j;
}

struct RowSummary
{
    double min = INFINITY, sum = 0, max = 0;
};

// Min / avg / max of every table row over the searched layers (each distinct layer once, as the paper
// reports per operator).
std::vector<RowSummary> summarise(const std::vector<SearchedLayer>& layers)
{
    std::vector<RowSummary> rows(std::size(kSpaceRows));
    for (const SearchedLayer& l : layers)
        for (std::size_t i = 0; i < rows.size() && l.layer.ok(); ++i) {
            const double v = l.search.sizes.*kSpaceRows[i].figure;
            rows[i].min = std::min(rows[i].min, v);
            rows[i].max = std::max(rows[i].max, v);
            rows[i].sum += v;
        }
    return rows;
}

// The parts of a mapping's energy (MAC units) and its DRAM traffic.
nlohmann::json energyPartsJson(const search::Metrics& m)
{
    return {{"mac", m.macEnergy}, {"l1", m.l1Energy}, {"l2", m.l2Energy}, {"noc", m.nocEnergy},
        {"dram", m.dramEnergy}};
}
nlohmann::json dramJson(const search::Metrics& m)
{
    return {{"reads", m.dramReads}, {"writes", m.dramWrites}, {"read_bytes", m.dramReadBytes},
        {"write_bytes", m.dramWriteBytes}};
}

// The runtime-energy front of one layer: runtime ascending, each point with the mapping in the same
// JSON form as the layer's best mapping.
nlohmann::json paretoJson(const std::vector<search::Candidate>& front)
{
    nlohmann::json out = nlohmann::json::array();
    for (const search::Candidate& c : front)
        out.push_back({{"runtime_cycles", c.metrics.runtime}, {"energy", c.metrics.energy},
            {"energy_parts", energyPartsJson(c.metrics)}, {"dram", dramJson(c.metrics)},
            {"edp", c.metrics.edp()}, {"utilization", c.metrics.utilization},
            {"mapping", mapping::toJson(c.mapping)}});
    return out;
}

// The front as a table; the rows with the best value of the objective are marked (the best mapping
// itself may be another one with that value, which a front row then beats on the other metric).
std::string paretoText(const search::SearchResult& result, search::Objective objective)
{
    std::ostringstream os;
    os << "-- runtime-energy Pareto set (" << result.pareto.size()
       << (result.pareto.size() == 1 ? " mapping" : " mappings") << ")\n";
    char line[256];
    std::snprintf(
        line, sizeof line, "   %16s %14s %14s %12s\n", "runtime cycles", "energy", "EDP", "utilization");
    os << line;
    const std::optional<search::Candidate>& best = result.best(objective);
    auto value = [&](const search::Metrics& m) {
        return objective == search::Objective::Runtime ? static_cast<double>(m.runtime)
            : objective == search::Objective::Energy   ? m.energy
                                                       : m.edp();
    };
    for (const search::Candidate& c : result.pareto) {
        const std::string mark = best && value(c.metrics) == value(best->metrics)
            ? "  <- best " + search::toString(objective)
            : std::string();
        std::snprintf(line, sizeof line, "   %16lld %14.6g %14.6g %12.3f%s\n",
            static_cast<long long>(c.metrics.runtime), c.metrics.energy, c.metrics.edp(),
            c.metrics.utilization, mark.c_str());
        os << line;
    }
    return os.str();
}

// Each problem of a bad layer as its formatted text ("file:line:col: message").
nlohmann::json diagnosticsJson(const std::vector<Diagnostic>& diagnostics)
{
    nlohmann::json out = nlohmann::json::array();
    for (const Diagnostic& d : diagnostics)
        out.push_back(d.format());
    return out;
}

// The style the layers were searched under ("marvel" for the full search).
std::string styleName(const std::vector<SearchedLayer>& layers)
{
    for (const SearchedLayer& l : layers)
        if (l.style) return styles::toString(*l.style);
    return "marvel";
}

} // namespace

std::string paretoCsv(const std::vector<SearchedLayer>& layers)
{
    std::string out = search::paretoCsvHeader(); // the app's plot writes the same (core/search/pareto_csv.h)
    for (const SearchedLayer& l : layers)
        out += search::paretoCsvRows(l.layer.name, l.search.result.pareto);
    return out;
}

nlohmann::json searchJson(const std::vector<SearchedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc)
{
    nlohmann::json out;
    out["objective"] = search::toString(options.objective);
    out["fidelity"] = search::toString(options.fidelity);
    out["style"] = styleName(layers);
    out["capacity_checked"] = {{"l1", options.l1Capacity}, {"l2", options.l2Capacity}};
    out["technology"] = tech::describe(acc);
    nlohmann::json array = nlohmann::json::array();
    std::int64_t totalRuntime = 0, totalRoofline = 0;
    std::uint64_t evaluated = 0;
    std::size_t searchedLayers = 0;
    for (const SearchedLayer& l : layers) {
        if (!l.layer.ok()) {
            array.push_back({{"name", l.layer.name}, {"repeat", l.layer.repeat}, {"status", "error"},
                {"errors", diagnosticsJson(l.layer.errors)}});
            continue;
        }
        ++searchedLayers;
        if (!l.best) {
            const search::SearchStats& st = l.search.result.stats;
            array.push_back({{"name", l.layer.name}, {"repeat", l.layer.repeat}, {"status", "not_mappable"},
                {"reason", notMappableReason(l, acc)},
                {"smallest_requirement", {{"l1_bytes_per_pe", st.minL1Bytes}, {"l2_bytes", st.minL2Bytes}}},
                {"capacity", {{"l1_bytes_per_pe", acc.l1Bytes}, {"l2_bytes", acc.l2Bytes}}},
                {"evaluated", l.search.result.evaluated}, {"roofline_cycles", l.roofline.cycles}});
            continue;
        }
        const search::Candidate& c = *l.best;
        nlohmann::json j;
        j["name"] = l.layer.name;
        j["status"] = "ok";
        j["buffers"] = needsJson(c, acc);
        j["macs"] = c.metrics.macs;
        j["runtime_cycles"] = c.metrics.runtime;
        j["energy"] = c.metrics.energy;
        j["energy_parts"] = energyPartsJson(c.metrics);
        j["dram"] = dramJson(c.metrics);
        j["edp"] = c.metrics.edp();
        addPhysicalJson(j, physicalOf(c.metrics, acc));
        j["roofline_cycles"] = l.roofline.cycles;
        if (const std::string note = search::belowRooflineNote(c.metrics.runtime, l.roofline); !note.empty())
            j["below_roofline"] = note;
        j["mapping"] = mapping::toJson(c.mapping);
        j["mdc"] = mdcText(c.dataflow);
        j["evaluated"] = l.search.result.evaluated;
        j["seconds"] = l.search.result.seconds;
        j["truncated"] = l.search.result.truncated;
        j["widened_to_non_divisors"] = l.search.result.stats.widened;
        // Mappings whose figure no execution can have (status maestro-undercount in `marvel evaluate`):
        // refused, never ranked (doc/search.md, "Impossible figures").
        j["maestro_undercount_refused"] = l.search.result.stats.impossibleFigures;
        j["refined"] = l.search.result.stats.refined;
        j["offchip_solutions"] = l.search.result.stats.offChipSolutions;
        j["repeat"] = l.layer.repeat;
        j["search_space"] = sizesJson(l.search);
        if (!l.convForm.empty()) j["conv_form"] = l.convForm;
        j["pareto"] = paretoJson(l.search.result.pareto);
        array.push_back(std::move(j));
        totalRuntime += c.metrics.runtime * l.layer.repeat;
        totalRoofline += l.roofline.cycles * l.layer.repeat;
        evaluated += l.search.result.evaluated;
    }
    const double n = std::max<double>(1, static_cast<double>(searchedLayers));
    out["layers"] = std::move(array);
    out["total_runtime_cycles"] = totalRuntime;
    out["total_roofline_cycles"] = totalRoofline;
    out["elapsed_seconds"] = elapsed;
    nlohmann::json space = {{"layers", searchedLayers}, {"evaluated", evaluated}};
    const std::vector<RowSummary> rows = summarise(layers);
    for (std::size_t i = 0; i < rows.size(); ++i)
        space[kSpaceRows[i].key] = {
            {"min", searchedLayers == 0 ? 0.0 : rows[i].min}, {"avg", rows[i].sum / n}, {"max", rows[i].max}};
    out["search_space"] = std::move(space);
    return out;
}

std::string searchText(const std::vector<SearchedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc)
{
    std::ostringstream os;
    os << capacityWarning(options);
    if (const std::string style = styleName(layers); style == "genetic")
        os << "style: genetic (" << styles::description(styles::Style::Genetic) << "): seed "
           << options.genetic.seed << ", at most " << options.genetic.evaluations
           << " cost-model evaluations per layer\n\n";
    else if (style != "marvel")
        os << "style: " << style << " (" << styles::description(*styles::styleFromString(style))
           << "): the search is restricted to the style's parallel loops and loop orders\n\n";
    os << fidelityLine(options.fidelity) << '\n';
    std::int64_t totalRuntime = 0, totalRoofline = 0;
    std::size_t searchedLayers = 0;
    for (const SearchedLayer& l : layers) {
        if (!l.layer.ok()) {
            os << "== " << l.layer.name << ": error: " << formatDiagnostics(l.layer.errors) << '\n';
            continue;
        }
        ++searchedLayers;
        if (!l.best) {
            os << "== " << notMappableReason(l, acc) << "\n\n";
            continue;
        }
        const search::Candidate& c = *l.best;
        const double ratio = l.roofline.cycles > 0
            ? static_cast<double>(c.metrics.runtime) / static_cast<double>(l.roofline.cycles)
            : 0.0;
        char line[1024];
        std::snprintf(line, sizeof line,
            "== %s%s: best %s\n   runtime %lld cycles (roofline %lld, ratio %.3f), energy %.6g, EDP %.6g, "
            "MACs %lld\n"
            "   energy: MAC %.6g + L1 %.6g + L2 %.6g + NoC %.6g + DRAM %.6g; DRAM: %lld elements read, %lld "
            "written "
            "(%lld + %lld bytes)\n"
            "   buffers: L1 %lld of %lld bytes per PE, L2 %lld of %lld bytes\n"
            "   %llu mappings evaluated in %.2f s (space: original %.3g, off-chip %.3g -> %.3g pruned, "
            "on-chip %.3g -> %.3g pruned)\n",
            l.layer.name.c_str(),
            l.layer.repeat > 1 ? (" (x" + std::to_string(l.layer.repeat) + ")").c_str() : "",
            search::toString(options.objective).c_str(), static_cast<long long>(c.metrics.runtime),
            static_cast<long long>(l.roofline.cycles), ratio, c.metrics.energy, c.metrics.edp(),
            static_cast<long long>(c.metrics.macs), c.metrics.macEnergy, c.metrics.l1Energy,
            c.metrics.l2Energy, c.metrics.nocEnergy, c.metrics.dramEnergy,
            static_cast<long long>(c.metrics.dramReads), static_cast<long long>(c.metrics.dramWrites),
            static_cast<long long>(c.metrics.dramReadBytes), static_cast<long long>(c.metrics.dramWriteBytes),
            static_cast<long long>(c.metrics.l1Requirement * acc.bytesPerElement),
            static_cast<long long>(acc.l1Bytes),
            static_cast<long long>(c.metrics.l2Requirement * acc.bytesPerElement),
            static_cast<long long>(acc.l2Bytes), static_cast<unsigned long long>(l.search.result.evaluated),
            l.search.result.seconds, l.search.sizes.original, l.search.sizes.offChip,
            l.search.sizes.offChipPruned, l.search.sizes.onChip, l.search.sizes.onChipPruned);
        os << line << physicalLine(physicalOf(c.metrics, acc), acc);
        if (const std::string note = search::belowRooflineNote(c.metrics.runtime, l.roofline); !note.empty())
            os << "   note: runtime " << note << '\n';
        if (const std::uint64_t n = l.search.result.stats.impossibleFigures; n > 0)
            os << "   maestro-undercount: " << n << " mapping" << (n == 1 ? "" : "s")
               << " refused, their runtime below the compute bound or their MAC count wrong "
                  "(doc/search.md)\n";
        if (!l.convForm.empty()) os << "   searched in convolution form: " << l.convForm << '\n';
        os << "-- tiled loop nest\n"
           << mapping::printTiledLoopNest(c.mapping, l.search.space.body) << "-- MDC\n"
           << mdcText(c.dataflow) << paretoText(l.search.result, options.objective) << '\n';
        totalRuntime += c.metrics.runtime * l.layer.repeat;
        totalRoofline += l.roofline.cycles * l.layer.repeat;
    }
    if (layers.size() > 1) {
        os << "total runtime " << totalRuntime << " cycles, roofline " << totalRoofline << " cycles\n";
        os << "search space over " << searchedLayers << " layers (min / avg / max):\n";
        const std::vector<RowSummary> rows = summarise(layers);
        for (std::size_t i = 0; i < rows.size() && searchedLayers > 0; ++i) {
            char line[160];
            std::snprintf(line, sizeof line, "  %-46s %9.2g %9.2g %9.2g\n", kSpaceRows[i].label, rows[i].min,
                rows[i].sum / static_cast<double>(searchedLayers), rows[i].max);
            os << line;
        }
    }
    os << "elapsed " << elapsed << " s\n";
    return os.str();
}

namespace {

/// Totals and per-layer ratio products of one column (Marvel or a style) of the comparison.
struct CompareTotals
{
    std::int64_t runtime = 0;
    double energy = 0.0;
    double logRuntimeRatio = 0.0, logEnergyRatio = 0.0;
    int layers = 0; ///< layers where both Marvel and the style found a mapping
};

double ratio(double style, double marvel)
{
    return marvel > 0 ? style / marvel : 0.0;
}

/// Per style (allStyles order): totals over the layers every column mapped, and the log-ratio sums.
/// Marvel's totals are over the same layers.
std::pair<CompareTotals, std::vector<CompareTotals>> compareTotals(const std::vector<ComparedLayer>& layers)
{
    const std::size_t n = styles::allStyles().size();
    CompareTotals marvel;
    std::vector<CompareTotals> out(n);
    for (const ComparedLayer& l : layers) {
        if (!l.marvel.best) continue;
        bool all = l.styles.size() == n;
        for (const SearchedLayer& s : l.styles)
            all = all && s.best;
        const search::Metrics& m = l.marvel.best->metrics;
        const int repeat = l.marvel.layer.repeat;
        for (std::size_t i = 0; i < l.styles.size() && i < n; ++i) {
            if (!l.styles[i].best) continue;
            const search::Metrics& sm = l.styles[i].best->metrics;
            out[i].logRuntimeRatio
                += repeat * std::log(ratio(static_cast<double>(sm.runtime), static_cast<double>(m.runtime)));
            out[i].logEnergyRatio += repeat * std::log(ratio(sm.energy, m.energy));
            out[i].layers += repeat;
            if (all) {
                out[i].runtime += sm.runtime * repeat;
                out[i].energy += sm.energy * repeat;
            }
        }
        if (all) {
            marvel.runtime += m.runtime * repeat;
            marvel.energy += m.energy * repeat;
            marvel.layers += repeat;
        }
    }
    return {marvel, out};
}

double geomean(double logSum, int count)
{
    return count > 0 ? std::exp(logSum / count) : 0.0;
}

} // namespace

nlohmann::json compareStylesJson(
    const std::vector<ComparedLayer>& layers, const search::SearchOptions& options, double elapsed)
{
    nlohmann::json out;
    out["objective"] = search::toString(options.objective);
    out["ratios"] = "style / marvel: above 1 where Marvel's mapping is better";
    nlohmann::json names = nlohmann::json::array();
    for (styles::Style st : styles::allStyles())
        names.push_back(styles::toString(st));
    out["styles"] = names;
    nlohmann::json array = nlohmann::json::array();
    for (const ComparedLayer& l : layers) {
        nlohmann::json j;
        j["name"] = l.marvel.layer.name;
        j["repeat"] = l.marvel.layer.repeat;
        j["roofline_cycles"] = l.marvel.roofline.cycles;
        if (!l.marvel.best) {
            j["marvel"] = {{"status", l.marvel.layer.ok() ? "not_mappable" : "error"}};
            array.push_back(std::move(j));
            continue;
        }
        const search::Metrics& m = l.marvel.best->metrics;
        j["marvel"] = {{"status", "ok"}, {"runtime_cycles", m.runtime}, {"energy", m.energy},
            {"mapping", mapping::toJson(l.marvel.best->mapping)}};
        nlohmann::json st = nlohmann::json::object();
        for (const SearchedLayer& s : l.styles) {
            nlohmann::json e;
            if (!s.best) {
                const search::SearchStats& st = s.search.result.stats;
                e = {{"status", "not_mappable"},
                    {"smallest_requirement",
                        {{"l1_bytes_per_pe", st.minL1Bytes}, {"l2_bytes", st.minL2Bytes}}}};
            } else {
                const search::Metrics& sm = s.best->metrics;
                e = {{"status", "ok"}, {"runtime_cycles", sm.runtime}, {"energy", sm.energy},
                    {"runtime_ratio", ratio(static_cast<double>(sm.runtime), static_cast<double>(m.runtime))},
                    {"energy_ratio", ratio(sm.energy, m.energy)},
                    {"mapping", mapping::toJson(s.best->mapping)}};
            }
            if (!s.convForm.empty()) e["conv_form"] = s.convForm;
            st[styles::toString(*s.style)] = std::move(e);
        }
        j["styles"] = std::move(st);
        array.push_back(std::move(j));
    }
    out["layers"] = std::move(array);
    const auto [marvel, totals] = compareTotals(layers);
    nlohmann::json total = {{"marvel", {{"runtime_cycles", marvel.runtime}, {"energy", marvel.energy}}},
        {"layers", marvel.layers}};
    nlohmann::json perStyle = nlohmann::json::object();
    for (std::size_t i = 0; i < totals.size(); ++i) {
        const CompareTotals& t = totals[i];
        perStyle[styles::toString(styles::allStyles()[i])]
            = {{"runtime_cycles", t.runtime}, {"energy", t.energy},
                {"runtime_ratio", ratio(static_cast<double>(t.runtime), static_cast<double>(marvel.runtime))},
                {"energy_ratio", ratio(t.energy, marvel.energy)},
                {"geomean_runtime_ratio", geomean(t.logRuntimeRatio, t.layers)},
                {"geomean_energy_ratio", geomean(t.logEnergyRatio, t.layers)}, {"geomean_layers", t.layers}};
    }
    total["styles"] = std::move(perStyle);
    out["total"] = std::move(total);
    out["elapsed_seconds"] = elapsed;
    return out;
}

std::string compareStylesText(const std::vector<ComparedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc)
{
    std::ostringstream os;
    os << "best " << search::toString(options.objective)
       << " mapping of Marvel and of each style; ratios are style / Marvel (above 1: Marvel is better)\n";
    char line[256];
    auto header = [&] {
        std::snprintf(line, sizeof line, "   %-44s %16s %14s %10s %10s\n", "search", "runtime cycles",
            "energy", "runtime x", "energy x");
        os << line;
    };
    auto row = [&](const std::string& label, std::int64_t runtime, double energy, double rr, double er) {
        std::snprintf(line, sizeof line, "   %-44s %16lld %14.6g %10.3f %10.3f\n", label.c_str(),
            static_cast<long long>(runtime), energy, rr, er);
        os << line;
    };
    auto label = [](styles::Style s) { return styles::toString(s) + " (" + styles::description(s) + ")"; };
    for (const ComparedLayer& l : layers) {
        os << "== " << l.marvel.layer.name
           << (l.marvel.layer.repeat > 1 ? " (x" + std::to_string(l.marvel.layer.repeat) + ")"
                                         : std::string())
           << '\n';
        if (!l.marvel.best) {
            os << "   no mapping found by Marvel's search\n\n";
            continue;
        }
        header();
        const search::Metrics& m = l.marvel.best->metrics;
        row("marvel", m.runtime, m.energy, 1.0, 1.0);
        for (const SearchedLayer& s : l.styles) {
            if (!s.best) {
                os << "   " << label(*s.style) << ": "
                   << (s.search.result.notMappable() ? notMappableReason(s, acc) : "no mapping found")
                   << '\n';
                continue;
            }
            const search::Metrics& sm = s.best->metrics;
            row(label(*s.style), sm.runtime, sm.energy,
                ratio(static_cast<double>(sm.runtime), static_cast<double>(m.runtime)),
                ratio(sm.energy, m.energy));
            if (!s.convForm.empty()) os << "      searched in convolution form: " << s.convForm << '\n';
        }
        os << '\n';
    }
    const auto [marvel, totals] = compareTotals(layers);
    os << "== total over " << marvel.layers << " layer(s) (with repeats) that every search mapped\n";
    header();
    row("marvel", marvel.runtime, marvel.energy, 1.0, 1.0);
    for (std::size_t i = 0; i < totals.size(); ++i)
        row(label(styles::allStyles()[i]), totals[i].runtime, totals[i].energy,
            ratio(static_cast<double>(totals[i].runtime), static_cast<double>(marvel.runtime)),
            ratio(totals[i].energy, marvel.energy));
    os << "geometric mean of the per-layer ratios (runtime x, energy x):\n";
    for (std::size_t i = 0; i < totals.size(); ++i) {
        std::snprintf(line, sizeof line, "   %-44s %10.3f %10.3f\n", label(styles::allStyles()[i]).c_str(),
            geomean(totals[i].logRuntimeRatio, totals[i].layers),
            geomean(totals[i].logEnergyRatio, totals[i].layers));
        os << line;
    }
    os << "elapsed " << elapsed << " s\n";
    return os.str();
}

void exportMdc(const std::vector<SearchedLayer>& layers, const std::string& path)
{
    std::vector<cost::NamedMapping> mapped;
    for (const SearchedLayer& l : layers)
        if (l.best) mapped.push_back({l.layer.name, &l.search.problem, &l.best->dataflow});
    const std::string name = layers.size() == 1 ? layers.front().layer.name : "marvel_search";
    writeTextFileAtomically(path, cost::maestroMappingFile(name, mapped, path), "the mapping file");
}

void exportTimeloop(const std::vector<SearchedLayer>& layers, const arch::Accelerator& acc,
    const std::string& dir, std::ostream& report, const timeloop::Options& options)
{
    std::vector<mdc::Dataflow> dataflows;
    dataflows.reserve(layers.size());
    for (const SearchedLayer& l : layers)
        dataflows.push_back(l.best ? search::outputRowDataflow(*l.best, acc) : mdc::Dataflow{});
    std::vector<timeloop::LayerToExport> todo;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const SearchedLayer& l = layers[i];
        if (l.best)
            todo.push_back({l.layer.name, &l.search.problem, &dataflows[i]});
        else
            report << "timeloop: " << l.layer.name << ": not exported: "
                   << (l.layer.ok() ? "the search found no mapping that fits the buffers"
                                    : "the layer could not be searched")
                   << '\n';
    }
    for (const auto& r : timeloop::exportLayers(todo, acc, dir, options))
        report << "timeloop: " << r.layer << ": " << r.message << '\n';
}

std::string timeloopOptionsFromArgs(Args& args, timeloop::Options& options)
{
    if (!args.has("timeloop-buffering")) return {};
    const auto b = args.integer("timeloop-buffering", 1, 2);
    if (!b) return args.error();
    options.multipleBuffering = int(*b);
    return {};
}

} // namespace marvel::cli
