#include "core/cost/report.h"

#include <cmath>
#include <cstdio>

namespace marvel::cost {

std::string ReportValue::text() const
{
    if (integer) return std::to_string(i);
    if (std::isnan(r)) return "nan";
    if (std::isinf(r)) return r > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", r);
    return buf;
}

std::vector<ReportValue> reportRow(const Result& res)
{
    std::vector<ReportValue> row;
    auto integer = [&](const std::string& name, std::int64_t v) { row.push_back({name, true, v, 0.0}); };
    auto real = [&](const std::string& name, double v) { row.push_back({name, false, 0, v}); };
    const Metrics& m = res.m;
    const int n = m.numTensors;
    auto tensorLabel = [&](int t) -> std::string {
        if (t == n - 1) return "output";
        if (t == 0) return "input";
        if (t == 1) return "filter";
        return res.tensorNames[size_t(t)];
    };
    auto ratio = [](double a, double b) { return a / b; };
    const double csv = res.energyNjCsv;
    integer("num_pes", res.numPes);
    integer("runtime_cycles", m.runtimeCycles);
    real("energy_nj_csv", csv);
    real("throughput_macs_per_cycle", res.throughput);
    real("throughput_per_energy", res.throughput / csv * 1e9);
    real("area", res.area);
    real("power", res.power);
    integer("noc_bw_req", m.peakBwReq);
    real("avg_bw_req", res.avgBwReq);
    integer("peak_bw_req", m.peakBwReq);
    integer("vector_width", res.vectorWidth);
    integer("offchip_bw_req", res.offchipBwReq);
    integer("l2_size_req", m.l2SizeReq);
    integer("l1_size_req", m.l1SizeReq);
    if (n >= 3) real("mcast_factor_weight", ratio(double(m.tensors[1].l1Write), double(m.tensors[1].l2Read)));
    if (n >= 2) real("mcast_factor_input", ratio(double(m.tensors[0].l1Write), double(m.tensors[0].l2Read)));
    integer("input_tensor_elems", res.inputTensorElems);
    integer("weight_tensor_elems", res.weightTensorElems);
    real("ops_per_joule", double(m.macs) / csv * 1e9);
    integer("num_macs", m.macs);
    real("pe_power", res.pePower);
    real("l1_power", res.l1Power);
    real("l2_power", res.l2Power);
    real("noc_power", res.nocPower);
    for (int t = 0; t < n; ++t) {
        const TensorCounts& c = m.tensors[size_t(t)];
        std::string p = tensorLabel(t);
        integer(p + "_l1_read", c.l1Read);
        integer(p + "_l1_write", c.l1Write);
        integer(p + "_l2_read", c.l2Read);
        integer(p + "_l2_write", c.l2Write);
        real(p + "_reuse_factor", ratio(double(c.l1Read), double(c.l1Write)));
    }
    integer("ingress_delay_min", res.ingressDelayMin);
    integer("ingress_delay_max", res.ingressDelayMax);
    integer("ingress_delay_avg", res.ingressDelayAvg);
    integer("egress_delay_min", res.egressDelayMin);
    integer("egress_delay_max", res.egressDelayMax);
    integer("egress_delay_avg", res.egressDelayAvg);
    integer("compute_delay_min", res.computeDelayMin);
    integer("compute_delay_max", res.computeDelayMax);
    integer("compute_delay_avg", res.computeDelayAvg);
    real("avg_utilized_clusters", m.avgUtilizedPes);
    real("arithmetic_intensity", res.arithmeticIntensity);
    integer("macs_expected", res.macsExpected);
    real("energy_nj_same_layer", res.energyNjSameLayer);
    for (int t = 0; t < n; ++t) {
        std::string p = "scr_" + tensorLabel(t);
        integer(p + "_l2_req", m.tensors[size_t(t)].l2Req);
        integer(p + "_l1_req", m.tensors[size_t(t)].l1Req);
    }
    integer("scr_l2_req_total", m.l2SizeReq);
    integer("scr_l1_req_total", m.l1SizeReq);
    real("scr_l2_write_energy_macu", res.l2WriteEnergy);
    real("scr_l2_read_energy_macu", res.l2ReadEnergy);
    real("scr_l1_write_energy_macu", res.l1WriteEnergy);
    real("scr_l1_read_energy_macu", res.l1ReadEnergy);
    real("scr_mac_energy_macu", res.macEnergy);
    real("scr_total_energy_macu", m.energy);
    real("scr_perf_per_mac_energy", res.throughput / m.energy);
    double l1r = 0, l1w = 0;
    for (int t = 0; t < n; ++t) {
        l1r += double(m.tensors[size_t(t)].l1Read);
        l1w += double(m.tensors[size_t(t)].l1Write);
    }
    real("scr_overall_reuse", l1r / l1w);
    // Not in MAESTRO's table: the energy's parts (MAC, L1, L2 as scr_total_energy_macu sums them, DRAM) and
    // their total; the DRAM traffic over the top level's steps, of the layer, then of each tensor.
    real("mac_energy_macu", m.macEnergy);
    real("l1_energy_macu", m.l1Energy);
    real("l2_energy_macu", m.l2Energy);
    real("dram_energy_macu", m.dramEnergy);
    real("total_energy_macu", m.totalEnergy());
    integer("dram_reads", m.dramReads());
    integer("dram_writes", m.dramWrites());
    integer("dram_read_bytes", m.dramReadBytes());
    integer("dram_write_bytes", m.dramWriteBytes());
    for (int t = 0; t < n; ++t) {
        const TensorCounts& c = m.tensors[size_t(t)];
        std::string p = tensorLabel(t);
        integer(p + "_dram_read", c.dramRead);
        integer(p + "_dram_write", c.dramWrite);
        integer(p + "_dram_read_bytes", c.dramReadBytes);
        integer(p + "_dram_write_bytes", c.dramWriteBytes);
    }
    return row;
}

std::string evaluationStatus(const Result& result)
{
    if (result.undercount == Undercount::None) return "ok";
    return result.fidelity == Fidelity::Maestro ? "maestro-undercount" : "corrected-undercount";
}

std::string toString(Undercount undercount)
{
    switch (undercount) {
    case Undercount::WrongMacs:
        return "wrong-mac-count";
    case Undercount::BelowComputeBound:
        return "below-compute-bound";
    case Undercount::None:
        break;
    }
    return {};
}

std::string undercountWarning(const Result& r)
{
    std::string why;
    switch (r.undercount) {
    case Undercount::None:
        return {};
    case Undercount::WrongMacs:
        why = "MAESTRO counts " + std::to_string(r.m.macs) + " MACs, the mapping performs "
            + std::to_string(r.exactMacs)
            + (r.exactMacs == r.macsExpected ? std::string(" (the operator's)")
                                             : " (the operator's " + std::to_string(r.macsExpected)
                        + " and those its overlapping tiles compute again)");
        break;
    case Undercount::BelowComputeBound:
        why = std::string(r.fidelity == Fidelity::Maestro ? "MAESTRO's" : "corrected fidelity's")
            + " runtime " + std::to_string(r.m.runtimeCycles) + " cycles is below the compute bound "
            + std::to_string(r.computeBound) + " (" + std::to_string(r.macsExpected) + " MACs on "
            + std::to_string(r.m.activePes) + " PEs x " + std::to_string(r.vectorWidth) + " SIMD lane"
            + (r.vectorWidth == 1 ? "" : "s") + ")";
        break;
    }
    if (r.fidelity == Fidelity::Corrected)
        return why
            + ": its per-case tables do not count this mapping exactly (doc/cost-model.md); "
              "`marvel simulate` gives the exact figure where the mapping is small enough";
    return why
        + (r.correctedRuntime ? "; corrected fidelity: " + std::to_string(*r.correctedRuntime) + " cycles"
                              : "; corrected fidelity rejects the mapping: " + r.correctedError);
}

} // namespace marvel::cost
