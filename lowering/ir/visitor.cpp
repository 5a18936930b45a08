#include "lowering/ir/visitor.hpp"

namespace tk::ir {

void Visitor::visit(const Expr& e) {
  if (!e)
    return;
  switch (e->kind) {
#define TK_X(n)                                                                                    \
  case ExprKind::n:                                                                                \
    visit_node(static_cast<const n&>(*e));                                                         \
    return;
    TK_IR_EXPR_NODES(TK_X)
#undef TK_X
  }
}

void Visitor::visit(const Stmt& s) {
  if (!s)
    return;
  switch (s->kind) {
#define TK_X(n)                                                                                    \
  case StmtKind::n:                                                                                \
    visit_node(static_cast<const n&>(*s));                                                         \
    return;
    TK_IR_STMT_NODES(TK_X)
#undef TK_X
  }
}

void Visitor::visit_node(const IntImm&) {}
void Visitor::visit_node(const FloatImm&) {}
void Visitor::visit_node(const EnumImm&) {}
void Visitor::visit_node(const Var&) {}
void Visitor::visit_node(const Ref&) {}
void Visitor::visit_node(const Binary& n) {
  visit(n.a);
  visit(n.b);
}
void Visitor::visit_node(const Load& n) {
  for (const Expr& i : n.indices)
    visit(i);
}
void Visitor::visit_node(const Call& n) {
  for (const Expr& a : n.args)
    visit(a);
}
void Visitor::visit_node(const Block& n) {
  for (const Stmt& s : n.stmts)
    visit(s);
}
void Visitor::visit_node(const Decl& n) {
  visit(n.value);
}
void Visitor::visit_node(const Assign& n) {
  visit(n.value);
}
void Visitor::visit_node(const Store& n) {
  for (const Expr& i : n.indices)
    visit(i);
  visit(n.value);
}
void Visitor::visit_node(const Evaluate& n) {
  visit(n.call);
}
void Visitor::visit_node(const For& n) {
  visit(n.min);
  visit(n.extent);
  visit(n.body);
}
void Visitor::visit_node(const IfThenElse& n) {
  visit(n.cond);
  visit(n.then_case);
  visit(n.else_case);
}

// ---- Mutator ------------------------------------------------------------------------------------

Expr Mutator::mutate(const Expr& e) {
  if (!e)
    return e;
  switch (e->kind) {
#define TK_X(n)                                                                                    \
  case ExprKind::n:                                                                                \
    return mutate_node(static_cast<const n&>(*e), e);
    TK_IR_EXPR_NODES(TK_X)
#undef TK_X
  }
  return e;
}

Stmt Mutator::mutate(const Stmt& s) {
  if (!s)
    return s;
  switch (s->kind) {
#define TK_X(n)                                                                                    \
  case StmtKind::n:                                                                                \
    return mutate_node(static_cast<const n&>(*s), s);
    TK_IR_STMT_NODES(TK_X)
#undef TK_X
  }
  return s;
}

Module Mutator::mutate(const Module& m) {
  Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions) {
      enter_function(p, f);
      f.body = mutate(f.body);
    }
  return out;
}

bool Mutator::mutate_all(const std::vector<Expr>& in, std::vector<Expr>& out) {
  bool changed = false;
  out.clear();
  out.reserve(in.size());
  for (const Expr& e : in) {
    out.push_back(mutate(e));
    changed |= out.back() != e;
  }
  return changed;
}

Expr Mutator::mutate_node(const IntImm&, const Expr& self) {
  return self;
}
Expr Mutator::mutate_node(const FloatImm&, const Expr& self) {
  return self;
}
Expr Mutator::mutate_node(const EnumImm&, const Expr& self) {
  return self;
}
Expr Mutator::mutate_node(const Var&, const Expr& self) {
  return self;
}
Expr Mutator::mutate_node(const Ref&, const Expr& self) {
  return self;
}
Expr Mutator::mutate_node(const Binary& n, const Expr& self) {
  Expr a = mutate(n.a), b = mutate(n.b);
  return a == n.a && b == n.b ? self : binary(n.op, a, b);
}
Expr Mutator::mutate_node(const Load& n, const Expr& self) {
  std::vector<Expr> idx;
  return mutate_all(n.indices, idx) ? load(n.tensor, n.type.dtype, std::move(idx), n.loc.range)
                                    : self;
}
Expr Mutator::mutate_node(const Call& n, const Expr& self) {
  std::vector<Expr> args;
  return mutate_all(n.args, args) ? call(n.fn, std::move(args), n.loc.range) : self;
}

Stmt Mutator::mutate_node(const Block& n, const Stmt& self) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const Stmt& s : n.stmts) {
    out.push_back(mutate(s));
    changed |= out.back() != s;
  }
  return changed ? block(std::move(out)) : self;
}
Stmt Mutator::mutate_node(const Decl& n, const Stmt& self) {
  Expr v = mutate(n.value);
  return v == n.value ? self : decl(n.name, n.type, v, n.loc.range);
}
Stmt Mutator::mutate_node(const Assign& n, const Stmt& self) {
  Expr v = mutate(n.value);
  return v == n.value ? self : assign(n.name, v, n.loc.range);
}
Stmt Mutator::mutate_node(const Store& n, const Stmt& self) {
  std::vector<Expr> idx;
  bool changed = mutate_all(n.indices, idx);
  Expr v = mutate(n.value);
  return changed || v != n.value ? store(n.tensor, std::move(idx), v, n.loc.range) : self;
}
Stmt Mutator::mutate_node(const Evaluate& n, const Stmt& self) {
  Expr c = mutate(n.call);
  return c == n.call ? self : evaluate(c, n.loc.range);
}
Stmt Mutator::mutate_node(const For& n, const Stmt& self) {
  Expr mn = mutate(n.min), ex = mutate(n.extent);
  Stmt body = mutate(n.body);
  if (mn == n.min && ex == n.extent && body == n.body)
    return self;
  return for_loop(n.var, mn, ex, n.role, body, n.loc.range);
}
Stmt Mutator::mutate_node(const IfThenElse& n, const Stmt& self) {
  Expr c = mutate(n.cond);
  Stmt t = mutate(n.then_case), e = mutate(n.else_case);
  if (c == n.cond && t == n.then_case && e == n.else_case)
    return self;
  return if_then_else(c, t, e, n.loc.range);
}

} // namespace tk::ir
