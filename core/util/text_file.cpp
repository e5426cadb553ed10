#include "core/util/text_file.h"

#include <algorithm>
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
    if (const auto nul = text.find('\0'); nul != std::string::npos) {
        const auto lineStart = text.rfind('\n', nul);
        const SourceLoc loc{int(std::count(text.begin(), text.begin() + std::ptrdiff_t(nul), '\n')) + 1,
            int(nul - (lineStart == std::string::npos ? 0 : lineStart + 1)) + 1};
        throw InputError(Diagnostic{path, loc, {}, "unexpected NUL byte: this is not a text file"});
    }
    return text;
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
