#include "ui/search/search_controller.h"

#include <atomic>
#include <chrono>
#include <functional>

#include <QTimer>

#include "core/search/offchip.h"

namespace marvel::ui {

/// What a worker hands to the GUI thread. The worker only appends under the mutex; drain() swaps out.
struct SearchController::Shared
{
    /// Asks the GUI thread for a drain now rather than at the next tick (see wake()).
    std::function<void()> postDrain;
    std::mutex mutex;
    std::vector<search::EvaluatedPoint> points;
    std::vector<std::pair<int, std::size_t>> pointRuns; ///< points, in order: (request layer, how many)
    std::optional<std::vector<search::Candidate>> front;
    std::optional<SearchProgress> progress;
    std::vector<std::pair<int, std::shared_ptr<const search::LayerSearchResult>>> layers;
    std::vector<std::pair<int, std::shared_ptr<const StyleResults>>> styles;
    std::optional<SearchOutcome> outcome;
    quint64 generation = 0;
    bool pointsSeen = false; ///< the run's first points have been handed over
    bool drainPosted = false; ///< a postDrain is pending; drain() clears it

    /// Under `mutex`: what the user waits for after a start (the first points, a layer's result, the
    /// end) is drained at once instead of up to a timer interval later; one request at a time.
    void wake()
    {
        if (drainPosted) return;
        drainPosted = true;
        postDrain();
    }
};

namespace {

/// A search of several layers reports the whole run: the share of it done (the layers before the current
/// one and its own fraction, each layer alike) and the time left at the pace so far.
void modelWide(SearchProgress& p, std::chrono::steady_clock::time_point begin)
{
    const double done = (p.layer + p.fraction) / p.layers;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    p.fraction = done;
    p.etaSeconds = done > 0 ? elapsed * (1 - done) / done : 0.0;
}

/// The worker's sink: copies into the shared buffer and returns at once.
class BufferSink final : public search::SearchSink
{
public:
    BufferSink(
        SearchController::Shared& shared, SearchProgress base, std::chrono::steady_clock::time_point begin)
        : m_shared(shared)
        , m_base(base)
        , m_begin(begin)
    { }
    void onProgress(const search::Progress& p) override
    {
        SearchProgress out = m_base;
        out.evaluated += p.evaluated;
        out.perSecond = p.elapsedSeconds > 0 ? static_cast<double>(p.evaluated) / p.elapsedSeconds : 0.0;
        out.etaSeconds = p.etaSeconds;
        out.fraction = p.candidates
            ? std::min(1.0, static_cast<double>(p.evaluated + p.skipped) / static_cast<double>(p.candidates))
            : 0.0;
        if (m_base.layers > 1) { // a model's bar never goes back, whatever a layer's phases do
            modelWide(out, m_begin);
            out.fraction = m_shown = std::max(m_shown, out.fraction);
        }
        m_evaluated = p.evaluated;
        std::lock_guard lock(m_shared.mutex);
        m_shared.progress = out;
    }
    void onEvaluated(std::span<const search::EvaluatedPoint> points) override
    {
        std::lock_guard lock(m_shared.mutex);
        m_shared.points.insert(m_shared.points.end(), points.begin(), points.end());
        if (m_shared.pointRuns.empty() || m_shared.pointRuns.back().first != m_base.layer)
            m_shared.pointRuns.emplace_back(m_base.layer, 0);
        m_shared.pointRuns.back().second += points.size();
        if (!m_shared.pointsSeen && !points.empty()) {
            m_shared.pointsSeen = true;
            m_shared.wake();
        }
    }
    void onParetoUpdate(std::span<const search::Candidate> front) override
    {
        std::vector<search::Candidate> copy(front.begin(), front.end());
        std::lock_guard lock(m_shared.mutex);
        m_shared.front = std::move(copy);
    }
    quint64 evaluated() const { return m_evaluated; }

private:
    SearchController::Shared& m_shared;
    SearchProgress m_base;
    std::chrono::steady_clock::time_point m_begin;
    double m_shown = 0.0; ///< the largest share of the run reported so far
    quint64 m_evaluated = 0;
};

QString bytes(std::int64_t n)
{
    return QStringLiteral("%L1 bytes").arg(n);
}

} // namespace

SearchController::SearchController(QObject* parent)
    : QObject(parent)
    , m_offChipCache(std::make_shared<search::OffChipCache>())
{
    m_drainTimer = new QTimer(this);
    m_drainTimer->setInterval(kDrainIntervalMs);
    connect(m_drainTimer, &QTimer::timeout, this, &SearchController::drain);
}

SearchController::~SearchController() = default; // m_workers stops and joins its threads

void SearchController::start(SearchRequest request)
{
    if (m_running) cancel();
    // Retuning changes on-chip parameters far more often than L2: the off-chip solve is reused.
    if (!request.options.offChipCache) request.options.offChipCache = m_offChipCache;
    ++m_generation;
    auto shared = std::make_shared<Shared>();
    shared->generation = m_generation;
    // Queued to the GUI thread; dropped with the controller, which outlives its workers' posts (its
    // WorkerThreads joins them first). drain() reads m_shared, so a superseded run's request does nothing.
    shared->postDrain
        = [this] { QMetaObject::invokeMethod(this, &SearchController::drain, Qt::QueuedConnection); };
    m_shared = shared;
    m_running = true;
    m_workers.spawn([shared, request = std::move(request)](std::stop_token stop) {
        const auto begin = std::chrono::steady_clock::now();
        SearchOutcome outcome;
        SearchProgress base;
        base.layers = static_cast<int>(request.layers.size());
        bool truncated = false;
        QStringList notMappable;
        QStringList widened;
        for (std::size_t i = 0; i < request.layers.size() && !stop.stop_requested(); ++i) {
            base.layer = static_cast<int>(i);
            BufferSink sink(*shared, base, begin);
            try {
                auto result = std::make_shared<search::LayerSearchResult>(search::searchLayer(
                    request.layers[i].op, request.accelerator, request.options, &sink, stop));
                base.evaluated += result->result.evaluated;
                truncated = truncated || result->result.truncated;
                if (result->result.stats.widened) widened << request.layers[i].name;
                if (result->result.notMappable()) {
                    const search::SearchStats& st = result->result.stats;
                    notMappable << QObject::tr(
                        "%1 needs at least %2 of L1 per PE (has %3) and %4 of L2 (has %5)")
                                       .arg(request.layers[i].name, bytes(st.minL1Bytes),
                                           bytes(request.accelerator.l1Bytes), bytes(st.minL2Bytes),
                                           bytes(request.accelerator.l2Bytes));
                }
                {
                    std::lock_guard lock(shared->mutex);
                    shared->layers.emplace_back(static_cast<int>(i), std::move(result));
                    shared->wake();
                }
                if (!request.compareStyles.empty() && !stop.stop_requested()) {
                    SearchProgress styling = base;
                    styling.fraction = 1.0;
                    styling.comparingStyles = true;
                    if (styling.layers > 1) modelWide(styling, begin);
                    {
                        std::lock_guard lock(shared->mutex);
                        shared->progress = styling;
                    }
                    auto compared
                        = std::make_shared<StyleResults>(styles::searchLayerStyles(request.layers[i].op,
                            request.accelerator, request.options, request.compareStyles, nullptr, stop));
                    if (!stop.stop_requested()) {
                        std::lock_guard lock(shared->mutex);
                        shared->styles.emplace_back(static_cast<int>(i), std::move(compared));
                        shared->wake();
                    }
                }
            } catch (const InputError& e) {
                outcome.status = SearchOutcome::Status::Failed;
                outcome.message
                    = QString::fromStdString(request.layers[i].name.toStdString() + ": " + e.what());
                break;
            }
        }
        outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        if (outcome.status != SearchOutcome::Status::Failed) {
            if (stop.stop_requested())
                outcome.status = SearchOutcome::Status::Cancelled;
            else if (!notMappable.isEmpty()) {
                outcome.status = SearchOutcome::Status::NotMappable;
                outcome.message = QObject::tr("not mappable: %1").arg(notMappable.join(QStringLiteral("; ")));
            } else if (truncated)
                outcome.status = SearchOutcome::Status::Truncated;
            outcome.widenedLayers = widened;
        }
        {
            std::lock_guard lock(shared->mutex);
            shared->outcome = outcome;
            shared->wake();
        }
    });
    m_drainTimer->start();
    emit started(m_generation);
}

void SearchController::cancel()
{
    if (!m_running) return;
    m_workers.stopNewest();
    m_running = false;
    m_shared.reset(); // whatever the old worker still writes goes nowhere
    m_drainTimer->stop();
    SearchOutcome outcome;
    outcome.status = SearchOutcome::Status::Cancelled;
    outcome.message = tr("cancelled");
    emit finished(outcome);
}

void SearchController::drain()
{
    const std::shared_ptr<Shared> shared = m_shared;
    if (!shared) return;
    std::vector<search::EvaluatedPoint> points;
    std::vector<std::pair<int, std::size_t>> pointRuns;
    std::optional<std::vector<search::Candidate>> front;
    std::optional<SearchProgress> progress;
    std::vector<std::pair<int, std::shared_ptr<const search::LayerSearchResult>>> layers;
    std::vector<std::pair<int, std::shared_ptr<const StyleResults>>> styleResults;
    std::optional<SearchOutcome> outcome;
    {
        // The worker runs at a lower priority than this thread (WorkerThreads) and can be preempted
        // while it holds the buffer: rather than wait for it, the GUI thread tries again shortly.
        std::unique_lock lock(shared->mutex, std::try_to_lock);
        if (!lock.owns_lock()) {
            if (!m_drainRetry) {
                m_drainRetry = true;
                QTimer::singleShot(kDrainRetryMs, this, [this] {
                    m_drainRetry = false;
                    drain();
                });
            }
            return;
        }
        shared->drainPosted = false;
        points.swap(shared->points);
        pointRuns.swap(shared->pointRuns);
        front.swap(shared->front);
        progress.swap(shared->progress);
        layers.swap(shared->layers);
        styleResults.swap(shared->styles);
        outcome.swap(shared->outcome);
    }
    // A slot may start a new run; emit nothing of this one after that.
    const quint64 generation = shared->generation;
    auto current = [&] { return m_shared && m_shared->generation == generation; };
    if (!points.empty()) emit pointsAdded(points);
    for (std::size_t first = 0; const auto& [layer, count] : pointRuns) {
        if (!current()) break;
        emit layerPointsAdded(layer, std::span<const search::EvaluatedPoint>(points.data() + first, count));
        first += count;
    }
    if (front && current()) emit frontChanged(*front);
    if (progress && current()) emit progressed(*progress);
    for (auto& [index, result] : layers)
        if (current()) emit layerFinished(index, result);
    for (auto& [index, results] : styleResults)
        if (current()) emit stylesFinished(index, results);
    if (outcome && current()) {
        m_running = false;
        m_drainTimer->stop();
        m_shared.reset();
        emit finished(*outcome);
    }
}

} // namespace marvel::ui
