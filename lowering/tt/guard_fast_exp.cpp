// guard-fast-exp (guard_fast_exp.hpp): a linear walk of each statement list of the compute
// kernel, the unclamped exps' DST slots tracked from the exp to the end of its section
// (tile_regs_release).
#include "lowering/tt/guard_fast_exp.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/visitor.hpp"

#include <cstdint>
#include <set>
#include <vector>

namespace tk::lower {

namespace {

using namespace tk::ir;

// tt-llk's unclamped 32-row exp, the scale folded into its init or not.
bool unclamped(Intrinsic fn) {
  return fn == Intrinsic::exp_tile_approx_noclamp ||
         fn == Intrinsic::exp_tile_approx_noclamp_scaled;
}

const Call* call_of(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  return e ? as<Call>(e->call) : nullptr;
}

// The literal slot of a slot argument, or -1.
std::int64_t literal(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i ? i->value : -1;
}

// Whether call `c` (not pack_tile, not the fast exp) reads or writes a slot of `live`, or a slot
// that is not a literal while any is live.
bool touches(const Call& c, const std::set<std::int64_t>& live) {
  const auto kinds = info(c.fn).args;
  for (std::size_t a = 0; a < c.args.size() && a < kinds.size(); ++a) {
    if (kinds[a] != ArgKind::slot)
      continue;
    const std::int64_t s = literal(c.args[a]);
    if (s < 0 ? !live.empty() : live.count(s) > 0)
      return true;
  }
  return false;
}

// Every call in `s` with a slot argument of `live` (or a non-literal one while any is live).
bool touches(const Stmt& s, const std::set<std::int64_t>& live) {
  struct Find : Visitor {
    const std::set<std::int64_t>& live;
    bool found = false;
    explicit Find(const std::set<std::int64_t>& l) : live(l) {}
    void visit_node(const Call& c) override {
      found |= touches(c, live);
      Visitor::visit_node(c);
    }
  } f(live);
  f.visit(s);
  return f.found;
}

bool has_fast_exp(const Stmt& s) {
  struct Find : Visitor {
    bool found = false;
    void visit_node(const Call& c) override {
      found |= unclamped(c.fn);
      Visitor::visit_node(c);
    }
  } f;
  f.visit(s);
  return f.found;
}

// The walk. `rewrite`: insert the ReLU calls (after a check walk found every exp guardable).
struct Guard {
  bool ok = true;

  Stmt list(const Stmt& s, bool rewrite) {
    if (const For* f = as<For>(s)) {
      Stmt body = list(f->body, rewrite);
      return body == f->body ? s : for_loop(f->var, f->min, f->extent, f->role, body);
    }
    if (const IfThenElse* i = as<IfThenElse>(s)) {
      Stmt t = list(i->then_case, rewrite);
      Stmt e = i->else_case ? list(i->else_case, rewrite) : nullptr;
      return t == i->then_case && e == i->else_case ? s : if_then_else(i->cond, t, e);
    }
    const Block* b = as<Block>(s);
    if (!b)
      return s;
    std::vector<Stmt> out;
    std::set<std::int64_t> live; // slots holding an unclamped exp's value, unpacked or packed
    bool on = false;             // the packer's ReLU (rewrite)
    bool changed = false;
    auto relu = [&](bool v) {
      if (rewrite && on != v) {
        out.push_back(evaluate(call(v ? Intrinsic::pack_relu_on : Intrinsic::pack_relu_off, {})));
        changed = true;
      }
      on = v;
    };
    for (const Stmt& x : b->stmts) {
      const Call* c = call_of(x);
      if (!c) { // a nested loop or branch: its own sections; it must not touch a live slot
        if (!live.empty() && touches(x, live))
          ok = false;
        Stmt y = list(x, rewrite);
        changed |= y != x;
        out.push_back(y);
        continue;
      }
      if (unclamped(c->fn)) {
        const std::int64_t slot = literal(c->args[0]);
        if (slot < 0 || live.count(slot)) // not followable, or an exp of the exp's garbage
          ok = false;
        live.insert(slot);
      } else if (c->fn == Intrinsic::pack_tile) {
        const std::int64_t slot = literal(c->args[0]);
        if (slot < 0 && !live.empty())
          ok = false;
        relu(live.count(slot) > 0);
      } else if (c->fn == Intrinsic::tile_regs_release || c->fn == Intrinsic::tile_regs_acquire) {
        relu(false);
        live.clear();
      } else if (touches(*c, live)) {
        ok = false;
      }
      out.push_back(x);
    }
    if (!live.empty()) // a section this walk does not see the end of
      ok = false;
    relu(false);
    return changed ? block(std::move(out)) : s;
  }
};

// Every fast exp and its init as the clamped ones.
struct Clamp : Mutator {
  Expr mutate_node(const Call& c, const Expr& self) override {
    if (c.fn == Intrinsic::exp_tile_approx_noclamp)
      return call(Intrinsic::exp_tile_approx, c.args, c.loc.range);
    if (c.fn == Intrinsic::exp_tile_init_approx_noclamp)
      return call(Intrinsic::exp_tile_init_approx, c.args, c.loc.range);
    if (c.fn == Intrinsic::exp_tile_approx_noclamp_scaled)
      return call(Intrinsic::exp_tile_approx_scaled, c.args, c.loc.range);
    if (c.fn == Intrinsic::exp_tile_init_approx_noclamp_scaled)
      return call(Intrinsic::exp_tile_init_approx_scaled, c.args, c.loc.range);
    return Mutator::mutate_node(c, self);
  }
};

} // namespace

Module guard_fast_exp(const Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions) {
      if (!has_fast_exp(f.body))
        continue;
      Guard check;
      check.list(f.body, false);
      if (!check.ok) {
        Clamp clamp;
        f.body = clamp.mutate(f.body);
        continue;
      }
      Guard g;
      f.body = g.list(f.body, true);
    }
  return out;
}

} // namespace tk::lower
