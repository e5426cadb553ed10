// Fuzz target: the ONNX reader (importers/onnx), as `marvel import` and `--model FILE.onnx` read a file
// already in memory: protobuf parsing, ONNX's shape inference, our constant folder and the mapping.
#include <string>

#include "fuzz/fuzz_common.h"
#include "importers/onnx/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    try {
        const workloads::Workload w = onnx_import::importOnnx(
            fuzz::asText(data, size), "fuzz.onnx", {}, workloads::LayerErrors::Keep);
        (void)w.totalMacs();
        (void)w.layerCount();
        (void)onnx_import::formatLayerTable(w);
        (void)onnx_import::formatImportSummary(w, false);
    } catch (const InputError&) { }
    return 0;
}
