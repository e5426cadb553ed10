// The Model panel: a built-in or file model's layers in a table that fills as they are searched, its
// totals, and picking a layer to show its loop nest, plot and mapping.
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

#include "core/tech/technology.h"
#include "core/workloads/transformer_models.h"
#include "core/workloads/workloads.h"
#include "importers/onnx/onnx_import.h"
#include "ui/accelerator/accelerator_panel.h"
#include "ui/animation/animation_panel.h"
#include "ui/editor/code_editor.h"
#include "ui/main_window.h"
#include "ui/model/model_table.h"
#include "ui/plot/pareto_plot.h"
#include "ui/search/search_panel.h"
#include "ui/widgets/elided_label.h"

namespace marvel::ui {

QWidget* MainWindow::buildModelPanel()
{
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    m_modelCombo = new QComboBox;
    // A long model file name must not widen the panel: the list shows it whole, the box elides it.
    m_modelCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_modelCombo->setMinimumContentsLength(16);
    m_modelCombo->addItem(tr("(none: the operator in the editor)"), QString());
    for (const std::string& name : workloads::builtinWorkloadNames())
        m_modelCombo->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_modelCombo->setToolTip(tr("A built-in model: its layers fill the table below"));
    connect(m_modelCombo, &QComboBox::activated, this, [this](int i) {
        const QString name = m_modelCombo->itemData(i).toString();
        m_sequence = {}; // another model: its own default context
        if (name.isEmpty()) {
            loadModel({});
        } else {
            loadModel(name);
        }
        markSettingsDirty(tr("model"));
    });
    auto* open = new QPushButton(tr("Open model file..."));
    open->setToolTip(tr("An ONNX model (.onnx), a MAESTRO model file (.m) or a JSON model; or drop one on "
                        "the window"));
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open model"), {}, tr("Models (*.onnx *.m *.json);;All files (*)"));
        if (path.isEmpty()) return;
        m_sequence = {}; // another model: its own default context
        if (loadModel(path)) markSettingsDirty(tr("model"));
    });
    auto* searchAll = new QPushButton(tr("Search whole model"));
    searchAll->setToolTip(tr("Search every layer in the background; the table fills layer by layer"));
    connect(searchAll, &QPushButton::clicked, this, &MainWindow::searchModel);
    // A transformer's context: prefill of N tokens, or one decode step attending to N cached tokens.
    m_contextBox = new QWidget;
    auto* context = new QHBoxLayout(m_contextBox);
    context->setContentsMargins(0, 0, 0, 0);
    m_phaseCombo = new QComboBox;
    m_phaseCombo->setObjectName(QStringLiteral("phase"));
    m_phaseCombo->addItem(tr("prefill"), int(workloads::Phase::Prefill));
    m_phaseCombo->addItem(tr("decode"), int(workloads::Phase::Decode));
    m_phaseCombo->setToolTip(tr("Prefill: the whole prompt at once, N tokens per sequence. Decode: one new "
                                "token per sequence attending to N cached tokens (the KV cache read from "
                                "DRAM each step: decode is bound by DRAM)."));
    m_tokensSpin = new QSpinBox;
    m_tokensSpin->setObjectName(QStringLiteral("tokens"));
    m_tokensSpin->setRange(1, 1 << 20);
    m_tokensSpin->setSuffix(tr(" tokens"));
    m_tokensSpin->setGroupSeparatorShown(true);
    m_tokensSpin->setKeyboardTracking(false); // one reload when the number is typed, not per digit
    m_tokensSpin->setToolTip(tr("Prefill: the sequence length (--seq-len). Decode: the tokens in the KV "
                                "cache the new token attends to (--kv-len)."));
    auto applyContext = [this] {
        const auto phase = workloads::Phase(m_phaseCombo->currentData().toInt());
        workloads::SequenceOptions s;
        s.batch = m_sequence.batch;
        s.phase = phase;
        (phase == workloads::Phase::Decode ? s.kvLen : s.seqLen) = m_tokensSpin->value();
        if (s == m_sequence || m_modelName.isEmpty()) return;
        const workloads::SequenceOptions before = m_sequence;
        m_sequence = s;
        if (loadModel(m_modelName))
            markSettingsDirty(tr("model context"));
        else
            m_sequence = before; // the model refused it (said why): the controls go back
        showContext(m_modelName);
    };
    connect(m_phaseCombo, &QComboBox::activated, this, applyContext);
    connect(m_tokensSpin, &QSpinBox::valueChanged, this, applyContext);
    context->addWidget(m_phaseCombo);
    context->addWidget(m_tokensSpin);
    m_contextBox->setVisible(false);
    m_modelTotals = new QLabel;
    // Long totals wrap instead of widening the window beyond the screen.
    m_modelTotals->setWordWrap(true);
    m_modelTotals->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    row->addWidget(new QLabel(tr("Model")));
    row->addWidget(m_modelCombo, 1);
    row->addWidget(open);
    row->addWidget(m_contextBox);
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
    // A header that changes its text (Energy gains its unit under a technology table) keeps it in view.
    connect(
        m_model, &QAbstractItemModel::headerDataChanged, this, [this](Qt::Orientation, int first, int last) {
            for (int c = first; c <= last; ++c)
                m_modelView->resizeColumnToContents(c);
        });
    layout->addWidget(m_modelView);
    return panel;
}

bool MainWindow::loadModel(const QString& nameOrPath)
{
    if (nameOrPath.isEmpty()) {
        m_model->setWorkload({});
        m_modelName.clear();
        selectLayer(-1);
        m_modelCombo->setCurrentIndex(0);
        m_sequence = {};
        showContext({});
        updateModelTotals();
        return true;
    }
    workloads::Workload w;
    try {
        // A bad layer does not hide the good ones: it is listed with its error and left out of searches.
        const bool onnx = nameOrPath.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive);
        const bool transformer = workloads::findTransformerConfig(nameOrPath.toStdString()).has_value();
        workloads::SequenceOptions sequence = onnx || transformer ? m_sequence : workloads::SequenceOptions{};
        // An ONNX graph's symbolic sequence has no default: the context's tokens (128 to start with).
        if (onnx && sequence.phase == workloads::Phase::Prefill && !sequence.seqLen)
            sequence.seqLen = m_tokensSpin->value() > 1 ? m_tokensSpin->value() : 128;
        w = workloads::loadWorkload(nameOrPath.toStdString(), workloads::LayerErrors::Keep, sequence);
    } catch (const InputError& e) {
        reportError(tr("Cannot open model"), QString::fromStdString(e.what()).trimmed());
        return false;
    }
    m_modelName = nameOrPath;
    showContext(nameOrPath);
    const int i = m_modelCombo->findData(nameOrPath);
    if (i >= 0) {
        m_modelCombo->setCurrentIndex(i);
    } else {
        m_modelCombo->addItem(QFileInfo(nameOrPath).fileName(), nameOrPath);
        m_modelCombo->setCurrentIndex(m_modelCombo->count() - 1);
    }
    // What an imported graph left out (never dropped silently): the status bar says how much, the
    // totals' tooltip lists the nodes by op type.
    const QString imported = w.notMapped.empty() && w.notes.empty()
        ? QString()
        : QString::fromStdString(onnx_import::formatImportSummary(w, false)).trimmed();
    m_model->setWorkload(std::move(w));
    m_modelView->resizeColumnsToContents();
    // The animation was of another workload's mapping (perhaps its error): it starts afresh.
    m_animation->clear();
    m_animationBasis.reset();
    selectLayer(-1);
    updateModelTotals();
    if (!imported.isEmpty()) {
        statusBar()->showMessage(
            tr("%1: %2").arg(QFileInfo(nameOrPath).fileName(), imported.section('\n', 0, 0)));
    }
    for (QDockWidget* d : m_docks)
        if (d->objectName() == QLatin1String("model")) d->raise();
    return true;
}

void MainWindow::selectLayer(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        const bool showedModel = m_layer >= 0 || !m_modelName.isEmpty();
        // Before the editor changes: its change signals ask for the current layer, which the workload
        // may no longer have.
        m_layer = -1;
        if (showedModel) {
            // The whole model is the workload: no single operator to edit.
            m_editor->setPlainText(m_modelName.isEmpty()
                    ? QString()
                    : tr("// Model %1: Ctrl+R searches every layer; pick a layer in the Model panel to see "
                         "its loop nest, plot and mapping.")
                          .arg(QFileInfo(m_modelName).fileName()));
            m_editor->document()->setModified(false);
        }
        m_editor->setReadOnly(!m_modelName.isEmpty());
        m_layerBanner->setVisible(false);
        m_editCopy->setVisible(false);
        analyseNow(); // the verdict and the DDG stop describing the layer shown before
        refreshStaleness(); // what is shown was computed for another workload
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
    const QString layerName = QString::fromStdString(layer.name);
    m_layerBanner->setFullText(
        tr("Layer %1 of model %2 (read-only)").arg(layerName, QFileInfo(m_modelName).fileName()), layerName);
    m_layerBanner->setVisible(true);
    m_editCopy->setVisible(true);
    analyseNow();
    if (auto result = m_model->layerResult(row)) {
        // As it was searched (on its accelerator, with its settings); stale if those have changed since.
        m_plot->clear();
        showLayerResult(result, *m_model->layerBasis(row), m_model->rooflineCycles(row), row);
        if (auto styles = m_model->layerStyles(row)) showStyles(*styles);
    }
    refreshStaleness();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile()) {
        const QString suffix = QFileInfo(urls.first().toLocalFile()).suffix().toLower();
        if (suffix == "onnx" || suffix == "m" || suffix == "json" || suffix == "loop")
            event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() != 1 || !urls.first().isLocalFile()) return;
    const QString path = urls.first().toLocalFile();
    const QString suffix = QFileInfo(path).suffix().toLower();
    event->acceptProposedAction();
    if (suffix == "onnx" || suffix == "m") {
        m_sequence = {};
        if (loadModel(path)) markSettingsDirty(tr("model"));
    } else {
        openFile(path);
    }
}

void MainWindow::updateModelTotals()
{
    if (m_model->rowCount() == 0) {
        m_modelTotals->setText(tr("Pick a model to map it layer by layer."));
        return;
    }
    // An imported graph's not-mapped nodes, listed by op type in the tooltip.
    const workloads::Workload& workload = m_model->workload();
    const QString imported = workload.notMapped.empty()
        ? QString()
        : QString::fromStdString(onnx_import::formatImportSummary(workload, false)).trimmed();
    const int searched = m_model->searchedLayers();
    // Before and after a search alike: what the totals leave out is said where they are.
    const QString left = imported.isEmpty() ? QString()
                                            : tr("; %n node(s) of the graph not mapped (hover for the list)",
                                                nullptr, int(workload.notMapped.size()));
    if (searched == 0) {
        m_modelTotals->setText(tr("%n layer(s); not searched yet", nullptr, m_model->rowCount()) + left);
        m_modelTotals->setToolTip(imported);
        return;
    }
    const double ratio = m_model->totalRoofline() > 0
        ? static_cast<double>(m_model->totalRuntime()) / static_cast<double>(m_model->totalRoofline())
        : 0.0;
    // Under a technology table the energy reads in pJ-µJ-mJ; otherwise it says its unit.
    const arch::Accelerator& acc = m_model->currentAccelerator();
    const QString energy = tech::physicalUnits(acc)
        ? QString::fromStdString(
            tech::formatPicojoules(m_model->totalEnergy() * acc.energy.macEnergyNanojoule * 1e3))
        : tr("%1 MAC units").arg(m_model->totalEnergy(), 0, 'g', 4);
    QString totals = tr("%1 of %2 layers: %L3 cycles, energy %4, %5\u00d7 the roofline")
                         .arg(searched)
                         .arg(m_model->rowCount())
                         .arg(qlonglong(m_model->totalRuntime()))
                         .arg(energy)
                         .arg(ratio, 0, 'f', 3);
    if (const int below = m_model->layersBelowRoofline(); below > 0)
        totals += tr("; %n below their roofline (marked !)", nullptr, below);
    // A model of several kinds (a transformer's attention, softmax, norms...) says where its cycles go.
    if (const auto byKind = m_model->runtimeByKind(); byKind.size() > 1 && m_model->totalRuntime() > 0) {
        QStringList shares;
        for (const auto& [kind, cycles] : byKind)
            shares << tr("%1 %2%")
                          .arg(QString::fromLatin1(workloads::toString(kind)))
                          .arg(100.0 * double(cycles) / double(m_model->totalRuntime()), 0, 'f', 1);
        totals += tr("; cycles by kind: %1").arg(shares.join(QStringLiteral(", ")));
    }
    if (!imported.isEmpty())
        totals += tr("; not in these totals: %n node(s) of the graph not mapped (hover for the list)",
            nullptr, int(workload.notMapped.size()));
    const int stale = m_model->staleLayers();
    if (stale == 0) {
        m_modelTotals->setText(totals);
        m_modelTotals->setToolTip(imported);
        return;
    }
    // Sums over layers searched on different accelerators or settings describe no design: greyed.
    QString change;
    for (int row = 0; row < m_model->rowCount() && change.isEmpty(); ++row)
        change = m_model->staleChange(row);
    const QString note = stale == searched
        ? staleText(change)
        : tr("Stale: %1 of the %2 layers were searched before %3 changed; Search whole model updates them.")
              .arg(stale)
              .arg(searched)
              .arg(change);
    m_modelTotals->setText(
        QStringLiteral("<span style='color:%1'>%2</span> <span style='color:%3'><b>%4</b></span>")
            .arg(QLatin1String(kStaleGrey), totals, QLatin1String(kStaleNote), note));
    m_modelTotals->setToolTip(imported.isEmpty() ? note : note + QStringLiteral("\n\n") + imported);
}

void MainWindow::showContext(const QString& nameOrPath)
{
    const auto config = workloads::findTransformerConfig(nameOrPath.toStdString());
    const bool onnx = nameOrPath.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive);
    m_contextBox->setVisible(config.has_value() || onnx);
    if (!config && !onnx) return;
    // What the model was loaded with: the context set, else its default length.
    const bool decode = m_sequence.phase == workloads::Phase::Decode;
    const std::int64_t fallback = config ? config->defaultSeqLen : 128;
    const std::int64_t tokens
        = decode ? m_sequence.kvLen.value_or(fallback) : m_sequence.seqLen.value_or(fallback);
    const QSignalBlocker blockPhase(m_phaseCombo), blockTokens(m_tokensSpin);
    m_phaseCombo->setCurrentIndex(decode ? 1 : 0);
    m_tokensSpin->setValue(int(std::min<std::int64_t>(tokens, m_tokensSpin->maximum())));
}

} // namespace marvel::ui
