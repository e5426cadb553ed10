// What the Animation tab shows besides a search's selected mapping: a project's saved mapping (before
// any search) and a layer of a MAESTRO mapping file, each on the accelerator it names.
#include <QDir>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

#include "core/ir/parser.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/mdc/maestro_io.h"
#include "core/search/roofline.h"
#include "core/sim/simulator.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/main_window.h"
#include "ui/mapping/mapping_view.h"
#include "ui/model/model_table.h"
#include "ui/search/result_basis.h"
#include "ui/search/search_panel.h"

namespace marvel::ui {

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
        // The file's layer and mapping whatever the editor holds: only the accelerator can outdate it.
        m_animationBasis = ResultBasis{{}, acc, {}};
        m_animationParts = AcceleratorPart;
        refreshStaleness();
        showCentre(m_animation);
        statusBar()->showMessage(tr("Animating %1").arg(QDir::toNativeSeparators(path)), 4000);
        return true;
    } catch (const InputError& e) {
        m_animation->clear(QString::fromStdString(e.what()));
        showCentre(m_animation);
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
        // The cost panel reads the mapping in the project's fidelity; the simulator reads strided tiles as
        // output rows, as corrected fidelity does.
        const mdc::Dataflow dataflow = mapping::toMdc(
            p.selectedMapping->mapping, p.accelerator, search::stridedTiles(p.search.fidelity));
        const mdc::Dataflow simulated
            = mapping::toMdc(p.selectedMapping->mapping, p.accelerator, mapping::StridedTiles::Outputs);
        const cost::Problem problem = cost::fromOperator(op);
        // The mapping view shows the saved mapping too (evaluated again by the cost model).
        // The panels hold the project's settings now (as their fields show them).
        const ResultBasis basis{workloadKey(op), p.accelerator, m_searchPanel->options()};
        if (const auto nest = ir::perfectNest(op); nest && !nest->statements.empty()) {
            search::Candidate saved;
            saved.mapping = p.selectedMapping->mapping;
            saved.dataflow = dataflow;
            m_mappingView->setMapping(saved, problem, nest->statements.front().text, p.accelerator,
                p.search.fidelity, search::roofline(*nest, op.sizes, p.accelerator).cycles);
            m_mappingBasis = basis;
        }
        // A real layer is too large to animate: the project opens on its plot, and the Animation tab
        // offers the shrunken copy when the user goes there.
        bool animatable = true;
        try {
            sim::Simulator::check(problem, simulated, p.accelerator);
        } catch (const InputError&) {
            animatable = false;
        }
        m_animation->setMapping(
            {tr("%1, the project's mapping on %2")
                    .arg(QString::fromStdString(op.name), QString::fromStdString(p.accelerator.name)),
                problem, simulated, p.accelerator});
        m_animationBasis = basis;
        m_animationParts = WorkloadPart | AcceleratorPart;
        if (animatable) showCentre(m_animation);
    } catch (const InputError& e) {
        m_animation->clear(QString::fromStdString(e.what()));
    }
}

} // namespace marvel::ui
