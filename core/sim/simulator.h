#pragma once
// An exact, step-by-step execution of an MDC mapping on the abstract accelerator: which PE holds which
// index ranges of which tensor at every time step, what arrived over the NoC, what stayed, the MACs done
// and the partial sums sent back. It checks the analytical cost model (core/cost), which collapses the
// same execution into a few cases, and it is what the PE-array animation draws.
//
// Semantics (doc/cost-model.md, "The simulator", says why each rule is what the cost model means):
// * The levels, sub-unit counts and completed directives are the cost model's (corrected fidelity:
//   inherited and default-unrolled directives, true strided tiles). A level is a loop nest over its
//   directives, outermost first; a TemporalMap(sz, of) visits tiles [k*of, k*of+sz) clipped to the
//   unit's extent while the previous tile did not reach the end; a SpatialMap gives sub-unit j the
//   tile j of each fold of P sub-units. Two SpatialMaps are two fold loops sharing the sub-unit index.
// * A unit (a cluster, or a PE at the innermost level) holds the product of its tiles. A PE computes
//   every operator iteration whose indices lie in its tiles and whose whole sliding window (over the
//   window taps it holds) lies in its input rows; it sends those outputs' partial sums back at every
//   step (sums for one output from several sub-units are reduced on the way and count once).
// * At each step a sub-unit receives the elements of its tiles it did not hold at the previous step of
//   the same execution of its level (nothing at the first step, nor after a step it was idle). An
//   element several sub-units receive in one step is sent once (multicast). A step in which no PE has
//   an iteration to compute is not executed.
// * Timing is the cost model's: per step ingress = NoC delay of the elements sent, egress = NoC delay of
//   the partial sums returned, compute = the slowest sub-unit (ceil(MACs / SIMD lanes) for a PE, the
//   child level's whole runtime for a cluster); the first step costs ingress + compute, the others
//   max(ingress, compute, egress); a step of level 0 also lasts at least its DRAM transfer (below) at the
//   off-chip bandwidth, ceil(elements moved / offchip_bandwidth), the last step's including the final
//   write-back (the cost model's corrected fidelity, doc/cost-model.md, "Off-chip bandwidth").
// * DRAM: at each executed step of level 0 the L2 holds, per tensor, the product over its dimensions of
//   the ranges its sub-units hold (input-class tensors: the sub-units with a tile; the output: those that
//   compute). An element it holds that the previous executed step did not is read from DRAM, except an
//   output element never held before (its partial sum starts in L2); an output element the previous step
//   held and this one does not is written back, and so is every output element of the last step. Bytes:
//   per line of the tensor's contiguous dimension in DRAM (cost::ProblemTensor::dramInnermost), each
//   maximal run of transferred elements counts whole DRAM blocks from its first element; an output's read
//   bytes are those of the elements entering L2 less those of the ones entering for the first time.

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/cost/problem.h"
#include "core/mdc/dataflow.h"
#include "core/util/diagnostic.h"

namespace marvel::sim {

/// Half-open index range [begin, end) of one tensor dimension; empty when end <= begin.
struct Range
{
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t size() const { return end > begin ? end - begin : 0; }
    friend bool operator==(const Range&, const Range&) = default;
};

/// A tensor of the problem as the simulator indexes it (window outputs by their output index).
struct TensorInfo
{
    std::string name;
    bool output = false;
    std::vector<std::string> dims; ///< dimension names, in TensorState::ranges order
};

/// One cluster level: the PEs of global index [u*pesPerUnit, (u+1)*pesPerUnit) form unit u of this level,
/// split into `subUnits` sub-units of `pesPerSubUnit` PEs each (a sub-unit is a PE at the innermost level).
struct LevelInfo
{
    std::int64_t units = 1; ///< units of this level in the array (1 at level 0)
    std::int64_t subUnits = 1;
    std::int64_t pesPerUnit = 1;
    std::int64_t pesPerSubUnit = 1;
    std::vector<std::string> directives; ///< as executed (completed), e.g. "TemporalMap(3,1) Y"
    std::vector<std::string> userDirectives; ///< as written in the mapping for this level
};

/// The static picture a viewer draws: tensors, the cluster hierarchy and its size.
struct Layout
{
    std::string layer;
    std::vector<TensorInfo> tensors; ///< input-class tensors first, the output last
    std::vector<LevelInfo> levels; ///< level 0 (outermost) first
    std::int64_t pes = 1; ///< PEs used (the product of the levels' sub-units); the rest stay idle
    std::int64_t frameBound = 0; ///< upper bound of the number of frames (used for the size limit)
};

/// What one PE holds of one tensor at one frame and how it got there.
struct TensorState
{
    std::vector<Range> ranges; ///< per TensorInfo::dims; all empty when the PE is idle
    std::int64_t held = 0; ///< elements in those ranges
    std::int64_t arrived = 0; ///< input-class: elements received over the NoC at this step
    std::int64_t stayed = 0; ///< input-class: elements kept from the previous step (reuse)
    std::int64_t fanout = 0; ///< input-class: most PEs of its cluster one of its arrived elements went to
    std::int64_t sent = 0; ///< output: partial sums sent back at this step
};

/// One PE at one frame.
struct PeState
{
    bool active = false; ///< holds tiles at this frame (false: idle or its cluster already finished)
    std::int64_t macs = 0; ///< multiply-accumulates it does at this step (recomputed ones included)
    std::vector<TensorState> tensors; ///< per Layout::tensors
};

/// The step a level is in at a frame; delays are the largest over that level's units.
struct StepDelays
{
    std::int64_t step = -1; ///< step number of unit 0 of the level (-1: no step of the level runs)
    bool begins = false; ///< a step of this level starts at this frame
    std::int64_t ingress = 0, compute = 0, egress = 0; ///< NoC and compute delays, cycles
    std::int64_t cycles = 0; ///< the step's time: ingress + compute for a first step, else the max
};

/// One frame: one step of the innermost level, every cluster advancing in lock-step.
struct Frame
{
    std::int64_t index = 0;
    std::vector<StepDelays> levels; ///< per level, outermost first
    std::vector<PeState> pes; ///< Layout::pes entries, in global PE order
};

/// Traffic of one tensor over the whole layer.
struct TensorTotals
{
    std::string name;
    bool output = false;
    std::int64_t elements = 0; ///< the tensor's index space
    std::int64_t l2Reads = 0; ///< input-class: elements sent from L2 over the top NoC (multicast once)
    std::int64_t l1Writes = 0; ///< input: elements written into PE L1s; output: partial sums (MACs done)
    std::int64_t l2Writes = 0; ///< output: partial sums returned to L2 over the top NoC
    /// DRAM <-> L2 over level 0's steps (the level-3 tiles), see "DRAM" above: elements read into L2 (an
    /// output's partial sums that come back), elements written back (outputs), and the bytes of the DRAM
    /// blocks those transfers touch.
    std::int64_t dramReads = 0, dramWrites = 0;
    std::int64_t dramReadBytes = 0, dramWriteBytes = 0;
};

/// Per-layer totals.
struct Totals
{
    std::int64_t macs = 0; ///< distinct operator iterations computed (each MAC counted once)
    std::int64_t recomputedMacs = 0; ///< extra MACs from overlapping tiles computing an output twice
    std::int64_t runtimeCycles = 0;
    std::int64_t steps = 0; ///< executed steps of level 0
    std::int64_t frames = 0;
    std::int64_t peSteps = 0; ///< frames x PEs used
    std::vector<TensorTotals> tensors; ///< per Layout::tensors
};

/// How big a simulation may get before it is refused (PE-steps: frames times PEs used).
struct Limits
{
    std::int64_t maxPeSteps = 10'000'000;
    std::int64_t maxTensorElements = std::int64_t(1) << 22; ///< one tensor's index space (8 bytes each)
    std::int64_t maxIterations = std::int64_t(1) << 28; ///< the operator's iteration space (1 bit each)
};

/// Receives frames in order; return false to stop the simulation early.
using FrameSink = std::function<bool(const Frame&)>;
/// Progress of a run: executed level-0 steps and their upper bound.
using ProgressFn = std::function<void(std::int64_t done, std::int64_t bound)>;

/// A compiled simulation of one mapped layer. Frames are produced while it runs; only the frames asked
/// for are kept, so memory does not grow with the length of the run.
class Simulator
{
public:
    /// Throws InputError when the mapping is invalid (the cost model's message) or the simulation would
    /// exceed `limits` (the message says which dimension to shrink and by how much).
    Simulator(const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc,
        Limits limits = {});
    ~Simulator();
    Simulator(Simulator&&) noexcept;
    Simulator& operator=(Simulator&&) noexcept;

    const Layout& layout() const;
    /// Runs the whole layer; frames [first, first + count) go to `sink` (none when it is empty).
    /// Totals cover the whole layer unless the sink stopped the run.
    Totals run(const FrameSink& sink = {}, std::int64_t first = 0,
        std::int64_t count = std::numeric_limits<std::int64_t>::max(), const ProgressFn& progress = {});
    /// Frames [first, first + count) (fewer at the end of the run).
    std::vector<Frame> frames(std::int64_t first, std::int64_t count);
    /// Throws what the constructor would, without allocating the simulation's state.
    static void check(const cost::Problem& problem, const mdc::Dataflow& dataflow,
        const arch::Accelerator& acc, Limits limits = {});

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// A smaller copy of a layer too large to simulate: the dimensions whose tiles make the run long (else the
/// largest) halved until the simulation fits `limits`; a window's outputs halve and its rows follow, its
/// taps stay. The directives are kept (a map larger than its shrunken dimension holds all of it).
struct ShrunkenLayer
{
    cost::Problem problem;
    std::string shrunk; ///< what changed, e.g. "K 256 -> 32, Y 56 -> 14"
};
/// nullopt when the mapping is invalid for another reason or even the smallest copy does not fit.
std::optional<ShrunkenLayer> shrunkenCopy(const cost::Problem& problem, const mdc::Dataflow& dataflow,
    const arch::Accelerator& acc, Limits limits = {});

/// Energy of a simulated layer in MAC-energy units, by the cost model's rules (corrected fidelity) from the
/// simulator's counts: MACs executed (recomputed ones included); L1: per input-class tensor its L1 writes
/// and one read per MAC, the output one read and one write per MAC; L2: per input-class tensor its L2 reads
/// and one write per element (the fill), the output its L2 writes and one read per element; DRAM: every
/// element read or written, at the accelerator's energy.dram_access.
struct Energy
{
    double mac = 0.0, l1 = 0.0, l2 = 0.0, noc = 0.0, dram = 0.0;
    double total() const { return mac + l1 + l2 + noc + dram; }
};
Energy energyOf(const Totals& totals, const arch::Accelerator& acc);

/// Convenience: the totals of one mapped layer, every frame to `sink`.
Totals simulate(const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc,
    const FrameSink& sink = {}, Limits limits = {});

} // namespace marvel::sim
