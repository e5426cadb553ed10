#pragma once
// `marvel search --compare-styles`: each layer searched by Marvel and under each dataflow style, reported
// side by side as text or JSON.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "app/cli/search_layers.h"

namespace marvel::cli {

/// A layer searched by Marvel and under each style (`marvel search --compare-styles`).
struct ComparedLayer
{
    SearchedLayer marvel;
    std::vector<SearchedLayer> styles; ///< in styles::allStyles() order
};

/// `--compare-styles`: per layer and in total, Marvel's best beside each style's best (runtime, energy
/// and their ratios style / Marvel, above 1 where Marvel is better), with the geometric means of the
/// per-layer ratios. Every mapped entry also has the physical figures on `acc` (energy_pj, its parts,
/// area_mm2, power_mw), the totals their energy_pj.
nlohmann::json compareStylesJson(const std::vector<ComparedLayer>& layers,
    const search::SearchOptions& options, double elapsed, const arch::Accelerator& acc);
std::string compareStylesText(const std::vector<ComparedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc);

} // namespace marvel::cli
