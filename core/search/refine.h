#pragma once
// The anytime refinement that follows the decoupled search (SearchOptions::refine, issue 22): the genetic
// search (core/search/genetic.h) with the decoupled result as seeds, then local moves: from points of
// the genetic search's footprint front, blind to the L2 size as the genetic search is (issue 21), then
// from the best mapping either found, then from re-splits of the PE array between two loops (issue 33). The
// decoupled search keeps to the off-chip solver's level-3 tiles and the tile shapes it enumerates; GAMMA-like
// two-level mappings whose clusters fill the PE array (56 clusters of 3 PEs on 168) and tile sizes that do
// not divide lie outside it. Deterministic for a given seed and budget, whatever the threads; a stop returns
// the best found so far.

#include <stop_token>

#include "core/search/mapping_pool.h"
#include "core/search/onchip_search.h"

namespace marvel::search {

/// Refines `decoupled` (a search of `space` with `options`): never worse than it on any objective, its
/// front dominated by the result's; and, the genetic stage running exactly as searchGenetic with the
/// same options does (seeds change its course in nothing), never worse than that search either. The
/// result counts both stages' evaluations and time, not the decoupled search's.
SearchResult refineSearch(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const SearchResult& decoupled, const EvaluatorFactory& evaluators, SearchSink* sink = nullptr,
    std::stop_token stop = {});

/// The refinement's genetic stage run ahead of the decoupled search (searchLayer): the genetic search
/// exactly as refineSearch runs it (seeds change its course in nothing, so none are given), and the
/// footprint front its local stage starts from. Seeding the decoupled search with its bests lets that
/// search's bound skip every tile that cannot beat them: most of its evaluations in corrected fidelity.
struct GeneticStage
{
    SearchResult result;
    std::vector<MappingPool::FootprintPoint> footprintFront;
};
GeneticStage geneticStage(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const EvaluatorFactory& evaluators, SearchSink* sink = nullptr, std::stop_token stop = {});

/// refineSearch after geneticStage: `seededDecoupled` is the decoupled search seeded with the stage's
/// bests and front (seedsFrom), so its bests and front are those of both; the local stage follows as in
/// refineSearch. The result counts the stage's and the local stage's evaluations and time.
SearchResult refineSearch(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const GeneticStage& stage, const SearchResult& seededDecoupled, const EvaluatorFactory& evaluators,
    SearchSink* sink = nullptr, std::stop_token stop = {});

/// The local stage alone: steepest descent over single moves (one tile size of one loop at one level, two
/// neighbouring loops of an order, the MDC form) from the best of `seeds` for options.objective, at most
/// `evaluations` cost-model evaluations. Never worse than the seeds.
/// With `footprintStarts` (an earlier search's MappingPool::footprintFront), half the budget first goes to
/// descents from up to eight of them spread along it, each keeping to the L2 its start needs whatever
/// the L2 capacity: what they visit is the same for every L2 size, so their best under a larger L2 is
/// never worse.
/// Then, with at most `rearrangeEvaluations` further evaluations (everything before runs as without
/// them): from the best mapping, the best-ranked of the mappings that split the PE array anew between
/// two loops (p over clusters, q over the PEs of a cluster), a descent from the fittest of them, again
/// from the new best while that ends better. A single move changes one loop's parallelism at a time, so
/// the descents rarely leave the arrangement of the PE array they start from.
SearchResult localSearch(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
    const std::vector<Candidate>& seeds, std::uint64_t evaluations, const EvaluatorFactory& evaluators,
    SearchSink* sink = nullptr, std::stop_token stop = {},
    const std::vector<MappingPool::FootprintPoint>& footprintStarts = {},
    std::uint64_t rearrangeEvaluations = 0);

} // namespace marvel::search
