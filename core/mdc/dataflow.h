#pragma once
// MDC (MAESTRO data-centric) mappings: data mapping directives and the layers they map, as written
// in MAESTRO mapping files (Network / Layer / Type / Stride / Dimensions / Dataflow).

#include <cstdint>
#include <string>
#include <vector>

#include "core/util/diagnostic.h"

namespace marvel::mdc {

/// One data mapping directive: TemporalMap(size, offset) dim, SpatialMap(size, offset) dim or Cluster(size).
struct Directive
{
    enum class Kind { TemporalMap, SpatialMap, Cluster };
    Kind kind = Kind::TemporalMap;
    std::int64_t size = 1;
    std::int64_t offset = 1; ///< unused for Cluster
    std::string dim; ///< unused for Cluster
    SourceLoc loc; ///< where it was read, when it came from a file

    static Directive temporal(std::int64_t size, std::int64_t offset, std::string dim);
    static Directive spatial(std::int64_t size, std::int64_t offset, std::string dim);
    static Directive cluster(std::int64_t size);
    /// "TemporalMap(3,1) Y", "SpatialMap(1,1) K", "Cluster(8,P)".
    std::string toString() const;
    friend bool operator==(const Directive& a, const Directive& b)
    {
        return a.kind == b.kind && a.size == b.size
            && (a.kind == Kind::Cluster || (a.offset == b.offset && a.dim == b.dim));
    }
};

/// A directive list, outermost first; Cluster directives separate the cluster levels.
using Dataflow = std::vector<Directive>;

/// A declared layer dimension (`K: 64`) with its outer stride (`Stride { X: 2 }`), in declaration order.
/// `dilation` is the spacing of a window's filter taps on this (window input) dimension, Y or X: the
/// window reads input rows stride*y' + dilation*r. MAESTRO has no dilation (its files never set it, and
/// writeMaestroMapping refuses one other than 1); imported models (ONNX) and JSON models do.
struct LayerDim
{
    std::string name;
    std::int64_t size = 1;
    std::int64_t stride = 1;
    std::int64_t dilation = 1;
    friend bool operator==(const LayerDim&, const LayerDim&) = default;
};

/// One layer of a MAESTRO mapping or model file.
struct Layer
{
    std::string name;
    std::string type; ///< CONV, DSCONV, NGCONV, GEMM (TRCONV is read as CONV)
    std::vector<LayerDim> dims;
    Dataflow dataflow; ///< empty in model files
    SourceLoc loc;
    friend bool operator==(const Layer& a, const Layer& b)
    {
        return a.name == b.name && a.type == b.type && a.dims == b.dims && a.dataflow == b.dataflow;
    }
};

/// A network: the layers of one mapping or model file.
struct Network
{
    std::string name;
    std::vector<Layer> layers;
};

} // namespace marvel::mdc
