#pragma once
// What `marvel search` and `marvel bench search` share: reading the layers to search, running the
// search of one layer, and the JSON / text / MAESTRO forms of the results.

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "app/cli/command.h"
#include "core/arch/accelerator_io.h"
#include "core/export/timeloop.h"
#include "core/search/roofline.h"
#include "core/search/search.h"
#include "core/styles/styles.h"
#include "core/tech/technology.h"
#include "core/workloads/workloads.h"

namespace marvel::cli {

/// One operator to search, named as the user knows it.
struct SearchLayer
{
    std::string name;
    ir::Operator op;
    int repeat = 1;
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

/// A layer searched by Marvel and under each style (`marvel search --compare-styles`).
struct ComparedLayer
{
    SearchedLayer marvel;
    std::vector<SearchedLayer> styles; ///< in styles::allStyles() order
};

/// Reads the pruning and run options shared by the search commands into `options`, changing only what
/// the arguments give (so they override a project's settings); an error message or empty.
std::string searchOptionsFromArgs(Args& args, search::SearchOptions& options);

/// `--batch N`: the batch of an ONNX model whose batch dimension is symbolic (default 1); an error
/// message or empty.
std::string modelOptionsFromArgs(Args& args);
/// Prints to stderr what an imported model (ONNX) left out: its not-mapped nodes by op type.
void printImportSummary(const workloads::Workload& workload, const std::string& path);

/// Every operator of a `.loop` file (parse errors throw InputError).
std::vector<SearchLayer> layersFromOperatorFile(const std::string& path);
/// The layers of a built-in model or a model file, or only `layer` (InputError naming the choices).
/// With LayerErrors::Keep a bad layer of the file is returned with its errors instead of throwing.
std::vector<SearchLayer> layersFromModel(const std::string& nameOrPath,
    const std::optional<std::string>& layer, workloads::LayerErrors mode = workloads::LayerErrors::Throw);
/// The layers of a loaded workload, with their repeat counts.
std::vector<SearchLayer> layersFromWorkload(workloads::Workload workload);
/// "LAYER: operator 'x' is not conformable: reason" for the first non-conformable layer, or empty.
std::string nonConformableReason(const std::vector<SearchLayer>& layers);

/// "LAYER: not mappable on ACC: the smallest mapping found needs ..." for a layer whose every evaluated
/// mapping overflows a buffer.
std::string notMappableReason(const SearchedLayer& layer, const arch::Accelerator& acc);
/// "cost model: F fidelity (what it counts; how to get the other)", a line ending in a newline.
std::string fidelityLine(search::Fidelity fidelity);
/// Warnings for capacity checks the options switch off (empty when both are on).
std::string capacityWarning(const search::SearchOptions& options);

/// The sample accelerator file of the paper's platform "P1" or "P2", or of another preset named by its
/// file's stem ("eyeriss_dram", "edge1024_dram"): samples/accelerators/, looked up from the working
/// directory and its parent, for the benchmarks, then from the installed share/marvel-studio/samples.
std::string presetAcceleratorPath(const std::string& hw);
/// A benchmark's --hw argument as a file: an existing file as it is, otherwise a preset's name.
std::string acceleratorArgPath(const std::string& hw);
/// The accelerator a command's --hw names: a file (.json or MAESTRO .m) or a preset's name ("P2",
/// "eyeriss_dram", as acceleratorArgPath). Throws InputError naming `hw` when it is neither.
arch::Accelerator loadAcceleratorArg(const std::string& hw);

/// --technology NAME|FILE when given: `acc` takes that table (its DRAM type kept when the table has it,
/// else the table's default) and the energies it gives for acc's sizes. Throws InputError naming the
/// table (or `--technology` when there is none of that name).
void applyTechnologyArg(const Args& args, arch::Accelerator& acc);
/// The figures of a searched mapping in physical units (tech::physical) on `acc`.
tech::Physical physicalOf(const search::Metrics& m, const arch::Accelerator& acc);
/// `{"energy_pj", "area_mm2", "power_mw", "energy_parts_pj": {...}}` members for a --json object.
void addPhysicalJson(nlohmann::json& j, const tech::Physical& p);
/// "   physical (technology 45nm (LPDDR4)): energy 1.23 mJ = MAC ... + DRAM ...; area 2.5 mm2; 812 mW at
/// 200 MHz\n".
std::string physicalLine(const tech::Physical& p, const arch::Accelerator& acc);

/// Searches one layer with the roofline attached, under `style` when given (the roofline and the
/// name stay the original layer's when an optimiser searches its convolution form).
SearchedLayer searchOne(const SearchLayer& layer, const arch::Accelerator& acc,
    const search::SearchOptions& options, search::SearchSink* sink, std::stop_token stop = {},
    std::optional<styles::Style> style = std::nullopt);

/// The `--json` object of issue 4.
nlohmann::json searchJson(const std::vector<SearchedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc);
/// The readable report: per layer runtime, energy, roofline ratio, the tiled loop nest and the MDC.
std::string searchText(const std::vector<SearchedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc);
/// `--compare-styles`: per layer and in total, Marvel's best beside each style's best (runtime, energy
/// and their ratios style / Marvel, above 1 where Marvel is better), with the geometric means of the
/// per-layer ratios.
nlohmann::json compareStylesJson(
    const std::vector<ComparedLayer>& layers, const search::SearchOptions& options, double elapsed);
std::string compareStylesText(const std::vector<ComparedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc);

/// One MAESTRO mapping file with each mappable layer's best mapping under the layer's name, written
/// atomically.
void exportMdc(const std::vector<SearchedLayer>& layers, const std::string& path);
/// Each layer's best mapping as Timeloop input in `dir`/<layer>/ (core/export/timeloop.h), one line per
/// layer on `report`: "timeloop: LAYER: exported to ..." or "timeloop: LAYER: not exported: why".
void exportTimeloop(const std::vector<SearchedLayer>& layers, const arch::Accelerator& acc,
    const std::string& dir, std::ostream& report, const timeloop::Options& options = {});
/// `--timeloop-buffering 1|2` into `options` (the buffers' multiple_buffering); the error message when the
/// value is neither, empty otherwise.
std::string timeloopOptionsFromArgs(Args& args, timeloop::Options& options);
/// `layer,runtime_cycles,energy,edp,utilization,mac_energy,l1_energy,l2_energy,dram_energy,dram_reads,
/// dram_writes,dram_read_bytes,dram_write_bytes` (energy: their total; DRAM traffic in elements and bytes)
/// and one row per point of every layer's runtime-energy Pareto front (runtime ascending), numbers
/// written so that they read back exactly.
std::string paretoCsv(const std::vector<SearchedLayer>& layers);

} // namespace marvel::cli
