// `marvel bench-search`: search time, mappings evaluated per second and the quality of the found
// mappings (geometric mean of runtime over roofline) per model, against the paper's targets.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <stop_token>
#include <thread>

#include "app/cli/command.h"
#include "app/cli/search_args.h"
#include "app/cli/search_layers.h"

namespace cmd_bench_search {

using namespace marvel;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"bench-search",
    "benchmark of the mapping search: time, mappings per second, runtime / roofline",
    "usage: marvel bench-search [--model NAME_OR_FILE[,...]|cnns] [--hw P1|P2|PRESET|FILE]\n"
    "                           [--objective runtime|energy|edp]\n"
    "                           [--threads N] [--no-divisors-only] [--fidelity maestro|corrected]\n"
    "                           [--genetic-evaluations N] [--genetic-seed S] [--no-genetic]\n"
    "                           [--no-refine] [--offchip-candidates K]\n"
    "                           [--seq-len N] [--batch B] [--phase prefill|decode] [--kv-len L]\n\n"
    "Searches every layer of the model (default resnet50) on the accelerator (default P2) and prints per\n"
    "layer the search time, mappings evaluated and runtime / roofline, then the totals, mappings per\n"
    "second, the model's runtime / roofline (its layers' runtimes added up, as the paper evaluates whole\n"
    "models) and the geometric mean of the layers' ratios. Several models (comma-separated; cnns =\n"
    "alexnet,vgg16,resnet50,mobilenetv2) end with the paper's quality figure - the geometric mean over\n"
    "the models of their runtime / roofline - against its target (1.31 on P1, 1.10 on P2), and the\n"
    "stricter geometric mean over every layer instance of all the models. --no-divisors-only measures the\n"
    "search that also tries tile sizes that do not divide (doc/search.md: VGG16 on P1 in about a minute).\n"
    "Each layer is also searched by the GAMMA-like genetic search (`marvel search --style genetic`, same\n"
    "options and its budget): per layer its runtime and Marvel's runtime over it, then per model and over\n"
    "every layer the geometric mean of that ratio (below 1: Marvel is faster), the layers where the genetic\n"
    "search is faster, and its search time; --no-genetic leaves it out. --no-refine measures the paper's\n"
    "decoupled search alone (`marvel search --no-refine`). PRESET: a file of samples/accelerators by its\n"
    "stem (eyeriss_dram, edge1024_dram: the presets with a memory system). On an accelerator that charges\n"
    "DRAM accesses, each model also prints its best mappings' total energy, the DRAM share of it, the "
    "layers\n"
    "whose runtime-energy front holds at least two mappings and the search time, with\n"
    "--offchip-candidates K (default 1) and, searched again for comparison, with K=3 (K=1 when K > 1).\n"
    "--seq-len, --batch, --phase and --kv-len instantiate transformers as for marvel search; on P2, a\n"
    "transformer case issue 35 sets a goal for prints it beside Marvel's search time (wall and CPU):\n"
    "gpt2 prefill at 1024 tokens <= 30 s, one gpt2 decode step at --kv-len 1024 <= 10 s, llama-7b-block\n"
    "prefill at 4096 tokens <= 60 s (on a 2-core machine; give --no-genetic to time the search alone).\n",
    run};

// Issue 35's speed goals on P2 (seconds of Marvel's search of the whole model), for the model and
// sequence options they name; 0 for any other case.
double transformerGoalSeconds(const std::string& model, const workloads::SequenceOptions& s)
{
    if (s.batch.value_or(1) != 1) return 0;
    if (model == "gpt2" && s.phase == workloads::Phase::Prefill && s.seqLen.value_or(1024) == 1024) return 30;
    if (model == "gpt2" && s.phase == workloads::Phase::Decode && s.kvLen.value_or(1024) == 1024) return 10;
    if (model == "llama-7b-block" && s.phase == workloads::Phase::Prefill && s.seqLen.value_or(4096) == 4096)
        return 60;
    return 0;
}

// How long a search takes to return once a stop is requested (the desktop app cancels searches when the
// user edits): the first model's layers are searched without divisor pruning, so none finishes at once,
// and each is stopped after 100 ms.
void printCancellationLatency(const std::string& model, const arch::Accelerator& acc,
    search::SearchOptions options, const workloads::SequenceOptions& sequence)
{
    options.divisorsOnly = false;
    options.everyTileSize = true;
    options.boundSkipping = false;
    double worst = 0;
    int stopped = 0;
    for (const cli::SearchLayer& layer :
        cli::layersFromModel(model, std::nullopt, workloads::LayerErrors::Throw, sequence)) {
        std::stop_source source;
        std::chrono::steady_clock::time_point requested;
        std::jthread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            requested = std::chrono::steady_clock::now();
            source.request_stop();
        });
        search::LayerSearchResult r;
        try {
            r = search::searchLayer(layer.op, acc, options, nullptr, source.get_token());
        } catch (const InputError&) {
            continue;
        }
        const auto returned = std::chrono::steady_clock::now();
        stopper.join();
        if (!r.result.cancelled) continue; // finished within 100 ms: nothing to measure
        ++stopped;
        worst = std::max(worst, std::chrono::duration<double, std::milli>(returned - requested).count());
        if (stopped == 5) break;
    }
    if (stopped > 0)
        std::printf("cancellation: %d searches stopped after 100 ms, worst return %.1f ms after the request "
                    "(target <= 100 ms: %s)\n",
            stopped, worst, worst <= 100 ? "met" : "not met");
}

// What issue 21 asks of a search on an accelerator with a memory system, over one model.
struct MemoryFigures
{
    double energy = 0; ///< the best mappings' total energy, layer instances added up (MAC units)
    double dramEnergy = 0; ///< its DRAM part
    int layers = 0;
    int frontsOfTwo = 0; ///< layers whose runtime-energy front holds at least two mappings
    double seconds = 0; ///< search time (CPU-independent: the searches' own clocks)

    void add(const cli::SearchedLayer& s, int repeat)
    {
        ++layers;
        if (!s.best) return;
        energy += s.best->metrics.energy * repeat;
        dramEnergy += s.best->metrics.dramEnergy * repeat;
        frontsOfTwo += s.search.result.pareto.size() >= 2 ? 1 : 0;
        seconds += s.search.result.seconds;
    }
    void print(int k) const
    {
        std::printf(
            "K=%d: energy %.4g MAC units (DRAM %.1f%%), %d of %d layers with a front of >= 2 mappings, "
            "search %.2f s",
            k, energy, energy > 0 ? 100.0 * dramEnergy / energy : 0.0, frontsOfTwo, layers, seconds);
    }
};

int run(const std::vector<std::string>& argv)
{
    std::vector<std::string> valueOptions{"model", "hw", "objective", "threads", "fidelity",
        "genetic-evaluations", "genetic-seed", "offchip-candidates"};
    for (std::string& name : cli::sequenceOptionNames())
        valueOptions.push_back(std::move(name));
    cli::Args args(argv, valueOptions, {"no-divisors-only", "no-genetic", "no-refine"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    workloads::SequenceOptions sequence;
    if (std::string error = cli::sequenceOptionsFromArgs(args, sequence); !error.empty())
        return cli::usageError(kCommand, error);
    search::SearchOptions options;
    if (std::string error = cli::searchOptionsFromArgs(args, options); !error.empty())
        return cli::usageError(kCommand, error);
    const std::string hw = args.valueOr("hw", "P2");
    std::vector<std::string> models;
    {
        const std::string list = args.valueOr("model", "resnet50");
        std::size_t from = 0;
        while (from <= list.size()) {
            const std::size_t comma = std::min(list.find(',', from), list.size());
            const std::string name = list.substr(from, comma - from);
            if (name == "cnns")
                models.insert(models.end(), {"alexnet", "vgg16", "resnet50", "mobilenetv2"});
            else if (!name.empty())
                models.push_back(name);
            from = comma + 1;
        }
        if (models.empty()) return cli::usageError(kCommand, "--model names no model");
    }
    arch::Accelerator acc;
    try {
        acc = cli::loadAcceleratorArg(hw);
    } catch (const InputError& e) {
        std::cerr << "marvel bench-search: " << e.what() << '\n';
        return cli::InputError;
    }
    // The paper's targets are for its platforms (no DRAM charged, practically unlimited off-chip bandwidth).
    const bool paperPlatform = acc.energy.dramAccess == 0 && acc.offchipBandwidth >= 1000000;
    const double target = !paperPlatform ? 0.0 : acc.numPes == 168 ? 1.31 : (acc.numPes == 1024 ? 1.10 : 0.0);
    auto printAgainstTarget = [&](const char* what, double figure) {
        if (target > 0)
            std::printf("%s %.3f (paper target <= %.2f: %s)\n", what, figure, target,
                figure <= target ? "met" : "not met");
        else
            std::printf("%s %.3f\n", what, figure);
    };
    const bool genetic = !args.has("no-genetic");
    double allLogSum = 0, allSeconds = 0, modelLogSum = 0, allSearchSeconds = 0, allCpu = 0;
    double allGeneticLogSum = 0, allGeneticSeconds = 0;
    std::int64_t allCount = 0, allGeneticCount = 0, allGeneticWins = 0;
    std::vector<std::pair<std::string, double>> perModel;
    std::vector<MemoryFigures> allMemory, allMemorySingle; // with K, with the other K
    for (const std::string& model : models) {
        std::vector<cli::SearchLayer> layers;
        try {
            layers = cli::layersFromModel(model, std::nullopt, workloads::LayerErrors::Throw, sequence);
        } catch (const InputError& e) {
            std::cerr << "marvel bench-search: " << e.what() << '\n';
            return cli::InputError;
        }
        std::printf("%-24s %7s %10s %9s %12s %12s %7s ", "layer", "repeat", "evaluated", "seconds", "runtime",
            "roofline", "ratio");
        if (genetic) std::printf(" %12s %9s %8s", "genetic", "seconds", "vs gen.");
        std::printf("\n");
        double seconds = 0, logSum = 0, geneticLogSum = 0, geneticSeconds = 0;
        std::int64_t geneticCount = 0, geneticWins = 0;
        std::uint64_t evaluated = 0;
        std::int64_t count = 0, totalRuntime = 0, totalRoofline = 0;
        int belowRoofline = 0; // layers whose runtime is below their roofline (marked !)
        const auto start = std::chrono::steady_clock::now();
        double cpu = 0; // CPU time of Marvel's searches (every thread): the figure a loaded machine keeps
        MemoryFigures memory;
        for (const cli::SearchLayer& layer : layers) {
            cli::SearchedLayer s;
            const std::clock_t cpuStart = std::clock();
            try {
                s = cli::searchOne(layer, acc, options, nullptr);
            } catch (const InputError& e) {
                std::cerr << "marvel bench-search: " << layer.name << ": " << e.what() << '\n';
                return cli::InputError;
            }
            cpu += static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
            memory.add(s, layer.repeat);
            if (!s.best) {
                std::printf("%-24s %7d   no mapping found\n", layer.name.c_str(), layer.repeat);
                continue;
            }
            const double ratio = static_cast<double>(s.best->metrics.runtime)
                / static_cast<double>(std::max<std::int64_t>(1, s.roofline.cycles));
            const bool below = !search::belowRooflineNote(s.best->metrics.runtime, s.roofline).empty();
            belowRoofline += below ? 1 : 0;
            std::printf("%-24s %7d %10llu %9.3f %12lld %12lld %7.3f%s", layer.name.c_str(), layer.repeat,
                static_cast<unsigned long long>(s.search.result.evaluated), s.search.result.seconds,
                static_cast<long long>(s.best->metrics.runtime), static_cast<long long>(s.roofline.cycles),
                ratio, below ? "!" : " ");
            if (genetic) {
                // The baseline on the same layer: Marvel's runtime over the genetic search's, by layer
                // instance (repeats counted) as the roofline ratio is.
                cli::SearchedLayer g;
                try {
                    g = cli::searchOne(layer, acc, options, nullptr, {}, styles::Style::Genetic);
                } catch (const InputError& e) {
                    std::cerr << "marvel bench-search: " << layer.name << ": " << e.what() << '\n';
                    return cli::InputError;
                }
                geneticSeconds += g.search.result.seconds;
                if (g.best) {
                    const double vs = static_cast<double>(s.best->metrics.runtime)
                        / static_cast<double>(std::max<std::int64_t>(1, g.best->metrics.runtime));
                    std::printf(" %12lld %9.3f %8.3f%s", static_cast<long long>(g.best->metrics.runtime),
                        g.search.result.seconds, vs, vs > 1 ? " *" : "");
                    geneticLogSum += std::log(vs) * layer.repeat;
                    geneticCount += layer.repeat;
                    geneticWins += vs > 1 ? 1 : 0;
                } else
                    std::printf(" %12s %9.3f %8s", "none", g.search.result.seconds, "-");
            }
            std::printf("\n");
            seconds += s.search.result.seconds;
            evaluated += s.search.result.evaluated;
            logSum += std::log(ratio) * layer.repeat;
            count += layer.repeat;
            totalRuntime += s.best->metrics.runtime * layer.repeat;
            totalRoofline += s.roofline.cycles * layer.repeat;
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double geomean = count ? std::exp(logSum / static_cast<double>(count)) : 0.0;
        std::printf("\nmodel %s on %s (%s%s): %zu layers, search %.2f s (CPU %.2f s; wall %.2f s with the "
                    "genetic search), %llu mappings, %.0f mappings/s\n",
            model.c_str(), acc.name.c_str(), search::toString(options.objective).c_str(),
            options.divisorsOnly ? "" : ", tile sizes need not divide", layers.size(), seconds, cpu, wall,
            static_cast<unsigned long long>(evaluated),
            seconds > 0 ? static_cast<double>(evaluated) / seconds : 0.0);
        if (const double goal = transformerGoalSeconds(model, sequence); goal > 0 && acc.numPes == 1024) {
            const std::string what = sequence.phase == workloads::Phase::Decode
                ? "one decode step at kv-len " + std::to_string(sequence.kvLen.value_or(1024))
                : "prefill at " + std::to_string(sequence.seqLen.value_or(model == "gpt2" ? 1024 : 4096))
                    + " tokens";
            std::printf("issue 35 goal: %s %s searched whole in <= %.0f s (2 cores): Marvel's search %.2f s "
                        "(CPU %.2f s, %u threads): %s\n",
                model.c_str(), what.c_str(), goal, seconds, cpu,
                options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency()),
                seconds <= goal ? "met" : "not met");
        }
        const double modelRatio = static_cast<double>(totalRuntime)
            / static_cast<double>(std::max<std::int64_t>(1, totalRoofline));
        std::printf("total runtime %lld cycles, roofline %lld cycles\n", static_cast<long long>(totalRuntime),
            static_cast<long long>(totalRoofline));
        printAgainstTarget("model runtime / roofline", modelRatio);
        std::printf("geomean of the layers' runtime / roofline %.3f\n", geomean);
        if (belowRoofline > 0)
            std::printf("%d layer(s) below the roofline (marked !): %s\n", belowRoofline,
                options.fidelity == search::Fidelity::Maestro
                    ? "maestro fidelity keeps MAESTRO's formulas, whose off-chip time does not hold each "
                      "step's DRAM traffic to the bandwidth; --fidelity corrected does"
                    : "see marvel search's note on each");
        if (acc.energy.dramAccess > 0) {
            // The memory system's figures with K off-chip solutions, and with 3 (K = 1) or 1 for comparison.
            std::printf("memory system: ");
            memory.print(options.offChipCandidates);
            {
                search::SearchOptions other = options;
                other.offChipCandidates = options.offChipCandidates == 1 ? 3 : 1;
                MemoryFigures compared;
                for (const cli::SearchLayer& layer : layers) {
                    try {
                        compared.add(cli::searchOne(layer, acc, other, nullptr), layer.repeat);
                    } catch (const InputError&) {
                        ++compared.layers;
                    }
                }
                std::printf("; ");
                compared.print(other.offChipCandidates);
                allMemorySingle.push_back(compared);
            }
            std::printf("\n");
            allMemory.push_back(memory);
        }
        if (genetic && geneticCount > 0)
            std::printf(
                "against the genetic search: geomean of the layers' runtime ratio %.3f, %lld layer(s) "
                "where it is faster (marked *), its search %.2f s\n",
                std::exp(geneticLogSum / static_cast<double>(geneticCount)),
                static_cast<long long>(geneticWins), geneticSeconds);
        allGeneticLogSum += geneticLogSum;
        allGeneticCount += geneticCount;
        allGeneticWins += geneticWins;
        allGeneticSeconds += geneticSeconds;
        allLogSum += logSum;
        allCount += count;
        allSeconds += wall;
        allSearchSeconds += seconds;
        allCpu += cpu;
        modelLogSum += std::log(modelRatio);
        perModel.emplace_back(model, modelRatio);
        if (models.size() > 1) std::printf("\n");
    }
    if (models.size() > 1) {
        // The paper adds up each model's layer runtimes and reports the geometric mean over the models.
        std::printf("overall on %s: %zu models, %lld layer instances, Marvel's search %.2f s (CPU %.2f s), "
                    "%.2f s with the genetic search; runtime / roofline:",
            acc.name.c_str(), models.size(), static_cast<long long>(allCount), allSearchSeconds, allCpu,
            allSeconds);
        for (const auto& [name, ratio] : perModel)
            std::printf(" %s %.3f", name.c_str(), ratio);
        std::printf("\n");
        if (!allMemory.empty()) {
            MemoryFigures sum, sumSingle;
            for (const std::vector<MemoryFigures>* list : {&allMemory, &allMemorySingle})
                for (const MemoryFigures& m : *list) {
                    MemoryFigures& s = list == &allMemory ? sum : sumSingle;
                    s.energy += m.energy;
                    s.dramEnergy += m.dramEnergy;
                    s.layers += m.layers;
                    s.frontsOfTwo += m.frontsOfTwo;
                    s.seconds += m.seconds;
                }
            std::printf("memory system over the models: ");
            sum.print(options.offChipCandidates);
            if (!allMemorySingle.empty()) {
                std::printf("; ");
                sumSingle.print(options.offChipCandidates == 1 ? 3 : 1);
            }
            std::printf("\n");
        }
        printAgainstTarget("geomean over the models of runtime / roofline",
            std::exp(modelLogSum / static_cast<double>(models.size())));
        std::printf("geomean over every layer instance %.3f\n",
            allCount ? std::exp(allLogSum / static_cast<double>(allCount)) : 0.0);
        if (genetic && allGeneticCount > 0)
            std::printf(
                "against the genetic search (%llu evaluations per layer, seed %llu): geomean over every "
                "layer instance of Marvel's runtime over its %.3f, %lld layer(s) where it is faster, its "
                "search %.2f s\n",
                static_cast<unsigned long long>(options.genetic.evaluations),
                static_cast<unsigned long long>(options.genetic.seed),
                std::exp(allGeneticLogSum / static_cast<double>(allGeneticCount)),
                static_cast<long long>(allGeneticWins), allGeneticSeconds);
    }
    printCancellationLatency(models.front(), acc, options, sequence);
    return cli::Ok;
}

const bool registered = cli::registerCommand(kCommand);

} // namespace cmd_bench_search
