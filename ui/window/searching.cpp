// Starting the background work: a search of the operator or layer in the editor, of a whole model, and
// a design sweep around the accelerator panel's accelerator; each checks its inputs first and says why
// it runs nothing.
#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "core/conform/conformability.h"
#include "core/ir/parser.h"
#include "core/search/roofline.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/codesign/codesign_controller.h"
#include "ui/codesign/codesign_panel.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_controller.h"
#include "ui/sweep/sweep_panel.h"

namespace marvel::ui {

bool MainWindow::runSearch()
{
    // The search settings share a tabbed area with the DDG at smaller sizes: show the progress.
    m_ddgOnTop = false;
    m_docks[2]->raise();
    if (!m_modelName.isEmpty() && m_layer < 0) return searchModel();
    m_searchingModel = false;
    showCentre(m_plot); // watch the trade-off grow
    analyseNow();
    if (!m_analysis.report || !m_analysis.report->conformable) {
        // Said where the eye is (the plot), and the previous workload's front goes: it is not this one's.
        const QString why = m_analysis.report
            ? tr("This operator is not conformable to the MDC notation, so it has no mappings to search:\n"
                 "see the failing rule in the Operator panel.")
            : tr("The operator does not parse:\nfix the error the editor marks, then search again.");
        m_front.clear();
        m_lastResult.reset();
        m_plotBasis.reset();
        m_plot->setRoofline(0);
        m_plot->clear(why);
        statusBar()->showMessage(QString(why).replace(QLatin1Char('\n'), QLatin1Char(' ')));
        refreshStaleness();
        return false;
    }
    if (!m_accelerator->isValid()) {
        statusBar()->showMessage(
            tr("Fix the accelerator first: %1").arg(m_accelerator->problems().join(QStringLiteral("; "))));
        return false;
    }
    SearchRequest request;
    request.accelerator = m_accelerator->accelerator();
    request.options = m_searchPanel->options();
    std::string key;
    std::int64_t roofline = 0;
    try {
        const QString name = m_file.isEmpty() ? tr("untitled.loop") : QFileInfo(m_file).fileName();
        ir::Operator op = m_layer >= 0
            ? m_model->workload().layers[static_cast<std::size_t>(m_layer)].op
            : ir::parseOperator(m_editor->toPlainText().toStdString(), name.toStdString());
        key = workloadKey(op);
        if (auto nest = ir::perfectNest(op))
            roofline = search::roofline(*nest, op.sizes, request.accelerator).cycles;
        request.layers.push_back({QString::fromStdString(op.name), std::move(op), 1});
    } catch (const InputError& e) {
        statusBar()->showMessage(QString::fromStdString(e.what()));
        return false;
    }
    if (m_searchPanel->compareStyles()) request.compareStyles = styles::allStyles();
    m_searchedBasis = {key, request.accelerator, request.options};
    m_searchedRoofline = roofline;
    m_requestKeys = {key};
    m_searchedOnce = true;
    m_rerunTimer->stop();
    m_mappingView->setStyleComparison({});
    m_front.clear();
    m_lastResult.reset();
    if (m_layer >= 0) m_model->clearLayerPoints(m_layer); // this search's cloud replaces the model's
    m_plot->clear(tr("Searching... the mappings appear here as they are evaluated"));
    m_plot->setClockMhz(request.accelerator.clockMHz);
    m_plot->setEnergyUnit(energyUnit(request.accelerator));
    m_plot->setRoofline(roofline);
    m_plotBasis = m_searchedBasis; // the plot fills with this search's points
    m_controller->start(std::move(request));
    m_searchPanel->setRunning(true);
    statusBar()->showMessage(tr("Searching..."));
    refreshStaleness();
    return true;
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
    m_searchedBasis = {{}, request.accelerator, request.options};
    m_requestKeys.clear();
    for (const SearchRequest::Layer& l : request.layers)
        m_requestKeys.push_back(workloadKey(l.op));
    m_searchedOnce = true;
    m_rerunTimer->stop();
    m_searchingModel = true;
    m_mappingView->setStyleComparison({});
    if (request.layers.empty()) {
        reportError(
            tr("Cannot search the model"), tr("No layer of the model can be used: see the Status column."));
        return false;
    }
    m_model->resetResults();
    for (int row : m_modelRequestRows)
        m_model->setLayerStatus(row, tr("queued"));
    m_front.clear();
    // The layers' results fill the table; the plot shows each layer's as it finishes.
    m_plot->clear(
        tr("Searching every layer of the model...\neach layer's trade-off appears here as it finishes"));
    m_plot->setRoofline(0);
    m_plotBasis.reset();
    m_controller->start(std::move(request));
    m_searchPanel->setRunning(true);
    statusBar()->showMessage(tr("Searching every layer of the model..."));
    refreshStaleness(); // the totals too
    return true;
}

workloads::Workload MainWindow::designWorkload(bool& wholeModel)
{
    workloads::Workload workload;
    wholeModel = !m_modelName.isEmpty() && m_layer < 0;
    if (wholeModel) {
        workload.name = m_modelName.toStdString();
        for (const workloads::WorkloadLayer& l : m_model->workload().layers) {
            if (!l.ok()) continue; // listed with its error in the model view
            if (!conform::checkConformability(l.op).conformable)
                throw InputError(Diagnostic{{}, {}, l.name, "not conformable to the MDC notation"});
            workload.layers.push_back(l);
        }
        if (workload.layers.empty())
            throw InputError(Diagnostic{{}, {}, {}, "no layer of the model can be used"});
    } else {
        analyseNow();
        if (!m_analysis.report || !m_analysis.report->conformable)
            throw InputError(Diagnostic{
                {}, {}, {}, "only a conformable operator can be swept: see the rules in the Operator panel"});
        workloads::WorkloadLayer layer;
        if (m_layer >= 0) {
            layer = m_model->workload().layers[static_cast<std::size_t>(m_layer)];
            layer.repeat = 1;
        } else {
            const QString name = m_file.isEmpty() ? tr("untitled.loop") : QFileInfo(m_file).fileName();
            layer.op = ir::parseOperator(m_editor->toPlainText().toStdString(), name.toStdString());
            layer.name = layer.op.name;
        }
        workload.name = layer.name;
        workload.layers.push_back(std::move(layer));
    }
    return workload;
}

arch::Accelerator MainWindow::validAccelerator() const
{
    if (!m_accelerator->isValid())
        throw InputError(Diagnostic{
            {}, {}, "accelerator", m_accelerator->problems().join(QStringLiteral("; ")).toStdString()});
    return m_accelerator->accelerator();
}

std::vector<workloads::Workload> MainWindow::contextWorkloads(
    const sweep::ContextAxis& context, bool wholeModel) const
{
    const std::string axis = sweep::contextName(context.parameter).data();
    if (!wholeModel)
        throw InputError(Diagnostic{{}, {}, "sweep",
            "the " + axis
                + " axis varies a transformer's context: open a built-in transformer (gpt2, llama-7b, ...) "
                  "or "
                  "an ONNX model with a symbolic sequence in the model view, all layers selected"});
    std::vector<workloads::Workload> out;
    for (std::int64_t v : context.values) {
        workloads::SequenceOptions sequence;
        if (context.parameter == sweep::ContextParameter::Kv) {
            sequence.phase = workloads::Phase::Decode;
            sequence.kvLen = v;
        } else {
            sequence.seqLen = v;
        }
        // The model view's model again at this value, its layers as designWorkload() takes them.
        workloads::Workload w
            = workloads::loadWorkload(m_modelName.toStdString(), workloads::LayerErrors::Throw, sequence);
        w.name = m_modelName.toStdString();
        for (const workloads::WorkloadLayer& l : w.layers)
            if (!conform::checkConformability(l.op).conformable)
                throw InputError(Diagnostic{{}, {}, l.name, "not conformable to the MDC notation"});
        out.push_back(std::move(w));
    }
    return out;
}

bool MainWindow::runSweep()
{
    showCentre(m_sweepPanel);
    SweepRequest request;
    bool wholeModel = false;
    try {
        request.workload = designWorkload(wholeModel);
        const std::optional<sweep::ContextAxis> context = m_sweepPanel->contextAxis();
        request.grid = std::make_shared<const sweep::Grid>(validAccelerator(), m_sweepPanel->axes(), context);
        if (context) request.contextWorkloads = contextWorkloads(*context, wholeModel);
    } catch (const InputError& e) {
        m_sweepPanel->showError(QString::fromStdString(e.what()));
        return false;
    }
    request.options.search = m_searchPanel->options();
    request.options.search.objective = m_sweepPanel->objective();
    request.options.pointSearch
        = m_sweepPanel->quickSearch() ? sweep::PointSearch::Quick : sweep::PointSearch::Full;
    request.options.threads = request.options.search.threads;
    m_sweepBasis = ResultBasis{workloadKey(request.workload), request.grid->base(), request.options.search};
    m_sweepPointSearch = request.options.pointSearch;
    m_sweepGrid = request.grid;
    m_sweepOfModel = wholeModel;
    m_sweepContextModel = request.grid->context() ? m_modelName : QString();
    m_sweepController->start(std::move(request));
    m_sweepPanel->setRunning(true);
    refreshStaleness();
    return true;
}

bool MainWindow::loadDesignPoint(std::size_t index)
{
    const std::shared_ptr<const sweep::Grid> grid = m_sweepPanel->grid();
    if (!grid || index >= grid->size()) return false;
    m_accelerator->setAccelerator(grid->point(index));
    // The tuner searches the point as the sweep did, so that its figures are the cell's.
    if (m_searchPanel->options().objective != m_sweepPanel->objective()) {
        search::SearchOptions options = m_searchPanel->options();
        options.objective = m_sweepPanel->objective();
        m_searchPanel->setOptions(options);
    }
    if (grid->context()) {
        // The cell's context too: the Model panel's model at the cell's length, searched whole, so that
        // the totals are the cell's figures.
        workloads::SequenceOptions sequence;
        sequence.batch = m_sequence.batch;
        if (grid->context()->parameter == sweep::ContextParameter::Kv) {
            sequence.phase = workloads::Phase::Decode;
            sequence.kvLen = grid->contextValue(index);
        } else {
            sequence.seqLen = grid->contextValue(index);
        }
        if (!(sequence == m_sequence)) {
            m_sequence = sequence;
            if (!loadModel(m_modelName)) return false;
            markSettingsDirty(tr("model context"));
        }
        statusBar()->showMessage(
            tr("Design point %1 loaded into the accelerator panel and the model's context "
               "(%2 = %3)")
                .arg(index + 1)
                .arg(QString::fromUtf8(sweep::contextName(grid->context()->parameter).data()))
                .arg(grid->contextValue(index)),
            8000);
    } else
        statusBar()->showMessage(m_sweepPointSearch == sweep::PointSearch::Quick
                ? tr("Design point %1 loaded into the accelerator panel; the tuner runs the full search, "
                     "which "
                     "may beat the sweep's quick one")
                      .arg(index + 1)
                : tr("Design point %1 loaded into the accelerator panel").arg(index + 1),
            8000);
    return runSearch();
}

bool MainWindow::runCodesign()
{
    showCentre(m_codesignPanel);
    CodesignRequest request;
    bool wholeModel = false;
    try {
        request.workload = designWorkload(wholeModel);
        const arch::Accelerator base = validAccelerator();
        if (!base.technologyTable)
            throw InputError(Diagnostic{{}, {}, "accelerator",
                "a co-design prices designs in mm\u00b2 and mW: pick a technology table (e.g. 45nm) in the "
                "Accelerator panel's Energy per access"});
        request.grid = std::make_shared<const sweep::Grid>(base, m_codesignPanel->axes());
    } catch (const InputError& e) {
        m_codesignPanel->showError(QString::fromStdString(e.what()));
        return false;
    }
    request.options.objective = m_codesignPanel->objective();
    request.options.budget = m_codesignPanel->budget();
    request.options.seed = m_codesignPanel->seed();
    request.options.maxDesigns = m_codesignPanel->maxDesigns();
    request.options.sweep.search = m_searchPanel->options();
    request.options.sweep.search.objective = request.options.objective;
    request.options.sweep.threads = request.options.sweep.search.threads;
    m_codesignGrid = request.grid;
    m_codesignObjective = request.options.objective;
    m_codesignBasis
        = ResultBasis{workloadKey(request.workload), request.grid->base(), request.options.sweep.search};
    m_codesignOfModel = wholeModel;
    m_codesignController->start(std::move(request));
    m_codesignPanel->setRunning(true);
    refreshStaleness();
    return true;
}

bool MainWindow::loadCodesignDesign(std::size_t index)
{
    if (!m_codesignGrid || index >= m_codesignGrid->size()) return false;
    m_accelerator->setAccelerator(m_codesignGrid->point(index));
    // The tuner searches the design for the co-design's objective, so that its figures are the design's.
    if (m_searchPanel->options().objective != m_codesignObjective) {
        search::SearchOptions options = m_searchPanel->options();
        options.objective = m_codesignObjective;
        m_searchPanel->setOptions(options);
    }
    statusBar()->showMessage(tr("Co-design's design loaded into the accelerator panel"), 8000);
    return runSearch();
}

void MainWindow::cancelSearch()
{
    m_controller->cancel();
}

void MainWindow::wireSweep()
{
    m_sweepController = new SweepController(this);
    connect(m_sweepPanel, &SweepPanel::runRequested, this, &MainWindow::runSweep);
    connect(m_sweepPanel, &SweepPanel::cancelRequested, m_sweepController, &SweepController::cancel);
    connect(m_sweepController, &SweepController::started, m_sweepPanel, &SweepPanel::startGrid);
    connect(m_sweepController, &SweepController::pointsFinished, m_sweepPanel, &SweepPanel::addPoints);
    connect(m_sweepController, &SweepController::progressed, m_sweepPanel, &SweepPanel::showProgress);
    connect(m_sweepController, &SweepController::finished, m_sweepPanel, &SweepPanel::showOutcome);
    connect(m_sweepPanel, &SweepPanel::designPointActivated, this, &MainWindow::loadDesignPoint);
    connect(m_sweepPanel, &SweepPanel::objectiveChanged, this, &MainWindow::refreshStaleness);
}

void MainWindow::wireCodesign()
{
    m_codesignController = new CodesignController(this);
    connect(m_codesignPanel, &CodesignPanel::runRequested, this, &MainWindow::runCodesign);
    connect(
        m_codesignPanel, &CodesignPanel::cancelRequested, m_codesignController, &CodesignController::cancel);
    connect(m_codesignController, &CodesignController::started, m_codesignPanel, &CodesignPanel::startGrid);
    connect(m_codesignController, &CodesignController::designsEvaluated, m_codesignPanel,
        &CodesignPanel::addDesigns);
    connect(
        m_codesignController, &CodesignController::progressed, m_codesignPanel, &CodesignPanel::showProgress);
    connect(
        m_codesignController, &CodesignController::finished, m_codesignPanel, &CodesignPanel::showOutcome);
    connect(m_codesignPanel, &CodesignPanel::designActivated, this, &MainWindow::loadCodesignDesign);
}

} // namespace marvel::ui
