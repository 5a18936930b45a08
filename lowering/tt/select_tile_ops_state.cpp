// TileSelector state: CBs for values, DST slots and sections, moving a value into DST or a CB
// (selection of the ops themselves is in tile_select_ops.cpp).
#include "lowering/tt/select_tile_ops_state.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/column_zero_reads.hpp"
#include "lowering/tt/prove_nonpositive.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {
Expr cb(const std::string& n) {
  return cb_ref(n);
}
Expr u(std::int64_t v) {
  return int_imm(v, Type::u32());
}
Expr i(std::int64_t v) {
  return int_imm(v);
}
} // namespace

TileSelector::TileSelector(Program& p, const Function& kernel, Diagnostics& diags, bool economy)
    : prog_(p), diags_(diags), economy_(economy) {
  fp32_acc_ = dst_fp32(p);
  capacity_ = static_cast<int>(dst_capacity(p, fp32_acc_));
  // Intermediates share the tensors' format: Float32 when the kernel has f32 data, else bf16 (an
  // fp32 DST packs into them with one rounding). One format for every CB of a bf16 kernel keeps
  // the unpacker and packer as compute_kernel_hw_startup configured them.
  inter_f32_ = intermediates_f32(p);
  sfpu_arith_ = fp32_acc_;
  exp_approx_ = options(p).exp_approx_mode;
  if (exp_approx_) {
    accurate_exps_ = exps_rescaling_carried(kernel);
    nonpositive_exps_ = exps_of_nonpositive(kernel);
  }
  column_only_ = column_zero_reads(kernel).calls;
  split_sums_ = fp32_acc_ && !economy_;
  std::map<std::string, std::string> counts = tile_count_vars(kernel);
  for (const Tensor& t : p.tensors) {
    tile_counts_[t.name] = tiles_of(t.dims.back(), counts);
    if (t.dims.size() == 3) // a batch: each matrix is its tile rows times its tile columns
      row_tile_counts_[t.name] = tiles_of(t.dims[1], counts);
  }
  for (const CircularBuffer& c : p.cbs)
    if (c.role == CBRole::scaler)
      scaler_cb_ = c.name;
    else if (c.role == CBRole::mask)
      mask_cb_ = c.name;
  // Each variable's facts join those of every value it is given, to a fixed point (three levels,
  // two axes: a few rounds). A variable not yet seen counts as zero, the least fact.
  struct Defs : Visitor {
    std::vector<std::pair<std::string, Expr>> defs;
    void visit_node(const Decl& d) override {
      if (d.type.is_tile())
        defs.emplace_back(d.name, d.value);
    }
    void visit_node(const Assign& a) override {
      if (a.value->type.is_tile())
        defs.emplace_back(a.name, a.value);
    }
  } defs;
  defs.visit(kernel.body);
  for (const auto& [name, value] : defs.defs)
    var_outside_[name] = {Outside::zero, Outside::zero};
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, value] : defs.defs) {
      OutsideFacts v = outside(value), &f = var_outside_[name];
      OutsideFacts j{join(f.col, v.col), join(f.row, v.row)};
      changed |= j.col != f.col || j.row != f.row;
      f = j;
    }
  }
  analyze_precision(kernel, defs.defs);
  analyze_fpu_exp_args(defs.defs);
}

// ---- what a value holds outside row / column 0 --------------------------------------------------

OutsideFacts TileSelector::outside(const Expr& e) const {
  constexpr Outside Z = Outside::zero, N = Outside::nonpos, U = Outside::unit, A = Outside::any;
  auto both = [](Outside o) { return OutsideFacts{o, o}; };
  // Per axis: `f` on the two operands' facts.
  auto per_axis = [](OutsideFacts a, OutsideFacts b, auto f) {
    return OutsideFacts{f(a.col, b.col), f(a.row, b.row)};
  };
  if (const Load* l = as<Load>(e)) { // a vector tensor's tile is 0 off its row / column
    const Tensor* t = prog_.find_tensor(l->tensor);
    auto one = [](const Dim& d) { return d.name.empty() && d.size == 1; };
    // Rows and columns are the last two dimensions (a rank-3 tensor leads with its batch).
    const std::size_t r = t ? t->dims.size() - 2 : 0;
    return {t && one(t->dims.at(r + 1)) ? Z : A, t && one(t->dims.at(r)) ? Z : A};
  }
  if (const Var* v = as<Var>(e)) {
    auto it = var_outside_.find(v->name);
    return it == var_outside_.end() ? both(A) : it->second;
  }
  const Call* c = as<Call>(e);
  if (!c)
    return both(A);
  auto arg = [&](std::size_t k) { return outside(c->args.at(k)); };
  // A function of one operand: its facts, computed once (twice per level would be 2^depth calls
  // on a chain of functions: Generate.TheDeepestKernelsRender).
  auto unary = [&](auto f) {
    const OutsideFacts a = arg(0);
    return OutsideFacts{f(a.col), f(a.row)};
  };
  switch (c->fn) {
  case Intrinsic::tile_zeros:
    return both(Z);
  case Intrinsic::tile_fill: {
    const FloatImm* f = as<FloatImm>(c->args[0]);
    return both(!f || std::isnan(f->value) ? A : f->value == 0 ? Z : f->value < 0 ? N : A);
  }
  case Intrinsic::tile_rowsum:
  case Intrinsic::tile_rowmax:
    return {Z, A};
  case Intrinsic::tile_colsum:
  case Intrinsic::tile_colmax:
    return {A, Z};
  case Intrinsic::tile_add: // 0 + x = x, and sums of values <= 0 stay <= 0
    return per_axis(arg(0), arg(1), [](Outside a, Outside b) {
      return a == Z ? b : b == Z ? a : a == N && b == N ? N : A;
    });
  case Intrinsic::tile_sub: // x - 0 = x; 0 - (-inf) = inf: otherwise only zeros are safe
    return per_axis(arg(0), arg(1), [](Outside a, Outside b) { return b == Z ? a : A; });
  case Intrinsic::tile_mul: // 0 * inf = NaN: 0 times a finite value, or [0, 1] times [0, 1]
    return per_axis(arg(0), arg(1), [](Outside a, Outside b) {
      if (a == Z || b == Z)
        return (a == Z || a == U) && (b == Z || b == U) ? Z : A;
      return a == U && b == U ? U : A;
    });
  case Intrinsic::tile_exp:        // exp(x <= 0) is in [0, 1]
  case Intrinsic::tile_exp_scaled: // exp(x * f), f > 0 (fold_scale.cpp): the same
    return unary([](Outside a) { return a == A || a == U ? A : U; });
  case Intrinsic::tile_max: // max(0, x <= 0) = 0, max([0, 1], x <= 0) is in [0, 1]
    return per_axis(arg(0), arg(1), [](Outside a, Outside b) {
      return a == A || b == A ? A : a == U || b == U ? U : a == Z || b == Z ? Z : N;
    });
  case Intrinsic::tile_min: // min(0, [0, 1]) = 0, min(x <= 0, anything finite or <= 0) <= 0
    return per_axis(arg(0), arg(1), [](Outside a, Outside b) {
      if (a == A || b == A)
        return A;
      if (a == U && b == U)
        return U;
      return a == N || b == N ? N : Z;
    });
  case Intrinsic::tile_relu: // relu(x <= 0) = 0, relu([0, 1]) = itself
    return unary([](Outside a) { return a == A || a == U ? a : Z; });
  case Intrinsic::tile_neg:
  case Intrinsic::tile_abs:
  case Intrinsic::tile_square:
    return unary([](Outside a) { return a == Z ? Z : A; });
  case Intrinsic::tile_mul_scalar: { // 0 * a finite literal
    const FloatImm* f = as<FloatImm>(c->args[1]);
    bool finite = f && std::isfinite(f->value);
    return unary([&](Outside a) { return a == Z && finite ? Z : A; });
  }
  default:
    return both(A);
  }
}

void TileSelector::user_error(SourceRange at, const std::string& msg) {
  diags_.error(at, msg);
  throw UserErrorReported{};
}

void TileSelector::emit(Intrinsic fn, std::vector<Expr> args) {
  out_->push_back(evaluate(call(fn, std::move(args)), loc_));
}

std::string TileSelector::new_cb(const std::string& base, bool f32) {
  const std::vector<std::int64_t> free = free_cb_indices(prog_, CBRole::intermediate);
  if (free.empty())
    user_error(loc_, "this statement needs a ninth intermediate circular buffer, but a Tensix "
                     "core has 8 (indices 24-31); combine tile values as soon as they are "
                     "computed, so that fewer tile variables are live at once");
  NameSet names(prog_);
  CircularBuffer c;
  c.name = names.fresh(base);
  c.index = free.front();
  c.format = f32 ? DataFormat::Float32 : DataFormat::Float16_b;
  c.page_size = tile_bytes(f32 ? DType::f32 : DType::bf16);
  c.depth = 1;
  c.role = CBRole::intermediate;
  prog_.cbs.push_back(c);
  return c.name;
}

std::string TileSelector::cb_of_tensor(const std::string& tensor) const {
  for (const CircularBuffer& c : prog_.cbs)
    if (c.tensor == tensor)
      return c.name;
  throw InternalError("internal error: select-tile-ops: tensor '" + tensor +
                      "' has no circular "
                      "buffer (plan-buffers runs first)");
}

// Tile (r, c) is page r * Ct + c; tile (b, r, c) of a batch is page (b * Rt + r) * Ct + c: one
// interleaved buffer of every matrix's tiles, batch-major.
Expr TileSelector::page_of(const std::string& tensor, const std::vector<Expr>& idx) const {
  if (idx.size() == 3)
    return add(mul(add(mul(idx[0], row_tile_counts_.at(tensor)), idx[1]), tile_counts_.at(tensor)),
               idx[2]);
  return add(mul(idx.at(0), tile_counts_.at(tensor)), idx.at(1));
}

// ---- variables ----------------------------------------------------------------------------------

std::string TileSelector::var_cb(const std::string& name) {
  auto it = var_cbs_.find(name);
  if (it != var_cbs_.end())
    return it->second;
  // A variable is what a loop carries (`ss += rowsum(...)`) or a later statement reads again:
  // with an fp32 DST it keeps fp32 between DST sections too, as the SDK's layernorm keeps its
  // running sums, instead of being rounded to bf16 once per iteration.
  return var_cbs_[name] = new_cb("cb_" + name, inter_f32_ || fp32_acc_);
}
std::string TileSelector::new_row_cb(const std::string& name, std::int64_t capacity) {
  const std::vector<std::int64_t> free = free_cb_indices(prog_, CBRole::row);
  if (free.empty())
    user_error(loc_, "row of tiles '" + name + "' needs a ninth circular buffer for rows, but a " +
                         "Tensix core has 8 for them (indices 8-15)");
  CircularBuffer c;
  c.name = NameSet(prog_).fresh("cb_" + name);
  c.index = free.front();
  c.format = DataFormat::Float32;
  c.page_size = tile_bytes(DType::f32);
  c.depth = capacity;
  c.role = CBRole::row;
  prog_.cbs.push_back(c);
  return row_cbs_[name] = c.name;
}
void TileSelector::set_in_cb(const std::string& name, bool v) {
  in_cb_[name] = v;
}
bool TileSelector::in_cb(const std::string& name) const {
  auto it = in_cb_.find(name);
  return it != in_cb_.end() && it->second;
}
void TileSelector::set_resident(const std::string& name, Val v) {
  if (v)
    resident_[name] = std::move(v);
  else
    resident_.erase(name);
}
bool TileSelector::resident(const std::string& name) const {
  return resident_.count(name) > 0;
}

// ---- DST slots and sections ---------------------------------------------------------------------

Val TileSelector::fresh_dst() {
  int slot = alloc_slot();
  auto v = std::make_shared<TileValue>();
  v->slot = slot;
  live_.push_back(v);
  return v;
}

// DST reads as zero only where nothing wrote it since tile_regs_acquire (the packer clears each
// section when it releases it). A slot number can come back within one section (a store packs
// slot 0, the next statement's value starts at slot 0 again), so a value that relies on the zero
// says so: `dst.assume_zero(slot)` is math for insert-dst-management (a section being packed is
// released and a new one acquired) and a claim verify-kernels proves; it renders as a comment.
Val TileSelector::fresh_zero() {
  auto v = std::make_shared<TileValue>();
  v->slot = alloc_slot(/*zero=*/true);
  live_.push_back(v);
  emit(Intrinsic::dst_assume_zero, {i(v->slot)});
  return v;
}

int TileSelector::alloc_slot(bool zero) {
  // A reduction in DST is packed before anything else happens in DST (TileValue::mask).
  if (reduction_live())
    spill_all();
  // A value overwrites its slot (copy_tile, unary_bcast, fill_tile, an FPU op): a slot whose value
  // is dead serves, so `(x - bcast_col(m)) * bcast_col(r) * bcast_row(g) + bcast_row(b)` takes two
  // slots, not five (layernorm's output walk: one section a tile, docs/lowering.md).
  if (!zero)
    for (int s = 0; s < next_slot_; ++s)
      if (std::none_of(live_.begin(), live_.end(), [&](const Val& v) { return v->slot == s; }))
        return s;
  if (next_slot_ >= capacity_)
    spill_all();
  return next_slot_++;
}

bool TileSelector::reduction_live() const {
  return std::any_of(live_.begin(), live_.end(), [](const Val& v) { return v->mask >= 0; });
}

void TileSelector::release(const Val& v) {
  live_.erase(std::remove(live_.begin(), live_.end(), v), live_.end());
}

// Ends the section: every value still in DST is packed to a temporary CB (all packs first, so the
// section's packs stay together between tile_regs_wait and tile_regs_release).
void TileSelector::spill_all(const Val& for_fpu) {
  if (reduction_live() && live_.size() > 1)
    throw InternalError("internal error: select-tile-ops: a reduction shares its DST section with "
                        "other values, which the packer's reduce mask would cut to row/column 0");
  std::vector<Val> spilled = live_;
  for (const Val& v : spilled) {
    const bool dest = v != for_fpu && fp32_acc_ && !economy_;
    const std::string t = temp_cb(dest);
    emit(Intrinsic::pack_tile, {i(v->slot), cb(t)});
    v->where = TileValue::Where::cb;
    v->cb = t;
    v->dest_only = dest;
    v->pop = v->temp = true;
    v->slot = -1;
    v->mask = -1; // packed under the mask: the CB tile is 0 off its row / column
  }
  for (const Val& v : spilled)
    emit(Intrinsic::cb_wait_front, {cb(v->cb), i(1)});
  live_.clear();
  next_slot_ = 0;
}

std::string TileSelector::pack_fpu_copy(const Val& v, const std::string& name) {
  const std::string t = temp_cb(false);
  emit(Intrinsic::pack_tile, {i(v->slot), cb(t)});
  fpu_copies_[name] = t;
  return t;
}

void TileSelector::drop_fpu_copies() {
  for (const auto& [name, t] : fpu_copies_) {
    emit(Intrinsic::cb_pop_front, {cb(t), i(1)});
    free_temps_.push_back(t);
  }
  fpu_copies_.clear();
}

void TileSelector::close_section() {
  if (!live_.empty())
    throw InternalError("internal error: select-tile-ops: a DST value was never packed");
  next_slot_ = 0;
}

void TileSelector::pack(const Val& v, const std::string& to) {
  to_dst(v, /*keep_reduction=*/true);
  emit(Intrinsic::pack_tile, {i(v->slot), cb(to)});
  v->mask = -1;
  release(v);
}

// ---- moving values ------------------------------------------------------------------------------

void TileSelector::pre(const Val& v) {
  if (!v->read)
    return;
  out_->push_back(evaluate(v->read, v->read_loc == SourceRange{} ? loc_ : v->read_loc));
  emit(Intrinsic::cb_wait_front, {cb(v->cb), i(1)});
  v->read = nullptr;
}

void TileSelector::post(const Val& v) {
  if (!v->pop)
    return;
  emit(Intrinsic::cb_pop_front, {cb(v->cb), i(1)});
  v->pop = false;
  if (v->temp)
    (v->dest_only                                                          ? free_dest_temps_
     : prog_.find_cb(v->cb)->format == DataFormat::Float16_b && inter_f32_ ? free_split_temps_
                                                                           : free_temps_)
        .push_back(v->cb);
}

void TileSelector::to_dst(const Val& v, bool keep_reduction) {
  if (v->where == TileValue::Where::dst && v->mask >= 0 && !keep_reduction)
    spill_all(); // through a CB, where it is exactly the language's value
  if (v->where == TileValue::Where::dst)
    return;
  int slot = alloc_slot();
  pre(v);
  emit(Intrinsic::copy_tile, {cb(v->cb), v->index ? v->index : i(0), i(slot)});
  post(v);
  v->where = TileValue::Where::dst;
  v->index = nullptr;
  v->dest_only = false;
  v->sum = false;
  v->slot = slot;
  live_.push_back(v);
}

void TileSelector::to_cb(const Val& v) {
  // A value another operand's spill just put in a dest-only temporary is copied out again: the
  // FPU must not read a CB that copy_tile reads unpacked to DST
  // (tests/difftest/f32_dest_only_fpu.tk).
  if (v->where == TileValue::Where::cb && v->dest_only)
    to_dst(v);
  if (v->where == TileValue::Where::dst)
    spill_all(/*for_fpu=*/v);
}

// Two tiles still to arrive in the same CB cannot both be at its front: the first goes through DST
// into a temporary CB (dest-only with an fp32 DST, so that an SFPU consumer reads it whole:
// tests/difftest/f32_same_tile_twice.tk; an FPU consumer takes a copy).
void TileSelector::separate(const Val& a, const Val& b) {
  if (a != b && a->read && b->read && a->cb == b->cb) {
    to_dst(a);
    spill_all();
  }
}

Expr TileSelector::bits(const Expr& s) const {
  if (const FloatImm* f = as<FloatImm>(s))
    return u(std::bit_cast<std::uint32_t>(static_cast<float>(f->value)));
  return call(Intrinsic::float_bits, {s});
}

} // namespace tk::lower::tt
