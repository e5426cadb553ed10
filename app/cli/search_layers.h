#pragma once
// The layers `marvel search` and `marvel bench search` search: read from an operator file, a built-in
// model or a model file (.json, MAESTRO .m, .onnx through workloads::loadWorkload), checked for
// conformability, and searched one by one (Marvel's search or a style's).

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/search/roofline.h"
#include "core/search/search.h"
#include "core/styles/styles.h"
#include "core/workloads/workloads.h"

namespace marvel::cli {

/// One operator to search, named as the user knows it.
struct SearchLayer
{
    std::string name;
    ir::Operator op;
    int repeat = 1;
    /// What the layer computes (a model's layer kind; Operator for a `.loop` file).
    workloads::LayerKind kind = workloads::LayerKind::Operator;
    /// Why the layer cannot be searched (a bad layer of a model file, kept so that the others are still
    /// reported); empty: searchable.
    std::vector<Diagnostic> errors;
    bool ok() const { return errors.empty(); }
};

/// A searched layer: the search result, its best mapping for the objective and the roofline; a bad
/// layer (layer.errors) was not searched and has none of them.
struct SearchedLayer
{
    SearchLayer layer;
    search::LayerSearchResult search;
    std::optional<search::Candidate> best;
    search::Roofline roofline;
    std::optional<styles::Style> style; ///< the style searched under; nullopt: Marvel's own search
    std::string convForm; ///< the convolution form an optimiser searched instead (styles::ConvolutionForm)
};

/// Prints to stderr what an imported model (ONNX) left out: its not-mapped nodes by op type.
void printImportSummary(const workloads::Workload& workload, const std::string& path);

/// Every operator of a `.loop` file (parse errors throw InputError).
std::vector<SearchLayer> layersFromOperatorFile(const std::string& path);
/// The layers of a built-in model or a model file, or only `layer` (InputError naming the choices).
/// With LayerErrors::Keep a bad layer of the file is returned with its errors instead of throwing.
/// `sequence` instantiates a transformer (built-in, or an ONNX model with symbolic dimensions).
std::vector<SearchLayer> layersFromModel(const std::string& nameOrPath,
    const std::optional<std::string>& layer, workloads::LayerErrors mode = workloads::LayerErrors::Throw,
    const workloads::SequenceOptions& sequence = {});
/// The layers of a loaded workload, with their repeat counts.
std::vector<SearchLayer> layersFromWorkload(workloads::Workload workload);
/// "LAYER: operator 'x' is not conformable: reason" for the first non-conformable layer, or empty.
std::string nonConformableReason(const std::vector<SearchLayer>& layers);

/// Searches one layer with the roofline attached, under `style` when given (the roofline and the
/// name stay the original layer's when an optimiser searches its convolution form).
SearchedLayer searchOne(const SearchLayer& layer, const arch::Accelerator& acc,
    const search::SearchOptions& options, search::SearchSink* sink, std::stop_token stop = {},
    std::optional<styles::Style> style = std::nullopt);
/// "LAYER: not mappable on ACC: the smallest mapping found needs ..." for a layer whose every evaluated
/// mapping overflows a buffer.
std::string notMappableReason(const SearchedLayer& layer, const arch::Accelerator& acc);

} // namespace marvel::cli
