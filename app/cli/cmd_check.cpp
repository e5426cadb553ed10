// `marvel check FILE.loop [--json]`: is the operator conformable to the MDC notation, and why (issue 2).
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/conform/conformability.h"
#include "core/ir/parser.h"

namespace cmd_check {

int run(const std::vector<std::string>& argv);

const marvel::cli::Command kCommand{"check",
    "decide whether an operator (.loop) is conformable to the MDC notation and explain why",
    "usage: marvel check FILE.loop [--json]\n\n"
    "Parses the operator, builds its dimension dependence graph and checks rules R1-R4.\n"
    "  --json   print one JSON object instead of the readable report\n\n"
    "exit status: 0 conformable, 1 not conformable, 2 input error",
    run};

int run(const std::vector<std::string>& argv)
{
    marvel::cli::Args args(argv, {}, {"json"});
    if (!args.ok()) return marvel::cli::usageError(kCommand, args.error());
    if (args.positionals().size() != 1)
        return marvel::cli::usageError(
            kCommand, args.positionals().empty() ? "missing FILE.loop" : "expects exactly one FILE.loop");
    marvel::ir::Operator op;
    try {
        op = marvel::ir::parseOperatorFile(args.positionals().front());
    } catch (const marvel::InputError& e) {
        std::cerr << e.what();
        return marvel::cli::InputError;
    }
    const auto report = marvel::conform::checkConformability(op);
    if (args.has("json"))
        std::cout << marvel::conform::toJson(report).dump(2) << '\n';
    else
        std::cout << marvel::conform::toText(report);
    return report.conformable ? marvel::cli::Ok : marvel::cli::NotConformable;
}

const bool registered = marvel::cli::registerCommand(kCommand);

} // namespace cmd_check
