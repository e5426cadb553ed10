#pragma once
// Reading a whole input file for the text parsers (.loop, MAESTRO .m, accelerator JSON), with the checks
// every one of them needs so that a wrong path or a binary file gives one clear message.

#include <string>

namespace marvel {

/// The bytes of `path`. Throws InputError naming the path when it is a directory, cannot be opened or
/// read, or contains a NUL byte (then with the byte's line:col: it is not a text file, and a parser
/// would otherwise echo binary junk in its messages or, for a directory, read nothing and take defaults).
std::string readTextFile(const std::string& path);

} // namespace marvel
