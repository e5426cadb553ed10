// main() of an area's test executable (tests/CMakeLists.txt, test_registry.h):
//   <area>_tests <test> [Qt Test options]   runs one test file's class, e.g. core_tests tst_search -v2
//   <area>_tests --list                      names the tests it holds
// CTest runs each test this way in its own process, under the name <area>_<test>.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "test_registry.h"

namespace {

struct Registered
{
    std::string name;
    marvel::testing::TestEntry entry;
};

/// Filled by the test files' static initialisers, before main(); a function so that it exists by then.
std::vector<Registered>& registry()
{
    static std::vector<Registered> tests;
    return tests;
}

void list(std::FILE* out)
{
    std::vector<std::string> names;
    for (const Registered& r : registry())
        names.push_back(r.name);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names)
        std::fprintf(out, "  %s\n", n.c_str());
}

} // namespace

bool marvel::testing::registerTest(const char* sourceFile, TestEntry entry)
{
    registry().push_back({std::filesystem::path(sourceFile).stem().string(), entry});
    return true;
}

int main(int argc, char** argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
        list(stdout);
        return 0;
    }
    const auto found = argc < 2 ? registry().end()
                                : std::find_if(registry().begin(), registry().end(),
                                    [&](const Registered& r) { return r.name == argv[1]; });
    if (found == registry().end()) {
        std::fprintf(stderr, "usage: %s TEST [Qt Test options]; TEST is one of:\n", argv[0]);
        list(stderr);
        return 2;
    }
    // Qt Test sees the command line without the test's name; QCoreApplication keeps argv, so it lives
    // until main returns.
    std::vector<char*> args{argv[0]};
    args.insert(args.end(), argv + 2, argv + argc);
    args.push_back(nullptr);
    return found->entry(argc - 1, args.data());
}
