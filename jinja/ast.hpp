// The parsed form of a template: expression and statement nodes (byte offsets into the template's
// normalised source) and the Template that owns them. Plain structs, no parser or renderer here.
#pragma once

#include "jinja/value.hpp"
#include "support/source.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tk::jinja {

enum class ExprKind : std::uint8_t {
  literal, // literal
  name,    // name
  list,    // operands = items
  tuple,   // operands = items
  dict,    // operands = key, value, key, value, ...
  attr,    // operands[0] . name
  item,    // operands[0] [ operands[1] ]
  slice,   // operands[0] [ operands[1] : operands[2] : operands[3] ], each bound may be null
  call,    // operands[0] ( operands[1..], kwargs )
  filter,  // operands[0] | name ( operands[1..], kwargs )
  test,    // operands[0] is [not] name ( operands[1..] )
  neg,     // - operands[0]
  pos,     // + operands[0]
  binary,  // operands[0] bin_op operands[1]
  compare, // operands[0] cmp_ops[0] operands[1] cmp_ops[1] operands[2] ... (chained, as Python)
  concat,  // operands joined with ~
  cond,    // operands[0] if operands[1] [else operands[2]]
  and_op,  // operands[0] and operands[1]
  or_op,   // operands[0] or operands[1]
  not_op,  // not operands[0]
};

enum class BinOp : std::uint8_t { add, sub, mul, div, floordiv, mod, pow };
enum class CmpOp : std::uint8_t { eq, ne, lt, le, gt, ge, in, not_in };

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;
using KwArgs = std::vector<std::pair<std::string, ExprPtr>>;

struct Expr {
  ExprKind kind = ExprKind::literal;
  std::uint32_t pos = 0; // offset of the token that names the node (operator, name, bracket)
  Value literal;
  std::string name;
  std::vector<ExprPtr> operands;
  KwArgs kwargs;
  BinOp bin_op = BinOp::add;
  std::vector<CmpOp> cmp_ops;
  bool negated = false; // `is not`
};

enum class StmtKind : std::uint8_t {
  text,
  output,
  if_stmt,
  for_stmt,
  set,
  set_block,
  macro,
  call_block,
  include
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

/// A macro, and also the body of a {% call %} block (then named "caller").
struct MacroDef {
  std::string name;
  std::uint32_t pos = 0;
  std::vector<std::string> params;
  std::vector<ExprPtr> defaults; // one per param; null when the param has none
  Body body;
};

struct Stmt {
  StmtKind kind = StmtKind::text;
  std::uint32_t pos = 0; // offset of the tag
  std::string text;      // text
  ExprPtr expr;          // output, set, include (the name), for (the iterable), call_block
  std::vector<std::pair<ExprPtr, Body>> branches; // if / elif
  Body body;                                      // for, set_block
  Body else_body;                                 // if, for
  std::vector<std::string> targets;               // for, set, set_block
  ExprPtr filter;                                 // for ... if filter
  std::unique_ptr<MacroDef> macro;                // macro, call_block (the caller)
};

struct Template {
  Template(std::string name, std::string source) : file(std::move(name), std::move(source)) {}
  SourceFile file; // normalised source: "\n" line ends, trailing newline handled
  Body body;
};

} // namespace tk::jinja
