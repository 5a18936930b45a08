#include "lowering/tt/fold_scale.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/target.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;

const Call* as_call_of(const Expr& e, Intrinsic fn) {
  const Call* c = as<Call>(e);
  return c && c->fn == fn ? c : nullptr;
}

// A tile whose value scaling leaves alone: zeros, fill(+-inf).
bool scale_invariant(const Expr& e) {
  if (as_call_of(e, Intrinsic::tile_zeros))
    return true;
  const Call* f = as_call_of(e, Intrinsic::tile_fill);
  const FloatImm* v = f ? as<FloatImm>(f->args[0]) : nullptr;
  return v && (std::isinf(v->value) || v->value == 0);
}

// `e` is f times the same expression over the unscaled values when every variable of `in` it reads
// holds f times its unscaled value, for any f > 0: positively homogeneous of degree 1.
bool homogeneous(const Expr& e, const std::set<std::string>& in) {
  if (const Var* v = as<Var>(e))
    return in.count(v->name) > 0;
  if (scale_invariant(e))
    return true;
  const Call* c = as<Call>(e);
  if (!c)
    return false;
  switch (c->fn) {
  case Intrinsic::tile_max:
  case Intrinsic::tile_min:
  case Intrinsic::tile_add:
  case Intrinsic::tile_sub:
    return homogeneous(c->args[0], in) && homogeneous(c->args[1], in);
  case Intrinsic::tile_rowmax:
  case Intrinsic::tile_colmax:
  case Intrinsic::tile_bcast_col:
  case Intrinsic::tile_bcast_row:
    return homogeneous(c->args[0], in);
  case Intrinsic::tile_where: // a mask that reads none of them picks between two such values
    for (const std::string& v : in)
      if (mentions(c->args[0], v))
        return false;
    return homogeneous(c->args[1], in) && homogeneous(c->args[2], in);
  default:
    return false;
  }
}

// A candidate: `x = s * f` or `x = where(mask, x * f, z)` at stmts[at] of `block`, `x` declared
// earlier in that block, f an f32 parameter.
struct Candidate {
  const Block* block = nullptr;
  std::size_t at = 0;
  std::string x, f;
  Expr folded; // the statement's value without the multiply; null: the statement goes
};

std::optional<Candidate> candidate_at(const Function& fn, const Block& b, std::size_t k) {
  const Assign* a = as<Assign>(b.stmts[k]);
  if (!a)
    return std::nullopt;
  auto product = [&](const Expr& e) -> const Call* {
    const Call* m = as_call_of(e, Intrinsic::tile_mul_scalar);
    const Var* x = m ? as<Var>(m->args[0]) : nullptr;
    const Var* f = m ? as<Var>(m->args[1]) : nullptr;
    if (!x || x->name != a->name || !f)
      return nullptr;
    for (const Param& p : fn.params)
      if (p.name == f->name && p.type == Type::f32())
        return m;
    return nullptr;
  };
  Candidate c;
  c.block = &b;
  c.at = k;
  c.x = a->name;
  const Call* m = product(a->value);
  if (!m) {
    const Call* w = as_call_of(a->value, Intrinsic::tile_where);
    if (!w || !(m = product(w->args[1])) || mentions(w->args[0], a->name) ||
        !scale_invariant(w->args[2]))
      return std::nullopt;
    c.folded = call(Intrinsic::tile_where, {w->args[0], m->args[0], w->args[2]}, w->loc.range);
  }
  c.f = as<Var>(m->args[1])->name;
  bool declared = false;
  for (std::size_t i = 0; i < k; ++i) {
    const Decl* d = as<Decl>(b.stmts[i]);
    declared |= d && d->name == c.x && d->type.is_tile();
  }
  if (!declared)
    return std::nullopt;
  return c;
}

// Every definition of every tile variable of the function: name -> (statement, value).
struct Defs : Visitor {
  std::multimap<std::string, std::pair<const StmtNode*, Expr>> of;
  std::set<std::string> tiles;
  void visit_node(const Decl& d) override {
    if (d.type.is_tile()) {
      tiles.insert(d.name);
      of.emplace(d.name, std::make_pair(&d, d.value));
    }
    Visitor::visit_node(d);
  }
  void visit_node(const Assign& a) override {
    of.emplace(a.name, std::make_pair(&a, a.value));
    Visitor::visit_node(a);
  }
};

// The statements at and below `s`.
void statements_in(const Stmt& s, std::set<const StmtNode*>& out) {
  struct Collect : Visitor {
    std::set<const StmtNode*>& out;
    explicit Collect(std::set<const StmtNode*>& o) : out(o) {}
    void visit_node(const Block& b) override {
      for (const Stmt& x : b.stmts)
        out.insert(x.get());
      Visitor::visit_node(b);
    }
  } c(out);
  out.insert(s.get());
  c.visit(s);
}

// The fold of one candidate: the exps to rewrite, or why not.
struct Plan {
  std::string refusal;
  std::set<const Call*> exps;
};

Plan plan(const Function& fn, const Candidate& cand) {
  Defs defs;
  defs.visit(fn.body);
  const std::vector<Stmt>& stmts = cand.block->stmts;
  std::set<const StmtNode*> before, after; // the candidate's block's statements, around it
  for (std::size_t i = 0; i < stmts.size(); ++i)
    if (i < cand.at)
      statements_in(stmts[i], before);
    else if (i > cand.at)
      statements_in(stmts[i], after);
  const StmtNode* scaling = stmts[cand.at].get();

  // The tile variables all of whose definitions are homogeneous in them (a greatest fixed point;
  // x by the candidate's multiply), then those among them computed from x: the scaled family.
  std::set<std::string> family = defs.tiles;
  family.insert(cand.x);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = family.begin(); it != family.end();) {
      bool ok = *it == cand.x;
      if (!ok) {
        ok = true;
        auto [lo, hi] = defs.of.equal_range(*it);
        for (auto d = lo; d != hi && ok; ++d)
          ok = homogeneous(d->second.second, family);
      }
      if (ok) {
        ++it;
      } else {
        it = family.erase(it);
        changed = true;
      }
    }
  }
  std::set<std::string> scaled = {cand.x};
  for (bool changed = true; changed;) {
    changed = false;
    for (const std::string& v : family) {
      if (scaled.count(v))
        continue;
      auto [lo, hi] = defs.of.equal_range(v);
      for (auto d = lo; d != hi; ++d)
        for (const std::string& s : scaled)
          if (!scaled.count(v) && mentions(d->second.second, s)) {
            scaled.insert(v);
            changed = true;
          }
    }
  }

  Plan out;
  // Each definition of a scaled value that reads x comes after the multiply in x's block.
  for (const std::string& v : scaled) {
    if (v == cand.x)
      continue;
    auto [lo, hi] = defs.of.equal_range(v);
    for (auto d = lo; d != hi; ++d)
      if (mentions(d->second.second, cand.x) && !after.count(d->second.first)) {
        out.refusal =
            "'" + v + "' is computed from '" + cand.x + "' before its multiply by '" + cand.f + "'";
        return out;
      }
  }

  // Every other read of a scaled value is an exp's argument homogeneous in them.
  struct Reads : Visitor {
    const std::set<std::string>& scaled;
    const std::set<std::string>& family;
    const std::string& x;
    const std::set<const StmtNode*>& before;
    const StmtNode* scaling;
    std::set<const Call*> exps;
    std::string refusal;
    Stmt at; // the statement being read
    Reads(const std::set<std::string>& s, const std::set<std::string>& fam, const std::string& xx,
          const std::set<const StmtNode*>& b, const StmtNode* sc)
        : scaled(s), family(fam), x(xx), before(b), scaling(sc) {}
    // A definition of the scaled family after x's multiply (homogeneous), or the multiply.
    bool skipped(const Stmt& s) const {
      if (s.get() == scaling)
        return true;
      const Decl* d = as<Decl>(s);
      const Assign* a = as<Assign>(s);
      const std::string* name = d ? &d->name : a ? &a->name : nullptr;
      return name && scaled.count(*name) && !before.count(s.get());
    }
    bool reads_scaled(const Expr& e) const {
      for (const std::string& v : scaled)
        if (mentions(e, v))
          return true;
      return false;
    }
    void read(const Stmt& s) {
      if (skipped(s))
        return;
      Stmt outer = at;
      at = s;
      visit(s);
      at = outer;
    }
    void visit_node(const Block& b) override {
      for (const Stmt& s : b.stmts)
        read(s);
    }
    void visit_node(const Call& c) override {
      if (c.fn == Intrinsic::tile_exp && homogeneous(c.args[0], family) &&
          reads_scaled(c.args[0]) && !(before.count(at.get()) && mentions(c.args[0], x))) {
        exps.insert(&c);
        return;
      }
      Visitor::visit_node(c);
    }
    void visit_node(const Var& v) override {
      if (!refusal.empty() || !scaled.count(v.name))
        return;
      if (v.name == x && before.count(at.get())) // the unscaled x, before its multiply
        return;
      std::string text = print(at); // the statement's first line
      while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
      if (std::size_t nl = text.find('\n'); nl != std::string::npos)
        text = text.substr(0, nl) + " ...";
      refusal = "'" + v.name + "', a multiple of the scale, is read by `" + text + "`";
    }
  } reads(scaled, family, cand.x, before, scaling);
  reads.read(fn.body);
  if (!reads.refusal.empty()) {
    out.refusal = reads.refusal;
    return out;
  }
  if (reads.exps.empty()) {
    out.refusal = "no exp reads '" + cand.x + "' after its multiply by '" + cand.f + "'";
    return out;
  }
  out.exps = std::move(reads.exps);
  return out;
}

// The candidates of the function, in program order.
std::vector<Candidate> candidates(const Function& fn) {
  struct Find : Visitor {
    const Function& fn;
    std::vector<Candidate> found;
    explicit Find(const Function& f) : fn(f) {}
    void visit_node(const Block& b) override {
      for (std::size_t k = 0; k < b.stmts.size(); ++k)
        if (std::optional<Candidate> c = candidate_at(fn, b, k))
          found.push_back(*c);
      Visitor::visit_node(b);
    }
  } find(fn);
  find.visit(fn.body);
  return find.found;
}

// The candidate fold-scale takes and its plan, or the last refusal.
struct Choice {
  std::optional<Candidate> cand;
  Plan plan;
};

Choice choose(const Program& p, const Function& fn) {
  Choice out;
  if (!tt::options(p).exp_approx_mode) {
    out.plan.refusal = "the approximate exp is off (@options(exp_approx_mode))";
    return out;
  }
  std::vector<Candidate> cs = candidates(fn);
  if (cs.empty())
    out.plan.refusal = "no `x = x * f` (or `x = where(m, x * f, z)`) with f an f32 parameter and "
                       "x declared in the same block";
  for (const Candidate& c : cs) {
    out.plan = plan(fn, c);
    if (out.plan.refusal.empty()) {
      out.cand = c;
      return out;
    }
  }
  return out;
}

class Rewrite : public Mutator {
public:
  Rewrite(const Candidate& c, const std::set<const Call*>& exps) : c_(c), exps_(exps) {}

protected:
  Expr mutate_node(const Call& c, const Expr& self) override {
    Expr e = Mutator::mutate_node(c, self);
    if (!exps_.count(&c))
      return e;
    const Call* r = as<Call>(e);
    return call(Intrinsic::tile_exp_scaled, {r->args[0], var(c_.f, Type::f32())}, c.loc.range);
  }
  Stmt mutate_node(const Block& b, const Stmt& self) override {
    if (&b != c_.block)
      return Mutator::mutate_node(b, self);
    std::vector<Stmt> out;
    for (std::size_t k = 0; k < b.stmts.size(); ++k) {
      if (k != c_.at) {
        out.push_back(mutate(b.stmts[k]));
        continue;
      }
      const Assign* a = as<Assign>(b.stmts[k]);
      if (c_.folded)
        out.push_back(assign(a->name, c_.folded, b.stmts[k]->loc.range));
    }
    return block(std::move(out));
  }

private:
  const Candidate& c_;
  const std::set<const Call*>& exps_;
};

} // namespace

namespace tt {
std::string scale_fold_refusal(const Program& p, const Function& f) {
  return choose(p, f).plan.refusal;
}
} // namespace tt

Module fold_scale(const Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs) {
    if (!tt::options(p).exp_approx_mode)
      continue;
    Function* kernel = find_function(p, FuncKind::kernel);
    if (!kernel)
      continue;
    Choice ch = choose(p, *kernel);
    if (!ch.cand)
      continue;
    kernel->body = Rewrite(*ch.cand, ch.plan.exps).mutate(kernel->body);
  }
  return out;
}

} // namespace tk::lower
