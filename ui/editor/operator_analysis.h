#pragma once
// What the desktop app shows about the operator in the editor: parse diagnostics or the conformability
// report, and the DDG as a graph ready for GraphView. Computed synchronously: parsing and the rule
// checks take well under a millisecond for operators people write by hand.

#include <optional>
#include <vector>

#include <QSet>
#include <QString>

#include "core/conform/conformability.h"
#include "core/util/diagnostic.h"
#include "ui/ddg/graph_layout.h"

namespace marvel::ui {

struct OperatorAnalysis
{
    std::vector<Diagnostic> diagnostics; ///< non-empty when the text does not parse
    std::optional<conform::Report> report;
    GraphInput ddg;
    QSet<int> independentNodes; ///< zero in-degree nodes (the data mappings one writes directives for)
    QSet<int> cycleEdges; ///< edges on a cycle when R3 fails
    QSet<int> problemNodes; ///< nodes a failed R3 or R4 names, and the nodes on a cycle

    /// The DDG node whose subscript (any of its occurrences) covers this 1-based line:column, or -1.
    int nodeAt(SourceLoc loc) const;

    static OperatorAnalysis analyse(const QString& text, const QString& fileName);
};

} // namespace marvel::ui
