#include "core/util/text_file.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/util/diagnostic.h"

namespace marvel {

std::string readTextFile(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(Diagnostic{path, {}, {}, "cannot read the file: it is a directory"});
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(Diagnostic{path, {}, {}, "cannot read the file"});
    // Read in chunks up to a limit: a device such as /dev/zero (or a huge file by mistake) must give a
    // message, not exhaust the memory.
    std::string text;
    char chunk[65536];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxTextFileBytes)
            throw InputError(Diagnostic{path, {}, {},
                "the file is larger than " + std::to_string(kMaxTextFileBytes >> 20)
                    + " MiB: this is not an input Marvel Studio reads"});
    }
    if (in.bad()) throw InputError(Diagnostic{path, {}, {}, "cannot read the file"});
    // A NUL byte: not a text file. Said at the first byte that is not text (in a binary file often an
    // invalid UTF-8 byte before the first NUL), as the operator reader and the app's editor say it.
    if (text.find('\0') != std::string::npos) throw InputError(*notTextDiagnostic(text, path));
    return text;
}

std::optional<Diagnostic> notTextDiagnostic(std::string_view text, const std::string& file)
{
    int line = 1;
    std::size_t lineStart = 0;
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = s[i];
        const SourceLoc loc{line, int(i - lineStart) + 1};
        if (c == 0) return Diagnostic{file, loc, {}, "unexpected NUL byte: this is not a text file"};
        if (c == '\n') {
            ++line;
            lineStart = i + 1;
            ++i;
            continue;
        }
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t length = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
        if (c >= 0xF5) length = 0;
        bool ok = length != 0 && i + length <= n;
        for (std::size_t k = 1; ok && k < length; ++k)
            ok = (s[i + k] & 0xC0) == 0x80;
        if (ok && length == 3) {
            // Reject overlong forms and UTF-16 surrogates.
            ok = !(c == 0xE0 && s[i + 1] < 0xA0) && !(c == 0xED && s[i + 1] >= 0xA0);
        } else if (ok && length == 4) {
            ok = !(c == 0xF0 && s[i + 1] < 0x90) && !(c == 0xF4 && s[i + 1] >= 0x90);
        }
        if (!ok) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", unsigned(c));
            return Diagnostic{
                file, loc, {}, std::string("invalid UTF-8 byte ") + hex + ": the file must be UTF-8 text"};
        }
        i += length;
    }
    return std::nullopt;
}

void writeTextFileAtomically(const std::string& path, std::string_view text, const std::string& what)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    fs::path temp = target;
    temp += ".tmp";
    auto fail = [&](const std::string& reason) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw InputError(Diagnostic{path, {}, {}, "cannot write " + what + reason});
    };
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) fail("");
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.close();
        if (!out) fail("");
    }
    std::error_code ec;
    fs::rename(temp, target, ec);
    if (ec) fail(": " + ec.message());
}

} // namespace marvel
