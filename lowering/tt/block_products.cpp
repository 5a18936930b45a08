#include "lowering/tt/block_products.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/call_match.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tk::lower {

namespace {

using namespace tk::ir;
using tt::call_of;

// An integer index expression as a polynomial in the kernel's variables and opaque terms (a
// division, a remainder, a max, a call: each an atom named by its printed text), so that two
// indices' difference is exact whatever their spelling.
using Monomial = std::vector<std::string>; // sorted atom names; {} is the constant
using Poly = std::map<Monomial, std::int64_t>;

void add_into(Poly& p, const Poly& q, std::int64_t k) {
  for (const auto& [m, c] : q)
    if ((p[m] += k * c) == 0)
      p.erase(m);
}

// A clamp `min(x, y)` taken off (x stands for it): the block is right where x <= y.
using Clamp = std::pair<Expr, Expr>;

class Algebra {
public:
  // The polynomial of `e`; with `clamps`, each min(x, y) is read as x and recorded.
  Poly of(const Expr& e, std::vector<Clamp>* clamps) {
    if (const IntImm* i = as<IntImm>(e))
      return i->value == 0 ? Poly{} : Poly{{Monomial{}, i->value}};
    if (const Binary* b = as<Binary>(e)) {
      switch (b->op) {
      case BinaryOp::add:
      case BinaryOp::sub: {
        Poly p = of(b->a, clamps);
        add_into(p, of(b->b, clamps), b->op == BinaryOp::add ? 1 : -1);
        return p;
      }
      case BinaryOp::mul: {
        const Poly x = of(b->a, clamps), y = of(b->b, clamps);
        Poly p;
        for (const auto& [mx, cx] : x)
          for (const auto& [my, cy] : y) {
            Monomial m = mx;
            m.insert(m.end(), my.begin(), my.end());
            std::sort(m.begin(), m.end());
            add_into(p, Poly{{m, cx * cy}}, 1);
          }
        return p;
      }
      case BinaryOp::min:
        if (clamps) {
          clamps->emplace_back(b->a, b->b);
          return of(b->a, clamps);
        }
        break;
      default:
        break;
      }
    }
    const std::string name = as<Var>(e) ? as<Var>(e)->name : "(" + print(e) + ")";
    atoms_.emplace(name, e);
    return Poly{{Monomial{name}, 1}};
  }

  // The expression of `p` (its atoms as they were read).
  Expr expr(const Poly& p) const {
    Expr sum;
    for (const auto& [m, c] : p) {
      Expr t;
      for (const std::string& a : m)
        t = t ? ir::mul(t, atoms_.at(a)) : atoms_.at(a);
      const std::int64_t k = c < 0 ? -c : c;
      t = t ? ir::mul(int_imm(k), t) : int_imm(k);
      if (!sum)
        sum = c < 0 ? binary(BinaryOp::sub, int_imm(0), t) : t;
      else
        sum = binary(c < 0 ? BinaryOp::sub : BinaryOp::add, sum, t);
    }
    return sum ? sum : int_imm(0);
  }

  std::set<std::string> vars(const Poly& p) const {
    std::set<std::string> out;
    for (const auto& [m, c] : p)
      for (const std::string& a : m)
        for (const std::string& v : vars_read(atoms_.at(a)))
          out.insert(v);
    return out;
  }

private:
  std::map<std::string, Expr> atoms_;
};

Poly scaled(const Poly& p, std::int64_t k) {
  Poly out;
  add_into(out, p, k);
  return out;
}
Poly minus(const Poly& a, const Poly& b) {
  Poly out = a;
  add_into(out, b, -1);
  return out;
}
std::optional<std::int64_t> constant(const Poly& p) {
  if (p.empty())
    return 0;
  if (p.size() == 1 && p.begin()->first.empty())
    return p.begin()->second;
  return std::nullopt;
}

bool is_product(const Call* c) {
  return c && (c->fn == Intrinsic::matmul_tiles || c->fn == Intrinsic::matmul_tiles_bt);
}
std::optional<std::int64_t> slot_of(const Call& c) {
  const IntImm* s = as<IntImm>(c.args[4]);
  return s ? std::optional<std::int64_t>(s->value) : std::nullopt;
}
bool same_operands(const Call& a, const Call& b) {
  return a.fn == b.fn && tt::cb_name(a.args[0]) == tt::cb_name(b.args[0]) &&
         tt::cb_name(a.args[1]) == tt::cb_name(b.args[1]) && !tt::cb_name(a.args[0]).empty() &&
         !tt::cb_name(a.args[1]).empty();
}
Stmt block_call(const Call& first, Expr i0, Expr i1, std::int64_t ct, std::int64_t rt, Expr kt) {
  const bool tr = first.fn == Intrinsic::matmul_tiles_bt;
  return evaluate(call(Intrinsic::matmul_block,
                       {first.args[0], first.args[1], std::move(i0), std::move(i1), first.args[4],
                        int_imm(tr ? 1 : 0), int_imm(ct), int_imm(rt), std::move(kt)},
                       first.loc.range));
}

// The one product a loop's body is, if it is.
const Call* loop_product(const For* f) {
  const Block* b = f ? as<Block>(f->body) : nullptr;
  if (!b || b->stmts.size() != 1)
    return nullptr;
  const Call* c = call_of(b->stmts[0]);
  return is_product(c) && slot_of(*c) ? c : nullptr;
}

class Blocker : public Mutator {
  Stmt mutate_node(const Block& node, const Stmt& self) override {
    Stmt m = Mutator::mutate_node(node, self);
    const std::vector<Stmt>& in = as<Block>(m)->stmts;
    std::vector<Stmt> out;
    bool changed = false;
    for (std::size_t i = 0; i < in.size();) {
      std::size_t used = 0;
      if (std::optional<Stmt> s = rows(in, i, used)) {
        out.push_back(*s);
      } else if (std::optional<Stmt> c = columns(in, i, used)) {
        out.push_back(*c);
      } else {
        out.push_back(in[i]);
        used = 1;
      }
      changed |= used > 1;
      i += used;
    }
    return changed ? block(std::move(out)) : m;
  }

  // Loops in[i ..] over one range, each one product of a row: one loop of blocks.
  std::optional<Stmt> rows(const std::vector<Stmt>& in, std::size_t i, std::size_t& used) {
    const For* f0 = as<For>(in[i]);
    const Call* c0 = loop_product(f0);
    if (!c0)
      return std::nullopt;
    Algebra alg;
    std::vector<Clamp> clamps;
    const Poly p0 = alg.of(c0->args[2], &clamps);
    const Poly q0 = alg.of(c0->args[3], nullptr);
    std::optional<Poly> stride;
    std::size_t n = 1;
    for (; i + n < in.size(); ++n) {
      const For* f = as<For>(in[i + n]);
      const Call* c = loop_product(f);
      if (!c || f->var != f0->var || f->role != f0->role || !equal(f->min, f0->min) ||
          !equal(f->extent, f0->extent) || !same_operands(*c, *c0) ||
          *slot_of(*c) != *slot_of(*c0) + static_cast<std::int64_t>(n) ||
          !minus(alg.of(c->args[3], nullptr), q0).empty())
        break;
      std::vector<Clamp> more = clamps;
      const Poly d = minus(alg.of(c->args[2], &more), p0);
      if (!stride) {
        if (d.empty() || alg.vars(d).count(f0->var))
          break;
        stride = d;
      } else if (d != scaled(*stride, static_cast<std::int64_t>(n))) {
        break;
      }
      clamps = std::move(more);
    }
    if (n < 2)
      return std::nullopt;

    // The guard: every clamp read as its first argument, the stride at least 1 (kt_dim is
    // unsigned). Of clamps with one bound whose arguments differ by a constant, the largest.
    std::vector<Expr> conds;
    std::map<std::string, std::vector<Clamp>> by_bound;
    for (const Clamp& c : clamps) {
      if (mentions(c.first, f0->var) || mentions(c.second, f0->var))
        return std::nullopt;
      by_bound[print(c.second)].push_back(c);
    }
    for (auto& [bound, cs] : by_bound) {
      std::vector<Clamp> kept;
      for (const Clamp& c : cs) {
        bool covered = false;
        for (Clamp& k : kept) {
          const std::optional<std::int64_t> d =
              constant(minus(alg.of(c.first, nullptr), alg.of(k.first, nullptr)));
          if (d) {
            if (*d > 0)
              k = c;
            covered = true;
            break;
          }
        }
        if (!covered)
          kept.push_back(c);
      }
      for (const Clamp& k : kept)
        conds.push_back(binary(BinaryOp::le, k.first, k.second));
    }
    const std::optional<std::int64_t> s = constant(*stride);
    if (s && *s < 1)
      return std::nullopt;
    const Expr kt = alg.expr(*stride);
    if (!s)
      conds.push_back(binary(BinaryOp::ge, kt, int_imm(1)));

    used = n;
    Stmt blocked = for_loop(
        f0->var, f0->min, f0->extent, f0->role,
        block({block_call(*c0, c0->args[2], c0->args[3], 1, static_cast<std::int64_t>(n), kt)}),
        f0->loc.range);
    if (conds.empty())
      return blocked;
    Expr cond = conds[0];
    for (std::size_t k = 1; k < conds.size(); ++k)
      cond = binary(BinaryOp::logical_and, cond, conds[k]);
    std::vector<Stmt> as_was(in.begin() + static_cast<std::ptrdiff_t>(i),
                             in.begin() + static_cast<std::ptrdiff_t>(i + n));
    return if_then_else(cond, block({blocked}), block(std::move(as_was)), f0->loc.range);
  }

  // Products in[i ..] of one in0 tile with consecutive in1 tiles into consecutive slots.
  std::optional<Stmt> columns(const std::vector<Stmt>& in, std::size_t i, std::size_t& used) {
    const Call* c0 = call_of(in[i]);
    if (!is_product(c0) || !slot_of(*c0))
      return std::nullopt;
    Algebra alg;
    const Poly p0 = alg.of(c0->args[2], nullptr);
    const Poly q0 = alg.of(c0->args[3], nullptr);
    std::size_t n = 1;
    for (; i + n < in.size(); ++n) {
      const Call* c = call_of(in[i + n]);
      const auto k = static_cast<std::int64_t>(n);
      if (!is_product(c) || !same_operands(*c, *c0) || !slot_of(*c) ||
          *slot_of(*c) != *slot_of(*c0) + k || !minus(alg.of(c->args[2], nullptr), p0).empty() ||
          constant(minus(alg.of(c->args[3], nullptr), q0)) != k)
        break;
    }
    if (n < 2)
      return std::nullopt;
    used = n;
    return block_call(*c0, c0->args[2], c0->args[3], static_cast<std::int64_t>(n), 1, int_imm(1));
  }
};

} // namespace

ir::Module block_products(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions)
      if (f.kind == FuncKind::compute) {
        Blocker b;
        f.body = b.mutate(f.body);
      }
  return out;
}

} // namespace tk::lower
