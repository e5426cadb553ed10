#include "app/cli/search_common.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/conform/conformability.h"
#include "core/cost/problem.h"
#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/workloads/workloads.h"

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
        if (*f == "maestro")
            options.fidelity = search::Fidelity::Maestro;
        else if (*f == "corrected")
            options.fidelity = search::Fidelity::Corrected;
        else
            return "--fidelity must be maestro or corrected, got '" + *f + "'";
    }
    options.divisorsOnly = !args.has("no-divisors-only");
    options.l1Capacity = !args.has("no-l1-check");
    options.boundSkipping = !args.has("no-bound-skipping");
    options.exhaustive = args.has("exhaustive");
    return {};
}

std::vector<SearchLayer> layersFromOperatorFile(const std::string& path)
{
    ir::Operator op = ir::parseOperatorFile(path);
    return {SearchLayer{op.name, std::move(op), 1}};
}

std::vector<SearchLayer> layersFromModel(
    const std::string& nameOrPath, const std::optional<std::string>& layer)
{
    workloads::Workload w = workloads::loadWorkload(nameOrPath);
    std::vector<SearchLayer> out;
    std::string names;
    for (workloads::WorkloadLayer& l : w.layers) {
        names += (names.empty() ? "" : ", ") + l.name;
        if (!layer || *layer == l.name) out.push_back({l.name, std::move(l.op), l.repeat});
    }
    if (out.empty()) {
        Diagnostic d;
        d.file = nameOrPath;
        d.message = layer ? "model '" + w.name + "' has no layer '" + *layer + "' (layers: " + names + ")"
                          : "model '" + w.name + "' has no layers";
        throw marvel::InputError(d);
    }
    return out;
}

std::string nonConformableReason(const std::vector<SearchLayer>& layers)
{
    for (const SearchLayer& l : layers) {
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

SearchedLayer searchOne(const SearchLayer& layer, const arch::Accelerator& acc,
    const search::SearchOptions& options, search::SearchSink* sink)
{
    SearchedLayer out;
    out.layer = layer;
    out.search = search::searchLayer(layer.op, acc, options, sink);
    out.best = out.search.result.best(options.objective);
    if (auto nest = ir::perfectNest(layer.op)) out.roofline = search::roofline(*nest, layer.op.sizes, acc);
    return out;
}

namespace {

std::string mdcText(const mdc::Dataflow& df)
{
    std::string s;
    for (const mdc::Directive& d : df)
        s += d.toString() + ";\n";
    return s;
}

nlohmann::json sizesJson(const search::SearchStats& s)
{
    return {{"original", s.originalSpace}, {"off_chip", s.offChipSpace}, {"on_chip", s.onChipSpace},
        {"on_chip_pruned", s.onChipPruned}, {"tiles", s.tiles}, {"evaluated", s.evaluated},
        {"bound_skipped", s.boundSkipped}, {"rejected", s.rejected}};
}

} // namespace

nlohmann::json searchJson(
    const std::vector<SearchedLayer>& layers, const search::SearchOptions& options, double elapsed)
{
    nlohmann::json out;
    out["objective"] = search::toString(options.objective);
    nlohmann::json array = nlohmann::json::array();
    std::int64_t totalRuntime = 0, totalRoofline = 0;
    double minOriginal = INFINITY, maxOriginal = 0, sumOriginal = 0, sumOff = 0, sumOn = 0, sumPruned = 0;
    std::uint64_t evaluated = 0;
    for (const SearchedLayer& l : layers) {
        const search::Candidate& c = *l.best;
        nlohmann::json j;
        j["name"] = l.layer.name;
        j["macs"] = c.metrics.macs;
        j["runtime_cycles"] = c.metrics.runtime;
        j["energy"] = c.metrics.energy;
        j["edp"] = c.metrics.edp();
        j["roofline_cycles"] = l.roofline.cycles;
        j["mapping"] = mapping::toJson(c.mapping);
        j["mdc"] = mdcText(c.dataflow);
        j["evaluated"] = l.search.result.evaluated;
        j["seconds"] = l.search.result.seconds;
        j["repeat"] = l.layer.repeat;
        j["search_space"] = sizesJson(l.search.result.stats);
        array.push_back(std::move(j));
        totalRuntime += c.metrics.runtime * l.layer.repeat;
        totalRoofline += l.roofline.cycles * l.layer.repeat;
        const search::SearchStats& s = l.search.result.stats;
        minOriginal = std::min(minOriginal, s.originalSpace);
        maxOriginal = std::max(maxOriginal, s.originalSpace);
        sumOriginal += s.originalSpace;
        sumOff += s.offChipSpace;
        sumOn += s.onChipSpace;
        sumPruned += s.onChipPruned;
        evaluated += l.search.result.evaluated;
    }
    const double n = std::max<double>(1, static_cast<double>(layers.size()));
    out["layers"] = std::move(array);
    out["total_runtime_cycles"] = totalRuntime;
    out["total_roofline_cycles"] = totalRoofline;
    out["elapsed_seconds"] = elapsed;
    out["search_space"] = {{"layers", layers.size()}, {"original_min", layers.empty() ? 0.0 : minOriginal},
        {"original_avg", sumOriginal / n}, {"original_max", maxOriginal}, {"off_chip_avg", sumOff / n},
        {"on_chip_avg", sumOn / n}, {"on_chip_pruned_avg", sumPruned / n}, {"evaluated", evaluated}};
    return out;
}

std::string searchText(
    const std::vector<SearchedLayer>& layers, const search::SearchOptions& options, double elapsed)
{
    std::ostringstream os;
    std::int64_t totalRuntime = 0, totalRoofline = 0;
    for (const SearchedLayer& l : layers) {
        const search::Candidate& c = *l.best;
        const double ratio = l.roofline.cycles > 0
            ? static_cast<double>(c.metrics.runtime) / static_cast<double>(l.roofline.cycles)
            : 0.0;
        char line[512];
        std::snprintf(line, sizeof line,
            "== %s%s: best %s\n   runtime %lld cycles (roofline %lld, ratio %.3f), energy %.6g, EDP %.6g, "
            "MACs %lld\n"
            "   %llu mappings evaluated in %.2f s (space: original %.3g, on-chip %.3g, pruned %.3g)\n",
            l.layer.name.c_str(),
            l.layer.repeat > 1 ? (" (x" + std::to_string(l.layer.repeat) + ")").c_str() : "",
            search::toString(options.objective).c_str(), static_cast<long long>(c.metrics.runtime),
            static_cast<long long>(l.roofline.cycles), ratio, c.metrics.energy, c.metrics.edp(),
            static_cast<long long>(c.metrics.macs),
            static_cast<unsigned long long>(l.search.result.evaluated), l.search.result.seconds,
            l.search.result.stats.originalSpace, l.search.result.stats.onChipSpace,
            l.search.result.stats.onChipPruned);
        os << line << "-- tiled loop nest\n"
           << mapping::printTiledLoopNest(c.mapping, l.search.space.body) << "-- MDC\n"
           << mdcText(c.dataflow) << '\n';
        totalRuntime += c.metrics.runtime * l.layer.repeat;
        totalRoofline += l.roofline.cycles * l.layer.repeat;
    }
    if (layers.size() > 1)
        os << "total runtime " << totalRuntime << " cycles, roofline " << totalRoofline << " cycles\n";
    os << "elapsed " << elapsed << " s\n";
    return os.str();
}

void exportMdc(const std::vector<SearchedLayer>& layers, const std::string& path)
{
    mdc::Network network;
    network.name = layers.size() == 1 ? layers.front().layer.name : "marvel_search";
    for (const SearchedLayer& l : layers) {
        std::optional<mdc::Layer> layer = cost::toMaestroLayer(l.search.problem, l.best->dataflow);
        if (!layer) {
            Diagnostic d;
            d.file = path;
            d.message
                = "layer '" + l.layer.name + "' has no MAESTRO layer type (CONV, DSCONV or GEMM) to export";
            throw marvel::InputError(d);
        }
        layer->name = l.layer.name;
        network.layers.push_back(std::move(*layer));
    }
    const std::string text = mdc::writeMaestroMapping(network);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            Diagnostic d;
            d.file = path;
            d.message = "cannot write the mapping file";
            throw marvel::InputError(d);
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        Diagnostic d;
        d.file = path;
        d.message = "cannot write the mapping file";
        throw marvel::InputError(d);
    }
}

} // namespace marvel::cli
