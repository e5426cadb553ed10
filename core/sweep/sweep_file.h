#pragma once
// The sweep's CSV file: a header and one row per finished design point, appended and flushed as points
// finish (so a crash loses at most the point being written), sorted into grid order and rewritten
// atomically at the end, with the Pareto design points in a second file. `marvel sweep` and
// `marvel-mpi sweep` both write through it, which is what makes their files identical.

#include <fstream>
#include <string>
#include <vector>

#include "core/sweep/sweep.h"

namespace marvel::sweep {

/// FILE.csv -> FILE.pareto.csv (any other name gets ".pareto.csv" appended).
std::string paretoPath(const std::string& csvPath);
/// FILE.csv -> FILE.settings (any other name gets ".settings" appended).
std::string settingsPath(const std::string& csvPath);

/// What a sweep's rows depend on besides the grid, one "key: value" per line: the workload (each layer's
/// name, repeat and sizes), which search ran (full or quick, with or without the refinement) and the
/// search options (objective, fidelity, pruning, capacity checks). Kept beside the CSV so that --resume
/// refuses a file that another sweep wrote.
std::string sweepSettings(const workloads::Workload& workload, const SweepOptions& options);
/// The same for a context sweep: the layers of each context value's workload under its value.
std::string sweepSettings(
    const std::vector<workloads::Workload>& workloads, const Grid& grid, const SweepOptions& options);

class SweepFile
{
public:
    /// Starts `path` afresh (the header only) or, with `resume`, keeps the rows of this grid already in
    /// it: a last line cut short (no line break) is dropped and its point searched again; a missing or
    /// empty file starts afresh. Throws InputError naming the path, and the line when it is not a row of
    /// this grid (another --hw or --vary) or the header is not the sweep's, or naming settingsPath() and
    /// the setting when `settings` (sweepSettings()) differ from those the file was written with. Non-empty
    /// `settings` are written to settingsPath().
    SweepFile(std::string path, const Grid& grid, bool resume, std::string settings = {});
    ~SweepFile();
    SweepFile(const SweepFile&) = delete;
    SweepFile& operator=(const SweepFile&) = delete;

    /// The finished points, in the order they finished.
    const std::vector<PointResult>& rows() const { return m_rows; }
    /// Grid indices without a row, ascending.
    std::vector<std::size_t> pending() const;
    /// Writes and flushes one row; throws InputError when the write fails.
    void append(const PointResult& row);
    /// Rewrites the file with its rows in grid order (temporary file, then rename) and writes the Pareto
    /// design points to paretoPath(); returns them. Throws InputError when a write fails.
    DesignFronts finish();

private:
    std::string m_path;
    Grid m_grid;
    std::vector<PointResult> m_rows;
    std::vector<bool> m_done;
    std::ofstream m_out;
};

} // namespace marvel::sweep
