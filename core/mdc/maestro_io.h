#pragma once
// Reader and writer for MAESTRO mapping files (layers with a Dataflow block) and model files
// (the same syntax without Dataflow blocks), following mdc-cost-model.md §2.1-2.3.
//
// Differences from MAESTRO, all on input it rejects or misreads: every error is reported as
// `file:line:col: message` (MAESTRO prints "Parse error" or crashes), numbers must be plain
// non-negative integers (MAESTRO uses atoi and drops a '-' sign), CRLF line endings are accepted,
// FC/POOL/LSTM layers and unknown words inside blocks are errors, a dimension declared twice is an
// error, and an unknown Cluster type is an error (MAESTRO leaves an empty directive and crashes).

#include <string>
#include <string_view>
#include <vector>

#include "core/mdc/dataflow.h"

namespace marvel::mdc {

/// Parses a mapping or model file. `Sz(D)` and named constants are replaced by their values; TRCONV
/// layers read as CONV; strides are attached to the dimension of the same name (keys that name no
/// declared dimension are dropped, as in MAESTRO); an Accelerator block is skipped. Layers and
/// directives keep their SourceLoc. Throws InputError with every syntax error found, and for a file
/// without any layer (empty, or a Network block with nothing in it: MAESTRO prints nothing). Semantic
/// rules that need the whole layer are left to checkMaestroRules() and the cost model.
Network readMaestroMapping(std::string_view text, const std::string& fileName);
/// Reads `path` and parses it; an unreadable file throws InputError naming the path.
Network readMaestroMappingFile(const std::string& path);

/// Parses a bare directive list as written inside a Dataflow block ("SpatialMap(1,1) K; Cluster(4, P);
/// TemporalMap(Sz(R),1) Y;"), with Sz() over `dims`. Problems throw InputError naming `fileName` and
/// line:col.
Dataflow readDirectives(
    std::string_view text, const std::vector<LayerDim>& dims, const std::string& fileName);

/// Canonical MAESTRO syntax (`Network N {`, `Layer L {`, `Type: CONV`, `Stride { X: 2, Y: 2 }`,
/// `Dimensions { K: 64, ... }`, `Dataflow { TemporalMap(3,1) Y; ... Cluster(3,P); }`) that MAESTRO
/// itself reads; layers without a dataflow are written without a Dataflow block (a model file).
/// readMaestroMapping() of the result gives an equal Network. Characters that MAESTRO's tokeniser
/// treats as separators (and '{', '}') cannot appear in names and are written as '_'. MAESTRO has no
/// dilation: a layer with a dimension of dilation other than 1 throws InputError naming `fileName` and the
/// layer, rather than be written as the undilated convolution it is not.
std::string writeMaestroMapping(const Network& network, const std::string& fileName = {});

/// MAESTRO's structural rules for one layer that does not need the hardware (spec §2.2-2.5):
/// the dimensions its type needs (and not both Y and Y' or X and X'), a non-empty Dataflow, a
/// TemporalMap on R or S covering the whole filter, 1-2 SpatialMaps per cluster level, at most 3
/// Cluster directives, directives only on known dimensions (inner levels: the input-tensor
/// variables only), and Y'/X' mapped only in a level that also maps R/S. Each problem names `file`
/// and the directive's or layer's position. Empty when MAESTRO would accept the layer.
std::vector<Diagnostic> checkMaestroRules(const Layer& layer, const std::string& file);

} // namespace marvel::mdc
