#pragma once
// 64-bit integer arithmetic that cannot wrap: products of user-given sizes (a MAESTRO dimension may be
// any int64) saturate at the int64 limits or report the overflow, so that hostile input gives a clear
// message or a capped figure, never undefined behaviour.

#include <cstdint>
#include <limits>
#include <optional>

namespace marvel {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

/// a * b, or nothing when it does not fit in 64 bits.
inline std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a + b, or nothing when it does not fit in 64 bits.
inline std::optional<std::int64_t> checkedAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a * b clamped to [kInt64Min, kInt64Max].
inline std::int64_t saturatingMul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (!__builtin_mul_overflow(a, b, &r)) return r;
    return (a < 0) != (b < 0) ? kInt64Min : kInt64Max;
}

/// ceil(a / b) for b > 0 and any a, without the overflow of (a + b - 1) / b near the int64 limit.
inline std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return a / b + (a % b != 0 && (a > 0) == (b > 0) ? 1 : 0);
}

/// a + b clamped to [kInt64Min, kInt64Max].
inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return a < 0 ? kInt64Min : kInt64Max;
}

} // namespace marvel
