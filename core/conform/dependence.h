#pragma once
// Data dependence testing between the statements of an operator (rule R2). The test is the classical
// GCD + Banerjee inequality test under hierarchically refined direction vectors (Allen & Kennedy): exact
// for the separable unit-stride subscripts of DNN operators, conservative otherwise (it may report a
// dependence that a finer test would disprove, never the reverse).

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/operator.h"

namespace marvel::conform {

/// A statement with the loops that enclose it (outermost first) and their largest extents.
struct StatementContext
{
    const ir::Statement* statement = nullptr;
    std::vector<const ir::Node*> loops;
    std::vector<std::int64_t> extents; ///< per loop: largest trip count (bounding box of triangular loops)
    int order = 0; ///< position in program order
};

/// Every statement of the operator, in program order, wherever it is (under loops or `if`s).
std::vector<StatementContext> collectStatements(const ir::Operator& op);

enum class DependenceKind { Flow, Anti, Output };
const char* toString(DependenceKind kind);

/// A dependence between two accesses to the same tensor that may touch the same element.
struct Dependence
{
    DependenceKind kind = DependenceKind::Flow;
    const StatementContext* source = nullptr; ///< statement of the write (`first`)
    const StatementContext* sink = nullptr; ///< statement of `second`
    ir::TensorRef first; ///< the write
    ir::TensorRef second; ///< the other access (read, or write for output dependences)
    bool secondIsWrite = false;
    std::vector<std::string> commonLoops; ///< iterators of the loops both statements share
    std::string direction; ///< e.g. "(<, =, *)" over commonLoops; "()" when none
    /// One sentence naming the tensor, both references, their statements and the direction.
    std::string describe() const;
};

/// Dependences other than reduction dependences: R2 forbids them. A reduction dependence is one between
/// a reduction statement's write of T[e] and its own accumulator read of T[e] or its own write of T[e] in
/// other iterations (also across two reduction statements of the same kind on the same T[e]).
std::vector<Dependence> forbiddenDependences(const std::vector<StatementContext>& statements);

} // namespace marvel::conform
