#pragma once
// How the design tabs (the sweep and the co-design) name accelerator parameters and their values.

#include <cstdint>

#include <QString>

#include "core/sweep/sweep.h"

namespace marvel::ui {

/// Every parameter a design axis can vary, in the grid's nesting order.
inline constexpr sweep::Parameter kParameters[] = {sweep::Parameter::Pes, sweep::Parameter::Simd,
    sweep::Parameter::L1, sweep::Parameter::L2, sweep::Parameter::NocBw, sweep::Parameter::OffchipBw};

/// "PEs", "SIMD lanes", "L1 per PE", "L2", "NoC bandwidth", "off-chip bandwidth".
QString parameterLabel(sweep::Parameter p);
/// 65536 -> "64K" for buffer sizes, plain numbers otherwise: the way --vary writes them.
QString valueLabel(sweep::Parameter p, std::int64_t v);
/// "Sequence length (prefill)", "KV cache length (decode)": a transformer's context as a sweep axis.
QString contextLabel(sweep::ContextParameter p);
/// The parameter's name as --vary takes it ("pes", "l2", ...).
QString parameterKey(sweep::Parameter p);
/// 512 -> "512 B", 65536 -> "64 KiB", 4194304 -> "4 MiB" (whole KiB and MiB only).
QString bytesText(std::int64_t bytes);
/// A design's value as a phrase: "2,048 PEs", "1 SIMD lane", "L1 128 B per PE", "L2 256 KiB",
/// "NoC 512 elements/cycle", "off-chip 64 elements/cycle".
QString designValueText(sweep::Parameter p, std::int64_t v);

} // namespace marvel::ui
