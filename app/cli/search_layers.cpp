#include "app/cli/search_layers.h"

#include <iostream>

#include "core/conform/conformability.h"
#include "core/ir/parser.h"
#include "importers/onnx/onnx_import.h"

namespace marvel::cli {

void printImportSummary(const workloads::Workload& workload, const std::string& path)
{
    // An imported graph always says what it left out (never dropped silently), on stderr beside the
    // results so that the JSON and CSV outputs stay as they are.
    if (!workload.notMapped.empty() || !workload.notes.empty())
        std::cerr << path << ": " << onnx_import::formatImportSummary(workload, true);
}

std::vector<SearchLayer> layersFromOperatorFile(const std::string& path)
{
    ir::Operator op = ir::parseOperatorFile(path);
    return {SearchLayer{op.name, std::move(op), 1, workloads::LayerKind::Operator, {}}};
}

std::vector<SearchLayer> layersFromModel(const std::string& nameOrPath,
    const std::optional<std::string>& layer, workloads::LayerErrors mode,
    const workloads::SequenceOptions& sequence)
{
    workloads::Workload w = workloads::loadWorkload(nameOrPath, mode, sequence);
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
        out.push_back({l.name, std::move(l.op), l.repeat, l.effectiveKind(), std::move(l.errors)});
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

} // namespace marvel::cli
