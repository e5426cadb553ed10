#include "core/sweep/sweep_file.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/util/text_file.h"

namespace marvel::sweep {

std::string paretoPath(const std::string& csvPath)
{
    const std::string ext = ".csv";
    if (csvPath.size() > ext.size() && csvPath.ends_with(ext))
        return csvPath.substr(0, csvPath.size() - ext.size()) + ".pareto.csv";
    return csvPath + ".pareto.csv";
}

std::string settingsPath(const std::string& csvPath)
{
    const std::string ext = ".csv";
    if (csvPath.size() > ext.size() && csvPath.ends_with(ext))
        return csvPath.substr(0, csvPath.size() - ext.size()) + ".settings";
    return csvPath + ".settings";
}

namespace {

std::string layerLines(const workloads::Workload& workload)
{
    std::string out;
    for (const workloads::WorkloadLayer& layer : workload.layers) {
        out += "layer: " + layer.name + " x" + std::to_string(layer.repeat);
        for (const ir::SizeParam& size : layer.op.sizes)
            out += " " + size.name + "=" + std::to_string(size.value);
        out += "\n";
    }
    return out;
}

std::string searchLines(const SweepOptions& options);

} // namespace

std::string sweepSettings(const workloads::Workload& workload, const SweepOptions& options)
{
    return "workload: " + workload.name + "\n" + layerLines(workload) + searchLines(options);
}

std::string sweepSettings(
    const std::vector<workloads::Workload>& workloads, const Grid& grid, const SweepOptions& options)
{
    if (!grid.context()) return sweepSettings(workloads.at(0), options);
    std::string out = "workload: " + workloads.front().name + "\n";
    const ContextAxis& c = *grid.context();
    for (std::size_t i = 0; i < workloads.size() && i < c.values.size(); ++i)
        out += std::string(contextName(c.parameter)) + ": " + std::to_string(c.values[i]) + "\n"
            + layerLines(workloads[i]);
    return out + searchLines(options);
}

namespace {

std::string searchLines(const SweepOptions& options)
{
    const search::SearchOptions& search = options.search;
    std::string out = "search: " + std::string(pointSearchName(options.pointSearch)) + "\n";
    out += std::string("refine: ")
        + (search.refine && options.pointSearch == PointSearch::Full ? "yes" : "no") + "\n";
    out += "objective: " + search::toString(search.objective) + "\n";
    out += std::string("fidelity: ") + search::toString(search.fidelity) + "\n";
    out += "pe_util_bound: " + std::to_string(search.peUtilizationBound) + "\n";
    // No line means 0, the exact bests, as in the files written before the setting, which still resume with
    // --near-tie 0; any other margin, the default included, is named, so that rows of exact bests are never
    // finished with near ties (nor the other way).
    if (search.nearTie != 0) out += "near_tie: " + nlohmann::json(search.nearTie).dump() + "\n";
    out += std::string("divisors_only: ") + (search.divisorsOnly ? "yes" : "no") + "\n";
    out += std::string("l1_check: ") + (search.l1Capacity ? "yes" : "no") + "\n";
    out += std::string("l2_check: ") + (search.l2Capacity ? "yes" : "no") + "\n";
    return out;
}

[[noreturn]] void fileError(const std::string& path, int line, std::string message)
{
    Diagnostic d;
    d.file = path;
    d.loc.line = line;
    d.message = std::move(message);
    throw InputError(d);
}

std::string fileText(const Grid& grid, const std::vector<PointResult>& rows)
{
    std::string text = csvHeader(grid) + '\n';
    for (const PointResult& r : rows)
        text += formatRow(r) + '\n';
    return text;
}

} // namespace

SweepFile::SweepFile(std::string path, const Grid& grid, bool resume, std::string settings)
    : m_path(std::move(path))
    , m_grid(grid)
    , m_done(grid.size(), false)
{
    std::error_code ec;
    const std::string settingsFile = settingsPath(m_path);
    if (resume && !settings.empty() && std::filesystem::exists(m_path, ec)
        && std::filesystem::exists(settingsFile, ec)) {
        // Rows of another workload or objective would be kept as if they were this sweep's.
        auto lines = [](const std::string& text) {
            std::vector<std::string> out;
            for (std::size_t from = 0; from < text.size();) {
                const std::size_t end = std::min(text.find('\n', from), text.size());
                out.push_back(text.substr(from, end - from));
                from = end + 1;
            }
            return out;
        };
        const std::vector<std::string> was = lines(readTextFile(settingsFile)), now = lines(settings);
        for (std::size_t k = 0; k < std::max(was.size(), now.size()); ++k) {
            const std::string a = k < was.size() ? was[k] : "(nothing)",
                              b = k < now.size() ? now[k] : "(nothing)";
            if (a != b)
                fileError(settingsFile, int(k + 1),
                    "'" + m_path + "' was written by another sweep ('" + a + "', this one has '" + b
                        + "'); drop --resume or write to another --out");
        }
    }
    if (resume && std::filesystem::exists(m_path, ec)) {
        const std::string text = readTextFile(m_path);
        std::size_t from = 0;
        int line = 0;
        // Only lines ended by a line break count: the last one may have been cut by a crash.
        for (std::size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', from)) {
            const std::string_view l(text.data() + from, end - from);
            from = end + 1;
            if (++line == 1) {
                if (l != csvHeader(m_grid))
                    fileError(m_path, 1,
                        "not a sweep file: the first line is not the header '" + csvHeader(m_grid) + "'");
                continue;
            }
            const std::optional<PointResult> row = parseRow(l, m_grid);
            if (!row)
                fileError(m_path, line,
                    "not a design point of this sweep (written with another --hw or --vary, or edited); "
                    "remove the file or drop --resume to start afresh");
            if (m_done[row->index]) continue;
            m_done[row->index] = true;
            m_rows.push_back(*row);
        }
    }
    // The kept rows without any cut line, then appends.
    if (!settings.empty()) writeTextFileAtomically(settingsFile, settings, "the sweep settings file");
    writeTextFileAtomically(m_path, fileText(m_grid, m_rows), "the sweep file");
    m_out.open(m_path, std::ios::binary | std::ios::app);
    if (!m_out) fileError(m_path, 0, "cannot open the sweep file for writing");
}

SweepFile::~SweepFile() = default;

std::vector<std::size_t> SweepFile::pending() const
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m_done.size(); ++i)
        if (!m_done[i]) out.push_back(i);
    return out;
}

void SweepFile::append(const PointResult& row)
{
    if (row.index >= m_done.size() || m_done[row.index]) return;
    m_done[row.index] = true;
    m_rows.push_back(row);
    m_out << formatRow(row) << '\n';
    m_out.flush();
    if (!m_out) fileError(m_path, 0, "cannot write the sweep file");
}

DesignFronts SweepFile::finish()
{
    m_out.close();
    std::vector<PointResult> sorted = m_rows;
    std::sort(sorted.begin(), sorted.end(),
        [](const PointResult& a, const PointResult& b) { return a.index < b.index; });
    writeTextFileAtomically(m_path, fileText(m_grid, sorted), "the sweep file");
    DesignFronts fronts = paretoDesigns(sorted);
    writeTextFileAtomically(
        paretoPath(m_path), paretoCsv(fronts, m_grid.context()), "the Pareto design file");
    return fronts;
}

} // namespace marvel::sweep
