#pragma once
// Runs core's step-by-step simulator (core/sim) for the PE-array animation off the GUI thread. A load
// simulates the whole layer once, keeping every frame's step delays (the delay strip) and, when they
// are few enough, every frame; otherwise frames are simulated again window by window on request.
// Every load has a generation number: results of a superseded load never reach the panel.

#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "core/arch/accelerator.h"
#include "core/cost/problem.h"
#include "core/mdc/dataflow.h"
#include "core/sim/simulator.h"
#include "ui/worker_threads.h"

namespace marvel::ui {

/// What to animate: one mapped layer on one accelerator.
struct SimulationRequest
{
    QString title;
    cost::Problem problem;
    mdc::Dataflow dataflow;
    arch::Accelerator accelerator;
    /// A layer too large to simulate is first shrunk until it fits (sim::shrunkenCopy); the title then
    /// says what shrank.
    bool shrinkToFit = false;
    sim::Limits limits{}; ///< the simulator's size limits
};

/// What a load found: the static picture, the totals and every frame's step delays.
struct SimulationSummary
{
    QString title;
    cost::Problem problem; ///< the layer simulated (a shrunken copy's own sizes)
    mdc::Dataflow dataflow;
    sim::Layout layout;
    sim::Totals totals;
    std::vector<std::vector<sim::StepDelays>> delays; ///< per frame, per level (at most kMaxDelayFrames)
    /// The cost model's runtime of the same mapping in corrected and in maestro fidelity (-1: rejected).
    std::int64_t correctedCycles = -1, maestroCycles = -1;
    /// Why the maestro figure is impossible ("maestro-undercount: ...", cost::undercountWarning); empty
    /// when it is possible.
    QString maestroUndercount;
};

/// A window of consecutive frames.
struct FrameWindow
{
    std::int64_t first = 0;
    std::vector<sim::Frame> frames;
    bool contains(std::int64_t i) const { return i >= first && i < first + std::int64_t(frames.size()); }
    const sim::Frame& at(std::int64_t i) const { return frames[std::size_t(i - first)]; }
};

class SimulationController : public QObject
{
    Q_OBJECT
public:
    /// Frames kept from a load when frames x PEs stays within this (else windows are fetched).
    static constexpr std::int64_t kKeepAllPeFrames = 60'000;
    static constexpr std::int64_t kWindowFrames = 128;
    /// Step delays kept for the strip (the strip of a longer run ends there).
    static constexpr std::int64_t kMaxDelayFrames = 250'000;

    explicit SimulationController(QObject* parent = nullptr);
    ~SimulationController() override; ///< stops and joins the workers

    void load(SimulationRequest request);
    /// Simulates frames [first, first + kWindowFrames) of the current load (for long runs).
    void requestWindow(std::int64_t first);
    void cancel();
    quint64 generation() const { return m_generation; }
    bool isBusy() const { return m_busy; }

signals:
    void loaded(std::shared_ptr<const marvel::ui::SimulationSummary> summary,
        std::shared_ptr<const marvel::ui::FrameWindow> window);
    void windowReady(std::shared_ptr<const marvel::ui::FrameWindow> window);
    void failed(const QString& message);
    void progressed(double fraction);

private:
    std::shared_ptr<sim::Simulator> m_simulator; ///< of the current load, shared with its workers
    quint64 m_generation = 0;
    bool m_busy = false;
    std::int64_t m_pendingWindow = -1;
    /// The current load or window and superseded ones winding down; last, so that it is destroyed (its
    /// threads stopped and joined) before anything they use.
    WorkerThreads m_workers;
};

} // namespace marvel::ui
