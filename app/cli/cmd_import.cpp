// `marvel import FILE.onnx [--batch N] [--seq-len N] [--out FILE.json|FILE.m]`: an ONNX network as our
// layers (issues 24, 35).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/cli/command.h"
#include "core/mdc/maestro_io.h"
#include "importers/onnx/onnx_import.h"

namespace cmd_import {

int run(const std::vector<std::string>& argv);

const marvel::cli::Command kCommand{"import",
    "read an ONNX model: print its layers, write them as a JSON model or a MAESTRO model file",
    "usage: marvel import FILE.onnx [--batch N] [--seq-len N] [--phase prefill|decode] [--kv-len N]\n"
    "                    [--out FILE.json|FILE.m]\n\n"
    "Reads the model's Conv (1-D, 2-D; grouped and depth-wise), Gemm and MatMul nodes as CONV, DSCONV\n"
    "and GEMM layers (a MatMul of two activations, attention's Q.K^T and A.V, as an ATTENTION layer),\n"
    "and softmax, LayerNorm, RMSNorm, GELU, SiLU, the SwiGLU gate, ReLU and the element-wise additions\n"
    "and products of activations as loop-nest layers, shapes from the file, ONNX's shape inference and\n"
    "folded shape arithmetic, and prints the layer table (name, type, dimensions, stride and dilation,\n"
    "repeat, source nodes) and every node not mapped, by op type. Layers of identical shape are merged\n"
    "with a repeat count.\n"
    "  --batch N    the size of a symbolic batch (first) dimension (default 1)\n"
    "  --seq-len N  the size of the other symbolic dimensions (the sequence; required when there are)\n"
    "  --phase P    prefill (default); decode is refused: the reader models no KV cache\n"
    "  --kv-len N   cached tokens of a decoding step (decode only)\n"
    "  --out FILE   also write the layers: .json the JSON model (marvel search --model), .m a\n"
    "               MAESTRO model file (repeated layers written once per repeat, MAESTRO has no\n"
    "               repeat count; nor dilation: a dilated convolution is refused; nor the layers\n"
    "               that are no CONV, DSCONV or GEMM, which are left out with a note)\n\n"
    "exit status: 0 imported, 2 input error (the message names the file and the node or field)",
    run};

int run(const std::vector<std::string>& argv)
{
    using namespace marvel;
    cli::Args args(argv, {"batch", "seq-len", "phase", "kv-len", "out"}, {});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (args.positionals().size() != 1)
        return cli::usageError(
            kCommand, args.positionals().empty() ? "missing FILE.onnx" : "expects exactly one FILE.onnx");
    onnx_import::ImportOptions options;
    if (args.has("batch")) {
        auto batch = args.integer("batch", 1, 1'000'000);
        if (!batch) return cli::usageError(kCommand, args.error());
        options.batch = *batch;
    }
    for (const char* length : {"seq-len", "kv-len"}) {
        if (!args.has(length)) continue;
        auto n = args.integer(length, 1, 1'000'000'000);
        if (!n) return cli::usageError(kCommand, args.error());
        (std::string(length) == "seq-len" ? options.seqLen : options.kvLen) = *n;
    }
    if (args.has("phase")) {
        const std::string phase = args.valueOr("phase", "");
        if (phase != "prefill" && phase != "decode")
            return cli::usageError(kCommand, "--phase must be prefill or decode, not '" + phase + "'");
        options.phase = phase == "decode" ? workloads::Phase::Decode : workloads::Phase::Prefill;
    }
    const std::string path = args.positionals().front();
    const std::string out = args.valueOr("out", "");
    const std::string ext = std::filesystem::path(out).extension().string();
    if (!out.empty() && ext != ".json" && ext != ".m")
        return cli::usageError(kCommand, "--out must end in .json or .m");
    try {
        workloads::Workload w = onnx_import::importOnnxFile(path, options);
        std::cout << onnx_import::formatLayerTable(w) << '\n' << onnx_import::formatImportSummary(w, false);
        if (out.empty()) return cli::Ok;
        std::string text;
        if (ext == ".json") {
            text = workloads::writeWorkloadJson(w, out);
        } else {
            mdc::Network network{w.name, {}};
            int skipped = 0;
            for (const auto& l : w.layers) {
                // MAESTRO models matrix products only (an attention product is a GEMM repeated per batch).
                if (l.maestro.type.empty()) {
                    ++skipped;
                    continue;
                }
                for (int r = 0; r < l.repeat; ++r) {
                    network.layers.push_back(l.maestro);
                    if (l.repeat > 1) network.layers.back().name += "_" + std::to_string(r + 1);
                }
            }
            if (skipped > 0)
                std::cout << "note: " << skipped
                          << " layers that are no CONV, DSCONV or GEMM (softmax, norms, activations, "
                             "element-wise) are not in "
                          << out << ": MAESTRO has no layer type for them\n";
            text = mdc::writeMaestroMapping(network, out);
        }
        std::ofstream file(out, std::ios::binary);
        if (!(file << text) || !file.flush()) {
            std::cerr << "marvel import: " << out << ": cannot write the file\n";
            return cli::InputError;
        }
        std::cout << "wrote " << out << '\n';
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel import: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    return cli::Ok;
}

const bool registered = marvel::cli::registerCommand(kCommand);

} // namespace cmd_import
