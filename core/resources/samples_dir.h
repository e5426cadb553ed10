#pragma once
// Where the samples tree is (operators, accelerator presets, technology tables, models, mappings,
// projects): one finder for `marvel`, `marvel-studio` and core's own lookups (technology tables), so that
// a preset's name means the same file to every program, from whatever working directory it runs.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace marvel::resources {

/// The samples trees that exist, in the order they are looked in:
///   1. $MARVEL_SAMPLES_DIR, when it names a folder (the user's own tree, presets or not);
///   2. share/marvel-studio/samples of the executable's own prefix (an installed program, any prefix);
///   3. the source tree's samples/ of the build tree the executable is in (the build tree found by its
///      CMakeCache.txt above the executable, the source tree by the build's relative path to it);
///   4. a samples/ with the accelerator presets in a folder above the executable;
///   5. samples/ of the working directory, then of its parent.
/// Apart from the first, a folder counts only when it holds the presets (accelerators/P1_eyeriss.json).
/// Each appears once (paths compared after resolving symbolic links).
std::vector<std::filesystem::path> samplesDirs();

/// The first of samplesDirs(); "samples" (relative to the working directory) when none exists, so that
/// a message about a file under it still says where it was looked for.
std::filesystem::path samplesRoot();

/// `relative` ("accelerators/P2_edge.json", "technology") in the first samples tree that has it.
std::optional<std::filesystem::path> findSample(const std::filesystem::path& relative);

/// The file name of an accelerator preset: "P1_eyeriss.json" and "P2_edge.json" for the paper's
/// platforms "P1" and "P2", otherwise `name` + ".json" ("eyeriss_dram" -> "eyeriss_dram.json").
std::string presetFileName(const std::string& name);

/// The accelerator preset `name` (presetFileName) in the first samples tree's accelerators/ that has it.
std::optional<std::filesystem::path> findAcceleratorPreset(const std::string& name);

} // namespace marvel::resources
