#include "core/search/roofline.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/cost/problem.h"
#include "core/search/nest_util.h"
#include "core/search/offchip.h"
#include "core/util/checked_math.h"

namespace marvel::search {

namespace {

// Enumerating a triangular nest visits at most this many outer points before falling back to the
// product of extents (an upper bound).
constexpr std::int64_t kMaxVisited = 50'000'000;

} // namespace

std::int64_t iterationCount(const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes)
{
    std::map<std::string, std::int64_t> env;
    for (const auto& s : sizes)
        env[s.name] = s.value;
    std::size_t n = nest.loops.size();
    // Loop i must be enumerated only if some inner bound uses its iterator.
    std::vector<bool> enumerate(n, false);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            for (const auto* e : {&nest.loops[j].lower, &nest.loops[j].upper})
                if (e->coefficient(nest.loops[i].iterator) != 0) enumerate[i] = true;
    std::int64_t visited = 0;
    bool exceeded = false;
    auto eval = [&](const ir::AffineExpr& e) {
        std::int64_t v = e.constant;
        for (const auto& [name, coef] : e.terms) {
            auto it = env.find(name);
            v += coef * (it == env.end() ? 0 : it->second);
        }
        return v;
    };
    std::function<std::int64_t(std::size_t)> count = [&](std::size_t i) -> std::int64_t {
        if (i == n) return 1;
        const auto& l = nest.loops[i];
        std::int64_t lo = eval(l.lower), hi = eval(l.upper);
        if (hi <= lo) return 0;
        if (!enumerate[i]) return (hi - lo) * count(i + 1);
        std::int64_t total = 0;
        for (std::int64_t v = lo; v < hi && !exceeded; ++v) {
            if (++visited > kMaxVisited) exceeded = true;
            env[l.iterator] = v;
            total += count(i + 1);
        }
        env.erase(l.iterator);
        return total;
    };
    std::int64_t result = count(0);
    if (exceeded) {
        result = 1;
        for (const auto& l : nest.loops)
            result *= std::max<std::int64_t>(l.extent, 1);
    }
    return result;
}

Roofline roofline(
    const ir::PerfectNest& nest, const std::vector<ir::SizeParam>& sizes, const arch::Accelerator& array)
{
    // On the unit the operator runs on (the vector unit for what is not a matrix product, when there is one).
    cost::Problem unitOf;
    if (nest.statements.size() == 1) unitOf.vectorOps = cost::vectorOpsOf(nest.statements.front());
    const arch::Accelerator acc = cost::executionUnit(unitOf, array);
    Roofline r;
    r.macs = iterationCount(nest, sizes) * std::int64_t(std::max<std::size_t>(nest.statements.size(), 1));
    r.usablePes = std::max<std::int64_t>(acc.numPes * std::max<std::int64_t>(acc.simdLanes, 1), 1);
    r.computeCycles = ceilDiv(r.macs, r.usablePes);
    std::map<std::string, std::int64_t> whole;
    for (const auto& l : nest.loops)
        whole[l.iterator] = std::max<std::int64_t>(l.extent, 1);
    // A tensor named by several references counts the smaller of their sum and their bounding box.
    std::set<std::string> written;
    for (const auto& st : nest.statements)
        written.insert(st.target.tensor);
    std::map<std::string, std::vector<ir::TensorRef>> byTensor;
    for (const auto& ref : distinctRefs(nest))
        byTensor[ref.tensor].push_back(ref);
    for (const auto& [name, refs] : byTensor) {
        std::int64_t sum = 0;
        for (const auto& ref : refs)
            sum += distinctElements(ref, whole);
        if (refs.size() > 1) {
            std::int64_t box = 1;
            for (std::size_t d = 0; d < refs.front().subscripts.size(); ++d) {
                std::int64_t lo = INT64_MAX, hi = INT64_MIN;
                for (const auto& ref : refs) {
                    if (d >= ref.subscripts.size()) continue;
                    std::int64_t a = ref.subscripts[d].constant, b = a;
                    for (const auto& [it, coef] : ref.subscripts[d].terms) {
                        auto w = whole.find(it);
                        std::int64_t span = coef * ((w == whole.end() ? 1 : w->second) - 1);
                        (span < 0 ? a : b) += span;
                    }
                    lo = std::min(lo, a);
                    hi = std::max(hi, b);
                }
                box *= hi - lo + 1;
            }
            sum = std::min(sum, box);
        }
        r.compulsoryElements += sum;
        (written.count(name) ? r.writeElements : r.readElements) += sum;
    }
    auto transferCycles = [&](std::int64_t bandwidth) {
        if (bandwidth <= 0) return std::int64_t(0); // an accelerator still being edited
        return std::max(ceilDiv(r.readElements, bandwidth), ceilDiv(r.writeElements, bandwidth));
    };
    r.nocCycles = transferCycles(acc.nocBandwidth);
    // DRAM has one data bus: reads and writes share the off-chip bandwidth (doc/cost-model.md).
    r.offchipCycles
        = ceilDiv(r.readElements + r.writeElements, std::max<std::int64_t>(acc.offchipBandwidth, 1));
    r.cycles = std::max({r.computeCycles, r.nocCycles, r.offchipCycles});
    return r;
}

std::string belowRooflineNote(std::int64_t runtime, const Roofline& r)
{
    if (runtime >= r.cycles) return {};
    const auto bound = [](const char* name, std::int64_t cycles) {
        return std::string("below the roofline's ") + name + " bound (" + std::to_string(cycles)
            + " cycles): ";
    };
    // The search refuses runtimes below the compute bound (doc/search.md, "Impossible figures"): what is
    // left is a transfer bound, which only MAESTRO's formulas, kept in maestro fidelity, can break.
    if (runtime < r.offchipCycles)
        return bound("off-chip", r.offchipCycles)
            + "maestro fidelity's off-chip time does not hold each step's DRAM traffic to the "
              "off-chip bandwidth; corrected fidelity does (doc/cost-model.md, \"Off-chip bandwidth\")";
    if (runtime < r.nocCycles)
        return bound("NoC", r.nocCycles)
            + "the cost model counts fewer NoC transfers than the layer's compulsory traffic (MAESTRO's "
              "accounting, kept in maestro fidelity)";
    return bound("compute", r.computeCycles) + "the cost model's figure is impossible";
}

} // namespace marvel::search
