// The tile IR as template data: a generic, target-independent conversion of IR statements and
// expressions to JSON (kinds, names, types, intrinsic names, operands), which templates/common's
// macros spell as C++ with a target's spelling tables. Both targets' bodies go through it.
#pragma once

#include "lowering/ir/nodes.hpp"

#include <nlohmann/json.hpp>

namespace tk::codegen {

/// An expression: {"kind": "int"|"float"|"enum"|"var"|"ref"|"binary"|"load"|"call", "type": ...,
/// kind fields, "parens": bool}. "parens" is true when the node is an operand of a binary operator
/// that binds tighter (or equally, on the right), so the template wraps it in parentheses.
nlohmann::json to_json(const ir::Expr& e);
/// A statement: {"kind": "block"|"let"|"assign"|"store"|"evaluate"|"for"|"if", ...}.
nlohmann::json to_json(const ir::Stmt& s);

} // namespace tk::codegen
