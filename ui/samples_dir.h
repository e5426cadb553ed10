#pragma once
// Where the app's sample operators, accelerators, models, mappings and projects are: the samples tree
// `marvel` finds its presets in too (core/resources/samples_dir.h).
#include <QString>

namespace marvel::ui {

/// The samples' root directory, resources::samplesRoot() as a QString: $MARVEL_SAMPLES_DIR when set;
/// else share/marvel-studio/samples of the executable's prefix (an installed app); else the source tree's
/// samples/ of the build tree the executable runs from; else samples/ of the working directory.
QString samplesRoot();

} // namespace marvel::ui
