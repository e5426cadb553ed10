#include "core/mapping/loop_nest_mapping.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace marvel::mapping {

namespace {

std::string loopField(std::size_t i, const char* member)
{
    return "loops[" + std::to_string(i) + "]." + member;
}

bool isPermutation(const std::vector<int>& order, std::size_t n)
{
    if (order.size() != n) return false;
    if (n <= 64) { // without allocating: every search checks each mapping it writes
        std::uint64_t seen = 0;
        for (int i : order) {
            if (i < 0 || static_cast<std::size_t>(i) >= n || (seen >> i & 1) != 0) return false;
            seen |= std::uint64_t{1} << i;
        }
        return true;
    }
    std::vector<bool> seen(n, false);
    for (int i : order) {
        if (i < 0 || static_cast<std::size_t>(i) >= n || seen[static_cast<std::size_t>(i)]) return false;
        seen[static_cast<std::size_t>(i)] = true;
    }
    return true;
}

std::string iteratorName(const MappedLoop& loop)
{
    if (!loop.iterator.empty()) return loop.iterator;
    std::string s = loop.dim;
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// Map size that covers `tile` output rows of the loop's window (see windowStride and StridedTiles).
std::int64_t windowMapSize(const MappedLoop& loop, std::int64_t tile, StridedTiles convention)
{
    return loop.windowStride > 1 && convention == StridedTiles::MaestroPositions
        ? loop.windowStride * (tile - 1) + 1
        : tile;
}

bool hasLevel3Region(const LoopNestMapping& m)
{
    return std::any_of(
        m.loops.begin(), m.loops.end(), [](const MappedLoop& l) { return l.level3Iterations() > 1; });
}

bool hasLevel2Region(const LoopNestMapping& m)
{
    return std::any_of(
        m.loops.begin(), m.loops.end(), [](const MappedLoop& l) { return l.level2Iterations() > 1; });
}

/// parallelLoops().size(), without allocating.
std::size_t parallelLoopCount(const LoopNestMapping& m)
{
    return static_cast<std::size_t>(std::count_if(m.level2Order.begin(), m.level2Order.end(), [&](int i) {
        return i >= 0 && static_cast<std::size_t>(i) < m.loops.size()
            && m.loops[static_cast<std::size_t>(i)].isParallel();
    }));
}

} // namespace

std::vector<int> LoopNestMapping::parallelLoops() const
{
    std::vector<int> out;
    for (int i : level2Order)
        if (i >= 0 && static_cast<std::size_t>(i) < loops.size()
            && loops[static_cast<std::size_t>(i)].isParallel())
            out.push_back(i);
    return out;
}

std::int64_t LoopNestMapping::activePes() const
{
    std::int64_t n = 1;
    for (const MappedLoop& l : loops)
        n *= l.parallelism();
    return n;
}

std::vector<Diagnostic> validate(const LoopNestMapping& m, const arch::Accelerator* acc)
{
    std::vector<Diagnostic> out;
    auto add = [&](std::string field, std::string message) {
        Diagnostic d;
        d.field = std::move(field);
        d.message = std::move(message);
        out.push_back(std::move(d));
    };
    if (m.loops.empty()) add("loops", "a mapping needs at least one loop");
    for (std::size_t i = 0; i < m.loops.size(); ++i) {
        const MappedLoop& l = m.loops[i];
        if (l.dim.empty()) add(loopField(i, "dim"), "loop has no dimension name");
        for (std::size_t j = 0; j < i; ++j)
            if (!l.dim.empty() && m.loops[j].dim.size() == l.dim.size() && m.loops[j].dim[0] == l.dim[0]
                && m.loops[j].dim == l.dim)
                add(loopField(i, "dim"), "dimension '" + l.dim + "' is mapped twice");
        if (l.extent < 1) {
            add(loopField(i, "extent"), "extent must be at least 1, got " + std::to_string(l.extent));
            continue;
        }
        if (l.level1 < 1)
            add(loopField(i, "level1"), "level-1 tile must be at least 1, got " + std::to_string(l.level1));
        if (l.level2 < l.level1)
            add(loopField(i, "level2"),
                "level-2 tile " + std::to_string(l.level2) + " is smaller than the level-1 tile "
                    + std::to_string(l.level1));
        if (l.level3 < l.level2)
            add(loopField(i, "level3"),
                "level-3 tile " + std::to_string(l.level3) + " is smaller than the level-2 tile "
                    + std::to_string(l.level2));
        if (l.level3 > l.extent)
            add(loopField(i, "level3"),
                "level-3 tile " + std::to_string(l.level3) + " exceeds the loop extent "
                    + std::to_string(l.extent));
    }
    if (!isPermutation(m.level2Order, m.loops.size()))
        add("level2_order", "must list every loop exactly once");
    if (!isPermutation(m.level3Order, m.loops.size()))
        add("level3_order", "must list every loop exactly once");
    if (acc && out.empty() && m.activePes() > acc->numPes)
        add("loops",
            "the parallel loops need " + std::to_string(m.activePes()) + " PEs but the accelerator has "
                + std::to_string(acc->numPes));
    return out;
}

std::string toString(Level2Form form)
{
    switch (form) {
    case Level2Form::Fused:
        return "fused";
    case Level2Form::TopSpatial:
        return "top_spatial";
    case Level2Form::Separate:
        break;
    }
    return "separate";
}

int mdcLevelCount(const LoopNestMapping& m)
{
    const int parallel = static_cast<int>(parallelLoopCount(m));
    if (m.level2Form == Level2Form::Fused) return 1 + std::max(parallel, 1);
    if (m.level2Form == Level2Form::TopSpatial) return std::max(parallel, 1);
    int levels = (hasLevel3Region(m) ? 1 : 0) + (hasLevel2Region(m) ? 1 : 0);
    return levels + std::max(parallel, 1);
}

namespace {

// The top level of the Fused form has N_PE / (product of the cluster sizes) sub-units, the cluster sizes
// being the parallelisms: one sub-unit when the active PEs are more than half of the array.
bool singleTopSubUnit(const LoopNestMapping& m, const arch::Accelerator* acc)
{
    return acc && acc->numPes > 0 && acc->numPes / std::max<std::int64_t>(1, m.activePes()) < 2;
}

/// The output loop whose window `spatialLoop` slides over, when the level spreading `spatialLoop`
/// writes the diagonal (Y, R) pair (see toMdc): the window's output loop keeps `current` rows there,
/// one when the window is strided. -1 otherwise.
int diagonalWindow(const LoopNestMapping& m, int spatialLoop, const std::vector<std::int64_t>& current)
{
    const std::string& dim = m.loops[static_cast<std::size_t>(spatialLoop)].dim;
    for (std::size_t i = 0; i < m.loops.size(); ++i) {
        const MappedLoop& o = m.loops[i];
        if (o.windowSliding == dim && !o.windowReference.empty() && static_cast<int>(i) != spatialLoop)
            return o.windowStride == 1 || current[i] == 1 ? static_cast<int>(i) : -1;
    }
    return -1;
}

} // namespace

bool fusedFormApplies(const LoopNestMapping& m, const arch::Accelerator* acc)
{
    if (parallelLoopCount(m) == 0 || m.level3Order.empty()) return false;
    return singleTopSubUnit(m, acc) || std::any_of(m.loops.begin(), m.loops.end(), [](const MappedLoop& l) {
        return l.level3Iterations() == 1;
    });
}

std::vector<std::int64_t> topSpatialClusters(const LoopNestMapping& m, const arch::Accelerator& acc)
{
    const std::vector<int> parallel = m.parallelLoops();
    if (parallel.size() < 2 || acc.numPes < 1) return {};
    const MappedLoop& top = m.loops[static_cast<std::size_t>(parallel.front())];
    if (top.level2 != top.level3) return {};
    std::vector<std::int64_t> clusters;
    std::int64_t product = 1;
    for (std::size_t k = 1; k < parallel.size(); ++k) {
        clusters.push_back(m.loops[static_cast<std::size_t>(parallel[k])].parallelism());
        product *= clusters.back();
    }
    if (product > acc.numPes) return {};
    // Level 0's spatial steps must be the level-3 tiles of the top loop: exactly its sub-units, or a
    // single step over the whole loop.
    auto steps = [&](std::int64_t subUnits) {
        return subUnits * top.level1 == top.level3
            || (top.level3 == top.extent && subUnits >= top.parallelism());
    };
    if (steps(acc.numPes / product)) return clusters;
    // More sub-units than the top loop spreads over: enlarge the innermost cluster, which is harmless
    // only when its spatial map covers its dimension in one step (a pure parallel region, or the
    // fused level when the second parallel loop has a single level-2 iteration).
    const MappedLoop& last = m.loops[static_cast<std::size_t>(parallel.back())];
    if (parallel.size() == 2 && last.level2Iterations() != 1) return {};
    const std::int64_t others = product / clusters.back();
    const std::int64_t enlarged = acc.numPes / (top.parallelism() * others);
    if (enlarged < clusters.back() || !steps(acc.numPes / (others * enlarged))) return {};
    clusters.back() = enlarged;
    return clusters;
}

mdc::Dataflow toMdc(const LoopNestMapping& m, const arch::Accelerator& acc, StridedTiles strided)
{
    const auto mapSize
        = [strided](const MappedLoop& loop, std::int64_t tile) { return windowMapSize(loop, tile, strided); };
    if (auto problems = validate(m, &acc); !problems.empty()) throw InputError(std::move(problems));
    const int levels = mdcLevelCount(m);
    if (levels > kMaxMdcLevels) {
        Diagnostic d;
        d.field = "mapping";
        d.message = "not representable in MAESTRO: needs " + std::to_string(levels) + " cluster levels ("
            + std::to_string(levels - 1) + " Cluster directives), at most " + std::to_string(kMaxMdcLevels)
            + " are supported";
        throw InputError(d);
    }
    const std::vector<int> parallel = m.parallelLoops();
    if (m.level2Form == Level2Form::Fused && !fusedFormApplies(m, &acc)) {
        Diagnostic d;
        d.field = "level2_form";
        d.message = "the fused form needs a parallel loop and either a loop with a single level-3 tile or "
                    "a top level of one sub-unit (more than half of the PEs active)";
        throw InputError(d);
    }
    // Product of the parallel counts below the first parallel region: how many PEs each of its
    // sub-units must contain.
    std::int64_t innerCount = 1;
    for (std::size_t k = 1; k < parallel.size(); ++k)
        innerCount *= m.loops[static_cast<std::size_t>(parallel[k])].parallelism();

    mdc::Dataflow df;
    // At most a directive per loop and a Cluster on each level, and a diagonal input map per parallel level.
    df.reserve(static_cast<std::size_t>(levels) * (m.loops.size() + 2));
    // Tile size each dimension has when entering the parallel regions: the level-2 tile; a parallel
    // loop's dimension shrinks to its level-1 tile once its region has spread it.
    std::vector<std::int64_t> current(m.loops.size());
    for (std::size_t i = 0; i < m.loops.size(); ++i)
        current[i] = m.loops[i].level2;
    auto emitLevel = [&](int spatialLoop) {
        const MappedLoop& sl = m.loops[static_cast<std::size_t>(spatialLoop)];
        const int window = diagonalWindow(m, spatialLoop, current);
        if (window >= 0) {
            const MappedLoop& o = m.loops[static_cast<std::size_t>(window)];
            const std::int64_t rows
                = sl.level1 + o.windowStride * (current[static_cast<std::size_t>(window)] - 1);
            df.push_back(mdc::Directive::spatial(rows, sl.level1, o.windowReference));
        }
        const std::int64_t spatialSize = mapSize(sl, sl.level1);
        df.push_back(mdc::Directive::spatial(spatialSize, spatialSize, sl.dim));
        current[static_cast<std::size_t>(spatialLoop)] = sl.level1;
        for (int i : m.level2Order)
            if (i != spatialLoop && i != window) {
                const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
                const std::int64_t size = mapSize(l, current[static_cast<std::size_t>(i)]);
                df.push_back(mdc::Directive::temporal(size, size, l.dim));
            }
    };
    auto innerParallelRegions = [&](std::size_t first) {
        for (std::size_t k = first; k < parallel.size(); ++k) {
            df.push_back(
                mdc::Directive::cluster(m.loops[static_cast<std::size_t>(parallel[k])].parallelism()));
            emitLevel(parallel[k]);
        }
    };

    if (m.level2Form == Level2Form::Fused) {
        // The top level's spatial map goes on a loop with one level-3 tile (a window output last).
        int carrier = -1;
        for (int i : m.level3Order) {
            const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
            if (l.level3Iterations() == 1
                && (carrier < 0
                    || (m.loops[static_cast<std::size_t>(carrier)].windowStride > 1 && l.windowStride == 1)))
                carrier = i;
        }
        // Else the top level has one sub-unit (fusedFormApplies): the innermost level-3 loop keeps its
        // place and its SpatialMap steps like the TemporalMap it replaces.
        if (carrier < 0) carrier = m.level3Order.back();
        for (int i : m.level3Order)
            if (i != carrier) {
                const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
                const std::int64_t s = mapSize(l, l.level3);
                df.push_back(mdc::Directive::temporal(s, s, l.dim));
            }
        const MappedLoop& c = m.loops[static_cast<std::size_t>(carrier)];
        const std::int64_t cs = mapSize(c, c.level3);
        df.push_back(mdc::Directive::spatial(cs, cs, c.dim));
        const MappedLoop& outer = m.loops[static_cast<std::size_t>(parallel.front())];
        df.push_back(mdc::Directive::cluster(outer.parallelism()));
        for (int i : m.level2Order) {
            const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
            const std::int64_t s = mapSize(l, i == parallel.front() ? l.level1 : l.level2);
            df.push_back(i == parallel.front() ? mdc::Directive::spatial(s, s, l.dim)
                                               : mdc::Directive::temporal(s, s, l.dim));
        }
        current[static_cast<std::size_t>(parallel.front())] = outer.level1;
        innerParallelRegions(1);
        return df;
    }

    if (m.level2Form == Level2Form::TopSpatial) {
        const std::vector<std::int64_t> clusters = topSpatialClusters(m, acc);
        if (clusters.empty()) {
            Diagnostic d;
            d.field = "level2_form";
            d.message = "the top_spatial form needs two parallel loops, an outer parallel loop whose level-3 "
                        "tile is its level-2 tile, and level 0 sub-units that step over those tiles";
            throw InputError(d);
        }
        const int top = parallel[0];
        const int second = parallel[1];
        for (int i : m.level3Order) {
            const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
            const std::int64_t s = mapSize(l, i == top ? l.level1 : l.level3);
            df.push_back(
                i == top ? mdc::Directive::spatial(s, s, l.dim) : mdc::Directive::temporal(s, s, l.dim));
        }
        df.push_back(mdc::Directive::cluster(clusters[0]));
        for (int i : m.level2Order) {
            const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
            const std::int64_t s = mapSize(l, i == top || i == second ? l.level1 : l.level2);
            df.push_back(
                i == second ? mdc::Directive::spatial(s, s, l.dim) : mdc::Directive::temporal(s, s, l.dim));
        }
        current[static_cast<std::size_t>(top)] = m.loops[static_cast<std::size_t>(top)].level1;
        current[static_cast<std::size_t>(second)] = m.loops[static_cast<std::size_t>(second)].level1;
        for (std::size_t k = 2; k < parallel.size(); ++k) {
            df.push_back(mdc::Directive::cluster(clusters[k - 1]));
            emitLevel(parallel[k]);
        }
        return df;
    }

    bool openRegion = false; // a region has been emitted and waits for its closing Cluster
    auto interTileRegion = [&](const std::vector<int>& order, auto size) {
        for (std::size_t k = 0; k < order.size(); ++k) {
            const MappedLoop& l = m.loops[static_cast<std::size_t>(order[k])];
            const std::int64_t s = mapSize(l, size(l));
            df.push_back(k + 1 == order.size() ? mdc::Directive::spatial(s, s, l.dim)
                                               : mdc::Directive::temporal(s, s, l.dim));
        }
    };
    if (hasLevel3Region(m)) {
        interTileRegion(m.level3Order, [](const MappedLoop& l) { return l.level3; });
        openRegion = true;
    }
    if (hasLevel2Region(m)) {
        if (openRegion) df.push_back(mdc::Directive::cluster(1));
        interTileRegion(m.level2Order, [](const MappedLoop& l) { return l.level2; });
        openRegion = true;
    }
    if (openRegion) df.push_back(mdc::Directive::cluster(std::max<std::int64_t>(1, acc.numPes / innerCount)));

    if (parallel.empty()) {
        emitLevel(m.level2Order.back());
    } else {
        emitLevel(parallel.front());
        innerParallelRegions(1);
    }
    return df;
}

std::string printTiledLoopNest(
    const LoopNestMapping& m, const std::string& body, const LoopNestPrintOptions& options)
{
    std::ostringstream os;
    int depth = 0;
    auto indent = [&] { return std::string(static_cast<std::size_t>(depth) * 2, ' '); };
    // Each loop variable is the start of its tile at that level; inner loops run from the enclosing
    // variable over the enclosing tile (clipped to the extent, which is how partial tiles appear). An
    // omitted single-iteration loop's variable is the enclosing start, so `start` keeps, per loop, the
    // expression inner levels begin from.
    std::vector<std::string> start(m.loops.size(), "0");
    std::vector<std::string> omitted;
    auto var = [&](const MappedLoop& l, int level) { return iteratorName(l) + std::to_string(level); };
    auto loopLine = [&](const char* keyword, const MappedLoop& l, int level, const std::string& from,
                        const std::string& to, std::int64_t step) {
        os << indent() << keyword << " (" << var(l, level) << " = " << from << "; " << var(l, level) << " < "
           << to << "; " << var(l, level) << " += " << step << ") {\n";
        ++depth;
    };
    auto bound = [](const std::string& from, std::int64_t tile, std::int64_t outerTile, std::int64_t extent) {
        if (tile == extent && from == "0") return std::to_string(extent);
        std::string end = from + " + " + std::to_string(tile);
        return tile % outerTile == 0 && extent % tile == 0
            ? end
            : "min(" + end + ", " + std::to_string(extent) + ")";
    };
    os << "// level 3: L2 tiles (DRAM -> L2)\n";
    for (int i : m.level3Order) {
        const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
        if (options.omitSingleIterationLoops && l.level3Iterations() == 1) {
            omitted.push_back(var(l, 3));
            continue;
        }
        loopLine("for", l, 3, "0", std::to_string(l.extent), l.level3);
        start[static_cast<std::size_t>(i)] = var(l, 3);
    }
    os << indent() << "// level 2: tiles spread over the PE array (L2 -> PEs)\n";
    for (int i : m.level2Order) {
        const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
        const std::string from = start[static_cast<std::size_t>(i)];
        if (options.omitSingleIterationLoops && l.level2Iterations() == 1) {
            omitted.push_back(var(l, 2));
            continue;
        }
        loopLine("for", l, 2, from, bound(from, l.level3, 1, l.extent), l.level2);
        start[static_cast<std::size_t>(i)] = var(l, 2);
    }
    const std::vector<int> parallel = m.parallelLoops();
    if (!parallel.empty()) os << indent() << "// PE array: " << m.activePes() << " PEs\n";
    for (int i : parallel) {
        const MappedLoop& l = m.loops[static_cast<std::size_t>(i)];
        const std::string from = start[static_cast<std::size_t>(i)];
        loopLine("parallel_for", l, 1, from, bound(from, l.level2, 1, l.extent), l.level1);
        start[static_cast<std::size_t>(i)] = var(l, 1);
    }
    os << indent() << "// level 1: point loops in one PE (L1)\n";
    for (std::size_t i = 0; i < m.loops.size(); ++i) {
        const MappedLoop& l = m.loops[i];
        const std::string& from = start[i];
        os << indent() << "for (" << iteratorName(l) << " = " << from << "; " << iteratorName(l) << " < "
           << bound(from, l.level1, 1, l.extent) << "; " << iteratorName(l) << "++) {\n";
        ++depth;
    }
    os << indent() << (body.empty() ? std::string("body;") : body) << "\n";
    if (options.closeOnOneLine) {
        os << std::string(static_cast<std::size_t>(depth), '}') << "\n";
    } else {
        while (depth > 0) {
            --depth;
            os << indent() << "}\n";
        }
    }
    if (!omitted.empty()) {
        os << "// one iteration, left out:";
        for (const std::string& v : omitted)
            os << ' ' << v;
        os << '\n';
    }
    return os.str();
}

nlohmann::json toJson(const LoopNestMapping& m)
{
    nlohmann::json loops = nlohmann::json::array();
    for (const MappedLoop& l : m.loops) {
        nlohmann::json loop = {{"dim", l.dim}, {"iterator", iteratorName(l)}, {"extent", l.extent},
            {"level1", l.level1}, {"level2", l.level2}, {"level3", l.level3},
            {"window_stride", l.windowStride}, {"parallelism", l.parallelism()}};
        if (!l.windowReference.empty()) {
            loop["window_reference"] = l.windowReference;
            loop["window_sliding"] = l.windowSliding;
        }
        loops.push_back(std::move(loop));
    }
    auto names = [&](const std::vector<int>& order) {
        nlohmann::json a = nlohmann::json::array();
        for (int i : order)
            a.push_back(i >= 0 && static_cast<std::size_t>(i) < m.loops.size()
                    ? m.loops[static_cast<std::size_t>(i)].dim
                    : std::string("?"));
        return a;
    };
    nlohmann::json layouts = nlohmann::json::object();
    for (const TensorLayout& t : m.layouts)
        layouts[t.tensor] = t.subscriptOrder;
    return {{"loops", loops}, {"level2_order", names(m.level2Order)}, {"level3_order", names(m.level3Order)},
        {"layouts", layouts}, {"level2_form", toString(m.level2Form)}, {"active_pes", m.activePes()}};
}

LoopNestMapping mappingFromJson(const nlohmann::json& j)
{
    auto fail = [](std::string field, std::string message) {
        Diagnostic d;
        d.field = std::move(field);
        d.message = std::move(message);
        throw InputError(d);
    };
    if (!j.is_object()) fail("mapping", "expected an object");
    LoopNestMapping m;
    if (!j.contains("loops") || !j["loops"].is_array()) fail("mapping.loops", "expected an array of loops");
    for (std::size_t i = 0; i < j["loops"].size(); ++i) {
        const nlohmann::json& l = j["loops"][i];
        const std::string at = "mapping." + loopField(i, "");
        if (!l.is_object()) fail(at.substr(0, at.size() - 1), "expected an object");
        MappedLoop loop;
        if (!l.contains("dim") || !l["dim"].is_string()) fail(at + "dim", "expected a string");
        loop.dim = l["dim"].get<std::string>();
        if (l.contains("iterator") && l["iterator"].is_string())
            loop.iterator = l["iterator"].get<std::string>();
        for (auto [name, target] : {std::pair<const char*, std::int64_t*>{"extent", &loop.extent},
                 {"level1", &loop.level1}, {"level2", &loop.level2}, {"level3", &loop.level3}}) {
            if (!l.contains(name) || !l[name].is_number_integer()) fail(at + name, "expected an integer");
            *target = l[name].get<std::int64_t>();
        }
        if (l.contains("window_stride")) {
            if (!l["window_stride"].is_number_integer() || l["window_stride"].get<std::int64_t>() < 1)
                fail(at + "window_stride", "expected an integer of at least 1");
            loop.windowStride = l["window_stride"].get<std::int64_t>();
        }
        for (auto [name, target] :
            {std::pair<const char*, std::string*>{"window_reference", &loop.windowReference},
                {"window_sliding", &loop.windowSliding}})
            if (l.contains(name)) {
                if (!l[name].is_string()) fail(at + name, "expected a dimension name");
                *target = l[name].get<std::string>();
            }
        m.loops.push_back(std::move(loop));
    }
    auto order = [&](const char* key) {
        std::vector<int> out;
        if (!j.contains(key) || !j[key].is_array())
            fail(std::string("mapping.") + key, "expected an array of dimension names");
        for (const nlohmann::json& e : j[key]) {
            if (!e.is_string()) fail(std::string("mapping.") + key, "expected dimension names");
            const std::string name = e.get<std::string>();
            auto it = std::find_if(
                m.loops.begin(), m.loops.end(), [&](const MappedLoop& l) { return l.dim == name; });
            if (it == m.loops.end()) fail(std::string("mapping.") + key, "unknown dimension '" + name + "'");
            out.push_back(static_cast<int>(it - m.loops.begin()));
        }
        return out;
    };
    m.level2Order = order("level2_order");
    m.level3Order = order("level3_order");
    if (j.contains("layouts")) {
        if (!j["layouts"].is_object()) fail("mapping.layouts", "expected an object");
        for (auto it = j["layouts"].begin(); it != j["layouts"].end(); ++it) {
            TensorLayout t;
            t.tensor = it.key();
            if (!it.value().is_array())
                fail("mapping.layouts." + it.key(), "expected an array of subscript indices");
            for (const nlohmann::json& e : it.value()) {
                if (!e.is_number_integer()) fail("mapping.layouts." + it.key(), "expected subscript indices");
                t.subscriptOrder.push_back(e.get<int>());
            }
            m.layouts.push_back(std::move(t));
        }
    }
    if (j.contains("level2_form")) {
        const nlohmann::json& f = j["level2_form"];
        std::optional<Level2Form> form;
        for (Level2Form candidate : {Level2Form::Separate, Level2Form::Fused, Level2Form::TopSpatial})
            if (f.is_string() && f.get<std::string>() == toString(candidate)) form = candidate;
        if (!form) fail("mapping.level2_form", "expected \"separate\", \"fused\" or \"top_spatial\"");
        m.level2Form = form.value_or(Level2Form::Separate);
    }
    if (auto problems = validate(m); !problems.empty()) {
        for (Diagnostic& d : problems)
            d.field = "mapping." + d.field;
        throw InputError(std::move(problems));
    }
    return m;
}

} // namespace marvel::mapping
