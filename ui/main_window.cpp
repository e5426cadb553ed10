#include "ui/main_window.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QShowEvent>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

#include "core/conform/conformability.h"
#include "core/ir/parser.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/mdc/maestro_io.h"
#include "core/search/roofline.h"
#include "core/sim/simulator.h"
#include "core/util/diagnostic.h"
#include "core/util/text_file.h"
#include "core/workloads/workloads.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/editor/code_editor.h"
#include "ui/editor/operator_links.h"
#include "ui/graph_view.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_controller.h"
#include "ui/sweep/sweep_panel.h"

namespace marvel::ui {

namespace {
const QString kRecentFilesKey = QStringLiteral("files/recent");
constexpr int kMaxRecentFiles = 10;
constexpr int kAutosaveMs = 5000; ///< at most this much unsaved work is lost when the app is killed
} // namespace

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
    m_layerBanner = new QLabel;
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

    m_plot = new ParetoPlot;
    // The centre shows the search's trade-off or the selected mapping moving data: the two views a user
    // looks at longest.
    m_animation = new AnimationPanel;
    m_centre = new QTabWidget;
    m_centre->setDocumentMode(true);
    m_centre->addTab(m_plot, tr("Runtime vs energy"));
    m_centre->addTab(m_animation, tr("Animation"));
    m_sweepPanel = new SweepPanel;
    m_centre->addTab(m_sweepPanel, tr("Design sweep"));
    setCentralWidget(m_centre);
    buildDocks();

    m_analyseTimer = new QTimer(this);
    m_analyseTimer->setSingleShot(true);
    m_analyseTimer->setInterval(kAnalyseDelayMs);
    connect(m_analyseTimer, &QTimer::timeout, this, &MainWindow::analyseNow);
    connect(m_editor, &QPlainTextEdit::textChanged, m_analyseTimer, qOverload<>(&QTimer::start));
    connect(m_editor->document(), &QTextDocument::modificationChanged, this, &MainWindow::updateTitle);

    m_autosaveTimer = new QTimer(this);
    const int autosaveMs = qEnvironmentVariableIntValue("MARVEL_AUTOSAVE_MS");
    m_autosaveTimer->setInterval(autosaveMs > 0 ? autosaveMs : kAutosaveMs);
    connect(m_autosaveTimer, &QTimer::timeout, this, &MainWindow::autosaveNow);
    m_autosaveTimer->start();

    buildMenus();
    resize(1440, 900);
    analyseNow();
    updateTitle();
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    m_layoutRestored = restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (m_layoutRestored || m_defaultLayoutApplied) return;
    m_defaultLayoutApplied = true;
    // Dock sizes given before the window has its size are scaled away when it gets it, which left the
    // Model and Selected mapping panels two rows high; they are set once the window is sized.
    const int bottom = std::max(190, height() * 22 / 100);
    resizeDocks({m_docks[0], m_docks[2]}, {360, 340}, Qt::Horizontal);
    resizeDocks({m_docks[0], m_docks[1]}, {500, 300}, Qt::Vertical);
    resizeDocks({m_docks[2], m_docks[3]}, {300, 600}, Qt::Vertical);
    resizeDocks({m_docks[4]}, {bottom}, Qt::Vertical);
}

void MainWindow::buildDocks()
{
    setDockNestingEnabled(true);
    auto dock = [this](const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name); // saveState() keys docks by name
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    QDockWidget* op
        = dock(tr("Operator"), QStringLiteral("operator"), m_operatorPane, Qt::LeftDockWidgetArea);
    QDockWidget* ddg
        = dock(tr("Dimension dependence graph"), QStringLiteral("ddg"), m_ddg, Qt::LeftDockWidgetArea);
    m_searchPanel = new SearchPanel;
    m_accelerator = new AcceleratorPanel;
    QDockWidget* searchDock
        = dock(tr("Search"), QStringLiteral("search"), m_searchPanel, Qt::RightDockWidgetArea);
    // Scrolls rather than forcing the window taller than a laptop screen.
    auto* accScroll = new QScrollArea;
    accScroll->setWidget(m_accelerator);
    accScroll->setWidgetResizable(true);
    accScroll->setFrameShape(QFrame::NoFrame);
    accScroll->setMinimumHeight(160);
    accScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Without a horizontal scroll bar, the dock must be wide enough for every field and button.
    accScroll->setMinimumWidth(
        m_accelerator->minimumSizeHint().width() + accScroll->verticalScrollBar()->sizeHint().width() + 2);
    QDockWidget* accDock
        = dock(tr("Accelerator"), QStringLiteral("accelerator"), accScroll, Qt::RightDockWidgetArea);
    m_mappingView = new MappingView;
    QDockWidget* mappingDock
        = dock(tr("Selected mapping"), QStringLiteral("mapping"), m_mappingView, Qt::BottomDockWidgetArea);
    QDockWidget* modelDock
        = dock(tr("Model"), QStringLiteral("model"), buildModelPanel(), Qt::BottomDockWidgetArea);
    tabifyDockWidget(mappingDock, modelDock);
    mappingDock->raise();
    connect(m_mappingView, &MappingView::directiveSelected, m_animation, &AnimationPanel::highlightDirective);
    splitDockWidget(op, ddg, Qt::Vertical);
    splitDockWidget(searchDock, accDock, Qt::Vertical);
    // The Model and Selected mapping panels span the window's width, so that a model's table shows every
    // column (the styles' included) at 1440 pixels. Sizes: showEvent.
    m_docks = {op, ddg, searchDock, accDock, mappingDock, modelDock};

    m_controller = new SearchController(this);
    connect(m_searchPanel, &SearchPanel::runRequested, this, &MainWindow::runSearch);
    connect(m_searchPanel, &SearchPanel::cancelRequested, this, &MainWindow::cancelSearch);
    connect(m_accelerator, &AcceleratorPanel::edited, this, &MainWindow::markSettingsDirty);
    connect(m_searchPanel, &SearchPanel::optionsChanged, this, &MainWindow::markSettingsDirty);
    connect(m_accelerator, &AcceleratorPanel::acceleratorChanged, this, [this] {
        // Retuning: an architect changes a parameter and watches the front move.
        if (m_searchedOnce) runSearch();
    });
    connect(m_controller, &SearchController::pointsAdded, m_plot,
        [this](const std::vector<search::EvaluatedPoint>& points) {
            if (!m_searchingModel) m_plot->addPoints(points);
        });
    connect(m_controller, &SearchController::frontChanged, this,
        [this](const std::vector<search::Candidate>& front) {
            m_front = front;
            m_plot->setFront(front);
        });
    connect(m_controller, &SearchController::progressed, m_searchPanel, &SearchPanel::showProgress);
    connect(m_controller, &SearchController::layerFinished, this,
        [this](int index, std::shared_ptr<const search::LayerSearchResult> result) {
            const int row = !m_searchingModel ? m_layer
                : index >= 0 && index < int(m_modelRequestRows.size())
                ? m_modelRequestRows[std::size_t(index)]
                : -1;
            if (row >= 0) {
                m_model->setLayerResult(row, result, m_searchedOptions.objective);
                updateModelTotals();
                // Columns sized for empty cells would elide the first numbers.
                for (int c = ModelTableModel::Runtime; c <= ModelTableModel::OverRoofline; ++c)
                    m_modelView->resizeColumnToContents(c);
            }
            if (!m_searchingModel || row == m_layer)
                showLayerResult(result, row >= 0 ? m_model->rooflineCycles(row) : m_roofline);
        });
    connect(m_controller, &SearchController::stylesFinished, this,
        [this](int index, std::shared_ptr<const StyleResults> results) {
            const int row = !m_searchingModel ? m_layer
                : index >= 0 && index < int(m_modelRequestRows.size())
                ? m_modelRequestRows[std::size_t(index)]
                : -1;
            if (row >= 0) {
                m_model->setLayerStyles(row, results);
                for (int c = ModelTableModel::FirstStyle; c <= ModelTableModel::LastStyle; ++c)
                    m_modelView->resizeColumnToContents(c);
            }
            if (!m_searchingModel || row == m_layer) showStyles(*results);
        });
    connect(m_controller, &SearchController::finished, this, &MainWindow::onSearchFinished);

    m_sweepController = new SweepController(this);
    connect(m_sweepPanel, &SweepPanel::runRequested, this, &MainWindow::runSweep);
    connect(m_sweepPanel, &SweepPanel::cancelRequested, m_sweepController, &SweepController::cancel);
    connect(m_sweepController, &SweepController::started, m_sweepPanel, &SweepPanel::startGrid);
    connect(m_sweepController, &SweepController::pointsFinished, m_sweepPanel, &SweepPanel::addPoints);
    connect(m_sweepController, &SweepController::progressed, m_sweepPanel, &SweepPanel::showProgress);
    connect(m_sweepController, &SweepController::finished, m_sweepPanel, &SweepPanel::showOutcome);
    connect(m_sweepPanel, &SweepPanel::designPointActivated, this, &MainWindow::loadDesignPoint);
    connect(m_plot, &ParetoPlot::frontPointClicked, this, &MainWindow::selectCandidate);

    auto* run = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_R), this);
    connect(run, &QShortcut::activated, this, &MainWindow::runSearch);
    auto* cancel = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(cancel, &QShortcut::activated, this, &MainWindow::cancelSearch);
}

bool MainWindow::runSearch()
{
    if (!m_modelName.isEmpty() && m_layer < 0) return searchModel();
    m_searchingModel = false;
    m_centre->setCurrentWidget(m_plot); // watch the trade-off grow
    analyseNow();
    if (!m_analysis.report || !m_analysis.report->conformable) {
        statusBar()->showMessage(
            tr("Only a conformable operator can be searched: see the rules in the Operator panel."));
        return false;
    }
    if (!m_accelerator->isValid()) {
        statusBar()->showMessage(
            tr("Fix the accelerator first: %1").arg(m_accelerator->problems().join(QStringLiteral("; "))));
        return false;
    }
    SearchRequest request;
    try {
        const QString name = m_file.isEmpty() ? tr("untitled.loop") : QFileInfo(m_file).fileName();
        ir::Operator op = m_layer >= 0
            ? m_model->workload().layers[static_cast<std::size_t>(m_layer)].op
            : ir::parseOperator(m_editor->toPlainText().toStdString(), name.toStdString());
        request.layers.push_back({QString::fromStdString(op.name), op, 1});
        if (auto nest = ir::perfectNest(op))
            m_roofline = search::roofline(*nest, op.sizes, m_accelerator->accelerator()).cycles;
    } catch (const InputError& e) {
        statusBar()->showMessage(QString::fromStdString(e.what()));
        return false;
    }
    request.accelerator = m_accelerator->accelerator();
    request.options = m_searchPanel->options();
    if (m_searchPanel->compareStyles()) request.compareStyles = styles::allStyles();
    m_searchedAccelerator = request.accelerator;
    m_searchedOptions = request.options;
    m_searchedOnce = true;
    m_mappingView->setStyleComparison({});
    m_front.clear();
    m_lastResult.reset();
    m_plot->clear();
    m_plot->setClockMhz(request.accelerator.clockMHz);
    m_plot->setRoofline(m_roofline);
    m_controller->start(std::move(request));
    m_searchPanel->setRunning(true);
    statusBar()->showMessage(tr("Searching..."));
    return true;
}

void MainWindow::showLayerResult(
    const std::shared_ptr<const search::LayerSearchResult>& result, std::int64_t roofline)
{
    m_lastResult = result;
    m_roofline = roofline;
    const search::SearchResult& r = result->result;
    m_front = r.pareto;
    if (m_searchingModel) m_plot->clear();
    m_plot->setRoofline(roofline);
    m_plot->setFront(m_front);
    std::vector<search::Candidate> best;
    for (const auto* b : {&r.bestRuntime, &r.bestEnergy, &r.bestEdp})
        if (*b) best.push_back(**b);
    m_plot->setBest(best);
    if (const auto& b = r.best(m_searchedOptions.objective)) showCandidate(*b);
    // A project's saved selection is shown again when the search finds the same mapping.
    if (m_pendingSelection)
        for (const search::Candidate& c : r.pareto)
            if (mapping::toJson(c.mapping) == mapping::toJson(m_pendingSelection->mapping)) showCandidate(c);
    m_pendingSelection.reset();
}

void MainWindow::showStyles(const std::vector<styles::StyleSearch>& results)
{
    std::vector<ParetoPlot::StyleMark> marks;
    std::vector<MappingView::StyleBest> rows;
    for (const styles::StyleSearch& s : results) {
        const QString label = QString::fromStdString(styles::shortLabel(s.style));
        MappingView::StyleBest row;
        row.label = label;
        row.description = QStringLiteral("%1 (%2)").arg(QString::fromStdString(styles::description(s.style)),
            QString::fromStdString(styles::toString(s.style)));
        if (s.best) {
            row.metrics = s.best->metrics;
            QStringList dims;
            for (const mdc::Directive& d : s.best->dataflow)
                if (d.kind == mdc::Directive::Kind::SpatialMap
                    && !dims.contains(QString::fromStdString(d.dim)))
                    dims << QString::fromStdString(d.dim);
            row.parallel = dims.join(QStringLiteral(", "));
            if (!s.convForm.empty()) row.parallel += tr(" (convolution form)");
            // Styles that find the same mapping share one labelled mark.
            auto same = std::find_if(marks.begin(), marks.end(), [&](const ParetoPlot::StyleMark& m) {
                return m.runtime == s.best->metrics.runtime && m.energy == s.best->metrics.energy;
            });
            if (same != marks.end())
                same->label += QStringLiteral(", ") + label;
            else
                marks.push_back({label, s.best->metrics.runtime, s.best->metrics.energy});
        }
        rows.push_back(row);
    }
    m_plot->setStyleMarks(marks);
    m_mappingView->setStyleComparison(rows);
}

QWidget* MainWindow::buildModelPanel()
{
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    m_modelCombo = new QComboBox;
    m_modelCombo->addItem(tr("(none: the operator in the editor)"), QString());
    for (const std::string& name : workloads::builtinWorkloadNames())
        m_modelCombo->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_modelCombo->setToolTip(tr("A built-in model: its layers fill the table below"));
    connect(m_modelCombo, &QComboBox::activated, this, [this](int i) {
        const QString name = m_modelCombo->itemData(i).toString();
        if (name.isEmpty()) {
            loadModel({});
        } else {
            loadModel(name);
        }
        markSettingsDirty();
    });
    auto* open = new QPushButton(tr("Open model file..."));
    open->setToolTip(tr("A MAESTRO model file (.m) or a JSON model"));
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open model"), {}, tr("Models (*.m *.json);;All files (*)"));
        if (!path.isEmpty() && loadModel(path)) markSettingsDirty();
    });
    auto* searchAll = new QPushButton(tr("Search whole model"));
    searchAll->setToolTip(tr("Search every layer in the background; the table fills layer by layer"));
    connect(searchAll, &QPushButton::clicked, this, &MainWindow::searchModel);
    m_modelTotals = new QLabel;
    // Long totals wrap instead of widening the window beyond the screen.
    m_modelTotals->setWordWrap(true);
    m_modelTotals->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    row->addWidget(new QLabel(tr("Model")));
    row->addWidget(m_modelCombo, 1);
    row->addWidget(open);
    row->addWidget(searchAll);
    row->addWidget(m_modelTotals, 2);
    layout->addLayout(row);

    m_model = new ModelTableModel(this);
    m_modelProxy = new QSortFilterProxyModel(this);
    m_modelProxy->setSourceModel(m_model);
    m_modelProxy->setSortRole(ModelTableModel::SortRole);
    m_modelView = new QTableView;
    m_modelView->setModel(m_modelProxy);
    m_modelView->setSortingEnabled(true);
    m_modelView->sortByColumn(-1, Qt::AscendingOrder);
    m_modelView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_modelView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_modelView->verticalHeader()->hide();
    m_modelView->horizontalHeader()->setStretchLastSection(true);
    m_modelView->setWordWrap(false);
    connect(m_modelView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            if (current.isValid()) selectLayer(m_modelProxy->mapToSource(current).row());
        });
    layout->addWidget(m_modelView);
    return panel;
}

bool MainWindow::loadModel(const QString& nameOrPath)
{
    if (nameOrPath.isEmpty()) {
        m_model->setWorkload({}, m_accelerator->accelerator());
        m_modelName.clear();
        selectLayer(-1);
        m_modelCombo->setCurrentIndex(0);
        updateModelTotals();
        return true;
    }
    workloads::Workload w;
    try {
        // A bad layer does not hide the good ones: it is listed with its error and left out of searches.
        w = workloads::loadWorkload(nameOrPath.toStdString(), workloads::LayerErrors::Keep);
    } catch (const InputError& e) {
        reportError(tr("Cannot open model"), QString::fromStdString(e.what()));
        return false;
    }
    m_modelName = nameOrPath;
    const int i = m_modelCombo->findData(nameOrPath);
    if (i >= 0) {
        m_modelCombo->setCurrentIndex(i);
    } else {
        m_modelCombo->addItem(QFileInfo(nameOrPath).fileName(), nameOrPath);
        m_modelCombo->setCurrentIndex(m_modelCombo->count() - 1);
    }
    m_model->setWorkload(std::move(w), m_accelerator->accelerator());
    m_modelView->resizeColumnsToContents();
    selectLayer(-1);
    updateModelTotals();
    for (QDockWidget* d : m_docks)
        if (d->objectName() == QLatin1String("model")) d->raise();
    return true;
}

void MainWindow::selectLayer(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        if (m_layer >= 0 || !m_modelName.isEmpty()) {
            // The whole model is the workload: no single operator to edit.
            m_editor->setPlainText(m_modelName.isEmpty()
                    ? QString()
                    : tr("// Model %1: Ctrl+R searches every layer; pick a layer in the Model panel to see "
                         "its loop nest, plot and mapping.")
                          .arg(QFileInfo(m_modelName).fileName()));
            m_editor->document()->setModified(false);
        }
        m_layer = -1;
        m_editor->setReadOnly(!m_modelName.isEmpty());
        m_layerBanner->setVisible(false);
        m_editCopy->setVisible(false);
        return;
    }
    m_layer = row;
    const workloads::WorkloadLayer& layer = m_model->workload().layers[static_cast<std::size_t>(row)];
    QString errors;
    for (const Diagnostic& d : layer.errors)
        errors += QStringLiteral("// ") + QString::fromStdString(d.format()) + QLatin1Char('\n');
    const QString text = layer.ok()
        ? layerLoopText(layer)
        : tr("// layer %1 cannot be mapped:\n").arg(QString::fromStdString(layer.name)) + errors;
    m_editor->setPlainText(text.isEmpty()
            ? tr("// layer %1 is a custom operator of the model file").arg(QString::fromStdString(layer.name))
            : text);
    m_editor->document()->setModified(false);
    m_editor->setReadOnly(true);
    m_layerBanner->setText(tr("Layer <b>%1</b> of model <b>%2</b> (read-only)")
                               .arg(QString::fromStdString(layer.name).toHtmlEscaped(),
                                   QFileInfo(m_modelName).fileName().toHtmlEscaped()));
    m_layerBanner->setVisible(true);
    m_editCopy->setVisible(true);
    analyseNow();
    if (auto result = m_model->layerResult(row)) {
        m_searchedOptions = m_searchPanel->options();
        m_plot->clear();
        showLayerResult(result, m_model->rooflineCycles(row));
        if (auto styles = m_model->layerStyles(row)) showStyles(*styles);
    }
}

void MainWindow::updateModelTotals()
{
    if (m_model->rowCount() == 0) {
        m_modelTotals->setText(tr("Pick a model to map it layer by layer."));
        return;
    }
    const int searched = m_model->searchedLayers();
    if (searched == 0) {
        m_modelTotals->setText(tr("%n layer(s); not searched yet", nullptr, m_model->rowCount()));
        return;
    }
    const double ratio = m_model->totalRoofline() > 0
        ? static_cast<double>(m_model->totalRuntime()) / static_cast<double>(m_model->totalRoofline())
        : 0.0;
    m_modelTotals->setText(tr("%1 of %2 layers: %L3 cycles, energy %4, %5\u00d7 the roofline")
                               .arg(searched)
                               .arg(m_model->rowCount())
                               .arg(qlonglong(m_model->totalRuntime()))
                               .arg(m_model->totalEnergy(), 0, 'g', 4)
                               .arg(ratio, 0, 'f', 3));
}

bool MainWindow::searchModel()
{
    if (m_model->rowCount() == 0) {
        statusBar()->showMessage(tr("Pick a model first."));
        return false;
    }
    if (!m_accelerator->isValid()) {
        statusBar()->showMessage(
            tr("Fix the accelerator first: %1").arg(m_accelerator->problems().join(QStringLiteral("; "))));
        return false;
    }
    SearchRequest request;
    m_modelRequestRows.clear();
    for (std::size_t row = 0; row < m_model->workload().layers.size(); ++row) {
        const workloads::WorkloadLayer& l = m_model->workload().layers[row];
        if (!l.ok()) continue; // listed with its error
        m_modelRequestRows.push_back(int(row));
        if (!conform::checkConformability(l.op).conformable) {
            reportError(tr("Cannot search the model"),
                tr("Layer %1 is not conformable to the MDC notation.").arg(QString::fromStdString(l.name)));
            return false;
        }
        request.layers.push_back({QString::fromStdString(l.name), l.op, l.repeat});
    }
    request.accelerator = m_accelerator->accelerator();
    request.options = m_searchPanel->options();
    if (m_searchPanel->compareStyles()) request.compareStyles = styles::allStyles();
    m_searchedAccelerator = request.accelerator;
    m_searchedOptions = request.options;
    m_searchedOnce = true;
    m_searchingModel = true;
    m_mappingView->setStyleComparison({});
    if (request.layers.empty()) {
        reportError(
            tr("Cannot search the model"), tr("No layer of the model can be used: see the Status column."));
        return false;
    }
    m_model->resetResults(request.accelerator);
    for (int row : m_modelRequestRows)
        m_model->setLayerStatus(row, tr("queued"));
    updateModelTotals();
    m_front.clear();
    m_plot->clear();
    m_controller->start(std::move(request));
    m_searchPanel->setRunning(true);
    statusBar()->showMessage(tr("Searching every layer of the model..."));
    return true;
}

bool MainWindow::runSweep()
{
    m_centre->setCurrentWidget(m_sweepPanel);
    SweepRequest request;
    const bool wholeModel = !m_modelName.isEmpty() && m_layer < 0;
    try {
        if (wholeModel) {
            request.workload.name = m_modelName.toStdString();
            for (const workloads::WorkloadLayer& l : m_model->workload().layers) {
                if (!l.ok()) continue; // listed with its error in the model view
                if (!conform::checkConformability(l.op).conformable)
                    throw InputError(Diagnostic{{}, {}, l.name, "not conformable to the MDC notation"});
                request.workload.layers.push_back(l);
            }
            if (request.workload.layers.empty())
                throw InputError(Diagnostic{{}, {}, {}, "no layer of the model can be used"});
        } else {
            analyseNow();
            if (!m_analysis.report || !m_analysis.report->conformable)
                throw InputError(Diagnostic{{}, {}, {},
                    "only a conformable operator can be swept: see the rules in the Operator panel"});
            workloads::WorkloadLayer layer;
            if (m_layer >= 0) {
                layer = m_model->workload().layers[static_cast<std::size_t>(m_layer)];
                layer.repeat = 1;
            } else {
                const QString name = m_file.isEmpty() ? tr("untitled.loop") : QFileInfo(m_file).fileName();
                layer.op = ir::parseOperator(m_editor->toPlainText().toStdString(), name.toStdString());
                layer.name = layer.op.name;
            }
            request.workload.name = layer.name;
            request.workload.layers.push_back(std::move(layer));
        }
        if (!m_accelerator->isValid())
            throw InputError(Diagnostic{
                {}, {}, "accelerator", m_accelerator->problems().join(QStringLiteral("; ")).toStdString()});
        request.grid
            = std::make_shared<const sweep::Grid>(m_accelerator->accelerator(), m_sweepPanel->axes());
    } catch (const InputError& e) {
        m_sweepPanel->showError(QString::fromStdString(e.what()));
        return false;
    }
    request.options.search = m_searchPanel->options();
    request.options.search.objective = m_sweepPanel->objective();
    request.options.threads = request.options.search.threads;
    m_sweepController->start(std::move(request));
    m_sweepPanel->setRunning(true);
    return true;
}

bool MainWindow::loadDesignPoint(std::size_t index)
{
    const std::shared_ptr<const sweep::Grid> grid = m_sweepPanel->grid();
    if (!grid || index >= grid->size()) return false;
    m_accelerator->setAccelerator(grid->point(index));
    statusBar()->showMessage(tr("Design point %1 loaded into the accelerator panel").arg(index + 1), 8000);
    return runSearch();
}

void MainWindow::cancelSearch()
{
    m_controller->cancel();
}

void MainWindow::onSearchFinished(const SearchOutcome& outcome)
{
    if (m_searchingModel) {
        for (int i : m_modelRequestRows)
            if (!m_model->layerResult(i))
                m_model->setLayerStatus(i,
                    outcome.status == SearchOutcome::Status::Failed ? tr("failed: %1").arg(outcome.message)
                                                                    : tr("not searched"));
        m_searchingModel = false;
        m_modelView->resizeColumnsToContents();
        // Show the first layer: its loop nest, plot and mapping.
        if (m_model->layerResult(0)) m_modelView->selectRow(0);
    }
    m_searchPanel->showOutcome(outcome);
    statusBar()->showMessage(m_searchPanel->outcomeText(), 8000);
    emit searchFinished();
}

bool MainWindow::selectCandidate(std::uint64_t index)
{
    for (const search::Candidate& c : m_front)
        if (c.index == index) {
            showCandidate(c);
            return true;
        }
    return false;
}

void MainWindow::showCandidate(const search::Candidate& candidate)
{
    if (!m_lastResult) return;
    m_selected = candidate;
    m_mappingView->setMapping(candidate, m_lastResult->problem, m_lastResult->space.body,
        m_searchedAccelerator, m_searchedOptions.fidelity, m_roofline);
    m_animation->setMapping({tr("%1, the selected mapping on %2")
                                 .arg(QString::fromStdString(m_lastResult->problem.name),
                                     QString::fromStdString(m_searchedAccelerator.name)),
        m_lastResult->problem, candidate.dataflow, m_searchedAccelerator});
}

QString MainWindow::samplesDirectory()
{
    const QByteArray fromEnv = qgetenv("MARVEL_SAMPLES_DIR");
    return QString::fromLocal8Bit(fromEnv.isEmpty() ? QByteArray(MARVEL_SAMPLES_DIR) : fromEnv)
        + QStringLiteral("/operators");
}

MainWindow::~MainWindow()
{
    m_recovery.discard();
}

QString MainWindow::projectSamplesDirectory()
{
    return QFileInfo(samplesDirectory()).path() + QStringLiteral("/projects");
}

QStringList MainWindow::recentFiles()
{
    QStringList files = QSettings().value(kRecentFilesKey).toStringList();
    files.removeIf([](const QString& path) { return !QFileInfo::exists(path); });
    return files;
}

void MainWindow::rememberRecentFile(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(kRecentFilesKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(kRecentFilesKey, files);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newOperator);
    file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::openDialog);
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString& path : recentFiles()) {
            recent->addAction(QDir::toNativeSeparators(path), this, [this, path] {
                if (confirmDiscard()) openFile(path);
            });
        }
        if (recent->isEmpty()) {
            recent->addAction(tr("No recent files"))->setEnabled(false);
        } else {
            recent->addSeparator();
            recent->addAction(tr("Clear the list"), this, [] { QSettings().remove(kRecentFilesKey); });
        }
    });
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    // Listed when opened, so samples added while the app runs show up.
    connect(samples, &QMenu::aboutToShow, this, [this, samples] {
        samples->clear();
        auto list = [this, samples](const QString& folder, const QString& pattern) {
            const QDir dir(folder);
            for (const QFileInfo& info : dir.entryInfoList({pattern}, QDir::Files, QDir::Name)) {
                const QString path = info.absoluteFilePath();
                samples->addAction(info.fileName(), this, [this, path] {
                    if (confirmDiscard()) openFile(path);
                });
            }
        };
        list(samplesDirectory(), QStringLiteral("*.loop"));
        samples->addSection(tr("Projects"));
        list(projectSamplesDirectory(), QStringLiteral("*.json"));
        samples->addSection(tr("Mappings to animate (on the accelerator shown)"));
        const QDir mappings(samplesDirectory() + QStringLiteral("/../mappings"));
        for (const QFileInfo& info :
            mappings.entryInfoList({QStringLiteral("*.m")}, QDir::Files, QDir::Name)) {
            const QString path = info.absoluteFilePath();
            samples->addAction(info.fileName(), this, [this, path] { animateMappingFile(path); });
        }
    });
    buildEditMenu(file);
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAsDialog);
    file->addAction(tr("Save &Project As..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save project"), m_projectFile, tr("Marvel Studio projects (*.json)"));
        if (!path.isEmpty()) saveProjectTo(path);
    });
    file->addAction(tr("&Animate a MAESTRO Mapping..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Animate a MAESTRO mapping"), {}, tr("MAESTRO mappings (*.m);;All files (*)"));
        if (path.isEmpty()) return;
        QString layer;
        try {
            const mdc::Network net = mdc::readMaestroMappingFile(path.toStdString());
            if (net.layers.size() > 1) {
                QStringList names;
                for (const mdc::Layer& l : net.layers)
                    names << QString::fromStdString(l.name);
                bool ok = false;
                layer = QInputDialog::getItem(
                    this, tr("Animate a MAESTRO mapping"), tr("Layer:"), names, 0, false, &ok);
                if (!ok) return;
            }
        } catch (const InputError&) {
            // animateMappingFile reports it
        }
        animateMappingFile(path, layer);
    });
    file->addAction(tr("&Export Selected Mapping..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export mapping"), {},
            tr("MAESTRO mapping (*.m);;Mapping JSON (*.json);;Tiled loop nest (*.txt)"));
        if (!path.isEmpty()) exportMapping(path);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* searchMenu = menuBar()->addMenu(tr("&Search"));
    QAction* run = searchMenu->addAction(tr("&Run search"), this, &MainWindow::runSearch);
    run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    run->setShortcutContext(Qt::WidgetShortcut); // the window-wide QShortcut handles the key
    QAction* cancel = searchMenu->addAction(tr("&Cancel"), this, &MainWindow::cancelSearch);
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setShortcutContext(Qt::WidgetShortcut);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : m_docks)
        m_viewMenu->addAction(d->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Marvel Studio"), this, [this] {
        QFile about(QStringLiteral(":/marvel/about.html"));
        about.open(QIODevice::ReadOnly);
        QMessageBox::about(this, tr("About Marvel Studio"), QString::fromUtf8(about.readAll()));
    });
}

bool MainWindow::hasUnsavedChanges() const
{
    return m_editor->document()->isModified() || (!m_projectFile.isEmpty() && m_settingsDirty);
}

void MainWindow::markSettingsDirty()
{
    m_settingsDirty = true;
    updateTitle();
}

void MainWindow::reportError(const QString& title, const QString& message)
{
    m_lastError = message;
    statusBar()->showMessage(message);
    // Not modal: the work in the window stays usable (and tests are not blocked).
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

bool MainWindow::openProject(const QString& path)
{
    project::Project p;
    try {
        p = project::loadProject(path.toStdString());
        if (p.workload.kind == project::ProjectWorkload::Kind::Model)
            project::loadProjectWorkload(p, path.toStdString()); // the model and layer exist
    } catch (const InputError& e) {
        reportError(tr("Cannot open project"), QString::fromStdString(e.what()));
        return false;
    }
    applyProject(p);
    m_projectFile = path;
    m_settingsDirty = false;
    updateTitle();
    rememberRecentFile(path);
    statusBar()->showMessage(tr("Opened project %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

void MainWindow::applyProject(const project::Project& p)
{
    m_lastError.clear();
    m_accelerator->setAccelerator(p.accelerator);
    if (p.workload.kind == project::ProjectWorkload::Kind::Model) {
        loadModel(QString::fromStdString(project::resolvedModelPath(p)));
        m_modelName = QString::fromStdString(p.workload.model);
        for (int i = 0; i < m_model->rowCount(); ++i)
            if (m_model->workload().layers[static_cast<std::size_t>(i)].name == p.workload.layer)
                m_modelView->selectRow(m_modelProxy->mapFromSource(m_model->index(i, 0)).row());
        m_file.clear();
    } else {
        loadModel({});
        m_editor->setPlainText(QString::fromStdString(p.workload.text));
        m_editor->document()->setModified(false);
        m_file = QString::fromStdString(p.workload.file);
    }
    m_searchPanel->setOptions(p.search);
    m_pendingSelection = p.selectedMapping;
    analyseNow();
    animateSelection(p);
}

bool MainWindow::animateMappingFile(const QString& path, const QString& layer)
{
    try {
        const mdc::Network net = mdc::readMaestroMappingFile(path.toStdString());
        const mdc::Layer* chosen = nullptr;
        for (const mdc::Layer& l : net.layers)
            if (!chosen && (layer.isEmpty() || QString::fromStdString(l.name) == layer)) chosen = &l;
        if (!chosen) {
            Diagnostic d;
            d.file = path.toStdString();
            d.message
                = net.layers.empty() ? "no layer in the file" : "no layer '" + layer.toStdString() + "'";
            throw InputError(d);
        }
        if (chosen->dataflow.empty()) {
            Diagnostic d;
            d.file = path.toStdString();
            d.loc = chosen->loc;
            d.message = "layer '" + chosen->name + "' has no Dataflow to animate";
            throw InputError(d);
        }
        const arch::Accelerator acc = m_accelerator->accelerator();
        m_animation->setMapping({tr("%1 of %2 on %3")
                                     .arg(QString::fromStdString(chosen->name), QFileInfo(path).fileName(),
                                         QString::fromStdString(acc.name)),
            cost::fromMaestroLayer(*chosen, std::nullopt, path.toStdString()), chosen->dataflow, acc});
        m_centre->setCurrentWidget(m_animation);
        statusBar()->showMessage(tr("Animating %1").arg(QDir::toNativeSeparators(path)), 4000);
        return true;
    } catch (const InputError& e) {
        m_animation->clear(QString::fromStdString(e.what()));
        m_centre->setCurrentWidget(m_animation);
        return false;
    }
}

void MainWindow::animateSelection(const project::Project& p)
{
    // A project's selected mapping can be watched at once, before any search.
    if (!p.selectedMapping) return;
    try {
        const ir::Operator op = m_layer >= 0
            ? m_model->workload().layers[static_cast<std::size_t>(m_layer)].op
            : ir::parseOperator(p.workload.text, p.workload.file.empty() ? "project" : p.workload.file);
        const mdc::Dataflow dataflow = mapping::toMdc(p.selectedMapping->mapping, p.accelerator);
        const cost::Problem problem = cost::fromOperator(op);
        // The mapping view shows the saved mapping too (evaluated again by the cost model).
        if (const auto nest = ir::perfectNest(op); nest && !nest->statements.empty()) {
            search::Candidate saved;
            saved.mapping = p.selectedMapping->mapping;
            saved.dataflow = dataflow;
            m_mappingView->setMapping(saved, problem, nest->statements.front().text, p.accelerator,
                p.search.fidelity, search::roofline(*nest, op.sizes, p.accelerator).cycles);
        }
        // A real layer is too large to animate: the project opens on its plot, and the Animation tab
        // offers the shrunken copy when the user goes there.
        bool animatable = true;
        try {
            sim::Simulator::check(problem, dataflow, p.accelerator);
        } catch (const InputError&) {
            animatable = false;
        }
        m_animation->setMapping(
            {tr("%1, the project's mapping on %2")
                    .arg(QString::fromStdString(op.name), QString::fromStdString(p.accelerator.name)),
                problem, dataflow, p.accelerator});
        if (animatable) m_centre->setCurrentWidget(m_animation);
    } catch (const InputError& e) {
        m_animation->clear(QString::fromStdString(e.what()));
    }
}

QByteArray MainWindow::recoveryContent() const
{
    nlohmann::json j;
    j["format"] = "marvel-studio-recovery";
    j["version"] = 1;
    j["project_file"] = m_projectFile.toStdString();
    j["saved_at"] = QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
    j["project"] = nlohmann::json::parse(project::writeProject(currentProject()));
    return QByteArray::fromStdString(j.dump(1));
}

void MainWindow::autosaveNow()
{
    if (hasUnsavedChanges())
        m_recovery.write(recoveryContent());
    else
        m_recovery.discard();
}

bool MainWindow::restoreRecovery(const QString& path)
{
    QFile file(path);
    project::Project p;
    QString projectFile;
    try {
        if (!file.open(QIODevice::ReadOnly))
            throw InputError(Diagnostic{path.toStdString(), {}, {}, file.errorString().toStdString()});
        const nlohmann::json j = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
        if (!j.is_object() || j.value("format", "") != "marvel-studio-recovery" || !j.contains("project"))
            throw InputError(
                Diagnostic{path.toStdString(), {}, "format", "not a Marvel Studio recovery file"});
        p = project::readProject(j["project"].dump(), path.toStdString());
        projectFile = QString::fromStdString(j.value("project_file", ""));
    } catch (const InputError& e) {
        reportError(tr("Cannot restore"), QString::fromStdString(e.what()));
        return false;
    }
    applyProject(p);
    // The restored work is unsaved until the user saves it.
    m_projectFile = projectFile;
    m_settingsDirty = true;
    m_editor->document()->setModified(true);
    updateTitle();
    QFile::remove(path);
    autosaveNow();
    statusBar()->showMessage(tr("Restored the unsaved work of a session that ended without saving"), 6000);
    return true;
}

bool MainWindow::offerRecovery()
{
    const QStringList orphans = RecoveryStore::orphans();
    if (orphans.isEmpty()) return false;
    QMessageBox box(QMessageBox::Question, tr("Restore unsaved work?"),
        tr("Marvel Studio ended without saving your last changes (%1). Restore them?")
            .arg(QFileInfo(orphans.first()).lastModified().toString(QStringLiteral("yyyy-MM-dd hh:mm:ss"))),
        QMessageBox::NoButton, this);
    QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
    QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box.addButton(tr("Ask Again Later"), QMessageBox::RejectRole);
    box.setDefaultButton(restore);
    box.exec();
    if (box.clickedButton() == discard) {
        for (const QString& path : orphans)
            QFile::remove(path);
        return false;
    }
    return box.clickedButton() == restore && restoreRecovery(orphans.first());
}

project::Project MainWindow::currentProject() const
{
    project::Project p;
    if (!m_modelName.isEmpty()) {
        p.workload.kind = project::ProjectWorkload::Kind::Model;
        p.workload.model = m_modelName.toStdString();
        if (m_layer >= 0)
            p.workload.layer = m_model->workload().layers[static_cast<std::size_t>(m_layer)].name;
    } else {
        p.workload.kind = project::ProjectWorkload::Kind::Operator;
        p.workload.text = m_editor->toPlainText().toStdString();
        p.workload.file = m_file.toStdString();
    }
    p.accelerator = m_accelerator->accelerator();
    p.search = m_searchPanel->options();
    if (m_selected && (m_modelName.isEmpty() || m_layer >= 0))
        p.selectedMapping = project::SelectedMapping{p.workload.layer, m_selected->mapping};
    return p;
}

bool MainWindow::saveProjectTo(const QString& path)
{
    try {
        project::saveProject(currentProject(), path.toStdString());
    } catch (const InputError& e) {
        reportError(tr("Save failed"), QString::fromStdString(e.what()));
        return false;
    }
    m_projectFile = path;
    m_settingsDirty = false;
    m_editor->document()->setModified(false);
    updateTitle();
    rememberRecentFile(path);
    autosaveNow();
    statusBar()->showMessage(tr("Saved project %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::exportMapping(const QString& path)
{
    if (!m_selected || !m_lastResult) {
        reportError(tr("Nothing to export"), tr("Run a search and select a mapping first."));
        return false;
    }
    try {
        std::string text;
        if (path.endsWith(QStringLiteral(".m"), Qt::CaseInsensitive)) {
            const std::string name = m_lastResult->space.name.empty() ? "layer" : m_lastResult->space.name;
            text = cost::maestroMappingFile(
                name, {{name, &m_lastResult->problem, &m_selected->dataflow}}, path.toStdString());
        } else if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) {
            text = mapping::toJson(m_selected->mapping).dump(2) + "\n";
        } else {
            text = mapping::printTiledLoopNest(m_selected->mapping, m_lastResult->space.body);
        }
        writeTextFileAtomically(path.toStdString(), text, "the mapping file");
    } catch (const InputError& e) {
        reportError(tr("Export failed"), QString::fromStdString(e.what()));
        return false;
    }
    statusBar()->showMessage(tr("Exported the mapping to %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
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
    const QString path = QFileDialog::getOpenFileName(this, tr("Open operator or project"), start,
        tr("Operators and projects (*.loop *.json);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path)
{
    if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) return openProject(path);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, file.errorString()));
        return false;
    }
    if (!m_modelName.isEmpty()) loadModel({});
    m_projectFile.clear();
    m_editor->setPlainText(QString::fromUtf8(file.readAll()));
    m_editor->document()->setModified(false);
    m_file = path;
    updateTitle();
    analyseNow();
    rememberRecentFile(path);
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
    rememberRecentFile(path);
    autosaveNow();
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::save()
{
    if (!m_projectFile.isEmpty()) return saveProjectTo(m_projectFile);
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
    if (!confirmDiscard()) {
        event->ignore();
        return;
    }
    m_controller->cancel();
    m_recovery.discard(); // saved or deliberately discarded
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

void MainWindow::updateTitle()
{
    const QString name = !m_projectFile.isEmpty() ? QFileInfo(m_projectFile).fileName()
        : m_file.isEmpty()                        ? tr("untitled.loop")
                                                  : QFileInfo(m_file).fileName();
    setWindowTitle(tr("%1[*] - Marvel Studio").arg(name));
    setWindowModified(hasUnsavedChanges());
}

void MainWindow::analyseNow()
{
    m_analyseTimer->stop();
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

QPlainTextEdit* MainWindow::editor() const
{
    return m_editor;
}

// File > New from Template and the Edit menu (kept together, apart from buildMenus, to ease merges).
void MainWindow::buildEditMenu(QMenu* file)
{
    m_templatesMenu = file->addMenu(tr("New from &Template"));
    auto fillTemplates = [this] {
        m_templatesMenu->clear();
        bool section = false;
        for (const QString& path : operatorTemplates(samplesDirectory())) {
            if (!section && QFileInfo(path).dir() != QDir(samplesDirectory())) {
                m_templatesMenu->addSection(tr("Not conformable"));
                section = true;
            }
            m_templatesMenu->addAction(
                QFileInfo(path).completeBaseName(), this, [this, path] { newFromTemplate(path); });
        }
    };
    fillTemplates();
    connect(m_templatesMenu, &QMenu::aboutToShow, this, fillTemplates);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = edit->addAction(tr("&Undo"), QKeySequence::Undo, m_editor, &QPlainTextEdit::undo);
    QAction* redo = edit->addAction(
        tr("&Redo"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), m_editor, &QPlainTextEdit::redo);
    undo->setEnabled(false);
    redo->setEnabled(false);
    connect(m_editor, &QPlainTextEdit::undoAvailable, undo, &QAction::setEnabled);
    connect(m_editor, &QPlainTextEdit::redoAvailable, redo, &QAction::setEnabled);
    edit->addSeparator();
    edit->addAction(m_editor->findAction()); // Ctrl+F
}

bool MainWindow::newFromTemplate(const QString& path)
{
    if (!confirmDiscard()) return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, file.errorString()));
        return false;
    }
    if (!m_modelName.isEmpty()) loadModel({});
    m_projectFile.clear();
    m_file.clear();
    m_editor->setPlainText(QString::fromUtf8(file.readAll()));
    m_editor->document()->setModified(true); // a new operator that is not saved anywhere yet
    updateTitle();
    analyseNow();
    statusBar()->showMessage(tr("New operator from the template %1").arg(QFileInfo(path).fileName()), 4000);
    return true;
}

} // namespace marvel::ui
