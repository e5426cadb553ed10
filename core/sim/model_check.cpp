#include "core/sim/model_check.h"

#include <algorithm>
#include <map>
#include <random>

#include "core/cost/costmodel.h"
#include "core/ir/parser.h"

namespace marvel::sim {

namespace {

using i64 = std::int64_t;

std::string loopText(const std::string& kind, std::mt19937_64& rng)
{
    auto pick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
    auto n = [](i64 v) { return std::to_string(v); };
    if (kind == "conv1d") {
        const i64 K = pick(1, 3), C = pick(1, 3), X = pick(2, 8), S = pick(1, 3);
        return "operator conv1d(K = " + n(K) + ", C = " + n(C) + ", X = " + n(X) + ", S = " + n(S)
            + ") {\n  for (k = 0; k < K; k++)\n    for (c = 0; c < C; c++)\n      for (x = 0; x < X; x++)\n"
              "        for (s = 0; s < S; s++)\n          O[k][x] += W[k][c][s] * I[c][x + s];\n}\n";
    }
    if (kind == "gemm") {
        const i64 M = pick(1, 8), N = pick(1, 6), K = pick(1, 8);
        return "operator gemm(M = " + n(M) + ", N = " + n(N) + ", K = " + n(K)
            + ") {\n  for (m = 0; m < M; m++)\n    for (n = 0; n < N; n++)\n      for (k = 0; k < K; k++)\n"
              "        O[m][n] += A[m][k] * B[k][n];\n}\n";
    }
    const i64 st = pick(1, 2), Y = pick(2, 5), X = pick(2, 5), R = pick(1, 3), S = pick(1, 3);
    auto sub = [&](const char* o, const char* f) {
        return (st == 1 ? std::string(o) : n(st) + "*" + o) + " + " + f;
    };
    if (kind == "depthwise") {
        const i64 C = pick(1, 4);
        return "operator dw(C = " + n(C) + ", Y = " + n(Y) + ", X = " + n(X) + ", R = " + n(R)
            + ", S = " + n(S)
            + ") {\n  for (c = 0; c < C; c++)\n    for (y = 0; y < Y; y++)\n      for (x = 0; x < X; x++)\n"
              "        for (r = 0; r < R; r++)\n          for (s = 0; s < S; s++)\n"
              "            O[c][y][x] += W[c][r][s] * I[c]["
            + sub("y", "r") + "][" + sub("x", "s") + "];\n}\n";
    }
    const i64 K = pick(1, 3), C = pick(1, 3);
    return "operator conv2d(K = " + n(K) + ", C = " + n(C) + ", Y = " + n(Y) + ", X = " + n(X)
        + ", R = " + n(R) + ", S = " + n(S)
        + ") {\n  for (k = 0; k < K; k++)\n    for (c = 0; c < C; c++)\n      for (y = 0; y < Y; y++)\n"
          "        for (x = 0; x < X; x++)\n          for (r = 0; r < R; r++)\n            for (s = 0; s < "
          "S; s++)\n"
          "              O[k][y][x] += W[k][c][r][s] * I[c]["
        + sub("y", "r") + "][" + sub("x", "s") + "];\n}\n";
}

// A random mapping of `levels` cluster levels over the user-facing dimensions of `p` (window outputs by
// their own names, as a user writes them for an operator).
mdc::Dataflow randomDataflow(
    const cost::Problem& p, int levels, const std::vector<i64>& clusters, std::mt19937_64& rng)
{
    auto pick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
    auto chance = [&](double x) { return std::uniform_real_distribution<double>(0, 1)(rng) < x; };
    std::vector<std::string> dims;
    std::map<std::string, std::string> slidingOf; // window output -> its sliding dimension
    std::map<std::string, bool> sliding;
    std::map<std::string, i64> size;
    std::map<std::string, bool> reference;
    for (const auto& w : p.windows)
        reference[w.reference] = true;
    for (const auto& d : p.dims)
        if (d.declared && !reference.count(d.name)) {
            dims.push_back(d.name);
            size[d.name] = d.size;
        }
    for (const auto& w : p.windows) {
        slidingOf[w.output] = w.sliding;
        sliding[w.sliding] = true;
    }
    std::map<std::string, i64> ext = size;
    mdc::Dataflow flow;
    for (int l = 0; l < levels; ++l) {
        if (l > 0) flow.push_back(mdc::Directive::cluster(clusters[size_t(l - 1)]));
        std::vector<std::string> order = dims;
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::string> chosen;
        for (const auto& d : order)
            if (chance(l == 0 ? 0.8 : 0.6)) chosen.push_back(d);
        // A window output needs its sliding dimension in the same level.
        for (const auto& [o, s] : slidingOf)
            if (std::find(chosen.begin(), chosen.end(), o) != chosen.end()
                && std::find(chosen.begin(), chosen.end(), s) == chosen.end())
                chosen.push_back(s);
        if (chosen.empty()) chosen.push_back(order.front());
        const size_t sp = size_t(pick(0, i64(chosen.size()) - 1));
        // One SpatialMap per level: a second one moves in lock-step with the first (sub-unit j takes tile
        // j of both), which covers the iteration space only in special window pairs (doc/cost-model.md).
        std::map<std::string, i64> next = ext;
        for (size_t k = 0; k < chosen.size(); ++k) {
            const std::string& d = chosen[k];
            const bool spatial = k == sp;
            const i64 D = ext[d];
            i64 sz = 0, of = 0;
            if (sliding.count(d) && !spatial) {
                sz = of = size[d]; // a temporal map on a window tap dimension covers it
            } else if (spatial) {
                sz = pick(1, std::max<i64>(1, (D + 1) / 2));
                of = chance(0.7) ? sz : pick(1, sz);
            } else {
                sz = chance(0.2) ? D : pick(1, D);
                of = chance(0.6) ? sz : pick(1, sz);
            }
            flow.push_back(
                spatial ? mdc::Directive::spatial(sz, of, d) : mdc::Directive::temporal(sz, of, d));
            next[d] = std::min(sz, D);
        }
        ext = next;
    }
    return flow;
}

} // namespace

std::string RandomCase::text() const
{
    std::string s = kind + " " + problem.name + "(";
    bool firstDim = true;
    for (const auto& d : problem.dims)
        if (d.declared) {
            s += (firstDim ? "" : ", ") + d.name + "=" + std::to_string(d.size);
            firstDim = false;
        }
    for (const auto& w : problem.windows)
        if (w.stride != 1) s += ", stride " + std::to_string(w.stride);
    s += ") on " + std::to_string(acc.numPes) + " PEs, bw " + std::to_string(acc.nocBandwidth) + ", latency "
        + std::to_string(acc.nocLatency) + ", simd " + std::to_string(acc.simdLanes) + ", DRAM blocks of "
        + std::to_string(acc.dramBlockBytes) + " B (" + std::to_string(acc.bytesPerElement) + " B/element";
    if (acc.multicast != arch::Multicast::Elements)
        s += std::string(", multicast ") + arch::toString(acc.multicast);
    for (const auto& t : problem.tensors)
        if (t.dramInnermost != cost::ProblemTensor::kRowMajor && t.contiguousDim() >= 0)
            s += ", " + t.name + " contiguous in " + t.dims[size_t(t.contiguousDim())];
    s += "):";
    for (const auto& d : dataflow)
        s += " " + d.toString() + ";";
    return s;
}

RandomCase randomCase(std::uint64_t seed, int index)
{
    static const char* kinds[] = {"conv1d", "conv2d", "depthwise", "gemm"};
    std::mt19937_64 rng(seed * 1000003u + std::uint64_t(index));
    auto pick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(rng); };
    RandomCase c;
    c.kind = kinds[(index / 3) % 4];
    c.levels = 1 + index % 3;
    for (int attempt = 0;; ++attempt) {
        c.problem = cost::fromOperator(ir::parseOperator(loopText(c.kind, rng), c.kind + ".loop"));
        std::vector<i64> clusters;
        i64 pes = pick(1, 6);
        for (int l = 1; l < c.levels; ++l) {
            clusters.push_back(pick(2, 4));
            pes *= clusters.back();
        }
        c.acc = arch::Accelerator{};
        c.acc.numPes = pes + (pick(0, 3) == 0 ? pick(1, 2) : 0); // sometimes leftover PEs
        c.acc.nocBandwidth = pick(1, 8);
        c.acc.nocLatency = pick(1, 2);
        c.acc.simdLanes = pick(0, 4) == 0 ? 2 : 1;
        c.acc.offchipBandwidth = pick(0, 5) == 0 ? pick(4, 64) : 1000000;
        c.dataflow = randomDataflow(c.problem, c.levels, clusters, rng);
        // DRAM blocks of a few elements and random contiguous dimensions, from a stream of their own so that
        // the mappings above stay those of earlier versions of the set.
        std::mt19937_64 dramRng(seed * 7919u + std::uint64_t(index) * 104729u + 17u);
        auto dramPick = [&](i64 lo, i64 hi) { return std::uniform_int_distribution<i64>(lo, hi)(dramRng); };
        c.acc.bytesPerElement = dramPick(1, 2);
        c.acc.dramBlockBytes = c.acc.bytesPerElement * dramPick(1, 4);
        for (auto& t : c.problem.tensors)
            t.dramInnermost = dramPick(0, 3) == 0 ? cost::ProblemTensor::kRowMajor
                                                  : int(dramPick(0, i64(t.dims.size()) - 1));
        const i64 multicast = dramPick(0, 5); // a third of the NoCs multicast only identical tiles or nothing
        c.acc.multicast = multicast == 0 ? arch::Multicast::Tiles
            : multicast == 1             ? arch::Multicast::None
                                         : arch::Multicast::Elements;
        cost::Options o;
        o.fidelity = cost::Fidelity::Corrected;
        cost::Evaluator ev(c.problem, c.acc, o);
        cost::Metrics m;
        if (ev.evaluateMetrics(c.dataflow, m) || attempt > 1000) return c;
    }
}

bool keeps(std::optional<timeloop::SearchSpace> space, const RandomCase& c)
{
    if (!space) return true;
    timeloop::Options o;
    o.searchSpaceOnly = *space == timeloop::SearchSpace::Narrow;
    return timeloop::Checker(c.problem, c.acc, o).expressible(c.dataflow);
}

std::vector<MetricCheck> compareWithCostModel(const RandomCase& c, bool stepWalk)
{
    const Totals t = simulate(c.problem, c.dataflow, c.acc);
    cost::Options o;
    o.fidelity = cost::Fidelity::Corrected;
    o.stepWalk = stepWalk;
    o.dramClosedForm = stepWalk; // the per-case tables' run checks the general DRAM sums too
    const cost::Result r = cost::Evaluator(c.problem, c.acc, o).evaluate(c.dataflow);
    std::vector<MetricCheck> out;
    out.push_back({"macs", "", t.macs, c.problem.analyticMacs()});
    out.push_back({"runtime", "", t.runtimeCycles, r.m.runtimeCycles});
    const int nt = r.m.numTensors;
    for (int k = 0; k < nt; ++k) {
        const auto& mt = r.m.tensors[size_t(k)];
        const auto& st = t.tensors[size_t(k)];
        if (k + 1 < nt) {
            out.push_back({"l2_reads", st.name, st.l2Reads, mt.l2Read});
            out.push_back({"l1_writes", st.name, st.l1Writes, mt.l1Write});
        } else {
            out.push_back({"l2_writes", st.name, st.l2Writes, mt.l2Write});
        }
    }
    for (int k = 0; k < nt; ++k) {
        const auto& mt = r.m.tensors[size_t(k)];
        const auto& st = t.tensors[size_t(k)];
        out.push_back({"dram_reads", st.name, st.dramReads, mt.dramRead});
        out.push_back({"dram_read_bytes", st.name, st.dramReadBytes, mt.dramReadBytes});
        if (k + 1 == nt) {
            out.push_back({"dram_writes", st.name, st.dramWrites, mt.dramWrite});
            out.push_back({"dram_write_bytes", st.name, st.dramWriteBytes, mt.dramWriteBytes});
        }
    }
    return out;
}

} // namespace marvel::sim
