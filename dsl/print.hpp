// The canonical text of a module: what `ttgen --emit=ast` prints and what formatters converge to.
// parse(print(m)) == m for every module the parser can produce, and print is a fixed point:
// print(parse(print(m))) == print(m). Comments are not part of the AST, so they are not printed.
#pragma once

#include "dsl/ast.hpp"

#include <string>

namespace tk::dsl {

/// Canonical .tk text: 4-space indent, one statement per line (never ';'), `@options(...)` on
/// its own line before its kernel (keys in source order), minimal parentheses (precedence and
/// left associativity), numbers in shortest round-trip form, one blank line between kernels, and
/// exactly one newline at the end.
std::string print(const Module& module);

/// One expression in canonical form (for diagnostics and tests).
std::string print(const Expr& expr);

} // namespace tk::dsl
