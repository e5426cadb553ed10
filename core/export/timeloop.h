#pragma once
// Export of one mapped layer to Timeloop's v0.4 input format (problem, architecture, mapping and energy
// reference table, one YAML file each with a single top-level key; doc/timeloop.md). The YAML is written
// by a small emitter of our own: core takes no YAML library.
//
// Translation of an MDC mapping (its cost-model-completed levels, corrected fidelity):
//  - the problem is the cost::Problem: every dimension but a window's input (reference) dimension is a
//    Timeloop dimension (window outputs named P, Q in window order, as Timeloop pairs P with R), each
//    tensor a data space (a window's input dimension projected as sliding * dilation + output * stride);
//    a convolution without a batch gets Timeloop's N of size 1 on its windowed input and its output;
//  - the innermost level's per-step tile is the PEBuffer's temporal tile (the steps of the levels under
//    the last fan-out are PEBuffer loops around it); SpatialMaps are the GlobalBuffer's spatial fan-out:
//    the innermost fanning level's along meshX, every outer one's along meshY (nested fan-outs with no
//    steps between them spread one set of tiles; a dimension spread at several levels is one loop of their
//    product); a SpatialMap folded over its sub-units adds a temporal loop where the directive stands;
//  - filter rows spread over PEs (row-stationary: with the input rows that move with them, or with the
//    output rows each PE computes mapped) are a spatial loop over R, as Timeloop projects the input row
//    as P * stride + R * dilation;
//  - a dimension stepping in two cluster levels whose loops land in one Timeloop level is one loop of
//    their product when no other loop steps between them (in the PE buffer, wherever they stand);
//  - the top level's temporal loops, in their order, are the DRAM's: the level-3 tiling our cost model
//    counts (Options::topLevelInDram); for a MAESTRO file, the GlobalBuffer's from the innermost outwards
//    as long as the global buffer holds the tile (a loop that does not fit whole is split into the largest
//    divisor that does), the rest the DRAM's. Only the PEs the mapping uses are laid out.
// What Timeloop cannot express is refused with a message naming the directive (see translateMdc).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/cost/problem.h"
#include "core/mdc/dataflow.h"
#include "core/search/constraint.h"

namespace marvel::timeloop {

/// Export settings.
struct Options
{
    /// `multiple_buffering` of the global buffer and the PE buffers: 2 (the default) is our cost model's
    /// double-buffered requirement, halving the capacity a tile may use; 1 gives the whole buffer to one
    /// tile (and writes no multiple_buffering attribute).
    int multipleBuffering = 2;
    /// Every temporal loop of the dataflow's top level is a DRAM loop, in its order, and the global buffer
    /// holds one step's tile: what our cost model counts (the top level's steps are the L2 tiles) and how
    /// the search writes its mappings (mapping::toMdc: the level-3 inter-tile loops). False: the global
    /// buffer keeps the innermost top-level loops while their tile fits (MAESTRO files, which have no DRAM
    /// level: `marvel evaluate --mapping F.m --export-timeloop`, the worked case's translation).
    bool topLevelInDram = true;
    /// The narrow search space (`--timeloop-space narrow`, restrictSearch with SearchSpace::Narrow): what
    /// the export takes, less the mappings with more than two loops over the PEs or filter rows or columns
    /// spread over them (row-stationary: spread alone they are not exported at all). Those export and
    /// count as the narrow ones do (doc/timeloop.md, "What the search keeps to"); the narrow space stays
    /// for a shorter search and for comparison.
    bool searchSpaceOnly = false;
};

/// One loop of a Timeloop mapping level: a Timeloop dimension and its bound.
struct Loop
{
    std::string dim;
    std::int64_t factor = 1;
};

/// The translated mapping. Loop lists are outermost first; a dimension missing from a list has factor 1.
struct Mapping
{
    /// Timeloop dimensions in problem order, their sizes and the problem's coefficients (name, value).
    std::vector<std::string> dims;
    std::vector<std::int64_t> sizes;
    std::vector<std::pair<std::string, std::int64_t>> coefficients;
    std::vector<Loop> dram; ///< DRAM temporal loops
    std::vector<Loop> globalBuffer; ///< GlobalBuffer temporal loops
    std::vector<Loop> spatialX; ///< GlobalBuffer spatial fan-out along meshX (innermost fanning level)
    std::vector<Loop> spatialY; ///< along meshY (the fanning levels above it)
    std::vector<Loop> peBuffer; ///< PEBuffer temporal loops
    std::int64_t meshX = 1, meshY = 1; ///< PEs used: meshX * meshY
    std::int64_t pesUsed() const { return meshX * meshY; }
    /// Product of the factors of `dim` over every level.
    std::int64_t factorProduct(const std::string& dim) const;
    /// Tile sizes (elements, summed over the data spaces) the global buffer and one PE buffer hold.
    std::int64_t globalBufferTile = 0, peBufferTile = 0;
    /// A one-level MDC dataflow (for an accelerator of one PE) whose steps are the DRAM-level tiles in the
    /// DRAM order: our cost model's DRAM traffic of the exported level-3 tiling (ourCounts).
    mdc::Dataflow dramTiling;
};

/// The four files' text.
struct Files
{
    std::string problem, arch, map, ert;
};

/// A layer's export: the files, or why Timeloop cannot express the mapping.
struct Export
{
    std::string layer;
    std::optional<Mapping> mapping; ///< nullopt: not translatable, `reason` says why
    std::string reason;
    Files files;
    bool ok() const { return mapping.has_value(); }
};

/// Translates `dataflow` over `problem` on `acc` (see the file comment). Not translatable, with the reason
/// naming the directive: tiles that overlap or skip indices on a dimension that is not a window's input
/// (offset != size), a filter dimension (R, S) split in time, or spread over PEs with input rows other
/// than those its output rows read, a window tile whose offset is not its output rows times the stride,
/// tiles or spatial folds that do not divide what they cover (Timeloop counts a remainder as a full tile),
/// two SpatialMaps in one level (but for row-stationary's pair), steps between two fan-outs, a dimension
/// stepping in two levels whose global-buffer or DRAM loops have another loop between them, SIMD lanes,
/// dimension names Timeloop cannot take (one letter each), and tiles that overflow a buffer.
Export translateMdc(const std::string& layerName, const cost::Problem& problem, const mdc::Dataflow& dataflow,
    const arch::Accelerator& acc, const Options& options = {});

/// Whether translateMdc would export a mapping, without writing the files: what `--timeloop-compatible`
/// restricts the search to. Compiles the problem once; one per thread.
class Checker
{
public:
    Checker(const cost::Problem& problem, const arch::Accelerator& acc, const Options& options = {});
    ~Checker();
    Checker(Checker&&) noexcept;
    bool expressible(const mdc::Dataflow& dataflow);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// The search's filter (SearchConstraint::dataflowFilter) of the mappings Timeloop can express.
search::DataflowFilterFactory searchFilter(const Options& options = {});
/// Which of the mappings Timeloop can express a restricted search takes (`--timeloop-space`): Narrow
/// leaves out more than two loops over the PEs and filter rows or columns spread over them
/// (Options::searchSpaceOnly); Wide takes every mapping the export writes.
enum class SearchSpace { Narrow, Wide };
/// The space of `--timeloop-compatible` and the app's "Timeloop only": the wide one since the per-case
/// tables count its mappings' global-buffer traffic as the simulator does (doc/timeloop.md, "What the
/// search keeps to").
inline constexpr SearchSpace kDefaultSearchSpace = SearchSpace::Wide;
/// The space named "narrow" or "wide" (`--timeloop-space`, `marvel bench sim --exportable`); nullopt for
/// any other name.
std::optional<SearchSpace> searchSpaceNamed(std::string_view name);
/// The space's name, as searchSpaceNamed reads it.
const char* searchSpaceName(SearchSpace space);

/// Restricts a search to the mappings Timeloop can express (`--timeloop-compatible`): searchFilter of the
/// space, the tile rules that let the enumeration skip what it refuses whatever the order (dividing tiles
/// only; in the narrow space also at most two loops over the PEs and filter rows and columns whole in each
/// PE), expressibleIn = "timeloop" and expressibleSpace = the space's name.
void restrictSearch(search::SearchConstraint& constraint, const Options& options = {},
    SearchSpace space = kDefaultSearchSpace);

/// The counts Timeloop defines as our cost model does, from our cost model (corrected fidelity): MACs,
/// per data space (Timeloop's names) the global buffer's reads of the input-class tensors (our L2 reads)
/// and the output updates (our output L2 writes), the PE buffers' fills, and the DRAM reads and writes of
/// the exported level-3 tiling (dramTiling). Throws InputError when the cost model rejects the mapping.
struct Counts
{
    std::int64_t macs = 0;
    std::vector<std::pair<std::string, std::int64_t>> globalBufferReads; ///< input-class data spaces
    std::int64_t outputUpdates = 0;
    /// Input-class data spaces: the elements the PE buffers receive, summed over the PEs (Timeloop's
    /// PEBuffer fills per instance times its utilized instances): our L2 reads with each PE sent its own
    /// copy.
    std::vector<std::pair<std::string, std::int64_t>> peFills;
    std::vector<std::pair<std::string, std::int64_t>> dramReads; ///< every data space (outputs: read back)
    std::int64_t outputDramWrites = 0;
};
Counts ourCounts(const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc,
    const Mapping& mapping);

/// The Timeloop name of each of `problem`'s tensors (Inputs, Weights, Outputs for the usual two inputs and
/// an output), in problem order.
std::vector<std::string> dataSpaceNames(const cost::Problem& problem);

/// Writes `e`'s four files into `dir` (created when missing): problem.yaml, arch.yaml, map.yaml, ert.yaml.
/// Throws InputError naming the file that cannot be written.
void writeFiles(const Export& e, const std::string& dir);

/// One layer to export.
struct LayerToExport
{
    std::string name;
    const cost::Problem* problem = nullptr;
    const mdc::Dataflow* dataflow = nullptr;
    /// What the report should add about the layer (an attention product's "Weights" being an activation);
    /// empty: nothing.
    std::string note{};
};
/// What exportLayers did with one layer: `message` is "exported to DIR/NAME: MACs ..., our counts Timeloop
/// defines the same way" or "not exported: why".
struct LayerReport
{
    std::string layer;
    bool exported = false;
    std::string message;
};
/// Translates and writes each layer into `dir`/folderName(layer)/ (a layer Timeloop cannot express is
/// reported and skipped; the others are still written). Throws InputError when a folder cannot be written.
std::vector<LayerReport> exportLayers(const std::vector<LayerToExport>& layers, const arch::Accelerator& acc,
    const std::string& dir, const Options& options = {});

/// A file-system-safe folder name for a layer (letters, digits, '_', '-', '.'; others become '_').
std::string folderName(const std::string& layer);

} // namespace marvel::timeloop
