#include "ui/animation/simulation_controller.h"

#include <QMetaObject>

#include "core/cost/costmodel.h"
#include "core/cost/report.h"
#include "core/util/diagnostic.h"

namespace marvel::ui {

SimulationController::SimulationController(QObject* parent)
    : QObject(parent)
{ }

// m_workers stops and joins its threads: a load stops at its next frame, a window at its end.
SimulationController::~SimulationController() = default;

void SimulationController::cancel()
{
    m_workers.stopAll();
    ++m_generation;
    m_simulator.reset();
    m_busy = false;
    m_pendingWindow = -1;
}

void SimulationController::load(SimulationRequest request)
{
    cancel();
    const quint64 generation = m_generation;
    m_busy = true;
    m_workers.spawn([this, generation, request = std::move(request)](std::stop_token stop) {
        auto fail = [this, generation](const QString& message) {
            QMetaObject::invokeMethod(
                this,
                [this, generation, message] {
                    if (generation != m_generation) return;
                    m_busy = false;
                    emit failed(message);
                },
                Qt::QueuedConnection);
        };
        std::shared_ptr<sim::Simulator> simulator;
        QString title = request.title;
        cost::Problem problem = request.problem;
        if (request.shrinkToFit) {
            const auto small
                = sim::shrunkenCopy(request.problem, request.dataflow, request.accelerator, request.limits);
            if (!small) {
                fail(tr("No smaller copy of this layer can be simulated: the mapping uses too many PEs, or "
                        "it is not valid."));
                return;
            }
            problem = small->problem;
            if (!small->shrunk.empty())
                title = tr("%1 \u00b7 shrunken copy (%2)").arg(title, QString::fromStdString(small->shrunk));
        }
        try {
            simulator = std::make_shared<sim::Simulator>(
                problem, request.dataflow, request.accelerator, request.limits);
        } catch (const InputError& e) {
            fail(QString::fromStdString(e.what()));
            return;
        }
        auto summary = std::make_shared<SimulationSummary>();
        summary->title = title;
        summary->problem = problem;
        summary->dataflow = request.dataflow;
        summary->layout = simulator->layout();
        const std::int64_t pes = std::max<std::int64_t>(1, summary->layout.pes);
        const std::int64_t keep = std::max<std::int64_t>(kWindowFrames, kKeepAllPeFrames / pes);
        auto window = std::make_shared<FrameWindow>();
        auto lastReport = std::chrono::steady_clock::now();
        const sim::Totals totals = simulator->run(
            [&](const sim::Frame& frame) {
                if (frame.index < kMaxDelayFrames) summary->delays.push_back(frame.levels);
                if (frame.index < keep) window->frames.push_back(frame);
                return !stop.stop_requested();
            },
            0, std::numeric_limits<std::int64_t>::max(),
            [&](std::int64_t done, std::int64_t bound) {
                const auto now = std::chrono::steady_clock::now();
                if (now - lastReport < std::chrono::milliseconds(100) || bound <= 0) return;
                lastReport = now;
                const double fraction = double(done) / double(bound);
                QMetaObject::invokeMethod(
                    this,
                    [this, generation, fraction] {
                        if (generation == m_generation) emit progressed(fraction);
                    },
                    Qt::QueuedConnection);
            });
        if (stop.stop_requested()) return;
        summary->totals = totals;
        // Beside the simulation, what the analytical model says: a teacher can show where MAESTRO's
        // estimate and the exact execution part.
        for (auto [fidelity, cycles] : {std::pair{cost::Fidelity::Corrected, &summary->correctedCycles},
                 std::pair{cost::Fidelity::Maestro, &summary->maestroCycles}}) {
            cost::Options options;
            options.fidelity = fidelity;
            try {
                cost::Evaluator model(problem, request.accelerator, options);
                const cost::Result r = model.evaluate(request.dataflow);
                *cycles = r.m.runtimeCycles;
                if (fidelity == cost::Fidelity::Maestro && r.undercount != cost::Undercount::None)
                    summary->maestroUndercount = QString::fromStdString(
                        cost::evaluationStatus(r) + ": " + cost::undercountWarning(r));
            } catch (const InputError&) { // the cost model rejects the mapping: say "rejected"
            }
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, simulator, summary, window] {
                if (generation != m_generation) return;
                m_simulator = simulator;
                m_busy = false;
                emit loaded(summary, window);
                if (m_pendingWindow >= 0) requestWindow(std::exchange(m_pendingWindow, -1));
            },
            Qt::QueuedConnection);
    });
}

void SimulationController::requestWindow(std::int64_t first)
{
    if (!m_simulator || m_busy) {
        // One job per simulator at a time (it is not thread-safe): the latest request waits its turn.
        m_pendingWindow = first;
        return;
    }
    m_busy = true;
    const quint64 generation = m_generation;
    m_workers.spawn([this, generation, simulator = m_simulator, first](std::stop_token stop) {
        auto window = std::make_shared<FrameWindow>();
        window->first = first;
        try {
            simulator->run(
                [&](const sim::Frame& frame) {
                    window->frames.push_back(frame);
                    return !stop.stop_requested();
                },
                first, kWindowFrames);
        } catch (const InputError&) {
            window->frames.clear();
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, window] {
                if (generation != m_generation) return;
                m_busy = false;
                if (!window->frames.empty()) emit windowReady(window);
                if (m_pendingWindow >= 0) requestWindow(std::exchange(m_pendingWindow, -1));
            },
            Qt::QueuedConnection);
    });
}

} // namespace marvel::ui
