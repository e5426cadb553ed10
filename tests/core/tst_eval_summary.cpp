// core/eval: the aggregation of `marvel reproduce` - model totals over layers with repeats, excluded
// layers, and every geometric mean of the summary - on a hand-made set of layer results whose expected
// means are worked out below.
#include <cmath>
#include <nlohmann/json.hpp>

#include <QTest>

#include "core/eval/reproduce.h"

using namespace marvel;
using eval::Category;
using eval::LayerRow;
using eval::Variant;

namespace {

LayerRow row(const std::string& workload, const std::string& item, const std::string& layer, Category c,
    bool paper, Variant v, std::optional<std::int64_t> runtime, std::int64_t roofline, int repeat = 1,
    std::optional<double> minEnergy = std::nullopt)
{
    LayerRow r;
    r.workload = workload;
    r.item = item;
    r.layer = layer;
    r.platform = "P1";
    r.category = c;
    r.paperCnn = paper;
    r.variant = v;
    r.runtime = runtime;
    r.energy = runtime ? std::optional<double>(1000.0) : std::nullopt; // ignored when minEnergy is given
    r.minEnergy = minEnergy;
    r.roofline = roofline;
    r.repeat = repeat;
    return r;
}

search::SearchSpaceSizes sizes(double original, double off, double on)
{
    search::SearchSpaceSizes s;
    s.original = original;
    s.offChipPruned = off;
    s.onChipPruned = on;
    return s;
}

/// The hand-made run:
///  netA (a paper CNN), L1 x2 and L2:      marvel 100/200 (roofline 80/200), energies 50/100
///    rs 400/200 (energies 100/100), ws 200/600 (50/300), os none/400 (-/200),
///    interstellar 150/200, dmazerunner 300/1000
///  netB (CNN, not the paper's), K1:       marvel 100 (roofline 50, energy 10), rs = ws = os = 100
///    (energy 10), interstellar 200, dmazerunner 800, marvel_nodiv 60
///  GEMM table: G1 marvel 100 (roofline 100), interstellar 300, dmazerunner 900;
///              G2 marvel 200 (roofline 100), interstellar 200, dmazerunner none
///  mlp (two layers): marvel 100 + 100 (roofline 50 + 50), interstellar 150 + 150, dmazerunner 200 + 600
///  genetic (last, the indices above unchanged): netA 80/200, netB 120, G1 50 (G2 none), mlp 100 + 100
std::vector<LayerRow> handMadeRun()
{
    const auto cnn = Category::Cnn;
    std::vector<LayerRow> rows{
        row("netA", "netA", "L1", cnn, true, Variant::Marvel, 100, 80, 2, 50),
        row("netA", "netA", "L1", cnn, true, Variant::RowStationary, 400, 80, 2, 100),
        row("netA", "netA", "L1", cnn, true, Variant::WeightStationary, 200, 80, 2, 50),
        row("netA", "netA", "L1", cnn, true, Variant::OutputStationary, std::nullopt, 80, 2),
        row("netA", "netA", "L1", cnn, true, Variant::Interstellar, 150, 80, 2),
        row("netA", "netA", "L1", cnn, true, Variant::DMazeRunner, 300, 80, 2),
        row("netA", "netA", "L2", cnn, true, Variant::Marvel, 200, 200, 1, 100),
        row("netA", "netA", "L2", cnn, true, Variant::RowStationary, 200, 200, 1, 100),
        row("netA", "netA", "L2", cnn, true, Variant::WeightStationary, 600, 200, 1, 300),
        row("netA", "netA", "L2", cnn, true, Variant::OutputStationary, 400, 200, 1, 200),
        row("netA", "netA", "L2", cnn, true, Variant::Interstellar, 200, 200),
        row("netA", "netA", "L2", cnn, true, Variant::DMazeRunner, 1000, 200),
        row("netB", "netB", "K1", cnn, false, Variant::Marvel, 100, 50, 1, 10),
        row("netB", "netB", "K1", cnn, false, Variant::RowStationary, 100, 50, 1, 10),
        row("netB", "netB", "K1", cnn, false, Variant::WeightStationary, 100, 50, 1, 10),
        row("netB", "netB", "K1", cnn, false, Variant::OutputStationary, 100, 50, 1, 10),
        row("netB", "netB", "K1", cnn, false, Variant::Interstellar, 200, 50),
        row("netB", "netB", "K1", cnn, false, Variant::DMazeRunner, 800, 50),
        row("netB", "netB", "K1", cnn, false, Variant::MarvelNoDivisors, 60, 50),
        row("gemm", "G1", "G1", Category::Gemm, false, Variant::Marvel, 100, 100),
        row("gemm", "G1", "G1", Category::Gemm, false, Variant::Interstellar, 300, 100),
        row("gemm", "G1", "G1", Category::Gemm, false, Variant::DMazeRunner, 900, 100),
        row("gemm", "G2", "G2", Category::Gemm, false, Variant::Marvel, 200, 100),
        row("gemm", "G2", "G2", Category::Gemm, false, Variant::Interstellar, 200, 100),
        row("gemm", "G2", "G2", Category::Gemm, false, Variant::DMazeRunner, std::nullopt, 100),
        row("mlp", "mlp", "F1", Category::MlpLstm, false, Variant::Marvel, 100, 50),
        row("mlp", "mlp", "F1", Category::MlpLstm, false, Variant::Interstellar, 150, 50),
        row("mlp", "mlp", "F1", Category::MlpLstm, false, Variant::DMazeRunner, 200, 50),
        row("mlp", "mlp", "F2", Category::MlpLstm, false, Variant::Marvel, 100, 50),
        row("mlp", "mlp", "F2", Category::MlpLstm, false, Variant::Interstellar, 150, 50),
        row("mlp", "mlp", "F2", Category::MlpLstm, false, Variant::DMazeRunner, 600, 50),
        row("netA", "netA", "L1", cnn, true, Variant::Genetic, 80, 80, 2),
        row("netA", "netA", "L2", cnn, true, Variant::Genetic, 200, 200),
        row("netB", "netB", "K1", cnn, false, Variant::Genetic, 120, 50),
        row("gemm", "G1", "G1", Category::Gemm, false, Variant::Genetic, 50, 100),
        row("mlp", "mlp", "F1", Category::MlpLstm, false, Variant::Genetic, 100, 50),
        row("mlp", "mlp", "F2", Category::MlpLstm, false, Variant::Genetic, 100, 50),
    };
    rows[0].sizes = sizes(1e18, 1e8, 1e7);
    rows[6].sizes = sizes(3e18, 3e8, 3e7);
    rows[12].sizes = sizes(2e18, 2e8, 2e7);
    rows[19].sizes = sizes(100, 100, 100); // a GEMM: not in the CNN search-space table
    return rows;
}

void fuzzy(double actual, double expected)
{
    QVERIFY2(std::abs(actual - expected) <= 1e-12 * std::abs(expected),
        (std::to_string(actual) + " != " + std::to_string(expected)).c_str());
}

} // namespace

class TestEvalSummary : public QObject
{
    Q_OBJECT
private slots:
    void geomeanOfFew()
    {
        QVERIFY(!eval::geomean({}));
        fuzzy(*eval::geomean({2.0, 8.0}), 4.0);
        fuzzy(*eval::geomean({1.0, 3.0, 9.0}), 3.0);
    }

    void modelTotals()
    {
        const eval::Summary s = eval::summarize(handMadeRun());
        const auto find = [&](const std::string& item, Variant v) {
            for (const eval::ItemTotals& t : s.items)
                if (t.item == item && t.variant == v) return t;
            return eval::ItemTotals{};
        };
        // netA under Marvel: 2*100 + 200 cycles, roofline 2*80 + 200.
        const eval::ItemTotals marvel = find("netA", Variant::Marvel);
        fuzzy(marvel.runtime, 400);
        fuzzy(marvel.roofline, 360);
        // OS has no mapping for L1: both sides over L2 only.
        const eval::ItemTotals os = find("netA", Variant::OutputStationary);
        fuzzy(os.runtime, 400);
        fuzzy(os.marvelRuntime, 200);
        fuzzy(os.energy, 200);
        fuzzy(os.marvelEnergy, 100);
        QCOMPARE(os.excluded, std::vector<std::string>{"L1"});
        QCOMPARE(s.excluded.size(), std::size_t(2));
        QCOMPARE(s.excluded[0], std::string("netA P1 os: L1 (no mapping fits)"));
        QCOMPARE(s.excluded[1], std::string("G2 P1 dmazerunner: G2 (no mapping fits)"));
    }

    void geometricMeans()
    {
        const eval::Summary s = eval::summarize(handMadeRun());
        // Marvel / roofline: netA 400/360, netB 100/50 = 2.
        fuzzy(s.marvelOverRoofline.at("P1"), std::sqrt(400.0 / 360.0 * 2.0));
        // Styles: netA rs 1000/400 = 2.5, ws 1000/400 = 2.5, os 400/200 = 2; netB 1, 1, 1.
        fuzzy(*s.throughputGainVsStyles, std::pow(2.5 * 2.5 * 2.0, 1.0 / 6.0));
        // Energies: netA rs 300/200 = 1.5, ws 400/200 = 2, os 200/100 = 2; netB 1, 1, 1.
        fuzzy(*s.energyGainVsStyles, std::pow(1.5 * 2.0 * 2.0, 1.0 / 6.0));
        fuzzy(s.throughputGainPerStyle.at(Variant::RowStationary), std::sqrt(2.5));
        // Optimisers on CNNs: the paper's (netA only) and all.
        fuzzy(*s.vsDMazeRunner.cnn, 1600.0 / 400.0);
        fuzzy(*s.vsDMazeRunner.cnnAll, std::sqrt(4.0 * 8.0));
        fuzzy(*s.vsInterstellar.cnn, 500.0 / 400.0);
        fuzzy(*s.vsInterstellar.cnnAll, std::sqrt(1.25 * 2.0));
        // GEMMs: each its own workload; G2 has no dMazeRunner-like mapping and is left out of that mean.
        fuzzy(s.gemmOverRoofline.at("P1"), std::sqrt(1.0 * 2.0));
        fuzzy(*s.vsInterstellar.gemm, std::sqrt(3.0 * 1.0));
        fuzzy(*s.vsDMazeRunner.gemm, 9.0);
        // MLP: totals 200 (roofline 100), interstellar 300, dMazeRunner 800.
        fuzzy(s.mlpLstmOverRoofline.at("P1"), 2.0);
        fuzzy(*s.vsInterstellar.mlpLstm, 1.5);
        fuzzy(*s.vsDMazeRunner.mlpLstm, 4.0);
        // The genetic search: netA 360/400 (below 1: it found faster mappings), netB 120/100, G1 50/100.
        fuzzy(*s.vsGenetic.cnn, 0.9);
        fuzzy(*s.vsGenetic.cnnAll, std::sqrt(0.9 * 1.2));
        fuzzy(*s.vsGenetic.gemm, 0.5);
        fuzzy(*s.vsGenetic.mlpLstm, 1.0);
        // Search space: the CNNs' Marvel layers only.
        fuzzy(*s.space.original, 2e18);
        fuzzy(*s.space.offChipPruned, 2e8);
        fuzzy(*s.space.onChipPruned, 2e7);
        QCOMPARE(s.space.layers, 3);
        // Beyond the paper: netB with any tile size 60 / 50, divisor-only 100 / 50.
        fuzzy(s.beyondOverRoofline.at("P1"), 1.2);
        fuzzy(s.beyondDivisorsOverRoofline.at("P1"), 2.0);
    }

    void summaryJsonHasTheIssueKeys()
    {
        const eval::Summary s = eval::summarize(handMadeRun());
        const nlohmann::json j = eval::summaryJson(s, 12.5, false, eval::Plan{"tiny", "", {}, {}});
        QVERIFY(j["marvel_over_roofline"]["P1"].is_number());
        fuzzy(j["throughput_gain_vs_styles"].get<double>(), std::pow(12.5, 1.0 / 6.0));
        for (const char* k :
            {"speedup_vs_dmazerunner_like", "speedup_vs_interstellar_like", "speedup_vs_genetic"})
            for (const char* c : {"cnn", "gemm", "mlp_lstm"})
                QVERIFY2(j[k][c].is_number(), (std::string(k) + "." + c).c_str());
        QCOMPARE(j["genetic_evaluations_per_layer"].get<std::uint64_t>(), eval::kReproduceGeneticEvaluations);
        for (const char* k : {"original_avg", "offchip_pruned_avg", "onchip_pruned_avg"})
            QVERIFY(j["search_space"][k].is_number());
        QCOMPARE(j["seconds"].get<double>(), 12.5);
    }

    void emptyRunHasNoMeans()
    {
        const eval::Summary s = eval::summarize({});
        QVERIFY(!s.throughputGainVsStyles);
        QVERIFY(s.marvelOverRoofline.empty());
        QVERIFY(!s.space.original);
    }
};

QTEST_APPLESS_MAIN(TestEvalSummary)
#include "tst_eval_summary.moc"
