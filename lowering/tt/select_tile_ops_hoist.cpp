// A broadcast operand computed from values a loop does not change, hoisted before the loop
// (docs/lowering.md, "Loop-invariant broadcasts"): FlashAttention's `O[h, i, d] = o[d] *
// bcast_col(recip(l))` computed recip(l) (a copy of l into DST, the SFPU's reciprocal, its init
// and a pack to a temporary) once per tile of D. As `let r = recip(l)` before the d loop, r is a
// named value like `c`: computed once, kept in its CB and read by each tile's broadcast.
#include "lowering/tt/select_tile_ops_state.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <map>
#include <set>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

// The variables a statement assigns or declares.
struct Assigned : Visitor {
  std::set<std::string> names;
  void visit_node(const Assign& a) override {
    names.insert(a.name);
    Visitor::visit_node(a);
  }
  void visit_node(const Decl& d) override {
    names.insert(d.name);
    Visitor::visit_node(d);
  }
};

// Whether an expression reads only variables outside `changed` and no tile that streams in (a
// load, a CB's tile, a row's tile) or depends on a position (tril/triu).
struct Invariant : Visitor {
  const std::set<std::string>& changed;
  bool ok = true;
  explicit Invariant(const std::set<std::string>& c) : changed(c) {}
  void visit_node(const Var& v) override { ok = ok && !changed.count(v.name); }
  void visit_node(const Load&) override { ok = false; }
  void visit_node(const Call& c) override {
    if (c.fn == Intrinsic::row_get || c.fn == Intrinsic::cb_tile || c.fn == Intrinsic::tile_tril ||
        c.fn == Intrinsic::tile_triu)
      ok = false;
    Visitor::visit_node(c);
  }
};

// In a loop's body: each broadcast's computed operand that `Invariant` accepts, replaced by a
// variable (the same operand, printed alike, by the same one).
struct Replace : Mutator {
  const std::set<std::string>* changed = nullptr;
  NameSet* names = nullptr;
  std::map<std::string, std::pair<std::string, Expr>> hoisted; // printed operand -> (name, value)
  std::vector<std::string> order;
  Expr mutate_node(const Call& c, const Expr& self) override {
    if ((c.fn != Intrinsic::tile_bcast_col && c.fn != Intrinsic::tile_bcast_row) ||
        c.args.size() != 1)
      return Mutator::mutate_node(c, self);
    const Call* arg = as<Call>(c.args[0]);
    if (!arg || !arg->type.is_tile())
      return self;
    Invariant inv(*changed);
    inv.visit(c.args[0]);
    if (!inv.ok)
      return self;
    const std::string key = print(c.args[0]);
    auto it = hoisted.find(key);
    if (it == hoisted.end()) {
      it = hoisted.emplace(key, std::make_pair(names->fresh("bc"), c.args[0])).first;
      order.push_back(key);
    }
    return call(c.fn, {var(it->second.first, c.args[0]->type)}, c.loc.range);
  }
};

struct Hoist : Mutator {
  NameSet* names = nullptr;
  Stmt mutate_node(const Block& b, const Stmt& self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& x : b.stmts) {
      Stmt y = mutate(x);
      if (const For* f = as<For>(y); f && f->role == ForRole::serial) {
        Assigned a;
        a.visit(f->body);
        a.names.insert(f->var);
        Replace r;
        r.changed = &a.names;
        r.names = names;
        Stmt body = r.mutate(f->body);
        if (!r.order.empty()) {
          for (const std::string& key : r.order) {
            const auto& [name, value] = r.hoisted.at(key);
            out.push_back(decl(name, value->type, value, f->loc.range));
          }
          y = for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
        }
      }
      changed = changed || y != x;
      out.push_back(y);
    }
    return changed ? block(std::move(out)) : self;
  }
};

} // namespace

Stmt hoist_invariant_broadcasts(const Program& p, const Stmt& body) {
  NameSet names(p);
  for (const Function& f : p.functions)
    names.add(f);
  Hoist h;
  h.names = &names;
  return h.mutate(body);
}

} // namespace tk::lower::tt
