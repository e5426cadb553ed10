// Fuzz target: the JSON model format, as `marvel search --model FILE.json` reads it (bad layers kept).
// operator_file paths resolve in MARVEL_FUZZ_BASE_DIR (the seed folder with its .loop files).
#include <cstdlib>
#include <string>

#include "core/workloads/workloads.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    const std::string_view text = fuzz::asText(data, size);
    if (fuzz::namesSystemFiles(text)) return 0;
    static const std::string baseDir
        = std::getenv("MARVEL_FUZZ_BASE_DIR") ? std::getenv("MARVEL_FUZZ_BASE_DIR") : ".";
    try {
        const workloads::Workload w
            = workloads::readWorkloadJson(text, "fuzz.json", baseDir, workloads::LayerErrors::Keep);
        (void)w.totalMacs();
        (void)w.layerCount();
    } catch (const InputError&) { }
    return 0;
}
