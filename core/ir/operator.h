#pragma once
// The operator language's intermediate representation: what the `.loop` parser produces and what
// conformability, the cost model and the search read. Plain data, no behaviour beyond small queries.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/diagnostic.h"

namespace marvel::ir {

/// sum(coefficient * name) + constant, over loop iterators and size parameters.
/// Terms are kept sorted by name with no zero coefficients, so equal expressions compare equal.
struct AffineExpr
{
    std::vector<std::pair<std::string, std::int64_t>> terms;
    std::int64_t constant = 0;

    std::int64_t coefficient(std::string_view name) const;
    bool isConstant() const { return terms.empty(); }
    std::vector<std::string> variables() const;
    /// Canonical text such as "2*y + r - 1" (used in reports and DDG node labels).
    std::string toString() const;
    friend bool operator==(const AffineExpr&, const AffineExpr&) = default;
};

/// `P = value` in the operator header.
struct SizeParam
{
    std::string name;
    std::int64_t value = 0;
    SourceLoc loc;
};

/// A tensor element reference `T[s0][s1]...`.
struct TensorRef
{
    std::string tensor;
    std::vector<AffineExpr> subscripts;
    SourceLoc loc;
    /// Each subscript as written (whitespace normalised), so reports echo the user's text; may be empty
    /// for references built in code, in which case the canonical AffineExpr text is used.
    std::vector<std::string> subscriptText;
    SourceRange range; ///< the whole reference `T[...][...]`, when read from a file
    std::vector<SourceRange> subscriptRanges; ///< each subscript between its brackets; may be empty
    /// Subscript `dim` as written when known, else canonical.
    std::string subscriptToString(std::size_t dim) const;
    /// "T[x][y + r]".
    std::string toString() const;
    friend bool operator==(const TensorRef& a, const TensorRef& b)
    {
        return a.tensor == b.tensor && a.subscripts == b.subscripts;
    }
};

/// The unary functions of the language (what softmax, the normalisations and the activation functions
/// of a transformer need), in the order of kFunctionNames.
enum class Function { Exp, Sqrt, Rsqrt, Tanh, Erf, Sigmoid };
/// "exp", "sqrt", "rsqrt", "tanh", "erf", "sigmoid".
inline constexpr const char* kFunctionNames[] = {"exp", "sqrt", "rsqrt", "tanh", "erf", "sigmoid"};

/// Right-hand-side value: numbers, tensor references, + - * /, max/min and the unary functions.
struct Expr
{
    enum class Kind { Number, Ref, Add, Sub, Mul, Div, Neg, Max, Min, Call };
    Kind kind = Kind::Number;
    double number = 0.0;
    TensorRef ref; ///< Kind::Ref
    Function function = Function::Exp; ///< Kind::Call (one operand)
    std::vector<Expr> operands; ///< binary/unary operators and calls
    SourceLoc loc;
    /// Every tensor reference read by the expression, left to right.
    void collectRefs(std::vector<TensorRef>& out) const;
    /// Arithmetic operations: each + - * /, negation, max, min and function call counts one.
    std::int64_t operations() const;
};

/// `T[..] = expr;` or `T[..] += expr;` (max/min reductions are `=` with a Max/Min call on the target).
struct Statement
{
    enum class Op { Assign, AddAssign };
    TensorRef target;
    Op op = Op::Assign;
    Expr value;
    SourceLoc loc;
    std::string text; ///< the statement as written, for reports
    SourceRange range; ///< from the target to the ';'

    /// True for `T[e] += ...`, `T[e] = T[e] + ...`, `T[e] = max(T[e], ...)` and `min(...)`: the only
    /// dependences such a statement carries are reduction dependences on T[e].
    bool isReduction() const;
    /// Every tensor reference read (for `+=` this includes the target).
    std::vector<TensorRef> reads() const;
    /// `T[e] += A[..] * B[..]` (or `T[e] = T[e] + A * B`): a product of two tensors accumulated, what a
    /// PE array's MACs do. The other statements (softmax, normalisations, activations, element-wise
    /// arithmetic) run on a vector unit where the accelerator has one.
    bool isMultiplyAccumulate() const;
    /// Element operations of one instance: the value's operations, plus one for `+=`'s addition (so a
    /// multiply-accumulate is two, as FLOPs count it; a copy is none).
    std::int64_t operations() const;
};

/// A node of the loop-nest tree: a loop, a statement or an `if`.
struct Node
{
    enum class Kind { Loop, Statement, If };
    Kind kind = Kind::Statement;
    SourceLoc loc;
    SourceRange header; ///< `for (...)` or `if (...)` up to its ')', or the whole statement
    // Kind::Loop: `for (iterator = lower; iterator < upper; iterator++)`; `<=` is normalised to `< upper +
    // 1`.
    std::string iterator;
    AffineExpr lower;
    AffineExpr upper;
    // Kind::Statement
    Statement statement;
    // Kind::If
    std::string condition;
    // Kind::Loop and Kind::If
    std::vector<Node> body;
};

/// One operator of a `.loop` file.
struct Operator
{
    std::string name;
    std::string file; ///< where it was read from (for messages)
    std::string source; ///< the text it was parsed from (what the app shows of a model's layer)
    SourceLoc loc;
    std::vector<SizeParam> sizes;
    std::vector<Node> body;

    std::optional<std::int64_t> sizeValue(std::string_view name) const;
};

/// One loop of a perfect nest, with its bounds and the extent it reaches once sizes are substituted.
struct LoopInfo
{
    std::string iterator;
    AffineExpr lower;
    AffineExpr upper; ///< exclusive
    std::int64_t extent; ///< largest trip count over the iteration space (triangular loops: the maximum)
    std::string dimName; ///< dimension name: the bound's size parameter when the bound is one, else the
                         ///< iterator upper-cased
    SourceLoc loc;
};

/// The operator seen as a perfectly nested loop (only when rule R1 holds).
struct PerfectNest
{
    std::vector<LoopInfo> loops; ///< outermost first
    std::vector<Statement> statements;
};

/// The perfect-nest view, or nullopt when there are statements between loops, several loop
/// siblings or conditionals (what rule R1 reports).
std::optional<PerfectNest> perfectNest(const Operator& op);

} // namespace marvel::ir
