#include "core/util/csv.h"

#include <charconv>

namespace marvel {

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string exactNumber(double v)
{
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    return ec == std::errc() ? std::string(buffer, end) : std::to_string(v);
}

std::optional<std::vector<std::string>> splitCsvRecord(std::string_view line)
{
    std::vector<std::string> fields(1);
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == ',') {
            fields.emplace_back();
            ++i;
        } else if (c == '"' && fields.back().empty()) {
            // A quoted field: "" is a quote, the closing quote must end the field.
            ++i;
            bool closed = false;
            while (i < line.size()) {
                if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                    fields.back() += '"';
                    i += 2;
                } else if (line[i] == '"') {
                    closed = true;
                    ++i;
                    break;
                } else {
                    fields.back() += line[i++];
                }
            }
            if (!closed || (i < line.size() && line[i] != ',')) return std::nullopt;
        } else {
            fields.back() += c;
            ++i;
        }
    }
    return fields;
}

} // namespace marvel
