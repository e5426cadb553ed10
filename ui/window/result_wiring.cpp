// Where a search's results go: the search controller's signals into the plot, the model table, the
// selected mapping (the mapping view and the animation) and the styles' comparison.
#include <algorithm>
#include <nlohmann/json.hpp>

#include <QShortcut>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>

#include "core/mapping/loop_nest_mapping.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_controller.h"
#include "ui/search/search_panel.h"

namespace marvel::ui {

namespace {
/// As the accelerator panel's pause: changing a setting with the arrow keys searches once at the end.
constexpr int kRerunDelayMs = 300;
} // namespace

void MainWindow::wireSearch()
{
    m_controller = new SearchController(this);
    connect(m_searchPanel, &SearchPanel::runRequested, this, &MainWindow::runSearch);
    connect(m_searchPanel, &SearchPanel::cancelRequested, this, &MainWindow::cancelSearch);
    connect(m_accelerator, &AcceleratorPanel::edited, this, [this] { markSettingsDirty(tr("accelerator")); });
    connect(m_searchPanel, &SearchPanel::optionsChanged, this,
        [this] { markSettingsDirty(tr("search settings")); });
    // Every change marks what it outdates at once; the search runs again after the pause.
    connect(m_accelerator, &AcceleratorPanel::edited, this, &MainWindow::refreshStaleness);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &MainWindow::refreshStaleness);
    connect(m_searchPanel, &SearchPanel::optionsChanged, this, &MainWindow::onSearchSettingsChanged);
    connect(m_accelerator, &AcceleratorPanel::acceleratorChanged, this, [this] {
        // Retuning: an architect changes a parameter and watches the front move.
        if (m_searchedOnce) runSearch();
    });
    m_rerunTimer = new QTimer(this);
    m_rerunTimer->setSingleShot(true);
    m_rerunTimer->setInterval(kRerunDelayMs);
    connect(m_rerunTimer, &QTimer::timeout, this, [this] {
        if (m_searchedOnce) runSearch();
    });
    connect(m_controller, &SearchController::pointsAdded, m_plot,
        [this](const std::vector<search::EvaluatedPoint>& points) {
            if (!m_searchingModel) m_plot->addPoints(points);
        });
    // A model's layers keep their clouds, so that each layer's plot shows its evaluated mappings later.
    connect(m_controller, &SearchController::layerPointsAdded, this,
        [this](int index, std::span<const search::EvaluatedPoint> points) {
            m_model->addLayerPoints(resultRow(index), points);
        });
    connect(m_controller, &SearchController::frontChanged, this,
        [this](const std::vector<search::Candidate>& front) {
            // A model search's layers go to the table; the plot shows the picked layer's when it is done.
            if (m_searchingModel) return;
            m_front = front;
            m_plot->setFront(front);
        });
    connect(m_controller, &SearchController::progressed, m_searchPanel, &SearchPanel::showProgress);
    connect(m_controller, &SearchController::layerFinished, this,
        [this](int index, std::shared_ptr<const search::LayerSearchResult> result) {
            const int row = resultRow(index);
            ResultBasis basis = m_searchedBasis;
            if (index >= 0 && index < int(m_requestKeys.size()))
                basis.workload = m_requestKeys[std::size_t(index)];
            if (row >= 0) {
                m_model->setLayerResult(row, result, basis);
                updateModelTotals();
                // Columns sized for empty cells would elide the first numbers.
                for (int c = ModelTableModel::Runtime; c <= ModelTableModel::OverRoofline; ++c)
                    m_modelView->resizeColumnToContents(c);
            }
            if (!m_searchingModel || row == m_layer)
                showLayerResult(result, basis, row >= 0 ? m_model->rooflineCycles(row) : m_searchedRoofline,
                    m_searchingModel ? row : -1);
        });
    connect(m_controller, &SearchController::stylesFinished, this,
        [this](int index, std::shared_ptr<const StyleResults> results) {
            const int row = resultRow(index);
            if (row >= 0) {
                m_model->setLayerStyles(row, results);
                for (int c = ModelTableModel::FirstStyle; c <= ModelTableModel::LastStyle; ++c)
                    m_modelView->resizeColumnToContents(c);
            }
            if (!m_searchingModel || row == m_layer) showStyles(*results);
        });
    connect(m_controller, &SearchController::finished, this, &MainWindow::onSearchFinished);
    connect(m_plot, &ParetoPlot::frontPointClicked, this, &MainWindow::selectCandidate);

    auto* run = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_R), this);
    connect(run, &QShortcut::activated, this, &MainWindow::runSearch);
    auto* cancel = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(cancel, &QShortcut::activated, this, &MainWindow::cancelSearch);
}

int MainWindow::resultRow(int index) const
{
    if (!m_searchingModel) return m_layer;
    return index >= 0 && index < int(m_modelRequestRows.size()) ? m_modelRequestRows[std::size_t(index)] : -1;
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

void MainWindow::showLayerResult(const std::shared_ptr<const search::LayerSearchResult>& result,
    const ResultBasis& basis, std::int64_t roofline, int cloudRow)
{
    m_lastResult = result;
    m_shownBasis = basis;
    m_roofline = roofline;
    const search::SearchResult& r = result->result;
    m_front = r.pareto;
    if (m_searchingModel) m_plot->clear();
    if (cloudRow >= 0) m_plot->addPoints(m_model->layerPoints(cloudRow));
    m_plot->setClockMhz(basis.accelerator.clockMHz);
    m_plot->setEnergyUnit(energyUnit(basis.accelerator));
    m_plot->setRoofline(roofline);
    m_plot->setFront(m_front);
    m_plotBasis = basis;
    m_plot->setBest(r.bestRuntime, r.bestEnergy, r.bestEdp);
    m_plot->setLayerName(QString::fromStdString(result->space.name.empty() ? "layer" : result->space.name));
    if (const auto& b = r.best(basis.options.objective)) showCandidate(*b);
    // A project's saved selection is shown again when the search finds the same mapping.
    if (m_pendingSelection)
        for (const search::Candidate& c : r.pareto)
            if (mapping::toJson(c.mapping) == mapping::toJson(m_pendingSelection->mapping)) showCandidate(c);
    m_pendingSelection.reset();
    refreshStaleness();
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
    // On the accelerator and in the fidelity the result was searched with, whatever the panels say now.
    const arch::Accelerator& acc = m_shownBasis.accelerator;
    m_mappingView->setMapping(candidate, m_lastResult->problem, m_lastResult->space.body, acc,
        m_shownBasis.options.fidelity, m_roofline);
    m_mappingBasis = m_shownBasis;
    m_animation->setMapping(
        {tr("%1, the selected mapping on %2")
                .arg(QString::fromStdString(m_lastResult->problem.name), QString::fromStdString(acc.name)),
            m_lastResult->problem, candidate.dataflow, acc});
    // The simulation and both fidelities' cycles of this mapping depend on the accelerator alone.
    m_animationBasis = m_shownBasis;
    m_animationParts = WorkloadPart | AcceleratorPart;
    refreshStaleness();
}

} // namespace marvel::ui
