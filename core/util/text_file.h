#pragma once
// Reading a whole input file for the text parsers (.loop, MAESTRO .m, accelerator JSON), with the checks
// every one of them needs so that a wrong path or a binary file gives one clear message; writing an output
// file atomically.

#include <cstddef>
#include <string>
#include <string_view>

namespace marvel {

/// Largest input file readTextFile() reads (the inputs are a few kilobytes).
inline constexpr std::size_t kMaxTextFileBytes = std::size_t(64) << 20;

/// The bytes of `path`. Throws InputError naming the path when it is a directory, cannot be opened or
/// read, is larger than kMaxTextFileBytes (a device such as /dev/zero never ends), or contains a NUL byte
/// (then with the byte's line:col: it is not a text file, and a parser would otherwise echo binary junk in
/// its messages or, for a directory, read nothing and take defaults).
std::string readTextFile(const std::string& path);

/// Writes `text` to `path` atomically: a temporary file in the same folder, then a rename over `path`, so
/// a failed write never leaves a truncated file (nor a temporary one). Throws InputError naming the path
/// with `what` ("cannot write <what>").
void writeTextFileAtomically(
    const std::string& path, std::string_view text, const std::string& what = "file");

} // namespace marvel
