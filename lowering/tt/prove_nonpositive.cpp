// Which exp arguments are at most 0 (prove_nonpositive.hpp): a walk over the kernel that carries,
// at each statement, the definitions that reach it, and a small set of rules over them.
#include "lowering/tt/prove_nonpositive.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <map>
#include <string>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

using Defs = std::map<std::string, Expr>; // variable -> its reaching definition's value

// Follows a chain of definitions no deeper than this (a guard, not a limit a kernel reaches).
constexpr int kDepth = 16;

const Call* call_of(const Expr& e, Intrinsic fn) {
  const Call* c = as<Call>(e);
  return c && c->fn == fn ? c : nullptr;
}

// The reaching definition of a variable, or null.
Expr def_of(const Expr& e, const Defs& defs) {
  const Var* v = as<Var>(e);
  if (!v)
    return nullptr;
  auto it = defs.find(v->name);
  return it == defs.end() ? nullptr : it->second;
}

// y >= rowmax(x) in column 0: rowmax(x) itself, max(a, b) with a or b such a value.
bool bounds_rowmax(const Expr& y, const Expr& x, const Defs& defs, int depth) {
  if (depth > kDepth)
    return false;
  if (const Call* r = call_of(y, Intrinsic::tile_rowmax))
    return equal(r->args[0], x);
  if (const Call* m = call_of(y, Intrinsic::tile_max))
    return bounds_rowmax(m->args[0], x, defs, depth + 1) ||
           bounds_rowmax(m->args[1], x, defs, depth + 1);
  if (Expr d = def_of(y, defs))
    return bounds_rowmax(d, x, defs, depth + 1);
  return false;
}

// y >= x element by element: max(x, b) or max(b, x).
bool bounds(const Expr& y, const Expr& x, const Defs& defs, int depth) {
  if (depth > kDepth)
    return false;
  if (const Call* m = call_of(y, Intrinsic::tile_max))
    return equal(m->args[0], x) || equal(m->args[1], x);
  if (Expr d = def_of(y, defs))
    return bounds(d, x, defs, depth + 1);
  return false;
}

bool nonpositive(const Expr& e, const Defs& defs, int depth) {
  if (depth > kDepth)
    return false;
  if (Expr d = def_of(e, defs))
    return nonpositive(d, defs, depth + 1);
  const Call* c = as<Call>(e);
  if (!c)
    return false;
  switch (c->fn) {
  case Intrinsic::tile_fill: {
    const FloatImm* v = as<FloatImm>(c->args[0]);
    return v && v->value <= 0; // -inf included; NaN is not <= 0
  }
  case Intrinsic::tile_where:
    return nonpositive(c->args[1], defs, depth + 1) && nonpositive(c->args[2], defs, depth + 1);
  case Intrinsic::tile_min:
    return nonpositive(c->args[0], defs, depth + 1) || nonpositive(c->args[1], defs, depth + 1);
  case Intrinsic::tile_sub: {
    const Expr& x = c->args[0];
    const Expr& y = c->args[1];
    if (const Call* b = call_of(y, Intrinsic::tile_bcast_col))
      return bounds_rowmax(b->args[0], x, defs, depth + 1);
    return bounds(y, x, defs, depth + 1);
  }
  default:
    return false;
  }
}

// The variables a statement defines or assigns, anywhere in it.
std::set<std::string> assigned(const Stmt& s) {
  struct Names : Visitor {
    std::set<std::string> names;
    void visit_node(const Decl& d) override {
      names.insert(d.name);
      Visitor::visit_node(d);
    }
    void visit_node(const Assign& a) override {
      names.insert(a.name);
      Visitor::visit_node(a);
    }
    void visit_node(const For& f) override {
      names.insert(f.var);
      Visitor::visit_node(f);
    }
  } n;
  n.visit(s);
  return n.names;
}

// `name` takes a new value: its definition and every definition that reads it no longer hold.
void kill(Defs& defs, const std::string& name) {
  defs.erase(name);
  for (auto it = defs.begin(); it != defs.end();)
    it = mentions(it->second, name) ? defs.erase(it) : std::next(it);
}

struct Prover {
  std::set<const Call*> proved;

  void define(const std::string& name, const Expr& value, Defs& defs) {
    const Call* c = call_of(value, Intrinsic::tile_exp);
    if (!c) // exp(a * f): f > 0, fold-scale's host rejects any other scale, so a * f has a's sign
      c = call_of(value, Intrinsic::tile_exp_scaled);
    if (c && nonpositive(c->args[0], defs, 0))
      proved.insert(c);
    kill(defs, name);
    if (!mentions(value, name))
      defs[name] = value;
  }

  // A statement that may run any number of times, or not at all (a loop body, a branch): it sees
  // only the definitions nothing in it changes, and after it none of what it changes holds.
  void nested(const Stmt& body, Defs& defs) {
    const std::set<std::string> names = assigned(body);
    for (const std::string& n : names)
      kill(defs, n);
    Defs inner = defs;
    walk(body, inner);
  }

  void walk(const Stmt& s, Defs& defs) {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        walk(x, defs);
    } else if (const Decl* d = as<Decl>(s)) {
      define(d->name, d->value, defs);
    } else if (const Assign* a = as<Assign>(s)) {
      define(a->name, a->value, defs);
    } else if (const For* f = as<For>(s)) {
      kill(defs, f->var);
      nested(f->body, defs);
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      nested(i->then_case, defs);
      if (i->else_case)
        nested(i->else_case, defs);
    }
  }
};

} // namespace

std::set<const Call*> exps_of_nonpositive(const Function& kernel) {
  Prover p;
  Defs defs;
  p.walk(kernel.body, defs);
  return p.proved;
}

} // namespace tk::lower::tt
