#include "core/export/timeloop.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

#include "core/cost/costmodel.h"
#include "core/util/checked_math.h"
#include "core/util/text_file.h"

namespace marvel::timeloop {

namespace {

using i64 = std::int64_t;
using Kind = mdc::Directive::Kind;

/// Refusal of a mapping: carries the message up to translateMdc.
struct NotTranslatable
{
    std::string reason;
};

[[noreturn]] void refuse(std::string reason)
{
    throw NotTranslatable{std::move(reason)};
}

std::string num(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

/// How the problem's dimensions appear in Timeloop.
struct Shape
{
    struct Dim
    {
        std::string name; ///< Timeloop name (one letter)
        int problemDim = -1; ///< index into Problem::dims
        int window = -1; ///< >= 0: the output dimension of that window
        i64 size = 1;
    };
    std::vector<Dim> dims; ///< Timeloop order: filter taps, window outputs, then the others
    /// Per problem dimension: the Timeloop dimension (-1 for a window's input dimension).
    std::vector<int> tlOf;
    /// Per problem dimension: the window whose input (reference) it is, or whose tap (sliding) it is.
    std::vector<int> refOf, slideOf;
    std::vector<std::pair<std::string, std::string>> coeffNames; ///< per window: stride, dilation names
    std::vector<std::string> spaceNames; ///< per tensor
    /// A convolution without a batch dimension gets Timeloop's N of size 1 (last), indexing the windowed
    /// inputs and the outputs as in Timeloop's CNN layer: the same loops, the problem as Timeloop users
    /// write it.
    bool addedBatch = false;
};

int findDim(const cost::Problem& p, const std::string& name)
{
    for (std::size_t i = 0; i < p.dims.size(); ++i)
        if (p.dims[i].name == name) return int(i);
    return -1;
}

Shape shapeOf(const cost::Problem& p)
{
    Shape s;
    const int n = int(p.dims.size());
    s.tlOf.assign(std::size_t(n), -1);
    s.refOf.assign(std::size_t(n), -1);
    s.slideOf.assign(std::size_t(n), -1);
    std::vector<int> outOf(std::size_t(n), -1);
    for (std::size_t w = 0; w < p.windows.size(); ++w) {
        const auto& win = p.windows[w];
        const int r = findDim(p, win.reference), sl = findDim(p, win.sliding), o = findDim(p, win.output);
        if (r < 0 || sl < 0 || o < 0) refuse("window " + win.output + " names a dimension the problem lacks");
        s.refOf[std::size_t(r)] = int(w);
        s.slideOf[std::size_t(sl)] = int(w);
        outOf[std::size_t(o)] = int(w);
        if (w == 0)
            s.coeffNames.emplace_back("Wstride", "Wdilation");
        else if (w == 1)
            s.coeffNames.emplace_back("Hstride", "Hdilation");
        else
            s.coeffNames.emplace_back("Stride" + std::to_string(w), "Dilation" + std::to_string(w));
    }
    auto add = [&](int d) {
        Shape::Dim td;
        td.problemDim = d;
        const int w = outOf[std::size_t(d)];
        td.window = w;
        if (w >= 0) {
            if (w > 1) refuse("more than two sliding windows: Timeloop's output dimensions here are P and Q");
            td.name = w == 0 ? "P" : "Q";
            const auto& win = p.windows[std::size_t(w)];
            const i64 ref = p.dim(win.reference)->size;
            const i64 taps = p.dim(win.sliding)->size;
            const i64 span = win.dilation * (taps - 1) + 1;
            // The true output extent (MAESTRO derives Y' ignoring the stride: Q-PARSE-3).
            td.size = ref >= span ? (ref - span) / win.stride + 1 : 0;
        } else {
            td.name = p.dims[std::size_t(d)].name;
            td.size = p.dims[std::size_t(d)].size;
        }
        s.tlOf[std::size_t(d)] = int(s.dims.size());
        s.dims.push_back(td);
    };
    // Filter taps, then window outputs, each in window order (R, S, P, Q as Timeloop writes a CONV2D).
    for (const auto& win : p.windows)
        add(findDim(p, win.sliding));
    for (const auto& win : p.windows)
        add(findDim(p, win.output));
    for (int d = 0; d < n; ++d)
        if (s.slideOf[std::size_t(d)] < 0 && outOf[std::size_t(d)] < 0 && s.refOf[std::size_t(d)] < 0) add(d);
    if (!p.windows.empty() && findDim(p, "N") < 0) {
        Shape::Dim batch;
        batch.name = "N";
        s.dims.push_back(batch);
        s.addedBatch = true;
    }
    for (const auto& td : s.dims) {
        if (td.size < 1)
            refuse("dimension " + td.name + " has no output (its window is larger than the input)");
        if (td.name.size() != 1 || !(td.name[0] >= 'A' && td.name[0] <= 'Z'))
            refuse(
                "dimension '" + td.name + "': Timeloop's permutations take one capital letter per dimension");
        if (td.window < 0 && (td.name == "P" || td.name == "Q") && !p.windows.empty())
            refuse("dimension " + td.name + " clashes with the window outputs Timeloop names P and Q");
    }
    s.spaceNames = dataSpaceNames(p);
    return s;
}

/// One cluster level as Timeloop sees it.
struct LevelLoops
{
    std::vector<Loop> temporal; ///< the level's steps, outermost first (spatial folds included)
    std::vector<Loop> spatial;
    std::map<std::string, i64> tile; ///< per Timeloop dimension: the per-step tile (output rows for P/Q)
    std::vector<std::string> tileOrder; ///< Timeloop dimensions in the level's directive order
};

/// Elements of each data space in a tile of `cum` (per Timeloop dimension, the product of the factors at
/// and below the level), summed.
i64 tileElements(const cost::Problem& p, const Shape& s, const std::map<std::string, i64>& cum)
{
    auto f = [&](const std::string& name) {
        auto it = cum.find(name);
        return it == cum.end() ? i64(1) : it->second;
    };
    i64 total = 0;
    for (const auto& t : p.tensors) {
        i64 e = 1;
        for (const auto& dn : t.dims) {
            const int d = findDim(p, dn);
            if (d < 0) continue;
            if (const int w = s.refOf[std::size_t(d)]; w >= 0) {
                const auto& win = p.windows[std::size_t(w)];
                const auto& out = s.dims[std::size_t(s.tlOf[std::size_t(findDim(p, win.output))])].name;
                const auto& tap = s.dims[std::size_t(s.tlOf[std::size_t(findDim(p, win.sliding))])].name;
                e *= (f(out) - 1) * win.stride + (f(tap) - 1) * win.dilation + 1;
            } else if (s.tlOf[std::size_t(d)] >= 0) {
                e *= f(s.dims[std::size_t(s.tlOf[std::size_t(d)])].name);
            }
        }
        total += e;
    }
    return total;
}

LevelLoops translateLevel(const cost::Problem& p, const Shape& s,
    const cost::Evaluator::CompletedLevel& level, const std::vector<int>& problemDimOfId,
    std::vector<i64>& parent, const mdc::Dataflow& userFlow)
{
    LevelLoops out;
    int spatialMaps = 0;
    // The tiles in force when the level starts: a directive's neighbours in the level read them whatever the
    // directives' order (the spread filter rows and the input rows that move with them).
    const std::vector<i64> levelParent = parent;
    auto dimOf
        = [&](const cost::Evaluator::DirectiveId& dir) { return problemDimOfId[std::size_t(dir.dim)]; };
    // Row-stationary: a window's input rows spread in lock-step with its filter rows (a SpatialMap on each,
    // MAESTRO's own form and mapping::toMdc's): one Timeloop spatial loop over the filter rows, with the
    // output rows each PE computes unchanged, as Timeloop projects the input row as P * stride + R *
    // dilation. pairedInput: the input dimension's directive that moves with them.
    std::vector<int> spreadWindow(p.windows.size(), 0); // 1: filter rows spread, 2: with their input rows
    const cost::Evaluator::DirectiveId* pairedInput = nullptr;
    for (const auto& b : level.directives) {
        const int db = dimOf(b);
        const int w = s.slideOf[std::size_t(db)];
        if (b.kind != Kind::SpatialMap || w < 0
            || std::min(b.size, levelParent[std::size_t(db)]) >= levelParent[std::size_t(db)])
            continue;
        spreadWindow[std::size_t(w)] = 1;
        for (const auto& a : level.directives)
            if (a.kind == Kind::SpatialMap && s.refOf[std::size_t(dimOf(a))] == w) {
                spreadWindow[std::size_t(w)] = 2;
                pairedInput = &a;
            }
    }
    // A directive as a message names it, built only for a refusal (the search checks many mappings).
    auto whereOf = [&](const cost::Evaluator::DirectiveId& dir) {
        const std::string& name = p.dims[std::size_t(dimOf(dir))].name;
        std::string text = mdc::Directive{dir.kind, dir.size, dir.offset, name, {}}.toString();
        for (const auto& u : userFlow)
            if (u.kind != Kind::Cluster && u.dim == name && u.loc.line > 0)
                return text + " (line " + std::to_string(u.loc.line) + ")";
        return text;
    };
    // Spread alone, the sub-units hold the same input rows and each completes the outputs its taps reach
    // from them: outputs shifted by the tap, clipped at the edges (the simulator's execution). Timeloop's
    // spatial loop over the taps keeps every PE on the same outputs and shifts their input rows instead:
    // another dataflow, other counts (doc/timeloop.md).
    for (const auto& b : level.directives) {
        const int w = s.slideOf[std::size_t(dimOf(b))];
        if (b.kind == Kind::SpatialMap && w >= 0 && spreadWindow[std::size_t(w)] == 1) {
            const std::string& name = p.dims[std::size_t(dimOf(b))].name;
            refuse(whereOf(b) + ": the filter dimension " + name + " is spread over sub-units that hold the "
                + "same input rows, so each completes outputs shifted by its taps; Timeloop's spatial loop "
                + "over " + s.dims[std::size_t(s.tlOf[std::size_t(dimOf(b))])].name
                + " keeps the outputs and shifts the input rows. Exported with the input rows spread in "
                + "lock-step (row-stationary) or the taps in time");
        }
    }
    for (const auto& dir : level.directives) {
        const int d = problemDimOfId[std::size_t(dir.dim)];
        const std::string& name = p.dims[std::size_t(d)].name;
        const bool spatial = dir.kind == Kind::SpatialMap;
        auto where = [&] { return whereOf(dir); };
        const bool paired = &dir == pairedInput;
        if (spatial && !paired && ++spatialMaps > 1)
            refuse(where()
                + ": a second SpatialMap in one cluster level moves together with the first; Timeloop's"
                  " spatial loops are independent");
        const i64 par = parent[std::size_t(d)];
        const i64 sz = std::min(dir.size, par);
        i64 count = 1;
        std::string tlName;
        i64 tileSize = sz;
        if (const int w = s.slideOf[std::size_t(d)]; w >= 0) {
            tlName = s.dims[std::size_t(s.tlOf[std::size_t(d)])].name;
            if (sz < par) {
                if (!spatial)
                    refuse(where() + ": the filter dimension " + name
                        + " is split in time; exported only when each step covers the filter rows in force");
                if (dir.offset != dir.size || par % sz != 0)
                    refuse(where() + ": the filter dimension " + name + " is spread in tiles of "
                        + std::to_string(dir.size) + " at offset " + std::to_string(dir.offset) + " over its "
                        + std::to_string(par) + " taps; Timeloop's spatial loop takes equal tiles that divide"
                        + " them");
                count = par / sz;
            }
        } else if (const int w2 = s.refOf[std::size_t(d)]; w2 >= 0) {
            const auto& win = p.windows[std::size_t(w2)];
            const int slide = findDim(p, win.sliding);
            // The filter rows in force at this level (fewer than the window's once spread over PEs).
            const i64 taps = levelParent[std::size_t(slide)];
            const i64 span = win.dilation * (taps - 1) + 1;
            tlName = s.dims[std::size_t(s.tlOf[std::size_t(findDim(p, win.output))])].name;
            const i64 parentOut = par >= span ? (par - span) / win.stride + 1 : 0;
            if (spreadWindow[std::size_t(w2)] != 0) {
                // Filter rows spread in this level with their input rows in lock-step (spread alone was
                // refused above): each PE computes the parent's output rows with its own filter rows,
                // reading those output rows' input rows for them, one filter tile further per PE.
                const i64 filterTile = std::min(
                    [&] {
                        for (const auto& b : level.directives)
                            if (dimOf(b) == slide) return b.size;
                        return taps;
                    }(),
                    taps);
                const i64 need = (parentOut - 1) * win.stride + win.dilation * (filterTile - 1) + 1;
                if (sz != need || (paired && dir.offset != filterTile * win.dilation))
                    refuse(where() + ": with " + std::to_string(filterTile) + " filter row(s) of "
                        + win.sliding + " per PE, each PE's input rows for the " + std::to_string(parentOut)
                        + " output rows in force are " + std::to_string(need)
                        + (paired ? " at offset " + std::to_string(filterTile * win.dilation) : std::string())
                        + " (row-stationary); other rows or offsets change the outputs a PE computes");
                tileSize = parentOut;
            } else if (sz >= par) {
                tileSize = parentOut;
            } else {
                if (sz < span || (sz - span) % win.stride != 0)
                    refuse(where() + ": a tile of " + std::to_string(sz)
                        + " input rows is not a whole number of" + " output rows of the "
                        + std::to_string(span) + "-row window with stride " + std::to_string(win.stride));
                const i64 rows = (sz - span) / win.stride + 1;
                if (dir.offset != rows * win.stride)
                    refuse(where() + ": the offset " + std::to_string(dir.offset) + " is not the tile's "
                        + std::to_string(rows) + " output row(s) x stride " + std::to_string(win.stride)
                        + ": consecutive tiles would overlap or skip outputs");
                if (parentOut % rows != 0)
                    refuse(where() + ": tiles of " + std::to_string(rows) + " output rows do not divide the "
                        + std::to_string(parentOut) + " rows they cover; Timeloop would count the last"
                        + " partial tile as a full one");
                tileSize = rows;
                count = parentOut / rows;
            }
        } else {
            tlName = s.dims[std::size_t(s.tlOf[std::size_t(d)])].name;
            if (sz < par) {
                if (dir.offset != dir.size)
                    refuse(where() + ": tiles of " + std::to_string(dir.size) + " at offset "
                        + std::to_string(dir.offset) + " "
                        + (dir.offset < dir.size ? "overlap" : "skip indices") + " on " + name
                        + ", which is not a sliding window's input");
                if (par % sz != 0)
                    refuse(where() + ": tiles of " + std::to_string(sz) + " do not divide the "
                        + std::to_string(par) + " indices of " + name
                        + " they cover; Timeloop would count the last partial tile as a full one");
                count = par / sz;
            }
        }
        if (spatial) {
            const i64 units = level.subUnits;
            if (units == 1) {
                if (count > 1) out.temporal.push_back({tlName, count});
            } else if (count <= units) {
                if (count > 1) out.spatial.push_back({tlName, count});
            } else {
                if (count % units != 0)
                    refuse(where() + ": " + std::to_string(count) + " tiles over " + std::to_string(units)
                        + " sub-units leave a partial fold; Timeloop would count it as a full one");
                out.spatial.push_back({tlName, units});
                out.temporal.push_back({tlName, count / units});
            }
        } else if (count > 1) {
            out.temporal.push_back({tlName, count});
        }
        out.tile[tlName] = tileSize;
        out.tileOrder.push_back(tlName);
        parent[std::size_t(d)] = sz;
    }
    return out;
}

void multiply(std::map<std::string, i64>& cum, const std::vector<Loop>& loops)
{
    for (const auto& l : loops)
        cum[l.dim] = (cum.count(l.dim) ? cum[l.dim] : 1) * l.factor;
}

// ---- YAML emission -------------------------------------------------------------------------------

std::string factorsLine(const Mapping& m, const std::vector<Loop>& loops)
{
    std::map<std::string, i64> f;
    for (const auto& l : loops)
        f[l.dim] = (f.count(l.dim) ? f[l.dim] : 1) * l.factor;
    std::string s;
    for (const auto& d : m.dims)
        s += (s.empty() ? "" : " ") + d + "=" + std::to_string(f.count(d) ? f[d] : 1);
    return s;
}

/// Innermost first: the loops (outermost first) reversed, then every other dimension in problem order.
std::string permutation(const Mapping& m, const std::vector<Loop>& loops)
{
    std::string s;
    for (auto it = loops.rbegin(); it != loops.rend(); ++it)
        if (s.find(it->dim) == std::string::npos) s += it->dim;
    for (const auto& d : m.dims)
        if (s.find(d) == std::string::npos) s += d;
    return s;
}

std::string quoted(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

std::string problemYaml(const cost::Problem& p, const Shape& s, const Mapping& m, const std::string& layer)
{
    std::ostringstream o;
    o << "# Layer " << layer << " as a Timeloop problem (written by Marvel Studio). Output dimensions P, Q\n"
      << "# are output sizes; each pairs with the filter dimension of its window.\n";
    o << "problem:\n  shape:\n    name: " << quoted(layer) << "\n    dimensions: [ ";
    for (std::size_t i = 0; i < m.dims.size(); ++i)
        o << (i ? ", " : "") << m.dims[i];
    o << " ]\n";
    if (!s.coeffNames.empty()) {
        o << "    coefficients:\n";
        for (const auto& [st, dl] : s.coeffNames)
            o << "      - { name: " << st << ", default: 1 }\n      - { name: " << dl << ", default: 1 }\n";
    }
    o << "    data_spaces:\n";
    for (std::size_t t = 0; t < p.tensors.size(); ++t) {
        const auto& ten = p.tensors[t];
        o << "      - name: " << s.spaceNames[t] << "\n        projection:\n";
        const bool windowed = std::any_of(ten.dims.begin(), ten.dims.end(), [&](const std::string& dn) {
            const int d = findDim(p, dn);
            return d >= 0 && s.refOf[std::size_t(d)] >= 0;
        });
        if (s.addedBatch && (windowed || ten.role == cost::ProblemTensor::Role::Output))
            o << "          - [ [N] ]\n";
        for (const auto& dn : ten.dims) {
            const int d = findDim(p, dn);
            if (const int w = s.refOf[std::size_t(d)]; w >= 0) {
                const auto& win = p.windows[std::size_t(w)];
                o << "          - [ ["
                  << s.dims[std::size_t(s.tlOf[std::size_t(findDim(p, win.sliding))])].name << ", "
                  << s.coeffNames[std::size_t(w)].second << "], ["
                  << s.dims[std::size_t(s.tlOf[std::size_t(findDim(p, win.output))])].name << ", "
                  << s.coeffNames[std::size_t(w)].first << "] ]\n";
            } else {
                o << "          - [ [" << s.dims[std::size_t(s.tlOf[std::size_t(d)])].name << "] ]\n";
            }
        }
        if (ten.role == cost::ProblemTensor::Role::Output) o << "        read_write: True\n";
    }
    o << "  instance:\n";
    for (std::size_t i = 0; i < m.dims.size(); ++i)
        o << "    " << m.dims[i] << ": " << m.sizes[i] << "\n";
    for (const auto& [name, value] : m.coefficients)
        o << "    " << name << ": " << value << "\n";
    return o.str();
}

std::string archYaml(const arch::Accelerator& acc, const Mapping& m, const Options& opt)
{
    const i64 bits = 8 * acc.bytesPerElement;
    const std::string mb = opt.multipleBuffering > 1
        ? "            multiple_buffering: " + std::to_string(opt.multipleBuffering) + "\n"
        : std::string();
    const std::string n = std::to_string(m.pesUsed() - 1);
    // DRAM: one data bus for reads and writes, as our off-chip bandwidth is shared. The global buffer: reads
    // leave for the PEs over the NoC; Timeloop's one write port takes both the PEs' updates (our NoC) and
    // the fills from DRAM (our off-chip bus, which our model does not charge to the NoC).
    std::ostringstream o;
    o << "# Accelerator " << acc.name << " (written by Marvel Studio): DRAM, the L2 as GlobalBuffer, the\n"
      << "# PEs the mapping uses (" << m.pesUsed() << " of " << acc.numPes
      << ") with their L1 as PEBuffer, one word a " << bits << "-bit element.\n"
      << "architecture:\n  version: '0.4'\n  subtree:\n    - name: system\n      local:\n"
      << "        - name: DRAM\n          class: DRAM\n          attributes:\n"
      << "            width: " << bits << "\n            datawidth: " << bits << "\n"
      << "            shared_bandwidth: " << acc.offchipBandwidth << "\n"
      << "        - name: GlobalBuffer\n          class: SRAM\n          attributes:\n"
      << "            depth: " << acc.l2Elements() << "\n            width: " << bits << "\n"
      << "            datawidth: " << bits << "\n"
      << "            read_bandwidth: " << acc.nocBandwidth << "\n"
      << "            write_bandwidth: " << saturatingAdd(acc.nocBandwidth, acc.offchipBandwidth) << "\n"
      << mb << "        - name: PEBuffer[0.." << n << "]\n          class: regfile\n          attributes:\n"
      << "            depth: " << acc.l1Elements() << "\n            width: " << bits << "\n"
      << "            datawidth: " << bits << "\n"
      << "            meshX: " << m.meshX << "\n            meshY: " << m.meshY << "\n"
      << mb << "        - name: MAC[0.." << n << "]\n          class: intmac\n          attributes:\n"
      << "            datawidth: " << bits << "\n"
      << "            meshX: " << m.meshX << "\n            meshY: " << m.meshY << "\n";
    return o.str();
}

std::string mapYaml(const Mapping& m)
{
    std::ostringstream o;
    o << "# Outermost loops last; permutations list dimensions innermost first (written by Marvel Studio).\n"
      << "mapping:\n";
    auto level = [&](const char* target, const char* type, const std::vector<Loop>& loops, const char* note) {
        o << "  - target: " << target << "  # " << note << "\n    type: " << type
          << "\n    factors: " << factorsLine(m, loops) << "\n    permutation: " << permutation(m, loops)
          << "\n";
    };
    level("PEBuffer", "temporal", m.peBuffer, "one PE's tile (the innermost level's step)");
    // A mapping on one PE has no fan-out, and Timeloop refuses a spatial level without one (as many
    // PEBuffer instances as GlobalBuffer ones).
    if (m.pesUsed() > 1) {
        std::vector<Loop> spatial = m.spatialX;
        spatial.insert(spatial.end(), m.spatialY.begin(), m.spatialY.end());
        // Innermost first: X dimensions first, so `split` of them go to meshX.
        std::vector<Loop> reversed(spatial.rbegin(), spatial.rend());
        level("GlobalBuffer", "spatial", reversed,
            "SpatialMaps: innermost fanning level on X, the outer ones on Y");
        o << "    split: " << m.spatialX.size() << "\n";
    }
    level("GlobalBuffer", "temporal", m.globalBuffer, "the top level's loops the global buffer holds");
    level("DRAM", "temporal", m.dram, "level-3 (DRAM) loops in the top level's order");
    return o.str();
}

std::string ertYaml(const arch::Accelerator& acc, const Mapping& m)
{
    const double pj = acc.energy.macEnergyNanojoule * 1000.0;
    const std::string n = std::to_string(m.pesUsed() - 1);
    std::ostringstream o;
    o << "# Energy per action in pJ (written by Marvel Studio): our energy constants in MAC units x "
      << num(pj) << " pJ per MAC.\n# One action moves one element. DRAM: energy.dram_access (0 when the "
      << "accelerator gives none, as MAESTRO's).\n"
      << "ERT:\n  version: '0.4'\n  tables:\n";
    auto table = [&](const std::string& name, double e) {
        o << "    - name: system." << name << "\n      actions:\n";
        for (const char* a : {"read", "write", "update"})
            o << "        - { name: " << a << ", energy: " << num(e) << " }\n";
        o << "        - { name: leak, energy: 0 }\n";
    };
    table("DRAM", acc.energy.dramAccess * pj);
    table("GlobalBuffer", acc.energy.l2Access * pj);
    table("PEBuffer[0.." + n + "]", acc.energy.l1Access * pj);
    o << "    - name: system.MAC[0.." << n << "]\n      actions:\n"
      << "        - { name: compute, energy: " << num(acc.energy.mac * pj) << " }\n"
      << "        - { name: leak, energy: 0 }\n";
    return o.str();
}

} // namespace

std::int64_t Mapping::factorProduct(const std::string& dim) const
{
    i64 f = 1;
    for (const auto* list : {&dram, &globalBuffer, &spatialX, &spatialY, &peBuffer})
        for (const auto& l : *list)
            if (l.dim == dim) f *= l.factor;
    return f;
}

std::vector<std::string> dataSpaceNames(const cost::Problem& p)
{
    std::vector<std::string> names;
    int inputs = 0;
    for (const auto& t : p.tensors)
        inputs += t.role == cost::ProblemTensor::Role::Input;
    // The input read through a window is Inputs, the other Weights. Without windows (a GEMM, a 1x1
    // convolution, whose statement may name the weights first) the activations are the input that shares
    // more dimensions with the output (a convolution's batch and rows against the weights' K alone); on a
    // tie (a GEMM's A and B) the first.
    int windowed = -1;
    for (std::size_t i = 0; i < p.tensors.size() && windowed < 0; ++i)
        for (const auto& w : p.windows)
            if (std::find(p.tensors[i].dims.begin(), p.tensors[i].dims.end(), w.reference)
                != p.tensors[i].dims.end())
                windowed = int(i);
    if (windowed < 0 && p.output()) {
        int best = -1;
        for (std::size_t i = 0; i < p.tensors.size(); ++i) {
            if (p.tensors[i].role != cost::ProblemTensor::Role::Input) continue;
            int shared = 0;
            for (const auto& d : p.tensors[i].dims)
                shared += std::find(p.output()->dims.begin(), p.output()->dims.end(), d)
                    != p.output()->dims.end();
            if (shared > best) {
                best = shared;
                windowed = int(i);
            }
        }
    }
    for (std::size_t i = 0; i < p.tensors.size(); ++i) {
        const auto& t = p.tensors[i];
        if (t.role == cost::ProblemTensor::Role::Output) {
            names.push_back("Outputs");
        } else if (inputs == 2) {
            const bool isInputs = int(i) == windowed;
            names.push_back(isInputs ? "Inputs" : "Weights");
        } else {
            std::string n;
            for (char c : t.name)
                n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
            names.push_back(n);
        }
    }
    return names;
}

namespace {

cost::Evaluator correctedEvaluator(const cost::Problem& problem, const arch::Accelerator& acc)
{
    cost::Options co;
    co.fidelity = cost::Fidelity::Corrected;
    return cost::Evaluator(problem, acc, co);
}

/// translateMdc with a compiled evaluator of the problem; `files`: also write the YAML text.
Export translate(const std::string& layerName, const cost::Problem& problem, const mdc::Dataflow& dataflow,
    const arch::Accelerator& acc, const Options& options, cost::Evaluator& ev, bool files)
{
    Export e;
    e.layer = layerName;
    try {
        if (acc.simdLanes != 1)
            refuse("the accelerator has " + std::to_string(acc.simdLanes)
                + " SIMD lanes per PE; the export lays out one MAC per PE");
        const Shape s = shapeOf(problem);
        std::vector<cost::Evaluator::CompletedLevel> levels;
        try {
            levels = ev.completedLevels(dataflow);
        } catch (const InputError& err) {
            refuse(std::string("the cost model rejects the mapping: ") + err.what());
        }
        std::vector<int> problemDimOfId;
        for (std::size_t d = 0; d < problem.dims.size(); ++d) {
            const int id = ev.dimId(problem.dims[d].name);
            if (id < 0) continue;
            if (std::size_t(id) >= problemDimOfId.size()) problemDimOfId.resize(std::size_t(id) + 1, -1);
            problemDimOfId[std::size_t(id)] = int(d);
        }
        std::vector<i64> parent;
        for (const auto& d : problem.dims)
            parent.push_back(d.size);
        std::vector<LevelLoops> lv;
        for (const auto& level : levels)
            lv.push_back(translateLevel(problem, s, level, problemDimOfId, parent, dataflow));

        Mapping m;
        for (const auto& d : s.dims) {
            m.dims.push_back(d.name);
            m.sizes.push_back(d.size);
        }
        for (std::size_t w = 0; w < problem.windows.size(); ++w) {
            m.coefficients.emplace_back(s.coeffNames[w].first, problem.windows[w].stride);
            m.coefficients.emplace_back(s.coeffNames[w].second, problem.windows[w].dilation);
        }
        // Levels that spread tiles over sub-units (a fan-out); the others only step in time.
        std::vector<std::size_t> fan;
        for (std::size_t k = 0; k < lv.size(); ++k)
            if (!lv[k].spatial.empty()) fan.push_back(k);
        // The chain of loops above the first fan-out (all of them without one) runs in the global buffer and
        // DRAM. Below it the clusters keep no data and step in lock-step, and a PE's L1 holds one step's tile
        // of the innermost level: every cluster level's steps are global-buffer loops inside the chain, in
        // level order (the frames), so that Timeloop counts the global buffer's reads and updates where the
        // PEs fetch and return them, frame by frame, as our count does (doc/cost-model.md, "Global-buffer
        // traffic").
        std::vector<Loop> chain;
        for (std::size_t k = 0; k < lv.size(); ++k)
            chain.insert(chain.end(), lv[k].temporal.begin(), lv[k].temporal.end());
        const LevelLoops& inner = lv.back();
        for (const auto& d : inner.tileOrder)
            if (inner.tile.at(d) > 1) m.peBuffer.push_back({d, inner.tile.at(d)});
        // Nested fan-outs with no steps between them spread one set of tiles over the PEs whatever their
        // nesting, so they are one Timeloop spatial level: the innermost cluster level's loops along meshX,
        // every outer one's along meshY. A dimension spread at several levels is one loop of their product
        // (Timeloop takes one factor per dimension and level), on the axis of its innermost spread.
        auto onAxis = [](std::vector<Loop>& axis, const std::string& dim) {
            return std::find_if(axis.begin(), axis.end(), [&](const Loop& a) { return a.dim == dim; });
        };
        auto addSpatial = [&](std::vector<Loop>& axis, const Loop& l) {
            if (const auto it = onAxis(axis, l.dim); it != axis.end())
                it->factor *= l.factor;
            else
                axis.push_back(l);
        };
        if (!fan.empty()) {
            for (const auto& l : lv[fan.back()].spatial)
                addSpatial(m.spatialX, l);
            for (std::size_t k = 0; k + 1 < fan.size(); ++k)
                for (const auto& l : lv[fan[k]].spatial)
                    addSpatial(onAxis(m.spatialX, l.dim) != m.spatialX.end() ? m.spatialX : m.spatialY, l);
        }
        for (const auto& l : m.spatialX)
            m.meshX *= l.factor;
        for (const auto& l : m.spatialY)
            m.meshY *= l.factor;

        const double mb = std::max(1, options.multipleBuffering);
        const i64 l1Cap = i64(double(acc.l1Elements()) / mb), l2Cap = i64(double(acc.l2Elements()) / mb);
        std::map<std::string, i64> cum;
        multiply(cum, m.peBuffer);
        m.peBufferTile = tileElements(problem, s, cum);
        if (m.peBufferTile > l1Cap)
            refuse("one PE's tile holds " + std::to_string(m.peBufferTile) + " elements, more than the "
                + std::to_string(l1Cap) + " its L1 gives a tile" + (mb > 1 ? " (double-buffered)" : ""));
        multiply(cum, m.spatialX);
        multiply(cum, m.spatialY);
        if (tileElements(problem, s, cum) > l2Cap)
            refuse("one step of the PE array needs " + std::to_string(tileElements(problem, s, cum))
                + " elements, more than the " + std::to_string(l2Cap) + " the L2 gives a tile");
        // The top level holds exactly the level-3 (L2) tiles, as our DRAM traffic counts them and the search
        // writes them (mapping::toMdc): its loops are the DRAM's. So is a MAESTRO file's top level that fans
        // nothing out above other levels.
        std::vector<Loop> gbInnerFirst, dramInnerFirst;
        bool full = false;
        std::vector<Loop> top = chain;
        if (lv.size() > 1 && (lv.front().spatial.empty() || options.topLevelInDram)) {
            top.assign(chain.begin() + std::ptrdiff_t(lv.front().temporal.size()), chain.end());
            dramInnerFirst.assign(lv.front().temporal.rbegin(), lv.front().temporal.rend());
            multiply(cum, top);
            if (tileElements(problem, s, cum) > l2Cap)
                refuse("the level-3 tile needs " + std::to_string(tileElements(problem, s, cum))
                    + " elements, more than the " + std::to_string(l2Cap) + " the L2 gives a tile"
                    + (mb > 1 ? " (double-buffered)" : ""));
            gbInnerFirst.assign(top.rbegin(), top.rend());
            full = true;
            top.clear();
        }
        for (auto it = top.rbegin(); it != top.rend(); ++it) {
            if (full) {
                dramInnerFirst.push_back(*it);
                continue;
            }
            auto trial = cum;
            multiply(trial, {*it});
            if (tileElements(problem, s, trial) <= l2Cap) {
                gbInnerFirst.push_back(*it);
                cum = trial;
                continue;
            }
            full = true;
            i64 best = 1;
            for (i64 g = it->factor - 1; g > 1; --g) {
                if (it->factor % g != 0) continue;
                auto t2 = cum;
                multiply(t2, {{it->dim, g}});
                if (tileElements(problem, s, t2) <= l2Cap) {
                    best = g;
                    break;
                }
            }
            if (best > 1) {
                gbInnerFirst.push_back({it->dim, best});
                multiply(cum, {{it->dim, best}});
            }
            dramInnerFirst.push_back({it->dim, it->factor / best});
        }
        m.globalBuffer.assign(gbInnerFirst.rbegin(), gbInnerFirst.rend());
        m.dram.assign(dramInnerFirst.rbegin(), dramInnerFirst.rend());
        m.globalBufferTile = tileElements(problem, s, cum);
        // One Timeloop level has one loop per dimension. A dimension stepping in two cluster levels whose
        // loops land in one Timeloop level is one loop of their product when no other loop lies between
        // them: the tiles follow each other in the same order. In the PE buffer the order of its loops
        // changes nothing Timeloop counts (it holds the tile of them all, fills it from the global buffer
        // and feeds one operand per MAC), so its loops combine wherever they stand.
        auto combine = [](std::vector<Loop>& list, bool anyOrder, const char* level) {
            std::vector<Loop> out;
            for (const auto& l : list) {
                auto same
                    = std::find_if(out.begin(), out.end(), [&](const Loop& o) { return o.dim == l.dim; });
                if (same == out.end()) {
                    out.push_back(l);
                    continue;
                }
                if (!anyOrder && same + 1 != out.end())
                    refuse("dimension " + l.dim + " steps in two cluster levels whose loops land in the "
                        + level + " with " + (same + 1)->dim
                        + " stepping between them; Timeloop takes one loop per dimension and level, and one "
                          "loop of their product would reorder the tiles the PEs receive");
                same->factor *= l.factor;
            }
            list = std::move(out);
        };
        combine(m.dram, false, "DRAM");
        combine(m.globalBuffer, false, "global buffer");
        combine(m.peBuffer, true, "PE buffer");
        for (std::size_t i = 0; i < m.dims.size(); ++i)
            if (m.factorProduct(m.dims[i]) != m.sizes[i])
                refuse("internal: the factors of " + m.dims[i] + " multiply to "
                    + std::to_string(m.factorProduct(m.dims[i])) + ", not its size "
                    + std::to_string(m.sizes[i]));

        // The DRAM-level tiles as one level of the cost model (input-space sizes on window inputs).
        auto gbTile = [&](const std::string& tl) { return cum.count(tl) ? cum.at(tl) : i64(1); };
        auto directiveFor = [&](int d, bool spatialMap) {
            const auto& pd = problem.dims[std::size_t(d)];
            i64 size = pd.size, offset = pd.size;
            if (const int w = s.refOf[std::size_t(d)]; w >= 0) {
                const auto& win = problem.windows[std::size_t(w)];
                const i64 rows
                    = gbTile(s.dims[std::size_t(s.tlOf[std::size_t(findDim(problem, win.output))])].name);
                const i64 taps = problem.dim(win.sliding)->size;
                size = (rows - 1) * win.stride + win.dilation * (taps - 1) + 1;
                offset = rows * win.stride;
            } else if (s.tlOf[std::size_t(d)] >= 0) {
                size = offset = gbTile(s.dims[std::size_t(s.tlOf[std::size_t(d)])].name);
            }
            return spatialMap ? mdc::Directive::spatial(size, offset, pd.name)
                              : mdc::Directive::temporal(size, offset, pd.name);
        };
        // Problem dimension carrying each Timeloop dimension's tiles (a window output: its input dimension).
        auto carrier = [&](const std::string& tl) {
            for (const auto& td : s.dims)
                if (td.name == tl)
                    return td.window >= 0
                        ? findDim(problem, problem.windows[std::size_t(td.window)].reference)
                        : td.problemDim;
            return -1;
        };
        std::vector<int> written;
        for (std::size_t i = 0; i < m.dram.size(); ++i) {
            const int d = carrier(m.dram[i].dim);
            if (std::find(written.begin(), written.end(), d) != written.end()) continue;
            written.push_back(d);
        }
        for (std::size_t i = 0; i < written.size(); ++i)
            m.dramTiling.push_back(directiveFor(written[i], i + 1 == written.size()));
        for (std::size_t d = 0; d < problem.dims.size(); ++d) {
            if (std::find(written.begin(), written.end(), int(d)) != written.end()) continue;
            const bool isOutput = s.tlOf[d] >= 0 && s.dims[std::size_t(s.tlOf[d])].window >= 0;
            if (isOutput) continue; // carried by its window's input dimension
            const bool spatialHere = written.empty() && m.dramTiling.empty();
            m.dramTiling.push_back(directiveFor(int(d), spatialHere));
            if (spatialHere) written.push_back(int(d));
        }

        if (files) {
            e.files.problem = problemYaml(problem, s, m, layerName);
            e.files.arch = archYaml(acc, m, options);
            e.files.map = mapYaml(m);
            e.files.ert = ertYaml(acc, m);
        }
        e.mapping = std::move(m);
    } catch (const NotTranslatable& n) {
        e.reason = n.reason;
    }
    return e;
}

} // namespace

Export translateMdc(const std::string& layerName, const cost::Problem& problem, const mdc::Dataflow& dataflow,
    const arch::Accelerator& acc, const Options& options)
{
    try {
        cost::Evaluator ev = correctedEvaluator(problem, acc);
        return translate(layerName, problem, dataflow, acc, options, ev, true);
    } catch (const InputError& err) {
        Export e;
        e.layer = layerName;
        e.reason = std::string("the cost model cannot describe the layer: ") + err.what();
        return e;
    }
}

struct Checker::Impl
{
    cost::Problem problem;
    arch::Accelerator acc;
    Options options;
    std::optional<cost::Evaluator> ev;
};

Checker::Checker(const cost::Problem& problem, const arch::Accelerator& acc, const Options& options)
    : d(std::make_unique<Impl>())
{
    d->problem = problem;
    d->acc = acc;
    d->options = options;
    try {
        d->ev.emplace(correctedEvaluator(d->problem, d->acc));
    } catch (const InputError&) {
        // The cost model cannot describe the layer: nothing of it is expressible.
    }
}
Checker::~Checker() = default;
Checker::Checker(Checker&&) noexcept = default;

bool Checker::expressible(const mdc::Dataflow& dataflow)
{
    if (!d->ev) return false;
    // What translate refuses first, on the directives as written and without building messages: the search
    // evaluates many mappings, most of them refused for one of these.
    // A level spreads at most one loop, or filter rows with the input rows that move with them (two maps);
    // filter rows are split in time only below a level that spread them.
    int spatialInLevel = 0;
    std::vector<std::string> spread;
    for (const auto& dir : dataflow) {
        if (dir.kind == Kind::Cluster) {
            spatialInLevel = 0;
            continue;
        }
        if (dir.kind == Kind::SpatialMap && ++spatialInLevel > 2) return false;
        for (const auto& w : d->problem.windows)
            if (dir.dim == w.sliding && dir.size < d->problem.dim(w.sliding)->size) {
                if (dir.kind == Kind::SpatialMap)
                    spread.push_back(dir.dim);
                else if (std::find(spread.begin(), spread.end(), dir.dim) == spread.end())
                    return false;
            }
    }
    if (d->options.searchSpaceOnly && !spread.empty()) return false;
    const Export e = translate({}, d->problem, dataflow, d->acc, d->options, *d->ev, false);
    if (!e.ok()) return false;
    if (!d->options.searchSpaceOnly) return true;
    int spatialLoops = 0;
    for (const auto* list : {&e.mapping->spatialX, &e.mapping->spatialY})
        for (const Loop& l : *list)
            spatialLoops += l.factor > 1 ? 1 : 0;
    return spatialLoops <= 2;
}

search::DataflowFilterFactory searchFilter(const Options& options)
{
    return [options](const cost::Problem& problem, const arch::Accelerator& acc) -> search::DataflowFilter {
        auto checker = std::make_shared<Checker>(problem, acc, options);
        return [checker](const mdc::Dataflow& dataflow) { return checker->expressible(dataflow); };
    };
}

std::optional<SearchSpace> searchSpaceNamed(std::string_view name)
{
    if (name == "narrow") return SearchSpace::Narrow;
    if (name == "wide") return SearchSpace::Wide;
    return std::nullopt;
}

const char* searchSpaceName(SearchSpace space)
{
    return space == SearchSpace::Narrow ? "narrow" : "wide";
}

void restrictSearch(search::SearchConstraint& constraint, const Options& options, SearchSpace space)
{
    Options searched = options;
    searched.searchSpaceOnly = space == SearchSpace::Narrow;
    constraint.dataflowFilter = searchFilter(searched);
    // What the filter refuses from the tiles alone: a tile that does not divide its parent; in the narrow
    // space also more than two loops over the PEs and filter rows or columns spread over them (both
    // exported, not searched: Options::searchSpaceOnly).
    if (space == SearchSpace::Narrow) {
        constraint.tileRules.maxParallelLoops = 2;
        constraint.tileRules.wholeLoopsUnsplit = true;
    }
    constraint.tileRules.dividingTilesOnly = true;
    constraint.expressibleIn = "timeloop";
    constraint.expressibleSpace = searchSpaceName(space);
}

Counts ourCounts(const cost::Problem& problem, const mdc::Dataflow& dataflow, const arch::Accelerator& acc,
    const Mapping& mapping)
{
    cost::Options co;
    co.fidelity = cost::Fidelity::Corrected;
    const auto names = dataSpaceNames(problem);
    auto spaceOf = [&](const std::string& tensor) {
        for (std::size_t i = 0; i < problem.tensors.size(); ++i)
            if (problem.tensors[i].name == tensor) return names[i];
        return tensor;
    };
    Counts c;
    // Timeloop's network multicasts identical tiles only: a sliding window's halo spread over PEs reaches
    // each of them separately (arch::Multicast::Tiles), whatever the accelerator's own NoC does.
    arch::Accelerator asTimeloop = acc;
    asTimeloop.multicast = arch::Multicast::Tiles;
    const cost::Result r = cost::Evaluator(problem, asTimeloop, co).evaluate(dataflow);
    c.macs = r.m.macs;
    for (int t = 0; t < r.m.numTensors; ++t) {
        const auto& tc = r.m.tensors[std::size_t(t)];
        const std::string& tn = r.tensorNames[std::size_t(t)];
        if (problem.output() && tn == problem.output()->name)
            c.outputUpdates = tc.l2Write;
        else
            c.globalBufferReads.emplace_back(spaceOf(tn), tc.l2Read);
    }
    // What each PE receives, whoever else receives it: the same fetches without multicast.
    arch::Accelerator perPe = acc;
    perPe.multicast = arch::Multicast::None;
    const cost::Result f = cost::Evaluator(problem, perPe, co).evaluate(dataflow);
    for (int t = 0; t < f.m.numTensors; ++t) {
        const std::string& tn = f.tensorNames[std::size_t(t)];
        if (!problem.output() || tn != problem.output()->name)
            c.peFills.emplace_back(spaceOf(tn), f.m.tensors[std::size_t(t)].l2Read);
    }
    arch::Accelerator one = acc;
    one.numPes = 1;
    const cost::Result d = cost::Evaluator(problem, one, co).evaluate(mapping.dramTiling);
    for (int t = 0; t < d.m.numTensors; ++t) {
        const auto& tc = d.m.tensors[std::size_t(t)];
        c.dramReads.emplace_back(spaceOf(d.tensorNames[std::size_t(t)]), tc.dramRead);
        if (problem.output() && d.tensorNames[std::size_t(t)] == problem.output()->name)
            c.outputDramWrites = tc.dramWrite;
    }
    return c;
}

void writeFiles(const Export& e, const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        Diagnostic diag;
        diag.message = dir + ": cannot create the folder (" + ec.message() + ")";
        throw InputError(diag);
    }
    const std::filesystem::path base(dir);
    writeTextFileAtomically((base / "problem.yaml").string(), e.files.problem, "the Timeloop problem");
    writeTextFileAtomically((base / "arch.yaml").string(), e.files.arch, "the Timeloop architecture");
    writeTextFileAtomically((base / "map.yaml").string(), e.files.map, "the Timeloop mapping");
    writeTextFileAtomically((base / "ert.yaml").string(), e.files.ert, "the Timeloop energy table");
}

std::vector<LayerReport> exportLayers(const std::vector<LayerToExport>& layers, const arch::Accelerator& acc,
    const std::string& dir, const Options& options)
{
    std::vector<LayerReport> out;
    for (const auto& l : layers) {
        LayerReport r;
        r.layer = l.name;
        // Timeloop's problem multiplies two tensors and accumulates: softmax, a norm or an activation is
        // another computation, which its files would misdescribe.
        if (l.problem->vectorOps > 0) {
            r.message = "not exported: not a matrix product (Timeloop's problem is a product of two tensors "
                        "accumulated)";
            out.push_back(std::move(r));
            continue;
        }
        const Export e = translateMdc(l.name, *l.problem, *l.dataflow, acc, options);
        if (!e.ok()) {
            r.message = "not exported: " + e.reason;
            out.push_back(std::move(r));
            continue;
        }
        const std::string folder = (std::filesystem::path(dir) / folderName(l.name)).string();
        writeFiles(e, folder);
        r.exported = true;
        std::ostringstream m;
        m << "exported to " << folder << " (" << e.mapping->pesUsed() << " PEs)";
        try {
            const Counts c = ourCounts(*l.problem, *l.dataflow, acc, *e.mapping);
            m << "; our counts of what Timeloop's stats count the same way (PEBuffer fills over all its "
                 "instances): computes "
              << c.macs;
            for (const auto& [n, v] : c.globalBufferReads)
                m << ", GlobalBuffer " << n << " reads " << v;
            m << ", GlobalBuffer Outputs updates " << c.outputUpdates;
            for (const auto& [n, v] : c.peFills)
                m << ", PEBuffer " << n << " fills " << v;
            // What the global buffer takes from DRAM is what DRAM sends (outputs: partial sums read back).
            for (const auto& [n, v] : c.dramReads)
                m << ", GlobalBuffer " << n << " fills " << v;
            for (const auto& [n, v] : c.dramReads)
                m << ", DRAM " << n << " reads " << v;
            m << ", DRAM Outputs updates " << c.outputDramWrites;
        } catch (const InputError& err) {
            m << "; our counts unavailable: " << err.what();
        }
        if (!l.note.empty()) m << "; " << l.note;
        r.message = m.str();
        out.push_back(std::move(r));
    }
    return out;
}

std::string folderName(const std::string& layer)
{
    std::string s;
    for (char c : layer)
        s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ? c : '_';
    if (s.empty() || s == "." || s == "..") s = "layer" + s;
    return s;
}

} // namespace marvel::timeloop
