// Fuzz target: technology tables (core/tech), as `--technology FILE.json` and an accelerator's
// "technology" read them: parse, then price two designs and their figures in physical units.
#include "core/arch/accelerator.h"
#include "core/tech/technology.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    try {
        auto table = std::make_shared<const tech::Technology>(
            tech::readTechnologyJson(fuzz::asText(data, size), "fuzz.json"));
        for (const std::int64_t l2 : {std::int64_t{1}, std::int64_t{1} << 30}) {
            arch::Accelerator acc;
            acc.numPes = 4096;
            acc.l2Bytes = l2;
            acc.bytesPerElement = l2 == 1 ? 1 : 4;
            acc.technology = "fuzz";
            acc.technologyTable = table;
            tech::applyTechnology(acc);
            // A bigger buffer never costs less per access (the reader refuses falling curves).
            const tech::Physical p = tech::physical(acc, tech::EnergyParts{1, 2, 3, 4, 5}, 1000);
            if (!(p.energyPj >= 0) || !(p.areaMm2 >= 0)) __builtin_trap();
        }
    } catch (const InputError&) { }
    return 0;
}
