// `marvel`: the command-line twin of Marvel Studio. Subcommands register themselves (cmd_*.cpp).
#include <iostream>

#include "app/cli/command.h"
#include "importers/onnx/onnx_import.h"
#include "marvel_build_info.h"

namespace {
void printHelp()
{
    std::cout << "marvel " MARVEL_VERSION " - map DNN operators onto spatial accelerators\n\n"
                 "usage: marvel COMMAND [OPTIONS]\n\ncommands:\n";
    for (const auto& [name, command] : marvel::cli::commands())
        std::cout << "  " << name << std::string(name.size() < 10 ? 10 - name.size() : 1, ' ')
                  << command.summary << '\n';
    std::cout << "\nRun 'marvel COMMAND --help' for the options of a command.\n";
}
} // namespace

int main(int argc, char** argv)
{
    // Every command that takes a model file takes ONNX models (their symbolic sizes come with the
    // SequenceOptions loadWorkload passes on: --batch, --seq-len).
    marvel::onnx_import::registerOnnxReader();
    if (argc < 2) {
        printHelp();
        return marvel::cli::InputError;
    }
    std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        printHelp();
        return marvel::cli::Ok;
    }
    if (name == "--version") {
        std::cout << "marvel " MARVEL_VERSION " (commit " MARVEL_GIT_COMMIT ")\n";
        return marvel::cli::Ok;
    }
    const auto& all = marvel::cli::commands();
    auto it = all.find(name);
    if (it == all.end()) {
        std::cerr << "marvel: unknown command '" << name << "' (try 'marvel --help')\n";
        return marvel::cli::InputError;
    }
    std::vector<std::string> args(argv + 2, argv + argc);
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            std::cout << it->second.usage << '\n';
            return marvel::cli::Ok;
        }
    }
    try {
        return it->second.run(args);
    } catch (const std::exception& e) {
        // Commands report input problems themselves; anything reaching here is still the user's input
        // being unusable in some way we did not foresee, never a crash.
        std::cerr << "marvel " << name << ": " << e.what() << '\n';
        return marvel::cli::InputError;
    }
}
