#pragma once
// Reading and writing accelerator descriptions: the project's JSON format and MAESTRO hardware files.
//
// JSON format (schema_version 1), one object; every field but num_pes and
// noc_bandwidth_elements_per_cycle is optional and defaults to the Accelerator member's default:
//   "schema_version": 1                               integer, must be 1 when present
//   "name": "P1 (Eyeriss-like)"                       string
//   "description": "..."                              string, free text: where the figures come from
//                                                     (written only when not empty)
//   "num_pes": 168                                    integer, processing elements
//   "l1_bytes": 512                                   integer, private L1 per PE, bytes
//   "l2_bytes": 110592                                integer, shared L2, bytes
//   "noc_bandwidth_elements_per_cycle": 12            integer, every NoC level
//   "noc_latency_cycles": 1                           integer, added to every NoC transfer
//                                                     (MAESTRO's NoC_NumHops)
//   "offchip_bandwidth_elements_per_cycle": 1000000   integer, DRAM <-> L2
//   "clock_mhz": 200                                  number
//   "dram_block_bytes": 64                            integer, DRAM burst granularity of the off-chip model
//   "bytes_per_element": 1                            integer, data word size
//   "simd_lanes": 1                                   integer, MACs per PE per cycle
//   "multicast": "elements"                           "elements" (or true), "tiles" or "none" (or false):
//                                                     what one NoC send reaches (arch::Multicast)
//   "spatial_reduction": true                         boolean, NoC capability
//   "energy": {"mac": 1, "l1_access": 1.68, "l2_access": 18.61, "dram_access": 0,
//              "mac_energy_nj": 0.00023}
//                                                     numbers, per event in MAC units; all optional;
//                                                     dram_access: per element moved between DRAM and
//                                                     L2 (0 when absent: MAESTRO charges none)
// Unknown fields are errors (a misspelt optional field would otherwise silently take its default).
//
// MAESTRO hardware files (.m): `key: value` pairs with MAESTRO's tokeniser (see mdc-cost-model.md §2.1,
// 2.4): num_pes, l1_size_cstr, l2_size_cstr, noc_bw_cstr, NoC_NumHops, offchip_bw_cstr. num_pes is
// required (MAESTRO takes 1 PE when it is missing, so an empty file would silently be a one-PE
// accelerator); other absent keys take MAESTRO's defaults (NoC_NumHops 1, the others 2^31-1); fields MAESTRO
// has no key for (clock, DRAM block, word size, SIMD lanes, energies) take the Accelerator defaults. MAESTRO
// counts buffer sizes in elements; the file's sizes are read as bytes at 1 byte per element.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/arch/accelerator.h"

namespace marvel::arch {

/// Parses the project's JSON accelerator format. Structural problems (syntax, unknown field, wrong
/// type) throw InputError naming `fileName` and the field or line:col; values are not validated.
Accelerator readAcceleratorJson(std::string_view text, const std::string& fileName);
/// The same from an already parsed JSON value (an accelerator embedded in another file, such as a
/// project): every field path in the diagnostics starts with `fieldPrefix` (e.g. "accelerator.").
Accelerator acceleratorFromJson(
    const nlohmann::json& object, const std::string& fileName, const std::string& fieldPrefix = {});
/// Every field, in the order documented above; parses back to an equal Accelerator.
std::string writeAcceleratorJson(const Accelerator& acc);
/// The object writeAcceleratorJson prints (field order kept), for embedding in another JSON file.
nlohmann::ordered_json acceleratorToJson(const Accelerator& acc);

/// Parses a MAESTRO hardware file; throws InputError with `file:line:col: ...` on unknown keys and
/// non-numeric values, and naming the field num_pes when the file does not give it (an empty file). The name
/// is left empty (the file has none). Values are not validated.
Accelerator readMaestroHardware(std::string_view text, const std::string& fileName);
/// The six MAESTRO keys; the name and fields MAESTRO cannot express are written as `//` comments only.
/// Sizes are written in elements (bytes / bytes_per_element), which is what MAESTRO counts.
std::string writeMaestroHardware(const Accelerator& acc);

/// Reads `path` as JSON (.json) or a MAESTRO hardware file (.m), then validates it. Throws InputError
/// for an unreadable file, an unknown extension, a syntax error or invalid values (every problem,
/// each naming the file and the field, with line:col for .m keys). A .m file's name is its stem.
Accelerator loadAccelerator(const std::string& path);
/// Writes JSON or a MAESTRO hardware file by extension, atomically (temporary file in the same folder,
/// then rename), so a failed write never leaves a truncated file. Throws InputError on failure.
void saveAccelerator(const Accelerator& acc, const std::string& path);

/// True when every parameter is equal (names are not compared).
bool sameParameters(const Accelerator& a, const Accelerator& b);

} // namespace marvel::arch
