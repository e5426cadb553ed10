#pragma once
// What `marvel search` prints of searched layers: the readable text report, the --json object, the
// --pareto-csv table, and the lines they share (fidelity, capacity warnings, physical figures).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "app/cli/search_layers.h"
#include "core/tech/technology.h"

namespace marvel::cli {

/// "cost model: F fidelity (what it counts; how to get the other)", a line ending in a newline.
std::string fidelityLine(search::Fidelity fidelity);
/// Warnings for capacity checks the options switch off (empty when both are on).
std::string capacityWarning(const search::SearchOptions& options);

/// The figures of a searched mapping in physical units (tech::physical) on `acc`.
tech::Physical physicalOf(const search::Metrics& m, const arch::Accelerator& acc);
/// `{"energy_pj", "area_mm2", "power_mw", "energy_parts_pj": {...}}` members for a --json object.
void addPhysicalJson(nlohmann::json& j, const tech::Physical& p);
/// "   physical (technology 45nm (LPDDR4)): energy 1.23 mJ = MAC ... + DRAM ...; area 2.5 mm2; 812 mW at
/// 200 MHz\n".
std::string physicalLine(const tech::Physical& p, const arch::Accelerator& acc);

/// The `--json` object of issue 4.
nlohmann::json searchJson(const std::vector<SearchedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc);
/// The readable report: per layer runtime, energy, roofline ratio, the tiled loop nest and the MDC.
std::string searchText(const std::vector<SearchedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc);
/// `layer,runtime_cycles,energy,edp,utilization,mac_energy,l1_energy,l2_energy,dram_energy,dram_reads,
/// dram_writes,dram_read_bytes,dram_write_bytes` (energy: their total; DRAM traffic in elements and bytes)
/// and one row per point of every layer's runtime-energy Pareto front (runtime ascending), numbers
/// written so that they read back exactly.
std::string paretoCsv(const std::vector<SearchedLayer>& layers);

} // namespace marvel::cli
