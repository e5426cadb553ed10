// Fuzz target: Marvel Studio projects (.json), as `marvel search --project` and the app read them:
// parse, the accelerator's values, the workload (operator text or model), the selected layer, and the
// project written back.
#include <string>

#include "core/arch/accelerator.h"
#include "core/project/project.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    const std::string_view text = fuzz::asText(data, size);
    if (fuzz::namesSystemFiles(text)) return 0;
    try {
        const project::Project p = project::readProject(text, "fuzz.json");
        (void)arch::validate(p.accelerator);
        (void)project::readProject(project::writeProject(p), "w.json");
        const workloads::Workload w = project::loadProjectWorkload(p, "fuzz.json");
        if (p.selectedMapping) (void)project::selectedLayer(p, w, "fuzz.json");
    } catch (const InputError&) { }
    return 0;
}
