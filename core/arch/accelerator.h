#pragma once
// The abstract spatial accelerator of the paper: a PE array with private L1 buffers, a shared L2
// buffer, a NoC between them and DRAM behind L2.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/util/diagnostic.h"

namespace marvel::tech {
struct Technology;
}

namespace marvel::arch {

/// Energy per event in energy units: one MAC's energy (MAESTRO's defaults; DRAM: none), or pJ when a
/// technology table sets them (tech::applyTechnology).
struct EnergyModel
{
    double mac = 1.0;
    double l1Access = 1.68; ///< an L1 read (and write, unless l1Write is set)
    double l2Access = 18.61; ///< an L2 read (and write, unless l2Write is set)
    double macEnergyNanojoule = 0.00023; ///< converts energy units to nJ (MAESTRO's CSV constant)
    /// One element moved between DRAM and L2 (read or written). MAESTRO charges none: 0, so MAESTRO's
    /// hardware files and the paper's platforms keep MAESTRO's energies.
    double dramAccess = 0.0;
    /// Writes where they cost other than reads (technology tables); negative: as the read.
    double l1Write = -1.0, l2Write = -1.0;
    /// One element sent over the NoC between L2 and the PEs (a multicast once); MAESTRO charges none.
    double nocElement = 0.0;
    /// One element operation of the vector unit (an add, a multiply, an exp...): a MAC's by default.
    double vectorOp = 1.0;
    double l1WriteEnergy() const { return l1Write < 0 ? l1Access : l1Write; }
    double l2WriteEnergy() const { return l2Write < 0 ? l2Access : l2Write; }
    /// A buffer's energy for its reads and writes: at one energy when writes cost as reads (MAESTRO's
    /// products bit for bit, the counts being exact in a double), else each at its own.
    double l1Energy(double reads, double writes) const { return split(l1Access, l1Write, reads, writes); }
    double l2Energy(double reads, double writes) const { return split(l2Access, l2Write, reads, writes); }

private:
    static double split(double read, double write, double reads, double writes)
    {
        return write < 0 ? read * (reads + writes) : read * reads + write * writes;
    }
};

/// What one send of the NoC can reach (corrected fidelity; Maestro fidelity keeps MAESTRO's Elements).
/// Elements: an element several sub-units lack in one step is sent once to all of them, whatever else
/// each receives (a bus or tree whose receivers pick their elements). Tiles: only sub-units that receive
/// identical data share a send; overlapping tiles (a sliding window's halo spread over PEs) are sent to
/// each - Timeloop's default multicast. None: every receiver gets its own copy.
enum class Multicast { Elements, Tiles, None };
/// "elements", "tiles", "none".
const char* toString(Multicast m);

/// A vector unit beside the PE array for the operators that are not matrix products (softmax, the
/// normalisations, activation functions, element-wise arithmetic): `lanes` lanes of `opsPerCycle` element
/// operations per cycle each, with `registerBytes` of registers per lane, fed from L2 over the NoC. Without
/// one (lanes 0) those operators run on the PE array, one statement instance per PE per cycle.
struct VectorUnit
{
    std::int64_t lanes = 0;
    std::int64_t opsPerCycle = 1;
    std::int64_t registerBytes = 64;
    friend bool operator==(const VectorUnit&, const VectorUnit&) = default;
};

/// Hardware parameters. Sizes are bytes; bandwidths are elements per cycle (as MAESTRO counts them).
struct Accelerator
{
    std::string name;
    /// Free text kept with the parameters: where the figures come from (a preset's citations).
    std::string description;
    std::int64_t numPes = 1;
    std::int64_t l1Bytes = 512; ///< per PE
    std::int64_t l2Bytes = 110592; ///< shared
    std::int64_t nocBandwidth = 1; ///< elements per cycle, every NoC level
    std::int64_t nocLatency = 1; ///< cycles added to every NoC transfer (MAESTRO's NoC_NumHops)
    std::int64_t offchipBandwidth = 1000000; ///< elements per cycle between DRAM and L2
    double clockMHz = 200.0;
    std::int64_t dramBlockBytes = 64;
    std::int64_t bytesPerElement = 1;
    std::int64_t simdLanes = 1; ///< MACs per PE per cycle
    Multicast multicast = Multicast::Elements;
    bool spatialReduction = true;
    VectorUnit vectorUnit;
    EnergyModel energy;
    /// The technology table the energies come from (a name of samples/technology or a file), its DRAM
    /// type (empty: the table's default) and the table itself; empty: `energy` as given.
    std::string technology;
    std::string dramType;
    std::shared_ptr<const tech::Technology> technologyTable;

    std::int64_t l1Elements() const { return l1Bytes / bytesPerElement; }
    std::int64_t l2Elements() const { return l2Bytes / bytesPerElement; }
    /// Peak MACs per cycle of the whole array.
    std::int64_t peakMacsPerCycle() const { return numPes * simdLanes; }
};

/// The vector unit as the cost model and the search see it for an operator whose statement takes
/// `opsPerInstance` element operations: a one-dimensional array of lanes * opsPerCycle / opsPerInstance
/// units (at least one), each finishing one statement instance per cycle with the registers of the lanes
/// it stands for as its L1, the L2 and NoC of `acc`, and a statement instance's energy opsPerInstance
/// element operations. Its own vectorUnit is empty, so it is never mapped again.
Accelerator vectorUnitView(const Accelerator& acc, std::int64_t opsPerInstance);

/// Every problem with the parameters (zero PEs, zero bandwidth, negative or absurd sizes), each
/// naming its field. Empty when the accelerator is usable.
std::vector<Diagnostic> validate(const Accelerator& acc);

} // namespace marvel::arch
