#include "codegen/ir_json.hpp"

#include "lowering/ir/printer.hpp"
#include "support/diagnostics.hpp"

#include <cmath>
#include <string>

namespace tk::codegen {

namespace {

using nlohmann::json;
using namespace ir;

std::string type_name(Type t) {
  return to_string(t);
}

json expr_json(const Expr& e, int parent_prec, bool right);

json list(const std::vector<Expr>& es) {
  json out = json::array();
  for (const Expr& e : es)
    out.push_back(expr_json(e, 0, false));
  return out;
}

// parent_prec: precedence of the binary operator this node is an operand of (0: none, or a
// call/index context where no parentheses are needed).
json expr_json(const Expr& e, int parent_prec, bool right) {
  json j;
  j["type"] = type_name(e->type);
  j["parens"] = false;
  switch (e->kind) {
  case ExprKind::IntImm: {
    const auto& n = static_cast<const IntImm&>(*e);
    j["kind"] = "int";
    j["value"] = n.value;
    // A negative literal as an operand reads like a subtraction; keep it unambiguous.
    j["parens"] = parent_prec > 0 && n.value < 0;
    break;
  }
  case ExprKind::FloatImm: {
    const auto& n = static_cast<const FloatImm&>(*e);
    j["kind"] = "float";
    j["form"] = std::isnan(n.value)       ? "nan"
                : !std::isfinite(n.value) ? (n.value < 0 ? "-inf" : "inf")
                                          : "finite";
    j["text"] = format_float(n.value); // shortest round-trip digits: "0.5", "1e-05", "-inf"
    j["parens"] = parent_prec > 0 && std::signbit(n.value);
    break;
  }
  case ExprKind::EnumImm: {
    const auto& n = static_cast<const EnumImm&>(*e);
    std::string s(to_string(n.value));
    j["kind"] = "enum";
    j["group"] = s.substr(0, s.find("::"));
    j["name"] = s.substr(s.find("::") + 2);
    break;
  }
  case ExprKind::Var:
    j["kind"] = "var";
    j["name"] = static_cast<const Var&>(*e).name;
    break;
  case ExprKind::Ref:
    j["kind"] = "ref";
    j["name"] = static_cast<const Ref&>(*e).name;
    break;
  case ExprKind::Binary: {
    const auto& n = static_cast<const Binary&>(*e);
    int p = precedence(n.op);
    j["kind"] = "binary";
    j["op"] = std::string(to_string(n.op));
    j["call"] = p == 0; // min/max: spelled as a call by the target
    j["a"] = expr_json(n.a, p, false);
    j["b"] = expr_json(n.b, p, true);
    j["parens"] = p > 0 && parent_prec > 0 && (p < parent_prec || (p == parent_prec && right));
    break;
  }
  case ExprKind::Load: {
    const auto& n = static_cast<const Load&>(*e);
    j["kind"] = "load";
    j["tensor"] = n.tensor;
    j["indices"] = list(n.indices);
    break;
  }
  case ExprKind::Call: {
    const auto& n = static_cast<const Call&>(*e);
    j["kind"] = "call";
    j["fn"] = std::string(to_string(n.fn));
    j["args"] = list(n.args);
    break;
  }
  }
  return j;
}

} // namespace

json to_json(const Expr& e) {
  if (!e)
    return nullptr;
  return expr_json(e, 0, false);
}

json to_json(const Stmt& s) {
  if (!s)
    return nullptr;
  json j;
  switch (s->kind) {
  case StmtKind::Block: {
    j["kind"] = "block";
    j["stmts"] = json::array();
    for (const Stmt& x : static_cast<const Block&>(*s).stmts)
      j["stmts"].push_back(to_json(x));
    break;
  }
  case StmtKind::Decl: {
    const auto& n = static_cast<const Decl&>(*s);
    j["kind"] = "let";
    j["name"] = n.name;
    j["type"] = type_name(n.type);
    j["value"] = to_json(n.value);
    break;
  }
  case StmtKind::Assign: {
    const auto& n = static_cast<const Assign&>(*s);
    j["kind"] = "assign";
    j["name"] = n.name;
    j["value"] = to_json(n.value);
    break;
  }
  case StmtKind::Store: {
    const auto& n = static_cast<const Store&>(*s);
    j["kind"] = "store";
    j["tensor"] = n.tensor;
    j["indices"] = list(n.indices);
    j["value"] = to_json(n.value);
    break;
  }
  case StmtKind::Evaluate:
    j["kind"] = "evaluate";
    j["call"] = to_json(static_cast<const Evaluate&>(*s).call);
    break;
  case StmtKind::For: {
    const auto& n = static_cast<const For&>(*s);
    j["kind"] = "for";
    j["var"] = n.var;
    j["role"] = std::string(to_string(n.role));
    j["min"] = to_json(n.min);
    j["extent"] = to_json(n.extent);
    // The exclusive end, min + extent (just the extent when min is 0).
    const IntImm* lo = as<IntImm>(n.min);
    j["end"] = lo && lo->value == 0 ? to_json(n.extent) : to_json(n.min + n.extent);
    j["body"] = to_json(n.body);
    break;
  }
  case StmtKind::IfThenElse: {
    const auto& n = static_cast<const IfThenElse&>(*s);
    j["kind"] = "if";
    j["cond"] = to_json(n.cond);
    j["then"] = to_json(n.then_case);
    j["else"] = to_json(n.else_case);
    break;
  }
  }
  return j;
}

} // namespace tk::codegen
