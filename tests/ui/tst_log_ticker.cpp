#include <QTest>

#include "ui/plot/log_ticker.h"

using namespace marvel::ui;

namespace {

struct Generated
{
    QVector<double> inside; ///< the ticks within the range (QCustomPlot keeps one beyond each end)
    QVector<double> subTicks;
    QVector<QString> labels; ///< of the ticks inside
};

Generated generate(double lower, double upper, int tickCount)
{
    LogTicker ticker;
    ticker.setTickCount(tickCount);
    QVector<double> ticks, subTicks;
    QVector<QString> labels;
    ticker.generate(QCPRange(lower, upper), QLocale::c(), QLatin1Char('g'), 0, ticks, &subTicks, &labels);
    Generated out;
    out.subTicks = subTicks;
    for (int i = 0; i < ticks.size(); ++i)
        if (ticks[i] >= lower && ticks[i] <= upper) {
            out.inside.push_back(ticks[i]);
            out.labels.push_back(labels[i]);
        }
    return out;
}

void compareTicks(const QVector<double>& actual, const QVector<double>& expected)
{
    QCOMPARE(actual.size(), expected.size());
    for (int i = 0; i < actual.size(); ++i)
        QVERIFY2(qAbs(actual[i] / expected[i] - 1) < 1e-9,
            qPrintable(QStringLiteral("tick %1: %2, expected %3").arg(i).arg(actual[i]).arg(expected[i])));
}

} // namespace

class TestLogTicker : public QObject
{
    Q_OBJECT
private slots:
    void underTwoDecadesGetsMoreThanOneLabel()
    {
        // A sweep's area axis, 1.5e7 to 8e8: the powers of ten alone put a single label (1e8) on it.
        // 1, 3 per decade gives 3e7, 1e8, 3e8 (three, nearest four); 1, 2, 5 gives five.
        const Generated four = generate(1.5e7, 8e8, 4);
        compareTicks(four.inside, {3e7, 1e8, 3e8});
        QCOMPARE(four.labels, (QVector<QString>{"3e7", "1e8", "3e8"}));
        QVERIFY(four.subTicks.isEmpty());
        const Generated five = generate(1.5e7, 8e8, 5);
        compareTicks(five.inside, {2e7, 5e7, 1e8, 2e8, 5e8});
    }

    void manyDecadesKeepPowersOfTenWithSubTicks()
    {
        // 1e3 to 1e7: five powers of ten, exactly the tick count.
        const Generated g = generate(1e3, 1e7, 5);
        compareTicks(g.inside, {1e3, 1e4, 1e5, 1e6, 1e7});
        // QCustomPlot's log sub-ticks: 2..9 times each power, eight per decade inside the range.
        int subInside = 0;
        for (double t : g.subTicks)
            subInside += t > 1e3 && t < 1e7;
        QCOMPARE(subInside, 4 * 8);
    }

    void narrowRangeUsesFineMantissas()
    {
        // 2e6 to 3e6 (0.18 decades): 1, 3 and 1, 2, 5 leave one tick inside, 1, 1.5, 2, 3, 5, 7 two
        // (2e6, 3e6), the finest set three (2e6, 2.5e6, 3e6), nearest five.
        const Generated g = generate(2e6, 3e6, 5);
        compareTicks(g.inside, {2e6, 2.5e6, 3e6});
        QCOMPARE(g.labels, (QVector<QString>{"2e6", "2.5e6", "3e6"}));
    }

    void twoAndAHalfDecadesTakeOneAndThree()
    {
        // 1e5 to 3e7: powers of ten give 1e5, 1e6, 1e7 (three, two from five); 1, 3 gives 1e5, 3e5, 1e6,
        // 3e6, 1e7, 3e7 (six, one from five); 1, 2, 5 gives eight.
        const Generated g = generate(1e5, 3e7, 5);
        compareTicks(g.inside, {1e5, 3e5, 1e6, 3e6, 1e7, 3e7});
    }
};

QTEST_MAIN(TestLogTicker)
#include "tst_log_ticker.moc"
