// `marvel import FILE.onnx [--batch N] [--out FILE.json|FILE.m]`: an ONNX network as our layers (issue 24).
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
    "usage: marvel import FILE.onnx [--batch N] [--out FILE.json|FILE.m]\n\n"
    "Reads the model's Conv (1-D, 2-D; grouped and depth-wise), Gemm and MatMul nodes as CONV, DSCONV\n"
    "and GEMM layers, shapes from the file, ONNX's shape inference and folded shape arithmetic, and\n"
    "prints the layer table (name, type, dimensions, stride and dilation, repeat, source nodes) and\n"
    "every node not mapped, by op type. Layers of identical shape are merged with a repeat count.\n"
    "  --batch N   the size of a symbolic batch dimension (default 1)\n"
    "  --out FILE  also write the layers: .json the JSON model (marvel search --model), .m a MAESTRO\n"
    "              model file (repeated layers written once per repeat, MAESTRO has no repeat count;\n"
    "              nor dilation: a dilated convolution is refused)\n\n"
    "exit status: 0 imported, 2 input error (the message names the file and the node or field)",
    run};

int run(const std::vector<std::string>& argv)
{
    using namespace marvel;
    cli::Args args(argv, {"batch", "out"}, {});
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
            for (const auto& l : w.layers)
                for (int r = 0; r < l.repeat; ++r) {
                    network.layers.push_back(l.maestro);
                    if (l.repeat > 1) network.layers.back().name += "_" + std::to_string(r + 1);
                }
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
