// Fuzz target: the experiments files of `marvel reproduce --experiments FILE.json` (workloads, layers,
// platforms). Platform paths resolve in samples/models like the model target's operator files, so the
// seeds' relative paths to the sample accelerators still load.
#include <cstdlib>
#include <string>

#include "core/eval/reproduce.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    const std::string_view text = fuzz::asText(data, size);
    if (fuzz::namesSystemFiles(text)) return 0;
    const char* base = std::getenv("MARVEL_FUZZ_BASE_DIR");
    try {
        (void)eval::readPlan(std::string(text), "fuzz.json", base ? base : ".");
    } catch (const InputError&) { }
    return 0;
}
