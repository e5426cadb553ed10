#include "ui/animation/animation_panel.h"

#include <cmath>

#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSlider>
#include <QSplitter>
#include <QStyle>
#include <QSvgGenerator>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/mdc/maestro_io.h"
#include "ui/animation/delay_strip.h"
#include "ui/animation/pe_array_view.h"
#include "ui/search/result_basis.h"

namespace marvel::ui {

AnimationPanel::AnimationPanel(QWidget* parent)
    : QWidget(parent)
{
    m_controller = new SimulationController(this);
    connect(m_controller, &SimulationController::loaded, this, &AnimationPanel::onLoaded);
    connect(
        m_controller, &SimulationController::windowReady, this, [this](std::shared_ptr<const FrameWindow> w) {
            m_window = std::move(w);
            showCurrent();
        });
    connect(m_controller, &SimulationController::failed, this, [this](const QString& message) {
        if (m_summary && m_fromEditor) {
            // Directives typed in the editor that do not map the layer: keep the animation, say why.
            m_progress->hide();
            m_editorMessage->setText(message);
            m_loadingNew = false;
            showTotals();
            return;
        }
        clear(message);
        // The simulator says what to shrink; the copy is one click away.
        m_shrink->setVisible(
            m_request && !m_request->shrinkToFit && message.contains(QLatin1String("too large to simulate")));
    });

    m_title = new QLabel;
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_title->setTextFormat(Qt::RichText);
    auto toolButton = [this](QStyle::StandardPixmap icon, const QString& tip) {
        auto* b = new QToolButton;
        b->setIcon(style()->standardIcon(icon));
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    m_back = toolButton(QStyle::SP_MediaSeekBackward, tr("Previous step (Left)"));
    m_play = toolButton(QStyle::SP_MediaPlay, tr("Play / pause (Space)"));
    m_forward = toolButton(QStyle::SP_MediaSeekForward, tr("Next step (Right)"));
    connect(m_back, &QToolButton::clicked, this, &AnimationPanel::stepBack);
    connect(m_forward, &QToolButton::clicked, this, &AnimationPanel::stepForward);
    connect(m_play, &QToolButton::clicked, this, [this] { isPlaying() ? pause() : play(); });
    // The keys work wherever the focus is in the panel (the PE array, the slider, the delay strip), not only
    // on the buttons; a text field in it (the directive editor) keeps them for typing.
    for (const auto& [key, button] : {std::pair{Qt::Key_Left, m_back}, std::pair{Qt::Key_Right, m_forward},
             std::pair{Qt::Key_Space, m_play}}) {
        auto* shortcut = new QShortcut(QKeySequence(key), this);
        shortcut->setContext(Qt::WidgetWithChildrenShortcut);
        shortcut->setWhatsThis(button->toolTip()); // Help > Keyboard shortcuts lists it
        connect(shortcut, &QShortcut::activated, button, [b = button] {
            if (b->isEnabled()) b->click();
        });
    }

    m_slider = new QSlider(Qt::Horizontal);
    m_slider->setToolTip(tr("Time step"));
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (v != m_current) seek(v);
    });
    m_speed = new QComboBox;
    for (double fps : {0.5, 1.0, 2.0, 4.0, 10.0, 30.0})
        m_speed->addItem(tr("%1 steps/s").arg(fps), fps);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(tr("Playback speed"));
    connect(
        m_speed, &QComboBox::activated, this, [this](int i) { setSpeed(m_speed->itemData(i).toDouble()); });
    auto* zoomOut = toolButton(QStyle::SP_ArrowDown, tr("Zoom out (Ctrl+-)"));
    auto* zoomIn = toolButton(QStyle::SP_ArrowUp, tr("Zoom in (Ctrl++)"));
    zoomOut->setText(QStringLiteral("\u2212"));
    zoomIn->setText(QStringLiteral("+"));
    zoomOut->setToolButtonStyle(Qt::ToolButtonTextOnly);
    zoomIn->setToolButtonStyle(Qt::ToolButtonTextOnly);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    connect(zoomOut, &QToolButton::clicked, this, [this] {
        m_userZoomed = true;
        m_view->setZoom(m_view->zoom() / 1.25);
    });
    connect(zoomIn, &QToolButton::clicked, this, [this] {
        m_userZoomed = true;
        m_view->setZoom(m_view->zoom() * 1.25);
    });
    m_status = new QLabel;
    // Long step descriptions wrap instead of widening the window.
    m_status->setWordWrap(true);
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat(tr("simulating %p%"));
    m_progress->hide();
    connect(m_controller, &SimulationController::progressed, this,
        [this](double f) { m_progress->setValue(int(f * 100)); });

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_back);
    controls->addWidget(m_play);
    controls->addWidget(m_forward);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_speed);
    controls->addWidget(zoomOut);
    controls->addWidget(zoomIn);
    controls->addWidget(m_progress);
    m_shrink = new QPushButton(tr("Animate a shrunken copy"));
    m_shrink->setToolTip(tr("Halve the dimensions that make the run long until the simulation fits, keeping "
                            "the directives"));
    m_shrink->hide();
    connect(m_shrink, &QPushButton::clicked, this, &AnimationPanel::animateShrunkenCopy);
    m_exportButton = new QToolButton;
    m_exportButton->setText(tr("Export"));
    m_exportButton->setToolTip(tr("Save the step on screen as PNG or SVG, or every step as numbered PNGs"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(m_exportButton);
    exportMenu->addAction(tr("This step as PNG..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export step"), {}, tr("PNG (*.png)"));
        if (!path.isEmpty() && !exportStep(path)) m_status->setText(tr("Could not write %1").arg(path));
    });
    exportMenu->addAction(tr("This step as SVG..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export step"), {}, tr("SVG (*.svg)"));
        if (!path.isEmpty() && !exportStep(path)) m_status->setText(tr("Could not write %1").arg(path));
    });
    exportMenu->addAction(tr("Every step as numbered PNGs..."), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the steps"));
        if (!dir.isEmpty() && !exportSequence(dir)) m_status->setText(tr("Could not write into %1").arg(dir));
    });
    QAction* cancel = exportMenu->addAction(tr("Cancel the export"), this, &AnimationPanel::cancelExport);
    connect(exportMenu, &QMenu::aboutToShow, this, [this, exportMenu, cancel] {
        for (QAction* a : exportMenu->actions())
            a->setEnabled(a == cancel ? isExporting() : !isExporting() && shownFrame());
    });
    m_exportButton->setMenu(exportMenu);
    controls->addWidget(m_exportButton);

    m_view = new PeArrayView;
    m_scroll = new QScrollArea;
    m_scroll->setWidget(m_view);
    m_scroll->setWidgetResizable(false);
    m_scroll->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    m_scroll->viewport()->installEventFilter(this);
    m_directives = new QListWidget;
    m_directives->setToolTip(tr("Select a directive to highlight the sub-units (SpatialMap, Cluster) or the "
                                "steps (TemporalMap) it governs"));
    connect(m_directives, &QListWidget::currentRowChanged, this, &AnimationPanel::highlightDirective);
    // Teachers type directives and watch: the editor simulates the same layer under them.
    m_editor = new QPlainTextEdit;
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlaceholderText(QStringLiteral("SpatialMap(1,1) X;\nTemporalMap(3,3) S;"));
    m_editor->setToolTip(tr("Write directives as in a MAESTRO Dataflow block and press Apply (Ctrl+Return)"));
    auto* apply = new QPushButton(tr("Apply"));
    apply->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    // Help > Keyboard shortcuts lists the tooltip: "Apply" alone would not say to what.
    apply->setToolTip(tr("Animate the directives typed under \"Try your own\" on this layer (Ctrl+Return)"));
    connect(apply, &QPushButton::clicked, this, [this] { applyDirectives(m_editor->toPlainText()); });
    m_editorMessage = new QLabel;
    m_editorMessage->setWordWrap(true);
    m_editorMessage->setStyleSheet(QStringLiteral("color: #c62828"));
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(new QLabel(tr("Directives (select to highlight)")));
    leftLayout->addWidget(m_directives, 2);
    leftLayout->addWidget(new QLabel(tr("Try your own:")));
    leftLayout->addWidget(m_editor, 1);
    leftLayout->addWidget(m_editorMessage);
    leftLayout->addWidget(apply);
    left->setMaximumWidth(230);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(m_scroll);
    split->setStretchFactor(1, 1);

    m_strip = new DelayStrip;
    connect(m_strip, &DelayStrip::frameClicked, this, &AnimationPanel::seek);
    m_totals = new QLabel;
    m_totals->setWordWrap(true);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* hint
        = new QLabel(tr("One band per tensor in each PE: bright = arrived this step, pale = kept from the "
                        "previous step (reuse), grey PE = idle. Hover a PE for its index ranges."));
    hint->setWordWrap(true);
    hint->setStyleSheet(QStringLiteral("color: palette(placeholder-text)"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(hint);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(m_shrink, 0, Qt::AlignLeft);
    layout->addWidget(split, 1);
    layout->addWidget(m_strip);
    layout->addWidget(m_totals);

    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_current + 1 >= frameCount())
            pause();
        else
            stepForward();
    });
    setSpeed(2.0);
    clear();
}

void AnimationPanel::clear(const QString& why)
{
    pause();
    m_summary.reset();
    m_window.reset();
    m_current = 0;
    m_view->setLayout(sim::Layout{});
    m_strip->setDelays(nullptr);
    m_directives->clear();
    m_progress->hide();
    m_title->setText(tr("<b>Animation</b>"));
    m_status->setText(why.isEmpty()
            ? tr("Run a search and select a mapping (or open a project with one) to watch "
                 "how its directives move data through the PE array.")
            : why);
    m_status->setStyleSheet(why.isEmpty() ? QString() : QStringLiteral("color: #c62828"));
    m_totalsHtml.clear();
    m_loadingNew = false;
    showTotals();
    updateButtons();
}

void AnimationPanel::setStale(const QString& change)
{
    if (change == m_stale) return;
    m_stale = change;
    showTotals();
}

QString AnimationPanel::staleNote() const
{
    if (m_totalsHtml.isEmpty()) return {};
    if (!m_stale.isEmpty()) return staleText(m_stale);
    return m_loadingNew ? staleText(tr("the mapping"), tr("Simulating the new one...")) : QString();
}

void AnimationPanel::showTotals()
{
    const QString note = staleNote();
    m_totals->setText(note.isEmpty()
            ? m_totalsHtml
            : QStringLiteral("<span style='color:%1'><b>%2</b></span><br><span style='color:%3'>%4</span>")
                  .arg(QLatin1String(kStaleNote), note.toHtmlEscaped(), QLatin1String(kStaleGrey),
                      m_totalsHtml));
}

bool AnimationPanel::animateShrunkenCopy()
{
    if (!m_request) return false;
    SimulationRequest request = *m_request;
    request.shrinkToFit = true;
    setMapping(std::move(request));
    return true;
}

void AnimationPanel::setMapping(SimulationRequest request)
{
    pause();
    m_shrink->hide();
    m_request = request;
    m_fromEditor = false;
    m_editorMessage->clear();
    m_title->setText(tr("<b>Animation</b> \u00b7 %1").arg(request.title.toHtmlEscaped()));
    m_status->setText(tr("Simulating..."));
    m_status->setStyleSheet({});
    m_progress->setValue(0);
    m_progress->show();
    m_loadingNew = true;
    showTotals();
    m_controller->load(std::move(request));
}

bool AnimationPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize) fitToViewport();
    return QWidget::eventFilter(watched, event);
}

void AnimationPanel::fitToViewport()
{
    if (!m_summary || m_userZoomed) return;
    const double zoom = m_view->zoomToFit(m_scroll->viewport()->size());
    if (std::abs(zoom - m_view->zoom()) > 1e-3) m_view->setZoom(zoom);
}

void AnimationPanel::onLoaded(
    std::shared_ptr<const SimulationSummary> summary, std::shared_ptr<const FrameWindow> window)
{
    m_progress->hide();
    m_summary = std::move(summary);
    // Directives typed from now on map the layer shown, a shrunken copy included.
    if (m_request && m_request->shrinkToFit) {
        m_request->problem = m_summary->problem;
        m_request->shrinkToFit = false;
    }
    m_window = std::move(window);
    m_current = 0;
    m_view->setLayout(m_summary->layout);
    m_userZoomed = false; // a new array is shown whole, whatever the last one was zoomed to
    fitToViewport();
    m_strip->setDelays(&m_summary->delays);
    m_directives->clear();
    QString editable;
    for (const mdc::Directive& d : m_summary->dataflow)
        editable += QString::fromStdString(d.toString()) + QStringLiteral(";\n");
    if (!m_fromEditor) m_editor->setPlainText(editable);
    int level = 0;
    for (const mdc::Directive& d : m_summary->dataflow) {
        const bool cluster = d.kind == mdc::Directive::Kind::Cluster;
        m_directives->addItem(
            QStringLiteral("L%1  %2%3")
                .arg(level)
                .arg(QString(level * 2, QLatin1Char(' ')), QString::fromStdString(d.toString())));
        if (cluster) ++level;
    }
    m_slider->blockSignals(true);
    m_slider->setRange(0, int(std::max<std::int64_t>(0, frameCount() - 1)));
    m_slider->setValue(0);
    m_slider->blockSignals(false);

    const sim::Totals& t = m_summary->totals;
    QStringList traffic;
    for (const sim::TensorTotals& tt : t.tensors)
        traffic << (tt.output
                ? tr("%1: %L2 partial sums to L2").arg(QString::fromStdString(tt.name)).arg(tt.l2Writes)
                : tr("%1: %L2 L2 reads, %L3 L1 writes")
                      .arg(QString::fromStdString(tt.name))
                      .arg(tt.l2Reads)
                      .arg(tt.l1Writes));
    auto modelCycles = [&](std::int64_t cycles) {
        if (cycles < 0) return tr("rejected");
        return cycles == t.runtimeCycles ? tr("%L1 cycles, as simulated").arg(cycles)
                                         : tr("%L1 cycles").arg(cycles);
    };
    m_loadingNew = false;
    m_totalsHtml = tr(
        "<b>Layer:</b> %L1 MACs%2 \u00b7 %L3 cycles \u00b7 %L4 level-0 steps \u00b7 %L5 PEs used<br>%6<br>"
        "<b>Cost model:</b> corrected fidelity %7 \u00b7 maestro fidelity %8")
                       .arg(t.macs)
                       .arg(t.recomputedMacs ? tr(" (+%L1 recomputed)").arg(t.recomputedMacs) : QString())
                       .arg(t.runtimeCycles)
                       .arg(t.steps)
                       .arg(m_summary->layout.pes)
                       .arg(traffic.join(QStringLiteral(" \u00b7 ")))
                       .arg(modelCycles(m_summary->correctedCycles),
                           modelCycles(m_summary->maestroCycles)
                               + (m_summary->maestroUndercount.isEmpty()
                                       ? QString()
                                       : QStringLiteral(" <span style=\"color:#c62828\"><b>\u26a0 "
                                                        "maestro-undercount</b></span>")));
    showTotals();
    m_totals->setToolTip(
        tr("The analytical cost model on the same mapping. Corrected fidelity walks small "
           "mappings step by step and agrees with the simulation; maestro fidelity reproduces "
           "MAESTRO, whose estimate can differ (doc/cost-model.md).")
        + (m_summary->maestroUndercount.isEmpty() ? QString()
                                                  : QStringLiteral("\n\n") + m_summary->maestroUndercount));
    showCurrent();
    updateButtons();
    emit ready();
}

std::int64_t AnimationPanel::frameCount() const
{
    return m_summary ? m_summary->totals.frames : 0;
}

bool AnimationPanel::isPlaying() const
{
    return m_timer->isActive();
}

const sim::Frame* AnimationPanel::shownFrame() const
{
    return m_window && m_window->contains(m_current) ? &m_window->at(m_current) : nullptr;
}

void AnimationPanel::play()
{
    if (!m_summary || frameCount() <= 1) return;
    if (m_current + 1 >= frameCount()) seek(0); // play again from the start
    m_timer->start();
    updateButtons();
}

void AnimationPanel::pause()
{
    m_timer->stop();
    updateButtons();
}

void AnimationPanel::stepForward()
{
    if (m_current + 1 < frameCount()) seek(m_current + 1);
}

void AnimationPanel::stepBack()
{
    if (m_current > 0) seek(m_current - 1);
}

void AnimationPanel::seek(std::int64_t frame)
{
    if (!m_summary) return;
    m_current = std::clamp<std::int64_t>(frame, 0, std::max<std::int64_t>(0, frameCount() - 1));
    if (!m_window || !m_window->contains(m_current))
        // Long runs keep only a window of frames: simulate the next one from here.
        m_controller->requestWindow(
            std::max<std::int64_t>(0, m_current - SimulationController::kWindowFrames / 4));
    showCurrent();
}

void AnimationPanel::setSpeed(double framesPerSecond)
{
    m_timer->setInterval(int(1000.0 / std::max(0.1, framesPerSecond)));
    const int i = m_speed->findData(framesPerSecond);
    if (i >= 0) m_speed->setCurrentIndex(i);
}

bool AnimationPanel::applyDirectives(const QString& text)
{
    if (!m_request) return false;
    std::vector<mdc::LayerDim> dims;
    for (const cost::ProblemDim& d : m_request->problem.dims)
        dims.push_back({d.name, d.size, d.stride});
    SimulationRequest request = *m_request;
    try {
        request.dataflow = mdc::readDirectives(text.toStdString(), dims, "directives");
    } catch (const InputError& e) {
        m_editorMessage->setText(QString::fromStdString(e.what()));
        return false;
    }
    if (request.dataflow.empty()) {
        m_editorMessage->setText(tr("directives: write at least one directive"));
        return false;
    }
    if (m_editor->toPlainText() != text) m_editor->setPlainText(text);
    request.title = tr("%1 under your directives").arg(QString::fromStdString(request.problem.name));
    setMapping(std::move(request));
    m_fromEditor = true;
    return true;
}

void AnimationPanel::highlightDirective(int index)
{
    int level = -1;
    if (m_summary && index >= 0 && index < int(m_summary->dataflow.size())) {
        level = 0;
        for (int i = 0; i < index; ++i)
            if (m_summary->dataflow[std::size_t(i)].kind == mdc::Directive::Kind::Cluster) ++level;
        // A Cluster directive forms the units of the next level.
        if (m_summary->dataflow[std::size_t(index)].kind == mdc::Directive::Kind::Cluster) ++level;
    }
    const bool temporal
        = level >= 0 && m_summary->dataflow[std::size_t(index)].kind == mdc::Directive::Kind::TemporalMap;
    m_view->setHighlightedLevel(temporal ? -1 : level);
    m_strip->setHighlightedLevel(temporal ? level : -1);
    if (m_directives->currentRow() != index) {
        m_directives->blockSignals(true);
        m_directives->setCurrentRow(index);
        m_directives->blockSignals(false);
    }
}

void AnimationPanel::showCurrent()
{
    const sim::Frame* frame = shownFrame();
    m_view->setFrame(frame);
    m_strip->setCurrent(m_current);
    m_slider->blockSignals(true);
    m_slider->setValue(int(m_current));
    m_slider->blockSignals(false);
    updateButtons();
    if (!m_summary) return;
    if (!frame) {
        m_status->setText(tr("Step %L1 of %L2 \u00b7 simulating...").arg(m_current + 1).arg(frameCount()));
        return;
    }
    QStringList levels;
    std::int64_t active = 0, macs = 0;
    for (const sim::PeState& pe : frame->pes) {
        active += pe.active ? 1 : 0;
        macs += pe.macs;
    }
    for (std::size_t l = 0; l < frame->levels.size(); ++l)
        levels << tr("L%1 step %2").arg(l).arg(frame->levels[l].step + 1);
    const sim::StepDelays& d = frame->levels.back();
    m_status->setText(tr("Step %L1 of %L2 (%3) \u00b7 %4 cycles: ingress %5, compute %6, egress %7 \u00b7 %8 "
                         "PEs busy, %9 MACs")
                          .arg(m_current + 1)
                          .arg(frameCount())
                          .arg(levels.join(QStringLiteral(", ")))
                          .arg(d.cycles)
                          .arg(d.ingress)
                          .arg(d.compute)
                          .arg(d.egress)
                          .arg(active)
                          .arg(macs));
    emit frameShown(m_current);
    if (isExporting() && m_current == m_exportNext) exportNext();
}

bool AnimationPanel::exportStep(const QString& path)
{
    if (!shownFrame()) return false;
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(m_view->size());
        generator.setViewBox(QRect(QPoint(0, 0), m_view->size()));
        generator.setTitle(tr("%1, step %2").arg(m_summary->title).arg(m_current + 1));
        QPainter painter;
        if (!painter.begin(&generator)) return false;
        m_view->render(&painter);
        return painter.end();
    }
    return m_view->grab().save(path, "PNG");
}

bool AnimationPanel::exportSequence(const QString& directory)
{
    if (!m_summary || frameCount() == 0 || isExporting()) return false;
    if (!QDir().mkpath(directory)) return false;
    pause();
    m_exportDir = directory;
    m_exportNext = 0;
    m_exportReturnTo = m_current;
    m_exportDigits = std::max(4, int(QString::number(frameCount()).size()));
    m_progress->setFormat(tr("exporting %p%"));
    m_progress->setValue(0);
    m_progress->show();
    seek(0); // frameShown -> exportNext, as each step becomes available
    return true;
}

void AnimationPanel::exportNext()
{
    const QString file
        = QDir(m_exportDir)
              .filePath(
                  QStringLiteral("step_%1.png").arg(m_exportNext + 1, m_exportDigits, 10, QLatin1Char('0')));
    if (!exportStep(file)) {
        finishExport(tr("could not write %1").arg(file));
        return;
    }
    ++m_exportNext;
    m_progress->setValue(int(100 * m_exportNext / std::max<std::int64_t>(1, frameCount())));
    if (m_exportNext >= frameCount()) {
        finishExport({});
        return;
    }
    // The next step after the event loop has run: the window stays responsive and cancellable.
    QTimer::singleShot(0, this, [this] {
        if (isExporting()) seek(m_exportNext);
    });
}

void AnimationPanel::cancelExport()
{
    if (isExporting()) finishExport({});
}

void AnimationPanel::finishExport(const QString& error)
{
    const QString dir = std::exchange(m_exportDir, QString());
    const std::int64_t written = m_exportNext;
    m_progress->hide();
    m_progress->setFormat(tr("simulating %p%"));
    seek(m_exportReturnTo);
    if (!error.isEmpty()) m_status->setText(tr("Export stopped: %1").arg(error));
    emit sequenceExported(written, dir, error);
}

void AnimationPanel::updateButtons()
{
    // While a sequence is written the export steps through the run: the controls wait.
    const bool has = m_summary && frameCount() > 0 && !isExporting();
    m_back->setEnabled(has && m_current > 0);
    m_forward->setEnabled(has && m_current + 1 < frameCount());
    m_play->setEnabled(has && frameCount() > 1);
    m_slider->setEnabled(has);
    m_play->setIcon(style()->standardIcon(isPlaying() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

} // namespace marvel::ui
