#pragma once
// MAESTRO's tokeniser (mdc-cost-model.md §2.1), shared by the mapping/model reader and the hardware
// file reader, extended with the position of every token so errors can say `file:line:col`.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/util/diagnostic.h"

namespace marvel::mdc {

/// One token: a view into the source text and its 1-based line and column (byte based).
struct Token
{
    std::string_view text;
    SourceLoc loc;
    bool afterMinus = false; ///< written right after a '-' (MAESTRO silently drops the sign)
};

/// True for the characters MAESTRO's tokeniser splits at (space, tab, ',', '-', '>', '(', ')', ':', ';'),
/// plus carriage return (see tokenizeMaestro()).
bool isMaestroSeparator(char c);

/// Splits `text` into tokens at space, tab, ',', '-', '>', '(', ')', ':', ';'; a token starting with
/// "//" ends its line. Unlike MAESTRO, a carriage return is a separator too, so CRLF files read
/// (MAESTRO turns `}\r` into one token and fails with "Parse error").
std::vector<Token> tokenizeMaestro(std::string_view text);

/// A token that is a non-negative decimal integer in int64 range, else nothing. Stricter than
/// MAESTRO's atoi (which reads "12abc" as 12 and "abc" as 0): garbage is an error, not a number.
std::optional<std::int64_t> parseMaestroInteger(std::string_view token);

} // namespace marvel::mdc
