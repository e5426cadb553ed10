#pragma once
// Checking the analytical cost model against the simulator: random small mapped layers and the
// comparison of their numbers. Shared by the property test (tests/core/tst_sim.cpp) and `marvel bench sim`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/cost/problem.h"
#include "core/export/timeloop.h"
#include "core/mdc/dataflow.h"
#include "core/sim/simulator.h"

namespace marvel::sim {

/// One random mapped layer: an operator (CONV1D, strided CONV2D, depth-wise or GEMM), a valid mapping of
/// 1-3 cluster levels (random orders, tiles, offsets, cluster sizes, partial edge tiles) and an accelerator
/// (with DRAM blocks of 1-4 elements and random contiguous dimensions in DRAM).
struct RandomCase
{
    std::string kind; ///< "conv1d", "conv2d", "depthwise", "gemm"
    int levels = 1;
    cost::Problem problem;
    mdc::Dataflow dataflow;
    arch::Accelerator acc;
    std::string text() const; ///< the operator's sizes, the directives and the accelerator, one line
};

/// Case `index` of the deterministic random set `seed` (the same case on every machine). The mapping is
/// one the cost model accepts; `levels` is 1 + index % 3.
RandomCase randomCase(std::uint64_t seed, int index);

/// Whether a check keeps a mapping of the random set: every one without a space, else those the Timeloop
/// exporter writes (timeloop::Checker::expressible) in that space (the narrow one: Options::searchSpaceOnly,
/// `--timeloop-space narrow`; the wide one: every exported mapping, `--timeloop-compatible`'s default).
bool keeps(std::optional<timeloop::SearchSpace> space, const RandomCase& c);

/// One number both sides report.
struct MetricCheck
{
    std::string metric; ///< "macs", "runtime", "l2_reads", "l1_writes", "l2_writes", "dram_reads", ...
    std::string tensor; ///< tensor name for traffic metrics
    std::int64_t simulated = 0;
    std::int64_t model = 0; ///< cost model, corrected fidelity (analytic count for "macs")
    bool agrees() const { return simulated == model; }
};

/// Simulates the case and evaluates it with the cost model in corrected fidelity: macs against the
/// analytic MAC count, runtime, L2 reads and L1 writes of each input-class tensor, output L2 writes, and
/// every tensor's DRAM reads and read bytes (the output's DRAM writes and write bytes too).
/// `stepWalk` false: the cost model's per-case tables only (cost::Options::stepWalk), and the general DRAM
/// sums only (cost::Options::dramClosedForm).
std::vector<MetricCheck> compareWithCostModel(const RandomCase& c, bool stepWalk = true);

} // namespace marvel::sim
