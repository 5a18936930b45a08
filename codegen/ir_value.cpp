#include "codegen/ir_value.hpp"

#include "codegen/data_value.hpp"
#include "lowering/ir/printer.hpp"
#include "support/diagnostics.hpp"

#include <cmath>
#include <string>

namespace tk::codegen {

namespace {

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

Value type_value(Type t) {
  return Value::string(to_string(t));
}

Value expr_value(const Expr& e, int parent_prec, bool right);

Value list(const std::vector<Expr>& es) {
  jinja::List out;
  out.reserve(es.size());
  for (const Expr& e : es)
    out.push_back(expr_value(e, 0, false));
  return Value::list(std::move(out));
}

// parent_prec: precedence of the binary operator this node is an operand of (0: none, or a
// call/index context where no parentheses are needed).
Value expr_value(const Expr& e, int parent_prec, bool right) {
  DictBuilder j;
  j.put("type", type_value(e->type));
  bool parens = false;
  switch (e->kind) {
  case ExprKind::IntImm: {
    const auto& n = static_cast<const IntImm&>(*e);
    j.put("kind", text("int"));
    j.put("value", Value::integer(n.value));
    // A negative literal as an operand reads like a subtraction; keep it unambiguous.
    parens = parent_prec > 0 && n.value < 0;
    break;
  }
  case ExprKind::FloatImm: {
    const auto& n = static_cast<const FloatImm&>(*e);
    j.put("kind", text("float"));
    j.put("form", text(std::isnan(n.value)       ? "nan"
                       : !std::isfinite(n.value) ? (n.value < 0 ? "-inf" : "inf")
                                                 : "finite"));
    // Shortest round-trip digits: "0.5", "1e-05", "-inf".
    j.put("text", Value::string(format_float(n.value)));
    parens = parent_prec > 0 && std::signbit(n.value);
    break;
  }
  case ExprKind::EnumImm: {
    const auto& n = static_cast<const EnumImm&>(*e);
    std::string s(to_string(n.value));
    j.put("kind", text("enum"));
    j.put("group", Value::string(s.substr(0, s.find("::"))));
    j.put("name", Value::string(s.substr(s.find("::") + 2)));
    break;
  }
  case ExprKind::Var:
    j.put("kind", text("var"));
    j.put("name", Value::string(static_cast<const Var&>(*e).name));
    break;
  case ExprKind::Ref:
    j.put("kind", text("ref"));
    j.put("name", Value::string(static_cast<const Ref&>(*e).name));
    break;
  case ExprKind::Binary: {
    const auto& n = static_cast<const Binary&>(*e);
    int p = precedence(n.op);
    j.put("kind", text("binary"));
    j.put("op", Value::string(std::string(to_string(n.op))));
    j.put("call", Value::boolean(p == 0)); // min/max: spelled as a call by the target
    j.put("a", expr_value(n.a, p, false));
    j.put("b", expr_value(n.b, p, true));
    parens = p > 0 && parent_prec > 0 && (p < parent_prec || (p == parent_prec && right));
    break;
  }
  case ExprKind::Load: {
    const auto& n = static_cast<const Load&>(*e);
    j.put("kind", text("load"));
    j.put("tensor", Value::string(n.tensor));
    j.put("indices", list(n.indices));
    break;
  }
  case ExprKind::Call: {
    const auto& n = static_cast<const Call&>(*e);
    j.put("kind", text("call"));
    j.put("fn", Value::string(std::string(to_string(n.fn))));
    j.put("args", list(n.args));
    break;
  }
  }
  j.put("parens", Value::boolean(parens));
  return std::move(j).value();
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
  DictBuilder j;
  switch (s->kind) {
  case StmtKind::Block: {
    const auto& stmts = static_cast<const Block&>(*s).stmts;
    jinja::List out;
    out.reserve(stmts.size());
    for (const Stmt& x : stmts)
      out.push_back(to_value(x));
    j.put("kind", text("block"));
    j.put("stmts", Value::list(std::move(out)));
    break;
  }
  case StmtKind::Decl: {
    const auto& n = static_cast<const Decl&>(*s);
    j.put("kind", text("let"));
    j.put("name", Value::string(n.name));
    j.put("type", type_value(n.type));
    j.put("value", to_value(n.value));
    break;
  }
  case StmtKind::Assign: {
    const auto& n = static_cast<const Assign&>(*s);
    j.put("kind", text("assign"));
    j.put("name", Value::string(n.name));
    j.put("value", to_value(n.value));
    break;
  }
  case StmtKind::Store: {
    const auto& n = static_cast<const Store&>(*s);
    j.put("kind", text("store"));
    j.put("tensor", Value::string(n.tensor));
    j.put("indices", list(n.indices));
    j.put("value", to_value(n.value));
    break;
  }
  case StmtKind::Evaluate:
    j.put("kind", text("evaluate"));
    j.put("call", to_value(static_cast<const Evaluate&>(*s).call));
    break;
  case StmtKind::For: {
    const auto& n = static_cast<const For&>(*s);
    j.put("kind", text("for"));
    j.put("var", Value::string(n.var));
    j.put("role", Value::string(std::string(to_string(n.role))));
    Value min = to_value(n.min), extent = to_value(n.extent);
    // The exclusive end, min + extent (just the extent when min is 0).
    const IntImm* lo = as<IntImm>(n.min);
    j.put("end", lo && lo->value == 0 ? extent : to_value(n.min + n.extent));
    j.put("min", std::move(min));
    j.put("extent", std::move(extent));
    j.put("body", to_value(n.body));
    break;
  }
  case StmtKind::IfThenElse: {
    const auto& n = static_cast<const IfThenElse&>(*s);
    j.put("kind", text("if"));
    j.put("cond", to_value(n.cond));
    j.put("then", to_value(n.then_case));
    j.put("else", to_value(n.else_case));
    break;
  }
  }
  return std::move(j).value();
}

} // namespace tk::codegen
