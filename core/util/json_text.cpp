#include "core/util/json_text.h"

#include <algorithm>

#include "core/util/diagnostic.h"

namespace marvel {

namespace {
SourceLoc locOfByte(std::string_view text, std::size_t byte)
{
    SourceLoc loc{1, 1};
    const std::size_t end = std::min(byte, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++loc.line;
            loc.column = 1;
        } else {
            ++loc.column;
        }
    }
    return loc;
}

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1, column 5: ";
// we print our own position, so only the explanation after it is kept.
std::string explanation(const std::string& what)
{
    const auto column = what.find("column ");
    if (column != std::string::npos) {
        const auto colon = what.find(": ", column);
        if (colon != std::string::npos) return what.substr(colon + 2);
    }
    const auto bracket = what.find("] ");
    return bracket == std::string::npos ? what : what.substr(bracket + 2);
}
} // namespace

SourceLoc topLevelLoc(std::string_view text)
{
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    return locOfByte(text, first == std::string_view::npos ? 0 : first);
}

nlohmann::json parseJsonText(std::string_view text, const std::string& fileName)
{
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is the 1-based offset of the character that failed; point at that character.
        const std::size_t byte = e.byte > 0 ? e.byte - 1 : 0;
        throw InputError(
            Diagnostic{fileName, locOfByte(text, byte), {}, "invalid JSON: " + explanation(e.what())});
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond a double (1e400) is not a parse error for nlohmann but an out_of_range (406)
        // "number overflow parsing '1e400'", thrown without a position: locate the number it quotes.
        const std::string what = e.what();
        const auto open = what.find('\'');
        const auto close = open == std::string::npos ? open : what.find('\'', open + 1);
        std::size_t byte = 0;
        if (close != std::string::npos) {
            const std::string token = what.substr(open + 1, close - open - 1);
            if (const auto at = text.find(token); at != std::string_view::npos) byte = at;
        }
        throw InputError(
            Diagnostic{fileName, locOfByte(text, byte), {}, "invalid JSON: " + explanation(what)});
    } catch (const nlohmann::json::exception& e) {
        throw InputError(Diagnostic{fileName, SourceLoc{1, 1}, {}, "invalid JSON: " + explanation(e.what())});
    }
}

} // namespace marvel
