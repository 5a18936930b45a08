#include "lowering/tt/tile_select.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/tt/ir_util.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

Intrinsic sfpu_unary(Intrinsic fn) {
  switch (fn) {
  case Intrinsic::tile_exp: return Intrinsic::exp_tile;
  case Intrinsic::tile_log: return Intrinsic::log_tile;
  case Intrinsic::tile_sqrt: return Intrinsic::sqrt_tile;
  case Intrinsic::tile_rsqrt: return Intrinsic::rsqrt_tile;
  case Intrinsic::tile_recip: return Intrinsic::recip_tile;
  case Intrinsic::tile_relu: return Intrinsic::relu_tile;
  case Intrinsic::tile_gelu: return Intrinsic::gelu_tile;
  case Intrinsic::tile_sigmoid: return Intrinsic::sigmoid_tile;
  case Intrinsic::tile_tanh: return Intrinsic::tanh_tile;
  case Intrinsic::tile_abs: return Intrinsic::abs_tile;
  case Intrinsic::tile_neg: return Intrinsic::negative_tile;
  case Intrinsic::tile_square: return Intrinsic::square_tile;
  case Intrinsic::tile_add_scalar: return Intrinsic::add_unary_tile;
  case Intrinsic::tile_sub_scalar: return Intrinsic::sub_unary_tile;
  case Intrinsic::tile_rsub_scalar: return Intrinsic::rsub_unary_tile;
  case Intrinsic::tile_mul_scalar: return Intrinsic::mul_unary_tile;
  default: return fn;
  }
}

bool is_scalar_op(Intrinsic fn) {
  return fn == Intrinsic::tile_add_scalar || fn == Intrinsic::tile_sub_scalar ||
         fn == Intrinsic::tile_rsub_scalar || fn == Intrinsic::tile_mul_scalar;
}

const Call* as_call(const Expr& e, std::initializer_list<Intrinsic> fns) {
  const Call* c = as<Call>(e);
  if (!c)
    return nullptr;
  for (Intrinsic f : fns)
    if (c->fn == f)
      return c;
  return nullptr;
}

// The DSL op that accumulates into DST under `combine`, if `rhs` is one.
const Call* accumulating(const Expr& rhs, Intrinsic combine) {
  if (combine == Intrinsic::tile_add)
    return as_call(rhs, {Intrinsic::tile_matmul, Intrinsic::tile_rowsum, Intrinsic::tile_colsum});
  if (combine == Intrinsic::tile_max)
    return as_call(rhs, {Intrinsic::tile_rowmax, Intrinsic::tile_colmax});
  return nullptr;
}

Expr cb(const std::string& n) { return cb_ref(n); }
Expr u(std::int64_t v) { return int_imm(v, Type::u32()); }
Expr i(std::int64_t v) { return int_imm(v); }

}  // namespace

TileSelector::TileSelector(Program& p, const Function& kernel, Diagnostics& diags)
    : prog_(p), diags_(diags) {
  fp32_acc_ = option_bool(p, "fp32_acc", false);
  capacity_ = static_cast<int>(dst_capacity(fp32_acc_));
  std::map<std::string, std::string> counts = tile_count_vars(kernel);
  for (const Tensor& t : p.tensors)
    tile_counts_[t.name] = tiles_of(t.dims.back(), counts);
  for (const CircularBuffer& c : p.cbs)
    if (c.role == CBRole::scaler)
      scaler_cb_ = c.name;
}

void TileSelector::user_error(SourceRange at, const std::string& msg) {
  diags_.error(at, msg);
  throw UserErrorReported{};
}

void TileSelector::emit(Intrinsic fn, std::vector<Expr> args) {
  out_->push_back(evaluate(call(fn, std::move(args)), loc_));
}

std::string TileSelector::new_cb(const std::string& base) {
  CbRange r = cb_range(CBRole::intermediate);
  std::int64_t index = r.first;
  auto taken = [&](std::int64_t k) {
    return std::any_of(prog_.cbs.begin(), prog_.cbs.end(),
                       [&](const CircularBuffer& c) { return c.index == k; });
  };
  while (index <= r.last && taken(index))
    ++index;
  if (index > r.last)
    user_error(loc_, "this statement needs a ninth intermediate circular buffer, but a Tensix "
                     "core has 8 (indices 24-31); combine tile values as soon as they are "
                     "computed, so that fewer tile variables are live at once");
  NameSet names(prog_);
  CircularBuffer c;
  c.name = names.fresh(base);
  c.index = index;
  c.format = fp32_acc_ ? DataFormat::Float32 : DataFormat::Float16_b;
  c.page_size = tile_bytes(fp32_acc_ ? DType::f32 : DType::bf16);
  c.depth = 1;
  c.role = CBRole::intermediate;
  prog_.cbs.push_back(c);
  return c.name;
}

std::string TileSelector::cb_of_tensor(const std::string& tensor) const {
  for (const CircularBuffer& c : prog_.cbs)
    if (c.tensor == tensor)
      return c.name;
  throw InternalError("internal error: select-tile-ops: tensor '" + tensor + "' has no circular "
                      "buffer (plan-buffers runs first)");
}

Expr TileSelector::page_of(const std::string& tensor, const std::vector<Expr>& idx) const {
  return add(mul(idx.at(0), tile_counts_.at(tensor)), idx.at(1));
}

// ---- variables ----------------------------------------------------------------------------------

std::string TileSelector::var_cb(const std::string& name) {
  auto it = var_cbs_.find(name);
  if (it != var_cbs_.end())
    return it->second;
  return var_cbs_[name] = new_cb("cb_" + name);
}
void TileSelector::set_in_cb(const std::string& name, bool v) { in_cb_[name] = v; }
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
bool TileSelector::resident(const std::string& name) const { return resident_.count(name) > 0; }

// ---- DST slots and sections ---------------------------------------------------------------------

Val TileSelector::fresh_dst() {
  int slot = alloc_slot();
  auto v = std::make_shared<TileValue>();
  v->slot = slot;
  live_.push_back(v);
  return v;
}

int TileSelector::alloc_slot() {
  if (next_slot_ >= capacity_)
    spill_all();
  return next_slot_++;
}

void TileSelector::release(const Val& v) {
  live_.erase(std::remove(live_.begin(), live_.end(), v), live_.end());
}

// Ends the section: every value still in DST is packed to a temporary CB (all packs first, so the
// section's packs stay together between tile_regs_wait and tile_regs_release).
void TileSelector::spill_all() {
  std::vector<Val> spilled = live_;
  for (const Val& v : spilled) {
    std::string t;
    if (!free_temps_.empty()) {
      t = free_temps_.back();
      free_temps_.pop_back();
    } else {
      t = new_cb("cb_tmp" + std::to_string(temps_++));
    }
    emit(Intrinsic::pack_tile, {i(v->slot), cb(t)});
    v->where = TileValue::Where::cb;
    v->cb = t;
    v->pop = v->temp = true;
    v->slot = -1;
  }
  for (const Val& v : spilled)
    emit(Intrinsic::cb_wait_front, {cb(v->cb), i(1)});
  live_.clear();
  next_slot_ = 0;
}

void TileSelector::close_section() {
  if (!live_.empty())
    throw InternalError("internal error: select-tile-ops: a DST value was never packed");
  next_slot_ = 0;
}

void TileSelector::pack(const Val& v, const std::string& to) {
  to_dst(v);
  emit(Intrinsic::pack_tile, {i(v->slot), cb(to)});
  release(v);
}

// ---- moving values ------------------------------------------------------------------------------

void TileSelector::pre(const Val& v) {
  if (v->read_tensor.empty())
    return;
  out_->push_back(evaluate(
      call(Intrinsic::df_read_tile, {cb(v->cb), tensor_ref(v->read_tensor), v->read_page}),
      v->read_loc == SourceRange{} ? loc_ : v->read_loc));
  emit(Intrinsic::cb_wait_front, {cb(v->cb), i(1)});
  v->read_tensor.clear();
}

void TileSelector::post(const Val& v) {
  if (!v->pop)
    return;
  emit(Intrinsic::cb_pop_front, {cb(v->cb), i(1)});
  v->pop = false;
  if (v->temp)
    free_temps_.push_back(v->cb);
}

void TileSelector::to_dst(const Val& v) {
  if (v->where == TileValue::Where::dst)
    return;
  int slot = alloc_slot();
  pre(v);
  emit(Intrinsic::copy_tile, {cb(v->cb), i(0), i(slot)});
  post(v);
  v->where = TileValue::Where::dst;
  v->slot = slot;
  live_.push_back(v);
}

void TileSelector::to_cb(const Val& v) {
  if (v->where == TileValue::Where::dst)
    spill_all();
}

// Two tiles still to arrive in the same CB cannot both be at its front: the first goes through DST
// into a temporary CB.
void TileSelector::separate(const Val& a, const Val& b) {
  if (a != b && !a->read_tensor.empty() && !b->read_tensor.empty() && a->cb == b->cb) {
    to_dst(a);
    to_cb(a);
  }
}

Expr TileSelector::bits(const Expr& s) const {
  if (const FloatImm* f = as<FloatImm>(s))
    return u(std::bit_cast<std::uint32_t>(static_cast<float>(f->value)));
  return call(Intrinsic::float_bits, {s});
}

// ---- selection ----------------------------------------------------------------------------------

Val TileSelector::select(const Expr& e) {
  if (const Load* l = as<Load>(e)) {
    const Tensor* t = prog_.find_tensor(l->tensor);
    auto v = std::make_shared<TileValue>();
    v->where = TileValue::Where::cb;
    v->cb = cb_of_tensor(l->tensor);
    v->pop = true;
    v->read_tensor = l->tensor;
    v->read_page = page_of(t->name, l->indices);
    v->read_loc = l->loc.range;
    return v;
  }
  if (const Var* x = as<Var>(e)) {
    if (auto it = resident_.find(x->name); it != resident_.end()) {
      Val v = it->second;
      resident_.erase(it);
      return v;
    }
    if (!in_cb(x->name))
      throw InternalError("internal error: select-tile-ops: tile variable '" + x->name +
                          "' is neither in DST nor in a circular buffer");
    auto v = std::make_shared<TileValue>();
    v->where = TileValue::Where::cb;
    v->cb = var_cb(x->name);
    return v;
  }
  const Call* c = as<Call>(e);
  if (!c)
    throw InternalError("internal error: select-tile-ops: not a tile expression: " + print(e));
  SourceRange at = c->loc.range == SourceRange{} ? loc_ : c->loc.range;
  switch (c->fn) {
  case Intrinsic::tile_zeros: return fresh_dst();  // DST is zero after tile_regs_acquire
  case Intrinsic::tile_fill: {
    Val v = fresh_dst();
    if (as<FloatImm>(c->args[0]))
      emit(Intrinsic::fill_tile, {i(v->slot), c->args[0]});
    else  // a run-time value: the zero tile plus the scalar
      emit(Intrinsic::add_unary_tile, {i(v->slot), bits(c->args[0])});
    return v;
  }
  case Intrinsic::tile_add:
  case Intrinsic::tile_sub:
  case Intrinsic::tile_mul: return binary(*c);
  case Intrinsic::tile_max:
  case Intrinsic::tile_min: {
    if (c->fn == Intrinsic::tile_max) {
      if (accumulating(c->args[1], Intrinsic::tile_max))
        return accumulate(c->args[0], c->args[1], Intrinsic::tile_max);
      if (accumulating(c->args[0], Intrinsic::tile_max))
        return accumulate(c->args[1], c->args[0], Intrinsic::tile_max);
    }
    Val a = select(c->args[0]);
    Val b = select(c->args[1]);
    return sfpu_binary(c->fn == Intrinsic::tile_max ? Intrinsic::binary_max_tile
                                                    : Intrinsic::binary_min_tile,
                       a, b);
  }
  case Intrinsic::tile_matmul: {
    Val a = select(c->args[0]), b = select(c->args[1]);
    separate(a, b);
    to_cb(a);
    to_cb(b);
    Val d = fresh_dst();
    pre(a);
    pre(b);
    emit(Intrinsic::matmul_tiles, {cb(a->cb), cb(b->cb), i(0), i(0), i(d->slot)});
    post(a);
    post(b);
    return d;
  }
  case Intrinsic::tile_matmul_acc:
    return accumulate(c->args[0], call(Intrinsic::tile_matmul, {c->args[1], c->args[2]}),
                      Intrinsic::tile_add);
  case Intrinsic::tile_rowsum:
  case Intrinsic::tile_rowmax:
  case Intrinsic::tile_colsum:
  case Intrinsic::tile_colmax: return reduce(*c);
  case Intrinsic::tile_bcast_row:
  case Intrinsic::tile_bcast_col:
    user_error(at, std::string(c->fn == Intrinsic::tile_bcast_row ? "bcast_row" : "bcast_col") +
                       "() can only be an operand of '+', '-' or '*' on Tenstorrent, where the "
                       "broadcast is part of the FPU operation");
  default: break;
  }
  Intrinsic op = sfpu_unary(c->fn);
  if (op == c->fn)
    throw InternalError("internal error: select-tile-ops: no TT primitive for " + print(e));
  Val v = select(c->args[0]);
  to_dst(v);
  if (is_scalar_op(c->fn))
    emit(op, {i(v->slot), bits(c->args[1])});
  else
    emit(op, {i(v->slot)});
  return v;
}

Val TileSelector::binary(const Call& c) {
  Intrinsic fn = c.fn;
  const Expr& a = c.args[0];
  const Expr& b = c.args[1];
  SourceRange at = c.loc.range == SourceRange{} ? loc_ : c.loc.range;
  if (fn == Intrinsic::tile_add) {
    if (accumulating(b, fn))
      return accumulate(a, b, fn);
    if (accumulating(a, fn))
      return accumulate(b, a, fn);
  }
  const Call* ba = as_call(a, {Intrinsic::tile_bcast_row, Intrinsic::tile_bcast_col});
  const Call* bb = as_call(b, {Intrinsic::tile_bcast_row, Intrinsic::tile_bcast_col});
  if (ba && bb)
    user_error(at, "both operands are broadcasts; on Tenstorrent only the second operand of an "
                   "FPU operation is broadcast, so broadcast one of them against a full tile");
  if (bb)
    return bcast(fn, a, *bb, at);
  if (ba) {
    if (fn != Intrinsic::tile_sub)
      return bcast(fn, b, *ba, at);  // commutative: the broadcast becomes the second operand
    Val v = bcast(fn, b, *ba, at);   // bcast(v) - b = -(b - bcast(v))
    emit(Intrinsic::negative_tile, {i(v->slot)});
    return v;
  }
  Val va = select(a), vb = select(b);
  separate(va, vb);
  if (va->where == TileValue::Where::cb && vb->where == TileValue::Where::cb) {
    Val d = fresh_dst();
    pre(va);
    if (vb != va)
      pre(vb);
    Intrinsic op = fn == Intrinsic::tile_add   ? Intrinsic::add_tiles
                   : fn == Intrinsic::tile_sub ? Intrinsic::sub_tiles
                                               : Intrinsic::mul_tiles;
    emit(op, {cb(va->cb), cb(vb->cb), i(0), i(0), i(d->slot)});
    post(va);
    if (vb != va)
      post(vb);
    return d;
  }
  return sfpu_binary(fn == Intrinsic::tile_add   ? Intrinsic::add_binary_tile
                     : fn == Intrinsic::tile_sub ? Intrinsic::sub_binary_tile
                                                 : Intrinsic::mul_binary_tile,
                     va, vb);
}

Val TileSelector::bcast(Intrinsic fn, const Expr& a, const Call& bc, SourceRange) {
  Val va = select(a);
  Val vv = select(bc.args[0]);
  separate(va, vv);
  to_cb(va);
  to_cb(vv);
  Val d = fresh_dst();
  pre(va);
  pre(vv);
  Intrinsic op = fn == Intrinsic::tile_add   ? Intrinsic::add_tiles_bcast
                 : fn == Intrinsic::tile_sub ? Intrinsic::sub_tiles_bcast
                                             : Intrinsic::mul_tiles_bcast;
  EnumConst dim = bc.fn == Intrinsic::tile_bcast_row ? EnumConst::bcast_row : EnumConst::bcast_col;
  emit(op, {enum_imm(dim), cb(va->cb), cb(vv->cb), i(0), i(0), i(d->slot)});
  post(va);
  post(vv);
  return d;
}

Val TileSelector::sfpu_binary(Intrinsic op, Val a, Val b) {
  if (a == b) {  // x op x: one tile
    to_dst(a);
    emit(op, {i(a->slot), i(a->slot), i(a->slot)});
    return a;
  }
  // Bringing b in can end the section (DST full), which packs a away; at most twice.
  for (int round = 0; round < 2; ++round) {
    to_dst(a);
    to_dst(b);
    if (a->where == TileValue::Where::dst)
      break;
  }
  emit(op, {i(a->slot), i(b->slot), i(a->slot)});
  release(b);
  return a;
}

const std::string& TileSelector::scaler() const {
  if (scaler_cb_.empty())
    throw InternalError("internal error: select-tile-ops: a reduction without a scaler circular "
                        "buffer (plan-buffers declares it)");
  return scaler_cb_;
}

Val TileSelector::reduce(const Call& c) {
  Val a = select(c.args[0]);
  to_cb(a);
  Val d = fresh_dst();
  bool is_max = c.fn == Intrinsic::tile_rowmax || c.fn == Intrinsic::tile_colmax;
  if (is_max)  // the max pool compares with DST
    emit(Intrinsic::fill_tile, {i(d->slot), float_imm(-INFINITY)});
  pre(a);
  used_reduction_ = true;
  bool row = c.fn == Intrinsic::tile_rowsum || c.fn == Intrinsic::tile_rowmax;
  emit(Intrinsic::reduce_tile,
       {enum_imm(is_max ? EnumConst::pool_max : EnumConst::pool_sum),
        enum_imm(row ? EnumConst::reduce_row : EnumConst::reduce_col), cb(a->cb), cb(scaler()),
        i(0), i(0), i(d->slot)});
  post(a);
  return d;
}

bool TileSelector::accumulates_from_cbs(const Expr& rhs, Intrinsic combine) const {
  const Call* r = accumulating(rhs, combine);
  if (!r)
    return false;
  for (const Expr& operand : r->args) {
    if (as<Load>(operand))
      continue;
    const Var* v = as<Var>(operand);
    if (!v || !in_cb(v->name))
      return false;
  }
  return true;
}

Val TileSelector::accumulate(const Expr& acc, const Expr& rhs, Intrinsic combine) {
  const Call* r = accumulating(rhs, combine);
  if (!r)
    return nullptr;
  // The operands first: making them CB tiles may end the section, which acc is not yet part of.
  std::vector<Val> ops;
  for (const Expr& operand : r->args)
    ops.push_back(select(operand));
  if (ops.size() == 2)
    separate(ops[0], ops[1]);
  for (const Val& v : ops)
    to_cb(v);
  Val x = select(acc);
  to_dst(x);
  for (const Val& v : ops)
    pre(v);
  if (r->fn == Intrinsic::tile_matmul) {
    emit(Intrinsic::matmul_tiles, {cb(ops[0]->cb), cb(ops[1]->cb), i(0), i(0), i(x->slot)});
  } else {
    used_reduction_ = true;
    bool is_max = r->fn == Intrinsic::tile_rowmax || r->fn == Intrinsic::tile_colmax;
    bool row = r->fn == Intrinsic::tile_rowsum || r->fn == Intrinsic::tile_rowmax;
    emit(Intrinsic::reduce_tile,
         {enum_imm(is_max ? EnumConst::pool_max : EnumConst::pool_sum),
          enum_imm(row ? EnumConst::reduce_row : EnumConst::reduce_col), cb(ops[0]->cb),
          cb(scaler()), i(0), i(0), i(x->slot)});
  }
  for (const Val& v : ops)
    post(v);
  return x;
}

}  // namespace tk::lower::tt
