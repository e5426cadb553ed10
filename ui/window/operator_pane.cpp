// The Operator panel: the loop-nest editor (with the banner of a model layer shown read-only), the
// conformability verdict, each rule's reason, the diagnostics, and the DDG they are analysed into.
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/ddg/graph_view.h"
#include "ui/editor/code_editor.h"
#include "ui/editor/operator_links.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/plot/pareto_plot.h"
#include "ui/widgets/elided_label.h"

namespace marvel::ui {

namespace {
constexpr int kAnalyseDelayMs = 250;
const char* const kRuleTitles[4] = {
    "R1 perfect nest, no conditionals",
    "R2 only reduction dependences",
    "R3 DDG has a topological order",
    "R4 independent subscripts are unit iterators",
};
} // namespace

void MainWindow::buildOperatorPane()
{
    m_editor = new CodeEditor;
    m_editor->setPlaceholderText(tr("operator conv1d(X = 16, S = 3) {\n  for (x = 0; x < X; x++)\n"
                                    "    for (s = 0; s < S; s++)\n      O[x] += W[s] * I[x + s];\n}"));

    m_verdict = new QLabel;
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::RichText);

    m_rules = new QTableWidget(4, 2);
    m_rules->setHorizontalHeaderLabels({tr("Rule"), tr("Why")});
    m_rules->verticalHeader()->hide();
    m_rules->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_rules->horizontalHeader()->setStretchLastSection(true);
    m_rules->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_rules->setWordWrap(true);

    m_diagnostics = new QListWidget;
    m_diagnostics->setToolTip(tr("Double-click to go to the problem"));
    connect(m_diagnostics, &QListWidget::itemActivated, this,
        [this](QListWidgetItem* item) { jumpToDiagnostic(m_diagnostics->row(item)); });

    m_ddg = new GraphView;
    m_links = new OperatorLinks(&m_analysis, m_editor, m_ddg, m_rules, this);

    auto* reportPane = new QWidget;
    auto* reportLayout = new QVBoxLayout(reportPane);
    reportLayout->setContentsMargins(0, 0, 0, 0);
    reportLayout->addWidget(m_verdict);
    reportLayout->addWidget(m_rules, 2);
    reportLayout->addWidget(m_diagnostics, 1);

    auto* operatorPane = new QSplitter(Qt::Vertical);
    // A model layer shows read-only above this banner; "Edit a copy" makes it the editor's own operator.
    auto* editorPane = new QWidget;
    auto* editorLayout = new QVBoxLayout(editorPane);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    auto* bannerRow = new QHBoxLayout;
    // A long node name (an ONNX path) elides rather than widening the dock past the screen.
    m_layerBanner = new ElidedLabel;
    m_editCopy = new QPushButton(tr("Edit a copy"));
    m_editCopy->setToolTip(tr("Edit this layer's loop nest as your own operator (the model stays as it is)"));
    connect(m_editCopy, &QPushButton::clicked, this, [this] {
        const QString text = m_editor->toPlainText();
        m_modelView->clearSelection();
        selectLayer(-1);
        loadModel({});
        m_editor->setPlainText(text);
        m_file.clear();
        updateTitle();
    });
    bannerRow->addWidget(m_layerBanner, 1);
    bannerRow->addWidget(m_editCopy);
    editorLayout->addLayout(bannerRow);
    editorLayout->addWidget(m_editor);
    m_layerBanner->setVisible(false);
    m_editCopy->setVisible(false);
    operatorPane->addWidget(editorPane);
    operatorPane->addWidget(reportPane);
    operatorPane->setStretchFactor(0, 3);
    operatorPane->setStretchFactor(1, 2);
    m_operatorPane = operatorPane;
}

void MainWindow::startAnalysisTimer()
{
    m_analyseTimer = new QTimer(this);
    m_analyseTimer->setSingleShot(true);
    m_analyseTimer->setInterval(kAnalyseDelayMs);
    connect(m_analyseTimer, &QTimer::timeout, this, &MainWindow::analyseNow);
    connect(m_editor, &QPlainTextEdit::textChanged, m_analyseTimer, qOverload<>(&QTimer::start));
    connect(m_editor->document(), &QTextDocument::modificationChanged, this, &MainWindow::updateTitle);
}

void MainWindow::analyseNow()
{
    m_analyseTimer->stop();
    if (!m_modelName.isEmpty() && m_layer < 0) {
        // A whole model is the workload: the editor holds a note, not an operator to check.
        m_analysis = {};
        showAnalysis();
        m_links->refresh();
        return;
    }
    const QString name = m_file.isEmpty() ? tr("untitled.loop") : QFileInfo(m_file).fileName();
    m_analysis = OperatorAnalysis::analyse(m_editor->toPlainText(), name);
    showAnalysis();
    m_links->refresh();
}

void MainWindow::showAnalysis()
{
    m_diagnostics->clear();
    for (const auto& d : m_analysis.diagnostics)
        m_diagnostics->addItem(QString::fromStdString(d.format()));
    m_diagnostics->setVisible(!m_analysis.diagnostics.empty());

    if (!m_analysis.report) {
        const bool wholeModel = !m_modelName.isEmpty() && m_layer < 0;
        m_verdict->setText(wholeModel
                ? tr("Model <b>%1</b>: pick a layer in the Model panel to check it against the rules.")
                      .arg(QFileInfo(m_modelName).fileName().toHtmlEscaped())
                : tr("<b>The operator does not parse</b> (%n problem(s)).", nullptr,
                    int(m_analysis.diagnostics.size())));
        for (int r = 0; r < 4; ++r) {
            m_rules->setItem(r, 0, new QTableWidgetItem(tr(kRuleTitles[r])));
            m_rules->setItem(r, 1, new QTableWidgetItem(tr("-")));
        }
        m_ddg->setMessage(wholeModel
                ? tr("Pick a layer in the Model panel to see its dimension dependence graph.")
                : tr("Fix the operator text to see its dimension dependence graph."));
        const QString idle = wholeModel ? QString()
                                        : tr("The operator does not parse, so it has no mappings to "
                                             "search:\nfix the error the editor marks.");
        m_plot->setIdleMessage(idle);
        m_mappingView->setIdleText(idle);
        return;
    }
    const conform::Report& report = *m_analysis.report;
    m_verdict->setText(report.conformable
            ? tr("<b>%1</b> is <span style='color:#2e7d32'><b>conformable</b></span> to the MDC "
                 "notation.")
                  .arg(QString::fromStdString(report.operatorName).toHtmlEscaped())
            : tr("<b>%1</b> is <span style='color:#c62828'><b>not conformable</b></span> to the "
                 "MDC notation.")
                  .arg(QString::fromStdString(report.operatorName).toHtmlEscaped()));
    for (int r = 0; r < 4; ++r) {
        const auto& rule = report.rules[std::size_t(r)];
        auto* title = new QTableWidgetItem(
            (rule.ok ? QStringLiteral("\u2714 ") : QStringLiteral("\u2718 ")) + tr(kRuleTitles[r]));
        title->setForeground(rule.ok ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
        auto* reason = new QTableWidgetItem(QString::fromStdString(rule.reason));
        reason->setToolTip(reason->text());
        m_rules->setItem(r, 0, title);
        m_rules->setItem(r, 1, reason);
    }
    m_rules->resizeRowsToContents();
    // The first failing rule at the top of the table: a short panel shows why before it shows what holds.
    int failing = -1;
    for (int r = 0; r < 4 && failing < 0; ++r)
        if (!report.rules[std::size_t(r)].ok) failing = r;
    QMetaObject::invokeMethod(
        this,
        [this, failing] {
            // After the rows' heights settle (OperatorLinks resizes them once their links are laid out).
            if (QTableWidgetItem* item = m_rules->item(failing < 0 ? 0 : failing, 0))
                m_rules->scrollToItem(item, QAbstractItemView::PositionAtTop);
        },
        Qt::QueuedConnection);
    m_ddg->setGraph(m_analysis.ddg, m_analysis.independentNodes, m_analysis.cycleEdges);
    // An empty plot and mapping view do not invite a search that cannot run.
    const QString nothingToSearch = report.conformable
        ? QString()
        : tr("%1 is not conformable to the MDC notation,\nso it has no mappings to search:\n"
             "the Operator panel shows the failing rule,\nthe dimension dependence graph why.")
              .arg(QString::fromStdString(report.operatorName));
    m_plot->setIdleMessage(nothingToSearch);
    m_mappingView->setIdleText(nothingToSearch);
}

void MainWindow::jumpToDiagnostic(int row)
{
    if (row < 0 || row >= int(m_analysis.diagnostics.size())) return;
    const SourceLoc loc = m_analysis.diagnostics[std::size_t(row)].loc;
    const QTextBlock block = m_editor->document()->findBlockByLineNumber(qMax(0, loc.line - 1));
    if (!block.isValid()) return;
    QTextCursor cursor(block);
    cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, qMax(0, loc.column - 1));
    m_editor->setTextCursor(cursor);
    m_editor->setFocus();
}

QPlainTextEdit* MainWindow::editor() const
{
    return m_editor;
}

} // namespace marvel::ui
