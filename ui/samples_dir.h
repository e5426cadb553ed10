#pragma once
// Where the app's sample operators, accelerators, models, mappings and projects are.
#include <QString>

namespace marvel::ui {

/// The samples' root directory: $MARVEL_SAMPLES_DIR when set; else ../share/marvel-studio/samples beside
/// the executable when it exists (an installed app, whatever the prefix); else the source tree's samples/
/// (a build run in place).
QString samplesRoot();

} // namespace marvel::ui
