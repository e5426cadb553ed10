#pragma once
// The `marvel` command-line tool: each subcommand lives in its own cmd_*.cpp and registers itself here.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace marvel::cli {

/// Process exit codes shared by every subcommand.
/// 3: some layer has no mapping that fits the accelerator's buffers (the others are still reported).
enum ExitCode : int { Ok = 0, NotConformable = 1, InputError = 2, NotMappable = 3 };

/// Parsed arguments: `--name value`, `--flag` and positionals. Knows which options a command accepts so
/// that a typo is an error rather than silently ignored.
class Args
{
public:
    /// `valueOptions` take a value, `flagOptions` do not (names without the leading dashes).
    Args(const std::vector<std::string>& argv, const std::vector<std::string>& valueOptions,
        const std::vector<std::string>& flagOptions);

    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }
    bool has(const std::string& name) const;
    std::optional<std::string> value(const std::string& name) const;
    std::string valueOr(const std::string& name, const std::string& fallback) const;
    /// Every value of an option given several times, in order (value() is the last).
    std::vector<std::string> values(const std::string& name) const;
    /// Integer option; sets error() and returns nullopt when present but not an integer in [min, max].
    std::optional<long long> integer(const std::string& name, long long min, long long max);
    std::optional<double> number(const std::string& name, double min, double max);
    const std::vector<std::string>& positionals() const { return m_positionals; }

private:
    std::map<std::string, std::string> m_values;
    std::map<std::string, std::vector<std::string>> m_repeated;
    std::vector<std::string> m_positionals;
    std::string m_error;
};

struct Command
{
    std::string name;
    std::string summary; ///< one line for `marvel --help`
    std::string usage; ///< printed by `marvel NAME --help` and on usage errors
    std::function<int(const std::vector<std::string>& args)> run;
};

/// Adds a subcommand; called from a static initialiser in each cmd_*.cpp.
bool registerCommand(Command command);
const std::map<std::string, Command>& commands();

/// Prints "marvel NAME: message" and the usage to stderr; returns ExitCode::InputError.
int usageError(const Command& command, const std::string& message);

} // namespace marvel::cli
