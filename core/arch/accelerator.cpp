#include "core/arch/accelerator.h"

#include <algorithm>
#include <cmath>

namespace marvel::arch {

namespace {

// Beyond these limits a value is a typo (a missing unit, an extra digit) rather than a design point,
// and the cost model's 64-bit products could overflow.
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 40;
constexpr std::int64_t kMaxBandwidth = std::int64_t{1} << 40;
constexpr std::int64_t kMaxPes = std::int64_t{1} << 30;
constexpr std::int64_t kMaxSimdLanes = std::int64_t{1} << 16;
constexpr std::int64_t kMaxBytesPerElement = 1024;
constexpr std::int64_t kMaxLatency = std::int64_t{1} << 31;
constexpr double kMaxClockMHz = 1.0e6;

class Checker
{
public:
    void integerInRange(
        const char* field, std::int64_t value, std::int64_t min, std::int64_t max, const char* what)
    {
        if (value < min)
            add(field, "must be at least " + std::to_string(min) + " (got " + std::to_string(value) + ")");
        else if (value > max)
            add(field,
                "is absurdly large (" + std::to_string(value) + "; at most " + std::to_string(max) + " "
                    + what + ")");
    }

    void positiveReal(const char* field, double value, double max)
    {
        if (!std::isfinite(value) || value <= 0.0)
            add(field, "must be a positive number (got " + formatReal(value) + ")");
        else if (value > max)
            add(field, "is absurdly large (" + formatReal(value) + "; at most " + formatReal(max) + ")");
    }

    void nonNegativeReal(const char* field, double value)
    {
        if (!std::isfinite(value) || value < 0.0)
            add(field, "must be a non-negative number (got " + formatReal(value) + ")");
    }

    void add(const char* field, std::string message)
    {
        Diagnostic d;
        d.field = field;
        d.message = std::move(message);
        diagnostics.push_back(std::move(d));
    }

    std::vector<Diagnostic> diagnostics;

private:
    static std::string formatReal(double v)
    {
        if (std::isnan(v)) return "nan";
        std::string s = std::to_string(v);
        // Trim the trailing zeros to_string pads with, so "0.000000" reads "0".
        if (s.find('.') != std::string::npos) {
            while (!s.empty() && s.back() == '0')
                s.pop_back();
            if (!s.empty() && s.back() == '.') s.pop_back();
        }
        return s;
    }
};

} // namespace

const char* toString(Multicast m)
{
    switch (m) {
    case Multicast::Elements:
        return "elements";
    case Multicast::Tiles:
        return "tiles";
    case Multicast::None:
        return "none";
    }
    return "elements";
}

Accelerator vectorUnitView(const Accelerator& acc, std::int64_t opsPerInstance)
{
    // An instance of k operations keeps k / opsPerCycle lanes busy for a cycle: the units are groups of
    // lanes, so the array finishes lanes * opsPerCycle / k instances per cycle, as the lanes would.
    const std::int64_t k = std::max<std::int64_t>(opsPerInstance, 1);
    const std::int64_t opsPerCycle = acc.vectorUnit.lanes * acc.vectorUnit.opsPerCycle;
    const std::int64_t units = std::max<std::int64_t>(opsPerCycle / k, 1);
    Accelerator view = acc;
    view.numPes = units;
    view.simdLanes = 1;
    const std::int64_t lanesPerUnit = std::max<std::int64_t>(acc.vectorUnit.lanes / units, 1); // at most k
    view.l1Bytes = std::max(acc.vectorUnit.registerBytes * lanesPerUnit, acc.bytesPerElement);
    view.energy.mac = acc.energy.vectorOp * double(k);
    view.vectorUnit = VectorUnit{};
    return view;
}

std::vector<Diagnostic> validate(const Accelerator& acc)
{
    Checker c;
    c.integerInRange("num_pes", acc.numPes, 1, kMaxPes, "PEs");
    c.integerInRange("bytes_per_element", acc.bytesPerElement, 1, kMaxBytesPerElement, "bytes");
    // A buffer must hold at least one element, otherwise no mapping fits at all.
    const std::int64_t minBuffer = std::max<std::int64_t>(acc.bytesPerElement, 1);
    c.integerInRange("l1_bytes", acc.l1Bytes, minBuffer, kMaxBytes, "bytes");
    c.integerInRange("l2_bytes", acc.l2Bytes, minBuffer, kMaxBytes, "bytes");
    c.integerInRange(
        "noc_bandwidth_elements_per_cycle", acc.nocBandwidth, 1, kMaxBandwidth, "elements per cycle");
    c.integerInRange("noc_latency_cycles", acc.nocLatency, 0, kMaxLatency, "cycles");
    c.integerInRange(
        "offchip_bandwidth_elements_per_cycle", acc.offchipBandwidth, 1, kMaxBandwidth, "elements per cycle");
    c.positiveReal("clock_mhz", acc.clockMHz, kMaxClockMHz);
    c.integerInRange("dram_block_bytes", acc.dramBlockBytes, 1, kMaxBytes, "bytes");
    c.integerInRange("simd_lanes", acc.simdLanes, 1, kMaxSimdLanes, "lanes");
    c.integerInRange("vector_unit.lanes", acc.vectorUnit.lanes, 0, kMaxPes, "lanes");
    c.integerInRange("vector_unit.ops_per_cycle", acc.vectorUnit.opsPerCycle, 1, kMaxSimdLanes, "operations");
    c.integerInRange(
        "vector_unit.register_bytes", acc.vectorUnit.registerBytes, minBuffer, kMaxBytes, "bytes");
    c.nonNegativeReal("energy.vector_op", acc.energy.vectorOp);
    c.nonNegativeReal("energy.mac", acc.energy.mac);
    c.nonNegativeReal("energy.l1_access", acc.energy.l1Access);
    c.nonNegativeReal("energy.l2_access", acc.energy.l2Access);
    c.nonNegativeReal("energy.dram_access", acc.energy.dramAccess);
    c.nonNegativeReal("energy.mac_energy_nj", acc.energy.macEnergyNanojoule);
    return std::move(c.diagnostics);
}

} // namespace marvel::arch
