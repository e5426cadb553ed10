#pragma once
// Technology tables: what one action costs in energy (pJ) and what a component costs in area (um^2) in a
// process, so that a design's figures can be held against budgets in mJ, mm^2 and mW. A table gives the
// MAC per operand width, the L1 and L2 buffers as curves over their capacity (per access of a word of
// the point's width, read and write apart, area and leakage), the NoC per element moved and DRAM per
// bit for a few memory types. An accelerator that names a table takes its per-access energies from it
// for its own sizes (arch::Accelerator::technology, applyTechnology), so every search and report ranks
// and shows the same figures.
//
// JSON (samples/technology/*.json, doc/technology.md):
//   "schema_version": 1, "name": "45nm", "description": "...",
//   "energy_unit": "pJ" | "fJ" | "nJ" | "mac"   ("mac": MAC units, then "mac_unit_pj" converts)
//   "area_model": "table" | "maestro"           ("maestro": MAESTRO's area/power formulas, cost::areaPower)
//   "mac": [{"bits": 16, "energy": 0.315, "area_um2": 993, "leak_per_cycle": 0.0036, "source": "..."}]
//   "l1", "l2": [{"bytes": 384, "word_bits": 16, "read": 3.0, "write": 2.86, "area_um2": 264,
//                 "leak_per_cycle": 0.0024, "source": "..."}, ...]     (capacity ascending)
//   "noc": {"energy_per_element_bits": 16, "energy": 0.63, "source": "..."}
//   "vector": {"energy": 0.315, "area_um2": 993, "leak_per_cycle": 0.0036, "source": "..."}   (optional:
//             one element operation of a vector-unit lane and a lane's area; default the MAC's)
//   "dram": {"default": "LPDDR4", "types": {"LPDDR4": {"energy_per_bit": 8, "source": "..."}, ...}}
// Energies are in energy_unit, leakage in energy_unit per cycle. Between two capacities a curve is
// interpolated linearly in log(capacity) and log(value); beyond its ends it follows its end segment's
// slope (a single point is a constant), so a bigger buffer never costs less per access.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/arch/accelerator.h"

namespace marvel::tech {

/// One measured size of a buffer: energies per access of `wordBits`, in pJ after reading.
struct BufferPoint
{
    double bytes = 0.0;
    double wordBits = 0.0;
    double readPj = 0.0, writePj = 0.0;
    double areaUm2 = 0.0;
    double leakPjPerCycle = 0.0;
};

/// A MAC unit of one operand width.
struct MacPoint
{
    int bits = 0; ///< 0: every width
    double energyPj = 0.0;
    double areaUm2 = 0.0;
    double leakPjPerCycle = 0.0;
};

/// A technology table, energies converted to pJ.
struct Technology
{
    std::string name, description;
    std::string file; ///< where it was read from
    bool macUnits = false; ///< the table's energies are MAC units (reports keep them so)
    double macUnitPj = 1.0; ///< pJ of one energy unit of the resolved model (1 for pJ tables)
    bool maestroArea = false; ///< area and power from MAESTRO's formulas (cost::areaPower)
    std::vector<MacPoint> macs;
    std::vector<BufferPoint> l1, l2;
    double nocPjPerBit = 0.0;
    /// A vector-unit lane (arch::VectorUnit): energy per element operation, area and leakage per lane;
    /// nullopt: the MAC of the element width stands for it.
    std::optional<MacPoint> vectorLane;
    std::string defaultDram;
    std::map<std::string, double> dramPjPerBit;
};

/// Reads a table; throws InputError naming `fileName` and the field (a missing action, a negative value,
/// a curve whose capacities do not ascend or whose energy or area falls as capacity grows, an unknown
/// unit or DRAM type).
Technology readTechnologyJson(std::string_view text, const std::string& fileName);
/// A table by file name (a .json path; relative ones also beside the file `relativeTo`) or by the name
/// of one in samples/technology ("maestro", "45nm"; also ../technology beside `relativeTo`, so that an
/// accelerator file finds the tables of its samples tree). Throws InputError naming the table.
std::shared_ptr<const Technology> loadTechnology(
    const std::string& nameOrPath, const std::string& relativeTo = {});
/// The names of the tables in samples/technology, sorted.
std::vector<std::string> technologyNames();

/// What a table makes of an accelerator's sizes: per-access energies (in the table's unit when it counts
/// MAC units, else pJ), area and leakage.
struct Resolved
{
    arch::EnergyModel energy;
    /// Area in um^2 of the MACs (all PEs and lanes, and the vector unit's lanes), the L1s, the L2 (a
    /// table's curves; 0 with maestroArea) and their sum.
    double macAreaUm2 = 0.0, l1AreaUm2 = 0.0, l2AreaUm2 = 0.0, areaUm2 = 0.0;
    double leakPjPerCycle = 0.0; ///< of the whole design
};
/// Throws InputError naming `dramField` when `dramType` is not one of the table's (empty: its default).
Resolved resolve(const Technology& table, const arch::Accelerator& acc, const std::string& dramType = {},
    const std::string& dramField = "dram_type");

/// Sets acc.energy from acc's technology for its current sizes (nothing without one). Call after changing
/// a size, the word width or the DRAM type.
void applyTechnology(arch::Accelerator& acc);

/// A design's figures in physical units. Energy in pJ (the energy units times the unit's pJ) and its
/// parts MAC, L1, L2, NoC, DRAM; area in mm^2 of the design's capacities (its silicon, whatever one
/// mapping needs) and average power in mW at the clock over `runtimeCycles` (dynamic energy over the
/// time plus leakage). Without a table, or with MAESTRO's area model, area and power are MAESTRO's
/// formulas for the capacities (cost::areaPower, nominally um^2 and mW), as design sweeps report them.
struct EnergyParts
{
    double mac = 0.0, l1 = 0.0, l2 = 0.0, noc = 0.0, dram = 0.0; ///< in the accelerator's energy units
};
struct Physical
{
    double energyPj = 0.0;
    double macPj = 0.0, l1Pj = 0.0, l2Pj = 0.0, nocPj = 0.0, dramPj = 0.0;
    double areaMm2 = 0.0;
    double powerMw = 0.0;
    double leakageMw = 0.0; ///< part of powerMw (0 with MAESTRO's model)
    bool tableArea = false; ///< area and power from the table (else MAESTRO's formulas)
};
Physical physical(const arch::Accelerator& acc, const EnergyParts& parts, std::int64_t runtimeCycles);
/// "technology 45nm (LPDDR4)" or "MAESTRO's energies (0.23 pJ per MAC unit) and area/power formulas".
std::string describe(const arch::Accelerator& acc);
/// Whether reports show the energies in pJ (a table in pJ) rather than MAC units.
bool physicalUnits(const arch::Accelerator& acc);

/// "1.23 mJ", "456 uJ", "78.9 nJ", "12.3 pJ" (three significant digits).
std::string formatPicojoules(double pj);

} // namespace marvel::tech
