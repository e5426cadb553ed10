#include "core/util/diagnostic.h"

namespace marvel {

std::string Diagnostic::format() const
{
    std::string out;
    if (!file.empty()) {
        out += file;
        if (loc.line > 0) {
            out += ':' + std::to_string(loc.line);
            if (loc.column > 0) out += ':' + std::to_string(loc.column);
        }
        out += ": ";
    } else if (loc.line > 0) {
        out += std::to_string(loc.line);
        if (loc.column > 0) out += ':' + std::to_string(loc.column);
        out += ": ";
    }
    if (!field.empty()) out += field + ": ";
    out += message;
    return out;
}

std::string formatDiagnostics(const std::vector<Diagnostic>& diagnostics)
{
    std::string out;
    for (const auto& d : diagnostics) {
        out += d.format();
        out += '\n';
    }
    return out;
}

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(formatDiagnostics(diagnostics))
    , m_diagnostics(std::move(diagnostics))
{ }

InputError::InputError(Diagnostic diagnostic)
    : InputError(std::vector<Diagnostic>{std::move(diagnostic)})
{ }

} // namespace marvel
