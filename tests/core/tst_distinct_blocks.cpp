#include <QTest>

#include "core/search/offchip.h"
#include "db_brute_force.h"

using bruteforce::affine;
using bruteforce::ref;
using marvel::ir::TensorRef;
using marvel::search::distinctBlocks;
using marvel::search::distinctElements;
using marvel::search::innermostLayout;
using Tile = std::map<std::string, std::int64_t>;

Q_DECLARE_METATYPE(TensorRef)
Q_DECLARE_METATYPE(Tile)

namespace {

// References whose iterators each appear in one subscript: DB must equal the brute-force count.
std::vector<std::pair<const char*, TensorRef>> exactRefs()
{
    return {
        {"I[c][y+r][x+s]",
            ref("I", {affine({{"c", 1}}), affine({{"y", 1}, {"r", 1}}), affine({{"x", 1}, {"s", 1}})})},
        {"I[c][2y+r][2x+s]",
            ref("I", {affine({{"c", 1}}), affine({{"y", 2}, {"r", 1}}), affine({{"x", 2}, {"s", 1}})})},
        {"I[c][4y+r][x+2s] (dilated)",
            ref("I", {affine({{"c", 1}}), affine({{"y", 4}, {"r", 1}}), affine({{"x", 1}, {"s", 2}})})},
        {"W[k][c][r][s]",
            ref("W", {affine({{"k", 1}}), affine({{"c", 1}}), affine({{"r", 1}}), affine({{"s", 1}})})},
        {"A[m][k]", ref("A", {affine({{"m", 1}}), affine({{"k", 1}})})},
        {"B[k][n]", ref("B", {affine({{"k", 1}}), affine({{"n", 1}})})},
        {"O[y-r+2][3x] (negative, scaled)", ref("O", {affine({{"y", 1}, {"r", -1}}, 2), affine({{"x", 3}})})},
        {"T[5y+3r] (gaps)", ref("T", {affine({{"y", 5}, {"r", 3}})})},
    };
}

Tile tileFor(const TensorRef& r, std::int64_t seed)
{
    Tile tile;
    std::int64_t sizes[] = {1, 2, 3, 5, 4, 7, 6};
    std::int64_t i = seed;
    for (const auto& s : r.subscripts)
        for (const auto& [name, coef] : s.terms)
            if (!tile.count(name)) tile[name] = sizes[(i++) % 7];
    return tile;
}

} // namespace

class TestDistinctBlocks : public QObject
{
    Q_OBJECT
private slots:
    // Hand-computed values of the paper's formula (contiguous footprints start block-aligned).
    void paperFormula_data()
    {
        QTest::addColumn<TensorRef>("reference");
        QTest::addColumn<Tile>("tile");
        QTest::addColumn<int>("innermost");
        QTest::addColumn<qint64>("block");
        QTest::addColumn<qint64>("expected");
        auto input
            = ref("I", {affine({{"c", 1}}), affine({{"y", 1}, {"r", 1}}), affine({{"x", 1}, {"s", 1}})});
        Tile t{{"c", 2}, {"y", 4}, {"r", 3}, {"x", 5}, {"s", 3}};
        // x innermost: ceil((5+3-1)/4) * 2 * (4+3-1) = 2 * 2 * 6
        QTest::newRow("I x-inner B4") << input << t << 2 << qint64(4) << qint64(24);
        // c innermost: ceil(2/4) * 6 * 7
        QTest::newRow("I c-inner B4") << input << t << 0 << qint64(4) << qint64(42);
        // y innermost, B=64: ceil(6/64) * 2 * 7
        QTest::newRow("I y-inner B64") << input << t << 1 << qint64(64) << qint64(14);
        // B = 1: distinct elements 2 * 6 * 7
        QTest::newRow("I B1") << input << t << 2 << qint64(1) << qint64(84);
        auto strided
            = ref("I", {affine({{"c", 1}}), affine({{"y", 2}, {"r", 1}}), affine({{"x", 2}, {"s", 1}})});
        // stride 2 with T_s = 1: x touches 0,2,4,6,8 -> 5 elements in 3 blocks of 4 (0-3, 4-7, 8)
        Tile u{{"c", 1}, {"y", 3}, {"r", 3}, {"x", 5}, {"s", 1}};
        QTest::newRow("strided gaps B4") << strided << u << 2 << qint64(4) << qint64(3 * 7);
        QTest::newRow("strided gaps B1") << strided << u << 2 << qint64(1) << qint64(5 * 7);
        auto a = ref("A", {affine({{"m", 1}}), affine({{"k", 1}})});
        QTest::newRow("A[m][k] k-inner")
            << a << Tile{{"m", 16}, {"k", 100}} << 1 << qint64(64) << qint64(16 * 2);
        QTest::newRow("A[m][k] m-inner")
            << a << Tile{{"m", 16}, {"k", 100}} << 0 << qint64(64) << qint64(100);
    }
    void paperFormula()
    {
        QFETCH(TensorRef, reference);
        QFETCH(Tile, tile);
        QFETCH(int, innermost);
        QFETCH(qint64, block);
        QFETCH(qint64, expected);
        auto layout = innermostLayout(reference.tensor, int(reference.subscripts.size()), innermost);
        QCOMPARE(qint64(distinctBlocks(reference, tile, layout, block)), expected);
        QCOMPARE(qint64(bruteforce::blocks(reference, tile, innermost, block)), expected);
    }

    // Many tiles x every layout x block sizes 1, 4, 64 against brute-force counting.
    void matchesBruteForce_data()
    {
        QTest::addColumn<TensorRef>("reference");
        QTest::addColumn<qint64>("block");
        for (const auto& [name, r] : exactRefs())
            for (qint64 b : {1, 4, 64})
                QTest::addRow("%s B%lld", name, b) << r << b;
    }
    void matchesBruteForce()
    {
        QFETCH(TensorRef, reference);
        QFETCH(qint64, block);
        int rank = int(reference.subscripts.size());
        for (std::int64_t seed = 0; seed < 14; ++seed) {
            Tile tile = tileFor(reference, seed);
            QCOMPARE(
                qint64(distinctElements(reference, tile)), qint64(bruteforce::elements(reference, tile)));
            for (int d = 0; d < rank; ++d) {
                auto layout = innermostLayout(reference.tensor, rank, d);
                QCOMPARE(layout.innermost(), d);
                auto model = distinctBlocks(reference, tile, layout, block);
                auto brute = bruteforce::blocks(reference, tile, d, block);
                if (model != brute) qWarning("seed %lld innermost %d", (long long)seed, d);
                QCOMPARE(qint64(model), qint64(brute));
            }
        }
    }

    // An iterator in two subscripts (the paper's I[x+y][y]): the model is an upper bound.
    void sharedIteratorIsUpperBound()
    {
        auto r = ref("I", {affine({{"x", 1}, {"y", 1}}), affine({{"y", 1}})});
        for (std::int64_t tx : {1, 3, 8})
            for (std::int64_t ty : {1, 2, 5})
                for (std::int64_t b : {1, 4})
                    for (int d = 0; d < 2; ++d) {
                        Tile tile{{"x", tx}, {"y", ty}};
                        auto model = distinctBlocks(r, tile, innermostLayout("I", 2, d), b);
                        QVERIFY(model >= bruteforce::blocks(r, tile, d, b));
                    }
        // Paper's formula for it, y innermost, B = 4: ceil(Ty / 4) * (Tx + Ty - 1)
        Tile tile{{"x", 6}, {"y", 5}};
        QCOMPARE(distinctBlocks(r, tile, innermostLayout("I", 2, 1), 4), std::int64_t(2 * 10));
    }

    void layoutOrder()
    {
        auto layout = innermostLayout("W", 4, 1);
        QCOMPARE(layout.dimOrder, (std::vector<int>{0, 2, 3, 1}));
        QCOMPARE(innermostLayout("W", 4, 3).dimOrder, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(QString::fromStdString(layout.toString()), QStringLiteral("W: 0,2,3,1"));
    }
};

QTEST_APPLESS_MAIN(TestDistinctBlocks)
#include "tst_distinct_blocks.moc"
