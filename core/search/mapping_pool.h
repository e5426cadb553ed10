#pragma once
// Batches of complete loop-nest mappings evaluated with the cost model, in parallel but with results that
// do not depend on the thread count: the searches that propose mappings themselves (the genetic baseline,
// the refinement after the decoupled search) share it. It applies the search's capacity rules, refuses
// any runtime no mapping can reach (below the compute bound of its PEs or the layer's transfer bounds),
// remembers every mapping it evaluated and keeps the three bests and the runtime-energy front as the
// decoupled search does.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <unordered_map>
#include <vector>

#include "core/search/onchip_search.h"

namespace marvel::search {

class MappingPool
{
public:
    MappingPool(const LayerSpace& space, const arch::Accelerator& acc, const SearchOptions& options,
        const EvaluatorFactory& evaluators, SearchSink* sink);

    /// What the cost model said of one mapping: it fits the buffers (the search keeps it), it does not
    /// (`overflow`: the larger of its L1 and L2 requirement over the capacity, > 1; `l1Overflow` the L1
    /// one, 0 when it fits L1), the cost model or the MDC transformation refused it, or it was not
    /// evaluated (the batch's limit).
    enum class Status { Fits, OverCapacity, Rejected, NotEvaluated };
    struct Outcome
    {
        Status status = Status::NotEvaluated;
        bool impossible = false; ///< Rejected for an impossible figure (SearchStats::impossibleFigures)
        Metrics metrics;
        double overflow = 0.0;
        double l1Overflow = 0.0;
        std::uint64_t index = 0; ///< the mapping's index (equal for a repeat), unless NotEvaluated
        /// Evaluated and within L1 (perhaps not within L2): metrics hold its figures.
        bool fitsL1() const
        {
            return status == Status::Fits || (status == Status::OverCapacity && l1Overflow == 0);
        }
    };
    /// A mapping evaluated that fits L1 (perhaps not L2), with its figures and objective value.
    struct FootprintPoint
    {
        mapping::LoopNestMapping mapping;
        Metrics metrics;
        double objective = 0.0;
        std::uint64_t index = 0;
    };

    /// Earlier results (the decoupled search's bests and front): they take the first indices, start the
    /// bests and the front and win ties; not counted as evaluated. Call before the first batch.
    void addSeeds(const std::vector<Candidate>& seeds);
    /// Evaluates the batch in parallel; a mapping seen before (in an earlier batch or earlier in this one)
    /// comes from memory and costs nothing. At most `maxNew` new mappings are evaluated, the first ones
    /// in batch order; later new ones are NotEvaluated. Outcomes in batch order.
    std::vector<Outcome> evaluate(const std::vector<mapping::LoopNestMapping>& batch, std::uint64_t maxNew,
        const std::stop_token& stop);

    /// Cost-model evaluations so far (seeds and repeats excluded).
    std::uint64_t evaluated() const { return m_evaluated; }
    /// Cycles no mapping of the layer can beat whatever its PEs: its compulsory NoC and off-chip traffic
    /// (each distinct element of the tensors read, and of those written, once) over the bandwidths, as
    /// the roofline counts them (search::roofline; a tensor referenced twice counts its larger reference
    /// here, so this never exceeds the roofline's transfer bounds).
    std::int64_t transferFloor() const { return m_transferFloor; }
    /// The objective's value of a fitting mapping (lower is better).
    double objectiveValue(const Metrics& m) const;
    /// Whether `a` ranks before `b` for the search's objective: better on it, or as good and better on
    /// the other metric (runtime for energy and EDP, energy for runtime), as the bests are kept.
    bool ranksBefore(const Metrics& a, const Metrics& b) const;
    /// The best fitting mapping for the search's objective so far.
    const Candidate* best() const;
    /// Bests, front and statistics so far (stats.evaluated, rejected, overL1/overL2, min requirements).
    SearchResult result() const;
    /// The mappings evaluated so far that fit L1 and that no other beats on both the objective and the
    /// L2 requirement, by ascending L2 requirement (ties to the first evaluated): the best this pool has
    /// for every L2 size at once, what fits the accelerator's included.
    const std::vector<FootprintPoint>& footprintFront() const { return m_footprintFront; }

private:
    struct Key
    {
        std::vector<std::int64_t> values;
        friend bool operator==(const Key&, const Key&) = default;
    };
    struct KeyHash
    {
        std::size_t operator()(const Key& k) const;
    };
    static Key keyOf(const mapping::LoopNestMapping& m);
    Outcome evaluateOne(MappingEvaluator& evaluator, const mapping::LoopNestMapping& m) const;
    void addToFootprintFront(std::uint64_t index, const mapping::LoopNestMapping& m, const Metrics& metrics);
    void absorb(std::uint64_t index, const mapping::LoopNestMapping& m, const Metrics& metrics,
        std::vector<EvaluatedPoint>& points, bool& frontChanged);

    const LayerSpace& m_space;
    const arch::Accelerator& m_acc;
    const SearchOptions& m_options;
    const EvaluatorFactory& m_factory;
    SearchSink* m_sink;
    std::int64_t m_transferFloor = 0;
    std::vector<std::unique_ptr<MappingEvaluator>> m_evaluators;
    std::unordered_map<Key, Outcome, KeyHash> m_seen;
    std::uint64_t m_nextIndex = 0;
    std::uint64_t m_evaluated = 0;
    SearchStats m_stats;
    std::optional<Candidate> m_best[3]; ///< runtime, energy, EDP
    ParetoFront m_front;
    std::map<std::uint64_t, Candidate> m_frontCandidates;
    std::vector<FootprintPoint> m_footprintFront;
};

} // namespace marvel::search
