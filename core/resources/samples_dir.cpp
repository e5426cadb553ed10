#include "core/resources/samples_dir.h"

#include <cstdlib>

namespace marvel::resources {

namespace fs = std::filesystem;

namespace {

// A folder is a samples tree when it holds the presets: an unrelated "samples" folder above a build (in
// a home directory, say) is not taken for it.
bool isSamplesTree(const fs::path& dir)
{
    std::error_code ec;
    return fs::is_regular_file(dir / "accelerators" / presetFileName("P1"), ec);
}

fs::path executableDir()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

} // namespace

std::vector<fs::path> samplesDirs()
{
    std::vector<fs::path> candidates;
    fs::path chosen; // the user's own tree: taken when it is a folder, presets or not
    if (const char* env = std::getenv("MARVEL_SAMPLES_DIR"); env && *env) {
        chosen = env;
        candidates.push_back(chosen);
    }
    if (const fs::path exeDir = executableDir(); !exeDir.empty()) {
        candidates.push_back(exeDir.parent_path() / "share/marvel-studio/samples");
        std::error_code ec;
#ifdef MARVEL_BUILD_TO_SAMPLES
        // A build tree: its root holds CMakeCache.txt; the source tree's samples are where the build was
        // configured to find them, relative to that root (never an absolute path of the machine it was
        // built on).
        for (fs::path up = exeDir; !up.empty(); up = up.parent_path()) {
            if (fs::exists(up / "CMakeCache.txt", ec)) {
                candidates.push_back(up / MARVEL_BUILD_TO_SAMPLES);
                break;
            }
            if (up == up.root_path()) break;
        }
#endif
        for (fs::path up = exeDir; !up.empty(); up = up.parent_path()) {
            if (isSamplesTree(up / "samples")) {
                candidates.push_back(up / "samples");
                break;
            }
            if (up == up.root_path()) break;
        }
    }
    candidates.emplace_back("samples");
    candidates.emplace_back("../samples");

    std::vector<fs::path> out;
    std::vector<fs::path> seen;
    for (const fs::path& c : candidates) {
        std::error_code ec;
        if (!(c == chosen ? fs::is_directory(c, ec) : isSamplesTree(c))) continue;
        fs::path canonical = fs::weakly_canonical(c, ec);
        if (ec) canonical = c.lexically_normal();
        bool dup = false;
        for (const fs::path& s : seen)
            dup = dup || s == canonical;
        if (dup) continue;
        seen.push_back(canonical);
        out.push_back(c.lexically_normal());
    }
    return out;
}

fs::path samplesRoot()
{
    const std::vector<fs::path> dirs = samplesDirs();
    return dirs.empty() ? fs::path("samples") : dirs.front();
}

std::optional<fs::path> findSample(const fs::path& relative)
{
    std::error_code ec;
    for (const fs::path& dir : samplesDirs())
        if (fs::exists(dir / relative, ec)) return dir / relative;
    return std::nullopt;
}

std::string presetFileName(const std::string& name)
{
    if (name == "P1") return "P1_eyeriss.json";
    if (name == "P2") return "P2_edge.json";
    return name + ".json";
}

std::optional<fs::path> findAcceleratorPreset(const std::string& name)
{
    if (name.empty()) return std::nullopt;
    return findSample(fs::path("accelerators") / presetFileName(name));
}

} // namespace marvel::resources
