#include "app/cli/search_export.h"

#include <ostream>

#include "core/mdc/maestro_io.h"
#include "core/util/text_file.h"

namespace marvel::cli {

void exportMdc(const std::vector<SearchedLayer>& layers, const std::string& path)
{
    std::vector<cost::NamedMapping> mapped;
    for (const SearchedLayer& l : layers)
        if (l.best)
            mapped.push_back({l.layer.name, &l.search.problem, &l.best->dataflow,
                l.layer.kind == workloads::LayerKind::Attention
                    ? "an attention product (both operands activations); one matrix of a batch of "
                        + std::to_string(l.layer.repeat) + ": run it " + std::to_string(l.layer.repeat)
                        + " times"
                    : std::string()});
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
            todo.push_back({l.layer.name, &l.search.problem, &dataflows[i],
                l.layer.kind == workloads::LayerKind::Attention
                    ? "an attention product: its Weights are an activation (K or V), one matrix of a batch "
                      "of "
                        + std::to_string(l.layer.repeat)
                    : std::string()});
        else
            report << "timeloop: " << l.layer.name << ": not exported: "
                   << (l.layer.ok() ? "the search found no mapping that fits the buffers"
                                    : "the layer could not be searched")
                   << '\n';
    }
    for (const auto& r : timeloop::exportLayers(todo, acc, dir, options))
        report << "timeloop: " << r.layer << ": " << r.message << '\n';
}

} // namespace marvel::cli
