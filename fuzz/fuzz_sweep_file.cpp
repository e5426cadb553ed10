// Fuzz target: the files `marvel sweep --resume` reads back (a sweep CSV of a fixed 2x2 grid around P2,
// and the FILE.settings beside it) and the --vary specifications, read line by line from the same input. The
// CSV reader must keep the rows of the grid, drop a cut last line, and refuse anything else with a located
// InputError.
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "core/arch/accelerator.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweep_file.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    const std::string_view text = fuzz::asText(data, size);
    // Each line as a --vary argument.
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        try {
            (void)sweep::parseVary(text.substr(start, end - start));
        } catch (const InputError&) { }
        start = end + 1;
    }
    // The whole input as the file a resumed sweep finds.
    static const sweep::Grid grid = [] {
        arch::Accelerator base; // P2 (samples/accelerators/P2_edge.json), the seeds' base
        base.name = "P2 (edge)";
        base.numPes = 1024;
        base.nocBandwidth = 128;
        return sweep::Grid(base, {sweep::parseVary("pes=64,128"), sweep::parseVary("l2=32K,64K")});
    }();
    char path[] = "/tmp/marvel-fuzz-sweep-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return 0;
    close(fd);
    {
        std::ofstream out(path, std::ios::binary);
        out.write(text.data(), std::streamsize(text.size()));
    }
    try {
        sweep::SweepFile file(path, grid, true);
        (void)file.pending();
    } catch (const InputError&) { }
    // The same text as the settings file beside a resumed sweep (FILE.settings), against this sweep's.
    const std::string settings = sweep::settingsPath(path);
    {
        std::ofstream out(settings, std::ios::binary);
        out.write(text.data(), std::streamsize(text.size()));
    }
    try {
        sweep::SweepFile file(path, grid, true, "workload: conv1d\nobjective: runtime\n");
        (void)file.pending();
    } catch (const InputError&) { }
    std::remove(settings.c_str());
    std::remove(path);
    return 0;
}
