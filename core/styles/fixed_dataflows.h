#pragma once
// MAESTRO's well-known fixed dataflows (kcp_ws, rs, xp_ws, yxp_os, ykp_os) as directive lists generated
// for any convolution (CONV or DSCONV MAESTRO layer), sized to the layer and the accelerator's PEs, and
// evaluated with our cost model. doc/search.md, "Fixed dataflows", lists the directives of each.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/cost/costmodel.h"
#include "core/mdc/dataflow.h"

namespace marvel::styles {

enum class FixedDataflow { KcpWs, Rs, XpWs, YxpOs, YkpOs };

/// "kcp_ws", "rs", "xp_ws", "yxp_os", "ykp_os".
std::string toString(FixedDataflow dataflow);
std::optional<FixedDataflow> fixedDataflowFromString(std::string_view name);
const std::vector<FixedDataflow>& allFixedDataflows();
/// One line: what is spread over the PEs and what stays.
std::string description(FixedDataflow dataflow);

/// The directives of `dataflow` for a CONV or DSCONV layer (MAESTRO dimensions K, C, R, S, Y, X with
/// strides) on `acc`. Cluster and tile sizes are chosen to keep the most PEs busy; the rs dataflow's
/// filter tile is the largest (16 down to 1, halving) whose L1 and L2 requirements fit, evaluated with
/// `options`. Throws InputError naming the layer for any other layer type.
mdc::Dataflow fixedDataflow(FixedDataflow dataflow, const mdc::Layer& layer, const arch::Accelerator& acc,
    const cost::Options& options = {});

} // namespace marvel::styles
