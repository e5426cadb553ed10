// `marvel evaluate --hw FILE --mapping FILE`: the MDC cost model on every layer of a MAESTRO mapping file.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/command.h"
#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/cost/report.h"
#include "core/mdc/maestro_io.h"

namespace {

int run(const std::vector<std::string>& argv);

const marvel::cli::Command kCommand{"evaluate",
    "evaluate every layer of a MAESTRO mapping file with the MDC cost model",
    "usage: marvel evaluate --hw FILE --mapping FILE [--format table|csv|json] [--fidelity "
    "maestro|corrected]\n\n"
    "  --hw FILE         accelerator: MAESTRO hardware file (.m) or JSON (.json)\n"
    "  --mapping FILE    MAESTRO mapping file (Network / Layer / Dimensions / Dataflow)\n"
    "  --format F        table (default), csv (header + one row per layer, columns named as in\n"
    "                    MAESTRO's reference layers.csv) or json (array of objects)\n"
    "  --fidelity F      maestro (default: reproduces MAESTRO, quirks included) or corrected\n\n"
    "exit status: 0 every layer evaluated, 2 input error (bad file, invalid mapping)",
    run};

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

int run(const std::vector<std::string>& argv)
{
    using namespace marvel;
    cli::Args args(argv, {"hw", "mapping", "format", "fidelity"}, {});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    if (!args.has("hw") || !args.has("mapping"))
        return cli::usageError(kCommand, "--hw and --mapping are required");
    std::string format = args.valueOr("format", "table");
    if (format != "table" && format != "csv" && format != "json")
        return cli::usageError(kCommand, "--format must be table, csv or json");
    std::string fidelity = args.valueOr("fidelity", "maestro");
    if (fidelity != "maestro" && fidelity != "corrected")
        return cli::usageError(kCommand, "--fidelity must be maestro or corrected");
    cost::Options options;
    options.fidelity = fidelity == "corrected" ? cost::Fidelity::Corrected : cost::Fidelity::Maestro;

    std::vector<cost::LayerEvaluation> layers;
    try {
        arch::Accelerator acc = arch::loadAccelerator(*args.value("hw"));
        std::string mappingPath = *args.value("mapping");
        mdc::Network net = mdc::readMaestroMappingFile(mappingPath);
        if (net.layers.empty()) throw InputError(Diagnostic{mappingPath, {}, {}, "the file has no layer"});
        layers = cost::evaluateNetwork(net, acc, options, mappingPath);
    } catch (const InputError& e) {
        std::cerr << "marvel evaluate: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    bool allOk = true;
    for (const auto& l : layers) {
        if (!l.ok) {
            allOk = false;
            std::cerr << "marvel evaluate: " << formatDiagnostics(l.errors);
        }
    }
    if (!allOk) return cli::InputError;

    std::vector<std::vector<cost::ReportValue>> rows;
    for (const auto& l : layers)
        rows.push_back(cost::reportRow(l.result));
    if (format == "csv") {
        std::cout << "layer_name";
        for (const auto& v : rows.front())
            std::cout << ',' << v.name;
        std::cout << '\n';
        for (size_t i = 0; i < rows.size(); ++i) {
            std::cout << csvField(layers[i].layerName);
            for (const auto& v : rows[i])
                std::cout << ',' << v.text();
            std::cout << '\n';
        }
    } else if (format == "json") {
        nlohmann::json out = nlohmann::json::array();
        for (size_t i = 0; i < rows.size(); ++i) {
            nlohmann::json o;
            o["layer_name"] = layers[i].layerName;
            for (const auto& v : rows[i]) {
                if (v.integer)
                    o[v.name] = v.i;
                else if (std::isfinite(v.r))
                    o[v.name] = v.r;
                else
                    o[v.name] = nullptr; // JSON has no inf/nan
            }
            out.push_back(o);
        }
        std::cout << out.dump(2) << '\n';
    } else {
        // A readable subset: the figures people compare mappings by.
        const std::vector<std::string> shown
            = {"num_macs", "runtime_cycles", "throughput_macs_per_cycle", "scr_total_energy_macu",
                "avg_utilized_clusters", "l1_size_req", "l2_size_req", "peak_bw_req", "avg_bw_req"};
        std::vector<std::vector<std::string>> cells;
        std::vector<std::string> header = {"layer"};
        header.insert(header.end(), shown.begin(), shown.end());
        cells.push_back(header);
        for (size_t i = 0; i < rows.size(); ++i) {
            std::vector<std::string> line = {layers[i].layerName};
            for (const auto& name : shown)
                for (const auto& v : rows[i])
                    if (v.name == name) line.push_back(v.text());
            cells.push_back(line);
        }
        std::vector<size_t> width(header.size(), 0);
        for (const auto& line : cells)
            for (size_t c = 0; c < line.size(); ++c)
                width[c] = std::max(width[c], line[c].size());
        for (const auto& line : cells) {
            for (size_t c = 0; c < line.size(); ++c) {
                if (c == 0)
                    std::cout << std::left << std::setw(int(width[c])) << line[c];
                else
                    std::cout << "  " << std::right << std::setw(int(width[c])) << line[c];
            }
            std::cout << '\n';
        }
    }
    return cli::Ok;
}

const bool registered = marvel::cli::registerCommand(kCommand);

} // namespace
