#pragma once
// Parsing JSON input files with errors that point at the offending character as file:line:col.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/util/diagnostic.h"

namespace marvel {

/// Parses `text`; a syntax error throws InputError located at the character nlohmann stopped on, with
/// nlohmann's explanation but our own position format.
nlohmann::json parseJsonText(std::string_view text, const std::string& fileName);

/// Where the top-level value of `text` starts (its first non-blank character; 1:1 for blank text), for
/// errors about the document as a whole ("must be a JSON object").
SourceLoc topLevelLoc(std::string_view text);

} // namespace marvel
