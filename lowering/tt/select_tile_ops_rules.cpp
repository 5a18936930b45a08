// Selecting one tile expression (tile_select.hpp): the DSL ops as FPU, SFPU, reduce and broadcast
// primitives, and the accumulate-into-DST forms.
#include "lowering/tt/select_tile_ops_state.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/column_zero_reads.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

// The TT call of an op that is one SFPU call in place on a DST slot (op table kinds unary and
// scalar); nullopt for the ops with rules of their own.
std::optional<Intrinsic> sfpu_call(Intrinsic fn) {
  std::optional<ops::Op> op = op_of(fn);
  return op ? tt_call(*op) : std::nullopt;
}

bool is_scalar_op(Intrinsic fn) {
  std::optional<ops::Op> op = op_of(fn);
  return op && ops::info(*op).kind == ops::Kind::scalar;
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

// The operands of a matmul as the matrix engine takes them: `a @ transpose(b)` reads b and
// transposes it in the unpacker (mm_init_short's transpose of in1), with no pass of its own.
struct MatmulOperands {
  Expr a, b;
  bool bt = false;
};
MatmulOperands matmul_operands(const Expr& a, const Expr& b) {
  if (const Call* t = as_call(b, {Intrinsic::tile_transpose}))
    return {a, t->args[0], true};
  return {a, b, false};
}

Expr cb(const std::string& n) {
  return cb_ref(n);
}
Expr i(std::int64_t v) {
  return int_imm(v);
}
// A CB value's tile index: the front (0), or its place in a row kept in L1 (keep-rows).
Expr index_of(const Val& v) {
  return v->index ? v->index : i(0);
}

} // namespace

// ---- selection ----------------------------------------------------------------------------------

Val TileSelector::select(const Expr& e) {
  if (const Load* l = as<Load>(e)) {
    const Tensor* t = prog_.find_tensor(l->tensor);
    auto v = std::make_shared<TileValue>();
    v->where = TileValue::Where::cb;
    v->cb = cb_of_tensor(l->tensor);
    v->pop = true;
    v->read = call(Intrinsic::df_read_tile,
                   {cb(v->cb), tensor_ref(l->tensor), page_of(t->name, l->indices)});
    v->read_loc = l->loc.range;
    return v;
  }
  if (const Call* c = as<Call>(e); c && c->fn == Intrinsic::cb_tile) { // waited for once, kept
    auto v = std::make_shared<TileValue>();
    v->where = TileValue::Where::cb;
    v->cb = as<Ref>(c->args[0])->name;
    v->index = c->args[1];
    // A blocked matmul's Float32 partial sums are unpacked to DST only (UnpackToDestFp32): an
    // FPU reader takes a copy, so the reload between K blocks stays exact.
    const CircularBuffer* buf = prog_.find_cb(v->cb);
    v->dest_only = buf && buf->role == CBRole::partials && buf->format == DataFormat::Float32;
    return v;
  }
  if (const Call* c = as<Call>(e); c && c->fn == Intrinsic::row_get) { // its front tile
    auto v = std::make_shared<TileValue>();
    v->where = TileValue::Where::cb;
    v->cb = row_cb(as<Var>(c->args[0])->name);
    v->dest_only = true;
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
    v->dest_only = dest_only_var(x->name);
    v->var = x->name;
    return v;
  }
  const Call* c = as<Call>(e);
  if (!c)
    throw InternalError("internal error: select-tile-ops: not a tile expression: " + print(e));
  SourceRange at = c->loc.range == SourceRange{} ? loc_ : c->loc.range;
  switch (c->fn) {
  case Intrinsic::tile_zeros:
    return fresh_zero();
  case Intrinsic::tile_tril:
  case Intrinsic::tile_triu:
    return position_mask(*c, at);
  case Intrinsic::tile_fill: {
    if (as<FloatImm>(c->args[0])) {
      Val v = fresh_dst();
      emit(Intrinsic::fill_tile, {i(v->slot), c->args[0]});
      return v;
    }
    Val v = fresh_zero(); // a run-time value: the zero tile plus the scalar
    emit(Intrinsic::add_unary_tile, {i(v->slot), bits(c->args[0])});
    return v;
  }
  case Intrinsic::tile_add:
  case Intrinsic::tile_sub:
  case Intrinsic::tile_mul:
    return binary(*c);
  case Intrinsic::tile_max:
  case Intrinsic::tile_min: {
    if (c->fn == Intrinsic::tile_max) {
      if (Val v = accumulate(c->args[0], c->args[1], Intrinsic::tile_max))
        return v;
      if (Val v = accumulate(c->args[1], c->args[0], Intrinsic::tile_max))
        return v;
    }
    Val a = select(c->args[0]);
    Val b = select(c->args[1]);
    return sfpu_binary(c->fn == Intrinsic::tile_max ? Intrinsic::binary_max_tile
                                                    : Intrinsic::binary_min_tile,
                       a, b);
  }
  case Intrinsic::tile_matmul: {
    const MatmulOperands m = matmul_operands(c->args[0], c->args[1]);
    Val a = select(m.a), b = select(m.b);
    separate(a, b);
    fpu_operand(a);
    fpu_operand(b);
    to_cb(a);
    to_cb(b);
    Val d = fresh_zero(); // matmul_tiles accumulates into DST
    pre(a);
    pre(b);
    emit(m.bt ? Intrinsic::matmul_tiles_bt : Intrinsic::matmul_tiles,
         {cb(a->cb), cb(b->cb), index_of(a), index_of(b), i(d->slot)});
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
  case Intrinsic::tile_colmax:
    return reduce(*c);
  case Intrinsic::tile_lt:
  case Intrinsic::tile_le:
  case Intrinsic::tile_gt:
  case Intrinsic::tile_ge:
  case Intrinsic::tile_eq:
  case Intrinsic::tile_ne: { // the SFPU's comparison of two DST tiles (the row's tt_call)
    Val a = select(c->args[0]);
    Val b = select(c->args[1]);
    return sfpu_binary(*sfpu_call(c->fn), a, b);
  }
  case Intrinsic::tile_where: { // where_tile on three DST tiles, in DST's float format
    Val m = select(c->args[0]);
    Val a = select(c->args[1]);
    Val b = select(c->args[2]);
    return sfpu_where(m, a, b);
  }
  case Intrinsic::tile_transpose: { // unpacked from a CB through SrcA, transposed, into DST
    Val a = select(c->args[0]);
    fpu_operand(a);
    to_cb(a);
    Val d = fresh_dst();
    pre(a);
    emit(Intrinsic::transpose_wh_tile, {cb(a->cb), index_of(a), i(d->slot)});
    post(a);
    return d;
  }
  case Intrinsic::tile_bcast_row:
  case Intrinsic::tile_bcast_col:
    if (sfpu_arith_) // unpacked straight into DST
      return bcast_in_dst(*c);
    // On its own (not an operand of + - *): 0 + bcast(v), the FPU's broadcast against a zero tile.
    return bcast(Intrinsic::tile_add, call(Intrinsic::tile_zeros, {}), *c, at);
  case Intrinsic::tile_exp_scaled: { // exp(x * f), f > 0 (fold_scale.cpp)
    const bool approx = exp_approx_ && !accurate_exps_.count(c);
    if (approx &&
        fpu_exps_.count(c)) // its argument subtracted on the FPU (select_tile_ops_fpu_exp)
      if (Val v = fpu_exp(*c))
        return v;
    Val v = select(c->args[0]);
    to_dst(v);
    if (approx) { // exp_tile<true>, the scale in its init; unclamped where proved
      emit(approx_exp(*c), {i(v->slot), bits(c->args[1])});
    } else { // the input multiplied in the fp32 DST first; on C where read only in column 0
      emit(Intrinsic::mul_unary_tile, {i(v->slot), bits(c->args[1])});
      emit(column_only_.count(c) ? Intrinsic::exp_tile_col : Intrinsic::exp_tile, {i(v->slot)});
    }
    return v;
  }
  default:
    break;
  }
  std::optional<Intrinsic> op = sfpu_call(c->fn);
  if (!op)
    throw InternalError("internal error: select-tile-ops: no TT primitive for " + print(e));
  if (c->fn == Intrinsic::tile_exp && exp_approx_ && !accurate_exps_.count(c))
    op = approx_exp(*c);  // exp_tile<true>, unclamped where proved (select_tile_ops_exp.cpp)
  if (fpu_exps_.count(c)) // its argument subtracted on the FPU (select_tile_ops_fpu_exp.cpp)
    if (Val v = fpu_exp(*c))
      return v;
  if (column_only_.count(c)) // read only in column 0: faces 0 and 2 (column_zero_reads.hpp)
    op = column_call(*op).value_or(*op);
  Val v = select(c->args[0]);
  to_dst(v);
  if (is_scalar_op(c->fn))
    emit(*op, {i(v->slot), bits(c->args[1])});
  else
    emit(*op, {i(v->slot)});
  return v;
}

int TileSelector::dst_need(const Expr& e) const {
  auto leaf = [&](const Expr& x) {
    const Call* kept = as<Call>(x);
    const Var* v = as<Var>(x);
    return as<Load>(x) || (kept && kept->fn == Intrinsic::cb_tile) ||
           (v && in_cb(v->name) && !resident(v->name));
  };
  if (leaf(e))
    return 1; // copied into a slot
  const Call* c = as<Call>(e);
  if (!c || !sfpu_arith_) // with a 16-bit DST, + - * and broadcasts run on the FPU from CBs
    return -1;
  auto bcast = [&](const Expr& x) {
    return as_call(x, {Intrinsic::tile_bcast_row, Intrinsic::tile_bcast_col});
  };
  if (const Call* b = bcast(e)) // unary_bcast from its CB
    return leaf(b->args[0]) ? 1 : -1;
  if (c->fn == Intrinsic::tile_add || c->fn == Intrinsic::tile_sub ||
      c->fn == Intrinsic::tile_mul) {
    const Expr& a = c->args[0];
    const Expr& b = c->args[1];
    if (src_exact_ok() && src_exact(a) && src_exact(b))
      return -1; // the FPU's, from CBs (binary)
    if (as<Load>(a) && as<Load>(b) && as<Load>(a)->tensor == as<Load>(b)->tensor)
      return -1; // two tiles to arrive in one CB: the first through a temporary (separate)
    const int na = dst_need(a), nb = dst_need(b);
    if (na < 0 || nb < 0)
      return -1;
    return std::max(na, 1 + nb); // a's value stays while b is computed
  }
  if (c->fn == Intrinsic::tile_exp_scaled) // in place on its operand's slot
    return dst_need(c->args[0]);
  // One SFPU call in place on its operand's slot: the ops select() leaves to its last rule (one
  // tile operand, a scalar maybe), not those with rules of their own.
  if (as_call(e, {Intrinsic::tile_zeros, Intrinsic::tile_fill, Intrinsic::tile_where,
                  Intrinsic::tile_tril, Intrinsic::tile_triu, Intrinsic::tile_transpose,
                  Intrinsic::tile_max, Intrinsic::tile_min, Intrinsic::tile_matmul,
                  Intrinsic::tile_matmul_acc, Intrinsic::tile_rowsum, Intrinsic::tile_rowmax,
                  Intrinsic::tile_colsum, Intrinsic::tile_colmax}) ||
      !sfpu_call(c->fn) || c->args.size() != (is_scalar_op(c->fn) ? 2U : 1U))
    return -1;
  return dst_need(c->args[0]);
}

Val TileSelector::binary(const Call& c) {
  Intrinsic fn = c.fn;
  const Expr& a = c.args[0];
  const Expr& b = c.args[1];
  SourceRange at = c.loc.range == SourceRange{} ? loc_ : c.loc.range;
  if (fn == Intrinsic::tile_add) {
    if (Val v = accumulate(a, b, fn))
      return v;
    if (Val v = accumulate(b, a, fn))
      return v;
  }
  const Call* ba = as_call(a, {Intrinsic::tile_bcast_row, Intrinsic::tile_bcast_col});
  const Call* bb = as_call(b, {Intrinsic::tile_bcast_row, Intrinsic::tile_bcast_col});
  const Intrinsic sfpu_op = fn == Intrinsic::tile_add   ? Intrinsic::add_binary_tile
                            : fn == Intrinsic::tile_sub ? Intrinsic::sub_binary_tile
                                                        : Intrinsic::mul_binary_tile;
  // fp32 operands, exactly: in DST by copy_tile or unary_bcast, then the SFPU; two operands the
  // FPU reads exactly stay on the FPU (below).
  if (sfpu_arith_ && !(src_exact_ok() && src_exact(a) && src_exact(b))) {
    Val va = ba ? bcast_in_dst(*ba) : select(a);
    Val vb = bb ? bcast_in_dst(*bb) : select(b);
    separate(va, vb);
    return sfpu_binary(sfpu_op, va, vb);
  }
  // Only the second operand of an FPU operation is broadcast: with two broadcasts, the first is
  // made a full tile on its own (select: 0 + bcast(v)).
  if (bb)
    return bcast(fn, a, *bb, at);
  if (ba) {
    if (fn != Intrinsic::tile_sub)
      return bcast(fn, b, *ba, at); // commutative: the broadcast becomes the second operand
    Val v = bcast(fn, b, *ba, at);  // bcast(v) - b = -(b - bcast(v))
    emit(Intrinsic::negative_tile, {i(v->slot)});
    return v;
  }
  Val va = select(a), vb = select(b);
  separate(va, vb);
  // A carried sum is combined in DST by the SFPU, exactly in fp32 (select_tile_ops_precision.cpp).
  if (va->where == TileValue::Where::cb && vb->where == TileValue::Where::cb && !va->dest_only &&
      !vb->dest_only) {
    Val d = fresh_dst();
    pre(va);
    if (vb != va)
      pre(vb);
    Intrinsic op = fn == Intrinsic::tile_add   ? Intrinsic::add_tiles
                   : fn == Intrinsic::tile_sub ? Intrinsic::sub_tiles
                                               : Intrinsic::mul_tiles;
    emit(op, {cb(va->cb), cb(vb->cb), index_of(va), index_of(vb), i(d->slot)});
    post(va);
    if (vb != va)
      post(vb);
    return d;
  }
  return sfpu_binary(sfpu_op, va, vb);
}

// bcast_row(v) / bcast_col(v) made in DST by unary_bcast from v's CB: a value in DST goes through
// a dest-only temporary first, so that a Float32 v arrives exactly (UnpackToDestFp32).
Val TileSelector::bcast_in_dst(const Call& bc) {
  const EnumConst dim =
      bc.fn == Intrinsic::tile_bcast_row ? EnumConst::bcast_row : EnumConst::bcast_col;
  Val v = select(bc.args[0]);
  if (v->where == TileValue::Where::dst)
    spill_all();
  Val d = fresh_dst();
  pre(v);
  emit(Intrinsic::unary_bcast, {enum_imm(dim), cb(v->cb), index_of(v), i(d->slot)});
  post(v);
  return d;
}

Val TileSelector::bcast(Intrinsic fn, const Expr& a, const Call& bc, SourceRange) {
  EnumConst dim = bc.fn == Intrinsic::tile_bcast_row ? EnumConst::bcast_row : EnumConst::bcast_col;
  Val va = select(a);
  Val vv = select(bc.args[0]);
  separate(va, vv);
  return bcast_vals(fn, va, vv, dim);
}

Val TileSelector::bcast_vals(Intrinsic fn, Val va, Val vv, EnumConst dim) {
  fpu_operand(va);
  fpu_operand(vv);
  to_cb(va);
  to_cb(vv);
  Val d = fresh_dst();
  pre(va);
  pre(vv);
  Intrinsic op = fn == Intrinsic::tile_add   ? Intrinsic::add_tiles_bcast
                 : fn == Intrinsic::tile_sub ? Intrinsic::sub_tiles_bcast
                                             : Intrinsic::mul_tiles_bcast;
  emit(op, {enum_imm(dim), cb(va->cb), cb(vv->cb), index_of(va), index_of(vv), i(d->slot)});
  post(va);
  post(vv);
  return d;
}

Val TileSelector::sfpu_binary(Intrinsic op, Val a, Val b) {
  if (a == b) { // x op x: one tile
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

// The three operands in DST (bringing one in may end the section and pack the others away: at
// most three rounds), then where_tile into the mask's slot.
Val TileSelector::sfpu_where(Val m, Val a, Val b) {
  for (int round = 0; round < 3; ++round) {
    to_dst(m);
    if (a != m)
      to_dst(a);
    if (b != m && b != a)
      to_dst(b);
    if (m->where == TileValue::Where::dst && a->where == TileValue::Where::dst &&
        b->where == TileValue::Where::dst)
      break;
  }
  const EnumConst format = fp32_acc_ ? EnumConst::df_float32 : EnumConst::df_float16_b;
  emit(Intrinsic::where_tile, {enum_imm(format), i(m->slot), i(a->slot), i(b->slot), i(m->slot)});
  if (a != m)
    release(a);
  if (b != m && b != a)
    release(b);
  return m;
}

// The element (r, c) of tril(i, j) is 1 where 32 i + r >= 32 j + c, i.e. r - c >= 32 (j - i):
// the reader fills the tile from that one difference, in the mask CB's format (plan-buffers
// gives it the intermediates' format), and pushes it; compute consumes it like a loaded tile.
Val TileSelector::position_mask(const Call& c, SourceRange at) {
  if (mask_cb_.empty())
    throw InternalError("internal error: select-tile-ops: " + std::string(to_string(c.fn)) +
                        " without a mask circular buffer (plan-buffers declares it)");
  const CircularBuffer* m = prog_.find_cb(mask_cb_);
  const EnumConst format =
      m->format == DataFormat::Float32 ? EnumConst::df_float32 : EnumConst::df_float16_b;
  auto v = std::make_shared<TileValue>();
  v->where = TileValue::Where::cb;
  v->cb = mask_cb_;
  v->pop = true;
  v->read = call(c.fn == Intrinsic::tile_tril ? Intrinsic::df_tril_tile : Intrinsic::df_triu_tile,
                 {cb(mask_cb_), enum_imm(format), i(32) * (c.args[1] - c.args[0])});
  v->read_loc = at;
  return v;
}

const std::string& TileSelector::scaler() const {
  if (scaler_cb_.empty())
    throw InternalError("internal error: select-tile-ops: a reduction without a scaler circular "
                        "buffer (plan-buffers declares it)");
  return scaler_cb_;
}

void TileSelector::reduce_tile(bool is_max, bool row, const Val& v, int slot) {
  emit(Intrinsic::reduce_tile, {enum_imm(is_max ? EnumConst::pool_max : EnumConst::pool_sum),
                                enum_imm(row ? EnumConst::reduce_row : EnumConst::reduce_col),
                                cb(v->cb), cb(scaler()), index_of(v), i(0), i(slot)});
}

// A reduction gets a section of its own and leaves it packed under its mask (TileValue::mask):
// the other values of the section are packed first, with the init that computed them.
Val TileSelector::reduce(const Call& c) {
  bool is_max = c.fn == Intrinsic::tile_rowmax || c.fn == Intrinsic::tile_colmax;
  Val a = select(c.args[0]);
  std::vector<Val> parts = {a};
  if (is_max) {
    fpu_operand(a);
    to_cb(a);
  } else {
    parts = sum_parts(a, c.args[0]);
  }
  if (!live_.empty())
    spill_all();
  Val d = is_max ? fresh_dst() : fresh_zero(); // the pool accumulates into DST
  if (is_max)                                  // the max pool compares with DST
    emit(Intrinsic::fill_tile, {i(d->slot), float_imm(-INFINITY)});
  used_reduction_ = true;
  bool row = c.fn == Intrinsic::tile_rowsum || c.fn == Intrinsic::tile_rowmax;
  for (const Val& v : parts) {
    pre(v);
    reduce_tile(is_max, row, v, d->slot);
    post(v);
  }
  d->mask = row ? 0 : 1;
  d->sum = !is_max;
  return d;
}

// Reducing into acc's slot leaves acc untouched off the result's row / column in DST, and the
// masked pack writes 0 there: right when acc is 0 there (a sum) or at most 0 (max(x, 0) = 0 for
// x <= 0, as for m = fill(-inf)). Otherwise the reduction is computed alone and combined after.
bool TileSelector::reduction_accumulates(const Expr& acc, const Call& r) const {
  if (r.fn == Intrinsic::tile_matmul)
    return true;
  bool row = r.fn == Intrinsic::tile_rowsum || r.fn == Intrinsic::tile_rowmax;
  bool is_max = r.fn == Intrinsic::tile_rowmax || r.fn == Intrinsic::tile_colmax;
  OutsideFacts f = outside(acc);
  const Outside o = row ? f.col : f.row;
  return o == Outside::zero || (is_max && o == Outside::nonpos);
}

bool TileSelector::accumulates_from_cbs(const Expr& acc, const Expr& rhs, Intrinsic combine) const {
  const Call* r = accumulating(rhs, combine);
  if (!r || !reduction_accumulates(acc, *r))
    return false;
  std::vector<Expr> operands = r->args;
  if (r->fn == Intrinsic::tile_matmul) {
    const MatmulOperands m = matmul_operands(r->args[0], r->args[1]);
    operands = {m.a, m.b};
  }
  for (const Expr& operand : operands) {
    const Call* kept = as<Call>(operand);
    if (as<Load>(operand) || (kept && kept->fn == Intrinsic::cb_tile))
      continue;
    const Var* v = as<Var>(operand);
    if (!v || !in_cb(v->name))
      return false;
  }
  return true;
}

Val TileSelector::accumulate(const Expr& acc, const Expr& rhs, Intrinsic combine) {
  const Call* r = accumulating(rhs, combine);
  if (!r || !reduction_accumulates(acc, *r))
    return nullptr;
  // The operands first: making them CB tiles may end the section, which acc is not yet part of.
  std::vector<Expr> operands = r->args;
  bool bt = false;
  if (r->fn == Intrinsic::tile_matmul) {
    const MatmulOperands m = matmul_operands(r->args[0], r->args[1]);
    operands = {m.a, m.b};
    bt = m.bt;
  }
  std::vector<Val> ops;
  for (const Expr& operand : operands)
    ops.push_back(select(operand));
  bool is_reduce = r->fn != Intrinsic::tile_matmul;
  bool is_max = r->fn == Intrinsic::tile_rowmax || r->fn == Intrinsic::tile_colmax;
  if (ops.size() == 2)
    separate(ops[0], ops[1]);
  if (is_reduce && !is_max) {
    ops = sum_parts(ops[0], operands[0]);
  } else {
    for (const Val& v : ops)
      fpu_operand(v);
    for (const Val& v : ops)
      to_cb(v);
  }
  Val x = select(acc);
  bool row = r->fn == Intrinsic::tile_rowsum || r->fn == Intrinsic::tile_rowmax;
  if (is_reduce) { // alone in its section (TileValue::mask); a reduction along the same axis stays
    if (std::any_of(live_.begin(), live_.end(), [&](const Val& v) { return v != x; }))
      spill_all();
    to_dst(x, /*keep_reduction=*/x->mask == (row ? 0 : 1));
  } else {
    to_dst(x);
  }
  for (const Val& v : ops)
    pre(v);
  if (!is_reduce) {
    emit(bt ? Intrinsic::matmul_tiles_bt : Intrinsic::matmul_tiles,
         {cb(ops[0]->cb), cb(ops[1]->cb), index_of(ops[0]), index_of(ops[1]), i(x->slot)});
  } else {
    used_reduction_ = true;
    for (const Val& v : ops) // one part, or hi then lo (sum_parts)
      reduce_tile(is_max, row, v, x->slot);
    x->mask = row ? 0 : 1;
  }
  x->sum = combine == Intrinsic::tile_add;
  for (const Val& v : ops)
    post(v);
  return x;
}

} // namespace tk::lower::tt
