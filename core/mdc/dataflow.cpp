#include "core/mdc/dataflow.h"

namespace marvel::mdc {

Directive Directive::temporal(std::int64_t size, std::int64_t offset, std::string dim)
{
    return Directive{Kind::TemporalMap, size, offset, std::move(dim), {}};
}

Directive Directive::spatial(std::int64_t size, std::int64_t offset, std::string dim)
{
    return Directive{Kind::SpatialMap, size, offset, std::move(dim), {}};
}

Directive Directive::cluster(std::int64_t size)
{
    return Directive{Kind::Cluster, size, 1, {}, {}};
}

std::string Directive::toString() const
{
    switch (kind) {
    case Kind::TemporalMap:
        return "TemporalMap(" + std::to_string(size) + "," + std::to_string(offset) + ") " + dim;
    case Kind::SpatialMap:
        return "SpatialMap(" + std::to_string(size) + "," + std::to_string(offset) + ") " + dim;
    case Kind::Cluster:
        break;
    }
    return "Cluster(" + std::to_string(size) + ",P)";
}

} // namespace marvel::mdc
