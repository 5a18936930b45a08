// Which `exp` of a kernel with @options(exp_approx_mode = true) stays accurate (docs/language.md,
// "Precision"; docs/lowering.md, "Approximate exp"): tt-llk's approximate exp errs by up to about
// 3% of its value and is biased (exp(0) is 0.9785), so a factor that rescales a carried value
// (FlashAttention's `l = l * c + ...`, `o[d] = o[d] * bcast_col(c) + ...` with `c = exp(m - mn)`)
// would multiply its error into the carried value once per iteration: after k key steps a weight
// off by 0.9785^k, 6% of itself at S = 4096. Its error must not compound, so such an exp stays
// exp_tile<false>; every other exp (FlashAttention's p, whose error enters the sums once) is
// exp_tile<true>. TTNN's SDPA draws the same line: its correction exp is the accurate one
// (compute_common.hpp's calculate_fused_max_sub_exp_add_tile), its P the approximate one.
//
// Of the approximate ones, an exp whose argument is proved at most 0 (prove_nonpositive.hpp: p =
// exp(s - bcast_col(mn)) with mn = max(m, rowmax(s))) is tt-llk's unclamped 32-row kernel, as
// TTNN's SDPA calls it (exp_tile<true, false, InputClamping::None, 32>(i, VectorMode::None): 74
// cycles a tile against the clamped one's 311.5 with an fp32 DST); below about -88 it leaves a
// negative value, which the packer's ReLU writes as 0 (guard-fast-exp, which also falls back to
// the clamped exp where anything but a pack would read the value in DST).
#include "lowering/tt/select_tile_ops_state.hpp"

#include "lowering/ir/visitor.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

bool mentions(const Expr& e, const std::string& name) {
  struct Find : Visitor {
    const std::string& n;
    bool found = false;
    explicit Find(const std::string& x) : n(x) {}
    void visit_node(const Var& v) override { found |= v.name == n; }
  } f(name);
  f.visit(e);
  return f.found;
}

// The variables and the tile.exp calls of `e`.
struct Uses : Visitor {
  std::set<std::string> vars;
  std::vector<const Call*> exps;
  void visit_node(const Var& v) override { vars.insert(v.name); }
  void visit_node(const Call& c) override {
    if (c.fn == Intrinsic::tile_exp || c.fn == Intrinsic::tile_exp_scaled)
      exps.push_back(&c);
    Visitor::visit_node(c);
  }
};

} // namespace

std::set<const Call*> exps_rescaling_carried(const Function& kernel) {
  // Every definition of a tile value (`let x = e`, `x = e`), and the factors of the products that
  // rescale a carried value: in `x = ... a * b ...` where a mentions x itself, b (and the other
  // way round).
  struct Scan : Visitor {
    std::multimap<std::string, Expr> defs;
    std::vector<Expr> factors;
    std::string target; // the variable being defined
    void visit_node(const Decl& d) override {
      if (!d.type.is_tile() && !d.type.is_row())
        return Visitor::visit_node(d);
      defs.emplace(d.name, d.value);
      target = d.name;
      Visitor::visit_node(d);
      target.clear();
    }
    void visit_node(const Assign& a) override {
      defs.emplace(a.name, a.value);
      target = a.name;
      Visitor::visit_node(a);
      target.clear();
    }
    void visit_node(const Call& c) override {
      if (c.fn == Intrinsic::tile_mul && !target.empty() && c.args.size() == 2) {
        if (mentions(c.args[0], target))
          factors.push_back(c.args[1]);
        if (mentions(c.args[1], target))
          factors.push_back(c.args[0]);
      }
      Visitor::visit_node(c);
    }
  } scan;
  scan.visit(kernel.body);

  // The exps of the factors, and of the definitions of every variable a factor reads, to a fixed
  // point (a factor computed through named steps: c = exp(d); c2 = c * c; o = o * c2).
  std::set<const Call*> keep;
  std::set<std::string> seen;
  std::vector<Expr> work = scan.factors;
  while (!work.empty()) {
    Expr e = work.back();
    work.pop_back();
    Uses u;
    u.visit(e);
    keep.insert(u.exps.begin(), u.exps.end());
    for (const std::string& v : u.vars) {
      if (!seen.insert(v).second)
        continue;
      auto [lo, hi] = scan.defs.equal_range(v);
      for (auto it = lo; it != hi; ++it)
        work.push_back(it->second);
    }
  }
  return keep;
}

Intrinsic TileSelector::approx_exp(const Call& c) const {
  const bool noclamp = nonpositive_exps_.count(&c) > 0;
  if (c.fn == Intrinsic::tile_exp_scaled) // the scale in the init (fold-scale)
    return noclamp ? Intrinsic::exp_tile_approx_noclamp_scaled : Intrinsic::exp_tile_approx_scaled;
  return noclamp ? Intrinsic::exp_tile_approx_noclamp : Intrinsic::exp_tile_approx;
}

} // namespace tk::lower::tt
