#pragma once
// Reading a whole input file for the text parsers (.loop, MAESTRO .m, accelerator JSON), with the checks
// every one of them needs so that a wrong path or a binary file gives one clear message; writing an output
// file atomically.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/diagnostic.h"

namespace marvel {

/// Largest input file readTextFile() reads (the inputs are a few kilobytes).
inline constexpr std::size_t kMaxTextFileBytes = std::size_t(64) << 20;

/// The bytes of `path`. Throws InputError naming the path when it is a directory, cannot be opened or
/// read, is larger than kMaxTextFileBytes (a device such as /dev/zero never ends), or contains a NUL byte
/// (then as notTextDiagnostic() says it, at the first byte that is not text: it is not a text file, and a
/// parser would otherwise echo binary junk in its messages or, for a directory, read nothing and take
/// defaults).
std::string readTextFile(const std::string& path);

/// Why `text` is not UTF-8 text, at the first byte that makes it so: a NUL byte ("unexpected NUL byte:
/// this is not a text file") or a byte of invalid UTF-8 (overlong forms and surrogates included), as a
/// diagnostic of `file` at that byte's line:col; nullopt for text. The operator reader refuses such a
/// file with it, and the app's editor refuses to open it rather than show binary junk.
std::optional<Diagnostic> notTextDiagnostic(std::string_view text, const std::string& file);

/// Writes `text` to `path` atomically: a temporary file in the same folder, then a rename over `path`, so
/// a failed write never leaves a truncated file (nor a temporary one). Throws InputError naming the path
/// with `what` ("cannot write <what>").
void writeTextFileAtomically(
    const std::string& path, std::string_view text, const std::string& what = "file");

} // namespace marvel
