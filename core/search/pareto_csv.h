#pragma once
// The Pareto-front CSV both programs write (`marvel search --pareto-csv`, the plot's "Export Pareto front
// as CSV"): one header, one row per front mapping, numbers written so that they read back exactly.

#include <string>
#include <vector>

#include "core/search/onchip_search.h"

namespace marvel::search {

/// `layer,runtime_cycles,energy,edp,utilization,mac_energy,l1_energy,l2_energy,dram_energy,dram_reads,
/// dram_writes,dram_read_bytes,dram_write_bytes` and a line break (energy: the total; DRAM traffic in
/// elements and bytes).
std::string paretoCsvHeader();

/// One row per mapping of `front` (in its order, runtime ascending for a search's front) under `layer`
/// (quoted when it must be); doubles in their shortest exact form (exactNumber: 0.00451942, not
/// 0.0045194199999999997).
std::string paretoCsvRows(const std::string& layer, const std::vector<Candidate>& front);

} // namespace marvel::search
