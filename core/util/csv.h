#pragma once
// The CSV conventions of every file Marvel writes: fields quoted only when they must be, numbers written
// so that they read back exactly, and the reader for one record of such a file.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace marvel {

/// `s` as one CSV field (quoted when it holds a comma, a quote or a line break).
std::string csvField(const std::string& s);

/// The shortest text that reads back to the same double (std::to_chars).
std::string exactNumber(double v);

/// The fields of one CSV record on one line (no line break inside quotes), quotes removed; nullopt when
/// a quoted field is not closed or text follows its closing quote.
std::optional<std::vector<std::string>> splitCsvRecord(std::string_view line);

} // namespace marvel
