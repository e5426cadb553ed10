#pragma once
// The PE-array / time-step animation of a mapping: play, pause, step, a time slider and a speed, the
// array (scrolls and zooms), the delay strip and the layer's totals. Selecting a directive highlights
// the sub-units and steps it governs. The simulation runs off the GUI thread (SimulationController).
// The totals (the simulation's and the cost model's cycles) are greyed under a stale note while a new
// mapping is simulated, and when the window says the accelerator or the operator changed since.

#include <memory>
#include <optional>

#include <QWidget>

#include "ui/animation/simulation_controller.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSlider;
class QTimer;
class QToolButton;

namespace marvel::ui {

class DelayStrip;
class PeArrayView;

class AnimationPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AnimationPanel(QWidget* parent = nullptr);

    /// Simulates `request` in the background and shows its first step when ready.
    void setMapping(SimulationRequest request);
    void clear(const QString& why = {});
    /// Greys the totals under a note that they were computed before `change` changed (see staleText);
    /// empty: they are current.
    void setStale(const QString& change);
    /// The stale note over the totals (empty when they are current).
    QString staleNote() const;

    std::int64_t frameCount() const;
    std::int64_t currentFrame() const { return m_current; }
    bool isPlaying() const;
    bool isReady() const { return m_summary != nullptr; }
    const SimulationSummary* summary() const { return m_summary.get(); }
    /// The frame on screen, or null while it is being simulated.
    const sim::Frame* shownFrame() const;

    void play();
    void pause();
    void stepForward();
    void stepBack();
    void seek(std::int64_t frame);
    /// Frames per second while playing.
    void setSpeed(double framesPerSecond);
    /// Highlights what directive `index` of the dataflow governs (-1: nothing).
    void highlightDirective(int index);
    /// Simulates the current layer under directives written as in a MAESTRO Dataflow block; false (the
    /// located error shown, the current animation kept) when they do not parse or do not map the layer.
    bool applyDirectives(const QString& text);
    /// After a refusal for size: animates a copy of the layer shrunk until it fits (its title says what
    /// shrank). False when there is no refused request.
    bool animateShrunkenCopy();
    QPushButton* shrinkButton() const { return m_shrink; }
    SimulationController* controller() const { return m_controller; }

    /// Writes the step on screen as PNG or SVG (by the suffix of `path`); false when nothing is shown or
    /// the file cannot be written.
    bool exportStep(const QString& path);
    /// Writes every step as `directory`/step_0001.png, ... (as many digits as the last step needs),
    /// stepping through the run as playback does (long runs simulate their windows as they go); ends
    /// with sequenceExported. False when there is nothing to export or the folder cannot be made.
    bool exportSequence(const QString& directory);
    void cancelExport();
    bool isExporting() const { return !m_exportDir.isEmpty(); }
    QPlainTextEdit* directiveEditor() const { return m_editor; }
    QLabel* editorMessage() const { return m_editorMessage; }

    PeArrayView* arrayView() const { return m_view; }
    DelayStrip* delayStrip() const { return m_strip; }
    QSlider* slider() const { return m_slider; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* totalsLabel() const { return m_totals; }
    QListWidget* directiveList() const { return m_directives; }

signals:
    /// The summary of a new mapping arrived (tests wait for it).
    void ready();
    void frameShown(std::int64_t frame);
    /// A sequence export ended: `written` files in `directory` (fewer than the steps when cancelled or a
    /// write failed; `error` then says why, empty when cancelled).
    void sequenceExported(std::int64_t written, const QString& directory, const QString& error);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fitToViewport();
    void onLoaded(
        std::shared_ptr<const SimulationSummary> summary, std::shared_ptr<const FrameWindow> window);
    void showCurrent();
    void updateButtons();

    SimulationController* m_controller = nullptr;
    std::shared_ptr<const SimulationSummary> m_summary;
    std::shared_ptr<const FrameWindow> m_window;
    std::int64_t m_current = 0;
    PeArrayView* m_view = nullptr;
    QScrollArea* m_scroll = nullptr;
    DelayStrip* m_strip = nullptr;
    QSlider* m_slider = nullptr;
    QToolButton* m_play = nullptr;
    QToolButton* m_back = nullptr;
    QToolButton* m_forward = nullptr;
    QComboBox* m_speed = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_totals = nullptr;
    QLabel* m_title = nullptr;
    QListWidget* m_directives = nullptr;
    QPlainTextEdit* m_editor = nullptr;
    QLabel* m_editorMessage = nullptr;
    std::optional<SimulationRequest> m_request; ///< of the animation shown (or being simulated)
    QProgressBar* m_progress = nullptr;
    QTimer* m_timer = nullptr;
    bool m_userZoomed = false; ///< the zoom buttons were used: resizing keeps their zoom
    void exportNext();
    void finishExport(const QString& error);
    QString m_exportDir; ///< non-empty while a sequence is being written
    std::int64_t m_exportNext = 0, m_exportReturnTo = 0;
    int m_exportDigits = 4;
    QToolButton* m_exportButton = nullptr;
    QPushButton* m_shrink = nullptr; ///< "Animate a shrunken copy", shown after a refusal for size
    bool m_fromEditor = false; ///< the current load came from the directive editor
    QString m_totalsHtml; ///< of the summary shown
    QString m_stale; ///< what the window says changed since the request, or empty
    bool m_loadingNew = false; ///< a new request is being simulated: the totals are the previous one's
    void showTotals();
};

} // namespace marvel::ui
