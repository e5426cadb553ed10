#pragma once
// Conformability of an operator with the MDC notation (paper section "Conformable DNN Operators"):
// rules R1-R4, the dimension dependence graph (DDG) and the independent dimension variables.
//
// Definitions used throughout (the paper leaves them implicit):
// - A *dimension variable* is one dimension of one tensor: (tensor, dimension index), written "O.0".
// - A DDG *node* is one distinct subscript used in a dimension variable: (tensor, dim, affine subscript).
//   References with the same subscript in the same dimension share a node (the `O[x]` written and read by
//   `O[x] += ...` is one node per dimension).
// - Nodes are numbered in the order a statement touches memory: its right-hand side references left to
//   right, then its target; statements in program order. Rule 2's "randomly choose" among SIV subscripts
//   with the same lowest constant takes the lowest-numbered node, which reproduces the paper's stencil figure
//   (d_I:i0 -> d_I:i0+1, d_I:i0+2, d_O:i0).
// - Edges never join a node to itself; an edge added by several rules is kept once, with the lowest rule.
// - Rule 1 applies between any two distinct nodes when the target is MIV, so two MIV nodes sharing an
//   iterator depend on each other (a cycle, which R3 rejects).
// - Loops with triangular bounds are treated as their bounding box in the dependence test (conservative).

#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/ir/operator.h"

namespace marvel::conform {

/// A part of a rule's reason that names something in the operator's text: a statement, a loop, a
/// conditional, a tensor reference or a DDG node (then `node` is its index and `range` its subscript).
struct SourceLink
{
    std::size_t offset = 0; ///< where the part starts in the reason (bytes)
    std::size_t length = 0; ///< its length in bytes
    SourceRange range; ///< the text it names in the operator
    int node = -1; ///< the DDG node it names, or -1
};

/// Whether one rule holds, and a sentence naming what is responsible (or, when it holds, why).
struct RuleResult
{
    bool ok = true;
    std::string reason;
    /// When the rule fails: the parts of `reason` that name statements, loops, references or nodes, in
    /// the order they appear.
    std::vector<SourceLink> links{};
};

/// One DDG node: a subscript used in dimension `dim` of `tensor`.
struct DdgNode
{
    std::string tensor;
    int dim = 0;
    std::string subscript; ///< as written in the first reference that produced the node
    ir::AffineExpr expr; ///< the subscript in canonical form
    std::vector<std::string> iterators; ///< loop iterators of the subscript (1 = SIV, 2+ = MIV)
    /// Where the subscript is written: every reference using it, the one that produced the node first.
    std::vector<SourceRange> occurrences;
    /// "I.0:x + s": dimension variable then subscript.
    std::string label() const;
    /// "I.0": the dimension variable.
    std::string variable() const;
};

/// A directed DDG edge between node indices, with the edge rule (1, 2 or 3) that added it.
struct DdgEdge
{
    int from = 0;
    int to = 0;
    int rule = 0;
    friend bool operator==(const DdgEdge&, const DdgEdge&) = default;
};

struct Ddg
{
    std::vector<DdgNode> nodes;
    std::vector<DdgEdge> edges;
    /// Node indices with no incoming edge, in node order.
    std::vector<int> roots() const;
};

/// An independent dimension variable (a zero in-degree node) and the loop that walks it. For an MIV
/// subscript such as `i + j` the iterators are merged into one loop named "i+j" (rule R4).
struct IndependentDim
{
    std::string tensor;
    int dim = 0;
    std::string iterator;
    std::vector<std::string> mergedIterators; ///< the iterators behind `iterator`, more than one when merged
};

struct Report
{
    std::string operatorName;
    bool conformable = false;
    std::array<RuleResult, 4> rules; ///< R1, R2, R3, R4
    Ddg ddg;
    std::vector<int> topologicalOrder; ///< node indices; empty when the DDG has a cycle
    std::vector<IndependentDim> independent;
};

/// Checks R1-R4. Every rule is evaluated even when an earlier one fails (R2-R4 look at all statements and
/// their enclosing loops, perfectly nested or not), so a report explains everything at once.
Report checkConformability(const ir::Operator& op);

/// The issue-2 JSON form: {"operator", "conformable", "rules": {"R1": {"ok", "reason"}, ...},
/// "ddg": {"nodes": [{"id", "tensor", "dim", "subscript", "label"}], "edges": [{"from", "to", "rule"}]},
/// "topological_order": [node ids], "independent": [{"tensor", "dim", "iterator"}]}.
nlohmann::json toJson(const Report& report);

/// A readable multi-line report (what `marvel check` prints).
std::string toText(const Report& report);

} // namespace marvel::conform
