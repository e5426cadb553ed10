// Help > The MDC notation: every example the guide links to is a real sample that opens on what the text
// says it shows (the animation with that directive, or the DDG with that verdict), so the guide cannot
// drift from the app. Help > Keyboard shortcuts lists the window's keys.
#include <QDockWidget>
#include <QListWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QUrlQuery>

#include "ui/animation/animation_panel.h"
#include "ui/animation/simulation_controller.h"
#include "ui/ddg/graph_view.h"
#include "ui/main_window.h"

using marvel::ui::AnimationPanel;
using marvel::ui::MainWindow;

namespace {
/// The guide's links to samples, in document order.
QList<QUrl> sampleLinks(const QTextDocument* doc)
{
    QList<QUrl> links;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QTextCharFormat f = it.fragment().charFormat();
            const QUrl url(f.anchorHref());
            if (f.isAnchor() && url.scheme() == QLatin1String("sample") && !links.contains(url)) links << url;
        }
    }
    return links;
}

QString directives(const AnimationPanel* panel)
{
    QStringList lines;
    for (int i = 0; i < panel->directiveList()->count(); ++i)
        lines << panel->directiveList()->item(i)->text();
    return lines.join(QLatin1Char('\n'));
}
} // namespace

class TestGuide : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    /// The guide has the three directives' examples (animations) and a conformable and a non-conformable
    /// DDG; a click on each opens it on the Animation tab (the directive it illustrates among the
    /// animated mapping's) or on the DDG (with the verdict the text gives).
    void everyExampleOpensOnWhatItShows()
    {
        MainWindow w;
        w.resize(1440, 900);
        w.show();
        QTextBrowser* guide = w.showGuide();
        QVERIFY(guide->toPlainText().contains(QStringLiteral("TemporalMap(size, offset) D")));
        const QList<QUrl> links = sampleLinks(guide->document());
        QCOMPARE(links.size(), 5);
        QStringList shown;
        for (const QUrl& url : links) {
            const QUrlQuery query(url);
            QSignalSpy ready(w.animationPanel(), &AnimationPanel::ready);
            emit guide->anchorClicked(url); // what a click on the link does
            if (query.hasQueryItem(QStringLiteral("shows"))) {
                const QString directive = query.queryItemValue(QStringLiteral("shows"));
                // A mapping file is animated after the project's own mapping: wait for its animation.
                const QString animated = query.queryItemValue(QStringLiteral("animate")).section('/', -1);
                QTRY_VERIFY_WITH_TIMEOUT(w.animationPanel()->isReady() && !ready.isEmpty()
                        && (animated.isEmpty() || w.animationPanel()->summary()->title.contains(animated)),
                    30000);
                QVERIFY(w.centreTabs()->currentWidget()->isAncestorOf(w.animationPanel()));
                QVERIFY2(directives(w.animationPanel()).contains(directive + QLatin1Char('(')),
                    qPrintable(url.toString() + QStringLiteral(": ") + directives(w.animationPanel())));
                QVERIFY(w.animationPanel()->frameCount() > 1);
                shown << directive;
            } else {
                const bool conformable
                    = query.queryItemValue(QStringLiteral("conformable")) == QLatin1String("yes");
                QTRY_VERIFY(w.analysis().report.has_value());
                QCOMPARE(w.analysis().report->conformable, conformable);
                QVERIFY(w.ddgView()->isVisible());
                shown << (conformable ? QStringLiteral("conformable") : QStringLiteral("not conformable"));
            }
        }
        QCOMPARE(shown,
            QStringList(
                {QStringLiteral("TemporalMap"), QStringLiteral("SpatialMap"), QStringLiteral("Cluster"),
                    QStringLiteral("conformable"), QStringLiteral("not conformable")}));
        // The Cluster example is the two-level mapping: 4 clusters of 2 PEs (tst_animation has its steps).
        QVERIFY(!w.openGuideLink(QUrl(QStringLiteral("sample:projects/no_such_project.json#animation"))));
    }

    /// The shortcuts list names the menus' keys and the animation's, each once.
    void shortcutsAreCollectedFromTheWindow()
    {
        MainWindow w;
        const QStringList rows = w.shortcutList();
        for (const char* row : {"Ctrl+R\tRun search", "Ctrl+O\tOpen...", "F1\tThe MDC notation",
                 "Space\tPlay / pause", "Ctrl+S\tSave", "Ctrl+Z\tUndo"})
            QVERIFY2(rows.contains(QString::fromUtf8(row)), qPrintable(rows.join(QLatin1Char('\n'))));
        QCOMPARE(rows.filter(QStringLiteral("\tRun search")).size(), 1);
    }
};

QTEST_MAIN(TestGuide)
#include "tst_guide.moc"
