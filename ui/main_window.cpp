#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QSplitter>
#include <QStatusBar>
#include <QTableWidget>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/graph_view.h"

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

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    m_editor = new QPlainTextEdit;
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
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

    auto* reportPane = new QWidget;
    auto* reportLayout = new QVBoxLayout(reportPane);
    reportLayout->setContentsMargins(0, 0, 0, 0);
    reportLayout->addWidget(m_verdict);
    reportLayout->addWidget(m_rules, 2);
    reportLayout->addWidget(m_diagnostics, 1);

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(reportPane);
    right->addWidget(m_ddg);
    right->setStretchFactor(1, 3);

    auto* splitter = new QSplitter;
    splitter->addWidget(m_editor);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);

    m_analyseTimer = new QTimer(this);
    m_analyseTimer->setSingleShot(true);
    m_analyseTimer->setInterval(kAnalyseDelayMs);
    connect(m_analyseTimer, &QTimer::timeout, this, &MainWindow::analyseNow);
    connect(m_editor, &QPlainTextEdit::textChanged, m_analyseTimer, qOverload<>(&QTimer::start));
    connect(m_editor->document(), &QTextDocument::modificationChanged, this, &MainWindow::updateTitle);

    buildMenus();
    resize(1200, 760);
    analyseNow();
    updateTitle();
}

QString MainWindow::samplesDirectory()
{
    const QByteArray fromEnv = qgetenv("MARVEL_SAMPLES_DIR");
    return QString::fromLocal8Bit(fromEnv.isEmpty() ? QByteArray(MARVEL_SAMPLES_DIR) : fromEnv)
        + QStringLiteral("/operators");
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newOperator);
    file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::openDialog);
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    // Listed when opened, so samples added while the app runs show up.
    connect(samples, &QMenu::aboutToShow, this, [this, samples] {
        samples->clear();
        const QDir dir(samplesDirectory());
        for (const QFileInfo& info : dir.entryInfoList({QStringLiteral("*.loop")}, QDir::Files, QDir::Name)) {
            const QString path = info.absoluteFilePath();
            samples->addAction(info.completeBaseName(), this, [this, path] {
                if (confirmDiscard()) openFile(path);
            });
        }
        if (samples->isEmpty()) samples->addAction(tr("No samples in %1").arg(dir.path()))->setEnabled(false);
    });
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAsDialog);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Marvel Studio"), this, [this] {
        QFile about(QStringLiteral(":/marvel/about.html"));
        about.open(QIODevice::ReadOnly);
        QMessageBox::about(this, tr("About Marvel Studio"), QString::fromUtf8(about.readAll()));
    });
}

bool MainWindow::hasUnsavedChanges() const
{
    return m_editor->document()->isModified();
}

void MainWindow::newOperator()
{
    if (!confirmDiscard()) return;
    m_editor->clear();
    m_editor->document()->setModified(false);
    m_file.clear();
    updateTitle();
}

void MainWindow::openDialog()
{
    if (!confirmDiscard()) return;
    const QString start = m_file.isEmpty() ? samplesDirectory() : QFileInfo(m_file).path();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open operator"), start, tr("Operators (*.loop);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_editor->setPlainText(QString::fromUtf8(file.readAll()));
    m_editor->document()->setModified(false);
    m_file = path;
    updateTitle();
    analyseNow();
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::saveTo(const QString& path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(m_editor->toPlainText().toUtf8()) < 0
        || !file.commit()) {
        QMessageBox::warning(this, tr("Save failed"), tr("Cannot save %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_file = path;
    m_editor->document()->setModified(false);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::save()
{
    return m_file.isEmpty() ? saveAsDialog() : saveTo(m_file);
}

bool MainWindow::saveAsDialog()
{
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Save operator"), m_file, tr("Operators (*.loop)"));
    return !path.isEmpty() && saveTo(path);
}

bool MainWindow::confirmDiscard()
{
    if (!hasUnsavedChanges()) return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
        tr("The operator has unsaved changes. Save them first?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (confirmDiscard())
        event->accept();
    else
        event->ignore();
}

void MainWindow::updateTitle()
{
    const QString name = m_file.isEmpty() ? tr("untitled.loop") : QFileInfo(m_file).fileName();
    setWindowTitle(tr("%1[*] - Marvel Studio").arg(name));
    setWindowModified(hasUnsavedChanges());
}

void MainWindow::analyseNow()
{
    m_analyseTimer->stop();
    const QString name = m_file.isEmpty() ? tr("untitled.loop") : QFileInfo(m_file).fileName();
    m_analysis = OperatorAnalysis::analyse(m_editor->toPlainText(), name);
    showAnalysis();
}

void MainWindow::showAnalysis()
{
    m_diagnostics->clear();
    for (const auto& d : m_analysis.diagnostics)
        m_diagnostics->addItem(QString::fromStdString(d.format()));
    m_diagnostics->setVisible(!m_analysis.diagnostics.empty());

    if (!m_analysis.report) {
        m_verdict->setText(tr("<b>The operator does not parse</b> (%n problem(s)).", nullptr,
            int(m_analysis.diagnostics.size())));
        for (int r = 0; r < 4; ++r) {
            m_rules->setItem(r, 0, new QTableWidgetItem(tr(kRuleTitles[r])));
            m_rules->setItem(r, 1, new QTableWidgetItem(tr("-")));
        }
        m_ddg->setMessage(tr("Fix the operator text to see its dimension dependence graph."));
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
    m_ddg->setGraph(m_analysis.ddg, m_analysis.independentNodes, m_analysis.cycleEdges);
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

} // namespace marvel::ui
