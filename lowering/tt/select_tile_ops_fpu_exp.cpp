// An approximate exp's argument `x - bcast_col(y)` subtracted on the FPU (docs/language.md,
// "Precision"; docs/lowering.md, "The argument of an approximate exp"). With an fp32 DST every
// `-` runs on the SFPU in fp32 (copy_tile x, unary_bcast y, sub_binary_tile: three inits and the
// SFPU's 206 cycles per tile). Under @options(exp_approx_mode) the exp that consumes such a
// difference already errs by up to 3.1% of its value, so the language lets the FPU subtract it,
// as TTNN's SDPA does (sub_tiles_bcast_cols, then the exp in DST): sub_tiles_bcast<COL> reads x
// from its CB through SrcA and y from its CB through SrcB, into DST, and exp_tile<true> follows
// there. What it costs: a Float32 x reaches SrcA as TF32, its low 13 mantissa bits dropped (the
// unpacker's FP32 to TF32 conversion truncates: tt-isa-documentation, UNPACR_Regular.md,
// FormatConversion), so the argument errs by less than |x| 2^-10. y must lose nothing: it is a
// row statistic other uses read exactly (FlashAttention's `mn`, which the accurate rescale
// c = exp(m - mn) reads), and an argument off by a per-row constant would scale the step's
// weights against the carried ones. So y must be a value TF32 holds: a max of FPU reductions
// (each a value SrcA held, TF32 or bf16), of such values and of fills TF32 holds. Its Float32 CB
// then feeds SrcB, and its other readers' copy_tile reads it through SrcA, still exactly; x's CB
// may have no other reader but the FPU (check_fpu_exp_args). Only exps that are approximate (not
// the rescales select_tile_ops_exp.cpp keeps accurate), and only with an fp32 DST (a 16-bit one
// subtracts on the FPU anyway).
#include "lowering/tt/select_tile_ops_state.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

const Call* call_of(const Expr& e, Intrinsic fn) {
  const Call* c = as<Call>(e);
  return c && c->fn == fn ? c : nullptr;
}

// TF32 (and so an FPU operand read from a Float32 CB) holds `v` exactly.
bool tf32_holds(double v) {
  if (!std::isfinite(v))
    return true;
  const auto f = static_cast<float>(v);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<double>(f) == v && (bits & 0x1fffu) == 0;
}

// The tile.exp calls of an expression.
struct Exps : Visitor {
  std::vector<const Call*> found;
  void visit_node(const Call& c) override {
    if (c.fn == Intrinsic::tile_exp || c.fn == Intrinsic::tile_exp_scaled) // exp(x * f) alike
      found.push_back(&c);
    Visitor::visit_node(c);
  }
};

// How `name` is mentioned in an expression: in all, and as the direct operand of an FPU
// operation that reads it from its CB (matmul, max reductions, transpose).
struct Mentions : Visitor {
  const std::string& name;
  int all = 0, fpu = 0;
  explicit Mentions(const std::string& n) : name(n) {}
  void visit_node(const Var& v) override { all += v.name == name; }
  void visit_node(const Call& c) override {
    auto direct = [&](std::size_t k) {
      const Var* v = k < c.args.size() ? as<Var>(c.args[k]) : nullptr;
      fpu += v && v->name == name;
    };
    switch (c.fn) {
    case Intrinsic::tile_matmul:
      direct(0), direct(1);
      break;
    case Intrinsic::tile_matmul_acc:
      direct(1), direct(2);
      break;
    case Intrinsic::tile_rowmax:
    case Intrinsic::tile_colmax:
    case Intrinsic::tile_transpose:
      direct(0);
      break;
    default:
      break;
    }
    Visitor::visit_node(c);
  }
};

} // namespace

void TileSelector::analyze_fpu_exp_args(const std::vector<std::pair<std::string, Expr>>& defs) {
  if (!exp_approx_ || !sfpu_arith_)
    return;
  // The variables TF32 holds: a fixed point over the definitions, from "exact".
  std::map<std::string, bool> exact;
  for (const auto& [name, value] : defs)
    exact[name] = true;
  std::function<bool(const Expr&)> holds = [&](const Expr& e) -> bool {
    if (bf16_source(e))
      return true;
    if (const Var* v = as<Var>(e)) {
      auto it = exact.find(v->name);
      return it != exact.end() && it->second;
    }
    const Call* c = as<Call>(e);
    if (!c)
      return false;
    switch (c->fn) {
    case Intrinsic::tile_zeros:
      return true;
    case Intrinsic::tile_fill: {
      const FloatImm* f = as<FloatImm>(c->args[0]);
      return f && tf32_holds(f->value);
    }
    case Intrinsic::tile_rowmax: // the FPU's max of the SrcA values it read (reduce_tile)
    case Intrinsic::tile_colmax:
      return true;
    case Intrinsic::tile_max:
    case Intrinsic::tile_min:
    case Intrinsic::tile_bcast_row:
    case Intrinsic::tile_bcast_col:
      return std::all_of(c->args.begin(), c->args.end(), holds);
    default:
      return false;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, value] : defs)
      if (exact[name] && !holds(value))
        exact[name] = false, changed = true;
  }
  for (const auto& [name, value] : defs) {
    Exps exps;
    exps.visit(value);
    for (const Call* e : exps.found) {
      if (accurate_exps_.count(e))
        continue;
      const Call* sub = call_of(e->args[0], Intrinsic::tile_sub);
      const Call* bc = sub ? call_of(sub->args[1], Intrinsic::tile_bcast_col) : nullptr;
      const Var* x = sub ? as<Var>(sub->args[0]) : nullptr;
      const Var* y = bc ? as<Var>(bc->args[0]) : nullptr;
      if (!x || !y || x->name == y->name || !exact.count(y->name) || !exact[y->name])
        continue;
      // x's CB must reach only the FPU: mentioned elsewhere only as an FPU operand or in its own
      // definitions (check_fpu_exp_args proves the CB is never copied into DST).
      int others = 0;
      for (const auto& [n, v] : defs) {
        Mentions m(x->name);
        m.visit(v);
        if (n != x->name)
          others += m.all - m.fpu;
      }
      if (others == 1) // this exp's argument
        fpu_exps_.insert(e);
    }
  }
}

Val TileSelector::fpu_exp(const Call& exp) {
  const Call* sub = as<Call>(exp.args[0]);
  const Var* x = as<Var>(sub->args[0]);
  const Var* y = as<Var>(as<Call>(sub->args[1])->args[0]);
  for (const Var* v : {x, y})
    if (resident(v->name) || !in_cb(v->name))
      return nullptr; // in DST: the SFPU's subtraction (select)
  Val vx = select(sub->args[0]), vy = select(as<Call>(sub->args[1])->args[0]);
  Val d = fresh_dst();
  pre(vx);
  pre(vy);
  emit(Intrinsic::sub_tiles_bcast,
       {enum_imm(EnumConst::bcast_col), cb_ref(vx->cb), cb_ref(vy->cb),
        vx->index ? vx->index : int_imm(0), vy->index ? vy->index : int_imm(0), int_imm(d->slot)});
  post(vx);
  post(vy);
  fpu_read_cbs_.insert(vx->cb);
  if (exp.fn == Intrinsic::tile_exp_scaled) // the scale in the init's constants (fold-scale)
    emit(approx_exp(exp), {int_imm(d->slot), bits(exp.args[1])});
  else // unclamped where proved (select_tile_ops_exp.cpp)
    emit(approx_exp(exp), {int_imm(d->slot)});
  return d;
}

void TileSelector::check_fpu_exp_args(const Stmt& body) const {
  if (fpu_read_cbs_.empty())
    return;
  auto check = [&](Intrinsic fn, std::size_t arg) {
    for (const Call* c : ir::calls_of(body, fn))
      if (const Ref* r = as<Ref>(c->args.at(arg)); r && fpu_read_cbs_.count(r->name))
        throw InternalError("internal error: select-tile-ops: " + r->name +
                            " is read by the FPU's subtraction of an exp's argument and also "
                            "copied into DST, which would read it as TF32");
  };
  check(Intrinsic::copy_tile, 0);
  check(Intrinsic::unary_bcast, 1);
}

} // namespace tk::lower::tt
