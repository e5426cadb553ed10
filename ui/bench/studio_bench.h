#pragma once
// `marvel-studio --bench`: the app's responsiveness figures, measured off-screen on the real window.

#include <QString>

namespace marvel::ui {

/// Measures, idle and then under a load it starts itself (a busy-loop process per hardware thread), the
/// worst GUI-thread stall during a whole-model search and the retune latency; idle also the replot of a
/// million points and the search's slowdown from streaming its points. Prints one line per figure with
/// the load average on stdout and returns the process exit status (0, or 2 with the reason on stderr
/// when a sample file is missing). Needs a QApplication.
int runStudioBench();

} // namespace marvel::ui
