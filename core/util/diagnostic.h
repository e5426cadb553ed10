#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace marvel {

/// A position in a text file: 1-based line and column (0 = unknown).
struct SourceLoc
{
    int line = 0;
    int column = 0;
    friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

/// A span of text: from `begin` up to `end` (the position just past its last character), on one line or
/// several. Both unknown (0) for things built in code rather than read from a file.
struct SourceRange
{
    SourceLoc begin;
    SourceLoc end;
    bool valid() const { return begin.line > 0 && end.line > 0; }
    friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

/// One user-facing problem with an input: where it is (file and line:col, or a field path) and what is wrong.
struct Diagnostic
{
    std::string file; ///< file name as the user gave it; may be empty for in-memory input
    SourceLoc loc; ///< position in the file, when the input is text
    std::string field; ///< field path (e.g. "accelerator.num_pes") when the input is structured
    std::string message; ///< lower-case sentence without trailing period

    /// "file:line:col: message", "file: field: message" or just the message, depending on what is known.
    std::string format() const;
};

/// A problem with the field `field` of the structured file `file` (JSON readers).
inline Diagnostic fieldError(const std::string& file, std::string field, std::string message)
{
    Diagnostic d;
    d.file = file;
    d.field = std::move(field);
    d.message = std::move(message);
    return d;
}

/// Formats every diagnostic, one per line.
std::string formatDiagnostics(const std::vector<Diagnostic>& diagnostics);

/// Thrown at I/O and format boundaries; carries the diagnostics so callers can show every problem.
class InputError : public std::runtime_error
{
public:
    explicit InputError(std::vector<Diagnostic> diagnostics);
    explicit InputError(Diagnostic diagnostic);
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

private:
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace marvel
