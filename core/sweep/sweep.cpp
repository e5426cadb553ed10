#include "core/sweep/sweep.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/cost/costmodel.h"
#include "core/search/offchip.h"
#include "core/search/roofline.h"
#include "core/sweep/area_front.h"
#include "core/tech/technology.h"
#include "core/util/checked_math.h"
#include "core/util/csv.h"

namespace marvel::sweep {

namespace {

constexpr std::array<std::string_view, kParameterCount> kNames
    = {"pes", "simd", "l1", "l2", "noc_bw", "offchip_bw"};

[[noreturn]] void fail(std::string_view spec, std::string message)
{
    Diagnostic d;
    d.field = "--vary '" + std::string(spec) + "'";
    d.message = std::move(message);
    throw InputError(d);
}

// A positive integer with an optional binary K, M or G suffix.
std::int64_t parseNumber(std::string_view spec, std::string_view text)
{
    if (text.empty()) fail(spec, "a value is missing");
    std::int64_t scale = 1;
    switch (text.back()) {
    case 'K':
    case 'k':
        scale = std::int64_t{1} << 10;
        break;
    case 'M':
    case 'm':
        scale = std::int64_t{1} << 20;
        break;
    case 'G':
    case 'g':
        scale = std::int64_t{1} << 30;
        break;
    default:
        break;
    }
    const std::string_view digits = scale == 1 ? text : text.substr(0, text.size() - 1);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || end != digits.data() + digits.size()) {
        if (ec == std::errc::result_out_of_range)
            fail(spec, "value '" + std::string(text) + "' is too large");
        fail(spec,
            "'" + std::string(text) + "' is not a positive integer (with an optional K, M or G suffix)");
    }
    if (ec == std::errc::result_out_of_range) fail(spec, "value '" + std::string(text) + "' is too large");
    if (value <= 0) fail(spec, "values must be positive (got " + std::string(text) + ")");
    const std::optional<std::int64_t> scaled = checkedMul(value, scale);
    if (!scaled) fail(spec, "value '" + std::string(text) + "' is too large");
    return *scaled;
}

void tooMany(std::string_view spec)
{
    fail(spec, "more than " + std::to_string(kMaxAxisValues) + " values");
}

} // namespace

std::string_view parameterName(Parameter p)
{
    return kNames[static_cast<std::size_t>(p)];
}

Parameters parametersOf(const arch::Accelerator& acc)
{
    return {acc.numPes, acc.simdLanes, acc.l1Bytes, acc.l2Bytes, acc.nocBandwidth, acc.offchipBandwidth};
}

void setParameter(arch::Accelerator& acc, Parameter p, std::int64_t value)
{
    switch (p) {
    case Parameter::Pes:
        acc.numPes = value;
        break;
    case Parameter::Simd:
        acc.simdLanes = value;
        break;
    case Parameter::L1:
        acc.l1Bytes = value;
        break;
    case Parameter::L2:
        acc.l2Bytes = value;
        break;
    case Parameter::NocBw:
        acc.nocBandwidth = value;
        break;
    case Parameter::OffchipBw:
        acc.offchipBandwidth = value;
        break;
    }
}

namespace {

// The values of a --vary argument after its '=': a list, FROM:TO:xFACTOR or FROM:TO:+STEP.
std::vector<std::int64_t> parseValues(std::string_view spec, std::string_view values)
{
    if (values.empty()) fail(spec, "no values after '='");
    std::vector<std::int64_t> out;
    if (values.find(':') != std::string_view::npos) {
        // FROM:TO:xFACTOR or FROM:TO:+STEP
        const std::size_t c1 = values.find(':');
        const std::size_t c2 = values.find(':', c1 + 1);
        if (c2 == std::string_view::npos || values.find(':', c2 + 1) != std::string_view::npos)
            fail(spec, "a range is FROM:TO:xFACTOR or FROM:TO:+STEP");
        const std::int64_t from = parseNumber(spec, values.substr(0, c1));
        const std::int64_t to = parseNumber(spec, values.substr(c1 + 1, c2 - c1 - 1));
        const std::string_view step = values.substr(c2 + 1);
        if (step.empty() || (step.front() != 'x' && step.front() != '+'))
            fail(spec,
                "the step '" + std::string(step) + "' must be xFACTOR (geometric) or +STEP (arithmetic)");
        const bool geometric = step.front() == 'x';
        const std::int64_t by = parseNumber(spec, step.substr(1));
        if (geometric && by < 2) fail(spec, "the factor must be at least 2 (got " + std::to_string(by) + ")");
        if (from > to) fail(spec, "empty range: " + std::to_string(from) + " is above " + std::to_string(to));
        for (std::int64_t v = from; v <= to;) {
            if (static_cast<std::int64_t>(out.size()) == kMaxAxisValues) tooMany(spec);
            out.push_back(v);
            const std::optional<std::int64_t> next = geometric ? checkedMul(v, by) : checkedAdd(v, by);
            if (!next) break;
            v = *next;
        }
        return out;
    }
    std::size_t from = 0;
    while (from <= values.size()) {
        const std::size_t comma = std::min(values.find(',', from), values.size());
        if (static_cast<std::int64_t>(out.size()) == kMaxAxisValues) tooMany(spec);
        out.push_back(parseNumber(spec, values.substr(from, comma - from)));
        from = comma + 1;
    }
    std::sort(out.begin(), out.end());
    if (auto dup = std::adjacent_find(out.begin(), out.end()); dup != out.end())
        fail(spec, "value " + std::to_string(*dup) + " is given twice");
    return out;
}

std::string_view varyName(std::string_view spec)
{
    return spec.substr(0, spec.find('='));
}

} // namespace

Axis parseVary(std::string_view spec)
{
    const std::size_t eq = spec.find('=');
    if (eq == std::string_view::npos)
        fail(spec, "expected NAME=VALUES (e.g. pes=256,512,1024 or l2=64K:1M:x2)");
    const std::string_view name = spec.substr(0, eq);
    Axis axis;
    axis.spec = std::string(spec);
    // The CSV's column names are accepted too, so a row's header can be pasted back.
    const auto it = std::find(kNames.begin(), kNames.end(), name);
    if (it != kNames.end())
        axis.parameter = static_cast<Parameter>(it - kNames.begin());
    else if (name == "l1_bytes" || name == "l2_bytes")
        axis.parameter = name == "l1_bytes" ? Parameter::L1 : Parameter::L2;
    else if (name == "seq" || name == "kv")
        fail(spec, "'" + std::string(name) + "' varies a transformer's context, not the accelerator");
    else
        fail(spec,
            "unknown parameter '" + std::string(name) + "' (pes, simd, l1, l2, noc_bw, offchip_bw; seq, kv)");
    axis.values = parseValues(spec, spec.substr(eq + 1));
    return axis;
}

std::string_view contextName(ContextParameter p)
{
    return p == ContextParameter::Kv ? "kv" : "seq";
}

bool isContextVary(std::string_view spec)
{
    const std::string_view name = varyName(spec);
    return spec.find('=') != std::string_view::npos && (name == "seq" || name == "kv");
}

ContextAxis parseContextVary(std::string_view spec)
{
    if (!isContextVary(spec)) fail(spec, "expected seq=VALUES or kv=VALUES");
    ContextAxis axis;
    axis.parameter = varyName(spec) == "kv" ? ContextParameter::Kv : ContextParameter::Seq;
    axis.spec = std::string(spec);
    axis.values = parseValues(spec, spec.substr(spec.find('=') + 1));
    return axis;
}

Grid::Grid(arch::Accelerator base, std::vector<Axis> axes, std::optional<ContextAxis> context)
    : m_base(std::move(base))
    , m_axes(std::move(axes))
    , m_context(std::move(context))
{
    if (auto problems = arch::validate(m_base); !problems.empty()) {
        for (Diagnostic& d : problems)
            d.message = "the base accelerator is invalid: " + d.message;
        throw InputError(std::move(problems));
    }
    std::stable_sort(
        m_axes.begin(), m_axes.end(), [](const Axis& a, const Axis& b) { return a.parameter < b.parameter; });
    for (std::size_t i = 1; i < m_axes.size(); ++i)
        if (m_axes[i].parameter == m_axes[i - 1].parameter)
            fail(m_axes[i].spec,
                "parameter '" + std::string(parameterName(m_axes[i].parameter))
                    + "' is already varied by --vary '" + m_axes[i - 1].spec + "'");
    std::int64_t size = 1;
    for (const Axis& axis : m_axes) {
        if (axis.values.empty()) fail(axis.spec, "no values");
        const std::optional<std::int64_t> next
            = checkedMul(size, static_cast<std::int64_t>(axis.values.size()));
        if (!next || *next > kMaxPoints)
            fail(axis.spec, "the grid would have more than " + std::to_string(kMaxPoints) + " design points");
        size = *next;
        // Each parameter is checked on its own (the accelerator has no rule between two of them), so
        // checking every axis value against the base checks every point.
        for (std::int64_t v : axis.values) {
            arch::Accelerator acc = m_base;
            setParameter(acc, axis.parameter, v);
            if (auto problems = arch::validate(acc); !problems.empty())
                fail(axis.spec,
                    "value " + std::to_string(v) + " makes the accelerator invalid: " + problems.front().field
                        + " " + problems.front().message);
        }
    }
    m_hardwareSize = static_cast<std::size_t>(size);
    if (m_context) {
        if (m_context->values.empty()) fail(m_context->spec, "no values");
        const std::optional<std::int64_t> next
            = checkedMul(size, static_cast<std::int64_t>(m_context->values.size()));
        if (!next || *next > kMaxPoints)
            fail(m_context->spec,
                "the grid would have more than " + std::to_string(kMaxPoints) + " design points");
        size = *next;
    }
    m_size = static_cast<std::size_t>(size);
}

std::int64_t Grid::contextValue(std::size_t index) const
{
    return m_context ? m_context->values.at(contextIndex(index)) : 0;
}

Parameters Grid::parameters(std::size_t index) const
{
    index %= m_hardwareSize;
    Parameters p = parametersOf(m_base);
    for (auto axis = m_axes.rbegin(); axis != m_axes.rend(); ++axis) {
        p[static_cast<std::size_t>(axis->parameter)] = axis->values[index % axis->values.size()];
        index /= axis->values.size();
    }
    return p;
}

arch::Accelerator Grid::point(std::size_t index) const
{
    arch::Accelerator acc = m_base;
    const Parameters p = parameters(index);
    for (std::size_t i = 0; i < kParameterCount; ++i)
        setParameter(acc, static_cast<Parameter>(i), p[i]);
    tech::applyTechnology(acc); // a bigger buffer costs more per access
    return acc;
}

std::optional<std::size_t> Grid::indexOf(const Parameters& parameters, std::int64_t context) const
{
    const Parameters base = parametersOf(m_base);
    std::size_t index = 0;
    if (m_context) {
        const auto v = std::lower_bound(m_context->values.begin(), m_context->values.end(), context);
        if (v == m_context->values.end() || *v != context) return std::nullopt;
        index = static_cast<std::size_t>(v - m_context->values.begin());
    } else if (context != 0) {
        return std::nullopt;
    }
    for (std::size_t i = 0; i < kParameterCount; ++i) {
        const auto axis = std::find_if(m_axes.begin(), m_axes.end(),
            [&](const Axis& a) { return static_cast<std::size_t>(a.parameter) == i; });
        if (axis == m_axes.end()) {
            if (parameters[i] != base[i]) return std::nullopt;
            continue;
        }
        const auto v = std::lower_bound(axis->values.begin(), axis->values.end(), parameters[i]);
        if (v == axis->values.end() || *v != parameters[i]) return std::nullopt;
        index = index * axis->values.size() + static_cast<std::size_t>(v - axis->values.begin());
    }
    return index;
}

std::string_view pointSearchName(PointSearch s)
{
    return s == PointSearch::Quick ? "quick" : "full";
}

std::string pointSearchDescription(const SweepOptions& options)
{
    if (options.pointSearch == PointSearch::Quick)
        return "quick search (the decoupled search alone: the tuner may find faster or cheaper mappings)";
    return options.search.refine
        ? "full search (as marvel search with these options: the decoupled search, then the refinement)"
        : "full search (as marvel search with these options: the decoupled search, refinement off)";
}

std::string csvHeader()
{
    return "pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,edp,area,power,utilization,"
           "roofline_cycles,dram_bytes,dram_energy,energy_pj,area_mm2,power_mw,search,status";
}

std::string csvHeader(const Grid& grid)
{
    return grid.context() ? std::string(contextName(grid.context()->parameter)) + "," + csvHeader()
                          : csvHeader();
}

namespace {
constexpr std::size_t kColumns = 20;
constexpr std::size_t kEnergyPjColumn = 15, kAreaMm2Column = 16, kPowerMwColumn = 17, kSearchColumn = 18,
                      kStatusColumn = 19;
} // namespace

std::string formatRow(const PointResult& row)
{
    std::string out = row.context ? std::to_string(row.context) + ',' : std::string();
    for (std::int64_t p : row.parameters)
        out += std::to_string(p) + ',';
    if (row.ok)
        out += std::to_string(row.runtime) + ',' + exactNumber(row.energy) + ',' + exactNumber(row.edp) + ',';
    else
        out += ",,,";
    out += exactNumber(row.area) + ',' + exactNumber(row.power) + ',';
    out += row.ok ? exactNumber(row.utilization) : std::string();
    out += ',' + std::to_string(row.roofline) + ',';
    out += row.ok ? std::to_string(row.dramBytes) + ',' + exactNumber(row.dramEnergy) : std::string(",");
    out += ',' + (row.ok ? exactNumber(row.energyPj) : std::string()) + ',' + exactNumber(row.areaMm2) + ','
        + (row.ok ? exactNumber(row.powerMw) : std::string());
    out += ',' + std::string(pointSearchName(row.search));
    out += ',' + csvField(row.status);
    return out;
}

std::optional<PointResult> parseRow(std::string_view line, const Grid& grid)
{
    std::optional<std::vector<std::string>> fields = splitCsvRecord(line);
    auto integer = [](const std::string& s, std::int64_t& out) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return !s.empty() && ec == std::errc() && end == s.data() + s.size();
    };
    std::int64_t context = 0;
    if (fields && grid.context()) {
        // The context's column first; the rest as in a hardware sweep.
        if (fields->empty() || !integer(fields->front(), context) || context < 1) return std::nullopt;
        fields->erase(fields->begin());
    }
    if (!fields || fields->size() != kColumns) return std::nullopt;
    const std::vector<std::string>& f = *fields;
    auto real = [](const std::string& s, double& out) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return !s.empty() && ec == std::errc() && end == s.data() + s.size();
    };
    PointResult r;
    r.context = context;
    for (std::size_t i = 0; i < kParameterCount; ++i)
        if (!integer(f[i], r.parameters[i])) return std::nullopt;
    const std::optional<std::size_t> index = grid.indexOf(r.parameters, context);
    if (!index) return std::nullopt;
    r.index = *index;
    if (f[kSearchColumn] == pointSearchName(PointSearch::Quick))
        r.search = PointSearch::Quick;
    else if (f[kSearchColumn] != pointSearchName(PointSearch::Full))
        return std::nullopt;
    r.status = f[kStatusColumn];
    r.ok = r.status == "ok";
    if (r.status.empty()) return std::nullopt;
    if (!real(f[9], r.area) || !real(f[10], r.power) || !integer(f[12], r.roofline)) return std::nullopt;
    if (!real(f[kAreaMm2Column], r.areaMm2)) return std::nullopt;
    if (r.ok) {
        if (!integer(f[6], r.runtime) || !real(f[7], r.energy) || !real(f[8], r.edp)
            || !real(f[11], r.utilization) || !integer(f[13], r.dramBytes) || !real(f[14], r.dramEnergy)
            || !real(f[kEnergyPjColumn], r.energyPj) || !real(f[kPowerMwColumn], r.powerMw))
            return std::nullopt;
    } else if (!f[6].empty() || !f[7].empty() || !f[8].empty() || !f[11].empty() || !f[13].empty()
        || !f[14].empty() || !f[kEnergyPjColumn].empty() || !f[kPowerMwColumn].empty()) {
        return std::nullopt;
    }
    return r;
}

namespace {

// The front of (x, y) over the ok rows (area_front.h).
std::vector<PointResult> front(
    const std::vector<PointResult>& rows, double (*x)(const PointResult&), double (*y)(const PointResult&))
{
    std::vector<const PointResult*> ok;
    for (const PointResult& r : rows)
        if (r.ok) ok.push_back(&r);
    return areaFront(std::move(ok), x, y, [](const PointResult& r) { return r.index; });
}

// The design's silicon in physical units: the technology table's when the design has one (MAESTRO's
// formulas scaled otherwise, the same order), so the fronts are the ones a budget in mm^2 is held against.
double areaOf(const PointResult& r)
{
    return r.areaMm2;
}
double runtimeOf(const PointResult& r)
{
    return static_cast<double>(r.runtime);
}
double energyOf(const PointResult& r)
{
    return r.energy;
}

} // namespace

DesignFronts paretoDesigns(const std::vector<PointResult>& rows)
{
    std::vector<std::int64_t> contexts;
    for (const PointResult& r : rows)
        contexts.push_back(r.context);
    std::sort(contexts.begin(), contexts.end());
    contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
    DesignFronts out;
    for (std::int64_t c : contexts) {
        std::vector<PointResult> same;
        for (const PointResult& r : rows)
            if (r.context == c) same.push_back(r);
        for (PointResult& r : front(same, areaOf, runtimeOf))
            out.runtimeArea.push_back(std::move(r));
        for (PointResult& r : front(same, areaOf, energyOf))
            out.energyArea.push_back(std::move(r));
    }
    return out;
}

std::string paretoCsv(const DesignFronts& fronts, const std::optional<ContextAxis>& context)
{
    std::string out = "front,"
        + (context ? std::string(contextName(context->parameter)) + "," : std::string())
        + "pes,simd,l1_bytes,l2_bytes,noc_bw,offchip_bw,runtime_cycles,energy,area,power,area_mm2,power_mw\n";
    auto rows = [&](const char* name, const std::vector<PointResult>& points) {
        for (const PointResult& r : points) {
            out += name;
            if (context) out += ',' + std::to_string(r.context);
            for (std::int64_t p : r.parameters)
                out += ',' + std::to_string(p);
            out += ',' + std::to_string(r.runtime) + ',' + exactNumber(r.energy) + ',' + exactNumber(r.area)
                + ',' + exactNumber(r.power) + ',' + exactNumber(r.areaMm2) + ',' + exactNumber(r.powerMw)
                + '\n';
        }
    };
    rows("runtime-area", fronts.runtimeArea);
    rows("energy-area", fronts.energyArea);
    return out;
}

std::string formatLayerOutcome(const LayerOutcome& o)
{
    char energy[64], busy[64], dram[64];
    const auto e = std::to_chars(energy, energy + sizeof energy, o.energy, std::chars_format::hex);
    const auto b = std::to_chars(busy, busy + sizeof busy, o.busy, std::chars_format::hex);
    const auto d = std::to_chars(dram, dram + sizeof dram, o.dramEnergy, std::chars_format::hex);
    return std::string(o.ok ? "1 " : "0 ") + std::to_string(o.runtime) + ' ' + std::string(energy, e.ptr)
        + ' ' + std::string(busy, b.ptr) + ' ' + std::to_string(o.dramBytes) + ' ' + std::string(dram, d.ptr)
        + ' ' + o.status;
}

std::optional<LayerOutcome> parseLayerOutcome(std::string_view text)
{
    LayerOutcome o;
    auto field = [&text]() -> std::optional<std::string_view> {
        const std::size_t space = text.find(' ');
        if (space == std::string_view::npos) return std::nullopt;
        const std::string_view f = text.substr(0, space);
        text.remove_prefix(space + 1);
        return f;
    };
    const std::optional<std::string_view> ok = field(), runtime = field(), energy = field(), busy = field(),
                                          dramBytes = field(), dramEnergy = field();
    if (!dramEnergy || (*ok != "0" && *ok != "1")) return std::nullopt;
    o.ok = *ok == "1";
    auto whole = [](std::string_view f, auto& value, auto... format) {
        const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value, format...);
        return !f.empty() && ec == std::errc() && end == f.data() + f.size();
    };
    if (!whole(*runtime, o.runtime) || !whole(*energy, o.energy, std::chars_format::hex)
        || !whole(*busy, o.busy, std::chars_format::hex) || !whole(*dramBytes, o.dramBytes)
        || !whole(*dramEnergy, o.dramEnergy, std::chars_format::hex))
        return std::nullopt;
    o.status = std::string(text);
    return o;
}

struct Sweeper::Layer
{
    workloads::WorkloadLayer layer;
    std::optional<search::PreparedLayer> prepared; ///< with reuse
    ir::PerfectNest nest; ///< for the roofline
    /// The layer's roofline cycles on `acc`, its repeats included.
    std::int64_t roofline(const arch::Accelerator& acc) const
    {
        return search::roofline(nest, layer.op.sizes, acc).cycles * layer.repeat;
    }
};

namespace {

std::vector<workloads::Workload> single(workloads::Workload workload)
{
    std::vector<workloads::Workload> out;
    out.push_back(std::move(workload));
    return out;
}

} // namespace

Sweeper::Sweeper(Grid grid, workloads::Workload workload, SweepOptions options)
    : Sweeper(std::move(grid), single(std::move(workload)), std::move(options))
{ }

Sweeper::Sweeper(Grid grid, std::vector<workloads::Workload> workloads, SweepOptions options)
    : m_grid(std::move(grid))
    , m_options(std::move(options))
{
    const std::size_t contexts = m_grid.context() ? m_grid.context()->values.size() : 1;
    if (workloads.size() != contexts) throw std::invalid_argument("Sweeper: one workload per context value");
    std::size_t layers = 0;
    for (workloads::Workload& workload : workloads) {
        std::vector<Layer>& list = m_layers.emplace_back();
        for (workloads::WorkloadLayer& l : workload.layers) {
            Layer layer;
            search::PreparedLayer prepared = search::prepareLayer(l.op);
            layer.nest = prepared.nest;
            if (m_options.reuse) layer.prepared = std::move(prepared);
            layer.layer = std::move(l);
            list.push_back(std::move(layer));
        }
        layers += list.size();
    }
    if (m_options.reuse) {
        // Room for every layer at every L2 value tried (the search may shrink the L2 budget a few
        // times) and, for strided windows in maestro fidelity, every PE count.
        const std::size_t capacity = std::min<std::size_t>(
            std::size_t{1} << 16, std::max<std::size_t>(64, layers * (m_grid.hardwareSize() + 1) * 4));
        m_cache = std::make_shared<search::OffChipCache>(capacity);
    }
}

Sweeper::~Sweeper() = default;

std::size_t Sweeper::layerCount() const
{
    return m_layers.front().size();
}

std::optional<LayerOutcome> Sweeper::evaluateLayer(
    std::size_t index, std::size_t layer, unsigned searchThreads, std::stop_token stop) const
{
    const arch::Accelerator acc = m_grid.point(index);
    const Layer& l = m_layers.at(m_grid.contextIndex(index)).at(layer);
    search::SearchOptions options = m_options.search;
    options.threads = std::max(1u, searchThreads);
    options.offChipCache = m_cache;
    if (m_options.pointSearch == PointSearch::Quick) {
        // The paper's sweeps: the decoupled search alone under one off-chip solution.
        options.refine = false;
        options.offChipCandidates = 1;
    }
    LayerOutcome out;
    search::LayerSearchResult s;
    try {
        s = l.prepared ? search::searchLayer(l.layer.op, *l.prepared, acc, options, nullptr, stop)
                       : search::searchLayer(l.layer.op, acc, options, nullptr, stop);
    } catch (const InputError& e) {
        out.status
            = l.layer.name + ": " + (e.diagnostics().empty() ? e.what() : e.diagnostics().front().message);
        // One line per row, so that --resume can read the file line by line.
        std::replace_if(
            out.status.begin(), out.status.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
        return out;
    }
    if (s.result.cancelled) return std::nullopt;
    const std::optional<search::Candidate>& best = s.result.best(options.objective);
    if (!best) {
        const search::SearchStats& st = s.result.stats;
        out.status = l.layer.name + ": ";
        if (s.result.notMappable())
            out.status += "no mapping fits the buffers (smallest found needs L1 "
                + std::to_string(st.minL1Bytes) + " bytes per PE of " + std::to_string(acc.l1Bytes) + "; L2 "
                + std::to_string(st.minL2Bytes) + " of " + std::to_string(acc.l2Bytes) + ")";
        else
            out.status += "no valid mapping in the pruned space";
        return out;
    }
    out.ok = true;
    out.runtime = best->metrics.runtime * l.layer.repeat;
    out.energy = best->metrics.energy * l.layer.repeat;
    out.busy = best->metrics.utilization * static_cast<double>(best->metrics.runtime) * l.layer.repeat;
    out.dramBytes = (best->metrics.dramReadBytes + best->metrics.dramWriteBytes) * l.layer.repeat;
    out.dramEnergy = best->metrics.dramEnergy * l.layer.repeat;
    return out;
}

std::int64_t Sweeper::layerRoofline(std::size_t index, std::size_t layer) const
{
    return m_layers.at(m_grid.contextIndex(index)).at(layer).roofline(m_grid.point(index));
}

PointResult Sweeper::combine(std::size_t index, const std::vector<LayerOutcome>& layers) const
{
    const arch::Accelerator acc = m_grid.point(index);
    PointResult r;
    r.index = index;
    r.context = m_grid.contextValue(index);
    r.parameters = parametersOf(acc);
    r.search = m_options.pointSearch;
    const cost::AreaPower ap
        = cost::areaPower(acc, static_cast<double>(acc.l1Elements()), static_cast<double>(acc.l2Elements()));
    r.area = ap.area;
    r.power = ap.power;
    r.areaMm2 = tech::physical(acc, {}, 0).areaMm2;
    for (const Layer& l : m_layers[m_grid.contextIndex(index)])
        r.roofline += l.roofline(acc);
    std::int64_t runtime = 0, dramBytes = 0;
    double energy = 0.0, busy = 0.0, dramEnergy = 0.0;
    for (const LayerOutcome& o : layers) {
        if (!o.ok) {
            r.status = o.status;
            return r;
        }
        // Summed in layer order whoever searched them, so the totals are the same to the last bit.
        runtime += o.runtime;
        energy += o.energy;
        busy += o.busy;
        dramBytes += o.dramBytes;
        dramEnergy += o.dramEnergy;
    }
    r.ok = true;
    r.runtime = runtime;
    r.energy = energy;
    r.edp = static_cast<double>(runtime) * energy;
    r.utilization = runtime > 0 ? busy / static_cast<double>(runtime) : 0.0;
    r.dramBytes = dramBytes;
    r.dramEnergy = dramEnergy;
    const tech::Physical ph = tech::physical(acc, tech::EnergyParts{energy, 0, 0, 0, 0}, runtime);
    r.energyPj = ph.energyPj;
    r.powerMw = ph.powerMw;
    return r;
}

std::optional<PointResult> Sweeper::evaluate(
    std::size_t index, unsigned searchThreads, std::stop_token stop) const
{
    std::vector<LayerOutcome> layers;
    for (std::size_t l = 0; l < m_layers[m_grid.contextIndex(index)].size(); ++l) {
        std::optional<LayerOutcome> o = evaluateLayer(index, l, searchThreads, stop);
        if (!o) return std::nullopt;
        layers.push_back(std::move(*o));
        if (!layers.back().ok) break; // the point has failed; its later layers cannot change the row
    }
    return combine(index, layers);
}

std::vector<PointResult> Sweeper::run(const std::vector<std::size_t>& indices,
    const std::function<void(const PointResult&)>& onPoint, std::stop_token stop) const
{
    const unsigned threads
        = m_options.threads ? m_options.threads : std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers
        = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, indices.size())));
    const unsigned searchThreads = std::max(1u, threads / workers);
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::vector<PointResult> done;
    auto work = [&] {
        for (std::size_t i = next++; i < indices.size() && !stop.stop_requested(); i = next++) {
            std::optional<PointResult> r = evaluate(indices[i], searchThreads, stop);
            if (!r) break;
            const std::lock_guard lock(mutex);
            if (onPoint) onPoint(*r);
            done.push_back(std::move(*r));
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned w = 1; w < workers; ++w)
            pool.emplace_back(work);
        work();
    }
    std::sort(done.begin(), done.end(),
        [](const PointResult& a, const PointResult& b) { return a.index < b.index; });
    return done;
}

std::uint64_t Sweeper::offChipHits() const
{
    return m_cache ? m_cache->hits() : 0;
}

std::uint64_t Sweeper::offChipMisses() const
{
    return m_cache ? m_cache->misses() : 0;
}

} // namespace marvel::sweep
