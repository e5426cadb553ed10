#pragma once
// The files `marvel search` writes of the best mappings: one MAESTRO mapping file (--export-mdc) and
// Timeloop inputs per layer (--timeloop).

#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/search_layers.h"
#include "core/export/timeloop.h"

namespace marvel::cli {

/// One MAESTRO mapping file with each mappable layer's best mapping under the layer's name, written
/// atomically.
void exportMdc(const std::vector<SearchedLayer>& layers, const std::string& path);
/// Each layer's best mapping as Timeloop input in `dir`/<layer>/ (core/export/timeloop.h), one line per
/// layer on `report`: "timeloop: LAYER: exported to ..." or "timeloop: LAYER: not exported: why".
void exportTimeloop(const std::vector<SearchedLayer>& layers, const arch::Accelerator& acc,
    const std::string& dir, std::ostream& report, const timeloop::Options& options = {});

} // namespace marvel::cli
