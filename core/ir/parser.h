#pragma once
// Reader for the `.loop` operator language (issue 2): `operator NAME(P = v, ...) { for (...) ... }`.
// The parser accepts everything rule R1 later judges (statements between loops, `if`), and rejects only
// what is not the language, with every problem it can find reported as `file:line:col: message`.

#include <string>
#include <string_view>

#include "core/ir/operator.h"

namespace marvel::ir {

/// Deepest nesting of blocks, loops, parentheses and unary operators the parser follows before giving up
/// with a diagnostic (keeps the recursive descent far from the stack limit on hostile input).
inline constexpr int kMaxNestingDepth = 256;
/// Most statements, loops and subscripts (summed over every tensor reference) one operator may have. Real DNN
/// operators have a handful; the checker compares every write with every access and every subscript with
/// every other, so these bounds keep `marvel check` to well under a second on any input that parses.
inline constexpr int kMaxStatements = 100;
inline constexpr int kMaxLoops = 100;
inline constexpr int kMaxSubscripts = 1000;
/// Largest size value, loop extent and literal magnitude accepted, so that every later computation on
/// bounds fits comfortably in 64-bit arithmetic.
inline constexpr std::int64_t kMaxExtent = 2147483647;

/// Parses one operator from `text`; `fileName` is only used in diagnostics and Operator::file.
/// Throws marvel::InputError carrying every diagnostic found (each formats as `file:line:col: message`).
/// Loops must start at 0 with unit step (the paper's normalised form); `i <= B` is stored as `i < B + 1`.
/// Size names used in subscripts are replaced by their values; in loop bounds they stay symbolic.
Operator parseOperator(std::string_view text, const std::string& fileName);

/// Reads and parses a `.loop` file; an unreadable file is an InputError naming it.
Operator parseOperatorFile(const std::string& path);

} // namespace marvel::ir
