#pragma once
// Shared by the fuzz targets: the input as text, and what a reader may do with hostile input. A reader
// must either return a value or throw marvel::InputError; anything else (another exception, a crash, a
// sanitizer report, a leak, a hang) is a bug the fuzzer reports.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace marvel::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

/// Inputs that name device or system files (an operator_file or model path of /dev/zero, /dev/stdin,
/// /proc/...) would make the fuzzer test the operating system rather than the reader, or block on a
/// terminal; they are skipped. Real files are still read: relative paths resolve in the seed folder.
inline bool namesSystemFiles(std::string_view text)
{
    return text.find("/dev") != std::string_view::npos || text.find("/proc") != std::string_view::npos
        || text.find("/sys") != std::string_view::npos;
}

} // namespace marvel::fuzz
