#pragma once
// The paper's evaluation as one run (`marvel reproduce`, issue 10): which experiments, running them
// layer by layer, adding layers up to models, the geometric means the paper reports, and the tables,
// summary and report written from them. Qt-free; the CLI and a renderer of figures drive it.
//
// Definitions (REPORT.md states them too). A model's runtime (energy) under a variant is the sum over its
// layers of the layer's best runtime (energy) times the layer's repeat count; the roofline likewise.
// A layer for which a variant finds no mapping that fits the buffers is left out of every comparison of
// that variant with Marvel on that model and platform (both sums then run over the layers both map) and
// listed as excluded; the ratio to the roofline uses the same layers.
//   marvel_over_roofline[P]        geomean over the CNNs of Marvel's model runtime / model roofline
//   throughput_gain_vs_styles      geomean over CNNs x platforms x {rs, ws, os} of style / Marvel runtime
//   energy_gain_vs_styles          the same with energies, each from an energy-objective search
//   speedup_vs_X.cnn               geomean over the paper's CNNs (AlexNet, VGG16) x platforms of X / Marvel
//   speedup_vs_X.cnn_all           the same over all four CNNs
//   speedup_vs_X.gemm              over the GEMM table's workloads x platforms
//   speedup_vs_X.mlp_lstm          over MLP-M, MLP-L, LSTM-M, LSTM-L, RHN x platforms
//   speedup_vs_genetic.*           the same against our GAMMA-like genetic search (not in the paper)
//   search_space.*_avg             arithmetic means over the CNNs' distinct layers and the platforms of
//                                  the search-space table's rows (search::SearchSpaceSizes)

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/search/space_size.h"

namespace marvel::eval {

enum class Category { Cnn, Gemm, MlpLstm };
std::string toString(Category category); ///< "cnn", "gemm", "mlp_lstm"

/// What searched a layer: Marvel, a style or past optimiser (core/styles), our GAMMA-like genetic search
/// (core/search/genetic.h, with RunOptions::geneticEvaluations), or Marvel with tile sizes that need not
/// divide the loop bounds ("beyond the paper").
enum class Variant {
    Marvel,
    RowStationary,
    WeightStationary,
    OutputStationary,
    Interstellar,
    DMazeRunner,
    Genetic,
    MarvelNoDivisors
};
std::string toString(Variant
        variant); ///< "marvel", "rs", "ws", "os", "interstellar", "dmazerunner", "genetic", "marvel_nodiv"
std::string label(Variant variant); ///< "Marvel", "Eyeriss-like RS", ... as in the figures
const std::vector<Variant>& allVariants();

/// One workload of the evaluation.
struct Experiment
{
    std::string workload; ///< a built-in model name or a model file (workloads::loadWorkload)
    Category category = Category::Cnn;
    bool layersAreItems = false; ///< each layer is a workload of its own (the GEMM table)
    bool paperCnn = false; ///< in the paper's CNN comparison with the optimisers (AlexNet, VGG16)
    bool beyond = false; ///< also searched with MarvelNoDivisors
    std::vector<std::string> layers; ///< only these layers; empty: all
};

/// The experiments of one run and the accelerators (name, file) they run on.
struct Plan
{
    std::string name; ///< "full", "quick" or the experiments file
    std::string description; ///< what the subset is, for the report
    std::vector<Experiment> experiments;
    std::vector<std::pair<std::string, std::string>> platforms; ///< name, accelerator file
};
/// The paper's whole evaluation on P1 and P2 (`acceleratorDir` holds P1_eyeriss.json and P2_edge.json).
Plan fullPlan(const std::string& acceleratorDir);
/// The --quick subset: AlexNet, three GEMMs and MLP-M on both platforms, all variants.
Plan quickPlan(const std::string& acceleratorDir);
/// An experiments file: {"platforms": {"P1": "acc.json", ...}, "experiments": [{"workload": "alexnet",
/// "category": "cnn", "layers": ["CONV5"], "paper_cnn": true, "layers_are_items": false, "beyond": false},
/// ...]}; paths are relative to the file. Throws InputError naming the file and field.
Plan readPlan(const std::string& text, const std::string& fileName, const std::string& baseDir);

/// The variants an experiment is searched with, in allVariants() order.
std::vector<Variant> variantsOf(const Experiment& experiment);

/// One layer searched by one variant on one platform.
struct LayerRow
{
    std::string workload; ///< the experiment's workload
    std::string item; ///< the model the layer adds up into (the layer itself for layersAreItems)
    std::string layer;
    std::string platform;
    Category category = Category::Cnn;
    bool paperCnn = false;
    Variant variant = Variant::Marvel;
    int repeat = 1;
    std::optional<std::int64_t> runtime; ///< best runtime (cycles); nullopt: no mapping fits
    std::optional<double> energy; ///< energy of that fastest mapping
    std::optional<double> minEnergy; ///< best energy of an energy-objective search, when one ran
    std::int64_t roofline = 0; ///< cycles
    double seconds = 0.0; ///< search time of the layer (both searches)
    bool truncated = false; ///< the search stopped at its candidate limit (best of a part)
    std::optional<search::SearchSpaceSizes> sizes; ///< Marvel's rows only
    std::string note; ///< e.g. the convolution form an optimiser searched
};

/// One model (item) on one platform under one variant, added up over the layers that both it and Marvel
/// map (over Marvel's mapped layers for Marvel itself).
struct ItemTotals
{
    std::string workload, item, platform;
    Category category = Category::Cnn;
    bool paperCnn = false;
    Variant variant = Variant::Marvel;
    double runtime = 0, energy = 0; ///< energy: the energy search's when it ran, else the fastest mapping's
    double marvelRuntime = 0, marvelEnergy = 0;
    double roofline = 0;
    std::vector<std::string> excluded; ///< layers left out (no mapping fits for this variant or Marvel)
    bool valid() const { return runtime > 0 && marvelRuntime > 0 && roofline > 0; }
};

/// The aggregated figures of a run; absent when the run has nothing to compute one from.
struct Summary
{
    std::map<std::string, double> marvelOverRoofline; ///< CNNs, per platform
    std::map<std::string, double> gemmOverRoofline, mlpLstmOverRoofline;
    std::optional<double> throughputGainVsStyles, energyGainVsStyles;
    std::map<Variant, double> throughputGainPerStyle, energyGainPerStyle;
    struct Speedup
    {
        std::optional<double> cnn, cnnAll, gemm, mlpLstm;
    };
    Speedup vsDMazeRunner, vsInterstellar, vsGenetic;
    struct Space
    {
        std::optional<double> original, offChip, onChip, offChipPruned, onChipPruned;
        int layers = 0;
    } space;
    double marvelSecondsPerLayer = 0, marvelMaxSecondsPerLayer = 0, interstellarSecondsPerLayer = 0;
    /// Beyond the paper: MarvelNoDivisors's CNN roofline ratios per platform, and the search time of its
    /// layers beside divisor-only Marvel's on the same layers.
    std::map<std::string, double> beyondOverRoofline, beyondDivisorsOverRoofline;
    double beyondSeconds = 0, beyondDivisorsSeconds = 0;
    int beyondTruncated = 0; ///< MarvelNoDivisors layers whose search stopped at its candidate limit
    std::vector<ItemTotals> items;
    std::vector<std::string> excluded; ///< "alexnet P1 ws: CONV1" for each excluded layer
};

/// Geometric mean of positive values; nullopt for none.
std::optional<double> geomean(const std::vector<double>& values);

/// The pure aggregation: totals per item and variant, then the means above.
Summary summarize(const std::vector<LayerRow>& rows);

/// Progress of a run: `done` of `total` layer searches, the current one, and the estimated time left.
struct RunProgress
{
    std::size_t done = 0, total = 0;
    std::string current;
    double elapsedSeconds = 0, etaSeconds = 0;
};

inline constexpr std::uint64_t kBeyondMaxCandidates = 300'000;
/// The genetic variant's budget per layer: small, so that it adds seconds, not minutes, to a run.
inline constexpr std::uint64_t kReproduceGeneticEvaluations = 2'000;

struct RunOptions
{
    unsigned threads = 0; ///< search threads (0: all cores); results do not depend on it
    /// MarvelNoDivisors's searches stop after this many evaluated mappings per layer (deterministic):
    /// without a bound, main's search of that space takes minutes per layer (13 min for VGG16 on P1).
    std::uint64_t beyondMaxCandidates = kBeyondMaxCandidates;
    /// The genetic variant's cost-model evaluations per layer (seed 1).
    std::uint64_t geneticEvaluations = kReproduceGeneticEvaluations;
    std::function<void(const RunProgress&)> progress;
};

/// The accelerators of a plan, loaded (InputError naming the file on a bad one).
std::vector<std::pair<std::string, arch::Accelerator>> loadPlatforms(const Plan& plan);

/// Searches every layer of every experiment on every platform with every variant, in a fixed order;
/// stops between layers when `stop` is requested (`cancelled` set; the rows so far are returned).
std::vector<LayerRow> runPlan(const Plan& plan,
    const std::vector<std::pair<std::string, arch::Accelerator>>& platforms, const RunOptions& options,
    std::stop_token stop, bool& cancelled);

/// summary.json: the keys and the other figures.
nlohmann::json summaryJson(const Summary& summary, double seconds, bool cancelled, const Plan& plan,
    std::uint64_t beyondMaxCandidates = kBeyondMaxCandidates,
    std::uint64_t geneticEvaluations = kReproduceGeneticEvaluations);
/// Per-layer rows of one workload (all workloads when empty).
std::string layersCsv(const std::vector<LayerRow>& rows, const std::string& workload = {});
/// Per-item totals of one workload: runtime, energy, roofline, ratios to the roofline and to Marvel.
std::string itemsCsv(const Summary& summary, const std::string& workload = {});

/// A grouped bar chart's data for the renderer: one value per series and group (NaN: missing).
struct Figure
{
    std::string name; ///< file stem
    std::string title, yLabel;
    bool logScale = true;
    std::vector<std::string> groups, series;
    std::vector<std::vector<double>> values; ///< [series][group]
};
std::vector<Figure> figures(const Summary& summary);
/// "group,SERIES1,SERIES2..." and one line per group.
std::string figureCsv(const Figure& figure);

/// REPORT.md: every figure beside the paper's, the differences explained, the excluded layers listed.
std::string reportMarkdown(const Plan& plan, const Summary& summary, const std::vector<LayerRow>& rows,
    double seconds, bool cancelled, const std::vector<std::string>& figureFiles,
    std::uint64_t beyondMaxCandidates = kBeyondMaxCandidates,
    std::uint64_t geneticEvaluations = kReproduceGeneticEvaluations);

} // namespace marvel::eval
