// `marvel search`: the decoupled off-chip/on-chip mapping search of an operator or of every layer of a
// model (issue 4), with a progress bar, JSON output and a MAESTRO mapping export.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "app/cli/command.h"
#include "app/cli/search_common.h"
#include "core/mdc/maestro_io.h"

namespace {

using namespace marvel;

int run(const std::vector<std::string>& argv);

const cli::Command kCommand{"search", "find the best mappings of an operator or a model on an accelerator",
    "usage: marvel search (--op FILE.loop | --model NAME_OR_FILE [--layer NAME]) --hw FILE\n"
    "                     [--objective runtime|energy|edp] [--threads N] [--json] [--export-mdc OUT.m]\n"
    "                     [--pe-util-bound P] [--no-divisors-only] [--no-l1-check] [--no-bound-skipping]\n"
    "                     [--exhaustive] [--fidelity maestro|corrected]\n\n"
    "Solves the off-chip subspace with the distinct-block model, then explores level-2 orders, level-2\n"
    "and level-1 tiles with the MDC cost model (paper Algorithm 1).\n"
    "  --op FILE.loop        one operator\n"
    "  --model NAME|FILE     a built-in model (alexnet, vgg16, resnet50, mobilenetv2, ...), a MAESTRO\n"
    "                        model file (.m) or a JSON model; --layer picks one layer\n"
    "  --hw FILE             accelerator (.json or MAESTRO .m)\n"
    "  --objective           what to minimise (default runtime)\n"
    "  --threads N           worker threads (default: all cores); results do not depend on it\n"
    "  --pe-util-bound P     prune level-2 tiles using fewer than P of the PEs (default 0.1)\n"
    "  --no-divisors-only    also try tile sizes that do not divide the enclosing tile\n"
    "  --no-l1-check         do not require level-1 tiles to fit in L1\n"
    "  --no-bound-skipping   evaluate every candidate even when a lower bound rules it out\n"
    "  --exhaustive          also enumerate level-3 tiles and orders (small operators only)\n"
    "  --fidelity            cost model mode (default maestro)\n"
    "  --json                one JSON object on stdout\n"
    "  --export-mdc OUT.m    write every layer's best mapping as one MAESTRO mapping file\n\n"
    "exit status: 0 ok, 1 operator not conformable, 2 input error",
    run};

/// A terminal progress bar on stderr, redrawn at most every 100 ms by the search thread.
class ProgressBar final : public search::SearchSink
{
public:
    explicit ProgressBar(std::string label)
        : m_label(std::move(label))
    { }
    void onProgress(const search::Progress& p) override
    {
        const double done = p.candidates
            ? static_cast<double>(p.evaluated + p.skipped) / static_cast<double>(p.candidates)
            : 1.0;
        const int width = 30;
        const int filled = static_cast<int>(done * width);
        std::fprintf(stderr, "\r%-20.20s [%s%s] %3d%% %llu evaluated, best %lld cycles, eta %.0fs   ",
            m_label.c_str(), std::string(static_cast<std::size_t>(std::min(filled, width)), '#').c_str(),
            std::string(static_cast<std::size_t>(width - std::min(filled, width)), '.').c_str(),
            static_cast<int>(done * 100), static_cast<unsigned long long>(p.evaluated),
            static_cast<long long>(p.best ? p.best->runtime : 0), p.etaSeconds);
        std::fflush(stderr);
    }
    void finish() { std::fprintf(stderr, "\r%80s\r", ""); }

private:
    std::string m_label;
};

int run(const std::vector<std::string>& argv)
{
    cli::Args args(argv,
        {"op", "model", "layer", "hw", "objective", "threads", "export-mdc", "pe-util-bound", "fidelity"},
        {"json", "no-divisors-only", "no-l1-check", "no-bound-skipping", "exhaustive"});
    if (!args.ok()) return cli::usageError(kCommand, args.error());
    if (!args.positionals().empty())
        return cli::usageError(kCommand, "unexpected argument '" + args.positionals().front() + "'");
    if (args.has("op") == args.has("model"))
        return cli::usageError(kCommand, "give exactly one of --op and --model");
    if (args.has("layer") && !args.has("model")) return cli::usageError(kCommand, "--layer needs --model");
    if (!args.has("hw")) return cli::usageError(kCommand, "missing --hw FILE");

    search::SearchOptions options;
    if (std::string error = cli::searchOptionsFromArgs(args, options); !error.empty())
        return cli::usageError(kCommand, error);

    arch::Accelerator acc;
    std::vector<cli::SearchLayer> layers;
    try {
        acc = arch::loadAccelerator(*args.value("hw"));
        layers = args.has("op") ? cli::layersFromOperatorFile(*args.value("op"))
                                : cli::layersFromModel(*args.value("model"), args.value("layer"));
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel search: " << e.what() << '\n';
        return cli::InputError;
    }
    if (std::string reason = cli::nonConformableReason(layers); !reason.empty()) {
        std::cerr << "marvel search: " << reason << '\n';
        return cli::NotConformable;
    }

    const bool json = args.has("json");
    const bool tty = isatty(fileno(stderr)) != 0;
    const auto start = std::chrono::steady_clock::now();
    std::vector<cli::SearchedLayer> searched;
    for (const cli::SearchLayer& layer : layers) {
        ProgressBar bar(layer.name);
        try {
            searched.push_back(cli::searchOne(layer, acc, options, tty ? &bar : nullptr));
        } catch (const marvel::InputError& e) {
            if (tty) bar.finish();
            std::cerr << "marvel search: " << layer.name << ": " << e.what() << '\n';
            return cli::InputError;
        }
        if (tty) bar.finish();
        if (!searched.back().best) {
            std::cerr << "marvel search: " << layer.name
                      << ": no valid mapping in the pruned space (try a lower --pe-util-bound or "
                         "--no-divisors-only)\n";
            return cli::InputError;
        }
        if (searched.back().search.result.truncated)
            std::cerr
                << "marvel search: " << layer.name
                << ": warning: the space was too large to enumerate whole; this is the best mapping of the "
                   "part searched (keep tile sizes to divisors, or raise --pe-util-bound)\n";
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    if (args.has("export-mdc")) {
        try {
            cli::exportMdc(searched, *args.value("export-mdc"));
        } catch (const marvel::InputError& e) {
            std::cerr << "marvel search: " << e.what() << '\n';
            return cli::InputError;
        }
    }
    if (json)
        std::cout << cli::searchJson(searched, options, elapsed).dump(2) << '\n';
    else
        std::cout << cli::searchText(searched, options, elapsed);
    return cli::Ok;
}

const bool registered = cli::registerCommand(kCommand);

} // namespace
