// Fuzz target: the JSON accelerator format, as `--hw FILE.json` reads it: parse, validate, write back.
#include "core/arch/accelerator.h"
#include "core/arch/accelerator_io.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    try {
        const arch::Accelerator acc = arch::readAcceleratorJson(fuzz::asText(data, size), "fuzz.json");
        (void)arch::validate(acc);
        const arch::Accelerator back = arch::readAcceleratorJson(arch::writeAcceleratorJson(acc), "w.json");
        if (!arch::sameParameters(acc, back) && acc.clockMHz == acc.clockMHz) __builtin_trap();
    } catch (const InputError&) { }
    return 0;
}
