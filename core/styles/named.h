#pragma once
// A table of an enumeration's values with their command-line names and one-line descriptions, shared by
// the styles and the fixed dataflows (internal to core/styles).

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace marvel::styles::detail {

template <typename E> struct Named
{
    E value;
    const char* name;
    const char* description;
};

/// The entry of `value` (the first one when it is missing, which a complete table never is).
template <typename E> const Named<E>& entry(std::span<const Named<E>> table, E value)
{
    for (const Named<E>& n : table)
        if (n.value == value) return n;
    return table.front();
}

template <typename E> std::optional<E> fromName(std::span<const Named<E>> table, std::string_view name)
{
    for (const Named<E>& n : table)
        if (name == n.name) return n.value;
    return std::nullopt;
}

template <typename E> std::vector<E> values(std::span<const Named<E>> table)
{
    std::vector<E> out;
    for (const Named<E>& n : table)
        out.push_back(n.value);
    return out;
}

} // namespace marvel::styles::detail
