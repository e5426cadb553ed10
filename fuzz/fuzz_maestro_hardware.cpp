// Fuzz target: MAESTRO hardware files (.m), as `--hw FILE.m` reads them: parse, validate, write back.
#include "core/arch/accelerator.h"
#include "core/arch/accelerator_io.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    try {
        const arch::Accelerator acc = arch::readMaestroHardware(fuzz::asText(data, size), "fuzz.m");
        if (arch::validate(acc).empty()) {
            const arch::Accelerator back = arch::readMaestroHardware(arch::writeMaestroHardware(acc), "w.m");
            if (back.numPes != acc.numPes) __builtin_trap(); // the writer must round-trip
        }
    } catch (const InputError&) { }
    return 0;
}
