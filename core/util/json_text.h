#pragma once
// Parsing JSON input files with errors that point at the offending character as file:line:col.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace marvel {

/// Parses `text`; a syntax error throws InputError located at the character nlohmann stopped on, with
/// nlohmann's explanation but our own position format.
nlohmann::json parseJsonText(std::string_view text, const std::string& fileName);

} // namespace marvel
