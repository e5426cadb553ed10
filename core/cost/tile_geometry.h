#pragma once
// Where the tiles of a map lie and which outputs a window completes: the geometry shared by the
// simulator (core/sim) and the cost model's step walk, so both execute a mapping by the same rules.

#include <algorithm>
#include <cstdint>

#include "core/util/checked_math.h"

namespace marvel::cost {

/// Floor and ceiling of a / b for b > 0 and either sign of a.
inline std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// Tiles a map of (sz, of) visits over an extent: the first one, then one more while the previous tile
/// did not reach the end and the next one starts inside.
inline std::int64_t tileCount(std::int64_t sz, std::int64_t of, std::int64_t ext)
{
    if (ext <= 0) return 0;
    if (sz >= ext) return 1;
    return 1 + std::min((ext - sz - 1) / of + 1, (ext - 1) / of);
}

/// Half-open output range [begin, end) of a window (stride, dilation, outputs [0, outExtent)) whose every
/// held tap [tapsBegin, tapsEnd) reads a held row [rowsBegin, rowsEnd); empty when end <= begin.
struct OutputSpan
{
    std::int64_t begin = 0, end = 0;
};
inline OutputSpan windowOutputs(std::int64_t rowsBegin, std::int64_t rowsEnd, std::int64_t tapsBegin,
    std::int64_t tapsEnd, std::int64_t stride, std::int64_t dilation, std::int64_t outExtent)
{
    if (rowsEnd <= rowsBegin || tapsEnd <= tapsBegin) return {};
    const std::int64_t lo = ceilDiv(rowsBegin - dilation * tapsBegin, stride);
    const std::int64_t hi = floorDiv(rowsEnd - 1 - dilation * (tapsEnd - 1), stride) + 1;
    return {std::max<std::int64_t>(lo, 0), std::min(hi, outExtent)};
}

} // namespace marvel::cost
