// The operator editor (highlighting, error underlines, find, templates) and its links with the DDG view
// and the rules table: selecting a node selects its subscript, moving the cursor onto a subscript selects
// its node, and a failed rule's links select the text they name.
#include <QAbstractTextDocumentLayout>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QToolTip>

#include "ui/ddg/graph_view.h"
#include "ui/editor/code_editor.h"
#include "ui/editor/operator_highlighter.h"
#include "ui/editor/operator_links.h"
#include "ui/main_window.h"
#include "ui/plot/pareto_plot.h"

using marvel::SourceLoc;
using marvel::ui::CodeEditor;
using marvel::ui::GraphView;
using marvel::ui::MainWindow;
using marvel::ui::OperatorHighlighter;
using Role = marvel::ui::OperatorHighlighter::Role;

namespace {
const QString kOperators = QStringLiteral(MARVEL_SAMPLES_DIR "/operators");

QString readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

/// The highlighter's format at column `column` (0-based) of line `line` (0-based).
QTextCharFormat formatAt(const QTextDocument* doc, int line, int column)
{
    const QTextBlock block = doc->findBlockByNumber(line);
    for (const auto& range : block.layout()->formats())
        if (column >= range.start && column < range.start + range.length) return range.format;
    return {};
}

int nodeByLabel(const MainWindow& w, const QString& label)
{
    const auto& nodes = w.analysis().report->ddg.nodes;
    for (int i = 0; i < int(nodes.size()); ++i)
        if (QString::fromStdString(nodes[std::size_t(i)].label()) == label) return i;
    return -1;
}

/// Position in the document of the `nth` occurrence (0-based) of `needle` on 1-based `line`.
int positionIn(const QPlainTextEdit* editor, int line, const QString& needle, int nth = 0)
{
    const QTextBlock block = editor->document()->findBlockByNumber(line - 1);
    int at = -1;
    for (int i = 0; i <= nth; ++i) {
        at = int(block.text().indexOf(needle, at + 1));
        if (at < 0) return -1;
    }
    return block.position() + at;
}

void placeCursor(QPlainTextEdit* editor, int position)
{
    QTextCursor c = editor->textCursor();
    c.setPosition(position);
    editor->setTextCursor(c);
}

/// Clicks a link of the rules table's reason cell for `rule` with the mouse, where the delegate draws it.
bool clickRuleLink(MainWindow& w, int rule, const QString& href)
{
    QTableWidget* table = w.rulesTable();
    const QModelIndex index = table->model()->index(rule, 1);
    const QRect cell = table->visualRect(index);
    auto* delegate = w.operatorLinks()->delegate();
    for (int y = cell.top(); y < cell.bottom(); y += 2)
        for (int x = cell.left(); x < cell.right(); x += 3)
            if (delegate->anchorAt(cell, index, QPoint(x, y)) == href) {
                QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, QPoint(x, y));
                return true;
            }
    return false;
}

void showWindow(MainWindow& w)
{
    w.resize(1440, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}
} // namespace

class TestEditorDdg : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("MarvelStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_editor_ddg"));
        QStandardPaths::setTestModeEnabled(true); // settings and recovery files stay out of the user's
        qputenv("MARVEL_AUTOSAVE_MS", "3600000");
    }

    void highlightsKeywordsCommentsAndSubscripts()
    {
        CodeEditor editor;
        editor.setPlainText(readFile(kOperators + QStringLiteral("/conv2d.loop")));
        editor.highlighter()->rehighlight();
        const QTextDocument* doc = editor.document();
        const OperatorHighlighter* h = editor.highlighter();
        // Line 1 is a comment from its first to its last character.
        QCOMPARE(formatAt(doc, 0, 0), h->format(Role::Comment));
        QCOMPARE(formatAt(doc, 0, 90), h->format(Role::Comment));
        // "operator conv2d(K = 64, ..."
        QCOMPARE(formatAt(doc, 1, 0), h->format(Role::Keyword));
        QCOMPARE(formatAt(doc, 1, 7), h->format(Role::Keyword));
        QCOMPARE(formatAt(doc, 1, 9), h->format(Role::OperatorName));
        QCOMPARE(formatAt(doc, 1, 20), h->format(Role::Number)); // the 6 of "64"
        // "  for (int k = 0; k < K; k++)"
        QCOMPARE(formatAt(doc, 2, 2), h->format(Role::Keyword));
        QCOMPARE(formatAt(doc, 2, 7), h->format(Role::Type));
        // "              O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s];"
        const QString line9 = doc->findBlockByNumber(8).text();
        QCOMPARE(formatAt(doc, 8, int(line9.indexOf(u'O'))), h->format(Role::Tensor));
        QCOMPARE(formatAt(doc, 8, int(line9.indexOf(u'I'))), h->format(Role::Tensor));
        QCOMPARE(
            formatAt(doc, 8, int(line9.indexOf(QStringLiteral("y + r")) + 4)), h->format(Role::Subscript));
        QVERIFY(h->format(Role::Keyword) != h->format(Role::Comment));
        QVERIFY(h->format(Role::Comment).fontItalic());
    }

    void underlinesErrorsWithTheirMessage()
    {
        MainWindow w;
        showWindow(w);
        w.editor()->selectAll();
        w.editor()->insertPlainText(
            QStringLiteral("operator bad(N = 4) {\n  for (i = 0; i < N; i++)\n    O[i] += ;\n}\n"));
        w.analyseNow();
        QCOMPARE(int(w.analysis().diagnostics.size()), 1);
        const auto& d = w.analysis().diagnostics.front();
        QCOMPARE(d.loc, (SourceLoc{3, 13}));
        const QString message = QString::fromStdString(d.message);
        QCOMPARE(message,
            QStringLiteral("expected a value (a number, a tensor element, max(...) or min(...)), found ';'"));

        CodeEditor* editor = w.codeEditor();
        const auto underlines = editor->diagnosticSelections();
        QCOMPARE(underlines.size(), 1);
        const int semicolon = positionIn(editor, 3, QStringLiteral(";"));
        QCOMPARE(underlines[0].cursor.selectionStart(), semicolon);
        QCOMPARE(underlines[0].cursor.selectedText(), QStringLiteral(";"));
        QCOMPARE(underlines[0].format.underlineStyle(), QTextCharFormat::WaveUnderline);
        QCOMPARE(underlines[0].format.underlineColor(), QColor(0xd3, 0x2f, 0x2f));
        QVERIFY(editor->extraSelections().size() >= 1);
        QCOMPARE(editor->diagnosticAt(semicolon), message);
        QCOMPARE(editor->diagnosticAt(semicolon - 2), QString());

        // Hovering the ';' shows the message as a tooltip.
        QTextCursor c(editor->document());
        c.setPosition(semicolon);
        const QPoint at = editor->cursorRect(c).center() + QPoint(2, 0);
        QHelpEvent help(QEvent::ToolTip, at, editor->viewport()->mapToGlobal(at));
        QApplication::sendEvent(editor->viewport(), &help);
        QTRY_COMPARE(QToolTip::text(), message);

        // Fixing the text removes the underline.
        w.editor()->selectAll();
        w.editor()->insertPlainText(readFile(kOperators + QStringLiteral("/conv1d.loop")));
        w.analyseNow();
        QVERIFY(editor->diagnosticSelections().isEmpty());
    }

    void findHighlightsEveryMatch()
    {
        CodeEditor editor;
        editor.resize(700, 400);
        editor.setPlainText(readFile(kOperators + QStringLiteral("/conv2d.loop")));
        // Six loops and the "for" in "Conformable" (find ignores case).
        QCOMPARE(editor.highlightMatches(QStringLiteral("for")), 7);
        QCOMPARE(editor.matchSelections().size(), 7);
        QCOMPARE(editor.matchSelections()[1].cursor.selectionStart(),
            positionIn(&editor, 3, QStringLiteral("for")));
        QCOMPARE(editor.highlightMatches(QStringLiteral("][")), 7);
        QCOMPARE(editor.highlightMatches(QStringLiteral("nothing like this")), 0);

        // The find bar: typing finds and counts, Enter goes to the next match, the buttons wrap around.
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        placeCursor(&editor, 0);
        editor.findAction()->trigger();
        QVERIFY(editor.findBar()->isVisible());
        QTest::keyClicks(editor.findBar()->input(), QStringLiteral("x + s"));
        QCOMPARE(editor.matchSelections().size(), 1);
        QCOMPARE(editor.findBar()->countLabel()->text(), QStringLiteral("1 match(es)"));
        QCOMPARE(editor.textCursor().selectedText(), QStringLiteral("x + s"));
        QCOMPARE(editor.textCursor().selectionStart(), positionIn(&editor, 9, QStringLiteral("x + s")));

        // A new text searches from the current match on, wrapping around: "x + s" is on the last loop line.
        editor.findBar()->input()->setText(QStringLiteral("int"));
        QCOMPARE(editor.matchSelections().size(), 6);
        QCOMPARE(editor.textCursor().selectionStart(), positionIn(&editor, 3, QStringLiteral("int")));
        QTest::keyClick(editor.findBar()->input(), Qt::Key_Return);
        QCOMPARE(editor.textCursor().selectionStart(), positionIn(&editor, 4, QStringLiteral("int")));
        QVERIFY(editor.findNext(true));
        QCOMPARE(editor.textCursor().selectionStart(), positionIn(&editor, 3, QStringLiteral("int")));
        QVERIFY(editor.findNext(true)); // wraps to the last one
        QCOMPARE(editor.textCursor().selectionStart(), positionIn(&editor, 8, QStringLiteral("int")));
        QTest::keyClick(editor.findBar()->input(), Qt::Key_Escape);
        QVERIFY(!editor.findBar()->isVisible());
        QVERIFY(editor.matchSelections().isEmpty());
    }

    void templatesAreTheSampleOperators()
    {
        QStringList expected;
        for (const QString& name :
            QDir(kOperators).entryList({QStringLiteral("*.loop")}, QDir::Files, QDir::Name))
            expected << QFileInfo(name).completeBaseName();
        const int conformableCount = int(expected.size());
        for (const QString& name : QDir(kOperators + QStringLiteral("/nonconformable"))
                                       .entryList({QStringLiteral("*.loop")}, QDir::Files, QDir::Name))
            expected << QFileInfo(name).completeBaseName();
        QVERIFY(conformableCount >= 15);
        QVERIFY(expected.contains(QStringLiteral("conv2d")));
        QVERIFY(expected.contains(QStringLiteral("ddg_cycle")));

        MainWindow w;
        QStringList listed;
        for (QAction* a : w.templatesMenu()->actions())
            if (!a->isSeparator()) listed << a->text();
        QCOMPARE(listed, expected);
        QCOMPARE(marvel::ui::operatorTemplates(kOperators).size(), expected.size());

        // Choosing one makes it a new, unsaved, untitled operator.
        QVERIFY(w.openFile(kOperators + QStringLiteral("/conv1d.loop")));
        for (QAction* a : w.templatesMenu()->actions())
            if (a->text() == QLatin1String("gemm")) a->trigger();
        QCOMPARE(w.editor()->toPlainText(), readFile(kOperators + QStringLiteral("/gemm.loop")));
        QVERIFY(w.currentFile().isEmpty());
        QVERIFY(w.hasUnsavedChanges());
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("untitled.loop")));
        QVERIFY(w.analysis().report && w.analysis().report->operatorName == "gemm");
    }

    void undoRedoFromTheEditMenuAndKeys()
    {
        MainWindow w;
        showWindow(w);
        QVERIFY(w.openFile(kOperators + QStringLiteral("/conv1d.loop")));
        const QString original = w.editor()->toPlainText();
        QAction* undo = nullptr;
        QAction* redo = nullptr;
        for (QAction* menu : w.menuBar()->actions())
            if (menu->text() == QLatin1String("&Edit"))
                for (QAction* a : menu->menu()->actions()) {
                    if (a->text() == QLatin1String("&Undo")) undo = a;
                    if (a->text() == QLatin1String("&Redo")) redo = a;
                }
        QVERIFY(undo && redo);
        QCOMPARE(undo->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Z));
        QCOMPARE(redo->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
        QVERIFY(!undo->isEnabled());

        w.editor()->setFocus();
        placeCursor(w.editor(), 0);
        w.editor()->insertPlainText(QStringLiteral("// edited\n")); // one undo step
        QVERIFY(w.editor()->toPlainText().startsWith(QStringLiteral("// edited\n")));
        QVERIFY(undo->isEnabled());
        undo->trigger();
        QCOMPARE(w.editor()->toPlainText(), original);
        QVERIFY(redo->isEnabled());
        redo->trigger();
        QVERIFY(w.editor()->toPlainText().startsWith(QStringLiteral("// edited\n")));
        QTest::keyClick(w.editor(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.editor()->toPlainText(), original);
        QTest::keyClick(w.editor(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(w.editor()->toPlainText().startsWith(QStringLiteral("// edited\n")));
    }

    void ddgNodeSelectsItsSubscriptAndBack()
    {
        MainWindow w;
        showWindow(w);
        QVERIFY(w.openFile(kOperators + QStringLiteral("/conv2d.loop")));
        GraphView* ddg = w.ddgView();
        QCOMPARE(ddg->nodeCount(), 10);
        const int iYr = nodeByLabel(w, QStringLiteral("I.1:y + r"));
        const int iXs = nodeByLabel(w, QStringLiteral("I.2:x + s"));
        const int wK = nodeByLabel(w, QStringLiteral("W.0:k"));
        const int oK = nodeByLabel(w, QStringLiteral("O.0:k"));
        QVERIFY(iYr >= 0 && iXs >= 0 && wK >= 0 && oK >= 0);

        // Colours by tensor, independent nodes marked, edges labelled with their rule.
        QCOMPARE(ddg->nodeColor(wK), ddg->nodeColor(nodeByLabel(w, QStringLiteral("W.3:s"))));
        QVERIFY(ddg->nodeColor(wK) != ddg->nodeColor(oK));
        QVERIFY(ddg->nodeColor(iYr) != ddg->nodeColor(oK));
        QCOMPARE(ddg->legend().size(), 3);
        QCOMPARE(ddg->legend()[0].first, QStringLiteral("W"));
        QVERIFY(w.analysis().independentNodes.contains(wK));
        QVERIFY(!w.analysis().independentNodes.contains(iYr));
        QVERIFY(w.analysis().ddg.nodes[iYr].group == QStringLiteral("I"));
        QVERIFY(w.analysis().ddg.edges.size() > 0);
        for (const auto& e : w.analysis().ddg.edges)
            QVERIFY(e.label.startsWith(QStringLiteral("rule ")));

        // A click on the node I.1:y + r selects "y + r" in the editor, exactly.
        ddg->centerOn(ddg->nodeRect(iYr).center());
        QTest::mouseClick(
            ddg->viewport(), Qt::LeftButton, {}, ddg->mapFromScene(ddg->nodeRect(iYr).center()));
        QCOMPARE(ddg->selectedNode(), iYr);
        QCOMPARE(w.editor()->textCursor().selectedText(), QStringLiteral("y + r"));
        QCOMPARE(
            w.editor()->textCursor().selectionStart(), positionIn(w.editor(), 9, QStringLiteral("y + r")));
        QCOMPARE(
            w.editor()->textCursor().selectionEnd(), positionIn(w.editor(), 9, QStringLiteral("y + r")) + 5);

        // The other way: the cursor inside "x + s" selects I.2:x + s; the k of W[k] and of O[k] differ.
        placeCursor(w.editor(), positionIn(w.editor(), 9, QStringLiteral("x + s")) + 2);
        QCOMPARE(ddg->selectedNode(), iXs);
        placeCursor(w.editor(), positionIn(w.editor(), 9, QStringLiteral("W[k]")) + 2);
        QCOMPARE(ddg->selectedNode(), wK);
        placeCursor(w.editor(), positionIn(w.editor(), 9, QStringLiteral("O[k]")) + 2);
        QCOMPARE(ddg->selectedNode(), oK);
        // Just after the subscript (before its ']') still counts; the ']' itself and the tensor name don't.
        placeCursor(w.editor(), positionIn(w.editor(), 9, QStringLiteral("O[k]")) + 3);
        QCOMPARE(ddg->selectedNode(), oK);
        placeCursor(w.editor(), positionIn(w.editor(), 9, QStringLiteral("O[k]")));
        QCOMPARE(ddg->selectedNode(), -1);
        placeCursor(w.editor(), positionIn(w.editor(), 3, QStringLiteral("k")));
        QCOMPARE(ddg->selectedNode(), -1);

        // Zoom with Ctrl+wheel and the keyboard; 0 fits again.
        const double fitted = ddg->zoom();
        QWheelEvent wheel(QPointF(20, 20), ddg->viewport()->mapToGlobal(QPointF(20, 20)), {}, QPoint(0, 120),
            Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(ddg->viewport(), &wheel);
        QCOMPARE(ddg->zoom(), fitted * 1.25);
        QTest::keyClick(ddg, Qt::Key_Minus);
        QTest::keyClick(ddg, Qt::Key_Minus);
        QCOMPARE(ddg->zoom(), fitted / 1.25);
        QTest::keyClick(ddg, Qt::Key_0);
        QCOMPARE(ddg->zoom(), fitted);
    }

    void failedRuleLinksSelectTheNamedText()
    {
        MainWindow w;
        showWindow(w);
        auto* links = w.operatorLinks();

        // R1: the conditional.
        QVERIFY(w.openFile(kOperators + QStringLiteral("/nonconformable/if_in_loop.loop")));
        QVERIFY(!w.analysis().report->rules[0].ok);
        QVERIFY(w.rulesTable()
                    ->item(0, 1)
                    ->data(marvel::ui::RichTextDelegate::kHtmlRole)
                    .toString()
                    .contains(QStringLiteral("<a href=\"rule:0:0\">if (x + s &lt; X)</a>")));
        QVERIFY(clickRuleLink(w, 0, links->linkHref(0, 0)));
        QCOMPARE(w.editor()->textCursor().selectedText(), QStringLiteral("if (x + s < X)"));
        QCOMPARE(w.editor()->textCursor().selectionStart(), positionIn(w.editor(), 5, QStringLiteral("if")));

        // R2: the statement, then the references it names.
        QVERIFY(w.openFile(kOperators + QStringLiteral("/nonconformable/prefix_sum.loop")));
        QVERIFY(!w.analysis().report->rules[1].ok);
        QVERIFY(links->followLink(links->linkHref(1, 0)));
        QCOMPARE(w.editor()->textCursor().selectedText(), QStringLiteral("S[x + 1] = S[x] + I[x];"));
        QVERIFY(links->followLink(links->linkHref(1, 1)));
        QCOMPARE(w.editor()->textCursor().selectedText(), QStringLiteral("S[x + 1]"));
        QVERIFY(links->followLink(links->linkHref(1, 2)));
        QCOMPARE(w.editor()->textCursor().selectedText(), QStringLiteral("S[x]"));
        QCOMPARE(
            w.editor()->textCursor().selectionStart(), positionIn(w.editor(), 4, QStringLiteral("S[x]")));

        // R3: the cycle A.0:x + y -> B.0:x + y -> A.0:x + y, in red, each node linking to its subscript.
        QVERIFY(w.openFile(kOperators + QStringLiteral("/nonconformable/ddg_cycle.loop")));
        QVERIFY(!w.analysis().report->rules[2].ok);
        const int a = nodeByLabel(w, QStringLiteral("A.0:x + y"));
        const int b = nodeByLabel(w, QStringLiteral("B.0:x + y"));
        QVERIFY(w.ddgView()->isProblemNode(a));
        QVERIFY(w.ddgView()->isProblemNode(b));
        QVERIFY(!w.ddgView()->isProblemNode(nodeByLabel(w, QStringLiteral("O.0:x"))));
        QVERIFY(w.analysis().cycleEdges.size() == 2);
        const auto& r3 = w.analysis().report->rules[2].links;
        QVERIFY(r3.size() >= 2);
        QVERIFY(clickRuleLink(w, 2, links->linkHref(2, 1)));
        QCOMPARE(w.ddgView()->selectedNode(), r3[1].node);
        QCOMPARE(w.editor()->textCursor().selectedText(), QStringLiteral("x + y"));
        const int second = r3[1].node == b ? 1 : 0; // B[x + y] is the second "x + y" of line 5
        QCOMPARE(w.editor()->textCursor().selectionStart(),
            positionIn(w.editor(), 5, QStringLiteral("x + y"), second));

        // R4: the shifted output subscript.
        QVERIFY(w.openFile(kOperators + QStringLiteral("/nonconformable/shifted_output.loop")));
        QVERIFY(!w.analysis().report->rules[3].ok);
        const int o = nodeByLabel(w, QStringLiteral("O.0:x + 1"));
        QVERIFY(w.ddgView()->isProblemNode(o));
        QVERIFY(clickRuleLink(w, 3, links->linkHref(3, 0)));
        QCOMPARE(w.editor()->textCursor().selectedText(), QStringLiteral("x + 1"));
        QCOMPARE(w.ddgView()->selectedNode(), o);
    }

    /// A teacher opening a non-conformable operator sees the failing rule without scrolling, and Run search
    /// says why it cannot search instead of doing nothing under the previous operator's front.
    void nonConformableOperatorSaysWhy()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFile(kOperators + QStringLiteral("/gemm.loop")));
        QVERIFY(w.runSearch());
        // Until its first points arrive the plot says a search runs, not how to start one.
        QVERIFY2(w.paretoPlot()->emptyMessage().startsWith(QStringLiteral("Searching")),
            qPrintable(w.paretoPlot()->emptyMessage()));
        QTRY_VERIFY_WITH_TIMEOUT(w.paretoPlot()->pointCount() > 0, 60000);
        w.cancelSearch();

        QVERIFY(w.openFile(kOperators + QStringLiteral("/nonconformable/shifted_output.loop")));
        QVERIFY(!w.analysis().report->rules[3].ok);
        // The failing R4 row is inside the table's viewport.
        QTableWidget* table = w.rulesTable();
        QTRY_VERIFY(table->viewport()->rect().contains(table->visualItemRect(table->item(3, 0)).topLeft()));

        QVERIFY(!w.runSearch());
        QCOMPARE(w.paretoPlot()->pointCount(), std::size_t(0));
        QVERIFY2(w.paretoPlot()->emptyMessage().contains(QStringLiteral("not conformable")),
            qPrintable(w.paretoPlot()->emptyMessage()));
        QVERIFY(w.paretoPlot()->styleMarks().empty());
    }

    /// A non-conformable operator opened at start: once the window is laid out at its size, its DDG (not
    /// the search settings) is the raised tab beside it, and the empty plot says there is nothing to
    /// search rather than inviting a search; a conformable operator brings the invitation back.
    void nonConformableOperatorOpensOnItsDdg()
    {
        MainWindow w;
        QVERIFY(w.openFile(kOperators + QStringLiteral("/nonconformable/ddg_cycle.loop")));
        w.resize(1440, 900); // the narrow arrangement: the DDG and the search settings share tabs
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY(w.arrangement() == MainWindow::Arrangement::Narrow);
        QDockWidget* ddg = nullptr;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            if (d->windowTitle() == QStringLiteral("Dimension dependence graph")) ddg = d;
        QVERIFY(ddg);
        QTRY_VERIFY(!ddg->visibleRegion().isEmpty());
        QVERIFY2(w.paretoPlot()->emptyMessage().startsWith(QStringLiteral("ddg_cycle is not conformable")),
            qPrintable(w.paretoPlot()->emptyMessage()));
        QVERIFY2(w.mappingView()->loopNestText().startsWith(QStringLiteral("ddg_cycle is not conformable")),
            qPrintable(w.mappingView()->loopNestText()));
        QVERIFY(w.openFile(kOperators + QStringLiteral("/gemm.loop")));
        QVERIFY2(w.paretoPlot()->emptyMessage().startsWith(QStringLiteral("Run a search")),
            qPrintable(w.paretoPlot()->emptyMessage()));
        QVERIFY2(w.mappingView()->loopNestText().contains(QStringLiteral("run a search (Ctrl+R)")),
            qPrintable(w.mappingView()->loopNestText()));
        // A model (no layer picked) is searched whole: the invitation stays.
        QVERIFY(w.openFile(kOperators + QStringLiteral("/nonconformable/ddg_cycle.loop")));
        QVERIFY(w.loadModel(QStringLiteral("vgg16")));
        QVERIFY2(w.paretoPlot()->emptyMessage().startsWith(QStringLiteral("Run a search")),
            qPrintable(w.paretoPlot()->emptyMessage()));
    }
};

QTEST_MAIN(TestEditorDdg)
#include "tst_editor_ddg.moc"
