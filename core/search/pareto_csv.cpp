#include "core/search/pareto_csv.h"

#include "core/util/csv.h"

namespace marvel::search {

std::string paretoCsvHeader()
{
    return "layer,runtime_cycles,energy,edp,utilization,mac_energy,l1_energy,l2_energy,dram_energy,"
           "dram_reads,dram_writes,dram_read_bytes,dram_write_bytes\n";
}

std::string paretoCsvRows(const std::string& layer, const std::vector<Candidate>& front)
{
    std::string out;
    const std::string name = csvField(layer);
    for (const Candidate& c : front) {
        const Metrics& m = c.metrics;
        out += name + ',' + std::to_string(m.runtime) + ',' + exactNumber(m.energy) + ','
            + exactNumber(m.edp()) + ',' + exactNumber(m.utilization) + ',' + exactNumber(m.macEnergy) + ','
            + exactNumber(m.l1Energy) + ',' + exactNumber(m.l2Energy) + ',' + exactNumber(m.dramEnergy) + ','
            + std::to_string(m.dramReads) + ',' + std::to_string(m.dramWrites) + ','
            + std::to_string(m.dramReadBytes) + ',' + std::to_string(m.dramWriteBytes) + '\n';
    }
    return out;
}

} // namespace marvel::search
