#pragma once
// The MDC analytical cost model (MAESTRO semantics, spec: ../shared/spec/mdc-cost-model.md,
// doc/cost-model.md): per-level case analysis of a dataflow over a cost::Problem on an accelerator.
//
// Speed: an Evaluator compiles the problem once; every evaluate call works in preallocated, fixed-size
// scratch (no heap allocation after the first calls), memoises child-level analyses by their per-case
// dimension table and enumerates cases arithmetically. One Evaluator per thread.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/cost/problem.h"
#include "core/mdc/dataflow.h"
#include "core/util/diagnostic.h"

namespace marvel::cost {

/// `Maestro` reproduces MAESTRO 4eb08d1 including the quirks the spec flags MATCH and FIX-OPT;
/// `Corrected` fixes every FIX-OPT quirk (list in doc/cost-model.md and in costmodel.cpp).
enum class Fidelity { Maestro, Corrected };

struct Options
{
    Fidelity fidelity = Fidelity::Maestro;
    /// MAESTRO divides the off-chip requirement by the top-level compute delay before guarding it
    /// against 0 (SIGFPE, quirk Q-EDGE-3); by default such mappings are rejected. With the guard, a zero
    /// delay counts as 1 (the "guardfix" variant of the reference data). Always on in Corrected fidelity.
    bool guardZeroCompute = false;
    /// Corrected fidelity: a mapping with one SpatialMap per level and at most a few thousand sub-unit
    /// steps is walked step by step, exactly as core/sim executes it (doc/cost-model.md). Off: the
    /// per-case tables only, as for larger mappings (to measure what the walk changes).
    bool stepWalk = true;
    /// DRAM traffic (doc/cost-model.md, "DRAM traffic"): the closed form of the common top levels. Off: the
    /// general per-group sums for every mapping (the same numbers; to check one against the other).
    bool dramClosedForm = true;
};

/// Largest problem the compiled engine accepts (dimensions, directives per level, levels, tensors).
inline constexpr int kMaxDims = 16;
inline constexpr int kMaxLevelDirectives = 16;
inline constexpr int kMaxLevels = 4;
inline constexpr int kMaxTensors = 6;

/// Access counts and buffer requirements of one tensor at the top level (elements).
struct TensorCounts
{
    std::int64_t l2Req = 0; ///< L2 requirement (double-buffered tile sent in the first case)
    std::int64_t l1Req = 0; ///< per-PE L1 requirement (innermost level)
    std::int64_t l2Read = 0; ///< elements read from L2 (input-class: sent over the top NoC)
    std::int64_t l2Write = 0; ///< input-class: tensor size (initial fill); output: egress elements
    std::int64_t l1Read = 0;
    std::int64_t l1Write = 0;
    /// DRAM <-> L2 over the top level's steps (the level-3 tiles; doc/cost-model.md, "DRAM traffic"):
    /// elements read into L2 (for the output: partial sums written back earlier and read again), elements
    /// written back (the output), and the bytes of the DRAM blocks those transfers touch under the tensor's
    /// DRAM layout (ProblemTensor::dramInnermost, accelerator dramBlockBytes).
    std::int64_t dramRead = 0;
    std::int64_t dramWrite = 0;
    std::int64_t dramReadBytes = 0;
    std::int64_t dramWriteBytes = 0;
};

/// The metrics of one evaluation that need no strings: what the search ranks mappings by.
struct Metrics
{
    std::int64_t runtimeCycles = 0;
    std::int64_t macs = 0;
    /// MAESTRO screen total, in energy units (MAC units, or pJ under a technology table): L1/L2 accesses
    /// and MACs, and the NoC's sends when the accelerator charges them (on-chip).
    double energy = 0.0;
    /// Its parts: MACs, L1 reads and writes, L2 reads and writes, NoC sends (energy is their sum).
    double macEnergy = 0.0, l1Energy = 0.0, l2Energy = 0.0, nocEnergy = 0.0;
    /// DRAM: accelerator energy.dram_access per element read or written (dramReads() + dramWrites()); 0 for
    /// accelerators that give none (MAESTRO's).
    double dramEnergy = 0.0;
    std::int64_t l1SizeReq = 0;
    std::int64_t l2SizeReq = 0;
    std::int64_t peakBwReq = 0;
    double avgUtilizedPes = 0.0;
    /// Most PEs the mapping can keep busy at once: per level, the sub-units its spatial maps reach (at
    /// most the level's sub-unit count), multiplied over the levels (computeBound, doc/cost-model.md).
    std::int64_t activePes = 0;
    int numTensors = 0; ///< input-class tensors first, then the output
    std::array<TensorCounts, kMaxTensors> tensors{};

    /// On-chip energy and DRAM energy: what mappings are ranked by.
    double totalEnergy() const { return energy + dramEnergy; }
    /// DRAM traffic of the layer: the tensors' TensorCounts::dramRead ... summed.
    std::int64_t dramReads() const { return sum(&TensorCounts::dramRead); }
    std::int64_t dramWrites() const { return sum(&TensorCounts::dramWrite); }
    std::int64_t dramReadBytes() const { return sum(&TensorCounts::dramReadBytes); }
    std::int64_t dramWriteBytes() const { return sum(&TensorCounts::dramWriteBytes); }

private:
    std::int64_t sum(std::int64_t TensorCounts::*field) const
    {
        std::int64_t n = 0;
        for (int t = 0; t < numTensors; ++t)
            n += tensors[std::size_t(t)].*field;
        return n;
    }
};

/// The fewest cycles in which `activePes` PEs of `simdLanes` lanes each can do `macs` MACs:
/// ceil(macs / (activePes x simdLanes)). No correct execution of a mapping is faster.
std::int64_t computeBound(std::int64_t macs, std::int64_t activePes, std::int64_t simdLanes);

/// Why an evaluation's figure cannot describe the mapping's execution (doc/cost-model.md, "Impossible
/// figures"): MAESTRO's edge-case accounting undercounts some mappings.
enum class Undercount : std::uint8_t {
    None,
    WrongMacs, ///< the MAC count is not the MACs the mapping performs: the figures describe other work
    BelowComputeBound, ///< the runtime is below computeBound(operator's MACs, m.activePes, lanes)
};
/// The check of `m`: its MACs against `exactMacs`, the MACs the mapping performs (the operator's, plus
/// what overlapping tiles compute again: Corrected fidelity's count, the simulator's), and its runtime
/// against the compute bound of the operator's `operatorMacs`. WrongMacs takes precedence.
Undercount checkUndercount(
    const Metrics& m, std::int64_t exactMacs, std::int64_t operatorMacs, std::int64_t simdLanes);

/// Every output of one layer evaluation (the reference table's columns).
struct Result
{
    Metrics m;
    std::vector<std::string> tensorNames; ///< same order as m.tensors
    std::int64_t numPes = 0; ///< configured PEs
    std::int64_t vectorWidth = 1;
    double throughput = 0.0; ///< MACs / cycle
    double avgBwReq = 0.0;
    std::int64_t offchipBwReq = 0;
    std::int64_t ingressDelayMin = 0, ingressDelayMax = 0, ingressDelayAvg = 0;
    std::int64_t egressDelayMin = 0, egressDelayMax = 0, egressDelayAvg = 0;
    std::int64_t computeDelayMin = 0, computeDelayMax = 0, computeDelayAvg = 0;
    double arithmeticIntensity = 0.0;
    std::int64_t inputTensorElems = 0; ///< declared input-tensor size (MAESTRO column 19)
    std::int64_t weightTensorElems = 0; ///< declared filter size (column 20)
    std::int64_t macsExpected = 0; ///< analytic MAC count of the problem
    // Energy parts in MAC-energy units (screen report).
    double l2WriteEnergy = 0.0, l2ReadEnergy = 0.0, l1WriteEnergy = 0.0, l1ReadEnergy = 0.0, macEnergy = 0.0;
    /// MAESTRO's CSV energy (nJ) of this layer's own counts: no MAC term, no output L2 read.
    double energyNjSameLayer = 0.0;
    /// MAESTRO's CSV energy column: in Maestro fidelity multi-level layers take the L1 part from the
    /// previous layer of the file (Q-CSV-1; set by evaluateNetwork); equals energyNjSameLayer otherwise.
    double energyNjCsv = 0.0;
    bool multiLevel = false;
    /// ceil(macsExpected / (m.activePes x vectorWidth)): no correct execution of the mapping is faster.
    std::int64_t computeBound = 0;
    Fidelity fidelity = Fidelity::Maestro; ///< the evaluation's
    /// The figure is impossible. Maestro fidelity: checkUndercount against the same mapping in Corrected
    /// fidelity (the CLI's status `maestro-undercount`). Corrected fidelity: a runtime below the bound,
    /// which only its per-case tables can give, on mappings they do not count exactly (a spatial map on a
    /// filter tap, doc/cost-model.md; status `corrected-undercount`).
    Undercount undercount = Undercount::None;
    /// Maestro fidelity: the MACs the mapping performs (Corrected fidelity's count; macsExpected when
    /// that fidelity rejects the mapping). 0 in Corrected fidelity.
    std::int64_t exactMacs = 0;
    /// With an undercount: the same mapping's runtime in Corrected fidelity (nullopt when that fidelity
    /// rejects the mapping; correctedError then says why).
    std::optional<std::int64_t> correctedRuntime;
    std::string correctedError;
    double area = 0.0, power = 0.0, pePower = 0.0, l1Power = 0.0, l2Power = 0.0, nocPower = 0.0;
};

/// MAESTRO's area and power model (spec §6.3; units nominally um^2 and mW): per PE a MAC unit per SIMD
/// lane and an L1 SRAM, a shared L2 SRAM, a bus of the NoC bandwidth and an arbiter over the PEs.
struct AreaPower
{
    double area = 0.0, power = 0.0, pePower = 0.0, l1Power = 0.0, l2Power = 0.0, nocPower = 0.0;
};
/// The model for `acc`'s PEs, SIMD lanes and NoC bandwidth with SRAMs of `l1Elements` per PE and
/// `l2Elements`: a layer evaluation passes the mapping's required sizes (as MAESTRO does), a design-space
/// sweep the buffers' capacities.
AreaPower areaPower(const arch::Accelerator& acc, double l1Elements, double l2Elements);

/// Compiled problem + accelerator; evaluates dataflows. Not thread-safe: one per thread.
class Evaluator
{
public:
    /// Throws InputError when the problem or the accelerator is unusable or exceeds the engine limits.
    Evaluator(const Problem& problem, const arch::Accelerator& accelerator, Options options = {});
    ~Evaluator();
    Evaluator(Evaluator&&) noexcept;
    Evaluator& operator=(Evaluator&&) noexcept;

    /// Full result. Throws InputError (naming the layer and directive, file:line:col when the
    /// directive has a location) when the mapping is invalid.
    Result evaluate(const mdc::Dataflow& dataflow);

    /// Hot path: no exception, no allocation after warm-up. False when the mapping is invalid;
    /// lastError() then says why.
    bool evaluateMetrics(const mdc::Dataflow& dataflow, Metrics& out);

    /// Dimension id of a name for evaluateMetrics(span) (-1 when unknown).
    int dimId(std::string_view name) const;
    /// A directive over dimension ids (Cluster: dim ignored).
    struct DirectiveId
    {
        mdc::Directive::Kind kind = mdc::Directive::Kind::TemporalMap;
        std::int64_t size = 1;
        std::int64_t offset = 1;
        int dim = -1;
    };
    /// Hot path over pre-resolved dimension ids (no string comparison at all).
    bool evaluateMetrics(std::span<const DirectiveId> dataflow, Metrics& out);
    /// evaluateMetrics, unless runtimeBound exceeds `runtimeCeiling` (a search's best so far): then false
    /// without evaluating, `exceeded` true.
    bool evaluateMetricsBelow(
        std::span<const DirectiveId> dataflow, std::int64_t runtimeCeiling, Metrics& out, bool& exceeded);
    /// Corrected fidelity: a lower bound on the mapping's runtime from the dataflow alone, its PEs' compute
    /// and the first fetch that starts each execution of each level (doc/search.md, "Runtime bound"); -1
    /// where not known (tiles that do not divide, taps spread or cut, mappings the step walk evaluates,
    /// maestro fidelity, an invalid mapping).
    std::int64_t runtimeBound(std::span<const DirectiveId> dataflow);

    /// One cluster level as the cost model executes it (spec §3.3): its sub-unit count and its completed
    /// directives (inherited, default-unrolled and stride-adjusted; window outputs rewritten to their
    /// reference dimension). The simulator (core/sim) walks exactly these.
    struct CompletedLevel
    {
        std::int64_t subUnits = 1;
        std::vector<DirectiveId> directives; ///< outermost first; dim is a dimension id
    };
    /// The completed levels of `dataflow`; throws InputError (as evaluate() does) when it is invalid.
    std::vector<CompletedLevel> completedLevels(const mdc::Dataflow& dataflow);

    /// Why the last evaluation failed (empty message after a success).
    Diagnostic lastError() const;
    const Problem& problem() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// One layer of a network evaluation: its result, or why it was rejected.
struct LayerEvaluation
{
    std::string layerName;
    bool ok = false;
    Result result;
    std::vector<Diagnostic> errors;
};

/// Evaluates every layer of a MAESTRO network in file order, with MAESTRO's cross-layer behaviour in
/// Maestro fidelity: batch coupling fixed per layer type by its first layer (Q-PARSE-4) and the CSV
/// energy of multi-level layers taking the previous layer's L1 counts (Q-CSV-1).
std::vector<LayerEvaluation> evaluateNetwork(const mdc::Network& network,
    const arch::Accelerator& accelerator, Options options = {}, const std::string& fileName = {});

} // namespace marvel::cost
