#include "codegen/ir_value.hpp"

#include "lowering/ir/printer.hpp"
#include "support/diagnostics.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace tk::codegen {

namespace {

using jinja::Value;
using namespace ir;

// The strings every node repeats (its kind, its flags), made once and shared by every node (a
// value's string is immutable and reference-counted).
const Value& text(const char* s) {
  thread_local std::vector<std::pair<const char*, Value>> made;
  for (const auto& [k, v] : made)
    if (k == s)
      return v;
  return made.emplace_back(s, Value::string(s)).second;
}

// A type's spelling, made once per type (there are a dozen) and shared like text().
const Value& type_value(Type t) {
  thread_local std::vector<std::pair<Type, Value>> made;
  for (const auto& [k, v] : made)
    if (k == t)
      return v;
  return made.emplace_back(t, Value::string(to_string(t))).second;
}

// A node's entries, written in sorted key order (the order DictBuilder gives and
// --emit=template-data prints; TemplateData.DictKeysAreSorted checks it): the nodes are most of
// the template data, so they skip DictBuilder's sort.
struct Node {
  explicit Node(std::size_t n) { entries.reserve(n); }
  Node& operator()(const char* key, Value v) {
    entries.emplace_back(key, std::move(v));
    return *this;
  }
  Value value() { return Value::dict(std::move(entries)); }
  jinja::Dict entries;
};

Value expr_value(const Expr& e, int parent_prec, bool right);

Value list(const std::vector<Expr>& es) {
  jinja::List out;
  out.reserve(es.size());
  for (const Expr& e : es)
    out.push_back(expr_value(e, 0, false));
  return Value::list(std::move(out));
}

// parent_prec: precedence of the binary operator this node is an operand of (0: none, or a
// call/index context where no parentheses are needed). "parens" is false but where noted.
Value expr_value(const Expr& e, int parent_prec, bool right) {
  switch (e->kind) {
  case ExprKind::IntImm: {
    const auto& n = static_cast<const IntImm&>(*e);
    // A negative literal as an operand reads like a subtraction; keep it unambiguous.
    return Node(4)("kind", text("int"))("parens", Value::boolean(parent_prec > 0 && n.value < 0))(
               "type", type_value(e->type))("value", Value::integer(n.value))
        .value();
  }
  case ExprKind::FloatImm: {
    const auto& n = static_cast<const FloatImm&>(*e);
    return Node(5)("form", text(std::isnan(n.value)       ? "nan"
                                : !std::isfinite(n.value) ? (n.value < 0 ? "-inf" : "inf")
                                                          : "finite"))("kind", text("float"))(
               "parens", Value::boolean(parent_prec > 0 && std::signbit(n.value)))(
               // Shortest round-trip digits: "0.5", "1e-05", "-inf".
               "text", Value::string(format_float(n.value)))("type", type_value(e->type))
        .value();
  }
  case ExprKind::EnumImm: {
    const auto& n = static_cast<const EnumImm&>(*e);
    std::string s(to_string(n.value));
    return Node(5)("group", Value::string(s.substr(0, s.find("::"))))("kind", text("enum"))(
               "name", Value::string(s.substr(s.find("::") + 2)))("parens", Value::boolean(false))(
               "type", type_value(e->type))
        .value();
  }
  case ExprKind::Var:
  case ExprKind::Ref: {
    const bool var = e->kind == ExprKind::Var;
    return Node(4)("kind", text(var ? "var" : "ref"))(
               "name", Value::string(var ? static_cast<const Var&>(*e).name
                                         : static_cast<const Ref&>(*e).name))(
               "parens", Value::boolean(false))("type", type_value(e->type))
        .value();
  }
  case ExprKind::Binary: {
    const auto& n = static_cast<const Binary&>(*e);
    int p = precedence(n.op);
    Value a = expr_value(n.a, p, false), b = expr_value(n.b, p, true);
    // min/max (precedence 0) are spelled as calls by the target.
    return Node(7)("a", std::move(a))("b", std::move(b))("call", Value::boolean(p == 0))(
               "kind", text("binary"))("op", Value::string(std::string(to_string(n.op))))(
               "parens", Value::boolean(p > 0 && parent_prec > 0 &&
                                        (p < parent_prec || (p == parent_prec && right))))(
               "type", type_value(e->type))
        .value();
  }
  case ExprKind::Load: {
    const auto& n = static_cast<const Load&>(*e);
    return Node(5)("indices", list(n.indices))("kind", text("load"))("parens",
                                                                     Value::boolean(false))(
               "tensor", Value::string(n.tensor))("type", type_value(e->type))
        .value();
  }
  case ExprKind::Call: {
    const auto& n = static_cast<const Call&>(*e);
    return Node(5)("args", list(n.args))("fn", Value::string(std::string(to_string(n.fn))))(
               "kind", text("call"))("parens", Value::boolean(false))("type", type_value(e->type))
        .value();
  }
  }
  throw InternalError("internal error: render: unknown expression kind");
}

} // namespace

Value to_value(const Expr& e) {
  if (!e)
    return Value();
  return expr_value(e, 0, false);
}

Value to_value(const Stmt& s) {
  if (!s)
    return Value();
  switch (s->kind) {
  case StmtKind::Block: {
    const auto& stmts = static_cast<const Block&>(*s).stmts;
    jinja::List out;
    out.reserve(stmts.size());
    for (const Stmt& x : stmts)
      out.push_back(to_value(x));
    return Node(2)("kind", text("block"))("stmts", Value::list(std::move(out))).value();
  }
  case StmtKind::Decl: {
    const auto& n = static_cast<const Decl&>(*s);
    return Node(4)("kind", text("let"))("name", Value::string(n.name))("type", type_value(n.type))(
               "value", to_value(n.value))
        .value();
  }
  case StmtKind::Assign: {
    const auto& n = static_cast<const Assign&>(*s);
    return Node(3)("kind", text("assign"))("name", Value::string(n.name))("value",
                                                                          to_value(n.value))
        .value();
  }
  case StmtKind::Store: {
    const auto& n = static_cast<const Store&>(*s);
    return Node(4)("indices", list(n.indices))("kind", text("store"))(
               "tensor", Value::string(n.tensor))("value", to_value(n.value))
        .value();
  }
  case StmtKind::Evaluate:
    return Node(2)("call", to_value(static_cast<const Evaluate&>(*s).call))("kind",
                                                                            text("evaluate"))
        .value();
  case StmtKind::For: {
    const auto& n = static_cast<const For&>(*s);
    Value min = to_value(n.min), extent = to_value(n.extent);
    // The exclusive end, min + extent (just the extent when min is 0).
    const IntImm* lo = as<IntImm>(n.min);
    Value end = lo && lo->value == 0 ? extent : to_value(n.min + n.extent);
    return Node(7)("body", to_value(n.body))("end", std::move(end))("extent", std::move(extent))(
               "kind", text("for"))("min", std::move(min))(
               "role", Value::string(std::string(to_string(n.role))))("var", Value::string(n.var))
        .value();
  }
  case StmtKind::IfThenElse: {
    const auto& n = static_cast<const IfThenElse&>(*s);
    return Node(4)("cond", to_value(n.cond))("else", to_value(n.else_case))("kind", text("if"))(
               "then", to_value(n.then_case))
        .value();
  }
  }
  throw InternalError("internal error: render: unknown statement kind");
}

} // namespace tk::codegen
