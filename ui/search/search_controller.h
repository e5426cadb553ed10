#pragma once
// The one object that runs core searches for the app. A worker thread runs search::searchLayer with a
// sink that only appends to a mutex-protected buffer; a timer on the GUI thread drains it at 20 Hz and
// emits signals for the current run only (the run's first points, each layer's result and the end are
// drained at once: the worker posts an early drain). Every run has a generation number: starting a run or
// cancelling stops the previous worker through its std::stop_token and nothing it still produces
// reaches a view. The GUI thread never waits for a worker, except when the controller is destroyed.

#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/arch/accelerator.h"
#include "core/ir/operator.h"
#include "core/search/search.h"
#include "core/styles/styles.h"
#include "ui/worker_threads.h"

class QTimer;

namespace marvel::ui {

/// What to search: one or more operators (a model's layers) on one accelerator.
struct SearchRequest
{
    struct Layer
    {
        QString name;
        ir::Operator op;
        int repeat = 1;
    };
    std::vector<Layer> layers;
    arch::Accelerator accelerator;
    search::SearchOptions options;
    /// Styles to search each layer under after its own search, for comparison (empty: none).
    std::vector<styles::Style> compareStyles;
};

/// Each compared style's search of one layer, in the request's style order.
using StyleResults = std::vector<styles::StyleSearch>;

/// Progress of the current run as the search panel shows it.
struct SearchProgress
{
    quint64 evaluated = 0; ///< mappings evaluated in this run so far (all layers)
    double perSecond = 0.0;
    double etaSeconds = 0.0; ///< left of the current layer; of the whole run when it has several layers
    double fraction = 0.0; ///< done of the current layer, 0..1; of the whole run when it has several
    int layer = 0;
    int layers = 1;
    bool comparingStyles = false; ///< the layer's own search is done; the styles are being searched
};

/// How the last run ended.
struct SearchOutcome
{
    enum class Status { Finished, Cancelled, Truncated, NotMappable, Failed };
    Status status = Status::Finished;
    QString message;
    double seconds = 0.0;
    /// Layers whose divisor-only search fit badly and went on with other tile sizes
    /// (search::SearchStats::widened).
    QStringList widenedLayers;
};

class SearchController : public QObject
{
    Q_OBJECT
public:
    explicit SearchController(QObject* parent = nullptr);
    /// Stops the worker and waits for it (only here: the window is closing).
    ~SearchController() override;

    /// Supersedes any running search.
    void start(SearchRequest request);
    /// Stops the current run: `finished(Cancelled)` is emitted at once, the worker winds down alone.
    void cancel();
    bool isRunning() const { return m_running; }
    /// Worker threads not yet joined: the current one and cancelled ones still winding down.
    std::size_t workerCount() const { return m_workers.size(); }
    quint64 generation() const { return m_generation; }

signals:
    void started(quint64 generation);
    void pointsAdded(const std::vector<marvel::search::EvaluatedPoint>& points);
    /// The same points, those of one layer of the request at a time (a model's layers keep their clouds).
    void layerPointsAdded(int layer, std::span<const marvel::search::EvaluatedPoint> points);
    void frontChanged(const std::vector<marvel::search::Candidate>& front);
    void progressed(const marvel::ui::SearchProgress& progress);
    void layerFinished(int layer, std::shared_ptr<const marvel::search::LayerSearchResult> result);
    /// The compared styles' searches of a layer (after its layerFinished).
    void stylesFinished(int layer, std::shared_ptr<const marvel::ui::StyleResults> results);
    void finished(const marvel::ui::SearchOutcome& outcome);

public:
    /// What a worker hands to the GUI thread (defined with the controller).
    struct Shared;

private:
    void drain();

    std::shared_ptr<Shared> m_shared; ///< of the current run; each worker keeps its own alive
    std::shared_ptr<search::OffChipCache> m_offChipCache;
    QTimer* m_drainTimer = nullptr;
    bool m_drainRetry = false; ///< a drain that found the buffer busy is to be retried
    quint64 m_generation = 0;
    bool m_running = false;
    /// The current run and superseded ones winding down; last, so that it is destroyed (its threads
    /// stopped and joined) before anything they use.
    WorkerThreads m_workers;
};

} // namespace marvel::ui
