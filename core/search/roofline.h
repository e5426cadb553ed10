#pragma once
// Roofline of an operator on an accelerator: the runtime no mapping can beat.
//
//   roofline cycles = max(compute bound, NoC bound, off-chip bound)
//   compute bound   = ceil(MACs / usable PEs),  usable PEs = numPes * simdLanes
//   NoC bound       = max(ceil(compulsory reads / nocBandwidth), ceil(compulsory writes / nocBandwidth))
//   off-chip bound  = ceil((compulsory reads + compulsory writes) / offchipBandwidth)
//   compulsory reads  = distinct elements of the tensors only read (inputs and weights), each once;
//   compulsory writes = distinct elements of the tensors written (outputs), each once.
// NoC reads and writes are bounded separately because the NoC is bidirectional, as in the paper's
// platforms and in the MDC cost model, where a step costs max(ingress, compute, egress), not their sum.
// DRAM has one data bus: reads and writes share the off-chip bandwidth, as in the cost model's corrected
// fidelity, where each top-level step lasts at least its DRAM reads and writes at that bandwidth, and a
// mapping moves at least the compulsory traffic (doc/cost-model.md, "Off-chip bandwidth"). (MAESTRO's
// formula, kept in maestro fidelity, bounds a step by the first tile's transfer only and can go below.)
// MACs = statement instances (one multiply-accumulate per statement per iteration; triangular loops
// counted exactly). Bandwidths are elements per cycle, as in MAESTRO. The geometric mean of
// runtime / roofline is the search's quality figure (paper: 1.31 on P1, 1.10 on P2).

#include <cstdint>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/ir/operator.h"

namespace marvel::search {

struct Roofline
{
    std::int64_t macs = 0;
    std::int64_t usablePes = 1;
    std::int64_t computeCycles = 0;
    std::int64_t compulsoryElements = 0; ///< all tensors, each distinct element once
    std::int64_t readElements = 0; ///< of that, the tensors that are only read
    std::int64_t writeElements = 0; ///< of that, the tensors that are written
    std::int64_t nocCycles = 0;
    std::int64_t offchipCycles = 0;
    std::int64_t cycles = 0; ///< the max of the three bounds
};

/// Number of iterations of the nest (exact for triangular bounds; sizes substitute the bound names).
std::int64_t iterationCount(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes);

Roofline roofline(
    const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes, const arch::Accelerator& acc);

/// Why `runtime` lies below the roofline `r`, for the reports that show the two side by side: which bound
/// it breaks and what lets it (maestro fidelity keeps MAESTRO's formulas: its off-chip time does not
/// hold each step's DRAM traffic to the bandwidth). Empty when the runtime is at or above the roofline.
std::string belowRooflineNote(std::int64_t runtime, const Roofline& r);

} // namespace marvel::search
