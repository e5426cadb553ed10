// What each view's figures were computed for, against the panels' state now: after any change of the
// accelerator, the search settings or the workload, every view computed otherwise says it is stale
// until it is computed again (the search re-runs after the pause; a sweep when asked).
#include <QTimer>

#include "core/ir/parser.h"
#include "core/sweep/sweep.h"
#include "core/tech/technology.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
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
}

QString MainWindow::sweepChange() const
{
    if (!m_sweepBasis || !m_sweepGrid) return {};
    ResultBasis now;
    // The workload swept: a model's sweep describes the model whichever layer is picked since (a design
    // point's search picks the first); a layer's or an operator's, the one the Sweep tab would sweep now.
    workloads::Workload workload;
    if (m_sweepOfModel) {
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
    now.options.objective = m_sweepPanel->objective();
    // A design point loaded from the sweep differs from its base in the swept parameters alone: those
    // leave the sweep current.
    now.accelerator = m_accelerator->accelerator();
    const sweep::Parameters base = sweep::parametersOf(m_sweepGrid->base());
    for (const sweep::Axis& axis : m_sweepGrid->axes())
        sweep::setParameter(now.accelerator, axis.parameter, base[std::size_t(axis.parameter)]);
    tech::applyTechnology(now.accelerator); // a table's energies follow the sizes set back

    QString change = basisChange(*m_sweepBasis, now);
    const sweep::PointSearch pointSearch
        = m_sweepPanel->quickSearch() ? sweep::PointSearch::Quick : sweep::PointSearch::Full;
    if (pointSearch != m_sweepPointSearch)
        change
            = change.isEmpty() ? tr("the Quick search box") : tr("%1 and the Quick search box").arg(change);
    return change;
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
