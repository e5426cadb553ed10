#pragma once
// Helpers several core test files share, defined once: core_tests compiles its files in groups (unity
// build, tests/CMakeLists.txt), where a helper defined in two files of a group would clash.

#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/search/search.h"
#include "core/sim/model_check.h"
#include "core/util/diagnostic.h"

namespace marvel::testsupport {

/// The diagnostics `f` throws as an InputError, formatted as the CLI prints them; "<no error>" if none.
inline std::string errorText(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return formatDiagnostics(e.diagnostics());
    }
    return "<no error>";
}

inline void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

/// One of samples/accelerators/, by file name.
inline arch::Accelerator sampleAccelerator(const char* file)
{
    return arch::loadAccelerator(std::string(MARVEL_SAMPLES_DIR) + "/accelerators/" + file);
}

inline ir::Operator parseTestOperator(const std::string& text)
{
    return ir::parseOperator(text, "test.loop");
}

/// Whether a random case spatially maps a dimension that slides a window (MAESTRO's undercount).
inline bool spatialOnTap(const sim::RandomCase& c)
{
    for (const auto& d : c.dataflow)
        if (d.kind == mdc::Directive::Kind::SpatialMap)
            for (const auto& w : c.problem.windows)
                if (d.dim == w.sliding) return true;
    return false;
}

/// The paper's search alone: one off-chip solution, no refinement.
inline search::SearchOptions decoupledOptions()
{
    search::SearchOptions o;
    o.refine = false;
    o.offChipCandidates = 1;
    return o;
}

/// The best figure of `r` for `o`; infinity when it found no mapping.
inline double bestValue(const search::SearchResult& r, search::Objective o)
{
    const std::optional<search::Candidate>& best = r.best(o);
    return best ? best->metrics.value(o) : std::numeric_limits<double>::infinity();
}

/// The cells of one CSV line (quoted cells may hold commas and doubled quotes).
inline std::vector<std::string> splitCsvLine(const std::string& line)
{
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            cells.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            cells.emplace_back();
        } else if (c != '\r') {
            cells.back() += c;
        }
    }
    return cells;
}

/// The rows of a CSV file with a header line, each as column name -> cell; blank lines skipped.
inline std::vector<std::map<std::string, std::string>> readCsv(const std::string& path)
{
    std::ifstream in(path);
    std::vector<std::map<std::string, std::string>> rows;
    std::string line;
    if (!std::getline(in, line)) return rows;
    const std::vector<std::string> header = splitCsvLine(line);
    while (std::getline(in, line)) {
        if (line.empty() || line == "\r") continue;
        const std::vector<std::string> cells = splitCsvLine(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
            row[header[i]] = cells[i];
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace marvel::testsupport
