#pragma once
// Design-space sweeps (issue 12): a grid of accelerators around a base accelerator, each design point's
// whole workload (an operator, a model or a project's workload) searched for one objective.
//
// Grid order. The parameters nest in the order of `Parameter` (pes slowest, offchip_bw fastest) and every
// axis is ascending, so point i is the mixed-radix number i over the axes and the rows sorted by index are
// sorted by (pes, simd, l1_bytes, l2_bytes, noc_bw, offchip_bw) whatever order the --vary arguments
// came in.
//
// Reuse. Marvel's decoupling makes the off-chip solution depend only on the operator, L2, the word and
// DRAM block sizes (and, in maestro fidelity, the PE count for strided windows), so one
// search::OffChipCache serves every point; each layer's perfect nest, cost-model problem and search space
// are prepared once (search::prepareLayer). Neither changes any result.
//
// Totals. A point's runtime, energy and roofline add up its layers' (each times its `repeat`); the EDP
// is total runtime x total energy; utilization is busy PE-cycles over PE-cycles (the layers' utilizations
// weighted by their runtimes). Each layer takes its best mapping for the objective, found by the search
// `marvel search` runs with the same options (PointSearch::Full): a point's figures are the tuner's for
// that design. PointSearch::Quick (the decoupled search alone) is a named, faster option, and every row
// says which search made it.
//
// Area and power come from the cost model's area/power model (cost::areaPower, MAESTRO's §6.3 formulas)
// evaluated with the buffers' capacities (L1 and L2 in elements) rather than one mapping's requirements:
// the silicon a design point provisions. Off-chip bandwidth is not part of that model.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"

namespace marvel::sweep {

/// An accelerator parameter a sweep can vary; the order is the grid's nesting and the CSV column order.
enum class Parameter { Pes, Simd, L1, L2, NocBw, OffchipBw };
inline constexpr std::size_t kParameterCount = 6;
/// The six values of a design point, in Parameter order.
using Parameters = std::array<std::int64_t, kParameterCount>;

/// "pes", "simd", "l1", "l2", "noc_bw", "offchip_bw": the names --vary takes.
std::string_view parameterName(Parameter p);
Parameters parametersOf(const arch::Accelerator& acc);
void setParameter(arch::Accelerator& acc, Parameter p, std::int64_t value);

/// Largest number of values of one axis and of design points of a grid: beyond them a specification is a
/// typo (1:1M:+1) rather than a sweep anyone means to run.
inline constexpr std::int64_t kMaxAxisValues = 10000;
inline constexpr std::int64_t kMaxPoints = 1000000;

/// One varied parameter: its values (ascending, distinct) and the --vary text it came from.
struct Axis
{
    Parameter parameter = Parameter::Pes;
    std::vector<std::int64_t> values;
    std::string spec;
};

/// Parses one --vary argument: NAME=V1,V2,... (a list), NAME=FROM:TO:xFACTOR (geometric, FROM, FROM*FACTOR,
/// ... up to TO) or NAME=FROM:TO:+STEP (arithmetic). Numbers are positive integers with an optional K, M
/// or G suffix (x1024, e.g. 64K). Throws InputError whose diagnostic names the argument ("--vary
/// 'l2=1M:64K:x2'") and says what is wrong: unknown parameter, empty range, zero or negative value, factor
/// below 2, step below 1, a value given twice, more than kMaxAxisValues values.
Axis parseVary(std::string_view spec);

/// A transformer's context a sweep can vary (issue 35): the prompt length (prefill) or the cached
/// tokens a decode step attends to. Each value instantiates the model again (workloads::SequenceOptions).
enum class ContextParameter { Seq, Kv };
/// "seq", "kv": the names --vary takes and the CSV's first column.
std::string_view contextName(ContextParameter p);
/// The varied context: its values (ascending, distinct) and the --vary text it came from.
struct ContextAxis
{
    ContextParameter parameter = ContextParameter::Seq;
    std::vector<std::int64_t> values;
    std::string spec;
};
/// Whether a --vary argument varies the context (seq=..., kv=...) rather than the accelerator.
bool isContextVary(std::string_view spec);
/// Parses --vary seq=VALUES or kv=VALUES with the syntax of parseVary (and its errors).
ContextAxis parseContextVary(std::string_view spec);

/// The design points: every combination of the axes' values, the other parameters as in the base; with
/// a context axis, that grid of accelerators once per context value (the context is the slowest axis:
/// point i is context value i / hardwareSize() on accelerator i % hardwareSize()).
class Grid
{
public:
    /// Throws InputError when the base accelerator is invalid, two axes vary one parameter, the grid has
    /// more than kMaxPoints points, or an axis value makes the accelerator invalid (naming the --vary
    /// argument and the field).
    Grid(arch::Accelerator base, std::vector<Axis> axes, std::optional<ContextAxis> context = std::nullopt);
    std::size_t size() const { return m_size; }
    /// The accelerators of one context value.
    std::size_t hardwareSize() const { return m_hardwareSize; }
    const arch::Accelerator& base() const { return m_base; }
    /// The varied axes in Parameter order.
    const std::vector<Axis>& axes() const { return m_axes; }
    const std::optional<ContextAxis>& context() const { return m_context; }
    /// The position of point `index`'s context value in context()->values (0 without a context axis).
    std::size_t contextIndex(std::size_t index) const { return index / m_hardwareSize; }
    /// Point `index`'s context value; 0 without a context axis.
    std::int64_t contextValue(std::size_t index) const;
    Parameters parameters(std::size_t index) const;
    /// The base accelerator with point `index`'s parameters.
    arch::Accelerator point(std::size_t index) const;
    /// The index of the point with these parameters (and this context value; 0 without a context axis);
    /// nullopt when it is not in the grid.
    std::optional<std::size_t> indexOf(const Parameters& parameters, std::int64_t context = 0) const;

private:
    arch::Accelerator m_base;
    std::vector<Axis> m_axes;
    std::optional<ContextAxis> m_context;
    std::size_t m_hardwareSize = 1;
    std::size_t m_size = 1;
};

/// Which search a design point runs. Full: the search `marvel search` runs with the sweep's options
/// (the refinement included unless they turn it off), so a point's figures are those the tuner shows
/// for that design. Quick: the paper's decoupled search alone under one off-chip solution, faster
/// (ResNet-50 over 36 points around P2: three quarters of the CPU time), but a point may show a slower or
/// costlier mapping than the tuner finds.
enum class PointSearch { Full, Quick };
/// "full" or "quick", as the CSV's `search` column, the settings file and `--json` say it.
std::string_view pointSearchName(PointSearch s);

/// One design point's row of the sweep file.
struct PointResult
{
    std::size_t index = 0; ///< in the grid
    std::int64_t context = 0; ///< the seq or kv value of a grid with a context axis; 0 otherwise
    Parameters parameters{};
    bool ok = false; ///< every layer has a mapping; else the metrics below are empty in the file
    std::int64_t runtime = 0; ///< cycles, layers times their repeat
    double energy = 0.0; ///< MAC-energy units
    double edp = 0.0; ///< runtime x energy
    double utilization = 0.0; ///< 0..1
    double area = 0.0; ///< of the design (capacities), see the file comment
    double power = 0.0;
    std::int64_t roofline = 0; ///< cycles, layers times their repeat
    /// DRAM traffic of the chosen mappings (read and written, bytes of the DRAM blocks moved) and its part
    /// of `energy`, layers times their repeat.
    std::int64_t dramBytes = 0;
    double dramEnergy = 0.0;
    /// In physical units (tech::physical): the energy in pJ, the design's area in mm^2 and its average
    /// power in mW over the runtime (a technology table's, else MAESTRO's formulas).
    double energyPj = 0.0, areaMm2 = 0.0, powerMw = 0.0;
    PointSearch search = PointSearch::Full; ///< which search made the row
    std::string status = "ok"; ///< "ok" or why the point failed ("LAYER: ...")
};

/// `pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,edp,area,power,utilization,
/// roofline_cycles,dram_bytes,dram_energy,energy_pj,area_mm2,power_mw,search,status`.
std::string csvHeader();
/// csvHeader(), preceded by the context's column (`seq` or `kv`) when the grid has a context axis.
std::string csvHeader(const Grid& grid);
/// One line without its line break (the context value first when `row.context` is set); numbers read
/// back exactly.
std::string formatRow(const PointResult& row);
/// The row `line` holds, its index looked up in `grid`; nullopt when the line is not a complete row of
/// this grid (wrong field count, a number that does not parse, parameters outside the grid).
std::optional<PointResult> parseRow(std::string_view line, const Grid& grid);

/// The design points no other beats on both figures (ok rows only), area ascending; ties keep the lower
/// grid index. Area is `areaMm2`: the technology table's when the design names one. Rows of several
/// context values (a context sweep) have one front per value, in context order: designs compare only
/// on the same workload.
struct DesignFronts
{
    std::vector<PointResult> runtimeArea;
    std::vector<PointResult> energyArea;
};
DesignFronts paretoDesigns(const std::vector<PointResult>& rows);
/// `front,pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,area,power,area_mm2,power_mw`
/// with front `runtime-area` or `energy-area` (area, power: MAESTRO's formulas, as in the rows); with a
/// context axis, its column (`seq` or `kv`) after `front`.
std::string paretoCsv(const DesignFronts& fronts, const std::optional<ContextAxis>& context = std::nullopt);

/// How to search each point.
struct SweepOptions
{
    search::SearchOptions
        search; ///< objective, pruning, refinement; its threads and offChipCache are ignored
    PointSearch pointSearch = PointSearch::Full;
    unsigned threads = 0; ///< all the sweep's threads; 0: every core. Results do not depend on it.
    bool reuse = true; ///< share off-chip solutions and prepared layers between points
};
/// One line on which search made the points: "full search (as marvel search with these options: the
/// decoupled search, then the refinement)" or "quick search (the decoupled search alone: the tuner may
/// find faster or cheaper mappings)".
std::string pointSearchDescription(const SweepOptions& options);

/// One layer of one design point, searched on its own (MPI ranks may search a point's layers apart):
/// what the point's totals add up, each figure already times the layer's `repeat`.
struct LayerOutcome
{
    bool ok = false; ///< the layer has a mapping; else `status` says why not
    std::int64_t runtime = 0; ///< cycles
    double energy = 0.0;
    double busy = 0.0; ///< utilization x runtime: busy PE-cycles over all PEs
    std::int64_t dramBytes = 0;
    double dramEnergy = 0.0;
    std::string status; ///< "LAYER: why" when not ok, one line
};
/// `ok runtime energy busy dram_bytes dram_energy status` with the numbers exact (hexadecimal floating
/// point), for messages.
std::string formatLayerOutcome(const LayerOutcome& outcome);
/// The outcome `text` holds; nullopt when it is not one formatLayerOutcome wrote.
std::optional<LayerOutcome> parseLayerOutcome(std::string_view text);

/// A workload prepared for a grid: evaluates design points, from any number of threads at once.
class Sweeper
{
public:
    /// Every layer of `workload` must be usable and conformable (the caller checks); throws InputError
    /// when a layer has no perfect-nest form or the cost model cannot describe it.
    Sweeper(Grid grid, workloads::Workload workload, SweepOptions options);
    /// A context sweep: `workloads[i]` is the model at the grid's context value i (one workload for a
    /// grid without a context axis).
    Sweeper(Grid grid, std::vector<workloads::Workload> workloads, SweepOptions options);
    ~Sweeper();
    const Grid& grid() const { return m_grid; }
    const SweepOptions& options() const { return m_options; }

    /// Searches every layer at point `index` with `searchThreads` threads per search. nullopt when
    /// stopped before the point finished. Thread-safe.
    std::optional<PointResult> evaluate(
        std::size_t index, unsigned searchThreads, std::stop_token stop = {}) const;

    /// The workload's layers, each a unit evaluateLayer() searches (of the first context value: a
    /// context's workload may merge its layers differently, so MPI ranks do not split a context sweep).
    std::size_t layerCount() const;
    /// Searches layer `layer` at point `index`; nullopt when stopped. Thread-safe.
    std::optional<LayerOutcome> evaluateLayer(
        std::size_t index, std::size_t layer, unsigned searchThreads, std::stop_token stop = {}) const;
    /// Point `index`'s row from its layers' outcomes (all of them, in layer order): the same row
    /// evaluate() gives, whoever searched the layers. A failed point takes the first failed layer's status.
    PointResult combine(std::size_t index, const std::vector<LayerOutcome>& layers) const;
    /// Layer `layer`'s roofline cycles at point `index` times its repeat: no search of that layer can
    /// report a lower LayerOutcome::runtime (the per-layer terms of PointResult::roofline).
    std::int64_t layerRoofline(std::size_t index, std::size_t layer) const;

    /// Evaluates `indices` on options().threads threads (several points at once, or one at a time with
    /// several search threads when there are fewer points than threads). `onPoint` gets every finished
    /// point, in completion order, never concurrently. Returns the finished points sorted by index;
    /// fewer than asked when stopped.
    std::vector<PointResult> run(const std::vector<std::size_t>& indices,
        const std::function<void(const PointResult&)>& onPoint = {}, std::stop_token stop = {}) const;

    /// Off-chip solutions reused and solved so far (0 without reuse).
    std::uint64_t offChipHits() const;
    std::uint64_t offChipMisses() const;

private:
    struct Layer;
    Grid m_grid;
    SweepOptions m_options;
    std::vector<std::vector<Layer>> m_layers; ///< per context value
    std::shared_ptr<search::OffChipCache> m_cache;
};

} // namespace marvel::sweep
