// Fuzz target: MAESTRO mapping and model files (.m), as `marvel evaluate --mapping` and
// `marvel search --model` read them: parse, MAESTRO's structural rules, the workload view of every
// layer (bad layers kept), and the cost model on every layer on a small accelerator.
#include "core/arch/accelerator.h"
#include "core/cost/costmodel.h"
#include "core/mdc/maestro_io.h"
#include "core/workloads/workloads.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    try {
        const mdc::Network network = mdc::readMaestroMapping(fuzz::asText(data, size), "fuzz.m");
        bool rulesOk = true;
        for (const mdc::Layer& layer : network.layers)
            rulesOk = rulesOk && mdc::checkMaestroRules(layer, "fuzz.m").empty();
        // What was read writes back to text that reads again.
        (void)mdc::readMaestroMapping(mdc::writeMaestroMapping(network), "w.m");
        try {
            (void)workloads::workloadFromNetwork(network, "fuzz.m", workloads::LayerErrors::Keep);
        } catch (const InputError&) { }
        if (rulesOk) {
            arch::Accelerator acc;
            acc.numPes = 64;
            acc.nocBandwidth = 16;
            for (cost::Fidelity f : {cost::Fidelity::Maestro, cost::Fidelity::Corrected})
                (void)cost::evaluateNetwork(network, acc, cost::Options{f, false}, "fuzz.m");
        }
    } catch (const InputError&) { }
    return 0;
}
