#pragma once
// The abstract spatial accelerator of the paper: a PE array with private L1 buffers, a shared L2
// buffer, a NoC between them and DRAM behind L2.

#include <cstdint>
#include <string>
#include <vector>

#include "core/util/diagnostic.h"

namespace marvel::arch {

/// Energy per event in units of one MAC's energy (MAESTRO's defaults; DRAM: none).
struct EnergyModel
{
    double mac = 1.0;
    double l1Access = 1.68;
    double l2Access = 18.61;
    double macEnergyNanojoule = 0.00023; ///< converts MAC units to nJ (MAESTRO's CSV constant)
    /// One element moved between DRAM and L2 (read or written). MAESTRO charges none: 0, so MAESTRO's
    /// hardware files and the paper's platforms keep MAESTRO's energies.
    double dramAccess = 0.0;
};

/// What one send of the NoC can reach (corrected fidelity; Maestro fidelity keeps MAESTRO's Elements).
/// Elements: an element several sub-units lack in one step is sent once to all of them, whatever else
/// each receives (a bus or tree whose receivers pick their elements). Tiles: only sub-units that receive
/// identical data share a send; overlapping tiles (a sliding window's halo spread over PEs) are sent to
/// each - Timeloop's default multicast. None: every receiver gets its own copy.
enum class Multicast { Elements, Tiles, None };
/// "elements", "tiles", "none".
const char* toString(Multicast m);

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
    EnergyModel energy;

    std::int64_t l1Elements() const { return l1Bytes / bytesPerElement; }
    std::int64_t l2Elements() const { return l2Bytes / bytesPerElement; }
    /// Peak MACs per cycle of the whole array.
    std::int64_t peakMacsPerCycle() const { return numPes * simdLanes; }
};

/// Every problem with the parameters (zero PEs, zero bandwidth, negative or absurd sizes), each
/// naming its field. Empty when the accelerator is usable.
std::vector<Diagnostic> validate(const Accelerator& acc);

} // namespace marvel::arch
