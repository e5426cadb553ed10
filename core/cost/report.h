#pragma once
// One evaluated layer as named columns, named exactly as in MAESTRO's reference table (layers.csv),
// for the CLI's csv/json/table output and for comparisons with the reference.

#include <cstdint>
#include <string>
#include <vector>

#include "core/cost/costmodel.h"

namespace marvel::cost {

/// A named value: an exact integer or a real (printed with 6 significant digits, like MAESTRO).
struct ReportValue
{
    std::string name;
    bool integer = true;
    std::int64_t i = 0;
    double r = 0.0;
    /// "12", "3.91837", "inf", "nan".
    std::string text() const;
};

/// Every metric of `result` in the reference table's column order (layer_name is not included), then the
/// columns MAESTRO does not report: mac_energy_macu, l1_energy_macu, l2_energy_macu (the parts of
/// scr_total_energy_macu), dram_energy_macu and total_energy_macu (their sum),
/// dram_reads, dram_writes (elements), dram_read_bytes, dram_write_bytes of the layer, and per tensor
/// <tensor>_dram_read, _dram_write, _dram_read_bytes, _dram_write_bytes. The first two input-class tensors
/// are reported as "input" and "filter", the output as "output"; further input tensors under their own names.
std::vector<ReportValue> reportRow(const Result& result);

/// "ok", or "maestro-undercount" when the evaluation's Maestro figure is impossible (Result::undercount;
/// "corrected-undercount" for a Corrected one).
std::string evaluationStatus(const Result& result);
/// "wrong-mac-count" or "below-compute-bound"; empty for Undercount::None.
std::string toString(Undercount undercount);
/// Why the figure is impossible and the corrected runtime, one sentence (empty when it is not):
/// "MAESTRO's runtime 7899 cycles is below the compute bound 12168 (12460032 MACs on 1024 PEs x 1 SIMD
/// lane); corrected fidelity: 12417 cycles".
std::string undercountWarning(const Result& result);

} // namespace marvel::cost
