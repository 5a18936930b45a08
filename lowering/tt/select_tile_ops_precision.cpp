// What keeps sums exact on TT (docs/language.md, "Precision"; docs/lowering.md, "Sums that stay
// exact"). The FPU reads its operands through SrcA/SrcB, which hold TF32: an fp32 value read
// there loses its low 13 mantissa bits, truncated. Once is within the documented operand
// precision; once per iteration of a carried sum is a drift (-3.8% over 256 tiles), and once on a
// mean that is then subtracted from values near it is most of the difference. So:
// - a carried sum lives in a dest-only Float32 CB (UnpackToDestFp32), is combined through the
//   SFPU's fp32 binary ops, and reaches an FPU operation only through a copy (fpu_operand);
// - a reduction leaving DST under its mask for a copy back goes through a dest-only temporary;
// - with an fp32 DST, `+ - *` run on the SFPU with both operands whole in DST, unless bf16 holds
//   both (src_exact), and a row or column sum of a `+`/`-` or of a named value reduces its hi
//   (bf16) and lo (the rest) parts (sum_parts).
#include "lowering/tt/select_tile_ops_state.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <cmath>
#include <cstring>
#include <functional>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

Expr i(std::int64_t v) {
  return int_imm(v);
}

bool bf16_holds(double v) {
  if (!std::isfinite(v))
    return true;
  const auto f = static_cast<float>(v);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<double>(f) == v && (bits & 0xffffu) == 0;
}

Val cb_value(const std::string& cb, bool dest_only) {
  auto v = std::make_shared<TileValue>();
  v->where = TileValue::Where::cb;
  v->cb = cb;
  v->dest_only = dest_only;
  return v;
}

} // namespace

// Which variables are carried sums, read only by the FPU, or held by bf16; run once by the
// constructor.
void TileSelector::analyze_precision(const Function& kernel,
                                     const std::vector<std::pair<std::string, Expr>>& defs) {
  if (!fp32_acc_)
    return; // a 16-bit DST rounds every value to bf16: nothing here is more precise than that
  // The variables only the FPU reads (operands of @, the reductions, transpose): a dest-only CB
  // would only add a copy before each read, which truncates them just the same.
  struct Reads : Visitor {
    bool split_sums = false;
    std::map<std::string, int> all, fpu;
    void visit_node(const Var& v) override { ++all[v.name]; }
    void visit_node(const Call& c) override {
      auto direct = [&](std::size_t k) {
        if (const Var* v = k < c.args.size() ? as<Var>(c.args[k]) : nullptr)
          ++fpu[v->name];
      };
      switch (c.fn) {
      case Intrinsic::tile_matmul:
        direct(0), direct(1);
        break;
      case Intrinsic::tile_matmul_acc:
        direct(1), direct(2);
        break;
      case Intrinsic::tile_rowsum: // a sum split into hi + lo reads its operand by copy_tile
      case Intrinsic::tile_colsum:
        if (!split_sums)
          direct(0);
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
  } reads;
  reads.split_sums = split_sums_;
  reads.visit(kernel.body);
  for (const auto& [name, n] : reads.all)
    if (reads.fpu[name] == n)
      fpu_only_.insert(name);
  for (const auto& [name, value] : defs) {
    const Call* c = as<Call>(value);
    const bool extremum = c && (c->fn == Intrinsic::tile_max || c->fn == Intrinsic::tile_min);
    if (!extremum && ir::count_mentions(value, name) > 0)
      carried_.insert(name); // max/min are exact: a truncated max is not a drift
  }
  // bf16-exact values (loads of bf16 data and what max, min, relu, neg... make of them) lose
  // nothing through SrcA/SrcB. A fixed point over the definitions, from "exact".
  std::map<std::string, bool> exact;
  for (const auto& [name, value] : defs)
    exact[name] = true;
  std::function<bool(const Expr&)> holds_bf16 = [&](const Expr& e) -> bool {
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
    case Intrinsic::tile_tril:
    case Intrinsic::tile_triu:
      return true;
    case Intrinsic::tile_fill: {
      const FloatImm* f = as<FloatImm>(c->args[0]);
      return f && bf16_holds(f->value);
    }
    case Intrinsic::tile_max:
    case Intrinsic::tile_min:
    case Intrinsic::tile_rowmax:
    case Intrinsic::tile_colmax:
    case Intrinsic::tile_relu:
    case Intrinsic::tile_neg:
    case Intrinsic::tile_abs:
    case Intrinsic::tile_transpose:
    case Intrinsic::tile_bcast_row:
    case Intrinsic::tile_bcast_col:
      return std::all_of(c->args.begin(), c->args.end(), holds_bf16);
    case Intrinsic::tile_where:
      return holds_bf16(c->args[1]) && holds_bf16(c->args[2]);
    default:
      return false;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, value] : defs)
      if (exact[name] && !holds_bf16(value))
        exact[name] = false, changed = true;
  }
  for (const auto& [name, is_exact] : exact)
    if (is_exact)
      exact_.insert(name);
}

bool TileSelector::bf16_source(const Expr& e) const {
  if (const Load* l = as<Load>(e)) {
    const Tensor* t = prog_.find_tensor(l->tensor);
    return t && t->dtype != DType::f32;
  }
  const Call* c = as<Call>(e);
  if (c && c->fn == Intrinsic::cb_tile) { // a tile of a row kept in L1 (keep-rows)
    const CircularBuffer* cb = prog_.find_cb(as<Ref>(c->args[0])->name);
    return cb && cb->format != DataFormat::Float32;
  }
  return false;
}

bool TileSelector::src_exact(const Expr& e) const {
  if (bf16_source(e))
    return true;
  if (const Var* v = as<Var>(e))
    return exact_.count(v->name) > 0;
  const Call* c = as<Call>(e);
  return c && (c->fn == Intrinsic::tile_bcast_row || c->fn == Intrinsic::tile_bcast_col) &&
         src_exact(c->args[0]);
}

std::vector<Val> TileSelector::sum_parts(const Val& a, const Expr& e) {
  const Call* c = as<Call>(e);
  const Var* var = as<Var>(e);
  const bool terms = (c && (c->fn == Intrinsic::tile_add || c->fn == Intrinsic::tile_sub)) ||
                     (var && dest_only_var(var->name));
  if (!split_sums_ || !terms || (a->where == TileValue::Where::cb && !a->dest_only)) {
    fpu_operand(a);
    to_cb(a);
    return {a};
  }
  if (!live_.empty()) // a to a dest-only temporary (exact), and what else DST holds: hi and lo
    spill_all();      // take sections of their own (`l * c + rowsum(p)`)
  const std::string hi = split_temp(), lo = split_temp();
  Val keep = std::make_shared<TileValue>(*a); // a stays for lo: read, not popped
  keep->pop = false;
  pack(keep, hi); // the packer rounds to bf16 (nearest even)
  close_section();
  emit(Intrinsic::cb_wait_front, {cb_ref(hi), i(1)});
  pack(sfpu_binary(Intrinsic::sub_binary_tile, a, cb_value(hi, false)), lo); // exact in fp32
  close_section();
  emit(Intrinsic::cb_wait_front, {cb_ref(lo), i(1)});
  std::vector<Val> parts = {cb_value(hi, false), cb_value(lo, false)};
  for (const Val& v : parts)
    v->pop = v->temp = true;
  return parts;
}

std::string TileSelector::temp_cb(bool dest_only) {
  std::vector<std::string>& pool = dest_only ? free_dest_temps_ : free_temps_;
  if (!pool.empty()) {
    std::string t = pool.back();
    pool.pop_back();
    return t;
  }
  if (dest_only)
    return new_cb("cb_sum" + std::to_string(dest_temps_++), true);
  return new_cb("cb_tmp" + std::to_string(temps_++), inter_f32_);
}

std::string TileSelector::split_temp() {
  if (!inter_f32_)
    return temp_cb(false);
  if (!free_split_temps_.empty()) {
    std::string t = free_split_temps_.back();
    free_split_temps_.pop_back();
    return t;
  }
  return new_cb("cb_tmp" + std::to_string(temps_++), false);
}

void TileSelector::fpu_operand(const Val& v) {
  if (v->where != TileValue::Where::cb || !v->dest_only)
    return;
  if (auto it = fpu_copies_.find(v->var); it != fpu_copies_.end() && !v->index) {
    v->cb = it->second; // the copy its section packed: the same rounding, no section of its own
    v->dest_only = false;
    v->pop = v->temp = true;
    fpu_copies_.erase(it);
    return;
  }
  to_dst(v); // exact; the caller's to_cb packs it where the FPU may read it
}

bool TileSelector::sums_in_dst(const std::string& acc, const Expr& rhs, Intrinsic combine) const {
  if (combine != Intrinsic::tile_add || !carried_sum(acc))
    return false;
  const Call* kept = as<Call>(rhs);
  const Var* v = as<Var>(rhs);
  if (as<Load>(rhs) || (kept && kept->fn == Intrinsic::cb_tile) || (v && in_cb(v->name)))
    return true;
  // A term computed in DST beside the sum, none of it packed (layernorm's variance walk, `v_sum +=
  // square(x - bcast_col(mean))`): one section for the whole loop, not a pack and copy of the
  // sum per tile.
  const int need = dst_need(rhs);
  return need > 0 && need < capacity_;
}

Val TileSelector::sum_in_dst(const Expr& acc, const Expr& rhs) {
  Val x = select(acc);
  to_dst(x);
  Val t = select(rhs);
  to_dst(t);
  emit(Intrinsic::add_binary_tile, {i(x->slot), i(t->slot), i(x->slot)});
  release(t);
  return x;
}

void TileSelector::drop(const std::string& name) {
  if (in_cb(name)) {
    emit(Intrinsic::cb_pop_front, {cb_ref(var_cb(name)), i(1)});
    set_in_cb(name, false);
  }
}

} // namespace tk::lower::tt
