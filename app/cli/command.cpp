#include "app/cli/command.h"

#include <algorithm>
#include <charconv>
#include <iostream>

namespace marvel::cli {

namespace {
std::map<std::string, Command>& registry()
{
    static std::map<std::string, Command> instance;
    return instance;
}

bool contains(const std::vector<std::string>& list, const std::string& item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}
} // namespace

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& valueOptions,
    const std::vector<std::string>& flagOptions)
{
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
            std::string name = a.substr(2);
            std::optional<std::string> inlineValue;
            if (auto eq = name.find('='); eq != std::string::npos) {
                inlineValue = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            if (contains(flagOptions, name) && !inlineValue) {
                m_values[name] = "";
            } else if (contains(valueOptions, name)) {
                if (inlineValue) {
                    m_values[name] = *inlineValue;
                } else if (i + 1 < argv.size()) {
                    m_values[name] = argv[++i];
                } else {
                    m_error = "option --" + name + " needs a value";
                    return;
                }
                m_repeated[name].push_back(m_values[name]);
            } else {
                m_error = "unknown option --" + name;
                return;
            }
        } else {
            m_positionals.push_back(a);
        }
    }
}

bool Args::has(const std::string& name) const
{
    return m_values.count(name) != 0;
}

std::optional<std::string> Args::value(const std::string& name) const
{
    auto it = m_values.find(name);
    if (it == m_values.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> Args::values(const std::string& name) const
{
    auto it = m_repeated.find(name);
    return it == m_repeated.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::valueOr(const std::string& name, const std::string& fallback) const
{
    return value(name).value_or(fallback);
}

std::optional<long long> Args::integer(const std::string& name, long long min, long long max)
{
    auto text = value(name);
    if (!text) return std::nullopt;
    long long v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || ptr != text->data() + text->size() || v < min || v > max) {
        m_error = "--" + name + " expects an integer from " + std::to_string(min) + " to "
            + std::to_string(max) + ", got '" + *text + "'";
        return std::nullopt;
    }
    return v;
}

std::optional<double> Args::number(const std::string& name, double min, double max)
{
    auto text = value(name);
    if (!text) return std::nullopt;
    try {
        std::size_t used = 0;
        double v = std::stod(*text, &used);
        if (used == text->size() && v >= min && v <= max) return v;
    } catch (const std::exception&) { }
    m_error = "--" + name + " expects a number from " + std::to_string(min) + " to " + std::to_string(max)
        + ", got '" + *text + "'";
    return std::nullopt;
}

bool registerCommand(Command command)
{
    auto name = command.name;
    registry()[name] = std::move(command);
    return true;
}

const std::map<std::string, Command>& commands()
{
    return registry();
}

int usageError(const Command& command, const std::string& message)
{
    std::cerr << "marvel " << command.name << ": " << message << "\n\n" << command.usage << '\n';
    return ExitCode::InputError;
}

} // namespace marvel::cli
