#pragma once
// The 34 layer/accelerator cases on which issues 22 and 33 measured GAMMA (Kao and Krishna, ICCAD 2020: a
// genetic search over two-level MAESTRO mappings, MAESTRO as its evaluator) against our search, with
// GAMMA's figures in corrected fidelity. GAMMA ran as an outside oracle (doc/search.md, "Against GAMMA");
// its best valid mapping of each case is kept in tests/data/gamma/<id>.m, so the figure can be checked
// with our own cost model, and `marvel bench gamma` searches every case.

#include <cstdint>
#include <string>
#include <vector>

namespace marvel::workloads {

/// One case: a stride-1 layer (output sizes), an accelerator preset with a PE count, and GAMMA's figures.
struct GammaCase
{
    enum class Kind { Conv, Depthwise };
    std::string id; ///< also the stem of its mapping file
    std::string layer;
    Kind kind = Kind::Conv;
    std::int64_t K = 1, C = 1, Y = 1, X = 1, R = 1, S = 1; ///< K is 1 for depth-wise layers
    std::string platform; ///< stem of samples/accelerators/<platform>.json
    std::int64_t pes = 0; ///< replaces the preset's PE count
    /// GAMMA's best mapping that our cost model accepts (right MAC count, fits L1 and L2), in the order
    /// GAMMA ranks (MAESTRO's runtime), better of two seeds: its runtime in corrected fidelity.
    std::int64_t gammaCycles = 0;
    /// The fastest mapping, in corrected fidelity, among every valid one GAMMA evaluated in either run
    /// (which GAMMA itself may have ranked lower, misled by MAESTRO's undercounts).
    std::int64_t gammaBestSeenCycles = 0;

    std::int64_t macs() const { return K * C * Y * X * R * S; }
    /// The layer as a `.loop` operator (GEMMs were given to GAMMA as 1x1 convolutions, X = 1).
    std::string loopText() const;
};

const std::vector<GammaCase>& gammaCases();

} // namespace marvel::workloads
