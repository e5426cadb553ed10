// What each view's figures were computed for, against the panels' state now: after any change of the
// accelerator, the search settings or the workload, every view computed otherwise says it is stale
// until it is computed again (the search re-runs after the pause; a sweep when asked).
#include <QTimer>

#include "core/ir/parser.h"
#include "core/sweep/sweep.h"
#include "core/tech/technology.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/codesign/codesign_panel.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_panel.h"

namespace marvel::ui {

std::string MainWindow::currentWorkloadKey() const
{
    if (m_layer >= 0 && static_cast<std::size_t>(m_layer) < m_model->workload().layers.size())
        return workloadKey(m_model->workload().layers[static_cast<std::size_t>(m_layer)].op);
    if (!m_modelName.isEmpty()) return "model " + m_modelName.toStdString();
    try {
        return workloadKey(ir::parseOperator(m_editor->toPlainText().toStdString(), "editor"));
    } catch (const InputError&) {
        return "unparsed " + m_editor->toPlainText().toStdString();
    }
}

ResultBasis MainWindow::currentBasis() const
{
    return {currentWorkloadKey(), m_accelerator->accelerator(), m_searchPanel->options()};
}

void MainWindow::refreshStaleness()
{
    const ResultBasis now = currentBasis();
    m_plot->setStale(m_plotBasis ? basisChange(*m_plotBasis, now) : QString());
    m_mappingView->setStale(m_mappingBasis ? basisChange(*m_mappingBasis, now) : QString());
    m_animation->setStale(
        m_animationBasis ? basisChange(*m_animationBasis, now, m_animationParts) : QString());
    m_model->setCurrent(now.accelerator, now.options);
    updateModelTotals();
    m_sweepPanel->setStale(sweepChange());
    m_codesignPanel->setStale(codesignChange());
}

QString MainWindow::designStudyChange(
    const ResultBasis& basis, const sweep::Grid& grid, bool ofModel, search::Objective objective) const
{
    ResultBasis now;
    // The workload studied: a model's study describes the model whichever layer is picked since (a design
    // point's search picks the first); a layer's or an operator's, the one the tab would take now.
    workloads::Workload workload;
    if (ofModel && grid.context() && !m_sweepContextModel.isEmpty() && m_modelName == m_sweepContextModel) {
        // A sweep over the context studied this model at every length: another length (a cell's) leaves it
        // current.
        now.workload = basis.workload;
    } else if (ofModel) {
        for (const workloads::WorkloadLayer& l : m_model->workload().layers)
            if (l.ok()) workload.layers.push_back(l);
        now.workload = workloadKey(workload);
    } else {
        workloads::WorkloadLayer layer;
        if (m_layer >= 0) {
            layer = m_model->workload().layers[static_cast<std::size_t>(m_layer)];
            layer.repeat = 1;
            workload.layers.push_back(std::move(layer));
            now.workload = workloadKey(workload);
        } else {
            try {
                layer.op = ir::parseOperator(m_editor->toPlainText().toStdString(), "editor");
                workload.layers.push_back(std::move(layer));
                now.workload = workloadKey(workload);
            } catch (const InputError&) {
                now.workload = "unparsed";
            }
        }
    }
    now.options = m_searchPanel->options();
    now.options.objective = objective;
    // A design loaded from the grid differs from its base in the varied parameters alone: those leave the
    // study current.
    now.accelerator = m_accelerator->accelerator();
    const sweep::Parameters base = sweep::parametersOf(grid.base());
    for (const sweep::Axis& axis : grid.axes())
        sweep::setParameter(now.accelerator, axis.parameter, base[std::size_t(axis.parameter)]);
    tech::applyTechnology(now.accelerator); // a table's energies follow the sizes set back
    return basisChange(basis, now);
}

QString MainWindow::sweepChange() const
{
    if (!m_sweepBasis || !m_sweepGrid) return {};
    QString change
        = designStudyChange(*m_sweepBasis, *m_sweepGrid, m_sweepOfModel, m_sweepPanel->objective());
    const sweep::PointSearch pointSearch
        = m_sweepPanel->quickSearch() ? sweep::PointSearch::Quick : sweep::PointSearch::Full;
    if (pointSearch != m_sweepPointSearch)
        change
            = change.isEmpty() ? tr("the Quick search box") : tr("%1 and the Quick search box").arg(change);
    return change;
}

QString MainWindow::codesignChange() const
{
    if (!m_codesignBasis || !m_codesignGrid) return {};
    return designStudyChange(*m_codesignBasis, *m_codesignGrid, m_codesignOfModel, m_codesignObjective);
}

void MainWindow::onSearchSettingsChanged()
{
    refreshStaleness();
    // Only settings that change what a search finds search again (not the thread count).
    if (m_searchedOnce && !sameResultOptions(m_searchedBasis.options, m_searchPanel->options()))
        m_rerunTimer->start();
    else
        m_rerunTimer->stop();
}

} // namespace marvel::ui
