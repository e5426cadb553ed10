// The search without divisor pruning (issue 10): its space contains every divisor mapping, so it must
// never return a worse one, with or without limits, and its bound-based early stopping must find the
// optimum the full enumeration finds. Small operators, real cost model; the truth is a brute-force
// minimum over every mapping the unpruned search hands the cost model that fits the buffers.
#include <map>
#include <mutex>

#include <QTest>

#include "core/cost/costmodel.h"
#include "core/ir/parser.h"
#include "core/search/search.h"
#include "tests/core/core_test_support.h"

using namespace marvel;
using namespace marvel::search;

using marvel::testsupport::bestValue;
namespace {

// Extents that few tile sizes divide (7, 5, 10) on PE counts they do not divide (6, 12): non-divisor
// tiles matter here.
const char* kAnytimeOperators[] = {
    "operator gemm(M = 7, N = 10, K = 5) {\n"
    "  for (m = 0; m < M; m++)\n    for (n = 0; n < N; n++)\n      for (k = 0; k < K; k++)\n"
    "        C[m][n] += A[m][k] * B[k][n];\n}\n",
    "operator conv(K = 4, C = 3, Y = 6, X = 4, R = 3, S = 3) {\n"
    "  for (k = 0; k < K; k++)\n    for (c = 0; c < C; c++)\n      for (y = 0; y < Y; y++)\n"
    "        for (x = 0; x < X; x++)\n          for (r = 0; r < R; r++)\n            for (s = 0; s < S; "
    "s++)\n"
    "              O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s];\n}\n",
};
constexpr int kOperatorCount = 2;

arch::Accelerator smallAccelerator(int op)
{
    arch::Accelerator acc;
    acc.numPes = op == 0 ? 6 : 12;
    acc.l1Bytes = 64;
    acc.l2Bytes = 1024;
    acc.nocBandwidth = 4;
    return acc;
}

SearchOptions options(Objective objective, bool divisorsOnly)
{
    SearchOptions o;
    o.refine = false; // the decoupled search's anytime behaviour
    o.objective = objective;
    o.divisorsOnly = divisorsOnly;
    o.threads = 2;
    return o;
}

/// The smallest value of each objective over every mapping the cost model evaluated that fits both
/// buffers.
struct BestSeen
{
    std::mutex mutex;
    double best[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::infinity()};
    std::uint64_t fitting = 0;

    EvaluatorFactory wrap(EvaluatorFactory inner, const arch::Accelerator& acc)
    {
        return [this, inner, acc] {
            struct Watching final : MappingEvaluator
            {
                BestSeen* seen = nullptr;
                arch::Accelerator acc;
                std::unique_ptr<MappingEvaluator> e;
                std::optional<Metrics> evaluate(const mdc::Dataflow& df) override
                {
                    auto m = e->evaluate(df);
                    if (m && m->l1Requirement * acc.bytesPerElement <= acc.l1Bytes
                        && m->l2Requirement * acc.bytesPerElement <= acc.l2Bytes) {
                        std::lock_guard lock(seen->mutex);
                        for (int o = 0; o < 3; ++o)
                            seen->best[o] = std::min(seen->best[o], m->value(static_cast<Objective>(o)));
                        ++seen->fitting;
                    }
                    return m;
                }
            };
            auto w = std::make_unique<Watching>();
            w->seen = this;
            w->acc = acc;
            w->e = inner();
            return std::unique_ptr<MappingEvaluator>(std::move(w));
        };
    }
};

/// The operator's space under one level-3 tile: the whole operator when it fits L2, else the off-chip
/// search's divisor-only choice (a fixed choice, so both searches see the same level-3 tile).
struct Fixture
{
    ir::Operator op;
    arch::Accelerator acc;
    cost::Problem problem;
    LayerSpace space;
    OffChipChoice offChip;
};

Fixture fixture(int index)
{
    Fixture f;
    f.op = ir::parseOperator(kAnytimeOperators[index], "anytime.loop");
    f.acc = smallAccelerator(index);
    const LayerSearchResult r = searchLayer(f.op, f.acc, options(Objective::Runtime, true));
    f.problem = r.problem;
    f.space = r.space;
    f.offChip = r.offChip;
    return f;
}

/// Rows operator x objective; `everySize` adds a column and the GEMM rows over every tile size.
void addRows(bool everySize = false)
{
    QTest::addColumn<int>("op");
    QTest::addColumn<int>("objective");
    if (everySize) QTest::addColumn<bool>("every");
    for (int op = 0; op < kOperatorCount; ++op)
        for (int obj = 0; obj < 3; ++obj) {
            const char* o = op == 0 ? "gemm" : "conv";
            const std::string name = toString(static_cast<Objective>(obj));
            if (!everySize) {
                QTest::addRow("%s/%s", o, name.c_str()) << op << obj;
                continue;
            }
            QTest::addRow("%s/%s", o, name.c_str()) << op << obj << false;
            if (op == 0) QTest::addRow("%s/%s/every size", o, name.c_str()) << op << obj << true;
        }
}

} // namespace

class TestSearchAnytime : public QObject
{
    Q_OBJECT

    std::map<std::pair<int, bool>, std::pair<SearchResult, std::unique_ptr<BestSeen>>> m_fullEnumerations;
private slots:
    // (a) The whole decoupled search: the non-divisor off-chip choice differs from the divisor-only one,
    // yet the result is never worse.
    void neverWorseThanDivisors_data() { addRows(); }
    void neverWorseThanDivisors()
    {
        QFETCH(int, op);
        QFETCH(int, objective);
        const Objective obj = static_cast<Objective>(objective);
        const ir::Operator oper = ir::parseOperator(kAnytimeOperators[op], "anytime.loop");
        const arch::Accelerator acc = smallAccelerator(op);
        const LayerSearchResult divisors = searchLayer(oper, acc, options(obj, true));
        const LayerSearchResult all = searchLayer(oper, acc, options(obj, false));
        const double d = bestValue(divisors.result, obj);
        QVERIFY(std::isfinite(d));
        QVERIFY2(bestValue(all.result, obj) <= d,
            qPrintable(QString("%1 > %2").arg(bestValue(all.result, obj)).arg(d)));
        QVERIFY(!all.result.truncated);
        // The other objectives' bests and the front come along from the divisor-only search too.
        for (int k = 0; k < 3; ++k)
            QVERIFY(bestValue(all.result, static_cast<Objective>(k))
                <= bestValue(divisors.result, static_cast<Objective>(k)));
        for (const Candidate& c : divisors.result.pareto)
            QVERIFY(std::any_of(all.result.pareto.begin(), all.result.pareto.end(), [&](const Candidate& p) {
                return p.metrics.runtime <= c.metrics.runtime && p.metrics.energy <= c.metrics.energy;
            }));
    }

    // (b) Bound-based stopping (the seeds' incumbent, pruning during the enumeration, tighter bounds at
    // edge tiles) finds the brute-force optimum of the full non-divisor enumeration.
    void boundStoppingIsExact_data() { addRows(true); }
    void boundStoppingIsExact()
    {
        QFETCH(int, op);
        QFETCH(int, objective);
        QFETCH(bool, every);
        const Objective obj = static_cast<Objective>(objective);
        const Fixture f = fixture(op);
        // The full enumeration (no bound skipping) evaluates the same mappings whatever the objective, so
        // each operator's is run once and serves the three objectives' rows.
        auto& [everything, seen] = m_fullEnumerations[{op, every}];
        if (!seen) {
            seen = std::make_unique<BestSeen>();
            SearchOptions full = options(Objective::Runtime, false);
            full.everyTileSize = every;
            full.boundSkipping = false;
            everything = searchOnChip(f.space, f.offChip, f.acc, full,
                seen->wrap(costModelEvaluators(f.problem, f.acc, Fidelity::Maestro), f.acc));
        }
        QVERIFY(seen->fitting > 100);
        QVERIFY(!everything.truncated);
        QCOMPARE(bestValue(everything, obj), seen->best[objective]);

        SearchOptions bounded = options(obj, false);
        bounded.everyTileSize = every;
        const SearchResult stopped = searchOnChip(
            f.space, f.offChip, f.acc, bounded, costModelEvaluators(f.problem, f.acc, Fidelity::Maestro));
        QCOMPARE(bestValue(stopped, obj), seen->best[objective]);
        QVERIFY(!stopped.truncated);
        QVERIFY(stopped.evaluated <= everything.evaluated);
        // The energy bound (the MACs' energy and their L1 accesses) is the same for every tile: in EDP it
        // prunes only with the runtime bound; the runtime bound alone prunes most of the space.
        if (obj == Objective::Runtime) QVERIFY(stopped.evaluated < everything.evaluated / 2);
        qInfo("%llu of %llu evaluated with bounds; %llu partial tile assignments pruned",
            static_cast<unsigned long long>(stopped.evaluated),
            static_cast<unsigned long long>(everything.evaluated),
            static_cast<unsigned long long>(stopped.stats.boundPrunedTiles));
    }

    // (c) Limits: a search stopped after a handful of candidates, or holding only a sample of the tile
    // assignments, still returns at least the divisor-only optimum.
    void limitsNeverWorse_data() { addRows(); }
    void limitsNeverWorse()
    {
        QFETCH(int, op);
        QFETCH(int, objective);
        const Objective obj = static_cast<Objective>(objective);
        const Fixture f = fixture(op);
        const auto factory = costModelEvaluators(f.problem, f.acc, Fidelity::Maestro);
        struct Limit
        {
            const char* what;
            std::uint64_t candidates;
            std::uint64_t tiles;
            std::uint64_t budget = 1'000'000;
        };
        // Three candidates, lowest bound first; at most 8 tile assignments held, an evenly spread sample
        // of each pass's enumeration; a non-divisor budget of 5 candidates (the divisor pass unlimited).
        for (const Limit& limit : {Limit{"3 candidates", 3, 1'500'000}, Limit{"8 tile assignments", 0, 8},
                 Limit{"budget of 5", 0, 1'500'000, 5}}) {
            SearchOptions o = options(obj, true);
            o.maxCandidates = limit.candidates;
            o.maxTileAssignments = limit.tiles;
            o.nonDivisorBudget = limit.budget;
            const double divisors = bestValue(searchOnChip(f.space, f.offChip, f.acc, o, factory), obj);
            o.divisorsOnly = false;
            const SearchResult r = searchOnChip(f.space, f.offChip, f.acc, o, factory);
            QVERIFY2(r.truncated, limit.what);
            QVERIFY2(bestValue(r, obj) <= divisors, limit.what);
            QVERIFY2(r.stats.tiles <= limit.tiles, limit.what);
            // What the limit keeps does not depend on the thread count.
            o.threads = 1;
            const SearchResult r1 = searchOnChip(f.space, f.offChip, f.acc, o, factory);
            QCOMPARE(r1.best(obj)->mapping, r.best(obj)->mapping);
            QCOMPARE(r1.evaluated, r.evaluated);
        }
    }

    // (d) The enumeration's visit limit: a non-divisor pass allowed only a few hundred nodes of its tile
    // tree stops there, says so, and - seeded with the divisor-only optimum, as searchLayer seeds it -
    // never returns anything worse; what it visits does not depend on the thread count.
    void visitLimitNeverWorse_data() { addRows(); }
    void visitLimitNeverWorse()
    {
        QFETCH(int, op);
        QFETCH(int, objective);
        const Objective obj = static_cast<Objective>(objective);
        const Fixture f = fixture(op);
        const auto factory = costModelEvaluators(f.problem, f.acc, Fidelity::Maestro);
        SearchOptions o = options(obj, true);
        const SearchResult divisors = searchOnChip(f.space, f.offChip, f.acc, o, factory);
        QVERIFY(!divisors.truncated);
        o.divisorsOnly = false;
        o.seeds = {*divisors.best(obj)};
        o.maxTileVisits = 300;
        const SearchResult r = searchOnChip(f.space, f.offChip, f.acc, o, factory);
        QVERIFY(r.truncated);
        QVERIFY(bestValue(r, obj) <= bestValue(divisors, obj));
        o.threads = 1;
        const SearchResult r1 = searchOnChip(f.space, f.offChip, f.acc, o, factory);
        QCOMPARE(r1.best(obj)->mapping, r.best(obj)->mapping);
        QCOMPARE(r1.stats.tiles, r.stats.tiles);
        // The default limit leaves these small operators' trees whole: more tile assignments are kept.
        o.maxTileVisits = SearchOptions{}.maxTileVisits;
        QVERIFY(searchOnChip(f.space, f.offChip, f.acc, o, factory).stats.tiles > r.stats.tiles);
    }
};

QTEST_GUILESS_MAIN(TestSearchAnytime)
#include "tst_search_anytime.moc"
