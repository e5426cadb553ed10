#pragma once
// Small text helpers shared by the messages core writes.

#include <string>
#include <vector>

namespace marvel {

/// The items in order, `separator` between each two.
inline std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ")
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? separator : "") + items[i];
    return out;
}

} // namespace marvel
