#include "lowering/cpu/narrow_columns.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

// The element loop `for er in 0 .. 32 { for ec in 0 .. 32 { cpu.tile_set(x, er, ec, E) } }`:
// its target x and E, or null.
struct ElementLoop {
  std::string target;
  const Expr* value = nullptr;
};

const Stmt& only(const Stmt& s) {
  const Block* b = as<Block>(s);
  return b && b->stmts.size() == 1 ? b->stmts[0] : s;
}

bool is_var(const Expr& e, const std::string& name) {
  const Var* v = as<Var>(e);
  return v && v->name == name;
}

std::optional<ElementLoop> element_loop(const For& outer, const std::string& er,
                                        const std::string& ec) {
  if (outer.var != er)
    return std::nullopt;
  const For* inner = as<For>(only(outer.body));
  if (!inner || inner->var != ec)
    return std::nullopt;
  const Evaluate* ev = as<Evaluate>(only(inner->body));
  const Call* set = ev ? as<Call>(ev->call) : nullptr;
  if (!set || set->fn != Intrinsic::cpu_tile_set || set->args.size() != 4)
    return std::nullopt;
  const Var* x = as<Var>(set->args[0]);
  if (!x || !is_var(set->args[1], er) || !is_var(set->args[2], ec))
    return std::nullopt;
  return ElementLoop{x->name, &set->args[3]};
}

// What reads each tile: `all` = some read needs every column; `via` = read at (er, ec) in the
// element loop of these targets (needs every column if one of them does).
struct Demand {
  const std::string& er;
  const std::string& ec;
  std::set<std::string> all;
  std::map<std::string, std::set<std::string>> via;
};

// Reads inside an element loop's value: tile_get(y, er, ec) -> via target, tile_get(y, er, 0)
// -> column 0, anything else mentioning a name -> every column.
struct ValueReads : Visitor {
  Demand& d;
  const std::string& target;
  ValueReads(Demand& dm, const std::string& t) : d(dm), target(t) {}

protected:
  void visit_node(const Call& c) override {
    if (c.fn == Intrinsic::cpu_tile_get && c.args.size() == 3)
      if (const Var* y = as<Var>(c.args[0]); y && is_var(c.args[1], d.er)) {
        if (is_var(c.args[2], d.ec)) {
          d.via[y->name].insert(target);
          return;
        }
        if (const IntImm* z = as<IntImm>(c.args[2]); z && z->value == 0)
          return;
      }
    Visitor::visit_node(c);
  }
  void visit_node(const Var& v) override { d.all.insert(v.name); }
};

// Every other mention of a name reads all of it.
struct OtherReads : Visitor {
  Demand& d;
  explicit OtherReads(Demand& dm) : d(dm) {}

protected:
  void visit_node(const For& f) override {
    if (std::optional<ElementLoop> l = element_loop(f, d.er, d.ec)) {
      ValueReads r{d, l->target};
      r.visit(*l->value);
      return;
    }
    Visitor::visit_node(f);
  }
  void visit_node(const Var& v) override { d.all.insert(v.name); }
};

struct Narrow : Mutator {
  const Demand& d;
  explicit Narrow(const Demand& dm) : d(dm) {}

protected:
  Stmt mutate_node(const For& f, const Stmt& self) override {
    std::optional<ElementLoop> l = element_loop(f, d.er, d.ec);
    if (!l)
      return Mutator::mutate_node(f, self);
    if (d.all.count(l->target))
      return self;
    const For* inner = as<For>(only(f.body));
    return for_loop(
        f.var, f.min, f.extent, f.role,
        for_loop(inner->var, int_imm(0), int_imm(1), inner->role, inner->body, inner->loc.range),
        f.loc.range);
  }
};

} // namespace

Stmt narrow_columns(const Stmt& body, const std::string& er, const std::string& ec) {
  Demand d{er, ec, {}, {}};
  OtherReads{d}.visit(body);
  // A tile read at (er, ec) by the element loop of a tile that needs every column needs them too.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [y, targets] : d.via)
      if (!d.all.count(y))
        for (const std::string& t : targets)
          if (d.all.count(t)) {
            d.all.insert(y);
            changed = true;
            break;
          }
  }
  return Narrow{d}.mutate(body);
}

} // namespace tk::lower
