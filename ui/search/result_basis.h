#pragma once
// What a shown figure was computed for: the operator, the accelerator and the search settings. Every
// view that shows a search's numbers keeps the basis they came from; after any change of the panels the
// window compares it with the current state, and a view whose basis no longer holds says it is stale
// (greyed, with what changed) until it is computed again. A figure never borrows a value computed for
// another state (the roofline of the accelerator the model was loaded on, say).

#include <string>

#include <QString>

#include "core/arch/accelerator.h"
#include "core/ir/operator.h"
#include "core/search/onchip_search.h"
#include "core/workloads/workloads.h"

namespace marvel::ui {

struct ResultBasis
{
    std::string workload; ///< workloadKey() of the operator(s); empty when the figure is tied to none
    arch::Accelerator accelerator;
    search::SearchOptions options;
};

/// The parts of a basis a view's figures depend on (a bit set).
enum BasisPart { WorkloadPart = 1, AcceleratorPart = 2, SettingsPart = 4, AllParts = 7 };

/// The operator's content as a key: equal for texts that differ only in layout or comments, different
/// when the name, a size, a loop bound or a statement differs.
std::string workloadKey(const ir::Operator& op);
/// Every layer's key with its repeat: what a sweep of the workload depends on.
std::string workloadKey(const workloads::Workload& workload);

/// True when searches with `a` and `b` give the same results: every option but the worker threads,
/// the progress interval and the shared off-chip cache, which do not change them.
bool sameResultOptions(const search::SearchOptions& a, const search::SearchOptions& b);

/// Empty when `shown` still holds for `current` in `parts`; else what changed since, such as
/// "the accelerator (PEs)" or "the accelerator (L1, L2) and the search settings (objective)".
QString basisChange(const ResultBasis& shown, const ResultBasis& current, int parts = AllParts);

/// The unit the accelerator's energies are in: "pJ" under a technology table in pJ, else "MAC units".
QString energyUnit(const arch::Accelerator& acc);
/// The line a stale view shows: "Stale: computed before the accelerator changed." plus `what next`.
QString staleText(const QString& change, const QString& next = {});

/// The colour of stale figures and of the stale notes.
inline constexpr const char* kStaleGrey = "#9e9e9e";
inline constexpr const char* kStaleNote = "#b26a00";

} // namespace marvel::ui
