#pragma once
// A GAMMA-like genetic mapping search (Kao and Krishna, ICCAD 2020), our baseline beside the styles: a
// population of two-level MAESTRO mappings - per level a parallel loop, a tile size per loop (any size,
// not only divisors), a loop order, and the PEs of a cluster - evolved by crossover and mutation and
// ranked by our cost model, without the L2 capacity so that a larger L2 never gives a worse best; only
// mappings within the search's capacity rules are kept (doc/search.md, "Genetic baseline"). The
// genome is written as a loop-nest mapping in the TopSpatial form (one row of clusters spreading the
// outer parallel loop, the inner one spread inside each cluster), so its result prints, exports and
// reloads like any other. Deterministic for a given seed and evaluation budget, whatever the threads.

#include <stop_token>

#include "core/search/mapping_pool.h"
#include "core/search/search.h"

namespace marvel::search {

/// The genetic search of `space` (a prepared layer's) on `acc` with options.genetic's seed and budget;
/// options.objective ranks, the capacity rules and the fidelity are the search's. options.seeds start
/// the bests and the front (never worse than them) but do not join the population. Stops early on
/// `stop` (then `cancelled`, with the generations finished).
SearchResult searchGenetic(const LayerSpace& space, const arch::Accelerator& acc,
    const SearchOptions& options, const EvaluatorFactory& evaluators, SearchSink* sink = nullptr,
    std::stop_token stop = {});

/// searchGenetic that also gives the footprint front of every mapping it evaluated
/// (MappingPool::footprintFront): the same for every L2 size, the search ranking its population without
/// the L2 capacity.
SearchResult searchGenetic(const LayerSpace& space, const arch::Accelerator& acc,
    const SearchOptions& options, const EvaluatorFactory& evaluators,
    std::vector<MappingPool::FootprintPoint>& footprintFront, SearchSink* sink = nullptr,
    std::stop_token stop = {});

/// searchLayer's counterpart: prepares `op` and runs searchGenetic with the cost model. `offChip` is the
/// best runtime mapping's level-3 part. Throws InputError as searchLayer does.
LayerSearchResult searchLayerGenetic(const ir::Operator& op, const arch::Accelerator& acc,
    const SearchOptions& options, SearchSink* sink = nullptr, std::stop_token stop = {});

} // namespace marvel::search
