// Fuzz target: directives typed into the animation's "Try your own" editor (mdc::readDirectives), as the
// app reads them for the layer it animates, then what the app does with them: the simulator's size
// check and, for runs small enough, the simulation itself, and the cost model in both fidelities.
#include "core/arch/accelerator.h"
#include "core/cost/costmodel.h"
#include "core/cost/problem.h"
#include "core/mdc/maestro_io.h"
#include "core/sim/simulator.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    // A small strided CONV2D with every dimension a directive can name.
    static const mdc::Layer layer
        = mdc::readMaestroMapping("Network n { Layer l { Type: CONV Stride { X: 2, Y: 1 } "
                                  "Dimensions { K: 4, C: 3, R: 3, S: 2, Y: 6, X: 7 } } }",
            "fuzz.m")
              .layers.front();
    static const cost::Problem problem = cost::fromMaestroLayer(layer, std::nullopt, "fuzz.m");
    static const arch::Accelerator acc = [] {
        arch::Accelerator a;
        a.numPes = 8;
        a.nocBandwidth = 4;
        return a;
    }();
    try {
        const mdc::Dataflow dataflow
            = mdc::readDirectives(fuzz::asText(data, size), layer.dims, "directives");
        if (dataflow.empty()) return 0;
        for (cost::Fidelity f : {cost::Fidelity::Maestro, cost::Fidelity::Corrected}) {
            try {
                cost::Evaluator evaluator(problem, acc, cost::Options{f, false});
                (void)evaluator.evaluate(dataflow);
            } catch (const InputError&) { }
        }
        sim::Limits limits;
        limits.maxPeSteps = 20'000; // a few milliseconds of simulation per input at most
        sim::Simulator::check(problem, dataflow, acc, limits);
        (void)sim::simulate(problem, dataflow, acc, {}, limits);
    } catch (const InputError&) { }
    return 0;
}
