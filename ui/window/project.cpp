// Projects: opening one (workload, accelerator, search settings and the selected mapping), the window's
// state as a project and saving it, and exporting the selected mapping.
#include <cstring>
#include <nlohmann/json.hpp>

#include <QDir>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>

#include "core/export/timeloop.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/mdc/maestro_io.h"
#include "core/util/text_file.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"
#include "ui/model/model_table.h"
#include "ui/search/search_panel.h"

namespace marvel::ui {

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
    m_dirtyParts.clear();
    updateTitle();
    rememberRecentFile(path);
    statusBar()->showMessage(tr("Opened project %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

void MainWindow::applyProject(const project::Project& p)
{
    m_lastError.clear();
    m_selected.reset(); // of the work this project replaces
    m_accelerator->setAccelerator(p.accelerator);
    if (p.workload.kind == project::ProjectWorkload::Kind::Model) {
        m_sequence = p.workload.sequence;
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
    // Opening a project searches nothing by itself: setting its options is no retune.
    m_rerunTimer->stop();
    m_pendingSelection = p.selectedMapping;
    analyseNow();
    animateSelection(p);
    refreshStaleness(); // what the window showed before was computed for other panels
}

project::Project MainWindow::currentProject() const
{
    project::Project p;
    if (!m_modelName.isEmpty()) {
        p.workload.kind = project::ProjectWorkload::Kind::Model;
        p.workload.model = m_modelName.toStdString();
        if (m_contextBox->isVisibleTo(m_contextBox->parentWidget())) p.workload.sequence = m_sequence;
        if (m_layer >= 0)
            p.workload.layer = m_model->workload().layers[static_cast<std::size_t>(m_layer)].name;
    } else {
        p.workload.kind = project::ProjectWorkload::Kind::Operator;
        p.workload.text = m_editor->toPlainText().toStdString();
        p.workload.file = m_file.toStdString();
    }
    p.accelerator = m_accelerator->accelerator();
    p.search = m_searchPanel->options();
    // The selected mapping of this workload: the one selected from its search, else the opened project's
    // own until a search finds it (a selection of another operator or layer is not this one's).
    if (m_modelName.isEmpty() || m_layer >= 0) {
        if (m_selected && m_shownBasis.workload == currentWorkloadKey())
            p.selectedMapping = project::SelectedMapping{p.workload.layer, m_selected->mapping};
        else if (m_pendingSelection)
            p.selectedMapping = project::SelectedMapping{p.workload.layer, m_pendingSelection->mapping};
    }
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
    m_dirtyParts.clear();
    m_editor->document()->setModified(false);
    updateTitle();
    rememberRecentFile(path);
    autosaveNow();
    statusBar()->showMessage(tr("Saved project %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

namespace {

/// Each MappingFormat's suffix, in its order.
const char* const kMappingSuffixes[] = {".m", ".json", ".txt", ".timeloop"};

} // namespace

QStringList MainWindow::mappingExportFilters()
{
    return {tr("MAESTRO mapping (*.m)"), tr("Mapping JSON (*.json)"), tr("Tiled loop nest (*.txt)"),
        tr("Timeloop input folder: problem, arch, map, ert .yaml (*.timeloop)")};
}

std::pair<QString, MainWindow::MappingFormat> MainWindow::mappingExportTarget(
    const QString& path, const QString& filter)
{
    const QStringList filters = mappingExportFilters();
    int index = int(filters.indexOf(filter));
    if (index < 0) // a filter of another wording: by the suffix it names
        for (int i = 0; i < int(filters.size()); ++i)
            if (filter.contains(QStringLiteral("*") + QLatin1String(kMappingSuffixes[i]) + ')')) index = i;
    if (index < 0) index = int(MappingFormat::LoopNest);
    const QString suffix = QLatin1String(kMappingSuffixes[index]);
    QString target = path;
    if (!target.endsWith(suffix, Qt::CaseInsensitive)) {
        // A name ending in another format's suffix takes this one instead (best.json as Timeloop input:
        // best.timeloop), any other name keeps what it has (a dot in a name is not a suffix of ours).
        for (const char* other : kMappingSuffixes)
            if (target.endsWith(QLatin1String(other), Qt::CaseInsensitive)) {
                target.chop(int(std::strlen(other)));
                break;
            }
        target += suffix;
    }
    return {target, MappingFormat(index)};
}

bool MainWindow::exportMapping(const QString& path)
{
    MappingFormat format = MappingFormat::LoopNest;
    for (int i = 0; i < int(std::size(kMappingSuffixes)); ++i)
        if (path.endsWith(QLatin1String(kMappingSuffixes[i]), Qt::CaseInsensitive)) format = MappingFormat(i);
    return exportMapping(path, format);
}

bool MainWindow::exportMapping(const QString& path, MappingFormat format)
{
    if (!m_selected || !m_lastResult) {
        reportError(tr("Nothing to export"), tr("Run a search and select a mapping first."));
        return false;
    }
    // A Timeloop export is a folder of four YAML files: the path without its .timeloop suffix.
    if (format == MappingFormat::Timeloop) {
        QString dir = path;
        if (dir.endsWith(QStringLiteral(".timeloop"), Qt::CaseInsensitive))
            dir.chop(int(std::strlen(".timeloop")));
        const std::string name = m_lastResult->space.name.empty() ? "layer" : m_lastResult->space.name;
        const timeloop::Export e = timeloop::translateMdc(name, m_lastResult->problem,
            search::outputRowDataflow(*m_selected, m_shownBasis.accelerator), m_shownBasis.accelerator);
        if (!e.ok()) {
            reportError(tr("Timeloop cannot express this mapping"),
                QString::fromStdString(e.reason)
                    + tr("\n\nTick \"Timeloop only\" in the Search panel to search only mappings Timeloop "
                         "can express (marvel search --timeloop-compatible)."));
            return false;
        }
        try {
            timeloop::writeFiles(e, dir.toStdString());
        } catch (const InputError& err) {
            reportError(tr("Export failed"), QString::fromStdString(err.what()));
            return false;
        }
        statusBar()->showMessage(
            tr("Exported the mapping as Timeloop input to %1 (problem, arch, map and ert "
               ".yaml; %2 PEs): timeloop-model arch.yaml problem.yaml map.yaml ert.yaml")
                .arg(QDir::toNativeSeparators(dir))
                .arg(e.mapping->pesUsed()),
            15000);
        return true;
    }
    try {
        std::string text;
        if (format == MappingFormat::Maestro) {
            const std::string name = m_lastResult->space.name.empty() ? "layer" : m_lastResult->space.name;
            text = cost::maestroMappingFile(
                name, {{name, &m_lastResult->problem, &m_selected->dataflow}}, path.toStdString());
        } else if (format == MappingFormat::Json) {
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

} // namespace marvel::ui
