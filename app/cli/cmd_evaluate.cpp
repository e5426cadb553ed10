// `marvel evaluate --hw FILE --mapping FILE`: the MDC cost model on every layer of a MAESTRO mapping file;
// `marvel evaluate --project FILE`: on a Marvel Studio project's selected mapping.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/command.h"
#include "app/cli/search_args.h"
#include "app/cli/search_report.h"
#include "core/arch/accelerator_io.h"
#include "core/cost/costmodel.h"
#include "core/cost/problem.h"
#include "core/cost/report.h"
#include "core/export/timeloop.h"
#include "core/ir/operator.h"
#include "core/mdc/maestro_io.h"
#include "core/project/project.h"
#include "core/styles/fixed_dataflows.h"
#include "core/tech/technology.h"
#include "core/util/csv.h"
#include "core/util/text_file.h"
#include "core/workloads/workloads.h"

namespace cmd_evaluate {

int run(const std::vector<std::string>& argv);

const marvel::cli::Command kCommand{"evaluate",
    "evaluate a MAESTRO mapping file's layers or a project's selected mapping with the MDC cost model",
    "usage: marvel evaluate (--hw FILE --mapping FILE | --project FILE.json [--hw FILE]\n"
    "                        | --hw FILE --dataflow NAME --model NAME_OR_FILE [--layer NAME]\n"
    "                          [--export-mdc OUT.m] [--seq-len N] [--batch B] [--phase prefill|decode]\n"
    "                          [--kv-len L])\n"
    "                       [--format table|csv|json] [--fidelity maestro|corrected]\n"
    "                       [--export-timeloop DIR [--timeloop-buffering 1|2]] [--technology NAME|FILE]\n\n"
    "  --hw FILE         accelerator: MAESTRO hardware file (.m) or JSON (.json), or a preset's name\n"
    "                    (P1, P2, eyeriss_dram, edge1024_dram: samples/accelerators)\n"
    "  --mapping FILE    MAESTRO mapping file (Network / Layer / Dimensions / Dataflow)\n"
    "  --project FILE    a Marvel Studio project: its selected mapping on its accelerator (--hw overrides\n"
    "                    it), with the project's fidelity unless --fidelity is given; the same numbers as\n"
    "                    the mapping exported to a MAESTRO file, but the DRAM bytes, counted under the\n"
    "                    mapping's DRAM layouts (a MAESTRO file is read row-major)\n"
    "  --dataflow NAME   one of MAESTRO's fixed dataflows, generated for every convolution of --model and\n"
    "                    sized to its PEs (doc/search.md, \"Fixed dataflows\"): kcp_ws (NVDLA-like),\n"
    "                    rs (Eyeriss-like row-stationary), xp_ws, yxp_os (ShiDianNao-like), ykp_os;\n"
    "                    a layer that is not a convolution is reported with an error\n"
    "  --model NAME|FILE a built-in model or a model file (.m, .json, .onnx); --layer picks one layer;\n"
    "                    --seq-len, --batch, --phase and --kv-len instantiate a transformer (as marvel\n"
    "                    search: its sequence length, sequences, prefill or decode, cached tokens)\n"
    "  --export-mdc OUT.m  with --dataflow: write the generated mappings as a MAESTRO mapping file\n"
    "  --format F        table (default), csv (header + one row per layer, columns named as in\n"
    "                    MAESTRO's reference layers.csv, then the energy's parts mac_energy_macu,\n"
    "                    l1_energy_macu, l2_energy_macu, dram_energy_macu (energy.dram_access per element\n"
    "                    moved) and their sum total_energy_macu, and the DRAM traffic: dram_reads,\n"
    "                    dram_writes in elements, dram_read_bytes, dram_write_bytes, and the same per\n"
    "                    tensor, then noc_energy_macu (the NoC's sends, when the energies charge them),\n"
    "                    energy_pj, area_mm2 (the design's capacities) and power_mw (over the layer's\n"
    "                    runtime) in physical units, then compute_bound, corrected_runtime and\n"
    "                    fidelity) or json (array of objects with the same fields)\n"
    "  --technology T    the technology table the energies, area and power come from (a name of\n"
    "                    samples/technology such as 45nm or maestro, or a .json file); the energy columns\n"
    "                    named _macu are then in the table's unit (pJ for 45nm)\n"
    "  --fidelity F      corrected (default: what the mapping really moves, the search's default) or\n"
    "                    maestro (reproduces MAESTRO's figures, quirks included); every output names it\n"
    "                    (table: a first line, csv: a fidelity column, json: \"fidelity\")\n"
    "  --export-timeloop DIR  with --mapping: write each layer as Timeloop input, DIR/<layer>/problem.yaml,\n"
    "                    arch.yaml, map.yaml, ert.yaml (run: cd DIR/<layer> && timeloop-model arch.yaml\n"
    "                    problem.yaml map.yaml ert.yaml); says per layer on stderr exported, with our\n"
    "                    counts Timeloop defines the same way, or why not (doc/timeloop.md)\n"
    "  --timeloop-buffering B  the Timeloop buffers' multiple_buffering: 2 (default: our cost model's\n"
    "                    double-buffered requirement, a tile may use half a buffer) or 1 (the whole\n"
    "                    buffer, Timeloop's default, as doc/timeloop.md's worked case ran)\n\n"
    "A layer with an invalid mapping does not hide the others: every layer is reported, each bad one with\n"
    "its located error (csv: the status column, json: \"status\" and \"errors\", table: a line).\n"
    "A figure no execution can have - a runtime below the compute bound ceil(MACs / (busy PEs x SIMD\n"
    "lanes)) or a MAC count that is not the layer's, which MAESTRO's edge-case accounting gives some\n"
    "mappings (doc/cost-model.md) - gets the status maestro-undercount and the corrected fidelity's\n"
    "runtime beside it (csv and json: compute_bound, corrected_runtime; table: a warning line); in\n"
    "corrected fidelity, a runtime below the bound (per-case tables on a mapping they do not count\n"
    "exactly) gets the status corrected-undercount.\n\n"
    "exit status: 0 every layer evaluated, 2 input error (bad file, a layer with an invalid mapping, a\n"
    "project without a selected mapping)",
    run};

marvel::Diagnostic projectError(const std::string& file, std::string field, std::string message)
{
    marvel::Diagnostic d;
    d.file = file;
    d.field = std::move(field);
    d.message = std::move(message);
    return d;
}

// The project's selected mapping on `acc`: one layer of a MAESTRO network when the layer has a MAESTRO
// type, so that the output is that of `marvel evaluate --mapping` on the exported file; otherwise the
// cost model on the operator itself (what the search evaluates). Throws InputError naming the project
// file and the field.
std::vector<marvel::cost::LayerEvaluation> evaluateProject(const marvel::project::Project& proj,
    const std::string& path, const marvel::arch::Accelerator& acc, marvel::search::Fidelity fidelity)
{
    using namespace marvel;
    if (!proj.selectedMapping)
        throw InputError(projectError(path, "selected_mapping",
            "the project has no selected mapping (select one in Marvel Studio, or evaluate a mapping "
            "file with --mapping)"));
    const workloads::Workload workload = project::loadProjectWorkload(proj, path);
    const workloads::WorkloadLayer& layer = project::selectedLayer(proj, workload, path);
    const mapping::LoopNestMapping& m = proj.selectedMapping->mapping;
    const cost::Options options = search::costOptions(fidelity);

    const auto nest = ir::perfectNest(layer.op);
    if (!nest)
        throw InputError(projectError(
            path, "workload", "layer '" + layer.name + "' is not a perfect loop nest: it has no mapping"));
    const cost::Problem problem = cost::fromOperator(layer.op);
    // The mapping must map this layer's loops, in nest order, with their extents.
    const search::LayerSpace space
        = search::makeLayerSpace(*nest, search::wholeDimensions(problem), layer.name);
    std::vector<Diagnostic> problems;
    std::string loops;
    for (const mapping::MappedLoop& l : space.loops)
        loops += (loops.empty() ? "" : ", ") + l.dim + " " + std::to_string(l.extent);
    if (m.loops.size() != space.loops.size())
        problems.push_back(projectError(path, "selected_mapping.loops",
            "maps " + std::to_string(m.loops.size()) + " loops but layer '" + layer.name + "' has "
                + std::to_string(space.loops.size()) + " (" + loops + ")"));
    for (std::size_t i = 0; i < m.loops.size() && i < space.loops.size(); ++i) {
        const std::string at = "selected_mapping.loops[" + std::to_string(i) + "]";
        if (m.loops[i].dim != space.loops[i].dim)
            problems.push_back(projectError(path, at + ".dim",
                "is '" + m.loops[i].dim + "' but loop " + std::to_string(i) + " of layer '" + layer.name
                    + "' is '" + space.loops[i].dim + "' (" + loops + ")"));
        else if (m.loops[i].extent != space.loops[i].extent)
            problems.push_back(projectError(path, at + ".extent",
                "is " + std::to_string(m.loops[i].extent) + " but loop " + m.loops[i].dim + " of layer '"
                    + layer.name + "' has " + std::to_string(space.loops[i].extent) + " iterations"));
    }
    if (problems.empty())
        for (Diagnostic d : mapping::validate(m, &acc)) {
            d.file = path;
            d.field = "selected_mapping." + d.field;
            problems.push_back(std::move(d));
        }
    if (!problems.empty()) throw InputError(std::move(problems));

    mdc::Dataflow dataflow;
    try {
        dataflow = mapping::toMdc(m, acc, search::stridedTiles(fidelity));
    } catch (const InputError& e) {
        for (Diagnostic d : e.diagnostics()) {
            d.file = path;
            d.field = "selected_mapping" + (d.field.empty() ? std::string() : "." + d.field);
            problems.push_back(std::move(d));
        }
        throw InputError(std::move(problems));
    }
    std::vector<cost::SubscriptLayout> layouts;
    for (const mapping::TensorLayout& l : m.layouts)
        layouts.push_back({l.tensor, l.subscriptOrder});
    cost::Problem withLayouts = problem;
    cost::setDramLayouts(withLayouts, layer.op, layouts);
    if (std::optional<mdc::Layer> maestro = cost::toMaestroLayer(problem, dataflow)) {
        maestro->name = layer.name;
        std::vector<cost::LayerEvaluation> viaMaestro
            = cost::evaluateNetwork(mdc::Network{layer.name, {std::move(*maestro)}}, acc, options, path);
        // A MAESTRO layer has no DRAM layouts: its DRAM bytes are those of the mapping's layouts, taken
        // from the operator's evaluation, whose tensors are the layer's input-class tensors in one order
        // or the other (the element counts, which do not depend on layouts, tell which).
        if (viaMaestro.size() == 1 && viaMaestro[0].ok && !layouts.empty()) {
            cost::Result op;
            try {
                op = cost::Evaluator(withLayouts, acc, options).evaluate(dataflow);
            } catch (const InputError&) {
                return viaMaestro; // keeps the row-major bytes
            }
            auto& to = viaMaestro[0].result.m;
            const auto& from = op.m;
            const int n = to.numTensors;
            auto matches = [&](bool swap) {
                for (int t = 0; t < n; ++t) {
                    const int f = swap && t < 2 ? 1 - t : t;
                    if (to.tensors[size_t(t)].dramRead != from.tensors[size_t(f)].dramRead
                        || to.tensors[size_t(t)].dramWrite != from.tensors[size_t(f)].dramWrite)
                        return false;
                }
                return true;
            };
            const bool swap = n == from.numTensors && !matches(false) && n == 3 && matches(true);
            if (n == from.numTensors && (swap || matches(false)))
                for (int t = 0; t < n; ++t) {
                    const int f = swap && t < 2 ? 1 - t : t;
                    to.tensors[size_t(t)].dramReadBytes = from.tensors[size_t(f)].dramReadBytes;
                    to.tensors[size_t(t)].dramWriteBytes = from.tensors[size_t(f)].dramWriteBytes;
                }
        }
        return viaMaestro;
    }
    cost::LayerEvaluation out;
    out.layerName = layer.name;
    out.result = cost::Evaluator(withLayouts, acc, options).evaluate(dataflow);
    out.ok = true;
    return {std::move(out)};
}

// `--dataflow`: the fixed dataflow generated for every convolution of the model (each other layer kept
// in its place with an error), evaluated as one MAESTRO network; --export-mdc writes that network.
std::vector<marvel::cost::LayerEvaluation> evaluateFixed(marvel::styles::FixedDataflow dataflow,
    marvel::cli::Args& args, const marvel::arch::Accelerator& acc, const marvel::cost::Options& options,
    const marvel::workloads::SequenceOptions& sequence)
{
    using namespace marvel;
    workloads::Workload workload
        = workloads::loadWorkload(*args.value("model"), workloads::LayerErrors::Throw, sequence);
    if (auto layer = args.value("layer")) {
        std::string names;
        for (const auto& l : workload.layers)
            names += (names.empty() ? "" : ", ") + l.name;
        std::erase_if(workload.layers, [&](const workloads::WorkloadLayer& l) { return l.name != *layer; });
        if (workload.layers.empty())
            throw InputError(Diagnostic{*args.value("model"), {}, "--layer",
                "model '" + workload.name + "' has no layer '" + *layer + "' (layers: " + names + ")"});
    }
    mdc::Network network{workload.name + "_" + styles::toString(dataflow), {}};
    std::vector<std::optional<cost::LayerEvaluation>> slots;
    for (const workloads::WorkloadLayer& l : workload.layers) {
        try {
            mdc::Layer mapped = l.maestro;
            mapped.dataflow = styles::fixedDataflow(dataflow, mapped, acc, options);
            network.layers.push_back(std::move(mapped));
            slots.emplace_back();
        } catch (const InputError& e) {
            cost::LayerEvaluation bad;
            bad.layerName = l.name;
            bad.errors = e.diagnostics();
            slots.push_back(std::move(bad));
        }
    }
    if (auto path = args.value("export-mdc"))
        writeTextFileAtomically(*path, mdc::writeMaestroMapping(network, *path), "the mapping file");
    std::vector<cost::LayerEvaluation> evaluated = network.layers.empty()
        ? std::vector<cost::LayerEvaluation>{}
        : cost::evaluateNetwork(network, acc, options, *args.value("model"));
    std::vector<cost::LayerEvaluation> out;
    std::size_t next = 0;
    for (auto& slot : slots)
        out.push_back(slot ? std::move(*slot) : std::move(evaluated[next++]));
    return out;
}

int run(const std::vector<std::string>& argv)
{
    using namespace marvel;
    std::vector<std::string> valueOptions{"hw", "mapping", "project", "format", "fidelity", "dataflow",
        "model", "layer", "export-mdc", "export-timeloop", "timeloop-buffering", "technology"};
    for (std::string& name : cli::sequenceOptionNames())
        valueOptions.push_back(std::move(name));
    cli::Args args(argv, valueOptions, {});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    workloads::SequenceOptions sequence;
    if (std::string error = cli::sequenceOptionsFromArgs(args, sequence); !error.empty())
        return cli::usageError(kCommand, error);
    if (!sequence.empty() && !args.has("model"))
        return cli::usageError(kCommand, "--seq-len, --batch, --phase and --kv-len go with --model");
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    if (args.has("project") && args.has("mapping"))
        return cli::usageError(kCommand, "give --mapping or --project, not both");
    if (args.has("dataflow") && (args.has("project") || args.has("mapping")))
        return cli::usageError(
            kCommand, "--dataflow generates the mappings: give it without --mapping or --project");
    std::optional<styles::FixedDataflow> fixed;
    if (auto name = args.value("dataflow")) {
        fixed = styles::fixedDataflowFromString(*name);
        if (!fixed)
            return cli::usageError(
                kCommand, "--dataflow must be kcp_ws, rs, xp_ws, yxp_os or ykp_os, got '" + *name + "'");
        if (!args.has("hw") || !args.has("model"))
            return cli::usageError(kCommand, "--dataflow needs --hw and --model");
    } else if (args.has("model") || args.has("layer") || args.has("export-mdc")) {
        return cli::usageError(kCommand, "--model, --layer and --export-mdc go with --dataflow");
    }
    if (args.has("export-timeloop") && !args.has("mapping"))
        return cli::usageError(kCommand, "--export-timeloop goes with --mapping");
    timeloop::Options timeloopOptions;
    timeloopOptions.topLevelInDram = false; // a MAESTRO file has no DRAM level
    if (std::string error = cli::timeloopOptionsFromArgs(args, timeloopOptions); !error.empty())
        return cli::usageError(kCommand, error);
    if (args.has("timeloop-buffering") && !args.has("export-timeloop"))
        return cli::usageError(kCommand, "--timeloop-buffering goes with --export-timeloop");
    if (!fixed && !args.has("project") && (!args.has("hw") || !args.has("mapping")))
        return cli::usageError(kCommand, "--hw and --mapping are required (or --project, or --dataflow)");
    std::string format = args.valueOr("format", "table");
    if (format != "table" && format != "csv" && format != "json")
        return cli::usageError(kCommand, "--format must be table, csv or json");
    if (auto f = args.value("fidelity"); f && *f != "maestro" && *f != "corrected")
        return cli::usageError(kCommand, "--fidelity must be maestro or corrected");

    // Without --fidelity (and without a project, which names its own): the search's default fidelity.
    search::Fidelity fidelity
        = search::fidelityFromString(args.valueOr("fidelity", "")).value_or(search::SearchOptions{}.fidelity);
    std::vector<cost::LayerEvaluation> layers;
    arch::Accelerator evaluatedOn; // for the figures in physical units
    try {
        if (auto path = args.value("project")) {
            const project::Project proj = project::loadProject(*path);
            arch::Accelerator acc
                = args.has("hw") ? cli::loadAcceleratorArg(*args.value("hw")) : proj.accelerator;
            cli::applyTechnologyArg(args, acc);
            evaluatedOn = acc;
            // The project's fidelity, unless --fidelity says otherwise.
            if (!args.has("fidelity")) fidelity = proj.search.fidelity;
            layers = evaluateProject(proj, *path, acc, fidelity);
        } else if (fixed) {
            evaluatedOn = cli::loadAcceleratorArg(*args.value("hw"));
            cli::applyTechnologyArg(args, evaluatedOn);
            layers = evaluateFixed(*fixed, args, evaluatedOn, search::costOptions(fidelity), sequence);
        } else {
            const cost::Options options = search::costOptions(fidelity);
            arch::Accelerator acc = cli::loadAcceleratorArg(*args.value("hw"));
            cli::applyTechnologyArg(args, acc);
            evaluatedOn = acc;
            std::string mappingPath = *args.value("mapping");
            mdc::Network net = mdc::readMaestroMappingFile(mappingPath);
            if (net.layers.empty())
                throw InputError(Diagnostic{mappingPath, {}, {}, "the file has no layer"});
            layers = cost::evaluateNetwork(net, acc, options, mappingPath);
            if (auto dir = args.value("export-timeloop")) {
                // Each layer's problem as the cost model reads it; a layer it rejects is reported, not
                // written.
                std::vector<cost::Problem> problems;
                std::vector<std::string> bad;
                problems.reserve(net.layers.size());
                for (const auto& l : net.layers) {
                    try {
                        problems.push_back(cost::fromMaestroLayer(l, std::nullopt, mappingPath));
                        bad.emplace_back();
                    } catch (const InputError& e) {
                        problems.emplace_back();
                        bad.push_back(e.what());
                    }
                }
                std::vector<timeloop::LayerToExport> todo;
                for (std::size_t i = 0; i < net.layers.size(); ++i)
                    if (bad[i].empty())
                        todo.push_back({net.layers[i].name, &problems[i], &net.layers[i].dataflow});
                    else
                        std::cerr << "timeloop: " << net.layers[i].name << ": not exported: " << bad[i]
                                  << '\n';
                for (const auto& r : timeloop::exportLayers(todo, acc, *dir, timeloopOptions))
                    std::cerr << "timeloop: " << r.layer << ": " << r.message << '\n';
            }
        }
    } catch (const InputError& e) {
        std::cerr << "marvel evaluate: " << formatDiagnostics(e.diagnostics());
        return cli::InputError;
    }
    const std::string fidelityName = search::toString(fidelity);
    // A bad layer does not hide the good ones: every layer is reported, each bad one with its located
    // error (on stderr too), and the exit status says that something was wrong.
    bool allOk = true;
    for (const auto& l : layers) {
        if (!l.ok) {
            allOk = false;
            std::cerr << "marvel evaluate: " << formatDiagnostics(l.errors);
        }
    }
    auto errorText = [](const cost::LayerEvaluation& l) {
        std::string text = formatDiagnostics(l.errors);
        while (!text.empty() && text.back() == '\n')
            text.pop_back();
        for (char& c : text)
            if (c == '\n') c = ' ';
        return text.empty() ? std::string("invalid layer") : text;
    };

    std::vector<std::vector<cost::ReportValue>> rows;
    for (const auto& l : layers) {
        rows.push_back(l.ok ? cost::reportRow(l.result) : std::vector<cost::ReportValue>{});
        if (!l.ok) continue;
        // After MAESTRO's and the DRAM columns: the NoC's energy and the figures in physical units (the
        // design's area for its capacities, power over this layer's runtime).
        const cost::Metrics& m = l.result.m;
        const tech::Physical ph = tech::physical(evaluatedOn,
            tech::EnergyParts{m.macEnergy, m.l1Energy, m.l2Energy, m.nocEnergy, m.dramEnergy},
            m.runtimeCycles);
        for (const auto& [name, value] : {std::pair{"noc_energy_macu", m.nocEnergy},
                 {"energy_pj", ph.energyPj}, {"area_mm2", ph.areaMm2}, {"power_mw", ph.powerMw}})
            rows.back().push_back(cost::ReportValue{name, false, 0, value});
    }
    // Column names come from any evaluated layer; with none there are no metric columns at all.
    std::vector<std::string> columns;
    for (const auto& row : rows)
        if (!row.empty()) {
            for (const auto& v : row)
                columns.push_back(v.name);
            break;
        }
    // After MAESTRO's columns: the compute bound, and the corrected runtime of a maestro-undercount.
    auto correctedRuntime = [](const cost::LayerEvaluation& l) {
        return l.ok && l.result.correctedRuntime ? std::to_string(*l.result.correctedRuntime) : std::string();
    };
    if (format == "csv") {
        std::cout << "layer_name,status";
        for (const auto& name : columns)
            std::cout << ',' << name;
        std::cout << ",compute_bound,corrected_runtime,fidelity\n";
        for (size_t i = 0; i < rows.size(); ++i) {
            std::cout << csvField(layers[i].layerName) << ','
                      << (layers[i].ok ? cost::evaluationStatus(layers[i].result)
                                       : csvField("error: " + errorText(layers[i])));
            if (layers[i].ok) {
                for (const auto& v : rows[i])
                    std::cout << ',' << v.text();
                std::cout << ',' << layers[i].result.computeBound << ',' << correctedRuntime(layers[i]);
            } else {
                std::cout << std::string(columns.size() + 2, ',');
            }
            std::cout << ',' << fidelityName;
            std::cout << '\n';
        }
    } else if (format == "json") {
        nlohmann::json out = nlohmann::json::array();
        for (size_t i = 0; i < rows.size(); ++i) {
            nlohmann::json o;
            o["layer_name"] = layers[i].layerName;
            o["status"] = layers[i].ok ? cost::evaluationStatus(layers[i].result) : "error";
            o["fidelity"] = fidelityName;
            if (!layers[i].ok) {
                nlohmann::json errors = nlohmann::json::array();
                for (const Diagnostic& d : layers[i].errors)
                    errors.push_back(d.format());
                o["errors"] = std::move(errors);
            }
            for (const auto& v : rows[i]) {
                if (v.integer)
                    o[v.name] = v.i;
                else if (std::isfinite(v.r))
                    o[v.name] = v.r;
                else
                    o[v.name] = nullptr; // JSON has no inf/nan
            }
            if (layers[i].ok) {
                const cost::Result& r = layers[i].result;
                o["compute_bound"] = r.computeBound;
                o["corrected_runtime"] = r.correctedRuntime ? nlohmann::json(*r.correctedRuntime) : nullptr;
                if (r.undercount != cost::Undercount::None) {
                    o["undercount"] = cost::toString(r.undercount);
                    if (!r.correctedRuntime) o["corrected_error"] = r.correctedError;
                }
            }
            out.push_back(o);
        }
        std::cout << out.dump(2) << '\n';
    } else {
        // A readable subset: the figures people compare mappings by; a bad layer gets its error instead.
        // Energy: MAESTRO's on-chip total (scr_total_energy_macu), the DRAM part and their sum.
        const std::vector<std::string> shown = {"num_macs", "runtime_cycles", "throughput_macs_per_cycle",
            "scr_total_energy_macu", "dram_energy_macu", "total_energy_macu", "energy_pj", "area_mm2",
            "power_mw", "avg_utilized_clusters", "l1_size_req", "l2_size_req", "peak_bw_req", "avg_bw_req",
            "dram_reads", "dram_writes", "dram_read_bytes", "dram_write_bytes"};
        std::cout << cli::fidelityLine(fidelity);
        std::vector<std::vector<std::string>> cells;
        std::vector<std::string> header = {"layer"};
        header.insert(header.end(), shown.begin(), shown.end());
        cells.push_back(header);
        std::vector<std::string> errorLines(rows.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            std::vector<std::string> line = {layers[i].layerName};
            if (!layers[i].ok) {
                errorLines[i] = "error: " + errorText(layers[i]);
                cells.push_back(line);
                continue;
            }
            for (const auto& name : shown)
                for (const auto& v : rows[i])
                    if (v.name == name) line.push_back(v.text());
            cells.push_back(line);
        }
        std::vector<size_t> width(header.size(), 0);
        for (const auto& line : cells)
            for (size_t c = 0; c < line.size(); ++c)
                width[c] = std::max(width[c], line[c].size());
        for (size_t r = 0; r < cells.size(); ++r) {
            const auto& line = cells[r];
            for (size_t c = 0; c < line.size(); ++c) {
                if (c == 0)
                    std::cout << std::left << std::setw(int(width[c])) << line[c];
                else
                    std::cout << "  " << std::right << std::setw(int(width[c])) << line[c];
            }
            if (r > 0 && !errorLines[r - 1].empty()) std::cout << "  " << errorLines[r - 1];
            std::cout << '\n';
        }
        for (const auto& l : layers)
            if (l.ok && l.result.undercount != cost::Undercount::None)
                std::cout << "warning: layer '" << l.layerName << "': " << cost::evaluationStatus(l.result)
                          << ": " << cost::undercountWarning(l.result) << '\n';
    }
    return allOk ? cli::Ok : cli::InputError;
}

const bool registered = marvel::cli::registerCommand(kCommand);

} // namespace cmd_evaluate
