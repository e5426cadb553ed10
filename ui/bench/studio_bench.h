#pragma once
// `marvel-studio --bench`: the app's responsiveness figures, measured off-screen on the real window.

#include <QString>

namespace marvel::ui {

/// Runs the four measurements (GUI-thread stall during a whole-model search, retune latency, replot of
/// a million points, the search's slowdown from streaming its points), prints one line each on stdout
/// and returns the process exit status (0, or 2 with the reason on stderr when a sample file is
/// missing). Needs a QApplication.
int runStudioBench();

} // namespace marvel::ui
