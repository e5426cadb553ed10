// `marvel-mpi sweep`: `marvel sweep` across MPI ranks (issue 12) (and `marvel-mpi codesign`, issue 34,
// below). Rank 0 owns the file and hands out design points on demand (points differ a lot in cost, so a
// fixed split would leave ranks idle), or the layers of the points when there are too few points to keep
// the ranks busy; every rank, rank 0 included (on a thread of its own, so that it keeps serving
// requests), searches and rank 0 appends each row as its point completes. The file is written through
// the same SweepFile as `marvel sweep`, so after the final sort it is the same file byte for byte.
//
// Messages, all with rank 0: a worker sends kReady (empty), then gets kWork (a point index and a layer
// index, or Unit::kWholePoint) or kStop; it answers kWork with kResult ("POINT ROW", the point's CSV row)
// or kLayerResult ("POINT LAYER OUTCOME"), which also asks for the next unit. Any rank that dies ends
// the whole job: MPI_COMM_WORLD keeps MPI's default MPI_ERRORS_ARE_FATAL and mpirun aborts every rank
// when one exits without MPI_Finalize, so rank 0 never waits for it; the rows already appended stay in
// the file for --resume.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <mpi.h>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "app/cli/codesign_cli.h"
#include "app/cli/command.h"
#include "app/cli/sweep_cli.h"
#include "importers/onnx/onnx_import.h"
#include "marvel_build_info.h"

namespace {

using namespace marvel;

enum Tag : int { kReady = 1, kWork = 2, kStop = 3, kResult = 4, kLayerResult = 5 };

// A unit of work: a whole design point, or one layer of it when there are too few points to keep every
// rank busy (a single huge model is then split by layer).
struct Unit
{
    std::uint64_t point = 0;
    std::uint64_t layer = kWholePoint;
    static constexpr std::uint64_t kWholePoint = ~std::uint64_t{0};
};

// What a unit yields, as the message text: a whole point's CSV row, or "LAYER OUTCOME" for one layer.
std::string runUnit(const sweep::Sweeper& sweeper, const Unit& unit, unsigned threads)
{
    if (unit.layer == Unit::kWholePoint)
        return sweep::formatRow(*sweeper.evaluate(static_cast<std::size_t>(unit.point), threads));
    return std::to_string(unit.layer) + ' '
        + sweep::formatLayerOutcome(*sweeper.evaluateLayer(
            static_cast<std::size_t>(unit.point), static_cast<std::size_t>(unit.layer), threads));
}

// A worker rank: asks for units until told to stop.
void workerLoop(const sweep::Sweeper& sweeper, unsigned threads)
{
    MPI_Send(nullptr, 0, MPI_CHAR, 0, kReady, MPI_COMM_WORLD);
    for (;;) {
        std::uint64_t message[2] = {0, 0};
        MPI_Status status;
        MPI_Recv(message, 2, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        if (status.MPI_TAG == kStop) return;
        const Unit unit{message[0], message[1]};
        const std::string text = std::to_string(unit.point) + ' ' + runUnit(sweeper, unit, threads);
        MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0,
            unit.layer == Unit::kWholePoint ? kResult : kLayerResult, MPI_COMM_WORLD);
    }
}

// Rank 0's bookkeeping: the units still to hand out, and the layers of split points gathered until each
// point is complete. Points are split by layer when there are fewer of them than twice the ranks, so
// that a sweep of a few design points over a big model still keeps every rank busy; the rows do not
// depend on it (Sweeper::combine adds the layers in order).
class Ledger
{
public:
    Ledger(const sweep::Sweeper& sweeper, const std::vector<std::size_t>& pending, int ranks)
        : m_sweeper(sweeper)
    {
        m_split = sweeper.layerCount() > 1 && pending.size() < 2 * static_cast<std::size_t>(ranks);
        for (std::size_t i : pending) {
            if (!m_split) {
                m_queue.push_back({i, Unit::kWholePoint});
                continue;
            }
            m_layers.emplace(i, Gathered{std::vector<sweep::LayerOutcome>(sweeper.layerCount()), 0});
            for (std::size_t l = 0; l < sweeper.layerCount(); ++l)
                m_queue.push_back({i, l});
        }
    }
    bool splitByLayer() const { return m_split; }
    std::optional<Unit> take()
    {
        const std::lock_guard lock(m_mutex);
        if (m_queue.empty()) return std::nullopt;
        const Unit u = m_queue.front();
        m_queue.pop_front();
        return u;
    }
    // A finished unit's message text; returns the point's row once the point is complete. Throws
    // std::invalid_argument when the text is not a result of this sweep.
    std::optional<sweep::PointResult> finish(std::string_view text, bool layer)
    {
        const std::size_t space = text.find(' ');
        std::uint64_t point = 0;
        if (space == std::string_view::npos
            || std::from_chars(text.data(), text.data() + space, point).ptr != text.data() + space)
            throw std::invalid_argument("no point index");
        text.remove_prefix(space + 1);
        if (!layer) {
            std::optional<sweep::PointResult> row = sweep::parseRow(text, m_sweeper.grid());
            if (!row || row->index != point) throw std::invalid_argument("not a row of this grid");
            return row;
        }
        const std::size_t gap = text.find(' ');
        std::uint64_t l = 0;
        if (gap == std::string_view::npos
            || std::from_chars(text.data(), text.data() + gap, l).ptr != text.data() + gap)
            throw std::invalid_argument("no layer index");
        const std::optional<sweep::LayerOutcome> outcome = sweep::parseLayerOutcome(text.substr(gap + 1));
        const std::lock_guard lock(m_mutex);
        const auto it = m_layers.find(static_cast<std::size_t>(point));
        if (!outcome || it == m_layers.end() || l >= it->second.outcomes.size())
            throw std::invalid_argument("not a layer of this sweep");
        it->second.outcomes[l] = *outcome;
        if (++it->second.finished < it->second.outcomes.size()) return std::nullopt;
        sweep::PointResult row = m_sweeper.combine(it->first, it->second.outcomes);
        m_layers.erase(it);
        return row;
    }

private:
    struct Gathered
    {
        std::vector<sweep::LayerOutcome> outcomes;
        std::size_t finished = 0;
    };
    const sweep::Sweeper& m_sweeper;
    bool m_split = false;
    std::mutex m_mutex;
    std::deque<Unit> m_queue;
    std::map<std::size_t, Gathered> m_layers;
};

// Rank 0: serves the workers' requests, runs units on a thread of its own meanwhile, and writes the rows
// as points complete. Returns the exit code.
int coordinate(const cli::SweepJob& job, const sweep::Sweeper& sweeper, sweep::SweepFile& file, int ranks)
{
    const std::vector<std::size_t> pending = file.pending();
    Ledger ledger(sweeper, pending, ranks);
    if (ledger.splitByLayer())
        std::cerr << "marvel-mpi sweep: " << pending.size() << " points to search on " << ranks
                  << " ranks: handing out the " << sweeper.layerCount() << " layers of each point\n";
    cli::SweepProgress progress(job.grid->size(), job.grid->size() - pending.size());
    std::mutex mutex;
    std::vector<sweep::PointResult> local; // completed by rank 0's own thread, not yet written
    std::atomic<bool> ownFinished{false};
    std::jthread own([&] {
        while (const std::optional<Unit> unit = ledger.take()) {
            const std::string text = std::to_string(unit->point) + ' '
                + runUnit(sweeper, *unit, std::max(1u, job.options.threads));
            std::optional<sweep::PointResult> row = ledger.finish(text, unit->layer != Unit::kWholePoint);
            if (!row) continue;
            const std::lock_guard lock(mutex);
            local.push_back(std::move(*row));
        }
        ownFinished = true;
    });
    auto drainOwn = [&] {
        std::vector<sweep::PointResult> finished;
        {
            const std::lock_guard lock(mutex);
            finished.swap(local);
        }
        for (const sweep::PointResult& row : finished) {
            file.append(row);
            progress.point(row);
        }
    };
    int active = ranks - 1;
    for (;;) {
        drainOwn();
        if (active == 0 && ownFinished) {
            drainOwn(); // what the thread finished after the first drain
            break;
        }
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (!flag) {
            // Sleeping rather than blocking: Open MPI's blocking receive spins, which would take a core
            // from the searches.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        int size = 0;
        MPI_Get_count(&status, MPI_CHAR, &size);
        std::string text(static_cast<std::size_t>(size), '\0');
        MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
            MPI_STATUS_IGNORE);
        if (status.MPI_TAG == kResult || status.MPI_TAG == kLayerResult) {
            try {
                if (const std::optional<sweep::PointResult> row
                    = ledger.finish(text, status.MPI_TAG == kLayerResult)) {
                    file.append(*row);
                    progress.point(*row);
                }
            } catch (const std::invalid_argument& e) {
                std::cerr << "marvel-mpi sweep: rank " << status.MPI_SOURCE
                          << " sent a result not of this sweep (" << e.what() << "): " << text << '\n';
                MPI_Abort(MPI_COMM_WORLD, cli::InputError);
            }
        }
        if (const std::optional<Unit> next = ledger.take()) {
            const std::uint64_t message[2] = {next->point, next->layer};
            MPI_Send(message, 2, MPI_UINT64_T, status.MPI_SOURCE, kWork, MPI_COMM_WORLD);
        } else {
            const std::uint64_t none[2] = {0, 0};
            MPI_Send(none, 2, MPI_UINT64_T, status.MPI_SOURCE, kStop, MPI_COMM_WORLD);
            --active;
        }
    }
    progress.finish();
    const sweep::DesignFronts fronts = file.finish();
    return cli::reportSweep(job, file, fronts, progress.elapsedSeconds(), false);
}

// `marvel-mpi codesign`: rank 0 runs the co-design and hands each round's designs out to the ranks (and
// to a thread of its own) as the sweep hands out points; the workers are the sweep's (workerLoop). The
// rounds are the same whatever the ranks (codesign::Options::batch), and a design's row is the same
// whoever searched it, so the result is `marvel codesign`'s.
class RankPool
{
public:
    RankPool(const codesign::CoDesigner& designer, int ranks, unsigned threads)
        : m_designer(designer)
        , m_ranks(ranks)
        , m_threads(threads)
    { }

    std::vector<std::optional<sweep::LayerOutcome>> evaluate(const std::vector<codesign::Unit>& units)
    {
        std::vector<std::optional<sweep::LayerOutcome>> out(units.size());
        std::map<std::pair<std::size_t, std::size_t>, std::size_t> slot; // (point, layer) -> position
        for (std::size_t i = 0; i < units.size(); ++i)
            slot[{units[i].index, units[i].layer}] = i;
        std::mutex mutex;
        std::deque<codesign::Unit> queue(units.begin(), units.end());
        std::size_t done = 0;
        auto take = [&]() -> std::optional<codesign::Unit> {
            const std::lock_guard lock(mutex);
            if (queue.empty()) return std::nullopt;
            const codesign::Unit u = queue.front();
            queue.pop_front();
            return u;
        };
        const Put put = [&](std::size_t point, std::size_t layer, sweep::LayerOutcome outcome) {
            const std::lock_guard lock(mutex);
            const auto it = slot.find({point, layer});
            if (it == slot.end() || out[it->second]) return false;
            out[it->second] = std::move(outcome);
            ++done;
            return true;
        };
        std::jthread own([&] {
            const sweep::Sweeper& sweeper = m_designer.sweeper();
            while (const std::optional<codesign::Unit> u = take())
                put(u->index, u->layer, *sweeper.evaluateLayer(u->index, u->layer, m_threads));
        });
        auto finished = [&] {
            const std::lock_guard lock(mutex);
            return done == units.size();
        };
        while (!finished()) {
            while (!m_idle.empty()) {
                const std::optional<codesign::Unit> u = take();
                if (!u) break;
                const std::uint64_t message[2] = {u->index, u->layer};
                MPI_Send(message, 2, MPI_UINT64_T, m_idle.front(), kWork, MPI_COMM_WORLD);
                m_idle.pop_front();
            }
            if (!receive(&put)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return out;
    }

    // Every worker, once it asks for work, is told to stop.
    void stop()
    {
        int stopped = 0;
        const std::uint64_t none[2] = {0, 0};
        for (;;) {
            while (!m_idle.empty()) {
                MPI_Send(none, 2, MPI_UINT64_T, m_idle.front(), kStop, MPI_COMM_WORLD);
                m_idle.pop_front();
                ++stopped;
            }
            if (stopped == m_ranks - 1) return;
            if (!receive(nullptr)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

private:
    using Put = std::function<bool(std::size_t, std::size_t, sweep::LayerOutcome)>;

    // Takes one message if there is one: the worker becomes idle, its layer outcome goes to `put`.
    bool receive(const Put* put)
    {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (!flag) return false;
        int size = 0;
        MPI_Get_count(&status, MPI_CHAR, &size);
        std::string text(static_cast<std::size_t>(size), '\0');
        MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
            MPI_STATUS_IGNORE);
        if (status.MPI_TAG == kLayerResult) {
            // "POINT LAYER OUTCOME"
            std::istringstream in(text);
            std::size_t point = 0, layer = 0;
            in >> point >> layer;
            const std::size_t at = static_cast<std::size_t>(in.tellg());
            std::optional<sweep::LayerOutcome> outcome;
            if (in && at + 1 <= text.size())
                outcome = sweep::parseLayerOutcome(std::string_view(text).substr(at + 1));
            if (!outcome || !put || !(*put)(point, layer, std::move(*outcome))) {
                std::cerr << "marvel-mpi codesign: rank " << status.MPI_SOURCE
                          << " sent a result not of this co-design: " << text << '\n';
                MPI_Abort(MPI_COMM_WORLD, cli::InputError);
            }
        }
        m_idle.push_back(status.MPI_SOURCE);
        return true;
    }

    const codesign::CoDesigner& m_designer;
    int m_ranks;
    unsigned m_threads;
    std::deque<int> m_idle; // workers waiting for a reply
};

int runCodesign(const std::vector<std::string>& args, int rank, int ranks)
{
    cli::CodesignJob job;
    std::optional<int> code = cli::parseCodesignJob(args, "marvel-mpi", 1, rank == 0, job);
    int mine = code.value_or(0), worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != 0) {
        if (rank == 0 && mine == 0)
            std::cerr << "marvel-mpi codesign: another rank could not read the inputs (every node must reach "
                         "the files given)\n";
        return worst;
    }
    const unsigned threads = std::max(1u, job.designer->options().sweep.threads);
    if (rank != 0) {
        workerLoop(job.designer->sweeper(), threads);
        return cli::Ok;
    }
    RankPool pool(*job.designer, ranks, threads);
    cli::CodesignProgress progress;
    const auto start = std::chrono::steady_clock::now();
    const codesign::Result result = job.designer->run(
        {}, {}, [&](const codesign::Progress& p) { progress.update(p); },
        [&](const std::vector<codesign::Unit>& units, std::stop_token) { return pool.evaluate(units); });
    pool.stop();
    progress.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return cli::reportCodesign(job, result, seconds, false);
}

int run(int argc, char** argv, int rank, int ranks)
{
    std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
    const bool codesign = argc >= 2 && std::string(argv[1]) == "codesign";
    const bool help = argc < 2 || (std::string(argv[1]) != "sweep" && !codesign)
        || std::find_if(
               args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; })
            != args.end();
    if (argc >= 2 && std::string(argv[1]) == "--version") {
        if (rank == 0) std::cout << "marvel-mpi " MARVEL_VERSION " (commit " MARVEL_GIT_COMMIT ")\n";
        return cli::Ok;
    }
    if (help) {
        if (rank == 0)
            std::cout << "marvel-mpi " MARVEL_VERSION
                         " - `marvel sweep` and `marvel codesign` across MPI ranks: mpirun -n N marvel-mpi "
                         "sweep|codesign ...\n\n"
                      << (codesign ? cli::codesignUsage("marvel-mpi") : cli::sweepUsage("marvel-mpi"))
                      << '\n';
        return argc >= 2 && (std::string(argv[1]) == "sweep" || codesign) ? cli::Ok : cli::InputError;
    }
    if (codesign) return runCodesign(args, rank, ranks);

    // Every rank reads the inputs (they must be reachable on every node); rank 0 also opens the file.
    // The ranks agree on the outcome before any point is handed out, so none waits for a rank that gave up.
    cli::SweepJob job;
    std::optional<int> code = cli::parseSweepJob(args, "marvel-mpi", 1, rank == 0, job);
    std::unique_ptr<sweep::Sweeper> sweeper;
    std::unique_ptr<sweep::SweepFile> file;
    if (!code) {
        try {
            sweeper = std::make_unique<sweep::Sweeper>(*job.grid, job.workload, job.options);
            if (rank == 0)
                file = std::make_unique<sweep::SweepFile>(
                    job.out, *job.grid, job.resume, sweep::sweepSettings(job.workload, job.options));
        } catch (const marvel::InputError& e) {
            if (rank == 0) std::cerr << "marvel-mpi sweep: " << formatDiagnostics(e.diagnostics());
            code = cli::InputError;
        }
    }
    int mine = code.value_or(0), worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != 0) {
        if (rank == 0 && mine == 0)
            std::cerr
                << "marvel-mpi sweep: another rank could not read the inputs (every node must reach the "
                   "files given)\n";
        return worst;
    }
    if (rank != 0) {
        workerLoop(*sweeper, std::max(1u, job.options.threads));
        return cli::Ok;
    }
    try {
        return coordinate(job, *sweeper, *file, ranks);
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel-mpi sweep: " << formatDiagnostics(e.diagnostics());
        MPI_Abort(MPI_COMM_WORLD, cli::InputError);
        return cli::InputError;
    }
}

} // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    // Only the main thread calls MPI; rank 0's searching thread never does.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0)
            std::cerr
                << "marvel-mpi: this MPI library does not allow a second thread (MPI_THREAD_FUNNELED)\n";
        MPI_Finalize();
        return marvel::cli::InputError;
    }
    marvel::onnx_import::registerOnnxReader(); // ONNX models for --model (--batch reaches it through
                                               // loadWorkload)
    const int code = run(argc, argv, rank, ranks);
    MPI_Finalize();
    return code;
}
