#include "core/mdc/maestro_lexer.h"

#include <charconv>

namespace marvel::mdc {

bool isMaestroSeparator(char c)
{
    switch (c) {
    case ' ':
    case '\t':
    case ',':
    case '-':
    case '>':
    case '(':
    case ')':
    case ':':
    case ';':
    case '\r':
        return true;
    default:
        return false;
    }
}

std::vector<Token> tokenizeMaestro(std::string_view text)
{
    std::vector<Token> tokens;
    int line = 1;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view lineText = text.substr(pos, end - pos);
        std::size_t i = 0;
        while (i < lineText.size()) {
            if (isMaestroSeparator(lineText[i])) {
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j < lineText.size() && !isMaestroSeparator(lineText[j]))
                ++j;
            const std::string_view word = lineText.substr(i, j - i);
            if (word.starts_with("//")) break;
            tokens.push_back({word, {line, static_cast<int>(i) + 1}, i > 0 && lineText[i - 1] == '-'});
            i = j;
        }
        if (end == text.size()) break;
        pos = end + 1;
        ++line;
    }
    return tokens;
}

std::optional<std::int64_t> parseMaestroInteger(std::string_view token)
{
    if (token.empty()) return std::nullopt;
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc{} || ptr != token.data() + token.size() || value < 0) return std::nullopt;
    return value;
}

} // namespace marvel::mdc
