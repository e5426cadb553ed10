#include "app/cli/search_report.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/search/pareto_csv.h"
#include "core/workloads/transformer.h"

namespace marvel::cli {

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

// The model's totals as the app's Model panel shows them (ui/window/model_panel.cpp, ModelTableModel):
// the best mappings' runtime and energy and the layers' rooflines, each layer counted `repeat` times,
// over the layers that have a best mapping; the ratio is the total runtime over the total roofline.
struct ModelTotals
{
    std::int64_t runtime = 0, roofline = 0;
    double energy = 0.0;
    std::size_t mapped = 0; ///< layers with a best mapping (each once)
    double ratio() const
    {
        return roofline > 0 ? static_cast<double>(runtime) / static_cast<double>(roofline) : 0.0;
    }
};

ModelTotals modelTotals(const std::vector<SearchedLayer>& layers)
{
    ModelTotals t;
    for (const SearchedLayer& l : layers) {
        if (!l.best) continue;
        t.runtime += l.best->metrics.runtime * l.layer.repeat;
        t.energy += l.best->metrics.energy * l.layer.repeat;
        t.roofline += l.roofline.cycles * l.layer.repeat;
        ++t.mapped;
    }
    return t;
}

// The searched layers' totals per kind (conv, gemm, attention, softmax...), kinds in LayerKind order, so a
// transformer's report says what share of its cycles and energy the attention and the operators that are
// not matrix products take.
struct KindTotals
{
    workloads::LayerKind kind;
    std::size_t layers = 0;
    std::int64_t runtime = 0, dramReads = 0, dramWrites = 0;
    double energy = 0.0;
};

std::vector<KindTotals> totalsByKind(const std::vector<SearchedLayer>& layers)
{
    std::map<workloads::LayerKind, KindTotals> byKind;
    for (const SearchedLayer& l : layers) {
        if (!l.best) continue;
        KindTotals& t = byKind.try_emplace(l.layer.kind, KindTotals{l.layer.kind}).first->second;
        ++t.layers;
        t.runtime += l.best->metrics.runtime * l.layer.repeat;
        t.energy += l.best->metrics.energy * l.layer.repeat;
        t.dramReads += l.best->metrics.dramReads * l.layer.repeat;
        t.dramWrites += l.best->metrics.dramWrites * l.layer.repeat;
    }
    std::vector<KindTotals> out;
    for (auto& [kind, t] : byKind)
        out.push_back(t);
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
        j["kind"] = workloads::toString(l.layer.kind);
        j["status"] = "ok";
        j["buffers"] = needsJson(c, acc);
        j["macs"] = c.metrics.macs;
        j["element_ops"] = workloads::elementOps(l.layer.op);
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
        evaluated += l.search.result.evaluated;
    }
    const double n = std::max<double>(1, static_cast<double>(searchedLayers));
    out["layers"] = std::move(array);
    const ModelTotals totals = modelTotals(layers);
    out["total_runtime_cycles"] = totals.runtime;
    out["total_roofline_cycles"] = totals.roofline;
    out["total_energy"] = totals.energy;
    out["total_roofline_ratio"] = totals.ratio();
    nlohmann::json kinds = nlohmann::json::array();
    for (const KindTotals& k : totalsByKind(layers))
        kinds.push_back(
            {{"kind", workloads::toString(k.kind)}, {"layers", k.layers}, {"runtime_cycles", k.runtime},
                {"energy", k.energy}, {"dram_reads", k.dramReads}, {"dram_writes", k.dramWrites},
                {"runtime_share", totals.runtime > 0 ? double(k.runtime) / double(totals.runtime) : 0.0},
                {"energy_share", totals.energy > 0 ? k.energy / totals.energy : 0.0}});
    out["totals_by_kind"] = std::move(kinds);
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
            "== %s%s%s: best %s\n   runtime %lld cycles (roofline %lld, ratio %.3f), energy %.6g, EDP %.6g, "
            "MACs %lld\n"
            "   energy: MAC %.6g + L1 %.6g + L2 %.6g + NoC %.6g + DRAM %.6g; DRAM: %lld elements read, %lld "
            "written "
            "(%lld + %lld bytes)\n"
            "   buffers: L1 %lld of %lld bytes per PE, L2 %lld of %lld bytes\n"
            "   %llu mappings evaluated in %.2f s (space: original %.3g, off-chip %.3g -> %.3g pruned, "
            "on-chip %.3g -> %.3g pruned)\n",
            l.layer.name.c_str(),
            l.layer.repeat > 1 ? (" (x" + std::to_string(l.layer.repeat) + ")").c_str() : "",
            // The kinds a CNN has go without saying; a transformer's attention and other operators are named.
            l.layer.kind == workloads::LayerKind::Operator || l.layer.kind == workloads::LayerKind::Conv
                    || l.layer.kind == workloads::LayerKind::Depthwise
                    || l.layer.kind == workloads::LayerKind::Gemm
                ? ""
                : (std::string(" [") + workloads::toString(l.layer.kind) + "]").c_str(),
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
    }
    if (layers.size() > 1) {
        // The figures of the app's model totals, with the same definitions.
        const ModelTotals totals = modelTotals(layers);
        char line[256];
        std::snprintf(line, sizeof line,
            "total runtime %lld cycles, roofline %lld cycles (ratio %.3f), energy %.6g; over %zu of %zu "
            "layers "
            "(repeats counted)\n",
            static_cast<long long>(totals.runtime), static_cast<long long>(totals.roofline), totals.ratio(),
            totals.energy, totals.mapped, layers.size());
        os << line;
        if (const std::vector<KindTotals> kinds = totalsByKind(layers); kinds.size() > 1) {
            os << "by kind (share of the cycles, of the energy; DRAM elements read + written):\n";
            for (const KindTotals& k : kinds) {
                std::snprintf(line, sizeof line, "  %-12s %3zu layers %6.1f%% %6.1f%%  %lld + %lld\n",
                    workloads::toString(k.kind), k.layers,
                    totals.runtime > 0 ? 100.0 * double(k.runtime) / double(totals.runtime) : 0.0,
                    totals.energy > 0 ? 100.0 * k.energy / totals.energy : 0.0,
                    static_cast<long long>(k.dramReads), static_cast<long long>(k.dramWrites));
                os << line;
            }
        }
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

} // namespace marvel::cli
