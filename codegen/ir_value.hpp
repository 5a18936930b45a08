// The tile IR as template data: a generic, target-independent conversion of IR statements and
// expressions to the renderer's values (kinds, names, types, intrinsic names, operands), which
// templates/common's macros spell as C++ with a target's spelling tables. Both targets' bodies go
// through it. Built as tk::jinja::Value directly: no JSON between the IR and the renderer
// (--emit=template-data prints the same values as JSON, Value::to_json).
#pragma once

#include "jinja/value.hpp"
#include "lowering/ir/nodes.hpp"

namespace tk::codegen {

/// An expression: {"kind": "int"|"float"|"enum"|"var"|"ref"|"binary"|"load"|"call", "type": ...,
/// kind fields, "parens": bool}. "parens" is true when the node is an operand of a binary operator
/// that binds tighter (or equally, on the right), so the template wraps it in parentheses. A null
/// expression is None.
jinja::Value to_value(const ir::Expr& e);
/// A statement: {"kind": "block"|"let"|"assign"|"store"|"evaluate"|"for"|"if", ...}.
jinja::Value to_value(const ir::Stmt& s);

} // namespace tk::codegen
